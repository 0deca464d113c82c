//! A lower bound on the depth by the rule (DTR) of KNN v KP positions,
//! computed here from the rules of chess, for a black pawn on one file: a
//! second computation of what fiftymove's solver gives as DTR, sharing
//! none of its code.
//!
//! While the pawn stands still only the kings and the knights move, so the
//! positions with the pawn on one square form a closed graph (a "slice");
//! every zeroing move (a capture, a pawn move) or mate leaves it. Under an
//! N-move rule a position is won only if the knights' side can force,
//! within 2N plies, a zeroing move or mate after which it is still won
//! under that rule. So, over a slice, the knights' side minimises and the
//! pawn's side maximises the plies to the first zeroing move into a
//! position that may be so won; where that minimax exceeds 2N, the rule
//! cannot keep the win (DTR over 2N plies).
//!
//! "May be so won" is judged generously, never less than the truth, so the
//! bound stays a lower bound:
//! - a push into the slice below: where that slice's minimax is at most 2N
//!   (the slices are solved from the pawn's second rank up);
//! - a promotion: the knights then win only where they mate at once (with
//!   the knights to move, the longest KNN v KQ win is a mate in 1: Scid's
//!   tablebase summary, `set tbs(knnkq) { 4 1 ...` in tcl/tb.tcl of
//!   github.com/benini/scid), which is checked here, any knight check that
//!   leaves the king no square and the queen no capture counting as mate
//!   (White's own legality not checked); an under-promotion is assumed to
//!   lose wherever the queen's does;
//! - a capture of a knight: KN v KP (KN v KQ after a capture that
//!   promotes; under-promotions are not tried, which can only give the
//!   knights more), read from the official file through shakmaty-syzygy: a
//!   win for the knight counts (no 4-piece win is cursed);
//! - a capture of the pawn by the knights' side: KNN v K, won for the
//!   knights only where it is mate on the board (the generator's
//!   statistics, tests/reference: KNNvK with Black to move has 30 losses,
//!   all in 0 plies), which is checked here;
//! - a mate by a quiet move ends the phase; stalemate is a draw.
//!
//! Each slice is a retrograde pass in increasing plies: a knights'-side
//! position gets the least depth a move reaches, a pawn's-side position the
//! greatest, once every quiet move of it is known. Moves of kings and
//! knights are their own reverses, so the predecessors of a position are
//! the positions one leap back, where legal.

use std::collections::HashMap;

use shakmaty::{attacks, Bitboard, Chess, Color, Position, Role, Square};

use super::{placed, side_to_move_wins, SyzygyFiles};

/// No depth found within the limit.
const UNKNOWN: u8 = u8::MAX;
/// A pawn's-side position that never loses within the slice: it has a
/// zeroing move that keeps the draw, or it is stalemate.
const SAFE: u8 = u8::MAX;

/// The bounds of one slice: White's king and two knights against Black's
/// king and a black pawn on a fixed square.
pub struct KnnkpSlice {
    pawn: u32,
    depth: Vec<u8>,
    limit: u8,
}

/// Where a position lies in the arrays: side to move, the kings, the two
/// knights (lower square first).
fn index(white_to_move: bool, u: &Units) -> usize {
    let (n1, n2) = if u.n1 < u.n2 {
        (u.n1, u.n2)
    } else {
        (u.n2, u.n1)
    };
    let stm = usize::from(!white_to_move);
    let [wk, bk, n1, n2] = [u.wk, u.bk, n1, n2].map(|s| s as usize);
    (stm << 24) | (wk << 18) | (bk << 12) | (n1 << 6) | n2
}

fn bb(sq: u32) -> u64 {
    1u64 << sq
}

fn king(sq: u32) -> u64 {
    attacks::king_attacks(Square::new(sq)).0
}

fn knight(sq: u32) -> u64 {
    attacks::knight_attacks(Square::new(sq)).0
}

fn black_pawn(sq: u32) -> u64 {
    attacks::pawn_attacks(Color::Black, Square::new(sq)).0
}

/// The squares in a bitboard.
fn squares(mut set: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let sq = set.trailing_zeros();
            set &= set - 1;
            sq
        })
    })
}

/// One placement of the four units that move within a slice.
#[derive(Clone, Copy)]
struct Units {
    wk: u32,
    bk: u32,
    n1: u32,
    n2: u32,
}

