//! Syzygy file format: header parsing and block decompression.
//!
//! The format is Ronald de Man's. The parsing logic follows shakmaty-syzygy
//! 0.28 (`src/table.rs`, by Niklas Fiekas, GPL-3.0-or-later), rewritten for
//! sequential decoding: every symbol of the "pairs" compression is expanded
//! once into a flat table, blocks are located through a prefix sum of the
//! block length table (the sparse index is not needed) and each block is
//! decompressed once, emitting all its values in index order.
//!
//! The headers are parsed from the file's first bytes ([`Parsed::header_len`]
//! says how many); the compressed blocks are read when decoded, in runs of
//! consecutive blocks, from a [`Blocks`] source (the file itself), so that
//! a table's data is never held in memory whole.
//!
//! Every read is bounds checked; malformed input yields an error message,
//! never a panic.

use rayon::prelude::*;

use super::index::{Encoding, MAX_PIECES};

/// Magic bytes of a WDL (`.rtbw`) file.
pub(crate) const WDL_MAGIC: [u8; 4] = [0x71, 0xe8, 0x23, 0x5d];
/// Magic bytes of a DTZ (`.rtbz`) file.
pub(crate) const DTZ_MAGIC: [u8; 4] = [0xd7, 0x66, 0x0c, 0xa5];

/// Layout flag: two sided table for a non-symmetric material.
pub(crate) const LAYOUT_SPLIT: u8 = 1;
/// Layout flag: table with pawns (4 sub-tables by leading pawn file).
pub(crate) const LAYOUT_HAS_PAWNS: u8 = 2;

/// Sub-table flag: DTZ table stores black to move.
pub(crate) const FLAG_STM: u8 = 1;
/// Sub-table flag: DTZ values are remapped through a `DtzMap`.
pub(crate) const FLAG_MAPPED: u8 = 2;
/// Sub-table flag: DTZ wins are stored in plies (else in full moves).
pub(crate) const FLAG_WIN_PLIES: u8 = 4;
/// Sub-table flag: DTZ losses are stored in plies (else in full moves).
pub(crate) const FLAG_LOSS_PLIES: u8 = 8;
/// Sub-table flag: 16 bit DTZ map.
pub(crate) const FLAG_WIDE_DTZ: u8 = 16;
/// Sub-table flag: the sub-table stores a single value.
pub(crate) const FLAG_SINGLE_VALUE: u8 = 128;

/// Maximum size in bytes of a compressed block.
const MAX_BLOCK_SIZE: usize = 1024;

/// Error message for malformed files.
pub(crate) type Corrupt = String;

/// At most this many consecutive blocks are read at once (at most 1 MiB).
const RUN_BLOCKS: usize = 1024;

/// A run of blocks holds about this many values at most (one block may
/// hold more).
const RUN_VALUES: usize = 1 << 18;

/// Every this many blocks, the index of the block's first value is held
/// (see `Compressed::coarse`): 8 bytes per 1,024 blocks, at most 1/128 of
/// the file.
const COARSE: usize = 1024;

/// Where the compressed blocks of a table are read from.
pub(crate) trait Blocks: Sync {
    /// Fills `out` with the bytes of the file at offset `ofs`.
    ///
    /// # Errors
    ///
    /// The bytes lie beyond the end of the file, or cannot be read.
    fn read_at(&self, ofs: usize, out: &mut [u8]) -> Result<(), Corrupt>;
}

/// Bounds checked little-endian reads.
pub(crate) fn u8_at(data: &[u8], ptr: usize) -> Result<u8, Corrupt> {
    data.get(ptr)
        .copied()
        .ok_or_else(|| format!("unexpected end of file at offset {ptr}"))
}

pub(crate) fn u16_at(data: &[u8], ptr: usize) -> Result<u16, Corrupt> {
    let b = ptr
        .checked_add(2)
        .and_then(|end| data.get(ptr..end))
        .ok_or_else(|| format!("unexpected end of file at offset {ptr}"))?;
    Ok(u16::from_le_bytes([b[0], b[1]]))
}

