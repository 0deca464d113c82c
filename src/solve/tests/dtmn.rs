//! DTM under a rule (`dtmn`) against three other sources: chesstb's
//! published longest DTM50 from clock 0 (`tests/reference`), the solver's
//! other metrics position by position (DTM no larger, the last change
//! point's budget the rule's DTZ, a mate worth 0), and a plain minimax over
//! the budget, one layer of budget after another, on small materials.

use std::collections::{BTreeMap, HashMap};

use super::*;
use crate::solve::{
    board::Board,
    closure::closure,
    dtmn::{solve_slice_dtmn, DtmnSlice},
    exits::{Exits, MaterialExits},
    retract::side,
    retro::solve_slice,
    table::{Keeps, Table},
    value::Outcome,
};

/// The solved slices of a material.
struct Solved {
    layout: Layout,
    slices: Vec<DtmnSlice>,
}

/// DTM under the `n`-move rule of `targets` and their closures, each
/// material once, by a driver of the tests' own: a material after what it
/// reads, its slices from the most advanced pawns down, each labelled by
/// the plain DTM solve with its exits read at clock 0 and then solved in
/// DTM-N. With `check`, `check(layout, slice, exits, solved)` runs on each
/// slice while its exits are at hand.
fn solve_all(
    targets: &[Material],
    n: u16,
    check: &mut dyn FnMut(&Layout, usize, &dyn Exits, &DtmnSlice),
) -> BTreeMap<String, Solved> {
    let rule = Rule::Moves(n);
    let mut tables: HashMap<String, Table> = HashMap::new();
    let mut out = BTreeMap::new();
    for target in targets {
        for m in closure(target) {
            let name = m.table_name();
            if out.contains_key(&name) {
                continue;
            }
            let layout = Layout::new(&m);
            let own = Table::new(layout.clone(), rule, Keeps::Mate);
            let mut slices: Vec<Option<DtmnSlice>> =
                (0..layout.slices.len()).map(|_| None).collect();
            {
                let lookup = |c: &Material| tables.get(&c.table_name());
                let exits = MaterialExits::new(&layout, &own, rule, Keeps::Mate, &lookup);
                let mut order: Vec<usize> = (0..layout.slices.len()).collect();
                order.sort_by_key(|&s| std::cmp::Reverse(layout.slices[s].advance));
                for s in order {
                    let labels = solve_slice(&layout, s, &exits, &NoProgress, None).unwrap();
                    let solved = solve_slice_dtmn(&layout, s, &labels, &exits, 2 * n).unwrap();
                    own.set_slice(s, &solved.values);
                    check(&layout, s, &exits, &solved);
                    slices[s] = Some(solved);
                }
            }
            tables.insert(name.clone(), own);
            let slices = slices.into_iter().map(Option::unwrap).collect();
            out.insert(name, Solved { layout, slices });
        }
    }
    out
}

/// The longest win from clock 0 with each side to move, in the table's
/// colours.
fn longest_wins(solved: &Solved) -> [u16; 2] {
    let mut longest = [0u16; 2];
    for slice in &solved.slices {
        for (s, values) in slice.values.iter().enumerate() {
            for &v in values {
                if let Some(Outcome::Win(d)) = value::outcome(v) {
                    longest[s] = longest[s].max(d);
                }
            }
        }
    }
    longest
}

/// chesstb's longest DTM50 from clock 0 of every 3- and 4-piece material
/// (noobpwnftw/chesstb `docs/stats.json`, rows copied unchanged into
/// tests/reference), per side to move, by our table name.
fn chesstb_longest_dtm50() -> BTreeMap<String, [u16; 2]> {
    let doc: serde_json::Value = serde_json::from_str(include_str!(
        "../../../tests/reference/chesstb-dtm-3-4-piece.json"
    ))
    .unwrap();
    let mut out = BTreeMap::new();
    for row in doc["rows"].as_array().unwrap() {
        let m = row["m"].as_str().unwrap();
        // "KQKR" is KQ v KR: Black's pieces start at the second king.
        let cut = m[1..].find('K').unwrap() + 1;
        let name = format!("{}v{}", &m[..cut], &m[cut..]);
        let l = &row["l"]["dtm50"];
        let plies = |s: usize| l[s][0].as_u64().unwrap() as u16;
        out.insert(name, [plies(0), plies(1)]);
    }
    out
}

