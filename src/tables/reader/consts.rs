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

/// Maps squares into the a1-d1-d4 triangle.
#[rustfmt::skip]
pub(crate) const TRIANGLE: [u64; 64] = [
    6, 0, 1, 2, 2, 1, 0, 6,
    0, 7, 3, 4, 4, 3, 7, 0,
    1, 3, 8, 5, 5, 8, 3, 1,
    2, 4, 5, 9, 9, 5, 4, 2,
    2, 4, 5, 9, 9, 5, 4, 2,
    1, 3, 8, 5, 5, 8, 3, 1,
    0, 7, 3, 4, 4, 3, 7, 0,
    6, 0, 1, 2, 2, 1, 0, 6,
];

/// Inverse of `TRIANGLE` (restricted to the a1-d1-d4 triangle).
pub(super) const INV_TRIANGLE: [u8; 10] = [1, 2, 3, 10, 11, 19, 0, 9, 18, 27];

/// Maps the b1-h1-h7 triangle (below the a1-h8 diagonal) to `0..=27`.
#[rustfmt::skip]
pub(crate) const LOWER: [u64; 64] = [
    28,  0,  1,  2,  3,  4,  5,  6,
     0, 29,  7,  8,  9, 10, 11, 12,
     1,  7, 30, 13, 14, 15, 16, 17,
     2,  8, 13, 31, 18, 19, 20, 21,
     3,  9, 14, 18, 32, 22, 23, 24,
     4, 10, 15, 19, 22, 33, 25, 26,
     5, 11, 16, 20, 23, 25, 34, 27,
     6, 12, 17, 21, 24, 26, 27, 35,
];

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

/// Encoding of all 462 configurations of two not-connected kings.
#[rustfmt::skip]
pub(crate) const KK_IDX: [[u64; 64]; 10] = [[
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
