//! The cache is keyed by the build: a result computed by other code is
//! never read.
//!
//! Two halves make the proof. The build id is the hash of the sources, so
//! one changed line of the solver or the sweep changes it (checked on a
//! copy of the sources, with the same function the build script runs). And
//! the binary reads no cached result of another build id: it removes them,
//! says so in one line, and computes again (checked by turning this build's
//! cache files into another build's, with wrong counts in them).
//! `scripts/check-cache-key.sh` does the whole thing for real, on demand: it
//! rebuilds with one changed line and runs `claims` on the old cache.

mod common;

use std::{
    fs,
    path::{Path, PathBuf},
};

use common::{fiftymove, run_ok};
use fiftymove::build_id::{of_sources, BUILD_ID, SOURCES};
use serde_json::Value;

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Copies what the build id hashes from `from` to `to`.
fn copy_sources(from: &Path, to: &Path) {
    fn copy(from: &Path, to: &Path) {
        if from.is_dir() {
            fs::create_dir_all(to).unwrap();
            for entry in fs::read_dir(from).unwrap() {
                let entry = entry.unwrap();
                copy(&entry.path(), &to.join(entry.file_name()));
            }
        } else {
            fs::copy(from, to).unwrap();
        }
    }
    for name in SOURCES {
        let target = to.join(name);
        fs::create_dir_all(target.parent().unwrap()).unwrap();
        copy(&from.join(name), &target);
    }
}

/// Changes the first line of `file` (under `root`) that holds `from`.
fn change_one_line(root: &Path, file: &str, from: &str, to: &str) {
    let path = root.join(file);
    let text = fs::read_to_string(&path).unwrap();
    let at = text
        .find(from)
        .unwrap_or_else(|| panic!("{file} has no {from:?}"));
    let changed = format!("{}{to}{}", &text[..at], &text[at + from.len()..]);
    fs::write(&path, changed).unwrap();
}

#[test]
fn the_build_id_is_the_hash_of_the_sources_and_one_line_changes_it() {
    // The binary and the library were built from these sources.
    assert_eq!(of_sources(manifest_dir()).unwrap(), BUILD_ID);
    let version = common::stdout_ok(fiftymove().arg("--version"));
    assert_eq!(
        version.trim(),
        format!("fiftymove {} (build {BUILD_ID})", env!("CARGO_PKG_VERSION"))
    );
    // A copy hashes the same (paths are relative to the root) ...
    let copy = tempfile::tempdir().unwrap();
    copy_sources(manifest_dir(), copy.path());
    assert_eq!(of_sources(copy.path()).unwrap(), BUILD_ID);
    // ... and one changed line of the solver's or the sweep's arithmetic
    // gives another id.
    let mut seen = vec![BUILD_ID.to_owned()];
    for (file, from, to) in [
        (
            "src/solve/retro.rs",
            "usize::from(MAX_LEVEL) + 1",
            "usize::from(MAX_LEVEL) + 2",
        ),
        (
            "src/scan/sweep/unstored.rs",
            "Ok(m) => (m + 1, code2 & ROUNDED != 0)",
            "Ok(m) => (m + 2, code2 & ROUNDED != 0)",
        ),
    ] {
        change_one_line(copy.path(), file, from, to);
        let id = of_sources(copy.path()).unwrap();
        assert!(!seen.contains(&id), "{file}: the id stayed {id}");
        seen.push(id);
    }
    // Test-only code is not hashed: a changed line of a test file, or of
    // an engine file's test module, leaves the id (and so users' cached
    // results) as it was.
    let engine_changed = seen.last().unwrap().clone();
    for (file, from, to) in [
        (
            "src/tables/reader/tests.rs",
            "pub(crate) fn tables_dir() -> PathBuf {",
            "pub(crate) fn tables_dir() -> PathBuf {\n    // edited",
        ),
        (
            "src/model/dtz.rs",
            "// A bare king can take only the rook",
            "// A lone king can take only the rook",
        ),
    ] {
        change_one_line(copy.path(), file, from, to);
        assert_eq!(
            of_sources(copy.path()).unwrap(),
            engine_changed,
            "{file}: test-only code changed the id"
        );
    }
    // A test file added under a `tests` folder of the sources does not
    // count either.
    let extra = copy.path().join("src/solve/tests");
    fs::create_dir_all(&extra).unwrap();
    fs::write(extra.join("added.rs"), "#[test]\nfn t() {}\n").unwrap();
    assert_eq!(of_sources(copy.path()).unwrap(), engine_changed);
}

/// The cache files under `dir`, by name.
fn cache_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = ["solve", "stats"]
        .iter()
        .filter_map(|sub| fs::read_dir(dir.join(sub)).ok())
        .flat_map(|entries| entries.map(|e| e.unwrap().path()))
        .collect();
    files.sort();
    files
}

