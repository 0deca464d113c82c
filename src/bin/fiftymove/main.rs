//! The `fiftymove` binary: argument parsing, output formatting and exit
//! codes. All chess and table logic lives in the library.

mod args;
mod render;

use std::{
    io::{self, Write},
    path::PathBuf,
    process::ExitCode,
};

use clap::Parser;
use fiftymove::{
    error::{EXIT_BAD_INPUT, EXIT_OK},
    line::{best_line, to_pgn},
    material::Material,
    position::parse_fen,
    probe::Prober,
    tables::{self, Inventory, Verification},
    Error,
};

use args::{Command, LineFormat, RawArgs};

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
    #[allow(dead_code)] // used by the long-running commands
    quiet: bool,
}

impl Global {
    fn inventory(&self) -> Result<Inventory, Error> {
        Inventory::scan(&self.table_dirs)
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
            // One line, as for every other error.
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or("invalid arguments");
            let first = first.strip_prefix("error: ").unwrap_or(first);
            eprintln!("error: {first} (see fiftymove --help)");
            return ExitCode::from(EXIT_BAD_INPUT as u8);
        }
    };
    match run(raw) {
        Ok(()) | Err(Stop::ClosedPipe) => ExitCode::from(EXIT_OK as u8),
        Err(Stop::Failed(e)) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

fn run(raw: RawArgs) -> RunResult {
    if let Some(n) = raw.threads {
        if n == 0 {
            return Err(Error::Usage("--threads must be at least 1".into()).into());
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| Error::Other(format!("cannot start {n} threads: {e}")))?;
    }
    let global = Global {
        table_dirs: tables::resolve_dirs(&raw.tables, std::env::var("SYZYGY_PATH").ok().as_deref()),
        json: raw.json,
        quiet: raw.quiet,
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
    }
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
    let inv = global.inventory()?;
    let parsed = materials
        .iter()
        .map(|m| m.parse::<Material>())
        .collect::<Result<Vec<_>, _>>()?;
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
