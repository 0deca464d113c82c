//! The solver's own position index: where each position of a material lives
//! in its value tables.
//!
//! Pieces have fixed *slots*: the white king, the black king, the other
//! white pieces, the other black pieces (signature order), then the white
//! pawns and the black pawns.
//!
//! * Without pawns there is one *slice*. An entry is a canonical king pair
//!   ([`super::geometry::KingPairs`]) times one digit per *group* of like
//!   pieces: a lone piece is one of 64 squares; two or more like pieces
//!   are one set of squares, its rank among the `C(64, k)` sets (the
//!   combinatorial number system). Merging like pieces halves the entries
//!   per pair of them (KNN v KNN: 462 x 2016 x 2016 = 1.88 G entries, not
//!   7.75 G), which is what brings six pieces into memory; a set of squares
//!   also never holds two like pieces on one square. The counts still tell
//!   like pieces apart, as the counting convention does (see
//!   [`Layout::orbit_counts`]). When both kings stand on the a1-h8
//!   diagonal, a placement and its mirror image in the diagonal share a
//!   king pair; the one whose other pieces give the smaller index is
//!   canonical, and the other entry is never used.
//! * With pawns the positions fall into slices, one per placement of the
//!   pawns (like pawns as a set): a move that is not a pawn move or a capture
//!   keeps the pawns where they are, so each slice is a game of its own
//!   whose exits lead to other slices and other materials. Slices are
//!   canonical under the a-h mirror (of a slice and its image the one with
//!   the smaller key is kept). Within a slice there is no symmetry: an entry
//!   is the kings' squares (six bits each) times one digit per group, like
//!   pieces as sets as above (KNNN v KP's slices hold 64 x 64 x 41,664 =
//!   171 M entries, not 64^5 = 1.07 G); without like pieces, six bits per
//!   king and piece.

use std::sync::OnceLock;

use shakmaty::{Color, Piece, Role};

use super::geometry::{
    self, above_diagonal, king_pairs, on_diagonal, sym, to_triangle, ANTI_DIAGONAL, DIAGONAL,
    MIRROR,
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
    /// Whether like pieces are merged into sets (when two pieces other
    /// than pawns are alike); otherwise an entry is six bits per slot.
    merged: bool,
    /// With `merged`: the groups of slots from 2 on, most significant
    /// digit first.
    groups: Vec<Group>,
    /// With `merged`: each slot's group (kings: none).
    group_of: [u8; MAX_PIECES],
    /// With `merged`: entries per king pair (the product of the groups'
    /// radices).
    inner: usize,
    /// See [`Layout::like_factorial`]; kept, since the counting asks for
    /// it once per entry.
    like_factorial: u64,
}

/// Slots of like pieces (or one piece) indexed as one digit: the rank of
/// their set of squares.
#[derive(Clone, Copy, Debug)]
struct Group {
    /// The first slot.
    first: usize,
    /// How many slots (like pieces).
    len: usize,
    /// The digit's place value in an entry.
    stride: usize,
}

/// Most like pieces of one group: six pieces, two of them kings.
const MAX_GROUP: usize = MAX_PIECES - 2;

/// `C(n, k)` for `n <= 64`, `k <= MAX_GROUP`, from a table (the ranks of
/// sets are computed on every move).
#[inline]
fn choose(n: u8, k: usize) -> usize {
    static TABLE: OnceLock<[[u32; MAX_GROUP + 1]; 65]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [[0u32; MAX_GROUP + 1]; 65];
        for (n, row) in t.iter_mut().enumerate() {
            for (k, c) in row.iter_mut().enumerate() {
                *c = binomial(n, k) as u32;
            }
        }
        t
    })[n as usize][k] as usize
}

/// The rank of an ascending set of squares among all sets of its size
/// (combinatorial number system: `sum C(s_i, i + 1)`).
#[inline]
fn set_index(squares: &[u8]) -> usize {
    squares
        .iter()
        .enumerate()
        .map(|(i, &s)| choose(s, i + 1))
        .sum()
}

