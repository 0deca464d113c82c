//! Where the verifier's statistics come from: the sweep of the Syzygy
//! tables (DTZ under the 50-move rule, when the tables are there) or the
//! solver (the same document without tables, and DTR and DTM always),
//! with every document kept in a cache on disk so that a second run costs
//! no sweep and no solve.
//!
//! The claims that concern one material are fetched together: one sweep or
//! one solve counts every filter they use.
//!
//! # The cache
//!
//! One JSON file per document, `<dir>/<material>.<metric>.<hash>.b<BUILD_ID>.json`,
//! holding the key it was made for and the document. The key names the
//! material, the filter, the rule and metric, the engine, the build id (the
//! hash of the sources, [`crate::build_id`]: a document made by other code
//! is never read), and for a sweep the md5 of every table file it
//! read (the official md5 once the tables are verified; with `--no-verify`
//! the files' size and modification time stand in). A file whose key
//! differs is a miss; one that does not parse is damaged, never used, and
//! made again. Files are written atomically.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::Mutex,
};

use md5::{Digest, Md5};
use serde::{Deserialize, Serialize};

use super::filter::Filter;
use crate::{
    build_id::{self, CachedFile, NameParts, BUILD_ID},
    chess::{material::Material, rule::Metric, rule::Rule},
    error::{Error, Result},
    memory::MemoryLimit,
    model::{Engine, ScanStats},
    output::write_atomically,
    probe::Prober,
    scan::{
        probe::{scan_with_prober, ScanPlan},
        sweep::{scan_with_sweep_plans, PROGRESS_UNITS},
    },
    solve::{self, SolvePlan, Solver},
    tables::{checksums, Inventory},
};

/// One document the verifier asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The material, as the claim writes it.
    pub material: Material,
    /// The positions counted.
    pub filter: Option<Filter>,
    /// DTZ (under the 50-move rule), DTR or DTM.
    pub metric: Metric,
}

/// The scan plans of a batch of requests of `material`: one per filter.
fn scan_plans(material: Material, todo: &[(Request, Key)]) -> Vec<ScanPlan> {
    todo.iter()
        .map(|(r, _)| ScanPlan {
            material,
            shard: None,
            raw: false,
            filter: r.filter.as_ref().map(Filter::to_position_filter),
        })
        .collect()
}

/// A document and the engine that made it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Sourced {
    /// The statistics.
    pub stats: ScanStats,
    /// Which engine made them.
    pub engine: Engine,
}

/// Progress of long work, for bars.
pub trait Hooks: Sync {
    /// A sweep of `what` starts, in [`PROGRESS_UNITS`] units; returns the
    /// callback that counts them.
    fn sweep(&self, what: &str) -> Box<dyn Fn(u64) + Sync + '_>;
    /// The sweep is done.
    fn sweep_done(&self);
    /// The solver's progress.
    fn solve(&self) -> &dyn solve::Progress;
}

/// Shows nothing.
pub struct Quiet;

impl Hooks for Quiet {
    fn sweep(&self, _: &str) -> Box<dyn Fn(u64) + Sync + '_> {
        Box::new(|_| {})
    }
    fn sweep_done(&self) {}
    fn solve(&self) -> &dyn solve::Progress {
        &solve::NoProgress
    }
}

/// What a cache file is for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Key {
    material: String,
    filter: String,
    rule: Rule,
    metric: Metric,
    engine: Engine,
    /// The build that made the document.
    build: String,
    /// md5 of the md5s of the tables read (empty for the solver).
    tables: String,
}

#[derive(Serialize, Deserialize)]
struct Entry {
    key: Key,
    stats: ScanStats,
}

/// The cache of documents.
#[derive(Clone, Debug)]
pub struct StatsCache {
    dir: PathBuf,
}

/// Why a cached document was not used.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Lookup {
    Missing,
    /// There, but for another key (a table, the version or the filter
    /// changed).
    Stale,
    /// Not a document.
    Damaged,
}

