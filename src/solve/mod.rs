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
//! Under a memory limit below the whole solve's bound, those tables are
//! read page by page from their files (`pages`) and the slices are solved
//! one at a time ([`Solver::memory_plan`]).
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
//! Layer: an engine, above [`crate::model`] (it fills the statistics
//! document and the position report that the other engines fill, and
//! implements the line oracle so that a solved position prints as a probed
//! one) and [`crate::chess`], which it uses; it does not use
//! [`crate::scan`] or [`crate::probe`], its peers, nor [`crate::tables`], so
//! its results are independent of Syzygy.

// Slots index parallel arrays (pieces, squares, slot maps); indexed loops
// say that best.
#![allow(clippy::needless_range_loop)]

mod board;
mod cache;
mod cache_error;
mod checkpoint;
mod compact;
mod drive;
mod dtr;
mod exits;
mod geometry;
mod layout;
mod levels;
mod pages;
mod positions;
mod progress;
mod reach;
mod retro;
mod spill;
mod stats;
mod table;
#[cfg(test)]
mod tests;
mod value;

use std::{
    collections::{BTreeMap, BTreeSet, HashMap, HashSet},
    sync::{Arc, Mutex},
};

use rayon::prelude::*;

pub use self::cache::Cache;
pub use self::positions::{Positions, Value};
pub use self::progress::{NoProgress, Progress};
use self::{
    cache_error::{output_error as cache_error, CacheError},
    exits::MaterialExits,
    layout::Layout,
    progress::describe,
    retro::solve_slice,
    stats::Counting,
    table::{Keeps, Table},
    value::SliceValues,
};
pub use crate::chess::rule::{Metric, Rule, MAX_RULE_MOVES};
use crate::{
    chess::material::Material,
    error::{Error, Result},
    memory::MemoryLimit,
    model::{ScanStats, Shard},
};

/// Most pieces the solver takes, kings included.
pub const MAX_SOLVE_PIECES: usize = 6;

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
#[derive(Clone)]
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
    /// Count only the positions this accepts (a rule's condition), if set.
    pub filter: Option<BoardFilter>,
    /// The pawns the positions `filter` accepts can have, if known: a
    /// material with pawns is then solved only in the slices of such pawns
    /// and those their moves reach (with [`Solver::stats_many`], when every
    /// plan gives this). It must accept the pawns of every position that
    /// `filter` accepts; the counts would miss positions otherwise.
    pub pawns: Option<PawnFilter>,
}

/// A condition on positions, on the board as the material is written (a
/// claim's filter, say).
pub type BoardFilter = Arc<dyn Fn(&shakmaty::Board) -> bool + Send + Sync>;

/// A condition on the pawns of a position (each pawn's colour and square, as
/// the material is written) that every position some [`BoardFilter`]
/// accepts meets: the pawn on the seventh rank of "KQP v KQ with the pawn on
/// the seventh rank".
pub type PawnFilter = Arc<dyn Fn(&[(shakmaty::Color, shakmaty::Square)]) -> bool + Send + Sync>;

impl std::fmt::Debug for Given {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0 { "<filter>" } else { "none" })
    }
}

/// Whether a plan's filter is given (a closure has no `Debug` of its own).
struct Given(bool);

impl std::fmt::Debug for SolvePlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SolvePlan")
            .field("material", &self.material)
            .field("rule", &self.rule)
            .field("metric", &self.metric)
            .field("shard", &self.shard)
            .field("raw", &self.raw)
            .field("filter", &Given(self.filter.is_some()))
            .field("pawns", &Given(self.pawns.is_some()))
            .finish()
    }
}

impl SolvePlan {
    /// What counts this plan's positions in `layout` (the plan's material's).
    fn counting(&self, layout: &Layout) -> Counting {
        Counting::new(
            layout,
            &self.material,
            self.rule,
            self.raw,
            self.shard,
            self.filter.clone(),
        )
    }

