//! The depths of a solve in half a byte ([`super::compact`]), spilled to a
//! file level by level: for each level, the positions resolved at it, won
//! or lost, in frames of one chunk of entries each, so that the values of a
//! chunk are made again by reading that chunk's frames alone.
//!
//! The file is anonymous (made with [`tempfile::tempfile_in`]): it has no
//! name, so a solve killed at any point leaves nothing behind.
//!
//! A frame, compressed with zstd, holds blocks in ascending order:
//!
//! ```text
//! u32 LE  block
//! u16 LE  records in it (at most two per entry)
//! u16 LE  each record: entry within the block (12 bits), side (bit 12),
//!         lost (bit 13)
//! ```

use std::{fs::File, io, os::unix::fs::FileExt, path::Path, sync::Mutex};

use rayon::prelude::*;

use super::levels::BLOCK;

/// One resolved position: its entry, side to move, and whether it is lost
/// (else won), at the level of its frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Record {
    pub(crate) entry: usize,
    pub(crate) side: usize,
    pub(crate) lost: bool,
}

const SIDE_BIT: u16 = 1 << 12;
const LOST_BIT: u16 = 1 << 13;

// The entry within its block takes the low 12 bits of a record.
const _: () = assert!(BLOCK == 1 << 12);

impl Record {
    /// The record in two bytes, its block left out.
    #[inline]
    pub(crate) fn pack(self) -> u16 {
        (self.entry % BLOCK) as u16
            | if self.side == 1 { SIDE_BIT } else { 0 }
            | if self.lost { LOST_BIT } else { 0 }
    }

    #[inline]
    fn unpack(block: usize, r: u16) -> Record {
        Record {
            entry: block * BLOCK + usize::from(r & (SIDE_BIT - 1)),
            side: usize::from(r & SIDE_BIT != 0),
            lost: r & LOST_BIT != 0,
        }
    }
}

/// Where a frame lies: its chunk and level, offset and length in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SpillFrame {
    pub(crate) chunk: u32,
    pub(crate) level: u32,
    pub(crate) at: u64,
    pub(crate) len: u32,
}

impl SpillFrame {
    /// Its size in a checkpoint.
    pub(crate) const BYTES: usize = 20;

    /// Its bytes in a checkpoint.
    pub(crate) fn to_bytes(self) -> [u8; Self::BYTES] {
        let mut b = [0; Self::BYTES];
        b[..4].copy_from_slice(&self.chunk.to_le_bytes());
        b[4..8].copy_from_slice(&self.level.to_le_bytes());
        b[8..16].copy_from_slice(&self.at.to_le_bytes());
        b[16..].copy_from_slice(&self.len.to_le_bytes());
        b
    }

    /// The frame of its bytes in a checkpoint.
    pub(crate) fn from_bytes(b: &[u8; Self::BYTES]) -> SpillFrame {
        let word = |r: std::ops::Range<usize>| {
            let mut w = [0u8; 8];
            w[..r.len()].copy_from_slice(&b[r]);
            u64::from_le_bytes(w)
        };
        SpillFrame {
            chunk: word(0..4) as u32,
            level: word(4..8) as u32,
            at: word(8..16),
            len: word(16..20) as u32,
        }
    }
}

/// How far a spill file goes: its length and frames, which a checkpoint
/// saves and a resumed solve cuts the file back to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct SpillMark {
    pub(crate) len: u64,
    pub(crate) frames: Vec<SpillFrame>,
}

/// The spill file of one solve.
pub(crate) struct Spill {
    file: File,
    chunks: usize,
    /// The end of the file, and the frames of each chunk.
    state: Mutex<(u64, Vec<Vec<SpillFrame>>)>,
}

impl Spill {
    /// Blocks per chunk: 4 Mi entries.
    pub(crate) const CHUNK_BLOCKS: usize = 1024;

    /// A spill in `dir` for `entries` entries.
    ///
    /// # Errors
    ///
    /// If the file cannot be made.
    pub(crate) fn new(dir: &Path, entries: usize) -> io::Result<Spill> {
        std::fs::create_dir_all(dir)?;
        Ok(Self::of(tempfile::tempfile_in(dir)?, entries))
    }

