//! One window of the sweep: the index space of a chunk of the scanned
//! table ([`Frame`]) and the WDL codes of its indices, held in the form
//! the plan chose ([`super::codes`]). Every pass writes or reads them;
//! pass 1 fills them, the later passes add the rounding flags.

use std::sync::atomic::Ordering::Relaxed;

use shakmaty::Color;

use super::{
    board::{Kind, Pos},
    code::{flip, mag_byte, DTZ_MATED, ILLEGAL, PENDING, ROUNDED},
    codes::Codes,
    frame::Frame,
    plan::Storage,
    tables::{Chunk, Tables},
};
use crate::{
    error::{Error, Result},
    tables::reader::Counts,
};

/// The codes of one chunk of the scanned table (see the module's comment).
pub(crate) struct Window<'t> {
    /// Where the window's indices lie.
    pub(crate) frame: Frame<'t>,
    /// WDL codes per global index of the window,
    /// [`Tables::code_halves`] each: stored side, then unstored side. From
    /// pass 2 on they also carry the rounding flags.
    codes: Codes,
    /// [`Tables::code_halves`], kept where the codes are read most.
    halves: usize,
}

impl<'t> Window<'t> {
    /// The window of `chunk` of `tables`, its codes held as `storage`
    /// says, each [`ILLEGAL`] until pass 1.
    ///
    /// # Errors
    ///
    /// As [`Frame::open`].
    pub(crate) fn open(tables: &'t Tables, storage: &Storage, chunk: Chunk) -> Result<Window<'t>> {
        let frame = Frame::open(tables, chunk)?;
        // Written out of index order (see `Encoding::walk`): atomics let
        // the units share the vector; relaxed stores are plain stores.
        let halves = tables.code_halves();
        let codes = storage.codes.hold(frame.len() * halves);
        Ok(Window {
            frame,
            codes,
            halves,
        })
    }

    /// The scanned table.
    #[inline]
    pub(crate) fn tables(&self) -> &'t Tables {
        self.frame.tables
    }

    /// The WDL code (with flags) of a global index and side (0 stored, 1
    /// unstored, which symmetric material does not have).
    #[inline]
    pub(crate) fn code(&self, j: usize, half: usize) -> u8 {
        self.code_with(j, half, Relaxed)
    }

    /// [`Window::code`] loaded with ordering `order`.
    #[inline]
    pub(crate) fn code_with(
        &self,
        j: usize,
        half: usize,
        order: std::sync::atomic::Ordering,
    ) -> u8 {
        debug_assert!(half < self.halves);
        self.codes
            .load(self.frame.cell(j) * self.halves + half, order)
    }

    /// Writes the code of global index `j` and side `half` (pass 1).
    #[inline]
    pub(crate) fn set_code(&self, j: usize, half: usize, code: u8) {
        self.codes
            .store(self.frame.cell(j) * self.halves + half, code);
    }

    /// Sets the bits `set` of the code of global index `j` and side
    /// `half`, then clears `clear`, in one atomic update with `order`.
    #[inline]
    pub(crate) fn update_code(
        &self,
        j: usize,
        half: usize,
        set: u8,
        clear: u8,
        order: std::sync::atomic::Ordering,
    ) {
        let i = self.frame.cell(j) * self.halves + half;
        self.codes.update(i, set, clear, order);
    }

    /// Whether every code the passes wrote was held (see [`Codes::check`]).
    ///
    /// # Errors
    ///
    /// A code the packed codes cannot hold was written.
    pub(crate) fn codes_held(&self) -> Result<()> {
        self.codes.check()
    }

    /// The byte ([`mag_byte`]) of raw DTZ `v` that pass 2 or 3 found for
    /// side `half` at global index `j`, the code marked [`ROUNDED`] and
    /// [`PENDING`] where `rounded` (settled by pass 4). `None` for a draw
    /// or a checkmate, which hold no byte.
    ///
    /// # Errors
    ///
    /// A value [`mag_byte`] cannot hold.
    #[inline]
    pub(crate) fn mark_raw(
        &self,
        half: usize,
        j: usize,
        v: i16,
        rounded: bool,
    ) -> Result<Option<u8>> {
        if v == 0 || v == DTZ_MATED {
            return Ok(None);
        }
        let byte = mag_byte(half, self.code(j, half), v)?;
        if rounded {
            self.update_code(j, half, ROUNDED | PENDING, 0, Relaxed);
        }
        Ok(Some(byte))
    }

    /// The WDL code of a legal position of this table (after pass 1): a
    /// successor of a position of the window, which the window holds too
    /// (see [`Tables::chunks`]).
    fn main_wdl(&self, pos: &Pos, turn: Color) -> Result<u8> {
        let Some((j, half)) = self.frame.locate_pos(pos, turn)? else {
            // A pawn move out of a slice: read as the closure's tables are.
            if self.frame.is_slice() {
                return self.tables().closure.wdl(pos, turn);
            }
            return Err(Error::inconsistent(
                "the sweep",
                "a move that keeps the material left the chunk of its position",
            ));
        };
        let code = self.code(j, half);
        if code == ILLEGAL {
            return Err(Error::inconsistent(
                "the sweep",
                "a legal move led to an illegal position",
            ));
        }
        Ok(code & 7)
    }

    /// The WDL after a zeroing move into `after` (any table).
    fn wdl_after_zeroing(&self, after: &Pos, turn: Color, ep: Option<u8>) -> Result<u8> {
        let tables = self.tables();
        let main = after.n as u32 == tables.piece_count() && counts_match(after, &tables.counts);
        let plain = |p: &Pos, t: Color| -> Result<u8> {
            if main {
                self.main_wdl(p, t)
            } else {
                tables.closure.wdl(p, t)
            }
        };
        tables.closure.wdl_with_ep(after, turn, ep, &plain)
    }

    /// Whether a winner (class `wdl`) has a pawn move (not a capture) that
    /// keeps its class: then it zeroes at once.
    pub(crate) fn pawn_win(&self, pos: &Pos, turn: Color, wdl: u8) -> Result<bool> {
        // Only the mover's own pawns push.
        if !pos.pc[..pos.n].contains(&turn.pawn()) {
            return Ok(false);
        }
        let mut found = false;
        let mut failure = None;
        pos.for_each_move(turn, Kind::Pushes, |m| {
            if found || failure.is_some() {
                return;
            }
            match self.wdl_after_zeroing(&pos.after(m), !turn, m.ep) {
                Ok(v) => found = flip(v) == wdl,
                Err(e) => failure = Some(e),
            }
        });
        match failure {
            Some(e) => Err(e),
            None => Ok(found),
        }
    }
}

/// Whether a position has exactly the material `counts` (either colour
/// orientation).
fn counts_match(pos: &Pos, counts: &Counts) -> bool {
    let c = crate::tables::reader::counts_of(pos.pc[..pos.n].iter().copied());
    c == *counts || c == [counts[1], counts[0]]
}
