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
use crate::rng::Rng;
use crate::workspace_root;

/// Lines per `AppendRequest::json_lines` append while generating the big ledger.
const CHUNK: usize = 250_000;
/// Events appended behind the index for the catch-up benchmark.
const NEW_EVENTS: usize = 1_000;

/// The release binary `cargo xtask bench` built: under `CARGO_TARGET_DIR` when that is set
/// (as cargo itself places it), else under the workspace's `target/`.
pub(crate) fn binary() -> PathBuf {
    target_dir().join("release").join("remaind")
}

/// Real words at the head of the vocabulary, most frequent first (Zipf rank 1, 2, …).
const HEAD: &[&str] = &[
    "the",
    "to",
    "a",
    "and",
    "in",
    "of",
    "is",
    "for",
    "it",
    "on",
    "that",
    "with",
    "test",
    "this",
    "file",
    "error",
    "not",
    "run",
    "be",
    "use",
    "from",
    "now",
    "fix",
    "add",
    "function",
    "build",
    "check",
    "code",
    "new",
    "config",
    "when",
    "all",
    "update",
    "if",
    "type",
    "return",
    "value",
    "should",
    "fails",
    "output",
    "path",
    "read",
    "write",
    "change",
    "line",
    "module",
    "call",
    "so",
    "need",
    "case",
    "after",
    "before",
    "crate",
    "import",
    "struct",
    "field",
    "missing",
    "works",
    "passes",
    "then",
    "instead",
    "because",
    "first",
    "second",
    "tests",
    "main",
    "api",
    "request",
    "response",
    "server",
    "client",
    "user",
    "data",
    "query",
    "index",
    "cache",
    "log",
    "event",
    "state",
    "schema",
    "table",
    "column",
    "row",
    "database",
    "sqlite",
    "postgres",
    "migration",
    "version",
    "release",
    "deploy",
    "staging",
    "production",
    "branch",
    "commit",
    "merge",
    "review",
    "ci",
    "pipeline",
    "docker",
    "image",
    "container",
    "service",
    "endpoint",
    "timeout",
    "retry",
    "handler",
    "parser",
    "token",
    "budget",
    "memory",
    "disk",
    "lock",
    "thread",
    "async",
    "await",
    "future",
    "channel",
    "queue",
    "worker",
    "job",
    "task",
    "step",
    "plan",
    "goal",
    "issue",
    "bug",
    "regression",
    "benchmark",
    "latency",
    "throughput",
    "slow",
    "fast",
    "unwrap",
    "panic",
    "result",
    "option",
    "trait",
    "impl",
    "generic",
    "lifetime",
    "borrow",
    "closure",
    "iterator",
    "vector",
    "string",
    "bytes",
    "utf8",
    "json",
    "yaml",
    "toml",
    "hash",
    "chain",
    "ledger",
    "append",
    "compaction",
    "handover",
    "resume",
    "gate",
    "artifact",
    "redact",
    "secret",
    "key",
    "rotation",
    "redaction",
    "snapshot",
    "history",
    "rollback",
    "monitor",
    "window",
    "threshold",
    "warning",
    "recovery",
    "torn",
    "tail",
    "quarantine",
    "validator",
    "decision",
    "constraint",
    "blocker",
    "note",
    "search",
    "phrase",
    "rank",
    "filter",
    "slice",
    "limit",
    "offset",
    "cursor",
    "page",
    "batch",
    "flush",
    "fsync",
    "rename",
    "atomic",
    "symlink",
    "permission",
    "owner",
    "group",
    "env",
    "variable",
    "flag",
    "argument",
    "help",
    "exit",
    "stderr",
    "stdout",
    "shell",
    "script",
    "makefile",
    "lint",
    "clippy",
    "fmt",
];

/// Real, rarer words spread through the long tail (every `TAIL_STRIDE`th synthetic slot).
const TAIL: &[&str] = &[
    "flaky",
    "webhook",
    "backoff",
    "flamegraph",
    "bm25",
    "tokenizer",
    "deadlock",
    "mutex",
    "proptest",
    "insta",
    "golden",
    "fuzzer",
    "sandbox",
    "seccomp",
    "tls",
    "certificate",
    "oauth",
    "jwt",
    "s3",
    "bucket",
    "presigned",
    "terraform",
    "helm",
    "kubernetes",
    "ingress",
    "grafana",
    "prometheus",
    "opentelemetry",
    "tracing",
    "span",
    "histogram",
    "percentile",
    "p99",
    "zstd",
    "lz4",
    "mmap",
    "inode",
    "ext4",
    "btrfs",
    "cgroup",
    "oom",
    "segfault",
    "valgrind",
    "miri",
    "bisect",
    "cherry",
    "rebase",
    "squash",
    "dependabot",
    "semver",
    "msrv",
    "edition",
    "workspace",
    "feature",
    "nightly",
    "stable",
    "wasm",
    "arm64",
    "musl",
    "glibc",
    "openssl",
    "rustls",
    "tokio",
    "rayon",
    "crossbeam",
    "serde",
    "clap",
    "anyhow",
    "thiserror",
    "rusqlite",
    "fts5",
    "unicode61",
    "diacritics",
    "collation",
    "vacuum",
    "checkpoint",
    "wal",
    "journal",
    "pragma",
];

