//! The claim catalog (`data/claims.toml`): what was claimed, by whom, in

//! which metric, with a machine-checkable check.

use std::fmt;

use serde::{Deserialize, Serialize};
use shakmaty::{san::SanPlus, Chess, Color, Position};

use super::filter::{Filter, FilterError};
pub use crate::chess::rule::Metric;
use crate::{
    chess::material::Material,
    chess::position::parse_fen,
    error::{Error, Result},
};

/// The catalog shipped with fiftymove (`data/claims.toml`).
pub const CATALOG_TOML: &str = include_str!("../../data/claims.toml");

/// What "generally" means in a [`Check::Generally`] claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GeneralOutcome {
    /// Most positions are draws.
    Draw,
    /// Most positions are wins for the claim's winner.
    Win,
}

/// The machine-checkable form of a claim (`check = { kind = "...", ... }`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Check {
    /// The longest win needs exactly `moves` of the winner's moves to
    /// convert (a published maximum, such as Thompson's DTC maxima).
    MaxMoves {
        /// The claimed maximum.
        moves: u32,
    },
    /// Every win needs at most `moves` of the winner's moves to convert.
    AtMostMoves {
        /// The claimed bound.
        moves: u32,
    },
    /// Some win needs more than `moves` moves without a zeroing move, so an
    /// `moves`-move rule cuts it short.
    ExceedsMoves {
        /// The rule's length in moves.
        moves: u32,
    },
    /// A rule allowing `moves` moves without a zeroing move cuts no win
    /// short.
    Allowance {
        /// The allowance in moves.
        moves: u32,
    },
    /// The endgame is in general (in more than half of its positions) a
    /// draw, or a win for the claim's winner. Values ignore the 50-move
    /// rule: cursed wins count as wins.
    Generally {
        /// Which outcome is claimed to prevail.
        outcome: GeneralOutcome,
    },
    /// The winner wins every position (in the filter), whoever is to move.
    AllWin,
    /// The position (after `play`) converts in exactly `moves` of the
    /// winner's moves.
    PositionConverts {
        /// The position.
        fen: String,
        /// Moves in SAN to play first.
        #[serde(default)]
        play: Vec<String>,
        /// The claimed distance in moves.
        moves: u32,
    },
    /// The position (after `play`) is a win for the claim's winner (cursed
    /// wins count: the claim ignores the 50-move rule).
    PositionWins {
        /// The position.
        fen: String,
        /// Moves in SAN to play first.
        #[serde(default)]
        play: Vec<String>,
    },
    /// Nothing a table can check (rules of play).
    None,
}

/// One historical claim.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// Unique id, e.g. `thompson-1986-krbkr`.
    pub id: String,
    /// Year of the claim, if known.
    #[serde(default)]
    pub year: Option<u32>,
    /// Who made it.
    pub who: String,
    /// Where it is written.
    pub source: String,
    /// The claim in words.
    pub statement: String,
    /// The material in Syzygy naming (White first, the stronger side).
    #[serde(default)]
    pub material: Option<String>,
    /// The pieces of the side the claim is about, e.g. `KQ` in `KBBvKQ`.
    #[serde(default)]
    pub winner: Option<String>,
    /// The metric of the claim.
    pub metric: Metric,
    /// The machine-checkable form.
    pub check: Check,
    /// Restricts the check to positions meeting a rule's condition.
    #[serde(default)]
    pub filter: Option<Filter>,
    /// A remark shown with the verdict.
    #[serde(default)]
    pub note: Option<String>,
}

impl Claim {
    /// The parsed material, if the claim names one.
    ///
    /// # Errors
    ///
    /// [`Error::Material`] for a bad signature.
    pub fn material(&self) -> Result<Option<Material>> {
        self.material.as_deref().map(str::parse).transpose()
    }

    /// The colour, in the material as written, of the claim's winner.
    pub(super) fn winner_color(&self, material: &Material) -> Option<Color> {
        let w = self.winner.as_deref()?.to_ascii_uppercase();
        Color::ALL
            .into_iter()
            .find(|c| material.side(*c).to_string() == w)
    }

