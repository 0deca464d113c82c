//! The layering the crate documents, checked against the code.
//!
//! The crate doc (`src/lib.rs`) lists the layers in a table, top first: a
//! module uses only its own layer and those below it. Each top-level
//! module's doc may also say, in a paragraph starting `Layer:`, which
//! modules it uses (the links of its first clause) and which it does not
//! (the links after "does not use").
//!
//! These tests read every file under `src/` but `src/bin/` (the binary sits
//! above every layer), find each reference to another top-level module
//! (`crate::x`, `use crate::{x::..., y::...}`, the crate root's re-exports
//! such as `crate::Error`, and `super::` chains that climb to the crate
//! root), and fail on any that goes against those statements, naming each
//! offending file and line. Comments and string literals are skipped, so
//! doc links do not count as imports.

use std::{
    collections::{BTreeMap, BTreeSet},
    fs,
    path::{Path, PathBuf},
};

/// One reference from a file of module `from` to the top-level module `to`.
#[derive(Clone, Debug)]
struct Reference {
    from: String,
    to: String,
    /// `src/...:line`.
    at: String,
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The `//!` lines at the top of a file, without the marker.
fn inner_doc(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim_start)
        .take_while(|l| l.starts_with("//!") || l.is_empty())
        .filter_map(|l| l.strip_prefix("//!"))
        .map(|l| l.strip_prefix(' ').unwrap_or(l).to_string())
        .collect()
}

/// The names in `` [`name`] `` or `` [`crate::name`] `` links of `text`, in order.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("[`") {
        rest = &rest[i + 2..];
        let Some(j) = rest.find("`]") else { break };
        let name = rest[..j].trim_start_matches("crate::");
        out.push(name.split("::").next().unwrap_or(name).to_string());
        rest = &rest[j + 2..];
    }
    out
}

/// The layers of the crate doc's table, top first: each a set of module names.
fn layers() -> Vec<BTreeSet<String>> {
    let lib = fs::read_to_string(src().join("lib.rs")).unwrap();
    let layers: Vec<BTreeSet<String>> = inner_doc(&lib)
        .iter()
        .filter(|l| l.starts_with("| [`"))
        .map(|l| links(l.split('|').nth(1).unwrap()).into_iter().collect())
        .collect();
    assert!(
        layers.len() >= 3,
        "src/lib.rs: no table of layers found in the crate doc (rows `| [`module`] | holds |`)"
    );
    layers
}

/// The crate root's `pub use module::{...}` re-exports: name -> module.
fn root_reexports() -> BTreeMap<String, String> {
    let lib = strip(&fs::read_to_string(src().join("lib.rs")).unwrap());
    let mut out = BTreeMap::new();
    for stmt in lib.split(';') {
        let Some(i) = stmt.find("pub use ") else {
            continue;
        };
        let stmt = &stmt[i + "pub use ".len()..];
        let Some((module, tree)) = stmt.split_once("::") else {
            continue;
        };
        // Every name of the tree not followed by `::` is an item it brings in.
        let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
        for part in tree.split([',', '{', '}']) {
            if let Some(leaf) = part.rsplit("::").next() {
                if !leaf.is_empty() {
                    out.insert(leaf.to_string(), module.trim().to_string());
                }
            }
        }
    }
    out
}