    /// Checks that the solver can take the material and the metric.
    ///
    /// # Errors
    ///
    /// [`Error::Material`] for more than [`MAX_SOLVE_PIECES`] pieces;
    /// [`Error::Usage`] for a metric the solver does not compute.
    pub fn validate(&self) -> Result<()> {
        check_solved(self.metric)?;
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

/// Refuses a metric the solver does not compute ([`Metric::solved`]): the
/// claims' DTC and rules of play.
fn check_solved(metric: Metric) -> Result<()> {
    if metric.solved() {
        Ok(())
    } else {
        Err(Error::Usage(format!(
            "the solver computes dtz, dtm or dtr, not {}",
            metric.as_str()
        )))
    }
}

/// Solves materials and their closures, reusing solved ones from a cache.
#[derive(Clone, Debug)]
pub struct Solver {
    cache: Option<Cache>,
    memory: MemoryLimit,
    /// Pages of this many bytes whatever the limit (tests of the paged
    /// path on materials that fit whole).
    forced_pages: Option<u64>,
    /// Fail each material's solve once it has solved this many slices
    /// (tests of resuming an interrupted solve).
    interrupt_after: Option<usize>,
    /// Work on a slice between two of its checkpoints, at least.
    checkpoint_every: std::time::Duration,
    /// Fail a slice's solve once it has written this many checkpoints
    /// (tests of resuming from one).
    stop_after_checkpoints: Option<usize>,
    /// Solve a rule's DTZ without pawns in half a byte per position from
    /// this many entries on ([`COMPACT_ENTRIES`]; tests lower it).
    compact_from: usize,
}

/// The entries from which a material without pawns is solved for a rule's
/// DTZ in half a byte per position and side (`compact`) instead of two
/// bytes: the 6-piece materials (KNN v KNN has 1.9 G), where two bytes
/// take 7 to 31 GB. A paged solve (below the whole bound) solves every
/// material without pawns that way.
pub const COMPACT_ENTRIES: usize = 1 << 30;

/// Whether `layout` is solved for `metric` in half a byte per position and
/// side, with entries from `from` on.
fn uses_compact(layout: &Layout, metric: Metric, from: usize) -> bool {
    !layout.has_pawns() && metric == Metric::Dtz && layout.entries >= from
}

/// Work on a slice between two of its checkpoints by default: a killed
/// solve loses at most this much of a slice (and the level it was in).
pub const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_secs(300);

impl Solver {
    /// A solver keeping solved materials in `cache` (none: solve everything
    /// every time, write nothing) and refusing work beyond `memory`.
    pub fn new(cache: Option<Cache>, memory: MemoryLimit) -> Solver {
        Solver {
            cache,
            memory,
            forced_pages: None,
            interrupt_after: None,
            checkpoint_every: CHECKPOINT_EVERY,
            stop_after_checkpoints: None,
            // A measurement knob (docs/performance.md): the memory plans
            // do not follow it, so it is for materials that fit anyway.
            compact_from: std::env::var("FIFTYMOVE_SOLVE_COMPACT_FROM")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(COMPACT_ENTRIES),
        }
    }

    /// This solver, solving a rule's DTZ without pawns in half a byte per
    /// position from `entries` entries on (0: always).
    #[cfg(test)]
    pub(crate) fn compact_from(mut self, entries: usize) -> Solver {
        self.compact_from = entries;
        self
    }

    /// This solver, saving a slice's values to its cache every `every` of
    /// work on the slice ([`CHECKPOINT_EVERY`] by default; zero: at every
    /// level), between two levels, so that a solve killed in a slice
    /// resumes from there. A slice's checkpoint is removed once the slice
    /// is in the cache file.
    pub fn checkpoint_every(mut self, every: std::time::Duration) -> Solver {
        self.checkpoint_every = every;
        self
    }

    /// This solver, failing a slice's solve once it has written `n`
    /// checkpoints, as a solve killed there would stop.
    #[cfg(test)]
    pub(crate) fn stopped_after_checkpoints(mut self, n: usize) -> Solver {
        self.stop_after_checkpoints = Some(n);
        self
    }

    /// This solver, reading its tables page by page within `budget` bytes
    /// of pages whatever its limit (0: only the pages each thread holds).
    #[cfg(test)]
    pub(crate) fn with_pages(mut self, budget: u64) -> Solver {
        self.forced_pages = Some(budget);
        self
    }

    /// This solver, failing every material's solve once it has solved `n`
    /// slices, as a solve killed there would stop.
    #[cfg(test)]
    pub(crate) fn interrupted_after(mut self, n: usize) -> Solver {
        self.interrupt_after = Some(n);
        self
    }

    /// [`Error::Inconsistent`] if this solver is to stop a material's solve
    /// after `solved` slices.
    fn interrupt_after(&self, solved: usize) -> Result<()> {
        match self.interrupt_after {
            Some(n) if solved >= n => Err(Error::inconsistent(
                "the solver",
                format!("interrupted after {n} slices, as asked"),
            )),
            _ => Ok(()),
        }
    }

    /// The memory one material's solve works in besides the tables: the
    /// values of the slices solved side by side (those of one pawn
    /// advance).
    fn working_bytes(layout: &Layout, metric: Metric) -> u64 {
        Self::working_bytes_of(layout, metric, None)
    }

    /// [`Solver::working_bytes`] of a solve of `only` these slices (all if
    /// `None`).
    fn working_bytes_of(layout: &Layout, metric: Metric, only: Option<&BTreeSet<usize>>) -> u64 {
        let mut widest = HashMap::new();
        for (i, s) in layout.slices.iter().enumerate() {
            if only.is_none_or(|o| o.contains(&i)) {
                *widest.entry(s.advance).or_insert(0u64) += 1;
            }
        }
        let at_once = widest.values().copied().max().unwrap_or(1);
        if uses_compact(layout, metric, COMPACT_ENTRIES) {
            return Self::compact_bytes(layout);
        }
        at_once * Self::slice_entry_bytes(metric) * layout.entries as u64
    }

    /// The working set of a solve in half a byte per position and side:
    /// the codes; the values of a chunk made again from the spill (two
    /// sides, twice while gathered: 32 MiB) and its frames being compressed
    /// or a batch of records being spilled (32 MiB); and the sets of blocks
    /// by level, of the resolved and of the failed checks (an eighth of a
    /// byte per block, set and level, for up to 1,024 levels: KRN v KNN's
    /// deepest DTZ under the 50-move rule is 485).
    fn compact_bytes(layout: &Layout) -> u64 {
        let blocks = layout.entries.div_ceil(levels::BLOCK) as u64;
        layout.entries as u64 + (64 << 20) + blocks.div_ceil(8) * 2 * 1024
    }

    /// Bytes per entry (position, both sides) of a slice being solved: two
    /// bytes per side of values; DTR, per side, keeps the values without a
    /// rule it starts from (2), its state (8) and the result (2), all alive
    /// at once while the result is made, and half a byte per entry marks
    /// the changes; two more bytes per side are counted, which a bound on
    /// the best DTR so far took until the state alone gave it (KRBvKR: 3.47
    /// GB measured peak then, 3.39 GB by this count).
    fn slice_entry_bytes(metric: Metric) -> u64 {
        if metric == Metric::Dtr {
            4 + 16 + 4 + 4
        } else {
            4
        }
    }

    /// The most memory solving `material` and its closure takes, in bytes,
    /// with every table whole in memory: the tables kept for the exits
    /// (half a byte per position and side for DTZ, two for DTM and DTR)
    /// and, for the material being solved, two bytes per position and side
    /// of the slices solved at once (fourteen for DTR). A solve under a
    /// smaller limit reads its tables page by page instead
    /// ([`Solver::memory_plan`]).
    pub fn memory_bound(material: &Material, metric: Metric) -> u64 {
        Self::whole_bound(material, metric, &|_| true).0
    }

    /// [`Solver::memory_bound`] of a solve that solves only the members of
    /// the closure `solves` takes (the others are read from the cache and
    /// held the same way), and the largest working set among those.
    fn whole_bound(
        material: &Material,
        metric: Metric,
        solves: &dyn Fn(&Material) -> bool,
    ) -> (u64, u64) {
        let target = material.normalized();
        let keeps = Keeps::of(metric);
        let mut kept = 0u64;
        let mut working = 0u64;
        for m in closure(material) {
            let layout = Layout::new(&m);
            if m != target || layout.has_pawns() {
                kept += Table::bytes(&layout, keeps);
            }
            if solves(&m) {
                working = working.max(Self::working_bytes(&layout, metric));
            }
        }
        (kept + working + PROCESS_BYTES, working)
    }

    /// Whether a solve of `target` under `rule` and `metric` solves `m`, a
    /// member of its closure, rather than reading it: the cache does not
    /// hold it, nor, for a member below the target under a rule's DTZ, its
    /// DTR, whose classes it reads instead (see `Run::classes_from_dtr`).
    /// Without a cache, every member is solved.
    fn solves(&self, m: &Material, target: &Material, rule: Rule, metric: Metric) -> bool {
        let Some(cache) = &self.cache else {
            return true;
        };
        let layout = Layout::new(m);
        if cache.open(&layout, rule, metric).is_ok() {
            return false;
        }
        let below = m.normalized() != target.normalized();
        !(below
            && matches!((rule, metric), (Rule::Moves(_), Metric::Dtz))
            && cache.open(&layout, Rule::None, Metric::Dtr).is_ok())
    }

    /// The members of `material`'s closure that a solve under `rule` and
    /// `metric` reads from the cache instead of solving them (see
    /// [`Solver::solves`]).
    fn cached_members(&self, material: &Material, rule: Rule, metric: Metric) -> HashSet<String> {
        closure(material)
            .iter()
            .filter(|m| !self.solves(m, material, rule, metric))
            .map(Material::table_name)
            .collect()
    }

    /// The values of the slice being solved when `m` is: the working set of
    /// one step of a paged solve (a paged solve takes every material
    /// without pawns in half a byte for DTZ).
    fn slice_bytes(m: &Material, metric: Metric) -> u64 {
        let layout = Layout::new(m);
        if uses_compact(&layout, metric, 0) {
            return Self::compact_bytes(&layout);
        }
        Self::slice_entry_bytes(metric) * layout.entries as u64
    }

    /// The slice values of a paged step that solves (`solving`) or reads
    /// `m`: none when it reads.
    fn step_slice_bytes(m: &Material, metric: Metric, solving: bool) -> u64 {
        if solving {
            Self::slice_bytes(m, metric)
        } else {
            0
        }
    }

    /// Bytes of the pages a paged step that solves (`solving`) or reads
    /// `m` can read at once: the sides of its children that its captures
    /// and promotions lead to (of a child with pawns, the slices one slice
    /// leads to), and with pawns, one side of each slice a push leads to
    /// (two per pawn, for the single and the double step; the slices
    /// solved before are not read again). A step that reads
    /// `m` counts it slice by slice from the file, not through pages.
    fn readable_bytes(m: &Material, metric: Metric, solving: bool) -> u64 {
        if !solving {
            return 0;
        }
        let per_entry = if Keeps::of(metric) == Keeps::Classes {
            1
        } else {
            2
        };
        // As the exits read them: the mover's opponent is to move after
        // it, in a table stored with colours swapped the mover.
        let mut sides: BTreeMap<String, (Material, [bool; 2])> = BTreeMap::new();
        for (child, mover) in m.successors_by_mover() {
            if !child.has_table() {
                continue;
            }
            let to_move = if child.is_flipped_in_table() {
                mover
            } else {
                !mover
            };
            let read = &mut sides
                .entry(child.table_name())
                .or_insert((child.normalized(), [false; 2]))
                .1;
            read[usize::from(to_move == shakmaty::Color::Black)] = true;
        }
        let own = Layout::new(m);
        let pawns = own.white_pawns + own.black_pawns;
        let children = sides
            .values()
            .map(|(t, read)| {
                let read_sides = read.iter().filter(|r| **r).count() as u64;
                let child = Layout::new(t);
                // A capture or promotion keeps the other pawns, so one
                // slice leads to one slice of a child with pawns per
                // pawn taken, per pawn's capture (two ways) and for
                // the pieces' captures; a child without pawns is read
                // all over, in its kings' order, not ours.
                let slices = child.slices.len().min(3 * pawns + 1);
                read_sides * per_entry * (slices * child.entries) as u64
            })
            .fold(0, u64::saturating_add);
        let pushed = (2 * pawns).min(own.slices.len()) as u64;
        let own = if pawns > 0 {
            pushed * per_entry * own.entries as u64
        } else {
            0
        };
        children.saturating_add(own)
    }

    /// The least pages a paged solve of `m` is given
    /// ([`pages::Pages::minimum_budget`] of the pages its exits read).
    fn least_pages(m: &Material, metric: Metric) -> u64 {
        pages::Pages::minimum_budget(Self::readable_bytes(m, metric, true))
    }

    /// The pages of the step that solves (`solving`) or reads `m` in a
    /// paged solve within `limit` bytes: `Ok` what the step's slice (none
    /// when it reads) leaves, up to room for every page it can read;
    /// `Err` the least it is given, if what is left is less.
    ///
    /// Up to every page, not a fixed share: the exits of a slice next to a
    /// promotion read the promoted materials' pages in the order of their
    /// own kings, not of those tables, so pages fewer than a table's
    /// reached side are read again and again (KNNN v KP with 1 GiB of
    /// pages: 91% of its time reading pages, its first slice unfinished
    /// after 9 minutes).
    fn step_pages(
        m: &Material,
        metric: Metric,
        limit: u64,
        solving: bool,
    ) -> std::result::Result<u64, u64> {
        let least = Self::least_pages(m, metric);
        let most = pages::Pages::full_budget(Self::readable_bytes(m, metric, solving)).max(least);
        // The pages and their slack fill what the slice leaves.
        let room = limit
            .checked_sub(PROCESS_BYTES + Self::step_slice_bytes(m, metric, solving))
            .map(|r| (r - r / (PAGE_SLACK + 1)).min(most));
        match room {
            Some(r) if r >= least => Ok(r),
            _ => Err(least),
        }
    }

    /// The plan of a paged solve of `material` within `limit` bytes: each
    /// step's pages fill what its slice leaves of the limit, so the bound
    /// is at most the limit when every step has its least pages; if one
    /// has not, the bound is the least that gives each step its least
    /// pages (over the limit, and refused).
    fn paged_plan(
        material: &Material,
        metric: Metric,
        limit: u64,
        solves: &dyn Fn(&Material) -> bool,
    ) -> MemoryPlan {
        let mut bytes = 0;
        let mut largest = 0;
        let mut working = 0;
        let mut fits = true;
        for m in &closure(material) {
            let solving = solves(m);
            let pages = Self::step_pages(m, metric, limit, solving).unwrap_or_else(|least| {
                fits = false;
                least
            });
            let slice = Self::step_slice_bytes(m, metric, solving);
            largest = largest.max(pages);
            working = working.max(slice);
            bytes = bytes.max(PROCESS_BYTES + slice + with_slack(pages));
        }
        MemoryPlan {
            bytes,
            pages: Some(largest),
            within: fits.then_some(limit),
            working,
        }
    }

    /// How a solve of `material` holds its tables under this solver's
    /// memory limit, and the memory it then takes: whole, if that fits
    /// (the fastest) and takes at most [`WHOLE_MOST`]; else page by page,
    /// each step with the pages its slice leaves of the limit (at most
    /// [`WHOLE_MOST`]), up to every page it can read (see `paged_plan`).
    /// The bound is what `solve --plan` prints and what the limit is
    /// checked against before a solve starts.
    ///
    /// Members of the closure that the cache holds under `rule` and
    /// `metric` are read, not solved, so their working sets do not count.
    pub fn memory_plan(&self, material: &Material, rule: Rule, metric: Metric) -> MemoryPlan {
        self.memory_plan_and_reads(material, rule, metric).0
    }

    /// [`Solver::memory_plan`], and the members it reads from the cache.
    fn memory_plan_and_reads(
        &self,
        material: &Material,
        rule: Rule,
        metric: Metric,
    ) -> (MemoryPlan, HashSet<String>) {
        let cached = self.cached_members(material, rule, metric);
        let plan =
            self.memory_plan_solving(material, metric, &|m| !cached.contains(&m.table_name()));
        (plan, cached)
    }

    /// [`Solver::memory_plan`] of a solve that solves the members of the
    /// closure `solves` takes and reads the others.
    fn memory_plan_solving(
        &self,
        material: &Material,
        metric: Metric,
        solves: &dyn Fn(&Material) -> bool,
    ) -> MemoryPlan {
        if let Some(pages) = self.forced_pages {
            let slice = closure(material)
                .iter()
                .filter(|m| solves(m))
                .map(|m| Self::slice_bytes(m, metric))
                .max()
                .unwrap_or(0);
            return MemoryPlan {
                bytes: PROCESS_BYTES + slice + with_slack(pages),
                pages: Some(pages),
                within: None,
                working: slice,
            };
        }
        let (whole, working) = Self::whole_bound(material, metric, solves);
        // A solve holds its closure whole only up to `WHOLE_MOST`, whatever
        // the limit.
        let most = self
            .memory
            .bytes()
            .map_or(WHOLE_MOST, |l| l.min(WHOLE_MOST));
        if whole > most {
            return Self::paged_plan(material, metric, most, solves);
        }
        MemoryPlan {
            bytes: whole,
            pages: None,
            within: None,
            working,
        }
    }

    /// The memory plan of a solve of `material`, if it fits the limit, and
    /// the members of the closure it reads from the cache.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] if not even the smallest paged solve fits; it
    /// names that smallest bound.
    fn check_memory(
        &self,
        material: &Material,
        rule: Rule,
        metric: Metric,
    ) -> Result<(MemoryPlan, HashSet<String>)> {
        let (plan, reads) = self.memory_plan_and_reads(material, rule, metric);
        self.refuse_over_limit(plan.bytes, format!("solve {material}"))?;
        Ok((plan, reads))
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
    /// [`Error::TooDeep`] if a depth exceeds what the solver's values hold.
    pub fn stats(&self, plan: &SolvePlan, progress: &dyn Progress) -> Result<ScanStats> {
        Ok(self
            .stats_many(std::slice::from_ref(plan), progress)?
            .remove(0))
    }

    /// The statistics of several plans of one material, rule and metric
    /// (different filters, shards or raw counts) from one solve, in the
    /// plans' order.
    ///
    /// # Errors
    ///
    /// As [`Solver::stats`]; [`Error::Usage`] if the plans differ in
    /// material, rule or metric, or there are none.
    pub fn stats_many(
        &self,
        plans: &[SolvePlan],
        progress: &dyn Progress,
    ) -> Result<Vec<ScanStats>> {
        let Some(first) = plans.first() else {
            return Err(Error::Usage("a solve needs a plan".into()));
        };
        if plans
            .iter()
            .any(|p| (p.material, p.rule, p.metric) != (first.material, first.rule, first.metric))
        {
            return Err(Error::Usage(
                "one solve serves plans of one material, rule and metric".into(),
            ));
        }
        first.validate()?;
        let target = first.material.normalized();
        let layout = Layout::new(&target);
        if let Some(starts) = start_slices(plans, &layout) {
            let pawns: Vec<(Vec<u8>, Vec<u8>)> =
                starts.iter().map(|&s| layout.slice_pawns(s)).collect();
            let order = reach_order(vec![target], reach::reach_slices(&target, &pawns));
            return self.slices_stats(plans, order, progress);
        }
        let (memory, reads) = self.check_memory(&first.material, first.rule, first.metric)?;
        let countings: Vec<Counting> = plans.iter().map(|p| p.counting(&layout)).collect();
        let mut run = Run::new(self, first.rule, first.metric, memory, reads)?;
        let order = closure(&first.material);
        let mut all: Vec<ScanStats> = countings.iter().map(Counting::empty).collect();
        for (i, m) in order.iter().enumerate() {
            let is_target = *m == target;
            if !is_target && run.classes_from_dtr(m, i, order.len(), progress)? {
                run.release(&order[i + 1..]);
                continue;
            }
            let counting: &[Counting] = if is_target { &countings } else { &[] };
            let parts = run.material(m, i, order.len(), counting, None, progress)?;
            if is_target {
                all = parts;
            }
            run.release(&order[i + 1..]);
        }
        finish_documents(&mut all, plans);
        Ok(all)
    }

    /// The statistics of `plans` (of one material, rule and metric) from a
    /// solve of the materials and slices of `order` alone (each after what
    /// it reads, the plans' material last, in the slices that hold every
    /// position the plans count).
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] over the limit; the solver's errors otherwise.
    fn slices_stats(
        &self,
        plans: &[SolvePlan],
        order: Vec<(Material, Option<BTreeSet<usize>>)>,
        progress: &dyn Progress,
    ) -> Result<Vec<ScanStats>> {
        let first = &plans[0];
        let layout = Layout::new(&first.material.normalized());
        let countings: Vec<Counting> = plans.iter().map(|p| p.counting(&layout)).collect();
        let (mut all, _) = self.solve_order(
            &first.material,
            (first.rule, first.metric),
            &order,
            &countings,
            false,
            progress,
        )?;
        finish_documents(&mut all, plans);
        Ok(all)
    }

    /// Solves `material` under `rule` and `metric` in the slices that its
    /// slice `start` reaches, and what they read, and returns the values
    /// of its own slices solved (both sides, as the cache holds them). A
    /// line from a position of `start` never leaves those slices but into
    /// other materials: this is what it costs where the whole material is
    /// not cached (KQ P v KQ under rule 69: the one slice of the pawn on
    /// the seventh rank, not 24).
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] over the limit; the solver's errors otherwise.
    pub(crate) fn reached_values(
        &self,
        material: &Material,
        rule: Rule,
        metric: Metric,
        start: usize,
        progress: &dyn Progress,
    ) -> Result<BTreeMap<usize, SliceValues>> {
        let target = material.normalized();
        let layout = Layout::new(&target);
        let order = reach_order(
            vec![target],
            reach::reach_slices(&target, &[layout.slice_pawns(start)]),
        );
        let (_, values) =
            self.solve_order(material, (rule, metric), &order, &[], true, progress)?;
        Ok(values)
    }

    /// Solves the materials and slices of `order` (each after what it
    /// reads, `material` last) under a rule and metric: `material`'s
    /// statistics under `countings` and, with `capture`, the values of its
    /// slices solved. A member solved whole whose classes a cached DTR
    /// gives is read from that instead (`Run::classes_from_dtr`).
    fn solve_order(
        &self,
        material: &Material,
        (rule, metric): (Rule, Metric),
        order: &[(Material, Option<BTreeSet<usize>>)],
        countings: &[Counting],
        capture: bool,
        progress: &dyn Progress,
    ) -> Result<(Vec<ScanStats>, BTreeMap<usize, SliceValues>)> {
        let target = material.normalized();
        // The most memory at any step: the tables still needed then, and the
        // step's own working set (tables are dropped once nothing left
        // reads them).
        let keeps_of = Keeps::of(metric);
        let table_bytes = |m: &Material, only: &Option<BTreeSet<usize>>| {
            let l = Layout::new(m);
            let slices = only.as_ref().map_or(l.slices.len(), BTreeSet::len);
            Table::bytes_of_slices(&l, keeps_of, slices)
        };
        let mut needed = 0u64;
        for (i, (m, only)) in order.iter().enumerate() {
            let wanted: std::collections::HashSet<String> = order[i..]
                .iter()
                .flat_map(|(m, _)| m.children())
                .map(|m| m.table_name())
                .collect();
            let alive: u64 = order[..i]
                .iter()
                .filter(|(m, _)| wanted.contains(&m.table_name()))
                .map(|(m, only)| table_bytes(m, only))
                .sum();
            let mut working = table_bytes(m, only)
                + Self::working_bytes_of(&Layout::new(m), metric, only.as_ref());
            if capture && *m == target {
                // The values kept: two per entry and side.
                let slices = only.as_ref().map_or(0, BTreeSet::len) as u64;
                working += slices * Layout::new(m).entries as u64 * 4;
            }
            needed = needed.max(alive + working + PROCESS_BYTES);
        }
        self.refuse_over_limit(needed, format!("solve {material} (some slices)"))?;
        let mut run = Run::new(
            self,
            rule,
            metric,
            MemoryPlan {
                bytes: needed,
                pages: None,
                within: None,
                working: 0,
            },
            HashSet::new(),
        )?;
        if capture {
            run.captured = Some((target.table_name(), Mutex::new(BTreeMap::new())));
        }
        let mut all: Vec<ScanStats> = countings.iter().map(Counting::empty).collect();
        let still: Vec<Material> = order.iter().map(|(m, _)| *m).collect();
        for (i, (m, only)) in order.iter().enumerate() {
            let from_dtr = *m != target
                && only.is_none()
                && run.classes_from_dtr(m, i, order.len(), progress)?;
            if !from_dtr {
                let counting: &[Counting] = if *m == target { countings } else { &[] };
                let parts = run.material(m, i, order.len(), counting, only.as_ref(), progress)?;
                if *m == target {
                    all = parts;
                }
            }
            run.release(&still[i + 1..]);
        }
        let values = run
            .captured
            .take()
            .map(|(_, v)| v.into_inner().expect("no panic while held"))
            .unwrap_or_default();
        Ok((all, values))
    }

    /// [`Error::Memory`] if `needed` bytes are over the limit.
    fn refuse_over_limit(&self, needed: u64, what: String) -> Result<()> {
        match self.memory.bytes() {
            Some(limit) if needed > limit => Err(Error::Memory {
                needed_for: what,
                engine: "the solver",
                instead: None,
                needed,
                limit,
            }),
            _ => Ok(()),
        }
    }
}

/// How a solve holds the tables its exits read, and the memory it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryPlan {
    /// The most memory the solve takes, in bytes.
    pub bytes: u64,
    /// `None`: every table whole in memory; else the tables are read page
    /// by page from their files, one slice solved at a time, in at most
    /// this many bytes of pages (each material's step has what its slice
    /// leaves of the limit).
    pub pages: Option<u64>,
    /// The limit each step's pages are worked out from (`None` with pages:
    /// the same pages for every step).
    within: Option<u64>,
    /// The largest working set (slice values) of a step the plan solves.
    working: u64,
}

