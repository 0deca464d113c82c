//! The commands of the claim catalog: `claims`, `records` and `report`.
//!
//! Whole-table statistics reach them through the library's `Sources`
//! (the sweep of the tables, the solver, and the cache of documents); this
//! file gives them progress bars.

use std::{
    io::Write,
    path::{Path, PathBuf},
    sync::Mutex,
};

use fiftymove::{
    build_id::BUILD_ID,
    chess::material::Material,
    claims::records::{self, longest_wins, record_materials, RecordMaterials, RecordsReport},
    claims::{self, parse_catalog, Claim, Hooks, Sources, Verifier, SWEEP_UNITS},
    model::merge::{build_of, read_text, read_whole_results},
    model::ScanStats,
    probe::Prober,
    report::{write_report, ReportInput},
    solve::{Metric, Rule, SolvePlan},
    tables::Inventory,
    Error,
};
use indicatif::ProgressBar;

use super::{
    args::{ClaimsArgs, RemoteChoice},
    probe_cmd::{remote_prober, report_remote},
    progress_bar, render, render_claims,
    scan_cmd::SolveBar,
    Global, RunResult, StepLines,
};

/// Progress bars for the sweeps and solves behind the claims.
pub struct Bars<'a> {
    global: &'a Global,
    sweep: Mutex<Option<ProgressBar>>,
    solve: SolveBar,
    /// Lines for the sweeps without a terminal.
    sweep_steps: StepLines,
    /// What the current work is for (a claim id), shown on the bar.
    purpose: Mutex<String>,
}

impl<'a> Bars<'a> {
    pub fn new(global: &'a Global) -> Bars<'a> {
        Bars {
            global,
            sweep: Mutex::new(None),
            solve: SolveBar::new(global),
            sweep_steps: StepLines::new(global),
            purpose: Mutex::new(String::new()),
        }
    }

    fn set_purpose(&self, what: &str) {
        // The solve in hand was for the claim before.
        self.solve.step_done();
        *self.purpose.lock().expect("no panic while held") = what.to_owned();
    }

    fn finish(&self) {
        self.solve.finish();
    }
}

impl Hooks for Bars<'_> {
    fn sweep(&self, what: &str) -> Box<dyn Fn(u64) + Sync + '_> {
        let mut what = what.to_owned();
        let purpose = self.purpose.lock().expect("no panic while held");
        if !purpose.is_empty() {
            what.push_str(&format!(" for {purpose}"));
        }
        let bar = progress_bar(self.global, SWEEP_UNITS, &what);
        self.sweep_steps.start(&what);
        *self.sweep.lock().expect("no panic while held") = Some(bar.clone());
        Box::new(move |n| bar.inc(n))
    }

    fn sweep_done(&self) {
        if let Some(bar) = self.sweep.lock().expect("no panic while held").take() {
            bar.finish_and_clear();
        }
        self.sweep_steps.finish();
    }

    fn solve(&self) -> &dyn fiftymove::solve::Progress {
        &self.solve
    }
}

/// The sources of documents for the claim commands: the tables, the
/// solver, and the cache (`<cache dir>/../stats`, beside the solver's).
fn sources<'a>(global: &Global, inv: &'a Inventory, bars: &'a Bars<'_>) -> Sources<'a> {
    let solver = global.solver();
    let stats = global.stats_cache();
    Sources::new(inv, global.verify, global.memory, solver, stats, bars)
}

fn load_catalog(path: Option<&Path>) -> Result<Vec<Claim>, Error> {
    match path {
        Some(p) => parse_catalog(&read_text(p)?, &p.display().to_string()),
        None => claims::catalog(),
    }
}

