//! The census: where move-limit rules cut forced wins short, across the
//! endgames. One DTR solve per material answers every rule at once (a rule
//! of `N` moves keeps exactly the wins whose DTR is at most `2N` plies), so
//! the census is the DTR documents of a set of materials, by default every
//! Syzygy material up to five pieces (5 + 30 + 110 = 145), set side by side.
//!
//! A [`CensusPlan`] names the materials (and a shard of them, for a cluster);
//! [`run`] fetches each material's DTR document from the statistics cache or
//! solves it (the solver keeps what it solves, so the closure of the next
//! material is read, not solved again), one material at a time, and a killed
//! census loses at most the material in progress. [`Census`] holds the
//! documents in census order; [`summary`] derives, per side, the wins each
//! rule keeps and loses; [`lists`] sets FIDE's historical exception lists
//! against the census.
//!
//! Layer: above [`crate::claims`] (its cache of documents and its catalog
//! of the lists), [`crate::solve`], [`crate::model`] and [`crate::chess`],
//! which it uses. The reports and the binary use it.

pub mod lists;
pub mod summary;

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::{
    build_id::BUILD_ID,
    chess::material::{table_names, Material},
    claims::{Hooks, Request, Sources},
    error::{Error, Result},
    model::{ScanStats, Shard},
    solve::{self, Metric, Rule},
};

pub use self::summary::{kept_under, SideSummary};

/// Most pieces of the default census: every material the Syzygy tables
/// hold up to five pieces.
pub const DEFAULT_MAX_PIECES: usize = 5;

/// Every Syzygy material of 3 to `max_pieces` pieces, in census order:
/// fewer pieces first, then fewer pawns, then by name. Each comes after
/// every material its captures and promotions reach, so a census in this
/// order solves each material's closure before it.
pub fn materials_up_to(max_pieces: usize) -> Vec<Material> {
    let mut all: Vec<Material> = table_names()
        .into_iter()
        .map(|name| name.parse::<Material>().expect("table names parse"))
        .filter(|m| m.piece_count() <= max_pieces)
        .collect();
    sort_in_census_order(&mut all);
    all
}

/// Sorts `materials` as [`materials_up_to`] orders them.
pub fn sort_in_census_order(materials: &mut [Material]) {
    materials.sort_by_key(Material::size_order_key);
}

/// What a census covers: materials (normalised, each once, in census
/// order), and the part of them this run takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CensusPlan {
    materials: Vec<Material>,
    shard: Option<Shard>,
}

impl CensusPlan {
    /// The census of `materials` (each normalised to its table; repeats
    /// dropped), or of every material up to [`DEFAULT_MAX_PIECES`] pieces
    /// when none is given; `shard` takes every `n`-th material of them.
    ///
    /// # Errors
    ///
    /// [`Error::Usage`] for a material the solver does not take.
    pub fn new(materials: &[Material], shard: Option<Shard>) -> Result<CensusPlan> {
        let mut chosen: Vec<Material> = if materials.is_empty() {
            materials_up_to(DEFAULT_MAX_PIECES)
        } else {
            materials.iter().map(Material::normalized).collect()
        };
        sort_in_census_order(&mut chosen);
        chosen.dedup_by_key(|m| m.table_name());
        for m in &chosen {
            if m.piece_count() > solve::MAX_SOLVE_PIECES {
                return Err(Error::Usage(format!(
                    "census {m}: {} pieces; the solver takes at most {}",
                    m.piece_count(),
                    solve::MAX_SOLVE_PIECES
                )));
            }
        }
        Ok(CensusPlan {
            materials: chosen,
            shard,
        })
    }

    /// Every material of the census, in census order.
    pub fn materials(&self) -> &[Material] {
        &self.materials
    }

    /// The shard, if the run takes only part of the census.
    pub fn shard(&self) -> Option<Shard> {
        self.shard
    }

    /// The materials this run takes: all, or its shard's (the `k`-th of
    /// every `n`, in census order, so that each shard gets small and large
    /// materials alike).
    pub fn selected(&self) -> Vec<Material> {
        self.materials
            .iter()
            .enumerate()
            .filter(|(i, _)| self.shard.is_none_or(|s| s.holds(*i as u32)))
            .map(|(_, m)| *m)
            .collect()
    }
}

/// The request of a material's census document: its DTR solve, whole.
pub fn request(material: &Material) -> Request {
    Request {
        material: *material,
        filter: None,
        metric: Metric::Dtr,
    }
}

/// What a census run shows as it goes.
pub trait CensusProgress: Hooks {
    /// Material `index` of `count` (from 0) starts; `cached` if its
    /// document is at hand without a solve.
    fn material(&self, material: &Material, index: usize, count: usize, cached: bool);
    /// That material is done, after `took`.
    fn material_done(&self, material: &Material, index: usize, count: usize, took: Duration);
}

/// The census of a plan's selected materials: each one's DTR document,
/// from `sources` (its cache of documents, else the solver), in census
/// order. Each document is cached as soon as it is made, so a killed run
/// loses at most the material in progress.
///
/// # Errors
///
/// The solver's errors (memory, a solve too deep, the cache).
pub fn run(
    plan: &CensusPlan,
    sources: &Sources<'_>,
    progress: &dyn CensusProgress,
) -> Result<Census> {
    let selected = plan.selected();
    let mut rows = Vec::with_capacity(selected.len());
    for (index, m) in selected.iter().enumerate() {
        let r = request(m);
        progress.material(m, index, selected.len(), sources.is_at_hand(&r));
        let started = Instant::now();
        let mut doc = sources.fetch(&r)?.stats;
        // The census names the table, as the materials are normalised.
        doc.material = m.table_name();
        progress.material_done(m, index, selected.len(), started.elapsed());
        rows.push(doc);
    }
    Ok(Census { rows })
}

