//! FIDE's historical exception lists set against the census. The 1928 rule,
//! the 1982 list and the 1989 list each named endgames that were allowed
//! more than the 50-move rule then in force (`data/claims.toml` holds them,
//! as the `allowance` claims of FIDE). The census shows which endgames lose
//! wins under the 50-move rule, by winner: a list *missed* an endgame that
//! loses wins but is not named, and named one *needlessly* if none of its
//! wins is lost; the census also shows whether the allowance given keeps
//! every win.
//!
//! Wins are the winner's, whoever is to move: the winner to move wins, or
//! the loser to move loses (a DTR document counts both: `dtr.win` of the
//! winner's side, `dtr.loss` of the other).

use shakmaty::Color;

use super::{summary::kept_under, Census};
use crate::{
    chess::material::Material,
    claims::{Check, Claim},
    error::Result,
    model::ScanStats,
};

/// The rule in force when each list was drawn up, in moves: the 50-move
/// rule, in 1928, 1982 and 1989 alike.
pub const RULE_IN_FORCE: u32 = 50;

/// An endgame a list named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Named {
    /// The claim of the catalog that records it.
    pub claim: String,
    /// The material, as its table names it.
    pub material: Material,
    /// The winner's pieces (`KQ` of `KBBvKQ`).
    pub winner: String,
    /// The winner's colour in the table's material.
    pub winner_color: Color,
    /// The moves the list allows.
    pub allowance: u32,
    /// The part of the endgame the list names, when not all of it (the
    /// rule's condition on positions).
    pub part: Option<String>,
}

/// One list: the year it came into force and what it named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoricalList {
    /// The year.
    pub year: u32,
    /// The endgames named, in the catalog's order.
    pub named: Vec<Named>,
}

/// The lists of the catalog: FIDE's `allowance` claims (ids `fide-YEAR-...`),
/// grouped by year, in year order.
///
/// # Errors
///
/// [`crate::Error::Material`] for a bad material in the catalog.
pub fn historical_lists(catalog: &[Claim]) -> Result<Vec<HistoricalList>> {
    let mut lists: Vec<HistoricalList> = Vec::new();
    for c in catalog {
        let (Check::Allowance { moves }, Some(year), Some(written)) =
            (&c.check, c.year, c.material()?)
        else {
            continue;
        };
        if !c.id.starts_with(&format!("fide-{year}-")) {
            continue;
        }
        let material = written.normalized();
        let winner_written = c
            .winner
            .as_deref()
            .map(str::to_ascii_uppercase)
            .unwrap_or_default();
        // The winner's colour in the material as written, then in the table.
        let Some(written_color) = Color::ALL
            .into_iter()
            .find(|col| written.side(*col).to_string() == winner_written)
        else {
            continue;
        };
        let winner_color = if material == written {
            written_color
        } else {
            !written_color
        };
        let named = Named {
            claim: c.id.clone(),
            material,
            winner: winner_written,
            winner_color,
            allowance: *moves,
            part: c.filter.as_ref().map(|f| f.describe()),
        };
        match lists.iter_mut().find(|l| l.year == year) {
            Some(l) => l.named.push(named),
            None => lists.push(HistoricalList {
                year,
                named: vec![named],
            }),
        }
    }
    lists.sort_by_key(|l| l.year);
    Ok(lists)
}

/// One winner's wins in a census row, and those an `N`-move rule keeps.
#[derive(Clone, Copy, Debug)]
pub struct WinnerWins<'a> {
    doc: &'a ScanStats,
    winner: Color,
}

impl<'a> WinnerWins<'a> {
    /// The wins of `winner` (a colour of the table's material) in `doc`.
    pub fn new(doc: &'a ScanStats, winner: Color) -> WinnerWins<'a> {
        WinnerWins { doc, winner }
    }

    /// Every win, without a rule.
    pub fn total(&self) -> u64 {
        let own = self.doc.side(self.winner);
        let other = self.doc.side(!self.winner);
        own.wdl.win + own.wdl.cursed_win + other.wdl.loss + other.wdl.blessed_loss
    }

    /// The wins an `moves`-move rule keeps: DTR at most `2 * moves` plies.
    pub fn kept(&self, moves: u32) -> u64 {
        kept_under(&self.doc.side(self.winner).dtz.win, moves)
            + kept_under(&self.doc.side(!self.winner).dtz.loss, moves)
    }

    /// The wins an `moves`-move rule loses.
    pub fn lost(&self, moves: u32) -> u64 {
        self.total() - self.kept(moves)
    }
}

/// What the census says of one named endgame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedInCensus {
    /// The endgame as the list named it.
    pub named: Named,
    /// The winner's wins, and those lost under the rule in force and under
    /// the allowance; `None` when the census does not cover the material.
    pub counts: Option<Counts>,
}

