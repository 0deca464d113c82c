//! Single positions answered from solved materials: the value of a
//! position under a rule, the value of each of its moves, and the best move,
//! for `probe --rule N`, `line --rule N` and the claims.
//!
//! The materials a position needs are solved once (or found in the cache)
//! and then read frame by frame from their cache files; with no cache the
//! files go to a temporary directory that lives as long as this value. A
//! line's own material with pawns, where the cache does not hold it whole,
//! is solved only in the slices its start reaches, and those values are
//! held here ([`Positions::prepare_position`]).

use std::{
    collections::{BTreeMap, HashMap},
    path::PathBuf,
    sync::{Arc, Mutex},
};

use shakmaty::{san::SanPlus, uci::UciMove, CastlingMode, Chess, Color, Move, Position};

use super::{
    cache::{Cache, CachedTable},
    cache_error::CacheError,
    layout::{Layout, Squares, MAX_PIECES},
    plan::{check_solved, MAX_SOLVE_PIECES},
    progress::Progress,
    solver::Solver,
    table::{class_of, class_under, Kept},
    value::{self, Outcome, SliceValues},
};
use crate::{
    chess::{
        material::Material,
        position::fen_of,
        rule::{Metric, Rule},
        wdl::{outcome_under, Dtz, Wdl},
    },
    error::{Error, Result},
    model::report::{MoveEval, ProbeReport},
};

/// A position's value under the solver's rule and metric.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Value {
    /// The class under the rule (for DTM: win, draw or loss).
    pub wdl: Wdl,
    /// The depth in plies, signed from the side to move (0 for a draw and
    /// for a checkmated side).
    pub depth: i32,
}

/// A directory removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Answers for single positions.
pub struct Positions<'p> {
    solver: Solver,
    rule: Rule,
    metric: Metric,
    progress: &'p dyn Progress,
    open: Mutex<HashMap<String, Arc<CachedTable>>>,
    /// Layouts by table name (making one of a pawn material enumerates its
    /// slices).
    layouts: Mutex<HashMap<String, Arc<Layout>>>,
    /// Per table name, the cached DTR that a rule's zeroing moves read
    /// their classes from (`None`: this rule's own values are cached, or
    /// no DTR is; see [`Positions::class_from_dtr`]).
    dtr: Mutex<HashMap<String, Option<Arc<CachedTable>>>>,
    /// Per table name, the values of the slices solved for a line's start
    /// alone (see [`Positions::prepare_position`]).
    reached: Mutex<HashMap<String, BTreeMap<usize, Arc<SliceValues>>>>,
    _temp: Option<TempDir>,
}

