//! Retrograde analysis of one slice: every position's value from the
//! values of its zeroing moves (which leave the slice and are looked up in
//! tables already solved) and from the values of its quiet moves (which
//! stay in the slice and are worked out here, level by level).
//!
//! The scheme is the classic one. A first pass gives each position its
//! state: checkmated (lost in 0), "won at level l" when a zeroing move wins,
//! "cannot be lost" when one draws, and otherwise a counter of its quiet
//! moves. Then level by level, from 0 up: the positions lost at level `L`
//! make their predecessors won at `L + 1`; the positions won at `L`
//! decrement their predecessors' counters, and a predecessor whose counter
//! reaches zero is lost at `L + 1`, or later if a zeroing move loses more
//! slowly. A level's work touches only the predecessors of that level's
//! positions, found by retracting quiet moves, and the result does not
//! depend on the order in which threads do it: every change is a
//! compare-and-swap that only a level's own rule can make.
//!
//! Without pawns the counters are weighted by the positions' stabilisers
//! (see [`super::retract`]): each move counts 2.

use std::{
    ops::Range,
    sync::atomic::{AtomicU16, Ordering::Relaxed},
};

use rayon::prelude::*;
use shakmaty::Color;

use super::{
    board::Board,
    checkpoint::{Checkpoint, Reached},
    drive::{drive, first_look, FirstLook, Loaded, Retrograde},
    exits::Exits,
    layout::{Layout, Squares, MAX_PIECES},
    levels::{Levels, BLOCK},
    progress::Progress,
    retract::{each_predecessor, per_side, prefetch, side},
    value::{self, Outcome, SliceValues, Waiting, MAX_DEPTH, MAX_LEVEL, NONE},
};
use crate::error::{Error, Result};

/// Solves slice `slice` of `layout`, telling `progress` the entries done as
/// the first pass goes, then each level reached. With a `checkpoint`, it
/// goes on from the one a killed solve left (a damaged one is noted and
/// dropped), and saves one whenever due, between two batches of the first
/// pass or two levels.
///
/// # Errors
///
/// [`Error::TooDeep`] if a depth would exceed what two bytes hold (no
/// material of up to 5 pieces comes near it); [`Error::Output`] if a
/// checkpoint cannot be read or written.
pub(crate) fn solve_slice(
    layout: &Layout,
    slice: usize,
    exits: &dyn Exits,
    progress: &dyn Progress,
    checkpoint: Option<&Checkpoint>,
) -> Result<SliceValues> {
    let blocks = layout.entries.div_ceil(BLOCK);
    let solver = Solver {
        layout,
        slice,
        exits,
        values: per_side(layout.entries, || AtomicU16::new(NONE)),
        resolved: Levels::new(blocks, usize::from(MAX_DEPTH) + 2),
        pending: Levels::new(blocks, usize::from(MAX_LEVEL) + 1),
        weight: if layout.has_pawns() { 1 } else { 2 },
    };
    let driven = drive(&solver, layout, progress, checkpoint)?;
    if layout.entries >= 1 << 20 {
        let (count, took) = driven.checkpoints();
        driven.debug(
            format_args!("{} slice {slice}", layout.material),
            format_args!("{count} checkpoints {took:.2?}"),
        );
    }
    let [w, b] = solver.values;
    Ok([finish(w), finish(b)])
}

/// The solved values of a slice, in place: what nothing resolved is drawn.
fn finish(values: Vec<AtomicU16>) -> Vec<u16> {
    let mut values = std::mem::ManuallyDrop::new(values);
    let (ptr, len, cap) = (values.as_mut_ptr(), values.len(), values.capacity());
    // SAFETY: `AtomicU16` has the same size, alignment and bit validity as
    // `u16`, and the vector is not used again, so its buffer may be taken as
    // a `Vec<u16>` (no copy of the slice's two bytes per position).
    let mut values = unsafe { Vec::from_raw_parts(ptr.cast::<u16>(), len, cap) };
    values.par_iter_mut().for_each(|x| {
        if *x != NONE && !value::is_resolved(*x) {
            *x = value::DRAW;
        }
    });
    values
}

struct Solver<'a> {
    layout: &'a Layout,
    slice: usize,
    exits: &'a dyn Exits,
    values: [Vec<AtomicU16>; 2],
    /// Blocks with positions resolved at each level.
    resolved: Levels,
    /// Blocks with positions waiting for each level.
    pending: Levels,
    /// What one quiet move counts in a counter.
    weight: u16,
}

