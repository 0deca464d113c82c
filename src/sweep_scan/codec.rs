//! Index arithmetic for the sweep engine: placements (squares in a
//! sub-table's piece order) to indices and back, and positions of any
//! material to the index of its table.
//!
//! The index scheme is Ronald de Man's; the constant tables and the
//! arithmetic follow shakmaty-syzygy 0.28 (Niklas Fiekas, GPL-3.0-or-later,
//! like this crate) as ported in [`crate::sweep`]. That port keeps its
//! encoder private, so the sweep engine carries its own copy, specialised
//! for speed: squares are given directly in a sub-table's piece order, so a
//! move costs one re-encode and no piece matching. The group order of each
//! sub-table is not exposed by [`SweepTable`] either; it is inferred by
//! matching candidate encodings against [`SweepTable::placement`] on spread
//! indices (tests check every index of the small tables).

use shakmaty::{Color, Piece, Role};

use crate::sweep::SweepTable;

/// At most this many pieces.
pub(crate) const MAX: usize = 7;

const THREE_UNIQUE_SIZE: u64 = 31_332;
const KINGS_SIZE: u64 = 462;

const fn binomial(mut n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    if k > n - k {
        return binomial(n, n - k);
    }
    let mut r = 1;
    let mut d = 1;
    while d <= k {
        r = r * n / d;
        n -= 1;
        d += 1;
    }
    r
}

const BINOM: [[u64; MAX + 1]; 65] = {
    let mut t = [[0; MAX + 1]; 65];
    let mut n = 0;
    while n <= 64 {
        let mut k = 0;
        while k <= MAX {
            t[n][k] = binomial(n as u64, k as u64);
            k += 1;
        }
        n += 1;
    }
    t
};

#[inline]
fn binom(n: u64, k: usize) -> u64 {
    BINOM[n as usize][k]
}

#[rustfmt::skip]
const TRIANGLE: [u64; 64] = [
    6, 0, 1, 2, 2, 1, 0, 6,
    0, 7, 3, 4, 4, 3, 7, 0,
    1, 3, 8, 5, 5, 8, 3, 1,
    2, 4, 5, 9, 9, 5, 4, 2,
    2, 4, 5, 9, 9, 5, 4, 2,
    1, 3, 8, 5, 5, 8, 3, 1,
    0, 7, 3, 4, 4, 3, 7, 0,
    6, 0, 1, 2, 2, 1, 0, 6,
];

const INV_TRIANGLE: [u8; 10] = [1, 2, 3, 10, 11, 19, 0, 9, 18, 27];

#[rustfmt::skip]
const LOWER: [u64; 64] = [
    28,  0,  1,  2,  3,  4,  5,  6,
     0, 29,  7,  8,  9, 10, 11, 12,
     1,  7, 30, 13, 14, 15, 16, 17,
     2,  8, 13, 31, 18, 19, 20, 21,
     3,  9, 14, 18, 32, 22, 23, 24,
     4, 10, 15, 19, 22, 33, 25, 26,
     5, 11, 16, 20, 23, 25, 34, 27,
     6, 12, 17, 21, 24, 26, 27, 35,
];

const INV_LOWER: [u8; 28] = {
    let mut inv = [0; 28];
    let mut sq = 0;
    while sq < 64 {
        if sq % 8 > sq / 8 {
            inv[LOWER[sq] as usize] = sq as u8;
        }
        sq += 1;
    }
    inv
};

const Z0: u64 = u64::MAX;

