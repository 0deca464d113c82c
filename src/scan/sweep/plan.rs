//! A sweep's memory under a limit, as a value that builds the sweep's
//! storage ([`SweepMemoryPlan`]): what the scanned table takes, each of its
//! arrays held in the form a [`Storage`] names (one enum per choice: the
//! codes, pass 1's WDL values, each side's DTZ bytes) and its files cut or
//! not; and how the closure is held: each table whole while they fit, the
//! others page by page within one budget ([`super::pages`]).

use super::{
    codes::CodeForm,
    dtz_bytes::{StoredDtz, UnstoredDtz},
    pages::{Paging, MAX_PAGE_BYTES, MIN_PAGE_BYTES},
    wdl_values::WdlValues,
};

/// Memory a sweep takes besides its tables and arrays: the program, the
/// thread stacks and the allocator's slack (`scan KRBvKR` peaked 11 MB
/// above its arrays and files).
pub(crate) const PROCESS_BYTES: u64 = 64 << 20;

/// What a sweep of one material takes under a memory limit, and how it
/// holds what it takes: the plan is a value that builds the sweep's
/// storage, each of the scanned table's arrays in the form it chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SweepMemoryPlan {
    /// The most memory the sweep takes, in bytes, as planned. Where it
    /// does not fit the limit, the least plan: the closure paged with the
    /// smallest budget (and a pawn table cut into slices of one leading
    /// digit), or whole where that takes less.
    pub bytes: u64,
    /// The most memory with every table of the closure decoded whole and
    /// the scanned table's files uncut.
    pub whole_bytes: u64,
    /// The budget of the closure's pages (0: none is paged).
    pub page_bytes: u64,
    /// The tables of the closure read page by page, smallest first.
    pub paged_tables: Vec<String>,
    /// Whether `bytes` is within the limit (always, without a limit).
    pub within: bool,
    /// Into how many slices the scanned table's indices are cut, swept
    /// one after another: one per sub-table (the leading pawn's file) as
    /// a rule, and where that does not fit, a pawn table's sub-tables cut
    /// further by the squares of their leading pawns.
    pub slices: u64,
    /// How the scanned table's arrays are held.
    pub(crate) storage: Storage,
    /// Per table of the closure (in the order of its costs), whether it
    /// is decoded whole (else read page by page within `page_bytes`);
    /// where the scanned table is cut, last, its own WDL values, which a
    /// pawn move out of a slice reads as a closure table's.
    pub(crate) closure_whole: Vec<bool>,
}

/// How a sweep holds the scanned table's values, as its plan chose: one
/// enum per storage choice, each of which builds its storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Storage {
    /// How many leading-pawn digits a slice of the scanned table takes (0:
    /// whole sub-tables; see [`SweepMemoryPlan::slices`]).
    pub(crate) lead_digits: u64,
    /// The WDL codes of a window: a byte each, or packed where nothing
    /// else fits.
    pub(crate) codes: CodeForm,
    /// Where pass 1 reads the WDL file's values: held a byte each (a
    /// symmetric table's whole file), two to a byte, or paged.
    pub(crate) wdl_values: WdlValues,
    /// The stored side's DTZ bytes: held, or decoded again page by page
    /// where read.
    pub(crate) stored_dtz: StoredDtz,
    /// The unstored side's DTZ bytes: held, or worked out again where
    /// read.
    pub(crate) unstored_dtz: UnstoredDtz,
}

impl Storage {
    /// Everything held, whole sub-tables: the codes and the DTZ bytes a
    /// byte each, and pass 1's WDL values a byte each for `symmetric`
    /// material (the whole file, which its DTZ bytes match anyway, and a
    /// byte each is quicker to read), else two to a byte (both sides' of a
    /// block beside its codes, so that pass 1 takes no more room than the
    /// later passes).
    pub(crate) fn held(symmetric: bool) -> Storage {
        Storage {
            lead_digits: 0,
            codes: CodeForm::Bytes,
            wdl_values: if symmetric {
                WdlValues::Bytes
            } else {
                WdlValues::Nibbles
            },
            stored_dtz: StoredDtz::Held,
            unstored_dtz: UnstoredDtz::Held,
        }
    }

    /// Whole sub-tables, the stored side's DTZ paged within `page_bytes`,
    /// the codes held as `codes` says, pass 1's WDL values as `wdl_values`
    /// says, and the unstored side's DTZ held.
    fn paged(page_bytes: u64, codes: CodeForm, wdl_values: WdlValues) -> Storage {
        Storage {
            lead_digits: 0,
            codes,
            wdl_values,
            stored_dtz: StoredDtz::Paged(Paging::new(page_bytes)),
            unstored_dtz: UnstoredDtz::Held,
        }
    }
}

impl SweepMemoryPlan {
    /// `storage`, the closure all whole (`tables` of it), `bytes` in all,
    /// `within` the limit or not.
    fn whole(storage: Storage, tables: usize, bytes: u64, within: bool) -> SweepMemoryPlan {
        SweepMemoryPlan {
            bytes,
            whole_bytes: bytes,
            page_bytes: 0,
            paged_tables: Vec::new(),
            within,
            slices: 1,
            storage,
            closure_whole: vec![true; tables],
        }
    }

