//! The sweep held in the ways the plan picks for large tables, forced on
//! small ones, against the whole sweep byte for byte.

use shakmaty::Color;

use super::{
    codes::CodeForm,
    dtz_bytes::{StoredDtz, UnstoredBytes, UnstoredDtz},
    pages::{Paging, MIN_PAGE_BYTES},
    wdl_values::WdlValues,
    *,
};

/// The installed tables (the tests' own).
fn installed() -> Inventory {
    let dir = crate::tables::reader::tests::tables_dir();
    Inventory::scan(std::slice::from_ref(&dir)).unwrap()
}

/// The material `name`, its plan with raw placements (the counting
/// pass then reads every value), and its statistics by a whole sweep.
fn raw_and_whole(inv: &Inventory, name: &str) -> (Material, [ScanPlan; 1], Vec<ScanStats>) {
    let material: Material = name.parse().unwrap();
    let plans = [ScanPlan {
        material,
        shard: None,
        raw: true,
        filter: None,
    }];
    let whole = scan_with_sweep_plans(inv, &plans, MemoryLimit::Bytes(u64::MAX), &|_| {}).unwrap();
    (material, plans, whole)
}

/// The tables of `material` held as `plan` says: the plan of its files
/// under `limit`, then changed by `change` (for the tests to force what the
/// plan picks only for large tables).
fn held_as(
    inv: &Inventory,
    material: &Material,
    limit: Option<u64>,
    change: impl FnOnce(&mut SweepMemoryPlan),
) -> (Tables, SweepMemoryPlan) {
    let files = SweepFiles::open(inv, material).unwrap();
    let mut plan = files.plan(limit);
    change(&mut plan);
    let tables = Tables::hold(files, &plan).unwrap();
    (tables, plan)
}

/// Runs the sweep of `tables` held as `plan` says for `plans` and checks
/// its statistics against the whole sweep's (`whole`), byte for byte as
/// JSON.
fn assert_held_gives_whole(
    (tables, plan): (Tables, SweepMemoryPlan),
    plans: &[ScanPlan],
    whole: &[ScanStats],
    label: &str,
) {
    let held = sweep_held(&tables, &plan.storage, plans, &|_| {}).unwrap();
    assert_eq!(
        serde_json::to_string(&held).unwrap(),
        serde_json::to_string(whole).unwrap(),
        "{label}"
    );
}

/// A sweep whose closure is read through a few pages (every table
/// paged, one page per lock shard, so pages are dropped and decoded
/// again all the time) gives the statistics of the sweep that decodes
/// it whole, byte for byte: tables whose captures reach 3-piece
/// tables, and whose promotions reach 4-piece ones (their own size).
#[test]
fn a_paged_closure_gives_the_whole_closures_statistics() {
    let inv = installed();
    for name in ["KRvKP", "KPPvK", "KPvKP", "KQPvK"] {
        let (material, plans, whole) = raw_and_whole(&inv, name);
        let held = held_as(&inv, &material, None, |plan| {
            assert!(!plan.closure_whole.is_empty(), "{name}");
            plan.page_bytes = 0;
            plan.closure_whole.fill(false);
        });
        assert_held_gives_whole(held, &plans, &whole, name);
    }
}

/// A pawn table cut into slices of its leading pawns' squares, one
/// digit and two digits a slice, its own WDL file and its closure read
/// page by page within the least budget, gives the whole sweep's
/// statistics byte for byte (raw placements and longest positions
/// included): White's pawns leading (KRvKP's Black pawn leads in the
/// file's frame), two leading pawns, a promotion to a queen that keeps a
/// pawn, and a 5-piece table (Black's pawn leading). The slicing changes the work, never the
/// result; a symmetric table is never cut.
#[test]
fn slices_of_the_leading_pawns_give_the_whole_sweep() {
    let inv = installed();
    for name in ["KRvKP", "KPPvK", "KQPvK", "KPvKP", "KNNvKP"] {
        let (material, plans, whole) = raw_and_whole(&inv, name);
        let widths: &[u64] = if name == "KNNvKP" { &[1] } else { &[1, 2] };
        for &digits in widths {
            let held = held_as(&inv, &material, None, |plan| {
                plan.page_bytes = MIN_PAGE_BYTES;
                plan.storage.lead_digits = digits;
                plan.closure_whole = vec![false; plan.closure_whole.len() + 1];
            });
            let chunks = held.0.chunks().len();
            let label = format!("{name}, {digits} digits a slice");
            assert_held_gives_whole(held, &plans, &whole, &label);
            if name == "KPvKP" {
                assert_eq!(chunks, 1, "a symmetric table is one chunk");
            } else {
                assert!(chunks > 4, "{name}: only {chunks} chunks");
            }
        }
    }
}

