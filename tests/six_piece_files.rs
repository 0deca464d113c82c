//! The 6-piece Syzygy file at hand, KNN v KNN, read by fiftymove and by an
//! independent reader, python-chess (`scripts/python/syzygy_probe.py`).
//!
//! The tables are `$FIFTYMOVE_SIX_PIECE_TABLES`, else `../shared/syzygy`;
//! python-chess must be installed (`pip install chess`; `scripts/test.sh`
//! installs it). Neither missing is a skip: the test fails and says why.

mod common;

use std::{
    io::Write,
    path::PathBuf,
    process::{Command, Stdio},
};

use fiftymove::{chess::material::Material, probe::Prober, tables::Inventory, Wdl};
use rand::{rngs::StdRng, SeedableRng};
use shakmaty::{Chess, Position};
use shakmaty_syzygy::MaybeRounded;

fn six_piece_tables() -> PathBuf {
    let dir = std::env::var_os("FIFTYMOVE_SIX_PIECE_TABLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/syzygy"));
    assert!(
        dir.join("KNNvKNN.rtbz").exists(),
        "the 6-piece tests need KNNvKNN.rtbw/.rtbz in {} (set FIFTYMOVE_SIX_PIECE_TABLES)",
        dir.display()
    );
    dir
}

/// python-chess's (WDL, DTZ) of each FEN.
fn python_chess(fens: &[String]) -> Vec<(i32, i32)> {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/python/syzygy_probe.py");
    let mut child = Command::new("python3")
        .arg(&script)
        .arg(six_piece_tables())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let mut stdin = child.stdin.take().unwrap();
    let input = fens.join("\n");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "python-chess failed (pip install chess): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<(i32, i32)> = text
        .lines()
        .zip(fens)
        .map(|(line, fen)| {
            let cols: Vec<&str> = line.split('\t').collect();
            assert_eq!(cols[0], fen);
            (cols[1].parse().unwrap(), cols[2].parse().unwrap())
        })
        .collect();
    assert_eq!(rows.len(), fens.len());
    rows
}

fn syzygy_wdl(wdl: Wdl) -> i32 {
    match wdl {
        Wdl::Loss => -2,
        Wdl::BlessedLoss => -1,
        Wdl::Draw => 0,
        Wdl::CursedWin => 1,
        Wdl::Win => 2,
    }
}

/// Our exact DTZ against python-chess's: the same where shakmaty-syzygy
/// calls its value precise, else python-chess's `n` stands for `n` or
/// `n + 1` plies (Syzygy's rounding).
fn agrees(prober: &Prober, pos: &Chess, (wdl, dtz): (i32, i32), what: &str) -> bool {
    let ours_wdl = if pos.is_checkmate() {
        Wdl::Loss
    } else {
        prober.wdl(pos).unwrap()
    };
    assert_eq!(syzygy_wdl(ours_wdl), wdl, "{what}: WDL");
    let exact = prober.dtz(pos).unwrap().0;
    if pos.is_checkmate() {
        // Conventions differ here only: python-chess (like the Syzygy
        // probing code) gives a mated side -1, docs/design.md gives it 0.
        assert_eq!((exact, dtz), (0, -1), "{what}: DTZ of a mate");
        return true;
    }
    if dtz == 0 {
        assert_eq!(exact, 0, "{what}: DTZ");
        return true;
    }
    assert_eq!(exact.signum(), dtz.signum(), "{what}: DTZ sign");
    let precise = matches!(prober.raw_dtz(pos).unwrap(), MaybeRounded::Precise(_));
    if precise {
        assert_eq!(exact, dtz, "{what}: a precise DTZ");
    } else {
        assert!(
            exact.abs() == dtz.abs() || exact.abs() == dtz.abs() + 1,
            "{what}: exact {exact} is not python-chess's {dtz} or one more"
        );
    }
    exact == dtz
}

