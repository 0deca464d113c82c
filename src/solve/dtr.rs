//! Depth by the rule (DTR, Haworth's term): for each won position the least
//! rule, in plies, under which it is won, and for each lost one the DTR of
//! the win it answers. The positions with DTR at most `2N` are exactly the
//! wins under an `N`-move rule, so one table answers every rule.
//!
//! DTR is not a minimax over single plies: a quicker conversion can lead
//! into an endgame that needs a longer rule than a slower one does (the
//! flaw of the first formula, `max(dz, min dr)`, that Haworth later
//! pointed out). It is a minimax over whole phases. Let `T_d(p)` be the
//! smallest rule that the winner can make the rest of the game need while
//! ending the current phase within `d` plies: the winner minimises over his
//! moves, the loser maximises, a zeroing move costs the DTR of the position
//! it leads to, and a checkmated position costs 0. Under a rule of `B`
//! plies the winner wins exactly when `T_B(p) <= B`, so
//!
//! ```text
//! DTR(p) = min { d : T_d(p) <= d }.
//! ```
//!
//! `T_d` only falls as `d` grows, and it is computed the retrograde way,
//! level by level: at level `d` a winner's position takes the value its
//! loser's successors had at `d - 1` if that is smaller; a loser's position
//! keeps a weighted count of its quiet moves whose successor is at its
//! current maximum, and when that count reaches zero its maximum is worked
//! out again from its moves. Each change at level `d` to a value `t` makes
//! `max(d, t)` a candidate for the DTR, and the DTR is the smallest
//! candidate. A value at or below its level is settled: no later change can
//! give a smaller candidate, so none is made, and the last change's
//! candidate, read from the state at the end, is the DTR. Which side wins
//! comes first, from the slice solved without a rule.
//!
//! Memory: 8 bytes per position and side for the state (value, value one
//! level before, level of the last change, count, kind), 2 for the result,
//! and half a byte per position for the marks of the entries that changed.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;
use shakmaty::Color;

use super::{
    board::Board,
    exits::Exits,
    layout::{Layout, Squares, MAX_PIECES},
    level_state::{update, State, INF, LOSER, NEVER, PINNED, WINNER},
    levels::{Levels, BLOCK},
    retract::{each_predecessor, per_side, prefetch, side, MAX_PREDECESSORS},
    value::{self, Outcome, SliceValues, MAX_DEPTH, NONE},
};
use crate::error::{Error, Result};

/// Whether a value `t` is final at `level`: every candidate `max(d, t')`
/// that a later change to `t' < t` at a level `d >= level` could make is
/// at least `level >= t`, no better than the candidate `t` already made;
/// and a predecessor's value at the next level, a minimum or maximum over
/// its moves, is at most `level` with `t` or with `t'` alike, so its
/// candidates are the same. Such changes are skipped: without this, a
/// position's value went on falling long after its DTR was known, and
/// every fall was walked back to its predecessors.
#[inline]
fn settled(t: u16, level: u16) -> bool {
    t <= level
}

