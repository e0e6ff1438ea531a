//! `remaind mcp` benchmarks: `record` and `search` calls over one server session on a large
//! ledger, against a `remaind log` / `remaind search` process per call in the same run.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use remaind_index::Index;
use remaind_ledger::Ledger;
use serde_json::{Value, json};

use crate::bench::Measurement;
use crate::bench_index::{QUERIES, generated_context};

fn binary() -> std::path::PathBuf {
    crate::bench::release_binary()
}

/// One MCP session over the server's stdio (newline-delimited JSON-RPC).
struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Session {
    fn start(dir: &str) -> Result<Session, String> {
        let mut child = Command::new(binary())
            .args(["--dir", dir, "mcp"])
            .env_remove("REMAIND_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{}: cannot start: {e}", binary().display()))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut s = Session {
            child,
            stdin,
            stdout,
            next_id: 1,
        };
        s.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "bench", "version": "0"}}),
        )?;
        s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        Ok(s)
    }

    fn send(&mut self, msg: &Value) -> Result<(), String> {
        writeln!(self.stdin, "{msg}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("write to remaind mcp: {e}"))
    }

    fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        loop {
            let mut line = String::new();
            let n = self
                .stdout
                .read_line(&mut line)
                .map_err(|e| format!("read from remaind mcp: {e}"))?;
            if n == 0 {
                return Err("remaind mcp closed stdout".to_owned());
            }
            let msg: Value =
                serde_json::from_str(&line).map_err(|e| format!("non-JSON on stdout: {e}"))?;
            if msg["id"] == json!(id) {
                return Ok(msg);
            }
        }
    }

    /// A tool call that must succeed.
    fn call(&mut self, name: &str, args: Value) -> Result<Value, String> {
        let resp = self.request("tools/call", json!({"name": name, "arguments": args}))?;
        let result = &resp["result"];
        if result.is_null() || result["isError"] == json!(true) {
            return Err(format!("{name} failed: {resp}"));
        }
        Ok(result["structuredContent"].clone())
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The p-th percentile (0..=100) of `times`, nearest rank.
fn percentile(times: &mut [Duration], p: f64) -> Duration {
    times.sort();
    let rank = ((p / 100.0) * times.len() as f64).ceil() as usize;
    times[rank.clamp(1, times.len()) - 1]
}

fn timed<T>(f: impl FnOnce() -> Result<T, String>) -> Result<Duration, String> {
    let start = Instant::now();
    f()?;
    Ok(start.elapsed())
}

/// Runs the MCP benchmarks.
pub(crate) fn run(quick: bool) -> Vec<Measurement> {
    run_inner(quick).unwrap_or_else(|e| vec![Measurement::failed("mcp", &e)])
}

fn run_inner(quick: bool) -> Result<Vec<Measurement>, String> {
    let n: usize = if quick { 100_000 } else { 1_000_000 };
    let calls: usize = if quick { 60 } else { 200 };
    let size_note = if quick {
        "quick run: 100,000 events (full run: 1,000,000)"
    } else {
        "1,000,000 events"
    };
    let (_tmp, dir, _, _) = generated_context(n, 0x9e37_79b9_7f4a_7c15)?;
    {
        let ledger = Ledger::open(&dir).map_err(|e| e.to_string())?;
        // Both sides search a fresh index; building it is the index benchmark's business.
        let mut index = Index::open(&dir, &ledger).map_err(|e| e.to_string())?;
        index.catch_up().map_err(|e| e.to_string())?;
    }

    let mut session = Session::start(dir.as_str())?;
    // One warm-up call each, as a client's first call after connecting.
    session.call("record", json!({"kind": "note", "text": "warm-up"}))?;
    session.call("search", json!({"query": "warm"}))?;

    // record: one call per event, over one session, interleaved with a `remaind log` process
    // per event, so both see the same ledger size and disk state.
    let mut via_mcp = Vec::with_capacity(calls);
    let mut via_log = Vec::with_capacity(calls);
    for i in 0..calls {
        let text = format!("Decision {i}: keep the retry budget at five attempts");
        via_mcp.push(timed(|| {
            session.call("record", json!({"kind": "decision", "text": text}))
        })?);
        via_log.push(timed(|| {
            let st = Command::new(binary())
                .args([
                    "--dir",
                    dir.as_str(),
                    "log",
                    "--kind",
                    "decision",
                    "--text",
                    &text,
                ])
                .env_remove("REMAIND_DIR")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .map_err(|e| e.to_string())?;
            if st.success() {
                Ok(())
            } else {
                Err(format!("remaind log: {st}"))
            }
        })?);
    }

    // search: the index benchmark's 20 queries, several rounds, over the session and as a
    // `remaind search` process each.
    let rounds = if quick { 2 } else { 5 };
    let mut search_mcp = Vec::new();
    let mut search_cli = Vec::new();
    for _ in 0..rounds {
        for q in QUERIES {
            search_mcp.push(timed(|| {
                session.call("search", json!({"query": q, "limit": 20}))
            })?);
            search_cli.push(timed(|| {
                let st = Command::new(binary())
                    .args(["--dir", dir.as_str(), "search", q])
                    .env_remove("REMAIND_DIR")
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status()
                    .map_err(|e| e.to_string())?;
                if st.success() {
                    Ok(())
                } else {
                    Err(format!("remaind search {q:?}: {st}"))
                }
            })?);
        }
    }

    let mut out = Vec::new();
    for (label, p) in [("p50", 50.0), ("p99", 99.0)] {
        let mcp = percentile(&mut via_mcp, p);
        let log = percentile(&mut via_log, p);
        out.push(Measurement {
            name: format!("mcp: record, {label} of {calls} calls"),
            figure: ms(mcp),
            baseline_name: format!("remaind log process per event, {label}"),
            baseline: ms(log),
            unit: "ms".to_owned(),
            note: format!(
                "{size_note}; one session; {:.1}x faster than a process per event (target >= 3x)",
                ms(log) / ms(mcp)
            ),
        });
    }
    let samples = search_mcp.len();
    for (label, p) in [("p50", 50.0), ("p99", 99.0)] {
        let mcp = percentile(&mut search_mcp, p);
        let cli = percentile(&mut search_cli, p);
        out.push(Measurement {
            name: format!("mcp: search, {label} of {samples} calls"),
            figure: ms(mcp),
            baseline_name: format!("remaind search process, {label}"),
            baseline: ms(cli),
            unit: "ms".to_owned(),
            note: format!(
                "{size_note}; 20 queries x {rounds}; index fresh before each (catch-up per call){}",
                if label == "p50" {
                    "; target p50 < 20 ms"
                } else {
                    ""
                }
            ),
        });
    }
    Ok(out)
}
