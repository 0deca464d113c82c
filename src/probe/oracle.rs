//! The probe engine's best-play line: the walk of [`crate::model::line`] with
//! exact DTZ50'' from the tables (or a tablebase service, within its
//! request budget).

use std::cell::RefCell;

use shakmaty::{Chess, Move};

use crate::model::line::{walk, Line, LineOracle};
use crate::{
    chess::position::fen_of,
    chess::rule::Rule,
    error::{Error, Result},
    probe::{DtzMemo, Prober},
};

/// The probe engine as a [`LineOracle`], with one memo for the whole line.
struct ProbeOracle<'a> {
    prober: &'a Prober,
    memo: RefCell<DtzMemo>,
}

impl LineOracle for ProbeOracle<'_> {
    fn depth(&self, pos: &Chess) -> Result<i32> {
        // The line's memo: a fresh one would prove the start's value
        // again, its own way, and might ask for positions the proof did not.
        self.prober
            .dtz_with(pos, &mut self.memo.borrow_mut())
            .map(|d| d.0)
    }

    fn best_move(&self, pos: &Chess) -> Result<Option<(Move, i32)>> {
        self.prober.best_move(pos, &mut self.memo.borrow_mut())
    }
}

/// Plays the best-play line from `start`.
///
/// # Errors
///
/// Table errors from the prober (a missing dependency is named), or
/// [`Error::Line`] if the line does not end.
pub fn best_line(prober: &Prober, start: &Chess) -> Result<Line> {
    check_line_cost(prober, start)?;
    let mut memo = DtzMemo::new();
    let walked = prober
        .settle_line_backwards(start, &mut memo)
        .and_then(|()| {
            let oracle = ProbeOracle {
                prober,
                memo: RefCell::new(memo),
            };
            walk(&oracle, start, Rule::FIFTY)
        });
    let mut line = walked.map_err(|e| match e {
        Error::RemoteBudget {
            url,
            budget,
            detail: _,
        } => Error::RemoteBudget {
            url,
            budget,
            detail: format!(
                "the line from {} needed more requests than its budget and was stopped; \
                 the answers so far are cached, so a run with a larger --remote-budget asks \
                 only for the rest",
                fen_of(start)
            ),
        },
        e => e,
    })?;
    // The probe engine's line marks the 50-move claim in its own field.
    line.rule_ply = None;
    Ok(line)
}

/// Refuses a line whose estimated cost in requests to a tablebase service
/// ([`Prober::line_request_estimate`]) is more than its budget leaves.
///
/// # Errors
///
/// [`Error::RemoteBudget`] naming the estimate; as [`best_line`] for the
/// first response.
pub fn check_line_cost(prober: &Prober, start: &Chess) -> Result<()> {
    let Some(remote) = prober.remote_source() else {
        return Ok(());
    };
    let Some(budget) = remote.stats().budget else {
        return Ok(());
    };
    let estimate = prober.line_request_estimate(start)?;
    let left = remote.stats().remaining().unwrap_or(0);
    if estimate > left {
        return Err(Error::RemoteBudget {
            url: remote.url().to_owned(),
            budget,
            detail: format!(
                "the line from {} would need about {estimate} requests, more than the {left} \
                 the budget leaves; refused before it started: give --remote-budget {} or \
                 more to walk it (please only against your own server, or sparingly), \
                 or use the table files",
                fen_of(start),
                estimate + (budget - left)
            ),
        });
    }
    Ok(())
}
