//! Whole-endgame statistics: per side to move, the five WDL classes, exact
//! DTZ histograms and the longest position of each class. Stats merge with
//! `+=`, so per-thread and per-shard results sum to the whole.

use std::{collections::BTreeMap, ops::AddAssign};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::chess::{
    rule::{Metric, Rule},
    wdl::{Dtz, Wdl},
};

/// Counts of the five WDL classes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WdlCounts {
    /// Losses.
    pub loss: u64,
    /// Blessed losses.
    pub blessed_loss: u64,
    /// Draws.
    pub draw: u64,
    /// Cursed wins.
    pub cursed_win: u64,
    /// Wins.
    pub win: u64,
}

impl WdlCounts {
    /// The count of one class.
    pub fn get(&self, wdl: Wdl) -> u64 {
        match wdl {
            Wdl::Loss => self.loss,
            Wdl::BlessedLoss => self.blessed_loss,
            Wdl::Draw => self.draw,
            Wdl::CursedWin => self.cursed_win,
            Wdl::Win => self.win,
        }
    }

    fn get_mut(&mut self, wdl: Wdl) -> &mut u64 {
        match wdl {
            Wdl::Loss => &mut self.loss,
            Wdl::BlessedLoss => &mut self.blessed_loss,
            Wdl::Draw => &mut self.draw,
            Wdl::CursedWin => &mut self.cursed_win,
            Wdl::Win => &mut self.win,
        }
    }

    /// The sum over all classes.
    pub fn total(&self) -> u64 {
        Wdl::ALL.iter().map(|w| self.get(*w)).sum()
    }
}

impl AddAssign<&WdlCounts> for WdlCounts {
    fn add_assign(&mut self, rhs: &WdlCounts) {
        for w in Wdl::ALL {
            *self.get_mut(w) += rhs.get(w);
        }
    }
}

/// A histogram over DTZ plies, dense in memory and written as a JSON object
/// with string keys in ascending numeric order, zero bins left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Histogram(Vec<u64>);

impl Histogram {
    /// Adds `n` positions at `plies`.
    pub fn add(&mut self, plies: u32, n: u64) {
        let i = plies as usize;
        if self.0.len() <= i {
            self.0.resize(i + 1, 0);
        }
        self.0[i] += n;
    }

    /// The count at `plies`.
    pub fn get(&self, plies: u32) -> u64 {
        self.0.get(plies as usize).copied().unwrap_or(0)
    }

    /// Non-zero bins in ascending order.
    pub fn bins(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.0
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(i, n)| (i as u32, *n))
    }

    /// The sum of all bins.
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }

    /// The largest non-empty bin.
    pub fn max(&self) -> Option<u32> {
        self.bins().last().map(|(p, _)| p)
    }
}

impl FromIterator<(u32, u64)> for Histogram {
    /// The histogram of the `(plies, count)` pairs, a pair's count added at
    /// its plies as [`Histogram::add`] does.
    fn from_iter<I: IntoIterator<Item = (u32, u64)>>(bins: I) -> Histogram {
        let mut h = Histogram::default();
        for (plies, n) in bins {
            h.add(plies, n);
        }
        h
    }
}

impl AddAssign<&Histogram> for Histogram {
    fn add_assign(&mut self, rhs: &Histogram) {
        for (p, n) in rhs.bins() {
            self.add(p, n);
        }
    }
}

impl Serialize for Histogram {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(None)?;
        for (p, n) in self.bins() {
            map.serialize_entry(&p.to_string(), &n)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Histogram {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = BTreeMap::<String, u64>::deserialize(d)?;
        let mut h = Histogram::default();
        for (k, n) in raw {
            let p: u32 = k
                .parse()
                .map_err(|_| serde::de::Error::custom(format!("bad histogram key '{k}'")))?;
            h.add(p, n);
        }
        Ok(h)
    }
}

/// DTZ histograms of one side to move.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DtzHistograms {
    /// Wins and cursed wins, by DTZ in plies (cursed above 100).
    pub win: Histogram,
    /// Losses and blessed losses, by DTZ magnitude (0 = mated).
    pub loss: Histogram,
}

