//! `probe` and `line` through the real binary. Expected DTZ values come from
//! the generator's published statistics (its "longest" positions), never
//! from fiftymove's own output.

mod common;

use std::ops::ControlFlow;

use common::{fiftymove, stdout_ok};
use serde_json::Value;
use shakmaty::{fen::Fen, san::SanPlus, CastlingMode, Chess, Color, Position};

/// The generator's longest positions, with their DTZ in plies for the side
/// to move (negative: the side to move loses).
const GENERATOR_LONGEST: [(&str, i32); 5] = [
    // KBBvKN: longest cursed win for White, 132 plies, Black to move.
    ("8/8/8/1B6/8/8/8/1KBk2n1 b - - 0 1", -132),
    // KQPvKQ: longest cursed win for White, 141 plies, White to move.
    ("8/q7/P6k/Q7/8/8/8/6K1 w - - 0 1", 141),
    // KQPvKQ: longest win for White, 100 plies, Black to move.
    ("6k1/P7/8/Q7/8/8/2q5/K7 b - - 0 1", -100),
    // KBBvKN: longest win for White, 100 plies, Black to move.
    ("B7/8/8/8/8/8/8/nKBk4 b - - 0 1", -100),
    // KQvKR: longest win for White, 62 plies, Black to move.
    ("8/8/2k5/1r6/8/8/8/2KQ4 b - - 0 1", -62),
];

fn probe_json(fen: &str) -> Value {
    serde_json::from_str(&stdout_ok(fiftymove().args(["--json", "probe", fen]))).unwrap()
}

fn line_json(fen: &str) -> Value {
    serde_json::from_str(&stdout_ok(
        fiftymove().args(["line", "--format", "json", fen]),
    ))
    .unwrap()
}

fn with_clock(fen: &str, clock: u32) -> String {
    let fields: Vec<&str> = fen.split_whitespace().collect();
    format!(
        "{} {} {} {} {clock} 1",
        fields[0], fields[1], fields[2], fields[3]
    )
}

#[test]
fn probe_gives_the_generators_dtz() {
    for (fen, dtz) in GENERATOR_LONGEST {
        let v = probe_json(fen);
        assert_eq!(v["dtz"], dtz, "{fen}");
        let expected_wdl = match dtz {
            d if d > 100 => "cursed_win",
            d if d < -100 => "blessed_loss",
            d if d > 0 => "win",
            _ => "loss",
        };
        assert_eq!(v["wdl"], expected_wdl, "{fen}");
        // Every legal move is listed, from the opponent's point of view.
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        assert_eq!(
            v["moves"].as_array().unwrap().len(),
            pos.legal_moves().len()
        );
        // The best move keeps the result and takes one ply off.
        let best = &v["moves"][0];
        if !best["zeroing"].as_bool().unwrap() {
            assert_eq!(
                best["dtz"].as_i64().unwrap(),
                -(dtz.signum() as i64) * (dtz.abs() as i64 - 1)
            );
        }
    }
}

