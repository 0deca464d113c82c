//! The solver's metrics against each other, position by position: the win
//! sets of the rules nest, DTR at most `2N` is exactly a win (or loss)
//! under an `N`-move rule, DTR and DTM agree with the classes without a
//! rule, and no mate comes before the zeroing move it needs.

use super::*;

fn check_material(solver: &Solver, cache: &Cache, material: &Material) {
    for (rule, metric) in RUNS {
        solver.prepare(material, rule, metric, &NoProgress).unwrap();
    }
    let layout = Layout::new(material);
    let tables: Vec<_> = RUNS
        .iter()
        .map(|&(rule, metric)| cache.open(&layout, rule, metric).ok().unwrap())
        .collect();
    let name = material.table_name();
    for slice in 0..layout.slices.len() {
        let values: Vec<_> = tables
            .iter()
            .map(|t| t.slice(slice).ok().unwrap())
            .collect();
        for side in 0..2 {
            for e in 0..layout.entries {
                let v: Vec<u16> = values.iter().map(|sv| sv[side][e]).collect();
                if v[0] == value::NONE {
                    assert!(v.iter().all(|x| *x == value::NONE), "{name}");
                    continue;
                }
                let at = || format!("{name} slice {slice} side {side} entry {e}: {v:?}");
                let classes: Vec<Wdl> =
                    (0..4).map(|i| class_of(v[i], RUNS[i].0).unwrap()).collect();
                // The wins (and losses) of a rule stay wins under a longer
                // one and with none.
                for w in classes.windows(2) {
                    if w[0] == Wdl::Win {
                        assert_eq!(w[1], Wdl::Win, "{}", at());
                    }
                    if w[0] == Wdl::Loss {
                        assert_eq!(w[1], Wdl::Loss, "{}", at());
                    }
                }
                let none = value::outcome(v[3]).unwrap();
                let dtm = value::outcome(v[4]).unwrap();
                let dtr = value::outcome(v[5]).unwrap();
                // The same side wins without a rule, by every metric.
                let sign = |o: Outcome| match o {
                    Outcome::Win(_) => 1,
                    Outcome::Draw => 0,
                    Outcome::Loss(_) => -1,
                };
                assert_eq!(sign(dtm), sign(none), "{}", at());
                assert_eq!(sign(dtr), sign(none), "{}", at());
                // A mate cannot come before the zeroing move it needs.
                if let (Outcome::Win(m) | Outcome::Loss(m), Outcome::Win(z) | Outcome::Loss(z)) =
                    (dtm, none)
                {
                    assert!(m >= z, "{}", at());
                }
                // DTR at most 2N is a win (a loss) under the N-move rule.
                if let Outcome::Win(r) | Outcome::Loss(r) = dtr {
                    for (i, n) in [50u16, 75, 100].into_iter().enumerate() {
                        let decided = matches!(classes[i], Wdl::Win | Wdl::Loss);
                        assert_eq!(r <= 2 * n, decided, "{} N={n}", at());
                    }
                }
            }
        }
    }
}

fn materials(names: &[&str], dir: &Path) {
    let cache = Cache::new(dir);
    let solver = Solver::new(Some(cache.clone()), MemoryLimit::Available);
    for name in names {
        check_material(&solver, &cache, &name.parse().unwrap());
    }
}

/// Every 3- and 4-piece table (the generator's list of them).
#[test]
fn metrics_agree_position_by_position_on_every_3_4_piece_table() {
    let names = three_four_piece_names();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    materials(&names, solved_3_4_piece_cache());
}

/// The same on three 5-piece tables (an hour or more on 2 cores:
/// `cargo test --release --lib -- --ignored metrics_agree`).
#[test]
#[ignore = "the six solves of KRBvKR, KNNvKP and KBBvKN with their closures take an hour or more"]
fn metrics_agree_position_by_position_on_five_piece_tables() {
    let dir = std::env::temp_dir().join(format!("fiftymove-metrics5-{}", std::process::id()));
    materials(&["KRBvKR", "KBBvKN", "KNNvKP"], &dir);
    std::fs::remove_dir_all(&dir).ok();
}

/// DTR documents count the wins of each rule as the rule's own solve does,
/// on every 3- and 4-piece material.
#[test]
fn dtr_documents_count_each_rules_wins() {
    let solver = shared_solver();
    let names = three_four_piece_names();
    let mut decisive = 0;
    for name in &names {
        let material: Material = name.parse().unwrap();
        let plan = |rule, metric| SolvePlan {
            material,
            rule,
            metric,
            shard: None,
            raw: false,
            filter: None,
            pawns: None,
        };
        let dtr = solver
            .stats(&plan(Rule::None, Metric::Dtr), &NoProgress)
            .unwrap();
        for n in [50u16, 75, 100] {
            let rule = solver
                .stats(&plan(Rule::Moves(n), Metric::Dtz), &NoProgress)
                .unwrap();
            for (d, r) in [(&dtr.white, &rule.white), (&dtr.black, &rule.black)] {
                let key = n.to_string();
                assert_eq!(d.won_under.as_ref().unwrap()[&key], r.wdl.win, "{name} {n}");
                assert_eq!(
                    d.lost_under.as_ref().unwrap()[&key],
                    r.wdl.loss,
                    "{name} {n}"
                );
                decisive += r.wdl.win + r.wdl.loss;
            }
        }
    }
    assert!(
        decisive > 0,
        "no decisive position in any 3- or 4-piece table"
    );
}
