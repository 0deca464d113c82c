//! Writing result files atomically: into a temporary file beside the
//! destination, flushed and synced, then renamed over it. A reader never sees
//! a half-written file, and a failed write leaves the old file in place.

use std::{
    fs,
    io::{self, Write},
    path::{Path, PathBuf},
    sync::atomic::{AtomicU64, Ordering},
};

use crate::error::{Error, Result};

/// Writes `contents` to `path` atomically.
///
/// A device or pipe (`/dev/full`, `/dev/stdout`) is written directly: it
/// cannot be replaced, and must not be. A symlink keeps pointing where it
/// did: the file it points to is the one replaced.
///
/// # Errors
///
/// [`Error::Output`] if the temporary file cannot be written or renamed; the
/// temporary file is removed, and the destination is left as it was.
pub fn write_atomically(path: &Path, contents: &[u8]) -> Result<()> {
    let wrap = |error: io::Error| Error::Output {
        path: path.to_path_buf(),
        error,
    };
    // The file a symlink points to, if `path` is one (a dangling link is
    // replaced itself).
    let resolved: Option<PathBuf> = match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => fs::canonicalize(path).ok(),
        _ => None,
    };
    // A device or pipe (say /dev/full or /dev/stdout) cannot be replaced by
    // a rename, and must not be: write to it directly.
    if let Ok(meta) = fs::metadata(path) {
        if !meta.is_file() && !meta.is_dir() {
            let mut file = fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(wrap)?;
            return file
                .write_all(contents)
                .and_then(|()| file.flush())
                .map_err(wrap);
        }
    }
    let path = resolved.as_deref().unwrap_or(path);
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| wrap(io::Error::other("not a file name")))?;
    // Unique per process and call, so that concurrent writers never share a
    // temporary file.
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let tmp = dir.join(format!(
        ".{}.{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        file.write_all(contents)?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(wrap(e));
    }
    // Make the rename itself durable (best effort: not every filesystem
    // lets a directory be synced).
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}