/// How many vocabulary words there are in all (head, synthetic and tail words).
const VOCAB: usize = 4_000;
/// Every this many synthetic slots, one of [`TAIL`] takes the slot.
const TAIL_STRIDE: usize = 45;
/// The Zipf exponent of word frequencies.
const ZIPF_S: f64 = 1.05;

const TOOLS: &[&str] = &[
    "bash",
    "bash",
    "bash",
    "read_file",
    "read_file",
    "edit_file",
    "edit_file",
    "grep",
    "cargo",
    "git",
    "write_file",
    "pytest",
    "npm",
    "docker",
    "sqlite3",
    "curl",
    "web_search",
];
const DIRS: &[&str] = &[
    "crates/remaind-ledger/src",
    "crates/remaind-index/src",
    "crates/remaind-cli/src/cmd",
    "crates/remaind-compact/src",
    "src/api",
    "src/db",
    "web/components",
    "scripts",
    "docs",
    "tests/it",
];
const EXTS: &[&str] = &[
    "rs", "rs", "rs", "toml", "md", "py", "ts", "json", "yaml", "sh",
];
const COMMANDS: &[&str] = &[
    "cargo test -p",
    "cargo clippy --all-targets -p",
    "cargo build --release -p",
    "git diff --stat",
    "git log --oneline -20",
    "rg -n",
    "pytest -x tests/",
    "npm run lint --",
    "docker compose up -d",
];
/// Fixed phrases some decisions and notes carry, so phrase queries have real targets.
const PHRASES: &[&str] = &[
    "hash chain",
    "torn tail",
    "exit code 3",
    "resume gate",
    "token budget",
    "atomic rename",
    "rate limit",
];

/// The queries `remaind search` is timed on: 1–3 words, phrases, prefixes, rare and common.
pub(crate) const QUERIES: [&str; 20] = [
    "sqlite index",
    "\"hash chain\"",
    "cargo test",
    "flaky",
    "ledger.rs",
    "rollback migration",
    "\"torn tail\" recovery",
    "timeout",
    "deploy staging",
    "redaction key rotation",
    "bm25",
    "panic unwrap",
    "postgres decision",
    "error",
    "compaction handover",
    "webhook retry backoff",
    "migrat*",
    "\"exit code 3\"",
    "benchmark regression",
    "zstd",
];

/// The index workload's shaping of the shared generator.
impl Rng {
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// A float in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A deterministic Zipf-distributed vocabulary of [`VOCAB`] words.
pub(crate) struct Vocab {
    words: Vec<String>,
    /// Cumulative probabilities, one per word.
    cdf: Vec<f64>,
}

impl Vocab {
    pub(crate) fn new() -> Vocab {
        const SYLLABLES: [&str; 24] = [
            "ka", "lo", "mi", "ren", "sta", "tor", "vex", "qui", "dra", "pel", "nor", "zan", "fi",
            "gru", "bel", "tas", "mon", "ix", "cor", "ul", "pra", "sen", "dob", "wy",
        ];
        let mut words: Vec<String> = HEAD.iter().map(|w| (*w).to_owned()).collect();
        let mut tail = TAIL.iter();
        let mut i = 0usize;
        while words.len() < VOCAB {
            if i % TAIL_STRIDE == TAIL_STRIDE - 1
                && let Some(w) = tail.next()
            {
                words.push((*w).to_owned());
            } else {
                // Three syllables from the slot number: distinct for every slot used here.
                let a = SYLLABLES[i % 24];
                let b = SYLLABLES[(i / 24) % 24];
                let c = SYLLABLES[(i / 576) % 24];
                words.push(format!("{a}{b}{c}"));
            }
            i += 1;
        }
        let weights: Vec<f64> = (1..=words.len())
            .map(|r| 1.0 / (r as f64).powf(ZIPF_S))
            .collect();
        let total: f64 = weights.iter().sum();
        let mut acc = 0.0;
        let cdf = weights
            .iter()
            .map(|w| {
                acc += w / total;
                acc
            })
            .collect();
        Vocab { words, cdf }
    }

