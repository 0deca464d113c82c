//! Index <-> placement arithmetic of Syzygy tables (standard chess only).
//!
//! The index scheme is Ronald de Man's. The encoding arithmetic is ported
//! from shakmaty-syzygy 0.28 (`src/table.rs`, by Niklas Fiekas), which is
//! GPL-3.0-or-later like this crate, with its constant tables
//! ([`super::consts`]). The decoding direction (index to placement) is our
//! own inverse of that arithmetic. Encoding is split in two (the symmetry
//! and the leading group's digit, then the other groups) so that the sweep
//! can share the first part between the two sides' sub-tables and get the
//! index of one moving piece incrementally ([`super::mover`]).
//!
//! Squares are plain `u8` values here (`a1 = 0`, `b1 = 1`, ..., `h8 = 63`).
//!
//! In standard chess both kings are unique pieces, so every table has at
//! least two unique pieces and the leading group is either three unique
//! pieces (`31_332` placements), the two kings (`462` placements) or, in
//! tables with pawns, the leading pawns. The antichess-only encodings of
//! shakmaty-syzygy (`PP_IDX`, `MULT_TWIST`) are therefore not needed.

// The index arithmetic walks parallel arrays (squares, digits) by
// position, as the Syzygy format defines it; indexed loops say that best.
#![allow(clippy::needless_range_loop)]

use std::fmt;

use shakmaty::{Color, Piece, Role};

pub(crate) use super::consts::{
    binom, KINGS_SIZE, KK_IDX, LOWER, MAX_PIECES, PAWNS, THREE_UNIQUE_SIZE, TRIANGLE, Z0,
};
use super::consts::{INV_KK, INV_LOWER, INV_TRIANGLE};

/// At most this many pieces (a short name for the arrays of squares).
const MAX: usize = MAX_PIECES;

/// The number of indices of each sub-table of one stored side of the table
/// of `material` (one for pawnless tables; four, by the leading pawn's file
/// a-d, with pawns), worked out from the material alone, without the
/// file's header: for when the file is not there.
///
/// The header's group order changes where each group sits in the index,
/// but not the product of the groups' sizes, so the size needs only the
/// group lengths. Following Syzygy's probing code (`tbprobe.c`, `init_tb`),
/// the leading group is three unique pieces when there are three or more
/// (kings included), else the two kings; with pawns, the pawns of Black
/// when Black has fewer of them but some (else White's), and then the
/// other side's pawns on the remaining 48 - lead pawn squares.
pub(crate) fn index_sizes(material: &crate::chess::material::Material) -> Vec<u64> {
    let m = material.normalized();
    // Group lengths: the pieces of one kind (colour and role).
    let mut groups: Vec<(Piece, usize)> = Vec::new();
    for color in Color::ALL {
        for role in crate::chess::material::ROLE_ORDER {
            let n = usize::from(m.side(color).count(role));
            if n > 0 {
                groups.push((Piece { color, role }, n));
            }
        }
    }
    // The product of binom(free, len) over the groups, placed one after
    // another on the squares left (a multinomial: the order is irrelevant).
    let place = |rest: &[usize], mut free: u64| -> u64 {
        let mut size = 1u64;
        for &len in rest {
            size = size.saturating_mul(binom(free, len));
            free -= len as u64;
        }
        size
    };
    if !m.has_pawns() {
        let uniques = groups.iter().filter(|(_, n)| *n == 1).count();
        let (lead, lead_len) = if uniques >= 3 {
            (THREE_UNIQUE_SIZE, 3)
        } else {
            (KINGS_SIZE, 2)
        };
        // The leading group takes unique pieces (any: each has length 1).
        let mut skipped = 0;
        let rest: Vec<usize> = groups
            .iter()
            .filter(|(_, n)| {
                if *n == 1 && skipped < lead_len {
                    skipped += 1;
                    false
                } else {
                    true
                }
            })
            .map(|(_, n)| *n)
            .collect();
        return vec![lead.saturating_mul(place(&rest, 64 - lead_len as u64))];
    }
    let (lead, other) = lead_and_other_pawns(&m);
    let rest: Vec<usize> = groups
        .iter()
        .filter(|(p, _)| p.role != Role::Pawn)
        .map(|(_, n)| *n)
        .collect();
    let others = if other > 0 {
        binom(48 - lead as u64, other)
    } else {
        1
    };
    let pieces = place(&rest, 64 - (lead + other) as u64);
    (0..4)
        .map(|file| {
            PAWNS.lead_pawns_size[lead][file]
                .saturating_mul(others)
                .saturating_mul(pieces)
        })
        .collect()
}

