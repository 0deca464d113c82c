//! `scan` with the probe engine against the Syzygy generator's published
//! statistics, and the determinism guarantees: threads, shards, merge.

mod common;

use common::{fiftymove, reference, run_ok, stdout_ok};
use fiftymove::scan::{reference as genstats, ScanStats};

fn scan_json(args: &[&str]) -> String {
    stdout_ok(
        fiftymove()
            .args(["--quiet", "--json", "scan", "--engine", "probe"])
            .args(args),
    )
}

fn check_against_generator(material: &str) {
    let stats: ScanStats = serde_json::from_str(scan_json(&[material]).trim()).unwrap();
    let all = genstats::parse(&reference("generator-stats-3-4-piece.txt")).unwrap();
    let theirs = all
        .iter()
        .find(|g| g.material == material)
        .unwrap_or_else(|| panic!("{material} missing from the reference"));
    let diffs = genstats::compare(&stats, theirs);
    assert!(diffs.is_empty(), "{material}:\n{}", diffs.join("\n"));
    // Per-class totals add up to the number of positions.
    for side in [&stats.white, &stats.black] {
        assert_eq!(side.wdl.total(), side.positions);
        assert_eq!(
            side.dtz.win.total(),
            side.wdl.win + side.wdl.cursed_win,
            "{material}"
        );
        assert_eq!(side.dtz.loss.total(), side.wdl.loss + side.wdl.blessed_loss);
    }
}

// A representative subset for CI; scripts/check-reference.sh runs them all.
#[test]
fn kqvk_matches_generator() {
    check_against_generator("KQvK");
}

#[test]
fn kbvk_all_draws_matches_generator() {
    check_against_generator("KBvK");
}

#[test]
fn kpvk_pawn_and_promotions_match_generator() {
    check_against_generator("KPvK");
}

#[test]
fn knnvk_like_pieces_match_generator() {
    check_against_generator("KNNvK");
}

#[test]
fn kpvkp_pawns_on_both_sides_and_captures_match_generator() {
    check_against_generator("KPvKP");
}

/// Every 3- and 4-piece table; minutes with this engine, so not in the
/// default run: `scripts/check-reference.sh` runs it.
#[test]
#[ignore = "slow: every 3- and 4-piece table; run scripts/check-reference.sh"]
fn all_3_4_piece_tables_match_generator() {
    let all = genstats::parse(&reference("generator-stats-3-4-piece.txt")).unwrap();
    assert_eq!(all.len(), 35);
    for table in &all {
        check_against_generator(&table.material);
    }
}

#[test]
fn thread_count_does_not_change_output() {
    let one = stdout_ok(fiftymove().args([
        "--threads",
        "1",
        "--json",
        "-q",
        "scan",
        "--engine",
        "probe",
        "KNNvK",
    ]));
    let two = stdout_ok(fiftymove().args([
        "--threads",
        "2",
        "--json",
        "-q",
        "scan",
        "--engine",
        "probe",
        "KNNvK",
    ]));
    assert_eq!(one, two);
}

#[test]
fn shards_merge_to_the_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut parts = Vec::new();
    for k in 1..=3 {
        let path = dir.path().join(format!("part{k}.json"));
        run_ok(
            fiftymove()
                .args(["-q", "scan", "--engine", "probe", "KRvK", "KPvK", "--shard"])
                .arg(format!("{k}/3"))
                .arg("--out")
                .arg(&path),
        );
        parts.push(path);
    }
    let merged = stdout_ok(fiftymove().args(["--json", "merge"]).args(&parts));
    let whole = scan_json(&["KRvK", "KPvK"]);
    assert_eq!(merged, whole);
    // A missing shard is an error, not a partial sum.
    let out = fiftymove()
        .args(["--json", "merge"])
        .args(&parts[..2])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing shard(s) 3/3"));
}

#[test]
fn raw_counts_match_a_brute_force_count() {
    // Second computation path: try every placement of KRvK on the board and
    // ask shakmaty whether it is a legal position for each side to move.
    use shakmaty::{Board, CastlingMode, Chess, Color, FromSetup, Piece, Role, Setup, Square};
    let mut legal = [0u64; 2];
    for wk in Square::ALL {
        for wr in Square::ALL {
            for bk in Square::ALL {
                if wk == wr || wk == bk || wr == bk {
                    continue;
                }
                let mut board = Board::empty();
                board.set_piece_at(
                    wk,
                    Piece {
                        color: Color::White,
                        role: Role::King,
                    },
                );
                board.set_piece_at(
                    wr,
                    Piece {
                        color: Color::White,
                        role: Role::Rook,
                    },
                );
                board.set_piece_at(
                    bk,
                    Piece {
                        color: Color::Black,
                        role: Role::King,
                    },
                );
                for (i, turn) in [Color::White, Color::Black].into_iter().enumerate() {
                    let setup = Setup {
                        board: board.clone(),
                        turn,
                        ..Setup::empty()
                    };
                    if Chess::from_setup(setup, CastlingMode::Standard).is_ok() {
                        legal[i] += 1;
                    }
                }
            }
        }
    }
    let stats: ScanStats = serde_json::from_str(scan_json(&["--raw", "KRvK"]).trim()).unwrap();
    assert_eq!(stats.white.raw.unwrap().positions, legal[0]);
    assert_eq!(stats.black.raw.unwrap().positions, legal[1]);
    assert_eq!(stats.white.raw.unwrap().wdl.total(), legal[0]);
}
