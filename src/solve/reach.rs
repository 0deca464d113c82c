//! Which slices of which materials some slices of a material can lead to.
//!
//! A slice of frozen pawns (KRP(a2) v KBP(a3), say) reaches only a few of
//! the slices of the pawn materials below it: after BxR the pawns still
//! stand on a2 and a3, and after a2xb3 the white pawn walks the b-file. So
//! instead of solving every pawn material of the closure whole (KRPvKP
//! alone has 1,128 slices, and its whole DTR solve 23.8 GiB by the memory
//! bound), the solver solves just the slices that can be reached. The same
//! holds for the slices a claim reads (KQP v KQ with the pawn on the
//! seventh rank: the pawn's only move promotes, so four of the material's
//! 24 slices), with the slices of the material itself that its pawn moves
//! reach. Pawnless materials are one slice each and are solved whole.
//!
//! The search works on the pawns alone and errs on the generous side: a
//! pawn may capture diagonally whenever the other side has a unit to lose,
//! a piece may capture any enemy unit, whatever the squares of the kings
//! and pieces. Every slice that a real line reaches is in the result; a few
//! that no line reaches may be too, which costs time, never correctness.
//! A read outside the result would be a bug, and [`super::table::Table`]
//! fails loudly on it.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use shakmaty::{Color, Role};

use super::{geometry, layout::Layout};
use crate::chess::material::Material;

/// The roles a pawn promotes to.
const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

/// The pieces and pawns of one side in a state of the search.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Army {
    /// Pieces other than the king and pawns, in signature order.
    pieces: Vec<Role>,
    /// Pawn squares, ascending.
    pawns: Vec<u8>,
}

/// A material with its pawns placed, colours as written (not normalised).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct State {
    white: Army,
    black: Army,
}

fn role_rank(r: Role) -> usize {
    PROMOTIONS.iter().position(|x| *x == r).unwrap_or(4)
}