    /// Checks the claim's internal consistency.
    ///
    /// # Errors
    ///
    /// [`ClaimError`]: what is inconsistent.
    fn validate(&self) -> std::result::Result<(), ClaimError> {
        if self.id.is_empty()
            || !self
                .id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err(ClaimError::Id);
        }
        if let Some(f) = &self.filter {
            f.validate().map_err(ClaimError::Filter)?;
        }
        let testable = self.check != Check::None;
        // DTR is the solver's own metric: no claim is stated in it.
        if self.metric == Metric::Dtr {
            return Err(ClaimError::Metric);
        }
        if self.metric == Metric::Rule && testable {
            return Err(ClaimError::RuleChecked);
        }
        let Some(text) = &self.material else {
            if testable {
                return Err(ClaimError::NoMaterial);
            }
            return Ok(());
        };
        let m: Material = text.parse().map_err(ClaimError::Material)?;
        if m.table_name() != *text {
            return Err(ClaimError::NotSyzygyName {
                given: text.clone(),
                syzygy: m.table_name(),
            });
        }
        if testable && self.winner_color(&m).is_none() {
            return Err(ClaimError::Winner {
                material: text.clone(),
                example: m.side(Color::White).to_string(),
            });
        }
        if let Check::PositionConverts { fen, play, .. } | Check::PositionWins { fen, play } =
            &self.check
        {
            let pos = position_after(fen, play).map_err(ClaimError::Position)?;
            let pm = Material::from_board(pos.board()).map_err(ClaimError::Position)?;
            if pm.table_name() != *text {
                return Err(ClaimError::PositionMaterial {
                    found: pm.table_name(),
                    material: text.clone(),
                });
            }
        }
        Ok(())
    }
}

/// A claim of a catalog that contradicts itself: one line, after the
/// claim's id.
#[derive(Debug)]
enum ClaimError {
    /// The id has characters other than lowercase letters, digits and `-`.
    Id,
    /// The filter's value means nothing.
    Filter(FilterError),
    /// The metric is DTR, in which no claim is stated.
    Metric,
    /// The metric `rule` with a check other than `none`.
    RuleChecked,
    /// A check without a material to run it on.
    NoMaterial,
    /// The material does not parse.
    Material(Error),
    /// The material is not written as Syzygy names it.
    NotSyzygyName {
        /// The material as written.
        given: String,
        /// Its Syzygy name.
        syzygy: String,
    },
    /// The winner names neither side of the material.
    Winner {
        /// The material.
        material: String,
        /// One of its sides, for the message.
        example: String,
    },
    /// The check's position (after its moves) is not a position.
    Position(Error),
    /// The check's position is of another material.
    PositionMaterial {
        /// The position's material.
        found: String,
        /// The claim's.
        material: String,
    },
}

impl fmt::Display for ClaimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClaimError::Id => f.write_str("ids are lowercase letters, digits and '-'"),
            ClaimError::Filter(e) => fmt::Display::fmt(e, f),
            ClaimError::Metric => f.write_str("metric must be dtz, dtc, dtm or rule"),
            ClaimError::RuleChecked => f.write_str("metric \"rule\" goes with check kind \"none\""),
            ClaimError::NoMaterial => f.write_str("a checkable claim needs a material"),
            ClaimError::Material(e) | ClaimError::Position(e) => fmt::Display::fmt(e, f),
            ClaimError::NotSyzygyName { given, syzygy } => write!(
                f,
                "material '{given}' is not in Syzygy naming; write '{syzygy}'"
            ),
            ClaimError::Winner { material, example } => write!(
                f,
                "winner must name one side of {material} exactly (e.g. '{example}')"
            ),
            ClaimError::PositionMaterial { found, material } => {
                write!(f, "the position's material is {found}, not {material}")
            }
        }
    }
}

impl std::error::Error for ClaimError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ClaimError::Filter(e) => Some(e),
            ClaimError::Material(e) | ClaimError::Position(e) => Some(e),
            _ => None,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogFile {
    #[serde(default)]
    claim: Vec<Claim>,
    #[serde(default)]
    record: Vec<Claim>,
}

/// Parses and validates a catalog: `[[claim]]` entries (and `[[record]]`
/// entries, which use the same schema). `origin` names the file in errors.
///
/// # Errors
///
/// [`Error::Input`] for TOML errors, duplicate ids, and claims that are
/// inconsistent (bad material, winner, filter, or FEN).
pub fn parse_catalog(text: &str, origin: &str) -> Result<Vec<Claim>> {
    let bad = |detail: String| Error::Input {
        path: origin.into(),
        detail,
    };
    let file: CatalogFile = toml::from_str(text).map_err(|e| {
        bad(format!(
            "not a claim catalog: {}",
            e.to_string().lines().collect::<Vec<_>>().join(" ")
        ))
    })?;
    let mut all = file.claim;
    all.extend(file.record);
    let mut seen = std::collections::HashSet::new();
    for c in &all {
        if !seen.insert(c.id.clone()) {
            return Err(bad(format!("claim id '{}' appears twice", c.id)));
        }
        c.validate()
            .map_err(|e| bad(format!("claim '{}': {e}", c.id)))?;
    }
    Ok(all)
}

