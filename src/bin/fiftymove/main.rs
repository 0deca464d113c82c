//! The `fiftymove` binary: argument parsing, output formatting and exit
//! codes. All chess and table logic lives in the library.

mod args;
mod claims_cmd;
mod render;
mod render_claims;

use std::{
    io::{self, IsTerminal, Write},
    path::PathBuf,
    process::ExitCode,
};

use clap::Parser;
use fiftymove::{
    chess::material::Material,
    chess::position::parse_fen,
    error::{EXIT_BAD_INPUT, EXIT_OK, EXIT_OTHER},
    memory::{parse_size, MemoryLimit},
    output::write_atomically,
    probe::line::{best_line, to_pgn},
    probe::Prober,
    scan::merge::merge_shards,
    scan::probe::{scan_with_prober, ScanPlan},
    scan::{ScanStats, Shard},
    tables::{self, Inventory, Verification},
    Error,
};
use indicatif::{ProgressBar, ProgressStyle};

use args::{Command, Engine, LineFormat, RawArgs};

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
    /// The most memory a sweep may take (`--memory-limit`).
    memory: MemoryLimit,
}

impl Global {
    fn inventory(&self) -> Result<Inventory, Error> {
        let inv = Inventory::scan(&self.table_dirs)?;
        Ok(if self.verify {
            inv.with_md5_check(tables::default_cache_file())
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
            .map_err(|e| Error::Other(format!("cannot start {n} threads: {e}")))?;
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
    };
    let stdout = io::stdout();
    let mut out = stdout.lock();
    match raw.command {
        Command::Probe { fen } => cmd_probe(&global, &fen, &mut out),
        Command::Line { fen, format } => {
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
            cmd_line(&global, &fen, format, &mut out)
        }
        Command::Tables { materials, verify } => cmd_tables(&global, &materials, verify, &mut out),
        Command::Scan {
            materials,
            shard,
            out: out_file,
            raw,
            engine,
        } => {
            let plan = ScanCommand::validate(&materials, shard.as_deref(), out_file, raw, engine)?;
            cmd_scan(&global, &plan, &mut out)
        }
        Command::Merge {
            files,
            out: out_file,
        } => cmd_merge(&global, &files, out_file, &mut out),
        Command::Claims {
            ids,
            list,
            catalog,
            from,
            require_tables,
        } => claims_cmd::cmd_claims(
            &global,
            &claims_cmd::ClaimsArgs {
                ids,
                list,
                catalog,
                from,
                require_tables,
            },
            &mut out,
        ),
        Command::Records {
            materials,
            from,
            max_pieces,
        } => claims_cmd::cmd_records(&global, &materials, &from, max_pieces, &mut out),
        Command::Report {
            out: dir,
            materials,
            from,
        } => claims_cmd::cmd_report(&global, &dir, &materials, &from, &mut out),
    }
}

/// A validated `scan` invocation.
struct ScanCommand {
    plans: Vec<ScanPlan>,
    out: Option<PathBuf>,
    engine: Engine,
}

impl ScanCommand {
    fn validate(
        materials: &[String],
        shard: Option<&str>,
        out: Option<PathBuf>,
        raw: bool,
        engine: Engine,
    ) -> Result<ScanCommand, Error> {
        let shard = shard.map(parse_shard).transpose()?;
        let plans = materials
            .iter()
            .map(|m| {
                Ok(ScanPlan {
                    material: m.parse()?,
                    shard,
                    raw,
                    filter: None,
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        if shard.is_some() && out.is_none() {
            return Err(Error::Usage(
                "--shard needs --out FILE, so that the parts can be merged".into(),
            ));
        }
        if let Some(path) = &out {
            check_out_file(path)?;
        }
        Ok(ScanCommand { plans, out, engine })
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

fn cmd_scan(global: &Global, cmd: &ScanCommand, out: &mut impl Write) -> RunResult {
    let inv = global.inventory()?;
    // Every table of every material must be present before the long work.
    for plan in &cmd.plans {
        inv.require(&plan.material, &plan.material.to_string())?;
    }
    let prober = Prober::new(inv.open()?);
    let mut results = Vec::new();
    for plan in &cmd.plans {
        let stats = match cmd.engine {
            Engine::Probe => {
                let bar = progress_bar(
                    global,
                    plan.work_items().len() as u64,
                    &format!("scan {}", plan.material),
                );
                let stats = scan_with_prober(&prober, plan, &|n| bar.inc(n))?;
                bar.finish_and_clear();
                stats
            }
            Engine::Sweep => {
                let bar = progress_bar(
                    global,
                    fiftymove::scan::sweep::PROGRESS_UNITS,
                    &format!("scan {}", plan.material),
                );
                let stats =
                    fiftymove::scan::sweep::scan_with_sweep(&inv, plan, global.memory, &|n| {
                        bar.inc(n)
                    })?;
                bar.finish_and_clear();
                stats
            }
        };
        results.push(stats);
    }
    emit_stats(global, &results, cmd.out.as_deref(), out)
}

/// Prints scan results, or writes them as JSON Lines to `file`.
fn emit_stats(
    global: &Global,
    results: &[ScanStats],
    file: Option<&std::path::Path>,
    out: &mut impl Write,
) -> RunResult {
    if let Some(path) = file {
        let mut buf = Vec::new();
        for r in results {
            render::json_line(&mut buf, r)?;
        }
        write_atomically(path, &buf)?;
        return Ok(());
    }
    for r in results {
        if global.json {
            render::json_line(out, r)?;
        } else {
            render::scan_text(out, r)?;
        }
    }
    Ok(())
}

fn cmd_merge(
    global: &Global,
    files: &[PathBuf],
    out_file: Option<PathBuf>,
    out: &mut impl Write,
) -> RunResult {
    if let Some(path) = &out_file {
        check_out_file(path)?;
    }
    let mut parts = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(path).map_err(|e| Error::Input {
            path: path.clone(),
            detail: e.to_string(),
        })?;
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let stats: ScanStats = serde_json::from_str(line).map_err(|e| Error::Input {
                path: path.clone(),
                detail: format!("line {}: not a scan result ({e})", i + 1),
            })?;
            parts.push(stats);
        }
    }
    let merged = merge_shards(parts)?;
    emit_stats(global, &merged, out_file.as_deref(), out)
}

/// Parses a FEN and opens the tables its play can need, checking the whole
/// dependency closure first.
fn open_for_fen(global: &Global, fen: &str) -> Result<(Prober, shakmaty::Chess), Error> {
    let pos = parse_fen(fen)?;
    let inv = global.inventory()?;
    let material = Material::from_board(shakmaty::Position::board(&pos))?;
    if material.has_table() {
        inv.require(&material, &format!("{material} ({fen})"))?;
    }
    Ok((Prober::new(inv.open()?), pos))
}

fn cmd_probe(global: &Global, fen: &str, out: &mut impl Write) -> RunResult {
    let (prober, pos) = open_for_fen(global, fen)?;
    let report = prober.report(&pos)?;
    if global.json {
        render::json_line(out, &report)?;
    } else {
        render::probe_text(out, &report)?;
    }
    Ok(())
}

fn cmd_line(global: &Global, fen: &str, format: LineFormat, out: &mut impl Write) -> RunResult {
    let (prober, pos) = open_for_fen(global, fen)?;
    let line = best_line(&prober, &pos)?;
    match format {
        LineFormat::Json => render::json_line(out, &line)?,
        LineFormat::Pgn => out.write_all(to_pgn(&line, &pos).as_bytes())?,
        LineFormat::Text => render::line_text(out, &line)?,
    }
    Ok(())
}

fn cmd_tables(
    global: &Global,
    materials: &[String],
    verify: bool,
    out: &mut impl Write,
) -> RunResult {
    // Bad input (exit 2) is reported before missing tables (exit 3).
    let parsed = materials
        .iter()
        .map(|m| m.parse::<Material>())
        .collect::<Result<Vec<_>, _>>()?;
    let inv = global.inventory()?;
    // The files to report on: the closures asked for, or everything present.
    let files: Vec<String> = if parsed.is_empty() {
        inv.files().keys().cloned().collect()
    } else {
        let mut all: Vec<String> = parsed.iter().flat_map(|m| m.closure_files()).collect();
        all.sort();
        all.dedup();
        all
    };
    let mut report = render::TablesReport {
        dirs: inv.dirs().iter().map(|d| d.display().to_string()).collect(),
        materials: parsed
            .iter()
            .map(|m| render::MaterialClosure {
                material: m.to_string(),
                table: m.table_name(),
                closure: m.closure().into_iter().collect(),
                missing: inv.missing_for(m),
            })
            .collect(),
        files: Vec::new(),
    };
    let mut damaged = Vec::new();
    for file in &files {
        let Some(path) = inv.path(file) else { continue };
        let status = if verify {
            match tables::verify_file(file, path) {
                Verification::Ok => "ok".to_owned(),
                Verification::Unknown => "not an official Syzygy file name".to_owned(),
                Verification::WrongSize { expected, actual } => {
                    damaged.push(file.clone());
                    format!("DAMAGED: {actual} bytes, official {expected}")
                }
                Verification::WrongMd5 { expected, actual } => {
                    damaged.push(file.clone());
                    format!("DAMAGED: md5 {actual}, official {expected}")
                }
                Verification::Unreadable(e) => {
                    damaged.push(file.clone());
                    format!("UNREADABLE: {e}")
                }
            }
        } else {
            "present".to_owned()
        };
        report.files.push(render::FileStatus {
            file: file.clone(),
            path: path.display().to_string(),
            status,
        });
    }
    if global.json {
        render::json_line(out, &report)?;
    } else {
        render::tables_text(out, &report, verify)?;
    }
    out.flush()?;
    if !damaged.is_empty() {
        return Err(Error::Table {
            what: damaged.join(" "),
            detail: format!("{} file(s) failed verification", damaged.len()),
        }
        .into());
    }
    if let Some(m) = report.materials.iter().find(|m| !m.missing.is_empty()) {
        return Err(Error::MissingTables {
            needed_for: m.material.clone(),
            files: m.missing.clone(),
        }
        .into());
    }
    Ok(())
}