/// The generator's longest KNN v KNN wins (White and Black to move) and
/// every position of their best lines.
fn longest_wins_and_their_lines(prober: &Prober) -> Vec<Chess> {
    let mut positions = Vec::new();
    for fen in [
        "7n/8/8/8/2N5/8/4N3/knK5 w - - 0 1",
        "7N/8/8/8/N3n3/k7/n7/1K6 b - - 0 1",
    ] {
        let start = fiftymove::parse_fen(fen).unwrap();
        let line = fiftymove::best_line(prober, &start).unwrap();
        positions.push(start);
        for ply in &line.plies {
            positions.push(fiftymove::parse_fen(&ply.fen_before).unwrap());
        }
    }
    positions
}

#[test]
fn knnknn_probes_agree_with_python_chess() {
    let inv = Inventory::scan(&[six_piece_tables()]).unwrap();
    let prober = Prober::new(inv.open().unwrap());
    let material: Material = "KNNvKNN".parse().unwrap();
    let mut rng = StdRng::seed_from_u64(0x4b4e_4e4b);
    let mut positions = Vec::new();
    while positions.len() < 2000 {
        if let Some(pos) = common::random_position(&mut rng, &material) {
            positions.push(pos);
        }
    }
    // A random placement is nearly always a draw: add the generator's
    // longest wins, every position of their lines, and what one and two
    // moves from those lead to (wins, losses and draws, some captures into
    // 5 pieces); and every move's result from the first random positions.
    let near = longest_wins_and_their_lines(&prober);
    let children = |from: &[Chess]| -> Vec<Chess> {
        let mut out = Vec::new();
        for pos in from {
            for m in pos.legal_moves() {
                let mut after = pos.clone();
                after.play_unchecked(m);
                out.push(after);
            }
        }
        out
    };
    let one = children(&near);
    let two = children(&one);
    let first = children(&positions[..100]);
    positions.extend(near);
    positions.extend(one);
    positions.extend(two);
    positions.extend(first);
    let fens: Vec<String> = positions.iter().map(fiftymove::fen_of).collect();
    let theirs = python_chess(&fens);
    let (mut decisive, mut equal) = (0, 0);
    for ((pos, fen), got) in positions.iter().zip(&fens).zip(theirs) {
        equal += usize::from(agrees(&prober, pos, got, fen));
        decisive += usize::from(got.1 != 0);
    }
    eprintln!(
        "{} KNNvKNN positions agree with python-chess ({decisive} decisive, {equal} with the same DTZ)",
        positions.len()
    );
    assert!(decisive >= 500, "too few decisive positions to mean much");
}

/// Two shards of KNN v KNN from one sweep of the whole table (3.3 GB by
/// its bound) against the probe engine's same shards, byte for byte as
/// JSON: the sweep's format handling, capture resolution and counting
/// convention on a 6-piece file, in CI. From six pieces a work item fixes
/// three squares (the kings and the first knight), so a shard of one item
/// holds about a hundred thousand positions per side. The sweep still
/// decodes the whole table; the counting rules out almost every position
/// of other shards by its first squares (`Canon::shard_prefixes`).
#[test]
fn knnknn_sweep_shards_equal_the_probe_engine() {
    use fiftymove::{
        scan::{probe::scan_with_prober, sweep::scan_with_sweep_plans},
        MemoryLimit, ScanPlan, Shard,
    };
    let inv = Inventory::scan(&[six_piece_tables()]).unwrap();
    let prober = Prober::new(inv.open().unwrap());
    let material: Material = "KNNvKNN".parse().unwrap();
    // A shard is every n-th work item: with more shards than items, shard
    // k is item k - 1 alone. Two items far apart in the index space.
    let n = 65_536;
    let items = fiftymove::scan::enumerate::Enumerator::new(&material)
        .work_items()
        .len();
    assert!(items > 20_001 && items < n as usize, "{items} work items");
    let plans: Vec<ScanPlan> = [1, 20_001]
        .into_iter()
        .map(|k| ScanPlan {
            material,
            shard: Some(Shard { k, n }),
            raw: false,
            filter: None,
        })
        .collect();
    let swept = scan_with_sweep_plans(&inv, &plans, MemoryLimit::Available, &|_| {}).unwrap();
    assert_eq!(swept.len(), plans.len(), "one sweep result per plan");
    let mut decisive = 0;
    for (plan, sweep) in plans.iter().zip(&swept) {
        let probe = scan_with_prober(&prober, plan, &|_| {}).unwrap();
        assert_eq!(
            serde_json::to_string(sweep).unwrap(),
            serde_json::to_string(&probe).unwrap(),
            "shard {:?}",
            plan.shard
        );
        assert!(probe.white.positions > 0 && probe.black.positions > 0);
        decisive +=
            probe.white.wdl.win + probe.white.wdl.loss + probe.black.wdl.win + probe.black.wdl.loss;
    }
    assert!(decisive > 0, "the shards hold no decisive position");
}