impl StatsCache {
    /// The cache in `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> StatsCache {
        StatsCache { dir: dir.into() }
    }

    fn path(&self, key: &Key) -> PathBuf {
        let text = serde_json::to_string(key).expect("a key serialises");
        let hash = format!("{:x}", Md5::digest(text.as_bytes()));
        self.dir.join(format!(
            "{}.{}.{}.b{}.json",
            key.material,
            key.metric.as_str(),
            &hash[..16],
            key.build
        ))
    }

    /// Every document of this cache, of every build, and those of the
    /// caches before build ids (`<material>.<metric>.<hash>.json`, listed
    /// with the build `v0`). A missing directory holds none.
    ///
    /// # Errors
    ///
    /// The directory cannot be listed.
    pub fn files(&self) -> std::io::Result<Vec<CachedFile>> {
        // `<material>.<metric>.<hash>`, the stem both namings share.
        let parts_of = |stem: &str, build: String| {
            let parts: Vec<&str> = stem.split('.').collect();
            match parts[..] {
                [material, metric, hash]
                    if build_id::is_material_name(material)
                        && ["dtz", "dtr", "dtm"].contains(&metric)
                        && hash.len() == 16
                        && hash.bytes().all(|b| b.is_ascii_hexdigit()) =>
                {
                    Some(NameParts {
                        material: material.to_owned(),
                        what: metric.to_owned(),
                        build,
                        partial: false,
                    })
                }
                _ => None,
            }
        };
        build_id::list_files(&self.dir, |name| {
            match build_id::split_build_tag(name, "json") {
                Some((stem, build)) => parts_of(stem, build),
                None => parts_of(name.strip_suffix(".json")?, "v0".to_owned()),
            }
        })
    }

    pub(crate) fn get(&self, key: &Key) -> std::result::Result<ScanStats, Lookup> {
        let text = match std::fs::read_to_string(self.path(key)) {
            Ok(t) => t,
            Err(_) => return Err(Lookup::Missing),
        };
        let entry: Entry = serde_json::from_str(&text).map_err(|_| Lookup::Damaged)?;
        if entry.key != *key {
            return Err(Lookup::Stale);
        }
        Ok(entry.stats)
    }

    pub(crate) fn put(&self, key: &Key, stats: &ScanStats) -> Result<()> {
        std::fs::create_dir_all(&self.dir).map_err(|error| Error::Output {
            path: self.dir.clone(),
            error,
        })?;
        let entry = Entry {
            key: key.clone(),
            stats: stats.clone(),
        };
        let text = serde_json::to_vec(&entry).expect("a document serialises");
        write_atomically(&self.path(key), &text)
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// The verifier's source of documents.
pub struct Sources<'a> {
    inventory: &'a Inventory,
    /// Whether the tables' md5s were checked (then the official md5s name
    /// their contents).
    verified: bool,
    memory: MemoryLimit,
    solver: Solver,
    cache: Option<StatsCache>,
    hooks: &'a dyn Hooks,
    /// Requests that will come, fetched together per material and metric.
    wanted: Vec<Request>,
    made: Mutex<HashMap<String, Sourced>>,
    /// Whether slices of frozen pawns (6 pieces) are solved when not
    /// cached: their closures are dozens of 5-piece materials, hours of
    /// work, so a plain run does not start them.
    deep: bool,
}

fn request_key(r: &Request) -> String {
    format!(
        "{}|{}|{}",
        r.material,
        r.filter.as_ref().map(Filter::key).unwrap_or_default(),
        r.metric.as_str()
    )
}

