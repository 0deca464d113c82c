//! Whole-endgame scans with the probe engine: every position of the
//! material, one shakmaty-syzygy probe each. Slow but simple; it is the
//! oracle that the sweep engine is tested against.

use std::sync::Arc;

use rayon::prelude::*;
use shakmaty::{Chess, Color, Position};

use crate::{
    chess::material::Material,
    chess::position::fen_of,
    chess::wdl::{Dtz, Wdl},
    error::Result,
    model::enumerate::{Enumerator, Placement, WorkItem},
    model::{ScanStats, Shard},
    probe::{DtzMemo, Prober},
};

/// A predicate that restricts a scan to some positions (a claim's rule
/// condition, for example "the pawn is on its seventh rank").
pub type PositionFilter = Arc<dyn Fn(&Chess) -> bool + Send + Sync>;

/// What to scan.
#[derive(Clone)]
pub struct ScanPlan {
    /// The material, White first.
    pub material: Material,
    /// Only this part of the work, if set.
    pub shard: Option<Shard>,
    /// Also count raw placements.
    pub raw: bool,
    /// Count only the positions this accepts, if set.
    pub filter: Option<PositionFilter>,
}

impl std::fmt::Debug for ScanPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScanPlan")
            .field("material", &self.material)
            .field("shard", &self.shard)
            .field("raw", &self.raw)
            .field("filter", &self.filter.as_ref().map(|_| "<fn>"))
            .finish()
    }
}

impl ScanPlan {
    /// The work items this plan covers: all of them, or every n-th starting
    /// at the k-th for a shard. Any fixed partition works, because the
    /// merge is a sum.
    pub fn work_items(&self) -> Vec<WorkItem> {
        let all = Enumerator::new(&self.material).work_items();
        match self.shard {
            None => all,
            Some(shard) => all
                .into_iter()
                .enumerate()
                .filter(|(i, _)| shard.holds(*i as u32))
                .map(|(_, item)| item)
                .collect(),
        }
    }
}

impl ScanPlan {
    /// Counts the positions of `items` (work items of `enumerator`) in
    /// parallel, and sums them: `count` records one placement's positions
    /// into its item's statistics, with a state that `init` makes once per
    /// rayon job; `done` is called as each item ends. An item stops at its
    /// first error, and the count with it.
    ///
    /// # Errors
    ///
    /// The errors of `count`.
    pub(crate) fn count_items<S>(
        &self,
        enumerator: &Enumerator,
        items: &[WorkItem],
        init: impl Fn() -> S + Sync + Send,
        count: impl Fn(&mut S, &Placement, &mut ScanStats) -> Result<()> + Sync + Send,
        done: impl Fn() + Sync + Send,
    ) -> Result<ScanStats> {
        let name = self.material.to_string();
        items
            .par_iter()
            .map_init(init, |state, item| {
                let mut part = ScanStats::new(&name, self.raw);
                let mut failure = None;
                enumerator.for_each_in(*item, |placement| {
                    if failure.is_none() {
                        failure = count(state, placement, &mut part).err();
                    }
                });
                done();
                match failure {
                    Some(e) => Err(e),
                    None => Ok(part),
                }
            })
            .try_reduce(
                || ScanStats::new(&name, self.raw),
                |mut a, b| {
                    a += &b;
                    Ok(a)
                },
            )
    }
}

/// Scans with one probe per position, in parallel over work items.
/// `progress` is called with the number of work items just finished.
///
/// # Errors
///
/// Table errors from the prober.
pub fn scan_with_prober(
    prober: &Prober,
    plan: &ScanPlan,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<ScanStats> {
    let enumerator = Enumerator::new(&plan.material);
    let items = plan.work_items();
    // One memo per rayon job, reused across its work items: rounding
    // resolution then costs about one search per position overall.
    let count = |memo: &mut DtzMemo, placement: &Placement, part: &mut ScanStats| {
        let board = enumerator.board(&placement.squares);
        let mut failure = Ok(());
        for turn in Color::ALL {
            let Some(pos) = enumerator.position(&board, turn) else {
                continue;
            };
            if plan.filter.as_ref().is_some_and(|keep| !keep(&pos)) {
                continue;
            }
            let evaluated = if pos.is_checkmate() {
                Ok((Wdl::Loss, Dtz(0)))
            } else {
                prober
                    .wdl(&pos)
                    .and_then(|w| Ok((w, prober.dtz_with(&pos, memo)?)))
            };
            match evaluated {
                Ok((wdl, dtz)) => {
                    part.side_mut(turn)
                        .record(wdl, dtz, placement.orbit_size, || fen_of(&pos))
                }
                Err(e) => failure = Err(e),
            }
        }
        failure
    };
    let mut stats = plan.count_items(&enumerator, &items, DtzMemo::new, count, || progress(1))?;
    stats.shard = plan.shard;
    Ok(stats)
}
