//! `probe` and `line`: one position at a time, from the Syzygy tables, from
//! a tablebase service with `--remote`, or, with `--rule` or `--metric`,
//! from the solver.

use std::io::{IsTerminal, Write};

use fiftymove::{
    chess::{material::Material, position::parse_fen},
    probe::{
        best_line,
        line::{best_line_with, to_pgn},
        Prober,
    },
    solve::{Metric, Positions, Rule, Solver},
    tables::remote::Remote,
    Error,
};

use crate::{
    args::{LineFormat, RemoteChoice, SolveChoice},
    no_rule_for, render,
    scan_cmd::SolveBar,
    Global, RunResult,
};

/// Parses a FEN and opens the tables its play can need, checking the whole
/// dependency closure first.
fn open_for_fen(global: &Global, fen: &str) -> Result<(Prober, shakmaty::Chess), Error> {
    let pos = parse_fen(fen)?;
    let inv = global.inventory()?;
    let material = Material::from_board(shakmaty::Position::board(&pos))?;
    if material.has_table() {
        inv.require(&material, &format!("{material} ({fen})"))?;
    }
    Ok((Prober::new(inv.open()?), pos))
}

/// The probe engine on the service `--remote` names, if it names one.
pub fn remote_prober(global: &Global, choice: &RemoteChoice) -> Result<Option<Prober>, Error> {
    let Some(url) = &choice.remote else {
        return Ok(None);
    };
    let remote = Remote::new(
        url,
        global.remote_cache().as_deref(),
        std::time::Duration::from_millis(choice.remote_spacing),
    )?
    .with_budget(Some(choice.remote_budget));
    // Progress: a spinner with the count on a terminal, else a plain line
    // every thousand requests; nothing with --quiet.
    let remote = if global.quiet {
        remote
    } else if std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
                .expect("valid template"),
        );
        let _ = REMOTE_SPINNER.set(bar.clone());
        let url = url.clone();
        remote.on_request(move |s| {
            bar.set_message(format!(
                "{} request(s) to {url}, {} left of the budget",
                s.requests,
                s.remaining().unwrap_or(0)
            ));
            bar.tick();
        })
    } else {
        let url = url.clone();
        remote.on_request(move |s| {
            if s.requests % 100 == 0 {
                eprintln!(
                    "remote: {} requests to {url} so far, {} left of the budget",
                    s.requests,
                    s.remaining().unwrap_or(0)
                );
            }
        })
    };
    Ok(Some(Prober::remote(remote)))
}

/// The spinner of a run's remote requests, cleared before the summary.
static REMOTE_SPINNER: std::sync::OnceLock<indicatif::ProgressBar> = std::sync::OnceLock::new();

/// One line on stderr (unless `--quiet`) saying what the service cost.
pub fn report_remote(global: &Global, prober: Option<&Prober>) {
    if let Some(bar) = REMOTE_SPINNER.get() {
        bar.finish_and_clear();
    }
    let Some(remote) = prober.and_then(Prober::remote_source) else {
        return;
    };
    if global.quiet {
        return;
    }
    let s = remote.stats();
    if s.requests + s.from_cache == 0 {
        return;
    }
    let mut line = format!(
        "remote: {} request(s) to {}, {} answer(s) from the cache",
        s.requests,
        remote.url(),
        s.from_cache
    );
    if let (Some(budget), Some(left)) = (s.budget, s.remaining()) {
        line += &format!(" (budget {budget}, {left} left)");
    }
    if s.damaged > 0 {
        line += &format!(" ({} damaged cache file(s) fetched again)", s.damaged);
    }
    if s.inexact > 0 {
        line += &format!(
            "; {} answer(s) had an inexact category (maybe-* or syzygy-*): fiftymove resolved them from the raw DTZ",
            s.inexact
        );
    }
    eprintln!("{line}");
}

/// `--remote` with `--rule` or `--metric`: the service answers the 50-move
/// rule in DTZ only.
fn remote_with_solver(choice: &SolveChoice, remote: &RemoteChoice) -> Result<(), Error> {
    if remote.remote.is_some() && (choice.rule.is_some() || choice.metric.is_some()) {
        return Err(Error::Usage(
            "--remote reads a tablebase service, which answers DTZ under the 50-move rule; --rule and --metric answer from the solver instead: give one or the other".into(),
        ));
    }
    Ok(())
}

