//! The census's files: `census.json` (the document), `census.csv`, and a
//! report, `census.md` with its SVG charts beside it and a self-contained
//! `census.html`: the share of wins each rule loses per material, the
//! endgames ranked by wins lost at 50 and at 75 moves, the DTR distribution,
//! and FIDE's historical lists set against the census.

use std::{
    fmt::Write as _,
    fs,
    path::{Path, PathBuf},
};

use shakmaty::Color;

use super::{
    census_charts::{dtr_distribution_svg, horizontal_bars_svg, Series, RULE_COLORS},
    charts::{inline_svg, wins_lost_svg},
    esc,
    html::STYLE,
};
use crate::{
    build_id::BUILD_ID,
    census::{
        lists::{ListInCensus, RULE_IN_FORCE},
        summary::{self, material_totals, SideSummary},
        Census,
    },
    error::{Error, Result},
    human::pct,
    model::{Histogram, RULES_COUNTED},
    output::write_atomically,
};

/// How many endgames the rankings show.
const RANKED: usize = 20;

/// One material's totals, both sides to move.
struct Totals {
    material: String,
    wins: u64,
    lost: [u64; 4],
}

fn totals(census: &Census) -> Result<Vec<Totals>> {
    census
        .rows()
        .iter()
        .map(|doc| {
            let (wins, lost) = material_totals(doc)?;
            Ok(Totals {
                material: doc.material.clone(),
                wins,
                lost,
            })
        })
        .collect()
}

/// The materials that lose wins to the 50-move or the 100-move rule, the
/// most lost at 50 first (then by name): the rows of the table of the
/// share each rule loses, in Markdown and in HTML alike.
fn losing(totals: &[Totals]) -> Vec<&Totals> {
    most_lost_first(
        totals
            .iter()
            .filter(|t| t.lost[3] > 0 || t.lost[0] > 0)
            .collect(),
        0,
    )
}

/// `rows` sorted by the wins they lose under the `rule`th rule of
/// [`RULES_COUNTED`], most first, then by name.
fn most_lost_first(mut rows: Vec<&Totals>, rule: usize) -> Vec<&Totals> {
    rows.sort_by(|a, b| {
        b.lost[rule]
            .cmp(&a.lost[rule])
            .then_with(|| a.material.cmp(&b.material))
    });
    rows
}

/// The DTR of every win of the census, summed over materials and sides.
fn all_wins_by_dtr(census: &Census) -> Histogram {
    let mut h = Histogram::default();
    for doc in census.rows() {
        for c in Color::ALL {
            h += &doc.side(c).dtz.win;
        }
    }
    h
}

/// The longest DTR of the census: (material, side summary).
fn longest(census: &Census) -> Result<Option<(String, SideSummary)>> {
    let mut best: Option<(String, SideSummary)> = None;
    for doc in census.rows() {
        for s in summary::sides(doc)? {
            let Some(e) = &s.longest else { continue };
            let better = best.as_ref().is_none_or(|(_, b)| {
                let be = b.longest.as_ref().expect("kept with a longest");
                e.dtz > be.dtz || (e.dtz == be.dtz && e.fen < be.fen)
            });
            if better {
                best = Some((doc.material.clone(), s));
            }
        }
    }
    Ok(best)
}

