//! The best-play walker: the winner minimises exact DTZ (or the solver's
//! depth), the loser maximises it, through captures and promotions into smaller tables until mate. It
//! records every ply, the phases between zeroing moves, and the points where
//! the 50- and 75-move rules would intervene.

use serde::{Deserialize, Serialize};
use shakmaty::{san::SanPlus, uci::UciMove, CastlingMode, Chess, Color, Position};

use shakmaty::Move;

use crate::{
    chess::material::Material,
    chess::position::fen_of,
    chess::rule::{Metric, Rule},
    error::{Error, Result},
};

/// What the walker needs to know about positions: a signed depth from the
/// side to move (positive when it wins, 0 for a draw), and the move that
/// best play makes. The probe engine answers with exact DTZ50''; the solver
/// with its rule's DTZ or with DTM.
pub trait LineOracle {
    /// The signed depth of `pos`.
    ///
    /// # Errors
    ///
    /// Whatever reading the values can fail with.
    fn depth(&self, pos: &Chess) -> Result<i32>;

    /// The best move of a decisive position and the position's depth, or
    /// `None` for a draw.
    ///
    /// # Errors
    ///
    /// As [`LineOracle::depth`].
    fn best_move(&self, pos: &Chess) -> Result<Option<(Move, i32)>>;
}

/// Clock value at which a draw can be claimed (FIDE 9.3).
pub const CLAIM_CLOCK: u32 = 100;
/// Clock value at which the game is drawn automatically (FIDE 9.6.2).
pub const AUTOMATIC_CLOCK: u32 = 150;
/// Safety bound on the length of a line; no Syzygy line comes close.
const MAX_PLIES: usize = 4000;

/// One ply of a line.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LinePly {
    /// 1-based ply number within the line.
    pub ply: u32,
    /// The move in SAN.
    pub san: String,
    /// The move in UCI.
    pub uci: String,
    /// The position before the move.
    pub fen_before: String,
    /// Exact DTZ of that position, signed from the side to move.
    pub dtz_before: i32,
    /// Halfmove clock before the move.
    pub clock_before: u32,
    /// Whether the move is a capture or pawn move.
    pub zeroing: bool,
    /// Material before the move, White first.
    pub material: String,
}

/// A stretch of play that ends with a zeroing move (or with mate).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Phase {
    /// Ply number of the phase's first move.
    pub start_ply: u32,
    /// Number of plies in the phase.
    pub plies: u32,
    /// Material during the phase.
    pub material: String,
}

/// How a line ends.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LineEnd {
    /// The loser is mated.
    Checkmate,
    /// The start position is drawn: there is no forced line.
    Draw,
}

/// A best-play line.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Line {
    /// The starting FEN.
    pub start_fen: String,
    /// Every ply played.
    pub plies: Vec<LinePly>,
    /// The phases between zeroing moves.
    pub phases: Vec<Phase>,
    /// First ply after which the clock stands at 100, if any.
    pub fifty_move_claim_ply: Option<u32>,
    /// First ply after which the clock stands at 150, if any.
    pub seventy_five_move_ply: Option<u32>,
    /// How the line ends.
    pub end: LineEnd,
    /// The result if no move-count rule applied.
    pub result_without_rule: String,
    /// The result under the 50-move rule (a claim at 100 is assumed), or
    /// under `rule` when it is set.
    pub result_with_rule: String,
    /// The rule of a solver's line, when it is not the probe engine's
    /// 50-move rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<Rule>,
    /// First ply after which the clock stands at `rule`'s limit, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_ply: Option<u32>,
    /// The metric of `dtz_before`, for a solver's line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric: Option<Metric>,
}

fn result_for(winner: Option<Color>) -> String {
    match winner {
        Some(Color::White) => "1-0",
        Some(Color::Black) => "0-1",
        None => "1/2-1/2",
    }
    .to_owned()
}

fn material_of(pos: &Chess) -> String {
    Material::from_board(pos.board())
        .map(|m| m.to_string())
        .unwrap_or_default()
}

/// Plays the best line from `start` by `oracle`'s values, with `rule`'s
/// point marked (`rule` and `rule_ply` of the line) and its result under
/// `rule`; `metric` names what the depths are.
///
/// # Errors
///
/// As [`crate::probe::best_line`].
pub fn best_line_with(
    oracle: &dyn LineOracle,
    start: &Chess,
    rule: Rule,
    metric: Metric,
) -> Result<Line> {
    let mut line = walk(oracle, start, rule)?;
    line.rule = Some(rule);
    line.metric = Some(metric);
    Ok(line)
}

