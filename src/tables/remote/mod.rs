//! A remote table source: the Lichess tablebase service, or any server
//! running lila-tablebase, for positions of up to 7 pieces without the
//! files.
//!
//! The probe engine ([`crate::probe::Prober::remote`]) asks it for the raw
//! values it would read from files, and resolves them exactly as it does
//! for files. One answer holds a position and every legal move's result,
//! so the look-ups of a one-ply search cost no further request. Answers
//! are kept in memory for the run and on disk between runs
//! (the `cache` module); requests go one at a time (the `client` module).

mod cache;
mod client;
pub mod response;

use std::{
    collections::HashMap,
    path::Path,
    sync::{
        atomic::{AtomicU64, Ordering},
        Mutex,
    },
    time::Duration,
};

use shakmaty::{uci::UciMove, CastlingMode, Chess, Position};
use shakmaty_syzygy::MaybeRounded;

use self::{
    cache::{AnswerCache, Lookup},
    client::Client,
    response::{Answer, Category, PositionAnswer},
};
use crate::{
    chess::position::epd_of,
    error::{Error, Result},
};

/// The public Lichess tablebase service.
pub const DEFAULT_URL: &str = "https://tablebase.lichess.ovh";

/// What fiftymove read from a remote source in one run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct RemoteStats {
    /// Requests sent (a retry after a 429 counts again).
    pub requests: u64,
    /// Answers read from the disk cache instead.
    pub from_cache: u64,
    /// Cache files that did not read back and were fetched again.
    pub damaged: u64,
    /// Answers whose category was not exact (`maybe-*`, `syzygy-*`),
    /// resolved by fiftymove from the raw DTZ.
    pub inexact: u64,
    /// The most requests this source may send (`--remote-budget`), if it
    /// has a budget.
    pub budget: Option<u64>,
}

impl RemoteStats {
    /// The requests the budget still allows, if there is one.
    pub fn remaining(&self) -> Option<u64> {
        self.budget.map(|b| b.saturating_sub(self.requests))
    }
}

/// The values of one position that the probe engine reads.
#[derive(Clone, Copy, Debug)]
struct Known {
    dtz: Option<i32>,
    precise: Option<i32>,
    checkmate: bool,
    category: Category,
}

impl From<&PositionAnswer> for Known {
    fn from(p: &PositionAnswer) -> Known {
        Known {
            dtz: p.dtz,
            precise: p.precise_dtz,
            checkmate: p.checkmate,
            category: p.category,
        }
    }
}

/// A tablebase service.
pub struct Remote {
    url: String,
    client: Client,
    cache: Option<AnswerCache>,
    /// Every position seen in an answer, by its FEN without counters.
    known: Mutex<HashMap<String, Known>>,
    /// The whole answers asked for, by the same key.
    answers: Mutex<HashMap<String, Answer>>,
    requests: AtomicU64,
    from_cache: AtomicU64,
    damaged: AtomicU64,
    inexact: AtomicU64,
    /// The most requests to send; `None` for no limit.
    budget: Option<u64>,
    /// Told after every request, for progress displays.
    on_request: Option<Box<dyn Fn(RemoteStats) + Send + Sync>>,
}

impl Remote {
    /// The service at `url` (`http://` or `https://`), with its answers
    /// cached under `cache_dir` (none without it) and requests at least
    /// `spacing` apart.
    ///
    /// # Errors
    ///
    /// [`Error::Usage`] for a URL that is not `http://` or `https://`.
    pub fn new(url: &str, cache_dir: Option<&Path>, spacing: Duration) -> Result<Remote> {
        let url = url.trim_end_matches('/');
        let rest = url
            .strip_prefix("http://")
            .or_else(|| url.strip_prefix("https://"));
        if rest.is_none_or(|r| r.is_empty() || r.contains(char::is_whitespace)) {
            return Err(Error::Usage(format!(
                "--remote takes an http:// or https:// URL (as --remote=http://127.0.0.1:9000), not '{url}'"
            )));
        }
        Ok(Remote {
            url: url.to_owned(),
            client: Client::new(url, spacing),
            cache: cache_dir.map(|d| AnswerCache::new(d, url)),
            known: Mutex::new(HashMap::new()),
            answers: Mutex::new(HashMap::new()),
            requests: AtomicU64::new(0),
            from_cache: AtomicU64::new(0),
            damaged: AtomicU64::new(0),
            inexact: AtomicU64::new(0),
            budget: None,
            on_request: None,
        })
    }

