//! HTTP to the tablebase service, politely: one request at a time, at
//! least the configured spacing apart, and on HTTP 429 a wait of what the
//! service's `Retry-After` asks for (a full minute when it says nothing, as
//! the Lichess API guidelines ask) before trying again.

use std::{
    fmt,
    sync::Mutex,
    time::{Duration, Instant},
};

/// What one HTTP exchange gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Reply {
    /// A status line and body came back.
    Http {
        /// The status code.
        status: u16,
        /// The `Retry-After` header, if any.
        retry_after: Option<String>,
        /// The body.
        body: String,
    },
    /// No answer at all: the host could not be resolved or reached, or the
    /// connection broke.
    Unreachable(String),
}

/// How often a request is tried before the client gives up.
pub(crate) const MAX_ATTEMPTS: u32 = 4;

/// The wait after a 429 when the service names none.
pub(crate) const RATE_LIMIT_WAIT: Duration = Duration::from_secs(60);

/// Why the client gave up on a request. It reads as one line that follows
/// the service's URL in [`crate::Error::Remote`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum GaveUp {
    /// The service still limited the rate (HTTP 429) after this many
    /// attempts.
    RateLimited {
        /// The attempts made.
        attempts: u32,
    },
    /// The service answered a status that trying again will not change.
    Status {
        /// The status code.
        status: u16,
        /// The body's first 80 characters.
        shown: String,
    },
    /// The service could not be reached at all ([`Reply::Unreachable`]).
    Unreachable(String),
}

impl fmt::Display for GaveUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GaveUp::RateLimited { attempts } => write!(
                f,
                "it still limits our rate (HTTP 429) after {attempts} attempts; try again later"
            ),
            GaveUp::Status { status, shown } => write!(f, "it answered HTTP {status} ({shown:?})"),
            GaveUp::Unreachable(why) => write!(f, "cannot reach it: {why}"),
        }
    }
}

impl std::error::Error for GaveUp {}

/// What to do after a reply that is not a success: wait and try again, or
/// give up. `attempt` counts from 1.
///
/// # Errors
///
/// [`GaveUp`] when trying again would not help, or the attempts are spent.
pub(crate) fn after_failure(reply: &Reply, attempt: u32) -> Result<Duration, GaveUp> {
    let give_up = attempt >= MAX_ATTEMPTS;
    match reply {
        Reply::Http {
            status: 429,
            retry_after,
            ..
        } => {
            if give_up {
                return Err(GaveUp::RateLimited { attempts: attempt });
            }
            // Retry-After in seconds; an HTTP date, or nothing, is taken
            // as the guidelines' full minute.
            Ok(retry_after
                .as_deref()
                .and_then(|s| s.trim().parse::<u64>().ok())
                .map_or(RATE_LIMIT_WAIT, Duration::from_secs))
        }
        // A busy or restarting server: back off and try again.
        Reply::Http { status, .. } if matches!(status, 502..=504) && !give_up => {
            Ok(Duration::from_secs(1 << attempt))
        }
        Reply::Http { status, body, .. } => {
            let shown: String = body.chars().take(80).collect();
            Err(GaveUp::Status {
                status: *status,
                shown,
            })
        }
        // No network is not a passing state: fail at once.
        Reply::Unreachable(why) => Err(GaveUp::Unreachable(why.clone())),
    }
}

/// Sends `send` until it succeeds or [`after_failure`] gives up, sleeping
/// through `sleep` between attempts. Returns the body and the number of
/// attempts.
///
/// # Errors
///
/// [`after_failure`]'s, for the last reply.
pub(crate) fn with_retries(
    mut send: impl FnMut() -> Reply,
    mut sleep: impl FnMut(Duration),
) -> Result<(String, u32), GaveUp> {
    let mut attempt = 1;
    loop {
        let reply = send();
        if let Reply::Http {
            status: 200, body, ..
        } = reply
        {
            return Ok((body, attempt));
        }
        let wait = after_failure(&reply, attempt)?;
        sleep(wait);
        attempt += 1;
    }
}

/// A client for one service: one request at a time (the lock is held
/// across the exchange), spaced at least `spacing` apart.
pub(crate) struct Client {
    agent: ureq::Agent,
    base: String,
    spacing: Duration,
    last: Mutex<Option<Instant>>,
}

impl Client {
    /// A client of the service at `base` (`https://tablebase.lichess.ovh`).
    pub(crate) fn new(base: &str, spacing: Duration) -> Client {
        let agent = ureq::AgentBuilder::new()
            .timeout_connect(Duration::from_secs(10))
            .timeout(Duration::from_secs(60))
            .user_agent(concat!(
                "fiftymove/",
                env!("CARGO_PKG_VERSION"),
                " (endgame research; one request at a time)"
            ))
            .build();
        Client {
            agent,
            base: base.trim_end_matches('/').to_owned(),
            spacing,
            last: Mutex::new(None),
        }
    }

