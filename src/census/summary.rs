//! A census row in the census's terms: per side to move, the wins without
//! a rule, the wins each rule keeps and so loses, and the longest DTR; the
//! text table and the CSV that list them.

use std::fmt::Write as _;

use shakmaty::Color;

use super::Census;
use crate::{
    error::{Error, Result},
    model::{Histogram, LongestEntry, ScanStats, SideStats, RULES_COUNTED},
};

/// The wins of a DTR histogram that an `moves`-move rule keeps: those whose
/// DTR is at most `2 * moves` plies. Any rule, not only those a document
/// counts in `won_under` (the 1928 allowance of 132 moves, say).
pub fn kept_under(dtr_wins: &Histogram, moves: u32) -> u64 {
    dtr_wins
        .bins()
        .take_while(|(plies, _)| *plies <= 2 * moves)
        .map(|(_, n)| n)
        .sum()
}

/// One side to move of a census row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SideSummary {
    /// The side to move.
    pub color: Color,
    /// Its positions.
    pub positions: u64,
    /// Its wins without a rule (wins and cursed wins).
    pub wins: u64,
    /// The wins each rule of [`RULES_COUNTED`] keeps, in that order, as the
    /// document's `won_under` gives them.
    pub kept: [u64; 4],
    /// Its longest win by DTR, with the smallest FEN among ties.
    pub longest: Option<LongestEntry>,
}

impl SideSummary {
    /// The summary of `color` to move in the DTR document `doc`.
    ///
    /// # Errors
    ///
    /// [`Error::Usage`] when the document counts no `won_under` (it is not
    /// a DTR document), or counts more wins kept than it has.
    pub fn of(doc: &ScanStats, color: Color) -> Result<SideSummary> {
        let side: &SideStats = doc.side(color);
        let won_under = side.won_under.as_ref().ok_or_else(|| {
            Error::Usage(format!(
                "census: the document of {} has no won_under (not a DTR solve)",
                doc.material
            ))
        })?;
        let wins = side.wdl.win + side.wdl.cursed_win;
        let mut kept = [0; 4];
        for (slot, n) in kept.iter_mut().zip(RULES_COUNTED) {
            *slot = won_under.get(&n.to_string()).copied().ok_or_else(|| {
                Error::Usage(format!(
                    "census: the document of {} has no won_under[\"{n}\"]",
                    doc.material
                ))
            })?;
            if *slot > wins {
                return Err(Error::Usage(format!(
                    "census: the document of {} keeps {} wins of {wins} under {n} moves",
                    doc.material, *slot
                )));
            }
        }
        let longest = [&side.longest.win, &side.longest.cursed_win]
            .into_iter()
            .flatten()
            .min_by(|a, b| b.dtz.cmp(&a.dtz).then_with(|| a.fen.cmp(&b.fen)))
            .cloned();
        Ok(SideSummary {
            color,
            positions: side.positions,
            wins,
            kept,
            longest,
        })
    }

    /// The wins the rule of `RULES_COUNTED[i]` moves loses.
    pub fn lost(&self, i: usize) -> u64 {
        self.wins - self.kept[i]
    }
}

/// Both sides of a census row.
pub fn sides(doc: &ScanStats) -> Result<[SideSummary; 2]> {
    Ok([
        SideSummary::of(doc, Color::White)?,
        SideSummary::of(doc, Color::Black)?,
    ])
}

/// Wins without a rule and wins lost under each rule of [`RULES_COUNTED`],
/// both sides to move together.
pub fn material_totals(doc: &ScanStats) -> Result<(u64, [u64; 4])> {
    let [w, b] = sides(doc)?;
    let lost = std::array::from_fn(|i| w.lost(i) + b.lost(i));
    Ok((w.wins + b.wins, lost))
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// The census as a table for people: per material and side to move, the
/// positions, the wins without a rule, the wins each rule loses, and the
/// longest DTR with its FEN.
///
/// # Errors
///
/// [`Error::Usage`] for a row that is not a DTR document.
pub fn text_table(census: &Census) -> Result<String> {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "census: {} material(s), DTR without a rule; build {}",
        census.rows().len(),
        census.build().unwrap_or("unnamed")
    );
    let _ = write!(
        t,
        "{:<10} {:<5} {:>13} {:>13}",
        "material", "side", "positions", "wins"
    );
    for n in RULES_COUNTED {
        let _ = write!(t, " {:>12}", format!("lost at {n}"));
    }
    let _ = writeln!(t, "  longest DTR");
    for doc in census.rows() {
        for (i, s) in sides(doc)?.iter().enumerate() {
            let name = if i == 0 { doc.material.as_str() } else { "" };
            let _ = write!(
                t,
                "{name:<10} {:<5} {:>13} {:>13}",
                color_name(s.color),
                s.positions,
                s.wins
            );
            for j in 0..RULES_COUNTED.len() {
                let _ = write!(t, " {:>12}", s.lost(j));
            }
            match &s.longest {
                Some(e) => {
                    let _ = writeln!(t, "  {:>3} plies  {}", e.dtz, e.fen);
                }
                None => {
                    let _ = writeln!(t, "  -");
                }
            }
        }
    }
    Ok(t)
}

/// The census as CSV: a header, then one line per material and side to
/// move: positions, the five classes, the wins without a rule, the wins
/// kept and lost under each rule, and the longest DTR with its FEN.
///
/// # Errors
///
/// [`Error::Usage`] for a row that is not a DTR document.
pub fn csv(census: &Census) -> Result<String> {
    let mut t = String::from(
        "material,side,positions,win,cursed_win,draw,blessed_loss,loss,wins_without_rule",
    );
    for n in RULES_COUNTED {
        let _ = write!(t, ",kept_{n},lost_{n}");
    }
    t.push_str(",longest_dtr,longest_fen\n");
    for doc in census.rows() {
        for s in sides(doc)? {
            let wdl = &doc.side(s.color).wdl;
            let _ = write!(
                t,
                "{},{},{},{},{},{},{},{},{}",
                doc.material,
                color_name(s.color),
                s.positions,
                wdl.win,
                wdl.cursed_win,
                wdl.draw,
                wdl.blessed_loss,
                wdl.loss,
                s.wins
            );
            for i in 0..RULES_COUNTED.len() {
                let _ = write!(t, ",{},{}", s.kept[i], s.lost(i));
            }
            match &s.longest {
                // A FEN holds no comma or quote.
                Some(e) => {
                    let _ = writeln!(t, ",{},{}", e.dtz, e.fen);
                }
                None => t.push_str(",,\n"),
            }
        }
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_under_counts_wins_within_twice_the_moves() {
        let h = Histogram::from_iter([(1, 5), (100, 7), (101, 11), (150, 13), (151, 17)]);
        assert_eq!(kept_under(&h, 0), 0);
        assert_eq!(kept_under(&h, 50), 12);
        assert_eq!(kept_under(&h, 75), 36);
        assert_eq!(kept_under(&h, 76), 53);
    }
}
