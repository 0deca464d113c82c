//! Retrograde analysis of a material without pawns in half a byte per
//! position and side, for a rule's DTZ: what lets the largest 6-piece
//! materials (7.75 G entries per side without like pieces) be solved within
//! 12 GB, where the two bytes of [`super::retro`] take 31 GB.
//!
//! Half a byte holds a state, not a depth. The depths leave memory as they
//! are found: each level's resolved positions are written to a spill file
//! (`spill`) while the level is retracted, and a resolved position keeps
//! only "won" or "lost" once its level is two behind. The values are made
//! again from the spill, a chunk of entries at a time, when the solve is
//! done ([`Compact::values`]).
//!
//! There is no room for a counter of quiet moves still to lose, so a
//! position is proved lost the way the Syzygy generator proves it: when one
//! of its quiet moves turns out to lose (a successor won for the opponent at
//! the level being retracted), all its quiet moves are generated and looked
//! up, and the position is lost if every one leads to a position won for the
//! opponent at that level or before. The verification reads only levels up
//! to the one retracted, never the next one that other threads are writing,
//! so the result does not depend on the order of the work, and every depth
//! equals [`super::retro`]'s (a test compares them on every pawnless table
//! of up to five pieces here).
//!
//! ```text
//! 0          not a position
//! 1          open: may be lost (every zeroing move loses, or there is none)
//! 2 + l % 3  open, and its verification failed at level l (no need to
//!            verify it again at that level: the levels up to l do not
//!            change while l is retracted)
//! 5          cannot be lost (a zeroing move draws, or stalemate)
//! 6, 7       won, lost at the level just past the rule, unless sooner
//! 8, 9       won, lost at a level two or more behind the one retracted
//! 10 + l % 3 won at level l, for the last three levels
//! 13 + l % 3 lost at level l, for the last three levels
//! ```
//!
//! A failed verification's mark is for its level only: the marks of level
//! `l - 3`, which read as those of `l`, are opened again before level `l`
//! is retracted.

use std::{
    ops::Range,
    sync::atomic::{AtomicU64, Ordering::Relaxed},
};

use rayon::prelude::*;
use shakmaty::Color;

use super::{
    board::{pseudo_quiet_moves, Board},
    cache_error::output_error,
    checkpoint::{Checkpoint, Reached},
    drive::{drive, first_look, FirstLook, Loaded, Retrograde},
    exits::Exits,
    layout::{Layout, Squares, MAX_PIECES},
    levels::{zero_words, Levels, BLOCK},
    progress::Progress,
    retract::{each_predecessor, prefetch, side},
    spill::{Record, Spill},
    value::{self, Outcome, MAX_DEPTH},
};
use crate::{
    chess::rule::Rule,
    error::{Error, Result},
};

const NONE: u8 = 0;
const OPEN: u8 = 1;
const FAILED: u8 = 2;
const SAFE: u8 = 5;
const WIN_PAST: u8 = 6;
const LOSS_PAST: u8 = 7;
const WIN_OLD: u8 = 8;
const LOSS_OLD: u8 = 9;
const WIN_AT: u8 = 10;
const LOSS_AT: u8 = 13;

/// The code of an open position whose verification failed at `level`.
#[inline]
fn failed_at(level: usize) -> u8 {
    FAILED + (level % 3) as u8
}

/// Whether `code` is open (it may still be lost).
#[inline]
fn is_open(code: u8) -> bool {
    (OPEN..SAFE).contains(&code)
}

/// The code of a position won at `level`.
#[inline]
fn win_at(level: usize) -> u8 {
    WIN_AT + (level % 3) as u8
}

/// The code of a position lost at `level`.
#[inline]
fn loss_at(level: usize) -> u8 {
    LOSS_AT + (level % 3) as u8
}

/// Whether `code` is resolved (won or lost, at any level).
#[inline]
fn is_resolved(code: u8) -> bool {
    matches!(code, WIN_OLD | LOSS_OLD) || code >= WIN_AT
}

/// Half a byte per entry, sixteen entries per word, changed by
/// compare-and-swap of the word; whole words are read where a pass looks
/// for a few codes, so that the entries without them cost one load per
/// sixteen.
struct Nibbles {
    words: Vec<AtomicU64>,
}

/// A nibble of 1 in each of the sixteen places of a word.
const ONES: u64 = 0x1111_1111_1111_1111;

