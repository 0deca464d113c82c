//! Turning user FENs into positions the tables can answer for, with a clear
//! reason for every FEN they cannot.

use shakmaty::{fen::Fen, CastlingMode, Chess, EnPassantMode, Position, PositionErrorKinds};

use crate::{
    chess::material::{Material, MAX_PIECES},
    error::{Error, Result},
};

/// Parses a FEN into a position that Syzygy tables cover.
///
/// Positions with an impossible check (for example two checkers that no
/// legal move could produce) are accepted: the tables contain them, and
/// `scan` reports them among the longest positions.
///
/// # Errors
///
/// [`Error::Fen`] for text that is not a FEN; [`Error::Position`] for castling
/// rights, more than seven pieces, missing or extra kings, pawns on the back
/// rank, the side not to move in check, or a bogus en-passant square.
pub fn parse_fen(fen: &str) -> Result<Chess> {
    let trimmed = fen.trim();
    let parsed: Fen = trimmed.parse().map_err(|e| Error::Fen {
        fen: trimmed.to_owned(),
        reason: format!("{e}"),
    })?;
    // shakmaty saturates counters that overflow; we would then print a
    // number the user never typed.
    for (field, what) in trimmed
        .split_whitespace()
        .skip(4)
        .zip(["halfmove clock", "fullmove number"])
    {
        if field.bytes().all(|b| b.is_ascii_digit()) && field.parse::<u32>().is_err() {
            return Err(Error::Fen {
                fen: trimmed.to_owned(),
                reason: format!("the {what} {field} is out of range"),
            });
        }
    }
    let setup = parsed.as_setup();
    if setup.castling_rights.any() {
        return Err(Error::position(
            trimmed,
            "has castling rights, which Syzygy tables do not cover (use '-' in the castling field)",
        ));
    }
    let pieces = setup.board.occupied().count();
    if pieces > MAX_PIECES {
        return Err(Error::position(
            trimmed,
            format!("has {pieces} pieces; Syzygy tables hold at most {MAX_PIECES}"),
        ));
    }
    let pos = match parsed.into_position::<Chess>(CastlingMode::Standard) {
        Ok(pos) => pos,
        Err(err) => {
            let kinds = err.kinds();
            if kinds == PositionErrorKinds::IMPOSSIBLE_CHECK {
                err.ignore_impossible_check()
                    .map_err(|e| Error::position(trimmed, describe(e.kinds())))?
            } else {
                return Err(Error::position(trimmed, describe(kinds)));
            }
        }
    };
    // A legal position still needs a material with a table (KvK has none,
    // but it is a plain draw, which we handle without tables).
    Material::from_board(pos.board()).map_err(|e| Error::position(trimmed, e.to_string()))?;
    Ok(pos)
}

/// A one-line reason for shakmaty's position errors.
fn describe(kinds: PositionErrorKinds) -> String {
    // In the order the reasons are listed.
    const REASONS: [(PositionErrorKinds, &str); 9] = [
        (PositionErrorKinds::EMPTY_BOARD, "the board is empty"),
        (PositionErrorKinds::MISSING_KING, "a king is missing"),
        (
            PositionErrorKinds::TOO_MANY_KINGS,
            "a side has more than one king",
        ),
        (
            PositionErrorKinds::PAWNS_ON_BACKRANK,
            "a pawn stands on rank 1 or 8",
        ),
        (
            PositionErrorKinds::INVALID_CASTLING_RIGHTS,
            "invalid castling rights",
        ),
        (
            PositionErrorKinds::INVALID_EP_SQUARE,
            "the en-passant square is impossible (no pawn just made a double step there)",
        ),
        (
            PositionErrorKinds::OPPOSITE_CHECK,
            "the side not to move is in check",
        ),
        (
            PositionErrorKinds::IMPOSSIBLE_CHECK,
            "the check cannot arise in a game",
        ),
        (PositionErrorKinds::TOO_MUCH_MATERIAL, "too much material"),
    ];
    let mut reasons: Vec<&str> = REASONS
        .iter()
        .filter(|(kind, _)| kinds.contains(*kind))
        .map(|(_, reason)| *reason)
        .collect();
    if reasons.is_empty() {
        reasons.push("illegal position");
    }
    reasons.join(", ")
}

/// The FEN of a position, with the en-passant square only when a capture is
/// really possible (as Syzygy and most software expect).
pub fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// The FEN of a position without move counters, the form the generator's
/// statistics print (`8/8/.../K7 b - -`); used for sorting ties.
pub fn epd_of(pos: &Chess) -> String {
    shakmaty::fen::Epd::from_position(pos, EnPassantMode::Legal).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_with_reasons() {
        let bad = |fen: &str| parse_fen(fen).unwrap_err().to_string();
        assert!(bad("not a fen").contains("invalid FEN"));
        assert!(bad("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1").contains("castling"));
        assert!(bad("4k3/8/8/8/8/8/8/8 w - - 0 1").contains("king is missing"));
        assert!(bad("4k3/8/8/8/8/8/8/3KK3 w - - 0 1").contains("more than one king"));
        assert!(bad("4k3/8/8/8/8/8/8/P3K3 w - - 0 1").contains("rank 1 or 8"));
        assert!(bad("4k3/8/8/8/8/8/8/K3R3 w - - 0 1").contains("not to move is in check"));
        assert!(bad("4k3/8/8/8/8/8/8/4K3 w - e6 0 1").contains("en-passant"));
        assert!(bad("rnbqkbn1/8/8/8/8/8/8/4K3 w - - 0 1").contains("at most 7"));
        assert!(bad("4k3/8/8/8/8/8/8/4K3 w - - 99999999999 1")
            .contains("clock 99999999999 is out of range"));
        assert!(bad("4k3/8/8/8/8/8/8/4K3 w - - 0 4294967296").contains("fullmove number"));
        assert!(!bad("4k3/8/8/8/8/8/8/R3K3 w - -\n0 1").contains('\n'));
    }

    #[test]
    fn accepts_table_positions() {
        let pos = parse_fen("8/8/8/8/8/8/8/R3K2k w - - 37 80").unwrap();
        assert_eq!(pos.halfmoves(), 37);
        assert_eq!(epd_of(&pos), "8/8/8/8/8/8/8/R3K2k w - -");
    }
}
