//! Pass 1 of the sweep: the WDL code of every placement of the window's
//! chunk of the scanned table, both sides to move, from the WDL file's stored values made exact
//! with the captures (see the parent module's list of passes). Apart from
//! the later passes because it alone reads the WDL file and the closure's
//! tables, with walks, memos and look-ups of its own.

use rayon::prelude::*;
use shakmaty::Color;

use super::*;

#[path = "wdl_pass/wdl_order.rs"]
mod wdl_order;

/// How many stored WDL values pass 1 decodes at once before packing them
/// (even, so that each part fills whole bytes).
const RAW_WDL_PART: usize = 1 << 22;

impl Sweep {
    /// Pass 1: WDL codes of every placement of the window's chunk, both
    /// sides to move (into the codes [`Sweep::open_window`] made).
    pub(crate) fn pass_wdl(&self, progress: &Progress) -> Result<()> {
        // Symmetric material looks its WDL up in the whole file; otherwise
        // a block reads only its own WDL sub-tables, decoded per block.
        // Paged, either reads the whole file's indices.
        if self.wdl_page_bytes > 0 {
            let paged =
                wdl_pages::PagedWdl::new(&self.wdl_file, self.wdl_page_bytes, self.wdl_page_len);
            if self.walks_wdl_order() {
                return self.pass_wdl_in_wdl_order(&paged, progress);
            }
            return self.pass_wdl_blocks(&paged, progress);
        }
        if self.symmetric && self.pages_stored() {
            // Packed: the plan counts half a byte per value here.
            return self.pass_wdl_blocks(&self.raw_wdl::<true>(None)?, progress);
        }
        if self.symmetric {
            return self.pass_wdl_blocks(&self.raw_wdl::<false>(None)?, progress);
        }
        for b in &self.blocks[self.chunk.clone()] {
            let own = self.raw_wdl::<true>(Some(b))?;
            self.pass_wdl_block(b, &own, progress)?;
        }
        Ok(())
    }

    /// Pass 1 on every block of the window's chunk, whose stored WDL
    /// values `raw` holds or reads, each block void at `raw`'s first error.
    fn pass_wdl_blocks<R: StoredWdlValues>(&self, raw: &R, progress: &Progress) -> Result<()> {
        for b in &self.blocks[self.chunk.clone()] {
            self.pass_wdl_block(b, raw, progress)?;
            raw.failure()?;
        }
        Ok(())
    }

