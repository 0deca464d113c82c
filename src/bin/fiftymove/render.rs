//! Text and JSON rendering of the library's results.

use std::io::{self, Write};

use fiftymove::{
    chess::rule::{Metric, Rule},
    chess::wdl::Outcome,
    human::human_bytes,
    model::ScanStats,
    probe::line::{Line, LineEnd},
    probe::ProbeReport,
    tables::{MemoryNeeds, TablesReport},
};
use serde::Serialize;

/// Writes one JSON document on one line (JSON Lines).
pub fn json_line<T: Serialize>(out: &mut impl Write, value: &T) -> io::Result<()> {
    // (From keeps the kind of an I/O error: a closed pipe stays BrokenPipe.)
    serde_json::to_writer(&mut *out, value).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

/// `value` as one JSON line with `--json` (`json`), else as `text` writes
/// it for people.
pub fn json_or_text<W: Write, T: Serialize>(
    json: bool,
    out: &mut W,
    value: &T,
    text: impl FnOnce(&mut W, &T) -> io::Result<()>,
) -> io::Result<()> {
    if json {
        json_line(out, value)
    } else {
        text(out, value)
    }
}

fn signed(v: i32) -> String {
    if v > 0 {
        format!("+{v}")
    } else {
        v.to_string()
    }
}

fn outcome_word(o: Outcome) -> &'static str {
    match o {
        Outcome::Win => "win",
        Outcome::Draw => "draw",
        Outcome::Loss => "loss",
    }
}

/// `probe` for people.
/// "the 50-move rule", "the 75-move rule", "no move-limit rule".
fn rule_words(rule: Rule) -> String {
    match rule {
        Rule::Moves(n) => format!("the {n}-move rule"),
        Rule::None => "no move-limit rule".to_owned(),
    }
}

pub fn probe_text(out: &mut impl Write, r: &ProbeReport) -> io::Result<()> {
    let metric = r.metric.unwrap_or(Metric::Dtz).as_str();
    let rule = rule_words(r.rule.unwrap_or(Rule::FIFTY));
    writeln!(out, "FEN       {}", r.fen)?;
    writeln!(out, "Material  {}", r.material)?;
    if let Some(engine) = &r.engine {
        if r.metric == Some(Metric::Dtr) {
            // DTR names no rule: it is the least one that wins.
            writeln!(
                out,
                "Engine    {engine}, depth by the rule (won under N moves iff DTR <= 2N plies)"
            )?;
        } else {
            writeln!(out, "Engine    {engine}, {rule}")?;
        }
    }
    let ne = r.inexact.as_ref();
    match ne.and_then(|n| n.wdl_range) {
        Some([a, b]) => writeln!(
            out,
            "WDL       {} or {} (not exact)",
            a.as_str(),
            b.as_str()
        )?,
        None => writeln!(out, "WDL       {}", r.wdl.as_str())?,
    }
    match ne.and_then(|n| n.dtz_range) {
        Some([a, b]) => writeln!(
            out,
            "{:<9} {} or {} plies (NOT exact)",
            metric.to_uppercase(),
            signed(a),
            signed(b)
        )?,
        None => writeln!(
            out,
            "{:<9} {} plies (exact)",
            metric.to_uppercase(),
            signed(r.dtz.0)
        )?,
    }
    match ne.and_then(|n| n.outcome_range) {
        Some([a, b]) => writeln!(
            out,
            "Clock     {} -> {} or {} under {rule} (not exact)",
            r.halfmove_clock,
            outcome_word(a),
            outcome_word(b)
        )?,
        None => writeln!(
            out,
            "Clock     {} -> {} under {rule}",
            r.halfmove_clock,
            outcome_word(r.outcome_with_clock)
        )?,
    }
    writeln!(out)?;
    writeln!(
        out,
        "{:<8} {:<6} {:>13} {:>5}  zeroing",
        "move", "uci", "then (opp.)", metric
    )?;
    for m in &r.moves {
        // A value that is not exact: "n|n+1" (n or n+1 plies).
        let dtz = match &m.inexact {
            Some(i) => format!("{}|{}", signed(i.dtz_range[0]), signed(i.dtz_range[1])),
            None => signed(m.dtz.0),
        };
        writeln!(
            out,
            "{:<8} {:<6} {:>13} {:>5}  {}",
            m.san,
            m.uci,
            m.wdl.as_str(),
            dtz,
            if m.zeroing { "yes" } else { "" }
        )?;
    }
    if let Some(n) = ne {
        writeln!(out)?;
        writeln!(out, "NOT EXACT: {}", n.not_exact)?;
    }
    Ok(())
}