    /// Whether the plan cuts a pawn table's files further, by the squares
    /// of the leading pawns (see [`SweepMemoryPlan::slices`]).
    pub fn cut_by_pawns(&self) -> bool {
        self.storage.lead_digits > 0
    }

    /// Whether the sweep keeps no DTZ of the side the DTZ file does not
    /// store and works each one out again, by the same one-ply search,
    /// where it is read (a pawnless table that does not fit otherwise: 3
    /// bytes per index instead of 4).
    pub fn recomputes_unstored(&self) -> bool {
        self.storage.unstored_dtz == UnstoredDtz::WorkedOut
    }

    /// The budget of the pages of the stored side's DTZ (0: none; the
    /// sweep holds a byte per index). Where not 0, the sweep keeps no DTZ
    /// byte of the side the DTZ file stores: it decodes it from the file,
    /// page by page, where read (a symmetric or pawnless table that does
    /// not fit otherwise).
    pub fn stored_page_bytes(&self) -> u64 {
        match self.storage.stored_dtz {
            StoredDtz::Held => 0,
            StoredDtz::Paged(paging) => paging.bytes,
        }
    }

    /// The budget of pass 1's pages of the scanned table's WDL values (0:
    /// none; pass 1 holds them). Where not 0, the stored side's DTZ is
    /// paged too (a symmetric table that does not fit with pass 1's
    /// values held, packed, or a pawnless table that does not fit with its
    /// unstored side's DTZ worked out where read).
    pub fn wdl_page_bytes(&self) -> u64 {
        match self.storage.wdl_values {
            WdlValues::Paged(paging) => paging.bytes,
            WdlValues::Bytes | WdlValues::Nibbles => 0,
        }
    }

    /// Whether the WDL codes are packed, five bits each (twelve to a
    /// 64-bit word), not a byte each: a table whose stored DTZ and WDL
    /// values are paged and that does not fit otherwise. Each code is then
    /// written by a compare-and-swap of its word.
    pub fn packed_codes(&self) -> bool {
        self.storage.codes == CodeForm::Packed
    }
}

/// What the scanned table of a sweep takes besides its chunk's arrays, and
/// its sub-tables, for [`plan_slices`].
pub(crate) struct OwnCost {
    /// The program and the files' headers.
    pub(crate) fixed: u64,
    /// Per sub-table (block): its indices and, for a pawn table swept
    /// without symmetry, the digits of its leading pawns (`None`: the
    /// sub-tables cannot be cut).
    pub(crate) blocks: Vec<(u64, Option<u64>)>,
    /// Bytes per index of a chunk (WDL codes, and the larger of pass 1's
    /// WDL values and the later passes' DTZ bytes).
    pub(crate) per_index: u64,
    /// Bytes per index of a chunk where the unstored side's DTZ is worked
    /// out again where read, not held (`None`: the table is never swept
    /// so; see [`UnstoredDtz::WorkedOut`]).
    pub(crate) lean_per_index: Option<u64>,
    /// What the table takes where its stored side's DTZ is decoded page
    /// by page where read, none held, each way it can be swept so, the
    /// quicker first (none: never; see [`StoredDtz::Paged`]).
    pub(crate) paged_stored: Vec<PagedStored>,
    /// Symmetric material: one chunk of every block.
    pub(crate) symmetric: bool,
    /// The scanned table's WDL values decoded whole (both sides), the cost
    /// of reading them as a closure table when cut: a pawn move leaves its
    /// slice.
    pub(crate) own_values: u64,
    /// The parsed headers of the scanned table's WDL file, which it then
    /// opens a second time to read them so.
    pub(crate) own_headers: u64,
    /// The scanned table's name.
    pub(crate) name: String,
}

/// What a sweep of the scanned table takes when it decodes its stored
/// side's DTZ page by page (see [`OwnCost::paged_stored`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PagedStored {
    /// In place of [`OwnCost::fixed`]: the program, the headers, and the
    /// larger of pass 1's WDL values and the later passes' pages.
    pub(crate) fixed: u64,
    /// WDL codes per index (1 for symmetric material, else 2), in place
    /// of [`OwnCost::per_index`]: nothing else is held per index.
    pub(crate) codes_per_index: u64,
    /// How the table is held so: its stored DTZ paged, the codes, pass 1's
    /// WDL values and the unstored side's DTZ as it says.
    pub(crate) storage: Storage,
}

