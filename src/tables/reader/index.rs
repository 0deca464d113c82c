//! Index <-> placement arithmetic of Syzygy tables (standard chess only).
//!
//! The index scheme is Ronald de Man's. The constant tables (`TRIANGLE`,
//! `LOWER`, `KK_IDX`, the pawn maps) and the encoding arithmetic are ported
//! from shakmaty-syzygy 0.28 (`src/table.rs`, by Niklas Fiekas), which is
//! GPL-3.0-or-later like this crate. The decoding direction (index to
//! placement) is our own inverse of that arithmetic.
//!
//! Squares are plain `u8` values here (`a1 = 0`, `b1 = 1`, ..., `h8 = 63`).
//!
//! In standard chess both kings are unique pieces, so every table has at
//! least two unique pieces and the leading group is either three unique
//! pieces (`31_332` placements), the two kings (`462` placements) or, in
//! tables with pawns, the leading pawns. The antichess-only encodings of
//! shakmaty-syzygy (`PP_IDX`, `MULT_TWIST`) are therefore not needed.

use shakmaty::{Color, Piece, Role};

pub(crate) use super::consts::{
    binom, KINGS_SIZE, KK_IDX, LOWER, MAX_PIECES, PAWNS, THREE_UNIQUE_SIZE, TRIANGLE, Z0,
};
use super::consts::{INV_KK, INV_LOWER, INV_TRIANGLE};

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
    let pawns = |c: Color| usize::from(m.side(c).count(Role::Pawn));
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
    let (w, b) = (pawns(Color::White), pawns(Color::Black));
    let (lead, other) = if b > 0 && (w == 0 || b < w) {
        (b, w)
    } else {
        (w, b)
    };
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
/// encoded and the mixed-radix factors of each group.
#[derive(Debug, Clone)]
pub(crate) struct Encoding {
    /// Pieces in encoding order (colours in the file's frame).
    pub(crate) pieces: Vec<Piece>,
    /// Group lengths (pieces are consecutive in groups).
    lens: Vec<usize>,
    /// Factor (place value) of each group.
    factors: Vec<u64>,
    /// Number of values of each group.
    radix: Vec<u64>,
    lead: Lead,
    /// Both colours have pawns (group 1 is the other colour's pawns).
    pp: bool,
    /// Number of indices.
    pub(crate) size: u64,
}

impl Encoding {
    /// Computes the group data of a sub-table (port of shakmaty-syzygy's
    /// `GroupData::new`, with extra validation).
    pub(crate) fn new(pieces: Vec<Piece>, order: [u8; 2], file: u8) -> Result<Encoding, String> {
        if pieces.len() < 2 || pieces.len() > MAX_PIECES {
            return Err(format!("unsupported number of pieces: {}", pieces.len()));
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
            return Err("fewer than two unique pieces (not a chess table)".into());
        };
        if first_len > 0 && pieces[..first_len].iter().any(|p| count(*p) != 1) {
            return Err("leading group does not consist of unique pieces".into());
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
                return Err("like pieces are not consecutive in the piece list".into());
            }
            lens.push(j - i);
            i = j;
        }

