//! Whole-table walks: every placement of a sub-table, in work units that
//! threads share, each placement given with its index, at the cost of a
//! look-up per step instead of a decode; and the walk with one piece
//! innermost, for [`super::mover`]. The sweep's whole-table decoder is their
//! client.
//!
//! Everything here is the [`Encoding`] of [`super::index`] enumerated in
//! another order: the walks are checked against `Encoding::decode` on every
//! index of the small tables.

// The index arithmetic walks parallel arrays (squares, digits, codes) by
// position, as the Syzygy format defines it; indexed loops say that best.
#![allow(clippy::needless_range_loop)]

use super::index::{Encoding, MAX_PIECES as MAX};

impl Encoding {
    /// Splits the placements into work units for [`Encoding::walk`].
    ///
    /// By groups where a unit stays compact in memory: the leading groups
    /// up to a split are fixed within a unit (at most 2^16 placements
    /// where the groups allow it), and the unit's indices span little more
    /// than its size. Otherwise (the group that varies fastest in index
    /// order comes first in the squares' order, so a walk by groups would
    /// stride through memory) in index order, in chunks: with the fastest
    /// group innermost where it comes after the leading group (as in the
    /// pawn tables, whose leading pawn varies slowest, and in KNN v KNN),
    /// else with a cursor.
    pub(crate) fn units(&self) -> Units {
        let n = self.lens.len();
        let split = self.split(n);
        let size: u64 = self.radix[split..].iter().product();
        let span: u64 = 1
            + (split..n)
                .map(|g| (self.radix[g] - 1) * self.factors[g])
                .sum::<u64>();
        if span <= 2 * size {
            return Units {
                order: Order::Groups { split },
                count: self.radix[..split].iter().product(),
            };
        }
        // Any group after the leading one; of several pieces, not the
        // other colour's pawns of a table whose both colours have pawns
        // (`pp`), whose ranks count from the second rank: no table here
        // has such a group innermost, so that walk is unchecked.
        match (1..n).find(|&g| self.factors[g] == 1 && (self.lens[g] == 1 || !(self.pp && g == 1)))
        {
            Some(group) => {
                let per_unit = (INDEX_CHUNK / self.radix[group]).max(1);
                Units {
                    order: Order::Fastest { group, per_unit },
                    count: (self.size / self.radix[group]).div_ceil(per_unit),
                }
            }
            None => Units {
                order: Order::Index,
                count: self.size.div_ceil(INDEX_CHUNK),
            },
        }
    }

    /// Calls `f(local index, squares)` for every placement of one work unit
    /// (see [`Encoding::units`]), squares as [`Encoding::decode`] gives
    /// them. By groups, the last group varies fastest: its squares are
    /// picked from a list of the squares the earlier groups leave free, so
    /// a step costs a look-up, not a decode. In index order, see
    /// [`Encoding::walk_fastest`]; else a cursor recomputes the groups from
    /// the first one whose digit changed.
    ///
    /// # Errors
    ///
    /// The first error `f` returns, which ends the walk.
    pub(crate) fn walk<E>(
        &self,
        units: Units,
        unit: u64,
        mut f: impl FnMut(u64, &[u8; MAX]) -> Result<(), E>,
    ) -> Result<(), E> {
        let split = match units.order {
            Order::Groups { split } => split,
            Order::Fastest { group, per_unit } => {
                return self.walk_fastest(group, per_unit, unit, f);
            }
            Order::Mover { .. } => unreachable!("units of the mover walk"),
            Order::Index => {
                let first = unit * INDEX_CHUNK;
                let last = (first + INDEX_CHUNK).min(self.size);
                let mut cursor = self.cursor(first);
                for local in first..last {
                    if local > first {
                        cursor.advance();
                    }
                    f(local, &cursor.squares)?;
                }
                return Ok(());
            }
        };
        let mut digits = [0u64; MAX];
        let mut rest = unit;
        for g in (0..split).rev() {
            digits[g] = rest % self.radix[g];
            rest /= self.radix[g];
        }
        let mut squares = [0u8; MAX];
        self.fill(&digits, 0, split, &mut squares, 0);
        let base = (0..split).map(|g| digits[g] * self.factors[g]).sum();
        let placed: usize = self.lens[..split].iter().sum();
        let occ = squares[..placed].iter().fold(0u64, |o, &s| o | 1 << s);
        self.walk_group(split, placed, occ, base, &mut squares, &mut f)
    }