impl<'p> Positions<'p> {
    /// Answers under `rule` and `metric`, solving with `solver` what is not
    /// in its cache.
    ///
    /// # Errors
    ///
    /// [`Error::Output`] if a solver with no cache cannot make its
    /// temporary directory; [`Error::Usage`] for a metric the solver does
    /// not compute.
    pub fn new(
        solver: &Solver,
        rule: Rule,
        metric: Metric,
        progress: &'p dyn Progress,
    ) -> Result<Positions<'p>> {
        check_solved(metric)?;
        let mut solver = solver.clone();
        let mut temp = None;
        if solver.cache.is_none() {
            static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            let dir = std::env::temp_dir().join(format!(
                "fiftymove-solve-{}-{}",
                std::process::id(),
                COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            ));
            std::fs::create_dir_all(&dir).map_err(|error| Error::Output {
                path: dir.clone(),
                error,
            })?;
            solver.cache = Some(Cache::new(&dir));
            temp = Some(TempDir(dir));
        }
        let rule = if metric == Metric::Dtm {
            Rule::None
        } else {
            rule
        };
        Ok(Positions {
            solver,
            rule,
            metric,
            progress,
            open: Mutex::new(HashMap::new()),
            layouts: Mutex::new(HashMap::new()),
            dtr: Mutex::new(HashMap::new()),
            reached: Mutex::new(HashMap::new()),
            _temp: temp,
        })
    }

    /// The rule answered under.
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// Makes sure `material` and its closure are solved, before any
    /// position of them is asked for.
    ///
    /// # Errors
    ///
    /// As [`Solver::prepare`].
    pub fn prepare(&self, material: &Material) -> Result<()> {
        self.solver
            .prepare(material, self.rule, self.metric, self.progress)
    }

    /// Makes sure the positions a line from `pos` can reach are solved.
    /// For a material with pawns that the cache does not hold whole, that
    /// is the slices `pos`'s slice reaches (and what they read), held in
    /// memory (the solver's `reached_values`); otherwise as
    /// [`Positions::prepare`] its material. A position of another slice
    /// asked for later has its material solved whole.
    ///
    /// # Errors
    ///
    /// As [`Solver::prepare`].
    pub fn prepare_position(&self, pos: &Chess) -> Result<()> {
        let material = Material::from_board(pos.board())?;
        if !material.has_table() {
            return Ok(());
        }
        let layout = self.layout(&material);
        let whole_cached = self
            .solver
            .cache
            .as_ref()
            .is_some_and(|c| c.open(&layout, self.rule, self.metric).is_ok());
        let sq = squares(&layout, pos, material.is_flipped_in_table());
        let start = layout.locate(&sq).map(|(slice, _)| slice);
        let (true, false, Some(start)) = (layout.has_pawns(), whole_cached, start) else {
            return self.prepare(&material);
        };
        let name = material.table_name();
        if self
            .reached
            .lock()
            .expect("no panic while held")
            .get(&name)
            .is_some_and(|r| r.contains_key(&start))
        {
            return Ok(());
        }
        let solved =
            self.solver
                .reached_values(&material, self.rule, self.metric, start, self.progress)?;
        self.reached
            .lock()
            .expect("no panic while held")
            .entry(name)
            .or_default()
            .extend(solved.into_iter().map(|(s, v)| (s, Arc::new(v))));
        Ok(())
    }

    /// The value of `entry` of `slice` (white or black to move: `side`)
    /// of `material`, if that slice was solved for a line's start alone.
    fn reached_value(
        &self,
        material: &Material,
        side: usize,
        slice: usize,
        entry: usize,
    ) -> Option<u16> {
        let reached = self.reached.lock().expect("no panic while held");
        let values = reached.get(&material.table_name())?.get(&slice)?.clone();
        drop(reached);
        Some(values[side][entry])
    }

    fn layout(&self, material: &Material) -> Arc<Layout> {
        self.layouts
            .lock()
            .expect("no panic while held")
            .entry(material.table_name())
            .or_insert_with(|| Arc::new(Layout::new(material)))
            .clone()
    }

    fn table(&self, material: &Material) -> Result<Arc<CachedTable>> {
        let name = material.table_name();
        if let Some(t) = self.open.lock().expect("no panic while held").get(&name) {
            return Ok(t.clone());
        }
        let layout = self.layout(material);
        let cache = self
            .solver
            .cache
            .as_ref()
            .expect("a cache, maybe temporary");
        let mut solved_again = false;
        let table = loop {
            match cache.open(&layout, self.rule, self.metric) {
                Ok(t) => break t,
                Err(CacheError::Missing) if !solved_again => {}
                Err(CacheError::Damaged(why)) if !solved_again => {
                    self.progress
                        .note(&format!("damaged cache file, solving again: {why}"));
                    std::fs::remove_file(cache.path(&name, self.rule, self.metric)).ok();
                }
                Err(CacheError::Io(e)) => {
                    return Err(Error::Output {
                        path: cache.path(&name, self.rule, self.metric),
                        error: e,
                    })
                }
                Err(_) => {
                    return Err(Error::SolveCache {
                        material: name,
                        dir: Some(cache.dir().to_path_buf()),
                    })
                }
            }
            self.prepare(material)?;
            solved_again = true;
        };
        let table = Arc::new(table);
        self.open
            .lock()
            .expect("no panic while held")
            .insert(name, table.clone());
        Ok(table)
    }

    /// The solved value of a position without an en-passant right.
    fn stored(&self, pos: &Chess) -> Result<Outcome> {
        let material = Material::from_board(pos.board())?;
        if !material.has_table() {
            return Ok(Outcome::Draw);
        }
        let flipped = material.is_flipped_in_table();
        let layout = self.layout(&material);
        let sq = squares(&layout, pos, flipped);
        let side = usize::from((pos.turn() == Color::Black) != flipped);
        let (slice, entry) = layout
            .locate(&sq)
            .ok_or_else(|| Error::position(&fen_of(pos), "not a position the solver indexes"))?;
        if let Some(v) = self.reached_value(&material, side, slice, entry) {
            return value::outcome(v).ok_or_else(|| no_value(&material, pos));
        }
        let table = self.table(&material)?;
        let read = |t: &CachedTable| match t.get(side, slice, entry) {
            Ok(v) => Ok(Some(v)),
            Err(CacheError::Damaged(why)) => {
                self.progress
                    .note(&format!("damaged cache file, solving again: {why}"));
                Ok(None)
            }
            Err(CacheError::Io(error)) => Err(Error::Output {
                path: t.path().to_path_buf(),
                error,
            }),
            Err(CacheError::Missing) => Ok(None),
        };
        let v = match read(&table)? {
            Some(v) => v,
            None => {
                // A frame failed its check: solve the material again.
                std::fs::remove_file(table.path()).ok();
                self.open
                    .lock()
                    .expect("no panic while held")
                    .remove(&material.table_name());
                let fresh = self.table(&material)?;
                read(&fresh)?.ok_or_else(|| Error::SolveCache {
                    material: material.to_string(),
                    dir: None,
                })?
            }
        };
        value::outcome(v).ok_or_else(|| no_value(&material, pos))
    }

    /// The outcome of a position: its stored value, or with an en-passant
    /// right the best of its moves.
    pub(super) fn outcome(&self, pos: &Chess) -> Result<Outcome> {
        if pos.ep_square(shakmaty::EnPassantMode::Legal).is_none() {
            return self.stored(pos);
        }
        let mut best: Option<Outcome> = None;
        for m in pos.legal_moves() {
            let o = self.through(pos, m)?;
            best = Some(best.map_or(o, |b| b.best(o)));
        }
        Ok(best.unwrap_or(Outcome::Draw))
    }

    /// What move `m` of `pos` is worth to the side that makes it.
    fn through(&self, pos: &Chess, m: Move) -> Result<Outcome> {
        let mut after = pos.clone();
        after.play_unchecked(m);
        if m.is_zeroing() && self.metric == Metric::Dtz {
            // A zeroing move counts by the class it leads to.
            let class = match self.class_from_dtr(&after)? {
                Some(class) => class,
                None => self.class(self.outcome(&after)?),
            };
            return Ok(Kept::Class(class).through(self.rule));
        }
        let child = self.outcome(&after)?;
        if self.metric == Metric::Dtr {
            // The rule a move needs is at least the rule its position
            // needs (not more than a ply above it): moves are ranked by it.
            return Ok(match child {
                Outcome::Win(r) => Outcome::Loss(r),
                Outcome::Loss(r) => Outcome::Win(r),
                Outcome::Draw => Outcome::Draw,
            });
        }
        // Quiet moves, and zeroing ones for DTM: one ply more.
        Ok(match child {
            Outcome::Win(d) => Outcome::Loss(d + 1),
            Outcome::Loss(d) => Outcome::Win(d + 1),
            Outcome::Draw => Outcome::Draw,
        })
    }

    /// The class under this rule's DTZ of `after`, a position a zeroing
    /// move leads to, from its material's cached DTR where this rule's own
    /// values of it are neither open nor cached: a position is won under
    /// an `N`-move rule exactly when its DTR is at most `2N` plies. So a
    /// line's zeroing moves into materials it never enters (a promotion to
    /// a rook where the queen wins) read a value instead of solving the
    /// material under the rule; a DTR claim's line finds the DTR just made.
    /// `None` where this does not apply (no rule, another metric, an
    /// en-passant right, a damaged frame): the caller reads the rule's own
    /// values.
    pub(super) fn class_from_dtr(&self, after: &Chess) -> Result<Option<Wdl>> {
        if self.rule == Rule::None
            || self.metric != Metric::Dtz
            || after.ep_square(shakmaty::EnPassantMode::Legal).is_some()
        {
            return Ok(None);
        }
        let material = Material::from_board(after.board())?;
        let name = material.table_name();
        // A material this rule's values are at hand for is read as itself
        // (open whole, or solved in the slices a line reaches).
        if !material.has_table()
            || self
                .open
                .lock()
                .expect("no panic while held")
                .contains_key(&name)
            || self
                .reached
                .lock()
                .expect("no panic while held")
                .contains_key(&name)
        {
            return Ok(None);
        }
        let layout = self.layout(&material);
        let table = {
            let mut dtr = self.dtr.lock().expect("no panic while held");
            dtr.entry(name)
                .or_insert_with(|| {
                    let cache = self.solver.cache.as_ref()?;
                    if cache.open(&layout, self.rule, self.metric).is_ok() {
                        return None;
                    }
                    cache
                        .open(&layout, Rule::None, Metric::Dtr)
                        .ok()
                        .map(Arc::new)
                })
                .clone()
        };
        let Some(table) = table else {
            return Ok(None);
        };
        let flipped = material.is_flipped_in_table();
        let sq = squares(&layout, after, flipped);
        let side = usize::from((after.turn() == Color::Black) != flipped);
        let Some((slice, entry)) = layout.locate(&sq) else {
            return Ok(None);
        };
        Ok(table
            .get(side, slice, entry)
            .ok()
            .and_then(|v| class_of(v, self.rule)))
    }

    pub(super) fn class(&self, o: Outcome) -> Wdl {
        class_under(o, self.rule)
    }

    fn value_of(&self, o: Outcome) -> Value {
        Value {
            wdl: self.class(o),
            depth: match o {
                Outcome::Win(d) => i32::from(d),
                Outcome::Loss(d) => -i32::from(d),
                Outcome::Draw => 0,
            },
        }
    }

    /// The value of a position (its halfmove clock is not looked at).
    ///
    /// # Errors
    ///
    /// As for solving its material; [`Error::Position`] for more pieces
    /// than the solver takes.
    pub fn value(&self, pos: &Chess) -> Result<Value> {
        let n = pos.board().occupied().count();
        if n > MAX_SOLVE_PIECES {
            return Err(Error::position(
                &fen_of(pos),
                format!("{n} pieces; the solver takes at most {}", MAX_SOLVE_PIECES),
            ));
        }
        Ok(self.value_of(self.outcome(pos)?))
    }

    /// The best move of a decisive position and the position's depth (the
    /// winner's quickest, the loser's slowest; ties by UCI), or `None` for a
    /// draw or a checkmated side.
    ///
    /// # Errors
    ///
    /// As [`Positions::value`].
    pub fn best_move(&self, pos: &Chess) -> Result<Option<(Move, i32)>> {
        let own = self.outcome(pos)?;
        if own == Outcome::Draw || pos.is_checkmate() {
            return Ok(None);
        }
        let mut best: Option<(Outcome, String, Move)> = None;
        for m in pos.legal_moves() {
            let o = self.through(pos, m)?;
            let uci = UciMove::from_move(m, CastlingMode::Standard).to_string();
            let better = match &best {
                None => true,
                Some((b, u, _)) => o.rank() > b.rank() || (o == *b && uci < *u),
            };
            if better {
                best = Some((o, uci, m));
            }
        }
        let (o, _, m) = best.expect("a position that is not mated has moves");
        if o != own {
            return Err(Error::inconsistent(
                "the solver",
                format!(
                    "no move of {} reaches its value {own:?}; the solve is inconsistent",
                    fen_of(pos)
                ),
            ));
        }
        Ok(Some((m, self.value_of(own).depth)))
    }

    /// Everything `probe` reports, from the solver.
    ///
    /// # Errors
    ///
    /// As [`Positions::value`].
    pub fn report(&self, pos: &Chess) -> Result<ProbeReport> {
        let material = Material::from_board(pos.board())?;
        if material.has_table() {
            self.prepare(&material)?;
        }
        let own = self.value(pos)?;
        let mut moves = Vec::new();
        for m in pos.legal_moves() {
            let mut after = pos.clone();
            after.play_unchecked(m);
            let child = self.value(&after)?;
            let mover = self.through(pos, m)?;
            moves.push((
                mover,
                MoveEval {
                    uci: UciMove::from_move(m, CastlingMode::Standard).to_string(),
                    san: SanPlus::from_move(pos.clone(), m).to_string(),
                    wdl: child.wdl,
                    dtz: Dtz(child.depth),
                    zeroing: m.is_zeroing(),
                    inexact: None,
                    mover_dtz: None,
                },
            ));
        }
        moves.sort_by(|(a, x), (b, y)| b.rank().cmp(&a.rank()).then_with(|| x.uci.cmp(&y.uci)));
        let mated = pos.is_checkmate();
        Ok(ProbeReport {
            fen: fen_of(pos),
            material: material.to_string(),
            wdl: own.wdl,
            dtz: Dtz(own.depth),
            halfmove_clock: pos.halfmoves(),
            outcome_with_clock: outcome_under(
                self.rule,
                own.wdl,
                own.depth,
                pos.halfmoves(),
                mated,
            ),
            moves: moves.into_iter().map(|(_, m)| m).collect(),
            engine: Some("solve".to_owned()),
            rule: Some(self.rule),
            metric: Some(self.metric),
            inexact: None,
        })
    }
}

