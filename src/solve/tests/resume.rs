//! Solves stopped as if killed (after some slices, after a checkpoint)
//! and taken up again: the same results and files as solves never
//! stopped, and nothing left behind.

use super::*;

/// A solve interrupted in the middle of a material leaves the slices it
/// finished in its partial file, and the next solve reads them back and
/// solves only the rest, to the whole solve's statistics: KPPvK (its
/// closure read from the shared solves), interrupted after 40 of its
/// slices, paged (one slice at a time, so exactly 40 are kept) and whole
/// (slices side by side: at least 40). Nothing of the partial file is left
/// once the solve is done.
#[test]
fn an_interrupted_solve_resumes_from_its_last_finished_slice() {
    let material: Material = "KPPvK".parse().unwrap();
    let plan = whole_plan(material, Rule::FIFTY, Metric::Dtz);
    let expected = shared_solver().stats(&plan, &NoProgress).unwrap();
    let slices = Layout::new(&material).slices.len();
    for paged in [true, false] {
        let dir =
            std::env::temp_dir().join(format!("fiftymove-resume-{paged}-{}", std::process::id()));
        let solver = |interrupt_after: Option<usize>| {
            let pages = if paged { super::paged().pages } else { None };
            let knobs = Knobs {
                pages,
                interrupt_after,
                ..Knobs::default()
            };
            Solver::for_tests(
                Some(closure_only_cache(&material, &dir)),
                MemoryLimit::Available,
                knobs,
            )
        };
        let err = solver(Some(40))
            .stats(&plan, &NoProgress)
            .expect_err("interrupted")
            .to_string();
        assert!(err.contains("interrupted after 40 slices"), "{err}");
        let notes = Notes::default();
        let got = solver(None).stats(&plan, &notes).unwrap();
        assert_eq!(got, expected, "paged: {paged}");
        let notes = notes.0.into_inner().unwrap();
        let resumed: Vec<usize> = notes
            .iter()
            .filter_map(|n| {
                let rest = n.strip_prefix("resuming the solve of KPPvK (dtz, rule 50): ")?;
                let (kept, total) = rest.split_once(" of ")?;
                assert_eq!(
                    total,
                    format!("{slices} slices read back from an interrupted run")
                );
                kept.parse().ok()
            })
            .collect();
        assert_eq!(resumed.len(), 1, "{notes:?}");
        if paged {
            assert_eq!(resumed[0], 40, "{notes:?}");
        } else {
            assert!((40..slices).contains(&resumed[0]), "{notes:?}");
        }
        let left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(left.is_empty(), "{left:?}");
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// The partial file, journal and checkpoints an interrupted solve leaves are listed
/// as the files of the build that made them, in progress (another build's are never
/// taken up by this one), and files that are not the cache's are not listed.
#[test]
fn partial_files_are_listed_by_their_build() {
    let dir = tempfile::tempdir().unwrap();
    let ours = Cache::file_name("KQvK", Rule::FIFTY, Metric::Dtz);
    let id = crate::build_id::BUILD_ID;
    let other_id: String = id
        .chars()
        .map(|c| if c == '0' { '1' } else { '0' })
        .collect();
    let theirs = ours.replace(id, &other_id);
    assert_ne!(ours, theirs);
    let names = [
        format!(".{ours}.partial"),
        format!(".{ours}.journal"),
        format!(".{ours}.0.checkpoint"),
        format!(".{theirs}.partial"),
        format!(".{theirs}.journal"),
        format!(".{theirs}.12.checkpoint"),
        theirs.clone(),
        ".notes.partial".to_owned(),
    ];
    for n in &names {
        std::fs::write(dir.path().join(n), b"x").unwrap();
    }
    let files = Cache::new(dir.path()).files().unwrap();
    let listed: Vec<(String, bool, bool)> = files
        .iter()
        .map(|f| {
            let name = f.path.file_name().unwrap().to_string_lossy().into_owned();
            (name, f.of_this_build(), f.partial)
        })
        .collect();
    let mut expected: Vec<(String, bool, bool)> = names[..7]
        .iter()
        .enumerate()
        .map(|(i, n)| (n.clone(), i < 3, i < 6))
        .collect();
    expected.sort();
    assert_eq!(listed, expected);
    assert!(files
        .iter()
        .all(|f| f.material == "KQvK" && f.what == "rule-50 dtz" && f.bytes == 1));
}

/// A pawnless material is one slice, so a solve killed in it keeps nothing
/// of it in its partial file; its checkpoints keep the work done. KQvKR
/// (its closure read from the shared solves), in DTZ under the 50- and
/// 75-move rules, and in DTM and DTR without a rule (DTR's checkpoints
/// are of the solve without a rule it starts from), checkpointed at every
/// chance: stopped after its tenth checkpoint (in the first pass) and after
/// the ninth level, the next solve resumes from that checkpoint and writes
/// the same cache file, byte for byte, as a solve never stopped. A damaged
/// checkpoint is noted and the slice solved from the start. No checkpoint
/// is left. The same for the solves in half a byte per position under the
/// two rules (`compact`, forced), whose checkpoints keep their codes and
/// the part of their spill file the levels done wrote (a spill cut short
/// is a damaged checkpoint too).
#[test]
fn a_solve_stopped_after_a_checkpoint_resumes_from_it() {
    let material: Material = "KQvKR".parse().unwrap();
    let blocks = Layout::new(&material)
        .entries
        .div_ceil(crate::solve::levels::BLOCK);
    let batch = crate::solve::drive::first_pass_batch(blocks);
    let batches = blocks.div_ceil(batch);
    assert!(batches > 10, "{batches}");
    let base = std::env::temp_dir().join(format!("fiftymove-checkpoint-{}", std::process::id()));
    for (rule, metric, compact) in [
        (Rule::FIFTY, Metric::Dtz, false),
        (Rule::Moves(75), Metric::Dtz, false),
        (Rule::None, Metric::Dtm, false),
        (Rule::None, Metric::Dtr, false),
        (Rule::FIFTY, Metric::Dtz, true),
        (Rule::Moves(75), Metric::Dtz, true),
    ] {
        let plan = whole_plan(material, rule, metric);
        let file = Cache::file_name(&material.table_name(), rule, metric);
        let tag = format!("{rule}-{}-{compact}", metric.as_str());
        let fresh = base.join(format!("fresh-{tag}"));
        let from = if compact {
            0
        } else {
            crate::solve::COMPACT_ENTRIES
        };
        let knobs = |stop_after_checkpoints| Knobs {
            compact_from: Some(from),
            stop_after_checkpoints,
            ..Knobs::default()
        };
        let expected = Solver::for_tests(
            Some(closure_only_cache(&material, &fresh)),
            MemoryLimit::Available,
            knobs(None),
        )
        .stats(&plan, &NoProgress)
        .unwrap();
        let expected_file = std::fs::read(fresh.join(&file)).unwrap();
        let label = format!(
            "slice 0 of KQvKR ({})",
            crate::solve::progress::describe(rule, metric)
        );
        for (stop, damaged, note) in [
            (
                10,
                false,
                format!(
                    "resuming {label} from its checkpoint: first pass {} of {blocks} blocks done",
                    10 * batch
                ),
            ),
            (
                batches + 9,
                false,
                format!("resuming {label} from its checkpoint: first pass and levels 0 to 8 done"),
            ),
            (
                batches + 9,
                true,
                "damaged checkpoint, solving the slice from the start".to_owned(),
            ),
        ] {
            let dir = base.join(format!("resumed-{tag}-{stop}-{damaged}"));
            let solver = |stop| {
                Solver::for_tests(
                    Some(closure_only_cache(&material, &dir)),
                    MemoryLimit::Available,
                    knobs(stop),
                )
                .checkpoint_every(std::time::Duration::ZERO)
            };
            let err = solver(Some(stop))
                .stats(&plan, &NoProgress)
                .expect_err("stopped")
                .to_string();
            assert!(err.contains("interrupted after a checkpoint"), "{err}");
            let checkpoint = dir.join(format!(".{file}.0.checkpoint"));
            let spill = dir.join(format!(".{file}.0.spill"));
            let mut left = vec![
                format!(".{file}.0.checkpoint"),
                format!(".{file}.journal"),
                format!(".{file}.partial"),
            ];
            if compact {
                left.insert(1, format!(".{file}.0.spill"));
            }
            assert_eq!(dot_files(&dir), left);
            match (damaged, compact) {
                (false, _) => {}
                (true, false) => {
                    let mut bytes = std::fs::read(&checkpoint).unwrap();
                    let at = bytes.len() - 20;
                    bytes[at] ^= 0x40;
                    std::fs::write(&checkpoint, bytes).unwrap();
                }
                (true, true) => {
                    // The spill cut short: the levels it held are gone.
                    let len = std::fs::metadata(&spill).unwrap().len();
                    assert!(len > 0, "an empty spill after nine levels");
                    let f = std::fs::OpenOptions::new()
                        .write(true)
                        .open(&spill)
                        .unwrap();
                    f.set_len(len / 2).unwrap();
                }
            }
            let notes = Notes::default();
            let got = solver(None).stats(&plan, &notes).unwrap();
            assert_eq!(got, expected, "{tag} stopped after {stop}");
            assert!(
                std::fs::read(dir.join(&file)).unwrap() == expected_file,
                "{tag} stopped after {stop}: the cache file differs"
            );
            let notes = notes.0.into_inner().unwrap();
            assert!(
                notes.iter().any(|n| n.starts_with(&note)),
                "{note}: {notes:?}"
            );
            assert!(dot_files(&dir).is_empty(), "{:?}", dot_files(&dir));
        }
    }
    std::fs::remove_dir_all(&base).ok();
}
