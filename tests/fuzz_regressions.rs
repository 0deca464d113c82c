//! Replays the inputs that once made a fuzz target fail (kept in
//! `tests/fuzz_regressions/TARGET/`), through the very checks the targets
//! run (`fuzz/fuzz_targets/checks.rs`). `scripts/fuzz.sh` runs the targets
//! themselves; copy a new crashing input here once it is fixed.
//!
//! No table input has made a target fail yet, so the `table_probe` and
//! `sweep_open` folders hold damaged copies of real tables instead, named
//! `derived-*` and written by [`derived_inputs`] (regenerate them with
//! `cargo test --release --test fuzz_regressions -- --ignored
//! write_derived_inputs`). Every folder must hold at least one input: a
//! replay over an empty folder would pass without checking anything.

mod common;

#[path = "../fuzz/fuzz_targets/checks.rs"]
#[allow(dead_code)]
mod checks;

use std::{
    fs,
    path::{Path, PathBuf},
};

/// The folder of `target`'s kept inputs.
fn folder(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz_regressions")
        .join(target)
}

/// Every kept input of `target`, by file name; panics if there is none.
fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = folder(target);
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
    assert!(
        !out.is_empty(),
        "no inputs in {}: the replay would check nothing",
        dir.display()
    );
    out
}

/// The `derived-*` inputs of the table targets, as (target, file name,
/// bytes): one selector byte (the index of the file in `checks::FILES`)
/// and a damaged copy of that real table, small enough to keep in the
/// repository. Each damage is one a download or a disk can do, and each
/// reaches a different check of the readers: the size and magic checks,
/// the header fields, the block index, the compressed data.
fn derived_inputs() -> Vec<(&'static str, String, Vec<u8>)> {
    let real = |file: &str| fs::read(common::tables_dir().join(file)).unwrap();
    let selector = |file: &str| {
        let i = checks::FILES
            .iter()
            .position(|(f, _)| *f == file)
            .unwrap_or_else(|| panic!("{file} is not in checks::FILES"));
        u8::try_from(i).unwrap()
    };
    type Damage = fn(&mut Vec<u8>);
    // (file standing for, damage name, source file, damage)
    let damages: [(&str, &str, &str, Damage); 10] = [
        ("KQvK.rtbw", "empty", "KQvK.rtbw", |b| b.clear()),
        ("KQvK.rtbw", "magic-only", "KQvK.rtbw", |b| b.truncate(4)),
        ("KQvK.rtbw", "wrong-magic", "KQvK.rtbw", |b| b[0] ^= 0xff),
        ("KQvK.rtbw", "zeroed-header", "KQvK.rtbw", |b| {
            b[4..64].fill(0)
        }),
        ("KQvK.rtbw", "cut-by-64", "KQvK.rtbw", |b| {
            b.truncate(b.len() - 64)
        }),
        ("KQvK.rtbw", "flipped-last-byte", "KQvK.rtbw", |b| {
            *b.last_mut().unwrap() ^= 0xff
        }),
        ("KRvKR.rtbz", "flipped-middle-byte", "KRvKR.rtbz", |b| {
            let mid = b.len() / 2;
            b[mid] ^= 0x5a
        }),
        ("KRvKR.rtbz", "ones-in-header", "KRvKR.rtbz", |b| {
            b[4..256].fill(0xff)
        }),
        ("KPvK.rtbw", "cut-to-1024", "KPvK.rtbw", |b| {
            b.truncate(1024)
        }),
        // Another table's file under this name (both 80-byte files).
        ("KNvK.rtbz", "is-KNvK.rtbw", "KNvK.rtbw", |_| {}),
    ];
    let mut out = Vec::new();
    for target in ["table_probe", "sweep_open"] {
        for (file, what, source, damage) in damages {
            let mut bytes = real(source);
            damage(&mut bytes);
            let mut input = vec![selector(file)];
            input.extend(bytes);
            out.push((target, format!("derived-{file}-{what}"), input));
        }
    }
    out
}

/// Writes the `derived-*` inputs (run by hand, see the module comment).
#[test]
#[ignore = "writes tests/fuzz_regressions/{table_probe,sweep_open}/derived-*"]
fn write_derived_inputs() {
    for (target, name, bytes) in derived_inputs() {
        fs::write(folder(target).join(name), bytes).unwrap();
    }
}

/// The kept `derived-*` inputs are exactly what the generator writes from
/// the real tables: none is missing, stale or made by hand.
#[test]
fn derived_inputs_are_the_generators() {
    let expected = derived_inputs();
    assert!(!expected.is_empty());
    for target in ["table_probe", "sweep_open"] {
        let kept: Vec<(String, Vec<u8>)> = inputs(target)
            .into_iter()
            .filter(|(name, _)| name.starts_with("derived-"))
            .collect();
        let made: Vec<(String, Vec<u8>)> = expected
            .iter()
            .filter(|(t, _, _)| *t == target)
            .map(|(_, name, bytes)| (name.clone(), bytes.clone()))
            .collect();
        let names = |v: &[(String, Vec<u8>)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        let mut made_names = names(&made);
        made_names.sort();
        assert_eq!(names(&kept), made_names, "{target}: derived inputs");
        for (name, bytes) in &kept {
            let (_, want) = made.iter().find(|(n, _)| n == name).unwrap();
            assert!(
                bytes == want,
                "{target}/{name} differs from the generator's"
            );
        }
    }
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
    let all = inputs("table_probe");
    assert!(!all.is_empty());
    for (name, data) in all {
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
    let all = inputs("sweep_open");
    assert!(!all.is_empty());
    for (name, data) in all {
        eprintln!("sweep_open/{name}");
        checks::check_sweep(&data);
    }
    // The seeds themselves: every real file, undamaged.
    for (i, (file, _)) in checks::FILES.iter().enumerate() {
        let mut data = vec![i as u8];
        data.extend(fs::read(common::tables_dir().join(file)).unwrap());
        checks::check_sweep(&data);
    }
}