/// The DTR documents of a census, one per material, in census order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Census {
    rows: Vec<ScanStats>,
}

impl Census {
    /// A census of saved documents (`census --shard ... --out`, or `solve
    /// --metric dtr --out`), put in census order.
    ///
    /// # Errors
    ///
    /// [`Error::Usage`] for a document that is not a whole DTR solve without
    /// a rule, or for a material given twice.
    pub fn from_documents(mut rows: Vec<ScanStats>) -> Result<Census> {
        for doc in &rows {
            if doc.metric != Some(Metric::Dtr)
                || doc.rule != Some(Rule::None)
                || doc.shard.is_some()
            {
                return Err(Error::Usage(format!(
                    "census: the document of {} is not a whole DTR solve (census --out, or solve --metric dtr --out)",
                    doc.material
                )));
            }
        }
        let mut keyed = Vec::with_capacity(rows.len());
        for doc in rows.drain(..) {
            let m: Material = doc.material.parse()?;
            keyed.push((m.normalized().size_order_key(), doc));
        }
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        for pair in keyed.windows(2) {
            if pair[0].0 == pair[1].0 {
                return Err(Error::Usage(format!(
                    "census: {} is given twice",
                    pair[0].1.material
                )));
            }
        }
        Ok(Census {
            rows: keyed.into_iter().map(|(_, d)| d).collect(),
        })
    }

    /// The documents, in census order.
    pub fn rows(&self) -> &[ScanStats] {
        &self.rows
    }

    /// The build that computed the documents (they are of one build when
    /// read with [`crate::model::merge::read_results`], or made by this
    /// one), if they name it.
    pub fn build(&self) -> Option<&str> {
        self.rows.first().and_then(|r| r.build.as_deref())
    }

    /// The census as one JSON document: the build, the rules counted, and
    /// a row per material, each the material's DTR document as `solve
    /// --metric dtr` writes it (`material`, then per side `positions`,
    /// `wdl`, `dtr`, `longest`, `won_under`, `lost_under`).
    pub fn document(&self) -> CensusDocument<'_> {
        CensusDocument {
            census: "dtr",
            build: self.build().unwrap_or(BUILD_ID),
            rules: crate::model::RULES_COUNTED,
            materials: self.rows.len(),
            rows: &self.rows,
        }
    }
}

/// [`Census::document`].
#[derive(Serialize)]
pub struct CensusDocument<'a> {
    /// What the rows are: DTR documents.
    pub census: &'static str,
    /// The build that computed them.
    pub build: &'a str,
    /// The rules each row's `won_under` counts, in moves.
    pub rules: [u16; 4],
    /// How many materials.
    pub materials: usize,
    /// The rows.
    pub rows: &'a [ScanStats],
}

/// A rough estimate of the positions of `material` (both sides to move), for
/// the census's plan and its ETA before any material is measured: the
/// placements of its pieces on distinct squares (pawns on 48), divided by
/// the board symmetries the counting convention removes and by the orders
/// of like pieces.
pub fn estimated_positions(material: &Material) -> f64 {
    let pieces = material.pieces();
    let mut free_squares = 64.0f64;
    let mut placements = 1.0f64;
    let mut free_pawn_squares = 48.0f64;
    for p in &pieces {
        if p.role == shakmaty::Role::Pawn {
            placements *= free_pawn_squares;
            free_pawn_squares -= 1.0;
        } else {
            placements *= free_squares;
        }
        free_squares -= 1.0;
    }
    for color in shakmaty::Color::ALL {
        for role in shakmaty::Role::ALL {
            let k = material.side(color).count(role);
            placements /= (1..=u32::from(k)).map(f64::from).product::<f64>();
        }
    }
    let symmetries = material.symmetries().len() as f64;
    2.0 * placements / symmetries
}

/// Estimated seconds of the DTR solve of `material` on `threads` threads,
/// from [`estimated_positions`] and a cost per position measured on the
/// census of the 145 materials up to five pieces (docs/census.md): a first
/// guess for the plan and the ETA, which the run corrects as it measures.
/// A DTR solve's time follows its number of levels (its longest DTR) as
/// much as its size, which no estimate knows before the solve: single
/// 5-piece materials took from 0.1 to 2.4 times this guess.
pub fn estimated_seconds(material: &Material, threads: usize) -> f64 {
    // CPU-nanoseconds per estimated position of a DTR solve, pawnless and
    // with pawns: the 5-piece materials' CPU time (wall time on 2 threads,
    // twice) over their estimated positions, on the idle 2-core machine
    // of the census of 2026-12-07 (the pawnless 60 materials; the first
    // materials with pawns). The first guess, 120 and 200, was 6 and 4
    // times too small.
    const PAWNLESS_NS: f64 = 770.0;
    const PAWNS_NS: f64 = 730.0;
    let ns = if material.has_pawns() {
        PAWNS_NS
    } else {
        PAWNLESS_NS
    };
    estimated_positions(material) * ns * 1e-9 / threads.max(1) as f64
}
