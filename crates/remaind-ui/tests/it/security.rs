use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use camino::Utf8PathBuf;
use remaind_events::{Kind, NewEvent};
use remaind_fs::ContextDir;
use remaind_ledger::Ledger;
use remaind_ui::{Options, Viewer};

/// A folder with events and one accepted compaction.
fn folder() -> (tempfile::TempDir, ContextDir) {
    let tmp = tempfile::tempdir().unwrap();
    let root = Utf8PathBuf::from_path_buf(tmp.path().join(".context")).unwrap();
    let ctx = ContextDir::new(root.clone());
    remaind_resume::init(&ctx, false).unwrap();
    let ledger = Ledger::open(&root).unwrap();
    for (kind, text) in [
        (Kind::UserMessage, "Ship the viewer"),
        (Kind::Decision, "<script>alert(1)</script>"),
        (Kind::NextStep, "## Next step"),
    ] {
        ledger
            .append(NewEvent {
                kind: Some(kind),
                text: Some(text.to_owned()),
                ..NewEvent::default()
            })
            .unwrap();
    }
    let store = remaind_compact::open_store(&root).unwrap();
    remaind_compact::compact(
        &ledger,
        &store,
        remaind_compact::Source::Builtin,
        remaind_compact::Options::default(),
    )
    .unwrap();
    (tmp, ctx)
}

/// Everything a write could change: the log's head, the derived files, the history.
fn snapshot(ctx: &ContextDir) -> (u64, Option<Vec<u8>>, Option<Vec<u8>>, usize) {
    let ledger = Ledger::open(ctx.root()).unwrap();
    let store = remaind_compact::open_store(ctx.root()).unwrap();
    (
        ledger.head().unwrap().0,
        store.read("state.json").unwrap(),
        store.read("handover.md").unwrap(),
        remaind_resume::rollback_points(ctx).unwrap().len(),
    )
}

struct Running {
    addr: SocketAddr,
    token: String,
    /// The session cookie's header line, as the token URL set it.
    cookie: String,
    /// The page key the token URL's redirect handed to the page.
    key: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
    }
}

fn start(ctx: &ContextDir, allow_writes: bool) -> Running {
    let mut options = Options::local(ctx.clone());
    options.allow_writes = allow_writes;
    let viewer = Viewer::bind(options).unwrap();
    let addr = viewer.address();
    let token = viewer.url().rsplit_once("token=").unwrap().1.to_owned();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        viewer
            .serve_until(async move {
                let _ = rx.await;
            })
            .unwrap();
    });
    let mut run = Running {
        addr,
        token,
        cookie: String::new(),
        key: String::new(),
        stop: Some(tx),
        thread: Some(thread),
    };
    // What a browser does with the printed URL: keep the cookie, and the key the redirect's
    // fragment carries (the page's script stores it).
    let (code, text) = request(
        addr,
        &format!("GET /?token={} HTTP/1.1\r\nHost: {addr}", run.token),
        "",
    );
    assert_eq!(code, 303, "{text}");
    let set = text
        .lines()
        .find_map(|l| l.strip_prefix("set-cookie: "))
        .expect("the token URL sets a cookie");
    run.cookie = format!("Cookie: {}", set.split(';').next().unwrap());
    let location = text
        .lines()
        .find_map(|l| l.strip_prefix("location: "))
        .expect("the token URL redirects");
    run.key = location
        .split_once("#remaind-key=")
        .expect("the redirect hands over the key")
        .1
        .trim()
        .to_owned();
    run
}

impl Running {
    /// The headers the owner's page sends with its own requests: the cookie and the key.
    fn auth(&self) -> String {
        format!("{}\r\nX-Remaind-Key: {}", self.cookie, self.key)
    }
}

