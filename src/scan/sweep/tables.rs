//! The scanned table as the sweep reads it, immutable once held: its two
//! files and their layouts, its DTZ file's sub-tables (blocks) with the WDL
//! sub-tables that hold the same placements and where their captures lead,
//! the closure's tables, the piece counts and the natural parity.
//!
//! Made in two steps, each a value: [`SweepFiles`] opens the files (their
//! headers) and gives the memory plan; [`Tables::hold`] holds the closure
//! as that plan says. The windows ([`super::window`]) are built on it, a
//! chunk at a time.

use shakmaty::Color;

use super::{
    closure::{CaptureRoute, Closure, ClosureFiles},
    plan::{slice_digits, OwnCost, SweepMemoryPlan, PROCESS_BYTES},
    read_error::table_error,
};
use crate::{
    chess::material::Material,
    error::{Error, Result},
    model::dtz::phase_parity_is_natural,
    tables::reader::{
        cidx, slot_map, Counts, SubInfo, SweepTable, TableKind, TableLayout, Units, MAX,
    },
    tables::Inventory,
};

/// One sub-table of the DTZ file, with the WDL sub-tables that hold the
/// same placements.
#[derive(Clone)]
pub(crate) struct Block {
    /// Sub-table number in the DTZ codec.
    pub(crate) sub: usize,
    /// The side to move the DTZ file stores here.
    pub(crate) side: Color,
    /// First global index.
    pub(crate) base: usize,
    /// Number of indices (of the slice, in a window that cuts the block).
    pub(crate) len: usize,
    /// For the stored (0) and unstored (1) side to move: the WDL sub-table
    /// and, per WDL slot, the DTZ slot of the same piece. `None` for
    /// symmetric material (looked up the general way).
    pub(crate) wdl_perm: [Option<(usize, [u8; MAX])>; 2],
    /// Whether the WDL sub-table of that side encodes exactly as this DTZ
    /// sub-table (same pieces, same order): then a placement's WDL index
    /// is its DTZ index, and pass 1 need not encode it again.
    pub(crate) same_index: [bool; 2],
    /// Per captured slot: where a capture without promotion leads (worked
    /// out once the closure is held: [`Tables::hold`]).
    pub(crate) routes: Vec<Option<CaptureRoute>>,
    /// Where both sides' WDL sub-tables need an encoding and share their
    /// leading group: per slot of the unstored side's WDL order, the slot
    /// of the stored side's WDL order holding the same square, so that
    /// one canonicalisation and one leading digit serve both.
    pub(crate) shared_lead: Option<[u8; MAX]>,
    /// Where pass 1 can walk the block with one piece innermost and find
    /// the placements' indices without encoding them (see
    /// [`crate::tables::reader::Encoding::mover`]).
    pub(crate) mover: Option<Mover>,
}

/// The piece pass 1 moves innermost in a block: its slot in the DTZ order
/// and in each side's WDL order (stored side first).
#[derive(Clone, Copy)]
pub(crate) struct Mover {
    pub(crate) dtz_slot: usize,
    pub(crate) wdl_slot: [usize; 2],
    /// The DTZ sub-table's work units for the walk with this piece
    /// innermost ([`crate::tables::reader::Encoding::mover_units`]).
    pub(crate) units: Units,
}

/// What the passes take together (see [`Tables::chunks`]): a range of
/// blocks, or a slice of one block, the placements whose leading pawns
/// have digits in a range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chunk {
    /// The blocks (one, for a slice).
    pub(crate) blocks: std::ops::Range<usize>,
    /// The slice's leading-pawn digits; `None`: the whole blocks.
    pub(crate) lead_digits: Option<std::ops::Range<u64>>,
}

/// Whether every phase of this material, with `loser` losing, must end
/// with the winner's move ([`crate::model::dtz::phase_parity_is_natural`]).
pub(crate) fn natural_parity(counts: &Counts, loser: Color) -> bool {
    phase_parity_is_natural(&counts[cidx(loser)], &counts[cidx(!loser)])
}

