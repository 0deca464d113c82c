//! The index of the placements of one sub-table where one piece moves and
//! the others stand still, as a function of the mover's square: the
//! incremental interface of [`super::index::Encoding`] for the sweep's hot
//! loops, where a successor's index then costs a few comparisons instead of
//! an encoding. It gives what `Encoding::encode` gives (the tests check it
//! on every kind of sub-table), so the crate still has one encoder.

use shakmaty::Role;

use super::consts::binom;
use super::index::{sort_small, Encoding, Symmetry, MAX_PIECES as MAX};

impl Encoding {
    /// The group a slot belongs to.
    pub(crate) fn group_of(&self, slot: usize) -> usize {
        let mut end = 0;
        for (g, &len) in self.lens.iter().enumerate() {
            end += len;
            if slot < end {
                return g;
            }
        }
        self.lens.len()
    }

    /// Whether slot `slot` can be the piece [`Encoding::mover`] moves: a
    /// group of its own after the leading group (so that it decides no
    /// symmetry), not a pawn (pawn groups have their own square ranges).
    pub(crate) fn can_move(&self, slot: usize) -> bool {
        let g = self.group_of(slot);
        g >= 1 && g < self.lens.len() && self.lens[g] == 1 && self.pieces[slot].role != Role::Pawn
    }

    /// The index of a placement as a function of the square of the piece
    /// in slot `slot` (which must satisfy [`Encoding::can_move`]), the
    /// other pieces fixed as in `squares` (encoding order, the mover's
    /// own square ignored): a placement's index then costs a few
    /// comparisons instead of an encoding. `None` where
    /// [`Encoding::encode`] has none (kings that cannot be encoded).
    ///
    /// Why it works: the mover is no part of the leading group, so the
    /// symmetry and the leading digit do not depend on it; its own digit
    /// is its square less the earlier groups' squares below it; and each
    /// piece of a later group loses one rank where the mover stands below
    /// it, which lowers the index by a constant per piece.
    pub(crate) fn mover(&self, squares: &[u8], slot: usize) -> Option<MoverIndex> {
        let n = self.pieces.len();
        let sym = self.symmetry(squares);
        let mut canon = [0u8; MAX];
        for (c, &sq) in canon.iter_mut().zip(&squares[..n]) {
            *c = sym.map(sq);
        }
        let lead = self.lead_digit(&mut canon[..n])?;
        let mover_group = self.group_of(slot);
        let mut m = MoverIndex {
            sym,
            base: lead * self.factors[0],
            factor: self.factors[mover_group],
            earlier: [u8::MAX; MAX],
            later: [(0, 0); MAX],
        };
        // The squares of the groups so far, the mover's excluded.
        let mut before = [u8::MAX; MAX];
        let mut placed = self.lens[0];
        before[..placed].copy_from_slice(&canon[..placed]);
        let mut later = 0;
        let mut group_sq = self.lens[0];
        for g in 1..self.lens.len() {
            let len = self.lens[g];
            if g == mover_group {
                m.earlier = before;
                group_sq += len;
                continue;
            }
            let group = &mut canon[group_sq..group_sq + len];
            if len > 1 {
                sort_small(group);
            }
            let offset = if self.pp && g == 1 { 8 } else { 0 };
            let mut digit = 0;
            for (i, &sq) in group.iter().enumerate() {
                let below = before[..placed].iter().filter(|&&o| o < sq).count() as u64;
                let rank = u64::from(sq) - below - offset;
                let term = binom(rank, i + 1);
                digit += term;
                if g > mover_group {
                    // With the mover below, one free square fewer below.
                    let lower = binom(rank.saturating_sub(1), i + 1);
                    m.later[later] = (sq, (term - lower) * self.factors[g]);
                    later += 1;
                }
            }
            m.base += digit * self.factors[g];
            before[placed..placed + len].copy_from_slice(group);
            placed += len;
            group_sq += len;
        }
        Some(m)
    }
}

/// The index of a sub-table's placements where one piece moves and the
/// others stand still (see [`Encoding::mover`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct MoverIndex {
    sym: Symmetry,
    /// The index with the mover's digit 0 and no later piece above it.
    base: u64,
    /// The factor of the mover's group.
    factor: u64,
    /// Canonical squares of the groups before the mover's (`u8::MAX`
    /// pads).
    earlier: [u8; MAX],
    /// Per piece of a later group: its canonical square, and how much
    /// the index drops where the mover stands below it (`(0, 0)` pads).
    later: [(u8, u64); MAX],
}

impl MoverIndex {
    /// The index with the mover on `sq` (a square the others leave free).
    #[inline]
    pub(crate) fn index(&self, sq: u8) -> u64 {
        let s = self.sym.map(sq);
        let below = self.earlier.iter().filter(|&&e| e < s).count() as u64;
        let mut idx = self.base + self.factor * (u64::from(s) - below);
        for &(q, drop) in &self.later {
            if s < q {
                idx -= drop;
            }
        }
        idx
    }

    /// [`MoverIndex::index`] of every square at once, by square (squares
    /// the other pieces hold get values of no meaning). The terms are
    /// carried from one canonical square to the next (the earlier squares
    /// below it, the later pieces' drops above it): cheaper than `index`
    /// on each of a run's squares, whose comparisons with the other
    /// pieces branch unpredictably (measured: pass 3 of KRBvKR 1.55x
    /// faster, pass 1 1.05x).
    #[inline]
    pub(crate) fn table(&self) -> [u64; 64] {
        let mut table = [0u64; 64];
        let earlier = self
            .earlier
            .iter()
            .filter(|&&e| e < 64)
            .fold(0u64, |bits, &e| bits | 1 << e);
        let mut drop_at = [0u64; 64];
        let mut above = 0u64;
        for &(q, drop) in &self.later {
            drop_at[usize::from(q)] += drop;
            above += drop;
        }
        let mut below = 0u64;
        for s in 0..64u8 {
            // Now the drops of the later pieces above `s` only.
            above -= drop_at[usize::from(s)];
            // Wrapping: on an occupied square the value is never read.
            let rank = u64::from(s).wrapping_sub(below);
            table[usize::from(self.sym.unmap(s))] = self
                .base
                .wrapping_add(self.factor.wrapping_mul(rank))
                .wrapping_sub(above);
            below += (earlier >> s) & 1;
        }
        table
    }
}
