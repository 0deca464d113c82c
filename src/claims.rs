//! The historical claim catalog (`data/claims.toml`) and its verifier.
//!
//! Each [`Claim`] says what someone claimed about an endgame, in which metric,
//! and carries a machine-checkable [`Check`]. The [`Verifier`] computes a
//! [`Verdict`] from the tables, never from the catalog: the catalog holds
//! only what was claimed.
//!
//! # Semantics of the checks
//!
//! Distances come from Syzygy's DTZ50'' tables. Without pawns DTZ is DTC
//! (moves to conversion). A DTZ value `d` above 100 is a cursed win (or a
//! blessed loss): the phase up to the next zeroing move lasts `d` plies, or
//! `d - 100` plies when a *later* phase carries the curse. The verifier never
//! guesses which: it plays the best-play line of the longest position
//! ([`crate::line::best_line`]) and reads its first phase. When that still
//! leaves the longest phase open, the evidence says so and gives bounds.
//!
//! * *Moves* (`max_moves`, `at_most_moves`): the winner to move needs
//!   `ceil(p/2)` of its own moves for a phase of `p` plies, the loser to move
//!   `floor(p/2)` (history.md's convention).
//! * *Rule allowances* (`allowance`, `exceeds_moves`): an `N`-move rule cuts a
//!   win short when a phase lasts more than `2N` plies, whoever is to move.
//!   For `N = 50` the tables decide this exactly: the cut wins are the cursed
//!   wins and blessed losses. For larger `N` the first phase under DTZ50''
//!   optimal play is used; it is the shortest phase except where a
//!   conversion leads into a cursed sub-endgame, which the evidence notes.
//!
//! Statistics reach the verifier through one seam, [`StatsSource`], so the
//! engine that computes them can be swapped (the probe engine today, the
//! sweep engine later).

use std::{
    collections::{BTreeMap, HashMap},
    fmt,
    sync::Arc,
};

use serde::{Deserialize, Serialize};
use shakmaty::{san::SanPlus, Bitboard, Chess, Color, Position, Role, Square};

use crate::{
    checksums,
    enumerate::Enumerator,
    error::{Error, Result},
    line::{best_line, Line, Phase},
    material::Material,
    position::{fen_of, parse_fen},
    probe::{Prober, Wdl},
    probe_scan::{PositionFilter, ScanPlan},
    scan::{Histogram, LongestEntry, ScanStats, SideStats},
    tables::Inventory,
};

/// The catalog shipped with fiftymove (`data/claims.toml`).
pub const CATALOG_TOML: &str = include_str!("../data/claims.toml");

/// Plies after which the 50-move rule allows a claim.
const FIFTY_MOVE_PLIES: u32 = 100;

/// The metric a claim is stated in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    /// Distance to zeroing (capture or pawn move): what move-count rules
    /// count, and what Syzygy stores.
    Dtz,
    /// Distance to conversion (capture or promotion); DTZ without pawns.
    Dtc,
    /// Distance to mate; not in Syzygy.
    Dtm,
    /// A rule of play, not a statement about positions.
    Rule,
}

impl Metric {
    /// The lowercase name used in JSON and text.
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Dtz => "dtz",
            Metric::Dtc => "dtc",
            Metric::Dtm => "dtm",
            Metric::Rule => "rule",
        }
    }
}

/// What "generally" means in a [`Check::Generally`] claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GeneralOutcome {
    /// Most positions are draws.
    Draw,
    /// Most positions are wins for the claim's winner.
    Win,
}

/// The machine-checkable form of a claim (`check = { kind = "...", ... }`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Check {
    /// The longest win needs exactly `moves` of the winner's moves to
    /// convert (a published maximum, such as Thompson's DTC maxima).
    MaxMoves {
        /// The claimed maximum.
        moves: u32,
    },
    /// Every win needs at most `moves` of the winner's moves to convert.
    AtMostMoves {
        /// The claimed bound.
        moves: u32,
    },
    /// Some win needs more than `moves` moves without a zeroing move, so an
    /// `moves`-move rule cuts it short.
    ExceedsMoves {
        /// The rule's length in moves.
        moves: u32,
    },
    /// A rule allowing `moves` moves without a zeroing move cuts no win
    /// short.
    Allowance {
        /// The allowance in moves.
        moves: u32,
    },
    /// The endgame is in general (in more than half of its positions) a
    /// draw, or a win for the claim's winner. Values ignore the 50-move
    /// rule: cursed wins count as wins.
    Generally {
        /// Which outcome is claimed to prevail.
        outcome: GeneralOutcome,
    },
    /// The winner wins every position (in the filter), whoever is to move.
    AllWin,
    /// The position (after `play`) converts in exactly `moves` of the
    /// winner's moves.
    PositionConverts {
        /// The position.
        fen: String,
        /// Moves in SAN to play first.
        #[serde(default)]
        play: Vec<String>,
        /// The claimed distance in moves.
        moves: u32,
    },
    /// The position (after `play`) is a win for the claim's winner (cursed
    /// wins count: the claim ignores the 50-move rule).
    PositionWins {
        /// The position.
        fen: String,
        /// Moves in SAN to play first.
        #[serde(default)]
        play: Vec<String>,
    },
    /// Nothing a table can check (rules of play).
    None,
}

/// A condition on positions, from a rule's wording (`filter = { ... }`).
///
/// Filters must not depend on the board's orientation beyond what the
/// material's symmetries keep: scans visit one position per symmetry class.
/// All filters here are invariant under the a-h mirror, the only symmetry of
/// material with pawns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Filter {
    /// Some pawn stands on this rank counted from its own side (7: one step
    /// from promotion).
    PawnOnRelativeRank(u8),
    /// A pawn is securely blockaded (an enemy knight stands on the square
    /// directly in front of it) on or behind the Troitsky line: a black pawn
    /// on a4, b6, c5, d4, e4, f5, g6 or h4 or further back; a white pawn on
    /// a5, b3, c4, d5, e5, f4, g3 or h5 or further back. Must be `true`.
    KnightBlockadesPawnBehindTroitskyLine(bool),
    /// The 1982 KRP v KBP clause: the rook side's pawn on a2 (or h2), the
    /// other side's pawn directly in front of it on a3 (h3), and the
    /// bishop on squares of that pawn's colour (dark for a3, light for h3);
    /// or the same with colours reversed. Must be `true`.
    KrpKbpA2A3(bool),
    /// A side with two bishops has them on squares of opposite colours (a
    /// bishop pair: same-coloured bishops cannot force mate, and the claims
    /// about KBB endings are about the pair). Must be `true`.
    BishopsOnOppositeColours(bool),
}

/// Relative rank (1-based, from the pawn's own side) of the Troitsky line
/// on each file: a black pawn on a4 is on relative rank 5, on b6 rank 3.
const TROITSKY_LINE: [u32; 8] = [5, 3, 4, 5, 5, 4, 3, 5];

/// The rank of `sq` counted from `color`'s side, 1..=8.
fn relative_rank(sq: Square, color: Color) -> u32 {
    let r = sq.rank().to_u32() + 1;
    match color {
        Color::White => r,
        Color::Black => 9 - r,
    }
}

/// The square directly in front of a pawn of `color` on `sq`.
fn in_front(sq: Square, color: Color) -> Option<Square> {
    sq.offset(match color {
        Color::White => 8,
        Color::Black => -8,
    })
}

