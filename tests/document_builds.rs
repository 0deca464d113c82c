//! Every saved document names the build that made it (the build id that
//! keys the caches), and documents of different builds are never summed or
//! set side by side: `merge`, `claims --from`, `records --from` and
//! `report --from` refuse a mixture with exit code 2 and one `error:` line
//! naming the files of each build, and say which build made what they read.

mod common;

use std::{fs, path::Path, process::Output};

use common::{fiftymove, run_ok};
use fiftymove::build_id::BUILD_ID;

/// A build id that is not this one.
fn other_build() -> &'static str {
    if BUILD_ID == "0123456789abcdef" {
        "fedcba9876543210"
    } else {
        "0123456789abcdef"
    }
}

/// `scan KQvKR` in two shards, written to `dir`.
fn shards(dir: &Path) -> [std::path::PathBuf; 2] {
    [1, 2].map(|k| {
        let path = dir.join(format!("KQvKR.shard-{k}-of-2.json"));
        run_ok(
            fiftymove()
                .args([
                    "--quiet",
                    "scan",
                    "KQvKR",
                    "--shard",
                    &format!("{k}/2"),
                    "--out",
                ])
                .arg(&path),
        );
        path
    })
}

/// Rewrites the build a result file names, as another build would have
/// written it.
fn make_other_build(path: &Path) {
    let text = fs::read_to_string(path).unwrap();
    let ours = format!("\"build\":\"{BUILD_ID}\"");
    assert!(
        text.contains(&ours),
        "{} names this build: {text}",
        path.display()
    );
    fs::write(
        path,
        text.replace(&ours, &format!("\"build\":\"{}\"", other_build())),
    )
    .unwrap();
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// One `error:` line, exit code 2, naming each build with its files.
fn assert_mixture_refused(out: &Output, ours: &Path, theirs: &Path) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let line = err.lines().next().unwrap();
    assert!(
        line.starts_with("error: the results come from different builds"),
        "{err}"
    );
    let of = |build: &str, file: &Path| format!("build {build}: {}", file.display());
    assert!(line.contains(&of(BUILD_ID, ours)), "{err}");
    assert!(line.contains(&of(other_build(), theirs)), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn scan_and_solve_documents_name_their_build() {
    for args in [&["scan", "KQvK"][..], &["solve", "--metric", "dtr", "KQvK"]] {
        let text = common::stdout_ok(fiftymove().args(["--quiet", "--json"]).args(args));
        let doc: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
        assert_eq!(doc["build"], serde_json::Value::from(BUILD_ID), "{args:?}");
    }
    // --version names the same id.
    let version = common::stdout_ok(fiftymove().arg("--version"));
    assert!(
        version.contains(&format!("(build {BUILD_ID})")),
        "{version}"
    );
}

#[test]
fn merge_refuses_a_shard_of_another_build_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let [one, two] = shards(dir.path());
    // Control: shards of one build merge.
    let merged = common::stdout_ok(fiftymove().args(["--json", "merge"]).args([&one, &two]));
    let doc: serde_json::Value = serde_json::from_str(merged.trim()).unwrap();
    assert_eq!(doc["build"], serde_json::Value::from(BUILD_ID));
    make_other_build(&two);
    let out_file = dir.path().join("merged.json");
    let out = fiftymove()
        .args(["merge"])
        .args([&one, &two])
        .arg("--out")
        .arg(&out_file)
        .output()
        .unwrap();
    assert_mixture_refused(&out, &one, &two);
    assert!(!out_file.exists());
    // All shards of the other build merge, and keep its name.
    make_other_build(&one);
    let merged = common::stdout_ok(fiftymove().args(["--json", "merge"]).args([&one, &two]));
    let doc: serde_json::Value = serde_json::from_str(merged.trim()).unwrap();
    assert_eq!(doc["build"], serde_json::Value::from(other_build()));
}

#[test]
fn claims_records_and_report_from_say_whose_documents_and_refuse_a_mixture() {
    let dir = tempfile::tempdir().unwrap();
    let saved = |material: &str| {
        let path = dir.path().join(format!("{material}.json"));
        run_ok(
            fiftymove()
                .args(["--quiet", "scan", material, "--out"])
                .arg(&path),
        );
        path
    };
    let kqkr = saved("KQvKR");
    let krk = saved("KRvK");
    // One build: read, and said.
    let out = run_ok(
        fiftymove()
            .args(["claims", "thompson-1986-kqkr", "--from"])
            .arg(&kqkr),
    );
    assert!(
        stderr(&out).contains(&format!(
            "note: read 1 document(s) from --from, made by this build, {BUILD_ID}"
        )),
        "{}",
        stderr(&out)
    );
    make_other_build(&krk);
    let report_dir = dir.path().join("report");
    for args in [
        vec!["claims", "thompson-1986-kqkr", "--from"],
        vec!["records", "--from"],
    ] {
        let out = fiftymove()
            .args(&args)
            .arg(&kqkr)
            .arg("--from")
            .arg(&krk)
            .output()
            .unwrap();
        assert_mixture_refused(&out, &kqkr, &krk);
    }
    let out = fiftymove()
        .arg("report")
        .arg("--out")
        .arg(&report_dir)
        .arg("--from")
        .arg(&kqkr)
        .arg("--from")
        .arg(&krk)
        .output()
        .unwrap();
    assert_mixture_refused(&out, &kqkr, &krk);
    assert!(!report_dir.exists());
    // Another build's documents alone are read, said to be another
    // build's, and the report names that build.
    let out = run_ok(
        fiftymove()
            .arg("report")
            .arg("--out")
            .arg(&report_dir)
            .arg("--from")
            .arg(&krk),
    );
    assert!(
        stderr(&out).contains(&format!(
            "made by build {}, not this one ({BUILD_ID})",
            other_build()
        )),
        "{}",
        stderr(&out)
    );
    let md = fs::read_to_string(report_dir.join("report.md")).unwrap();
    let said = md
        .lines()
        .find(|l| l.starts_with("Generated by"))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(
        said.contains(&format!(
            "Written by build {BUILD_ID}; the numbers were computed by build"
        )) && said.contains(other_build()),
        "{said}"
    );
}