impl Retrograde for Solver<'_> {
    /// The first pass over one block.
    fn first_pass(&self, block: usize) -> Result<()> {
        first_look(
            self.layout,
            self.slice,
            block,
            self.exits,
            |e, stm, look| {
                let FirstLook {
                    quiet,
                    best,
                    in_check,
                } = look;
                let state = match best {
                    Some(Outcome::Win(l)) => {
                        self.pending.insert(usize::from(self.level_of(l)?), block);
                        value::win_at(l)
                    }
                    Some(Outcome::Draw) => value::SAFE,
                    Some(Outcome::Loss(f)) if quiet == 0 => {
                        self.pending.insert(usize::from(self.level_of(f)?), block);
                        value::loss_at(f)
                    }
                    None if quiet == 0 => {
                        if in_check {
                            self.resolved.insert(0, block);
                            value::solved(Outcome::Loss(0))
                        } else {
                            // Stalemate.
                            value::SAFE
                        }
                    }
                    _ => value::waiting(quiet * self.weight, best.is_some()),
                };
                self.values[side(stm)][e].store(state, Relaxed);
                Ok(())
            },
        )
    }

    fn open_level(&self, level: usize) -> Vec<usize> {
        self.pending
            .blocks(level)
            .par_iter()
            .for_each(|&b| self.resolve_pending(b, level));
        self.resolved.blocks(level)
    }

    fn retract(&self, level: usize, frontier: &[usize]) -> Result<()> {
        frontier
            .par_iter()
            .for_each(|&b| self.retract_block(b, level));
        Ok(())
    }

    fn queues(&self) -> [&Levels; 2] {
        [&self.resolved, &self.pending]
    }

    fn save(&self, checkpoint: &Checkpoint, reached: Reached) -> std::io::Result<()> {
        checkpoint.save(reached, &self.values)
    }

    fn load(&self, checkpoint: &Checkpoint) -> Result<Loaded> {
        match checkpoint.load(&self.values) {
            Ok(reached) => Ok(Loaded::At(reached)),
            Err(e) => Loaded::from_error(e, checkpoint.path()),
        }
    }

    /// Makes the sets of blocks with work at each level from the values of
    /// `blocks` (a resumed solve, see [`Checkpoint`]), the levels below
    /// `next` being done: a block goes in the frontier of each level from
    /// `next` on at which one of its values is resolved, and in the pending
    /// set of each such level one of its values waits for.
    fn rebuild_levels(&self, blocks: Range<usize>, next: usize) {
        blocks.into_par_iter().for_each(|block| {
            let start = block * BLOCK;
            let end = (start + BLOCK).min(self.layout.entries);
            for values in &self.values {
                for cell in &values[start..end] {
                    let v = cell.load(Relaxed);
                    if v == NONE {
                        continue;
                    }
                    if value::is_resolved(v) {
                        if let Some(Outcome::Win(d) | Outcome::Loss(d)) = value::outcome(v) {
                            if usize::from(d) >= next {
                                self.resolved.insert(usize::from(d), block);
                            }
                        }
                        continue;
                    }
                    match value::waiting_state(v) {
                        Waiting::WinAt(l) | Waiting::LossAt(l) if usize::from(l) >= next => {
                            self.pending.insert(usize::from(l), block);
                        }
                        _ => {}
                    }
                }
            }
        });
    }

    fn forget(&self, _: &Checkpoint, damaged: bool) -> Result<()> {
        if damaged {
            for values in &self.values {
                values.par_iter().for_each(|v| v.store(NONE, Relaxed));
            }
        }
        Ok(())
    }
}