fn u32_at(data: &[u8], ptr: usize) -> Result<u32, Corrupt> {
    let b = ptr
        .checked_add(4)
        .and_then(|end| data.get(ptr..end))
        .ok_or_else(|| format!("unexpected end of file at offset {ptr}"))?;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Output element of a decode: the stored values are 16 bit, most tables
/// only need 8.
pub trait SweepValue: Copy + Send + Sync + sealed::Sealed {
    /// Largest representable value.
    #[doc(hidden)]
    const MAX: u16;
    /// Conversion (the caller checks `v <= MAX`).
    #[doc(hidden)]
    fn from_raw(v: u16) -> Self;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u8 {}
    impl Sealed for u16 {}
}

impl SweepValue for u8 {
    const MAX: u16 = u8::MAX as u16;
    #[inline]
    fn from_raw(v: u16) -> u8 {
        v as u8
    }
}

impl SweepValue for u16 {
    const MAX: u16 = u16::MAX;
    #[inline]
    fn from_raw(v: u16) -> u16 {
        v
    }
}

/// Entry `raw` of a DTZ map starting at `start`: a byte, or with
/// [`FLAG_WIDE_DTZ`] a little-endian u16 (the 7-piece tables whose DTZ
/// passes 255 moves, up to the 1034 plies of the longest). `u32::MAX` where
/// it lies outside the file: shakmaty-syzygy does not bound raw values by
/// the map's length, and the sweep replicates its reads (anywhere in the
/// file), then reports the damage.
pub(crate) fn dtz_map_entry(data: &[u8], start: usize, raw: usize, wide: bool) -> u32 {
    let v = if wide {
        start
            .checked_add(2 * raw)
            .and_then(|p| u16_at(data, p).ok())
    } else {
        start
            .checked_add(raw)
            .and_then(|p| u8_at(data, p).ok().map(u16::from))
    };
    v.map_or(u32::MAX, u32::from)
}

/// DTZ remapping of one sub-table, expanded per WDL class: `maps[c][raw]`
/// for classes Win, Loss, CursedWin, BlessedLoss (shakmaty-syzygy's
/// order), for every raw value that a symbol can produce. Entries that would
/// lie outside the file are `u32::MAX`.
#[derive(Debug, Clone)]
pub(crate) struct DtzMap {
    pub(crate) maps: [Vec<u32>; 4],
}

/// Compressed data of one sub-table.
#[derive(Debug, Clone)]
struct Compressed {
    block_size: usize,
    min_symlen: u32,
    /// Left aligned lowest code of each length.
    base: Vec<u64>,
    lowest_sym: Vec<u16>,
    /// For each symbol: start in `expansion` and number of values.
    sym_start: Vec<u32>,
    sym_count: Vec<u16>,
    /// All symbols expanded to their values.
    expansion: Expansion,
    /// Index of the first value of every [`COARSE`]-th block (block
    /// `k * COARSE` starts at `coarse[k]`); the blocks between are
    /// located with the block length table, read from the file (8 bytes
    /// per block held would be a quarter of a file of 32-byte blocks).
    coarse: Vec<u64>,
    /// Offset of the block length table in the file.
    lengths_ofs: usize,
    /// Offset of the compressed data.
    data_ofs: usize,
    /// Needed while parsing.
    blocks_num: usize,
    sparse_index_size: u64,
    block_length_size: u64,
}

/// Every symbol's values, one after the other: a byte each where all fit
/// (WDL tables, and most DTZ ones).
#[derive(Debug, Clone)]
enum Expansion {
    Narrow(Vec<u8>),
    Wide(Vec<u16>),
}

/// Symbols per sub-table: a symbol names its two halves in 12 bits.
pub(crate) const MAX_SYMBOLS: usize = 1 << 12;

/// Values per symbol, at most.
const MAX_SYMBOL_LEN: usize = 256;

/// What the expanded symbols of sub-tables holding `symbols` symbols in
/// all take at most, in bytes, where every value fits a byte: every
/// symbol at its longest, a byte per value, and where each symbol starts
/// and how long it is (6 bytes). A sub-table has at most [`MAX_SYMBOLS`]
/// symbols, and each takes [`SYMBOL_BYTES`] bytes of the file.
pub(crate) fn max_symbol_bytes(symbols: u64) -> u64 {
    symbols * (MAX_SYMBOL_LEN + 6) as u64
}

/// Bytes of the file per symbol (its two halves, 12 bits each).
pub(crate) const SYMBOL_BYTES: u64 = 3;

/// How the values of a sub-table are stored.
#[derive(Debug, Clone)]
enum Repr {
    Single(u16),
    Compressed(Box<Compressed>),
}

/// One sub-table: a leading pawn file (or the only file of a pawnless
/// table) and a side to move.
#[derive(Debug, Clone)]
pub(crate) struct Pairs {
    pub(crate) flags: u8,
    /// Number of values (the size of the sub-table's index space).
    size: u64,
    repr: Repr,
    /// Largest value any symbol can produce.
    pub(crate) max_value: u16,
    pub(crate) dtz_map: Option<DtzMap>,
}

/// Parsed headers of a whole file.
#[derive(Debug, Clone)]
pub(crate) struct Parsed {
    /// Layout flags.
    pub(crate) layout: u8,
    /// Sub-tables by file (1 or 4), each with 1 or 2 sides (side 0 is the
    /// file's white to move in WDL tables): the index encoding the header
    /// gives and the compressed values.
    pub(crate) files: Vec<Vec<(Encoding, Pairs)>>,
    /// The bytes the headers take (everything before the compressed
    /// blocks). Parsing reads no further, but for DTZ map entries that lie
    /// past their map (see [`dtz_map_entry`]), up to [`DTZ_MAP_REACH`]
    /// bytes further.
    pub(crate) header_len: usize,
}

/// How far past the end of the headers a DTZ map entry can lie: a raw
/// value is at most `u16::MAX`, two bytes each.
pub(crate) const DTZ_MAP_REACH: usize = 2 * (u16::MAX as usize + 1);

/// Header nibble to piece.
fn nibble_to_piece(p: u8) -> Option<shakmaty::Piece> {
    use shakmaty::{Color, Role};
    let color = if p & 8 == 0 {
        Color::White
    } else {
        Color::Black
    };
    let role = match p & 7 {
        1 => Role::Pawn,
        2 => Role::Knight,
        3 => Role::Bishop,
        4 => Role::Rook,
        5 => Role::Queen,
        6 => Role::King,
        _ => return None,
    };
    Some(role.of(color))
}

/// Parses all headers from `data`, the first bytes of a file of
/// `file_len` bytes (the whole file, or at least [`Parsed::header_len`]
/// plus [`DTZ_MAP_REACH`] bytes of it: parsing a shorter prefix fails or
/// reads DTZ map entries past it as outside the file). `num_pieces` and
/// `pp` come from the material (the caller checks consistency of pieces
/// afterwards).
pub(crate) fn parse(
    data: &[u8],
    file_len: usize,
    is_wdl: bool,
    num_pieces: usize,
    pp: bool,
) -> Result<Parsed, Corrupt> {
    if num_pieces > MAX_PIECES {
        return Err("too many pieces".into());
    }
    let layout = u8_at(data, 4)?;
    let has_pawns = layout & LAYOUT_HAS_PAWNS != 0;
    let split = layout & LAYOUT_SPLIT != 0;
    let num_files = if has_pawns { 4 } else { 1 };
    let num_sides = if is_wdl && split { 2 } else { 1 };

    // Piece lists and group order.
    let mut ptr = 5usize;
    let mut encodings: Vec<Vec<Encoding>> = Vec::new();
    for file in 0..num_files {
        let b0 = u8_at(data, ptr)?;
        let b1 = if pp { u8_at(data, ptr + 1)? } else { 0xff };
        let order = [[b0 & 0xf, b1 & 0xf], [b0 >> 4, b1 >> 4]];
        ptr += 1 + usize::from(pp);
        let mut sides = Vec::new();
        for (side, order) in order.iter().enumerate().take(num_sides) {
            let mut pieces = Vec::with_capacity(num_pieces);
            for i in 0..num_pieces {
                let b = u8_at(data, ptr + i)?;
                let nibble = if side == 0 { b & 0xf } else { b >> 4 };
                pieces.push(nibble_to_piece(nibble).ok_or("invalid piece in header")?);
            }
            // The encoding's error, as the words of a corrupt table.
            sides.push(Encoding::new(pieces, *order, file as u8).map_err(|e| e.to_string())?);
        }
        ptr += num_pieces;
        encodings.push(sides);
    }
    ptr += ptr & 1;

    // Compression headers.
    let mut files: Vec<Vec<Pairs>> = Vec::new();
    for sides in &encodings {
        let mut parsed = Vec::new();
        for encoding in sides {
            let (pairs, next) = parse_pairs(data, ptr, encoding.size, is_wdl)?;
            ptr = next;
            parsed.push(pairs);
        }
        files.push(parsed);
    }

    // DTZ maps.
    if !is_wdl {
        for file in &mut files {
            let pairs = &mut file[0];
            if pairs.flags & FLAG_MAPPED == 0 {
                continue;
            }
            let wide = pairs.flags & FLAG_WIDE_DTZ != 0;
            let mut starts = [0usize; 4];
            for start in &mut starts {
                if wide {
                    let len = usize::from(u16_at(data, ptr)?);
                    *start = ptr + 2;
                    ptr += 2 + 2 * len;
                } else {
                    let len = usize::from(u8_at(data, ptr)?);
                    *start = ptr + 1;
                    ptr += 1 + len;
                }
            }
            let n = usize::from(pairs.max_value) + 1;
            let maps = starts.map(|start| {
                (0..n)
                    .map(|raw| dtz_map_entry(data, start, raw, wide))
                    .collect()
            });
            pairs.dtz_map = Some(DtzMap { maps });
        }
        ptr += ptr & 1;
    }

    // Sparse indices (skipped), block lengths, data.
    for file in &files {
        for pairs in file {
            if let Repr::Compressed(c) = &pairs.repr {
                ptr = c
                    .sparse_index_size
                    .checked_mul(6)
                    .and_then(|n| usize::try_from(n).ok())
                    .and_then(|n| ptr.checked_add(n))
                    .ok_or("sparse index too large")?;
            }
        }
    }
    let mut block_length_ptrs = Vec::new();
    for file in &files {
        for pairs in file {
            block_length_ptrs.push(ptr);
            if let Repr::Compressed(c) = &pairs.repr {
                ptr = ptr
                    .checked_add(2 * c.block_length_size as usize)
                    .ok_or("block length table too large")?;
            }
        }
    }
    let header_len = ptr;
    let mut k = 0;
    for file in &mut files {
        for pairs in file.iter_mut() {
            let bl_ptr = block_length_ptrs[k];
            k += 1;
            let size = pairs.size;
            if let Repr::Compressed(c) = &mut pairs.repr {
                ptr = ptr.checked_add(0x3f).ok_or("file too large")? & !0x3f;
                c.data_ofs = ptr;
                ptr = c
                    .blocks_num
                    .checked_mul(c.block_size)
                    .and_then(|n| ptr.checked_add(n))
                    .ok_or("data too large")?;
                if ptr > file_len {
                    return Err(format!(
                        "compressed data ends at {ptr}, beyond the end of the file ({file_len})"
                    ));
                }
                let mut coarse = Vec::with_capacity(c.blocks_num / COARSE + 1);
                let mut acc = 0u64;
                for b in 0..c.blocks_num {
                    if b % COARSE == 0 {
                        coarse.push(acc);
                    }
                    acc += u64::from(u16_at(data, bl_ptr + 2 * b)?) + 1;
                }
                if acc < size {
                    return Err(format!("blocks hold {acc} values, sub-table needs {size}"));
                }
                c.coarse = coarse;
                c.lengths_ofs = bl_ptr;
            }
        }
    }

    let files = encodings
        .into_iter()
        .zip(files)
        .map(|(e, p)| e.into_iter().zip(p).collect())
        .collect();
    Ok(Parsed {
        layout,
        files,
        header_len,
    })
}

/// Parses the compression header of one sub-table at `ptr`; returns the
/// pairs data and the pointer behind the header.
fn parse_pairs(
    data: &[u8],
    ptr: usize,
    size: u64,
    is_wdl: bool,
) -> Result<(Pairs, usize), Corrupt> {
    let flags = u8_at(data, ptr)?;
    if flags & FLAG_SINGLE_VALUE != 0 {
        // DTZ: single value tables are draws (value 0) in chess.
        let value = if is_wdl {
            u16::from(u8_at(data, ptr + 1)?)
        } else {
            0
        };
        let pairs = Pairs {
            flags,
            size,
            repr: Repr::Single(value),
            max_value: value,
            dtz_map: None,
        };
        return Ok((pairs, ptr + 2));
    }

    let block_size_log = u8_at(data, ptr + 1)?;
    let span_log = u8_at(data, ptr + 2)?;
    let padding = u8_at(data, ptr + 3)?;
    let blocks_num = u32_at(data, ptr + 4)?;
    let max_symlen = u8_at(data, ptr + 8)?;
    let min_symlen = u8_at(data, ptr + 9)?;

    if block_size_log > 10 {
        return Err("block size too large".into());
    }
    let block_size = 1usize << block_size_log;
    if span_log > 31 {
        return Err("sparse index span too large".into());
    }
    let span = 1u64 << span_log;
    let sparse_index_size = size.div_ceil(span);
    let block_length_size = u64::from(blocks_num) + u64::from(padding);
    if !(1..=32).contains(&min_symlen) || max_symlen > 32 || max_symlen < min_symlen {
        return Err("invalid symbol lengths".into());
    }
    let h = usize::from(max_symlen - min_symlen + 1);

    let lowest_sym_ptr = ptr + 10;
    let mut lowest_sym = vec![0u16; h];
    for (i, sym) in lowest_sym.iter_mut().enumerate() {
        *sym = u16_at(data, lowest_sym_ptr + 2 * i)?;
    }
    let mut base = vec![0u64; h];
    for i in (0..h - 1).rev() {
        base[i] = (base[i + 1] + u64::from(lowest_sym[i]))
            .checked_sub(u64::from(lowest_sym[i + 1]))
            .ok_or("invalid code lengths")?
            / 2;
        if base[i] * 2 < base[i + 1] {
            return Err("invalid code lengths".into());
        }
    }
    for (i, b) in base.iter_mut().enumerate() {
        // min_symlen >= 1, so the shift is below 64.
        *b <<= 64 - (u32::from(min_symlen) + i as u32);
    }

    let mut p = lowest_sym_ptr + 2 * h;
    let num_syms = usize::from(u16_at(data, p)?);
    if num_syms > MAX_SYMBOLS {
        return Err(format!("{num_syms} symbols, more than {MAX_SYMBOLS}"));
    }
    p += 2;
    let btree = p;
    let (sym_start, sym_count, expansion, max_value) = expand_symbols(data, btree, num_syms)?;
    let expansion = match expansion.iter().map(|&v| u8::try_from(v)).collect() {
        Ok(narrow) => Expansion::Narrow(narrow),
        Err(_) => Expansion::Wide(expansion),
    };
    p += 3 * num_syms + (num_syms & 1);

    let pairs = Pairs {
        flags,
        size,
        repr: Repr::Compressed(Box::new(Compressed {
            block_size,
            min_symlen: u32::from(min_symlen),
            base,
            lowest_sym,
            sym_start,
            sym_count,
            expansion,
            coarse: Vec::new(),
            lengths_ofs: 0,
            data_ofs: 0,
            blocks_num: blocks_num as usize,
            sparse_index_size,
            block_length_size,
        })),
        max_value,
        dtz_map: None,
    };
    Ok((pairs, p))
}

/// Expanded symbol table: start of each symbol in the expansion, number of
/// values of each symbol, the expansion, and the largest value.
type Expanded = (Vec<u32>, Vec<u16>, Vec<u16>, u16);

/// Reads the symbol tree and expands every symbol into its values
/// (following shakmaty-syzygy's `read_symbols`, including its depth limit).
fn expand_symbols(data: &[u8], btree: usize, num_syms: usize) -> Result<Expanded, Corrupt> {
    struct Ctx<'a> {
        data: &'a [u8],
        btree: usize,
        sym_start: Vec<u32>,
        sym_count: Vec<u16>,
        expansion: Vec<u16>,
        max_value: u16,
    }

    const UNVISITED: u32 = u32::MAX;

    fn visit(ctx: &mut Ctx<'_>, s: usize, depth: u8) -> Result<(), Corrupt> {
        if *ctx.sym_start.get(s).ok_or("symbol out of range")? != UNVISITED {
            return Ok(());
        }
        let b = ctx
            .btree
            .checked_add(3 * s)
            .and_then(|p| ctx.data.get(p..p + 3))
            .ok_or("symbol table beyond end of file")?;
        let left = (u16::from(b[1] & 0xf) << 8) | u16::from(b[0]);
        let right = (u16::from(b[2]) << 4) | (u16::from(b[1]) >> 4);
        if right == 0xfff {
            ctx.sym_start[s] = ctx.expansion.len() as u32;
            ctx.sym_count[s] = 1;
            ctx.expansion.push(left);
            ctx.max_value = ctx.max_value.max(left);
            return Ok(());
        }
        let depth = depth.checked_sub(1).ok_or("symbol tree too deep")?;
        let (l, r) = (usize::from(left), usize::from(right));
        visit(ctx, l, depth)?;
        visit(ctx, r, depth)?;
        let count = usize::from(ctx.sym_count[l]) + usize::from(ctx.sym_count[r]);
        if count > MAX_SYMBOL_LEN {
            return Err("symbol too long".into());
        }
        let start = ctx.expansion.len();
        let ls = ctx.sym_start[l] as usize;
        ctx.expansion
            .extend_from_within(ls..ls + usize::from(ctx.sym_count[l]));
        let rs = ctx.sym_start[r] as usize;
        ctx.expansion
            .extend_from_within(rs..rs + usize::from(ctx.sym_count[r]));
        ctx.sym_start[s] = start as u32;
        ctx.sym_count[s] = count as u16;
        Ok(())
    }

    let mut ctx = Ctx {
        data,
        btree,
        sym_start: vec![UNVISITED; num_syms],
        sym_count: vec![0; num_syms],
        expansion: Vec::new(),
        max_value: 0,
    };
    for s in 0..num_syms {
        visit(&mut ctx, s, 16)?;
    }
    Ok((ctx.sym_start, ctx.sym_count, ctx.expansion, ctx.max_value))
}

