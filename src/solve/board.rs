//! Positions of the solver and their moves: legal moves forward (quiet moves
//! to count, zeroing moves to evaluate) and quiet moves backward (the
//! retractions that retrograde analysis walks), on shakmaty's attack tables.
//!
//! A *quiet* move here is what the 50-move rule counts: a move of a king or
//! piece that captures nothing. Every other move (a capture, a pawn move, a
//! promotion) is *zeroing*: it leaves the slice, so the solver evaluates it
//! from a table already solved.

use shakmaty::{attacks, Color, Piece, Role, Square};

use super::layout::{Layout, Squares};

/// A bitboard as a plain integer.
pub(crate) type Bb = u64;

#[inline]
fn square(s: u8) -> Square {
    Square::new(u32::from(s))
}

/// The squares a piece on `s` attacks with `occ` occupied. (shakmaty's
/// `attacks` is not inlined across crates; its per-role functions are, and
/// this is the solver's hottest call.)
#[inline]
pub(crate) fn attacks_of(piece: Piece, s: u8, occ: Bb) -> Bb {
    let sq = square(s);
    let occ = shakmaty::Bitboard(occ);
    match piece.role {
        Role::Pawn => attacks::pawn_attacks(piece.color, sq).0,
        Role::Knight => attacks::knight_attacks(sq).0,
        Role::Bishop => attacks::bishop_attacks(sq, occ).0,
        Role::Rook => attacks::rook_attacks(sq, occ).0,
        Role::Queen => attacks::queen_attacks(sq, occ).0,
        Role::King => attacks::king_attacks(sq).0,
    }
}

/// The quiet moves of `mover`'s pieces in the placement `sq` of `layout`,
/// pawns left out, legal or not: `visit(slot, to)` for each, the king's
/// last. A check of every move that only needs the legal ones can take
/// these and pass over the ones that lead to no position (the mover's king
/// left in check, or next to the other): it spares the pins and checks that
/// [`Board::moves`] works out, and the attacks of the other side.
#[inline]
pub(crate) fn pseudo_quiet_moves(
    layout: &Layout,
    sq: &Squares,
    mover: Color,
    mut visit: impl FnMut(usize, u8) -> bool,
) -> bool {
    let n = layout.slots();
    let mut occ: Bb = 0;
    for &s in &sq[..n] {
        occ |= 1 << s;
    }
    for i in (0..n).rev() {
        let p = layout.pieces[i];
        if p.color != mover || p.role == Role::Pawn {
            continue;
        }
        let mut t = attacks_of(p, sq[i], occ) & !occ;
        while t != 0 {
            let to = t.trailing_zeros() as u8;
            t &= t - 1;
            if !visit(i, to) {
                return false;
            }
        }
    }
    true
}

/// Whether a slider of `role` on `a` shares a line with `b` (on an empty
/// board it would attack it).
#[inline]
fn slides_to(role: Role, a: u8, b: u8) -> bool {
    let (fa, ra, fb, rb) = (a & 7, a >> 3, b & 7, b >> 3);
    let straight = fa == fb || ra == rb;
    let diagonal = fa.abs_diff(fb) == ra.abs_diff(rb);
    match role {
        Role::Rook => straight,
        Role::Bishop => diagonal,
        Role::Queen => straight || diagonal,
        _ => false,
    }
}

/// The squares strictly between two squares on a line (empty otherwise).
#[inline]
fn between(a: u8, b: u8) -> Bb {
    attacks::between(square(a), square(b)).0
}

/// A zeroing move: a capture, a pawn move or a promotion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Zeroing {
    /// The slot that moves.
    pub(crate) slot: usize,
    /// Its destination.
    pub(crate) to: u8,
    /// The slot captured, if any.
    pub(crate) captured: Option<usize>,
    /// The piece a pawn becomes, if it promotes.
    pub(crate) promotion: Option<Role>,
    /// Whether it is a pawn's double step (it may allow an en-passant reply).
    pub(crate) double_step: bool,
}

/// A placement with its bitboards, ready for move generation.
pub(crate) struct Board<'a> {
    pub(crate) layout: &'a Layout,
    pub(crate) sq: Squares,
    pub(crate) occ: Bb,
    /// Occupancy by colour (`[white, black]`).
    pub(crate) by_color: [Bb; 2],
    /// What each slot attacks.
    att: Squares64,
    /// What each colour attacks.
    by_color_att: [Bb; 2],
}

