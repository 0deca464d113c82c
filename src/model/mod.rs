//! What every engine shares: the values and rules that the probe engine,
//! the sweep and the solver must agree on, written once so that they
//! cannot drift apart.
//!
//! Layer: above [`crate::chess`], which it uses; below the engines
//! ([`crate::probe`], [`crate::scan`], [`crate::solve`]), which use it. It
//! knows no table file and no engine: it does not use [`crate::tables`],
//! [`crate::probe`], [`crate::scan`] or [`crate::solve`].

pub mod dtz;
pub mod engine;
pub mod enumerate;
pub mod line;
pub mod merge;
pub mod reference;
pub mod report;
mod stats;

pub use self::engine::Engine;
pub use self::stats::{
    DtzHistograms, Histogram, Longest, LongestEntry, RawCounts, ScanStats, Shard, SideStats,
    WdlCounts, RULES_COUNTED, SYMMETRY_REDUCED,
};
