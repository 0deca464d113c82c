//! `probe` and `line`: one position at a time, from the Syzygy tables or,
//! with `--rule` or `--metric`, from the solver.

use std::io::Write;

use fiftymove::{
    chess::{material::Material, position::parse_fen},
    probe::{
        line::{best_line, best_line_with, to_pgn},
        Prober,
    },
    solve::{Cache, Metric, Positions, Rule, Solver},
    Error,
};

use crate::{
    args::{LineFormat, MetricArg, SolveChoice},
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

/// The rule and metric to answer with from the solver, if asked for.
fn solver_choice(choice: &SolveChoice) -> Result<Option<(Rule, Metric)>, Error> {
    if choice.rule.is_none() && choice.metric.is_none() {
        return Ok(None);
    }
    let rule = match &choice.rule {
        Some(text) => text.parse()?,
        None => Rule::FIFTY,
    };
    let metric = match choice.metric {
        None | Some(MetricArg::Dtz) => Metric::Dtz,
        Some(MetricArg::Dtm) => Metric::Dtm,
        Some(MetricArg::Dtr) => Metric::Dtr,
    };
    if metric != Metric::Dtz && choice.rule.is_some() {
        return Err(no_rule_for(metric));
    }
    Ok(Some((rule, metric)))
}

fn solver(global: &Global) -> Solver {
    Solver::new(global.cache.clone().map(Cache::new), global.memory)
}

pub fn cmd_probe(
    global: &Global,
    fen: &str,
    choice: &SolveChoice,
    out: &mut impl Write,
) -> RunResult {
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
    if global.json {
        render::json_line(out, &report)?;
    } else {
        render::probe_text(out, &report)?;
    }
    Ok(())
}

pub fn cmd_line(
    global: &Global,
    fen: &str,
    format: LineFormat,
    choice: &SolveChoice,
    out: &mut impl Write,
) -> RunResult {
    let (line, pos) = match solver_choice(choice)? {
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
