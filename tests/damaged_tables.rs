//! Tables that are missing, damaged, misnamed or unreadable, made as copies
//! of the real tables in temp directories: every command ends in exit code 3
//! with one `error:` line naming the file, never in a panic or in a
//! plausible-looking number.

mod common;
mod hostile_common;

use std::{fs, os::unix::fs::PermissionsExt, process::Command};

use fiftymove::{
    chess::material::Material, chess::position::parse_fen, error::EXIT_TABLES, probe::best_line,
    probe::Prober, tables::Verification, Error,
};
use hostile_common::{expect_error, expect_ok, ScratchTables, BAD_INPUT, OK, TABLES};
use shakmaty::{Chess, Color, Piece, Setup, Square};

const KRVK: &str = "8/8/8/8/8/8/8/R3K2k w - - 0 1";
const KQVKR: &str = "4k3/r7/8/8/8/8/8/Q3K3 w - - 0 1";
/// A KQPvKQ position whose best line goes through KQPvK into KQBvK.
const KQPVKQ: &str = "8/8/7k/8/8/2P5/8/KQ4q1 w - - 0 1";

fn probe(tables: &ScratchTables, fen: &str) -> Command {
    let mut cmd = tables.fiftymove();
    cmd.args(["probe", fen]);
    cmd
}

// --- missing tables ------------------------------------------------------------

#[test]
fn a_missing_table_is_named_by_every_command() {
    let tables = ScratchTables::with_filter(|name| name != "KRvK.rtbz");
    expect_error(&mut probe(&tables, KRVK), TABLES, &["KRvK.rtbz", "missing"]);
    let mut line = tables.fiftymove();
    line.args(["line", KRVK]);
    expect_error(&mut line, TABLES, &["KRvK.rtbz", "missing"]);
    let mut scan = tables.fiftymove();
    scan.args(["scan", "KRvK"]);
    expect_error(&mut scan, TABLES, &["KRvK.rtbz", "missing"]);
    let mut t = tables.fiftymove();
    t.args(["tables", "KRvK"]);
    expect_error(&mut t, TABLES, &["KRvK.rtbz", "missing"]);
}

#[test]
fn an_empty_table_directory_names_the_files() {
    let tables = ScratchTables::with_filter(|_| false);
    expect_error(
        &mut probe(&tables, KRVK),
        TABLES,
        &["KRvK.rtbw", "KRvK.rtbz", "install-tables.sh"],
    );
}

/// The tables a line visits after its first phase, as Syzygy names them.
fn later_tables(fen: &str) -> Vec<String> {
    let line = best_line(&common::prober(), &parse_fen(fen).unwrap()).unwrap();
    let first = &line.phases[0].material;
    let mut later: Vec<String> = line
        .phases
        .iter()
        .filter(|p| &p.material != first)
        .map(|p| p.material.parse::<Material>().unwrap().table_name())
        .collect();
    later.dedup();
    later
}

#[test]
fn a_dependency_missing_mid_line_is_named_up_front() {
    // The line leaves KQPvKQ; take away a table it reaches later.
    let later = later_tables(KQPVKQ);
    let gone = later.last().expect("the line changes material").clone();
    let tables = ScratchTables::with_filter(|name| !name.starts_with(&format!("{gone}.")));
    let mut line = tables.fiftymove();
    line.args(["line", KQPVKQ]);
    expect_error(
        &mut line,
        TABLES,
        &[&format!("{gone}.rtbw"), &format!("{gone}.rtbz"), "KQPvKQ"],
    );
    // KQQvKQ, a promotion away, is checked as well, though this line never
    // goes there.
    let tables = ScratchTables::with_filter(|name| !name.starts_with("KQQvKQ."));
    let mut line = tables.fiftymove();
    line.args(["line", KQPVKQ]);
    expect_error(&mut line, TABLES, &["KQQvKQ.rtbw", "KQQvKQ.rtbz"]);
    expect_error(&mut probe(&tables, KQPVKQ), TABLES, &["KQQvKQ.rtbw"]);
}

