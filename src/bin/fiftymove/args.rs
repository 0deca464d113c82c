//! Raw command-line arguments, as clap parses them. They are turned into a
//! validated plan in `main.rs` before any work starts.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

/// Find, count and explain the positions where the fifty-move rule cuts a
/// forced win short, from Syzygy endgame tablebases.
///
/// Exit codes: 0 ok; 1 other failure; 2 bad input (usage, FEN, material,
/// position); 3 tables missing, unreadable or corrupt.
#[derive(Parser, Debug)]
#[command(name = "fiftymove", version, about, long_about = None)]
pub struct RawArgs {
    /// Table directory (repeatable). Default: $SYZYGY_PATH split on ':',
    /// else ./data/syzygy.
    #[arg(long = "tables", global = true, value_name = "DIR")]
    pub tables: Vec<PathBuf>,

    /// Worker threads (default: all cores).
    #[arg(long, global = true, value_name = "N")]
    pub threads: Option<usize>,

    /// Machine-readable JSON output.
    #[arg(long, global = true)]
    pub json: bool,

    /// No progress bars or notes on stderr.
    #[arg(long, short, global = true)]
    pub quiet: bool,

    #[command(subcommand)]
    pub command: Command,
}

/// Output format of `line`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LineFormat {
    /// A table for people.
    Text,
    /// PGN with SetUp/FEN headers and DTZ/clock comments.
    Pgn,
    /// JSON per the contract.
    Json,
}

/// Which engine computes a scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Engine {
    /// One shakmaty-syzygy probe per position (the oracle).
    Probe,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// WDL, exact DTZ and every legal move of a position, with the 50-move
    /// verdict for the FEN's halfmove clock.
    Probe {
        /// The position (quote it).
        fen: String,
    },
    /// The best-play line to mate, with the 50- and 75-move points marked.
    Line {
        /// The position (quote it).
        fen: String,
        /// Output format (`--json` is the same as `--format json`).
        #[arg(long, value_enum)]
        format: Option<LineFormat>,
    },
    /// Statistics of whole endgames: WDL classes, exact DTZ histograms and
    /// the longest positions, per side to move.
    Scan {
        /// Materials, e.g. KRBvKR (White is the first side).
        #[arg(required = true)]
        materials: Vec<String>,
        /// Compute only part K of N (1-based), for `merge` to sum later.
        #[arg(long, value_name = "K/N")]
        shard: Option<String>,
        /// Write the JSON result to FILE (atomically) instead of stdout.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Also count raw legal placements, without symmetry reduction.
        #[arg(long)]
        raw: bool,
        /// The engine.
        #[arg(long, value_enum, default_value = "probe")]
        engine: Engine,
    },
    /// Sum shard results into one, identical to an unsharded scan.
    Merge {
        /// Shard files written by `scan --shard K/N --out FILE`.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Write the merged JSON to FILE (atomically) instead of stdout.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Which tables are present; for a material, its dependency closure and
    /// the files missing from it.
    Tables {
        /// Materials to check, e.g. KRBvKR.
        materials: Vec<String>,
        /// md5-check every file present (or, with materials, their closure).
        #[arg(long)]
        verify: bool,
    },
}
