//! Benchmarks of the derived index (`remaind-index`): full rebuild against a plain sequential
//! read of the ledger file, `remaind search` latency against a process that only starts and
//! exits, and incremental catch-up of 1,000 new events against appending them.

use std::io::BufRead;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use camino::{Utf8Path, Utf8PathBuf};
use remaind_index::{CatchUp, Index};
use remaind_ledger::Ledger;

use crate::bench::{Measurement, median_time};
use crate::run::workspace_root;

/// Lines per `append_json_lines` call while generating the big ledger.
const CHUNK: usize = 250_000;
/// Events appended behind the index for the catch-up benchmark.
const NEW_EVENTS: usize = 1_000;

const WORDS: [&str; 32] = [
    "index",
    "ledger",
    "sqlite",
    "phrase",
    "search",
    "query",
    "compaction",
    "handover",
    "state",
    "resume",
    "gate",
    "token",
    "budget",
    "artifact",
    "redact",
    "secret",
    "hash",
    "chain",
    "append",
    "lock",
    "torn",
    "tail",
    "schema",
    "validate",
    "decision",
    "constraint",
    "blocker",
    "deploy",
    "rollback",
    "history",
    "monitor",
    "window",
];

const QUERIES: [&str; 20] = [
    "sqlite index",
    "hash chain",
    "\"torn tail\"",
    "deploy rollback",
    "compaction handover state",
    "secret",
    "resume gate",
    "token budget",
    "artifact redact",
    "schema validate",
    "decision constraint",
    "blocker",
    "lock append",
    "history monitor window",
    "phrase search query",
    "ledger",
    "\"hash chain\" sqlite",
    "gate token",
    "deploy*",
    "rarewordnotpresent",
];

fn binary() -> PathBuf {
    workspace_root()
        .join("target")
        .join("release")
        .join("remaind")
}

/// A small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn word(&mut self) -> &'static str {
        WORDS[(self.next() % WORDS.len() as u64) as usize]
    }
}

