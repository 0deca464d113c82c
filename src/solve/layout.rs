//! The solver's own position index: where each position of a material lives
//! in its value tables.
//!
//! Pieces have fixed *slots*: the white king, the black king, the other
//! white pieces, the other black pieces (signature order), then the white
//! pawns and the black pawns. Like pieces are told apart, as the counting
//! convention does.
//!
//! * Without pawns there is one *slice*. An entry is a canonical king pair
//!   ([`super::geometry::KingPairs`]) times six bits per other piece. When
//!   both kings stand on the a1-h8 diagonal, a placement and its mirror image
//!   in the diagonal share a king pair; the one whose other pieces give the
//!   smaller index is canonical, and the other entry is never used.
//! * With pawns the positions fall into slices, one per placement of the
//!   pawns (like pawns as a set): a move that is not a pawn move or a capture
//!   keeps the pawns where they are, so each slice is a game of its own
//!   whose exits lead to other slices and other materials. Slices are
//!   canonical under the a-h mirror (of a slice and its image the one with
//!   the smaller key is kept). Within a slice there is no symmetry: an entry
//!   is six bits per king and piece.

use shakmaty::{Color, Piece, Role};

use super::geometry::{
    self, above_diagonal, king_pairs, on_diagonal, sym, to_triangle, DIAGONAL, MIRROR,
};
use crate::chess::material::Material;

/// Most pieces the solver handles, kings included.
pub(crate) const MAX_PIECES: usize = 6;

/// Squares of a placement, one per slot.
pub(crate) type Squares = [u8; MAX_PIECES];

/// The index layout of one material (in its Syzygy orientation).
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    /// The material, normalised.
    pub(crate) material: Material,
    /// The piece of each slot.
    pub(crate) pieces: Vec<Piece>,
    /// Slots that are in the entry index: kings and pieces (`0..movers`).
    pub(crate) movers: usize,
    /// Number of white pawns (slots `movers..movers + white_pawns`).
    pub(crate) white_pawns: usize,
    /// Number of black pawns (the last slots).
    pub(crate) black_pawns: usize,
    /// Entries per slice.
    pub(crate) entries: usize,
    /// The pawn slices (one empty slice without pawns).
    pub(crate) slices: Vec<Slice>,
    /// Dense code of a pawn placement -> `2 * slice + mirrored`, or
    /// `u32::MAX` for overlapping pawns.
    slice_code: Vec<u32>,
}

/// One placement of the pawns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Slice {
    /// White pawns, ascending, then black pawns, ascending.
    pub(crate) pawns: Vec<u8>,
    /// Pawn moves made from the start: a pawn move raises it by 1 or 2, so
    /// slices are solved from the highest down.
    pub(crate) advance: u32,
    /// Whether the slice is its own mirror image (its entries then hold
    /// each position and its mirror image).
    pub(crate) self_mirror: bool,
}

/// `n choose k` for small numbers.
const fn binomial(n: usize, k: usize) -> usize {
    if k > n {
        return 0;
    }
    let mut r = 1;
    let mut i = 0;
    while i < k {
        r = r * (n - i) / (i + 1);
        i += 1;
    }
    r
}

/// Rank of an ascending set of pawn squares among all such sets
/// (combinatorial number system over the 48 pawn squares).
fn set_rank(squares: &[u8]) -> usize {
    squares
        .iter()
        .enumerate()
        .map(|(i, &s)| binomial(s as usize - 8, i + 1))
        .sum()
}

/// All ascending sets of `k` pawn squares.
fn pawn_sets(k: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    fn rec(k: usize, start: u8, cur: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for s in start..56 {
            cur.push(s);
            rec(k, s + 1, cur, out);
            cur.pop();
        }
    }
    rec(k, 8, &mut cur, &mut out);
    out
}

fn mirrored_sorted(squares: &[u8]) -> Vec<u8> {
    let mut m: Vec<u8> = squares.iter().map(|&s| sym(MIRROR, s)).collect();
    m.sort_unstable();
    m
}

impl Layout {
    /// The layout of `material` (normalised first).
    pub(crate) fn new(material: &Material) -> Layout {
        let material = material.normalized();
        let mut pieces = vec![
            Piece {
                color: Color::White,
                role: Role::King,
            },
            Piece {
                color: Color::Black,
                role: Role::King,
            },
        ];
        for color in Color::ALL {
            for role in material.side(color).roles() {
                if role != Role::King && role != Role::Pawn {
                    pieces.push(Piece { color, role });
                }
            }
        }
        let movers = pieces.len();
        let white_pawns = usize::from(material.side(Color::White).count(Role::Pawn));
        let black_pawns = usize::from(material.side(Color::Black).count(Role::Pawn));
        for (color, n) in [(Color::White, white_pawns), (Color::Black, black_pawns)] {
            for _ in 0..n {
                pieces.push(Piece {
                    color,
                    role: Role::Pawn,
                });
            }
        }
        let pawnless = white_pawns + black_pawns == 0;
        let entries = if pawnless {
            king_pairs().len() << (6 * (movers - 2))
        } else {
            1 << (6 * movers)
        };
        let mut layout = Layout {
            material,
            pieces,
            movers,
            white_pawns,
            black_pawns,
            entries,
            slices: Vec::new(),
            slice_code: Vec::new(),
        };
        if pawnless {
            layout.slices.push(Slice {
                pawns: Vec::new(),
                advance: 0,
                self_mirror: false,
            });
        } else {
            layout.build_slices();
        }
        layout
    }

