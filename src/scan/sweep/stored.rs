//! Pass 2 of the sweep: the raw DTZ of the side the DTZ file stores,
//! decoded from the file and made exact where a zeroing move is best
//! (shakmaty-syzygy's raw value, which may be rounded: "n or n+1"); and its
//! reads, held a byte per index or decoded again page by page where read
//! ([`StoredBytes`]). A stored raw value is a function of the file's value
//! at its index and of its WDL code (the class, the capture and checkmate
//! flags: fixed by pass 1), so a page decoded again gives the same bytes
//! pass 2 would have stored, and what is evicted, and when, never changes
//! a result.

use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;

use super::{
    code::{decode_mag, fixed_raw, mag_byte, sign, zero_score, DRAW, ILLEGAL, ZB},
    dtz_bytes::{StoredBytes, StoredPages},
    frame::CHUNK,
    progress::Progress,
    read_error::table_error,
    slices::decode_slice,
    tables::Block,
    window::Window,
};
use crate::{
    error::{Error, Result},
    tables::reader::DtzValue,
};

/// The stored side's raw DTZ of one window: pass 2 and its reads.
#[derive(Clone, Copy)]
pub(crate) struct Stored<'a> {
    /// The window.
    pub(crate) w: &'a Window<'a>,
    /// The bytes, held or paged.
    bytes: &'a StoredBytes,
}

