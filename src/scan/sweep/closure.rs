//! WDL values of the tables that captures and promotions lead to, in
//! memory: each table's stored values are decoded once (lazily, per side),
//! and the true value of a position resolves the "don't care" entries with
//! its captures, exactly as shakmaty-syzygy's `probe` does (without en
//! passant, which the caller handles). Resolved values replace the stored
//! ones in place.
//!
//! A table is decoded whole, or, where the sweep's memory plan says so,
//! page by page ([`super::pages`]): the plan is made from the files'
//! headers ([`ClosureFiles`]), then holds the closure ([`Closure::hold`]).

use std::sync::{
    atomic::{AtomicU8, Ordering},
    Arc, OnceLock,
};

use shakmaty::{Color, Piece};

use super::{
    board::{Kind, Pos},
    code::{flip, DRAW, WIN},
    pages::{Page, ValuePages, PAGE_LEN},
    plan::{SweepMemoryPlan, TableCost},
    read_error::table_error,
};
use crate::{
    error::{Error, Result},
    tables::reader::{
        cidx, counts_of, lead_file, slot_map, Counts, Frame, MoverIndex, SubInfo, SweepTable,
        TableKind, TableLayout, MAX,
    },
    tables::Inventory,
};

/// Flag on a value of a closure table: the true value, resolved with the
/// captures (without it: the stored value, which may be "don't care").
const RESOLVED: u8 = 0x80;

/// One table of the closure.
pub(crate) struct ClosureTable {
    pub(crate) layout: TableLayout,
    file: SweepTable,
    /// Its number in the closure (its pages' key).
    number: u32,
    /// Its values, whole or paged, as planned.
    values: Values,
}

/// How the values of a closure table are held, as the plan says.
enum Values {
    /// Per side to move, the values, decoded when a look-up first reaches
    /// the table: each the stored value, replaced by the true one with
    /// [`RESOLVED`] set once a look-up has resolved it. One byte per index
    /// holds both, so the memo costs no memory of its own.
    Whole([OnceLock<std::result::Result<Vec<AtomicU8>, String>>; 2]),
    /// Read page by page, within the closure's budget.
    Paged,
}

/// Where one value of a closure table is held.
enum Cell<'a> {
    Whole(&'a AtomicU8),
    /// In a page, at this offset.
    Paged(Page, usize),
}

impl Cell<'_> {
    #[inline]
    fn load(&self) -> u8 {
        match self {
            Cell::Whole(cell) => cell.load(Ordering::Relaxed),
            Cell::Paged(page, at) => page[*at].load(Ordering::Relaxed),
        }
    }

    #[inline]
    fn store(&self, v: u8) {
        match self {
            Cell::Whole(cell) => cell.store(v, Ordering::Relaxed),
            Cell::Paged(page, at) => page[*at].store(v, Ordering::Relaxed),
        }
    }
}

impl ClosureTable {
    /// The cell of index `idx` for `side` to move: in the values decoded
    /// whole, or in its page (decoded if not held).
    #[inline]
    fn cell<'a>(&'a self, pages: &ValuePages, side: Color, idx: usize) -> Result<Cell<'a>> {
        match &self.values {
            Values::Whole(values) => Ok(Cell::Whole(&self.whole(values, side)?[idx])),
            Values::Paged => self.paged_cell(pages, side, idx),
        }
    }

    /// [`ClosureTable::cell`] of a paged table (kept out of the whole
    /// tables' inlined path).
    #[inline(never)]
    fn paged_cell(&self, pages: &ValuePages, side: Color, idx: usize) -> Result<Cell<'_>> {
        let page = idx as u64 / PAGE_LEN;
        let start = page * PAGE_LEN;
        let end = (start + PAGE_LEN).min(self.file.index_len(side));
        let held = pages.page(self.number, cidx(side) as u8, page, || {
            let mut v = vec![0u8; (end - start) as usize];
            self.file
                .decode(side, start..end, &mut v)
                .map_err(table_error)?;
            Ok(v)
        })?;
        Ok(Cell::Paged(held, idx - start as usize))
    }

    /// The values of `side` to move decoded whole (into `values`, where a
    /// look-up first reaches them).
    fn whole<'a>(
        &self,
        values: &'a [OnceLock<std::result::Result<Vec<AtomicU8>, String>>; 2],
        side: Color,
    ) -> Result<&'a [AtomicU8]> {
        let r = values[cidx(side)].get_or_init(|| {
            let len = self.file.index_len(side);
            let mut v = vec![0u8; len as usize];
            self.file
                .decode(side, 0..len, &mut v)
                // Same layout: the vector is reused in place.
                .map(|()| v.into_iter().map(AtomicU8::new).collect())
                .map_err(|e| e.to_string())
        });
        r.as_deref().map_err(|e| Error::Table {
            what: self.file.path().display().to_string(),
            detail: e.clone(),
        })
    }
}

