//! Index arithmetic for the sweep engine: placements (squares in a
//! sub-table's piece order) to indices and back, and positions of any
//! material to the index of its table.
//!
//! The index scheme is Ronald de Man's; the constant tables and the
//! arithmetic follow shakmaty-syzygy 0.28 (Niklas Fiekas, GPL-3.0-or-later,
//! like this crate) as ported in [`crate::tables::reader`], whose constant tables and
//! square helpers this module shares. Its encoder is a second one,
//! specialised for speed: squares are given directly in a sub-table's piece
//! order, so a move costs one re-encode and no piece matching. The group
//! order of each sub-table is not exposed by [`SweepTable`] either; it is
//! inferred by matching candidate encodings against
//! [`SweepTable::placement`] on spread indices (tests check every index of
//! the small tables).

// The index arithmetic walks parallel arrays (squares, digits, codes) by
// position, as the Syzygy format defines it; indexed loops say that best.
#![allow(clippy::needless_range_loop)]

use shakmaty::{Color, Piece, Role};

use crate::tables::reader::SweepTable;

use crate::tables::reader::index::{
    binom, decode_lead, file_of, flip_diagonal, largest_below, offdiag, rank_of, Lead, KINGS_SIZE,
    KK_IDX, LOWER, PAWNS, THREE_UNIQUE_SIZE, TRIANGLE, Z0,
};
/// At most this many pieces.
pub(crate) use crate::tables::reader::index::{map_pawn, MAX_PIECES as MAX};

