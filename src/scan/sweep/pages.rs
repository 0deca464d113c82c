//! Pages of the closure tables' values, for a sweep whose closure does not
//! fit its memory whole: each page is a fixed range of one table's indices
//! for one side to move, decoded from the file when a look-up first needs
//! it, and dropped once the budget is full: the oldest page not used since
//! it was last passed over (a second chance, as a clock).
//!
//! A page holds the values as [`super::wdl`] keeps them (stored, or
//! resolved with the captures and flagged so). A dropped page loses its
//! resolutions; decoding it again and resolving again gives the same
//! values, so what is evicted, and when, never changes a result.

use std::{
    cell::RefCell,
    collections::{HashMap, VecDeque},
    sync::{
        atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering},
        Arc, Mutex, PoisonError,
    },
};

use crate::error::Result;

/// Indices per page.
pub(crate) const PAGE_LEN: u64 = 1 << 16;

/// Locks are split this many ways, so that threads rarely wait for each
/// other.
const SHARDS: usize = 64;

/// The least budget worth paging with: a few pages for each shard.
pub(crate) const MIN_PAGE_BYTES: u64 = 64 << 20;

/// The most a sweep gives its pages: beyond this, more pages save little
/// decoding (the captures of neighbouring positions reach neighbouring
/// indices).
pub(crate) const MAX_PAGE_BYTES: u64 = 1 << 30;

/// One page's values.
pub(crate) type Page = Arc<[AtomicU8]>;

/// How one of the scanned table's own arrays is read page by page where
/// the plan says so (its stored DTZ, pass 1's WDL values): the pages'
/// budget, and indices per page ([`PAGE_LEN`]; tests take smaller pages,
/// so that they are dropped and decoded again all the time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Paging {
    /// The pages' budget in bytes (a byte per index).
    pub(crate) bytes: u64,
    /// Indices per page, rounded down to a power of two where paged.
    pub(crate) page_len: u64,
}

impl Paging {
    /// Pages of [`PAGE_LEN`] indices within `bytes`.
    pub(crate) fn new(bytes: u64) -> Paging {
        Paging {
            bytes,
            page_len: PAGE_LEN,
        }
    }

    /// The pages, and their length's exponent: a power of two, so that
    /// finding an index's page is a shift, not a division (the count and
    /// pass 1 look one up per index).
    pub(crate) fn pages(self) -> (ValuePages, u32) {
        let shift = self.page_len.max(1).ilog2();
        (ValuePages::with_page_len(self.bytes, 1 << shift), shift)
    }
}

/// Which page: the table (its number in the closure), the side to move (0
/// or 1) and the page number.
type Key = (u32, u8, u64);

#[derive(Default)]
struct Shard {
    /// Each page, and whether a look-up used it since it came in or was
    /// last passed over.
    pages: HashMap<Key, (Page, AtomicBool)>,
    /// The keys in the order their pages came in or were passed over.
    order: VecDeque<Key>,
}

/// The pages of every paged table of one sweep, within one budget.
pub(crate) struct ValuePages {
    shards: Vec<Mutex<Shard>>,
    /// Pages each shard may hold.
    per_shard: usize,
    /// This set's number among all the sets of the process, so that a
    /// thread's last page (see [`ValuePages::with_page`]) is never taken
    /// for a page of another set.
    id: u64,
}

/// The number the next [`ValuePages`] takes.
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// The page a thread last read through [`ValuePages::with_page`]: its
    /// set's id, its key, and the page.
    static LAST_PAGE: RefCell<Option<(u64, Key, Page)>> = const { RefCell::new(None) };
}

impl ValuePages {
    /// Pages of [`PAGE_LEN`] values within `budget` bytes (at least one
    /// page per shard).
    pub(crate) fn new(budget: u64) -> ValuePages {
        ValuePages::with_page_len(budget, PAGE_LEN)
    }

