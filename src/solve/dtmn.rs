//! Depth to mate under an `N`-move rule (DTM-N; DTM50 for `N = 50`), by
//! halfmove clock.
//!
//! Under the rule a phase (the plies up to the next capture or pawn move)
//! may last `B = 2N` plies: a quiet move that brings the clock to `B` draws,
//! unless it mates. Let the *budget* of a position be the plies its phase
//! has left, `B - clock`, and `W(p, r)` the fewest plies to mate the winner
//! can force from `p` with budget `r` (the loser making it as many as he
//! can), infinite where the rule draws. A quiet move spends one ply of
//! budget, a zeroing move gives the next position the whole budget `B`, a
//! checkmated position is worth 0 at any budget, and any other position
//! with no budget left is drawn. DTM-N at clock `c` is `W(p, B - c)`.
//!
//! `W(p, .)` only falls as the budget grows, so a position is told by its
//! *change points*: the pairs `(d, t)` where the least budget `t` with
//! `W(p, t) <= d` falls, as `d` grows. The first has the DTM-N from clock 0
//! (`d`), the last the least budget that wins at all (`t`, the position's
//! DTZ under the rule: the win stands at clock `c` exactly when `c + t <=
//! B`). `W(p, r)` is the `d` of the first change point with `t <= r`.
//!
//! They are computed level by level in `d`, the retrograde way, as depth
//! by the rule is (`dtr`, whose state this solve keeps): let `t_d(p)` be
//! the least budget with `W(p, t_d) <= d`. A winner's `t_d` is 1 once one of
//! its zeroing moves mates within `d` (its exit's DTM-N from clock 0 plus
//! one), and otherwise one more than the least `t_{d-1}` of its quiet
//! moves' positions; a loser's is one more than the largest `t_{d-1}` of
//! his quiet moves' positions, at least 1, and infinite until every one of
//! his zeroing moves is mated within `d` (his *gate*). A value above `B` is
//! infinite. Which side wins comes first, from the slice solved in plain
//! DTM with the exits read at clock 0 (`labels`): a position lost there can
//! only be lost under the rule, never won.
//!
//! Memory: 8 bytes per position and side for the state, 2 for the level of
//! its zeroing moves' event (a winner's mate through one, a loser's gate),
//! half a byte per position for the marks, and 8 bytes per change point
//! until the slice is done.

use std::sync::{
    atomic::{AtomicU16, AtomicU64, Ordering::Relaxed},
    Mutex,
};

use rayon::prelude::*;
use shakmaty::Color;

use super::{
    board::Board,
    exits::Exits,
    layout::{Layout, Squares, MAX_PIECES},
    level_state::{update, State, INF, LOSER, NEVER, WINNER},
    levels::{Levels, BLOCK},
    retract::{each_predecessor, per_side, prefetch, side, MAX_PREDECESSORS},
    value::{self, Outcome, SliceValues, MAX_DEPTH, NONE},
};
use crate::error::{Error, Result};

/// A loser whose zeroing moves are not all mated yet: his value, kept up
/// to date from his quiet moves, is not his to give.
const GATED: u64 = 16 << 56;
/// A checkmated position (a loser's): worth 0 at any budget.
const MATED: u64 = 32 << 56;

/// One point where a position's least winning budget falls: from `depth`
/// plies to mate on, `budget` plies of phase are enough.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ChangePoint {
    /// Plies to mate.
    pub(crate) depth: u16,
    /// The least budget (`2N` minus the clock) that mates within `depth`.
    pub(crate) budget: u16,
}

/// A slice solved in DTM-N.
pub(crate) struct DtmnSlice {
    /// Per side, each position's DTM-N from clock 0 as a solved value (won
    /// or lost in that many plies; drawn where the rule draws it from clock
    /// 0, cursed wins and blessed losses included; the labels' other
    /// values as they are).
    pub(crate) values: SliceValues,
    /// Per side, where each entry's change points start in `points` (one
    /// more than the entries: the last is the end).
    pub(crate) starts: [Vec<u32>; 2],
    /// Per side, the change points of the entries in order, each entry's by
    /// rising depth (and so falling budget).
    pub(crate) points: [Vec<ChangePoint>; 2],
}

