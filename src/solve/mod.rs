//! The retrograde solver: exact values under any move-limit rule, computed
//! from KvK up with no table file.
//!
//! A material is solved after every material its captures and promotions
//! reach (its closure, in the order of [`closure`]), and a material with
//! pawns slice by slice, from the most advanced pawns down, since a pawn
//! push leads to a slice solved before. Within a slice, `retro` does the
//! classic retrograde analysis on the solver's own index (`layout`) with
//! its own move and retraction generation (`board`), on shakmaty's attack
//! tables; the zeroing moves read the tables already solved (`exits`).
//!
//! # What it computes
//!
//! Under an `N`-move rule a phase (the plies up to the next capture or pawn
//! move, or mate) may last `2N` plies. For each position and side to move
//! the solver gives the five classes, as Syzygy does for `N = 50`: won,
//! *cursed* (won without a rule, drawn under this one), drawn, *blessed*,
//! lost. And it gives the depth to the zeroing move counted as the Syzygy
//! generator counts DTZ50'', with 100 replaced by `2N`: the winner plays for
//! the smallest value, the loser for the largest, a zeroing move into a lost
//! position counts 1, into a position lost only without the rule `2N + 1`,
//! and a value above `2N` means cursed (blessed for the loser). With no
//! rule there are no cursed wins and the depth is DTZ without a rule.
//!
//! Layer: above [`crate::scan`] (it fills the same statistics document) and
//! [`crate::chess`]; it does not use [`crate::tables`] or [`crate::probe`],
//! so its results are independent of Syzygy.

// Slots index parallel arrays (pieces, squares, slot maps); indexed loops
// say that best.
#![allow(clippy::needless_range_loop)]

mod board;
mod cache;
mod dtr;
mod exits;
mod geometry;
mod layout;
mod levels;
mod positions;
mod retro;
mod stats;
mod table;
#[cfg(test)]
mod tests;
mod value;

use std::{collections::HashMap, sync::Arc};

use rayon::prelude::*;

pub use self::cache::Cache;
pub use self::positions::{Positions, Value};
use self::{
    cache::CacheError,
    exits::MaterialExits,
    layout::Layout,
    retro::solve_slice,
    stats::Counting,
    table::{Keeps, Table},
};
pub use crate::chess::rule::{Metric, Rule, MAX_RULE_MOVES};
use crate::{
    chess::material::Material,
    error::{Error, Result},
    memory::MemoryLimit,
    scan::{ScanStats, Shard},
};

/// Most pieces the solver takes, kings included.
pub const MAX_SOLVE_PIECES: usize = 5;

/// The materials to solve before and including `material`, normalised, in
/// an order where each comes after every material its captures and
/// promotions reach: fewer pieces first, then fewer pawns (a promotion keeps
/// the number of pieces and takes a pawn away).
pub fn closure(material: &Material) -> Vec<Material> {
    let mut all: Vec<Material> = material
        .closure()
        .into_iter()
        .map(|name| name.parse::<Material>().expect("closure names parse"))
        .collect();
    all.sort_by_key(|m| {
        let pawns = m
            .pieces()
            .iter()
            .filter(|p| p.role == shakmaty::Role::Pawn)
            .count();
        (m.piece_count(), pawns, m.table_name())
    });
    all
}

/// One `solve` of one material.
#[derive(Clone, Debug)]
pub struct SolvePlan {
    /// The material as written (White first).
    pub material: Material,
    /// The rule.
    pub rule: Rule,
    /// The metric.
    pub metric: Metric,
    /// Only this part of the positions, if set (as `scan --shard`).
    pub shard: Option<Shard>,
    /// Also count raw placements.
    pub raw: bool,
}

impl SolvePlan {
    /// Checks that the solver can take the material.
    ///
    /// # Errors
    ///
    /// [`Error::Material`] for more than [`MAX_SOLVE_PIECES`] pieces.
    pub fn validate(&self) -> Result<()> {
        if self.material.piece_count() > MAX_SOLVE_PIECES {
            return Err(Error::Material {
                input: self.material.to_string(),
                reason: format!(
                    "{} pieces; the solver takes at most {MAX_SOLVE_PIECES} for now",
                    self.material.piece_count()
                ),
                suggestion: None,
            });
        }
        Ok(())
    }
}

/// How far a solve has come, for a progress bar.
pub trait Progress: Sync {
    /// A new stage: `what` (solving or reading a material, its `index`-th
    /// of `count`), with `entries` positions to go through.
    fn stage(&self, what: &str, index: usize, count: usize, entries: u64);
    /// `n` more positions done.
    fn advance(&self, n: u64);
    /// Something worth telling (a damaged cache file being replaced).
    fn note(&self, text: &str);
}

/// A [`Progress`] that shows nothing.
pub struct NoProgress;

