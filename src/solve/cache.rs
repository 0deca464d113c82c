//! Solved materials on disk, so that a second solve, a probe or a line
//! reuses them.
//!
//! One file per material, rule, metric and build:
//! `<dir>/<TABLE>.rule-<N|none>.<metric>.b<BUILD_ID>.fms`, where the build
//! id is the hash of the sources ([`crate::build_id`]): a file made by
//! other code is never read. It holds the
//! two-byte values of every position, both sides, in zstd frames of up to
//! 2^20 entries that never span two slices (so that slices can be written as
//! they are solved, and a probe reads one frame); then a JSON header that
//! names what the file holds and where each frame is; then a footer with the
//! header's place and a magic number.
//!
//! Files are written under another name, synced, then renamed: a reader
//! (another process, another node of a cluster) sees a whole file or none.
//! That name is `.<file>.partial`, with a journal of the slices written
//! (`.<file>.journal`), so that a solve interrupted in the middle of a
//! material is taken up where it stopped (see [`Cache::writer`]).
//! On reading, everything is checked: the footer and header, that they name
//! the material, rule, metric, build and sizes asked for, that frames lie
//! in the file, and each frame's zstd content checksum and length when it is
//! read. A file that fails any check is never used; the solve is made again
//! and the file replaced.

use std::{
    collections::{BTreeSet, HashMap},
    fs::{self, File},
    io::{self, Write},
    os::unix::fs::FileExt,
    path::{Path, PathBuf},
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, Mutex,
    },
};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{
    cache_error::CacheError,
    checkpoint::{self, Checkpoint},
    layout::Layout,
    pages::{FrameSource, Page},
    value::SliceValues,
};
use crate::{
    build_id::{self, CachedFile, NameParts, BUILD_ID},
    chess::rule::{Metric, Rule},
};

const MAGIC: &[u8; 8] = b"FMSOLVE1";
const FOOTER: usize = 8 + 8 + 8;
/// Entries per frame at most.
const FRAME: usize = 1 << 20;
/// zstd level: fast, and the values compress well at any level.
const LEVEL: i32 = 3;

/// What a cache file holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Header {
    build: String,
    material: String,
    rule: Rule,
    metric: Metric,
    entries_per_slice: usize,
    slices: usize,
    frame_entries: usize,
    /// `(offset, length)` of each frame, by slice, then side, then part.
    frames: Vec<(u64, u64)>,
}

impl Header {
    /// The header of this build's solve of `layout` under `rule` and
    /// `metric`, with `frames`: what a writer starts from, and what a file
    /// read back must hold to be used.
    fn of(layout: &Layout, rule: Rule, metric: Metric, frames: Vec<(u64, u64)>) -> Header {
        Header {
            build: BUILD_ID.to_owned(),
            material: layout.material.table_name(),
            rule,
            metric,
            entries_per_slice: layout.entries,
            slices: layout.slices.len(),
            frame_entries: frame_entries(layout),
            frames,
        }
    }
}

impl Header {
    /// The values frame `i` holds (frames by slice, then side, then
    /// `parts` parts; the last part of a slice may be short).
    fn frame_values(&self, i: usize, parts: usize) -> usize {
        let fe = self.frame_entries;
        fe.min(self.entries_per_slice - (i % parts) * fe)
    }

    /// Both sides' values of slice `slice`, each frame read by `frame`
    /// straight into its place: frames gathered first and then joined
    /// would hold a side twice (7.6 GB more for KRN v KNN, past the memory
    /// bound).
    fn slice(
        &self,
        parts: usize,
        slice: usize,
        frame: impl Fn(usize) -> Result<Vec<u16>, CacheError> + Sync,
    ) -> Result<SliceValues, CacheError> {
        let mut out: SliceValues = [Vec::new(), Vec::new()];
        for (side, values) in out.iter_mut().enumerate() {
            *values = vec![0; self.entries_per_slice];
            values
                .par_chunks_mut(self.frame_entries)
                .enumerate()
                .try_for_each(|(p, chunk)| {
                    chunk.copy_from_slice(&frame((slice * 2 + side) * parts + p)?);
                    Ok::<(), CacheError>(())
                })?;
        }
        Ok(out)
    }
}

