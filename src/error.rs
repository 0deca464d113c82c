//! The error type shared by the library, and the exit codes the binary maps
//! it to.
//!
//! Every variant renders as a single line, because the binary prints it after
//! `error:` and scripts grep for it.

use std::{fmt, io, path::PathBuf};

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
    /// Writing output failed.
    Output {
        /// The destination.
        path: PathBuf,
        /// The underlying error.
        error: io::Error,
    },
    /// Anything else; a bug or an unexpected state.
    Other(String),
}

/// Exit code for success.
pub const EXIT_OK: i32 = 0;
/// Exit code for anything not covered by the other codes.
pub const EXIT_OTHER: i32 = 1;
/// Exit code for bad input: usage, FEN, material, position.
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit code for tables that are missing, unreadable or corrupt.
pub const EXIT_TABLES: i32 = 3;

impl Error {
    /// The process exit code the command-line contract assigns to this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_)
            | Error::Fen { .. }
            | Error::Position { .. }
            | Error::Material { .. }
            | Error::Input { .. } => EXIT_BAD_INPUT,
            Error::MissingTables { .. } | Error::Table { .. } | Error::TableDir { .. } => {
                EXIT_TABLES
            }
            Error::Output { .. } | Error::Other(_) => EXIT_OTHER,
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
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(msg) => write!(f, "{msg}"),
            Error::Fen { fen, reason } => write!(f, "invalid FEN '{fen}': {reason}"),
            Error::Position { fen, reason } => write!(f, "unusable position '{fen}': {reason}"),
            Error::Material {
                input,
                reason,
                suggestion,
            } => {
                write!(f, "invalid material '{input}': {reason}")?;
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
                write!(
                    f,
                    "; install them with scripts/install-tables.sh or point --tables at them"
                )
            }
            Error::Table { what, detail } => write!(f, "table {what}: {detail}"),
            Error::TableDir { path, detail } => {
                write!(f, "table directory {}: {detail}", path.display())
            }
            Error::Input { path, detail } => write!(f, "{}: {detail}", path.display()),
            Error::Output { path, error } => {
                write!(f, "cannot write {}: {error}", path.display())
            }
            Error::Other(msg) => write!(f, "{msg}"),
        }
    }
}

impl std::error::Error for Error {}

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
