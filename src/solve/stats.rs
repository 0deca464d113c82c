//! The statistics document of a solved material, counted by the convention
//! of docs/design.md section 2, exactly as `scan` counts it: one position per
//! orbit of placements (like pieces told apart) under the material's
//! symmetries, both sides to move, and for the longest position of each
//! class the FEN of the orbit's smallest placement (the one `scan` visits),
//! the smallest FEN among ties.

use rayon::prelude::*;
use shakmaty::{Color, Piece};

use super::{
    layout::{Layout, Squares, MAX_PIECES},
    plan::{BoardFilter, SolvePlan},
    table::class_of,
    value::{self, Outcome, SliceValues},
};
use crate::{
    chess::{
        material::{Material, Symmetry},
        rule::Rule,
        wdl::Wdl,
    },
    model::{enumerate::Enumerator, Longest, ScanStats, Shard, SideStats},
};

/// Where [`Counting::add_longest`] finds the positions that may be the
/// longest of their class: `candidates(side, offer)` calls `offer(entry,
/// value)` for them.
pub(crate) type Candidates<'a> =
    dyn Fn(usize, &(dyn Fn(usize, u16) + Sync)) -> std::io::Result<()> + 'a;

/// How a solved material's entries are counted for one material as the
/// user wrote it (White first), which may be the table's colours swapped.
pub(crate) struct Counting {
    /// The material as written.
    material: Material,
    /// Whether it is the table's material with colours swapped.
    flipped: bool,
    /// For each slot of the layout, the index of the same piece in the
    /// written material's piece order.
    to_user: [usize; MAX_PIECES],
    /// The written material's pieces (the order of placements in `scan`).
    user_pieces: Vec<Piece>,
    symmetries: &'static [Symmetry],
    raw: bool,
    shard: Option<Shard>,
    /// [`Enumerator::item_numbers`]: the number of the work item
    /// of `scan` whose placements start on these squares.
    item: Vec<u32>,
    enumerator: Enumerator,
    rule: Rule,
    filter: Option<BoardFilter>,
}

impl Counting {
    /// The counting of `layout`'s entries (the normalised material's) for
    /// `plan`: its material as written, its rule, shard, raw counts and
    /// filter.
    pub(crate) fn new(layout: &Layout, plan: &SolvePlan) -> Counting {
        let material = &plan.material;
        let flipped = material.is_flipped_in_table();
        let user_pieces = material.pieces();
        let mut used = vec![false; user_pieces.len()];
        let mut to_user = [0usize; MAX_PIECES];
        for (slot, p) in layout.pieces.iter().enumerate() {
            let want = Piece {
                color: if flipped { !p.color } else { p.color },
                role: p.role,
            };
            let j = (0..user_pieces.len())
                .find(|&j| !used[j] && user_pieces[j] == want)
                .expect("the same pieces");
            used[j] = true;
            to_user[slot] = j;
        }
        let enumerator = Enumerator::new(material);
        let item = enumerator.item_numbers();
        Counting {
            material: *material,
            flipped,
            to_user,
            user_pieces,
            symmetries: material.symmetries(),
            raw: plan.raw,
            shard: plan.shard,
            item,
            enumerator,
            rule: plan.rule,
            filter: plan.filter.clone(),
        }
    }

    /// Whether the placement `u` (written order) is counted: in the shard,
    /// and accepted by the filter.
    fn counted(&self, u: &Squares) -> bool {
        if !self.in_shard(u) {
            return false;
        }
        let Some(keep) = &self.filter else {
            return true;
        };
        let mut board = shakmaty::Board::empty();
        for (i, p) in self.user_pieces.iter().enumerate() {
            board.set_piece_at(shakmaty::Square::new(u32::from(u[i])), *p);
        }
        keep(&board)
    }

    /// How many of the labellings of an entry (its placements
    /// with like pieces told apart, [`Layout::like_factorial`] of them) are
    /// counted. The filter reads the board, the same for all; a shard
    /// holds each labelling's orbit by its own work item.
    fn counted_labellings(&self, layout: &Layout, sq: &Squares) -> u64 {
        let f = layout.like_factorial();
        if f == 1 || self.shard.is_none() {
            return if self.counted(&self.user_squares(layout, sq)) {
                f
            } else {
                0
            };
        }
        layout
            .labellings(sq)
            .iter()
            .filter(|l| self.counted(&self.user_squares(layout, l)))
            .count() as u64
    }