/// The directory of solved materials.
#[derive(Clone, Debug)]
pub struct Cache {
    dir: PathBuf,
}

fn frame_entries(layout: &Layout) -> usize {
    layout.entries.min(FRAME)
}

fn parts(layout: &Layout) -> usize {
    layout.entries.div_ceil(frame_entries(layout))
}

impl Cache {
    /// The cache in `dir` (made when first written).
    pub fn new(dir: impl Into<PathBuf>) -> Cache {
        Cache { dir: dir.into() }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The name of the file of one solve by this build, in any cache.
    pub fn file_name(table: &str, rule: Rule, metric: Metric) -> String {
        format!("{table}.rule-{rule}.{}.b{BUILD_ID}.fms", metric.as_str())
    }

    /// The file of one solve.
    pub(crate) fn path(&self, table: &str, rule: Rule, metric: Metric) -> PathBuf {
        self.dir.join(Cache::file_name(table, rule, metric))
    }

    /// Every file of this cache, of every build: finished solves, and the
    /// partial files, journals and checkpoints of solves in progress. A
    /// missing directory holds none.
    ///
    /// # Errors
    ///
    /// The directory cannot be listed.
    pub fn files(&self) -> io::Result<Vec<CachedFile>> {
        build_id::list_files(&self.dir, |name| {
            // An interrupted solve's file, journal and checkpoints are named
            // after the file it makes: `.<file>.partial`, `.<file>.journal`,
            // `.<file>.<slice>.checkpoint`.
            let in_progress = name.strip_prefix('.').and_then(|n| {
                n.strip_suffix(PARTIAL)
                    .or_else(|| n.strip_suffix(JOURNAL))
                    .or_else(|| checkpoint::file_of_checkpoint(n))
            });
            let (stem, build) = build_id::split_build_tag(in_progress.unwrap_or(name), "fms")?;
            // `<TABLE>.rule-<N|none>.<metric>`
            let mut parts = stem.split('.');
            match (parts.next(), parts.next(), parts.next(), parts.next()) {
                (Some(table), Some(rule), Some(metric), None)
                    if build_id::is_material_name(table) && rule.starts_with("rule-") =>
                {
                    Some(NameParts {
                        material: table.to_owned(),
                        what: format!("{rule} {metric}"),
                        build,
                        partial: in_progress.is_some(),
                    })
                }
                _ => None,
            }
        })
    }

    /// Removes the temporary files of writers whose process is gone: a
    /// solve killed (SIGKILL, or Ctrl-C without a handler) runs no `Drop`,
    /// so its `.tmp` file would stay in the cache for ever. A temporary
    /// file names its process (`.<file>.<pid>.<n>.tmp`); one whose process
    /// is alive, or whose liveness cannot be told (no `/proc`), is left.
    fn remove_stale_temporaries(&self) {
        let proc_dir = Path::new("/proc");
        if !proc_dir.join("self").exists() {
            return;
        }
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let Some(stem) = name.strip_prefix('.').and_then(|n| n.strip_suffix(".tmp")) else {
                continue;
            };
            let mut fields = stem.rsplit('.');
            let (Some(_n), Some(pid)) = (fields.next(), fields.next()) else {
                continue;
            };
            if pid.parse::<u32>().is_ok() && !proc_dir.join(pid).exists() {
                let _ = fs::remove_file(entry.path());
            }
        }
    }