/// A pawnless table swept with its unstored side's DTZ worked out again
/// wherever it is read (settling and counting), none held, gives the
/// sweep that holds them byte for byte (raw placements and longest
/// positions included): a bare king losing (parity settles), and
/// 5-piece tables whose rounded values are settled by searching the
/// successors, both sides'. The plan picks it where the whole sweep
/// does not fit and it does.
#[test]
fn unstored_dtz_worked_out_where_read_gives_the_whole_sweep() {
    let inv = installed();
    for name in ["KQvKR", "KRvKN", "KBNvK", "KBBvKN"] {
        let (material, plans, whole) = raw_and_whole(&inv, name);
        let full = SweepFiles::open(&inv, &material).unwrap().plan(None);
        assert!(!full.recomputes_unstored(), "{name}");
        // A limit the whole sweep misses by a byte: the lean plan,
        // within it, its closure whole.
        let held = held_as(&inv, &material, Some(full.bytes - 1), |_| {});
        let (tables, plan) = &held;
        assert!(
            plan.recomputes_unstored() && plan.within && plan.page_bytes == 0,
            "{name}: {plan:?}"
        );
        assert!(plan.bytes < full.bytes, "{name}: {plan:?}");
        let unstored = plan.storage.unstored_dtz.hold(1, tables.symmetric);
        assert!(matches!(unstored, UnstoredBytes::WorkedOut), "{name}");
        assert_held_gives_whole(held, &plans, &whole, name);
    }
}

/// The storage of a plan without a memory limit, but for its unstored
/// side's DTZ, worked out again where read where `recompute` says so; for
/// the tests to page it further.
fn unstored_worked_out(plan: &mut SweepMemoryPlan, recompute: bool) {
    if recompute {
        plan.storage.unstored_dtz = UnstoredDtz::WorkedOut;
    }
}

/// Decodes the stored side's DTZ where read, in pages of `page_len`
/// indices within `budget` bytes, instead of holding it; and, as the
/// plan's first such way for a symmetric table, has its pass 1 hold the
/// WDL values two to a byte.
fn page_stored_dtz(plan: &mut SweepMemoryPlan, budget: u64, page_len: u64) {
    plan.storage.stored_dtz = StoredDtz::Paged(Paging {
        bytes: budget,
        page_len,
    });
    if plan.storage.wdl_values == WdlValues::Bytes {
        plan.storage.wdl_values = WdlValues::Nibbles;
    }
}

/// Has pass 1 read the WDL file's values in pages of `page_len` within
/// `budget` bytes, instead of holding them.
fn page_wdl(plan: &mut SweepMemoryPlan, budget: u64, page_len: u64) {
    plan.storage.wdl_values = WdlValues::Paged(Paging {
        bytes: budget,
        page_len,
    });
}

/// A sweep that holds no stored DTZ byte and decodes each from the
/// DTZ file where read, through pages of 1,024 indices of which a few
/// are held (so they are dropped and decoded again all the time),
/// gives the sweep that holds them byte for byte (raw placements and
/// longest positions included): symmetric tables (settling reads the
/// stored side only, colour-flipped, anywhere in the table; KPvKP's
/// pawn moves too), and tables without symmetry whose pass 3 searches
/// the stored side's values, also with their unstored side worked out
/// again where read; and symmetric tables whose pass 1 reads the WDL
/// file's values through such pages too. The plan picks these for a
/// symmetric table where the whole sweep does not fit and they do (KNN
/// v KNN, also within 2 GB; within 1.5 GB its codes packed too).
#[test]
fn stored_dtz_decoded_where_read_gives_the_whole_sweep() {
    let inv = installed();
    let (page_len, budget) = (1 << 10, (4 * 64) << 10);
    for name in ["KQvKQ", "KRvKR", "KPvKP", "KQvKR", "KRvKN", "KBNvK"] {
        let (material, plans, whole) = raw_and_whole(&inv, name);
        let symmetric = name[..name.len() / 2] == name[name.len() / 2 + 1..];
        // Symmetric: with pass 1's WDL values paged too, or not;
        // else with the unstored side worked out again, or not.
        for other in [false, true] {
            let held = held_as(&inv, &material, None, |plan| {
                unstored_worked_out(plan, other && !symmetric);
                page_stored_dtz(plan, budget, page_len);
                if other && symmetric {
                    page_wdl(plan, budget, page_len);
                }
            });
            let label = format!("{name}, the other paged or worked out again: {other}");
            assert_held_gives_whole(held, &plans, &whole, &label);
        }
    }
    // The plan (headers only: no pass runs). Small tables never page
    // it: the least page budget outweighs their DTZ bytes.
    let shared = std::env::var_os("FIFTYMOVE_SHARED_TABLES")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/syzygy")
        });
    let inv = Inventory::scan(&[crate::tables::reader::tests::tables_dir(), shared]).unwrap();
    let material: Material = "KNNvKNN".parse().unwrap();
    let files = SweepFiles::open(&inv, &material).unwrap();
    let full = files.plan(None);
    assert_eq!(full.stored_page_bytes(), 0);
    let plan = files.plan(Some(full.bytes - 1));
    assert!(plan.stored_page_bytes() > 0 && plan.within, "{plan:?}");
    assert!(plan.page_bytes == 0 && plan.bytes < full.bytes, "{plan:?}");
    assert_eq!(plan.wdl_page_bytes(), 0, "{plan:?}");
    // As the tests above page it: pass 1 holds the values two to a byte.
    assert_eq!(plan.storage.wdl_values, WdlValues::Nibbles, "{plan:?}");
    // Within 2 GB (issue 44's limit for it), its WDL values paged too;
    // within 1.5 GB, its codes packed too.
    let plan = files.plan(Some(2_000_000_000));
    assert!(plan.within && plan.wdl_page_bytes() > 0, "{plan:?}");
    assert!(!plan.packed_codes(), "{plan:?}");
    let plan = files.plan(Some(1_500_000_000));
    assert!(plan.within && plan.packed_codes(), "{plan:?}");
}