/// `line` for people.
pub fn line_text(out: &mut impl Write, l: &Line) -> io::Result<()> {
    writeln!(out, "Start  {}", l.start_fen)?;
    if l.end == LineEnd::Draw {
        writeln!(out, "The position is drawn: there is no forced line.")?;
        return Ok(());
    }
    let metric = l.metric.unwrap_or(Metric::Dtz).as_str();
    writeln!(
        out,
        "{:>4}  {:<8} {:>5} {:>5}  {:<8} note",
        "ply", "move", metric, "clock", "material"
    )?;
    for p in &l.plies {
        let mut note = String::new();
        if p.zeroing {
            note.push_str("zeroing");
        }
        match l.rule {
            // A solver's line marks its own rule's point.
            Some(rule) => {
                if let (Some(plies), true) = (rule.limit(), l.rule_ply == Some(p.ply)) {
                    note.push_str(&format!(" <- clock reaches {plies}: {rule}-move rule"));
                }
            }
            None => {
                if l.fifty_move_claim_ply == Some(p.ply) {
                    note.push_str(" <- clock reaches 100: 50-move claim");
                }
                if l.seventy_five_move_ply == Some(p.ply) {
                    note.push_str(" <- clock reaches 150: 75-move draw");
                }
            }
        }
        writeln!(
            out,
            "{:>4}  {:<8} {:>5} {:>5}  {:<8} {}",
            p.ply,
            p.san,
            signed(p.dtz_before),
            p.clock_before,
            p.material,
            note.trim()
        )?;
    }
    writeln!(out)?;
    writeln!(out, "Phases:")?;
    let rule = l.rule.unwrap_or(Rule::FIFTY);
    for ph in &l.phases {
        let over = match rule.limit() {
            Some(limit) if ph.plies > u32::from(limit) => {
                format!("  (over {limit}: {} intervenes)", rule_words(rule))
            }
            _ => String::new(),
        };
        writeln!(
            out,
            "  from ply {:>3}: {:>3} plies in {}{over}",
            ph.start_ply, ph.plies, ph.material,
        )?;
    }
    writeln!(out, "End: {:?} after {} plies", l.end, l.plies.len())?;
    // A line played with no rule gives the 50-move rule's result (see
    // `probe::line`), and says so.
    let result_rule = if rule.limit().is_none() {
        Rule::FIFTY
    } else {
        rule
    };
    writeln!(
        out,
        "Result without the rule: {}   with {}: {}",
        l.result_without_rule,
        rule_words(result_rule),
        l.result_with_rule
    )?;
    Ok(())
}

