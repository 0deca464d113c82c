//! Solves whose tables are read page by page against whole solves, a
//! damaged page, and the memory plans that choose between the two.

use super::*;

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
        let expected: Vec<_> = runs(&PAGED_RULES)
            .into_iter()
            .map(|(rule, metric)| {
                whole
                    .stats(&whole_plan(material, rule, metric), &NoProgress)
                    .unwrap()
            })
            .collect();
        let dir =
            std::env::temp_dir().join(format!("fiftymove-paged-{name}-{}", std::process::id()));
        let paged = Solver::for_tests(
            Some(closure_only_cache(&material, &dir)),
            MemoryLimit::Available,
            paged(),
        );
        for ((rule, metric), expected) in runs(&PAGED_RULES).into_iter().zip(expected) {
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
    let got = Solver::for_tests(None, MemoryLimit::Available, paged())
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
    assert!(garbled >= runs(&RULES).len(), "{garbled} files of KQvK");
    let got = Solver::for_tests(Some(cache), MemoryLimit::Available, paged())
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
    assert_eq!(
        crate::solve::memory::readable_bytes(&kpk, Metric::Dtz, true),
        by_hand
    );
    assert_eq!(
        crate::solve::memory::readable_bytes(&kpk, Metric::Dtm, true),
        2 * by_hand
    );
    // A step that reads a material counts it from the file, not by pages.
    assert_eq!(
        crate::solve::memory::readable_bytes(&kpk, Metric::Dtz, false),
        0
    );
}