#[test]
fn clock_edges_on_both_sides() {
    // Black to move loses in exactly 100 plies (generator): with the clock at
    // 0 the sum is 100 and the loss stands; at 1 it is 101 and it is a draw.
    let losing = "6k1/P7/8/Q7/8/8/2q5/K7 b - - 0 1";
    assert_eq!(
        probe_json(&with_clock(losing, 0))["outcome_with_clock"],
        "loss"
    );
    assert_eq!(
        probe_json(&with_clock(losing, 1))["outcome_with_clock"],
        "draw"
    );
    // After Black's best move White wins in 99: clock 0 (sum 99), 1 (100)
    // and 2 (101).
    let line = line_json(losing);
    let winning = line["plies"][1]["fen_before"].as_str().unwrap().to_owned();
    assert_eq!(line["plies"][1]["dtz_before"], 99);
    assert_eq!(
        probe_json(&with_clock(&winning, 0))["outcome_with_clock"],
        "win"
    );
    assert_eq!(
        probe_json(&with_clock(&winning, 1))["outcome_with_clock"],
        "win"
    );
    assert_eq!(
        probe_json(&with_clock(&winning, 2))["outcome_with_clock"],
        "draw"
    );
    // The loser's side at 99, 100, 101: KQvKR, Black loses in 62.
    let kqkr = "8/8/2k5/1r6/8/8/8/2KQ4 b - - 0 1";
    assert_eq!(
        probe_json(&with_clock(kqkr, 37))["outcome_with_clock"],
        "loss"
    );
    assert_eq!(
        probe_json(&with_clock(kqkr, 38))["outcome_with_clock"],
        "loss"
    );
    assert_eq!(
        probe_json(&with_clock(kqkr, 39))["outcome_with_clock"],
        "draw"
    );
    // Cursed wins are draws whatever the clock.
    let cursed = "8/q7/P6k/Q7/8/8/8/6K1 w - - 0 1";
    assert_eq!(probe_json(cursed)["outcome_with_clock"], "draw");
}

/// Replays a line's moves with shakmaty and checks the invariants of
/// optimal play.
fn check_line(fen: &str, expected_dtz: i32) {
    let v = line_json(fen);
    let plies = v["plies"].as_array().unwrap();
    assert_eq!(plies[0]["dtz_before"], expected_dtz, "{fen}");
    let mut pos: Chess = fen
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let loser = if expected_dtz > 0 {
        !pos.turn()
    } else {
        pos.turn()
    };
    let mut clock = pos.halfmoves();
    let mut first_claim = None;
    for (i, p) in plies.iter().enumerate() {
        assert_eq!(p["clock_before"], clock, "{fen} ply {}", i + 1);
        let san: SanPlus = p["san"].as_str().unwrap().parse().unwrap();
        let m = san.san.to_move(&pos).unwrap();
        assert_eq!(p["zeroing"], m.is_zeroing());
        let dtz = p["dtz_before"].as_i64().unwrap();
        if let Some(next) = plies.get(i + 1) {
            let next_dtz = next["dtz_before"].as_i64().unwrap();
            // Sides alternate: the sign flips every ply.
            assert_eq!(dtz.signum(), -next_dtz.signum(), "{fen} ply {}", i + 1);
            if !m.is_zeroing() {
                // Within a phase |DTZ| falls by exactly one a ply.
                assert_eq!(next_dtz.abs(), dtz.abs() - 1, "{fen} ply {}", i + 1);
            } else {
                // A phase ends on the ply its DTZ counted down to.
                assert!(dtz.abs() == 1 || dtz.abs() == 101, "{fen} ply {}", i + 1);
            }
        }
        pos.play_unchecked(m);
        clock = if m.is_zeroing() { 0 } else { clock + 1 };
        if clock == 100 && first_claim.is_none() {
            first_claim = Some(i as u64 + 1);
        }
    }
    assert!(pos.is_checkmate(), "{fen}: the line ends in mate");
    assert_eq!(pos.turn(), loser, "{fen}: the right side is mated");
    assert_eq!(v["end"], "checkmate");
    assert_eq!(v["fifty_move_claim_ply"].as_u64(), first_claim, "{fen}");
    // Phases tile the line, and each but the last ends with a zeroing move.
    let phases = v["phases"].as_array().unwrap();
    let total: u64 = phases.iter().map(|p| p["plies"].as_u64().unwrap()).sum();
    assert_eq!(total as usize, plies.len());
    for ph in &phases[..phases.len() - 1] {
        let last = ph["start_ply"].as_u64().unwrap() + ph["plies"].as_u64().unwrap() - 1;
        assert_eq!(plies[last as usize - 1]["zeroing"], true, "{fen}");
    }
    // The first phase is as long as the starting DTZ says (no +100 offset in
    // these positions: the generator's longest cursed values are real phase
    // lengths, which is what the claims rely on).
    assert_eq!(
        phases[0]["plies"].as_i64().unwrap(),
        i64::from(expected_dtz.abs())
    );
    let winner = if loser == Color::White { "0-1" } else { "1-0" };
    assert_eq!(v["result_without_rule"], winner);
    let with_rule = if expected_dtz.abs() > 100 {
        "1/2-1/2"
    } else {
        winner
    };
    assert_eq!(v["result_with_rule"], with_rule, "{fen}");
}

