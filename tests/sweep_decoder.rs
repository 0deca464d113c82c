//! Tests of the streaming Syzygy decoder (`fiftymove::tables::reader`) against an
//! independent path: shakmaty-syzygy's own probing of the same files.

use std::{
    path::{Path, PathBuf},
    sync::OnceLock,
};

use fiftymove::tables::reader::{DtzValue, SweepError, SweepTable, TableKind};
use rand::{rngs::StdRng, Rng, SeedableRng};
use rayon::prelude::*;
use shakmaty::{CastlingMode, Chess, Color, FromSetup, Position, Role};
use shakmaty_syzygy::{Dtz, MaybeRounded, Tablebase, Wdl};

/// Directory with the real tables: `FIFTYMOVE_TEST_TABLES`, else
/// `data/syzygy`, else `../shared/syzygy` (relative to the manifest).
/// Panics (does not skip) if none exists.
fn tables_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("FIFTYMOVE_TEST_TABLES") {
        let dir = PathBuf::from(dir);
        assert!(
            dir.is_dir(),
            "FIFTYMOVE_TEST_TABLES={} is not a directory",
            dir.display()
        );
        return dir;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for cand in [root.join("data/syzygy"), root.join("../shared/syzygy")] {
        if cand.is_dir() {
            return cand;
        }
    }
    panic!(
        "no Syzygy tables found: set FIFTYMOVE_TEST_TABLES or provide data/syzygy or ../shared/syzygy"
    );
}

fn tablebase() -> &'static Tablebase<Chess> {
    static TB: OnceLock<Tablebase<Chess>> = OnceLock::new();
    TB.get_or_init(|| {
        let mut tb = Tablebase::new();
        let n = tb
            .add_directory(tables_dir())
            .expect("read tables directory");
        assert!(n > 0, "no tables in {}", tables_dir().display());
        tb
    })
}

fn open(name: &str, kind: TableKind) -> SweepTable {
    let ext = match kind {
        TableKind::Wdl => "rtbw",
        TableKind::Dtz => "rtbz",
    };
    let path = tables_dir().join(format!("{name}.{ext}"));
    SweepTable::open(&path, kind).unwrap_or_else(|e| panic!("open {}: {e}", path.display()))
}

fn wdl_code(wdl: Wdl) -> u8 {
    match wdl {
        Wdl::Loss => 0,
        Wdl::BlessedLoss => 1,
        Wdl::Draw => 2,
        Wdl::CursedWin => 3,
        Wdl::Win => 4,
    }
}

fn decode_one(table: &SweepTable, side: Color, idx: u64) -> u16 {
    let mut v = [0u16];
    table.decode(side, idx..idx + 1, &mut v).expect("decode");
    v[0]
}

fn legal(table: &SweepTable, side: Color, idx: u64) -> Option<Chess> {
    let placement = table.placement(side, idx).expect("index in range");
    assert_eq!(placement.turn(), side);
    Chess::from_setup(placement.to_setup(), CastlingMode::Standard).ok()
}

