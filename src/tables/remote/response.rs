//! The JSON that the Lichess tablebase service (lila-tablebase) answers to
//! `GET /standard?fen=...`, as far as fiftymove reads it.
//!
//! The server computes `dtz` with shakmaty-syzygy, so it may be rounded
//! ("n or n+1" plies); `precise_dtz` is set only where it is not. The
//! `category` depends on the FEN's halfmove clock, and is not always exact:
//! `maybe-*` and `syzygy-*` say the server could not tell a win from a
//! cursed win (or a loss from a blessed one), and `unknown` that it has no
//! table. fiftymove reads the raw DTZ and resolves it itself.

use std::fmt;

use serde::Deserialize;

use crate::chess::wdl::Wdl;

/// The service's ten categories, from the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// Won.
    Win,
    /// Won with the 50-move rule, or drawn by it: not known which.
    MaybeWin,
    /// As `MaybeWin`, from DTZ rounding in the Syzygy tables.
    SyzygyWin,
    /// Won without the 50-move rule, drawn with it.
    CursedWin,
    /// Drawn.
    Draw,
    /// Lost without the 50-move rule, drawn with it.
    BlessedLoss,
    /// As `SyzygyWin`, for the loser.
    SyzygyLoss,
    /// As `MaybeWin`, for the loser.
    MaybeLoss,
    /// Lost.
    Loss,
    /// The service has no table for the position.
    Unknown,
}

impl Category {
    /// The five-valued result, where the category is exact.
    pub fn exact(self) -> Option<Wdl> {
        match self {
            Category::Win => Some(Wdl::Win),
            Category::CursedWin => Some(Wdl::CursedWin),
            Category::Draw => Some(Wdl::Draw),
            Category::BlessedLoss => Some(Wdl::BlessedLoss),
            Category::Loss => Some(Wdl::Loss),
            _ => None,
        }
    }

    /// The name the service uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Win => "win",
            Category::MaybeWin => "maybe-win",
            Category::SyzygyWin => "syzygy-win",
            Category::CursedWin => "cursed-win",
            Category::Draw => "draw",
            Category::BlessedLoss => "blessed-loss",
            Category::SyzygyLoss => "syzygy-loss",
            Category::MaybeLoss => "maybe-loss",
            Category::Loss => "loss",
            Category::Unknown => "unknown",
        }
    }
}

/// What the service says of one position (the root, or a move's result).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct PositionAnswer {
    /// The category, for the side to move, given the FEN's clock.
    pub category: Category,
    /// DTZ in plies, maybe rounded; `None` where the service has no table.
    #[serde(default)]
    pub dtz: Option<i32>,
    /// DTZ in plies where it is certainly not rounded.
    #[serde(default)]
    pub precise_dtz: Option<i32>,
    /// Depth to mate in plies, where the service has it (up to 6 pieces on
    /// the public service; never on a server without DTM tables).
    #[serde(default)]
    pub dtm: Option<i32>,
    /// The side to move is checkmated.
    #[serde(default)]
    pub checkmate: bool,
    /// The side to move is stalemated.
    #[serde(default)]
    pub stalemate: bool,
}

/// One legal move and what it leads to.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct MoveAnswer {
    /// The move in UCI notation.
    pub uci: String,
    /// The move in SAN.
    pub san: String,
    /// A capture or a pawn move.
    pub zeroing: bool,
    /// A capture or a promotion.
    #[serde(default)]
    pub conversion: bool,
    /// The position after the move, for the side then to move.
    #[serde(flatten)]
    pub after: PositionAnswer,
}

/// The whole answer for one position.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Answer {
    /// The position itself.
    #[serde(flatten)]
    pub position: PositionAnswer,
    /// Every legal move, best first by the service's ordering.
    pub moves: Vec<MoveAnswer>,
}

/// A response body that is not the tablebase JSON: not JSON, a missing
/// field (`category`, `moves`, a move's `uci`, `san` or `zeroing`), or an
/// unknown category. It reads as one line.
#[derive(Debug)]
pub struct NotTablebaseJson {
    /// The JSON decoder's error.
    pub source: serde_json::Error,
    /// The body's first 60 characters.
    pub begins: String,
}

impl fmt::Display for NotTablebaseJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "its answer is not the tablebase JSON ({}; it begins {:?})",
            self.source, self.begins
        )
    }
}

impl std::error::Error for NotTablebaseJson {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// Parses a response body.
///
/// # Errors
///
/// [`NotTablebaseJson`] when the body is not an answer of the service.
pub fn parse(body: &str) -> Result<Answer, NotTablebaseJson> {
    serde_json::from_str(body).map_err(|source| NotTablebaseJson {
        source,
        begins: body.chars().take(60).collect(),
    })
}

#[cfg(test)]
mod tests {
    //! The bodies in `tests/remote/` were captured from a real
    //! lila-tablebase server by `tests/remote/capture.sh`, which names each
    //! position.
    use super::*;

