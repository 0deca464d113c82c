//! The code byte of an index and side to move, which every pass reads and
//! writes: the WDL class (the decoder's five values, 0 to 4), pass 1's
//! flags (a capture is best, checkmate, illegal), the later passes'
//! rounding flags, and the byte a raw DTZ magnitude is held in
//! ([`encode_mag`]). Below everything else in the sweep: a code is a
//! value, whoever holds it.

use crate::error::{Error, Result};

/// WDL codes as the sweep decoder gives them.
pub(crate) const LOSS: u8 = 0;
/// Blessed loss.
pub(crate) const BLESSED: u8 = 1;
/// Draw.
pub(crate) const DRAW: u8 = 2;
/// Cursed win.
pub(crate) const CURSED: u8 = 3;
/// Win.
pub(crate) const WIN: u8 = 4;

/// The value for the other side.
#[inline]
pub(crate) fn flip(w: u8) -> u8 {
    4 - w
}

/// Illegal placement (the side not to move is in check).
pub(crate) const ILLEGAL: u8 = 0xff;
/// Code flag: a capture achieves the (decisive) result.
pub(crate) const ZB: u8 = 8;
/// Code flag: the side to move is checkmated.
pub(crate) const MATED: u8 = 16;
/// DTZ of a checkmated side to move (magnitude 0, class loss).
pub(crate) const DTZ_MATED: i16 = i16::MIN;

/// Code flag (passes 2 to 4): the raw DTZ was rounded ("n or n+1").
pub(crate) const ROUNDED: u8 = 0x20;
/// Code flag: the value is still the raw one, to be settled.
pub(crate) const PENDING: u8 = 0x40;
/// Code flag, meaningful once [`PENDING`] is clear: the exact DTZ is the
/// raw one plus a ply. Kept beside `PENDING` in one byte, so that one load
/// gives a consistent value while other threads settle it.
pub(crate) const PLUS: u8 = 0x80;

/// Whether a code's value is still the raw one, to be settled ([`ILLEGAL`]
/// has every bit set, [`PENDING`] too).
#[inline]
pub(crate) fn is_pending(code: u8) -> bool {
    code != ILLEGAL && code & PENDING != 0
}

/// Whether a code says the side to move is checkmated ([`ILLEGAL`] has
/// every bit set, [`MATED`] too).
#[inline]
pub(crate) fn is_mated(code: u8) -> bool {
    code != ILLEGAL && code & MATED != 0
}

/// The sign of a WDL code: +1 wins, -1 losses, 0 draws.
#[inline]
pub(crate) fn sign(w: u8) -> i32 {
    match w {
        LOSS | BLESSED => -1,
        CURSED | WIN => 1,
        _ => 0,
    }
}

/// The byte that holds the raw DTZ magnitude `m` (plies) of a decisive
/// position of WDL class `wdl`, on the stored (`half` 0, and symmetric
/// material) or unstored (1) side. One byte per index and side is what
/// lets a 6-piece pawnless table fit (KRN v KNN: 4 bytes per index in all,
/// where two i16 and a flag byte took 7).
///
/// The magnitudes a table can give are few, and their form is known:
/// - wins and losses, under 50 moves by definition: `m` itself;
/// - cursed wins and blessed losses on the stored side: 101 plus an even
///   number of plies (the format stores them in moves, and a zeroing move
///   scores 101);
/// - the same on the unstored side: one more than a stored value (102 plus
///   an even number), or 101 for a loser's zeroing move.
///
/// Anything else (a wrong parity, a value past 611 plies) is `None`, so a
/// table this does not cover fails loudly rather than miscounts. Syzygy's
/// 6-piece maps are bytes (v <= 255); KRN v KNN's longest, 485 plies past
/// its zeroing value of 101, needs v = 242.
pub(crate) fn encode_mag(half: usize, wdl: u8, m: i32) -> Option<u8> {
    let code = match (wdl, half) {
        (WIN | LOSS, _) => m,
        (_, 0) if m >= 101 && (m - 101) % 2 == 0 => (m - 101) / 2,
        (_, 1) if m == 101 => 0,
        (_, 1) if m >= 102 && m % 2 == 0 => (m - 100) / 2,
        _ => return None,
    };
    u8::try_from(code).ok()
}

/// The raw DTZ magnitude a byte of [`encode_mag`] holds.
#[inline]
pub(crate) fn decode_mag(half: usize, wdl: u8, code: u8) -> i32 {
    let b = i32::from(code);
    match (wdl, half) {
        (WIN | LOSS, _) => b,
        (_, 0) => 101 + 2 * b,
        (_, _) if b == 0 => 101,
        _ => 100 + 2 * b,
    }
}

