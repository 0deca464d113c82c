//! Which check decides a claim, or why none can: a rule of play, a metric
//! the tables lack, a solve deferred to `claims --deep`, missing tables;
//! else the position, rule, mate or whole-table check.

use shakmaty::{Color, Position};

use super::{color_name, official_sizes, request_for, Verifier};
use crate::{
    chess::material::Material,
    claims::{
        catalog::{position_after, Check, Claim, Metric},
        evidence::{ClaimResult, Evidence, Verdict},
        filter::Filter,
        source::Request,
    },
    error::{Error, Result},
    human::human_bytes,
};

/// How a claim is decided, or why nothing here can decide it.
enum Route<'c> {
    /// A position's mate depth, from the tablebase service.
    RemoteMate {
        fen: &'c str,
        play: &'c [String],
        moves: u32,
    },
    /// No engine here has the claim's metric for this material; the
    /// summary says why.
    NoMetric(String),
    /// Only a long solve decides it, which this run leaves to `claims
    /// --deep`; the summary says why. `missing`: the table files absent.
    Deferred {
        summary: String,
        missing: Vec<String>,
    },
    /// Table files are missing (the claim's own first, then the bigger
    /// endgames), and nothing stands in for them.
    Missing(Vec<String>),
    /// A check decides it: from the tables, or without them from the solver
    /// (`by_solver`) or the tablebase service (`by_remote`).
    Check { by_solver: bool, by_remote: bool },
}

impl Verifier<'_> {
    /// Checks one claim.
    ///
    /// # Errors
    ///
    /// Table errors (a damaged table), or [`Error::Inconsistent`] when the tables
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
        result.verdict = self.decide(claim, &mut ev, &mut result.missing_tables)?;
        result.evidence = ev;
        Ok(result)
    }

    /// The verdict on `claim`, with its evidence in `ev` and the table files
    /// it lacks in `missing_tables`.
    fn decide(
        &mut self,
        claim: &Claim,
        ev: &mut Evidence,
        missing_tables: &mut Vec<String>,
    ) -> Result<Verdict> {
        if claim.check == Check::None || claim.metric == Metric::Rule {
            ev.summary = format!(
                "a rule of play, not a statement about positions, so no table speaks to it; it is documented in {}",
                claim.source
            );
            return Ok(Verdict::Documented);
        }
        let material = claim
            .material()?
            .ok_or_else(|| claim_lacks(claim, "names no material"))?;
        let winner = claim
            .winner_color(&material)
            .ok_or_else(|| claim_lacks(claim, "names no winner"))?;
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
        match self.route(claim, material)? {
            Route::RemoteMate { fen, play, moves } => {
                self.remote_mate_check(claim, fen, play, moves, ev)
            }
            Route::NoMetric(summary) => {
                ev.summary = summary;
                Ok(Verdict::Unverifiable)
            }
            Route::Deferred { summary, missing } => {
                ev.summary = summary;
                record_missing(ev, missing_tables, missing);
                Ok(Verdict::Unverifiable)
            }
            Route::Missing(missing) => {
                ev.summary = format!(
                    "{} table file(s) of {} and the endgames it leads to are not present ({}); install them to check this claim",
                    missing.len(),
                    material,
                    human_bytes(official_sizes(&missing).values().sum())
                );
                record_missing(ev, missing_tables, missing);
                Ok(Verdict::Unverifiable)
            }
            Route::Check {
                by_solver,
                by_remote,
            } => {
                if by_solver {
                    ev.notes.push(format!(
                        "the Syzygy tables of {material} are not all present; the solver decided this claim without them"
                    ));
                }
                if by_remote {
                    ev.engine = self.remote_engine(&material);
                }
                self.check(claim, &material, winner, by_remote, ev, missing_tables)
            }
        }
    }

    /// How `claim`, on `material`, is decided.
    fn route<'c>(&self, claim: &'c Claim, material: Material) -> Result<Route<'c>> {
        let solvable = crate::claims::source::solvable(&material, claim.filter.as_ref());
        let position_claim = matches!(
            claim.check,
            Check::PositionConverts { .. } | Check::PositionWins { .. }
        );
        let by_remote = position_claim && self.remote_decides(&material);
        if claim.metric == Metric::Dtm && by_remote {
            if let Check::PositionConverts { fen, play, moves } = &claim.check {
                return Ok(Route::RemoteMate {
                    fen,
                    play,
                    moves: *moves,
                });
            }
        }
        if claim.metric == Metric::Dtm && !solvable {
            return Ok(Route::NoMetric(format!(
                "Syzygy tables hold no distance to mate (DTM), and fiftymove's solver, which computes it, solves at most {} pieces whole in a claims run (6 pieces without pawns: `solve --metric dtm`, on demand)",
                crate::claims::CLAIMS_SOLVE_PIECES
            )));
        }
        if claim.metric == Metric::Dtc && material.has_pawns() {
            return Ok(Route::NoMetric("Syzygy tables hold no DTC for material with pawns (DTZ counts pawn moves as zeroing)".into()));
        }
        let mut missing = self.missing_for(claim)?;
        // Without the tables the solver decides what it can: materials of
        // up to five pieces.
        let by_solver = !missing.is_empty() && solvable && !position_claim;
        // DTM needs no tables: the solver decides it whenever it takes the
        // material, and defers a long solve the same way.
        let solver_decides =
            by_solver || (claim.metric == Metric::Dtm && solvable && !position_claim);
        if let Some(request) =
            request_for(claim, material).filter(|r| solver_decides && self.sources.defers(r))
        {
            return Ok(Route::Deferred {
                summary: deferral(claim, material, &request),
                missing,
            });
        }
        if missing.is_empty() || by_solver || by_remote {
            return Ok(Route::Check {
                by_solver,
                by_remote,
            });
        }
        // The claim's own table first, then the bigger endgames.
        let own = material.table_name();
        missing.sort_by_key(|f| {
            let stem = f.split('.').next().unwrap_or_default().to_owned();
            let pieces = stem.parse::<Material>().map_or(0, |m| m.piece_count());
            (stem != own, std::cmp::Reverse(pieces), f.clone())
        });
        Ok(Route::Missing(missing))
    }

    /// Runs the check that decides `claim`: on one position, a rule's
    /// allowance, the longest mate, or the whole table.
    fn check(
        &mut self,
        claim: &Claim,
        material: &Material,
        winner: Color,
        by_remote: bool,
        ev: &mut Evidence,
        missing_tables: &mut Vec<String>,
    ) -> Result<Verdict> {
        let by_position = match &claim.check {
            Check::PositionConverts { fen, play, moves } => {
                Some(self.position_converts(claim, fen, play, *moves, ev))
            }
            Check::PositionWins { fen, play } => Some(self.position_wins(claim, fen, play, ev)),
            _ => None,
        };
        Ok(match by_position {
            // A service without the tables: unverifiable, as without files.
            Some(Err(Error::MissingTables { needed_for, files })) if by_remote => {
                ev.summary = format!("no table for {needed_for}");
                *missing_tables = files;
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
                    self.rule_check(claim, material, winner, *moves, ev)?
                }
                Check::MaxMoves { moves } | Check::AtMostMoves { moves }
                    if claim.metric == Metric::Dtm =>
                {
                    self.mate_check(claim, material, winner, *moves, ev)?
                }
                _ => self.table_check(claim, material, winner, ev)?,
            },
        })
    }
}

