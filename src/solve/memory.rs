//! The memory a solve takes, and how it holds the tables its zeroing moves
//! read within a limit ([`MemoryPlan`]): whole in memory where the whole
//! solve fits, else read page by page from their files (`pages`), one
//! slice solved at a time, each step with the pages its slice leaves of the
//! limit. The counts here are what `solve --plan` prints and what a limit
//! is checked against before a solve starts.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::{
    closure::closure,
    layout::Layout,
    levels, pages,
    reach::Step,
    table::{Keeps, Table},
};
use crate::chess::{material::Material, rule::Metric};

/// The entries from which a material without pawns is solved for a rule's
/// DTZ in half a byte per position and side (`compact`) instead of two
/// bytes: the 6-piece materials (KNN v KNN has 1.9 G), where two bytes
/// take 7 to 31 GB. A paged solve (below the whole bound) solves every
/// material without pawns that way.
pub const COMPACT_ENTRIES: usize = 1 << 30;

/// Whether `layout` is solved for `metric` in half a byte per position and
/// side, with entries from `from` on.
pub(crate) fn uses_compact(layout: &Layout, metric: Metric, from: usize) -> bool {
    !layout.has_pawns() && metric == Metric::Dtz && layout.entries >= from
}

/// How a solve holds the tables its exits read, and the memory it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryPlan {
    /// The most memory the solve takes, in bytes.
    pub bytes: u64,
    /// `None`: every table whole in memory; else the tables are read page
    /// by page from their files, one slice solved at a time, in at most
    /// this many bytes of pages (each material's step has what its slice
    /// leaves of the limit).
    pub pages: Option<u64>,
    /// The limit each step's pages are worked out from (`None` with pages:
    /// the same pages for every step).
    within: Option<u64>,
    /// The largest working set (slice values) of a step the plan solves.
    working: u64,
}

/// The most a solve holds whole, whatever the limit, and the most a paged
/// solve takes: the project's 12 GB target. A closure larger than that is
/// a 6-piece material with pawns (KNNN v KP: 12.4 GB whole), whose own
/// slices and promotions the pages hold side by side as they are read.
pub const WHOLE_MOST: u64 = 12_000_000_000;

/// A paged solve's pages take up to this share more of the process's
/// memory than their values (the budget): the heap keeps blocks of pages
/// dropped by one thread that another thread's pages do not reuse. KNNN v
/// KP's solve peaked 51 MB (0.9%) above its pages' budget of 5.58 GB,
/// its slices and [`PROCESS_BYTES`]; a 32nd (3.1%) is counted.
const PAGE_SLACK: u64 = 32;

/// `pages` bytes of pages with their slack ([`PAGE_SLACK`]).
fn with_slack(pages: u64) -> u64 {
    pages + pages / PAGE_SLACK
}

/// Memory a solve takes besides its tables and slices: the program, thread
/// stacks and the cache's compression buffers (KRBvKR's DTR solve peaked
/// 54 MB above its tables and slices).
const PROCESS_BYTES: u64 = 128 << 20;

/// The memory one material's solve works in besides the tables: the
/// values of the slices solved side by side (those of one pawn
/// advance).
pub(crate) fn working_bytes(layout: &Layout, metric: Metric) -> u64 {
    working_bytes_of(layout, metric, None)
}

/// [`working_bytes`] of a solve of `only` these slices (all if
/// `None`).
pub(crate) fn working_bytes_of(
    layout: &Layout,
    metric: Metric,
    only: Option<&BTreeSet<usize>>,
) -> u64 {
    let mut widest = HashMap::new();
    for (i, s) in layout.slices.iter().enumerate() {
        if only.is_none_or(|o| o.contains(&i)) {
            *widest.entry(s.advance).or_insert(0u64) += 1;
        }
    }
    let at_once = widest.values().copied().max().unwrap_or(1);
    if uses_compact(layout, metric, COMPACT_ENTRIES) {
        return compact_bytes(layout);
    }
    at_once * slice_entry_bytes(metric) * layout.entries as u64
}

