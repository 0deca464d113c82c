//! Text rendering of `claims`, `records` and `claims --list`.

use std::io::{self, Write};

use fiftymove::{
    claims::records::RecordsReport,
    claims::{Claim, ClaimResult, LineSummary, SideEvidence, Verdict, Witness},
    human::human_bytes,
};

fn bounds<T: PartialEq + std::fmt::Display>(b: &[T; 2]) -> String {
    if b[0] == b[1] {
        b[0].to_string()
    } else {
        format!("{} to {}", b[0], b[1])
    }
}

fn who_year(who: &str, year: Option<u32>) -> String {
    match year {
        Some(y) => format!("{who}, {y}"),
        None => who.to_owned(),
    }
}

fn line_text(l: &LineSummary) -> String {
    format!(
        "{}; {} without the rule, {} with it",
        l.describe(),
        l.result_without_rule,
        l.result_with_rule
    )
}

fn side_text(s: &SideEvidence) -> String {
    // Documents by DTR or DTM count wins without a rule: no cursed ones.
    let cursed = if s.longest_dtr.is_some() || s.longest_dtm.is_some() {
        String::new()
    } else {
        format!(" {} cursed,", s.cursed_wins)
    };
    let mut t = format!(
        "{} to move ({}): {} positions, {} wins,{cursed} {} draws, {} for the other side",
        s.to_move, s.role, s.positions, s.wins, s.draws, s.other_side_wins
    );
    if let (Some(within), Some(l)) = (s.within_limit, s.limit_plies) {
        t.push_str(&format!("; {within} within {l} plies"));
    }
    if let Some(r) = s.longest_dtr {
        t.push_str(&format!("; longest DTR {r} plies"));
    }
    if let (Some(d), Some(m)) = (s.longest_dtm, &s.longest_moves) {
        t.push_str(&format!("; longest mate {d} plies = {} moves", bounds(m)));
    }
    if let (Some(d), Some(p), Some(m)) = (s.longest_dtz, &s.longest_phase_plies, &s.longest_moves) {
        t.push_str(&format!(
            "; longest DTZ {d}, phase {} plies = {} moves",
            bounds(p),
            bounds(m)
        ));
    }
    if let (Some(o), Some(l)) = (&s.over_limit, s.limit_plies) {
        t.push_str(&format!("; {} over {l} plies", bounds(o)));
    }
    t
}

fn witness_text(w: &Witness) -> String {
    let metric = w.metric.map_or("dtz", |m| m.as_str()).to_uppercase();
    let mut t = format!(
        "{} ({} to move, {}, {metric} {})",
        w.fen,
        w.side_to_move,
        w.wdl.as_str(),
        w.dtz
    );
    if let Some(l) = &w.line {
        t.push_str(&format!("\n              {}", line_text(l)));
    }
    t
}

/// The closing line: how many claims got each verdict.
pub fn tally_text(out: &mut impl Write, results: &[ClaimResult]) -> io::Result<()> {
    let count = |v: Verdict| results.iter().filter(|r| r.verdict == v).count();
    writeln!(
        out,
        "{} claim(s): {} confirmed, {} refuted, {} partly, {} documented, {} unverifiable",
        results.len(),
        count(Verdict::Confirmed),
        count(Verdict::Refuted),
        count(Verdict::Partly),
        count(Verdict::Documented),
        count(Verdict::Unverifiable)
    )
}

/// One claim's verdict and evidence.
pub fn claim_text(out: &mut impl Write, r: &ClaimResult) -> io::Result<()> {
    let e = &r.evidence;
    writeln!(out, "{}  {}", r.id, r.verdict.as_str().to_uppercase())?;
    writeln!(
        out,
        "  Who:        {}{}",
        who_year(&r.who, r.year),
        r.material
            .as_ref()
            .map(|m| format!(" -- {m}, {}", r.metric.as_str()))
            .unwrap_or_else(|| format!(" -- {}", r.metric.as_str()))
    )?;
    writeln!(out, "  Claim:      {}", r.statement)?;
    writeln!(out, "  Verdict:    {}", e.summary)?;
    if let Some(s) = &e.scope {
        let winner = e
            .winner
            .as_ref()
            .map(|w| format!("; winner {w}"))
            .unwrap_or_default();
        writeln!(out, "  Scope:      {s}{winner}")?;
    }
    if let Some(engine) = &e.engine {
        writeln!(out, "  Decided by: {engine}")?;
    }
    for s in &e.sides {
        writeln!(out, "  Counts:     {}", side_text(s))?;
    }
    if let Some(w) = &e.longest {
        writeln!(out, "  Longest:    {}", witness_text(w))?;
    }
    if let Some(w) = &e.exception {
        writeln!(out, "  Exception:  {}", witness_text(w))?;
    }
    if !r.missing_tables.is_empty() {
        let shown: Vec<String> = r
            .missing_tables
            .iter()
            .take(12)
            .map(|f| {
                let b = e.missing_table_bytes.get(f).copied().unwrap_or(0);
                format!("{f} ({})", human_bytes(b))
            })
            .collect();
        let more = r.missing_tables.len().saturating_sub(shown.len());
        writeln!(
            out,
            "  Missing:    {}{} -- {} in all",
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            },
            human_bytes(e.missing_total_bytes.unwrap_or(0))
        )?;
    }
    for n in &e.notes {
        writeln!(out, "  Note:       {n}")?;
    }
    writeln!(out, "  Source:     {}", r.source)
}

/// `claims --list` for people.
pub fn list_text(out: &mut impl Write, claims: &[&Claim]) -> io::Result<()> {
    for c in claims {
        writeln!(
            out,
            "{:<36} {:<5} {:<9} {}",
            c.id,
            c.year.map(|y| y.to_string()).unwrap_or_else(|| "-".into()),
            c.material.as_deref().unwrap_or("-"),
            c.statement
        )?;
    }
    Ok(())
}

/// `records` for people.
pub fn records_text(out: &mut impl Write, r: &RecordsReport) -> io::Result<()> {
    writeln!(
        out,
        "Records: what is claimed, and what the tables present confirm"
    )?;
    writeln!(out)?;
    for c in &r.records {
        claim_text(out, c)?;
        writeln!(out)?;
    }
    writeln!(out, "Longest win of each table examined")?;
    writeln!(
        out,
        "{:<10} {:<6} {:<11} {:>5} {:>6} {:>6}  fen",
        "table", "move", "class", "dtz", "phase", "moves"
    )?;
    for w in &r.longest {
        writeln!(
            out,
            "{:<10} {:<6} {:<11} {:>5} {:>6} {:>6}  {}",
            w.material,
            w.to_move,
            w.wdl.as_str(),
            w.dtz,
            w.phase_plies.map_or("-".into(), |p| p.to_string()),
            w.moves.map_or("-".into(), |p| p.to_string()),
            w.fen
        )?;
    }
    if let Some(best) = r
        .longest
        .iter()
        .max_by_key(|w| (w.moves.unwrap_or(w.dtz.div_ceil(2)), w.dtz))
    {
        writeln!(
            out,
            "Longest of all: {} with {} to move, {} moves ({})",
            best.material,
            best.to_move,
            best.moves.unwrap_or(best.dtz.div_ceil(2)),
            best.fen
        )?;
    }
    for (label, tables) in [
        ("Not examined (over --max-pieces)", &r.skipped),
        (
            "Not scanned yet (name them, or use --all-tables)",
            &r.not_scanned,
        ),
    ] {
        if !tables.is_empty() {
            writeln!(out, "{label}: {}", tables.join(" "))?;
        }
    }
    Ok(())
}