#[test]
fn long_lines_are_self_consistent() {
    for (fen, dtz) in GENERATOR_LONGEST {
        check_line(fen, dtz);
    }
}

#[test]
fn drawn_start_reports_the_draw() {
    // KNvK is a dead draw.
    let v = line_json("8/8/8/4k3/8/8/8/KN6 w - - 0 1");
    assert_eq!(v["end"], "draw");
    assert_eq!(v["plies"].as_array().unwrap().len(), 0);
    assert_eq!(v["result_with_rule"], "1/2-1/2");
}

/// Reads a PGN with pgn-reader and replays it from its FEN header.
struct Replay {
    fen: Option<String>,
    pos: Option<Chess>,
    moves: usize,
    comments: Vec<String>,
    error: Option<String>,
}

impl pgn_reader::Visitor for Replay {
    type Tags = ();
    type Movetext = ();
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<(), ()> {
        ControlFlow::Continue(())
    }

    fn tag(&mut self, _: &mut (), name: &[u8], value: pgn_reader::RawTag<'_>) -> ControlFlow<()> {
        if name == b"FEN" {
            self.fen = Some(value.decode_utf8_lossy().into_owned());
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, _: ()) -> ControlFlow<(), ()> {
        let fen: Fen = self.fen.as_deref().unwrap_or_default().parse().unwrap();
        self.pos = Some(fen.into_position(CastlingMode::Standard).unwrap());
        ControlFlow::Continue(())
    }

    fn san(&mut self, _: &mut (), san: pgn_reader::SanPlus) -> ControlFlow<()> {
        let pos = self.pos.as_mut().unwrap();
        match san.san.to_move(pos) {
            Ok(m) => {
                pos.play_unchecked(m);
                self.moves += 1;
                ControlFlow::Continue(())
            }
            Err(e) => {
                self.error = Some(format!("{san}: {e}"));
                ControlFlow::Break(())
            }
        }
    }

    fn comment(&mut self, _: &mut (), c: pgn_reader::RawComment<'_>) -> ControlFlow<()> {
        self.comments
            .push(String::from_utf8_lossy(c.as_bytes()).into_owned());
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, _: ()) {}
}

#[test]
fn pgn_imports_into_a_real_pgn_parser() {
    let fen = "8/8/8/1B6/8/8/8/1KBk2n1 b - - 0 1";
    let pgn = stdout_ok(fiftymove().args(["line", "--format", "pgn", fen]));
    assert!(pgn.contains("[SetUp \"1\"]") && pgn.contains(&format!("[FEN \"{fen}\"]")));
    let mut replay = Replay {
        fen: None,
        pos: None,
        moves: 0,
        comments: Vec::new(),
        error: None,
    };
    pgn_reader::Reader::new(std::io::Cursor::new(pgn.as_bytes()))
        .read_game(&mut replay)
        .unwrap();
    assert_eq!(replay.error, None);
    assert!(replay.pos.as_ref().unwrap().is_checkmate());
    let json = line_json(fen);
    assert_eq!(replay.moves, json["plies"].as_array().unwrap().len());
    let dtz_comments = replay.comments.iter().filter(|c| c.contains("DTZ")).count();
    assert_eq!(dtz_comments, replay.moves);
    assert!(replay.comments.iter().any(|c| c.contains("50-move rule")));
}
