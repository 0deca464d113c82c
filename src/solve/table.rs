//! What a solved material keeps for the materials whose zeroing moves lead
//! into it: the five-valued class of each position under the rule (half a
//! byte per position and side) when only classes matter, as for DTZ, or the
//! values themselves (two bytes) when depths carry over, as for DTM.

use std::sync::{
    atomic::{AtomicU16, AtomicU8, Ordering::Relaxed},
    Arc, Mutex,
};

use rayon::prelude::*;

use super::{
    cache_error::CacheError,
    layout::{Layout, Squares},
    pages::{self, FrameSource, Page, Pages},
    value::{self, Outcome, SliceValues},
};
use crate::chess::{
    rule::{Metric, Rule},
    wdl::Wdl,
};

/// A position's value as the table keeps it, for its side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kept {
    /// The class under the rule.
    Class(Wdl),
    /// A depth to mate.
    Value(Outcome),
    /// A depth by the rule: won (or lost) with phases of at most this many
    /// plies.
    Rule(Outcome),
}

impl Kept {
    /// What a zeroing move into a position of this value is worth to the
    /// side that makes it, under `rule`: a win in one ply for a lost child,
    /// and for DTZ a win just past the rule's limit (a cursed win) for a
    /// child lost only without the rule; for values, one ply more.
    #[inline]
    pub(crate) fn through(self, rule: Rule) -> Outcome {
        match self {
            Kept::Class(c) => {
                let past = rule.limit().map_or(1, |l| l + 1);
                match c {
                    Wdl::Loss => Outcome::Win(1),
                    Wdl::BlessedLoss => Outcome::Win(past),
                    Wdl::Draw => Outcome::Draw,
                    Wdl::CursedWin => Outcome::Loss(past),
                    Wdl::Win => Outcome::Loss(1),
                }
            }
            Kept::Value(o) => match o {
                Outcome::Win(d) => Outcome::Loss(d + 1),
                Outcome::Loss(d) => Outcome::Win(d + 1),
                Outcome::Draw => Outcome::Draw,
            },
            // The rule a zeroing move needs is the rule its position needs
            // (the move itself is a phase of one ply, which every rule
            // allows).
            Kept::Rule(o) => match o {
                Outcome::Win(r) => Outcome::Loss(r),
                Outcome::Loss(r) => Outcome::Win(r),
                Outcome::Draw => Outcome::Draw,
            },
        }
    }

    /// The class without a rule.
    #[inline]
    pub(crate) fn without_rule(self) -> Kept {
        match self {
            Kept::Class(_) => self,
            Kept::Value(o) | Kept::Rule(o) => Kept::Class(match o {
                Outcome::Win(_) => Wdl::Win,
                Outcome::Loss(_) => Wdl::Loss,
                Outcome::Draw => Wdl::Draw,
            }),
        }
    }

    /// The value, for the side that makes it, of a zeroing move into a
    /// position of this value, kept in the same form (for a position whose
    /// value is the best of its moves, such as one that allows en passant).
    #[inline]
    pub(crate) fn back(self) -> Kept {
        match self {
            Kept::Class(c) => Kept::Class(c.flip()),
            Kept::Value(_) => Kept::Value(self.through(Rule::None)),
            // A phase of one ply (the zeroing move) needs a rule of 1.
            Kept::Rule(o) => Kept::Rule(match o {
                Outcome::Win(r) => Outcome::Loss(r.max(1)),
                Outcome::Loss(r) => Outcome::Win(r.max(1)),
                Outcome::Draw => Outcome::Draw,
            }),
        }
    }

    /// The better of two values for the side to move.
    #[inline]
    pub(crate) fn best(self, other: Kept) -> Kept {
        match (self, other) {
            (Kept::Class(a), Kept::Class(b)) => Kept::Class(a.max(b)),
            (Kept::Value(a), Kept::Value(b)) => Kept::Value(a.best(b)),
            (Kept::Rule(a), Kept::Rule(b)) => Kept::Rule(a.best(b)),
            _ => unreachable!("one table keeps one kind"),
        }
    }
}