/// A chart's file name, title and SVG.
type Chart = (&'static str, String, String);

fn charts(census: &Census, totals: &[Totals]) -> Result<Vec<Chart>> {
    let mut out = Vec::new();
    // The share of wins each rule loses, for the materials that lose any
    // under the 50-move rule, most first.
    let mut losing: Vec<&Totals> = totals.iter().filter(|t| t.lost[0] > 0).collect();
    losing.sort_by(|a, b| {
        let share = |t: &Totals| t.lost[0] as f64 / t.wins.max(1) as f64;
        share(b)
            .total_cmp(&share(a))
            .then_with(|| a.material.cmp(&b.material))
    });
    if !losing.is_empty() {
        let names: Vec<String> = losing.iter().map(|t| t.material.clone()).collect();
        let values: Vec<Vec<f64>> = (0..RULES_COUNTED.len())
            .map(|i| {
                losing
                    .iter()
                    .map(|t| 100.0 * t.lost[i] as f64 / t.wins.max(1) as f64)
                    .collect()
            })
            .collect();
        let series: Vec<Series<'_>> = RULES_COUNTED
            .iter()
            .zip(&values)
            .zip(RULE_COLORS)
            .map(|((n, v), color)| Series {
                label: format!("{n}-move rule"),
                color,
                values: v,
            })
            .collect();
        let title = "Share of each endgame's wins that a rule cuts short";
        out.push((
            "census-share-lost.svg",
            title.to_owned(),
            horizontal_bars_svg(
                title,
                &names,
                &series,
                "% of the endgame's wins (log scale)",
                1e-5,
            )?,
        ));
    }
    // Wins lost at 50 and at 75, the most first.
    let mut ranked = ranked_by_lost(totals, 0);
    ranked.truncate(RANKED);
    if !ranked.is_empty() {
        let names: Vec<String> = ranked.iter().map(|t| t.material.clone()).collect();
        let at = |i: usize| -> Vec<f64> { ranked.iter().map(|t| t.lost[i] as f64).collect() };
        let (at50, at75) = (at(0), at(2));
        let title = "Wins cut short by the 50- and the 75-move rule";
        out.push((
            "census-wins-lost.svg",
            title.to_owned(),
            horizontal_bars_svg(
                title,
                &names,
                &[
                    Series {
                        label: "50-move rule".into(),
                        color: RULE_COLORS[0],
                        values: &at50,
                    },
                    Series {
                        label: "75-move rule".into(),
                        color: RULE_COLORS[2],
                        values: &at75,
                    },
                ],
                "wins (log scale)",
                0.5,
            )?,
        ));
    }
    let all = all_wins_by_dtr(census);
    let title = "DTR of every win of the census";
    out.push((
        "census-dtr.svg",
        title.to_owned(),
        dtr_distribution_svg(&all, title)?,
    ));
    let title = "Wins an N-move rule cuts short, across the census";
    out.push((
        "census-lost-by-rule.svg",
        title.to_owned(),
        wins_lost_svg(&all, all.total(), title)?,
    ));
    Ok(out)
}

/// Said where no rule of the census cuts a win short.
const NO_RULE_LOSES: &str = "No rule of 50 moves or more cuts any win of this census short.";

/// The materials that lose wins under the `i`th rule of [`RULES_COUNTED`],
/// most lost first, then by name.
fn ranked_by_lost(totals: &[Totals], i: usize) -> Vec<&Totals> {
    most_lost_first(totals.iter().filter(|t| t.lost[i] > 0).collect(), i)
}

/// A Markdown line for HTML: escaped, its `code` spans as `<code>` (the
/// headline's FENs), so that no backtick shows on the page.
fn code_spans(line: &str) -> String {
    line.split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                format!("<code>{}</code>", esc(part))
            } else {
                esc(part)
            }
        })
        .collect()
}

/// What the census says first: its scope, its wins and what each rule
/// loses of them, and its longest DTR.
fn headline(census: &Census, totals: &[Totals]) -> Result<Vec<String>> {
    let wins: u64 = totals.iter().map(|t| t.wins).sum();
    let mut lines = vec![format!(
        "{} materials, {} positions, {} wins without a rule (both sides to move).",
        census.rows().len(),
        census
            .rows()
            .iter()
            .map(|d| d.white.positions + d.black.positions)
            .sum::<u64>(),
        wins
    )];
    for (i, n) in RULES_COUNTED.iter().enumerate() {
        let lost: u64 = totals.iter().map(|t| t.lost[i]).sum();
        let materials = totals.iter().filter(|t| t.lost[i] > 0).count();
        lines.push(format!(
            "The {n}-move rule cuts {lost} wins short ({} of all wins), in {materials} of the {} materials.",
            pct(lost, wins),
            totals.len()
        ));
    }
    if let Some((material, s)) = longest(census)? {
        let e = s.longest.as_ref().expect("a longest");
        lines.push(format!(
            "The longest DTR is {} plies ({material}, {} to move): `{}`; a rule of fewer than {} moves cuts it short.",
            e.dtz,
            color_word(s.color),
            e.fen,
            e.dtz.div_ceil(2)
        ));
    }
    Ok(lines)
}

