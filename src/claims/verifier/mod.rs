//! The verifier: it decides each claim of the catalog from the tables.
//!
//! # Semantics of the checks
//!
//! Distances come from Syzygy's DTZ50'' tables. Without pawns DTZ is DTC
//! (moves to conversion). A DTZ value `d` above 100 is a cursed win (or a
//! blessed loss): the phase up to the next zeroing move lasts `d` plies, or
//! `d - 100` plies when a *later* phase carries the curse. The verifier never
//! guesses which: it plays the best-play line of the longest position
//! ([`crate::probe::line::best_line`]) and reads its first phase. When that still
//! leaves the longest phase open, the evidence says so and gives bounds.
//!
//! * *Moves* (`max_moves`, `at_most_moves`): the winner to move needs
//!   `ceil(p/2)` of its own moves for a phase of `p` plies, the loser to move
//!   `floor(p/2)` (docs/history.md's convention).
//! * *Rule allowances* (`allowance`, `exceeds_moves`): an `N`-move rule cuts a
//!   win short when a phase lasts more than `2N` plies, whoever is to move.
//!   For `N = 50` the tables decide this exactly: the cut wins are the cursed
//!   wins and blessed losses. For larger `N` the first phase under DTZ50''
//!   optimal play is used; it is the shortest phase except where a
//!   conversion leads into a cursed sub-endgame, which the evidence notes.
//!
//! Statistics reach the verifier through one seam, [`StatsSource`], so the
//! engine that computes them can be swapped (the probe engine today, the
//! sweep engine later).

use std::{
    collections::{BTreeMap, HashMap},
    fmt,
};

use shakmaty::{Chess, Color, Position};

use super::source::{Engine, Request, Sourced, Sources};
use super::{
    catalog::{position_after, Check, Claim, GeneralOutcome, Metric},
    evidence::{ClaimResult, Evidence, LineSummary, SideEvidence, Verdict, Witness},
    filter::Filter,
};
use crate::{
    chess::material::Material,
    chess::position::{fen_of, parse_fen},
    chess::rule::{Metric as SolveMetric, Rule},
    chess::wdl::Wdl,
    error::{Error, Result},
    human::{human_bytes, pct},
    probe::line::best_line_with,
    probe::line::{best_line, Line},
    probe::Prober,
    scan::enumerate::Enumerator,
    scan::{Histogram, LongestEntry, ScanStats, SideStats},
    solve::Positions,
    tables::checksums,
    tables::Inventory,
};

/// Plies after which the 50-move rule allows a claim.
const FIFTY_MOVE_PLIES: u32 = 100;

/// Checks claims against the tables and the solver, fetching each document
/// (material, filter, metric) once, from the cache when it is there.
pub struct Verifier<'a> {
    inventory: &'a Inventory,
    prober: &'a Prober,
    /// A tablebase service, for position claims whose tables are absent.
    remote: Option<&'a Prober>,
    sources: &'a Sources<'a>,
    scans: HashMap<String, Sourced>,
    lines: HashMap<String, Line>,
    /// The solver's answers for single positions, by rule and metric.
    positions: HashMap<(Rule, SolveMetric), Positions<'a>>,
}

fn scan_key(material: &Material, filter: Option<&Filter>, metric: SolveMetric) -> String {
    format!(
        "{material}|{}|{}",
        filter.map(Filter::key).unwrap_or_default(),
        metric.as_str()
    )
}

/// The official sizes of `files` (0 where unknown).
pub fn official_sizes(files: &[String]) -> BTreeMap<String, u64> {
    files
        .iter()
        .map(|f| (f.clone(), checksums::official(f).map_or(0, |o| o.bytes)))
        .collect()
}

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
        if self.winner_to_move {
            plies.div_ceil(2)
        } else {
            plies / 2
        }
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

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
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

