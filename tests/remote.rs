//! The remote table source (`--remote`).
//!
//! In CI: the failure without a service (one `error:` line naming the URL,
//! exit code 3, nothing cached), and the real binary's `probe --remote`
//! and `line --remote` against a real HTTP listener on 127.0.0.1 that
//! replays bodies captured from a real lila-tablebase server
//! (`tests/remote/capture.sh` writes `tests/remote/replay/`): each answer
//! must equal the local tables', every request must be one that was
//! captured, and the client's request count must be the listener's. On
//! demand, against a real lila-tablebase
//! server on this machine (`scripts/lila-tablebase.sh start DIR`, which
//! reads `../shared/syzygy`):
//!
//! ```sh
//! FIFTYMOVE_LILA_URL=http://127.0.0.1:9000 cargo test --release --test remote -- --ignored
//! ```
//!
//! there every answer must equal the local tables' (the same directory).

mod common;

use std::path::PathBuf;

use fiftymove::{
    best_line,
    chess::material::Material,
    probe::Prober,
    tables::{remote::Remote, Inventory},
};
use rand::{rngs::StdRng, SeedableRng};

/// A loopback port that nothing listens on.
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

#[test]
fn without_a_service_one_error_line_and_nothing_cached() {
    let cache = tempfile::tempdir().unwrap();
    let url = format!("http://127.0.0.1:{}", closed_port());
    for args in [
        vec!["probe", "8/8/8/8/8/2k5/8/KQ6 w - - 0 1"],
        vec!["line", "8/8/8/8/8/2k5/8/KQ6 w - - 0 1"],
    ] {
        let out = common::fiftymove()
            .env("FIFTYMOVE_CACHE_DIR", cache.path())
            .arg(args[0])
            .arg(format!("--remote={url}"))
            .args(&args[1..])
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(3), "{stderr}");
        assert!(out.stdout.is_empty());
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{stderr}");
        assert!(
            lines[0].starts_with("error: the tablebase service at "),
            "{stderr}"
        );
        assert!(
            lines[0].contains(&url) && lines[0].contains("cannot reach"),
            "{stderr}"
        );
    }
    assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 0);
}

#[test]
fn bad_remote_arguments_are_usage_errors() {
    for args in [
        vec![
            "probe",
            "--remote=ftp://example.org",
            "8/8/8/8/8/2k5/8/KQ6 w - - 0 1",
        ],
        vec![
            "probe",
            "--remote",
            "--rule",
            "75",
            "8/8/8/8/8/2k5/8/KQ6 w - - 0 1",
        ],
        vec![
            "probe",
            "--remote-spacing",
            "5",
            "8/8/8/8/8/2k5/8/KQ6 w - - 0 1",
        ],
    ] {
        let out = common::fiftymove().args(&args).output().unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with("error: "), "{stderr}");
    }
}

/// The captured bodies' folder (`tests/remote/capture.sh` fills it).
fn replay_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/remote/replay")
}

/// The commands the replay set was captured for: (subcommand, FEN).
fn replay_commands() -> Vec<(String, String)> {
    let path = replay_dir().join("commands.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (cmd, fen) = l.split_once('\t').expect("a tab between command and FEN");
            (cmd.to_owned(), fen.to_owned())
        })
        .collect()
}

/// `%XX` escapes and `+` (a space, in a query) decoded.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' if i + 2 < b.len() => {
                let hex = std::str::from_utf8(&b[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(v) => {
                        out.push(v);
                        i += 3;
                        continue;
                    }
                    None => out.push(b'%'),
                }
            }
            b'+' => out.push(b' '),
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8(out).expect("utf-8 request")
}

/// What the replay server saw: the requests it answered from the capture,
/// and those it had no body for (answered 404).
#[derive(Default)]
struct Seen {
    served: Vec<String>,
    unknown: Vec<String>,
}

