//! Where pass 1 reads the WDL file's stored values ([`WdlValues`], a
//! choice of the plan), each source a type of its own behind one trait
//! ([`StoredWdlValues`]), so that pass 1 compiles once for each, with its
//! own reads and no test between them, and picks one per block: held a
//! byte each ([`ByteWdl`]), held two to a byte ([`NibbleWdl`]), or read
//! page by page ([`PagedWdl`]).
//!
//! A page is decoded from the file and never written, so what is evicted,
//! and when, never changes a result.

use std::{ops::Range, sync::atomic::Ordering::Relaxed};

use rayon::prelude::*;
use shakmaty::Color;

use super::{
    first_error::FirstError,
    pages::{Paging, ValuePages},
    read_error::table_error,
    slices::decode_slice,
};
use crate::{
    error::{Error, Result},
    tables::reader::{cidx, LeadWindow, SweepTable},
};

/// Where pass 1 reads the WDL file's stored values (a choice of the plan):
/// for a symmetric table the whole file's, else a block's WDL sub-tables'
/// at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WdlValues {
    /// Held, a byte each ([`ByteWdl`]).
    Bytes,
    /// Held, two to a byte ([`NibbleWdl`]).
    Nibbles,
    /// Read page by page ([`PagedWdl`]).
    Paged(Paging),
}

/// Where pass 1 reads the WDL file's stored values: a parameter of pass
/// 1's functions, so that each source compiles with its own reads.
pub(crate) trait StoredWdlValues: Sync {
    /// The stored value of WDL index `idx` for `side` (a read that fails
    /// gives 0, its error kept for after the pass).
    fn get(&self, side: Color, idx: u64) -> u8;

    /// The first error a read met, if any.
    ///
    /// # Errors
    ///
    /// That error: what was read since is void.
    fn failure(&self) -> Result<()> {
        Ok(())
    }
}

/// The WDL file's values held for a range of its indices per side to
/// move (White's, Black's), a byte each: a symmetric table's pass 1 holds
/// one side's values of the whole file, which its later passes' DTZ bytes
/// match anyway, and a byte each is quicker to read.
pub(crate) struct ByteWdl(Held);

/// The WDL file's values held for a range of its indices per side to
/// move, two to a byte (a stored WDL value is at most 4): index `i` of the
/// range in the low half of byte `i / 2` for even `i` and the high half
/// for odd. Where pass 1 holds both sides' of a block beside its codes,
/// so that it takes no more room than the later passes.
pub(crate) struct NibbleWdl(Held);

/// What pass 1 holds of the WDL file: per side to move (White's,
/// Black's), a range of its indices, cut to a slice where one is given.
pub(crate) struct WdlRanges<'a> {
    /// The WDL file.
    pub(crate) file: &'a SweepTable,
    /// Per side, the indices.
    pub(crate) ranges: [Range<u64>; 2],
    /// Per side, where the window is a slice, the slice of those indices.
    pub(crate) slices: [Option<&'a LeadWindow>; 2],
}

/// Values held for a range of a file's indices per side to move.
struct Held {
    /// Per side, the range's values, as the holder packs them.
    vals: [Vec<u8>; 2],
    /// Per side, the index of the range's first value.
    start: [u64; 2],
}

impl Held {
    /// The values of `what`: per side, what `hold(len, decode)` holds of
    /// its range's `len` values, which `decode(local indices, out)`
    /// decodes.
    fn decode(
        what: &WdlRanges,
        hold: impl Fn(u64, &mut dyn FnMut(Range<u64>, &mut [u8]) -> Result<()>) -> Result<Vec<u8>>,
    ) -> Result<Held> {
        let WdlRanges {
            file,
            ranges,
            slices,
        } = what;
        let mut held = Held {
            vals: [Vec::new(), Vec::new()],
            start: [0, 0],
        };
        for (side, (range, slice)) in Color::ALL.into_iter().zip(ranges.iter().zip(slices)) {
            let mut decode = |local: Range<u64>, out: &mut [u8]| {
                decode_slice(*slice, range.start, local, out, |r, out| {
                    file.decode(side, r, out).map_err(table_error)
                })
            };
            held.vals[cidx(side)] = hold(range.end - range.start, &mut decode)?;
            held.start[cidx(side)] = range.start;
        }
        Ok(held)
    }
}

/// The largest stored WDL value half a byte holds: Syzygy's five are 0
/// to 4, so a larger one is damage.
const RAW_WDL_MAX: u8 = 0x0f;

/// How many stored WDL values pass 1 decodes at once before packing them
/// (even, so that each part fills whole bytes).
const RAW_WDL_PART: usize = 1 << 22;

impl ByteWdl {
    /// The values of `what`, a byte each.
    ///
    /// # Errors
    ///
    /// The file cannot be decoded.
    pub(crate) fn decode(what: &WdlRanges) -> Result<ByteWdl> {
        let held = Held::decode(what, |len, decode| {
            let mut vals = vec![0u8; len as usize];
            decode(0..len, &mut vals)?;
            Ok(vals)
        })?;
        Ok(ByteWdl(held))
    }
}