/// Saved documents (`--from`), all of one build (`read_whole_results`
/// refuses a mixture), with a note of which build made them unless
/// `--quiet`: another build's numbers are that build's, not this one's.
fn read_saved(global: &Global, from: &[PathBuf]) -> Result<Vec<ScanStats>, Error> {
    let saved = read_whole_results(from)?;
    if !global.quiet && !saved.is_empty() {
        let whose = match build_of(&saved) {
            Some(b) if b == BUILD_ID => format!("this build, {b}"),
            Some(b) => format!("build {b}, not this one ({BUILD_ID})"),
            None => {
                format!("an older fiftymove that did not name its build, not this one ({BUILD_ID})")
            }
        };
        eprintln!(
            "note: read {} document(s) from --from, made by {whose}",
            saved.len()
        );
    }
    Ok(saved)
}

/// Verifies one claim; if that fails, says what the service cost first, so
/// that the count is not lost behind the error.
fn verify_reporting(
    verifier: &mut Verifier<'_>,
    claim: &Claim,
    global: &Global,
    remote: Option<&Prober>,
) -> Result<claims::ClaimResult, Error> {
    let result = verifier.verify(claim);
    if result.is_err() {
        report_remote(global, remote);
    }
    result
}

pub fn cmd_claims(global: &Global, args: &ClaimsArgs, out: &mut impl Write) -> RunResult {
    let catalog = load_catalog(args.catalog.as_deref())?;
    let selected = claims::select(&catalog, &args.ids)?;
    if args.list {
        render::json_or_text(global.json, out, &selected, |out, c| {
            render_claims::list_text(out, c)
        })?;
        return Ok(());
    }
    let inv = global.inventory()?;
    let prober = Prober::new(inv.open()?);
    let remote = remote_prober(global, &args.remote)?;
    let bars = Bars::new(global);
    let mut sources = sources(global, &inv, &bars).deep(args.deep);
    Verifier::want(&mut sources, &selected);
    let mut verifier = Verifier::new(&inv, &prober, &sources);
    if let Some(r) = &remote {
        verifier = verifier.with_remote(r);
    }
    for stats in read_saved(global, &args.from)? {
        verifier.preload(stats)?;
    }
    // Everything that can fail on the tables fails here, before long work.
    verifier.preflight(&selected)?;
    if args.require_tables {
        for c in &selected {
            let missing = verifier.missing_for(c)?;
            if !missing.is_empty() {
                return Err(Error::MissingTables {
                    needed_for: format!("claim {}", c.id),
                    files: missing,
                }
                .into());
            }
        }
    }
    // Text is written claim by claim, as each is verified (a whole run
    // takes minutes); JSON is one array, written at the end.
    let mut results = Vec::new();
    for c in &selected {
        bars.set_purpose(&c.id);
        let result = verify_reporting(&mut verifier, c, global, remote.as_ref())?;
        if !global.json {
            render_claims::claim_text(out, &result)?;
            writeln!(out)?;
            out.flush()?;
        }
        results.push(result);
    }
    bars.finish();
    report_remote(global, remote.as_ref());
    render::json_or_text(global.json, out, &results, |out, r| {
        render_claims::tally_text(out, r)
    })?;
    Ok(())
}

pub fn cmd_records(
    global: &Global,
    materials: &[String],
    from: &[PathBuf],
    max_pieces: Option<usize>,
    all_tables: bool,
    remote: &RemoteChoice,
    out: &mut impl Write,
) -> RunResult {
    let recs = records::records()?;
    let inv = global.inventory()?;
    let prober = Prober::new(inv.open()?);
    let remote = remote_prober(global, remote)?;
    let bars = Bars::new(global);
    let sources = sources(global, &inv, &bars);
    let mut verifier = Verifier::new(&inv, &prober, &sources);
    if let Some(r) = &remote {
        verifier = verifier.with_remote(r);
    }
    let saved = read_saved(global, from)?;
    for s in &saved {
        verifier.preload(s.clone())?;
    }
    let RecordMaterials {
        chosen,
        over_max_pieces,
        not_scanned,
    } = record_materials(&inv, materials, &saved, max_pieces, all_tables, &|m| {
        sources.has_cached_scan(m)
    })?;
    let rec_refs: Vec<&Claim> = recs.iter().collect();
    verifier.preflight(&rec_refs)?;
    // Tables to scan must be complete before the long work starts.
    for m in &chosen {
        if !saved.iter().any(|s| s.material == m.to_string()) {
            inv.require(m, &m.to_string())?;
        }
    }
    let mut report = RecordsReport {
        records: Vec::new(),
        longest: Vec::new(),
        skipped: over_max_pieces,
        not_scanned,
    };
    for c in &recs {
        bars.set_purpose(&c.id);
        report
            .records
            .push(verify_reporting(&mut verifier, c, global, remote.as_ref())?);
    }
    report_remote(global, remote.as_ref());
    for m in &chosen {
        bars.set_purpose("records");
        let with_lines = inv.missing_for(m).is_empty();
        report
            .longest
            .extend(longest_wins(&mut verifier, m, with_lines)?);
    }
    render::json_or_text(global.json, out, &report, render_claims::records_text)?;
    Ok(())
}