/// The most a solve holds whole, whatever the limit, and the most a paged
/// solve takes: the project's 12 GB target. A closure larger than that is
/// a 6-piece material with pawns (KNNN v KP: 12.4 GB whole), whose own
/// slices and promotions the pages hold side by side as they are read.
pub const WHOLE_MOST: u64 = 12_000_000_000;

/// A paged solve's pages take up to this share more of the process's
/// memory than their values (the budget): the heap keeps blocks of pages
/// dropped by one thread that another thread's pages do not reuse. KNNN v
/// KP's solve peaked 51 MB (0.9%) above its pages' budget of 5.58 GB,
/// its slices and [`PROCESS_BYTES`]; a 32nd (3.1%) is counted.
const PAGE_SLACK: u64 = 32;

/// `pages` bytes of pages with their slack ([`PAGE_SLACK`]).
fn with_slack(pages: u64) -> u64 {
    pages + pages / PAGE_SLACK
}

/// Memory a solve takes besides its tables and slices: the program, thread
/// stacks and the cache's compression buffers (KRBvKR's DTR solve peaked
/// 54 MB above its tables and slices).
const PROCESS_BYTES: u64 = 128 << 20;

/// One material of a solve's plan: what a job that solves it (into the
/// cache) needs, for schedulers such as SLURM.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PlannedMaterial {
    /// The material (normalised table name).
    pub material: String,
    /// The materials whose solved tables it reads (its captures and
    /// promotions that have tables): they must be solved first.
    pub needs: Vec<String>,
    /// The memory bound of its solve with the closure read from the cache,
    /// in bytes: what a job that solves it once its needs are solved takes,
    /// and what `--memory-limit` is checked against then. Without a cache,
    /// the bound of solving its whole closure.
    pub memory_bytes: u64,
    /// With a memory limit below the whole solve's bound: the bytes of
    /// pages its tables are read in (see [`MemoryPlan`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_bytes: Option<u64>,
    /// Whether the cache already holds it.
    pub cached: bool,
}

