//! One position at a time: the probe engine (shakmaty-syzygy probes with
//! every rounded DTZ resolved exactly) and the best-play line through
//! captures and promotions to mate.
//!
//! Layer: above [`crate::tables`], [`crate::model`] and [`crate::chess`],
//! which it uses. The scans, the claims and the binary use it.

mod engine;
mod oracle;

/// The line walker, now in the model; kept here for the paths that name it.
pub use crate::model::line;
pub use self::engine::{DtzMemo, MoveEval, MoveInexact, NotExact, ProbeReport, Prober};
pub use self::oracle::{best_line, check_line_cost};
