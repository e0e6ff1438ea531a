//! `cargo xtask chaos`: the crash-consistency harness.
//!
//! Builds `remaind` with its failpoints (`--features failpoints`, into `target/chaos`; or
//! takes such a build with `--remaind PATH`, as `cargo xtask ci` passes its test build), then
//! loops: copy a seeded `.context/` to a fresh folder, run one random operation as a child
//! process (a `log --stdin` batch, `compact`, `frame`, `rollback --to`, `memory accept`,
//! `memory edit`, `import` of a real transcript, or opening a ledger with a torn tail) and
//! crash it, either with `SIGKILL` at a random instant or with an abort
//! at a chosen failpoint (`FAILPOINTS=<name>=<n>*off->return(abort)`: the n+1-th time that
//! step is reached). Then it reopens the folder and checks:
//!
//! - every event whose id the child printed (an acknowledged append) is in the log with the
//!   text that was sent, and the log before the operation is a byte prefix of the log after;
//! - after what a user does next (a memory command after a memory operation or a compaction,
//!   the import again after an import), `remaind verify` exits 0 (recovery quarantines a torn
//!   tail, the chain holds, no memory file lags the ledger), and the store takes a new append
//!   afterwards;
//! - an import crashed and run again records each transcript line as many times as one whole
//!   import does (no duplicate, none missing);
//! - no reader ever sees a mixed or unrecorded state/handover pair: `verify --json` runs over
//!   and over beside the operation and once right after the crash, before any repair;
//! - every derived file (`active/*`) is byte-equal to its old version or to its new one. The
//!   new one comes from a reference run of the same operation on a copy of the same folder;
//!   since derived files carry the time they were made (and hashes of such files), the
//!   comparison masks RFC 3339 times and 64-hex digests, and nothing else. A torn file (a
//!   prefix, a mix) never matches.
//!
//! Prints one line per kill and a summary; fails if an event was lost, a derived file was
//! torn, verify failed after recovery, or a failpoint was never hit.

use std::collections::BTreeMap;
use std::fs;
use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::workspace_root;

/// Every failpoint in the code, and so every one the harness must hit.
const FAILPOINTS: [&str; 9] = {
    let (a, l) = (remaind_atomic::failpoints::ALL, remaind_ledger::FAILPOINTS);
    [a[0], a[1], a[2], a[3], a[4], a[5], l[0], l[1], l[2]]
};

const ATOMIC: &[&str] = &remaind_atomic::failpoints::ALL;

/// Gate reasons that mean a reader saw state.json and handover.md from different runs, or a
/// pair the ledger did not record.
const MISMATCH: &[&str] = &["handover_binding", "not_recorded"];
/// The ledger's recovery failpoint (the last of them).
const RECOVERY_AFTER_QUARANTINE: &str = remaind_ledger::FAILPOINTS[2];

const APPEND: &[&str] = &[remaind_ledger::FAILPOINTS[0], remaind_ledger::FAILPOINTS[1]];

/// The derived files whose every version must be whole.
const DERIVED: &[&str] = &[
    "state.json",
    "handover.md",
    "framing.json",
    "resume_packet.md",
];

/// A small, seedable generator (xorshift64*), so a run can be replayed with `--seed`.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// One operation the harness runs (and crashes).
#[derive(Debug, Clone)]
enum Op {
    /// `log --stdin` with these (kind, text) events.
    Log(Vec<(String, String)>),
    /// `compact` with the built-in compactor.
    Compact,
    /// `frame` with this model.
    Frame(String),
    /// `rollback --to` this time.
    Rollback(String),
    /// Tear the log's tail with these bytes, then open the ledger (`verify`).
    Recover(Vec<u8>),
    /// `memory accept` of a memory proposed (by `prepare`) under this title.
    MemoryAccept(String),
    /// `memory edit` of a memory proposed and accepted (by `prepare`) under this title.
    MemoryEdit(String, String),
    /// `import` of this transcript (the same one each time: a re-import adds what is new).
    Import(Transcript),
    /// `memory propose` under this title (a step of `prepare`, never crashed).
    MemoryPropose(String),
    /// `memory list` (the repair after a crashed memory operation, never crashed).
    MemoryList,
}

/// A transcript under `fixtures/transcripts/` and the runtime that wrote it.
#[derive(Debug, Clone, Copy)]
struct Transcript {
    runtime: &'static str,
    file: &'static str,
}

const TRANSCRIPTS: &[Transcript] = &[
    Transcript {
        runtime: "claude-code",
        file: "claude-code-5c0375b4.jsonl",
    },
    Transcript {
        runtime: "codex",
        file: "codex-homelab.jsonl",
    },
];

