//! Decoding a slice of a sub-table (the placements whose leading pawns
//! have digits in a range, see [`super::frame`]) from a table file whose
//! indices are the whole sub-table's: run by run where the slice's runs
//! are long, else gathered from spans of the sub-table.

use crate::{error::Result, tables::reader::LeadWindow};

/// Decoded run by run where a slice's runs are at least this long: a
/// decode starts at the beginning of its compressed block, so runs of a
/// few values each would decode their blocks over and over.
const SHORT_RUN: u64 = 1 << 12;

/// The most indices decoded at once to gather a slice's short runs.
const GATHER_SPAN: u64 = 1 << 20;

/// Fills `out` with the values of the local indices `local` of a slice
/// (`map`; `None`: the whole sub-table) of a sub-table that starts at
/// index `start` of its file, through `decode(file range, values)`, which
/// decodes a range of the file's indices (the slice's runs, or spans of
/// the sub-table from which the slice's values are gathered).
///
/// # Errors
///
/// Those of `decode`.
pub(crate) fn decode_slice<T: Copy + Default>(
    map: Option<&LeadWindow>,
    start: u64,
    local: std::ops::Range<u64>,
    out: &mut [T],
    mut decode: impl FnMut(std::ops::Range<u64>, &mut [T]) -> Result<()>,
) -> Result<()> {
    let Some(map) = map else {
        return decode(start + local.start..start + local.end, out);
    };
    let mut at = local.start;
    let mut span = Vec::new();
    while at < local.end {
        let run = map.run_from(at, local.end - at);
        let first = map.full_index(at);
        let off = (at - local.start) as usize;
        if run >= SHORT_RUN {
            let range = start + first..start + first + run;
            decode(range, &mut out[off..off + run as usize])?;
            at += run;
            continue;
        }
        // Runs up to a span's end, at least one.
        let mut end = at + run;
        while end < local.end {
            let next = map.run_from(end, local.end - end);
            if map.full_index(end + next - 1) + 1 - first > GATHER_SPAN {
                break;
            }
            end += next;
        }
        let last = map.full_index(end - 1) + 1;
        span.clear();
        span.resize((last - first) as usize, T::default());
        decode(start + first..start + last, &mut span)?;
        for l in at..end {
            out[(l - local.start) as usize] = span[(map.full_index(l) - first) as usize];
        }
        at = end;
    }
    Ok(())
}
