//! Benchmarks of the streaming Syzygy decoder (`fiftymove::tables::reader`).
//!
//! `cargo bench --bench sweep_decode` runs the criterion benchmarks (full
//! decode of KQvKR.rtbw, one side of KRBvKR.rtbz).
//!
//! `SWEEP_COMPARE=1 cargo bench --bench sweep_decode` instead times a full
//! decode of KRBvKR and KNNvKP (.rtbw + .rtbz) and compares it with probing
//! random positions through shakmaty-syzygy in the same run (the probe time
//! is measured on a sample and extrapolated to the same number of values).
//!
//! Tables are found like in the tests: `FIFTYMOVE_TEST_TABLES`, else
//! `data/syzygy`, else `../shared/syzygy`.

use std::{
    hint::black_box,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use criterion::{criterion_group, Criterion};
use fiftymove::tables::reader::{SweepTable, TableKind};
use rand::{rngs::StdRng, Rng, SeedableRng};
use shakmaty::{CastlingMode, Chess, FromSetup};
use shakmaty_syzygy::Tablebase;

fn tables_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("FIFTYMOVE_TEST_TABLES") {
        return PathBuf::from(dir);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for cand in [root.join("data/syzygy"), root.join("../shared/syzygy")] {
        if cand.is_dir() {
            return cand;
        }
    }
    panic!("no Syzygy tables found: set FIFTYMOVE_TEST_TABLES");
}

fn open(name: &str, kind: TableKind) -> SweepTable {
    let ext = match kind {
        TableKind::Wdl => "rtbw",
        TableKind::Dtz => "rtbz",
    };
    SweepTable::open(&tables_dir().join(format!("{name}.{ext}")), kind).expect("open table")
}

/// Decodes every stored value of a table; returns the number of values.
fn decode_all(table: &SweepTable, buf: &mut Vec<u16>) -> u64 {
    let mut n = 0;
    for side in table.stored_sides() {
        let len = table.index_len(side);
        buf.resize(len as usize, 0);
        table.decode(side, 0..len, buf).expect("decode");
        black_box(&buf);
        n += len;
    }
    n
}

fn bench_decode(c: &mut Criterion) {
    let kqkr = open("KQvKR", TableKind::Wdl);
    let krbkr = open("KRBvKR", TableKind::Dtz);
    let side = krbkr.stored_sides()[0];
    let mut group = c.benchmark_group("sweep");
    group.sample_size(10);
    let mut buf = Vec::new();
    group.bench_function("KQvKR.rtbw full (both sides)", |b| {
        b.iter(|| decode_all(&kqkr, &mut buf))
    });
    let mut buf = Vec::new();
    group.bench_function("KRBvKR.rtbz one side", |b| {
        b.iter(|| {
            let len = krbkr.index_len(side);
            buf.resize(len as usize, 0u16);
            krbkr.decode(side, 0..len, &mut buf).expect("decode");
            black_box(&buf);
        })
    });
    group.finish();
}

criterion_group!(benches, bench_decode);

/// Random legal positions of a material (from random indices).
fn random_positions(table: &SweepTable, n: usize, rng: &mut StdRng) -> Vec<Chess> {
    let sides = table.stored_sides();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let side = sides[rng.gen_range(0..sides.len())];
        let idx = rng.gen_range(0..table.index_len(side));
        let p = table.placement(side, idx).expect("in range");
        if let Ok(pos) = Chess::from_setup(p.to_setup(), CastlingMode::Standard) {
            out.push(pos);
        }
    }
    out
}

fn compare() {
    let mut tb: Tablebase<Chess> = Tablebase::new();
    tb.add_directory(tables_dir()).expect("tables");
    let mut rng = StdRng::seed_from_u64(1);
    const SAMPLE: usize = 200_000;
    println!(
        "threads: {} (rayon), probe sample: {SAMPLE} random legal positions per table",
        rayon::current_num_threads()
    );
    let mut total_decode = Duration::ZERO;
    let mut total_probe = 0.0;
    for name in ["KRBvKR", "KNNvKP"] {
        let mut buf = Vec::new();
        let t = Instant::now();
        let wdl = open(name, TableKind::Wdl);
        let dtz = open(name, TableKind::Dtz);
        let open_time = t.elapsed();
        let t = Instant::now();
        let n_wdl = decode_all(&wdl, &mut buf);
        let wdl_time = t.elapsed();
        let t = Instant::now();
        let n_dtz = decode_all(&dtz, &mut buf);
        let dtz_time = t.elapsed();
        let decode = open_time + wdl_time + dtz_time;
        total_decode += decode;

        let positions = random_positions(&wdl, SAMPLE, &mut rng);
        let t = Instant::now();
        for pos in &positions {
            black_box(tb.probe_wdl_after_zeroing(pos).expect("probe wdl"));
        }
        let wdl_probe = t.elapsed().as_secs_f64() / SAMPLE as f64;
        let t = Instant::now();
        for pos in &positions {
            black_box(tb.probe_dtz(pos).expect("probe dtz"));
        }
        let dtz_probe = t.elapsed().as_secs_f64() / SAMPLE as f64;
        let probe_equiv = wdl_probe * n_wdl as f64 + dtz_probe * n_dtz as f64;
        total_probe += probe_equiv;
        println!(
            "{name}: open {:.2}s; decode .rtbw {n_wdl} values {:.2}s ({:.0} M/s), .rtbz {n_dtz} values {:.2}s ({:.0} M/s)",
            open_time.as_secs_f64(),
            wdl_time.as_secs_f64(),
            n_wdl as f64 / wdl_time.as_secs_f64() / 1e6,
            dtz_time.as_secs_f64(),
            n_dtz as f64 / dtz_time.as_secs_f64() / 1e6,
        );
        println!(
            "{name}: shakmaty-syzygy probe_wdl_after_zeroing {:.2} us, probe_dtz {:.2} us per position => {:.0}s for the same number of values; ratio {:.0}x",
            wdl_probe * 1e6,
            dtz_probe * 1e6,
            probe_equiv,
            probe_equiv / decode.as_secs_f64()
        );
    }
    println!(
        "total: sweep {:.2}s vs probing {:.0}s (extrapolated), ratio {:.0}x",
        total_decode.as_secs_f64(),
        total_probe,
        total_probe / total_decode.as_secs_f64()
    );
}

fn main() {
    if std::env::var_os("SWEEP_COMPARE").is_some() {
        compare();
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