/// The error of a claim that lacks what its check needs.
fn claim_lacks(claim: &Claim, detail: &str) -> Error {
    Error::Claim {
        id: claim.id.clone(),
        detail: detail.to_owned(),
    }
}

/// Records the table files a claim lacks: in the result, and with their
/// official sizes in the evidence.
fn record_missing(ev: &mut Evidence, missing_tables: &mut Vec<String>, missing: Vec<String>) {
    let sizes = official_sizes(&missing);
    ev.missing_total_bytes = Some(sizes.values().sum());
    ev.missing_table_bytes = sizes;
    *missing_tables = missing;
}

/// Why a claim waits for `claims --deep`: the long solve of `request` that
/// decides it.
fn deferral(claim: &Claim, material: Material, request: &Request) -> String {
    if !material.has_pawns() {
        let bound = crate::solve::Solver::memory_bound(&material, request.metric);
        let why = if claim.metric == Metric::Dtm {
            "Syzygy tables hold no distance to mate (DTM)".to_owned()
        } else {
            format!("the Syzygy tables of {material} are not all present")
        };
        return format!(
            "{why}, and the solver decides this claim only with a whole solve of {material} ({}, up to {} of memory; the README gives the measured time): long work, so only `claims --deep` starts it (its result is cached, and later runs read it)",
            describe_solve(request.metric),
            human_bytes(bound)
        );
    }
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
    format!(
        "the Syzygy tables of {material} are not all present, and the solver decides this claim only with a solve of its slice of frozen pawns, whose captures lead to {} materials ({whole} of 5 pieces solved whole, {parts} of 5 pieces in the slices reached): long work on a small machine (the README gives a measured time), so only `claims --deep` starts it (its result is cached, and later runs read it)",
        reach.len()
    )
}

/// What a solve of `metric` for a claim is, in words.
fn describe_solve(metric: Metric) -> &'static str {
    match metric {
        Metric::Dtz => "DTZ under the 50-move rule",
        Metric::Dtm => "distance to mate",
        Metric::Dtr => "depth by the rule",
        Metric::Dtc => "distance to conversion",
        Metric::Rule => "a rule of play",
    }
}