/// `n` caller events as JSON Lines.
fn json_lines(rng: &mut Rng, n: usize) -> Vec<u8> {
    let kinds = [
        "note",
        "note",
        "assistant_message",
        "trace",
        "decision",
        "tool_call",
    ];
    let mut out = Vec::with_capacity(n * 120);
    for _ in 0..n {
        let kind = kinds[(rng.next() % kinds.len() as u64) as usize];
        let len = 6 + (rng.next() % 12) as usize;
        let text: Vec<&str> = (0..len).map(|_| rng.word()).collect();
        let mut ev = serde_json::json!({ "kind": kind, "text": text.join(" ") });
        if kind == "tool_call" {
            ev["tool"] = serde_json::json!({ "name": rng.word(), "input": { "arg": rng.word() } });
        }
        serde_json::to_writer(&mut out, &ev).expect("serialize a generated event");
        out.push(b'\n');
    }
    out
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn failed(name: &str, err: String) -> Vec<Measurement> {
    vec![Measurement {
        name: name.to_owned(),
        figure: f64::NAN,
        baseline_name: "-".to_owned(),
        baseline: f64::NAN,
        unit: "ms".to_owned(),
        note: format!("failed: {err}"),
    }]
}

/// Runs the index benchmarks.
pub(crate) fn run(quick: bool) -> Vec<Measurement> {
    match run_inner(quick) {
        Ok(v) => v,
        Err(e) => failed("index", e),
    }
}

fn run_inner(quick: bool) -> Result<Vec<Measurement>, String> {
    let n: usize = if quick { 100_000 } else { 1_000_000 };
    let size_note = if quick {
        "quick run: 100,000 events (full run: 1,000,000)"
    } else {
        "1,000,000 events"
    };
    let tmp = tempfile::tempdir().map_err(|e| format!("tempdir: {e}"))?;
    let dir = Utf8PathBuf::from_path_buf(tmp.path().join(".context"))
        .map_err(|p| format!("{} is not UTF-8", p.display()))?;
    let init = Command::new(binary())
        .args(["init", "--dir", dir.as_str()])
        .env_remove("REMAIND_DIR")
        .stdout(Stdio::null())
        .status()
        .map_err(|e| format!("{}: cannot start: {e}", binary().display()))?;
    if !init.success() {
        return Err(format!("remaind init failed: {init}"));
    }
    let ledger = Ledger::open(&dir).map_err(|e| e.to_string())?;
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut left = n;
    while left > 0 {
        let k = left.min(CHUNK);
        ledger
            .append_json_lines(&json_lines(&mut rng, k))
            .map_err(|e| e.to_string())?;
        left -= k;
    }
    let mut out = Vec::new();

    // 1. Rebuild vs a plain sequential read of the file.
    let read = time_sequential_read(ledger.log_path())?;
    let mut index = Index::open(&dir, &ledger).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let count = index.rebuild(&mut |_, _| {}).map_err(|e| e.to_string())?;
    let rebuild = start.elapsed();
    if count != n as u64 {
        return Err(format!("rebuild indexed {count} events, expected {n}"));
    }
    out.push(Measurement {
        name: "index: reindex from scratch".to_owned(),
        figure: ms(rebuild),
        baseline_name: "sequential read of events.jsonl".to_owned(),
        baseline: ms(read),
        unit: "ms".to_owned(),
        note: format!(
            "{size_note}; {:.0} events/s",
            n as f64 / rebuild.as_secs_f64()
        ),
    });
    drop(index);

    // 2. `remaind search` latency (process start to exit, index fresh) vs a bare start.
    let mut i = 0;
    let mut search_err = None;
    let search = median_time(QUERIES.len(), || {
        let q = QUERIES[i % QUERIES.len()];
        i += 1;
        let st = Command::new(binary())
            .args(["search", q, "--limit", "10", "--dir", dir.as_str()])
            .env_remove("REMAIND_DIR")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        if !st.as_ref().is_ok_and(|s| s.success()) {
            search_err = Some(format!("remaind search {q:?}: {st:?}"));
        }
    });
    if let Some(e) = search_err {
        return Err(e);
    }
    let bare = median_time(QUERIES.len(), || {
        let _ = Command::new(binary())
            .arg("--version")
            .stdout(Stdio::null())
            .status();
    });
    out.push(Measurement {
        name: "index: remaind search, median of 20 queries".to_owned(),
        figure: ms(search),
        baseline_name: "remaind --version (start and exit)".to_owned(),
        baseline: ms(bare),
        unit: "ms".to_owned(),
        note: format!("{size_note}; target < 50 ms"),
    });

    // 3. Catch-up of 1,000 new events vs appending them.
    let lines = json_lines(&mut rng, NEW_EVENTS);
    let start = Instant::now();
    ledger
        .append_json_lines(&lines)
        .map_err(|e| e.to_string())?;
    let append = start.elapsed();
    let mut index = Index::open(&dir, &ledger).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let caught = index.catch_up().map_err(|e| e.to_string())?;
    let catch_up = start.elapsed();
    if caught != CatchUp::Indexed(NEW_EVENTS as u64) {
        return Err(format!(
            "catch-up did {caught:?}, expected {NEW_EVENTS} new events"
        ));
    }
    out.push(Measurement {
        name: "index: catch-up of 1,000 new events".to_owned(),
        figure: ms(catch_up),
        baseline_name: "appending them (one batch)".to_owned(),
        baseline: ms(append),
        unit: "ms".to_owned(),
        note: format!("{size_note} already indexed"),
    });
    Ok(out)
}

/// Time reading `path` line by line, as a rebuild must at least do.
fn time_sequential_read(path: &Utf8Path) -> Result<Duration, String> {
    let start = Instant::now();
    let file = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut buf = Vec::new();
    let mut lines = 0u64;
    loop {
        buf.clear();
        let k = reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| format!("{path}: {e}"))?;
        if k == 0 {
            break;
        }
        lines += 1;
    }
    std::hint::black_box(lines);
    Ok(start.elapsed())
}
