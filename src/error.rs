//! The error type shared by the library, and the exit codes the binary maps
//! it to.
//!
//! Every variant renders as a single line, because the binary prints it after
//! `error:` and scripts grep for it.

use crate::memory::Size;
use std::{
    cell::{Cell, RefCell},
    fmt::{self, Write as _},
    io,
    panic::{self, AssertUnwindSafe},
    path::PathBuf,
};

/// Everything that can go wrong in fiftymove.
///
/// The variants fall into the three exit-code classes of the command-line
/// contract; see [`Error::exit_code`].
#[derive(Debug)]
pub enum Error {
    /// A command-line usage problem (bad flag value, conflicting flags).
    Usage(String),
    /// A FEN that cannot be parsed.
    Fen {
        /// The FEN as given.
        fen: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A FEN that parses but describes a position the tables cannot hold.
    Position {
        /// The FEN as given.
        fen: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A material signature that is malformed or names no Syzygy table.
    Material {
        /// The signature as given.
        input: String,
        /// What is wrong with it.
        reason: String,
        /// The closest valid table name, if one is close.
        suggestion: Option<String>,
    },
    /// Table files needed for the work are not present.
    MissingTables {
        /// What needed them (a material or a FEN).
        needed_for: String,
        /// File names, e.g. `KRvK.rtbw`.
        files: Vec<String>,
    },
    /// A table file exists but cannot be read or is damaged.
    Table {
        /// The file, or the material when the file is not known.
        what: String,
        /// What went wrong.
        detail: String,
    },
    /// A table file that cannot be read: the I/O error, kept as the source.
    TableRead {
        /// The file, or the material when the file is not known.
        what: String,
        /// The I/O error.
        source: io::Error,
    },
    /// A table directory that cannot be listed: the I/O error, kept as the
    /// source.
    TableDirRead {
        /// The directory.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// A table directory that does not exist or cannot be listed.
    TableDir {
        /// The directory.
        path: PathBuf,
        /// What went wrong.
        detail: String,
    },
    /// Reading an input file (scan results, catalogs) failed.
    Input {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        detail: String,
    },
    /// An input file (scan results, catalogs) that cannot be read.
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// A line of a results file that is not a scan result.
    NotAScanResult {
        /// The file.
        path: PathBuf,
        /// The line number, from 1.
        line: usize,
        /// The JSON decoder's error.
        source: serde_json::Error,
    },
    /// Result files made by different builds of fiftymove, which must
    /// not be summed or set side by side.
    MixedBuilds {
        /// Each build (`None`: a document of a build before documents named
        /// theirs) with the files, or `file:line`s, that it made.
        builds: Vec<(Option<String>, Vec<String>)>,
    },
    /// Writing output failed.
    Output {
        /// The destination.
        path: PathBuf,
        /// The underlying error.
        error: io::Error,
    },
    /// A sweep or a solve would need more memory than it may use.
    Memory {
        /// What needed it (`scan KRBNvKR`).
        needed_for: String,
        /// Which engine (`the sweep engine`, `the solver`).
        engine: &'static str,
        /// What to do instead, if anything (`scan --engine probe needs
        /// little memory`).
        instead: Option<&'static str>,
        /// The most bytes the sweep would take.
        needed: u64,
        /// The bytes it may take.
        limit: u64,
    },
    /// A remote table source (`--remote`) that cannot be reached, refuses,
    /// or answers something unusable.
    Remote {
        /// The service's URL.
        url: String,
        /// What went wrong.
        detail: String,
    },
    /// A command that would send a remote table source more requests than
    /// its budget (`--remote-budget`) allows: refused before it starts, or
    /// stopped when the budget ran out.
    RemoteBudget {
        /// The service's URL.
        url: String,
        /// The budget, in requests.
        budget: u64,
        /// What needed more, and how to go on.
        detail: String,
    },
    /// A state that should not arise: the tables, or an engine's reading
    /// of them, contradict themselves (a position without an index, a
    /// value no rule allows, no move reaching a position's value), or a
    /// step was skipped. A defect in fiftymove, or damage that the md5
    /// check (`tables --verify`) would catch.
    Inconsistent {
        /// The part that found it (`the sweep`, `the probe engine`, `the
        /// solver`).
        component: &'static str,
        /// What it found.
        detail: String,
    },
    /// A solve that goes deeper than the solver's values can hold.
    TooDeep {
        /// The material being solved.
        material: String,
        /// The metric, when it is not the DTZ of the plain solve (`DTR`).
        metric: Option<&'static str>,
        /// How deep it went.
        detail: String,
    },
    /// A solve the cache should hold and does not give back.
    SolveCache {
        /// The material.
        material: String,
        /// The cache directory, when known.
        dir: Option<PathBuf>,
    },
    /// A best-play line that does not end as best play must.
    Line {
        /// The FEN the line starts from.
        start: String,
        /// How it went wrong.
        detail: String,
    },
    /// A claim that lacks what its check needs.
    Claim {
        /// The claim's id.
        id: String,
        /// What it lacks (`names no material`).
        detail: String,
    },
    /// A material that no engine (tables, service or solver) takes.
    NoEngine {
        /// The material.
        material: String,
        /// Its number of pieces.
        pieces: usize,
    },
    /// A line of the generator's published statistics that does not fit
    /// their format.
    GeneratorStats {
        /// The line number, from 1.
        line: usize,
        /// The line.
        text: String,
    },
    /// A chart that plotters cannot draw.
    Chart(Box<dyn std::error::Error + Send + Sync>),
    /// A document that cannot be encoded as JSON.
    Encode {
        /// Where it was to be written.
        path: PathBuf,
        /// The encoder's error.
        source: serde_json::Error,
    },
    /// The worker threads (`--threads`) cannot be started.
    Threads {
        /// How many were asked for.
        count: usize,
        /// rayon's error.
        source: rayon::ThreadPoolBuildError,
    },
}

/// Exit code for success.
pub const EXIT_OK: i32 = 0;
/// Exit code for anything not covered by the other codes.
pub const EXIT_OTHER: i32 = 1;
/// Exit code for bad input: usage, FEN, material, position; and a remote
/// command refused or stopped by its request budget (`--remote-budget`).
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit code for tables that are missing, unreadable or corrupt, and for a
/// remote table source that cannot be reached or answers nonsense.
pub const EXIT_TABLES: i32 = 3;

impl Error {
    /// The process exit code the command-line contract assigns to this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_)
            | Error::Fen { .. }
            | Error::Position { .. }
            | Error::Material { .. }
            | Error::Input { .. }
            | Error::Read { .. }
            | Error::NotAScanResult { .. }
            | Error::MixedBuilds { .. }
            | Error::RemoteBudget { .. } => EXIT_BAD_INPUT,
            Error::MissingTables { .. }
            | Error::Table { .. }
            | Error::TableRead { .. }
            | Error::TableDirRead { .. }
            | Error::TableDir { .. }
            | Error::Remote { .. } => EXIT_TABLES,
            // Output, memory, a solve too deep, an inconsistency: as the
            // contract says, anything the other codes do not cover.
            _ => EXIT_OTHER,
        }
    }

    /// Shorthand for an [`Error::Inconsistent`] error.
    pub(crate) fn inconsistent(component: &'static str, detail: impl Into<String>) -> Error {
        Error::Inconsistent {
            component,
            detail: detail.into(),
        }
    }

    /// Shorthand for a [`Error::Position`] error.
    pub(crate) fn position(fen: &str, reason: impl Into<String>) -> Error {
        Error::Position {
            fen: fen.to_owned(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Error {
    /// One line, whatever the inputs hold: control characters (a newline in
    /// a pasted FEN, say) are escaped, and long inputs are shortened.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = String::new();
        self.write_raw(&mut text)?;
        for c in text.chars() {
            if c.is_control() {
                write!(f, "{}", c.escape_default())?;
            } else {
                f.write_char(c)?;
            }
        }
        Ok(())
    }
}

/// At most this many characters of an input are quoted in a message.
const QUOTE_MAX: usize = 120;

/// An input as quoted in a message: shortened to [`QUOTE_MAX`] characters.
fn quote(input: &str) -> String {
    match input.char_indices().nth(QUOTE_MAX) {
        Some((cut, _)) => format!(
            "{}... (+{} more characters)",
            &input[..cut],
            input[cut..].chars().count()
        ),
        None => input.to_owned(),
    }
}

impl Error {
    /// The message before [`fmt::Display`] makes it one line.
    fn write_raw(&self, f: &mut impl fmt::Write) -> fmt::Result {
        match self {
            Error::Usage(msg) => write!(f, "{msg}"),
            Error::Fen { fen, reason } => write!(f, "invalid FEN '{}': {reason}", quote(fen)),
            Error::Position { fen, reason } => {
                write!(f, "unusable position '{}': {reason}", quote(fen))
            }
            Error::Material {
                input,
                reason,
                suggestion,
            } => {
                write!(f, "invalid material '{}': {reason}", quote(input))?;
                if let Some(s) = suggestion {
                    write!(f, " (did you mean {s}?)")?;
                }
                Ok(())
            }
            Error::MissingTables { needed_for, files } => {
                let shown: Vec<&str> = files.iter().take(12).map(String::as_str).collect();
                write!(
                    f,
                    "{} table file(s) needed for {needed_for} are missing: {}",
                    files.len(),
                    shown.join(" ")
                )?;
                if files.len() > shown.len() {
                    write!(f, " ... (+{} more)", files.len() - shown.len())?;
                }
                // The tables by name: the installer brings each with its
                // closure, which the material's closure contains.
                let mut tables: Vec<&str> = Vec::new();
                for file in files {
                    let table = file.split('.').next().unwrap_or(file);
                    if !tables.contains(&table) {
                        tables.push(table);
                    }
                }
                write!(
                    f,
                    "; install them with scripts/install-tables.sh {} or point --tables at them",
                    tables.join(" ")
                )
            }
            Error::Table { what, detail } => write!(f, "table {what}: {detail}"),
            Error::TableRead { what, source } => {
                write!(f, "table {what}: cannot be read: {}", io_detail(source))
            }
            Error::TableDirRead { path, source } => {
                write!(f, "table directory {}: {}", path.display(), io_detail(source))
            }
            Error::TableDir { path, detail } => {
                write!(f, "table directory {}: {detail}", path.display())
            }
            Error::Input { path, detail } => write!(f, "{}: {detail}", path.display()),
            Error::Read { path, source } => write!(f, "{}: {source}", path.display()),
            Error::NotAScanResult { path, line, source } => write!(
                f,
                "{}: line {line}: not a scan result ({source})",
                path.display()
            ),
            Error::MixedBuilds { builds } => {
                f.write_str("the results come from different builds of fiftymove: ")?;
                for (i, (build, files)) in builds.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    match build {
                        Some(b) => write!(f, "build {b}: ")?,
                        None => f.write_str("no build named (an older fiftymove): ")?,
                    }
                    const SHOWN: usize = 4;
                    f.write_str(&files[..files.len().min(SHOWN)].join(", "))?;
                    if files.len() > SHOWN {
                        write!(f, " and {} more", files.len() - SHOWN)?;
                    }
                }
                write!(
                    f,
                    " (this is build {}); compute them again with one build",
                    crate::build_id::BUILD_ID
                )
            }
            Error::Output { path, error } => {
                write!(f, "cannot write {}: {error}", path.display())
            }
            Error::Memory {
                needed_for,
                engine,
                instead,
                needed,
                limit,
            } => {
                write!(
                    f,
                    "{needed_for}: {engine} needs up to {needed} bytes ({}) of memory, \
                     more than the {limit} bytes ({}) it may use (--memory-limit; default: \
                     the memory available)",
                    Size(*needed),
                    Size(*limit)
                )?;
                if let Some(i) = instead {
                    write!(f, "; {i}")?;
                }
                Ok(())
            }
            Error::Remote { url, detail } => {
                write!(f, "the tablebase service at {url}: {detail}")
            }
            Error::RemoteBudget {
                url,
                budget,
                detail,
            } => write!(
                f,
                "the tablebase service at {url}: {detail} (the request budget is {budget}: --remote-budget N)"
            ),
            Error::Inconsistent { detail, .. } => write!(f, "{detail}"),
            Error::TooDeep {
                material,
                metric,
                detail,
            } => {
                write!(f, "solving {material}")?;
                if let Some(m) = metric {
                    write!(f, " in {m}")?;
                }
                write!(f, ": {detail}")
            }
            Error::SolveCache { material, dir } => {
                write!(f, "the solve of {material} cannot be read back")?;
                if let Some(d) = dir {
                    write!(f, " from {}", d.display())?;
                }
                Ok(())
            }
            Error::Line { start, detail } => write!(f, "the line from {start} {detail}"),
            Error::Claim { id, detail } => write!(f, "claim {id} {detail}"),
            Error::NoEngine { material, pieces } => {
                write!(f, "no engine takes {material} ({pieces} pieces)")
            }
            Error::GeneratorStats { line, text } => {
                write!(f, "generator statistics line {line}: '{text}'")
            }
            Error::Chart(e) => write!(f, "cannot draw a chart: {e}"),
            Error::Encode { source, .. } => write!(f, "{source}"),
            Error::Threads { count, source } => write!(f, "cannot start {count} threads: {source}"),
        }
    }
}

impl std::error::Error for Error {
    /// The error this one wraps, if any: an I/O error, the JSON encoder's,
    /// plotters', rayon's.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Output { error, .. }
            | Error::Read { source: error, .. }
            | Error::TableRead { source: error, .. }
            | Error::TableDirRead { source: error, .. } => Some(error),
            Error::NotAScanResult { source, .. } => Some(source),
            Error::Chart(e) => Some(e.as_ref()),
            Error::Encode { source, .. } => Some(source),
            Error::Threads { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// An I/O error as a message detail, with a hint where the fix is known:
/// running out of file descriptors says to raise `ulimit -n`.
pub(crate) fn io_detail(e: &io::Error) -> String {
    with_hint(e.to_string())
}

/// `detail` with the hint of [`io_detail`] when it reports running out of
/// file descriptors (EMFILE, "os error 24" on Linux and macOS).
pub(crate) fn with_hint(detail: String) -> String {
    if detail.contains("os error 24") {
        format!("{detail}; raise the open-file limit (ulimit -n)")
    } else {
        detail
    }
}

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

thread_local! {
    /// How many [`guard_table_read`] calls the current thread is inside.
    static TABLE_READ_DEPTH: Cell<u32> = const { Cell::new(0) };
    /// Where the last panic inside [`guard_table_read`] happened, as the
    /// hook of [`quiet_table_panics`] saw it.
    static TABLE_PANIC_AT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Whether the current thread is inside [`guard_table_read`], that is,
/// reading table files.
pub fn reading_tables() -> bool {
    TABLE_READ_DEPTH.with(Cell::get) > 0
}

/// Runs `read`, which reads table files, and turns a panic inside it into
/// [`Error::Table`] about the table `what()` names.
///
/// shakmaty-syzygy returns errors for most damaged files, but bytes that are
/// damaged in the right way can still reach one of its assertions or an
/// out-of-range index. Such a panic says the file is bad, not that
/// fiftymove is, so it ends in exit code 3 like any other damaged table.
/// Panics elsewhere stay panics (bugs, exit code 1).
///
/// The default panic hook still prints the panic; the binary installs
/// [`quiet_table_panics`] so that the error stays one line.
///
/// # Errors
///
/// The errors of `read`, and [`Error::Table`] if it panics.
pub fn guard_table_read<T>(
    what: impl FnOnce() -> String,
    read: impl FnOnce() -> Result<T>,
) -> Result<T> {
    struct Depth;
    impl Drop for Depth {
        fn drop(&mut self) {
            TABLE_READ_DEPTH.with(|d| d.set(d.get() - 1));
        }
    }
    TABLE_READ_DEPTH.with(|d| d.set(d.get() + 1));
    let depth = Depth;
    let result = panic::catch_unwind(AssertUnwindSafe(read));
    drop(depth);
    result.unwrap_or_else(|payload| {
        let message = panic_message(payload.as_ref());
        let at = TABLE_PANIC_AT
            .with(|a| a.borrow_mut().take())
            .map(|at| format!(" at {at}"))
            .unwrap_or_default();
        Err(Error::Table {
            what: what(),
            detail: format!(
                "reading it failed ({message}{at}); it is damaged or not a Syzygy file, check it with `fiftymove tables --verify`"
            ),
        })
    })
}

/// The text of a panic payload, on one line.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let text = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".to_owned()
    };
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Installs a panic hook that is silent for panics inside
/// [`guard_table_read`] (they become [`Error::Table`], reported once as an
/// `error:` line) and hands every other panic to the hook installed before.
pub fn quiet_table_panics() {
    let previous = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if reading_tables() {
            let at = info
                .location()
                .map(|l| format!("{}:{}", short_path(l.file()), l.line()));
            TABLE_PANIC_AT.with(|a| *a.borrow_mut() = at);
        } else {
            previous(info);
        }
    }));
}

/// The last three components of a source path (`crate-1.0/src/file.rs`),
/// enough to place a panic without the whole registry path.
fn short_path(file: &str) -> String {
    let parts: Vec<&str> = file.split(['/', '\\']).collect();
    parts[parts.len().saturating_sub(3)..].join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The typed variants say what the untyped messages they replaced said.
    #[test]
    fn typed_messages() {
        let cases = [
            (
                Error::TooDeep {
                    material: "KQvK".into(),
                    metric: Some("DTR"),
                    detail: "a depth beyond 9 plies".into(),
                },
                "solving KQvK in DTR: a depth beyond 9 plies",
            ),
            (
                Error::SolveCache {
                    material: "KQvK".into(),
                    dir: Some("/c".into()),
                },
                "the solve of KQvK cannot be read back from /c",
            ),
            (
                Error::Line {
                    start: "8/8 w".into(),
                    detail: "did not end within 9 plies".into(),
                },
                "the line from 8/8 w did not end within 9 plies",
            ),
            (
                Error::Claim {
                    id: "x".into(),
                    detail: "names no winner".into(),
                },
                "claim x names no winner",
            ),
            (
                Error::NoEngine {
                    material: "KQvK".into(),
                    pieces: 3,
                },
                "no engine takes KQvK (3 pieces)",
            ),
            (
                Error::GeneratorStats {
                    line: 3,
                    text: "x".into(),
                },
                "generator statistics line 3: 'x'",
            ),
        ];
        for (e, text) in cases {
            assert_eq!(e.to_string(), text);
            assert_eq!(e.exit_code(), EXIT_OTHER);
        }
    }

    /// A wrapped error is the source, for callers that walk the chain.
    #[test]
    fn wrapped_errors_are_sources() {
        use std::error::Error as _;
        let e = Error::Output {
            path: "/x".into(),
            error: io::Error::other("disk full"),
        };
        assert_eq!(e.source().unwrap().to_string(), "disk full");
        let e = Error::Chart(Box::new(io::Error::other("no font")));
        assert_eq!(e.to_string(), "cannot draw a chart: no font");
        assert_eq!(e.source().unwrap().to_string(), "no font");
        assert!(Error::inconsistent("the sweep", "x").source().is_none());
    }
}
