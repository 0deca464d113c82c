//! Squares, the board's symmetries and the king-pair table of the solver's
//! own index.
//!
//! Squares are `u8` in shakmaty's numbering (a1 = 0, b1 = 1, ..., h8 = 63).
//! Material without pawns is reduced by the 8 symmetries of the board: the
//! white king is brought into the triangle a1-d1-d4, and when it stands on
//! the a1-h8 diagonal the black king is brought on or below it. Those are
//! the 462 king pairs of [`KingPairs`]; adjacent kings are left out, since
//! such a placement is never a position.

use std::sync::OnceLock;

/// The number of symmetries of the board.
pub(crate) const SYMMETRIES: usize = 8;

/// The reflection in the a1-h8 diagonal, as an index into [`sym`].
pub(crate) const DIAGONAL: usize = 4;

/// The reflection in the a8-h1 diagonal, as an index into [`sym`].
pub(crate) const ANTI_DIAGONAL: usize = 5;

/// The a-h mirror, the one symmetry that keeps pawns pawns.
pub(crate) const MIRROR: usize = 1;

/// File (0 = a) of a square.
#[inline]
pub(crate) fn file(sq: u8) -> u8 {
    sq & 7
}

/// Rank (0 = first) of a square.
#[inline]
pub(crate) fn rank(sq: u8) -> u8 {
    sq >> 3
}

/// The image of `sq` under symmetry `g` (0 identity, 1 a-h mirror, 2 rank
/// mirror, 3 rotation by 180 degrees, 4 a1-h8 diagonal, 5 a8-h1 diagonal,
/// 6 and 7 the quarter turns).
#[inline]
pub(crate) fn sym(g: usize, sq: u8) -> u8 {
    tables().sym[g][sq as usize]
}

/// The symmetry that composes `a` after `b` (`sym(compose(a, b), s) ==
/// sym(a, sym(b, s))`).
#[inline]
pub(crate) fn compose(a: usize, b: usize) -> usize {
    tables().compose[a][b]
}

/// Whether two squares are the same or neighbours (kings there cannot
/// both stand).
#[inline]
pub(crate) fn kings_touch(a: u8, b: u8) -> bool {
    file(a).abs_diff(file(b)) <= 1 && rank(a).abs_diff(rank(b)) <= 1
}

/// Whether a square is on the a1-h8 diagonal.
#[inline]
pub(crate) fn on_diagonal(sq: u8) -> bool {
    file(sq) == rank(sq)
}

/// Whether a square is strictly above the a1-h8 diagonal.
#[inline]
pub(crate) fn above_diagonal(sq: u8) -> bool {
    rank(sq) > file(sq)
}

/// The canonical king pairs of material without pawns.
pub(crate) struct KingPairs {
    /// The pairs, in index order: `(white king, black king)`.
    pairs: Vec<(u8, u8)>,
    /// `index[wk * 64 + bk]`: the pair's index, or `u16::MAX` if the pair is
    /// not canonical or the kings touch.
    index: Vec<u16>,
}

impl KingPairs {
    /// The number of canonical pairs (462).
    pub(crate) fn len(&self) -> usize {
        self.pairs.len()
    }

    /// The squares of pair `i`.
    #[inline]
    pub(crate) fn squares(&self, i: usize) -> (u8, u8) {
        self.pairs[i]
    }

    /// The index of a canonical pair, if it is one.
    #[inline]
    pub(crate) fn index(&self, wk: u8, bk: u8) -> Option<usize> {
        match self.index[wk as usize * 64 + bk as usize] {
            u16::MAX => None,
            i => Some(i as usize),
        }
    }
}

/// The symmetry that takes the white king into the triangle a1-d1-d4 (for
/// a square on a diagonal of the triangle's orbit, the first of the two).
#[inline]
pub(crate) fn to_triangle(wk: u8) -> usize {
    tables().to_triangle[wk as usize] as usize
}

/// Whether a square is in the triangle a1-d1-d4.
pub(crate) fn in_triangle(sq: u8) -> bool {
    file(sq) <= 3 && rank(sq) <= file(sq)
}

