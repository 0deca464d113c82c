//! `probe` and `line`: one position at a time.

use std::io::Write;

use fiftymove::{
    chess::{material::Material, position::parse_fen},
    probe::{
        line::{best_line, to_pgn},
        Prober,
    },
    Error,
};

use crate::{args::LineFormat, render, Global, RunResult};

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

pub fn cmd_probe(global: &Global, fen: &str, out: &mut impl Write) -> RunResult {
    let (prober, pos) = open_for_fen(global, fen)?;
    let report = prober.report(&pos)?;
    if global.json {
        render::json_line(out, &report)?;
    } else {
        render::probe_text(out, &report)?;
    }
    Ok(())
}

pub fn cmd_line(global: &Global, fen: &str, format: LineFormat, out: &mut impl Write) -> RunResult {
    let (prober, pos) = open_for_fen(global, fen)?;
    let line = best_line(&prober, &pos)?;
    match format {
        LineFormat::Json => render::json_line(out, &line)?,
        LineFormat::Pgn => out.write_all(to_pgn(&line, &pos).as_bytes())?,
        LineFormat::Text => render::line_text(out, &line)?,
    }
    Ok(())
}
