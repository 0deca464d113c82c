//! Whole-endgame claims decided from the DTZ statistics (`MaxMoves`,
//! `AtMostMoves`, `Generally`, `AllWin`): the winner's view of each side,
//! the longest phase resolved by its best-play line, and the first
//! exception to an "all win" claim.

use std::fmt;

use shakmaty::{Chess, Color, Position};

use super::{color_name, Verifier};
use crate::{
    chess::material::Material,
    chess::position::fen_of,
    chess::rule::Metric,
    chess::wdl::Wdl,
    claims::{
        catalog::{Check, Claim, GeneralOutcome},
        evidence::{Evidence, LineSummary, SideEvidence, Verdict, Witness},
        filter::Filter,
    },
    error::Result,
    human::pct,
    model::dtz::winner_moves,
    model::enumerate::Enumerator,
    model::{Histogram, LongestEntry, SideStats},
};

/// Plies after which the 50-move rule allows a claim.
const FIFTY_MOVE_PLIES: u32 = 100;

/// A side of a scan as the claim's winner sees it.
struct View<'s> {
    color: Color,
    winner_to_move: bool,
    side: &'s SideStats,
}

impl View<'_> {
    fn hist(&self) -> &Histogram {
        if self.winner_to_move {
            &self.side.dtz.win
        } else {
            &self.side.dtz.loss
        }
    }
    fn wins(&self) -> u64 {
        if self.winner_to_move {
            self.side.wdl.win
        } else {
            self.side.wdl.loss
        }
    }
    fn cursed(&self) -> u64 {
        if self.winner_to_move {
            self.side.wdl.cursed_win
        } else {
            self.side.wdl.blessed_loss
        }
    }
    fn other_wins(&self) -> u64 {
        if self.winner_to_move {
            self.side.wdl.loss + self.side.wdl.blessed_loss
        } else {
            self.side.wdl.win + self.side.wdl.cursed_win
        }
    }
    /// The longest winner-side entry and its WDL for the side to move.
    fn longest(&self) -> Option<(&LongestEntry, Wdl)> {
        let l = &self.side.longest;
        let (cursed, plain, wc, wp) = if self.winner_to_move {
            (&l.cursed_win, &l.win, Wdl::CursedWin, Wdl::Win)
        } else {
            (&l.blessed_loss, &l.loss, Wdl::BlessedLoss, Wdl::Loss)
        };
        cursed
            .as_ref()
            .map(|e| (e, wc))
            .or(plain.as_ref().map(|e| (e, wp)))
    }
    /// The winner's moves for a phase of `plies`.
    fn moves(&self, plies: u32) -> u32 {
        winner_moves(plies, self.winner_to_move)
    }
    fn role(&self) -> &'static str {
        if self.winner_to_move {
            "winner"
        } else {
            "loser"
        }
    }
}

/// Per side: the resolved longest phase and the witness.
struct Resolved {
    phase: Option<[u32; 2]>,
    witness: Option<Witness>,
}

/// Counts of positions whose phase exceeds `limit` plies, as bounds: a
/// value `d <= 100` is its phase; a value above 100 is `d` or `d - 100`.
fn over_limit(h: &Histogram, limit: u32) -> [u64; 2] {
    let mut lo = 0;
    let mut hi = 0;
    for (d, n) in h.bins() {
        if d > limit {
            hi += n;
            if d <= FIFTY_MOVE_PLIES || d - FIFTY_MOVE_PLIES > limit {
                lo += n;
            }
        }
    }
    [lo, hi]
}