/// The bytes per index of an asymmetric table swept with its unstored
/// side's DTZ worked out where read ([`UnstoredDtz::WorkedOut`]): the two WDL codes
/// and the stored side's DTZ byte, as pass 1's codes and packed WDL
/// values take. Pawn tables are cut by their pawns instead (`None`).
fn lean_per_index(has_pawns: bool) -> Option<u64> {
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
fn symmetric_paged_stored(fixed: u64, values: [u64; 2]) -> Vec<PagedStored> {
    let packed = values[0].div_ceil(2) + values[1].div_ceil(2);
    let page_bytes = packed.clamp(MIN_PAGE_BYTES, MAX_PAGE_BYTES);
    let wdl_paged = WdlValues::Paged(Paging::new(LEAST_PAGED_BYTES));
    let both_paged = |codes| PagedStored {
        fixed: fixed.saturating_add(LEAST_PAGED_BYTES),
        codes_per_index: 1,
        storage: Storage::paged(LEAST_PAGED_BYTES, codes, wdl_paged),
    };
    vec![
        PagedStored {
            fixed: fixed.saturating_add(packed.max(page_bytes)),
            codes_per_index: 1,
            storage: Storage::paged(page_bytes, CodeForm::Bytes, WdlValues::Nibbles),
        },
        both_paged(CodeForm::Bytes),
        both_paged(CodeForm::Packed),
    ]
}

/// What a pawnless table without symmetry takes where even its lean sweep
/// ([`lean_per_index`]) does not fit, `fixed` bytes apart: its unstored
/// side's DTZ worked out where read, its stored side's decoded page by
/// page where read, pass 1's WDL values read page by page, each within
/// [`LEAST_PAGED_BYTES`], and its two codes per index a byte each or, where
/// that does not fit either, packed. None for a pawn table (`has_pawns`):
/// it is cut by its pawns instead.
fn asymmetric_paged_stored(has_pawns: bool, fixed: u64) -> Vec<PagedStored> {
    if has_pawns {
        return Vec::new();
    }
    let wdl_paged = WdlValues::Paged(Paging::new(LEAST_PAGED_BYTES));
    [CodeForm::Bytes, CodeForm::Packed]
        .map(|codes| PagedStored {
            fixed: fixed.saturating_add(LEAST_PAGED_BYTES),
            codes_per_index: 2,
            storage: Storage {
                unstored_dtz: UnstoredDtz::WorkedOut,
                ..Storage::paged(LEAST_PAGED_BYTES, codes, wdl_paged)
            },
        })
        .to_vec()
}

/// The budget of the stored DTZ's pages, and of pass 1's WDL pages, where
/// both are paged: pass 1's pages go before the later passes' come, so
/// they share the room. A few pages per lock shard, for each thread's
/// neighbourhood of the king placements it walks.
const LEAST_PAGED_BYTES: u64 = 2 * MIN_PAGE_BYTES;

/// How the scanned table's DTZ bytes are held (see [`plan_slices`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum OwnDtz {
    /// Both sides' (one for symmetric material).
    Held,
    /// The stored side's; the unstored side's worked out where read.
    StoredOnly,
    /// None: the stored side's decoded page by page where read.
    Paged(PagedStored),
}

impl OwnCost {
    /// What the scanned table `name` takes (see [`OwnCost`]): `fixed`
    /// bytes apart (the program and its files' headers), per index of the
    /// chunk that takes most (its DTZ file's sub-tables are `blocks`: their
    /// indices and, for a pawn table, the digits of their leading pawns):
    /// 2 bytes for its WDL codes (1 for symmetric material: one side to
    /// move); during pass 1 the WDL file's stored values that it reads
    /// (half a byte per index and side; for symmetric material the whole
    /// file, a byte per index); in the later passes 1 byte per index and
    /// side stored (the raw DTZ magnitudes, see
    /// [`super::code::encode_mag`]; one side for symmetric material). Its
    /// WDL file holds `wdl_values` indices per side to move (White's,
    /// Black's) behind `wdl_headers` bytes of headers. The files are read
    /// as decoded, not held.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        name: String,
        symmetric: bool,
        has_pawns: bool,
        fixed: u64,
        blocks: Vec<(u64, Option<u64>)>,
        wdl_values: [u64; 2],
        wdl_headers: u64,
    ) -> OwnCost {
        let own_values = wdl_values[0] + wdl_values[1];
        if symmetric {
            // One chunk: its codes (one side's, a byte per index), then
            // the larger of the whole WDL file's values and one side's DTZ
            // bytes.
            let n: u64 = blocks.iter().map(|b| b.0).sum();
            return OwnCost {
                fixed: fixed.saturating_add(own_values.max(n)),
                blocks: vec![(n, None)],
                per_index: 1,
                lean_per_index: None,
                paged_stored: symmetric_paged_stored(fixed, wdl_values),
                symmetric: true,
                own_values,
                own_headers: wdl_headers,
                name,
            };
        }
        // Block by block (or slice by slice), each reading both sides' WDL
        // values, then holding both sides' DTZ: 4 bytes per index.
        OwnCost {
            fixed,
            blocks,
            per_index: 4,
            lean_per_index: lean_per_index(has_pawns),
            paged_stored: asymmetric_paged_stored(has_pawns, fixed),
            symmetric: false,
            own_values,
            own_headers: wdl_headers,
            name,
        }
    }

    /// The indices of the largest chunk when each slice takes `digits`
    /// leading digits (0: whole blocks), and how many chunks there are.
    fn chunk(&self, digits: u64) -> (u64, u64) {
        if self.symmetric {
            return (self.blocks.iter().map(|b| b.0).sum(), 1);
        }
        let mut largest = 0;
        let mut count = 0;
        for &(size, radix) in &self.blocks {
            match radix {
                Some(r) if digits > 0 => {
                    for slice in slice_digits(r, digits) {
                        largest = largest.max(size / r * (slice.end - slice.start));
                        count += 1;
                    }
                }
                _ => {
                    largest = largest.max(size);
                    count += 1;
                }
            }
        }
        (largest, count)
    }

    /// The most leading digits of a block (0: none can be cut).
    fn max_radix(&self) -> u64 {
        if self.symmetric {
            return 0;
        }
        self.blocks.iter().filter_map(|b| b.1).max().unwrap_or(0)
    }
}

