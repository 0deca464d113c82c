//! Whole endgames from Syzygy tables: the two scan engines that fill the
//! model's statistics document ([`probe`], one probe per position, and
//! [`sweep`], sequential decoding). The document itself, the enumeration of
//! positions, the merge of shards and the generator's published statistics
//! are in [`crate::model`], re-exported here.
//!
//! Layer: an engine, with [`crate::probe`] (which the probe scan is built
//! on), [`crate::tables`], [`crate::model`] and [`crate::chess`], which it
//! uses; it does not use [`crate::solve`], its peer. The solver fills the
//! same document; the claims, the reports and the binary read it.

pub mod probe;
pub mod sweep;

pub use crate::model::{
    enumerate, merge, reference, DtzHistograms, Histogram, Longest, LongestEntry, RawCounts,
    ScanStats, Shard, SideStats, WdlCounts, RULES_COUNTED, SYMMETRY_REDUCED,
};