/// The whole of KNN v KNN against the Syzygy generator's statistics
/// (`tests/reference/generator-stats-6-piece-sample.txt`, copied from
/// `../shared/reference/`): WDL classes, every DTZ bin, the longest
/// positions. About 6 minutes and 3.3 GB here, so on demand:
/// `cargo test --release --test six_piece_files -- --ignored`.
/// `scan --json KNNvKNN`, always swept: no saved scan stands in for it.
fn knnknn_scan_json() -> String {
    common::stdout_ok(
        common::fiftymove()
            .arg("--tables")
            .arg(six_piece_tables())
            .args(["--quiet", "--json", "scan", "KNNvKNN"]),
    )
}

#[test]
#[ignore = "a whole 6-piece sweep: about 6 minutes and 3.3 GB"]
fn knnknn_scan_matches_the_generator() {
    use fiftymove::scan::{reference as genstats, ScanStats};
    let out = knnknn_scan_json();
    let stats: ScanStats = serde_json::from_str(out.trim()).unwrap();
    let all = genstats::parse(&common::reference("generator-stats-6-piece-sample.txt")).unwrap();
    let theirs = all.iter().find(|g| g.material == "KNNvKNN").unwrap();
    let diffs = genstats::compare(&stats, theirs);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// KNN v KNN swept within 2 GB (issue 44's limit for it: its stored DTZ
/// and pass 1's WDL values read page by page, none held), against the
/// Syzygy generator's statistics, as the whole sweep above. About 2
/// minutes and 1.8 GB here, so on demand.
#[test]
#[ignore = "a whole 6-piece sweep within 2 GB: about 2 minutes"]
fn knnknn_scan_within_2_gb_matches_the_generator() {
    knnknn_scan_within_matches_the_generator("2000000000", false);
}

/// KNN v KNN swept within 1.5 GB: paged as within 2 GB, and its WDL codes
/// packed five bits each, against the generator's statistics. About 2
/// minutes and 1.3 GB here, so on demand.
#[test]
#[ignore = "a whole 6-piece sweep within 1.5 GB: about 2 minutes"]
fn knnknn_scan_within_1_5_gb_packed_matches_the_generator() {
    knnknn_scan_within_matches_the_generator("1500000000", true);
}

/// `scan KNNvKNN` within `limit` bytes, whose plan pages the stored DTZ
/// and pass 1's WDL values and packs the codes or not (`packed`), equals
/// the generator's statistics.
fn knnknn_scan_within_matches_the_generator(limit: &str, packed: bool) {
    use fiftymove::scan::{reference as genstats, ScanStats};
    let mut cmd = common::fiftymove();
    cmd.arg("--tables").arg(six_piece_tables());
    let plan = common::stdout_ok(cmd.args([
        "--json",
        "--memory-limit",
        limit,
        "scan",
        "--plan",
        "KNNvKNN",
    ]));
    let plan: serde_json::Value = serde_json::from_str(plan.trim()).unwrap();
    assert_eq!(plan["fits"], true, "{plan}");
    assert!(plan["wdl_page_bytes"].as_u64().unwrap() > 0, "{plan}");
    assert!(
        plan["stored_dtz_page_bytes"].as_u64().unwrap() > 0,
        "{plan}"
    );
    assert_eq!(plan["packed_wdl_codes"], packed, "{plan}");
    let out = common::stdout_ok(
        common::fiftymove()
            .arg("--tables")
            .arg(six_piece_tables())
            .args([
                "--quiet",
                "--json",
                "--memory-limit",
                limit,
                "scan",
                "KNNvKNN",
            ]),
    );
    let stats: ScanStats = serde_json::from_str(out.trim()).unwrap();
    let all = genstats::parse(&common::reference("generator-stats-6-piece-sample.txt")).unwrap();
    let theirs = all.iter().find(|g| g.material == "KNNvKNN").unwrap();
    let diffs = genstats::compare(&stats, theirs);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// Two engines at six pieces: the solver's own retrograde analysis of KNN v
/// KNN (`solve --rule 50`, no table file read) against the sweep of the
/// Syzygy files (`scan`), as JSON documents without the solve's engine
/// fields, and both against the Syzygy generator's statistics. Then
/// position by position: the solver's DTZ against the probe engine's exact
/// DTZ on the generator's longest wins, their lines and 2,000 random
/// positions, and the win sets nest under rules 50, 75 and none. About
/// 3.5 minutes and 8 GB per solve, 6 minutes and 3.3 GB for the scan, so
/// on demand: `cargo test --release --test six_piece_files -- --ignored`.
/// Both engines compute from nothing: the solves go to an empty temporary
/// cache, and the scan is swept.
#[test]
#[ignore = "three 6-piece solves and a sweep: about 17 minutes and 8 GB"]
fn knnknn_solve_equals_scan_and_the_generator() {
    use fiftymove::{
        scan::{reference as genstats, ScanStats},
        solve::{Cache, Metric, NoProgress, Positions, Rule, Solver},
        MemoryLimit,
    };
    use serde_json::Value;
    let temp = tempfile::tempdir().unwrap();
    let cache = temp.path().to_path_buf();
    let solved = common::stdout_ok(
        common::fiftymove()
            .arg("--cache-dir")
            .arg(&cache)
            .args(["--quiet", "--json", "solve", "KNNvKNN", "--rule", "50"]),
    );
    let scanned = knnknn_scan_json();
    let mut solved: Value = serde_json::from_str(solved.trim()).unwrap();
    let scanned: Value = serde_json::from_str(scanned.trim()).unwrap();
    let obj = solved.as_object_mut().unwrap();
    assert_eq!(obj.remove("engine"), Some(Value::from("solve")));
    assert_eq!(obj.remove("rule"), Some(Value::from(50)));
    assert_eq!(obj.remove("metric"), Some(Value::from("dtz")));
    assert_eq!(solved, scanned, "solve and scan of KNNvKNN");
    let stats: ScanStats = serde_json::from_value(solved).unwrap();
    let all = genstats::parse(&common::reference("generator-stats-6-piece-sample.txt")).unwrap();
    let theirs = all.iter().find(|g| g.material == "KNNvKNN").unwrap();
    let diffs = genstats::compare(&stats, theirs);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));

    // Position by position, from the cached solves.
    let inv = Inventory::scan(&[six_piece_tables()]).unwrap();
    let prober = Prober::new(inv.open().unwrap());
    let material: Material = "KNNvKNN".parse().unwrap();
    let mut rng = StdRng::seed_from_u64(0x6b6e_6e6b);
    let mut positions = longest_wins_and_their_lines(&prober);
    while positions.len() < 2_000 {
        if let Some(pos) = common::random_position(&mut rng, &material) {
            positions.push(pos);
        }
    }
    let solver = Solver::new(Some(Cache::new(&cache)), MemoryLimit::Available);
    let fifty = Positions::new(&solver, Rule::FIFTY, Metric::Dtz, &NoProgress).unwrap();
    for pos in &positions {
        let fen = shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal);
        let v50 = fifty.value(pos).unwrap();
        let probed = (prober.wdl(pos).unwrap(), prober.dtz(pos).unwrap().0);
        assert_eq!((v50.wdl, v50.depth), probed, "{fen}: rule 50");
    }
    let decisive = win_sets_nest(
        &solver,
        &positions,
        &[Rule::FIFTY, Rule::Moves(75), Rule::None],
    );
    assert!(decisive > 20, "{decisive} decisive positions");
}

