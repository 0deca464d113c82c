//! The service's answers on disk, so that a line walked once is free the
//! second time: one JSON file per position and service,
//! `<dir>/<md5 of the URL>/<md5 of the FEN>.json`, holding the URL, the
//! FEN asked and the body as the service sent it. Files are written
//! atomically, and only after a successful answer; one that does not read
//! back (damaged, or for another FEN) is a miss and is fetched again.

use std::{
    fs,
    path::{Path, PathBuf},
};

use md5::{Digest, Md5};
use serde::{Deserialize, Serialize};

use super::response::{self, Answer};
use crate::{error::Result, output::write_atomically};

/// One cache file.
#[derive(Serialize, Deserialize)]
struct Entry {
    url: String,
    fen: String,
    body: String,
}

/// What a look-up found.
pub(crate) enum Lookup {
    /// A good answer.
    Hit(Answer),
    /// No file.
    Miss,
    /// A file that does not read back.
    Damaged,
}

/// The answers of one service.
pub(crate) struct AnswerCache {
    dir: PathBuf,
    url: String,
}

fn hex_md5(text: &str) -> String {
    Md5::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl AnswerCache {
    /// The cache of the service at `url`, under `root`.
    pub(crate) fn new(root: &Path, url: &str) -> AnswerCache {
        AnswerCache {
            dir: root.join(hex_md5(url)),
            url: url.to_owned(),
        }
    }

    fn path(&self, fen: &str) -> PathBuf {
        self.dir.join(format!("{}.json", hex_md5(fen)))
    }

    /// The answer stored for `fen`.
    pub(crate) fn get(&self, fen: &str) -> Lookup {
        let Ok(text) = fs::read_to_string(self.path(fen)) else {
            return Lookup::Miss;
        };
        let entry: Entry = match serde_json::from_str(&text) {
            Ok(e) => e,
            Err(_) => return Lookup::Damaged,
        };
        if entry.fen != fen || entry.url != self.url {
            return Lookup::Damaged;
        }
        match response::parse(&entry.body) {
            Ok(a) => Lookup::Hit(a),
            Err(_) => Lookup::Damaged,
        }
    }

    /// Stores the body the service sent for `fen`.
    ///
    /// # Errors
    ///
    /// [`crate::Error::Output`] when the file cannot be written.
    pub(crate) fn put(&self, fen: &str, body: &str) -> Result<()> {
        fs::create_dir_all(&self.dir).map_err(|error| crate::Error::Output {
            path: self.dir.clone(),
            error,
        })?;
        let entry = Entry {
            url: self.url.clone(),
            fen: fen.to_owned(),
            body: body.to_owned(),
        };
        let path = self.path(fen);
        let text = serde_json::to_string(&entry).map_err(|source| crate::Error::Encode {
            path: path.clone(),
            source,
        })?;
        write_atomically(&path, text.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_damage() {
        let dir = tempfile::tempdir().unwrap();
        let body = fs::read_to_string(format!(
            "{}/tests/remote/kqk-win.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let fen = "8/8/8/8/8/2k5/8/KQ6 w - - 0 1";
        let c = AnswerCache::new(dir.path(), "http://127.0.0.1:9000");
        assert!(matches!(c.get(fen), Lookup::Miss));
        // Nothing is created before the first answer.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
        c.put(fen, &body).unwrap();
        let Lookup::Hit(a) = c.get(fen) else {
            panic!("no hit")
        };
        assert_eq!(a, response::parse(&body).unwrap());
        // Another service does not see it.
        let other = AnswerCache::new(dir.path(), "https://tablebase.lichess.ovh");
        assert!(matches!(other.get(fen), Lookup::Miss));
        // A damaged file is a miss to fetch again, never an answer.
        let path = c.path(fen);
        let mut bytes = fs::read(&path).unwrap();
        bytes.truncate(bytes.len() / 2);
        fs::write(&path, &bytes).unwrap();
        assert!(matches!(c.get(fen), Lookup::Damaged));
        // A file with a good wrapper whose body is not JSON.
        let bad = serde_json::json!({"url": c.url, "fen": fen, "body": "<html>"});
        fs::write(&path, bad.to_string()).unwrap();
        assert!(matches!(c.get(fen), Lookup::Damaged));
        c.put(fen, &body).unwrap();
        assert!(matches!(c.get(fen), Lookup::Hit(_)));
        // No temporary files are left.
        let names: Vec<_> = fs::read_dir(&c.dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }
}
