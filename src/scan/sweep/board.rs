//! A minimal position for the sweep: up to seven pieces on squares, legal
//! move generation without castling, and en passant only where asked for.
//! Much cheaper than building a `shakmaty::Chess` per index.

use shakmaty::{attacks, Bitboard, Color, Piece, Role, Square};

use crate::tables::reader::{cidx, MAX};

/// No piece index.
pub(crate) const NONE: u8 = u8::MAX;

/// Pieces and their squares (`a1 = 0`), in some fixed slot order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pos {
    /// Piece of each slot.
    pub(crate) pc: [Piece; MAX],
    /// Square of each slot.
    pub(crate) sq: [u8; MAX],
    /// Number of slots in use.
    pub(crate) n: usize,
}

/// Which moves to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Every legal move.
    All,
    /// Moves that keep the clock running: no capture, no pawn move.
    Quiet,
    /// Captures only (promotions with capture included).
    Captures,
    /// Pawn moves that capture nothing (promotions included).
    Pushes,
    /// King moves (captures included).
    King,
}

/// A legal move.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mv {
    /// Slot of the moving piece.
    pub(crate) i: u8,
    /// Destination square.
    pub(crate) to: u8,
    /// Slot of the captured piece, or [`NONE`].
    pub(crate) cap: u8,
    /// Promotion role.
    pub(crate) promo: Option<Role>,
    /// A pawn double step: the square it passed over.
    pub(crate) ep: Option<u8>,
}

/// Calls `f` with the move of slot `i` to `to`, capturing slot `cap`: the
/// four promotions (queen first) where it `promotes`, else the move itself,
/// with `ep` the square a double step passed over. Both move generators
/// emit through it, so that they give the same moves in the same order.
#[inline]
fn emit_move(i: usize, to: u8, cap: u8, promotes: bool, ep: Option<u8>, f: &mut impl FnMut(Mv)) {
    let i = i as u8;
    if promotes {
        for r in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
            f(Mv {
                i,
                to,
                cap,
                promo: Some(r),
                ep: None,
            });
        }
    } else {
        f(Mv {
            i,
            to,
            cap,
            promo: None,
            ep,
        });
    }
}

/// The squares piece `p` on `from` attacks, with occupancy `occ` (inlined
/// here for the sweep's inner loops).
#[inline]
fn piece_attacks(p: Piece, from: Square, occ: Bitboard) -> Bitboard {
    match p.role {
        Role::Pawn => attacks::pawn_attacks(p.color, from),
        Role::Knight => attacks::knight_attacks(from),
        Role::Bishop => attacks::bishop_attacks(from, occ),
        Role::Rook => attacks::rook_attacks(from, occ),
        Role::Queen => attacks::queen_attacks(from, occ),
        Role::King => attacks::king_attacks(from),
    }
}

#[inline]
fn sq(s: u8) -> Square {
    Square::new(u32::from(s))
}

impl Pos {
    /// A position from pieces and squares.
    pub(crate) fn new(pieces: &[Piece], squares: &[u8]) -> Pos {
        let mut pos = Pos {
            pc: [Color::White.king(); MAX],
            sq: [0; MAX],
            n: pieces.len(),
        };
        pos.pc[..pieces.len()].copy_from_slice(pieces);
        pos.sq[..pieces.len()].copy_from_slice(&squares[..pieces.len()]);
        pos
    }