/// A real HTTP listener on 127.0.0.1 that answers the captured requests of
/// `replay/manifest.tsv` with their bodies, byte for byte, and anything
/// else with a 404. Minimal HTTP/1.1: one request per connection
/// (`Connection: close`). It stops when dropped.
struct Replay {
    addr: std::net::SocketAddr,
    seen: std::sync::Arc<std::sync::Mutex<Seen>>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Replay {
    fn start() -> Replay {
        use std::{
            collections::HashMap,
            io::{BufRead, BufReader, Write},
            sync::{atomic::Ordering, Arc, Mutex},
        };
        let dir = replay_dir();
        let manifest = std::fs::read_to_string(dir.join("manifest.tsv")).unwrap();
        let bodies: HashMap<String, Vec<u8>> = manifest
            .lines()
            .map(|l| {
                let (request, file) = l.split_once('\t').expect("request, tab, file");
                let body = std::fs::read(dir.join(file))
                    .unwrap_or_else(|e| panic!("{file} of manifest.tsv: {e}"));
                (request.to_owned(), body)
            })
            .collect();
        assert!(!bodies.is_empty(), "replay/manifest.tsv is empty");
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Seen::default()));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let thread = {
            let (seen, stop) = (seen.clone(), stop.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(mut stream) = stream else { continue };
                    let timeout = Some(std::time::Duration::from_secs(10));
                    stream.set_read_timeout(timeout).unwrap();
                    stream.set_write_timeout(timeout).unwrap();
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut request_line = String::new();
                    if reader.read_line(&mut request_line).is_err() {
                        continue;
                    }
                    // The headers, up to the empty line; a GET has no body.
                    loop {
                        let mut header = String::new();
                        match reader.read_line(&mut header) {
                            Ok(0) | Err(_) => break,
                            Ok(_) if header.trim_end().is_empty() => break,
                            Ok(_) => {}
                        }
                    }
                    let mut parts = request_line.split_whitespace();
                    let (method, target) = (parts.next(), parts.next());
                    let request = target.map(percent_decode).unwrap_or_default();
                    let body = (method == Some("GET"))
                        .then(|| bodies.get(&request))
                        .flatten();
                    let (status, content_type, body) = match body {
                        Some(b) => {
                            seen.lock().unwrap().served.push(request);
                            ("200 OK", "application/json", b.as_slice())
                        }
                        None => {
                            seen.lock()
                                .unwrap()
                                .unknown
                                .push(request_line.trim_end().to_owned());
                            ("404 Not Found", "text/plain", &b"not captured"[..])
                        }
                    };
                    let head = format!(
                        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n\
                         Content-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = stream
                        .write_all(head.as_bytes())
                        .and_then(|()| stream.write_all(body))
                        .and_then(|()| stream.flush());
                }
            })
        };
        Replay {
            addr,
            seen,
            stop,
            thread: Some(thread),
        }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// (requests served from the capture, requests it had no body for).
    fn counts(&self) -> (usize, usize) {
        let s = self.seen.lock().unwrap();
        (s.served.len(), s.unknown.len())
    }
}

