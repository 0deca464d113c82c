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

#[path = "../../../tests/common/run_cache.rs"]
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
        "../../../tests/reference/generator-stats-3-4-piece.txt"
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
            pawns: None,
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
        pawns: None,
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

/// The runs the paged solves are compared in: the 50- and 75-move rules and
/// none, DTM and DTR, and a 10-move rule, under which 3- and 4-piece
/// tables have cursed wins and blessed losses (they have none under the
/// others), so that the classes pages hold are the rule's.
const PAGED_RUNS: [(Rule, Metric); 6] = [
    (Rule::Moves(10), Metric::Dtz),
    (Rule::Moves(50), Metric::Dtz),
    (Rule::Moves(75), Metric::Dtz),
    (Rule::None, Metric::Dtz),
    (Rule::None, Metric::Dtm),
    (Rule::None, Metric::Dtr),
];

/// The whole plan of `material` under `rule` and `metric`.
fn whole_plan(material: Material, rule: Rule, metric: Metric) -> SolvePlan {
    SolvePlan {
        material,
        rule,
        metric,
        shard: None,
        raw: false,
        filter: None,
        pawns: None,
    }
}

/// A cache directory holding the shared solves of `material`'s closure
/// (links to them), but not of `material`, so that a solver reading it
/// solves `material` itself and reads the rest.
fn closure_only_cache(material: &Material, dir: &Path) -> Cache {
    std::fs::create_dir_all(dir).unwrap();
    let own = format!("{}.", material.table_name());
    for entry in std::fs::read_dir(solved_3_4_piece_cache()).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".fms") && !name.starts_with(&own) {
            let link = dir.join(&name);
            if !link.exists() {
                std::os::unix::fs::symlink(entry.path(), link).unwrap();
            }
        }
    }
    Cache::new(dir)
}

/// The page budget of the paged tests: the least a paged solve of a large
/// material is given.
fn test_pages() -> u64 {
    super::pages::Pages::minimum_budget(u64::MAX)
}

/// Solves read page by page, one slice at a time, give the statistics of
/// the whole solves, on the 4-piece pawn materials KPvKP (48 × 47 pawn
/// slices, halved by the mirror) and KRvKP and the 5-piece KPPvK, under
/// the 50- and 75-move rules and none, DTM and DTR ([`test_pages`]); the
/// closure comes paged from the shared solves, and
/// the material's own slices from the file being written.
#[test]
fn paged_solves_equal_whole_solves() {
    let whole = shared_solver();
    let mut cursed = 0;
    for name in ["KPvKP", "KRvKP", "KPPvK"] {
        let material: Material = name.parse().unwrap();
        // The whole solves first: they put the closure's solves under the
        // 10-move rule into the shared cache, which the paged one reads.
        let expected: Vec<_> = PAGED_RUNS
            .iter()
            .map(|&(rule, metric)| {
                whole
                    .stats(&whole_plan(material, rule, metric), &NoProgress)
                    .unwrap()
            })
            .collect();
        let dir =
            std::env::temp_dir().join(format!("fiftymove-paged-{name}-{}", std::process::id()));
        let paged = Solver::new(
            Some(closure_only_cache(&material, &dir)),
            MemoryLimit::Available,
        )
        .with_pages(test_pages());
        for ((rule, metric), expected) in PAGED_RUNS.into_iter().zip(expected) {
            let got = paged
                .stats(&whole_plan(material, rule, metric), &NoProgress)
                .unwrap();
            assert!(expected.white.positions > 1_000, "{name}");
            cursed += expected.white.wdl.cursed_win + expected.black.wdl.cursed_win;
            assert_eq!(got, expected, "{name} {rule} {metric:?}");
        }
        std::fs::remove_dir_all(&dir).ok();
    }
    assert!(cursed > 0, "no cursed win in any run compared");
}

