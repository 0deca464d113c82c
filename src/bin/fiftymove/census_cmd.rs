//! `census`: every endgame under every historical rule, from one DTR solve
//! per material (the library's `census`), with progress across materials,
//! a plan, shards for a cluster, and the report files.

use std::{
    io::{IsTerminal, Write},
    path::PathBuf,
    sync::Mutex,
    time::Duration,
};

use fiftymove::{
    census::{self, estimated_seconds, lists, summary, Census, CensusPlan, CensusProgress},
    chess::material::Material,
    claims::{self, Hooks, Sources},
    model::merge::{build_of, read_results},
    report::census::write_census,
    solve::{self, Metric, Rule},
    tables::Inventory,
    Error,
};
use indicatif::{ProgressBar, ProgressStyle};

use crate::{args::CensusArgs, parse_shard, render, Global, RunResult};

/// A validated `census`.
pub struct CensusCommand {
    plan: CensusPlan,
    /// `--out DIR`.
    out: Option<PathBuf>,
    /// `--from FILE...`.
    from: Vec<PathBuf>,
    /// `--plan`.
    show_plan: bool,
}

impl CensusCommand {
    pub fn validate(args: &CensusArgs) -> Result<CensusCommand, Error> {
        let shard = args.shard.as_deref().map(parse_shard).transpose()?;
        if !args.from.is_empty() && (shard.is_some() || args.plan || !args.materials.is_empty()) {
            return Err(Error::Usage(
                "census --from sets saved rows side by side: it takes no materials, --shard or --plan"
                    .into(),
            ));
        }
        if shard.is_some() && args.out.is_none() && !args.plan {
            return Err(Error::Usage(
                "census --shard needs --out DIR, where it writes its rows for census --from".into(),
            ));
        }
        if let Some(dir) = &args.out {
            if dir.exists() && !dir.is_dir() {
                return Err(Error::Usage(format!(
                    "--out {}: is not a directory",
                    dir.display()
                )));
            }
        }
        let materials = args
            .materials
            .iter()
            .map(|m| m.parse::<Material>())
            .collect::<Result<Vec<_>, _>>()?;
        Ok(CensusCommand {
            plan: CensusPlan::new(&materials, shard)?,
            out: args.out.clone(),
            from: args.from.clone(),
            show_plan: args.plan,
        })
    }
}

/// The file a shard writes its rows to, in `--out DIR`.
fn shard_file(dir: &std::path::Path, shard: fiftymove::model::Shard) -> PathBuf {
    dir.join(format!("census.shard-{}-of-{}.json", shard.k, shard.n))
}

pub fn cmd_census(global: &Global, cmd: &CensusCommand, out: &mut impl Write) -> RunResult {
    if cmd.show_plan {
        return cmd_census_plan(global, cmd, out);
    }
    let census = if cmd.from.is_empty() {
        run_census(global, cmd)?
    } else {
        let rows = read_results(&cmd.from)?;
        if !global.quiet {
            let whose = match build_of(&rows) {
                Some(b) if b == fiftymove::build_id::BUILD_ID => format!("this build, {b}"),
                Some(b) => format!(
                    "build {b}, not this one ({})",
                    fiftymove::build_id::BUILD_ID
                ),
                None => "an older fiftymove that did not name its build".to_owned(),
            };
            eprintln!(
                "note: read {} row(s) from --from, made by {whose}",
                rows.len()
            );
        }
        Census::from_documents(rows)?
    };
    match (&cmd.out, cmd.plan.shard()) {
        (Some(dir), Some(shard)) => {
            std::fs::create_dir_all(dir).map_err(|error| Error::Output {
                path: dir.clone(),
                error,
            })?;
            let mut buf = Vec::new();
            for row in census.rows() {
                render::json_line(&mut buf, row)?;
            }
            let path = shard_file(dir, shard);
            fiftymove::output::write_atomically(&path, &buf)?;
            writeln!(out, "wrote {}", path.display())?;
        }
        (Some(dir), None) => {
            let lists = historical(&census)?;
            let generated_by = std::iter::once("fiftymove".to_owned())
                .chain(std::env::args().skip(1))
                .collect::<Vec<_>>()
                .join(" ");
            for path in write_census(dir, &census, &lists, &generated_by)? {
                writeln!(out, "wrote {}", path.display())?;
            }
        }
        (None, _) if global.json => render::json_line(out, &census.document())?,
        (None, _) => out.write_all(summary::text_table(&census)?.as_bytes())?,
    }
    Ok(())
}

