//! Writing result files atomically: into a temporary file beside the
//! destination, flushed and synced, then renamed over it. A reader never sees
//! a half-written file, and a failed write leaves the old file in place.

use std::{
    fs,
    io::{self, Write},
    path::Path,
};

use crate::error::{Error, Result};

/// Writes `contents` to `path` atomically.
///
/// # Errors
///
/// [`Error::Output`] if the temporary file cannot be written or renamed; the
/// temporary file is removed.
pub fn write_atomically(path: &Path, contents: &[u8]) -> Result<()> {
    let wrap = |error: io::Error| Error::Output {
        path: path.to_path_buf(),
        error,
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
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| wrap(io::Error::other("not a file name")))?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| {
        let mut file = fs::File::create(&tmp)?;
        file.write_all(contents)?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(wrap(e));
    }
    Ok(())
}