    /// Sends at most `budget` requests (none: no limit). Past it, a
    /// question whose answer is not in memory or in the cache fails with
    /// [`Error::RemoteBudget`], and the probe engine answers with what it
    /// knows, labelled not exact.
    pub fn with_budget(mut self, budget: Option<u64>) -> Remote {
        self.budget = budget;
        self
    }

    /// Whether the answer for `pos` would cost a request: it is neither in
    /// memory nor in the disk cache.
    pub fn costs_request(&self, pos: &Chess) -> bool {
        let key = epd_of(pos);
        if lock(&self.answers).contains_key(&key) {
            return false;
        }
        match &self.cache {
            Some(c) => !matches!(c.get(&format!("{key} 0 1")), Lookup::Hit(_)),
            None => true,
        }
    }

    /// Whether the raw values of `pos` are known without a request (it was
    /// asked for, or is a move's result in an answer).
    pub fn knows(&self, pos: &Chess) -> bool {
        lock(&self.known).contains_key(&epd_of(pos))
    }

    /// Calls `f` with the running totals after every request (a walk of a
    /// long line can take thousands).
    pub fn on_request(mut self, f: impl Fn(RemoteStats) + Send + Sync + 'static) -> Remote {
        self.on_request = Some(Box::new(f));
        self
    }

    /// The service's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// What this source has read so far.
    pub fn stats(&self) -> RemoteStats {
        RemoteStats {
            requests: self.requests.load(Ordering::Relaxed),
            from_cache: self.from_cache.load(Ordering::Relaxed),
            damaged: self.damaged.load(Ordering::Relaxed),
            inexact: self.inexact.load(Ordering::Relaxed),
            budget: self.budget,
        }
    }

    fn error(&self, detail: impl Into<String>) -> Error {
        Error::Remote {
            url: self.url.clone(),
            detail: detail.into(),
        }
    }

    /// The service's whole answer for `pos` (asked with clock 0), from
    /// memory, the disk cache or a request.
    ///
    /// # Errors
    ///
    /// [`Error::Position`] for castling rights (no table holds them);
    /// [`Error::Remote`] when the service cannot be reached, refuses, or
    /// sends something that is not its JSON or does not fit the position;
    /// [`Error::Output`] when the answer cannot be cached.
    pub fn answer(&self, pos: &Chess) -> Result<Answer> {
        let key = epd_of(pos);
        if let Some(a) = lock(&self.answers).get(&key) {
            return Ok(a.clone());
        }
        if pos.castles().any() {
            return Err(Error::position(
                &crate::chess::position::fen_of(pos),
                "castling rights are not in Syzygy",
            ));
        }
        let fen = format!("{key} 0 1");
        let cached = match &self.cache {
            Some(c) => match c.get(&fen) {
                Lookup::Hit(a) => Some(a),
                Lookup::Miss => None,
                Lookup::Damaged => {
                    self.damaged.fetch_add(1, Ordering::Relaxed);
                    None
                }
            },
            None => None,
        };
        let answer = match cached {
            Some(a) => {
                self.from_cache.fetch_add(1, Ordering::Relaxed);
                self.learn(pos, &a)?;
                a
            }
            None => {
                if let Some(budget) = self.budget {
                    if self.requests.load(Ordering::Relaxed) >= budget {
                        return Err(Error::RemoteBudget {
                            url: self.url.clone(),
                            budget,
                            detail: format!(
                                "the request budget ran out before {fen} was asked for"
                            ),
                        });
                    }
                }
                let (body, attempts) = self
                    .client
                    .standard(&fen)
                    .map_err(|e| self.error(format!("{e} (asking for {fen})")))?;
                self.requests
                    .fetch_add(u64::from(attempts), Ordering::Relaxed);
                if let Some(f) = &self.on_request {
                    f(self.stats());
                }
                let a =
                    response::parse(&body).map_err(|e| self.error(format!("{e}, for {fen}")))?;
                // Checked before it is cached, so that a wrong answer is
                // never kept.
                self.learn(pos, &a)?;
                if let Some(c) = &self.cache {
                    c.put(&fen, &body)?;
                }
                a
            }
        };
        if answer.position.category.exact().is_none()
            && answer.position.category != Category::Unknown
        {
            self.inexact.fetch_add(1, Ordering::Relaxed);
        }
        lock(&self.answers).insert(key, answer.clone());
        Ok(answer)
    }