#[test]
fn a_dependency_missing_mid_line_is_named_without_the_up_front_check() {
    // A library user who skips `Inventory::require`: the walk still stops
    // with the missing file's name when it gets there, not with a number.
    let later = later_tables(KQPVKQ);
    let gone = later.last().unwrap().clone();
    let tables = ScratchTables::with_filter(|name| !name.starts_with(&format!("{gone}.")));
    let err = best_line(&tables.prober_unchecked(), &parse_fen(KQPVKQ).unwrap())
        .expect_err("the line needs the missing table");
    assert_eq!(err.exit_code(), EXIT_TABLES, "{err}");
    match &err {
        Error::MissingTables { files, .. } => assert!(
            files
                .iter()
                .any(|f| *f == format!("{gone}.rtbw") || *f == format!("{gone}.rtbz")),
            "{err}"
        ),
        other => panic!("expected a missing table, got {other}"),
    }
    // And `require` itself catches it first.
    let m: Material = "KQPvKQ".parse().unwrap();
    let err = tables.inventory().require(&m, "KQPvKQ").unwrap_err();
    assert!(err.to_string().contains(&format!("{gone}.rtbw")), "{err}");
}

// --- damaged files: the up-front checks ----------------------------------------------

#[test]
fn truncated_and_empty_files_are_refused_by_size() {
    for (len, what) in [
        (0usize, "0 bytes"),
        (100, "100 bytes"),
        (4000, "4000 bytes"),
    ] {
        let tables = ScratchTables::new();
        let path = tables.damage("KRvK.rtbz", |b| b.truncate(len));
        let line = expect_error(&mut probe(&tables, KRVK), TABLES, &[what, "truncated"]);
        assert!(line.contains(&path.display().to_string()), "{line}");
    }
}

#[test]
fn a_wrong_magic_is_refused() {
    let tables = ScratchTables::new();
    let path = tables.damage("KRvK.rtbw", |b| b[..4].copy_from_slice(b"\0\0\0\0"));
    let name = path.display().to_string();
    // The md5 check sees it before any read.
    expect_error(&mut probe(&tables, KRVK), TABLES, &[&name, "md5"]);
    // Without it, the read refuses the magic: still exit 3, still named.
    let mut cmd = probe(&tables, KRVK);
    cmd.arg("--no-verify");
    expect_error(&mut cmd, TABLES, &["KRvK.rtbw", "magic"]);
    // The sweep engine's own decoder refuses it the same way.
    let mut cmd = tables.fiftymove();
    cmd.args(["--no-verify", "scan", "KRvK"]);
    let line = expect_error(&mut cmd, TABLES, &[&name, "magic"]);
    assert!(!line.contains("table table"), "{line}");
}

#[test]
fn a_table_under_another_name_is_refused() {
    // KRPvK.rtbz has exactly the official size of KRvKR.rtbw, so only the
    // md5 (and, without it, the header) can tell.
    let tables = ScratchTables::new();
    let path = tables.put("KRvKR.rtbw", &ScratchTables::real_bytes("KRPvK.rtbz"));
    let fen = "4k3/r7/8/8/8/8/8/R3K3 w - - 0 1";
    expect_error(
        &mut probe(&tables, fen),
        TABLES,
        &[&path.display().to_string(), "md5", "another table"],
    );
    let mut cmd = probe(&tables, fen);
    cmd.arg("--no-verify");
    expect_error(&mut cmd, TABLES, &["KRvKR.rtbw"]);

    // Same kind, same size (both 80-byte WDL files): KNvK.rtbw as KBvK.rtbw.
    let tables = ScratchTables::new();
    tables.put("KBvK.rtbw", &ScratchTables::real_bytes("KNvK.rtbw"));
    let fen = "4k3/8/8/8/8/8/8/3BK3 w - - 0 1";
    expect_error(&mut probe(&tables, fen), TABLES, &["KBvK.rtbw", "md5"]);
    let mut cmd = probe(&tables, fen);
    cmd.arg("--no-verify");
    expect_error(&mut cmd, TABLES, &["KBvK.rtbw"]);
}

