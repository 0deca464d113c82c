//! The `tables` report: which directories were searched, the closure of
//! each material asked about with the files missing from it, and the status
//! of each file (present, or its md5 verdict).

use serde::Serialize;

use crate::{
    chess::material::Material,
    error::Error,
    tables::{verify_file, Inventory, Verification},
};

/// The closure of one material.
#[derive(Clone, Debug, Serialize)]
pub struct MaterialClosure {
    /// As given (White first).
    pub material: String,
    /// Syzygy name.
    pub table: String,
    /// Every table in the closure.
    pub closure: Vec<String>,
    /// Missing files.
    pub missing: Vec<String>,
    /// The official size of each missing file, in bytes (from
    /// `data/syzygy-bytes.tsv`; absent for a file the list lacks).
    pub missing_bytes: std::collections::BTreeMap<String, u64>,
    /// Their sum: what installing the closure downloads.
    pub missing_total_bytes: u64,
    /// What a scan and a solve of the material would need in memory (filled
    /// in by the caller, which knows the engines: this layer does not).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemoryNeeds>,
}

/// What a scan and a solve of one material would need in memory, beside
/// what the machine has for them.
#[derive(Clone, Debug, Serialize)]
pub struct MemoryNeeds {
    /// The memory a run may take, in bytes: `--memory-limit` if given,
    /// else what the system reports available (Linux: `MemAvailable`);
    /// absent where the system does not say.
    pub available_bytes: Option<u64>,
    /// Where [`MemoryNeeds::available_bytes`] comes from: `"--memory-limit"`
    /// or `"MemAvailable"` (absent with it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub available_from: Option<String>,
    /// The sweep engine's bound for `scan MATERIAL`, in bytes (what `scan`
    /// checks before it starts; `scan --plan` prints it).
    pub scan_bytes: u64,
    /// Where [`MemoryNeeds::scan_bytes`] comes from: `"table headers"`
    /// (exact, as `scan` computes it) or `"index arithmetic"` (the same sum
    /// from the material alone, when tables of the closure are missing).
    pub scan_bound_from: String,
    /// Whether the scan fits in [`MemoryNeeds::available_bytes`] (absent
    /// when that is unknown).
    pub scan_fits: Option<bool>,
    /// The budget of the pages the scan reads its closure through, in
    /// bytes: 0 when the closure is held whole.
    pub scan_page_bytes: u64,
    /// The tables of the closure the scan reads page by page, smallest
    /// first (empty when it holds them whole).
    pub scan_paged_tables: Vec<String>,
    /// Into how many slices the scan cuts the table's indices, swept one
    /// after another (one per leading-pawn file, or one for a pawnless or
    /// symmetric table, as a rule).
    pub scan_slices: u64,
    /// Whether the scan cuts the files further, by the squares of the
    /// leading pawns, to fit: a pawn move out of a slice then reads the
    /// table's own WDL values as it reads the closure's.
    pub scan_cut_by_pawns: bool,
    /// Whether the scan, to fit, keeps no DTZ of the side to move the DTZ
    /// file does not store, and works each one out again where it reads
    /// it (3 bytes per index of a pawnless table instead of 4).
    pub scan_recomputes_unstored: bool,
    /// The budget of the pages the scan decodes its stored side's DTZ
    /// into where it reads it, holding none, to fit (0: none; a
    /// table that does not fit otherwise).
    pub scan_stored_dtz_page_bytes: u64,
    /// The budget of the pages the scan's first pass reads the table's
    /// WDL values through, holding none, to fit (0: none).
    pub scan_wdl_page_bytes: u64,
    /// Whether the scan, to fit, packs its WDL codes five bits each
    /// instead of a byte (a table whose stored DTZ and WDL values are
    /// paged and that does not fit otherwise).
    pub scan_packed_wdl_codes: bool,
    /// The solver's bound for `solve MATERIAL --metric M`, in bytes, by
    /// metric (`dtz`, `dtm`, `dtr`); empty when the solver does not take
    /// the material.
    pub solve_bytes: std::collections::BTreeMap<String, u64>,
    /// Whether each solve fits, by metric (as [`MemoryNeeds::scan_fits`]).
    pub solve_fits: std::collections::BTreeMap<String, bool>,
    /// Why there is no solve bound, if there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solve_refused: Option<String>,
}