/// The error of a raw DTZ `v` that [`encode_mag`] cannot hold, for side
/// `half` of an index whose code is `code`. Out of line: pass 2 checks
/// every value, and the check stays small.
#[cold]
#[inline(never)]
fn mag_out_of_range(half: usize, code: u8, v: i16) -> Error {
    Error::inconsistent(
        "the sweep",
        format!(
            "raw DTZ {v} of WDL class {} ({} side) out of the sweep's range",
            code & 7,
            if half == 0 { "stored" } else { "unstored" }
        ),
    )
}

/// DTZ of a zeroing best move for a decisive class.
#[inline]
pub(crate) fn zero_score(w: u8) -> i16 {
    match w {
        WIN => 1,
        LOSS => -1,
        CURSED => 101,
        _ => -101,
    }
}

/// The byte ([`encode_mag`]) of raw DTZ `v` of side `half` (0 stored, 1
/// unstored) at an index whose code is `code` (0 for a draw or checkmate:
/// never read).
///
/// # Errors
///
/// A value [`encode_mag`] cannot hold.
#[inline]
pub(crate) fn mag_byte(half: usize, code: u8, v: i16) -> Result<u8> {
    if v == 0 || v == DTZ_MATED {
        return Ok(0);
    }
    let m = i32::from(v).abs();
    match encode_mag(half, code & 7, m) {
        Some(byte) => Ok(byte),
        None => Err(mag_out_of_range(half, code, v)),
    }
}

/// The raw DTZ (and whether rounded) of a code whose value needs neither
/// the table nor a search: 0 for illegal placements and draws,
/// [`DTZ_MATED`] for checkmate. `None` for the other decisive codes.
#[inline]
pub(crate) fn fixed_raw(code: u8) -> Option<(i16, bool)> {
    if code == ILLEGAL {
        return Some((0, false));
    }
    if code & MATED != 0 {
        return Some((DTZ_MATED, false));
    }
    (sign(code & 7) == 0).then_some((0, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every magnitude a table can give, by class and side, as the
    /// reader's decoding makes them (see `encode_mag`): 1 + plies or
    /// 1 + 2 x moves for wins and losses, 101 + 2 x moves for the stored
    /// side's cursed and blessed values, one more (or a loser's 101) on
    /// the unstored side.
    #[test]
    fn every_reachable_magnitude_round_trips_through_its_byte() {
        for half in 0..2 {
            for wdl in [WIN, LOSS] {
                for m in 0..=255 {
                    let byte = encode_mag(half, wdl, m).expect("a win or loss under 256 plies");
                    assert_eq!(decode_mag(half, wdl, byte), m);
                }
                assert_eq!(encode_mag(half, wdl, 256), None);
            }
        }
        for wdl in [CURSED, BLESSED] {
            for moves in 0..=255 {
                let m = 101 + 2 * moves;
                let byte = encode_mag(0, wdl, m).expect("a stored cursed value");
                assert_eq!(decode_mag(0, wdl, byte), m);
            }
            let mut unstored = vec![101];
            unstored.extend((0..=254).map(|moves| 102 + 2 * moves));
            for m in unstored {
                let byte = encode_mag(1, wdl, m).expect("an unstored cursed value");
                assert_eq!(decode_mag(1, wdl, byte), m);
            }
        }
    }

    #[test]
    fn magnitudes_outside_the_forms_are_refused() {
        for wdl in [CURSED, BLESSED] {
            // Stored: even, under 101, or past 101 + 2 x 255 plies.
            for m in [0, 100, 102, 610, 613, 1033] {
                assert_eq!(encode_mag(0, wdl, m), None, "stored {m}");
            }
            // Unstored: odd past 101, under 101, or past 100 + 2 x 255.
            for m in [0, 100, 103, 611, 612, 1034] {
                assert_eq!(encode_mag(1, wdl, m), None, "unstored {m}");
            }
        }
    }

    #[test]
    fn no_code_with_flags_passes_for_illegal() {
        let flags = [ZB, MATED, ROUNDED, PENDING, PLUS];
        for class in [LOSS, BLESSED, DRAW, CURSED, WIN] {
            for subset in 0..1u32 << flags.len() {
                let code = flags
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| subset & 1 << k != 0)
                    .fold(class, |c, (_, f)| c | f);
                assert_ne!(code, ILLEGAL);
                assert_eq!(code & 7, class);
                assert_eq!(is_pending(code), code & PENDING != 0);
                assert_eq!(is_mated(code), code & MATED != 0);
            }
        }
        assert!(!is_pending(ILLEGAL));
        assert!(!is_mated(ILLEGAL));
        assert_eq!(sign(ILLEGAL & 7), 0);
    }
}
