//! The solver cache of one `cargo test` run, shared by its test binaries.
//!
//! Three binaries solve every 3- and 4-piece material under the 50-move
//! rule and without a rule: the library's solver tests, `solve_engine` and
//! `solve_positions`, about a minute of CPU each time. Cargo runs the test
//! binaries one after the other, all children of one cargo process, so a
//! directory named after that process lets a later binary read what an
//! earlier one solved. Why this cannot hand a test a stale result:
//! - the directory is new for every `cargo test`: it is named after the
//!   cargo process's id *and start time*, so a later process that reuses
//!   the id gets another one;
//! - cache files are keyed by the build id (the hash of the sources), so a
//!   binary only ever reads results of the code it was built from;
//! - a test binary not started by cargo (run by hand) gets a directory of
//!   its own process.
//!
//! The directories of runs whose process has ended are removed when the next
//! run starts. Tests that check the cache itself, or that need a solve from
//! an empty cache, keep a temporary directory of their own.
//!
//! This file is compiled into the integration tests (`tests/common`) and
//! into the library's own tests (`src/solve/tests/`) by path, so that both
//! name the same directory.

use std::{
    fs,
    path::{Path, PathBuf},
    sync::OnceLock,
};

/// The solver cache directory of this `cargo test` run (see the module
/// documentation); created on first use.
pub fn run_solve_cache() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let parent = std::os::unix::process::parent_id();
        let started_by_cargo = fs::read_to_string(format!("/proc/{parent}/comm"))
            .is_ok_and(|name| name.trim_end() == "cargo");
        let owner = if started_by_cargo {
            parent
        } else {
            std::process::id()
        };
        process_dir(&std::env::temp_dir(), "fiftymove-test-run-", owner)
    })
}

/// A new directory `PREFIX<pid>-<start time>` in `scratch` for the live
/// process `pid`, after removing those of `prefix` whose process has ended.
/// The start time tells a process from a later one with the same id, so
/// no directory is ever handed to a second process.
pub fn process_dir(scratch: &Path, prefix: &str, pid: u32) -> PathBuf {
    remove_ended(scratch, prefix);
    let key = process_key(pid).expect("the process's start time is in /proc");
    let dir = scratch.join(format!("{prefix}{key}"));
    fs::create_dir_all(&dir).expect("the scratch space is writable");
    dir
}

/// `PID-STARTTIME` of a live process, `None` for an ended one. The start
/// time (field 22 of `/proc/PID/stat`, in clock ticks since boot) tells a
/// process from a later one with the same id.
fn process_key(pid: u32) -> Option<String> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses; the
    // fields after its closing parenthesis start at field 3.
    let after_name = stat.get(stat.rfind(')')? + 2..)?;
    let start_time = after_name.split(' ').nth(22 - 3)?;
    Some(format!("{pid}-{start_time}"))
}

/// Removes the directories of `prefix` in `scratch` whose process has ended.
fn remove_ended(scratch: &Path, prefix: &str) {
    let Ok(entries) = fs::read_dir(scratch) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(key) = name.strip_prefix(prefix) else {
            continue;
        };
        let live = key
            .split('-')
            .next()
            .and_then(|pid| pid.parse().ok())
            .and_then(process_key);
        if live.as_deref() != Some(key) {
            fs::remove_dir_all(entry.path()).ok();
        }
    }
}
