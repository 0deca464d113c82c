//! Outputs under stress: files are written atomically (temp file, then
//! rename), a full disk gives one clean `error:` line and exit code 1, a
//! closed pipe a quiet exit 0, and nothing ever leaves a half-written file
//! or a stray temporary file behind.

mod common;
mod hostile_common;

use std::{
    fs,
    os::unix::fs::FileTypeExt,
    path::Path,
    process::{Command, Stdio},
};

use fiftymove::output::write_atomically;
use hostile_common::{expect_error, expect_ok, fiftymove_real, BAD_INPUT, OK, OTHER, TABLES};

const KRVK: &str = "8/8/8/8/8/8/8/R3K2k w - - 0 1";

/// Files in `dir` whose names look like our temporary files.
fn temp_files(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

/// Small shard files for `merge` (KNvK in two parts), made by real scans.
fn shard_files(dir: &Path) -> Vec<std::path::PathBuf> {
    (1..=2)
        .map(|k| {
            let path = dir.join(format!("KNvK-{k}of2.json"));
            let (mut cmd, _cache) = fiftymove_real();
            cmd.args([
                "scan",
                "KNvK",
                "--engine",
                "probe",
                "--shard",
                &format!("{k}/2"),
                "--out",
            ])
            .arg(&path);
            expect_ok(&mut cmd);
            path
        })
        .collect()
}

#[test]
fn a_full_disk_is_a_clean_error_and_dev_full_stays_a_device() {
    let (mut cmd, _cache) = fiftymove_real();
    cmd.args([
        "scan",
        "KNvK",
        "--engine",
        "probe",
        "--shard",
        "1/2",
        "--out",
        "/dev/full",
    ]);
    expect_error(
        &mut cmd,
        OTHER,
        &["cannot write /dev/full", "No space left on device"],
    );
    let meta = fs::metadata("/dev/full").unwrap();
    assert!(meta.file_type().is_char_device(), "/dev/full was replaced!");
    assert!(temp_files(Path::new("/dev")).is_empty());

    // merge --out the same way.
    let dir = tempfile::tempdir().unwrap();
    let shards = shard_files(dir.path());
    let (mut cmd, _cache) = fiftymove_real();
    cmd.arg("merge").args(&shards).args(["--out", "/dev/full"]);
    expect_error(&mut cmd, OTHER, &["cannot write /dev/full"]);
    assert!(fs::metadata("/dev/full")
        .unwrap()
        .file_type()
        .is_char_device());

    // And stdout on a full disk, for every kind of output.
    for args in [
        &["probe", KRVK][..],
        &["--json", "probe", KRVK],
        &["line", KRVK],
        &["line", "--format", "pgn", KRVK],
        &["tables"],
    ] {
        let (mut cmd, _cache) = fiftymove_real();
        cmd.args(args)
            .stdout(fs::File::create("/dev/full").unwrap());
        let out = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(OTHER), "{args:?}: {stderr}");
        hostile_common::assert_one_error_line(&stderr, &format!("{args:?}"));
        assert!(
            stderr.contains("cannot write <stdout>: No space left"),
            "{stderr}"
        );
    }
}

