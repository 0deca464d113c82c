//! The solver position by position: random positions against the probe
//! engine (exact DTZ from the real Syzygy tables), and small positions
//! analysed by hand.

mod common;

use common::tables_dir;
use fiftymove::{
    chess::{material::Material, position::parse_fen, wdl::Wdl},
    probe::DtzMemo,
    scan::{enumerate::Enumerator, reference as genstats},
    solve::{Cache, Metric, NoProgress, Positions, Rule, Solver},
    Inventory, MemoryLimit, Prober,
};
use rand::{Rng, SeedableRng};
use shakmaty::{Chess, Color, Position, Role, Square};

fn solver(cache: &std::path::Path) -> Solver {
    Solver::new(Some(Cache::new(cache)), MemoryLimit::Available)
}

fn prober() -> Prober {
    let inv = Inventory::scan(&[tables_dir()]).unwrap();
    Prober::new(inv.open().unwrap())
}

/// A random legal position of `material`, `turn` to move.
fn random_position(rng: &mut impl Rng, material: &Material) -> Chess {
    let e = Enumerator::new(material);
    loop {
        let mut squares = Vec::new();
        for p in e.pieces() {
            loop {
                let s = Square::new(rng.gen_range(0..64));
                let rank = s.rank() as u32;
                if squares.contains(&s) || (p.role == Role::Pawn && (rank == 0 || rank == 7)) {
                    continue;
                }
                squares.push(s);
                break;
            }
        }
        let turn = if rng.gen_bool(0.5) {
            Color::White
        } else {
            Color::Black
        };
        if let Some(pos) = e.position(&e.board(&squares), turn) {
            return pos;
        }
    }
}

/// The probe engine's WDL and exact DTZ, as `scan` reads them: with a memo
/// of exact values shared by the positions of one material (the searches
/// that settle rounded values overlap), as the probe engine's scan does.
fn probed(prober: &Prober, memo: &mut DtzMemo, pos: &Chess) -> (Wdl, i32) {
    if pos.is_checkmate() {
        return (Wdl::Loss, 0);
    }
    (
        prober.wdl(pos).unwrap(),
        prober.dtz_with(pos, memo).unwrap().0,
    )
}

/// `per_table` random positions of each of the 35 3- and 4-piece tables
/// (with and without pawns): `solve --rule 50` gives the probe engine's WDL
/// and exact DTZ for every one.
fn random_positions_agree(per_table: usize, seed: u64) {
    // The solves of this `cargo test` run, which the library's tests made.
    let solver = solver(common::run_cache::run_solve_cache());
    let positions = Positions::new(&solver, Rule::FIFTY, Metric::Dtz, &NoProgress).unwrap();
    let prober = prober();
    let names: Vec<String> = genstats::parse(&common::reference("generator-stats-3-4-piece.txt"))
        .unwrap()
        .into_iter()
        .map(|g| g.material)
        .collect();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut compared = 0;
    let mut decisive = 0;
    for name in &names {
        let material: Material = name.parse().unwrap();
        positions.prepare(&material).unwrap();
        let mut memo = DtzMemo::new();
        for _ in 0..per_table {
            let pos = random_position(&mut rng, &material);
            let v = positions.value(&pos).unwrap();
            let (wdl, dtz) = probed(&prober, &mut memo, &pos);
            assert_eq!((v.wdl, v.depth), (wdl, dtz), "{}", fiftymove::fen_of(&pos));
            compared += 1;
            decisive += usize::from(dtz != 0);
        }
    }
    assert_eq!(compared, 35 * per_table);
    // At least 10 in 21 are decisive (100,000 of 210,000 before the split).
    assert!(21 * decisive > 10 * compared, "{decisive} of {compared}");
}

/// 35,000 positions in CI (the probe engine's side takes most of the time).
#[test]
fn random_positions_agree_with_the_probe_engine() {
    random_positions_agree(1000, 2026);
}