/// The squares of a position's pieces in `layout`'s slots (its material in
/// the table's colours: swapped, and the board mirrored rank for rank, if
/// `flipped`).
fn squares(layout: &Layout, pos: &Chess, flipped: bool) -> Squares {
    let mut sq: Squares = [0; MAX_PIECES];
    let mut used = [false; MAX_PIECES];
    for (s, p) in pos.board().iter() {
        let color = if flipped { !p.color } else { p.color };
        let slot = (0..layout.slots())
            .find(|&i| {
                !used[i] && layout.pieces[i].color == color && layout.pieces[i].role == p.role
            })
            .expect("the position's material is the layout's");
        used[slot] = true;
        sq[slot] = if flipped { s as u8 ^ 56 } else { s as u8 };
    }
    sq
}

/// The error for a solved material that holds no value for `pos`.
fn no_value(material: &Material, pos: &Chess) -> Error {
    Error::inconsistent(
        "the solver",
        format!(
            "the solve of {} holds no value for {}",
            material.table_name(),
            fen_of(pos)
        ),
    )
}

impl crate::model::line::LineOracle for Positions<'_> {
    fn depth(&self, pos: &Chess) -> Result<i32> {
        Ok(self.value(pos)?.depth)
    }

    fn best_move(&self, pos: &Chess) -> Result<Option<(Move, i32)>> {
        Positions::best_move(self, pos)
    }
}