/// The working set of a solve in half a byte per position and side:
/// the codes; the values of a chunk made again from the spill (two
/// sides, twice while gathered: 32 MiB) and its frames being compressed
/// or a batch of records being spilled (32 MiB); and the sets of blocks
/// by level, of the resolved and of the failed checks (an eighth of a
/// byte per block, set and level, for up to 1,024 levels: KRN v KNN's
/// deepest DTZ under the 50-move rule is 485).
fn compact_bytes(layout: &Layout) -> u64 {
    let blocks = layout.entries.div_ceil(levels::BLOCK) as u64;
    layout.entries as u64 + (64 << 20) + blocks.div_ceil(8) * 2 * 1024
}

/// Bytes per entry (position, both sides) of a slice being solved: two
/// bytes per side of values; DTR, per side, keeps the values without a
/// rule it starts from (2), its state (8) and the result (2), all alive
/// at once while the result is made, and half a byte per entry marks
/// the changes; two more bytes per side are counted, which a bound on
/// the best DTR so far took until the state alone gave it (KRBvKR: 3.47
/// GB measured peak then, 3.39 GB by this count).
fn slice_entry_bytes(metric: Metric) -> u64 {
    if metric == Metric::Dtr {
        4 + 16 + 4 + 4
    } else {
        4
    }
}

/// The most memory a solve of `material` and its closure takes with every
/// table whole in memory (`Solver::memory_bound`) where it solves
/// only the members of the closure `solves` takes (the others are read
/// from the cache and held the same way), and the largest working set
/// among those.
pub(crate) fn whole_bound(
    material: &Material,
    metric: Metric,
    solves: &dyn Fn(&Material) -> bool,
) -> (u64, u64) {
    let target = material.normalized();
    let keeps = Keeps::of(metric);
    let mut kept = 0u64;
    let mut working = 0u64;
    for m in closure(material) {
        let layout = Layout::new(&m);
        if m != target || layout.has_pawns() {
            kept += Table::bytes(&layout, keeps);
        }
        if solves(&m) {
            working = working.max(working_bytes(&layout, metric));
        }
    }
    (kept + working + PROCESS_BYTES, working)
}

/// The values of the slice being solved when `m` is: the working set of
/// one step of a paged solve (a paged solve takes every material
/// without pawns in half a byte for DTZ).
pub(crate) fn slice_bytes(m: &Material, metric: Metric) -> u64 {
    let layout = Layout::new(m);
    if uses_compact(&layout, metric, 0) {
        return compact_bytes(&layout);
    }
    slice_entry_bytes(metric) * layout.entries as u64
}

/// The slice values of a paged step that solves (`solving`) or reads
/// `m`: none when it reads.
fn step_slice_bytes(m: &Material, metric: Metric, solving: bool) -> u64 {
    if solving {
        slice_bytes(m, metric)
    } else {
        0
    }
}

/// Bytes of the pages a paged step that solves (`solving`) or reads
/// `m` can read at once: the sides of its children that its captures
/// and promotions lead to (of a child with pawns, the slices one slice
/// leads to), and with pawns, one side of each slice a push leads to
/// (two per pawn, for the single and the double step; the slices
/// solved before are not read again). A step that reads
/// `m` counts it slice by slice from the file, not through pages.
pub(crate) fn readable_bytes(m: &Material, metric: Metric, solving: bool) -> u64 {
    if !solving {
        return 0;
    }
    let per_entry = if Keeps::of(metric) == Keeps::Classes {
        1
    } else {
        2
    };
    // As the exits read them: the mover's opponent is to move after
    // it, in a table stored with colours swapped the mover.
    let mut sides: BTreeMap<String, (Material, [bool; 2])> = BTreeMap::new();
    for (child, mover) in m.successors_by_mover() {
        if !child.has_table() {
            continue;
        }
        let to_move = if child.is_flipped_in_table() {
            mover
        } else {
            !mover
        };
        let read = &mut sides
            .entry(child.table_name())
            .or_insert((child.normalized(), [false; 2]))
            .1;
        read[usize::from(to_move == shakmaty::Color::Black)] = true;
    }
    let own = Layout::new(m);
    let pawns = own.white_pawns + own.black_pawns;
    let children = sides
        .values()
        .map(|(t, read)| {
            let read_sides = read.iter().filter(|r| **r).count() as u64;
            let child = Layout::new(t);
            // A capture or promotion keeps the other pawns, so one
            // slice leads to one slice of a child with pawns per
            // pawn taken, per pawn's capture (two ways) and for
            // the pieces' captures; a child without pawns is read
            // all over, in its kings' order, not ours.
            let slices = child.slices.len().min(3 * pawns + 1);
            read_sides * per_entry * (slices * child.entries) as u64
        })
        .fold(0, u64::saturating_add);
    let pushed = (2 * pawns).min(own.slices.len()) as u64;
    let own = if pawns > 0 {
        pushed * per_entry * own.entries as u64
    } else {
        0
    };
    children.saturating_add(own)
}