/// The number of leading pawns of a pawn material and of the other side's
/// pawns: Black's lead when Black has fewer pawns but some, else White's
/// (Syzygy's `init_tb`).
fn lead_and_other_pawns(m: &crate::chess::material::Material) -> (usize, usize) {
    let pawns = |c: Color| usize::from(m.side(c).count(Role::Pawn));
    let (w, b) = (pawns(Color::White), pawns(Color::Black));
    if b > 0 && (w == 0 || b < w) {
        (b, w)
    } else {
        (w, b)
    }
}

/// Per sub-table of [`index_sizes`], the number of digits of its leading
/// group, for a pawn table (its leading pawns on their file); `None`
/// without pawns. With the sizes, what a window of a pawn table's sub-table
/// holds ([`Encoding::window`]), worked out from the material alone.
pub(crate) fn lead_radices(material: &crate::chess::material::Material) -> Option<Vec<u64>> {
    let m = material.normalized();
    if !m.has_pawns() {
        return None;
    }
    let (lead, _) = lead_and_other_pawns(&m);
    Some(
        (0..4)
            .map(|file| PAWNS.lead_pawns_size[lead][file])
            .collect(),
    )
}

/// The pawn order used to pick the leading pawn (the pawn with the highest
/// value leads; files a/h before b/g before c/f before d/e, then low ranks
/// first).
#[inline]
pub(crate) fn map_pawn(sq: u8) -> u64 {
    PAWNS.map_pawns[usize::from(sq)]
}

#[inline]
pub(crate) fn file_of(sq: u8) -> u8 {
    sq & 7
}

#[inline]
pub(crate) fn rank_of(sq: u8) -> u8 {
    sq >> 3
}

#[inline]
pub(crate) fn flip_vertical(sq: u8) -> u8 {
    sq ^ 56
}

#[inline]
pub(crate) fn flip_horizontal(sq: u8) -> u8 {
    sq ^ 7
}

#[inline]
pub(crate) fn flip_diagonal(sq: u8) -> u8 {
    ((sq >> 3) | (sq << 3)) & 63
}

#[inline]
pub(crate) fn offdiag(sq: u8) -> bool {
    file_of(sq) != rank_of(sq)
}

/// How the leading group is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lead {
    /// Leading pawns (of one colour) on a given file `0..4`.
    Pawns { file: u8 },
    /// Three unique pieces.
    ThreeUnique,
    /// The two kings (no other unique piece).
    Kings,
}

/// Piece configuration of one sub-table: the order in which pieces are
/// encoded and the mixed-radix factors of each group, from the group order
/// the file's header gives. The crate's one encoder and decoder: the
/// by-index API of [`super::SweepTable`], the whole-table walks
/// ([`super::walk`]) and the index of one moving piece ([`super::mover`])
/// all use it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Encoding {
    /// Pieces in encoding order (colours in the file's frame).
    pub(crate) pieces: Vec<Piece>,
    /// Group lengths (pieces are consecutive in groups).
    pub(super) lens: Vec<usize>,
    /// Factor (place value) of each group.
    pub(super) factors: Vec<u64>,
    /// Number of values of each group.
    pub(super) radix: Vec<u64>,
    pub(super) lead: Lead,
    /// Both colours have pawns (group 1 is the other colour's pawns).
    pub(super) pp: bool,
    /// Number of indices.
    pub(crate) size: u64,
    /// The first leading digit of a window of the sub-table (see
    /// [`Encoding::window`]); 0 for the whole sub-table.
    pub(super) lead_offset: u64,
}

/// Where a window's indices lie in its whole sub-table: the window keeps
/// the leading digits `first..first + radix` of a leading group of factor
/// `factor` and `full_radix` digits, so a local index and the sub-table's
/// index differ only in that digit's offset and in the place values of the
/// groups above it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LeadWindow {
    /// The leading group's factor (the same in both).
    pub(crate) factor: u64,
    /// The leading group's digits in the whole sub-table.
    pub(crate) full_radix: u64,
    /// The window's first leading digit.
    pub(crate) first: u64,
    /// How many leading digits the window keeps.
    pub(crate) radix: u64,
}

impl LeadWindow {
    /// The sub-table's index of local index `local`.
    #[inline]
    pub(crate) fn full_index(&self, local: u64) -> u64 {
        let low = local % self.factor;
        let rest = local / self.factor;
        let (digit, high) = (rest % self.radix, rest / self.radix);
        (high * self.full_radix + self.first + digit) * self.factor + low
    }

