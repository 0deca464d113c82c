//! The passes of the sweep over the scanned table, all in the index space
//! of its DTZ file:
//!
//! 1. **WDL**: every placement, both sides to move: legality, the stored
//!    WDL (from the WDL file, whose indices differ) made exact with the
//!    captures (into the closure's tables, in memory), checkmate, and
//!    whether a capture is a best move.
//! 2. **Stored side DTZ**: decoded from the DTZ file; zeroing best moves
//!    (winning captures and pawn moves) give 1 or 101 (shakmaty-syzygy's
//!    raw value, which may be rounded: "n or n+1").
//! 3. **Unstored side DTZ**: shakmaty-syzygy's one-ply search over the
//!    stored side's raw values, in memory, only where the position is
//!    decisive (rounded where its best successor is).
//! 4. **Rounding**: a rounded value takes the parity a phase ending with
//!    the winner's move gives (odd for the winner to move, even for the
//!    loser) when the material forces it, as the probe engine does;
//!    otherwise it is settled by the probe engine's rule: a winner's
//!    "n or n+1" is n iff some move scores exactly n, a loser's is n+1 iff
//!    some move scores n+1. Successors are settled first, recursively, with
//!    a shared memo (the values are deterministic, so threads may race).
//!    The rule, not a min/max, is what the probe engine computes where the
//!    tables are locally inconsistent (a "don't care" DTZ for a pawn move
//!    that is illegal because the king is in check, for example).

use std::sync::atomic::{
    AtomicU8,
    Ordering::{Acquire, Relaxed, Release},
};

use rayon::prelude::*;
use shakmaty::Color;

#[path = "codes.rs"]
mod codes;
#[path = "settle.rs"]
mod settle;
#[path = "stored.rs"]
mod stored_pages;
#[path = "wdl_values.rs"]
mod wdl_pages;
#[path = "wdl_pass.rs"]
mod wdl_pass;

pub(crate) use codes::code_bytes;
use codes::Codes;
use stored_pages::StoredPages;

use super::{
    board::{Attacks, Kind, Mv, Pos},
    closure::{flip, CaptureRoute, Closure, RoutedMover, BLESSED, CURSED, DRAW, LOSS, WIN},
    first_error::FirstError,
    pages::{MAX_PAGE_BYTES, MIN_PAGE_BYTES, PAGE_LEN},
    plan::{plan_slices, slice_digits, OwnCost, PagedStored, SweepMemoryPlan},
    table_error, Progress,
};
use crate::{
    error::{Error, Result},
    model::dtz::{phase_parity_is_natural, RoundedDtz},
    tables::reader::{
        cidx, slot_map, Counts, Encoding, LeadWindow, Located, MoverIndex, TableLayout, Units, MAX,
    },
    tables::reader::{DtzValue, SweepTable, TableKind},
};

/// Illegal placement (the side not to move is in check).
pub(crate) const ILLEGAL: u8 = 0xff;
/// Code flag: a capture achieves the (decisive) result.
pub(crate) const ZB: u8 = 8;
/// Code flag: the side to move is checkmated.
pub(crate) const MATED: u8 = 16;
/// DTZ of a checkmated side to move (magnitude 0, class loss).
pub(crate) const DTZ_MATED: i16 = i16::MIN;

/// Code flag (passes 2 to 4): the raw DTZ was rounded ("n or n+1").
pub(crate) const ROUNDED: u8 = 0x20;
/// Code flag: the value is still the raw one, to be settled.
pub(crate) const PENDING: u8 = 0x40;
/// Code flag, meaningful once [`PENDING`] is clear: the exact DTZ is the
/// raw one plus a ply. Kept beside `PENDING` in one byte, so that one load
/// gives a consistent value while other threads settle it.
pub(crate) const PLUS: u8 = 0x80;

/// Memory a sweep takes besides its tables and arrays: the program, the
/// thread stacks and the allocator's slack (`scan KRBvKR` peaked 11 MB
/// above its arrays and files).
pub(crate) const PROCESS_BYTES: u64 = 64 << 20;

/// Indices per parallel work unit.
pub(crate) const CHUNK: usize = 1 << 15;

/// Pass 4 walks a block with the mover innermost where at least one value
/// in this many is to settle (see [`Sweep::settle_all`]).
const WALK_SETTLE_SHARE: usize = 16;

/// Whether a code's value is still the raw one, to be settled ([`ILLEGAL`]
/// has every bit set, [`PENDING`] too).
#[inline]
fn is_pending(code: u8) -> bool {
    code != ILLEGAL && code & PENDING != 0
}

/// Whether a code says the side to move is checkmated ([`ILLEGAL`] has
/// every bit set, [`MATED`] too).
#[inline]
fn is_mated(code: u8) -> bool {
    code != ILLEGAL && code & MATED != 0
}

/// The sign of a WDL code: +1 wins, -1 losses, 0 draws.
#[inline]
pub(crate) fn sign(w: u8) -> i32 {
    match w {
        LOSS | BLESSED => -1,
        CURSED | WIN => 1,
        _ => 0,
    }
}

/// The byte that holds the raw DTZ magnitude `m` (plies) of a decisive
/// position of WDL class `wdl`, on the stored (`half` 0, and symmetric
/// material) or unstored (1) side. One byte per index and side is what
/// lets a 6-piece pawnless table fit (KRN v KNN: 4 bytes per index in all,
/// where two i16 and a flag byte took 7).
///
/// The magnitudes a table can give are few, and their form is known:
/// - wins and losses, under 50 moves by definition: `m` itself;
/// - cursed wins and blessed losses on the stored side: 101 plus an even
///   number of plies (the format stores them in moves, and a zeroing move
///   scores 101);
/// - the same on the unstored side: one more than a stored value (102 plus
///   an even number), or 101 for a loser's zeroing move.
///
/// Anything else (a wrong parity, a value past 611 plies) is `None`, so a
/// table this does not cover fails loudly rather than miscounts. Syzygy's
/// 6-piece maps are bytes (v <= 255); KRN v KNN's longest, 485 plies past
/// its zeroing value of 101, needs v = 242.
pub(crate) fn encode_mag(half: usize, wdl: u8, m: i32) -> Option<u8> {
    let code = match (wdl, half) {
        (WIN | LOSS, _) => m,
        (_, 0) if m >= 101 && (m - 101) % 2 == 0 => (m - 101) / 2,
        (_, 1) if m == 101 => 0,
        (_, 1) if m >= 102 && m % 2 == 0 => (m - 100) / 2,
        _ => return None,
    };
    u8::try_from(code).ok()
}

/// The raw DTZ magnitude a byte of [`encode_mag`] holds.
#[inline]
pub(crate) fn decode_mag(half: usize, wdl: u8, code: u8) -> i32 {
    let b = i32::from(code);
    match (wdl, half) {
        (WIN | LOSS, _) => b,
        (_, 0) => 101 + 2 * b,
        (_, _) if b == 0 => 101,
        _ => 100 + 2 * b,
    }
}

/// The error of a raw DTZ `v` that [`encode_mag`] cannot hold, for side
/// `half` of an index whose code is `code`. Out of line: pass 2 checks
/// every value, and the check stays small.
#[cold]
#[inline(never)]
fn mag_out_of_range(half: usize, code: u8, v: i16) -> Error {
    Error::inconsistent(
        "the sweep",
        format!(
            "raw DTZ {v} of WDL class {} ({} side) out of the sweep's range",
            code & 7,
            if half == 0 { "stored" } else { "unstored" }
        ),
    )
}

/// DTZ of a zeroing best move for a decisive class.
#[inline]
fn zero_score(w: u8) -> i16 {
    match w {
        WIN => 1,
        LOSS => -1,
        CURSED => 101,
        _ => -101,
    }
}

/// One sub-table of the DTZ file, with the WDL sub-tables that hold the
/// same placements.
pub(crate) struct Block {
    /// Sub-table number in the DTZ codec.
    pub(crate) sub: usize,
    /// The side to move the DTZ file stores here.
    pub(crate) side: Color,
    /// First global index.
    pub(crate) base: usize,
    /// Number of indices.
    pub(crate) len: usize,
    /// For the stored (0) and unstored (1) side to move: the WDL sub-table
    /// and, per WDL slot, the DTZ slot of the same piece. `None` for
    /// symmetric material (looked up the general way).
    wdl_perm: [Option<(usize, [u8; MAX])>; 2],
    /// Whether the WDL sub-table of that side encodes exactly as this DTZ
    /// sub-table (same pieces, same order): then a placement's WDL index
    /// is its DTZ index, and pass 1 need not encode it again.
    same_index: [bool; 2],
    /// Per captured slot: where a capture without promotion leads.
    routes: Vec<Option<CaptureRoute>>,
    /// Where both sides' WDL sub-tables need an encoding and share their
    /// leading group: per slot of the unstored side's WDL order, the slot
    /// of the stored side's WDL order holding the same square, so that
    /// one canonicalisation and one leading digit serve both.
    shared_lead: Option<[u8; MAX]>,
    /// Where pass 1 can walk the block with one piece innermost and find
    /// the placements' indices without encoding them (see
    /// [`crate::tables::reader::Encoding::mover`]).
    mover: Option<Mover>,
}