/// Checks, position by position, that the win sets nest under `rules`
/// (shortest limit first): a win under one rule is a win (or, past the
/// 50-move limit, a cursed win never) under every longer one, and a loss
/// stays a loss. Returns how many positions were decisive under the first.
fn win_sets_nest(
    solver: &fiftymove::solve::Solver,
    positions: &[Chess],
    rules: &[fiftymove::solve::Rule],
) -> u32 {
    use fiftymove::solve::{Metric, NoProgress, Positions};
    let under: Vec<Positions<'_>> = rules
        .iter()
        .map(|&r| Positions::new(solver, r, Metric::Dtz, &NoProgress).unwrap())
        .collect();
    let mut decisive = 0;
    for pos in positions {
        let fen = shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal);
        let values: Vec<Wdl> = under.iter().map(|p| p.value(pos).unwrap().wdl).collect();
        for (i, pair) in values.windows(2).enumerate() {
            let (shorter, longer) = (rules[i], rules[i + 1]);
            if pair[0] == Wdl::Win {
                assert_eq!(
                    pair[1],
                    Wdl::Win,
                    "{fen}: won under {shorter}, not under {longer}"
                );
            }
            if pair[0] == Wdl::Loss {
                assert_eq!(
                    pair[1],
                    Wdl::Loss,
                    "{fen}: lost under {shorter}, not under {longer}"
                );
            }
        }
        decisive += u32::from(matches!(values[0], Wdl::Win | Wdl::Loss));
    }
    decisive
}