    /// The local index of the sub-table's index `full`, if the window
    /// holds it.
    #[inline]
    pub(crate) fn local_index(&self, full: u64) -> Option<u64> {
        let low = full % self.factor;
        let rest = full / self.factor;
        let (digit, high) = (rest % self.full_radix, rest / self.full_radix);
        let digit = digit.checked_sub(self.first).filter(|&d| d < self.radix)?;
        Some((high * self.radix + digit) * self.factor + low)
    }

    /// How many local indices in a row, from `local` on, are also in a row
    /// in the sub-table (at most `max`).
    #[inline]
    pub(crate) fn run_from(&self, local: u64, max: u64) -> u64 {
        let stride = self.factor * self.radix;
        (stride - local % stride).min(max)
    }
}

/// Why a sub-table's header describes no encoding this crate reads: a
/// damaged header, or a table of another variant than standard chess. It
/// reads as one line, after the table's path and `corrupt table:`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EncodingError {
    /// Fewer than two pieces, or more than [`MAX_PIECES`].
    PieceCount(usize),
    /// Fewer than two pieces that are the only one of their kind (every
    /// chess table has two kings).
    NoUniquePieces,
    /// The leading group holds a piece that has a twin.
    LeadNotUnique,
    /// Pieces of one kind stand apart in the piece list.
    LikePiecesApart,
    /// A table with pawns whose piece list does not start with one.
    PawnNotFirst,
    /// Leading pawns of a number, or on a file, no table has.
    LeadingPawns,
    /// Both sides have pawns but the second group is not the other
    /// side's pawns.
    SecondPawnGroup,
    /// The groups' order is not a permutation the format allows.
    GroupOrder,
    /// More pieces than free squares.
    TooManyPieces,
    /// The index does not fit in 64 bits.
    IndexOverflow,
}

impl fmt::Display for EncodingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EncodingError::PieceCount(n) => {
                return write!(f, "unsupported number of pieces: {n}");
            }
            EncodingError::NoUniquePieces => "fewer than two unique pieces (not a chess table)",
            EncodingError::LeadNotUnique => "leading group does not consist of unique pieces",
            EncodingError::LikePiecesApart => "like pieces are not consecutive in the piece list",
            EncodingError::PawnNotFirst => "pawn table does not start with a pawn",
            EncodingError::LeadingPawns => "unsupported leading pawns",
            EncodingError::SecondPawnGroup => "second pawn group missing",
            EncodingError::GroupOrder => "bad group order",
            EncodingError::TooManyPieces => "too many pieces",
            EncodingError::IndexOverflow => "index overflow",
        })
    }
}

impl std::error::Error for EncodingError {}

