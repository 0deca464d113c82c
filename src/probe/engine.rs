//! The probe engine: one position at a time, through shakmaty-syzygy, with
//! DTZ rounding resolved exactly by searching the successors.
//!
//! Conventions (docs/design.md section 1): DTZ is signed plies from the side to
//! move, positive when it wins. A checkmated side to move has DTZ 0. Cursed
//! wins and blessed losses have magnitude above 100.

use std::collections::HashMap;

use shakmaty::{san::SanPlus, uci::UciMove, CastlingMode, Chess, Color, Move, Position, Role};
use shakmaty_syzygy::{MaybeRounded, ProbeError, SyzygyError, Tablebase};

mod natural;

use crate::{
    chess::{
        material::Material,
        wdl::{outcome_with_clock, Wdl},
    },
    error::{guard_table_read, Error, Result},
    model::dtz::{self, Dtz, RoundedDtz},
    model::report::{MoveEval, MoveInexact, NotExact, ProbeReport},
    tables::remote::Remote,
};

/// The evaluation shakmaty-syzygy reports, as ours.
fn wdl_from_syzygy(wdl: shakmaty_syzygy::Wdl) -> Wdl {
    match wdl {
        shakmaty_syzygy::Wdl::Loss => Wdl::Loss,
        shakmaty_syzygy::Wdl::BlessedLoss => Wdl::BlessedLoss,
        shakmaty_syzygy::Wdl::Draw => Wdl::Draw,
        shakmaty_syzygy::Wdl::CursedWin => Wdl::CursedWin,
        shakmaty_syzygy::Wdl::Win => Wdl::Win,
    }
}

/// A position's values: exact, or what is known when a service's request
/// budget ran out first.
#[derive(Clone, Copy, Debug)]
struct Value {
    wdl: Wdl,
    dtz: i32,
    /// The other possible values, when not exact.
    alt: Option<(Wdl, i32)>,
}

/// What the memo and the tables tell of a position before any search.
enum Known {
    /// Its exact DTZ.
    Exact(i32),
    /// Its key and its raw value, which may be rounded.
    Raw(Key, MaybeRounded<i32>),
}

/// The result a DTZ implies (clock 0): [`Dtz::wdl`].
fn wdl_of_dtz(dtz: i32) -> Wdl {
    Dtz(dtz).wdl()
}

/// Whether `e` says that a service's request budget ran out.
fn budget_ran_out(e: &Error) -> bool {
    matches!(e, Error::RemoteBudget { .. })
}

/// Key for the memo of exact DTZ values: the occupied squares, the piece
/// on each (4 bits, in square order; at most 7 pieces), the side to move and
/// the en-passant square. Compact, so that a memo of tens of millions of
/// positions fits in memory.
type Key = u128;

/// A memo of exact DTZ values, to share rounding resolution across queries
/// about nearby positions (the plies of one line, for example).
#[derive(Default)]
pub struct DtzMemo {
    /// Exact values found so far.
    exact: HashMap<Key, i32>,
    /// shakmaty-syzygy's raw (maybe rounded) values, which for the side a
    /// DTZ file does not store cost a one-ply search each.
    raw: HashMap<Key, MaybeRounded<i32>>,
}

impl DtzMemo {
    /// An empty memo.
    pub fn new() -> DtzMemo {
        DtzMemo::default()
    }
}

fn key(pos: &Chess) -> Key {
    let board = pos.board();
    let mut codes: u128 = 0;
    for (i, (_, piece)) in board.iter().enumerate().take(7) {
        let code = (piece.role as u128) | (u128::from(piece.color == Color::White) << 3);
        codes |= code << (4 * i);
    }
    let ep = pos.maybe_ep_square().map_or(0, |sq| u128::from(sq) + 1);
    u128::from(board.occupied().0)
        | codes << 64
        | u128::from(pos.turn() == Color::White) << 92
        | ep << 93
}

/// Where the probe engine reads its raw values.
enum Source {
    /// Syzygy files, through shakmaty-syzygy.
    Files(Tablebase<Chess>),
    /// A tablebase service (boxed: its client and memo are large).
    Remote(Box<Remote>),
}

/// The probe engine: one shakmaty-syzygy probe per position, rounding
/// resolved by search. Simple, and the oracle for faster engines.
///
/// It reads the Syzygy files, or a tablebase service (which reads them with
/// shakmaty-syzygy too): both give the same raw values, maybe rounded, and
/// the engine makes them exact the same way.
pub struct Prober {
    source: Source,
}

impl Prober {
    /// Wraps an opened tablebase.
    pub fn new(tb: Tablebase<Chess>) -> Prober {
        Prober {
            source: Source::Files(tb),
        }
    }

    /// Reads a tablebase service instead of files.
    pub fn remote(remote: Remote) -> Prober {
        Prober {
            source: Source::Remote(Box::new(remote)),
        }
    }