/// The win sets of KRN v KNN nest under the 50-move rule and none, on 5,000
/// random positions and the longest win: from two cached solves of
/// about 38 minutes and 15.6 GB each, so on demand and only from a cache
/// that holds both (`FIFTYMOVE_SIX_PIECE_CACHE=DIR`, made by `solve --rule
/// 50 KRNvKNN` and `solve --rule none KRNvKNN` with `--cache-dir DIR`); the
/// test fails, and says so, without them.
#[test]
#[ignore = "needs two cached 6-piece solves of KRNvKNN (38 minutes and 15.6 GB each)"]
fn krnknn_win_sets_nest_from_cached_solves() {
    // Stiller's longest KRN v KNN win (485 plies to conversion).
    win_sets_nest_from_cached_solves(
        "KRNvKNN",
        "6k1/5n2/8/8/8/5n2/1RK5/1N6 w - - 0 1",
        0x6b72_6e6b,
    );
}

/// As [`krnknn_win_sets_nest_from_cached_solves`], for KRB v KNN (two
/// solves of about an hour and 15.6 GB each).
#[test]
#[ignore = "needs two cached 6-piece solves of KRBvKNN (an hour and 15.6 GB each)"]
fn krbknn_win_sets_nest_from_cached_solves() {
    // Stiller's longest KRB v KNN win (445 plies to conversion).
    win_sets_nest_from_cached_solves(
        "KRBvKNN",
        "8/8/8/8/2n2k2/2n5/5BR1/1K6 w - - 0 1",
        0x6b72_626b,
    );
}

/// Checks that the win sets of `material` nest under the 50-move rule and
/// none on `longest` and 4,999 random positions, from the cached solves in
/// `FIFTYMOVE_SIX_PIECE_CACHE`.
fn win_sets_nest_from_cached_solves(material: &str, longest: &str, seed: u64) {
    use fiftymove::{
        solve::{Cache, Metric, Rule, Solver},
        MemoryLimit,
    };
    let cache = PathBuf::from(
        std::env::var_os("FIFTYMOVE_SIX_PIECE_CACHE").unwrap_or_else(|| {
            panic!(
                "FIFTYMOVE_SIX_PIECE_CACHE: a cache with {material} solved under rules 50 and none"
            )
        }),
    );
    for rule in [Rule::FIFTY, Rule::None] {
        let file = cache.join(Cache::file_name(material, rule, Metric::Dtz));
        assert!(file.exists(), "{} is not there", file.display());
    }
    let parsed: Material = material.parse().unwrap();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut positions = vec![fiftymove::parse_fen(longest).unwrap()];
    while positions.len() < 5_000 {
        if let Some(pos) = common::random_position(&mut rng, &parsed) {
            positions.push(pos);
        }
    }
    let solver = Solver::new(Some(Cache::new(&cache)), MemoryLimit::Available);
    let decisive = win_sets_nest(&solver, &positions, &[Rule::FIFTY, Rule::None]);
    assert!(decisive > 1_000, "{decisive} decisive positions");
}