/// The least pages a paged solve of `m` is given
/// ([`pages::Pages::minimum_budget`] of the pages its exits read).
pub(crate) fn least_pages(m: &Material, metric: Metric) -> u64 {
    pages::Pages::minimum_budget(readable_bytes(m, metric, true))
}

/// The pages of the step that solves (`solving`) or reads `m` in a
/// paged solve within `limit` bytes: `Ok` what the step's slice (none
/// when it reads) leaves, up to room for every page it can read;
/// `Err` the least it is given, if what is left is less.
///
/// Up to every page, not a fixed share: the exits of a slice next to a
/// promotion read the promoted materials' pages in the order of their
/// own kings, not of those tables, so pages fewer than a table's
/// reached side are read again and again (KNNN v KP with 1 GiB of
/// pages: 91% of its time reading pages, its first slice unfinished
/// after 9 minutes).
pub(crate) fn step_pages(
    m: &Material,
    metric: Metric,
    limit: u64,
    solving: bool,
) -> std::result::Result<u64, u64> {
    let least = least_pages(m, metric);
    let most = pages::Pages::full_budget(readable_bytes(m, metric, solving)).max(least);
    // The pages and their slack fill what the slice leaves.
    let room = limit
        .checked_sub(PROCESS_BYTES + step_slice_bytes(m, metric, solving))
        .map(|r| (r - r / (PAGE_SLACK + 1)).min(most));
    match room {
        Some(r) if r >= least => Ok(r),
        _ => Err(least),
    }
}

/// The plan of a paged solve of `material` within `limit` bytes: each
/// step's pages fill what its slice leaves of the limit, so the bound
/// is at most the limit when every step has its least pages; if one
/// has not, the bound is the least that gives each step its least
/// pages (over the limit, and refused).
fn paged_plan(
    material: &Material,
    metric: Metric,
    limit: u64,
    solves: &dyn Fn(&Material) -> bool,
) -> MemoryPlan {
    let mut bytes = 0;
    let mut largest = 0;
    let mut working = 0;
    let mut fits = true;
    for m in &closure(material) {
        let solving = solves(m);
        let pages = step_pages(m, metric, limit, solving).unwrap_or_else(|least| {
            fits = false;
            least
        });
        let slice = step_slice_bytes(m, metric, solving);
        largest = largest.max(pages);
        working = working.max(slice);
        bytes = bytes.max(PROCESS_BYTES + slice + with_slack(pages));
    }
    MemoryPlan {
        bytes,
        pages: Some(largest),
        within: fits.then_some(limit),
        working,
    }
}

impl MemoryPlan {
    /// How a solve of `material` that solves the members of its closure
    /// `solves` takes (and reads the others from the cache) holds its
    /// tables within `limit` bytes (`None`: no limit), and the memory it
    /// then takes: whole, if that fits (the fastest) and takes at most
    /// [`WHOLE_MOST`]; else page by page, each step with the pages its
    /// slice leaves of the limit (at most [`WHOLE_MOST`]), up to every page
    /// it can read (see [`paged_plan`]).
    pub(crate) fn new(
        material: &Material,
        metric: Metric,
        limit: Option<u64>,
        solves: &dyn Fn(&Material) -> bool,
    ) -> MemoryPlan {
        let (whole, working) = whole_bound(material, metric, solves);
        // A solve holds its closure whole only up to `WHOLE_MOST`, whatever
        // the limit.
        let most = limit.map_or(WHOLE_MOST, |l| l.min(WHOLE_MOST));
        if whole > most {
            return paged_plan(material, metric, most, solves);
        }
        MemoryPlan {
            bytes: whole,
            pages: None,
            within: None,
            working,
        }
    }