impl State {
    fn army(&self, c: Color) -> &Army {
        match c {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    fn army_mut(&mut self, c: Color) -> &mut Army {
        match c {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        }
    }

    fn occupied_by_pawn(&self, sq: u8) -> bool {
        self.white.pawns.contains(&sq) || self.black.pawns.contains(&sq)
    }

    /// The material, or `None` for the bare kings (no table).
    fn material(&self) -> Option<Material> {
        if [&self.white, &self.black]
            .iter()
            .all(|a| a.pieces.is_empty() && a.pawns.is_empty())
        {
            return None;
        }
        let side = |a: &Army| {
            let mut s = String::from("K");
            for r in &a.pieces {
                s.push(r.upper_char());
            }
            for _ in &a.pawns {
                s.push('P');
            }
            s
        };
        let m = format!("{}v{}", side(&self.white), side(&self.black))
            .parse()
            .expect("a state names a material");
        Some(m)
    }

    /// Whether both sides have the same pieces and number of pawns.
    fn is_symmetric(&self) -> bool {
        self.white.pieces == self.black.pieces && self.white.pawns.len() == self.black.pawns.len()
    }

    /// The state with colours swapped (and the board turned upside down).
    fn colour_flipped(&self) -> State {
        let turn = |a: &Army| {
            let mut pawns: Vec<u8> = a.pawns.iter().map(|s| s ^ 56).collect();
            pawns.sort_unstable();
            Army {
                pieces: a.pieces.clone(),
                pawns,
            }
        };
        State {
            white: turn(&self.black),
            black: turn(&self.white),
        }
    }

    /// The state with one more piece of `role` for `c`.
    fn add_piece(mut self, c: Color, role: Role) -> State {
        let a = self.army_mut(c);
        a.pieces.push(role);
        a.pieces.sort_by_key(|r| role_rank(*r));
        self
    }

    /// Every state one zeroing move away, generously (see the module docs).
    fn successors(&self, out: &mut Vec<State>) {
        for c in Color::ALL {
            let enemy = !c;
            let (ahead, last_rank, start_rank, ep_rank): (i8, u8, u8, u8) = match c {
                Color::White => (8, 7, 1, 4),
                Color::Black => (-8, 0, 6, 3),
            };
            // A piece (or king) of `c` captures an enemy piece or pawn.
            let e = self.army(enemy);
            for (i, _) in e.pieces.iter().enumerate() {
                let mut s = self.clone();
                s.army_mut(enemy).pieces.remove(i);
                out.push(s);
            }
            for (i, _) in e.pawns.iter().enumerate() {
                let mut s = self.clone();
                s.army_mut(enemy).pawns.remove(i);
                out.push(s);
            }
            // Moves of each pawn of `c`.
            for (i, &from) in self.army(c).pawns.iter().enumerate() {
                let moved = |to: u8, mut s: State| {
                    let pawns = &mut s.army_mut(c).pawns;
                    pawns.remove(i);
                    if geometry::rank(to) == last_rank {
                        PROMOTIONS
                            .iter()
                            .map(|r| s.clone().add_piece(c, *r))
                            .collect::<Vec<_>>()
                    } else {
                        pawns.push(to);
                        pawns.sort_unstable();
                        vec![s]
                    }
                };
                let one = (from as i8 + ahead) as u8;
                if !self.occupied_by_pawn(one) {
                    out.extend(moved(one, self.clone()));
                    let two = (one as i8 + ahead) as u8;
                    if geometry::rank(from) == start_rank && !self.occupied_by_pawn(two) {
                        out.extend(moved(two, self.clone()));
                    }
                }
                for df in [-1i8, 1] {
                    let f = geometry::file(from) as i8 + df;
                    if !(0..8).contains(&f) {
                        continue;
                    }
                    let to = (one as i8 + df) as u8;
                    if self.army(c).pawns.contains(&to) {
                        continue;
                    }
                    if let Some(j) = e.pawns.iter().position(|&p| p == to) {
                        let mut s = self.clone();
                        s.army_mut(enemy).pawns.remove(j);
                        out.extend(moved(to, s));
                        continue;
                    }
                    for k in 0..e.pieces.len() {
                        let mut s = self.clone();
                        s.army_mut(enemy).pieces.remove(k);
                        out.extend(moved(to, s));
                    }
                    // En passant: the enemy pawn beside, just arrived.
                    let beside = (from as i8 + df) as u8;
                    if geometry::rank(from) == ep_rank {
                        if let Some(j) = e.pawns.iter().position(|&p| p == beside) {
                            let mut s = self.clone();
                            s.army_mut(enemy).pawns.remove(j);
                            out.extend(moved(to, s));
                        }
                    }
                }
            }
        }
    }
}

/// A material to solve (normalised), with the slices of it needed: `None`
/// for all of them.
pub(crate) type Step = (Material, Option<BTreeSet<usize>>);

/// The materials (normalised table names, with their material) and slices
/// some slices lead to: `None` for a material needed whole (pawnless
/// ones), else the slices needed.
pub(crate) struct Reach {
    /// Per table name: the material and the slices needed (`None`: whole).
    pub(crate) needed: BTreeMap<String, Step>,
}

/// The state of `material` (as written) with `pawns` (`(colour, square)`,
/// as written).
fn start_state(material: &Material, pawns: &[(Color, u8)]) -> State {
    let side = |c: Color| Army {
        pieces: material
            .side(c)
            .roles()
            .into_iter()
            .filter(|r| *r != Role::King && *r != Role::Pawn)
            .collect(),
        pawns: {
            let mut p: Vec<u8> = pawns
                .iter()
                .filter(|(pc, _)| *pc == c)
                .map(|(_, s)| *s)
                .collect();
            p.sort_unstable();
            p
        },
    };
    State {
        white: side(Color::White),
        black: side(Color::Black),
    }
}

/// Every state the zeroing moves lead to from `starts`, the starts
/// included.
fn search(starts: &[State]) -> HashSet<State> {
    let mut seen: HashSet<State> = starts.iter().cloned().collect();
    let mut todo: Vec<State> = starts.to_vec();
    let mut next = Vec::new();
    while let Some(s) = todo.pop() {
        next.clear();
        s.successors(&mut next);
        for n in next.drain(..) {
            // A material that is its own colour image (KPvKP) is solved in
            // one orientation, and a parent stored with colours swapped
            // reaches it with colours swapped: both orientations count.
            let flip = n.is_symmetric().then(|| n.colour_flipped());
            for m in std::iter::once(n).chain(flip) {
                if seen.insert(m.clone()) {
                    todo.push(m);
                }
            }
        }
    }
    seen
}

/// The materials and slices of `states`, those of `skip` (a table name)
/// left out.
fn needed(states: &HashSet<State>, skip: Option<&str>) -> Reach {
    let mut layouts: BTreeMap<String, Layout> = BTreeMap::new();
    let mut needed: BTreeMap<String, Step> = BTreeMap::new();
    for s in states {
        let Some(m) = s.material() else {
            continue;
        };
        let name = m.table_name();
        if skip == Some(name.as_str()) {
            continue;
        }
        if !m.has_pawns() {
            needed.insert(name, (m.normalized(), None));
            continue;
        }
        let layout = layouts
            .entry(name.clone())
            .or_insert_with(|| Layout::new(&m));
        // The pawns in the table's colours.
        let (w, b) = if m.is_flipped_in_table() {
            let flip = |v: &[u8]| v.iter().map(|x| x ^ 56).collect::<Vec<u8>>();
            (flip(&s.black.pawns), flip(&s.white.pawns))
        } else {
            (s.white.pawns.clone(), s.black.pawns.clone())
        };
        let slice = layout
            .slice_of(&w, &b)
            .expect("pawns of a state stand on distinct pawn squares");
        needed
            .entry(name)
            .or_insert_with(|| (m.normalized(), Some(BTreeSet::new())))
            .1
            .as_mut()
            .expect("a pawn material is needed in slices")
            .insert(slice);
    }
    Reach { needed }
}

/// What the slice of frozen pawns of `material` (as written) with `pawns`
/// (`(colour, square)`, as written) reaches, its own material left out.
/// `None` if the search finds another slice of `material` itself, so that
/// its pawns are not frozen.
pub(crate) fn reach(material: &Material, pawns: &[(Color, u8)]) -> Option<Reach> {
    let start = start_state(material, pawns);
    let seen = search(std::slice::from_ref(&start));
    let own = material.table_name();
    let other_own_slice = seen
        .iter()
        .any(|s| *s != start && s.material().is_some_and(|m| m.table_name() == own));
    if other_own_slice {
        return None;
    }
    Some(needed(&seen, Some(&own)))
}

/// What the slices of `material` (normalised) with the pawns `starts`
/// reach, themselves and the other slices of `material` their pawn moves
/// lead to included. Each start gives its white and its black pawns'
/// squares, in the table's colours.
pub(crate) fn reach_slices(material: &Material, starts: &[(Vec<u8>, Vec<u8>)]) -> Reach {
    let states: Vec<State> = starts
        .iter()
        .map(|(white, black)| {
            let pawns: Vec<(Color, u8)> = white
                .iter()
                .map(|&s| (Color::White, s))
                .chain(black.iter().map(|&s| (Color::Black, s)))
                .collect();
            start_state(material, &pawns)
        })
        .collect();
    needed(&search(&states), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// KP(a4) v KP(a5), by hand: a king takes a pawn (KPvK, either way
    /// round), and the pawn left walks up and promotes (the four pawnless
    /// 3-piece materials); no pawn moves before a capture.
    #[test]
    fn locked_pawns_reach_the_pawn_endings_alone() {
        let m: Material = "KPvKP".parse().unwrap();
        let r = reach(&m, &[(Color::White, 24), (Color::Black, 32)]).unwrap();
        let names: Vec<&str> = r.needed.keys().map(String::as_str).collect();
        assert_eq!(names, ["KBvK", "KNvK", "KPvK", "KQvK", "KRvK"]);
        assert!(r.needed["KQvK"].1.is_none());
        // White's a4 pawn walks a4..a7 (4 slices) after the black pawn goes;
        // Black's a5 pawn, seen from the other side, is on a4 and walks too:
        // the same slices, mirrored in colour.
        let slices = r.needed["KPvK"].1.as_ref().unwrap();
        let layout = Layout::new(&"KPvK".parse().unwrap());
        let want: BTreeSet<usize> = [24u8, 32, 40, 48]
            .iter()
            .map(|&s| layout.slice_of(&[s], &[]).unwrap())
            .collect();
        assert_eq!(*slices, want);
    }

    /// A pawn on its seventh rank reaches only its own slice and the
    /// promotions (a king's capture leaves the bare kings); one on the
    /// second rank beside it walks its file first: KPPvK from a7 and b2
    /// reaches six slices of its own, a7 with b2 to b7.
    #[test]
    fn slices_reach_the_slices_their_pawns_walk_to() {
        let kpk: Material = "KPvK".parse().unwrap();
        let r = reach_slices(&kpk, &[(vec![48], vec![])]);
        let names: Vec<&str> = r.needed.keys().map(String::as_str).collect();
        assert_eq!(names, ["KBvK", "KNvK", "KPvK", "KQvK", "KRvK"]);
        let layout = Layout::new(&kpk);
        let own: BTreeSet<usize> = [layout.slice_of(&[48], &[]).unwrap()].into();
        assert_eq!(r.needed["KPvK"].1.as_ref(), Some(&own));

        let kppk: Material = "KPPvK".parse().unwrap();
        let r = reach_slices(&kppk, &[(vec![48, 9], vec![])]);
        let layout = Layout::new(&kppk);
        let own: BTreeSet<usize> = (9u8..=49)
            .step_by(8)
            .map(|b| layout.slice_of(&[48, b], &[]).unwrap())
            .collect();
        assert_eq!(own.len(), 6);
        assert_eq!(r.needed["KPPvK"].1.as_ref(), Some(&own));
        assert!(r.needed.contains_key("KQPvK"));
    }

    /// A pawn that can push is not frozen: the search finds another slice
    /// of the material itself.
    #[test]
    fn a_pawn_that_can_push_is_found_out() {
        let m: Material = "KPvKP".parse().unwrap();
        assert!(reach(&m, &[(Color::White, 24), (Color::Black, 40)]).is_none());
    }
}