/// What the passes take together (see [`Sweep::chunks`]): a range of
/// blocks, or a slice of one block, the placements whose leading pawns
/// have digits in a range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chunk {
    /// The blocks (one, for a slice).
    pub(crate) blocks: std::ops::Range<usize>,
    /// The slice's leading-pawn digits; `None`: the whole blocks.
    pub(crate) lead_digits: Option<std::ops::Range<u64>>,
}

/// A slice of one block as [`Sweep::open_window`] opened it: where its
/// local indices lie in the block's DTZ sub-table and in each side's WDL
/// sub-table, whose indices the files are decoded by.
struct Slice {
    /// The block.
    block: usize,
    /// The slice in the DTZ sub-table.
    dtz: LeadWindow,
    /// For the stored (0) and unstored (1) side to move: the WDL
    /// sub-table and the slice in it.
    wdl: [Option<(usize, LeadWindow)>; 2],
}

/// What pass 1 keeps of one capture (by one slot of another) for a run of
/// the mover.
#[derive(Clone, Copy)]
enum CaptureMemo {
    /// The mover takes: the same position after it all run long.
    Value(u8),
    /// The index after the capture as a function of the mover's square.
    Moving(RoutedMover),
    /// Worked out per placement.
    General,
}

/// The piece pass 1 moves innermost in a block: its slot in the DTZ order
/// and in each side's WDL order (stored side first).
#[derive(Clone, Copy)]
struct Mover {
    dtz_slot: usize,
    wdl_slot: [usize; 2],
    /// The DTZ sub-table's work units for the walk with this piece
    /// innermost ([`crate::tables::reader::Encoding::mover_units`]).
    units: Units,
}

/// Per slot and destination of a quiet move: the run of the mover it was
/// worked out in, and the successor's index as a function of the mover's
/// square (`None`: no index). Shared by the units one thread walks.
struct SuccessorMemo(Box<[(u64, Option<MoverIndex>)]>);

impl SuccessorMemo {
    fn new() -> SuccessorMemo {
        SuccessorMemo(vec![(0, None); MAX * 64].into_boxed_slice())
    }
}

/// One placement of a walk with the mover innermost, and what its run
/// knows of the indices (see [`Sweep::walk_runs`]).
struct Run<'a> {
    codec: &'a Encoding,
    /// The mover's slot.
    slot: usize,
    /// The placement as the run began (the mover's square aside).
    squares: [u8; MAX],
    /// The mover's square.
    at: u8,
    /// The run's local indices by the mover's square.
    here: [u64; 64],
    /// The run's number.
    id: u64,
    memo: &'a mut SuccessorMemo,
}

impl Run<'_> {
    /// The local index after quiet move `m` (same block).
    #[inline]
    fn successor(&mut self, m: Mv) -> Result<u64> {
        if usize::from(m.i) == self.slot {
            return Ok(self.here[usize::from(m.to)]);
        }
        let cell = &mut self.memo.0[usize::from(m.i) * 64 + usize::from(m.to)];
        if cell.0 != self.id {
            let mut after = self.squares;
            after[usize::from(m.i)] = m.to;
            let n = self.codec.pieces.len();
            *cell = (self.id, self.codec.mover(&after[..n], self.slot));
        }
        // Not `MoverIndex::table`: a run asks a few of its squares only
        // (pass 4 asks only where a value is pending).
        Ok(cell.1.ok_or_else(no_successor)?.index(self.at))
    }
}

/// The error of a successor without an index.
fn no_successor() -> Error {
    Error::inconsistent("the sweep", "successor without a DTZ index")
}

/// The scanned table in memory.
pub(crate) struct Sweep {
    /// Symmetric material: only White to move is stored, no unstored side.
    pub(crate) symmetric: bool,
    /// Piece counts in the file's frame.
    pub(crate) counts: Counts,
    dtz_file: SweepTable,
    /// Encodings of the DTZ file.
    pub(crate) dtz: TableLayout,
    wdl_file: SweepTable,
    wdl: TableLayout,
    closure: Closure,
    /// The DTZ file's sub-tables.
    pub(crate) blocks: Vec<Block>,
    block_of_sub: Vec<usize>,
    /// WDL codes per global index of the window, [`Sweep::code_halves`]
    /// each: stored side, then unstored side. From pass 2 on they also
    /// carry [`ROUNDED`], [`PENDING`] and [`PLUS`]. Packed where the plan
    /// says so ([`Sweep::hold`]).
    w: Codes,
    /// Whether the window's codes are packed (see
    /// [`SweepMemoryPlan::packed_codes`]); set by [`Sweep::hold`].
    packed_codes: bool,
    /// The chunk of blocks whose values `w` and `mag` hold (see
    /// [`Sweep::chunks`]); the passes work on its blocks.
    chunk: std::ops::Range<usize>,
    /// Where the chunk is a slice of one block (its leading pawns' digits
    /// within a range), what [`Sweep::open_window`] changed for it: `dtz`
    /// and `wdl` then hold the slice's encodings, and the block its length
    /// (local indices count within the slice).
    slice: Option<Slice>,
    /// The DTZ and WDL layouts of the whole table, which `dtz` and `wdl`
    /// are again between slices.
    whole_layouts: (TableLayout, TableLayout),
    /// Leading-pawn digits per slice (0: the chunks are whole blocks); set
    /// by [`Sweep::hold`] as planned.
    lead_digits: u64,
    /// The global index of `w[0]` and `mag[_][0]`.
    window_start: usize,
    /// Per global index of the window, stored side (0) and unstored side
    /// (1, empty for symmetric material): shakmaty-syzygy's raw DTZ
    /// magnitude as [`encode_mag`] holds it. Written once (passes 2 and
    /// 3); settling sets [`PLUS`] in the code instead.
    mag: [Vec<AtomicU8>; 2],
    /// Whether the material forces natural DTZ parity with a loser of
    /// each colour (file frame).
    natural: [bool; 2],
    /// Whether `mag[1]` is left empty and the unstored side's raw DTZ is
    /// worked out again where read (see
    /// [`SweepMemoryPlan::recomputes_unstored`]); set by [`Sweep::hold`].
    recompute_unstored: bool,
    /// Where `mag[0]` is left empty, the pages the stored side's raw DTZ
    /// is decoded into where read (see
    /// [`SweepMemoryPlan::stored_page_bytes`]); set by [`Sweep::hold`].
    stored_pages: Option<StoredPages>,
    /// The budget of pass 1's pages of the WDL file's values (0: pass 1
    /// holds them; see [`SweepMemoryPlan::wdl_page_bytes`]).
    wdl_page_bytes: u64,
    /// Indices per page of pass 1's WDL pages.
    wdl_page_len: u64,
    /// The first error of a count's recomputed value (see
    /// [`Sweep::value_counted`]).
    count_failed: FirstError,
}

/// Stored values of the WDL file, per side to move a range of its
/// indices (see [`Sweep::raw_wdl`]): a byte each, or, `PACKED`, two to a
/// byte where pass 1 holds both sides' of a block beside its codes (a
/// stored WDL value is at most 4), so that pass 1 takes no more room than
/// the later passes. A symmetric table's pass 1 holds one side's values of
/// the whole file, which its later passes' DTZ bytes match anyway, and a
/// byte each is quicker to read. A parameter of the type, not a field, so
/// that each pass 1 compiles with its own reads and no test between.
struct RawWdl<const PACKED: bool> {
    /// Per side, index `i` of the range in byte `i`, or, packed, in the low
    /// half of byte `i / 2` for even `i` and the high half for odd.
    vals: [Vec<u8>; 2],
    /// Per side, the index of the range's first value.
    start: [u64; 2],
}

/// Where pass 1 reads the WDL file's stored values: held for a range
/// ([`RawWdl`]) or page by page ([`wdl_pages::PagedWdl`]). A parameter of
/// pass 1's functions, so that each source compiles with its own reads.
trait StoredWdlValues: Sync {
    /// The stored value of WDL index `idx` for `side` (a read that fails
    /// gives 0, its error kept for after the pass).
    fn get(&self, side: Color, idx: u64) -> u8;

