//! Whole-endgame claims decided from solver documents: a rule's allowance
//! from DTR, the longest mate from DTM.

use shakmaty::Color;

use super::{color_name, Verifier};
use crate::{
    chess::material::Material,
    chess::rule::{Metric, Rule},
    chess::wdl::Wdl,
    claims::{
        catalog::{Check, Claim},
        evidence::{Evidence, LineSummary, SideEvidence, Verdict, Witness},
    },
    error::Result,
    model::dtz::winner_moves,
    model::{Histogram, LongestEntry},
};

impl Verifier<'_> {
    /// A rule's allowance (`Allowance`, `ExceedsMoves`), decided exactly
    /// from DTR: the wins an `N`-move rule keeps are those with DTR at most
    /// `2N` plies.
    pub(super) fn rule_check(
        &mut self,
        claim: &Claim,
        material: &Material,
        winner: Color,
        moves: u32,
        ev: &mut Evidence,
    ) -> Result<Verdict> {
        let allowance = matches!(claim.check, Check::Allowance { .. });
        let limit = 2 * moves;
        let doc = self.claim_doc(claim, material, Metric::Dtr, ev)?;
        let stats = &doc.stats;
        let mut over_total = 0;
        let mut within_total = 0;
        let mut longest: Option<(u32, LongestEntry, bool)> = None;
        let mut positions = 0;
        for (color, winner_to_move) in [(winner, true), (!winner, false)] {
            let side = stats.side(color);
            // The winner's wins with the winner to move; its wins answered
            // by the loser's losses with the loser to move.
            let (hist, wins, other, entry) = winners_part(side, winner_to_move);
            let over: u64 = hist
                .bins()
                .filter(|(d, _)| *d > limit)
                .map(|(_, n)| n)
                .sum();
            over_total += over;
            within_total += wins - over;
            positions += side.positions;
            if let Some(e) = entry {
                if longest.as_ref().is_none_or(|(d, _, _)| e.dtz > *d) {
                    longest = Some((e.dtz, e.clone(), winner_to_move));
                }
            }
            ev.sides.push(SideEvidence {
                over_limit: Some([over, over]),
                limit_plies: Some(limit),
                within_limit: Some(wins - over),
                longest_dtr: hist.max(),
                ..solved_side(color, winner_to_move, side, wins, other)
            });
        }
        ev.positions = Some(positions);
        ev.claimed_moves = Some(moves);
        let longest_dtr = longest.as_ref().map_or(0, |(d, _, _)| *d);
        ev.observed_moves = Some([longest_dtr.div_ceil(2), longest_dtr.div_ceil(2)]);
        if let Some((dtr, entry, winner_to_move)) = longest {
            // Its line under the least rule that wins it: no phase longer
            // than its DTR (the solver plays lines of up to five pieces).
            let rule = Rule::Moves(dtr.div_ceil(2).max(1) as u16);
            let summary = if material.piece_count() <= crate::claims::CLAIMS_SOLVE_PIECES {
                Some(LineSummary::from(&self.solver_line(
                    &entry.fen,
                    rule,
                    Metric::Dtz,
                )?))
            } else {
                None
            };
            ev.longest = Some(Witness {
                fen: entry.fen.clone(),
                side_to_move: if winner_to_move { "winner" } else { "loser" }.into(),
                wdl: if winner_to_move { Wdl::Win } else { Wdl::Loss },
                dtz: dtr,
                metric: Some(Metric::Dtr),
                phase_plies: summary
                    .as_ref()
                    .and_then(|s| s.phases.iter().map(|p| p.plies).max()),
                moves: Some(dtr.div_ceil(2)),
                line: summary.clone(),
            });
            if summary.is_some() {
                ev.notes.push(format!(
                    "the longest position's line is played under a {}-move rule, the least under which it is won",
                    dtr.div_ceil(2).max(1)
                ));
            }
        }
        ev.contradicting = Some(if allowance { over_total } else { 0 });
        ev.supporting = Some(if allowance { within_total } else { over_total });
        let wins = within_total + over_total;
        // A rule cuts wins short (over > 0): that refutes an allowance
        // and confirms a claim that it needs more.
        let exact = format!("(exact, by DTR); the longest DTR is {longest_dtr} plies");
        ev.summary = if over_total > 0 {
            format!("{over_total} of the {wins} wins need more than {moves} moves ({limit} plies) without a zeroing move {exact}")
        } else if allowance {
            format!("all {wins} wins fit in {moves} moves ({limit} plies) between zeroing moves {exact}")
        } else {
            format!("no win needs more than {moves} moves ({limit} plies) without a zeroing move {exact}")
        };
        Ok(if (over_total > 0) == allowance {
            Verdict::Refuted
        } else {
            Verdict::Confirmed
        })
    }

    /// A claim about the longest mate, from the solver's DTM.
    pub(super) fn mate_check(
        &mut self,
        claim: &Claim,
        material: &Material,
        winner: Color,
        moves: u32,
        ev: &mut Evidence,
    ) -> Result<Verdict> {
        let exact_max = matches!(claim.check, Check::MaxMoves { .. });
        let doc = self.claim_doc(claim, material, Metric::Dtm, ev)?;
        let stats = &doc.stats;
        // The winner's moves: ceil(p/2) of a mate in p plies with the
        // winner to move, p/2 with the loser to move.
        let mut best: Option<(u32, LongestEntry, bool)> = None;
        let mut positions = 0;
        for (color, winner_to_move) in [(winner, true), (!winner, false)] {
            let side = stats.side(color);
            let (hist, wins, other, entry) = winners_part(side, winner_to_move);
            positions += side.positions;
            let mate_moves = |p: u32| winner_moves(p, winner_to_move);
            if let Some(e) = entry {
                let m = mate_moves(e.dtz);
                if best.as_ref().is_none_or(|(b, _, _)| m > *b) {
                    best = Some((m, e.clone(), winner_to_move));
                }
            }
            ev.sides.push(SideEvidence {
                longest_moves: hist.max().map(|p| [mate_moves(p), mate_moves(p)]),
                longest_dtm: hist.max(),
                ..solved_side(color, winner_to_move, side, wins, other)
            });
        }
        ev.positions = Some(positions);
        ev.claimed_moves = Some(moves);
        let Some((observed, entry, winner_to_move)) = best else {
            ev.summary = format!("{material} has no wins for this side at all");
            return Ok(Verdict::Refuted);
        };
        ev.observed_moves = Some([observed, observed]);
        let line = self.solver_line(&entry.fen, Rule::None, Metric::Dtm)?;
        ev.longest = Some(Witness {
            fen: entry.fen.clone(),
            side_to_move: if winner_to_move { "winner" } else { "loser" }.into(),
            wdl: if winner_to_move { Wdl::Win } else { Wdl::Loss },
            dtz: entry.dtz,
            metric: Some(Metric::Dtm),
            phase_plies: None,
            moves: Some(observed),
            line: Some(LineSummary::from(&line)),
        });
        ev.notes
            .push("the longest position's line is mate-optimal (the winner mates fastest, the loser delays longest)".into());
        Ok(if observed > moves {
            ev.summary =
                format!("the longest mate takes {observed} moves, more than the {moves} claimed");
            Verdict::Refuted
        } else if observed == moves || !exact_max {
            ev.summary = if exact_max {
                format!("the longest mate takes exactly {moves} moves, as claimed")
            } else {
                format!("every mate comes within {moves} moves (the longest takes {observed})")
            };
            Verdict::Confirmed
        } else {
            ev.summary = format!(
                "every mate comes within the {moves} moves claimed, but the longest takes only {observed}: the bound holds, the maximum is not {moves}"
            );
            Verdict::Partly
        })
    }
}