/// Where the captures of one piece lead, worked out once per sub-table of
/// the scanned table instead of per capture: the table of the material
/// left, its colour frame, and per leading-pawn file the sub-table and the
/// slot each of its pieces takes from the position after the capture.
#[derive(Clone)]
pub(crate) struct CaptureRoute {
    /// `None`: two bare kings are left.
    table: Option<Arc<ClosureTable>>,
    /// How the position after the capture lies in the table (its side
    /// to move, and whether colour-flipped).
    frame: Frame,
    /// Slot (after the capture) of the table's single leading pawn.
    lead: Option<usize>,
    /// Per leading-pawn file (0 without pawns): the sub-table and, per
    /// slot of its encoding, the slot of the position after the capture.
    subs: [Option<(usize, [u8; MAX])>; 4],
}

/// The index of the positions after one capture where one piece moves
/// (see [`Closure::routed_mover`]).
#[derive(Clone, Copy)]
pub(crate) struct RoutedMover {
    index: MoverIndex,
    /// The sub-table's first index in its side's index space.
    start: u64,
    /// 56 where the table holds the material colour-reversed.
    mirror: u8,
}

/// The WDL files of the closure, the scanned table excluded, opened
/// (their headers parsed): what the plan is made from, before it holds
/// them ([`Closure::hold`]).
pub(crate) struct ClosureFiles(Vec<SweepTable>);

/// The closure's WDL tables, the scanned table excluded, held as planned.
pub(crate) struct Closure {
    /// Tables by piece counts, both colour orientations (a short list: a
    /// linear scan beats hashing).
    by_counts: Vec<(Counts, Arc<ClosureTable>)>,
    /// The pages of the paged tables.
    pages: ValuePages,
}

impl ClosureFiles {
    /// Opens every table of `names` (normalised table names).
    ///
    /// # Errors
    ///
    /// Missing or unreadable files.
    pub(crate) fn open(
        inv: &Inventory,
        names: &[String],
        needed_for: &str,
    ) -> Result<ClosureFiles> {
        let mut files = Vec::new();
        for name in names {
            let file_name = format!("{name}.rtbw");
            let path = inv.path(&file_name).ok_or_else(|| Error::MissingTables {
                needed_for: needed_for.to_owned(),
                files: vec![file_name.clone()],
            })?;
            files.push(SweepTable::open(path, TableKind::Wdl).map_err(table_error)?);
        }
        Ok(ClosureFiles(files))
    }

    /// Per table (in the order of the names opened), what it takes: its
    /// values decoded whole, 1 byte per index and side (the value,
    /// resolved in place; each is decoded only when a look-up first
    /// reaches it), and its headers.
    pub(crate) fn costs(&self) -> Vec<TableCost> {
        self.0
            .iter()
            .map(|file| TableCost {
                name: file.material().to_owned(),
                values: file.index_len(Color::White) + file.index_len(Color::Black),
                headers: file.header_bound(),
            })
            .collect()
    }
}

impl Closure {
    /// Holds the tables of `files` as `plan` says: table `k` (of
    /// [`ClosureFiles::costs`]) decoded whole where its
    /// [`SweepMemoryPlan::closure_whole`] flag says so, the others page by
    /// page within the plan's page budget. Where the plan cuts the scanned
    /// table into slices of its leading pawns, a pawn move out of a slice
    /// reads the value where it leads as a closure table's: its own WDL
    /// file, `own`, is held too, as the last flag says.
    pub(crate) fn hold(
        files: ClosureFiles,
        own: Option<SweepTable>,
        plan: &SweepMemoryPlan,
    ) -> Closure {
        let mut by_counts = Vec::new();
        let whole = &plan.closure_whole;
        for (k, file) in files.0.into_iter().chain(own).enumerate() {
            let counts = file.layout().counts();
            let values = if whole.get(k).copied().unwrap_or(false) {
                Values::Whole([OnceLock::new(), OnceLock::new()])
            } else {
                Values::Paged
            };
            let table = Arc::new(ClosureTable {
                layout: file.layout().clone(),
                file,
                number: k as u32,
                values,
            });
            by_counts.push((counts, table.clone()));
            by_counts.push(([counts[1], counts[0]], table));
        }
        Closure {
            by_counts,
            pages: ValuePages::new(plan.page_bytes),
        }
    }

