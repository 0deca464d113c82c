//! The stored side's DTZ read page by page from the DTZ file, for a sweep
//! that holds no DTZ byte of it (see
//! [`crate::scan::SweepMemoryPlan::stored_page_bytes`]). A stored raw value is
//! a function of the file's value at its index and of its WDL code (the
//! class, the capture and checkmate flags: fixed by pass 1), so a page
//! decoded again gives the same bytes pass 2 would have stored, and what is
//! evicted, and when, never changes a result.

use std::sync::atomic::Ordering::Relaxed;

use super::*;
use crate::scan::sweep::pages::ValuePages;

/// The pages of the stored side's DTZ bytes ([`encode_mag`]) of one window,
/// within one budget.
pub(crate) struct StoredPages {
    /// The pages, keyed by block and page number within it.
    pages: ValuePages,
    /// Their budget in bytes (a byte per index).
    budget: u64,
    /// Indices per page, a power of two: its exponent, so that finding an
    /// index's page is a shift (the count looks one up per index).
    page_shift: u32,
}

impl StoredPages {
    /// Pages of `page_len` indices (rounded down to a power of two)
    /// within `budget` bytes.
    pub(crate) fn new(budget: u64, page_len: u64) -> StoredPages {
        let page_shift = page_len.max(1).ilog2();
        StoredPages {
            pages: ValuePages::with_page_len(budget, 1 << page_shift),
            budget,
            page_shift,
        }
    }

    /// The same budget and length, no page held: for a new window.
    pub(crate) fn emptied(&self) -> StoredPages {
        StoredPages::new(self.budget, 1 << self.page_shift)
    }
}

impl Sweep {
    /// The stored side's raw magnitude at global index `j` (code `code`,
    /// decisive, not checkmated), from its page.
    ///
    /// # Errors
    ///
    /// The DTZ file cannot be decoded, or holds a value pass 2 refused; or
    /// the sweep holds no pages (`j` outside the window).
    #[inline(never)]
    pub(super) fn stored_mag_paged(&self, j: usize, code: u8) -> Result<i32> {
        let pages = self.stored_pages.as_ref().ok_or_else(|| {
            Error::inconsistent("the sweep", "a stored DTZ read outside the window")
        })?;
        let k = self.block_index_at(j);
        let b = &self.blocks[k];
        let local = (j - b.base) as u64;
        let page = local >> pages.page_shift;
        let first = page << pages.page_shift;
        let last = (first + (1 << pages.page_shift)).min(b.len as u64);
        let byte = pages.pages.with_page(
            k as u32,
            0,
            page,
            || self.stored_page(b, first as usize..last as usize),
            |bytes| bytes[(local - first) as usize].load(Relaxed),
        )?;
        Ok(decode_mag(0, code & 7, byte))
    }

    /// The stored side's DTZ bytes of the local indices `range` of block
    /// `b`, as pass 2 works them out.
    fn stored_page(&self, b: &Block, range: std::ops::Range<usize>) -> Result<Vec<u8>> {
        let mut bytes = Vec::with_capacity(range.len());
        self.stored_raws(b, range, |j, v, _| {
            bytes.push(self.mag_byte(0, j, v)?);
            Ok(())
        })?;
        Ok(bytes)
    }
}
