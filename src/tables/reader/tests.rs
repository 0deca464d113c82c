//! Tests of the index layer against the reader's by-index API on the real
//! tables: the whole-table walks and [`Encoding::decode`] against
//! [`SweepTable::placement`], [`TableLayout::locate`] on both colour
//! frames, the image counts against [`SweepTable::multiplicity`] (an
//! independent count, by the symmetries), and [`MoverIndex`] against
//! [`Encoding::encode`].

// The checks walk parallel arrays (pieces, squares) by slot.
#![allow(clippy::needless_range_loop)]

use std::path::PathBuf;

use shakmaty::{Color, Piece};

use super::*;

/// The real tables: `FIFTYMOVE_TEST_TABLES`, else `data/syzygy` (for the
/// other layers' tests too).
pub(crate) fn tables_dir() -> PathBuf {
    std::env::var_os("FIFTYMOVE_TEST_TABLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/syzygy"))
}

/// The cursor of the walks in index order (which steps each group's ranks
/// instead of decoding them) gives [`Encoding::decode`]'s squares at every
/// index it walks: every unit of each such sub-table of every file here up
/// to 2^24 indices, and every 16th unit of bigger ones (each unit starts
/// from a decode and steps through 2^15 indices, carries included).
#[test]
fn cursor_walks_equal_decode_at_every_index() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(tables_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rtbw" || x == "rtbz"))
        .collect();
    files.sort();
    let mut checked = 0u64;
    for path in &files {
        let kind = if path.extension().is_some_and(|x| x == "rtbw") {
            TableKind::Wdl
        } else {
            TableKind::Dtz
        };
        let t = SweepTable::open(path, kind).unwrap();
        for info in &t.layout().subs {
            let sub = &info.encoding;
            let units = sub.units();
            if units.mode() != 0 {
                continue;
            }
            let every = if sub.size <= 1 << 24 { 1 } else { 16 };
            for unit in (0..units.count).step_by(every) {
                let Ok(()) = sub.walk(units, unit, |local, squares| {
                    let mut sq = [0u8; MAX];
                    sub.decode(local, &mut sq);
                    assert_eq!(*squares, sq, "{} {local}", path.display());
                    checked += 1;
                    Ok::<(), std::convert::Infallible>(())
                });
            }
        }
    }
    assert!(
        checked > 1 << 20,
        "only {checked} indices walked in index order"
    );
}

/// The walks, the location and the image counts against the reader's
/// own `placement`, `index_of_board` and `multiplicity`, on
/// every index of small tables (sampled on bigger ones), both files.
#[test]
fn walks_and_images_agree_with_the_decoder() {
    // Sub-tables walked in index order with a cursor, by groups, in
    // index order with the fastest group innermost.
    let mut modes = [0, 0, 0];
    for name in [
        "KQvK", "KNNvK", "KPvKP", "KQvKR", "KBPvK", "KPPvK", "KRvKR", "KNvKP",
    ] {
        for (kind, ext) in [(TableKind::Wdl, "rtbw"), (TableKind::Dtz, "rtbz")] {
            let t = SweepTable::open(&tables_dir().join(format!("{name}.{ext}")), kind).unwrap();
            let layout = t.layout();
            for info in &layout.subs {
                let sub = &info.encoding;
                let step = (sub.size / 20_000).max(1);
                // Every index is walked once; the checks run on a sample.
                let mut walked = vec![None; sub.size as usize];
                let units = sub.units();
                modes[units.mode()] += 1;
                for unit in 0..units.count {
                    let Ok(()) = sub.walk(units, unit, |local, squares| {
                        let seen = walked[local as usize].replace(*squares);
                        assert!(seen.is_none(), "{name}.{ext} {local} walked twice");
                        Ok::<(), std::convert::Infallible>(())
                    });
                }
                for (local, walked) in walked.into_iter().enumerate() {
                    let local = local as u64;
                    let walked =
                        walked.unwrap_or_else(|| panic!("{name}.{ext} {local} not walked"));
                    if !local.is_multiple_of(step) {
                        continue;
                    }
                    let idx = info.start + local;
                    let p = t.placement(info.side, idx).unwrap();
                    let mut sq = [0u8; MAX];
                    sub.decode(local, &mut sq);
                    let theirs: Vec<u8> = p.pieces().iter().map(|(_, s)| u8::from(*s)).collect();
                    assert_eq!(
                        &sq[..theirs.len()],
                        &theirs[..],
                        "{name}.{ext} decode {idx}"
                    );
                    assert_eq!(walked, sq, "{name}.{ext} walk {idx}");
                    let pairs: Vec<(Piece, u8)> = p
                        .pieces()
                        .iter()
                        .map(|(pc, s)| (*pc, u8::from(*s)))
                        .collect();
                    let mine = layout
                        .locate(&pairs, info.side, false)
                        .map(|l| (l.side, l.idx));
                    assert_eq!(
                        mine,
                        t.index_of_board(&p.board(), info.side),
                        "{name}.{ext} {idx}"
                    );
                    if !layout.symmetric {
                        let flipped: Vec<(Piece, u8)> = pairs
                            .iter()
                            .map(|(pc, s)| {
                                (
                                    Piece {
                                        color: !pc.color,
                                        role: pc.role,
                                    },
                                    s ^ 56,
                                )
                            })
                            .collect();
                        let m2 = layout
                            .locate(&flipped, !info.side, false)
                            .map(|l| (l.side, l.idx));
                        assert_eq!(m2, mine, "{name}.{ext} flipped {idx}");
                    }
                    let mult = t.multiplicity(info.side, idx).unwrap();
                    let per_side = if layout.symmetric { mult / 2 } else { mult };
                    assert_eq!(
                        sub.images(&sq[..theirs.len()]),
                        per_side,
                        "{name}.{ext} images {idx} {sq:?}"
                    );
                }
            }
        }
    }
    assert!(modes.iter().all(|&m| m > 0), "walk modes {modes:?}");
    let _ = Color::White;
}

