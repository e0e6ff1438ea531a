//! The hooks' outbox on a replica: a hook call that could not be appended because the shared
//! store was unreachable waits in `logs/outbox.jsonl` (its payload redacted with the project's
//! rules), and the next hook that reaches the store appends the waiting calls first, in order.
//!
//! Each call is appended once: a replayed call's events carry `data.origin.line` =
//! `outbox:<id>`, and a call whose id is already among the ledger's newest events is skipped
//! (a crash between the append and the outbox's rewrite), while the outbox is rewritten
//! atomically after each call, under its lock.

use camino::Utf8Path;
use remaind_adapters::runtimes::Inject;
use remaind_adapters::{HookEvent, Runtime};
use remaind_fs::ContextDir;
use remaind_ledger::Ledger;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::record::call_records;
use super::{Call, Hook};
use crate::error::chain_text;
use crate::{Error, Result};

/// A call whose line would exceed this is not kept (a tool's huge output): the hook error
/// says so instead.
const MAX_ENTRY_BYTES: usize = 1024 * 1024;
/// How many of the ledger's newest events are searched for a call already appended.
const RECENT_EVENTS: usize = 2000;
/// The prefix of `data.origin.line` on a replayed call's events.
const LINE_PREFIX: &str = "outbox:";

impl Hook<'_> {
    /// The store cannot be reached: the call waits in the outbox (its payload redacted) for
    /// the next hook that reaches it, and the hook exits 0. A call the outbox cannot keep
    /// is the hook's error (kept in `hook-errors.jsonl`).
    pub(super) fn defer(&mut self, ctx: &ContextDir, call: &Call<'_>, why: &str) -> Result<u8> {
        // Fails here, not at replay, when the payload maps to nothing recordable.
        call_records(call)?;
        let mut entry = Entry::new(
            ctx,
            call.runtime.as_str(),
            call.event.cli_name(),
            call.payload,
        )?;
        entry.origin = call.origin.map(str::to_owned);
        entry.label.clone_from(&call.label);
        entry.interrupted = call.interrupted;
        keep(ctx, &entry).map_err(|e| Error::NotDeferred {
            why: why.to_owned(),
            source: Box::new(e),
        })?;
        self.out.eprint(&format!(
            "remaind hook {}: {why}; the call waits in {} and goes in with the next hook that \
reaches the store",
            call.event.cli_name(),
            remaind_fs::layout::OUTBOX_PATH
        ));
        Ok(0)
    }

    /// Appends what waits in the outbox. Returns false when an append failed (the store
    /// went away again; what is left keeps waiting); anything else that goes wrong is said
    /// and kept in `hook-errors.jsonl`, never the hook's failure.
    pub(super) fn drain_outbox(&mut self, ctx: &ContextDir, ledger: &Ledger) -> bool {
        let mut append_failed = false;
        let replay = |entry: &Entry| -> Result<Replay> {
            let call = match replay_call(entry) {
                Ok(call) => call,
                Err(e) => return Ok(Replay::Refused(e)),
            };
            if let Err(e) = call_records(&call) {
                return Ok(Replay::Refused(e));
            }
            let workspace = self.start_dir(&entry.payload)?;
            self.record_call(ctx, ledger, &call, &workspace, Some(&entry.line()))
                .inspect_err(|_| append_failed = true)?;
            Ok(Replay::Appended)
        };
        match drain(ctx, ledger, replay) {
            Ok(done) => {
                for (id, e) in &done.dropped {
                    self.keep_error(ctx, &format!("outbox {id}"), &chain_text(e), None);
                }
            }
            Err(e) => self.keep_error(ctx, "outbox", &chain_text(&e), None),
        }
        !append_failed
    }

    /// The shared store cannot be reached: from here on this process reads the folder's own
    /// copy (the ledger as it was last caught up, the pair and memory it holds) and appends
    /// nothing to it, so the replica never holds a line the store lacks. Said on stderr and
    /// kept in `logs/hook-errors.jsonl`.
    pub(super) fn local_copy_only(
        &mut self,
        ctx: &ContextDir,
        hook: &str,
        e: &remaind_ledger::Error,
    ) -> Option<Ledger> {
        let plain = remaind_ledger::Options {
            store: Some(None),
            ..remaind_ledger::Options::default()
        };
        let why = format!(
            "{}; reading this folder's own copy of the project until the store answers again",
            chain_text(e)
        );
        self.out.eprint(&format!("remaind hook {hook}: {why}"));
        self.keep_error(ctx, hook, &why, None);
        // Opened without its store: nothing this process appends can reach the copy.
        Ledger::open_with(ctx.root(), &plain).ok()
    }
}

/// Whether opening a replica failed because its shared store cannot be reached (down, a
/// network away, refusing the login): the folder's own copy is still there to read.
#[cfg(feature = "store")]
pub(super) fn store_unreachable(e: &remaind_ledger::Error) -> bool {
    matches!(
        e,
        remaind_ledger::Error::Store {
            source: remaind_pg::Error::Connect { .. },
            ..
        }
    )
}

/// Without the shared store's client, no folder is a replica.
#[cfg(not(feature = "store"))]
pub(super) fn store_unreachable(_: &remaind_ledger::Error) -> bool {
    false
}

