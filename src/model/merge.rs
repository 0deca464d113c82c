//! Summing the shard results of `scan --shard K/N` into whole results, and
//! reading result files (JSON Lines, as `scan --out` writes them).

use std::path::{Path, PathBuf};

use crate::{
    error::{Error, Result},
    model::ScanStats,
};

/// Reads the results in `paths`, one JSON document per non-empty line, in
/// file and line order. They must all be of one build
/// ([`ScanStats::build`]): results of different code are never summed or
/// set side by side.
///
/// # Errors
///
/// [`Error::Read`] naming the file that cannot be read,
/// [`Error::NotAScanResult`] the file and line that is not a scan result,
/// [`Error::MixedBuilds`] the files of each build when there are several.
pub fn read_results(paths: &[PathBuf]) -> Result<Vec<ScanStats>> {
    let mut parts = Vec::new();
    // Each build, with the places of its documents, in order of appearance.
    let mut builds: Vec<(Option<String>, Vec<String>)> = Vec::new();
    for path in paths {
        let text = read_text(path)?;
        let lines: Vec<(usize, &str)> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .collect();
        for &(i, line) in &lines {
            let stats: ScanStats =
                serde_json::from_str(line).map_err(|source| Error::NotAScanResult {
                    path: path.clone(),
                    line: i + 1,
                    source,
                })?;
            // A file of one document is named by its path alone.
            let place = if lines.len() == 1 {
                path.display().to_string()
            } else {
                format!("{}:{}", path.display(), i + 1)
            };
            match builds.iter_mut().find(|(b, _)| *b == stats.build) {
                Some((_, places)) => places.push(place),
                None => builds.push((stats.build.clone(), vec![place])),
            }
            parts.push(stats);
        }
    }
    if builds.len() > 1 {
        return Err(Error::MixedBuilds { builds });
    }
    Ok(parts)
}

/// The build that made `results` (all of one build, as [`read_results`]
/// gives them), if they name it.
pub fn build_of(results: &[ScanStats]) -> Option<&str> {
    results.first().and_then(|r| r.build.as_deref())
}

/// Reads the results in `paths` as [`read_results`] does and, if any of them
/// is a shard, merges them with [`merge_shards`].
///
/// # Errors
///
/// The errors of both.
pub fn read_whole_results(paths: &[PathBuf]) -> Result<Vec<ScanStats>> {
    let parts = read_results(paths)?;
    if parts.iter().any(|p| p.shard.is_some()) {
        return merge_shards(parts);
    }
    Ok(parts)
}

/// A whole text file, or [`Error::Read`] naming it.
///
/// # Errors
///
/// [`Error::Read`] if it cannot be read as UTF-8 text.
pub fn read_text(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// Groups `parts` by material and sums each group. Each group must hold
/// shards 1..=N of one N exactly once, or be a single unsharded result.
/// Materials come out in the order they first appear.
///
/// # Errors
///
/// [`Error::Usage`] naming the material when shards are missing, repeated,
/// or from different splits.
pub fn merge_shards(parts: Vec<ScanStats>) -> Result<Vec<ScanStats>> {
    let mut groups: Vec<(String, Vec<ScanStats>)> = Vec::new();
    for part in parts {
        match groups.iter_mut().find(|(m, _)| *m == part.material) {
            Some((_, g)) => g.push(part),
            None => groups.push((part.material.clone(), vec![part])),
        }
    }
    let mut merged = Vec::new();
    for (material, group) in groups {
        let bad = |why: String| Error::Usage(format!("cannot merge {material}: {why}"));
        let n = match group[0].shard {
            None if group.len() == 1 => {
                merged.push(group.into_iter().next().expect("one element"));
                continue;
            }
            None => return Err(bad("it appears more than once without shard numbers".into())),
            Some(s) => s.n,
        };
        let mut seen = vec![false; n as usize];
        for part in &group {
            let s = part
                .shard
                .ok_or_else(|| bad("a whole result is mixed with shards".into()))?;
            if s.n != n {
                return Err(bad(format!("shards of {n} and of {} are mixed", s.n)));
            }
            if s.k == 0 || s.k > n || std::mem::replace(&mut seen[s.k as usize - 1], true) {
                return Err(bad(format!("shard {}/{n} is repeated or invalid", s.k)));
            }
            if part.counting != group[0].counting {
                return Err(bad("different counting conventions".into()));
            }
            if (&part.engine, part.rule, part.metric)
                != (&group[0].engine, group[0].rule, group[0].metric)
            {
                return Err(bad(
                    "the parts come from different engines, rules or metrics".into(),
                ));
            }
            if part.build != group[0].build {
                return Err(bad(
                    "the parts come from different builds of fiftymove".into()
                ));
            }
        }
        let missing: Vec<String> = seen
            .iter()
            .enumerate()
            .filter(|(_, s)| !**s)
            .map(|(i, _)| format!("{}/{n}", i + 1))
            .collect();
        if !missing.is_empty() {
            return Err(bad(format!("missing shard(s) {}", missing.join(", "))));
        }
        let mut iter = group.into_iter();
        let mut total = iter.next().expect("non-empty group");
        for part in iter {
            total += &part;
        }
        total.shard = None;
        if total.metric == Some(crate::chess::rule::Metric::Dtr) {
            total.white.count_rules();
            total.black.count_rules();
        }
        merged.push(total);
    }
    Ok(merged)
}
