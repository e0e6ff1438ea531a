//! External candidates: a candidate folder, or a command speaking the compactor protocol
//! (docs/compactor-protocol.md).
//!
//! Nothing here decides anything: a candidate that cannot even be read is a [`Rejection`]
//! with a reason naming the file (or the command) and the problem, which the commit path
//! reports as a failed `schema` check. Bad input never panics.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use camino::Utf8Path;
use remaind_ledger::Event;
use remaind_validate::State;
use serde::{Deserialize, Serialize};

use crate::Candidate;

/// The protocol version spoken on stdin and stdout.
pub const PROTOCOL_VERSION: u32 = 1;

/// The short description of the handover format sent to external compactors.
pub const HANDOVER_FORMAT: &str = "Markdown. Optional first line `<!-- remaind:handover ... -->` \
(Remaind rewrites it). Then `# Handover` and these `## ` sections in this order: Latest user \
instruction (a line `[eN]` naming the last user_message, then its text verbatim), Next step, \
Must remember, Decisions, Completed work, Constraints, Blockers, Open loops, Files changed, Goal, \
Superseded (last; the only place a superseded or resolved event may be cited). Claims are `- ` \
lines ending in citations like `[e4] [e7]`; every importance-3 event that is neither superseded \
nor resolved must be cited outside Superseded.";

/// Largest stdout accepted from a compactor command (64 MiB).
const MAX_OUTPUT: u64 = 64 << 20;
/// Most of stderr quoted in a rejection reason.
const STDERR_QUOTE: usize = 400;

/// Why an external candidate could not be read. The commit path reports it as a failed
/// `schema` check whose reason is [`Rejection::reason`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// One line naming the file or command and what is wrong, e.g.
    /// `cand/state.json: line 3 column 5: missing field \`goal\``.
    pub reason: String,
}

impl Rejection {
    fn new(reason: impl Into<String>) -> Self {
        Rejection {
            reason: reason.into(),
        }
    }
}

/// What an external compactor reads on stdin (protocol 1).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CompactorInput {
    /// Always [`PROTOCOL_VERSION`].
    pub protocol: u32,
    /// The prior accepted state, or `null` on the first compaction.
    pub prior_state: Option<State>,
    /// The events after `prior_state.through_seq` (all events when there is none), up to
    /// `through_seq`, in order.
    pub events: Vec<Event>,
    /// The last event the candidate must cover; copy it into the state.
    pub through_seq: u64,
    /// The chain hash at `through_seq`; copy it into the state.
    pub log_digest: String,
    /// A short description of the handover format ([`HANDOVER_FORMAT`]).
    pub handover_format: String,
}

impl CompactorInput {
    /// The input for a compaction of `events` on top of `prior`.
    pub fn new(
        prior: Option<&State>,
        events: &[Event],
        through_seq: u64,
        log_digest: &str,
    ) -> Self {
        CompactorInput {
            protocol: PROTOCOL_VERSION,
            prior_state: prior.cloned(),
            events: events.to_vec(),
            through_seq,
            log_digest: log_digest.to_owned(),
            handover_format: HANDOVER_FORMAT.to_owned(),
        }
    }
}

/// What an external compactor prints on stdout.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CompactorOutput {
    state: serde_json::Value,
    handover: String,
}

