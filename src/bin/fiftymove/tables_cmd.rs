//! `tables`: which tables are present, what a material's closure misses
//! (with the official sizes), what a scan and a solve of it would need in
//! memory, and md5 checks.

use std::{collections::BTreeMap, io::Write};

use fiftymove::{
    chess::material::Material,
    memory::MemoryLimit,
    scan::sweep::{sweep_memory_estimate, sweep_memory_plan},
    solve::{Metric, Rule, Solver, MAX_SOLVE_PIECES},
    tables::{Inventory, MemoryNeeds, TablesReport},
};

use crate::{render, Global, RunResult};

pub fn cmd_tables(
    global: &Global,
    materials: &[String],
    verify: bool,
    out: &mut impl Write,
) -> RunResult {
    // Bad input (exit 2) is reported before missing tables (exit 3).
    let parsed = materials
        .iter()
        .map(|m| m.parse::<Material>())
        .collect::<Result<Vec<_>, _>>()?;
    let inv = global.inventory()?;
    let mut report = TablesReport::build(&inv, &parsed, verify);
    if !parsed.is_empty() {
        // Headers are read without the md5 check: the bound needs only
        // them, and `--verify` reports damage on its own.
        let plain = Inventory::scan(inv.dirs())?;
        for (closure, material) in report.materials.iter_mut().zip(&parsed) {
            closure.memory = Some(memory_needs(&plain, material, global.memory));
        }
    }
    render::json_or_text(global.json, out, &report, |out, r| {
        render::tables_text(out, r, verify)
    })?;
    out.flush()?;
    match report.failure() {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

/// The metrics a solve can be asked for, as `solve --metric` spells them.
const METRICS: [(&str, Metric); 3] = [
    ("dtz", Metric::Dtz),
    ("dtm", Metric::Dtm),
    ("dtr", Metric::Dtr),
];

/// What a scan and a solve of `material` would need, against `limit`.
///
/// The scan bound is the one `scan` checks under `limit` (its closure
/// paged where it does not fit whole), from the table headers when the
/// whole closure is present and readable; otherwise the same plan by
/// index arithmetic, labelled so. The solve bound is the solver's own
/// ([`Solver::memory_plan`]), for the materials it takes.
fn memory_needs(inv: &Inventory, material: &Material, limit: MemoryLimit) -> MemoryNeeds {
    let available = limit.bytes();
    // The limit read once: the plans and the verdicts agree.
    let plan_limit = available.map_or(limit, MemoryLimit::Bytes);
    let fits = |needed: u64| available.map(|a| needed <= a);
    let from_headers = inv
        .missing_for(material)
        .is_empty()
        .then(|| sweep_memory_plan(inv, material, plan_limit).ok())
        .flatten();
    let (scan, scan_bound_from) = match from_headers {
        Some(plan) => (plan, "table headers"),
        None => (
            sweep_memory_estimate(material, plan_limit),
            "index arithmetic",
        ),
    };
    let takes = material.piece_count() <= MAX_SOLVE_PIECES;
    let solver = Solver::new(None, plan_limit);
    let solve_bytes: BTreeMap<String, u64> = if takes {
        METRICS
            .iter()
            .map(|(name, metric)| {
                (
                    name.to_string(),
                    // No cache: every member is solved, under any rule.
                    solver.memory_plan(material, Rule::None, *metric).bytes,
                )
            })
            .collect()
    } else {
        BTreeMap::new()
    };
    let solve_fits = solve_bytes
        .iter()
        .filter_map(|(name, &bytes)| Some((name.clone(), fits(bytes)?)))
        .collect();
    let cut_by_pawns = scan.cut_by_pawns();
    let recomputes_unstored = scan.recomputes_unstored();
    let stored_dtz_page_bytes = scan.stored_page_bytes();
    let wdl_page_bytes = scan.wdl_page_bytes();
    let packed_wdl_codes = scan.packed_codes();
    MemoryNeeds {
        available_bytes: available,
        available_from: available.map(|_| {
            match limit {
                MemoryLimit::Bytes(_) => "--memory-limit",
                MemoryLimit::Available => "MemAvailable",
            }
            .to_owned()
        }),
        scan_bytes: scan.bytes,
        scan_bound_from: scan_bound_from.to_owned(),
        scan_fits: fits(scan.bytes),
        scan_page_bytes: scan.page_bytes,
        scan_paged_tables: scan.paged_tables,
        scan_slices: scan.slices,
        scan_cut_by_pawns: cut_by_pawns,
        scan_recomputes_unstored: recomputes_unstored,
        scan_stored_dtz_page_bytes: stored_dtz_page_bytes,
        scan_wdl_page_bytes: wdl_page_bytes,
        scan_packed_wdl_codes: packed_wdl_codes,
        solve_bytes,
        solve_fits,
        solve_refused: (!takes).then(|| {
            format!(
                "{} pieces; the solver takes at most {MAX_SOLVE_PIECES} for now",
                material.piece_count()
            )
        }),
    }
}
