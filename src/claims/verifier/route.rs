//! Which check decides a claim, or why none can: a rule of play, a metric
//! the tables lack, a solve deferred to `claims --deep`, missing tables;
//! else the position, rule, mate or whole-table check.

use shakmaty::Position;

use super::{color_name, official_sizes, request_for, Verifier};
use crate::{
    chess::material::Material,
    chess::rule::Metric as SolveMetric,
    claims::{
        catalog::{position_after, Check, Claim, Metric},
        evidence::{ClaimResult, Evidence, Verdict},
        filter::Filter,
    },
    error::{Error, Result},
    human::human_bytes,
};

impl Verifier<'_> {
    /// Checks one claim.
    ///
    /// # Errors
    ///
    /// Table errors (a damaged table), or [`Error::Other`] when the tables
    /// contradict themselves. Missing tables are not errors: they make the
    /// verdict `unverifiable`.
    pub fn verify(&mut self, claim: &Claim) -> Result<ClaimResult> {
        let mut result = ClaimResult {
            id: claim.id.clone(),
            year: claim.year,
            who: claim.who.clone(),
            material: claim.material.clone(),
            metric: claim.metric,
            statement: claim.statement.clone(),
            source: claim.source.clone(),
            verdict: Verdict::Unverifiable,
            evidence: Evidence::default(),
            missing_tables: Vec::new(),
        };
        let mut ev = Evidence::default();
        if let Some(n) = &claim.note {
            ev.notes.push(n.clone());
        }
        if claim.check == Check::None || claim.metric == Metric::Rule {
            ev.summary = format!(
                "a rule of play, not a statement about positions, so no table speaks to it; it is documented in {}",
                claim.source
            );
            result.verdict = Verdict::Documented;
            result.evidence = ev;
            return Ok(result);
        }
        let material = claim
            .material()?
            .ok_or_else(|| Error::Other(format!("claim {} names no material", claim.id)))?;
        let winner = claim
            .winner_color(&material)
            .ok_or_else(|| Error::Other(format!("claim {} names no winner", claim.id)))?;
        // The winner's colour: in the material as written, or on the board
        // of a position claim (where the FEN decides the colours).
        let shown_color = match &claim.check {
            Check::PositionConverts { fen, play, .. } | Check::PositionWins { fen, play } => {
                let pos = position_after(fen, play)?;
                let on_board = Material::from_board(pos.board())?;
                claim.winner_color(&on_board).unwrap_or(winner)
            }
            _ => winner,
        };
        ev.winner = Some(format!(
            "{} ({})",
            material.side(winner),
            color_name(shown_color)
        ));
        let solvable = crate::claims::source::solvable(&material, claim.filter.as_ref());
        let position_claim = matches!(
            claim.check,
            Check::PositionConverts { .. } | Check::PositionWins { .. }
        );
        let by_remote = position_claim && self.remote_decides(&material);
        if claim.metric == Metric::Dtm && by_remote {
            if let Check::PositionConverts { fen, play, moves } = &claim.check {
                result.verdict = self.remote_mate_check(claim, fen, play, *moves, &mut ev)?;
                result.evidence = ev;
                return Ok(result);
            }
        }
        if claim.metric == Metric::Dtm && !solvable {
            ev.summary = format!(
                "Syzygy tables hold no distance to mate (DTM), and fiftymove's solver, which computes it, solves at most {} pieces whole in a claims run (6 pieces without pawns: `solve --metric dtm`, on demand)",
                crate::claims::CLAIMS_SOLVE_PIECES
            );
            result.evidence = ev;
            return Ok(result);
        }
        if claim.metric == Metric::Dtc && material.has_pawns() {
            ev.summary = "Syzygy tables hold no DTC for material with pawns (DTZ counts pawn moves as zeroing)".into();
            result.evidence = ev;
            return Ok(result);
        }
        let mut missing = self.missing_for(claim)?;
        // Without the tables the solver decides what it can: materials of
        // up to five pieces.
        let by_solver = !missing.is_empty()
            && solvable
            && !matches!(
                claim.check,
                Check::PositionConverts { .. } | Check::PositionWins { .. }
            );
        // DTM needs no tables: the solver decides it whenever it takes the
        // material, and defers a long solve the same way.
        let solver_decides =
            by_solver || (claim.metric == Metric::Dtm && solvable && !position_claim);
        let deferred =
            solver_decides && request_for(claim, material).is_some_and(|r| self.sources.defers(&r));
        if deferred && !material.has_pawns() {
            let request = request_for(claim, material).expect("a deferred claim has a request");
            let bound = crate::solve::Solver::memory_bound(&material, request.metric);
            let why = if claim.metric == Metric::Dtm {
                "Syzygy tables hold no distance to mate (DTM)".to_owned()
            } else {
                format!("the Syzygy tables of {material} are not all present")
            };
            ev.summary = format!(
                "{why}, and the solver decides this claim only with a whole solve of {material} ({}, up to {} of memory; the README gives the measured time): long work, so only `claims --deep` starts it (its result is cached, and later runs read it)",
                describe_solve(request.metric),
                human_bytes(bound)
            );
            return Ok(deferred_result(result, ev, missing));
        }
        if deferred {
            let reach = claim
                .filter
                .as_ref()
                .and_then(Filter::frozen_pawns)
                .and_then(|pawns| crate::solve::frozen_reach(&material, &pawns))
                .unwrap_or_default();
            let whole = reach
                .iter()
                .filter(|(m, only)| m.piece_count() == 5 && only.is_none())
                .count();
            let parts = reach
                .iter()
                .filter(|(m, only)| m.piece_count() == 5 && only.is_some())
                .count();
            ev.summary = format!(
                "the Syzygy tables of {material} are not all present, and the solver decides this claim only with a solve of its slice of frozen pawns, whose captures lead to {} materials ({whole} of 5 pieces solved whole, {parts} of 5 pieces in the slices reached): long work on a small machine (the README gives a measured time), so only `claims --deep` starts it (its result is cached, and later runs read it)",
                reach.len()
            );
            return Ok(deferred_result(result, ev, missing));
        }
        if by_solver {
            ev.notes.push(format!(
                "the Syzygy tables of {material} are not all present; the solver decided this claim without them"
            ));
            missing.clear();
        }
        if by_remote {
            ev.engine = self.remote_engine(&material);
            missing.clear();
        }
        if !missing.is_empty() {
            // The claim's own table first, then the bigger endgames.
            let own = material.table_name();
            missing.sort_by_key(|f| {
                let stem = f.split('.').next().unwrap_or_default().to_owned();
                let pieces = stem.parse::<Material>().map_or(0, |m| m.piece_count());
                (stem != own, std::cmp::Reverse(pieces), f.clone())
            });
            let sizes = official_sizes(&missing);
            let total: u64 = sizes.values().sum();
            ev.summary = format!(
                "{} table file(s) of {} and the endgames it leads to are not present ({}); install them to check this claim",
                missing.len(),
                material,
                human_bytes(total)
            );
            ev.missing_total_bytes = Some(total);
            ev.missing_table_bytes = sizes;
            result.missing_tables = missing;
            result.evidence = ev;
            return Ok(result);
        }
        let by_position = match &claim.check {
            Check::PositionConverts { fen, play, moves } => {
                Some(self.position_converts(claim, fen, play, *moves, &mut ev))
            }
            Check::PositionWins { fen, play } => {
                Some(self.position_wins(claim, fen, play, &mut ev))
            }
            _ => None,
        };
        result.verdict = match by_position {
            // A service without the tables: unverifiable, as without files.
            Some(Err(Error::MissingTables { needed_for, files })) if by_remote => {
                ev.summary = format!("no table for {needed_for}");
                result.missing_tables = files;
                Verdict::Unverifiable
            }
            Some(verdict) => {
                if by_remote {
                    ev.notes.push(format!(
                        "the Syzygy tables of {material} are not all present; {} decided this claim",
                        ev.engine.as_deref().unwrap_or_default()
                    ));
                }
                verdict?
            }
            None => match &claim.check {
                Check::Allowance { moves } | Check::ExceedsMoves { moves } => {
                    self.rule_check(claim, &material, winner, *moves, &mut ev)?
                }
                Check::MaxMoves { moves } | Check::AtMostMoves { moves }
                    if claim.metric == Metric::Dtm =>
                {
                    self.mate_check(claim, &material, winner, *moves, &mut ev)?
                }
                _ => self.table_check(claim, &material, winner, &mut ev)?,
            },
        };
        result.evidence = ev;
        Ok(result)
    }
}

/// The result of a claim whose solve this run defers: its evidence, with
/// the table files missing and their official sizes.
fn deferred_result(mut result: ClaimResult, mut ev: Evidence, missing: Vec<String>) -> ClaimResult {
    let sizes = official_sizes(&missing);
    ev.missing_total_bytes = Some(sizes.values().sum());
    ev.missing_table_bytes = sizes;
    result.missing_tables = missing;
    result.evidence = ev;
    result
}

/// What a solve of `metric` for a claim is, in words.
fn describe_solve(metric: SolveMetric) -> &'static str {
    match metric {
        SolveMetric::Dtz => "DTZ under the 50-move rule",
        SolveMetric::Dtm => "distance to mate",
        SolveMetric::Dtr => "depth by the rule",
    }
}
