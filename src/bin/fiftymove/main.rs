//! The `fiftymove` binary: argument parsing, output formatting and exit
//! codes. All chess and table logic lives in the library.
//!
//! `args` holds the raw arguments as clap parses them; this file validates
//! the global ones and dispatches; each `*_cmd` file wires one group of
//! commands (`probe_cmd`: probe, line; `scan_cmd`: scan, solve, merge;
//! `tables_cmd`: tables; `claims_cmd`: claims, records, report) to the
//! library; `render` and `render_claims` format results for people.

mod args;
mod cache_cmd;
mod census_cmd;
mod claims_cmd;
mod probe_cmd;
mod render;
mod render_claims;
mod scan_cmd;
mod tables_cmd;

use std::{
    io::{self, IsTerminal, Write},
    path::PathBuf,
    process::ExitCode,
    sync::Mutex,
    time::Instant,
};

use clap::Parser;
use fiftymove::{
    claims::StatsCache,
    dirs::CacheRoot,
    error::{EXIT_BAD_INPUT, EXIT_OK, EXIT_OTHER},
    human::human_bytes,
    memory::{parse_size, MemoryLimit},
    model::Shard,
    solve::{Cache, Solver},
    tables::{self, Inventory},
    Error,
};
use indicatif::{ProgressBar, ProgressStyle};

use args::{Command, DocumentChoice, LineFormat, RawArgs};

/// Why a run stopped early.
enum Stop {
    /// A real error, printed as one `error:` line.
    Failed(Error),
    /// stdout was closed (`| head`): stop quietly with success.
    ClosedPipe,
}

impl From<Error> for Stop {
    fn from(e: Error) -> Stop {
        Stop::Failed(e)
    }
}

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Stop {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Stop::ClosedPipe
        } else {
            Stop::Failed(Error::Output {
                path: PathBuf::from("<stdout>"),
                error: e,
            })
        }
    }
}

type RunResult = Result<(), Stop>;

/// Settings every command shares, validated.
struct Global {
    table_dirs: Vec<PathBuf>,
    json: bool,
    quiet: bool,
    /// md5-check the files a command needs (`--no-verify` turns it off).
    verify: bool,
    /// The most memory a sweep or a solve may take (`--memory-limit`).
    memory: MemoryLimit,
    /// The one root of every cache (`--cache-dir`, else
    /// `$FIFTYMOVE_CACHE_DIR`, ...), if there is one.
    cache_root: Option<CacheRoot>,
    /// Whether results (solves, statistics documents, a service's
    /// answers) are read from and written to the caches (not
    /// `--no-cache`).
    cache_results: bool,
    /// Work on a slice between two of its checkpoints
    /// (`--checkpoint-every`).
    checkpoint_every: std::time::Duration,
}

impl Global {
    /// The root of the result caches, unless `--no-cache`.
    fn results_root(&self) -> Option<&CacheRoot> {
        self.cache_root.as_ref().filter(|_| self.cache_results)
    }

    /// Where solved materials are kept, unless `--no-cache`.
    fn solve_cache(&self) -> Option<Cache> {
        self.results_root().map(|root| Cache::new(root.solves()))
    }

    /// Where a tablebase service's answers are kept, unless `--no-cache`.
    fn remote_cache(&self) -> Option<PathBuf> {
        self.results_root().map(CacheRoot::remote_answers)
    }

    /// The solver of every command: its cache, memory limit and
    /// checkpoints as the flags say.
    fn solver(&self) -> Solver {
        Solver::new(self.solve_cache(), self.memory).checkpoint_every(self.checkpoint_every)
    }

    /// The cache of the statistics documents, unless `--no-cache`.
    fn stats_cache(&self) -> Option<StatsCache> {
        self.results_root()
            .map(|root| StatsCache::new(root.stats()))
    }

    /// Says in one line, unless `--quiet`, how much the result caches hold
    /// of other builds (never read by this one, and kept until the user
    /// removes them), and how to remove it.
    fn note_other_builds(&self) {
        if self.quiet {
            return;
        }
        let Some(root) = self.results_root() else {
            return;
        };
        let held = cache_cmd::result_files(root)
            .unwrap_or_default()
            .into_iter()
            .map(|f| f.file)
            .filter(|f| !f.of_this_build())
            .collect::<Vec<_>>();
        if held.is_empty() {
            return;
        }
        let builds: std::collections::BTreeSet<&str> =
            held.iter().map(|f| f.build.as_str()).collect();
        let bytes: u64 = held.iter().map(|f| f.bytes).sum();
        eprintln!(
            "note: {} holds {} of results of {} other build(s) of fiftymove, unused by this one; `fiftymove cache clean --other-builds` removes them",
            root.root().display(),
            human_bytes(bytes),
            builds.len(),
        );
    }