    /// The service this engine reads, if it reads one.
    pub fn remote_source(&self) -> Option<&Remote> {
        match &self.source {
            Source::Remote(r) => Some(r),
            Source::Files(_) => None,
        }
    }

    /// The five-valued WDL of `pos`, assuming the clock is 0.
    ///
    /// # Errors
    ///
    /// [`Error::MissingTables`] or [`Error::Table`] when a table is absent or
    /// damaged; [`Error::Remote`] when a service cannot be reached or
    /// answers something unusable.
    pub fn wdl(&self, pos: &Chess) -> Result<Wdl> {
        match &self.source {
            Source::Files(tb) => guard_table_read(
                || guarded_tables(pos, "rtbw"),
                || {
                    tb.probe_wdl_after_zeroing(pos)
                        .map(wdl_from_syzygy)
                        .map_err(|e| table_error(e, pos))
                },
            ),
            Source::Remote(_) => self.wdl_from_dtz(pos),
        }
    }

    /// The WDL a service's raw DTZ implies. A service sends no WDL table's
    /// value, and its category depends on the clock and is not always
    /// exact; the raw DTZ decides except where it is "100 or 101" plies
    /// (win or cursed win), and there the exact DTZ does.
    fn wdl_from_dtz(&self, pos: &Chess) -> Result<Wdl> {
        if pos.is_checkmate() {
            return Ok(Wdl::Loss);
        }
        let (v, rounded) = match trusted(self.raw_dtz(pos)?) {
            MaybeRounded::Precise(v) => (v, false),
            MaybeRounded::Rounded(v) => (v, true),
        };
        if rounded && v.abs() == 100 {
            return Ok(self.dtz(pos)?.wdl());
        }
        Ok(wdl_of_dtz(v))
    }

    /// The exact DTZ of `pos`, in plies, signed from the side to move.
    ///
    /// # Errors
    ///
    /// As for [`Prober::wdl`].
    pub fn dtz(&self, pos: &Chess) -> Result<Dtz> {
        self.dtz_memo(pos, &mut DtzMemo::new()).map(Dtz)
    }

    /// [`Prober::dtz`] with a memo shared across calls. The memo is cleared
    /// when it grows past twenty million entries (about 600 MB), to bound memory.
    ///
    /// # Errors
    ///
    /// As for [`Prober::wdl`].
    pub fn dtz_with(&self, pos: &Chess, memo: &mut DtzMemo) -> Result<Dtz> {
        if memo.exact.len() + memo.raw.len() > 20_000_000 {
            memo.exact.clear();
            memo.raw.clear();
        }
        self.dtz_memo(pos, memo).map(Dtz)
    }

    /// The raw shakmaty-syzygy DTZ, which may be rounded (`n` meaning `n` or
    /// `n+1` plies in magnitude).
    ///
    /// # Errors
    ///
    /// As for [`Prober::wdl`].
    pub fn raw_dtz(&self, pos: &Chess) -> Result<MaybeRounded<i32>> {
        match &self.source {
            Source::Files(tb) => guard_table_read(
                || guarded_tables(pos, "rtbz"),
                || {
                    tb.probe_dtz(pos)
                        .map(|d| d.map(|d| d.0))
                        .map_err(|e| table_error(e, pos))
                },
            ),
            Source::Remote(r) => r.raw_dtz(pos),
        }
    }

    /// The raw value, through the memo, as an interval the exact search can
    /// trust: a loss that shakmaty-syzygy calls precise is taken as rounded
    /// unless it is 4 to 101 plies (see `trusted`).
    /// For the side a DTZ file does not store, shakmaty-syzygy searches one
    /// ply and keeps the first of two equal candidates; when a precise `k`
    /// comes before a rounded `k` ("k or k+1"), it answers a precise `k`
    /// although the loser may reach `k + 1` (seen on KPvKR). A true loss of
    /// `k` plies is also `k` or `k + 1`, so nothing is lost but a search.
    fn raw_memo(&self, pos: &Chess, k: Key, memo: &mut DtzMemo) -> Result<MaybeRounded<i32>> {
        if let Some(v) = memo.raw.get(&k) {
            return Ok(*v);
        }
        let v = trusted(self.raw_dtz(pos)?);
        memo.raw.insert(k, v);
        Ok(v)
    }

    /// The exact DTZ of `pos` where it is known already (a mate, or in
    /// the memo), else its key and raw value: the start of both
    /// [`Prober::dtz_memo`] and [`Prober::natural_dtz`].
    fn known_or_raw(&self, pos: &Chess, memo: &mut DtzMemo) -> Result<Known> {
        if pos.is_checkmate() {
            return Ok(Known::Exact(0));
        }
        let k = key(pos);
        if let Some(v) = memo.exact.get(&k) {
            return Ok(Known::Exact(*v));
        }
        Ok(Known::Raw(k, self.raw_memo(pos, k, memo)?))
    }