/// The leading digits of each slice of a sub-table whose leading group
/// has `radix` digits, cut `digits` digits a slice (the last may have
/// fewer): the one cut that the plan counts and the sweep takes.
pub(crate) fn slice_digits(radix: u64, digits: u64) -> Vec<std::ops::Range<u64>> {
    (0..radix)
        .step_by(digits.max(1) as usize)
        .map(|first| first..(first + digits).min(radix))
        .collect()
}

/// Plans a sweep within `limit`: whole sub-tables while they fit with the
/// closure whole; else, for a pawnless table without symmetry, the
/// unstored side's DTZ worked out where read instead of held (its closure
/// then as [`plan_memory`] plans it); else, for a pawnless or symmetric
/// table, its stored DTZ decoded page by page where read (the first way of
/// [`OwnCost::paged_stored`] within the limit, the WDL codes packed last);
/// else whole sub-tables with the
/// closure paged (as [`plan_memory`] plans it); else a pawn table's
/// sub-tables cut into slices of as many leading-pawn digits as fit, the scanned table's own
/// WDL values then read as one more table of the closure (last in the
/// plan's [`SweepMemoryPlan::closure_whole`]). The plan, its digits per
/// slice in its storage's [`Storage::lead_digits`].
pub(crate) fn plan_slices(
    own: &OwnCost,
    closure: &[TableCost],
    limit: Option<u64>,
) -> SweepMemoryPlan {
    let at = |digits: u64, dtz: OwnDtz| {
        let (largest, count) = own.chunk(digits);
        let bytes = match (dtz, own.lean_per_index) {
            (OwnDtz::StoredOnly, Some(p)) => own.fixed.saturating_add(p.saturating_mul(largest)),
            (OwnDtz::Paged(paged), _) => {
                let codes = paged.codes_per_index.saturating_mul(largest);
                paged.fixed.saturating_add(paged.storage.codes.bytes(codes))
            }
            _ => own
                .fixed
                .saturating_add(own.per_index.saturating_mul(largest)),
        };
        let held = Storage::held(own.symmetric);
        let storage = match dtz {
            OwnDtz::Held => held,
            OwnDtz::StoredOnly => Storage {
                unstored_dtz: UnstoredDtz::WorkedOut,
                ..held
            },
            OwnDtz::Paged(paged) => paged.storage,
        };
        let storage = Storage {
            lead_digits: digits,
            ..storage
        };
        let mut plan = if digits == 0 {
            plan_memory(bytes, storage, closure, limit)
        } else {
            let mut with_own = closure.to_vec();
            with_own.push(TableCost {
                name: own.name.clone(),
                values: own.own_values,
                headers: own.own_headers,
            });
            let mut plan = plan_memory(bytes, storage, &with_own, limit);
            // The scanned table is not one of its closure's tables.
            plan.paged_tables.retain(|n| *n != own.name);
            plan
        };
        plan.slices = count;
        plan
    };
    let whole = at(0, OwnDtz::Held);
    if whole.within && whole.page_bytes == 0 {
        return whole;
    }
    // Not holding the unstored side's DTZ saves a byte per index, more
    // than paging a pawnless table's closure (its captures' smaller
    // tables) can, and costs less time: it comes first. Decoding the
    // stored side's where read saves as much for symmetric material, at
    // the cost of decoding pages again. The first way within the limit
    // is taken, else the least.
    let mut dtz_modes = Vec::new();
    if own.lean_per_index.is_some() {
        dtz_modes.push(OwnDtz::StoredOnly);
    }
    dtz_modes.extend(own.paged_stored.iter().map(|&p| OwnDtz::Paged(p)));
    let mut least_lean: Option<SweepMemoryPlan> = None;
    for mode in dtz_modes {
        let mut lean = at(0, mode);
        lean.whole_bytes = whole.whole_bytes;
        if lean.within {
            if let (OwnDtz::Paged(p), Some(limit)) = (mode, limit) {
                if p.storage.unstored_dtz == UnstoredDtz::WorkedOut {
                    spare_to_stored_pages(&mut lean, limit, own.chunk(0).0);
                }
            }
            return lean;
        }
        if lean.bytes < least_lean.as_ref().map_or(whole.bytes, |l| l.bytes) {
            least_lean = Some(lean);
        }
    }
    if let Some(lean) = least_lean {
        return lean;
    }
    if whole.within || own.max_radix() == 0 {
        return whole;
    }
    let mut least = None;
    for digits in (1..own.max_radix()).rev() {
        let mut cut = at(digits, OwnDtz::Held);
        // What the sweep would take uncut, whatever the plan.
        cut.whole_bytes = whole.whole_bytes;
        if cut.within {
            return cut;
        }
        least = Some(cut);
    }
    match least {
        Some(cut) if cut.bytes < whole.bytes => cut,
        _ => whole,
    }
}