impl Progress for NoProgress {
    fn stage(&self, _: &str, _: usize, _: usize, _: u64) {}
    fn advance(&self, _: u64) {}
    fn note(&self, _: &str) {}
}

/// Solves materials and their closures, reusing solved ones from a cache.
#[derive(Clone, Debug)]
pub struct Solver {
    cache: Option<Cache>,
    memory: MemoryLimit,
}

impl Solver {
    /// A solver keeping solved materials in `cache` (none: solve everything
    /// every time, write nothing) and refusing work beyond `memory`.
    pub fn new(cache: Option<Cache>, memory: MemoryLimit) -> Solver {
        Solver { cache, memory }
    }

    /// The most memory solving `material` and its closure takes, in bytes:
    /// the tables kept for the exits (half a byte per position and side for
    /// DTZ, two for DTM) and, for the material being solved, two bytes per
    /// position and side of the slices solved at once.
    pub fn memory_bound(material: &Material, metric: Metric) -> u64 {
        let target = material.normalized();
        let keeps = Keeps::of(metric);
        let mut kept = 0u64;
        let mut working = 0u64;
        for m in closure(material) {
            let layout = Layout::new(&m);
            if m != target || layout.has_pawns() {
                kept += Table::bytes(&layout, keeps);
            }
            let mut widest = HashMap::new();
            for s in &layout.slices {
                *widest.entry(s.advance).or_insert(0u64) += 1;
            }
            let at_once = widest.values().copied().max().unwrap_or(1);
            working = working.max(at_once * 4 * layout.entries as u64);
        }
        kept + working
    }

    /// Solves `plan.material` (and its closure, or reads them from the
    /// cache) and returns its statistics document, as `scan` prints it plus
    /// the engine, rule and metric.
    ///
    /// # Errors
    ///
    /// [`Error::Material`] for a material the solver does not take;
    /// [`Error::Memory`] if the solve could need more memory than it may
    /// take; [`Error::Output`] if the cache cannot be written;
    /// [`Error::Other`] if a depth exceeds what the solver's values hold.
    pub fn stats(&self, plan: &SolvePlan, progress: &dyn Progress) -> Result<ScanStats> {
        plan.validate()?;
        self.check_memory(&plan.material, plan.metric)?;
        let target = plan.material.normalized();
        let counting = Counting::new(
            &Layout::new(&target),
            &plan.material,
            plan.rule,
            plan.raw,
            plan.shard,
        );
        let mut run = Run {
            solver: self,
            rule: plan.rule,
            metric: plan.metric,
            tables: HashMap::new(),
        };
        let order = closure(&plan.material);
        let mut stats = counting.empty();
        for (i, m) in order.iter().enumerate() {
            let is_target = *m == target;
            let part = run.material(m, i, order.len(), is_target.then_some(&counting), progress)?;
            if let Some(part) = part {
                stats = part;
            }
        }
        stats.shard = plan.shard;
        if plan.metric == Metric::Dtr {
            stats.white.count_rules();
            stats.black.count_rules();
        }
        stats.engine = Some("solve".to_owned());
        stats.rule = Some(plan.rule);
        stats.metric = Some(plan.metric);
        Ok(stats)
    }

    fn check_memory(&self, material: &Material, metric: Metric) -> Result<()> {
        let needed = Self::memory_bound(material, metric);
        if let Some(limit) = self.memory.bytes() {
            if needed > limit {
                return Err(Error::Memory {
                    needed_for: format!("solve {material}"),
                    engine: "the solver",
                    instead: None,
                    needed,
                    limit,
                });
            }
        }
        Ok(())
    }
}

/// Solves `plan` with no cache and no memory limit (tests, one-off use).
///
/// # Errors
///
/// As [`Solver::stats`].
pub fn solve_stats(plan: &SolvePlan, progress: &dyn Progress) -> Result<ScanStats> {
    Solver::new(None, MemoryLimit::Bytes(u64::MAX)).stats(plan, progress)
}

/// One run of the solver: the tables solved or read so far, by table name.
struct Run<'s> {
    solver: &'s Solver,
    rule: Rule,
    metric: Metric,
    tables: HashMap<String, Arc<Table>>,
}

fn cache_error(path: &std::path::Path, e: std::io::Error) -> Error {
    Error::Output {
        path: path.to_path_buf(),
        error: e,
    }
}

