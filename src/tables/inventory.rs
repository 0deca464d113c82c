//! Finding table files: the configured directories, the inventory of what is
//! there, the dependency check that runs before any long work, and md5
//! verification against the official list.

use std::{
    collections::{BTreeMap, BTreeSet},
    fs,
    io::Read,
    path::{Path, PathBuf},
    sync::Arc,
};

use md5::{Digest, Md5};
use shakmaty::Chess;
use shakmaty_syzygy::{filesystem::MmapFilesystem, Tablebase};

use crate::{
    chess::material::Material,
    error::{Error, Result},
    tables::checksums,
};

/// Where tables are looked for when neither `--tables` nor `SYZYGY_PATH` says.
pub const DEFAULT_DIR: &str = "data/syzygy";

/// The table directories to use: the explicit ones if any, else the entries
/// of `syzygy_path` (split on ':', empty entries skipped), else
/// [`DEFAULT_DIR`].
pub fn resolve_dirs(explicit: &[PathBuf], syzygy_path: Option<&str>) -> Vec<PathBuf> {
    if !explicit.is_empty() {
        return explicit.to_vec();
    }
    if let Some(path) = syzygy_path {
        let dirs: Vec<PathBuf> = path
            .split(':')
            .filter(|s| !s.trim().is_empty())
            .map(PathBuf::from)
            .collect();
        if !dirs.is_empty() {
            return dirs;
        }
    }
    vec![PathBuf::from(DEFAULT_DIR)]
}

/// The Syzygy files found in a set of directories.
///
/// When a file name appears in several directories, the first directory
/// wins, as with `SYZYGY_PATH` in engines.
#[derive(Debug, Clone, Default)]
pub struct Inventory {
    dirs: Vec<PathBuf>,
    files: BTreeMap<String, PathBuf>,
    /// Whether [`Inventory::require`] md5-checks the files, and where it
    /// remembers the verdicts (see [`Inventory::with_md5_check`]).
    md5_check: Option<Md5Check>,
}

/// The md5 check of [`Inventory::require`].
#[derive(Debug, Clone)]
struct Md5Check {
    cache: Option<PathBuf>,
}

/// One file's md5 check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verification {
    /// Size and md5 match the official list.
    Ok,
    /// The size differs from the official one (truncated or wrong file).
    WrongSize {
        /// Official size in bytes.
        expected: u64,
        /// Size on disk.
        actual: u64,
    },
    /// The size is right but the md5 is not.
    WrongMd5 {
        /// Official md5.
        expected: String,
        /// md5 on disk.
        actual: String,
    },
    /// The file name is not in the official list.
    Unknown,
    /// The file could not be read.
    Unreadable(String),
}

impl Inventory {
    /// Lists the Syzygy files (`*.rtbw`, `*.rtbz`) in `dirs`.
    ///
    /// # Errors
    ///
    /// [`Error::TableDir`] if a directory does not exist, [`Error::TableDirRead`]
    /// if it cannot be listed.
    pub fn scan(dirs: &[PathBuf]) -> Result<Inventory> {
        let mut files = BTreeMap::new();
        for dir in dirs {
            let entries = fs::read_dir(dir).map_err(|e| {
                if e.kind() == std::io::ErrorKind::NotFound {
                    Error::TableDir {
                        path: dir.clone(),
                        detail: "does not exist (install tables with scripts/install-tables.sh, or use --tables / SYZYGY_PATH)".into(),
                    }
                } else {
                    Error::TableDirRead {
                        path: dir.clone(),
                        source: e,
                    }
                }
            })?;
            for entry in entries {
                let entry = entry.map_err(|source| Error::TableDirRead {
                    path: dir.clone(),
                    source,
                })?;
                let name = entry.file_name().to_string_lossy().into_owned();
                if is_table_file_name(&name) {
                    files.entry(name).or_insert_with(|| entry.path());
                }
            }
        }
        Ok(Inventory {
            dirs: dirs.to_vec(),
            files,
            md5_check: None,
        })
    }

    /// Makes [`Inventory::require`] also check the md5 of every file it
    /// needs against the official list, so that a damaged file is refused
    /// before it can be read (a flipped byte inside compressed data can
    /// decode to a wrong but plausible value, which no other check sees).
    ///
    /// Hashing is done once per file: the md5 is remembered in `cache` (a
    /// small text file, see [`default_cache_file`]) under the file's
    /// canonical path, size, device, inode, mtime and ctime, and hashed
    /// again only when one of those changes. Without a cache, or when it
    /// cannot be written, every run hashes the files it needs.
    pub fn with_md5_check(mut self, cache: Option<PathBuf>) -> Inventory {
        self.md5_check = Some(Md5Check { cache });
        self
    }

