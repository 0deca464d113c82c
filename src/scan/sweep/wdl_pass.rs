//! Pass 1 of the sweep: the WDL code of every placement of the window's
//! chunk of the scanned table, both sides to move, from the WDL file's
//! stored values made exact with the captures (see the list of passes in
//! [`super`]). Apart from the later passes because it alone reads the WDL
//! file and the closure's tables, with walks, memos and look-ups of its
//! own.

use rayon::prelude::*;
use shakmaty::Color;

use super::{
    board::{Attacks, Mv, Pos},
    closure::{Closure, RoutedMover},
    code::{flip, DRAW, ILLEGAL, LOSS, MATED, WIN, ZB},
    progress::Progress,
    tables::{Block, Mover},
    wdl_values::{ByteWdl, NibbleWdl, PagedWdl, StoredWdlValues, WdlRanges, WdlValues},
    window::Window,
};
use crate::{
    error::{Error, Result},
    tables::reader::MAX,
};

mod wdl_order;

/// What pass 1 keeps of one capture (by one slot of another) for a run of
/// the mover.
#[derive(Clone, Copy)]
enum CaptureMemo {
    /// The mover takes: the same position after it all run long.
    Value(u8),
    /// The index after the capture as a function of the mover's square.
    Moving(RoutedMover),
    /// Worked out per placement.
    General,
}

/// Pass 1: WDL codes of every placement of `window`'s chunk, both sides
/// to move (into the codes the window holds), its WDL values read as
/// `values` says: one source for the whole pass, or one per block.
///
/// # Errors
///
/// The files cannot be decoded, or the tables are inconsistent.
pub(crate) fn pass(window: &Window, values: WdlValues, progress: &Progress) -> Result<()> {
    let pass = WdlPass { w: window };
    let tables = window.tables();
    let file = &tables.wdl_file;
    // Symmetric material looks its WDL up in the whole file; otherwise a
    // block reads only its own WDL sub-tables, decoded per block. Paged,
    // either reads the whole file's indices.
    match values {
        WdlValues::Paged(paging) => {
            let paged = PagedWdl::new(file, paging);
            if pass.walks_wdl_order() {
                return pass.blocks_in_wdl_order(&paged, progress);
            }
            pass.blocks(&paged, progress)
        }
        WdlValues::Bytes if tables.symmetric => {
            pass.blocks(&ByteWdl::decode(&pass.whole_file()?)?, progress)
        }
        WdlValues::Nibbles if tables.symmetric => {
            pass.blocks(&NibbleWdl::decode(&pass.whole_file()?)?, progress)
        }
        WdlValues::Bytes => {
            for b in window.frame.blocks() {
                pass.block(b, &ByteWdl::decode(&pass.block_ranges(b)?)?, progress)?;
            }
            Ok(())
        }
        WdlValues::Nibbles => {
            for b in window.frame.blocks() {
                pass.block(b, &NibbleWdl::decode(&pass.block_ranges(b)?)?, progress)?;
            }
            Ok(())
        }
    }
}

/// Pass 1 over one window.
struct WdlPass<'a> {
    w: &'a Window<'a>,
}

