//! Sets of blocks by level: which blocks of a slice hold positions resolved
//! at a level (the frontier that retrograde analysis walks next) and which
//! hold positions waiting to resolve at a level.
//!
//! A level pass then reads only the blocks that have work, instead of the
//! whole slice; at the deep levels, where few positions resolve, that is
//! most of the saving.

use std::sync::{
    atomic::{AtomicU64, Ordering},
    Mutex, OnceLock,
};

/// Entries per block.
pub(crate) const BLOCK: usize = 4096;

/// `n` zero words that many threads may set bits of at once.
pub(crate) fn zero_words(n: usize) -> Vec<AtomicU64> {
    (0..n).map(|_| AtomicU64::new(0)).collect()
}

/// A set of blocks, set from many threads at once.
pub(crate) struct BlockSet {
    words: Vec<AtomicU64>,
}

impl BlockSet {
    fn new(blocks: usize) -> BlockSet {
        BlockSet {
            words: zero_words(blocks.div_ceil(64)),
        }
    }

    /// Adds a block.
    #[inline]
    pub(crate) fn insert(&self, block: usize) {
        let (w, b) = (block / 64, block % 64);
        // A load first: most inserts find the bit set already, and a plain
        // load does not take the cache line away from other threads.
        if self.words[w].load(Ordering::Relaxed) & (1 << b) == 0 {
            self.words[w].fetch_or(1 << b, Ordering::Relaxed);
        }
    }

    /// The blocks in the set, ascending.
    pub(crate) fn blocks(&self) -> Vec<usize> {
        let mut out = Vec::new();
        for (w, word) in self.words.iter().enumerate() {
            let mut bits = word.load(Ordering::Relaxed);
            while bits != 0 {
                out.push(w * 64 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
        out
    }
}

/// Levels per lazily made chunk of [`Levels`].
const CHUNK: usize = 64;

/// Block sets by level, made on first use: a slice may reach a few hundred
/// levels, and a material with pawns has thousands of small slices, so
/// neither the sets nor the table of them are made up front.
pub(crate) struct Levels {
    blocks: usize,
    chunks: Vec<OnceLock<Box<[OnceLock<BlockSet>]>>>,
    /// The highest level with a set, for the end of the level loop.
    highest: Mutex<Option<usize>>,
}

impl Levels {
    /// Sets for up to `levels` levels over `blocks` blocks.
    pub(crate) fn new(blocks: usize, levels: usize) -> Levels {
        Levels {
            blocks,
            chunks: (0..levels.div_ceil(CHUNK))
                .map(|_| OnceLock::new())
                .collect(),
            highest: Mutex::new(None),
        }
    }

    fn set(&self, level: usize) -> Option<&BlockSet> {
        self.chunks.get(level / CHUNK)?.get()?[level % CHUNK].get()
    }

    /// Marks `block` at `level`.
    #[inline]
    pub(crate) fn insert(&self, level: usize, block: usize) {
        let chunk = self.chunks[level / CHUNK]
            .get_or_init(|| (0..CHUNK).map(|_| OnceLock::new()).collect());
        let set = chunk[level % CHUNK].get_or_init(|| {
            let mut h = self.highest.lock().expect("no panics while holding it");
            *h = Some(h.map_or(level, |x| x.max(level)));
            BlockSet::new(self.blocks)
        });
        set.insert(block);
    }

    /// The blocks marked at `level`, ascending (none if it has no set).
    pub(crate) fn blocks(&self, level: usize) -> Vec<usize> {
        self.set(level).map(BlockSet::blocks).unwrap_or_default()
    }

    /// The highest level marked so far.
    pub(crate) fn highest(&self) -> Option<usize> {
        *self.highest.lock().expect("no panics while holding it")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_come_back_sorted_once() {
        let l = Levels::new(1000, 10);
        for b in [999, 3, 64, 3, 0, 65] {
            l.insert(7, b);
        }
        assert_eq!(l.blocks(7), vec![0, 3, 64, 65, 999]);
        assert!(l.blocks(2).is_empty());
        assert_eq!(l.highest(), Some(7));
    }
}
