//! `tables`: which tables are present, what a material's closure misses,
//! and md5 checks.

use std::io::Write;

use fiftymove::{chess::material::Material, tables::TablesReport};

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
    let report = TablesReport::build(&inv, &parsed, verify);
    if global.json {
        render::json_line(out, &report)?;
    } else {
        render::tables_text(out, &report, verify)?;
    }
    out.flush()?;
    match report.failure() {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}