#[test]
fn a_flipped_byte_inside_the_data_is_caught_by_the_md5() {
    // Same size, same header: a read may well decode it to a wrong but
    // plausible value. The md5 check refuses it before any probe.
    let tables = ScratchTables::new();
    let path = tables.damage("KQvKR.rtbw", |b| {
        let mid = b.len() / 2;
        b[mid] ^= 0x5a;
    });
    let line = expect_error(&mut probe(&tables, KQVKR), TABLES, &["md5", "re-install"]);
    assert!(line.contains(&path.display().to_string()), "{line}");
    // Any command that needs the file: a dependency of KQRvKR's line, too.
    let mut cmd = tables.fiftymove();
    cmd.args(["line", "4k3/r7/8/8/8/8/8/QR2K3 w - - 0 1"]);
    expect_error(&mut cmd, TABLES, &["KQvKR.rtbw", "md5"]);
    let mut cmd = tables.fiftymove();
    cmd.args(["scan", "KQvKR"]);
    expect_error(&mut cmd, TABLES, &["KQvKR.rtbw", "md5"]);
    // The claims, records and report commands refuse it too.
    let mut cmd = tables.fiftymove();
    cmd.args(["records", "KQvKR"]);
    expect_error(&mut cmd, TABLES, &["KQvKR.rtbw", "md5"]);
    let report = tempfile::tempdir().unwrap();
    let mut cmd = tables.fiftymove();
    cmd.arg("report")
        .arg("--out")
        .arg(report.path().join("r"))
        .arg("KQvKR");
    expect_error(&mut cmd, TABLES, &["KQvKR.rtbw", "md5"]);
    assert!(!report.path().join("r").exists());
    let mut cmd = tables.fiftymove();
    cmd.arg("claims");
    expect_error(&mut cmd, TABLES, &["KQvKR.rtbw", "md5"]);
    // A material that does not need the file is not held up by it.
    expect_ok(&mut probe(&tables, KRVK));
}

#[test]
fn several_damaged_files_are_all_named() {
    let tables = ScratchTables::new();
    tables.damage("KQvK.rtbz", |b| b[100] ^= 1);
    tables.damage("KRvK.rtbz", |b| b[100] ^= 1);
    let mut cmd = tables.fiftymove();
    cmd.args(["probe", "4k3/r7/8/8/8/8/8/QR2K3 w - - 0 1"]);
    expect_error(&mut cmd, TABLES, &["KQvK.rtbz", "KRvK.rtbz", "2 files"]);
}

#[test]
fn the_md5_cache_notices_a_file_rewritten_in_place() {
    let tables = ScratchTables::new();
    let path = tables.put("KRvK.rtbz", &ScratchTables::real_bytes("KRvK.rtbz"));
    expect_ok(&mut probe(&tables, KRVK));
    let cache = fs::read_to_string(tables.cache_dir().join("verified-md5.tsv")).unwrap();
    assert!(cache.contains("KRvK.rtbz"), "{cache}");
    // Damage the file in place, same size, and put its mtime back: the
    // ctime still changes, so the cached verdict no longer applies.
    let mtime = fs::metadata(&path).unwrap().modified().unwrap();
    let mut bytes = fs::read(&path).unwrap();
    bytes[5000] ^= 0x10;
    let file = fs::OpenOptions::new().write(true).open(&path).unwrap();
    std::os::unix::fs::FileExt::write_all_at(&file, &bytes[5000..5001], 5000).unwrap();
    file.set_modified(mtime).unwrap();
    drop(file);
    expect_error(&mut probe(&tables, KRVK), TABLES, &["KRvK.rtbz", "md5"]);
}

#[test]
fn a_garbled_md5_cache_is_ignored() {
    let tables = ScratchTables::new();
    fs::write(
        tables.cache_dir().join("verified-md5.tsv"),
        "garbage\n\u{0}\u{1}\tx\t\n0123\t1\t2\n",
    )
    .unwrap();
    tables.damage("KRvK.rtbw", |b| b[100] ^= 1);
    expect_error(&mut probe(&tables, KRVK), TABLES, &["KRvK.rtbw", "md5"]);
}

#[test]
fn a_file_that_is_not_a_regular_file_is_named() {
    let tables = ScratchTables::new();
    tables.remove("KRvK.rtbw");
    fs::create_dir(tables.file("KRvK.rtbw")).unwrap();
    expect_error(
        &mut probe(&tables, KRVK),
        TABLES,
        &["KRvK.rtbw", "not a regular file"],
    );

    let tables = ScratchTables::new();
    tables.remove("KRvK.rtbw");
    std::os::unix::fs::symlink("/nonexistent/KRvK.rtbw", tables.file("KRvK.rtbw")).unwrap();
    expect_error(
        &mut probe(&tables, KRVK),
        TABLES,
        &["KRvK.rtbw", "cannot be read"],
    );
}