/// The winner's part of one side's statistics: with the winner to move its
/// wins, else the loser's losses (which answer them); the histogram, their
/// count, the other side's wins, and the longest entry.
fn winners_part(
    side: &crate::model::SideStats,
    winner_to_move: bool,
) -> (&Histogram, u64, u64, &Option<LongestEntry>) {
    if winner_to_move {
        (
            &side.dtz.win,
            side.wdl.win,
            side.wdl.loss,
            &side.longest.win,
        )
    } else {
        (
            &side.dtz.loss,
            side.wdl.loss,
            side.wdl.win,
            &side.longest.loss,
        )
    }
}

/// One side's evidence from a solver document (DTR or DTM), with the
/// metric's own fields left empty for the caller: solver documents have
/// no cursed wins and no DTZ phases.
fn solved_side(
    color: Color,
    winner_to_move: bool,
    side: &crate::model::SideStats,
    wins: u64,
    other: u64,
) -> SideEvidence {
    SideEvidence {
        to_move: color_name(color).into(),
        role: if winner_to_move { "winner" } else { "loser" }.into(),
        positions: side.positions,
        wins,
        cursed_wins: 0,
        draws: side.wdl.draw,
        other_side_wins: other,
        longest_dtz: None,
        longest_phase_plies: None,
        longest_moves: None,
        over_limit: None,
        limit_plies: None,
        within_limit: None,
        longest_dtr: None,
        longest_dtm: None,
    }
}
