//! What a report on one position holds: its values and every legal move's,
//! as the probe engine reads them from the tables and as the solver gives
//! them (`probe --rule/--metric`), in one JSON shape.

use serde::Serialize;

use crate::chess::{
    rule::{Metric, Rule},
    wdl::{Dtz, Outcome, Wdl},
};

/// What one legal move leads to.
#[derive(Clone, Debug, Serialize)]
pub struct MoveEval {
    /// The move in UCI notation.
    pub uci: String,
    /// The move in SAN.
    pub san: String,
    /// WDL of the position after the move, for the side then to move.
    pub wdl: Wdl,
    /// Exact DTZ of the position after the move, for the side then to move
    /// (for a solver's answer, the depth in its metric).
    pub dtz: Dtz,
    /// Whether the move is a capture or a pawn move.
    pub zeroing: bool,
    /// Present only when `dtz` (or `wdl`) is not exact: a tablebase
    /// service's request budget ran out first (`--remote-budget`).
    #[serde(flatten)]
    pub inexact: Option<MoveInexact>,
    /// The DTZ this move gives the mover if played in a decisive position
    /// (`None` if it does not keep the mover's result).
    #[serde(skip)]
    pub(crate) mover_dtz: Option<i32>,
}

/// Everything `probe` reports for one position.
#[derive(Clone, Debug, Serialize)]
pub struct ProbeReport {
    /// The position's FEN.
    pub fen: String,
    /// The material, White first, as on the board.
    pub material: String,
    /// Five-valued WDL (clock 0).
    pub wdl: Wdl,
    /// Exact DTZ in plies, signed from the side to move (for a solver's
    /// answer, the depth in its metric). Written as a number.
    pub dtz: Dtz,
    /// The FEN's halfmove clock.
    pub halfmove_clock: u32,
    /// The result given that clock.
    pub outcome_with_clock: Outcome,
    /// Every legal move, best first for the side to move.
    pub moves: Vec<MoveEval>,
    /// The engine, when it is not the Syzygy tables (`solve`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    /// The move-limit rule the values are under, for a solver's answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<Rule>,
    /// The metric of `dtz` and `moves[].dtz`, for a solver's answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metric: Option<Metric>,
    /// Present only when some value of the report is not exact (a
    /// tablebase service's request budget ran out first): the label, what
    /// is known, and how to make it exact.
    #[serde(flatten)]
    pub inexact: Option<NotExact>,
}

/// A move's values when they are not exact (docs/remote.md).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct MoveInexact {
    /// The two values the DTZ may have ("n or n+1" plies), smaller
    /// magnitude first; `dtz` holds the first.
    pub dtz_range: [i32; 2],
    /// The two results it may be, where the DTZ range straddles 100 plies
    /// (win or cursed win); `wdl` holds the first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wdl_range: Option<[Wdl; 2]>,
}

/// The label of a report that is not wholly exact (docs/remote.md).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct NotExact {
    /// Always `false`: the report holds a value that is not exact.
    pub exact: bool,
    /// The position's own DTZ range, when its DTZ is not exact.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dtz_range: Option<[i32; 2]>,
    /// The position's two possible results, when they differ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wdl_range: Option<[Wdl; 2]>,
    /// The two verdicts under the 50-move rule, when they differ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome_range: Option<[Outcome; 2]>,
    /// Why it is not exact, and how to make it exact.
    pub not_exact: String,
}