#[test]
fn a_device_destination_is_written_not_replaced() {
    let (mut cmd, _cache) = fiftymove_real();
    cmd.args([
        "scan",
        "KNvK",
        "--engine",
        "probe",
        "--shard",
        "2/2",
        "--out",
        "/dev/null",
    ]);
    expect_ok(&mut cmd);
    assert!(fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
}

#[test]
fn a_closed_pipe_ends_quietly() {
    for args in [
        &["probe", KRVK][..],
        &["--json", "probe", KRVK],
        &["line", KRVK],
        &["line", "--format", "pgn", KRVK],
        &["tables"],
        &["tables", "--verify", "KRvK"],
        &["scan", "KNvK", "--engine", "probe"],
    ] {
        // A pipe whose reading end is closed before the program starts: its
        // first write fails with EPIPE, every time.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let (mut cmd, _cache) = fiftymove_real();
        cmd.args(args).stdout(writer).stderr(Stdio::piped());
        let out = cmd.output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(OK),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stderr.is_empty(),
            "{args:?} should exit quietly: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn head_closing_the_pipe_early_is_quiet() {
    // The way people do it: `fiftymove ... | head -1`.
    let cache = tempfile::tempdir().unwrap();
    let out = Command::new("bash")
        .arg("-c")
        .arg("set -o pipefail; \"$0\" --tables \"$1\" line --format pgn \"$2\" | head -1")
        .arg(env!("CARGO_BIN_EXE_fiftymove"))
        .arg(common::tables_dir())
        .arg("4k3/r7/8/8/8/8/8/QR2K3 w - - 0 1")
        .env("FIFTYMOVE_CACHE_DIR", cache.path())
        .env_remove("SYZYGY_PATH")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(OK),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
}

#[test]
fn out_files_are_complete_and_leave_no_temp_files() {
    let dir = tempfile::tempdir().unwrap();
    let shards = shard_files(dir.path());
    let text = fs::read_to_string(&shards[0]).unwrap();
    assert!(text.ends_with('\n'));
    let _: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    // Overwriting an existing file replaces it whole.
    let merged = dir.path().join("merged.json");
    fs::write(
        &merged,
        "old contents that are longer than nothing\n".repeat(100),
    )
    .unwrap();
    let (mut cmd, _cache) = fiftymove_real();
    cmd.arg("merge").args(&shards).arg("--out").arg(&merged);
    expect_ok(&mut cmd);
    let text = fs::read_to_string(&merged).unwrap();
    assert!(!text.contains("old contents"));
    assert!(
        temp_files(dir.path()).is_empty(),
        "{:?}",
        temp_files(dir.path())
    );
}

#[test]
fn a_failed_run_leaves_the_old_out_file_alone() {
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("result.json");
    fs::write(&out_file, "precious\n").unwrap();
    // Missing tables: exit 3 before anything is written.
    let empty = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fiftymove"));
    cmd.arg("--tables")
        .arg(empty.path())
        .args(["scan", "KRvK", "--shard", "1/2", "--out"])
        .arg(&out_file);
    expect_error(&mut cmd, hostile_common::TABLES, &["KRvK.rtbw"]);
    // A bad merge input: exit 2.
    let bad = dir.path().join("bad.json");
    fs::write(&bad, "{\"material\": \"KRvK\"").unwrap();
    let (mut cmd, _cache) = fiftymove_real();
    cmd.arg("merge").arg(&bad).arg("--out").arg(&out_file);
    expect_error(&mut cmd, BAD_INPUT, &["bad.json", "line 1"]);
    assert_eq!(fs::read_to_string(&out_file).unwrap(), "precious\n");
    assert!(temp_files(dir.path()).is_empty());
}

#[test]
fn bad_out_paths_are_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    for (out, needle) in [
        (dir.path().to_owned(), "is a directory"),
        (dir.path().join("no/such/dir/x.json"), "is not a directory"),
    ] {
        let (mut cmd, _cache) = fiftymove_real();
        cmd.args(["scan", "KRvK", "--shard", "1/2", "--out"])
            .arg(&out);
        expect_error(&mut cmd, BAD_INPUT, &["--out", needle]);
        let (mut cmd, _cache) = fiftymove_real();
        cmd.args(["merge", "x.json", "--out"]).arg(&out);
        expect_error(&mut cmd, BAD_INPUT, &["--out", needle]);
    }
    assert!(temp_files(dir.path()).is_empty());
}

#[test]
fn write_atomically_cleans_up_when_the_rename_fails() {
    let dir = tempfile::tempdir().unwrap();
    // A non-empty directory cannot be replaced by a file: the temp file is
    // written, the rename fails, and the temp file must go.
    let target = dir.path().join("taken");
    fs::create_dir(&target).unwrap();
    fs::write(target.join("inside"), "x").unwrap();
    let err = write_atomically(&target, b"data").unwrap_err();
    assert_eq!(err.exit_code(), OTHER);
    assert!(err
        .to_string()
        .starts_with(&format!("cannot write {}", target.display())));
    assert!(
        temp_files(dir.path()).is_empty(),
        "{:?}",
        temp_files(dir.path())
    );
    assert_eq!(fs::read_to_string(target.join("inside")).unwrap(), "x");
    // A missing directory: nothing is created.
    let err = write_atomically(&dir.path().join("nope/x"), b"data").unwrap_err();
    assert_eq!(err.exit_code(), OTHER);
    assert!(!dir.path().join("nope").exists());
}

#[test]
fn write_atomically_replaces_the_target_of_a_symlink() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.json");
    let link = dir.path().join("link.json");
    fs::write(&real, "old").unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    write_atomically(&link, b"new").unwrap();
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(fs::read_to_string(&real).unwrap(), "new");
    assert!(temp_files(dir.path()).is_empty());
}