impl WdlPass<'_> {
    /// Pass 1 on every block of the window's chunk, whose stored WDL
    /// values `raw` holds or reads, each block void at `raw`'s first error.
    fn blocks<R: StoredWdlValues>(&self, raw: &R, progress: &Progress) -> Result<()> {
        for b in self.w.frame.blocks() {
            self.block(b, raw, progress)?;
            raw.failure()?;
        }
        Ok(())
    }

    /// Pass 1 on block `b`, whose stored WDL values `raw` holds.
    fn block<R: StoredWdlValues>(&self, b: &Block, raw: &R, progress: &Progress) -> Result<()> {
        if let Some(mover) = b.mover {
            return (0..mover.units.count).into_par_iter().try_for_each_init(
                || vec![(0, CaptureMemo::General); MAX * MAX],
                |memo, unit| self.walk_unit_mover(b, mover, unit, raw, memo, progress),
            );
        }
        let units = self.w.frame.dtz.subs[b.sub].encoding.units();
        (0..units.count).into_par_iter().try_for_each(|unit| {
            self.w
                .frame
                .walk_unit(b, units, unit, progress, |local, pos| -> Result<()> {
                    let turns = [b.side, !b.side];
                    let att = pos.attacks();
                    let legal = [
                        att.legal(turns[0]),
                        !self.w.tables().symmetric && att.legal(turns[1]),
                    ];
                    let stored = match b.shared_lead {
                        Some(map) if legal == [true, true] => {
                            self.stored_wdl_shared(raw, b, &map, pos)?
                        }
                        _ => {
                            let mut stored = [ILLEGAL; 2];
                            for half in 0..2 {
                                if legal[half] {
                                    stored[half] =
                                        self.stored_wdl(raw, b, half, local, pos, turns[half])?;
                                }
                            }
                            stored
                        }
                    };
                    let mut after_capture = |m, turn| self.capture_wdl(b, pos, m, turn);
                    self.store_codes(b, pos, &att, stored, b.base + local, &mut after_capture)
                })
        })?;
        Ok(())
    }

    /// Pass 1's work on one placement once its stored values are known:
    /// the WDL codes of the sides to move (stored side first) for which it
    /// is legal, those whose stored value is not [`ILLEGAL`], at global
    /// index `j`.
    #[inline]
    fn store_codes(
        &self,
        b: &Block,
        pos: &Pos,
        att: &Attacks,
        stored: [u8; 2],
        j: usize,
        after_capture: &mut impl FnMut(Mv, Color) -> Result<u8>,
    ) -> Result<()> {
        let turns = [b.side, !b.side];
        for half in 0..self.w.tables().code_halves() {
            if stored[half] != ILLEGAL {
                let code = self.wdl_code(pos, att, turns[half], stored[half], after_capture)?;
                self.w.set_code(j, half, code);
            }
        }
        Ok(())
    }

    /// Pass 1 on one work unit of block `b`, walked with the piece
    /// `mover` innermost: the placement's DTZ index and both sides' WDL
    /// indices are worked out once per run of the mover (see
    /// [`crate::tables::reader::Encoding::mover`]), not encoded per placement.
    #[allow(clippy::too_many_arguments)]
    fn walk_unit_mover<R: StoredWdlValues>(
        &self,
        b: &Block,
        mover: Mover,
        unit: u64,
        raw: &R,
        memo: &mut [(u64, CaptureMemo)],
        progress: &Progress,
    ) -> Result<()> {
        // A symmetric table stores one side to move: half 1 is never
        // legal, and stands in for nothing.
        let halves = self.w.tables().code_halves();
        let (Some((w0, p0)), Some((w1, p1))) = (&b.wdl_perm[0], b.wdl_perm[halves - 1].as_ref())
        else {
            return Err(Error::inconsistent(
                "the sweep",
                "mover without WDL sub-tables",
            ));
        };
        let codec = &self.w.frame.dtz.subs[b.sub].encoding;
        let wdl = [&self.w.frame.wdl.subs[*w0], &self.w.frame.wdl.subs[*w1]];
        let perms = [p0, p1];
        let turns = [b.side, !b.side];
        let n = codec.pieces.len();
        let mut pos = Pos::new(&codec.pieces, &[0; MAX]);
        // The run's indices by the mover's square: the DTZ index, and each
        // side's WDL index (`None`: no index, which a legal placement
        // must not meet).
        let mut dtz_index: Option<[u64; 64]> = None;
        let mut wdl_index: [Option<[u64; 64]>; 2] = [None, None];
        let mut count = 0;
        let no_index = || Error::inconsistent("the sweep", "legal position without a WDL index");
        // Runs are numbered from the unit's first index, so that a memo
        // entry of an earlier unit never passes for one of this unit.
        let mut run = unit * (1 << 32);
        let walked = codec.walk_mover(mover.units, unit, mover.dtz_slot, |squares, fresh| {
            count += 1;
            if fresh {
                run += 1;
                pos.sq = *squares;
                dtz_index = codec.mover(squares, mover.dtz_slot).map(|m| m.table());
                for half in 0..halves {
                    let mut ws = [0u8; MAX];
                    for (slot, &d) in perms[half][..n].iter().enumerate() {
                        ws[slot] = squares[usize::from(d)];
                    }
                    wdl_index[half] = wdl[half]
                        .encoding
                        .mover(&ws, mover.wdl_slot[half])
                        .map(|m| m.table());
                }
            }
            let sq = squares[mover.dtz_slot];
            let local = dtz_index.as_ref().ok_or_else(|| {
                Error::inconsistent("the sweep", "walked placement without a DTZ index")
            })?[usize::from(sq)] as usize;
            // Only the mover moved: one byte, not the whole array (which
            // the walk has just written byte by byte; a wide load of it
            // would wait for those stores).
            pos.sq[mover.dtz_slot] = sq;
            let att = pos.attacks();
            let legal = [att.legal(turns[0]), halves == 2 && att.legal(turns[1])];
            let mut stored = [ILLEGAL; 2];
            for half in 0..halves {
                if legal[half] {
                    let idx = wdl_index[half].as_ref().ok_or_else(no_index)?[usize::from(sq)];
                    stored[half] = raw.get(turns[half], wdl[half].start + idx);
                }
            }
            let pos = &pos;
            let mut after_capture = |m: Mv, turn: Color| -> Result<u8> {
                let cell = &mut memo[usize::from(m.i) * MAX + usize::from(m.cap)];
                if cell.0 != run {
                    *cell = (run, self.capture_memo(b, pos, m, turn, mover.dtz_slot)?);
                }
                match &cell.1 {
                    CaptureMemo::Value(v) => Ok(*v),
                    CaptureMemo::Moving(r) => {
                        let route = b.routes[usize::from(m.cap)].as_ref().ok_or_else(|| {
                            Error::inconsistent("the sweep", "capture memo without its route")
                        })?;
                        self.w.tables().closure.wdl_routed_mover(
                            route,
                            r,
                            sq,
                            || pos.after(m),
                            !turn,
                        )
                    }
                    CaptureMemo::General => self.capture_wdl(b, pos, m, turn),
                }
            };
            self.store_codes(b, pos, &att, stored, b.base + local, &mut after_capture)
        });
        progress.add(count);
        walked
    }

    /// The whole WDL file's indices, which a symmetric table's pass 1
    /// holds.
    fn whole_file(&self) -> Result<WdlRanges<'_>> {
        let file = &self.w.tables().wdl_file;
        Ok(WdlRanges {
            file,
            ranges: Color::ALL.map(|side| 0..file.index_len(side)),
            slices: [None, None],
        })
    }

    /// The WDL indices, White's and Black's, that pass 1 holds for block
    /// `b`: its WDL sub-tables, one per side to move, cut as the block is
    /// where the window is a slice.
    fn block_ranges(&self, b: &Block) -> Result<WdlRanges<'_>> {
        let range = |side: Color| -> Result<std::ops::Range<u64>> {
            let half = usize::from(side != b.side);
            let Some((ws, _)) = &b.wdl_perm[half] else {
                return Err(Error::inconsistent(
                    "the sweep",
                    "block without its WDL sub-table",
                ));
            };
            let info = &self.w.frame.wdl.subs[*ws];
            Ok(info.start..info.start + info.encoding.size)
        };
        Ok(WdlRanges {
            file: &self.w.tables().wdl_file,
            ranges: [range(Color::White)?, range(Color::Black)?],
            slices: Color::ALL.map(|side| self.w.frame.wdl_slice(usize::from(side != b.side))),
        })
    }

    /// The stored WDL of a legal placement for one side to move (pass 1),
    /// captures not yet applied.
    #[inline]
    fn stored_wdl<R: StoredWdlValues>(
        &self,
        raw: &R,
        b: &Block,
        half: usize,
        local: usize,
        pos: &Pos,
        turn: Color,
    ) -> Result<u8> {
        Ok(match &b.wdl_perm[half] {
            Some((ws, _)) if b.same_index[half] => {
                raw.get(turn, self.w.frame.wdl.subs[*ws].start + local as u64)
            }
            Some((ws, perm)) => {
                let info = &self.w.frame.wdl.subs[*ws];
                let mut squares = [0u8; MAX];
                for (slot, &d) in perm[..pos.n].iter().enumerate() {
                    squares[slot] = pos.sq[usize::from(d)];
                }
                let idx = info.encoding.encode(&mut squares[..pos.n]).ok_or_else(|| {
                    Error::inconsistent("the sweep", "legal position without a WDL index")
                })?;
                raw.get(turn, info.start + idx)
            }
            None => {
                let (pairs, n) = pos.pair_array();
                let loc = self
                    .w
                    .frame
                    .wdl
                    .locate(&pairs[..n], turn, false)
                    .ok_or_else(|| {
                        Error::inconsistent("the sweep", "legal position without a WDL index")
                    })?;
                raw.get(loc.side, loc.idx)
            }
        })
    }

    /// [`WdlPass::stored_wdl`] of both sides to move at once, where their
    /// WDL sub-tables share the leading group (`map`: see
    /// [`Block::shared_lead`]).
    #[inline]
    fn stored_wdl_shared<R: StoredWdlValues>(
        &self,
        raw: &R,
        b: &Block,
        map: &[u8; MAX],
        pos: &Pos,
    ) -> Result<[u8; 2]> {
        let (Some((w0, perm)), Some((w1, _))) = (&b.wdl_perm[0], &b.wdl_perm[1]) else {
            return Err(Error::inconsistent(
                "the sweep",
                "shared leading group without WDL sub-tables",
            ));
        };
        let (i0, i1) = (&self.w.frame.wdl.subs[*w0], &self.w.frame.wdl.subs[*w1]);
        let n = pos.n;
        let mut s0 = [0u8; MAX];
        for (slot, &d) in perm[..n].iter().enumerate() {
            s0[slot] = pos.sq[usize::from(d)];
        }
        let lead = i0.encoding.encode_lead(&mut s0[..n]).ok_or_else(|| {
            Error::inconsistent("the sweep", "legal position without a WDL index")
        })?;
        let mut s1 = [0u8; MAX];
        for (t, &u) in map[..n].iter().enumerate() {
            s1[t] = s0[usize::from(u)];
        }
        let x0 = i0.encoding.encode_rest(&mut s0[..n], lead);
        let x1 = i1.encoding.encode_rest(&mut s1[..n], lead);
        Ok([
            raw.get(b.side, i0.start + x0),
            raw.get(!b.side, i1.start + x1),
        ])
    }

    /// The WDL code of a legal placement and side to move (pass 1): the
    /// stored value made exact with the captures.
    #[inline]
    fn wdl_code(
        &self,
        pos: &Pos,
        att: &Attacks,
        turn: Color,
        stored: u8,
        after_capture: &mut impl FnMut(Mv, Color) -> Result<u8>,
    ) -> Result<u8> {
        let mut best: Option<u8> = None;
        let mut failure = None;
        att.for_each_capture(pos, turn, |m| {
            if best == Some(WIN) || failure.is_some() {
                return;
            }
            match after_capture(m, turn) {
                Ok(v) => best = Some(best.map_or(flip(v), |b| b.max(flip(v)))),
                Err(e) => failure = Some(e),
            }
        });
        if let Some(e) = failure {
            return Err(e);
        }
        let mut code = match best {
            Some(c) if c >= stored => c | if c > DRAW { ZB } else { 0 },
            _ => stored,
        };
        if best.is_none() && stored == LOSS && att.in_check(turn) && !pos.has_move(turn) {
            code = LOSS | MATED;
        }
        Ok(code)
    }

    /// The WDL (for the side to move then) after capture `m` by `turn` in
    /// `pos`, a placement of block `b`.
    #[inline]
    fn capture_wdl(&self, b: &Block, pos: &Pos, m: Mv, turn: Color) -> Result<u8> {
        let after = pos.after(m);
        let route = match m.promo {
            None => b.routes[usize::from(m.cap)].as_ref(),
            Some(_) => None,
        };
        match route {
            Some(r) => self.w.tables().closure.wdl_routed(r, &after, !turn),
            None => self.w.tables().closure.wdl(&after, !turn),
        }
    }

    /// What pass 1 keeps of a capture for the rest of a run of the mover
    /// (slot `mover`), where the piece of slot `slot` (after the
    /// capture) is the one that moves in the run: the mover, or the piece
    /// that takes it.
    fn capture_memo(
        &self,
        b: &Block,
        pos: &Pos,
        m: Mv,
        turn: Color,
        mover: usize,
    ) -> Result<CaptureMemo> {
        let Some(route) = (match m.promo {
            None => b.routes[usize::from(m.cap)].as_ref(),
            Some(_) => None,
        }) else {
            return Ok(CaptureMemo::General);
        };
        let (i, cap) = (usize::from(m.i), usize::from(m.cap));
        if i == mover {
            // The mover lands on the captured piece's square: the same
            // position all run long.
            return Ok(CaptureMemo::Value(self.capture_wdl(b, pos, m, turn)?));
        }
        // After the capture, the slots above the captured one move down.
        let moving = if cap == mover { i } else { mover };
        let slot = moving - usize::from(moving > cap);
        Ok(match Closure::routed_mover(route, &pos.after(m), slot) {
            Some(r) => CaptureMemo::Moving(r),
            None => CaptureMemo::General,
        })
    }
}
