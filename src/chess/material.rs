//! Material signatures such as `KRBvKR`: parsing, Syzygy normalisation, piece
//! lists, the board symmetries that apply, and the dependency closure of
//! tables that captures and promotions lead to.

use std::{cmp::Ordering, collections::BTreeSet, fmt, str::FromStr};

use shakmaty::{Board, Color, Piece, Role, Square};

use crate::error::{Error, Result};

/// Syzygy tables exist for at most this many pieces, kings included.
pub const MAX_PIECES: usize = 7;

/// Roles in the order Syzygy writes them in a signature.
pub(crate) const ROLE_ORDER: [Role; 6] = [
    Role::King,
    Role::Queen,
    Role::Rook,
    Role::Bishop,
    Role::Knight,
    Role::Pawn,
];

/// The pieces of one side, as counts per role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Side {
    counts: [u8; 6],
}

impl Side {
    fn index(role: Role) -> usize {
        ROLE_ORDER
            .iter()
            .position(|r| *r == role)
            .expect("all roles listed")
    }

    /// How many pieces of `role` this side has.
    pub fn count(&self, role: Role) -> u8 {
        self.counts[Self::index(role)]
    }

    fn add(&mut self, role: Role, n: i8) {
        let slot = &mut self.counts[Self::index(role)];
        *slot = slot
            .checked_add_signed(n)
            .expect("piece counts stay in range");
    }

    /// Total number of pieces, king included.
    pub fn total(&self) -> usize {
        self.counts.iter().map(|c| usize::from(*c)).sum()
    }

    /// The roles of this side in signature order, one entry per piece.
    pub fn roles(&self) -> Vec<Role> {
        ROLE_ORDER
            .iter()
            .flat_map(|r| std::iter::repeat_n(*r, usize::from(self.count(*r))))
            .collect()
    }

    /// Syzygy's strength order: more pieces first, then more of the stronger
    /// roles. Used to decide which side a table file names first.
    fn syzygy_cmp(&self, other: &Side) -> Ordering {
        self.total()
            .cmp(&other.total())
            .then_with(|| self.counts.cmp(&other.counts))
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for role in self.roles() {
            write!(f, "{}", role.upper_char())?;
        }
        Ok(())
    }
}

/// A material signature: the pieces of White and of Black.
///
/// White is the first side of the signature as written. [`Material::table_name`]
/// gives the Syzygy file name, which may list the sides the other way round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Material {
    white: Side,
    black: Side,
}