#[test]
fn concurrent_writers_never_produce_a_mixed_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.json");
    let bodies: Vec<Vec<u8>> = (0..8u8).map(|i| vec![b'a' + i; 100_000]).collect();
    std::thread::scope(|s| {
        for body in &bodies {
            let path = &path;
            s.spawn(move || {
                for _ in 0..10 {
                    write_atomically(path, body).unwrap();
                }
            });
        }
    });
    let text = fs::read(&path).unwrap();
    assert_eq!(text.len(), 100_000);
    assert!(text.iter().all(|b| *b == text[0]), "a mixed file");
    assert!(temp_files(dir.path()).is_empty());
}

/// `tables MATERIAL` names each missing file with its official size, and
/// the total: the sizes come from `data/syzygy-bytes.tsv`, read here on
/// its own.
#[test]
fn tables_gives_missing_file_sizes_and_the_download_total() {
    let official: std::collections::HashMap<String, u64> = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/syzygy-bytes.tsv"
    ))
    .unwrap()
    .lines()
    .filter_map(|l| {
        let (bytes, file) = l.split_once('\t')?;
        Some((file.to_owned(), bytes.parse().ok()?))
    })
    .collect();
    let (mut cmd, _cache) = fiftymove_real();
    let out = cmd.args(["--json", "tables", "KRNvKNN"]).output().unwrap();
    // Missing tables: exit 3, with the report on stdout.
    assert_eq!(out.status.code(), Some(3));
    let doc: serde_json::Value =
        serde_json::from_str(String::from_utf8(out.stdout).unwrap().trim()).unwrap();
    let m = &doc["materials"][0];
    let missing: Vec<&str> = m["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert!(missing.contains(&"KRNvKNN.rtbw") && missing.contains(&"KRNvKNN.rtbz"));
    let mut total = 0;
    for f in &missing {
        assert_eq!(m["missing_bytes"][f].as_u64(), Some(official[*f]), "{f}");
        total += official[*f];
    }
    assert_eq!(m["missing_total_bytes"].as_u64(), Some(total));
}

/// `tables MATERIAL --json`, as a JSON value, and its exit code.
fn tables_json(args: &[&str]) -> (serde_json::Value, Option<i32>) {
    let (mut cmd, _cache) = fiftymove_real();
    let out = cmd.arg("--json").args(args).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "one JSON line: {text}");
    (
        serde_json::from_str(text.trim()).unwrap(),
        out.status.code(),
    )
}

/// The last line of `solve --plan MATERIAL --metric M --json --no-cache`
/// (with `extra` arguments): the material itself, which the plan lists
/// last, solved with its whole closure, as from an empty cache (`tables`
/// gives that bound; with a cache, the line is the material's own solve,
/// its closure read from the cache).
fn solve_plan_last(material: &str, metric: &str, extra: &[&str]) -> serde_json::Value {
    let (mut cmd, _cache) = fiftymove_real();
    let text = expect_ok(cmd.args(extra).args([
        "--json",
        "--no-cache",
        "solve",
        "--plan",
        material,
        "--metric",
        metric,
    ]));
    let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["material"], material);
    last
}

/// Its `memory_bytes`: the bound of the material's solve.
fn solve_plan_bytes(material: &str, metric: &str) -> u64 {
    solve_plan_last(material, metric, &[])["memory_bytes"]
        .as_u64()
        .unwrap()
}

