//! Streaming decoder for Syzygy WDL (`.rtbw`) and DTZ (`.rtbz`) tables.
//!
//! [`SweepTable`] decodes *every* value of a table in index order, once,
//! decompressing each block exactly once (blocks are decoded in parallel
//! with rayon; results do not depend on the number of threads). Indices are
//! mapped to piece placements with [`SweepTable::placement`] and positions
//! back to indices with [`SweepTable::index_of`].
//!
//! The file format and the index scheme are Ronald de Man's. Constant tables
//! and the index arithmetic are ported from shakmaty-syzygy 0.28 by Niklas
//! Fiekas (GPL-3.0-or-later, like this crate); the streaming decoder and the
//! inverse index arithmetic are our own.
//!
//! # The format layer
//!
//! This module is the only one that knows the Syzygy file format; what it
//! knows, it knows once, one concept a file:
//!
//! - `format`: the headers and the block decompression;
//! - `consts` and `index`: the index scheme's constant tables and
//!   `Encoding`, the one index encoder and decoder of a sub-table, with
//!   the group order the header gives;
//! - `layout`: `TableLayout`, the sub-tables of a file and the one place
//!   that locates a position (sub-table, colour flip, index);
//! - `mover` and `walk`: the incremental index of one moving piece, and
//!   the enumeration of whole sub-tables in work units, for the sweep.
//!
//! The public API is [`SweepTable`]; the sweep (`crate::scan::sweep`, the
//! whole-table decoder) is a client of the crate-private part, re-exported
//! flat from here: `TableLayout` (from [`SweepTable`]'s headers), `Encoding`,
//! `MoverIndex`, `Units` and the small helpers on piece counts.
//!
//! # Frames, sides and indices
//!
//! All colours are relative to the file name: *White* is the first side of
//! the file name (`KRB` in `KRBvKR`), *Black* the second. A position with the
//! colours the other way round is looked up colour-flipped (and mirrored
//! vertically), exactly as shakmaty-syzygy does.
//!
//! A *side* is the side to move. WDL tables of non-symmetric material store
//! both sides, DTZ tables store one side per sub-table, and tables of
//! symmetric material (`KPvKP`, `KRvKR`) store only White to move: positions
//! with Black to move are colour-flipped first.
//!
//! Tables with pawns consist of four sub-tables, one per file (a-d) of the
//! leading pawn. The index space of a side is the concatenation of its
//! sub-tables in file order, see [`SweepTable::subtables`]. WDL and DTZ files
//! of the same material order their pieces differently: the same index
//! denotes different positions in the two files. In DTZ tables with pawns
//! the stored side may differ between leading-pawn files (`KQPvKQ.rtbz`
//! stores White to move for files c-d and Black to move for files a-b).
//!
//! # Full-board statistics
//!
//! An index stands for a placement reduced by symmetry: mirroring and
//! rotating the board (8 symmetries without pawns, the a-h mirror with
//! pawns) and, for symmetric material, swapping colours. Like pieces are an
//! unordered set. [`SweepTable::multiplicity`] gives the number of
//! (board, side to move) positions an index stands for; summed over all
//! indices it is exactly the number of placements. It is usually 8
//! (pawnless) or 2 (pawns), times 2 for symmetric material, and half that
//! when the leading group lies on the a1-h8 diagonal: such a placement and
//! its diagonal mirror image have two different indices.
//!
//! The index space also contains placements that are not legal positions
//! (adjacent kings, except in tables whose leading group is the two kings;
//! the side not to move in check). Their stored values are arbitrary. So
//! are the values of positions where the side to move has a capture that
//! reaches at least the stored result, and DTZ values of positions whose
//! best move zeroes the half-move clock (capture, or pawn move in a win):
//! resolve those by a search, as shakmaty-syzygy does. Indices carry no en
//! passant rights. For the side a DTZ table does not store, DTZ must be
//! computed by a one-ply search over the stored side.

mod consts;
mod format;
mod index;
mod layout;
mod mover;
#[cfg(test)]
pub(crate) mod tests;
mod walk;

use std::{
    fmt, io,
    ops::Range,
    path::{Path, PathBuf},
};

use shakmaty::{Board, Chess, Color, File, Piece, Position, Role, Setup, Square};