/// The class of a solved value under `rule`.
#[inline]
pub(crate) fn class_of(v: u16, rule: Rule) -> Option<Wdl> {
    Some(class_under(value::outcome(v)?, rule))
}

/// The class under `rule` of a position whose value (a depth, or a DTR) is
/// `o`: decided within the rule's limit, cursed or blessed past it.
#[inline]
pub(crate) fn class_under(o: Outcome, rule: Rule) -> Wdl {
    let within = |d: u16| rule.limit().is_none_or(|l| d <= l);
    match o {
        Outcome::Win(d) if within(d) => Wdl::Win,
        Outcome::Win(_) => Wdl::CursedWin,
        Outcome::Loss(d) if within(d) => Wdl::Loss,
        Outcome::Loss(_) => Wdl::BlessedLoss,
        Outcome::Draw => Wdl::Draw,
    }
}

const CLASS_CODES: [Wdl; 5] = [
    Wdl::Loss,
    Wdl::BlessedLoss,
    Wdl::Draw,
    Wdl::CursedWin,
    Wdl::Win,
];

#[inline]
fn class_code(w: Wdl) -> u8 {
    CLASS_CODES
        .iter()
        .position(|c| *c == w)
        .expect("five classes") as u8
        + 1
}

enum Store {
    Classes([Vec<AtomicU8>; 2]),
    Values([Vec<AtomicU16>; 2]),
    /// Read page by page from a solve file.
    Paged(Paged),
}

/// A table read page by page ([`pages`]).
struct Paged {
    source: Arc<dyn FrameSource>,
    pages: Arc<Pages>,
    id: u64,
    /// The first read that failed: the exits that met it read a draw, and
    /// the solve reporting it ([`Table::failure`]) is thrown away.
    failure: Mutex<Option<String>>,
}

impl Drop for Paged {
    fn drop(&mut self) {
        self.pages.forget(self.id);
    }
}

/// What a table keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Keeps {
    /// Classes under the rule (DTZ).
    Classes,
    /// Depths to mate.
    Mate,
    /// Depths by the rule.
    Rule,
}

impl Keeps {
    /// What a solve in `metric` keeps.
    ///
    /// # Panics
    ///
    /// For a metric the solver does not compute (see
    /// [`Metric::solved`]): its entry points refuse those first.
    pub(crate) fn of(metric: Metric) -> Keeps {
        match metric {
            Metric::Dtz => Keeps::Classes,
            Metric::Dtm => Keeps::Mate,
            Metric::Dtr => Keeps::Rule,
            Metric::Dtc | Metric::Rule => {
                unreachable!("the solver's entry points refuse {metric:?}")
            }
        }
    }

    /// The kept form of a draw (what KvK is worth).
    pub(crate) fn draw(self) -> Kept {
        match self {
            Keeps::Classes => Kept::Class(Wdl::Draw),
            Keeps::Mate => Kept::Value(Outcome::Draw),
            Keeps::Rule => Kept::Rule(Outcome::Draw),
        }
    }
}

/// A solved material as the materials above it read it.
pub(crate) struct Table {
    pub(crate) layout: Layout,
    rule: Rule,
    keeps: Keeps,
    store: Store,
    /// For a table of some slices only: each slice's place in the store
    /// (`u32::MAX` for a slice not held).
    held: Option<Vec<u32>>,
}

impl Table {
    /// An empty table for `layout`, keeping `keeps`.
    pub(crate) fn new(layout: Layout, rule: Rule, keeps: Keeps) -> Table {
        let n = layout.total_entries();
        Self::with_entries(layout, rule, keeps, n, None)
    }