impl Encoding {
    /// Computes the group data of a sub-table (port of shakmaty-syzygy's
    /// `GroupData::new`, with extra validation).
    ///
    /// # Errors
    ///
    /// [`EncodingError`] when the pieces, the group order or the leading
    /// file are none a standard chess table has.
    pub(crate) fn new(
        pieces: Vec<Piece>,
        order: [u8; 2],
        file: u8,
    ) -> Result<Encoding, EncodingError> {
        if pieces.len() < 2 || pieces.len() > MAX_PIECES {
            return Err(EncodingError::PieceCount(pieces.len()));
        }
        let count = |p: Piece| pieces.iter().filter(|q| **q == p).count();
        let has_pawns = pieces.iter().any(|p| p.role == Role::Pawn);
        let pp = pieces.contains(&Color::White.pawn()) && pieces.contains(&Color::Black.pawn());
        let unique = pieces
            .iter()
            .enumerate()
            .filter(|&(i, p)| count(*p) == 1 && !pieces[..i].contains(p))
            .count();

        let (lead, first_len) = if has_pawns {
            (Lead::Pawns { file }, 0)
        } else if unique >= 3 {
            (Lead::ThreeUnique, 3)
        } else if unique == 2 {
            (Lead::Kings, 2)
        } else {
            return Err(EncodingError::NoUniquePieces);
        };
        if first_len > 0 && pieces[..first_len].iter().any(|p| count(*p) != 1) {
            return Err(EncodingError::LeadNotUnique);
        }

        let mut lens = Vec::new();
        if first_len > 0 {
            lens.push(first_len);
        }
        let mut i = first_len;
        while i < pieces.len() {
            let mut j = i + 1;
            while j < pieces.len() && pieces[j] == pieces[i] {
                j += 1;
            }
            if count(pieces[i]) != j - i {
                return Err(EncodingError::LikePiecesApart);
            }
            lens.push(j - i);
            i = j;
        }

        if has_pawns {
            if pieces[0].role != Role::Pawn {
                return Err(EncodingError::PawnNotFirst);
            }
            if !(1..=5).contains(&lens[0]) || file >= 4 {
                return Err(EncodingError::LeadingPawns);
            }
            if pp && (lens.len() < 2 || pieces[lens[0]].role != Role::Pawn) {
                return Err(EncodingError::SecondPawnGroup);
            }
        }

        let n = lens.len();
        let mut factors = vec![0; n];
        let mut radix = vec![0; n];
        let mut assigned = vec![false; n];
        let mut free_squares: u64 = 64 - lens[0] as u64 - if pp { lens[1] as u64 } else { 0 };
        let mut next = if pp { 2 } else { 1 };
        let mut idx: u64 = 1;
        let mut k = 0u8;
        while next < n || k == order[0] || k == order[1] {
            let g = if k == order[0] {
                radix[0] = match lead {
                    Lead::Pawns { file } => PAWNS.lead_pawns_size[lens[0]][usize::from(file)],
                    Lead::ThreeUnique => THREE_UNIQUE_SIZE,
                    Lead::Kings => KINGS_SIZE,
                };
                0
            } else if k == order[1] {
                if !pp {
                    return Err(EncodingError::GroupOrder);
                }
                radix[1] = binom(48 - lens[0] as u64, lens[1]);
                1
            } else {
                radix[next] = binom(free_squares, lens[next]);
                free_squares = free_squares
                    .checked_sub(lens[next] as u64)
                    .ok_or(EncodingError::TooManyPieces)?;
                next += 1;
                next - 1
            };
            if assigned[g] {
                return Err(EncodingError::GroupOrder);
            }
            assigned[g] = true;
            factors[g] = idx;
            idx = idx
                .checked_mul(radix[g])
                .ok_or(EncodingError::IndexOverflow)?;
            k = k.checked_add(1).ok_or(EncodingError::GroupOrder)?;
        }
        if assigned.iter().any(|a| !a) || radix.contains(&0) {
            return Err(EncodingError::GroupOrder);
        }

        Ok(Encoding {
            pieces,
            lens,
            factors,
            radix,
            lead,
            pp,
            size: idx,
            lead_offset: 0,
        })
    }

    /// The part of this (whole) sub-table whose leading digits are
    /// `digits`, as an encoding of its own: the same pieces and groups, the
    /// leading group restricted to those digits, local indices dense from
    /// 0. A placement whose leading group lies outside has no index in it.
    /// The sweep holds a pawn table's values window by window this way
    /// (the leading pawns fix the window, and only a pawn move leaves it).
    ///
    /// # Panics
    ///
    /// If `self` is not a pawn table's, is a window already, or `digits` is
    /// empty or not within the leading group's digits.
    pub(crate) fn window(&self, digits: std::ops::Range<u64>) -> (Encoding, LeadWindow) {
        assert!(
            matches!(self.lead, Lead::Pawns { .. })
                && self.lead_offset == 0
                && digits.start < digits.end
                && digits.end <= self.radix[0]
        );
        let (full, part) = (self.radix[0], digits.end - digits.start);
        let lead_factor = self.factors[0];
        let mut w = self.clone();
        w.radix[0] = part;
        for f in w.factors.iter_mut() {
            if *f > lead_factor {
                *f = *f / full * part;
            }
        }
        w.size = self.size / full * part;
        w.lead_offset = digits.start;
        let map = LeadWindow {
            factor: lead_factor,
            full_radix: full,
            first: digits.start,
            radix: part,
        };
        (w, map)
    }

    /// The squares of the leading group of digit `digit` of this encoding
    /// (a window's digits count from its first).
    #[inline]
    pub(super) fn decode_lead_digit(&self, digit: u64, squares: &mut [u8; MAX]) {
        decode_lead(self.lead, self.lens[0], digit + self.lead_offset, squares);
    }

    /// The index of a placement: `squares` in encoding order, in the file's
    /// colour frame; for pawn tables the first square is the leading pawn.
    /// Canonicalises `squares` in place. `None` for kings that cannot be
    /// encoded (adjacent, in tables whose leading group is the kings).
    #[inline]
    pub(crate) fn encode(&self, squares: &mut [u8]) -> Option<u64> {
        let lead = self.encode_lead(squares)?;
        Some(self.encode_rest(squares, lead))
    }

