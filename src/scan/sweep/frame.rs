//! The index space of one window: a chunk of the scanned table's blocks
//! (see [`Tables::chunks`]), or a slice of one block, the placements whose
//! leading pawns have digits in a range, whose DTZ and WDL sub-tables
//! then take the slice's encodings. Where a global index lies (its block,
//! its placement), where a position lies, and the walks over a block's
//! placements that every pass takes; no values (see [`super::window`]).

use std::{borrow::Cow, ops::Range};

use rayon::prelude::*;
use shakmaty::Color;

use super::{
    board::{Mv, Pos},
    progress::Progress,
    tables::{Block, Chunk, Mover, Tables},
};
use crate::{
    error::{Error, Result},
    tables::reader::{Encoding, LeadWindow, Located, MoverIndex, TableLayout, Units, MAX},
};

/// Indices per parallel work unit.
pub(crate) const CHUNK: usize = 1 << 15;

/// A slice of one block as its frame cut it: where its local indices lie
/// in the block's DTZ sub-table and in each side's WDL sub-table, whose
/// indices the files are decoded by.
struct Slice {
    /// The slice in the DTZ sub-table.
    dtz: LeadWindow,
    /// For the stored (0) and unstored (1) side to move: the WDL
    /// sub-table and the slice in it.
    wdl: [Option<(usize, LeadWindow)>; 2],
}

/// The index space of one window (see the module's comment).
pub(crate) struct Frame<'t> {
    /// The scanned table.
    pub(crate) tables: &'t Tables,
    /// The chunk's blocks, by their numbers in the table.
    chunk: Range<usize>,
    /// The chunk's blocks; a slice's cut to its length (local indices
    /// count within the slice) and its mover's walk.
    blocks: Cow<'t, [Block]>,
    /// The DTZ and WDL layouts of the window: the whole table's, or, for a
    /// slice, with its block's sub-tables cut to it.
    pub(crate) dtz: Cow<'t, TableLayout>,
    pub(crate) wdl: Cow<'t, TableLayout>,
    /// Where the chunk is a slice of a block, where its indices lie.
    slice: Option<Slice>,
    /// The global index of the window's first index.
    start: usize,
    /// How many global indices the window holds.
    len: usize,
}

/// Per slot and destination of a quiet move: the run of the mover it was
/// worked out in, and the successor's index as a function of the mover's
/// square (`None`: no index). Shared by the units one thread walks.
struct SuccessorMemo(Box<[(u64, Option<MoverIndex>)]>);

impl SuccessorMemo {
    fn new() -> SuccessorMemo {
        SuccessorMemo(vec![(0, None); MAX * 64].into_boxed_slice())
    }
}

/// One placement of a walk with the mover innermost, and what its run
/// knows of the indices (see [`Frame::walk_runs`]).
pub(crate) struct Run<'a> {
    codec: &'a Encoding,
    /// The mover's slot.
    slot: usize,
    /// The placement as the run began (the mover's square aside).
    squares: [u8; MAX],
    /// The mover's square.
    at: u8,
    /// The run's local indices by the mover's square.
    here: [u64; 64],
    /// The run's number.
    id: u64,
    memo: &'a mut SuccessorMemo,
}

impl Run<'_> {
    /// The local index after quiet move `m` (same block).
    #[inline]
    pub(crate) fn successor(&mut self, m: Mv) -> Result<u64> {
        if usize::from(m.i) == self.slot {
            return Ok(self.here[usize::from(m.to)]);
        }
        let cell = &mut self.memo.0[usize::from(m.i) * 64 + usize::from(m.to)];
        if cell.0 != self.id {
            let mut after = self.squares;
            after[usize::from(m.i)] = m.to;
            let n = self.codec.pieces.len();
            *cell = (self.id, self.codec.mover(&after[..n], self.slot));
        }
        // Not `MoverIndex::table`: a run asks a few of its squares only
        // (pass 4 asks only where a value is pending).
        Ok(cell.1.ok_or_else(no_successor)?.index(self.at))
    }
}

/// The error of a successor without an index.
fn no_successor() -> Error {
    Error::inconsistent("the sweep", "successor without a DTZ index")
}