impl Filter {
    /// Whether `pos` meets the condition.
    pub fn matches(&self, pos: &Chess) -> bool {
        let board = pos.board();
        match self {
            Filter::PawnOnRelativeRank(rank) => board.pawns().into_iter().any(|sq| {
                board
                    .color_at(sq)
                    .is_some_and(|c| relative_rank(sq, c) == u32::from(*rank))
            }),
            Filter::KnightBlockadesPawnBehindTroitskyLine(on) => {
                *on && board.pawns().into_iter().any(|sq| {
                    let Some(color) = board.color_at(sq) else {
                        return false;
                    };
                    let behind = relative_rank(sq, color) <= TROITSKY_LINE[sq.file().to_usize()];
                    let blockaded = in_front(sq, color).is_some_and(|f| {
                        board.piece_at(f)
                            == Some(shakmaty::Piece {
                                color: !color,
                                role: Role::Knight,
                            })
                    });
                    behind && blockaded
                })
            }
            Filter::KrpKbpA2A3(on) => {
                *on && Color::ALL.into_iter().any(|rook_side| {
                    if (board.by_color(rook_side) & board.rooks()).is_empty() {
                        return false;
                    }
                    let other = !rook_side;
                    (board.by_color(rook_side) & board.pawns())
                        .into_iter()
                        .any(|sq| {
                            let edge = matches!(sq.file().char(), 'a' | 'h');
                            if !edge || relative_rank(sq, rook_side) != 2 {
                                return false;
                            }
                            let Some(block) = in_front(sq, rook_side) else {
                                return false;
                            };
                            let blocked = board.piece_at(block)
                                == Some(shakmaty::Piece {
                                    color: other,
                                    role: Role::Pawn,
                                });
                            let bishop_matches = (board.by_color(other) & board.bishops())
                                .into_iter()
                                .any(|b| b.is_dark() == block.is_dark());
                            blocked && bishop_matches
                        })
                })
            }
            Filter::BishopsOnOppositeColours(on) => {
                *on && Color::ALL.into_iter().all(|side| {
                    let bishops = board.by_color(side) & board.bishops();
                    bishops.count() != 2 || (bishops & Bitboard::DARK_SQUARES).count() == 1
                })
            }
        }
    }

    /// A short description for people.
    pub fn describe(&self) -> String {
        match self {
            Filter::PawnOnRelativeRank(r) => format!("positions with a pawn on its relative rank {r}"),
            Filter::KnightBlockadesPawnBehindTroitskyLine(_) => {
                "positions where a knight blockades the pawn on or behind the Troitsky line".into()
            }
            Filter::KrpKbpA2A3(_) => {
                "positions with the rook side's pawn on a2/h2 blocked by the other pawn, the bishop on that pawn's colour".into()
            }
            Filter::BishopsOnOppositeColours(_) => {
                "positions with the two bishops on squares of opposite colours".into()
            }
        }
    }

    /// A stable key for caches.
    pub fn key(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The filter as a scan plan's [`PositionFilter`].
    pub fn to_position_filter(&self) -> PositionFilter {
        let me = self.clone();
        Arc::new(move |pos: &Chess| me.matches(pos))
    }

    fn validate(&self) -> std::result::Result<(), String> {
        match self {
            Filter::PawnOnRelativeRank(r) if !(2..=7).contains(r) => Err(format!(
                "pawn_on_relative_rank = {r}: pawns stand on ranks 2 to 7"
            )),
            Filter::KnightBlockadesPawnBehindTroitskyLine(false)
            | Filter::KrpKbpA2A3(false)
            | Filter::BishopsOnOppositeColours(false) => {
                Err("a filter flag must be `true` (leave the filter out otherwise)".into())
            }
            _ => Ok(()),
        }
    }
}

/// One historical claim.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// Unique id, e.g. `thompson-1986-krbkr`.
    pub id: String,
    /// Year of the claim, if known.
    #[serde(default)]
    pub year: Option<u32>,
    /// Who made it.
    pub who: String,
    /// Where it is written.
    pub source: String,
    /// The claim in words.
    pub statement: String,
    /// The material in Syzygy naming (White first, the stronger side).
    #[serde(default)]
    pub material: Option<String>,
    /// The pieces of the side the claim is about, e.g. `KQ` in `KBBvKQ`.
    #[serde(default)]
    pub winner: Option<String>,
    /// The metric of the claim.
    pub metric: Metric,
    /// The machine-checkable form.
    pub check: Check,
    /// Restricts the check to positions meeting a rule's condition.
    #[serde(default)]
    pub filter: Option<Filter>,
    /// A remark shown with the verdict.
    #[serde(default)]
    pub note: Option<String>,
}

impl Claim {
    /// The parsed material, if the claim names one.
    ///
    /// # Errors
    ///
    /// [`Error::Material`] for a bad signature.
    pub fn material(&self) -> Result<Option<Material>> {
        self.material.as_deref().map(str::parse).transpose()
    }

    /// The colour, in the material as written, of the claim's winner.
    fn winner_color(&self, material: &Material) -> Option<Color> {
        let w = self.winner.as_deref()?.to_ascii_uppercase();
        Color::ALL
            .into_iter()
            .find(|c| material.side(*c).to_string() == w)
    }

    /// Checks the claim's internal consistency.
    fn validate(&self) -> std::result::Result<(), String> {
        if self.id.is_empty()
            || !self
                .id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err("ids are lowercase letters, digits and '-'".into());
        }
        if let Some(f) = &self.filter {
            f.validate()?;
        }
        let testable = self.check != Check::None;
        if self.metric == Metric::Rule && testable {
            return Err("metric \"rule\" goes with check kind \"none\"".into());
        }
        let Some(text) = &self.material else {
            if testable {
                return Err("a checkable claim needs a material".into());
            }
            return Ok(());
        };
        let m: Material = text.parse().map_err(|e: Error| e.to_string())?;
        if m.table_name() != *text {
            return Err(format!(
                "material '{text}' is not in Syzygy naming; write '{}'",
                m.table_name()
            ));
        }
        if testable && self.winner_color(&m).is_none() {
            return Err(format!(
                "winner must name one side of {text} exactly (e.g. '{}')",
                m.side(Color::White)
            ));
        }
        if let Check::PositionConverts { fen, play, .. } | Check::PositionWins { fen, play } =
            &self.check
        {
            let pos = position_after(fen, play).map_err(|e| e.to_string())?;
            let pm = Material::from_board(pos.board()).map_err(|e| e.to_string())?;
            if pm.table_name() != *text {
                return Err(format!(
                    "the position's material is {}, not {text}",
                    pm.table_name()
                ));
            }
        }
        Ok(())
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogFile {
    #[serde(default)]
    claim: Vec<Claim>,
    #[serde(default)]
    record: Vec<Claim>,
}

/// Parses and validates a catalog: `[[claim]]` entries (and `[[record]]`
/// entries, which use the same schema). `origin` names the file in errors.
///
/// # Errors
///
/// [`Error::Input`] for TOML errors, duplicate ids, and claims that are
/// inconsistent (bad material, winner, filter, or FEN).
pub fn parse_catalog(text: &str, origin: &str) -> Result<Vec<Claim>> {
    let bad = |detail: String| Error::Input {
        path: origin.into(),
        detail,
    };
    let file: CatalogFile = toml::from_str(text).map_err(|e| {
        bad(format!(
            "not a claim catalog: {}",
            e.to_string().lines().collect::<Vec<_>>().join(" ")
        ))
    })?;
    let mut all = file.claim;
    all.extend(file.record);
    let mut seen = std::collections::HashSet::new();
    for c in &all {
        if !seen.insert(c.id.clone()) {
            return Err(bad(format!("claim id '{}' appears twice", c.id)));
        }
        c.validate()
            .map_err(|e| bad(format!("claim '{}': {e}", c.id)))?;
    }
    Ok(all)
}

/// The catalog shipped with fiftymove.
///
/// # Errors
///
/// As for [`parse_catalog`]; the shipped catalog is tested to parse.
pub fn catalog() -> Result<Vec<Claim>> {
    parse_catalog(CATALOG_TOML, "data/claims.toml")
}

/// The claims with the given ids, in the order given (all claims when `ids`
/// is empty).
///
/// # Errors
///
/// [`Error::Usage`] naming an unknown id and the closest known ones.
pub fn select<'a>(claims: &'a [Claim], ids: &[String]) -> Result<Vec<&'a Claim>> {
    if ids.is_empty() {
        return Ok(claims.iter().collect());
    }
    ids.iter()
        .map(|id| {
            claims.iter().find(|c| c.id == *id).ok_or_else(|| {
                let close = suggest_ids(claims, id);
                let hint = if close.is_empty() {
                    "run `fiftymove claims --list` for the ids".to_owned()
                } else {
                    format!("did you mean {}?", close.join(", "))
                };
                Error::Usage(format!("unknown claim id '{id}'; {hint}"))
            })
        })
        .collect()
}