impl Solver {
    /// The closure of `material` in solving order, each with what it needs
    /// and whether the cache holds it under `rule` and `metric`.
    pub fn plan(&self, material: &Material, rule: Rule, metric: Metric) -> Vec<PlannedMaterial> {
        closure(material)
            .iter()
            .map(|m| {
                // A job of one material runs once its needs are in the
                // cache: it solves that material alone. Without a cache,
                // a solve makes the whole closure.
                let memory = match self.cache {
                    Some(_) => self.memory_plan_solving(m, metric, &|x| x == m),
                    None => self.memory_plan_solving(m, metric, &|_| true),
                };
                (m, memory)
            })
            .map(|(m, memory)| PlannedMaterial {
                material: m.table_name(),
                needs: m
                    .children()
                    .iter()
                    .filter(|c| c.has_table())
                    .map(Material::table_name)
                    .collect(),
                memory_bytes: memory.bytes,
                page_bytes: memory.pages,
                cached: self
                    .cache
                    .as_ref()
                    .is_some_and(|c| c.open(&Layout::new(m), rule, metric).is_ok()),
            })
            .collect()
    }
}

/// `roots` and every material their captures and promotions reach,
/// normalised, depth first: each right after what it reads, so that a table
/// can be dropped soon after its last reader is solved. With the closure
/// sorted by size instead, every 5-piece table of a KRPvKBP slice would be
/// held at once (some 25 GiB for DTR).
fn depth_first(roots: Vec<Material>) -> Vec<Material> {
    fn visit(m: Material, order: &mut Vec<Material>, seen: &mut std::collections::HashSet<String>) {
        if !m.has_table() || !seen.insert(m.table_name()) {
            return;
        }
        for child in m.children() {
            visit(child, order, seen);
        }
        order.push(m);
    }
    let mut order = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for root in roots {
        visit(root, &mut order, &mut seen);
    }
    order
}