    /// How many leading groups a work unit by groups fixes: the fewest
    /// (at least one) that leave at most 2^16 placements to the unit, but
    /// no more than `max`.
    fn split(&self, max: usize) -> usize {
        let mut split = 1;
        while split < max && self.radix[split..].iter().product::<u64>() > 1 << 16 {
            split += 1;
        }
        split
    }

    /// The work units for [`Encoding::walk_mover`] with the piece of slot
    /// `slot` innermost, `None` where it cannot be the mover (see
    /// [`Encoding::can_move`]): by groups, split as [`Encoding::units`]
    /// splits them (at most 2^16 placements a unit where the groups allow
    /// it) but never after the mover's group, which a unit must walk.
    ///
    /// Unlike [`Encoding::units`], this takes units by groups even where
    /// their indices spread over the sub-table (pawn tables, whose index
    /// is not in group order): the walk gets indices from
    /// [`Encoding::mover`], not from the order, and a run of the mover
    /// still reads a few nearby cache lines where its group varies fastest
    /// in the index.
    ///
    /// Where that leaves fewer than [`MIN_MOVER_UNITS`] units (a pawn table
    /// split after its leading pawns), each is cut into parts by ranges of
    /// the choices of the first group it walks besides the mover's, so
    /// that the threads share the work evenly.
    pub(crate) fn mover_units(&self, slot: usize) -> Option<Units> {
        if !self.can_move(slot) {
            return None;
        }
        let split = self.split(self.group_of(slot));
        let count: u64 = self.radix[..split].iter().product();
        let parts = match self.first_walked(split, slot) {
            Some(g) if count < MIN_MOVER_UNITS => {
                MIN_MOVER_UNITS.div_ceil(count).min(self.radix[g])
            }
            _ => 1,
        };
        Some(Units {
            order: Order::Mover { split, parts },
            count: count * parts,
        })
    }

    /// The first group from `split` on other than the mover's (slot
    /// `slot`), if any: the outermost that [`Encoding::walk_others`]
    /// enumerates.
    fn first_walked(&self, split: usize, slot: usize) -> Option<usize> {
        (split..self.lens.len()).find(|&g| g != self.group_of(slot))
    }

    /// Calls `f(squares, fresh)` for every placement of one work unit of
    /// [`Encoding::walk`] (the same placements, in another order: the
    /// piece of slot `slot` innermost, so that a caller can work out what
    /// depends on the other pieces once per run of the mover, with
    /// [`Encoding::mover`]). `fresh` says that a piece other than the mover
    /// moved since the last call. `units` must come from
    /// [`Encoding::mover_units`] for `slot`.
    ///
    /// # Errors
    ///
    /// The first error `f` returns, which ends the walk.
    pub(crate) fn walk_mover<E>(
        &self,
        units: Units,
        unit: u64,
        slot: usize,
        mut f: impl FnMut(&[u8; MAX], bool) -> Result<(), E>,
    ) -> Result<(), E> {
        let Order::Mover { split, parts } = units.order else {
            unreachable!("walk_mover needs the units of mover_units");
        };
        let part = unit % parts;
        let mut digits = [0u64; MAX];
        let mut rest = unit / parts;
        for g in (0..split).rev() {
            digits[g] = rest % self.radix[g];
            rest /= self.radix[g];
        }
        let mut squares = [0u8; MAX];
        self.fill(&digits, 0, split, &mut squares, 0);
        let placed: usize = self.lens[..split].iter().sum();
        let occ = squares[..placed].iter().fold(0u64, |o, &s| o | 1 << s);
        let mut fresh = true;
        // The part's range of the ranks the walk gives the first walked
        // group's choices (in colexicographic order). The mover is not
        // placed when that group is, so it has more choices than its
        // radix: the last part takes the rest.
        let range = match self.first_walked(split, slot) {
            Some(g) => {
                let r = self.radix[g];
                let end = if part + 1 == parts {
                    u64::MAX
                } else {
                    (part + 1) * r / parts
                };
                (g, part * r / parts..end)
            }
            None => (usize::MAX, 0..0),
        };
        self.walk_others(split, slot, occ, &range, &mut squares, &mut fresh, &mut f)
    }

