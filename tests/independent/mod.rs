//! Independent checks for the claims' verdicts: the official Syzygy files
//! read through shakmaty-syzygy (not fiftymove's reader), positions parsed
//! and judged by the tests' own code on shakmaty's boards (not fiftymove's
//! filters), and a lower bound on the first phase computed here (not by
//! fiftymove's solver). What they find is a second opinion on the
//! generator's output, so a verdict that agrees with them does not rest on
//! fiftymove's code alone.

pub mod phase_bound;

use shakmaty::{
    fen::Fen, Bitboard, CastlingMode, Chess, Color, FromSetup, Position, PositionError, Role,
    Square,
};
use shakmaty_syzygy::{Dtz, MaybeRounded, Tablebase, Wdl};

/// The test tables opened with shakmaty-syzygy.
pub struct SyzygyFiles(Tablebase<Chess>);

impl SyzygyFiles {
    /// Every table of the test tables directory.
    pub fn open() -> SyzygyFiles {
        let mut tables = Tablebase::new();
        let dir = super::common::tables_dir();
        let n = tables.add_directory(&dir).unwrap();
        assert!(n > 0, "no table in {}", dir.display());
        SyzygyFiles(tables)
    }

    /// The five-valued result for the side to move, the half-move clock
    /// at zero.
    pub fn wdl(&self, pos: &Chess) -> Wdl {
        self.0
            .probe_wdl_after_zeroing(pos)
            .unwrap_or_else(|e| panic!("{}: {e}", fen(pos)))
    }

    /// The DTZ as shakmaty-syzygy reads it: precise, or "n or n+1".
    pub fn dtz(&self, pos: &Chess) -> MaybeRounded<Dtz> {
        self.0
            .probe_dtz(pos)
            .unwrap_or_else(|e| panic!("{}: {e}", fen(pos)))
    }
}

/// A position from a FEN, by shakmaty, with the checks it makes (a check
/// the last move could not have given is allowed, as the generator counts
/// such positions).
pub fn chess(fen: &str) -> Chess {
    let setup = fen.parse::<Fen>().unwrap_or_else(|e| panic!("{fen}: {e}"));
    setup
        .into_position(CastlingMode::Standard)
        .or_else(PositionError::ignore_impossible_check)
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// A position from pieces placed on squares, `None` where shakmaty finds it
/// illegal (kings in contact, the side not to move in check, a pawn on a
/// back rank), with the same allowance as [`chess`].
pub fn placed(pieces: &[(Color, Role, Square)], turn: Color) -> Option<Chess> {
    let mut setup = shakmaty::Setup::empty();
    for (color, role, square) in pieces {
        setup.board.set_piece_at(*square, role.of(*color));
    }
    setup.turn = turn;
    Chess::from_setup(setup, CastlingMode::Standard)
        .or_else(PositionError::ignore_impossible_check)
        .ok()
}

/// The position's FEN, for messages.
pub fn fen(pos: &Chess) -> String {
    Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string()
}

/// Whether a square is light (a1 is dark): the tests' own colour of a
/// square, by file and rank.
pub fn is_light(square: Square) -> bool {
    (u32::from(square.file()) + u32::from(square.rank())) % 2 == 1
}

/// The squares of `color`'s pieces of `role`.
pub fn squares_of(pos: &Chess, color: Color, role: Role) -> Bitboard {
    pos.board().by_piece(role.of(color))
}

/// The rank of `square` counted from `color`'s side (1 to 8).
pub fn relative_rank(color: Color, square: Square) -> u32 {
    let r = u32::from(square.rank()) + 1;
    match color {
        Color::White => r,
        Color::Black => 9 - r,
    }
}

/// Whether the side to move wins, whatever the 50-move rule makes of it.
pub fn side_to_move_wins(wdl: Wdl) -> bool {
    matches!(wdl, Wdl::Win | Wdl::CursedWin)
}

/// Whether the side to move loses, whatever the 50-move rule makes of it.
pub fn side_to_move_loses(wdl: Wdl) -> bool {
    matches!(wdl, Wdl::Loss | Wdl::BlessedLoss)
}

/// Whether the 50-move rule turns the result into a draw: a cursed win or
/// a blessed loss, that is, a decisive position whose least rule is over 50
/// moves (its DTR over 100 plies).
pub fn cut_by_fifty_move_rule(wdl: Wdl) -> bool {
    matches!(wdl, Wdl::CursedWin | Wdl::BlessedLoss)
}

/// A random placement of `pieces`, each on a square of its own set and
/// none on another's, with `turn` to move; `None` where it is not a legal
/// position (see [`placed`]). Drawn uniformly over placements, it is
/// uniform over the positions the generator counts, but for the few a
/// symmetry maps to themselves.
pub fn random_position(
    rng: &mut impl rand::Rng,
    pieces: &[(Color, Role, Bitboard)],
    turn: Color,
) -> Option<Chess> {
    let mut used = Bitboard::EMPTY;
    let mut placed_pieces = Vec::with_capacity(pieces.len());
    for (color, role, allowed) in pieces {
        let free: Vec<Square> = (*allowed & !used).into_iter().collect();
        let square = free[rng.gen_range(0..free.len())];
        used.add(square);
        placed_pieces.push((*color, *role, square));
    }
    placed(&placed_pieces, turn)
}

/// Whether two positions without pawns are the same up to the board's
/// eight symmetries (the generator prints one of them).
pub fn same_up_to_symmetry(a: &Chess, b: &Chess) -> bool {
    assert!(a.board().pawns().is_empty(), "a position without pawns");
    let turns: [fn(&mut shakmaty::Board); 8] = [
        |_| {},
        shakmaty::Board::flip_vertical,
        shakmaty::Board::flip_horizontal,
        shakmaty::Board::flip_diagonal,
        shakmaty::Board::flip_anti_diagonal,
        shakmaty::Board::rotate_90,
        shakmaty::Board::rotate_180,
        shakmaty::Board::rotate_270,
    ];
    a.turn() == b.turn()
        && turns.iter().any(|turn| {
            let mut board = a.board().clone();
            turn(&mut board);
            &board == b.board()
        })
}

/// The length in plies shakmaty-syzygy gives a decisive position's first
/// phase: `[n, n]` for a precise win, `[n, n + 1]` where rounded, and for a
/// precise loss too (shakmaty-syzygy may state a loss one ply short where
/// the DTZ file does not store that side: tests/exact_dtz.rs).
pub fn dtz_range(files: &SyzygyFiles, pos: &Chess) -> [u32; 2] {
    match files.dtz(pos) {
        MaybeRounded::Precise(Dtz(n)) if n > 0 => [n.unsigned_abs(); 2],
        MaybeRounded::Precise(Dtz(n)) | MaybeRounded::Rounded(Dtz(n)) => {
            [n.unsigned_abs(), n.unsigned_abs() + 1]
        }
    }
}