/// The materials one capture away from `material`, normalised, by name: a
/// slice of frozen pawns leads to them alone (a frozen pawn moves only by
/// capturing, and no pawn promotes before one does).
fn frozen_roots(material: &Material) -> Vec<Material> {
    let mut captures: Vec<Material> = material
        .captures()
        .iter()
        .map(Material::normalized)
        .collect();
    captures.sort_by_key(Material::table_name);
    captures
}

/// What the solve of the slice of `material` (as written) whose pawns are
/// frozen on `pawns` (`(colour, square)`, as written) has to make first:
/// each material, normalised, with the number of its slices needed
/// (`None`: solved whole, as pawnless ones are), in solving order. `None`
/// if the pawns are not frozen.
pub fn frozen_reach(
    material: &Material,
    pawns: &[(shakmaty::Color, shakmaty::Square)],
) -> Option<Vec<(Material, Option<usize>)>> {
    let written: Vec<(shakmaty::Color, u8)> = pawns.iter().map(|(c, s)| (*c, *s as u8)).collect();
    let reached = reach::reach(material, &written)?;
    Some(
        reach_order(frozen_roots(material), reached)
            .into_iter()
            .map(|(m, only)| (m, only.map(|o| o.len())))
            .collect(),
    )
}

/// The materials `reached` holds, each with the slices needed (`None`:
/// whole), in the order of [`depth_first`] from `roots`. Every material
/// reached is in that order (a search step is a capture or promotion, as
/// [`Material::children`] lists them); one left out would stop the solve at
/// its first exit into it.
fn reach_order(
    roots: Vec<Material>,
    mut reached: reach::Reach,
) -> Vec<(Material, Option<BTreeSet<usize>>)> {
    depth_first(roots)
        .iter()
        .filter_map(|m| reached.needed.remove(&m.table_name()))
        .collect()
}

/// The slices of `layout` (the plans' material) that hold every position
/// `plans` count, where each plan says which pawns its positions can have
/// ([`SolvePlan::pawns`]); `None` to solve the material whole (no pawns, a
/// plan without the condition, or every slice wanted). The counting reads
/// a slice's positions in its own placement of the pawns (of a placement
/// and its mirror image, the one the slice keeps), and so does this.
fn start_slices(plans: &[SolvePlan], layout: &Layout) -> Option<BTreeSet<usize>> {
    if !layout.has_pawns() {
        return None;
    }
    let conditions: Vec<&PawnFilter> = plans
        .iter()
        .map(|p| p.pawns.as_ref())
        .collect::<Option<_>>()?;
    let flipped = plans[0].material.is_flipped_in_table();
    let starts: BTreeSet<usize> = (0..layout.slices.len())
        .filter(|&s| {
            let (white, black) = layout.slice_pawns(s);
            // In the colours as written: a material flipped in its table
            // has them swapped, and the board turned over.
            let (turn, ours, theirs) = if flipped {
                (56, &black, &white)
            } else {
                (0, &white, &black)
            };
            let written: Vec<(shakmaty::Color, shakmaty::Square)> = ours
                .iter()
                .map(|&sq| (shakmaty::Color::White, sq))
                .chain(theirs.iter().map(|&sq| (shakmaty::Color::Black, sq)))
                .map(|(c, sq)| (c, shakmaty::Square::new(u32::from(sq ^ turn))))
                .collect();
            conditions.iter().any(|c| c(&written))
        })
        .collect();
    (!starts.is_empty() && starts.len() < layout.slices.len()).then_some(starts)
}

