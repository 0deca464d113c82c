//! The walk back that every solver of a slice takes: a position's
//! predecessors by quiet moves, each with its weight, their cells fetched
//! ahead of the updates; and the arrays the solvers keep per side to move.
//!
//! Without pawns a position stands for its whole orbit under the board's
//! symmetries. A position that is its own mirror image (in a long diagonal,
//! like pieces as sets: [`Layout::stabiliser`]) stands for half as many
//! placements, and a solver's counts of quiet moves are weighted so that
//! they still reach zero exactly when every quiet move has been found
//! lost: each move counts 2, and a retraction from a position with
//! stabiliser `Sq` into one with stabiliser `Sp` counts `2 Sp / Sq` (the
//! retractions from a canonical position reach a predecessor `Sq / Sp`
//! times per move).

use shakmaty::Color;

use super::{
    board::Board,
    layout::{Layout, Squares},
};

/// The most quiet moves that can lead to or from a position: a queen's 27
/// and a rook's 14 and the like, over at most five pieces of a side.
pub(crate) const MAX_PREDECESSORS: usize = 128;

/// Asks for the cache line of `cell` ahead of its use.
#[inline]
pub(crate) fn prefetch<T>(cell: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint that reads nothing and cannot fault.
    unsafe {
        std::arch::x86_64::_mm_prefetch(
            (cell as *const T).cast::<i8>(),
            std::arch::x86_64::_MM_HINT_T0,
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = cell;
}

/// Calls `visit(entry, weight)` for each predecessor of the position `sq`
/// (entry `e`) by a quiet move of `mover`, with the weight of the
/// retraction (`weight` a move, scaled by the stabilisers without pawns,
/// see the module docs), once every predecessor's cell is prefetched by
/// `touch(entry)`: each visit is a locked compare-and-swap that waits for
/// its cache line, so the misses are better taken side by side beforehand.
#[inline]
pub(crate) fn each_predecessor(
    layout: &Layout,
    e: usize,
    sq: &Squares,
    mover: Color,
    weight: u16,
    touch: impl Fn(usize),
    mut visit: impl FnMut(usize, u16),
) {
    // The predecessors are found out of line and visited in the caller:
    // with the visits inside the same function, `solve --metric dtr
    // KNNvKP` took 8% more CPU (294 s against 273 s), its compare-and-swap
    // loops no longer inlined into DTR's walk over a block.
    let mut preds = [(0usize, 0u16); MAX_PREDECESSORS];
    let count = predecessors(layout, e, (sq, mover, weight), touch, &mut preds);
    for &(pe, weight) in &preds[..count] {
        visit(pe, weight);
    }
}

/// The predecessors of [`each_predecessor`], written to `preds`; returns
/// how many there are.
fn predecessors(
    layout: &Layout,
    e: usize,
    (sq, mover, weight): (&Squares, Color, u16),
    touch: impl Fn(usize),
    preds: &mut [(usize, u16); MAX_PREDECESSORS],
) -> usize {
    let board = Board::new(layout, sq);
    let pawnless = !layout.has_pawns();
    let stab_q = if pawnless { layout.stabiliser(sq) } else { 1 };
    let mut count = 0;
    board.retractions(mover, |slot, from| {
        let mut p = *sq;
        p[slot] = from;
        let Some(pe) = layout.entry_after_move(e, sq, &p, slot) else {
            return;
        };
        touch(pe);
        preds[count] = (
            pe,
            if pawnless {
                weight * layout.stabiliser(&p) / stab_q
            } else {
                weight
            },
        );
        count += 1;
    });
    count
}

/// The index of the side to move `c` in the arrays kept per side.
#[inline]
pub(crate) fn side(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// Per side to move, `entries` cells made by `new`: the shape of every
/// array the solvers keep per position.
pub(crate) fn per_side<T>(entries: usize, new: impl Fn() -> T) -> [Vec<T>; 2] {
    std::array::from_fn(|_| (0..entries).map(|_| new()).collect())
}