pub use self::format::SweepValue;
use self::{
    format::{Pairs, FLAG_LOSS_PLIES, FLAG_MAPPED, FLAG_STM, FLAG_WIN_PLIES},
    index::{flip_diagonal, flip_horizontal, flip_vertical, MAX_PIECES},
};
pub(crate) use self::{
    index::{index_sizes, lead_radices, Encoding, LeadWindow, MAX_PIECES as MAX},
    layout::{cidx, counts_of, lead_file, slot_map, Counts, Frame, Located, SubInfo, TableLayout},
    mover::MoverIndex,
    walk::Units,
};

/// Ranges longer than this are decoded in parallel.
const PARALLEL_THRESHOLD: u64 = 1 << 16;

/// Which kind of table a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TableKind {
    /// Win/draw/loss table (`.rtbw`).
    Wdl,
    /// Distance-to-zeroing table (`.rtbz`).
    Dtz,
}

/// Errors of [`SweepTable`]. Every variant carries the path of the table.
#[derive(Debug)]
#[non_exhaustive]
pub enum SweepError {
    /// The file could not be read.
    Io {
        /// Path of the table.
        path: PathBuf,
        /// Underlying error.
        error: io::Error,
    },
    /// The file name is not a Syzygy material such as `KRBvKR`.
    Name {
        /// Path of the table.
        path: PathBuf,
    },
    /// The file does not start with the magic bytes of the requested kind.
    Magic {
        /// Path of the table.
        path: PathBuf,
        /// The first (up to) four bytes found.
        found: Vec<u8>,
    },
    /// The file is malformed or truncated.
    Corrupt {
        /// Path of the table.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// The request does not fit the table (index range out of bounds, side
    /// not stored, output length mismatch, wrong table kind).
    BadRequest {
        /// Path of the table.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
}

impl fmt::Display for SweepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SweepError::Io { path, error } => {
                write!(f, "cannot read {}: {error}", path.display())
            }
            SweepError::Name { path } => {
                write!(f, "{}: not a Syzygy material file name", path.display())
            }
            SweepError::Magic { path, found } => {
                write!(f, "{}: bad magic bytes {found:02x?}", path.display())
            }
            SweepError::Corrupt { path, what } => {
                write!(f, "{}: corrupt table: {what}", path.display())
            }
            SweepError::BadRequest { path, what } => {
                write!(f, "{}: bad request: {what}", path.display())
            }
        }
    }
}

impl std::error::Error for SweepError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SweepError::Io { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// Why a table's headers describe no table of its material: the words of a
/// [`SweepError::Corrupt`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum HeaderError {
    /// The file is longer than this machine's addresses reach.
    TooLarge,
    /// The headers are malformed or truncated.
    Format(format::Corrupt),
    /// The layout flags say pawns, or a split table, where the material
    /// says otherwise.
    LayoutFlags,
    /// A sub-table's pieces are not the material of the file name.
    Pieces,
    /// The sub-tables' leading pawns are of different colours.
    LeadColour,
    /// A symmetric DTZ table with pawns that stores Black to move.
    SymmetricBlack,
    /// Two sub-tables store the same side (and file).
    SideTwice,
    /// A WDL table with a value past the five WDL classes.
    WdlValue(u16),
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HeaderError::TooLarge => "file too large",
            HeaderError::Format(what) => what,
            HeaderError::LayoutFlags => "layout flags do not match the material",
            HeaderError::Pieces => "header pieces do not match the file name",
            HeaderError::LeadColour => "inconsistent leading pawn colour",
            HeaderError::SymmetricBlack => "symmetric pawn DTZ table stores black to move",
            HeaderError::SideTwice => "side stored twice",
            HeaderError::WdlValue(v) => return write!(f, "WDL value {v} out of range"),
        })
    }
}

impl std::error::Error for HeaderError {}

/// A decoded DTZ value in shakmaty-syzygy's `Dtz` convention.
///
/// `dtz` is positive if the side to move wins, negative if it loses, 0 for
/// draws. `|dtz|` is the number of plies in which a zeroing move (capture
/// or pawn move) can be forced, `1` meaning one is available now; cursed
/// wins and blessed losses add 100 (`|dtz| > 100`). If `rounded`, the
/// sub-table stores full moves for this WDL class and the true value may be
/// one ply further from zero (`MaybeRounded::Rounded` in shakmaty-syzygy):
/// it is `dtz` or `dtz + dtz.signum()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DtzValue {
    /// Signed distance to zeroing in plies (see type docs).
    pub dtz: i32,
    /// Whether the value may be one ply short.
    pub rounded: bool,
}