impl NibbleWdl {
    /// [`ByteWdl::decode`], two values to a byte.
    ///
    /// # Errors
    ///
    /// The file cannot be decoded, or stores a value over
    /// [`RAW_WDL_MAX`].
    pub(crate) fn decode(what: &WdlRanges) -> Result<NibbleWdl> {
        let held = Held::decode(what, |len, decode| {
            let mut packed = vec![0u8; (len as usize).div_ceil(2)];
            // Decoded a part at a time (the decoder works in parallel
            // within a part) and packed two to a byte.
            let mut values = Vec::new();
            for (k, bytes) in packed.chunks_mut(RAW_WDL_PART / 2).enumerate() {
                let first = (k * RAW_WDL_PART) as u64;
                let last = (first + RAW_WDL_PART as u64).min(len);
                values.clear();
                values.resize((last - first) as usize, 0u8);
                decode(first..last, &mut values)?;
                pack_nibbles(&values, bytes).ok_or_else(|| Error::Table {
                    what: what.file.path().display().to_string(),
                    detail: format!(
                        "stores a WDL value over {RAW_WDL_MAX}; check it with `fiftymove tables --verify`"
                    ),
                })?;
            }
            Ok(packed)
        })?;
        Ok(NibbleWdl(held))
    }
}

impl StoredWdlValues for ByteWdl {
    /// The stored value of WDL index `idx` (in the range held) for `side`.
    #[inline]
    fn get(&self, side: Color, idx: u64) -> u8 {
        let c = cidx(side);
        self.0.vals[c][(idx - self.0.start[c]) as usize]
    }
}

impl StoredWdlValues for NibbleWdl {
    /// The stored value of WDL index `idx` (in the range held) for `side`.
    #[inline]
    fn get(&self, side: Color, idx: u64) -> u8 {
        let c = cidx(side);
        let i = (idx - self.0.start[c]) as usize;
        (self.0.vals[c][i / 2] >> ((i & 1) * 4)) & RAW_WDL_MAX
    }
}

/// Two values of at most [`RAW_WDL_MAX`] to a byte, `values[0]` low (see
/// [`NibbleWdl`]); `None` for a larger value.
fn pack_nibbles(values: &[u8], out: &mut [u8]) -> Option<()> {
    const BYTES: usize = 1 << 14;
    out.par_chunks_mut(BYTES)
        .zip(values.par_chunks(2 * BYTES))
        .try_for_each(|(out, values)| {
            for (byte, pair) in out.iter_mut().zip(values.chunks(2)) {
                let low = pair[0];
                let high = pair.get(1).copied().unwrap_or(0);
                if low > RAW_WDL_MAX || high > RAW_WDL_MAX {
                    return None;
                }
                *byte = low | (high << 4);
            }
            Some(())
        })
}

/// The WDL file's values, read through pages within one budget, for a
/// sweep that cannot hold them for the whole window (see
/// [`WdlValues::Paged`]).
pub(crate) struct PagedWdl<'a> {
    file: &'a SweepTable,
    pages: ValuePages,
    /// Indices per page, a power of two: its exponent (pass 1 looks a
    /// page up per value).
    page_shift: u32,
    /// The first error of a page's decoding (see [`StoredWdlValues::get`]).
    failed: FirstError,
}

impl<'a> PagedWdl<'a> {
    /// Pages of `file`'s values as `paging` says.
    pub(crate) fn new(file: &'a SweepTable, paging: Paging) -> PagedWdl<'a> {
        let (pages, page_shift) = paging.pages();
        PagedWdl {
            file,
            pages,
            page_shift,
            failed: FirstError::default(),
        }
    }
}
impl StoredWdlValues for PagedWdl<'_> {
    #[inline]
    fn get(&self, side: Color, idx: u64) -> u8 {
        let page = idx >> self.page_shift;
        let first = page << self.page_shift;
        let decode = || -> Result<Vec<u8>> {
            let last = (first + (1 << self.page_shift)).min(self.file.index_len(side));
            let mut values = vec![0u8; last.saturating_sub(first) as usize];
            self.file
                .decode(side, first..last, &mut values)
                .map_err(table_error)?;
            Ok(values)
        };
        let read = self
            .pages
            .with_page(0, cidx(side) as u8, page, decode, |values| {
                values.get((idx - first) as usize).map(|v| v.load(Relaxed))
            });
        match read {
            Ok(Some(v)) => v,
            Ok(None) => {
                self.failed.keep(Error::inconsistent(
                    "the sweep",
                    "a WDL index past its file's end",
                ));
                0
            }
            Err(e) => {
                self.failed.keep(e);
                0
            }
        }
    }

    fn failure(&self) -> Result<()> {
        self.failed.take()
    }
}