impl Material {
    /// The pieces of one colour.
    pub fn side(&self, color: Color) -> &Side {
        match color {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    /// Total number of pieces on the board, kings included.
    pub fn piece_count(&self) -> usize {
        self.white.total() + self.black.total()
    }

    /// Whether either side has a pawn.
    pub fn has_pawns(&self) -> bool {
        self.white.count(Role::Pawn) + self.black.count(Role::Pawn) > 0
    }

    /// The material with colours swapped.
    pub fn flipped(&self) -> Material {
        Material {
            white: self.black,
            black: self.white,
        }
    }

    /// Whether Syzygy's file for this material lists Black's pieces first.
    pub fn is_flipped_in_table(&self) -> bool {
        self.white.syzygy_cmp(&self.black) == Ordering::Less
    }

    /// The material as Syzygy names its table (the stronger side first).
    pub fn normalized(&self) -> Material {
        if self.is_flipped_in_table() {
            self.flipped()
        } else {
            *self
        }
    }

    /// The Syzygy table name, e.g. `KRBvKR`.
    pub fn table_name(&self) -> String {
        self.normalized().to_string()
    }

    /// The key that orders materials smallest first: by pieces, then by
    /// pawns, then by Syzygy name. A material's captures and promotions
    /// reach only materials before it (fewer pieces, or as many with fewer
    /// pawns), so the solver solves in this order, and the census lists in
    /// it.
    pub fn size_order_key(&self) -> (usize, usize, String) {
        let pawns = usize::from(self.white.count(Role::Pawn) + self.black.count(Role::Pawn));
        (self.piece_count(), pawns, self.table_name())
    }

    /// Whether Syzygy has a table for this material at all (KvK has none).
    pub fn has_table(&self) -> bool {
        self.piece_count() > 2
    }

    /// The pieces in a fixed order: White's in signature order, then Black's.
    pub fn pieces(&self) -> Vec<Piece> {
        let mut out = Vec::with_capacity(self.piece_count());
        for color in Color::ALL {
            for role in self.side(color).roles() {
                out.push(Piece { color, role });
            }
        }
        out
    }

    /// The material of the pieces on a board.
    ///
    /// # Errors
    ///
    /// Fails if a side does not have exactly one king.
    pub fn from_board(board: &Board) -> Result<Material> {
        let mut m = Material {
            white: Side::default(),
            black: Side::default(),
        };
        for (_, piece) in board.iter() {
            m.side_mut(piece.color).add(piece.role, 1);
        }
        m.check_kings(&m.to_string())?;
        Ok(m)
    }

    fn check_kings(&self, input: &str) -> Result<()> {
        if self.white.count(Role::King) != 1 || self.black.count(Role::King) != 1 {
            return Err(Error::Material {
                input: input.to_owned(),
                reason: "each side needs exactly one king".into(),
                suggestion: suggest(input),
            });
        }
        Ok(())
    }

    /// The board symmetries under which positions of this material are
    /// equivalent: all 8 for pawnless material, only the a-h mirror with
    /// pawns (pawns move in one direction).
    pub fn symmetries(&self) -> &'static [Symmetry] {
        if self.has_pawns() {
            &Symmetry::ALL[..2]
        } else {
            &Symmetry::ALL
        }
    }

    /// Materials one capture away (not normalised).
    pub fn captures(&self) -> Vec<Material> {
        let mut out = Vec::new();
        for color in Color::ALL {
            for role in &ROLE_ORDER[1..] {
                if self.side(color).count(*role) > 0 {
                    let mut m = *self;
                    m.side_mut(color).add(*role, -1);
                    out.push(m);
                }
            }
        }
        out
    }

    /// Materials one move away: one capture, one promotion or one
    /// capturing promotion (not including itself), normalised, without
    /// repeats. These are the tables a solve of this material reads.
    pub fn children(&self) -> Vec<Material> {
        let mut out: Vec<Material> = self.successors().iter().map(Material::normalized).collect();
        out.sort_by_key(Material::table_name);
        out.dedup();
        out
    }

    /// Materials one capture, promotion or capturing promotion away (not
    /// including itself).
    fn successors(&self) -> Vec<Material> {
        self.successors_by_mover()
            .into_iter()
            .map(|(m, _)| m)
            .collect()
    }

    /// [`Material::children`] before normalising and with repeats, each
    /// with the colour whose move leads there (the other one is to move
    /// after it).
    pub(crate) fn successors_by_mover(&self) -> Vec<(Material, Color)> {
        let mut out = Vec::new();
        for color in Color::ALL {
            for role in &ROLE_ORDER[1..] {
                if self.side(color).count(*role) == 0 {
                    continue;
                }
                // Capture of this piece.
                let mut m = *self;
                m.side_mut(color).add(*role, -1);
                out.push((m, !color));
                // Promotion of a pawn.
                if *role == Role::Pawn {
                    for promo in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                        let mut m = *self;
                        m.side_mut(color).add(Role::Pawn, -1);
                        m.side_mut(color).add(promo, 1);
                        out.push((m, color));
                        // Promotion with a capture of an enemy piece (not a
                        // pawn: none stands on the last rank).
                        for victim in &ROLE_ORDER[1..] {
                            if *victim != Role::Pawn && self.side(!color).count(*victim) > 0 {
                                let mut c = m;
                                c.side_mut(!color).add(*victim, -1);
                                out.push((c, color));
                            }
                        }
                    }
                }
            }
        }
        out
    }

