//! Conditions on positions from a rule's wording (a pawn on its seventh

//! rank, Troitsky's blockade, the 1982 KRP v KBP set-up).

use std::{fmt, sync::Arc};

use serde::{Deserialize, Serialize};
use shakmaty::{Bitboard, Chess, Color, Position, Role, Square};

use crate::scan::probe::PositionFilter;

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
        self.matches_board(pos.board())
    }

    /// Whether a placement meets the condition (the conditions look at the
    /// pieces only, not at whose move it is).
    pub fn matches_board(&self, board: &shakmaty::Board) -> bool {
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

    /// Whether a position whose pawns stand on `pawns` (each pawn's colour
    /// and square) can meet the condition: what the condition asks of the
    /// pawns alone, so that every position that meets it passes (a solve
    /// then covers only the slices of such pawns; see
    /// [`crate::solve::SolvePlan::pawns`]).
    pub fn pawns_can_match(&self, pawns: &[(Color, Square)]) -> bool {
        let pawn_at = |sq: Square, color: Color| pawns.contains(&(color, sq));
        match self {
            Filter::PawnOnRelativeRank(rank) => pawns
                .iter()
                .any(|&(c, sq)| relative_rank(sq, c) == u32::from(*rank)),
            // A pawn on or behind the line, with no pawn on the square in
            // front (the knight's).
            Filter::KnightBlockadesPawnBehindTroitskyLine(on) => {
                *on && pawns.iter().any(|&(color, sq)| {
                    relative_rank(sq, color) <= TROITSKY_LINE[sq.file().to_usize()]
                        && in_front(sq, color)
                            .is_some_and(|f| !pawn_at(f, Color::White) && !pawn_at(f, Color::Black))
                })
            }
            // The rook side's pawn on a2 or h2, the other's in front of it.
            Filter::KrpKbpA2A3(on) => {
                *on && pawns.iter().any(|&(rook_side, sq)| {
                    matches!(sq.file().char(), 'a' | 'h')
                        && relative_rank(sq, rook_side) == 2
                        && in_front(sq, rook_side).is_some_and(|f| pawn_at(f, !rook_side))
                })
            }
            Filter::BishopsOnOppositeColours(on) => *on,
        }
    }

    /// The squares of pawns this condition freezes, in the material as the
    /// claim writes it (the rook side White): the 1982 KRP v KBP set-up
    /// blocks the pawns on a2 and a3 (its h2/h3 form is the same slice
    /// under the a-h mirror, and its colours reversed the same positions
    /// with colours swapped). `None` for the other conditions.
    pub fn frozen_pawns(&self) -> Option<Vec<(Color, Square)>> {
        match self {
            Filter::KrpKbpA2A3(true) => {
                Some(vec![(Color::White, Square::A2), (Color::Black, Square::A3)])
            }
            _ => None,
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

    /// Checks the filter's values.
    ///
    /// # Errors
    ///
    /// [`FilterError`] for a rank no pawn stands on, or a flag set to
    /// `false`.
    pub(super) fn validate(&self) -> std::result::Result<(), FilterError> {
        match self {
            Filter::PawnOnRelativeRank(r) if !(2..=7).contains(r) => Err(FilterError::PawnRank(*r)),
            Filter::KnightBlockadesPawnBehindTroitskyLine(false)
            | Filter::KrpKbpA2A3(false)
            | Filter::BishopsOnOppositeColours(false) => Err(FilterError::FalseFlag),
            _ => Ok(()),
        }
    }
}

/// A filter of a catalog whose value means nothing: one line, after the
/// claim's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FilterError {
    /// `pawn_on_relative_rank` names a rank outside 2 to 7.
    PawnRank(u8),
    /// A flag filter set to `false` (it is there to be `true`).
    FalseFlag,
}

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FilterError::PawnRank(r) => {
                write!(
                    f,
                    "pawn_on_relative_rank = {r}: pawns stand on ranks 2 to 7"
                )
            }
            FilterError::FalseFlag => {
                f.write_str("a filter flag must be `true` (leave the filter out otherwise)")
            }
        }
    }
}

