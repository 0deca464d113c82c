//! Pass 1 of a pawnless table without symmetry whose WDL values are read
//! page by page ([`super::super::wdl_values::PagedWdl`]): each side's WDL
//! sub-table that encodes otherwise than the DTZ sub-table is walked in
//! its own index order, not looked up per placement of the DTZ order.
//!
//! Why: the two encodings order the pieces differently, so the DTZ order
//! reads that side's WDL values at random, and through pages that hold a
//! few percent of the file, almost every read would decode a page again.
//! Walked in its own order, the WDL sub-table is read page after page,
//! each page decoded once; each placement's code goes to its DTZ index.
//!
//! A DTZ index that no WDL placement encodes to is one whose DTZ leading
//! group lies on the a1-h8 diagonal while the WDL's does not: the WDL
//! index holds one orientation of the position, the DTZ index both (see
//! [`crate::tables::reader::Encoding::images`]). Its code is its diagonal
//! twin's, which the walk did reach; read it in the DTZ order walk after.

use rayon::prelude::*;
use shakmaty::Color;

use super::{
    Block, Error, PagedWdl, Pos, Progress, Result, StoredWdlValues, WdlPass, ILLEGAL, MAX,
};

impl WdlPass<'_> {
    /// Whether pass 1, its WDL values paged, walks WDL sub-tables in their
    /// own order (see the module's comment): a pawnless table without
    /// symmetry, not cut into slices.
    pub(super) fn walks_wdl_order(&self) -> bool {
        let tables = self.w.tables();
        !tables.symmetric && !tables.dtz().has_pawns && !self.w.frame.is_slice()
    }

    /// Pass 1 on every block of the window's chunk, the WDL values read
    /// through `raw`: first each side whose WDL sub-table encodes otherwise,
    /// in that sub-table's order; then the DTZ order for the rest.
    pub(super) fn blocks_in_wdl_order(
        &self,
        raw: &PagedWdl<'_>,
        progress: &Progress,
    ) -> Result<()> {
        let halves = self.w.tables().code_halves();
        for b in self.w.frame.blocks() {
            let walked: [bool; 2] =
                std::array::from_fn(|h| h < halves && b.wdl_perm[h].is_some() && !b.same_index[h]);
            // The block's progress shared among the walks, which each
            // take about as long.
            let walks = 1 + walked.iter().filter(|&&w| w).count() as u64;
            for half in (0..2).filter(|&h| walked[h]) {
                self.walk_wdl_sub_table(b, half, raw, progress, walks)?;
                raw.failure()?;
            }
            self.rest(b, walked, raw, progress, walks)?;
            raw.failure()?;
        }
        Ok(())
    }

    /// The codes of side `half` of block `b`, from its WDL sub-table
    /// walked in index order: each legal placement's code at its DTZ
    /// index. Two WDL indices of one DTZ index (both orientations of a
    /// position whose WDL leading group lies on the diagonal) write the
    /// same code. Reports its share of the block's progress, one of
    /// `walks`.
    fn walk_wdl_sub_table<R: StoredWdlValues>(
        &self,
        b: &Block,
        half: usize,
        raw: &R,
        progress: &Progress,
        walks: u64,
    ) -> Result<()> {
        let Some((ws, perm)) = &b.wdl_perm[half] else {
            return Err(Error::inconsistent(
                "the sweep",
                "a WDL order walk without its WDL sub-table",
            ));
        };
        let info = &self.w.frame.wdl.subs[*ws];
        let codec = &self.w.frame.dtz.subs[b.sub].encoding;
        let turn = if half == 0 { b.side } else { !b.side };
        let n = codec.pieces.len();
        let units = info.encoding.units();
        let per_block = walks * info.encoding.size.max(1);
        (0..units.count).into_par_iter().try_for_each(|unit| {
            let mut pos = Pos::new(&codec.pieces, &[0; MAX]);
            let mut count = 0u64;
            let walk = info
                .encoding
                .walk(units, unit, |widx, squares| -> Result<()> {
                    count += 1;
                    // `perm`: per WDL slot, the DTZ slot of the same piece.
                    for (slot, &d) in perm[..n].iter().enumerate() {
                        pos.sq[usize::from(d)] = squares[slot];
                    }
                    let att = pos.attacks();
                    if !att.legal(turn) {
                        return Ok(());
                    }
                    let mut dtz_squares = pos.sq;
                    let local = codec.encode(&mut dtz_squares[..n]).ok_or_else(|| {
                        Error::inconsistent("the sweep", "legal position without a DTZ index")
                    })?;
                    let mut stored = [ILLEGAL; 2];
                    stored[half] = raw.get(turn, info.start + widx);
                    let pos = &pos;
                    let j = b.base + local as usize;
                    self.store_codes(b, pos, &att, stored, j, &mut |m, t: Color| {
                        self.capture_wdl(b, pos, m, t)
                    })
                });
            progress.add(count * b.len as u64 / per_block);
            walk
        })
    }

    /// Pass 1 on block `b` in the DTZ order after the WDL order walks of
    /// the sides `walked`: the other sides' codes (their WDL indices are
    /// the DTZ ones, read in order), and, for a walked side, the codes of
    /// the legal placements the walk did not reach (see the module's
    /// comment), each its diagonal twin's. Reports its share of the
    /// block's progress, one of `walks`.
    fn rest<R: StoredWdlValues>(
        &self,
        b: &Block,
        walked: [bool; 2],
        raw: &R,
        progress: &Progress,
        walks: u64,
    ) -> Result<()> {
        let codec = &self.w.frame.dtz.subs[b.sub].encoding;
        let n = codec.pieces.len();
        let units = codec.units();
        let turns = [b.side, !b.side];
        (0..units.count).into_par_iter().try_for_each(|unit| {
            let mut pos = Pos::new(&codec.pieces, &[0; MAX]);
            let mut count = 0u64;
            let walk = codec.walk(units, unit, |local, squares| -> Result<()> {
                count += 1;
                pos.sq = *squares;
                let (local, pos) = (local as usize, &pos);
                let att = pos.attacks();
                let j = b.base + local;
                // The stored values of the halves left to work out here.
                let mut stored = [ILLEGAL; 2];
                for half in 0..self.w.tables().code_halves() {
                    if !att.legal(turns[half]) {
                        continue;
                    }
                    if walked[half] {
                        if self.w.code(j, half) != ILLEGAL {
                            continue;
                        }
                        let twin = codec
                            .diagonal_twin(&pos.sq[..n])
                            .map(|t| b.base + t as usize);
                        if let Some(code) = twin
                            .filter(|&t| t != j)
                            .map(|t| self.w.code(t, half))
                            .filter(|&c| c != ILLEGAL)
                        {
                            self.w.set_code(j, half, code);
                            continue;
                        }
                        // Not expected; looked up the general way, which
                        // is right, only slow.
                    }
                    stored[half] = self.stored_wdl(raw, b, half, local, pos, turns[half])?;
                }
                self.store_codes(b, pos, &att, stored, j, &mut |m, t| {
                    self.capture_wdl(b, pos, m, t)
                })
            });
            progress.add(count / walks);
            walk
        })
    }
}
