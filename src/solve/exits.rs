//! The zeroing moves of a material, evaluated from the tables already
//! solved: captures and promotions lead into smaller materials (or the same
//! number of pieces with a new piece), pawn pushes into other slices of the
//! same material. Each exit reads the exit position's own value under the
//! same rule.
//!
//! A double pawn step deserves care. The tables hold positions without an
//! en-passant right, as Syzygy's do; the position after a double step that
//! an enemy pawn can take en passant is worth the best of its moves, the
//! capture included, and if the capture is its only legal move, that
//! capture alone.

use shakmaty::{Color, Role};

use super::{
    board::{Board, Zeroing},
    layout::{Layout, Squares, MAX_PIECES},
    table::{Keeps, Kept, Table},
    value::Outcome,
};
use crate::chess::{material::Material, rule::Rule};

/// What the zeroing moves of a slice lead to.
pub(crate) trait Exits: Sync {
    /// The outcome, for `stm`, of the legal zeroing move `z` in `board`.
    fn outcome(&self, board: &Board<'_>, stm: Color, z: &Zeroing) -> Outcome;
}

/// Where a capture or promotion leads: the material's table (none for KvK),
/// whether it is stored with colours swapped, and each slot's slot there.
struct Child<'a> {
    table: Option<&'a Table>,
    /// The material has a table that is not solved: a slice of frozen
    /// pawns never reaches it (no promotion before a capture).
    unsolved: Option<Material>,
    flipped: bool,
    slot_map: [u8; MAX_PIECES],
}

/// The exits of one material.
pub(crate) struct MaterialExits<'a> {
    layout: &'a Layout,
    /// This material's own table, for pawn pushes (slices solved before).
    own: &'a Table,
    rule: Rule,
    /// `children[child_key(captured, promoted)]`.
    children: Vec<Option<Child<'a>>>,
    /// What the tables keep (the draw of KvK is kept alike).
    keeps: Keeps,
    /// Whether the exits are read without the rule, as classes (for the
    /// classes that depth by the rule starts from).
    without_rule: bool,
}

const ROLES: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