    /// [`MemoryPlan::new`] paged whatever the limit, every step in `pages`
    /// bytes of pages.
    pub(crate) fn with_pages(
        material: &Material,
        metric: Metric,
        pages: u64,
        solves: &dyn Fn(&Material) -> bool,
    ) -> MemoryPlan {
        let slice = closure(material)
            .iter()
            .filter(|m| solves(m))
            .map(|m| slice_bytes(m, metric))
            .max()
            .unwrap_or(0);
        MemoryPlan {
            bytes: PROCESS_BYTES + slice + with_slack(pages),
            pages: Some(pages),
            within: None,
            working: slice,
        }
    }

    /// Every table whole, in at most `bytes` (a solve of some slices, see
    /// [`order_bound`]).
    pub(crate) fn whole(bytes: u64) -> MemoryPlan {
        MemoryPlan {
            bytes,
            pages: None,
            within: None,
            working: 0,
        }
    }

    /// The pages of the step that solves (`solving`) or reads `material`,
    /// where the plan gives each step its share of the limit: what its
    /// slice leaves, or its least pages (see [`step_pages`]). `None` where
    /// every step has the same pages (or none).
    pub(crate) fn step_budget(
        &self,
        material: &Material,
        metric: Metric,
        solving: bool,
    ) -> Option<u64> {
        let limit = self.within?;
        Some(step_pages(material, metric, limit, solving).unwrap_or_else(|least| least))
    }

    /// The memory a solve of `material` (of `layout`) takes where the plan
    /// reads it from the cache but has to solve it after all (its file
    /// damaged or gone since): its least paged step, or with whole tables,
    /// the plan's bound with its working set in place of the largest
    /// planned one.
    pub(crate) fn unplanned_bytes(
        &self,
        material: &Material,
        layout: &Layout,
        metric: Metric,
    ) -> u64 {
        match self.pages {
            Some(_) => {
                PROCESS_BYTES
                    + slice_bytes(material, metric)
                    + with_slack(least_pages(material, metric))
            }
            None => self.bytes - self.working + working_bytes(layout, metric),
        }
    }
}

/// The most memory a solve of the materials and slices of `order` (each
/// with the slices solved, `None`: all) takes at any step, its tables whole:
/// the tables still needed then, and the step's own working set (tables are
/// dropped once nothing left reads them); with the values of `captured`'s
/// slices kept as well, two bytes per entry and side.
pub(crate) fn order_bound(order: &[Step], metric: Metric, captured: Option<&Material>) -> u64 {
    let keeps_of = Keeps::of(metric);
    let table_bytes = |m: &Material, only: &Option<BTreeSet<usize>>| {
        let l = Layout::new(m);
        let slices = only.as_ref().map_or(l.slices.len(), BTreeSet::len);
        Table::bytes_of_slices(&l, keeps_of, slices)
    };
    let mut needed = 0u64;
    for (i, (m, only)) in order.iter().enumerate() {
        let wanted: std::collections::HashSet<String> = order[i..]
            .iter()
            .flat_map(|(m, _)| m.children())
            .map(|m| m.table_name())
            .collect();
        let alive: u64 = order[..i]
            .iter()
            .filter(|(m, _)| wanted.contains(&m.table_name()))
            .map(|(m, only)| table_bytes(m, only))
            .sum();
        let mut working =
            table_bytes(m, only) + working_bytes_of(&Layout::new(m), metric, only.as_ref());
        if captured == Some(m) {
            // The values kept: two per entry and side.
            let slices = only.as_ref().map_or(0, BTreeSet::len) as u64;
            working += slices * Layout::new(m).entries as u64 * 4;
        }
        needed = needed.max(alive + working + PROCESS_BYTES);
    }
    needed
}