    fn of(file: File, entries: usize) -> Spill {
        let chunks = entries.div_ceil(BLOCK * Self::CHUNK_BLOCKS);
        Spill {
            file,
            chunks,
            state: Mutex::new((0, vec![Vec::new(); chunks])),
        }
    }

    /// The spill at `path` (a checkpointed solve's, which outlives a kill),
    /// opened as it is: [`Spill::restore`] or [`Spill::reset`] it next.
    ///
    /// # Errors
    ///
    /// If the file cannot be opened or made.
    pub(crate) fn open(path: &Path, entries: usize) -> io::Result<Spill> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        Ok(Self::of(file, entries))
    }

    /// How far the file goes.
    pub(crate) fn mark(&self) -> SpillMark {
        let st = self.state.lock().expect("no panic while held");
        SpillMark {
            len: st.0,
            frames: st.1.iter().flatten().copied().collect(),
        }
    }

    /// Cuts the file back to `mark` (a checkpoint's); `false`, and the
    /// spill empty, if the file is shorter or a frame is out of place.
    ///
    /// # Errors
    ///
    /// If the file cannot be cut.
    pub(crate) fn restore(&self, mark: &SpillMark) -> io::Result<bool> {
        let fits = self.file.metadata()?.len() >= mark.len
            && mark.frames.iter().all(|f| (f.chunk as usize) < self.chunks);
        if !fits {
            self.reset()?;
            return Ok(false);
        }
        self.file.set_len(mark.len)?;
        let mut st = self.state.lock().expect("no panic while held");
        st.0 = mark.len;
        st.1 = vec![Vec::new(); self.chunks];
        for f in &mark.frames {
            st.1[f.chunk as usize].push(*f);
        }
        Ok(true)
    }

    /// Empties the spill.
    ///
    /// # Errors
    ///
    /// If the file cannot be cut.
    pub(crate) fn reset(&self) -> io::Result<()> {
        self.file.set_len(0)?;
        let mut st = self.state.lock().expect("no panic while held");
        *st = (0, vec![Vec::new(); self.chunks]);
        Ok(())
    }

    /// Adds the records of `level`, by block in ascending order (packed,
    /// [`Record::pack`]), one frame per chunk they fall in.
    ///
    /// # Errors
    ///
    /// If the file cannot be written.
    pub(crate) fn add(&self, level: usize, blocks: &[(usize, Vec<u16>)]) -> io::Result<()> {
        let groups: Vec<&[(usize, Vec<u16>)]> = blocks
            .chunk_by(|a, b| a.0 / Self::CHUNK_BLOCKS == b.0 / Self::CHUNK_BLOCKS)
            .collect();
        let frames: Vec<(usize, Vec<u8>)> = groups
            .par_iter()
            .filter(|g| g.iter().any(|(_, r)| !r.is_empty()))
            .map(|g| {
                let mut raw = Vec::new();
                for (block, records) in g.iter().filter(|(_, r)| !r.is_empty()) {
                    raw.extend_from_slice(&(*block as u32).to_le_bytes());
                    raw.extend_from_slice(&(records.len() as u16).to_le_bytes());
                    for r in records {
                        raw.extend_from_slice(&r.to_le_bytes());
                    }
                }
                Ok((g[0].0 / Self::CHUNK_BLOCKS, zstd::bulk::compress(&raw, 1)?))
            })
            .collect::<io::Result<_>>()?;
        let mut st = self.state.lock().expect("no panic while held");
        for (chunk, bytes) in frames {
            let at = st.0;
            // At the end as recorded, not the file's: a restored file was
            // cut there.
            self.file.write_all_at(&bytes, at)?;
            st.0 += bytes.len() as u64;
            st.1[chunk].push(SpillFrame {
                chunk: chunk as u32,
                level: level as u32,
                at,
                len: bytes.len() as u32,
            });
        }
        Ok(())
    }

    /// The bytes written.
    pub(crate) fn bytes(&self) -> u64 {
        self.state.lock().expect("no panic while held").0
    }

    /// Reads frame `f` and calls `visit(level, record)` for each record;
    /// an error of kind `InvalidData` where `visit` refuses one.
    fn read(
        &self,
        f: SpillFrame,
        visit: &(dyn Fn(usize, Record) -> bool + Sync),
    ) -> io::Result<()> {
        let mut bytes = vec![0; f.len as usize];
        self.file.read_exact_at(&mut bytes, f.at)?;
        let raw = zstd::stream::decode_all(&bytes[..])?;
        let bad = |what: &str| io::Error::new(io::ErrorKind::InvalidData, what.to_owned());
        let mut at = 0;
        let level = f.level as usize;
        while at < raw.len() {
            let head = raw
                .get(at..at + 6)
                .ok_or_else(|| bad("a spill frame cut short"))?;
            let block = u32::from_le_bytes(head[..4].try_into().expect("four bytes")) as usize;
            let n = usize::from(u16::from_le_bytes([head[4], head[5]]));
            at += 6;
            let body = raw
                .get(at..at + 2 * n)
                .ok_or_else(|| bad("a spill frame cut short"))?;
            for r in body.chunks_exact(2) {
                if !visit(
                    level,
                    Record::unpack(block, u16::from_le_bytes([r[0], r[1]])),
                ) {
                    return Err(bad("a position spilled twice"));
                }
            }
            at += 2 * n;
        }
        Ok(())
    }

    /// Calls `visit(level, record)` for every record of chunk `chunk`, from
    /// several threads.
    ///
    /// # Errors
    ///
    /// If the file cannot be read, or `visit` refuses a record (kind
    /// `InvalidData`).
    pub(crate) fn each_in_chunk(
        &self,
        chunk: usize,
        visit: &(dyn Fn(usize, Record) -> bool + Sync),
    ) -> io::Result<()> {
        let frames = self.state.lock().expect("no panic while held").1[chunk].clone();
        frames.par_iter().try_for_each(|&f| self.read(f, visit))
    }

    /// Calls `visit(record)` for every record of level `level`, from
    /// several threads.
    ///
    /// # Errors
    ///
    /// If the file cannot be read.
    pub(crate) fn each_at_level(
        &self,
        level: usize,
        visit: &(dyn Fn(Record) + Sync),
    ) -> io::Result<()> {
        let frames: Vec<SpillFrame> = {
            let st = self.state.lock().expect("no panic while held");
            st.1.iter()
                .flatten()
                .filter(|f| f.level as usize == level)
                .copied()
                .collect()
        };
        frames.par_iter().try_for_each(|&f| {
            self.read(f, &|_, r| {
                visit(r);
                true
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_come_back_by_chunk_and_by_level() {
        let dir = tempfile::tempdir().unwrap();
        let entries = 3 * Spill::CHUNK_BLOCKS * BLOCK;
        let spill = Spill::new(dir.path(), entries).unwrap();
        let r = |entry, side, lost| Record { entry, side, lost };
        let chunk_entries = Spill::CHUNK_BLOCKS * BLOCK;
        let first = [r(5, 0, false), r(5, 1, true), r(4095, 1, false)];
        let far = r(2 * chunk_entries + 4097, 0, true);
        spill
            .add(
                7,
                &[
                    (0, first.iter().map(|x| x.pack()).collect()),
                    (1, Vec::new()),
                    (far.entry / BLOCK, vec![far.pack()]),
                ],
            )
            .unwrap();
        spill.add(8, &[(0, vec![r(6, 0, false).pack()])]).unwrap();
        let seen = Mutex::new(Vec::new());
        spill
            .each_in_chunk(0, &|l, x| {
                seen.lock().unwrap().push((l, x));
                true
            })
            .unwrap();
        let mut seen = seen.into_inner().unwrap();
        seen.sort_by_key(|(l, x)| (*l, x.entry, x.side));
        let want: Vec<(usize, Record)> = first
            .iter()
            .map(|x| (7, *x))
            .chain([(8, r(6, 0, false))])
            .collect();
        assert_eq!(seen, want);
        let at = Mutex::new(Vec::new());
        spill
            .each_at_level(7, &|x| at.lock().unwrap().push(x.entry))
            .unwrap();
        let mut at = at.into_inner().unwrap();
        at.sort_unstable();
        assert_eq!(at, vec![5, 5, 4095, far.entry]);
        assert!(spill.each_in_chunk(1, &|_, _| true).is_ok());
        let refused = spill.each_in_chunk(2, &|_, _| false).unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::InvalidData);
        // Nothing is left in the directory: the file has no name.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
