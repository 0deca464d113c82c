//! Probe latency: WDL, exact DTZ, and a whole best-play line, on the real
//! tables (`$FIFTYMOVE_TEST_TABLES`, else `data/syzygy`).

use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion};
use fiftymove::{
    chess::material::Material,
    chess::position::parse_fen,
    probe::best_line,
    probe::{DtzMemo, Prober},
    scan::enumerate::Enumerator,
    tables::Inventory,
};
use rand::{rngs::StdRng, seq::SliceRandom, SeedableRng};
use shakmaty::{Chess, Color, Square};

fn prober() -> Prober {
    let dir = std::env::var("FIFTYMOVE_TEST_TABLES")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/syzygy"));
    Prober::new(Inventory::scan(&[dir]).unwrap().open().unwrap())
}

/// 200 random legal positions of a material, fixed seed.
fn sample(material: &str) -> Vec<Chess> {
    let m: Material = material.parse().unwrap();
    let e = Enumerator::new(&m);
    let mut rng = StdRng::seed_from_u64(7);
    let mut out = Vec::new();
    while out.len() < 200 {
        let mut sq = Square::ALL.to_vec();
        sq.shuffle(&mut rng);
        let board = e.board(&sq[..m.piece_count()]);
        for turn in Color::ALL {
            if let Some(pos) = e.position(&board, turn) {
                if (shakmaty::Position::board(&pos).pawns() & shakmaty::Bitboard::BACKRANKS)
                    .is_empty()
                {
                    out.push(pos);
                }
            }
        }
    }
    out
}

fn bench_probes(c: &mut Criterion) {
    let prober = prober();
    for material in ["KRBvKR", "KQPvKQ"] {
        let positions = sample(material);
        let mut i = 0;
        c.bench_function(&format!("wdl/{material}"), |b| {
            b.iter(|| {
                i = (i + 1) % positions.len();
                prober.wdl(&positions[i]).unwrap()
            })
        });
        c.bench_function(&format!("raw_dtz/{material}"), |b| {
            b.iter(|| {
                i = (i + 1) % positions.len();
                prober.raw_dtz(&positions[i]).unwrap()
            })
        });
        // Decisive positions only (a draw costs one WDL probe), with a fresh
        // memo each time: the cost of one cold `probe`.
        let decisive: Vec<Chess> = positions
            .iter()
            .filter(|p| prober.wdl(p).unwrap() != fiftymove::chess::wdl::Wdl::Draw)
            .cloned()
            .collect();
        c.bench_function(&format!("exact_dtz_decisive/{material}"), |b| {
            b.iter(|| {
                i = (i + 1) % decisive.len();
                prober.dtz_with(&decisive[i], &mut DtzMemo::new()).unwrap()
            })
        });
    }
    let mut group = c.benchmark_group("line");
    group.sample_size(10);
    // KQPvKQ, the generator's longest win: 100 plies to the queen's capture.
    let start = parse_fen("6k1/P7/8/Q7/8/8/2q5/K7 b - - 0 1").unwrap();
    group.bench_function("KQPvKQ-longest-win", |b| {
        b.iter(|| best_line(&prober, &start).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench_probes);
criterion_main!(benches);