    fn side_mut(&mut self, color: Color) -> &mut Side {
        match color {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        }
    }

    /// Every table this material's play can reach through captures and
    /// promotions, itself included, as normalised table names (KvK, which has
    /// no table, is left out).
    pub fn closure(&self) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![self.normalized()];
        while let Some(m) = stack.pop() {
            if !m.has_table() || !seen.insert(m.table_name()) {
                continue;
            }
            stack.extend(m.successors().into_iter().map(|s| s.normalized()));
        }
        seen
    }

    /// The table files (`.rtbw` and `.rtbz`) of the whole closure.
    pub fn closure_files(&self) -> Vec<String> {
        self.closure()
            .into_iter()
            .flat_map(|name| [format!("{name}.rtbw"), format!("{name}.rtbz")])
            .collect()
    }
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}v{}", self.white, self.black)
    }
}

impl FromStr for Material {
    type Err = Error;

    /// Parses a signature such as `KRBvKR` (case-insensitive, pieces in any
    /// order within a side).
    fn from_str(input: &str) -> Result<Material> {
        let err = |reason: &str| Error::Material {
            input: input.to_owned(),
            reason: reason.to_owned(),
            suggestion: suggest(input),
        };
        let upper = input.trim().to_ascii_uppercase();
        let Some((w, b)) = upper.split_once('V') else {
            return Err(err("expected two sides separated by 'v', like KRBvKR"));
        };
        let mut sides = [Side::default(); 2];
        for (side, text) in sides.iter_mut().zip([w, b]) {
            for ch in text.chars() {
                let role = Role::from_char(ch.to_ascii_lowercase())
                    .ok_or_else(|| err(&format!("'{ch}' is not a piece letter (KQRBNP)")))?;
                if side.count(role) >= 10 {
                    return Err(err("too many pieces"));
                }
                side.add(role, 1);
            }
        }
        let m = Material {
            white: sides[0],
            black: sides[1],
        };
        m.check_kings(input)?;
        if m.piece_count() > MAX_PIECES {
            return Err(err(&format!(
                "{} pieces; Syzygy tables hold at most {MAX_PIECES}",
                m.piece_count()
            )));
        }
        if !m.has_table() {
            return Err(err("KvK has no table: it is always a draw"));
        }
        Ok(m)
    }
}

/// Every table name Syzygy has: each normalised material of 3 to
/// [`MAX_PIECES`] pieces (KvK excepted). The official checksum list names
/// exactly these (a test in `tables::checksums` checks it), so the names
/// come from the rules of material rather than from table data.
pub fn table_names() -> BTreeSet<String> {
    // Every side: a king and up to MAX_PIECES - 2 more pieces, as a multiset
    // of roles in signature order.
    let mut sides = vec![Side::default()];
    sides[0].add(Role::King, 1);
    let mut frontier = sides.clone();
    for _ in 0..MAX_PIECES - 2 {
        let mut next = Vec::new();
        for side in &frontier {
            // Add roles in signature order only, so each multiset is built once.
            let last = ROLE_ORDER[1..]
                .iter()
                .rposition(|r| side.count(*r) > 0)
                .map_or(1, |i| i + 1);
            for role in &ROLE_ORDER[last..] {
                let mut s = *side;
                s.add(*role, 1);
                next.push(s);
            }
        }
        sides.extend(next.iter().copied());
        frontier = next;
    }
    let mut names = BTreeSet::new();
    for white in &sides {
        for black in &sides {
            let m = Material {
                white: *white,
                black: *black,
            };
            if m.has_table() && m.piece_count() <= MAX_PIECES {
                names.insert(m.table_name());
            }
        }
    }
    names
}

