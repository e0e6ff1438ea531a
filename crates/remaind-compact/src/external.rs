//! External candidates: a candidate folder, or a command speaking the compactor protocol
//! (docs/compactor-protocol.md).
//!
//! Nothing here decides anything: a candidate that cannot even be read is a [`Rejection`]
//! with a reason naming the file (or the command) and the problem, which the commit path
//! reports as a failed `schema` check. Bad input never panics.

use std::process::Command;
use std::time::Duration;

use camino::Utf8Path;
use remaind_events::Event;
use remaind_validate::State;
use serde::{Deserialize, Serialize};

use crate::Candidate;
use crate::process::{self, RunError};

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

/// Why an external candidate could not be read. The commit path reports it as a failed
/// `schema` check whose reason is [`Rejection::reason`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// One line naming the file or command and what is wrong, e.g.
    /// `cand/state.json: line 3 column 5: missing field \`goal\``.
    pub reason: String,
    /// True when the compactor never ran (the shell could not start it: a missing or
    /// non-executable program). That is a runtime failure, not a verdict on a candidate:
    /// the commit path returns [`crate::Error::CompactorCannotRun`] and appends nothing.
    pub cannot_run: bool,
}

impl Rejection {
    /// A rejection saying `reason`.
    pub fn new(reason: impl Into<String>) -> Self {
        Rejection {
            reason: reason.into(),
            cannot_run: false,
        }
    }

    /// The compactor could not be started at all; `reason` says why.
    pub fn cannot_run(reason: impl Into<String>) -> Self {
        Rejection {
            reason: reason.into(),
            cannot_run: true,
        }
    }
}

/// `sh -c` exits 127 when the command is not found and 126 when it is not executable
/// (POSIX, "Command Search and Execution"): the program never ran.
const SHELL_CANNOT_RUN: [i32; 2] = [126, 127];

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

/// A candidate given in memory: `state` must be a valid state document.
pub fn from_value(state: serde_json::Value, handover: String) -> Result<Candidate, Rejection> {
    let state: State = serde_json::from_value(state)
        .map_err(|e| Rejection::new(format!("state: not a valid state: {e}")))?;
    Ok(Candidate { state, handover })
}

/// Run `sh -c CMD`, write `input` as JSON to its stdin, and read a candidate
/// `{"state": {…}, "handover": "…"}` from its stdout.
///
/// The command runs in its own process group; when `timeout` passes, the whole group is
/// killed. A program the shell cannot start (exit 126 or 127, or no shell) is a
/// [`Rejection::cannot_run`]. A timeout, any other non-zero exit, more than 64 MiB of output, output
/// that is not the JSON document, or a `state` that is not a valid state is a [`Rejection`]
/// whose reason says which (quoting the end of stderr when there is any).
pub fn from_command(
    cmd: &str,
    input: &CompactorInput,
    timeout: Duration,
) -> Result<Candidate, Rejection> {
    let payload = serde_json::to_vec(input)
        .map_err(|e| Rejection::new(format!("compactor input cannot be serialized: {e}")))?;
    let mut sh = Command::new("sh");
    sh.arg("-c").arg(cmd);
    let done = process::run_piped(sh, payload, timeout).map_err(|e| match &e {
        RunError::Spawn(io) => {
            Rejection::cannot_run(format!("compactor command `{cmd}`: cannot start sh: {io}"))
        }
        RunError::Io(io) => Rejection::new(format!(
            "compactor command `{cmd}`: cannot wait for it or read its output: {io}"
        )),
        other => Rejection::new(format!("compactor command `{cmd}` {other}")),
    })?;
    let stderr_note = process::stderr_note(&done.stderr);
    if done
        .status
        .code()
        .is_some_and(|c| SHELL_CANNOT_RUN.contains(&c))
    {
        return Err(Rejection::cannot_run(format!(
            "compactor command `{cmd}` cannot run ({}{stderr_note}); check the program's path \
             and that it is executable",
            process::describe_exit(done.status)
        )));
    }
    if !done.status.success() {
        return Err(Rejection::new(format!(
            "compactor command `{cmd}` {}{stderr_note}",
            process::describe_exit(done.status)
        )));
    }
    parse_output(&done.stdout).map_err(|r| {
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
    // From the bytes, so a syntax error names its line and column.
    let out: CompactorOutput = serde_json::from_slice(stdout).map_err(not_output)?;
    into_candidate(out)
}

/// Read a candidate from a parsed compactor output `{"state": {…}, "handover": "…"}`: no
/// other top-level field, and a `state` that is a valid state.
pub fn candidate_from_value(value: serde_json::Value) -> Result<Candidate, Rejection> {
    into_candidate(serde_json::from_value(value).map_err(not_output)?)
}

fn not_output(e: serde_json::Error) -> Rejection {
    Rejection::new(format!(
        "output is not {{\"state\": {{…}}, \"handover\": \"…\"}}: {e}"
    ))
}

fn into_candidate(out: CompactorOutput) -> Result<Candidate, Rejection> {
    let state: State = serde_json::from_value(out.state)
        .map_err(|e| Rejection::new(format!("output `state` is not a valid state: {e}")))?;
    Ok(Candidate {
        state,
        handover: out.handover,
    })
}