impl Units {
    fn from_index(i: usize) -> Units {
        Units {
            wk: (i >> 18 & 63) as u32,
            bk: (i >> 12 & 63) as u32,
            n1: (i >> 6 & 63) as u32,
            n2: (i & 63) as u32,
        }
    }
    fn white(&self) -> u64 {
        bb(self.wk) | bb(self.n1) | bb(self.n2)
    }
    fn knights_attack(&self) -> u64 {
        knight(self.n1) | knight(self.n2)
    }
    fn guarded(&self) -> u64 {
        self.knights_attack() | king(self.wk)
    }
    /// The knight other than the one on `sq`.
    fn other_knight(&self, sq: u32) -> u32 {
        if sq == self.n1 {
            self.n2
        } else {
            self.n1
        }
    }
}

impl KnnkpSlice {
    /// The slices of a black pawn's file from its second rank up to
    /// `pawn`, each below solved to `rule_plies`, the last to `limit`
    /// (`rule_plies <= limit < 255`); the last is returned.
    pub fn solve_file(files: &SyzygyFiles, pawn: Square, rule_plies: u8, limit: u8) -> KnnkpSlice {
        assert!(rule_plies <= limit && limit < UNKNOWN);
        let top = u32::from(pawn);
        assert!((8..48).contains(&top), "a black pawn on ranks 2 to 6");
        let mut below: Option<KnnkpSlice> = None;
        for sq in (top % 8 + 8..=top).step_by(8) {
            let l = if sq == top { limit } else { rule_plies };
            let mut captures = Captures {
                files,
                known: HashMap::new(),
            };
            below = Some(KnnkpSlice::solve(
                sq,
                below.as_ref(),
                &mut captures,
                rule_plies,
                l,
            ));
        }
        below.expect("at least one slice")
    }

    /// Whether a position of this slice, White to move, may still be won
    /// under the rule (its bound within `rule_plies`).
    fn may_win(&self, u: &Units, rule_plies: u8) -> bool {
        self.depth[index(true, u)] <= rule_plies
    }

    fn solve(
        pawn: u32,
        below: Option<&KnnkpSlice>,
        captures: &mut Captures<'_>,
        rule_plies: u8,
        limit: u8,
    ) -> KnnkpSlice {
        let pawn_bb = bb(pawn);
        let mut depth = vec![UNKNOWN; 1 << 25];
        // A pawn's-side position's quiet moves not yet known, or SAFE.
        let mut open = vec![0u8; 1 << 25];
        let mut queue: Vec<Vec<u32>> = vec![Vec::new(); usize::from(limit) + 1];
        let set = |depth: &mut Vec<u8>, queue: &mut Vec<Vec<u32>>, i: usize, d: u8| {
            depth[i] = d;
            queue[usize::from(d)].push(i as u32);
        };
        for_each_placement(pawn, |u| {
            // White to move: legal when Black is not in check.
            if u.knights_attack() & bb(u.bk) == 0 && capture_of_the_pawn_mates(&u, pawn) {
                set(&mut depth, &mut queue, index(true, &u), 1);
            }
            // Black to move: legal when White is not in check.
            if black_pawn(pawn) & bb(u.wk) == 0 {
                let i = index(false, &u);
                match black_moves(&u, pawn, below, captures, rule_plies) {
                    Black::Safe => open[i] = SAFE,
                    Black::Quiet(n) => open[i] = n,
                    Black::Lost(d) => set(&mut depth, &mut queue, i, d),
                }
            }
        });
        for d in 0..limit {
            let level = std::mem::take(&mut queue[usize::from(d)]);
            for &i in &level {
                let i = i as usize;
                let u = Units::from_index(i);
                let occ = u.white() | bb(u.bk) | pawn_bb;
                if i >> 24 == 0 {
                    // White to move; Black moved last: its king came from
                    // one step away (White not in check then: the pawn did
                    // not move, and would attack White's king here too).
                    if black_pawn(pawn) & bb(u.wk) != 0 {
                        continue;
                    }
                    for from in squares(king(u.bk) & !occ & !king(u.wk)) {
                        let j = index(false, &Units { bk: from, ..u });
                        if depth[j] != UNKNOWN || open[j] == SAFE {
                            continue;
                        }
                        open[j] -= 1;
                        if open[j] == 0 {
                            set(&mut depth, &mut queue, j, d + 1);
                        }
                    }
                } else {
                    // Black to move; White moved last, without capturing:
                    // its king or a knight came from one leap away, and
                    // Black was not in check before.
                    let kings =
                        squares(king(u.wk) & !occ & !king(u.bk)).map(|f| Units { wk: f, ..u });
                    let first = squares(knight(u.n1) & !occ).map(|f| Units { n1: f, ..u });
                    let second = squares(knight(u.n2) & !occ).map(|f| Units { n2: f, ..u });
                    for w in kings.chain(first).chain(second) {
                        let j = index(true, &w);
                        if w.knights_attack() & bb(w.bk) == 0 && depth[j] == UNKNOWN {
                            set(&mut depth, &mut queue, j, d + 1);
                        }
                    }
                }
            }
        }
        KnnkpSlice { pawn, depth, limit }
    }