    /// Whether `other` encodes its leading group as this codec does (same
    /// pieces, same kind, same pawn file): then [`Encoding::encode_lead`] of one serves
    /// both.
    pub(crate) fn same_lead(&self, other: &Encoding) -> bool {
        let n = self.lens[0];
        self.lead == other.lead && other.lens[0] == n && self.pieces[..n] == other.pieces[..n]
    }

    /// The first part of [`Encoding::encode`]: canonicalises `squares` in
    /// place by the symmetry the leading group picks, and returns the
    /// leading group's digit.
    #[inline]
    pub(crate) fn encode_lead(&self, squares: &mut [u8]) -> Option<u64> {
        let sym = self.symmetry(squares);
        for sq in squares.iter_mut() {
            *sq = sym.map(*sq);
        }
        self.lead_digit(squares)
    }

    /// The symmetry that brings a placement to its canonical form: the
    /// leading group alone decides it.
    #[inline]
    pub(super) fn symmetry(&self, squares: &[u8]) -> Symmetry {
        let mut sym = Symmetry {
            mask: if file_of(squares[0]) >= 4 { 7 } else { 0 },
            diagonal: false,
        };
        if matches!(self.lead, Lead::Pawns { .. }) {
            return sym;
        }
        if rank_of(squares[0] ^ sym.mask) >= 4 {
            sym.mask |= 56;
        }
        // The first piece of the group off the a1-h8 diagonal goes below
        // it (the flip leaves those before it, on the diagonal, in place).
        for &sq in &squares[..self.lens[0]] {
            let sq = sq ^ sym.mask;
            if offdiag(sq) {
                sym.diagonal = rank_of(sq) > file_of(sq);
                break;
            }
        }
        sym
    }

    /// The leading group's digit of canonical `squares` (`None` for kings
    /// that cannot be encoded); sorts several leading pawns in place.
    #[inline]
    pub(super) fn lead_digit(&self, squares: &mut [u8]) -> Option<u64> {
        let idx = match self.lead {
            Lead::Pawns { .. } => {
                let lc = self.lens[0];
                let mut idx = PAWNS.lead_pawn_idx[lc][usize::from(squares[0])];
                if lc > 2 {
                    squares[1..lc].sort_unstable_by_key(|sq| map_pawn(*sq));
                }
                for i in 1..lc {
                    idx += binom(map_pawn(squares[i]), i);
                }
                // Outside a window: no index here.
                let digit = idx.checked_sub(self.lead_offset)?;
                if digit >= self.radix[0] {
                    return None;
                }
                digit
            }
            Lead::ThreeUnique | Lead::Kings => {
                let (s0, s1) = (squares[0], squares[1]);
                if self.lead == Lead::Kings {
                    let v = KK_IDX[TRIANGLE[usize::from(s0)] as usize][usize::from(s1)];
                    if v == Z0 {
                        return None;
                    }
                    v
                } else {
                    let s2 = squares[2];
                    let adjust1 = u64::from(s1 > s0);
                    let adjust2 = u64::from(s2 > s0) + u64::from(s2 > s1);
                    let (s0, s1, s2) = (u64::from(s0), u64::from(s1), u64::from(s2));
                    let r0 = s0 >> 3;
                    let r1 = s1 >> 3;
                    let r2 = s2 >> 3;
                    if offdiag(squares[0]) {
                        TRIANGLE[s0 as usize] * 63 * 62 + (s1 - adjust1) * 62 + (s2 - adjust2)
                    } else if offdiag(squares[1]) {
                        6 * 63 * 62 + r0 * 28 * 62 + LOWER[s1 as usize] * 62 + s2 - adjust2
                    } else if offdiag(squares[2]) {
                        6 * 63 * 62
                            + 4 * 28 * 62
                            + r0 * 7 * 28
                            + (r1 - adjust1) * 28
                            + LOWER[s2 as usize]
                    } else {
                        6 * 63 * 62
                            + 4 * 28 * 62
                            + 4 * 7 * 28
                            + r0 * 7 * 6
                            + (r1 - adjust1) * 6
                            + (r2 - adjust2)
                    }
                }
            }
        };
        Some(idx)
    }