/// Adds 1,000 to the wins with White to move of a cached statistics file.
fn falsify_wins(stats_file: &Path) {
    let mut entry: Value = serde_json::from_slice(&fs::read(stats_file).unwrap()).unwrap();
    let wins = &mut entry["stats"]["white"]["wdl"]["win"];
    *wins = Value::from(wins.as_u64().expect("a count of wins") + 1000);
    fs::write(stats_file, serde_json::to_vec(&entry).unwrap()).unwrap();
}

#[test]
fn results_cached_by_another_build_are_never_read_and_kept_until_cleaned() {
    let cache = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = run_ok(
            fiftymove()
                .env("FIFTYMOVE_CACHE_DIR", cache.path())
                .arg("--json")
                .args(args),
        );
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let claim = ["claims", "thompson-1986-kqkr"];
    let solve = ["solve", "--metric", "dtm", "KQvKR"];
    let (claim_fresh, _) = run(&claim);
    let (solve_fresh, _) = run(&solve);
    let ours = cache_files(cache.path());
    let stats: Vec<&PathBuf> = ours
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    assert_eq!(stats.len(), 1, "{ours:?}");
    assert!(ours
        .iter()
        .any(|p| p.extension().is_some_and(|e| e == "fms")));
    for p in &ours {
        let name = p.file_name().unwrap().to_string_lossy();
        assert!(name.contains(&format!(".b{BUILD_ID}.")), "{name}");
    }

    // Control: a falsified file of this build is read, and it shows. So a
    // stale file read by mistake would show in the comparison below.
    let original = fs::read(stats[0]).unwrap();
    falsify_wins(stats[0]);
    let (claim_falsified, _) = run(&claim);
    assert_ne!(claim_falsified, claim_fresh, "the cached document is read");
    fs::write(stats[0], &original).unwrap();

    // The same files, falsified, as another build would have left them.
    let other = if BUILD_ID == "0123456789abcdef" {
        "fedcba9876543210"
    } else {
        "0123456789abcdef"
    };
    let mut planted_bytes = 0;
    for p in &ours {
        let name = p.file_name().unwrap().to_string_lossy();
        let renamed = p.with_file_name(name.replace(BUILD_ID, other));
        if p.extension().is_some_and(|e| e == "json") {
            falsify_wins(p);
            let mut entry: Value = serde_json::from_slice(&fs::read(p).unwrap()).unwrap();
            entry["key"]["build"] = Value::from(other);
            fs::write(p, serde_json::to_vec(&entry).unwrap()).unwrap();
        }
        planted_bytes += fs::metadata(p).unwrap().len();
        fs::rename(p, &renamed).unwrap();
    }
    // And one file of the caches before build ids.
    let legacy = cache.path().join("solve/KQvKR.rule-none.dtm.v2.fms");
    fs::write(&legacy, b"an old solve").unwrap();
    planted_bytes += 12;
    let planted = cache_files(cache.path());
    assert_eq!(planted.len(), ours.len() + 1);

    // Not read: the outputs are the fresh ones. Not removed: every planted
    // file is still there, and one note says how much they hold and how to
    // remove them.
    let (claim_again, stderr) = run(&claim);
    assert_eq!(claim_again, claim_fresh);
    let notes: Vec<&str> = stderr.lines().filter(|l| l.starts_with("note:")).collect();
    assert_eq!(notes.len(), 1, "{stderr}");
    let size = fiftymove::human::human_bytes(planted_bytes);
    assert!(
        notes[0].contains(&format!("holds {size} of results of 2 other build(s)"))
            && notes[0].contains("fiftymove cache clean --other-builds"),
        "{stderr}"
    );
    let (solve_again, _) = run(&solve);
    assert_eq!(solve_again, solve_fresh);
    let now = cache_files(cache.path());
    for p in planted.iter().chain(&ours) {
        assert!(now.contains(p), "{} is gone: {now:?}", p.display());
    }
    // --quiet says nothing.
    let out = run_ok(
        fiftymove()
            .env("FIFTYMOVE_CACHE_DIR", cache.path())
            .args(["--quiet", "--json"])
            .args(claim),
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // `cache` lists them by build, and `cache clean --other-builds`
    // removes them and nothing of this build.
    let (listing, _) = run(&["cache"]);
    let rows: Vec<Value> = listing
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let held = |this: bool| -> u64 {
        rows.iter()
            .filter(|r| r["build"].is_string() && r["this_build"] == this)
            .map(|r| r["bytes"].as_u64().unwrap())
            .sum()
    };
    assert_eq!(held(false), planted_bytes, "{listing}");
    assert!(held(true) > 0, "{listing}");
    assert!(rows
        .iter()
        .any(|r| r["build"] == "v2" && r["material"] == "KQvKR"));
    let (cleaned, _) = run(&["cache", "clean", "--other-builds"]);
    let cleaned: Value = serde_json::from_str(cleaned.trim()).unwrap();
    assert_eq!(cleaned["files"], Value::from(planted.len() as u64));
    assert_eq!(cleaned["bytes"], Value::from(planted_bytes));
    assert_eq!(cache_files(cache.path()), ours);
    let (_, stderr) = run(&claim);
    assert!(
        !stderr.contains("note:"),
        "nothing left of other builds: {stderr}"
    );
}
