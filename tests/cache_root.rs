//! One cache root the user controls: `--cache-dir DIR` (or
//! `$FIFTYMOVE_CACHE_DIR`) holds every cache (solves, statistics documents,
//! md5 verdicts; a service's answers are checked in `tests/remote.rs`), and
//! nothing is written outside it; `--no-cache` writes no result. Each
//! command runs with a fresh `HOME` and no cache variables, so a file
//! written to a default place would show there.

mod common;

use std::{
    fs,
    path::{Path, PathBuf},
    process::Command,
};
use tempfile::TempDir;

use common::run_ok;

/// Every file under `dir`, relative to it, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                out.push(path.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The real binary with the test tables, a fresh `HOME` and no cache
/// variables.
fn fiftymove_at_home(home: &Path) -> Command {
    let mut cmd = common::fiftymove();
    cmd.env_remove("FIFTYMOVE_CACHE_DIR")
        .env_remove("XDG_CACHE_HOME")
        .env("HOME", home)
        .env("TMPDIR", home.join("tmp"))
        .arg("--quiet");
    cmd
}

/// What each cache's work writes: a solve (and its closure), the claims'
/// statistics documents (a sweep and a solve), a probe from the solver,
/// and the md5 verdicts of every command that reads tables.
const COMMANDS: [&[&str]; 3] = [
    &["solve", "--metric", "dtm", "KQvKR"],
    &["claims", "thompson-1986-kqkr"],
    &[
        "probe",
        "--metric",
        "dtr",
        "8/8/8/3k4/8/8/3r4/K2Q4 w - - 0 1",
    ],
];

/// Runs every one of `COMMANDS`, with `flags` first, under a fresh home
/// (with its own temporary directory) and `--cache-dir` a fresh directory
/// not yet made; returns the home, the cache's parent (kept alive) and the
/// cache directory.
fn run_commands_in_fresh_dirs(flags: &[&str]) -> (TempDir, TempDir, PathBuf) {
    let home = tempfile::tempdir().unwrap();
    fs::create_dir(home.path().join("tmp")).unwrap();
    let root = tempfile::tempdir().unwrap();
    let cache = root.path().join("fresh");
    for args in COMMANDS {
        run_ok(
            fiftymove_at_home(home.path())
                .args(flags)
                .arg("--cache-dir")
                .arg(&cache)
                .args(args),
        );
    }
    (home, root, cache)
}

#[test]
fn every_cache_is_under_cache_dir_and_nothing_is_written_outside_it() {
    let (home, _root, cache) = run_commands_in_fresh_dirs(&[]);
    assert_eq!(files_under(home.path()), Vec::<PathBuf>::new());
    let held = files_under(&cache);
    let under = |prefix: &str, ext: &str| {
        held.iter()
            .filter(|p| p.starts_with(prefix) && p.extension().is_some_and(|e| e == ext))
            .count()
    };
    assert!(under("solve", "fms") >= 3, "{held:?}");
    assert!(under("stats", "json") >= 1, "{held:?}");
    assert!(
        held.contains(&PathBuf::from("verified-md5.tsv")),
        "{held:?}"
    );
    // Nothing else: no stray files beside the caches.
    for p in &held {
        let top = p.components().next().unwrap().as_os_str().to_string_lossy();
        assert!(
            ["solve", "stats", "verified-md5.tsv"].contains(&top.as_ref()),
            "{}",
            p.display()
        );
    }
    // `$FIFTYMOVE_CACHE_DIR` is the same root: a second run of a claim
    // reads its document from there (no sweep is started, so no step line).
    let out = run_ok(
        common::fiftymove()
            .env("FIFTYMOVE_CACHE_DIR", &cache)
            .env("HOME", home.path())
            .args(COMMANDS[1]),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("done:"), "computed again: {stderr}");
    assert_eq!(files_under(&cache), held);
}

#[test]
fn no_cache_writes_no_result() {
    let (home, _root, cache) = run_commands_in_fresh_dirs(&["--no-cache"]);
    // Only the md5 verdicts of the tables, which are not results.
    assert_eq!(files_under(&cache), vec![PathBuf::from("verified-md5.tsv")]);
    // The temporary solves of `probe --metric` are removed when done.
    assert_eq!(files_under(home.path()), Vec::<PathBuf>::new());
}
