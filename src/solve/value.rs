//! The two bytes the solver keeps per position and side to move, while it
//! solves and once it is done.
//!
//! ```text
//! 0000 0000 0000 0000   not a position (pieces overlap, kings touch, the
//!                       side not to move is in check, or not canonical)
//! 10dd dddd dddd dddd   won in d plies
//! 11dd dddd dddd dddd   lost in d plies (d = 0: checkmated)
//! 0110 0000 0000 0000   drawn (once solved)
//! ```
//!
//! While solving, an unresolved position holds what it still waits for:
//!
//! ```text
//! 0100 000f cccc cccc   c more quiet moves (weighted) must turn out lost
//!                       for the mover before it is lost; f: some zeroing
//!                       move loses too (its depth is worked out again then)
//! 0101 llll llll llll   a zeroing move wins at level l: won in l plies at
//!                       the latest, never lost
//! 0110 0000 0000 0000   cannot be lost (a zeroing move draws, or no move at
//!                       all without check): drawn unless a quiet move wins
//! 0111 llll llll llll   lost, at level l: every move loses, the last quiet
//!                       one earlier, a zeroing one as late as l
//! ```

/// The two sides' values of a solved slice (white to move, black to move).
pub(crate) type SliceValues = [Vec<u16>; 2];

/// Not a position.
pub(crate) const NONE: u16 = 0;
/// Drawn, once solved: the "cannot be lost" state that nothing resolved.
pub(crate) const DRAW: u16 = 0x6000;
/// "Cannot be lost" while solving.
pub(crate) const SAFE: u16 = DRAW;

const WIN: u16 = 0x8000;
const LOSS: u16 = 0xC000;
const DEPTH: u16 = 0x3FFF;
const COUNTER: u16 = 0x4000;
const COUNTER_MASK: u16 = 0x00FF;
const HAS_LOSING_EXIT: u16 = 0x0100;
const WIN_AT: u16 = 0x5000;
const LOSS_AT: u16 = 0x7000;
const LEVEL: u16 = 0x0FFF;

/// The deepest level a pending value can wait for.
pub(crate) const MAX_LEVEL: u16 = LEVEL;
/// The deepest depth a solved value can hold.
pub(crate) const MAX_DEPTH: u16 = DEPTH;

/// What a move, or a position, is worth to the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Outcome {
    /// Won in this many plies.
    Win(u16),
    /// Drawn.
    Draw,
    /// Lost in this many plies.
    Loss(u16),
}

impl Outcome {
    /// A rank in which larger is better for the side to move: a quicker win
    /// beats a slower one, any win beats a draw, a draw beats any loss, and
    /// a slower loss beats a quicker one.
    #[inline]
    pub(crate) fn rank(self) -> i32 {
        match self {
            Outcome::Win(d) => 0x10000 - i32::from(d),
            Outcome::Draw => 0,
            Outcome::Loss(d) => -0x10000 + i32::from(d),
        }
    }

    /// The better of two outcomes for the side to move.
    #[inline]
    pub(crate) fn best(self, other: Outcome) -> Outcome {
        if other.rank() > self.rank() {
            other
        } else {
            self
        }
    }
}

/// A solved value.
#[inline]
pub(crate) fn solved(o: Outcome) -> u16 {
    match o {
        Outcome::Win(d) => WIN | d,
        Outcome::Loss(d) => LOSS | d,
        Outcome::Draw => DRAW,
    }
}

/// The outcome of a solved value (`None` for "not a position").
#[inline]
pub(crate) fn outcome(v: u16) -> Option<Outcome> {
    match v & 0xC000 {
        WIN => Some(Outcome::Win(v & DEPTH)),
        LOSS => Some(Outcome::Loss(v & DEPTH)),
        _ if v == NONE => None,
        _ => Some(Outcome::Draw),
    }
}

/// Whether a value is resolved (won or lost).
#[inline]
pub(crate) fn is_resolved(v: u16) -> bool {
    v & 0x8000 != 0
}

/// The state "waiting for `counter` quiet moves".
#[inline]
pub(crate) fn waiting(counter: u16, has_losing_exit: bool) -> u16 {
    debug_assert!(counter <= COUNTER_MASK);
    COUNTER | counter | if has_losing_exit { HAS_LOSING_EXIT } else { 0 }
}

/// The state "won by a zeroing move at `level`".
#[inline]
pub(crate) fn win_at(level: u16) -> u16 {
    debug_assert!(level <= LEVEL);
    WIN_AT | level
}

/// The state "lost, at `level`".
#[inline]
pub(crate) fn loss_at(level: u16) -> u16 {
    debug_assert!(level <= LEVEL);
    LOSS_AT | level
}

/// What an unresolved state waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Waiting {
    /// Quiet moves still to lose, and whether a zeroing move loses.
    Counter(u16, bool),
    /// Won at this level unless sooner.
    WinAt(u16),
    /// Cannot be lost.
    Safe,
    /// Lost at this level.
    LossAt(u16),
}

/// The unresolved state of a value that is a position and not resolved.
#[inline]
pub(crate) fn waiting_state(v: u16) -> Waiting {
    match v & 0xF000 {
        COUNTER => Waiting::Counter(v & COUNTER_MASK, v & HAS_LOSING_EXIT != 0),
        WIN_AT => Waiting::WinAt(v & LEVEL),
        LOSS_AT => Waiting::LossAt(v & LEVEL),
        _ => Waiting::Safe,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_round_trip_and_do_not_collide() {
        assert_eq!(outcome(solved(Outcome::Win(117))), Some(Outcome::Win(117)));
        assert_eq!(outcome(solved(Outcome::Loss(0))), Some(Outcome::Loss(0)));
        assert_eq!(outcome(solved(Outcome::Draw)), Some(Outcome::Draw));
        assert_eq!(outcome(NONE), None);
        assert_eq!(
            waiting_state(waiting(124, true)),
            Waiting::Counter(124, true)
        );
        assert_eq!(waiting_state(waiting(0, false)), Waiting::Counter(0, false));
        assert_eq!(waiting_state(win_at(201)), Waiting::WinAt(201));
        assert_eq!(
            waiting_state(loss_at(MAX_LEVEL)),
            Waiting::LossAt(MAX_LEVEL)
        );
        assert_eq!(waiting_state(SAFE), Waiting::Safe);
        for v in [
            waiting(0, false),
            waiting(200, true),
            win_at(1),
            SAFE,
            loss_at(1),
        ] {
            assert!(!is_resolved(v) && v != NONE);
        }
    }

    #[test]
    fn outcomes_order_as_the_mover_prefers() {
        let order = [
            Outcome::Loss(1),
            Outcome::Loss(7),
            Outcome::Loss(101),
            Outcome::Draw,
            Outcome::Win(101),
            Outcome::Win(7),
            Outcome::Win(1),
        ];
        for w in order.windows(2) {
            assert!(w[0].rank() < w[1].rank(), "{w:?}");
            assert_eq!(w[0].best(w[1]), w[1]);
        }
    }
}