impl DtmnSlice {
    /// The change points of entry `e` with `side` to move.
    pub(crate) fn points(&self, side: usize, e: usize) -> &[ChangePoint] {
        let (a, b) = (self.starts[side][e], self.starts[side][e + 1]);
        &self.points[side][a as usize..b as usize]
    }

    /// DTM-N of entry `e` (`side` to move) with `budget` plies of phase
    /// left (`2N` minus the clock): `None` where the rule draws it.
    pub(crate) fn depth_at(&self, side: usize, e: usize, budget: u16) -> Option<u16> {
        self.points(side, e)
            .iter()
            .find(|p| p.budget <= budget)
            .map(|p| p.depth)
    }
}

/// The bits of a logged change point: side, entry, depth, budget.
const ENTRY_BITS: u32 = 37;
const DEPTH_BITS: u32 = 14;
const BUDGET_BITS: u32 = 11;

/// The most plies of phase the log holds (a rule of up to 1,023 moves).
const MAX_BUDGET: u16 = (1 << BUDGET_BITS) - 1;

#[inline]
fn pack_point(side: usize, e: usize, depth: u16, budget: u16) -> u64 {
    (side as u64) << (ENTRY_BITS + DEPTH_BITS + BUDGET_BITS)
        | (e as u64) << (DEPTH_BITS + BUDGET_BITS)
        | u64::from(depth) << BUDGET_BITS
        | u64::from(budget)
}

#[inline]
fn unpack_point(x: u64) -> (usize, usize, ChangePoint) {
    let mask = |bits: u32| (1u64 << bits) - 1;
    (
        (x >> (ENTRY_BITS + DEPTH_BITS + BUDGET_BITS)) as usize,
        ((x >> (DEPTH_BITS + BUDGET_BITS)) & mask(ENTRY_BITS)) as usize,
        ChangePoint {
            depth: ((x >> BUDGET_BITS) & mask(DEPTH_BITS)) as u16,
            budget: (x & mask(BUDGET_BITS)) as u16,
        },
    )
}

/// Solves slice `slice` in DTM-N with `limit = 2N` plies a phase, given its
/// values in plain DTM with the exits read at clock 0 (`labels`), and
/// `exits` that read the DTM-N from clock 0 of the positions zeroing moves
/// lead to (as depths to mate).
///
/// # Errors
///
/// [`Error::TooDeep`] if a depth exceeds what two bytes hold, or the slice
/// has more entries than the change points' log holds.
pub(crate) fn solve_slice_dtmn(
    layout: &Layout,
    slice: usize,
    labels: &SliceValues,
    exits: &dyn Exits,
    limit: u16,
) -> Result<DtmnSlice> {
    let too_deep = |detail: String| Error::TooDeep {
        material: layout.material.to_string(),
        metric: Some("DTM under a rule"),
        detail,
    };
    if layout.entries >= 1 << ENTRY_BITS || limit > MAX_BUDGET {
        return Err(too_deep(format!(
            "{} entries a slice and {limit} plies a phase (at most 2^{ENTRY_BITS} and {MAX_BUDGET})",
            layout.entries
        )));
    }
    let blocks = layout.entries.div_ceil(BLOCK);
    let s = Dtmn {
        layout,
        slice,
        exits,
        limit,
        state: per_side(layout.entries, || AtomicU64::new(0)),
        event: per_side(layout.entries, || AtomicU16::new(NEVER)),
        changed: Levels::new(blocks, usize::from(MAX_DEPTH) + 2),
        scheduled: Levels::new(blocks, usize::from(MAX_DEPTH) + 2),
        marks: std::array::from_fn(|_| per_side(layout.entries.div_ceil(64), || AtomicU64::new(0))),
        weight: if layout.has_pawns() { 1 } else { 2 },
        log: Mutex::new(Vec::new()),
    };
    (0..blocks)
        .into_par_iter()
        .for_each(|b| s.first_pass(b, labels));
    s.record(0);
    let mut level: u16 = 1;
    loop {
        let blocks = s.changed.blocks(usize::from(level - 1));
        let events = s.scheduled.blocks(usize::from(level));
        // Winners' changes reach losers first, while the winners still hold
        // their values of the level before; the gates that open at this
        // level open on the losers' values of this level; then losers'
        // changes reach winners, and the winners' zeroing moves that mate
        // within this level take their value of 1.
        blocks
            .par_iter()
            .for_each(|&b| s.retract_block(b, level, true));
        events.par_iter().for_each(|&b| s.open_gates(b, level));
        blocks
            .par_iter()
            .for_each(|&b| s.retract_block(b, level, false));
        events.par_iter().for_each(|&b| s.exits_mate(b, level));
        s.record(level);
        // The marks of `level - 1` are spent: cleared, they serve `level + 1`.
        blocks.par_iter().for_each(|&b| s.clear_marks(b, level - 1));
        let more_changes = s.changed.highest().is_some_and(|h| h >= usize::from(level));
        let more_events = s
            .scheduled
            .highest()
            .is_some_and(|h| h > usize::from(level));
        if !more_changes && !more_events {
            break;
        }
        if level >= MAX_DEPTH - 1 {
            return Err(too_deep(format!("a depth beyond {MAX_DEPTH} plies")));
        }
        level += 1;
    }
    Ok(s.finish(labels))
}

