//! What each fuzz target checks, on one input. Shared by the cargo-fuzz
//! targets beside this file and by `tests/fuzz_regressions.rs`, which
//! replays the inputs that once failed (kept in `tests/fuzz_regressions/`).
//!
//! Each check panics when fiftymove misbehaves: a panic that escapes,
//! an error that is not one line or has the wrong exit code, a parse that
//! does not round-trip.

use std::{
    fs,
    path::{Path, PathBuf},
    sync::OnceLock,
};

use fiftymove::{
    chess::material::{Material, MAX_PIECES},
    chess::position::{fen_of, parse_fen},
    error::{EXIT_BAD_INPUT, EXIT_TABLES},
    probe::Prober,
    tables::reader::{DtzValue, SweepTable, TableKind},
    tables::Inventory,
    Error,
};
use shakmaty::Position;

/// An error message must be one short line.
fn one_line(e: &Error) {
    let line = e.to_string();
    assert!(!line.contains('\n') && !line.contains('\r'), "{line:?}");
    assert!(line.chars().count() < 1000, "{line:?}");
}

/// `position::parse_fen` on arbitrary text: a position the tables can
/// answer for, whose FEN parses back to it, or a one-line error (exit 2).
pub fn check_fen(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match parse_fen(&text) {
        Ok(pos) => {
            assert!(pos.board().occupied().count() <= MAX_PIECES);
            assert!(pos.castles().castling_rights().is_empty());
            let material = Material::from_board(pos.board()).expect("one king a side");
            let _ = material.closure_files();
            let again = parse_fen(&fen_of(&pos)).expect("our own FEN parses");
            assert_eq!(fen_of(&again), fen_of(&pos));
            let _ = pos.legal_moves();
        }
        Err(e) => {
            one_line(&e);
            assert_eq!(e.exit_code(), EXIT_BAD_INPUT, "{e}");
        }
    }
}

/// `Material::from_str` on arbitrary text: a material whose Syzygy name
/// parses back to it and whose closure is made of official tables, or a
/// one-line error (exit 2).
pub fn check_material(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match text.parse::<Material>() {
        Ok(m) => {
            assert!(m.piece_count() <= MAX_PIECES && m.piece_count() > 2);
            let name = m.table_name();
            let again: Material = name.parse().expect("a table name parses");
            assert_eq!(again.table_name(), name);
            let closure = m.closure();
            assert!(closure.contains(&name));
            for table in &closure {
                assert!(fiftymove::tables::checksums::official(&format!("{table}.rtbw")).is_some());
            }
        }
        Err(e) => {
            one_line(&e);
            assert_eq!(e.exit_code(), EXIT_BAD_INPUT);
        }
    }
}

/// The files a table input can stand for, with positions of their material
/// to probe. An input is one selector byte (an index into this list, modulo
/// its length) followed by the file's bytes; `scripts/fuzz.sh` seeds the
/// corpus with each real file behind its index.
pub const FILES: [(&str, &[&str]); 15] = [
    (
        "KQvK.rtbw",
        &[
            "k7/8/8/8/8/8/1Q6/K7 b - - 0 1",
            "4k3/8/8/8/8/8/8/3QK3 w - - 0 1",
        ],
    ),
    (
        "KQvK.rtbz",
        &[
            "k7/8/8/8/8/8/1Q6/K7 b - - 0 1",
            "4k3/8/8/8/8/8/8/3QK3 w - - 0 1",
        ],
    ),
    (
        "KRvK.rtbw",
        &[
            "8/8/8/8/8/8/8/R3K2k w - - 0 1",
            "4k3/8/8/8/8/8/8/R3K3 b - - 0 1",
        ],
    ),
    (
        "KRvK.rtbz",
        &[
            "8/8/8/8/8/8/8/R3K2k w - - 0 1",
            "4k3/8/8/8/8/8/8/R3K3 b - - 0 1",
        ],
    ),
    (
        "KPvK.rtbw",
        &[
            "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
            "8/8/8/8/8/2k5/P7/K7 b - - 0 1",
        ],
    ),
    (
        "KPvK.rtbz",
        &[
            "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
            "8/8/8/8/8/2k5/P7/K7 b - - 0 1",
        ],
    ),
    ("KNvK.rtbw", &["4k3/8/8/8/8/8/8/3NK3 w - - 0 1"]),
    ("KNvK.rtbz", &["4k3/8/8/8/8/8/8/3NK3 w - - 0 1"]),
    (
        "KRvKR.rtbw",
        &[
            "4k3/r7/8/8/8/8/8/R3K3 w - - 0 1",
            "r3k3/8/8/8/8/8/8/4K2R b - - 0 1",
        ],
    ),
    (
        "KRvKR.rtbz",
        &[
            "4k3/r7/8/8/8/8/8/R3K3 w - - 0 1",
            "r3k3/8/8/8/8/8/8/4K2R b - - 0 1",
        ],
    ),
    (
        "KQvKR.rtbw",
        &[
            "4k3/r7/8/8/8/8/8/Q3K3 w - - 0 1",
            "4k3/r7/8/8/8/8/8/Q3K3 b - - 0 1",
        ],
    ),
    (
        "KPPvK.rtbw",
        &[
            "4k3/8/8/8/8/8/PP6/4K3 w - - 0 1",
            "4k3/8/8/8/8/8/PP6/4K3 b - - 0 1",
        ],
    ),
    (
        "KPPvK.rtbz",
        &[
            "4k3/8/8/8/8/8/PP6/4K3 w - - 0 1",
            "4k3/8/8/8/8/8/PP6/4K3 b - - 0 1",
        ],
    ),
    (
        "KBvKP.rtbz",
        &[
            "4k3/4p3/8/8/8/8/8/3BK3 w - - 0 1",
            "4k3/4p3/8/8/8/8/8/3BK3 b - - 0 1",
        ],
    ),
    (
        "KBvKP.rtbw",
        &[
            "4k3/4p3/8/8/8/8/8/3BK3 w - - 0 1",
            "4k3/4p3/8/8/8/8/8/3BK3 b - - 0 1",
        ],
    ),
];