/// The files of a sweep, opened: the scanned table's two and its
/// closure's WDL files, their headers parsed, and the DTZ file's blocks
/// (their routes not yet known). What the memory plan is made from.
pub(crate) struct SweepFiles {
    wdl_file: SweepTable,
    dtz_file: SweepTable,
    closure: ClosureFiles,
    blocks: Vec<Block>,
}

impl SweepFiles {
    /// Opens the files of a sweep of `material`.
    ///
    /// # Errors
    ///
    /// Missing or unreadable tables of the closure, or encodings this
    /// engine does not know.
    pub(crate) fn open(inv: &Inventory, material: &Material) -> Result<SweepFiles> {
        let label = material.to_string();
        inv.require(material, &label)?;
        let name = material.table_name();
        let open = |kind: TableKind, ext: &str| -> Result<SweepTable> {
            let file = format!("{name}.{ext}");
            let path = inv.path(&file).ok_or_else(|| Error::MissingTables {
                needed_for: label.clone(),
                files: vec![file.clone()],
            })?;
            SweepTable::open(path, kind).map_err(table_error)
        };
        let wdl_file = open(TableKind::Wdl, "rtbw")?;
        let dtz_file = open(TableKind::Dtz, "rtbz")?;
        let others: Vec<String> = material
            .closure()
            .into_iter()
            .filter(|n| *n != name)
            .collect();
        let closure = ClosureFiles::open(inv, &others, &label)?;
        let blocks = blocks(&wdl_file, &dtz_file)?;
        Ok(SweepFiles {
            wdl_file,
            dtz_file,
            closure,
            blocks,
        })
    }

    /// What the scanned table takes, for the plan ([`OwnCost::new`]): the
    /// program ([`PROCESS_BYTES`]) and the two files' parsed headers
    /// ([`SweepTable::header_bound`]) throughout, and per index of the
    /// chunk that takes most (see [`Tables::chunks`]) its codes and DTZ
    /// bytes.
    fn own_cost(&self) -> OwnCost {
        let fixed = (self.wdl_file.header_bound() + self.dtz_file.header_bound())
            .saturating_add(PROCESS_BYTES);
        let layout = self.dtz_file.layout();
        // A block's WDL sub-tables, one per side, have its indices.
        let blocks = self
            .blocks
            .iter()
            .map(|b| {
                let codec = &layout.subs[b.sub].encoding;
                let radix = layout.has_pawns.then(|| codec.lead_place().1);
                (codec.size, radix)
            })
            .collect();
        OwnCost::new(
            self.dtz_file.material().to_owned(),
            layout.symmetric,
            layout.has_pawns,
            fixed,
            blocks,
            [Color::White, Color::Black].map(|side| self.wdl_file.index_len(side)),
            self.wdl_file.header_bound(),
        )
    }

    /// The sweep's memory under `limit`: the scanned table's
    /// ([`SweepFiles::own_cost`]) and the closure's, as
    /// [`super::plan::plan_slices`] plans them.
    pub(crate) fn plan(&self, limit: Option<u64>) -> SweepMemoryPlan {
        super::plan::plan_slices(&self.own_cost(), &self.closure.costs(), limit)
    }
}

