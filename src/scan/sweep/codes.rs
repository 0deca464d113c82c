//! The WDL codes of the window's indices, one per index and side to move:
//! a byte each, or, where the plan packs them (see
//! [`crate::scan::SweepMemoryPlan::packed_codes`]), five bits each, twelve
//! to a 64-bit word. A code byte takes only [`STATES`]' 21 values, so five
//! bits hold it; a packed code is written by a compare-and-swap of its
//! word, since other threads write its neighbours.

use std::sync::atomic::{
    AtomicBool, AtomicU64, AtomicU8,
    Ordering::{self, Relaxed},
};

use rayon::prelude::*;

use super::{ILLEGAL, MATED, PENDING, PLUS, ROUNDED, ZB};
use crate::{
    error::{Error, Result},
    scan::sweep::closure::{BLESSED, CURSED, DRAW, LOSS, WIN},
};

/// Codes per packed word.
const PER_WORD: usize = 12;
/// Bits per packed code.
const BITS: usize = 5;
/// The bits of one packed code.
const MASK: u64 = (1 << BITS) - 1;

/// Every code byte the passes write, by its packed state: [`ILLEGAL`]
/// first, so that a zeroed word is twelve illegal codes. Pass 1 gives a
/// class, [`ZB`] with a winning class (a capture is best), or a checkmate;
/// passes 2 and 3 mark a decisive class without `ZB` rounded and pending
/// (a zeroing best move's DTZ is exact), and pass 4 settles it, up a ply
/// or not.
const STATES: [u8; 21] = {
    const R: u8 = ROUNDED;
    [
        ILLEGAL,
        LOSS,
        BLESSED,
        DRAW,
        CURSED,
        WIN,
        CURSED | ZB,
        WIN | ZB,
        LOSS | MATED,
        LOSS | R | PENDING,
        BLESSED | R | PENDING,
        CURSED | R | PENDING,
        WIN | R | PENDING,
        LOSS | R,
        BLESSED | R,
        CURSED | R,
        WIN | R,
        LOSS | R | PLUS,
        BLESSED | R | PLUS,
        CURSED | R | PLUS,
        WIN | R | PLUS,
    ]
};

/// A code byte outside [`STATES`] in [`STATE_OF`].
const NO_STATE: u8 = 0xff;

/// The packed state of each code byte ([`NO_STATE`] for none).
const STATE_OF: [u8; 256] = {
    let mut table = [NO_STATE; 256];
    let mut s = 0;
    while s < STATES.len() {
        table[STATES[s] as usize] = s as u8;
        s += 1;
    }
    table
};

/// The packed state of each code byte, read back ([`ILLEGAL`] past
/// [`STATES`], which no word holds).
const CODE_OF: [u8; 32] = {
    let mut table = [ILLEGAL; 32];
    let mut s = 0;
    while s < STATES.len() {
        table[s] = STATES[s];
        s += 1;
    }
    table
};

/// The bytes `len` codes take, packed or not (for the plan).
pub(crate) fn code_bytes(len: u64, packed: bool) -> u64 {
    if packed {
        len.div_ceil(PER_WORD as u64) * 8
    } else {
        len
    }
}

/// The WDL codes of a window: bytes, or packed words (the other empty).
pub(crate) struct Codes {
    /// A code per byte, or empty where packed.
    bytes: Vec<AtomicU8>,
    /// Twelve codes per word, or empty where held as bytes.
    words: Vec<AtomicU64>,
    /// Whether a code outside [`STATES`] was to be packed (and was not
    /// written): the sweep then fails ([`Codes::check`]) rather than
    /// miscounts.
    unpackable: AtomicBool,
}

impl Codes {
    /// `len` codes, each [`ILLEGAL`], packed or a byte each. Filled by all
    /// threads: the first touch of the pages is a good part of the cost.
    pub(crate) fn new(len: usize, packed: bool) -> Codes {
        let (bytes, words) = if packed {
            let words = (0..len.div_ceil(PER_WORD))
                .into_par_iter()
                .map(|_| AtomicU64::new(0))
                .collect();
            (Vec::new(), words)
        } else {
            let bytes = (0..len)
                .into_par_iter()
                .map(|_| AtomicU8::new(ILLEGAL))
                .collect();
            (bytes, Vec::new())
        };
        Codes {
            bytes,
            words,
            unpackable: AtomicBool::new(false),
        }
    }

    /// No code (between windows).
    pub(crate) fn empty() -> Codes {
        Codes::new(0, false)
    }