/// One raw HTTP/1.1 exchange: the status code and the whole response text.
fn request(addr: SocketAddr, head: &str, body: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let req = format!(
        "{head}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let code = out
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (code, out)
}

#[test]
fn a_request_without_the_token_is_refused() {
    let (_tmp, ctx) = folder();
    let run = start(&ctx, false);
    let host = run.addr.to_string();
    for path in [
        "/timeline",
        "/e/1",
        "/now",
        "/assets/app.js",
        "/live?after=0",
    ] {
        let (code, text) = request(
            run.addr,
            &format!("GET {path} HTTP/1.1\r\nHost: {host}"),
            "",
        );
        assert_eq!(code, 401, "{path}: {text}");
        assert!(!text.contains("Ship the viewer"), "{path} leaked content");
    }
    // A wrong token, in the cookie or the URL, is no better.
    let (code, _) = request(
        run.addr,
        &format!(
            "GET /timeline HTTP/1.1\r\nHost: {host}\r\nCookie: remaind_ui_{}=00",
            run.addr.port()
        ),
        "",
    );
    assert_eq!(code, 401);
    let (code, _) = request(
        run.addr,
        &format!("GET /?token=abc HTTP/1.1\r\nHost: {host}"),
        "",
    );
    assert_eq!(code, 401);
    // The right one is traded for an HttpOnly, SameSite=Strict cookie (not the token itself)
    // and a URL without it whose fragment (never sent to a server) hands the page its key.
    let (code, text) = request(
        run.addr,
        &format!("GET /now?token={} HTTP/1.1\r\nHost: {host}", run.token),
        "",
    );
    assert_eq!(code, 303, "{text}");
    assert!(
        text.contains(&format!("location: /now#remaind-key={}\r\n", run.key)),
        "{text}"
    );
    assert!(text.contains("HttpOnly; SameSite=Strict"), "{text}");
    assert!(!run.cookie.contains(&run.token), "the cookie is the token");
    let (code, text) = request(
        run.addr,
        &format!("GET /timeline HTTP/1.1\r\nHost: {host}\r\n{}", run.auth()),
        "",
    );
    assert_eq!(code, 200, "{text}");
    assert!(text.contains("Ship the viewer"));
    assert!(text.contains("content-security-policy: default-src 'none'; script-src 'self'"));
    assert!(text.contains("x-content-type-options: nosniff"));
    assert!(text.contains("referrer-policy: no-referrer"));
    // Event text is data: markup and a forged heading arrive as characters.
    assert!(text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(!text.contains("<script>alert(1)"));
}

#[test]
fn a_foreign_host_is_refused_even_with_the_token() {
    let (_tmp, ctx) = folder();
    let run = start(&ctx, false);
    let cookie = run.auth();
    for host in [
        format!("evil.example:{}", run.addr.port()),
        "127.0.0.1:1".to_owned(),
        format!("localhost.evil.example:{}", run.addr.port()),
    ] {
        let (code, text) = request(
            run.addr,
            &format!("GET /timeline HTTP/1.1\r\nHost: {host}\r\n{cookie}"),
            "",
        );
        assert_eq!(code, 403, "{host}: {text}");
        assert!(!text.contains("Ship the viewer"));
    }
    let (code, _) = request(run.addr, &format!("GET /timeline HTTP/1.1\r\n{cookie}"), "");
    assert_eq!(code, 403, "no Host at all");
    // localhost names the same loopback viewer.
    let (code, _) = request(
        run.addr,
        &format!(
            "GET /timeline HTTP/1.1\r\nHost: localhost:{}\r\n{cookie}",
            run.addr.port()
        ),
        "",
    );
    assert_eq!(code, 200);
}

/// The time before the first rollback point, as a form field carries it.
fn first_point_encoded(ctx: &ContextDir) -> String {
    remaind_resume::rollback_points(ctx).unwrap()[0]
        .before
        .replace(':', "%3A")
}

/// The confirmation form's CSRF token, read from the rollback page as the browser would.
fn csrf(run: &Running) -> String {
    let host = run.addr.to_string();
    let (_, page) = request(
        run.addr,
        &format!("GET /rollback HTTP/1.1\r\nHost: {host}\r\n{}", run.auth()),
        "",
    );
    let at = page.find("name=\"csrf\" value=\"").expect("a write form") + 19;
    page[at..at + 64].to_owned()
}

#[test]
fn a_post_from_a_foreign_origin_or_without_one_is_refused_and_changes_nothing() {
    let (_tmp, ctx) = folder();
    let before = snapshot(&ctx);
    let run = start(&ctx, true);
    let host = run.addr.to_string();
    let token = csrf(&run);
    let first = first_point_encoded(&ctx);
    let body = format!("csrf={token}&to={first}&confirm=yes");
    let cookie = run.auth();
    let form = "Content-Type: application/x-www-form-urlencoded";
    for origin in [
        "Origin: http://evil.example".to_owned(),
        format!("Origin: http://localhost.evil.example:{}", run.addr.port()),
        "Origin: null".to_owned(),
        "Origin: null\r\nSec-Fetch-Site: cross-site".to_owned(),
        format!("Origin: http://{host}\r\nSec-Fetch-Site: cross-site"),
        String::new(),
    ] {
        let extra = if origin.is_empty() {
            String::new()
        } else {
            format!("\r\n{origin}")
        };
        let (code, text) = request(
            run.addr,
            &format!("POST /rollback HTTP/1.1\r\nHost: {host}\r\n{cookie}\r\n{form}{extra}"),
            &body,
        );
        assert_eq!(code, 403, "{origin}: {text}");
    }
    // A wrong CSRF token, or no confirmation step, is refused too.
    let origin = format!("Origin: http://{host}");
    let (code, _) = request(
        run.addr,
        &format!("POST /rollback HTTP/1.1\r\nHost: {host}\r\n{cookie}\r\n{form}\r\n{origin}"),
        &body.replace(&token, &"0".repeat(64)),
    );
    assert_eq!(code, 403);
    let (code, _) = request(
        run.addr,
        &format!("POST /rollback HTTP/1.1\r\nHost: {host}\r\n{cookie}\r\n{form}\r\n{origin}"),
        &body.replace("&confirm=yes", ""),
    );
    assert_eq!(code, 400);
    // And the cookie is needed: the CSRF token alone is not enough.
    let (code, _) = request(
        run.addr,
        &format!("POST /rollback HTTP/1.1\r\nHost: {host}\r\n{form}\r\n{origin}"),
        &body,
    );
    assert_eq!(code, 401);
    drop(run);
    assert_eq!(snapshot(&ctx), before, "a refused write changed something");
}

#[test]
fn a_write_without_allow_writes_is_refused_and_changes_nothing() {
    let (_tmp, ctx) = folder();
    let before = snapshot(&ctx);
    let run = start(&ctx, false);
    let host = run.addr.to_string();
    let cookie = run.auth();
    let (_, page) = request(
        run.addr,
        &format!("GET /rollback HTTP/1.1\r\nHost: {host}\r\n{cookie}"),
        "",
    );
    assert!(page.contains("Read-only"), "{page}");
    assert!(
        !page.contains("name=\"csrf\""),
        "a read-only viewer offers no write form"
    );
    let first = first_point_encoded(&ctx);
    for path in ["/rollback", "/rollback/confirm"] {
        let (code, text) = request(
            run.addr,
            &format!(
                "POST {path} HTTP/1.1\r\nHost: {host}\r\n{cookie}\r\nOrigin: http://{host}\r\nContent-Type: application/x-www-form-urlencoded"
            ),
            &format!("to={first}&confirm=yes&csrf=x"),
        );
        assert_eq!(code, 403, "{path}: {text}");
        assert!(text.contains("--allow-writes"), "{text}");
    }
    drop(run);
    assert_eq!(snapshot(&ctx), before, "a refused write changed something");
}

#[test]
fn a_port_in_use_is_named_as_such() {
    let (_tmp, ctx) = folder();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let mut options = Options::local(ctx);
    options.port = taken.local_addr().unwrap().port();
    let err = Viewer::bind(options).unwrap_err();
    assert!(err.is_addr_in_use(), "{err:?}");
}

/// What a live tail sends within `wait` of its request (the stream never ends by itself),
/// after `during` has run.
fn tail_for(run: &Running, last_event_id: &str, wait: Duration, during: impl FnOnce()) -> String {
    let mut s = TcpStream::connect(run.addr).unwrap();
    let req = format!(
        "GET /live?key={} HTTP/1.1\r\nHost: {}\r\n{}\r\nLast-Event-ID: {last_event_id}\r\nAccept: text/event-stream\r\n\r\n",
        run.key, run.addr, run.cookie
    );
    s.write_all(req.as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    during();
    let until = std::time::Instant::now() + wait;
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    while let Some(left) = until.checked_duration_since(std::time::Instant::now()) {
        s.set_read_timeout(Some(left.max(Duration::from_millis(10))))
            .unwrap();
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn a_last_event_id_past_any_seq_resumes_at_the_head_not_the_start() {
    let (_tmp, ctx) = folder();
    let run = start(&ctx, false);
    // An ordinary id resumes after it.
    let text = tail_for(&run, "1", Duration::from_secs(2), || {});
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(
        text.contains("id: 2\n") && !text.contains("id: 1\n"),
        "{text}"
    );
    for id in [
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999999999",
        "123456789",
        "-1",
        "abc",
    ] {
        let text = tail_for(&run, id, Duration::from_secs(2), || {
            Ledger::open(ctx.root())
                .unwrap()
                .append(NewEvent {
                    kind: Some(Kind::Note),
                    text: Some(format!("after {id}")),
                    ..NewEvent::default()
                })
                .unwrap();
        });
        assert!(text.starts_with("HTTP/1.1 200"), "{id}: {text}");
        assert!(
            !text.contains("Ship the viewer"),
            "{id} replayed the ledger: {text}"
        );
        assert!(
            !text.contains("id: 1\n"),
            "{id} replayed the ledger: {text}"
        );
        // What is appended after it still arrives.
        assert!(text.contains(&format!("after {id}")), "{id}: {text}");
    }
}

/// What the folder holds, none of which a refused request may show.
const FOLDER_TEXT: [&str; 3] = ["Ship the viewer", "alert(1)", "Next step"];

#[test]
fn a_replayed_session_cookie_alone_reads_nothing() {
    // Cookies have no port scope: the browser sends the viewer's cookie to every other server
    // on 127.0.0.1, which can replay it. The cookie value alone must open nothing.
    let (_tmp, ctx) = folder();
    let run = start(&ctx, true);
    let host = run.addr.to_string();
    let replay = |path: &str, extra: &str| {
        request(
            run.addr,
            &format!(
                "GET {path} HTTP/1.1\r\nHost: {host}\r\n{}{extra}",
                run.cookie
            ),
            "",
        )
    };
    let secrets = |text: &str| {
        FOLDER_TEXT.iter().any(|t| text.contains(t))
            || text.contains(&run.key)
            || text.contains("name=\"csrf\"")
    };
    for path in [
        "/timeline",
        "/timeline?kind=decision",
        "/e/1",
        "/e/2",
        "/search?q=viewer",
        "/now",
        "/compactions",
        "/memory",
        "/integrity",
        "/rollback",
        "/live?after=0",
        "/live",
    ] {
        let (code, text) = replay(path, "");
        assert_eq!(code, 401, "{path}: {text}");
        assert!(
            !secrets(&text),
            "{path} leaked with the cookie alone: {text}"
        );
        // A wrong key, or the right one in a page's URL (only the live tail takes it there),
        // is no better.
        let (code, text) = replay(path, "\r\nX-Remaind-Key: 00");
        assert_eq!(code, 401, "{path} with a wrong key: {text}");
        assert!(!secrets(&text), "{path} leaked: {text}");
    }
    let (code, text) = replay(&format!("/timeline?key={}", "0".repeat(64)), "");
    assert_eq!(code, 401, "{text}");
    let (code, text) = replay("/live?after=0&key=00", "");
    assert_eq!(code, 401, "{text}");
    // The navigation a browser makes gets the boot page: its script asks again with the key.
    let (_, text) = replay("/timeline", "");
    assert!(text.contains("data-boot"), "{text}");
    // Replayed as the printed URL's token, the cookie value is no token: no key is handed out.
    let value = run.cookie.split_once('=').unwrap().1.to_owned();
    // (`/` holds nothing: it only redirects to the timeline.)
    for (path, refused) in [("/", 303), ("/timeline", 401), ("/now", 401)] {
        let (code, text) = replay(&format!("{path}?token={value}"), "");
        assert_eq!(code, refused, "{path}?token=<cookie value>: {text}");
        assert!(!text.contains("remaind-key"), "{text}");
        assert!(!secrets(&text), "{text}");
    }
    // The key without the cookie is refused as well.
    let (code, text) = request(
        run.addr,
        &format!(
            "GET /timeline HTTP/1.1\r\nHost: {host}\r\nX-Remaind-Key: {}",
            run.key
        ),
        "",
    );
    assert_eq!(code, 401, "{text}");
    // The owner's page, with both, reads the folder; the live tail takes the key in its URL.
    let (code, text) = request(
        run.addr,
        &format!("GET /e/2 HTTP/1.1\r\nHost: {host}\r\n{}", run.auth()),
        "",
    );
    assert_eq!(code, 200, "{text}");
    assert!(text.contains("alert(1)"), "{text}");
    let text = tail_for(&run, "0", Duration::from_secs(2), || {});
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(text.contains("Ship the viewer"), "{text}");
}

#[test]
fn a_form_post_carries_the_csrf_token_instead_of_the_key() {
    // A form's POST is a navigation: the browser sends the cookie but no header of its own.
    // The CSRF token, written only into pages that needed the key, stands for the key.
    let (_tmp, ctx) = folder();
    let before = snapshot(&ctx);
    let run = start(&ctx, true);
    let host = run.addr.to_string();
    let token = csrf(&run);
    let to = first_point_encoded(&ctx);
    let head = format!(
        "POST /rollback/confirm HTTP/1.1\r\nHost: {host}\r\n{}\r\nOrigin: http://{host}\r\nContent-Type: application/x-www-form-urlencoded",
        run.cookie
    );
    let (code, text) = request(run.addr, &head, &format!("csrf={token}&to={to}"));
    assert_eq!(code, 200, "{text}");
    assert!(text.contains("id=\"confirm\""), "{text}");
    let (code, text) = request(run.addr, &head, &format!("to={to}"));
    assert_eq!(code, 403, "{text}");
    assert!(!text.contains("id=\"confirm\""), "{text}");
    drop(run);
    assert_eq!(
        snapshot(&ctx),
        before,
        "a confirmation page changed something"
    );
}

/// Reads one response (head and a `Content-Length` body) from a kept-alive connection.
fn read_response(s: &mut TcpStream) -> (u16, String) {
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        if let Some(at) = out.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = s.read(&mut buf).unwrap();
        assert!(n > 0, "the connection closed mid-response");
        out.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&out[..head_end]).into_owned();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .and_then(|v| v.trim().parse().ok())
        .expect("a sized response");
    while out.len() < head_end + length {
        let n = s.read(&mut buf).unwrap();
        assert!(n > 0, "the connection closed mid-body");
        out.extend_from_slice(&buf[..n]);
    }
    let code = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (code, String::from_utf8_lossy(&out).into_owned())
}

/// True when the server closes `s` within `within` (an answer before the close, such as a
/// 408, is fine), false when it is still open then.
fn closed_within(s: &mut TcpStream, within: Duration) -> bool {
    let until = std::time::Instant::now() + within;
    let mut buf = [0u8; 1024];
    while let Some(left) = until.checked_duration_since(std::time::Instant::now()) {
        s.set_read_timeout(Some(left.max(Duration::from_millis(10))))
            .unwrap();
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return false;
            }
            Err(_) => return true,
        }
    }
    false
}

#[test]
fn slow_partial_headers_are_dropped_and_the_owner_still_answers() {
    let (_tmp, ctx) = folder();
    let run = start(&ctx, false);
    // Slow clients: a request line and one header, then nothing (no token is ever checked).
    let opened = std::time::Instant::now();
    let mut slow: Vec<TcpStream> = (0..remaind_ui::MAX_CONNECTIONS / 2)
        .map(|_| {
            let mut s = TcpStream::connect(run.addr).unwrap();
            s.write_all(format!("GET /timeline HTTP/1.1\r\nHost: {}\r\n", run.addr).as_bytes())
                .unwrap();
            s
        })
        .collect();
    // While they are open, the owner's page answers at once.
    let asked = std::time::Instant::now();
    let (code, text) = request(
        run.addr,
        &format!(
            "GET /timeline HTTP/1.1\r\nHost: {}\r\n{}",
            run.addr,
            run.auth()
        ),
        "",
    );
    assert_eq!(code, 200, "{text}");
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "the owner waited {:?}",
        asked.elapsed()
    );
    // None of them is answered early, and each is gone once the header timeout has passed.
    assert!(
        !closed_within(&mut slow[0], Duration::from_millis(500)),
        "a slow header was dropped before its time was up"
    );
    let deadline = opened + remaind_ui::HEADER_TIMEOUT + Duration::from_secs(5);
    for (i, s) in slow.iter_mut().enumerate() {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        assert!(
            closed_within(s, left.max(Duration::from_millis(100))),
            "slow client {i} still open {:?} after it connected",
            opened.elapsed()
        );
    }
    // The viewer is still serving afterwards.
    let (code, _) = request(
        run.addr,
        &format!("GET /now HTTP/1.1\r\nHost: {}\r\n{}", run.addr, run.auth()),
        "",
    );
    assert_eq!(code, 200);
}

#[test]
fn past_the_connection_cap_new_connections_are_closed_and_the_owner_keeps_working() {
    let (_tmp, ctx) = folder();
    let run = start(&ctx, false);
    let ask = |s: &mut TcpStream, path: &str| {
        s.write_all(
            format!(
                "GET {path} HTTP/1.1\r\nHost: {}\r\n{}\r\n\r\n",
                run.addr,
                run.auth()
            )
            .as_bytes(),
        )
        .unwrap();
        read_response(s)
    };
    // The owner's page holds a kept-alive connection.
    let mut owner = TcpStream::connect(run.addr).unwrap();
    owner
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let (code, text) = ask(&mut owner, "/timeline");
    assert_eq!(code, 200, "{text}");
    // A flood fills every other slot and goes past the cap.
    let _flood: Vec<TcpStream> = (0..remaind_ui::MAX_CONNECTIONS)
        .map(|_| TcpStream::connect(run.addr).unwrap())
        .collect();
    let mut extra: Vec<TcpStream> = (0..8)
        .map(|_| TcpStream::connect(run.addr).unwrap())
        .collect();
    let started = std::time::Instant::now();
    for (i, s) in extra.iter_mut().enumerate() {
        let left = Duration::from_secs(3).saturating_sub(started.elapsed());
        assert!(
            closed_within(s, left.max(Duration::from_millis(100))),
            "connection {i} past the cap is still open"
        );
    }
    // The owner's established connection still answers, at once.
    let asked = std::time::Instant::now();
    let (code, text) = ask(&mut owner, "/e/1");
    assert_eq!(code, 200, "{text}");
    assert!(text.contains("Ship the viewer"), "{text}");
    assert!(asked.elapsed() < Duration::from_secs(3));
}