/// The catalog shipped with fiftymove.
///
/// # Errors
///
/// As for [`parse_catalog`]; the shipped catalog is tested to parse.
pub fn catalog() -> Result<Vec<Claim>> {
    parse_catalog(CATALOG_TOML, "data/claims.toml")
}

/// The claims with the given ids, in the order given (all claims when `ids`
/// is empty).
///
/// # Errors
///
/// [`Error::Usage`] naming an unknown id and the closest known ones.
pub fn select<'a>(claims: &'a [Claim], ids: &[String]) -> Result<Vec<&'a Claim>> {
    if ids.is_empty() {
        return Ok(claims.iter().collect());
    }
    ids.iter()
        .map(|id| {
            claims.iter().find(|c| c.id == *id).ok_or_else(|| {
                let close = suggest_ids(claims, id);
                let hint = if close.is_empty() {
                    "run `fiftymove claims --list` for the ids".to_owned()
                } else {
                    format!("did you mean {}?", close.join(", "))
                };
                Error::Usage(format!("unknown claim id '{id}'; {hint}"))
            })
        })
        .collect()
}

/// The claims of `catalog` about any of the tables named (Syzygy names).
pub fn concerning<'a>(catalog: &'a [Claim], tables: &[String]) -> Vec<&'a Claim> {
    catalog
        .iter()
        .filter(|c| c.material.as_ref().is_some_and(|m| tables.contains(m)))
        .collect()
}

/// Known ids close to `id`: those containing it, else those within a few
/// edits; at most five.
fn suggest_ids(claims: &[Claim], id: &str) -> Vec<String> {
    let needle = id.to_ascii_lowercase();
    let mut hits: Vec<String> = claims
        .iter()
        .filter(|c| !needle.is_empty() && c.id.contains(&needle))
        .map(|c| c.id.clone())
        .collect();
    if hits.is_empty() {
        let mut scored: Vec<(usize, &str)> = claims
            .iter()
            .map(|c| {
                (
                    crate::chess::material::edit_distance(&needle, &c.id),
                    c.id.as_str(),
                )
            })
            .filter(|(d, _)| *d <= 4.max(needle.len() / 3))
            .collect();
        scored.sort();
        hits = scored.into_iter().map(|(_, s)| s.to_owned()).collect();
    }
    hits.truncate(5);
    hits
}

/// Parses `fen` and plays the SAN moves `play`.
pub(super) fn position_after(fen: &str, play: &[String]) -> Result<Chess> {
    let mut pos = parse_fen(fen)?;
    for san in play {
        let m = san
            .parse::<SanPlus>()
            .ok()
            .and_then(|s| s.san.to_move(&pos).ok())
            .ok_or_else(|| Error::position(fen, format!("'{san}' is not a legal move here")))?;
        pos.play_unchecked(m);
    }
    Ok(pos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_catalog_parses() {
        let all = catalog().unwrap();
        assert!(all.len() > 20);
        for c in &all {
            assert!(!c.source.is_empty(), "{}", c.id);
        }
    }

    #[test]
    fn unknown_ids_get_suggestions() {
        let all = catalog().unwrap();
        let e = select(&all, &["thompson-1986-krbk".into()]).unwrap_err();
        assert!(e.to_string().contains("thompson-1986-krbkr"), "{e}");
        assert_eq!(e.exit_code(), crate::error::EXIT_BAD_INPUT);
    }

    #[test]
    fn catalog_rejects_inconsistent_claims() {
        let bad = |body: &str| {
            parse_catalog(&format!("[[claim]]\n{body}"), "t.toml")
                .unwrap_err()
                .to_string()
        };
        let base = "id = \"x\"\nwho = \"w\"\nsource = \"s\"\nstatement = \"t\"\n";
        assert!(bad(&format!(
            "{base}material = \"KRvKQ\"\nwinner = \"KQ\"\nmetric = \"dtc\"\ncheck = {{ kind = \"max_moves\", moves = 1 }}"
        ))
        .contains("Syzygy naming"));
        assert!(bad(&format!(
            "{base}material = \"KQvKR\"\nwinner = \"KB\"\nmetric = \"dtc\"\ncheck = {{ kind = \"max_moves\", moves = 1 }}"
        ))
        .contains("winner"));
        assert!(bad(&format!(
            "{base}material = \"KQvKR\"\nwinner = \"KQ\"\nmetric = \"dtc\"\ncheck = {{ kind = \"max_moves\", moves = 1 }}\nfilter = {{ pawn_on_relative_rank = 9 }}"
        ))
        .contains("ranks 2 to 7"));
        assert!(bad(&format!(
            "{base}metric = \"rule\"\ncheck = {{ kind = \"all_win\" }}"
        ))
        .contains("rule"));
    }
}