    /// The first error a read met, if any.
    ///
    /// # Errors
    ///
    /// That error: what was read since is void.
    fn failure(&self) -> Result<()> {
        Ok(())
    }
}

impl<const PACKED: bool> StoredWdlValues for RawWdl<PACKED> {
    /// The stored value of WDL index `idx` (in the range held) for `side`.
    #[inline]
    fn get(&self, side: Color, idx: u64) -> u8 {
        let c = cidx(side);
        let i = (idx - self.start[c]) as usize;
        if PACKED {
            (self.vals[c][i / 2] >> ((i & 1) * 4)) & RAW_WDL_MAX
        } else {
            self.vals[c][i]
        }
    }
}

/// Two values of at most [`RAW_WDL_MAX`] to a byte, `values[0]` low (see
/// [`RawWdl`]); `None` for a larger value.
fn pack_nibbles(values: &[u8], out: &mut [u8]) -> Option<()> {
    const BYTES: usize = 1 << 14;
    out.par_chunks_mut(BYTES)
        .zip(values.par_chunks(2 * BYTES))
        .try_for_each(|(out, values)| {
            for (byte, pair) in out.iter_mut().zip(values.chunks(2)) {
                let low = pair[0];
                let high = pair.get(1).copied().unwrap_or(0);
                if low > RAW_WDL_MAX || high > RAW_WDL_MAX {
                    return None;
                }
                *byte = low | (high << 4);
            }
            Some(())
        })
}

/// The largest stored WDL value half a byte holds: Syzygy's five are 0
/// to 4, so a larger one is damage.
const RAW_WDL_MAX: u8 = 0x0f;

/// The bytes per index of an asymmetric table swept with its unstored
/// side's DTZ worked out where read ([`Sweep::hold`]): the two WDL codes
/// and the stored side's DTZ byte, as pass 1's codes and packed WDL
/// values take. Pawn tables are cut by their pawns instead (`None`).
pub(crate) fn lean_per_index(has_pawns: bool) -> Option<u64> {
    (!has_pawns).then_some(3)
}

/// What a symmetric table takes with its stored DTZ paged (see
/// [`OwnCost::paged_stored`]) besides its code per index, `fixed` bytes
/// apart, where its WDL file holds `values` indices per side to move, each
/// way it can be swept so.
///
/// Three ways, the quicker first: pass 1 packs the file's values two to a
/// byte, and the later passes' pages may take as much (within the pages'
/// least and most); or, where that does not fit either, pass 1 reads the
/// WDL values page by page too, each within [`LEAST_PAGED_BYTES`]; or,
/// where that does not fit either, the codes are packed too.
pub(crate) fn symmetric_paged_stored(fixed: u64, values: [u64; 2]) -> Vec<PagedStored> {
    let packed = values[0].div_ceil(2) + values[1].div_ceil(2);
    let page_bytes = packed.clamp(MIN_PAGE_BYTES, MAX_PAGE_BYTES);
    let both_paged = |packed_codes| PagedStored {
        fixed: fixed.saturating_add(LEAST_PAGED_BYTES),
        codes_per_index: 1,
        packed_codes,
        recomputes_unstored: false,
        page_bytes: LEAST_PAGED_BYTES,
        wdl_page_bytes: LEAST_PAGED_BYTES,
    };
    vec![
        PagedStored {
            fixed: fixed.saturating_add(packed.max(page_bytes)),
            codes_per_index: 1,
            packed_codes: false,
            recomputes_unstored: false,
            page_bytes,
            wdl_page_bytes: 0,
        },
        both_paged(false),
        both_paged(true),
    ]
}

/// What a pawnless table without symmetry takes where even its lean sweep
/// ([`lean_per_index`]) does not fit, `fixed` bytes apart: its unstored
/// side's DTZ worked out where read, its stored side's decoded page by
/// page where read, pass 1's WDL values read page by page, each within
/// [`LEAST_PAGED_BYTES`], and its two codes per index a byte each or, where
/// that does not fit either, packed. None for a pawn table (`has_pawns`):
/// it is cut by its pawns instead.
pub(crate) fn asymmetric_paged_stored(has_pawns: bool, fixed: u64) -> Vec<PagedStored> {
    if has_pawns {
        return Vec::new();
    }
    [false, true]
        .map(|packed_codes| PagedStored {
            fixed: fixed.saturating_add(LEAST_PAGED_BYTES),
            codes_per_index: 2,
            packed_codes,
            recomputes_unstored: true,
            page_bytes: LEAST_PAGED_BYTES,
            wdl_page_bytes: LEAST_PAGED_BYTES,
        })
        .to_vec()
}

/// The budget of the stored DTZ's pages, and of pass 1's WDL pages, where
/// both are paged: pass 1's pages go before the later passes' come, so
/// they share the room. A few pages per lock shard, for each thread's
/// neighbourhood of the king placements it walks.
pub(crate) const LEAST_PAGED_BYTES: u64 = 2 * MIN_PAGE_BYTES;

/// Whether every phase of this material, with `loser` losing, must end
/// with the winner's move ([`crate::model::dtz::phase_parity_is_natural`]).
pub(crate) fn natural_parity(counts: &Counts, loser: Color) -> bool {
    phase_parity_is_natural(&counts[cidx(loser)], &counts[cidx(!loser)])
}

impl Sweep {
    /// Sets up the sweep of one table.
    ///
    /// # Errors
    ///
    /// Unreadable tables, or encodings this engine does not know.
    pub(crate) fn new(
        wdl_file: SweepTable,
        dtz_file: SweepTable,
        closure: Closure,
    ) -> Result<Sweep> {
        let bad = |what: &str, detail: &str| Error::Table {
            what: what.to_owned(),
            detail: detail.to_owned(),
        };
        let wdl = wdl_file.layout().clone();
        let dtz = dtz_file.layout().clone();
        let counts = dtz.counts();
        let symmetric = wdl.symmetric;
        let mut blocks = Vec::new();
        let mut block_of_sub = vec![usize::MAX; dtz.subs.len()];
        let mut base = 0usize;
        for (k, info) in dtz.subs.iter().enumerate() {
            let len = info.encoding.size as usize;
            let mut wdl_perm = [None, None];
            let mut same_index = [false, false];
            // A symmetric material's files store one side to move, and
            // pass 1 asks only for it (half 0): read it by index where the
            // WDL file has its sub-table, as for other materials, instead
            // of locating every placement in the whole file.
            let halves = if symmetric { 1 } else { 2 };
            for (half, turn) in [info.side, !info.side].into_iter().enumerate().take(halves) {
                let ws = match wdl.sub_of(info.file, turn) {
                    Some(ws) => ws,
                    None if symmetric => continue,
                    None => {
                        return Err(bad(
                            wdl_file.material(),
                            "WDL file lacks a side the DTZ file has",
                        ))
                    }
                };
                let wp = &wdl.subs[ws].encoding.pieces;
                let dp = &info.encoding.pieces;
                // The leading pawn stays first.
                let perm = slot_map(wp, dp, dtz.has_pawns.then_some(0))
                    .ok_or_else(|| bad(wdl_file.material(), "piece lists differ"))?;
                let identity = perm[..dp.len()]
                    .iter()
                    .enumerate()
                    .all(|(slot, &d)| usize::from(d) == slot);
                same_index[half] = identity && wdl.subs[ws].encoding == info.encoding;
                wdl_perm[half] = Some((ws, perm));
            }
            let shared_lead = match &wdl_perm {
                [Some((w0, p0)), Some((w1, p1))] if !same_index[0] && !same_index[1] => {
                    let (c0, c1) = (&wdl.subs[*w0].encoding, &wdl.subs[*w1].encoding);
                    let n = c0.pieces.len();
                    let lead = c0.lead_len();
                    // The DTZ slot p1[t] sits at slot map[t] of the
                    // stored side's WDL order.
                    let mut map = [0u8; MAX];
                    let mut found = true;
                    for t in 0..n {
                        match p0[..n].iter().position(|&d| d == p1[t]) {
                            Some(u) => map[t] = u as u8,
                            None => found = false,
                        }
                    }
                    (found && c0.same_lead(c1) && p0[..lead] == p1[..lead]).then_some(map)
                }
                _ => None,
            };
            // A symmetric table's pass 1 reads one side (half 0), so its
            // mover needs only that side's WDL sub-table (`walk_unit_mover`
            // reads half 1 from the same); passes 3 and 4 do not walk it.
            let halves_read = match &wdl_perm {
                [Some(w0), None] if symmetric => Some([w0, w0]),
                [Some(w0), Some(w1)] => Some([w0, w1]),
                _ => None,
            };
            let mover = match halves_read {
                Some([(w0, p0), (w1, p1)]) => {
                    let n = info.encoding.pieces.len();
                    let wdl_slot = |perm: &[u8; MAX], d: usize| {
                        perm[..n].iter().position(|&x| usize::from(x) == d)
                    };
                    (0..n).find_map(|d| {
                        let slots = [wdl_slot(p0, d)?, wdl_slot(p1, d)?];
                        let units = info.encoding.mover_units(d)?;
                        let ok = wdl.subs[*w0].encoding.can_move(slots[0])
                            && wdl.subs[*w1].encoding.can_move(slots[1]);
                        ok.then_some(Mover {
                            dtz_slot: d,
                            wdl_slot: slots,
                            units,
                        })
                    })
                }
                _ => None,
            };
            block_of_sub[k] = blocks.len();
            let pieces = &info.encoding.pieces;
            blocks.push(Block {
                sub: k,
                side: info.side,
                base,
                len,
                wdl_perm,
                same_index,
                shared_lead,
                mover,
                routes: (0..pieces.len())
                    .map(|c| closure.route(pieces, c))
                    .collect(),
            });
            base += len;
        }
        let natural = [
            natural_parity(&counts, Color::White),
            natural_parity(&counts, Color::Black),
        ];
        let (dtz_layout_whole, wdl_layout_whole) = (dtz.clone(), wdl.clone());
        Ok(Sweep {
            symmetric,
            counts,
            dtz_file,
            dtz,
            wdl_file,
            wdl,
            closure,
            blocks,
            block_of_sub,
            w: Codes::empty(),
            packed_codes: false,
            chunk: 0..0,
            slice: None,
            whole_layouts: (dtz_layout_whole, wdl_layout_whole),
            lead_digits: 0,
            window_start: 0,
            mag: [Vec::new(), Vec::new()],
            natural,
            recompute_unstored: false,
            stored_pages: None,
            wdl_page_bytes: 0,
            wdl_page_len: PAGE_LEN,
            count_failed: FirstError::default(),
        })
    }