fn color_word(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// The lists section's rows: (endgame, winner, allowance, wins, lost at the
/// rule in force, lost under the allowance, what the census says).
fn list_rows(list: &ListInCensus) -> Vec<[String; 7]> {
    list.named
        .iter()
        .map(|n| {
            let endgame = match &n.named.part {
                Some(part) => format!("{} ({part})", n.named.material.table_name()),
                None => n.named.material.table_name(),
            };
            let (wins, at_rule, at_allowance, says) = match n.counts {
                None => (
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    "not in this census".to_owned(),
                ),
                Some(c) => {
                    let mut says = if c.lost_at_rule == 0 {
                        format!("needless: the {RULE_IN_FORCE}-move rule cuts no win short")
                    } else {
                        format!("needed: the {RULE_IN_FORCE}-move rule cuts wins short")
                    };
                    if n.named.part.is_some() && c.lost_at_rule > 0 {
                        says.push_str(" (counted on the whole endgame; the list names part of it)");
                    }
                    if c.lost_at_allowance > 0 {
                        let _ = write!(
                            says,
                            "; the allowance still cuts {} short",
                            c.lost_at_allowance
                        );
                    } else {
                        says.push_str("; the allowance keeps every win");
                    }
                    (
                        c.wins.to_string(),
                        c.lost_at_rule.to_string(),
                        c.lost_at_allowance.to_string(),
                        says,
                    )
                }
            };
            [
                endgame,
                n.named.winner.clone(),
                n.named.allowance.to_string(),
                wins,
                at_rule,
                at_allowance,
                says,
            ]
        })
        .collect()
}

const LIST_HEADER: [&str; 7] = [
    "endgame named",
    "winner",
    "allowance (moves)",
    "wins",
    "lost at 50",
    "lost under the allowance",
    "the census says",
];

fn missed_sentence(list: &ListInCensus) -> String {
    if list.missed.is_empty() {
        return format!(
            "It missed no endgame of this census: every one that loses wins under the {RULE_IN_FORCE}-move rule is named."
        );
    }
    let shown: Vec<String> = list
        .missed
        .iter()
        .map(|m| {
            format!(
                "{} ({} winning: {} wins lost)",
                m.material, m.winner, m.lost_at_rule
            )
        })
        .collect();
    format!(
        "It missed {} endgame(s) of this census that lose wins under the {RULE_IN_FORCE}-move rule: {}.",
        list.missed.len(),
        shown.join(", ")
    )
}

fn needless_sentence(list: &ListInCensus) -> Option<String> {
    let needless: Vec<String> = list
        .named
        .iter()
        .filter(|n| n.needless())
        .map(|n| {
            format!(
                "{} ({} winning)",
                n.named.material.table_name(),
                n.named.winner
            )
        })
        .collect();
    (!needless.is_empty()).then(|| {
        format!(
            "It named {} needlessly: the census shows no win of it lost under the {RULE_IN_FORCE}-move rule.",
            needless.join(", ")
        )
    })
}

fn builds_sentence(census: &Census) -> String {
    match census.build() {
        Some(b) if b == BUILD_ID => format!("Computed and written by build {b}."),
        Some(b) => format!("Computed by build {b}, written by build {BUILD_ID}."),
        None => {
            format!("Computed by a build that did not name itself, written by build {BUILD_ID}.")
        }
    }
}

const INTRO: &str = "Every endgame of the census solved once for DTR (depth by the rule: the least N-move rule under which a position is won), \
without a rule. A rule of N moves keeps exactly the wins whose DTR is at most 2N plies, so one solve answers every rule. \
Positions are counted as the Syzygy generator counts them (symmetry-reduced; the side not to move is not in check), per side to move: \
a side's wins are the positions it wins with the move. The rules: 50 moves (FIDE 9.3), 66 (the moves KRB v KR was believed to need in 1928, when it was allowed twice that), \
75 (the automatic draw, FIDE 9.6.2, and the 1989 allowance) and 100 (the 1982 allowance).";

/// The census's two pages, `census.md` and `census.html`: the census and
/// the lists set against it, the command that made them, and what both
/// pages show of it (the totals and the charts), worked out once.
pub struct CensusPages<'a> {
    census: &'a Census,
    lists: &'a [ListInCensus],
    generated_by: &'a str,
    totals: Vec<Totals>,
    charts: Vec<Chart>,
}

impl<'a> CensusPages<'a> {
    /// The pages of `census` and `lists`, made by the command
    /// `generated_by`.
    ///
    /// # Errors
    ///
    /// [`Error::Usage`] for a row that is not a DTR document;
    /// [`Error::Chart`] if plotters fails.
    pub fn new(
        census: &'a Census,
        lists: &'a [ListInCensus],
        generated_by: &'a str,
    ) -> Result<CensusPages<'a>> {
        let totals = totals(census)?;
        let charts = charts(census, &totals)?;
        Ok(CensusPages {
            census,
            lists,
            generated_by,
            totals,
            charts,
        })
    }

    /// The charts, each with its file name and title, and its SVG.
    pub fn charts(&self) -> &[(&'static str, String, String)] {
        &self.charts
    }

    /// `census.md`, its charts referenced as the SVG files beside it.
    ///
    /// # Errors
    ///
    /// [`Error::Usage`] for a row that is not a DTR document.
    pub fn markdown(&self) -> Result<String> {
        markdown(self)
    }

    /// The self-contained `census.html`: the same as the Markdown, its
    /// charts inline.
    ///
    /// # Errors
    ///
    /// [`Error::Usage`] for a row that is not a DTR document.
    pub fn html(&self) -> Result<String> {
        html(self)
    }
}