/// `tables MATERIAL` gives what a scan and a solve would need: for a
/// material whose tables are all there, the scan bound `scan --plan`
/// prints (from the headers) and the solve bounds `solve --plan` prints
/// under the same limit, each against it (given here, so that the verdicts
/// are known in advance). Below its whole bound a solve reads its tables
/// page by page: KRPvKR's DTM, whose whole solve needs more than 3 GiB,
/// fits it so; its DTR does not fit even so.
#[test]
fn tables_gives_what_a_scan_and_a_solve_need_in_memory() {
    let (mut cmd, _cache) = fiftymove_real();
    let plan = expect_ok(cmd.args(["--json", "scan", "--plan", "KRPvKR"]));
    let plan: serde_json::Value = serde_json::from_str(plan.trim()).unwrap();
    let scan = plan["memory_bytes"].as_u64().unwrap();
    let planned: Vec<(&str, serde_json::Value)> = ["dtz", "dtm", "dtr"]
        .into_iter()
        .map(|m| (m, solve_plan_last("KRPvKR", m, &["--memory-limit", "3G"])))
        .collect();
    let solve: Vec<(&str, u64)> = planned
        .iter()
        .map(|(m, p)| (*m, p["memory_bytes"].as_u64().unwrap()))
        .collect();
    let whole_dtm = solve_plan_bytes("KRPvKR", "dtm");
    assert!(whole_dtm > 3 << 30, "{whole_dtm}");
    assert!(planned[1].1["page_bytes"].as_u64().is_some(), "{planned:?}");
    assert!(planned[0].1.get("page_bytes").is_none(), "{planned:?}");
    // A limit between the smallest and the largest bound: some fit, some not.
    let limit: u64 = 3 << 30;
    let (doc, code) = tables_json(&["--memory-limit", "3G", "tables", "KRPvKR"]);
    assert_eq!(code, Some(OK));
    let m = &doc["materials"][0]["memory"];
    assert_eq!(m["available_bytes"].as_u64(), Some(limit));
    assert_eq!(m["available_from"], "--memory-limit");
    assert_eq!(m["scan_bytes"].as_u64(), Some(scan));
    assert_eq!(m["scan_bound_from"], "table headers");
    assert_eq!(m["scan_fits"].as_bool(), Some(scan <= limit));
    for (metric, bytes) in &solve {
        assert_eq!(m["solve_bytes"][metric].as_u64(), Some(*bytes), "{metric}");
        assert_eq!(
            m["solve_fits"][metric].as_bool(),
            Some(*bytes <= limit),
            "{metric}"
        );
    }
    assert!(
        solve.iter().any(|(_, b)| *b <= limit) && solve.iter().any(|(_, b)| *b > limit),
        "3 GiB should split the solve bounds {solve:?}"
    );

    // Without a limit: what the system has available, which is at most
    // its total memory (MemTotal, read here from /proc/meminfo).
    let total: u64 = fs::read_to_string("/proc/meminfo")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().strip_suffix("kB")?.trim().parse::<u64>().ok())
        .unwrap()
        * 1024;
    let (doc, _) = tables_json(&["tables", "KRPvKR"]);
    let m = &doc["materials"][0]["memory"];
    assert_eq!(m["available_from"], "MemAvailable");
    let available = m["available_bytes"].as_u64().unwrap();
    assert!(
        available > 0 && available <= total,
        "{available} of {total}"
    );

    // The text says the same, in people's units.
    let (mut cmd, _cache) = fiftymove_real();
    let text = expect_ok(cmd.args(["--memory-limit", "3G", "tables", "KRPvKR"]));
    assert!(
        text.contains("memory available: 3.2 GB (--memory-limit)"),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.contains("scan (sweep engine) needs at most")
                && l.contains("from the table headers")),
        "{text}"
    );
    assert!(
        text.contains("does NOT fit") && text.contains("(fits)"),
        "{text}"
    );
}