/// Random indices: placement -> position -> index round trip, and decoded
/// WDL / DTZ values against shakmaty-syzygy's probes.
fn check_against_shakmaty(name: &str, samples: usize, seed: u64, strict: bool) {
    let tb = tablebase();
    let wdl = open(name, TableKind::Wdl);
    let dtz = open(name, TableKind::Dtz);
    let mut rng = StdRng::seed_from_u64(seed);

    // WDL.
    let mut compared = 0;
    for side in wdl.stored_sides() {
        let len = wdl.index_len(side);
        assert!(len > 0);
        for _ in 0..samples {
            let idx = rng.gen_range(0..len);
            let Some(pos) = legal(&wdl, side, idx) else {
                continue;
            };
            assert_eq!(
                wdl.index_of(&pos),
                Some((side, idx)),
                "{name} wdl round trip"
            );
            if !pos.capture_moves().is_empty() {
                continue;
            }
            let expected = tb.probe_wdl_after_zeroing(&pos).expect("probe wdl");
            let got = decode_one(&wdl, side, idx);
            assert_eq!(
                got,
                u16::from(wdl_code(expected)),
                "{name} {side:?} idx {idx}: {:?}",
                pos.board()
            );
            compared += 1;
        }
    }
    assert!(
        compared > samples / 4,
        "{name}: only {compared} WDL comparisons"
    );
    let wdl_compared = compared;

    // DTZ, on the stored side(s).
    let mut compared = 0;
    let sides = dtz.stored_sides();
    assert!(!sides.is_empty());
    let target = samples / 2;
    let (mut decisive, mut cursed, mut n_rounded) = (0, 0, 0);
    for side in sides.iter().copied() {
        let len = dtz.index_len(side);
        // Positions without captures and pawn moves are rare in pawn
        // tables: sample until enough comparisons (or many tries).
        let mut side_compared = 0;
        for _ in 0..samples * 20 {
            if side_compared >= target {
                break;
            }
            let idx = rng.gen_range(0..len);
            let Some(pos) = legal(&dtz, side, idx) else {
                continue;
            };
            assert_eq!(
                dtz.index_of(&pos),
                Some((side, idx)),
                "{name} dtz round trip"
            );
            if !pos.capture_moves().is_empty() {
                continue;
            }
            // WDL class of this position, from our WDL table (different
            // index space) and from shakmaty-syzygy.
            let (wside, widx) = wdl.index_of(&pos).expect("wdl index");
            let w = decode_one(&wdl, wside, widx) as u8;
            assert_eq!(
                w,
                wdl_code(tb.probe_wdl_after_zeroing(&pos).expect("probe wdl"))
            );
            // shakmaty-syzygy short-cuts winning positions with a winning
            // pawn move (DTZ 1) before reading the table.
            let pawn_moves = pos.legal_moves().iter().any(|m| m.role() == Role::Pawn);
            if w > 2 && pawn_moves {
                continue;
            }
            let mut out = [DtzValue::default()];
            dtz.decode_dtz(side, idx..idx + 1, &[w], &mut out)
                .expect("decode dtz");
            let expected = tb.probe_dtz(&pos).expect("probe dtz");
            let (value, rounded) = match expected {
                MaybeRounded::Rounded(Dtz(v)) => (v, true),
                MaybeRounded::Precise(Dtz(v)) => (v, false),
            };
            let got = out[0];
            if value != 0 {
                decisive += 1;
            }
            if value.abs() > 100 {
                cursed += 1;
            }
            if rounded && value != 0 {
                n_rounded += 1;
            }
            if value == 0 {
                assert_eq!(got.dtz, 0, "{name} {side:?} idx {idx}");
            } else {
                assert_eq!(
                    (got.dtz, got.rounded),
                    (value, rounded),
                    "{name} {side:?} idx {idx}: {:?}",
                    pos.board()
                );
            }
            compared += 1;
            side_compared += 1;
        }
    }
    assert!(
        compared >= target * sides.len() || !strict,
        "{name}: only {compared} DTZ comparisons"
    );
    eprintln!(
        "{name}: {wdl_compared} WDL and {compared} DTZ values compared \
         ({decisive} decisive, {cursed} cursed/blessed, {n_rounded} rounded)"
    );
}

#[test]
fn agrees_with_shakmaty_3_4_pieces() {
    for (i, name) in ["KQvKR", "KRvKP", "KPvKP", "KBBvK", "KNNvK", "KBvKP", "KPvK"]
        .into_iter()
        .enumerate()
    {
        check_against_shakmaty(name, 4000, 1 + i as u64, true);
    }
}

/// All tables of the directory (slow in debug builds; run with
/// `cargo test --release -- --ignored`).
#[test]
#[ignore]
fn agrees_with_shakmaty_all_tables() {
    let mut names: Vec<String> = std::fs::read_dir(tables_dir())
        .expect("read dir")
        .filter_map(|e| {
            let path = e.ok()?.path();
            (path.extension()? == "rtbw").then(|| path.file_stem()?.to_str().map(String::from))?
        })
        .filter(|name| tables_dir().join(format!("{name}.rtbz")).exists())
        .collect();
    names.sort();
    assert!(
        names.iter().any(|n| n == "KRBvKR"),
        "not every table of {}: {names:?}",
        tables_dir().display()
    );
    for (i, name) in names.iter().enumerate() {
        check_against_shakmaty(name, 20_000, 1000 + i as u64, false);
    }
}

#[test]
fn agrees_with_shakmaty_5_pieces() {
    for (i, name) in ["KRBvKR", "KNNvKP", "KQPvKQ", "KRPvKR", "KQQvKQ"]
        .into_iter()
        .enumerate()
    {
        check_against_shakmaty(name, 3000, 100 + i as u64, true);
    }
}

/// Every index of a table decodes to a placement that encodes back to the
/// same index.
fn check_full_round_trip(name: &str, kind: TableKind) -> u64 {
    let table = open(name, kind);
    let mut total = 0;
    for side in table.stored_sides() {
        let len = table.index_len(side);
        (0..len).into_par_iter().for_each(|idx| {
            let p = table.placement(side, idx).expect("placement");
            assert_eq!(
                table.index_of_board(&p.board(), p.turn()),
                Some((side, idx)),
                "{name} {side:?} {idx}"
            );
        });
        assert!(table.placement(side, len).is_none());
        total += len;
    }
    total
}