impl<'a> Stored<'a> {
    /// The stored side of `w`, its bytes in `bytes`.
    pub(crate) fn new(w: &'a Window<'a>, bytes: &'a StoredBytes) -> Stored<'a> {
        Stored { w, bytes }
    }

    /// Pass 2: the stored side's raw DTZ (exact where not rounded), for
    /// the blocks of the window's chunk.
    pub(crate) fn pass(&self, progress: &Progress) -> Result<()> {
        for b in self.w.frame.blocks() {
            (0..b.len.div_ceil(CHUNK))
                .into_par_iter()
                .try_for_each(|c| -> Result<()> {
                    let first = c * CHUNK;
                    let last = (first + CHUNK).min(b.len);
                    self.raws(b, first..last, |j, v, rounded| self.store(j, v, rounded))?;
                    progress.add((last - first) as u64);
                    Ok(())
                })?;
        }
        Ok(())
    }

    /// Calls `f(global index, raw DTZ, whether rounded)` with
    /// shakmaty-syzygy's raw DTZ of the stored side at each local index of
    /// `range` of block `b` of the window, in order: the DTZ file's values,
    /// decoded, made exact where a zeroing move is best.
    ///
    /// # Errors
    ///
    /// The file cannot be decoded, or the first error of `f`.
    #[inline]
    fn raws(
        &self,
        b: &Block,
        range: std::ops::Range<usize>,
        mut f: impl FnMut(usize, i16, bool) -> Result<()>,
    ) -> Result<()> {
        let w = self.w;
        let start = w.frame.dtz.subs[b.sub].start;
        let (first, last) = (range.start, range.end);
        let codes: Vec<u8> = (b.base + first..b.base + last)
            .map(|j| match w.code(j, 0) {
                ILLEGAL => DRAW,
                c => c & 7,
            })
            .collect();
        let mut vals = vec![DtzValue::default(); last - first];
        let local = first as u64..last as u64;
        let slice = w.frame.dtz_slice();
        decode_slice(slice, start, local, &mut vals, |range, out| {
            let mapped: Vec<u8>;
            let wdl = match slice {
                None => &codes,
                // Outside the slice, any WDL value does: what
                // is decoded there is dropped.
                Some(map) => {
                    mapped = (range.start - start..range.end - start)
                        .map(|full| {
                            map.local_index(full)
                                .map_or(DRAW, |l| codes[(l - first as u64) as usize])
                        })
                        .collect();
                    &mapped
                }
            };
            w.tables()
                .dtz_file
                .decode_dtz(b.side, range, wdl, out)
                .map_err(table_error)
        })?;
        for (k, raw) in vals.into_iter().enumerate() {
            let j = b.base + first + k;
            let (v, rounded) = self.raw(b, first + k, w.code(j, 0), raw)?;
            f(j, v, rounded)?;
        }
        Ok(())
    }

    /// shakmaty-syzygy's raw DTZ of a stored index, and whether rounded.
    fn raw(&self, b: &Block, local: usize, code: u8, raw: DtzValue) -> Result<(i16, bool)> {
        if let Some(raw) = fixed_raw(code) {
            return Ok(raw);
        }
        let wdl = code & 7;
        let s = sign(wdl);
        if s > 0 {
            if code & ZB != 0 {
                return Ok((zero_score(wdl), false));
            }
            // Decoded only where the side to move has a pawn to push.
            let pawns = self.w.frame.dtz.subs[b.sub]
                .encoding
                .pieces
                .contains(&b.side.pawn());
            if pawns
                && self
                    .w
                    .pawn_win(&self.w.frame.pos_of(b, local), b.side, wdl)?
            {
                return Ok((zero_score(wdl), false));
            }
        }
        Ok((raw.dtz as i16, raw.rounded))
    }

    /// Stores the raw DTZ `v` of global index `j` (pass 2; the index's
    /// own, written once): its byte where held, and the code marked where
    /// rounded.
    ///
    /// # Errors
    ///
    /// A value the byte cannot hold.
    #[inline]
    fn store(&self, j: usize, v: i16, rounded: bool) -> Result<()> {
        let byte = self.w.mark_raw(0, j, v, rounded)?;
        if let (Some(byte), StoredBytes::Held(bytes)) = (byte, self.bytes) {
            bytes[self.w.frame.cell(j)].store(byte, Relaxed);
        }
        Ok(())
    }

    /// The raw DTZ magnitude at global index `j`, whose code `code` is
    /// decisive and not checkmated.
    ///
    /// # Errors
    ///
    /// Those of a page's decoding (see [`Stored::paged`]).
    #[inline]
    pub(crate) fn mag(&self, j: usize, code: u8) -> Result<i32> {
        match self.bytes {
            StoredBytes::Held(bytes) => match bytes.get(self.w.frame.cell(j)) {
                Some(byte) => Ok(decode_mag(0, code & 7, byte.load(Relaxed))),
                None => Err(outside_the_window()),
            },
            StoredBytes::Paged(pages) => self.paged(pages, j, code),
        }
    }

    /// [`Stored::mag`] from its page.
    ///
    /// # Errors
    ///
    /// The DTZ file cannot be decoded, or holds a value pass 2 refused.
    #[inline(never)]
    fn paged(&self, pages: &StoredPages, j: usize, code: u8) -> Result<i32> {
        let k = self.w.frame.block_index_at(j);
        let b = &self.w.frame.blocks()[k];
        let local = (j - b.base) as u64;
        let page = local >> pages.page_shift;
        let first = page << pages.page_shift;
        let last = (first + (1 << pages.page_shift)).min(b.len as u64);
        let byte = pages.pages.with_page(
            k as u32,
            0,
            page,
            || self.page(b, first as usize..last as usize),
            |bytes| bytes[(local - first) as usize].load(Relaxed),
        )?;
        Ok(decode_mag(0, code & 7, byte))
    }

    /// The stored side's DTZ bytes of the local indices `range` of block
    /// `b`, as pass 2 works them out.
    fn page(&self, b: &Block, range: std::ops::Range<usize>) -> Result<Vec<u8>> {
        let mut bytes = Vec::with_capacity(range.len());
        self.raws(b, range, |j, v, _| {
            bytes.push(mag_byte(0, self.w.code(j, 0), v)?);
            Ok(())
        })?;
        Ok(bytes)
    }
}

/// The error of a read outside the window (which every read of the
/// passes lies in; see [`Window`]).
#[cold]
fn outside_the_window() -> Error {
    Error::inconsistent("the sweep", "a stored DTZ read outside the window")
}