    /// What the scanned table takes, for [`plan_slices`]: the program
    /// ([`PROCESS_BYTES`]) and the two files' parsed headers
    /// ([`SweepTable::header_bound`]) throughout, and per index of the
    /// chunk that takes most (see [`Sweep::chunks`]): 2 bytes for its WDL
    /// codes (1 for symmetric material: one side to move); during pass 1
    /// the WDL file's stored values that it reads (half a byte per index
    /// and side; for symmetric material the whole file, a byte per index);
    /// in the later passes 1 byte per index and side stored (the raw DTZ
    /// magnitudes, see [`encode_mag`]; one side for symmetric material).
    /// The files are read as decoded, not held.
    fn own_cost(&self) -> OwnCost {
        let fixed = (self.wdl_file.header_bound() + self.dtz_file.header_bound())
            .saturating_add(PROCESS_BYTES);
        let name = self.dtz_file.material().to_owned();
        let own_values =
            self.wdl_file.index_len(Color::White) + self.wdl_file.index_len(Color::Black);
        if self.symmetric {
            // One chunk: its codes (one side's, a byte per index), then
            // the larger of the whole WDL file's values and one side's DTZ
            // bytes.
            let n: u64 = self.blocks.iter().map(|b| self.whole_len(b)).sum();
            let values = [Color::White, Color::Black].map(|side| self.wdl_file.index_len(side));
            return OwnCost {
                fixed: fixed.saturating_add(own_values.max(n)),
                blocks: vec![(n, None)],
                per_index: 1,
                lean_per_index: None,
                paged_stored: symmetric_paged_stored(fixed, values),
                symmetric: true,
                own_values,
                own_headers: self.wdl_file.header_bound(),
                name,
            };
        }
        // A block's WDL sub-tables, one per side, have its indices.
        let blocks = self
            .blocks
            .iter()
            .map(|b| {
                let codec = &self.whole_layouts.0.subs[b.sub].encoding;
                let radix = self.dtz.has_pawns.then(|| codec.lead_place().1);
                (codec.size, radix)
            })
            .collect();
        OwnCost {
            fixed,
            blocks,
            per_index: 4,
            lean_per_index: lean_per_index(self.dtz.has_pawns),
            paged_stored: asymmetric_paged_stored(self.dtz.has_pawns, fixed),
            symmetric: false,
            own_values,
            own_headers: self.wdl_file.header_bound(),
            name,
        }
    }

    /// The sweep's memory under `limit`: the scanned table's
    /// ([`Sweep::own_cost`]) and the closure's as [`plan_slices`] plans
    /// them; and per closure table whether it is held whole (for
    /// [`Sweep::hold`]).
    pub(crate) fn memory_plan(&self, limit: Option<u64>) -> (SweepMemoryPlan, Vec<bool>) {
        plan_slices(&self.own_cost(), &self.closure.costs(), limit)
    }

    /// Holds the closure as planned (see [`Closure::hold`]), and the
    /// scanned table's slices; before any pass. Where the table is cut into
    /// slices of its leading pawns, a pawn move leaves its slice: the
    /// table's own WDL values are then read as a closure table's are (the
    /// last of `whole`).
    ///
    /// # Errors
    ///
    /// The WDL file cannot be opened again.
    pub(crate) fn hold(&mut self, plan: &SweepMemoryPlan, whole: &[bool]) -> Result<()> {
        let tables = self.closure.costs().len();
        self.closure
            .hold(&whole[..tables.min(whole.len())], plan.page_bytes);
        self.lead_digits = plan.lead_digits;
        self.recompute_unstored = plan.recomputes_unstored && !self.symmetric;
        self.stored_pages = (plan.stored_page_bytes > 0)
            .then(|| StoredPages::new(plan.stored_page_bytes, PAGE_LEN));
        self.wdl_page_bytes = plan.wdl_page_bytes;
        self.packed_codes = plan.packed_codes;
        if plan.lead_digits > 0 {
            let file =
                SweepTable::open(self.wdl_file.path(), TableKind::Wdl).map_err(table_error)?;
            let own_whole = whole.get(tables).copied().unwrap_or(false);
            self.closure.add_scanned(file, own_whole);
        }
        Ok(())
    }

    /// Whether the unstored side's DTZ is worked out again where read, not
    /// held (as [`Sweep::hold`] set it).
    #[cfg(test)]
    pub(crate) fn recomputes_unstored(&self) -> bool {
        self.recompute_unstored
    }

    /// Decodes the stored side's DTZ where read, in pages of `page_len`
    /// indices within `budget` bytes, instead of holding it: for tests,
    /// which force what the plan picks only for large tables, with pages
    /// small enough to be dropped and decoded again all the time.
    #[cfg(test)]
    pub(crate) fn page_stored_dtz(&mut self, budget: u64, page_len: u64) {
        self.stored_pages = Some(StoredPages::new(budget, page_len));
    }

    /// Has pass 1 of a symmetric table read the WDL file's values in pages
    /// of `page_len` within `budget` bytes, instead of holding them (for
    /// tests, as [`Sweep::page_stored_dtz`]).
    #[cfg(test)]
    pub(crate) fn page_wdl(&mut self, budget: u64, page_len: u64) {
        self.wdl_page_bytes = budget;
        self.wdl_page_len = page_len;
    }

    /// Packs the WDL codes five bits each (for tests, as
    /// [`Sweep::page_stored_dtz`]).
    #[cfg(test)]
    pub(crate) fn pack_codes(&mut self) {
        self.packed_codes = true;
    }

    /// Whether the stored side's DTZ is decoded page by page where read.
    fn pages_stored(&self) -> bool {
        self.stored_pages.is_some()
    }

    /// The indices of block `b` in the whole table, whether or not a
    /// slice of it is open.
    fn whole_len(&self, b: &Block) -> u64 {
        self.whole_layouts.0.subs[b.sub].encoding.size
    }

    /// Number of global indices.
    pub(crate) fn len(&self) -> usize {
        self.blocks.iter().map(|b| b.len).sum()
    }

    /// The placement of a local index of a block, in DTZ slot order.
    #[inline]
    pub(crate) fn pos_of(&self, b: &Block, local: usize) -> Pos {
        let codec = &self.dtz.subs[b.sub].encoding;
        let mut squares = [0u8; MAX];
        codec.decode(local as u64, &mut squares);
        Pos::new(&codec.pieces, &squares)
    }

