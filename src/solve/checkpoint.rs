//! Checkpoints of a slice being solved, so that a solve killed in a large
//! slice resumes from its last level saved instead of from the start. A
//! pawnless material is one slice: at six pieces, billions of positions and
//! up to an hour of work.
//!
//! Checkpoints are taken between two batches of blocks of the first pass
//! (which takes most of a pawnless solve: 99 of the 146 s of KNN v KNN's),
//! and between two levels. There the state of a slice is its values alone.
//! The sets of blocks with work at each level ([`super::levels::Levels`])
//! follow from them: a value resolved at a level not yet walked back, or
//! waiting for a level not yet reached, puts its block in that level's set.
//! So a resumed solve does the work the interrupted one had left, and its
//! values are the same (the solve's result does not depend on the order of
//! its work, see [`super::retro`]).
//!
//! The file is `.<cache file>.<slice>.checkpoint`, beside the partial file
//! of the solve (see [`super::cache`]), whose name carries the material,
//! rule, metric and build:
//!
//! ```text
//! magic "FMCKPT01", slice, entries, first-pass blocks done, next level
//!                                                (u64 each, little-endian)
//! per side, per 2^20 entries: length (u64), zstd frame of the values
//! ```
//!
//! A solve in half a byte per position ([`super::compact`]) saves its codes
//! instead, and the part of its spill file that holds the levels done (the
//! file, `.<cache file>.<slice>.spill`, is cut back to it on resuming):
//!
//! ```text
//! magic "FMCKPH01", slice, entries, first-pass blocks done, next level,
//!   spill bytes, spill frames                    (u64 each, little-endian)
//! per spill frame: chunk (u32), level (u32), offset (u64), length (u32)
//! per side, per 2^20 words of codes (16 entries a word, little-endian):
//!   length (u64), zstd frame of the words
//! ```
//!
//! Each frame carries zstd's content checksum. A checkpoint is written under
//! a temporary name and renamed, so that a kill while writing leaves the one
//! before. It is not synced: a checkpoint cut short by a system crash fails
//! its checks when read, and the slice starts again. It is removed once its
//! slice is in the cache file.

use std::{
    fs::{self, File},
    io::{self, BufReader, BufWriter, Read, Write},
    path::{Path, PathBuf},
    sync::atomic::{AtomicU16, AtomicU64, AtomicUsize, Ordering::Relaxed},
    time::{Duration, Instant},
};

use rayon::prelude::*;

use super::{
    cache_error::CacheError,
    spill::{SpillFrame, SpillMark},
};
use crate::error::{Error, Result};

const MAGIC: &[u8; 8] = b"FMCKPT01";
/// The magic of a checkpoint of a solve in half a byte per position.
const COMPACT_MAGIC: &[u8; 8] = b"FMCKPH01";
/// Entries per frame.
const FRAME: usize = 1 << 20;
/// zstd level: the fastest. A checkpoint is read once at most, and a 6-piece
/// slice's values take gigabytes to compress (KNN v KNN: 14.6 s a
/// checkpoint at level 3 on 2 cores).
const LEVEL: i32 = 1;
/// Frames compressed side by side: the buffers stay a few megabytes, within
/// the program's allowance in the memory bounds.
const BATCH: usize = 4;
/// The suffix of a checkpoint's name: `.<file>.<slice>.checkpoint`.
pub(crate) const SUFFIX: &str = ".checkpoint";
/// The suffix of the spill file beside a checkpoint of a solve in half a
/// byte per position: `.<file>.<slice>.spill`.
pub(crate) const SPILL_SUFFIX: &str = ".spill";

/// How far a slice's solve has gone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reached {
    /// The blocks of the first pass done, from block 0 on.
    pub(crate) first_pass: usize,
    /// The level to go on from (the levels below are done), once the
    /// first pass is.
    pub(crate) next_level: usize,
}

impl Reached {
    /// A slice not started.
    pub(crate) const START: Reached = Reached {
        first_pass: 0,
        next_level: 0,
    };

    /// What a note says of it, for a slice of `blocks` blocks.
    pub(crate) fn describe(self, blocks: usize) -> String {
        if self.first_pass < blocks {
            format!("first pass {} of {blocks} blocks done", self.first_pass)
        } else if self.next_level == 0 {
            "first pass done".to_owned()
        } else {
            format!("first pass and levels 0 to {} done", self.next_level - 1)
        }
    }
}

