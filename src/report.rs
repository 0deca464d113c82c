//! Statistics reports: `report.md` and a self-contained `report.html`.
//!
//! For each endgame the report gives a table of positions and the five WDL
//! classes with the cursed share, the DTZ histograms (inline SVG drawn with
//! plotters' SVG backend, with the 100- and 150-ply lines marked), the
//! longest positions as board diagrams, and the verdicts of the claims about
//! it. The HTML needs nothing from outside: no scripts, fonts, images or
//! style sheets are loaded, and the SVG carries no namespace URL.

use std::{
    fmt::Write as _,
    fs,
    path::{Path, PathBuf},
};

use plotters::prelude::*;
use plotters::style::Color as _;
use serde::{Deserialize, Serialize};
use shakmaty::{Color, Position, Role};

use crate::{
    claims::{human_bytes, pct, ClaimResult, Verdict},
    error::{Error, Result},
    output::write_atomically,
    position::parse_fen,
    records::LongestWin,
    scan::{Histogram, LongestEntry, ScanStats, SideStats},
};

/// Everything a report shows.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ReportInput {
    /// The command line or description of how the report was made.
    pub generated_by: String,
    /// The endgames' statistics.
    pub stats: Vec<ScanStats>,
    /// The longest wins with their lines (when the tables were present).
    pub longest: Vec<LongestWin>,
    /// The verdicts of the claims about these endgames.
    pub claims: Vec<ClaimResult>,
}

/// Which histogram of a side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HistKind {
    /// Wins and cursed wins of the side to move.
    Win,
    /// Losses and blessed losses of the side to move.
    Loss,
}

fn color_word(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn plot_err(e: impl std::fmt::Display) -> Error {
    Error::Other(format!("cannot draw a chart: {e}"))
}

/// A DTZ histogram as a standalone SVG document, drawn with plotters.
///
/// Bars up to 100 plies are the wins (losses) the 50-move rule leaves
/// standing, bars above are cursed (blessed); vertical lines mark 100 and
/// 150 plies. The count axis is logarithmic so that the rare long positions
/// stay visible.
///
/// # Errors
///
/// [`Error::Other`] if plotters fails.
pub fn histogram_svg(h: &Histogram, title: &str, kind: HistKind) -> Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (720, 300)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let max_x = h.max().unwrap_or(0).max(160) + 5;
        let max_y = h.bins().map(|(_, n)| n).max().unwrap_or(1).max(1) as f64;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(64)
            .build_cartesian_2d(
                -0.5f64..(max_x as f64 + 0.5),
                (0.5f64..max_y * 2.0).log_scale(),
            )
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc("DTZ (plies)")
            .y_desc("positions (log scale)")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| {
                if *y >= 1.0 {
                    format!("{y:.0}")
                } else {
                    String::new()
                }
            })
            .draw()
            .map_err(plot_err)?;
        let (plain, cursed, plain_label, cursed_label) = match kind {
            HistKind::Win => (
                RGBColor(46, 110, 180),
                RGBColor(230, 120, 20),
                "win",
                "cursed win (> 100 plies)",
            ),
            HistKind::Loss => (
                RGBColor(180, 50, 50),
                RGBColor(140, 70, 170),
                "loss",
                "blessed loss (> 100 plies)",
            ),
        };
        chart
            .draw_series(h.bins().filter(|(d, _)| *d <= 100).map(|(d, n)| {
                Rectangle::new(
                    [(f64::from(d) - 0.45, 0.5), (f64::from(d) + 0.45, n as f64)],
                    plain.filled(),
                )
            }))
            .map_err(plot_err)?
            .label(plain_label)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], plain.filled()));
        chart
            .draw_series(h.bins().filter(|(d, _)| *d > 100).map(|(d, n)| {
                Rectangle::new(
                    [(f64::from(d) - 0.45, 0.5), (f64::from(d) + 0.45, n as f64)],
                    cursed.filled(),
                )
            }))
            .map_err(plot_err)?
            .label(cursed_label)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], cursed.filled()));
        for (plies, label, style) in [
            (100.0, "50-move rule: 100 plies", BLACK.stroke_width(2)),
            (
                150.0,
                "75-move rule: 150 plies",
                RGBColor(120, 120, 120).stroke_width(2),
            ),
        ] {
            chart
                .draw_series(LineSeries::new(
                    vec![(plies, 0.5), (plies, max_y * 2.0)],
                    style,
                ))
                .map_err(plot_err)?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 12, y)], style));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 12))
            .draw()
            .map_err(plot_err)?;
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