/// The encoding of one sub-table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SubCodec {
    /// Pieces in encoding order, colours in the file's frame.
    pub(crate) pieces: Vec<Piece>,
    /// Group lengths.
    pub(crate) lens: Vec<usize>,
    factors: Vec<u64>,
    radix: Vec<u64>,
    pub(crate) lead: Lead,
    pp: bool,
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
            (Lead::Pawns { file }, 0)
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
                    Lead::Pawns { .. } => PAWNS.lead_pawns_size[lens[0]][usize::from(file)],
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
            size: idx,
        })
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
    /// pieces, same kind, same pawn file): then [`SubCodec::encode_lead`] of one serves
    /// both.
    pub(crate) fn same_lead(&self, other: &SubCodec) -> bool {
        let n = self.lens[0];
        self.lead == other.lead && other.lens[0] == n && self.pieces[..n] == other.pieces[..n]
    }

    /// The first part of [`SubCodec::encode`]: canonicalises `squares` in
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
    fn symmetry(&self, squares: &[u8]) -> Symmetry {
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
    fn lead_digit(&self, squares: &mut [u8]) -> Option<u64> {
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
                idx
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

    /// The second part of [`SubCodec::encode`]: the index of canonical
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

    /// Per digit of the leading group: [`SubCodec::images`] of the
    /// placements with that leading group (which alone decides it), and
    /// whether the group's squares all lie on one long diagonal (if not,
    /// no placement with it does).
    pub(crate) fn lead_facts(&self) -> Vec<(u32, bool)> {
        let lc = self.lens[0];
        (0..self.radix[0])
            .map(|digit| {
                let mut squares = [0u8; MAX];
                decode_lead(self.lead, lc, digit, &mut squares);
                let lead = &squares[..lc];
                let diagonal = lead.iter().all(|&s| s & 7 == s >> 3)
                    || lead.iter().all(|&s| (s & 7) + (s >> 3) == 7);
                (self.images(lead), diagonal)
            })
            .collect()
    }

    /// The leading group's factor and radix: the digit of index `i` is
    /// `i / factor % radix`.
    pub(crate) fn lead_place(&self) -> (u64, u64) {
        (self.factors[0], self.radix[0])
    }

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

    /// Whether slot `slot` can be the piece [`SubCodec::mover`] moves: a
    /// group of its own after the leading group (so that it decides no
    /// symmetry), not a pawn (pawn groups have their own square ranges).
    pub(crate) fn can_move(&self, slot: usize) -> bool {
        let g = self.group_of(slot);
        g >= 1 && g < self.lens.len() && self.lens[g] == 1 && self.pieces[slot].role != Role::Pawn
    }

    /// The index of a placement as a function of the square of the piece
    /// in slot `slot` (which must satisfy [`SubCodec::can_move`]), the
    /// other pieces fixed as in `squares` (encoding order, the mover's
    /// own square ignored): a placement's index then costs a few
    /// comparisons instead of an encoding. `None` where
    /// [`SubCodec::encode`] has none (kings that cannot be encoded).
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

    /// The canonical placement of an index, squares in encoding order.
    pub(crate) fn decode(&self, idx: u64, squares: &mut [u8; MAX]) {
        let mut digits = [0u64; MAX];
        for (g, d) in digits.iter_mut().enumerate().take(self.lens.len()) {
            *d = (idx / self.factors[g]) % self.radix[g];
        }
        self.fill(&digits, 0, self.lens.len(), squares);
    }

    /// Splits the placements into work units for [`SubCodec::walk`].
    ///
    /// By groups where a unit stays compact in memory: the leading groups
    /// up to a split are fixed within a unit (at most 2^16 placements
    /// where the groups allow it), and the unit's indices span little more
    /// than its size. Otherwise (the group that varies fastest in index
    /// order comes first in the squares' order, so a walk by groups would
    /// stride through memory) in index order, in chunks: with the fastest
    /// group innermost where it is a single piece after the leading group
    /// (as in the pawn tables, whose leading pawn varies slowest), else
    /// with a cursor.
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
        match (1..n).find(|&g| self.factors[g] == 1 && self.lens[g] == 1) {
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
    /// (see [`SubCodec::units`]), squares as [`SubCodec::decode`] gives
    /// them. By groups, the last group varies fastest: its squares are
    /// picked from a list of the squares the earlier groups leave free, so
    /// a step costs a look-up, not a decode. In index order, see
    /// [`SubCodec::walk_fastest`]; else a cursor recomputes the groups from
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
        self.fill(&digits, 0, split, &mut squares);
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

    /// The work units for [`SubCodec::walk_mover`] with the piece of slot
    /// `slot` innermost, `None` where it cannot be the mover (see
    /// [`SubCodec::can_move`]): by groups, split as [`SubCodec::units`]
    /// splits them (at most 2^16 placements a unit where the groups allow
    /// it) but never after the mover's group, which a unit must walk.
    ///
    /// Unlike [`SubCodec::units`], this takes units by groups even where
    /// their indices spread over the sub-table (pawn tables, whose index
    /// is not in group order): the walk gets indices from
    /// [`SubCodec::mover`], not from the order, and a run of the mover
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
    /// `slot`), if any: the outermost that [`SubCodec::walk_others`]
    /// enumerates.
    fn first_walked(&self, split: usize, slot: usize) -> Option<usize> {
        (split..self.lens.len()).find(|&g| g != self.group_of(slot))
    }

    /// Calls `f(squares, fresh)` for every placement of one work unit of
    /// [`SubCodec::walk`] (the same placements, in another order: the
    /// piece of slot `slot` innermost, so that a caller can work out what
    /// depends on the other pieces once per run of the mover, with
    /// [`SubCodec::mover`]). `fresh` says that a piece other than the mover
    /// moved since the last call. `units` must come from
    /// [`SubCodec::mover_units`] for `slot`.
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
        self.fill(&digits, 0, split, &mut squares);
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
            if !colex_next(&mut r, len, m) || (g == range.0 && rank >= range.1.end) {
                return Ok(());
            }
        }
    }

    /// The walk in index order where group `fg`, a single piece, varies
    /// fastest (factor 1). An order-preserving map between boards carries
    /// the placements over: with the earlier groups' squares P fixed, the
    /// piece of group `fg` at rank t among the squares outside P, and the
    /// later groups decoded on a board of their own with t and P removed
    /// (virtual squares v, which depend on their digits alone), the real
    /// square of v is the (v + [v >= t])-th square outside P. So the later
    /// groups are decoded once per `radix[fg]` placements, and each
    /// placement costs a table look-up per piece.
    fn walk_fastest<E>(
        &self,
        fg: usize,
        per_unit: u64,
        unit: u64,
        mut f: impl FnMut(u64, &[u8; MAX]) -> Result<(), E>,
    ) -> Result<(), E> {
        let n = self.lens.len();
        let radix = self.radix[fg];
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
                self.fill(&digits.digits, low, fg, &mut squares);
                let occ = squares[..at].iter().fold(0u64, |o, &s| o | 1 << s);
                outside = free_squares(occ, 0, 64).0;
            }
            if let Some(low) = (fg + 1..n).find(|&g| changed & 1 << g != 0) {
                self.fill_from(&digits.digits, low, n, &mut virt, at + 1);
            }
            for d in 0..radix {
                let t = d as u8 + offset;
                squares[at] = outside[usize::from(t)];
                for k in at + 1..count {
                    let v = virt[k];
                    squares[k] = outside[usize::from(v + u8::from(v >= t))];
                }
                f(o * radix + d, &squares)?;
            }
        }
        Ok(())
    }

    /// A cursor at `idx`, for decoding consecutive indices.
    fn cursor(&self, idx: u64) -> Cursor<'_> {
        let digits = Digits::of(self, idx, None);
        let mut squares = [0u8; MAX];
        self.fill(&digits.digits, 0, self.lens.len(), &mut squares);
        Cursor {
            codec: self,
            digits,
            squares,
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
        let free_count = if self.pp && g == 1 {
            48 - self.lens[0]
        } else {
            64 - placed
        };
        let (free, m) = free_squares(occ, offset, free_count);
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
            if !colex_next(&mut r, len, m) {
                return Ok(());
            }
        }
    }

    /// Computes the squares of groups `from..to` from their digits (the
    /// squares of earlier groups are in place).
    #[inline]
    fn fill(&self, digits: &[u64; MAX], from: usize, to: usize, squares: &mut [u8; MAX]) {
        self.fill_from(digits, from, to, squares, 0);
    }

    /// [`SubCodec::fill`] on a board without the squares of the slots
    /// before `occupied_from` (which must not exceed the slots of groups
    /// before `from`): the squares of the slots from there on occupy it.
    #[inline]
    fn fill_from(
        &self,
        digits: &[u64; MAX],
        from: usize,
        to: usize,
        squares: &mut [u8; MAX],
        occupied_from: usize,
    ) {
        if from == 0 {
            decode_lead(self.lead, self.lens[0], digits[0], squares);
        }
        let first = from.max(1);
        let mut group_sq: usize = self.lens[..first].iter().sum();
        // The squares placed so far, sorted (insertion sort on a
        // fixed-size array: no memcpy, no allocation).
        let mut sorted = [u8::MAX; MAX];
        let mut placed = 0;
        for k in occupied_from..group_sq {
            insert(&mut sorted, placed, squares[k]);
            placed += 1;
        }
        for g in first..to {
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
                for &p in &sorted[..placed] {
                    if p <= sq {
                        sq += 1;
                    }
                }
                squares[group_sq + i] = sq;
            }
            for k in group_sq..group_sq + len {
                insert(&mut sorted, placed, squares[k]);
                placed += 1;
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

/// The index of a sub-table's placements where one piece moves and the
/// others stand still (see [`SubCodec::mover`]).
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

/// One of the board's symmetries that the encodings use: an exclusive or
/// of the square (7 mirrors the files, 56 the ranks), then optionally the
/// flip about the a1-h8 diagonal.
#[derive(Clone, Copy, Debug)]
struct Symmetry {
    mask: u8,
    diagonal: bool,
}

impl Symmetry {
    #[inline]
    fn map(self, sq: u8) -> u8 {
        let sq = sq ^ self.mask;
        if self.diagonal {
            flip_diagonal(sq)
        } else {
            sq
        }
    }

    /// The square that [`Symmetry::map`] takes to `sq`.
    #[inline]
    fn unmap(self, sq: u8) -> u8 {
        let sq = if self.diagonal { flip_diagonal(sq) } else { sq };
        sq ^ self.mask
    }
}

/// Sorts a group's few squares in place (an insertion sort, inlined: a
/// group holds at most a few squares).
#[inline]
fn sort_small(group: &mut [u8]) {
    for k in 1..group.len() {
        let v = group[k];
        let mut i = k;
        while i > 0 && group[i - 1] > v {
            group[i] = group[i - 1];
            i -= 1;
        }
        group[i] = v;
    }
}

/// Steps the ranks `r[..len]` (increasing, below `m`) of a group's
/// squares to their colexicographic successor: raises the lowest rank
/// that can rise and resets the ones below it. `false` after the last.
#[inline]
fn colex_next(r: &mut [usize; MAX], len: usize, m: usize) -> bool {
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

/// Placements per unit of a walk in index order.
const INDEX_CHUNK: u64 = 1 << 15;

/// How [`SubCodec::walk`] splits and orders a sub-table's placements.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Units {
    order: Order,
    /// Number of units.
    pub(crate) count: u64,
}

/// [`SubCodec::mover_units`] cuts the units of a walk with one piece
/// innermost into parts where there would be fewer than this.
const MIN_MOVER_UNITS: u64 = 256;

/// The order of a walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    /// By groups: the groups before `split` fixed per unit, the last
    /// group fastest.
    Groups { split: usize },
    /// By groups with one piece innermost ([`SubCodec::walk_mover`]): the
    /// groups before `split` fixed per unit, and of the first group the
    /// unit walks besides the mover's, one of `parts` ranges of its
    /// choices in the walk's order (see [`SubCodec::walk_mover`]).
    Mover { split: usize, parts: u64 },
    /// Index order, `per_unit` steps of the single-piece group `group`
    /// (factor 1) per unit.
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
    codec: &'a SubCodec,
    digits: Digits,
    /// The squares of the current index, in encoding order.
    squares: [u8; MAX],
}

impl Cursor<'_> {
    /// Moves to the next index (which must exist).
    #[inline]
    fn advance(&mut self) {
        let c = self.codec;
        let changed = self.digits.step(&c.radix);
        let low = changed.trailing_zeros() as usize;
        c.fill(&self.digits.digits, low, c.lens.len(), &mut self.squares);
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
    fn of(codec: &SubCodec, idx: u64, skip: Option<usize>) -> Digits {
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

/// For each slot of `to`, a distinct slot of `from` holding the same piece:
/// the map from one piece order to another. `lead`, if given, is the slot
/// of `from` holding the leading pawn, which goes to slot 0 of `to` and
/// nowhere else. `None` if the pieces differ.
pub(crate) fn slot_map(to: &[Piece], from: &[Piece], lead: Option<usize>) -> Option<[u8; MAX]> {
    let mut map = [0u8; MAX];
    let mut used = [false; MAX];
    for (t, piece) in to.iter().enumerate() {
        let q = match lead {
            Some(l) if t == 0 => l,
            _ => (0..from.len()).find(|&q| !used[q] && from[q] == *piece && Some(q) != lead)?,
        };
        used[q] = true;
        map[t] = q as u8;
    }
    Some(map)
}

/// Piece counts by colour and role (`role as usize - 1`).
pub(crate) type Counts = [[u8; 6]; 2];

/// A colour as an index into per-colour arrays: White 0, Black 1.
#[inline]
pub(crate) fn cidx(c: Color) -> usize {
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

    /// Piece counts of the table, in the file's frame.
    pub(crate) fn counts(&self) -> Counts {
        self.counts
    }

    /// The colour whose pawns lead (pawn tables).
    pub(crate) fn lead_color(&self) -> Color {
        self.lead_color
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
fn infer(
    table: &SweepTable,
    side: Color,
    info: &crate::tables::reader::SubTableInfo,
) -> Option<SubCodec> {
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