/// Solves slice `slice` in DTR, given its values without a rule
/// (`no_rule`), and `exits` that read the DTR of the tables zeroing moves
/// lead to.
///
/// # Errors
///
/// [`Error::TooDeep`] if a DTR exceeds what two bytes hold.
pub(crate) fn solve_slice_dtr(
    layout: &Layout,
    slice: usize,
    no_rule: &SliceValues,
    exits: &dyn Exits,
) -> Result<SliceValues> {
    let blocks = layout.entries.div_ceil(BLOCK);
    let s = Dtr {
        layout,
        slice,
        exits,
        state: per_side(layout.entries, || AtomicU64::new(0)),
        changed: Levels::new(blocks, usize::from(MAX_DEPTH) + 2),
        marks: std::array::from_fn(|_| per_side(layout.entries.div_ceil(64), || AtomicU64::new(0))),
        weight: if layout.has_pawns() { 1 } else { 2 },
    };
    (0..blocks)
        .into_par_iter()
        .for_each(|b| s.first_pass(b, no_rule));
    let mut level: u16 = 1;
    loop {
        let blocks = s.changed.blocks(usize::from(level - 1));
        // Winners' changes reach losers first, while the winners still hold
        // their values of the level before; then losers' changes reach
        // winners.
        blocks
            .par_iter()
            .for_each(|&b| s.retract_block(b, level, true));
        blocks
            .par_iter()
            .for_each(|&b| s.retract_block(b, level, false));
        // The marks of `level - 1` are spent: cleared, they serve `level + 1`.
        blocks.par_iter().for_each(|&b| s.clear_marks(b, level - 1));
        if s.changed.highest().is_none_or(|h| h < usize::from(level)) {
            break;
        }
        if level >= MAX_DEPTH - 1 {
            return Err(Error::TooDeep {
                material: layout.material.to_string(),
                metric: Some("DTR"),
                detail: format!("a depth beyond {MAX_DEPTH} plies"),
            });
        }
        level += 1;
    }
    let out = |side: usize| -> Vec<u16> {
        (0..layout.entries)
            .into_par_iter()
            .map(|e| {
                let v = no_rule[side][e];
                match value::outcome(v) {
                    None => NONE,
                    Some(Outcome::Draw) => value::DRAW,
                    Some(o) => {
                        // The DTR is the least candidate `max(d, t)` of the
                        // changes: they fall in `t` while `t` is above their
                        // level (a settled value changes no more), so the
                        // last change's is the least.
                        let st = State::unpack(s.state[side][e].load(Relaxed));
                        let r = st.t.max(st.level);
                        debug_assert!(r != INF, "a decisive position without a DTR");
                        value::solved(match o {
                            Outcome::Win(_) => Outcome::Win(r),
                            _ => Outcome::Loss(r),
                        })
                    }
                }
            })
            .collect()
    };
    Ok([out(0), out(1)])
}

struct Dtr<'a> {
    layout: &'a Layout,
    slice: usize,
    exits: &'a dyn Exits,
    state: [Vec<AtomicU64>; 2],
    /// Blocks with positions whose value changed at each level.
    changed: Levels,
    /// Per level parity and side, a bit per entry whose value changed at a
    /// level of that parity: a level walks back from just those, instead
    /// of reading every state of every block that changed (which took most
    /// of a level's time once few positions change).
    marks: [[Vec<AtomicU64>; 2]; 2],
    weight: u16,
}