/// An SVG document made fit for inlining in HTML: the XML namespace
/// attribute (a URL, and optional in HTML) is dropped.
pub fn inline_svg(svg: &str) -> String {
    svg.replace(" xmlns=\"http://www.w3.org/2000/svg\"", "")
        .replace(" xmlns:xlink=\"http://www.w3.org/1999/xlink\"", "")
}

/// Escapes text for HTML.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn glyph(role: Role) -> char {
    // The solid glyphs for both colours; colour comes from CSS.
    match role {
        Role::King => '\u{265A}',
        Role::Queen => '\u{265B}',
        Role::Rook => '\u{265C}',
        Role::Bishop => '\u{265D}',
        Role::Knight => '\u{265E}',
        Role::Pawn => '\u{265F}',
    }
}

/// A board diagram as an HTML table of Unicode chess glyphs, with the side
/// to move and the FEN as caption.
///
/// # Errors
///
/// [`Error::Fen`] / [`Error::Position`] for an unusable FEN.
pub fn board_html(fen: &str, caption: &str) -> Result<String> {
    let pos = parse_fen(fen)?;
    let board = pos.board();
    let mut out = String::from("<figure class=\"board\"><table>");
    for rank in (0..8u32).rev() {
        let _ = write!(out, "<tr><th>{}</th>", rank + 1);
        for file in 0..8u32 {
            let sq =
                shakmaty::Square::from_coords(shakmaty::File::new(file), shakmaty::Rank::new(rank));
            let shade = if sq.is_dark() { "d" } else { "l" };
            match board.piece_at(sq) {
                Some(p) => {
                    let cls = if p.color == Color::White { "w" } else { "b" };
                    let _ = write!(
                        out,
                        "<td class=\"{shade}\"><span class=\"{cls}\" title=\"{} {}\">{}\u{FE0E}</span></td>",
                        color_word(p.color),
                        format!("{:?}", p.role).to_lowercase(),
                        glyph(p.role)
                    );
                }
                None => {
                    let _ = write!(out, "<td class=\"{shade}\"></td>");
                }
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("<tr><th></th>");
    for f in "abcdefgh".chars() {
        let _ = write!(out, "<th>{f}</th>");
    }
    out.push_str("</tr></table>");
    let _ = write!(
        out,
        "<figcaption>{}<br><code>{}</code><br>{} to move</figcaption></figure>",
        esc(caption),
        esc(fen),
        color_word(pos.turn())
    );
    Ok(out)
}

/// A board diagram as plain text for Markdown (a code block body).
///
/// # Errors
///
/// As for [`board_html`].
pub fn board_text(fen: &str) -> Result<String> {
    let pos = parse_fen(fen)?;
    let board = pos.board();
    let mut out = String::from("  +-----------------+\n");
    for rank in (0..8u32).rev() {
        let _ = write!(out, "{} |", rank + 1);
        for file in 0..8u32 {
            let sq =
                shakmaty::Square::from_coords(shakmaty::File::new(file), shakmaty::Rank::new(rank));
            let c = board.piece_at(sq).map_or('.', |p| p.char());
            let _ = write!(out, " {c}");
        }
        out.push_str(" |\n");
    }
    out.push_str("  +-----------------+\n    a b c d e f g h\n");
    let _ = writeln!(out, "  {} to move", color_word(pos.turn()));
    Ok(out)
}

/// The share of decisive positions that the 50-move rule turns into draws:
/// (cursed wins + blessed losses) / (all wins and losses).
pub fn cursed_share(s: &SideStats) -> String {
    let decisive = s.wdl.win + s.wdl.cursed_win + s.wdl.loss + s.wdl.blessed_loss;
    pct(s.wdl.cursed_win + s.wdl.blessed_loss, decisive)
}

fn slug(material: &str) -> String {
    material.to_ascii_lowercase()
}

/// The longest entries of a side, labelled, in a fixed order.
fn longest_entries(s: &SideStats) -> Vec<(&'static str, &LongestEntry)> {
    [
        ("longest win", &s.longest.win),
        ("longest cursed win", &s.longest.cursed_win),
        ("longest loss", &s.longest.loss),
        ("longest blessed loss", &s.longest.blessed_loss),
    ]
    .into_iter()
    .filter_map(|(l, e)| e.as_ref().map(|e| (l, e)))
    .collect()
}

/// The charts of one endgame: (file name, title, SVG).
fn charts(s: &ScanStats) -> Result<Vec<(String, String, String)>> {
    let mut out = Vec::new();
    for c in Color::ALL {
        let side = s.side(c);
        for (kind, h, word) in [
            (HistKind::Win, &side.dtz.win, "wins"),
            (HistKind::Loss, &side.dtz.loss, "losses"),
        ] {
            if h.total() == 0 {
                continue;
            }
            let title = format!("{}: {} to move, {} by DTZ", s.material, color_word(c), word);
            let file = format!(
                "{}-{}-{}.svg",
                slug(&s.material),
                color_word(c).to_lowercase(),
                word
            );
            out.push((file, title.clone(), histogram_svg(h, &title, kind)?));
        }
    }
    Ok(out)
}

fn verdict_class(v: Verdict) -> &'static str {
    v.as_str()
}

/// The claims that concern `material` (by Syzygy name).
fn claims_for<'a>(input: &'a ReportInput, material: &str) -> Vec<&'a ClaimResult> {
    let table = material
        .parse::<crate::material::Material>()
        .map(|m| m.table_name())
        .unwrap_or_else(|_| material.to_owned());
    input
        .claims
        .iter()
        .filter(|c| c.material.as_deref() == Some(table.as_str()))
        .collect()
}

