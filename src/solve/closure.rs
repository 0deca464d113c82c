//! The order a solve makes materials in: a material after every material
//! its captures and promotions reach, the whole closure by size
//! ([`closure`]) or depth first from some roots, each with the slices a
//! search of the reached positions needs ([`frozen_reach`]).

use std::collections::HashSet;

use super::reach::{self, Step};
use crate::chess::material::Material;

/// The materials to solve before and including `material`, normalised, in
/// an order where each comes after every material its captures and
/// promotions reach: fewer pieces first, then fewer pawns (a promotion keeps
/// the number of pieces and takes a pawn away).
pub fn closure(material: &Material) -> Vec<Material> {
    let mut all: Vec<Material> = material
        .closure()
        .into_iter()
        .map(|name| name.parse::<Material>().expect("closure names parse"))
        .collect();
    all.sort_by_key(Material::size_order_key);
    all
}

/// `roots` and every material their captures and promotions reach,
/// normalised, depth first: each right after what it reads, so that a table
/// can be dropped soon after its last reader is solved. With the closure
/// sorted by size instead, every 5-piece table of a KRPvKBP slice would be
/// held at once (some 25 GiB for DTR).
pub(crate) fn depth_first(roots: Vec<Material>) -> Vec<Material> {
    fn visit(m: Material, order: &mut Vec<Material>, seen: &mut HashSet<String>) {
        if !m.has_table() || !seen.insert(m.table_name()) {
            return;
        }
        for child in m.children() {
            visit(child, order, seen);
        }
        order.push(m);
    }
    let mut order = Vec::new();
    let mut seen = HashSet::new();
    for root in roots {
        visit(root, &mut order, &mut seen);
    }
    order
}

/// The materials one capture away from `material`, normalised, by name: a
/// slice of frozen pawns leads to them alone (a frozen pawn moves only by
/// capturing, and no pawn promotes before one does).
pub(crate) fn frozen_roots(material: &Material) -> Vec<Material> {
    let mut captures: Vec<Material> = material
        .captures()
        .iter()
        .map(Material::normalized)
        .collect();
    captures.sort_by_key(Material::table_name);
    captures
}

/// What the solve of the slice of `material` (as written) whose pawns are
/// frozen on `pawns` (`(colour, square)`, as written) has to make first:
/// each material, normalised, with the number of its slices needed
/// (`None`: solved whole, as pawnless ones are), in solving order. `None`
/// if the pawns are not frozen.
pub fn frozen_reach(
    material: &Material,
    pawns: &[(shakmaty::Color, shakmaty::Square)],
) -> Option<Vec<(Material, Option<usize>)>> {
    let written: Vec<(shakmaty::Color, u8)> = pawns.iter().map(|(c, s)| (*c, *s as u8)).collect();
    let reached = reach::reach(material, &written)?;
    Some(
        reach_order(frozen_roots(material), reached)
            .into_iter()
            .map(|(m, only)| (m, only.map(|o| o.len())))
            .collect(),
    )
}

/// The materials `reached` holds, each with the slices needed (`None`:
/// whole), in the order of [`depth_first`] from `roots`. Every material
/// reached is in that order (a search step is a capture or promotion, as
/// [`Material::children`] lists them); one left out would stop the solve at
/// its first exit into it.
pub(crate) fn reach_order(roots: Vec<Material>, mut reached: reach::Reach) -> Vec<Step> {
    depth_first(roots)
        .iter()
        .filter_map(|m| reached.needed.remove(&m.table_name()))
        .collect()
}