impl Drop for Replay {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        // Wakes the listener's accept; it sees the flag and returns.
        let _ = std::net::TcpStream::connect(self.addr);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The JSON document of a run, without its `engine` (which names the
/// source).
fn document(stdout: &[u8]) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_slice(stdout).unwrap();
    if let Some(o) = v.as_object_mut() {
        o.remove("engine");
    }
    v
}

/// The requests a run's `remote:` line on stderr counts, and its answers
/// from the cache.
fn remote_summary(stderr: &str) -> (usize, usize) {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("remote: "))
        .unwrap_or_else(|| panic!("no remote: line in {stderr}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let n = |i: usize| words[i].parse::<usize>().unwrap();
    // remote: N request(s) to URL, M answer(s) from the cache
    (n(1), n(5))
}

/// Runs every replay command of `cmd` through `--remote` against the
/// replay server, with a fresh cache, and compares it with the same
/// command on the local tables; then once more from the cache alone.
fn replayed_equals_local(cmd: &str) {
    let commands: Vec<String> = replay_commands()
        .into_iter()
        .filter(|(c, _)| c == cmd)
        .map(|(_, fen)| fen)
        .collect();
    assert!(!commands.is_empty(), "no {cmd} in replay/commands.txt");
    for fen in commands {
        let replay = Replay::start();
        let url = replay.url();
        let cache = tempfile::tempdir().unwrap();
        let want =
            document(&common::run_ok(common::fiftymove().args(["--json", cmd, &fen])).stdout);
        let started = std::time::Instant::now();
        let out = common::run_ok(
            common::fiftymove()
                .env("FIFTYMOVE_CACHE_DIR", cache.path())
                .args(["--json", cmd, &format!("--remote={url}"), &fen]),
        );
        let stderr = String::from_utf8(out.stderr).unwrap();
        let (served, unknown) = replay.counts();
        assert_eq!(
            unknown,
            0,
            "{cmd} {fen}: not captured: {:?}",
            replay.seen.lock().unwrap().unknown
        );
        assert!(served > 0, "{cmd} {fen}: the replay server served nothing");
        // The client counts what the listener served: nothing came from
        // anywhere else.
        assert_eq!(
            remote_summary(&stderr),
            (served, 0),
            "{cmd} {fen}: {stderr}"
        );
        let got = document(&out.stdout);
        assert_eq!(got, want, "{cmd} {fen}: --remote differs from the tables");
        eprintln!(
            "{cmd} {fen}: {served} request(s) replayed in {:.2} s",
            started.elapsed().as_secs_f64()
        );
        // Again with the same cache: the same answer and no request.
        let again = common::run_ok(
            common::fiftymove()
                .env("FIFTYMOVE_CACHE_DIR", cache.path())
                .args(["--json", cmd, &format!("--remote={url}"), &fen]),
        );
        let stderr = String::from_utf8(again.stderr).unwrap();
        assert_eq!(replay.counts(), (served, 0), "{cmd} {fen}: {stderr}");
        assert_eq!(remote_summary(&stderr), (0, served), "{stderr}");
        assert_eq!(document(&again.stdout), want, "{cmd} {fen} from the cache");
    }
}

#[test]
fn replayed_probes_equal_local_probes() {
    replayed_equals_local("probe");
}

#[test]
fn replayed_line_equals_local_line() {
    replayed_equals_local("line");
}

/// A service's answers are kept under the cache root `--cache-dir` names
/// (`remote/`), nowhere else, and not at all with `--no-cache`.
#[test]
fn answers_are_kept_under_cache_dir_and_not_with_no_cache() {
    let (cmd, fen) = replay_commands()
        .into_iter()
        .find(|(c, _)| c == "probe")
        .expect("a probe in replay/commands.txt");
    for no_cache in [false, true] {
        let replay = Replay::start();
        let home = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        let mut command = common::fiftymove();
        command
            .env_remove("FIFTYMOVE_CACHE_DIR")
            .env_remove("XDG_CACHE_HOME")
            .env("HOME", home.path())
            .arg("--quiet")
            .arg("--cache-dir")
            .arg(root.path());
        if no_cache {
            command.arg("--no-cache");
        }
        common::run_ok(command.args([&cmd, &format!("--remote={}", replay.url()), &fen]));
        assert!(replay.counts().0 > 0);
        assert_eq!(std::fs::read_dir(home.path()).unwrap().count(), 0);
        let remote = root.path().join("remote");
        let answers = std::fs::read_dir(&remote)
            .map(|dirs| {
                dirs.map(|d| std::fs::read_dir(d.unwrap().path()).unwrap().count())
                    .sum::<usize>()
            })
            .unwrap_or(0);
        if no_cache {
            assert!(!remote.exists(), "--no-cache kept answers");
        } else {
            assert_eq!(answers, replay.counts().0, "one file per answer");
        }
    }
}

#[test]
fn the_replay_server_refuses_what_was_not_captured() {
    // A position outside the capture: a 404, an error, and the test sees it.
    let replay = Replay::start();
    let cache = tempfile::tempdir().unwrap();
    let out = common::fiftymove()
        .env("FIFTYMOVE_CACHE_DIR", cache.path())
        .args([
            "probe",
            &format!("--remote={}", replay.url()),
            "8/8/8/8/8/2k5/8/KBN5 w - - 0 1",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("HTTP 404"), "{stderr}");
    assert_eq!(replay.counts(), (0, 1));
    assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 0);
}

#[test]
fn an_exhausted_budget_gives_a_labelled_answer_and_exit_0() {
    // KBB v KN: DTZ parity is not fixed, so the exact values of its moves
    // need a search down the phase (16 requests). With a budget of two,
    // what is known is given, "n or n+1" where rounded, labelled not exact
    // in the JSON and in the text.
    let fen = "8/8/5K2/1k3BB1/8/8/8/1n6 w - - 0 1";
    let want = document(&common::run_ok(common::fiftymove().args(["--json", "probe", fen])).stdout);
    for json in [true, false] {
        let replay = Replay::start();
        let cache = tempfile::tempdir().unwrap();
        let mut cmd = common::fiftymove();
        cmd.env("FIFTYMOVE_CACHE_DIR", cache.path());
        if json {
            cmd.arg("--json");
        }
        let out = cmd
            .args(["probe", &format!("--remote={}", replay.url())])
            .args(["--remote-budget", "2", fen])
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        assert_eq!(replay.counts(), (2, 0), "{stderr}");
        assert_eq!(remote_summary(&stderr), (2, 0), "{stderr}");
        assert!(stderr.contains("(budget 2, 0 left)"), "{stderr}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        if json {
            let got: serde_json::Value = serde_json::from_str(&stdout).unwrap();
            assert!(!agrees(&got, &want, fen), "{stdout}");
            assert_eq!(got["exact"], false);
            assert!(got["not_exact"].as_str().unwrap().contains("table files"));
            // Some move's DTZ is given as a range.
            assert!(got["moves"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m.get("dtz_range").is_some()));
        } else {
            assert!(
                stdout.contains("NOT EXACT: the request budget (2 requests"),
                "{stdout}"
            );
            assert!(stdout.contains("--remote-budget"), "{stdout}");
            // The position's DTZ is exact (it zeroes at once); some move's
            // is shown as "n|n+1".
            assert!(stdout.contains("+1 plies (exact)"), "{stdout}");
            assert!(
                stdout
                    .lines()
                    .any(|l| l.contains("loss") && l.contains('|')),
                "{stdout}"
            );
        }
    }
}

#[test]
fn a_line_past_the_budget_is_refused_with_one_error_line() {
    // KQ v K's 11-ply line costs about 12 requests for the phase and some
    // for what follows: a budget of 5 refuses it after the first response,
    // with one error line and exit code 2.
    let replay = Replay::start();
    let cache = tempfile::tempdir().unwrap();
    let out = common::fiftymove()
        .env("FIFTYMOVE_CACHE_DIR", cache.path())
        .args(["line", &format!("--remote={}", replay.url())])
        .args(["--remote-budget", "5", "8/8/8/8/8/2k5/8/KQ6 w - - 0 1"])
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty());
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("remote: "))
        .collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(
        errors[0].starts_with("error: the tablebase service at "),
        "{stderr}"
    );
    assert!(
        errors[0].contains("would need about") && errors[0].contains("refused"),
        "{stderr}"
    );
    // Only the first response was asked for.
    assert_eq!(replay.counts(), (1, 0), "{stderr}");
    // With --quiet the error line is all there is.
    let out = common::fiftymove()
        .env("FIFTYMOVE_CACHE_DIR", cache.path())
        .args(["--quiet", "line", &format!("--remote={}", replay.url())])
        .args(["--remote-budget", "5", "8/8/8/8/8/2k5/8/KQ6 w - - 0 1"])
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

/// The server's URL, for the on-demand tests.
fn lila_url() -> String {
    std::env::var("FIFTYMOVE_LILA_URL").expect(
        "set FIFTYMOVE_LILA_URL to a lila-tablebase server over ../shared/syzygy \
         (scripts/lila-tablebase.sh start DIR)",
    )
}

/// The tables the server reads: `$FIFTYMOVE_LILA_TABLES`, else
/// `../shared/syzygy`.
fn lila_tables() -> PathBuf {
    std::env::var_os("FIFTYMOVE_LILA_TABLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/syzygy"))
}