/// The king-pair table, built once.
pub(crate) fn king_pairs() -> &'static KingPairs {
    &tables().kings
}

struct Tables {
    sym: [[u8; 64]; SYMMETRIES],
    compose: [[usize; SYMMETRIES]; SYMMETRIES],
    to_triangle: [u8; 64],
    kings: KingPairs,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut sym = [[0u8; 64]; SYMMETRIES];
        for sq in 0..64u8 {
            let (f, r) = (file(sq), rank(sq));
            let images = [
                (f, r),
                (7 - f, r),
                (f, 7 - r),
                (7 - f, 7 - r),
                (r, f),
                (7 - r, 7 - f),
                (r, 7 - f),
                (7 - r, f),
            ];
            for (g, (f2, r2)) in images.into_iter().enumerate() {
                sym[g][sq as usize] = r2 * 8 + f2;
            }
        }
        let mut compose = [[0usize; SYMMETRIES]; SYMMETRIES];
        for a in 0..SYMMETRIES {
            for b in 0..SYMMETRIES {
                let found = (0..SYMMETRIES)
                    .find(|&c| (0..64).all(|s| sym[c][s] == sym[a][sym[b][s] as usize]));
                compose[a][b] = found.expect("the symmetries form a group");
            }
        }
        let mut to_triangle = [0u8; 64];
        for sq in 0..64u8 {
            let g = (0..SYMMETRIES)
                .find(|&g| in_triangle(sym[g][sq as usize]))
                .expect("the triangle meets every orbit");
            to_triangle[sq as usize] = g as u8;
        }
        let mut pairs = Vec::new();
        let mut index = vec![u16::MAX; 64 * 64];
        for wk in (0..64u8).filter(|&s| in_triangle(s)) {
            for bk in 0..64u8 {
                if kings_touch(wk, bk) || (on_diagonal(wk) && above_diagonal(bk)) {
                    continue;
                }
                index[wk as usize * 64 + bk as usize] = pairs.len() as u16;
                pairs.push((wk, bk));
            }
        }
        Tables {
            sym,
            compose,
            to_triangle,
            kings: KingPairs { pairs, index },
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_king_pairs_are_the_462_of_the_literature() {
        // 462 is the classic count of legal king placements up to symmetry
        // (it is also the size of Syzygy's king index).
        assert_eq!(king_pairs().len(), 462);
    }

    #[test]
    fn symmetries_are_a_group_of_bijections() {
        for g in 0..SYMMETRIES {
            let mut seen = [false; 64];
            for s in 0..64u8 {
                seen[sym(g, s) as usize] = true;
            }
            assert!(seen.iter().all(|x| *x), "symmetry {g}");
        }
        // The mirror and the diagonal are involutions.
        for s in 0..64u8 {
            assert_eq!(sym(MIRROR, sym(MIRROR, s)), s);
            assert_eq!(sym(DIAGONAL, sym(DIAGONAL, s)), s);
            assert_eq!(
                sym(compose(DIAGONAL, MIRROR), s),
                sym(DIAGONAL, sym(MIRROR, s))
            );
        }
        // Agrees with the counting convention's symmetries.
        for (g, s) in crate::chess::material::Symmetry::ALL.iter().enumerate() {
            for sq in shakmaty::Square::ALL {
                assert_eq!(sym(g, sq as u8), s.apply(sq) as u8, "symmetry {g}");
            }
        }
    }

    #[test]
    fn every_king_pair_orbit_has_one_canonical_member() {
        // Brute force over all 64 x 64 pairs: each non-touching pair maps to
        // exactly one canonical pair (by some symmetry).
        for wk in 0..64u8 {
            for bk in 0..64u8 {
                if kings_touch(wk, bk) {
                    continue;
                }
                let hits: std::collections::BTreeSet<usize> = (0..SYMMETRIES)
                    .filter_map(|g| king_pairs().index(sym(g, wk), sym(g, bk)))
                    .collect();
                assert_eq!(hits.len(), 1, "{wk} {bk}");
            }
        }
    }
}
