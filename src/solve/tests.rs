//! The solver's metrics against each other, position by position: the win
//! sets of the rules nest, DTR at most `2N` is exactly a win (or loss)
//! under an `N`-move rule, DTR and DTM agree with the classes without a
//! rule, and no mate comes before the zeroing move it needs.

use std::path::Path;

use super::{
    cache::Cache,
    layout::Layout,
    table::class_of,
    value::{self, Outcome},
    Metric, NoProgress, Rule, SolvePlan, Solver,
};
use crate::{chess::material::Material, chess::wdl::Wdl, memory::MemoryLimit};

/// The runs compared: four rules of DTZ, then DTM and DTR.
const RUNS: [(Rule, Metric); 6] = [
    (Rule::Moves(50), Metric::Dtz),
    (Rule::Moves(75), Metric::Dtz),
    (Rule::Moves(100), Metric::Dtz),
    (Rule::None, Metric::Dtz),
    (Rule::None, Metric::Dtm),
    (Rule::None, Metric::Dtr),
];

fn check_material(solver: &Solver, cache: &Cache, material: &Material) {
    for (rule, metric) in RUNS {
        solver.prepare(material, rule, metric, &NoProgress).unwrap();
    }
    let layout = Layout::new(material);
    let tables: Vec<_> = RUNS
        .iter()
        .map(|&(rule, metric)| cache.open(&layout, rule, metric).ok().unwrap())
        .collect();
    let name = material.table_name();
    for slice in 0..layout.slices.len() {
        let values: Vec<_> = tables
            .iter()
            .map(|t| t.slice(slice).ok().unwrap())
            .collect();
        for side in 0..2 {
            for e in 0..layout.entries {
                let v: Vec<u16> = values.iter().map(|sv| sv[side][e]).collect();
                if v[0] == value::NONE {
                    assert!(v.iter().all(|x| *x == value::NONE), "{name}");
                    continue;
                }
                let at = || format!("{name} slice {slice} side {side} entry {e}: {v:?}");
                let classes: Vec<Wdl> =
                    (0..4).map(|i| class_of(v[i], RUNS[i].0).unwrap()).collect();
                // The wins (and losses) of a rule stay wins under a longer
                // one and with none.
                for w in classes.windows(2) {
                    if w[0] == Wdl::Win {
                        assert_eq!(w[1], Wdl::Win, "{}", at());
                    }
                    if w[0] == Wdl::Loss {
                        assert_eq!(w[1], Wdl::Loss, "{}", at());
                    }
                }
                let none = value::outcome(v[3]).unwrap();
                let dtm = value::outcome(v[4]).unwrap();
                let dtr = value::outcome(v[5]).unwrap();
                // The same side wins without a rule, by every metric.
                let sign = |o: Outcome| match o {
                    Outcome::Win(_) => 1,
                    Outcome::Draw => 0,
                    Outcome::Loss(_) => -1,
                };
                assert_eq!(sign(dtm), sign(none), "{}", at());
                assert_eq!(sign(dtr), sign(none), "{}", at());
                // A mate cannot come before the zeroing move it needs.
                if let (Outcome::Win(m) | Outcome::Loss(m), Outcome::Win(z) | Outcome::Loss(z)) =
                    (dtm, none)
                {
                    assert!(m >= z, "{}", at());
                }
                // DTR at most 2N is a win (a loss) under the N-move rule.
                if let Outcome::Win(r) | Outcome::Loss(r) = dtr {
                    for (i, n) in [50u16, 75, 100].into_iter().enumerate() {
                        let decided = matches!(classes[i], Wdl::Win | Wdl::Loss);
                        assert_eq!(r <= 2 * n, decided, "{} N={n}", at());
                    }
                }
            }
        }
    }
}

fn materials(names: &[&str], dir: &Path) {
    let cache = Cache::new(dir);
    let solver = Solver::new(Some(cache.clone()), MemoryLimit::Available);
    for name in names {
        check_material(&solver, &cache, &name.parse().unwrap());
    }
}

