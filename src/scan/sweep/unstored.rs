//! Pass 3 of the sweep: shakmaty-syzygy's raw DTZ of the side the DTZ
//! file does not store, by its one-ply search over the stored side's raw
//! values, in memory, only where the position is decisive (rounded where
//! its best successor is); and its reads, held a byte per index or worked
//! out again by the same search where read ([`UnstoredBytes`]): the same
//! stored values and codes in, so the same magnitude out.

use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;

use super::{
    board::{Kind, Mv, Pos},
    code::{decode_mag, fixed_raw, is_mated, sign, zero_score, ILLEGAL, LOSS, ROUNDED, ZB},
    dtz_bytes::UnstoredBytes,
    progress::Progress,
    stored::Stored,
    tables::Block,
};
use crate::error::{Error, Result};

/// The unstored side's raw DTZ of one window: pass 3 and its reads.
#[derive(Clone, Copy)]
pub(crate) struct Unstored<'a> {
    /// The stored side's, which the search reads.
    pub(crate) stored: Stored<'a>,
    /// The bytes, held or none.
    bytes: &'a UnstoredBytes,
}

impl<'a> Unstored<'a> {
    /// The unstored side of `stored`'s window, its bytes in `bytes`.
    pub(crate) fn new(stored: Stored<'a>, bytes: &'a UnstoredBytes) -> Unstored<'a> {
        Unstored { stored, bytes }
    }

    /// Pass 3: shakmaty-syzygy's raw DTZ of the side the DTZ file does not
    /// store: a one-ply search over the stored side's raw values, for the
    /// blocks of the window's chunk.
    pub(crate) fn pass(&self, progress: &Progress) -> Result<()> {
        let w = self.stored.w;
        if w.tables().symmetric {
            return Ok(());
        }
        for b in w.frame.blocks() {
            if let Some(mover) = b.mover {
                // No successor encoded per placement (see `walk_runs`).
                w.frame.walk_runs(b, mover, progress, |j, pos, run| {
                    let code = w.code(j, 1);
                    if code == ILLEGAL || sign(code & 7) == 0 {
                        return Ok(());
                    }
                    // A quiet move leads to the stored side, in this block.
                    let succ = |m: Mv| Ok((b.base + run.successor(m)? as usize, 0));
                    let (v, rounded) = self.search(b, pos, code, succ)?;
                    self.store(j, v, rounded)
                })?;
                continue;
            }
            let units = w.frame.dtz.subs[b.sub].encoding.units();
            (0..units.count).into_par_iter().try_for_each(|unit| {
                w.frame
                    .walk_unit(b, units, unit, progress, |local, pos| -> Result<()> {
                        let j = b.base + local;
                        let succ = |m: Mv| w.frame.quiet_succ(b, pos, m, !b.side);
                        let (v, rounded) = self.search(b, pos, w.code(j, 1), succ)?;
                        self.store(j, v, rounded)
                    })
            })?;
        }
        Ok(())
    }

    /// shakmaty-syzygy's raw DTZ of the unstored side to move in `pos`
    /// (WDL code `code`), and whether it is rounded; `succ` gives a quiet
    /// move's successor (global index, half).
    fn search(
        &self,
        b: &Block,
        pos: &Pos,
        code: u8,
        mut succ: impl FnMut(Mv) -> Result<(usize, usize)>,
    ) -> Result<(i16, bool)> {
        if let Some(raw) = fixed_raw(code) {
            return Ok(raw);
        }
        let wdl = code & 7;
        let s = sign(wdl);
        let turn = !b.side;
        if s > 0 && code & ZB != 0 {
            return Ok((zero_score(wdl), false));
        }
        if s > 0 && self.stored.w.pawn_win(pos, turn, wdl)? {
            return Ok((zero_score(wdl), false));
        }
        // Best (magnitude, rounded) so far; a loser can always zero.
        let mut best: Option<(i32, bool)> = if s < 0 {
            Some((if wdl == LOSS { 1 } else { 101 }, false))
        } else {
            None
        };
        let mut failure = None;
        pos.for_each_move(turn, Kind::Quiet, |m| {
            if failure.is_some() {
                return;
            }
            let (j2, half2) = match succ(m) {
                Ok(x) => x,
                Err(e) => {
                    failure = Some(e);
                    return;
                }
            };
            // Pass 4 has not begun: every value is the raw one.
            let code2 = self.stored.w.code(j2, half2);
            // s is not 0 here, and ILLEGAL's class bits have sign 0.
            let cand = if is_mated(code2) {
                (1, false)
            } else if sign(code2 & 7) == -s {
                // A quiet move of the unstored side leads to the stored
                // side (`half2` is 0), whose magnitudes are held or paged.
                debug_assert_eq!(half2, 0);
                match self.stored.mag(j2, code2) {
                    Ok(m) => (m + 1, code2 & ROUNDED != 0),
                    Err(e) => {
                        failure = Some(e);
                        return;
                    }
                }
            } else {
                return;
            };
            best = Some(match best {
                None => cand,
                // The winner takes the shortest, the loser the longest; on
                // a tie the rounded value (it may be one ply longer).
                Some(x) if (s > 0 && cand.0 < x.0) || (s < 0 && cand.0 > x.0) => cand,
                Some(x) if cand.0 == x.0 && cand.1 => cand,
                Some(x) => x,
            });
        });
        if let Some(e) = failure {
            return Err(e);
        }
        let (mag, rounded) = best.ok_or_else(|| {
            Error::inconsistent(
                "the sweep",
                "a won position has no move that keeps the win; tables inconsistent",
            )
        })?;
        Ok(((s * mag) as i16, rounded))
    }

    /// Stores the raw DTZ `v` of global index `j` (pass 3; the index's
    /// own, written once): its byte where held, and the code marked where
    /// rounded.
    ///
    /// # Errors
    ///
    /// A value the byte cannot hold.
    #[inline]
    fn store(&self, j: usize, v: i16, rounded: bool) -> Result<()> {
        let w = self.stored.w;
        let byte = w.mark_raw(1, j, v, rounded)?;
        if let (Some(byte), UnstoredBytes::Held(bytes)) = (byte, self.bytes) {
            bytes[w.frame.cell(j)].store(byte, Relaxed);
        }
        Ok(())
    }

    /// The raw DTZ magnitude at global index `j`, whose code `code` is
    /// decisive and not checkmated: held, or pass 3's search again.
    ///
    /// # Errors
    ///
    /// Those of the search (which pass 3 has already met, if any), or
    /// symmetric material, which has no unstored side.
    #[inline]
    pub(crate) fn mag(&self, j: usize, code: u8) -> Result<i32> {
        match self.bytes {
            UnstoredBytes::Held(bytes) => match bytes.get(self.stored.w.frame.cell(j)) {
                Some(byte) => Ok(decode_mag(1, code & 7, byte.load(Relaxed))),
                None => Err(no_byte()),
            },
            UnstoredBytes::WorkedOut => self.again(j, code),
            UnstoredBytes::None => Err(no_byte()),
        }
    }

    /// The unstored side's raw magnitude at global index `j` (code
    /// `code`, decisive), by pass 3's search again. Kept out of line: most
    /// sweeps never take it, and [`Unstored::mag`] stays small where they
    /// read. (Not marked cold: a sweep that takes it takes it often.)
    #[inline(never)]
    fn again(&self, j: usize, code: u8) -> Result<i32> {
        let frame = &self.stored.w.frame;
        let (b, local) = frame.block_at(j);
        let pos = frame.pos_of(b, local);
        let succ = |m: Mv| frame.quiet_succ(b, &pos, m, !b.side);
        let (v, _) = self.search(b, &pos, code, succ)?;
        Ok(i32::from(v).abs())
    }
}

/// The error of a read of the unstored side outside the window, or where
/// there is none (symmetric material).
#[cold]
fn no_byte() -> Error {
    Error::inconsistent("the sweep", "an unstored DTZ read outside the window")
}
