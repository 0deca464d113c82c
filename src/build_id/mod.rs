//! The build id: which code computed a cached result.
//!
//! The solver's files and the claims' statistics are kept between runs.
//! A result is only as good as the code that made it, so every cache file
//! names the build id of that code, and a build reads only its own. The id
//! is the hash of the sources ([`of_sources`]), computed by the build
//! script: change one line of the solver or the sweep, rebuild, and every
//! cached result is made again. A hand-kept version number could not
//! promise that.
//!
//! Files of other builds are removed when a command opens the cache
//! ([`remove_other_builds`]); the binary says so in one line.

mod hash;

use std::{fs, io, ops::AddAssign, path::Path};

pub use self::hash::{of_sources, SOURCES};

/// The build id of this program: 16 hex digits, the hash of its sources.
pub const BUILD_ID: &str = env!("FIFTYMOVE_BUILD_ID");

/// Cache files of other builds that were removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Removed {
    /// How many files.
    pub files: u64,
    /// Their size in bytes.
    pub bytes: u64,
}

impl AddAssign for Removed {
    fn add_assign(&mut self, other: Removed) {
        self.files += other.files;
        self.bytes += other.bytes;
    }
}

/// Removes the files of `dir` that `of_other_build` recognises by name as a
/// cache file made by another build. A missing `dir` removes nothing;
/// other files, and files another process removes first, are left alone.
///
/// # Errors
///
/// The directory cannot be listed, or a file cannot be removed.
pub fn remove_other_builds(
    dir: &Path,
    of_other_build: impl Fn(&str) -> bool,
) -> io::Result<Removed> {
    let mut removed = Removed::default();
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(removed),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let entry = entry?;
        if !of_other_build(&entry.file_name().to_string_lossy()) {
            continue;
        }
        let bytes = entry.metadata().map_or(0, |m| m.len());
        match fs::remove_file(entry.path()) {
            Ok(()) => removed += Removed { files: 1, bytes },
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(removed)
}

/// Whether `name` is `<stem>.<tag>.<extension>` where the tag is a build id
/// other than this one (`b` and 16 hex digits), or the hand-kept version
/// of the caches before build ids (`v` and digits), and `stem` passes
/// `stem_ok`. The caches name their files this way.
pub(crate) fn names_other_build(
    name: &str,
    extension: &str,
    stem_ok: impl Fn(&str) -> bool,
) -> bool {
    let Some(rest) = name
        .strip_suffix(extension)
        .and_then(|r| r.strip_suffix('.'))
    else {
        return false;
    };
    let Some((stem, tag)) = rest.rsplit_once('.') else {
        return false;
    };
    let is_build =
        tag.len() == 17 && tag.starts_with('b') && tag[1..].bytes().all(|b| b.is_ascii_hexdigit());
    let is_version =
        tag.len() > 1 && tag.starts_with('v') && tag[1..].bytes().all(|b| b.is_ascii_digit());
    (is_version || (is_build && tag[1..] != *BUILD_ID)) && stem_ok(stem)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_other_builds_are_told_apart_from_this_one() {
        let stem_ok = |s: &str| s.starts_with('K');
        let ours = format!("KQvK.rule-50.dtz.b{BUILD_ID}.fms");
        assert!(!names_other_build(&ours, "fms", stem_ok));
        let other = if BUILD_ID == "0123456789abcdef" {
            "fedcba9876543210"
        } else {
            "0123456789abcdef"
        };
        assert!(names_other_build(
            &format!("KQvK.rule-50.dtz.b{other}.fms"),
            "fms",
            stem_ok
        ));
        assert!(names_other_build("KQvK.rule-50.dtz.v2.fms", "fms", stem_ok));
        // Not a cache file of ours: left alone.
        for name in [
            "notes.fms",
            "KQvK.rule-50.dtz.b0123.fms",
            &format!(".KQvK.rule-50.dtz.b{other}.fms.12.0.tmp"),
            &format!("KQvK.rule-50.dtz.b{other}.json"),
            "x.v2.fms",
        ] {
            assert!(!names_other_build(name, "fms", stem_ok), "{name}");
        }
    }

    #[test]
    fn the_id_is_sixteen_hex_digits() {
        assert_eq!(BUILD_ID.len(), 16);
        assert!(BUILD_ID.bytes().all(|b| b.is_ascii_hexdigit()));
    }
}