/// A winner's wins, and those a rule loses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counts {
    /// Wins without a rule.
    pub wins: u64,
    /// Wins lost under [`RULE_IN_FORCE`].
    pub lost_at_rule: u64,
    /// Wins lost under the allowance.
    pub lost_at_allowance: u64,
}

/// An endgame (and winner) that loses wins under the rule in force and
/// that a list did not name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Missed {
    /// The table's material.
    pub material: String,
    /// The winner's pieces.
    pub winner: String,
    /// Wins without a rule.
    pub wins: u64,
    /// Wins lost under [`RULE_IN_FORCE`].
    pub lost_at_rule: u64,
}

/// A list set against the census.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListInCensus {
    /// The year.
    pub year: u32,
    /// What it named, with the census's counts.
    pub named: Vec<NamedInCensus>,
    /// What it did not name and the census shows losing wins under the
    /// rule in force, most wins lost first.
    pub missed: Vec<Missed>,
}

impl NamedInCensus {
    /// Whether the census shows that no win of the endgame named is lost
    /// under the rule in force (so the exception was not needed; for a
    /// list that names part of an endgame, none of that part's either).
    pub fn needless(&self) -> bool {
        self.counts.is_some_and(|c| c.lost_at_rule == 0)
    }
}

/// `list` set against `census`.
pub fn compare(list: &HistoricalList, census: &Census) -> ListInCensus {
    let find = |m: &Material| census.rows().iter().find(|d| d.material == m.table_name());
    let named = list
        .named
        .iter()
        .map(|n| NamedInCensus {
            named: n.clone(),
            counts: find(&n.material).map(|doc| {
                let w = WinnerWins::new(doc, n.winner_color);
                Counts {
                    wins: w.total(),
                    lost_at_rule: w.lost(RULE_IN_FORCE),
                    lost_at_allowance: w.lost(n.allowance),
                }
            }),
        })
        .collect();
    let mut missed = Vec::new();
    for doc in census.rows() {
        let Ok(material) = doc.material.parse::<Material>() else {
            continue;
        };
        for color in Color::ALL {
            let is_named = list
                .named
                .iter()
                .any(|n| n.material == material && n.winner_color == color);
            let w = WinnerWins::new(doc, color);
            let lost = w.lost(RULE_IN_FORCE);
            if !is_named && lost > 0 {
                missed.push(Missed {
                    material: doc.material.clone(),
                    winner: material.side(color).to_string(),
                    wins: w.total(),
                    lost_at_rule: lost,
                });
            }
        }
    }
    missed.sort_by(|a, b| {
        b.lost_at_rule
            .cmp(&a.lost_at_rule)
            .then_with(|| a.material.cmp(&b.material))
    });
    ListInCensus {
        year: list.year,
        named,
        missed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Histogram;

    #[test]
    fn the_catalog_gives_the_three_lists() {
        let lists = historical_lists(&crate::claims::catalog().unwrap()).unwrap();
        let years: Vec<u32> = lists.iter().map(|l| l.year).collect();
        assert_eq!(years, [1928, 1982, 1989]);
        let names = |year: u32| -> Vec<(String, String, u32)> {
            lists
                .iter()
                .find(|l| l.year == year)
                .unwrap()
                .named
                .iter()
                .map(|n| (n.material.table_name(), n.winner.clone(), n.allowance))
                .collect()
        };
        // docs/history.md: 1928 KRB v KR (132 moves); 1982 KRB v KR, KNN v
        // KP, KRP v KBP (100); 1989 the six types and KRP v KBP (75).
        assert_eq!(names(1928), [("KRBvKR".into(), "KRB".into(), 132)]);
        assert_eq!(names(1982).len(), 3);
        assert!(names(1989).contains(&("KBBvKQ".into(), "KQ".into(), 75)));
        assert_eq!(names(1989).len(), 7);
        // KQ v KBB: the queen is Black in the table KBBvKQ.
        let kqkbb = lists[2]
            .named
            .iter()
            .find(|n| n.material.table_name() == "KBBvKQ")
            .unwrap();
        assert_eq!(kqkbb.winner_color, Color::Black);
    }

    /// A DTR document of `material` with White's wins at `white_wins` plies
    /// (White to move) and at `black_losses` plies (Black to move), and no
    /// other decisive position; the classes follow the 50-move rule.
    fn doc(material: &str, white_wins: &[u32], black_losses: &[u32]) -> ScanStats {
        let mut d = ScanStats::new(material, false);
        d.metric = Some(crate::chess::rule::Metric::Dtr);
        d.rule = Some(crate::chess::rule::Rule::None);
        // Each decisive position in its histogram, and in its class: within
        // the 50-move rule's 100 plies or beyond.
        let add = |h: &mut Histogram, plies: &[u32], within: &mut u64, beyond: &mut u64| {
            for &p in plies {
                h.add(p, 1);
                if p <= 100 {
                    *within += 1;
                } else {
                    *beyond += 1;
                }
            }
        };
        let (w, b) = (&mut d.white, &mut d.black);
        add(
            &mut w.dtz.win,
            white_wins,
            &mut w.wdl.win,
            &mut w.wdl.cursed_win,
        );
        add(
            &mut b.dtz.loss,
            black_losses,
            &mut b.wdl.loss,
            &mut b.wdl.blessed_loss,
        );
        d
    }

    /// Worked by hand: KRB v KR's winner, White, wins 4 positions with the
    /// move at 90, 101, 140 and 151 plies and 2 with Black to move at 60 and
    /// 130. The 50-move rule (100 plies) loses 101, 140, 151 and 130: 4; the
    /// 1989 allowance of 75 moves (150 plies) loses 151 alone; the 1928
    /// allowance of 132 moves loses none. KBB v KN, named by no list before
    /// 1989, loses its one win at 120 plies.
    #[test]
    fn lists_against_a_census_worked_by_hand() {
        let census = Census::from_documents(vec![
            doc("KRBvKR", &[90, 101, 140, 151], &[60, 130]),
            doc("KBBvKN", &[120], &[]),
            doc("KQvK", &[19], &[20]),
        ])
        .unwrap();
        let lists = historical_lists(&crate::claims::catalog().unwrap()).unwrap();
        let by_year = |y: u32| compare(lists.iter().find(|l| l.year == y).unwrap(), &census);
        let krb = |l: &ListInCensus| {
            l.named
                .iter()
                .find(|n| n.named.material.table_name() == "KRBvKR")
                .unwrap()
                .counts
                .unwrap()
        };
        let l1928 = by_year(1928);
        assert_eq!(
            krb(&l1928),
            Counts {
                wins: 6,
                lost_at_rule: 4,
                lost_at_allowance: 0
            }
        );
        assert_eq!(
            l1928.missed,
            [Missed {
                material: "KBBvKN".into(),
                winner: "KBB".into(),
                wins: 1,
                lost_at_rule: 1
            }]
        );
        let l1989 = by_year(1989);
        assert_eq!(krb(&l1989).lost_at_allowance, 1);
        assert!(l1989.missed.is_empty(), "{:?}", l1989.missed);
        // Not in this census: no counts, and so not needless either.
        let kqpkq = l1989
            .named
            .iter()
            .find(|n| n.named.material.table_name() == "KQPvKQ")
            .unwrap();
        assert_eq!(kqpkq.counts, None);
        assert!(!kqpkq.needless());
        // KQ v K loses nothing: a list naming it would have named it
        // needlessly.
        let kqk = NamedInCensus {
            named: Named {
                claim: "x".into(),
                material: "KQvK".parse().unwrap(),
                winner: "KQ".into(),
                winner_color: Color::White,
                allowance: 75,
                part: None,
            },
            counts: Some(Counts {
                wins: WinnerWins::new(&census.rows()[0], Color::White).total(),
                lost_at_rule: WinnerWins::new(&census.rows()[0], Color::White).lost(50),
                lost_at_allowance: 0,
            }),
        };
        assert_eq!(census.rows()[0].material, "KQvK");
        assert_eq!(kqk.counts.unwrap().wins, 2);
        assert!(kqk.needless());
    }
}
