//! Shared helpers for the integration tests: where the real tables are, and
//! how to run the real binary.
#![allow(dead_code)]

pub mod run_cache;

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

/// The directory of real Syzygy tables the tests use: `$FIFTYMOVE_TEST_TABLES`,
/// else `data/syzygy` (where `scripts/install-tables.sh` puts them). Panics
/// with instructions when neither exists: a missing table set is a failed
/// test, never a skipped one.
pub fn tables_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("FIFTYMOVE_TEST_TABLES") {
        return PathBuf::from(dir);
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/syzygy");
    assert!(
        dir.join("KRBvKR.rtbw").exists(),
        "the tests need the real tables in {}: run scripts/install-tables.sh first",
        dir.display()
    );
    dir
}

/// A published reference file shipped with the tests.
pub fn reference(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/reference")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The real `fiftymove` binary, pointed at the test tables, quiet.
pub fn fiftymove() -> Command {
    fiftymove_over(&tables_dir())
}

/// The real `fiftymove` binary, pointed at the tables in `dir` only, with
/// this run's cache.
pub fn fiftymove_over(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fiftymove"));
    cmd.arg("--tables")
        .arg(dir)
        .env_remove("SYZYGY_PATH")
        .env("FIFTYMOVE_CACHE_DIR", test_cache_dir());
    cmd
}

/// A temporary directory of symlinks to every file of the test tables but
/// those of the tables `without` (names such as `KBNvKN`): the test tables
/// as they were before those were installed.
pub fn tables_without(without: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for entry in std::fs::read_dir(tables_dir()).expect("the tables directory") {
        let path = entry.expect("a directory entry").path();
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        if without.contains(&stem) {
            continue;
        }
        let target = std::fs::canonicalize(&path).expect("the table file");
        std::os::unix::fs::symlink(target, dir.path().join(path.file_name().unwrap()))
            .expect("a symlink");
    }
    dir
}

/// The cache of this run of a test binary (solved materials, statistics),
/// shared by its tests: fresh for every run, in the build's scratch space,
/// never the user's own cache, so that no result comes from an earlier run.
/// The caches of earlier runs whose process is gone are removed here.
pub fn test_cache_dir() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        run_cache::process_dir(
            Path::new(env!("CARGO_TARGET_TMPDIR")),
            "fiftymove-cache-",
            std::process::id(),
        )
    })
    .clone()
}

/// Runs a command and returns its output, panicking with stderr on failure.
pub fn run_ok(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("binary runs");
    assert!(
        out.status.success(),
        "{:?} failed with {:?}: {}",
        cmd,
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// stdout of a successful run, as text.
pub fn stdout_ok(cmd: &mut Command) -> String {
    String::from_utf8(run_ok(cmd).stdout).expect("utf-8 output")
}

/// Opens the library's probe engine over the test tables.
pub fn prober() -> fiftymove::probe::Prober {
    let inv = fiftymove::tables::Inventory::scan(&[tables_dir()]).expect("tables dir");
    fiftymove::probe::Prober::new(inv.open().expect("tables open"))
}

/// A random legal position of `material` (`None` when the placement drawn
/// is not one: kings in contact, the side not to move in check, a pawn on
/// a back rank).
pub fn random_position(
    rng: &mut rand::rngs::StdRng,
    material: &fiftymove::chess::material::Material,
) -> Option<shakmaty::Chess> {
    use rand::{seq::SliceRandom, Rng};
    use shakmaty::{Color, Position, Square};
    let e = fiftymove::scan::enumerate::Enumerator::new(material);
    let mut squares: Vec<Square> = Square::ALL.to_vec();
    squares.shuffle(rng);
    let board = e.board(&squares[..material.piece_count()]);
    let turn = if rng.gen_bool(0.5) {
        Color::White
    } else {
        Color::Black
    };
    let pos = e.position(&board, turn)?;
    // Pawns on the back rank are not positions.
    (pos.board().pawns() & shakmaty::Bitboard::BACKRANKS)
        .is_empty()
        .then_some(pos)
}
