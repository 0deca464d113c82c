//! The sweep engine for `scan`: whole-table statistics from sequential
//! decoding of the table files, with exact DTZ, and the same numbers as the
//! probe engine ([`crate::scan::probe`]) under docs/design.md's convention.
//!
//! Both sides' WDL come from the WDL file, made exact with the captures
//! (the tables they lead to are decoded into memory too); the stored
//! side's DTZ comes from the DTZ file; the side the DTZ file does not store
//! is computed by a one-ply search in memory, only where the position is
//! decisive; DTZ rounding is settled by parity and checked against the
//! successors. `weights` converts Syzygy's indices to our orbit counts.
//! Everything about the file format (indices, sub-tables, locating a
//! position, walking a sub-table) comes from [`crate::tables::reader`]:
//! this engine is its client and holds no index arithmetic of its own.
//!
//! # Shape
//!
//! Three things, each a value, made in this order by [`scan_with_sweep`]
//! and nothing else:
//!
//! - **The tables** (`tables`), immutable through the passes: the scanned
//!   table's files, layouts and blocks (its DTZ file's sub-tables), the
//!   closure's tables (`closure`), the piece counts and the natural
//!   parity. Its files, opened (`SweepFiles`), give the memory plan.
//! - **The plan** ([`SweepMemoryPlan`], `plan`), a value that builds the
//!   storage: one enum per storage choice (`Storage`: the codes a byte
//!   each or packed, `codes`; pass 1's WDL values a byte each, two to a
//!   byte or paged, `wdl_values`; the stored side's DTZ held or paged, the
//!   unstored side's held or worked out again, `dtz_bytes`). The tables
//!   are held as it says; each chunk's window (`window`: its index space,
//!   `frame`, and its WDL codes) and, after pass 1, its DTZ bytes are built
//!   from it.
//! - **The passes**, functions over the two, one file each: pass 1
//!   (`wdl_pass`), pass 2 (`stored`), pass 3 (`unstored`), the values they
//!   leave (`values`), pass 4 (`settle`), and the counting (`count`, and
//!   `shard` for a small shard).
//!
//! # Passes
//!
//! All in the index space of the scanned table's DTZ file, chunk by chunk:
//!
//! 1. **WDL**: every placement, both sides to move: legality, the stored
//!    WDL (from the WDL file, whose indices differ) made exact with the
//!    captures (into the closure's tables, in memory), checkmate, and
//!    whether a capture is a best move.
//! 2. **Stored side DTZ**: decoded from the DTZ file; zeroing best moves
//!    (winning captures and pawn moves) give 1 or 101 (shakmaty-syzygy's
//!    raw value, which may be rounded: "n or n+1").
//! 3. **Unstored side DTZ**: shakmaty-syzygy's one-ply search over the
//!    stored side's raw values, in memory, only where the position is
//!    decisive (rounded where its best successor is).
//! 4. **Rounding**: a rounded value takes the parity a phase ending with
//!    the winner's move gives (odd for the winner to move, even for the
//!    loser) when the material forces it, as the probe engine does;
//!    otherwise it is settled by the probe engine's rule: a winner's
//!    "n or n+1" is n iff some move scores exactly n, a loser's is n+1 iff
//!    some move scores n+1. Successors are settled first, recursively, with
//!    a shared memo (the values are deterministic, so threads may race).
//!    The rule, not a min/max, is what the probe engine computes where the
//!    tables are locally inconsistent (a "don't care" DTZ for a pawn move
//!    that is illegal because the king is in check, for example).
//! 5. **Counting**: each position weighed by its orbit, once per plan.
//!
//! # Memory
//!
//! The sweep works in the index space of the DTZ file, chunk by chunk: a
//! chunk is one sub-table of the DTZ file (a file of the leading pawn) for
//! asymmetric pawn tables, since a move that keeps the material moves no
//! pawn off its file and its successor stays in the same sub-table; else
//! the whole table (see `Tables::chunks`). Per chunk, 2 bytes per index
//! (the WDL codes of both sides to move; 1 for symmetric material, whose
//! files store one side). Pass 1 adds the WDL file's stored values that
//! one block reads (half a byte per index and side;
//! a symmetric table's whole file, a byte per index). The later passes
//! (DTZ, rounding, counting) add 1 byte per index and side stored (the raw
//! DTZ magnitude; the rounding state lives in spare bits of the WDL codes,
//! see `code::encode_mag`). A pawnless table that does not fit so keeps
//! only the stored side's, and works the other side's out again, by pass
//! 3's one-ply search, wherever it is read (`UnstoredDtz::WorkedOut` in
//! the plan): 3 bytes per index. Where that does not fit either, the
//! stored side's DTZ is decoded from the file page by page where read,
//! pass 1 reads the WDL values through pages, and, last, the WDL codes are
//! packed five bits each (`codes`): 2/3 of a byte per index and side.
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
mod code;
mod codes;
mod count;
mod dtz_bytes;
mod first_error;
mod frame;
mod pages;
mod plan;
mod progress;
mod read_error;
mod settle;
mod shard;
mod slices;
mod stored;
mod tables;
mod unstored;
mod values;
mod wdl_pass;
mod wdl_values;
mod weights;
mod window;

use shakmaty::Color;

