//! `cache`: what the caches under the root hold, by build, and removing
//! what the user names. No other command removes a result: another build's
//! files are never read, but they are the user's to keep (a 6-piece solve
//! takes most of an hour).

use std::{
    collections::BTreeMap,
    io::{self, Write},
    path::Path,
};

use fiftymove::{
    build_id::{self, CachedFile, FileCount, BUILD_ID},
    chess::material::Material,
    claims::StatsCache,
    dirs::CacheRoot,
    human::human_bytes,
    solve::Cache,
    Error,
};
use serde::Serialize;

use crate::{
    args::{CacheAction, CleanArgs},
    render, Global, RunResult,
};

/// A result file and the cache that holds it.
pub struct ResultFile {
    /// `solve` or `stats`.
    pub cache: &'static str,
    /// The file.
    pub file: CachedFile,
}

/// Every result file under `root`: the solves, then the statistics
/// documents.
pub fn result_files(root: &CacheRoot) -> io::Result<Vec<ResultFile>> {
    let solves = Cache::new(root.solves()).files()?;
    let stats = StatsCache::new(root.stats()).files()?;
    Ok(solves
        .into_iter()
        .map(|file| ResultFile {
            cache: "solve",
            file,
        })
        .chain(stats.into_iter().map(|file| ResultFile {
            cache: "stats",
            file,
        }))
        .collect())
}

/// The files and bytes under `path` (a file, or a directory walked
/// whole); nothing for a missing path.
fn size_of(path: &Path) -> io::Result<FileCount> {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(FileCount::default()),
        Err(e) => return Err(e),
    };
    if !meta.is_dir() {
        return Ok(FileCount {
            files: 1,
            bytes: meta.len(),
        });
    }
    let mut count = FileCount::default();
    for entry in std::fs::read_dir(path)? {
        count += size_of(&entry?.path())?;
    }
    Ok(count)
}

/// One row of `cache list`: the files of one build, cache, material and
/// kind of result.
#[derive(Serialize)]
struct Row<'a> {
    cache: &'a str,
    build: &'a str,
    this_build: bool,
    material: &'a str,
    what: &'a str,
    in_progress: bool,
    files: u64,
    bytes: u64,
}

/// The md5 verdicts or a service's answers, as `cache list --json` gives
/// them.
#[derive(Serialize)]
struct OtherCache<'a> {
    cache: &'a str,
    path: String,
    files: u64,
    bytes: u64,
}

fn root_of(global: &Global) -> Result<&CacheRoot, Error> {
    global.cache_root.as_ref().ok_or_else(|| {
        Error::Usage(
            "no cache directory: give --cache-dir DIR, or set FIFTYMOVE_CACHE_DIR or HOME".into(),
        )
    })
}

fn io_error(root: &CacheRoot, error: io::Error) -> Error {
    Error::Read {
        path: root.root().to_path_buf(),
        source: error,
    }
}

pub fn cmd_cache(global: &Global, action: Option<&CacheAction>, out: &mut impl Write) -> RunResult {
    let root = root_of(global)?;
    match action {
        None | Some(CacheAction::List) => list(global, root, out),
        Some(CacheAction::Clean(args)) => clean(global, root, args, out),
    }
}

fn list(global: &Global, root: &CacheRoot, out: &mut impl Write) -> RunResult {
    let files = result_files(root).map_err(|e| io_error(root, e))?;
    // Grouped by (this build first, build, cache, material, what, partial).
    let mut groups: BTreeMap<(bool, &str, &str, &str, &str, bool), FileCount> = BTreeMap::new();
    for f in &files {
        let key = (
            !f.file.of_this_build(),
            f.file.build.as_str(),
            f.cache,
            f.file.material.as_str(),
            f.file.what.as_str(),
            f.file.partial,
        );
        *groups.entry(key).or_default() += FileCount {
            files: 1,
            bytes: f.file.bytes,
        };
    }
    let md5 = root.md5_verdicts();
    let remote = root.remote_answers();
    let md5_size = size_of(&md5).map_err(|e| io_error(root, e))?;
    let remote_size = size_of(&remote).map_err(|e| io_error(root, e))?;
    if global.json {
        for ((other, build, cache, material, what, partial), count) in &groups {
            render::json_line(
                out,
                &Row {
                    cache,
                    build,
                    this_build: !other,
                    material,
                    what,
                    in_progress: *partial,
                    files: count.files,
                    bytes: count.bytes,
                },
            )?;
        }
        for (cache, path, size) in [("md5", &md5, md5_size), ("remote", &remote, remote_size)] {
            render::json_line(
                out,
                &OtherCache {
                    cache,
                    path: path.display().to_string(),
                    files: size.files,
                    bytes: size.bytes,
                },
            )?;
        }
        return Ok(());
    }
    writeln!(out, "cache root  {}", root.root().display())?;
    writeln!(out, "this build  {BUILD_ID}")?;
    if groups.is_empty() {
        writeln!(out, "\nno cached results")?;
    } else {
        writeln!(out)?;
        writeln!(
            out,
            "{:<17} {:<5} {:<9} {:<14} {:>5} {:>10}",
            "build", "cache", "material", "what", "files", "size"
        )?;
        for ((other, build, cache, material, what, partial), count) in &groups {
            let mark = if *other { "" } else { "  (this build)" };
            let progress = if *partial { "  (in progress)" } else { "" };
            writeln!(
                out,
                "{build:<17} {cache:<5} {material:<9} {what:<14} {:>5} {:>10}{progress}{mark}",
                count.files,
                human_bytes(count.bytes)
            )?;
        }
    }
    let mut ours = FileCount::default();
    let mut others = FileCount::default();
    let mut other_builds = std::collections::BTreeSet::new();
    for f in &files {
        let count = FileCount {
            files: 1,
            bytes: f.file.bytes,
        };
        if f.file.of_this_build() {
            ours += count;
        } else {
            others += count;
            other_builds.insert(f.file.build.as_str());
        }
    }
    writeln!(out)?;
    writeln!(
        out,
        "this build:     {} file(s), {}",
        ours.files,
        human_bytes(ours.bytes)
    )?;
    write!(
        out,
        "other builds:   {} file(s), {} of {} build(s)",
        others.files,
        human_bytes(others.bytes),
        other_builds.len()
    )?;
    if others.files > 0 {
        write!(
            out,
            " (`fiftymove cache clean --other-builds` removes them)"
        )?;
    }
    writeln!(out)?;
    if md5_size.files == 0 {
        writeln!(out, "md5 verdicts:   none yet ({})", md5.display())?;
    } else {
        writeln!(
            out,
            "md5 verdicts:   {} ({})",
            md5.display(),
            human_bytes(md5_size.bytes)
        )?;
    }
    writeln!(
        out,
        "remote answers: {} file(s), {} in {}",
        remote_size.files,
        human_bytes(remote_size.bytes),
        remote.display()
    )?;
    Ok(())
}