/// The DTZ file's sub-tables as blocks of the global index space, each
/// with the WDL sub-tables of its placements (routes left empty).
///
/// # Errors
///
/// A WDL file that lacks a side the DTZ file has, or other pieces.
fn blocks(wdl_file: &SweepTable, dtz_file: &SweepTable) -> Result<Vec<Block>> {
    let bad = |detail: &str| Error::Table {
        what: wdl_file.material().to_owned(),
        detail: detail.to_owned(),
    };
    let (wdl, dtz) = (wdl_file.layout(), dtz_file.layout());
    let symmetric = wdl.symmetric;
    let mut blocks = Vec::new();
    let mut base = 0usize;
    for (k, info) in dtz.subs.iter().enumerate() {
        let mut wdl_perm = [None, None];
        let mut same_index = [false, false];
        // A symmetric material's files store one side to move, and pass 1
        // asks only for it (half 0): read it by index where the WDL file
        // has its sub-table, as for other materials, instead of locating
        // every placement in the whole file.
        let halves = if symmetric { 1 } else { 2 };
        for (half, turn) in [info.side, !info.side].into_iter().enumerate().take(halves) {
            let ws = match wdl.sub_of(info.file, turn) {
                Some(ws) => ws,
                None if symmetric => continue,
                None => return Err(bad("WDL file lacks a side the DTZ file has")),
            };
            let wp = &wdl.subs[ws].encoding.pieces;
            let dp = &info.encoding.pieces;
            // The leading pawn stays first.
            let perm = slot_map(wp, dp, dtz.has_pawns.then_some(0))
                .ok_or_else(|| bad("piece lists differ"))?;
            let identity = perm[..dp.len()]
                .iter()
                .enumerate()
                .all(|(slot, &d)| usize::from(d) == slot);
            same_index[half] = identity && wdl.subs[ws].encoding == info.encoding;
            wdl_perm[half] = Some((ws, perm));
        }
        let len = info.encoding.size as usize;
        blocks.push(Block {
            sub: k,
            side: info.side,
            base,
            len,
            shared_lead: shared_lead(wdl, &wdl_perm, same_index),
            mover: mover(wdl, info, &wdl_perm, symmetric),
            wdl_perm,
            same_index,
            routes: Vec::new(),
        });
        base += len;
    }
    Ok(blocks)
}

/// [`Block::shared_lead`] of a block whose WDL sub-tables are `wdl_perm`.
fn shared_lead(
    wdl: &TableLayout,
    wdl_perm: &[Option<(usize, [u8; MAX])>; 2],
    same_index: [bool; 2],
) -> Option<[u8; MAX]> {
    let [Some((w0, p0)), Some((w1, p1))] = wdl_perm else {
        return None;
    };
    if same_index[0] || same_index[1] {
        return None;
    }
    let (c0, c1) = (&wdl.subs[*w0].encoding, &wdl.subs[*w1].encoding);
    let n = c0.pieces.len();
    let lead = c0.lead_len();
    // The DTZ slot p1[t] sits at slot map[t] of the stored side's WDL
    // order.
    let mut map = [0u8; MAX];
    for t in 0..n {
        map[t] = p0[..n].iter().position(|&d| d == p1[t])? as u8;
    }
    (c0.same_lead(c1) && p0[..lead] == p1[..lead]).then_some(map)
}

/// [`Block::mover`] of the block of DTZ sub-table `info`, whose WDL
/// sub-tables are `wdl_perm`.
fn mover(
    wdl: &TableLayout,
    info: &SubInfo,
    wdl_perm: &[Option<(usize, [u8; MAX])>; 2],
    symmetric: bool,
) -> Option<Mover> {
    // A symmetric table's pass 1 reads one side (half 0), so its mover
    // needs only that side's WDL sub-table (pass 1's walk reads half 1
    // from the same); passes 3 and 4 do not walk it.
    let [(w0, p0), (w1, p1)] = match wdl_perm {
        [Some(w0), None] if symmetric => [w0, w0],
        [Some(w0), Some(w1)] => [w0, w1],
        _ => return None,
    };
    let n = info.encoding.pieces.len();
    let wdl_slot = |perm: &[u8; MAX], d: usize| perm[..n].iter().position(|&x| usize::from(x) == d);
    (0..n).find_map(|d| {
        let slots = [wdl_slot(p0, d)?, wdl_slot(p1, d)?];
        let units = info.encoding.mover_units(d)?;
        let ok =
            wdl.subs[*w0].encoding.can_move(slots[0]) && wdl.subs[*w1].encoding.can_move(slots[1]);
        ok.then_some(Mover {
            dtz_slot: d,
            wdl_slot: slots,
            units,
        })
    })
}

