//! Helpers for the hostile-input tests (`hostile_input.rs`,
//! `damaged_tables.rs`, `outputs.rs`): scratch table directories made of
//! links to the real tables with damaged copies among them, and checks of
//! the one-line `error:` contract.
#![allow(dead_code)]

use std::{
    fs,
    io::Write,
    path::{Path, PathBuf},
    process::{Command, Output},
};

/// The exit codes of the contract (docs/design.md section 4).
pub const OK: i32 = 0;
pub const OTHER: i32 = 1;
pub const BAD_INPUT: i32 = 2;
pub const TABLES: i32 = 3;

/// The real tables, read-only: never write below this directory.
pub fn real_tables() -> PathBuf {
    super::common::tables_dir()
}

/// A scratch table directory: a symlink to every real table file, until a
/// test replaces one with a (damaged) copy of its own or removes it.
pub struct ScratchTables {
    dir: tempfile::TempDir,
    cache: tempfile::TempDir,
}

impl ScratchTables {
    /// Links to every real table file.
    pub fn new() -> ScratchTables {
        Self::with_filter(|_| true)
    }

    /// Links to the real table files whose names pass `keep`.
    pub fn with_filter(keep: impl Fn(&str) -> bool) -> ScratchTables {
        let dir = tempfile::tempdir().expect("temp dir");
        let real = real_tables();
        for entry in fs::read_dir(&real).expect("real tables") {
            let entry = entry.expect("entry");
            let name = entry.file_name().to_string_lossy().into_owned();
            if keep(&name) {
                std::os::unix::fs::symlink(entry.path(), dir.path().join(&name)).expect("symlink");
            }
        }
        ScratchTables {
            dir,
            cache: tempfile::tempdir().expect("cache dir"),
        }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The path of `name` inside the directory.
    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The bytes of the real file `name`.
    pub fn real_bytes(name: &str) -> Vec<u8> {
        fs::read(real_tables().join(name)).expect("real table")
    }

    /// Removes `name` (the link, never the real file).
    pub fn remove(&self, name: &str) {
        fs::remove_file(self.file(name)).expect("remove link");
    }

    /// Replaces `name` with a regular file holding `bytes`. The link is
    /// removed first and the file created with `create_new`, so that the
    /// write can never go through a link into the real tables.
    pub fn put(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.file(name);
        let _ = fs::remove_file(&path);
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .expect("create damaged copy");
        file.write_all(bytes).expect("write damaged copy");
        path
    }

    /// Replaces `name` with a copy of the real file changed by `damage`.
    pub fn damage(&self, name: &str, damage: impl FnOnce(&mut Vec<u8>)) -> PathBuf {
        let mut bytes = Self::real_bytes(name);
        damage(&mut bytes);
        self.put(name, &bytes)
    }

    /// The binary, pointed at this directory only, with an md5 cache of its
    /// own (so tests never touch the user's cache).
    pub fn fiftymove(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_fiftymove"));
        cmd.arg("--tables")
            .arg(self.path())
            .env_remove("SYZYGY_PATH")
            .env("FIFTYMOVE_CACHE_DIR", self.cache.path());
        cmd
    }

    /// The md5 cache directory the binary uses for this scratch directory.
    pub fn cache_dir(&self) -> &Path {
        self.cache.path()
    }

    /// The library's inventory of this directory (sizes checked only).
    pub fn inventory(&self) -> fiftymove::tables::Inventory {
        fiftymove::tables::Inventory::scan(&[self.path().to_owned()]).expect("scan scratch dir")
    }

    /// The probe engine over this directory, without `require`'s checks:
    /// what a library user gets who skips them.
    pub fn prober_unchecked(&self) -> fiftymove::probe::Prober {
        fiftymove::probe::Prober::new(self.inventory().open().expect("open"))
    }
}

/// The binary, pointed at the real tables, with a throw-away md5 cache.
pub fn fiftymove_real() -> (Command, tempfile::TempDir) {
    let cache = tempfile::tempdir().expect("cache dir");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fiftymove"));
    cmd.arg("--tables")
        .arg(real_tables())
        .env_remove("SYZYGY_PATH")
        .env("FIFTYMOVE_CACHE_DIR", cache.path());
    (cmd, cache)
}

/// Runs `cmd` and checks the error contract: exit code `code`, nothing on
/// stdout, exactly one line on stderr, starting with `error: ` and holding
/// every one of `needles`. Returns that line.
#[track_caller]
pub fn expect_error(cmd: &mut Command, code: i32, needles: &[&str]) -> String {
    let out = cmd.output().expect("binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.code(),
        Some(code),
        "{cmd:?}: expected exit code {code}, got {:?}; stderr: {stderr}",
        out.status.code()
    );
    assert_one_error_line(&stderr, &format!("{cmd:?}"));
    for needle in needles {
        assert!(
            stderr.contains(needle),
            "{cmd:?}: the error should mention {needle:?}: {stderr}"
        );
    }
    // `tables` prints its report before failing; every other command
    // prints nothing when it fails (never a number it could not vouch for).
    let is_tables_cmd = cmd.get_args().any(|a| a == "tables");
    assert!(
        out.stdout.is_empty() || is_tables_cmd,
        "{cmd:?}: nothing on stdout expected for a failed run: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    stderr.trim_end().to_owned()
}

/// stderr is exactly one line, `error: ...`, and no panic report.
#[track_caller]
pub fn assert_one_error_line(stderr: &str, what: &str) {
    assert!(
        stderr.starts_with("error: ") && stderr.ends_with('\n') && stderr.lines().count() == 1,
        "{what}: expected one `error:` line on stderr, got: {stderr:?}"
    );
    assert!(
        !stderr.contains("panicked") && !stderr.contains("internal error"),
        "{what}: a panic: {stderr}"
    );
}

/// Runs `cmd`, which must succeed quietly on stderr; returns stdout.
#[track_caller]
pub fn expect_ok(cmd: &mut Command) -> String {
    let out: Output = cmd.output().expect("binary runs");
    assert!(
        out.status.success(),
        "{cmd:?} failed with {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}