    /// A writer for the solve of `layout`'s material. It writes to
    /// `.<file>.partial` and notes each slice written in `.<file>.journal`,
    /// so that a solve interrupted (killed, or failed) leaves what it had
    /// done, and the next writer of the same file goes on from there
    /// ([`CacheWriter::resumed`]). While one process writes a partial file
    /// it holds a lock on it; a second writer of the same file then writes
    /// a temporary file of its own, from the start.
    pub(crate) fn writer(
        &self,
        layout: &Layout,
        rule: Rule,
        metric: Metric,
    ) -> io::Result<CacheWriter> {
        fs::create_dir_all(&self.dir)?;
        self.remove_stale_temporaries();
        let path = self.path(&layout.material.table_name(), rule, metric);
        let name = path.file_name().expect("a file name").to_string_lossy();
        let partial = self.dir.join(format!(".{name}{PARTIAL}"));
        let file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&partial)?;
        let n = layout.slices.len() * 2 * parts(layout);
        let header = Header::of(layout, rule, metric, Vec::new());
        match file.try_lock() {
            Ok(()) => {
                let journal = self.dir.join(format!(".{name}{JOURNAL}"));
                let (state, resumed) = resume(file, &journal, n, parts(layout))?;
                let journal_file = fs::OpenOptions::new()
                    .append(true)
                    .create(true)
                    .open(&journal)?;
                Ok(CacheWriter {
                    reader: state.file.try_clone()?,
                    state: Mutex::new(state),
                    tmp: partial,
                    journal: Some((journal, Mutex::new(journal_file))),
                    resumed,
                    path,
                    header,
                    parts: parts(layout),
                })
            }
            Err(fs::TryLockError::WouldBlock) => {
                static COUNTER: AtomicU64 = AtomicU64::new(0);
                let tmp = self.dir.join(format!(
                    ".{name}.{}.{}.tmp",
                    std::process::id(),
                    COUNTER.fetch_add(1, Ordering::Relaxed)
                ));
                let mut file = fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create_new(true)
                    .open(&tmp)?;
                file.write_all(MAGIC)?;
                Ok(CacheWriter {
                    reader: file.try_clone()?,
                    state: Mutex::new(WriterState {
                        file,
                        offset: MAGIC.len() as u64,
                        frames: vec![None; n],
                    }),
                    tmp,
                    journal: None,
                    resumed: BTreeSet::new(),
                    path,
                    header,
                    parts: parts(layout),
                })
            }
            Err(fs::TryLockError::Error(e)) => Err(e),
        }
    }

    /// The cached solve of `layout`'s material, checked against what it
    /// must hold.
    pub(crate) fn open(
        &self,
        layout: &Layout,
        rule: Rule,
        metric: Metric,
    ) -> Result<CachedTable, CacheError> {
        let path = self.path(&layout.material.table_name(), rule, metric);
        let file = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(CacheError::Missing),
            Err(e) => return Err(e.into()),
        };
        let damaged = |why: &str| CacheError::Damaged(format!("{}: {why}", path.display()));
        let len = file.metadata()?.len();
        if len < (MAGIC.len() + FOOTER) as u64 {
            return Err(damaged("too short"));
        }
        let mut magic = [0u8; 8];
        file.read_exact_at(&mut magic, 0)?;
        let mut footer = [0u8; FOOTER];
        file.read_exact_at(&mut footer, len - FOOTER as u64)?;
        if &magic != MAGIC || &footer[16..] != MAGIC {
            return Err(damaged("not a fiftymove solve file"));
        }
        let at = u64::from_le_bytes(footer[..8].try_into().expect("8 bytes"));
        let size = u64::from_le_bytes(footer[8..16].try_into().expect("8 bytes"));
        if at
            .checked_add(size)
            .is_none_or(|end| end > len - FOOTER as u64)
            || size > 1 << 30
        {
            return Err(damaged("the header lies outside the file"));
        }
        let mut text = vec![0u8; size as usize];
        file.read_exact_at(&mut text, at)?;
        let header: Header =
            serde_json::from_slice(&text).map_err(|e| damaged(&format!("bad header ({e})")))?;
        if header != Header::of(layout, rule, metric, header.frames.clone()) {
            return Err(damaged("it holds another solve"));
        }
        if header.frames.len() != layout.slices.len() * 2 * parts(layout)
            || header
                .frames
                .iter()
                .any(|&(o, l)| o < MAGIC.len() as u64 || o.checked_add(l).is_none_or(|e| e > at))
        {
            return Err(damaged("its frames do not fit"));
        }
        Ok(CachedTable {
            file,
            path,
            header,
            parts: parts(layout),
            recent: Mutex::new((HashMap::new(), 0)),
        })
    }
}

