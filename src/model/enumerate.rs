//! Every position of a material under the counting convention of
//! docs/design.md section 2, cut into work items that rayon and `--shard` split.
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

/// One unit of work: the squares of the first two pieces are fixed, and
/// from six pieces on the third piece's square too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkItem {
    /// Square of the first piece (White's king).
    pub first: Square,
    /// Square of the second piece.
    pub second: Square,
    /// Square of the third piece, for materials of six pieces or more.
    pub third: Option<Square>,
}

impl WorkItem {
    /// The squares the item fixes, in piece order.
    pub fn squares(&self) -> Vec<Square> {
        let mut squares = vec![self.first, self.second];
        squares.extend(self.third);
        squares
    }
}

/// From this many pieces on, a work item fixes three squares: with two, a
/// 6-piece item holds millions of positions, too many to shard finely
/// (KNN v KNN has under a thousand such items).
const THREE_FIXED_FROM: usize = 6;

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

    /// How many leading pieces a work item fixes: 2, or 3 from six pieces
    /// on.
    pub fn fixed_pieces(&self) -> usize {
        if self.pieces.len() >= THREE_FIXED_FROM {
            3
        } else {
            2
        }
    }

    /// A dense key of the squares a work item fixes (the first
    /// [`Self::fixed_pieces`] of `squares`, as square numbers), below
    /// `64^fixed_pieces`: the work item of a placement, looked up in a table.
    pub fn item_key(&self, squares: &[u8]) -> usize {
        squares[..self.fixed_pieces()]
            .iter()
            .fold(0, |key, &sq| key * 64 + usize::from(sq))
    }

    /// The number of each work item (its place in [`Self::work_items`]) by
    /// [`Self::item_key`] of its squares, `u32::MAX` where no item starts:
    /// how the sweep and the solver put a placement in its `--shard`.
    pub fn item_numbers(&self) -> Vec<u32> {
        let mut numbers = vec![u32::MAX; 64usize.pow(self.fixed_pieces() as u32)];
        for (i, w) in self.work_items().iter().enumerate() {
            let squares: Vec<u8> = w.squares().iter().map(|&sq| u8::from(sq)).collect();
            numbers[self.item_key(&squares)] = i as u32;
        }
        numbers
    }

    /// The work items, in a fixed order. Every canonical placement belongs to
    /// exactly one item.
    pub fn work_items(&self) -> Vec<WorkItem> {
        let three = self.fixed_pieces() == 3;
        let mut items = Vec::new();
        for first in Square::ALL {
            // The orbit's smallest member has its first piece on a square
            // that is smallest in its own orbit.
            if self.symmetries.iter().any(|g| g.apply(first) < first) {
                continue;
            }
            for second in Square::ALL {
                if second == first || !self.allowed(self.pieces[1], second) {
                    continue;
                }
                if !three {
                    items.push(WorkItem {
                        first,
                        second,
                        third: None,
                    });
                    continue;
                }
                for third in Square::ALL {
                    if third != first && third != second && self.allowed(self.pieces[2], third) {
                        items.push(WorkItem {
                            first,
                            second,
                            third: Some(third),
                        });
                    }
                }
            }
        }
        items
    }

    /// Calls `visit` for every canonical placement of one work item.
    pub fn for_each_in(&self, item: WorkItem, mut visit: impl FnMut(&Placement)) {
        let squares = item.squares();
        let used = squares
            .iter()
            .fold(Bitboard::EMPTY, |b, &sq| b | Bitboard::from(sq));
        let mut placement = Placement {
            squares,
            orbit_size: 0,
        };
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

    #[test]
    fn six_piece_items_fix_three_squares_and_keys_are_unique() {
        let m: Material = "KNNvKNN".parse().unwrap();
        let e = Enumerator::new(&m);
        assert_eq!(e.fixed_pieces(), 3);
        assert_eq!(
            Enumerator::new(&"KRBvKR".parse().unwrap()).fixed_pieces(),
            2
        );
        let items = e.work_items();
        // Pawnless: the white king on one of the 10 squares of the a1-d1-d4
        // triangle, the black king and the first knight anywhere else.
        assert_eq!(items.len(), 10 * 63 * 62);
        let mut seen = std::collections::HashSet::new();
        for w in &items {
            let squares: Vec<u8> = w.squares().iter().map(|&sq| u8::from(sq)).collect();
            assert!(seen.insert(e.item_key(&squares)), "{w:?}");
        }
        // A placement belongs to the item whose squares it starts with.
        for w in [items[0], items[items.len() / 2]] {
            let mut visited = 0;
            e.for_each_in(w, |p| {
                visited += 1;
                assert_eq!(p.squares[..3], w.squares()[..]);
            });
            assert!(visited > 0);
        }
    }
}