        if has_pawns {
            if pieces[0].role != Role::Pawn {
                return Err("pawn table does not start with a pawn".into());
            }
            if !(1..=5).contains(&lens[0]) || file >= 4 {
                return Err("unsupported leading pawns".into());
            }
            if pp && (lens.len() < 2 || pieces[lens[0]].role != Role::Pawn) {
                return Err("second pawn group missing".into());
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
                    return Err("bad group order".into());
                }
                radix[1] = binom(48 - lens[0] as u64, lens[1]);
                1
            } else {
                radix[next] = binom(free_squares, lens[next]);
                free_squares = free_squares
                    .checked_sub(lens[next] as u64)
                    .ok_or("too many pieces")?;
                next += 1;
                next - 1
            };
            if assigned[g] {
                return Err("bad group order".into());
            }
            assigned[g] = true;
            factors[g] = idx;
            idx = idx.checked_mul(radix[g]).ok_or("index overflow")?;
            k = k.checked_add(1).ok_or("bad group order")?;
        }
        if assigned.iter().any(|a| !a) || radix.contains(&0) {
            return Err("bad group order".into());
        }

        Ok(Encoding {
            pieces,
            lens,
            factors,
            radix,
            lead,
            pp,
            size: idx,
        })
    }

    /// Computes the index of a placement. `squares` are in the order of
    /// `self.pieces`, already in the file's colour frame, and for pawn
    /// tables the first square is the leading pawn (on this sub-table's
    /// file or its mirror). `squares` is canonicalised in place.
    ///
    /// Returns `None` if the placement has no index (kings adjacent or on
    /// the same square in a table whose leading group is the kings).
    pub(crate) fn encode(&self, squares: &mut [u8]) -> Option<u64> {
        debug_assert_eq!(squares.len(), self.pieces.len());
        if file_of(squares[0]) >= 4 {
            for sq in squares.iter_mut() {
                *sq = flip_horizontal(*sq);
            }
        }

        let mut idx = match self.lead {
            Lead::Pawns { .. } => {
                let lc = self.lens[0];
                let mut idx = PAWNS.lead_pawn_idx[lc][usize::from(squares[0])];
                squares[1..lc].sort_unstable_by_key(|sq| map_pawn(*sq));
                for (i, &sq) in squares.iter().enumerate().take(lc).skip(1) {
                    idx += binom(map_pawn(sq), i);
                }
                idx
            }
            Lead::ThreeUnique | Lead::Kings => {
                if rank_of(squares[0]) >= 4 {
                    for sq in squares.iter_mut() {
                        *sq = flip_vertical(*sq);
                    }
                }
                for i in 0..self.lens[0] {
                    if !offdiag(squares[i]) {
                        continue;
                    }
                    if rank_of(squares[i]) > file_of(squares[i]) {
                        for sq in squares[i..].iter_mut() {
                            *sq = flip_diagonal(*sq);
                        }
                    }
                    break;
                }
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
        idx *= self.factors[0];

        let mut group_sq = self.lens[0];
        for g in 1..self.lens.len() {
            let len = self.lens[g];
            let (prev, rest) = squares.split_at_mut(group_sq);
            let group = &mut rest[..len];
            group.sort_unstable();
            let offset = if self.pp && g == 1 { 8 } else { 0 };
            let mut n = 0;
            for (i, &sq) in group.iter().enumerate() {
                let adjust = prev.iter().filter(|p| sq > **p).count() as u64;
                n += binom(u64::from(sq) - adjust - offset, i + 1);
            }
            idx += n * self.factors[g];
            group_sq += len;
        }
        Some(idx)
    }

    /// Computes the canonical placement of an index (`idx < self.size`):
    /// the squares in the order of `self.pieces`. Every index of a chess
    /// table has a placement with distinct squares (it may still be an
    /// illegal position).
    pub(crate) fn decode(&self, idx: u64, squares: &mut [u8; MAX_PIECES]) {
        debug_assert!(idx < self.size);
        let digit = |g: usize| (idx / self.factors[g]) % self.radix[g];

        decode_lead(self.lead, self.lens[0], digit(0), squares);

        let mut group_sq = self.lens[0];
        for g in 1..self.lens.len() {
            let len = self.lens[g];
            let offset: u8 = if self.pp && g == 1 { 8 } else { 0 };
            let mut prev = [0u8; MAX_PIECES];
            prev[..group_sq].copy_from_slice(&squares[..group_sq]);
            let prev = &mut prev[..group_sq];
            prev.sort_unstable();
            let free = if self.pp && g == 1 {
                48 - self.lens[0] as u64
            } else {
                64 - group_sq as u64
            };
            let mut n = digit(g);
            let mut upper = free;
            for i in (0..len).rev() {
                let r = largest_below(n, i + 1, upper);
                n -= binom(r, i + 1);
                upper = r;
                let mut sq = r as u8 + offset;
                for &p in prev.iter() {
                    if p <= sq {
                        sq += 1;
                    }
                }
                squares[group_sq + i] = sq;
            }
            group_sq += len;
        }
    }
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