#[test]
fn full_round_trip() {
    // 3 unique pieces lead: 31332 * 61 per side, both sides.
    assert_eq!(
        check_full_round_trip("KQvKR", TableKind::Wdl),
        2 * 31_332 * 61
    );
    // Symmetric pawn table: one side, four files.
    let n = check_full_round_trip("KPvKP", TableKind::Wdl);
    assert_eq!(n, open("KPvKP", TableKind::Wdl).index_len(Color::White));
    check_full_round_trip("KPvKP", TableKind::Dtz);
    // Kings lead, like pieces.
    assert_eq!(
        check_full_round_trip("KNNvK", TableKind::Wdl),
        2 * 462 * 1891
    );
}

/// Sum of multiplicities = number of placements on the full board.
fn total_multiplicity(name: &str) -> u64 {
    let table = open(name, TableKind::Wdl);
    let mut total = 0u64;
    for side in table.stored_sides() {
        total += (0..table.index_len(side))
            .into_par_iter()
            .map(|idx| u64::from(table.multiplicity(side, idx).expect("in range")))
            .sum::<u64>();
    }
    total
}

#[test]
fn multiplicity_counts_full_board() {
    // Three unique pieces: every placement (adjacent kings included), both
    // sides to move.
    assert_eq!(total_multiplicity("KQvK"), 2 * 64 * 63 * 62);
    // Kings lead: kings never adjacent; 3612 ordered king pairs.
    assert_eq!(total_multiplicity("KNvK"), 2 * 64 * 63 * 62);
    assert_eq!(total_multiplicity("KNNvK"), 2 * 3612 * (62 * 61 / 2));
    // Pawns: pawn on 48 squares.
    assert_eq!(total_multiplicity("KPvK"), 2 * 48 * 63 * 62);
    // Symmetric: both sides to move folded into one side.
    assert_eq!(total_multiplicity("KPvKP"), 2 * 48 * 47 * 62 * 61);
}

/// Symmetric pawnless material (slow in debug builds; run with
/// `cargo test --release -- --ignored`).
#[test]
#[ignore]
fn multiplicity_counts_full_board_symmetric_pawnless() {
    assert_eq!(total_multiplicity("KNvKN"), 2 * 64 * 63 * 62 * 61);
    assert_eq!(total_multiplicity("KRvKR"), 2 * 64 * 63 * 62 * 61);
}

#[test]
fn decode_is_independent_of_chunking() {
    for (name, kind) in [
        ("KQvKR", TableKind::Wdl),
        ("KPvKP", TableKind::Dtz),
        ("KRPvKR", TableKind::Dtz),
    ] {
        let table = open(name, kind);
        let mut rng = StdRng::seed_from_u64(7);
        for side in table.stored_sides() {
            let len = table.index_len(side);
            let mut full = vec![0u16; len as usize];
            table.decode(side, 0..len, &mut full).expect("decode");
            // Random small and large ranges.
            let mut start = 0;
            while start < len {
                let n = if rng.gen_bool(0.5) {
                    rng.gen_range(1..300)
                } else {
                    rng.gen_range(1..200_000)
                };
                let end = (start + n).min(len);
                let mut part = vec![0u16; (end - start) as usize];
                table.decode(side, start..end, &mut part).expect("decode");
                assert_eq!(part[..], full[start as usize..end as usize], "{name}");
                start = end;
            }
            // u8 output agrees for tables with small values.
            let mut small = vec![0u8; len as usize];
            if table.decode(side, 0..len, &mut small).is_ok() {
                assert!(small.iter().zip(&full).all(|(a, b)| u16::from(*a) == *b));
            }
        }
    }
}

#[test]
fn bad_requests_are_errors() {
    let table = open("KQvKR", TableKind::Wdl);
    let len = table.index_len(Color::White);
    let mut out = vec![0u8; 10];
    assert!(matches!(
        table.decode(Color::White, len - 5..len + 5, &mut out),
        Err(SweepError::BadRequest { .. })
    ));
    assert!(matches!(
        table.decode(Color::White, 0..5, &mut out),
        Err(SweepError::BadRequest { .. })
    ));
    let mut dtz = vec![DtzValue::default(); 10];
    assert!(matches!(
        table.decode_dtz(Color::White, 0..10, &[2; 10], &mut dtz),
        Err(SweepError::BadRequest { .. })
    ));
    let dtz_table = open("KQvKR", TableKind::Dtz);
    assert_eq!(dtz_table.stored_sides().len(), 1);
    let missing = !dtz_table.stored_sides()[0];
    assert_eq!(dtz_table.index_len(missing), 0);
    assert!(dtz_table.placement(missing, 0).is_none());
    assert!(SweepTable::open(&tables_dir().join("KQvKR.rtbw"), TableKind::Dtz).is_err());
}