    fn word(&self, rng: &mut Rng) -> &str {
        let u = rng.unit();
        let i = self
            .cdf
            .partition_point(|&c| c < u)
            .min(self.words.len() - 1);
        &self.words[i]
    }

    /// `n` Zipf words separated by spaces.
    fn words(&self, rng: &mut Rng, n: usize) -> String {
        let mut s = String::new();
        for i in 0..n {
            if i > 0 {
                s.push(' ');
            }
            s.push_str(self.word(rng));
        }
        s
    }

    /// Between `at_least` and `at_least + spread - 1` Zipf words.
    fn some(&self, rng: &mut Rng, at_least: usize, spread: usize) -> String {
        let n = at_least + rng.below(spread);
        self.words(rng, n)
    }

    fn path(&self, rng: &mut Rng) -> String {
        format!(
            "{}/{}.{}",
            rng.pick(DIRS),
            self.word(rng).replace(['.', '/'], "_"),
            rng.pick(EXTS)
        )
    }
}

/// One caller event shaped like an agent session's: prose, tool calls with commands and
/// paths, file changes, decisions.
fn event(v: &Vocab, rng: &mut Rng) -> serde_json::Value {
    let roll = rng.below(100);
    match roll {
        0..=21 => {
            let n = 8 + rng.below(30);
            serde_json::json!({ "kind": "assistant_message", "text": v.words(rng, n) })
        }
        22..=45 => {
            let tool = rng.pick(TOOLS);
            let path = v.path(rng);
            let text = match tool {
                "bash" | "cargo" | "git" | "pytest" | "npm" | "docker" => format!(
                    "Run `{} {}` to {}",
                    rng.pick(COMMANDS),
                    v.word(rng),
                    v.some(rng, 3, 6)
                ),
                _ => format!("{tool} {path}: {}", v.some(rng, 2, 5)),
            };
            serde_json::json!({
                "kind": "tool_call",
                "text": text,
                "tool": { "name": tool, "input": { "path": path } },
            })
        }
        46..=63 => {
            let n = 4 + rng.below(14);
            serde_json::json!({
                "kind": "tool_result",
                "text": format!("exit {} · {}", rng.below(3), v.words(rng, n)),
            })
        }
        64..=73 => serde_json::json!({ "kind": "trace", "text": v.some(rng, 3, 5) }),
        74..=81 => {
            let n = 5 + rng.below(20);
            serde_json::json!({ "kind": "note", "text": v.words(rng, n) })
        }
        82..=87 => serde_json::json!({
            "kind": "file_change",
            "text": format!("Edit {}: {}", v.path(rng), v.some(rng, 3, 8)),
        }),
        88..=91 => {
            let phrase = if rng.below(3) == 0 {
                rng.pick(PHRASES)
            } else {
                ""
            };
            serde_json::json!({
                "kind": "decision",
                "text": format!(
                    "Decided to {} {phrase} {} because {}",
                    v.word(rng),
                    v.some(rng, 2, 4),
                    v.some(rng, 4, 10)
                ),
            })
        }
        92..=94 => serde_json::json!({
            "kind": "user_message",
            "text": format!("Please {} {}", v.word(rng), v.some(rng, 4, 16)),
        }),
        95..=96 => serde_json::json!({
            "kind": "result",
            "text": format!("Done: {} ({})", v.some(rng, 4, 8), v.path(rng)),
        }),
        97 => serde_json::json!({
            "kind": "constraint",
            "text": format!("Never {} {}", v.word(rng), v.some(rng, 3, 8)),
        }),
        98 => serde_json::json!({
            "kind": "blocker",
            "text": format!("Blocked: {} {}", rng.pick(PHRASES), v.some(rng, 3, 8)),
        }),
        _ => serde_json::json!({
            "kind": "remember",
            "text": format!("Remember: {}", v.some(rng, 4, 10)),
        }),
    }
}

/// `n` caller events as JSON Lines.
pub(crate) fn json_lines(v: &Vocab, rng: &mut Rng, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n * 160);
    for _ in 0..n {
        serde_json::to_writer(&mut out, &event(v, rng)).expect("serialize a generated event");
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

/// A `.context/` made by `remaind init` whose ledger holds `n` generated events (the random
/// stream seeded with `seed`), with the generator left where it stopped for more events; keep
/// the `TempDir` alive while the folder is used.
pub(crate) fn generated_context(
    n: usize,
    seed: u64,
) -> Result<(tempfile::TempDir, Utf8PathBuf, Vocab, Rng), String> {
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
    let vocab = Vocab::new();
    let mut rng = Rng(seed);
    let mut left = n;
    while left > 0 {
        let k = left.min(CHUNK);
        ledger
            .append(remaind_ledger::AppendRequest::json_lines(&json_lines(
                &vocab, &mut rng, k,
            )))
            .map_err(|e| e.to_string())?;
        left -= k;
    }
    Ok((tmp, dir, vocab, rng))
}

/// The target folder: `CARGO_TARGET_DIR` when set, else the workspace's `target/`.
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| workspace_root().join("target"), PathBuf::from)
}