    /// Calls `f(local index, position)` for every placement of one work
    /// unit of block `b` (see [`crate::tables::reader::Encoding::walk`]) and reports the unit's
    /// placements to `progress`. The position is built once per unit: the
    /// pieces stay, only the squares change.
    ///
    /// # Errors
    ///
    /// The first error `f` returns.
    pub(crate) fn walk_unit<E>(
        &self,
        b: &Block,
        units: Units,
        unit: u64,
        progress: &Progress,
        mut f: impl FnMut(usize, &Pos) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let codec = &self.dtz.subs[b.sub].encoding;
        let mut pos = Pos::new(&codec.pieces, &[0; MAX]);
        let mut n = 0;
        let walked = codec.walk(units, unit, |local, squares| {
            n += 1;
            pos.sq = *squares;
            f(local as usize, &pos)
        });
        progress.add(n);
        walked
    }

    /// Global index and half (0 stored, 1 unstored) of a located position.
    #[inline]
    fn global(&self, loc: Located, turn: Color) -> Option<(usize, usize)> {
        let k = self.block_of_sub[loc.sub];
        let b = &self.blocks[k];
        let mut local = loc.idx - self.whole_layouts.0.subs[loc.sub].start;
        if let Some(slice) = &self.slice {
            if slice.block != k {
                return None;
            }
            local = slice.dtz.local_index(local)?;
        }
        let half = usize::from(!self.symmetric && loc.side != turn);
        Some((b.base + local as usize, half))
    }

    /// Finds a position of this table (any slot order): its global index
    /// and half, if the window holds it.
    fn locate_main(&self, pos: &Pos, turn: Color) -> Result<Option<(usize, usize)>> {
        let (pairs, n) = pos.pair_array();
        self.locate_pieces(&pairs[..n], turn)
    }

    /// Finds a position given as its pieces on squares (any colour frame
    /// the table accepts): its global index and half, if the window holds
    /// it (the whole table's layout finds it, the slice's may not).
    fn locate_pieces(
        &self,
        pieces: &[(shakmaty::Piece, u8)],
        turn: Color,
    ) -> Result<Option<(usize, usize)>> {
        let loc = self
            .whole_layouts
            .0
            .locate(pieces, turn, true)
            .ok_or_else(|| {
                Error::inconsistent("the sweep", "position without an index in the DTZ file")
            })?;
        Ok(self
            .global(loc, turn)
            .filter(|(j, _)| self.span(&self.chunk).contains(j)))
    }

    /// The global index and half of a position given as its pieces on
    /// squares (any colour frame the table accepts) with `turn` to move,
    /// if the window holds it (`None` if another chunk does).
    ///
    /// # Errors
    ///
    /// A position without an index in the DTZ file.
    pub(crate) fn locate_in_window(
        &self,
        pieces: &[(shakmaty::Piece, u8)],
        turn: Color,
    ) -> Result<Option<(usize, usize)>> {
        self.locate_pieces(pieces, turn)
    }

    /// The WDL code of a legal position of this table (after pass 1): a
    /// successor of a position of the window, which the window holds too
    /// (see [`Sweep::chunks`]).
    fn main_wdl(&self, pos: &Pos, turn: Color) -> Result<u8> {
        let Some((j, half)) = self.locate_main(pos, turn)? else {
            // A pawn move out of a slice: read as the closure's tables are.
            if self.slice.is_some() {
                return self.closure.wdl(pos, turn);
            }
            return Err(Error::inconsistent(
                "the sweep",
                "a move that keeps the material left the chunk of its position",
            ));
        };
        let code = self.code(j, half);
        if code == ILLEGAL {
            return Err(Error::inconsistent(
                "the sweep",
                "a legal move led to an illegal position",
            ));
        }
        Ok(code & 7)
    }

    /// The WDL after a zeroing move into `after` (any table).
    fn wdl_after_zeroing(&self, after: &Pos, turn: Color, ep: Option<u8>) -> Result<u8> {
        let main = after.n as u32 == self.piece_count() && counts_match(after, &self.counts);
        let plain = |p: &Pos, t: Color| -> Result<u8> {
            if main {
                self.main_wdl(p, t)
            } else {
                self.closure.wdl(p, t)
            }
        };
        self.closure.wdl_with_ep(after, turn, ep, &plain)
    }

    fn piece_count(&self) -> u32 {
        self.counts.iter().flatten().map(|&n| u32::from(n)).sum()
    }

    /// Whether a winner (class `wdl`) has a pawn move (not a capture) that
    /// keeps its class: then it zeroes at once.
    fn pawn_win(&self, pos: &Pos, turn: Color, wdl: u8) -> Result<bool> {
        // Only the mover's own pawns push.
        if !pos.pc[..pos.n].contains(&turn.pawn()) {
            return Ok(false);
        }
        let mut found = false;
        let mut failure = None;
        pos.for_each_move(turn, Kind::Pushes, |m| {
            if found || failure.is_some() {
                return;
            }
            match self.wdl_after_zeroing(&pos.after(m), !turn, m.ep) {
                Ok(v) => found = flip(v) == wdl,
                Err(e) => failure = Some(e),
            }
        });
        match failure {
            Some(e) => Err(e),
            None => Ok(found),
        }
    }

    /// The WDL code (with flags) of a global index and side (0 stored, 1
    /// unstored, which symmetric material does not have).
    #[inline]
    pub(crate) fn code(&self, j: usize, half: usize) -> u8 {
        self.code_with(j, half, Relaxed)
    }

    /// [`Sweep::code`] loaded with ordering `order`.
    #[inline]
    fn code_with(&self, j: usize, half: usize, order: std::sync::atomic::Ordering) -> u8 {
        debug_assert!(half < self.code_halves());
        self.w.load(self.cell(j) * self.code_halves() + half, order)
    }

    /// Writes the code of global index `j` and side `half` (pass 1).
    #[inline]
    fn set_code(&self, j: usize, half: usize, code: u8) {
        self.w.store(self.cell(j) * self.code_halves() + half, code);
    }

    /// Sets the bits `set` of the code of global index `j` and side
    /// `half`, then clears `clear`, in one atomic update with `order`.
    #[inline]
    fn update_code(
        &self,
        j: usize,
        half: usize,
        set: u8,
        clear: u8,
        order: std::sync::atomic::Ordering,
    ) {
        let i = self.cell(j) * self.code_halves() + half;
        self.w.update(i, set, clear, order);
    }

    /// Whether every code the passes wrote was held (see [`Codes::check`]).
    ///
    /// # Errors
    ///
    /// A code the packed codes cannot hold was written.
    pub(crate) fn codes_held(&self) -> Result<()> {
        self.w.check()
    }

    /// How many WDL codes an index has: 1 for symmetric material (one
    /// side to move stored, the other its colour-flipped image), else 2
    /// (see [`Sweep::code`]).
    #[inline]
    pub(crate) fn code_halves(&self) -> usize {
        2 - usize::from(self.symmetric)
    }

    /// The raw DTZ magnitude of a global index and side whose code is
    /// `code`: 0 unless decisive and not checkmated. Where the unstored
    /// side's are not held, pass 3's search again (the same stored values
    /// and codes in, so the same magnitude out).
    ///
    /// # Errors
    ///
    /// Those of the search (which pass 3 has already met, if any).
    #[inline]
    fn raw(&self, half: usize, j: usize, code: u8) -> Result<i32> {
        // ILLEGAL's class bits (7) have sign 0.
        if is_mated(code) || sign(code & 7) == 0 {
            return Ok(0);
        }
        if half == 1 && self.recompute_unstored {
            return self.unstored_mag_again(j, code);
        }
        self.stored_mag(half, j, code)
    }

    /// The unstored side's raw magnitude at global index `j` (code
    /// `code`, decisive), by pass 3's search again. Kept out of line: most
    /// sweeps never take it, and [`Sweep::raw`] stays small where they
    /// read. (Not marked cold: a sweep that takes it takes it often.)
    #[inline(never)]
    fn unstored_mag_again(&self, j: usize, code: u8) -> Result<i32> {
        let (b, local) = self.block_at(j);
        let pos = self.pos_of(b, local);
        let succ = |m: Mv| self.quiet_succ(b, &pos, m, !b.side);
        let (v, _) = self.unstored_raw(b, &pos, code, succ)?;
        Ok(i32::from(v).abs())
    }

    /// [`Sweep::raw`] of a side whose magnitudes are held or paged (always
    /// the stored side's), for a decisive code.
    ///
    /// # Errors
    ///
    /// Those of a page's decoding (see [`Sweep::stored_mag_paged`]).
    #[inline]
    fn stored_mag(&self, half: usize, j: usize, code: u8) -> Result<i32> {
        // An array left empty is a paged one: one test for both the bound
        // and the paging, where the held arrays are read most.
        match self.mag[half].get(self.cell(j)) {
            Some(byte) => Ok(decode_mag(half, code & 7, byte.load(Relaxed))),
            None => self.stored_mag_paged(j, code),
        }
    }

