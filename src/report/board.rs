//! Board diagrams of positions: HTML tables of Unicode glyphs, and plain
//! text for Markdown.

use std::fmt::Write as _;

use shakmaty::{Board, Color, File, Piece, Position, Rank, Role, Square};

use crate::{chess::position::parse_fen, error::Result};

use super::{color_word, esc};

fn glyph(role: Role) -> char {
    // The solid glyphs for both colours; colour comes from CSS.
    match role {
        Role::King => '\u{265A}',
        Role::Queen => '\u{265B}',
        Role::Rook => '\u{265C}',
        Role::Bishop => '\u{265D}',
        Role::Knight => '\u{265E}',
        Role::Pawn => '\u{265F}',
    }
}

/// The rows of a diagram of `board`, the eighth rank first: each rank's
/// number (1 to 8), and its squares from the a-file on with what stands
/// there.
fn rows(
    board: &Board,
) -> impl Iterator<Item = (u32, impl Iterator<Item = (Square, Option<Piece>)> + '_)> + '_ {
    (0..8u32).rev().map(move |rank| {
        let cells = (0..8u32).map(move |file| {
            let sq = Square::from_coords(File::new(file), Rank::new(rank));
            (sq, board.piece_at(sq))
        });
        (rank + 1, cells)
    })
}

/// A board diagram as an HTML table of Unicode chess glyphs, with the side
/// to move and the FEN as caption.
///
/// # Errors
///
/// [`crate::Error::Fen`] / [`crate::Error::Position`] for an unusable FEN.
pub fn board_html(fen: &str, caption: &str) -> Result<String> {
    let pos = parse_fen(fen)?;
    let mut out = String::from("<figure class=\"board\"><table>");
    for (rank, cells) in rows(pos.board()) {
        let _ = write!(out, "<tr><th>{rank}</th>");
        for (sq, piece) in cells {
            let shade = if sq.is_dark() { "d" } else { "l" };
            match piece {
                Some(p) => {
                    let cls = if p.color == Color::White { "w" } else { "b" };
                    let _ = write!(
                        out,
                        "<td class=\"{shade}\"><span class=\"{cls}\" title=\"{} {}\">{}\u{FE0E}</span></td>",
                        color_word(p.color),
                        format!("{:?}", p.role).to_lowercase(),
                        glyph(p.role)
                    );
                }
                None => {
                    let _ = write!(out, "<td class=\"{shade}\"></td>");
                }
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("<tr><th></th>");
    for f in "abcdefgh".chars() {
        let _ = write!(out, "<th>{f}</th>");
    }
    out.push_str("</tr></table>");
    let _ = write!(
        out,
        "<figcaption>{}<br><code>{}</code><br>{} to move</figcaption></figure>",
        esc(caption),
        esc(fen),
        color_word(pos.turn())
    );
    Ok(out)
}

/// A board diagram as plain text for Markdown (a code block body).
///
/// # Errors
///
/// As for [`board_html`].
pub fn board_text(fen: &str) -> Result<String> {
    let pos = parse_fen(fen)?;
    let mut out = String::from("  +-----------------+\n");
    for (rank, cells) in rows(pos.board()) {
        let _ = write!(out, "{rank} |");
        for (_, piece) in cells {
            out.push(' ');
            out.push(piece.map_or('.', |p| p.char()));
        }
        out.push_str(" |\n");
    }
    out.push_str("  +-----------------+\n    a b c d e f g h\n");
    let _ = writeln!(out, "  {} to move", color_word(pos.turn()));
    Ok(out)
}