use self::{
    count::{count, merge_sides, side_stats, Acc, Counting},
    plan::{OwnCost, Storage, TableCost, PROCESS_BYTES},
    progress::Progress,
    settle::Settle,
    shard::ShardCount,
    stored::Stored,
    tables::{SweepFiles, Tables},
    unstored::Unstored,
    values::Values,
    window::Window,
};
pub use self::{plan::SweepMemoryPlan, progress::PROGRESS_UNITS};
use crate::{
    chess::material::Material,
    error::{Error, Result},
    memory::MemoryLimit,
    model::ScanStats,
    scan::probe::ScanPlan,
    tables::reader::header_allowance,
    tables::Inventory,
};

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
    material: &Material,
    memory: MemoryLimit,
) -> Result<SweepMemoryPlan> {
    Ok(SweepFiles::open(inv, material)?.plan(memory.bytes()))
}

/// [`sweep_memory_plan`] worked out from the material alone, for when the
/// tables are not there to read their headers: the same sums (for the
/// scanned table, per index of its largest chunk 2 bytes and the larger
/// of one block's WDL values and 1 byte per side, and the program; for each
/// table of the closure 1 byte per stored index; for each file read, the
/// headers' allowance; see `OwnCost::new` and `ClosureFiles::costs`) with
/// each table's index sizes by Syzygy's index arithmetic and each file's
/// official size (none for a file the official list lacks), planned the
/// same way. Where the headers are present the two agree (tested on
/// every table installed, under several limits).
pub fn sweep_memory_estimate(material: &Material, memory: MemoryLimit) -> SweepMemoryPlan {
    use crate::tables::reader::{index_sizes, lead_radices};
    let target = material.normalized();
    let symmetric = target.side(Color::White) == target.side(Color::Black);
    // The DTZ file stores one side: one block per sub-table.
    let sizes = index_sizes(&target);
    let n: u64 = sizes.iter().sum();
    // The headers of a file: by its official size, and its sub-tables
    // (one per leading pawn file, per side stored).
    let headers = |m: &Material, ext: &str, sides: usize| {
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
            let m = name.parse::<Material>().ok()?;
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
    // A symmetric table's WDL file stores one side to move, the others'
    // both, each with the DTZ file's indices.
    let radices = lead_radices(&target);
    let blocks = sizes
        .iter()
        .enumerate()
        .map(|(k, &size)| (size, radices.as_ref().map(|r| r[k])))
        .collect();
    let own = OwnCost::new(
        target.table_name(),
        symmetric,
        target.has_pawns(),
        fixed,
        blocks,
        [n, if symmetric { 0 } else { n }],
        headers(&target, "rtbw", wdl_sides),
    );
    plan::plan_slices(&own, &closure, memory.bytes())
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
    let files = SweepFiles::open(inv, &material)?;
    let limit = memory.bytes();
    let plan = files.plan(limit);
    if let (false, Some(limit)) = (plan.within, limit) {
        return Err(Error::Memory {
            needed_for: format!("scan {material}"),
            engine: "the sweep engine",
            instead: Some("scan --engine probe needs little memory"),
            needed: plan.bytes,
            limit,
        });
    }
    let tables = Tables::hold(files, &plan)?;
    sweep_held(&tables, &plan.storage, plans, progress)
}

/// Runs the passes over `tables`, their arrays held as `storage` says,
/// for `plans` (of their material): chunk by chunk, each chunk's window
/// built from the plan, its WDL codes filled by pass 1, then its DTZ bytes
/// built from the plan and filled by passes 2 and 3, its rounded values
/// settled by pass 4, and its positions counted once per plan.
fn sweep_held(
    tables: &Tables,
    storage: &Storage,
    plans: &[ScanPlan],
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<ScanStats>> {
    let material = plans[0].material;
    let label = material.to_string();
    let len = tables.len() as u64;
    let progress = Progress::new((4 + plans.len() as u64) * len, progress);
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
    let chunks = tables.chunks();
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
        // The previous chunk's window and values are dropped by now, so
        // that two never coexist.
        let window = Window::open(tables, storage, chunk)?;
        wdl_pass::pass(&window, storage.wdl_values, &progress)?;
        window.codes_held()?;
        lap(&format!("{part}: wdl"));
        // Built after pass 1, whose WDL values are dropped by then.
        let stored_bytes = storage.stored_dtz.hold(window.frame.len());
        let unstored_bytes = storage
            .unstored_dtz
            .hold(window.frame.len(), tables.symmetric);
        let stored = Stored::new(&window, &stored_bytes);
        stored.pass(&progress)?;
        lap(&format!("{part}: stored dtz"));
        let unstored = Unstored::new(stored, &unstored_bytes);
        unstored.pass(&progress)?;
        window.codes_held()?;
        lap(&format!("{part}: unstored dtz"));
        let values = Values::new(unstored);
        let (a, b) = Settle(&values).pass(&progress)?;
        window.codes_held()?;
        lap(&format!(
            "{part}: rounding settled ({a} stored, {b} unstored)"
        ));
        for ((ctx, total), shard) in contexts.iter().zip(totals.iter_mut()).zip(&mut shards) {
            if let Some(shard) = shard {
                shard.count_window(&values, ctx.plan, &progress)?;
                continue;
            }
            let counted = count(&values, ctx, &progress);
            values.count_failure()?;
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

#[cfg(test)]
mod tests;
