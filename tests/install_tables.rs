//! Integration tests for `scripts/install-tables.sh`.
//!
//! The script is run with `bash`. `--from` points at the real tables in the
//! shared read-only directory, and `--dest` at a temporary directory, so the
//! repository's own `data/syzygy/` is never touched. The shared tables are
//! found via the `FIFTYMOVE_SHARED_TABLES` environment variable, or else at
//! `../shared/syzygy` relative to the crate root.
//!
//! Downloads are tested against a tiny HTTP server that runs inside the test
//! (see `serve`), and against a closed port on loopback for the
//! "no network" case. No test uses the real internet.
//!
//! A name installs its closure: KQvKR brings KQvK and KRvK with it. The
//! closures the script computes (in bash) are checked against those of the
//! real `fiftymove` binary, and the size line against data/syzygy-bytes.tsv
//! as read by the test. The refusal for lack of disk space is tested through
//! the script's documented test hook FIFTYMOVE_FREE_BYTES, which stands in
//! for df's reading (filling a real disk, or mounting a tiny tmpfs, would
//! need root).
#![cfg(unix)]

use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::thread;
use std::time::{Duration, Instant};

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn script() -> PathBuf {
    repo_root().join("scripts").join("install-tables.sh")
}

/// The directory that holds the real Syzygy tables (never modified).
fn shared_tables() -> PathBuf {
    let dir = match std::env::var_os("FIFTYMOVE_SHARED_TABLES") {
        Some(dir) => PathBuf::from(dir),
        None => repo_root().join("..").join("shared").join("syzygy"),
    };
    assert!(
        dir.join("KQvKR.rtbw").is_file() && dir.join("KRvK.rtbz").is_file(),
        "the real Syzygy tables were not found in {} (set FIFTYMOVE_SHARED_TABLES \
         to the directory that holds KQvKR.rtbw etc.)",
        dir.display()
    );
    dir
}

/// Run the installer with `args`, with the download-related environment
/// variables cleared and then set from `env`.
fn run_with_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new("bash");
    cmd.arg(script())
        .args(args)
        .env_remove("FIFTYMOVE_MIRRORS")
        .env_remove("FIFTYMOVE_DOWNLOADER")
        .env_remove("FIFTYMOVE_FREE_BYTES")
        .current_dir(repo_root());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("failed to run bash")
}

