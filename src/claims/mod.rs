//! The history of the rule against exact data: the claim catalog
//! (`data/claims.toml`), the filters that rules put on positions, the
//! verdicts with their evidence, the verifier that decides them, and the
//! record positions (`data/records.toml`).
//!
//! Each [`Claim`] says what someone claimed about an endgame, in which
//! metric, and carries a machine-checkable [`Check`]. The [`Verifier`]
//! computes a [`Verdict`] from the tables, never from the catalog: the
//! catalog holds only what was claimed.
//!
//! Layer: above [`crate::solve`], [`crate::scan`], [`crate::probe`],
//! [`crate::tables`], [`crate::model`] and [`crate::chess`], which it uses. The reports and
//! the binary use it.

mod catalog;
mod evidence;
mod filter;
pub mod records;
mod source;
mod verifier;

pub use self::catalog::{
    catalog, concerning, parse_catalog, select, Check, Claim, GeneralOutcome, Metric, CATALOG_TOML,
};
pub use self::evidence::{ClaimResult, Evidence, LineSummary, SideEvidence, Verdict, Witness};
pub use self::filter::Filter;
pub use self::source::{Hooks, Quiet, Request, Sourced, Sources, StatsCache, SWEEP_UNITS};
pub use self::verifier::{official_sizes, Verifier};
pub use crate::model::Engine;

/// Most pieces of a material that `claims`, `records` and `report` solve
/// whole. The solver takes six (`solve`, `probe --rule`), but a 6-piece
/// solve takes 8 to 16 GB and many minutes, which a default run of the
/// main job must not start on its own; 6-piece materials with pawns are
/// solved only as slices of frozen pawns.
pub const CLAIMS_SOLVE_PIECES: usize = 5;
