//! The solver's longest mates (`solve --metric dtm`) against published
//! depth-to-mate maxima. Each figure is the longest mate with the winning
//! side (White, written first) to move, in moves; a mate in N with the
//! winner to move is 2N - 1 plies, which is what the solver's histograms
//! hold.
//!
//! Sources, cited per row:
//! - [Kryukov]: "guido", Kirill Kryukov's chess discussion board,
//!   kirill-kryukov.com/chess/discussion-board/viewtopic.php?t=920
//!   ("kqk (wtm) win in 10 moves - 1 only position : Ka1 Qb2 kf5",
//!   "krk (wtm) win in 16 moves", "kpk (wtm) win in 28 moves").
//! - [Scid]: the tablebase summary of Scid, `set tbs(...)` in tcl/tb.tcl of
//!   github.com/benini/scid (commit 31d9b866), whose second field is "the
//!   longest white-to-move mate", e.g. `set tbs(kqkr) { 398 35 ...`.
//! - [Wikipedia]: "Bishop and knight checkmate": "With the stronger side
//!   to move, checkmate can be forced in at most thirty-three moves".
//! - [Conrady]: CCC post, stmintz.com/ccc/index.php?id=113253: "The longest
//!   pawnless ending is KBN-KN ... with 213 plies" (a mate in 107).
//! - [Grantham]: grantham-chess-world.blogspot.com/2013/02 (mating by two
//!   knights): KNN v KP "can require up to 115 moves".
//! - [Macechess]: macechess.blogspot.com/2010/10 (KQKR): "the table base
//!   shows that it requires at least 35 moves".

mod common;

use common::{fiftymove, stdout_ok};
use serde_json::Value;

/// (material, longest mate in moves with White to move, source).
const THREE_AND_FOUR: [(&str, u32, &str); 12] = [
    ("KQvK", 10, "Kryukov, Scid"),
    ("KRvK", 16, "Kryukov"),
    ("KPvK", 28, "Kryukov"),
    ("KBBvK", 19, "Scid"),
    ("KBNvK", 33, "Scid, Wikipedia"),
    ("KQvKR", 35, "Scid, Macechess"),
    ("KQvKB", 17, "Scid"),
    ("KQvKN", 21, "Scid"),
    ("KQvKP", 28, "Scid"),
    ("KRvKB", 29, "Scid"),
    ("KRvKN", 40, "Scid"),
    ("KRvKP", 26, "Scid"),
];

/// 5-piece figures, solved on demand (minutes to an hour each with their
/// closures).
const FIVE: [(&str, u32, &str); 9] = [
    ("KRBvKR", 65, "Scid"),
    ("KNNvKP", 115, "Scid, Grantham"),
    ("KBNvKN", 107, "Scid, Conrady"),
    ("KBBvKN", 78, "Scid"),
    ("KRNvKR", 37, "Scid"),
    ("KQQvKQ", 30, "Scid"),
    ("KQRvKQ", 67, "Scid"),
    ("KRPvKR", 74, "Scid"),
    ("KQPvKQ", 124, "Scid"),
];

fn longest_white_mates(materials: &[&str]) -> Vec<(String, u32)> {
    let cache = tempfile::tempdir().unwrap();
    let out = stdout_ok(
        fiftymove()
            .args(["--quiet", "--json", "--cache-dir"])
            .arg(cache.path())
            .args(["solve", "--metric", "dtm"])
            .args(materials),
    );
    out.lines()
        .map(|l| {
            let doc: Value = serde_json::from_str(l).unwrap();
            assert_eq!(doc["metric"], "dtm");
            let wins = doc["white"]["dtm"]["win"].as_object().unwrap();
            let plies = wins
                .keys()
                .map(|k| k.parse::<u32>().unwrap())
                .max()
                .expect("White has wins");
            // The longest entry shows the same depth.
            assert_eq!(doc["white"]["longest"]["win"]["dtz"], plies);
            // With the winner to move every mate takes an odd number of plies.
            assert_eq!(plies % 2, 1, "{l}");
            (
                doc["material"].as_str().unwrap().to_owned(),
                plies.div_ceil(2),
            )
        })
        .collect()
}

fn check(table: &[(&str, u32, &str)]) {
    let materials: Vec<&str> = table.iter().map(|(m, _, _)| *m).collect();
    let got = longest_white_mates(&materials);
    assert_eq!(got.len(), table.len());
    let wrong: Vec<String> = table
        .iter()
        .zip(&got)
        .filter(|((_, moves, _), (_, found))| moves != found)
        .map(|((m, moves, src), (_, found))| {
            format!("{m}: published {moves} ({src}), solved {found}")
        })
        .collect();
    assert!(wrong.is_empty(), "{wrong:?}");
}

#[test]
fn longest_mates_of_3_4_piece_endgames_equal_published_figures() {
    check(&THREE_AND_FOUR);
}

#[test]
#[ignore = "solves nine 5-piece materials with their closures in DTM: an hour or more"]
fn longest_mates_of_5_piece_endgames_equal_published_figures() {
    check(&FIVE);
}
