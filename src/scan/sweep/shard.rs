//! Counting a small shard of a sweep by enumerating its positions.
//!
//! The counting pass of a whole table walks the indices in order, but a
//! shard is a set of the probe engine's work items (`model::enumerate`), and
//! finding which indices belong to it means building every position of the
//! table and its orderings (`count_walked`): for one item of KNN v KNN's
//! 30,000, three times the cost of the whole sweep. A shard of a few items
//! is counted here instead: each of its positions is enumerated, located in
//! the window's index space, and recorded as the probe engine records it,
//! with the swept value in place of a probe. The whole table is still
//! decoded, since the unstored side's values and the settled rounding need
//! it.

use shakmaty::{Color, Piece};

use super::{
    code::{BLESSED, CURSED, DRAW, DTZ_MATED, ILLEGAL, LOSS, MATED, WIN},
    progress::Progress,
    values::Values,
};
use crate::{
    chess::position::fen_of,
    chess::wdl::{Dtz, Wdl},
    error::{Error, Result},
    model::enumerate::{Enumerator, WorkItem},
    model::ScanStats,
    scan::probe::ScanPlan,
};

/// The work factor below which a shard is enumerated rather than walked:
/// the walk visits every index of the table once per plan, the enumeration
/// visits each of the shard's positions once per chunk, and enumerating a
/// position (building it, checking legality, locating it) costs a few times
/// what walking an index does.
const ENUMERATION_COST: usize = 4;

/// A shard counted by enumeration: its work items and the counts so far.
pub(super) struct ShardCount {
    enumerator: Enumerator,
    items: Vec<WorkItem>,
    /// The counts of the chunks counted so far.
    pub(super) stats: ScanStats,
}

impl ShardCount {
    /// The enumerated count of `plan`, if it is a shard small enough for
    /// `chunks` passes over its positions to cost less than one walk over
    /// the table (the choice changes the work, never the result).
    pub(super) fn of(plan: &ScanPlan, chunks: usize) -> Option<ShardCount> {
        plan.shard?;
        let enumerator = Enumerator::new(&plan.material);
        let all = enumerator.work_items().len();
        let items = plan.work_items();
        if items.len() * chunks * ENUMERATION_COST > all {
            return None;
        }
        Some(ShardCount {
            enumerator,
            items,
            stats: ScanStats::new(&plan.material.to_string(), plan.raw),
        })
    }

    /// Counts the shard's positions that the window of `values` holds.
    ///
    /// # Errors
    ///
    /// A position the DTZ file does not index, or one that the sweep marks
    /// illegal although it is legal: either is a defect, never skipped.
    pub(super) fn count_window(
        &mut self,
        values: &Values,
        plan: &ScanPlan,
        progress: &Progress,
    ) -> Result<()> {
        let enumerator = &self.enumerator;
        let part = plan.count_items(
            enumerator,
            &self.items,
            || (),
            |(), placement, part| record(values, plan, enumerator, placement, part),
            || {},
        )?;
        self.stats += &part;
        progress.add(values.window().frame.len() as u64);
        Ok(())
    }
}

/// Records both sides to move of one placement, where the window holds
/// them.
fn record(
    values: &Values,
    plan: &ScanPlan,
    enumerator: &Enumerator,
    placement: &crate::model::enumerate::Placement,
    part: &mut ScanStats,
) -> Result<()> {
    let board = enumerator.board(&placement.squares);
    let mut pieces = [(Color::White.king(), 0u8); 8];
    let mut n = 0;
    for (square, piece) in board.iter() {
        pieces[n] = (piece, square as u8);
        n += 1;
    }
    let pieces: &[(Piece, u8)] = &pieces[..n];
    for turn in Color::ALL {
        let Some(pos) = enumerator.position(&board, turn) else {
            continue;
        };
        if plan.filter.as_ref().is_some_and(|keep| !keep(&pos)) {
            continue;
        }
        let Some((j, half)) = values.window().frame.locate(pieces, turn)? else {
            continue;
        };
        let code = values.code(j, half);
        if code == ILLEGAL {
            return Err(Error::inconsistent(
                "the sweep",
                format!(
                    "sweep: the legal position {} is marked illegal",
                    fen_of(&pos)
                ),
            ));
        }
        let dtz = values.value(half, j)?;
        let mag = if code & MATED != 0 || dtz == DTZ_MATED {
            0
        } else {
            i32::from(dtz.unsigned_abs())
        };
        let wdl = match code & 7 {
            LOSS => Wdl::Loss,
            BLESSED => Wdl::BlessedLoss,
            DRAW => Wdl::Draw,
            CURSED => Wdl::CursedWin,
            WIN => Wdl::Win,
            other => {
                return Err(Error::inconsistent(
                    "the sweep",
                    format!("sweep: WDL code {other} of {}", fen_of(&pos)),
                ))
            }
        };
        part.side_mut(turn)
            .record(wdl, Dtz(wdl.signum() * mag), placement.orbit_size, || {
                fen_of(&pos)
            });
    }
    Ok(())
}