    /// The route of a capture (without promotion) of slot `captured` in a
    /// position whose slots hold `pieces` (file frame of the scanned
    /// table). `None` where no route applies (several leading pawns: which
    /// one leads depends on the squares); [`Closure::wdl`] then serves.
    pub(crate) fn route(&self, pieces: &[Piece], captured: usize) -> Option<CaptureRoute> {
        // After the capture the captured piece's side moves.
        let turn = pieces[captured].color;
        let left: Vec<Piece> = pieces
            .iter()
            .enumerate()
            .filter(|&(k, _)| k != captured)
            .map(|(_, p)| *p)
            .collect();
        let none = [None, None, None, None];
        if left.len() == 2 {
            return Some(CaptureRoute {
                table: None,
                frame: Frame {
                    flipped: false,
                    side: turn,
                },
                lead: None,
                subs: none,
            });
        }
        let counts = counts_of(left.iter().copied());
        let table = &self.by_counts.iter().find(|(c, _)| *c == counts)?.1;
        let layout = &table.layout;
        let frame = layout.frame(&counts, turn)?;
        let framed: Vec<Piece> = left.iter().map(|p| frame.piece(*p)).collect();
        let lead = if layout.has_pawns {
            let pawn = layout.lead_color().pawn();
            let mut leads = framed.iter().enumerate().filter(|(_, p)| **p == pawn);
            let (slot, _) = leads.next()?;
            if leads.next().is_some() {
                return None;
            }
            Some(slot)
        } else {
            None
        };
        let mut subs = none;
        for (file, out) in subs.iter_mut().enumerate() {
            let Some(sub) = layout.sub_of(file as u8, frame.side) else {
                continue;
            };
            let perm = slot_map(&layout.subs[sub].encoding.pieces, &framed, lead)?;
            *out = Some((sub, perm));
        }
        Some(CaptureRoute {
            table: Some(table.clone()),
            frame,
            lead,
            subs,
        })
    }

    /// [`Closure::wdl`] of the position after a capture that `route`
    /// describes: a direct encoding and a look-up once the value is
    /// resolved, else the general path (which resolves it and keeps it).
    ///
    /// # Errors
    ///
    /// As [`Closure::wdl`].
    #[inline]
    pub(crate) fn wdl_routed(&self, route: &CaptureRoute, pos: &Pos, turn: Color) -> Result<u8> {
        let Some(table) = &route.table else {
            return Ok(DRAW);
        };
        let Some(idx) = Self::routed_index(route, pos) else {
            return self.wdl(pos, turn);
        };
        match self.resolved(table, route, idx)? {
            Some(v) => Ok(v),
            None => self.wdl(pos, turn),
        }
    }

    /// The positions after a capture along `route` where the piece of slot
    /// `slot` (after the capture) moves and the others stand as in
    /// `after`: their index as a function of that piece's square (see
    /// [`Encoding::mover`](crate::tables::reader::Encoding::mover)). `None` where
    /// the piece cannot move so in the table's encoding, or no table or
    /// sub-table is there.
    pub(crate) fn routed_mover(
        route: &CaptureRoute,
        after: &Pos,
        slot: usize,
    ) -> Option<RoutedMover> {
        let (info, perm, mirror, squares) = Self::routed_squares(route, after)?;
        let t = perm[..after.n]
            .iter()
            .position(|&q| usize::from(q) == slot)?;
        if !info.encoding.can_move(t) {
            return None;
        }
        Some(RoutedMover {
            index: info.encoding.mover(&squares[..after.n], t)?,
            start: info.start,
            mirror,
        })
    }