/// `text` with comments, string and char literals blanked out (newlines kept,
/// so that line numbers still hold).
fn strip(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            let end = b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |n| i + n);
            blank(&mut out, i, end);
            i = end;
        } else if b[i..].starts_with(b"/*") {
            let (mut depth, mut j) = (1, i + 2);
            while j < b.len() && depth > 0 {
                if b[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if b[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if b[i] == b'r'
            && (i == 0 || !is_ident(b[i - 1]))
            && matches!(b.get(i + 1), Some(b'"' | b'#'))
        {
            // A raw string r"..." or r#"..."#.
            let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
            if b.get(i + 1 + hashes) != Some(&b'"') {
                i += 1;
                continue;
            }
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            let start = i + 2 + hashes;
            let end = b[start..]
                .windows(close.len())
                .position(|w| w == close.as_slice())
                .map_or(b.len(), |n| start + n + close.len());
            blank(&mut out, i, end);
            i = end;
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(b.len());
            blank(&mut out, i, end);
            i = end;
        } else if b[i] == b'\'' {
            // A char literal ('x', '\n', '\u{..}'), or else a lifetime.
            let end = if b.get(i + 1) == Some(&b'\\') {
                b[i + 2..]
                    .iter()
                    .position(|&c| c == b'\'')
                    .map(|n| i + 2 + n + 1)
            } else if b.get(i + 2) == Some(&b'\'') {
                Some(i + 3)
            } else {
                // A multi-byte char literal.
                std::str::from_utf8(&b[i + 1..])
                    .ok()
                    .and_then(|s| s.chars().next())
                    .filter(|c| c.len_utf8() > 1)
                    .filter(|c| b.get(i + 1 + c.len_utf8()) == Some(&b'\''))
                    .map(|c| i + 2 + c.len_utf8())
            };
            match end {
                Some(end) => {
                    blank(&mut out, i, end);
                    i = end;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn ident_at(s: &str) -> &str {
    let s = s.trim_start();
    let n = s.bytes().take_while(|&c| is_ident(c)).count();
    &s[..n]
}

/// The first names of the paths that follow a path prefix at `s`: `x` for
/// `x::...`, or `x` and `y` for `{x::..., y::{...}}`.
fn first_names(s: &str) -> Vec<&str> {
    let s = s.trim_start();
    if !s.starts_with('{') {
        return vec![ident_at(s)];
    }
    let mut names = Vec::new();
    let mut depth = 0;
    for (i, c) in s.char_indices() {
        match c {
            '{' => {
                depth += 1;
                if depth == 1 {
                    names.push(ident_at(&s[i + 1..]));
                }
            }
            ',' if depth == 1 => names.push(ident_at(&s[i + 1..])),
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
    }
    names.retain(|n| !n.is_empty());
    names
}

/// Every reference from a file under `src/` (but `src/bin/` and `lib.rs`)
/// to a top-level module other than its own.
fn references(modules: &BTreeSet<String>) -> Vec<Reference> {
    let reexports = root_reexports();
    let mut files = Vec::new();
    let mut dirs = vec![src()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path != src().join("bin") {
                    dirs.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let rel = path.strip_prefix(src()).unwrap();
        let parts: Vec<String> = rel
            .iter()
            .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
            .collect();
        if parts == ["lib"] {
            continue;
        }
        let from = parts[0].clone();
        // How many `super::` climb from this file to the crate root.
        let depth = parts.len() - usize::from(parts.last().is_some_and(|p| p == "mod"));
        let text = strip(&fs::read_to_string(&path).unwrap());
        let mut found = |at: usize, rest: &str| {
            for name in first_names(rest) {
                let to = reexports.get(name).map_or(name, String::as_str);
                if to != from && modules.contains(to) {
                    let line = text[..at].matches('\n').count() + 1;
                    out.push(Reference {
                        from: from.clone(),
                        to: to.to_string(),
                        at: format!("src/{}:{line}", rel.display()),
                    });
                }
            }
        };
        for (at, _) in text.match_indices("crate::") {
            let before = text[..at].bytes().next_back();
            if before.is_some_and(|c| is_ident(c) || c == b'$') {
                continue;
            }
            found(at, &text[at + "crate::".len()..]);
        }
        // `super::super::x` from a file as deep as the chain: the crate
        // root's `x` (an inline module makes the chain reach less far, so
        // this may only see too much, never too little, within one file).
        let chain = "super::".repeat(depth);
        for (at, _) in text.match_indices(&chain) {
            let before = text[..at].bytes().next_back();
            if before.is_some_and(|c| is_ident(c) || c == b':') {
                continue;
            }
            found(at, &text[at + chain.len()..]);
        }
    }
    out
}

fn list(refs: &[&Reference]) -> String {
    refs.iter()
        .map(|r| format!("  {}: {} uses {}", r.at, r.from, r.to))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A module uses only its own layer and those below it, in the order of
/// the crate doc's table.
#[test]
fn imports_follow_the_crate_layer_order() {
    let layers = layers();
    let rank = |m: &str| layers.iter().position(|l| l.contains(m));
    let modules: BTreeSet<String> = layers.iter().flatten().cloned().collect();
    let refs = references(&modules);
    assert!(
        refs.iter().any(|r| r.from == "claims" && r.to == "scan"),
        "the scan of src/ found no reference from claims to scan: the test is broken"
    );
    let against: Vec<&Reference> = refs
        .iter()
        .filter(|r| rank(&r.to) < rank(&r.from))
        .collect();
    assert!(
        against.is_empty(),
        "imports against the layer order of src/lib.rs's crate doc \
         ({}; a module uses only its own layer and those below):\n{}",
        layers
            .iter()
            .map(|l| l.iter().cloned().collect::<Vec<_>>().join(", "))
            .collect::<Vec<_>>()
            .join(" > "),
        list(&against)
    );
    // Every top-level module declared in lib.rs has its layer.
    let lib = strip(&fs::read_to_string(src().join("lib.rs")).unwrap());
    for decl in lib.split("pub mod ").skip(1) {
        let name = ident_at(decl);
        assert!(
            modules.contains(name),
            "src/lib.rs: module `{name}` is in no row of the crate doc's table of layers"
        );
    }
}

/// The engines fill the model's documents as peers (issue 41): the solver
/// reads no table file and no other engine, the probe engine no scan, and
/// the model knows no engine and no table. The `Layer:` paragraphs say so
/// too; this states it whatever they say.
#[test]
fn the_engines_are_peers_over_the_model() {
    let modules: BTreeSet<String> = layers().into_iter().flatten().collect();
    let refs = references(&modules);
    let forbidden = [
        ("solve", "probe"),
        ("solve", "scan"),
        ("solve", "tables"),
        ("probe", "scan"),
        ("probe", "solve"),
        ("scan", "solve"),
        ("model", "probe"),
        ("model", "scan"),
        ("model", "solve"),
        ("model", "tables"),
    ];
    let against: Vec<&Reference> = refs
        .iter()
        .filter(|r| forbidden.contains(&(r.from.as_str(), r.to.as_str())))
        .collect();
    assert!(
        against.is_empty(),
        "imports between the engines, or from the model up to them:\n{}",
        list(&against)
    );
}

/// Each module's own `Layer:` paragraph names every module above the
/// foundation (the table's last row) that it uses, and it uses none that
/// the paragraph says it does not use.
#[test]
fn imports_match_each_module_layer_paragraph() {
    let layers = layers();
    let foundation = layers.last().unwrap().clone();
    let modules: BTreeSet<String> = layers.iter().flatten().cloned().collect();
    let refs = references(&modules);
    let mut against = Vec::new();
    let mut undocumented = Vec::new();
    for module in &modules {
        let file = [
            src().join(module).join("mod.rs"),
            src().join(format!("{module}.rs")),
        ]
        .into_iter()
        .find(|p| p.exists())
        .unwrap();
        let doc = inner_doc(&fs::read_to_string(&file).unwrap()).join("\n");
        let Some(i) = doc.find("Layer:") else {
            if !foundation.contains(module) {
                undocumented.push(module.clone());
            }
            continue;
        };
        let paragraph = doc[i..].split("\n\n").next().unwrap();
        let first = paragraph[..paragraph.find(['.', ';']).unwrap_or(paragraph.len())].to_string();
        let uses: BTreeSet<String> = links(&first).into_iter().collect();
        let denied: BTreeSet<String> = paragraph
            .find("does not use")
            .map(|j| {
                let clause = &paragraph[j..];
                links(&clause[..clause.find([',', '.', ';']).unwrap_or(clause.len())])
            })
            .unwrap_or_default()
            .into_iter()
            .collect();
        against.extend(refs.iter().filter(|r| {
            &r.from == module
                && (denied.contains(&r.to)
                    || (!uses.contains(&r.to) && !foundation.contains(&r.to)))
        }));
    }
    assert!(
        undocumented.is_empty(),
        "modules above the foundation without a `Layer:` paragraph in their doc: {undocumented:?}"
    );
    assert!(
        against.is_empty(),
        "imports that a module's own `Layer:` paragraph does not allow (it must name \
         every module above the foundation it uses, and use none it says it does not):\n{}",
        list(&against)
    );
}

#[test]
fn strip_blanks_comments_and_literals() {
    let s = strip("a // crate::x\nb \"crate::y\" '\"' r#\"crate::z\"# /* crate::w */ c 'a: {}");
    assert!(!s.contains("crate::"), "{s}");
    assert_eq!(s.matches('\n').count(), 1);
    assert!(s.contains("'a: {}"));
    assert_eq!(first_names(" {x::a, y::{b, c}, z}"), ["x", "y", "z"]);
    assert_eq!(first_names("x::{a, b}"), ["x"]);
    assert_eq!(
        links("above [`crate::scan`] and [`chess`]"),
        ["scan", "chess"]
    );
}