fn run(args: &[&str]) -> Output {
    run_with_env(args, &[])
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn code(out: &Output) -> i32 {
    out.status.code().expect("script killed by a signal")
}

fn describe(out: &Output) -> String {
    format!(
        "exit status {:?}\n--- stdout ---\n{}--- stderr ---\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        stderr(out)
    )
}

fn s(p: &Path) -> &str {
    p.to_str().expect("non-UTF-8 path")
}

/// The official md5 sums shipped in the repository, by file name.
fn official_md5() -> HashMap<String, String> {
    let text = fs::read_to_string(repo_root().join("data").join("syzygy-md5.txt")).unwrap();
    text.lines()
        .filter_map(|line| {
            let mut it = line.split_whitespace();
            let sum = it.next()?;
            let name = it.next()?.trim_start_matches('*');
            Some((name.to_string(), sum.to_string()))
        })
        .collect()
}

/// md5 of a file, computed by the `md5sum` tool (independently of the script).
fn md5sum(path: &Path) -> String {
    let out = Command::new("md5sum")
        .arg(path)
        .output()
        .expect("failed to run md5sum");
    assert!(out.status.success(), "md5sum {} failed", path.display());
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

/// Names of the entries of a directory, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// What `KQvKR KRvK` installs: KQvKR's closure (a capture of the rook
/// leaves KQvK, of the queen KRvK), which includes KRvK.
const KQVKR_CLOSURE: &[&str] = &["KQvK", "KQvKR", "KRvK"];

fn files_of(tables: &[&str]) -> Vec<String> {
    let mut files: Vec<String> = tables
        .iter()
        .flat_map(|t| [format!("{t}.rtbw"), format!("{t}.rtbz")])
        .collect();
    files.sort();
    files
}

/// Assert that `dir` holds exactly the files of `tables` (no leftover
/// temporary files), and that each has the official md5.
fn assert_installed(dir: &Path, tables: &[&str]) {
    let md5 = official_md5();
    assert_eq!(
        entries(dir),
        files_of(tables),
        "contents of {}",
        dir.display()
    );
    for file in files_of(tables) {
        assert_eq!(
            md5sum(&dir.join(&file)),
            md5[&file],
            "md5 of installed {file} differs from data/syzygy-md5.txt"
        );
    }
}

/// The `error:` lines of the output.
fn error_lines(out: &Output) -> Vec<String> {
    stderr(out)
        .lines()
        .filter(|l| l.starts_with("error:"))
        .map(str::to_string)
        .collect()
}

#[test]
fn installs_from_local_dir_as_symlinks_with_official_md5() {
    let shared = shared_tables();
    let tmp = tempfile::tempdir().unwrap();
    let dest = tmp.path().join("syzygy"); // does not exist yet: must be created
    let out = run(&["--from", s(&shared), "--dest", s(&dest), "KQvKR", "KRvK"]);
    assert_eq!(code(&out), 0, "{}", describe(&out));
    assert_installed(&dest, KQVKR_CLOSURE);
    for file in files_of(KQVKR_CLOSURE) {
        let path = dest.join(&file);
        assert!(
            fs::symlink_metadata(&path)
                .unwrap()
                .file_type()
                .is_symlink(),
            "{file} should be a symlink by default"
        );
        assert_eq!(
            fs::read_link(&path).unwrap(),
            shared.canonicalize().unwrap().join(&file)
        );
    }
    assert!(stderr(&out).contains("6 installed"), "{}", describe(&out));
}

#[test]
fn copy_mode_installs_regular_files() {
    let shared = shared_tables();
    let tmp = tempfile::tempdir().unwrap();
    let dest = tmp.path();
    let out = run(&[
        "--from",
        s(&shared),
        "--copy",
        "--dest",
        s(dest),
        "KQvKR",
        "KRvK",
    ]);
    assert_eq!(code(&out), 0, "{}", describe(&out));
    assert_installed(dest, KQVKR_CLOSURE);
    for file in files_of(KQVKR_CLOSURE) {
        let meta = fs::symlink_metadata(dest.join(&file)).unwrap();
        assert!(
            meta.file_type().is_file(),
            "{file} should be a regular file with --copy"
        );
        assert_ne!(meta.mode() & 0o444, 0, "{file} should be readable");
    }
}

/// (inode, mtime) of each entry of `dir`, not following symlinks.
fn snapshot(dir: &Path) -> Vec<(String, u64, i64, i64)> {
    entries(dir)
        .into_iter()
        .map(|name| {
            let m = fs::symlink_metadata(dir.join(&name)).unwrap();
            (name, m.ino(), m.mtime(), m.mtime_nsec())
        })
        .collect()
}

#[test]
fn second_run_changes_nothing() {
    let shared = shared_tables();
    for copy in [false, true] {
        let tmp = tempfile::tempdir().unwrap();
        let dest = tmp.path();
        let mut args = vec!["--from", s(&shared), "--dest", s(dest)];
        if copy {
            args.push("--copy");
        }
        args.extend(["KQvKR", "KRvK"]);

        let first = run(&args);
        assert_eq!(code(&first), 0, "{}", describe(&first));
        let before = snapshot(dest);
        // Make a changed mtime visible even on coarse-grained filesystems.
        thread::sleep(Duration::from_millis(20));

        let second = run(&args);
        assert_eq!(code(&second), 0, "{}", describe(&second));
        assert_eq!(
            snapshot(dest),
            before,
            "second run (copy={copy}) modified files"
        );
        let err = stderr(&second);
        assert!(err.contains("0 installed"), "{}", describe(&second));
        assert!(err.contains("6 already present"), "{}", describe(&second));
        assert!(err.contains("nothing to do"), "{}", describe(&second));
        assert_installed(dest, KQVKR_CLOSURE);
    }
}

#[test]
fn corrupt_source_is_rejected() {
    let shared = shared_tables();
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    fs::create_dir(&src).unwrap();
    // KQvKR.rtbw: truncated copy (wrong size). KRvK.rtbw: same size, but one
    // byte changed (md5 mismatch). The .rtbz files are good copies.
    let good = fs::read(shared.join("KQvKR.rtbw")).unwrap();
    fs::write(src.join("KQvKR.rtbw"), &good[..good.len() / 2]).unwrap();
    let mut flipped = fs::read(shared.join("KRvK.rtbw")).unwrap();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x5a;
    fs::write(src.join("KRvK.rtbw"), &flipped).unwrap();
    for file in ["KQvKR.rtbz", "KRvK.rtbz"] {
        fs::copy(shared.join(file), src.join(file)).unwrap();
    }

    for copy in [false, true] {
        let dest = tmp
            .path()
            .join(if copy { "dest-copy" } else { "dest-link" });
        // --no-closure: the source holds these two tables only.
        let mut args = vec!["--from", s(&src), "--dest", s(&dest), "--no-closure"];
        if copy {
            args.push("--copy");
        }
        args.extend(["KQvKR", "KRvK"]);
        let out = run(&args);
        assert_eq!(code(&out), 3, "copy={copy}: {}", describe(&out));
        let errors = error_lines(&out);
        assert!(
            errors
                .iter()
                .any(|l| l.contains("KQvKR.rtbw") && l.contains("size")),
            "copy={copy}: no error line naming the truncated KQvKR.rtbw\n{}",
            describe(&out)
        );
        assert!(
            errors
                .iter()
                .any(|l| l.contains("KRvK.rtbw") && l.contains("md5")),
            "copy={copy}: no error line naming the altered KRvK.rtbw\n{}",
            describe(&out)
        );
        assert!(stderr(&out).contains("2 failed"), "{}", describe(&out));
        // Only the good files were installed, and no temporary files are left.
        assert_eq!(
            entries(&dest),
            vec!["KQvKR.rtbz", "KRvK.rtbz"],
            "copy={copy}"
        );
    }
}

#[test]
fn wrong_file_already_present_is_replaced() {
    let shared = shared_tables();
    let tmp = tempfile::tempdir().unwrap();
    let dest = tmp.path();
    let good = fs::read(shared.join("KRvK.rtbz")).unwrap();
    fs::write(dest.join("KRvK.rtbz"), &good[..100]).unwrap();
    std::os::unix::fs::symlink("/nonexistent/KRvK.rtbw", dest.join("KRvK.rtbw")).unwrap();

    let out = run(&["--from", s(&shared), "--copy", "--dest", s(dest), "KRvK"]);
    assert_eq!(code(&out), 0, "{}", describe(&out));
    let err = stderr(&out);
    assert!(
        err.lines()
            .any(|l| l.starts_with("warning:") && l.contains("KRvK.rtbz") && l.contains("size")),
        "{}",
        describe(&out)
    );
    assert!(
        err.lines()
            .any(|l| l.starts_with("warning:") && l.contains("KRvK.rtbw") && l.contains("broken")),
        "{}",
        describe(&out)
    );
    assert_installed(dest, &["KRvK"]);
}

#[test]
fn bad_names_and_options_are_usage_errors() {
    let shared = shared_tables();
    let tmp = tempfile::tempdir().unwrap();
    let dest = tmp.path().join("never-created");
    let cases: &[(&[&str], &str)] = &[
        // Well-formed but unknown: sides swapped, with a suggestion.
        (&["KRvKQ"], "KQvKR"),
        // Well-formed but unknown: too many pieces.
        (&["KQQQQQQvK"], "unknown table"),
        // Malformed names.
        (&["KQvKZ"], "invalid table name"),
        (&["KQvK", "hello"], "invalid table name"),
        // Bad options.
        (&["--bogus"], "unknown option"),
        (&["--copy", "KQvK"], "--from"),
        (&["--dest"], "needs an argument"),
    ];
    for (args, expected) in cases {
        let mut all = vec!["--from", s(&shared), "--dest", s(&dest)];
        if args.contains(&"--copy") || args.contains(&"--dest") {
            all = vec![]; // these cases test option handling on their own
        }
        all.extend_from_slice(args);
        let out = run(&all);
        assert_eq!(code(&out), 2, "{args:?}: {}", describe(&out));
        let errors = error_lines(&out);
        assert_eq!(errors.len(), 1, "{args:?}: {}", describe(&out));
        assert!(errors[0].contains(expected), "{args:?}: {}", describe(&out));
    }
    let out = run(&["--from", s(&shared), "--dest", s(&dest), "KRvKQ"]);
    assert!(
        error_lines(&out)[0].contains("unknown table 'KRvKQ'"),
        "{}",
        describe(&out)
    );
    assert!(!dest.exists(), "nothing must be installed on a usage error");

    let out = run(&["--from", s(&tmp.path().join("missing")), "KQvK"]);
    assert_eq!(code(&out), 2, "{}", describe(&out));

    let list = tmp.path().join("list.txt");
    fs::write(&list, "KQvK\nKQvKX # typo\n").unwrap();
    let out = run(&["--from", s(&shared), "--dest", s(&dest), "--list", s(&list)]);
    assert_eq!(code(&out), 2, "{}", describe(&out));
    assert!(
        error_lines(&out)[0].contains("list.txt:2"),
        "{}",
        describe(&out)
    );
}

#[test]
fn help_is_printed() {
    let out = run(&["--help"]);
    assert_eq!(code(&out), 0, "{}", describe(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    for word in [
        "Usage:",
        "--from",
        "--copy",
        "--dest",
        "--list",
        "--quiet",
        "Exit status",
    ] {
        assert!(text.contains(word), "--help lacks {word}: {text}");
    }
}

#[test]
fn list_file_with_comments_is_read() {
    let shared = shared_tables();
    let tmp = tempfile::tempdir().unwrap();
    let list = tmp.path().join("tables.txt");
    fs::write(
        &list,
        "# header\n\nKQvK   # trailing comment\n  KRvK\nKQvK\n",
    )
    .unwrap();
    let dest = tmp.path().join("dest");
    let out = run(&[
        "--from",
        s(&shared),
        "--dest",
        s(&dest),
        "--list",
        s(&list),
        "--quiet",
    ]);
    assert_eq!(code(&out), 0, "{}", describe(&out));
    assert_installed(&dest, &["KQvK", "KRvK"]);
    // --quiet: only the summary line remains.
    assert_eq!(stderr(&out).lines().count(), 1, "{}", describe(&out));
}

/// The project's own list (data/tables.txt) must be installable completely
/// from the shared tables.
#[test]
fn default_list_installs_from_shared_tables() {
    let shared = shared_tables();
    let tmp = tempfile::tempdir().unwrap();
    let out = run(&["--from", s(&shared), "--dest", s(tmp.path()), "--quiet"]);
    assert_eq!(code(&out), 0, "{}", describe(&out));
    let text = fs::read_to_string(repo_root().join("data").join("tables.txt")).unwrap();
    let tables: Vec<&str> = text
        .lines()
        .map(|l| l.split('#').next().unwrap().trim())
        .filter(|l| !l.is_empty())
        .collect();
    assert!(
        tables.len() >= 50,
        "data/tables.txt lists only {} tables",
        tables.len()
    );
    assert_eq!(entries(tmp.path()), files_of(&tables));
}

#[test]
fn no_network_fails_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let dest = tmp.path();
    let start = Instant::now();
    // Port 9 (discard) on loopback is closed: connections are refused.
    let out = run_with_env(
        &["--dest", s(dest), "KQvKR", "KRvK"],
        &[("FIFTYMOVE_MIRRORS", "http://127.0.0.1:9/")],
    );
    let elapsed = start.elapsed();
    assert_eq!(code(&out), 3, "{}", describe(&out));
    let errors = error_lines(&out);
    assert_eq!(
        errors.len(),
        1,
        "expected one error line\n{}",
        describe(&out)
    );
    assert!(
        errors[0].contains("no mirror reachable"),
        "{}",
        describe(&out)
    );
    assert!(
        errors[0].contains("--from"),
        "should suggest --from\n{}",
        describe(&out)
    );
    assert!(elapsed < Duration::from_secs(30), "took {elapsed:?}");
    assert!(
        entries(dest).is_empty(),
        "left files behind: {:?}",
        entries(dest)
    );

    // Same with --quiet: the error line is all there is.
    let out = run_with_env(
        &["--quiet", "--dest", s(dest), "KQvKR"],
        &[("FIFTYMOVE_MIRRORS", "http://127.0.0.1:9/")],
    );
    assert_eq!(code(&out), 3, "{}", describe(&out));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{}", describe(&out));
    assert!(err.starts_with("error: "), "{}", describe(&out));
}

/// How the test HTTP server answers a request for an existing table file.
#[derive(Clone, Copy)]
enum Serve {
    /// The real file.
    Good,
    /// The first 100 bytes only, as if the mirror had a corrupt copy.
    Truncated,
}

/// Start an HTTP server on loopback that maps `/3-4-5/NAME` to the file
/// NAME in `dir` (404 if missing). Returns its base URL. The server thread
/// runs until the test process ends.
fn serve(dir: PathBuf, mode: Serve) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let dir = dir.clone();
            thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request = String::new();
                if reader.read_line(&mut request).is_err() {
                    return;
                }
                // Skip the headers.
                let mut line = String::new();
                while reader.read_line(&mut line).map(|n| n > 0).unwrap_or(false) {
                    if line == "\r\n" || line == "\n" {
                        break;
                    }
                    line.clear();
                }
                let path = request.split_whitespace().nth(1).unwrap_or("");
                let body = path
                    .strip_prefix("/3-4-5/")
                    .filter(|name| !name.contains('/') && !name.starts_with('.'))
                    .and_then(|name| fs::read(dir.join(name)).ok());
                let response = match body {
                    Some(mut body) => {
                        if let Serve::Truncated = mode {
                            body.truncate(100);
                        }
                        let mut r = format!(
                            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                            body.len()
                        )
                        .into_bytes();
                        r.extend_from_slice(&body);
                        r
                    }
                    None => {
                        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                            .to_vec()
                    }
                };
                let _ = stream.write_all(&response);
            });
        }
    });
    url
}