#[test]
fn dtm50_from_clock_0_equals_chesstb_on_every_3_4_piece_material() {
    let published = chesstb_longest_dtm50();
    assert_eq!(published.len(), 35);
    let targets: Vec<Material> = published.keys().map(|n| n.parse().unwrap()).collect();
    let solved = solve_all(&targets, 50, &mut |_, _, _, _| {});
    for (name, want) in &published {
        let material: Material = name.parse().unwrap();
        assert_eq!(
            &material.table_name(),
            name,
            "chesstb's rows name tables as Syzygy does"
        );
        assert_eq!(longest_wins(&solved[name]), *want, "{name}");
    }
}

/// Checks the DTM-N of every 3- and 4-piece material under `n` moves
/// against the solver's plain DTM and its DTZ under the same rule (from the
/// shared cache), position by position; returns how many positions the
/// rule draws that plain DTM wins or loses, and how many change points
/// past the first it met (where a check could fail only if they exist).
fn check_against_other_metrics(n: u16) -> (u64, u64) {
    let rule = Rule::Moves(n);
    let cache = Cache::new(solved_3_4_piece_cache());
    let targets: Vec<Material> = three_four_piece_names()
        .iter()
        .map(|n| n.parse().unwrap())
        .collect();
    let solved = solve_all(&targets, n, &mut |_, _, _, _| {});
    let (mut cut, mut later_points) = (0u64, 0u64);
    for (name, s) in &solved {
        let dtm = cache.open(&s.layout, Rule::None, Metric::Dtm).unwrap();
        let dtz = cache.open(&s.layout, rule, Metric::Dtz).unwrap();
        for (slice, solved_slice) in s.slices.iter().enumerate() {
            let dtm = dtm.slice(slice).unwrap();
            let dtz = dtz.slice(slice).unwrap();
            for side in 0..2 {
                for e in 0..s.layout.entries {
                    let at = || format!("{name} slice {slice} side {side} entry {e}");
                    let points = solved_slice.points(side, e);
                    let plain = value::outcome(dtm[side][e]);
                    let under = value::outcome(dtz[side][e]);
                    match (plain, under) {
                        (None, _) => assert!(points.is_empty(), "{}", at()),
                        (Some(Outcome::Loss(0)), _) => {
                            assert_eq!(points.len(), 1, "{}", at());
                            assert_eq!((points[0].depth, points[0].budget), (0, 0), "{}", at());
                        }
                        (Some(Outcome::Win(m) | Outcome::Loss(m)), Some(z)) => {
                            let z = match z {
                                Outcome::Win(z) | Outcome::Loss(z) => z,
                                Outcome::Draw => unreachable!("{}", at()),
                            };
                            if z > 2 * n {
                                // Cursed or blessed under the rule.
                                assert!(points.is_empty(), "{} {points:?}", at());
                                cut += 1;
                                continue;
                            }
                            assert!(!points.is_empty(), "{} dtz {z}", at());
                            // From clock 0, no quicker than with no rule.
                            assert!(points[0].depth >= m, "{} dtm {m} {points:?}", at());
                            // The least budget that wins is the rule's DTZ.
                            assert_eq!(points.last().unwrap().budget, z, "{} {points:?}", at());
                            for w in points.windows(2) {
                                assert!(w[0].depth < w[1].depth, "{} {points:?}", at());
                                assert!(w[0].budget > w[1].budget, "{} {points:?}", at());
                            }
                            later_points += points.len() as u64 - 1;
                        }
                        (Some(Outcome::Draw), _) => assert!(points.is_empty(), "{}", at()),
                        (Some(_), None) => unreachable!("{}", at()),
                    }
                }
            }
        }
    }
    (cut, later_points)
}

#[test]
fn dtmn_agrees_with_dtm_and_the_rules_dtz_on_every_3_4_piece_table() {
    for n in [10, 50] {
        let (cut, later_points) = check_against_other_metrics(n);
        // Under 10 moves, 3- and 4-piece wins are cut short, and positions
        // have more than one change point: both kinds of check ran.
        if n == 10 {
            assert!(cut > 0 && later_points > 0, "{cut} {later_points}");
        }
    }
}