/// The scanned table held as its plan says: immutable through the passes.
pub(crate) struct Tables {
    /// Symmetric material: only White to move is stored, no unstored side.
    pub(crate) symmetric: bool,
    /// Piece counts in the file's frame.
    pub(crate) counts: Counts,
    /// The DTZ file, read as pass 2 and the stored side's pages decode it
    /// (its layout is the whole table's index space).
    pub(crate) dtz_file: SweepTable,
    /// The WDL file, read as pass 1 decodes it.
    pub(crate) wdl_file: SweepTable,
    /// The closure's tables, held as planned.
    pub(crate) closure: Closure,
    /// The DTZ file's sub-tables.
    pub(crate) blocks: Vec<Block>,
    /// Per DTZ sub-table, its block's number.
    pub(crate) block_of_sub: Vec<usize>,
    /// Whether the material forces natural DTZ parity with a loser of
    /// each colour (file frame).
    natural: [bool; 2],
    /// Leading-pawn digits per slice (0: the chunks are whole blocks).
    lead_digits: u64,
}

impl Tables {
    /// Holds the closure of `files` as `plan` says, and, where the plan
    /// cuts the table into slices of its leading pawns, the scanned
    /// table's own WDL values as a closure table's (a pawn move leaves its
    /// slice; the plan's last closure flag).
    ///
    /// # Errors
    ///
    /// The WDL file cannot be opened again.
    pub(crate) fn hold(files: SweepFiles, plan: &SweepMemoryPlan) -> Result<Tables> {
        let SweepFiles {
            wdl_file,
            dtz_file,
            closure,
            mut blocks,
        } = files;
        let own = if plan.cut_by_pawns() {
            Some(SweepTable::open(wdl_file.path(), TableKind::Wdl).map_err(table_error)?)
        } else {
            None
        };
        let closure = Closure::hold(closure, own, plan);
        let dtz = dtz_file.layout();
        for b in &mut blocks {
            let pieces = &dtz.subs[b.sub].encoding.pieces;
            b.routes = (0..pieces.len())
                .map(|c| closure.route(pieces, c))
                .collect();
        }
        let counts = dtz.counts();
        let mut block_of_sub = vec![usize::MAX; dtz.subs.len()];
        for (k, b) in blocks.iter().enumerate() {
            block_of_sub[b.sub] = k;
        }
        Ok(Tables {
            symmetric: wdl_file.layout().symmetric,
            counts,
            natural: [Color::White, Color::Black].map(|loser| natural_parity(&counts, loser)),
            closure,
            blocks,
            block_of_sub,
            lead_digits: plan.storage.lead_digits,
            dtz_file,
            wdl_file,
        })
    }

    /// The DTZ file's layout (the whole table's).
    pub(crate) fn dtz(&self) -> &TableLayout {
        self.dtz_file.layout()
    }

    /// The WDL file's layout (the whole table's).
    pub(crate) fn wdl(&self) -> &TableLayout {
        self.wdl_file.layout()
    }

    /// Number of global indices.
    pub(crate) fn len(&self) -> usize {
        self.blocks.iter().map(|b| b.len).sum()
    }

    /// How many WDL codes an index has: 1 for symmetric material (one
    /// side to move stored, the other its colour-flipped image), else 2.
    #[inline]
    pub(crate) fn code_halves(&self) -> usize {
        2 - usize::from(self.symmetric)
    }

    /// Whether the material forces natural DTZ parity with `loser` losing
    /// (file frame).
    #[inline]
    pub(crate) fn natural(&self, loser: Color) -> bool {
        self.natural[cidx(loser)]
    }

    /// The number of pieces of the material.
    pub(crate) fn piece_count(&self) -> u32 {
        self.counts.iter().flatten().map(|&n| u32::from(n)).sum()
    }

    /// The chunks that the passes (1 to 4, and the counting) take
    /// together, so that only one chunk's WDL codes and DTZ values are in
    /// memory at a time. A quiet move moves no pawn, and a pawn push moves
    /// one along its file, so for asymmetric material the successor of a
    /// move that keeps the material stays in the block of its leading
    /// pawn's file (the same DTZ sub-table, other side to move): each block
    /// is a chunk. Where the plan cuts blocks into slices of their leading
    /// pawns, a quiet move also keeps the slice, and only a pawn move
    /// leaves it. For symmetric material a successor is looked up
    /// colour-flipped, under the other colour's leading pawn, in any
    /// block: the whole table is one chunk.
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
            let radix = self.dtz().subs[b.sub].encoding.lead_place().1;
            if digits == 0 || !self.dtz().has_pawns || digits >= radix {
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
}
