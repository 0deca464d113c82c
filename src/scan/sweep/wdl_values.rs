//! Pass 1's reads of the WDL file's stored values page by page, for a
//! sweep that cannot hold them for the whole window (see
//! [`crate::scan::SweepMemoryPlan::wdl_page_bytes`]). A page is decoded
//! from the file and never written, so what is evicted, and when, never
//! changes a result.

use std::sync::atomic::Ordering::Relaxed;

use shakmaty::Color;

use super::{table_error, StoredWdlValues};
use crate::{
    error::{Error, Result},
    scan::sweep::{first_error::FirstError, pages::ValuePages},
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
    failed: FirstError,
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
