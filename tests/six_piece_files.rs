//! The 6-piece Syzygy files at hand, KNN v KNN and KBN v KBN (whose cursed
//! wins last up to 109 plies), read by fiftymove and by an independent
//! reader, python-chess (`scripts/python/syzygy_probe.py`), and swept whole
//! against the Syzygy generator's statistics.
//!
//! The tables are `$FIFTYMOVE_SIX_PIECE_TABLES`, else the test tables
//! (`data/syzygy`: `data/tables.txt` lists both with their closures, so
//! `scripts/install-tables.sh` installs them); python-chess must be
//! installed (`pip install chess`; `scripts/test.sh` installs it). Neither
//! missing is a skip: the test fails and says why.

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
        .unwrap_or_else(common::tables_dir);
    for name in ["KNNvKNN", "KBNvKBN"] {
        assert!(
            dir.join(format!("{name}.rtbz")).exists(),
            "the 6-piece tests need {name}.rtbw/.rtbz in {} (run scripts/install-tables.sh, \
             or set FIFTYMOVE_SIX_PIECE_TABLES)",
            dir.display()
        );
    }
    dir
}

/// The probe engine over the 6-piece tables.
fn six_piece_prober() -> Prober {
    let inv = Inventory::scan(&[six_piece_tables()]).unwrap();
    Prober::new(inv.open().unwrap())
}

/// The generator's statistics of `material`
/// (`tests/reference/generator-stats-6-piece-sample.txt`, copied from
/// `../shared/reference/`).
fn generator(material: &str) -> fiftymove::scan::reference::GeneratorStats {
    let all =
        fiftymove::scan::reference::parse(&common::reference("generator-stats-6-piece-sample.txt"))
            .unwrap();
    all.into_iter()
        .find(|g| g.material == material)
        .unwrap_or_else(|| panic!("{material} is not in the generator's statistics"))
}