    /// Whether the material has pawns.
    pub(crate) fn has_pawns(&self) -> bool {
        self.white_pawns + self.black_pawns > 0
    }

    /// Number of slots.
    pub(crate) fn slots(&self) -> usize {
        self.pieces.len()
    }

    fn build_slices(&mut self) {
        let (pw, pb) = (self.white_pawns, self.black_pawns);
        let black_sets = binomial(48, pb);
        self.slice_code = vec![u32::MAX; binomial(48, pw) * black_sets];
        let whites = pawn_sets(pw);
        let blacks = pawn_sets(pb);
        let mut pending = Vec::new();
        for w in &whites {
            for b in &blacks {
                if w.iter().any(|s| b.contains(s)) {
                    continue;
                }
                let key: Vec<u8> = w.iter().chain(b).copied().collect();
                let (mw, mb) = (mirrored_sorted(w), mirrored_sorted(b));
                let mkey: Vec<u8> = mw.iter().chain(&mb).copied().collect();
                if key <= mkey {
                    pending.push((key.clone(), mkey.clone(), w.clone(), b.clone(), mw, mb));
                }
            }
        }
        for (key, mkey, w, b, mw, mb) in pending {
            let id = self.slices.len() as u32;
            let advance = w
                .iter()
                .map(|&s| u32::from(geometry::rank(s)) - 1)
                .sum::<u32>()
                + b.iter()
                    .map(|&s| 6 - u32::from(geometry::rank(s)))
                    .sum::<u32>();
            self.slice_code[set_rank(&w) * black_sets + set_rank(&b)] = 2 * id;
            if mkey != key {
                self.slice_code[set_rank(&mw) * black_sets + set_rank(&mb)] = 2 * id + 1;
            }
            self.slices.push(Slice {
                pawns: key.clone(),
                advance,
                self_mirror: mkey == key,
            });
        }
    }

    /// The slice of a placement of the pawns (squares in the table's
    /// colours, any order), canonical under the mirror; `None` if two pawns
    /// share a square or one stands off the pawn ranks.
    pub(crate) fn slice_of(&self, white: &[u8], black: &[u8]) -> Option<usize> {
        if white.len() != self.white_pawns || black.len() != self.black_pawns {
            return None;
        }
        let (mut w, mut b) = (white.to_vec(), black.to_vec());
        w.sort_unstable();
        b.sort_unstable();
        if w.iter().chain(&b).any(|p| !(8..56).contains(p)) {
            return None;
        }
        let code = *self
            .slice_code
            .get(set_rank(&w) * binomial(48, self.black_pawns) + set_rank(&b))?;
        (code != u32::MAX).then_some((code >> 1) as usize)
    }

    /// Total entries over all slices.
    pub(crate) fn total_entries(&self) -> usize {
        self.entries * self.slices.len()
    }

    /// The squares of entry `entry` of slice `slice` (pawn squares from the
    /// slice). Overlapping and non-canonical entries decode too; see
    /// [`Layout::is_position`].
    #[inline]
    pub(crate) fn decode(&self, slice: usize, entry: usize, sq: &mut Squares) {
        let low = 6 * (self.movers - 2);
        let top = entry >> low;
        if self.has_pawns() {
            sq[0] = (top >> 6) as u8;
            sq[1] = (top & 63) as u8;
            let pawns = &self.slices[slice].pawns;
            sq[self.movers..self.movers + pawns.len()].copy_from_slice(pawns);
        } else {
            let (wk, bk) = king_pairs().squares(top);
            sq[0] = wk;
            sq[1] = bk;
        }
        for i in 2..self.movers {
            sq[i] = ((entry >> (6 * (self.movers - 1 - i))) & 63) as u8;
        }
    }

    /// The entry of the movers' squares, given the top part (king pair index
    /// or the kings' squares).
    #[inline]
    fn entry_of(&self, top: usize, sq: &Squares) -> usize {
        let mut e = top;
        for s in &sq[2..self.movers] {
            e = (e << 6) | *s as usize;
        }
        e
    }