impl<'a> Sources<'a> {
    /// Documents from `inventory`'s tables (md5-checked if `verified`) and
    /// from `solver`, kept in `cache`.
    pub fn new(
        inventory: &'a Inventory,
        verified: bool,
        memory: MemoryLimit,
        solver: Solver,
        cache: Option<StatsCache>,
        hooks: &'a dyn Hooks,
    ) -> Sources<'a> {
        Sources {
            inventory,
            verified,
            memory,
            solver,
            cache,
            hooks,
            wanted: Vec::new(),
            made: Mutex::new(HashMap::new()),
            deep: false,
        }
    }

    /// Also solves slices of frozen pawns and whole 6-piece materials that
    /// are not cached (`claims --deep`).
    pub fn deep(mut self, deep: bool) -> Sources<'a> {
        self.deep = deep;
        self
    }

    /// Whether `r` would need a slice of frozen pawns or a whole 6-piece
    /// material solved that this run does not solve (not `deep`, and not
    /// cached).
    pub fn defers(&self, r: &Request) -> bool {
        if self.deep || r.material.piece_count() <= super::CLAIMS_SOLVE_PIECES {
            return false;
        }
        self.engine_for(r) == Some(Engine::Solve) && !self.is_at_hand(r)
    }

    /// Whether `r`'s document is at hand without work: made in this run or
    /// in the cache.
    pub fn is_at_hand(&self, r: &Request) -> bool {
        if self
            .made
            .lock()
            .expect("no panic while held")
            .contains_key(&request_key(r))
        {
            return true;
        }
        let Some(engine) = self.engine_for(r) else {
            return false;
        };
        let key = self.key(r, engine);
        matches!(self.cache.as_ref().map(|c| c.get(&key)), Some(Ok(_)))
    }

    /// Whether the whole, unfiltered DTZ document of `material` is at hand
    /// without work: made in this run or in the cache.
    pub fn has_cached_scan(&self, material: &Material) -> bool {
        self.is_at_hand(&Request {
            material: *material,
            filter: None,
            metric: Metric::Dtz,
        })
    }

    /// The solver.
    pub fn solver(&self) -> &Solver {
        &self.solver
    }

    /// The hooks.
    pub fn hooks(&self) -> &dyn Hooks {
        self.hooks
    }

    /// Announces a request, so that it is made with the others of its
    /// material and metric.
    pub fn want(&mut self, r: Request) {
        if !self.wanted.contains(&r) {
            self.wanted.push(r);
        }
    }

    /// Whether the Syzygy tables of `material`'s closure are all present.
    pub fn has_tables(&self, material: &Material) -> bool {
        self.inventory.missing_for(material).is_empty()
    }

    /// Which engine would make `r`: the sweep for DTZ when the tables are
    /// present, else the solver up to its piece count.
    pub fn engine_for(&self, r: &Request) -> Option<Engine> {
        if r.metric == Metric::Dtz && self.has_tables(&r.material) {
            Some(Engine::Sweep)
        } else if solvable(&r.material, r.filter.as_ref()) {
            Some(Engine::Solve)
        } else {
            None
        }
    }

    fn key(&self, r: &Request, engine: Engine) -> Key {
        let tables = match engine {
            Engine::Solve => String::new(),
            Engine::Probe | Engine::Sweep => {
                let mut h = Md5::new();
                for file in r.material.closure_files() {
                    let part = match (self.verified, checksums::official(&file)) {
                        (true, Some(o)) => o.md5.to_owned(),
                        _ => self
                            .inventory
                            .path(&file)
                            .and_then(|p| std::fs::metadata(p).ok())
                            .map(|m| {
                                let modified = m
                                    .modified()
                                    .ok()
                                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                                    .map_or(0, |d| d.as_nanos());
                                format!("unverified {} {modified}", m.len())
                            })
                            .unwrap_or_default(),
                    };
                    h.update(file.as_bytes());
                    h.update(part.as_bytes());
                }
                format!("{:x}", h.finalize())
            }
        };
        Key {
            material: r.material.to_string(),
            filter: r.filter.as_ref().map(Filter::key).unwrap_or_default(),
            rule: if r.metric == Metric::Dtz {
                Rule::FIFTY
            } else {
                Rule::None
            },
            metric: r.metric,
            engine,
            build: BUILD_ID.to_owned(),
            tables,
        }
    }

    /// The document of `r`, from the cache or made (with the other wanted
    /// requests of its material and metric).
    ///
    /// # Errors
    ///
    /// Table, memory and solver errors; [`Error::NoEngine`] for a material no
    /// engine takes.
    pub fn fetch(&self, r: &Request) -> Result<Sourced> {
        if let Some(s) = self
            .made
            .lock()
            .expect("no panic while held")
            .get(&request_key(r))
        {
            return Ok(s.clone());
        }
        let engine = self.engine_for(r).ok_or_else(|| Error::NoEngine {
            material: r.material.to_string(),
            pieces: r.material.piece_count(),
        })?;
        // The batch: this request and the others wanted of its material and
        // metric that the cache does not hold.
        let mut batch = vec![r.clone()];
        for w in &self.wanted {
            if w.material == r.material && w.metric == r.metric && !batch.contains(w) {
                batch.push(w.clone());
            }
        }
        let mut todo = Vec::new();
        for b in batch {
            let key = self.key(&b, engine);
            match self.cache.as_ref().map(|c| c.get(&key)) {
                Some(Ok(stats)) => {
                    self.made
                        .lock()
                        .expect("no panic while held")
                        .insert(request_key(&b), Sourced { stats, engine });
                }
                _ => todo.push((b, key)),
            }
        }
        if !todo.is_empty() {
            let made = self.make(&todo, engine)?;
            for ((b, key), stats) in todo.iter().zip(made) {
                if let Some(c) = &self.cache {
                    c.put(key, &stats)?;
                }
                self.made
                    .lock()
                    .expect("no panic while held")
                    .insert(request_key(b), Sourced { stats, engine });
            }
        }
        Ok(self.made.lock().expect("no panic while held")[&request_key(r)].clone())
    }

    fn make(&self, todo: &[(Request, Key)], engine: Engine) -> Result<Vec<ScanStats>> {
        let material = todo[0].0.material;
        match engine {
            Engine::Probe => {
                // Never chosen (the sweep is faster), but it fills the same
                // document: one probe per position.
                let prober = Prober::new(self.inventory.open()?);
                scan_plans(material, todo)
                    .iter()
                    .map(|plan| scan_with_prober(&prober, plan, &|_| {}))
                    .collect()
            }
            Engine::Sweep => {
                let plans = scan_plans(material, todo);
                let what = format!(
                    "scan {material}{}",
                    if plans.len() > 1 {
                        format!(" ({} filters)", plans.len())
                    } else {
                        String::new()
                    }
                );
                let step = self.hooks.sweep(&what);
                let out = scan_with_sweep_plans(self.inventory, &plans, self.memory, &*step);
                drop(step);
                self.hooks.sweep_done();
                out
            }
            Engine::Solve
                if material.piece_count() > super::CLAIMS_SOLVE_PIECES && material.has_pawns() =>
            {
                // A slice of frozen pawns: one filter gives the slice, and the
                // plans of the batch share it.
                let pawns = todo
                    .iter()
                    .find_map(|(r, _)| r.filter.as_ref().and_then(Filter::frozen_pawns))
                    .ok_or_else(|| {
                        Error::inconsistent(
                            "the claims' sources",
                            format!("no slice of {material} to solve"),
                        )
                    })?;
                let plans = self.solve_plans(material, todo);
                self.solver
                    .frozen_stats_many(&plans, &pawns, self.hooks.solve())
            }
            Engine::Solve => {
                let plans = self.solve_plans(material, todo);
                let mut out = self.solver.stats_many(&plans, self.hooks.solve())?;
                // The verifier reads the document as a scan: the solver's
                // fields say how it was made.
                for s in &mut out {
                    s.engine = Some("solve".into());
                }
                Ok(out)
            }
        }
    }

    fn solve_plans(&self, material: Material, todo: &[(Request, Key)]) -> Vec<SolvePlan> {
        let metric = todo[0].0.metric;
        todo.iter()
            .map(|(r, _)| SolvePlan {
                material,
                rule: if metric == Metric::Dtz {
                    Rule::FIFTY
                } else {
                    Rule::None
                },
                metric,
                shard: None,
                raw: false,
                filter: r.filter.clone().map(|f| {
                    std::sync::Arc::new(move |b: &shakmaty::Board| f.matches_board(b))
                        as solve::BoardFilter
                }),
                // The slices the filter's positions lie in, and what they
                // reach, are all a claim about some positions needs.
                pawns: r.filter.clone().map(|f| {
                    std::sync::Arc::new(move |p: &[(shakmaty::Color, shakmaty::Square)]| {
                        f.pawns_can_match(p)
                    }) as solve::PawnFilter
                }),
            })
            .collect()
    }
}