#[test]
fn downloads_from_mirrors_verify_and_fall_back() {
    let shared = shared_tables();
    let bad = serve(shared.clone(), Serve::Truncated);
    let good = serve(shared.clone(), Serve::Good);
    // First a closed port, then a mirror with corrupt copies, then a good one.
    let mirrors = format!("http://127.0.0.1:9/ {bad} {good}");
    let mut downloaders = vec!["curl"];
    if Command::new("wget").arg("--version").output().is_ok() {
        downloaders.push("wget");
    }
    for downloader in downloaders {
        let tmp = tempfile::tempdir().unwrap();
        let dest = tmp.path();
        let env = [
            ("FIFTYMOVE_MIRRORS", mirrors.as_str()),
            ("FIFTYMOVE_DOWNLOADER", downloader),
        ];
        let out = run_with_env(&["--dest", s(dest), "KQvKR", "KRvK"], &env);
        assert_eq!(code(&out), 0, "{downloader}: {}", describe(&out));
        assert_installed(dest, KQVKR_CLOSURE);
        assert!(
            stderr(&out)
                .lines()
                .any(|l| l.starts_with("warning:") && l.contains("bad")),
            "{downloader}: the corrupt mirror copy should be reported\n{}",
            describe(&out)
        );
        for file in files_of(KQVKR_CLOSURE) {
            let meta = fs::symlink_metadata(dest.join(&file)).unwrap();
            assert!(meta.file_type().is_file());
            assert_ne!(meta.mode() & 0o444, 0, "{file} should be readable");
        }

        // A table that no mirror has: reported, exit 3, nothing left behind.
        let empty = tempfile::tempdir().unwrap();
        let nowhere = serve(empty.path().to_path_buf(), Serve::Good);
        let out = run_with_env(
            &["--dest", s(dest), "KBvK"],
            &[
                ("FIFTYMOVE_MIRRORS", nowhere.as_str()),
                ("FIFTYMOVE_DOWNLOADER", downloader),
            ],
        );
        assert_eq!(code(&out), 3, "{downloader}: {}", describe(&out));
        assert!(
            error_lines(&out).iter().any(|l| l.contains("KBvK.rtbw")),
            "{downloader}: {}",
            describe(&out)
        );
        assert_installed(dest, KQVKR_CLOSURE);
    }
}