/// A build id as `cache clean --build` takes it: 16 hex digits, or the
/// `vN` of the caches before build ids.
fn check_build(id: &str) -> Result<String, Error> {
    let hex = id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit());
    let version =
        id.len() > 1 && id.starts_with('v') && id[1..].bytes().all(|b| b.is_ascii_digit());
    if hex || version {
        Ok(id.to_ascii_lowercase())
    } else {
        Err(Error::Usage(format!(
            "--build {id:?}: expected a build id of 16 hex digits, as `fiftymove cache` lists them"
        )))
    }
}

#[derive(Serialize)]
struct Cleaned {
    dry_run: bool,
    files: u64,
    bytes: u64,
}

fn clean(global: &Global, root: &CacheRoot, args: &CleanArgs, out: &mut impl Write) -> RunResult {
    if !(args.all
        || args.other_builds
        || args.partial
        || !args.builds.is_empty()
        || !args.materials.is_empty())
    {
        return Err(Error::Usage(
            "cache clean: name what to remove: --other-builds, --build ID, --material M, --partial or --all"
                .into(),
        )
        .into());
    }
    let builds = args
        .builds
        .iter()
        .map(|b| check_build(b))
        .collect::<Result<Vec<_>, _>>()?;
    let materials = args
        .materials
        .iter()
        .map(|m| m.parse::<Material>())
        .collect::<Result<Vec<_>, _>>()?;
    let names: Vec<(String, String)> = materials
        .iter()
        .map(|m| (m.table_name(), m.to_string()))
        .collect();
    let files = result_files(root).map_err(|e| io_error(root, e))?;
    let chosen: Vec<&CachedFile> = files
        .iter()
        .map(|f| &f.file)
        .filter(|f| {
            (!args.other_builds || !f.of_this_build())
                && (builds.is_empty() || builds.contains(&f.build))
                && (names.is_empty()
                    || names
                        .iter()
                        .any(|(table, name)| f.material == *table || f.material == *name))
                && (!args.partial || f.partial)
        })
        .collect();
    let mut count = FileCount::default();
    // --all takes the md5 verdicts and a service's answers too.
    let extra: Vec<std::path::PathBuf> = if args.all {
        vec![root.md5_verdicts(), root.remote_answers()]
    } else {
        Vec::new()
    };
    if args.dry_run {
        for f in &chosen {
            count += FileCount {
                files: 1,
                bytes: f.bytes,
            };
            if !global.json {
                writeln!(
                    out,
                    "would remove {} ({})",
                    f.path.display(),
                    human_bytes(f.bytes)
                )?;
            }
        }
        for path in &extra {
            let size = size_of(path).map_err(|e| io_error(root, e))?;
            if size.files > 0 && !global.json {
                writeln!(
                    out,
                    "would remove {} ({} file(s), {})",
                    path.display(),
                    size.files,
                    human_bytes(size.bytes)
                )?;
            }
            count += size;
        }
    } else {
        count += build_id::remove_files(chosen.iter().copied()).map_err(|e| io_error(root, e))?;
        for path in &extra {
            let size = size_of(path).map_err(|e| io_error(root, e))?;
            let removed = if path.is_dir() {
                std::fs::remove_dir_all(path)
            } else {
                std::fs::remove_file(path)
            };
            match removed {
                Ok(()) => count += size,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_error(root, e).into()),
            }
        }
    }
    if global.json {
        render::json_line(
            out,
            &Cleaned {
                dry_run: args.dry_run,
                files: count.files,
                bytes: count.bytes,
            },
        )?;
    } else {
        let verb = if args.dry_run {
            "would remove"
        } else {
            "removed"
        };
        writeln!(
            out,
            "{verb} {} file(s), {}, from {}",
            count.files,
            human_bytes(count.bytes),
            root.root().display()
        )?;
    }
    Ok(())
}
