//! Numbers for people: percentages and byte sizes, as the claims' evidence,
//! the reports and the binary print them.

/// `n / total` as a percentage with two decimals.
pub fn pct(n: u64, total: u64) -> String {
    if total == 0 {
        return "0%".into();
    }
    format!("{:.2}%", 100.0 * n as f64 / total as f64)
}

/// Bytes for people: `1.2 GB`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "kB", "MB", "GB", "TB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1000.0 && u + 1 < UNITS.len() {
        v /= 1000.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} bytes")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}
