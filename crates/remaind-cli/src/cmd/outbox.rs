//! The hooks' outbox on a replica: a hook call that could not be appended because the shared
//! store was unreachable waits in `logs/outbox.jsonl` (its payload redacted with the project's
//! rules), and the next hook that reaches the store appends the waiting calls first, in order.
//!
//! Each call is appended once: a replayed call's events carry `data.origin.line` =
//! `outbox:<id>`, and a call whose id is already among the ledger's newest events is skipped
//! (a crash between the append and the outbox's rewrite), while the outbox is rewritten
//! atomically after each call, under its lock.

use camino::Utf8Path;
use remaind_fs::ContextDir;
use remaind_ledger::Ledger;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::cli_error::CliError;

/// A call whose line would exceed this is not kept (a tool's huge output): the hook error
/// says so instead.
const MAX_ENTRY_BYTES: usize = 1024 * 1024;
/// How many of the ledger's newest events are searched for a call already appended.
const RECENT_EVENTS: usize = 2000;
/// The prefix of `data.origin.line` on a replayed call's events.
pub(crate) const LINE_PREFIX: &str = "outbox:";

/// One waiting hook call: what the recording path needs to record it later.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Entry {
    /// Unique per call (time and process), kept as `data.origin.line`.
    pub(crate) id: String,
    /// When the hook ran.
    pub(crate) ts: String,
    /// The runtime that sent it (`claude-code`, `codex`, …).
    pub(crate) runtime: String,
    /// The hook event it maps to, by its CLI name (`user-prompt-submit`).
    pub(crate) event: String,
    /// The runtime's own event name (Cursor, Gemini CLI, OpenCode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) origin: Option<String>,
    /// `runtime` framing the hook stated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) label: Option<String>,
    /// The user stopped the turn.
    #[serde(default)]
    pub(crate) interrupted: bool,
    /// The hook payload, redacted.
    pub(crate) payload: Map<String, Value>,
}

