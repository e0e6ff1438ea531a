//! Benchmarks of the ledger (`remaind-ledger` through the `remaind` binary):
//!
//! - batch throughput: realistic events (mixed kinds, 5% carrying a secret of a built-in rule,
//!   1% tool outputs over the artifact threshold) appended by `remaind log --stdin` into a
//!   fresh `.context/`, against an in-process loop that only parses each line with serde_json,
//!   re-serializes it and writes it to a file (synced once at the end);
//! - single event: one `remaind log --kind note --text …` process against appending the same
//!   event with `jq -c .` (or, without jq, `python3 -c`).

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::bench::Measurement;
use crate::rng::Rng;
use crate::workspace_root;

/// Default `artifact_threshold_bytes`; large outputs are made bigger than this.
const ARTIFACT_THRESHOLD: usize = 16_384;

const WORDS: [&str; 48] = [
    "the",
    "ledger",
    "index",
    "we",
    "should",
    "keep",
    "a",
    "test",
    "for",
    "file",
    "and",
    "then",
    "compaction",
    "state",
    "resume",
    "function",
    "returns",
    "error",
    "when",
    "config",
    "missing",
    "update",
    "module",
    "parser",
    "handle",
    "request",
    "timeout",
    "retry",
    "build",
    "passes",
    "failing",
    "on",
    "line",
    "check",
    "schema",
    "field",
    "value",
    "is",
    "not",
    "in",
    "path",
    "user",
    "wants",
    "deploy",
    "cache",
    "migration",
    "rollback",
    "branch",
];

const TOOLS: [&str; 6] = ["bash", "read_file", "edit_file", "grep", "cargo", "git"];

fn binary() -> PathBuf {
    workspace_root()
        .join("target")
        .join("release")
        .join("remaind")
}

/// The ledger workload's shaping of the shared generator.
impl Rng {
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    fn words(&mut self, lo: usize, hi: usize) -> String {
        let n = self.range(lo, hi);
        let mut s = String::with_capacity(n * 7);
        for i in 0..n {
            if i > 0 {
                s.push(if self.below(12) == 0 { '\n' } else { ' ' });
            }
            s.push_str(WORDS[self.below(WORDS.len())]);
        }
        s.push('.');
        s
    }

    fn chars(&mut self, n: usize, alphabet: &[u8]) -> String {
        (0..n)
            .map(|_| alphabet[self.below(alphabet.len())] as char)
            .collect()
    }

    /// A secret one of the built-in rules redacts.
    fn secret(&mut self) -> String {
        const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        const UPPER: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
        match self.below(8) {
            0 => format!("OPENAI_API_KEY=sk-proj-{}", self.chars(48, ALNUM)),
            1 => format!(
                "export ANTHROPIC_API_KEY=sk-ant-api03-{}",
                self.chars(40, ALNUM)
            ),
            2 => format!("aws_access_key_id = AKIA{}", self.chars(16, UPPER)),
            3 => format!("remote: https://x:ghp_{}@github.com", self.chars(36, ALNUM)),
            4 => format!(
                "SLACK_TOKEN=xoxb-{}-{}",
                self.chars(12, b"0123456789"),
                self.chars(24, ALNUM)
            ),
            5 => format!(
                "token eyJhbGciOiJIUzI1NiJ9.{}.{}",
                self.chars(40, ALNUM),
                self.chars(43, ALNUM)
            ),
            6 => format!("curl -H 'Authorization: Bearer {}'", self.chars(40, ALNUM)),
            _ => format!(
                "aws_secret_access_key = {}",
                self.chars(
                    40,
                    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+"
                )
            ),
        }
    }

    /// Shell-like output of `lines` lines.
    fn output(&mut self, lines: usize) -> String {
        let mut s = String::new();
        for i in 0..lines {
            s.push_str(&format!("{:>4} | ", i + 1));
            s.push_str(&self.words(3, 14));
            s.push('\n');
        }
        s
    }
}

