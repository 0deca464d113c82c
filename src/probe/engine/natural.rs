//! Proving a line's natural-parity values from a tablebase service, with
//! as few requests as a best-first proof search finds.
//!
//! A rounded raw DTZ of magnitude `r` is `r` or `r + 1` plies; natural
//! parity (odd for the winner to move, even for the loser) names one of the
//! two. The raw value already bounds the truth on one side, so only the
//! other bound needs a proof:
//!
//! - natural `r` (an *upper* bound, `|dtz| <= r`): the winner needs one
//!   move worth at most `r` (an OR), the loser needs every move worth at
//!   most `r` (an AND);
//! - natural `r + 1` (a *lower* bound, `|dtz| >= r + 1`): the winner needs
//!   every move worth at least `r + 1` (AND), the loser one (OR).
//!
//! A move to a position whose value is exact, or whose rounded range lies
//! on one side of the bound, decides at once from the answer that lists it
//! (one answer carries every move's value). Only a move whose range
//! straddles the bound needs its successor's own bound, and then only the
//! one its natural value names: the successor's raw magnitude is one less,
//! so the goals form an acyclic AND/OR graph that ends where values are
//! precise.
//!
//! Each position expanded costs one request (none if its answer is known).
//! The search is proof-number search: it always expands a leaf of the
//! cheapest partial proof (OR nodes take their cheapest child, AND nodes
//! add theirs up), so that the proof visits few positions and the proofs of
//! different positions meet on shared ones; the depth-first search of
//! `Prober::dtz_memo` instead finishes each proof the first way it tries.
//!
//! Nothing is assumed: a proven goal, with the raw bound on its other
//! side, is the exact value (a proof by induction on the raw magnitude, as
//! the exact search's), and only proven values enter the memo. A goal that
//! fails (parity not natural there) is left to the exact search.

use std::collections::HashMap;

use shakmaty::{Chess, Position};
use shakmaty_syzygy::MaybeRounded;

use super::{key, zeroing_score, DtzMemo, Key, Prober};
use crate::{error::Result, model::dtz::by_parity as natural};

/// A proof number too large to matter: the goal failed.
const FAILED: u64 = u64::MAX;

/// The most goals one proof may hold, so that a hypothesis that fails
/// widely cannot hold the search for long (the exact search then decides).
const MAX_GOALS: usize = 200_000;

/// The value of a move against a goal's bound, as far as the known values
/// tell.
enum Test {
    /// The move meets the bound.
    Holds,
    /// It does not (or only against the hypothesis).
    Fails,
    /// Its successor's natural value must be proven first.
    Needs(Chess),
}

/// One goal: a position's natural value.
struct Goal {
    pos: Chess,
    /// The signed natural value to prove.
    value: i32,
    /// The raw magnitude `r`: the value is `r` (an upper bound to prove)
    /// or `r + 1` (a lower bound).
    raw: i32,
    /// Every move must meet the bound (else one must).
    and: bool,
    /// What expanding it costs: 1 when its answer takes a request.
    cost: u64,
    /// `None` until expanded; then the goals it needs (none left: proven
    /// if `and`, failed if not, unless `decided` says otherwise).
    children: Option<Vec<usize>>,
    /// Decided at expansion: `Some(true)` proven, `Some(false)` failed.
    decided: Option<bool>,
    /// The one move a line's winner must play (its first in UCI order that
    /// natural parity says keeps the value), by the successor's key.
    forced: Option<Key>,
}

/// The proof search over one line's goals.
pub(super) struct NaturalProof<'a> {
    prober: &'a Prober,
    goals: Vec<Goal>,
    by_key: HashMap<Key, usize>,
    forced: HashMap<Key, Key>,
}

