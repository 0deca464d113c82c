//! The DTZ values of one window once passes 2 and 3 have run: a code's
//! raw magnitude, whichever way the plan holds it (held, paged, or worked
//! out again), and the value it stands for once settled (exact after pass
//! 4). What pass 4, the count and a shard's count read.

use super::{
    code::{is_mated, sign, DTZ_MATED, PENDING, PLUS},
    first_error::FirstError,
    unstored::Unstored,
    window::Window,
};
use crate::error::Result;

/// The values of one window (see the module's comment).
pub(crate) struct Values<'a> {
    /// Both sides' raw values, and the window.
    unstored: Unstored<'a>,
    /// The first error of a count's recomputed value (see
    /// [`Values::value_counted`]).
    failed: FirstError,
}

impl<'a> Values<'a> {
    /// The values of the window of `unstored`, whose passes 2 and 3 have
    /// run.
    pub(crate) fn new(unstored: Unstored<'a>) -> Values<'a> {
        Values {
            unstored,
            failed: FirstError::default(),
        }
    }

    /// The window.
    #[inline]
    pub(crate) fn window(&self) -> &'a Window<'a> {
        self.unstored.stored.w
    }

    /// The WDL code (with flags) of a global index and side (see
    /// [`Window::code`]).
    #[inline]
    pub(crate) fn code(&self, j: usize, half: usize) -> u8 {
        self.window().code(j, half)
    }

    /// The raw DTZ magnitude of a global index and side whose code is
    /// `code`: 0 unless decisive and not checkmated; held, paged or worked
    /// out again as the plan chose.
    ///
    /// # Errors
    ///
    /// Those of the search (which pass 3 has already met, if any).
    #[inline]
    pub(crate) fn raw(&self, half: usize, j: usize, code: u8) -> Result<i32> {
        // ILLEGAL's class bits (7) have sign 0.
        if is_mated(code) || sign(code & 7) == 0 {
            return Ok(0);
        }
        if half == 0 {
            self.unstored.stored.mag(j, code)
        } else {
            self.unstored.mag(j, code)
        }
    }

    /// The DTZ of a global index and side whose code is `code` (one load:
    /// the [`PENDING`] and [`PLUS`] bits agree).
    ///
    /// # Errors
    ///
    /// As [`Values::raw`].
    #[inline]
    pub(crate) fn value_of(&self, half: usize, j: usize, code: u8) -> Result<i16> {
        if is_mated(code) {
            return Ok(DTZ_MATED);
        }
        let m = self.raw(half, j, code)?;
        let settled_up = code & (PENDING | PLUS) == PLUS;
        Ok((sign(code & 7) * (m + i32::from(settled_up))) as i16)
    }

    /// The DTZ of a global index and side (0 stored, 1 unstored): exact
    /// once settled.
    ///
    /// # Errors
    ///
    /// As [`Values::raw`].
    #[inline]
    pub(crate) fn value(&self, half: usize, j: usize) -> Result<i16> {
        self.value_of(half, j, self.code(j, half))
    }

    /// [`Values::value`] for the counting pass, whose loops stay free of
    /// errors (they are the sweep's hottest after pass 1): only a
    /// recomputed value can fail, which pass 3 has already computed once
    /// without failing; should it fail, the error is kept for
    /// [`Values::count_failure`] and 0 counted meanwhile.
    #[inline]
    pub(crate) fn value_counted(&self, half: usize, j: usize) -> i16 {
        self.value(half, j).unwrap_or_else(|e| {
            self.failed.keep(e);
            0
        })
    }

    /// The error a count met (see [`Values::value_counted`]), if any.
    ///
    /// # Errors
    ///
    /// That error: the count is void.
    pub(crate) fn count_failure(&self) -> Result<()> {
        self.failed.take()
    }
}
