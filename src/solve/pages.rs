//! Solved tables read page by page from their files, for a solve whose
//! tables do not all fit in memory at once.
//!
//! A page is one frame of a solve file (up to 2^20 entries of one slice and
//! side, see `cache`), held in the form the table keeps: one byte per
//! position for classes, two for depths. One budget of bytes bounds all the
//! pages of a run, whatever table they belong to; past it, the page read
//! longest ago without use since goes first (the "clock" rule).
//!
//! The exits of a slice read most pages nearly in order (a pawn push keeps
//! every other piece, so the entry of the position after it is the entry
//! before it, in another slice; a capture or promotion keeps the kings,
//! which lead the index), so a few pages per thread serve most reads. Not
//! so a material without pawns that a promotion or the capture of the last
//! pawn leads to: its king pairs are ordered by symmetry, not as ours, so
//! its reached side is read all over, and a solve plans room for all of it
//! (`Solver::readable_bytes`). Each thread keeps the last few pages it
//! read, so that a read takes no lock; those are counted in the budget
//! ([`Pages::held_per_thread`]).

use std::{
    cell::RefCell,
    collections::HashMap,
    sync::{
        atomic::{AtomicBool, AtomicU64, Ordering::Relaxed},
        Arc, Mutex,
    },
};

use super::cache_error::CacheError;

/// One page: the values of one frame in the table's kept form.
pub(crate) enum Page {
    /// One class code per position (see `table`).
    Classes(Vec<u8>),
    /// The two-byte values.
    Values(Vec<u16>),
}

impl Page {
    fn bytes(&self) -> usize {
        match self {
            Page::Classes(v) => v.len(),
            Page::Values(v) => 2 * v.len(),
        }
    }
}

/// Where a paged table's frames come from: a finished solve file, or one
/// being written (the slices of the material in progress that its pawn
/// pushes read).
pub(crate) trait FrameSource: Send + Sync {
    /// Page `i` (frames by slice, then side, then part): `convert` makes it
    /// from the frame's bytes, two per value, little-endian.
    ///
    /// # Errors
    ///
    /// The frame cannot be read, or fails its checks.
    fn page(&self, i: usize, convert: &mut dyn FnMut(&[u8]) -> Page) -> Result<Page, CacheError>;
    /// Entries per frame.
    fn frame_entries(&self) -> usize;
    /// Frames per slice and side.
    fn parts(&self) -> usize;
    /// The file, for messages.
    fn path(&self) -> std::path::PathBuf;
}

/// The most bytes one page takes: a frame of two-byte values.
pub(crate) const MAX_PAGE_BYTES: u64 = 2 << 20;

/// Pages each thread keeps for itself.
const THREAD_PAGES: usize = 4;

/// The shared pages a paged solve is given at the least (unless the tables
/// it reads take less): a frame of each of the tables one position's exits
/// read, many times over.
pub(crate) const SHARED_FLOOR: u64 = 64 << 20;

/// A page in the shared set, with its clock bit.
struct Held {
    page: Arc<Page>,
    used: AtomicBool,
}

struct State {
    /// Bytes the shared pages may take.
    capacity: usize,
    pages: HashMap<(u64, usize), Held>,
    /// The clock's order of pages.
    ring: std::collections::VecDeque<(u64, usize)>,
    bytes: usize,
}

/// The pages of one run, within one budget (which may change from one
/// material to the next: [`Pages::set_budget`]).
pub(crate) struct Pages {
    state: Mutex<State>,
}

/// Numbers tables apart in the pages and the threads' own pages: never
/// reused, so that a thread's page of a dropped table never passes for a
/// page of another.
static NEXT_TABLE: AtomicU64 = AtomicU64::new(1);

/// A number for a new paged table.
pub(crate) fn new_table_id() -> u64 {
    NEXT_TABLE.fetch_add(1, Relaxed)
}

/// A page by table and frame.
type Keyed = ((u64, usize), Arc<Page>);

thread_local! {
    /// The pages this thread read last, newest first.
    static RECENT: RefCell<Vec<Keyed>> = const { RefCell::new(Vec::new()) };
}

impl State {
    /// Drops pages until `size` more bytes fit the capacity (or none is
    /// left), by the clock: a page used since the hand last passed it gets
    /// another round.
    fn make_room(&mut self, size: usize) {
        while self.bytes + size > self.capacity {
            let Some(k) = self.ring.pop_front() else {
                break;
            };
            let second_chance = self
                .pages
                .get(&k)
                .is_some_and(|h| h.used.swap(false, Relaxed));
            if second_chance {
                self.ring.push_back(k);
            } else if let Some(h) = self.pages.remove(&k) {
                self.bytes -= h.page.bytes();
            }
        }
    }
}

impl Pages {
    /// Pages within `budget` bytes, the threads' own included.
    pub(crate) fn new(budget: u64) -> Pages {
        let pages = Pages {
            state: Mutex::new(State {
                capacity: 0,
                pages: HashMap::new(),
                ring: std::collections::VecDeque::new(),
                bytes: 0,
            }),
        };
        pages.set_budget(budget);
        pages
    }

    /// Keeps the pages within `budget` bytes from now on, the threads' own
    /// included, dropping pages at once if they take more.
    pub(crate) fn set_budget(&self, budget: u64) {
        let threads = rayon::current_num_threads() as u64;
        let shared = budget.saturating_sub(Self::held_per_thread() * threads);
        let mut st = self.state.lock().expect("no panic while held");
        st.capacity = usize::try_from(shared).unwrap_or(usize::MAX);
        st.make_room(0);
    }