/// `tables` for people.
pub fn tables_text(out: &mut impl Write, r: &TablesReport, verify: bool) -> io::Result<()> {
    writeln!(out, "Table directories: {}", r.dirs.join(", "))?;
    for m in &r.materials {
        writeln!(
            out,
            "{} (table {}): closure of {} tables: {}",
            m.material,
            m.table,
            m.closure.len(),
            m.closure.join(" ")
        )?;
        if m.missing.is_empty() {
            writeln!(out, "  all {} files present", m.closure.len() * 2)?;
        } else {
            let sized: Vec<String> = m
                .missing
                .iter()
                .map(|f| match m.missing_bytes.get(f) {
                    Some(&b) => format!("{f} ({})", human_bytes(b)),
                    None => format!("{f} (size unknown)"),
                })
                .collect();
            writeln!(
                out,
                "  missing {} ({} to download): {}",
                m.missing.len(),
                human_bytes(m.missing_total_bytes),
                sized.join(" ")
            )?;
        }
        if let Some(needs) = &m.memory {
            memory_text(out, needs)?;
        }
    }
    if verify || r.materials.is_empty() {
        for f in &r.files {
            writeln!(out, "{:<16} {:<10} {}", f.file, f.status, f.path)?;
        }
        writeln!(out, "{} file(s)", r.files.len())?;
    }
    Ok(())
}

/// The memory lines of `tables MATERIAL`: what is available, and what a
/// scan and each solve would need, with whether it fits.
fn memory_text(out: &mut impl Write, n: &MemoryNeeds) -> io::Result<()> {
    let verdict = |fits: Option<bool>| match fits {
        Some(true) => "fits",
        Some(false) => "does NOT fit",
        None => "available memory unknown",
    };
    match (n.available_bytes, &n.available_from) {
        (Some(bytes), Some(from)) => {
            writeln!(out, "  memory available: {} ({from})", human_bytes(bytes))?
        }
        _ => writeln!(out, "  memory available: unknown (the system does not say)")?,
    }
    let how = if n.scan_bound_from == "table headers" {
        "from the table headers".to_owned()
    } else {
        format!("by {} (tables missing)", n.scan_bound_from)
    };
    writeln!(
        out,
        "  scan (sweep engine) needs at most {}, {how}: {}",
        human_bytes(n.scan_bytes),
        verdict(n.scan_fits)
    )?;
    if n.scan_cut_by_pawns {
        writeln!(
            out,
            "    its table cut by the leading pawns' squares: swept in {} slices",
            n.scan_slices
        )?;
    }
    if n.scan_recomputes_unstored {
        // The bytes an index hold only where the stored side's are held.
        let lean = if n.scan_stored_dtz_page_bytes == 0 {
            " (3 bytes an index, not 4)"
        } else {
            ""
        };
        writeln!(
            out,
            "    its unstored side's DTZ not held: worked out again where read{lean}"
        )?;
    }
    if n.scan_stored_dtz_page_bytes > 0 {
        writeln!(
            out,
            "    its stored side's DTZ not held: decoded from the file where read, within {} of pages",
            human_bytes(n.scan_stored_dtz_page_bytes)
        )?;
    }
    if n.scan_wdl_page_bytes > 0 {
        writeln!(
            out,
            "    its WDL values not held: read from the file where needed, within {} of pages",
            human_bytes(n.scan_wdl_page_bytes)
        )?;
    }
    if n.scan_packed_wdl_codes {
        writeln!(out, "    its WDL codes packed: 5 bits each, not a byte")?;
    }
    if n.scan_page_bytes > 0 {
        writeln!(
            out,
            "    its closure paged: {} of its tables read page by page within {} ({})",
            n.scan_paged_tables.len(),
            human_bytes(n.scan_page_bytes),
            n.scan_paged_tables.join(" ")
        )?;
    }
    if let Some(why) = &n.solve_refused {
        writeln!(out, "  solve: not available ({why})")?;
    } else {
        // In solve's own order (its default first), not the map's.
        let each: Vec<String> = ["dtz", "dtm", "dtr"]
            .into_iter()
            .filter_map(|metric| Some((metric, *n.solve_bytes.get(metric)?)))
            .map(|(metric, bytes)| {
                format!(
                    "--metric {metric} {} ({})",
                    human_bytes(bytes),
                    verdict(n.solve_fits.get(metric).copied())
                )
            })
            .collect();
        writeln!(out, "  solve needs at most: {}", each.join(", "))?;
    }
    Ok(())
}

