//! Raw command-line arguments, as clap parses them. They are turned into a
//! validated plan in `main.rs` before any work starts.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
use fiftymove::{chess::rule::Metric, model::Engine};

/// Find, count and explain the positions where the fifty-move rule cuts a
/// forced win short, from Syzygy endgame tablebases.
///
/// Exit codes: 0 ok; 1 other failure; 2 bad input (usage, FEN, material,
/// position); 3 tables missing, unreadable or corrupt.
#[derive(Parser, Debug)]
#[command(
    name = "fiftymove",
    version = concat!(env!("CARGO_PKG_VERSION"), " (build ", env!("FIFTYMOVE_BUILD_ID"), ")"),
    about,
    long_about = None
)]
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

    /// Skip the md5 check of the table files a command needs (their sizes
    /// are still checked). The check hashes each file once and remembers
    /// the verdict in the cache root (--cache-dir).
    #[arg(long, global = true)]
    pub no_verify: bool,

    /// Most memory a sweep (scan, claims, report) or a solve may take, as
    /// 512M, 8G or bytes. Default: the memory the system reports available.
    /// A solve whose tables do not all fit reads them page by page from
    /// its cache (slower, same values). Work that could take more refuses
    /// to start.
    #[arg(long, global = true, value_name = "SIZE")]
    pub memory_limit: Option<String>,

    /// The root of every cache: solved materials (DIR/solve), statistics
    /// documents (DIR/stats), md5 verdicts (DIR/verified-md5.tsv) and a
    /// service's answers (DIR/remote). Default: $FIFTYMOVE_CACHE_DIR, else
    /// $XDG_CACHE_HOME/fiftymove, else ~/.cache/fiftymove. `fiftymove cache`
    /// lists what it holds.
    #[arg(long, global = true, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,

    /// Neither read nor write results (solves, statistics documents, a
    /// service's answers): compute everything afresh. md5 verdicts of the
    /// tables are still kept.
    #[arg(long, global = true)]
    pub no_cache: bool,

    /// A solve saves a slice's values to its cache after this many seconds
    /// of work on it (then again after as many), between two levels, so
    /// that a solve killed in the slice resumes there. 0: at every level.
    /// Default: 300.
    #[arg(long, global = true, value_name = "SECONDS")]
    pub checkpoint_every: Option<u64>,

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

/// `--out` and `--raw` of `scan` and `solve`: where the statistics document
/// goes, and whether it counts raw placements too.
#[derive(clap::Args, Debug, Clone)]
pub struct DocumentChoice {
    /// Write the JSON result to FILE (atomically) instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Also count raw legal placements, without symmetry reduction.
    #[arg(long)]
    pub raw: bool,
}

/// `--rule` and `--metric` of `probe` and `line`.
#[derive(clap::Args, Debug, Clone)]
pub struct SolveChoice {
    /// Answer from the solver under this move-limit rule (moves, or `none`).
    #[arg(long, value_name = "N|none")]
    pub rule: Option<String>,
    /// Answer from the solver in this metric.
    #[arg(long, value_enum)]
    pub metric: Option<Metric>,
}

/// `--remote` of `probe`, `line`, `claims` and `records`.
#[derive(clap::Args, Debug, Clone)]
pub struct RemoteChoice {
    /// Read a tablebase service: the Lichess service, or the lila-tablebase
    /// server at URL (give it with `=`: --remote=http://127.0.0.1:9000).
    /// Its answers are made exact as the files' are, and cached in
    /// $FIFTYMOVE_CACHE_DIR/remote (else ~/.cache/fiftymove/remote) unless
    /// --no-cache. claims and records use it only for positions whose
    /// tables are absent.
    #[arg(
        long,
        value_name = "URL",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = fiftymove::tables::remote::DEFAULT_URL
    )]
    pub remote: Option<String>,
    /// Least time between two requests to the service, in milliseconds
    /// (requests go one at a time; a 429 waits what the service asks).
    #[arg(long, value_name = "MS", default_value_t = 0, requires = "remote")]
    pub remote_spacing: u64,
    /// Most requests one command may send the service (answers from the
    /// cache are free). probe answers with what it knows when the budget
    /// runs out, labelled not exact; line and records estimate a line's
    /// cost first and refuse one past the budget (exit code 2).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_REMOTE_BUDGET, requires = "remote")]
    pub remote_budget: u64,
}