/// Whether one of the sixteen nibbles of `word` is `code` (the test for a
/// zero nibble, on the word with `code` taken away from each).
#[inline]
fn has(word: u64, code: u8) -> bool {
    let x = word ^ (ONES * u64::from(code));
    x.wrapping_sub(ONES) & !x & (ONES << 3) != 0
}

impl Nibbles {
    fn new(entries: usize) -> Nibbles {
        Nibbles {
            words: zero_words(entries.div_ceil(16)),
        }
    }

    #[inline]
    fn shift(e: usize) -> u32 {
        4 * (e as u32 & 15)
    }

    #[inline]
    fn get(&self, e: usize) -> u8 {
        ((self.words[e / 16].load(Relaxed) >> Self::shift(e)) & 15) as u8
    }

    #[inline]
    fn cell(&self, e: usize) -> &AtomicU64 {
        &self.words[e / 16]
    }

    /// The word of entries `16 i` to `16 i + 15`.
    #[inline]
    fn word(&self, i: usize) -> u64 {
        self.words[i].load(Relaxed)
    }

    /// Sets entry `e` to `new` if `allowed(old)`; returns whether it did.
    #[inline]
    fn update(&self, e: usize, allowed: impl Fn(u8) -> bool, new: u8) -> bool {
        let shift = Self::shift(e);
        let cell = &self.words[e / 16];
        let mut cur = cell.load(Relaxed);
        loop {
            let old = ((cur >> shift) & 15) as u8;
            if !allowed(old) {
                return false;
            }
            let next = (cur & !(15 << shift)) | (u64::from(new) << shift);
            match cell.compare_exchange_weak(cur, next, Relaxed, Relaxed) {
                Ok(_) => return true,
                Err(now) => cur = now,
            }
        }
    }

    /// Calls `visit(entry, code)` for the entries of `block` whose code is
    /// one of `codes`, in ascending order.
    #[inline]
    fn each_of(
        &self,
        block: usize,
        entries: usize,
        codes: &[u8],
        mut visit: impl FnMut(usize, u8),
    ) {
        let start = block * BLOCK;
        let end = (start + BLOCK).min(entries);
        for i in start / 16..end.div_ceil(16) {
            let word = self.word(i);
            if !codes.iter().any(|&c| has(word, c)) {
                continue;
            }
            for e in 16 * i..(16 * i + 16).min(end) {
                let c = ((word >> Self::shift(e)) & 15) as u8;
                if codes.contains(&c) {
                    visit(e, c);
                }
            }
        }
    }
}

/// A solve in half a byte per position and side, done, with its spill.
pub(crate) struct Compact {
    codes: [Nibbles; 2],
    spill: Spill,
    entries: usize,
}

/// The level just past the rule's limit, where zeroing moves into cursed
/// wins and blessed losses count (one without a rule, like a plain win).
fn past_level(rule: Rule) -> usize {
    rule.limit().map_or(1, |l| usize::from(l) + 1)
}

/// Solves `layout`, a material without pawns, under `rule` (DTZ) with the
/// exits `exits`, spilling the depths to a file in `dir` (beside the
/// `checkpoint`, if any, which it goes on from and saves whenever due:
/// between two batches of the first pass or two levels, as
/// [`super::retro`] does).
///
/// # Errors
///
/// [`Error::TooDeep`] past what two bytes of a value hold; [`Error::Output`]
/// if the spill file or a checkpoint cannot be written or read.
pub(crate) fn solve(
    layout: &Layout,
    rule: Rule,
    exits: &dyn Exits,
    dir: &std::path::Path,
    progress: &dyn Progress,
    checkpoint: Option<&Checkpoint>,
) -> Result<Compact> {
    debug_assert!(!layout.has_pawns());
    let blocks = layout.entries.div_ceil(BLOCK);
    // A checkpointed solve spills to a named file beside its checkpoint,
    // which a resumed one takes up.
    let spill = match checkpoint {
        Some(c) => Spill::open(&c.spill_path(), layout.entries)
            .map_err(|e| output_error(&c.spill_path(), e))?,
        None => Spill::new(dir, layout.entries).map_err(|e| output_error(dir, e))?,
    };
    let solver = Solver {
        layout,
        exits,
        spill,
        dir,
        codes: [Nibbles::new(layout.entries), Nibbles::new(layout.entries)],
        resolved: Levels::new(blocks, usize::from(MAX_DEPTH) + 2),
        pending: Levels::new(blocks, usize::from(MAX_DEPTH) + 2),
        failed: Levels::new(blocks, usize::from(MAX_DEPTH) + 2),
        past: past_level(rule),
    };
    let driven = drive(&solver, layout, progress, checkpoint)?;
    driven.debug(
        format_args!("{} in half a byte", layout.material),
        format_args!("spill {} bytes", solver.spill.bytes()),
    );
    Ok(Compact {
        codes: solver.codes,
        spill: solver.spill,
        entries: layout.entries,
    })
}