/// Whether the solver can make documents of `material` (with `filter`):
/// up to five pieces, six without pawns (a whole 6-piece solve, which
/// only `claims --deep` starts), or a slice of frozen pawns whose captures
/// lead to five.
pub fn solvable(material: &Material, filter: Option<&Filter>) -> bool {
    material.piece_count() <= super::CLAIMS_SOLVE_PIECES
        || (material.piece_count() <= solve::MAX_SOLVE_PIECES && !material.has_pawns())
        || (filter.and_then(Filter::frozen_pawns).is_some()
            && material
                .captures()
                .iter()
                .all(|c| c.piece_count() <= super::CLAIMS_SOLVE_PIECES))
}

/// The units of a sweep's progress.
pub const SWEEP_UNITS: u64 = PROGRESS_UNITS;

#[cfg(test)]
mod tests {
    use super::*;

    fn key(tables: &str, build: &str) -> Key {
        Key {
            material: "KRBvKR".into(),
            filter: String::new(),
            rule: Rule::FIFTY,
            metric: Metric::Dtz,
            engine: Engine::Sweep,
            build: build.into(),
            tables: tables.into(),
        }
    }

    /// Hits, misses when a table's md5 or the build changes, atomic
    /// writes, and damaged entries that are never used.
    #[test]
    fn cache_hits_misses_and_damage() {
        let dir = tempfile_dir();
        let cache = StatsCache::new(&dir);
        let doc = ScanStats::new("KRBvKR", false);
        let (ours, theirs) = ("0123456789abcdef", "fedcba9876543210");
        let k = key("aaaa", ours);
        assert_eq!(cache.get(&k).unwrap_err(), Lookup::Missing);
        cache.put(&k, &doc).unwrap();
        assert_eq!(cache.get(&k).unwrap(), doc);
        // Another md5 of the tables, another build: misses (they name
        // other files, or the same file fails the key comparison).
        assert!(cache.get(&key("bbbb", ours)).is_err());
        assert!(cache.get(&key("aaaa", theirs)).is_err());
        // A file for one key holding another key is stale.
        let other = key("cccc", ours);
        std::fs::copy(cache.path(&k), cache.path(&other)).unwrap();
        assert_eq!(cache.get(&other).unwrap_err(), Lookup::Stale);
        // A damaged file is detected, and replaced by the next put.
        let path = cache.path(&k);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.truncate(bytes.len() / 2);
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(cache.get(&k).unwrap_err(), Lookup::Damaged);
        cache.put(&k, &doc).unwrap();
        assert_eq!(cache.get(&k).unwrap(), doc);
        // Nothing half-written is left behind.
        for e in std::fs::read_dir(&dir).unwrap() {
            let name = e.unwrap().file_name();
            assert!(!name.to_string_lossy().ends_with(".tmp"), "{name:?}");
        }
        // Both documents are listed by their build and material, one of
        // the caches before build ids too, and nothing else.
        std::fs::write(dir.join("KRBvKR.dtr.0123456789abcdef.json"), b"{}").unwrap();
        std::fs::write(dir.join("notes.json"), b"{}").unwrap();
        let listed: Vec<(String, String, String)> = cache
            .files()
            .unwrap()
            .into_iter()
            .map(|f| (f.material, f.what, f.build))
            .collect();
        let mut expected = vec![
            ("KRBvKR".to_owned(), "dtz".to_owned(), ours.to_owned()),
            ("KRBvKR".to_owned(), "dtz".to_owned(), ours.to_owned()),
            ("KRBvKR".to_owned(), "dtr".to_owned(), "v0".to_owned()),
        ];
        expected.sort();
        let mut listed = listed;
        listed.sort();
        assert_eq!(listed, expected);
        std::fs::remove_dir_all(&dir).ok();
    }

    fn tempfile_dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!("fiftymove-stats-cache-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }
}