impl<'a> NaturalProof<'a> {
    /// A search whose winners on the line play the line's moves: `forced`
    /// maps a line position to the next one.
    pub(super) fn new(prober: &'a Prober, forced: HashMap<Key, Key>) -> NaturalProof<'a> {
        NaturalProof {
            prober,
            goals: Vec::new(),
            by_key: HashMap::new(),
            forced,
        }
    }

    /// Proves the natural value of `root`, and records every value proven
    /// on the way in `memo`. Returns whether the root was proven (never
    /// for a value that is not rounded, or already exact in `memo`).
    ///
    /// # Errors
    ///
    /// As for [`Prober::dtz`] (a request may fail, or the budget run out:
    /// what was proven before is in `memo`).
    pub(super) fn prove(&mut self, root: &Chess, memo: &mut DtzMemo) -> Result<bool> {
        // Natural parity says nothing of a precise value.
        let k = key(root);
        if root.is_checkmate()
            || memo.exact.contains_key(&k)
            || matches!(
                self.prober.raw_memo(root, k, memo)?,
                MaybeRounded::Precise(_)
            )
        {
            return Ok(false);
        }
        let root = self.goal(root, memo)?;
        let outcome = self.search(root, memo);
        // Whatever was proven is exact, even if the search stopped early.
        self.record(memo);
        outcome
    }

    fn search(&mut self, root: usize, memo: &mut DtzMemo) -> Result<bool> {
        loop {
            let numbers = self.proof_numbers(root);
            match numbers[root] {
                0 => return Ok(true),
                FAILED => return Ok(false),
                _ => {}
            }
            if self.goals.len() > MAX_GOALS {
                return Ok(false);
            }
            // The most proving leaf: the cheapest child of an OR, the
            // cheapest open child of an AND.
            let mut at = root;
            while let Some(children) = &self.goals[at].children {
                at = *children
                    .iter()
                    .filter(|c| numbers[**c] != 0)
                    .min_by_key(|c| numbers[**c])
                    .unwrap_or_else(|| {
                        let g = &self.goals[at];
                        panic!(
                            "open goal {} raw {} value {} and {} n {} children {:?}",
                            crate::chess::position::fen_of(&g.pos),
                            g.raw,
                            g.value,
                            g.and,
                            numbers[at],
                            children
                                .iter()
                                .map(|c| (
                                    numbers[*c],
                                    self.goals[*c].raw,
                                    crate::chess::position::fen_of(&self.goals[*c].pos)
                                ))
                                .collect::<Vec<_>>()
                        )
                    });
            }
            self.expand(at, memo)?;
        }
    }

    /// The proof number of every goal reachable from `root` (0 proven,
    /// [`FAILED`] failed): the requests its proof would take at least, as
    /// far as seen (an unexpanded goal: its own request and one for each
    /// rounded ply below it), an OR's cheapest child, an AND's sum.
    fn proof_numbers(&self, root: usize) -> Vec<u64> {
        let mut numbers = vec![u64::MAX - 1; self.goals.len()];
        let mut done = vec![false; self.goals.len()];
        // Children have smaller raw magnitudes, so no goal is its own
        // descendant: an explicit post-order walk.
        let mut stack = vec![(root, false)];
        while let Some((g, children_done)) = stack.pop() {
            if done[g] {
                continue;
            }
            let goal = &self.goals[g];
            let n = match (goal.decided, &goal.children) {
                (Some(true), _) => 0,
                (Some(false), _) => FAILED,
                // Scaled so that an unexpanded goal is never 0 (proven),
                // and one whose answer is known costs next to nothing.
                (None, None) => {
                    1 + 8 * (goal.cost + u64::try_from((goal.raw - 101).max(0)).unwrap_or(0))
                }
                (None, Some(children)) => {
                    if !children_done {
                        stack.push((g, true));
                        stack.extend(children.iter().filter(|c| !done[**c]).map(|c| (*c, false)));
                        continue;
                    }
                    let each = children.iter().map(|c| numbers[*c]);
                    if goal.and {
                        each.fold(0u64, |a, n| {
                            if a == FAILED || n == FAILED {
                                FAILED
                            } else {
                                a.saturating_add(n).min(FAILED - 1)
                            }
                        })
                    } else {
                        each.min().unwrap_or(FAILED)
                    }
                }
            };
            numbers[g] = n;
            done[g] = true;
        }
        numbers
    }

    /// The goal of `pos`, made if new.
    fn goal(&mut self, pos: &Chess, memo: &mut DtzMemo) -> Result<usize> {
        let k = key(pos);
        if let Some(g) = self.by_key.get(&k) {
            return Ok(*g);
        }
        let raw = match self.prober.raw_memo(pos, k, memo)? {
            MaybeRounded::Rounded(v) => v,
            MaybeRounded::Precise(v) => v,
        };
        let value = natural(raw);
        let winner = raw > 0;
        let upper = value.abs() == raw.abs();
        let cost = match self.prober.remote_source() {
            Some(r) => {
                let unknown = pos.legal_moves().into_iter().any(|m| {
                    let mut after = pos.clone();
                    after.play_unchecked(m);
                    !r.knows(&after)
                });
                u64::from(unknown && r.costs_request(pos))
            }
            None => 0,
        };
        self.goals.push(Goal {
            pos: pos.clone(),
            value,
            raw: raw.abs(),
            and: upper != winner,
            cost,
            children: None,
            decided: None,
            forced: self.forced.get(&k).copied(),
        });
        let g = self.goals.len() - 1;
        self.by_key.insert(k, g);
        Ok(g)
    }

    /// Reads the goal's answer and judges each move.
    fn expand(&mut self, g: usize, memo: &mut DtzMemo) -> Result<()> {
        let pos = self.goals[g].pos.clone();
        self.prober.fetch_moves(&pos)?;
        let (and, forced) = (self.goals[g].and, self.goals[g].forced);
        let mut children = Vec::new();
        let mut decided = None;
        for m in pos.legal_moves() {
            let mut after = pos.clone();
            after.play_unchecked(m);
            if forced.is_some_and(|f| f != key(&after)) {
                continue;
            }
            match self.test(g, m.is_zeroing(), &after, memo)? {
                Test::Holds if !and => {
                    decided = Some(true);
                    break;
                }
                Test::Fails if and => {
                    decided = Some(false);
                    break;
                }
                Test::Holds | Test::Fails => {}
                Test::Needs(next) => {
                    let c = self.goal(&next, memo)?;
                    if !children.contains(&c) {
                        children.push(c);
                    }
                }
            }
        }
        if decided.is_none() && children.is_empty() {
            // Every move met the bound (AND), or none can (OR).
            decided = Some(and);
        }
        self.goals[g].decided = decided;
        self.goals[g].children = Some(if decided.is_some() {
            Vec::new()
        } else {
            children
        });
        Ok(())
    }

    /// Whether a move to `after` meets goal `g`'s bound: the mover's value
    /// by it is at most the raw magnitude `r` (an upper bound), or at least
    /// `r + 1` (a lower bound). A move that does not keep the mover's
    /// result has no value: the winner's minimum ignores it, and no loser
    /// of a lost position has one.
    fn test(&self, g: usize, zeroing: bool, after: &Chess, memo: &mut DtzMemo) -> Result<Test> {
        let goal = &self.goals[g];
        let (r, sign) = (goal.raw, goal.value.signum());
        let upper = goal.value.abs() == r;
        let meets = |value: Option<i32>| match value {
            Some(v) if upper => v <= r,
            Some(v) => v > r,
            // Only the winner's AND (every move at least r + 1) passes a
            // move without a value.
            None => !upper && sign > 0,
        };
        let mated = after.is_checkmate();
        if zeroing || mated {
            let wdl = if mated {
                crate::chess::wdl::Wdl::Loss
            } else {
                self.prober.wdl(after)?
            };
            return Ok(if meets(zeroing_score(sign, wdl, mated)) {
                Test::Holds
            } else {
                Test::Fails
            });
        }
        let k = key(after);
        let (v, rounded) = match memo.exact.get(&k) {
            Some(v) => (*v, false),
            None => match self.prober.raw_memo(after, k, memo)? {
                MaybeRounded::Precise(v) => (v, false),
                MaybeRounded::Rounded(v) => (v, true),
            },
        };
        if v == 0 || v.signum() != -sign {
            return Ok(if meets(None) {
                Test::Holds
            } else {
                Test::Fails
            });
        }
        let c = v.abs();
        if !rounded {
            return Ok(if meets(Some(1 + c)) {
                Test::Holds
            } else {
                Test::Fails
            });
        }
        // The move is worth 1 + c or 2 + c.
        let (low, high) = (1 + c, 2 + c);
        if meets(Some(low)) && meets(Some(high)) {
            return Ok(Test::Holds);
        }
        if !meets(Some(low)) && !meets(Some(high)) {
            return Ok(Test::Fails);
        }
        // It straddles the bound: it meets it at the end natural parity
        // names, or (against the hypothesis) not at all.
        let natural_worth = 1 + natural(v).abs();
        Ok(if meets(Some(natural_worth)) {
            Test::Needs(after.clone())
        } else {
            Test::Fails
        })
    }

    /// Records the value of every proven goal in `memo`.
    fn record(&self, memo: &mut DtzMemo) {
        let mut proven = vec![None; self.goals.len()];
        // A goal is proven when it was decided so, or when its children
        // are (all of them for an AND, one for an OR); children come
        // before parents in order of raw magnitude.
        let mut order: Vec<usize> = (0..self.goals.len()).collect();
        order.sort_by_key(|g| self.goals[*g].raw);
        for g in order {
            let goal = &self.goals[g];
            let p = match (goal.decided, &goal.children) {
                (Some(d), _) => d,
                (None, None) => false,
                (None, Some(children)) => {
                    let mut each = children.iter().map(|c| proven[*c] == Some(true));
                    if goal.and {
                        each.all(|p| p)
                    } else {
                        each.any(|p| p)
                    }
                }
            };
            proven[g] = Some(p);
            if p {
                let k = key(&goal.pos);
                memo.exact.insert(k, goal.value);
                memo.raw.remove(&k);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! The independent source: the exact search on the table files
    //! (`Prober::dtz`), which the remote tests compare with the service.
    use super::*;
    use crate::{chess::position::parse_fen, tables::Inventory};

    fn files() -> Prober {
        let dir = std::env::var_os("FIFTYMOVE_TABLES")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| {
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/syzygy")
            });
        let inv = Inventory::scan(&[dir]).expect("tables: scripts/install-tables.sh");
        Prober::new(inv.open().unwrap())
    }

    /// Positions of `white` against `black` (piece letters, kings
    /// included) from a fixed pseudo-random sequence.
    fn positions(white: &str, black: &str, seed: u64, count: usize) -> Vec<Chess> {
        let mut state = seed;
        let mut next = move |n: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % n
        };
        let mut out = Vec::new();
        while out.len() < count {
            let mut board = [None; 64];
            let pieces = white
                .chars()
                .chain(black.chars().map(|c| c.to_ascii_lowercase()));
            let mut ok = true;
            for p in pieces {
                let sq = next(64) as usize;
                if board[sq].is_some() || (p.eq_ignore_ascii_case(&'p') && !(8..56).contains(&sq)) {
                    ok = false;
                    break;
                }
                board[sq] = Some(p);
            }
            if !ok {
                continue;
            }
            let ranks: Vec<String> = (0..8)
                .rev()
                .map(|r| {
                    let mut s = String::new();
                    let mut empty = 0;
                    for f in 0..8 {
                        match board[r * 8 + f] {
                            Some(p) => {
                                if empty > 0 {
                                    s.push_str(&empty.to_string());
                                    empty = 0;
                                }
                                s.push(p);
                            }
                            None => empty += 1,
                        }
                    }
                    if empty > 0 {
                        s.push_str(&empty.to_string());
                    }
                    s
                })
                .collect();
            let turn = if next(2) == 0 { "w" } else { "b" };
            if let Ok(pos) = parse_fen(&format!("{} {turn} - - 0 1", ranks.join("/"))) {
                out.push(pos);
            }
        }
        out
    }

    /// Every value the proof records is the exact one, and a root whose
    /// parity is not natural is left unproven (KQQ v KQ: the loser may be
    /// forced to capture a queen and stay lost; KBB v KN: its cursed wins
    /// are rounded).
    #[test]
    fn proven_values_are_exact_and_unnatural_ones_unproven() {
        let prober = files();
        for (white, black, count) in [("KQQ", "KQ", 300), ("KBB", "KN", 150)] {
            let (mut roots, mut unnatural, mut checked) = (0, 0, 0);
            // The exact values the proofs are checked against come from the
            // exact search, with a memo of its own (never the proofs'), which
            // the checks share: the goals of different roots overlap.
            let mut exact_memo = DtzMemo::new();
            for pos in positions(white, black, 7, count) {
                let raw = match prober.raw_memo(&pos, key(&pos), &mut DtzMemo::new()) {
                    Ok(MaybeRounded::Rounded(v)) => v,
                    _ => continue,
                };
                roots += 1;
                let exact = prober.dtz_with(&pos, &mut exact_memo).unwrap().0;
                let mut memo = DtzMemo::new();
                let mut proof = NaturalProof::new(&prober, HashMap::new());
                let proven = proof.prove(&pos, &mut memo).unwrap();
                let fen = crate::chess::position::fen_of(&pos);
                if exact != natural(raw) {
                    unnatural += 1;
                    assert!(!proven, "{fen}: raw {raw}, exact {exact}, proven natural");
                }
                assert_eq!(memo.exact.contains_key(&key(&pos)), proven, "{fen}");
                for goal in &proof.goals {
                    if let Some(v) = memo.exact.get(&key(&goal.pos)) {
                        let want = prober.dtz_with(&goal.pos, &mut exact_memo).unwrap().0;
                        let at = crate::chess::position::fen_of(&goal.pos);
                        assert_eq!(*v, want, "{at} (from {fen})");
                        checked += 1;
                    }
                }
            }
            eprintln!("{white}v{black}: {roots} rounded roots, {unnatural} not natural, {checked} values checked");
            assert!(
                roots >= 20 && checked >= roots,
                "{white}v{black}: {roots} {checked}"
            );
            if white == "KQQ" {
                assert!(unnatural >= 3, "{unnatural}");
            }
        }
    }
}