/// The walk with one piece innermost visits every placement of a unit
/// once (of the big units of pawn tables, split before the mover, the
/// first few thousand are checked), and [`MoverIndex`] and
/// [`MoverIndex::table`] give the index the encoder gives,
/// both on the walk's canonical placements and on pseudo-random ones
/// of any symmetry (every slot that can move, every sub-table, pawn
/// tables among them).
#[test]
fn mover_index_agrees_with_the_encoder() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut walked_subs, mut random_checks) = (0, 0);
    for name in [
        "KQvKR", "KRvKN", "KBNvK", "KRPvK", "KPvKP", "KRvKR", "KNNvKP", "KRBvKR", "KQPvKQ",
    ] {
        for (kind, ext) in [(TableKind::Wdl, "rtbw"), (TableKind::Dtz, "rtbz")] {
            let t = SweepTable::open(&tables_dir().join(format!("{name}.{ext}")), kind).unwrap();
            let layout = t.layout();
            for info in &layout.subs {
                let sub = &info.encoding;
                let n = sub.pieces.len();
                for slot in (0..n).filter(|&s| sub.can_move(s)) {
                    // Pseudo-random placements, not canonical.
                    for _ in 0..300 {
                        let mut sq = [0u8; MAX];
                        let mut occ = 0u64;
                        for k in 0..n {
                            loop {
                                let s = (next() % 64) as u8;
                                let pawn = sub.pieces[k].role == shakmaty::Role::Pawn;
                                let ok = !pawn || ((8..56).contains(&s) && (k != 0 || s & 7 < 4));
                                if occ & 1 << s == 0 && ok {
                                    sq[k] = s;
                                    occ |= 1 << s;
                                    break;
                                }
                            }
                        }
                        let mover = sub.mover(&sq, slot);
                        let table = mover.map(|m| m.table());
                        for s in (0..64u8).filter(|s| occ & 1 << s == 0 || *s == sq[slot]) {
                            let mut p = sq;
                            p[slot] = s;
                            let want = sub.encode(&mut p[..n]);
                            assert_eq!(mover.map(|m| m.index(s)), want, "{name}.{ext} {sq:?}");
                            let from_table = table.map(|t| t[usize::from(s)]);
                            assert_eq!(from_table, want, "{name}.{ext} {sq:?} (table)");
                            random_checks += 1;
                        }
                    }
                    let Some(units) = sub.mover_units(slot) else {
                        continue;
                    };
                    walked_subs += 1;
                    let mut seen = Vec::new();
                    // Every unit on small tables, a sample on bigger ones,
                    // and of a big unit (a pawn table's, split before
                    // the mover) its first placements.
                    let step = (units.count / 200).max(1);
                    let per_unit = (200_000 / units.count.div_ceil(step)).max(1 << 12);
                    let mut cut_short = false;
                    let mut mover = None;
                    for unit in (0..units.count).step_by(step as usize) {
                        let mut walked = 0;
                        let result = sub.walk_mover(units, unit, slot, |squares, fresh| {
                            if walked == per_unit {
                                return Err(());
                            }
                            walked += 1;
                            if fresh {
                                mover = sub.mover(squares, slot);
                            }
                            let mut p = *squares;
                            let want = sub.encode(&mut p[..n]).unwrap();
                            let got = mover.unwrap().index(squares[slot]);
                            assert_eq!(got, want, "{name}.{ext} {squares:?}");
                            seen.push(got);
                            Ok(())
                        });
                        cut_short |= result.is_err();
                    }
                    seen.sort_unstable();
                    let twice = seen.windows(2).find(|w| w[0] == w[1]);
                    assert_eq!(twice, None, "{name}.{ext}: walked twice");
                    if step == 1 && !cut_short {
                        // Distinct indices below the size, as many as it.
                        assert_eq!(seen.len() as u64, sub.size, "{name}.{ext}: not all walked");
                    }
                }
            }
        }
    }
    assert!(
        walked_subs >= 4 && random_checks > 100_000,
        "{walked_subs} {random_checks}"
    );
}