/// The seed of the generated ledger the `index`, `ui` and `fleet` benchmarks share (cached).
pub(crate) const SEED: u64 = 0x2545_f491_4f6c_dd1d;

/// Like [`generated_context`], but the generated ledger is kept under
/// `bench-cache/` in the target folder and copied for each run: generating 1,000,000 events
/// is most of a run on a small machine, and the same seed gives the same events anyway. New
/// events come from a generator seeded apart from the cached ones.
pub(crate) fn cached_context(
    n: usize,
    seed: u64,
) -> Result<(tempfile::TempDir, Utf8PathBuf, Vocab, Rng), String> {
    let cache = target_dir()
        .join("bench-cache")
        .join(format!("index-{n}-{seed:x}-v1"));
    let done = cache.join("done");
    if !done.is_file() {
        let (_tmp, dir, _, _) = generated_context(n, seed)?;
        if cache.exists() {
            std::fs::remove_dir_all(&cache).map_err(|e| format!("{}: {e}", cache.display()))?;
        }
        std::fs::create_dir_all(&cache).map_err(|e| format!("{}: {e}", cache.display()))?;
        crate::bench::copy_tree(dir.as_std_path(), &cache.join(".context"))?;
        std::fs::write(&done, b"").map_err(|e| format!("{}: {e}", done.display()))?;
    }
    let tmp = tempfile::tempdir().map_err(|e| format!("tempdir: {e}"))?;
    let dir = Utf8PathBuf::from_path_buf(tmp.path().join(".context"))
        .map_err(|p| format!("{} is not UTF-8", p.display()))?;
    crate::bench::copy_tree(&cache.join(".context"), dir.as_std_path())?;
    Ok((tmp, dir, Vocab::new(), Rng(seed.rotate_left(17) | 1)))
}

fn run_inner(quick: bool) -> Result<Vec<Measurement>, String> {
    // Recall first: it is small and says whether the timings below are of a search worth
    // having.
    let mut out = crate::eval_search::run()?;
    let n: usize = if quick { 100_000 } else { 1_000_000 };
    let size_note = if quick {
        "quick run: 100,000 events (full run: 1,000,000)"
    } else {
        "1,000,000 events"
    };
    let (_tmp, dir, vocab, mut rng) = cached_context(n, SEED)?;
    let ledger = Ledger::open(&dir).map_err(|e| e.to_string())?;

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

    // 2. `remaind search` latency (process start to exit, index fresh) vs a bare start. Each
    // query runs once; the median is over the 20 different queries.
    let mut times = Vec::with_capacity(QUERIES.len());
    for q in QUERIES {
        let start = Instant::now();
        let st = Command::new(binary())
            .args(["search", q, "--dir", dir.as_str()])
            .env_remove("REMAIND_DIR")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        times.push((start.elapsed(), q));
        if !st.as_ref().is_ok_and(|s| s.success()) {
            return Err(format!("remaind search {q:?}: {st:?}"));
        }
    }
    times.sort();
    let search = times[times.len() / 2].0;
    let (slowest, slowest_q) = times[times.len() - 1];
    let over = times.iter().filter(|(t, _)| ms(*t) >= 50.0).count();
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
        note: format!(
            "{size_note}; target < 50 ms; slowest {slowest_q} {:.1} ms; {over} of 20 at 50 ms or more",
            ms(slowest)
        ),
    });

    // 3. In-process latency per query class, and the wider index against the narrow one.
    out.extend(crate::bench_search::latency(&dir, &ledger, size_note)?);
    out.extend(crate::bench_search::wide_vs_narrow(
        dir.as_std_path(),
        size_note,
        if quick { 3 } else { 9 },
        &vocab,
    ));

    // 4. Catch-up of 1,000 new events vs appending them.
    let lines = json_lines(&vocab, &mut rng, NEW_EVENTS);
    let start = Instant::now();
    ledger
        .append(remaind_ledger::AppendRequest::json_lines(&lines))
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