impl Op {
    fn name(&self) -> &'static str {
        match self {
            Op::Log(_) => "log",
            Op::Compact => "compact",
            Op::Frame(_) => "frame",
            Op::Rollback(_) => "rollback",
            Op::Recover(_) => "recover",
            Op::MemoryAccept(_) => "mem-accept",
            Op::MemoryEdit(..) => "mem-edit",
            Op::Import(_) => "import",
            Op::MemoryPropose(_) => "mem-propose",
            Op::MemoryList => "mem-list",
        }
    }

    fn failpoints(&self) -> Vec<&'static str> {
        match self {
            Op::Log(_) => APPEND.to_vec(),
            Op::Compact => [ATOMIC, APPEND].concat(),
            Op::Frame(_) | Op::Rollback(_) => ATOMIC.to_vec(),
            Op::MemoryAccept(_) | Op::MemoryEdit(..) => [ATOMIC, APPEND].concat(),
            Op::Import(_) => APPEND.to_vec(),
            Op::MemoryPropose(_) | Op::MemoryList => Vec::new(),
            Op::Recover(_) => {
                // Weighted: the recovery step is what this operation is for.
                let recovery = RECOVERY_AFTER_QUARANTINE;
                let mut v = vec![recovery, recovery];
                v.extend_from_slice(APPEND);
                v
            }
        }
    }

    fn command(&self, bin: &Path, ctx: &Path) -> (Command, Option<Vec<u8>>) {
        let mut cmd = Command::new(bin);
        cmd.arg("--dir").arg(ctx).env_remove("FAILPOINTS");
        let mut stdin = None;
        match self {
            Op::Log(events) => {
                cmd.args(["log", "--stdin"]);
                let mut input = Vec::new();
                for (kind, text) in events {
                    let line = serde_json::json!({ "kind": kind, "text": text });
                    input.extend_from_slice(line.to_string().as_bytes());
                    input.push(b'\n');
                }
                stdin = Some(input);
            }
            Op::Compact => {
                cmd.arg("compact");
            }
            Op::Frame(model) => {
                cmd.args([
                    "frame",
                    "--workspace-root",
                    "/work/project",
                    "--shell",
                    "bash",
                    "--os",
                    "linux",
                    "--date",
                    "2026-11-21",
                    "--time-zone",
                    "UTC",
                    "--model",
                    model,
                ]);
            }
            Op::Rollback(to) => {
                cmd.args(["rollback", "--to", to]);
            }
            Op::Recover(_) => {
                cmd.arg("verify");
            }
            // The slug names the memory: each kill's title is its own.
            Op::MemoryAccept(title) => {
                cmd.args(["memory", "accept", title]);
            }
            Op::MemoryEdit(title, text) => {
                cmd.args(["memory", "edit", title, text]);
            }
            Op::Import(t) => {
                cmd.args(["import", t.runtime])
                    .arg(workspace_root().join("fixtures/transcripts").join(t.file));
            }
            Op::MemoryPropose(title) => {
                cmd.args(["memory", "propose", "--title", title])
                    .arg(format!(
                        "What {title} should remember: cargo xtask ci before a push."
                    ));
            }
            Op::MemoryList => {
                cmd.args(["memory", "list"]);
            }
        }
        (cmd, stdin)
    }

    /// What a user does after a crash of this operation, run to its end before the checks:
    /// any memory command (it rewrites memory files that lag the ledger; a compaction writes
    /// memory too, in its continuity flush), or the import again.
    fn repair(&self) -> Option<Op> {
        match self {
            Op::MemoryAccept(_) | Op::MemoryEdit(..) | Op::Compact => Some(Op::MemoryList),
            Op::Import(_) => Some(self.clone()),
            _ => None,
        }
    }

    /// Prepares the folder for the operation: `Recover` tears the log, the memory operations
    /// propose (and accept) the memory they act on.
    fn prepare(&self, bin: &Path, ctx: &Path) -> Result<(), String> {
        match self {
            Op::Recover(torn) => {
                let log = ctx.join("logs/events.jsonl");
                let mut f = fs::OpenOptions::new()
                    .append(true)
                    .open(&log)
                    .map_err(|e| format!("{}: {e}", log.display()))?;
                f.write_all(torn)
                    .map_err(|e| format!("{}: {e}", log.display()))?;
            }
            Op::MemoryAccept(title) => {
                run_ok(bin, ctx, &Op::MemoryPropose(title.clone()))?;
            }
            Op::MemoryEdit(title, _) => {
                run_ok(bin, ctx, &Op::MemoryPropose(title.clone()))?;
                run_ok(bin, ctx, &Op::MemoryAccept(title.clone()))?;
            }
            _ => {}
        }
        Ok(())
    }
}

/// How a child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Exited(i32),
    Killed,
    Aborted,
    Other(i32),
}

impl std::fmt::Display for End {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            End::Exited(c) => write!(f, "ran to the end (exit {c})"),
            End::Killed => write!(f, "SIGKILL"),
            End::Aborted => write!(f, "crashed at the failpoint"),
            End::Other(s) => write!(f, "signal {s}"),
        }
    }
}