/// Known ids close to `id`: those containing it, else those within a few
/// edits; at most five.
fn suggest_ids(claims: &[Claim], id: &str) -> Vec<String> {
    let needle = id.to_ascii_lowercase();
    let mut hits: Vec<String> = claims
        .iter()
        .filter(|c| !needle.is_empty() && c.id.contains(&needle))
        .map(|c| c.id.clone())
        .collect();
    if hits.is_empty() {
        let mut scored: Vec<(usize, &str)> = claims
            .iter()
            .map(|c| {
                (
                    crate::material::edit_distance(&needle, &c.id),
                    c.id.as_str(),
                )
            })
            .filter(|(d, _)| *d <= 4.max(needle.len() / 3))
            .collect();
        scored.sort();
        hits = scored.into_iter().map(|(_, s)| s.to_owned()).collect();
    }
    hits.truncate(5);
    hits
}

/// Parses `fen` and plays the SAN moves `play`.
fn position_after(fen: &str, play: &[String]) -> Result<Chess> {
    let mut pos = parse_fen(fen)?;
    for san in play {
        let m = san
            .parse::<SanPlus>()
            .ok()
            .and_then(|s| s.san.to_move(&pos).ok())
            .ok_or_else(|| Error::position(fen, format!("'{san}' is not a legal move here")))?;
        pos.play_unchecked(m);
    }
    Ok(pos)
}

/// The verdict on a claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The tables agree.
    Confirmed,
    /// The tables disagree.
    Refuted,
    /// True in part; the evidence gives the counts.
    Partly,
    /// The tables present cannot decide it.
    Unverifiable,
}

impl Verdict {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Confirmed => "confirmed",
            Verdict::Refuted => "refuted",
            Verdict::Partly => "partly",
            Verdict::Unverifiable => "unverifiable",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A best-play line, summarised for evidence.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct LineSummary {
    /// Number of plies to mate.
    pub plies: u32,
    /// The phases between zeroing moves.
    pub phases: Vec<Phase>,
    /// First ply after which the clock stands at 100, if any.
    pub fifty_move_claim_ply: Option<u32>,
    /// First ply after which the clock stands at 150, if any.
    pub seventy_five_move_ply: Option<u32>,
    /// Result without a move-count rule.
    pub result_without_rule: String,
    /// Result under the 50-move rule.
    pub result_with_rule: String,
}

impl LineSummary {
    /// The phases, the 50-move claim point and the mate, in words: "phases
    /// 117 (KRBvKR), 2 (KRBvK); 50-move claim at ply 100; mate at ply 119".
    pub fn describe(&self) -> String {
        let phases: Vec<String> = self
            .phases
            .iter()
            .map(|p| format!("{} ({})", p.plies, p.material))
            .collect();
        let claim = self
            .fifty_move_claim_ply
            .map_or("no 50-move claim".to_owned(), |p| {
                format!("50-move claim at ply {p}")
            });
        format!(
            "phases {}; {claim}; mate at ply {}",
            phases.join(", "),
            self.plies
        )
    }
}

impl From<&Line> for LineSummary {
    fn from(l: &Line) -> LineSummary {
        LineSummary {
            plies: l.plies.len() as u32,
            phases: l.phases.clone(),
            fifty_move_claim_ply: l.fifty_move_claim_ply,
            seventy_five_move_ply: l.seventy_five_move_ply,
            result_without_rule: l.result_without_rule.clone(),
            result_with_rule: l.result_with_rule.clone(),
        }
    }
}

/// A position cited as evidence: the longest of its class, a record
/// position, or an exception.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Witness {
    /// Its FEN.
    pub fen: String,
    /// Which side is to move: `winner` or `loser` (for the claim's winner).
    pub side_to_move: String,
    /// Its WDL for the side to move.
    pub wdl: Wdl,
    /// Its exact DTZ magnitude in plies.
    pub dtz: u32,
    /// The length of its first phase in plies, read from the line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase_plies: Option<u32>,
    /// The winner's moves to the end of that phase.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moves: Option<u32>,
    /// Its best-play line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<LineSummary>,
}

/// The statistics of one side to move, seen from the claim's winner.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct SideEvidence {
    /// `white` or `black`: the side to move.
    pub to_move: String,
    /// `winner` or `loser`: whether that is the claim's winner.
    pub role: String,
    /// Positions counted.
    pub positions: u64,
    /// Wins for the claim's winner that the 50-move rule leaves standing.
    pub wins: u64,
    /// Wins for the claim's winner that the 50-move rule turns into draws.
    pub cursed_wins: u64,
    /// Draws.
    pub draws: u64,
    /// Wins (cursed included) for the other side.
    pub other_side_wins: u64,
    /// The longest win's DTZ in plies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub longest_dtz: Option<u32>,
    /// Bounds on the longest first phase in plies (equal when exact).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub longest_phase_plies: Option<[u32; 2]>,
    /// Bounds on the winner's moves for that phase (equal when exact).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub longest_moves: Option<[u32; 2]>,
    /// Positions whose DTZ exceeds the claim's limit, as bounds (equal when
    /// exact; they differ only where a cursed value may stand for `d - 100`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub over_limit: Option<[u64; 2]>,
    /// The limit in plies that `over_limit` counts against.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit_plies: Option<u32>,
}

/// The evidence behind a verdict.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Evidence {
    /// One sentence: why this verdict.
    pub summary: String,
    /// The winner's pieces and colour, e.g. `KQ (black)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winner: Option<String>,
    /// Which positions were examined.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The number the claim states, in moves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claimed_moves: Option<u32>,
    /// What the tables give for it, as bounds (equal when exact).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed_moves: Option<[u32; 2]>,
    /// Positions examined (both sides to move).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub positions: Option<u64>,
    /// Positions that support the claim.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supporting: Option<u64>,
    /// Positions that contradict it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contradicting: Option<u64>,
    /// Per side to move.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub sides: Vec<SideEvidence>,
    /// The longest position, or the counterexample, with its line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub longest: Option<Witness>,
    /// A position that contradicts the claim, when not the longest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exception: Option<Witness>,
    /// Official sizes in bytes of the missing table files.
    #[serde(skip_serializing_if = "BTreeMap::is_empty", default)]
    pub missing_table_bytes: BTreeMap<String, u64>,
    /// Their total size in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing_total_bytes: Option<u64>,
    /// Remarks: the catalog's note, caveats of the method.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub notes: Vec<String>,
}

/// A claim with its verdict, in the JSON contract's shape.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct ClaimResult {
    /// The claim's id.
    pub id: String,
    /// Its year.
    pub year: Option<u32>,
    /// Who made it.
    pub who: String,
    /// The material in Syzygy naming.
    pub material: Option<String>,
    /// `dtz`, `dtc`, `dtm` or `rule`.
    pub metric: Metric,
    /// The claim in words.
    pub statement: String,
    /// Where it is written.
    pub source: String,
    /// The verdict.
    pub verdict: Verdict,
    /// What backs the verdict.
    pub evidence: Evidence,
    /// Table files that would be needed and are not present.
    pub missing_tables: Vec<String>,
}