impl Verifier<'_> {
    /// Claims about a whole endgame (or the filtered part of it).
    pub(super) fn table_check(
        &mut self,
        claim: &Claim,
        material: &Material,
        winner: Color,
        ev: &mut Evidence,
    ) -> Result<Verdict> {
        // Per-side ply limits for the counts over the limit.
        let limits: Option<(u32, u32)> = match claim.check {
            Check::MaxMoves { moves } | Check::AtMostMoves { moves } => {
                Some((2 * moves, 2 * moves + 1))
            }
            _ => None,
        };
        let doc = self.claim_doc(claim, material, Metric::Dtz, ev)?;
        let stats = doc.stats;
        let views = [
            View {
                color: winner,
                winner_to_move: true,
                side: stats.side(winner),
            },
            View {
                color: !winner,
                winner_to_move: false,
                side: stats.side(!winner),
            },
        ];
        let mut resolved = Vec::new();
        for v in &views {
            resolved.push(self.resolve(v)?);
        }
        let totals = Totals::of(&views);
        ev.positions = Some(totals.positions);
        for (v, r) in views.iter().zip(&resolved) {
            let limit = limits.map(|(w, l)| if v.winner_to_move { w } else { l });
            ev.sides.push(side_evidence(v, r, limit));
        }
        ev.longest = longest_witness(&views, &resolved);
        let verdict = match claim.check {
            Check::MaxMoves { moves } | Check::AtMostMoves { moves } => {
                let exact_max = matches!(claim.check, Check::MaxMoves { .. });
                let bounds = moves_bounds(&views, &resolved);
                moves_verdict(material, moves, exact_max, bounds, totals.wins, ev)
            }
            Check::Generally { outcome } => {
                generally_verdict(material, winner, outcome, &totals, ev)
            }
            Check::AllWin => self.all_win_verdict(claim, material, winner, &totals, ev)?,
            _ => Verdict::Unverifiable,
        };
        if resolved
            .iter()
            .any(|r| r.phase.is_some_and(|[lo, hi]| lo != hi))
        {
            ev.notes.push(
                "a cursed DTZ value can stand for d or d-100 plies; where the line of the longest position could not settle it, the phase is given as bounds".into(),
            );
        }
        Ok(verdict)
    }

    /// An `AllWin` claim: every position (that the filter keeps) is a win,
    /// else the first exception.
    fn all_win_verdict(
        &mut self,
        claim: &Claim,
        material: &Material,
        winner: Color,
        t: &Totals,
        ev: &mut Evidence,
    ) -> Result<Verdict> {
        let Totals {
            positions,
            wins,
            cursed,
            draws,
            other,
        } = *t;
        ev.supporting = Some(wins);
        ev.contradicting = Some(positions - wins);
        ev.summary = format!(
            "{wins} of the {positions} positions ({}) are wins for {} ({cursed} of them only without the 50-move rule); {draws} are draws and {other} wins for the other side",
            pct(wins, positions),
            material.side(winner)
        );
        Ok(if positions == 0 {
            ev.summary = "no position meets the condition".into();
            Verdict::Unverifiable
        } else if wins == positions {
            Verdict::Confirmed
        } else {
            ev.exception = self.find_exception(material, claim.filter.as_ref(), winner)?;
            if wins == 0 {
                Verdict::Refuted
            } else {
                Verdict::Partly
            }
        })
    }

    /// Resolves the longest first phase of one side.
    fn resolve(&mut self, v: &View<'_>) -> Result<Resolved> {
        let h = v.hist();
        let Some(max_d) = h.max() else {
            return Ok(Resolved {
                phase: None,
                witness: None,
            });
        };
        let Some((entry, wdl)) = v.longest() else {
            return Ok(Resolved {
                phase: Some([max_d, max_d]),
                witness: None,
            });
        };
        let entry = entry.clone();
        let line = LineSummary::from(self.line(&entry.fen)?);
        let first = line.phases.first().map_or(0, |p| p.plies);
        let phase = if entry.dtz <= FIFTY_MOVE_PLIES || first == entry.dtz {
            [entry.dtz, entry.dtz]
        } else {
            // The longest value stands for d - 100: other cursed values below
            // it may still hide a longer phase.
            let below: Vec<u32> = h
                .bins()
                .map(|(d, _)| d)
                .filter(|d| *d < entry.dtz)
                .collect();
            let plain = below
                .iter()
                .copied()
                .filter(|d| *d <= FIFTY_MOVE_PLIES)
                .max()
                .unwrap_or(0);
            let next = below.iter().copied().max().unwrap_or(0);
            let hi = first.max(next);
            let lo = first.max(plain);
            if next <= FIFTY_MOVE_PLIES {
                [hi, hi]
            } else {
                [lo, hi]
            }
        };
        Ok(Resolved {
            phase: Some(phase),
            witness: Some(Witness {
                fen: entry.fen.clone(),
                side_to_move: v.role().into(),
                wdl,
                dtz: entry.dtz,
                metric: None,
                phase_plies: Some(first),
                moves: Some(v.moves(first)),
                line: Some(line),
            }),
        })
    }

    /// The first position, in enumeration order, that meets the filter and
    /// is not a win for `winner`.
    fn find_exception(
        &mut self,
        material: &Material,
        filter: Option<&Filter>,
        winner: Color,
    ) -> Result<Option<Witness>> {
        let en = Enumerator::new(material);
        let prober = self.prober;
        let mut found: Option<Result<(Chess, Wdl)>> = None;
        for item in en.work_items() {
            en.for_each_in(item, |placement| {
                if found.is_some() {
                    return;
                }
                let board = en.board(&placement.squares);
                for turn in Color::ALL {
                    let Some(pos) = en.position(&board, turn) else {
                        continue;
                    };
                    if filter.is_some_and(|f| !f.matches(&pos)) {
                        continue;
                    }
                    let wdl = if pos.is_checkmate() {
                        Ok(Wdl::Loss)
                    } else {
                        prober.wdl(&pos)
                    };
                    match wdl {
                        Ok(w) => {
                            let for_winner = if turn == winner { w } else { w.flip() };
                            if for_winner.signum() <= 0 {
                                found = Some(Ok((pos, w)));
                                return;
                            }
                        }
                        Err(e) => {
                            found = Some(Err(e));
                            return;
                        }
                    }
                }
            });
            if found.is_some() {
                break;
            }
        }
        let Some(found) = found else { return Ok(None) };
        let (pos, wdl) = found?;
        let dtz = self.prober.dtz(&pos)?.plies();
        let fen = fen_of(&pos);
        let line = if wdl == Wdl::Draw {
            None
        } else {
            Some(LineSummary::from(self.line(&fen)?))
        };
        Ok(Some(Witness {
            fen,
            side_to_move: if pos.turn() == winner {
                "winner"
            } else {
                "loser"
            }
            .into(),
            wdl,
            dtz,
            metric: None,
            phase_plies: line
                .as_ref()
                .and_then(|l| l.phases.first().map(|p| p.plies)),
            moves: None,
            line,
        }))
    }
}

