//! Pass 4 of the sweep: settling the rounded DTZ values ("n or n+1") by
//! the phase parity where the material forces it, else by the probe
//! engine's rule over the successors, settled first, recursively (see the
//! list of passes in [`super`]).

use std::sync::atomic::Ordering::{Acquire, Release};

use rayon::prelude::*;
use shakmaty::Color;

use super::{
    board::{Kind, Mv, Pos},
    code::{is_mated, is_pending, sign, PENDING, PLUS, ROUNDED},
    frame::CHUNK,
    progress::Progress,
    tables::Block,
    values::Values,
};
use crate::{error::Result, model::dtz::RoundedDtz};

/// Pass 4 walks a block with the mover innermost where at least one value
/// in this many is to settle (see [`Settle::pass`]).
const WALK_SETTLE_SHARE: usize = 16;

/// Pass 4 over one window's values.
pub(crate) struct Settle<'a>(pub(crate) &'a Values<'a>);

impl Settle<'_> {
    /// Pass 4: settles every rounded value of the blocks of the window's
    /// chunk. Returns how many values were pending (stored, unstored).
    ///
    /// # Errors
    ///
    /// Those of the reads and searches.
    pub(crate) fn pass(&self, progress: &Progress) -> Result<(usize, usize)> {
        let w = self.0.window();
        let halves = w.tables().code_halves();
        let mut total = (0, 0);
        for b in w.frame.blocks() {
            let pending = self.pending_in(b);
            total = (total.0 + pending.0, total.1 + pending.1);
            // The walk with the mover innermost finds a successor's index
            // from the run's table (or a per-run memo), where the scan in
            // index order decodes the position and encodes every
            // successor; but it visits every placement, which only pays
            // where many are pending.
            match b.mover {
                // A symmetric table's quiet moves lead to colour-flipped
                // positions, which a run's table does not give.
                Some(mover)
                    if !w.tables().symmetric
                        && (pending.0 + pending.1) * WALK_SETTLE_SHARE >= b.len =>
                {
                    w.frame.walk_runs(b, mover, progress, |j, pos, run| {
                        for half in 0..2 {
                            if is_pending(w.code(j, half)) {
                                // A quiet move keeps the placement's block
                                // and changes the side to move: the other
                                // half.
                                let turn = if half == 0 { b.side } else { !b.side };
                                self.settle_with(half, j, turn, |s, target| {
                                    self.some_move_scores(pos, turn, s, target, |m| {
                                        Ok((b.base + run.successor(m)? as usize, 1 - half))
                                    })
                                })?;
                            }
                        }
                        Ok(())
                    })?;
                }
                _ => {
                    (0..b.len.div_ceil(CHUNK))
                        .into_par_iter()
                        .try_for_each(|c| -> Result<()> {
                            let first = c * CHUNK;
                            let last = (first + CHUNK).min(b.len);
                            for j in b.base + first..b.base + last {
                                for half in 0..halves {
                                    if is_pending(w.code(j, half)) {
                                        self.settle(half, j)?;
                                    }
                                }
                            }
                            progress.add((last - first) as u64);
                            Ok(())
                        })?;
                }
            }
        }
        Ok(total)
    }

    /// How many values of block `b` are still to settle (stored side,
    /// unstored side).
    fn pending_in(&self, b: &Block) -> (usize, usize) {
        let w = self.0.window();
        let halves = w.tables().code_halves();
        (0..b.len.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let first = b.base + c * CHUNK;
                let last = (first + CHUNK).min(b.base + b.len);
                (first..last).fold((0, 0), |(a, c), j| {
                    let pending = |half| usize::from(is_pending(w.code(j, half)));
                    (a + pending(0), c + if halves == 2 { pending(1) } else { 0 })
                })
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    }

    /// The exact DTZ of a global index and side, settling it (and, first,
    /// the successors it depends on) if it is still rounded.
    ///
    /// Threads may settle the same value at once; they compute the same
    /// result. The raw magnitude never changes once pass 3 is over, and
    /// the settled one is [`PLUS`] in the same code byte as [`PENDING`],
    /// so one load of the code always gives a consistent value.
    fn settle(&self, half: usize, j: usize) -> Result<i16> {
        let frame = &self.0.window().frame;
        let (b, local) = frame.block_at(j);
        let turn = if half == 0 { b.side } else { !b.side };
        self.settle_with(half, j, turn, |s, target| {
            let pos = frame.pos_of(b, local);
            self.some_move_scores(&pos, turn, s, target, |m| {
                frame.quiet_succ(b, &pos, m, turn)
            })
        })
    }

    /// [`Settle::settle`] with `turn` to move, and `hit(s, target)` saying
    /// whether some move of `turn` (sign `s`) scores exactly `target`
    /// plies.
    fn settle_with(
        &self,
        half: usize,
        j: usize,
        turn: Color,
        hit: impl FnOnce(i32, i32) -> Result<bool>,
    ) -> Result<i16> {
        let v = self.0;
        let code = v.window().code_with(j, half, Acquire);
        if !is_pending(code) {
            return v.value_of(half, j, code);
        }
        let s = sign(code & 7);
        let n = v.raw(half, j, code)?;
        let loser = if s > 0 { !turn } else { turn };
        let rounded = RoundedDtz {
            plies: n,
            mover_wins: s > 0,
        };
        let mag = if v.window().tables().natural(loser) {
            rounded.by_parity()
        } else {
            rounded.by_search(hit(s, rounded.search_target())?)
        };
        let plus = if mag > n { PLUS } else { 0 };
        // One update of the byte: no reader sees PENDING clear without PLUS.
        v.window().update_code(j, half, plus, PENDING, Release);
        Ok((s * mag) as i16)
    }

    /// The probe engine's `first_move_scoring`, in memory: whether some
    /// legal move of `turn` in `pos` gives the mover (sign `s`) exactly
    /// `target` plies; `succ` gives a quiet move's successor (global
    /// index, half). Only quiet moves and mates can: zeroing moves score
    /// 1 or 101, which the raw value already accounts for.
    fn some_move_scores(
        &self,
        pos: &Pos,
        turn: Color,
        s: i32,
        target: i32,
        mut succ: impl FnMut(Mv) -> Result<(usize, usize)>,
    ) -> Result<bool> {
        let need = target - 1;
        let mut hit = false;
        let mut failure = None;
        pos.for_each_move(turn, Kind::Quiet, |m| {
            if hit || failure.is_some() {
                return;
            }
            match succ(m).and_then(|(j2, half2)| self.move_scores(j2, half2, s, target, need)) {
                Ok(h) => hit = h,
                Err(e) => failure = Some(e),
            }
        });
        match failure {
            Some(e) => Err(e),
            None => Ok(hit),
        }
    }

    /// Whether a quiet move to global index `j2` (half `half2`) scores
    /// exactly `target` (see [`Settle::some_move_scores`]).
    #[inline]
    fn move_scores(&self, j2: usize, half2: usize, s: i32, target: i32, need: i32) -> Result<bool> {
        let code = self.0.code(j2, half2);
        if is_mated(code) {
            return Ok(s > 0 && target == 1);
        }
        // The mover is decisive (s is not 0): ILLEGAL's class bits have
        // sign 0 and stop here.
        if sign(code & 7) != -s {
            return Ok(false);
        }
        let exact = if code & ROUNDED != 0 {
            let a = self.0.raw(half2, j2, code)?;
            let (certain, open) = if s > 0 {
                (a + 1 == need, a == need)
            } else {
                (a == need, a + 1 == need)
            };
            if certain {
                return Ok(true);
            }
            if !open {
                return Ok(false);
            }
            i32::from(self.settle(half2, j2)?).abs()
        } else {
            self.0.raw(half2, j2, code)?
        };
        Ok(exact == need)
    }
}