/// The default of `--remote-budget`: a thousand requests, one at a time, is
/// a few minutes of one connection to the public service, as much as a
/// person browsing the analysis board sends in an afternoon; a probe needs
/// one to a few dozen, a line about one a ply (docs/remote.md).
pub const DEFAULT_REMOTE_BUDGET: u64 = 1000;

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// WDL, exact DTZ and every legal move of a position, with the 50-move
    /// verdict for the FEN's halfmove clock.
    ///
    /// With --rule or --metric the answer comes from the solver (a solve of
    /// the position's material, cached after the first time) instead of
    /// the Syzygy tables.
    Probe {
        /// The position (quote it).
        fen: String,
        #[command(flatten)]
        solve: SolveChoice,
        #[command(flatten)]
        remote: RemoteChoice,
    },
    /// The best-play line to mate, with the 50- and 75-move points marked.
    ///
    /// With --rule or --metric the line comes from the solver: optimal play
    /// under that rule (the point where the clock reaches twice N is marked),
    /// or a mate-optimal line with --metric dtm.
    Line {
        /// The position (quote it).
        fen: String,
        /// Output format (`--json` is the same as `--format json`).
        #[arg(long, value_enum)]
        format: Option<LineFormat>,
        #[command(flatten)]
        solve: SolveChoice,
        #[command(flatten)]
        remote: RemoteChoice,
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
        #[command(flatten)]
        document: DocumentChoice,
        /// The engine.
        #[arg(long, value_enum, default_value = "sweep")]
        engine: Engine,
        /// Print what the sweep needs instead of scanning: per material,
        /// its name and memory bound in bytes (tab-separated; JSON Lines
        /// with --json). For job schedulers (scripts/slurm/submit.sh).
        #[arg(long)]
        plan: bool,
    },
    /// Statistics of whole endgames from the built-in retrograde solver,
    /// under any move-limit rule, with no table files: the same document as
    /// `scan`, plus the engine, rule and metric.
    ///
    /// The materials that captures and promotions reach are solved first
    /// (or read from the cache).
    Solve {
        /// Materials, e.g. KRBvKR (White is the first side; at most 6 pieces).
        #[arg(required = true)]
        materials: Vec<String>,
        /// The move-limit rule in moves (a phase may last twice as many
        /// plies), or `none` [default: 50; DTM has no rule].
        #[arg(long, value_name = "N|none")]
        rule: Option<String>,
        /// What to compute per position.
        #[arg(long, value_enum, default_value = "dtz")]
        metric: Metric,
        /// Count only part K of N (1-based), for `merge` to sum later.
        #[arg(long, value_name = "K/N")]
        shard: Option<String>,
        #[command(flatten)]
        document: DocumentChoice,
        /// Print the closure in solving order instead of solving: per
        /// material, its name, memory bound in bytes, `cached` or `todo`
        /// (in the cache for this rule and metric or not), and the
        /// materials it reads, comma-separated or `-` (tab-separated; JSON
        /// Lines with --json). For job schedulers (scripts/slurm/submit.sh).
        #[arg(long)]
        plan: bool,
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
    /// Check the historical claims about the fifty-move rule (data/claims.toml)
    /// against the tables present: a verdict for each, with evidence.
    ///
    /// Verdicts: confirmed, refuted, partly (with counts), documented (a
    /// rule of play, with its source: no table question), or unverifiable
    /// (naming the missing table files and their sizes, or the metric that
    /// Syzygy lacks). Every number is computed from the tables.
    ///
    /// Exit status: 0 whenever the verdicts were produced, "unverifiable"
    /// ones included (verdicts are data, not errors); 2 for an unknown claim
    /// id or a bad catalog; 3 when a table directory cannot be read, a table
    /// present is damaged, or --require-tables is given and a selected
    /// claim's tables are missing; 1 otherwise.
    Claims(ClaimsArgs),
    /// The record positions (the 517-move conversion, the 549-move mate, the
    /// longest 6-piece win): what is claimed, what the tables present
    /// confirm, and the longest win of each table present.
    ///
    /// Without the 6- and 7-piece tables the records are unverifiable and the
    /// files needed are named. Exit status as for `claims`.
    Records {
        /// Tables whose longest wins to show (default: the tables present
        /// whose scan is cached, as `claims` leaves them, up to
        /// --max-pieces; with --all-tables, every table present whose
        /// dependencies are present).
        materials: Vec<String>,
        /// Saved whole-table scans (`scan --out FILE`) to take the longest
        /// wins from instead of scanning (repeatable).
        #[arg(long = "from", value_name = "FILE")]
        from: Vec<PathBuf>,
        /// Only tables with at most N pieces when listing every table present.
        #[arg(long, value_name = "N")]
        max_pieces: Option<usize>,
        /// Scan every table present that is not cached yet, instead of
        /// showing only the tables already scanned (half an hour for the
        /// installed set on 2 cores, from an empty cache).
        #[arg(long, conflicts_with_all = ["materials", "from"])]
        all_tables: bool,
        #[command(flatten)]
        remote: RemoteChoice,
    },
    /// Every endgame under every historical rule: per material and side to
    /// move, the positions, the wins without a rule, the wins the 50-, 66-,
    /// 75- and 100-move rules keep and lose, and the longest DTR with its
    /// FEN, from one DTR solve per material.
    ///
    /// With no material, the census covers every Syzygy material up to five
    /// pieces (145). Each material's result is cached, so a killed census
    /// resumes where it stopped. --out DIR writes census.json, census.csv,
    /// census.md and a self-contained census.html with charts and FIDE's
    /// historical lists set against the census.
    Census(CensusArgs),
    /// What the caches hold (`cache`, `cache list`), and removing it
    /// (`cache clean`): solved materials and statistics documents by
    /// build, material and metric, the md5 verdicts and a service's
    /// answers, all under the cache root (--cache-dir).
    ///
    /// A build reads only the results it made itself; the others' stay
    /// until `cache clean` removes them.
    Cache {
        #[command(subcommand)]
        action: Option<CacheAction>,
    },
    /// Write report.md and a self-contained report.html (inline SVG charts,
    /// board diagrams, claim verdicts) for endgames, scanned now or read
    /// from saved scans.
    Report {
        /// Directory to write into (created if needed).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Endgames to scan, e.g. KRBvKR KNNvKP.
        #[arg(required_unless_present = "from", conflicts_with = "from")]
        materials: Vec<String>,
        /// Saved scans (`scan --out FILE`, shards are merged) instead of
        /// scanning (repeatable).
        #[arg(long = "from", value_name = "FILE")]
        from: Vec<PathBuf>,
    },
}

