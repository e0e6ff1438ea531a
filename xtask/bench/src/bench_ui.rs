//! `remaind ui` on a 1,000,000-event ledger (the index benchmark's cached one): time to first
//! byte and to the whole first timeline page, against `remaind events --limit 50` in the same
//! run; a page turn; and the server's RSS after paging back through 10,000 events.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::bench::Measurement;
use crate::bench_index::{binary, cached_context};

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// One GET: (time to the first byte, time to the last, body size).
fn get(addr: &str, path: &str, cookie: &str) -> Result<(Duration, Duration, usize), String> {
    let start = Instant::now();
    let mut s = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    let mut first = [0u8; 1];
    s.read_exact(&mut first).map_err(|e| e.to_string())?;
    let ttfb = start.elapsed();
    let mut rest = Vec::new();
    s.read_to_end(&mut rest).map_err(|e| e.to_string())?;
    let all = start.elapsed();
    let text = String::from_utf8_lossy(&rest);
    if !text.starts_with("TTP/1.1 200") || !text.contains("</html>") {
        return Err(format!("GET {path}: {}", text.lines().next().unwrap_or("")));
    }
    Ok((ttfb, all, rest.len() + 1))
}

fn rss_kib(pid: u32) -> Result<f64, String> {
    let status =
        std::fs::read_to_string(format!("/proc/{pid}/status")).map_err(|e| e.to_string())?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .ok_or_else(|| "no VmRSS".to_owned())
}

pub(crate) fn run(quick: bool) -> Vec<Measurement> {
    run_inner(quick).unwrap_or_else(|e| vec![Measurement::failed("ui", &e)])
}

fn run_inner(quick: bool) -> Result<Vec<Measurement>, String> {
    let n: usize = if quick { 100_000 } else { 1_000_000 };
    let size = if quick {
        "100,000 events (quick)"
    } else {
        "1,000,000 events"
    };
    let (_tmp, dir, _, _) = cached_context(n, crate::bench_index::SEED)?;
    let rounds = if quick { 5 } else { 11 };

    // The baseline: the CLI's own first page.
    let mut cli = Vec::new();
    for _ in 0..rounds {
        let start = Instant::now();
        let st = Command::new(binary())
            .args(["events", "--limit", "50", "--dir", dir.as_str()])
            .env_remove("REMAIND_DIR")
            .stdout(Stdio::null())
            .status()
            .map_err(|e| e.to_string())?;
        cli.push(start.elapsed());
        if !st.success() {
            return Err(format!("remaind events: {st}"));
        }
    }
    let cli = median(cli);

    let mut child = Command::new(binary())
        .args(["ui", "--port", "0", "--dir", dir.as_str()])
        .env_remove("REMAIND_DIR")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let server = Server(child);
    let mut reader = BufReader::new(stdout);
    let mut line = String::new();
    reader.read_line(&mut line).map_err(|e| e.to_string())?;
    std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .ok_or("remaind ui printed no URL")?;
    let (origin, token) = url.split_once("/?token=").ok_or("no token in the URL")?;
    let addr = origin.trim_start_matches("http://").to_owned();
    let cookie = format!(
        "remaind_ui_{}={token}",
        addr.rsplit(':').next().unwrap_or_default()
    );

    let (mut firsts, mut wholes) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let (ttfb, all, _) = get(&addr, "/timeline", &cookie)?;
        firsts.push(ttfb);
        wholes.push(all);
    }
    let rss_before = rss_kib(server.0.id())?;
    // Page back through 10,000 events, 50 a page, as the "older" link does.
    let head = n as u64 + 1;
    let mut turns = Vec::new();
    let mut before = head - 50;
    for _ in 0..200 {
        let (_, all, _) = get(&addr, &format!("/timeline?before={before}"), &cookie)?;
        turns.push(all);
        before -= 50;
    }
    let rss_after = rss_kib(server.0.id())?;
    drop(server);
    Ok(vec![
        Measurement {
            name: "ui: first timeline page, time to first byte".to_owned(),
            figure: ms(median(firsts)),
            baseline_name: "remaind events --limit 50 (whole process)".to_owned(),
            baseline: ms(cli),
            unit: "ms".to_owned(),
            note: format!("{size}; median of {rounds}; target: well under 1 s"),
        },
        Measurement {
            name: "ui: first timeline page, whole HTML".to_owned(),
            figure: ms(median(wholes)),
            baseline_name: "remaind events --limit 50 (whole process)".to_owned(),
            baseline: ms(cli),
            unit: "ms".to_owned(),
            note: format!("{size}; 50 events rendered; target: well under 1 s"),
        },
        Measurement {
            name: "ui: page turn (older, 50 events)".to_owned(),
            figure: ms(median(turns)),
            baseline_name: "remaind events --limit 50 (whole process)".to_owned(),
            baseline: ms(cli),
            unit: "ms".to_owned(),
            note: "median of 200 turns back through 10,000 events".to_owned(),
        },
        Measurement {
            name: "ui: server RSS after paging 10,000 events".to_owned(),
            figure: rss_after / 1024.0,
            baseline_name: "RSS after the first page".to_owned(),
            baseline: rss_before / 1024.0,
            unit: "MiB".to_owned(),
            note: "target: flat (ratio near 1)".to_owned(),
        },
    ])
}
