//! Where a position is in a table file: the sub-tables (per stored side
//! to move and, with pawns, per file of the leading pawn), each with its
//! [`Encoding`] and its place in the side's index space, and
//! [`TableLayout::locate`], the crate's one function that finds a
//! position's sub-table, colour flip and index. [`super::SweepTable`]
//! builds the layout from the file's headers and answers `index_of` with
//! it; the sweep takes it from there for its own look-ups.
//!
//! Colours are in the file's frame (see [`super`]): a position with the
//! material the other way round, or of symmetric material with Black to
//! move, is colour-flipped and mirrored vertically, as shakmaty-syzygy
//! does.

use shakmaty::{Color, Piece, Role};

use super::index::{file_of, map_pawn, Encoding, MAX_PIECES as MAX};

/// How a position lies in a table (see [`TableLayout::frame`]): as it is,
/// or colour-flipped and mirrored vertically, as shakmaty-syzygy does; and
/// the side to move the file then has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Frame {
    /// Colour-flipped (each piece's colour swapped) and mirrored
    /// vertically (each square's rank).
    pub(crate) flipped: bool,
    /// Side to move in the file's frame.
    pub(crate) side: Color,
}

impl Frame {
    /// What a square is XORed with to take it into the file's frame: 56
    /// (the vertical mirror) where flipped, else 0.
    #[inline]
    pub(crate) fn mirror(self) -> u8 {
        if self.flipped {
            56
        } else {
            0
        }
    }

    /// A piece in the file's frame.
    #[inline]
    pub(crate) fn piece(self, p: Piece) -> Piece {
        if self.flipped {
            Piece {
                color: !p.color,
                role: p.role,
            }
        } else {
            p
        }
    }
}

/// The file a leading pawn on `sq` keys its sub-table by: a to d, the e to
/// h files mirrored onto them (the tables store one half of the board).
#[inline]
pub(crate) fn lead_file(sq: u8) -> u8 {
    let f = file_of(sq);
    if f >= 4 {
        7 - f
    } else {
        f
    }
}

/// For each slot of `to`, a distinct slot of `from` holding the same piece:
/// the map from one piece order to another. `lead`, if given, is the slot
/// of `from` holding the leading pawn, which goes to slot 0 of `to` and
/// nowhere else. `None` if the pieces differ.
pub(crate) fn slot_map(to: &[Piece], from: &[Piece], lead: Option<usize>) -> Option<[u8; MAX]> {
    let mut map = [0u8; MAX];
    let mut used = [false; MAX];
    for (t, piece) in to.iter().enumerate() {
        let q = match lead {
            Some(l) if t == 0 => l,
            _ => (0..from.len()).find(|&q| !used[q] && from[q] == *piece && Some(q) != lead)?,
        };
        used[q] = true;
        map[t] = q as u8;
    }
    Some(map)
}

/// Piece counts by colour and role (`role as usize - 1`).
pub(crate) type Counts = [[u8; 6]; 2];

/// A colour as an index into per-colour arrays: White 0, Black 1.
#[inline]
pub(crate) fn cidx(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// Counts of a list of pieces (of a material's:
/// `counts_of(material.pieces())`).
pub(crate) fn counts_of(pieces: impl IntoIterator<Item = Piece>) -> Counts {
    let mut counts = [[0u8; 6]; 2];
    for p in pieces {
        counts[cidx(p.color)][p.role as usize - 1] += 1;
    }
    counts
}

/// One sub-table of a file: its encoding and place in the side's index
/// space.
#[derive(Debug, Clone)]
pub(crate) struct SubInfo {
    /// The encoding.
    pub(crate) encoding: Encoding,
    /// Side to move stored.
    pub(crate) side: Color,
    /// Leading pawn file (0 for pawnless tables).
    pub(crate) file: u8,
    /// First index in the side's index space.
    pub(crate) start: u64,
}

/// All sub-table encodings of one file, and the lookup of positions.
#[derive(Debug, Clone)]
pub(crate) struct TableLayout {
    counts: Counts,
    /// Symmetric material (Black to move is folded into White).
    pub(crate) symmetric: bool,
    /// The material has pawns.
    pub(crate) has_pawns: bool,
    lead_color: Color,
    /// Sub-tables, in the headers' order.
    pub(crate) subs: Vec<SubInfo>,
    /// Sub-tables by side, in file order.
    by_side: [Vec<usize>; 2],
    /// Sub-table by (file, side).
    by_file: [[Option<usize>; 2]; 4],
}

/// A position located in a table: the side to move in the file's frame,
/// the sub-table and the index within the side's index space.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Located {
    /// Side to move in the file's frame.
    pub(crate) side: Color,
    /// Sub-table number.
    pub(crate) sub: usize,
    /// Index in the side's index space.
    pub(crate) idx: u64,
}