fn evidence_text(c: &ClaimResult) -> String {
    let mut s = c.evidence.summary.clone();
    if let Some(w) = &c.evidence.longest {
        let _ = write!(s, ". Longest: {} (DTZ {})", w.fen, w.dtz);
        if let Some(l) = &w.line {
            let _ = write!(s, "; {}", l.describe());
        }
    }
    if let Some(w) = &c.evidence.exception {
        let _ = write!(s, ". Exception: {} ({})", w.fen, w.wdl.as_str());
    }
    if !c.missing_tables.is_empty() {
        let total = c.evidence.missing_total_bytes.unwrap_or(0);
        let _ = write!(
            s,
            ". Missing: {} ({})",
            c.missing_tables.join(", "),
            human_bytes(total)
        );
    }
    s
}

/// The Markdown report. Charts are referenced as SVG files beside it
/// (see [`write_report`]).
///
/// # Errors
///
/// [`Error::Fen`] for a bad FEN in the input.
pub fn markdown(input: &ReportInput) -> Result<String> {
    let mut md = String::new();
    let _ = writeln!(md, "# fiftymove report\n");
    let _ = writeln!(md, "Generated by `{}`.\n", input.generated_by);
    md.push_str(
        "Positions are counted as the Syzygy generator counts them (symmetry-reduced; the side not to move is not in check). \
A cursed win is a forced win that the 50-move rule turns into a draw; a blessed loss is its mirror. \
The cursed share is (cursed wins + blessed losses) / (all wins and losses) of the side to move.\n\n",
    );
    for s in &input.stats {
        let _ = writeln!(md, "## {}\n", s.material);
        md.push_str("| side to move | positions | win | cursed win | draw | blessed loss | loss | cursed share |\n");
        md.push_str("|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for c in Color::ALL {
            let x = s.side(c);
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                color_word(c),
                x.positions,
                x.wdl.win,
                x.wdl.cursed_win,
                x.wdl.draw,
                x.wdl.blessed_loss,
                x.wdl.loss,
                cursed_share(x)
            );
        }
        md.push('\n');
        for (file, title, _) in charts(s)? {
            let _ = writeln!(md, "![{title}]({file})\n");
        }
        let _ = writeln!(md, "### Longest positions\n");
        for c in Color::ALL {
            for (label, e) in longest_entries(s.side(c)) {
                let _ = writeln!(
                    md,
                    "**{} to move, {label}: DTZ {} plies.** `{}`\n",
                    color_word(c),
                    e.dtz,
                    e.fen
                );
                let _ = writeln!(md, "```\n{}```\n", board_text(&e.fen)?);
            }
        }
        for w in input.longest.iter().filter(|w| w.material == s.material) {
            if let Some(l) = &w.line {
                let _ = writeln!(
                    md,
                    "Best play from the longest {} win with {} to move ({} moves to convert): {}.\n",
                    w.winner,
                    w.to_move,
                    w.moves.unwrap_or(0),
                    l.describe()
                );
            }
        }
        let claims = claims_for(input, &s.material);
        if !claims.is_empty() {
            let _ = writeln!(md, "### Claims\n");
            md.push_str("| claim | statement | verdict | evidence |\n|---|---|---|---|\n");
            for c in claims {
                let _ = writeln!(
                    md,
                    "| {} ({}{}) | {} | **{}** | {} |",
                    c.id,
                    c.who,
                    c.year.map(|y| format!(", {y}")).unwrap_or_default(),
                    c.statement.replace('|', "\\|"),
                    c.verdict,
                    evidence_text(c).replace('|', "\\|")
                );
            }
            md.push('\n');
        }
    }
    let other: Vec<&ClaimResult> = input
        .claims
        .iter()
        .filter(|c| {
            !input
                .stats
                .iter()
                .any(|s| claims_for(input, &s.material).iter().any(|x| x.id == c.id))
        })
        .collect();
    if !other.is_empty() {
        let _ = writeln!(md, "## Other claims\n");
        md.push_str("| claim | statement | verdict | evidence |\n|---|---|---|---|\n");
        for c in other {
            let _ = writeln!(
                md,
                "| {} | {} | **{}** | {} |",
                c.id,
                c.statement.replace('|', "\\|"),
                c.verdict,
                evidence_text(c).replace('|', "\\|")
            );
        }
    }
    Ok(md)
}