    /// [`Closure::wdl_routed`] of the position that `mover` gives with its
    /// piece on `sq`, `turn` to move (`after` builds that position, for the
    /// general path where the value is not resolved yet).
    ///
    /// # Errors
    ///
    /// As [`Closure::wdl`].
    #[inline]
    pub(crate) fn wdl_routed_mover(
        &self,
        route: &CaptureRoute,
        mover: &RoutedMover,
        sq: u8,
        after: impl FnOnce() -> Pos,
        turn: Color,
    ) -> Result<u8> {
        let Some(table) = &route.table else {
            return Ok(DRAW);
        };
        let idx = mover.start + mover.index.index(sq ^ mover.mirror);
        match self.resolved(table, route, idx as usize)? {
            Some(v) => Ok(v),
            None => self.wdl(&after(), turn),
        }
    }

    /// The index, in its table's space for the route's side to move, of
    /// the position after a routed capture (`None` if the route has no
    /// sub-table for the leading pawn's file, or no table).
    #[inline]
    fn routed_index(route: &CaptureRoute, pos: &Pos) -> Option<usize> {
        let (info, _, _, mut squares) = Self::routed_squares(route, pos)?;
        let idx = info.encoding.encode(&mut squares[..pos.n])?;
        Some((info.start + idx) as usize)
    }