/// [`CensusPages::markdown`].
fn markdown(pages: &CensusPages<'_>) -> Result<String> {
    let (census, totals) = (pages.census, &pages.totals);
    let mut md = String::from("# fiftymove census: where move-limit rules cut wins short\n\n");
    let _ = writeln!(
        md,
        "Generated by `{}`. {}\n",
        pages.generated_by,
        builds_sentence(census)
    );
    let _ = writeln!(md, "{INTRO}\n");
    md.push_str("## Headline\n\n");
    for line in headline(census, totals)? {
        let _ = writeln!(md, "- {line}");
    }
    md.push('\n');
    md.push_str("## The share of wins each rule loses\n\n");
    let losing = losing(totals);
    if losing.is_empty() {
        let _ = writeln!(md, "{NO_RULE_LOSES}\n");
    } else {
        md.push_str("| endgame | wins | lost at 50 | lost at 66 | lost at 75 | lost at 100 |\n|---|---:|---:|---:|---:|---:|\n");
        for t in &losing {
            let _ = write!(md, "| {} | {} |", t.material, t.wins);
            for l in t.lost {
                let _ = write!(md, " {l} ({}) |", pct(l, t.wins));
            }
            md.push('\n');
        }
        let _ = writeln!(
            md,
            "\nThe other {} materials lose no win under any of these rules.\n",
            totals.len() - losing.len()
        );
    }
    for (file, title, _) in &pages.charts {
        let _ = writeln!(md, "![{title}]({file})\n");
    }
    for (i, n) in [(0, 50), (2, 75)] {
        let _ = writeln!(md, "## The endgames ranked by wins lost at {n} moves\n");
        let ranked = ranked_by_lost(totals, i);
        if ranked.is_empty() {
            let _ = writeln!(md, "The {n}-move rule cuts no win of this census short.\n");
            continue;
        }
        md.push_str("| rank | endgame | wins lost | of its wins |\n|---:|---|---:|---:|\n");
        for (r, t) in ranked.iter().take(RANKED).enumerate() {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} |",
                r + 1,
                t.material,
                t.lost[i],
                pct(t.lost[i], t.wins)
            );
        }
        md.push('\n');
    }
    md.push_str("## FIDE's lists against the census\n\n");
    let _ = writeln!(
        md,
        "Each list named endgames allowed more than the {RULE_IN_FORCE}-move rule then in force. Wins here are the named winner's, whoever is to move.\n"
    );
    for list in pages.lists {
        let _ = writeln!(md, "### {}\n", list.year);
        let _ = writeln!(md, "| {} |", LIST_HEADER.join(" | "));
        let _ = writeln!(md, "|---|---|---:|---:|---:|---:|---|");
        for row in list_rows(list) {
            let _ = writeln!(md, "| {} |", row.join(" | "));
        }
        let _ = writeln!(md, "\n{}", missed_sentence(list));
        if let Some(s) = needless_sentence(list) {
            let _ = writeln!(md, "{s}");
        }
        md.push('\n');
    }
    md.push_str("## Every material\n\n```\n");
    md.push_str(&summary::text_table(census)?);
    md.push_str("```\n");
    Ok(md)
}