    /// Enumerates the groups from `g` on but the mover's (slot `slot`),
    /// each on the squares the earlier ones leave free, then the mover.
    #[allow(clippy::too_many_arguments)]
    fn walk_others<E>(
        &self,
        g: usize,
        slot: usize,
        occ: u64,
        range: &(usize, std::ops::Range<u64>),
        squares: &mut [u8; MAX],
        fresh: &mut bool,
        f: &mut impl FnMut(&[u8; MAX], bool) -> Result<(), E>,
    ) -> Result<(), E> {
        if g == self.lens.len() {
            for sq in 0..64u8 {
                if occ & 1 << sq == 0 {
                    squares[slot] = sq;
                    f(squares, *fresh)?;
                    *fresh = false;
                }
            }
            return Ok(());
        }
        if g == self.group_of(slot) {
            return self.walk_others(g + 1, slot, occ, range, squares, fresh, f);
        }
        let len = self.lens[g];
        let at: usize = self.lens[..g].iter().sum();
        // As in `walk_group`; the mover is not placed yet, so its square
        // is among the free ones and is left to it afterwards.
        let (free, m) = if self.pp && g == 1 {
            free_squares(occ, 8, 48 - self.lens[0])
        } else {
            free_squares(occ, 0, 64)
        };
        let mut r = [0usize; MAX];
        for (i, ri) in r.iter_mut().enumerate().take(len) {
            *ri = i;
        }
        if len > m {
            return Ok(());
        }
        let mut rank = 0u64;
        loop {
            if g != range.0 || range.1.contains(&rank) {
                let mut bits = 0u64;
                for i in 0..len {
                    let sq = free[r[i]];
                    squares[at + i] = sq;
                    bits |= 1 << sq;
                }
                *fresh = true;
                self.walk_others(g + 1, slot, occ | bits, range, squares, fresh, f)?;
            }
            rank += 1;
            if !colex_next(&mut r[..len], m) || (g == range.0 && rank >= range.1.end) {
                return Ok(());
            }
        }
    }

    /// The walk in index order where group `fg` varies fastest (factor
    /// 1). An order-preserving map between boards carries the placements
    /// over: with the earlier groups' squares P fixed, the piece of group
    /// `fg` at rank t among the squares outside P, and the later groups
    /// decoded on a board of their own with t and P removed (virtual
    /// squares v, which depend on their digits alone), the real square of
    /// v is the (v + [v >= t])-th square outside P; a group of several
    /// pieces skips each of its ranks so. So the later groups are decoded
    /// once per `radix[fg]` placements, and each placement costs a table
    /// look-up per piece.
    fn walk_fastest<E>(
        &self,
        fg: usize,
        per_unit: u64,
        unit: u64,
        mut f: impl FnMut(u64, &[u8; MAX]) -> Result<(), E>,
    ) -> Result<(), E> {
        let n = self.lens.len();
        let radix = self.radix[fg];
        let len = self.lens[fg];
        // How many squares the group's pieces may take.
        let free = self.group_free(fg);
        let first = unit * per_unit;
        let last = (first + per_unit).min(self.size / radix);
        // Group `fg` has factor 1: step `o` is index `o * radix`.
        let mut digits = Digits::of(self, first * radix, Some(fg));
        let at: usize = self.lens[..fg].iter().sum();
        let count: usize = self.lens.iter().sum();
        let offset = if self.pp && fg == 1 { 8 } else { 0 };
        let mut squares = [0u8; MAX];
        let mut virt = [0u8; MAX];
        let mut outside = [0u8; 64];
        let mut changed = u64::MAX;
        for o in first..last {
            if o > first {
                changed = digits.step(&self.radix);
            }
            // The groups before `fg`, and the squares outside them.
            if let Some(low) = (0..fg).find(|&g| changed & 1 << g != 0) {
                self.fill(&digits.digits, low, fg, &mut squares, 0);
                let occ = squares[..at].iter().fold(0u64, |o, &s| o | 1 << s);
                outside = free_squares(occ, 0, 64).0;
            }
            if let Some(low) = (fg + 1..n).find(|&g| changed & 1 << g != 0) {
                self.fill(&digits.digits, low, n, &mut virt, at + len);
            }
            // The group's ranks r[0] < r[1] < ... among its squares, in
            // colexicographic order (the digit's); a virtual square skips
            // each of them (offset into the squares outside P) at or
            // below it.
            let mut r = [0usize; MAX];
            for (i, ri) in r.iter_mut().enumerate().take(len) {
                *ri = i;
            }
            for d in 0..radix {
                for i in 0..len {
                    squares[at + i] = outside[r[i] + offset];
                }
                for k in at + len..count {
                    let mut u = usize::from(virt[k]);
                    for &ri in &r[..len] {
                        u += usize::from(u >= ri + offset);
                    }
                    squares[k] = outside[u];
                }
                f(o * radix + d, &squares)?;
                colex_next(&mut r[..len], free);
            }
        }
        Ok(())
    }