type Squares64 = [Bb; super::layout::MAX_PIECES];

#[inline]
fn ci(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

impl<'a> Board<'a> {
    /// The board of a placement (which must not overlap).
    #[inline]
    pub(crate) fn new(layout: &'a Layout, sq: &Squares) -> Board<'a> {
        let mut by_color = [0; 2];
        for (p, &s) in layout.pieces.iter().zip(sq.iter()) {
            by_color[ci(p.color)] |= 1 << s;
        }
        let occ = by_color[0] | by_color[1];
        let mut att = [0; super::layout::MAX_PIECES];
        let mut by_color_att = [0; 2];
        for (i, (p, &s)) in layout.pieces.iter().zip(sq.iter()).enumerate() {
            att[i] = attacks_of(*p, s, occ);
            by_color_att[ci(p.color)] |= att[i];
        }
        Board {
            layout,
            sq: *sq,
            occ,
            by_color,
            att,
            by_color_att,
        }
    }

    /// The slot of `color`'s king.
    #[inline]
    pub(crate) fn king_slot(color: Color) -> usize {
        ci(color)
    }

    /// The squares `color` attacks with `occ` occupied (pieces on removed
    /// squares, given by `gone`, do not attack).
    #[inline]
    pub(crate) fn attacks_by(&self, color: Color, occ: Bb, gone: Bb) -> Bb {
        let mut a = 0;
        for (p, &s) in self.layout.pieces.iter().zip(self.sq.iter()) {
            if p.color == color && gone & (1 << s) == 0 {
                a |= attacks_of(*p, s, occ);
            }
        }
        a
    }

    /// Whether `color`'s king is attacked.
    #[inline]
    pub(crate) fn in_check(&self, color: Color) -> bool {
        let k = self.sq[Self::king_slot(color)];
        self.by_color_att[ci(!color)] & (1 << k) != 0
    }

    /// Whether the position with `stm` to move counts: the side not to move
    /// is not in check.
    #[inline]
    pub(crate) fn legal_with(&self, stm: Color) -> bool {
        !self.in_check(!stm)
    }

    /// Generates the legal moves of `stm`: `quiet(slot, to)` for each quiet
    /// move and `zeroing(move)` for each zeroing one. Returns whether `stm`
    /// is in check.
    pub(crate) fn moves(
        &self,
        stm: Color,
        mut quiet: impl FnMut(usize, u8),
        mut zeroing: impl FnMut(Zeroing),
    ) -> bool {
        let n = self.layout.slots();
        let us = ci(stm);
        let own = self.by_color[us];
        let them = self.by_color[1 - us];
        let k = self.sq[us];
        let kbb: Bb = 1 << k;
        // Checkers, pins and the squares the king must avoid.
        let mut checkers = 0u32;
        let mut check_mask: Bb = !0;
        let mut pinned: Bb = 0;
        let mut pin_lines = [0 as Bb; 8];
        let mut pin_count = 0;
        let mut danger: Bb = 0;
        for i in 0..n {
            let p = self.layout.pieces[i];
            if p.color == stm {
                continue;
            }
            let s = self.sq[i];
            let slider = matches!(p.role, Role::Rook | Role::Bishop | Role::Queen);
            if self.att[i] & kbb != 0 {
                checkers += 1;
                check_mask = (1 << s) | between(s, k);
                // The king stepping away along the line stays attacked: a
                // checking slider's attacks without the king.
                danger |= if slider {
                    attacks_of(p, s, self.occ & !kbb)
                } else {
                    self.att[i]
                };
            } else {
                danger |= self.att[i];
            }
            if slider && slides_to(p.role, s, k) {
                let line = between(s, k);
                let blockers = line & self.occ;
                if blockers.count_ones() == 1 && blockers & own != 0 {
                    pinned |= blockers;
                    pin_lines[pin_count] = line | (1 << s);
                    pin_count += 1;
                }
            }
        }
        let pin_of = |from: Bb| -> Bb {
            if pinned & from == 0 {
                return !0;
            }
            pin_lines[..pin_count]
                .iter()
                .copied()
                .find(|l| l & from != 0)
                .unwrap_or(!0)
        };
        // King moves: quiet ones and captures.
        let targets = attacks::king_attacks(square(k)).0 & !own & !danger;
        self.piece_moves(us, targets, them, &mut quiet, &mut zeroing);
        if checkers >= 2 {
            return true;
        }
        for i in 2..n {
            let p = self.layout.pieces[i];
            if p.color != stm {
                continue;
            }
            let from = self.sq[i];
            let allowed = check_mask & pin_of(1 << from);
            if p.role == Role::Pawn {
                self.pawn_moves(i, stm, allowed, &mut zeroing);
                continue;
            }
            self.piece_moves(i, self.att[i] & allowed, them, &mut quiet, &mut zeroing);
        }
        checkers > 0
    }

    /// The moves of the piece (not a pawn) in `slot` to the squares of
    /// `reach`: quiet ones to the empty squares, captures to those of `them`.
    fn piece_moves(
        &self,
        slot: usize,
        reach: Bb,
        them: Bb,
        quiet: &mut impl FnMut(usize, u8),
        zeroing: &mut impl FnMut(Zeroing),
    ) {
        let mut t = reach & !self.occ;
        while t != 0 {
            let to = t.trailing_zeros() as u8;
            t &= t - 1;
            quiet(slot, to);
        }
        let mut t = reach & them;
        while t != 0 {
            let to = t.trailing_zeros() as u8;
            t &= t - 1;
            zeroing(Zeroing {
                slot,
                to,
                captured: self.slot_at(to),
                promotion: None,
                double_step: false,
            });
        }
    }

    fn pawn_moves(&self, i: usize, stm: Color, allowed: Bb, zeroing: &mut impl FnMut(Zeroing)) {
        let from = self.sq[i];
        let them = self.by_color[1 - ci(stm)];
        let (step, start_rank, last_rank): (i8, u8, u8) = match stm {
            Color::White => (8, 1, 7),
            Color::Black => (-8, 6, 0),
        };
        let mut emit = |to: u8, captured: Option<usize>, double_step: bool| {
            if allowed & (1 << to) == 0 {
                return;
            }
            if to >> 3 == last_rank {
                for role in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                    zeroing(Zeroing {
                        slot: i,
                        to,
                        captured,
                        promotion: Some(role),
                        double_step: false,
                    });
                }
            } else {
                zeroing(Zeroing {
                    slot: i,
                    to,
                    captured,
                    promotion: None,
                    double_step,
                });
            }
        };
        let one = (from as i8 + step) as u8;
        if self.occ & (1 << one) == 0 {
            emit(one, None, false);
            if from >> 3 == start_rank {
                let two = (one as i8 + step) as u8;
                if self.occ & (1 << two) == 0 {
                    emit(two, None, true);
                }
            }
        }
        let mut t = attacks::pawn_attacks(stm, square(from)).0 & them;
        while t != 0 {
            let to = t.trailing_zeros() as u8;
            t &= t - 1;
            emit(to, self.slot_at(to), false);
        }
    }

    /// The slot on a square, if any.
    #[inline]
    pub(crate) fn slot_at(&self, s: u8) -> Option<usize> {
        self.sq[..self.layout.slots()].iter().position(|&x| x == s)
    }

    /// The en-passant captures `stm` could make after the opponent's pawn
    /// double step to `pushed` (which passed over `over`): `(capturing
    /// slot, captured slot)`, legal ones only.
    pub(crate) fn en_passant(&self, stm: Color, pushed: u8, over: u8) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let Some(victim) = self.slot_at(pushed) else {
            return out;
        };
        let k = self.sq[ci(stm)];
        for i in 2..self.layout.slots() {
            let p = self.layout.pieces[i];
            if p.color != stm || p.role != Role::Pawn {
                continue;
            }
            let from = self.sq[i];
            if attacks::pawn_attacks(stm, square(from)).0 & (1 << over) == 0 {
                continue;
            }
            // Legal if the king is not attacked once both pawns have moved
            // (which can open a line along the rank).
            let occ = (self.occ & !(1 << from) & !(1 << pushed)) | (1 << over);
            if self.attacks_by(!stm, occ, 1 << pushed) & (1 << k) == 0 {
                out.push((i, victim));
            }
        }
        out
    }

    /// Calls `visit(slot, from)` for each quiet move of `mover`'s that could
    /// have led to this position: a king or piece of `mover` on its square
    /// came from `from`, which is empty now and from which it reaches its
    /// square. (Whether the position before counts is the caller's check.)
    #[inline]
    pub(crate) fn retractions(&self, mover: Color, mut visit: impl FnMut(usize, u8)) {
        for i in 0..self.layout.movers {
            let p = self.layout.pieces[i];
            if p.color != mover {
                continue;
            }
            let mut t = self.att[i] & !self.occ;
            while t != 0 {
                let from = t.trailing_zeros() as u8;
                t &= t - 1;
                visit(i, from);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::material::Material;
    use rand::{Rng, SeedableRng};
    use shakmaty::{Board as SBoard, CastlingMode, Chess, FromSetup, Position, Setup};

    fn chess(layout: &Layout, sq: &Squares, turn: Color) -> Option<Chess> {
        let mut board = SBoard::empty();
        for (p, &s) in layout.pieces.iter().zip(sq.iter()) {
            board.set_piece_at(square(s), *p);
        }
        let setup = Setup {
            board,
            turn,
            ..Setup::empty()
        };
        match Chess::from_setup(setup, CastlingMode::Standard) {
            Ok(p) => Some(p),
            Err(e) => e.ignore_impossible_check().ok(),
        }
    }

    /// A random placement of `layout`'s pieces on distinct squares, pawns off
    /// the first and last ranks (legal or not: the tests sort that out).
    fn random_squares(rng: &mut impl Rng, layout: &Layout) -> [u8; 6] {
        let mut sq = [0u8; 6];
        let mut used = 0u64;
        for (i, p) in layout.pieces.iter().enumerate() {
            loop {
                let s: u8 = if p.role == Role::Pawn {
                    rng.gen_range(8..56)
                } else {
                    rng.gen_range(0..64)
                };
                if used & (1 << s) == 0 {
                    used |= 1 << s;
                    sq[i] = s;
                    break;
                }
            }
        }
        sq
    }

    /// Legal moves as shakmaty generates them, against ours, on random
    /// placements of materials with every kind of piece.
    #[test]
    fn moves_agree_with_shakmaty() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut compared = 0;
        for m in [
            "KQRvKB", "KRBvKR", "KNNvKP", "KPvKP", "KQPvKQ", "KBPvKN", "KPPvKR", "KRvKPP",
        ] {
            let layout = Layout::new(&m.parse::<Material>().unwrap());
            for _ in 0..3000 {
                let sq = random_squares(&mut rng, &layout);
                let board = Board::new(&layout, &sq);
                for turn in Color::ALL {
                    let Some(pos) = chess(&layout, &sq, turn) else {
                        assert!(
                            !board.legal_with(turn)
                                || crate::solve::geometry::kings_touch(sq[0], sq[1])
                        );
                        continue;
                    };
                    assert!(board.legal_with(turn), "{m} {sq:?}");
                    let (mut ours, mut zeroing) = (Vec::new(), Vec::new());
                    let check = board.moves(
                        turn,
                        |slot, to| ours.push((board.sq[slot], to, None)),
                        |z| zeroing.push((board.sq[z.slot], z.to, z.promotion)),
                    );
                    ours.extend(zeroing);
                    assert_eq!(check, pos.is_check());
                    let mut theirs: Vec<(u8, u8, Option<Role>)> = pos
                        .legal_moves()
                        .iter()
                        .map(|mv| (mv.from().unwrap() as u8, mv.to() as u8, mv.promotion()))
                        .collect();
                    ours.sort();
                    theirs.sort();
                    assert_eq!(ours, theirs, "{m} {sq:?} {turn:?}");
                    compared += 1;
                }
            }
        }
        assert!(compared > 20_000, "{compared}");
    }

    /// Every quiet move forward is found again as a retraction backward.
    #[test]
    fn retractions_undo_quiet_moves() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for m in ["KQRvKB", "KNNvKP", "KQPvKQ"] {
            let layout = Layout::new(&m.parse::<Material>().unwrap());
            for _ in 0..2000 {
                let sq = random_squares(&mut rng, &layout);
                let board = Board::new(&layout, &sq);
                for turn in Color::ALL {
                    let mut forward = Vec::new();
                    board.moves(turn, |slot, to| forward.push((slot, to)), |_| {});
                    for (slot, to) in forward {
                        let mut after = sq;
                        after[slot] = to;
                        let b2 = Board::new(&layout, &after);
                        let mut back = Vec::new();
                        b2.retractions(turn, |s, from| back.push((s, from)));
                        assert!(back.contains(&(slot, sq[slot])), "{m} {sq:?} {slot} {to}");
                    }
                }
            }
        }
    }
}
