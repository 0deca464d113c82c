//! The sweep engine for `scan`: whole-table statistics from sequential
//! decoding of the table files, with exact DTZ, and the same numbers as the
//! probe engine ([`crate::scan::probe`]) under docs/design.md's convention.
//!
//! Both sides' WDL come from the WDL file, made exact with the captures
//! (the tables they lead to are decoded into memory too); the stored
//! side's DTZ comes from the DTZ file; the side the DTZ file does not store
//! is computed by a one-ply search in memory, only where the position is
//! decisive; DTZ rounding is settled by parity and checked against the
//! successors. See the `dtz` module for the passes and `weights` for the
//! conversion from Syzygy's indices to our orbit counts. Everything about
//! the file format (indices, sub-tables, locating a position, walking a
//! sub-table) comes from [`crate::tables::reader`]: this engine is its
//! client and holds no index arithmetic of its own.
//!
//! # Memory
//!
//! The sweep works in the index space of the DTZ file, chunk by chunk: a
//! chunk is one sub-table of the DTZ file (a file of the leading pawn) for
//! asymmetric pawn tables, since a move that keeps the material moves no
//! pawn off its file and its successor stays in the same sub-table; else
//! the whole table (see `Sweep::chunks`). Per chunk, 2 bytes per index
//! (the WDL codes of both sides to move; 1 for symmetric material, whose
//! files store one side). Pass 1 adds the WDL file's stored values that
//! one block reads (half a byte per index and side;
//! a symmetric table's whole file, a byte per index). The later passes
//! (DTZ, rounding, counting) add 1 byte per index and side stored (the raw
//! DTZ magnitude; the rounding state lives in spare bits of the WDL codes,
//! see `dtz::encode_mag`). A pawnless table that does not fit so keeps
//! only the stored side's, and works the other side's out again, by pass
//! 3's one-ply search, wherever it is read (`recomputes_unstored` in the
//! plan): 3 bytes per index. Where that does not fit either, the stored
//! side's DTZ is decoded from the file page by page where read, pass 1
//! reads the WDL values through pages, and, last, the WDL codes are packed
//! five bits each (`dtz::codes`): 2/3 of a byte per index and side.
//!
//! The tables that captures and promotions reach (the closure) take 1 byte
//! per index and side decoded whole, or, under a memory limit they do not
//! fit, are read page by page within one budget (`pages`, `plan`): the
//! smallest whole, the others paged. The files are read as they are
//! decoded, never held; their parsed headers are (`header_allowance`). So
//! a pawnless table takes 4 bytes per index (3 where it recomputes its
//! unstored side, 2 if symmetric: one side's code and DTZ byte) plus its
//! closure: KNN v KNN (1.55 G indices) about 3.3 GB, KRN v KNN (3.38 G)
//! about 14 GB, or 10.7 GB recomputing; a pawn table 4 bytes per index of
//! its largest file or slice; see docs/six-pieces.md.

// The index arithmetic walks parallel arrays (squares, digits, codes) by
// position, as the Syzygy format defines it; indexed loops say that best.
#![allow(clippy::needless_range_loop)]

mod board;
mod closure;
mod dtz;
mod first_error;
mod pages;
mod plan;
mod shard;
mod weights;

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use shakmaty::Color;

pub use self::plan::SweepMemoryPlan;
use self::{
    board::Pos,
    dtz::{sign, Block, Sweep, CHUNK, DTZ_MATED, ILLEGAL, MATED, PROCESS_BYTES},
    plan::TableCost,
    shard::ShardCount,
    weights::{like_factorial, on_one_diagonal, Canon, Squares},
};
use crate::{
    chess::wdl::Wdl,
    error::{Error, Result},
    memory::MemoryLimit,
    model::{DtzHistograms, Histogram, Longest, RawCounts, ScanStats, SideStats, WdlCounts},
    scan::probe::ScanPlan,
    tables::reader::{header_allowance, SweepError, SweepTable, TableKind},
    tables::Inventory,
};

/// Progress is reported in this many units per material.
pub const PROGRESS_UNITS: u64 = 1000;

/// Maps the decoder's errors to ours.
pub(crate) fn table_error(e: SweepError) -> Error {
    let check = "check it with `fiftymove tables --verify`";
    let (path, detail) = match e {
        SweepError::Io { path, error } => (path, error.to_string()),
        SweepError::Name { path } => (path, "is not named like a Syzygy table".to_owned()),
        SweepError::Magic { path, found } => (
            path,
            format!(
                "does not start with the magic bytes of its kind (found {found:02x?}); {check}"
            ),
        ),
        SweepError::Corrupt { path, what } => {
            (path, format!("is truncated or damaged ({what}); {check}"))
        }
        SweepError::BadRequest { path, what } => (path, format!("cannot answer: {what}")),
    };
    Error::Table {
        what: path.display().to_string(),
        detail,
    }
}

/// Work done so far, reported in [`PROGRESS_UNITS`].
pub(crate) struct Progress<'a> {
    done: AtomicU64,
    total: u64,
    report: &'a (dyn Fn(u64) + Sync),
}

impl Progress<'_> {
    pub(crate) fn add(&self, n: u64) {
        let before = self.done.fetch_add(n, Ordering::Relaxed);
        let after = (before + n).min(self.total);
        let a = before.min(self.total) * PROGRESS_UNITS / self.total.max(1);
        let b = after * PROGRESS_UNITS / self.total.max(1);
        if b > a {
            (self.report)(b - a);
        }
    }

    fn finish(&self) {
        let before = self
            .done
            .swap(self.total, Ordering::Relaxed)
            .min(self.total);
        let a = before * PROGRESS_UNITS / self.total.max(1);
        if PROGRESS_UNITS > a {
            (self.report)(PROGRESS_UNITS - a);
        }
    }
}