impl Compact {
    /// Entries per chunk of [`Compact::values`].
    pub(crate) const CHUNK: usize = Spill::CHUNK_BLOCKS * BLOCK;

    /// The two sides' values (as [`super::retro`] gives them) of chunk
    /// `chunk`, entries `chunk * CHUNK` on, made from the codes and the
    /// spill.
    ///
    /// # Errors
    ///
    /// An I/O error reading the spill, or one of kind `InvalidData` where
    /// it does not hold every resolved position of the chunk once.
    pub(crate) fn values(&self, chunk: usize) -> std::io::Result<[Vec<u16>; 2]> {
        let start = chunk * Self::CHUNK;
        let end = (start + Self::CHUNK).min(self.entries);
        // Resolved positions wait for their depth as `MISSING`.
        const MISSING: u16 = u16::MAX;
        let out: [Vec<std::sync::atomic::AtomicU16>; 2] = std::array::from_fn(|s| {
            (start..end)
                .into_par_iter()
                .map(|e| {
                    let c = self.codes[s].get(e);
                    std::sync::atomic::AtomicU16::new(match c {
                        NONE => value::NONE,
                        _ if is_resolved(c) => MISSING,
                        _ => value::DRAW,
                    })
                })
                .collect()
        });
        self.spill.each_in_chunk(chunk, &|level, r: Record| {
            let cell = &out[r.side][r.entry - start];
            let o = if r.lost {
                Outcome::Loss(level as u16)
            } else {
                Outcome::Win(level as u16)
            };
            // Each resolved position is spilled once, at its level.
            cell.compare_exchange(MISSING, value::solved(o), Relaxed, Relaxed)
                .is_ok()
        })?;
        let out = out.map(|side| {
            side.into_iter()
                .map(std::sync::atomic::AtomicU16::into_inner)
                .collect::<Vec<u16>>()
        });
        if out.iter().any(|side| side.contains(&MISSING)) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "a resolved position has no depth in the spill",
            ));
        }
        Ok(out)
    }

    /// How many chunks [`Compact::values`] gives.
    pub(crate) fn chunks(&self) -> usize {
        self.entries.div_ceil(Self::CHUNK)
    }

    /// Calls `visit(entry, value)` for each position of `side` resolved at
    /// `level` (the longest of a class, whose FENs a count offers).
    ///
    /// # Errors
    ///
    /// An I/O error reading the spill.
    pub(crate) fn at_level(
        &self,
        level: usize,
        side: usize,
        visit: &(dyn Fn(usize, u16) + Sync),
    ) -> std::io::Result<()> {
        self.spill.each_at_level(level, &|r: Record| {
            if r.side == side {
                let o = if r.lost {
                    Outcome::Loss(level as u16)
                } else {
                    Outcome::Win(level as u16)
                };
                visit(r.entry, value::solved(o));
            }
        })
    }
}

struct Solver<'a> {
    layout: &'a Layout,
    exits: &'a dyn Exits,
    /// The depths spilled level by level, and where the spill file is
    /// made (for messages).
    spill: Spill,
    dir: &'a std::path::Path,
    codes: [Nibbles; 2],
    /// Blocks with positions resolved at each level.
    resolved: Levels,
    /// Blocks with positions waiting for the level past the rule.
    pending: Levels,
    /// Blocks with positions whose verification failed at each level.
    failed: Levels,
    past: usize,
}

