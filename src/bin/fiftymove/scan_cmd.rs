//! `scan` and `merge`: whole-endgame statistics from the tables, and the sum
//! of shard results.

use std::{io::Write, path::PathBuf};

use fiftymove::{
    output::write_atomically,
    probe::Prober,
    scan::{
        merge::{merge_shards, read_results},
        probe::{scan_with_prober, ScanPlan},
        ScanStats,
    },
    Error,
};

use crate::{args::Engine, check_out_file, parse_shard, progress_bar, render, Global, RunResult};

/// A validated `scan` invocation.
pub struct ScanCommand {
    plans: Vec<ScanPlan>,
    out: Option<PathBuf>,
    engine: Engine,
}

impl ScanCommand {
    pub fn validate(
        materials: &[String],
        shard: Option<&str>,
        out: Option<PathBuf>,
        raw: bool,
        engine: Engine,
    ) -> Result<ScanCommand, Error> {
        let shard = shard.map(parse_shard).transpose()?;
        let plans = materials
            .iter()
            .map(|m| {
                Ok(ScanPlan {
                    material: m.parse()?,
                    shard,
                    raw,
                    filter: None,
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        if shard.is_some() && out.is_none() {
            return Err(Error::Usage(
                "--shard needs --out FILE, so that the parts can be merged".into(),
            ));
        }
        if let Some(path) = &out {
            check_out_file(path)?;
        }
        Ok(ScanCommand { plans, out, engine })
    }
}

pub fn cmd_scan(global: &Global, cmd: &ScanCommand, out: &mut impl Write) -> RunResult {
    let inv = global.inventory()?;
    // Every table of every material must be present before the long work.
    for plan in &cmd.plans {
        inv.require(&plan.material, &plan.material.to_string())?;
    }
    let prober = Prober::new(inv.open()?);
    let mut results = Vec::new();
    for plan in &cmd.plans {
        let stats = match cmd.engine {
            Engine::Probe => {
                let bar = progress_bar(
                    global,
                    plan.work_items().len() as u64,
                    &format!("scan {}", plan.material),
                );
                let stats = scan_with_prober(&prober, plan, &|n| bar.inc(n))?;
                bar.finish_and_clear();
                stats
            }
            Engine::Sweep => {
                let bar = progress_bar(
                    global,
                    fiftymove::scan::sweep::PROGRESS_UNITS,
                    &format!("scan {}", plan.material),
                );
                let stats =
                    fiftymove::scan::sweep::scan_with_sweep(&inv, plan, global.memory, &|n| {
                        bar.inc(n)
                    })?;
                bar.finish_and_clear();
                stats
            }
        };
        results.push(stats);
    }
    emit_stats(global, &results, cmd.out.as_deref(), out)
}

/// Prints scan results, or writes them as JSON Lines to `file`.
fn emit_stats(
    global: &Global,
    results: &[ScanStats],
    file: Option<&std::path::Path>,
    out: &mut impl Write,
) -> RunResult {
    if let Some(path) = file {
        let mut buf = Vec::new();
        for r in results {
            render::json_line(&mut buf, r)?;
        }
        write_atomically(path, &buf)?;
        return Ok(());
    }
    for r in results {
        if global.json {
            render::json_line(out, r)?;
        } else {
            render::scan_text(out, r)?;
        }
    }
    Ok(())
}

pub fn cmd_merge(
    global: &Global,
    files: &[PathBuf],
    out_file: Option<PathBuf>,
    out: &mut impl Write,
) -> RunResult {
    if let Some(path) = &out_file {
        check_out_file(path)?;
    }
    let parts = read_results(files)?;
    let merged = merge_shards(parts)?;
    emit_stats(global, &merged, out_file.as_deref(), out)
}