    fn dtz_memo(&self, pos: &Chess, memo: &mut DtzMemo) -> Result<i32> {
        let (k, raw) = match self.known_or_raw(pos, memo)? {
            Known::Exact(v) => return Ok(v),
            Known::Raw(k, raw) => (k, raw),
        };
        let v = match raw {
            MaybeRounded::Precise(v) => v,
            MaybeRounded::Rounded(v) => {
                let n = v.abs();
                let sign = v.signum();
                let loser = if sign > 0 { !pos.turn() } else { pos.turn() };
                let rounded = RoundedDtz {
                    plies: n,
                    mover_wins: sign > 0,
                };
                let magnitude = if phase_parity_is_natural(pos, loser) {
                    rounded.by_parity()
                } else {
                    let target = rounded.search_target();
                    rounded.by_search(self.some_move_scores(pos, sign, target, memo)?)
                };
                sign * magnitude
            }
        };
        memo.exact.insert(k, v);
        memo.raw.remove(&k);
        Ok(v)
    }

    /// Whether some legal move gives the mover (whose DTZ sign is `sign`)
    /// exactly `target` plies.
    fn some_move_scores(
        &self,
        pos: &Chess,
        sign: i32,
        target: i32,
        memo: &mut DtzMemo,
    ) -> Result<bool> {
        Ok(self.move_scoring(pos, sign, target, memo, false)?.is_some())
    }

    /// The first legal move, in UCI order, that gives the mover (whose DTZ
    /// sign is `sign`) exactly `target` plies.
    ///
    /// The caller guarantees a bound: for a winner (`sign > 0`) the true DTZ
    /// magnitude is at least `target`; for a loser it is at most `target`.
    fn first_move_scoring(
        &self,
        pos: &Chess,
        sign: i32,
        target: i32,
        memo: &mut DtzMemo,
    ) -> Result<Option<Move>> {
        self.move_scoring(pos, sign, target, memo, true)
    }

    /// A legal move that gives the mover (whose DTZ sign is `sign`)
    /// exactly `target` plies: the first in UCI order when `first`, else
    /// any, found with as few look-ups as can be.
    ///
    /// First every move is judged from what is known already (a service's
    /// answer carries every move's result, its DTZ, whether it is precise,
    /// and the zeroing moves): a move scores, does not, or is open (its
    /// successor's rounded value admits the target, and only its exact
    /// value can tell). Only the open ones are resolved, by the search down
    /// the phase. When any move will do, those that the natural parity
    /// (odd for the winner to move, even for the loser) says score are
    /// resolved first, and of those the ones whose values cost no request.
    fn move_scoring(
        &self,
        pos: &Chess,
        sign: i32,
        target: i32,
        memo: &mut DtzMemo,
        first: bool,
    ) -> Result<Option<Move>> {
        self.fetch_moves(pos)?;
        let mut moves: Vec<Move> = pos.legal_moves().into_iter().collect();
        moves.sort_by_cached_key(|m| UciMove::from_move(*m, CastlingMode::Standard).to_string());
        let mut open: Vec<(Move, Chess, bool)> = Vec::new();
        for m in moves {
            let mut after = pos.clone();
            after.play_unchecked(m);
            match self.judge_move(m, &after, sign, target, memo)? {
                Judged::Scores if !first || open.is_empty() => return Ok(Some(m)),
                Judged::Scores => {
                    // Only an open move before it can come first.
                    for (o, after, _) in &open {
                        if self.dtz_memo(after, memo)?.abs() == target - 1 {
                            return Ok(Some(*o));
                        }
                    }
                    return Ok(Some(m));
                }
                Judged::Misses => {}
                Judged::Open { likely } => open.push((m, after, likely)),
            }
        }
        if !first {
            let remote = self.remote_source();
            // Stable: UCI order within each class.
            open.sort_by_cached_key(|(_, after, likely)| {
                (!*likely, remote.is_some_and(|r| r.costs_request(after)))
            });
        }
        for (m, after, _) in open {
            if self.dtz_memo(&after, memo)?.abs() == target - 1 {
                return Ok(Some(m));
            }
        }
        Ok(None)
    }

    /// From a service: asks for `pos`'s own answer when the value of some
    /// move's result is not known yet. One answer carries every move's
    /// value; asking for each result instead costs a request a move.
    fn fetch_moves(&self, pos: &Chess) -> Result<()> {
        if let Some(remote) = self.remote_source() {
            let unknown = pos.legal_moves().into_iter().any(|m| {
                let mut after = pos.clone();
                after.play_unchecked(m);
                !remote.knows(&after)
            });
            if unknown {
                remote.answer(pos)?;
            }
        }
        Ok(())
    }