impl Dtr<'_> {
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

    fn first_pass(&self, block: usize, no_rule: &SliceValues) {
        let layout = self.layout;
        let start = block * BLOCK;
        let end = (start + BLOCK).min(layout.entries);
        let mut sq: Squares = [0; MAX_PIECES];
        for e in start..end {
            if no_rule.iter().all(|v| {
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
                let o = value::outcome(no_rule[s][e]);
                let mut quiet = 0u16;
                let mut exit_best: Option<u16> = None;
                let winner = matches!(o, Some(Outcome::Win(_)));
                let state = match o {
                    Some(Outcome::Loss(0)) => {
                        // Checkmated: the game is over, no rule is needed.
                        self.mark(0, s, e);
                        State {
                            t: 0,
                            prev: INF,
                            level: 0,
                            count: 0,
                            flags: LOSER,
                        }
                    }
                    Some(Outcome::Win(_) | Outcome::Loss(_)) => {
                        board.moves(
                            stm,
                            |_, _| quiet += 1,
                            |z| {
                                let r = match self.exits.outcome(&board, stm, &z) {
                                    Outcome::Win(r) if winner => r,
                                    Outcome::Loss(r) if !winner => r,
                                    _ => return,
                                };
                                exit_best = Some(match exit_best {
                                    None => r,
                                    Some(b) if winner => b.min(r),
                                    Some(b) => b.max(r),
                                });
                            },
                        );
                        let flags = if winner { WINNER } else { LOSER };
                        // A winner's zeroing move, and the zeroing moves of a
                        // loser with no quiet move, end the phase at ply 1.
                        match exit_best {
                            Some(r) if winner || quiet == 0 => {
                                self.mark(1, s, e);
                                State {
                                    t: r,
                                    prev: INF,
                                    level: 1,
                                    count: 0,
                                    flags: if winner { flags } else { flags | PINNED },
                                }
                            }
                            _ => State {
                                t: INF,
                                prev: INF,
                                level: NEVER,
                                count: (quiet * self.weight) as u8,
                                flags,
                            },
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
                    if st.flags == 0 || st.winner() != winners || !st.changed_at(level - 1) {
                        continue;
                    }
                    self.layout.decode(self.slice, e, &mut sq);
                    if winners {
                        // Winners change only in the second half of a level,
                        // so here the last change is the one at `level - 1`.
                        self.winner_changed(e, &sq, stm, st.prev, st.t, level);
                    } else {
                        self.loser_changed(e, &sq, stm, st.before(level), level);
                    }
                }
            }
        }
    }

    /// The predecessors of the position `sq` (entry `e`) reached by a quiet
    /// move of `!stm`, with the weight of each retraction
    /// ([`each_predecessor`]).
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
                // A loser already at or below the level is settled: no
                // later change can give it or its predecessors a smaller
                // candidate (see `settled`).
                if !st.loser()
                    || st.flags & PINNED != 0
                    || st.level == level
                    || st.t != old
                    || settled(st.t, level)
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
                        "DTR counter of {} went below zero",
                        self.layout.material
                    );
                    let (t, count, pinned) = self.maximum(pe, mover, level);
                    let mut next = st.change(t, level);
                    next.count = count;
                    if pinned {
                        next.flags |= PINNED;
                    }
                    next
                })
            });
            if let Some((st, next)) = changed {
                if next.level == level && next.t < st.t {
                    self.mark(level, side(mover), pe);
                }
            }
        });
    }

    /// A loser's position now has value `v` (it changed at `level - 1`):
    /// its winning predecessors may take it.
    fn loser_changed(&self, e: usize, sq: &Squares, stm: Color, v: u16, level: u16) {
        let mover = !stm;
        let cells = &self.state[side(mover)];
        self.predecessors(e, sq, stm, |pe, _| {
            let taken = update(&cells[pe], |st| {
                let takes = st.winner() && st.t > v && !settled(st.t, level);
                takes.then(|| st.change(v, level))
            });
            if taken.is_some() {
                self.mark(level, side(mover), pe);
            }
        });
    }

    /// The maximum, at `level`, of the losing position `pe` (`mover` to
    /// move) over its moves, the weighted count of quiet moves at it, and
    /// whether a zeroing move pins it there.
    fn maximum(&self, pe: usize, mover: Color, level: u16) -> (u16, u8, bool) {
        let layout = self.layout;
        let mut sq: Squares = [0; MAX_PIECES];
        layout.decode(self.slice, pe, &mut sq);
        let board = Board::new(layout, &sq);
        let children = &self.state[side(!mover)];
        // The children's entries first, their cells prefetched, then their
        // values: the misses are taken side by side.
        let mut entries = [0usize; MAX_PREDECESSORS];
        let mut count = 0;
        let mut exit_max: Option<u16> = None;
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
            |z| {
                if let Outcome::Loss(r) = self.exits.outcome(&board, mover, &z) {
                    exit_max = Some(exit_max.map_or(r, |m| m.max(r)));
                }
            },
        );
        let mut quiet = [0u16; MAX_PREDECESSORS];
        for (v, &ce) in quiet.iter_mut().zip(&entries[..count]) {
            *v = State::unpack(children[ce].load(Relaxed)).before(level);
        }
        let quiet = &quiet[..count];
        let top = quiet.iter().copied().max();
        match (top, exit_max) {
            (Some(t), Some(x)) if x >= t => (x, 0, true),
            (Some(t), _) => {
                let count = quiet.iter().filter(|&&v| v == t).count() as u16 * self.weight;
                (t, count as u8, false)
            }
            (None, Some(x)) => (x, 0, true),
            (None, None) => unreachable!("a lost position has a move"),
        }
    }
}
