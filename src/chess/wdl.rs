//! The five-valued evaluation of a position (win, cursed win, draw,
//! blessed loss, loss), the DTZ that refines it, and what a move-limit rule
//! makes of them given the halfmove clock.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::chess::rule::Rule;

/// The five-valued Syzygy evaluation, assuming the halfmove clock is 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Wdl {
    /// Lost, even under the 50-move rule.
    Loss,
    /// Lost without the 50-move rule, drawn with it.
    BlessedLoss,
    /// Drawn.
    Draw,
    /// Won without the 50-move rule, drawn with it.
    CursedWin,
    /// Won, even under the 50-move rule.
    Win,
}

impl Wdl {
    /// All five values, from worst to best.
    pub const ALL: [Wdl; 5] = [
        Wdl::Loss,
        Wdl::BlessedLoss,
        Wdl::Draw,
        Wdl::CursedWin,
        Wdl::Win,
    ];

    /// The value for the other side.
    pub fn flip(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::BlessedLoss => Wdl::CursedWin,
            Wdl::Draw => Wdl::Draw,
            Wdl::CursedWin => Wdl::BlessedLoss,
            Wdl::Win => Wdl::Loss,
        }
    }

    /// The snake_case name used in JSON and text output.
    pub fn as_str(self) -> &'static str {
        match self {
            Wdl::Loss => "loss",
            Wdl::BlessedLoss => "blessed_loss",
            Wdl::Draw => "draw",
            Wdl::CursedWin => "cursed_win",
            Wdl::Win => "win",
        }
    }

    /// +1 for (cursed) wins, -1 for (blessed) losses, 0 for draws.
    pub fn signum(self) -> i32 {
        match self {
            Wdl::Loss | Wdl::BlessedLoss => -1,
            Wdl::Draw => 0,
            Wdl::CursedWin | Wdl::Win => 1,
        }
    }
}

/// A DTZ in plies, signed from the side to move: positive when it wins,
/// negative when it loses, 0 for a draw (and for a side checkmated, which
/// has no move left to count). Past 100 plies the 50-move rule turns a win
/// into a cursed win, a loss into a blessed loss.
///
/// It is written as its number, in JSON and in text, so that a document or
/// a line that holds one reads the same as one that held a bare integer.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Dtz(pub i32);

impl Dtz {
    /// The five-valued result the DTZ implies (clock 0).
    pub fn wdl(self) -> Wdl {
        match (self.0.signum(), self.0.abs() <= 100) {
            (0, _) => Wdl::Draw,
            (1, true) => Wdl::Win,
            (1, false) => Wdl::CursedWin,
            (_, true) => Wdl::Loss,
            (_, false) => Wdl::BlessedLoss,
        }
    }

    /// The number of plies, whichever side wins.
    pub fn plies(self) -> u32 {
        self.0.unsigned_abs()
    }
}

impl fmt::Display for Dtz {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// The result for the side to move once the 50-move rule and the current
/// halfmove clock are taken into account.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The side to move wins.
    Win,
    /// Drawn (by the position, or because the 50-move rule intervenes).
    Draw,
    /// The side to move loses.
    Loss,
}

/// The verdict of the 50-move rule for a position with value `wdl`, exact
/// DTZ `dtz` and halfmove clock `clock`.
///
/// A win stands when the zeroing move comes no later than the ply that
/// brings the clock to 100, that is when `dtz + clock <= 100`: otherwise the
/// loser can claim with the move that makes the clock reach 100 (FIDE 9.3).
/// The same bound applies to a loss. A checkmated side has lost whatever
/// the clock says.
pub fn outcome_with_clock(wdl: Wdl, dtz: Dtz, clock: u32, checkmated: bool) -> Outcome {
    outcome_under(Rule::FIFTY, wdl, dtz.0, clock, checkmated)
}

/// The verdict of `rule` for a position with value `wdl` under that rule,
/// exact depth to the zeroing move `dtz` under it and halfmove clock
/// `clock`: as [`outcome_with_clock`], with 100 replaced by the rule's
/// limit (and no limit at all without a rule).
pub fn outcome_under(rule: Rule, wdl: Wdl, dtz: i32, clock: u32, checkmated: bool) -> Outcome {
    if checkmated {
        return Outcome::Loss;
    }
    let within = rule
        .limit()
        .is_none_or(|l| dtz.unsigned_abs() + clock <= u32::from(l));
    match wdl {
        Wdl::Win if within => Outcome::Win,
        Wdl::Loss if within => Outcome::Loss,
        _ => Outcome::Draw,
    }
}