    fn captured(name: &str) -> String {
        let path = format!("{}/tests/remote/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    #[test]
    fn every_category_parses() {
        let all = [
            ("win", Category::Win),
            ("maybe-win", Category::MaybeWin),
            ("syzygy-win", Category::SyzygyWin),
            ("cursed-win", Category::CursedWin),
            ("draw", Category::Draw),
            ("blessed-loss", Category::BlessedLoss),
            ("syzygy-loss", Category::SyzygyLoss),
            ("maybe-loss", Category::MaybeLoss),
            ("loss", Category::Loss),
            ("unknown", Category::Unknown),
        ];
        for (name, cat) in all {
            let got: Category = serde_json::from_str(&format!("\"{name}\"")).unwrap();
            assert_eq!(got, cat);
            assert_eq!(cat.as_str(), name);
            let exact = matches!(
                name,
                "win" | "cursed-win" | "draw" | "blessed-loss" | "loss"
            );
            assert_eq!(cat.exact().is_some(), exact, "{name}");
        }
        assert!(serde_json::from_str::<Category>("\"won\"").is_err());
    }

    #[test]
    fn captured_answers_parse() {
        // KQ v K, White to move: a win in 11 plies, whose best move's DTZ
        // the server cannot give exactly (docs/lila-tablebase.md).
        let a = parse(&captured("kqk-win.json")).unwrap();
        assert_eq!(a.position.category, Category::Win);
        assert_eq!(a.position.dtz, Some(11));
        assert_eq!(a.position.precise_dtz, None);
        assert!(!a.moves.is_empty());
        let best = &a.moves[0];
        assert_eq!(best.after.category, Category::Loss);
        assert_eq!(best.after.dtz, Some(-10));
        assert_eq!(best.after.precise_dtz, None);
        // A cursed win and its blessed-loss replies (KBB v KN).
        let c = parse(&captured("kbbkn-cursed.json")).unwrap();
        assert_eq!(c.position.category, Category::CursedWin);
        assert!(c
            .moves
            .iter()
            .any(|m| m.after.category == Category::BlessedLoss));
        // Checkmated: no moves, DTZ 0.
        let m = parse(&captured("checkmate.json")).unwrap();
        assert!(m.position.checkmate);
        assert!(m.moves.is_empty());
        assert_eq!(m.position.category, Category::Loss);
        // Eight pieces: no table, so no DTZ.
        let u = parse(&captured("unknown.json")).unwrap();
        assert_eq!(u.position.category, Category::Unknown);
        assert_eq!(u.position.dtz, None);
        // A position whose clock leaves the server unsure: syzygy-*.
        let s = parse(&captured("syzygy-win.json")).unwrap();
        assert!(s.position.category.exact().is_none());
    }

    #[test]
    fn missing_fields() {
        let body = captured("kqk-win.json");
        let mut json: serde_json::Value = serde_json::from_str(&body).unwrap();
        // Optional numbers may be absent: they read as null.
        for field in ["dtz", "precise_dtz", "dtm"] {
            let mut j = json.clone();
            j.as_object_mut().unwrap().remove(field);
            let a = parse(&j.to_string()).unwrap();
            assert!(match field {
                "dtz" => a.position.dtz.is_none(),
                "precise_dtz" => a.position.precise_dtz.is_none(),
                _ => a.position.dtm.is_none(),
            });
        }
        // The category and the moves may not.
        for field in ["category", "moves"] {
            let mut j = json.clone();
            j.as_object_mut().unwrap().remove(field);
            let e = parse(&j.to_string()).unwrap_err().to_string();
            assert!(e.contains(field), "{e}");
        }
        // Nor a move's UCI or zeroing flag.
        for field in ["uci", "zeroing"] {
            let mut j = json.clone();
            j["moves"][0].as_object_mut().unwrap().remove(field);
            let e = parse(&j.to_string()).unwrap_err().to_string();
            assert!(e.contains(field), "{e}");
        }
        json["category"] = "won".into();
        assert!(parse(&json.to_string()).is_err());
    }

    #[test]
    fn not_json() {
        let e = parse("<html><body>502 Bad Gateway</body></html>")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("not the tablebase JSON") && e.contains("<html>"),
            "{e}"
        );
        assert!(parse("").is_err());
        assert!(parse("{\"category\": \"win\", \"moves\": [").is_err());
    }
}