    /// Whether move `m`, leading to `after`, gives the mover (whose DTZ
    /// sign is `sign`) exactly `target` plies, as far as the known values
    /// tell, within the caller's bound (see [`Prober::first_move_scoring`]).
    fn judge_move(
        &self,
        m: Move,
        after: &Chess,
        sign: i32,
        target: i32,
        memo: &mut DtzMemo,
    ) -> Result<Judged> {
        let hit = |yes: bool| if yes { Judged::Scores } else { Judged::Misses };
        let mated = after.is_checkmate();
        if m.is_zeroing() || mated {
            let wdl_after = if mated { Wdl::Loss } else { self.wdl(after)? };
            return Ok(hit(zeroing_score(sign, wdl_after, mated) == Some(target)));
        }
        // Non-zeroing: the mover scores 1 + |dtz(after)| when `after` has
        // the opposite sign.
        let need = target - 1;
        let k = key(after);
        if let Some(v) = memo.exact.get(&k) {
            return Ok(hit(v.signum() == -sign && v.abs() == need));
        }
        let raw = self.raw_memo(after, k, memo)?;
        if raw.ignore_rounding().signum() != -sign {
            return Ok(Judged::Misses);
        }
        Ok(match raw {
            MaybeRounded::Precise(v) => hit(v.abs() == need),
            MaybeRounded::Rounded(v) => {
                // The successor is `a` or `a + 1`. The caller's bound clips
                // that interval: a winner's true DTZ is at least the target,
                // so no successor is below `need`; a loser's is at most the
                // target, so none is above `need`. Only the interval that
                // straddles `need` on the open side needs a search.
                let a = v.abs();
                let (certain, open) = if sign > 0 {
                    (a + 1 == need, a == need)
                } else {
                    (a == need, a + 1 == need)
                };
                if certain {
                    Judged::Scores
                } else if open {
                    // The successor's side wins when the mover loses.
                    let natural = RoundedDtz {
                        plies: a,
                        mover_wins: sign < 0,
                    }
                    .by_parity();
                    Judged::Open {
                        likely: natural == need,
                    }
                } else {
                    Judged::Misses
                }
            }
        })
    }

    /// The DTZ-optimal move of a decisive position: the winner's fastest
    /// zeroing, the loser's slowest; ties go to the first move in UCI order.
    /// `None` for drawn or finished positions.
    ///
    /// # Errors
    ///
    /// As for [`Prober::wdl`]; [`Error::Inconsistent`] if the tables contradict
    /// themselves (no move achieves the position's DTZ).
    pub fn best_move(&self, pos: &Chess, memo: &mut DtzMemo) -> Result<Option<(Move, i32)>> {
        let dtz = self.dtz_memo(pos, memo)?;
        if dtz == 0 {
            return Ok(None);
        }
        match self.first_move_scoring(pos, dtz.signum(), dtz.abs(), memo)? {
            Some(m) => Ok(Some((m, dtz))),
            None => Err(Error::inconsistent(
                "the probe engine",
                format!(
                    "no move of {} achieves its DTZ {dtz}; the tables are inconsistent",
                    crate::chess::position::fen_of(pos)
                ),
            )),
        }
    }

    /// The values of `pos`: exact, or, when a service's request budget ran
    /// out before the rounding was settled, the rounded value's two ends.
    fn value(&self, pos: &Chess, memo: &mut DtzMemo) -> Result<Value> {
        if pos.is_checkmate() {
            return Ok(Value {
                wdl: Wdl::Loss,
                dtz: 0,
                alt: None,
            });
        }
        match self.dtz_with(pos, memo) {
            Ok(Dtz(dtz)) => {
                let wdl = match &self.source {
                    Source::Files(_) => self.wdl(pos)?,
                    Source::Remote(_) => wdl_of_dtz(dtz),
                };
                Ok(Value {
                    wdl,
                    dtz,
                    alt: None,
                })
            }
            Err(e) if budget_ran_out(&e) => {
                // The raw value is known unless the position itself was
                // never asked for (then this fails with the same error).
                let v = self.raw_memo(pos, key(pos), memo)?.ignore_rounding();
                let other = v + v.signum();
                Ok(Value {
                    wdl: wdl_of_dtz(v),
                    dtz: v,
                    alt: Some((wdl_of_dtz(other), other)),
                })
            }
            Err(e) => Err(e),
        }
    }

    /// Evaluates every legal move of `pos`, best first for the side to move.
    ///
    /// # Errors
    ///
    /// As for [`Prober::wdl`].
    pub fn moves(&self, pos: &Chess) -> Result<Vec<MoveEval>> {
        let mut memo = DtzMemo::new();
        let own = self.value(pos, &mut memo)?;
        self.moves_with(pos, own.wdl.signum(), &mut memo)
    }