    fn inventory(&self) -> Result<Inventory, Error> {
        let inv = Inventory::scan(&self.table_dirs)?;
        Ok(if self.verify {
            inv.with_md5_check(self.cache_root.as_ref().map(CacheRoot::md5_verdicts))
        } else {
            inv
        })
    }
}

fn main() -> ExitCode {
    let raw = match RawArgs::try_parse() {
        Ok(raw) => raw,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return ExitCode::from(EXIT_OK as u8);
            }
            // One line, as for every other error: clap's message up to its
            // usage block, its lines joined (the missing argument of
            // "the following required arguments were not provided:" is on
            // the next line).
            let text = e.render().to_string();
            let message = text
                .lines()
                .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            let message = message.strip_prefix("error: ").unwrap_or(&message);
            let message = if message.is_empty() {
                "invalid arguments"
            } else {
                message
            };
            eprintln!("error: {message} (see fiftymove --help)");
            return ExitCode::from(EXIT_BAD_INPUT as u8);
        }
    };
    install_panic_hooks();
    // stdout is flushed here, not when it is dropped (which ignores errors):
    // a full disk must not pass for success.
    let result = std::panic::catch_unwind(|| {
        run(raw).and_then(|()| io::stdout().flush().map_err(Stop::from))
    });
    match result {
        Ok(Ok(())) | Ok(Err(Stop::ClosedPipe)) => ExitCode::from(EXIT_OK as u8),
        Ok(Err(Stop::Failed(e))) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
        // The hook has printed the one `error:` line.
        Err(_) => ExitCode::from(EXIT_OTHER as u8),
    }
}

/// Panics print one `error:` line instead of Rust's report: a panic while
/// reading a table (a damaged file) is silent here, because the library
/// turns it into an exit-code-3 error; any other panic is a bug in
/// fiftymove, reported as such (exit code 1). `RUST_BACKTRACE=1` adds the
/// backtrace on the following lines.
fn install_panic_hooks() {
    std::panic::set_hook(Box::new(|info| {
        let message = fiftymove::error::panic_message(info.payload());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("error: internal error: {message}{at} (a bug in fiftymove; please report it)");
        if std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0") {
            eprintln!("{}", std::backtrace::Backtrace::force_capture());
        }
    }));
    fiftymove::error::quiet_table_panics();
}

/// The most worker threads `--threads` accepts.
const MAX_THREADS: usize = 1024;

fn run(raw: RawArgs) -> RunResult {
    if let Some(n) = raw.threads {
        if n == 0 {
            return Err(Error::Usage("--threads must be at least 1".into()).into());
        }
        // Each thread reserves a stack: a typo like 100000 would spend
        // minutes starting threads before failing.
        if n > MAX_THREADS {
            return Err(Error::Usage(format!("--threads {n}: at most {MAX_THREADS}")).into());
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|source| Error::Threads { count: n, source })?;
    }
    let memory = match raw.memory_limit.as_deref() {
        None => MemoryLimit::Available,
        Some(text) => MemoryLimit::Bytes(parse_size(text).ok_or_else(|| {
            Error::Usage(format!(
                "--memory-limit {text:?}: expected a size such as 512M, 8G or 1.5G"
            ))
        })?),
    };
    let global = Global {
        table_dirs: tables::resolve_dirs(&raw.tables, std::env::var("SYZYGY_PATH").ok().as_deref()),
        json: raw.json,
        quiet: raw.quiet,
        verify: !raw.no_verify,
        memory,
        cache_root: raw
            .cache_dir
            .clone()
            .or_else(fiftymove::dirs::cache_dir)
            .map(CacheRoot::new),
        cache_results: !raw.no_cache,
        checkpoint_every: raw.checkpoint_every.map_or(
            fiftymove::solve::CHECKPOINT_EVERY,
            std::time::Duration::from_secs,
        ),
    };
    if raw.command.uses_results() {
        global.note_other_builds();
    }
    let stdout = io::stdout();
    let mut out = stdout.lock();
    match raw.command {
        Command::Probe { fen, solve, remote } => {
            probe_cmd::cmd_probe(&global, &fen, &solve, &remote, &mut out)
        }
        Command::Line {
            fen,
            format,
            solve,
            remote,
        } => {
            let format = match (format, global.json) {
                (Some(f), false) => f,
                (None, true) | (Some(LineFormat::Json), true) => LineFormat::Json,
                (Some(f), true) => {
                    return Err(Error::Usage(format!(
                        "--json conflicts with --format {}",
                        format!("{f:?}").to_lowercase()
                    ))
                    .into())
                }
                (None, false) => LineFormat::Text,
            };
            probe_cmd::cmd_line(&global, &fen, format, &solve, &remote, &mut out)
        }
        Command::Tables { materials, verify } => {
            tables_cmd::cmd_tables(&global, &materials, verify, &mut out)
        }
        Command::Scan {
            materials,
            shard,
            document: DocumentChoice { out: out_file, raw },
            engine,
            plan: show_plan,
        } => {
            let cmd = scan_cmd::ScanCommand::validate(
                &materials,
                shard.as_deref(),
                out_file,
                raw,
                engine,
                show_plan,
            )?;
            scan_cmd::cmd_scan(&global, &cmd, &mut out)
        }
        Command::Solve {
            materials,
            rule,
            metric,
            shard,
            document: DocumentChoice { out: out_file, raw },
            plan: show_plan,
        } => {
            let cmd = scan_cmd::SolveCommand::validate(
                &materials,
                rule.as_deref(),
                metric,
                shard.as_deref(),
                out_file,
                raw,
                show_plan,
            )?;
            scan_cmd::cmd_solve(&global, &cmd, &mut out)
        }
        Command::Merge {
            files,
            out: out_file,
        } => scan_cmd::cmd_merge(&global, &files, out_file, &mut out),
        Command::Claims(args) => claims_cmd::cmd_claims(&global, &args, &mut out),
        Command::Records {
            materials,
            from,
            max_pieces,
            all_tables,
            remote,
        } => claims_cmd::cmd_records(
            &global, &materials, &from, max_pieces, all_tables, &remote, &mut out,
        ),
        Command::Report {
            out: dir,
            materials,
            from,
        } => claims_cmd::cmd_report(&global, &dir, &materials, &from, &mut out),
        Command::Census(args) => {
            let cmd = census_cmd::CensusCommand::validate(&args)?;
            census_cmd::cmd_census(&global, &cmd, &mut out)
        }
        Command::Cache { action } => cache_cmd::cmd_cache(&global, action.as_ref(), &mut out),
    }
}