/// Scans one material with the sweep engine. `progress` receives
/// increments summing to [`PROGRESS_UNITS`].
///
/// The result is identical to [`crate::scan::probe::scan_with_prober`]'s
/// for the same plan (shards included: a shard holds the same positions as
/// the probe engine's shard of the same number).
///
/// # Errors
///
/// [`Error::MissingTables`] if a table of the material's closure is
/// missing; [`Error::TableRead`] or [`Error::Table`] for unreadable or damaged tables;
/// [`Error::Memory`] if the sweep could take more memory than `memory`
/// allows (checked from the table headers before any work);
/// [`Error::Inconsistent`] if the tables contradict themselves.
pub fn scan_with_sweep(
    inv: &Inventory,
    plan: &ScanPlan,
    memory: MemoryLimit,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<ScanStats> {
    let mut all = scan_with_sweep_plans(inv, std::slice::from_ref(plan), memory, progress)?;
    Ok(all.remove(0))
}

/// What a sweep of `material` takes under `memory`, from its tables'
/// headers (what `scan` checks against `--memory-limit`, and `scan --plan`
/// prints).
///
/// # Errors
///
/// Missing or unreadable tables of the closure.
pub fn sweep_memory_plan(
    inv: &Inventory,
    material: &crate::chess::material::Material,
    memory: MemoryLimit,
) -> Result<SweepMemoryPlan> {
    Ok(open_sweep(inv, material)?.memory_plan(memory.bytes()).0)
}

/// [`sweep_memory_plan`] worked out from the material alone, for when the
/// tables are not there to read their headers: the same sums (for the
/// scanned table, per index of its largest chunk 2 bytes and the larger
/// of one block's WDL values and 1 byte per side, and the program; for each
/// table of the closure 1 byte per stored index; for each file read, the
/// headers' allowance; see `Sweep::own_bound` and `Closure::costs`) with
/// each table's index sizes by Syzygy's index arithmetic and each file's
/// official size (none for a file the official list lacks), planned the
/// same way. Where the headers are present the two agree (tested on
/// every table installed, under several limits).
pub fn sweep_memory_estimate(
    material: &crate::chess::material::Material,
    memory: MemoryLimit,
) -> SweepMemoryPlan {
    use crate::tables::reader::{index_sizes, lead_radices};
    let target = material.normalized();
    let symmetric = target.side(Color::White) == target.side(Color::Black);
    // The DTZ file stores one side: one block per sub-table.
    let blocks = index_sizes(&target);
    let n: u64 = blocks.iter().sum();
    // The headers of a file: by its official size, and its sub-tables
    // (one per leading pawn file, per side stored).
    let headers = |m: &crate::chess::material::Material, ext: &str, sides: usize| {
        let file = format!("{}.{ext}", m.table_name());
        let bytes = crate::tables::checksums::official(&file).map_or(0, |f| f.bytes);
        let files = if m.has_pawns() { 4 } else { 1 };
        header_allowance(bytes, files * sides)
    };
    let closure: Vec<TableCost> = target
        .closure()
        .into_iter()
        .filter(|name| *name != target.table_name())
        .filter_map(|name| {
            let m = name.parse::<crate::chess::material::Material>().ok()?;
            let sides = if m.side(Color::White) == m.side(Color::Black) {
                1
            } else {
                2
            };
            Some(TableCost {
                values: sides as u64 * index_sizes(&m).iter().sum::<u64>(),
                headers: headers(&m, "rtbw", sides),
                name,
            })
        })
        .collect();
    let wdl_sides = if symmetric { 1 } else { 2 };
    let fixed = (headers(&target, "rtbw", wdl_sides) + headers(&target, "rtbz", 1))
        .saturating_add(PROCESS_BYTES);
    // As `Sweep::own_cost`: pass 1's WDL values and the later passes' DTZ
    // bytes take the same room here. Symmetric tables are swept as one
    // chunk of 1 byte per index for the codes, then one side's values;
    // the others block by block (or slice by slice), each reading both
    // sides' WDL values, then holding both sides' DTZ: 4 bytes per index.
    let own = if symmetric {
        plan::OwnCost {
            fixed: fixed.saturating_add(n),
            blocks: vec![(n, None)],
            per_index: 1,
            lean_per_index: None,
            paged_stored: dtz::symmetric_paged_stored(fixed, [n, 0]),
            symmetric: true,
            own_values: n,
            own_headers: headers(&target, "rtbw", wdl_sides),
            name: target.table_name(),
        }
    } else {
        let radices = lead_radices(&target);
        plan::OwnCost {
            fixed,
            blocks: blocks
                .iter()
                .enumerate()
                .map(|(k, &size)| (size, radices.as_ref().map(|r| r[k])))
                .collect(),
            per_index: 4,
            lean_per_index: dtz::lean_per_index(target.has_pawns()),
            paged_stored: dtz::asymmetric_paged_stored(target.has_pawns(), fixed),
            symmetric: false,
            own_values: 2 * n,
            own_headers: headers(&target, "rtbw", wdl_sides),
            name: target.table_name(),
        }
    };
    plan::plan_slices(&own, &closure, memory.bytes()).0
}

fn open_sweep(inv: &Inventory, material: &crate::chess::material::Material) -> Result<Sweep> {
    let label = material.to_string();
    inv.require(material, &label)?;
    let name = material.table_name();
    let open = |kind: TableKind, ext: &str| -> Result<SweepTable> {
        let file = format!("{name}.{ext}");
        let path = inv.path(&file).ok_or_else(|| Error::MissingTables {
            needed_for: label.clone(),
            files: vec![file.clone()],
        })?;
        SweepTable::open(path, kind).map_err(table_error)
    };
    let wdl_file = open(TableKind::Wdl, "rtbw")?;
    let dtz_file = open(TableKind::Dtz, "rtbz")?;
    let others: Vec<String> = material
        .closure()
        .into_iter()
        .filter(|n| *n != name)
        .collect();
    let closure = closure::Closure::open(inv, &others, &label)?;
    Sweep::new(wdl_file, dtz_file, closure)
}

/// Scans with one sweep for several plans of the same material (different
/// filters, say): the table is decoded and its DTZ worked out once, and
/// only the counting pass runs once per plan. The statistics come back in
/// the plans' order.
///
/// # Errors
///
/// As [`scan_with_sweep`]; [`Error::Usage`] if the plans are not all of one
/// material and none is given.
pub fn scan_with_sweep_plans(
    inv: &Inventory,
    plans: &[ScanPlan],
    memory: MemoryLimit,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<ScanStats>> {
    let Some(first) = plans.first() else {
        return Err(Error::Usage("a sweep needs a plan".into()));
    };
    let material = first.material;
    if plans.iter().any(|p| p.material != material) {
        return Err(Error::Usage("one sweep scans one material".into()));
    }
    let mut sweep = open_sweep(inv, &material)?;
    let limit = memory.bytes();
    let (plan, whole) = sweep.memory_plan(limit);
    if let (false, Some(limit)) = (plan.within, limit) {
        return Err(Error::Memory {
            needed_for: format!("scan {material}"),
            engine: "the sweep engine",
            instead: Some("scan --engine probe needs little memory"),
            needed: plan.bytes,
            limit,
        });
    }
    sweep.hold(&plan, &whole)?;
    sweep_held(sweep, plans, progress)
}

/// Runs the passes of `sweep`, its closure held, for `plans` (of its
/// material).
fn sweep_held(
    mut sweep: Sweep,
    plans: &[ScanPlan],
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<ScanStats>> {
    let material = plans[0].material;
    let label = material.to_string();
    let len = sweep.len() as u64;
    let progress = Progress {
        done: AtomicU64::new(0),
        total: (4 + plans.len() as u64) * len,
        report: progress,
    };
    let debug = std::env::var_os("FIFTYMOVE_SWEEP_DEBUG").is_some();
    let clock = std::time::Instant::now();
    let lap = |what: &str| {
        if debug {
            eprintln!(
                "sweep {label}: {what} at {:.3}s",
                clock.elapsed().as_secs_f64()
            );
        }
    };
    let contexts: Vec<Counting> = plans.iter().map(Counting::new).collect();
    let mut totals: Vec<[Acc; 2]> = plans
        .iter()
        .map(|_| [Acc::default(), Acc::default()])
        .collect();
    let chunks = sweep.chunks();
    // Small shards are counted by enumerating their positions (`shard`).
    let mut shards: Vec<Option<ShardCount>> = plans
        .iter()
        .map(|plan| ShardCount::of(plan, chunks.len()))
        .collect();
    for chunk in chunks {
        let part = match &chunk.lead_digits {
            None => format!("blocks {}..{}", chunk.blocks.start, chunk.blocks.end),
            Some(d) => format!(
                "block {}, leading digits {}..{}",
                chunk.blocks.start, d.start, d.end
            ),
        };
        sweep.open_window(chunk)?;
        sweep.pass_wdl(&progress)?;
        sweep.codes_held()?;
        lap(&format!("{part}: wdl"));
        sweep.open_dtz();
        sweep.pass_stored(&progress)?;
        lap(&format!("{part}: stored dtz"));
        sweep.pass_unstored(&progress)?;
        sweep.codes_held()?;
        lap(&format!("{part}: unstored dtz"));
        let (a, b) = sweep.settle_all(&progress)?;
        sweep.codes_held()?;
        lap(&format!(
            "{part}: rounding settled ({a} stored, {b} unstored)"
        ));
        for ((ctx, total), shard) in contexts.iter().zip(totals.iter_mut()).zip(&mut shards) {
            if let Some(shard) = shard {
                shard.count_window(&sweep, ctx.plan, &progress)?;
                continue;
            }
            let counted = count(&sweep, ctx, &progress);
            sweep.count_failure()?;
            *total = merge_sides(std::mem::take(total), counted, &ctx.canon);
        }
        lap(&format!("{part}: count"));
    }
    let mut out = Vec::new();
    for (((plan, ctx), total), shard) in plans.iter().zip(&contexts).zip(totals).zip(shards) {
        let mut stats = match shard {
            Some(shard) => shard.stats,
            None => {
                let mut stats = ScanStats::new(&material.to_string(), plan.raw);
                for (color, acc) in [Color::White, Color::Black].into_iter().zip(total) {
                    *stats.side_mut(color) = side_stats(acc, ctx)?;
                }
                stats
            }
        };
        stats.shard = plan.shard;
        out.push(stats);
    }
    progress.finish();
    Ok(out)
}

/// Both sides' accumulators merged.
fn merge_sides(mut a: [Acc; 2], [w, b]: [Acc; 2], canon: &Canon) -> [Acc; 2] {
    a[0].merge(w, canon);
    a[1].merge(b, canon);
    a
}

/// Counts in units of 1/|G| for one side to move.
#[derive(Default, Clone)]
struct Acc {
    positions: u64,
    wdl: [u64; 5],
    win: Vec<u64>,
    loss: Vec<u64>,
    raw: [u64; 5],
    longest: [Option<(u32, Vec<Cand>)>; 5],
}

/// A candidate for a longest position: the board in the user's frame and
/// the canonical placement it was counted under (`None`: every ordering).
#[derive(Clone)]
enum Cand {
    Pending {
        pos: Pos,
        turn: Color,
        only: Option<Squares>,
    },
    Fen(String),
}

/// Candidate lists longer than this are settled to their best FEN.
const MAX_CANDIDATES: usize = 256;

impl Acc {
    fn add(&mut self, wdl: u8, mag: u32, num: u64) {
        self.positions += num;
        self.wdl[usize::from(wdl)] += num;
        let hist = match sign(wdl) {
            1 => &mut self.win,
            -1 => &mut self.loss,
            _ => return,
        };
        let i = mag as usize;
        if hist.len() <= i {
            hist.resize(i + 1, 0);
        }
        hist[i] += num;
    }

    fn offer(&mut self, wdl: u8, mag: u32, cand: impl FnOnce() -> Cand, canon: &Canon) {
        if sign(wdl) == 0 {
            return;
        }
        let slot = &mut self.longest[usize::from(wdl)];
        match slot {
            Some((m, list)) if *m == mag => {
                list.push(cand());
                if list.len() > MAX_CANDIDATES {
                    let best = settle(list, canon);
                    *list = vec![Cand::Fen(best)];
                }
            }
            Some((m, _)) if *m > mag => {}
            _ => *slot = Some((mag, vec![cand()])),
        }
    }

    fn merge(&mut self, other: Acc, canon: &Canon) {
        self.positions += other.positions;
        for k in 0..5 {
            self.wdl[k] += other.wdl[k];
            self.raw[k] += other.raw[k];
        }
        for (a, b) in [(&mut self.win, &other.win), (&mut self.loss, &other.loss)] {
            if a.len() < b.len() {
                a.resize(b.len(), 0);
            }
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
        }
        for (k, theirs) in other.longest.into_iter().enumerate() {
            let Some((mag, list)) = theirs else { continue };
            let slot = &mut self.longest[k];
            match slot {
                Some((m, mine)) if *m == mag => {
                    mine.extend(list);
                    if mine.len() > MAX_CANDIDATES {
                        let best = settle(mine, canon);
                        *mine = vec![Cand::Fen(best)];
                    }
                }
                Some((m, _)) if *m > mag => {}
                _ => *slot = Some((mag, list)),
            }
        }
    }
}

/// The smallest FEN among candidates.
fn settle(list: &[Cand], canon: &Canon) -> String {
    let mut best: Option<String> = None;
    let mut consider = |fen: String| {
        if best.as_ref().is_none_or(|b| fen < *b) {
            best = Some(fen);
        }
    };
    for c in list {
        match c {
            Cand::Fen(f) => consider(f.clone()),
            Cand::Pending { pos, turn, only } => match only {
                Some(x) => consider(canon.fen(x, *turn)),
                None => {
                    for x in canon.reps(pos) {
                        consider(canon.fen(&x, *turn));
                    }
                }
            },
        }
    }
    best.unwrap_or_default()
}

/// Everything the counting pass needs besides the sweep.
struct Counting<'a> {
    plan: &'a ScanPlan,
    canon: Canon,
    user_flipped: bool,
    group: u64,
    fact: u64,
    per_ordering: bool,
    /// With a shard: [`Canon::shard_prefixes`], which rules out most
    /// orderings before their canonical placement is sought.
    shard_prefixes: Option<Vec<bool>>,
}

impl Counting<'_> {
    fn new(plan: &ScanPlan) -> Counting<'_> {
        let material = plan.material;
        let canon = Canon::new(&material);
        Counting {
            plan,
            user_flipped: material.is_flipped_in_table(),
            group: material.symmetries().len() as u64,
            fact: like_factorial(&material.pieces()),
            per_ordering: plan.shard.is_some() || plan.filter.is_some(),
            shard_prefixes: plan.shard.map(|shard| canon.shard_prefixes(shard)),
            canon,
        }
    }

    /// Adds one position (table frame `pos()`, built only where needed,
    /// `turn`) to `acc`: `images`
    /// placements per side to move, times `diag` (2 for a pawnless
    /// placement on one long diagonal, else 1; see `weights`).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn record(
        &self,
        acc: &mut [Acc; 2],
        pos: impl Fn() -> Pos,
        turn: Color,
        flip_colours: bool,
        wdl: u8,
        mag: u32,
        images: u64,
        diag: u64,
    ) {
        let user_turn = if flip_colours { !turn } else { turn };
        // Built only for a candidate or a per-ordering count (rare).
        let user_pos = || {
            if flip_colours {
                pos().color_flipped()
            } else {
                pos()
            }
        };
        let side = &mut acc[usize::from(user_turn == Color::Black)];
        let num = images * diag;
        if !self.per_ordering {
            side.add(wdl, mag, num * self.fact);
            side.raw[usize::from(wdl)] += images * self.fact;
            side.offer(
                wdl,
                mag,
                || Cand::Pending {
                    pos: user_pos(),
                    turn: user_turn,
                    only: None,
                },
                &self.canon,
            );
            return;
        }
        let user_pos = user_pos();
        let prefixes = self.shard_prefixes.as_deref();
        self.canon.for_each_rep_in(&user_pos, prefixes, |x| {
            if let Some(shard) = self.plan.shard {
                if !shard.holds(self.canon.item(&x)) {
                    return;
                }
            }
            if let Some(keep) = &self.plan.filter {
                match self.canon.position(&x, user_turn) {
                    Some(p) if keep(&p) => {}
                    _ => return,
                }
            }
            side.add(wdl, mag, num);
            side.raw[usize::from(wdl)] += images;
            side.offer(
                wdl,
                mag,
                || Cand::Pending {
                    pos: user_pos,
                    turn: user_turn,
                    only: Some(x),
                },
                &self.canon,
            );
        });
    }
}