/// Fills in what the plans' documents say of how they were made.
fn finish_documents(all: &mut [ScanStats], plans: &[SolvePlan]) {
    for (stats, plan) in all.iter_mut().zip(plans) {
        stats.shard = plan.shard;
        if plan.metric == Metric::Dtr {
            stats.white.count_rules();
            stats.black.count_rules();
        }
        stats.engine = Some("solve".to_owned());
        stats.rule = Some(plan.rule);
        stats.metric = Some(plan.metric);
    }
}

impl Solver {
    /// The statistics of one slice of `plans`' material (of up to six
    /// pieces) whose pawns are *frozen*: each stands blocked by an enemy
    /// pawn on the square in front of it, so until a capture only the kings
    /// and pieces move, and every zeroing move is a capture into a material
    /// of one piece fewer. `pawns` gives the pawns' squares in the
    /// material as written (`(color, square)`); the plans' filters should
    /// pick positions of this slice, since only they are counted.
    ///
    /// # Errors
    ///
    /// [`Error::Usage`] if the pawns are not the material's, or not frozen;
    /// the solver's errors otherwise.
    pub fn frozen_stats_many(
        &self,
        plans: &[SolvePlan],
        pawns: &[(shakmaty::Color, shakmaty::Square)],
        progress: &dyn Progress,
    ) -> Result<Vec<ScanStats>> {
        self.frozen_stats_with(plans, pawns, progress, false)
    }

    /// [`Solver::frozen_stats_many`], with the exits' materials solved
    /// whole (`whole_exits`, the plain way, for tests to check the other
    /// against) or only in the slices the frozen slice can reach.
    fn frozen_stats_with(
        &self,
        plans: &[SolvePlan],
        pawns: &[(shakmaty::Color, shakmaty::Square)],
        progress: &dyn Progress,
        whole_exits: bool,
    ) -> Result<Vec<ScanStats>> {
        let Some(first) = plans.first() else {
            return Err(Error::Usage("a solve needs a plan".into()));
        };
        let material = first.material;
        let target = material.normalized();
        let flipped = material.is_flipped_in_table();
        let layout = Layout::new(&target);
        // The pawns' squares in the table's colours, and their slice.
        let mut sq: layout::Squares = [0; layout::MAX_PIECES];
        let mut used = [false; layout::MAX_PIECES];
        let bad = |why: &str| Error::Usage(format!("frozen pawns of {material}: {why}"));
        for (color, s) in pawns {
            let c = if flipped { !*color } else { *color };
            let s = if flipped { *s as u8 ^ 56 } else { *s as u8 };
            let slot = (layout.movers..layout.slots())
                .find(|&i| !used[i] && layout.pieces[i].color == c)
                .ok_or_else(|| bad("more pawns than the material has"))?;
            used[slot] = true;
            sq[slot] = s;
        }
        if (layout.movers..layout.slots()).any(|i| !used[i]) {
            return Err(bad("every pawn needs a square"));
        }
        for i in layout.movers..layout.slots() {
            let ahead = match layout.pieces[i].color {
                shakmaty::Color::White => sq[i] + 8,
                shakmaty::Color::Black => sq[i].wrapping_sub(8),
            };
            let blocked = (layout.movers..layout.slots()).any(|j| {
                j != i && sq[j] == ahead && layout.pieces[j].color != layout.pieces[i].color
            });
            if !blocked {
                return Err(bad("a pawn that can push is not frozen"));
            }
        }
        // Kings and pieces anywhere: the slice is the pawns'.
        sq[0] = 0;
        sq[1] = 63;
        for (i, x) in sq.iter_mut().enumerate().take(layout.movers).skip(2) {
            *x = i as u8;
        }
        let (slice, _) = layout.locate(&sq).ok_or_else(|| bad("the pawns overlap"))?;
        let mut order = if whole_exits {
            depth_first(frozen_roots(&material))
                .into_iter()
                .map(|m| (m, None))
                .collect()
        } else {
            let written: Vec<(shakmaty::Color, u8)> =
                pawns.iter().map(|(c, s)| (*c, *s as u8)).collect();
            let reached = reach::reach(&material, &written)
                .ok_or_else(|| bad("a pawn that can push is not frozen"))?;
            reach_order(frozen_roots(&material), reached)
        };
        order.push((target, Some(BTreeSet::from([slice]))));
        self.slices_stats(plans, order, progress)
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
    /// With a paged plan: the pages all tables are read in.
    pages: Option<Arc<pages::Pages>>,
    /// The plan the pages follow.
    memory: MemoryPlan,
    /// Where a paged run without a cache writes the materials it solves,
    /// to read them back page by page (removed with the run).
    scratch: Option<(tempfile::TempDir, Cache)>,
    /// The members the plan reads from the cache, not solves: one that
    /// has to be solved after all (its file damaged or gone since) is
    /// checked against the limit first.
    planned_reads: HashSet<String>,
    /// A material (by table name) whose slices' values are kept as they
    /// are solved, for [`Solver::reached_values`].
    captured: Option<(String, Mutex<BTreeMap<usize, SliceValues>>)>,
}

impl<'s> Run<'s> {
    /// A run holding its tables as `memory` plans, reading from the cache
    /// the members named in `planned_reads`.
    ///
    /// # Errors
    ///
    /// [`Error::Output`] if a paged run without a cache cannot make its
    /// scratch directory.
    fn new(
        solver: &'s Solver,
        rule: Rule,
        metric: Metric,
        memory: MemoryPlan,
        planned_reads: HashSet<String>,
    ) -> Result<Run<'s>> {
        let pages = memory.pages.map(|b| Arc::new(pages::Pages::new(b)));
        let scratch = match (&pages, &solver.cache) {
            (Some(_), None) => {
                let dir = tempfile::Builder::new()
                    .prefix("fiftymove-solve-")
                    .tempdir()
                    .map_err(|e| cache_error(&std::env::temp_dir(), e))?;
                let cache = Cache::new(dir.path());
                Some((dir, cache))
            }
            _ => None,
        };
        Ok(Run {
            solver,
            rule,
            metric,
            tables: HashMap::new(),
            pages,
            memory,
            scratch,
            planned_reads,
            captured: None,
        })
    }

    /// Gives the pages of a paged run this step's share of the limit: what
    /// the slice of `material` leaves if `solving` it, else what reading it
    /// leaves (see [`Solver::step_pages`]).
    fn step_budget(&self, material: &Material, solving: bool) {
        if let (Some(pages), Some(limit)) = (&self.pages, self.memory.within) {
            let budget = Solver::step_pages(material, self.metric, limit, solving);
            pages.set_budget(budget.unwrap_or_else(|least| least));
        }
    }

    /// [`Error::Memory`] if `material`, which the plan reads from the cache,
    /// has to be solved (its file damaged or gone since the plan) and that
    /// solve would take more than the limit: the least paged step of it,
    /// or with whole tables, the plan's bound with its working set in
    /// place of the largest planned one.
    fn check_unplanned_solve(&self, material: &Material, layout: &Layout) -> Result<()> {
        if !self.planned_reads.contains(&material.table_name()) {
            return Ok(());
        }
        let needed = match self.pages {
            Some(_) => {
                PROCESS_BYTES
                    + Solver::slice_bytes(material, self.metric)
                    + with_slack(Solver::least_pages(material, self.metric))
            }
            None => {
                self.memory.bytes - self.memory.working + Solver::working_bytes(layout, self.metric)
            }
        };
        self.solver.refuse_over_limit(
            needed,
            format!(
                "solve {} (planned to be read from the cache, which no longer holds it whole)",
                material.table_name()
            ),
        )
    }