/// The official table name closest to `input` by edit distance, if any is
/// within three edits.
fn suggest(input: &str) -> Option<String> {
    // The official names, upper-cased once (building them on every call
    // cost a millisecond per bad argument).
    static NAMES: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        table_names()
            .into_iter()
            .map(|name| (name.to_ascii_uppercase(), name))
            .collect()
    });
    let upper = input.trim().to_ascii_uppercase();
    names
        .iter()
        // Lengths more than three apart cannot be within three edits; this
        // also keeps a huge argument from costing seconds.
        .filter(|(name, _)| upper.len().abs_diff(name.len()) <= 3)
        .map(|(name, original)| (edit_distance(&upper, name), original))
        .filter(|(d, _)| *d <= 3)
        .min()
        .map(|(_, name)| name.clone())
}

/// Levenshtein distance between two short ASCII strings (also used to
/// suggest claim ids).
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let subst = prev[j] + usize::from(ca != cb);
            cur[j + 1] = subst.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// A board symmetry: one of the 8 rotations and reflections of the square.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Symmetry {
    /// The identity.
    Identity,
    /// Mirror a-file <-> h-file.
    FlipHorizontal,
    /// Mirror rank 1 <-> rank 8.
    FlipVertical,
    /// Rotate by 180 degrees.
    Rotate180,
    /// Mirror in the a1-h8 diagonal.
    FlipDiagonal,
    /// Mirror in the a8-h1 diagonal.
    FlipAntiDiagonal,
    /// Rotate by 90 degrees clockwise.
    Rotate90,
    /// Rotate by 270 degrees clockwise.
    Rotate270,
}

impl Symmetry {
    /// All 8 symmetries; the first two are the ones that keep pawns legal.
    pub const ALL: [Symmetry; 8] = [
        Symmetry::Identity,
        Symmetry::FlipHorizontal,
        Symmetry::FlipVertical,
        Symmetry::Rotate180,
        Symmetry::FlipDiagonal,
        Symmetry::FlipAntiDiagonal,
        Symmetry::Rotate90,
        Symmetry::Rotate270,
    ];

    /// The image of a square.
    #[inline]
    pub fn apply(self, sq: Square) -> Square {
        match self {
            Symmetry::Identity => sq,
            Symmetry::FlipHorizontal => sq.flip_horizontal(),
            Symmetry::FlipVertical => sq.flip_vertical(),
            Symmetry::Rotate180 => sq.rotate_180(),
            Symmetry::FlipDiagonal => sq.flip_diagonal(),
            Symmetry::FlipAntiDiagonal => sq.flip_anti_diagonal(),
            Symmetry::Rotate90 => sq.rotate_90(),
            Symmetry::Rotate270 => sq.rotate_270(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_normalises() {
        let m: Material = "KRvKQ".parse().unwrap();
        assert_eq!(m.to_string(), "KRvKQ");
        assert_eq!(m.table_name(), "KQvKR");
        let m: Material = "kbrvkr".parse().unwrap();
        assert_eq!(m.to_string(), "KRBvKR");
        // Equal counts: the side with the stronger piece comes first.
        let m: Material = "KNvKB".parse().unwrap();
        assert_eq!(m.table_name(), "KBvKN");
        let m: Material = "KQvKNN".parse().unwrap();
        assert_eq!(m.table_name(), "KNNvKQ");
    }

    #[test]
    fn closure_follows_captures_and_promotions() {
        let m: Material = "KPvK".parse().unwrap();
        let c: Vec<String> = m.closure().into_iter().collect();
        assert_eq!(c, ["KBvK", "KNvK", "KPvK", "KQvK", "KRvK"]);
    }

    #[test]
    fn rejects_and_suggests() {
        let e = "KRBKR".parse::<Material>().unwrap_err();
        assert!(e.to_string().contains("did you mean KRBvKR"), "{e}");
        assert!("KQQQQvKRRR".parse::<Material>().is_err());
        assert!("KvK".parse::<Material>().is_err());
        assert!("KXvK".parse::<Material>().is_err());
        assert!("QvK".parse::<Material>().is_err());
    }
}