/// The counting pass over the blocks of the window's chunk.
fn count(sweep: &Sweep, ctx: &Counting, progress: &Progress) -> [Acc; 2] {
    let merge = |a: [Acc; 2], b: [Acc; 2]| merge_sides(a, b, &ctx.canon);
    let mut total = [Acc::default(), Acc::default()];
    for b in sweep.chunk_blocks() {
        let part = if ctx.per_ordering {
            count_walked(sweep, ctx, b, progress)
        } else {
            count_in_order(sweep, ctx, b, progress)
        };
        total = merge(total, part);
    }
    total
}

/// The counts of one position of block `b` (global index `j`), both sides
/// to move: `images` per side to move, `diag` (see
/// [`Counting::record`]); `pos` builds the position.
#[allow(clippy::too_many_arguments)]
#[inline]
fn count_one(
    sweep: &Sweep,
    ctx: &Counting,
    acc: &mut [Acc; 2],
    b: &Block,
    j: usize,
    images: u64,
    diag: u64,
    pos: impl Fn() -> Pos + Copy,
) {
    for half in 0..sweep.code_halves() {
        let code = sweep.code(j, half);
        if code == ILLEGAL {
            continue;
        }
        let turn = if half == 0 { b.side } else { !b.side };
        let dtz = sweep.value_counted(half, j);
        let mag = if code & MATED != 0 || dtz == DTZ_MATED {
            0
        } else {
            u32::from(dtz.unsigned_abs())
        };
        let wdl = code & 7;
        if sweep.symmetric {
            // White to move as stored; Black to move is its
            // colour-flipped image.
            ctx.record(acc, pos, turn, false, wdl, mag, images, diag);
            ctx.record(acc, pos, turn, true, wdl, mag, images, diag);
        } else {
            ctx.record(acc, pos, turn, ctx.user_flipped, wdl, mag, images, diag);
        }
    }
}