    /// The sub-table of the position `pos` after a routed capture, the
    /// route's slot map into it, the mirror of its colour frame (56 where
    /// the table holds the material colour-reversed) and the squares in
    /// its encoding order and frame (`None` as [`Closure::routed_index`]).
    #[inline]
    fn routed_squares<'r>(
        route: &'r CaptureRoute,
        pos: &Pos,
    ) -> Option<(&'r SubInfo, &'r [u8; MAX], u8, [u8; MAX])> {
        let table = route.table.as_ref()?;
        let file = route.lead.map_or(0, |l| usize::from(lead_file(pos.sq[l])));
        let (sub, perm) = route.subs[file].as_ref()?;
        let info = &table.layout.subs[*sub];
        let mirror = route.frame.mirror();
        let mut squares = [0u8; MAX];
        for (s, &q) in squares.iter_mut().zip(&perm[..pos.n]) {
            *s = pos.sq[usize::from(q)] ^ mirror;
        }
        Some((info, perm, mirror, squares))
    }

    /// The value at index `idx` of the route's table (its side to move)
    /// if a capture search has resolved it.
    #[inline]
    fn resolved(
        &self,
        table: &ClosureTable,
        route: &CaptureRoute,
        idx: usize,
    ) -> Result<Option<u8>> {
        let known = table.cell(&self.pages, route.frame.side, idx)?.load();
        Ok((known & RESOLVED != 0).then_some(known & !RESOLVED))
    }

    /// The true WDL (code 0..=4) of a legal position without en passant
    /// rights, for `turn` to move.
    ///
    /// # Errors
    ///
    /// A table of the closure is missing or damaged.
    pub(crate) fn wdl(&self, pos: &Pos, turn: Color) -> Result<u8> {
        if pos.n == 2 {
            return Ok(DRAW);
        }
        let counts = counts_of(pos.pc[..pos.n].iter().copied());
        let table = &self
            .by_counts
            .iter()
            .find(|(c, _)| *c == counts)
            .ok_or_else(|| {
                Error::inconsistent(
                    "the sweep",
                    format!("no table in the closure for {counts:?}"),
                )
            })?
            .1;
        let (pairs, n) = pos.pair_array();
        let loc = table
            .layout
            .locate(&pairs[..n], turn, false)
            .ok_or_else(|| {
                Error::inconsistent("the sweep", "position without an index in its WDL table")
            })?;
        let cell = table.cell(&self.pages, loc.side, loc.idx as usize)?;
        // Threads may resolve the same value at once: from the stored
        // value they compute the same true one, and either they read is
        // told apart by the flag.
        let known = cell.load();
        if known & RESOLVED != 0 {
            return Ok(known & !RESOLVED);
        }
        let mut v = known;
        if v != WIN {
            let mut failure = None;
            pos.for_each_move(turn, Kind::Captures, |m| {
                if v == WIN || failure.is_some() {
                    return;
                }
                match self.wdl(&pos.after(m), !turn) {
                    Ok(w) => v = v.max(flip(w)),
                    Err(e) => failure = Some(e),
                }
            });
            if let Some(e) = failure {
                return Err(e);
            }
        }
        cell.store(v | RESOLVED);
        Ok(v)
    }

    /// The WDL after a zeroing move, as shakmaty-syzygy's
    /// `probe_wdl_after_zeroing` gives it: `ep` is the square a pawn just
    /// passed over with a double step, if any; the side to move may capture
    /// en passant. `same_table` evaluates positions of the scanned table.
    ///
    /// # Errors
    ///
    /// As [`Closure::wdl`].
    pub(crate) fn wdl_with_ep(
        &self,
        pos: &Pos,
        turn: Color,
        ep: Option<u8>,
        plain: &dyn Fn(&Pos, Color) -> Result<u8>,
    ) -> Result<u8> {
        let v = plain(pos, turn)?;
        let Some(ep) = ep else {
            return Ok(v);
        };
        let mut best_ep: Option<u8> = None;
        let mut failure = None;
        pos.ep_captures(turn, ep, |m| {
            if failure.is_some() {
                return;
            }
            match self.wdl(&pos.after(m), !turn) {
                Ok(w) => best_ep = Some(best_ep.map_or(flip(w), |b| b.max(flip(w)))),
                Err(e) => failure = Some(e),
            }
        });
        if let Some(e) = failure {
            return Err(e);
        }
        let Some(best_ep) = best_ep else {
            return Ok(v);
        };
        // Stalemate but for the en passant capture: it is forced.
        let mut other_moves = false;
        pos.for_each_move(turn, Kind::All, |_| other_moves = true);
        if !other_moves {
            return Ok(best_ep);
        }
        Ok(v.max(best_ep))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::material::Material;

    /// Routed capture look-ups land on the index the general `locate`
    /// finds, for every capture of sampled placements of tables with and
    /// without pawns (a single leading pawn, two pawns of one colour,
    /// pawns of both colours), both sides to move.
    #[test]
    fn routes_agree_with_locate() {
        let dir = crate::tables::reader::tests::tables_dir();
        let inv = Inventory::scan(std::slice::from_ref(&dir)).unwrap();
        for name in ["KRBvKR", "KNNvKP", "KQPvKQ", "KRPvKR", "KPPvK", "KPvKP"] {
            let material: Material = name.parse().unwrap();
            let others: Vec<String> = material
                .closure()
                .into_iter()
                .filter(|n| *n != material.table_name())
                .collect();
            let files = ClosureFiles::open(&inv, &others, name).unwrap();
            let plan = crate::scan::sweep::plan::plan_memory(
                0,
                crate::scan::sweep::plan::Storage::held(false),
                &files.costs(),
                None,
            );
            let closure = Closure::hold(files, None, &plan);
            let file = SweepTable::open(
                &dir.join(format!("{}.rtbz", material.table_name())),
                TableKind::Dtz,
            )
            .unwrap();
            let layout = file.layout().clone();
            let mut checked = 0;
            for info in &layout.subs {
                let sub = &info.encoding;
                let routes: Vec<_> = (0..sub.pieces.len())
                    .map(|c| closure.route(&sub.pieces, c))
                    .collect();
                let step = (sub.size / 3000).max(1);
                for local in (0..sub.size).step_by(step as usize) {
                    let mut squares = [0u8; MAX];
                    sub.decode(local, &mut squares);
                    let pos = Pos::new(&sub.pieces, &squares);
                    for turn in [Color::White, Color::Black] {
                        if !pos.attacks().legal(turn) {
                            continue;
                        }
                        pos.for_each_move(turn, Kind::Captures, |m| {
                            let after = pos.after(m);
                            let Some(route) = routes[usize::from(m.cap)].as_ref() else {
                                return;
                            };
                            if m.promo.is_some() || after.n == 2 {
                                return;
                            }
                            let table = route.table.as_ref().unwrap();
                            let (pairs, n) = after.pair_array();
                            let loc = table.layout.locate(&pairs[..n], !turn, false).unwrap();
                            assert_eq!(loc.side, route.frame.side, "{name} {local} {m:?}");
                            assert_eq!(
                                Closure::routed_index(route, &after),
                                Some(loc.idx as usize),
                                "{name} {local} {m:?}"
                            );
                            checked += 1;
                        });
                    }
                }
            }
            assert!(checked > 1000, "{name}: only {checked} captures checked");
        }
    }
}
