//! The build id: which code computed a cached or saved result.
//!
//! The solver's files and the claims' statistics are kept between runs,
//! and every document `scan` and `solve` write names its build. A result
//! is only as good as the code that made it, so every cache file names the
//! build id of that code, and a build reads only its own. The id is the
//! hash of the sources that compute results ([`of_sources`]; test-only
//! code is left out), computed by the build script: change one line of the
//! solver or the sweep, rebuild, and every cached result is made again. A
//! hand-kept version number could not promise that.
//!
//! Files of other builds are never read, and never removed unless the user
//! asks (`fiftymove cache clean`): a 6-piece solve takes most of an hour,
//! and an older build's results may still be wanted beside a newer one's.
//! [`CachedFile`] is how each cache lists what it holds.

mod hash;

use std::{
    fs, io,
    ops::AddAssign,
    path::{Path, PathBuf},
};

pub use self::hash::{is_test_only, of_sources, without_test_modules, SOURCES};

/// The build id of this program: 16 hex digits, the hash of its sources.
pub const BUILD_ID: &str = env!("FIFTYMOVE_BUILD_ID");

/// Cache files, counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FileCount {
    /// How many files.
    pub files: u64,
    /// Their size in bytes.
    pub bytes: u64,
}

impl AddAssign for FileCount {
    fn add_assign(&mut self, other: FileCount) {
        self.files += other.files;
        self.bytes += other.bytes;
    }
}

/// One file of a result cache, as its name describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CachedFile {
    /// Where it is.
    pub path: PathBuf,
    /// The build that made it: 16 hex digits, or `v` and digits for the
    /// caches kept before build ids.
    pub build: String,
    /// The material, White first (`KQvKR`).
    pub material: String,
    /// What of the material it holds, as its name says (`rule-50 dtz`,
    /// `dtr`).
    pub what: String,
    /// Whether it is a solve still in progress (a partial file, its
    /// journal or a checkpoint) rather than a finished result.
    pub partial: bool,
    /// Its size in bytes.
    pub bytes: u64,
}

impl CachedFile {
    /// Whether this build made it (and so may read it).
    pub fn of_this_build(&self) -> bool {
        self.build == BUILD_ID
    }
}

/// What a cache's file name says, read by [`list_files`]'s caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameParts {
    /// The material.
    pub material: String,
    /// What of it the file holds.
    pub what: String,
    /// The build tag without its `b` (16 hex digits), or the old `vN`.
    pub build: String,
    /// A solve in progress.
    pub partial: bool,
}

/// The files of `dir` whose names `parse` recognises, sorted by path. A
/// missing `dir` holds none; other files are left out.
///
/// # Errors
///
/// The directory cannot be listed.
pub fn list_files(
    dir: &Path,
    parse: impl Fn(&str) -> Option<NameParts>,
) -> io::Result<Vec<CachedFile>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry?;
        let Some(parts) = parse(&entry.file_name().to_string_lossy()) else {
            continue;
        };
        // A file another process removes meanwhile is simply not listed.
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        files.push(CachedFile {
            path: entry.path(),
            build: parts.build,
            material: parts.material,
            what: parts.what,
            partial: parts.partial,
            bytes: meta.len(),
        });
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// Removes `files`; one another process removed first is not counted.
///
/// # Errors
///
/// A file cannot be removed.
pub fn remove_files<'a>(files: impl IntoIterator<Item = &'a CachedFile>) -> io::Result<FileCount> {
    let mut removed = FileCount::default();
    for file in files {
        match fs::remove_file(&file.path) {
            Ok(()) => {
                removed += FileCount {
                    files: 1,
                    bytes: file.bytes,
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(removed)
}

/// Splits a cache file name `<stem>.<tag>.<extension>`, where the tag is a
/// build id (`b` and 16 hex digits) or the hand-kept version of the caches
/// before build ids (`v` and digits), into the stem and the tag without
/// its `b` (a version keeps its `v`). The caches name their files this way.
pub(crate) fn split_build_tag<'a>(name: &'a str, extension: &str) -> Option<(&'a str, String)> {
    let rest = name.strip_suffix(extension)?.strip_suffix('.')?;
    let (stem, tag) = rest.rsplit_once('.')?;
    let is_build =
        tag.len() == 17 && tag.starts_with('b') && tag[1..].bytes().all(|b| b.is_ascii_hexdigit());
    let is_version =
        tag.len() > 1 && tag.starts_with('v') && tag[1..].bytes().all(|b| b.is_ascii_digit());
    if is_build {
        Some((stem, tag[1..].to_owned()))
    } else if is_version {
        Some((stem, tag.to_owned()))
    } else {
        None
    }
}

/// Whether `text` is a material as cache file names write it.
pub(crate) fn is_material_name(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b"KQRBNPv".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_tags_are_read_from_names() {
        let ours = format!("KQvK.rule-50.dtz.b{BUILD_ID}.fms");
        assert_eq!(
            split_build_tag(&ours, "fms"),
            Some(("KQvK.rule-50.dtz", BUILD_ID.to_owned()))
        );
        assert_eq!(
            split_build_tag("KQvK.rule-50.dtz.b0123456789abcdef.fms", "fms"),
            Some(("KQvK.rule-50.dtz", "0123456789abcdef".to_owned()))
        );
        assert_eq!(
            split_build_tag("KQvK.rule-50.dtz.v2.fms", "fms"),
            Some(("KQvK.rule-50.dtz", "v2".to_owned()))
        );
        // Not a cache file of ours.
        for name in [
            "notes.fms",
            "KQvK.rule-50.dtz.b0123.fms",
            ".KQvK.rule-50.dtz.b0123456789abcdef.fms.12.0.tmp",
            "KQvK.rule-50.dtz.b0123456789abcdef.json",
            "x.vv.fms",
        ] {
            assert_eq!(split_build_tag(name, "fms"), None, "{name}");
        }
    }

    #[test]
    fn the_id_is_sixteen_hex_digits() {
        assert_eq!(BUILD_ID.len(), 16);
        assert!(BUILD_ID.bytes().all(|b| b.is_ascii_hexdigit()));
    }

    #[test]
    fn test_only_code_is_told_apart() {
        assert!(is_test_only(Path::new("src/solve/tests.rs")));
        assert!(is_test_only(Path::new("src/solve/tests/dtr.rs")));
        assert!(!is_test_only(Path::new("src/solve/retro.rs")));
        assert!(!is_test_only(Path::new("src/solve/tests.txt")));
        let engine = "fn f() -> u32 {\n    1\n}\n";
        let with_tests =
            format!("{engine}\n#[cfg(test)]\nmod tests {{\n    #[test]\n    fn t() {{}}\n}}\n");
        let rs = Path::new("a.rs");
        assert_eq!(
            without_test_modules(rs, with_tests.as_bytes()),
            format!("{engine}\n").into_bytes()
        );
        // Code after the test module is kept; a module without cfg(test)
        // is kept; other files are whole.
        let after = format!("{with_tests}fn g() {{}}\n");
        assert_eq!(
            without_test_modules(rs, after.as_bytes()),
            format!("{engine}\nfn g() {{}}\n").into_bytes()
        );
        let plain = "mod inner {\n    fn x() {}\n}\n";
        assert_eq!(without_test_modules(rs, plain.as_bytes()), plain.as_bytes());
        assert_eq!(
            without_test_modules(Path::new("a.toml"), with_tests.as_bytes()),
            with_tests.as_bytes()
        );
    }
}