/// Encoding of all 462 configurations of two not-connected kings.
#[rustfmt::skip]
const KK_IDX: [[u64; 64]; 10] = [[
     Z0,  Z0,  Z0,   0,   1,   2,   3,   4,
     Z0,  Z0,  Z0,   5,   6,   7,   8,   9,
     10,  11,  12,  13,  14,  15,  16,  17,
     18,  19,  20,  21,  22,  23,  24,  25,
     26,  27,  28,  29,  30,  31,  32,  33,
     34,  35,  36,  37,  38,  39,  40,  41,
     42,  43,  44,  45,  46,  47,  48,  49,
     50,  51,  52,  53,  54,  55,  56,  57,
], [
     58,  Z0,  Z0,  Z0,  59,  60,  61,  62,
     63,  Z0,  Z0,  Z0,  64,  65,  66,  67,
     68,  69,  70,  71,  72,  73,  74,  75,
     76,  77,  78,  79,  80,  81,  82,  83,
     84,  85,  86,  87,  88,  89,  90,  91,
     92,  93,  94,  95,  96,  97,  98,  99,
    100, 101, 102, 103, 104, 105, 106, 107,
    108, 109, 110, 111, 112, 113, 114, 115,
], [
    116, 117,  Z0,  Z0,  Z0, 118, 119, 120,
    121, 122,  Z0,  Z0,  Z0, 123, 124, 125,
    126, 127, 128, 129, 130, 131, 132, 133,
    134, 135, 136, 137, 138, 139, 140, 141,
    142, 143, 144, 145, 146, 147, 148, 149,
    150, 151, 152, 153, 154, 155, 156, 157,
    158, 159, 160, 161, 162, 163, 164, 165,
    166, 167, 168, 169, 170, 171, 172, 173,
], [
    174,  Z0,  Z0,  Z0, 175, 176, 177, 178,
    179,  Z0,  Z0,  Z0, 180, 181, 182, 183,
    184,  Z0,  Z0,  Z0, 185, 186, 187, 188,
    189, 190, 191, 192, 193, 194, 195, 196,
    197, 198, 199, 200, 201, 202, 203, 204,
    205, 206, 207, 208, 209, 210, 211, 212,
    213, 214, 215, 216, 217, 218, 219, 220,
    221, 222, 223, 224, 225, 226, 227, 228,
], [
    229, 230,  Z0,  Z0,  Z0, 231, 232, 233,
    234, 235,  Z0,  Z0,  Z0, 236, 237, 238,
    239, 240,  Z0,  Z0,  Z0, 241, 242, 243,
    244, 245, 246, 247, 248, 249, 250, 251,
    252, 253, 254, 255, 256, 257, 258, 259,
    260, 261, 262, 263, 264, 265, 266, 267,
    268, 269, 270, 271, 272, 273, 274, 275,
    276, 277, 278, 279, 280, 281, 282, 283,
], [
    284, 285, 286, 287, 288, 289, 290, 291,
    292, 293,  Z0,  Z0,  Z0, 294, 295, 296,
    297, 298,  Z0,  Z0,  Z0, 299, 300, 301,
    302, 303,  Z0,  Z0,  Z0, 304, 305, 306,
    307, 308, 309, 310, 311, 312, 313, 314,
    315, 316, 317, 318, 319, 320, 321, 322,
    323, 324, 325, 326, 327, 328, 329, 330,
    331, 332, 333, 334, 335, 336, 337, 338,
], [
     Z0,  Z0, 339, 340, 341, 342, 343, 344,
     Z0,  Z0, 345, 346, 347, 348, 349, 350,
     Z0,  Z0, 441, 351, 352, 353, 354, 355,
     Z0,  Z0,  Z0, 442, 356, 357, 358, 359,
     Z0,  Z0,  Z0,  Z0, 443, 360, 361, 362,
     Z0,  Z0,  Z0,  Z0,  Z0, 444, 363, 364,
     Z0,  Z0,  Z0,  Z0,  Z0,  Z0, 445, 365,
     Z0,  Z0,  Z0,  Z0,  Z0,  Z0,  Z0, 446,
], [
     Z0,  Z0,  Z0, 366, 367, 368, 369, 370,
     Z0,  Z0,  Z0, 371, 372, 373, 374, 375,
     Z0,  Z0,  Z0, 376, 377, 378, 379, 380,
     Z0,  Z0,  Z0, 447, 381, 382, 383, 384,
     Z0,  Z0,  Z0,  Z0, 448, 385, 386, 387,
     Z0,  Z0,  Z0,  Z0,  Z0, 449, 388, 389,
     Z0,  Z0,  Z0,  Z0,  Z0,  Z0, 450, 390,
     Z0,  Z0,  Z0,  Z0,  Z0,  Z0,  Z0, 451,
], [
    452, 391, 392, 393, 394, 395, 396, 397,
     Z0,  Z0,  Z0,  Z0, 398, 399, 400, 401,
     Z0,  Z0,  Z0,  Z0, 402, 403, 404, 405,
     Z0,  Z0,  Z0,  Z0, 406, 407, 408, 409,
     Z0,  Z0,  Z0,  Z0, 453, 410, 411, 412,
     Z0,  Z0,  Z0,  Z0,  Z0, 454, 413, 414,
     Z0,  Z0,  Z0,  Z0,  Z0,  Z0, 455, 415,
     Z0,  Z0,  Z0,  Z0,  Z0,  Z0,  Z0, 456,
], [
    457, 416, 417, 418, 419, 420, 421, 422,
     Z0, 458, 423, 424, 425, 426, 427, 428,
     Z0,  Z0,  Z0,  Z0,  Z0, 429, 430, 431,
     Z0,  Z0,  Z0,  Z0,  Z0, 432, 433, 434,
     Z0,  Z0,  Z0,  Z0,  Z0, 435, 436, 437,
     Z0,  Z0,  Z0,  Z0,  Z0, 459, 438, 439,
     Z0,  Z0,  Z0,  Z0,  Z0,  Z0, 460, 440,
     Z0,  Z0,  Z0,  Z0,  Z0,  Z0,  Z0, 461,
]];