/// Whether a position's codes say it is illegal for both sides to move.
fn illegal(sweep: &Sweep, j: usize) -> bool {
    sweep.code(j, 0) == ILLEGAL && (sweep.symmetric || sweep.code(j, 1) == ILLEGAL)
}

/// [`count`] of one block in index order, without building positions:
/// the leading group's digit alone gives a placement's images, and rules
/// out a placement on one long diagonal for all but a few; positions are
/// decoded only for those and for candidates for the longest.
fn count_in_order(sweep: &Sweep, ctx: &Counting, b: &Block, progress: &Progress) -> [Acc; 2] {
    let has_pawns = ctx.plan.material.has_pawns();
    let codec = &sweep.dtz.subs[b.sub].encoding;
    let facts = codec.lead_facts();
    let (factor, radix) = codec.lead_place();
    (0..b.len.div_ceil(CHUNK))
        .into_par_iter()
        .fold(
            || [Acc::default(), Acc::default()],
            |mut acc, c| {
                let first = c * CHUNK;
                let last = (first + CHUNK).min(b.len);
                // The leading digit, stepped with the index.
                let mut below = first as u64 % factor;
                let mut digit = first as u64 / factor % radix;
                for local in first..last {
                    let (images, on_diagonal) = facts[digit as usize];
                    below += 1;
                    if below == factor {
                        below = 0;
                        digit += 1;
                        if digit == radix {
                            digit = 0;
                        }
                    }
                    let j = b.base + local;
                    if illegal(sweep, j) {
                        continue;
                    }
                    let pos = || sweep.pos_of(b, local);
                    let diag = if !has_pawns && on_diagonal && on_one_diagonal(&pos()) {
                        2
                    } else {
                        1
                    };
                    count_one(sweep, ctx, &mut acc, b, j, u64::from(images), diag, pos);
                }
                progress.add((last - first) as u64);
                acc
            },
        )
        .reduce(
            || [Acc::default(), Acc::default()],
            |x, y| merge_sides(x, y, &ctx.canon),
        )
}