impl Pairs {
    /// The memory the parsed header holds, in bytes.
    pub(crate) fn heap_bytes(&self) -> u64 {
        let map = self.dtz_map.as_ref().map_or(0, |m| {
            m.maps.iter().map(|v| 4 * v.len() as u64).sum::<u64>()
        });
        let compressed = match &self.repr {
            Repr::Single(_) => 0,
            Repr::Compressed(c) => {
                8 * c.base.len() as u64
                    + 2 * c.lowest_sym.len() as u64
                    + 4 * c.sym_start.len() as u64
                    + 2 * c.sym_count.len() as u64
                    + match &c.expansion {
                        Expansion::Narrow(e) => e.len() as u64,
                        Expansion::Wide(e) => 2 * e.len() as u64,
                    }
                    + 8 * c.coarse.len() as u64
            }
        };
        map + compressed
    }

    /// Decodes the values of indices `start..start + out.len()`.
    pub(crate) fn decode<T: SweepValue>(
        &self,
        data: &(impl Blocks + ?Sized),
        start: u64,
        out: &mut [T],
        parallel: bool,
    ) -> Result<(), Corrupt> {
        if self.max_value > T::MAX {
            return Err(format!(
                "values up to {} do not fit the output type",
                self.max_value
            ));
        }
        let c = match &self.repr {
            Repr::Single(v) => {
                out.fill(T::from_raw(*v));
                return Ok(());
            }
            Repr::Compressed(c) => c,
        };
        if out.is_empty() {
            return Ok(());
        }

        // Split the output at block boundaries.
        let mut lengths = BlockLengths::new(c, data);
        let k = c.coarse.partition_point(|&s| s <= start).max(1) - 1;
        let mut block = k * COARSE;
        let mut first = c.coarse.get(k).copied().unwrap_or(0);
        loop {
            let values = lengths.values(block)?;
            if first + values as u64 > start {
                break;
            }
            first += values as u64;
            block += 1;
        }
        let mut segments: Vec<(usize, usize, &mut [T])> = Vec::new();
        let mut rest = out;
        let mut skip = (start - first) as usize;
        while !rest.is_empty() {
            let avail = lengths.values(block)? - skip;
            let n = avail.min(rest.len());
            let (head, tail) = rest.split_at_mut(n);
            segments.push((block, skip, head));
            rest = tail;
            block += 1;
            skip = 0;
        }

        // Consecutive blocks are read together: one read per run. A run
        // also ends at RUN_VALUES values, so that threads share the work
        // evenly where blocks hold very many values (long runs of draws).
        let mut runs: Vec<Vec<(usize, usize, &mut [T])>> = Vec::new();
        let mut values = 0;
        for segment in segments {
            match runs.last_mut() {
                Some(run) if run.len() < RUN_BLOCKS && values < RUN_VALUES => {
                    values += segment.2.len();
                    run.push(segment);
                }
                _ => {
                    values = segment.2.len();
                    runs.push(vec![segment]);
                }
            }
        }
        let decode_run = |run: Vec<(usize, usize, &mut [T])>| c.decode_run(data, run);
        if parallel && runs.len() > 1 {
            runs.into_par_iter().try_for_each(decode_run)
        } else {
            runs.into_iter().try_for_each(decode_run)
        }
    }
}