    /// Code `i`.
    #[inline]
    pub(crate) fn load(&self, i: usize, order: Ordering) -> u8 {
        // Held bytes are read most; an empty vector is a packed one, so
        // the bound test the bytes pay anyway also tells the two apart.
        match self.bytes.get(i) {
            Some(byte) => byte.load(order),
            None => self.load_packed(i, order),
        }
    }

    /// Code `i` of packed words.
    #[inline]
    fn load_packed(&self, i: usize, order: Ordering) -> u8 {
        let word = self.words[i / PER_WORD].load(order);
        CODE_OF[((word >> (i % PER_WORD * BITS)) & MASK) as usize]
    }

    /// Writes code `i` (pass 1: once, relaxed).
    #[inline]
    pub(crate) fn store(&self, i: usize, code: u8) {
        match self.bytes.get(i) {
            Some(byte) => byte.store(code, Relaxed),
            None => self.update_packed(i, Relaxed, |_| code),
        }
    }

    /// Sets the bits `set` of code `i`, then clears `clear`, in one atomic
    /// update with ordering `order` (so a reader sees both or neither).
    #[inline]
    pub(crate) fn update(&self, i: usize, set: u8, clear: u8, order: Ordering) {
        match self.bytes.get(i) {
            Some(byte) if clear == 0 => {
                byte.fetch_or(set, order);
            }
            Some(byte) => {
                let _ = byte.fetch_update(order, Relaxed, |c| Some((c | set) & !clear));
            }
            None => self.update_packed(i, order, |c| (c | set) & !clear),
        }
    }

    /// Rewrites packed code `i` as `f` gives it, by a compare-and-swap of
    /// its word (other threads write the word's other codes).
    fn update_packed(&self, i: usize, order: Ordering, f: impl Fn(u8) -> u8) {
        let shift = i % PER_WORD * BITS;
        let _ = self.words[i / PER_WORD].fetch_update(order, Relaxed, |word| {
            let code = CODE_OF[((word >> shift) & MASK) as usize];
            let state = STATE_OF[usize::from(f(code))];
            if state == NO_STATE {
                self.unpackable.store(true, Relaxed);
                return None;
            }
            Some(word & !(MASK << shift) | u64::from(state) << shift)
        });
    }

    /// Whether every code written so far was held.
    ///
    /// # Errors
    ///
    /// A code outside the packed states was written (and lost).
    pub(crate) fn check(&self) -> Result<()> {
        if self.unpackable.load(Relaxed) {
            return Err(Error::inconsistent(
                "the sweep",
                "a WDL code outside the states the packed codes hold",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every state reads back as the byte written, beside neighbours
    /// written in any order, and the updates the passes make stay within
    /// the states: each state is a distinct byte.
    #[test]
    fn packed_codes_read_back_as_written() {
        let mut seen = std::collections::HashSet::new();
        assert!(STATES.iter().all(|s| seen.insert(*s)));
        assert!(STATES.len() <= 1 << BITS);
        for packed in [false, true] {
            let n = 3 * PER_WORD + 5;
            let codes = Codes::new(n, packed);
            assert!((0..n).all(|i| codes.load(i, Relaxed) == ILLEGAL));
            // Written backwards, each index's state by its number.
            for i in (0..n).rev() {
                codes.store(i, STATES[i % STATES.len()]);
            }
            for i in 0..n {
                assert_eq!(codes.load(i, Relaxed), STATES[i % STATES.len()], "{i}");
            }
            // Pass 2 marks a rounded value, pass 4 settles it up.
            codes.store(7, WIN);
            codes.update(7, ROUNDED | PENDING, 0, Relaxed);
            assert_eq!(codes.load(7, Relaxed), WIN | ROUNDED | PENDING);
            codes.update(7, PLUS, PENDING, Relaxed);
            assert_eq!(codes.load(7, Relaxed), WIN | ROUNDED | PLUS);
            assert_eq!(codes.load(6, Relaxed), STATES[6]);
            assert_eq!(codes.load(8, Relaxed), STATES[8]);
            assert!(codes.check().is_ok());
        }
        // A byte outside the states is refused, loudly, when packed.
        let codes = Codes::new(4, true);
        codes.store(1, WIN | ZB | ROUNDED | PENDING);
        assert_eq!(codes.load(1, Relaxed), ILLEGAL);
        assert!(codes.check().is_err());
        assert_eq!(code_bytes(25, true), 24);
        assert_eq!(code_bytes(25, false), 25);
    }
}
