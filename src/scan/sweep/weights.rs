//! From Syzygy's indices to docs/design.md's counting convention.
//!
//! An index stands for `images` boards (placements with like pieces as a
//! set; see [`crate::tables::reader::Encoding::images`]). Our convention counts
//! orbits of *ordered* placements (like pieces distinguished) under the
//! board symmetries G: a placement x contributes |Stab(x)| / |G|. With two
//! unique kings, Stab(x) is trivial except for pawnless placements with
//! every piece on one main diagonal (|Stab| = 2). So an index contributes
//! `images × k! × (1 + all on a main diagonal)` in units of 1/|G|, where k!
//! is the product of the factorials of the like-piece counts; sums of whole
//! orbits are multiples of |G|, and the division is exact (checked).
//!
//! The probe engine visits, for each orbit, its lexicographically smallest
//! ordered placement (squares in [`Material::pieces`] order); that
//! placement decides the `--shard` work item, the filter's argument and the
//! FEN of a longest position. [`Canon`] computes it for every ordering of
//! the like pieces of a board.

use shakmaty::{Board, Chess, Color, Piece, Square};

use super::board::Pos;
use crate::{
    chess::material::{Material, Symmetry},
    chess::position::fen_of,
    model::{enumerate::Enumerator, Shard},
    tables::reader::MAX,
};

/// Whether every piece stands on the a1-h8 diagonal or every piece on the
/// a8-h1 diagonal: such a placement is fixed by a diagonal reflection.
#[inline]
pub(crate) fn on_one_diagonal(pos: &Pos) -> bool {
    let sq = &pos.sq[..pos.n];
    sq.iter().all(|&s| s & 7 == s >> 3) || sq.iter().all(|&s| (s & 7) + (s >> 3) == 7)
}

/// The product of the factorials of the like-piece counts.
pub(crate) fn like_factorial(pieces: &[Piece]) -> u64 {
    let mut f = 1u64;
    let mut seen: Vec<(Piece, u64)> = Vec::new();
    for p in pieces {
        match seen.iter_mut().find(|(q, _)| q == p) {
            Some((_, n)) => {
                *n += 1;
                f *= *n;
            }
            None => seen.push((*p, 1)),
        }
    }
    f
}

/// Canonical placements in the probe engine's sense, in the user's frame.
pub(crate) struct Canon {
    /// The pieces in [`Material::pieces`] order.
    pieces: Vec<Piece>,
    symmetries: &'static [Symmetry],
    /// Work item number by [`Enumerator::item_key`] of a placement.
    item: Vec<u32>,
    enumerator: Enumerator,
}

/// A canonical ordered placement: the square of each piece in
/// [`Material::pieces`] order.
pub(crate) type Squares = [u8; MAX];

impl Canon {
    /// For the user's material.
    pub(crate) fn new(material: &Material) -> Canon {
        let enumerator = Enumerator::new(material);
        let item = enumerator.item_numbers();
        Canon {
            pieces: material.pieces(),
            symmetries: material.symmetries(),
            item,
            enumerator,
        }
    }

    /// The canonical placement of every ordering of the like pieces of a
    /// board (given in the user's frame, any slot order).
    pub(crate) fn reps(&self, pos: &Pos) -> Vec<Squares> {
        let mut out = Vec::new();
        self.for_each_rep(pos, |x| out.push(x));
        out
    }

    /// Calls `visit` with the canonical placement of every ordering of the
    /// like pieces of a board (given in the user's frame, any slot order),
    /// in the order of [`Self::reps`]. It allocates nothing and compares
    /// placements as integers: a sharded or filtered sweep calls it for
    /// every position, five billion times per side for KNN v KNN.
    pub(crate) fn for_each_rep(&self, pos: &Pos, visit: impl FnMut(Squares)) {
        self.for_each_rep_in(pos, None, visit);
    }

    /// [`Canon::for_each_rep`], but only for the orderings whose first
    /// squares `prefixes` keeps (by [`Enumerator::item_key`]; see
    /// [`Canon::shard_prefixes`]): the others are passed over before their
    /// canonical placement is sought, the costly part.
    pub(crate) fn for_each_rep_in(
        &self,
        pos: &Pos,
        prefixes: Option<&[bool]>,
        mut visit: impl FnMut(Squares),
    ) {
        // Squares of each user slot, like pieces in ascending order.
        let mut base = [0u8; MAX];
        let mut used = [false; MAX];
        for (slot, piece) in self.pieces.iter().enumerate() {
            let mut best: Option<usize> = None;
            for k in 0..pos.n {
                if !used[k] && pos.pc[k] == *piece && best.is_none_or(|b| pos.sq[k] < pos.sq[b]) {
                    best = Some(k);
                }
            }
            let k = best.expect("material matches");
            used[k] = true;
            base[slot] = pos.sq[k];
        }
        self.orderings(&mut base, 0, &mut |x| {
            if prefixes.is_none_or(|keep| keep[self.enumerator.item_key(x)]) {
                visit(self.canonical(x));
            }
        });
    }