#[path = "../../tests/common/run_cache.rs"]
mod run_cache;

/// The cache of every 3- and 4-piece material (the generator's list of
/// them) solved under each of `RUNS`, filled once per run of the test
/// binary by whichever test asks first (the others wait): the tests below
/// read the same solves rather than each solving its materials again. It is
/// the solver cache of the whole `cargo test` run
/// ([`run_cache::run_solve_cache`]), so that the integration tests that
/// solve the same materials under the same rules read them too.
fn solved_3_4_piece_cache() -> &'static Path {
    static DIR: std::sync::OnceLock<&'static Path> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = run_cache::run_solve_cache();
        let names = three_four_piece_names();
        let solver = Solver::new(Some(Cache::new(dir)), MemoryLimit::Available);
        for name in &names {
            for (rule, metric) in RUNS {
                solver
                    .prepare(&name.parse().unwrap(), rule, metric, &NoProgress)
                    .unwrap();
            }
        }
        dir
    })
}

/// The 3- and 4-piece materials, as the generator's statistics list them.
fn three_four_piece_names() -> Vec<String> {
    let names: Vec<String> = crate::model::reference::parse(include_str!(
        "../../tests/reference/generator-stats-3-4-piece.txt"
    ))
    .unwrap()
    .into_iter()
    .map(|g| g.material)
    .collect();
    assert_eq!(names.len(), 35);
    names
}

/// A solver that reads [`solved_3_4_piece_cache`].
fn shared_solver() -> Solver {
    Solver::new(
        Some(Cache::new(solved_3_4_piece_cache())),
        MemoryLimit::Available,
    )
}

/// Every 3- and 4-piece table (the generator's list of them).
#[test]
fn metrics_agree_position_by_position_on_every_3_4_piece_table() {
    let names = three_four_piece_names();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    materials(&names, solved_3_4_piece_cache());
}

/// The same on three 5-piece tables (an hour or more on 2 cores:
/// `cargo test --release --lib -- --ignored metrics_agree`).
#[test]
#[ignore = "the six solves of KRBvKR, KNNvKP and KBBvKN with their closures take an hour or more"]
fn metrics_agree_position_by_position_on_five_piece_tables() {
    let dir = std::env::temp_dir().join(format!("fiftymove-metrics5-{}", std::process::id()));
    materials(&["KRBvKR", "KBBvKN", "KNNvKP"], &dir);
    std::fs::remove_dir_all(&dir).ok();
}

/// DTR documents count the wins of each rule as the rule's own solve does,
/// on every 3- and 4-piece material.
#[test]
fn dtr_documents_count_each_rules_wins() {
    let solver = shared_solver();
    let names = three_four_piece_names();
    let mut decisive = 0;
    for name in &names {
        let material: Material = name.parse().unwrap();
        let plan = |rule, metric| SolvePlan {
            material,
            rule,
            metric,
            shard: None,
            raw: false,
            filter: None,
        };
        let dtr = solver
            .stats(&plan(Rule::None, Metric::Dtr), &NoProgress)
            .unwrap();
        for n in [50u16, 75, 100] {
            let rule = solver
                .stats(&plan(Rule::Moves(n), Metric::Dtz), &NoProgress)
                .unwrap();
            for (d, r) in [(&dtr.white, &rule.white), (&dtr.black, &rule.black)] {
                let key = n.to_string();
                assert_eq!(d.won_under.as_ref().unwrap()[&key], r.wdl.win, "{name} {n}");
                assert_eq!(
                    d.lost_under.as_ref().unwrap()[&key],
                    r.wdl.loss,
                    "{name} {n}"
                );
                decisive += r.wdl.win + r.wdl.loss;
            }
        }
    }
    assert!(
        decisive > 0,
        "no decisive position in any 3- or 4-piece table"
    );
}

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
        material,
        rule,
        metric,
        shard: None,
        raw: false,
        filter: Some(std::sync::Arc::new(locked_a4_a5)),
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