impl Run<'_> {
    /// Makes the table of `material` (whose closure is done): read from the
    /// cache, or solved and written to it. With `counting`, returns the
    /// material's statistics.
    fn material(
        &mut self,
        material: &Material,
        index: usize,
        count: usize,
        counting: Option<&Counting>,
        progress: &dyn Progress,
    ) -> Result<Option<ScanStats>> {
        let layout = Layout::new(material);
        let keeps = Keeps::of(self.metric);
        // The table of the material solved is needed for its pawn pushes,
        // and by the materials above it; a pawnless one at the top needs
        // none.
        let keep = counting.is_none() || layout.has_pawns();
        if let Some(cache) = &self.solver.cache {
            match cache.open(&layout, self.rule, self.metric) {
                Ok(cached) => {
                    progress.stage(
                        &format!("read {}", material.table_name()),
                        index,
                        count,
                        layout.total_entries() as u64,
                    );
                    match self.read(&layout, &cached, keep, counting, progress) {
                        Ok(stats) => return Ok(stats),
                        Err(CacheError::Damaged(why)) => {
                            progress.note(&format!("damaged cache file, solving again: {why}"))
                        }
                        Err(CacheError::Io(e)) => return Err(cache_error(cached.path(), e)),
                        Err(CacheError::Missing) => {}
                    }
                }
                Err(CacheError::Missing) => {}
                Err(CacheError::Damaged(why)) => {
                    progress.note(&format!("damaged cache file, solving again: {why}"))
                }
                Err(CacheError::Io(e)) => {
                    return Err(cache_error(
                        &cache.path(&material.table_name(), self.rule, self.metric),
                        e,
                    ))
                }
            }
        }
        progress.stage(
            &format!("solve {}", material.table_name()),
            index,
            count,
            layout.total_entries() as u64,
        );
        let own = Table::new(layout.clone(), self.rule, keeps);
        let writer = match &self.solver.cache {
            Some(cache) => Some(
                cache
                    .writer(&layout, self.rule, self.metric)
                    .map_err(|e| cache_error(cache.dir(), e))?,
            ),
            None => None,
        };
        let tables = &self.tables;
        let lookup = |m: &Material| tables.get(&m.table_name()).map(|t| &**t);
        let exits = MaterialExits::new(&layout, &own, self.rule, keeps, &lookup);
        let no_rule_exits = (self.metric == Metric::Dtr)
            .then(|| MaterialExits::new(&layout, &own, self.rule, keeps, &lookup).without_rule());
        // Slices by advance, the most advanced first; those of one advance
        // lead into none of each other and are solved side by side.
        let mut groups: Vec<u32> = layout.slices.iter().map(|s| s.advance).collect();
        groups.sort_unstable();
        groups.dedup();
        let step = |n: u64| progress.advance(n);
        let stats = std::sync::Mutex::new(counting.map(Counting::empty));
        for advance in groups.into_iter().rev() {
            let slices: Vec<usize> = (0..layout.slices.len())
                .filter(|&s| layout.slices[s].advance == advance)
                .collect();
            slices.par_iter().try_for_each(|&s| {
                let values = match &no_rule_exits {
                    // DTR starts from who wins without a rule.
                    Some(plain) => {
                        let no_rule = solve_slice(&layout, s, plain, &step)?;
                        dtr::solve_slice_dtr(&layout, s, &no_rule, &exits)?
                    }
                    None => solve_slice(&layout, s, &exits, &step)?,
                };
                if keep {
                    own.set_slice(s, &values);
                }
                if let (Some(w), Some(cache)) = (&writer, &self.solver.cache) {
                    w.add_slice(s, &values)
                        .map_err(|e| cache_error(cache.dir(), e))?;
                }
                if let Some(c) = counting {
                    let part = c.slice(&layout, s, &values);
                    let mut st = stats.lock().expect("no panic while held");
                    *st.as_mut().expect("counting") += &part;
                }
                Ok::<(), Error>(())
            })?;
        }
        drop(exits);
        drop(no_rule_exits);
        if let (Some(w), Some(cache)) = (writer, &self.solver.cache) {
            w.finish().map_err(|e| cache_error(cache.dir(), e))?;
        }
        if keep {
            self.tables.insert(material.table_name(), Arc::new(own));
        }
        Ok(stats.into_inner().expect("no panic while held"))
    }

    /// Reads a cached material into its table (if `keep`) and its
    /// statistics (with `counting`).
    fn read(
        &mut self,
        layout: &Layout,
        cached: &cache::CachedTable,
        keep: bool,
        counting: Option<&Counting>,
        progress: &dyn Progress,
    ) -> std::result::Result<Option<ScanStats>, CacheError> {
        let own = keep.then(|| Table::new(layout.clone(), self.rule, Keeps::of(self.metric)));
        let mut stats = counting.map(Counting::empty);
        for s in 0..layout.slices.len() {
            let values = cached.slice(s)?;
            if let Some(t) = &own {
                t.set_slice(s, &values);
            }
            if let (Some(c), Some(st)) = (counting, stats.as_mut()) {
                *st += &c.slice(layout, s, &values);
            }
            progress.advance(layout.entries as u64);
        }
        if let Some(t) = own {
            self.tables
                .insert(layout.material.table_name(), Arc::new(t));
        }
        Ok(stats)
    }
}