    /// An empty table holding only `slices` of `layout` (those a slice of
    /// frozen pawns can reach): reading any other slice panics, since it
    /// would be a bug in the reach search and a silent wrong value
    /// otherwise.
    pub(crate) fn partial(
        layout: Layout,
        rule: Rule,
        keeps: Keeps,
        slices: &std::collections::BTreeSet<usize>,
    ) -> Table {
        let mut held = vec![u32::MAX; layout.slices.len()];
        for (i, s) in slices.iter().enumerate() {
            held[*s] = i as u32;
        }
        let n = layout.entries * slices.len();
        Self::with_entries(layout, rule, keeps, n, Some(held))
    }

    fn with_entries(
        layout: Layout,
        rule: Rule,
        keeps: Keeps,
        n: usize,
        held: Option<Vec<u32>>,
    ) -> Table {
        let store = if keeps != Keeps::Classes {
            Store::Values([
                (0..n).map(|_| AtomicU16::new(0)).collect(),
                (0..n).map(|_| AtomicU16::new(0)).collect(),
            ])
        } else {
            Store::Classes([
                (0..n.div_ceil(2)).map(|_| AtomicU8::new(0)).collect(),
                (0..n.div_ceil(2)).map(|_| AtomicU8::new(0)).collect(),
            ])
        };
        Table {
            layout,
            rule,
            keeps,
            store,
            held,
        }
    }

    /// A table that holds nothing, for a material whose zeroing moves never
    /// lead back into it (a slice of frozen pawns): looking anything up in
    /// it is a bug.
    pub(crate) fn unused(layout: Layout, rule: Rule, keeps: Keeps) -> Table {
        Table {
            layout,
            rule,
            keeps,
            store: Store::Values([Vec::new(), Vec::new()]),
            held: None,
        }
    }

    /// A table read page by page from `source` (a solve of `layout` under
    /// any rule: the classes are worked out under `rule` as pages are read),
    /// within the budget of `pages`.
    pub(crate) fn paged(
        layout: Layout,
        rule: Rule,
        keeps: Keeps,
        source: Arc<dyn FrameSource>,
        pages: Arc<Pages>,
    ) -> Table {
        Table {
            layout,
            rule,
            keeps,
            store: Store::Paged(Paged {
                source,
                pages,
                id: pages::new_table_id(),
                failure: Mutex::new(None),
            }),
            held: None,
        }
    }

    /// Why a read of this paged table failed, if one did (its readers then
    /// met a draw in its place, so their results must not be used).
    pub(crate) fn failure(&self) -> Option<String> {
        match &self.store {
            Store::Paged(p) => p.failure.lock().expect("no panic while held").clone(),
            _ => None,
        }
    }

    /// Bytes a table of `layout` takes.
    pub(crate) fn bytes(layout: &Layout, keeps: Keeps) -> u64 {
        Self::bytes_of_slices(layout, keeps, layout.slices.len())
    }

    /// Bytes a table of `slices` slices of `layout` takes.
    pub(crate) fn bytes_of_slices(layout: &Layout, keeps: Keeps, slices: usize) -> u64 {
        let n = (layout.entries * slices) as u64;
        if keeps != Keeps::Classes {
            4 * n
        } else {
            n.div_ceil(2) * 2
        }
    }

    /// Where slice `slice` starts in the store.
    #[inline]
    fn base(&self, slice: usize) -> usize {
        let place = match &self.held {
            None => slice,
            Some(held) => match held[slice] {
                u32::MAX => panic!(
                    "a read of slice {slice} of {}, which this run did not solve",
                    self.layout.material
                ),
                p => p as usize,
            },
        };
        place * self.layout.entries
    }

    /// Fills slice `slice` from its solved values.
    pub(crate) fn set_slice(&self, slice: usize, values: &SliceValues) {
        self.set_range(slice, 0, [&values[0], &values[1]]);
    }

