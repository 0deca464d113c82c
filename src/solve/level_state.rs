//! The packed state of a level-by-level minimax over phases, as depth by
//! the rule (`dtr`) and the depth to mate under a rule (`dtmn`) keep it per
//! position and side: the value, the value one level before, the level of
//! the last change, a weighted count of quiet moves, and flags. Threads
//! change it by compare-and-swap ([`update`]).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// No bound yet.
pub(super) const INF: u16 = u16::MAX;
/// The level of a state that has not changed.
pub(super) const NEVER: u16 = u16::MAX;

/// A position of the side that wins.
pub(super) const WINNER: u64 = 1 << 56;
/// A position of the side that loses.
pub(super) const LOSER: u64 = 2 << 56;
/// A loser's value held by a zeroing move (DTR): no quiet move lowers it.
pub(super) const PINNED: u64 = 4 << 56;
/// The change before the last was at the level before the last one's.
pub(super) const CHANGED_BEFORE: u64 = 8 << 56;

/// Changes the state in `cell` to what `change` makes of it (`None`: leaves
/// it), by compare-and-swap, `change` tried again on the state another
/// thread left; returns the state before and after, if it changed.
#[inline]
pub(super) fn update(
    cell: &AtomicU64,
    mut change: impl FnMut(State) -> Option<State>,
) -> Option<(State, State)> {
    let mut cur = cell.load(Relaxed);
    loop {
        let st = State::unpack(cur);
        let next = change(st)?;
        match cell.compare_exchange_weak(cur, next.pack(), Relaxed, Relaxed) {
            Ok(_) => return Some((st, next)),
            Err(now) => cur = now,
        }
    }
}

/// A position's state, unpacked from its `u64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct State {
    /// The value.
    pub(super) t: u16,
    /// The value before the change at `level`.
    pub(super) prev: u16,
    /// The level of the last change ([`NEVER`] before any).
    pub(super) level: u16,
    /// A loser's weighted count of quiet moves at its maximum.
    pub(super) count: u8,
    /// [`WINNER`], [`LOSER`] and the other flags.
    pub(super) flags: u64,
}

impl State {
    #[inline]
    pub(super) fn unpack(x: u64) -> State {
        State {
            t: x as u16,
            prev: (x >> 16) as u16,
            level: (x >> 32) as u16,
            count: (x >> 48) as u8,
            flags: x & (0xFF << 56),
        }
    }

    #[inline]
    pub(super) fn pack(self) -> u64 {
        u64::from(self.t)
            | u64::from(self.prev) << 16
            | u64::from(self.level) << 32
            | u64::from(self.count) << 48
            | self.flags
    }

    pub(super) fn winner(self) -> bool {
        self.flags & WINNER != 0
    }

    pub(super) fn loser(self) -> bool {
        self.flags & LOSER != 0
    }

    /// The value at `level - 1`, read at `level`.
    #[inline]
    pub(super) fn before(self, level: u16) -> u16 {
        if self.level == level {
            self.prev
        } else {
            self.t
        }
    }

    /// Whether it changed at `level`, read at `level + 1` (when it may have
    /// changed again).
    #[inline]
    pub(super) fn changed_at(self, level: u16) -> bool {
        self.level == level
            || (self.level == level.wrapping_add(1) && self.flags & CHANGED_BEFORE != 0)
    }

    /// The state after a change to `t` at `level`.
    #[inline]
    pub(super) fn change(self, t: u16, level: u16) -> State {
        if self.level == level {
            State { t, ..self }
        } else {
            let before = if self.level.wrapping_add(1) == level {
                CHANGED_BEFORE
            } else {
                0
            };
            State {
                t,
                prev: self.t,
                level,
                flags: (self.flags & !CHANGED_BEFORE) | before,
                ..self
            }
        }
    }
}