#[test]
fn unreadable_files_and_directories() {
    let tables = ScratchTables::new();
    let path = tables.put("KRvK.rtbw", &ScratchTables::real_bytes("KRvK.rtbw"));
    fs::set_permissions(&path, fs::Permissions::from_mode(0o000)).unwrap();
    if fs::read(&path).is_err() {
        // Not root: the permission bits apply.
        expect_error(
            &mut probe(&tables, KRVK),
            TABLES,
            &["KRvK.rtbw", "ermission denied"],
        );
    } else {
        // Root reads anything: the run must simply work.
        expect_ok(&mut probe(&tables, KRVK));
    }

    let dir = tempfile::tempdir().unwrap();
    let locked = dir.path().join("locked");
    fs::create_dir(&locked).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fiftymove"));
    cmd.arg("--tables").arg(&locked).args(["probe", KRVK]);
    if fs::read_dir(&locked).is_err() {
        expect_error(&mut cmd, TABLES, &["locked", "ermission denied"]);
    } else {
        expect_error(&mut cmd, TABLES, &["KRvK.rtbw", "missing"]);
    }
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();

    // Root ignores the mode bits above, so this part cannot depend on them:
    // a link to itself can be opened by no one (ELOOP), as a table file and
    // as a table directory. The binary reports the system's own reason.
    let tables = ScratchTables::new();
    let path = tables.file("KRvK.rtbw");
    tables.remove("KRvK.rtbw");
    std::os::unix::fs::symlink("KRvK.rtbw", &path).unwrap();
    let reason = fs::File::open(&path).expect_err("a link to itself cannot be opened");
    let line = expect_error(&mut probe(&tables, KRVK), TABLES, &["KRvK.rtbw"]);
    assert_eq!(
        line,
        format!("error: table {}: cannot be read: {reason}", path.display())
    );
    let looped = dir.path().join("looped");
    std::os::unix::fs::symlink("looped", &looped).unwrap();
    let reason = fs::read_dir(&looped).expect_err("a link to itself cannot be listed");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fiftymove"));
    cmd.arg("--tables").arg(&looped).args(["probe", KRVK]);
    let line = expect_error(&mut cmd, TABLES, &["looped"]);
    assert_eq!(
        line,
        format!("error: table directory {}: {reason}", looped.display())
    );

    // A "directory" that is a file.
    let file = dir.path().join("not-a-dir");
    fs::write(&file, "x").unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fiftymove"));
    cmd.arg("--tables").arg(&file).args(["probe", KRVK]);
    expect_error(&mut cmd, TABLES, &["not-a-dir", "ot a directory"]);
}

#[test]
fn syzygy_path_entries_that_are_missing_or_empty() {
    let real = common::tables_dir();
    let run = |syzygy_path: &str| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_fiftymove"));
        cmd.env("SYZYGY_PATH", syzygy_path)
            .env(
                "FIFTYMOVE_CACHE_DIR",
                std::env::temp_dir().join("fiftymove-test-cache"),
            )
            .current_dir(std::env::temp_dir())
            .args(["probe", KRVK]);
        cmd
    };
    // Empty entries are skipped.
    expect_ok(&mut run(&format!("::{}:", real.display())));
    // A missing entry is named, even after a good one.
    expect_error(
        &mut run(&format!("{}:/nonexistent/syzygy", real.display())),
        TABLES,
        &["/nonexistent/syzygy", "does not exist"],
    );
    // Nothing but empty entries: the default directory, which is not here.
    expect_error(&mut run(":"), TABLES, &["data/syzygy", "does not exist"]);
    expect_error(&mut run(""), TABLES, &["data/syzygy", "does not exist"]);
}

#[test]
fn a_damaged_file_that_is_not_needed_does_not_stop_the_work() {
    // A half-downloaded directory: KQvK.rtbw cut short, KRvK intact.
    let tables = ScratchTables::new();
    tables.damage("KQvK.rtbw", |b| b.truncate(10));
    tables.damage("KBvK.rtbw", |b| b.clear());
    let out = expect_ok(&mut probe(&tables, KRVK));
    assert!(out.contains("KRvK"), "{out}");
    let mut cmd = tables.fiftymove();
    cmd.args(["probe", "4k3/8/8/8/8/8/8/3QK3 w - - 0 1"]);
    expect_error(&mut cmd, TABLES, &["KQvK.rtbw", "10 bytes"]);
}