fn local() -> Prober {
    let inv = Inventory::scan(&[lila_tables()]).unwrap();
    Prober::new(inv.open().unwrap())
}

fn remote(cache: Option<&std::path::Path>) -> Prober {
    Prober::remote(Remote::new(&lila_url(), cache, std::time::Duration::ZERO).unwrap())
}

#[test]
#[ignore = "needs a lila-tablebase server: FIFTYMOVE_LILA_URL"]
fn remote_probe_equals_local_probe_on_random_positions() {
    let (local, remote) = (local(), remote(None));
    // 3 to 6 pieces, with and without pawns, the 6-piece table. Left out:
    // materials where the loser may be forced to capture and stay lost, so
    // that DTZ parity is not fixed and every move's rounded DTZ is settled
    // by a search down the phase, a request per position it visits. With
    // KBB v KN in this list, 8/8/8/8/3k1B2/8/8/K4Bn1 w (a cursed win, DTZ
    // 119) was not settled after 15 minutes and 22,960 requests to a local
    // server (the files take 3.8 s); KQQ v KQ and KRP v KR stalled the run
    // the same way (8/P4R2/6K1/8/7r/2k5/8/8 w for KRP v KR). KBB v KN's
    // longest line is in the line test below. Since issue 42 they finish
    // within a budget: requests_per_position has every material, with the
    // default budget, and checks the labelled answers too.
    let materials = [
        "KQvK", "KRvK", "KPvK", "KRvKP", "KPvKP", "KBNvK", "KQvKR", "KQvKP", "KRBvKR", "KNNvKP",
        "KQPvKQ", "KNNvKNN",
    ];
    let mut rng = StdRng::seed_from_u64(0x4c49_4c41);
    let mut checked = 0;
    let mut per_material = std::collections::BTreeMap::new();
    let mut requests_before = 0;
    while checked < 500 {
        let material: Material = materials[checked % materials.len()].parse().unwrap();
        let Some(pos) = common::random_position(&mut rng, &material) else {
            continue;
        };
        let fen = fiftymove::fen_of(&pos);
        if std::env::var_os("FIFTYMOVE_LILA_VERBOSE").is_some() {
            eprintln!("{checked} {material} {fen}: probing");
        }
        let mut want = serde_json::to_value(local.report(&pos).unwrap()).unwrap();
        let mut got = serde_json::to_value(remote.report(&pos).unwrap()).unwrap();
        assert!(got["engine"].as_str().unwrap().contains(&lila_url()));
        want.as_object_mut().unwrap().remove("engine");
        got.as_object_mut().unwrap().remove("engine");
        assert_eq!(got, want, "{fen}");
        let requests = remote.remote_source().unwrap().stats().requests;
        // (positions, requests) per material.
        let entry = per_material.entry(material.to_string()).or_insert((0, 0));
        entry.0 += 1;
        entry.1 += requests - requests_before;
        requests_before = requests;
        if std::env::var_os("FIFTYMOVE_LILA_VERBOSE").is_some() {
            eprintln!("{checked} {material} {fen}: {requests} requests so far");
        }
        checked += 1;
    }
    let s = remote.remote_source().unwrap().stats();
    eprintln!("{checked} positions equal ({per_material:?}); {s:?}");
}