    /// Pass 1 on block `b`, whose stored WDL values `raw` holds.
    fn pass_wdl_block<R: StoredWdlValues>(
        &self,
        b: &Block,
        raw: &R,
        progress: &Progress,
    ) -> Result<()> {
        if let Some(mover) = b.mover {
            return (0..mover.units.count).into_par_iter().try_for_each_init(
                || vec![(0, CaptureMemo::General); MAX * MAX],
                |memo, unit| self.walk_unit_mover(b, mover, unit, raw, memo, progress),
            );
        }
        let units = self.dtz.subs[b.sub].encoding.units();
        (0..units.count).into_par_iter().try_for_each(|unit| {
            self.walk_unit(b, units, unit, progress, |local, pos| -> Result<()> {
                let turns = [b.side, !b.side];
                let att = pos.attacks();
                let legal = [att.legal(turns[0]), !self.symmetric && att.legal(turns[1])];
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
        for half in 0..self.code_halves() {
            if stored[half] != ILLEGAL {
                let code = self.wdl_code(pos, att, turns[half], stored[half], after_capture)?;
                self.set_code(j, half, code);
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
        let halves = self.code_halves();
        let (Some((w0, p0)), Some((w1, p1))) = (&b.wdl_perm[0], b.wdl_perm[halves - 1].as_ref())
        else {
            return Err(Error::inconsistent(
                "the sweep",
                "mover without WDL sub-tables",
            ));
        };
        let codec = &self.dtz.subs[b.sub].encoding;
        let wdl = [&self.wdl.subs[*w0], &self.wdl.subs[*w1]];
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
                        self.closure
                            .wdl_routed_mover(route, r, sq, || pos.after(m), !turn)
                    }
                    CaptureMemo::General => self.capture_wdl(b, pos, m, turn),
                }
            };
            self.store_codes(b, pos, &att, stored, b.base + local, &mut after_capture)
        });
        progress.add(count);
        walked
    }

    /// The WDL file's stored values that pass 1 reads for block `b` (the
    /// WDL sub-tables of its placements, one per side to move), or for
    /// every block (`None`: the whole file).
    fn raw_wdl<const P: bool>(&self, b: Option<&Block>) -> Result<RawWdl<P>> {
        let shift = usize::from(P);
        let mut raw = RawWdl {
            vals: [Vec::new(), Vec::new()],
            start: [0, 0],
        };
        let ranges = self.raw_ranges(b)?;
        for (side, range) in [Color::White, Color::Black].into_iter().zip(ranges) {
            let len = range.end - range.start;
            let mut held = vec![0u8; (len as usize).div_ceil(1 << shift)];
            raw.start[cidx(side)] = range.start;
            // In a slice, that side's WDL sub-table is cut as the block.
            let slice = b.zip(self.slice.as_ref()).and_then(|(b, slice)| {
                let half = usize::from(side != b.side);
                slice.wdl[half].as_ref().map(|(_, map)| map)
            });
            if shift == 0 {
                decode_slice(slice, range.start, 0..len, &mut held, |r, out| {
                    self.wdl_file.decode(side, r, out).map_err(table_error)
                })?;
                raw.vals[cidx(side)] = held;
                continue;
            }
            // Decoded a part at a time (the decoder works in parallel
            // within a part) and packed two to a byte.
            let mut values = Vec::new();
            for (k, bytes) in held.chunks_mut(RAW_WDL_PART / 2).enumerate() {
                let first = (k * RAW_WDL_PART) as u64;
                let last = (first + RAW_WDL_PART as u64).min(len);
                values.clear();
                values.resize((last - first) as usize, 0u8);
                decode_slice(slice, range.start, first..last, &mut values, |r, out| {
                    self.wdl_file.decode(side, r, out).map_err(table_error)
                })?;
                pack_nibbles(&values, bytes).ok_or_else(|| Error::Table {
                    what: self.wdl_file.path().display().to_string(),
                    detail: format!(
                        "stores a WDL value over {RAW_WDL_MAX}; check it with `fiftymove tables --verify`"
                    ),
                })?;
            }
            raw.vals[cidx(side)] = held;
        }
        Ok(raw)
    }

    /// The WDL indices, White's and Black's, that [`Sweep::raw_wdl`]
    /// decodes for block `b` (or for every block).
    pub(super) fn raw_ranges(&self, b: Option<&Block>) -> Result<[std::ops::Range<u64>; 2]> {
        let range = |side: Color| -> Result<std::ops::Range<u64>> {
            let Some(b) = b else {
                return Ok(0..self.wdl_file.index_len(side));
            };
            let half = usize::from(side != b.side);
            let Some((ws, _)) = &b.wdl_perm[half] else {
                return Err(Error::inconsistent(
                    "the sweep",
                    "block without its WDL sub-table",
                ));
            };
            let info = &self.wdl.subs[*ws];
            Ok(info.start..info.start + info.encoding.size)
        };
        Ok([range(Color::White)?, range(Color::Black)?])
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
                raw.get(turn, self.wdl.subs[*ws].start + local as u64)
            }
            Some((ws, perm)) => {
                let info = &self.wdl.subs[*ws];
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
                let loc = self.wdl.locate(&pairs[..n], turn, false).ok_or_else(|| {
                    Error::inconsistent("the sweep", "legal position without a WDL index")
                })?;
                raw.get(loc.side, loc.idx)
            }
        })
    }

    /// [`Sweep::stored_wdl`] of both sides to move at once, where their
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
        let (i0, i1) = (&self.wdl.subs[*w0], &self.wdl.subs[*w1]);
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
            Some(r) => self.closure.wdl_routed(r, &after, !turn),
            None => self.closure.wdl(&after, !turn),
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
