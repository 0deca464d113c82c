//! The rules a solve is made under: the move-limit rule (50 moves, or 75,
//! or none) and the metric of its depths.

use std::{fmt, str::FromStr};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// A move-limit rule: `Moves(n)` allows `2n` plies between zeroing moves,
/// `None` allows any number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// An `n`-move rule.
    Moves(u16),
    /// No rule.
    None,
}

impl Rule {
    /// The fifty-move rule.
    pub const FIFTY: Rule = Rule::Moves(50);

    /// The most plies a phase may last, if there is a limit.
    pub fn limit(self) -> Option<u16> {
        match self {
            Rule::Moves(n) => Some(2 * n),
            Rule::None => None,
        }
    }
}

/// The largest rule the solver takes, in moves: depths and the `2N + 1` of
/// cursed zeroing moves must fit its two-byte values.
pub const MAX_RULE_MOVES: u16 = 1000;

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rule::Moves(n) => write!(f, "{n}"),
            Rule::None => write!(f, "none"),
        }
    }
}

impl FromStr for Rule {
    type Err = Error;

    /// `50`, `75`, ... (moves, 1 to [`MAX_RULE_MOVES`]) or `none`.
    fn from_str(text: &str) -> Result<Rule> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("none") {
            return Ok(Rule::None);
        }
        match t.parse::<u16>() {
            Ok(n) if (1..=MAX_RULE_MOVES).contains(&n) => Ok(Rule::Moves(n)),
            _ => Err(Error::Usage(format!(
                "--rule {text:?}: expected a number of moves from 1 to {MAX_RULE_MOVES}, or none"
            ))),
        }
    }
}

impl Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Rule::Moves(n) => s.serialize_u16(*n),
            Rule::None => s.serialize_str("none"),
        }
    }
}

impl<'de> Deserialize<'de> for Rule {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Rule, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Moves(u16),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Moves(n) => Ok(Rule::Moves(n)),
            Raw::Text(t) => t.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// A metric: what the solver computes per position (DTZ, DTM, DTR; see
/// [`Metric::solved`]), and what a claim is stated in (DTZ, DTC, DTM, or a
/// rule of play).
///
/// The command line offers the solver's three (`--metric`); the variant
/// docs are their help.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    /// Depth to the zeroing move under the rule (DTZ50'' with 2N plies).
    Dtz,
    /// Distance to conversion (capture or promotion); DTZ without pawns.
    #[value(skip)]
    Dtc,
    /// Depth to mate, with no rule.
    Dtm,
    /// Depth by the rule: the least N-move rule (in plies, 2N) under which
    /// the position is won.
    Dtr,
    /// A rule of play, not a statement about positions (claims only).
    #[value(skip)]
    Rule,
}

impl Metric {
    /// The lower-case name used in JSON and text.
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Dtz => "dtz",
            Metric::Dtc => "dtc",
            Metric::Dtm => "dtm",
            Metric::Dtr => "dtr",
            Metric::Rule => "rule",
        }
    }

    /// Whether the solver computes it: DTZ, DTM and DTR.
    pub fn solved(self) -> bool {
        matches!(self, Metric::Dtz | Metric::Dtm | Metric::Dtr)
    }
}