/// Every ascending set of `k` squares (`2 <= k <= MAX_GROUP`), at its
/// [`set_index`].
fn sets_of(k: usize) -> &'static [[u8; MAX_GROUP]] {
    static SETS: OnceLock<Vec<Vec<[u8; MAX_GROUP]>>> = OnceLock::new();
    &SETS.get_or_init(|| {
        (0..=MAX_GROUP)
            .map(|k| {
                if k < 2 {
                    return Vec::new();
                }
                let mut all = vec![[0u8; MAX_GROUP]; binomial(64, k)];
                let mut cur = [0u8; MAX_GROUP];
                fn rec(
                    k: usize,
                    i: usize,
                    start: u8,
                    cur: &mut [u8; MAX_GROUP],
                    all: &mut [[u8; MAX_GROUP]],
                ) {
                    if i == k {
                        all[set_index(&cur[..k])] = *cur;
                        return;
                    }
                    for s in start..64 {
                        cur[i] = s;
                        rec(k, i + 1, s + 1, cur, all);
                    }
                }
                rec(k, 0, 0, &mut cur, &mut all);
                all
            })
            .collect()
    })[k]
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
        let merged = (3..movers).any(|i| pieces[i] == pieces[i - 1]);
        let mut groups = Vec::new();
        let mut group_of = [u8::MAX; MAX_PIECES];
        let mut inner = 1;
        if merged {
            let mut first = 2;
            while first < movers {
                let len = (first..movers)
                    .take_while(|&i| pieces[i] == pieces[first])
                    .count();
                groups.push(Group {
                    first,
                    len,
                    stride: 0,
                });
                first += len;
            }
            for (g, group) in groups.iter_mut().enumerate().rev() {
                group.stride = inner;
                inner *= binomial(64, group.len);
                group_of[group.first..group.first + group.len].fill(g as u8);
            }
        }
        let like_factorial = groups
            .iter()
            .map(|g| (1..=g.len as u64).product::<u64>())
            .product();
        let entries = if merged && pawnless {
            king_pairs().len() * inner
        } else if merged {
            64 * 64 * inner
        } else if pawnless {
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
            merged,
            groups,
            group_of,
            inner,
            like_factorial,
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

    /// The white and the black pawns' squares of slice `slice` (the
    /// canonical one of a slice and its mirror image), ascending.
    pub(crate) fn slice_pawns(&self, slice: usize) -> (Vec<u8>, Vec<u8>) {
        let pawns = &self.slices[slice].pawns;
        let (white, black) = pawns.split_at(self.white_pawns);
        (white.to_vec(), black.to_vec())
    }

    /// Total entries over all slices.
    pub(crate) fn total_entries(&self) -> usize {
        self.entries * self.slices.len()
    }

    /// Places the kings of an entry's top part `top` (the kings' squares
    /// with pawns, else the king pair's index), and the pawns of `slice`.
    #[inline]
    fn place_top(&self, slice: usize, top: usize, sq: &mut Squares) {
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
    }

    /// The squares of entry `entry` of slice `slice` (pawn squares from the
    /// slice). Overlapping and non-canonical entries decode too; see
    /// [`Layout::is_position`].
    #[inline]
    pub(crate) fn decode(&self, slice: usize, entry: usize, sq: &mut Squares) {
        if self.merged {
            self.place_top(slice, entry / self.inner, sq);
            let mut rest = entry % self.inner;
            for g in &self.groups {
                let digit = rest / g.stride;
                rest -= digit * g.stride;
                if g.len == 1 {
                    sq[g.first] = digit as u8;
                } else {
                    sq[g.first..g.first + g.len].copy_from_slice(&sets_of(g.len)[digit][..g.len]);
                }
            }
            return;
        }
        let low = 6 * (self.movers - 2);
        self.place_top(slice, entry >> low, sq);
        for i in 2..self.movers {
            sq[i] = ((entry >> (6 * (self.movers - 1 - i))) & 63) as u8;
        }
    }

    /// The entry of the movers' squares, given the top part (king pair index
    /// or the kings' squares).
    #[inline]
    fn entry_of(&self, top: usize, sq: &Squares) -> usize {
        if self.merged {
            return top * self.inner + self.low_of(sq);
        }
        let mut e = top;
        for s in &sq[2..self.movers] {
            e = (e << 6) | *s as usize;
        }
        e
    }

    /// With `merged`: the digit of group `g` in a placement whose like
    /// pieces stand in any order.
    #[inline]
    fn digit(&self, g: &Group, sq: &Squares) -> usize {
        match g.len {
            1 => sq[g.first] as usize,
            2 => {
                let (a, b) = (sq[g.first], sq[g.first + 1]);
                set_index(&[a.min(b), a.max(b)])
            }
            len => {
                let mut set = [0u8; MAX_GROUP];
                set[..len].copy_from_slice(&sq[g.first..g.first + len]);
                set[..len].sort_unstable();
                set_index(&set[..len])
            }
        }
    }

    /// With `merged`: the entry's part below the king pair.
    #[inline]
    fn low_of(&self, sq: &Squares) -> usize {
        self.groups
            .iter()
            .map(|g| self.digit(g, sq) * g.stride)
            .sum()
    }

    /// How many placements with like pieces told apart one entry stands
    /// for: the product of the factorials of the groups' sizes (1 unless
    /// `merged`).
    #[inline]
    pub(crate) fn like_factorial(&self) -> u64 {
        self.like_factorial
    }

    /// With `merged`: [`Layout::low_of`] of the placement `sq` with every
    /// piece but the kings moved by the symmetry `g` (the kings are the
    /// caller's to check or place).
    #[inline]
    fn low_of_image(&self, sq: &Squares, g: usize) -> usize {
        let mut image = *sq;
        for x in &mut image[2..self.slots()] {
            *x = sym(g, *x);
        }
        self.low_of(&image)
    }

    /// The size of the stabiliser of a placement without pawns (like
    /// pieces as sets) among the board's symmetries: 2 when the reflection
    /// in a long diagonal keeps the kings where they are and each group of
    /// like pieces on its own squares (two knights may swap: b1 and a2),
    /// else 1.
    #[inline]
    pub(crate) fn stabiliser(&self, sq: &Squares) -> u16 {
        // Either reflection fixes a placement only if it fixes the pieces
        // of the first two slots, which needs both on its line of squares.
        // Most placements fail that, and the retractions ask for every
        // predecessor's stabiliser: a call out of line cost the DTR solve
        // 7% of its time (KQRvKQ, perf).
        let on_anti_diagonal = |s: u8| geometry::file(s) + geometry::rank(s) == 7;
        let (a, b) = (sq[0], sq[1]);
        let fixed_pair =
            (on_diagonal(a) && on_diagonal(b)) || (on_anti_diagonal(a) && on_anti_diagonal(b));
        if !fixed_pair {
            return 1;
        }
        self.stabiliser_of_fixed_pair(sq)
    }

    /// [`Layout::stabiliser`] of a placement whose first two slots are on
    /// one of the long diagonals.
    #[inline(never)]
    fn stabiliser_of_fixed_pair(&self, sq: &Squares) -> u16 {
        let n = self.slots();
        if !self.merged {
            let pointwise = sq[..n].iter().all(|&s| on_diagonal(s))
                || sq[..n]
                    .iter()
                    .all(|&s| geometry::file(s) + geometry::rank(s) == 7);
            return if pointwise { 2 } else { 1 };
        }
        for g in [DIAGONAL, ANTI_DIAGONAL] {
            if sym(g, sq[0]) != sq[0] || sym(g, sq[1]) != sq[1] {
                continue;
            }
            if self.low_of_image(sq, g) == self.low_of(sq) {
                return 2;
            }
        }
        1
    }

    /// What a canonical entry without pawns counts, as `(positions, raw
    /// placements)` by the counting convention (like pieces told apart, one
    /// position per orbit under the 8 symmetries): its `f =`
    /// [`Layout::like_factorial`] labellings fall into `f * Sp / Ss` orbits
    /// and `8 f / Ss` placements, `Sp` the stabiliser of a labelling (2 when
    /// every piece is on the diagonal) and `Ss` that of the entry's sets.
    /// Without merging that is `(1, 8)`, or `(1, 4)` on the diagonal.
    #[inline]
    pub(crate) fn orbit_counts(&self, sq: &Squares) -> (u64, u64) {
        let f = self.like_factorial();
        let pointwise = if self.on_the_diagonal(sq) { 2 } else { 1 };
        let set = u64::from(self.stabiliser(sq));
        (f * pointwise / set, 8 * f / set)
    }

    /// Every labelling of a placement's like pieces (the placements with
    /// like pieces told apart that an entry stands for), `sq` first.
    pub(crate) fn labellings(&self, sq: &Squares) -> Vec<Squares> {
        let mut all = vec![*sq];
        for g in self.groups.iter().filter(|g| g.len > 1) {
            let mut next = Vec::with_capacity(all.len() * 24);
            for p in &all {
                permutations(&p[g.first..g.first + g.len], &mut |perm| {
                    let mut q = *p;
                    q[g.first..g.first + g.len].copy_from_slice(perm);
                    next.push(q);
                });
            }
            all = next;
        }
        all
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
        if self.merged {
            if on_diagonal(sq[0]) && on_diagonal(sq[1]) {
                return self.low_of(sq) <= self.low_of_image(sq, DIAGONAL);
            }
            return true;
        }
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
        if self.merged {
            // With pawns there is no symmetry within a slice: every move
            // changes one digit, or the kings' squares.
            if slot >= 2 && !(pawnless && on_diagonal(sq[0]) && on_diagonal(sq[1])) {
                let g = &self.groups[self.group_of[slot] as usize];
                return Some(e - self.digit(g, sq) * g.stride + self.digit(g, moved) * g.stride);
            }
            if !pawnless {
                let top = (moved[0] as usize) << 6 | moved[1] as usize;
                return Some(top * self.inner + e % self.inner);
            }
            let pair = (slot < 2 && !(on_diagonal(moved[0]) && on_diagonal(moved[1])))
                .then(|| king_pairs().index(moved[0], moved[1]))
                .flatten();
            return match pair {
                Some(kk) => Some(kk * self.inner + e % self.inner),
                None => self.locate(moved).map(|(_, entry)| entry),
            };
        }
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
            } else if on_diagonal(bk) && self.merged {
                // Both kings on the diagonal: the smaller of the placement
                // and its diagonal image, by their sets of like pieces.
                let d = geometry::compose(DIAGONAL, g);
                if self.low_of_image(&s, d) < self.low_of_image(&s, g) {
                    g = d;
                }
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

/// Calls `visit` with every order of `items` (at most [`MAX_GROUP`]).
fn permutations(items: &[u8], visit: &mut dyn FnMut(&[u8])) {
    fn rec(cur: &mut [u8; MAX_GROUP], len: usize, k: usize, visit: &mut dyn FnMut(&[u8])) {
        if k == len {
            visit(&cur[..len]);
            return;
        }
        for i in k..len {
            cur.swap(k, i);
            rec(cur, len, k + 1, visit);
            cur.swap(k, i);
        }
    }
    let mut cur = [0u8; MAX_GROUP];
    cur[..items.len()].copy_from_slice(items);
    rec(&mut cur, items.len(), 0, visit);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(m: &str) -> Layout {
        Layout::new(&m.parse().unwrap())
    }

    /// Sets of like pieces: each set's rank is its place among all sets,
    /// and the entry counts are the binomials of the index.
    #[test]
    fn sets_of_like_pieces_round_trip() {
        for k in 2..=MAX_GROUP {
            let sets = sets_of(k);
            assert_eq!(sets.len(), binomial(64, k));
            for (i, set) in sets.iter().enumerate() {
                assert!(set[..k].windows(2).all(|w| w[0] < w[1]), "{set:?}");
                assert_eq!(set_index(&set[..k]), i);
            }
        }
        assert_eq!(layout("KNNvKNN").total_entries(), 462 * 2016 * 2016);
        assert_eq!(layout("KRNvKNN").total_entries(), 462 * 64 * 64 * 2016);
        assert_eq!(layout("KNNNvK").total_entries(), 462 * 41664);
        // With pawns, like pieces are sets too, after the kings' squares.
        assert_eq!(layout("KNNvKP").entries, 64 * 64 * 2016);
        assert_eq!(layout("KNNvKP").like_factorial(), 2);
        assert_eq!(layout("KNNNvKP").entries, 64 * 64 * 41664);
        assert_eq!(layout("KRPvKR").entries, 1 << 24);
        assert_eq!(layout("KNNvKNN").like_factorial(), 4);
    }

    /// Every orbit of placements (like pieces told apart) under the 8
    /// symmetries is counted once, and every placement once in the raw
    /// count: by brute force over all placements of four pieces, against
    /// the entries' [`Layout::orbit_counts`]. KNN v K and KBB v K have the
    /// two like pieces; KBN v K has none (the unmerged index).
    #[test]
    fn merged_entries_count_every_orbit_once() {
        for m in ["KNNvK", "KBBvK", "KBNvK"] {
            let l = layout(m);
            // Brute force: placements of kings apart and four distinct
            // squares; an orbit is counted at its smallest member.
            let (mut orbits, mut raw) = (0u64, 0u64);
            for p in 0..64u32.pow(4) {
                let sq: Vec<u8> = (0..4).map(|i| ((p >> (6 * (3 - i))) & 63) as u8).collect();
                if geometry::kings_touch(sq[0], sq[1])
                    || (0..4).any(|i| (0..i).any(|j| sq[i] == sq[j]))
                {
                    continue;
                }
                raw += 1;
                let smallest = (1..geometry::SYMMETRIES)
                    .all(|g| sq.iter().map(|&s| sym(g, s)).collect::<Vec<u8>>() >= sq);
                orbits += u64::from(smallest);
            }
            let (mut by_entries, mut raw_by_entries) = (0u64, 0u64);
            let mut sq = [0u8; MAX_PIECES];
            for e in 0..l.entries {
                l.decode(0, e, &mut sq);
                if l.is_position(&sq) {
                    let (o, r) = l.orbit_counts(&sq);
                    by_entries += o;
                    raw_by_entries += r;
                }
            }
            assert_eq!((by_entries, raw_by_entries), (orbits, raw), "{m}");
        }
    }

    #[test]
    fn entries_and_slices() {
        let l = layout("KRBvKR");
        assert_eq!(l.total_entries(), 462 * 64 * 64 * 64);
        let l = layout("KNNvKP");
        // One black pawn on 48 squares, half of them up to the mirror.
        assert_eq!(l.slices.len(), 24);
        assert_eq!(l.entries, 64 * 64 * 2016);
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

    /// Calls `visit(slice, entry, squares)` for the positions among about
    /// `samples` entries of `l` spread evenly over all its entries.
    fn each_sampled(l: &Layout, samples: usize, mut visit: impl FnMut(usize, usize, &Squares)) {
        let mut sq = [0u8; MAX_PIECES];
        let step = l.total_entries() / samples + 1;
        for i in (0..l.total_entries()).step_by(step) {
            let (slice, entry) = (i / l.entries, i % l.entries);
            l.decode(slice, entry, &mut sq);
            if l.is_position(&sq) {
                visit(slice, entry, &sq);
            }
        }
    }

    #[test]
    fn locate_inverts_decode() {
        for m in [
            "KRBvKR", "KNNvKP", "KPvKP", "KQvK", "KBBvKN", "KNNvK", "KNNvKNN", "KRNvKNN", "KNNNvK",
            "KBBBBvK",
        ] {
            let l = layout(m);
            let mut checked = 0;
            each_sampled(&l, 20_011, |slice, entry, sq| {
                let sq = *sq;
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
                // Like pieces in any order locate to the same entry.
                for labelled in l.labellings(&sq) {
                    assert_eq!(
                        l.locate(&labelled),
                        Some((slice, entry)),
                        "{m} {labelled:?}"
                    );
                }
                checked += 1;
            });
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
        for m in [
            "KRBvKR", "KNNvKP", "KPvKP", "KQvK", "KBBvKN", "KQPvKQ", "KNNvKNN", "KRNvKNN", "KNNNvK",
        ] {
            let l = layout(m);
            let mut back = [0u8; MAX_PIECES];
            let mut moves = 0;
            each_sampled(&l, 5_003, |slice, entry, sq| {
                let sq = *sq;
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
            });
            assert!(moves > 10_000, "{m}: {moves}");
        }
    }
}