/// Computes scan statistics for a plan: the seam between the verifier and
/// the scan engine.
pub trait StatsSource {
    /// The statistics of `plan` (never sharded here).
    ///
    /// # Errors
    ///
    /// Table errors from the engine.
    fn stats(&self, plan: &ScanPlan) -> Result<ScanStats>;
}

impl<F: Fn(&ScanPlan) -> Result<ScanStats>> StatsSource for F {
    fn stats(&self, plan: &ScanPlan) -> Result<ScanStats> {
        self(plan)
    }
}

/// Checks claims against the tables, caching each scan (material and
/// filter) for the run, so several claims on one table scan it once.
pub struct Verifier<'a> {
    inventory: &'a Inventory,
    prober: &'a Prober,
    source: &'a dyn StatsSource,
    scans: HashMap<String, ScanStats>,
    lines: HashMap<String, Line>,
}

fn scan_key(material: &Material, filter: Option<&Filter>) -> String {
    format!("{material}|{}", filter.map(Filter::key).unwrap_or_default())
}

/// The official sizes of `files` (0 where unknown).
pub fn official_sizes(files: &[String]) -> BTreeMap<String, u64> {
    files
        .iter()
        .map(|f| (f.clone(), checksums::official(f).map_or(0, |o| o.bytes)))
        .collect()
}

/// A side of a scan as the claim's winner sees it.
struct View<'s> {
    color: Color,
    winner_to_move: bool,
    side: &'s SideStats,
}

impl View<'_> {
    fn hist(&self) -> &Histogram {
        if self.winner_to_move {
            &self.side.dtz.win
        } else {
            &self.side.dtz.loss
        }
    }
    fn wins(&self) -> u64 {
        if self.winner_to_move {
            self.side.wdl.win
        } else {
            self.side.wdl.loss
        }
    }
    fn cursed(&self) -> u64 {
        if self.winner_to_move {
            self.side.wdl.cursed_win
        } else {
            self.side.wdl.blessed_loss
        }
    }
    fn other_wins(&self) -> u64 {
        if self.winner_to_move {
            self.side.wdl.loss + self.side.wdl.blessed_loss
        } else {
            self.side.wdl.win + self.side.wdl.cursed_win
        }
    }
    /// The longest winner-side entry and its WDL for the side to move.
    fn longest(&self) -> Option<(&LongestEntry, Wdl)> {
        let l = &self.side.longest;
        let (cursed, plain, wc, wp) = if self.winner_to_move {
            (&l.cursed_win, &l.win, Wdl::CursedWin, Wdl::Win)
        } else {
            (&l.blessed_loss, &l.loss, Wdl::BlessedLoss, Wdl::Loss)
        };
        cursed
            .as_ref()
            .map(|e| (e, wc))
            .or(plain.as_ref().map(|e| (e, wp)))
    }
    /// The winner's moves for a phase of `plies`.
    fn moves(&self, plies: u32) -> u32 {
        if self.winner_to_move {
            plies.div_ceil(2)
        } else {
            plies / 2
        }
    }
    fn role(&self) -> &'static str {
        if self.winner_to_move {
            "winner"
        } else {
            "loser"
        }
    }
}

/// Per side: the resolved longest phase and the witness.
struct Resolved {
    phase: Option<[u32; 2]>,
    witness: Option<Witness>,
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// Counts of positions whose phase exceeds `limit` plies, as bounds: a
/// value `d <= 100` is its phase; a value above 100 is `d` or `d - 100`.
fn over_limit(h: &Histogram, limit: u32) -> [u64; 2] {
    let mut lo = 0;
    let mut hi = 0;
    for (d, n) in h.bins() {
        if d > limit {
            hi += n;
            if d <= FIFTY_MOVE_PLIES || d - FIFTY_MOVE_PLIES > limit {
                lo += n;
            }
        }
    }
    [lo, hi]
}

impl<'a> Verifier<'a> {
    /// A verifier over `inventory`'s tables, probing with `prober` (for
    /// lines and single positions) and scanning through `source`.
    pub fn new(
        inventory: &'a Inventory,
        prober: &'a Prober,
        source: &'a dyn StatsSource,
    ) -> Verifier<'a> {
        Verifier {
            inventory,
            prober,
            source,
            scans: HashMap::new(),
            lines: HashMap::new(),
        }
    }

    /// Supplies a saved, unfiltered, whole (unsharded) scan, so that claims
    /// on its material use it instead of scanning.
    ///
    /// # Errors
    ///
    /// [`Error::Input`] for a shard or a bad material.
    pub fn preload(&mut self, stats: ScanStats) -> Result<()> {
        if stats.shard.is_some() {
            return Err(Error::Input {
                path: stats.material.clone().into(),
                detail: "is one shard of a scan; merge the shards first".into(),
            });
        }
        let m: Material = stats.material.parse()?;
        self.scans.insert(scan_key(&m, None), stats);
        Ok(())
    }

    /// The unfiltered statistics of `material`, scanning it unless cached.
    ///
    /// # Errors
    ///
    /// Table errors from the engine.
    pub fn stats(&mut self, material: &Material) -> Result<&ScanStats> {
        self.scan(material, None)
    }

    fn scan(&mut self, material: &Material, filter: Option<&Filter>) -> Result<&ScanStats> {
        let key = scan_key(material, filter);
        if !self.scans.contains_key(&key) {
            let plan = ScanPlan {
                material: *material,
                shard: None,
                raw: false,
                filter: filter.map(Filter::to_position_filter),
            };
            let stats = self.source.stats(&plan)?;
            self.scans.insert(key.clone(), stats);
        }
        Ok(&self.scans[&key])
    }

    /// The best-play line from a FEN, cached.
    ///
    /// # Errors
    ///
    /// Table errors from the prober.
    pub fn line(&mut self, fen: &str) -> Result<&Line> {
        if !self.lines.contains_key(fen) {
            let pos = parse_fen(fen)?;
            let line = best_line(self.prober, &pos)?;
            self.lines.insert(fen.to_owned(), line);
        }
        Ok(&self.lines[fen])
    }

    /// The table files a claim needs that are not present.
    ///
    /// # Errors
    ///
    /// [`Error::Material`] for a bad material in the claim.
    pub fn missing_for(&self, claim: &Claim) -> Result<Vec<String>> {
        if !needs_tables(claim) {
            return Ok(Vec::new());
        }
        Ok(match claim.material()? {
            Some(m) => self.inventory.missing_for(&m),
            None => Vec::new(),
        })
    }

    /// Checks, before any long work, that the tables of every claim whose
    /// tables are all present have their official sizes.
    ///
    /// # Errors
    ///
    /// [`Error::Table`] for a truncated or damaged file.
    pub fn preflight(&self, claims: &[&Claim]) -> Result<()> {
        for c in claims {
            if !self.missing_for(c)?.is_empty() {
                continue;
            }
            if let (true, Some(m)) = (needs_tables(c), c.material()?) {
                self.inventory.require(&m, &c.id)?;
            }
        }
        Ok(())
    }

