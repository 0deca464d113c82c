//! The Syzygy generator's published statistics (the text `rtbgen` prints),
//! parsed, and compared with a scan. This is the independent oracle for
//! `scan`: the generator computed its numbers while building the tables.

use std::collections::BTreeMap;

use crate::{
    model::{Histogram, ScanStats, SideStats},
    Error, Result,
};

/// The generator's statistics for one side to move.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GeneratorSide {
    /// "N positions are wins."
    pub wins: u64,
    /// "N positions are cursed wins."
    pub cursed_wins: u64,
    /// "N positions are draws."
    pub draws: u64,
    /// "N positions are cursed losses." (blessed losses)
    pub cursed_losses: u64,
    /// "N positions are losses."
    pub losses: u64,
    /// "N positions win in P ply."
    pub win_in: Histogram,
    /// "N positions lose in P ply."
    pub lose_in: Histogram,
}

/// The generator's statistics for one table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GeneratorStats {
    /// Table name, e.g. `KQvKR`.
    pub material: String,
    /// White to move.
    pub white: GeneratorSide,
    /// Black to move.
    pub black: GeneratorSide,
    /// "Longest win for white: P ply; FEN" and the like, by the text before
    /// the colon (e.g. `win for white`), as plies.
    pub longest: BTreeMap<String, u32>,
}

/// Parses a file of generator statistics (one `########## NAME ##########`
/// block per table).
///
/// # Errors
///
/// [`Error::GeneratorStats`] naming the line that does not fit the format.
pub fn parse(text: &str) -> Result<Vec<GeneratorStats>> {
    let mut out: Vec<GeneratorStats> = Vec::new();
    let mut side: Option<bool> = None; // Some(true) = white to move
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let bad = || Error::GeneratorStats {
            line: i + 1,
            text: line.to_owned(),
        };
        if line.is_empty() {
            continue;
        }
        if let Some(name) = line
            .strip_prefix("##########")
            .and_then(|l| l.strip_suffix("##########"))
        {
            out.push(GeneratorStats {
                material: name.trim().to_owned(),
                ..GeneratorStats::default()
            });
            side = None;
            continue;
        }
        let current = out.last_mut().ok_or_else(bad)?;
        match line {
            "White to move:" => {
                side = Some(true);
                continue;
            }
            "Black to move:" => {
                side = Some(false);
                continue;
            }
            _ => {}
        }
        if let Some(rest) = line.strip_prefix("Longest ") {
            let (what, value) = rest.split_once(':').ok_or_else(bad)?;
            let plies = value
                .split_whitespace()
                .next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(bad)?;
            current.longest.insert(what.trim().to_owned(), plies);
            continue;
        }
        let s = match side {
            Some(true) => &mut current.white,
            Some(false) => &mut current.black,
            None => return Err(bad()),
        };
        let words: Vec<&str> = line.trim_end_matches('.').split_whitespace().collect();
        let n: u64 = words.first().and_then(|w| w.parse().ok()).ok_or_else(bad)?;
        match words[1..] {
            ["positions", "are", "wins"] => s.wins = n,
            ["positions", "are", "cursed", "wins"] => s.cursed_wins = n,
            ["positions", "are", "draws"] => s.draws = n,
            ["positions", "are", "cursed", "losses"] => s.cursed_losses = n,
            ["positions", "are", "losses"] => s.losses = n,
            ["positions", "win", "in", p, "ply"] => {
                s.win_in.add(p.parse().map_err(|_| bad())?, n);
            }
            ["positions", "lose", "in", p, "ply"] => {
                s.lose_in.add(p.parse().map_err(|_| bad())?, n);
            }
            _ => return Err(bad()),
        }
    }
    Ok(out)
}

/// Every difference between a scan and the generator's statistics, as
/// human-readable lines; empty when they agree.
pub fn compare(scan: &ScanStats, reference: &GeneratorStats) -> Vec<String> {
    let mut diffs = Vec::new();
    for (name, ours, theirs) in [
        ("white to move", &scan.white, &reference.white),
        ("black to move", &scan.black, &reference.black),
    ] {
        compare_side(name, ours, theirs, &mut diffs);
    }
    // The generator's "longest" lines take the maximum over both sides to
    // move, from White's and from Black's point of view.
    let longest = |a: &Option<crate::model::LongestEntry>,
                   b: &Option<crate::model::LongestEntry>| {
        a.iter().chain(b.iter()).map(|e| e.dtz).max()
    };
    let sides = [
        ("white", &scan.white, &scan.black),
        ("black", &scan.black, &scan.white),
    ];
    for (color, winner, loser) in sides {
        for (class, ours) in [
            ("win", longest(&winner.longest.win, &loser.longest.loss)),
            (
                "cursed win",
                longest(&winner.longest.cursed_win, &loser.longest.blessed_loss),
            ),
        ] {
            let key = format!("{class} for {color}");
            if let Some(theirs) = reference.longest.get(&key) {
                if ours != Some(*theirs) {
                    diffs.push(format!("longest {key}: ours {ours:?}, generator {theirs}"));
                }
            }
        }
    }
    diffs
}

fn compare_side(name: &str, ours: &SideStats, theirs: &GeneratorSide, diffs: &mut Vec<String>) {
    for (what, a, b) in [
        ("wins", ours.wdl.win, theirs.wins),
        ("cursed wins", ours.wdl.cursed_win, theirs.cursed_wins),
        ("draws", ours.wdl.draw, theirs.draws),
        (
            "blessed losses",
            ours.wdl.blessed_loss,
            theirs.cursed_losses,
        ),
        ("losses", ours.wdl.loss, theirs.losses),
    ] {
        if a != b {
            diffs.push(format!("{name}: {what}: ours {a}, generator {b}"));
        }
    }
    for (what, a, b) in [
        ("win in", &ours.dtz.win, &theirs.win_in),
        ("lose in", &ours.dtz.loss, &theirs.lose_in),
    ] {
        let max = a.max().max(b.max()).unwrap_or(0);
        for p in 0..=max {
            if a.get(p) != b.get(p) {
                diffs.push(format!(
                    "{name}: {what} {p} ply: ours {}, generator {}",
                    a.get(p),
                    b.get(p)
                ));
            }
        }
    }
}
