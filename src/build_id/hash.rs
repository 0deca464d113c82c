//! The hash of the sources a build is made from. The build script computes
//! it for the binary (`FIFTYMOVE_BUILD_ID`), and the library exposes the same
//! function, so that a test can show that one changed line changes the id.
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

/// Every file under `path` (or `path` itself), in a fixed order.
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
    } else {
        out.push(path.to_path_buf());
    }
    Ok(())
}

/// The build id of the sources under `root`: 16 hex digits of the md5 of
/// every file of [`SOURCES`], each with its path relative to `root`.
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
        let text = fs::read(&file)?;
        // Length-prefixed, so that no two trees hash the same bytes.
        for part in [relative.to_string_lossy().as_bytes(), &text[..]] {
            hash.update((part.len() as u64).to_le_bytes());
            hash.update(part);
        }
    }
    let digest = hash.finalize();
    Ok(digest[..8].iter().map(|b| format!("{b:02x}")).collect())
}