    /// The pieces with their squares.
    pub(crate) fn pairs(&self) -> impl Iterator<Item = (Piece, u8)> + '_ {
        self.pc[..self.n]
            .iter()
            .copied()
            .zip(self.sq[..self.n].iter().copied())
    }

    /// Pairs in a fixed-size array (for table lookups).
    pub(crate) fn pair_array(&self) -> ([(Piece, u8); MAX], usize) {
        let mut out = [(Color::White.king(), 0u8); MAX];
        for (o, p) in out.iter_mut().zip(self.pairs()) {
            *o = p;
        }
        (out, self.n)
    }

    /// All occupied squares.
    #[inline]
    pub(crate) fn occupied(&self) -> Bitboard {
        let mut b = 0u64;
        for &s in &self.sq[..self.n] {
            b |= 1 << s;
        }
        Bitboard(b)
    }

    /// The squares of one colour.
    #[inline]
    pub(crate) fn color_bb(&self, c: Color) -> Bitboard {
        let mut b = 0u64;
        for k in 0..self.n {
            if self.pc[k].color == c {
                b |= 1 << self.sq[k];
            }
        }
        Bitboard(b)
    }

    /// Square of the king of `c`.
    #[inline]
    pub(crate) fn king(&self, c: Color) -> u8 {
        let k = c.king();
        for i in 0..self.n {
            if self.pc[i] == k {
                return self.sq[i];
            }
        }
        unreachable!("every position has both kings")
    }

    /// Whether `target` is attacked by a piece of `by` (slot `skip`
    /// excluded: a piece just captured), with occupancy `occ`.
    #[inline]
    pub(crate) fn attacked(&self, target: u8, by: Color, occ: Bitboard, skip: u8) -> bool {
        let t = sq(target);
        for k in 0..self.n {
            let p = self.pc[k];
            if p.color != by || k as u8 == skip {
                continue;
            }
            if piece_attacks(p, sq(self.sq[k]), occ).contains(t) {
                return true;
            }
        }
        false
    }

    /// The slot of the piece on `s`, or [`NONE`].
    #[inline]
    fn slot_at(&self, s: u8) -> u8 {
        for k in 0..self.n {
            if self.sq[k] == s {
                return k as u8;
            }
        }
        NONE
    }

    /// The squares the pieces of `by` attack, with occupancy `occ`.
    #[inline]
    fn attacks_of(&self, by: Color, occ: Bitboard) -> u64 {
        let mut all = 0u64;
        for k in 0..self.n {
            let p = self.pc[k];
            if p.color != by {
                continue;
            }
            all |= piece_attacks(p, sq(self.sq[k]), occ).0;
        }
        all
    }

    /// Whether a pseudo-legal move leaves the mover's king safe.
    #[inline]
    fn safe(&self, turn: Color, i: usize, to: u8, cap: u8, occ: Bitboard) -> bool {
        let from = self.sq[i];
        let occ = Bitboard((occ.0 & !(1u64 << from)) | (1u64 << to));
        let ksq = if self.pc[i].role == Role::King {
            to
        } else {
            self.king(turn)
        };
        !self.attacked(ksq, !turn, occ, cap)
    }

    /// Calls `f` for every legal move of `turn` of the given kind (no en
    /// passant: see [`Pos::ep_captures`]).
    #[inline]
    pub(crate) fn for_each_move(&self, turn: Color, kind: Kind, mut f: impl FnMut(Mv)) {
        let occ = self.occupied();
        let own = self.color_bb(turn);
        let theirs = Bitboard(occ.0 & !own.0);
        let check = Check::new(self, turn);
        for i in 0..self.n {
            let p = self.pc[i];
            if p.color != turn {
                continue;
            }
            if kind == Kind::King && p.role != Role::King {
                continue;
            }
            let from = self.sq[i];
            if p.role == Role::Pawn {
                if kind != Kind::Quiet {
                    self.pawn_moves(turn, i, occ, theirs, kind, &check, &mut f);
                }
                continue;
            }
            if kind == Kind::Pushes {
                continue;
            }
            let s = sq(from);
            let targets = match p.role {
                Role::Knight => attacks::knight_attacks(s),
                Role::Bishop => attacks::bishop_attacks(s, occ),
                Role::Rook => attacks::rook_attacks(s, occ),
                Role::Queen => attacks::queen_attacks(s, occ),
                Role::King => attacks::king_attacks(s),
                Role::Pawn => unreachable!(),
            };
            let mut t = targets.0 & !own.0;
            match kind {
                Kind::Quiet => t &= !theirs.0,
                Kind::Captures => t &= theirs.0,
                Kind::All | Kind::Pushes | Kind::King => {}
            }
            while t != 0 {
                let to = t.trailing_zeros() as u8;
                t &= t - 1;
                let cap = if theirs.0 & (1 << to) != 0 {
                    self.slot_at(to)
                } else {
                    NONE
                };
                if check.safe(self, turn, i, to, cap, occ) {
                    f(Mv {
                        i: i as u8,
                        to,
                        cap,
                        promo: None,
                        ep: None,
                    });
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn pawn_moves(
        &self,
        turn: Color,
        i: usize,
        occ: Bitboard,
        theirs: Bitboard,
        kind: Kind,
        check: &Check,
        f: &mut impl FnMut(Mv),
    ) {
        let from = self.sq[i];
        let (step, start_rank, last_rank): (i8, u8, u8) = match turn {
            Color::White => (8, 1, 7),
            Color::Black => (-8, 6, 0),
        };
        let mut emit = |to: u8, cap: u8, ep: Option<u8>| {
            if !check.safe(self, turn, i, to, cap, occ) {
                return;
            }
            emit_move(i, to, cap, to >> 3 == last_rank, ep, f);
        };
        let one = (from as i8 + step) as u8;
        if kind != Kind::Captures && !occ.contains(sq(one)) {
            emit(one, NONE, None);
            if from >> 3 == start_rank {
                let two = (one as i8 + step) as u8;
                if !occ.contains(sq(two)) {
                    emit(two, NONE, Some(one));
                }
            }
        }
        if kind == Kind::Pushes {
            return;
        }
        let mut t = attacks::pawn_attacks(turn, sq(from)).0 & theirs.0;
        while t != 0 {
            let to = t.trailing_zeros() as u8;
            t &= t - 1;
            emit(to, self.slot_at(to), None);
        }
    }

    /// Whether `turn` has a legal move.
    pub(crate) fn has_move(&self, turn: Color) -> bool {
        // Most positions that ask are in check, and the king can usually
        // step away: try its moves before generating every move.
        let mut any = false;
        self.for_each_move(turn, Kind::King, |_| any = true);
        if !any {
            self.for_each_move(turn, Kind::All, |_| any = true);
        }
        any
    }

    /// The legal en passant captures of `turn` onto `ep` (the square a
    /// pawn of the other side just passed over).
    pub(crate) fn ep_captures(&self, turn: Color, ep: u8, mut f: impl FnMut(Mv)) {
        let occ = self.occupied();
        let victim_sq = match turn {
            Color::White => ep - 8,
            Color::Black => ep + 8,
        };
        let victim = self.slot_at(victim_sq);
        if victim == NONE {
            return;
        }
        let pawn = turn.pawn();
        for i in 0..self.n {
            if self.pc[i] != pawn || !attacks::pawn_attacks(turn, sq(self.sq[i])).contains(sq(ep)) {
                continue;
            }
            // The captured pawn leaves its square as well.
            let occ2 = Bitboard(occ.0 & !(1u64 << victim_sq));
            if self.safe(turn, i, ep, victim, occ2) {
                f(Mv {
                    i: i as u8,
                    to: ep,
                    cap: victim,
                    promo: None,
                    ep: None,
                });
            }
        }
    }

    /// The position after a move (a captured piece's slot is removed, the
    /// others keep their order).
    #[inline]
    pub(crate) fn after(&self, m: Mv) -> Pos {
        let mut p = *self;
        let i = usize::from(m.i);
        p.sq[i] = m.to;
        if let Some(r) = m.promo {
            p.pc[i].role = r;
        }
        if m.cap != NONE {
            let c = usize::from(m.cap);
            for k in c..p.n - 1 {
                p.pc[k] = p.pc[k + 1];
                p.sq[k] = p.sq[k + 1];
            }
            p.n -= 1;
        }
        p
    }

    /// The same position with colours swapped and the board mirrored
    /// vertically.
    pub(crate) fn color_flipped(&self) -> Pos {
        let mut p = *self;
        for k in 0..p.n {
            p.pc[k].color = !p.pc[k].color;
            p.sq[k] ^= 56;
        }
        p
    }
}

/// The attacks of every piece of one placement, computed once: pass 1
/// asks every placement for the legality of both sides to move, their
/// checks and their captures, which all read the same attack sets (asked
/// one by one, each recomputed them).
pub(crate) struct Attacks {
    occ: u64,
    /// Squares of each colour's pieces (White, Black).
    by: [u64; 2],
    /// Squares each colour attacks.
    union: [u64; 2],
    /// Squares each slot attacks (a pawn: the squares it captures on).
    att: [u64; MAX],
    /// Each colour's king square.
    king: [u8; 2],
}

impl Pos {
    /// The attacks of every piece.
    #[inline]
    pub(crate) fn attacks(&self) -> Attacks {
        let occ = self.occupied();
        let mut a = Attacks {
            occ: occ.0,
            by: [0; 2],
            union: [0; 2],
            att: [0; MAX],
            king: [0; 2],
        };
        for k in 0..self.n {
            let p = self.pc[k];
            let c = cidx(p.color);
            let from = sq(self.sq[k]);
            a.by[c] |= 1 << self.sq[k];
            let hit = match p.role {
                Role::Pawn => attacks::pawn_attacks(p.color, from),
                Role::Knight => attacks::knight_attacks(from),
                Role::Bishop => attacks::bishop_attacks(from, occ),
                Role::Rook => attacks::rook_attacks(from, occ),
                Role::Queen => attacks::queen_attacks(from, occ),
                Role::King => {
                    a.king[c] = self.sq[k];
                    attacks::king_attacks(from)
                }
            };
            a.att[k] = hit.0;
            a.union[c] |= hit.0;
        }
        a
    }
}

impl Attacks {
    /// Whether the placement counts with `turn` to move: the side not to
    /// move is not in check.
    #[inline]
    pub(crate) fn legal(&self, turn: Color) -> bool {
        self.union[cidx(turn)] & (1 << self.king[cidx(!turn)]) == 0
    }

    /// Whether `turn` is in check.
    #[inline]
    pub(crate) fn in_check(&self, turn: Color) -> bool {
        self.union[cidx(!turn)] & (1 << self.king[cidx(turn)]) != 0
    }

    /// [`Pos::for_each_move`] with [`Kind::Captures`]: the same moves in
    /// the same order.
    #[inline]
    pub(crate) fn for_each_capture(&self, pos: &Pos, turn: Color, mut f: impl FnMut(Mv)) {
        let theirs = self.by[cidx(!turn)];
        let king = self.king[cidx(turn)];
        let checked = self.in_check(turn);
        let lines = attacks::queen_attacks(sq(king), Bitboard(0)).0;
        let last_rank = match turn {
            Color::White => 7,
            Color::Black => 0,
        };
        for i in 0..pos.n {
            let p = pos.pc[i];
            if p.color != turn {
                continue;
            }
            let mut t = self.att[i] & theirs;
            // As `Check::safe`: a piece off the lines through an unchecked
            // king cannot expose it.
            let free = p.role != Role::King && !checked && lines & (1 << pos.sq[i]) == 0;
            while t != 0 {
                let to = t.trailing_zeros() as u8;
                t &= t - 1;
                let cap = pos.slot_at(to);
                if !free && !pos.safe(turn, i, to, cap, Bitboard(self.occ)) {
                    continue;
                }
                let promotes = p.role == Role::Pawn && to >> 3 == last_rank;
                emit_move(i, to, cap, promotes, None, &mut f);
            }
        }
    }
}

/// What a move generator knows about its own king, to skip most king
/// safety tests: a piece other than the king that does not stand on a
/// line through an unchecked king cannot expose it (no en passant here,
/// which removes a second piece).
struct Check {
    /// The king's square.
    king: u8,
    /// Whether the king is in check, once asked (0 no, 1 yes, 2 unknown):
    /// most calls generate few moves, so the test waits for the first.
    checked: std::cell::Cell<u8>,
    /// Squares on a rank, file or diagonal through the king.
    lines: u64,
    /// The squares the other side attacks with the king off the board,
    /// once asked: a king move that captures nothing is safe exactly when
    /// it ends off them (the square it ends on blocks no line to itself).
    danger: std::cell::Cell<Option<u64>>,
}

impl Check {
    #[inline]
    fn new(pos: &Pos, turn: Color) -> Check {
        let king = pos.king(turn);
        Check {
            king,
            checked: std::cell::Cell::new(2),
            lines: attacks::queen_attacks(sq(king), Bitboard(0)).0,
            danger: std::cell::Cell::new(None),
        }
    }

    /// Whether a pseudo-legal move of slot `i` leaves the king safe.
    #[inline]
    fn safe(&self, pos: &Pos, turn: Color, i: usize, to: u8, cap: u8, occ: Bitboard) -> bool {
        if pos.pc[i].role == Role::King && cap == NONE {
            let danger = self.danger.get().unwrap_or_else(|| {
                let d = pos.attacks_of(!turn, Bitboard(occ.0 & !(1u64 << self.king)));
                self.danger.set(Some(d));
                d
            });
            return danger & (1u64 << to) == 0;
        }
        if pos.pc[i].role != Role::King && self.lines & (1u64 << pos.sq[i]) == 0 {
            let mut checked = self.checked.get();
            if checked == 2 {
                checked = u8::from(pos.attacked(self.king, !turn, occ, NONE));
                self.checked.set(checked);
            }
            if checked == 0 {
                return true;
            }
        }
        pos.safe(turn, i, to, cap, occ)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Calls `f` with `count` pseudo-random placements of `pieces`
    /// (distinct squares; no pawn on the first or last rank), from `seed`.
    fn random_placements(pieces: &[Piece], count: usize, seed: &mut u64, mut f: impl FnMut(Pos)) {
        let mut next = || {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            *seed
        };
        for _ in 0..count {
            let mut squares = [0u8; MAX];
            let mut occ = 0u64;
            for (k, p) in pieces.iter().enumerate() {
                loop {
                    let s = (next() % 64) as u8;
                    let edge = !(8..56).contains(&s);
                    if occ & (1 << s) == 0 && !(p.role == Role::Pawn && edge) {
                        squares[k] = s;
                        occ |= 1 << s;
                        break;
                    }
                }
            }
            f(Pos::new(pieces, &squares));
        }
    }

    /// Materials with every kind of piece: pins, checks, promotions with
    /// and without capture.
    fn materials() -> Vec<Vec<Piece>> {
        let (w, b) = (Color::White, Color::Black);
        vec![
            vec![
                w.king(),
                w.queen(),
                w.rook(),
                b.king(),
                b.rook(),
                b.bishop(),
            ],
            vec![w.king(), w.knight(), w.knight(), b.king(), b.pawn()],
            vec![
                w.king(),
                w.pawn(),
                w.pawn(),
                b.king(),
                b.queen(),
                b.knight(),
            ],
            vec![
                w.king(),
                w.bishop(),
                w.pawn(),
                b.king(),
                b.pawn(),
                b.rook(),
                b.knight(),
            ],
            vec![w.king(), w.rook(), b.king(), b.rook()],
        ]
    }

    /// The attack sets computed once agree with the one-by-one tests and
    /// the general move generator: legality and check of both sides,
    /// and the same captures in the same order, on pseudo-random
    /// placements of materials with every kind of piece (pins, checks,
    /// promotions with capture among them).
    #[test]
    fn attacks_agree_with_the_move_generator() {
        let (w, b) = (Color::White, Color::Black);
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let (mut legal_seen, mut captures_seen, mut promotions_seen) = (0, 0, 0);
        for pieces in &materials() {
            random_placements(pieces, 20_000, &mut seed, |pos| {
                let att = pos.attacks();
                for turn in [w, b] {
                    let king_attacked =
                        |c: Color| pos.attacked(pos.king(c), !c, pos.occupied(), NONE);
                    assert_eq!(att.legal(turn), !king_attacked(!turn), "{pos:?} {turn:?}");
                    assert_eq!(att.in_check(turn), king_attacked(turn), "{pos:?} {turn:?}");
                    if !att.legal(turn) {
                        continue;
                    }
                    legal_seen += 1;
                    let key = |m: Mv| (m.i, m.to, m.cap, m.promo, m.ep);
                    let mut general = Vec::new();
                    pos.for_each_move(turn, Kind::Captures, |m| general.push(key(m)));
                    let mut fused = Vec::new();
                    att.for_each_capture(&pos, turn, |m| fused.push(key(m)));
                    assert_eq!(fused, general, "{pos:?} {turn:?}");
                    captures_seen += fused.len();
                    promotions_seen += fused.iter().filter(|m| m.3.is_some()).count();
                }
            });
        }
        assert!(legal_seen > 100_000 && captures_seen > 50_000 && promotions_seen > 100);
    }

    /// Every legal move, as shakmaty generates them, on pseudo-random
    /// placements (no castling; no en passant square), and the quiet
    /// moves are those that neither capture nor move a pawn.
    #[test]
    fn moves_agree_with_shakmaty() {
        use shakmaty::{Board, CastlingMode, Chess, FromSetup, Position, PositionError, Setup};
        let (w, b) = (Color::White, Color::Black);
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let (mut positions, mut king_moves) = (0, 0);
        for pieces in &materials() {
            random_placements(pieces, 5_000, &mut seed, |pos| {
                for turn in [w, b] {
                    if !pos.attacks().legal(turn) {
                        continue;
                    }
                    let mut board = Board::empty();
                    for (p, s) in pos.pairs() {
                        board.set_piece_at(sq(s), p);
                    }
                    let mut setup = Setup::empty();
                    setup.board = board;
                    setup.turn = turn;
                    let chess = Chess::from_setup(setup, CastlingMode::Standard)
                        .or_else(PositionError::ignore_impossible_check)
                        .expect("a legal placement");
                    let mut theirs: Vec<(u8, u8, Option<Role>)> = chess
                        .legal_moves()
                        .iter()
                        .map(|m| {
                            let from = m.from().expect("no drops");
                            (u8::from(from), u8::from(m.to()), m.promotion())
                        })
                        .collect();
                    let mut mine = Vec::new();
                    pos.for_each_move(turn, Kind::All, |m| {
                        mine.push((pos.sq[usize::from(m.i)], m.to, m.promo));
                    });
                    theirs.sort();
                    mine.sort();
                    assert_eq!(mine, theirs, "{pos:?} {turn:?}");
                    let mut quiet = Vec::new();
                    pos.for_each_move(turn, Kind::Quiet, |m| {
                        quiet.push((pos.sq[usize::from(m.i)], m.to, m.promo));
                    });
                    quiet.sort();
                    let expected: Vec<_> = chess
                        .legal_moves()
                        .iter()
                        .filter(|m| !m.is_zeroing())
                        .map(|m| (u8::from(m.from().unwrap()), u8::from(m.to()), None))
                        .collect::<std::collections::BTreeSet<_>>()
                        .into_iter()
                        .collect();
                    assert_eq!(quiet, expected, "{pos:?} {turn:?}");
                    positions += 1;
                    king_moves += chess
                        .legal_moves()
                        .iter()
                        .filter(|m| m.role() == Role::King)
                        .count();
                }
            });
        }
        assert!(
            positions > 20_000 && king_moves > 50_000,
            "{positions} {king_moves}"
        );
    }
}
