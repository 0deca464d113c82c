//! The hash of the sources a build is made from. The build script computes
//! it for the binary (`FIFTYMOVE_BUILD_ID`), and the library exposes the same
//! function, so that a test can show that one changed line changes the id.
//!
//! Only code that computes results is hashed: test-only code is left out,
//! so that editing a unit test does not discard users' cached results.
//! Test-only code is what the crate's layout keeps apart: a file named
//! `tests.rs` or under a folder named `tests`, and a module declared
//! `#[cfg(test)]` at the top level of a file (`#[cfg(test)]` on its own
//! line, then `mod NAME {` on the next, through the first line that is
//! `}` alone: rustfmt closes a top-level item at the first column).
//!
//! This file is compiled twice: as part of the library, and by `build.rs`
//! through `#[path]`. It uses only `std` and `md5` for that reason.

use std::{
    fs, io,
    path::{Path, PathBuf},
};

use md5::{Digest, Md5};

/// What decides a build's results, relative to the crate's root: the
/// sources, the data files that `include_str!` compiles in (not `data/`
/// whole: the installed tables live in `data/syzygy`), the manifest, the
/// lock file (dependency versions) and the build script.
pub const SOURCES: [&str; 8] = [
    "src",
    "data/claims.toml",
    "data/records.toml",
    "data/syzygy-md5.txt",
    "data/syzygy-bytes.tsv",
    "Cargo.toml",
    "Cargo.lock",
    "build.rs",
];

/// Every file under `path` (or `path` itself), in a fixed order, but for
/// test-only files ([`is_test_only`]).
fn files_under(path: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    let meta = fs::metadata(path)?;
    if meta.is_dir() {
        let mut entries = fs::read_dir(path)?
            .map(|e| e.map(|e| e.path()))
            .collect::<io::Result<Vec<_>>>()?;
        entries.sort();
        for entry in entries {
            files_under(&entry, out)?;
        }
    } else if !is_test_only(path) {
        out.push(path.to_path_buf());
    }
    Ok(())
}

/// Whether `path` is a test-only Rust file: `tests.rs`, or any `.rs` file
/// under a folder named `tests`.
pub fn is_test_only(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "rs")
        && (path.file_name().is_some_and(|n| n == "tests.rs")
            || path
                .parent()
                .is_some_and(|d| d.components().any(|c| c.as_os_str() == "tests")))
}

/// The text of a Rust file without its top-level `#[cfg(test)]` modules;
/// any other file whole.
pub fn without_test_modules(path: &Path, text: &[u8]) -> Vec<u8> {
    let Ok(text) = std::str::from_utf8(text) else {
        return text.to_vec();
    };
    if path.extension().is_none_or(|e| e != "rs") {
        return text.as_bytes().to_vec();
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut kept = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < lines.len() {
        let starts_test_module = lines[i].trim_end() == "#[cfg(test)]"
            && lines
                .get(i + 1)
                .is_some_and(|next| next.starts_with("mod ") && next.trim_end().ends_with(" {"));
        let end = starts_test_module
            .then(|| (i + 2..lines.len()).find(|&j| lines[j].trim_end() == "}"))
            .flatten();
        match end {
            Some(end) => i = end + 1,
            None => {
                kept.extend_from_slice(lines[i].as_bytes());
                i += 1;
            }
        }
    }
    kept
}

/// The build id of the sources under `root`: 16 hex digits of the md5 of
/// every file of [`SOURCES`], each with its path relative to `root`, test-only
/// code left out.
///
/// # Errors
///
/// A source that cannot be listed or read.
pub fn of_sources(root: &Path) -> io::Result<String> {
    let mut files = Vec::new();
    for name in SOURCES {
        files_under(&root.join(name), &mut files)?;
    }
    let mut hash = Md5::new();
    for file in files {
        let relative = file.strip_prefix(root).unwrap_or(&file);
        let text = without_test_modules(&file, &fs::read(&file)?);
        // Length-prefixed, so that no two trees hash the same bytes.
        for part in [relative.to_string_lossy().as_bytes(), &text[..]] {
            hash.update((part.len() as u64).to_le_bytes());
            hash.update(part);
        }
    }
    let digest = hash.finalize();
    Ok(digest[..8].iter().map(|b| format!("{b:02x}")).collect())
}