impl Retrograde for Solver<'_> {
    /// The first pass over one block: each position's state from its
    /// zeroing moves and whether it has quiet ones.
    fn first_pass(&self, block: usize) -> Result<()> {
        first_look(self.layout, 0, block, self.exits, |e, stm, look| {
            let FirstLook {
                quiet,
                best,
                in_check,
            } = look;
            let quiet = quiet > 0;
            let code = match best {
                Some(Outcome::Win(l)) => self.at(usize::from(l), true, block)?,
                Some(Outcome::Draw) => SAFE,
                Some(Outcome::Loss(l)) if !quiet => self.at(usize::from(l), false, block)?,
                None if !quiet => {
                    if in_check {
                        self.resolved.insert(0, block);
                        loss_at(0)
                    } else {
                        SAFE
                    }
                }
                Some(Outcome::Loss(_)) | None => OPEN,
            };
            self.codes[side(stm)].update(e, |_| true, code);
            Ok(())
        })
    }

    fn open_level(&self, level: usize) -> Vec<usize> {
        let each = |levels: &Levels, at: usize, work: &(dyn Fn(usize) + Sync)| {
            levels.blocks(at).par_iter().for_each(|&b| work(b));
        };
        each(&self.pending, level, &|b| self.resolve_pending(b, level));
        if level >= 2 {
            // The codes of level `level - 2` become those of `level + 1`,
            // which this level writes.
            each(&self.resolved, level - 2, &|b| self.age(b, level - 2));
        }
        if level >= 3 {
            // The marks of level `level - 3` read as this level's.
            each(&self.failed, level - 3, &|b| self.reopen(b, level - 3));
        }
        self.resolved.blocks(level)
    }

    fn retract(&self, level: usize, frontier: &[usize]) -> Result<()> {
        // A batch of the frontier at a time: its records go to the spill in
        // entry order, and a level's records are never all in memory.
        for batch in frontier.chunks(Spill::CHUNK_BLOCKS) {
            let records: Vec<(usize, Vec<u16>)> = batch
                .par_iter()
                .map(|&b| (b, self.retract_block(b, level)))
                .collect();
            self.spill
                .add(level, &records)
                .map_err(|e| output_error(self.dir, e))?;
        }
        Ok(())
    }

    fn queues(&self) -> [&Levels; 2] {
        [&self.resolved, &self.pending]
    }

    fn save(&self, checkpoint: &Checkpoint, reached: Reached) -> std::io::Result<()> {
        let codes = [&self.codes[0].words[..], &self.codes[1].words[..]];
        checkpoint.save_compact(reached, self.layout.entries, codes, &self.spill.mark())
    }

    /// The codes, and the spill cut back to what they hold.
    fn load(&self, checkpoint: &Checkpoint) -> Result<Loaded> {
        let codes = [&self.codes[0].words[..], &self.codes[1].words[..]];
        let spill = checkpoint.spill_path();
        match checkpoint.load_compact(self.layout.entries, codes) {
            Ok((reached, mark)) => {
                if self
                    .spill
                    .restore(&mark)
                    .map_err(|e| output_error(&spill, e))?
                {
                    Ok(Loaded::At(reached))
                } else {
                    let why = format!("{}: shorter than its checkpoint says", spill.display());
                    Ok(Loaded::Damaged(why))
                }
            }
            Err(e) => Loaded::from_error(e, checkpoint.path()),
        }
    }

    /// Makes the sets of blocks with work from the codes of `blocks`, the
    /// levels below `next` being done: the levels a code of the last three
    /// stands for are `next - 2` to `next` (0 and 1 before level 1, which
    /// the first pass writes), and what waits, waits for the level past the
    /// rule.
    fn rebuild_levels(&self, blocks: Range<usize>, next: usize) {
        let top = next.max(1);
        let level_of =
            |rotation: u8| (top.saturating_sub(2)..=top).find(|l| l % 3 == usize::from(rotation));
        blocks.into_par_iter().for_each(|block| {
            let start = block * BLOCK;
            let end = (start + BLOCK).min(self.layout.entries);
            for codes in &self.codes {
                for e in start..end {
                    let level = match codes.get(e) {
                        // A mark of a failed verification only spares
                        // work; the sets of failed blocks are not rebuilt.
                        c if is_open(c) && c != OPEN => {
                            codes.update(e, |x| x == c, OPEN);
                            continue;
                        }
                        WIN_PAST | LOSS_PAST => {
                            self.pending.insert(self.past, block);
                            continue;
                        }
                        c if c >= LOSS_AT => level_of(c - LOSS_AT),
                        c if c >= WIN_AT => level_of(c - WIN_AT),
                        _ => continue,
                    };
                    if let Some(l) = level {
                        self.resolved.insert(l, block);
                    }
                }
            }
        });
    }

    /// The spill too, which a run without a checkpoint may have left.
    fn forget(&self, checkpoint: &Checkpoint, damaged: bool) -> Result<()> {
        if damaged {
            for codes in &self.codes {
                codes.words.par_iter().for_each(|w| w.store(0, Relaxed));
            }
        }
        self.spill
            .reset()
            .map_err(|e| output_error(&checkpoint.spill_path(), e))
    }
}