/// A window of a pawn table's sub-table ([`Encoding::window`]) is the
/// sub-table's placements whose leading pawns have digits in its range,
/// indexed densely: on every sub-table of KPvK, KPPvK (two leading pawns),
/// KRvKP (Black's pawn leads), KPvKP and KNPvK, for windows of one and of two digits, every local index the
/// walk gives decodes to the placement the whole encoding puts at
/// [`LeadWindow::full_index`] of it, the window's own encoding gives it back,
/// [`LeadWindow::local_index`] inverts the map, the walk gives each local
/// index once, and the windows together hold every index of the sub-table
/// once. A placement outside a window has no index in it.
#[test]
fn windows_of_the_leading_pawns_hold_each_index_once() {
    let mut checked = 0u64;
    for path in std::fs::read_dir(tables_dir()).unwrap() {
        let path = path.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let picked = ["KPvK", "KPPvK", "KRvKP", "KPvKP", "KNPvK"].contains(&name.as_str());
        if !picked || path.extension().is_none_or(|x| x != "rtbz") {
            continue;
        }
        let t = SweepTable::open(&path, TableKind::Dtz).unwrap();
        for info in &t.layout().subs {
            let whole = &info.encoding;
            let n = whole.pieces.len();
            let (_, radix) = whole.lead_place();
            for width in [1, 2] {
                let mut covered = vec![false; whole.size as usize];
                let mut first = 0;
                while first < radix {
                    let digits = first..(first + width).min(radix);
                    let (part, map) = whole.window(digits.clone());
                    let mut seen = vec![false; part.size as usize];
                    let units = part.units();
                    for unit in 0..units.count {
                        let Ok(()) = part.walk(units, unit, |local, squares| {
                            let full = map.full_index(local);
                            assert_eq!(map.local_index(full), Some(local), "{name} {digits:?}");
                            let mut sq = *squares;
                            assert_eq!(whole.encode(&mut sq[..n]), Some(full), "{name}");
                            let mut sq = *squares;
                            assert_eq!(part.encode(&mut sq[..n]), Some(local), "{name}");
                            let mut decoded = [0u8; MAX];
                            whole.decode(full, &mut decoded);
                            assert_eq!(decoded, *squares, "{name} {full}");
                            assert!(!std::mem::replace(&mut seen[local as usize], true));
                            assert!(!std::mem::replace(&mut covered[full as usize], true));
                            checked += 1;
                            Ok::<(), std::convert::Infallible>(())
                        });
                    }
                    assert!(seen.iter().all(|&s| s), "{name} {digits:?}: not all walked");
                    // The placement of an index outside: none here.
                    if let Some(outside) = (0..whole.size).find(|&i| map.local_index(i).is_none()) {
                        let mut sq = [0u8; MAX];
                        whole.decode(outside, &mut sq);
                        assert_eq!(part.encode(&mut sq[..n]), None, "{name} {outside}");
                    }
                    first = digits.end;
                }
                assert!(
                    covered.iter().all(|&c| c),
                    "{name} width {width}: not covered"
                );
            }
        }
    }
    assert!(checked > 1_000_000, "{checked}");
}

/// The walk in index order with a group of two like pieces innermost
/// (KNN v KNN's knights: no table here below six pieces walks so) gives
/// [`Encoding::decode`]'s squares at every index it walks, in index
/// order: a sample of 256 units spread over each file's sub-table, both
/// files.
#[test]
fn fastest_walk_of_like_pieces_equals_decode() {
    let shared = std::env::var_os("FIFTYMOVE_SHARED_TABLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/syzygy"));
    let mut checked = 0u64;
    for (kind, ext) in [(TableKind::Wdl, "rtbw"), (TableKind::Dtz, "rtbz")] {
        let t = SweepTable::open(&shared.join(format!("KNNvKNN.{ext}")), kind).unwrap();
        for info in &t.layout().subs {
            let sub = &info.encoding;
            let units = sub.units();
            assert_eq!(
                units.mode(),
                2,
                "KNNvKNN.{ext}: not walked fastest-innermost"
            );
            assert!(sub.lens[1..].iter().all(|&len| len == 2), "KNNvKNN.{ext}");
            for unit in (0..units.count).step_by((units.count / 256).max(1) as usize) {
                let mut next = None;
                let Ok(()) = sub.walk(units, unit, |local, squares| {
                    assert!(next.is_none_or(|n| n == local), "KNNvKNN.{ext} {local}");
                    next = Some(local + 1);
                    let mut sq = [0u8; MAX];
                    sub.decode(local, &mut sq);
                    assert_eq!(*squares, sq, "KNNvKNN.{ext} {local}");
                    checked += 1;
                    Ok::<(), std::convert::Infallible>(())
                });
            }
        }
    }
    assert!(checked > 1 << 20, "only {checked} indices walked");
}
