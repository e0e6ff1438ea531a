//! What a hook learns from the runtime's own transcript that no hook payload carries: an
//! interrupted turn (Claude Code fires no Stop then), a prompt the user queued while the
//! agent worked (Claude Code's `queue-operation` lines: no hook fires for it) and the framing
//! (model, runtime version, branch, permission mode). An interrupt is judged by what follows
//! it in the transcript, as an import judges it: one after which the turn went on ends no
//! turn, however late a hook reads it. A hook reads only the lines appended since the last hook read
//! that transcript (a cursor per file under `db/`), so each costs what is new; an interrupt
//! keeps its transcript line identity (the line number and session an import of the whole
//! file gives it, a Codex rollout's too), so a later `import` of the same transcript skips it,
//! and an interrupt an import recorded is not recorded again.

use std::collections::{BTreeMap, HashSet};
use std::io::{Read, Seek, SeekFrom};

use camino::Utf8Path;
use remaind_fs::layout::TRANSCRIPT_CURSORS_PATH;
use remaind_ledger::Ledger;

use crate::error::{Error, Result};
use crate::hooks::record;
use crate::signal::{Framing, Record, Runtime, Signal, origin_key};
use crate::transcript::{open_transcript, read_transcript_tail};

/// How many of the newest ledger events are searched for a line recorded before.
const RECORDED_LOOKBACK: usize = 4096;

/// What following a transcript gave.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Followed {
    /// Interrupts and queued prompts recorded.
    pub interrupts: usize,
    /// The framing the new lines stated.
    pub framing: Framing,
    /// Bytes of transcript read.
    pub bytes: u64,
}

/// Where the hooks left off in one transcript.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Cursor {
    /// Bytes read, up to the end of a whole line.
    at: u64,
    /// The lines in those bytes: the next line's number is one more.
    lines: u64,
}

/// The cursor map: transcript key → where the hooks left off.
type Cursors = BTreeMap<String, Cursor>;

fn cursor_key(transcript: &Utf8Path) -> String {
    remaind_hash::sha256_hex(transcript.as_str().as_bytes())[..24].to_owned()
}

fn load_cursors(ctx: &Utf8Path) -> Result<Cursors> {
    let path = ctx.join(TRANSCRIPT_CURSORS_PATH);
    let bytes = remaind_fs::read_file(&path).map_err(|source| Error::Cursors {
        path: path.clone(),
        source,
    })?;
    // A damaged (or older) cursor file is a cache: start the transcripts over (interrupts
    // dedupe).
    Ok(bytes
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default())
}

fn save_cursors(ctx: &Utf8Path, cursors: &Cursors) -> Result<()> {
    let path = ctx.join(TRANSCRIPT_CURSORS_PATH);
    let err = |source| Error::Cursors {
        path: path.clone(),
        source,
    };
    let dir = path.parent().unwrap_or(ctx);
    let name = path.file_name().unwrap_or(TRANSCRIPT_CURSORS_PATH);
    remaind_fs::ensure_dir(dir, true).map_err(err)?;
    let bytes = serde_json::to_vec(cursors).unwrap_or_default();
    remaind_fs::replace_file(dir, name, &bytes).map_err(err)
}

/// Bytes of a transcript's first line read for what later lines are keyed by (a Codex
/// `session_meta` carries the agent's instructions, tens of KiB).
const FIRST_LINE_BYTES: u64 = 4 << 20;

/// What a hook reads of `transcript` after `from`: its first line (when `from` is past it),
/// the whole lines after `from` (from the start when the file shrank: it is a new one), and
/// the cursor after them.
fn new_lines(transcript: &Utf8Path, from: Cursor) -> Result<(Option<Vec<u8>>, Vec<u8>, Cursor)> {
    let err = |source| Error::Read {
        path: transcript.to_owned(),
        action: "cannot read the runtime's transcript",
        source,
    };
    let mut file = open_transcript(transcript, "cannot read the runtime's transcript")?;
    let len = file.metadata().map_err(err)?.len();
    let from = if len < from.at {
        Cursor::default()
    } else {
        from
    };
    let mut first = None;
    if from.at > 0 {
        let mut head = Vec::new();
        (&mut file)
            .take(FIRST_LINE_BYTES)
            .read_to_end(&mut head)
            .map_err(err)?;
        let end = head.iter().position(|b| *b == b'\n').unwrap_or(head.len());
        head.truncate(end);
        first = Some(head);
    }
    file.seek(SeekFrom::Start(from.at)).map_err(err)?;
    let mut bytes = Vec::with_capacity(usize::try_from(len - from.at).unwrap_or(0));
    file.take(len - from.at)
        .read_to_end(&mut bytes)
        .map_err(err)?;
    // A line still being written is read by the next hook.
    let whole = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    bytes.truncate(whole);
    let lines = bytes.iter().filter(|b| **b == b'\n').count() as u64;
    let to = Cursor {
        at: from.at + whole as u64,
        lines: from.lines + lines,
    };
    Ok((first, bytes, to))
}

/// The import keys of the transcript lines among the newest ledger events.
fn recorded_keys(ledger: &Ledger, runtime: Runtime) -> Result<HashSet<String>> {
    let head = ledger.head()?.0;
    let mut keys = HashSet::new();
    for ev in ledger.before(head + 1, RECORDED_LOOKBACK)? {
        keys.extend(origin_key(&ev, runtime));
    }
    Ok(keys)
}

/// Read the lines of `transcript` appended since the last hook did (the cursor lives in the
/// context folder the ledger is in), record the interrupts and queued prompts among them
/// that the ledger does not hold yet, and return the framing they state. The cursor moves only once the events
/// are appended.
pub fn follow_transcript(
    ledger: &Ledger,
    runtime: Runtime,
    transcript: &Utf8Path,
) -> Result<Followed> {
    let ctx = ledger.context_dir();
    let mut cursors = load_cursors(ctx)?;
    let key = cursor_key(transcript);
    let from = cursors.get(&key).copied().unwrap_or_default();
    let (first, bytes, to) = new_lines(transcript, from)?;
    let mut followed = Followed {
        bytes: bytes.len() as u64,
        ..Followed::default()
    };
    if to == from {
        return Ok(followed);
    }
    // Keyed as an import of the whole file keys them (line numbers, a Codex session), so an
    // interrupt recorded here and the same line imported later are one line.
    let lines_before =
        usize::try_from(to.lines - bytes.iter().filter(|b| **b == b'\n').count() as u64)
            .unwrap_or(usize::MAX);
    let records = read_transcript_tail(runtime, first.as_deref(), &bytes, lines_before);
    let mut interrupts: Vec<Record> = Vec::new();
    for rec in records {
        match rec.signal {
            Signal::Framing(f) => followed.framing.merge(f),
            Signal::Interrupt | Signal::InterruptWentOn | Signal::QueuedPrompt { .. } => {
                interrupts.push(rec);
            }
            _ => {}
        }
    }
    if !interrupts.is_empty() {
        let known = recorded_keys(ledger, runtime)?;
        interrupts.retain(|r| r.source.line_key().is_none_or(|k| !known.contains(&k)));
        followed.interrupts = interrupts.len();
        record(ledger, interrupts)?;
    }
    cursors.insert(key, to);
    save_cursors(ctx, &cursors)?;
    Ok(followed)
}