/// Opens a (possibly corrupt) copy and decodes everything; must not panic.
fn open_and_decode(path: &Path, kind: TableKind) -> Result<(), SweepError> {
    let table = SweepTable::open(path, kind)?;
    for side in table.stored_sides() {
        let len = table.index_len(side);
        let mut out = vec![0u16; len as usize];
        table.decode(side, 0..len, &mut out)?;
        if kind == TableKind::Dtz {
            let wdl: Vec<u8> = (0..len).map(|i| (i % 5) as u8).collect();
            let mut dtz = vec![DtzValue::default(); len as usize];
            table.decode_dtz(side, 0..len, &wdl, &mut dtz)?;
        }
        for idx in (0..len).step_by(997) {
            let p = table.placement(side, idx).expect("in range");
            let _ = table.index_of_board(&p.board(), p.turn());
        }
    }
    Ok(())
}

#[test]
fn corrupt_copies_give_errors() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut rng = StdRng::seed_from_u64(42);
    // (table, kind, extension, also test flipped bytes)
    for (name, kind, ext, flips) in [
        ("KRvK", TableKind::Dtz, "rtbz", true),
        ("KPvK", TableKind::Wdl, "rtbw", true),
        ("KPvK", TableKind::Dtz, "rtbz", true),
        ("KQvK", TableKind::Dtz, "rtbz", true),
        ("KRvKN", TableKind::Wdl, "rtbw", false),
        ("KQvKR", TableKind::Dtz, "rtbz", false),
        ("KPvKP", TableKind::Wdl, "rtbw", false),
        ("KBvKP", TableKind::Dtz, "rtbz", false),
        ("KNNvK", TableKind::Wdl, "rtbw", false),
    ] {
        let file = format!("{name}.{ext}");
        let original = std::fs::read(tables_dir().join(&file)).expect("read table");
        let path = tmp.path().join(&file);
        let write = |bytes: &[u8]| std::fs::write(&path, bytes).expect("write copy");

        // Intact copy decodes.
        write(&original);
        open_and_decode(&path, kind).expect("intact copy");

        // Zero length and wrong magic.
        write(&[]);
        assert!(matches!(
            SweepTable::open(&path, kind),
            Err(SweepError::Magic { .. })
        ));
        let mut bytes = original.clone();
        bytes[0] ^= 0xff;
        write(&bytes);
        assert!(matches!(
            SweepTable::open(&path, kind),
            Err(SweepError::Magic { .. })
        ));

        // Truncations: anything shorter than the data is an error.
        for cut in [3, 4, 5, 6, 12, 20, 40, 64, 100, 200] {
            if cut < original.len() - 64 {
                write(&original[..cut]);
                assert!(open_and_decode(&path, kind).is_err(), "{file} cut {cut}");
            }
        }
        for _ in 0..20 {
            let cut = rng.gen_range(0..original.len() - 64);
            write(&original[..cut]);
            assert!(open_and_decode(&path, kind).is_err(), "{file} cut {cut}");
        }
        if !flips {
            continue;
        }

        // Flipped bytes: header region and anywhere. Errors or (for bytes in
        // the compressed data) different values, never a panic.
        let header = original.len().min(512);
        let (mut refused, mut decoded) = (0, 0);
        for round in 0..300 {
            let mut bytes = original.clone();
            let flips = 1 + round % 4;
            for _ in 0..flips {
                let at = if round % 2 == 0 {
                    rng.gen_range(4..header)
                } else {
                    rng.gen_range(4..original.len())
                };
                bytes[at] ^= 1 << rng.gen_range(0..8);
            }
            write(&bytes);
            match open_and_decode(&path, kind) {
                Ok(()) => decoded += 1,
                Err(_) => refused += 1,
            }
        }
        // Both outcomes occur: flips in the header are mostly refused,
        // flips in the data often decode to other values (here 180 to 262
        // of the 300 copies are refused, depending on the file).
        eprintln!("{file}: {refused} flipped copies refused, {decoded} decoded");
        assert!(
            refused > 0 && decoded > 0,
            "{file}: {refused} refused, {decoded} decoded"
        );
        // Random garbage after a valid magic: its header, sizes and offsets
        // do not hold together, so every copy is refused (all 200 here).
        for i in 0..50 {
            let mut bytes: Vec<u8> = (0..rng.gen_range(5..5000)).map(|_| rng.gen()).collect();
            bytes[..4].copy_from_slice(&original[..4]);
            write(&bytes);
            assert!(
                open_and_decode(&path, kind).is_err(),
                "{file}: garbage {i} ({} bytes) decoded",
                bytes.len()
            );
        }
    }

    // A bad file name.
    let path = tmp.path().join("KXvK.rtbw");
    std::fs::write(&path, b"junk").expect("write");
    assert!(matches!(
        SweepTable::open(&path, TableKind::Wdl),
        Err(SweepError::Name { .. })
    ));
    // A missing file.
    assert!(matches!(
        SweepTable::open(&tmp.path().join("KQvK.rtbw"), TableKind::Wdl),
        Err(SweepError::Io { .. })
    ));
}