/// Read a candidate folder: `DIR/state.json` (a state) and `DIR/handover.md` (UTF-8).
pub fn from_dir(dir: &Utf8Path) -> Result<Candidate, Rejection> {
    let state_path = dir.join("state.json");
    let handover_path = dir.join("handover.md");
    let state_bytes = std::fs::read(&state_path)
        .map_err(|e| Rejection::new(format!("{state_path}: cannot read: {e}")))?;
    let state: State = serde_json::from_slice(&state_bytes)
        .map_err(|e| Rejection::new(format!("{state_path}: not a valid state: {e}")))?;
    let handover_bytes = std::fs::read(&handover_path)
        .map_err(|e| Rejection::new(format!("{handover_path}: cannot read: {e}")))?;
    let handover = String::from_utf8(handover_bytes).map_err(|e| {
        Rejection::new(format!(
            "{handover_path}: not UTF-8 (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    Ok(Candidate { state, handover })
}

/// Run `sh -c CMD`, write `input` as JSON to its stdin, and read a candidate
/// `{"state": {…}, "handover": "…"}` from its stdout.
///
/// The command runs in its own process group; when `timeout` passes, the whole group is
/// killed. A spawn failure, a timeout, a non-zero exit, more than 64 MiB of output, output
/// that is not the JSON document, or a `state` that is not a valid state is a [`Rejection`]
/// whose reason says which (quoting the end of stderr when there is any).
pub fn from_command(
    cmd: &str,
    input: &CompactorInput,
    timeout: Duration,
) -> Result<Candidate, Rejection> {
    let payload = serde_json::to_vec(input)
        .map_err(|e| Rejection::new(format!("compactor input cannot be serialized: {e}")))?;
    let mut child = {
        use std::os::unix::process::CommandExt;
        Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| {
                Rejection::new(format!("compactor command `{cmd}`: cannot start sh: {e}"))
            })?
    };
    let pid = child.id();
    let mut stdin = child.stdin.take();
    let writer = thread::spawn(move || {
        if let Some(mut s) = stdin.take() {
            // A command that exits without reading its input is judged by its output.
            let _ = s.write_all(&payload);
        }
    });
    let stdout = child.stdout.take();
    let (out_tx, out_rx) = mpsc::channel();
    thread::spawn(move || {
        let mut out = Vec::new();
        let res = match stdout {
            Some(s) => s.take(MAX_OUTPUT + 1).read_to_end(&mut out).map(|_| out),
            None => Ok(out),
        };
        let _ = out_tx.send(res);
    });
    let stderr = child.stderr.take();
    let (err_tx, err_rx) = mpsc::channel();
    thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(s) = stderr {
            let _ = s.take(1 << 20).read_to_end(&mut out);
        }
        let _ = err_tx.send(out);
    });

    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() >= deadline => break None,
            Ok(None) => thread::sleep(Duration::from_millis(5)),
            Err(e) => {
                kill_group(pid);
                let _ = child.kill();
                let _ = child.wait();
                return Err(Rejection::new(format!(
                    "compactor command `{cmd}`: cannot wait for it: {e}"
                )));
            }
        }
    };
    let Some(status) = status else {
        kill_group(pid);
        let _ = child.kill();
        let _ = child.wait();
        let _ = writer.join();
        return Err(Rejection::new(format!(
            "compactor command `{cmd}` timed out after {:.1}s and was killed",
            timeout.as_secs_f64()
        )));
    };
    // The command exited. Something it left running may still hold the pipes open: give the
    // readers until the deadline (at least a moment), then kill the group and collect.
    let grace = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(200));
    let stdout = match out_rx.recv_timeout(grace) {
        Ok(res) => res,
        Err(_) => {
            kill_group(pid);
            out_rx.recv().unwrap_or_else(|_| Ok(Vec::new()))
        }
    };
    let stderr = err_rx
        .recv_timeout(Duration::from_millis(200))
        .unwrap_or_else(|_| {
            kill_group(pid);
            err_rx.recv().unwrap_or_default()
        });
    // A writer still blocked on a pipe nobody reads ends with EPIPE once the group is gone.
    drop(writer);
    let stderr_note = quote_stderr(&stderr);
    if !status.success() {
        let how = match status.code() {
            Some(code) => format!("exited with status {code}"),
            None => "was killed by a signal".to_owned(),
        };
        return Err(Rejection::new(format!(
            "compactor command `{cmd}` {how}{stderr_note}"
        )));
    }
    let stdout = stdout.map_err(|e| {
        Rejection::new(format!(
            "compactor command `{cmd}`: cannot read its output: {e}"
        ))
    })?;
    if stdout.len() as u64 > MAX_OUTPUT {
        return Err(Rejection::new(format!(
            "compactor command `{cmd}` printed more than {} MiB",
            MAX_OUTPUT >> 20
        )));
    }
    parse_output(&stdout).map_err(|r| {
        Rejection::new(format!(
            "compactor command `{cmd}`: {}{stderr_note}",
            r.reason
        ))
    })
}

/// Parse a compactor's stdout.
fn parse_output(stdout: &[u8]) -> Result<Candidate, Rejection> {
    if stdout.iter().all(u8::is_ascii_whitespace) {
        return Err(Rejection::new(
            "printed nothing; expected {\"state\": {…}, \"handover\": \"…\"}",
        ));
    }
    let out: CompactorOutput = serde_json::from_slice(stdout).map_err(|e| {
        Rejection::new(format!(
            "output is not {{\"state\": {{…}}, \"handover\": \"…\"}}: {e}"
        ))
    })?;
    let state: State = serde_json::from_value(out.state)
        .map_err(|e| Rejection::new(format!("output `state` is not a valid state: {e}")))?;
    Ok(Candidate {
        state,
        handover: out.handover,
    })
}

fn quote_stderr(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let text = text.trim();
    if text.is_empty() {
        return String::new();
    }
    let start = text
        .char_indices()
        .rev()
        .nth(STDERR_QUOTE.saturating_sub(1))
        .map_or(0, |(i, _)| i);
    let tail: String = text[start..]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    format!("; stderr: {tail}")
}

/// Kill the process group led by `pid` (the compactor and anything it started).
fn kill_group(pid: u32) {
    let pid = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw);
    if let Some(pid) = pid {
        // Already gone is fine: there is nothing left to stop.
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}