impl<'t> Frame<'t> {
    /// The index space of `chunk` of `tables`.
    ///
    /// # Errors
    ///
    /// A slice of a block whose WDL sub-tables do not share its leading
    /// pawns.
    pub(crate) fn open(tables: &'t Tables, chunk: Chunk) -> Result<Frame<'t>> {
        let mut frame = Frame {
            tables,
            chunk: chunk.blocks.clone(),
            blocks: Cow::Borrowed(&tables.blocks[chunk.blocks]),
            dtz: Cow::Borrowed(tables.dtz()),
            wdl: Cow::Borrowed(tables.wdl()),
            slice: None,
            start: 0,
            len: 0,
        };
        if let Some(digits) = chunk.lead_digits {
            frame.cut(digits)?;
        }
        frame.start = frame.blocks.first().map_or(0, |b| b.base);
        frame.len = frame.blocks.iter().map(|b| b.len).sum();
        Ok(frame)
    }

    /// Cuts the frame's one block to the placements whose leading pawns
    /// have digits `digits`: its DTZ and WDL sub-tables take the slice's
    /// encodings.
    fn cut(&mut self, digits: Range<u64>) -> Result<()> {
        let mut block = self.blocks[0].clone();
        let sub = block.sub;
        let (enc, dtz) = self.tables.dtz().subs[sub].encoding.window(digits.clone());
        let mut wdl = [None, None];
        let mut wdl_layout = self.tables.wdl().clone();
        for (half, perm) in block.wdl_perm.iter().enumerate() {
            let Some((ws, _)) = perm else { continue };
            let whole = &self.tables.wdl().subs[*ws].encoding;
            if !whole.same_lead(&enc) || whole.lead_place().1 != dtz.full_radix {
                return Err(Error::inconsistent(
                    "the sweep",
                    "a WDL sub-table without the leading pawns of its DTZ sub-table",
                ));
            }
            let (wenc, map) = whole.window(digits.clone());
            wdl_layout.subs[*ws].encoding = wenc;
            wdl[half] = Some((*ws, map));
        }
        block.len = enc.size as usize;
        if let Some(m) = &mut block.mover {
            m.units = enc.mover_units(m.dtz_slot).ok_or_else(|| {
                Error::inconsistent("the sweep", "a slice without its mover's walk")
            })?;
        }
        let mut dtz_layout = self.tables.dtz().clone();
        dtz_layout.subs[sub].encoding = enc;
        self.dtz = Cow::Owned(dtz_layout);
        self.wdl = Cow::Owned(wdl_layout);
        self.blocks = Cow::Owned(vec![block]);
        self.slice = Some(Slice { dtz, wdl });
        Ok(())
    }

    /// The blocks of the window's chunk.
    #[inline]
    pub(crate) fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// How many global indices the window holds.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether the window is a slice of a block.
    #[inline]
    pub(crate) fn is_slice(&self) -> bool {
        self.slice.is_some()
    }

    /// Where the slice's local indices lie in its DTZ sub-table (`None`:
    /// the window is not a slice).
    pub(crate) fn dtz_slice(&self) -> Option<&LeadWindow> {
        self.slice.as_ref().map(|s| &s.dtz)
    }

    /// Where the slice's local indices lie in the WDL sub-table of side
    /// `half` (0 stored, 1 unstored) of its block (`None`: not a slice,
    /// or no such sub-table).
    pub(crate) fn wdl_slice(&self, half: usize) -> Option<&LeadWindow> {
        let slice = self.slice.as_ref()?;
        slice.wdl[half].as_ref().map(|(_, map)| map)
    }

    /// The cell of global index `j` in the window's arrays. Every index the
    /// passes reach lies in the window: the chunk's own, and the
    /// successors of their moves that keep the material (see
    /// [`Tables::chunks`]).
    #[inline]
    pub(crate) fn cell(&self, j: usize) -> usize {
        j - self.start
    }

    /// The block and local index of a global index of the window.
    pub(crate) fn block_at(&self, j: usize) -> (&Block, usize) {
        let b = &self.blocks[self.block_index_at(j)];
        (b, j - b.base)
    }

    /// The number of the block of a global index among the window's.
    pub(crate) fn block_index_at(&self, j: usize) -> usize {
        self.blocks.partition_point(|b| b.base + b.len <= j)
    }

    /// The placement of a local index of a block, in DTZ slot order.
    #[inline]
    pub(crate) fn pos_of(&self, b: &Block, local: usize) -> Pos {
        let codec = &self.dtz.subs[b.sub].encoding;
        let mut squares = [0u8; MAX];
        codec.decode(local as u64, &mut squares);
        Pos::new(&codec.pieces, &squares)
    }

    /// Calls `f(local index, position)` for every placement of one work
    /// unit of block `b` (see [`Encoding::walk`]) and reports the unit's
    /// placements to `progress`. The position is built once per unit: the
    /// pieces stay, only the squares change.
    ///
    /// # Errors
    ///
    /// The first error `f` returns.
    pub(crate) fn walk_unit<E>(
        &self,
        b: &Block,
        units: Units,
        unit: u64,
        progress: &Progress,
        mut f: impl FnMut(usize, &Pos) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let codec = &self.dtz.subs[b.sub].encoding;
        let mut pos = Pos::new(&codec.pieces, &[0; MAX]);
        let mut n = 0;
        let walked = codec.walk(units, unit, |local, squares| {
            n += 1;
            pos.sq = *squares;
            f(local as usize, &pos)
        });
        progress.add(n);
        walked
    }

    /// Calls `f(global index, position, run)` for every placement of block
    /// `b`, walked in parallel with the piece `mover` innermost (passes 3
    /// and 4); `run` gives the local index of a quiet move's successor
    /// without encoding it: a move of the mover leads to the index
    /// [`crate::tables::reader::Encoding::mover`] gives for the run, a move of
    /// another piece to one that a per-thread memo (per slot and
    /// destination) works out once per run. Reports the placements to
    /// `progress`.
    ///
    /// # Errors
    ///
    /// The first error `f` returns, or a placement without an index.
    pub(crate) fn walk_runs(
        &self,
        b: &Block,
        mover: Mover,
        progress: &Progress,
        f: impl Fn(usize, &Pos, &mut Run) -> Result<()> + Sync,
    ) -> Result<()> {
        (0..mover.units.count)
            .into_par_iter()
            .try_for_each_init(SuccessorMemo::new, |memo, unit| {
                self.walk_unit_runs(b, mover, unit, memo, progress, &f)
            })
    }

    /// [`Frame::walk_runs`] on one work unit.
    fn walk_unit_runs(
        &self,
        b: &Block,
        mover: Mover,
        unit: u64,
        memo: &mut SuccessorMemo,
        progress: &Progress,
        f: &impl Fn(usize, &Pos, &mut Run) -> Result<()>,
    ) -> Result<()> {
        let codec = &self.dtz.subs[b.sub].encoding;
        let slot = mover.dtz_slot;
        let mut pos = Pos::new(&codec.pieces, &[0; MAX]);
        let mut run = Run {
            codec,
            slot,
            squares: [0; MAX],
            at: 0,
            here: [0; 64],
            // Runs are numbered from the unit's first index, so that a
            // memo entry of an earlier unit never passes for one of this
            // unit.
            id: unit * (1 << 32),
            memo,
        };
        let mut count = 0;
        let walked = codec.walk_mover(mover.units, unit, slot, |squares, fresh| {
            count += 1;
            if fresh {
                run.here = codec.mover(squares, slot).ok_or_else(no_successor)?.table();
                run.squares = *squares;
                pos.sq = *squares;
                run.id += 1;
            }
            let sq = squares[slot];
            run.at = sq;
            let j = b.base + run.here[usize::from(sq)] as usize;
            // As in pass 1: only the mover moved.
            pos.sq[slot] = sq;
            f(j, &pos, &mut run)
        });
        progress.add(count);
        walked
    }

    /// Global index and half (0 stored, 1 unstored) of a located position,
    /// if the window holds it.
    #[inline]
    fn global(&self, loc: Located, turn: Color) -> Option<(usize, usize)> {
        let k = self.tables.block_of_sub[loc.sub];
        if !self.chunk.contains(&k) {
            return None;
        }
        let b = &self.tables.blocks[k];
        let mut local = loc.idx - self.tables.dtz().subs[loc.sub].start;
        if let Some(slice) = &self.slice {
            local = slice.dtz.local_index(local)?;
        }
        let half = usize::from(!self.tables.symmetric && loc.side != turn);
        Some((b.base + local as usize, half))
    }

    /// The global index and half of a position given as its pieces on
    /// squares (any order, any colour frame the table accepts) with `turn`
    /// to move, if the window holds it (`None` if another chunk does: the
    /// whole table's layout finds it, the slice's may not).
    ///
    /// # Errors
    ///
    /// A position without an index in the DTZ file.
    pub(crate) fn locate(
        &self,
        pieces: &[(shakmaty::Piece, u8)],
        turn: Color,
    ) -> Result<Option<(usize, usize)>> {
        let loc = self
            .tables
            .dtz()
            .locate(pieces, turn, true)
            .ok_or_else(|| {
                Error::inconsistent("the sweep", "position without an index in the DTZ file")
            })?;
        Ok(self
            .global(loc, turn)
            .filter(|&(j, _)| j >= self.start && j - self.start < self.len))
    }

    /// [`Frame::locate`] of a position of this table (any slot order).
    ///
    /// # Errors
    ///
    /// As [`Frame::locate`].
    pub(crate) fn locate_pos(&self, pos: &Pos, turn: Color) -> Result<Option<(usize, usize)>> {
        let (pairs, n) = pos.pair_array();
        self.locate(&pairs[..n], turn)
    }

    /// The successor of a position of block `b` by quiet move `m` of
    /// `mover`: its global index and side (0 stored, 1 unstored).
    ///
    /// # Errors
    ///
    /// A successor without an index, or outside the window.
    #[inline]
    pub(crate) fn quiet_succ(
        &self,
        b: &Block,
        pos: &Pos,
        m: Mv,
        mover: Color,
    ) -> Result<(usize, usize)> {
        if self.tables.symmetric {
            return self.locate_pos(&pos.after(m), !mover)?.ok_or_else(|| {
                Error::inconsistent("the sweep", "a quiet move left the chunk of its position")
            });
        }
        let codec = &self.dtz.subs[b.sub].encoding;
        // A quiet move captures nothing and promotes nothing: the slots
        // keep their pieces, one its square.
        let mut squares = pos.sq;
        squares[usize::from(m.i)] = m.to;
        let idx = codec
            .encode(&mut squares[..pos.n])
            .ok_or_else(|| Error::inconsistent("the sweep", "successor without a DTZ index"))?;
        Ok((b.base + idx as usize, usize::from(!mover != b.side)))
    }
}