/// The suffix of a solve file being written: `.<file>.partial`.
const PARTIAL: &str = ".partial";
/// The suffix of its journal: `.<file>.journal`.
const JOURNAL: &str = ".journal";

/// Picks up a partial file (locked by the caller) where its journal says
/// it was left: the slices the journal lists whose frames lie in the file
/// are kept, and the rest of the file (frames written after the last slice
/// noted, or a slice cut short) is cut off; the journal is rewritten with
/// the lines kept. A file without a journal, or not starting with the
/// magic number, starts afresh. Returns the writer's state and the slices
/// kept.
///
/// The journal has one line per slice written: the slice, then each frame
/// (by side, then part) as `offset:length`. A line cut short by a kill has
/// no newline and is not kept.
fn resume(
    file: File,
    journal: &Path,
    frames: usize,
    parts: usize,
) -> io::Result<(WriterState, BTreeSet<usize>)> {
    let len = file.metadata()?.len();
    let mut magic = [0u8; 8];
    let starts_well =
        len >= MAGIC.len() as u64 && file.read_exact_at(&mut magic, 0).is_ok() && &magic == MAGIC;
    let text = match fs::read_to_string(journal) {
        Ok(t) if starts_well => t,
        Ok(_) => String::new(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e),
    };
    let mut state = WriterState {
        file: file.try_clone()?,
        offset: MAGIC.len() as u64,
        frames: vec![None; frames],
    };
    let mut kept = BTreeSet::new();
    let mut lines = String::new();
    for line in text.split_inclusive('\n') {
        let Some(places) = journal_line(line, frames / (2 * parts), 2 * parts, len) else {
            break;
        };
        let slice = places.0;
        for (k, &(at, size)) in places.1.iter().enumerate() {
            state.frames[slice * 2 * parts + k] = Some((at, size));
            state.offset = state.offset.max(at + size);
        }
        kept.insert(slice);
        lines.push_str(line);
    }
    file.set_len(state.offset)?;
    if !starts_well {
        file.write_all_at(MAGIC, 0)?;
    }
    fs::write(journal, lines)?;
    state.file = file;
    use std::io::Seek;
    state.file.seek(io::SeekFrom::Start(state.offset))?;
    Ok((state, kept))
}

/// One journal line: the slice (below `slices`) and its `count` frames,
/// each within the first `len` bytes of the file; `None` if the line is
/// cut short or does not parse.
fn journal_line(
    line: &str,
    slices: usize,
    count: usize,
    len: u64,
) -> Option<(usize, Vec<(u64, u64)>)> {
    let mut words = line.strip_suffix('\n')?.split(' ');
    let slice: usize = words.next()?.parse().ok()?;
    let places: Vec<(u64, u64)> = words
        .map(|w| {
            let (at, size) = w.split_once(':')?;
            let (at, size): (u64, u64) = (at.parse().ok()?, size.parse().ok()?);
            (at >= MAGIC.len() as u64 && at.checked_add(size)? <= len).then_some((at, size))
        })
        .collect::<Option<_>>()?;
    (slice < slices && places.len() == count).then_some((slice, places))
}

struct WriterState {
    file: File,
    offset: u64,
    frames: Vec<Option<(u64, u64)>>,
}

/// Writes one solve's file, slice by slice, then renames it into place.
pub(crate) struct CacheWriter {
    state: Mutex<WriterState>,
    /// The journal of a resumable writer (`None`: a temporary file of its
    /// own, removed if not finished).
    journal: Option<(PathBuf, Mutex<File>)>,
    /// The slices an earlier, interrupted writer wrote.
    resumed: BTreeSet<usize>,
    /// The same file, for reading back the slices written (positioned
    /// reads, which leave the writer's place alone).
    reader: File,
    tmp: PathBuf,
    path: PathBuf,
    header: Header,
    parts: usize,
}