/// A paged solve with no cache solves its whole closure page by page into
/// a scratch directory of its own, and gives the whole solve's statistics:
/// KPvKP under the 50-move rule. The scratch directory is gone afterwards.
#[test]
fn a_paged_solve_without_a_cache_solves_its_closure_paged() {
    let material: Material = "KPvKP".parse().unwrap();
    let plan = whole_plan(material, Rule::FIFTY, Metric::Dtz);
    let expected = shared_solver().stats(&plan, &NoProgress).unwrap();
    let scratch_before = scratch_dirs();
    let got = Solver::new(None, MemoryLimit::Available)
        .with_pages(test_pages())
        .stats(&plan, &NoProgress)
        .unwrap();
    assert_eq!(got, expected);
    let left: Vec<_> = scratch_dirs()
        .difference(&scratch_before)
        .cloned()
        .collect();
    assert!(left.is_empty(), "scratch left behind: {left:?}");
}

/// This process's scratch directories of paged solves.
fn scratch_dirs() -> std::collections::BTreeSet<std::path::PathBuf> {
    std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("fiftymove-solve-"))
        })
        .collect()
}

/// Overwrites every frame of the cache file at `path` (a link to a shared
/// solve is replaced by a damaged copy; its header and footer are kept, so
/// the file still opens).
fn garble_frames(path: &Path) {
    let mut bytes = std::fs::read(path).unwrap();
    std::fs::remove_file(path).unwrap();
    // The frames lie between the magic number and the header, whose place
    // the footer gives (its first eight bytes).
    let footer = bytes.len() - 24;
    let end = u64::from_le_bytes(bytes[footer..footer + 8].try_into().unwrap()) as usize;
    assert!(end > 8 && end < footer, "{end}");
    for b in &mut bytes[8..end] {
        *b ^= 0x5a;
    }
    std::fs::write(path, &bytes).unwrap();
}