    /// Pages of `page_len` values each within `budget` bytes (at least one
    /// page per shard).
    pub(crate) fn with_page_len(budget: u64, page_len: u64) -> ValuePages {
        let pages = budget / page_len.max(1);
        ValuePages {
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            per_shard: (pages / SHARDS as u64).max(1) as usize,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// `f` of the page `page` of `table`'s values for `side`, as
    /// [`ValuePages::page`] gives it, but first from the page this thread
    /// last read: a run of look-ups in one page then takes neither a lock
    /// nor a reference count (which two threads reading one page would
    /// otherwise pass between their caches). That page stays alive while
    /// the thread holds it, evicted or not: one page per thread over the
    /// budget at most.
    ///
    /// # Errors
    ///
    /// Those of `decode`.
    pub(crate) fn with_page<R>(
        &self,
        table: u32,
        side: u8,
        page: u64,
        decode: impl FnOnce() -> Result<Vec<u8>>,
        f: impl FnOnce(&[AtomicU8]) -> R,
    ) -> Result<R> {
        let key = (table, side, page);
        LAST_PAGE.with(|last| {
            if let Some((id, held, values)) = &*last.borrow() {
                if *id == self.id && *held == key {
                    return Ok(f(values));
                }
            }
            // Not borrowed while decoding, which may read other pages.
            let values = self.page(table, side, page, decode)?;
            let out = f(&values);
            *last.borrow_mut() = Some((self.id, key, values));
            Ok(out)
        })
    }

    /// The page `page` of `table`'s values for `side`, decoded by `decode`
    /// (into a vector of the page's length) if it is not held.
    ///
    /// # Errors
    ///
    /// Those of `decode`.
    pub(crate) fn page(
        &self,
        table: u32,
        side: u8,
        page: u64,
        decode: impl FnOnce() -> Result<Vec<u8>>,
    ) -> Result<Page> {
        let key = (table, side, page);
        let shard = &self.shards[Self::shard_of(key)];
        if let Some((held, used)) = shard
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pages
            .get(&key)
        {
            used.store(true, Ordering::Relaxed);
            return Ok(held.clone());
        }
        // Decoded without the lock: another thread may decode the same
        // page meanwhile; the first to come back keeps its copy.
        let fresh: Page = decode()?.into_iter().map(AtomicU8::new).collect();
        let mut held = shard.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((other, _)) = held.pages.get(&key) {
            return Ok(other.clone());
        }
        // Each page passed over loses its mark, so this ends within two
        // rounds of the shard.
        while held.order.len() >= self.per_shard {
            let Some(old) = held.order.pop_front() else {
                break;
            };
            let used = held
                .pages
                .get(&old)
                .is_some_and(|(_, used)| used.swap(false, Ordering::Relaxed));
            if used {
                held.order.push_back(old);
            } else {
                held.pages.remove(&old);
            }
        }
        held.order.push_back(key);
        held.pages
            .insert(key, (fresh.clone(), AtomicBool::new(false)));
        Ok(fresh)
    }

    fn shard_of((table, side, page): Key) -> usize {
        // Neighbouring pages land in different shards.
        let h = page
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .wrapping_add(u64::from(table) << 1 | u64::from(side));
        (h >> 32) as usize % SHARDS
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use super::*;

    /// A page past the budget evicts the oldest of its shard not used since
    /// it came in; asking for it again decodes it again, and the values
    /// written to a held page are seen by the next look-up.
    #[test]
    fn pages_are_kept_within_the_budget_and_decoded_again_after_eviction() {
        let pages = ValuePages::new(0);
        assert_eq!(pages.per_shard, 1);
        let mut decodes = 0;
        let get = |page: u64, decodes: &mut i32| {
            pages
                .page(0, 0, page, || {
                    *decodes += 1;
                    Ok(vec![page as u8; 4])
                })
                .unwrap()
        };
        let first = get(7, &mut decodes);
        first[1].store(99, Ordering::Relaxed);
        assert_eq!(get(7, &mut decodes)[1].load(Ordering::Relaxed), 99);
        assert_eq!(decodes, 1);
        // A page of the same shard replaces it.
        let rival = (8..10_000)
            .find(|&p| ValuePages::shard_of((0, 0, p)) == ValuePages::shard_of((0, 0, 7)))
            .unwrap();
        assert_eq!(
            get(rival, &mut decodes)[0].load(Ordering::Relaxed),
            rival as u8
        );
        let again = get(7, &mut decodes);
        assert_eq!(decodes, 3);
        assert_eq!(again[1].load(Ordering::Relaxed), 7);
    }

    /// A thread's run of look-ups in one page decodes it once and sees
    /// its values; another set's page of the same key is never taken for
    /// it.
    #[test]
    fn a_threads_last_page_serves_its_next_look_up_of_that_set_only() {
        let (one, two) = (ValuePages::new(0), ValuePages::new(0));
        let decodes = std::sync::atomic::AtomicUsize::new(0);
        let read = |pages: &ValuePages, fill: u8| {
            pages
                .with_page(
                    0,
                    0,
                    3,
                    || {
                        decodes.fetch_add(1, Ordering::Relaxed);
                        Ok(vec![fill; 4])
                    },
                    |values| values[2].load(Ordering::Relaxed),
                )
                .unwrap()
        };
        assert_eq!(read(&one, 5), 5);
        assert_eq!(read(&one, 6), 5);
        assert_eq!(decodes.load(Ordering::Relaxed), 1);
        assert_eq!(read(&two, 7), 7);
        assert_eq!(decodes.load(Ordering::Relaxed), 2);
        // A decode may read another page through the same thread's cache.
        let nested = one
            .with_page(
                0,
                1,
                9,
                || Ok(vec![read(&two, 8); 4]),
                |values| values[0].load(Ordering::Relaxed),
            )
            .unwrap();
        assert_eq!(nested, 7, "page 3 of the second set, held");
    }

    /// With two pages a shard, a page used since it came in survives the
    /// next page's arrival; the older one not used goes.
    #[test]
    fn a_used_page_gets_a_second_chance() {
        let pages = ValuePages::new(2 * SHARDS as u64 * PAGE_LEN);
        assert_eq!(pages.per_shard, 2);
        let same: Vec<u64> = (0..100_000)
            .filter(|&p| ValuePages::shard_of((0, 0, p)) == ValuePages::shard_of((0, 0, 0)))
            .take(3)
            .collect();
        let decodes = std::sync::atomic::AtomicUsize::new(0);
        let get = |page: u64| {
            pages
                .page(0, 0, page, || {
                    decodes.fetch_add(1, Ordering::Relaxed);
                    Ok(vec![0; 4])
                })
                .unwrap();
        };
        get(same[0]);
        get(same[1]);
        get(same[0]); // used: marked
        get(same[2]); // evicts same[1], the oldest not used
        assert_eq!(decodes.load(Ordering::Relaxed), 3);
        get(same[0]);
        assert_eq!(decodes.load(Ordering::Relaxed), 3);
        get(same[1]);
        assert_eq!(decodes.load(Ordering::Relaxed), 4);
    }
}