impl Solver<'_> {
    /// The code of a position won (`won`) or lost at `level` by its zeroing
    /// moves alone: resolved at level 1, pending past the rule.
    fn at(&self, level: usize, won: bool, block: usize) -> Result<u8> {
        match level {
            1 => {
                self.resolved.insert(1, block);
                Ok(if won { win_at(1) } else { loss_at(1) })
            }
            l if l == self.past => {
                self.pending.insert(l, block);
                Ok(if won { WIN_PAST } else { LOSS_PAST })
            }
            l => Err(Error::inconsistent(
                "the solver",
                format!(
                    "a zeroing move at level {l}, where a rule's DTZ has 1 and {}",
                    self.past
                ),
            )),
        }
    }

    /// Resolves the positions of a block that wait for `level`.
    fn resolve_pending(&self, block: usize, level: usize) {
        for codes in &self.codes {
            codes.each_of(
                block,
                self.layout.entries,
                &[WIN_PAST, LOSS_PAST],
                |e, c| {
                    let new = if c == WIN_PAST {
                        win_at(level)
                    } else {
                        loss_at(level)
                    };
                    codes.update(e, |old| old == c, new);
                    self.resolved.insert(level, block);
                },
            );
        }
    }

    /// Turns the codes of the positions of a block resolved at `level`
    /// into "won" or "lost" without a level.
    fn age(&self, block: usize, level: usize) {
        let (w, l) = (win_at(level), loss_at(level));
        for codes in &self.codes {
            codes.each_of(block, self.layout.entries, &[w, l], |e, c| {
                let old = if c == w { WIN_OLD } else { LOSS_OLD };
                codes.update(e, |x| x == c, old);
            });
        }
    }

    /// Walks back from the positions of a block resolved at `level`, and
    /// returns them for the spill ([`Record::pack`]).
    fn retract_block(&self, block: usize, level: usize) -> Vec<u16> {
        let start = block * BLOCK;
        let end = (start + BLOCK).min(self.layout.entries);
        let (w, l) = (win_at(level), loss_at(level));
        let mut sq: Squares = [0; MAX_PIECES];
        let mut records = Vec::new();
        for i in start / 16..end.div_ceil(16) {
            let words = [self.codes[0].word(i), self.codes[1].word(i)];
            if !words.iter().any(|&x| has(x, w) || has(x, l)) {
                continue;
            }
            for e in 16 * i..(16 * i + 16).min(end) {
                for stm in Color::ALL {
                    let c = ((words[side(stm)] >> Nibbles::shift(e)) & 15) as u8;
                    if c != w && c != l {
                        continue;
                    }
                    records.push(
                        Record {
                            entry: e,
                            side: side(stm),
                            lost: c == l,
                        }
                        .pack(),
                    );
                    self.layout.decode(0, e, &mut sq);
                    self.retract(e, &sq, stm, c == l, level);
                }
            }
        }
        records
    }

    /// The predecessors of the position `sq` (entry `e`, `stm` to move),
    /// lost (`lost`) or won at `level`.
    fn retract(&self, e: usize, sq: &Squares, stm: Color, lost: bool, level: usize) {
        let mover = !stm;
        let codes = &self.codes[side(mover)];
        let won = win_at(level + 1);
        each_predecessor(
            self.layout,
            e,
            sq,
            mover,
            1,
            |pe| prefetch(codes.cell(pe)),
            |pe, _| {
                if lost {
                    if codes.update(pe, |c| is_open(c) || matches!(c, SAFE | WIN_PAST), won) {
                        self.resolved.insert(level + 1, pe / BLOCK);
                    }
                } else {
                    let c = codes.get(pe);
                    if is_open(c) && c != failed_at(level) {
                        self.verify_loss(pe, mover, level);
                    }
                }
            },
        );
    }

    /// Whether every quiet move of entry `pe` (`mover` to move) leads to a
    /// position won for the opponent at `level` or before; if so, the
    /// entry is lost at `level + 1`, or at the level past the rule where a
    /// zeroing move loses only then.
    fn verify_loss(&self, pe: usize, mover: Color, level: usize) {
        let mut sq: Squares = [0; MAX_PIECES];
        self.layout.decode(0, pe, &mut sq);
        let theirs = &self.codes[side(!mover)];
        let (newest, older) = (win_at(level), win_at(level + 2));
        // Most checks fail, at the first move found not won: the moves are
        // taken legal or not (an illegal one leads to no position, and is
        // passed over), the king's last, whose entries take the most
        // arithmetic (a king move may change the canonical form).
        let all_won = pseudo_quiet_moves(self.layout, &sq, mover, |slot, to| {
            let mut after = sq;
            after[slot] = to;
            match self.layout.entry_after_move(pe, &sq, &after, slot) {
                None => true,
                Some(s) => {
                    let c = theirs.get(s);
                    c == NONE || c == WIN_OLD || c == newest || c == older
                }
            }
        });
        let ours = &self.codes[side(mover)];
        if !all_won {
            if ours.update(pe, is_open, failed_at(level)) {
                self.failed.insert(level, pe / BLOCK);
            }
            return;
        }
        // Every zeroing move loses too (the first pass left it open), the
        // slowest of them as late as the level past the rule.
        let board = Board::new(self.layout, &sq);
        let depth = (level + 1).max(self.slowest_losing_exit(&board, mover));
        let (new, levels) = if depth == level + 1 {
            (loss_at(depth), &self.resolved)
        } else {
            (LOSS_PAST, &self.pending)
        };
        if ours.update(pe, is_open, new) {
            levels.insert(depth, pe / BLOCK);
        }
    }

    /// Opens again the positions of a block whose verification failed at
    /// `level`, where they still carry its mark.
    fn reopen(&self, block: usize, level: usize) {
        let mark = failed_at(level);
        for codes in &self.codes {
            codes.each_of(block, self.layout.entries, &[mark], |e, _| {
                codes.update(e, |c| c == mark, OPEN);
            });
        }
    }

    /// The depth of the slowest losing zeroing move of `board` with `mover`
    /// to move (every zeroing move of it loses).
    fn slowest_losing_exit(&self, board: &Board<'_>, mover: Color) -> usize {
        let mut slowest = 0;
        board.moves(
            mover,
            |_, _| {},
            |z| {
                if let Outcome::Loss(d) = self.exits.outcome(board, mover, &z) {
                    slowest = slowest.max(usize::from(d));
                }
            },
        );
        slowest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word test finds a code in any of the sixteen places, and only
    /// there: every code in every place, against every other code, in words
    /// whose other nibbles run through every value.
    #[test]
    fn a_word_has_exactly_the_codes_in_it() {
        for place in 0..16 {
            for code in 0..16u8 {
                for fill in 0..16u64 {
                    let mut word = ONES * fill;
                    word &= !(15 << (4 * place));
                    word |= u64::from(code) << (4 * place);
                    for probe in 0..16u8 {
                        let expected = (0..16).any(|p| (word >> (4 * p)) & 15 == u64::from(probe));
                        assert_eq!(has(word, probe), expected, "{word:016x} {probe}");
                    }
                }
            }
        }
    }

    #[test]
    fn nibbles_are_set_and_found_one_by_one() {
        let entries = 2 * BLOCK + 37;
        let n = Nibbles::new(entries);
        let marked = [0, 15, 16, 4095, 4096, 2 * BLOCK + 36];
        for (k, &e) in marked.iter().enumerate() {
            assert!(n.update(e, |c| c == NONE, 1 + (k % 3) as u8));
        }
        assert!(!n.update(0, |c| c == NONE, 9), "entry 0 is set");
        for (k, &e) in marked.iter().enumerate() {
            assert_eq!(n.get(e), 1 + (k % 3) as u8);
        }
        let mut found = Vec::new();
        for block in 0..3 {
            n.each_of(block, entries, &[1, 3], |e, c| found.push((e, c)));
        }
        assert_eq!(found, vec![(0, 1), (16, 3), (4095, 1), (2 * BLOCK + 36, 3)]);
    }
}
