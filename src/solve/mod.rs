//! The retrograde solver: exact values under any move-limit rule, computed
//! from KvK up with no table file.
//!
//! Layer: above [`crate::scan`] (it fills the same statistics document) and
//! [`crate::chess`]; it does not use [`crate::tables`] or [`crate::probe`],
//! so its results are independent of Syzygy. The claims and the binary use
//! it.
