//! Solves of some slices against the whole material's: a slice of frozen
//! pawns, the slices a claim's positions lie in, the slices a line
//! reaches; and what a slice with like pieces holds.

use super::*;

/// A white pawn on a4 locked by a black one on a5, as the tests of frozen
/// slices place them.
const LOCKED_A4_A5: [(shakmaty::Color, shakmaty::Square); 2] = [
    (shakmaty::Color::White, shakmaty::Square::A4),
    (shakmaty::Color::Black, shakmaty::Square::A5),
];

/// The positions of that slice, or of its mirror image (h4 and h5).
fn locked_a4_a5(b: &shakmaty::Board) -> bool {
    let at = |sq: shakmaty::Square, c: shakmaty::Color| {
        b.piece_at(sq)
            == Some(shakmaty::Piece {
                color: c,
                role: shakmaty::Role::Pawn,
            })
    };
    use shakmaty::{Color::*, Square::*};
    (at(A4, White) && at(A5, Black)) || (at(H4, White) && at(H5, Black))
}

/// The runs the tests of frozen slices compare: DTZ under the 50-move rule,
/// and DTR.
const LOCKED_RUNS: [(Rule, Metric); 2] = [(Rule::FIFTY, Metric::Dtz), (Rule::None, Metric::Dtr)];

/// The plan of `material`'s positions in the locked slice.
fn locked_plan(material: Material, rule: Rule, metric: Metric) -> SolvePlan {
    SolvePlan {
        filter: Some(std::sync::Arc::new(locked_a4_a5)),
        ..whole_plan(material, rule, metric)
    }
}

/// A slice of frozen pawns solved alone gives the statistics of the same
/// positions in the whole material's solve: KPvKP with the pawns locked on
/// a4 and a5 (and, by the mirror, h4 and h5), in DTZ and DTR.
#[test]
fn frozen_slice_equals_the_whole_solve() {
    let solver = shared_solver();
    let material: Material = "KPvKP".parse().unwrap();
    for (rule, metric) in LOCKED_RUNS {
        let plan = locked_plan(material, rule, metric);
        let whole = solver.stats(&plan, &NoProgress).unwrap();
        let slice = solver
            .frozen_stats_many(std::slice::from_ref(&plan), &LOCKED_A4_A5, &NoProgress)
            .unwrap()
            .remove(0);
        assert!(whole.white.positions > 1_000, "{}", whole.white.positions);
        assert_eq!(slice, whole, "{metric:?}");
    }
}