impl Entry {
    /// A call to keep, its payload redacted with the project's rules (none kept when the
    /// rules cannot be read: nothing unredacted reaches the disk).
    pub(crate) fn new(
        ctx: &ContextDir,
        runtime: &str,
        event: &str,
        payload: &Map<String, Value>,
    ) -> Result<Entry, CliError> {
        let redactor = Ledger::project_redactor(ctx.root()).map_err(CliError::from)?;
        let mut value = Value::Object(payload.clone());
        redactor.redact_json(&mut value);
        let payload = match value {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        let now = jiff::Timestamp::now();
        Ok(Entry {
            id: format!("{:x}-{}", now.as_nanosecond(), std::process::id()),
            ts: now.to_string(),
            runtime: runtime.to_owned(),
            event: event.to_owned(),
            origin: None,
            label: None,
            interrupted: false,
            payload,
        })
    }

    /// What the call's events carry as `data.origin.line`.
    pub(crate) fn line(&self) -> String {
        format!("{LINE_PREFIX}{}", self.id)
    }
}

/// Holds the outbox's lock while alive.
struct Locked {
    _file: std::fs::File,
}

fn lock(ctx: &ContextDir) -> Result<Locked, CliError> {
    let path = ctx.join(remaind_fs::layout::OUTBOX_LOCK_PATH);
    let file = remaind_fs::open_lock_file(&path).map_err(CliError::from)?;
    file.lock()
        .map_err(|e| CliError::runtime(format!("cannot lock {path}: {e}")))?;
    Ok(Locked { _file: file })
}

/// Keeps a call in the outbox, after the ones already waiting.
pub(crate) fn keep(ctx: &ContextDir, entry: &Entry) -> Result<(), CliError> {
    let line = serde_json::to_vec(entry)
        .map_err(|e| CliError::runtime(format!("cannot encode the hook call: {e}")))?;
    if line.len() > MAX_ENTRY_BYTES {
        return Err(CliError::runtime(format!(
            "the hook call is {} bytes, more than the outbox keeps ({MAX_ENTRY_BYTES})",
            line.len()
        )));
    }
    let _locked = lock(ctx)?;
    let rel = Utf8Path::new(remaind_fs::layout::OUTBOX_PATH);
    remaind_fs::append_line(ctx.root(), rel, &line, true).map_err(CliError::from)
}

/// What draining did.
#[derive(Debug, Default)]
pub(crate) struct Drained {
    /// Calls appended now.
    pub(crate) appended: usize,
    /// Calls found already appended (a crash after their append), dropped.
    pub(crate) already_in: usize,
    /// Calls that can never be recorded (unreadable, or a payload the mapping refuses),
    /// moved to `hook-errors.jsonl`.
    pub(crate) dropped: Vec<(String, CliError)>,
}

/// How one replay went.
pub(crate) enum Replay {
    /// Its events are in the ledger.
    Appended,
    /// It can never be recorded (the mapping refused it): dropped, with why.
    Refused(CliError),
}

/// Appends the waiting calls through `replay`, oldest first, rewriting the outbox after each.
/// Stops at the first call whose append fails (the store went away again), leaving it and
/// the rest waiting, and returns that error.
pub(crate) fn drain(
    ctx: &ContextDir,
    ledger: &Ledger,
    mut replay: impl FnMut(&Entry) -> Result<Replay, CliError>,
) -> Result<Drained, CliError> {
    let path = ctx.join(remaind_fs::layout::OUTBOX_PATH);
    // The common case, nothing waiting, costs one failed open.
    if remaind_fs::read_file(&path)
        .map_err(CliError::from)?
        .is_none_or(|b| b.is_empty())
    {
        return Ok(Drained::default());
    }
    let _locked = lock(ctx)?;
    let bytes = remaind_fs::read_file(&path)
        .map_err(CliError::from)?
        .unwrap_or_default();
    let mut lines: Vec<&[u8]> = bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let appended_before = already_appended(ledger)?;
    let mut done = Drained::default();
    while let Some(raw) = lines.first().copied() {
        match serde_json::from_slice::<Entry>(raw) {
            Err(e) => done.dropped.push((
                String::from_utf8_lossy(&raw[..raw.len().min(200)]).into_owned(),
                CliError::invalid(format!("an outbox line is not a hook call: {e}")),
            )),
            Ok(entry) if appended_before.contains(&entry.line()) => done.already_in += 1,
            Ok(entry) => match replay(&entry)? {
                Replay::Appended => done.appended += 1,
                Replay::Refused(e) => done.dropped.push((entry.id.clone(), e)),
            },
        }
        lines.remove(0);
        rewrite(ctx, &lines)?;
    }
    Ok(done)
}

/// The `outbox:` origin lines among the ledger's newest events.
fn already_appended(ledger: &Ledger) -> Result<std::collections::HashSet<String>, CliError> {
    let (head, _) = ledger.head().map_err(CliError::from)?;
    let recent = ledger
        .before(head + 1, RECENT_EVENTS, &remaind_ledger::Filter::default())
        .map_err(CliError::from)?;
    Ok(recent
        .iter()
        .filter_map(|ev| ev.data.as_ref()?.get("origin")?.get("line")?.as_str())
        .filter(|line| line.starts_with(LINE_PREFIX))
        .map(str::to_owned)
        .collect())
}

/// The outbox with only `lines` left (removed when none are).
fn rewrite(ctx: &ContextDir, lines: &[&[u8]]) -> Result<(), CliError> {
    let logs = ctx.join(remaind_fs::layout::LOGS_DIR);
    let name = Utf8Path::new(remaind_fs::layout::OUTBOX_PATH)
        .file_name()
        .unwrap_or("outbox.jsonl");
    if lines.is_empty() {
        remaind_fs::remove_file(&logs, name).map_err(CliError::from)?;
        return Ok(());
    }
    let mut bytes = Vec::new();
    for line in lines {
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
    }
    remaind_fs::replace_file(&logs, name, &bytes).map_err(CliError::from)
}