/// The longest position of a class.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LongestEntry {
    /// DTZ magnitude in plies.
    pub dtz: u32,
    /// Its FEN; the smallest FEN among ties.
    pub fen: String,
}

impl LongestEntry {
    /// Whether `(dtz, fen)` should replace the current entry.
    fn beaten_by(&self, dtz: u32, fen: &str) -> bool {
        dtz > self.dtz || (dtz == self.dtz && fen < self.fen.as_str())
    }
}

/// The longest position of each decisive class.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Longest {
    /// Longest win.
    pub win: Option<LongestEntry>,
    /// Longest cursed win.
    pub cursed_win: Option<LongestEntry>,
    /// Longest loss.
    pub loss: Option<LongestEntry>,
    /// Longest blessed loss.
    pub blessed_loss: Option<LongestEntry>,
}

impl Longest {
    fn slot(&mut self, wdl: Wdl) -> Option<&mut Option<LongestEntry>> {
        match wdl {
            Wdl::Win => Some(&mut self.win),
            Wdl::CursedWin => Some(&mut self.cursed_win),
            Wdl::Loss => Some(&mut self.loss),
            Wdl::BlessedLoss => Some(&mut self.blessed_loss),
            Wdl::Draw => None,
        }
    }

    /// Whether a position of class `wdl` at `dtz` could enter the table; a
    /// cheap test that spares computing FENs for most positions.
    pub fn wants(&self, wdl: Wdl, dtz: u32) -> bool {
        let cur = match wdl {
            Wdl::Win => &self.win,
            Wdl::CursedWin => &self.cursed_win,
            Wdl::Loss => &self.loss,
            Wdl::BlessedLoss => &self.blessed_loss,
            Wdl::Draw => return false,
        };
        cur.as_ref().is_none_or(|e| dtz >= e.dtz)
    }

    /// Offers a position.
    pub fn offer(&mut self, wdl: Wdl, dtz: u32, fen: impl FnOnce() -> String) {
        if !self.wants(wdl, dtz) {
            return;
        }
        let fen = fen();
        if let Some(slot) = self.slot(wdl) {
            if slot.as_ref().is_none_or(|e| e.beaten_by(dtz, &fen)) {
                *slot = Some(LongestEntry { dtz, fen });
            }
        }
    }
}

impl AddAssign<&Longest> for Longest {
    fn add_assign(&mut self, rhs: &Longest) {
        for (wdl, entry) in [
            (Wdl::Win, &rhs.win),
            (Wdl::CursedWin, &rhs.cursed_win),
            (Wdl::Loss, &rhs.loss),
            (Wdl::BlessedLoss, &rhs.blessed_loss),
        ] {
            if let Some(e) = entry {
                self.offer(wdl, e.dtz, || e.fen.clone());
            }
        }
    }
}

/// Plain counts of legal placements without symmetry reduction (`--raw`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawCounts {
    /// Legal placements.
    pub positions: u64,
    /// Their WDL classes.
    pub wdl: WdlCounts,
}

/// Statistics of one side to move.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideStats {
    /// Positions counted (symmetry-reduced).
    pub positions: u64,
    /// Positions per WDL class.
    pub wdl: WdlCounts,
    /// DTZ histograms (of a solve's metric: DTZ, DTR or DTM; the JSON names
    /// the field after the metric).
    #[serde(alias = "dtr", alias = "dtm")]
    pub dtz: DtzHistograms,
    /// Longest position per class.
    pub longest: Longest,
    /// For DTR: positions won under an N-move rule, by N (the wins whose
    /// DTR is at most 2N plies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub won_under: Option<BTreeMap<String, u64>>,
    /// For DTR: positions lost under an N-move rule, by N.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost_under: Option<BTreeMap<String, u64>>,
    /// Unreduced counts, when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<RawCounts>,
}