/// Description of one sub-table of a side (see [`SweepTable::subtables`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubTableInfo {
    /// Side to move stored in this sub-table.
    pub side: Color,
    /// File of the leading pawn (a-d), `None` for pawnless tables.
    pub lead_file: Option<File>,
    /// Pieces in the order of the index encoding (colours relative to the
    /// file name). [`Placement::pieces`] lists pieces in this order.
    pub pieces: Vec<Piece>,
    /// First index of the sub-table in the side's index space.
    pub start: u64,
    /// Number of indices of the sub-table.
    pub len: u64,
    /// DTZ: wins are stored in plies (else in moves, see [`DtzValue`]).
    pub win_plies: bool,
    /// DTZ: losses are stored in plies (else in moves).
    pub loss_plies: bool,
}

/// A piece placement decoded from an index: the square of every piece and
/// the side to move, in the file's colour frame.
///
/// Like pieces are listed in ascending square order; the leading pawns of
/// a pawn table come first (the leading pawn, then the others in Syzygy's
/// pawn order). No castling rights, no en passant square.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Placement {
    pieces: [(Piece, Square); MAX_PIECES],
    len: u8,
    turn: Color,
}

impl Placement {
    /// The pieces and their squares, in the encoding order of the sub-table
    /// ([`SubTableInfo::pieces`]).
    pub fn pieces(&self) -> &[(Piece, Square)] {
        &self.pieces[..usize::from(self.len)]
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The board with all pieces placed.
    pub fn board(&self) -> Board {
        let mut board = Board::empty();
        for &(piece, sq) in self.pieces() {
            board.set_piece_at(sq, piece);
        }
        board
    }

    /// A setup of this placement (no castling, no en passant, move counters
    /// 0 and 1). Use `Chess::from_setup` to check legality: a placement may
    /// be illegal (adjacent kings, side not to move in check).
    pub fn to_setup(&self) -> Setup {
        let mut setup = Setup::empty();
        setup.board = self.board();
        setup.turn = self.turn;
        setup
    }
}

/// What the parsed headers of a file of `file_bytes` bytes with
/// `subtables` sub-tables (per leading pawn file and stored side) hold at
/// most, values up to 255 (every table of up to 6 pieces): every symbol at
/// its longest, a byte per value (at most 4,096 symbols per sub-table, and
/// 3 bytes of the file each); per sub-table a DTZ map and the code
/// lengths; and the blocks located (at most 1/128 of the file). A memory
/// bound can count this without the file.
pub fn header_allowance(file_bytes: u64, subtables: usize) -> u64 {
    // Four classes of up to 256 raw values, 4 bytes each.
    const DTZ_MAP: u64 = 4 * 256 * 4;
    // The code lengths: at most 32 of them, 10 bytes each.
    const CODES: u64 = 32 * 10;
    let subtables = subtables as u64;
    let symbols = (subtables * format::MAX_SYMBOLS as u64).min(file_bytes / format::SYMBOL_BYTES);
    format::max_symbol_bytes(symbols) + subtables * (DTZ_MAP + CODES) + file_bytes / 128
}

/// A table file, read where its blocks are decoded: the page cache holds
/// what is read, not the process (a map of the file would count in its
/// resident memory).
#[derive(Debug)]
struct TableFile {
    file: std::fs::File,
    len: u64,
}

impl format::Blocks for TableFile {
    fn read_at(&self, ofs: usize, out: &mut [u8]) -> Result<(), format::Corrupt> {
        use std::os::unix::fs::FileExt;
        let end = ofs as u64 + out.len() as u64;
        if end > self.len {
            return Err("block beyond end of file".into());
        }
        self.file
            .read_exact_at(out, ofs as u64)
            .map_err(|e| format!("cannot read bytes {ofs}..{end}: {e}"))
    }
}

/// A Syzygy WDL or DTZ table, its headers parsed, ready for decoding
/// sequentially or by ranges. Its compressed data stays in the file.
#[derive(Debug)]
pub struct SweepTable {
    path: PathBuf,
    kind: TableKind,
    name: String,
    data: TableFile,
    /// The sub-tables, their encodings and the location of positions.
    layout: TableLayout,
    /// The compressed values of each sub-table (as `layout.subs`).
    pairs: Vec<Pairs>,
}

impl SweepTable {
    /// Opens a `.rtbw`/`.rtbz` file whose stem is a material in Syzygy
    /// naming (e.g. `KRBvKR.rtbw`) and parses all headers (from the file's
    /// first bytes; the compressed data is read when decoded).
    ///
    /// # Errors
    ///
    /// [`SweepError::Io`] if the file cannot be read, [`SweepError::Name`]
    /// if the file name is not a material, [`SweepError::Magic`] if the file
    /// is not a table of `kind`, [`SweepError::Corrupt`] if the headers are
    /// malformed, truncated or inconsistent with the material.
    pub fn open(path: &Path, kind: TableKind) -> Result<SweepTable, SweepError> {
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .ok_or_else(|| SweepError::Name {
                path: path.to_owned(),
            })?
            .to_owned();
        // Named as Syzygy names a table: the material as it writes itself
        // (upper case, each side's roles in order), one parser for both.
        let counts = name
            .parse::<crate::chess::material::Material>()
            .ok()
            .filter(|m| m.to_string() == name)
            .map(|m| counts_of(m.pieces()))
            .ok_or_else(|| SweepError::Name {
                path: path.to_owned(),
            })?;
        use std::os::unix::fs::FileExt;
        let io = |error| SweepError::Io {
            path: path.to_owned(),
            error,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let file = TableFile { file, len };
        let magic = match kind {
            TableKind::Wdl => format::WDL_MAGIC,
            TableKind::Dtz => format::DTZ_MAGIC,
        };
        // The headers are read from a prefix of the file, grown until it
        // holds them all; a damaged file fails on the whole file, with the
        // error it gives there.
        let mut prefix_len = len.min(1 << 20);
        loop {
            let mut prefix = vec![0u8; prefix_len as usize];
            file.file.read_exact_at(&mut prefix, 0).map_err(io)?;
            if prefix.get(..4) != Some(&magic[..]) {
                return Err(SweepError::Magic {
                    path: path.to_owned(),
                    found: prefix.iter().take(4).copied().collect(),
                });
            }
            let whole = prefix_len == len;
            match Self::parse_headers(kind, counts, &prefix, len) {
                Ok(parsed) => {
                    let needed = (parsed.header_len + format::DTZ_MAP_REACH) as u64;
                    if whole || needed <= prefix_len {
                        return Self::from_parts(path.to_owned(), kind, name, counts, parsed, file)
                            .map_err(|what| SweepError::Corrupt {
                                path: path.to_owned(),
                                what: what.to_string(),
                            });
                    }
                    prefix_len = needed.min(len);
                }
                Err(_) if !whole => prefix_len = prefix_len.saturating_mul(8).min(len),
                Err(what) => {
                    return Err(SweepError::Corrupt {
                        path: path.to_owned(),
                        what: what.to_string(),
                    })
                }
            }
        }
    }

    /// Parses the headers of a file of `file_len` bytes from its first
    /// bytes, `prefix`.
    fn parse_headers(
        kind: TableKind,
        counts: Counts,
        prefix: &[u8],
        file_len: u64,
    ) -> Result<format::Parsed, HeaderError> {
        let pawn = Role::Pawn as usize - 1;
        let pp = counts[0][pawn] > 0 && counts[1][pawn] > 0;
        let num_pieces: usize = counts.iter().flatten().map(|&n| usize::from(n)).sum();
        let file_len = usize::try_from(file_len).map_err(|_| HeaderError::TooLarge)?;
        format::parse(prefix, file_len, kind == TableKind::Wdl, num_pieces, pp)
            .map_err(HeaderError::Format)
    }

    fn from_parts(
        path: PathBuf,
        kind: TableKind,
        name: String,
        counts: Counts,
        parsed: format::Parsed,
        data: TableFile,
    ) -> Result<SweepTable, HeaderError> {
        let pawn = Role::Pawn as usize - 1;
        let has_pawns = counts[0][pawn] + counts[1][pawn] > 0;
        let symmetric = counts[0] == counts[1];
        let layout_pawns = parsed.layout & format::LAYOUT_HAS_PAWNS != 0;
        let layout_split = parsed.layout & format::LAYOUT_SPLIT != 0;
        if layout_pawns != has_pawns || layout_split == symmetric {
            return Err(HeaderError::LayoutFlags);
        }

        let mut subs = Vec::new();
        let mut pairs_of = Vec::new();
        let mut stored = [[false; 2]; 4];
        let mut lead_color = Color::White;
        for (file, sides) in parsed.files.into_iter().enumerate() {
            for (s, (encoding, pairs)) in sides.into_iter().enumerate() {
                if counts_of(encoding.pieces.iter().copied()) != counts {
                    return Err(HeaderError::Pieces);
                }
                if has_pawns {
                    let first = encoding.pieces[0];
                    if file == 0 && s == 0 {
                        lead_color = first.color;
                    } else if first.color != lead_color {
                        return Err(HeaderError::LeadColour);
                    }
                }
                let side = match kind {
                    TableKind::Wdl => [Color::White, Color::Black][s],
                    TableKind::Dtz => {
                        let stm = pairs.flags & FLAG_STM != 0;
                        if symmetric && stm && has_pawns {
                            return Err(HeaderError::SymmetricBlack);
                        }
                        if stm && !symmetric {
                            Color::Black
                        } else {
                            Color::White
                        }
                    }
                };
                let slot = &mut stored[file][cidx(side)];
                if *slot {
                    return Err(HeaderError::SideTwice);
                }
                *slot = true;
                subs.push((file as u8, side, encoding));
                pairs_of.push(pairs);
            }
        }

        if kind == TableKind::Wdl {
            if let Some(pairs) = pairs_of.iter().find(|p| p.max_value > 4) {
                return Err(HeaderError::WdlValue(pairs.max_value));
            }
        }

        Ok(SweepTable {
            path,
            kind,
            name,
            data,
            layout: TableLayout::new(counts, subs),
            pairs: pairs_of,
        })
    }

    /// The path the table was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The size of the file in bytes (read as decoded, never held whole).
    pub fn file_bytes(&self) -> u64 {
        self.data.len
    }

    /// The memory the parsed headers hold, in bytes (mostly the symbols,
    /// expanded into their values).
    pub fn header_bytes(&self) -> u64 {
        self.pairs.iter().map(|p| p.heap_bytes()).sum()
    }

    /// What a memory bound counts for the parsed headers: the larger of
    /// [`header_allowance`] and [`SweepTable::header_bytes`] (the
    /// allowance, but for tables with values past 255).
    pub fn header_bound(&self) -> u64 {
        header_allowance(self.file_bytes(), self.pairs.len()).max(self.header_bytes())
    }

    /// The kind of table.
    pub fn kind(&self) -> TableKind {
        self.kind
    }

    /// The material, as in the file name (e.g. `"KRBvKR"`).
    pub fn material(&self) -> &str {
        &self.name
    }

    /// The sides to move that the file stores, White first. WDL: both sides
    /// (only White for symmetric material); DTZ: usually one side, but in
    /// pawn tables each leading-pawn file may store a different side.
    pub fn stored_sides(&self) -> Vec<Color> {
        [Color::White, Color::Black]
            .into_iter()
            .filter(|c| !self.layout.of_side(*c).is_empty())
            .collect()
    }

    /// Number of indices of a side (0 if the side is not stored): the sum
    /// over its sub-tables.
    pub fn index_len(&self, side: Color) -> u64 {
        self.layout
            .of_side(side)
            .iter()
            .map(|&k| self.layout.subs[k].encoding.size)
            .sum()
    }

    /// The sub-tables of a side in index order (one for pawnless tables, up
    /// to four, by leading pawn file, for pawn tables).
    pub fn subtables(&self, side: Color) -> Vec<SubTableInfo> {
        self.layout
            .of_side(side)
            .iter()
            .map(|&k| {
                let (sub, pairs) = (&self.layout.subs[k], &self.pairs[k]);
                let dtz = self.kind == TableKind::Dtz;
                SubTableInfo {
                    side: sub.side,
                    lead_file: self
                        .layout
                        .has_pawns
                        .then(|| File::new(u32::from(sub.file))),
                    pieces: sub.encoding.pieces.clone(),
                    start: sub.start,
                    len: sub.encoding.size,
                    win_plies: dtz && pairs.flags & FLAG_WIN_PLIES != 0,
                    loss_plies: dtz && pairs.flags & FLAG_LOSS_PLIES != 0,
                }
            })
            .collect()
    }

    /// The sub-tables, their encodings and the location of positions:
    /// what the whole-table decoder needs of the headers.
    pub(crate) fn layout(&self) -> &TableLayout {
        &self.layout
    }

    fn bad(&self, what: String) -> SweepError {
        SweepError::BadRequest {
            path: self.path.clone(),
            what,
        }
    }

    fn corrupt(&self, what: String) -> SweepError {
        SweepError::Corrupt {
            path: self.path.clone(),
            what,
        }
    }

    /// Sub-tables of `side` intersecting `range`, with the local range.
    fn pieces_of_range(
        &self,
        side: Color,
        range: &Range<u64>,
        out_len: usize,
    ) -> Result<Vec<(usize, Range<u64>)>, SweepError> {
        let len = self.index_len(side);
        if range.start > range.end || range.end > len {
            return Err(self.bad(format!(
                "range {range:?} outside 0..{len} for {side:?} to move"
            )));
        }
        if (range.end - range.start) != out_len as u64 {
            return Err(self.bad(format!(
                "output length {out_len} differs from range length {}",
                range.end - range.start
            )));
        }
        let mut parts = Vec::new();
        for &k in self.layout.of_side(side) {
            let sub = &self.layout.subs[k];
            let (s, e) = (sub.start, sub.start + sub.encoding.size);
            let (a, b) = (range.start.max(s), range.end.min(e));
            if a < b {
                parts.push((k, a - s..b - s));
            }
        }
        Ok(parts)
    }

    /// Decodes the raw stored values of the indices in `range` (of `side`'s
    /// index space) into `out`, in index order. Large ranges are decoded in
    /// parallel; the result does not depend on the number of threads.
    ///
    /// WDL tables: 0 = loss, 1 = blessed loss, 2 = draw, 3 = cursed win,
    /// 4 = win, for the side to move (as shakmaty-syzygy maps them).
    /// DTZ tables: the raw symbol *before* the DTZ map; see
    /// [`SweepTable::decode_dtz`].
    ///
    /// Values of illegal placements and of positions where the side to move
    /// has a capture (or, for DTZ, a capture or pawn move) that achieves
    /// the result are "don't care" values chosen by the compressor.
    ///
    /// # Errors
    ///
    /// [`SweepError::BadRequest`] if `range` is not within
    /// `0..index_len(side)` or `out.len()` differs from its length, or if
    /// the values do not fit `T` (use `u16` for DTZ tables with wide
    /// values); [`SweepError::Corrupt`] if the compressed data is malformed.
    pub fn decode<T: SweepValue>(
        &self,
        side: Color,
        range: Range<u64>,
        out: &mut [T],
    ) -> Result<(), SweepError> {
        let parts = self.pieces_of_range(side, &range, out.len())?;
        let parallel = range.end - range.start >= PARALLEL_THRESHOLD;
        let mut rest = out;
        for (k, local) in parts {
            let pairs = &self.pairs[k];
            if pairs.max_value > T::MAX {
                return Err(self.bad(format!(
                    "values up to {} do not fit the output type",
                    pairs.max_value
                )));
            }
            let (head, tail) = rest.split_at_mut((local.end - local.start) as usize);
            rest = tail;
            pairs
                .decode(&self.data, local.start, head, parallel)
                .map_err(|what| self.corrupt(what))?;
        }
        Ok(())
    }

    /// Decodes the DTZ values of the indices in `range` of a DTZ table.
    ///
    /// `wdl[i]` must be the WDL value (0..=4 as in [`SweepTable::decode`])
    /// of the position of index `range.start + i` *of this DTZ table*, as
    /// stored in the WDL table (look it up through [`SweepTable::placement`]
    /// and the WDL table's [`SweepTable::index_of_board`]: the two files
    /// index positions differently). Draws give `DtzValue { dtz: 0, .. }`.
    ///
    /// # Errors
    ///
    /// As [`SweepTable::decode`]; also [`SweepError::BadRequest`] if this is
    /// not a DTZ table, `wdl` has the wrong length or a value above 4, and
    /// [`SweepError::Corrupt`] if the DTZ map points outside the file.
    pub fn decode_dtz(
        &self,
        side: Color,
        range: Range<u64>,
        wdl: &[u8],
        out: &mut [DtzValue],
    ) -> Result<(), SweepError> {
        if self.kind != TableKind::Dtz {
            return Err(self.bad("decode_dtz on a WDL table".into()));
        }
        if wdl.len() != out.len() {
            return Err(self.bad("wdl and output lengths differ".into()));
        }
        let parts = self.pieces_of_range(side, &range, out.len())?;
        let parallel = range.end - range.start >= PARALLEL_THRESHOLD;
        const CHUNK: usize = 1 << 20;
        let mut raw = vec![0u16; CHUNK.min(out.len())];
        let mut done = 0usize;
        for (k, local) in parts {
            let pairs = &self.pairs[k];
            let win_plies = pairs.flags & FLAG_WIN_PLIES != 0;
            let loss_plies = pairs.flags & FLAG_LOSS_PLIES != 0;
            let map = pairs
                .dtz_map
                .as_ref()
                .filter(|_| pairs.flags & FLAG_MAPPED != 0);
            let mut pos = local.start;
            while pos < local.end {
                let n = ((local.end - pos) as usize).min(CHUNK);
                let raw = &mut raw[..n];
                pairs
                    .decode(&self.data, pos, raw, parallel)
                    .map_err(|what| self.corrupt(what))?;
                let wdl = &wdl[done..done + n];
                let out = &mut out[done..done + n];
                for ((o, &w), &r) in out.iter_mut().zip(wdl).zip(raw.iter()) {
                    // Map class order: Win, Loss, CursedWin, BlessedLoss.
                    let (class, sign, base, plies_flag) = match w {
                        0 => (1, -1, 1, loss_plies),
                        1 => (3, -1, 101, false),
                        2 => {
                            *o = DtzValue::default();
                            continue;
                        }
                        3 => (2, 1, 101, false),
                        4 => (0, 1, 1, win_plies),
                        _ => return Err(self.bad(format!("WDL value {w} out of range"))),
                    };
                    let v = match map {
                        Some(map) => {
                            let v = map.maps[class][usize::from(r)];
                            if v == u32::MAX {
                                return Err(self.corrupt("DTZ map outside the file".into()));
                            }
                            v as i32
                        }
                        None => i32::from(r),
                    };
                    *o = dtz_value(sign, base, v, plies_flag);
                }
                pos += n as u64;
                done += n;
            }
        }
        Ok(())
    }

    /// Maps an index of `side` to its placement: the square of every piece
    /// and the side to move (always `side`).
    ///
    /// Every index of a standard chess table decodes to a placement with
    /// distinct squares, in canonical (symmetry reduced) form; `None` is only
    /// returned for indices out of range. The placement may still be an
    /// illegal position (kings adjacent, side not to move in check), whose
    /// stored value is arbitrary.
    pub fn placement(&self, side: Color, idx: u64) -> Option<Placement> {
        let &k = self.layout.of_side(side).iter().find(|&&k| {
            let s = &self.layout.subs[k];
            s.start <= idx && idx < s.start + s.encoding.size
        })?;
        let sub = &self.layout.subs[k];
        let enc = &sub.encoding;
        let mut squares = [0u8; MAX_PIECES];
        enc.decode(idx - sub.start, &mut squares);
        let mut pieces = [(Color::White.king(), Square::A1); MAX_PIECES];
        for (i, p) in enc.pieces.iter().enumerate() {
            pieces[i] = (*p, Square::new(u32::from(squares[i])));
        }
        Some(Placement {
            pieces,
            len: enc.pieces.len() as u8,
            turn: side,
        })
    }

    /// The index of a position: the side (in the file's frame, see the
    /// module docs) and the index in that side's index space, like
    /// shakmaty-syzygy's internal `encode`. Castling rights, en passant and
    /// move counters are ignored.
    ///
    /// Returns `None` if the material does not belong to this table, if the
    /// sub-table of the position is not stored (DTZ tables) or if the
    /// placement has no index (adjacent kings in tables whose leading
    /// group is the two kings).
    pub fn index_of(&self, pos: &Chess) -> Option<(Color, u64)> {
        self.index_of_board(pos.board(), pos.turn())
    }

    /// [`SweepTable::index_of`] for a board and a side to move.
    pub fn index_of_board(&self, board: &Board, turn: Color) -> Option<(Color, u64)> {
        let mut pieces = [(Color::White.king(), 0u8); MAX_PIECES];
        let mut n = 0;
        for (sq, piece) in board.iter() {
            if n == MAX_PIECES {
                return None;
            }
            pieces[n] = (piece, u8::from(sq));
            n += 1;
        }
        self.index_of_pieces(&pieces[..n], turn)
    }

    /// Core of `index_of`: `pieces` in any order.
    fn index_of_pieces(&self, pieces: &[(Piece, u8)], turn: Color) -> Option<(Color, u64)> {
        let at = self.layout.locate(pieces, turn, false)?;
        Some((at.side, at.idx))
    }

    /// Number of distinct (board, side to move) positions, with the
    /// material oriented as in the file name, that map to this index: the
    /// weight of the index when counting positions on the full board.
    ///
    /// The sum over all indices of all stored sides equals the number of
    /// placements of the material (White = first side of the file name)
    /// times the number of sides to move the indices cover (tables of
    /// symmetric material fold Black to move into White to move). Usually
    /// 8 for pawnless and 2 for pawn tables; smaller when the placement is
    /// symmetric or when mirror images of it have their own index (leading
    /// group on the a1-h8 diagonal, leading pawns on mirrored squares).
    /// Returns `None` for indices out of range.
    pub fn multiplicity(&self, side: Color, idx: u64) -> Option<u32> {
        let placement = self.placement(side, idx)?;
        let n = placement.pieces().len();
        let mut base = [(Color::White.king(), 0u8); MAX_PIECES];
        for (b, &(p, sq)) in base.iter_mut().zip(placement.pieces()) {
            *b = (p, u8::from(sq));
        }
        let geometric = if self.layout.has_pawns { 2 } else { 8 };
        let swaps: &[bool] = if self.layout.symmetric {
            &[false, true]
        } else {
            &[false]
        };
        type Image = ([(Piece, u8); MAX_PIECES], Color);
        let mut seen: [Option<Image>; 16] = [None; 16];
        let mut num_seen = 0;
        let mut count = 0;
        for g in 0..geometric {
            for &swap in swaps {
                let mut img = [(Color::White.king(), 0u8); MAX_PIECES];
                for (dst, &(p, sq)) in img.iter_mut().zip(&base[..n]) {
                    let mut sq = sq;
                    if g & 1 != 0 {
                        sq = flip_horizontal(sq);
                    }
                    if g & 2 != 0 {
                        sq = flip_vertical(sq);
                    }
                    if g & 4 != 0 {
                        sq = flip_diagonal(sq);
                    }
                    let mut p = p;
                    if swap {
                        p.color = !p.color;
                        sq = flip_vertical(sq);
                    }
                    *dst = (p, sq);
                }
                img[..n].sort_unstable_by_key(|p| p.1);
                let turn = if swap { !side } else { side };
                if seen[..num_seen]
                    .iter()
                    .flatten()
                    .any(|s| s.0[..n] == img[..n] && s.1 == turn)
                {
                    continue;
                }
                seen[num_seen] = Some((img, turn));
                num_seen += 1;
                if self.index_of_pieces(&img[..n], turn) == Some((side, idx)) {
                    count += 1;
                }
            }
        }
        Some(count)
    }
}

/// The DTZ a stored (and mapped) value `v` stands for, in a WDL class of
/// sign `sign` whose values start at `base` plies (1 for wins and losses,
/// 101 for cursed wins and blessed losses): `v` plies when the sub-table
/// stores that class in plies, else `2 v`, rounded ("n or n+1").
fn dtz_value(sign: i32, base: i32, v: i32, in_plies: bool) -> DtzValue {
    let plies = if in_plies { v } else { 2 * v };
    DtzValue {
        dtz: sign * (base + plies),
        rounded: !in_plies,
    }
}

#[cfg(test)]
mod dtz_value_tests {
    use super::{dtz_value, format::dtz_map_entry, DtzValue};