impl TableLayout {
    /// The layout of a file whose headers give these sub-tables, in the
    /// headers' order: per sub-table the leading pawn's file (0 without
    /// pawns), the side to move it stores and its encoding. The caller has
    /// checked them against the material `counts` (each (file, side) once,
    /// one leading colour).
    pub(super) fn new(counts: Counts, subs: Vec<(u8, Color, Encoding)>) -> TableLayout {
        let pawn = Role::Pawn as usize - 1;
        let has_pawns = counts[0][pawn] + counts[1][pawn] > 0;
        let symmetric = counts[0] == counts[1];
        let lead_color = match subs.first() {
            Some((_, _, e)) if has_pawns => e.pieces[0].color,
            _ => Color::White,
        };
        let mut by_file = [[None; 2]; 4];
        let mut subs: Vec<SubInfo> = subs
            .into_iter()
            .enumerate()
            .map(|(k, (file, side, encoding))| {
                by_file[usize::from(file)][cidx(side)] = Some(k);
                SubInfo {
                    encoding,
                    side,
                    file,
                    start: 0,
                }
            })
            .collect();
        let mut by_side: [Vec<usize>; 2] = [Vec::new(), Vec::new()];
        for (c, list) in by_side.iter_mut().enumerate() {
            let mut start = 0u64;
            for slots in &by_file {
                if let Some(k) = slots[c] {
                    subs[k].start = start;
                    start += subs[k].encoding.size;
                    list.push(k);
                }
            }
        }
        TableLayout {
            counts,
            symmetric,
            has_pawns,
            lead_color,
            subs,
            by_side,
            by_file,
        }
    }

    /// The sub-tables of a side, in index order (file order).
    pub(crate) fn of_side(&self, side: Color) -> &[usize] {
        &self.by_side[cidx(side)]
    }

    /// The colour whose pawns lead (pawn tables).
    pub(crate) fn lead_color(&self) -> Color {
        self.lead_color
    }

    /// Piece counts of the table, in the file's frame.
    pub(crate) fn counts(&self) -> Counts {
        self.counts
    }

    /// The sub-table storing (file, side), if any.
    pub(crate) fn sub_of(&self, file: u8, side: Color) -> Option<usize> {
        self.by_file[usize::from(file)][cidx(side)]
    }

    /// How a position of the material `counts` (the table's, or the table's
    /// the other way round) with `turn` to move lies in this table: colour
    /// flipped where the material is the other way round, or where it is
    /// symmetric and Black is to move (the file stores White to move).
    /// `None` for other material.
    #[inline]
    pub(crate) fn frame(&self, counts: &Counts, turn: Color) -> Option<Frame> {
        let reversed = if *counts == self.counts {
            false
        } else if *counts == [self.counts[1], self.counts[0]] {
            true
        } else {
            return None;
        };
        let flipped = reversed || (self.symmetric && turn == Color::Black);
        let side = if flipped { !turn } else { turn };
        Some(Frame { flipped, side })
    }

    /// Locates a position given as pieces (any order, any colour frame:
    /// the material may be colour-reversed) and side to move. With
    /// `any_side`, a side the file does not store is looked up in the
    /// sub-table of the other side (same placement, other side to move):
    /// the result's `side` is then the stored one, not `turn`.
    pub(crate) fn locate(
        &self,
        pieces: &[(Piece, u8)],
        turn: Color,
        any_side: bool,
    ) -> Option<Located> {
        let n = pieces.len();
        let mut work = [(Color::White.king(), 0u8); MAX];
        work[..n].copy_from_slice(pieces);
        let work = &mut work[..n];
        let frame = self.frame(&counts_of(work.iter().map(|p| p.0)), turn)?;
        let side = frame.side;
        if frame.flipped {
            for p in work.iter_mut() {
                p.0 = frame.piece(p.0);
                p.1 ^= frame.mirror();
            }
        }
        let mut squares = [0u8; MAX];
        let mut used = 0u64;
        let mut k = 0;
        let file = if self.has_pawns {
            let lead = self.lead_color.pawn();
            let mut best = 0u64;
            let mut lead_sq = 0u8;
            for p in work.iter().filter(|p| p.0 == lead) {
                let m = map_pawn(p.1);
                if k == 0 || m > best {
                    best = m;
                    lead_sq = p.1;
                }
                k += 1;
            }
            squares[0] = lead_sq;
            used |= 1 << lead_sq;
            lead_file(lead_sq)
        } else {
            0
        };
        let sub = match self.sub_of(file, side) {
            Some(s) => s,
            None if any_side => self.sub_of(file, !side)?,
            None => return None,
        };
        let info = &self.subs[sub];
        let encoding = &info.encoding;
        let start = if self.has_pawns { 1 } else { 0 };
        for (slot, piece) in encoding.pieces.iter().enumerate().skip(start) {
            let p = work
                .iter()
                .find(|p| p.0 == *piece && used & (1 << p.1) == 0)?;
            squares[slot] = p.1;
            used |= 1 << p.1;
        }
        let idx = encoding.encode(&mut squares[..n])?;
        Some(Located {
            side: info.side,
            sub,
            idx: info.start + idx,
        })
    }
}