/// `scan` for people: the classes side by side, the longest positions, and
/// the DTZ histograms.
pub fn scan_text(out: &mut impl Write, s: &ScanStats) -> io::Result<()> {
    use fiftymove::chess::wdl::Wdl;
    match (&s.engine, s.rule, s.metric) {
        (Some(engine), Some(rule), Some(metric)) => {
            let rule = match rule.limit() {
                Some(plies) => format!("{rule}-move rule ({plies} plies)"),
                None => "no move-limit rule".to_owned(),
            };
            writeln!(
                out,
                "{} ({}; {engine}, {rule}, {})",
                s.material,
                s.counting,
                metric.as_str()
            )?
        }
        _ => writeln!(out, "{} ({})", s.material, s.counting)?,
    }
    writeln!(
        out,
        "{:<14} {:>15} {:>15}",
        "", "White to move", "Black to move"
    )?;
    writeln!(
        out,
        "{:<14} {:>15} {:>15}",
        "positions", s.white.positions, s.black.positions
    )?;
    for wdl in Wdl::ALL.iter().rev() {
        writeln!(
            out,
            "{:<14} {:>15} {:>15}",
            wdl.as_str(),
            s.white.wdl.get(*wdl),
            s.black.wdl.get(*wdl)
        )?;
    }
    if let (Some(w), Some(b)) = (&s.white.raw, &s.black.raw) {
        writeln!(
            out,
            "{:<14} {:>15} {:>15}",
            "raw placements", w.positions, b.positions
        )?;
    }
    for (side, stats) in [("White", &s.white), ("Black", &s.black)] {
        for (class, entry) in [
            ("win", &stats.longest.win),
            ("cursed win", &stats.longest.cursed_win),
            ("loss", &stats.longest.loss),
            ("blessed loss", &stats.longest.blessed_loss),
        ] {
            if let Some(e) = entry {
                writeln!(
                    out,
                    "longest {class:<12} ({side} to move): {:>4} plies  {}",
                    e.dtz, e.fen
                )?;
            }
        }
    }
    if let (Some(w), Some(b)) = (&s.white.won_under, &s.black.won_under) {
        writeln!(
            out,
            "wins lost against the rule (wins whose DTR exceeds 2N plies):"
        )?;
        writeln!(
            out,
            "{:<14} {:>15} {:>15}",
            "N-move rule", "White to move", "Black to move"
        )?;
        for n in fiftymove::model::RULES_COUNTED {
            let key = n.to_string();
            let lost = |side: &fiftymove::model::SideStats,
                        under: &std::collections::BTreeMap<String, u64>| {
                side.wdl.win - under.get(&key).copied().unwrap_or(0)
            };
            writeln!(
                out,
                "{:<14} {:>15} {:>15}",
                format!("{n} ({} plies)", 2 * n),
                lost(&s.white, w),
                lost(&s.black, b)
            )?;
        }
    }
    let metric = s
        .metric
        .map_or_else(|| "DTZ".to_owned(), |m| m.as_str().to_ascii_uppercase());
    writeln!(
        out,
        "{metric} histogram (plies: White-to-move win/loss, Black-to-move win/loss):"
    )?;
    let max = [
        &s.white.dtz.win,
        &s.white.dtz.loss,
        &s.black.dtz.win,
        &s.black.dtz.loss,
    ]
    .iter()
    .filter_map(|h| h.max())
    .max();
    for p in 0..=max.unwrap_or(0) {
        let row = [
            s.white.dtz.win.get(p),
            s.white.dtz.loss.get(p),
            s.black.dtz.win.get(p),
            s.black.dtz.loss.get(p),
        ];
        if row.iter().any(|n| *n > 0) {
            writeln!(
                out,
                "{p:>5} {:>12} {:>12} {:>12} {:>12}",
                row[0], row[1], row[2], row[3]
            )?;
        }
    }
    writeln!(out)
}