struct Dtmn<'a> {
    layout: &'a Layout,
    slice: usize,
    exits: &'a dyn Exits,
    /// `2N`: the plies a phase may last.
    limit: u16,
    state: [Vec<AtomicU64>; 2],
    /// The level of each position's zeroing-move event ([`NEVER`]: none): a
    /// winner's first mate through a zeroing move, a loser's gate.
    event: [Vec<AtomicU16>; 2],
    /// Blocks with positions whose value changed at each level.
    changed: Levels,
    /// Blocks with positions whose event falls at each level.
    scheduled: Levels,
    /// Per level parity and side, a bit per entry whose value changed at a
    /// level of that parity (as in `dtr`).
    marks: [[Vec<AtomicU64>; 2]; 2],
    weight: u16,
    /// The change points found so far, packed ([`pack_point`]).
    log: Mutex<Vec<u64>>,
}

impl Dtmn<'_> {
    /// What a state is worth to the positions that reach it, from its value
    /// `t` (a loser's is the largest of his quiet moves'): infinite above
    /// the limit, and for a gated loser.
    #[inline]
    fn worth(&self, st: State, t: u16) -> u16 {
        let v = if st.flags & MATED != 0 {
            0
        } else if st.flags & LOSER != 0 {
            if st.flags & GATED != 0 || t == INF {
                return INF;
            }
            t + 1
        } else {
            t
        };
        if v > self.limit {
            INF
        } else {
            v
        }
    }

    /// Records that entry `e` of `side` changed at `level`.
    #[inline]
    fn mark(&self, level: u16, side: usize, e: usize) {
        self.changed.insert(usize::from(level), e / BLOCK);
        let word = &self.marks[usize::from(level & 1)][side][e / 64];
        let bit = 1u64 << (e % 64);
        if word.load(Relaxed) & bit == 0 {
            word.fetch_or(bit, Relaxed);
        }
    }

    fn clear_marks(&self, block: usize, level: u16) {
        let words = block * BLOCK / 64..((block + 1) * BLOCK).min(self.layout.entries).div_ceil(64);
        for side in &self.marks[usize::from(level & 1)] {
            for w in &side[words.clone()] {
                w.store(0, Relaxed);
            }
        }
    }

    /// Logs the value at `level` of every position that changed at it: a
    /// change point.
    fn record(&self, level: u16) {
        let found: Vec<Vec<u64>> = self
            .changed
            .blocks(usize::from(level))
            .par_iter()
            .map(|&b| {
                let start = b * BLOCK;
                let end = (start + BLOCK).min(self.layout.entries);
                let mut out = Vec::new();
                for s in 0..2 {
                    let words =
                        &self.marks[usize::from(level & 1)][s][start / 64..end.div_ceil(64)];
                    for (w, word) in words.iter().enumerate() {
                        let mut bits = word.load(Relaxed);
                        while bits != 0 {
                            let e = start + 64 * w + bits.trailing_zeros() as usize;
                            bits &= bits - 1;
                            let st = State::unpack(self.state[s][e].load(Relaxed));
                            if st.level != level {
                                continue;
                            }
                            let v = self.worth(st, st.t);
                            if v != INF {
                                out.push(pack_point(s, e, level, v));
                            }
                        }
                    }
                }
                out
            })
            .collect();
        let mut log = self.log.lock().expect("no panic while held");
        for part in found {
            log.extend(part);
        }
    }

    fn first_pass(&self, block: usize, labels: &SliceValues) {
        let layout = self.layout;
        let start = block * BLOCK;
        let end = (start + BLOCK).min(layout.entries);
        let mut sq: Squares = [0; MAX_PIECES];
        for e in start..end {
            if labels.iter().all(|v| {
                !matches!(
                    value::outcome(v[e]),
                    Some(Outcome::Win(_) | Outcome::Loss(_))
                )
            }) {
                continue;
            }
            layout.decode(self.slice, e, &mut sq);
            let board = Board::new(layout, &sq);
            for stm in Color::ALL {
                let s = side(stm);
                let o = value::outcome(labels[s][e]);
                let winner = matches!(o, Some(Outcome::Win(_)));
                let state = match o {
                    Some(Outcome::Loss(0)) => {
                        // Checkmated: worth 0 at any budget.
                        self.mark(0, s, e);
                        State {
                            t: 0,
                            prev: INF,
                            level: 0,
                            count: 0,
                            flags: LOSER | MATED,
                        }
                    }
                    Some(Outcome::Win(_) | Outcome::Loss(_)) => {
                        let mut quiet = 0u16;
                        // A winner's quickest mate through a zeroing move; a
                        // loser's slowest, `INF` if one escapes it.
                        let mut event: Option<u16> = None;
                        board.moves(
                            stm,
                            |_, _| quiet += 1,
                            |z| {
                                let at = match self.exits.outcome(&board, stm, &z) {
                                    Outcome::Win(d) if winner => d,
                                    Outcome::Loss(d) if !winner => d,
                                    _ if winner => return,
                                    _ => INF,
                                };
                                event = Some(match event {
                                    None => at,
                                    Some(x) if winner => x.min(at),
                                    Some(x) => x.max(at),
                                });
                            },
                        );
                        if !winner && event == Some(INF) {
                            // A zeroing move the rule does not lose: never
                            // lost under it.
                            continue;
                        }
                        if let Some(at) = event {
                            self.event[s][e].store(at, Relaxed);
                            self.scheduled.insert(usize::from(at), block);
                        }
                        if winner {
                            State {
                                t: INF,
                                prev: INF,
                                level: NEVER,
                                count: 0,
                                flags: WINNER,
                            }
                        } else {
                            State {
                                // No quiet move: worth 1 once the gate opens.
                                t: if quiet == 0 { 0 } else { INF },
                                prev: INF,
                                level: NEVER,
                                count: (quiet * self.weight) as u8,
                                flags: LOSER | if event.is_some() { GATED } else { 0 },
                            }
                        }
                    }
                    _ => continue,
                };
                self.state[s][e].store(state.pack(), Relaxed);
            }
        }
    }

    /// Walks back from the positions of a block that changed at `level - 1`:
    /// the winners' (to their losing predecessors) if `winners`, else the
    /// losers' (to their winning predecessors).
    fn retract_block(&self, block: usize, level: u16, winners: bool) {
        let start = block * BLOCK;
        let end = (start + BLOCK).min(self.layout.entries);
        let marks = &self.marks[usize::from((level - 1) & 1)];
        let mut sq: Squares = [0; MAX_PIECES];
        for stm in Color::ALL {
            let words = &marks[side(stm)][start / 64..end.div_ceil(64)];
            for (w, word) in words.iter().enumerate() {
                let mut bits = word.load(Relaxed);
                while bits != 0 {
                    let e = start + 64 * w + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let st = State::unpack(self.state[side(stm)][e].load(Relaxed));
                    let is_winner = st.flags & WINNER != 0;
                    if st.flags == 0 || is_winner != winners || !st.changed_at(level - 1) {
                        continue;
                    }
                    self.layout.decode(self.slice, e, &mut sq);
                    if winners {
                        self.winner_changed(e, &sq, stm, st.prev, st.t, level);
                    } else {
                        let v = self.worth(st, st.before(level));
                        if v != INF {
                            self.loser_changed(e, &sq, stm, v, level);
                        }
                    }
                }
            }
        }
    }

    /// The predecessors of the position `sq` (entry `e`) reached by a quiet
    /// move of `!stm`, with the weight of each retraction.
    fn predecessors(&self, e: usize, sq: &Squares, stm: Color, visit: impl FnMut(usize, u16)) {
        let cells = &self.state[side(!stm)];
        let touch = |pe| prefetch(&cells[pe]);
        each_predecessor(self.layout, e, sq, !stm, self.weight, touch, visit);
    }

    /// A winner's position went from `old` to `new` at `level - 1`: its
    /// losing predecessors may lose their maximum.
    fn winner_changed(&self, e: usize, sq: &Squares, stm: Color, old: u16, new: u16, level: u16) {
        debug_assert!(new < old);
        let mover = !stm;
        let cells = &self.state[side(mover)];
        self.predecessors(e, sq, stm, |pe, weight| {
            let changed = update(&cells[pe], |st| {
                if st.flags & LOSER == 0
                    || st.flags & MATED != 0
                    || st.level == level
                    || st.t != old
                {
                    return None;
                }
                Some(if st.count as u16 > weight {
                    State {
                        count: st.count - weight as u8,
                        ..st
                    }
                } else {
                    assert_eq!(
                        st.count as u16, weight,
                        "DTM-N counter of {} went below zero",
                        self.layout.material
                    );
                    let (t, count) = self.maximum(pe, mover, level);
                    let mut next = st.change(t, level);
                    next.count = count;
                    next
                })
            });
            if let Some((st, next)) = changed {
                if next.level == level && self.worth(next, next.t) < self.worth(st, st.t) {
                    self.mark(level, side(mover), pe);
                }
            }
        });
    }

    /// A loser's position is now worth `v` (it changed at `level - 1`): its
    /// winning predecessors may take one ply more.
    fn loser_changed(&self, e: usize, sq: &Squares, stm: Color, v: u16, level: u16) {
        let mover = !stm;
        let cells = &self.state[side(mover)];
        let t = v + 1;
        if t > self.limit {
            return;
        }
        self.predecessors(e, sq, stm, |pe, _| {
            let taken = update(&cells[pe], |st| {
                let takes = st.flags & WINNER != 0 && st.t > t;
                takes.then(|| st.change(t, level))
            });
            if taken.is_some() {
                self.mark(level, side(mover), pe);
            }
        });
    }

    /// Opens the gates of the losers in `block` whose zeroing moves are all
    /// mated within `level`: from now on they are worth what their quiet
    /// moves make them.
    fn open_gates(&self, block: usize, level: u16) {
        self.each_event(block, level, |s, e| {
            let opened = update(&self.state[s][e], |st| {
                (st.flags & LOSER != 0 && st.flags & GATED != 0).then(|| {
                    let mut next = st.change(st.t, level);
                    next.flags &= !GATED;
                    // Nothing read it before: it was worth nothing.
                    next.prev = INF;
                    next
                })
            });
            if let Some((_, next)) = opened {
                if self.worth(next, next.t) != INF {
                    self.mark(level, s, e);
                }
            }
        });
    }

    /// The winners in `block` whose quickest mate through a zeroing move
    /// takes `level` plies: worth 1 (one ply of budget) from now on.
    fn exits_mate(&self, block: usize, level: u16) {
        self.each_event(block, level, |s, e| {
            let taken = update(&self.state[s][e], |st| {
                (st.flags & WINNER != 0 && st.t > 1).then(|| st.change(1, level))
            });
            if taken.is_some() {
                self.mark(level, s, e);
            }
        });
    }

    /// Calls `f(side, entry)` for each position of `block` whose event falls
    /// at `level`.
    fn each_event(&self, block: usize, level: u16, mut f: impl FnMut(usize, usize)) {
        let start = block * BLOCK;
        let end = (start + BLOCK).min(self.layout.entries);
        for s in 0..2 {
            for e in start..end {
                if self.event[s][e].load(Relaxed) == level {
                    f(s, e);
                }
            }
        }
    }

    /// The largest value, at `level`, of the quiet moves of the losing
    /// position `pe` (`mover` to move), and the weighted count of quiet
    /// moves at it; 0 with no quiet move.
    fn maximum(&self, pe: usize, mover: Color, level: u16) -> (u16, u8) {
        let layout = self.layout;
        let mut sq: Squares = [0; MAX_PIECES];
        layout.decode(self.slice, pe, &mut sq);
        let board = Board::new(layout, &sq);
        let children = &self.state[side(!mover)];
        let mut entries = [0usize; MAX_PREDECESSORS];
        let mut count = 0;
        board.moves(
            mover,
            |slot, to| {
                let mut c = sq;
                c[slot] = to;
                let Some(ce) = layout.entry_after_move(pe, &sq, &c, slot) else {
                    unreachable!("a legal move leads to a position")
                };
                prefetch(&children[ce]);
                entries[count] = ce;
                count += 1;
            },
            |_| {},
        );
        let mut quiet = [0u16; MAX_PREDECESSORS];
        for (v, &ce) in quiet.iter_mut().zip(&entries[..count]) {
            let st = State::unpack(children[ce].load(Relaxed));
            // A child that is no winner's (a draw) is never worth less.
            *v = if st.flags & WINNER != 0 {
                st.before(level)
            } else {
                INF
            };
        }
        let quiet = &quiet[..count];
        match quiet.iter().copied().max() {
            Some(t) => {
                let at = quiet.iter().filter(|&&v| v == t).count() as u16 * self.weight;
                (t, at as u8)
            }
            None => (0, 0),
        }
    }

    /// The solved slice: the values from clock 0 and the change points,
    /// from the log.
    fn finish(self, labels: &SliceValues) -> DtmnSlice {
        let entries = self.layout.entries;
        let mut log = self.log.into_inner().expect("no panic while held");
        log.par_sort_unstable();
        let mut starts: [Vec<u32>; 2] = [vec![0; entries + 1], vec![0; entries + 1]];
        let mut points: [Vec<ChangePoint>; 2] = [Vec::new(), Vec::new()];
        for &x in &log {
            let (s, e, p) = unpack_point(x);
            starts[s][e + 1] += 1;
            points[s].push(p);
        }
        for st in &mut starts {
            for e in 0..entries {
                st[e + 1] += st[e];
            }
        }
        let values: SliceValues = std::array::from_fn(|s| {
            (0..entries)
                .into_par_iter()
                .map(|e| match value::outcome(labels[s][e]) {
                    None => NONE,
                    Some(o @ (Outcome::Win(_) | Outcome::Loss(_))) => {
                        let first = starts[s][e] as usize;
                        if starts[s][e + 1] as usize == first {
                            // Won or lost only past the rule.
                            return value::DRAW;
                        }
                        let d = points[s][first].depth;
                        value::solved(match o {
                            Outcome::Win(_) => Outcome::Win(d),
                            _ => Outcome::Loss(d),
                        })
                    }
                    Some(Outcome::Draw) => value::DRAW,
                })
                .collect()
        });
        DtmnSlice {
            values,
            starts,
            points,
        }
    }
}