    /// A cursor at `idx`, for decoding consecutive indices.
    fn cursor(&self, idx: u64) -> Cursor<'_> {
        let digits = Digits::of(self, idx, None);
        let mut squares = [0u8; MAX];
        self.fill(&digits.digits, 0, self.lens.len(), &mut squares, 0);
        let mut ranks = [0usize; MAX];
        for g in 1..self.lens.len() {
            self.group_ranks(g, digits.digits[g], &mut ranks);
        }
        Cursor {
            codec: self,
            digits,
            squares,
            ranks,
        }
    }

    /// Enumerates group `g` (its squares start at `placed`) and, within
    /// each choice, the later groups.
    fn walk_group<E>(
        &self,
        g: usize,
        placed: usize,
        occ: u64,
        idx: u64,
        squares: &mut [u8; MAX],
        f: &mut impl FnMut(u64, &[u8; MAX]) -> Result<(), E>,
    ) -> Result<(), E> {
        if g == self.lens.len() {
            return f(idx, squares);
        }
        let len = self.lens[g];
        // The digit's squares, by rank r, are the free squares from the
        // group's offset on (as `fill` maps them).
        let offset: u8 = if self.pp && g == 1 { 8 } else { 0 };
        let (free, m) = free_squares(occ, offset, self.group_free(g));
        // The group's ranks r[0] < r[1] < ..., in colexicographic order,
        // which is the order of the digit sum(binom(r[i], i + 1)).
        let mut r = [0usize; MAX];
        for (i, ri) in r.iter_mut().enumerate().take(len) {
            *ri = i;
        }
        let last = g + 1 == self.lens.len();
        let mut digit = 0u64;
        loop {
            let mut bits = 0u64;
            for i in 0..len {
                let sq = free[r[i]];
                squares[placed + i] = sq;
                bits |= 1 << sq;
            }
            let at = idx + digit * self.factors[g];
            if last {
                f(at, squares)?;
            } else {
                self.walk_group(g + 1, placed + len, occ | bits, at, squares, f)?;
            }
            digit += 1;
            if !colex_next(&mut r[..len], m) {
                return Ok(());
            }
        }
    }
}

/// Steps the ranks `r` (increasing, below `m`) of a group's squares to
/// their colexicographic successor: raises the lowest rank that can rise
/// and resets the ones below it. `false` after the last.
#[inline]
fn colex_next(r: &mut [usize], m: usize) -> bool {
    let len = r.len();
    let mut i = 0;
    while i < len && r[i] + 1 == if i + 1 < len { r[i + 1] } else { m } {
        i += 1;
    }
    if i == len {
        return false;
    }
    r[i] += 1;
    for (k, rk) in r.iter_mut().enumerate().take(i) {
        *rk = k;
    }
    true
}

/// Placements per unit of a walk in index order.
const INDEX_CHUNK: u64 = 1 << 15;

/// How [`Encoding::walk`] splits and orders a sub-table's placements.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Units {
    order: Order,
    /// Number of units.
    pub(crate) count: u64,
}

/// [`Encoding::mover_units`] cuts the units of a walk with one piece
/// innermost into parts where there would be fewer than this.
const MIN_MOVER_UNITS: u64 = 256;

/// The order of a walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    /// By groups: the groups before `split` fixed per unit, the last
    /// group fastest.
    Groups { split: usize },
    /// By groups with one piece innermost ([`Encoding::walk_mover`]): the
    /// groups before `split` fixed per unit, and of the first group the
    /// unit walks besides the mover's, one of `parts` ranges of its
    /// choices in the walk's order (see [`Encoding::walk_mover`]).
    Mover { split: usize, parts: u64 },
    /// Index order, `per_unit` steps of the group `group` (factor 1) per
    /// unit.
    Fastest { group: usize, per_unit: u64 },
    /// Index order with a cursor, in chunks.
    Index,
}

