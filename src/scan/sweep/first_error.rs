//! The first error of work whose parallel loops do not return errors (they
//! are the sweep's hottest): a failing step keeps its error here, gives a
//! neutral value, and the work's caller takes the error after the loop.

use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::error::{Error, Result};

/// The first error kept, if any.
#[derive(Default)]
pub(crate) struct FirstError(Mutex<Option<Error>>);

impl FirstError {
    /// Keeps `e` if no error is kept yet.
    pub(crate) fn keep(&self, e: Error) {
        self.slot().get_or_insert(e);
    }

    /// The error kept, if any, which is then no longer kept.
    ///
    /// # Errors
    ///
    /// That error: the work that met it is void.
    pub(crate) fn take(&self) -> Result<()> {
        self.slot().take().map_or(Ok(()), Err)
    }

    /// The slot (a panic elsewhere while it was held leaves it as it was).
    fn slot(&self) -> MutexGuard<'_, Option<Error>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_error_is_kept_and_taken_once() {
        let first = FirstError::default();
        assert!(first.take().is_ok());
        first.keep(Error::inconsistent("a", "first"));
        first.keep(Error::inconsistent("a", "second"));
        let e = first.take().unwrap_err().to_string();
        assert!(e.contains("first") && !e.contains("second"), "{e}");
        assert!(first.take().is_ok());
    }
}