impl std::error::Error for FilterError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::position::parse_fen;

    fn pos(fen: &str) -> Chess {
        parse_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    /// Every placement a condition accepts has pawns that
    /// [`Filter::pawns_can_match`] accepts (a solve of those slices alone
    /// would miss it otherwise), and the pawn condition rules placements
    /// out: each condition over every placement of its units that matter
    /// (the kings stand anywhere else; no condition looks at them). A pawn
    /// on its rank is a condition on the pawns alone, so there the two
    /// agree exactly.
    #[test]
    fn the_pawn_condition_holds_for_every_placement_a_filter_accepts() {
        use shakmaty::{Board, Piece};
        let pawn = |c: Color| Piece {
            color: c,
            role: Role::Pawn,
        };
        let pawn_squares = || (8u32..56).map(Square::new);
        let check = |f: &Filter, units: &[(Piece, Square)], tally: &mut [u64; 3]| {
            let mut board = Board::empty();
            for (i, &(piece, sq)) in units.iter().enumerate() {
                if units[..i].iter().any(|(_, s)| *s == sq) {
                    return;
                }
                board.set_piece_at(sq, piece);
            }
            let pawns: Vec<(Color, Square)> = units
                .iter()
                .filter(|(p, _)| p.role == Role::Pawn)
                .map(|(p, sq)| (p.color, *sq))
                .collect();
            let (matches, can) = (f.matches_board(&board), f.pawns_can_match(&pawns));
            assert!(!matches || can, "{f:?}: {units:?}");
            tally[0] += u64::from(matches);
            tally[1] += u64::from(can);
            tally[2] += 1;
        };
        // A pawn on its rank, of either colour, beside another pawn.
        for rank in 2..=7 {
            let f = Filter::PawnOnRelativeRank(rank);
            let mut tally = [0; 3];
            for w in pawn_squares() {
                for b in pawn_squares() {
                    let units = [(pawn(Color::White), w), (pawn(Color::Black), b)];
                    check(&f, &units, &mut tally);
                }
            }
            assert_eq!(tally[0], tally[1], "rank {rank}: exact");
            assert!(0 < tally[0] && tally[0] < tally[2], "{tally:?}");
        }
        // Troitsky: a pawn, the enemy knight anywhere, and another pawn of
        // either colour anywhere or none.
        let f = Filter::KnightBlockadesPawnBehindTroitskyLine(true);
        let mut tally = [0; 3];
        for c in Color::ALL {
            let knight = Piece {
                color: !c,
                role: Role::Knight,
            };
            for p in pawn_squares() {
                for n in (0..64).map(Square::new) {
                    let units = [(pawn(c), p), (knight, n)];
                    check(&f, &units, &mut tally);
                    for (other, q) in Color::ALL
                        .into_iter()
                        .flat_map(|o| pawn_squares().map(move |q| (o, q)))
                    {
                        check(
                            &f,
                            &[(pawn(c), p), (knight, n), (pawn(other), q)],
                            &mut tally,
                        );
                    }
                }
            }
        }
        assert!(0 < tally[0] && tally[1] < tally[2], "{tally:?}");
        // 1982 KRP v KBP: the rook side's pawn, the other's pawn and bishop
        // anywhere (the rook is needed, and stands on h8 or h1).
        let f = Filter::KrpKbpA2A3(true);
        let mut tally = [0; 3];
        for c in Color::ALL {
            let rook = Piece {
                color: c,
                role: Role::Rook,
            };
            let bishop = Piece {
                color: !c,
                role: Role::Bishop,
            };
            for p in pawn_squares() {
                for q in pawn_squares() {
                    for b in (0..64).map(Square::new) {
                        let units = [(rook, Square::H8), (pawn(c), p), (pawn(!c), q), (bishop, b)];
                        check(&f, &units, &mut tally);
                    }
                }
            }
        }
        assert!(0 < tally[0] && tally[1] < tally[2], "{tally:?}");
    }

    #[test]
    fn troitsky_line_both_colours() {
        let f = Filter::KnightBlockadesPawnBehindTroitskyLine(true);
        // On the line, blockaded by a white knight directly in front, and
        // further back; then one step past the line.
        let blockaded = [
            ("a4", "a3"),
            ("b6", "b5"),
            ("c5", "c4"),
            ("d4", "d3"),
            ("e4", "e3"),
            ("f5", "f4"),
            ("g6", "g5"),
            ("h4", "h3"),
            ("a7", "a6"),
            ("b7", "b6"),
            ("d6", "d5"),
            ("e7", "e6"),
        ];
        let past = [
            ("a3", "a2"),
            ("b5", "b4"),
            ("c4", "c3"),
            ("d3", "d2"),
            ("e3", "e2"),
            ("f4", "f3"),
            ("g5", "g4"),
            ("h3", "h2"),
        ];
        let cases = blockaded.map(|c| (c, true)).into_iter();
        for ((pawn, knight), behind) in cases.chain(past.map(|c| (c, false))) {
            let fen = board_fen(&[
                ("K", "h8"),
                ("N", knight),
                ("N", "e8"),
                ("k", "a1"),
                ("p", pawn),
            ]);
            assert_eq!(f.matches(&pos(&fen)), behind, "{pawn} / {knight}: {fen}");
            // The same with the colours swapped and the board mirrored
            // top to bottom: a white pawn, its line mirrored too.
            let mirror = |sq: &str| format!("{}{}", &sq[..1], 9 - sq[1..].parse::<u8>().unwrap());
            let fen = board_fen(&[
                ("k", "h1"),
                ("n", &mirror(knight)),
                ("n", "e1"),
                ("K", "a8"),
                ("P", &mirror(pawn)),
            ]);
            assert_eq!(
                f.matches(&pos(&fen)),
                behind,
                "{pawn} / {knight} mirrored: {fen}"
            );
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

    /// Whether `f` matches each FEN as expected.
    fn assert_matches(f: &Filter, cases: &[(&str, bool)]) {
        for (fen, expected) in cases {
            assert_eq!(f.matches(&pos(fen)), *expected, "{f:?} {fen}");
        }
    }

    #[test]
    fn pawn_on_relative_rank() {
        assert_matches(
            &Filter::PawnOnRelativeRank(7),
            &[
                ("7k/4P3/8/8/8/8/8/K7 w - - 0 1", true),
                ("7k/8/4P3/8/8/8/8/K7 w - - 0 1", false),
                ("7k/8/8/8/8/8/4p3/K7 w - - 0 1", true),
            ],
        );
    }

    #[test]
    fn krp_kbp_clause() {
        assert_matches(
            &Filter::KrpKbpA2A3(true),
            &[
                // White rook side, a2/a3, dark-squared black bishop (c1 is dark).
                ("7k/8/8/8/8/p7/P7/K1b4R b - - 0 1", true),
                // Light-squared bishop: no.
                ("7k/8/8/8/8/p7/P7/K2b3R b - - 0 1", false),
                // h2/h3 with a light-squared bishop (d1 is light).
                ("k7/8/8/8/8/7p/R6P/3b3K b - - 0 1", true),
                // Colours reversed: black rook side a7, white pawn a6, light bishop.
                ("k1B4r/p7/P7/8/8/8/8/7K w - - 0 1", true),
                ("k2B3r/p7/P7/8/8/8/8/7K w - - 0 1", false),
            ],
        );
    }

    #[test]
    fn bishop_pair_on_opposite_colours() {
        assert_matches(
            &Filter::BishopsOnOppositeColours(true),
            &[
                // c1 is dark, f1 light: a pair.
                ("4k3/8/8/8/8/8/8/2B1KB1n w - - 0 1", true),
                // c1 and e3 are both dark.
                ("4k3/8/8/8/8/4B3/8/2B1K2n w - - 0 1", false),
                // A side with one bishop, or none, is not constrained.
                ("4k3/8/8/8/8/8/8/2B1K2n w - - 0 1", true),
            ],
        );
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
}