    /// Whether an entry is a position that the index uses: no two pieces on
    /// one square, kings apart, and (without pawns) canonical.
    pub(crate) fn is_position(&self, sq: &Squares) -> bool {
        let n = self.slots();
        let mut occ = 0u64;
        for &s in &sq[..n] {
            if occ & (1 << s) != 0 {
                return false;
            }
            occ |= 1 << s;
        }
        if geometry::kings_touch(sq[0], sq[1]) {
            return false;
        }
        if self.has_pawns() {
            return true;
        }
        // Both kings on the diagonal: the placement must not be beaten by its
        // mirror image in the diagonal.
        if on_diagonal(sq[0]) && on_diagonal(sq[1]) {
            for &s in &sq[2..n] {
                let m = sym(DIAGONAL, s);
                if m != s {
                    return s < m;
                }
            }
        }
        true
    }

    /// Whether a canonical position without pawns is its own image in the
    /// a1-h8 diagonal (every piece on it): it then stands for half as many
    /// placements.
    #[inline]
    pub(crate) fn on_the_diagonal(&self, sq: &Squares) -> bool {
        !self.has_pawns() && sq[..self.slots()].iter().all(|&s| on_diagonal(s))
    }

    /// The entry, in the same slice, of `moved`: the canonical placement
    /// `sq` (entry `e`) with the piece in `slot` on another square, by a
    /// quiet move forward or back. A move of a piece other than a king keeps
    /// the king pair, and so the entry's other digits, unless both kings are
    /// on the diagonal (the canonical form then depends on the pieces); most
    /// king moves keep the pair canonical. Those moves cost a little
    /// arithmetic instead of [`Layout::locate`]; the rest are located.
    /// `None` where `locate` finds no position.
    #[inline]
    pub(crate) fn entry_after_move(
        &self,
        e: usize,
        sq: &Squares,
        moved: &Squares,
        slot: usize,
    ) -> Option<usize> {
        let pawnless = !self.has_pawns();
        if pawnless && (slot < 2 || (on_diagonal(sq[0]) && on_diagonal(sq[1]))) {
            let low_bits = 6 * (self.movers - 2);
            let pair = (slot < 2 && !(on_diagonal(moved[0]) && on_diagonal(moved[1])))
                .then(|| king_pairs().index(moved[0], moved[1]))
                .flatten();
            match pair {
                Some(kk) => Some((kk << low_bits) | (e & ((1usize << low_bits) - 1))),
                None => self.locate(moved).map(|(_, entry)| entry),
            }
        } else {
            let shift = 6 * (self.movers - 1 - slot);
            Some(e - ((sq[slot] as usize) << shift) + ((moved[slot] as usize) << shift))
        }
    }

    /// The slice and entry of any placement of this material (slots as in
    /// [`Layout::pieces`], like pieces in any order among themselves for
    /// pawns), after bringing it into canonical form. `None` if the kings
    /// touch or two pieces share a square; the caller's position is then not
    /// legal.
    pub(crate) fn locate(&self, sq: &Squares) -> Option<(usize, usize)> {
        let n = self.slots();
        if geometry::kings_touch(sq[0], sq[1]) {
            return None;
        }
        let mut s = *sq;
        if self.has_pawns() {
            let (pw, pb) = (self.white_pawns, self.black_pawns);
            let (w, b) = (self.movers, self.movers + pw);
            s[w..b].sort_unstable();
            s[b..b + pb].sort_unstable();
            if s[w..b + pb].iter().any(|&p| !(8..56).contains(&p)) {
                return None;
            }
            let code =
                self.slice_code[set_rank(&s[w..b]) * binomial(48, pb) + set_rank(&s[b..b + pb])];
            if code == u32::MAX {
                return None;
            }
            if code & 1 == 1 {
                for x in &mut s[..n] {
                    *x = sym(MIRROR, *x);
                }
            }
            let top = (s[0] as usize) << 6 | s[1] as usize;
            return Some(((code >> 1) as usize, self.entry_of(top, &s)));
        }
        let mut g = to_triangle(s[0]);
        let (wk, bk) = (sym(g, s[0]), sym(g, s[1]));
        if on_diagonal(wk) {
            if above_diagonal(bk) {
                g = geometry::compose(DIAGONAL, g);
            } else if on_diagonal(bk) {
                // Both kings on the diagonal: the smaller of the placement
                // and its diagonal image.
                let d = geometry::compose(DIAGONAL, g);
                for &x in &s[2..n] {
                    let (a, b) = (sym(g, x), sym(d, x));
                    if a != b {
                        if b < a {
                            g = d;
                        }
                        break;
                    }
                }
            }
        }
        for x in &mut s[..n] {
            *x = sym(g, *x);
        }
        let top = king_pairs().index(s[0], s[1])?;
        Some((0, self.entry_of(top, &s)))
    }