struct Outcome {
    end: End,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    elapsed: Duration,
}

/// Runs `op` on `ctx`; with `kill_after`, SIGKILLs it then (if still running); with
/// `failpoints`, sets FAILPOINTS.
fn run_op(
    bin: &Path,
    ctx: &Path,
    op: &Op,
    failpoints: Option<&str>,
    kill_after: Option<Duration>,
) -> Result<Outcome, String> {
    let (mut cmd, stdin) = op.command(bin, ctx);
    if let Some(fp) = failpoints {
        cmd.env("FAILPOINTS", fp);
    }
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
    let writer = child.stdin.take().zip(stdin).map(|(mut pipe, bytes)| {
        std::thread::spawn(move || {
            // The child may die before reading it all: a broken pipe is expected.
            let _ = pipe.write_all(&bytes);
        })
    });
    let mut out_pipe = child.stdout.take().ok_or("no stdout pipe")?;
    let mut err_pipe = child.stderr.take().ok_or("no stderr pipe")?;
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = out_pipe.read_to_end(&mut buf);
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = err_pipe.read_to_end(&mut buf);
        buf
    });
    if let Some(delay) = kill_after {
        let deadline = started + delay;
        loop {
            if child.try_wait().map_err(|e| e.to_string())?.is_some() {
                break;
            }
            let now = Instant::now();
            if now >= deadline {
                let _ = child.kill();
                break;
            }
            std::thread::sleep((deadline - now).min(Duration::from_micros(200)));
        }
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    let elapsed = started.elapsed();
    if let Some(w) = writer {
        let _ = w.join();
    }
    let stdout = reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    let end = match (status.code(), status.signal()) {
        (Some(c), _) => End::Exited(c),
        (None, Some(9)) => End::Killed,
        (None, Some(6)) => End::Aborted,
        (None, Some(s)) => End::Other(s),
        (None, None) => End::Other(-1),
    };
    Ok(Outcome {
        end,
        stdout,
        stderr,
        elapsed,
    })
}

fn run_ok(bin: &Path, ctx: &Path, op: &Op) -> Result<Outcome, String> {
    let out = run_op(bin, ctx, op, None, None)?;
    if out.end != End::Exited(0) {
        return Err(format!(
            "{} on {} failed: {}: {}",
            op.name(),
            ctx.display(),
            out.end,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(out)
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for entry in fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let ty = entry.file_type().map_err(|e| e.to_string())?;
        let dest = to.join(entry.file_name());
        if ty.is_dir() {
            copy_dir(&entry.path(), &dest)?;
        } else if ty.is_file() {
            fs::copy(entry.path(), &dest).map_err(|e| format!("{}: {e}", dest.display()))?;
        }
    }
    Ok(())
}

fn derived(ctx: &Path) -> BTreeMap<&'static str, Option<Vec<u8>>> {
    DERIVED
        .iter()
        .map(|f| (*f, fs::read(ctx.join("active").join(f)).ok()))
        .collect()
}

/// Masks what legitimately differs between two runs of the same operation: RFC 3339 times
/// (`2026-11-21T21:03:35.123456Z`) and 64-hex digests (hashes of files holding such times).
fn mask(bytes: &[u8]) -> Vec<u8> {
    let is_ts = |b: &[u8]| -> Option<usize> {
        let d = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
        let c = |i: usize, ch: u8| b.get(i) == Some(&ch);
        let ok = (0..4).all(d)
            && c(4, b'-')
            && d(5)
            && d(6)
            && c(7, b'-')
            && d(8)
            && d(9)
            && c(10, b'T')
            && d(11)
            && d(12)
            && c(13, b':')
            && d(14)
            && d(15)
            && c(16, b':')
            && d(17)
            && d(18);
        if !ok {
            return None;
        }
        let mut i = 19;
        if c(i, b'.') {
            i += 1;
            while d(i) {
                i += 1;
            }
        }
        c(i, b'Z').then_some(i + 1)
    };
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if let Some(n) = is_ts(&bytes[i..]) {
            out.extend_from_slice(b"<time>");
            i += n;
            continue;
        }
        let hex = bytes[i..]
            .iter()
            .take_while(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
            .count();
        if hex == 64 {
            out.extend_from_slice(b"<sha256>");
            i += 64;
            continue;
        }
        let step = hex.max(1);
        out.extend_from_slice(&bytes[i..i + step]);
        i += step;
    }
    out
}

fn same_version(a: &Option<Vec<u8>>, b: &Option<Vec<u8>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a == b || mask(a) == mask(b),
        _ => false,
    }
}