/// [`count`] of one block by walking its placements (each position is
/// needed: a shard or a filter picks orderings).
fn count_walked(sweep: &Sweep, ctx: &Counting, b: &Block, progress: &Progress) -> [Acc; 2] {
    let has_pawns = ctx.plan.material.has_pawns();
    let codec = &sweep.dtz.subs[b.sub].encoding;
    let units = codec.units();
    (0..units.count)
        .into_par_iter()
        .fold(
            || [Acc::default(), Acc::default()],
            |mut acc, unit| {
                let walked = sweep.walk_unit(b, units, unit, progress, |local, pos| {
                    let j = b.base + local;
                    if illegal(sweep, j) {
                        return Ok::<(), std::convert::Infallible>(());
                    }
                    let images = u64::from(codec.images(&pos.sq[..pos.n]));
                    let diag = if !has_pawns && on_one_diagonal(pos) {
                        2
                    } else {
                        1
                    };
                    count_one(sweep, ctx, &mut acc, b, j, images, diag, || *pos);
                    Ok(())
                });
                let Ok(()) = walked;
                acc
            },
        )
        .reduce(
            || [Acc::default(), Acc::default()],
            |x, y| merge_sides(x, y, &ctx.canon),
        )
}

fn exact(n: u64, group: u64, what: &str) -> Result<u64> {
    if !n.is_multiple_of(group) {
        return Err(Error::inconsistent(
            "the sweep",
            format!("sweep: {what} count {n}/{group} is not whole; orbit weights are wrong"),
        ));
    }
    Ok(n / group)
}