    /// The written material's squares of a placement (colours swapped if
    /// need be), in its piece order.
    fn user_squares(&self, layout: &Layout, sq: &Squares) -> Squares {
        let mut u = [0u8; MAX_PIECES];
        for slot in 0..layout.slots() {
            u[self.to_user[slot]] = if self.flipped {
                sq[slot] ^ 56
            } else {
                sq[slot]
            };
        }
        u
    }

    /// The smallest placement of the orbit of `u` (written order), which is
    /// the one `scan` visits.
    fn canonical(&self, u: &Squares) -> Squares {
        let n = self.user_pieces.len();
        let mut best = *u;
        for g in &self.symmetries[1..] {
            let mut img = [0u8; MAX_PIECES];
            for i in 0..n {
                img[i] = g.apply(shakmaty::Square::new(u32::from(u[i]))) as u8;
            }
            if img[..n] < best[..n] {
                best = img;
            }
        }
        best
    }

    /// Whether the orbit of `u` belongs to the shard counted.
    fn in_shard(&self, u: &Squares) -> bool {
        let Some(shard) = self.shard else {
            return true;
        };
        let c = self.canonical(u);
        shard.holds(self.item[self.enumerator.item_key(&c)])
    }

    /// The FEN of the orbit's placement that `scan` visits, with `user_stm`
    /// to move.
    fn fen(&self, u: &Squares, user_stm: Color) -> String {
        let c = self.canonical(u);
        let mut board = [None; 64];
        for (i, p) in self.user_pieces.iter().enumerate() {
            board[c[i] as usize] = Some(*p);
        }
        let mut fen = String::with_capacity(40);
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match board[rank * 8 + file] {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            fen.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        fen.push(p.char());
                    }
                }
            }
            if empty > 0 {
                fen.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                fen.push('/');
            }
        }
        fen.push_str(match user_stm {
            Color::White => " w - - 0 1",
            Color::Black => " b - - 0 1",
        });
        fen
    }

    /// An empty document for the written material.
    pub(crate) fn empty(&self) -> ScanStats {
        ScanStats::new(&self.material.to_string(), self.raw)
    }

    /// The statistics of one solved slice.
    pub(crate) fn slice(&self, layout: &Layout, slice: usize, values: &SliceValues) -> ScanStats {
        let mut stats = self.counts(layout, slice, 0, [&values[0], &values[1]]);
        let chunk = 1 << 14;
        self.add_longest(
            &mut stats,
            &|s, offer| {
                (0..layout.entries.div_ceil(chunk))
                    .into_par_iter()
                    .for_each(|c| {
                        for e in c * chunk..((c + 1) * chunk).min(layout.entries) {
                            offer(e, values[s][e]);
                        }
                    });
                Ok(())
            },
            layout,
            slice,
        )
        .expect("values in memory read without error");
        stats
    }

    /// The counts and histograms of the entries `base..` of a slice, whose
    /// values (both sides) are `values`; the longest positions are left to
    /// [`Counting::add_longest`], once the counts of the whole slice are
    /// known.
    pub(crate) fn counts(
        &self,
        layout: &Layout,
        slice: usize,
        base: usize,
        values: [&[u16]; 2],
    ) -> ScanStats {
        let weight = if layout.has_pawns() {
            layout.orbit_weight(slice)
        } else {
            1
        };
        let len = values[0].len();
        let chunk = 1 << 14;
        (0..len.div_ceil(chunk))
            .into_par_iter()
            .map(|c| {
                let mut part = self.empty();
                let mut sq: Squares = [0; MAX_PIECES];
                for i in c * chunk..((c + 1) * chunk).min(len) {
                    if values[0][i] == value::NONE && values[1][i] == value::NONE {
                        continue;
                    }
                    layout.decode(slice, base + i, &mut sq);
                    let (weight, raw) = if layout.has_pawns() {
                        // Each counted labelling of the like pieces is a
                        // position of its own; its mirror image is the
                        // raw count's other placement.
                        let counted = self.counted_labellings(layout, &sq);
                        if counted == 0 {
                            continue;
                        }
                        (weight * counted, 2 * weight * counted)
                    } else {
                        // The labellings counted, of the entry's `f`: all
                        // or none, unless a shard splits them (each
                        // labelling's orbit has its own work item).
                        let counted = self.counted_labellings(layout, &sq);
                        if counted == 0 {
                            continue;
                        }
                        let (orbits, raw) = layout.orbit_counts(&sq);
                        let f = layout.like_factorial();
                        (orbits * counted / f, raw * counted / f)
                    };
                    for (s, side_values) in values.iter().enumerate() {
                        let v = side_values[i];
                        let Some((wdl, dtz)) = self.class_and_dtz(v) else {
                            continue;
                        };
                        let user_stm = self.user_stm(s);
                        part.side_mut(user_stm).count(wdl, dtz, weight, raw);
                    }
                }
                part
            })
            .reduce(
                || self.empty(),
                |mut a, b| {
                    a += &b;
                    a
                },
            )
    }

    /// Adds to `stats` (the counts of a whole slice) the longest position
    /// of each class: `candidates(side, offer)` calls `offer(entry, value)`
    /// for the entries of side `side` (0 white, 1 black) that may be one,
    /// from any number of threads, and is asked only for sides and depths
    /// that have a class to fill (`depths` lists them per side).
    ///
    /// # Errors
    ///
    /// What `candidates` returns.
    pub(crate) fn add_longest(
        &self,
        stats: &mut ScanStats,
        candidates: &Candidates<'_>,
        layout: &Layout,
        slice: usize,
    ) -> std::io::Result<()> {
        for user_stm in Color::ALL {
            let s = self.side_index(user_stm);
            let side = stats.side_mut(user_stm);
            let targets: Vec<(Wdl, u32)> = self.longest_targets(side);
            if targets.is_empty() {
                continue;
            }
            let found = std::sync::Mutex::new(Longest::default());
            candidates(s, &|e, v| {
                let Some((wdl, dtz)) = self.class_and_dtz(v) else {
                    return;
                };
                let mag = dtz.unsigned_abs();
                if !targets.contains(&(wdl, mag)) {
                    return;
                }
                let mut sq: Squares = [0; MAX_PIECES];
                layout.decode(slice, e, &mut sq);
                // Each labelling's orbit has its own smallest placement,
                // and so its own FEN to offer.
                for labelled in layout.labellings(&sq) {
                    let u = self.user_squares(layout, &labelled);
                    if self.counted(&u) {
                        let fen = self.fen(&u, user_stm);
                        found
                            .lock()
                            .expect("no panic while held")
                            .offer(wdl, mag, || fen);
                    }
                }
            })?;
            side.longest += &found.into_inner().expect("no panic while held");
        }
        Ok(())
    }

    /// The classes of a side whose longest positions are to be found, with
    /// the depth of each.
    fn longest_targets(&self, side: &SideStats) -> Vec<(Wdl, u32)> {
        [Wdl::Win, Wdl::CursedWin, Wdl::Loss, Wdl::BlessedLoss]
            .into_iter()
            .filter_map(|w| max_depth(side, w, self.rule).map(|d| (w, d)))
            .collect()
    }

    /// The depths of the classes to fill on side `s` (0 white, 1 black) of
    /// `stats`, for a source that reads positions by depth.
    pub(crate) fn longest_depths(&self, stats: &ScanStats, s: usize) -> Vec<u32> {
        let user_stm = self.user_stm(s);
        let side = stats.side(user_stm);
        let mut depths: Vec<u32> = self
            .longest_targets(side)
            .into_iter()
            .map(|t| t.1)
            .collect();
        depths.sort_unstable();
        depths.dedup();
        depths
    }

    fn side_index(&self, user_stm: Color) -> usize {
        let table_stm = if self.flipped { !user_stm } else { user_stm };
        match table_stm {
            Color::White => 0,
            Color::Black => 1,
        }
    }

    fn user_stm(&self, side: usize) -> Color {
        let table_stm = if side == 0 {
            Color::White
        } else {
            Color::Black
        };
        if self.flipped {
            !table_stm
        } else {
            table_stm
        }
    }

    /// The class and signed DTZ of a solved value.
    fn class_and_dtz(&self, v: u16) -> Option<(Wdl, i32)> {
        let wdl = class_of(v, self.rule)?;
        let dtz = match value::outcome(v)? {
            Outcome::Win(d) => i32::from(d),
            Outcome::Loss(d) => -i32::from(d),
            Outcome::Draw => 0,
        };
        Some((wdl, dtz))
    }
}

/// The largest depth recorded for class `wdl` on a side under `rule`, if
/// any: the win (loss) histogram holds the real wins (losses) up to the
/// rule's limit and the cursed wins (blessed losses) above it.
fn max_depth(side: &SideStats, wdl: Wdl, rule: Rule) -> Option<u32> {
    if side.wdl.get(wdl) == 0 {
        return None;
    }
    let hist = match wdl.signum() {
        1 => &side.dtz.win,
        -1 => &side.dtz.loss,
        _ => return None,
    };
    let within = |p: u32| rule.limit().is_none_or(|l| p <= u32::from(l));
    match wdl {
        Wdl::Win | Wdl::Loss => hist.bins().map(|(p, _)| p).filter(|&p| within(p)).max(),
        _ => hist.max(),
    }
}