    /// Sets the values of entries `start..` of slice `slice` (`start` even),
    /// both sides.
    pub(crate) fn set_range(&self, slice: usize, start: usize, values: [&[u16]; 2]) {
        let base = self.base(slice) + start;
        match &self.store {
            Store::Values(sides) => {
                for (side, v) in sides.iter().zip(values) {
                    side[base..base + v.len()]
                        .par_iter()
                        .zip(v.par_iter())
                        .for_each(|(cell, x)| cell.store(*x, Relaxed));
                }
            }
            Store::Classes(sides) => {
                // Slices hold an even number of entries, and ranges start
                // at an even one, so two never share a byte.
                debug_assert!(base.is_multiple_of(2));
                for (side, v) in sides.iter().zip(values) {
                    side[base / 2..(base + v.len()).div_ceil(2)]
                        .par_iter()
                        .zip(v.par_chunks(2))
                        .for_each(|(cell, pair)| {
                            let code = |x: u16| class_of(x, self.rule).map_or(0, class_code);
                            let lo = code(pair[0]);
                            let hi = pair.get(1).map_or(0, |x| code(*x));
                            cell.store(lo | hi << 4, Relaxed);
                        });
                }
            }
            // Its file holds the slice already.
            Store::Paged(_) => {}
        }
    }

    /// The kept value of the position at `(slice, entry)` with `side` (0
    /// white, 1 black) to move, or `None` if it is not a position.
    #[inline]
    pub(crate) fn get(&self, side: usize, slice: usize, entry: usize) -> Option<Kept> {
        let i = self.base(slice) + entry;
        match &self.store {
            Store::Values(sides) => self.kept_value(sides[side][i].load(Relaxed)),
            Store::Classes(sides) => {
                let byte = sides[side][i / 2].load(Relaxed);
                match (byte >> (4 * (i % 2))) & 15 {
                    0 => None,
                    c => Some(Kept::Class(CLASS_CODES[usize::from(c) - 1])),
                }
            }
            Store::Paged(p) => self.get_paged(p, side, slice, entry),
        }
    }

    /// [`Table::get`] of a paged table.
    #[inline(never)]
    fn get_paged(&self, p: &Paged, side: usize, slice: usize, entry: usize) -> Option<Kept> {
        let fe = p.source.frame_entries();
        let frame = (slice * 2 + side) * p.source.parts() + entry / fe;
        let read = || {
            p.source.page(frame, &mut |raw: &[u8]| {
                let values = raw
                    .chunks_exact(2)
                    .map(|b| u16::from_le_bytes([b[0], b[1]]));
                match self.keeps {
                    Keeps::Classes => Page::Classes(
                        values
                            .map(|x| class_of(x, self.rule).map_or(0, class_code))
                            .collect(),
                    ),
                    Keeps::Mate | Keeps::Rule => Page::Values(values.collect()),
                }
            })
        };
        match p.pages.get(p.id, frame, read) {
            Ok(page) => match &*page {
                Page::Classes(codes) => match codes[entry % fe] {
                    0 => None,
                    c => Some(Kept::Class(CLASS_CODES[usize::from(c) - 1])),
                },
                Page::Values(values) => self.kept_value(values[entry % fe]),
            },
            Err(e) => {
                let mut failure = p.failure.lock().expect("no panic while held");
                if failure.is_none() {
                    *failure = Some(match e {
                        CacheError::Missing => {
                            format!("{}: missing", p.source.path().display())
                        }
                        CacheError::Damaged(why) => why,
                        CacheError::Io(e) => {
                            format!("{}: {e}", p.source.path().display())
                        }
                    });
                }
                Some(self.keeps.draw())
            }
        }
    }

    /// A two-byte value as this table keeps it.
    #[inline]
    fn kept_value(&self, v: u16) -> Option<Kept> {
        let o = value::outcome(v)?;
        Some(if self.keeps == Keeps::Rule {
            Kept::Rule(o)
        } else {
            Kept::Value(o)
        })
    }

    /// The kept value of a placement of this material (any orientation
    /// within the material's symmetries), `side` to move.
    #[inline]
    pub(crate) fn lookup(&self, side: usize, sq: &Squares) -> Option<Kept> {
        let (slice, entry) = self.layout.locate(sq)?;
        self.get(side, slice, entry)
    }
}