/// The rules whose wins a DTR document counts: the 50-move rule, the 1928
/// allowance for KRB v KR (132 plies, 66 moves), the 1989 allowance (75)
/// and the 1982 one (100).
pub const RULES_COUNTED: [u16; 4] = [50, 66, 75, 100];

impl SideStats {
    /// Records one position of class `wdl` with exact DTZ `dtz`, standing
    /// for `orbit` raw placements.
    pub fn record(&mut self, wdl: Wdl, dtz: Dtz, orbit: u32, fen: impl FnOnce() -> String) {
        self.count(wdl, dtz.0, 1, u64::from(orbit));
        self.longest.offer(wdl, dtz.plies(), fen);
    }

    /// Counts `n` positions of class `wdl` with exact DTZ `dtz`, standing for
    /// `raw` raw placements, without offering them as longest (an engine
    /// that finds its longest positions apart calls [`Longest::offer`]).
    pub fn count(&mut self, wdl: Wdl, dtz: i32, n: u64, raw: u64) {
        self.positions += n;
        *self.wdl.get_mut(wdl) += n;
        let mag = dtz.unsigned_abs();
        match wdl.signum() {
            1 => self.dtz.win.add(mag, n),
            -1 => self.dtz.loss.add(mag, n),
            _ => {}
        }
        if let Some(r) = &mut self.raw {
            r.positions += raw;
            *r.wdl.get_mut(wdl) += raw;
        }
    }
}

impl SideStats {
    /// Fills `won_under` and `lost_under` from the histograms, which hold
    /// DTR.
    pub fn count_rules(&mut self) {
        let under = |h: &Histogram| -> BTreeMap<String, u64> {
            RULES_COUNTED
                .iter()
                .map(|&n| {
                    let limit = 2 * u32::from(n);
                    let count = h.bins().filter(|(p, _)| *p <= limit).map(|(_, c)| c).sum();
                    (n.to_string(), count)
                })
                .collect()
        };
        self.won_under = Some(under(&self.dtz.win));
        self.lost_under = Some(under(&self.dtz.loss));
    }
}

/// Sums the counts (`won_under` and `lost_under` are derived, and are made
/// again with [`SideStats::count_rules`] after summing).
impl AddAssign<&SideStats> for SideStats {
    fn add_assign(&mut self, rhs: &SideStats) {
        self.positions += rhs.positions;
        self.wdl += &rhs.wdl;
        self.dtz.win += &rhs.dtz.win;
        self.dtz.loss += &rhs.dtz.loss;
        self.longest += &rhs.longest;
        match (&mut self.raw, &rhs.raw) {
            (Some(a), Some(b)) => {
                a.positions += b.positions;
                a.wdl += &b.wdl;
            }
            (None, Some(b)) => self.raw = Some(*b),
            _ => {}
        }
    }
}

/// Which part of a sharded scan a result holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// 1-based shard number.
    pub k: u32,
    /// Number of shards.
    pub n: u32,
}

impl Shard {
    /// Whether work item number `item` (its place in the enumerator's fixed
    /// order) belongs to this shard: every n-th item, from the k-th. The one
    /// partition the probe engine, the sweep and the solver all count by.
    #[inline]
    pub fn holds(self, item: u32) -> bool {
        item % self.n == self.k - 1
    }
}

/// The statistics of one material, both sides to move.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct ScanStats {
    /// The material, White first.
    pub material: String,
    /// `symmetry-reduced`.
    pub counting: String,
    /// The engine, when it is not a scan of Syzygy tables (`solve`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    /// The move-limit rule of a solve.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<Rule>,
    /// The metric of a solve.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric: Option<Metric>,
    /// The build id of the code that computed it ([`crate::build_id`]);
    /// `None` in a document of a build before documents named theirs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
    /// White to move.
    pub white: SideStats,
    /// Black to move.
    pub black: SideStats,
    /// Present only in a shard's partial result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
}