    /// The DTZ of a global index and side whose code is `code` (one load:
    /// the [`PENDING`] and [`PLUS`] bits agree).
    ///
    /// # Errors
    ///
    /// As [`Sweep::raw`].
    #[inline]
    fn value_of(&self, half: usize, j: usize, code: u8) -> Result<i16> {
        if is_mated(code) {
            return Ok(DTZ_MATED);
        }
        let m = self.raw(half, j, code)?;
        let settled_up = code & (PENDING | PLUS) == PLUS;
        Ok((sign(code & 7) * (m + i32::from(settled_up))) as i16)
    }

    /// The DTZ of a global index and side (0 stored, 1 unstored): exact
    /// once settled.
    ///
    /// # Errors
    ///
    /// As [`Sweep::raw`].
    #[inline]
    pub(crate) fn value(&self, half: usize, j: usize) -> Result<i16> {
        self.value_of(half, j, self.code(j, half))
    }

    /// [`Sweep::value`] for the counting pass, whose loops stay free of
    /// errors (they are the sweep's hottest after pass 1): only a
    /// recomputed value can fail, which pass 3 has already computed once
    /// without failing; should it fail, the error is kept for
    /// [`Sweep::count_failure`] and 0 counted meanwhile.
    #[inline]
    pub(crate) fn value_counted(&self, half: usize, j: usize) -> i16 {
        self.value(half, j).unwrap_or_else(|e| {
            self.count_failed.keep(e);
            0
        })
    }

    /// The error a count met (see [`Sweep::value_counted`]), if any.
    ///
    /// # Errors
    ///
    /// That error: the count is void.
    pub(crate) fn count_failure(&self) -> Result<()> {
        self.count_failed.take()
    }

    /// Stores a raw DTZ of passes 2 and 3 (the index's own, written once).
    ///
    /// # Errors
    ///
    /// A value [`encode_mag`] cannot hold.
    #[inline]
    fn store_raw(&self, half: usize, j: usize, v: i16, rounded: bool) -> Result<()> {
        if v == 0 || v == DTZ_MATED {
            return Ok(());
        }
        let byte = self.mag_byte(half, j, v)?;
        // An array left empty is one not held (as in `stored_mag`).
        if let Some(cell) = self.mag[half].get(self.cell(j)) {
            cell.store(byte, Relaxed);
        }
        if rounded {
            self.update_code(j, half, ROUNDED | PENDING, 0, Relaxed);
        }
        Ok(())
    }

    /// The byte ([`encode_mag`]) of raw DTZ `v` at global index `j` and
    /// side `half` (0 for a draw or checkmate: never read).
    ///
    /// # Errors
    ///
    /// A value [`encode_mag`] cannot hold.
    #[inline]
    fn mag_byte(&self, half: usize, j: usize, v: i16) -> Result<u8> {
        if v == 0 || v == DTZ_MATED {
            return Ok(0);
        }
        let code = self.code(j, half);
        let m = i32::from(v).abs();
        match encode_mag(half, code & 7, m) {
            Some(byte) => Ok(byte),
            None => Err(mag_out_of_range(half, code, v)),
        }
    }

    /// The cell of global index `j` in the window's arrays. Every index the
    /// passes reach lies in the window: the chunk's own, and the
    /// successors of their moves that keep the material (see
    /// [`Sweep::chunks`]).
    #[inline]
    fn cell(&self, j: usize) -> usize {
        j - self.window_start
    }

    /// The chunks that the passes (1 to 4, and the counting) take
    /// together, so that only one chunk's WDL codes and DTZ values are in
    /// memory at a time. A quiet move moves no pawn, and a pawn push moves
    /// one along its file, so for asymmetric material the successor of a
    /// move that keeps the material stays in the block of its leading
    /// pawn's file (the same DTZ sub-table, other side to move): each block
    /// is a chunk. Where the plan cuts blocks into slices of their leading
    /// pawns (see [`Sweep::hold`]), a quiet move also keeps the slice, and
    /// only a pawn move leaves it. For symmetric material a successor is
    /// looked up colour-flipped, under the other colour's leading pawn, in
    /// any block: the whole table is one chunk.
    pub(crate) fn chunks(&self) -> Vec<Chunk> {
        let digits = self.lead_digits;
        let whole = |blocks: std::ops::Range<usize>| Chunk {
            blocks,
            lead_digits: None,
        };
        if self.symmetric {
            return vec![whole(0..self.blocks.len())];
        }
        let mut chunks = Vec::new();
        for (k, b) in self.blocks.iter().enumerate() {
            let radix = self.whole_layouts.0.subs[b.sub].encoding.lead_place().1;
            if digits == 0 || !self.dtz.has_pawns || digits >= radix {
                chunks.push(whole(k..k + 1));
                continue;
            }
            chunks.extend(slice_digits(radix, digits).into_iter().map(|d| Chunk {
                blocks: k..k + 1,
                lead_digits: Some(d),
            }));
        }
        chunks
    }

    /// The global indices of a chunk of blocks.
    fn span(&self, chunk: &std::ops::Range<usize>) -> std::ops::Range<usize> {
        let blocks = &self.blocks[chunk.clone()];
        let start = blocks.first().map_or(0, |b| b.base);
        let end = blocks.last().map_or(0, |b| b.base + b.len);
        start..end
    }

    /// Makes the WDL codes hold the chunk `chunk`, the one the passes then
    /// work on, each [`ILLEGAL`] until pass 1 (the previous chunk's codes
    /// and values are dropped first, so that two never coexist). For a
    /// slice, the block's DTZ and WDL sub-tables take the slice's
    /// encodings, and its length the slice's.
    ///
    /// # Errors
    ///
    /// A slice of a block whose WDL sub-tables do not share its leading
    /// pawns.
    pub(crate) fn open_window(&mut self, chunk: Chunk) -> Result<()> {
        self.w = Codes::empty();
        self.mag = [Vec::new(), Vec::new()];
        self.stored_pages = self.stored_pages.as_ref().map(StoredPages::emptied);
        if self.slice.take().is_some() {
            self.dtz = self.whole_layouts.0.clone();
            self.wdl = self.whole_layouts.1.clone();
            for b in &mut self.blocks {
                b.len = self.whole_layouts.0.subs[b.sub].encoding.size as usize;
            }
        }
        if let Some(digits) = chunk.lead_digits.clone() {
            self.slice = Some(self.cut(chunk.blocks.start, digits)?);
        }
        let span = self.span(&chunk.blocks);
        self.window_start = span.start;
        self.chunk = chunk.blocks;
        // Written out of index order (see `Encoding::walk`): atomics let
        // the units share the vector; relaxed stores are plain stores.
        self.w = Codes::new(span.len() * self.code_halves(), self.packed_codes);
        Ok(())
    }

    /// Cuts block `k` to the placements whose leading pawns have digits
    /// `digits`: its DTZ and WDL sub-tables take the slice's encodings.
    fn cut(&mut self, k: usize, digits: std::ops::Range<u64>) -> Result<Slice> {
        let sub = self.blocks[k].sub;
        let (enc, dtz) = self.whole_layouts.0.subs[sub]
            .encoding
            .window(digits.clone());
        let mut wdl = [None, None];
        for (half, perm) in self.blocks[k].wdl_perm.iter().enumerate() {
            let Some((ws, _)) = perm else { continue };
            let whole = &self.whole_layouts.1.subs[*ws].encoding;
            if !whole.same_lead(&enc) || whole.lead_place().1 != dtz.full_radix {
                return Err(Error::inconsistent(
                    "the sweep",
                    "a WDL sub-table without the leading pawns of its DTZ sub-table",
                ));
            }
            let (wenc, map) = whole.window(digits.clone());
            self.wdl.subs[*ws].encoding = wenc;
            wdl[half] = Some((*ws, map));
        }
        let b = &mut self.blocks[k];
        b.len = enc.size as usize;
        if let Some(m) = &mut b.mover {
            m.units = enc.mover_units(m.dtz_slot).ok_or_else(|| {
                Error::inconsistent("the sweep", "a slice without its mover's walk")
            })?;
        }
        self.dtz.subs[sub].encoding = enc;
        Ok(Slice { block: k, dtz, wdl })
    }

    /// Makes the DTZ arrays hold the window's chunk, zero, for the passes
    /// after pass 1 (whose WDL values are dropped by then).
    pub(crate) fn open_dtz(&mut self) {
        let n = self.span(&self.chunk).len();
        // Filled by all threads, as the codes.
        let zeros = |n: usize| (0..n).into_par_iter().map(|_| AtomicU8::new(0)).collect();
        // Symmetric material has no unstored side; where it is worked out
        // again as read, it is not held.
        let unstored = if self.symmetric || self.recompute_unstored {
            0
        } else {
            n
        };
        // Where paged, decoded from the file when first read.
        let stored = if self.pages_stored() { 0 } else { n };
        self.mag = [zeros(stored), zeros(unstored)];
    }