fn side_stats(acc: Acc, ctx: &Counting) -> Result<SideStats> {
    let g = ctx.group;
    let mut wdl = WdlCounts::default();
    let mut raw = RawCounts::default();
    let fields = [
        (Wdl::Loss, 0usize),
        (Wdl::BlessedLoss, 1),
        (Wdl::Draw, 2),
        (Wdl::CursedWin, 3),
        (Wdl::Win, 4),
    ];
    for (w, k) in fields {
        let n = exact(acc.wdl[k], g, w.as_str())?;
        match w {
            Wdl::Loss => wdl.loss = n,
            Wdl::BlessedLoss => wdl.blessed_loss = n,
            Wdl::Draw => wdl.draw = n,
            Wdl::CursedWin => wdl.cursed_win = n,
            Wdl::Win => wdl.win = n,
        }
        let r = acc.raw[k];
        raw.positions += r;
        match w {
            Wdl::Loss => raw.wdl.loss = r,
            Wdl::BlessedLoss => raw.wdl.blessed_loss = r,
            Wdl::Draw => raw.wdl.draw = r,
            Wdl::CursedWin => raw.wdl.cursed_win = r,
            Wdl::Win => raw.wdl.win = r,
        }
    }
    let hist = |v: &[u64]| -> Result<Histogram> {
        let mut h = Histogram::default();
        for (p, &n) in v.iter().enumerate() {
            if n > 0 {
                h.add(p as u32, exact(n, g, "histogram")?);
            }
        }
        Ok(h)
    };
    let mut longest = Longest::default();
    for (w, k) in fields {
        if let Some((mag, list)) = &acc.longest[k] {
            let fen = settle(list, &ctx.canon);
            longest.offer(w, *mag, || fen);
        }
    }
    Ok(SideStats {
        positions: exact(acc.positions, g, "position")?,
        wdl,
        dtz: DtzHistograms {
            win: hist(&acc.win)?,
            loss: hist(&acc.loss)?,
        },
        longest,
        won_under: None,
        lost_under: None,
        raw: ctx.plan.raw.then_some(raw),
    })
}

#[cfg(test)]
mod tests {
    use shakmaty::Color;

    use super::*;

    /// The material `name`, its plan with raw placements (the counting
    /// pass then reads every value), and its statistics by a whole sweep.
    fn raw_and_whole(
        inv: &Inventory,
        name: &str,
    ) -> (
        crate::chess::material::Material,
        [ScanPlan; 1],
        Vec<ScanStats>,
    ) {
        let material: crate::chess::material::Material = name.parse().unwrap();
        let plans = [ScanPlan {
            material,
            shard: None,
            raw: true,
            filter: None,
        }];
        let whole =
            scan_with_sweep_plans(inv, &plans, MemoryLimit::Bytes(u64::MAX), &|_| {}).unwrap();
        (material, plans, whole)
    }

    /// Runs the held `sweep` for `plans` and checks its statistics against
    /// the whole sweep's (`whole`), byte for byte as JSON.
    fn assert_held_gives_whole(sweep: Sweep, plans: &[ScanPlan], whole: &[ScanStats], label: &str) {
        let held = sweep_held(sweep, plans, &|_| {}).unwrap();
        assert_eq!(
            serde_json::to_string(&held).unwrap(),
            serde_json::to_string(whole).unwrap(),
            "{label}"
        );
    }

    /// A sweep whose closure is read through a few pages (every table
    /// paged, one page per lock shard, so pages are dropped and decoded
    /// again all the time) gives the statistics of the sweep that decodes
    /// it whole, byte for byte: tables whose captures reach 3-piece
    /// tables, and whose promotions reach 4-piece ones (their own size).
    #[test]
    fn a_paged_closure_gives_the_whole_closures_statistics() {
        let dir = crate::tables::reader::tests::tables_dir();
        let inv = Inventory::scan(std::slice::from_ref(&dir)).unwrap();
        for name in ["KRvKP", "KPPvK", "KPvKP", "KQPvK"] {
            let (material, plans, whole) = raw_and_whole(&inv, name);
            let mut sweep = open_sweep(&inv, &material).unwrap();
            let (mut plan, whole_flags) = sweep.memory_plan(None);
            assert!(!whole_flags.is_empty(), "{name}");
            plan.page_bytes = 0;
            sweep.hold(&plan, &vec![false; whole_flags.len()]).unwrap();
            assert_held_gives_whole(sweep, &plans, &whole, name);
        }
    }