/// A damaged frame of a table read page by page fails the solve with the
/// file named, where a value read in its place would be a silent wrong
/// answer: KPvK reads KQvK (its queen promotions) from copies of its solves
/// (the rule's, and the DTR its classes may come from) whose every frame
/// is overwritten.
#[test]
fn a_damaged_page_fails_the_paged_solve() {
    let material: Material = "KPvK".parse().unwrap();
    let dir = std::env::temp_dir().join(format!("fiftymove-paged-damage-{}", std::process::id()));
    let cache = closure_only_cache(&material, &dir);
    let mut garbled = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if !path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("KQvK.")
        {
            continue;
        }
        garble_frames(&path);
        garbled += 1;
    }
    // At least one file per run of the shared solves; tests that solve
    // under other rules may have added more by now, garbled alike.
    assert!(garbled >= RUNS.len(), "{garbled} files of KQvK");
    let got = Solver::new(Some(cache), MemoryLimit::Available)
        .with_pages(test_pages())
        .stats(&whole_plan(material, Rule::FIFTY, Metric::Dtz), &NoProgress);
    let err = got
        .expect_err("a damaged page must fail the solve")
        .to_string();
    assert!(err.contains("KQvK"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The memory plan: whole where the whole solve fits the limit, paged
/// below it (within the limit), refused where not every step has its least
/// pages, with the least bound named.
#[test]
fn the_memory_plan_pages_only_below_the_whole_bound() {
    let material: Material = "KNNvKP".parse().unwrap();
    let metric = Metric::Dtz;
    let whole = Solver::memory_bound(&material, metric);
    let at = |limit: u64| {
        Solver::new(None, MemoryLimit::Bytes(limit)).memory_plan(&material, Rule::FIFTY, metric)
    };
    assert_eq!(at(whole).pages, None);
    assert_eq!(at(whole).bytes, whole);
    let below = at(whole - 1);
    assert!(below.pages.is_some(), "paged below the whole bound");
    assert!(below.bytes < whole, "{below:?}");
    // The least paged bound: every step with its least pages.
    let least = at(1).bytes;
    assert!(least < whole, "{least} {whole}");
    assert!(at(least).bytes <= least, "{:?}", at(least));
    let refused = Solver::new(None, MemoryLimit::Bytes(least - 1))
        .check_memory(&material, Rule::FIFTY, metric)
        .expect_err("below the least paged bound")
        .to_string();
    assert!(refused.contains(&least.to_string()), "{refused}");
}

/// A solve reads the members of its closure that the cache holds, so its
/// plan counts only the working sets of the steps it solves: KQvKP, whose
/// largest step from an empty cache is a 4-piece material without pawns
/// (KQvKQ and its like: 462 king pairs x 64 x 64 entries, two bytes per
/// side), and whose own largest step holds the 4 slices of one pawn rank
/// side by side (64^3 entries each). By hand: 4 x 1,892,352 = 7,569,408
/// bytes against 4 x 4 x 262,144 = 4,194,304. Within that warm bound the
/// plan keeps every table whole (cold, it pages), and the solve equals the
/// cold one. A member planned as read whose file turns out damaged is not
/// solved past the limit: the solve refuses, naming it.
#[test]
fn a_solve_counts_only_the_members_it_solves() {
    let material: Material = "KQvKP".parse().unwrap();
    let (rule, metric) = (Rule::FIFTY, Metric::Dtz);
    let cold = Solver::new(None, MemoryLimit::Available).memory_plan(&material, rule, metric);
    let dir = std::env::temp_dir().join(format!("fiftymove-warm-plan-{}", std::process::id()));
    let warm_solver = |limit| Solver::new(Some(Cache::new(&dir)), limit);
    closure_only_cache(&material, &dir);
    let warm = warm_solver(MemoryLimit::Available).memory_plan(&material, rule, metric);
    assert_eq!(
        cold.bytes - warm.bytes,
        7_569_408 - 4_194_304,
        "{cold:?} {warm:?}"
    );
    // `solve --plan` gives each material the bound of a job that solves it
    // alone, its closure read from the cache (solved by the jobs before),
    // even with nothing cached yet; without a cache, the whole closure's.
    let empty = std::env::temp_dir().join(format!("fiftymove-empty-plan-{}", std::process::id()));
    let job = |cache: Option<Cache>| {
        Solver::new(cache, MemoryLimit::Available)
            .plan(&material, rule, metric)
            .pop()
            .unwrap()
            .memory_bytes
    };
    assert_eq!(job(Some(Cache::new(&empty))), warm.bytes);
    assert_eq!(job(None), cold.bytes);
    std::fs::remove_dir_all(&empty).ok();
    let limit = MemoryLimit::Bytes(warm.bytes);
    assert!(Solver::new(None, limit)
        .memory_plan(&material, rule, metric)
        .pages
        .is_some());
    assert_eq!(
        warm_solver(limit)
            .memory_plan(&material, rule, metric)
            .pages,
        None
    );
    let plan = whole_plan(material, rule, metric);
    let expected = shared_solver().stats(&plan, &NoProgress).unwrap();
    assert_eq!(
        warm_solver(limit).stats(&plan, &NoProgress).unwrap(),
        expected
    );
    // The same, KQvKP not yet solved, but KQvKQ's files (the rule's, and
    // the DTR whose classes the rule's DTZ may read) damaged: planned as
    // read, then found damaged, it would be solved past the limit.
    std::fs::remove_dir_all(&dir).unwrap();
    closure_only_cache(&material, &dir);
    let mut garbled = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !(name.starts_with("KQvKQ.rule-50.dtz.") || name.starts_with("KQvKQ.rule-none.dtr.")) {
            continue;
        }
        garble_frames(&path);
        garbled += 1;
    }
    assert_eq!(garbled, 2);
    let err = warm_solver(limit)
        .stats(&plan, &NoProgress)
        .expect_err("the damaged member's solve does not fit")
        .to_string();
    assert!(
        err.contains("KQvKQ") && err.contains("planned to be read from the cache"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A progress that keeps the notes it is given.
#[derive(Default)]
struct Notes(std::sync::Mutex<Vec<String>>);

impl super::Progress for Notes {
    fn stage(&self, _: &str, _: usize, _: usize, _: u64) {}
    fn advance(&self, _: u64) {}
    fn note(&self, text: &str) {
        self.0.lock().unwrap().push(text.to_owned());
    }
}

/// A solve interrupted in the middle of a material leaves the slices it
/// finished in its partial file, and the next solve reads them back and
/// solves only the rest, to the whole solve's statistics: KPPvK (its
/// closure read from the shared solves), interrupted after 40 of its
/// slices, paged (one slice at a time, so exactly 40 are kept) and whole
/// (slices side by side: at least 40). Nothing of the partial file is left
/// once the solve is done.
#[test]
fn an_interrupted_solve_resumes_from_its_last_finished_slice() {
    let material: Material = "KPPvK".parse().unwrap();
    let plan = whole_plan(material, Rule::FIFTY, Metric::Dtz);
    let expected = shared_solver().stats(&plan, &NoProgress).unwrap();
    let slices = Layout::new(&material).slices.len();
    for paged in [true, false] {
        let dir =
            std::env::temp_dir().join(format!("fiftymove-resume-{paged}-{}", std::process::id()));
        let solver = |interrupt: Option<usize>| {
            let mut s = Solver::new(
                Some(closure_only_cache(&material, &dir)),
                MemoryLimit::Available,
            );
            if paged {
                s = s.with_pages(test_pages());
            }
            match interrupt {
                Some(n) => s.interrupted_after(n),
                None => s,
            }
        };
        let err = solver(Some(40))
            .stats(&plan, &NoProgress)
            .expect_err("interrupted")
            .to_string();
        assert!(err.contains("interrupted after 40 slices"), "{err}");
        let notes = Notes::default();
        let got = solver(None).stats(&plan, &notes).unwrap();
        assert_eq!(got, expected, "paged: {paged}");
        let notes = notes.0.into_inner().unwrap();
        let resumed: Vec<usize> = notes
            .iter()
            .filter_map(|n| {
                let rest = n.strip_prefix("resuming the solve of KPPvK (dtz, rule 50): ")?;
                let (kept, total) = rest.split_once(" of ")?;
                assert_eq!(
                    total,
                    format!("{slices} slices read back from an interrupted run")
                );
                kept.parse().ok()
            })
            .collect();
        assert_eq!(resumed.len(), 1, "{notes:?}");
        if paged {
            assert_eq!(resumed[0], 40, "{notes:?}");
        } else {
            assert!((40..slices).contains(&resumed[0]), "{notes:?}");
        }
        let left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(left.is_empty(), "{left:?}");
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// The partial file, journal and checkpoints an interrupted solve leaves are removed with
/// the other files of another build (they are never taken up by this one),
/// and this build's are kept (the next solve takes them up).
#[test]
fn partial_files_of_other_builds_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let ours = Cache::file_name("KQvK", Rule::FIFTY, Metric::Dtz);
    let id = crate::build_id::BUILD_ID;
    let other_id: String = id
        .chars()
        .map(|c| if c == '0' { '1' } else { '0' })
        .collect();
    let theirs = ours.replace(id, &other_id);
    assert_ne!(ours, theirs);
    let names = [
        format!(".{ours}.partial"),
        format!(".{ours}.journal"),
        format!(".{ours}.0.checkpoint"),
        format!(".{theirs}.partial"),
        format!(".{theirs}.journal"),
        format!(".{theirs}.12.checkpoint"),
        ".notes.partial".to_owned(),
    ];
    for n in &names {
        std::fs::write(dir.path().join(n), b"x").unwrap();
    }
    let removed = Cache::new(dir.path()).remove_other_builds().unwrap();
    assert_eq!(removed.files, 3);
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    let mut expected = vec![
        names[0].clone(),
        names[1].clone(),
        names[2].clone(),
        names[6].clone(),
    ];
    expected.sort();
    assert_eq!(left, expected);
}

/// The dot files a cache directory holds: partial files, journals,
/// checkpoints, temporaries.
fn dot_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    names.sort();
    names
}

/// A pawnless material is one slice, so a solve killed in it keeps nothing
/// of it in its partial file; its checkpoints keep the work done. KQvKR
/// (its closure read from the shared solves), in DTZ under the 50- and
/// 75-move rules, and in DTM and DTR without a rule (DTR's checkpoints
/// are of the solve without a rule it starts from), checkpointed at every
/// chance: stopped after its tenth checkpoint (in the first pass) and after
/// the ninth level, the next solve resumes from that checkpoint and writes
/// the same cache file, byte for byte, as a solve never stopped. A damaged
/// checkpoint is noted and the slice solved from the start. No checkpoint
/// is left. The same for the solves in half a byte per position under the
/// two rules (`compact`, forced), whose checkpoints keep their codes and
/// the part of their spill file the levels done wrote (a spill cut short
/// is a damaged checkpoint too).
#[test]
fn a_solve_stopped_after_a_checkpoint_resumes_from_it() {
    let material: Material = "KQvKR".parse().unwrap();
    let blocks = Layout::new(&material)
        .entries
        .div_ceil(super::levels::BLOCK);
    let batch = super::drive::first_pass_batch(blocks);
    let batches = blocks.div_ceil(batch);
    assert!(batches > 10, "{batches}");
    let base = std::env::temp_dir().join(format!("fiftymove-checkpoint-{}", std::process::id()));
    for (rule, metric, compact) in [
        (Rule::FIFTY, Metric::Dtz, false),
        (Rule::Moves(75), Metric::Dtz, false),
        (Rule::None, Metric::Dtm, false),
        (Rule::None, Metric::Dtr, false),
        (Rule::FIFTY, Metric::Dtz, true),
        (Rule::Moves(75), Metric::Dtz, true),
    ] {
        let plan = whole_plan(material, rule, metric);
        let file = Cache::file_name(&material.table_name(), rule, metric);
        let tag = format!("{rule}-{}-{compact}", metric.as_str());
        let fresh = base.join(format!("fresh-{tag}"));
        let from = if compact { 0 } else { super::COMPACT_ENTRIES };
        let expected = Solver::new(
            Some(closure_only_cache(&material, &fresh)),
            MemoryLimit::Available,
        )
        .compact_from(from)
        .stats(&plan, &NoProgress)
        .unwrap();
        let expected_file = std::fs::read(fresh.join(&file)).unwrap();
        let label = format!("slice 0 of KQvKR ({})", super::describe(rule, metric));
        for (stop, damaged, note) in [
            (
                10,
                false,
                format!(
                    "resuming {label} from its checkpoint: first pass {} of {blocks} blocks done",
                    10 * batch
                ),
            ),
            (
                batches + 9,
                false,
                format!("resuming {label} from its checkpoint: first pass and levels 0 to 8 done"),
            ),
            (
                batches + 9,
                true,
                "damaged checkpoint, solving the slice from the start".to_owned(),
            ),
        ] {
            let dir = base.join(format!("resumed-{tag}-{stop}-{damaged}"));
            let solver = || {
                Solver::new(
                    Some(closure_only_cache(&material, &dir)),
                    MemoryLimit::Available,
                )
                .checkpoint_every(std::time::Duration::ZERO)
                .compact_from(from)
            };
            let err = solver()
                .stopped_after_checkpoints(stop)
                .stats(&plan, &NoProgress)
                .expect_err("stopped")
                .to_string();
            assert!(err.contains("interrupted after a checkpoint"), "{err}");
            let checkpoint = dir.join(format!(".{file}.0.checkpoint"));
            let spill = dir.join(format!(".{file}.0.spill"));
            let mut left = vec![
                format!(".{file}.0.checkpoint"),
                format!(".{file}.journal"),
                format!(".{file}.partial"),
            ];
            if compact {
                left.insert(1, format!(".{file}.0.spill"));
            }
            assert_eq!(dot_files(&dir), left);
            match (damaged, compact) {
                (false, _) => {}
                (true, false) => {
                    let mut bytes = std::fs::read(&checkpoint).unwrap();
                    let at = bytes.len() - 20;
                    bytes[at] ^= 0x40;
                    std::fs::write(&checkpoint, bytes).unwrap();
                }
                (true, true) => {
                    // The spill cut short: the levels it held are gone.
                    let len = std::fs::metadata(&spill).unwrap().len();
                    assert!(len > 0, "an empty spill after nine levels");
                    let f = std::fs::OpenOptions::new()
                        .write(true)
                        .open(&spill)
                        .unwrap();
                    f.set_len(len / 2).unwrap();
                }
            }
            let notes = Notes::default();
            let got = solver().stats(&plan, &notes).unwrap();
            assert_eq!(got, expected, "{tag} stopped after {stop}");
            assert!(
                std::fs::read(dir.join(&file)).unwrap() == expected_file,
                "{tag} stopped after {stop}: the cache file differs"
            );
            let notes = notes.0.into_inner().unwrap();
            assert!(
                notes.iter().any(|n| n.starts_with(&note)),
                "{note}: {notes:?}"
            );
            assert!(dot_files(&dir).is_empty(), "{:?}", dot_files(&dir));
        }
    }
    std::fs::remove_dir_all(&base).ok();
}

/// Solves of the slices a claim's positions lie in (and those they reach)
/// give the statistics of the whole material's solve with the same filter:
/// a pawn on its seventh rank (counted from its own side) in KPvKP, and in
/// KPvKR, which its table holds with colours swapped (KRvKP); a white pawn
/// on b6 or g6 in KPvKR too, a condition that colours tell apart (and a
/// mirror does not, as the counting asks of filters); a pawn on its sixth
/// in KPPvK, whose other pawn walks into slices of its own; and in KNvKP a
/// black pawn on its fifth rank or behind with a white knight in front, a
/// condition on a knight as well. Under the runs of [`PAGED_RUNS`]. The
/// closure comes from the shared solves (a read outside the slices reached
/// fails), the material's own slices are solved.
#[test]
fn slices_of_a_claim_give_the_whole_solves_statistics() {
    use shakmaty::{Board, Color, Piece, Role, Square};

    use super::{BoardFilter, PawnFilter};
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
        let starts = super::start_slices(&[plan(Rule::FIFTY, Metric::Dtz, true)], &layout)
            .expect("a claim's slices, not the whole material");
        assert!(starts.len() < layout.slices.len(), "{name}");
        let dir =
            std::env::temp_dir().join(format!("fiftymove-slices-{name}-{}", std::process::id()));
        for (rule, metric) in PAGED_RUNS {
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

/// A line under a rule reads the classes of the positions its zeroing
/// moves lead to from the cached DTR of the materials it does not enter,
/// and plays the same line as without them: KQP v K with the pawn on b7
/// under a 10-move rule, where some promotions' wins are cursed. Without the DTR
/// every promotion's material is solved under the rule; with it, fewer.
#[test]
fn a_lines_zeroing_moves_read_their_classes_from_a_cached_dtr() {
    use super::Positions;
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

    use super::Positions;
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
        let compact = Solver::new(Some(cache.clone()), MemoryLimit::Available).compact_from(0);
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

/// A line's start solved in the slices it reaches alone holds, in each of
/// them, the values of the whole material's solve (the shared 3- and
/// 4-piece solves, from a cache of their own): KQ v KP with the pawn on b3
/// under the 50-move rule, DTM and DTR, and KP v KP with the pawns on a2
/// and h7 under the 50-move rule. And a line played from those values is
/// the whole solve's line.
#[test]
fn a_lines_reached_slices_hold_the_whole_solves_values() {
    use super::Positions;
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
    use super::layout::MAX_PIECES;
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

/// A paged step's pages are sized to what its exits read, by hand for
/// KPvK: White's promotions lead to KQvK, KRvK, KBvK and KNvK with Black
/// to move (one side each of 462 king pairs x 64 squares), the king's
/// capture of the pawn to KvK (no table), and the pawn's single and double
/// step to two slices of 64 x 64 king placements, one side each. Classes
/// take a byte per position in a page, depths two.
#[test]
fn a_paged_step_reads_the_sides_its_moves_reach() {
    let kpk: Material = "KPvK".parse().unwrap();
    let by_hand = 4 * 462 * 64 + 2 * 64 * 64;
    assert_eq!(Solver::readable_bytes(&kpk, Metric::Dtz, true), by_hand);
    assert_eq!(Solver::readable_bytes(&kpk, Metric::Dtm, true), 2 * by_hand);
    // A step that reads a material counts it from the file, not by pages.
    assert_eq!(Solver::readable_bytes(&kpk, Metric::Dtz, false), 0);
}
