//! The loop both solvers of a slice share, the one in two bytes per
//! position ([`super::retro`]) and the one in half a byte
//! ([`super::compact`]): a first pass over the slice's blocks, in batches,
//! then level after level until no later level has work, with a chance of
//! a checkpoint between two batches or two levels. What a pass or a level
//! does, and what a checkpoint holds, is each solver's own
//! ([`Retrograde`]); the order of the work, the progress, the checkpoints'
//! timing and the depth limit are this loop's.

use std::{
    io,
    ops::Range,
    path::Path,
    time::{Duration, Instant},
};

use rayon::prelude::*;
use shakmaty::Color;

use super::{
    board::Board,
    cache_error::{output_error, CacheError},
    checkpoint::{Checkpoint, Reached},
    exits::Exits,
    layout::{Layout, Squares, MAX_PIECES},
    levels::{Levels, BLOCK},
    progress::Progress,
    value::{Outcome, MAX_DEPTH},
};
use crate::error::{Error, Result};

/// Batches of blocks of the first pass, with a chance of a checkpoint after
/// each: at most this many.
const FIRST_PASS_BATCHES: usize = 64;

/// The blocks of a batch of the first pass of a slice of `blocks` blocks:
/// at most [`FIRST_PASS_BATCHES`] batches, and at least four blocks a
/// thread, so that a small slice (a pawn slice solved alone, in a paged
/// run) still keeps every thread busy.
pub(crate) fn first_pass_batch(blocks: usize) -> usize {
    blocks
        .div_ceil(FIRST_PASS_BATCHES)
        .max(4 * rayon::current_num_threads())
}

/// What the first pass finds of a position, its side to move given.
pub(crate) struct FirstLook {
    /// Its quiet moves (those that stay in the slice).
    pub(crate) quiet: u16,
    /// The best outcome of its zeroing moves for the side to move, if it
    /// has any.
    pub(crate) best: Option<Outcome>,
    /// Whether the side to move is in check.
    pub(crate) in_check: bool,
}

/// Calls `visit(entry, side to move, look)` for each position of block
/// `block` of slice `slice` of `layout` with each side that can be to move
/// in it, its zeroing moves evaluated by `exits`: the first pass of both
/// solvers, which differ only in what they store.
///
/// # Errors
///
/// The first error of `visit`.
pub(crate) fn first_look(
    layout: &Layout,
    slice: usize,
    block: usize,
    exits: &dyn Exits,
    mut visit: impl FnMut(usize, Color, FirstLook) -> Result<()>,
) -> Result<()> {
    let start = block * BLOCK;
    let end = (start + BLOCK).min(layout.entries);
    let mut sq: Squares = [0; MAX_PIECES];
    for e in start..end {
        layout.decode(slice, e, &mut sq);
        if !layout.is_position(&sq) {
            continue;
        }
        let board = Board::new(layout, &sq);
        for stm in Color::ALL {
            if !board.legal_with(stm) {
                continue;
            }
            let mut quiet = 0u16;
            let mut best: Option<Outcome> = None;
            let in_check = board.moves(
                stm,
                |_, _| quiet += 1,
                |z| {
                    let o = exits.outcome(&board, stm, &z);
                    best = Some(best.map_or(o, |b| b.best(o)));
                },
            );
            visit(
                e,
                stm,
                FirstLook {
                    quiet,
                    best,
                    in_check,
                },
            )?;
        }
    }
    Ok(())
}

/// A slice's solve as [`drive`] runs it.
pub(crate) trait Retrograde: Sync {
    /// The first pass over one block: each position's state from its
    /// zeroing moves and its quiet moves.
    fn first_pass(&self, block: usize) -> Result<()>;
    /// Resolves the positions that wait for `level` and readies what the
    /// level reads; returns the level's frontier, the blocks with
    /// positions resolved at `level`.
    fn open_level(&self, level: usize) -> Vec<usize>;
    /// Walks back from the positions of `frontier` resolved at `level`.
    fn retract(&self, level: usize, frontier: &[usize]) -> Result<()>;
    /// The blocks with positions resolved at each level, and with
    /// positions waiting for one: a level after the last has work if one
    /// of them has blocks there.
    fn queues(&self) -> [&Levels; 2];
    /// Saves the solve's state, gone as far as `reached`, in `checkpoint`.
    fn save(&self, checkpoint: &Checkpoint, reached: Reached) -> io::Result<()>;
    /// Loads the state `checkpoint` holds (on [`Loaded::Damaged`], some of
    /// it may have been loaded).
    ///
    /// # Errors
    ///
    /// [`Error::Output`] if a file cannot be read.
    fn load(&self, checkpoint: &Checkpoint) -> Result<Loaded>;
    /// Makes the sets of blocks with work at each level from the state of
    /// `blocks`, loaded, the levels below `next` being done.
    fn rebuild_levels(&self, blocks: Range<usize>, next: usize);
    /// Starts from nothing: after a damaged `checkpoint` (`damaged`, its
    /// state partly loaded) or with none.
    ///
    /// # Errors
    ///
    /// [`Error::Output`] if a file beside the checkpoint cannot be reset.
    fn forget(&self, checkpoint: &Checkpoint, damaged: bool) -> Result<()>;
}

/// What a solve found in its checkpoint.
pub(crate) enum Loaded {
    /// Its state, gone as far as this.
    At(Reached),
    /// No checkpoint.
    Missing,
    /// A checkpoint that fails a check, and why.
    Damaged(String),
}