const STYLE: &str = r#"
body { font-family: sans-serif; margin: 2em auto; max-width: 1100px; color: #222; line-height: 1.4; }
h1, h2, h3 { color: #123; }
table.stats { border-collapse: collapse; margin: 1em 0; }
table.stats th, table.stats td { border: 1px solid #bbb; padding: 4px 8px; text-align: right; }
table.stats th:first-child, table.stats td:first-child { text-align: left; }
table.claims { border-collapse: collapse; margin: 1em 0; width: 100%; }
table.claims th, table.claims td { border: 1px solid #bbb; padding: 4px 8px; vertical-align: top; font-size: 0.92em; }
.verdict { font-weight: bold; padding: 1px 6px; border-radius: 4px; white-space: nowrap; }
.confirmed { background: #d7f0d7; } .refuted { background: #f6d2d2; }
.partly { background: #f8ecc4; } .unverifiable { background: #e4e4e4; }
.charts svg { display: block; margin: 0.5em 0; max-width: 100%; height: auto; }
.boards { display: flex; flex-wrap: wrap; gap: 1.2em; }
figure.board { margin: 0; }
figure.board table { border-collapse: collapse; }
figure.board td { width: 30px; height: 30px; padding: 0; text-align: center; vertical-align: middle; }
figure.board th { font-weight: normal; font-size: 11px; color: #555; padding: 0 3px; }
figure.board td.l { background: #f0d9b5; } figure.board td.d { background: #b58863; }
figure.board span { font-size: 26px; line-height: 30px; font-family: "DejaVu Sans", "Noto Sans Symbols2", "Segoe UI Symbol", sans-serif; }
figure.board span.w { color: #fff; text-shadow: -1px 0 #000, 1px 0 #000, 0 -1px #000, 0 1px #000; }
figure.board span.b { color: #000; }
figcaption { font-size: 0.8em; max-width: 290px; word-break: break-all; }
code { font-size: 0.9em; }
"#;

/// The self-contained HTML report.
///
/// # Errors
///
/// [`Error::Fen`] for a bad FEN in the input; [`Error::Other`] if a chart
/// cannot be drawn.
pub fn html(input: &ReportInput) -> Result<String> {
    let mut h = String::new();
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    h.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
    let materials: Vec<&str> = input.stats.iter().map(|s| s.material.as_str()).collect();
    let _ = write!(
        h,
        "<title>fiftymove report: {}</title><style>{STYLE}</style></head><body>",
        esc(&materials.join(", "))
    );
    let _ = write!(
        h,
        "<h1>fiftymove report</h1><p>Generated by <code>{}</code>.</p>",
        esc(&input.generated_by)
    );
    h.push_str("<p>Positions are counted as the Syzygy generator counts them (symmetry-reduced; the side not to move is not in check). A <em>cursed win</em> is a forced win that the 50-move rule turns into a draw; a <em>blessed loss</em> is its mirror. The <em>cursed share</em> is (cursed wins + blessed losses) / (all wins and losses) of the side to move.</p>");
    if !materials.is_empty() {
        h.push_str("<nav><ul>");
        for m in &materials {
            let _ = write!(h, "<li><a href=\"#{}\">{}</a></li>", slug(m), esc(m));
        }
        h.push_str("</ul></nav>");
    }
    for s in &input.stats {
        let _ = write!(
            h,
            "<section id=\"{}\"><h2>{}</h2>",
            slug(&s.material),
            esc(&s.material)
        );
        h.push_str("<table class=\"stats\"><tr><th>side to move</th><th>positions</th><th>win</th><th>cursed win</th><th>draw</th><th>blessed loss</th><th>loss</th><th>cursed share</th></tr>");
        for c in Color::ALL {
            let x = s.side(c);
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                color_word(c),
                x.positions,
                x.wdl.win,
                x.wdl.cursed_win,
                x.wdl.draw,
                x.wdl.blessed_loss,
                x.wdl.loss,
                cursed_share(x)
            );
        }
        h.push_str("</table><h3>DTZ histograms</h3><div class=\"charts\">");
        for (_, title, svg) in charts(s)? {
            let _ = write!(
                h,
                "<div role=\"img\" aria-label=\"{}\">{}</div>",
                esc(&title),
                inline_svg(&svg)
            );
        }
        h.push_str("</div><h3>Longest positions</h3><div class=\"boards\">");
        for c in Color::ALL {
            for (label, e) in longest_entries(s.side(c)) {
                let caption = format!("{} to move, {label}: DTZ {} plies", color_word(c), e.dtz);
                h.push_str(&board_html(&e.fen, &caption)?);
            }
        }
        h.push_str("</div>");
        let lines: Vec<&LongestWin> = input
            .longest
            .iter()
            .filter(|w| w.material == s.material)
            .collect();
        if !lines.is_empty() {
            h.push_str("<ul>");
            for w in lines {
                if let Some(l) = &w.line {
                    let _ = write!(
                        h,
                        "<li>Best play from the longest {} win with {} to move (<code>{}</code>): {} moves to convert; {}.</li>",
                        esc(&w.winner),
                        esc(&w.to_move),
                        esc(&w.fen),
                        w.moves.unwrap_or(0),
                        esc(&l.describe())
                    );
                }
            }
            h.push_str("</ul>");
        }
        let claims = claims_for(input, &s.material);
        if !claims.is_empty() {
            h.push_str("<h3>Claims</h3>");
            claims_table(&mut h, &claims);
        }
        h.push_str("</section>");
    }
    let other: Vec<&ClaimResult> = input
        .claims
        .iter()
        .filter(|c| {
            !input
                .stats
                .iter()
                .any(|s| claims_for(input, &s.material).iter().any(|x| x.id == c.id))
        })
        .collect();
    if !other.is_empty() {
        h.push_str("<section><h2>Other claims</h2>");
        claims_table(&mut h, &other);
        h.push_str("</section>");
    }
    h.push_str("</body></html>\n");
    Ok(h)
}

fn claims_table(h: &mut String, claims: &[&ClaimResult]) {
    h.push_str("<table class=\"claims\"><tr><th>claim</th><th>statement</th><th>verdict</th><th>evidence</th></tr>");
    for c in claims {
        let _ = write!(
            h,
            "<tr><td><code>{}</code><br>{}{}<br><small>{}</small></td><td>{}</td><td><span class=\"verdict {}\">{}</span></td><td>{}</td></tr>",
            esc(&c.id),
            esc(&c.who),
            c.year.map(|y| format!(", {y}")).unwrap_or_default(),
            esc(&c.source),
            esc(&c.statement),
            verdict_class(c.verdict),
            c.verdict,
            esc(&evidence_text(c))
        );
    }
    h.push_str("</table>");
}

/// Writes `report.md`, `report.html` and the charts' SVG files (which the
/// Markdown embeds) into `dir`, each atomically. Returns the paths written.
///
/// # Errors
///
/// [`Error::Output`] if the directory or a file cannot be written; chart
/// and FEN errors as for [`html`].
pub fn write_report(dir: &Path, input: &ReportInput) -> Result<Vec<PathBuf>> {
    fs::create_dir_all(dir).map_err(|error| Error::Output {
        path: dir.to_path_buf(),
        error,
    })?;
    let mut written = Vec::new();
    for s in &input.stats {
        for (file, _, svg) in charts(s)? {
            let path = dir.join(file);
            write_atomically(&path, svg.as_bytes())?;
            written.push(path);
        }
    }
    let md = dir.join("report.md");
    write_atomically(&md, markdown(input)?.as_bytes())?;
    written.push(md);
    let page = dir.join("report.html");
    write_atomically(&page, html(input)?.as_bytes())?;
    written.push(page);
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::Wdl;

    fn sample() -> ScanStats {
        let mut s = ScanStats::new("KRBvKR", false);
        s.white
            .record(Wdl::Win, 3, 8, || "8/8/8/8/8/8/8/R3K2k w - - 0 1".into());
        s.white.record(Wdl::CursedWin, 117, 8, || {
            "8/8/8/8/8/8/8/R3K2k w - - 0 1".into()
        });
        s.white.record(Wdl::Draw, 0, 8, String::new);
        s.black
            .record(Wdl::Loss, -2, 8, || "8/8/8/8/8/8/8/R3K2k b - - 0 1".into());
        s
    }

    #[test]
    fn histogram_is_svg_from_plotters() {
        let s = sample();
        let svg = histogram_svg(&s.white.dtz.win, "t", HistKind::Win).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
        assert!(svg.contains("<rect"));
        assert!(svg.contains("100 plies"));
        assert!(!inline_svg(&svg).contains("http"));
    }

    #[test]
    fn html_is_self_contained() {
        let input = ReportInput {
            generated_by: "test".into(),
            stats: vec![sample()],
            ..ReportInput::default()
        };
        let page = html(&input).unwrap();
        assert!(!page.contains("http://") && !page.contains("https://"));
        assert!(!page.contains("src="));
        assert!(page.contains("<svg"));
        assert!(page.contains("figure class=\"board\""));
        let md = markdown(&input).unwrap();
        assert!(
            md.contains("| White | 3 | 1 | 1 | 1 | 0 | 0 | 50.00% |"),
            "{md}"
        );
    }

    #[test]
    fn board_text_diagram() {
        let t = board_text("8/8/8/8/8/8/8/R3K2k w - - 0 1").unwrap();
        assert!(t.contains("1 | R . . . K . . k |"), "{t}");
    }
}
