//! Statistics reports: `report.md` and a self-contained `report.html`.
//!
//! For each endgame the report gives a table of positions and the five WDL
//! classes with the cursed share, the DTZ histograms (inline SVG drawn with
//! plotters' SVG backend, with the 100- and 150-ply lines marked), the
//! longest positions as board diagrams, and the verdicts of the claims about
//! it. The HTML needs nothing from outside: no scripts, fonts, images or
//! style sheets are loaded, and the SVG carries no namespace URL.
//!
//! The census has its own files ([`census`]): `census.md` and
//! `census.html` with the share of wins each rule loses, the rankings, the
//! DTR distribution and FIDE's lists set against it.
//!
//! Layer: the top, above [`crate::census`], [`crate::claims`],
//! [`crate::model`] (the statistics document) and [`crate::chess`], which
//! it uses. The binary uses it.

mod board;
pub mod census;
mod census_charts;
mod charts;
mod html;
mod markdown;

pub use self::board::{board_html, board_text};
pub use self::charts::{histogram_svg, inline_svg, wins_lost_svg, HistKind};
pub use self::html::html;
pub use self::markdown::markdown;

use std::{
    fmt::Write as _,
    fs,
    path::{Path, PathBuf},
};

use serde::{Deserialize, Serialize};
use shakmaty::Color;

use crate::{
    chess::rule::Metric,
    claims::records::LongestWin,
    claims::{ClaimResult, Verdict},
    error::{Error, Result},
    human::{human_bytes, pct},
    model::{LongestEntry, ScanStats, SideStats},
    output::write_atomically,
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
    /// The solver's DTM and DTR documents of these endgames, if made.
    #[serde(default)]
    pub solved: Vec<ScanStats>,
}

/// Which builds computed the statistics shown: "build `X`", or several,
/// as one sentence (a report made from saved documents shows another
/// build's numbers, and says so).
fn builds_sentence(input: &ReportInput) -> String {
    let mut builds: Vec<&str> = input
        .stats
        .iter()
        .chain(&input.solved)
        .map(|s| s.build.as_deref().unwrap_or("unnamed (an older fiftymove)"))
        .collect();
    builds.sort_unstable();
    builds.dedup();
    let this = crate::build_id::BUILD_ID;
    let list = builds.join(", ");
    match builds[..] {
        [] => format!("Written by build {this}."),
        [one] if one == this => format!("Written by build {this}, which computed every number."),
        _ => format!("Written by build {this}; the numbers were computed by build {list}."),
    }
}

fn color_word(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
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

/// The cells of a side's row in the statistics table of both formats:
/// the side to move, its positions, the five classes and the cursed share.
fn stats_row(c: Color, x: &SideStats) -> [String; 8] {
    [
        color_word(c).to_owned(),
        x.positions.to_string(),
        x.wdl.win.to_string(),
        x.wdl.cursed_win.to_string(),
        x.wdl.draw.to_string(),
        x.wdl.blessed_loss.to_string(),
        x.wdl.loss.to_string(),
        cursed_share(x),
    ]
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

/// The charts of one endgame: (file name, title, SVG): its DTZ histograms,
/// then, where the solver's documents are there, its DTM histograms and
/// the wins each rule cuts short.
fn charts(input: &ReportInput, s: &ScanStats) -> Result<Vec<(String, String, String)>> {
    let mut out = Vec::new();
    let solved = |metric: Metric| {
        input
            .solved
            .iter()
            .find(|d| d.material == s.material && d.metric == Some(metric))
    };
    let mut docs = vec![(s, "DTZ", HistKind::Win, HistKind::Loss)];
    if let Some(d) = solved(Metric::Dtm) {
        docs.push((d, "DTM", HistKind::MateWin, HistKind::MateLoss));
    }
    for (doc, metric, win_kind, loss_kind) in docs {
        for c in Color::ALL {
            let side = doc.side(c);
            for (kind, h, word) in [
                (win_kind, &side.dtz.win, "wins"),
                (loss_kind, &side.dtz.loss, "losses"),
            ] {
                if h.total() == 0 {
                    continue;
                }
                let title = format!(
                    "{}: {} to move, {} by {metric}",
                    s.material,
                    color_word(c),
                    word
                );
                let file = format!(
                    "{}-{}-{}{}.svg",
                    slug(&s.material),
                    color_word(c).to_lowercase(),
                    word,
                    if metric == "DTZ" {
                        String::new()
                    } else {
                        format!("-{}", metric.to_lowercase())
                    }
                );
                out.push((file, title.clone(), histogram_svg(h, &title, kind)?));
            }
        }
    }
    if let Some(d) = solved(Metric::Dtr) {
        for c in Color::ALL {
            let side = d.side(c);
            if side.wdl.win == 0 {
                continue;
            }
            let title = format!(
                "{}: {} to move, wins cut short by an N-move rule",
                s.material,
                color_word(c)
            );
            let file = format!(
                "{}-{}-wins-lost.svg",
                slug(&s.material),
                color_word(c).to_lowercase()
            );
            out.push((
                file,
                title.clone(),
                wins_lost_svg(&side.dtz.win, side.wdl.win, &title)?,
            ));
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
        .parse::<crate::chess::material::Material>()
        .map(|m| m.table_name())
        .unwrap_or_else(|_| material.to_owned());
    input
        .claims
        .iter()
        .filter(|c| c.material.as_deref() == Some(table.as_str()))
        .collect()
}

/// The claims about no material the report covers, for a section of
/// their own after the materials'.
fn other_claims(input: &ReportInput) -> Vec<&ClaimResult> {
    input
        .claims
        .iter()
        .filter(|c| {
            !input
                .stats
                .iter()
                .any(|s| claims_for(input, &s.material).iter().any(|x| x.id == c.id))
        })
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
        for (file, _, svg) in charts(input, s)? {
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
    use crate::chess::wdl::{Dtz, Wdl};

    fn sample() -> ScanStats {
        let mut s = ScanStats::new("KRBvKR", false);
        s.white.record(Wdl::Win, Dtz(3), 8, || {
            "8/8/8/8/8/8/8/R3K2k w - - 0 1".into()
        });
        s.white.record(Wdl::CursedWin, Dtz(117), 8, || {
            "8/8/8/8/8/8/8/R3K2k w - - 0 1".into()
        });
        s.white.record(Wdl::Draw, Dtz(0), 8, String::new);
        s.black.record(Wdl::Loss, Dtz(-2), 8, || {
            "8/8/8/8/8/8/8/R3K2k b - - 0 1".into()
        });
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