    /// Where solved materials are written and read: the solver's cache, or
    /// the run's scratch directory.
    fn cache(&self) -> Option<&Cache> {
        self.solver
            .cache
            .as_ref()
            .or(self.scratch.as_ref().map(|(_, c)| c))
    }

    /// The first failed page read of the tables this run holds, as an
    /// error: the values read in its place were not the table's.
    fn check_pages(&self, own: Option<&Table>) -> Result<()> {
        let failed = own
            .into_iter()
            .chain(self.tables.values().map(|t| &**t))
            .find_map(|t| t.failure().map(|why| (t.layout.material, why)));
        match failed {
            Some((material, why)) => Err(Error::SolveCache {
                material: format!("{material} ({why})"),
                dir: self.cache().map(|c| c.dir().to_path_buf()),
            }),
            None => Ok(()),
        }
    }

    /// Drops the tables that none of `still` (the materials left to solve)
    /// reads: memory holds only what exits still need.
    fn release(&mut self, still: &[Material]) {
        let needed: std::collections::HashSet<String> = still
            .iter()
            .flat_map(|m| m.children())
            .map(|m| m.table_name())
            .collect();
        self.tables.retain(|name, _| needed.contains(name));
    }

    /// Makes the table of `material` (whose closure is done): read from the
    /// cache, or solved and written to it. With `counting`, returns the
    /// material's statistics.
    fn material(
        &mut self,
        material: &Material,
        index: usize,
        count: usize,
        counting: &[Counting],
        only: Option<&BTreeSet<usize>>,
        progress: &dyn Progress,
    ) -> Result<Vec<ScanStats>> {
        let layout = Layout::new(material);
        let keeps = Keeps::of(self.metric);
        // This step's share of the limit (planned to fit), reading first.
        self.step_budget(material, false);
        let wanted = |s: usize| only.is_none_or(|o| o.contains(&s));
        let entries = only.map_or(layout.total_entries(), |o| o.len() * layout.entries) as u64;
        // The table of the material solved is needed for its pawn pushes,
        // and by the materials above it; a pawnless one at the top needs
        // none.
        let keep = counting.is_empty() || layout.has_pawns();
        let cache = self.cache().cloned();
        if let Some(cache) = &cache {
            match cache.open(&layout, self.rule, self.metric) {
                Ok(cached) => {
                    progress.stage(
                        &format!(
                            "read {} ({})",
                            material.table_name(),
                            describe(self.rule, self.metric)
                        ),
                        index,
                        count,
                        entries,
                    );
                    let path = cached.path().to_path_buf();
                    match self.read(&layout, cached, keep, counting, only, progress) {
                        Ok(stats) => return Ok(stats),
                        Err(CacheError::Damaged(why)) => {
                            progress.note(&format!("damaged cache file, solving again: {why}"))
                        }
                        Err(CacheError::Io(e)) => return Err(cache_error(&path, e)),
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
        self.check_unplanned_solve(material, &layout)?;
        self.step_budget(material, true);
        progress.stage(
            &format!(
                "solve {} ({})",
                material.table_name(),
                describe(self.rule, self.metric)
            ),
            index,
            count,
            entries,
        );
        // A table of some slices is not the material's: the cache keeps
        // whole materials only.
        let writer = match (&cache, only) {
            (Some(cache), None) => Some(Arc::new(
                cache
                    .writer(&layout, self.rule, self.metric)
                    .map_err(|e| cache_error(cache.dir(), e))?,
            )),
            _ => None,
        };
        // Paged: the slices solved are read back from the file being
        // written (a paged run always has one: its scratch directory).
        let paged = match (&self.pages, &writer, only) {
            (Some(pages), Some(w), None) => Some((pages.clone(), w.clone())),
            _ => None,
        };
        let own = match (only, &paged) {
            (Some(o), _) => Table::partial(layout.clone(), self.rule, keeps, o),
            // Nothing reads it (no pawn pushes, nothing above), and at six
            // pieces it would be gigabytes.
            (None, _) if !keep => Table::unused(layout.clone(), self.rule, keeps),
            (None, Some((pages, w))) => {
                Table::paged(layout.clone(), self.rule, keeps, w.clone(), pages.clone())
            }
            (None, None) => Table::new(layout.clone(), self.rule, keeps),
        };
        let tables = &self.tables;
        let lookup = |m: &Material| tables.get(&m.table_name()).map(|t| &**t);
        let exits = MaterialExits::new(&layout, &own, self.rule, keeps, &lookup);
        let no_rule_exits = (self.metric == Metric::Dtr)
            .then(|| MaterialExits::new(&layout, &own, self.rule, keeps, &lookup).without_rule());
        // Slices by advance, the most advanced first; those of one advance
        // lead into none of each other and are solved side by side (one at a
        // time when paged: memory holds one slice's values).
        let mut groups: Vec<u32> = layout.slices.iter().map(|s| s.advance).collect();
        groups.sort_unstable();
        groups.dedup();
        let stats = std::sync::Mutex::new(counting.iter().map(Counting::empty).collect::<Vec<_>>());
        // The slices an interrupted solve of this file wrote are read back,
        // not solved again.
        let resumed = writer
            .as_ref()
            .map(|w| w.resumed().clone())
            .unwrap_or_default();
        if !resumed.is_empty() {
            progress.note(&format!(
                "resuming the solve of {} ({}): {} of {} slices read back from an interrupted run",
                material.table_name(),
                describe(self.rule, self.metric),
                resumed.len(),
                layout.slices.len()
            ));
        }
        let solved = std::sync::atomic::AtomicUsize::new(0);
        let solve_one = |s: usize| {
            let written = match (&writer, resumed.contains(&s)) {
                // A slice that does not read back whole is solved again.
                (Some(w), true) => w.slice(s).ok(),
                _ => None,
            };
            let fresh = written.is_none();
            // Only a cache file that a later run takes up has checkpoints
            // (not a paged run's scratch directory). For DTR they are of
            // the solve without a rule it starts from.
            let checkpoint = match (&writer, &self.solver.cache) {
                (Some(w), Some(_)) if fresh => w.checkpoint(
                    s,
                    self.solver.checkpoint_every,
                    self.solver.stop_after_checkpoints,
                    format!(
                        "{} ({})",
                        material.table_name(),
                        describe(self.rule, self.metric)
                    ),
                ),
                _ => None,
            };
            let values = match written {
                Some(values) => {
                    progress.advance(layout.entries as u64);
                    values
                }
                None => match &no_rule_exits {
                    // DTR starts from who wins without a rule.
                    Some(plain) => {
                        let no_rule =
                            solve_slice(&layout, s, plain, progress, checkpoint.as_ref())?;
                        dtr::solve_slice_dtr(&layout, s, &no_rule, &exits)?
                    }
                    None => solve_slice(&layout, s, &exits, progress, checkpoint.as_ref())?,
                },
            };
            if keep {
                own.set_slice(s, &values);
            }
            if let Some((name, kept)) = &self.captured {
                if *name == material.table_name() {
                    kept.lock()
                        .expect("no panic while held")
                        .insert(s, values.clone());
                }
            }
            if let (Some(w), Some(cache), true) = (&writer, &cache, fresh) {
                w.add_slice(s, &values)
                    .map_err(|e| cache_error(cache.dir(), e))?;
            }
            if let Some(c) = &checkpoint {
                c.remove();
            }
            if fresh {
                let n = solved.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                self.solver.interrupt_after(n)?;
            }
            for (k, c) in counting.iter().enumerate() {
                let part = c.slice(&layout, s, &values);
                stats.lock().expect("no panic while held")[k] += &part;
            }
            Ok::<(), Error>(())
        };
        let compact_from = match self.pages {
            Some(_) => 0,
            None => self.solver.compact_from,
        };
        let compact = uses_compact(&layout, self.metric, compact_from)
            && only.is_none()
            && resumed.is_empty();
        if compact {
            let found = self.solve_compact(
                &layout,
                &exits,
                keep.then_some(&own),
                writer.as_deref(),
                counting,
                progress,
            )?;
            *stats.lock().expect("no panic while held") = found;
            self.check_pages(Some(&own))?;
        }
        for advance in groups.into_iter().rev().filter(|_| !compact) {
            let slices: Vec<usize> = (0..layout.slices.len())
                .filter(|&s| layout.slices[s].advance == advance && wanted(s))
                .collect();
            if paged.is_some() {
                for s in slices {
                    solve_one(s)?;
                    self.check_pages(Some(&own))?;
                }
            } else {
                slices.par_iter().try_for_each(|&s| solve_one(s))?;
            }
        }
        drop(exits);
        drop(no_rule_exits);
        if keep && paged.is_none() {
            self.tables.insert(material.table_name(), Arc::new(own));
        } else {
            drop(own);
        }
        if let (Some(w), Some(cache)) = (writer, &cache) {
            w.finish().map_err(|e| cache_error(cache.dir(), e))?;
            if let (true, Some((pages, _))) = (keep, paged) {
                // The materials above read the finished file.
                let cached =
                    cache
                        .open(&layout, self.rule, self.metric)
                        .map_err(|_| Error::SolveCache {
                            material: material.table_name(),
                            dir: Some(cache.dir().to_path_buf()),
                        })?;
                let table = Table::paged(layout.clone(), self.rule, keeps, Arc::new(cached), pages);
                self.tables.insert(material.table_name(), Arc::new(table));
            }
        }
        Ok(stats.into_inner().expect("no panic while held"))
    }

    /// Solves `layout` (one slice, no pawns) for the rule's DTZ in half a
    /// byte per position and side ([`compact`]), then makes its values
    /// again a chunk at a time for `own` (if kept), the cache file and the
    /// counts; returns the counts, longest positions included.
    fn solve_compact(
        &self,
        layout: &Layout,
        exits: &MaterialExits<'_>,
        own: Option<&Table>,
        writer: Option<&cache::CacheWriter>,
        counting: &[Counting],
        progress: &dyn Progress,
    ) -> Result<Vec<ScanStats>> {
        let dir = match self.cache() {
            Some(c) => c.dir().to_path_buf(),
            None => std::env::temp_dir(),
        };
        let spill_error = |e: std::io::Error| {
            if e.kind() == std::io::ErrorKind::InvalidData {
                Error::inconsistent("the solver", format!("its spill file: {e}"))
            } else {
                cache_error(&dir, e)
            }
        };
        // Only a cache file that a later run takes up has checkpoints.
        let checkpoint = match (writer, &self.solver.cache) {
            (Some(w), Some(_)) => w.checkpoint(
                0,
                self.solver.checkpoint_every,
                self.solver.stop_after_checkpoints,
                format!(
                    "{} ({})",
                    layout.material.table_name(),
                    describe(self.rule, self.metric)
                ),
            ),
            _ => None,
        };
        let done = compact::solve(
            layout,
            self.rule,
            exits,
            &dir,
            progress,
            checkpoint.as_ref(),
        )?;
        let mut stats: Vec<ScanStats> = counting.iter().map(Counting::empty).collect();
        for chunk in 0..done.chunks() {
            let values = done.values(chunk).map_err(spill_error)?;
            let base = chunk * compact::Compact::CHUNK;
            let values = [&values[0][..], &values[1][..]];
            if let Some(own) = own {
                own.set_range(0, base, values);
            }
            if let Some(w) = writer {
                w.add_frames(0, base, values)
                    .map_err(|e| cache_error(&dir, e))?;
            }
            for (k, c) in counting.iter().enumerate() {
                stats[k] += &c.counts(layout, 0, base, values);
            }
        }
        for (k, c) in counting.iter().enumerate() {
            let depths = [
                c.longest_depths(&stats[k], 0),
                c.longest_depths(&stats[k], 1),
            ];
            c.add_longest(
                &mut stats[k],
                &|s, offer| {
                    for &d in &depths[s] {
                        done.at_level(d as usize, s, offer)?;
                    }
                    Ok(())
                },
                layout,
                0,
            )
            .map_err(spill_error)?;
        }
        // The checkpoint and its spill stay until the cache file is
        // finished (which removes them): a kill before then resumes from
        // the last checkpoint, not from nothing.
        Ok(stats)
    }

    /// Makes the table of `material`, which only the materials above it
    /// read (through their zeroing moves), from its cached DTR instead of a
    /// solve, where this run is a rule's DTZ and the DTR is cached: a
    /// position is won under an `N`-move rule exactly when its DTR is at
    /// most `2N` plies, and the exits of a DTZ solve read only the classes.
    /// So the least-rule line of a DTR claim costs the solve of its own
    /// material, not of its whole closure again. Returns whether it did.
    fn classes_from_dtr(
        &mut self,
        material: &Material,
        index: usize,
        count: usize,
        progress: &dyn Progress,
    ) -> Result<bool> {
        let (Rule::Moves(_), Metric::Dtz, Some(cache)) =
            (self.rule, self.metric, self.cache().cloned())
        else {
            return Ok(false);
        };
        let layout = Layout::new(material);
        let Ok(cached) = cache.open(&layout, Rule::None, Metric::Dtr) else {
            return Ok(false);
        };
        progress.stage(
            &format!(
                "read {} ({}, as classes under rule {})",
                material.table_name(),
                describe(Rule::None, Metric::Dtr),
                self.rule
            ),
            index,
            count,
            layout.total_entries() as u64,
        );
        let path = cached.path().to_path_buf();
        match self.read(&layout, cached, true, &[], None, progress) {
            Ok(_) => Ok(true),
            Err(CacheError::Io(e)) => Err(cache_error(&path, e)),
            // A damaged DTR file is the DTR's business: solve this rule.
            Err(CacheError::Damaged(_) | CacheError::Missing) => Ok(false),
        }
    }

    /// Reads a cached material into its table (if `keep`; page by page in a
    /// paged run) and its statistics (with `counting`).
    fn read(
        &mut self,
        layout: &Layout,
        cached: cache::CachedTable,
        keep: bool,
        counting: &[Counting],
        only: Option<&BTreeSet<usize>>,
        progress: &dyn Progress,
    ) -> std::result::Result<Vec<ScanStats>, CacheError> {
        let keeps = Keeps::of(self.metric);
        let cached = Arc::new(cached);
        let own = keep.then(|| match (only, &self.pages) {
            (Some(o), _) => Table::partial(layout.clone(), self.rule, keeps, o),
            (None, Some(pages)) => Table::paged(
                layout.clone(),
                self.rule,
                keeps,
                cached.clone(),
                pages.clone(),
            ),
            (None, None) => Table::new(layout.clone(), self.rule, keeps),
        });
        let mut stats: Vec<ScanStats> = counting.iter().map(Counting::empty).collect();
        let slices: Vec<usize> = match only {
            Some(o) => o.iter().copied().collect(),
            // A paged table needs no slice read now, and nothing to count
            // needs none at all.
            None if counting.is_empty() && self.pages.is_some() => Vec::new(),
            None => (0..layout.slices.len()).collect(),
        };
        for s in slices {
            let values = cached.slice(s)?;
            if let Some(t) = &own {
                t.set_slice(s, &values);
            }
            for (c, st) in counting.iter().zip(stats.iter_mut()) {
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