    /// Checks one claim.
    ///
    /// # Errors
    ///
    /// Table errors (a damaged table), or [`Error::Other`] when the tables
    /// contradict themselves. Missing tables are not errors: they make the
    /// verdict `unverifiable`.
    pub fn verify(&mut self, claim: &Claim) -> Result<ClaimResult> {
        let mut result = ClaimResult {
            id: claim.id.clone(),
            year: claim.year,
            who: claim.who.clone(),
            material: claim.material.clone(),
            metric: claim.metric,
            statement: claim.statement.clone(),
            source: claim.source.clone(),
            verdict: Verdict::Unverifiable,
            evidence: Evidence::default(),
            missing_tables: Vec::new(),
        };
        let mut ev = Evidence::default();
        if let Some(n) = &claim.note {
            ev.notes.push(n.clone());
        }
        if claim.check == Check::None || claim.metric == Metric::Rule {
            ev.summary =
                "a rule of play, not a statement about positions: no table can speak to it".into();
            result.evidence = ev;
            return Ok(result);
        }
        let material = claim
            .material()?
            .ok_or_else(|| Error::Other(format!("claim {} names no material", claim.id)))?;
        let winner = claim
            .winner_color(&material)
            .ok_or_else(|| Error::Other(format!("claim {} names no winner", claim.id)))?;
        // The winner's colour: in the material as written, or on the board
        // of a position claim (where the FEN decides the colours).
        let shown_color = match &claim.check {
            Check::PositionConverts { fen, play, .. } | Check::PositionWins { fen, play } => {
                let pos = position_after(fen, play)?;
                let on_board = Material::from_board(pos.board())?;
                claim.winner_color(&on_board).unwrap_or(winner)
            }
            _ => winner,
        };
        ev.winner = Some(format!(
            "{} ({})",
            material.side(winner),
            color_name(shown_color)
        ));
        if claim.metric == Metric::Dtm {
            ev.summary = "Syzygy tables hold no distance to mate (DTM); they store WDL and DTZ, so no Syzygy table can confirm or refute a DTM figure".into();
            result.evidence = ev;
            return Ok(result);
        }
        if claim.metric == Metric::Dtc && material.has_pawns() {
            ev.summary = "Syzygy tables hold no DTC for material with pawns (DTZ counts pawn moves as zeroing)".into();
            result.evidence = ev;
            return Ok(result);
        }
        let mut missing = self.missing_for(claim)?;
        if !missing.is_empty() {
            // The claim's own table first, then the bigger endgames.
            let own = material.table_name();
            missing.sort_by_key(|f| {
                let stem = f.split('.').next().unwrap_or_default().to_owned();
                let pieces = stem.parse::<Material>().map_or(0, |m| m.piece_count());
                (stem != own, std::cmp::Reverse(pieces), f.clone())
            });
            let sizes = official_sizes(&missing);
            let total: u64 = sizes.values().sum();
            ev.summary = format!(
                "{} table file(s) of {} and the endgames it leads to are not present ({}); install them to check this claim",
                missing.len(),
                material,
                human_bytes(total)
            );
            ev.missing_total_bytes = Some(total);
            ev.missing_table_bytes = sizes;
            result.missing_tables = missing;
            result.evidence = ev;
            return Ok(result);
        }
        result.verdict = match &claim.check {
            Check::PositionConverts { fen, play, moves } => {
                self.position_converts(claim, fen, play, *moves, &mut ev)?
            }
            Check::PositionWins { fen, play } => self.position_wins(claim, fen, play, &mut ev)?,
            _ => self.table_check(claim, &material, winner, &mut ev)?,
        };
        result.evidence = ev;
        Ok(result)
    }