/// The historical lists of the shipped catalog, set against `census`.
fn historical(census: &Census) -> Result<Vec<lists::ListInCensus>, Error> {
    Ok(lists::historical_lists(&claims::catalog()?)?
        .iter()
        .map(|l| lists::compare(l, census))
        .collect())
}

/// The sources of the census's documents: the solver and the cache of
/// documents; no table file is read.
fn sources<'a>(global: &Global, inv: &'a Inventory, hooks: &'a dyn Hooks) -> Sources<'a> {
    Sources::new(
        inv,
        global.verify,
        global.memory,
        global.solver(),
        global.stats_cache(),
        hooks,
    )
}

/// Refuses, before any work, a census with a material whose solve could
/// take more memory than `--memory-limit`.
fn check_memory(global: &Global, materials: &[Material]) -> Result<(), Error> {
    let Some(limit) = global.memory.bytes() else {
        return Ok(());
    };
    let solver = global.solver();
    for m in materials {
        let plan = solver.memory_plan(m, Rule::None, Metric::Dtr);
        if plan.bytes > limit {
            return Err(Error::Memory {
                needed_for: format!("census {m} (its DTR solve)"),
                engine: "the solver",
                instead: None,
                needed: plan.bytes,
                limit,
            });
        }
    }
    Ok(())
}

fn run_census(global: &Global, cmd: &CensusCommand) -> Result<Census, Error> {
    let selected = cmd.plan.selected();
    check_memory(global, &selected)?;
    let inv = Inventory::scan(&[])?;
    let threads = rayon::current_num_threads();
    let estimates: Vec<f64> = selected
        .iter()
        .map(|m| estimated_seconds(m, threads))
        .collect();
    let bar = CensusBar::new(global, estimates);
    let sources = sources(global, &inv, &bar);
    let census = census::run(&cmd.plan, &sources, &bar);
    bar.finish();
    census
}

/// `census --plan`: per material, its memory bound (its DTR solve, its
/// closure read from the cache), an estimated time, and whether its
/// document is cached.
fn cmd_census_plan(global: &Global, cmd: &CensusCommand, out: &mut impl Write) -> RunResult {
    let selected = cmd.plan.selected();
    let inv = Inventory::scan(&[])?;
    let sources = sources(global, &inv, &claims::Quiet);
    let solver = global.solver();
    let threads = rayon::current_num_threads();
    let mut total = 0.0;
    let mut largest = 0;
    for m in &selected {
        let cached = sources.is_at_hand(&census::request(m));
        let memory = solver
            .plan(m, Rule::None, Metric::Dtr)
            .into_iter()
            .find(|p| p.material == m.table_name())
            .map_or(0, |p| p.memory_bytes);
        let seconds = if cached {
            0.0
        } else {
            estimated_seconds(m, threads)
        };
        total += seconds;
        largest = largest.max(memory);
        if global.json {
            render::json_line(
                out,
                &serde_json::json!({
                    "material": m.table_name(),
                    "memory_bytes": memory,
                    "estimated_seconds": seconds.round() as u64,
                    "cached": cached,
                }),
            )?;
        } else {
            let state = if cached { "cached" } else { "todo" };
            writeln!(
                out,
                "{}\t{memory}\t{}\t{state}",
                m.table_name(),
                seconds.round() as u64
            )?;
        }
    }
    if !global.quiet {
        eprintln!(
            "census plan: {} material(s), the largest memory bound {}, about {} on {threads} thread(s) (an estimate from the positions; docs/census.md)",
            selected.len(),
            fiftymove::human::human_bytes(largest),
            duration_words(total)
        );
    }
    Ok(())
}