fn to_bytes(values: &[u16]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn compress(values: &[u16]) -> io::Result<Vec<u8>> {
    let mut enc = zstd::stream::Encoder::new(Vec::new(), LEVEL)?;
    enc.include_checksum(true)?;
    enc.write_all(&to_bytes(values))?;
    enc.finish()
}

impl CacheWriter {
    /// Adds a solved slice.
    pub(crate) fn add_slice(&self, slice: usize, values: &SliceValues) -> io::Result<()> {
        self.add_frames(slice, 0, [&values[0], &values[1]])?;
        self.note_slice(slice)
    }

    /// Adds the frames of slice `slice` that hold entries `base..` (a
    /// multiple of the frame's entries), both sides' values; the slice is
    /// whole once every frame of it is added. Only [`CacheWriter::add_slice`]
    /// notes it in the journal: a solve that adds frames (one of half a
    /// byte per position) starts again from nothing.
    pub(crate) fn add_frames(
        &self,
        slice: usize,
        base: usize,
        values: [&[u16]; 2],
    ) -> io::Result<()> {
        let fe = self.header.frame_entries;
        debug_assert!(base.is_multiple_of(fe));
        let first = base / fe;
        let parts = values[0].len().div_ceil(fe);
        let total = 2 * parts;
        // A batch of frames at a time, compressed side by side: all of a
        // 6-piece material's compressed frames at once would be gigabytes
        // beside its values.
        let batch = 4 * rayon::current_num_threads();
        for start in (0..total).step_by(batch) {
            let frames: Vec<(usize, Vec<u8>)> = (start..(start + batch).min(total))
                .into_par_iter()
                .map(|k| {
                    let (side, part) = (k / parts, k % parts);
                    let v = values[side];
                    let chunk = &v[part * fe..((part + 1) * fe).min(v.len())];
                    Ok((
                        (slice * 2 + side) * self.parts + first + part,
                        compress(chunk)?,
                    ))
                })
                .collect::<io::Result<_>>()?;
            let mut st = self.state.lock().expect("no panic while held");
            for (i, bytes) in frames {
                let at = st.offset;
                st.file.write_all(&bytes)?;
                st.offset += bytes.len() as u64;
                st.frames[i] = Some((at, bytes.len() as u64));
            }
        }
        Ok(())
    }

    /// Notes in the journal that slice `slice` is in the file.
    fn note_slice(&self, slice: usize) -> io::Result<()> {
        let total = 2 * self.parts;
        if let Some((_, journal)) = &self.journal {
            // The slice is in the file: note it, in one write (a kill cuts
            // at most this line short, and a line without its newline is
            // not read back).
            let places: Vec<String> = {
                let st = self.state.lock().expect("no panic while held");
                (0..total)
                    .map(|k| {
                        let (at, len) = st.frames[slice * total + k].expect("written above");
                        format!("{at}:{len}")
                    })
                    .collect()
            };
            let line = format!("{slice} {}\n", places.join(" "));
            journal
                .lock()
                .expect("no panic while held")
                .write_all(line.as_bytes())?;
        }
        Ok(())
    }

    /// The checkpoint of slice `slice` of this solve, taken every `every`
    /// of work (see [`Checkpoint`]); `None` for a writer of a temporary
    /// file of its own, which no later run takes up.
    pub(crate) fn checkpoint(
        &self,
        slice: usize,
        every: std::time::Duration,
        stop_after: Option<usize>,
        label: String,
    ) -> Option<Checkpoint> {
        self.journal.as_ref()?;
        let dir = self.path.parent()?;
        let name = self.path.file_name()?.to_string_lossy();
        Some(Checkpoint::new(dir, &name, slice, every, stop_after, label))
    }

    /// The slices an interrupted solve of the same file wrote, which this
    /// writer holds already: they need not be solved again.
    pub(crate) fn resumed(&self) -> &BTreeSet<usize> {
        &self.resumed
    }

    /// Both sides' values of a slice written (by this writer or the one it
    /// resumed).
    pub(crate) fn slice(&self, slice: usize) -> Result<SliceValues, CacheError> {
        self.header.slice(self.parts, slice, |i| self.frame(i))
    }

    /// Writes the header and puts the file in place.
    pub(crate) fn finish(&self) -> io::Result<()> {
        let result = (|| {
            let mut st = self.state.lock().expect("no panic while held");
            let mut header = self.header.clone();
            header.frames = st
                .frames
                .iter()
                .map(|f| f.ok_or_else(|| io::Error::other("a slice was not written")))
                .collect::<io::Result<_>>()?;
            let text = serde_json::to_vec(&header).map_err(io::Error::other)?;
            let at = st.offset;
            st.file.write_all(&text)?;
            st.file.write_all(&at.to_le_bytes())?;
            st.file.write_all(&(text.len() as u64).to_le_bytes())?;
            st.file.write_all(MAGIC)?;
            st.file.sync_all()?;
            fs::rename(&self.tmp, &self.path)?;
            if let Some((journal, _)) = &self.journal {
                // Another writer of the same file may have taken the name
                // up meanwhile (and removed it on finishing first).
                match fs::remove_file(journal) {
                    Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                    _ => {}
                }
                // A kill between writing a slice and removing its
                // checkpoint leaves one that no run reads again.
                if let (Some(dir), Some(name)) = (self.path.parent(), self.path.file_name()) {
                    checkpoint::remove_checkpoints(dir, &name.to_string_lossy());
                }
            }
            if let Some(dir) = self.path.parent() {
                if let Ok(d) = File::open(dir) {
                    let _ = d.sync_all();
                }
            }
            Ok(())
        })();
        if result.is_err() && self.journal.is_none() {
            let _ = fs::remove_file(&self.tmp);
        }
        result
    }
}

impl CacheWriter {
    /// Where frame `i` lies and the values it holds.
    fn place(&self, i: usize) -> Result<((u64, u64), usize), CacheError> {
        let place = self.state.lock().expect("no panic while held").frames[i];
        let Some(place) = place else {
            return Err(CacheError::Damaged(format!(
                "{}: frame {i} is read before it is written",
                self.tmp.display()
            )));
        };
        Ok((place, self.header.frame_values(i, self.parts)))
    }

    /// The values of frame `i`.
    fn frame(&self, i: usize) -> Result<Vec<u16>, CacheError> {
        let (place, want) = self.place(i)?;
        read_frame(&self.reader, &self.tmp, i, place, want)
    }
}

impl FrameSource for CacheWriter {
    fn page(&self, i: usize, convert: &mut dyn FnMut(&[u8]) -> Page) -> Result<Page, CacheError> {
        let (place, want) = self.place(i)?;
        read_frame_with(&self.reader, &self.tmp, i, place, want, convert)
    }

    fn frame_entries(&self) -> usize {
        self.header.frame_entries
    }

    fn parts(&self) -> usize {
        self.parts
    }

    fn path(&self) -> PathBuf {
        self.tmp.clone()
    }
}

impl FrameSource for CachedTable {
    fn page(&self, i: usize, convert: &mut dyn FnMut(&[u8]) -> Page) -> Result<Page, CacheError> {
        let (place, want) = self.place(i);
        read_frame_with(&self.file, &self.path, i, place, want, convert)
    }

    fn frame_entries(&self) -> usize {
        self.header.frame_entries
    }

    fn parts(&self) -> usize {
        self.parts
    }

    fn path(&self) -> PathBuf {
        self.path.clone()
    }
}

impl Drop for CacheWriter {
    fn drop(&mut self) {
        // A temporary writer dropped before `finish` (an error, a panic)
        // leaves no file behind; after `finish` it is gone already. A
        // resumable one leaves its partial file and journal for the next
        // solve of the same file to go on from.
        if self.journal.is_none() {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Reads and decompresses frame `i` of `file` (at `at`, `len` bytes long),
/// which must hold `want` values.
fn read_frame(
    file: &File,
    path: &Path,
    i: usize,
    place: (u64, u64),
    want: usize,
) -> Result<Vec<u16>, CacheError> {
    read_frame_with(file, path, i, place, want, |raw| {
        raw.chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect()
    })
}

/// [`read_frame`], handing the frame's bytes (two per value, little-endian)
/// to `convert`: the compressed and decompressed bytes stay in buffers each
/// thread reuses, so that reading page after page does not churn the
/// allocator with frames of megabytes.
fn read_frame_with<T>(
    file: &File,
    path: &Path,
    i: usize,
    (at, len): (u64, u64),
    want: usize,
    convert: impl FnOnce(&[u8]) -> T,
) -> Result<T, CacheError> {
    /// The compressed bytes, the decompressed ones, and the decompression
    /// context (making one costs more than decompressing a small frame).
    type Buffers = (Vec<u8>, Vec<u8>, Option<zstd::bulk::Decompressor<'static>>);
    thread_local! {
        static BUFFERS: std::cell::RefCell<Buffers> =
            const { std::cell::RefCell::new((Vec::new(), Vec::new(), None)) };
    }
    let damaged = |e: io::Error| CacheError::Damaged(format!("{}: frame {i}: {e}", path.display()));
    BUFFERS.with(|b| {
        let mut b = b.borrow_mut();
        let (bytes, raw, decompressor) = &mut *b;
        bytes.resize(len as usize, 0);
        file.read_exact_at(bytes, at)?;
        if decompressor.is_none() {
            *decompressor = Some(zstd::bulk::Decompressor::new()?);
        }
        raw.clear();
        raw.reserve(2 * want);
        decompressor
            .as_mut()
            .expect("made above")
            .decompress_to_buffer(&bytes[..], raw)
            .map_err(damaged)?;
        if raw.len() != 2 * want {
            return Err(CacheError::Damaged(format!(
                "{}: frame {i} holds {} bytes, not {}",
                path.display(),
                raw.len(),
                2 * want
            )));
        }
        Ok(convert(raw))
    })
}

/// Decompressed frames by number.
type Frames = HashMap<usize, Arc<Vec<u16>>>;

/// A cached solve, read frame by frame.
pub(crate) struct CachedTable {
    file: File,
    path: PathBuf,
    header: Header,
    parts: usize,
    /// Frames read lately, by number (a line reads the same few again and
    /// again), with their total size.
    recent: Mutex<(Frames, usize)>,
}

impl CachedTable {
    /// The file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Where frame `i` lies and the values it holds.
    fn place(&self, i: usize) -> ((u64, u64), usize) {
        (
            self.header.frames[i],
            self.header.frame_values(i, self.parts),
        )
    }

    fn frame(&self, i: usize) -> Result<Vec<u16>, CacheError> {
        let (place, want) = self.place(i);
        read_frame(&self.file, &self.path, i, place, want)
    }

    /// Both sides' values of one slice.
    pub(crate) fn slice(&self, slice: usize) -> Result<SliceValues, CacheError> {
        self.header.slice(self.parts, slice, |i| self.frame(i))
    }

    /// The value of one position.
    pub(crate) fn get(&self, side: usize, slice: usize, entry: usize) -> Result<u16, CacheError> {
        let fe = self.header.frame_entries;
        let i = (slice * 2 + side) * self.parts + entry / fe;
        if let Some(f) = self.recent.lock().expect("no panic while held").0.get(&i) {
            return Ok(f[entry % fe]);
        }
        let f = Arc::new(self.frame(i)?);
        let v = f[entry % fe];
        let mut recent = self.recent.lock().expect("no panic while held");
        // At most 256 MiB of values are kept; then the cache starts over.
        if recent.1 + f.len() * 2 > 256 << 20 {
            *recent = (HashMap::new(), 0);
        }
        recent.1 += f.len() * 2;
        recent.0.insert(i, f);
        Ok(v)
    }
}
