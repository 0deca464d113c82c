//! Where fiftymove keeps what it remembers between runs, under one root
//! the user controls (`--cache-dir`, `$FIFTYMOVE_CACHE_DIR`): the solver's
//! solved materials, the statistics documents, the md5 verdicts of table
//! files and a tablebase service's answers.

use std::path::{Path, PathBuf};

/// The default cache root: `$FIFTYMOVE_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/fiftymove` (if absolute), else `~/.cache/fiftymove`.
/// `None` when none of those is set.
pub fn cache_dir() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("FIFTYMOVE_CACHE_DIR")
        .or_else(|| {
            var("XDG_CACHE_HOME")
                .filter(|d| d.is_absolute())
                .map(|d| d.join("fiftymove"))
        })
        .or_else(|| var("HOME").map(|h| h.join(".cache/fiftymove")))
}

/// The caches under one root directory. Each is made when first written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheRoot {
    root: PathBuf,
}

impl CacheRoot {
    /// The caches under `root`.
    pub fn new(root: impl Into<PathBuf>) -> CacheRoot {
        CacheRoot { root: root.into() }
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The solver's solved materials (`solve/`).
    pub fn solves(&self) -> PathBuf {
        self.root.join("solve")
    }

    /// The statistics documents of `claims`, `records`, `report` and
    /// `census` (`stats/`).
    pub fn stats(&self) -> PathBuf {
        self.root.join("stats")
    }

    /// The md5 verdicts of table files (`verified-md5.tsv`).
    pub fn md5_verdicts(&self) -> PathBuf {
        self.root.join("verified-md5.tsv")
    }

    /// A tablebase service's answers (`remote/`).
    pub fn remote_answers(&self) -> PathBuf {
        self.root.join("remote")
    }
}