/// Writes `key` into `map` when `value` is present, and nothing otherwise
/// (the `skip_serializing_if = "Option::is_none"` of a derived field).
fn entry_if_some<M: serde::ser::SerializeMap, T: Serialize>(
    map: &mut M,
    key: &str,
    value: &Option<T>,
) -> Result<(), M::Error> {
    match value {
        Some(v) => map.serialize_entry(key, v),
        None => Ok(()),
    }
}

/// A side as a document writes it: the histograms under the metric's name.
struct SideView<'a> {
    side: &'a SideStats,
    key: &'static str,
}

impl Serialize for SideView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let side = self.side;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("positions", &side.positions)?;
        map.serialize_entry("wdl", &side.wdl)?;
        map.serialize_entry(self.key, &side.dtz)?;
        map.serialize_entry("longest", &side.longest)?;
        entry_if_some(&mut map, "won_under", &side.won_under)?;
        entry_if_some(&mut map, "lost_under", &side.lost_under)?;
        entry_if_some(&mut map, "raw", &side.raw)?;
        map.end()
    }
}

impl Serialize for ScanStats {
    /// The fields in declaration order, with each side's histograms named
    /// after the metric of a solve (`dtz`, `dtr` or `dtm`).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let key = self.metric.map_or("dtz", Metric::as_str);
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("material", &self.material)?;
        map.serialize_entry("counting", &self.counting)?;
        entry_if_some(&mut map, "engine", &self.engine)?;
        entry_if_some(&mut map, "rule", &self.rule)?;
        entry_if_some(&mut map, "metric", &self.metric)?;
        entry_if_some(&mut map, "build", &self.build)?;
        map.serialize_entry(
            "white",
            &SideView {
                side: &self.white,
                key,
            },
        )?;
        map.serialize_entry(
            "black",
            &SideView {
                side: &self.black,
                key,
            },
        )?;
        entry_if_some(&mut map, "shard", &self.shard)?;
        map.end()
    }
}

/// The `counting` value of the design's convention.
pub const SYMMETRY_REDUCED: &str = "symmetry-reduced";

impl ScanStats {
    /// Empty statistics for `material`, made by this build.
    pub fn new(material: &str, raw: bool) -> ScanStats {
        let side = SideStats {
            raw: raw.then(RawCounts::default),
            ..SideStats::default()
        };
        ScanStats {
            material: material.to_owned(),
            counting: SYMMETRY_REDUCED.to_owned(),
            engine: None,
            rule: None,
            metric: None,
            build: Some(crate::build_id::BUILD_ID.to_owned()),
            white: side.clone(),
            black: side,
            shard: None,
        }
    }

    /// The stats of one side to move.
    pub fn side(&self, color: shakmaty::Color) -> &SideStats {
        match color {
            shakmaty::Color::White => &self.white,
            shakmaty::Color::Black => &self.black,
        }
    }

    /// Mutable stats of one side to move.
    pub fn side_mut(&mut self, color: shakmaty::Color) -> &mut SideStats {
        match color {
            shakmaty::Color::White => &mut self.white,
            shakmaty::Color::Black => &mut self.black,
        }
    }
}

impl AddAssign<&ScanStats> for ScanStats {
    fn add_assign(&mut self, rhs: &ScanStats) {
        self.white += &rhs.white;
        self.black += &rhs.black;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_json_is_numeric_order() {
        let h = Histogram::from_iter([(100, 2), (3, 1), (11, 5)]);
        let s = serde_json::to_string(&h).unwrap();
        assert_eq!(s, r#"{"3":1,"11":5,"100":2}"#);
        let back: Histogram = serde_json::from_str(&s).unwrap();
        assert_eq!(back, h);
    }

    #[test]
    fn longest_breaks_ties_by_smallest_fen() {
        let mut a = Longest::default();
        a.offer(Wdl::Win, 10, || "b".into());
        let mut b = Longest::default();
        b.offer(Wdl::Win, 10, || "a".into());
        let mut ab = a.clone();
        ab += &b;
        let mut ba = b.clone();
        ba += &a;
        assert_eq!(ab, ba);
        assert_eq!(ab.win.unwrap().fen, "a");
    }
}