/// The name of the cache file whose checkpoint (or spill file) is called
/// `name` (without the leading dot), if it is one.
pub(crate) fn file_of_checkpoint(name: &str) -> Option<&str> {
    let stem = name
        .strip_suffix(SUFFIX)
        .or_else(|| name.strip_suffix(SPILL_SUFFIX))?;
    let (file, slice) = stem.rsplit_once('.')?;
    slice.parse::<usize>().ok().map(|_| file)
}

/// Removes the checkpoints of cache file `file` in `dir` (those left by a
/// solve killed after writing a slice, before removing its checkpoint).
pub(crate) fn remove_checkpoints(dir: &Path, file: &str) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let ours = name
            .strip_prefix('.')
            .and_then(file_of_checkpoint)
            .is_some_and(|f| f == file);
        if ours {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Where and how often one slice's solve saves its state.
pub(crate) struct Checkpoint {
    path: PathBuf,
    slice: usize,
    /// Work between two checkpoints at least (zero: at every level).
    every: Duration,
    /// Checkpoints this slice has written in this run.
    written: AtomicUsize,
    /// Fail the solve once this many are written, as a solve killed there
    /// would stop (tests).
    stop_after: Option<usize>,
    /// What the notes call the solve: `KQvKR (dtz, rule 50)`.
    label: String,
}

impl Checkpoint {
    /// The checkpoint of slice `slice` of the solve that writes cache file
    /// `file` (a name) in `dir`.
    pub(crate) fn new(
        dir: &Path,
        file: &str,
        slice: usize,
        every: Duration,
        stop_after: Option<usize>,
        label: String,
    ) -> Checkpoint {
        Checkpoint {
            path: dir.join(format!(".{file}.{slice}{SUFFIX}")),
            slice,
            every,
            written: AtomicUsize::new(0),
            stop_after,
            label,
        }
    }

    /// What the notes call the solve and slice.
    pub(crate) fn label(&self) -> String {
        format!("slice {} of {}", self.slice, self.label)
    }

    /// The file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Whether a checkpoint is due, the last one (or the start) being at
    /// `since`.
    pub(crate) fn due(&self, since: Instant) -> bool {
        since.elapsed() >= self.every
    }

    /// Stops the solve if it is to stop now, as asked (tests), as a solve
    /// killed after this checkpoint would.
    ///
    /// # Errors
    ///
    /// [`Error::Inconsistent`], naming the checkpoint, once as many have
    /// been written as asked.
    pub(crate) fn stop_if_asked(&self) -> Result<()> {
        if self
            .stop_after
            .is_some_and(|n| self.written.load(Relaxed) >= n)
        {
            return Err(Error::inconsistent(
                "the solver",
                format!(
                    "interrupted after a checkpoint of {}, as asked",
                    self.label()
                ),
            ));
        }
        Ok(())
    }

    /// Saves `values` (both sides), the solve having gone as far as
    /// `reached`.
    ///
    /// # Errors
    ///
    /// Writing fails (the temporary file is removed).
    pub(crate) fn save(&self, reached: Reached, values: &[Vec<AtomicU16>; 2]) -> io::Result<()> {
        self.save_with(|out| {
            out.write_all(MAGIC)?;
            let entries = values[0].len();
            for n in [self.slice, entries, reached.first_pass, reached.next_level] {
                out.write_all(&(n as u64).to_le_bytes())?;
            }
            write_sides(out, [&values[0], &values[1]], |cell, b| {
                b.copy_from_slice(&cell.load(Relaxed).to_le_bytes())
            })
        })
    }

    /// Saves the state of a solve in half a byte per position
    /// ([`super::compact`]): its `codes` (both sides, sixteen entries a word)
    /// and how much of its spill file (beside this checkpoint, see
    /// [`Checkpoint::spill_path`]) holds the levels done, `spill`.
    ///
    /// # Errors
    ///
    /// Writing fails (the temporary file is removed).
    pub(crate) fn save_compact(
        &self,
        reached: Reached,
        entries: usize,
        codes: [&[AtomicU64]; 2],
        spill: &SpillMark,
    ) -> io::Result<()> {
        self.save_with(|out| {
            out.write_all(COMPACT_MAGIC)?;
            for n in [
                self.slice,
                entries,
                reached.first_pass,
                reached.next_level,
                spill.len as usize,
                spill.frames.len(),
            ] {
                out.write_all(&(n as u64).to_le_bytes())?;
            }
            for f in &spill.frames {
                out.write_all(&f.to_bytes())?;
            }
            write_sides(out, codes, |cell, b| {
                b.copy_from_slice(&cell.load(Relaxed).to_le_bytes())
            })
        })
    }

    /// Writes a checkpoint with `write`, under a temporary name renamed
    /// into place.
    fn save_with(
        &self,
        write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
    ) -> io::Result<()> {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let name = self
            .path
            .file_name()
            .expect("a file name")
            .to_string_lossy();
        // The form `remove_stale_temporaries` of the cache knows: a killed
        // writer's file is removed by the next solve.
        let tmp = self.path.with_file_name(format!(
            "{name}.{}.{}.tmp",
            std::process::id(),
            COUNTER.fetch_add(1, Relaxed)
        ));
        let result = (|| {
            let mut out = BufWriter::new(File::create(&tmp)?);
            write(&mut out)?;
            out.into_inner().map_err(io::IntoInnerError::into_error)?;
            fs::rename(&tmp, &self.path)
        })();
        if result.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        self.written.fetch_add(1, Relaxed);
        result
    }

    /// Loads the checkpoint into `values` (both sides, as many entries as
    /// the slice has) and returns how far the solve had gone; `Missing` if
    /// there is none. On `Damaged`, some values may have been overwritten:
    /// the caller starts the slice again.
    ///
    /// # Errors
    ///
    /// [`CacheError::Damaged`] if the file fails a check (magic, slice,
    /// size, a frame's checksum or length); [`CacheError::Io`] if it cannot
    /// be read.
    pub(crate) fn load(&self, values: &[Vec<AtomicU16>; 2]) -> Result<Reached, CacheError> {
        let mut input = self.open(MAGIC)?;
        let reached = self.read_reached(&mut input, values[0].len())?;
        read_sides(
            &mut input,
            [&values[0], &values[1]],
            &|e| self.damaged(e),
            |cell, b| cell.store(u16::from_le_bytes([b[0], b[1]]), Relaxed),
        )?;
        Ok(reached)
    }

    /// Loads a checkpoint of a solve in half a byte per position into
    /// `codes` (see [`Checkpoint::save_compact`]), and returns how far the
    /// solve had gone and how much of its spill file that takes.
    ///
    /// # Errors
    ///
    /// As [`Checkpoint::load`].
    pub(crate) fn load_compact(
        &self,
        entries: usize,
        codes: [&[AtomicU64]; 2],
    ) -> Result<(Reached, SpillMark), CacheError> {
        let mut input = self.open(COMPACT_MAGIC)?;
        let reached = self.read_reached(&mut input, entries)?;
        let len = read_word(&mut input, &|e| self.damaged(e))?;
        let count = read_word(&mut input, &|e| self.damaged(e))?;
        // A frame of the spill holds records of at least one position.
        if count > len {
            return Err(self.damaged(format!("{count} spill frames in {len} bytes").into()));
        }
        let mut frames = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let mut b = [0u8; SpillFrame::BYTES];
            input
                .read_exact(&mut b)
                .map_err(|e| self.damaged(e.into()))?;
            let f = SpillFrame::from_bytes(&b);
            if f.at + u64::from(f.len) > len {
                return Err(self.damaged("a spill frame past the spill's end".to_owned().into()));
            }
            frames.push(f);
        }
        read_sides(&mut input, codes, &|e| self.damaged(e), |cell, b| {
            let word: [u8; 8] = b.try_into().expect("eight bytes");
            cell.store(u64::from_le_bytes(word), Relaxed)
        })?;
        Ok((reached, SpillMark { len, frames }))
    }

    /// The file opened, past its magic (which must be `magic`).
    fn open(&self, magic: &[u8; 8]) -> Result<BufReader<File>, CacheError> {
        let file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(CacheError::Missing),
            Err(e) => return Err(e.into()),
        };
        let mut input = BufReader::new(file);
        let mut got = [0u8; 8];
        input
            .read_exact(&mut got)
            .map_err(|e| self.damaged(e.into()))?;
        if &got != magic {
            return Err(self.damaged("not a checkpoint".to_owned().into()));
        }
        Ok(input)
    }

    /// A damaged file's error, or an I/O error's.
    fn damaged(&self, why: Why) -> CacheError {
        match why {
            Why::Io(e) if e.kind() != io::ErrorKind::UnexpectedEof => CacheError::Io(e),
            Why::Io(_) => CacheError::Damaged(format!("{}: cut short", self.path.display())),
            Why::Text(t) => CacheError::Damaged(format!("{}: {t}", self.path.display())),
        }
    }

    /// The header words after the magic: the slice and its entries, which
    /// must be this checkpoint's and `entries`, and how far the solve went.
    fn read_reached(
        &self,
        input: &mut BufReader<File>,
        entries: usize,
    ) -> Result<Reached, CacheError> {
        let mut word = || read_word(input, &|e| self.damaged(e));
        let (slice, held, first_pass, next) = (word()?, word()?, word()?, word()?);
        if slice != self.slice as u64 || held != entries as u64 {
            return Err(self.damaged(
                format!(
                    "holds slice {slice} of {held} entries, not slice {} of {entries}",
                    self.slice
                )
                .into(),
            ));
        }
        let blocks = entries.div_ceil(super::levels::BLOCK) as u64;
        if first_pass > blocks || (first_pass < blocks && next > 0) || next > 1 << 16 {
            return Err(self.damaged(
                format!("first pass {first_pass} of {blocks} blocks, level {next}").into(),
            ));
        }
        Ok(Reached {
            first_pass: first_pass as usize,
            next_level: next as usize,
        })
    }

    /// The spill file of a solve in half a byte per position that this
    /// checkpoint saves: `.<file>.<slice>.spill`, removed with it.
    pub(crate) fn spill_path(&self) -> PathBuf {
        let name = self
            .path
            .file_name()
            .expect("a file name")
            .to_string_lossy();
        let stem = name.strip_suffix(SUFFIX).expect("a checkpoint's name");
        self.path.with_file_name(format!("{stem}{SPILL_SUFFIX}"))
    }

    /// Removes the checkpoint and its spill file, if any (its slice is in
    /// the cache file).
    pub(crate) fn remove(&self) {
        let _ = fs::remove_file(&self.path);
        let _ = fs::remove_file(self.spill_path());
    }
}

