//! `scripts/slurm/submit.sh` on a real SLURM cluster: the one-node cluster
//! of `scripts/slurm/local-cluster.sh start` (which `.ci/run`, through
//! `scripts/test.sh`, starts before the tests and stops after). Every test
//! is named `slurm_*`, so `cargo test slurm` selects them. Without a
//! cluster they fail with instructions: a cluster test that cannot run is
//! a failure, never a pass.
//!
//! Each test compares what the cluster wrote with a local run of the same
//! binary, byte for byte.

mod common;

use std::{
    fs,
    os::unix::fs::MetadataExt,
    path::{Path, PathBuf},
    process::{Command, Output},
    time::{Duration, Instant},
};

use common::{fiftymove, stdout_ok, tables_dir, test_cache_dir};
use fiftymove::build_id::BUILD_ID;

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scripts/slurm")
        .join(name)
}

fn require_cluster() {
    let up = Command::new(script("local-cluster.sh"))
        .arg("status")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        up,
        "no SLURM cluster is up: run scripts/slurm/local-cluster.sh start (as root), or scripts/test.sh, which does"
    );
}

/// submit.sh with the test binary and tables; `bin` replaces the binary.
fn submit(bin: Option<&Path>, args: &[&str]) -> Output {
    require_cluster();
    let bin = bin.map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_fiftymove")),
        Path::to_path_buf,
    );
    let out = Command::new(script("submit.sh"))
        .arg("--bin")
        .arg(bin)
        .arg("--tables")
        .arg(tables_dir())
        .args(args)
        .env("FIFTYMOVE_CACHE_DIR", test_cache_dir())
        .env_remove("SYZYGY_PATH")
        .output()
        .expect("submit.sh runs");
    // The jobs' ids and states, for the log of a failing test.
    eprintln!(
        "submit.sh {args:?} -> {:?}\n{}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Waits until SLURM holds no queued or running job for `dir`.
fn wait_for_jobs_of(dir: &Path) {
    let comment = format!("fiftymove:{}", dir.display());
    let start = Instant::now();
    loop {
        let q = Command::new("squeue")
            .args(["-h", "-o", "%i %k"])
            .output()
            .expect("squeue runs");
        let listing = String::from_utf8_lossy(&q.stdout).into_owned();
        if !listing
            .lines()
            .any(|l| l.split_whitespace().nth(1) == Some(&comment))
        {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(600),
            "jobs of {comment} never ended: {listing}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

fn local_scan(material: &str) -> Vec<u8> {
    stdout_ok(fiftymove().args(["--quiet", "--json", "scan", material])).into_bytes()
}

fn scan_through_slurm(material: &str, shards: u32) {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let o = submit(
        None,
        &[
            "--wait",
            "scan",
            material,
            "--shards",
            &shards.to_string(),
            "--out",
            out_dir.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("COMPLETED"), "{t}");
    let merged = fs::read(out_dir.join(format!("{material}.json"))).unwrap();
    assert!(
        merged == local_scan(material),
        "the merged SLURM scan of {material} differs from the local scan"
    );
}

#[test]
fn slurm_scan_of_kqkr_in_three_shards_equals_the_local_scan() {
    scan_through_slurm("KQvKR", 3);
}

/// A table with a pawn, which the sweep counts file by file of the pawn
/// (several windows per shard). A 4-piece one: what is tested here is the
/// array, the merge and the equality, the same at any size; 5-piece shards
/// are compared with the probe engine in `sweep_engine`.
#[test]
fn slurm_scan_of_krkp_in_three_shards_equals_the_local_scan() {
    scan_through_slurm("KRvKP", 3);
}

/// A task killed before it wrote its shard: the merge does not run on the
/// partial set, and the next submission runs only that shard.
#[test]
fn slurm_killed_task_is_the_only_one_run_again() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let out = out_dir.to_str().unwrap();
    let o = submit(
        None,
        &["--hold", "scan", "KQvKR", "--shards", "3", "--out", out],
    );
    assert!(o.status.success(), "{}", text(&o));
    // The array's id, from "submitted scan KQvKR shards 1,2,3 of 3 as job N".
    let t = text(&o);
    let array: u64 = t
        .lines()
        .find(|l| l.contains("submitted scan"))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no array job id in {t}"));
    let merge = array + 1;
    let run = |args: &[&str]| {
        let s = Command::new(args[0]).args(&args[1..]).status().unwrap();
        assert!(s.success(), "{args:?}");
    };
    run(&["scancel", &format!("{array}_2")]);
    run(&[
        "scontrol",
        "release",
        &array.to_string(),
        &merge.to_string(),
    ]);
    wait_for_jobs_of(&out_dir);
    assert!(!out_dir.join("KQvKR.shard-2-of-3.json").exists());
    assert!(
        !out_dir.join("KQvKR.json").exists(),
        "the merge ran on a partial set"
    );
    let stamp = |k: u32| {
        let m = fs::metadata(out_dir.join(format!("KQvKR.shard-{k}-of-3.json"))).unwrap();
        (m.ino(), m.mtime(), m.mtime_nsec())
    };
    let before = [stamp(1), stamp(3)];
    let o = submit(
        None,
        &["--wait", "scan", "KQvKR", "--shards", "3", "--out", out],
    );
    assert!(o.status.success(), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("submitted scan KQvKR shards 2 of 3"), "{t}");
    assert_eq!(
        [stamp(1), stamp(3)],
        before,
        "a finished shard was computed again"
    );
    assert!(fs::read(out_dir.join("KQvKR.json")).unwrap() == local_scan("KQvKR"));
    // Everything is there now: a third submission schedules nothing.
    let o = submit(
        None,
        &["--wait", "scan", "KQvKR", "--shards", "3", "--out", out],
    );
    assert!(
        o.status.success() && text(&o).contains("nothing to do"),
        "{}",
        text(&o)
    );
    // Shard 3 and the merged result as another build would have left them
    // (after a rebuild): both are computed again, the other shards are not.
    let ours = format!("\"build\":\"{BUILD_ID}\"");
    let theirs = format!("\"build\":\"{}\"", other_build_id());
    for name in ["KQvKR.shard-3-of-3.json", "KQvKR.json"] {
        let path = out_dir.join(name);
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.contains(&ours), "{name} names this build: {text}");
        fs::write(&path, text.replace(&ours, &theirs)).unwrap();
    }
    let before = [stamp(1), stamp(2)];
    let o = submit(
        None,
        &["--wait", "scan", "KQvKR", "--shards", "3", "--out", out],
    );
    assert!(o.status.success(), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("submitted scan KQvKR shards 3 of 3"), "{t}");
    assert!(t.contains("made by another build"), "{t}");
    assert_eq!(
        [stamp(1), stamp(2)],
        before,
        "a shard of this build was computed again"
    );
    assert!(fs::read(out_dir.join("KQvKR.json")).unwrap() == local_scan("KQvKR"));
}

/// A build id that is not this one.
fn other_build_id() -> &'static str {
    if BUILD_ID == "0123456789abcdef" {
        "fedcba9876543210"
    } else {
        "0123456789abcdef"
    }
}

/// A task that fails is named with its shard and exit code, and the merge
/// is not run.
#[test]
fn slurm_failed_task_is_reported_with_its_shard_and_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let wrapper = dir.path().join("fiftymove-failing-shard-2");
    fs::write(
        &wrapper,
        format!(
            "#!/bin/bash\nfor a in \"$@\"; do [ \"$a\" = 2/3 ] && exit 7; done\nexec {} \"$@\"\n",
            env!("CARGO_BIN_EXE_fiftymove")
        ),
    )
    .unwrap();
    let mut perm = fs::metadata(&wrapper).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    fs::set_permissions(&wrapper, perm).unwrap();
    let out_dir = dir.path().join("out");
    let o = submit(
        Some(&wrapper),
        &[
            "--wait",
            "scan",
            "KQvKR",
            "--shards",
            "3",
            "--out",
            out_dir.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let t = text(&o);
    assert!(
        t.contains("failed: scan KQvKR shard 2/3, exit code 7"),
        "{t}"
    );
    assert!(
        !t.contains("shard 1/3, exit") && !t.contains("shard 3/3, exit"),
        "{t}"
    );
    assert!(t.contains("not merged"), "{t}");
    assert!(!out_dir.join("KQvKR.json").exists());
}

/// A closure solve: one job per material in capture and promotion order,
/// sharing a cache; the target's document equals a local solve, and a
/// second submission schedules nothing.
#[test]
fn slurm_closure_solve_equals_the_local_solve() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let out_dir = dir.path().join("out");
    let args = [
        "--wait",
        "solve",
        "KRvKP",
        "--rule",
        "75",
        "--cache-dir",
        cache.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ];
    let o = submit(None, &args);
    assert!(o.status.success(), "{}", text(&o));
    let t = text(&o);
    for m in ["KQvK", "KRvK", "KPvK", "KQvKR", "KRvKR", "KRvKP"] {
        assert!(
            t.contains(&format!("submitted solve {m} as job")),
            "{m}: {t}"
        );
    }
    let local = stdout_ok(fiftymove().args([
        "--quiet",
        "--json",
        "--no-cache",
        "solve",
        "--rule",
        "75",
        "KRvKP",
    ]));
    assert!(fs::read(out_dir.join("KRvKP.json")).unwrap() == local.into_bytes());
    let o = submit(None, &args);
    assert!(
        o.status.success() && text(&o).contains("nothing to do"),
        "{}",
        text(&o)
    );
}

/// A census as an array of shards sharing one solve cache, set side by
/// side by a job held on them: the files it writes equal those of the
/// census run locally, and a second submission schedules nothing.
#[test]
fn slurm_census_array_equals_the_local_census() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let out_dir = dir.path().join("out");
    let materials = ["KQvK", "KRvK", "KPvK", "KQvKR", "KRvKP"];
    let mut args = vec![
        "--wait",
        "census",
        "--shards",
        "2",
        "--cache-dir",
        cache.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ];
    args.extend(materials);
    let o = submit(None, &args);
    assert!(o.status.success(), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("submitted census shards 1,2 of 2"), "{t}");
    let local = dir.path().join("local");
    common::run_ok(
        fiftymove()
            .args(["--quiet", "--no-cache", "census", "--out"])
            .arg(&local)
            .args(materials),
    );
    for name in ["census.json", "census.csv"] {
        assert!(
            fs::read(out_dir.join("census").join(name)).unwrap()
                == fs::read(local.join(name)).unwrap(),
            "{name}: the SLURM census differs from the local one"
        );
    }
    let o = submit(None, &args);
    assert!(
        o.status.success() && text(&o).contains("nothing to do"),
        "{}",
        text(&o)
    );
}