/// The counts over both sides that the verdicts read.
#[derive(Clone, Copy)]
struct Totals {
    positions: u64,
    /// The winner's wins, cursed ones included.
    wins: u64,
    /// The winner's cursed wins.
    cursed: u64,
    draws: u64,
    /// The other side's wins.
    other: u64,
}

impl Totals {
    fn of(views: &[View<'_>]) -> Totals {
        Totals {
            positions: views.iter().map(|v| v.side.positions).sum(),
            wins: views.iter().map(|v| v.wins() + v.cursed()).sum(),
            cursed: views.iter().map(View::cursed).sum(),
            draws: views.iter().map(|v| v.side.wdl.draw).sum(),
            other: views.iter().map(View::other_wins).sum(),
        }
    }
}

/// One side's evidence, with the counts over `limit` plies if the claim
/// has a limit.
fn side_evidence(v: &View<'_>, r: &Resolved, limit: Option<u32>) -> SideEvidence {
    SideEvidence {
        to_move: color_name(v.color).into(),
        role: v.role().into(),
        positions: v.side.positions,
        wins: v.wins(),
        cursed_wins: v.cursed(),
        draws: v.side.wdl.draw,
        other_side_wins: v.other_wins(),
        longest_dtz: v.hist().max(),
        longest_phase_plies: r.phase,
        longest_moves: r.phase.map(|[lo, hi]| [v.moves(lo), v.moves(hi)]),
        // A DTZ above 100 may stand for d or d - 100 plies, so the
        // histogram alone can leave the lower bound at 0; the
        // longest position's line, when it shows a phase over the
        // limit, is one position that certainly is over it.
        over_limit: limit.map(|l| {
            let [lo, hi] = over_limit(v.hist(), l);
            let witnessed = r.phase.is_some_and(|[p, _]| p > l);
            [if witnessed { lo.max(1) } else { lo }, hi]
        }),
        limit_plies: limit,
        within_limit: None,
        longest_dtr: None,
        longest_dtm: None,
    }
}

/// The longest witness: the side with the most winner's moves.
fn longest_witness(views: &[View<'_>; 2], resolved: &[Resolved]) -> Option<Witness> {
    let longest_idx = (0..2)
        .filter(|i| resolved[*i].phase.is_some())
        .max_by_key(|i| {
            let [_, hi] = resolved[*i].phase.unwrap_or([0, 0]);
            (views[*i].moves(hi), usize::from(*i == 0))
        });
    longest_idx.and_then(|i| resolved[i].witness.clone())
}

/// The winner's moves for the longest phase over both sides, as bounds;
/// `None` without a win.
fn moves_bounds(views: &[View<'_>], resolved: &[Resolved]) -> Option<[u32; 2]> {
    let b: Vec<[u32; 2]> = views
        .iter()
        .zip(resolved)
        .filter_map(|(v, r)| r.phase.map(|[lo, hi]| [v.moves(lo), v.moves(hi)]))
        .collect();
    (!b.is_empty()).then(|| {
        [
            b.iter().map(|x| x[0]).max().unwrap_or(0),
            b.iter().map(|x| x[1]).max().unwrap_or(0),
        ]
    })
}

/// A `MaxMoves` (`exact_max`) or `AtMostMoves` claim of `moves`, from the
/// longest phase's `bounds` in the winner's moves and the sides' counts over
/// the limit (already in `ev`).
fn moves_verdict(
    material: &Material,
    moves: u32,
    exact_max: bool,
    bounds: Option<[u32; 2]>,
    wins: u64,
    ev: &mut Evidence,
) -> Verdict {
    // The bounds on the positions over the limit, summed over the sides.
    let [over_lo, over_hi] = ev
        .sides
        .iter()
        .filter_map(|s| s.over_limit)
        .fold([0u64; 2], |[lo, hi], [l, h]| [lo + l, hi + h]);
    ev.claimed_moves = Some(moves);
    ev.observed_moves = bounds;
    ev.supporting = Some(wins.saturating_sub(over_hi));
    ev.contradicting = Some(over_lo);
    match bounds {
        None => {
            ev.summary = format!("{material} has no wins for this side at all");
            Verdict::Refuted
        }
        Some([lo, hi]) if lo > moves => {
            ev.summary = format!(
                "some win needs {} moves, more than the {moves} claimed ({over_lo} position(s) over the bound)",
                show_bounds([lo, hi])
            );
            Verdict::Refuted
        }
        Some([lo, hi]) if hi <= moves && (!exact_max || lo == moves) => {
            ev.summary = if exact_max {
                format!("the longest win needs exactly {moves} moves, as claimed")
            } else {
                format!(
                    "every win converts within {moves} moves (the longest needs {})",
                    show_bounds([lo, hi])
                )
            };
            Verdict::Confirmed
        }
        Some([lo, hi]) if exact_max && hi < moves => {
            ev.summary = format!(
                "every win converts within the {moves} moves claimed, but the longest needs only {}: the bound holds, the maximum is not {moves}",
                show_bounds([lo, hi])
            );
            Verdict::Partly
        }
        Some(b) => {
            ev.notes.push(format!(
                "the longest position's line leaves the longest phase open ({} moves); a DTZ above 100 may stand for d or d-100 plies",
                show_bounds(b)
            ));
            Verdict::Unverifiable
        }
    }
}

/// A `Generally` claim: most positions are draws, or wins for the winner.
fn generally_verdict(
    material: &Material,
    winner: Color,
    outcome: GeneralOutcome,
    t: &Totals,
    ev: &mut Evidence,
) -> Verdict {
    let Totals {
        positions,
        wins,
        draws,
        other,
        ..
    } = *t;
    let (what, n) = match outcome {
        GeneralOutcome::Draw => ("draws", draws),
        GeneralOutcome::Win => ("wins for the winner", wins),
    };
    ev.supporting = Some(n);
    ev.contradicting = Some(positions - n);
    let share = pct(n, positions);
    ev.summary = format!(
        "{share} of the {positions} positions are {what} ({wins} wins for {}, {draws} draws, {other} wins for the other side)",
        material.side(winner)
    );
    if positions > 0 && 2 * n > positions {
        Verdict::Confirmed
    } else {
        Verdict::Refuted
    }
}

/// `a` or `a-b`.
fn show_bounds<T: PartialEq + fmt::Display>([lo, hi]: [T; 2]) -> String {
    if lo == hi {
        lo.to_string()
    } else {
        format!("{lo} to {hi}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn over_limit_bounds() {
        let h = Histogram::from_iter([(50, 3), (99, 2), (117, 1)]);
        assert_eq!(over_limit(&h, 60), [2, 3]);
        // 117 is 117 or 17 plies.
        assert_eq!(over_limit(&h, 100), [0, 1]);
        assert_eq!(over_limit(&h, 10), [6, 6]);
    }
}