impl Command {
    /// Whether the command may read or write cached results (solves and
    /// statistics documents), and so should say what other builds hold.
    pub fn uses_results(&self) -> bool {
        match self {
            Command::Probe { solve, .. } | Command::Line { solve, .. } => {
                solve.rule.is_some() || solve.metric.is_some()
            }
            Command::Solve { .. }
            | Command::Census(_)
            | Command::Claims(_)
            | Command::Records { .. }
            | Command::Report { .. } => true,
            Command::Scan { .. }
            | Command::Merge { .. }
            | Command::Tables { .. }
            | Command::Cache { .. } => false,
        }
    }
}

/// The options of `census`.
#[derive(clap::Args, Debug)]
pub struct CensusArgs {
    /// Materials, e.g. KRBvKR (default: every Syzygy material up to five
    /// pieces); six-piece ones are taken too.
    pub materials: Vec<String>,
    /// Write census.json, census.csv, census.md and census.html (with its
    /// charts) into DIR; with --shard, the shard's rows
    /// (census.shard-K-of-N.json) for census --from.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print, per material, its memory bound in bytes, an estimated time in
    /// seconds and whether it is cached (tab-separated; JSON Lines with
    /// --json), instead of running.
    #[arg(long)]
    pub plan: bool,
    /// Take only part K of N of the materials (every N-th, in census
    /// order), for a cluster's array job; needs --out DIR.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Set saved rows side by side instead of solving: shard files of
    /// census --shard, or solve --metric dtr --out files (one or more).
    #[arg(long = "from", value_name = "FILE", num_args = 1..)]
    pub from: Vec<PathBuf>,
}

/// What `cache` does.
#[derive(Subcommand, Debug)]
pub enum CacheAction {
    /// List what the caches hold (the default): per build, cache,
    /// material and what of it, the files and bytes; then the md5
    /// verdicts and a service's answers.
    List,
    /// Remove cached results: those every option given selects (at least
    /// one). Nothing else removes results.
    Clean(CleanArgs),
}

/// The selection of `cache clean`.
#[derive(clap::Args, Debug)]
pub struct CleanArgs {
    /// The results of every build but this one.
    #[arg(long)]
    pub other_builds: bool,
    /// The results of this build id (16 hex digits, as `cache` lists them;
    /// repeatable).
    #[arg(long = "build", value_name = "ID")]
    pub builds: Vec<String>,
    /// Only these materials' results (repeatable).
    #[arg(long = "material", value_name = "MATERIAL")]
    pub materials: Vec<String>,
    /// Only solves in progress (partial files, journals, checkpoints).
    #[arg(long)]
    pub partial: bool,
    /// Every result of every build, the md5 verdicts and a service's
    /// answers too.
    #[arg(long, conflicts_with_all = ["other_builds", "builds", "materials", "partial"])]
    pub all: bool,
    /// Say what would be removed, and remove nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// The options of `claims`.
#[derive(clap::Args, Debug)]
pub struct ClaimsArgs {
    /// Claim ids (default: every claim in the catalog).
    pub ids: Vec<String>,
    /// List the claims (id, year, who, statement) without checking them.
    #[arg(long)]
    pub list: bool,
    /// Use this catalog instead of the shipped one (same schema as
    /// data/claims.toml).
    #[arg(long, value_name = "FILE")]
    pub catalog: Option<PathBuf>,
    /// Saved whole-table scans (`scan --out FILE`) to use instead of
    /// scanning those materials again (repeatable).
    #[arg(long = "from", value_name = "FILE")]
    pub from: Vec<PathBuf>,
    /// Fail with exit status 3 if a selected claim's tables are missing,
    /// instead of reporting it as unverifiable.
    #[arg(long)]
    pub require_tables: bool,
    /// Also solve slices of frozen pawns that are not cached (the
    /// KRP(a2) v KBP(a3) clause: its captures lead to dozens of 5-piece
    /// materials, hours of work on two cores). Without it such claims
    /// stay unverifiable unless an earlier deep run cached them.
    #[arg(long)]
    pub deep: bool,
    #[command(flatten)]
    pub remote: RemoteChoice,
}