    /// The second part of [`Encoding::encode`]: the index of canonical
    /// `squares` whose leading group has digit `lead`.
    #[inline]
    pub(crate) fn encode_rest(&self, squares: &mut [u8], lead: u64) -> u64 {
        let mut idx = lead * self.factors[0];
        let mut group_sq = self.lens[0];
        for g in 1..self.lens.len() {
            let len = self.lens[g];
            let (before, rest) = squares.split_at_mut(group_sq);
            let group = &mut rest[..len];
            if len > 1 {
                sort_small(group);
            }
            let offset = if self.pp && g == 1 { 8 } else { 0 };
            let mut n = 0;
            for (i, &sq) in group.iter().enumerate() {
                // A square's rank among the free ones is itself minus the
                // squares of the groups so far below it. Counted by
                // comparisons: at most six, and without the popcnt
                // instruction (not in the x86-64 baseline we build for) a
                // bit count is a dozen instructions.
                let below = before.iter().filter(|&&o| o < sq).count() as u64;
                n += binom(u64::from(sq) - below - offset, i + 1);
            }
            idx += n * self.factors[g];
            group_sq += len;
        }
        idx
    }

    /// Per digit of the leading group: [`Encoding::images`] of the
    /// placements with that leading group (which alone decides it), and
    /// whether the group's squares all lie on one long diagonal (if not,
    /// no placement with it does).
    pub(crate) fn lead_facts(&self) -> Vec<(u32, bool)> {
        let lc = self.lens[0];
        (0..self.radix[0])
            .map(|digit| {
                let mut squares = [0u8; MAX];
                self.decode_lead_digit(digit, &mut squares);
                let lead = &squares[..lc];
                let diagonal = lead.iter().all(|&s| s & 7 == s >> 3)
                    || lead.iter().all(|&s| (s & 7) + (s >> 3) == 7);
                (self.images(lead), diagonal)
            })
            .collect()
    }

    /// The number of pieces of the leading group (the first slots).
    pub(crate) fn lead_len(&self) -> usize {
        self.lens[0]
    }

    /// The leading group's factor and radix: the digit of index `i` is
    /// `i / factor % radix`.
    pub(crate) fn lead_place(&self) -> (u64, u64) {
        (self.factors[0], self.radix[0])
    }

    /// The canonical placement of an index, squares in encoding order.
    pub(crate) fn decode(&self, idx: u64, squares: &mut [u8; MAX]) {
        let mut digits = [0u64; MAX];
        for (g, d) in digits.iter_mut().enumerate().take(self.lens.len()) {
            *d = (idx / self.factors[g]) % self.radix[g];
        }
        self.fill(&digits, 0, self.lens.len(), squares, 0);
    }

    /// Computes the squares of groups `from..to` from their digits (the
    /// squares of earlier groups are in place), on a board without the
    /// squares of the slots before `occupied_from` (0: the whole board;
    /// it must not exceed the slots of groups before `from`): the squares
    /// of the slots from there on occupy it.
    #[inline]
    pub(super) fn fill(
        &self,
        digits: &[u64; MAX],
        from: usize,
        to: usize,
        squares: &mut [u8; MAX],
        occupied_from: usize,
    ) {
        if from == 0 {
            self.decode_lead_digit(digits[0], squares);
        }
        let first = from.max(1);
        let mut ranks = [0usize; MAX];
        for g in first..to {
            self.group_ranks(g, digits[g], &mut ranks);
        }
        self.place(&ranks, first, to, squares, occupied_from);
    }

    /// The ranks of group `g` (not the leading one) from its digit: the
    /// places of its pieces among the squares the groups before it leave
    /// free (see [`Encoding::group_free`]), ascending, into
    /// `ranks[at..at + len]`, `at` being the group's first slot.
    #[inline]
    pub(super) fn group_ranks(&self, g: usize, digit: u64, ranks: &mut [usize; MAX]) {
        let at: usize = self.lens[..g].iter().sum();
        let mut n = digit;
        let mut upper = self.group_free(g) as u64;
        for i in (0..self.lens[g]).rev() {
            let r = largest_below(n, i + 1, upper);
            n -= binom(r, i + 1);
            upper = r;
            ranks[at + i] = r as usize;
        }
    }

    /// How many squares the ranks of group `g` (not the leading one) range
    /// over: those the groups before it leave free (for the second pawn
    /// group of a pawn table, the 48 pawn squares the leading pawns leave).
    #[inline]
    pub(super) fn group_free(&self, g: usize) -> usize {
        if self.pp && g == 1 {
            48 - self.lens[0]
        } else {
            64 - self.lens[..g].iter().sum::<usize>()
        }
    }

