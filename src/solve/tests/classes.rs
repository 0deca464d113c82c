//! A rule's classes read from a cached DTR against the rule's own solve,
//! and the solve in half a byte per position against the one in two
//! bytes.

use super::*;

/// A line under a rule reads the classes of the positions its zeroing
/// moves lead to from the cached DTR of the materials it does not enter,
/// and plays the same line as without them: KQP v K with the pawn on b7
/// under a 10-move rule, where some promotions' wins are cursed. Without the DTR
/// every promotion's material is solved under the rule; with it, fewer.
#[test]
fn a_lines_zeroing_moves_read_their_classes_from_a_cached_dtr() {
    use crate::solve::Positions;
    let material: Material = "KQPvK".parse().unwrap();
    let pos = crate::chess::position::parse_fen("8/1P6/8/8/8/8/2k5/K3Q3 w - - 0 1").unwrap();
    let promoted = ["KQQvK", "KQRvK", "KQBvK", "KQNvK"];
    let line_in = |with_dtr: bool| {
        let dir = std::env::temp_dir().join(format!(
            "fiftymove-line-dtr-{with_dtr}-{}",
            std::process::id()
        ));
        let cache = Cache::new(&dir);
        let solver = Solver::new(Some(cache.clone()), MemoryLimit::Available);
        if with_dtr {
            solver
                .stats(&whole_plan(material, Rule::None, Metric::Dtr), &NoProgress)
                .unwrap();
        }
        let positions = Positions::new(&solver, Rule::Moves(10), Metric::Dtz, &NoProgress).unwrap();
        positions.prepare(&material).unwrap();
        let line =
            crate::model::line::best_line_with(&positions, &pos, Rule::Moves(10), Metric::Dtz)
                .unwrap();
        let solved = promoted
            .iter()
            .filter(|m| cache.path(m, Rule::Moves(10), Metric::Dtz).exists())
            .count();
        std::fs::remove_dir_all(&dir).ok();
        (serde_json::to_string(&line).unwrap(), solved)
    };
    let (plain, solved_plain) = line_in(false);
    let (read, solved_read) = line_in(true);
    assert!(plain.contains("b7b8"), "{plain}");
    assert_eq!(read, plain);
    assert_eq!(solved_plain, promoted.len());
    assert!(solved_read < solved_plain, "{solved_read}");
}

