//! Verdicts on claims and the evidence behind them.

use std::{collections::BTreeMap, fmt};

use serde::{Deserialize, Serialize};

use super::catalog::Metric;
use crate::{
    chess::wdl::Wdl,
    probe::line::{Line, Phase},
};

/// The verdict on a claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The tables agree.
    Confirmed,
    /// The tables disagree.
    Refuted,
    /// True in part; the evidence gives the counts.
    Partly,
    /// The tables present cannot decide it.
    Unverifiable,
    /// A rule of play, not a question for tables: the catalog gives the
    /// text that lays it down.
    Documented,
}

impl Verdict {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Confirmed => "confirmed",
            Verdict::Refuted => "refuted",
            Verdict::Partly => "partly",
            Verdict::Unverifiable => "unverifiable",
            Verdict::Documented => "documented",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A best-play line, summarised for evidence.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct LineSummary {
    /// Number of plies to mate.
    pub plies: u32,
    /// The phases between zeroing moves.
    pub phases: Vec<Phase>,
    /// First ply after which the clock stands at 100, if any.
    pub fifty_move_claim_ply: Option<u32>,
    /// First ply after which the clock stands at 150, if any.
    pub seventy_five_move_ply: Option<u32>,
    /// Result without a move-count rule.
    pub result_without_rule: String,
    /// Result under the 50-move rule.
    pub result_with_rule: String,
}

impl LineSummary {
    /// The phases, the 50-move claim point and the mate, in words: "phases
    /// 117 (KRBvKR), 2 (KRBvK); 50-move claim at ply 100; mate at ply 119".
    pub fn describe(&self) -> String {
        let phases: Vec<String> = self
            .phases
            .iter()
            .map(|p| format!("{} ({})", p.plies, p.material))
            .collect();
        let claim = self
            .fifty_move_claim_ply
            .map_or("no 50-move claim".to_owned(), |p| {
                format!("50-move claim at ply {p}")
            });
        format!(
            "phases {}; {claim}; mate at ply {}",
            phases.join(", "),
            self.plies
        )
    }
}

impl From<&Line> for LineSummary {
    fn from(l: &Line) -> LineSummary {
        LineSummary {
            plies: l.plies.len() as u32,
            phases: l.phases.clone(),
            fifty_move_claim_ply: l.fifty_move_claim_ply,
            seventy_five_move_ply: l.seventy_five_move_ply,
            result_without_rule: l.result_without_rule.clone(),
            result_with_rule: l.result_with_rule.clone(),
        }
    }
}

/// A position cited as evidence: the longest of its class, a record
/// position, or an exception.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Witness {
    /// Its FEN.
    pub fen: String,
    /// Which side is to move: `winner` or `loser` (for the claim's winner).
    pub side_to_move: String,
    /// Its WDL for the side to move.
    pub wdl: Wdl,
    /// Its exact depth in plies: DTZ, or the DTR or DTM `metric` names.
    pub dtz: u32,
    /// The metric of `dtz` when it is not DTZ.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric: Option<Metric>,
    /// The length of its first phase in plies, read from the line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase_plies: Option<u32>,
    /// The winner's moves to the end of that phase.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moves: Option<u32>,
    /// Its best-play line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<LineSummary>,
}

/// The statistics of one side to move, seen from the claim's winner.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct SideEvidence {
    /// `white` or `black`: the side to move.
    pub to_move: String,
    /// `winner` or `loser`: whether that is the claim's winner.
    pub role: String,
    /// Positions counted.
    pub positions: u64,
    /// Wins for the claim's winner that the 50-move rule leaves standing.
    pub wins: u64,
    /// Wins for the claim's winner that the 50-move rule turns into draws.
    pub cursed_wins: u64,
    /// Draws.
    pub draws: u64,
    /// Wins (cursed included) for the other side.
    pub other_side_wins: u64,
    /// The longest win's DTZ in plies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub longest_dtz: Option<u32>,
    /// Bounds on the longest first phase in plies (equal when exact).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub longest_phase_plies: Option<[u32; 2]>,
    /// Bounds on the winner's moves for that phase (equal when exact).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub longest_moves: Option<[u32; 2]>,
    /// Positions whose DTZ exceeds the claim's limit, as bounds (equal when
    /// exact; they differ only where a cursed value may stand for `d - 100`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub over_limit: Option<[u64; 2]>,
    /// The limit in plies that `over_limit` counts against.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit_plies: Option<u32>,
    /// Wins within the limit (by DTR: exact).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within_limit: Option<u64>,
    /// The longest DTR in plies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub longest_dtr: Option<u32>,
    /// The longest DTM in plies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub longest_dtm: Option<u32>,
}

/// The evidence behind a verdict.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Evidence {
    /// One sentence: why this verdict.
    pub summary: String,
    /// The winner's pieces and colour, e.g. `KQ (black)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winner: Option<String>,
    /// Which positions were examined.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// Which engine decided: the Syzygy tables or fiftymove's solver.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    /// The number the claim states, in moves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claimed_moves: Option<u32>,
    /// What the tables give for it, as bounds (equal when exact).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed_moves: Option<[u32; 2]>,
    /// Positions examined (both sides to move).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub positions: Option<u64>,
    /// Positions that support the claim.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supporting: Option<u64>,
    /// Positions that contradict it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contradicting: Option<u64>,
    /// Per side to move.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub sides: Vec<SideEvidence>,
    /// The longest position, or the counterexample, with its line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub longest: Option<Witness>,
    /// A position that contradicts the claim, when not the longest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exception: Option<Witness>,
    /// Official sizes in bytes of the missing table files.
    #[serde(skip_serializing_if = "BTreeMap::is_empty", default)]
    pub missing_table_bytes: BTreeMap<String, u64>,
    /// Their total size in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing_total_bytes: Option<u64>,
    /// Remarks: the catalog's note, caveats of the method.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub notes: Vec<String>,
}

/// A claim with its verdict, in the JSON contract's shape.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct ClaimResult {
    /// The claim's id.
    pub id: String,
    /// Its year.
    pub year: Option<u32>,
    /// Who made it.
    pub who: String,
    /// The material in Syzygy naming.
    pub material: Option<String>,
    /// `dtz`, `dtc`, `dtm` or `rule`.
    pub metric: Metric,
    /// The claim in words.
    pub statement: String,
    /// Where it is written.
    pub source: String,
    /// The verdict.
    pub verdict: Verdict,
    /// What backs the verdict.
    pub evidence: Evidence,
    /// Table files that would be needed and are not present.
    pub missing_tables: Vec<String>,
}