    /// The squares of groups `from..to` (`from` at least 1) from their
    /// ranks ([`Encoding::group_ranks`]), the squares of the groups before
    /// `from` being in place, on a board without the squares of the slots
    /// before `occupied_from` (0: the whole board; it must not exceed the
    /// slots of groups before `from`): the squares of the slots from there
    /// on occupy it.
    #[inline]
    pub(super) fn place(
        &self,
        ranks: &[usize; MAX],
        from: usize,
        to: usize,
        squares: &mut [u8; MAX],
        occupied_from: usize,
    ) {
        let mut group_sq: usize = self.lens[..from].iter().sum();
        // The squares placed so far, sorted (insertion sort on a
        // fixed-size array: no memcpy, no allocation).
        let mut sorted = [u8::MAX; MAX];
        let mut placed = 0;
        for &sq in &squares[occupied_from..group_sq] {
            insert(&mut sorted, placed, sq);
            placed += 1;
        }
        for g in from..to {
            let len = self.lens[g];
            let offset: u8 = if self.pp && g == 1 { 8 } else { 0 };
            for k in group_sq..group_sq + len {
                let mut sq = ranks[k] as u8 + offset;
                for &p in &sorted[..placed] {
                    if p <= sq {
                        sq += 1;
                    }
                }
                squares[k] = sq;
            }
            for k in group_sq..group_sq + len {
                insert(&mut sorted, placed, squares[k]);
                placed += 1;
            }
            group_sq += len;
        }
    }

    /// The index of the mirror image about the a1-h8 diagonal of
    /// placement `squares` (as decoded), where its leading group lies on
    /// that diagonal: the image then has an index of its own (see
    /// [`Encoding::images`]). `None` otherwise, and for pawn tables.
    pub(crate) fn diagonal_twin(&self, squares: &[u8]) -> Option<u64> {
        if matches!(self.lead, Lead::Pawns { .. })
            || squares[..self.lens[0]].iter().any(|&s| offdiag(s))
        {
            return None;
        }
        let mut image = [0u8; MAX_PIECES];
        for (to, &from) in image.iter_mut().zip(squares) {
            *to = flip_diagonal(from);
        }
        self.encode(&mut image[..squares.len()])
    }

    /// Number of placements a canonical placement (`squares` as decoded)
    /// stands for on the full board, for one side to move: 8 images without
    /// pawns (4 when the leading group lies on the a1-h8 diagonal: the
    /// diagonal mirror has its own index), 2 with pawns (1 when a
    /// leading-colour pawn stands on the mirror square of the leading pawn:
    /// the mirror image then leads with that pawn and has its own index).
    #[inline]
    pub(crate) fn images(&self, squares: &[u8]) -> u32 {
        match self.lead {
            Lead::Pawns { .. } => {
                let mirror = squares[0] ^ 7;
                if squares[1..self.lens[0]].contains(&mirror) {
                    1
                } else {
                    2
                }
            }
            Lead::ThreeUnique | Lead::Kings => {
                if squares[..self.lens[0]].iter().all(|&s| !offdiag(s)) {
                    4
                } else {
                    8
                }
            }
        }
    }
}

/// One of the board's symmetries that the encodings use: an exclusive or
/// of the square (7 mirrors the files, 56 the ranks), then optionally the
/// flip about the a1-h8 diagonal.
#[derive(Clone, Copy, Debug)]
pub(super) struct Symmetry {
    mask: u8,
    diagonal: bool,
}

impl Symmetry {
    #[inline]
    pub(super) fn map(self, sq: u8) -> u8 {
        let sq = sq ^ self.mask;
        if self.diagonal {
            flip_diagonal(sq)
        } else {
            sq
        }
    }

    /// The square that [`Symmetry::map`] takes to `sq`.
    #[inline]
    pub(super) fn unmap(self, sq: u8) -> u8 {
        let sq = if self.diagonal { flip_diagonal(sq) } else { sq };
        sq ^ self.mask
    }
}

/// Sorts a group's few squares in place (an insertion sort, inlined: a
/// group holds at most a few squares).
#[inline]
pub(super) fn sort_small(group: &mut [u8]) {
    for k in 1..group.len() {
        insert(group, k, group[k]);
    }
}

/// Inserts `v` into the sorted prefix `sorted[..k]` (over `sorted[k]`).
#[inline]
fn insert(sorted: &mut [u8], k: usize, v: u8) {
    let mut i = k;
    while i > 0 && sorted[i - 1] > v {
        sorted[i] = sorted[i - 1];
        i -= 1;
    }
    sorted[i] = v;
}

