//! The knobs a test turns on a solver, given at its construction
//! ([`Solver::for_tests`]): pages whatever its limit, a solve stopped as if
//! killed after some slices or checkpoints, the half-byte solve from fewer
//! entries. Outside tests a solver has none (`solver::Knobs`).

use super::super::{cache::Cache, solver::Solver};
use crate::memory::MemoryLimit;

/// What a test changes in a solver; `None` leaves it as outside tests.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Knobs {
    /// Read the tables page by page within this many bytes of pages
    /// whatever the limit (0: only the pages each thread holds): the paged
    /// path on materials that fit whole.
    pub(crate) pages: Option<u64>,
    /// Fail every material's solve once it has solved this many slices, as
    /// a solve killed there would stop.
    pub(crate) interrupt_after: Option<usize>,
    /// Fail a slice's solve once it has written this many checkpoints, as a
    /// solve killed there would stop.
    pub(crate) stop_after_checkpoints: Option<usize>,
    /// Solve a rule's DTZ without pawns in half a byte per position from
    /// this many entries on (0: always).
    pub(crate) compact_from: Option<usize>,
}

impl Knobs {
    /// [`Knobs::pages`].
    pub(crate) fn pages(self) -> Option<u64> {
        self.pages
    }

    /// [`Knobs::interrupt_after`].
    pub(crate) fn interrupt_after(self) -> Option<usize> {
        self.interrupt_after
    }

    /// [`Knobs::stop_after_checkpoints`].
    pub(crate) fn stop_after_checkpoints(self) -> Option<usize> {
        self.stop_after_checkpoints
    }
}

impl Solver {
    /// A solver as [`Solver::new`] makes it, with `knobs` turned.
    pub(crate) fn for_tests(cache: Option<Cache>, memory: MemoryLimit, knobs: Knobs) -> Solver {
        let mut solver = Solver::new(cache, memory);
        if let Some(entries) = knobs.compact_from {
            solver.compact_from = entries;
        }
        solver.knobs = knobs;
        solver
    }
}