    /// Claims about a whole endgame (or the filtered part of it).
    fn table_check(
        &mut self,
        claim: &Claim,
        material: &Material,
        winner: Color,
        ev: &mut Evidence,
    ) -> Result<Verdict> {
        ev.scope = Some(match &claim.filter {
            Some(f) => format!("{material}: {}", f.describe()),
            None => format!("{material}: all positions"),
        });
        // Per-side ply limits for the counts over the limit.
        let limits: Option<(u32, u32)> = match claim.check {
            Check::MaxMoves { moves } | Check::AtMostMoves { moves } => {
                Some((2 * moves, 2 * moves + 1))
            }
            Check::Allowance { moves } | Check::ExceedsMoves { moves } => {
                Some((2 * moves, 2 * moves))
            }
            _ => None,
        };
        let stats = self.scan(material, claim.filter.as_ref())?.clone();
        let views = [
            View {
                color: winner,
                winner_to_move: true,
                side: stats.side(winner),
            },
            View {
                color: !winner,
                winner_to_move: false,
                side: stats.side(!winner),
            },
        ];
        let mut resolved = Vec::new();
        for v in &views {
            resolved.push(self.resolve(v)?);
        }
        let positions: u64 = views.iter().map(|v| v.side.positions).sum();
        ev.positions = Some(positions);
        for (v, r) in views.iter().zip(&resolved) {
            let limit = limits.map(|(w, l)| if v.winner_to_move { w } else { l });
            ev.sides.push(SideEvidence {
                to_move: color_name(v.color).into(),
                role: v.role().into(),
                positions: v.side.positions,
                wins: v.wins(),
                cursed_wins: v.cursed(),
                draws: v.side.wdl.draw,
                other_side_wins: v.other_wins(),
                longest_dtz: v.hist().max(),
                longest_phase_plies: r.phase,
                longest_moves: r.phase.map(|[lo, hi]| [v.moves(lo), v.moves(hi)]),
                // A DTZ above 100 may stand for d or d - 100 plies, so the
                // histogram alone can leave the lower bound at 0; the
                // longest position's line, when it shows a phase over the
                // limit, is one position that certainly is over it.
                over_limit: limit.map(|l| {
                    let [lo, hi] = over_limit(v.hist(), l);
                    let witnessed = r.phase.is_some_and(|[p, _]| p > l);
                    [if witnessed { lo.max(1) } else { lo }, hi]
                }),
                limit_plies: limit,
            });
        }
        // The longest witness: the side with the most winner's moves.
        let longest_idx = (0..2)
            .filter(|i| resolved[*i].phase.is_some())
            .max_by_key(|i| {
                let [_, hi] = resolved[*i].phase.unwrap_or([0, 0]);
                (views[*i].moves(hi), usize::from(*i == 0))
            });
        ev.longest = longest_idx.and_then(|i| resolved[i].witness.clone());
        let moves_bounds = {
            let b: Vec<[u32; 2]> = views
                .iter()
                .zip(&resolved)
                .filter_map(|(v, r)| r.phase.map(|[lo, hi]| [v.moves(lo), v.moves(hi)]))
                .collect();
            (!b.is_empty()).then(|| {
                [
                    b.iter().map(|x| x[0]).max().unwrap_or(0),
                    b.iter().map(|x| x[1]).max().unwrap_or(0),
                ]
            })
        };
        let phase_bounds = {
            let b: Vec<[u32; 2]> = resolved.iter().filter_map(|r| r.phase).collect();
            (!b.is_empty()).then(|| {
                [
                    b.iter().map(|x| x[0]).max().unwrap_or(0),
                    b.iter().map(|x| x[1]).max().unwrap_or(0),
                ]
            })
        };
        let cursed: u64 = views.iter().map(View::cursed).sum();
        let wins: u64 = views.iter().map(|v| v.wins() + v.cursed()).sum();
        let draws: u64 = views.iter().map(|v| v.side.wdl.draw).sum();
        let other: u64 = views.iter().map(View::other_wins).sum();
        let over_hi: u64 = ev
            .sides
            .iter()
            .filter_map(|s| s.over_limit)
            .map(|[_, hi]| hi)
            .sum();
        let over_lo: u64 = ev
            .sides
            .iter()
            .filter_map(|s| s.over_limit)
            .map(|[lo, _]| lo)
            .sum();
        let unresolved = |ev: &mut Evidence, what: &str| {
            ev.notes.push(format!(
                "the longest position's line leaves the longest phase open ({what}); a DTZ above 100 may stand for d or d-100 plies"
            ));
            Verdict::Unverifiable
        };
        let verdict = match claim.check {
            Check::MaxMoves { moves } | Check::AtMostMoves { moves } => {
                let exact_max = matches!(claim.check, Check::MaxMoves { .. });
                ev.claimed_moves = Some(moves);
                ev.observed_moves = moves_bounds;
                ev.supporting = Some(wins.saturating_sub(over_hi));
                ev.contradicting = Some(over_lo);
                match moves_bounds {
                    None => {
                        ev.summary = format!("{material} has no wins for this side at all");
                        Verdict::Refuted
                    }
                    Some([lo, hi]) if lo > moves => {
                        ev.summary = format!(
                            "some win needs {} moves, more than the {moves} claimed ({over_lo} position(s) over the bound)",
                            show_bounds([lo, hi])
                        );
                        Verdict::Refuted
                    }
                    Some([lo, hi]) if hi <= moves && (!exact_max || lo == moves) => {
                        ev.summary = if exact_max {
                            format!("the longest win needs exactly {moves} moves, as claimed")
                        } else {
                            format!(
                                "every win converts within {moves} moves (the longest needs {})",
                                show_bounds([lo, hi])
                            )
                        };
                        Verdict::Confirmed
                    }
                    Some([lo, hi]) if exact_max && hi < moves => {
                        ev.summary = format!(
                            "every win converts within the {moves} moves claimed, but the longest needs only {}: the bound holds, the maximum is not {moves}",
                            show_bounds([lo, hi])
                        );
                        Verdict::Partly
                    }
                    Some(b) => unresolved(ev, &format!("{} moves", show_bounds(b))),
                }
            }
            Check::Allowance { moves } | Check::ExceedsMoves { moves } => {
                let allowance = matches!(claim.check, Check::Allowance { .. });
                let limit = 2 * moves;
                // Some win is cut short: exactly decided by the tables at 50.
                let cut: Option<bool> = if moves == 50 {
                    Some(cursed > 0)
                } else {
                    match phase_bounds {
                        None => Some(false),
                        Some([lo, _]) if lo > limit => Some(true),
                        Some([_, hi]) if hi <= limit => Some(false),
                        Some(_) => None,
                    }
                };
                ev.claimed_moves = Some(moves);
                ev.observed_moves = phase_bounds.map(|[lo, hi]| [lo.div_ceil(2), hi.div_ceil(2)]);
                let (n_lo, n_hi) = if moves == 50 {
                    (cursed, cursed)
                } else {
                    (over_lo, over_hi)
                };
                ev.contradicting = Some(if allowance { n_lo } else { 0 });
                ev.supporting = Some(if allowance {
                    wins.saturating_sub(n_hi)
                } else {
                    n_lo
                });
                let longest = phase_bounds.map(show_bounds).unwrap_or_else(|| "0".into());
                match (cut, allowance) {
                    (None, _) => unresolved(ev, &format!("{longest} plies")),
                    (Some(true), true) => {
                        ev.summary = format!(
                            "{} win(s) need more than {moves} moves ({limit} plies) without a zeroing move; the longest phase lasts {longest} plies",
                            show_bounds([n_lo, n_hi])
                        );
                        Verdict::Refuted
                    }
                    (Some(false), true) => {
                        ev.summary = format!(
                            "all {wins} wins fit in {moves} moves ({limit} plies) between zeroing moves; the longest phase lasts {longest} plies"
                        );
                        Verdict::Confirmed
                    }
                    (Some(true), false) => {
                        ev.summary = format!(
                            "{} win(s) need more than {moves} moves ({limit} plies) without a zeroing move; the longest phase lasts {longest} plies",
                            show_bounds([n_lo, n_hi])
                        );
                        Verdict::Confirmed
                    }
                    (Some(false), false) => {
                        ev.summary = format!(
                            "no win needs more than {moves} moves ({limit} plies) without a zeroing move; the longest phase lasts {longest} plies"
                        );
                        Verdict::Refuted
                    }
                }
            }
            Check::Generally { outcome } => {
                let (what, n) = match outcome {
                    GeneralOutcome::Draw => ("draws", draws),
                    GeneralOutcome::Win => ("wins for the winner", wins),
                };
                ev.supporting = Some(n);
                ev.contradicting = Some(positions - n);
                let share = pct(n, positions);
                ev.summary = format!(
                    "{share} of the {positions} positions are {what} ({wins} wins for {}, {draws} draws, {other} wins for the other side)",
                    material.side(winner)
                );
                if positions > 0 && 2 * n > positions {
                    Verdict::Confirmed
                } else {
                    Verdict::Refuted
                }
            }
            Check::AllWin => {
                ev.supporting = Some(wins);
                ev.contradicting = Some(positions - wins);
                ev.summary = format!(
                    "{wins} of the {positions} positions ({}) are wins for {} ({cursed} of them only without the 50-move rule); {draws} are draws and {other} wins for the other side",
                    pct(wins, positions),
                    material.side(winner)
                );
                if positions == 0 {
                    ev.summary = "no position meets the condition".into();
                    Verdict::Unverifiable
                } else if wins == positions {
                    Verdict::Confirmed
                } else {
                    ev.exception = self.find_exception(material, claim.filter.as_ref(), winner)?;
                    if wins == 0 {
                        Verdict::Refuted
                    } else {
                        Verdict::Partly
                    }
                }
            }
            _ => Verdict::Unverifiable,
        };
        if resolved
            .iter()
            .any(|r| r.phase.is_some_and(|[lo, hi]| lo != hi))
        {
            ev.notes.push(
                "a cursed DTZ value can stand for d or d-100 plies; where the line of the longest position could not settle it, the phase is given as bounds".into(),
            );
        }
        Ok(verdict)
    }

    /// Resolves the longest first phase of one side.
    fn resolve(&mut self, v: &View<'_>) -> Result<Resolved> {
        let h = v.hist();
        let Some(max_d) = h.max() else {
            return Ok(Resolved {
                phase: None,
                witness: None,
            });
        };
        let Some((entry, wdl)) = v.longest() else {
            return Ok(Resolved {
                phase: Some([max_d, max_d]),
                witness: None,
            });
        };
        let entry = entry.clone();
        let line = LineSummary::from(self.line(&entry.fen)?);
        let first = line.phases.first().map_or(0, |p| p.plies);
        let phase = if entry.dtz <= FIFTY_MOVE_PLIES || first == entry.dtz {
            [entry.dtz, entry.dtz]
        } else {
            // The longest value stands for d - 100: other cursed values below
            // it may still hide a longer phase.
            let below: Vec<u32> = h
                .bins()
                .map(|(d, _)| d)
                .filter(|d| *d < entry.dtz)
                .collect();
            let plain = below
                .iter()
                .copied()
                .filter(|d| *d <= FIFTY_MOVE_PLIES)
                .max()
                .unwrap_or(0);
            let next = below.iter().copied().max().unwrap_or(0);
            let hi = first.max(next);
            let lo = first.max(plain);
            if next <= FIFTY_MOVE_PLIES {
                [hi, hi]
            } else {
                [lo, hi]
            }
        };
        Ok(Resolved {
            phase: Some(phase),
            witness: Some(Witness {
                fen: entry.fen.clone(),
                side_to_move: v.role().into(),
                wdl,
                dtz: entry.dtz,
                phase_plies: Some(first),
                moves: Some(v.moves(first)),
                line: Some(line),
            }),
        })
    }

