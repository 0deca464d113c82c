//! The sweep's progress, reported in [`PROGRESS_UNITS`] per material as
//! the passes go, from any thread.

use std::sync::atomic::{AtomicU64, Ordering};

/// Progress is reported in this many units per material.
pub const PROGRESS_UNITS: u64 = 1000;

/// Work done so far, reported in [`PROGRESS_UNITS`].
pub(crate) struct Progress<'a> {
    done: AtomicU64,
    total: u64,
    report: &'a (dyn Fn(u64) + Sync),
}

impl Progress<'_> {
    /// Progress over `total` units of work (an index each pass takes),
    /// reported to `report`.
    pub(crate) fn new(total: u64, report: &(dyn Fn(u64) + Sync)) -> Progress<'_> {
        Progress {
            done: AtomicU64::new(0),
            total,
            report,
        }
    }

    /// `n` more units done.
    pub(crate) fn add(&self, n: u64) {
        let before = self.done.fetch_add(n, Ordering::Relaxed);
        let after = (before + n).min(self.total);
        let a = before.min(self.total) * PROGRESS_UNITS / self.total.max(1);
        let b = after * PROGRESS_UNITS / self.total.max(1);
        if b > a {
            (self.report)(b - a);
        }
    }

    /// All done: reports what is left of [`PROGRESS_UNITS`].
    pub(crate) fn finish(&self) {
        let before = self
            .done
            .swap(self.total, Ordering::Relaxed)
            .min(self.total);
        let a = before * PROGRESS_UNITS / self.total.max(1);
        if PROGRESS_UNITS > a {
            (self.report)(PROGRESS_UNITS - a);
        }
    }
}