/// The value of each position of a slice at each budget from 0 to `2n`, by
/// a plain minimax over the budget: with budget `r` a position is worth the
/// best of its moves, a quiet one worth its position at budget `r - 1`, a
/// zeroing one what the exits read; at budget 0 only a mate counts.
fn by_budget_layers(
    layout: &Layout,
    slice: usize,
    exits: &dyn Exits,
    n: u16,
) -> Vec<[Vec<Outcome>; 2]> {
    let entries = layout.entries;
    let mut layers: Vec<[Vec<Outcome>; 2]> = Vec::new();
    let mut sq = [0u8; crate::solve::layout::MAX_PIECES];
    for r in 0..=2 * n {
        let mut layer: [Vec<Outcome>; 2] =
            [vec![Outcome::Draw; entries], vec![Outcome::Draw; entries]];
        for e in 0..entries {
            layout.decode(slice, e, &mut sq);
            // Not a position: two pieces on a square, or not the entry's
            // canonical form.
            let placed = &sq[..layout.slots()];
            if (1..placed.len()).any(|i| placed[..i].contains(&placed[i]))
                || layout.locate(&sq) != Some((slice, e))
            {
                continue;
            }
            let board = Board::new(layout, &sq);
            for stm in [shakmaty::Color::White, shakmaty::Color::Black] {
                if !board.legal_with(stm) {
                    continue;
                }
                let best = std::cell::Cell::new(None::<Outcome>);
                let offer = |o: Outcome| best.set(Some(best.get().map_or(o, |b| b.best(o))));
                let in_check = board.moves(
                    stm,
                    |slot, to| {
                        let mut c = sq;
                        c[slot] = to;
                        let ce = layout.entry_after_move(e, &sq, &c, slot).unwrap();
                        let child = if r == 0 {
                            Outcome::Draw
                        } else {
                            layers[usize::from(r) - 1][side(!stm)][ce]
                        };
                        offer(match child {
                            Outcome::Win(d) => Outcome::Loss(d + 1),
                            Outcome::Loss(d) => Outcome::Win(d + 1),
                            Outcome::Draw => Outcome::Draw,
                        })
                    },
                    |z| {
                        offer(if r == 0 {
                            Outcome::Draw
                        } else {
                            exits.outcome(&board, stm, &z)
                        })
                    },
                );
                layer[side(stm)][e] = match best.get() {
                    None if in_check => Outcome::Loss(0),
                    None => Outcome::Draw,
                    // With no budget left, the game is drawn unless over.
                    Some(_) if r == 0 => Outcome::Draw,
                    Some(o) => o,
                };
            }
        }
        layers.push(layer);
    }
    layers
}

#[test]
fn change_points_equal_a_minimax_over_the_budget_on_small_materials() {
    for n in [5, 10] {
        let (mut compared, mut budget_matters) = (0u64, 0u64);
        // The plain minimax takes `2n + 1` passes over a slice: three pieces
        // only (KRvK and KPvK's closure).
        let targets: Vec<Material> = ["KRvK", "KPvK"]
            .iter()
            .map(|m| m.parse().unwrap())
            .collect();
        let mut check = |layout: &Layout, slice: usize, exits: &dyn Exits, solved: &DtmnSlice| {
            let layers = by_budget_layers(layout, slice, exits, n);
            for side in 0..2 {
                for e in 0..layout.entries {
                    for (r, layer) in layers.iter().enumerate() {
                        let want = match layer[side][e] {
                            Outcome::Win(d) | Outcome::Loss(d) => Some(d),
                            Outcome::Draw => None,
                        };
                        assert_eq!(
                            solved.depth_at(side, e, r as u16),
                            want,
                            "{} slice {slice} side {side} entry {e} budget {r}: {:?} value {:#x} squares {:?}",
                            layout.material,
                            solved.points(side, e),
                            solved.values[side][e],
                            {
                                let mut sq = [0u8; crate::solve::layout::MAX_PIECES];
                                layout.decode(slice, e, &mut sq);
                                sq
                            }
                        );
                        compared += u64::from(want.is_some());
                    }
                    let first = layers[0][side][e];
                    if layers
                        .iter()
                        .any(|l| l[side][e] != first && l[side][e] != Outcome::Draw)
                        && solved.points(side, e).len() > 1
                    {
                        budget_matters += 1;
                    }
                }
            }
        };
        solve_all(&targets, n, &mut check);
        // Positions with more than one change point were compared at every
        // budget: the budget changed their depth, not only their class.
        assert!(
            compared > 0 && budget_matters > 0,
            "{compared} {budget_matters}"
        );
    }
}