    /// The first position, in enumeration order, that meets the filter and
    /// is not a win for `winner`.
    fn find_exception(
        &mut self,
        material: &Material,
        filter: Option<&Filter>,
        winner: Color,
    ) -> Result<Option<Witness>> {
        let en = Enumerator::new(material);
        let prober = self.prober;
        let mut found: Option<Result<(Chess, Wdl)>> = None;
        for item in en.work_items() {
            en.for_each_in(item, |placement| {
                if found.is_some() {
                    return;
                }
                let board = en.board(&placement.squares);
                for turn in Color::ALL {
                    let Some(pos) = en.position(&board, turn) else {
                        continue;
                    };
                    if filter.is_some_and(|f| !f.matches(&pos)) {
                        continue;
                    }
                    let wdl = if pos.is_checkmate() {
                        Ok(Wdl::Loss)
                    } else {
                        prober.wdl(&pos)
                    };
                    match wdl {
                        Ok(w) => {
                            let for_winner = if turn == winner { w } else { w.flip() };
                            if for_winner.signum() <= 0 {
                                found = Some(Ok((pos, w)));
                                return;
                            }
                        }
                        Err(e) => {
                            found = Some(Err(e));
                            return;
                        }
                    }
                }
            });
            if found.is_some() {
                break;
            }
        }
        let Some(found) = found else { return Ok(None) };
        let (pos, wdl) = found?;
        let dtz = self.prober.dtz(&pos)?.unsigned_abs();
        let fen = fen_of(&pos);
        let line = if wdl == Wdl::Draw {
            None
        } else {
            Some(LineSummary::from(self.line(&fen)?))
        };
        Ok(Some(Witness {
            fen,
            side_to_move: if pos.turn() == winner {
                "winner"
            } else {
                "loser"
            }
            .into(),
            wdl,
            dtz,
            phase_plies: line
                .as_ref()
                .and_then(|l| l.phases.first().map(|p| p.plies)),
            moves: None,
            line,
        }))
    }

    /// The position's winner, the winner's moves for its first phase, and
    /// the witness.
    fn probe_position(
        &mut self,
        claim: &Claim,
        fen: &str,
        play: &[String],
    ) -> Result<(Option<Color>, Witness)> {
        let pos = position_after(fen, play)?;
        let material = Material::from_board(pos.board())?;
        let wdl = if pos.is_checkmate() {
            Wdl::Loss
        } else {
            self.prober.wdl(&pos)?
        };
        let dtz = self.prober.dtz(&pos)?;
        let winner = match wdl.signum() {
            1 => Some(pos.turn()),
            -1 => Some(!pos.turn()),
            _ => None,
        };
        // The colour, on this board, of the claim's winner.
        let claimed = claim.winner.as_deref().and_then(|w| {
            Color::ALL
                .into_iter()
                .find(|c| material.side(*c).to_string() == w.to_ascii_uppercase())
        });
        let fen_now = fen_of(&pos);
        let (line, first) = if winner.is_some() {
            let l = LineSummary::from(self.line(&fen_now)?);
            let first = l.phases.first().map_or(0, |p| p.plies);
            (Some(l), Some(first))
        } else {
            (None, None)
        };
        let winner_to_move = claimed == Some(pos.turn());
        let moves = first.map(|p| if winner_to_move { p.div_ceil(2) } else { p / 2 });
        Ok((
            winner.filter(|w| Some(*w) == claimed),
            Witness {
                fen: fen_now,
                side_to_move: if winner_to_move { "winner" } else { "loser" }.into(),
                wdl,
                dtz: dtz.unsigned_abs(),
                phase_plies: first,
                moves,
                line,
            },
        ))
    }

    fn position_converts(
        &mut self,
        claim: &Claim,
        fen: &str,
        play: &[String],
        moves: u32,
        ev: &mut Evidence,
    ) -> Result<Verdict> {
        let (winner, w) = self.probe_position(claim, fen, play)?;
        ev.scope = Some(format!("the position {}", w.fen));
        ev.claimed_moves = Some(moves);
        let verdict = match (winner, w.moves) {
            (Some(_), Some(observed)) => {
                ev.observed_moves = Some([observed, observed]);
                if observed == moves {
                    ev.summary = format!(
                        "the winner converts in exactly {moves} moves (DTZ {} plies, first phase {} plies)",
                        w.dtz,
                        w.phase_plies.unwrap_or(0)
                    );
                    Verdict::Confirmed
                } else {
                    ev.summary = format!(
                        "the winner converts in {observed} moves, not {moves} (DTZ {} plies, first phase {} plies)",
                        w.dtz,
                        w.phase_plies.unwrap_or(0)
                    );
                    Verdict::Refuted
                }
            }
            _ => {
                ev.summary = format!(
                    "the position is not a win for {} (WDL {})",
                    claim.winner.as_deref().unwrap_or("?"),
                    w.wdl.as_str()
                );
                Verdict::Refuted
            }
        };
        ev.longest = Some(w);
        Ok(verdict)
    }

    fn position_wins(
        &mut self,
        claim: &Claim,
        fen: &str,
        play: &[String],
        ev: &mut Evidence,
    ) -> Result<Verdict> {
        let (winner, w) = self.probe_position(claim, fen, play)?;
        ev.scope = Some(format!("the position {}", w.fen));
        let verdict = if winner.is_some() {
            ev.summary = format!(
                "the position is a win for {}{}",
                claim.winner.as_deref().unwrap_or("?"),
                if matches!(w.wdl, Wdl::CursedWin | Wdl::BlessedLoss) {
                    " without the 50-move rule (with it, a draw)"
                } else {
                    ""
                }
            );
            Verdict::Confirmed
        } else {
            ev.summary = format!(
                "the position is not a win for {} (WDL {} for the side to move)",
                claim.winner.as_deref().unwrap_or("?"),
                w.wdl.as_str()
            );
            Verdict::Refuted
        };
        ev.longest = Some(w);
        Ok(verdict)
    }
}

/// Whether checking a claim would read tables at all.
fn needs_tables(claim: &Claim) -> bool {
    claim.check != Check::None
        && matches!(claim.metric, Metric::Dtz | Metric::Dtc)
        && !(claim.metric == Metric::Dtc
            && claim
                .material()
                .ok()
                .flatten()
                .is_some_and(|m| m.has_pawns()))
}

/// `a` or `a-b`.
fn show_bounds<T: PartialEq + fmt::Display>([lo, hi]: [T; 2]) -> String {
    if lo == hi {
        lo.to_string()
    } else {
        format!("{lo} to {hi}")
    }
}

/// `n / total` as a percentage with two decimals.
pub fn pct(n: u64, total: u64) -> String {
    if total == 0 {
        return "0%".into();
    }
    format!("{:.2}%", 100.0 * n as f64 / total as f64)
}