    /// The factor by which an entry of `slice` stands for placements with
    /// like pawns told apart (`white pawns! x black pawns!`), and for how
    /// many orbits of the counting convention: the factor, halved in a slice
    /// that is its own mirror image (there each orbit has both members in
    /// the slice).
    pub(crate) fn orbit_weight(&self, slice: usize) -> u64 {
        let f = (1..=self.white_pawns as u64).product::<u64>()
            * (1..=self.black_pawns as u64).product::<u64>();
        if self.slices[slice].self_mirror {
            f / 2
        } else {
            f
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(m: &str) -> Layout {
        Layout::new(&m.parse().unwrap())
    }

    #[test]
    fn entries_and_slices() {
        let l = layout("KRBvKR");
        assert_eq!(l.total_entries(), 462 * 64 * 64 * 64);
        let l = layout("KNNvKP");
        // One black pawn on 48 squares, half of them up to the mirror.
        assert_eq!(l.slices.len(), 24);
        assert_eq!(l.entries, 1 << 24);
        let l = layout("KPvKP");
        // Pawn pairs on distinct squares: 48 * 47, none their own mirror
        // image (a pawn on each side), so half are canonical.
        assert_eq!(l.slices.len(), 48 * 47 / 2);
        let l = layout("KPPvK");
        // Unordered pairs: 48 * 47 / 2 = 1128; the mirror keeps ranks, so a
        // pair is its own image when it stands on one rank on mirror files
        // (a-h, b-g, c-f, d-e): 4 x 6 = 24.
        let symmetric = l.slices.iter().filter(|s| s.self_mirror).count();
        assert_eq!(symmetric, 24);
        assert_eq!(l.slices.len(), (1128 - 24) / 2 + 24);
    }

    #[test]
    fn locate_inverts_decode() {
        for m in ["KRBvKR", "KNNvKP", "KPvKP", "KQvK", "KBBvKN"] {
            let l = layout(m);
            let mut sq = [0u8; MAX_PIECES];
            let step = l.total_entries() / 20_011 + 1;
            let mut checked = 0;
            for i in (0..l.total_entries()).step_by(step) {
                let (slice, entry) = (i / l.entries, i % l.entries);
                l.decode(slice, entry, &mut sq);
                if !l.is_position(&sq) {
                    continue;
                }
                assert_eq!(l.locate(&sq), Some((slice, entry)), "{m} {sq:?}");
                // Every symmetric image locates to the same entry (in a slice
                // that is its own mirror image, both members are entries).
                let gs: &[usize] = if !l.has_pawns() {
                    &[1, 2, 3, 4, 5, 6, 7]
                } else if l.slices[slice].self_mirror {
                    &[]
                } else {
                    &[MIRROR]
                };
                for &g in gs {
                    let mut img = sq;
                    for x in &mut img[..l.slots()] {
                        *x = sym(g, *x);
                    }
                    assert_eq!(l.locate(&img), Some((slice, entry)), "{m} {sq:?} g={g}");
                }
                checked += 1;
            }
            assert!(checked > 1000, "{m}: {checked}");
        }
    }

    /// The entry a quiet move leads to, by the arithmetic shortcut, is the
    /// moved placement's own: it decodes to a placement that `locate` puts
    /// where it puts the moved one (every king and piece move of every
    /// sampled position, kings on the diagonal included).
    #[test]
    fn entry_after_move_agrees_with_locate() {
        use shakmaty::Color;
        for m in ["KRBvKR", "KNNvKP", "KPvKP", "KQvK", "KBBvKN", "KQPvKQ"] {
            let l = layout(m);
            let mut sq = [0u8; MAX_PIECES];
            let mut back = [0u8; MAX_PIECES];
            let step = l.total_entries() / 5_003 + 1;
            let mut moves = 0;
            for i in (0..l.total_entries()).step_by(step) {
                let (slice, entry) = (i / l.entries, i % l.entries);
                l.decode(slice, entry, &mut sq);
                if !l.is_position(&sq) {
                    continue;
                }
                let board = super::super::board::Board::new(&l, &sq);
                for stm in Color::ALL {
                    board.moves(
                        stm,
                        |slot, to| {
                            let mut moved = sq;
                            moved[slot] = to;
                            let Some(e) = l.entry_after_move(entry, &sq, &moved, slot) else {
                                panic!("{m} {sq:?}: no entry after {slot} to {to}");
                            };
                            l.decode(slice, e, &mut back);
                            assert_eq!(
                                l.locate(&back),
                                l.locate(&moved),
                                "{m} {sq:?}: slot {slot} to {to}"
                            );
                            moves += 1;
                        },
                        |_| {},
                    );
                }
            }
            assert!(moves > 10_000, "{m}: {moves}");
        }
    }
}