    /// The directories that were scanned.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// Every table file found, by file name.
    pub fn files(&self) -> &BTreeMap<String, PathBuf> {
        &self.files
    }

    /// The path of a file such as `KRvK.rtbw`, if present.
    pub fn path(&self, file_name: &str) -> Option<&Path> {
        self.files.get(file_name).map(PathBuf::as_path)
    }

    /// The files of `material`'s closure that are not present.
    pub fn missing_for(&self, material: &Material) -> Vec<String> {
        material
            .closure_files()
            .into_iter()
            .filter(|f| !self.files.contains_key(f))
            .collect()
    }

    /// Checks that every file `material` can lead to is present, and that
    /// each has its official size (a cheap check that catches truncated
    /// downloads before any long work starts); with
    /// [`Inventory::with_md5_check`], also its official md5.
    ///
    /// # Errors
    ///
    /// [`Error::MissingTables`] naming every missing file, or
    /// [`Error::Table`] naming a file with the wrong size or md5, or
    /// [`Error::TableRead`] one that cannot be read.
    pub fn require(&self, material: &Material, needed_for: &str) -> Result<()> {
        let missing = self.missing_for(material);
        if !missing.is_empty() {
            return Err(Error::MissingTables {
                needed_for: needed_for.to_owned(),
                files: missing,
            });
        }
        let files: Vec<(String, &Path)> = material
            .closure_files()
            .into_iter()
            .map(|file| {
                let path = self.files[&file].as_path();
                (file, path)
            })
            .collect();
        for (file, path) in &files {
            check_size(file, path)?;
        }
        if let Some(check) = &self.md5_check {
            check_md5(&files, check.cache.as_deref())?;
        }
        Ok(())
    }

    /// Opens a shakmaty-syzygy tablebase over every file present.
    ///
    /// Tables are memory-mapped, which the design measured at 1.7-1.9x the
    /// speed of plain reads. A file is mapped when first probed and its
    /// descriptor closed at once, so hundreds of tables do not hold hundreds
    /// of open files.
    ///
    /// A file that shakmaty-syzygy refuses at once (a size no Syzygy file
    /// has, say a half-downloaded one, or not a regular file) is left out,
    /// so that it cannot spoil work that does not need it; work that does
    /// need it finds it missing. [`Inventory::require`] names such files
    /// precisely: call it first.
    ///
    /// A file truncated or rewritten *while* it is mapped makes the process
    /// die of SIGBUS on the next read of a lost page; that cannot be turned
    /// into an error. Do not modify tables during a run.
    ///
    /// # Errors
    ///
    /// None at present; the signature leaves room for filesystems that can
    /// fail to open.
    pub fn open(&self) -> Result<Tablebase<Chess>> {
        // SAFETY: memory maps are sound as long as the files are not
        // modified while mapped. fiftymove never writes table files, and the
        // README tells users not to modify tables during a run. An I/O error
        // on a mapped page would raise SIGBUS rather than return an error;
        // we accept that for the measured speed-up.
        let fs = unsafe { MmapFilesystem::new() };
        let mut tb = Tablebase::with_filesystem(Arc::new(fs));
        for path in self.files.values() {
            // Refused files are left out (see above).
            let _ = tb.add_file(path);
        }
        Ok(tb)
    }
}

/// Whether `name` is a Syzygy file name (`KRvK.rtbw`), spelt exactly as
/// Syzygy spells it. Other spellings of a material (`KvKR.rtbw`,
/// `krvk.rtbw`) are ignored: shakmaty-syzygy would file them under the
/// table's real name, where they could shadow the real file unchecked.
fn is_table_file_name(name: &str) -> bool {
    let Some(stem) = name
        .strip_suffix(".rtbw")
        .or_else(|| name.strip_suffix(".rtbz"))
    else {
        return false;
    };
    stem.parse::<Material>()
        .is_ok_and(|m| m.table_name() == stem)
}