/// The class a cached DTR gives a position under a rule is the class the
/// rule's own solve gives it, cursed wins and blessed losses included:
/// KRvKP and KQvKR (pawnless) under a 10-move rule, at 4,000 random legal
/// positions each.
#[test]
fn classes_from_a_cached_dtr_equal_the_rules_own() {
    use shakmaty::{Board, Chess, Color, Piece, Role, Square};

    use crate::solve::Positions;
    let rule = Rule::Moves(10);
    let own_dir = std::env::temp_dir().join(format!("fiftymove-rule-class-{}", std::process::id()));
    let own_solver = Solver::new(Some(Cache::new(&own_dir)), MemoryLimit::Available);
    let own = Positions::new(&own_solver, rule, Metric::Dtz, &NoProgress).unwrap();
    // SplitMix64 of a counter: a fixed sample on every run.
    let mut counter = 0u64;
    let mut next = move || {
        counter += 1;
        let z = counter.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        let z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    for name in ["KRvKP", "KQvKR"] {
        let material: Material = name.parse().unwrap();
        let dir =
            std::env::temp_dir().join(format!("fiftymove-dtr-class-{name}-{}", std::process::id()));
        let solver = Solver::new(Some(Cache::new(&dir)), MemoryLimit::Available);
        solver
            .stats(&whole_plan(material, Rule::None, Metric::Dtr), &NoProgress)
            .unwrap();
        let from_dtr = Positions::new(&solver, rule, Metric::Dtz, &NoProgress).unwrap();
        let pieces: Vec<Piece> = material
            .pieces()
            .iter()
            .map(|p| Piece {
                color: p.color,
                role: p.role,
            })
            .collect();
        let (mut tried, mut compared, mut cursed) = (0, 0, 0);
        while compared < 4_000 {
            tried += 1;
            assert!(tried < 1_000_000, "{name}: too few legal positions");
            let mut board = Board::empty();
            for p in &pieces {
                let sq = Square::new((next() % 64) as u32);
                let pawn_rank = p.role == Role::Pawn && !(8..56).contains(&u32::from(sq));
                if board.piece_at(sq).is_some() || pawn_rank {
                    board = Board::empty();
                    break;
                }
                board.set_piece_at(sq, *p);
            }
            if board.occupied().count() != pieces.len() {
                continue;
            }
            let turn = if next().is_multiple_of(2) {
                Color::White
            } else {
                Color::Black
            };
            let mut setup = shakmaty::Setup::empty();
            setup.board = board;
            setup.turn = turn;
            let Ok(pos) = setup.position::<Chess>(shakmaty::CastlingMode::Standard) else {
                continue;
            };
            let got = from_dtr
                .class_from_dtr(&pos)
                .unwrap()
                .expect("a class from the DTR");
            let want = own.class(own.outcome(&pos).unwrap());
            assert_eq!(
                got,
                want,
                "{name}: {}",
                crate::chess::position::fen_of(&pos)
            );
            compared += 1;
            cursed += u32::from(matches!(got, Wdl::CursedWin | Wdl::BlessedLoss));
        }
        assert!(cursed > 0, "{name}: no cursed win or blessed loss compared");
        std::fs::remove_dir_all(&dir).ok();
    }
    std::fs::remove_dir_all(&own_dir).ok();
}

/// Solves in half a byte per position (`compact`, forced on small
/// materials) equal the solves in two bytes, value by value and in their
/// statistics (longest positions included): every 3- and 4-piece material
/// without pawns, under the 10-, 50- and 75-move rules (the 10-move rule
/// has cursed wins and blessed losses in most of them, so the level past
/// the rule is exercised) and without a rule. The closure is read from the
/// shared solves, so each compact solve is of its material alone.
#[test]
fn compact_solves_equal_two_byte_solves() {
    let whole = shared_solver();
    let shared = Cache::new(solved_3_4_piece_cache());
    let mut compared = 0u64;
    let mut cursed = 0;
    for name in three_four_piece_names().iter().filter(|n| !n.contains('P')) {
        let material: Material = name.parse().unwrap();
        let layout = Layout::new(&material);
        let dir =
            std::env::temp_dir().join(format!("fiftymove-compact-{name}-{}", std::process::id()));
        let cache = closure_only_cache(&material, &dir);
        let knobs = Knobs {
            compact_from: Some(0),
            ..Knobs::default()
        };
        let compact = Solver::for_tests(Some(cache.clone()), MemoryLimit::Available, knobs);
        for rule in [
            Rule::Moves(10),
            Rule::Moves(50),
            Rule::Moves(75),
            Rule::None,
        ] {
            let plan = whole_plan(material, rule, Metric::Dtz);
            let expected = whole.stats(&plan, &NoProgress).unwrap();
            let got = compact.stats(&plan, &NoProgress).unwrap();
            assert_eq!(got, expected, "{name} {rule}");
            cursed += expected.white.wdl.cursed_win + expected.black.wdl.blessed_loss;
            let want = shared.open(&layout, rule, Metric::Dtz).ok().unwrap();
            let have = cache.open(&layout, rule, Metric::Dtz).ok().unwrap();
            let (want, have) = (want.slice(0).ok().unwrap(), have.slice(0).ok().unwrap());
            for side in 0..2 {
                assert!(want[side] == have[side], "{name} {rule} side {side}");
                compared += want[side].iter().filter(|v| **v != value::NONE).count() as u64;
            }
        }
        std::fs::remove_dir_all(&dir).ok();
    }
    assert!(compared > 10_000_000, "{compared} values compared");
    assert!(cursed > 0, "no cursed win in any run compared");
}