    #[test]
    fn values_past_a_thousand_plies() {
        // A wide DTZ map as the 7-piece tables store it: little-endian
        // u16 entries. Entry 2 is 516 (0x0204), entry 3 is 517 (0x0205).
        let data = [0xff, 0x10, 0x00, 0x01, 0x04, 0x04, 0x02, 0x05, 0x02];
        let start = 1;
        assert_eq!(dtz_map_entry(&data, start, 0, true), 16);
        assert_eq!(dtz_map_entry(&data, start, 1, true), 0x0401);
        assert_eq!(dtz_map_entry(&data, start, 2, true), 516);
        assert_eq!(dtz_map_entry(&data, start, 3, true), 517);
        // Past the end of the file: flagged, not wrapped or truncated.
        assert_eq!(dtz_map_entry(&data, start, 4, true), u32::MAX);
        assert_eq!(dtz_map_entry(&data, start, usize::MAX / 2, true), u32::MAX);
        // A narrow map reads bytes.
        assert_eq!(dtz_map_entry(&data, start, 2, false), 0x01);
        // Syzygy's longest 7-piece DTZ is 1034 plies (qn4N1/6R1/3K4/8/
        // B2k4/8/8/8 w). Past 100 plies it is a cursed win under the
        // 50-move rule, a class the format stores in moves from 101: a
        // stored 466 is 101 + 2 x 466 = 1033, "1033 or 1034", which the
        // probe engine and the sweep settle by search.
        assert_eq!(
            dtz_value(1, 101, 466, false),
            DtzValue {
                dtz: 1033,
                rounded: true
            }
        );
        assert_eq!(
            dtz_value(1, 101, 467, false),
            DtzValue {
                dtz: 1035,
                rounded: true
            }
        );
        // The loser's side of the same value.
        assert_eq!(
            dtz_value(-1, 101, 466, false),
            DtzValue {
                dtz: -1033,
                rounded: true
            }
        );
        // A class stored in plies is exact.
        assert_eq!(
            dtz_value(1, 1, 99, true),
            DtzValue {
                dtz: 100,
                rounded: false
            }
        );
    }
}