    /// How many global indices the window holds.
    pub(crate) fn window_len(&self) -> usize {
        self.span(&self.chunk).len()
    }

    /// The blocks of the chunk the window holds.
    pub(crate) fn chunk_blocks(&self) -> &[Block] {
        &self.blocks[self.chunk.clone()]
    }

    /// Pass 2: the stored side's raw DTZ (exact where not rounded), for
    /// the blocks of the window's chunk.
    pub(crate) fn pass_stored(&self, progress: &Progress) -> Result<()> {
        for b in self.chunk_blocks() {
            (0..b.len.div_ceil(CHUNK))
                .into_par_iter()
                .try_for_each(|c| -> Result<()> {
                    let first = c * CHUNK;
                    let last = (first + CHUNK).min(b.len);
                    self.stored_raws(b, first..last, |j, v, rounded| {
                        self.store_raw(0, j, v, rounded)
                    })?;
                    progress.add((last - first) as u64);
                    Ok(())
                })?;
        }
        Ok(())
    }

    /// Calls `f(global index, raw DTZ, whether rounded)` with
    /// shakmaty-syzygy's raw DTZ of the stored side at each local index of
    /// `range` of block `b` of the window, in order: the DTZ file's values,
    /// decoded, made exact where a zeroing move is best.
    ///
    /// # Errors
    ///
    /// The file cannot be decoded, or the first error of `f`.
    #[inline]
    fn stored_raws(
        &self,
        b: &Block,
        range: std::ops::Range<usize>,
        mut f: impl FnMut(usize, i16, bool) -> Result<()>,
    ) -> Result<()> {
        let start = self.dtz.subs[b.sub].start;
        let (first, last) = (range.start, range.end);
        let codes: Vec<u8> = (b.base + first..b.base + last)
            .map(|j| match self.code(j, 0) {
                ILLEGAL => DRAW,
                c => c & 7,
            })
            .collect();
        let mut vals = vec![DtzValue::default(); last - first];
        let local = first as u64..last as u64;
        let slice = self.slice.as_ref().map(|s| &s.dtz);
        decode_slice(slice, start, local, &mut vals, |range, out| {
            let mapped: Vec<u8>;
            let wdl = match slice {
                None => &codes,
                // Outside the slice, any WDL value does: what
                // is decoded there is dropped.
                Some(map) => {
                    mapped = (range.start - start..range.end - start)
                        .map(|full| {
                            map.local_index(full)
                                .map_or(DRAW, |l| codes[(l - first as u64) as usize])
                        })
                        .collect();
                    &mapped
                }
            };
            self.dtz_file
                .decode_dtz(b.side, range, wdl, out)
                .map_err(table_error)
        })?;
        for (k, raw) in vals.into_iter().enumerate() {
            let j = b.base + first + k;
            let (v, rounded) = self.stored_raw(b, first + k, self.code(j, 0), raw)?;
            f(j, v, rounded)?;
        }
        Ok(())
    }

    /// shakmaty-syzygy's raw DTZ of a stored index, and whether rounded.
    fn stored_raw(&self, b: &Block, local: usize, code: u8, raw: DtzValue) -> Result<(i16, bool)> {
        if let Some(raw) = fixed_raw(code) {
            return Ok(raw);
        }
        let wdl = code & 7;
        let s = sign(wdl);
        if s > 0 {
            if code & ZB != 0 {
                return Ok((zero_score(wdl), false));
            }
            // Decoded only where the side to move has a pawn to push.
            let pawns = self.dtz.subs[b.sub]
                .encoding
                .pieces
                .contains(&b.side.pawn());
            if pawns && self.pawn_win(&self.pos_of(b, local), b.side, wdl)? {
                return Ok((zero_score(wdl), false));
            }
        }
        Ok((raw.dtz as i16, raw.rounded))
    }

    /// The successor of a position of block `b` by quiet move `m` of
    /// `mover`: its global index and side (0 stored, 1 unstored).
    #[inline]
    fn quiet_succ(&self, b: &Block, pos: &Pos, m: Mv, mover: Color) -> Result<(usize, usize)> {
        if self.symmetric {
            return self.locate_main(&pos.after(m), !mover)?.ok_or_else(|| {
                Error::inconsistent("the sweep", "a quiet move left the chunk of its position")
            });
        }
        let codec = &self.dtz.subs[b.sub].encoding;
        // A quiet move captures nothing and promotes nothing: the slots
        // keep their pieces, one its square.
        let mut squares = pos.sq;
        squares[usize::from(m.i)] = m.to;
        let idx = codec
            .encode(&mut squares[..pos.n])
            .ok_or_else(|| Error::inconsistent("the sweep", "successor without a DTZ index"))?;
        Ok((b.base + idx as usize, usize::from(!mover != b.side)))
    }

    /// Pass 3: shakmaty-syzygy's raw DTZ of the side the DTZ file does not
    /// store: a one-ply search over the stored side's raw values, for the
    /// blocks of the window's chunk.
    pub(crate) fn pass_unstored(&self, progress: &Progress) -> Result<()> {
        if self.symmetric {
            return Ok(());
        }
        for b in self.chunk_blocks() {
            if let Some(mover) = b.mover {
                // No successor encoded per placement (see `walk_runs`).
                self.walk_runs(b, mover, progress, |j, pos, run| {
                    let code = self.code(j, 1);
                    if code == ILLEGAL || sign(code & 7) == 0 {
                        return Ok(());
                    }
                    // A quiet move leads to the stored side, in this block.
                    let succ = |m: Mv| Ok((b.base + run.successor(m)? as usize, 0));
                    let (v, rounded) = self.unstored_raw(b, pos, code, succ)?;
                    self.store_raw(1, j, v, rounded)
                })?;
                continue;
            }
            let units = self.dtz.subs[b.sub].encoding.units();
            (0..units.count).into_par_iter().try_for_each(|unit| {
                self.walk_unit(b, units, unit, progress, |local, pos| -> Result<()> {
                    let j = b.base + local;
                    let succ = |m: Mv| self.quiet_succ(b, pos, m, !b.side);
                    let (v, rounded) = self.unstored_raw(b, pos, self.code(j, 1), succ)?;
                    self.store_raw(1, j, v, rounded)
                })
            })?;
        }
        Ok(())
    }

    /// Calls `f(global index, position, run)` for every placement of block
    /// `b`, walked in parallel with the piece `mover` innermost (passes 3
    /// and 4); `run` gives the local index of a quiet move's successor
    /// without encoding it: a move of the mover leads to the index
    /// [`crate::tables::reader::Encoding::mover`] gives for the run, a move of
    /// another piece to one that a per-thread memo (per slot and
    /// destination) works out once per run. Reports the placements to
    /// `progress`.
    ///
    /// # Errors
    ///
    /// The first error `f` returns, or a placement without an index.
    fn walk_runs(
        &self,
        b: &Block,
        mover: Mover,
        progress: &Progress,
        f: impl Fn(usize, &Pos, &mut Run) -> Result<()> + Sync,
    ) -> Result<()> {
        (0..mover.units.count)
            .into_par_iter()
            .try_for_each_init(SuccessorMemo::new, |memo, unit| {
                self.walk_unit_runs(b, mover, unit, memo, progress, &f)
            })
    }

    /// [`Sweep::walk_runs`] on one work unit.
    fn walk_unit_runs(
        &self,
        b: &Block,
        mover: Mover,
        unit: u64,
        memo: &mut SuccessorMemo,
        progress: &Progress,
        f: &impl Fn(usize, &Pos, &mut Run) -> Result<()>,
    ) -> Result<()> {
        let codec = &self.dtz.subs[b.sub].encoding;
        let slot = mover.dtz_slot;
        let mut pos = Pos::new(&codec.pieces, &[0; MAX]);
        let mut run = Run {
            codec,
            slot,
            squares: [0; MAX],
            at: 0,
            here: [0; 64],
            // Runs are numbered from the unit's first index, so that a
            // memo entry of an earlier unit never passes for one of this
            // unit.
            id: unit * (1 << 32),
            memo,
        };
        let mut count = 0;
        let walked = codec.walk_mover(mover.units, unit, slot, |squares, fresh| {
            count += 1;
            if fresh {
                run.here = codec.mover(squares, slot).ok_or_else(no_successor)?.table();
                run.squares = *squares;
                pos.sq = *squares;
                run.id += 1;
            }
            let sq = squares[slot];
            run.at = sq;
            let j = b.base + run.here[usize::from(sq)] as usize;
            // As in pass 1: only the mover moved.
            pos.sq[slot] = sq;
            f(j, &pos, &mut run)
        });
        progress.add(count);
        walked
    }

