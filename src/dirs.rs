//! Where fiftymove keeps what it remembers between runs: the md5 verdicts
//! of table files and the solver's solved materials.

use std::path::PathBuf;

/// The cache directory: `$FIFTYMOVE_CACHE_DIR`, else
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