impl<'a> Verifier<'a> {
    /// A verifier over `inventory`'s tables, probing with `prober` (for
    /// lines and single positions) and scanning through `source`.
    pub fn new(
        inventory: &'a Inventory,
        prober: &'a Prober,
        sources: &'a Sources<'a>,
    ) -> Verifier<'a> {
        Verifier {
            inventory,
            prober,
            remote: None,
            sources,
            scans: HashMap::new(),
            lines: HashMap::new(),
            positions: HashMap::new(),
        }
    }

    /// Decides the position claims whose tables are absent through
    /// `remote`, a probe engine reading a tablebase service
    /// ([`Prober::remote`]); where the tables are present they still decide.
    pub fn with_remote(mut self, remote: &'a Prober) -> Verifier<'a> {
        self.remote = Some(remote);
        self
    }

    /// The probe engine for positions of `material`: the files where they
    /// are present, else the service, if there is one.
    fn prober_for(&self, material: &Material) -> &'a Prober {
        match self.remote {
            Some(r) if !self.sources.has_tables(material) => r,
            _ => self.prober,
        }
    }

    /// Whether the service answers for positions of `material`: one is
    /// given, the tables are absent, and the solver, which would otherwise
    /// answer, does not take that many pieces.
    fn remote_decides(&self, material: &Material) -> bool {
        self.remote.is_some()
            && !self.sources.has_tables(material)
            && material.piece_count() > super::CLAIMS_SOLVE_PIECES
    }

    /// How evidence names the service, if one is used for `material`.
    fn remote_engine(&self, material: &Material) -> Option<String> {
        self.prober_for(material)
            .remote_source()
            .map(|r| format!("the tablebase service at {}", r.url()))
    }

    /// Announces the documents `claims` need, so that those of one material
    /// are made together (one sweep or one solve for all their filters).
    pub fn want(sources: &mut Sources<'_>, claims: &[&Claim]) {
        for c in claims {
            let Ok(Some(material)) = c.material() else {
                continue;
            };
            if let Some(r) = request_for(c, material) {
                sources.want(r);
            }
        }
    }

    /// Supplies a saved, unfiltered, whole (unsharded) scan, so that claims
    /// on its material use it instead of scanning.
    ///
    /// # Errors
    ///
    /// [`Error::Input`] for a shard or a bad material.
    pub fn preload(&mut self, stats: ScanStats) -> Result<()> {
        if stats.shard.is_some() {
            return Err(Error::Input {
                path: stats.material.clone().into(),
                detail: "is one shard of a scan; merge the shards first".into(),
            });
        }
        let m: Material = stats.material.parse()?;
        let metric = stats.metric.unwrap_or(SolveMetric::Dtz);
        let engine = if stats.engine.is_some() {
            Engine::Solve
        } else {
            Engine::Sweep
        };
        self.scans
            .insert(scan_key(&m, None, metric), Sourced { stats, engine });
        Ok(())
    }

    /// The unfiltered statistics of `material`, scanning it unless cached.
    ///
    /// # Errors
    ///
    /// Table errors from the engine.
    pub fn stats(&mut self, material: &Material) -> Result<&ScanStats> {
        self.scan(material, None)
    }

    fn scan(&mut self, material: &Material, filter: Option<&Filter>) -> Result<&ScanStats> {
        Ok(&self.doc(material, filter, SolveMetric::Dtz)?.stats)
    }

    /// The document of `material` (positions by `filter`) in `metric`.
    fn doc(
        &mut self,
        material: &Material,
        filter: Option<&Filter>,
        metric: SolveMetric,
    ) -> Result<&Sourced> {
        let key = scan_key(material, filter, metric);
        if !self.scans.contains_key(&key) {
            let doc = self.sources.fetch(&Request {
                material: *material,
                filter: filter.cloned(),
                metric,
            })?;
            self.scans.insert(key.clone(), doc);
        }
        Ok(&self.scans[&key])
    }

    /// The document a whole-endgame claim reads, with the evidence's scope
    /// (the positions the claim's filter keeps) and engine filled in.
    fn claim_doc(
        &mut self,
        claim: &Claim,
        material: &Material,
        metric: SolveMetric,
        ev: &mut Evidence,
    ) -> Result<Sourced> {
        ev.scope = Some(match &claim.filter {
            Some(f) => format!("{material}: {}", f.describe()),
            None => format!("{material}: all positions"),
        });
        let doc = self.doc(material, claim.filter.as_ref(), metric)?.clone();
        ev.engine = Some(doc.engine.describe(metric));
        Ok(doc)
    }

    /// The solver's answers under `rule` and `metric`.
    fn positions(&mut self, rule: Rule, metric: SolveMetric) -> Result<&Positions<'a>> {
        if !self.positions.contains_key(&(rule, metric)) {
            let p = Positions::new(
                self.sources.solver(),
                rule,
                metric,
                self.sources.hooks().solve(),
            )?;
            self.positions.insert((rule, metric), p);
        }
        Ok(&self.positions[&(rule, metric)])
    }

    /// The line of `fen` played by the solver under `rule` in `metric`.
    fn solver_line(&mut self, fen: &str, rule: Rule, metric: SolveMetric) -> Result<Line> {
        let pos = parse_fen(fen)?;
        let material = Material::from_board(pos.board())?;
        let positions = self.positions(rule, metric)?;
        if material.has_table() {
            positions.prepare(&material)?;
        }
        best_line_with(positions, &pos, positions.rule(), metric)
    }

    /// The best-play line from a FEN, cached.
    ///
    /// # Errors
    ///
    /// Table errors from the prober.
    pub fn line(&mut self, fen: &str) -> Result<&Line> {
        if !self.lines.contains_key(fen) {
            let pos = parse_fen(fen)?;
            let material = Material::from_board(pos.board())?;
            // Without the tables the solver plays the same line, and for
            // more pieces than it takes, a service (if one is given).
            let line = if !material.has_table() || self.sources.has_tables(&material) {
                best_line(self.prober, &pos)?
            } else if self.remote_decides(&material) {
                best_line(self.prober_for(&material), &pos)?
            } else {
                self.solver_line(fen, Rule::FIFTY, SolveMetric::Dtz)?
            };
            self.lines.insert(fen.to_owned(), line);
        }
        Ok(&self.lines[fen])
    }

    /// The table files a claim needs that are not present.
    ///
    /// # Errors
    ///
    /// [`Error::Material`] for a bad material in the claim.
    pub fn missing_for(&self, claim: &Claim) -> Result<Vec<String>> {
        if !needs_tables(claim) {
            return Ok(Vec::new());
        }
        Ok(match claim.material()? {
            Some(m) => self.inventory.missing_for(&m),
            None => Vec::new(),
        })
    }

    /// Checks, before any long work, that the tables of every claim whose
    /// tables are all present have their official sizes.
    ///
    /// # Errors
    ///
    /// [`Error::Table`] for a truncated or damaged file.
    pub fn preflight(&self, claims: &[&Claim]) -> Result<()> {
        for c in claims {
            if !self.missing_for(c)?.is_empty() {
                continue;
            }
            if let (true, Some(m)) = (needs_tables(c), c.material()?) {
                self.inventory.require(&m, &c.id)?;
            }
        }
        Ok(())
    }

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
        let solvable = super::source::solvable(&material, claim.filter.as_ref());
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
                super::CLAIMS_SOLVE_PIECES
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

    /// Claims about a whole endgame (or the filtered part of it).
    fn table_check(
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
        let doc = self.claim_doc(claim, material, SolveMetric::Dtz, ev)?;
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
        let positions: u64 = views.iter().map(|v| v.side.positions).sum();
        ev.positions = Some(positions);
        for (v, r) in views.iter().zip(&resolved) {
            let limit = limits.map(|(w, l)| if v.winner_to_move { w } else { l });
            ev.sides.push(SideEvidence {
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
            });
        }
        // The longest witness: the side with the most winner's moves.
        let longest_idx = (0..2)
            .filter(|i| resolved[*i].phase.is_some())
            .max_by_key(|i| {
                let [_, hi] = resolved[*i].phase.unwrap_or([0, 0]);
                (views[*i].moves(hi), usize::from(*i == 0))
            });
        ev.longest = longest_idx.and_then(|i| resolved[i].witness.clone());
        let moves_bounds = {
            let b: Vec<[u32; 2]> = views
                .iter()
                .zip(&resolved)
                .filter_map(|(v, r)| r.phase.map(|[lo, hi]| [v.moves(lo), v.moves(hi)]))
                .collect();
            (!b.is_empty()).then(|| {
                [
                    b.iter().map(|x| x[0]).max().unwrap_or(0),
                    b.iter().map(|x| x[1]).max().unwrap_or(0),
                ]
            })
        };
        let cursed: u64 = views.iter().map(View::cursed).sum();
        let wins: u64 = views.iter().map(|v| v.wins() + v.cursed()).sum();
        let draws: u64 = views.iter().map(|v| v.side.wdl.draw).sum();
        let other: u64 = views.iter().map(View::other_wins).sum();
        let over_hi: u64 = ev
            .sides
            .iter()
            .filter_map(|s| s.over_limit)
            .map(|[_, hi]| hi)
            .sum();
        let over_lo: u64 = ev
            .sides
            .iter()
            .filter_map(|s| s.over_limit)
            .map(|[lo, _]| lo)
            .sum();
        let unresolved = |ev: &mut Evidence, what: &str| {
            ev.notes.push(format!(
                "the longest position's line leaves the longest phase open ({what}); a DTZ above 100 may stand for d or d-100 plies"
            ));
            Verdict::Unverifiable
        };
        let verdict = match claim.check {
            Check::MaxMoves { moves } | Check::AtMostMoves { moves } => {
                let exact_max = matches!(claim.check, Check::MaxMoves { .. });
                ev.claimed_moves = Some(moves);
                ev.observed_moves = moves_bounds;
                ev.supporting = Some(wins.saturating_sub(over_hi));
                ev.contradicting = Some(over_lo);
                match moves_bounds {
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
                    Some(b) => unresolved(ev, &format!("{} moves", show_bounds(b))),
                }
            }
            Check::Generally { outcome } => {
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
            Check::AllWin => {
                ev.supporting = Some(wins);
                ev.contradicting = Some(positions - wins);
                ev.summary = format!(
                    "{wins} of the {positions} positions ({}) are wins for {} ({cursed} of them only without the 50-move rule); {draws} are draws and {other} wins for the other side",
                    pct(wins, positions),
                    material.side(winner)
                );
                if positions == 0 {
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
                }
            }
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

    /// A rule's allowance (`Allowance`, `ExceedsMoves`), decided exactly
    /// from DTR: the wins an `N`-move rule keeps are those with DTR at most
    /// `2N` plies.
    fn rule_check(
        &mut self,
        claim: &Claim,
        material: &Material,
        winner: Color,
        moves: u32,
        ev: &mut Evidence,
    ) -> Result<Verdict> {
        let allowance = matches!(claim.check, Check::Allowance { .. });
        let limit = 2 * moves;
        let doc = self.claim_doc(claim, material, SolveMetric::Dtr, ev)?;
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
            let summary = if material.piece_count() <= super::CLAIMS_SOLVE_PIECES {
                Some(LineSummary::from(&self.solver_line(
                    &entry.fen,
                    rule,
                    SolveMetric::Dtz,
                )?))
            } else {
                None
            };
            ev.longest = Some(Witness {
                fen: entry.fen.clone(),
                side_to_move: if winner_to_move { "winner" } else { "loser" }.into(),
                wdl: if winner_to_move { Wdl::Win } else { Wdl::Loss },
                dtz: dtr,
                metric: Some(SolveMetric::Dtr),
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
    fn mate_check(
        &mut self,
        claim: &Claim,
        material: &Material,
        winner: Color,
        moves: u32,
        ev: &mut Evidence,
    ) -> Result<Verdict> {
        let exact_max = matches!(claim.check, Check::MaxMoves { .. });
        let doc = self.claim_doc(claim, material, SolveMetric::Dtm, ev)?;
        let stats = &doc.stats;
        // The winner's moves: ceil(p/2) of a mate in p plies with the
        // winner to move, p/2 with the loser to move.
        let mut best: Option<(u32, LongestEntry, bool)> = None;
        let mut positions = 0;
        for (color, winner_to_move) in [(winner, true), (!winner, false)] {
            let side = stats.side(color);
            let (hist, wins, other, entry) = winners_part(side, winner_to_move);
            positions += side.positions;
            let mate_moves = |p: u32| if winner_to_move { p.div_ceil(2) } else { p / 2 };
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
        let line = self.solver_line(&entry.fen, Rule::None, SolveMetric::Dtm)?;
        ev.longest = Some(Witness {
            fen: entry.fen.clone(),
            side_to_move: if winner_to_move { "winner" } else { "loser" }.into(),
            wdl: if winner_to_move { Wdl::Win } else { Wdl::Loss },
            dtz: entry.dtz,
            metric: Some(SolveMetric::Dtm),
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
        let dtz = self.prober.dtz(&pos)?.unsigned_abs();
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

    /// The position's winner, the winner's moves for its first phase, and
    /// the witness.
    fn probe_position(
        &mut self,
        claim: &Claim,
        fen: &str,
        play: &[String],
    ) -> Result<(Option<Color>, Witness)> {
        let pos = position_after(fen, play)?;
        let material = Material::from_board(pos.board())?;
        let prober = self.prober_for(&material);
        let wdl = if pos.is_checkmate() {
            Wdl::Loss
        } else {
            prober.wdl(&pos)?
        };
        let dtz = prober.dtz(&pos)?;
        let winner = match wdl.signum() {
            1 => Some(pos.turn()),
            -1 => Some(!pos.turn()),
            _ => None,
        };
        // The colour, on this board, of the claim's winner.
        let claimed = claim.winner.as_deref().and_then(|w| {
            Color::ALL
                .into_iter()
                .find(|c| material.side(*c).to_string() == w.to_ascii_uppercase())
        });
        let fen_now = fen_of(&pos);
        let (line, first) = if winner.is_some() {
            let l = LineSummary::from(self.line(&fen_now)?);
            let first = l.phases.first().map_or(0, |p| p.plies);
            (Some(l), Some(first))
        } else {
            (None, None)
        };
        let winner_to_move = claimed == Some(pos.turn());
        let moves = first.map(|p| if winner_to_move { p.div_ceil(2) } else { p / 2 });
        Ok((
            winner.filter(|w| Some(*w) == claimed),
            Witness {
                fen: fen_now,
                side_to_move: if winner_to_move { "winner" } else { "loser" }.into(),
                wdl,
                dtz: dtz.unsigned_abs(),
                metric: None,
                phase_plies: first,
                moves,
                line,
            },
        ))
    }

    fn position_converts(
        &mut self,
        claim: &Claim,
        fen: &str,
        play: &[String],
        moves: u32,
        ev: &mut Evidence,
    ) -> Result<Verdict> {
        let (winner, w) = self.probe_position(claim, fen, play)?;
        ev.scope = Some(format!("the position {}", w.fen));
        ev.claimed_moves = Some(moves);
        let verdict = match (winner, w.moves) {
            (Some(_), Some(observed)) => {
                ev.observed_moves = Some([observed, observed]);
                if observed == moves {
                    ev.summary = format!(
                        "the winner converts in exactly {moves} moves (DTZ {} plies, first phase {} plies)",
                        w.dtz,
                        w.phase_plies.unwrap_or(0)
                    );
                    Verdict::Confirmed
                } else {
                    ev.summary = format!(
                        "the winner converts in {observed} moves, not {moves} (DTZ {} plies, first phase {} plies)",
                        w.dtz,
                        w.phase_plies.unwrap_or(0)
                    );
                    Verdict::Refuted
                }
            }
            _ => {
                ev.summary = format!(
                    "the position is not a win for {} (WDL {})",
                    claim.winner.as_deref().unwrap_or("?"),
                    w.wdl.as_str()
                );
                Verdict::Refuted
            }
        };
        ev.longest = Some(w);
        Ok(verdict)
    }

    /// A position's mate depth from the tablebase service, which has DTM
    /// where it has DTM tables (up to 6 pieces on the public service).
    fn remote_mate_check(
        &mut self,
        claim: &Claim,
        fen: &str,
        play: &[String],
        moves: u32,
        ev: &mut Evidence,
    ) -> Result<Verdict> {
        let pos = position_after(fen, play)?;
        let material = Material::from_board(pos.board())?;
        let prober = self.prober_for(&material);
        let remote = prober
            .remote_source()
            .ok_or_else(|| Error::Other("a mate check without a service".into()))?;
        let fen_now = fen_of(&pos);
        ev.scope = Some(format!("the position {fen_now}"));
        ev.claimed_moves = Some(moves);
        ev.engine = self.remote_engine(&material);
        let claimed = claim.winner_color(&material);
        let Some(dtm) = remote.dtm(&pos)? else {
            ev.summary = format!(
                "{} gives no distance to mate for this position (it has DTM only where it has DTM tables: up to 6 pieces on the public service, none on a server without them)",
                remote.url()
            );
            return Ok(Verdict::Unverifiable);
        };
        let winner = match dtm.signum() {
            1 => Some(pos.turn()),
            -1 => Some(!pos.turn()),
            _ => None,
        };
        if winner.is_none() || winner != claimed {
            ev.summary = format!(
                "the position is not a mate for {} (DTM {dtm} plies for the side to move)",
                claim.winner.as_deref().unwrap_or("?")
            );
            return Ok(Verdict::Refuted);
        }
        let plies = dtm.unsigned_abs();
        let observed = if dtm > 0 {
            plies.div_ceil(2)
        } else {
            plies / 2
        };
        ev.observed_moves = Some([observed, observed]);
        Ok(if observed == moves {
            ev.summary = format!("the winner mates in exactly {moves} moves (DTM {plies} plies)");
            Verdict::Confirmed
        } else {
            ev.summary =
                format!("the winner mates in {observed} moves, not {moves} (DTM {plies} plies)");
            Verdict::Refuted
        })
    }

    fn position_wins(
        &mut self,
        claim: &Claim,
        fen: &str,
        play: &[String],
        ev: &mut Evidence,
    ) -> Result<Verdict> {
        let (winner, w) = self.probe_position(claim, fen, play)?;
        ev.scope = Some(format!("the position {}", w.fen));
        let verdict = if winner.is_some() {
            ev.summary = format!(
                "the position is a win for {}{}",
                claim.winner.as_deref().unwrap_or("?"),
                if matches!(w.wdl, Wdl::CursedWin | Wdl::BlessedLoss) {
                    " without the 50-move rule (with it, a draw)"
                } else {
                    ""
                }
            );
            Verdict::Confirmed
        } else {
            ev.summary = format!(
                "the position is not a win for {} (WDL {} for the side to move)",
                claim.winner.as_deref().unwrap_or("?"),
                w.wdl.as_str()
            );
            Verdict::Refuted
        };
        ev.longest = Some(w);
        Ok(verdict)
    }
}

/// Whether checking a claim would read tables at all.
/// The winner's part of one side's statistics: with the winner to move its
/// wins, else the loser's losses (which answer them); the histogram, their
/// count, the other side's wins, and the longest entry.
fn winners_part(
    side: &crate::scan::SideStats,
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
    side: &crate::scan::SideStats,
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

/// The document a whole-endgame claim on `material` reads, if any.
fn request_for(c: &Claim, material: Material) -> Option<Request> {
    let metric = match (&c.metric, &c.check) {
        (_, Check::Allowance { .. } | Check::ExceedsMoves { .. }) => SolveMetric::Dtr,
        (Metric::Dtm, _) => SolveMetric::Dtm,
        (Metric::Rule, _) | (_, Check::None) => return None,
        _ => SolveMetric::Dtz,
    };
    Some(Request {
        material,
        filter: c.filter.clone(),
        metric,
    })
}

fn needs_tables(claim: &Claim) -> bool {
    claim.check != Check::None
        && matches!(claim.metric, Metric::Dtz | Metric::Dtc)
        && !(claim.metric == Metric::Dtc
            && claim
                .material()
                .ok()
                .flatten()
                .is_some_and(|m| m.has_pawns()))
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
        let mut h = Histogram::default();
        h.add(50, 3);
        h.add(99, 2);
        h.add(117, 1);
        assert_eq!(over_limit(&h, 60), [2, 3]);
        // 117 is 117 or 17 plies.
        assert_eq!(over_limit(&h, 100), [0, 1]);
        assert_eq!(over_limit(&h, 10), [6, 6]);
    }
}