/// A sweep that packs its WDL codes five bits each, twelve to a word
/// written by compare-and-swap, gives the sweep that holds a byte each,
/// byte for byte (raw placements and longest positions included): with
/// everything else held, and with everything it can page paged (the
/// stored DTZ and pass 1's WDL values through pages of 1,024 indices,
/// the unstored side's DTZ worked out again where read), as the plan
/// takes it for the largest 6-piece tables. Symmetric tables (KPvKP's
/// pawn moves too), and tables without symmetry whose rounded values
/// are settled by parity (KQvKR, KBNvK) or by search (KRvKN). (The
/// plan's choice: `stored_dtz_decoded_where_read_gives_the_whole_sweep`.)
#[test]
fn packed_codes_give_the_whole_sweep() {
    let inv = installed();
    let (page_len, budget) = (1 << 10, (4 * 64) << 10);
    for name in ["KQvKQ", "KPvKP", "KQvKR", "KRvKN", "KBNvK"] {
        let (material, plans, whole) = raw_and_whole(&inv, name);
        let symmetric = name[..name.len() / 2] == name[name.len() / 2 + 1..];
        for paged in [false, true] {
            let held = held_as(&inv, &material, None, |plan| {
                unstored_worked_out(plan, paged && !symmetric);
                plan.storage.codes = CodeForm::Packed;
                if paged {
                    page_stored_dtz(plan, budget, page_len);
                    page_wdl(plan, budget, page_len);
                }
            });
            let label = format!("{name}, packed codes, the rest paged: {paged}");
            assert_held_gives_whole(held, &plans, &whole, &label);
        }
    }
}

/// KRB v KR swept as the plan takes the largest pawnless tables
/// without symmetry gives the whole sweep byte for byte: its unstored
/// side's DTZ worked out again where read, its stored DTZ and pass 1's
/// WDL values read through pages. Scaled as the plan's pages are to a
/// 6-piece table with a leading group of three unique pieces (KQR v
/// KRB: 2,048 pages of 2^16 indices in 128 MiB, each leading digit
/// spanning about 3.3 pages): 2,048 pages of 2^10 indices, KRB v KR's
/// leading digit spanning 3,660 indices, 3.6 pages. On demand: it
/// stands in for those tables' speed (`FIFTYMOVE_SWEEP_DEBUG=1` prints
/// the passes' times).
#[test]
#[ignore = "about a minute; run on demand with --ignored"]
fn krbvkr_paged_as_the_largest_pawnless_tables_gives_the_whole_sweep() {
    let inv = installed();
    let (material, plans, whole) = raw_and_whole(&inv, "KRBvKR");
    let (page_len, pages) = (1 << 10, 2048);
    let held = held_as(&inv, &material, None, |plan| {
        unstored_worked_out(plan, true);
        page_stored_dtz(plan, page_len * pages, page_len);
        page_wdl(plan, page_len * pages, page_len);
    });
    assert_held_gives_whole(held, &plans, &whole, "KRBvKR paged");
}

#[test]
fn natural_parity_as_the_probe_engine() {
    use tables::natural_parity;
    let c = |s: &str| {
        let material: Material = s.parse().unwrap();
        crate::tables::reader::counts_of(material.pieces())
    };
    // A bare king can only take the rook of KRvK... leaving a bare king.
    assert!(natural_parity(&c("KQvKR"), Color::Black));
    assert!(natural_parity(&c("KBNvK"), Color::Black));
    assert!(!natural_parity(&c("KRNvK"), Color::Black));
    assert!(!natural_parity(&c("KPvKP"), Color::Black));
    assert!(natural_parity(&c("KNNvKP"), Color::White));
    assert!(!natural_parity(&c("KNNvKP"), Color::Black));
}
