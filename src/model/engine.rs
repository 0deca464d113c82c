//! The engines that fill the statistics document.

use serde::{Deserialize, Serialize};

use crate::chess::rule::Metric;

/// An engine that fills the statistics document: the two that read the
/// Syzygy tables (`scan --engine`) and the solver.
///
/// The command line offers the scan's two (`--engine`); the variant docs
/// are their help.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Engine {
    /// One shakmaty-syzygy probe per position (the oracle).
    Probe,
    /// Sequential decoding of whole tables, exact DTZ in memory (fast).
    Sweep,
    /// The retrograde solver, with no table file (the `solve` command).
    #[value(skip)]
    Solve,
}

impl Engine {
    /// How the claims' evidence names it, for a document in `metric`.
    pub fn describe(self, metric: Metric) -> String {
        match self {
            Engine::Probe => "the Syzygy tables (probe engine)".into(),
            Engine::Sweep => "the Syzygy tables (sweep engine)".into(),
            Engine::Solve => format!("fiftymove's solver ({})", metric.as_str()),
        }
    }
}