    /// A pawn table cut into slices of its leading pawns' squares, one
    /// digit and two digits a slice, its own WDL file and its closure read
    /// page by page within the least budget, gives the whole sweep's
    /// statistics byte for byte (raw placements and longest positions
    /// included): White's pawns leading (KRvKP's Black pawn leads in the
    /// file's frame), two leading pawns, a promotion to a queen that keeps a
    /// pawn, and a 5-piece table (Black's pawn leading). The slicing changes the work, never the
    /// result; a symmetric table is never cut.
    #[test]
    fn slices_of_the_leading_pawns_give_the_whole_sweep() {
        let dir = crate::tables::reader::tests::tables_dir();
        let inv = Inventory::scan(std::slice::from_ref(&dir)).unwrap();
        for name in ["KRvKP", "KPPvK", "KQPvK", "KPvKP", "KNNvKP"] {
            let (material, plans, whole) = raw_and_whole(&inv, name);
            let widths: &[u64] = if name == "KNNvKP" { &[1] } else { &[1, 2] };
            for &digits in widths {
                let mut sweep = open_sweep(&inv, &material).unwrap();
                let (mut plan, flags) = sweep.memory_plan(None);
                plan.page_bytes = pages::MIN_PAGE_BYTES;
                plan.lead_digits = digits;
                sweep.hold(&plan, &vec![false; flags.len() + 1]).unwrap();
                let chunks = sweep.chunks().len();
                let label = format!("{name}, {digits} digits a slice");
                assert_held_gives_whole(sweep, &plans, &whole, &label);
                if name == "KPvKP" {
                    assert_eq!(chunks, 1, "a symmetric table is one chunk");
                } else {
                    assert!(chunks > 4, "{name}: only {chunks} chunks");
                }
            }
        }
    }

    /// A pawnless table swept with its unstored side's DTZ worked out again
    /// wherever it is read (settling and counting), none held, gives the
    /// sweep that holds them byte for byte (raw placements and longest
    /// positions included): a bare king losing (parity settles), and
    /// 5-piece tables whose rounded values are settled by searching the
    /// successors, both sides'. The plan picks it where the whole sweep
    /// does not fit and it does.
    #[test]
    fn unstored_dtz_worked_out_where_read_gives_the_whole_sweep() {
        let dir = crate::tables::reader::tests::tables_dir();
        let inv = Inventory::scan(std::slice::from_ref(&dir)).unwrap();
        for name in ["KQvKR", "KRvKN", "KBNvK", "KBBvKN"] {
            let (material, plans, whole) = raw_and_whole(&inv, name);
            let mut sweep = open_sweep(&inv, &material).unwrap();
            let (full, _) = sweep.memory_plan(None);
            assert!(!full.recomputes_unstored, "{name}");
            // A limit the whole sweep misses by a byte: the lean plan,
            // within it, its closure whole.
            let (mut plan, flags) = sweep.memory_plan(Some(full.bytes - 1));
            assert!(
                plan.recomputes_unstored && plan.within && plan.page_bytes == 0,
                "{name}: {plan:?}"
            );
            assert!(plan.bytes < full.bytes, "{name}: {plan:?}");
            plan.page_bytes = 0;
            sweep.hold(&plan, &flags).unwrap();
            assert!(sweep.recomputes_unstored(), "{name}");
            assert_held_gives_whole(sweep, &plans, &whole, name);
        }
    }

    /// The sweep of `material` held as planned without a memory limit,
    /// but for its unstored side's DTZ, worked out again where read where
    /// `recompute` says so; for the tests to page it further.
    fn held_without_limit(
        inv: &Inventory,
        material: &crate::chess::material::Material,
        recompute: bool,
    ) -> Sweep {
        let mut sweep = open_sweep(inv, material).unwrap();
        let (mut plan, flags) = sweep.memory_plan(None);
        plan.recomputes_unstored = recompute;
        sweep.hold(&plan, &flags).unwrap();
        sweep
    }

