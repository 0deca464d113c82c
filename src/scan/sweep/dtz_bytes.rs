//! The raw DTZ bytes of one window ([`super::code::encode_mag`]), which
//! passes 2 and 3 write and the later passes read, held as the plan chose:
//! the stored side's a byte per index, or none, each decoded again from
//! the DTZ file page by page where read ([`StoredDtz::Paged`]); the
//! unstored side's a byte per index, or none, each worked out again by
//! pass 3's search where read ([`UnstoredDtz::WorkedOut`]). Symmetric
//! material has no unstored side. Built after pass 1, whose WDL values
//! are dropped by then.
//!
//! A paged or recomputed value is a function of the file and of pass 1's
//! codes, so what is evicted, and when, never changes a result.

use std::sync::atomic::AtomicU8;

use rayon::prelude::*;

use super::pages::{Paging, ValuePages};

/// How a sweep holds the stored side's DTZ bytes (a choice of the plan).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StoredDtz {
    /// A byte per index of the window.
    Held,
    /// Decoded page by page where read (a symmetric or pawnless table that
    /// does not fit otherwise).
    Paged(Paging),
}

/// How a sweep holds the unstored side's DTZ bytes (a choice of the
/// plan; symmetric material has none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UnstoredDtz {
    /// A byte per index of the window.
    Held,
    /// Worked out again, by pass 3's one-ply search, where read (a
    /// pawnless table that does not fit otherwise: a byte per index less).
    WorkedOut,
}

impl StoredDtz {
    /// The stored side's bytes of a window of `len` indices, zero.
    pub(crate) fn hold(self, len: usize) -> StoredBytes {
        match self {
            StoredDtz::Held => StoredBytes::Held(zeros(len)),
            StoredDtz::Paged(paging) => {
                let (pages, page_shift) = paging.pages();
                StoredBytes::Paged(StoredPages { pages, page_shift })
            }
        }
    }
}

impl UnstoredDtz {
    /// The unstored side's bytes of a window of `len` indices, zero
    /// (none for `symmetric` material).
    pub(crate) fn hold(self, len: usize, symmetric: bool) -> UnstoredBytes {
        match self {
            _ if symmetric => UnstoredBytes::None,
            UnstoredDtz::Held => UnstoredBytes::Held(zeros(len)),
            UnstoredDtz::WorkedOut => UnstoredBytes::WorkedOut,
        }
    }
}

/// `len` zero bytes, filled by all threads, as the codes.
fn zeros(len: usize) -> Vec<AtomicU8> {
    (0..len).into_par_iter().map(|_| AtomicU8::new(0)).collect()
}

/// The stored side's DTZ bytes of a window.
pub(crate) enum StoredBytes {
    /// A byte per index.
    Held(Vec<AtomicU8>),
    /// None held: pages of them, decoded where read.
    Paged(StoredPages),
}

/// The unstored side's DTZ bytes of a window.
pub(crate) enum UnstoredBytes {
    /// A byte per index.
    Held(Vec<AtomicU8>),
    /// None: each worked out again where read.
    WorkedOut,
    /// Symmetric material: no unstored side.
    None,
}

/// The pages of the stored side's DTZ bytes of one window, within one
/// budget.
pub(crate) struct StoredPages {
    /// The pages, keyed by block and page number within it.
    pub(crate) pages: ValuePages,
    /// Indices per page: its exponent (see [`Paging::pages`]).
    pub(crate) page_shift: u32,
}