/// One realistic caller event as a JSON value.
fn event(rng: &mut Rng, i: usize) -> serde_json::Value {
    use serde_json::json;
    let secret = i % 20 == 7; // 5%
    let large = i % 100 == 42; // 1%
    let mut ev = if large {
        let mut out = String::new();
        while out.len() <= ARTIFACT_THRESHOLD * 2 {
            out.push_str(&rng.output(50));
        }
        json!({ "kind": "tool_result", "actor": "bash",
                "tool": { "name": "bash", "input": { "command": "cargo test --workspace" },
                          "output": out } })
    } else {
        match rng.below(20) {
            0..=2 => json!({ "kind": "user_message", "actor": "user", "text": rng.words(8, 60) }),
            3..=6 => {
                json!({ "kind": "assistant_message", "actor": "assistant", "text": rng.words(20, 200) })
            }
            7..=9 => {
                let tool = TOOLS[rng.below(TOOLS.len())];
                json!({ "kind": "tool_call", "actor": "assistant",
                        "tool": { "name": tool, "input": { "command": rng.words(2, 10),
                                                           "cwd": "/work/project" } } })
            }
            10..=13 => {
                let tool = TOOLS[rng.below(TOOLS.len())];
                let lines = rng.range(1, 40);
                json!({ "kind": "tool_result", "actor": tool,
                        "tool": { "name": tool, "output": rng.output(lines) } })
            }
            14 => json!({ "kind": "note", "text": rng.words(5, 40) }),
            15 => json!({ "kind": "trace", "text": rng.words(3, 15),
                          "data": { "elapsed_ms": rng.below(5000), "step": rng.below(99) } }),
            16 => json!({ "kind": "decision", "importance": 2, "text": rng.words(8, 30) }),
            17 => json!({ "kind": "constraint", "text": rng.words(6, 25) }),
            18 => json!({ "kind": "file_change", "text": rng.words(4, 12),
                          "data": { "path": format!("src/{}.rs", WORDS[rng.below(WORDS.len())]),
                                    "added": rng.below(200), "removed": rng.below(80) } }),
            _ => json!({ "kind": "next_step", "text": rng.words(5, 20) }),
        }
    };
    if secret {
        let s = rng.secret();
        if let Some(out) = ev
            .get_mut("tool")
            .and_then(|t| t.get_mut("output"))
            .and_then(|o| o.as_str().map(str::to_owned))
        {
            ev["tool"]["output"] = json!(format!("{out}{s}\n"));
        } else if let Some(text) = ev.get("text").and_then(|t| t.as_str()).map(str::to_owned) {
            ev["text"] = json!(format!("{text} {s}"));
        } else {
            ev["text"] = json!(format!("env check: {s}"));
        }
    }
    ev
}

/// `n` realistic caller events as JSON Lines.
pub(crate) fn json_lines(n: usize) -> Vec<u8> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut out = Vec::with_capacity(n * 600);
    for i in 0..n {
        serde_json::to_writer(&mut out, &event(&mut rng, i)).expect("serialize a generated event");
        out.push(b'\n');
    }
    out
}

fn init(dir: &Path) -> Result<(), String> {
    let status = Command::new(binary())
        .args(["init", "--dir"])
        .arg(dir)
        .env_remove("REMAIND_DIR")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("{}: cannot start: {e}", binary().display()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("remaind init failed: {status}"))
    }
}