/// Why a checkpoint is not read: an I/O error (end of file: cut short), or
/// a failed check.
enum Why {
    Io(io::Error),
    Text(String),
}

impl From<io::Error> for Why {
    fn from(e: io::Error) -> Why {
        Why::Io(e)
    }
}

impl From<String> for Why {
    fn from(t: String) -> Why {
        Why::Text(t)
    }
}

fn read_word(
    input: &mut BufReader<File>,
    damaged: &dyn Fn(Why) -> CacheError,
) -> Result<u64, CacheError> {
    let mut b = [0u8; 8];
    input.read_exact(&mut b).map_err(|e| damaged(e.into()))?;
    Ok(u64::from_le_bytes(b))
}

/// Writes both sides' cells, [`FRAME`] cells a zstd frame (with its
/// checksum) preceded by its length, each cell's bytes put by `put`.
fn write_sides<T: Sync>(
    out: &mut BufWriter<File>,
    sides: [&[T]; 2],
    put: impl Fn(&T, &mut [u8]) + Sync,
) -> io::Result<()> {
    let width = std::mem::size_of::<T>();
    for side in sides {
        let frames = side.len().div_ceil(FRAME);
        for start in (0..frames).step_by(BATCH) {
            let batch: Vec<Vec<u8>> = (start..(start + BATCH).min(frames))
                .into_par_iter()
                .map(|f| {
                    let cells = &side[f * FRAME..((f + 1) * FRAME).min(side.len())];
                    let mut plain = vec![0u8; std::mem::size_of_val(cells)];
                    for (out, cell) in plain.chunks_exact_mut(width).zip(cells) {
                        put(cell, out);
                    }
                    let mut zstd = zstd::bulk::Compressor::new(LEVEL)?;
                    zstd.set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(true))?;
                    zstd.compress(&plain)
                })
                .collect::<io::Result<_>>()?;
            for bytes in batch {
                out.write_all(&(bytes.len() as u64).to_le_bytes())?;
                out.write_all(&bytes)?;
            }
        }
    }
    Ok(())
}