/// Largest `r < upper` with `binom(r, k) <= n` (combinatorial number system).
#[inline]
pub(crate) fn largest_below(n: u64, k: usize, upper: u64) -> u64 {
    if k == 1 {
        return n;
    }
    // Binary search: binom(r, k) grows with r, and binom(0, k) = 0 <= n
    // (a linear scan down from `upper` cost tens of steps per pair of
    // like pieces).
    let mut hi = upper - 1;
    if binom(hi, k) <= n {
        return hi;
    }
    let mut lo = 0;
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if binom(mid, k) <= n {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The squares of a leading group of `lc` pieces from its digit `v`, into
/// `squares[..lc]`: the inverse of the leading part of `Encoding::encode`.
pub(crate) fn decode_lead(lead: Lead, lc: usize, v: u64, squares: &mut [u8; MAX_PIECES]) {
    match lead {
        Lead::Pawns { file } => decode_lead_pawns(v, lc, file, squares),
        Lead::ThreeUnique => {
            let (s0, s1, s2) = decode_three_unique(v);
            squares[0] = s0;
            squares[1] = s1;
            squares[2] = s2;
        }
        Lead::Kings => {
            let (s0, s1) = INV_KK[v as usize];
            squares[0] = s0;
            squares[1] = s1;
        }
    }
}

/// Inverse of the leading-pawns part of `Encoding::encode`: the `lc`
/// leading pawns of digit `v` on the file `file` (0..4) into `squares[..lc]`.
fn decode_lead_pawns(v: u64, lc: usize, file: u8, squares: &mut [u8; MAX_PIECES]) {
    let mut sq0 = file;
    for rank in 1..7u8 {
        let sq = file + 8 * rank;
        if PAWNS.lead_pawn_idx[lc][usize::from(sq)] <= v {
            sq0 = sq;
        } else {
            break;
        }
    }
    squares[0] = sq0;
    let mut rem = v - PAWNS.lead_pawn_idx[lc][usize::from(sq0)];
    let mut upper = map_pawn(sq0);
    for i in (1..lc).rev() {
        let m = largest_below(rem, i, upper);
        rem -= binom(m, i);
        squares[i] = PAWNS.inv_map_pawns[m as usize];
        upper = m;
    }
}

/// Inverse of the three-unique-pieces part of `Encoding::encode`.
pub(crate) fn decode_three_unique(v: u64) -> (u8, u8, u8) {
    /// Undo `x - adjust` where adjust counts the given (distinct) squares
    /// below `x`.
    fn skip(mut x: u8, a: u8, b: u8) -> u8 {
        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
        if x >= lo {
            x += 1;
        }
        if x >= hi {
            x += 1;
        }
        x
    }

    const A: u64 = 6 * 63 * 62;
    const B: u64 = 4 * 28 * 62;
    const C: u64 = 4 * 7 * 28;
    if v < A {
        let s0 = INV_TRIANGLE[(v / (63 * 62)) as usize];
        let r = v % (63 * 62);
        let a = (r / 62) as u8;
        let s1 = if a >= s0 { a + 1 } else { a };
        let s2 = skip((r % 62) as u8, s0, s1);
        (s0, s1, s2)
    } else if v < A + B {
        let v = v - A;
        let s0 = (v / (28 * 62)) as u8 * 9;
        let r = v % (28 * 62);
        let s1 = INV_LOWER[(r / 62) as usize];
        let s2 = skip((r % 62) as u8, s0, s1);
        (s0, s1, s2)
    } else if v < A + B + C {
        let v = v - A - B;
        let r0 = (v / (7 * 28)) as u8;
        let r = v % (7 * 28);
        let a = (r / 28) as u8;
        let r1 = if a >= r0 { a + 1 } else { a };
        (r0 * 9, r1 * 9, INV_LOWER[(r % 28) as usize])
    } else {
        let v = v - A - B - C;
        let r0 = (v / 42) as u8;
        let a = ((v % 42) / 6) as u8;
        let r1 = if a >= r0 { a + 1 } else { a };
        let r2 = skip((v % 6) as u8, r0, r1);
        (r0 * 9, r1 * 9, r2 * 9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_unique_roundtrip() {
        let enc = Encoding::new(
            vec![
                Color::White.king(),
                Color::White.queen(),
                Color::Black.king(),
            ],
            [0, 0xf],
            0,
        )
        .unwrap();
        assert_eq!(enc.size, THREE_UNIQUE_SIZE);
        let mut sq = [0; MAX_PIECES];
        for idx in 0..enc.size {
            enc.decode(idx, &mut sq);
            let mut s = sq;
            assert_eq!(enc.encode(&mut s[..3]), Some(idx), "{idx} {sq:?}");
        }
    }

    #[test]
    fn kings_roundtrip() {
        for (v, &(s0, s1)) in INV_KK.iter().enumerate() {
            assert_eq!(
                KK_IDX[TRIANGLE[usize::from(s0)] as usize][usize::from(s1)],
                v as u64
            );
        }
    }
}
