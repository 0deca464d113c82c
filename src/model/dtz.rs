//! DTZ in plies, as the Syzygy tables give it and as the engines settle it.
//!
//! A DTZ table may store a phase's length in moves rather than plies: the
//! value read is then `n`, and the truth `n` or `n + 1` plies. Two rules
//! settle it, and both the probe engine and the sweep apply them:
//!
//! - the parity rule: when every phase of the material must end with the
//!   winner's move ([`phase_parity_is_natural`]), the winner to move has an
//!   odd DTZ and the loser to move an even one, so one of `n` and `n + 1`
//!   fits;
//! - otherwise a search: the winner (minimising) reaches `n` iff some move
//!   scores `n`; the loser (maximising) reaches `n + 1` iff some move scores
//!   `n + 1`.

use shakmaty::Role;

/// The DTZ type, defined beside the evaluation it refines (the chess layer,
/// below this one, takes it too).
pub use crate::chess::wdl::Dtz;

/// The moves the winner plays in a phase (or to mate) of `plies`: with the
/// winner to move it plays the first ply and the last, `ceil(plies / 2)`;
/// with the loser to move, `plies / 2`.
pub fn winner_moves(plies: u32, winner_to_move: bool) -> u32 {
    if winner_to_move {
        plies.div_ceil(2)
    } else {
        plies / 2
    }
}

/// A DTZ magnitude read rounded: the truth is `plies` or `plies + 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundedDtz {
    /// The magnitude read, in plies.
    pub plies: i32,
    /// Whether the side to move wins (else it loses).
    pub mover_wins: bool,
}

impl RoundedDtz {
    /// The magnitude of `raw`, a signed value read rounded (not 0): the side
    /// to move wins when it is positive.
    pub fn of(raw: i32) -> RoundedDtz {
        RoundedDtz {
            plies: raw.abs(),
            mover_wins: raw > 0,
        }
    }

    /// The magnitude under the parity rule: odd for the winner to move,
    /// even for the loser to move.
    pub fn by_parity(self) -> i32 {
        if (self.plies % 2 == 1) == self.mover_wins {
            self.plies
        } else {
            self.plies + 1
        }
    }

    /// The score, in plies for the mover, that one of its moves must reach
    /// for [`RoundedDtz::by_search`] to be told `true`.
    pub fn search_target(self) -> i32 {
        if self.mover_wins {
            self.plies
        } else {
            self.plies + 1
        }
    }

    /// The magnitude, given whether some move of the mover scores
    /// [`RoundedDtz::search_target`] plies.
    pub fn by_search(self, hit: bool) -> i32 {
        if hit == self.mover_wins {
            self.plies
        } else {
            self.plies + 1
        }
    }
}

/// The signed value the parity rule gives `raw`, a signed value read
/// rounded: of `raw` and one ply further from zero, the one whose magnitude
/// is odd for the winner to move, even for the loser.
pub fn by_parity(raw: i32) -> i32 {
    raw.signum() * RoundedDtz::of(raw).by_parity()
}

/// Whether every phase of a material, with the side of counts `loser`
/// losing against `winner`, must end with the winner's move. The counts
/// are per role, indexed by `role as usize - 1` (shakmaty's order: pawn
/// first, king last).
///
/// The loser makes a phase's zeroing move only when forced: in a position
/// where every legal move is zeroing, and still lost after it (any other
/// move would score more). Without pawns, the loser's zeroing moves are
/// captures. If every capture the loser can make leaves the winner unable
/// to win (a bare king, or a single minor piece against a bare king), no
/// such position exists, and DTZ parity is fixed: odd for the winner to
/// move, even for the loser to move.
pub fn phase_parity_is_natural(loser: &[u8; 6], winner: &[u8; 6]) -> bool {
    let count = |side: &[u8; 6], role: Role| usize::from(side[role as usize - 1]);
    let total = |side: &[u8; 6]| side.iter().map(|&n| usize::from(n)).sum::<usize>();
    if count(loser, Role::Pawn) > 0 {
        return false;
    }
    let bare_loser = total(loser) == 1;
    let minors = count(winner, Role::Bishop) + count(winner, Role::Knight);
    [
        Role::Queen,
        Role::Rook,
        Role::Bishop,
        Role::Knight,
        Role::Pawn,
    ]
    .into_iter()
    .filter(|role| count(winner, *role) > 0)
    .all(|captured| {
        // The winner's pieces after the capture, king included.
        let left = total(winner) - 1;
        let minor = usize::from(matches!(captured, Role::Bishop | Role::Knight));
        let lone_minor = left == 2 && minors - minor == 1;
        left == 1 || (lone_minor && bare_loser)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::wdl::Wdl;

    /// The counts of `name`'s (White, Black) sides, by role.
    fn sides(name: &str) -> ([u8; 6], [u8; 6]) {
        let m: crate::chess::material::Material = name.parse().unwrap();
        let by_role = |c| Role::ALL.map(|r| m.side(c).count(r));
        (
            by_role(shakmaty::Color::White),
            by_role(shakmaty::Color::Black),
        )
    }

    #[test]
    fn natural_parity() {
        let (w, b) = sides("KQvKR");
        // A bare king can take only the rook... leaving a bare king.
        assert!(phase_parity_is_natural(&b, &w));
        let (w, b) = sides("KBNvK");
        assert!(phase_parity_is_natural(&b, &w));
        let (w, b) = sides("KRNvK");
        assert!(!phase_parity_is_natural(&b, &w));
        let (w, b) = sides("KPvKP");
        assert!(!phase_parity_is_natural(&b, &w));
        let (w, b) = sides("KNNvKP");
        assert!(phase_parity_is_natural(&w, &b));
        assert!(!phase_parity_is_natural(&b, &w));
    }

    #[test]
    fn dtz_classes_and_moves() {
        let classes = [0, 1, 100, 101, -100, -101].map(|d| Dtz(d).wdl());
        assert_eq!(
            classes,
            [
                Wdl::Draw,
                Wdl::Win,
                Wdl::Win,
                Wdl::CursedWin,
                Wdl::Loss,
                Wdl::BlessedLoss
            ]
        );
        assert_eq!((winner_moves(7, true), winner_moves(7, false)), (4, 3));
        assert_eq!((winner_moves(8, true), winner_moves(8, false)), (4, 4));
    }

    #[test]
    fn rounded_settles() {
        let win = |plies| RoundedDtz {
            plies,
            mover_wins: true,
        };
        let loss = |plies| RoundedDtz {
            plies,
            mover_wins: false,
        };
        assert_eq!(win(4).by_parity(), 5);
        assert_eq!(win(5).by_parity(), 5);
        assert_eq!(loss(4).by_parity(), 4);
        assert_eq!(loss(5).by_parity(), 6);
        assert_eq!([4, 5, -4, -5].map(by_parity), [5, 5, -4, -6]);
        assert_eq!((win(4).search_target(), loss(4).search_target()), (4, 5));
        assert_eq!((win(4).by_search(true), win(4).by_search(false)), (4, 5));
        assert_eq!((loss(4).by_search(true), loss(4).by_search(false)), (5, 4));
    }
}