/// The official sizes in data/syzygy-bytes.tsv, read by the test itself.
fn official_bytes() -> HashMap<String, u64> {
    let text = fs::read_to_string(repo_root().join("data").join("syzygy-bytes.tsv")).unwrap();
    text.lines()
        .filter_map(|line| {
            let (bytes, name) = line.split_once('\t')?;
            Some((name.trim().to_string(), bytes.trim().parse().ok()?))
        })
        .collect()
}

/// The closure of `material` as the real `fiftymove` binary computes it
/// (`tables MATERIAL --json`), sorted.
fn binary_closure(material: &str) -> Vec<String> {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_fiftymove"))
        .arg("--tables")
        .arg(tmp.path())
        .args(["--json", "tables", material])
        .env_remove("SYZYGY_PATH")
        .env("FIFTYMOVE_CACHE_DIR", tmp.path())
        .output()
        .expect("fiftymove runs");
    let line = String::from_utf8(out.stdout).unwrap();
    let doc: serde_json::Value = serde_json::from_str(line.trim())
        .unwrap_or_else(|e| panic!("tables {material} --json: {e}: {line:?}"));
    let mut names: Vec<String> = doc["materials"][0]["closure"]
        .as_array()
        .unwrap_or_else(|| panic!("no closure in {line}"))
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

/// The tables `--dry-run` lists for `args`, sorted.
fn dry_run_tables(args: &[&str]) -> Vec<String> {
    let tmp = tempfile::tempdir().unwrap();
    let mut all = vec!["--dry-run", "--quiet", "--dest", s(tmp.path())];
    all.extend_from_slice(args);
    // Some closures are larger than the test machine's disk: this is about
    // names, so the disk check is told there is room (a petabyte).
    let out = run_with_env(&all, &[("FIFTYMOVE_FREE_BYTES", "1000000000000000")]);
    assert_eq!(code(&out), 0, "{args:?}: {}", describe(&out));
    assert!(
        entries(tmp.path()).is_empty(),
        "--dry-run installed something"
    );
    let mut names: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    names.sort();
    names
}

#[test]
fn closures_agree_with_the_binary() {
    // Pawnless and pawn materials, symmetric ones, promotions with and
    // without captures, 3 to 7 pieces.
    for material in [
        "KQvK", "KQvKR", "KPvKP", "KRPvKR", "KQPvKQ", "KNNvKP", "KRNvKNN", "KNNvKNN", "KPPvKPP",
        "KRPPvKRP", "KQRBvKQR", "KRPPvKPP",
    ] {
        assert_eq!(
            dry_run_tables(&[material]),
            binary_closure(material),
            "closure of {material}"
        );
    }
    // --no-closure: the name alone; a list of several: the union.
    assert_eq!(dry_run_tables(&["--no-closure", "KRPvKR"]), ["KRPvKR"]);
    let mut union = binary_closure("KRPvKR");
    union.extend(binary_closure("KNNvKP"));
    union.sort();
    union.dedup();
    assert_eq!(dry_run_tables(&["KRPvKR", "KNNvKP"]), union);
}

/// `KNNvKNN` (6 pieces, present in the shared tables) installs exactly its
/// closure, and the size line gives the official size of what is missing.
#[test]
fn material_installs_its_closure_and_the_size_of_what_is_missing() {
    let shared = shared_tables();
    let bytes = official_bytes();
    let closure = binary_closure("KNNvKNN");
    assert_eq!(
        closure,
        ["KNNvK", "KNNvKN", "KNNvKNN", "KNvK", "KNvKN"],
        "KNNvKNN loses a knight (either side's) at each capture"
    );
    let tmp = tempfile::tempdir().unwrap();
    let dest = tmp.path().join("syzygy");
    // One table already there: it is neither installed again nor counted.
    fs::create_dir(&dest).unwrap();
    for file in ["KNvK.rtbw", "KNvK.rtbz"] {
        fs::copy(shared.join(file), dest.join(file)).unwrap();
    }
    let missing: u64 = files_of(&["KNNvK", "KNNvKN", "KNNvKNN", "KNvKN"])
        .iter()
        .map(|f| bytes[f])
        .sum();

    // Symlinks: the size is printed, the disk is not checked (a free
    // space of 0 does not stop it).
    let out = run_with_env(
        &["--from", s(&shared), "--dest", s(&dest), "KNNvKNN"],
        &[("FIFTYMOVE_FREE_BYTES", "0")],
    );
    assert_eq!(code(&out), 0, "{}", describe(&out));
    let err = stderr(&out);
    let size_line = err
        .lines()
        .find(|l| l.starts_with("to install: 8 of 10 files"))
        .unwrap_or_else(|| panic!("no size line\n{}", describe(&out)));
    assert!(
        size_line.contains(&format!("({missing} bytes, official sizes)")),
        "{size_line}"
    );
    let closure: Vec<&str> = closure.iter().map(String::as_str).collect();
    assert_installed(&dest, &closure);
    assert!(err.contains("8 installed, 2 already present"), "{err}");

    // Everything there now: no size to download.
    let out = run(&["--from", s(&shared), "--dest", s(&dest), "KNNvKNN"]);
    assert_eq!(code(&out), 0, "{}", describe(&out));
    assert!(
        stderr(&out).contains("all 10 files already installed and correct"),
        "{}",
        describe(&out)
    );
}

#[test]
fn too_little_disk_space_is_refused_before_anything_is_installed() {
    let shared = shared_tables();
    let bytes = official_bytes();
    let needed: u64 = files_of(KQVKR_CLOSURE).iter().map(|f| bytes[f]).sum();
    let tmp = tempfile::tempdir().unwrap();
    let dest = tmp.path().join("syzygy");
    let args = ["--from", s(&shared), "--copy", "--dest", s(&dest), "KQvKR"];

    // One byte short: exit 4, one error line naming both sizes, nothing
    // created, not even the destination directory.
    let short = (needed - 1).to_string();
    let out = run_with_env(&args, &[("FIFTYMOVE_FREE_BYTES", &short)]);
    assert_eq!(code(&out), 4, "{}", describe(&out));
    let errors = error_lines(&out);
    assert_eq!(errors.len(), 1, "{}", describe(&out));
    assert!(
        errors[0].contains("not enough disk space")
            && errors[0].contains(&format!("({needed} bytes)"))
            && errors[0].contains(&format!("({short} bytes)")),
        "{}",
        describe(&out)
    );
    assert!(!dest.exists(), "the destination was created");
    // The same with --quiet: the error line is all there is.
    let mut quiet = args.to_vec();
    quiet.push("--quiet");
    let out = run_with_env(&quiet, &[("FIFTYMOVE_FREE_BYTES", &short)]);
    assert_eq!(code(&out), 4, "{}", describe(&out));
    assert_eq!(stderr(&out).lines().count(), 1, "{}", describe(&out));

    // Exactly enough: installed.
    let out = run_with_env(&args, &[("FIFTYMOVE_FREE_BYTES", &needed.to_string())]);
    assert_eq!(code(&out), 0, "{}", describe(&out));
    assert_installed(&dest, KQVKR_CLOSURE);

    // Downloads are checked the same way, before any connection.
    let out = run_with_env(
        &["--dest", s(&tmp.path().join("dl")), "KQvKR"],
        &[
            ("FIFTYMOVE_FREE_BYTES", "100"),
            ("FIFTYMOVE_MIRRORS", "http://127.0.0.1:9/"),
        ],
    );
    assert_eq!(code(&out), 4, "{}", describe(&out));
    assert!(
        error_lines(&out)[0].contains("to download"),
        "{}",
        describe(&out)
    );

    // A nonsensical hook value is a usage error.
    let out = run_with_env(&args, &[("FIFTYMOVE_FREE_BYTES", "lots")]);
    assert_eq!(code(&out), 2, "{}", describe(&out));
    assert_eq!(error_lines(&out).len(), 1, "{}", describe(&out));

    // Without the hook, df is asked: a few hundred KiB fit in any test
    // machine's temporary directory.
    let real = tmp.path().join("real");
    let out = run(&["--from", s(&shared), "--copy", "--dest", s(&real), "KQvKR"]);
    assert_eq!(code(&out), 0, "{}", describe(&out));
    assert!(
        stderr(&out)
            .lines()
            .any(|l| l.starts_with("to copy: 6 of 6 files") && l.contains("free in")),
        "{}",
        describe(&out)
    );
}
