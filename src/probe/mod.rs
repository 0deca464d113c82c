//! One position at a time: the probe engine (shakmaty-syzygy probes with
//! every rounded DTZ resolved exactly) and the best-play line through
//! captures and promotions to mate.
//!
//! Layer: an engine, above [`crate::tables`], [`crate::model`] and
//! [`crate::chess`], which it uses; it does not use [`crate::scan`] or
//! [`crate::solve`], its peers. The scans, the claims and the binary use it.

mod engine;
mod oracle;

pub use self::engine::{DtzMemo, Prober};
pub use self::oracle::{best_line, check_line_cost};
/// The line walker, now in the model; kept here for the paths that name it.
pub use crate::model::line;
pub use crate::model::report::{MoveEval, MoveInexact, NotExact, ProbeReport};