fn check_size(file: &str, path: &Path) -> Result<()> {
    let table = |detail: String| Error::Table {
        what: path.display().to_string(),
        detail,
    };
    let meta = fs::metadata(path).map_err(|source| Error::TableRead {
        what: path.display().to_string(),
        source,
    })?;
    if !meta.is_file() {
        return Err(table("is not a regular file".into()));
    }
    let actual = meta.len();
    if let Some(official) = checksums::official(file) {
        if official.bytes != actual {
            return Err(Error::Table {
                what: path.display().to_string(),
                detail: format!(
                    "is {actual} bytes, the official file is {} bytes (truncated or damaged; re-install it)",
                    official.bytes
                ),
            });
        }
    }
    Ok(())
}

/// Where the md5 verdicts are kept by default: `verified-md5.tsv` in
/// [`crate::dirs::cache_dir`] ([`crate::dirs::CacheRoot::md5_verdicts`]).
/// `None` when there is no cache directory.
pub fn default_cache_file() -> Option<PathBuf> {
    Some(crate::dirs::CacheRoot::new(crate::dirs::cache_dir()?).md5_verdicts())
}

/// What identifies one version of a file: if any of it changes, the file
/// is hashed again. The ctime cannot be set back by tools that preserve
/// mtimes (`touch -r`, `cp -p`), so a rewrite is always noticed.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileIdentity {
    size: u64,
    dev: u64,
    ino: u64,
    mtime_ns: i128,
    ctime_ns: i128,
}

impl FileIdentity {
    fn of(meta: &fs::Metadata) -> FileIdentity {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
            FileIdentity {
                size: meta.len(),
                dev: meta.dev(),
                ino: meta.ino(),
                mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
                ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
            }
        }
        #[cfg(not(unix))]
        {
            let mtime_ns = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos() as i128);
            FileIdentity {
                size: meta.len(),
                dev: 0,
                ino: 0,
                mtime_ns,
                ctime_ns: 0,
            }
        }
    }
}

/// The md5 cache: canonical path -> (identity, md5), as a text file of
/// tab-separated lines `md5 size dev ino mtime_ns ctime_ns path`.
#[derive(Default)]
struct Md5Cache {
    entries: BTreeMap<PathBuf, (FileIdentity, String)>,
}

const CACHE_HEADER: &str = "# fiftymove md5 cache v1: md5 size dev ino mtime_ns ctime_ns path";

impl Md5Cache {
    /// Reads a cache file; a missing or garbled file is an empty cache
    /// (lines that do not parse are dropped).
    fn load(path: &Path) -> Md5Cache {
        let mut cache = Md5Cache::default();
        let Ok(text) = fs::read_to_string(path) else {
            return cache;
        };
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let f: Vec<&str> = line.splitn(7, '\t').collect();
            let [md5, size, dev, ino, mtime, ctime, file] = f[..] else {
                continue;
            };
            let parsed = (|| {
                Some(FileIdentity {
                    size: size.parse().ok()?,
                    dev: dev.parse().ok()?,
                    ino: ino.parse().ok()?,
                    mtime_ns: mtime.parse().ok()?,
                    ctime_ns: ctime.parse().ok()?,
                })
            })();
            let well_formed = md5.len() == 32 && md5.bytes().all(|b| b.is_ascii_hexdigit());
            if let (Some(id), true) = (parsed, well_formed) {
                cache
                    .entries
                    .insert(PathBuf::from(file), (id, md5.to_owned()));
            }
        }
        cache
    }

    /// Writes the cache atomically, dropping entries whose file is gone.
    /// Failure is not an error: the next run hashes again.
    fn store(&self, path: &Path) {
        let mut text = format!("{CACHE_HEADER}\n");
        for (file, (id, md5)) in &self.entries {
            let Some(name) = file.to_str().filter(|n| !n.contains(['\n', '\t'])) else {
                continue;
            };
            if !file.exists() {
                continue;
            }
            text.push_str(&format!(
                "{md5}\t{}\t{}\t{}\t{}\t{}\t{name}\n",
                id.size, id.dev, id.ino, id.mtime_ns, id.ctime_ns
            ));
        }
        if let Some(dir) = path.parent() {
            let _ = fs::create_dir_all(dir);
        }
        let _ = crate::output::write_atomically(path, text.as_bytes());
    }
}