impl Units {
    /// The walk order, as a number: 0 index order with a cursor, 1 by
    /// groups, 2 index order with the fastest group innermost.
    #[cfg(test)]
    pub(crate) fn mode(&self) -> usize {
        match self.order {
            Order::Index => 0,
            Order::Groups { .. } => 1,
            Order::Fastest { .. } => 2,
            Order::Mover { .. } => 3,
        }
    }
}

/// Decodes consecutive indices of one sub-table: each step updates the
/// mixed-radix digits and recomputes only the groups that change.
struct Cursor<'a> {
    codec: &'a Encoding,
    digits: Digits,
    /// The squares of the current index, in encoding order.
    squares: [u8; MAX],
    /// Per slot of the groups after the leading one, its rank among the
    /// squares the groups before leave free ([`Encoding::group_ranks`]).
    /// A digit that rises by one steps its group's ranks to their
    /// successor, and a group whose digit stays keeps them, so a step needs
    /// no search of the combinatorial number system: decoding was 29% of
    /// `scan KNNvKNN`'s first pass, where the kings vary fastest and every
    /// step moved both pairs of knights' squares.
    ranks: [usize; MAX],
}

impl Cursor<'_> {
    /// Moves to the next index (which must exist).
    #[inline]
    fn advance(&mut self) {
        let c = self.codec;
        let n = c.lens.len();
        let changed = self.digits.step(&c.radix);
        let mut at = c.lens[0];
        for g in 1..n {
            let len = c.lens[g];
            if changed & 1 << g != 0 {
                let ranks = &mut self.ranks[at..at + len];
                if self.digits.digits[g] == 0 {
                    for (i, r) in ranks.iter_mut().enumerate() {
                        *r = i;
                    }
                } else {
                    // The digit rose by one: the successor exists.
                    let stepped = colex_next(ranks, c.group_free(g));
                    debug_assert!(stepped, "a group stepped past its last ranks");
                }
            }
            at += len;
        }
        // The groups from the first that changed move; the later ones keep
        // their ranks, but their squares shift with the squares before.
        let low = changed.trailing_zeros() as usize;
        let from = if low == 0 {
            c.decode_lead_digit(self.digits.digits[0], &mut self.squares);
            1
        } else {
            low
        };
        c.place(&self.ranks, from, n, &mut self.squares, 0);
    }
}

/// The mixed-radix digits of an index of one sub-table, stepped in index
/// order over every group but `skip` (a group the walk moves itself):
/// the group with the smallest factor first, carrying upwards.
struct Digits {
    /// Per group, its digit.
    digits: [u64; MAX],
    /// The stepped groups, smallest factor first.
    order: [usize; MAX],
    len: usize,
}

impl Digits {
    /// The digits of `idx`.
    fn of(codec: &Encoding, idx: u64, skip: Option<usize>) -> Digits {
        let n = codec.lens.len();
        let mut digits = [0u64; MAX];
        let mut order = [0usize; MAX];
        let mut len = 0;
        for g in 0..n {
            digits[g] = (idx / codec.factors[g]) % codec.radix[g];
            if Some(g) != skip {
                order[len] = g;
                len += 1;
            }
        }
        order[..len].sort_unstable_by_key(|&g| codec.factors[g]);
        Digits { digits, order, len }
    }

    /// Steps to the next value (which must exist); returns the groups
    /// whose digit changed, as bits.
    #[inline]
    fn step(&mut self, radix: &[u64]) -> u64 {
        let mut changed = 0;
        for &g in &self.order[..self.len] {
            changed |= 1 << g;
            self.digits[g] += 1;
            if self.digits[g] < radix[g] {
                break;
            }
            self.digits[g] = 0;
        }
        changed
    }
}

/// The squares from `offset` on that `occ` leaves free, in order, at most
/// `max` of them, and their number.
#[inline]
fn free_squares(occ: u64, offset: u8, max: usize) -> ([u8; 64], usize) {
    let mut free = [0u8; 64];
    let mut m = 0;
    for sq in offset..64 {
        if occ & (1 << sq) == 0 && m < max {
            free[m] = sq;
            m += 1;
        }
    }
    (free, m)
}
