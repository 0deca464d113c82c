//! A sweep's memory under a limit: what the scanned table takes (fixed),
//! and how the closure is held: each table whole while they fit, the
//! others page by page within one budget ([`super::pages`]).

use serde::Serialize;

use super::pages::{MAX_PAGE_BYTES, MIN_PAGE_BYTES};

/// What a sweep of one material takes under a memory limit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SweepMemoryPlan {
    /// The most memory the sweep takes, in bytes, as planned. Where it
    /// does not fit the limit, the least plan: the closure paged with the
    /// smallest budget, or whole where that takes less.
    pub bytes: u64,
    /// The most memory with every table of the closure decoded whole.
    pub whole_bytes: u64,
    /// The budget of the closure's pages (0: none is paged).
    pub page_bytes: u64,
    /// The tables of the closure read page by page, smallest first.
    pub paged_tables: Vec<String>,
    /// Whether `bytes` is within the limit (always, without a limit).
    pub within: bool,
}

/// What one table of a sweep's closure takes.
#[derive(Debug, Clone)]
pub(crate) struct TableCost {
    /// Its name (`KRvKP`).
    pub(crate) name: String,
    /// Its values decoded whole (1 byte per index and side).
    pub(crate) values: u64,
    /// Its parsed headers, held whole or paged.
    pub(crate) headers: u64,
}

/// Plans a sweep whose scanned table takes `own` bytes and whose closure
/// tables take `closure`, within `limit`: the plan, and per closure table
/// whether it is held whole.
///
/// Whole when everything fits. Else the smallest tables are held whole
/// while a page budget of at least [`MIN_PAGE_BYTES`] still fits beside
/// them, and the others are paged within what is left (at most
/// [`MAX_PAGE_BYTES`]). Captures reach the smaller tables from every
/// position; promotions the larger ones, from few.
pub(crate) fn plan_memory(
    own: u64,
    closure: &[TableCost],
    limit: Option<u64>,
) -> (SweepMemoryPlan, Vec<bool>) {
    let own = closure
        .iter()
        .fold(own, |acc, t| acc.saturating_add(t.headers));
    let whole_bytes = closure
        .iter()
        .fold(own, |acc, t| acc.saturating_add(t.values));
    let all_whole = vec![true; closure.len()];
    let limit = match limit {
        Some(limit) if whole_bytes > limit => limit,
        _ => {
            let plan = SweepMemoryPlan {
                bytes: whole_bytes,
                whole_bytes,
                page_bytes: 0,
                paged_tables: Vec::new(),
                within: true,
            };
            return (plan, all_whole);
        }
    };
    let room = limit.saturating_sub(own);
    let mut order: Vec<usize> = (0..closure.len()).collect();
    order.sort_by_key(|&k| (closure[k].values, k));
    let mut whole = vec![false; closure.len()];
    let mut held = 0u64;
    for &k in &order {
        let bytes = closure[k].values;
        if held + bytes + MIN_PAGE_BYTES <= room {
            whole[k] = true;
            held += bytes;
        }
    }
    let page_bytes = room
        .saturating_sub(held)
        .clamp(MIN_PAGE_BYTES, MAX_PAGE_BYTES);
    let bytes = own.saturating_add(held).saturating_add(page_bytes);
    if bytes >= whole_bytes {
        // Paging would not save memory (a small closure): the least plan
        // is the whole one, over the limit.
        let plan = SweepMemoryPlan {
            bytes: whole_bytes,
            whole_bytes,
            page_bytes: 0,
            paged_tables: Vec::new(),
            within: false,
        };
        return (plan, all_whole);
    }
    let plan = SweepMemoryPlan {
        bytes,
        whole_bytes,
        page_bytes,
        paged_tables: order
            .iter()
            .filter(|&&k| !whole[k])
            .map(|&k| closure[k].name.clone())
            .collect(),
        within: bytes <= limit,
    };
    (plan, whole)
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: u64 = 1 << 20;

    /// Tables of 500, 100 and 300 M, without headers.
    fn tables() -> Vec<TableCost> {
        costs(&[("A", 500 * M), ("B", 100 * M), ("C", 300 * M)])
    }

    fn costs(tables: &[(&str, u64)]) -> Vec<TableCost> {
        tables
            .iter()
            .map(|&(name, values)| TableCost {
                name: name.to_owned(),
                values,
                headers: 0,
            })
            .collect()
    }

    #[test]
    fn headers_count_whether_a_table_is_whole_or_paged() {
        let mut closure = tables();
        closure[0].headers = 10 * M;
        let (plan, _) = plan_memory(100 * M, &closure, None);
        assert_eq!(plan.bytes, 1010 * M);
        // As below, with the 10 M of A's headers beside the pages.
        let (plan, whole) = plan_memory(100 * M, &closure, Some(910 * M));
        assert_eq!(whole, [false, true, true]);
        assert_eq!((plan.page_bytes, plan.bytes), (400 * M, 910 * M));
    }

    #[test]
    fn everything_is_whole_when_it_fits_or_without_a_limit() {
        for limit in [None, Some(1000 * M), Some(2000 * M)] {
            let (plan, whole) = plan_memory(100 * M, &tables(), limit);
            assert_eq!(plan.bytes, 1000 * M);
            assert_eq!(plan.whole_bytes, 1000 * M);
            assert_eq!((plan.page_bytes, plan.within), (0, true));
            assert!(plan.paged_tables.is_empty());
            assert_eq!(whole, [true; 3]);
        }
    }

    #[test]
    fn the_smallest_tables_stay_whole_beside_the_least_page_budget() {
        // Room 800 M beside the 100 M of the scanned table: B and C whole
        // (400 M) and 400 M of pages.
        let (plan, whole) = plan_memory(100 * M, &tables(), Some(900 * M));
        assert_eq!(whole, [false, true, true]);
        assert_eq!(plan.paged_tables, ["A"]);
        assert_eq!(plan.page_bytes, 400 * M);
        assert_eq!(plan.bytes, 900 * M);
        assert!(plan.within);
        // Room 420 M: C does not fit beside B and 64 M of pages.
        let (plan, whole) = plan_memory(100 * M, &tables(), Some(520 * M));
        assert_eq!(whole, [false, true, false]);
        assert_eq!(plan.paged_tables, ["C", "A"]);
        assert_eq!(plan.page_bytes, 320 * M);
    }

    #[test]
    fn a_closure_smaller_than_the_least_page_budget_is_never_paged() {
        let small = costs(&[("A", M), ("B", 2 * M)]);
        let (plan, whole) = plan_memory(100 * M, &small, Some(101 * M));
        assert_eq!(whole, [true; 2]);
        assert_eq!(
            (plan.bytes, plan.page_bytes, plan.within),
            (103 * M, 0, false)
        );
        assert!(plan.paged_tables.is_empty());
    }

    #[test]
    fn below_the_least_plan_the_least_plan_is_given_and_refused() {
        let (plan, whole) = plan_memory(100 * M, &tables(), Some(150 * M));
        assert_eq!(whole, [false; 3]);
        assert_eq!(plan.page_bytes, MIN_PAGE_BYTES);
        assert_eq!(plan.bytes, 100 * M + MIN_PAGE_BYTES);
        assert!(!plan.within);
    }
}
