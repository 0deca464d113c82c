//! `scan`, `solve` and `merge`: whole-endgame statistics from the tables or
//! from the solver, and the sum of shard results.

use std::{io::Write, path::PathBuf};

use fiftymove::{
    model::{
        merge::{merge_shards, read_results},
        Engine, ScanStats,
    },
    output::write_atomically,
    probe::Prober,
    scan::probe::{scan_with_prober, ScanPlan},
    solve::{Metric, Progress, Rule, SolvePlan},
    Error,
};
use indicatif::ProgressBar;

use crate::{check_out_file, parse_shard, progress_bar, render, Global, RunResult, StepLines};

/// A validated `scan` invocation.
pub struct ScanCommand {
    batch: Batch<ScanPlan>,
    engine: Engine,
}

/// What a validated `scan` and `solve` share.
pub struct Batch<P> {
    plans: Vec<P>,
    /// Where the document goes (stdout if not set).
    out: Option<PathBuf>,
    /// `--plan`: print what the work needs instead of doing it.
    show_plan: bool,
}

impl<P> Batch<P> {
    /// `plans` for `out`: `--shard` needs `--out` (the parts are merged
    /// from files), and the file must be writable before the long work
    /// starts.
    fn new(
        plans: Vec<P>,
        sharded: bool,
        out: Option<PathBuf>,
        show_plan: bool,
    ) -> Result<Batch<P>, Error> {
        if sharded && out.is_none() {
            return Err(Error::Usage(
                "--shard needs --out FILE, so that the parts can be merged".into(),
            ));
        }
        if let Some(path) = &out {
            check_out_file(path)?;
        }
        Ok(Batch {
            plans,
            out,
            show_plan,
        })
    }
}

impl ScanCommand {
    pub fn validate(
        materials: &[String],
        shard: Option<&str>,
        out: Option<PathBuf>,
        raw: bool,
        engine: Engine,
        show_plan: bool,
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
        let batch = Batch::new(plans, shard.is_some(), out, show_plan)?;
        Ok(ScanCommand { batch, engine })
    }
}

pub fn cmd_scan(global: &Global, cmd: &ScanCommand, out: &mut impl Write) -> RunResult {
    if cmd.batch.show_plan {
        return cmd_scan_plan(global, cmd, out);
    }
    let inv = global.inventory()?;
    // Every table of every material must be present before the long work.
    for plan in &cmd.batch.plans {
        inv.require(&plan.material, &plan.material.to_string())?;
    }
    let prober = Prober::new(inv.open()?);
    let mut results = Vec::new();
    for plan in &cmd.batch.plans {
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
            Engine::Solve => unreachable!("clap offers no --engine solve"),
        };
        results.push(stats);
    }
    emit_stats(global, &results, cmd.batch.out.as_deref(), out)
}