/// One `remaind log --stdin` of the whole input into a fresh `.context/`.
fn remaind_batch(input_path: &Path) -> Result<Duration, String> {
    let tmp = tempfile::tempdir().map_err(|e| format!("tempdir: {e}"))?;
    let dir = tmp.path().join(".context");
    init(&dir)?;
    let stdin = File::open(input_path).map_err(|e| format!("{}: {e}", input_path.display()))?;
    let start = Instant::now();
    let out = Command::new(binary())
        .arg("--dir")
        .arg(&dir)
        .args(["log", "--stdin"])
        .env_remove("REMAIND_DIR")
        .stdin(stdin)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("{}: cannot start: {e}", binary().display()))?;
    let took = start.elapsed();
    if !out.status.success() {
        return Err(format!(
            "remaind log --stdin failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(took)
}

/// The baseline: parse every line with serde_json, re-serialize it, write it to a file,
/// sync once at the end.
pub(crate) fn parse_reserialize(input: &[u8]) -> Result<Duration, String> {
    let tmp = tempfile::tempdir().map_err(|e| format!("tempdir: {e}"))?;
    let path = tmp.path().join("events.jsonl");
    let start = Instant::now();
    let file = File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    for line in input.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let v: serde_json::Value =
            serde_json::from_slice(line).map_err(|e| format!("baseline parse: {e}"))?;
        serde_json::to_writer(&mut w, &v).map_err(|e| format!("baseline write: {e}"))?;
        w.write_all(b"\n")
            .map_err(|e| format!("baseline write: {e}"))?;
    }
    let file = w.into_inner().map_err(|e| format!("baseline flush: {e}"))?;
    file.sync_all().map_err(|e| format!("baseline sync: {e}"))?;
    Ok(start.elapsed())
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn failed(name: &str, unit: &str, err: String) -> Measurement {
    Measurement {
        name: name.to_owned(),
        figure: f64::NAN,
        baseline_name: "-".to_owned(),
        baseline: f64::NAN,
        unit: unit.to_owned(),
        note: format!("failed: {err}"),
    }
}

/// Runs the ledger benchmarks.
pub(crate) fn run(quick: bool) -> Vec<Measurement> {
    let batch = batch(quick).unwrap_or_else(|e| failed("ledger: log --stdin batch", "events/s", e));
    let single = single(quick).unwrap_or_else(|e| failed("ledger: single remaind log", "ms", e));
    vec![batch, single]
}

fn batch(quick: bool) -> Result<Measurement, String> {
    let n: usize = if quick { 20_000 } else { 100_000 };
    let runs = 3;
    let input = json_lines(n);
    let tmp = tempfile::tempdir().map_err(|e| format!("tempdir: {e}"))?;
    let input_path = tmp.path().join("events.in.jsonl");
    std::fs::write(&input_path, &input).map_err(|e| format!("{}: {e}", input_path.display()))?;
    // Interleave the two so both see the same machine state.
    let mut figure = Vec::new();
    let mut base = Vec::new();
    for _ in 0..runs {
        figure.push(remaind_batch(&input_path)?);
        base.push(parse_reserialize(&input)?);
    }
    let per_s = |d: Duration| n as f64 / d.as_secs_f64();
    let size = if quick {
        "quick run: 20,000 events (full: 100,000)".to_owned()
    } else {
        "100,000 events".to_owned()
    };
    Ok(Measurement {
        name: "ledger: log --stdin batch throughput".to_owned(),
        figure: per_s(median(figure)),
        baseline_name: "serde_json parse + re-serialize + write, 1 fsync".to_owned(),
        baseline: per_s(median(base)),
        unit: "events/s".to_owned(),
        note: format!(
            "target: ratio >= 0.5; {size}, {:.1} MB input, 5% secrets, 1% outputs > artifact \
             threshold; median of {runs}",
            input.len() as f64 / 1e6
        ),
    })
}

const SINGLE_TEXT: &str = "Decided to keep the ledger append-only and to route large tool \
                           outputs to artifacts; the index is rebuilt from the log.";

fn time_child(mut cmd: Command, stdin: Option<&[u8]>) -> Result<Duration, String> {
    let start = Instant::now();
    let mut child = cmd
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start: {e}"))?;
    if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(bytes).map_err(|e| format!("stdin: {e}"))?;
    }
    let out = child.wait_with_output().map_err(|e| format!("wait: {e}"))?;
    let took = start.elapsed();
    if !out.status.success() {
        return Err(format!(
            "{:?} failed ({}): {}",
            cmd.get_program(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(took)
}

fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn single(quick: bool) -> Result<Measurement, String> {
    let runs = if quick { 15 } else { 30 };
    let tmp = tempfile::tempdir().map_err(|e| format!("tempdir: {e}"))?;
    let dir = tmp.path().join(".context");
    init(&dir)?;
    let json = serde_json::json!({ "kind": "note", "text": SINGLE_TEXT }).to_string();
    let sink = tmp.path().join("appended.jsonl");
    let append = || {
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(&sink)
            .map_err(|e| format!("{}: {e}", sink.display()))
    };
    let use_jq = have("jq");
    let mut figure = Vec::new();
    let mut base = Vec::new();
    for _ in 0..runs {
        let mut cmd = Command::new(binary());
        cmd.arg("--dir")
            .arg(&dir)
            .args(["log", "--kind", "note", "--text", SINGLE_TEXT])
            .env_remove("REMAIND_DIR")
            .stdout(Stdio::null());
        figure.push(time_child(cmd, None)?);
        let b = if use_jq {
            let mut cmd = Command::new("jq");
            cmd.args(["-c", "."]).stdout(append()?);
            time_child(cmd, Some(json.as_bytes()))?
        } else {
            let mut cmd = Command::new("python3");
            cmd.args([
                "-c",
                "import sys, json\n\
                 with open(sys.argv[2], 'a') as f:\n    \
                 f.write(json.dumps(json.loads(sys.argv[1]), separators=(',', ':')) + '\\n')",
                &json,
            ])
            .arg(&sink)
            .stdout(Stdio::null());
            time_child(cmd, None)?
        };
        base.push(b);
    }
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let (baseline_name, how) = if use_jq {
        ("`jq -c . <<< '{…}' >> file`", "jq (no shell, no fsync)")
    } else {
        (
            "`python3 -c` appending the line",
            "jq not installed: python3 -c appends the line instead (no fsync)",
        )
    };
    Ok(Measurement {
        name: "ledger: single remaind log --kind note".to_owned(),
        figure: ms(median(figure)),
        baseline_name: baseline_name.to_owned(),
        baseline: ms(median(base)),
        unit: "ms".to_owned(),
        note: format!(
            "target: ratio <= 1; median of {runs} process runs; baseline {how}; remaind log \
             fsyncs"
        ),
    })
}