/// Lines of the README's examples that the tables here hold: the
/// generator's longest blessed loss of KBB v KN, KNN v KNN's longest win
/// (the 6-piece table), and the KQ v KR line with its clock at 40.
const LINES: [&str; 3] = [
    "8/8/8/1B6/8/8/8/1KBk2n1 b - - 0 1",
    "7n/8/8/8/2N5/8/4N3/knK5 w - - 0 1",
    "8/8/2k5/1r6/8/8/8/2KQ4 b - - 40 1",
];

#[test]
#[ignore = "needs a lila-tablebase server: FIFTYMOVE_LILA_URL"]
fn remote_lines_equal_local_lines_and_the_second_walk_is_free() {
    let cache = tempfile::tempdir().unwrap();
    let local = local();
    for fen in LINES {
        let pos = fiftymove::parse_fen(fen).unwrap();
        let want = serde_json::to_value(best_line(&local, &pos).unwrap()).unwrap();
        let first = remote(Some(cache.path()));
        let got = serde_json::to_value(best_line(&first, &pos).unwrap()).unwrap();
        assert_eq!(got, want, "{fen}");
        let s1 = first.remote_source().unwrap().stats();
        assert!(s1.requests > 0 && s1.from_cache == 0, "{s1:?}");
        // A new run (a new process would be the same: nothing but the
        // disk cache carries over) walks it again with no request.
        let second = remote(Some(cache.path()));
        let again = serde_json::to_value(best_line(&second, &pos).unwrap()).unwrap();
        assert_eq!(again, want, "{fen}");
        let s2 = second.remote_source().unwrap().stats();
        assert_eq!(s2.requests, 0, "{s2:?}");
        // At most what the first walk asked for: with every answer cached,
        // the proof search sees every position as free and may prove the
        // same values through fewer of them (KBB v KN: 692 of 724).
        assert!(
            s2.from_cache > 0 && s2.from_cache <= s1.requests,
            "{fen}: {s2:?} after {s1:?}"
        );
        eprintln!(
            "{fen}: {} requests, then {} from the cache",
            s1.requests, s2.from_cache
        );
    }
}

