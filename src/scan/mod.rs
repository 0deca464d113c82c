//! Whole endgames: the statistics document (counts of the five classes,
//! exact DTZ histograms, the longest positions), the counting convention's
//! enumeration of positions, the two scan engines that fill the document
//! from Syzygy tables ([`probe`], one probe per position, and [`sweep`],
//! sequential decoding), the merge of shards, and the parser of the
//! generator's published statistics.
//!
//! Layer: above [`crate::probe`], [`crate::tables`], [`crate::model`] and
//! [`crate::chess`], which it uses. The solver fills the same document; the claims, the
//! reports and the binary read it.

pub mod probe;
pub mod sweep;

pub use crate::model::{
    enumerate, merge, reference, DtzHistograms, Histogram, Longest, LongestEntry, RawCounts,
    ScanStats, Shard, SideStats, WdlCounts, RULES_COUNTED, SYMMETRY_REDUCED,
};
