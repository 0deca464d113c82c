//! Replays the inputs that once made a fuzz target fail (kept in
//! `tests/fuzz_regressions/TARGET/`), through the very checks the targets
//! run (`fuzz/fuzz_targets/checks.rs`). `scripts/fuzz.sh` runs the targets
//! themselves; copy a new crashing input here once it is fixed.

mod common;

#[path = "../fuzz/fuzz_targets/checks.rs"]
#[allow(dead_code)]
mod checks;

use std::{fs, path::Path};

/// Every kept input of `target`, by file name.
fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz_regressions")
        .join(target);
    let mut out: Vec<(String, Vec<u8>)> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap(),
            )
        })
        .filter(|(name, _)| !name.starts_with('.') && name != "README.md")
        .collect();
    out.sort();
    out
}

#[test]
fn fen_inputs() {
    let all = inputs("fen");
    assert!(!all.is_empty());
    for (name, data) in all {
        eprintln!("fen/{name}");
        checks::check_fen(&data);
    }
}

#[test]
fn material_inputs() {
    let all = inputs("material");
    assert!(!all.is_empty());
    for (name, data) in all {
        eprintln!("material/{name}");
        checks::check_material(&data);
    }
}

#[test]
fn table_probe_inputs() {
    // As in the binary: panics inside table reading are silent errors.
    fiftymove::error::quiet_table_panics();
    for (name, data) in inputs("table_probe") {
        eprintln!("table_probe/{name}");
        checks::check_table_probe(&data);
    }
    // The seeds themselves: every real file, undamaged.
    for (i, (file, _)) in checks::FILES.iter().enumerate() {
        let mut data = vec![i as u8];
        data.extend(fs::read(common::tables_dir().join(file)).unwrap());
        checks::check_table_probe(&data);
    }
}

#[test]
fn sweep_open_inputs() {
    for (name, data) in inputs("sweep_open") {
        eprintln!("sweep_open/{name}");
        checks::check_sweep(&data);
    }
}