/// The seq and text of every complete line of the log (`None` text when absent).
fn log_lines(log: &[u8]) -> BTreeMap<u64, Option<String>> {
    let mut out = BTreeMap::new();
    for line in log.split(|&b| b == b'\n') {
        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(line)
            && let Some(seq) = v.get("seq").and_then(serde_json::Value::as_u64)
        {
            // Text routed to artifacts/ is named by its SHA-256.
            let routed = v
                .get("artifact")
                .and_then(serde_json::Value::as_array)
                .and_then(|a| {
                    a.iter()
                        .find(|r| r.get("field").and_then(|f| f.as_str()) == Some("text"))
                })
                .and_then(|r| r.get("sha256").and_then(|h| h.as_str()))
                .map(|h| format!("sha256:{h}"));
            let text = v
                .get("text")
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned);
            out.insert(seq, routed.or(text));
        }
    }
    out
}

const KINDS: &[&str] = &[
    "note",
    "user_message",
    "decision",
    "result",
    "trace",
    "constraint",
    "file_change",
    "remember",
    "next_step",
];

fn random_batch(rng: &mut Rng, tag: &str) -> Vec<(String, String)> {
    let max = if rng.chance(20) { 200 } else { 12 };
    let n = 1 + rng.below(max);
    (0..n)
        .map(|i| {
            let kind = (*rng.pick(KINDS)).to_owned();
            let mut text = format!("{tag} event {i} of {n}: {}", rng.next());
            if rng.chance(3) {
                // Past the inline threshold: routed to artifacts/.
                text.push_str(&"large payload ".repeat(5000));
            }
            (kind, text)
        })
        .collect()
}

/// Kills aimed at each failpoint the random kills missed, at most.
const AIMED_KILLS: u64 = 20;

/// An operation that passes failpoint `fp`.
fn op_passing(fp: &str, rng: &mut Rng, tag: &str) -> Op {
    if fp == RECOVERY_AFTER_QUARANTINE {
        let mut torn = format!("{{\"v\":1,\"seq\":{},\"kind\":\"no", rng.below(1000)).into_bytes();
        torn.truncate(1 + rng.below(torn.len() as u64) as usize);
        Op::Recover(torn)
    } else if APPEND.contains(&fp) {
        Op::Log(random_batch(rng, tag))
    } else if fp == remaind_atomic::failpoints::AFTER_JOURNAL {
        // Only a write of several files (a compaction's pair) keeps a group journal.
        Op::Compact
    } else {
        Op::Frame(format!("model-{}", rng.below(1000)))
    }
}

fn random_op(rng: &mut Rng, points: &[String], tag: &str) -> Op {
    // Memory titles are their own slugs, so `memory accept TITLE` names the proposal.
    let title = format!("chaos-{}", tag.replace([' ', '.'], "-"));
    match rng.below(14) {
        0..=2 => Op::Log(random_batch(rng, tag)),
        3..=4 => Op::Compact,
        5..=6 => Op::Frame(format!("model-{}", rng.below(1000))),
        7..=8 if !points.is_empty() => Op::Rollback(rng.pick(points).clone()),
        9 => Op::MemoryAccept(title),
        10 => Op::MemoryEdit(title, format!("Edited by {tag}: {}", rng.next())),
        11 => Op::Import(*rng.pick(TRANSCRIPTS)),
        _ => op_passing(RECOVERY_AFTER_QUARANTINE, rng, tag),
    }
}

