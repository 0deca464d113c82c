//! The solver: where it keeps solved materials, the memory it may take,
//! how often a slice saves a checkpoint; and what it decides before a run,
//! which members of a closure it solves or reads from the cache, and how it
//! holds their tables ([`MemoryPlan`]) within its limit.

use std::collections::HashSet;

use super::{
    cache::Cache,
    closure::closure,
    layout::Layout,
    memory::{self, MemoryPlan, COMPACT_ENTRIES},
};
use crate::{
    chess::{
        material::Material,
        rule::{Metric, Rule},
    },
    error::{Error, Result},
    memory::MemoryLimit,
};

/// Solves materials and their closures, reusing solved ones from a cache.
#[derive(Clone, Debug)]
pub struct Solver {
    pub(super) cache: Option<Cache>,
    memory: MemoryLimit,
    /// Work on a slice between two of its checkpoints, at least.
    pub(super) checkpoint_every: std::time::Duration,
    /// Solve a rule's DTZ without pawns in half a byte per position from
    /// this many entries on ([`COMPACT_ENTRIES`]; tests lower it).
    pub(super) compact_from: usize,
    /// What tests change: nothing outside them.
    pub(super) knobs: Knobs,
}

/// The knobs of a solver in tests (pages whatever the limit, a solve
/// stopped as if killed): `super::tests::Knobs`.
#[cfg(test)]
pub(crate) use super::tests::Knobs;

/// Outside tests a solver has no knobs: it follows its plan, and nothing
/// stops it but an error.
#[cfg(not(test))]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Knobs;

#[cfg(not(test))]
impl Knobs {
    /// Pages of this many bytes whatever the limit: never.
    pub(crate) fn pages(self) -> Option<u64> {
        None
    }

    /// Fail a material's solve once it has solved this many slices: never.
    pub(crate) fn interrupt_after(self) -> Option<usize> {
        None
    }

    /// Fail a slice's solve once it has written this many checkpoints:
    /// never.
    pub(crate) fn stop_after_checkpoints(self) -> Option<usize> {
        None
    }
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
            checkpoint_every: CHECKPOINT_EVERY,
            // A measurement knob (docs/performance.md): the memory plans
            // do not follow it, so it is for materials that fit anyway.
            compact_from: std::env::var("FIFTYMOVE_SOLVE_COMPACT_FROM")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(COMPACT_ENTRIES),
            // A unit struct outside tests, a struct of `None`s in them.
            #[allow(clippy::default_constructed_unit_structs)]
            knobs: Knobs::default(),
        }
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

    /// [`Error::Inconsistent`] if this solver is to stop a material's solve
    /// after `solved` slices.
    pub(super) fn interrupt_after(&self, solved: usize) -> Result<()> {
        match self.knobs.interrupt_after() {
            Some(n) if solved >= n => Err(Error::inconsistent(
                "the solver",
                format!("interrupted after {n} slices, as asked"),
            )),
            _ => Ok(()),
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
        memory::whole_bound(material, metric, &|_| true).0
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

    /// How a solve of `material` holds its tables under this solver's
    /// memory limit, and the memory it then takes: whole, if that fits
    /// (the fastest) and takes at most [`crate::solve::WHOLE_MOST`]; else page by page,
    /// each step with the pages its slice leaves of the limit (at most
    /// [`crate::solve::WHOLE_MOST`]), up to every page it can read (see [`MemoryPlan`]).
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
        match self.knobs.pages() {
            Some(pages) => MemoryPlan::with_pages(material, metric, pages, solves),
            None => MemoryPlan::new(material, metric, self.memory.bytes(), solves),
        }
    }

    /// The memory plan of a solve of `material`, if it fits the limit, and
    /// the members of the closure it reads from the cache.
    ///
    /// # Errors
    ///
    /// [`Error::Memory`] if not even the smallest paged solve fits; it
    /// names that smallest bound.
    pub(super) fn check_memory(
        &self,
        material: &Material,
        rule: Rule,
        metric: Metric,
    ) -> Result<(MemoryPlan, HashSet<String>)> {
        let (plan, reads) = self.memory_plan_and_reads(material, rule, metric);
        self.refuse_over_limit(plan.bytes, format!("solve {material}"))?;
        Ok((plan, reads))
    }

    /// [`Error::Memory`] if `needed` bytes are over the limit.
    pub(super) fn refuse_over_limit(&self, needed: u64, what: String) -> Result<()> {
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
