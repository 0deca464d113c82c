//! Why a file the solver reads (a solved material, a checkpoint, a page)
//! was not used, and the error of a file it cannot write. Every reader
//! speaks this one type, so it stands below them all: the cache, the
//! checkpoints and the pages share it without reading each other.

use std::{io, path::Path};

use crate::error::Error;

/// Why a cache file was not used.
#[derive(Debug)]
pub(crate) enum CacheError {
    /// There is no file.
    Missing,
    /// The file is there but fails a check.
    Damaged(String),
    /// Reading or writing failed.
    Io(io::Error),
}

impl From<io::Error> for CacheError {
    fn from(e: io::Error) -> CacheError {
        CacheError::Io(e)
    }
}

/// The error of a file (or directory) at `path` that the solver cannot
/// write or read: a cache file, a checkpoint, a spill file.
pub(crate) fn output_error(path: &Path, e: io::Error) -> Error {
    Error::Output {
        path: path.to_path_buf(),
        error: e,
    }
}
