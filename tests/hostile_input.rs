//! Hand-typed input gone wrong: malformed and illegal FENs, too many pieces,
//! misspelt material, bad `--shard` values and bad or conflicting flags.
//! Every command answers each with exit code 2 and one `error:` line on
//! stderr that says what is wrong (and, for material, the closest valid
//! name), and prints nothing on stdout.

mod common;
mod hostile_common;

use hostile_common::{expect_error, expect_ok, fiftymove_real, BAD_INPUT, OTHER};

/// Bad FENs, with a fragment the message must contain.
const BAD_FENS: &[(&str, &str)] = &[
    ("not a fen", "invalid FEN 'not a fen'"),
    ("", "invalid FEN"),
    ("   ", "invalid FEN"),
    ("8/8/8/8/8/8/8/8/8 w - - 0 1", "invalid FEN"),
    ("4k3/8/8/8/8/8/8/4K3 x - - 0 1", "invalid FEN"),
    ("4k3/8/8/8/8/8/8/4KR2 w - - -5 1", "invalid FEN"),
    ("4k3/8/8/8/8/8/8/4KR2 w - - 0 1 extra", "invalid FEN"),
    ("4k3/8/8/8/8/8/8/4KR2 w - - 0 1 \u{e9}", "invalid FEN"),
    ("4k3/8/8/8/8/8/8/4K3 w - z9 0 1", "invalid FEN"),
    // Kings missing or doubled.
    ("8/8/8/8/8/8/8/8 w - - 0 1", "king is missing"),
    ("4k3/8/8/8/8/8/8/8 w - - 0 1", "king is missing"),
    ("8/8/8/8/8/8/8/4K3 b - - 0 1", "king is missing"),
    ("4k3/8/8/8/8/8/8/3KK3 w - - 0 1", "more than one king"),
    ("3kk3/8/8/8/8/8/8/4K3 w - - 0 1", "more than one king"),
    // The side not to move in check (also by the other king).
    (
        "4k3/8/8/8/8/8/8/K3R3 w - - 0 1",
        "side not to move is in check",
    ),
    (
        "Kk6/8/8/8/8/8/8/8 w - - 0 1",
        "side not to move is in check",
    ),
    (
        "kq6/8/8/8/8/8/8/R3K2Q w - - 0 1",
        "side not to move is in check",
    ),
    // Pawns on the back ranks.
    ("4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "rank 1 or 8"),
    ("P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "rank 1 or 8"),
    ("4k3/8/8/8/8/8/8/p3K3 b - - 0 1", "rank 1 or 8"),
    // Castling rights: Syzygy has none.
    ("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "castling"),
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "castling"),
    ("4k3/8/8/8/8/8/8/4K3 w K - 0 1", "castling"),
    // Bogus en-passant squares.
    ("4k3/8/8/8/8/8/8/4K3 w - e6 0 1", "en-passant"),
    ("8/8/8/3pP3/8/8/8/K6k b - d6 0 1", "en-passant"),
    ("4k3/8/8/4pP2/8/8/8/4K3 w - e3 0 1", "en-passant"),
    // More than 7 pieces.
    ("rnbqkbn1/8/8/8/8/8/8/4K3 w - - 0 1", "at most 7"),
    ("k7/8/8/8/8/8/8/RRRRKRRR w - - 0 1", "9 pieces"),
    // Counters that do not fit (shakmaty would quietly saturate them).
    (
        "4k3/8/8/8/8/8/8/4KR2 w - - 99999999999 1",
        "halfmove clock 99999999999 is out of range",
    ),
    (
        "4k3/8/8/8/8/8/8/4KR2 w - - 0 99999999999",
        "fullmove number",
    ),
];

#[test]
fn bad_fens_are_bad_input_for_every_command_that_takes_one() {
    for (fen, needle) in BAD_FENS {
        for args in [
            &["probe"][..],
            &["--json", "probe"],
            &["line"],
            &["line", "--format", "pgn"],
            &["--json", "line"],
        ] {
            let (mut cmd, _cache) = fiftymove_real();
            cmd.args(args).arg(fen);
            expect_error(&mut cmd, BAD_INPUT, &[needle]);
        }
    }
}

#[test]
fn bad_fens_are_refused_before_the_tables_are_looked_at() {
    // Exit 2 (the FEN), not 3 (the missing table directory).
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_fiftymove"));
    cmd.args([
        "--tables",
        "/nonexistent",
        "probe",
        "4k3/8/8/8/8/8/8/K3R3 w - - 0 1",
    ]);
    expect_error(&mut cmd, BAD_INPUT, &["in check"]);
}

#[test]
fn a_fen_with_control_characters_or_of_great_length_stays_one_line() {
    let (mut cmd, _cache) = fiftymove_real();
    cmd.args(["probe", "4k3/8/8/8/8/8/8/4KR2 w - -\n0 1"]);
    let line = expect_error(&mut cmd, BAD_INPUT, &["invalid FEN", "\\n"]);
    assert!(!line.contains('\n'));

    let (mut cmd, _cache) = fiftymove_real();
    cmd.args(["probe", "4k3/8/8/8/8/8/8/4KR2 w - - 0 1\u{1b}[31m"]);
    expect_error(&mut cmd, BAD_INPUT, &["\\u{1b}"]);

    let long = "8".repeat(100_000);
    let (mut cmd, _cache) = fiftymove_real();
    cmd.args(["probe", &long]);
    let line = expect_error(&mut cmd, BAD_INPUT, &["invalid FEN", "more characters"]);
    assert!(line.len() < 400, "{} characters", line.len());
}

#[test]
fn good_fens_with_odd_spacing_or_fields_left_out_work() {
    for fen in [
        "  8/8/8/8/8/8/8/R3K2k w - - 0 1  ",
        "8/8/8/8/8/8/8/R3K2k w - -",
        "8/8/8/8/8/8/8/R3K2k w",
        // A possible en-passant capture is kept.
        "8/8/8/3pP3/8/8/8/K6k w - d6 0 1",
        // An impossible check is counted by the generator, so accepted.
        "8/8/8/8/8/8/8/KQ1R3k b - - 0 1",
        // KvK has no table: a plain draw.
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
    ] {
        let (mut cmd, _cache) = fiftymove_real();
        cmd.args(["probe", fen]);
        expect_ok(&mut cmd);
    }
}

/// Bad materials, with fragments the message must contain.
const BAD_MATERIALS: &[(&str, &[&str])] = &[
    (
        "KRvKX",
        &["'X' is not a piece letter", "did you mean KRvK?"],
    ),
    ("KRBKR", &["separated by 'v'", "did you mean KRBvKR?"]),
    ("KRBvKRvK", &["did you mean KRBvKR?"]),
    ("KRvRR", &["exactly one king"]),
    ("KRvR", &["one king", "did you mean KRvK?"]),
    ("KKvK", &["exactly one king"]),
    ("KvK", &["KvK has no table"]),
    ("KRBvKRQQQ", &["8 pieces", "at most 7"]),
    ("KPPPPPPPPPPvK", &["12 pieces", "at most 7"]),
    ("", &["invalid material ''"]),
    ("v", &["one king"]),
    ("KQ\nvK", &["\\n"]),
];

#[test]
fn bad_materials_are_bad_input_with_a_suggestion() {
    for (material, needles) in BAD_MATERIALS {
        for args in [
            &["scan"][..],
            &["scan", "--engine", "probe"],
            &["--json", "scan"],
            &["tables"],
            &["tables", "--verify"],
            &["records"],
        ] {
            let (mut cmd, _cache) = fiftymove_real();
            cmd.args(args).arg(material);
            expect_error(&mut cmd, BAD_INPUT, needles);
        }
        let dir = tempfile::tempdir().unwrap();
        let (mut cmd, _cache) = fiftymove_real();
        cmd.arg("report")
            .arg("--out")
            .arg(dir.path().join("r"))
            .arg(material);
        expect_error(&mut cmd, BAD_INPUT, needles);
    }
    // A huge argument is answered at once (the suggestion search skips
    // names of a very different length).
    let (mut cmd, _cache) = fiftymove_real();
    cmd.args(["tables", &"K".repeat(100_000)]);
    let started = std::time::Instant::now();
    expect_error(
        &mut cmd,
        BAD_INPUT,
        &["invalid material", "more characters"],
    );
    assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());
    // One bad material among good ones is named.
    let (mut cmd, _cache) = fiftymove_real();
    cmd.args(["scan", "KRvK", "KQvKX", "KBNvK"]);
    expect_error(&mut cmd, BAD_INPUT, &["KQvKX", "did you mean KQvK"]);
}

#[test]
fn good_materials_in_odd_spellings_are_accepted() {
    let (mut cmd, _cache) = fiftymove_real();
    cmd.args(["tables", "krbvkr", "KBRvKR", "KRvKBR"]);
    let out = expect_ok(&mut cmd);
    assert!(out.contains("KRBvKR"), "{out}");
}

#[test]
fn bad_shards_are_usage_errors() {
    for shard in [
        "0/2",
        "3/2",
        "1/0",
        "0/0",
        "1",
        "a/b",
        "1/2/3",
        "/",
        "1/",
        "/2",
        "1/99999999999",
        "½",
    ] {
        let (mut cmd, _cache) = fiftymove_real();
        cmd.args(["scan", "KRvK", "--out", "/dev/null", "--shard", shard]);
        expect_error(&mut cmd, BAD_INPUT, &["--shard", "expected K/N"]);
    }
    // A negative number looks like a flag to clap.
    let (mut cmd, _cache) = fiftymove_real();
    cmd.args(["scan", "KRvK", "--out", "/dev/null", "--shard", "-1/2"]);
    expect_error(&mut cmd, BAD_INPUT, &["-1"]);
    // A shard needs somewhere to go.
    let (mut cmd, _cache) = fiftymove_real();
    cmd.args(["scan", "KRvK", "--shard", "1/2"]);
    expect_error(&mut cmd, BAD_INPUT, &["--shard needs --out"]);
}

#[test]
fn bad_and_conflicting_flags_are_usage_errors() {
    let cases: &[(&[&str], &[&str])] = &[
        (
            &[
                "--json",
                "line",
                "--format",
                "pgn",
                "8/8/8/8/8/8/8/R3K2k w - - 0 1",
            ],
            &["--json conflicts with --format pgn"],
        ),
        (
            &["line", "--format", "xml", "8/8/8/8/8/8/8/R3K2k w - - 0 1"],
            &["'xml'", "--format"],
        ),
        (
            &["scan", "KRvK", "--engine", "magic"],
            &["'magic'", "--engine"],
        ),
        (
            &["--threads", "0", "probe", "8/8/8/8/8/8/8/R3K2k w - - 0 1"],
            &["--threads must be at least 1"],
        ),
        (
            &["--memory-limit", "banana", "scan", "KRvK"],
            &["--memory-limit \"banana\"", "512M"],
        ),
        (
            &["--memory-limit", "0", "scan", "KRvK"],
            &["--memory-limit"],
        ),
        (
            &["--memory-limit", "1.5", "scan", "KRvK"],
            &["--memory-limit"],
        ),
        (
            &["--threads", "abc", "probe", "8/8/8/8/8/8/8/R3K2k w - - 0 1"],
            &["'abc'", "--threads"],
        ),
        (
            &["--threads", "-3", "probe", "8/8/8/8/8/8/8/R3K2k w - - 0 1"],
            &["-3"],
        ),
        (
            &[
                "--threads",
                "100000",
                "probe",
                "8/8/8/8/8/8/8/R3K2k w - - 0 1",
            ],
            &["--threads 100000", "at most"],
        ),
        (
            &["--frobnicate", "probe", "8/8/8/8/8/8/8/R3K2k w - - 0 1"],
            &["--frobnicate"],
        ),
        (&["bogus"], &["unrecognized subcommand 'bogus'"]),
        (&[], &["requires a subcommand"]),
        (&["probe"], &["not provided", "<FEN>"]),
        (&["line"], &["not provided", "<FEN>"]),
        (&["scan"], &["not provided", "<MATERIALS>"]),
        (&["merge"], &["not provided", "<FILES>"]),
        (
            &["probe", "8/8/8/8/8/8/8/R3K2k w - - 0 1", "extra"],
            &["unexpected argument 'extra'"],
        ),
        (
            &["-q", "-q", "probe", "8/8/8/8/8/8/8/R3K2k w - - 0 1"],
            &["--quiet", "multiple times"],
        ),
        (
            &["--tables", "", "probe", "8/8/8/8/8/8/8/R3K2k w - - 0 1"],
            &["--tables"],
        ),
        (&["report", "KRvK"], &["--out"]),
        (
            &["report", "--out", "/tmp/x", "KRvK", "--from", "a.json"],
            &["cannot be used with"],
        ),
        (
            &["claims", "no-such-claim"],
            &["unknown claim id 'no-such-claim'"],
        ),
        (&["records", "--max-pieces", "abc"], &["'abc'"]),
        (
            &["merge", "/nonexistent/shard.json"],
            &["/nonexistent/shard.json"],
        ),
    ];
    for (args, needles) in cases {
        let (mut cmd, _cache) = fiftymove_real();
        cmd.args(*args);
        expect_error(&mut cmd, BAD_INPUT, needles);
    }
}

#[test]
fn bad_merge_inputs_are_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, &[u8], &[&str])] = &[
        (
            "garbage.json",
            b"hello\n",
            &["garbage.json", "line 1", "not a scan result"],
        ),
        (
            "half.json",
            b"{\"material\": \"KRvK\", \"counting\"",
            &["half.json", "line 1"],
        ),
        ("binary.json", b"\x00\xff\xfe\n", &["binary.json"]),
    ];
    for (name, bytes, needles) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let (mut cmd, _cache) = fiftymove_real();
        cmd.arg("merge").arg(&path);
        expect_error(&mut cmd, BAD_INPUT, needles);
    }
    // A directory where a file should be.
    let (mut cmd, _cache) = fiftymove_real();
    cmd.arg("merge").arg(dir.path());
    expect_error(&mut cmd, BAD_INPUT, &["directory"]);
}