/// The block length table of one sub-table, read from the file a batch
/// at a time as the blocks are walked.
struct BlockLengths<'a, B: Blocks + ?Sized> {
    c: &'a Compressed,
    data: &'a B,
    /// The first block of `batch`.
    from: usize,
    /// Values per block (its stored length plus one).
    batch: Vec<usize>,
}

impl<'a, B: Blocks + ?Sized> BlockLengths<'a, B> {
    fn new(c: &'a Compressed, data: &'a B) -> Self {
        BlockLengths {
            c,
            data,
            from: 0,
            batch: Vec::new(),
        }
    }

    /// The number of values of block `block` (at or after the last one
    /// asked for).
    fn values(&mut self, block: usize) -> Result<usize, Corrupt> {
        if block >= self.c.blocks_num {
            return Err("values beyond the last block".into());
        }
        if block < self.from || block - self.from >= self.batch.len() {
            let n = COARSE.min(self.c.blocks_num - block);
            let mut bytes = vec![0u8; 2 * n];
            self.data
                .read_at(self.c.lengths_ofs + 2 * block, &mut bytes)?;
            self.from = block;
            self.batch = bytes
                .chunks_exact(2)
                .map(|b| usize::from(u16::from_le_bytes([b[0], b[1]])) + 1)
                .collect();
        }
        Ok(self.batch[block - self.from])
    }
}

