//! `fiftymove records` and `fiftymove report` against the real tables.

mod common;

use std::path::Path;

use common::{fiftymove, reference, run_ok, stdout_ok};
use fiftymove::{
    claims::records::RecordsReport, claims::Verdict, scan::reference as genstats, scan::ScanStats,
    tables::checksums,
};

fn generator(material: &str) -> genstats::GeneratorStats {
    genstats::parse(&reference("generator-stats-3-4-piece.txt"))
        .unwrap()
        .into_iter()
        .find(|g| g.material == material)
        .unwrap()
}

#[test]
fn records_name_the_files_needed_and_list_the_longest_wins() {
    let text = stdout_ok(fiftymove().args([
        "--quiet",
        "--json",
        "records",
        "--all-tables",
        "--max-pieces",
        "3",
    ]));
    let r: RecordsReport = serde_json::from_str(text.trim()).unwrap();
    // The records need 6- and 7-piece tables, which the test set lacks.
    let ids: Vec<&str> = r.records.iter().map(|c| c.id.as_str()).collect();
    for id in [
        "record-517-conversion",
        "record-549-mate",
        "record-549-win",
        "record-6-piece-krnknn-conversion",
    ] {
        assert!(ids.contains(&id), "{id}");
    }
    for c in &r.records {
        assert_eq!(c.verdict, Verdict::Unverifiable, "{}", c.id);
        if c.metric != fiftymove::claims::Metric::Dtm {
            assert!(!c.missing_tables.is_empty(), "{}", c.id);
            for f in &c.missing_tables {
                assert_eq!(
                    c.evidence.missing_table_bytes[f],
                    checksums::official(f).unwrap().bytes
                );
            }
        }
    }
    let conv = r
        .records
        .iter()
        .find(|c| c.id == "record-517-conversion")
        .unwrap();
    assert!(conv.missing_tables.contains(&"KRBNvKQN.rtbz".to_owned()));
    let six = r
        .records
        .iter()
        .find(|c| c.id == "record-6-piece-krnknn-conversion")
        .unwrap();
    assert!(six.missing_tables.contains(&"KRNvKNN.rtbw".to_owned()));
    // The longest wins of the 3-piece tables match the generator's
    // histograms, and come with their lines.
    for m in ["KQvK", "KRvK", "KPvK"] {
        let w = r
            .longest
            .iter()
            .find(|w| w.material == m && w.to_move == "white")
            .unwrap_or_else(|| panic!("{m} missing"));
        assert_eq!(Some(w.dtz), generator(m).white.win_in.max(), "{m}");
        let line = w.line.as_ref().unwrap();
        assert_eq!(w.phase_plies, Some(line.phases[0].plies));
        assert_eq!(w.moves, Some(line.phases[0].plies.div_ceil(2)));
    }
    // Draw-only tables have no longest win; 4-piece tables were skipped.
    assert!(!r.longest.iter().any(|w| w.material == "KBvK"));
    assert!(r.skipped.contains(&"KQvKR".to_owned()));
}

/// Without `--all-tables`, `records` sweeps nothing: it shows the longest
/// wins of the tables whose scans are cached (as `claims` leaves them) and
/// names the others.
#[test]
fn records_read_what_claims_scanned_and_sweep_nothing_else() {
    let cache = tempfile::tempdir().unwrap();
    let with_cache = || {
        let mut cmd = fiftymove();
        cmd.env("FIFTYMOVE_CACHE_DIR", cache.path());
        cmd
    };
    // An empty cache: no table is swept.
    let out = run_ok(with_cache().args(["--json", "records"]));
    let cold: RecordsReport = serde_json::from_slice(&out.stdout).unwrap();
    assert!(cold.longest.is_empty(), "{:?}", cold.longest);
    assert!(cold.not_scanned.contains(&"KQvKR".to_owned()));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("done: scan"));
    // A claim on KQ v KR scans KQvKR; records then shows its longest wins,
    // equal to the generator's, and still sweeps nothing else.
    run_ok(with_cache().args(["--quiet", "claims", "thompson-1986-kqkr"]));
    let warm: RecordsReport =
        serde_json::from_str(stdout_ok(with_cache().args(["--quiet", "--json", "records"])).trim())
            .unwrap();
    let materials: Vec<&str> = warm.longest.iter().map(|w| w.material.as_str()).collect();
    assert!(materials.iter().all(|m| *m == "KQvKR"), "{materials:?}");
    let white = warm
        .longest
        .iter()
        .find(|w| w.to_move == "white")
        .expect("KQ v KR has wins with White to move");
    assert_eq!(Some(white.dtz), generator("KQvKR").white.win_in.max());
    assert!(!warm.not_scanned.contains(&"KQvKR".to_owned()));
    assert!(warm.not_scanned.contains(&"KRvK".to_owned()));
}

