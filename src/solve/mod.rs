//! The retrograde solver: exact values under any move-limit rule, computed
//! from KvK up with no table file.
//!
//! A material is solved after every material its captures and promotions
//! reach (its closure, in the order of [`closure`]), and a material with
//! pawns slice by slice, from the most advanced pawns down, since a pawn
//! push leads to a slice solved before. Within a slice, `retro` does the
//! classic retrograde analysis on the solver's own index (`layout`) with
//! its own move and retraction generation (`board`), on shakmaty's attack
//! tables; the zeroing moves read the tables already solved (`exits`).
//! Under a memory limit below the whole solve's bound, those tables are
//! read page by page from their files (`pages`) and the slices are solved
//! one at a time ([`Solver::memory_plan`]).
//!
//! # How it is laid out
//!
//! From the top down, each file using only those below it:
//! - `solving`: what the solver is asked for ([`Solver::stats`],
//!   [`Solver::stats_many`], [`Solver::frozen_stats_many`], a cache
//!   prepared for lines), each one run over materials in the order of
//!   `closure`; `positions` answers single positions from the cache.
//! - `run`: one run, material by material: a table read from the cache,
//!   or solved slice by slice and written to it, then counted (`stats`).
//! - `solver`: the [`Solver`] value (its cache, limit, checkpoint period,
//!   and in tests its knobs, `tests::Knobs`), and what it decides before a
//!   run: which members it reads, and its [`MemoryPlan`] (`memory`: whole
//!   tables or pages, and every memory bound).
//! - the solves of a slice: `retro` (two bytes per position), `compact`
//!   (half a byte, with its depths spilled to a file, `spill`) and `dtr`
//!   (depth by the rule), the first two through one loop (`drive`: first
//!   pass, levels, `checkpoint`s), all three walking back through
//!   `retract`; the zeroing moves through `exits` into the tables kept
//!   (`table`), whole or page by page (`pages`). `dtmn` (depth to mate
//!   under a rule, by halfmove clock) keeps DTR's packed state
//!   (`level_state`); its tests reach it, the command line not yet.
//! - the ground: the cache files (`cache`, and `cache_error` for why a file
//!   is not used), the index (`layout`, `geometry`), the moves (`board`),
//!   the two-byte values (`value`), the sets of blocks by level (`levels`),
//!   the request ([`SolvePlan`], `plan`), the progress ([`Progress`]) and
//!   the slices a search reaches (`reach`).
//!
//! # What it computes
//!
//! Under an `N`-move rule a phase (the plies up to the next capture or pawn
//! move, or mate) may last `2N` plies. For each position and side to move
//! the solver gives the five classes, as Syzygy does for `N = 50`: won,
//! *cursed* (won without a rule, drawn under this one), drawn, *blessed*,
//! lost. And it gives the depth to the zeroing move counted as the Syzygy
//! generator counts DTZ50'', with 100 replaced by `2N`: the winner plays for
//! the smallest value, the loser for the largest, a zeroing move into a lost
//! position counts 1, into a position lost only without the rule `2N + 1`,
//! and a value above `2N` means cursed (blessed for the loser). With no
//! rule there are no cursed wins and the depth is DTZ without a rule.
//!
//! Layer: an engine, above [`crate::model`] (it fills the statistics
//! document and the position report that the other engines fill, and
//! implements the line oracle so that a solved position prints as a probed
//! one) and [`crate::chess`], which it uses; it does not use
//! [`crate::scan`] or [`crate::probe`], its peers, nor [`crate::tables`], so
//! its results are independent of Syzygy.

// Slots index parallel arrays (pieces, squares, slot maps); indexed loops
// say that best.
#![allow(clippy::needless_range_loop)]

mod board;
mod cache;
mod cache_error;
mod checkpoint;
mod closure;
mod compact;
mod drive;
// Reached from its tests only until `solve --metric dtm --rule N` takes it
// (issue 66).
#[cfg_attr(not(test), allow(dead_code))]
mod dtmn;
mod dtr;
mod exits;
mod geometry;
mod layout;
mod level_state;
mod levels;
mod memory;
mod pages;
mod plan;
mod positions;
mod progress;
mod reach;
mod retract;
mod retro;
mod run;
mod solver;
mod solving;
mod spill;
mod stats;
mod table;
#[cfg(test)]
mod tests;
mod value;

pub use self::{
    cache::Cache,
    closure::{closure, frozen_reach},
    memory::{MemoryPlan, COMPACT_ENTRIES, WHOLE_MOST},
    plan::{BoardFilter, PawnFilter, SolvePlan, MAX_SOLVE_PIECES},
    positions::{Positions, Value},
    progress::{NoProgress, Progress},
    solver::{PlannedMaterial, Solver, CHECKPOINT_EVERY},
    solving::solve_stats,
};
pub use crate::chess::rule::{Metric, Rule, MAX_RULE_MOVES};