#[test]
fn help_and_version_are_not_errors() {
    for args in [
        &["--help"][..],
        &["probe", "--help"],
        &["--version"],
        &["help"],
    ] {
        let (mut cmd, _cache) = fiftymove_real();
        cmd.args(args);
        let out = expect_ok(&mut cmd);
        assert!(!out.is_empty());
    }
}

/// The bytes a refused sweep says it needs, from its error line.
fn needed_bytes(line: &str) -> u64 {
    let rest = line
        .split("needs up to ")
        .nth(1)
        .unwrap_or_else(|| panic!("no bound in {line:?}"));
    rest.split(' ').next().unwrap().parse().unwrap()
}

/// KNNvKP's closure (the 3- and 4-piece tables of its captures, the
/// 5-piece ones of its promotions) is paged below its whole bound: the
/// scan refuses only below the least plan (every closure table paged
/// within the smallest page budget), and says that plan's bytes, which
/// `scan --plan` gives too. On demand, the paged scan runs at that bound
/// and equals the whole one.
fn paged_closure_bound(run_it: bool) {
    let plan = |limit: &str| -> serde_json::Value {
        let (mut cmd, _cache) = fiftymove_real();
        let out = expect_ok(cmd.args([
            "--json",
            "--memory-limit",
            limit,
            "scan",
            "--plan",
            "KNNvKP",
        ]));
        serde_json::from_str(out.trim()).unwrap()
    };
    let whole = plan("100G");
    assert_eq!(whole["fits"], true);
    assert_eq!(whole["page_bytes"], 0);
    assert_eq!(whole["memory_bytes"], whole["whole_bytes"]);
    let least = plan("1M");
    assert_eq!(least["fits"], false);
    let needed = least["memory_bytes"].as_u64().unwrap();
    assert!(needed < whole["memory_bytes"].as_u64().unwrap(), "{least}");
    // Every table of the closure that `tables` lists is paged.
    let (mut cmd, _cache) = fiftymove_real();
    let tables = expect_ok(cmd.args(["--json", "tables", "KNNvKP"]));
    let tables: serde_json::Value = serde_json::from_str(tables.trim()).unwrap();
    let names = |list: &serde_json::Value| -> Vec<String> {
        let mut names: Vec<String> = list
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_owned())
            .filter(|n| n != "KNNvKP")
            .collect();
        names.sort_unstable();
        names
    };
    let closure = names(&tables["materials"][0]["closure"]);
    assert!(closure.len() > 10, "{tables}");
    assert_eq!(names(&least["paged_tables"]), closure);
    let (mut cmd, _cache) = fiftymove_real();
    let line = expect_error(
        cmd.args(["--memory-limit", "1M", "scan", "KNNvKP"]),
        OTHER,
        &["scan KNNvKP", "1048576 bytes"],
    );
    assert_eq!(needed_bytes(&line), needed, "{line}");
    let at = plan(&needed.to_string());
    assert_eq!(at["fits"], true, "{at}");
    assert_eq!(at["memory_bytes"].as_u64(), Some(needed), "{at}");
    if !run_it {
        return;
    }
    scan_at_limit_equals_scan_without("KNNvKP", needed);
}