#[test]
#[ignore = "needs a lila-tablebase server: FIFTYMOVE_LILA_URL"]
fn binary_probe_and_line_remote_equal_local() {
    let cache = tempfile::tempdir().unwrap();
    let url = lila_url();
    for fen in LINES {
        for cmd in ["probe", "line"] {
            let local = common::stdout_ok(
                common::fiftymove()
                    .arg("--tables")
                    .arg(lila_tables())
                    .args(["--json", cmd, fen]),
            );
            let out = common::run_ok(
                common::fiftymove()
                    .env("FIFTYMOVE_CACHE_DIR", cache.path())
                    // The KBB v KN line costs about 720 requests and its
                    // probe more: a budget that leaves both exact.
                    .args(["--json", cmd, &format!("--remote={url}")])
                    .args(["--remote-budget", "20000", fen]),
            );
            let mut got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            let mut want: serde_json::Value = serde_json::from_str(&local).unwrap();
            if let Some(o) = got.as_object_mut() {
                o.remove("engine");
            }
            if let Some(o) = want.as_object_mut() {
                o.remove("engine");
            }
            assert_eq!(got, want, "{cmd} {fen}");
            let stderr = String::from_utf8(out.stderr).unwrap();
            assert!(stderr.contains("request(s) to"), "{stderr}");
        }
    }
}