/// The rule and metric to answer with from the solver, if asked for.
fn solver_choice(choice: &SolveChoice) -> Result<Option<(Rule, Metric)>, Error> {
    if choice.rule.is_none() && choice.metric.is_none() {
        return Ok(None);
    }
    let rule = match &choice.rule {
        Some(text) => text.parse()?,
        None => Rule::FIFTY,
    };
    let metric = choice.metric.unwrap_or(Metric::Dtz);
    if metric != Metric::Dtz && choice.rule.is_some() {
        return Err(no_rule_for(metric));
    }
    Ok(Some((rule, metric)))
}

fn solver(global: &Global) -> Solver {
    global.solver()
}

pub fn cmd_probe(
    global: &Global,
    fen: &str,
    choice: &SolveChoice,
    remote: &RemoteChoice,
    out: &mut impl Write,
) -> RunResult {
    remote_with_solver(choice, remote)?;
    if let Some(prober) = remote_prober(global, remote)? {
        let pos = parse_fen(fen)?;
        let report = prober.report(&pos);
        report_remote(global, Some(&prober));
        let report = report?;
        render::json_or_text(global.json, out, &report, render::probe_text)?;
        return Ok(());
    }
    let report = match solver_choice(choice)? {
        Some((rule, metric)) => {
            let pos = parse_fen(fen)?;
            let bar = SolveBar::new(global);
            let mut report = Positions::new(&solver(global), rule, metric, &bar)?.report(&pos)?;
            // DTR within the rule's limit less the clock proves the win,
            // but a longer DTR may still win when only a later phase is
            // long: with a clock running, the rule's own solve says.
            if metric == Metric::Dtr && shakmaty::Position::halfmoves(&pos) > 0 {
                report.outcome_with_clock =
                    Positions::new(&solver(global), rule, Metric::Dtz, &bar)?
                        .report(&pos)?
                        .outcome_with_clock;
            }
            bar.finish();
            report
        }
        None => {
            let (prober, pos) = open_for_fen(global, fen)?;
            prober.report(&pos)?
        }
    };
    render::json_or_text(global.json, out, &report, render::probe_text)?;
    Ok(())
}

pub fn cmd_line(
    global: &Global,
    fen: &str,
    format: LineFormat,
    choice: &SolveChoice,
    remote: &RemoteChoice,
    out: &mut impl Write,
) -> RunResult {
    remote_with_solver(choice, remote)?;
    let remote = remote_prober(global, remote)?;
    let (line, pos) = match solver_choice(choice)? {
        _ if remote.is_some() => {
            let pos = parse_fen(fen)?;
            let prober = remote.as_ref().expect("checked");
            let line = best_line(prober, &pos);
            report_remote(global, Some(prober));
            (line?, pos)
        }
        Some((_, Metric::Dtr)) => {
            return Err(Error::Usage(
                "line plays DTZ-optimal play under a rule (--rule N) or mate-optimal play \
                 (--metric dtm); a DTR line is the line under the rule its DTR names"
                    .into(),
            )
            .into())
        }
        Some((rule, metric)) => {
            let pos = parse_fen(fen)?;
            let bar = SolveBar::new(global);
            let positions = Positions::new(&solver(global), rule, metric, &bar)?;
            let material = Material::from_board(shakmaty::Position::board(&pos))?;
            if material.has_table() {
                positions.prepare(&material)?;
            }
            let line = best_line_with(&positions, &pos, positions.rule(), metric)?;
            bar.finish();
            (line, pos)
        }
        None => {
            let (prober, pos) = open_for_fen(global, fen)?;
            (best_line(&prober, &pos)?, pos)
        }
    };
    match format {
        LineFormat::Json => render::json_line(out, &line)?,
        LineFormat::Pgn => out.write_all(to_pgn(&line, &pos).as_bytes())?,
        LineFormat::Text => render::line_text(out, &line)?,
    }
    Ok(())
}