    /// Bytes each thread may hold besides the shared pages: its own pages,
    /// and the buffers it reads frames through (the compressed bytes and
    /// the decompressed ones, at most a page's worth each).
    pub(crate) fn held_per_thread() -> u64 {
        (THREAD_PAGES as u64 + 2) * MAX_PAGE_BYTES
    }

    /// The smallest budget a paged solve is planned with, for a material
    /// whose exits read tables of `read` bytes in all (as pages): the
    /// threads' own pages and room for those tables, or for
    /// [`SHARED_FLOOR`] bytes of them if they are larger. Any budget gives
    /// the same values (a page dropped is read again); this one keeps the
    /// re-reads few, since the exits of one position read several tables.
    pub(crate) fn minimum_budget(read: u64) -> u64 {
        let threads = rayon::current_num_threads() as u64;
        Self::held_per_thread() * threads + read.min(SHARED_FLOOR)
    }

    /// The budget that holds every page of tables of `read` bytes in all
    /// (as pages), the threads' own pages besides: more is never used.
    pub(crate) fn full_budget(read: u64) -> u64 {
        let threads = rayon::current_num_threads() as u64;
        (Self::held_per_thread() * threads).saturating_add(read)
    }

    /// Page `frame` of table `table`, read with `read` if no one holds it.
    ///
    /// # Errors
    ///
    /// What `read` returns.
    pub(crate) fn get(
        &self,
        table: u64,
        frame: usize,
        read: impl FnOnce() -> Result<Page, CacheError>,
    ) -> Result<Arc<Page>, CacheError> {
        let key = (table, frame);
        if let Some(p) = RECENT.with(|r| {
            let mut r = r.borrow_mut();
            let at = r.iter().position(|(k, _)| *k == key)?;
            let hit = r.remove(at);
            let page = hit.1.clone();
            r.insert(0, hit);
            Some(page)
        }) {
            return Ok(p);
        }
        let page = self.shared(key, read)?;
        RECENT.with(|r| {
            let mut r = r.borrow_mut();
            r.insert(0, (key, page.clone()));
            r.truncate(THREAD_PAGES);
        });
        Ok(page)
    }

    fn shared(
        &self,
        key: (u64, usize),
        read: impl FnOnce() -> Result<Page, CacheError>,
    ) -> Result<Arc<Page>, CacheError> {
        if let Some(h) = self
            .state
            .lock()
            .expect("no panic while held")
            .pages
            .get(&key)
        {
            h.used.store(true, Relaxed);
            return Ok(h.page.clone());
        }
        // Read without the lock: other threads go on meanwhile (two may read
        // the same page; the second keeps the first's).
        let page = Arc::new(read()?);
        let mut st = self.state.lock().expect("no panic while held");
        if let Some(h) = st.pages.get(&key) {
            return Ok(h.page.clone());
        }
        let size = page.bytes();
        st.make_room(size);
        // A page larger than the whole budget is still returned, not kept.
        if st.bytes + size <= st.capacity {
            st.bytes += size;
            st.ring.push_back(key);
            st.pages.insert(
                key,
                Held {
                    page: page.clone(),
                    used: AtomicBool::new(false),
                },
            );
        }
        Ok(page)
    }

    /// Drops the pages of `table` (a table no longer read).
    pub(crate) fn forget(&self, table: u64) {
        let mut st = self.state.lock().expect("no panic while held");
        let st = &mut *st;
        st.ring.retain(|k| k.0 != table);
        let mut freed = 0;
        st.pages.retain(|k, h| {
            let keep = k.0 != table;
            if !keep {
                freed += h.page.bytes();
            }
            keep
        });
        st.bytes -= freed;
    }

    /// Bytes of shared pages held now (for tests).
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.state.lock().expect("no panic while held").bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(n: usize, x: u8) -> Result<Page, CacheError> {
        Ok(Page::Classes(vec![x; n]))
    }

    #[test]
    fn the_budget_bounds_the_shared_pages() {
        let pages = Pages::new(Pages::minimum_budget(u64::MAX));
        let cap = pages.state.lock().unwrap().capacity;
        let size = 1 << 20;
        for f in 0..(3 * cap / size) {
            let p = pages.get(7, f, || page(size, f as u8)).unwrap();
            assert!(matches!(&*p, Page::Classes(v) if v[0] == f as u8));
            assert!(pages.held() <= cap, "{} > {cap}", pages.held());
        }
        assert!(pages.held() > 0);
        pages.set_budget(Pages::minimum_budget(4 << 20));
        assert!(pages.held() <= 4 << 20, "{}", pages.held());
        pages.forget(7);
        assert_eq!(pages.held(), 0);
    }

    #[test]
    fn a_page_is_read_once_while_held() {
        let pages = Pages::new(Pages::minimum_budget(u64::MAX));
        let reads = std::sync::atomic::AtomicUsize::new(0);
        for _ in 0..10 {
            for f in 0..3 {
                pages
                    .get(9, f, || {
                        reads.fetch_add(1, Relaxed);
                        page(16, 1)
                    })
                    .unwrap();
            }
        }
        assert_eq!(reads.load(Relaxed), 3);
    }

    #[test]
    fn a_failed_read_is_returned() {
        let pages = Pages::new(Pages::minimum_budget(u64::MAX));
        let got = pages.get(11, 0, || Err(CacheError::Damaged("bad frame".into())));
        assert!(matches!(got, Err(CacheError::Damaged(w)) if w == "bad frame"));
    }
}