    /// [`Prober::moves`] for a position whose WDL sign is `own_sign`, with
    /// a shared memo.
    fn moves_with(&self, pos: &Chess, own_sign: i32, memo: &mut DtzMemo) -> Result<Vec<MoveEval>> {
        let own_sign = if pos.is_checkmate() { 0 } else { own_sign };
        self.fetch_moves(pos)?;
        let mut out = Vec::new();
        for m in pos.legal_moves() {
            let mut after = pos.clone();
            after.play_unchecked(m);
            let v = self.value(&after, memo)?;
            let (wdl, dtz) = (v.wdl, v.dtz);
            let mated = after.is_checkmate();
            let mover_dtz = if own_sign == 0 {
                None
            } else if m.is_zeroing() || mated {
                zeroing_score(own_sign, wdl, mated).map(|s| own_sign * s)
            } else if dtz.signum() == -own_sign && dtz != 0 {
                Some(own_sign * (1 + dtz.abs()))
            } else {
                None
            };
            out.push(MoveEval {
                uci: UciMove::from_move(m, CastlingMode::Standard).to_string(),
                san: SanPlus::from_move(pos.clone(), m).to_string(),
                wdl,
                dtz: Dtz(dtz),
                zeroing: m.is_zeroing(),
                inexact: v.alt.map(|(w, d)| MoveInexact {
                    dtz_range: [dtz, d],
                    wdl_range: (w != wdl).then_some([wdl, w]),
                }),
                mover_dtz,
            });
        }
        out.sort_by(|a, b| {
            // Best result for the mover first (the opponent's WDL lowest);
            // then the fastest win / slowest loss; then by UCI for a stable
            // order.
            a.wdl
                .cmp(&b.wdl)
                .then_with(|| match (a.mover_dtz, b.mover_dtz) {
                    // Signed from the mover: ascending puts the fastest win
                    // and the longest (most negative) loss first.
                    (Some(x), Some(y)) => x.cmp(&y),
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    (None, None) => std::cmp::Ordering::Equal,
                })
                .then_with(|| a.uci.cmp(&b.uci))
        });
        Ok(out)
    }

    /// The full report for one position. From a service with a request
    /// budget, values the budget could not settle are given as "n or n+1"
    /// and the report is labelled not exact ([`NotExact`]).
    ///
    /// # Errors
    ///
    /// As for [`Prober::wdl`]; [`Error::RemoteBudget`] when the budget ran
    /// out before the position itself was asked for.
    pub fn report(&self, pos: &Chess) -> Result<ProbeReport> {
        let mut memo = DtzMemo::new();
        let mated = pos.is_checkmate();
        // From a service, the natural values of the position and of its
        // moves' results are proven first (not the whole line: a probe
        // needs only these); a budget that runs out there leaves what was
        // proven.
        if let Err(e) = self.prove_moves(pos, &mut memo) {
            if !budget_ran_out(&e) {
                return Err(e);
            }
        }
        let root = self.value(pos, &mut memo)?;
        let moves = self.moves_with(pos, root.wdl.signum(), &mut memo)?;
        let clock = pos.halfmoves();
        let outcome = outcome_with_clock(root.wdl, Dtz(root.dtz), clock, mated);
        let inexact =
            (root.alt.is_some() || moves.iter().any(|m| m.inexact.is_some())).then(|| {
                let alt_outcome = root
                    .alt
                    .map(|(w, d)| outcome_with_clock(w, Dtz(d), clock, mated));
                NotExact {
                    exact: false,
                    dtz_range: root.alt.map(|(_, d)| [root.dtz, d]),
                    wdl_range: root
                        .alt
                        .and_then(|(w, _)| (w != root.wdl).then_some([root.wdl, w])),
                    outcome_range: alt_outcome.and_then(|o| (o != outcome).then_some([outcome, o])),
                    not_exact: self.not_exact_note(pos),
                }
            });
        Ok(ProbeReport {
            fen: crate::chess::position::fen_of(pos),
            material: Material::from_board(pos.board())
                .map(|m| m.to_string())
                .unwrap_or_default(),
            wdl: root.wdl,
            dtz: Dtz(root.dtz),
            halfmove_clock: clock,
            outcome_with_clock: outcome,
            moves,
            engine: self
                .remote_source()
                .map(|r| format!("the tablebase service at {}", r.url())),
            rule: None,
            metric: None,
            inexact,
        })
    }

    /// The value natural parity gives `pos` (odd for the winner to move,
    /// even for the loser): its exact DTZ unless the material lets the
    /// loser be forced into a zeroing move that keeps it lost.
    fn natural_dtz(&self, pos: &Chess, memo: &mut DtzMemo) -> Result<i32> {
        Ok(match self.known_or_raw(pos, memo)? {
            Known::Exact(v) | Known::Raw(_, MaybeRounded::Precise(v)) => v,
            Known::Raw(_, MaybeRounded::Rounded(v)) => dtz::by_parity(v),
        })
    }