/// Builds the template folder every kill starts from: a ledger with a few events, two
/// accepted compactions and two framings, so rollback has points to go to.
fn template(bin: &Path, root: &Path, rng: &mut Rng) -> Result<(PathBuf, Vec<String>), String> {
    let ctx = root.join("template/.context");
    let mut init = Command::new(bin);
    init.arg("--dir")
        .arg(&ctx)
        .arg("init")
        .env_remove("FAILPOINTS");
    let out = init.output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "init failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let seed = vec![
        (
            "user_message".to_owned(),
            "Build the chaos harness".to_owned(),
        ),
        (
            "decision".to_owned(),
            "Kill with SIGKILL and failpoints".to_owned(),
        ),
        ("result".to_owned(), "Failpoints compiled in".to_owned()),
        ("next_step".to_owned(), "Write the checks".to_owned()),
    ];
    run_ok(bin, &ctx, &Op::Log(seed))?;
    run_ok(bin, &ctx, &Op::Compact)?;
    run_ok(bin, &ctx, &Op::Frame("model-a".to_owned()))?;
    run_ok(bin, &ctx, &Op::Log(random_batch(rng, "template")))?;
    run_ok(bin, &ctx, &Op::Compact)?;
    run_ok(bin, &ctx, &Op::Frame("model-b".to_owned()))?;
    let mut list = Command::new(bin);
    list.arg("--dir")
        .arg(&ctx)
        .args(["rollback", "--list", "--json"])
        .env_remove("FAILPOINTS");
    let out = list.output().map_err(|e| e.to_string())?;
    let points: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("rollback --list: {e}"))?;
    let times = points
        .as_array()
        .map(|a| {
            a.iter()
                // Instants where the derived files agree: just after a handover (its state
                // was written first) or a framing was written. Between a state and its
                // handover they legitimately disagree.
                .filter(|p| {
                    p.get("file")
                        .and_then(|f| f.as_str())
                        .is_some_and(|f| f == "handover.md" || f == "framing.json")
                })
                .filter_map(|p| p.get("time").and_then(|t| t.as_str()).map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    Ok((ctx, times))
}

#[derive(Default)]
struct Summary {
    kills: u64,
    by_end: BTreeMap<String, u64>,
    by_op: BTreeMap<&'static str, u64>,
    hits: BTreeMap<&'static str, u64>,
    lost: u64,
    acknowledged: u64,
    torn: u64,
    verify_failed: u64,
    reads: u64,
    mismatched: u64,
    unusable: u64,
    /// Memory files still behind the ledger after the repair (`memory list`).
    lagging: u64,
    /// Transcript lines imported more (or fewer) times than one whole import records them.
    duplicated: u64,
    failures: Vec<String>,
}

/// `cargo xtask chaos [--kills N] [--seed S] [--remaind PATH]`.
pub(crate) fn run(kills: u64, seed: Option<u64>, prebuilt: Option<String>) -> Result<(), String> {
    let root = workspace_root();
    let target = root.join("target/chaos");
    let bin = match prebuilt {
        Some(path) => PathBuf::from(path),
        None => build_with_failpoints(&root, &target)?,
    };
    std::fs::create_dir_all(&target)
        .map_err(|e| format!("cannot create {}: {e}", target.display()))?;

    let seed = seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
            | 1
    });
    let mut rng = Rng(seed);
    // Crashes of a process, not of the machine: a RAM folder keeps the loop fast.
    let shm = Path::new("/dev/shm");
    let base = if shm.is_dir() { shm } else { &*target };
    let work = tempfile::Builder::new()
        .prefix("remaind-chaos-")
        .tempdir_in(base)
        .map_err(|e| format!("cannot make a scratch folder: {e}"))?;
    let started = Instant::now();
    let (template, points) = template(&bin, work.path(), &mut rng)?;
    println!(
        "chaos: seed {seed}, {kills} kills, {} history points to roll back to",
        points.len()
    );

    let mut sum = Summary::default();
    let kill = |i: u64, aim: Option<&'static str>, rng: &mut Rng, sum: &mut Summary| {
        let result = one_kill(&bin, work.path(), &template, &points, rng, i, aim, sum);
        if let Err(e) = result {
            sum.failures.push(format!("#{i}: harness error: {e}"));
            println!("#{i}: harness error: {e}");
        }
        sum.kills += 1;
    };
    for i in 0..kills {
        kill(i, None, &mut rng, &mut sum);
    }
    // A failpoint the random kills never reached (a seed can leave a rare one out) gets
    // kills aimed at it: an operation that passes it, crashed there. Coverage does not
    // depend on the seed; a failpoint still never hit after these is a real gap.
    let mut i = kills;
    for fp in FAILPOINTS {
        for _ in 0..AIMED_KILLS {
            if sum.hits.get(fp).copied().unwrap_or(0) > 0 {
                break;
            }
            kill(i, Some(fp), &mut rng, &mut sum);
            i += 1;
        }
    }

    print_summary(&sum, seed, started);
    sum.verdict()?;
    println!("chaos: ok");
    Ok(())
}

/// The chaos run's figures, one line each.
fn print_summary(sum: &Summary, seed: u64, started: Instant) {
    println!();
    println!(
        "chaos summary (seed {seed}, {:.1}s)",
        started.elapsed().as_secs_f64()
    );
    println!("  kills:                  {}", sum.kills);
    for (op, n) in &sum.by_op {
        println!("    {op:<22}{n}");
    }
    println!("  how the child ended:");
    for (end, n) in &sum.by_end {
        println!("    {end:<28}{n}");
    }
    println!("  acknowledged events:    {}", sum.acknowledged);
    println!("  lost events:            {}", sum.lost);
    println!("  torn derived files:     {}", sum.torn);
    println!("  verify failures:        {}", sum.verify_failed);
    println!("  reader checks:          {}", sum.reads);
    println!("  mismatched pairs seen:  {}", sum.mismatched);
    println!("  unusable after:         {}", sum.unusable);
    println!("  lagging memory files:   {}", sum.lagging);
    println!("  duplicate imports:      {}", sum.duplicated);
    println!("  failpoints hit (crashes at each):");
    for fp in FAILPOINTS {
        println!("    {fp:<34}{}", sum.hits.get(fp).copied().unwrap_or(0));
    }
    for f in &sum.failures {
        println!("FAIL {f}");
    }
}

