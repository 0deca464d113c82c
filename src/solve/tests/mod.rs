//! The solver's unit tests, against other computations of the same
//! values: the metrics against each other position by position
//! (`metrics`), the solves of some slices against whole solves (`slices`),
//! paged solves and the memory plans (`paged`), solves stopped and resumed
//! (`resume`), classes from a cached DTR and the solve in half a byte
//! (`classes`). The 3- and 4-piece materials are solved once per run of the
//! test binary into a cache the tests share ([`solved_3_4_piece_cache`]).

mod classes;
mod dtmn;
mod knobs;
mod metrics;
mod paged;
mod resume;
mod slices;

use std::path::Path;

pub(crate) use self::knobs::Knobs;
use super::{
    cache::Cache,
    layout::Layout,
    table::class_of,
    value::{self, Outcome},
    Metric, NoProgress, Rule, SolvePlan, Solver,
};
use crate::{chess::material::Material, chess::wdl::Wdl, memory::MemoryLimit};

/// The rules (in moves) of the shared solves: 10, 25 and 26 cut some 3-
/// and 4-piece wins short (a win whose DTR exceeds `2N` plies is a cursed
/// win under the `N`-move rule; KQ v KP's longest needs 52), 50, 75 and 100
/// cut none.
const RULES: [u16; 6] = [10, 25, 26, 50, 75, 100];

/// The runs of DTZ under each of `rules`, in their order, then DTZ, DTM and
/// DTR without a rule.
fn runs(rules: &[u16]) -> Vec<(Rule, Metric)> {
    let no_rule = [Metric::Dtz, Metric::Dtm, Metric::Dtr].map(|m| (Rule::None, m));
    rules
        .iter()
        .map(|&n| (Rule::Moves(n), Metric::Dtz))
        .chain(no_rule)
        .collect()
}

#[path = "../../../tests/common/run_cache.rs"]
mod run_cache;

/// The cache of every 3- and 4-piece material (the generator's list of
/// them) solved under each of `runs(&RULES)`, filled once per run of the test
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
            for (rule, metric) in runs(&RULES) {
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

/// The rules of the runs the paged solves are compared in ([`runs`]): the
/// 50- and 75-move rules, and a 10-move rule, under which 3- and 4-piece
/// tables have cursed wins and blessed losses (they have none under the
/// others), so that the classes pages hold are the rule's.
const PAGED_RULES: [u16; 3] = [10, 50, 75];

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

/// The knobs of the paged tests: pages whatever the limit, as few as a
/// paged solve of a large material is given at the least.
fn paged() -> Knobs {
    Knobs {
        pages: Some(super::pages::Pages::minimum_budget(u64::MAX)),
        ..Knobs::default()
    }
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