impl Solver<'_> {
    fn level_of(&self, l: u16) -> Result<u16> {
        if l > MAX_LEVEL {
            return Err(Error::TooDeep {
                material: self.layout.material.to_string(),
                metric: None,
                detail: format!("a zeroing move at level {l}, beyond {MAX_LEVEL}"),
            });
        }
        Ok(l)
    }

    /// Resolves the positions of a block that wait for `level`.
    fn resolve_pending(&self, block: usize, level: usize) {
        let start = block * BLOCK;
        let end = (start + BLOCK).min(self.layout.entries);
        for values in &self.values {
            for cell in &values[start..end] {
                let v = cell.load(Relaxed);
                if v == NONE || value::is_resolved(v) {
                    continue;
                }
                let resolved = match value::waiting_state(v) {
                    Waiting::WinAt(l) if usize::from(l) == level => Outcome::Win(l),
                    Waiting::LossAt(l) if usize::from(l) == level => Outcome::Loss(l),
                    _ => continue,
                };
                cell.store(value::solved(resolved), Relaxed);
                self.resolved.insert(level, block);
            }
        }
    }

    /// Walks back from the positions of a block resolved at `level`.
    fn retract_block(&self, block: usize, level: usize) {
        let start = block * BLOCK;
        let end = (start + BLOCK).min(self.layout.entries);
        let mut sq: Squares = [0; MAX_PIECES];
        for stm in Color::ALL {
            for e in start..end {
                let v = self.values[side(stm)][e].load(Relaxed);
                let Some(o) = value::outcome(v) else { continue };
                match o {
                    Outcome::Win(d) | Outcome::Loss(d) if usize::from(d) == level => {}
                    _ => continue,
                }
                self.layout.decode(self.slice, e, &mut sq);
                self.retract(e, &sq, stm, o, level as u16);
            }
        }
    }

    /// The predecessors of the position `sq` (entry `e`, `stm` to move),
    /// which is resolved as `o` at `level`.
    fn retract(&self, e: usize, sq: &Squares, stm: Color, o: Outcome, level: u16) {
        let mover = !stm;
        let cells = &self.values[side(mover)];
        each_predecessor(
            self.layout,
            e,
            sq,
            mover,
            self.weight,
            |pe| prefetch(&cells[pe]),
            |pe, weight| {
                let cell = &cells[pe];
                match o {
                    Outcome::Loss(_) => self.won_by_quiet_move(cell, pe, level + 1),
                    Outcome::Win(_) => self.quiet_move_lost(cell, pe, mover, weight, level),
                    Outcome::Draw => unreachable!("draws are not retracted"),
                }
            },
        );
    }

    /// A quiet move of the position at `cell` wins at `depth`.
    #[inline]
    fn won_by_quiet_move(&self, cell: &AtomicU16, pe: usize, depth: u16) {
        let mut cur = cell.load(Relaxed);
        loop {
            if cur == NONE || value::is_resolved(cur) {
                return;
            }
            match cell.compare_exchange_weak(
                cur,
                value::solved(Outcome::Win(depth)),
                Relaxed,
                Relaxed,
            ) {
                Ok(_) => {
                    self.resolved.insert(usize::from(depth), pe / BLOCK);
                    return;
                }
                Err(now) => cur = now,
            }
        }
    }

    /// A quiet move of the position at `cell` (`mover` to move) turned out
    /// lost, at `level`; it counts `weight`.
    #[inline]
    fn quiet_move_lost(&self, cell: &AtomicU16, pe: usize, mover: Color, weight: u16, level: u16) {
        let mut cur = cell.load(Relaxed);
        loop {
            if cur == NONE || value::is_resolved(cur) {
                return;
            }
            let Waiting::Counter(c, has_losing_exit) = value::waiting_state(cur) else {
                return;
            };
            assert!(
                c >= weight,
                "solver counter of {} went below zero",
                self.layout.material
            );
            let (new, mark) = if c > weight {
                (value::waiting(c - weight, has_losing_exit), None)
            } else {
                let mut depth = level + 1;
                if has_losing_exit {
                    depth = depth.max(self.slowest_losing_exit(pe, mover));
                }
                if depth == level + 1 {
                    (
                        value::solved(Outcome::Loss(depth)),
                        Some((&self.resolved, depth)),
                    )
                } else {
                    // The first pass refused exits beyond MAX_LEVEL.
                    assert!(depth <= MAX_LEVEL, "a losing exit beyond level {MAX_LEVEL}");
                    (value::loss_at(depth), Some((&self.pending, depth)))
                }
            };
            match cell.compare_exchange_weak(cur, new, Relaxed, Relaxed) {
                Ok(_) => {
                    if let Some((levels, d)) = mark {
                        levels.insert(usize::from(d), pe / BLOCK);
                    }
                    return;
                }
                Err(now) => cur = now,
            }
        }
    }

    /// The depth of the slowest losing zeroing move of entry `pe` with
    /// `mover` to move (every zeroing move of it loses).
    fn slowest_losing_exit(&self, pe: usize, mover: Color) -> u16 {
        let mut sq: Squares = [0; MAX_PIECES];
        self.layout.decode(self.slice, pe, &mut sq);
        let board = Board::new(self.layout, &sq);
        let mut slowest = 0;
        board.moves(
            mover,
            |_, _| {},
            |z| {
                if let Outcome::Loss(d) = self.exits.outcome(&board, mover, &z) {
                    slowest = slowest.max(d);
                }
            },
        );
        slowest
    }
}