    /// Settles the values of the line from `start` that natural parity
    /// predicts into `memo`.
    ///
    /// The line is first played by the values natural parity gives (one
    /// request a ply, for the position's answer and every move's value).
    /// Then a proof search (the `natural` module) proves those values with
    /// the fewest positions it can find: a rounded value needs only the
    /// bound its raw value does not give, and where any move will do, the
    /// search takes the one whose proof is cheapest so far, so that the
    /// proofs meet on shared positions. The line's own moves are the ones
    /// it proves for the line's winner, since the walk plays them. Only
    /// proven values enter the memo. Then each position of the line is
    /// settled from its end back to `start` by the exact search, which
    /// finds the proven values in the memo and searches only where a proof
    /// failed (parity not natural there): whatever it finds is exact,
    /// parity or not.
    ///
    /// # Errors
    ///
    /// As for [`Prober::dtz`].
    pub fn settle_line_backwards(&self, start: &Chess, memo: &mut DtzMemo) -> Result<()> {
        let Some(remote) = self.remote_source() else {
            return Ok(());
        };
        // Only a rounded value where parity is not fixed needs the search.
        let raw = match trusted(self.raw_dtz(start)?) {
            MaybeRounded::Rounded(v) => v,
            MaybeRounded::Precise(_) => return Ok(()),
        };
        let loser = if raw > 0 { !start.turn() } else { start.turn() };
        if start.is_checkmate() || phase_parity_is_natural(start, loser) {
            return Ok(());
        }
        let mut line = Vec::new();
        let mut forced = HashMap::new();
        let mut pos = start.clone();
        while !pos.is_checkmate() && line.len() < 4000 {
            let h = self.natural_dtz(&pos, memo)?;
            if h == 0 {
                break;
            }
            // Every move's value comes with the position's answer.
            remote.answer(&pos)?;
            let sign = h.signum();
            let mut moves: Vec<Move> = pos.legal_moves().into_iter().collect();
            moves
                .sort_by_cached_key(|m| UciMove::from_move(*m, CastlingMode::Standard).to_string());
            let mut next = None;
            for m in moves {
                let mut after = pos.clone();
                after.play_unchecked(m);
                let mated = after.is_checkmate();
                let score = if m.is_zeroing() || mated {
                    let w = if mated {
                        Wdl::Loss
                    } else {
                        wdl_of_dtz(self.natural_dtz(&after, memo)?)
                    };
                    zeroing_score(sign, w, mated)
                } else {
                    let v = self.natural_dtz(&after, memo)?;
                    (v.signum() == -sign).then(|| 1 + v.abs())
                };
                if score == Some(h.abs()) {
                    next = Some((after, m.is_zeroing() || mated));
                    break;
                }
            }
            line.push(pos.clone());
            if let (true, Some((after, _))) = (sign > 0, &next) {
                forced.insert(key(&pos), key(after));
            }
            match next {
                // The phase ends: what follows is in another table.
                Some((_, true)) | None => break,
                Some((after, false)) => pos = after,
            }
        }
        // Proven or not, the exact search below has the last word.
        natural::NaturalProof::new(self, forced).prove(start, memo)?;
        for p in line.iter().rev() {
            self.dtz_with(p, memo)?;
        }
        Ok(())
    }

    /// From a service: proves the natural values of `pos` and of its
    /// moves' results, where they are rounded and parity is not fixed, with
    /// one proof search for all of them (the `natural` module), before the
    /// exact search settles each: it finds the proven values in `memo`, and
    /// searches only where a proof failed.
    ///
    /// # Errors
    ///
    /// As for [`Prober::dtz`].
    fn prove_moves(&self, pos: &Chess, memo: &mut DtzMemo) -> Result<()> {
        if self.remote_source().is_none() || pos.is_checkmate() {
            return Ok(());
        }
        self.fetch_moves(pos)?;
        let mut proof = natural::NaturalProof::new(self, HashMap::new());
        let moves = pos.legal_moves().into_iter().map(|m| {
            let mut after = pos.clone();
            after.play_unchecked(m);
            after
        });
        for after in std::iter::once(pos.clone()).chain(moves) {
            if after.is_checkmate() || memo.exact.contains_key(&key(&after)) {
                continue;
            }
            let MaybeRounded::Rounded(v) = self.raw_memo(&after, key(&after), memo)? else {
                continue;
            };
            let loser = if v > 0 { !after.turn() } else { after.turn() };
            if !phase_parity_is_natural(&after, loser) {
                proof.prove(&after, memo)?;
            }
        }
        Ok(())
    }