/// One kill: a random operation, crashed at a random instant or failpoint; with `aim`, an
/// operation that passes that failpoint, crashed there.
#[expect(
    clippy::too_many_arguments,
    reason = "one kill needs the whole harness state"
)]
fn one_kill(
    bin: &Path,
    work: &Path,
    template: &Path,
    points: &[String],
    rng: &mut Rng,
    i: u64,
    aim: Option<&'static str>,
    sum: &mut Summary,
) -> Result<(), String> {
    let case = work.join("case/.context");
    let reference = work.join("reference/.context");
    fresh_case(bin, template, &case, &reference, points, rng, i)?;
    let op = match aim {
        Some(fp) => op_passing(fp, rng, &format!("kill {i}")),
        None => random_op(rng, points, &format!("kill {i}")),
    };
    sum.kills_for(op.name());

    // The reference run: the same operation on a copy, to its end: the "new" versions.
    copy_dir(&case, &reference)?;
    op.prepare(bin, &reference)?;
    let reference_out = run_ok(bin, &reference, &op)?;
    let new = derived(&reference);

    let old = derived(&case);
    let log_path = case.join("logs/events.jsonl");
    let old_log = fs::read(&log_path).map_err(|e| format!("{}: {e}", log_path.display()))?;
    op.prepare(bin, &case)?;
    // A reader beside the operation, over and over until it ends: it must never see a mixed
    // or unrecorded pair, whatever instant the operation is at or dies at.
    let (crashed, mut seen) = watched(bin, &case, || {
        crash(bin, &case, &op, aim, rng, reference_out.elapsed, sum)
    })?;
    let (outcome, how) = crashed?;
    *sum.by_end.entry(outcome.end.to_string()).or_default() += 1;
    // And a reader right after the crash, before anything repairs anything.
    seen.push(read_pair(bin, &case));

    let acked = acknowledged(&op, &outcome);
    sum.acknowledged += acked.len() as u64;

    let mut problems = Vec::new();
    for reading in seen {
        sum.reads += 1;
        if let Some(reason) = reading? {
            sum.mismatched += 1;
            problems.push(format!("a reader saw {reason}"));
        }
    }
    // What a user does next (a memory command, the import again), run to its end.
    if let Some(repair) = op.repair() {
        run_to_end(bin, &case, &repair, "after the crash", &mut problems)?;
    }
    // Reopen: recovery, then verify. state.json and handover.md are one unit, so no crash
    // leaves them from different runs: nothing is re-run. Verify also finds memory files
    // behind the ledger.
    let verify = run_op(bin, &case, &Op::Recover(Vec::new()), None, None)?;
    if verify.end != End::Exited(0)
        && String::from_utf8_lossy(&verify.stdout).contains("memory files:")
    {
        sum.lagging += 1;
    }
    if let Op::Import(_) = &op {
        let reference_log = reference.join("logs/events.jsonl");
        if let Some(problem) = import_counts_differ(&reference_log, &log_path, &old_log)? {
            sum.duplicated += 1;
            problems.push(problem);
        }
    }
    let now = derived(&case);
    if verify.end != End::Exited(0) {
        sum.verify_failed += 1;
        problems.push(format!(
            "verify after recovery: {}: {}{}",
            verify.end,
            String::from_utf8_lossy(&verify.stdout).trim(),
            String::from_utf8_lossy(&verify.stderr).trim()
        ));
    }
    let versions = Versions {
        old: &old,
        new: &new,
        now: &now,
    };
    check_kept(&log_path, &old_log, &acked, &versions, sum, &mut problems)?;
    // Still usable: one more append goes through.
    let after = Op::Log(vec![("note".into(), format!("after kill {i}"))]);
    let usable = run_op(bin, &case, &after, None, None)?;
    if usable.end != End::Exited(0) {
        sum.unusable += 1;
        problems.push(format!(
            "append after recovery: {}: {}",
            usable.end,
            String::from_utf8_lossy(&usable.stderr).trim()
        ));
    }

    let verdict = if problems.is_empty() {
        "ok".to_owned()
    } else {
        problems.join("; ")
    };
    println!(
        "#{i:<5} {:<9} {how:<48} -> {:<26} acked {:<4} {verdict}",
        op.name(),
        outcome.end.to_string(),
        acked.len()
    );
    if !problems.is_empty() {
        sum.failures
            .push(format!("#{i} {} {how}: {}", op.name(), problems.join("; ")));
    }
    Ok(())
}