/// Checks an `--out FILE` before any long work: not a directory, and in a
/// directory that exists. (Whether it can be written shows when it is.)
fn check_out_file(path: &std::path::Path) -> Result<(), Error> {
    let bad = |why: String| Error::Usage(format!("--out {}: {why}", path.display()));
    if path.is_dir() {
        return Err(bad("is a directory; give a file name".into()));
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    if !dir.is_dir() {
        return Err(bad(format!("{} is not a directory", dir.display())));
    }
    Ok(())
}

/// The error for `--rule` given with a metric that has no rule.
fn no_rule_for(metric: fiftymove::solve::Metric) -> Error {
    Error::Usage(format!(
        "--metric {} is measured with no move-limit rule; leave out --rule",
        metric.as_str()
    ))
}

/// Parses `K/N` with 1 <= K <= N.
fn parse_shard(text: &str) -> Result<Shard, Error> {
    let bad = || {
        Error::Usage(format!(
            "--shard '{text}': expected K/N with 1 <= K <= N, like 2/4"
        ))
    };
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let k: u32 = k.trim().parse().map_err(|_| bad())?;
    let n: u32 = n.trim().parse().map_err(|_| bad())?;
    if k == 0 || n == 0 || k > n {
        return Err(bad());
    }
    Ok(Shard { k, n })
}

/// One plain stderr line per finished step (a material solved or read, a
/// table swept) when stderr is not a terminal: a log or a batch job then
/// shows where a long run stands, where no bar can be drawn. Silent on a
/// terminal, where the bar shows the same, and with `--quiet`.
pub(crate) struct StepLines {
    on: bool,
    current: Mutex<Option<(String, Instant)>>,
}

impl StepLines {
    pub(crate) fn new(global: &Global) -> StepLines {
        StepLines {
            on: !global.quiet && !io::stderr().is_terminal(),
            current: Mutex::new(None),
        }
    }

    /// A new step begins; the one in hand, if any, is finished.
    pub fn start(&self, what: &str) {
        if self.on {
            self.finish();
            *self.current.lock().expect("no panic while held") =
                Some((what.to_owned(), Instant::now()));
        }
    }

    /// The step in hand is finished.
    pub fn finish(&self) {
        if let Some((done, since)) = self.current.lock().expect("no panic while held").take() {
            eprintln!("done: {done} in {:.1} s", since.elapsed().as_secs_f64());
        }
    }
}

/// A progress bar on stderr, hidden when stderr is not a terminal or with
/// `--quiet`.
fn progress_bar(global: &Global, len: u64, what: &str) -> ProgressBar {
    if global.quiet || !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template(
            "{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} ({per_sec}, ETA {eta})",
        )
        .expect("valid template"),
    );
    bar.set_message(what.to_owned());
    bar
}