    /// The body of `GET /standard?fen=FEN`, and how many attempts it took.
    ///
    /// # Errors
    ///
    /// [`GaveUp`], as for [`with_retries`].
    pub(crate) fn standard(&self, fen: &str) -> Result<(String, u32), GaveUp> {
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        let url = format!("{}/standard", self.base);
        let fen = fen.replace(' ', "_");
        with_retries(
            || {
                if let Some(t) = *last {
                    let since = t.elapsed();
                    if since < self.spacing {
                        std::thread::sleep(self.spacing - since);
                    }
                }
                *last = Some(Instant::now());
                exchange(self.agent.get(&url).query("fen", &fen))
            },
            std::thread::sleep,
        )
    }
}

/// One exchange, as a [`Reply`].
fn exchange(request: ureq::Request) -> Reply {
    let read = |r: ureq::Response| {
        let status = r.status();
        let retry_after = r.header("retry-after").map(str::to_owned);
        match r.into_string() {
            Ok(body) => Reply::Http {
                status,
                retry_after,
                body,
            },
            Err(e) => Reply::Unreachable(format!("the answer broke off: {e}")),
        }
    };
    match request.call() {
        Ok(r) => read(r),
        Err(ureq::Error::Status(_, r)) => read(r),
        Err(ureq::Error::Transport(t)) => Reply::Unreachable(match t.message() {
            Some(m) => format!("{} ({m})", t.kind()),
            None => t.kind().to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn captured() -> String {
        let path = format!("{}/tests/remote/kqk-win.json", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(path).unwrap()
    }

    fn http(status: u16, retry_after: Option<&str>, body: &str) -> Reply {
        Reply::Http {
            status,
            retry_after: retry_after.map(str::to_owned),
            body: body.to_owned(),
        }
    }

    #[test]
    fn a_429_then_a_retry() {
        let body = captured();
        let mut replies = vec![http(429, None, ""), http(200, None, &body)].into_iter();
        let mut slept = Vec::new();
        let (got, attempts) = with_retries(|| replies.next().unwrap(), |d| slept.push(d)).unwrap();
        assert_eq!(got, body);
        assert_eq!(attempts, 2);
        assert_eq!(slept, vec![RATE_LIMIT_WAIT]);
    }

    #[test]
    fn retry_after_is_obeyed() {
        let body = captured();
        let mut replies = vec![
            http(429, Some("7"), ""),
            http(503, None, "busy"),
            http(200, None, &body),
        ]
        .into_iter();
        let mut slept = Vec::new();
        let (_, attempts) = with_retries(|| replies.next().unwrap(), |d| slept.push(d)).unwrap();
        assert_eq!(attempts, 3);
        assert_eq!(slept, vec![Duration::from_secs(7), Duration::from_secs(4)]);
    }

    /// Sends `reply` until the client gives up: the number of attempts,
    /// the waits between them and the error.
    fn give_up(reply: Reply) -> (u32, Vec<Duration>, GaveUp) {
        let mut n = 0;
        let mut slept = Vec::new();
        let e = with_retries(
            || {
                n += 1;
                reply.clone()
            },
            |d| slept.push(d),
        )
        .unwrap_err();
        (n, slept, e)
    }

    #[test]
    fn gives_up_on_endless_429s() {
        let (n, slept, e) = give_up(http(429, Some("1"), ""));
        assert_eq!(n, MAX_ATTEMPTS);
        assert_eq!(slept.len() as u32, MAX_ATTEMPTS - 1);
        assert_eq!(
            e,
            GaveUp::RateLimited {
                attempts: MAX_ATTEMPTS
            }
        );
        assert!(e.to_string().contains("429"), "{e}");
    }

    #[test]
    fn no_network_fails_at_once() {
        let (n, slept, e) = give_up(Reply::Unreachable("Dns Failed".into()));
        assert_eq!((n, slept.len()), (1, 0));
        assert_eq!(e.to_string(), "cannot reach it: Dns Failed");
        // A client error is final too.
        let e = after_failure(&http(400, None, "invalid fen"), 1).unwrap_err();
        assert_eq!(e.to_string(), "it answered HTTP 400 (\"invalid fen\")");
    }

    #[test]
    fn a_closed_port_is_unreachable() {
        // A loopback port nothing listens on: a real connection refused.
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let c = Client::new(&format!("http://127.0.0.1:{port}"), Duration::ZERO);
        let e = c.standard("8/8/8/8/8/8/8/KQk5 w - - 0 1").unwrap_err();
        assert!(matches!(e, GaveUp::Unreachable(_)), "{e}");
    }
}