/// Gives what `plan` leaves of `limit`, once its closure has taken what
/// it can use, to the stored DTZ's pages, up to `stored` bytes (a byte per
/// index of the largest chunk: the whole stored side). For a pawnless
/// table without symmetry whose stored DTZ is paged: pass 3 and the
/// counting read it around each position's successors, and the fewer
/// pages it is decoded into, the more often a page is decoded again.
fn spare_to_stored_pages(plan: &mut SweepMemoryPlan, limit: u64, stored: u64) {
    let StoredDtz::Paged(paging) = &mut plan.storage.stored_dtz else {
        return;
    };
    let spare = limit.saturating_sub(plan.bytes);
    let extra = spare.min(stored.saturating_sub(paging.bytes));
    paging.bytes += extra;
    plan.bytes += extra;
}

/// What one table of a sweep's closure takes.
#[derive(Debug, Clone)]
pub(crate) struct TableCost {
    /// Its name (`KRvKP`).
    pub(crate) name: String,
    /// Its values decoded whole (1 byte per index and side).
    pub(crate) values: u64,
    /// Its parsed headers, held whole or paged.
    pub(crate) headers: u64,
}

/// Plans a sweep whose scanned table takes `own` bytes, held as `storage`
/// says, and whose closure tables take `closure`, within `limit`: the
/// plan, with per closure table whether it is held whole.
///
/// Whole when everything fits. Else the smallest tables are held whole
/// while a page budget of at least [`MIN_PAGE_BYTES`] still fits beside
/// them, and the others are paged within what is left (at most
/// [`MAX_PAGE_BYTES`]). Captures reach the smaller tables from every
/// position; promotions the larger ones, from few.
pub(crate) fn plan_memory(
    own: u64,
    storage: Storage,
    closure: &[TableCost],
    limit: Option<u64>,
) -> SweepMemoryPlan {
    let own = closure
        .iter()
        .fold(own, |acc, t| acc.saturating_add(t.headers));
    let whole_bytes = closure
        .iter()
        .fold(own, |acc, t| acc.saturating_add(t.values));
    let all_whole = |within| SweepMemoryPlan::whole(storage, closure.len(), whole_bytes, within);
    let limit = match limit {
        Some(limit) if whole_bytes > limit => limit,
        _ => return all_whole(true),
    };
    let room = limit.saturating_sub(own);
    let mut order: Vec<usize> = (0..closure.len()).collect();
    order.sort_by_key(|&k| (closure[k].values, k));
    let mut whole = vec![false; closure.len()];
    let mut held = 0u64;
    for &k in &order {
        let bytes = closure[k].values;
        if held + bytes + MIN_PAGE_BYTES <= room {
            whole[k] = true;
            held += bytes;
        }
    }
    let page_bytes = room
        .saturating_sub(held)
        .clamp(MIN_PAGE_BYTES, MAX_PAGE_BYTES);
    let bytes = own.saturating_add(held).saturating_add(page_bytes);
    if bytes >= whole_bytes {
        // Paging would not save memory (a small closure): the least plan
        // is the whole one, over the limit.
        return all_whole(false);
    }
    SweepMemoryPlan {
        bytes,
        page_bytes,
        paged_tables: order
            .iter()
            .filter(|&&k| !whole[k])
            .map(|&k| closure[k].name.clone())
            .collect(),
        within: bytes <= limit,
        closure_whole: whole,
        ..all_whole(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: u64 = 1 << 20;

    /// The scanned table's storage where the tests plan its closure only.
    const HELD: Storage = Storage {
        lead_digits: 0,
        codes: CodeForm::Bytes,
        wdl_values: WdlValues::Nibbles,
        stored_dtz: StoredDtz::Held,
        unstored_dtz: UnstoredDtz::Held,
    };

    /// Tables of 500, 100 and 300 M, without headers.
    fn tables() -> Vec<TableCost> {
        costs(&[("A", 500 * M), ("B", 100 * M), ("C", 300 * M)])
    }

    fn costs(tables: &[(&str, u64)]) -> Vec<TableCost> {
        tables
            .iter()
            .map(|&(name, values)| TableCost {
                name: name.to_owned(),
                values,
                headers: 0,
            })
            .collect()
    }

    #[test]
    fn headers_count_whether_a_table_is_whole_or_paged() {
        let mut closure = tables();
        closure[0].headers = 10 * M;
        let plan = plan_memory(100 * M, HELD, &closure, None);
        assert_eq!(plan.bytes, 1010 * M);
        // As below, with the 10 M of A's headers beside the pages.
        let plan = plan_memory(100 * M, HELD, &closure, Some(910 * M));
        let whole = plan.closure_whole.clone();
        assert_eq!(whole, [false, true, true]);
        assert_eq!((plan.page_bytes, plan.bytes), (400 * M, 910 * M));
    }

    #[test]
    fn everything_is_whole_when_it_fits_or_without_a_limit() {
        for limit in [None, Some(1000 * M), Some(2000 * M)] {
            let plan = plan_memory(100 * M, HELD, &tables(), limit);
            let whole = plan.closure_whole.clone();
            assert_eq!(plan.bytes, 1000 * M);
            assert_eq!(plan.whole_bytes, 1000 * M);
            assert_eq!((plan.page_bytes, plan.within), (0, true));
            assert!(plan.paged_tables.is_empty());
            assert_eq!(whole, [true; 3]);
        }
    }

    #[test]
    fn the_smallest_tables_stay_whole_beside_the_least_page_budget() {
        // Room 800 M beside the 100 M of the scanned table: B and C whole
        // (400 M) and 400 M of pages.
        let plan = plan_memory(100 * M, HELD, &tables(), Some(900 * M));
        let whole = plan.closure_whole.clone();
        assert_eq!(whole, [false, true, true]);
        assert_eq!(plan.paged_tables, ["A"]);
        assert_eq!(plan.page_bytes, 400 * M);
        assert_eq!(plan.bytes, 900 * M);
        assert!(plan.within);
        // Room 420 M: C does not fit beside B and 64 M of pages.
        let plan = plan_memory(100 * M, HELD, &tables(), Some(520 * M));
        let whole = plan.closure_whole.clone();
        assert_eq!(whole, [false, true, false]);
        assert_eq!(plan.paged_tables, ["C", "A"]);
        assert_eq!(plan.page_bytes, 320 * M);
    }

    #[test]
    fn a_closure_smaller_than_the_least_page_budget_is_never_paged() {
        let small = costs(&[("A", M), ("B", 2 * M)]);
        let plan = plan_memory(100 * M, HELD, &small, Some(101 * M));
        let whole = plan.closure_whole.clone();
        assert_eq!(whole, [true; 2]);
        assert_eq!(
            (plan.bytes, plan.page_bytes, plan.within),
            (103 * M, 0, false)
        );
        assert!(plan.paged_tables.is_empty());
    }

    /// A pawn table of two blocks of 600 M indices, 6 leading digits
    /// each, 4 bytes an index, beside the closure of [`tables`].
    fn pawn_table() -> OwnCost {
        OwnCost {
            fixed: 10 * M,
            blocks: vec![(600 * M, Some(6)), (600 * M, Some(6))],
            per_index: 4,
            lean_per_index: None,
            paged_stored: Vec::new(),
            symmetric: false,
            own_values: 2400 * M,
            own_headers: 0,
            name: "KXPvK".to_owned(),
        }
    }

    #[test]
    fn a_pawn_table_is_cut_into_the_fewest_slices_that_fit() {
        // Whole: 10 + 2400 + 900 M.
        let plan = plan_slices(&pawn_table(), &tables(), None);
        let whole = plan.closure_whole.clone();
        assert_eq!(
            (plan.bytes, plan.slices, plan.storage.lead_digits),
            (3310 * M, 2, 0)
        );
        assert_eq!(whole, [true; 3]);
        // 2000 M: the files with the closure paged would need 2410 M and
        // 64 M of pages; slices of 5 digits 2010 M; of 4 digits (4 and 2
        // a block) 1610 M, and the closure and the table's own WDL values
        // (the last flag) share what is left.
        let plan = plan_slices(&pawn_table(), &tables(), Some(2000 * M));
        let whole = plan.closure_whole.clone();
        assert_eq!((plan.slices, plan.storage.lead_digits), (4, 4));
        assert!(plan.within && plan.bytes <= 2000 * M, "{plan:?}");
        assert_eq!(plan.whole_bytes, 3310 * M, "the uncut sweep's");
        assert_eq!(whole.len(), 4);
        assert!(!whole[3], "the table's own values are paged");
        assert!(!plan.paged_tables.contains(&"KXPvK".to_owned()));
        // Below one digit a slice (400 M + 10 M + 64 M of pages): the
        // least plan, refused.
        let plan = plan_slices(&pawn_table(), &tables(), Some(300 * M));
        assert_eq!((plan.slices, plan.storage.lead_digits), (12, 1));
        assert_eq!(plan.bytes, 410 * M + MIN_PAGE_BYTES);
        assert!(!plan.within);
    }

    #[test]
    fn symmetric_and_pawnless_tables_are_never_cut() {
        let mut own = pawn_table();
        own.symmetric = true;
        let plan = plan_slices(&own, &tables(), Some(300 * M));
        assert_eq!((plan.slices, plan.storage.lead_digits), (1, 0));
        own.symmetric = false;
        own.blocks = vec![(600 * M, None)];
        let plan = plan_slices(&own, &tables(), Some(300 * M));
        assert_eq!((plan.slices, plan.storage.lead_digits), (1, 0));
    }

    /// A pawnless table of 900 M indices without symmetry, beside the
    /// closure of [`tables`]; where its stored DTZ and WDL values are
    /// paged (128 MiB of pages each), its two codes an index take 1800 MiB
    /// a byte each, or 1200 MiB packed.
    fn pawnless_table() -> OwnCost {
        let paged = |codes| PagedStored {
            fixed: 10 * M + 128 * M,
            codes_per_index: 2,
            storage: Storage {
                unstored_dtz: UnstoredDtz::WorkedOut,
                ..Storage::paged(128 * M, codes, WdlValues::Paged(Paging::new(128 * M)))
            },
        };
        OwnCost {
            fixed: 10 * M,
            blocks: vec![(900 * M, None)],
            per_index: 4,
            lean_per_index: Some(3),
            paged_stored: vec![paged(CodeForm::Bytes), paged(CodeForm::Packed)],
            symmetric: false,
            own_values: 1800 * M,
            own_headers: 0,
            name: "KXYvKZ".to_owned(),
        }
    }

    #[test]
    fn a_pawnless_table_keeps_its_unstored_dtz_only_where_that_fits_no_other_way() {
        // Whole: 10 + 3600 + 900 MiB, with its unstored side's DTZ.
        let plan = plan_slices(&pawnless_table(), &tables(), None);
        assert_eq!((plan.bytes, plan.recomputes_unstored()), (4510 * M, false));
        // 4000 MiB: 10 + 2700 + 900 without it, the closure whole (where
        // the whole sweep with its closure paged would fit too).
        let plan = plan_slices(&pawnless_table(), &tables(), Some(4000 * M));
        let whole = plan.closure_whole.clone();
        assert_eq!((plan.bytes, plan.page_bytes), (3610 * M, 0), "{plan:?}");
        assert!(plan.recomputes_unstored() && plan.within);
        assert_eq!(plan.whole_bytes, 4510 * M, "the sweep that holds it");
        assert_eq!(whole, [true; 3]);
        assert_eq!((plan.stored_page_bytes(), plan.packed_codes()), (0, false));
        // 3000 MiB: without it, and the closure paged.
        let plan = plan_slices(&pawnless_table(), &tables(), Some(3000 * M));
        let whole = plan.closure_whole.clone();
        assert!(plan.recomputes_unstored() && plan.within, "{plan:?}");
        assert!(plan.page_bytes > 0 && whole.contains(&false), "{plan:?}");
        assert_eq!(plan.stored_page_bytes(), 0, "{plan:?}");
        // 2500 MiB, below 2710 + 64: the stored DTZ and the WDL values
        // paged too, the codes a byte each (1938), and of the closure's
        // 562 MiB of room, B and C whole and 162 of pages.
        let plan = plan_slices(&pawnless_table(), &tables(), Some(2500 * M));
        let whole = plan.closure_whole.clone();
        assert!(plan.recomputes_unstored() && plan.within, "{plan:?}");
        assert_eq!(
            (
                plan.stored_page_bytes(),
                plan.wdl_page_bytes(),
                plan.packed_codes()
            ),
            (128 * M, 128 * M, false)
        );
        assert_eq!((plan.bytes, plan.page_bytes), (2500 * M, 162 * M));
        assert_eq!(whole, [false, true, true]);
        // Beside a closure of 1 MiB (never paged), 2700 MiB, below 2711
        // without the unstored DTZ: the stored DTZ paged, and its pages
        // take the 761 MiB the plan (1939) leaves, 889 MiB of the 900.
        let tiny = costs(&[("A", M)]);
        let plan = plan_slices(&pawnless_table(), &tiny, Some(2700 * M));
        assert!(plan.within && plan.recomputes_unstored() && !plan.packed_codes());
        assert_eq!((plan.bytes, plan.stored_page_bytes()), (2700 * M, 889 * M));
        // 2000 MiB, below 1938 + 64: the codes packed (1338), and of the
        // closure's 662 MiB of room, B and C whole and 262 of pages.
        let plan = plan_slices(&pawnless_table(), &tables(), Some(2000 * M));
        let whole = plan.closure_whole.clone();
        assert!(plan.recomputes_unstored() && plan.within && plan.packed_codes());
        assert_eq!((plan.bytes, plan.page_bytes), (2000 * M, 262 * M));
        assert_eq!(whole, [false, true, true]);
        // Below 1338 + 64 MiB: the least plan, refused.
        let plan = plan_slices(&pawnless_table(), &tables(), Some(1300 * M));
        assert!(plan.recomputes_unstored() && !plan.within, "{plan:?}");
        assert!(plan.packed_codes(), "{plan:?}");
        assert_eq!(plan.bytes, 1338 * M + MIN_PAGE_BYTES);
        assert_eq!((plan.slices, plan.storage.lead_digits), (1, 0));
    }

    /// A symmetric pawnless table of 900 MiB indices (a code byte each),
    /// whose pass 1 holds the whole WDL file's 900 MiB values a byte each,
    /// or packed two to a byte where its stored DTZ is paged (450 MiB, as
    /// much as its pages then take), or pages them too (128 MiB of pages
    /// for each pass), then with its codes packed too (600 MiB), beside
    /// the closure of [`tables`].
    fn symmetric_pawnless_table() -> OwnCost {
        let paged = |fixed, page_bytes, wdl_values, codes| PagedStored {
            fixed,
            codes_per_index: 1,
            storage: Storage::paged(page_bytes, codes, wdl_values),
        };
        let wdl_paged = WdlValues::Paged(Paging::new(128 * M));
        OwnCost {
            fixed: 10 * M + 900 * M,
            blocks: vec![(900 * M, None)],
            per_index: 1,
            lean_per_index: None,
            paged_stored: vec![
                paged(
                    10 * M + 450 * M,
                    450 * M,
                    WdlValues::Nibbles,
                    CodeForm::Bytes,
                ),
                paged(10 * M + 128 * M, 128 * M, wdl_paged, CodeForm::Bytes),
                paged(10 * M + 128 * M, 128 * M, wdl_paged, CodeForm::Packed),
            ],
            symmetric: true,
            own_values: 900 * M,
            own_headers: 0,
            name: "KXYvKXY".to_owned(),
        }
    }

    #[test]
    fn a_symmetric_pawnless_table_pages_its_stored_dtz_only_where_that_fits_no_other_way() {
        // Whole: 910 + 900 + 900 MiB.
        let plan = plan_slices(&symmetric_pawnless_table(), &tables(), None);
        assert_eq!((plan.bytes, plan.stored_page_bytes()), (2710 * M, 0));
        // 2000 MiB: 460 + 900 with the DTZ paged, and of the closure's
        // 640 MiB of room, B and C whole (400) and 240 of pages.
        let plan = plan_slices(&symmetric_pawnless_table(), &tables(), Some(2000 * M));
        let whole = plan.closure_whole.clone();
        assert_eq!(plan.stored_page_bytes(), 450 * M, "{plan:?}");
        assert_eq!((plan.bytes, plan.page_bytes), (2000 * M, 240 * M));
        assert_eq!(whole, [false, true, true]);
        assert!(plan.within && !plan.recomputes_unstored());
        assert_eq!(plan.whole_bytes, 2710 * M, "the sweep that holds it");
        assert_eq!(plan.wdl_page_bytes(), 0, "pass 1 holds its values");
        // 1300 MiB: below 1360 + 64, so pass 1 pages its WDL values too
        // (138 + 900), and of the closure's 262 MiB of room, B whole and
        // 162 of pages.
        let plan = plan_slices(&symmetric_pawnless_table(), &tables(), Some(1300 * M));
        let whole = plan.closure_whole.clone();
        assert_eq!(
            (plan.stored_page_bytes(), plan.wdl_page_bytes()),
            (128 * M, 128 * M)
        );
        assert_eq!((plan.bytes, plan.page_bytes), (1300 * M, 162 * M));
        assert_eq!(whole, [false, true, false]);
        assert!(plan.within && !plan.packed_codes());
        // 1000 MiB: below 1038 + 64, so the codes are packed too (738),
        // and of the closure's 262 MiB of room, B whole and 162 of pages.
        let plan = plan_slices(&symmetric_pawnless_table(), &tables(), Some(1000 * M));
        let whole = plan.closure_whole.clone();
        assert!(plan.within && plan.packed_codes(), "{plan:?}");
        assert_eq!((plan.bytes, plan.page_bytes), (1000 * M, 162 * M));
        assert_eq!(whole, [false, true, false]);
        // Below 738 + 64 MiB: the least plan, refused.
        let plan = plan_slices(&symmetric_pawnless_table(), &tables(), Some(700 * M));
        assert_eq!(plan.bytes, 738 * M + MIN_PAGE_BYTES);
        assert!(!plan.within && plan.wdl_page_bytes() == 128 * M && plan.packed_codes());
    }

    #[test]
    fn below_the_least_plan_the_least_plan_is_given_and_refused() {
        let plan = plan_memory(100 * M, HELD, &tables(), Some(150 * M));
        let whole = plan.closure_whole.clone();
        assert_eq!(whole, [false; 3]);
        assert_eq!(plan.page_bytes, MIN_PAGE_BYTES);
        assert_eq!(plan.bytes, 100 * M + MIN_PAGE_BYTES);
        assert!(!plan.within);
    }
}
