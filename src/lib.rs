//! fiftymove: find, count and explain the positions where chess's fifty-move
//! rule cuts a forced win short, from Syzygy endgame tablebases.
//!
//! Data flows one way: [`material`] -> [`tables`] -> positions -> [`probe`]
//! -> [`line`](mod@line) and whole-table statistics.
//!
//! ```no_run
//! use fiftymove::{position::parse_fen, probe::Prober, tables::Inventory};
//!
//! let inv = Inventory::scan(&["data/syzygy".into()])?;
//! let prober = Prober::new(inv.open()?);
//! let pos = parse_fen("8/8/8/8/8/8/8/R3K2k w - - 0 1")?;
//! println!("DTZ {}", prober.dtz(&pos)?);
//! # Ok::<(), fiftymove::Error>(())
//! ```

#![warn(missing_docs)]

pub mod checksums;
pub mod claims;
pub mod enumerate;
pub mod error;
pub mod line;
pub mod material;
pub mod merge;
pub mod output;
pub mod position;
pub mod probe;
pub mod probe_scan;
pub mod records;
pub mod reference;
pub mod report;
pub mod scan;
pub mod tables;

pub use error::{Error, Result};
pub mod sweep;
pub mod sweep_scan;