    /// shakmaty-syzygy's raw DTZ of the unstored side to move in `pos`
    /// (WDL code `code`), and whether it is rounded; `succ` gives a quiet
    /// move's successor (global index, half).
    fn unstored_raw(
        &self,
        b: &Block,
        pos: &Pos,
        code: u8,
        mut succ: impl FnMut(Mv) -> Result<(usize, usize)>,
    ) -> Result<(i16, bool)> {
        if let Some(raw) = fixed_raw(code) {
            return Ok(raw);
        }
        let wdl = code & 7;
        let s = sign(wdl);
        let turn = !b.side;
        if s > 0 && code & ZB != 0 {
            return Ok((zero_score(wdl), false));
        }
        if s > 0 && self.pawn_win(pos, turn, wdl)? {
            return Ok((zero_score(wdl), false));
        }
        // Best (magnitude, rounded) so far; a loser can always zero.
        let mut best: Option<(i32, bool)> = if s < 0 {
            Some((if wdl == LOSS { 1 } else { 101 }, false))
        } else {
            None
        };
        let mut failure = None;
        pos.for_each_move(turn, Kind::Quiet, |m| {
            if failure.is_some() {
                return;
            }
            let (j2, half2) = match succ(m) {
                Ok(x) => x,
                Err(e) => {
                    failure = Some(e);
                    return;
                }
            };
            // Pass 4 has not begun: every value is the raw one.
            let code2 = self.code(j2, half2);
            // s is not 0 here, and ILLEGAL's class bits have sign 0.
            let cand = if is_mated(code2) {
                (1, false)
            } else if sign(code2 & 7) == -s {
                // A quiet move of the unstored side leads to the stored
                // side (`half2` is 0), whose magnitudes are held.
                match self.stored_mag(half2, j2, code2) {
                    Ok(m) => (m + 1, code2 & ROUNDED != 0),
                    Err(e) => {
                        failure = Some(e);
                        return;
                    }
                }
            } else {
                return;
            };
            best = Some(match best {
                None => cand,
                // The winner takes the shortest, the loser the longest; on
                // a tie the rounded value (it may be one ply longer).
                Some(x) if (s > 0 && cand.0 < x.0) || (s < 0 && cand.0 > x.0) => cand,
                Some(x) if cand.0 == x.0 && cand.1 => cand,
                Some(x) => x,
            });
        });
        if let Some(e) = failure {
            return Err(e);
        }
        let (mag, rounded) = best.ok_or_else(|| {
            Error::inconsistent(
                "the sweep",
                "a won position has no move that keeps the win; tables inconsistent",
            )
        })?;
        Ok(((s * mag) as i16, rounded))
    }

    /// The block and local index of a global index.
    pub(crate) fn block_at(&self, j: usize) -> (&Block, usize) {
        let b = &self.blocks[self.block_index_at(j)];
        (b, j - b.base)
    }

    /// The number of the block of a global index.
    fn block_index_at(&self, j: usize) -> usize {
        self.blocks.partition_point(|b| b.base + b.len <= j)
    }
}

/// The raw DTZ (and whether rounded) of a code whose value needs neither
/// the table nor a search: 0 for illegal placements and draws,
/// [`DTZ_MATED`] for checkmate. `None` for the other decisive codes.
#[inline]
fn fixed_raw(code: u8) -> Option<(i16, bool)> {
    if code == ILLEGAL {
        return Some((0, false));
    }
    if code & MATED != 0 {
        return Some((DTZ_MATED, false));
    }
    (sign(code & 7) == 0).then_some((0, false))
}

/// Decoded run by run where a slice's runs are at least this long: a
/// decode starts at the beginning of its compressed block, so runs of a
/// few values each would decode their blocks over and over.
const SHORT_RUN: u64 = 1 << 12;

/// The most indices decoded at once to gather a slice's short runs.
const GATHER_SPAN: u64 = 1 << 20;

/// Fills `out` with the values of the local indices `local` of a slice
/// (`map`; `None`: the whole sub-table) of a sub-table that starts at
/// index `start` of its file, through `decode(file range, values)`, which
/// decodes a range of the file's indices (the slice's runs, or spans of
/// the sub-table from which the slice's values are gathered).
///
/// # Errors
///
/// Those of `decode`.
pub(crate) fn decode_slice<T: Copy + Default>(
    map: Option<&LeadWindow>,
    start: u64,
    local: std::ops::Range<u64>,
    out: &mut [T],
    mut decode: impl FnMut(std::ops::Range<u64>, &mut [T]) -> Result<()>,
) -> Result<()> {
    let Some(map) = map else {
        return decode(start + local.start..start + local.end, out);
    };
    let mut at = local.start;
    let mut span = Vec::new();
    while at < local.end {
        let run = map.run_from(at, local.end - at);
        let first = map.full_index(at);
        let off = (at - local.start) as usize;
        if run >= SHORT_RUN {
            let range = start + first..start + first + run;
            decode(range, &mut out[off..off + run as usize])?;
            at += run;
            continue;
        }
        // Runs up to a span's end, at least one.
        let mut end = at + run;
        while end < local.end {
            let next = map.run_from(end, local.end - end);
            if map.full_index(end + next - 1) + 1 - first > GATHER_SPAN {
                break;
            }
            end += next;
        }
        let last = map.full_index(end - 1) + 1;
        span.clear();
        span.resize((last - first) as usize, T::default());
        decode(start + first..start + last, &mut span)?;
        for l in at..end {
            out[(l - local.start) as usize] = span[(map.full_index(l) - first) as usize];
        }
        at = end;
    }
    Ok(())
}

/// Whether a position has exactly the material `counts` (either colour
/// orientation).
fn counts_match(pos: &Pos, counts: &Counts) -> bool {
    let c = crate::tables::reader::counts_of(pos.pc[..pos.n].iter().copied());
    c == *counts || c == [counts[1], counts[0]]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every magnitude a table can give, by class and side, as the
    /// reader's decoding makes them (see `encode_mag`): 1 + plies or
    /// 1 + 2 x moves for wins and losses, 101 + 2 x moves for the stored
    /// side's cursed and blessed values, one more (or a loser's 101) on
    /// the unstored side.
    #[test]
    fn every_reachable_magnitude_round_trips_through_its_byte() {
        for half in 0..2 {
            for wdl in [WIN, LOSS] {
                for m in 0..=255 {
                    let byte = encode_mag(half, wdl, m).expect("a win or loss under 256 plies");
                    assert_eq!(decode_mag(half, wdl, byte), m);
                }
                assert_eq!(encode_mag(half, wdl, 256), None);
            }
        }
        for wdl in [CURSED, BLESSED] {
            for moves in 0..=255 {
                let m = 101 + 2 * moves;
                let byte = encode_mag(0, wdl, m).expect("a stored cursed value");
                assert_eq!(decode_mag(0, wdl, byte), m);
            }
            let mut unstored = vec![101];
            unstored.extend((0..=254).map(|moves| 102 + 2 * moves));
            for m in unstored {
                let byte = encode_mag(1, wdl, m).expect("an unstored cursed value");
                assert_eq!(decode_mag(1, wdl, byte), m);
            }
        }
    }

    #[test]
    fn magnitudes_outside_the_forms_are_refused() {
        for wdl in [CURSED, BLESSED] {
            // Stored: even, under 101, or past 101 + 2 x 255 plies.
            for m in [0, 100, 102, 610, 613, 1033] {
                assert_eq!(encode_mag(0, wdl, m), None, "stored {m}");
            }
            // Unstored: odd past 101, under 101, or past 100 + 2 x 255.
            for m in [0, 100, 103, 611, 612, 1034] {
                assert_eq!(encode_mag(1, wdl, m), None, "unstored {m}");
            }
        }
    }

    #[test]
    fn no_code_with_flags_passes_for_illegal() {
        let flags = [ZB, MATED, ROUNDED, PENDING, PLUS];
        for class in [LOSS, BLESSED, DRAW, CURSED, WIN] {
            for subset in 0..1u32 << flags.len() {
                let code = flags
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| subset & 1 << k != 0)
                    .fold(class, |c, (_, f)| c | f);
                assert_ne!(code, ILLEGAL);
                assert_eq!(code & 7, class);
                assert_eq!(is_pending(code), code & PENDING != 0);
                assert_eq!(is_mated(code), code & MATED != 0);
            }
        }
        assert!(!is_pending(ILLEGAL));
        assert!(!is_mated(ILLEGAL));
        assert_eq!(sign(ILLEGAL & 7), 0);
    }
}
