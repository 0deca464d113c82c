//! What one solve is asked for ([`SolvePlan`]): a material, a rule, a
//! metric and what to count; the slices a plan's positions lie in, and the
//! documents' fields that say how they were made.

use std::{collections::BTreeSet, sync::Arc};

use super::layout::Layout;
use crate::{
    chess::{
        material::Material,
        rule::{Metric, Rule},
    },
    error::{Error, Result},
    model::{ScanStats, Shard},
};

/// Most pieces the solver takes, kings included.
pub const MAX_SOLVE_PIECES: usize = 6;
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
    /// and those their moves reach (with [`crate::solve::Solver::stats_many`], when every
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
pub(crate) fn check_solved(metric: Metric) -> Result<()> {
    if metric.solved() {
        Ok(())
    } else {
        Err(Error::Usage(format!(
            "the solver computes dtz, dtm or dtr, not {}",
            metric.as_str()
        )))
    }
}

/// The slices of `layout` (the plans' material) that hold every position
/// `plans` count, where each plan says which pawns its positions can have
/// ([`SolvePlan::pawns`]); `None` to solve the material whole (no pawns, a
/// plan without the condition, or every slice wanted). The counting reads
/// a slice's positions in its own placement of the pawns (of a placement
/// and its mirror image, the one the slice keeps), and so does this.
pub(crate) fn start_slices(plans: &[SolvePlan], layout: &Layout) -> Option<BTreeSet<usize>> {
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
pub(crate) fn finish_documents(all: &mut [ScanStats], plans: &[SolvePlan]) {
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