/// For a material whose tables are missing, the scan bound comes from index
/// arithmetic and says so; it equals `scan --plan`'s header bound for the
/// same material once the tables are there (KNNvKNN, among the shared
/// tables); a 7-piece material has no solve bound, with the reason.
#[test]
fn tables_bounds_a_scan_by_index_arithmetic_when_tables_are_missing() {
    let (doc, code) = tables_json(&["tables", "KRNvKNN"]);
    assert_eq!(code, Some(TABLES), "missing tables: exit 3");
    let m = &doc["materials"][0]["memory"];
    assert_eq!(m["scan_bound_from"], "index arithmetic");
    assert!(m["scan_bytes"].as_u64().unwrap() > 1 << 30);
    // The solver takes six pieces: its bound is `solve --plan`'s.
    assert_eq!(
        m["solve_bytes"]["dtz"].as_u64(),
        Some(solve_plan_bytes("KRNvKNN", "dtz"))
    );
    assert!(m["solve_refused"].is_null());
    // Seven pieces: no solve bound, and why.
    let (doc, _) = tables_json(&["tables", "KRBNvKRN"]);
    let m = &doc["materials"][0]["memory"];
    assert_eq!(m["solve_bytes"], serde_json::json!({}));
    assert!(m["solve_refused"].as_str().unwrap().contains("at most 6"));

    // KNNvKNN: no tables here (an empty directory), then the real ones.
    let shared = std::env::var_os("FIFTYMOVE_SHARED_TABLES")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/syzygy"));
    assert!(
        shared.join("KNNvKNN.rtbw").is_file(),
        "KNNvKNN not found in {} (set FIFTYMOVE_SHARED_TABLES)",
        shared.display()
    );
    let run = |dir: &Path, args: &[&str]| {
        let cache = tempfile::tempdir().unwrap();
        Command::new(env!("CARGO_BIN_EXE_fiftymove"))
            .arg("--tables")
            .arg(dir)
            .args(args)
            .env_remove("SYZYGY_PATH")
            .env("FIFTYMOVE_CACHE_DIR", cache.path())
            .output()
            .unwrap()
    };
    let empty = tempfile::tempdir().unwrap();
    let out = run(empty.path(), &["--json", "tables", "KNNvKNN"]);
    assert_eq!(out.status.code(), Some(TABLES));
    let doc: serde_json::Value =
        serde_json::from_str(String::from_utf8(out.stdout).unwrap().trim()).unwrap();
    let estimate = &doc["materials"][0]["memory"];
    assert_eq!(estimate["scan_bound_from"], "index arithmetic");
    let out = run(&shared, &["--json", "scan", "--plan", "KNNvKNN"]);
    assert_eq!(out.status.code(), Some(OK));
    let plan: serde_json::Value =
        serde_json::from_str(String::from_utf8(out.stdout).unwrap().trim()).unwrap();
    assert_eq!(estimate["scan_bytes"], plan["memory_bytes"]);
    let text = String::from_utf8(run(empty.path(), &["tables", "KNNvKNN"]).stdout).unwrap();
    assert!(
        text.contains("by index arithmetic (tables missing)"),
        "{text}"
    );
    assert!(text.contains("solve needs at most: --metric dtz"), "{text}");
}

/// Under a limit below a scan's whole bound, `tables` gives the scan's
/// plan as `scan --plan` does: the bound, the page budget and the tables of
/// the closure read page by page (KNNvKP in 400 MiB), in JSON and in text.
#[test]
fn tables_gives_the_scan_plan_with_its_paged_closure() {
    let (mut cmd, _cache) = fiftymove_real();
    let plan = expect_ok(cmd.args([
        "--json",
        "--memory-limit",
        "400M",
        "scan",
        "--plan",
        "KNNvKP",
    ]));
    let plan: serde_json::Value = serde_json::from_str(plan.trim()).unwrap();
    let paged = plan["paged_tables"].as_array().unwrap();
    assert!(!paged.is_empty(), "{plan}");
    assert!(plan["page_bytes"].as_u64().unwrap() > 0, "{plan}");
    let (doc, code) = tables_json(&["--memory-limit", "400M", "tables", "KNNvKP"]);
    assert_eq!(code, Some(OK));
    let m = &doc["materials"][0]["memory"];
    assert_eq!(m["scan_bytes"], plan["memory_bytes"]);
    assert_eq!(m["scan_fits"], plan["fits"]);
    assert_eq!(m["scan_page_bytes"], plan["page_bytes"]);
    assert_eq!(m["scan_paged_tables"], plan["paged_tables"]);
    let (mut cmd, _cache) = fiftymove_real();
    let text = expect_ok(cmd.args(["--memory-limit", "400M", "tables", "KNNvKP"]));
    let names: Vec<&str> = paged.iter().map(|n| n.as_str().unwrap()).collect();
    assert!(
        text.contains(&format!(
            "its closure paged: {} of its tables read page by page",
            names.len()
        )) && text.contains(&names.join(" ")),
        "{text}"
    );
    // Without a limit that pages, nothing is paged.
    let (doc, _) = tables_json(&["--memory-limit", "100G", "tables", "KNNvKP"]);
    let m = &doc["materials"][0]["memory"];
    assert_eq!(m["scan_page_bytes"], 0);
    assert_eq!(m["scan_paged_tables"], serde_json::json!([]));
}
