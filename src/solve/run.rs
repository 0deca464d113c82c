//! One run of the solver: the tables of the materials solved or read so
//! far, held whole or page by page as the run's [`MemoryPlan`] says, and
//! the step that makes the next material's table: read from the cache, or
//! solved slice by slice (in two bytes per position, in half a byte, or in
//! DTR) and written to it, and counted.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap, HashSet},
    sync::{Arc, Mutex},
};

use rayon::prelude::*;

use super::{
    cache::{self, Cache},
    cache_error::{output_error, CacheError},
    compact, dtr,
    exits::MaterialExits,
    layout::Layout,
    memory::{uses_compact, MemoryPlan},
    pages,
    progress::{describe, Progress},
    reach::Step,
    retro::solve_slice,
    solver::Solver,
    stats::Counting,
    table::{Keeps, Table},
    value::SliceValues,
};
use crate::{
    chess::{
        material::Material,
        rule::{Metric, Rule},
    },
    error::{Error, Result},
    model::ScanStats,
};

/// One run of the solver: the tables solved or read so far, by table name.
pub(crate) struct Run<'s> {
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
    pub(crate) fn new(
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
                    .map_err(|e| output_error(&std::env::temp_dir(), e))?;
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
    /// leaves (see [`MemoryPlan::step_budget`]).
    fn step_budget(&self, material: &Material, solving: bool) {
        if let (Some(pages), Some(budget)) = (
            &self.pages,
            self.memory.step_budget(material, self.metric, solving),
        ) {
            pages.set_budget(budget);
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
        let needed = self.memory.unplanned_bytes(material, layout, self.metric);
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

    /// Keeps the values of `material`'s slices as they are solved, for
    /// [`Run::captured_values`].
    pub(crate) fn capture(&mut self, material: &Material) {
        self.captured = Some((material.table_name(), Mutex::new(BTreeMap::new())));
    }

    /// The values of the slices of the material [`Run::capture`] named,
    /// solved in this run.
    pub(crate) fn captured_values(&mut self) -> BTreeMap<usize, SliceValues> {
        self.captured
            .take()
            .map(|(_, v)| v.into_inner().expect("no panic while held"))
            .unwrap_or_default()
    }

    /// Makes the tables of the materials and slices of `order` (each after
    /// what it reads; `None`: all slices), and returns the statistics of
    /// `target`'s positions under `countings`. A member below `target`
    /// solved whole whose classes a cached DTR gives is read from that
    /// instead ([`Run::classes_from_dtr`]). Each table is dropped once
    /// nothing left in `order` reads it.
    ///
    /// # Errors
    ///
    /// The first error of a material's step.
    pub(crate) fn make(
        &mut self,
        order: &[Step],
        target: &Material,
        countings: &[Counting],
        progress: &dyn Progress,
    ) -> Result<Vec<ScanStats>> {
        let mut all: Vec<ScanStats> = countings.iter().map(Counting::empty).collect();
        for (i, (m, only)) in order.iter().enumerate() {
            let from_dtr = m != target
                && only.is_none()
                && self.classes_from_dtr(m, i, order.len(), progress)?;
            if !from_dtr {
                let counting: &[Counting] = if m == target { countings } else { &[] };
                let parts = self.material(m, i, order.len(), counting, only.as_ref(), progress)?;
                if m == target {
                    all = parts;
                }
            }
            self.release(&order[i + 1..]);
        }
        Ok(all)
    }

    /// Drops the tables that none of `still` (the materials left to solve)
    /// reads: memory holds only what exits still need.
    fn release(&mut self, still: &[Step]) {
        let needed: HashSet<String> = still
            .iter()
            .flat_map(|(m, _)| m.children())
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
                        Err(CacheError::Io(e)) => return Err(output_error(&path, e)),
                        Err(CacheError::Missing) => {}
                    }
                }
                Err(CacheError::Missing) => {}
                Err(CacheError::Damaged(why)) => {
                    progress.note(&format!("damaged cache file, solving again: {why}"))
                }
                Err(CacheError::Io(e)) => {
                    return Err(output_error(
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
                    .map_err(|e| output_error(cache.dir(), e))?,
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
                    self.solver.knobs.stop_after_checkpoints(),
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
                    .map_err(|e| output_error(cache.dir(), e))?;
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
            w.finish().map_err(|e| output_error(cache.dir(), e))?;
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
                output_error(&dir, e)
            }
        };
        // Only a cache file that a later run takes up has checkpoints.
        let checkpoint = match (writer, &self.solver.cache) {
            (Some(w), Some(_)) => w.checkpoint(
                0,
                self.solver.checkpoint_every,
                self.solver.knobs.stop_after_checkpoints(),
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
                    .map_err(|e| output_error(&dir, e))?;
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
            Err(CacheError::Io(e)) => Err(output_error(&path, e)),
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