/// Bytes for people: `1.2 GB`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "kB", "MB", "GB", "TB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1000.0 && u + 1 < UNITS.len() {
        v /= 1000.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} bytes")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Chess {
        parse_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    #[test]
    fn shipped_catalog_parses() {
        let all = catalog().unwrap();
        assert!(all.len() > 20);
        for c in &all {
            assert!(!c.source.is_empty(), "{}", c.id);
        }
    }

    #[test]
    fn troitsky_line_black_pawn() {
        let f = Filter::KnightBlockadesPawnBehindTroitskyLine(true);
        // On the line, blockaded by a white knight directly in front.
        for (pawn, knight) in [
            ("a4", "a3"),
            ("b6", "b5"),
            ("c5", "c4"),
            ("d4", "d3"),
            ("e4", "e3"),
            ("f5", "f4"),
            ("g6", "g5"),
            ("h4", "h3"),
            // Further back.
            ("a7", "a6"),
            ("b7", "b6"),
            ("d6", "d5"),
        ] {
            let fen = board_fen(&[
                ("K", "h8"),
                ("N", knight),
                ("N", "e8"),
                ("k", "a1"),
                ("p", pawn),
            ]);
            assert!(f.matches(&pos(&fen)), "{pawn} blockaded on {knight}: {fen}");
        }
        // One step past the line.
        for (pawn, knight) in [
            ("a3", "a2"),
            ("b5", "b4"),
            ("c4", "c3"),
            ("d3", "d2"),
            ("e3", "e2"),
            ("f4", "f3"),
            ("g5", "g4"),
            ("h3", "h2"),
        ] {
            let fen = board_fen(&[
                ("K", "h8"),
                ("N", knight),
                ("N", "e8"),
                ("k", "a1"),
                ("p", pawn),
            ]);
            assert!(!f.matches(&pos(&fen)), "{pawn} past the line: {fen}");
        }
        // Behind the line but not blockaded (knight beside, or a king in front).
        let fen = board_fen(&[
            ("K", "h8"),
            ("N", "b3"),
            ("N", "e8"),
            ("k", "a1"),
            ("p", "a4"),
        ]);
        assert!(!f.matches(&pos(&fen)));
        let fen = board_fen(&[
            ("K", "a3"),
            ("N", "b1"),
            ("N", "e8"),
            ("k", "h1"),
            ("p", "a4"),
        ]);
        assert!(!f.matches(&pos(&fen)));
    }

    #[test]
    fn troitsky_line_white_pawn_mirrors() {
        let f = Filter::KnightBlockadesPawnBehindTroitskyLine(true);
        for (pawn, knight, ok) in [
            ("a5", "a6", true),
            ("b3", "b4", true),
            ("c4", "c5", true),
            ("d5", "d6", true),
            ("e5", "e6", true),
            ("f4", "f5", true),
            ("g3", "g4", true),
            ("h5", "h6", true),
            ("a6", "a7", false),
            ("b4", "b5", false),
            ("g4", "g5", false),
            ("e2", "e3", true),
        ] {
            let fen = board_fen(&[
                ("k", "h8"),
                ("n", knight),
                ("n", "e8"),
                ("K", "a1"),
                ("P", pawn),
            ]);
            assert_eq!(f.matches(&pos(&fen)), ok, "{pawn} / {knight}: {fen}");
        }
    }

    #[test]
    fn pawn_on_relative_rank() {
        let f = Filter::PawnOnRelativeRank(7);
        assert!(f.matches(&pos("7k/4P3/8/8/8/8/8/K7 w - - 0 1")));
        assert!(!f.matches(&pos("7k/8/4P3/8/8/8/8/K7 w - - 0 1")));
        assert!(f.matches(&pos("7k/8/8/8/8/8/4p3/K7 w - - 0 1")));
    }

    #[test]
    fn krp_kbp_clause() {
        let f = Filter::KrpKbpA2A3(true);
        // White rook side, a2/a3, dark-squared black bishop (c1 is dark).
        assert!(f.matches(&pos("7k/8/8/8/8/p7/P7/K1b4R b - - 0 1")));
        // Light-squared bishop: no.
        assert!(!f.matches(&pos("7k/8/8/8/8/p7/P7/K2b3R b - - 0 1")));
        // h2/h3 with a light-squared bishop (d1 is light).
        assert!(f.matches(&pos("k7/8/8/8/8/7p/R6P/3b3K b - - 0 1")));
        // Colours reversed: black rook side a7, white pawn a6, light bishop.
        assert!(f.matches(&pos("k1B4r/p7/P7/8/8/8/8/7K w - - 0 1")));
        assert!(!f.matches(&pos("k2B3r/p7/P7/8/8/8/8/7K w - - 0 1")));
    }

    #[test]
    fn bishop_pair_on_opposite_colours() {
        let f = Filter::BishopsOnOppositeColours(true);
        // c1 is dark, f1 light: a pair.
        assert!(f.matches(&pos("4k3/8/8/8/8/8/8/2B1KB1n w - - 0 1")));
        // c1 and e3 are both dark.
        assert!(!f.matches(&pos("4k3/8/8/8/8/4B3/8/2B1K2n w - - 0 1")));
        // A side with one bishop, or none, is not constrained.
        assert!(f.matches(&pos("4k3/8/8/8/8/8/8/2B1K2n w - - 0 1")));
    }

    fn board_fen(pieces: &[(&str, &str)]) -> String {
        let mut board = shakmaty::Board::empty();
        for (p, sq) in pieces {
            let ch = p.chars().next().unwrap();
            let piece = shakmaty::Piece::from_char(ch).unwrap();
            let sq: Square = sq.parse().unwrap();
            board.set_piece_at(sq, piece);
        }
        // Whichever side to move makes the position legal.
        ["w", "b"]
            .iter()
            .map(|t| format!("{board} {t} - - 0 1"))
            .find(|f| parse_fen(f).is_ok())
            .unwrap_or_else(|| format!("{board} w - - 0 1"))
    }

    #[test]
    fn filters_are_invariant_under_the_a_h_mirror() {
        // Scans of material with pawns visit one of each mirror pair.
        let filters = [
            Filter::PawnOnRelativeRank(7),
            Filter::KnightBlockadesPawnBehindTroitskyLine(true),
            Filter::KrpKbpA2A3(true),
            Filter::BishopsOnOppositeColours(true),
        ];
        let files = "abcdefgh";
        for (i, pawn_file) in files.chars().enumerate() {
            for rank in 2..=7 {
                let pawn = format!("{pawn_file}{rank}");
                let knight = format!("{pawn_file}{}", rank - 1);
                let other = files.chars().nth((i + 3) % 8).unwrap();
                let fen = board_fen(&[
                    ("K", &format!("{other}8")),
                    ("N", &knight),
                    ("k", &format!("{other}1")),
                    ("p", &pawn),
                ]);
                let Ok(original) = parse_fen(&fen) else {
                    continue;
                };
                let mut board = original.board().clone();
                board.flip_horizontal();
                let mirrored = pos(&format!("{board} {} - - 0 1", original.turn().char()));
                for f in &filters {
                    assert_eq!(f.matches(&original), f.matches(&mirrored), "{f:?} {fen}");
                }
            }
        }
    }

    #[test]
    fn unknown_ids_get_suggestions() {
        let all = catalog().unwrap();
        let e = select(&all, &["thompson-1986-krbk".into()]).unwrap_err();
        assert!(e.to_string().contains("thompson-1986-krbkr"), "{e}");
        assert_eq!(e.exit_code(), crate::error::EXIT_BAD_INPUT);
    }

    #[test]
    fn over_limit_bounds() {
        let mut h = Histogram::default();
        h.add(50, 3);
        h.add(99, 2);
        h.add(117, 1);
        assert_eq!(over_limit(&h, 60), [2, 3]);
        // 117 is 117 or 17 plies.
        assert_eq!(over_limit(&h, 100), [0, 1]);
        assert_eq!(over_limit(&h, 10), [6, 6]);
    }

    #[test]
    fn catalog_rejects_inconsistent_claims() {
        let bad = |body: &str| {
            parse_catalog(&format!("[[claim]]\n{body}"), "t.toml")
                .unwrap_err()
                .to_string()
        };
        let base = "id = \"x\"\nwho = \"w\"\nsource = \"s\"\nstatement = \"t\"\n";
        assert!(bad(&format!(
            "{base}material = \"KRvKQ\"\nwinner = \"KQ\"\nmetric = \"dtc\"\ncheck = {{ kind = \"max_moves\", moves = 1 }}"
        ))
        .contains("Syzygy naming"));
        assert!(bad(&format!(
            "{base}material = \"KQvKR\"\nwinner = \"KB\"\nmetric = \"dtc\"\ncheck = {{ kind = \"max_moves\", moves = 1 }}"
        ))
        .contains("winner"));
        assert!(bad(&format!(
            "{base}material = \"KQvKR\"\nwinner = \"KQ\"\nmetric = \"dtc\"\ncheck = {{ kind = \"max_moves\", moves = 1 }}\nfilter = {{ pawn_on_relative_rank = 9 }}"
        ))
        .contains("ranks 2 to 7"));
        assert!(bad(&format!(
            "{base}metric = \"rule\"\ncheck = {{ kind = \"all_win\" }}"
        ))
        .contains("rule"));
    }
}