/// One file's status.
#[derive(Clone, Debug, Serialize)]
pub struct FileStatus {
    /// File name.
    pub file: String,
    /// Where it was found.
    pub path: String,
    /// `present`, `ok`, or what is wrong.
    pub status: String,
}

/// What `tables` reports.
#[derive(Clone, Debug, Serialize)]
pub struct TablesReport {
    /// Directories searched, in order.
    pub dirs: Vec<String>,
    /// Closures asked for.
    pub materials: Vec<MaterialClosure>,
    /// Files reported on.
    pub files: Vec<FileStatus>,
    /// Files that failed verification.
    #[serde(skip)]
    pub damaged: Vec<String>,
}

impl TablesReport {
    /// The report on the closures of `materials` (or on every file present
    /// when there are none), md5-checking each file if `verify`.
    pub fn build(inv: &Inventory, materials: &[Material], verify: bool) -> TablesReport {
        // The files to report on: the closures asked for, or everything present.
        let files: Vec<String> = if materials.is_empty() {
            inv.files().keys().cloned().collect()
        } else {
            let mut all: Vec<String> = materials.iter().flat_map(|m| m.closure_files()).collect();
            all.sort();
            all.dedup();
            all
        };
        let mut report = TablesReport {
            dirs: inv.dirs().iter().map(|d| d.display().to_string()).collect(),
            materials: materials
                .iter()
                .map(|m| {
                    let missing = inv.missing_for(m);
                    let missing_bytes: std::collections::BTreeMap<String, u64> = missing
                        .iter()
                        .filter_map(|f| super::checksums::official(f).map(|o| (f.clone(), o.bytes)))
                        .collect();
                    MaterialClosure {
                        material: m.to_string(),
                        table: m.table_name(),
                        closure: m.closure().into_iter().collect(),
                        missing_total_bytes: missing_bytes.values().sum(),
                        missing_bytes,
                        missing,
                        memory: None,
                    }
                })
                .collect(),
            files: Vec::new(),
            damaged: Vec::new(),
        };
        for file in &files {
            let Some(path) = inv.path(file) else { continue };
            let status = if verify {
                match verify_file(file, path) {
                    Verification::Ok => "ok".to_owned(),
                    Verification::Unknown => "not an official Syzygy file name".to_owned(),
                    Verification::WrongSize { expected, actual } => {
                        report.damaged.push(file.clone());
                        format!("DAMAGED: {actual} bytes, official {expected}")
                    }
                    Verification::WrongMd5 { expected, actual } => {
                        report.damaged.push(file.clone());
                        format!("DAMAGED: md5 {actual}, official {expected}")
                    }
                    Verification::Unreadable(e) => {
                        report.damaged.push(file.clone());
                        format!("UNREADABLE: {e}")
                    }
                }
            } else {
                "present".to_owned()
            };
            report.files.push(FileStatus {
                file: file.clone(),
                path: path.display().to_string(),
                status,
            });
        }
        report
    }

    /// What the report says is wrong, as the error to exit with: damaged
    /// files first, then the first material with missing files.
    pub fn failure(&self) -> Option<Error> {
        if !self.damaged.is_empty() {
            return Some(Error::Table {
                what: self.damaged.join(" "),
                detail: format!("{} file(s) failed verification", self.damaged.len()),
            });
        }
        self.materials
            .iter()
            .find(|m| !m.missing.is_empty())
            .map(|m| Error::MissingTables {
                needed_for: m.material.clone(),
                files: m.missing.clone(),
            })
    }
}
