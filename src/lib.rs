//! fiftymove: find, count and explain the positions where chess's fifty-move
//! rule cuts a forced win short, from Syzygy endgame tablebases.
//!
//! The crate is built in layers, one folder each, and data flows one way,
//! down them: a module uses only its own layer and those below it.
//!
//! | layer | holds |
//! |---|---|
//! | [`report`] | Markdown and HTML reports with SVG charts |
//! | [`census`] | every endgame under every historical rule: DTR documents side by side, and FIDE's exception lists set against them |
//! | [`claims`] | the claim catalog, filters, verdicts and evidence, the verifier, the records |
//! | [`solve`], [`scan`], [`probe`] | the engines, peers that fill the model's documents: the retrograde solver (no table files), the probe and sweep scans of whole tables, the probe engine (exact DTZ, one position) |
//! | [`tables`] | table discovery, md5 checks, the streaming table reader |
//! | [`model`] | what every engine shares: the statistics document and its enumeration and merge, the position report, the best-play line and its oracle, the rules that settle a rounded DTZ, the engines' names |
//! | [`chess`] | material, positions, the five-valued evaluation |
//! | [`error`], [`output`], [`human`], [`memory`], [`dirs`], [`build_id`] | errors and exit codes, atomic writes, numbers for people, memory limits, the cache directory, the build id that keys cached results |
//!
//! What most users need is re-exported here, so that `fiftymove::{Prober,
//! Inventory, ...}` works without knowing the folders.
//!
//! ```no_run
//! use fiftymove::{parse_fen, Inventory, Prober};
//!
//! let inv = Inventory::scan(&["data/syzygy".into()])?;
//! let prober = Prober::new(inv.open()?);
//! let pos = parse_fen("8/8/8/8/8/8/8/R3K2k w - - 0 1")?;
//! println!("DTZ {}", prober.dtz(&pos)?);
//! # Ok::<(), fiftymove::Error>(())
//! ```

#![warn(missing_docs)]

pub mod build_id;
pub mod census;
pub mod chess;
pub mod claims;
pub mod dirs;
pub mod error;
pub mod human;
pub mod memory;
pub mod model;
pub mod output;
pub mod probe;
pub mod report;
pub mod scan;
pub mod solve;
pub mod tables;

pub use chess::{
    material::Material,
    position::{fen_of, parse_fen},
    wdl::{outcome_with_clock, Dtz, Outcome, Wdl},
};
pub use claims::{Claim, ClaimResult, Verdict, Verifier};
pub use error::{Error, Result};
pub use memory::{parse_size, MemoryLimit};
pub use probe::{best_line, line::Line, Prober};
pub use scan::{probe::ScanPlan, ScanStats, Shard};
pub use tables::Inventory;