/// A case and its reference folder made afresh from the template, the case varied by up to
/// two operations run to their end.
fn fresh_case(
    bin: &Path,
    template: &Path,
    case: &Path,
    reference: &Path,
    points: &[String],
    rng: &mut Rng,
    i: u64,
) -> Result<(), String> {
    for dir in [case, reference] {
        let parent = dir.parent().ok_or("no parent")?;
        if parent.exists() {
            fs::remove_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
    }
    copy_dir(template, case)?;
    for k in 0..rng.below(3) {
        let op = random_op(rng, points, &format!("warm-up {i}.{k}"));
        op.prepare(bin, case)?;
        run_ok(bin, case, &op)?;
    }
    Ok(())
}

/// What readers see: one pair reading of `case` per `remaind` run.
type Readings = Vec<Result<Option<String>, String>>;

/// Runs `act` while a reader thread reads the pair of `case` over and over; returns what
/// `act` returned and every reading.
fn watched<R>(bin: &Path, case: &Path, act: impl FnOnce() -> R) -> Result<(R, Readings), String> {
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let observer = {
        let (bin, case, stop) = (bin.to_owned(), case.to_owned(), stop.clone());
        std::thread::spawn(move || {
            let mut seen = Vec::new();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                seen.push(read_pair(&bin, &case));
            }
            seen
        })
    };
    let result = act();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let seen = observer.join().map_err(|_| "the reader thread panicked")?;
    Ok((result, seen))
}

/// Runs `op` to its end, noting a failure in `problems`.
fn run_to_end(
    bin: &Path,
    case: &Path,
    op: &Op,
    when: &str,
    problems: &mut Vec<String>,
) -> Result<(), String> {
    let done = run_op(bin, case, op, None, None)?;
    if done.end != End::Exited(0) {
        problems.push(format!(
            "{} {when}: {}: {}",
            op.name(),
            done.end,
            String::from_utf8_lossy(&done.stderr).trim()
        ));
    }
    Ok(())
}

/// Whether the transcript lines the import recorded after the crash differ from what one
/// whole import records (the reference run), as a problem to report.
fn import_counts_differ(
    reference_log: &Path,
    log_path: &Path,
    old_log: &[u8],
) -> Result<Option<String>, String> {
    let want = origin_counts(reference_log, old_log)?;
    let got = origin_counts(log_path, old_log)?;
    Ok((want != got).then(|| {
        format!(
            "the import after the crash recorded transcript lines {} times where one import records them {} times",
            got.values().sum::<usize>(),
            want.values().sum::<usize>()
        )
    }))
}

/// The derived files before the operation, after its reference run, and after the crash.
struct Versions<'a> {
    old: &'a BTreeMap<&'static str, Option<Vec<u8>>>,
    new: &'a BTreeMap<&'static str, Option<Vec<u8>>>,
    now: &'a BTreeMap<&'static str, Option<Vec<u8>>>,
}

/// What a crash must keep: the log before the operation as a prefix, every acknowledged
/// event, and each derived file either old or new.
fn check_kept(
    log_path: &Path,
    old_log: &[u8],
    acked: &[(u64, String)],
    v: &Versions<'_>,
    sum: &mut Summary,
    problems: &mut Vec<String>,
) -> Result<(), String> {
    let new_log = fs::read(log_path).map_err(|e| format!("{}: {e}", log_path.display()))?;
    if !new_log.starts_with(old_log) {
        sum.lost += 1;
        problems.push("the log before the operation is not a prefix of the log after".into());
    }
    let lines = log_lines(&new_log);
    for (seq, text) in acked {
        let routed = {
            use sha2::Digest;
            format!(
                "sha256:{}",
                hex::encode(sha2::Sha256::digest(text.as_bytes()))
            )
        };
        let found = lines.get(seq).and_then(Option::as_deref);
        if found != Some(text.as_str()) && found != Some(routed.as_str()) {
            sum.lost += 1;
            problems.push(format!("acknowledged e{seq} is missing or changed"));
        }
    }
    for f in DERIVED {
        let (o, n, c) = (&v.old[f], &v.new[f], &v.now[f]);
        if !(same_version(c, o) || same_version(c, n)) {
            sum.torn += 1;
            problems.push(format!(
                "active/{f} is neither its old nor its new version ({} bytes; old {}, new {})",
                c.as_ref().map_or(0, Vec::len),
                o.as_ref().map_or(0, Vec::len),
                n.as_ref().map_or(0, Vec::len)
            ));
        }
    }
    Ok(())
}

/// Runs `op` on `case` to a crash: at a failpoint (`aim`, else one of the operation's at
/// random, half the time), else by SIGKILL at a random instant within the reference run's
/// span. Returns how the child ended and how it was crashed.
fn crash(
    bin: &Path,
    case: &Path,
    op: &Op,
    aim: Option<&'static str>,
    rng: &mut Rng,
    reference_elapsed: Duration,
    sum: &mut Summary,
) -> Result<(Outcome, String), String> {
    let fps = op.failpoints();
    let crashed = if aim.is_some() || rng.chance(50) {
        let fp = aim.unwrap_or_else(|| *rng.pick(&fps));
        let skip = match op.name() {
            "compact" => rng.below(4),
            "recover" => 0,
            _ => rng.below(2),
        };
        let spec = if skip == 0 {
            format!("{fp}=return(abort)")
        } else {
            format!("{fp}={skip}*off->return(abort)")
        };
        let out = run_op(bin, case, op, Some(&spec), None)?;
        if out.end == End::Aborted {
            *sum.hits.entry(fp).or_default() += 1;
        }
        (out, format!("failpoint {fp} (pass {})", skip + 1))
    } else {
        let span = reference_elapsed.as_micros() as u64;
        let delay = Duration::from_micros(rng.below(span + span / 5 + 1));
        let out = run_op(bin, case, op, None, Some(delay))?;
        (out, format!("SIGKILL at +{}us", delay.as_micros()))
    };
    Ok(crashed)
}