    /// The bound of a position of this slice in plies, or `None` above the
    /// slice's limit (a draw included).
    pub fn bound(&self, pos: &Chess) -> Option<u32> {
        let board = pos.board();
        assert_eq!(
            board.pawns(),
            Bitboard::from_square(Square::new(self.pawn)),
            "a position of this slice"
        );
        assert_eq!(board.by_color(Color::Black).count(), 2, "KNN v KP");
        let one = |c: Color, r: Role| u32::from(board.by_piece(r.of(c)).first().unwrap());
        let knights: Vec<u32> = board
            .by_piece(Role::Knight.of(Color::White))
            .into_iter()
            .map(u32::from)
            .collect();
        assert_eq!(knights.len(), 2, "KNN v KP");
        let u = Units {
            wk: one(Color::White, Role::King),
            bk: one(Color::Black, Role::King),
            n1: knights[0],
            n2: knights[1],
        };
        let d = self.depth[index(pos.turn() == Color::White, &u)];
        (d <= self.limit).then_some(u32::from(d))
    }
}

/// Calls `f` once for every placement of the two kings apart and the two
/// knights (lower square first) on squares other than the pawn's.
fn for_each_placement(pawn: u32, mut f: impl FnMut(Units)) {
    for wk in 0..64 {
        for bk in (0..64).filter(|&bk| king(wk) & bb(bk) == 0 && bk != wk) {
            for n1 in 0..64 {
                for n2 in n1 + 1..64 {
                    let all = [wk, bk, n1, n2, pawn];
                    if (0..5).all(|i| (i + 1..5).all(|j| all[i] != all[j])) {
                        f(Units { wk, bk, n1, n2 });
                    }
                }
            }
        }
    }
}

/// Whether some capture of the pawn by White (king or knight) leaves
/// Black, to move in KNN v K, mated. White's king may not take a pawn
/// Black's king guards.
fn capture_of_the_pawn_mates(u: &Units, pawn: u32) -> bool {
    let mut after = Vec::with_capacity(3);
    if king(u.wk) & bb(pawn) != 0 && king(u.bk) & bb(pawn) == 0 {
        after.push(Units { wk: pawn, ..*u });
    }
    if knight(u.n1) & bb(pawn) != 0 {
        after.push(Units { n1: pawn, ..*u });
    }
    if knight(u.n2) & bb(pawn) != 0 {
        after.push(Units { n2: pawn, ..*u });
    }
    after.iter().any(|w| mated(w, None))
}

/// Black to move, its king checked by a knight: whether it has no answer.
/// The king may step to a square nothing guards, or take a knight nothing
/// guards; a queen of Black's on `queen` (with all units in `occupied`)
/// may take a checking knight.
fn mated(u: &Units, queen: Option<(u32, u64)>) -> bool {
    let checkers = [u.n1, u.n2]
        .into_iter()
        .filter(|&n| knight(n) & bb(u.bk) != 0)
        .collect::<Vec<_>>();
    if checkers.is_empty() {
        return false;
    }
    let guarded = u.guarded();
    let queen_square = queen.map_or(0, |(q, _)| bb(q));
    let flight = squares(king(u.bk) & !queen_square).any(|to| {
        if to == u.n1 || to == u.n2 {
            (knight(u.other_knight(to)) | king(u.wk)) & bb(to) == 0
        } else {
            guarded & bb(to) == 0
        }
    });
    let queen_takes = match (queen, checkers.as_slice()) {
        (Some((q, occupied)), [only]) => {
            attacks::queen_attacks(Square::new(q), Bitboard(occupied)).0 & bb(*only) != 0
        }
        _ => false,
    };
    !flight && !queen_takes
}