/// `scan MATERIAL` under `--memory-limit limit` prints what it prints
/// without one.
fn scan_at_limit_equals_scan_without(material: &str, limit: u64) {
    let (mut cmd, _cache) = fiftymove_real();
    let at = limit.to_string();
    let limited =
        expect_ok(cmd.args(["--quiet", "--memory-limit", &at, "--json", "scan", material]));
    let (mut cmd, _cache) = fiftymove_real();
    let unlimited = expect_ok(cmd.args(["--quiet", "--json", "scan", material]));
    assert_eq!(limited, unlimited);
}

#[test]
fn a_sweep_pages_its_closure_below_its_whole_bound() {
    paged_closure_bound(false);
}

/// About a minute on 2 cores: two scans of KNNvKP.
#[test]
#[ignore = "two whole scans of KNNvKP, about a minute"]
fn a_sweep_with_its_closure_paged_equals_the_whole_sweep() {
    paged_closure_bound(true);
}

#[test]
fn a_sweep_over_its_memory_limit_refuses_to_start_and_runs_at_it() {
    // KQvKR: its own 4-piece table and the 3-piece tables of its captures.
    let (mut cmd, _cache) = fiftymove_real();
    let line = expect_error(
        cmd.args(["--memory-limit", "1M", "scan", "KQvKR"]),
        OTHER,
        &["scan KQvKR", "1048576 bytes", "--engine probe"],
    );
    let needed = needed_bytes(&line);
    // More than 1 MiB: its own table alone has 3 bytes per DTZ index (its
    // unstored side's DTZ worked out where read, at the least).
    assert!(needed > 1 << 20, "{line}");
    let (mut cmd, _cache) = fiftymove_real();
    let below = (needed - 1).to_string();
    expect_error(
        cmd.args(["--memory-limit", &below, "scan", "KQvKR"]),
        OTHER,
        &[&format!("needs up to {needed} bytes")],
    );
    scan_at_limit_equals_scan_without("KQvKR", needed);
    // The probe engine holds no tables in memory: the limit does not
    // concern it.
    let (mut cmd, _cache) = fiftymove_real();
    expect_ok(cmd.args([
        "--quiet",
        "--memory-limit",
        "1M",
        "scan",
        "KRvK",
        "--engine",
        "probe",
    ]));
}
