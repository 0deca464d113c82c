//! Record positions (`data/records.toml`) and the longest win of each table.
//!
//! The records are claims in the catalog's schema ([`crate::claims`]) and are
//! checked by the same [`Verifier`]. Where the 6- and 7-piece tables are
//! absent their verdict is `unverifiable` and names the files needed.

use serde::{Deserialize, Serialize};
use shakmaty::Color;

use crate::{
    chess::material::Material,
    chess::wdl::Wdl,
    claims::{parse_catalog, Claim, ClaimResult, LineSummary, Verifier},
    error::Result,
    model::ScanStats,
    tables::{complete_tables, Inventory},
};

/// The records shipped with fiftymove (`data/records.toml`).
pub const RECORDS_TOML: &str = include_str!("../../data/records.toml");

/// The shipped records.
///
/// # Errors
///
/// As for [`parse_catalog`]; the shipped file is tested to parse.
pub fn records() -> Result<Vec<Claim>> {
    parse_catalog(RECORDS_TOML, "data/records.toml")
}

/// The longest win of one side to move in one table.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct LongestWin {
    /// The material, White first.
    pub material: String,
    /// The side to move, which wins: `white` or `black`.
    pub to_move: String,
    /// That side's pieces.
    pub winner: String,
    /// `win` or `cursed_win`.
    pub wdl: Wdl,
    /// Exact DTZ in plies.
    pub dtz: u32,
    /// The position.
    pub fen: String,
    /// The first phase of its best-play line, in plies.
    pub phase_plies: Option<u32>,
    /// The winner's moves for that phase (`ceil(plies / 2)`).
    pub moves: Option<u32>,
    /// The best-play line.
    pub line: Option<LineSummary>,
}

/// The longest win (cursed wins included) of each side to move in
/// `material`, from the verifier's cached scan; with its best-play line
/// when `with_lines` (which needs the material's tables).
///
/// # Errors
///
/// Table errors from the scan or the line.
pub fn longest_wins(
    v: &mut Verifier<'_>,
    material: &Material,
    with_lines: bool,
) -> Result<Vec<LongestWin>> {
    let stats = v.stats(material)?.clone();
    let mut out = Vec::new();
    for color in Color::ALL {
        let l = &stats.side(color).longest;
        let best = [(Wdl::CursedWin, &l.cursed_win), (Wdl::Win, &l.win)]
            .into_iter()
            .filter_map(|(w, e)| e.as_ref().map(|e| (w, e.clone())))
            .max_by_key(|(_, e)| e.dtz);
        let Some((wdl, entry)) = best else { continue };
        let line = if with_lines {
            Some(LineSummary::from(v.line(&entry.fen)?))
        } else {
            None
        };
        let first = line
            .as_ref()
            .and_then(|l| l.phases.first().map(|p| p.plies));
        out.push(LongestWin {
            material: stats.material.clone(),
            to_move: match color {
                Color::White => "white",
                Color::Black => "black",
            }
            .into(),
            winner: material.side(color).to_string(),
            wdl,
            dtz: entry.dtz,
            fen: entry.fen,
            phase_plies: first,
            moves: first.map(|p| p.div_ceil(2)),
            line,
        });
    }
    Ok(out)
}

/// What `fiftymove records` reports.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct RecordsReport {
    /// The record claims with their verdicts.
    pub records: Vec<ClaimResult>,
    /// The longest win of each table examined.
    pub longest: Vec<LongestWin>,
    /// Tables present but not examined (over `--max-pieces`).
    pub skipped: Vec<String>,
    /// Tables present but not examined because no scan of them is cached
    /// yet (without `--all-tables`, `records` reads what `claims` scanned
    /// and sweeps nothing else).
    #[serde(default)]
    pub not_scanned: Vec<String>,
}

/// Which tables' longest wins `records` shows, and which it leaves out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordMaterials {
    /// The tables examined, smallest first.
    pub chosen: Vec<Material>,
    /// Left out for having more than `--max-pieces` pieces.
    pub over_max_pieces: Vec<String>,
    /// Left out for having no cached scan (without `--all-tables`).
    pub not_scanned: Vec<String>,
}

/// The materials whose longest wins `records` shows: those named, else
/// those of the saved scans, else the complete tables present whose
/// dependencies are present, with at most `max_pieces` pieces (smallest
/// first), and of those, unless `all_tables`, only the ones `scanned`
/// says are in the cache: a sweep of every table present takes half an
/// hour on a small machine, and `claims` has already scanned the tables
/// that its claims need.
///
/// # Errors
///
/// [`crate::Error::Material`] for a bad material name.
pub fn record_materials(
    inv: &Inventory,
    materials: &[String],
    saved: &[ScanStats],
    max_pieces: Option<usize>,
    all_tables: bool,
    scanned: &dyn Fn(&Material) -> bool,
) -> Result<RecordMaterials> {
    if !materials.is_empty() {
        let chosen = materials
            .iter()
            .map(|m| m.parse::<Material>())
            .collect::<Result<Vec<_>>>()?;
        return Ok(RecordMaterials {
            chosen,
            ..RecordMaterials::default()
        });
    }
    if !saved.is_empty() {
        let chosen = saved
            .iter()
            .map(|s| s.material.parse::<Material>())
            .collect::<Result<Vec<_>>>()?;
        return Ok(RecordMaterials {
            chosen,
            ..RecordMaterials::default()
        });
    }
    let mut out = RecordMaterials::default();
    for name in complete_tables(inv) {
        let m: Material = name.parse()?;
        if !inv.missing_for(&m).is_empty() {
            continue;
        }
        if max_pieces.is_some_and(|n| m.piece_count() > n) {
            out.over_max_pieces.push(name);
        } else if all_tables || scanned(&m) {
            out.chosen.push(m);
        } else {
            out.not_scanned.push(name);
        }
    }
    out.chosen.sort_by_key(|m| (m.piece_count(), m.to_string()));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_records_parse() {
        let r = records().unwrap();
        assert!(r.iter().any(|c| c.id == "record-517-conversion"));
        assert!(r.iter().any(|c| c.id == "record-549-mate"));
        assert!(r.iter().any(|c| c.material.as_deref() == Some("KRNvKNN")));
    }
}