/// The real tables: `$FIFTYMOVE_TEST_TABLES`, else `data/syzygy` in the
/// repository (this file is compiled both in the repository's crate and in
/// `fuzz/`).
pub fn real_tables() -> PathBuf {
    if let Some(dir) = std::env::var_os("FIFTYMOVE_TEST_TABLES") {
        return PathBuf::from(dir);
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let repo = if manifest.ends_with("fuzz") {
        manifest.parent().expect("fuzz/ is in the repository")
    } else {
        manifest
    };
    repo.join("data/syzygy")
}

/// Splits a table input into (file name, positions, contents).
pub fn split(data: &[u8]) -> Option<(&'static str, &'static [&'static str], &[u8])> {
    let (&selector, contents) = data.split_first()?;
    let (name, fens) = FILES[usize::from(selector) % FILES.len()];
    Some((name, fens, contents))
}

/// A scratch directory holding a copy of every 3- and 4-piece table
/// (copies, never symlinks: the fuzzed files are rewritten in place, and a
/// write through a symlink would damage the real table).
pub struct Scratch {
    dir: tempfile::TempDir,
    originals: Vec<(String, Vec<u8>)>,
}

impl Scratch {
    /// The process-wide scratch directory, made on first use.
    pub fn get() -> &'static Scratch {
        static SCRATCH: OnceLock<Scratch> = OnceLock::new();
        SCRATCH.get_or_init(|| {
            let real = real_tables();
            let dir = tempfile::tempdir().expect("scratch dir");
            let mut originals = Vec::new();
            for entry in fs::read_dir(&real).unwrap_or_else(|e| panic!("{}: {e}", real.display())) {
                let entry = entry.expect("dir entry");
                let name = entry.file_name().to_string_lossy().into_owned();
                let is_table = name.ends_with(".rtbw") || name.ends_with(".rtbz");
                // 3- and 4-piece tables only (stems like KQvKR).
                if !is_table || name.len() > 10 {
                    continue;
                }
                let bytes = fs::read(entry.path()).expect("real table");
                fs::write(dir.path().join(&name), &bytes).expect("copy");
                if FILES.iter().any(|(f, _)| *f == name) {
                    originals.push((name, bytes));
                }
            }
            assert_eq!(
                originals.len(),
                FILES.len(),
                "real tables in {}",
                real.display()
            );
            Scratch { dir, originals }
        })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Replaces `name` with `contents` (removing the file first, so that a
    /// write can never go through a link).
    pub fn put(&self, name: &str, contents: &[u8]) -> PathBuf {
        let path = self.dir.path().join(name);
        let _ = fs::remove_file(&path);
        fs::write(&path, contents).expect("write fuzzed file");
        path
    }

    /// Puts the real `name` back.
    pub fn restore(&self, name: &str) {
        let (_, bytes) = self
            .originals
            .iter()
            .find(|(n, _)| n == name)
            .expect("a fuzzed name");
        self.put(name, bytes);
    }
}

/// A table file made of arbitrary bytes, among the real tables, opened and
/// probed the way the binary does (`Inventory`, `Prober`): every probe
/// returns a value or an exit-code-3 error. A panic inside table reading is
/// caught by `guard_table_read` and must come back as such an error (the
/// caller decides whether the panic itself counts as a failure, through
/// the panic hook).
pub fn check_table_probe(data: &[u8]) {
    let Some((name, fens, contents)) = split(data) else {
        return;
    };
    let scratch = Scratch::get();
    scratch.put(name, contents);
    if let Ok(inv) = Inventory::scan(&[scratch.path().to_owned()]) {
        if let Ok(tb) = inv.open() {
            let prober = Prober::new(tb);
            for fen in fens {
                let pos = parse_fen(fen).expect("fixed FENs are valid");
                for result in [
                    prober.wdl(&pos).map(|_| ()),
                    prober.dtz(&pos).map(|_| ()),
                    prober.report(&pos).map(|_| ()),
                ] {
                    if let Err(e) = result {
                        assert_eq!(e.exit_code(), EXIT_TABLES, "{e}");
                        one_line(&e);
                    }
                }
            }
        }
    }
    scratch.restore(name);
}

/// The streaming decoder (`sweep::SweepTable`) on a table file made of
/// arbitrary bytes: opening, then decoding the first and last indices of
/// each stored side, returns values or a `SweepError`.
pub fn check_sweep(data: &[u8]) {
    let Some((name, _, contents)) = split(data) else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(name);
    fs::write(&path, contents).expect("write");
    let kind = if name.ends_with(".rtbw") {
        TableKind::Wdl
    } else {
        TableKind::Dtz
    };
    let Ok(table) = SweepTable::open(&path, kind) else {
        return;
    };
    for side in table.stored_sides() {
        let len = table.index_len(side);
        let n = len.min(512);
        for range in [0..n, len - n..len] {
            match kind {
                TableKind::Wdl => {
                    let mut out = vec![0u8; n as usize];
                    let _ = table.decode(side, range, &mut out);
                }
                TableKind::Dtz => {
                    let mut out = vec![DtzValue::default(); n as usize];
                    for wdl in [4u8, 0] {
                        let wdl = vec![wdl; n as usize];
                        let _ = table.decode_dtz(side, range.clone(), &wdl, &mut out);
                    }
                }
            }
        }
        let _ = table.placement(side, 0);
        let _ = table.placement(side, len.saturating_sub(1));
    }
}