    /// Which first squares of an ordering (by [`Enumerator::item_key`]) can
    /// lead to a canonical placement in `shard`. The canonical placement is
    /// the ordering's image under one symmetry, so its first squares are
    /// the image of the ordering's: an ordering none of whose images of its
    /// first squares starts a work item of the shard is not in it. With one
    /// work item in tens of thousands per shard, that rules out nearly every
    /// ordering at the cost of one lookup (a shard of a 6-piece sweep spent
    /// most of its time on canonical placements before).
    pub(crate) fn shard_prefixes(&self, shard: Shard) -> Vec<bool> {
        let fixed = self.enumerator.fixed_pieces();
        let in_shard = |squares: &Squares| {
            let item = self.item[self.enumerator.item_key(squares)];
            item != u32::MAX && shard.holds(item)
        };
        (0..64usize.pow(fixed as u32))
            .map(|key| {
                let mut first = [0u8; MAX];
                let mut rest = key;
                for sq in first[..fixed].iter_mut().rev() {
                    *sq = (rest % 64) as u8;
                    rest /= 64;
                }
                // The symmetries start with the identity.
                self.symmetries.iter().any(|g| {
                    let mut image = [0u8; MAX];
                    for (to, &from) in image[..fixed].iter_mut().zip(&first[..fixed]) {
                        *to = u8::from(g.apply(Square::new(u32::from(from))));
                    }
                    in_shard(&image)
                })
            })
            .collect()
    }

    /// Every ordering within the groups of like pieces from slot `k` on,
    /// groups in slot order, each group's orderings by swaps.
    fn orderings(&self, x: &mut Squares, k: usize, visit: &mut dyn FnMut(&Squares)) {
        let n = self.pieces.len();
        if k == n {
            visit(x);
            return;
        }
        let mut end = k + 1;
        while end < n && self.pieces[end] == self.pieces[k] {
            end += 1;
        }
        for i in k..end {
            x.swap(k, i);
            self.orderings(x, k + 1, visit);
            x.swap(k, i);
        }
    }

    /// The smallest image of `x` under the material's symmetries, squares
    /// compared in piece order (as one big-endian integer).
    fn canonical(&self, x: &Squares) -> Squares {
        let n = self.pieces.len();
        let key = |y: &Squares| {
            y[..n]
                .iter()
                .fold(0u64, |acc, &sq| (acc << 8) | u64::from(sq))
        };
        let mut best = *x;
        let mut best_key = key(x);
        for g in self.symmetries {
            let mut y = [0u8; MAX];
            for k in 0..n {
                y[k] = u8::from(g.apply(Square::new(u32::from(x[k]))));
            }
            let y_key = key(&y);
            if y_key < best_key {
                best = y;
                best_key = y_key;
            }
        }
        best
    }

    /// The work item of a canonical placement.
    pub(crate) fn item(&self, x: &Squares) -> u32 {
        self.item[self.enumerator.item_key(x)]
    }

    /// The position of a canonical placement.
    pub(crate) fn position(&self, x: &Squares, turn: Color) -> Option<Chess> {
        let mut board = Board::empty();
        for (piece, sq) in self.pieces.iter().zip(x) {
            board.set_piece_at(Square::new(u32::from(*sq)), *piece);
        }
        self.enumerator.position(&board, turn)
    }

    /// The FEN the probe engine reports for a canonical placement.
    pub(crate) fn fen(&self, x: &Squares, turn: Color) -> String {
        self.position(x, turn)
            .map(|p| fen_of(&p))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use rand::{rngs::StdRng, seq::SliceRandom, SeedableRng};

    use super::*;

    /// The shard prefilter against the exact test on random orderings: an
    /// ordering whose canonical placement is in the shard is never ruled
    /// out, and most orderings are (it would be no use otherwise).
    #[test]
    fn shard_prefixes_keep_every_placement_of_the_shard() {
        let mut rng = StdRng::seed_from_u64(29);
        for name in ["KNNvKNN", "KRNvKNN", "KRPvKR", "KQvK"] {
            let material: Material = name.parse().unwrap();
            let canon = Canon::new(&material);
            let n = canon.pieces.len();
            let items = canon.enumerator.work_items().len() as u32;
            for shard in [
                Shard { k: 1, n: 7 },
                Shard {
                    k: items / 2,
                    n: items,
                },
            ] {
                let keep = canon.shard_prefixes(shard);
                let (mut inside, mut kept) = (0, 0);
                let tries = 20_000;
                let squares: Vec<u8> = (0..64).collect();
                for _ in 0..tries {
                    let mut x = [0u8; MAX];
                    for (slot, &sq) in squares.choose_multiple(&mut rng, n).enumerate() {
                        x[slot] = sq;
                    }
                    // Pawns on their ranks, so that the placement is one.
                    if canon
                        .pieces
                        .iter()
                        .zip(&x)
                        .any(|(p, &sq)| p.role == shakmaty::Role::Pawn && !(8..56).contains(&sq))
                    {
                        continue;
                    }
                    let c = canon.canonical(&x);
                    let item = canon.item[canon.enumerator.item_key(&c)];
                    let in_shard = item != u32::MAX && shard.holds(item);
                    let passes = keep[canon.enumerator.item_key(&x)];
                    assert!(!in_shard || passes, "{name} {x:?} in {shard:?}");
                    inside += u32::from(in_shard);
                    kept += u32::from(passes);
                }
                if shard.n == 7 {
                    assert!(inside > 0, "{name}: no ordering in {shard:?}");
                } else {
                    // One work item of thousands: nearly all ruled out.
                    assert!(kept < tries / 50, "{name}: {kept} of {tries} kept");
                }
            }
        }
    }
}
