//! Every position of a material under the counting convention of design.md
//! section 2, cut into work items that rayon and `--shard` split.
//!
//! A placement puts each piece of [`Material::pieces`] on its own square
//! (like pieces distinguished, no pawn on rank 1 or 8). Placements that are
//! images of each other under the material's symmetries form an orbit, and
//! an orbit counts once: we visit exactly the placement that is
//! lexicographically smallest in its orbit (squares compared in piece order).

use shakmaty::{
    Bitboard, Board, Chess, Color, FromSetup, Piece, Position, Rank, Role, Setup, Square,
};

use crate::chess::material::{Material, Symmetry};

/// One unit of work: the squares of the first two pieces are fixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkItem {
    /// Square of the first piece (White's king).
    pub first: Square,
    /// Square of the second piece.
    pub second: Square,
}

/// A canonical placement and what it stands for.
#[derive(Clone, Debug)]
pub struct Placement {
    /// Square of each piece, in [`Material::pieces`] order.
    pub squares: Vec<Square>,
    /// How many placements its orbit has (for `--raw` counts).
    pub orbit_size: u32,
}

/// Enumerates canonical placements of one material.
#[derive(Clone, Debug)]
pub struct Enumerator {
    pieces: Vec<Piece>,
    symmetries: &'static [Symmetry],
}

impl Enumerator {
    /// An enumerator for `material`.
    pub fn new(material: &Material) -> Enumerator {
        Enumerator {
            pieces: material.pieces(),
            symmetries: material.symmetries(),
        }
    }

    /// The pieces, in the order placements list their squares.
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    fn allowed(&self, piece: Piece, sq: Square) -> bool {
        piece.role != Role::Pawn || !matches!(sq.rank(), Rank::First | Rank::Eighth)
    }

    /// The work items, in a fixed order. Every canonical placement belongs to
    /// exactly one item.
    pub fn work_items(&self) -> Vec<WorkItem> {
        let mut items = Vec::new();
        for first in Square::ALL {
            // The orbit's smallest member has its first piece on a square
            // that is smallest in its own orbit.
            if self.symmetries.iter().any(|g| g.apply(first) < first) {
                continue;
            }
            for second in Square::ALL {
                if second != first && self.allowed(self.pieces[1], second) {
                    items.push(WorkItem { first, second });
                }
            }
        }
        items
    }

    /// Calls `visit` for every canonical placement of one work item.
    pub fn for_each_in(&self, item: WorkItem, mut visit: impl FnMut(&Placement)) {
        let mut placement = Placement {
            squares: vec![item.first, item.second],
            orbit_size: 0,
        };
        let used = Bitboard::from(item.first) | Bitboard::from(item.second);
        self.place(&mut placement, used, &mut visit);
    }

    fn place(&self, p: &mut Placement, used: Bitboard, visit: &mut impl FnMut(&Placement)) {
        let k = p.squares.len();
        if k == self.pieces.len() {
            if let Some(orbit) = self.canonical_orbit(&p.squares) {
                p.orbit_size = orbit;
                visit(p);
            }
            return;
        }
        for sq in Square::ALL {
            if used.contains(sq) || !self.allowed(self.pieces[k], sq) {
                continue;
            }
            p.squares.push(sq);
            self.place(p, used | Bitboard::from(sq), visit);
            p.squares.pop();
        }
    }

    /// `Some(orbit size)` if `squares` is the smallest member of its orbit.
    fn canonical_orbit(&self, squares: &[Square]) -> Option<u32> {
        let mut stabilizer = 0u32;
        for g in self.symmetries {
            let mut ordering = std::cmp::Ordering::Equal;
            for sq in squares {
                ordering = g.apply(*sq).cmp(sq);
                if ordering != std::cmp::Ordering::Equal {
                    break;
                }
            }
            match ordering {
                std::cmp::Ordering::Less => return None,
                std::cmp::Ordering::Equal => stabilizer += 1,
                std::cmp::Ordering::Greater => {}
            }
        }
        Some(self.symmetries.len() as u32 / stabilizer)
    }

    /// The board of a placement.
    pub fn board(&self, squares: &[Square]) -> Board {
        let mut board = Board::empty();
        for (piece, sq) in self.pieces.iter().zip(squares) {
            board.set_piece_at(*sq, *piece);
        }
        board
    }

    /// The position of a placement with `turn` to move, if it counts: the
    /// side not to move must not be in check. Impossible checks count.
    pub fn position(&self, board: &Board, turn: Color) -> Option<Chess> {
        let setup = Setup {
            board: board.clone(),
            turn,
            ..Setup::empty()
        };
        match Chess::from_setup(setup, shakmaty::CastlingMode::Standard) {
            Ok(pos) => Some(pos),
            Err(e) => e.ignore_impossible_check().ok(),
        }
        .filter(|pos: &Chess| pos.board().occupied().count() == self.pieces.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(material: &str) -> (u64, u64) {
        let m: Material = material.parse().unwrap();
        let e = Enumerator::new(&m);
        let (mut canonical, mut raw) = (0, 0);
        for item in e.work_items() {
            e.for_each_in(item, |p| {
                canonical += 1;
                raw += u64::from(p.orbit_size);
            });
        }
        (canonical, raw)
    }

    #[test]
    fn orbits_cover_every_placement_once() {
        // Raw placements, counted by hand: 64*63 for two kings, times 62 for
        // a third piece; pawns only on 48 squares.
        assert_eq!(count("KQvK").1, 64 * 63 * 62);
        assert_eq!(count("KPvK").1, (48 * 47 + 16 * 48) * 62);
        // Burnside's lemma, by hand for KNvK: the identity fixes all
        // 64*63*62 placements; each diagonal reflection fixes those with all
        // three pieces on its 8 squares (8*7*6); the rest fix none.
        let (c, _) = count("KNvK");
        assert_eq!(c, (64 * 63 * 62 + 2 * 8 * 7 * 6) / 8);
    }
}
