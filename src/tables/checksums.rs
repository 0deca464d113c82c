//! The official md5 sums and sizes of every Syzygy table file, shipped in
//! `data/` and compiled in, so that verification needs no network.

use std::collections::HashMap;
use std::sync::OnceLock;

const MD5_LIST: &str = include_str!("../../data/syzygy-md5.txt");
const SIZE_LIST: &str = include_str!("../../data/syzygy-bytes.tsv");

/// What the official list says about one table file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OfficialFile {
    /// Lower-case hex md5 sum.
    pub md5: &'static str,
    /// Size in bytes.
    pub bytes: u64,
}

fn table() -> &'static HashMap<&'static str, OfficialFile> {
    static TABLE: OnceLock<HashMap<&'static str, OfficialFile>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let sizes: HashMap<&str, u64> = SIZE_LIST
            .lines()
            .filter_map(|line| {
                let (bytes, name) = line.split_once('\t')?;
                Some((name.trim(), bytes.trim().parse().ok()?))
            })
            .collect();
        MD5_LIST
            .lines()
            .filter_map(|line| {
                let (md5, name) = line.split_once(char::is_whitespace)?;
                let name = name.trim();
                Some((
                    name,
                    OfficialFile {
                        md5: md5.trim(),
                        bytes: *sizes.get(name)?,
                    },
                ))
            })
            .collect()
    })
}

/// The official record of a file such as `KRBvKR.rtbw`, if it is a Syzygy file.
pub fn official(file_name: &str) -> Option<OfficialFile> {
    table().get(file_name).copied()
}

/// Every official file name with its record, in no particular order.
pub fn official_files() -> impl Iterator<Item = (&'static str, OfficialFile)> {
    table().iter().map(|(k, v)| (*k, *v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_agree() {
        // Both shipped lists name the same 3022 files (1511 tables x 2).
        assert_eq!(MD5_LIST.lines().count(), SIZE_LIST.lines().count());
        assert_eq!(table().len(), MD5_LIST.lines().count());
        let krbkr = official("KRBvKR.rtbw").unwrap();
        assert_eq!(krbkr.md5.len(), 32);
    }

    #[test]
    fn every_official_name_is_already_normalised() {
        // The checksum list is an independent record of Syzygy's naming.
        for name in official_files().filter_map(|(f, _)| f.strip_suffix(".rtbw")) {
            let m: crate::chess::material::Material = name.parse().unwrap();
            assert_eq!(m.table_name(), name);
        }
    }

    #[test]
    fn the_rules_of_material_name_exactly_the_official_tables() {
        let official: std::collections::BTreeSet<String> = official_files()
            .filter_map(|(f, _)| f.strip_suffix(".rtbw"))
            .map(str::to_owned)
            .collect();
        assert_eq!(crate::chess::material::table_names(), official);
    }
}