/// `scan --plan`: each material's sweep memory bound under
/// `--memory-limit`, and how the sweep holds its closure within it.
fn cmd_scan_plan(global: &Global, cmd: &ScanCommand, out: &mut impl Write) -> RunResult {
    let inv = global.inventory()?;
    for plan in &cmd.batch.plans {
        let memory =
            fiftymove::scan::sweep::sweep_memory_plan(&inv, &plan.material, global.memory)?;
        if global.json {
            render::json_line(
                out,
                &serde_json::json!({
                    "material": plan.material.to_string(),
                    "memory_bytes": memory.bytes,
                    "whole_bytes": memory.whole_bytes,
                    "page_bytes": memory.page_bytes,
                    "paged_tables": memory.paged_tables,
                    "slices": memory.slices,
                    "recomputes_unstored": memory.recomputes_unstored(),
                    "stored_dtz_page_bytes": memory.stored_page_bytes(),
                    "wdl_page_bytes": memory.wdl_page_bytes(),
                    "packed_wdl_codes": memory.packed_codes(),
                    "fits": memory.within,
                }),
            )?;
        } else {
            writeln!(out, "{}\t{}", plan.material, memory.bytes)?;
        }
    }
    Ok(())
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
        render::json_or_text(global.json, out, r, render::scan_text)?;
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

/// A validated `solve` invocation.
pub type SolveCommand = Batch<SolvePlan>;

impl Batch<SolvePlan> {
    pub fn validate(
        materials: &[String],
        rule: Option<&str>,
        metric: Metric,
        shard: Option<&str>,
        out: Option<PathBuf>,
        raw: bool,
        show_plan: bool,
    ) -> Result<SolveCommand, Error> {
        let rule: Rule = match (rule, metric) {
            (Some(_), Metric::Dtm | Metric::Dtr) => return Err(crate::no_rule_for(metric)),
            (None, Metric::Dtm | Metric::Dtr) => Rule::None,
            // DTZ; the plan refuses a metric the solver does not compute.
            (Some(text), _) => text.parse()?,
            (None, _) => Rule::FIFTY,
        };
        let shard = shard.map(parse_shard).transpose()?;
        let plans = materials
            .iter()
            .map(|m| {
                let plan = SolvePlan {
                    material: m.parse()?,
                    rule,
                    metric,
                    shard,
                    raw,
                    filter: None,
                    pawns: None,
                };
                plan.validate()?;
                Ok(plan)
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Batch::new(plans, shard.is_some(), out, show_plan)
    }
}

/// `solve --plan`: the closures of the materials in solving order (each
/// material once), with what each job needs.
fn cmd_solve_plan(global: &Global, cmd: &SolveCommand, out: &mut impl Write) -> RunResult {
    let solver = global.solver();
    let mut seen = std::collections::HashSet::new();
    for plan in &cmd.plans {
        for p in solver.plan(&plan.material, plan.rule, plan.metric) {
            if !seen.insert(p.material.clone()) {
                continue;
            }
            if global.json {
                render::json_line(out, &p)?;
            } else {
                let needs = if p.needs.is_empty() {
                    "-".to_owned()
                } else {
                    p.needs.join(",")
                };
                let state = if p.cached { "cached" } else { "todo" };
                writeln!(out, "{}\t{}\t{state}\t{needs}", p.material, p.memory_bytes)?;
            }
        }
    }
    Ok(())
}

/// The solver's progress on a bar: one stage per material of the closure.
pub struct SolveBar {
    bar: ProgressBar,
    steps: StepLines,
    quiet: bool,
    /// The stage's message, which the levels extend.
    stage: std::sync::Mutex<String>,
}

impl SolveBar {
    pub fn new(global: &Global) -> SolveBar {
        SolveBar {
            bar: progress_bar(global, 0, "solve"),
            steps: StepLines::new(global),
            quiet: global.quiet,
            stage: std::sync::Mutex::new(String::new()),
        }
    }

    /// The material in hand is done (its line is printed, without a
    /// terminal); the bar stays for the next.
    pub fn step_done(&self) {
        self.steps.finish();
    }

    pub fn finish(&self) {
        self.steps.finish();
        self.bar.finish_and_clear();
    }
}

impl Progress for SolveBar {
    fn stage(&self, what: &str, index: usize, count: usize, entries: u64) {
        self.steps.start(what);
        let message = format!("{what} ({}/{count})", index + 1);
        self.bar.set_message(message.clone());
        *self.stage.lock().expect("no panic while held") = message;
        self.bar.set_length(entries);
        self.bar.set_position(0);
    }

    fn advance(&self, n: u64) {
        self.bar.inc(n);
    }

    fn level(&self, level: usize) {
        // The bar is full after the first pass; the levels show in its
        // message (a 6-piece solve spends minutes there).
        let stage = self.stage.lock().expect("no panic while held");
        self.bar.set_message(format!("{stage}, level {level}"));
    }

    fn note(&self, text: &str) {
        if !self.quiet {
            self.bar.suspend(|| eprintln!("note: {text}"));
        }
    }
}

pub fn cmd_solve(global: &Global, cmd: &SolveCommand, out: &mut impl Write) -> RunResult {
    if cmd.show_plan {
        return cmd_solve_plan(global, cmd, out);
    }
    let solver = global.solver();
    let bar = SolveBar::new(global);
    let mut results = Vec::new();
    for plan in &cmd.plans {
        results.push(solver.stats(plan, &bar)?);
    }
    bar.finish();
    emit_stats(global, &results, cmd.out.as_deref(), out)
}