/// Whether `got`, a report from the service, agrees with `want`, the
/// tables': equal where it says it is exact, and where it is not (a budget
/// ran out), labelled so, with the tables' value within each range. Returns
/// whether it was exact.
fn agrees(got: &serde_json::Value, want: &serde_json::Value, fen: &str) -> bool {
    let mut got = got.clone();
    let mut want = want.clone();
    for v in [&mut got, &mut want] {
        v.as_object_mut().unwrap().remove("engine");
    }
    if got.get("exact").is_none() {
        assert_eq!(got, want, "{fen}");
        return true;
    }
    assert_eq!(got["exact"], false, "{fen}");
    assert!(
        got["not_exact"]
            .as_str()
            .unwrap()
            .contains("--remote-budget"),
        "{fen}"
    );
    let within = |g: &serde_json::Value, w: &serde_json::Value, what: &str| match g.get("dtz_range")
    {
        Some(r) => {
            let r: Vec<i64> = r
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().unwrap())
                .collect();
            let d = w["dtz"].as_i64().unwrap();
            assert!(r.contains(&d), "{fen} {what}: {d} not in {r:?}");
            assert_eq!(r[1] - r[0], r[0].signum(), "{fen} {what}: n or n+1");
            assert_eq!(g["dtz"].as_i64().unwrap(), r[0], "{fen} {what}");
        }
        None => assert_eq!(g["dtz"], w["dtz"], "{fen} {what}"),
    };
    within(&got, &want, "the position");
    if got.get("wdl_range").is_none() {
        assert_eq!(got["wdl"], want["wdl"], "{fen}");
    }
    // The moves, by UCI (an order by values that are not exact may differ).
    let by_uci = |v: &serde_json::Value| {
        let mut m: Vec<serde_json::Value> = v["moves"].as_array().unwrap().clone();
        m.sort_by_key(|x| x["uci"].as_str().unwrap().to_owned());
        m
    };
    let (gm, wm) = (by_uci(&got), by_uci(&want));
    assert_eq!(gm.len(), wm.len(), "{fen}");
    for (g, w) in gm.iter().zip(&wm) {
        assert_eq!(g["uci"], w["uci"], "{fen}");
        within(g, w, g["uci"].as_str().unwrap());
        if g.get("wdl_range").is_none() {
            assert_eq!(g["wdl"], w["wdl"], "{fen}");
        }
    }
    false
}

/// The requests one `probe` costs, per position, on the random test's
/// positions with every material back in (KBB v KN, KRP v KR, KQQ v KQ):
/// a fresh source per position (no cache, nothing in memory), so that each
/// count is what one `probe --remote` of that position sends. Prints the
/// median, the 90th percentile and the maximum.
#[test]
#[ignore = "needs a lila-tablebase server: FIFTYMOVE_LILA_URL"]
fn requests_per_position() {
    let local = local();
    // The binary's default budget, unless FIFTYMOVE_LILA_BUDGET says
    // otherwise.
    let budget: u64 = std::env::var("FIFTYMOVE_LILA_BUDGET")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let materials = [
        "KQvK", "KRvK", "KPvK", "KRvKP", "KPvKP", "KBNvK", "KQvKR", "KQvKP", "KRBvKR", "KNNvKP",
        "KQPvKQ", "KNNvKNN", "KBBvKN", "KRPvKR", "KQQvKQ",
    ];
    let n: usize = std::env::var("FIFTYMOVE_LILA_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(500);
    let mut rng = StdRng::seed_from_u64(0x4c49_4c41);
    let mut counts: Vec<(u64, bool, String)> = Vec::new();
    while counts.len() < n {
        let material: Material = materials[counts.len() % materials.len()].parse().unwrap();
        let Some(pos) = common::random_position(&mut rng, &material) else {
            continue;
        };
        let fen = fiftymove::fen_of(&pos);
        let want = serde_json::to_value(local.report(&pos).unwrap()).unwrap();
        let prober = Prober::remote(
            Remote::new(&lila_url(), None, std::time::Duration::ZERO)
                .unwrap()
                .with_budget(Some(budget)),
        );
        let got = serde_json::to_value(prober.report(&pos).unwrap()).unwrap();
        let requests = prober.remote_source().unwrap().stats().requests;
        assert!(requests <= budget, "{fen}: {requests}");
        let exact = agrees(&got, &want, &fen);
        eprintln!(
            "{} {material} {fen}: {requests} {}",
            counts.len(),
            if exact { "exact" } else { "not exact" }
        );
        counts.push((requests, exact, material.to_string()));
    }
    let mut sorted: Vec<u64> = counts.iter().map(|c| c.0).collect();
    sorted.sort_unstable();
    let pct = |p: usize| sorted[(sorted.len() * p / 100).min(sorted.len() - 1)];
    let exact = counts.iter().filter(|c| c.1).count();
    eprintln!(
        "requests per position over {}: median {}, p90 {}, max {}; {exact} exact ({:.1} %)",
        sorted.len(),
        pct(50),
        pct(90),
        sorted[sorted.len() - 1],
        100.0 * exact as f64 / sorted.len() as f64
    );
}