/// The exits of a slice of frozen pawns solved in the reached slices only
/// give the statistics of the plain way, which solves every material of
/// the closure whole: KNP(a4) v KP(a5), where a5xb4 takes the knight into
/// KPvKP with the pawns on a4 and b4 (a slice the reach search must find,
/// and from which the b-pawn walks on), in DTZ under the 50-move rule and
/// in DTR.
#[test]
fn reached_slices_give_the_whole_exits_statistics() {
    let dir = std::env::temp_dir().join(format!("fiftymove-reach-{}", std::process::id()));
    let material: Material = "KNPvKP".parse().unwrap();
    for (rule, metric) in LOCKED_RUNS {
        let plan = locked_plan(material, rule, metric);
        // Separate caches: the reached run must not read the whole run's
        // tables (and neither writes a partial table). The whole run's are
        // the shared solves of every 3- and 4-piece material, which hold
        // the slice's whole closure.
        let whole = shared_solver()
            .frozen_stats_with(
                std::slice::from_ref(&plan),
                &LOCKED_A4_A5,
                &NoProgress,
                true,
            )
            .unwrap()
            .remove(0);
        let reached = Solver::new(Some(Cache::new(&dir)), MemoryLimit::Available)
            .frozen_stats_with(
                std::slice::from_ref(&plan),
                &LOCKED_A4_A5,
                &NoProgress,
                false,
            )
            .unwrap()
            .remove(0);
        assert!(whole.white.wdl.win > 1_000, "{}", whole.white.wdl.win);
        assert_eq!(reached, whole, "{metric:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Solves of the slices a claim's positions lie in (and those they reach)
/// give the statistics of the whole material's solve with the same filter:
/// a pawn on its seventh rank (counted from its own side) in KPvKP, and in
/// KPvKR, which its table holds with colours swapped (KRvKP); a white pawn
/// on b6 or g6 in KPvKR too, a condition that colours tell apart (and a
/// mirror does not, as the counting asks of filters); a pawn on its sixth
/// in KPPvK, whose other pawn walks into slices of its own; and in KNvKP a
/// black pawn on its fifth rank or behind with a white knight in front, a
/// condition on a knight as well. Under the runs of [`PAGED_RULES`]. The
/// closure comes from the shared solves (a read outside the slices reached
/// fails), the material's own slices are solved.
#[test]
fn slices_of_a_claim_give_the_whole_solves_statistics() {
    use shakmaty::{Board, Color, Piece, Role, Square};

    use crate::solve::{BoardFilter, PawnFilter};
    /// The pawns of a board, with their colours.
    fn pawns_of(b: &Board) -> Vec<(Color, Square)> {
        b.pawns()
            .into_iter()
            .filter_map(|sq| Some((b.color_at(sq)?, sq)))
            .collect()
    }
    /// A condition on the pawns alone, as a board filter and a pawn one.
    fn on_pawns(
        keep: impl Fn(&[(Color, Square)]) -> bool + Send + Sync + Clone + 'static,
    ) -> (BoardFilter, PawnFilter) {
        let k = keep.clone();
        (
            std::sync::Arc::new(move |b: &Board| k(&pawns_of(b))),
            std::sync::Arc::new(keep),
        )
    }
    let relative_rank = |c: Color, sq: Square| match c {
        Color::White => sq.rank() as u32 + 1,
        Color::Black => 8 - sq.rank() as u32,
    };
    let on_rank = move |rank: u32| {
        on_pawns(move |p: &[(Color, Square)]| p.iter().any(|&(c, sq)| relative_rank(c, sq) == rank))
    };
    let white_b6_g6 = on_pawns(|p: &[(Color, Square)]| {
        p.contains(&(Color::White, Square::B6)) || p.contains(&(Color::White, Square::G6))
    });
    // A black pawn on its fifth rank or behind (rank 4 and up), a white
    // knight on the square below it.
    let behind = |sq: Square| sq.rank() as u32 >= 3;
    let blockade: (BoardFilter, PawnFilter) = (
        std::sync::Arc::new(move |b: &Board| {
            let knight = Piece {
                color: Color::White,
                role: Role::Knight,
            };
            pawns_of(b).iter().any(|&(c, sq)| {
                c == Color::Black
                    && behind(sq)
                    && sq.offset(-8).is_some_and(|f| b.piece_at(f) == Some(knight))
            })
        }),
        std::sync::Arc::new(move |p: &[(Color, Square)]| {
            p.iter().any(|&(c, sq)| c == Color::Black && behind(sq))
        }),
    );
    let cases: [(&str, (BoardFilter, PawnFilter)); 5] = [
        ("KPvKP", on_rank(7)),
        ("KPvKR", on_rank(7)),
        ("KPvKR", white_b6_g6),
        ("KPPvK", on_rank(6)),
        ("KNvKP", blockade),
    ];
    let whole = shared_solver();
    for (name, (board, pawns)) in cases {
        let material: Material = name.parse().unwrap();
        let plan = |rule, metric, sliced: bool| SolvePlan {
            filter: Some(board.clone()),
            pawns: sliced.then(|| pawns.clone()),
            ..whole_plan(material, rule, metric)
        };
        let layout = Layout::new(&material.normalized());
        let starts =
            crate::solve::plan::start_slices(&[plan(Rule::FIFTY, Metric::Dtz, true)], &layout)
                .expect("a claim's slices, not the whole material");
        assert!(starts.len() < layout.slices.len(), "{name}");
        let dir =
            std::env::temp_dir().join(format!("fiftymove-slices-{name}-{}", std::process::id()));
        for (rule, metric) in runs(&PAGED_RULES) {
            let expected = whole
                .stats(&plan(rule, metric, false), &NoProgress)
                .unwrap();
            let sliced = Solver::new(
                Some(closure_only_cache(&material, &dir)),
                MemoryLimit::Available,
            );
            let got = sliced
                .stats(&plan(rule, metric, true), &NoProgress)
                .unwrap();
            let decisive = expected.white.wdl.win + expected.black.wdl.win;
            assert!(decisive > 100, "{name} {rule} {metric:?}: {decisive}");
            assert_eq!(got, expected, "{name} {rule} {metric:?}");
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// A line's start solved in the slices it reaches alone holds, in each of
/// them, the values of the whole material's solve (the shared 3- and
/// 4-piece solves, from a cache of their own): KQ v KP with the pawn on b3
/// under the 50-move rule, DTM and DTR, and KP v KP with the pawns on a2
/// and h7 under the 50-move rule. And a line played from those values is
/// the whole solve's line.
#[test]
fn a_lines_reached_slices_hold_the_whole_solves_values() {
    use crate::solve::Positions;
    let dir = std::env::temp_dir().join(format!("fiftymove-reached-{}", std::process::id()));
    /// A material, its white and black pawns, a rule and a metric.
    type Run = (&'static str, &'static [u8], &'static [u8], Rule, Metric);
    let runs: [Run; 4] = [
        ("KQvKP", &[], &[17], Rule::Moves(50), Metric::Dtz),
        ("KQvKP", &[], &[17], Rule::None, Metric::Dtm),
        ("KQvKP", &[], &[17], Rule::None, Metric::Dtr),
        ("KPvKP", &[8], &[55], Rule::Moves(50), Metric::Dtz),
    ];
    for (name, white, black, rule, metric) in runs {
        let material: Material = name.parse().unwrap();
        let layout = Layout::new(&material);
        let start = layout.slice_of(white, black).unwrap();
        {
            std::fs::remove_dir_all(&dir).ok();
            let alone = Solver::new(Some(Cache::new(&dir)), MemoryLimit::Available);
            let reached = alone
                .reached_values(&material, rule, metric, start, &NoProgress)
                .unwrap();
            // The pawns walk: more slices than the start, fewer than all.
            assert!(reached.len() > 1, "{name}: {}", reached.len());
            assert!(reached.len() < layout.slices.len(), "{name}");
            assert!(reached.contains_key(&start));
            // A partial solve writes no file of the material.
            assert!(!Cache::new(&dir).path(name, rule, metric).exists());
            let whole = Cache::new(solved_3_4_piece_cache())
                .open(&layout, rule, metric)
                .ok()
                .unwrap();
            for (&slice, values) in &reached {
                let want = whole.slice(slice).ok().unwrap();
                assert!(values == &want, "{name} {rule:?} {metric:?} slice {slice}");
            }
        }
    }
    // The line of KQ v KP (b3) under rule 50, from the reached slices and
    // from the whole solve.
    let pos = crate::chess::position::parse_fen("8/8/8/3k4/8/1p6/7Q/K7 w - - 0 1").unwrap();
    let line = |positions: &Positions<'_>| {
        let line =
            crate::model::line::best_line_with(positions, &pos, Rule::FIFTY, Metric::Dtz).unwrap();
        serde_json::to_string(&line).unwrap()
    };
    std::fs::remove_dir_all(&dir).ok();
    let alone = Solver::new(Some(Cache::new(&dir)), MemoryLimit::Available);
    let positions = Positions::new(&alone, Rule::FIFTY, Metric::Dtz, &NoProgress).unwrap();
    positions.prepare_position(&pos).unwrap();
    let from_reached = line(&positions);
    assert!(!Cache::new(&dir)
        .path("KQvKP", Rule::FIFTY, Metric::Dtz)
        .exists());
    let shared = shared_solver();
    let positions = Positions::new(&shared, Rule::FIFTY, Metric::Dtz, &NoProgress).unwrap();
    positions.prepare(&"KQvKP".parse().unwrap()).unwrap();
    assert_eq!(from_reached, line(&positions));
    // Not a line of one ply: the queen has to stop the pawn first.
    assert!(from_reached.contains("\"ply\":3"), "{from_reached}");
    std::fs::remove_dir_all(&dir).ok();
}

/// With pawns, an entry of like pieces stands for each labelling of them:
/// over the entries of a slice of KNN v KP (the pawn on c6), the
/// labellings sum to the placements of two kings apart and two knights
/// told apart on the 63 other squares, counted by brute force.
#[test]
fn merged_pawn_slices_hold_every_labelled_placement_once() {
    use crate::solve::layout::MAX_PIECES;
    let layout = Layout::new(&"KNNvKP".parse().unwrap());
    let pawn = 42u8;
    let slice = layout.slice_of(&[], &[pawn]).unwrap();
    let mut by_entries = 0u64;
    let mut sq = [0u8; MAX_PIECES];
    for e in 0..layout.entries {
        layout.decode(slice, e, &mut sq);
        if layout.is_position(&sq) {
            by_entries += layout.like_factorial();
        }
    }
    let (slice_pawns_white, slice_pawns_black) = layout.slice_pawns(slice);
    assert!(slice_pawns_white.is_empty());
    // The slice keeps the pawn on c6 or on its mirror image f6: either
    // way, the same count.
    let pawn = slice_pawns_black[0];
    let mut brute = 0u64;
    let touch = |a: u8, b: u8| {
        let (fa, ra, fb, rb) = (a % 8, a / 8, b % 8, b / 8);
        fa.abs_diff(fb) <= 1 && ra.abs_diff(rb) <= 1
    };
    for wk in 0..64u8 {
        for bk in 0..64u8 {
            if [wk, bk].contains(&pawn) || wk == bk || touch(wk, bk) {
                continue;
            }
            for n1 in 0..64u8 {
                for n2 in 0..64u8 {
                    let all = [wk, bk, n1, n2, pawn];
                    if (0..5).all(|i| (0..i).all(|j| all[i] != all[j])) {
                        brute += 1;
                    }
                }
            }
        }
    }
    assert_eq!(by_entries, brute);
    assert_eq!(layout.entries, 64 * 64 * 2016);
}