/// Acknowledged appends: the ids a `log` child printed (whole lines only), with the text each
/// event was given.
fn acknowledged(op: &Op, outcome: &Outcome) -> Vec<(u64, String)> {
    let mut acked = Vec::new();
    if let Op::Log(events) = op {
        let text = String::from_utf8_lossy(&outcome.stdout);
        let complete = text.rsplit_once('\n').map_or("", |(head, _)| head);
        let ids: Vec<u64> = complete
            .lines()
            .filter_map(|l| l.trim().strip_prefix('e')?.parse().ok())
            .collect();
        let first = ids.first().copied();
        for (k, seq) in ids.iter().enumerate() {
            if let (Some(first), Some((_, text))) = (first, events.get(k)) {
                debug_assert_eq!(*seq, first + k as u64);
                acked.push((*seq, text.clone()));
            }
        }
    }
    acked
}

/// How many events each transcript line (`data.origin`) has in the log at `path` after the
/// prefix `before` (the log before the operation).
fn origin_counts(path: &Path, before: &[u8]) -> Result<BTreeMap<String, usize>, String> {
    let log = fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let added = log.get(before.len()..).unwrap_or_default();
    let mut out = BTreeMap::new();
    for line in added.split(|&b| b == b'\n') {
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(line) else {
            continue;
        };
        let origin = &v["data"]["origin"];
        if origin.is_object() {
            let key = format!(
                "{} {} {} {}",
                origin["runtime"], origin["session"], origin["line"], v["kind"]
            );
            *out.entry(key).or_default() += 1;
        }
    }
    Ok(out)
}

/// What one reader makes of the derived pair (`verify --json`, which writes no derived file):
/// `Some(reason)` when it saw a mixed or unrecorded pair.
fn read_pair(bin: &Path, ctx: &Path) -> Result<Option<String>, String> {
    let out = Command::new(bin)
        .arg("--dir")
        .arg(ctx)
        .args(["verify", "--json"])
        .env_remove("FAILPOINTS")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run a reader: {e}"))?;
    let doc: serde_json::Value = match serde_json::from_slice(&out.stdout) {
        Ok(doc) => doc,
        // The ledger could not be opened at that instant (e.g. mid-recovery): no pair read.
        Err(_) => return Ok(None),
    };
    let found = doc["derived"].as_array().and_then(|reasons| {
        reasons.iter().find_map(|r| {
            let code = r["code"].as_str()?;
            MISMATCH
                .contains(&code)
                .then(|| format!("{code}: {}", r["message"].as_str().unwrap_or("")))
        })
    });
    Ok(found)
}

impl Summary {
    fn kills_for(&mut self, op: &'static str) {
        *self.by_op.entry(op).or_default() += 1;
    }

    /// An error naming what went wrong, if anything did: a lost event, a torn or mismatched
    /// file, a failed verify or append, lagging memory, a duplicated import, a harness error,
    /// or a failpoint never crashed at.
    fn verdict(&self) -> Result<(), String> {
        if self.lost > 0
            || self.torn > 0
            || self.verify_failed > 0
            || self.mismatched > 0
            || self.unusable > 0
            || self.lagging > 0
            || self.duplicated > 0
            || !self.failures.is_empty()
        {
            return Err(format!(
                "chaos: {} lost events, {} torn derived files, {} mismatched pairs seen, {} verify failures, {} other failures",
                self.lost,
                self.torn,
                self.mismatched,
                self.verify_failed,
                self.failures.len()
            ));
        }
        let missing: Vec<&str> = FAILPOINTS
            .iter()
            .copied()
            .filter(|fp| self.hits.get(fp).copied().unwrap_or(0) == 0)
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "chaos: failpoints never hit: {} (run more kills)",
                missing.join(", ")
            ));
        }
        Ok(())
    }
}

/// `remaind` built with its failpoints into `target` (its own folder: the feature would
/// otherwise rebuild the workspace's usual build).
fn build_with_failpoints(root: &Path, target: &Path) -> Result<PathBuf, String> {
    let mut build = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    build
        .current_dir(root)
        .args(["build", "-p", "remaind-cli", "--features", "failpoints"])
        .arg("--target-dir")
        .arg(target);
    eprintln!("==> build remaind with failpoints into target/chaos");
    let status = build
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!(
            "building remaind with failpoints failed ({status})"
        ));
    }
    Ok(target.join("debug/remaind"))
}