fn assert_self_contained(html: &str) {
    for bad in ["http://", "https://", "src=", "@import", "url("] {
        assert!(!html.contains(bad), "the report loads something ({bad})");
    }
}

#[test]
fn report_from_a_saved_scan_has_tables_charts_boards_and_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let scan = dir.path().join("kqkr.json");
    run_ok(
        fiftymove()
            .args(["--quiet", "scan", "KQvKR", "--out"])
            .arg(&scan),
    );
    let stats: ScanStats =
        serde_json::from_str(std::fs::read_to_string(&scan).unwrap().trim()).unwrap();
    let out = dir.path().join("report");
    run_ok(
        fiftymove()
            .args(["--quiet", "report", "--out"])
            .arg(&out)
            .arg("--from")
            .arg(&scan),
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert_self_contained(&html);
    // The table per endgame, with the scan's numbers.
    let w = &stats.white;
    let row = format!(
        "| White | {} | {} | {} | {} | {} | {} |",
        w.positions, w.wdl.win, w.wdl.cursed_win, w.wdl.draw, w.wdl.blessed_loss, w.wdl.loss
    );
    assert!(md.contains(&row), "{row} not in\n{md}");
    assert!(html.contains(&format!("<td>{}</td>", w.positions)));
    // Histograms drawn by plotters, inline; the 100- and 150-ply lines.
    assert!(html.matches("<svg").count() >= 3);
    assert!(html.contains("100 plies") && html.contains("150 plies"));
    assert!(out.join("kqvkr-white-wins.svg").exists());
    assert!(md.contains("![KQvKR: White to move, wins by DTZ](kqvkr-white-wins.svg)"));
    // Boards of the longest positions.
    let longest = stats.black.longest.loss.as_ref().unwrap();
    assert!(html.contains(&longest.fen));
    assert!(html.contains("figure class=\"board\""));
    // The catalog's KQ v KR claims, verified from the saved scan.
    assert!(html.contains("thompson-1986-kqkr"));
    assert!(md.contains("| thompson-1986-kqkr (K. Thompson, 1986) |"));
    assert!(md.contains("**confirmed**"));
}

#[test]
fn report_scans_materials_and_merges_shards() {
    let dir = tempfile::tempdir().unwrap();
    let parts: Vec<_> = (1..=2)
        .map(|k| dir.path().join(format!("part{k}.json")))
        .collect();
    for (k, p) in parts.iter().enumerate() {
        run_ok(
            fiftymove()
                .args([
                    "--quiet",
                    "scan",
                    "KRvK",
                    "--shard",
                    &format!("{}/2", k + 1),
                    "--out",
                ])
                .arg(p),
        );
    }
    let from_shards = dir.path().join("a");
    run_ok(
        fiftymove()
            .args(["--quiet", "report", "--out"])
            .arg(&from_shards)
            .arg("--from")
            .arg(&parts[0])
            .arg("--from")
            .arg(&parts[1]),
    );
    let scanned = dir.path().join("b");
    run_ok(
        fiftymove()
            .args(["--quiet", "report", "--out"])
            .arg(&scanned)
            .arg("KRvK"),
    );
    let strip = |p: &Path| {
        std::fs::read_to_string(p.join("report.md"))
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with("Generated by"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&from_shards), strip(&scanned));
    assert_self_contained(&std::fs::read_to_string(scanned.join("report.html")).unwrap());
}

#[test]
fn report_input_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = fiftymove()
        .args(["report", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = fiftymove()
        .args(["report", "--out"])
        .arg(dir.path())
        .args(["--from", "/nonexistent/scan.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error:"));
    let out = fiftymove()
        .args(["report", "--out"])
        .arg(dir.path())
        .arg("KRBNvKQN")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "a report needs its tables");
}