    /// About how many requests the best-play line from `start` will send
    /// the service this engine reads (0 for files), from the cache and the
    /// first response only: a request a ply of the first phase (its length
    /// is the first response's DTZ), `SEARCH_PER_PLY` a ply where that
    /// DTZ is rounded and the material's DTZ parity is not fixed (a search
    /// settles each), and `LATER_PHASES` for what follows the first
    /// zeroing move; less the plies whose answers are cached, and nothing
    /// when the whole first phase is. docs/remote.md says how close it came.
    ///
    /// # Errors
    ///
    /// As for [`Prober::raw_dtz`] (the first response may cost a request).
    pub fn line_request_estimate(&self, start: &Chess) -> Result<u64> {
        let Some(remote) = self.remote_source() else {
            return Ok(0);
        };
        if start.is_checkmate() {
            return Ok(0);
        }
        let first = trusted(self.raw_dtz(start)?);
        let raw = first.ignore_rounding();
        if raw == 0 {
            return Ok(0);
        }
        let plies = u64::from(raw.unsigned_abs()) + 1;
        let winner = if raw > 0 { start.turn() } else { !start.turn() };
        // Where parity is not fixed, the plies of a rounded value cost a
        // search each: those of a cursed win or blessed loss above 100
        // (always rounded), or all of them if the value is rounded below.
        let searched = match first {
            MaybeRounded::Rounded(_) if !phase_parity_is_natural(start, !winner) => {
                if plies > 101 {
                    plies - 101
                } else {
                    plies
                }
            }
            _ => 0,
        };
        // The plies of the first phase whose answers are cached, followed
        // by the raw values (the best move by them, the winner's fastest and
        // the loser's slowest, is the line's but for rounding ties).
        let mut pos = start.clone();
        let mut cached = 0;
        while cached < plies && !remote.costs_request(&pos) {
            cached += 1;
            // From the cache: no request, and every move's value.
            remote.answer(&pos)?;
            let sign = self.raw_dtz(&pos)?.ignore_rounding().signum();
            let mut next: Option<((i32, bool), Chess)> = None;
            for m in pos.legal_moves() {
                if m.is_zeroing() {
                    continue;
                }
                let mut after = pos.clone();
                after.play_unchecked(m);
                let v = self.raw_dtz(&after)?.ignore_rounding();
                if v.signum() != -sign || after.is_checkmate() {
                    continue;
                }
                // The winner wants the smallest, the loser the largest;
                // of equal values (rounding hides which is best), one whose
                // answer is cached.
                let score = (
                    if sign > 0 { -v.abs() } else { v.abs() },
                    !remote.costs_request(&after),
                );
                if next.as_ref().is_none_or(|(best, _)| score > *best) {
                    next = Some((score, after));
                }
            }
            match next {
                Some((_, after)) => pos = after,
                None => break,
            }
        }
        if cached >= plies {
            return Ok(0);
        }
        // The cached plies are the first ones, those of the search.
        let searched = searched.saturating_sub(cached);
        Ok(plies - cached - searched + searched * SEARCH_PER_PLY + LATER_PHASES)
    }

    /// Why a report of `pos` is not exact, and how to make it exact.
    fn not_exact_note(&self, pos: &Chess) -> String {
        let (url, budget) = match self.remote_source() {
            Some(r) => (r.url().to_owned(), r.stats().budget.unwrap_or(0)),
            None => ("?".into(), 0),
        };
        let table = Material::from_board(pos.board())
            .map(|m| m.table_name())
            .unwrap_or_else(|_| "?".into());
        format!(
            "the request budget ({budget} requests to {url}) ran out before every DTZ was settled: \
             where a range is given, the DTZ is n or n+1 plies and not exact; for exact values, \
             probe with the table files ({table} and the tables its captures reach, --tables DIR), \
             or with a larger --remote-budget (this run's answers are cached, so a second run \
             asks only for the rest)"
        )
    }
}

/// The requests a ply of a line costs, about, where its DTZ is rounded and
/// the material's DTZ parity is not fixed: its own answer and the searches
/// that settle its rounded values. Measured on KBB v KN's longest blessed
/// loss (docs/remote.md): 32 rounded plies (-132 to -101), 126 precise ones
/// and the KBB v K phase cost 724 requests since the natural values are
/// proven by a proof-number search, about 18 a rounded ply (4,908, about
/// 150 a rounded ply, with the depth-first search alone).
pub const SEARCH_PER_PLY: u64 = 20;

/// The requests of a line's phases after its first zeroing move, about:
/// they are in smaller tables, most of whose values are precise.
pub const LATER_PHASES: u64 = 40;

/// What the known values say of one move (see [`Prober::judge_move`]).
enum Judged {
    /// It scores the target.
    Scores,
    /// It does not.
    Misses,
    /// Only its successor's exact DTZ can tell; `likely` when the natural
    /// parity says it scores.
    Open { likely: bool },
}

/// A raw value as the exact search can trust it: a loss that
/// shakmaty-syzygy calls precise is taken as rounded (see
/// `Prober::raw_memo`) unless it is 4 to 101 plies.
///
/// A service's precise value is this same one (lila-tablebase sends
/// shakmaty-syzygy's `probe_dtz(..).precise()`), so the rule is the same for
/// files and for a service. Why it is sound: the one-ply search of the side
/// a DTZ file does not store states a loss one ply short only when a precise
/// successor of `k` plies comes before a rounded one of `k` ("`k` or
/// `k + 1`"). Both are the stored side's, in the same table (a non-zeroing
/// move keeps the material and the pawns). A rounded value there comes
/// from a table that stores moves: 1 + 2r plies for a win, 101 + 2r for a
/// cursed win, so odd. A precise value there comes from a table that stores
/// a win in plies (all its wins are then precise; only cursed ones, above
/// 100, are rounded), or from a zeroing best move: 1 or 101. So `k` is 1 or
/// 101, and the short loss is stated as 2 or 102 plies: a precise loss of 4
/// to 101 plies cannot be one.
fn trusted(raw: MaybeRounded<i32>) -> MaybeRounded<i32> {
    match raw {
        MaybeRounded::Precise(v) if v < -1 && !(-101..=-4).contains(&v) => MaybeRounded::Rounded(v),
        other => other,
    }
}