impl Loaded {
    /// What the error of reading a checkpoint (at `path`) says of it.
    ///
    /// # Errors
    ///
    /// [`Error::Output`] for an I/O error.
    pub(crate) fn from_error(e: CacheError, path: &Path) -> Result<Loaded> {
        match e {
            CacheError::Missing => Ok(Loaded::Missing),
            CacheError::Damaged(why) => Ok(Loaded::Damaged(why)),
            CacheError::Io(e) => Err(output_error(path, e)),
        }
    }
}

/// What a driven solve took, for the debug line.
pub(crate) struct Driven {
    started: Instant,
    first_pass: Duration,
    /// The last level walked back.
    last_level: usize,
    /// Checkpoints written and the time they took.
    saving: (usize, Duration),
}

impl Driven {
    /// The checkpoints written and the time they took.
    pub(crate) fn checkpoints(&self) -> (usize, Duration) {
        self.saving
    }

    /// Writes the debug line of the solve of `what` to stderr, with
    /// `detail` between its levels and its peak, if asked
    /// (`FIFTYMOVE_SOLVE_DEBUG`).
    pub(crate) fn debug(&self, what: std::fmt::Arguments<'_>, detail: std::fmt::Arguments<'_>) {
        if std::env::var_os("FIFTYMOVE_SOLVE_DEBUG").is_some() {
            eprintln!(
                "solve {what}: first pass {:.2?}, {} levels {:.2?}, {detail}, peak {} bytes",
                self.first_pass,
                self.last_level + 1,
                self.started.elapsed() - self.first_pass,
                crate::memory::peak_resident().unwrap_or(0)
            );
        }
    }
}

/// Solves a slice of `layout` by `solve`: with a `checkpoint`, from where
/// the one a killed solve left says (a damaged one is noted and dropped);
/// the first pass of the blocks not done, in batches of
/// [`first_pass_batch`] blocks (one batch without a `checkpoint`), then
/// each level not done, telling `progress` the entries done and the levels
/// reached; with a `checkpoint`, saved whenever due after a batch or a
/// level.
///
/// # Errors
///
/// The first error of a pass, a level or a checkpoint;
/// [`Error::TooDeep`] if a level would pass what two bytes hold;
/// [`Error::Output`] if a checkpoint cannot be written.
pub(crate) fn drive(
    solve: &impl Retrograde,
    layout: &Layout,
    progress: &dyn Progress,
    checkpoint: Option<&Checkpoint>,
) -> Result<Driven> {
    let started = Instant::now();
    let from = match checkpoint {
        Some(c) => take_up(solve, c, layout.entries, progress)?,
        None => Reached::START,
    };
    let blocks = layout.entries.div_ceil(BLOCK);
    let mut saved = Instant::now();
    let mut saving = (0usize, Duration::ZERO);
    // Saves the state if a checkpoint is due.
    let mut save = |reached: Reached| -> Result<()> {
        let Some(c) = checkpoint.filter(|c| c.due(saved)) else {
            return Ok(());
        };
        let begun = Instant::now();
        solve
            .save(c, reached)
            .map_err(|e| output_error(c.path(), e))?;
        saved = Instant::now();
        saving = (saving.0 + 1, saving.1 + (saved - begun));
        c.stop_if_asked()
    };
    let batch = if checkpoint.is_some() {
        first_pass_batch(blocks)
    } else {
        blocks.max(1)
    };
    for start in (from.first_pass..blocks).step_by(batch) {
        let end = (start + batch).min(blocks);
        (start..end).into_par_iter().try_for_each(|b| {
            solve.first_pass(b)?;
            progress.advance(BLOCK.min(layout.entries - b * BLOCK) as u64);
            Ok::<(), Error>(())
        })?;
        save(Reached {
            first_pass: end,
            next_level: 0,
        })?;
    }
    let first_pass = started.elapsed();
    let mut level = from.next_level;
    loop {
        let frontier = solve.open_level(level);
        if level + 1 >= usize::from(MAX_DEPTH) && !frontier.is_empty() {
            return Err(Error::TooDeep {
                material: layout.material.to_string(),
                metric: None,
                detail: format!("a depth beyond {MAX_DEPTH} plies"),
            });
        }
        solve.retract(level, &frontier)?;
        let more = |queue: &Levels| queue.highest().is_some_and(|h| h > level);
        if !solve.queues().into_iter().any(more) {
            break;
        }
        level += 1;
        progress.level(level);
        save(Reached {
            first_pass: blocks,
            next_level: level,
        })?;
    }
    Ok(Driven {
        started,
        first_pass,
        last_level: level,
        saving,
    })
}

/// Takes up `checkpoint` into `solve`'s state, of a slice of `entries`
/// entries: how far it had gone, [`Reached::START`] without one or with a
/// damaged one (noted).
fn take_up(
    solve: &impl Retrograde,
    checkpoint: &Checkpoint,
    entries: usize,
    progress: &dyn Progress,
) -> Result<Reached> {
    match solve.load(checkpoint)? {
        Loaded::At(reached) => {
            solve.rebuild_levels(0..reached.first_pass, reached.next_level);
            progress.note(&format!(
                "resuming {} from its checkpoint: {}",
                checkpoint.label(),
                reached.describe(entries.div_ceil(BLOCK))
            ));
            progress.advance(entries.min(reached.first_pass * BLOCK) as u64);
            Ok(reached)
        }
        Loaded::Missing => {
            solve.forget(checkpoint, false)?;
            Ok(Reached::START)
        }
        Loaded::Damaged(why) => {
            progress.note(&format!(
                "damaged checkpoint, solving the slice from the start: {why}"
            ));
            solve.forget(checkpoint, true)?;
            Ok(Reached::START)
        }
    }
}