/// Reads what [`write_sides`] wrote into `sides` (as many cells as they
/// hold), each cell from its bytes by `set`, and checks that nothing
/// follows.
fn read_sides<T>(
    input: &mut BufReader<File>,
    sides: [&[T]; 2],
    damaged: &dyn Fn(Why) -> CacheError,
    set: impl Fn(&T, &[u8]),
) -> Result<(), CacheError> {
    let width = std::mem::size_of::<T>();
    let mut decompressor = zstd::bulk::Decompressor::new()?;
    let (mut bytes, mut raw) = (Vec::new(), Vec::new());
    for side in sides {
        for (f, cells) in side.chunks(FRAME).enumerate() {
            let len = read_word(input, damaged)?;
            // A frame of 2^20 cells never compresses to more than this; a
            // larger length is a damaged file, not an allocation to try.
            if len > 2 * (width * FRAME) as u64 + 1024 {
                return Err(damaged(format!("frame {f}: length {len}").into()));
            }
            bytes.resize(len as usize, 0);
            input
                .read_exact(&mut bytes)
                .map_err(|e| damaged(e.into()))?;
            raw.clear();
            raw.reserve(std::mem::size_of_val(cells));
            decompressor
                .decompress_to_buffer(&bytes[..], &mut raw)
                .map_err(|e| damaged(format!("frame {f}: {e}").into()))?;
            if raw.len() != std::mem::size_of_val(cells) {
                return Err(damaged(format!("frame {f}: {} bytes", raw.len()).into()));
            }
            for (cell, b) in cells.iter().zip(raw.chunks_exact(width)) {
                set(cell, b);
            }
        }
    }
    let mut rest = [0u8; 1];
    if input.read(&mut rest)? != 0 {
        return Err(damaged("bytes after the last frame".to_owned().into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(values: &[u16]) -> Vec<AtomicU16> {
        values.iter().map(|&v| AtomicU16::new(v)).collect()
    }

    fn plain(cells: &[AtomicU16]) -> Vec<u16> {
        cells.iter().map(|c| c.load(Relaxed)).collect()
    }

    #[test]
    fn a_checkpoint_reads_back_what_was_saved() {
        let dir = tempfile::tempdir().unwrap();
        let n = FRAME + 123;
        let white: Vec<u16> = (0..n).map(|i| (i * 7919 % 65_521) as u16).collect();
        let black: Vec<u16> = (0..n).map(|i| (i % 3) as u16).collect();
        let c = Checkpoint::new(
            dir.path(),
            "KQvK.x.fms",
            5,
            Duration::ZERO,
            None,
            "t".into(),
        );
        let reached = Reached {
            first_pass: n.div_ceil(super::super::levels::BLOCK),
            next_level: 17,
        };
        c.save(reached, &[cells(&white), cells(&black)]).unwrap();
        let back = [cells(&vec![0; n]), cells(&vec![0; n])];
        assert_eq!(c.load(&back).unwrap(), reached);
        assert_eq!(plain(&back[0]), white);
        assert_eq!(plain(&back[1]), black);
        // Another slice's, or a slice of another size, is not this one.
        let other = Checkpoint::new(
            dir.path(),
            "KQvK.x.fms",
            6,
            Duration::ZERO,
            None,
            "t".into(),
        );
        assert!(matches!(other.load(&back), Err(CacheError::Missing)));
        fs::copy(c.path(), other.path()).unwrap();
        assert!(matches!(other.load(&back), Err(CacheError::Damaged(_))));
        let short = [cells(&vec![0; n - 1]), cells(&vec![0; n - 1])];
        assert!(matches!(c.load(&short), Err(CacheError::Damaged(_))));
        // No temporary file is left beside it.
        let names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }

    #[test]
    fn a_damaged_or_cut_checkpoint_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let n = 3 * FRAME / 2;
        let values: Vec<u16> = (0..n).map(|i| (i * 31 % 1000) as u16).collect();
        let c = Checkpoint::new(
            dir.path(),
            "KRvK.x.fms",
            0,
            Duration::ZERO,
            None,
            "t".into(),
        );
        let reached = Reached {
            first_pass: 5,
            next_level: 0,
        };
        c.save(reached, &[cells(&values), cells(&values)]).unwrap();
        let bytes = fs::read(c.path()).unwrap();
        let back = [cells(&vec![0; n]), cells(&vec![0; n])];
        let mut flipped = bytes.clone();
        let at = flipped.len() - 40;
        flipped[at] ^= 0x10;
        for bad in [
            flipped,
            bytes[..bytes.len() - 1].to_vec(),
            bytes[..20].to_vec(),
        ] {
            fs::write(c.path(), &bad).unwrap();
            assert!(
                matches!(c.load(&back), Err(CacheError::Damaged(_))),
                "{} bytes accepted",
                bad.len()
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        fs::write(c.path(), &longer).unwrap();
        assert!(matches!(c.load(&back), Err(CacheError::Damaged(_))));
        fs::write(c.path(), &bytes).unwrap();
        assert_eq!(c.load(&back).unwrap(), reached);
    }

    #[test]
    fn checkpoint_names_give_their_file() {
        assert_eq!(
            file_of_checkpoint("KQvK.rule-50.dtz.b1.fms.0.checkpoint"),
            Some("KQvK.rule-50.dtz.b1.fms")
        );
        assert_eq!(
            file_of_checkpoint("KQvK.rule-50.dtz.b1.fms.0.spill"),
            Some("KQvK.rule-50.dtz.b1.fms")
        );
        assert_eq!(file_of_checkpoint("KQvK.rule-50.dtz.b1.fms.journal"), None);
        assert_eq!(file_of_checkpoint("KQvK.fms.x.checkpoint"), None);
    }
}
