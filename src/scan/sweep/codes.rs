//! The WDL codes of the window's indices, one per index and side to move
//! ([`super::code`]): a byte each, or, where the plan packs them
//! ([`CodeForm::Packed`]), five bits each, twelve to a 64-bit word. A code
//! byte takes only [`STATES`]' 21 values, so five bits hold it; a packed
//! code is written by a compare-and-swap of its word, since other threads
//! write its neighbours.

use std::sync::atomic::{
    AtomicBool, AtomicU64, AtomicU8,
    Ordering::{self, Relaxed},
};

use rayon::prelude::*;

use super::code::{BLESSED, CURSED, DRAW, ILLEGAL, LOSS, MATED, PENDING, PLUS, ROUNDED, WIN, ZB};
use crate::error::{Error, Result};

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

/// How a sweep holds its WDL codes (a choice of the plan).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CodeForm {
    /// A byte each.
    Bytes,
    /// Five bits each, twelve to a word: where nothing else fits.
    Packed,
}

impl CodeForm {
    /// The bytes `len` codes take.
    pub(crate) fn bytes(self, len: u64) -> u64 {
        match self {
            CodeForm::Bytes => len,
            CodeForm::Packed => len.div_ceil(PER_WORD as u64) * 8,
        }
    }

    /// `len` codes, each [`ILLEGAL`], held in this form. Filled by all
    /// threads: the first touch of the pages is a good part of the cost.
    pub(crate) fn hold(self, len: usize) -> Codes {
        match self {
            CodeForm::Bytes => Codes::Bytes(
                (0..len)
                    .into_par_iter()
                    .map(|_| AtomicU8::new(ILLEGAL))
                    .collect(),
            ),
            CodeForm::Packed => Codes::Packed(Packed {
                words: (0..len.div_ceil(PER_WORD))
                    .into_par_iter()
                    .map(|_| AtomicU64::new(0))
                    .collect(),
                unpackable: AtomicBool::new(false),
            }),
        }
    }
}

/// The WDL codes of a window, in the form the plan chose.
pub(crate) enum Codes {
    /// A code per byte.
    Bytes(Vec<AtomicU8>),
    /// Twelve codes per word.
    Packed(Packed),
}

/// Codes packed twelve to a word.
pub(crate) struct Packed {
    words: Vec<AtomicU64>,
    /// Whether a code outside [`STATES`] was to be packed (and was not
    /// written): the sweep then fails ([`Codes::check`]) rather than
    /// miscounts.
    unpackable: AtomicBool,
}

impl Codes {
    /// Code `i`.
    #[inline]
    pub(crate) fn load(&self, i: usize, order: Ordering) -> u8 {
        match self {
            Codes::Bytes(bytes) => bytes[i].load(order),
            Codes::Packed(packed) => packed.load(i, order),
        }
    }

    /// Writes code `i` (pass 1: once, relaxed).
    #[inline]
    pub(crate) fn store(&self, i: usize, code: u8) {
        match self {
            Codes::Bytes(bytes) => bytes[i].store(code, Relaxed),
            Codes::Packed(packed) => packed.update(i, Relaxed, |_| code),
        }
    }

    /// Sets the bits `set` of code `i`, then clears `clear`, in one atomic
    /// update with ordering `order` (so a reader sees both or neither).
    #[inline]
    pub(crate) fn update(&self, i: usize, set: u8, clear: u8, order: Ordering) {
        match self {
            Codes::Bytes(bytes) if clear == 0 => {
                bytes[i].fetch_or(set, order);
            }
            Codes::Bytes(bytes) => {
                let _ = bytes[i].fetch_update(order, Relaxed, |c| Some((c | set) & !clear));
            }
            Codes::Packed(packed) => packed.update(i, order, |c| (c | set) & !clear),
        }
    }

    /// Whether every code written so far was held.
    ///
    /// # Errors
    ///
    /// A code outside the packed states was written (and lost).
    pub(crate) fn check(&self) -> Result<()> {
        match self {
            Codes::Packed(packed) if packed.unpackable.load(Relaxed) => Err(Error::inconsistent(
                "the sweep",
                "a WDL code outside the states the packed codes hold",
            )),
            _ => Ok(()),
        }
    }
}

impl Packed {
    /// Code `i`.
    #[inline]
    fn load(&self, i: usize, order: Ordering) -> u8 {
        let word = self.words[i / PER_WORD].load(order);
        CODE_OF[((word >> (i % PER_WORD * BITS)) & MASK) as usize]
    }

    /// Rewrites code `i` as `f` gives it, by a compare-and-swap of its
    /// word (other threads write the word's other codes).
    fn update(&self, i: usize, order: Ordering, f: impl Fn(u8) -> u8) {
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
        for form in [CodeForm::Bytes, CodeForm::Packed] {
            let n = 3 * PER_WORD + 5;
            let codes = form.hold(n);
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
        let codes = CodeForm::Packed.hold(4);
        codes.store(1, WIN | ZB | ROUNDED | PENDING);
        assert_eq!(codes.load(1, Relaxed), ILLEGAL);
        assert!(codes.check().is_err());
        assert_eq!(CodeForm::Packed.bytes(25), 24);
        assert_eq!(CodeForm::Bytes.bytes(25), 25);
    }
}