/// The generator's longest positions of `material`, from the lines
/// `Longest cursed win for white: 109 ply; FEN` of its statistics: what
/// (`cursed win for white`), the plies, and the position.
fn generator_longest(material: &str) -> Vec<(String, u32, Chess)> {
    let text = common::reference("generator-stats-6-piece-sample.txt");
    let (_, block) = text
        .split_once(&format!("########## {material} ##########"))
        .unwrap_or_else(|| panic!("{material} is not in the generator's statistics"));
    let block = block.split("##########").next().unwrap();
    let longest: Vec<(String, u32, Chess)> = block
        .lines()
        .filter_map(|line| {
            let (what, rest) = line.strip_prefix("Longest ")?.split_once(": ")?;
            let (plies, fen) = rest.split_once(" ply; ")?;
            let pos = fiftymove::parse_fen(&format!("{} 0 1", fen.trim())).unwrap();
            Some((what.to_owned(), plies.parse().unwrap(), pos))
        })
        .collect();
    // The same plies as the statistics' parser reads.
    let parsed = generator(material).longest;
    assert_eq!(longest.len(), parsed.len(), "{material}");
    for (what, plies, _) in &longest {
        assert_eq!(parsed.get(what), Some(plies), "{material}: longest {what}");
    }
    longest
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

/// The generator's longest positions of `material` and every position of
/// their best lines.
fn longest_and_their_lines(prober: &Prober, material: &str) -> Vec<Chess> {
    let mut positions = Vec::new();
    for (_, _, start) in generator_longest(material) {
        let line = fiftymove::best_line(prober, &start).unwrap();
        positions.push(start);
        for ply in &line.plies {
            positions.push(fiftymove::parse_fen(&ply.fen_before).unwrap());
        }
    }
    positions
}

/// Every position one legal move from one of `from`.
fn children(from: &[Chess]) -> Vec<Chess> {
    let mut out = Vec::new();
    for pos in from {
        for m in pos.legal_moves() {
            let mut after = pos.clone();
            after.play_unchecked(m);
            out.push(after);
        }
    }
    out
}

/// `count` random legal positions of `material`.
fn random_positions(rng: &mut StdRng, material: &Material, count: usize) -> Vec<Chess> {
    let mut positions = Vec::new();
    while positions.len() < count {
        if let Some(pos) = common::random_position(rng, material) {
            positions.push(pos);
        }
    }
    positions
}

/// What python-chess saw of a set of positions that all agree with the
/// probe engine.
#[derive(Debug, Default)]
struct Agreement {
    /// Positions python-chess gives a DTZ other than 0.
    decisive: usize,
    /// Positions python-chess calls cursed wins or blessed losses.
    cursed: usize,
    /// Positions whose DTZ python-chess gives exactly as ours.
    equal: usize,
}

/// Checks every position's WDL and exact DTZ by the probe engine against
/// python-chess's (see [`agrees`]).
fn agree_with_python_chess(prober: &Prober, positions: &[Chess]) -> Agreement {
    let fens: Vec<String> = positions.iter().map(fiftymove::fen_of).collect();
    let theirs = python_chess(&fens);
    let mut seen = Agreement::default();
    for ((pos, fen), got) in positions.iter().zip(&fens).zip(theirs) {
        seen.equal += usize::from(agrees(prober, pos, got, fen));
        seen.decisive += usize::from(got.1 != 0);
        seen.cursed += usize::from(got.0.abs() == 1);
    }
    seen
}

#[test]
fn knnknn_probes_agree_with_python_chess() {
    let prober = six_piece_prober();
    let material: Material = "KNNvKNN".parse().unwrap();
    let mut rng = StdRng::seed_from_u64(0x4b4e_4e4b);
    let mut positions = random_positions(&mut rng, &material, 2000);
    // A random placement is nearly always a draw: add the generator's
    // longest wins, every position of their lines, and what one and two
    // moves from those lead to (wins, losses and draws, some captures into
    // 5 pieces); and every move's result from the first random positions.
    let near = longest_and_their_lines(&prober, "KNNvKNN");
    let one = children(&near);
    let two = children(&one);
    let first = children(&positions[..100]);
    positions.extend(near);
    positions.extend(one);
    positions.extend(two);
    positions.extend(first);
    let seen = agree_with_python_chess(&prober, &positions);
    eprintln!(
        "{} KNNvKNN positions agree with python-chess ({} decisive, {} with the same DTZ)",
        positions.len(),
        seen.decisive,
        seen.equal
    );
    assert!(
        seen.decisive >= 500,
        "too few decisive positions to mean much"
    );
}

/// KBN v KBN, whose cursed wins last up to 109 plies, by the probe engine
/// against python-chess: 2,000 random positions and every move's result
/// from the first 100 of them; random cursed wins and blessed losses (about
/// one placement in 4,400 is one: drawn until 40 are found, by the probe
/// engine's WDL, and judged by python-chess with the rest); the generator's
/// longest cursed wins (109 plies) and wins (17), every position of their
/// lines, and what one move from those leads to (wins, cursed wins, losses,
/// draws, captures into 5 pieces).
#[test]
fn kbnkbn_probes_agree_with_python_chess() {
    let prober = six_piece_prober();
    let material: Material = "KBNvKBN".parse().unwrap();
    let mut rng = StdRng::seed_from_u64(0x6b62_6e6b);
    let mut positions = random_positions(&mut rng, &material, 2000);
    let first = children(&positions[..100]);
    let mut cursed = Vec::new();
    let mut tries = 0;
    while cursed.len() < 40 {
        tries += 1;
        assert!(tries < 10_000_000, "only {} cursed positions", cursed.len());
        let Some(pos) = common::random_position(&mut rng, &material) else {
            continue;
        };
        if !pos.is_checkmate()
            && matches!(prober.wdl(&pos).unwrap(), Wdl::CursedWin | Wdl::BlessedLoss)
        {
            cursed.push(pos);
        }
    }
    let near = longest_and_their_lines(&prober, "KBNvKBN");
    let one = children(&near);
    positions.extend(first);
    positions.extend(cursed);
    positions.extend(near);
    positions.extend(one);
    let seen = agree_with_python_chess(&prober, &positions);
    eprintln!(
        "{} KBNvKBN positions agree with python-chess ({} decisive, {} cursed or blessed, \
         {} with the same DTZ; {tries} draws for 40 cursed)",
        positions.len(),
        seen.decisive,
        seen.cursed,
        seen.equal
    );
    assert!(
        seen.decisive >= 2000,
        "too few decisive positions to mean much"
    );
    assert!(seen.cursed >= 100, "too few cursed positions to mean much");
}

/// `probe --json` and `line --format json` of KBN v KBN's longest cursed
/// wins, the generator's (DTZ 109, White and Black to move), against
/// python-chess: the position's WDL and DTZ and every move's, and every
/// position of the line. The line's first phase is 109 plies or 9 (then a
/// later phase is cursed: here 9 plies into a cursed KBN v KN of 104, then
/// KBN v K), some phase is over 100 plies, and the rule draws what wins
/// without it.
#[test]
fn kbnkbn_probe_and_line_of_the_longest_cursed_wins_agree_with_python_chess() {
    use serde_json::Value;
    let prober = six_piece_prober();
    let longest: Vec<(String, u32, Chess)> = generator_longest("KBNvKBN")
        .into_iter()
        .filter(|(what, _, _)| what.starts_with("cursed win"))
        .collect();
    assert_eq!(longest.len(), 2);
    let run = |args: &[&str], fen: &str| -> Value {
        let out = common::stdout_ok(
            common::fiftymove_over(&six_piece_tables())
                .args(["--quiet", "--json"])
                .args(args)
                .arg(fen),
        );
        serde_json::from_str(out.trim()).unwrap()
    };
    for (what, plies, start) in &longest {
        let fen = fiftymove::fen_of(start);
        let plies = i64::from(*plies);
        // probe: the position, then each move's result.
        let probe = run(&["probe"], &fen);
        assert_eq!(probe["wdl"], "cursed_win", "{what}: {probe}");
        assert_eq!(probe["dtz"], plies, "{what}");
        let mut positions = vec![start.clone()];
        let mut shown = vec![(syzygy_wdl_name(&probe["wdl"]), probe["dtz"].clone())];
        let moves = probe["moves"].as_array().unwrap();
        assert_eq!(moves.len(), start.legal_moves().len(), "{what}");
        for m in moves {
            let uci: shakmaty::uci::UciMove = m["uci"].as_str().unwrap().parse().unwrap();
            let mut after = start.clone();
            after.play_unchecked(uci.to_move(start).unwrap());
            positions.push(after);
            shown.push((syzygy_wdl_name(&m["wdl"]), m["dtz"].clone()));
        }
        // line: every position before a move.
        let line = run(&["line", "--format", "json"], &fen);
        let steps = line["plies"].as_array().unwrap();
        // A cursed DTZ of n > 100 is a first phase of n plies, or of n -
        // 100 where a later phase carries the curse (docs/design.md); some
        // phase of the line is over 100 plies, so the rule draws it.
        let phases: Vec<i64> = line["phases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["plies"].as_i64().unwrap())
            .collect();
        let first = phases[0];
        assert!(first == plies || first == plies - 100, "{what}: {phases:?}");
        assert!(phases.iter().any(|&p| p > 100), "{what}: {phases:?}");
        assert!(line["fifty_move_claim_ply"].is_u64(), "{what}");
        assert_eq!(line["result_with_rule"], "1/2-1/2", "{what}");
        let winner = if start.turn() == shakmaty::Color::White {
            "1-0"
        } else {
            "0-1"
        };
        assert_eq!(line["result_without_rule"], winner, "{what}");
        for (i, step) in steps.iter().enumerate() {
            let before = fiftymove::parse_fen(step["fen_before"].as_str().unwrap()).unwrap();
            let dtz = step["dtz_before"].as_i64().unwrap();
            if i < first as usize {
                // The first phase: DTZ counts down a ply a move, its sign
                // alternating with the side to move.
                let left = plies - i as i64;
                assert_eq!(
                    dtz,
                    if i % 2 == 0 { left } else { -left },
                    "{what}: ply {i}"
                );
            }
            let wdl = prober.wdl(&before).unwrap();
            positions.push(before);
            shown.push((syzygy_wdl(wdl), Value::from(dtz)));
        }
        let fens: Vec<String> = positions.iter().map(fiftymove::fen_of).collect();
        let theirs = python_chess(&fens);
        for (((pos, fen), got), (wdl, dtz)) in positions.iter().zip(&fens).zip(theirs).zip(&shown) {
            // fiftymove's output is the probe engine's, which agrees with
            // python-chess.
            let exact = prober.dtz(pos).unwrap();
            assert_eq!(dtz.as_i64(), Some(i64::from(exact.0)), "{what}: {fen}");
            if !pos.is_checkmate() {
                assert_eq!(*wdl, got.0, "{what}: {fen}: WDL");
            }
            agrees(&prober, pos, got, fen);
        }
        eprintln!(
            "{what}: probe ({} moves) and line ({} plies, phases {phases:?}) agree with \
             python-chess",
            moves.len(),
            steps.len()
        );
    }
}

/// [`syzygy_wdl`] of a WDL as fiftymove's JSON names it.
fn syzygy_wdl_name(name: &serde_json::Value) -> i32 {
    match name.as_str().unwrap() {
        "loss" => -2,
        "blessed_loss" => -1,
        "draw" => 0,
        "cursed_win" => 1,
        "win" => 2,
        other => panic!("{other} is not a WDL"),
    }
}

/// The whole of KNN v KNN, unsharded, and two of its shards, from one
/// sweep of the whole table (3.3 GB by its bound, held whole): the whole
/// against the Syzygy generator's statistics (WDL classes, every DTZ bin,
/// the longest positions), and the shards against the probe engine's same
/// shards, byte for byte as JSON (the sweep's format handling, capture
/// resolution and counting convention on a 6-piece file). One sweep
/// serves the three: the table is decoded and its DTZ worked out once,
/// and only the counting runs once per plan. From six pieces a work item
/// fixes three squares (the kings and the first knight), so a shard of one
/// item holds about a hundred thousand positions per side; the counting
/// rules out almost every position of other shards by its first squares
/// (`Canon::shard_prefixes`).
#[test]
fn knnknn_whole_sweep_matches_the_generator_and_its_shards_the_probe_engine() {
    use fiftymove::{
        scan::{probe::scan_with_prober, reference as genstats, sweep::scan_with_sweep_plans},
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
    let plan = |shard| ScanPlan {
        material,
        shard,
        raw: false,
        filter: None,
    };
    let plans: Vec<ScanPlan> = [None, Some(1), Some(20_001)]
        .into_iter()
        .map(|k| plan(k.map(|k| Shard { k, n })))
        .collect();
    let swept = scan_with_sweep_plans(&inv, &plans, MemoryLimit::Available, &|_| {}).unwrap();
    assert_eq!(swept.len(), plans.len(), "one sweep result per plan");
    let diffs = genstats::compare(&swept[0], &generator("KNNvKNN"));
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    let mut decisive = 0;
    for (plan, sweep) in plans.iter().zip(&swept).skip(1) {
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

/// `scan --json KNNvKNN`, always swept: no saved scan stands in for it.
fn knnknn_scan_json() -> String {
    common::stdout_ok(
        common::fiftymove_over(&six_piece_tables()).args(["--quiet", "--json", "scan", "KNNvKNN"]),
    )
}

/// The whole of KBN v KBN (cursed wins up to 109 plies) swept within 7.5
/// GB, against the Syzygy generator's statistics: WDL classes, every DTZ
/// bin (the cursed ones too), the longest positions. Held whole it would
/// take 14.1 GB by its bound, so the plan holds its WDL codes (a byte per
/// index, 6,765,832,080 indices: 31332 x 61 x 60 x 59) and reads its stored
/// DTZ and pass 1's WDL values page by page, 128 MiB of 2^16-index pages
/// each (7.45 GB in all by its bound): the production page size, on a
/// table 50 times the pages' budget, so pages are dropped and decoded
/// again all the time.
#[test]
#[ignore = "1,188 CPU-s (about 10 minutes of 2 cores) and 7 GB: on demand until CI has the time for it"]
fn kbnkbn_scan_within_7_5_gb_matches_the_generator() {
    scan_within_matches_the_generator("KBNvKBN", "7500000000", false);
}

/// KNN v KNN swept within 2 GB (issue 44's limit for it: its stored DTZ
/// and pass 1's WDL values read page by page, none held), against the
/// Syzygy generator's statistics, as the whole sweep above. About 2
/// minutes and 1.8 GB here, so on demand.
#[test]
#[ignore = "a whole 6-piece sweep within 2 GB: about 2 minutes"]
fn knnknn_scan_within_2_gb_matches_the_generator() {
    scan_within_matches_the_generator("KNNvKNN", "2000000000", false);
}

/// KNN v KNN swept within 1.5 GB: paged as within 2 GB, and its WDL codes
/// packed five bits each, against the generator's statistics. About 2
/// minutes and 1.3 GB here, so on demand.
#[test]
#[ignore = "a whole 6-piece sweep within 1.5 GB: about 2 minutes"]
fn knnknn_scan_within_1_5_gb_packed_matches_the_generator() {
    scan_within_matches_the_generator("KNNvKNN", "1500000000", true);
}

/// `scan MATERIAL` within `limit` bytes, whose plan pages the stored DTZ
/// and pass 1's WDL values and packs the codes or not (`packed`), equals
/// the generator's statistics.
fn scan_within_matches_the_generator(material: &str, limit: &str, packed: bool) {
    use fiftymove::scan::{reference as genstats, ScanStats};
    let tables = six_piece_tables();
    let plan = common::stdout_ok(common::fiftymove_over(&tables).args([
        "--json",
        "--memory-limit",
        limit,
        "scan",
        "--plan",
        material,
    ]));
    let plan: serde_json::Value = serde_json::from_str(plan.trim()).unwrap();
    assert_eq!(plan["fits"], true, "{plan}");
    assert!(plan["wdl_page_bytes"].as_u64().unwrap() > 0, "{plan}");
    assert!(
        plan["stored_dtz_page_bytes"].as_u64().unwrap() > 0,
        "{plan}"
    );
    assert_eq!(plan["packed_wdl_codes"], packed, "{plan}");
    let out = common::stdout_ok(common::fiftymove_over(&tables).args([
        "--quiet",
        "--json",
        "--memory-limit",
        limit,
        "scan",
        material,
    ]));
    let stats: ScanStats = serde_json::from_str(out.trim()).unwrap();
    let diffs = genstats::compare(&stats, &generator(material));
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
    let diffs = genstats::compare(&stats, &generator("KNNvKNN"));
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));

    // Position by position, from the cached solves.
    let prober = six_piece_prober();
    let material: Material = "KNNvKNN".parse().unwrap();
    let mut rng = StdRng::seed_from_u64(0x6b6e_6e6b);
    let mut positions = longest_and_their_lines(&prober, "KNNvKNN");
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
