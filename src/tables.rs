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
    checksums,
    error::{Error, Result},
    material::Material,
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
    /// [`Error::TableDir`] if a directory does not exist or cannot be listed.
    pub fn scan(dirs: &[PathBuf]) -> Result<Inventory> {
        let mut files = BTreeMap::new();
        for dir in dirs {
            let entries = fs::read_dir(dir).map_err(|e| Error::TableDir {
                path: dir.clone(),
                detail: if e.kind() == std::io::ErrorKind::NotFound {
                    "does not exist (install tables with scripts/install-tables.sh, or use --tables / SYZYGY_PATH)".into()
                } else {
                    e.to_string()
                },
            })?;
            for entry in entries {
                let entry = entry.map_err(|e| Error::TableDir {
                    path: dir.clone(),
                    detail: e.to_string(),
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
        })
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
    /// downloads before any long work starts).
    ///
    /// # Errors
    ///
    /// [`Error::MissingTables`] naming every missing file, or
    /// [`Error::Table`] for a file with the wrong size.
    pub fn require(&self, material: &Material, needed_for: &str) -> Result<()> {
        let missing = self.missing_for(material);
        if !missing.is_empty() {
            return Err(Error::MissingTables {
                needed_for: needed_for.to_owned(),
                files: missing,
            });
        }
        for file in material.closure_files() {
            let path = &self.files[&file];
            check_size(&file, path)?;
        }
        Ok(())
    }

    /// Opens a shakmaty-syzygy tablebase over every file present.
    ///
    /// Tables are memory-mapped, which the design measured at 1.7-1.9x the
    /// speed of plain reads.
    ///
    /// # Errors
    ///
    /// [`Error::Table`] if a file cannot be added.
    pub fn open(&self) -> Result<Tablebase<Chess>> {
        // SAFETY: memory maps are sound as long as the files are not
        // modified while mapped. fiftymove never writes table files, and the
        // README tells users not to modify tables during a run. An I/O error
        // on a mapped page would raise SIGBUS rather than return an error;
        // we accept that for the measured speed-up.
        let fs = unsafe { MmapFilesystem::new() };
        let mut tb = Tablebase::with_filesystem(Arc::new(fs));
        for (name, path) in &self.files {
            tb.add_file(path).map_err(|e| Error::Table {
                what: name.clone(),
                detail: if e.kind() == std::io::ErrorKind::InvalidData {
                    "damaged (its size is not that of a Syzygy file); run `fiftymove tables --verify`".into()
                } else {
                    e.to_string()
                },
            })?;
        }
        Ok(tb)
    }
}

/// Whether `name` looks like a Syzygy file name (`KRvK.rtbw`).
fn is_table_file_name(name: &str) -> bool {
    let Some(stem) = name
        .strip_suffix(".rtbw")
        .or_else(|| name.strip_suffix(".rtbz"))
    else {
        return false;
    };
    stem.parse::<Material>().is_ok()
}

fn check_size(file: &str, path: &Path) -> Result<()> {
    let actual = fs::metadata(path)
        .map_err(|e| Error::Table {
            what: path.display().to_string(),
            detail: e.to_string(),
        })?
        .len();
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