/// After Black's pawn promotes to a queen on `queen`, with White to move:
/// whether a knight move gives mate (a move onto the queen takes it).
fn mate_after_promotion(u: &Units, queen: u32) -> bool {
    [u.n1, u.n2].into_iter().any(|n| {
        let other = u.other_knight(n);
        squares(knight(n) & knight(u.bk) & !bb(u.wk) & !bb(other)).any(|to| {
            let w = Units {
                n1: to,
                n2: other,
                ..*u
            };
            let queen = (to != queen).then(|| (queen, w.white() | bb(w.bk) | bb(queen)));
            mated(&w, queen)
        })
    })
}

/// A pawn's-side position's standing before the retrograde pass.
enum Black {
    /// It has a zeroing move after which the knights cannot win under the
    /// rule, or it is stalemate.
    Safe,
    /// This many quiet moves (king steps), whose depths decide it.
    Quiet(u8),
    /// Lost at once: mated (0), or every move zeroes into a knights' win
    /// (1).
    Lost(u8),
}

/// The knights' results after Black takes a knight, from the official
/// files, each asked once.
struct Captures<'f> {
    files: &'f SyzygyFiles,
    known: HashMap<[u32; 4], bool>,
}

impl Captures<'_> {
    /// Whether White, to move, wins with its king on `wk` and a knight on
    /// `n` against Black's king on `bk` and a pawn on `pawn` (a queen on
    /// the first rank).
    fn knight_wins(&mut self, wk: u32, n: u32, bk: u32, pawn: u32) -> bool {
        let files = self.files;
        *self.known.entry([wk, n, bk, pawn]).or_insert_with(|| {
            let role = if pawn < 8 { Role::Queen } else { Role::Pawn };
            let pieces = [
                (Color::White, Role::King, Square::new(wk)),
                (Color::White, Role::Knight, Square::new(n)),
                (Color::Black, Role::King, Square::new(bk)),
                (Color::Black, role, Square::new(pawn)),
            ];
            let pos = placed(&pieces, Color::White).expect("a legal capture leads to a position");
            side_to_move_wins(files.wdl(&pos))
        })
    }
}

/// Black's moves, Black to move: the quiet ones counted, each zeroing one
/// judged as the module says.
fn black_moves(
    u: &Units,
    pawn: u32,
    below: Option<&KnnkpSlice>,
    captures: &mut Captures<'_>,
    rule_plies: u8,
) -> Black {
    let guarded = u.guarded();
    let in_check = u.knights_attack() & bb(u.bk) != 0;
    let occ = u.white() | bb(u.bk) | bb(pawn);
    let mut quiet = 0;
    let mut zeroing = false;
    let mut safe = false;
    // The king: steps, and captures of knights nothing guards.
    for to in squares(king(u.bk) & !bb(pawn)) {
        if to == u.n1 || to == u.n2 {
            let other = u.other_knight(to);
            if (knight(other) | king(u.wk)) & bb(to) == 0 {
                zeroing = true;
                safe |= !captures.knight_wins(u.wk, other, to, pawn);
            }
        } else if guarded & bb(to) == 0 {
            quiet += 1;
        }
    }
    // The pawn's captures, legal when the other knight does not then give
    // check.
    for to in squares(black_pawn(pawn) & (bb(u.n1) | bb(u.n2))) {
        let other = u.other_knight(to);
        if knight(other) & bb(u.bk) == 0 {
            zeroing = true;
            safe |= !captures.knight_wins(u.wk, other, u.bk, to);
        }
    }
    // The push, which cannot answer a knight's check.
    let front = pawn - 8;
    if !in_check && occ & bb(front) == 0 {
        zeroing = true;
        safe |= match below {
            Some(slice) => {
                assert_eq!(slice.pawn, front);
                !slice.may_win(u, rule_plies)
            }
            None => !mate_after_promotion(u, front),
        };
    }
    if safe {
        Black::Safe
    } else if quiet > 0 {
        Black::Quiet(quiet)
    } else if zeroing {
        Black::Lost(1)
    } else if in_check {
        Black::Lost(0)
    } else {
        Black::Safe
    }
}