/// On demand: 210,000 positions (6,000 a table, about ten minutes).
#[test]
#[ignore]
fn random_positions_agree_with_the_probe_engine_210000() {
    random_positions_agree(6000, 2026);
}

/// Positions with an en-passant right (after a double step) take the
/// capture into account, as the probe engine does.
#[test]
fn en_passant_rights_agree_with_the_probe_engine() {
    let solver = solver(common::run_cache::run_solve_cache());
    let positions = Positions::new(&solver, Rule::FIFTY, Metric::Dtz, &NoProgress).unwrap();
    let prober = prober();
    let mut rng = rand::rngs::StdRng::seed_from_u64(4);
    let mut with_ep = 0;
    // Only KPvKP, of the tables up to 4 pieces, has pawns of both colours;
    // a reply en passant needs a pawn beside the one that steps, so most
    // random positions have none: sample until 1000 have one.
    let material: Material = "KPvKP".parse().unwrap();
    positions.prepare(&material).unwrap();
    let mut memo = DtzMemo::new();
    for _ in 0..2_000_000 {
        if with_ep >= 1000 {
            break;
        }
        let pos = random_position(&mut rng, &material);
        // Every double step of the side to move, played: the reply may be
        // en passant.
        for m in pos.legal_moves() {
            let (Some(from), to) = (m.from(), m.to()) else {
                continue;
            };
            if m.role() != Role::Pawn || (from as i32 - to as i32).abs() != 16 {
                continue;
            }
            let mut after = pos.clone();
            after.play_unchecked(m);
            if after.ep_square(shakmaty::EnPassantMode::Legal).is_none() {
                continue;
            }
            with_ep += 1;
            let v = positions.value(&after).unwrap();
            let fen = fiftymove::fen_of(&after);
            assert_eq!(
                (v.wdl, v.depth),
                probed(&prober, &mut memo, &after),
                "{fen}"
            );
        }
    }
    assert_eq!(with_ep, 1000);
}

fn value(positions: &Positions<'_>, fen: &str) -> (Wdl, i32) {
    let pos = parse_fen(fen).unwrap();
    let v = positions.value(&pos).unwrap();
    (v.wdl, v.depth)
}

/// Positions checked by hand.
#[test]
fn small_positions_analysed_by_hand() {
    let cache = tempfile::tempdir().unwrap();
    let solver = solver(cache.path());
    let under = |rule| Positions::new(&solver, rule, Metric::Dtz, &NoProgress).unwrap();
    let fifty = under(Rule::FIFTY);
    // Mate in one: 1.Qb8# (the king on g6 guards g7 and h7, the queen the
    // eighth rank; on b1 the queen's diagonal to h7 is blocked by its own
    // king). One ply to the mate; checkmated, Black has 0.
    assert_eq!(
        value(&fifty, "7k/8/6K1/8/8/8/8/1Q6 w - - 0 1"),
        (Wdl::Win, 1)
    );
    assert_eq!(
        value(&fifty, "1Q5k/8/6K1/8/8/8/8/8 b - - 0 1"),
        (Wdl::Loss, 0)
    );
    // Stalemate: the king on h8 is not in check, and g8, g7 and h7 are all
    // covered.
    assert_eq!(
        value(&fifty, "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"),
        (Wdl::Draw, 0)
    );
    // A capture into a drawn ending: ...Nxc1 leaves king and knight against
    // a bare king, which cannot be won, and Black has nothing better.
    let pos = parse_fen("k7/8/8/8/8/1n6/8/2R1K3 b - - 0 1").unwrap();
    let report = fifty.report(&pos).unwrap();
    assert_eq!((report.wdl, report.dtz.0), (Wdl::Draw, 0));
    let capture = report.moves.iter().find(|m| m.uci == "b3c1").unwrap();
    assert_eq!((capture.wdl, capture.dtz.0), (Wdl::Draw, 0));
    // A promotion: 1.e8=Q (or R) wins at once; the pawn move zeroes, so one
    // ply, whatever the queen then needs.
    assert_eq!(
        value(&fifty, "8/4P3/8/8/8/8/k7/4K3 w - - 0 1"),
        (Wdl::Win, 1)
    );
    // Phases exactly 2N plies long. With the king on g6 and the queen on
    // g1, Black's only move is ...Kh7, and Qh1 mates: lost in 2 plies,
    // which a 1-move rule (2 plies) still allows.
    let one = under(Rule::Moves(1));
    let two = under(Rule::Moves(2));
    assert_eq!(
        value(&one, "7k/5K2/8/8/8/8/8/6Q1 b - - 0 1"),
        (Wdl::Loss, -2)
    );
    // With the king on g6, Black's only move is ...Kg8; the queen, behind
    // its king on the g-file, can give no check, so no mate at ply 2; 2.Qd4
    // and 3.Qd8 mate at ply 4 whatever Black plays. Lost in 4 plies: under
    // a 2-move rule (4 plies) that is a loss, under a 1-move rule one that
    // the rule saves.
    let p = "7k/8/6K1/8/8/8/8/6Q1 b - - 0 1";
    assert_eq!(value(&two, p), (Wdl::Loss, -4));
    assert_eq!(value(&one, p), (Wdl::BlessedLoss, -4));
    assert_eq!(value(&fifty, p), (Wdl::Loss, -4));
}

