//! Compares a saved scan (`fiftymove --json scan --out SCAN.json MATERIAL`)
//! with the Syzygy generator's statistics for the same table (the
//! `MATERIAL.txt` that `rtbgen -s` / `rtbgenp -s` writes), by the
//! comparison the tests use (`fiftymove::scan::reference::compare`): every
//! class count, every DTZ bin and the longest wins, per side to move.
//!
//! ```text
//! cargo run --release --example generator_stats -- STATS.txt SCAN.json
//! ```
//!
//! Prints `SCAN.json equals the generator's statistics for MATERIAL` and
//! exits 0, or prints each difference and exits 1 (2 on bad input).
//! `scripts/generate-tables.sh` runs it on the tables it generates.

use std::{fs, process::ExitCode};

use fiftymove::scan::{reference, ScanStats};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [stats_path, scan_path] = args.as_slice() else {
        eprintln!("usage: generator_stats STATS.txt SCAN.json");
        return ExitCode::from(2);
    };
    let read = |path: &str| {
        fs::read_to_string(path).map_err(|e| eprintln!("error: cannot read {path}: {e}"))
    };
    let (Ok(stats_text), Ok(scan_text)) = (read(stats_path), read(scan_path)) else {
        return ExitCode::from(2);
    };
    let scan: ScanStats = match serde_json::from_str(scan_text.trim()) {
        Ok(scan) => scan,
        Err(e) => {
            eprintln!("error: {scan_path} is not a scan document: {e}");
            return ExitCode::from(2);
        }
    };
    let all = match reference::parse(&stats_text) {
        Ok(all) => all,
        Err(e) => {
            eprintln!("error: {stats_path}: {e}");
            return ExitCode::from(2);
        }
    };
    let Some(theirs) = all.iter().find(|g| g.material == scan.material) else {
        eprintln!(
            "error: {stats_path} has no statistics for {}",
            scan.material
        );
        return ExitCode::from(2);
    };
    let diffs = reference::compare(&scan, theirs);
    if diffs.is_empty() {
        println!(
            "{scan_path} equals the generator's statistics for {}",
            scan.material
        );
        ExitCode::SUCCESS
    } else {
        for d in &diffs {
            println!("{}: {d}", scan.material);
        }
        println!(
            "{scan_path}: {} difference(s) from the generator's statistics for {}",
            diffs.len(),
            scan.material
        );
        ExitCode::FAILURE
    }
}