/// The call an outbox entry holds (nothing injected: the session it came from has moved on).
fn replay_call(entry: &Entry) -> Result<Call<'_>> {
    let refused = |reason: String| Error::OutboxEntry {
        id: entry.id.clone(),
        reason,
    };
    let runtime = entry
        .runtime
        .parse::<Runtime>()
        .map_err(|e| refused(e.to_string()))?;
    let event = entry
        .event
        .parse::<HookEvent>()
        .map_err(|e| refused(e.to_string()))?;
    Ok(Call {
        runtime,
        event,
        payload: &entry.payload,
        origin: entry.origin.as_deref(),
        inject: Inject::Nothing,
        label: entry.label.clone(),
        interrupted: entry.interrupted,
    })
}

/// One waiting hook call: what the recording path needs to record it later.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    /// Unique per call (time and process), kept as `data.origin.line`.
    id: String,
    /// When the hook ran.
    ts: String,
    /// The runtime that sent it (`claude-code`, `codex`, …).
    runtime: String,
    /// The hook event it maps to, by its CLI name (`user-prompt-submit`).
    event: String,
    /// The runtime's own event name (Cursor, Gemini CLI, OpenCode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    origin: Option<String>,
    /// `runtime` framing the hook stated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    label: Option<String>,
    /// The user stopped the turn.
    #[serde(default)]
    interrupted: bool,
    /// The hook payload, redacted.
    payload: Map<String, Value>,
}

impl Entry {
    /// A call to keep, its payload redacted with the project's rules (none kept when the
    /// rules cannot be read: nothing unredacted reaches the disk).
    fn new(
        ctx: &ContextDir,
        runtime: &str,
        event: &str,
        payload: &Map<String, Value>,
    ) -> Result<Entry> {
        let redactor = Ledger::project_redactor(ctx.root())?;
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
    fn line(&self) -> String {
        format!("{LINE_PREFIX}{}", self.id)
    }
}

/// Holds the outbox's lock while alive.
struct Locked {
    _file: std::fs::File,
}

fn lock(ctx: &ContextDir) -> Result<Locked> {
    let path = ctx.join(remaind_fs::layout::OUTBOX_LOCK_PATH);
    let file = remaind_fs::open_lock_file(&path)?;
    file.lock().map_err(|source| Error::Lock { path, source })?;
    Ok(Locked { _file: file })
}

/// Keeps a call in the outbox, after the ones already waiting.
fn keep(ctx: &ContextDir, entry: &Entry) -> Result<()> {
    // An entry is strings and a map with string keys: it always encodes.
    let line = serde_json::to_vec(entry).unwrap_or_default();
    if line.len() > MAX_ENTRY_BYTES {
        return Err(Error::TooLarge {
            bytes: line.len(),
            max: MAX_ENTRY_BYTES,
        });
    }
    let _locked = lock(ctx)?;
    let rel = Utf8Path::new(remaind_fs::layout::OUTBOX_PATH);
    Ok(remaind_fs::append_line(ctx.root(), rel, &line, true)?)
}

/// What draining did.
#[derive(Debug, Default)]
struct Drained {
    /// Calls appended now.
    appended: usize,
    /// Calls found already appended (a crash after their append), dropped.
    already_in: usize,
    /// Calls that can never be recorded (unreadable, or a payload the mapping refuses),
    /// moved to `hook-errors.jsonl`.
    dropped: Vec<(String, Error)>,
}

/// How one replay went.
enum Replay {
    /// Its events are in the ledger.
    Appended,
    /// It can never be recorded (the mapping refused it): dropped, with why.
    Refused(Error),
}

/// Appends the waiting calls through `replay`, oldest first, rewriting the outbox after each.
/// Stops at the first call whose append fails (the store went away again), leaving it and
/// the rest waiting, and returns that error.
fn drain(
    ctx: &ContextDir,
    ledger: &Ledger,
    mut replay: impl FnMut(&Entry) -> Result<Replay>,
) -> Result<Drained> {
    let path = ctx.join(remaind_fs::layout::OUTBOX_PATH);
    // The common case, nothing waiting, costs one failed open.
    if remaind_fs::read_file(&path)?.is_none_or(|b| b.is_empty()) {
        return Ok(Drained::default());
    }
    let _locked = lock(ctx)?;
    let bytes = remaind_fs::read_file(&path)?.unwrap_or_default();
    let mut lines: Vec<&[u8]> = bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let appended_before = already_appended(ledger)?;
    let mut done = Drained::default();
    while let Some(raw) = lines.first().copied() {
        match serde_json::from_slice::<Entry>(raw) {
            Err(source) => done.dropped.push((
                String::from_utf8_lossy(&raw[..raw.len().min(200)]).into_owned(),
                Error::OutboxLine { source },
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
fn already_appended(ledger: &Ledger) -> Result<std::collections::HashSet<String>> {
    let (head, _) = ledger.head()?;
    let recent = ledger.before(head + 1, RECENT_EVENTS, &remaind_events::Filter::default())?;
    Ok(recent
        .iter()
        .filter_map(|ev| ev.data.as_ref()?.get("origin")?.get("line")?.as_str())
        .filter(|line| line.starts_with(LINE_PREFIX))
        .map(str::to_owned)
        .collect())
}

/// The outbox with only `lines` left (removed when none are).
fn rewrite(ctx: &ContextDir, lines: &[&[u8]]) -> Result<()> {
    let logs = ctx.join(remaind_fs::layout::LOGS_DIR);
    let name = Utf8Path::new(remaind_fs::layout::OUTBOX_PATH)
        .file_name()
        .unwrap_or("outbox.jsonl");
    if lines.is_empty() {
        remaind_fs::remove_file(&logs, name)?;
        return Ok(());
    }
    let mut bytes = Vec::new();
    for line in lines {
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
    }
    Ok(remaind_fs::replace_file(&logs, name, &bytes)?)
}
