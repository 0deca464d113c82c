//! What a solve tells its user as it goes: a progress bar's stages and
//! steps, the levels of a slice, and notes (a damaged file replaced, a
//! solve resumed).

use crate::chess::rule::{Metric, Rule};

/// How far a solve has come, for a progress bar.
pub trait Progress: Sync {
    /// A new stage: `what` (solving or reading a material, its `index`-th
    /// of `count`), with `entries` positions to go through.
    fn stage(&self, what: &str, index: usize, count: usize, entries: u64);
    /// `n` more positions done.
    fn advance(&self, n: u64);
    /// The retrograde levels of the stage, after its first pass: `level`
    /// plies reached (how many there will be is not known beforehand; a
    /// 6-piece material has hundreds).
    fn level(&self, level: usize) {
        let _ = level;
    }
    /// Something worth telling (a damaged cache file being replaced).
    fn note(&self, text: &str);
}

/// A [`Progress`] that shows nothing.
pub struct NoProgress;

impl Progress for NoProgress {
    fn stage(&self, _: &str, _: usize, _: usize, _: u64) {}
    fn advance(&self, _: u64) {}
    fn note(&self, _: &str) {}
}

/// A solve's rule and metric as a progress line names them: `dtz, rule 50`.
pub(crate) fn describe(rule: Rule, metric: Metric) -> String {
    match rule {
        Rule::Moves(n) => format!("{}, rule {n}", metric.as_str()),
        Rule::None => format!("{}, no rule", metric.as_str()),
    }
}