/// Whether every phase of `pos`'s material, with `loser` losing, must end
/// with the winner's move ([`dtz::phase_parity_is_natural`]). That settles
/// a rounded "n or n+1" at once; otherwise the successors are searched.
fn phase_parity_is_natural(pos: &Chess, loser: Color) -> bool {
    let Ok(material) = Material::from_board(pos.board()) else {
        return false;
    };
    let by_role = |c| Role::ALL.map(|r| material.side(c).count(r));
    dtz::phase_parity_is_natural(&by_role(loser), &by_role(!loser))
}

/// The mover's DTZ magnitude for a zeroing (or mating) move into a position
/// whose side to move then has `wdl_after`, if the move keeps the mover's
/// decisive result of sign `sign`: 1 when the new phase is decisive under the
/// rule, 101 when it is cursed or blessed.
fn zeroing_score(sign: i32, wdl_after: Wdl, mated: bool) -> Option<i32> {
    if mated {
        return (sign > 0).then_some(1);
    }
    match (sign > 0, wdl_after) {
        (true, Wdl::Loss) | (false, Wdl::Win) => Some(1),
        (true, Wdl::BlessedLoss) | (false, Wdl::CursedWin) => Some(101),
        _ => None,
    }
}

/// What a guarded probe of `pos` reads, for the error when it panics: the
/// position's own table file (a probe also reads the tables its captures
/// lead to).
fn guarded_tables(pos: &Chess, ext: &str) -> String {
    let name = Material::from_board(pos.board())
        .map(|m| m.table_name())
        .unwrap_or_else(|_| "?".to_owned());
    format!(
        "{name}.{ext} (or a table its captures lead to, probing {})",
        crate::chess::position::fen_of(pos)
    )
}

/// Maps a shakmaty-syzygy error to ours, naming the table files.
fn table_error(e: SyzygyError, pos: &Chess) -> Error {
    let fen = crate::chess::position::fen_of(pos);
    match e {
        SyzygyError::Castling => Error::position(&fen, "castling rights are not in Syzygy"),
        SyzygyError::TooManyPieces => Error::position(&fen, "more pieces than any table present"),
        SyzygyError::MissingTable { metric, material } => {
            let ext = match metric {
                shakmaty_syzygy::Metric::Wdl => "rtbw",
                shakmaty_syzygy::Metric::Dtz => "rtbz",
            };
            let name = material
                .to_string()
                .parse::<Material>()
                .map(|m| m.table_name())
                .unwrap_or_else(|_| material.to_string());
            Error::MissingTables {
                needed_for: fen,
                files: vec![format!("{name}.{ext}")],
            }
        }
        SyzygyError::ProbeFailed {
            metric,
            material,
            error,
        } => {
            let ext = match metric {
                shakmaty_syzygy::Metric::Wdl => "rtbw",
                shakmaty_syzygy::Metric::Dtz => "rtbz",
            };
            let check = "check it with `fiftymove tables --verify`";
            let detail = match *error {
                ProbeError::Read { error } if error.kind() == std::io::ErrorKind::UnexpectedEof => {
                    format!("is shorter than its own header says: it is truncated or damaged; {check}")
                }
                ProbeError::Read { error } => {
                    return Error::TableRead {
                        what: format!("{material}.{ext}"),
                        source: error,
                    }
                }
                ProbeError::Magic { magic } => format!(
                    "does not start with the magic bytes of a Syzygy .{ext} file (found {magic:02x?}): it is damaged, or not a table of this kind; {check}"
                ),
                // (Its backtrace is of no use to the user.)
                ProbeError::CorruptedTable { .. } => format!(
                    "is corrupted (its contents contradict each other or its name): it is damaged, or another table under this name; {check}"
                ),
            };
            Error::Table {
                what: format!("{material}.{ext}"),
                detail,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::wdl::Outcome;

    #[test]
    fn clock_edges() {
        // dtz + clock = 99, 100, 101 on both sides.
        let cases = [
            (Wdl::Win, 10, 89, false, Outcome::Win),
            (Wdl::Win, 10, 90, false, Outcome::Win),
            (Wdl::Win, 10, 91, false, Outcome::Draw),
            (Wdl::Loss, -10, 89, false, Outcome::Loss),
            (Wdl::Loss, -10, 90, false, Outcome::Loss),
            (Wdl::Loss, -10, 91, false, Outcome::Draw),
            (Wdl::CursedWin, 101, 0, false, Outcome::Draw),
            (Wdl::Loss, 0, 120, true, Outcome::Loss),
        ];
        for (wdl, dtz, clock, mated, want) in cases {
            let got = outcome_with_clock(wdl, Dtz(dtz), clock, mated);
            assert_eq!(got, want, "{wdl:?} DTZ {dtz} clock {clock}");
        }
    }
}