    /// Records the position and every move's result, after checking that
    /// the answer's moves are the position's legal moves.
    fn learn(&self, pos: &Chess, a: &Answer) -> Result<()> {
        let legal = pos.legal_moves();
        let mismatch = || {
            self.error(format!(
                "its moves for {} are not the position's legal moves",
                epd_of(pos)
            ))
        };
        if legal.len() != a.moves.len() || a.position.checkmate != pos.is_checkmate() {
            return Err(mismatch());
        }
        let by_uci: HashMap<&str, &PositionAnswer> =
            a.moves.iter().map(|m| (m.uci.as_str(), &m.after)).collect();
        let mut known = lock(&self.known);
        known.insert(epd_of(pos), Known::from(&a.position));
        for m in legal {
            let uci = UciMove::from_move(m, CastlingMode::Standard).to_string();
            let after_answer = by_uci.get(uci.as_str()).ok_or_else(mismatch)?;
            let mut after = pos.clone();
            after.play_unchecked(m);
            known.insert(epd_of(&after), Known::from(*after_answer));
        }
        Ok(())
    }

    fn known(&self, pos: &Chess) -> Result<Known> {
        if let Some(k) = lock(&self.known).get(&epd_of(pos)) {
            return Ok(*k);
        }
        self.answer(pos)?;
        lock(&self.known).get(&epd_of(pos)).copied().ok_or_else(|| {
            Error::inconsistent("the tablebase service client", "an answer was not recorded")
        })
    }

    /// The DTZ the service gives `pos`, maybe rounded, as shakmaty-syzygy
    /// gives it from files.
    ///
    /// # Errors
    ///
    /// As for [`Remote::answer`]; [`Error::MissingTables`] when the service
    /// has no table for the position.
    pub fn raw_dtz(&self, pos: &Chess) -> Result<MaybeRounded<i32>> {
        let k = self.known(pos)?;
        if k.checkmate {
            return Ok(MaybeRounded::Precise(0));
        }
        match (k.dtz, k.precise) {
            (_, Some(p)) => Ok(MaybeRounded::Precise(p)),
            (Some(d), None) => Ok(MaybeRounded::Rounded(d)),
            // The service lacks the table: missing tables, as for files.
            (None, None) => Err(Error::MissingTables {
                needed_for: format!(
                    "{} at the tablebase service {} (category {})",
                    epd_of(pos),
                    self.url,
                    k.category.as_str()
                ),
                files: vec![crate::chess::material::Material::from_board(pos.board())
                    .map(|m| format!("{}.rtbz", m.table_name()))
                    .unwrap_or_else(|_| "?".into())],
            }),
        }
    }

    /// The depth to mate the service gives `pos`, in plies, signed from
    /// the side to move; `None` where it has none.
    ///
    /// # Errors
    ///
    /// As for [`Remote::answer`].
    pub fn dtm(&self, pos: &Chess) -> Result<Option<i32>> {
        Ok(self.answer(pos)?.position.dtm)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