    /// A sweep that holds no stored DTZ byte and decodes each from the
    /// DTZ file where read, through pages of 1,024 indices of which a few
    /// are held (so they are dropped and decoded again all the time),
    /// gives the sweep that holds them byte for byte (raw placements and
    /// longest positions included): symmetric tables (settling reads the
    /// stored side only, colour-flipped, anywhere in the table; KPvKP's
    /// pawn moves too), and tables without symmetry whose pass 3 searches
    /// the stored side's values, also with their unstored side worked out
    /// again where read; and symmetric tables whose pass 1 reads the WDL
    /// file's values through such pages too. The plan picks these for a
    /// symmetric table where the whole sweep does not fit and they do (KNN
    /// v KNN, also within 2 GB; within 1.5 GB its codes packed too).
    #[test]
    fn stored_dtz_decoded_where_read_gives_the_whole_sweep() {
        let dir = crate::tables::reader::tests::tables_dir();
        let inv = Inventory::scan(std::slice::from_ref(&dir)).unwrap();
        let (page_len, budget) = (1 << 10, (4 * 64) << 10);
        for name in ["KQvKQ", "KRvKR", "KPvKP", "KQvKR", "KRvKN", "KBNvK"] {
            let (material, plans, whole) = raw_and_whole(&inv, name);
            let symmetric = name[..name.len() / 2] == name[name.len() / 2 + 1..];
            // Symmetric: with pass 1's WDL values paged too, or not;
            // else with the unstored side worked out again, or not.
            for other in [false, true] {
                let mut sweep = held_without_limit(&inv, &material, other && !symmetric);
                sweep.page_stored_dtz(budget, page_len);
                if other && symmetric {
                    sweep.page_wdl(budget, page_len);
                }
                let label = format!("{name}, the other paged or worked out again: {other}");
                assert_held_gives_whole(sweep, &plans, &whole, &label);
            }
        }
        // The plan (headers only: no pass runs). Small tables never page
        // it: the least page budget outweighs their DTZ bytes.
        let shared = std::env::var_os("FIFTYMOVE_SHARED_TABLES")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| {
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/syzygy")
            });
        let inv = Inventory::scan(&[dir, shared]).unwrap();
        let material: crate::chess::material::Material = "KNNvKNN".parse().unwrap();
        let sweep = open_sweep(&inv, &material).unwrap();
        let (full, _) = sweep.memory_plan(None);
        assert_eq!(full.stored_page_bytes, 0);
        let (plan, _) = sweep.memory_plan(Some(full.bytes - 1));
        assert!(plan.stored_page_bytes > 0 && plan.within, "{plan:?}");
        assert!(plan.page_bytes == 0 && plan.bytes < full.bytes, "{plan:?}");
        assert_eq!(plan.wdl_page_bytes, 0, "{plan:?}");
        // Within 2 GB (issue 44's limit for it), its WDL values paged too;
        // within 1.5 GB, its codes packed too.
        let (plan, _) = sweep.memory_plan(Some(2_000_000_000));
        assert!(plan.within && plan.wdl_page_bytes > 0, "{plan:?}");
        assert!(!plan.packed_codes, "{plan:?}");
        let (plan, _) = sweep.memory_plan(Some(1_500_000_000));
        assert!(plan.within && plan.packed_codes, "{plan:?}");
    }

    /// A sweep that packs its WDL codes five bits each, twelve to a word
    /// written by compare-and-swap, gives the sweep that holds a byte each,
    /// byte for byte (raw placements and longest positions included): with
    /// everything else held, and with everything it can page paged (the
    /// stored DTZ and pass 1's WDL values through pages of 1,024 indices,
    /// the unstored side's DTZ worked out again where read), as the plan
    /// takes it for the largest 6-piece tables. Symmetric tables (KPvKP's
    /// pawn moves too), and tables without symmetry whose rounded values
    /// are settled by parity (KQvKR, KBNvK) or by search (KRvKN). (The
    /// plan's choice: `stored_dtz_decoded_where_read_gives_the_whole_sweep`.)
    #[test]
    fn packed_codes_give_the_whole_sweep() {
        let dir = crate::tables::reader::tests::tables_dir();
        let inv = Inventory::scan(std::slice::from_ref(&dir)).unwrap();
        let (page_len, budget) = (1 << 10, (4 * 64) << 10);
        for name in ["KQvKQ", "KPvKP", "KQvKR", "KRvKN", "KBNvK"] {
            let (material, plans, whole) = raw_and_whole(&inv, name);
            let symmetric = name[..name.len() / 2] == name[name.len() / 2 + 1..];
            for paged in [false, true] {
                let mut sweep = held_without_limit(&inv, &material, paged && !symmetric);
                sweep.pack_codes();
                if paged {
                    sweep.page_stored_dtz(budget, page_len);
                    sweep.page_wdl(budget, page_len);
                }
                let label = format!("{name}, packed codes, the rest paged: {paged}");
                assert_held_gives_whole(sweep, &plans, &whole, &label);
            }
        }
    }

    /// KRB v KR swept as the plan takes the largest pawnless tables
    /// without symmetry gives the whole sweep byte for byte: its unstored
    /// side's DTZ worked out again where read, its stored DTZ and pass 1's
    /// WDL values read through pages. Scaled as the plan's pages are to a
    /// 6-piece table with a leading group of three unique pieces (KQR v
    /// KRB: 2,048 pages of 2^16 indices in 128 MiB, each leading digit
    /// spanning about 3.3 pages): 2,048 pages of 2^10 indices, KRB v KR's
    /// leading digit spanning 3,660 indices, 3.6 pages. On demand: it
    /// stands in for those tables' speed (`FIFTYMOVE_SWEEP_DEBUG=1` prints
    /// the passes' times).
    #[test]
    #[ignore = "about a minute; run on demand with --ignored"]
    fn krbvkr_paged_as_the_largest_pawnless_tables_gives_the_whole_sweep() {
        let dir = crate::tables::reader::tests::tables_dir();
        let inv = Inventory::scan(std::slice::from_ref(&dir)).unwrap();
        let (material, plans, whole) = raw_and_whole(&inv, "KRBvKR");
        let mut sweep = held_without_limit(&inv, &material, true);
        let (page_len, pages) = (1 << 10, 2048);
        sweep.page_stored_dtz(page_len * pages, page_len);
        sweep.page_wdl(page_len * pages, page_len);
        assert_held_gives_whole(sweep, &plans, &whole, "KRBvKR paged");
    }

    #[test]
    fn natural_parity_as_the_probe_engine() {
        use dtz::natural_parity;
        let c = |s: &str| {
            let material: crate::chess::material::Material = s.parse().unwrap();
            crate::tables::reader::counts_of(material.pieces())
        };
        // A bare king can only take the rook of KRvK... leaving a bare king.
        assert!(natural_parity(&c("KQvKR"), Color::Black));
        assert!(natural_parity(&c("KBNvK"), Color::Black));
        assert!(!natural_parity(&c("KRNvK"), Color::Black));
        assert!(!natural_parity(&c("KPvKP"), Color::Black));
        assert!(natural_parity(&c("KNNvKP"), Color::White));
        assert!(!natural_parity(&c("KNNvKP"), Color::Black));
    }
}