/// Seconds for people: `2 h 05 min`, `3 min 20 s`, `12 s`.
fn duration_words(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{} h {:02} min", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        format!("{s} s")
    }
}

/// Progress across the census's materials: a bar on a terminal whose units
/// are estimated milliseconds of work (so its ETA weighs a 5-piece
/// material as more than a 3-piece one), else one line per material done
/// with the time left, corrected by how the estimates have fared so far.
struct CensusBar {
    bar: ProgressBar,
    lines: bool,
    quiet: bool,
    estimates: Vec<f64>,
    state: Mutex<BarState>,
}

#[derive(Default)]
struct BarState {
    /// The material in hand, for the bar's message.
    current: String,
    /// Whether its document was cached.
    cached: bool,
    /// Estimated and measured seconds of the materials solved so far.
    estimated_done: f64,
    measured_done: f64,
}

impl CensusBar {
    fn new(global: &Global, estimates: Vec<f64>) -> CensusBar {
        let terminal = std::io::stderr().is_terminal();
        let bar = if global.quiet || !terminal {
            ProgressBar::hidden()
        } else {
            let total: f64 = estimates.iter().sum();
            let bar = ProgressBar::new((total * 1000.0).round() as u64);
            bar.set_style(
                ProgressStyle::with_template(
                    "{msg} [{elapsed_precise}] {wide_bar} {percent}% (ETA {eta})",
                )
                .expect("valid template"),
            );
            bar
        };
        CensusBar {
            bar,
            lines: !global.quiet && !terminal,
            quiet: global.quiet,
            estimates,
            state: Mutex::new(BarState::default()),
        }
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl CensusProgress for CensusBar {
    fn material(&self, material: &Material, index: usize, count: usize, cached: bool) {
        let what = format!(
            "census {material} ({}/{count}{})",
            index + 1,
            if cached { ", cached" } else { "" }
        );
        self.bar.set_message(what.clone());
        let mut state = self.state.lock().expect("no panic while held");
        state.current = what;
        state.cached = cached;
    }

    fn material_done(&self, material: &Material, index: usize, count: usize, took: Duration) {
        let estimate = self.estimates.get(index).copied().unwrap_or(0.0);
        self.bar.inc((estimate * 1000.0).round() as u64);
        let mut state = self.state.lock().expect("no panic while held");
        // Cached materials take no time; they say nothing of the estimates.
        if !state.cached && took > Duration::from_millis(500) {
            state.estimated_done += estimate;
            state.measured_done += took.as_secs_f64();
        }
        if self.lines {
            let left: f64 = self.estimates[index + 1..].iter().sum();
            let scale = if state.estimated_done > 0.0 {
                state.measured_done / state.estimated_done
            } else {
                1.0
            };
            let how = if state.cached {
                "read from the cache".to_owned()
            } else {
                format!("in {:.1} s", took.as_secs_f64())
            };
            eprintln!(
                "done: census {material} ({}/{count}) {how}; about {} left",
                index + 1,
                duration_words(left * scale)
            );
        }
    }
}

impl Hooks for CensusBar {
    fn sweep(&self, _: &str) -> Box<dyn Fn(u64) + Sync + '_> {
        Box::new(|_| {})
    }
    fn sweep_done(&self) {}
    fn solve(&self) -> &dyn solve::Progress {
        self
    }
}

impl solve::Progress for CensusBar {
    fn stage(&self, what: &str, _: usize, _: usize, _: u64) {
        let state = self.state.lock().expect("no panic while held");
        self.bar.set_message(format!("{}: {what}", state.current));
    }

    fn advance(&self, _: u64) {}

    fn level(&self, level: usize) {
        let state = self.state.lock().expect("no panic while held");
        let message = self.bar.message();
        let base = message.split(", level").next().unwrap_or(&state.current);
        self.bar.set_message(format!("{base}, level {level}"));
    }

    fn note(&self, text: &str) {
        if !self.quiet {
            self.bar.suspend(|| eprintln!("note: {text}"));
        }
    }
}