/// Plays the best line from `start` by `oracle`'s values, `rule`'s point
/// marked: the walk that the probe engine's and the solver's lines share.
///
/// # Errors
///
/// The oracle's errors; [`Error::Line`] if the line does not end.
pub(crate) fn walk(oracle: &dyn LineOracle, start: &Chess, rule: Rule) -> Result<Line> {
    let start_fen = fen_of(start);
    let mut pos = start.clone();
    let mut clock = start.halfmoves();
    let mut plies = Vec::new();
    let mut phases: Vec<Phase> = Vec::new();
    let mut claim = None;
    let mut automatic = None;
    // A line played with no rule still says what the 50-move rule would
    // make of it: its "with rule" result is the 50-move one.
    let limit = Some(rule.limit().map_or(CLAIM_CLOCK, u32::from));
    let mut rule_ply = None;

    let first_dtz = oracle.depth(start)?;
    let winner = if start.is_checkmate() {
        Some(!start.turn())
    } else if first_dtz == 0 {
        None
    } else if first_dtz > 0 {
        Some(start.turn())
    } else {
        Some(!start.turn())
    };

    if winner.is_some() {
        phases.push(Phase {
            start_ply: 1,
            plies: 0,
            material: material_of(&pos),
        });
    }
    while winner.is_some() && !pos.is_checkmate() {
        if plies.len() >= MAX_PLIES {
            return Err(Error::Line {
                start: start_fen,
                detail: format!("did not end within {MAX_PLIES} plies"),
            });
        }
        let Some((m, dtz)) = oracle.best_move(&pos)? else {
            return Err(Error::Line {
                start: start_fen,
                detail: format!("reached a drawn position {}", fen_of(&pos)),
            });
        };
        let ply = plies.len() as u32 + 1;
        let material = material_of(&pos);
        plies.push(LinePly {
            ply,
            san: SanPlus::from_move(pos.clone(), m).to_string(),
            uci: UciMove::from_move(m, CastlingMode::Standard).to_string(),
            fen_before: fen_of(&pos),
            dtz_before: dtz,
            clock_before: clock,
            zeroing: m.is_zeroing(),
            material,
        });
        pos.play_unchecked(m);
        let phase = phases.last_mut().expect("a phase was opened above");
        phase.plies += 1;
        if m.is_zeroing() {
            clock = 0;
            // The next ply opens a new phase.
            phases.push(Phase {
                start_ply: ply + 1,
                plies: 0,
                material: material_of(&pos),
            });
        } else {
            clock += 1;
        }
        if clock >= CLAIM_CLOCK && claim.is_none() {
            claim = Some(ply);
        }
        if clock >= AUTOMATIC_CLOCK && automatic.is_none() {
            automatic = Some(ply);
        }
        if limit.is_some_and(|l| clock >= l) && rule_ply.is_none() {
            rule_ply = Some(ply);
        }
    }
    phases.retain(|p| p.plies > 0);

    let last_ply = plies.len() as u32;
    // A claim on the very ply that mates comes too late: mate ends the game.
    let with_rule = match rule_ply {
        Some(c) if c < last_ply => None,
        _ => winner,
    };
    let start_claimable = limit.is_some_and(|l| start.halfmoves() >= l) && !start.is_checkmate();
    Ok(Line {
        start_fen,
        plies,
        phases,
        fifty_move_claim_ply: claim,
        seventy_five_move_ply: automatic,
        end: if winner.is_some() {
            LineEnd::Checkmate
        } else {
            LineEnd::Draw
        },
        result_without_rule: result_for(winner),
        result_with_rule: result_for(if start_claimable { None } else { with_rule }),
        rule: None,
        rule_ply: rule.limit().and(rule_ply),
        metric: None,
    })
}

/// Renders a line as PGN: SetUp and FEN headers, a `{DTZ d, clock c}`
/// comment on each ply, and a comment where the 50-move claim becomes
/// available.
pub fn to_pgn(line: &Line, start: &Chess) -> String {
    let mut out = String::new();
    let headers = [
        ("Event", "fiftymove best-play line".to_owned()),
        ("Site", "?".to_owned()),
        ("Date", "????.??.??".to_owned()),
        ("Round", "-".to_owned()),
        ("White", "?".to_owned()),
        ("Black", "?".to_owned()),
        ("Result", line.result_without_rule.clone()),
        ("SetUp", "1".to_owned()),
        ("FEN", line.start_fen.clone()),
        ("Annotator", "fiftymove".to_owned()),
    ];
    for (k, v) in headers {
        out.push_str(&format!("[{k} \"{v}\"]\n"));
    }
    out.push('\n');
    let mut movetext = Vec::new();
    let mut fullmove = start.fullmoves().get();
    let mut turn = start.turn();
    for (i, p) in line.plies.iter().enumerate() {
        if turn == Color::White {
            movetext.push(format!("{fullmove}."));
        } else if i == 0 {
            movetext.push(format!("{fullmove}..."));
        }
        movetext.push(p.san.clone());
        movetext.push(format!(
            "{{DTZ {}, clock {}}}",
            p.dtz_before, p.clock_before
        ));
        if line.fifty_move_claim_ply == Some(p.ply) {
            movetext.push(
                "{The clock reaches 100: a draw can be claimed under the 50-move rule}".into(),
            );
        }
        if line.seventy_five_move_ply == Some(p.ply) {
            movetext.push("{The clock reaches 150: drawn under the 75-move rule}".into());
        }
        if turn == Color::Black {
            fullmove += 1;
        }
        turn = !turn;
    }
    if line.plies.is_empty() {
        movetext.push("{Drawn: no forced line}".into());
    }
    movetext.push(line.result_without_rule.clone());
    // Wrap at 80 columns, as the PGN standard recommends.
    let mut col = 0;
    for token in movetext {
        if col > 0 && col + 1 + token.len() > 79 {
            out.push('\n');
            col = 0;
        } else if col > 0 {
            out.push(' ');
            col += 1;
        }
        col += token.len();
        out.push_str(&token);
    }
    out.push_str("\n\n");
    out
}
