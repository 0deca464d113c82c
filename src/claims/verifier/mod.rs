//! The verifier: it decides each claim of the catalog from the tables.
//!
//! # Semantics of the checks
//!
//! Distances come from Syzygy's DTZ50'' tables. Without pawns DTZ is DTC
//! (moves to conversion). A DTZ value `d` above 100 is a cursed win (or a
//! blessed loss): the phase up to the next zeroing move lasts `d` plies, or
//! `d - 100` plies when a *later* phase carries the curse. The verifier never
//! guesses which: it plays the best-play line of the longest position
//! ([`crate::probe::best_line`]) and reads its first phase. When that still
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
//! Statistics reach the verifier through one seam, [`Sources`], which
//! fetches each document from the engine that computes it (the sweep of the
//! tables, or the solver) or from the cache.
//!
//! One module per kind of check: `route` picks the check that decides a
//! claim, or says why none can; `table` decides whole-endgame claims from
//! DTZ statistics, `solved` rule allowances (DTR) and the longest mate
//! (DTM) from solver documents, `position` claims about one position.

mod position;
mod route;
mod solved;
mod table;

use std::collections::{BTreeMap, HashMap};

use shakmaty::{Color, Position};

use super::source::{Request, Sourced, Sources};
use super::{
    catalog::{Check, Claim, Metric},
    evidence::Evidence,
    filter::Filter,
};
use crate::model::Engine;
use crate::{
    chess::material::Material,
    chess::position::parse_fen,
    chess::rule::Rule,
    error::{Error, Result},
    model::ScanStats,
    probe::line::best_line_with,
    probe::Prober,
    probe::{best_line, line::Line},
    solve::Positions,
    tables::checksums,
    tables::Inventory,
};

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
    positions: HashMap<(Rule, Metric), Positions<'a>>,
}

fn scan_key(material: &Material, filter: Option<&Filter>, metric: Metric) -> String {
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

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
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
        let metric = stats.metric.unwrap_or(Metric::Dtz);
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
        Ok(&self.doc(material, filter, Metric::Dtz)?.stats)
    }

    /// The document of `material` (positions by `filter`) in `metric`.
    fn doc(
        &mut self,
        material: &Material,
        filter: Option<&Filter>,
        metric: Metric,
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
        metric: Metric,
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
    fn positions(&mut self, rule: Rule, metric: Metric) -> Result<&Positions<'a>> {
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
    fn solver_line(&mut self, fen: &str, rule: Rule, metric: Metric) -> Result<Line> {
        let pos = parse_fen(fen)?;
        let material = Material::from_board(pos.board())?;
        let positions = self.positions(rule, metric)?;
        if material.has_table() {
            positions.prepare_position(&pos)?;
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
                self.solver_line(fen, Rule::FIFTY, Metric::Dtz)?
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
}

/// The document a whole-endgame claim on `material` reads, if any.
fn request_for(c: &Claim, material: Material) -> Option<Request> {
    let metric = match (&c.metric, &c.check) {
        (_, Check::Allowance { .. } | Check::ExceedsMoves { .. }) => Metric::Dtr,
        (Metric::Dtm, _) => Metric::Dtm,
        (Metric::Rule, _) | (_, Check::None) => return None,
        _ => Metric::Dtz,
    };
    Some(Request {
        material,
        filter: c.filter.clone(),
        metric,
    })
}

/// Whether checking a claim would read tables at all.
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