#[test]
fn misspelt_file_names_do_not_shadow_real_tables() {
    // shakmaty-syzygy would file KvKR.rtbw and KRvk.rtbw under KRvK; they
    // must neither replace the real (verified) file nor stop the run.
    let tables = ScratchTables::new();
    tables.put("KvKR.rtbw", &[0u8; 208]);
    tables.put("krvk.rtbz", &[0u8; 7632]);
    let mut cmd = probe(&tables, KRVK);
    cmd.arg("--json");
    let out = expect_ok(&mut cmd);
    assert!(out.contains("\"wdl\":\"win\""), "{out}");
}

// --- tables --verify ---------------------------------------------------------------

#[test]
fn tables_verify_tells_damaged_files_from_healthy_ones() {
    let tables =
        ScratchTables::with_filter(|name| name.starts_with("KRvK") || name.starts_with("KQvK."));
    tables.damage("KRvK.rtbz", |b| b[1000] ^= 0xff);
    tables.damage("KQvK.rtbz", |b| b.truncate(64 * 10 + 16));
    let mut cmd = tables.fiftymove();
    cmd.args(["tables", "--verify", "--json"]);
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(TABLES));
    let stderr = String::from_utf8(out.stderr).unwrap();
    hostile_common::assert_one_error_line(&stderr, "tables --verify");
    assert!(
        stderr.contains("KRvK.rtbz") && stderr.contains("KQvK.rtbz"),
        "{stderr}"
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let status = |file: &str| {
        report["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["file"] == file)
            .unwrap_or_else(|| panic!("{file} listed"))["status"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(status("KRvK.rtbw"), "ok");
    assert_eq!(status("KQvK.rtbw"), "ok");
    assert!(
        status("KRvK.rtbz").starts_with("DAMAGED: md5"),
        "{}",
        status("KRvK.rtbz")
    );
    assert!(
        status("KQvK.rtbz").contains("656 bytes"),
        "{}",
        status("KQvK.rtbz")
    );

    // The library's verdicts, for the record.
    assert_eq!(
        fiftymove::tables::verify_file("KRvK.rtbw", &tables.file("KRvK.rtbw")),
        Verification::Ok
    );
    assert!(matches!(
        fiftymove::tables::verify_file("KRvK.rtbz", &tables.file("KRvK.rtbz")),
        Verification::WrongMd5 { .. }
    ));
}

#[test]
fn tables_verify_passes_on_the_real_tables() {
    let (mut cmd, _cache) = hostile_common::fiftymove_real();
    cmd.args(["tables", "--verify", "KRBvKR"]);
    let out = expect_ok(&mut cmd);
    assert!(!out.contains("DAMAGED"), "{out}");
}

// --- reading damaged files without the up-front checks ---------------------------

/// Positions of `material` (White = first side), a sample of every
/// `stride`-th placement with each side to move.
fn sample_positions(material: &str, stride: usize) -> Vec<Chess> {
    let m: Material = material.parse().unwrap();
    let pieces: Vec<Piece> = m.pieces();
    let mut out = Vec::new();
    let mut counter = 0usize;
    let total = 64usize.pow(pieces.len() as u32);
    let mut idx = 0usize;
    while idx < total {
        let mut setup = Setup::empty();
        let mut rest = idx;
        let mut ok = true;
        for piece in &pieces {
            let sq = Square::new((rest % 64) as u32);
            rest /= 64;
            if setup.board.piece_at(sq).is_some() {
                ok = false;
                break;
            }
            setup.board.set_piece_at(sq, *piece);
        }
        if ok {
            for turn in Color::ALL {
                setup.turn = turn;
                if let Ok(pos) = setup
                    .clone()
                    .position::<Chess>(shakmaty::CastlingMode::Standard)
                {
                    out.push(pos);
                }
            }
        }
        counter += 1;
        idx = counter * stride + counter % 7;
    }
    out
}

/// What a prober over damaged tables answered for a sample of positions.
#[derive(Debug, Default, PartialEq, Eq)]
struct Answers {
    /// Answers that were values.
    values: usize,
    /// Answers that were exit-code-3 errors.
    errors: usize,
    /// WDL values that differ from the real tables'.
    wrong_wdl: usize,
    /// DTZ values that differ from the real tables'.
    wrong_dtz: usize,
    /// Of those, DTZ values whose sign differs too: a win given as a loss
    /// or a draw, or the other way round.
    wrong_dtz_sign: usize,
}

/// Probes every position with a prober over damaged tables: each answer
/// is a value or an exit-code-3 error, and nothing panics. Counts the
/// values, the errors, and the values that differ from the real tables'
/// (`truth`: WDL and DTZ of each position).
fn probe_all(prober: &Prober, truth: &[(i32, i32)], positions: &[Chess]) -> Answers {
    assert_eq!(truth.len(), positions.len());
    let mut n = Answers::default();
    let error = |e: Error| {
        assert_eq!(e.exit_code(), EXIT_TABLES, "{e}");
        assert!(!e.to_string().contains('\n'));
    };
    for (pos, &(real_wdl, real_dtz)) in positions.iter().zip(truth) {
        match prober.wdl(pos) {
            Ok(w) => {
                n.values += 1;
                n.wrong_wdl += usize::from(w as i32 != real_wdl);
            }
            Err(e) => {
                error(e);
                n.errors += 1;
            }
        }
        match prober.dtz(pos).map(|d| d.0) {
            Ok(d) => {
                n.values += 1;
                n.wrong_dtz += usize::from(d != real_dtz);
                n.wrong_dtz_sign += usize::from(d.signum() != real_dtz.signum());
            }
            Err(e) => {
                error(e);
                n.errors += 1;
            }
        }
    }
    n
}

#[test]
fn damaged_files_read_without_checks_give_errors_not_panics() {
    use rand::{Rng, SeedableRng};
    const FLIPPED: &str = "64 flipped bytes";
    /// The most wrong answers 64 flipped bytes may cause in the sample (511
    /// seen, all in the DTZ file's case).
    const MAX_WRONG_FLIPPED: usize = 600;
    let positions = sample_positions("KQvKR", 4999);
    assert!(positions.len() > 1000, "{}", positions.len());
    let real = common::prober();
    let truth: Vec<(i32, i32)> = positions
        .iter()
        .map(|pos| (real.wdl(pos).unwrap() as i32, real.dtz(pos).unwrap().0))
        .collect();
    let mut rng = rand::rngs::StdRng::seed_from_u64(6);
    for file in ["KQvKR.rtbw", "KQvKR.rtbz"] {
        let real = ScratchTables::real_bytes(file);
        let damages: Vec<(String, Vec<u8>)> = vec![
            ("wrong magic".into(), {
                let mut b = real.clone();
                b[0] ^= 0xff;
                b
            }),
            ("zeroed header".into(), {
                let mut b = real.clone();
                b[4..64].fill(0);
                b
            }),
            ("ones in the header".into(), {
                let mut b = real.clone();
                b[4..256].fill(0xff);
                b
            }),
            ("cut by 64 bytes (a size shakmaty accepts)".into(), {
                let mut b = real.clone();
                b.truncate(b.len() - 64);
                b
            }),
            ("cut to a header".into(), {
                let mut b = real.clone();
                b.truncate(64 * 3 + 16);
                b
            }),
            ("random bytes".into(), {
                let mut b = real.clone();
                rng.fill(&mut b[..]);
                b
            }),
            (FLIPPED.into(), {
                let mut b = real.clone();
                for _ in 0..64 {
                    let i = rng.gen_range(0..b.len());
                    b[i] ^= rng.gen::<u8>() | 1;
                }
                b
            }),
        ];
        for (what, bytes) in damages {
            let tables = ScratchTables::new();
            tables.put(file, &bytes);
            let n = probe_all(&tables.prober_unchecked(), &truth, &positions);
            eprintln!("{file}, {what}: {n:?}");
            assert_eq!(n.values + n.errors, 2 * positions.len(), "{file}, {what}");
            if what == FLIPPED {
                // Flipped bytes in the compressed data decode to other
                // values: no reader can tell, the md5 check can (below).
                // They stay plausible: the DTZ sign comes from the WDL file,
                // so damage to the DTZ file alone never turns a win into a
                // loss or a draw, and never touches a WDL answer. With this
                // seed, 511 DTZ answers of 3953 are wrong (the flips hit the
                // data of the blocks those positions decode from) and the
                // WDL file's flips hit its header, so it is refused whole.
                assert!(
                    n.wrong_wdl + n.wrong_dtz <= MAX_WRONG_FLIPPED,
                    "{file}, {what}: {n:?}"
                );
                if file.ends_with(".rtbz") {
                    assert!(n.wrong_dtz > 0, "{file}, {what}: {n:?}");
                    assert_eq!(
                        (n.wrong_wdl, n.wrong_dtz_sign),
                        (0, 0),
                        "{file}, {what}: {n:?}"
                    );
                }
            } else {
                // The reader refuses the file (its magic or header is
                // wrong), or every byte it reads is a real one (a cut file:
                // a read past the end fails): never a wrong value. And the
                // damage shows: some probe of the sample fails.
                assert_eq!(
                    (n.wrong_wdl, n.wrong_dtz),
                    (0, 0),
                    "{file}, {what}: wrong values from a damaged file: {n:?}"
                );
                assert!(n.errors > 0, "{file}, {what}: {n:?}");
            }
            expect_error(&mut probe(&tables, KQVKR), TABLES, &[file]);
        }
    }
}

#[test]
fn a_panic_while_reading_tables_becomes_an_exit_3_error() {
    // Whatever shakmaty-syzygy does with bytes it does not expect, a panic
    // inside table reading is reported as a damaged table.
    let err = fiftymove::error::guard_table_read(
        || "KQvK.rtbw".to_owned(),
        || -> fiftymove::Result<()> {
            panic!("index out of bounds: the len is 3 but the index is 7")
        },
    )
    .unwrap_err();
    assert_eq!(err.exit_code(), EXIT_TABLES);
    let text = err.to_string();
    assert!(
        text.starts_with("table KQvK.rtbw: reading it failed (index out of bounds"),
        "{text}"
    );
    assert!(!fiftymove::error::reading_tables());
    // Nested guards unwind to the innermost one, then carry on.
    let outer = fiftymove::error::guard_table_read(
        || "outer".to_owned(),
        || {
            let inner = fiftymove::error::guard_table_read(
                || "inner".to_owned(),
                || -> fiftymove::Result<()> { panic!("inner") },
            );
            assert!(fiftymove::error::reading_tables());
            inner
        },
    );
    assert!(outer.unwrap_err().to_string().starts_with("table inner:"));
}

// --- the open-file limit ------------------------------------------------------------

/// Runs the binary under `ulimit -n limit`.
fn with_fd_limit(tables: &ScratchTables, limit: u32, args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(format!("ulimit -n {limit} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_fiftymove"))
        .arg("--tables")
        .arg(tables.path())
        .args(args)
        .env_remove("SYZYGY_PATH")
        .env("FIFTYMOVE_CACHE_DIR", tables.cache_dir());
    cmd.output().expect("bash runs")
}

#[test]
fn a_low_open_file_limit_is_enough_or_a_clean_error() {
    // KQPvKQ's closure has 20 tables (40 files), the directory over 100; a
    // mapped table keeps no descriptor open, and the md5 check hashes at
    // most four files at once, so 10 descriptors are plenty.
    let tables = ScratchTables::new();
    let closure = "KQPvKQ".parse::<Material>().unwrap().closure_files();
    assert!(closure.len() >= 40, "{}", closure.len());
    for args in [
        &["--threads", "2", "line", KQPVKQ][..],
        &["probe", KQPVKQ],
        &["tables", "--verify"],
        &[
            "scan",
            "KQvKR",
            "--engine",
            "probe",
            "--shard",
            "1/64",
            "--out",
            "/dev/null",
        ],
    ] {
        let out = with_fd_limit(&tables, 10, args);
        assert_eq!(
            out.status.code(),
            Some(OK),
            "{args:?} under ulimit -n 10: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // With almost no descriptors, a clean exit-3 error that says why.
    let tables = ScratchTables::new();
    let out = with_fd_limit(&tables, 4, &["--threads", "2", "line", KQPVKQ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    match out.status.code() {
        Some(OK) => {}
        Some(TABLES) => {
            hostile_common::assert_one_error_line(&stderr, "ulimit -n 4");
            assert!(
                stderr.contains("open files") && stderr.contains("ulimit -n"),
                "{stderr}"
            );
        }
        other => panic!("ulimit -n 4: exit {other:?}: {stderr}"),
    }
}

// --- a table file swapped for another kind of input ------------------------------------

#[test]
fn a_bad_material_argument_is_bad_input_even_without_tables() {
    let tables = ScratchTables::with_filter(|_| false);
    let mut cmd = tables.fiftymove();
    cmd.args(["tables", "KRvKX"]);
    expect_error(&mut cmd, BAD_INPUT, &["KRvKX", "did you mean KRvK"]);
}
