use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use camino::Utf8PathBuf;
use remaind_ledger::{Kind, Ledger, NewEvent};
use remaind_resume::ContextDir;
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
    Running {
        addr,
        token,
        stop: Some(tx),
        thread: Some(thread),
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
    // The right one is traded for an HttpOnly, SameSite=Strict cookie and a clean URL.
    let (code, text) = request(
        run.addr,
        &format!("GET /now?token={} HTTP/1.1\r\nHost: {host}", run.token),
        "",
    );
    assert_eq!(code, 303, "{text}");
    assert!(text.contains("location: /now\r\n"), "{text}");
    assert!(text.contains("HttpOnly; SameSite=Strict"), "{text}");
    let (code, text) = request(
        run.addr,
        &format!(
            "GET /timeline HTTP/1.1\r\nHost: {host}\r\nCookie: remaind_ui_{}={}",
            run.addr.port(),
            run.token
        ),
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
    let cookie = format!("Cookie: remaind_ui_{}={}", run.addr.port(), run.token);
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

/// The confirmation form's CSRF token, read from the rollback page as the browser would.
fn csrf(run: &Running) -> String {
    let host = run.addr.to_string();
    let (_, page) = request(
        run.addr,
        &format!(
            "GET /rollback HTTP/1.1\r\nHost: {host}\r\nCookie: remaind_ui_{}={}",
            run.addr.port(),
            run.token
        ),
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
    let first = remaind_resume::rollback_points(&ctx).unwrap()[0]
        .before
        .clone();
    let body = format!("csrf={token}&to={}&confirm=yes", first.replace(':', "%3A"));
    let cookie = format!("Cookie: remaind_ui_{}={}", run.addr.port(), run.token);
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
    let cookie = format!("Cookie: remaind_ui_{}={}", run.addr.port(), run.token);
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
    let first = remaind_resume::rollback_points(&ctx).unwrap()[0]
        .before
        .clone();
    for path in ["/rollback", "/rollback/confirm"] {
        let (code, text) = request(
            run.addr,
            &format!(
                "POST {path} HTTP/1.1\r\nHost: {host}\r\n{cookie}\r\nOrigin: http://{host}\r\nContent-Type: application/x-www-form-urlencoded"
            ),
            &format!("to={}&confirm=yes&csrf=x", first.replace(':', "%3A")),
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
        "GET /live HTTP/1.1\r\nHost: {}\r\nCookie: remaind_ui_{}={}\r\nLast-Event-ID: {last_event_id}\r\nAccept: text/event-stream\r\n\r\n",
        run.addr,
        run.addr.port(),
        run.token
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
