//! Pass 1's reads of the WDL file's stored values page by page, for a
//! sweep that cannot hold them for the whole window (see
//! [`crate::scan::SweepMemoryPlan::wdl_page_bytes`]). A page is decoded
//! from the file and never written, so what is evicted, and when, never
//! changes a result.

use std::sync::{atomic::Ordering::Relaxed, Mutex, PoisonError};

use shakmaty::Color;

use super::{table_error, StoredWdlValues};
use crate::{
    error::{Error, Result},
    scan::sweep::pages::ValuePages,
    tables::reader::{cidx, SweepTable},
};

/// The WDL file's values, read through pages within one budget.
pub(super) struct PagedWdl<'a> {
    file: &'a SweepTable,
    pages: ValuePages,
    /// Indices per page, a power of two: its exponent (pass 1 looks a
    /// page up per value).
    page_shift: u32,
    /// The first error of a page's decoding (see [`StoredWdlValues::get`]).
    failed: Mutex<Option<Error>>,
}

impl<'a> PagedWdl<'a> {
    /// Pages of `page_len` (rounded down to a power of two) of `file`'s
    /// values within `budget` bytes.
    pub(super) fn new(file: &'a SweepTable, budget: u64, page_len: u64) -> PagedWdl<'a> {
        let page_shift = page_len.max(1).ilog2();
        PagedWdl {
            file,
            pages: ValuePages::with_page_len(budget, 1 << page_shift),
            page_shift,
            failed: Mutex::new(None),
        }
    }

    /// The error a read met, if any.
    ///
    /// # Errors
    ///
    /// That error: the pass that read is void.
    pub(super) fn failure(&self) -> Result<()> {
        self.failed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .map_or(Ok(()), Err)
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
                self.keep(Error::inconsistent(
                    "the sweep",
                    "a WDL index past its file's end",
                ));
                0
            }
            Err(e) => {
                self.keep(e);
                0
            }
        }
    }
}

impl PagedWdl<'_> {
    /// Keeps `e` if it is the first error.
    fn keep(&self, e: Error) {
        self.failed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_or_insert(e);
    }
}