impl Compressed {
    /// Reads the consecutive blocks of `run` at once and decodes each
    /// segment: `(block, skip, out)` as [`Compressed::decode_block`].
    fn decode_run<T: SweepValue>(
        &self,
        data: &(impl Blocks + ?Sized),
        run: Vec<(usize, usize, &mut [T])>,
    ) -> Result<(), Corrupt> {
        let Some(&(first, _, _)) = run.first() else {
            return Ok(());
        };
        let ofs = first
            .checked_mul(self.block_size)
            .and_then(|o| o.checked_add(self.data_ofs))
            .ok_or("block beyond end of file")?;
        let mut bytes = vec![0u8; run.len() * self.block_size];
        data.read_at(ofs, &mut bytes)?;
        for (k, (block, skip, out)) in run.into_iter().enumerate() {
            let src = &bytes[k * self.block_size..(k + 1) * self.block_size];
            self.decode_block(src, block, skip, out)?;
        }
        Ok(())
    }

    /// Decodes `out.len()` values of block `block`, whose compressed bytes
    /// are `src`, starting with its value number `skip`.
    fn decode_block<T: SweepValue>(
        &self,
        src: &[u8],
        block: usize,
        skip: usize,
        out: &mut [T],
    ) -> Result<(), Corrupt> {
        match &self.expansion {
            Expansion::Narrow(e) => self.decode_block_with(e, src, block, skip, out),
            Expansion::Wide(e) => self.decode_block_with(e, src, block, skip, out),
        }
    }