const INV_KK: [(u8, u8); KINGS_SIZE as usize] = {
    let mut inv = [(0, 0); KINGS_SIZE as usize];
    let mut t = 0;
    while t < 10 {
        let mut sq = 0;
        while sq < 64 {
            let v = KK_IDX[t][sq];
            if v != Z0 {
                inv[v as usize] = (INV_TRIANGLE[t], sq as u8);
            }
            sq += 1;
        }
        t += 1;
    }
    inv
};

struct PawnConsts {
    map_pawns: [u64; 64],
    inv_map_pawns: [u8; 48],
    lead_pawn_idx: [[u64; 64]; 6],
    lead_pawns_size: [[u64; 4]; 6],
}

const PAWNS: PawnConsts = {
    let mut available_squares = 48;
    let mut map_pawns = [0; 64];
    let mut inv_map_pawns = [0; 48];
    let mut lead_pawn_idx = [[0; 64]; 6];
    let mut lead_pawns_size = [[0; 4]; 6];
    let mut lead_pawns_cnt = 1;
    while lead_pawns_cnt <= 5 {
        let mut file = 0;
        while file < 4 {
            let mut idx = 0;
            let mut rank = 1;
            while rank < 7 {
                let sq = file + 8 * rank;
                if lead_pawns_cnt == 1 {
                    available_squares -= 1;
                    map_pawns[sq] = available_squares;
                    inv_map_pawns[available_squares as usize] = sq as u8;
                    available_squares -= 1;
                    map_pawns[sq ^ 0x7] = available_squares;
                    inv_map_pawns[available_squares as usize] = (sq ^ 0x7) as u8;
                }
                lead_pawn_idx[lead_pawns_cnt][sq] = idx;
                idx += binomial(map_pawns[sq], lead_pawns_cnt as u64 - 1);
                rank += 1;
            }
            lead_pawns_size[lead_pawns_cnt][file] = idx;
            file += 1;
        }
        lead_pawns_cnt += 1;
    }
    PawnConsts {
        map_pawns,
        inv_map_pawns,
        lead_pawn_idx,
        lead_pawns_size,
    }
};

/// Syzygy's pawn order: the lead-colour pawn with the highest value leads.
#[inline]
pub(crate) fn map_pawn(sq: u8) -> u64 {
    PAWNS.map_pawns[usize::from(sq)]
}

