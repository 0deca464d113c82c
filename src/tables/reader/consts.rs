//! The constant tables of the Syzygy index scheme (standard chess only):
//! binomials, the triangle and diagonal maps of the pawnless encodings,
//! the two kings' 462 placements and the pawn orders.
//!
//! The index scheme is Ronald de Man's. The tables are ported from
//! shakmaty-syzygy 0.28 (`src/table.rs`, by Niklas Fiekas), which is
//! GPL-3.0-or-later like this crate; their inverses (for decoding) are our
//! own. They sit apart from the arithmetic in [`super::index`] because they
//! are data: long, checked once, and read by every part of the layer.

/// Maximum number of pieces in a table.
pub(crate) const MAX_PIECES: usize = 7;

/// Number of placements of a leading group of three unique pieces.
pub(crate) const THREE_UNIQUE_SIZE: u64 = 31_332;

/// Number of placements of the two kings (when they form the leading group).
pub(crate) const KINGS_SIZE: u64 = 462;

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

/// `BINOM[n][k]` = n choose k, for `n <= 64`, `k <= 7`.
const BINOM: [[u64; MAX_PIECES + 1]; 65] = {
    let mut t = [[0; MAX_PIECES + 1]; 65];
    let mut n = 0;
    while n <= 64 {
        let mut k = 0;
        while k <= MAX_PIECES {
            t[n][k] = binomial(n as u64, k as u64);
            k += 1;
        }
        n += 1;
    }
    t
};

#[inline]
pub(crate) fn binom(n: u64, k: usize) -> u64 {
    BINOM[n as usize][k]
}

/// The squares of the a1-d1-d4 triangle, by their index in the encodings.
pub(super) const INV_TRIANGLE: [u8; 10] = [1, 2, 3, 10, 11, 19, 0, 9, 18, 27];

/// Maps squares into the a1-d1-d4 triangle: the index of the square the
/// board's symmetries (the two mirrors and the a1-h8 diagonal) bring them
/// to, computed from [`INV_TRIANGLE`] so that the two cannot disagree.
pub(crate) const TRIANGLE: [u64; 64] = {
    let mut table = [0; 64];
    let mut sq = 0;
    while sq < 64 {
        let (mut file, mut rank) = (sq % 8, sq / 8);
        if file > 3 {
            file = 7 - file;
        }
        if rank > 3 {
            rank = 7 - rank;
        }
        if rank > file {
            (file, rank) = (rank, file);
        }
        let mut t = 0;
        while INV_TRIANGLE[t] as usize != 8 * rank + file {
            t += 1;
        }
        table[sq] = t as u64;
        sq += 1;
    }
    table
};

/// Maps the b1-h1-h7 triangle (below the a1-h8 diagonal) to `0..=27` in
/// square order, a square above the diagonal to its mirror image's number,
/// and the diagonal's squares to `28..=35`.
pub(crate) const LOWER: [u64; 64] = {
    let mut table = [0; 64];
    let mut below = 0;
    let mut sq = 0;
    while sq < 64 {
        let (file, rank) = (sq % 8, sq / 8);
        if file == rank {
            table[sq] = 28 + rank as u64;
        } else if file > rank {
            table[sq] = below;
            table[8 * file + rank] = below;
            below += 1;
        }
        sq += 1;
    }
    table
};

/// Inverse of `LOWER` on the squares below the diagonal.
pub(super) const INV_LOWER: [u8; 28] = {
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

/// Unused entry.
pub(crate) const Z0: u64 = u64::MAX;

/// Encoding of all 462 configurations of two not-connected kings, by the
/// first king's triangle index and the second king's square.
///
/// Computed as the format defines it rather than written out: the first
/// king on each triangle square in turn, the second on every square it does
/// not touch, numbered in square order; with the first king on the a1-h8
/// diagonal the second stays on or below it, and the placements with both
/// on the diagonal are numbered last.
pub(crate) const KK_IDX: [[u64; 64]; 10] = {
    const fn file_rank(sq: usize) -> (usize, usize) {
        (sq % 8, sq / 8)
    }
    let mut table = [[Z0; 64]; 10];
    let mut code = 0;
    // Pass 0 numbers the placements not both on the diagonal; pass 1 the rest.
    let mut pass = 0;
    while pass < 2 {
        let mut t = 0;
        while t < 10 {
            let (f1, r1) = file_rank(INV_TRIANGLE[t] as usize);
            let mut sq = 0;
            while sq < 64 {
                let (f2, r2) = file_rank(sq);
                let touch = f1.abs_diff(f2) <= 1 && r1.abs_diff(r2) <= 1;
                let both_on_diagonal = f1 == r1 && f2 == r2;
                let above = f1 == r1 && r2 > f2;
                if !touch && !above && both_on_diagonal == (pass == 1) {
                    table[t][sq] = code;
                    code += 1;
                }
                sq += 1;
            }
            t += 1;
        }
        pass += 1;
    }
    table
};

/// Inverse of `KK_IDX`: index to (first king, second king).
pub(super) const INV_KK: [(u8, u8); KINGS_SIZE as usize] = {
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

/// Pawn related constants (see shakmaty-syzygy's `Consts`).
pub(crate) struct PawnConsts {
    /// Order of pawn squares: a2 = 47, h2 = 46, a3 = 45, ... (files a/h
    /// first, then b/g, ...).
    pub(crate) map_pawns: [u64; 64],
    /// Inverse of `map_pawns`.
    pub(crate) inv_map_pawns: [u8; 48],
    /// Start index of a leading pawn square, by number of leading pawns.
    pub(crate) lead_pawn_idx: [[u64; 64]; 6],
    /// Number of leading pawn placements per file, by number of leading pawns.
    pub(crate) lead_pawns_size: [[u64; 4]; 6],
}

pub(crate) const PAWNS: PawnConsts = {
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