    /// [`Compressed::decode_block`] with the expansion's values of type `E`.
    fn decode_block_with<T: SweepValue, E: Copy + Into<u16>>(
        &self,
        expansion: &[E],
        src: &[u8],
        block: usize,
        mut skip: usize,
        out: &mut [T],
    ) -> Result<(), Corrupt> {
        let mut bytes = [0u8; MAX_BLOCK_SIZE + 8];
        bytes[..self.block_size].copy_from_slice(src);

        let min_symlen = self.min_symlen;
        let budget = 8 * self.block_size as u64;
        let mut consumed = 0u64;
        let mut pos = 8;
        let mut buf = u64::from_be_bytes(bytes[0..8].try_into().unwrap_or_default());
        let mut buf_size = 64u32;
        let mut o = 0;

        while o < out.len() {
            let mut len = 0;
            // Terminates: the last base is 0.
            while buf < self.base[len] {
                len += 1;
            }
            let bits = len as u32 + min_symlen;
            let sym = ((buf - self.base[len]) >> (64 - bits)) as usize
                + usize::from(self.lowest_sym[len]);
            consumed += u64::from(bits);
            if consumed > budget {
                return Err(format!("block {block} overruns its size"));
            }
            let count = usize::from(*self.sym_count.get(sym).ok_or("symbol out of range")?);
            if skip >= count {
                skip -= count;
            } else {
                let s = self.sym_start[sym] as usize;
                let vals = &expansion[s + skip..s + count];
                let n = vals.len().min(out.len() - o);
                for (dst, &v) in out[o..o + n].iter_mut().zip(vals) {
                    *dst = T::from_raw(v.into());
                }
                o += n;
                skip = 0;
            }

            buf <<= bits;
            buf_size -= bits;
            if buf_size <= 32 {
                let next = bytes
                    .get(pos..pos + 4)
                    .ok_or_else(|| format!("block {block} overruns its size"))?;
                buf_size += 32;
                buf |= u64::from(u32::from_be_bytes([next[0], next[1], next[2], next[3]]))
                    << (64 - buf_size);
                pos += 4;
            }
        }
        Ok(())
    }
}