impl<'a> MaterialExits<'a> {
    /// The exits of `layout`'s material, with `tables(material)` giving the
    /// solved table of each material a capture or promotion reaches
    /// (normalised; `None` is asked for only for KvK).
    pub(crate) fn new(
        layout: &'a Layout,
        own: &'a Table,
        rule: Rule,
        keeps: Keeps,
        tables: &dyn Fn(&Material) -> Option<&'a Table>,
    ) -> MaterialExits<'a> {
        let n = layout.slots();
        let mut children = Vec::new();
        for captured in 0..=n {
            for promoted in 0..=n {
                for role in 0..ROLES.len() {
                    let key = child_key(
                        n,
                        (captured < n).then_some(captured),
                        (promoted < n).then(|| (promoted, ROLES[role])),
                    );
                    if children.len() <= key {
                        children.resize_with(key + 1, || None);
                    }
                    children[key] = Self::child(layout, captured, promoted, ROLES[role], tables);
                }
            }
        }
        MaterialExits {
            layout,
            own,
            rule,
            children,
            keeps,
            without_rule: false,
        }
    }

    /// The same exits read without the rule, as classes.
    pub(crate) fn without_rule(mut self) -> MaterialExits<'a> {
        self.without_rule = true;
        self.rule = Rule::None;
        self
    }

    fn child(
        layout: &Layout,
        captured: usize,
        promoted: usize,
        role: Role,
        tables: &dyn Fn(&Material) -> Option<&'a Table>,
    ) -> Option<Child<'a>> {
        let n = layout.slots();
        if captured < n && captured < 2 {
            return None;
        }
        if promoted < n && (layout.pieces[promoted].role != Role::Pawn || promoted == captured) {
            return None;
        }
        if captured == n && promoted == n {
            return None;
        }
        // The pieces after the move, in our slots.
        let mut pieces: Vec<Option<shakmaty::Piece>> =
            layout.pieces.iter().copied().map(Some).collect();
        if captured < n {
            pieces[captured] = None;
        }
        if promoted < n {
            pieces[promoted] = pieces[promoted].map(|p| shakmaty::Piece { role, ..p });
        }
        let mut board = shakmaty::Board::empty();
        // Any squares will do for the material: put pieces on distinct ones.
        for (i, p) in pieces.iter().enumerate() {
            if let Some(p) = p {
                let sq = if p.role == Role::Pawn {
                    8 + i as u32
                } else {
                    56 + i as u32
                };
                board.set_piece_at(shakmaty::Square::new(sq), *p);
            }
        }
        let material = Material::from_board(&board).expect("one king each");
        let flipped = material.is_flipped_in_table();
        let table = if material.has_table() {
            tables(&material.normalized())
        } else {
            None
        };
        let unsolved = (material.has_table() && table.is_none()).then_some(material);
        let mut slot_map = [u8::MAX; MAX_PIECES];
        if let Some(t) = table {
            let mut used = [false; MAX_PIECES];
            for (i, p) in pieces.iter().enumerate() {
                let Some(p) = p else { continue };
                let want = shakmaty::Piece {
                    color: if flipped { !p.color } else { p.color },
                    role: p.role,
                };
                let j = (0..t.layout.slots())
                    .find(|&j| !used[j] && t.layout.pieces[j] == want)
                    .expect("the child has the same pieces");
                used[j] = true;
                slot_map[i] = j as u8;
            }
        }
        Some(Child {
            table,
            unsolved,
            flipped,
            slot_map,
        })
    }

    /// The kept value, for its side to move (`!mover`), of the position
    /// after `mover` moves `slot` to `to` in `sq`, capturing `captured` and
    /// promoting to `promotion`.
    fn after(
        &self,
        sq: &Squares,
        mover: Color,
        slot: usize,
        to: u8,
        captured: Option<usize>,
        promotion: Option<Role>,
    ) -> Kept {
        let n = self.layout.slots();
        if captured.is_none() && promotion.is_none() {
            // A pawn push: another slice of this material.
            let mut after = *sq;
            after[slot] = to;
            return self
                .own
                .lookup(side(!mover), &after)
                .expect("a legal move leads to a position");
        }
        let key = child_key(n, captured, promotion.map(|r| (slot, r)));
        let child = self.children[key]
            .as_ref()
            .expect("every capture has a child");
        let Some(table) = child.table else {
            // Reading a draw for a material that was never solved would be
            // a silent wrong answer: fail loudly instead.
            if let Some(m) = &child.unsolved {
                panic!("an exit into {m}, which this run did not solve");
            }
            return self.keeps.draw();
        };
        let mut csq: Squares = [0; MAX_PIECES];
        for i in 0..n {
            if Some(i) == captured {
                continue;
            }
            let s = if i == slot { to } else { sq[i] };
            csq[usize::from(child.slot_map[i])] = if child.flipped { s ^ 56 } else { s };
        }
        let stm = if child.flipped { mover } else { !mover };
        table
            .lookup(side(stm), &csq)
            .expect("a legal move leads to a position")
    }

    /// A kept value as the exits read it.
    #[inline]
    fn view(&self, k: Kept) -> Kept {
        if self.without_rule {
            k.without_rule()
        } else {
            k
        }
    }
}

#[inline]
fn side(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// The dense key of a capture (`captured` slot) and promotion (`(slot,
/// role)`) among `n` slots.
#[inline]
fn child_key(n: usize, captured: Option<usize>, promoted: Option<(usize, Role)>) -> usize {
    let c = captured.unwrap_or(n);
    let (p, r) = match promoted {
        Some((slot, role)) => (
            slot,
            ROLES
                .iter()
                .position(|x| *x == role)
                .expect("a promotion role"),
        ),
        None => (n, 0),
    };
    (c * (n + 1) + p) * ROLES.len() + r
}

impl Exits for MaterialExits<'_> {
    fn outcome(&self, board: &Board<'_>, stm: Color, z: &Zeroing) -> Outcome {
        let child = self.view(self.after(&board.sq, stm, z.slot, z.to, z.captured, z.promotion));
        if !z.double_step {
            return child.through(self.rule);
        }
        // The reply en passant, if the opponent has one.
        let mut after = board.sq;
        after[z.slot] = z.to;
        let reply = Board::new(self.layout, &after);
        let over = (z.to + board.sq[z.slot]) / 2;
        let captures = reply.en_passant(!stm, z.to, over);
        if captures.is_empty() {
            return child.through(self.rule);
        }
        let (mut quiet, mut zeroing) = (0u32, 0u32);
        reply.moves(!stm, |_, _| quiet += 1, |_| zeroing += 1);
        let has_other_move = quiet + zeroing > 0;
        let mut best: Option<Kept> = has_other_move.then_some(child);
        for (pawn, victim) in captures {
            let v = self
                .view(self.after(&after, !stm, pawn, over, Some(victim), None))
                .back();
            best = Some(best.map_or(v, |b| b.best(v)));
        }
        best.expect("an en-passant capture").through(self.rule)
    }
}