/// The md5 half of [`Inventory::require`]: every file of `files` that is in
/// the official list must have its official md5, taken from `cache` when the
/// file has not changed since it was hashed.
fn check_md5(files: &[(String, &Path)], cache_file: Option<&Path>) -> Result<()> {
    use rayon::prelude::*;

    /// One file to check.
    struct Pending<'a> {
        path: &'a Path,
        canonical: PathBuf,
        id: FileIdentity,
        official: &'static str,
        /// The md5 the cache holds for this version of the file.
        known: Option<String>,
    }
    let unreadable = |path: &Path, source: std::io::Error| Error::TableRead {
        what: path.display().to_string(),
        source,
    };
    let mut cache = cache_file.map(Md5Cache::load).unwrap_or_default();
    let mut todo = Vec::new();
    for (file, path) in files {
        let Some(official) = checksums::official(file) else {
            continue;
        };
        let canonical = fs::canonicalize(path).map_err(|e| unreadable(path, e))?;
        let meta = fs::metadata(&canonical).map_err(|e| unreadable(path, e))?;
        let id = FileIdentity::of(&meta);
        let known = cache
            .entries
            .get(&canonical)
            .filter(|(cached, _)| *cached == id)
            .map(|(_, md5)| md5.clone());
        todo.push(Pending {
            path,
            canonical,
            id,
            official: official.md5,
            known,
        });
    }
    // Hash what the cache does not know, in parallel but with at most four
    // files open at once whatever the core count, so that a low open-file
    // limit (ulimit -n) is not exhausted by the check itself.
    let hash = |p: &Pending| match &p.known {
        Some(md5) => Ok(md5.clone()),
        None => md5_file(&p.canonical).map_err(|e| unreadable(p.path, e)),
    };
    let pool = todo
        .iter()
        .any(|p| p.known.is_none())
        .then(|| {
            let workers = rayon::current_num_threads().min(4);
            rayon::ThreadPoolBuilder::new()
                .num_threads(workers)
                .build()
                .ok()
        })
        .flatten();
    let hashed: Vec<Result<String>> = match pool {
        Some(pool) => pool.install(|| todo.par_iter().map(hash).collect()),
        None => todo.iter().map(hash).collect(),
    };
    let mut damaged = Vec::new();
    let mut changed = false;
    for (p, md5) in todo.into_iter().zip(hashed) {
        let md5 = md5?;
        if p.known.is_none() {
            cache.entries.insert(p.canonical, (p.id, md5.clone()));
            changed = true;
        }
        if md5 != p.official {
            damaged.push((p.path, md5, p.official));
        }
    }
    if changed {
        if let Some(cache_file) = cache_file {
            cache.store(cache_file);
        }
    }
    match &damaged[..] {
        [] => Ok(()),
        [(path, md5, official)] => Err(Error::Table {
            what: path.display().to_string(),
            detail: format!(
                "has md5 {md5}, not the official {official}: it is damaged, or another table under this name; re-install it (--no-verify skips this check)"
            ),
        }),
        many => Err(Error::Table {
            what: many
                .iter()
                .map(|(path, _, _)| path.display().to_string())
                .collect::<Vec<_>>()
                .join(" "),
            detail: format!(
                "{} files do not have their official md5: they are damaged, or other tables under these names; re-install them (--no-verify skips this check)",
                many.len()
            ),
        }),
    }
}

/// md5-checks one file against the official list.
pub fn verify_file(file_name: &str, path: &Path) -> Verification {
    let Some(official) = checksums::official(file_name) else {
        return Verification::Unknown;
    };
    let actual = match fs::metadata(path) {
        Ok(m) => m.len(),
        Err(e) => return Verification::Unreadable(e.to_string()),
    };
    if actual != official.bytes {
        return Verification::WrongSize {
            expected: official.bytes,
            actual,
        };
    }
    match md5_file(path) {
        Ok(sum) if sum == official.md5 => Verification::Ok,
        Ok(sum) => Verification::WrongMd5 {
            expected: official.md5.to_owned(),
            actual: sum,
        },
        Err(e) => Verification::Unreadable(e.to_string()),
    }
}

/// The hex md5 of a file's contents.
///
/// # Errors
///
/// Any I/O error reading the file.
pub fn md5_file(path: &Path) -> std::io::Result<String> {
    let mut file = fs::File::open(path)?;
    let mut hasher = Md5::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// The table names (without extension) for which both files are present.
pub fn complete_tables(inv: &Inventory) -> BTreeSet<String> {
    inv.files()
        .keys()
        .filter_map(|f| f.strip_suffix(".rtbw"))
        .filter(|stem| inv.files().contains_key(&format!("{stem}.rtbz")))
        .map(str::to_owned)
        .collect()
}
