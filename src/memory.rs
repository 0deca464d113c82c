//! How much memory a sweep may take, and how much the system has for it.
//!
//! A sweep holds whole tables in memory (see the module documentation of
//! [`crate::scan::sweep`]); a 6-piece table needs more than most machines
//! have. Rather than die of an allocation failure or the kernel's
//! out-of-memory killer hours into a run, a sweep works out its bound from
//! the table headers first and refuses to start beyond the limit.

use std::fmt;

/// How much memory a sweep may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum MemoryLimit {
    /// What the system reports available when the sweep starts (Linux:
    /// `MemAvailable` in `/proc/meminfo`); no check where it does not say.
    #[default]
    Available,
    /// At most this many bytes.
    Bytes(u64),
}

impl MemoryLimit {
    /// The limit in bytes, if there is one.
    pub fn bytes(self) -> Option<u64> {
        match self {
            MemoryLimit::Available => available(),
            MemoryLimit::Bytes(n) => Some(n),
        }
    }
}

/// `MemAvailable` of `/proc/meminfo`, in bytes.
fn available() -> Option<u64> {
    proc_kib("/proc/meminfo", "MemAvailable")
}

/// The most memory this process has held so far (Linux: `VmHWM` in
/// `/proc/self/status`), in bytes; for the solver's timing notes.
pub fn peak_resident() -> Option<u64> {
    proc_kib("/proc/self/status", "VmHWM")
}

/// The value of a `KEY: N kB` line of a `/proc` file, in bytes; `None`
/// where the file, the line or its unit is not there.
fn proc_kib(path: &str, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    parse_kib_line(&text, key)
}

/// [`proc_kib`] on the file's text.
fn parse_kib_line(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| {
        l.strip_prefix(key)
            .is_some_and(|rest| rest.starts_with(':'))
    })?;
    let mut words = line.split_whitespace().skip(1);
    let kib: u64 = words.next()?.parse().ok()?;
    (words.next() == Some("kB")).then(|| kib.saturating_mul(1024))
}

/// Parses a size: bytes, or a number with a binary suffix `K`, `M`, `G` or
/// `T` (powers of 1024; a trailing `B` or `iB` is allowed, case does not
/// matter), as in `512M` or `1.5G`. `None` for anything else, zero
/// included.
pub fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim().to_ascii_uppercase();
    let t = t
        .strip_suffix("IB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(&t);
    let (number, shift) = match t.char_indices().last()? {
        (i, 'K') => (&t[..i], 10),
        (i, 'M') => (&t[..i], 20),
        (i, 'G') => (&t[..i], 30),
        (i, 'T') => (&t[..i], 40),
        _ => (t, 0),
    };
    let number = number.trim();
    if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let bytes = match number.split_once('.') {
        None => number.parse::<u64>().ok()?.checked_mul(1 << shift)?,
        Some((whole, frac)) => {
            // Exact for the fractions people write (1.5G), without floats.
            let whole: u64 = if whole.is_empty() {
                0
            } else {
                whole.parse().ok()?
            };
            if frac.is_empty() || frac.len() > 9 || shift == 0 {
                return None;
            }
            let scale = 10u128.pow(frac.len() as u32);
            let frac: u128 = frac.parse().ok()?;
            let unit = 1u128 << shift;
            let total = u128::from(whole) * unit + frac * unit / scale;
            u64::try_from(total).ok()?
        }
    };
    (bytes > 0).then_some(bytes)
}

/// A byte count for people: `1.5 GiB`.
pub(crate) struct Size(pub(crate) u64);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
        let mut value = self.0 as f64;
        let mut unit = 0;
        while value >= 1024.0 && unit + 1 < units.len() {
            value /= 1024.0;
            unit += 1;
        }
        if unit == 0 {
            write!(f, "{} bytes", self.0)
        } else {
            write!(f, "{value:.1} {}", units[unit])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{parse_kib_line, parse_size, Size};

    /// The `/proc` lines as Linux writes them: the key with its colon, the
    /// number, `kB`; a key that only starts like another is not it.
    #[test]
    fn proc_lines_give_bytes() {
        let meminfo = "MemTotal:       24576000 kB\nMemFree:  1000 kB\nMemAvailable:   20480 kB\n";
        assert_eq!(parse_kib_line(meminfo, "MemAvailable"), Some(20480 * 1024));
        assert_eq!(parse_kib_line(meminfo, "Mem"), None);
        let status = "VmPeak:\t  100 kB\nVmHWM:\t    6133152 kB\n";
        assert_eq!(parse_kib_line(status, "VmHWM"), Some(6_133_152 * 1024));
        assert_eq!(parse_kib_line("VmHWM: 12 MB\n", "VmHWM"), None);
        assert_eq!(parse_kib_line("VmHWM: lots kB\n", "VmHWM"), None);
    }

    #[test]
    fn sizes_parse_as_written() {
        assert_eq!(parse_size("123"), Some(123));
        assert_eq!(parse_size("4k"), Some(4096));
        assert_eq!(parse_size("512M"), Some(512 << 20));
        assert_eq!(parse_size("512MiB"), Some(512 << 20));
        assert_eq!(parse_size("2GB"), Some(2 << 30));
        assert_eq!(parse_size("1.5G"), Some(3 << 29));
        assert_eq!(parse_size(" 1T "), Some(1 << 40));
        for bad in [
            "",
            "G",
            "0",
            "0G",
            "-1G",
            "1.5",
            "1..5G",
            "banana",
            "1X",
            "99999999999T",
        ] {
            assert_eq!(parse_size(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn sizes_print_for_people() {
        assert_eq!(Size(1023).to_string(), "1023 bytes");
        assert_eq!(Size(3 << 29).to_string(), "1.5 GiB");
        assert_eq!(Size(700 << 20).to_string(), "700.0 MiB");
    }
}
