//! What the solver is asked for, each a run over materials in the order
//! they are made: the statistics of whole materials (their closures solved
//! or read from the cache), of the slices a claim's positions lie in, of a
//! slice of frozen pawns; the values of the slices a line reaches; and a
//! cache prepared for the lines of a material.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use super::{
    closure::{closure, depth_first, frozen_roots, reach_order},
    layout::{self, Layout},
    memory::{self, MemoryPlan},
    plan::{check_solved, finish_documents, start_slices, SolvePlan, MAX_SOLVE_PIECES},
    progress::Progress,
    reach::{self, Step},
    run::Run,
    solver::Solver,
    stats::Counting,
    value::SliceValues,
};
use crate::{
    chess::{
        material::Material,
        rule::{Metric, Rule},
    },
    error::{Error, Result},
    memory::MemoryLimit,
    model::ScanStats,
};

impl Solver {
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
        let countings: Vec<Counting> = plans.iter().map(|p| Counting::new(&layout, p)).collect();
        let mut run = Run::new(self, first.rule, first.metric, memory, reads)?;
        let mut all = run.make(&whole(&first.material), &target, &countings, progress)?;
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
        order: Vec<Step>,
        progress: &dyn Progress,
    ) -> Result<Vec<ScanStats>> {
        let first = &plans[0];
        let layout = Layout::new(&first.material.normalized());
        let countings: Vec<Counting> = plans.iter().map(|p| Counting::new(&layout, p)).collect();
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
        order: &[Step],
        countings: &[Counting],
        capture: bool,
        progress: &dyn Progress,
    ) -> Result<(Vec<ScanStats>, BTreeMap<usize, SliceValues>)> {
        let target = material.normalized();
        let needed = memory::order_bound(order, metric, capture.then_some(&target));
        self.refuse_over_limit(needed, format!("solve {material} (some slices)"))?;
        let mut run = Run::new(
            self,
            rule,
            metric,
            MemoryPlan::whole(needed),
            HashSet::new(),
        )?;
        if capture {
            run.capture(&target);
        }
        let all = run.make(order, &target, countings, progress)?;
        let values = run.captured_values();
        Ok((all, values))
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
    pub(super) fn frozen_stats_with(
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

impl Solver {
    /// Solves `material` and its closure under `rule` and `metric` into the
    /// cache, if they are not there.
    ///
    /// # Errors
    ///
    /// As [`Solver::stats`]; [`Error::Inconsistent`] without a cache.
    pub fn prepare(
        &self,
        material: &Material,
        rule: Rule,
        metric: Metric,
        progress: &dyn Progress,
    ) -> Result<()> {
        check_solved(metric)?;
        let cache = self
            .cache
            .as_ref()
            .ok_or_else(|| Error::inconsistent("the solver", "preparing a solve needs a cache"))?;
        // The material itself is enough: the materials below it are
        // prepared when a position of theirs is asked for, and with a rule's
        // DTZ they may never be solved under it (their classes can come from
        // a cached DTR, see `Run::classes_from_dtr`).
        if cache.open(&Layout::new(material), rule, metric).is_ok() {
            return Ok(());
        }
        if material.piece_count() > MAX_SOLVE_PIECES {
            return Err(Error::Material {
                input: material.to_string(),
                reason: format!("the solver takes at most {} pieces", MAX_SOLVE_PIECES),
                suggestion: None,
            });
        }
        let (memory, reads) = self.check_memory(material, rule, metric)?;
        let mut run = Run::new(self, rule, metric, memory, reads)?;
        run.make(&whole(material), &material.normalized(), &[], progress)?;
        Ok(())
    }
}

/// The closure of `material` in solving order, each member solved whole.
fn whole(material: &Material) -> Vec<Step> {
    closure(material).into_iter().map(|m| (m, None)).collect()
}