pub fn cmd_report(
    global: &Global,
    dir: &Path,
    materials: &[String],
    from: &[PathBuf],
    out: &mut impl Write,
) -> RunResult {
    let inv = global.inventory()?;
    // Saved solver documents in DTM or DTR go beside the scans.
    let (mut solved, saved): (Vec<ScanStats>, Vec<ScanStats>) = read_saved(global, from)?
        .into_iter()
        .partition(|s| matches!(s.metric, Some(Metric::Dtm | Metric::Dtr)));
    let parsed: Vec<Material> = if saved.is_empty() {
        materials
            .iter()
            .map(|m| m.parse::<Material>())
            .collect::<Result<Vec<_>, _>>()?
    } else {
        saved
            .iter()
            .map(|s| s.material.parse::<Material>())
            .collect::<Result<Vec<_>, _>>()?
    };
    if saved.is_empty() {
        // Scanning needs every table of every material, checked up front.
        for m in &parsed {
            inv.require(m, &m.to_string())?;
        }
    }
    let prober = Prober::new(inv.open()?);
    let bars = Bars::new(global);
    let catalog = claims::catalog()?;
    let names: Vec<String> = parsed.iter().map(Material::table_name).collect();
    let relevant = claims::concerning(&catalog, &names);
    let mut sources = sources(global, &inv, &bars);
    Verifier::want(&mut sources, &relevant);
    let mut verifier = Verifier::new(&inv, &prober, &sources);
    for s in &saved {
        verifier.preload(s.clone())?;
    }
    verifier.preflight(&relevant)?;
    let mut input = ReportInput {
        generated_by: std::iter::once("fiftymove".to_owned())
            .chain(std::env::args().skip(1))
            .collect::<Vec<_>>()
            .join(" "),
        ..ReportInput::default()
    };
    for m in &parsed {
        bars.set_purpose("report");
        input.stats.push(verifier.stats(m)?.clone());
        let with_lines = inv.missing_for(m).is_empty();
        input
            .longest
            .extend(longest_wins(&mut verifier, m, with_lines)?);
    }
    for c in relevant {
        bars.set_purpose(&c.id);
        input.claims.push(verifier.verify(c)?);
    }
    // DTM and DTR from the solver, for the materials it takes (cached after
    // the first time).
    let solver = sources.solver();
    let bar = &bars.solve;
    for m in &parsed {
        if m.piece_count() > fiftymove::claims::CLAIMS_SOLVE_PIECES {
            continue;
        }
        for metric in [Metric::Dtm, Metric::Dtr] {
            let have = solved
                .iter()
                .any(|s| s.material == m.to_string() && s.metric == Some(metric));
            if !have {
                let plan = SolvePlan {
                    material: *m,
                    rule: Rule::None,
                    metric,
                    shard: None,
                    raw: false,
                    filter: None,
                    pawns: None,
                };
                solved.push(solver.stats(&plan, bar)?);
            }
        }
    }
    bars.finish();
    input.solved = solved;
    let written = write_report(dir, &input)?;
    if global.json {
        let paths: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
        render::json_line(out, &serde_json::json!({ "written": paths }))?;
    } else {
        for p in written {
            writeln!(out, "wrote {}", p.display())?;
        }
    }
    Ok(())
}
