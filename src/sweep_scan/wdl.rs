//! WDL values of the tables that captures and promotions lead to, in
//! memory: each table's stored values are decoded once (lazily, per side),
//! and the true value of a position resolves the "don't care" entries with
//! its captures, exactly as shakmaty-syzygy's `probe` does (without en
//! passant, which the caller handles). Resolved values are memoised.

use std::sync::{
    atomic::{AtomicU8, Ordering},
    Arc, OnceLock,
};

use shakmaty::Color;

use super::{
    board::{Kind, Pos},
    codec::{counts_of, parse_counts, Counts, TableCodec},
    table_error,
};
use crate::{
    error::{Error, Result},
    sweep::{SweepTable, TableKind},
    tables::Inventory,
};

/// WDL codes as the sweep decoder gives them.
pub(crate) const LOSS: u8 = 0;
/// Blessed loss.
pub(crate) const BLESSED: u8 = 1;
/// Draw.
pub(crate) const DRAW: u8 = 2;
/// Cursed win.
pub(crate) const CURSED: u8 = 3;
/// Win.
pub(crate) const WIN: u8 = 4;

/// Not yet resolved.
const UNKNOWN: u8 = 0xff;

/// The value for the other side.
#[inline]
pub(crate) fn flip(w: u8) -> u8 {
    4 - w
}

/// One table of the closure.
pub(crate) struct ClosureTable {
    pub(crate) codec: TableCodec,
    file: SweepTable,
    raw: [OnceLock<std::result::Result<Vec<u8>, String>>; 2],
    memo: [OnceLock<Vec<AtomicU8>>; 2],
}

fn side_idx(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

impl ClosureTable {
    fn raw(&self, side: Color) -> Result<&[u8]> {
        let r = self.raw[side_idx(side)].get_or_init(|| {
            let len = self.file.index_len(side);
            let mut v = vec![0u8; len as usize];
            self.file
                .decode(side, 0..len, &mut v)
                .map(|()| v)
                .map_err(|e| e.to_string())
        });
        r.as_deref().map_err(|e| Error::Table {
            what: self.file.path().display().to_string(),
            detail: e.clone(),
        })
    }

    fn memo(&self, side: Color) -> &[AtomicU8] {
        self.memo[side_idx(side)].get_or_init(|| {
            let len = self.file.index_len(side) as usize;
            (0..len).map(|_| AtomicU8::new(UNKNOWN)).collect()
        })
    }
}

/// The closure's WDL tables, the scanned table excluded.
pub(crate) struct Closure {
    /// Tables by piece counts, both colour orientations (a short list: a
    /// linear scan beats hashing).
    by_counts: Vec<(Counts, Arc<ClosureTable>)>,
}

impl Closure {
    /// Opens every table of `names` (normalised table names).
    ///
    /// # Errors
    ///
    /// Missing or unreadable files.
    pub(crate) fn open(inv: &Inventory, names: &[String], needed_for: &str) -> Result<Closure> {
        let mut by_counts = Vec::new();
        for name in names {
            let file_name = format!("{name}.rtbw");
            let path = inv.path(&file_name).ok_or_else(|| Error::MissingTables {
                needed_for: needed_for.to_owned(),
                files: vec![file_name.clone()],
            })?;
            let file = SweepTable::open(path, TableKind::Wdl).map_err(table_error)?;
            let codec = TableCodec::of(&file).ok_or_else(|| Error::Table {
                what: file_name.clone(),
                detail: "unrecognised index encoding".into(),
            })?;
            let counts =
                parse_counts(name).ok_or_else(|| Error::Other(format!("bad name {name}")))?;
            let table = Arc::new(ClosureTable {
                codec,
                file,
                raw: [OnceLock::new(), OnceLock::new()],
                memo: [OnceLock::new(), OnceLock::new()],
            });
            by_counts.push((counts, table.clone()));
            by_counts.push(([counts[1], counts[0]], table));
        }
        Ok(Closure { by_counts })
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
            .ok_or_else(|| Error::Other(format!("no table in the closure for {counts:?}")))?
            .1;
        let (pairs, n) = pos.pair_array();
        let loc = table
            .codec
            .locate(&pairs[..n], turn, false)
            .ok_or_else(|| Error::Other("position without an index in its WDL table".into()))?;
        let memo = table.memo(loc.side);
        let cell = &memo[loc.idx as usize];
        let known = cell.load(Ordering::Relaxed);
        if known != UNKNOWN {
            return Ok(known);
        }
        let mut v = table.raw(loc.side)?[loc.idx as usize];
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
        cell.store(v, Ordering::Relaxed);
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