/// [`CensusPages::html`].
fn html(pages: &CensusPages<'_>) -> Result<String> {
    let (census, totals) = (pages.census, &pages.totals);
    let mut h = String::from("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    let _ = write!(
        h,
        "<title>fiftymove census</title><style>{STYLE}</style></head><body>"
    );
    h.push_str("<h1>fiftymove census: where move-limit rules cut wins short</h1>");
    let _ = write!(
        h,
        "<p>Generated by <code>{}</code>. {}</p><p>{}</p>",
        esc(pages.generated_by),
        esc(&builds_sentence(census)),
        esc(INTRO)
    );
    h.push_str("<h2>Headline</h2><ul>");
    for line in headline(census, totals)? {
        let _ = write!(h, "<li>{}</li>", code_spans(&line));
    }
    h.push_str("</ul><h2>The share of wins each rule loses</h2><div class=\"charts\">");
    for (_, _, svg) in &pages.charts {
        h.push_str(&inline_svg(svg));
    }
    h.push_str("</div>");
    let losing = losing(totals);
    if losing.is_empty() {
        let _ = write!(h, "<p>{}</p>", esc(NO_RULE_LOSES));
    } else {
        h.push_str("<table class=\"stats\"><tr><th>endgame</th><th>wins</th><th>lost at 50</th><th>lost at 66</th><th>lost at 75</th><th>lost at 100</th></tr>");
    }
    for t in &losing {
        let _ = write!(h, "<tr><td>{}</td><td>{}</td>", esc(&t.material), t.wins);
        for l in t.lost {
            let _ = write!(h, "<td>{l} ({})</td>", pct(l, t.wins));
        }
        h.push_str("</tr>");
    }
    if !losing.is_empty() {
        let _ = write!(
            h,
            "</table><p>The other {} materials lose no win under any of these rules.</p>",
            totals.len() - losing.len()
        );
    }
    for (i, n) in [(0, 50), (2, 75)] {
        let _ = write!(h, "<h2>The endgames ranked by wins lost at {n} moves</h2>");
        let ranked = ranked_by_lost(totals, i);
        if ranked.is_empty() {
            let _ = write!(
                h,
                "<p>The {n}-move rule cuts no win of this census short.</p>"
            );
            continue;
        }
        h.push_str("<table class=\"stats\"><tr><th>rank</th><th>endgame</th><th>wins lost</th><th>of its wins</th></tr>");
        for (r, t) in ranked.iter().take(RANKED).enumerate() {
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                r + 1,
                esc(&t.material),
                t.lost[i],
                pct(t.lost[i], t.wins)
            );
        }
        h.push_str("</table>");
    }
    h.push_str("<h2>FIDE's lists against the census</h2>");
    let _ = write!(
        h,
        "<p>Each list named endgames allowed more than the {RULE_IN_FORCE}-move rule then in force. Wins here are the named winner's, whoever is to move.</p>"
    );
    for list in pages.lists {
        let _ = write!(h, "<h3>{}</h3><table class=\"claims\"><tr>", list.year);
        for head in LIST_HEADER {
            let _ = write!(h, "<th>{}</th>", esc(head));
        }
        h.push_str("</tr>");
        for row in list_rows(list) {
            h.push_str("<tr>");
            for cell in row {
                let _ = write!(h, "<td>{}</td>", esc(&cell));
            }
            h.push_str("</tr>");
        }
        let _ = write!(h, "</table><p>{}</p>", esc(&missed_sentence(list)));
        if let Some(s) = needless_sentence(list) {
            let _ = write!(h, "<p>{}</p>", esc(&s));
        }
    }
    let _ = writeln!(
        h,
        "<h2>Every material</h2><pre>{}</pre></body></html>",
        esc(&summary::text_table(census)?)
    );
    Ok(h)
}

/// Writes the census into `dir` (made if needed), each file atomically:
/// `census.json`, `census.csv`, the charts' SVG files, `census.md` and
/// `census.html`. Returns the paths written.
///
/// # Errors
///
/// [`Error::Output`] if the directory or a file cannot be written; chart
/// errors; [`Error::Usage`] for a row that is not a DTR document.
pub fn write_census(
    dir: &Path,
    census: &Census,
    lists: &[ListInCensus],
    generated_by: &str,
) -> Result<Vec<PathBuf>> {
    fs::create_dir_all(dir).map_err(|error| Error::Output {
        path: dir.to_path_buf(),
        error,
    })?;
    let pages = CensusPages::new(census, lists, generated_by)?;
    let mut written = Vec::new();
    let mut put = |name: &str, bytes: &[u8]| -> Result<()> {
        let path = dir.join(name);
        write_atomically(&path, bytes)?;
        written.push(path);
        Ok(())
    };
    let json = serde_json::to_vec_pretty(&census.document()).map_err(|source| Error::Encode {
        path: dir.join("census.json"),
        source,
    })?;
    put("census.json", &json)?;
    put("census.csv", summary::csv(census)?.as_bytes())?;
    for (file, _, svg) in pages.charts() {
        put(file, svg.as_bytes())?;
    }
    put("census.md", pages.markdown()?.as_bytes())?;
    put("census.html", pages.html()?.as_bytes())?;
    Ok(written)
}