#[inline]
fn file_of(sq: u8) -> u8 {
    sq & 7
}

#[inline]
fn rank_of(sq: u8) -> u8 {
    sq >> 3
}

#[inline]
fn flip_diagonal(sq: u8) -> u8 {
    ((sq >> 3) | (sq << 3)) & 63
}

#[inline]
fn offdiag(sq: u8) -> bool {
    file_of(sq) != rank_of(sq)
}

/// How the leading group is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lead {
    /// Leading pawns of one colour.
    Pawns,
    /// Three unique pieces.
    ThreeUnique,
    /// The two kings.
    Kings,
}

/// The encoding of one sub-table.
#[derive(Debug, Clone)]
pub(crate) struct SubCodec {
    /// Pieces in encoding order, colours in the file's frame.
    pub(crate) pieces: Vec<Piece>,
    /// Group lengths.
    pub(crate) lens: Vec<usize>,
    factors: Vec<u64>,
    radix: Vec<u64>,
    pub(crate) lead: Lead,
    pp: bool,
    file: u8,
    /// Number of indices.
    pub(crate) size: u64,
}

impl SubCodec {
    /// Group data of a sub-table (as shakmaty-syzygy's `GroupData::new`).
    fn new(pieces: Vec<Piece>, order: [u8; 2], file: u8) -> Option<SubCodec> {
        let count = |p: Piece| pieces.iter().filter(|q| **q == p).count();
        let has_pawns = pieces.iter().any(|p| p.role == Role::Pawn);
        let pp = pieces.contains(&Color::White.pawn()) && pieces.contains(&Color::Black.pawn());
        let unique = pieces
            .iter()
            .enumerate()
            .filter(|&(i, p)| count(*p) == 1 && !pieces[..i].contains(p))
            .count();
        let (lead, first_len) = if has_pawns {
            (Lead::Pawns, 0)
        } else if unique >= 3 {
            (Lead::ThreeUnique, 3)
        } else if unique == 2 {
            (Lead::Kings, 2)
        } else {
            return None;
        };
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
            lens.push(j - i);
            i = j;
        }
        if has_pawns && (pieces[0].role != Role::Pawn || !(1..=5).contains(&lens[0])) {
            return None;
        }
        if pp && (lens.len() < 2 || pieces[lens[0]].role != Role::Pawn) {
            return None;
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
                    Lead::Pawns => PAWNS.lead_pawns_size[lens[0]][usize::from(file)],
                    Lead::ThreeUnique => THREE_UNIQUE_SIZE,
                    Lead::Kings => KINGS_SIZE,
                };
                0
            } else if k == order[1] {
                if !pp {
                    return None;
                }
                radix[1] = binom(48 - lens[0] as u64, lens[1]);
                1
            } else {
                radix[next] = binom(free_squares, lens[next]);
                free_squares = free_squares.checked_sub(lens[next] as u64)?;
                next += 1;
                next - 1
            };
            if assigned[g] {
                return None;
            }
            assigned[g] = true;
            factors[g] = idx;
            idx = idx.checked_mul(radix[g])?;
            k = k.checked_add(1)?;
            if k > 16 {
                return None;
            }
        }
        if assigned.iter().any(|a| !a) || radix.contains(&0) {
            return None;
        }
        Some(SubCodec {
            pieces,
            lens,
            factors,
            radix,
            lead,
            pp,
            file,
            size: idx,
        })
    }

    /// The index of a placement: `squares` in encoding order, in the file's
    /// colour frame; for pawn tables the first square is the leading pawn.
    /// Canonicalises `squares` in place. `None` for kings that cannot be
    /// encoded (adjacent, in tables whose leading group is the kings).
    #[inline]
    pub(crate) fn encode(&self, squares: &mut [u8]) -> Option<u64> {
        if file_of(squares[0]) >= 4 {
            for sq in squares.iter_mut() {
                *sq ^= 7;
            }
        }
        let mut idx = match self.lead {
            Lead::Pawns => {
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
                        *sq ^= 56;
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
            if len > 1 {
                group.sort_unstable();
            }
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

    /// The canonical placement of an index, squares in encoding order.
    pub(crate) fn decode(&self, idx: u64, squares: &mut [u8; MAX]) {
        let mut digits = [0u64; MAX];
        for (g, d) in digits.iter_mut().enumerate().take(self.lens.len()) {
            *d = (idx / self.factors[g]) % self.radix[g];
        }
        self.fill(&digits, 0, squares);
    }

    /// A cursor at `idx`, for decoding consecutive indices cheaply.
    pub(crate) fn cursor(&self, idx: u64) -> Cursor<'_> {
        let n = self.lens.len();
        let mut digits = [0u64; MAX];
        for (g, d) in digits.iter_mut().enumerate().take(n) {
            *d = (idx / self.factors[g]) % self.radix[g];
        }
        let mut by_factor = [0usize; MAX];
        for (k, b) in by_factor.iter_mut().enumerate().take(n) {
            *b = k;
        }
        by_factor[..n].sort_unstable_by_key(|&g| self.factors[g]);
        let mut squares = [0u8; MAX];
        self.fill(&digits, 0, &mut squares);
        Cursor {
            codec: self,
            digits,
            by_factor,
            squares,
        }
    }

    /// Recomputes the squares of groups `from..` from their digits (the
    /// squares of earlier groups are in place).
    #[inline]
    fn fill(&self, digits: &[u64; MAX], from: usize, squares: &mut [u8; MAX]) {
        if from == 0 {
            let v = digits[0];
            match self.lead {
                Lead::Pawns => {
                    let lc = self.lens[0];
                    let file = self.file;
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
        let first = from.max(1);
        let mut group_sq: usize = self.lens[..first].iter().sum();
        // The squares placed so far, sorted (insertion sort on a
        // fixed-size array: no memcpy, no allocation).
        let mut sorted = [u8::MAX; MAX];
        for k in 0..group_sq {
            insert(&mut sorted, k, squares[k]);
        }
        for g in first..self.lens.len() {
            let len = self.lens[g];
            let offset: u8 = if self.pp && g == 1 { 8 } else { 0 };
            let free = if self.pp && g == 1 {
                48 - self.lens[0] as u64
            } else {
                64 - group_sq as u64
            };
            let mut n = digits[g];
            let mut upper = free;
            for i in (0..len).rev() {
                let r = largest_below(n, i + 1, upper);
                n -= binom(r, i + 1);
                upper = r;
                let mut sq = r as u8 + offset;
                for &p in &sorted[..group_sq] {
                    if p <= sq {
                        sq += 1;
                    }
                }
                squares[group_sq + i] = sq;
            }
            for k in group_sq..group_sq + len {
                insert(&mut sorted, k, squares[k]);
            }
            group_sq += len;
        }
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
            Lead::Pawns => {
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

/// Inserts `v` into the sorted prefix `sorted[..k]`.
#[inline]
fn insert(sorted: &mut [u8; MAX], k: usize, v: u8) {
    let mut i = k;
    while i > 0 && sorted[i - 1] > v {
        sorted[i] = sorted[i - 1];
        i -= 1;
    }
    sorted[i] = v;
}

/// Decodes consecutive indices of one sub-table: each step updates the
/// mixed-radix digits and recomputes only the groups that change.
pub(crate) struct Cursor<'a> {
    codec: &'a SubCodec,
    digits: [u64; MAX],
    by_factor: [usize; MAX],
    /// The squares of the current index, in encoding order.
    pub(crate) squares: [u8; MAX],
}

impl Cursor<'_> {
    /// Moves to the next index (which must exist).
    #[inline]
    pub(crate) fn advance(&mut self) {
        let c = self.codec;
        let mut low = usize::MAX;
        for &g in &self.by_factor[..c.lens.len()] {
            low = low.min(g);
            self.digits[g] += 1;
            if self.digits[g] < c.radix[g] {
                break;
            }
            self.digits[g] = 0;
        }
        c.fill(&self.digits, low, &mut self.squares);
    }
}

#[inline]
fn largest_below(n: u64, k: usize, upper: u64) -> u64 {
    if k == 1 {
        return n;
    }
    let mut r = upper - 1;
    while binom(r, k) > n {
        r -= 1;
    }
    r
}

fn decode_three_unique(v: u64) -> (u8, u8, u8) {
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

/// Piece counts by colour and role (`role as usize - 1`).
pub(crate) type Counts = [[u8; 6]; 2];

fn cidx(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// Counts of a list of pieces.
pub(crate) fn counts_of(pieces: impl IntoIterator<Item = Piece>) -> Counts {
    let mut counts = [[0u8; 6]; 2];
    for p in pieces {
        counts[cidx(p.color)][p.role as usize - 1] += 1;
    }
    counts
}

/// One sub-table of a file: its encoding and place in the side's index
/// space.
#[derive(Debug, Clone)]
pub(crate) struct SubInfo {
    /// The encoding.
    pub(crate) codec: SubCodec,
    /// Side to move stored.
    pub(crate) side: Color,
    /// Leading pawn file (0 for pawnless tables).
    pub(crate) file: u8,
    /// First index in the side's index space.
    pub(crate) start: u64,
}

/// All sub-table encodings of one file, and the lookup of positions.
#[derive(Debug, Clone)]
pub(crate) struct TableCodec {
    counts: Counts,
    /// Symmetric material (Black to move is folded into White).
    pub(crate) symmetric: bool,
    /// The material has pawns.
    pub(crate) has_pawns: bool,
    lead_color: Color,
    /// Sub-tables.
    pub(crate) subs: Vec<SubInfo>,
    /// Sub-table by (file, side).
    by_file: [[Option<usize>; 2]; 4],
}

/// A position located in a table: the side to move in the file's frame,
/// the sub-table and the index within the side's index space.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Located {
    /// Side to move in the file's frame.
    pub(crate) side: Color,
    /// Sub-table number.
    pub(crate) sub: usize,
    /// Index in the side's index space.
    pub(crate) idx: u64,
}

impl TableCodec {
    /// Reads the encodings of every sub-table of `table`, inferring each
    /// group order from the decoder. `None` if some sub-table matches no
    /// candidate order (the caller reports a corrupt table).
    pub(crate) fn of(table: &SweepTable) -> Option<TableCodec> {
        let counts = parse_counts(table.material())?;
        let pawn = Role::Pawn as usize - 1;
        let has_pawns = counts[0][pawn] + counts[1][pawn] > 0;
        let symmetric = counts[0] == counts[1];
        let mut subs = Vec::new();
        let mut by_file = [[None; 2]; 4];
        let mut lead_color = Color::White;
        for side in table.stored_sides() {
            for info in table.subtables(side) {
                let file = info.lead_file.map_or(0, |f| f as u8);
                let codec = infer(table, side, &info)?;
                if has_pawns {
                    lead_color = codec.pieces[0].color;
                }
                by_file[usize::from(file)][cidx(side)] = Some(subs.len());
                subs.push(SubInfo {
                    codec,
                    side,
                    file,
                    start: info.start,
                });
            }
        }
        Some(TableCodec {
            counts,
            symmetric,
            has_pawns,
            lead_color,
            subs,
            by_file,
        })
    }

    /// The sub-table storing (file, side), if any.
    pub(crate) fn sub_of(&self, file: u8, side: Color) -> Option<usize> {
        self.by_file[usize::from(file)][cidx(side)]
    }

    /// Locates a position given as pieces (any order, any colour frame:
    /// the material may be colour-reversed) and side to move. With
    /// `any_side`, a side the file does not store is looked up in the
    /// sub-table of the other side (same placement, other side to move):
    /// the result's `side` is then the stored one, not `turn`.
    pub(crate) fn locate(
        &self,
        pieces: &[(Piece, u8)],
        turn: Color,
        any_side: bool,
    ) -> Option<Located> {
        let n = pieces.len();
        let mut work = [(Color::White.king(), 0u8); MAX];
        work[..n].copy_from_slice(pieces);
        let work = &mut work[..n];
        let counts = counts_of(work.iter().map(|p| p.0));
        let mut flip = if counts == self.counts {
            false
        } else if counts == [self.counts[1], self.counts[0]] {
            true
        } else {
            return None;
        };
        if self.symmetric && turn == Color::Black {
            flip = true;
        }
        let side = if flip { !turn } else { turn };
        if flip {
            for p in work.iter_mut() {
                p.0.color = !p.0.color;
                p.1 ^= 56;
            }
        }
        let mut squares = [0u8; MAX];
        let mut used = 0u64;
        let mut k = 0;
        let file = if self.has_pawns {
            let lead = self.lead_color.pawn();
            let mut best = 0u64;
            let mut lead_sq = 0u8;
            for p in work.iter().filter(|p| p.0 == lead) {
                let m = map_pawn(p.1);
                if k == 0 || m > best {
                    best = m;
                    lead_sq = p.1;
                }
                k += 1;
            }
            squares[0] = lead_sq;
            used |= 1 << lead_sq;
            let f = file_of(lead_sq);
            if f >= 4 {
                7 - f
            } else {
                f
            }
        } else {
            0
        };
        let sub = match self.sub_of(file, side) {
            Some(s) => s,
            None if any_side => self.sub_of(file, !side)?,
            None => return None,
        };
        let info = &self.subs[sub];
        let codec = &info.codec;
        let start = if self.has_pawns { 1 } else { 0 };
        for (slot, piece) in codec.pieces.iter().enumerate().skip(start) {
            let p = work
                .iter()
                .find(|p| p.0 == *piece && used & (1 << p.1) == 0)?;
            squares[slot] = p.1;
            used |= 1 << p.1;
        }
        let idx = codec.encode(&mut squares[..n])?;
        Some(Located {
            side: info.side,
            sub,
            idx: info.start + idx,
        })
    }
}

/// Piece counts of a table name such as `KRBvKR`.
pub(crate) fn parse_counts(name: &str) -> Option<Counts> {
    let (w, b) = name.split_once('v')?;
    let mut counts = [[0u8; 6]; 2];
    for (c, part) in [w, b].into_iter().enumerate() {
        for ch in part.chars() {
            let role = Role::from_char(ch.to_ascii_lowercase())?;
            counts[c][role as usize - 1] += 1;
        }
    }
    Some(counts)
}

/// Finds the group order of a sub-table: the candidate whose decoding
/// agrees with the table's own decoder on spread indices.
fn infer(table: &SweepTable, side: Color, info: &crate::sweep::SubTableInfo) -> Option<SubCodec> {
    let file = info.lead_file.map_or(0, |f| f as u8);
    let pp =
        info.pieces.contains(&Color::White.pawn()) && info.pieces.contains(&Color::Black.pawn());
    let seconds: Vec<u8> = if pp { (0..8).collect() } else { vec![0xf] };
    let samples: Vec<u64> = {
        let n = info.len;
        let mut v: Vec<u64> = (0..97u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % n)
            .collect();
        v.extend([0, 1, n - 1, n / 2, n / 3]);
        v
    };
    for o0 in 0..8u8 {
        for &o1 in &seconds {
            if o0 == o1 {
                continue;
            }
            let Some(codec) = SubCodec::new(info.pieces.clone(), [o0, o1], file) else {
                continue;
            };
            if codec.size != info.len {
                continue;
            }
            let ok = samples.iter().all(|&local| {
                let Some(p) = table.placement(side, info.start + local) else {
                    return false;
                };
                let mut sq = [0u8; MAX];
                codec.decode(local, &mut sq);
                p.pieces()
                    .iter()
                    .zip(sq.iter())
                    .all(|((_, s), mine)| u8::from(*s) == *mine)
            });
            if ok {
                return Some(codec);
            }
        }
    }
    None
}