/// A position whose DTR differs from the longest phase of its DTZ-optimal
/// line. White mates at once with 1.Qf7# (the king on g6 guards g7 and
/// f7; the queen covers e8, g8 and e7; the rook on a2 can neither take on
/// f7 nor block next to the king), so its DTR is 1 ply: no phase is
/// longer. 1.Qxa2, taking the rook, also zeroes in one ply, and the
/// DTZ-optimal line takes it (the tie of two one-ply moves goes to the
/// first in UCI order, a7a2): then King and Queen against King still need
/// a phase of at least two plies, since Black, not mated, moves first.
#[test]
fn dtr_differs_from_the_dtz_lines_longest_phase() {
    let cache = tempfile::tempdir().unwrap();
    let solver = solver(cache.path());
    let fen = "5k2/Q7/6K1/8/8/8/r7/8 w - - 0 1";
    let dtr = Positions::new(&solver, Rule::None, Metric::Dtr, &NoProgress).unwrap();
    assert_eq!(value(&dtr, fen), (Wdl::Win, 1));
    let line = fiftymove::best_line(&prober(), &parse_fen(fen).unwrap()).unwrap();
    assert_eq!(line.plies[0].san, "Qxa2");
    assert_eq!(line.phases[0].plies, 1);
    let longest = line.phases.iter().map(|p| p.plies).max().unwrap();
    assert!(longest >= 2, "{longest}");
    // And after the capture, the loss answers a win that needs a rule of
    // that longer phase.
    let mut after = parse_fen(fen).unwrap();
    let capture = after
        .legal_moves()
        .into_iter()
        .find(|m| m.is_capture())
        .unwrap();
    after.play_unchecked(capture);
    let v = dtr.value(&after).unwrap();
    assert_eq!((v.wdl, -v.depth as u32), (Wdl::Loss, line.phases[1].plies));
}

/// A line played with no rule names the rule its second result is under:
/// the 50-move rule's (a mate in one is won under it too).
#[test]
fn a_line_without_a_rule_gives_the_fifty_move_result_and_says_so() {
    let cache = tempfile::tempdir().unwrap();
    let out = common::stdout_ok(
        common::fiftymove()
            .arg("--cache-dir")
            .arg(cache.path())
            .args([
                "--quiet",
                "line",
                "--rule",
                "none",
                "7k/8/6K1/8/8/8/8/1Q6 w - - 0 1",
            ]),
    );
    let last = out.lines().last().unwrap();
    assert_eq!(
        last, "Result without the rule: 1-0   with the 50-move rule: 1-0",
        "{out}"
    );
}
