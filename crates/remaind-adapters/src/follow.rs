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
use std::io::{BufRead, Read, Seek, SeekFrom};

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
    /// Lines longer than a hook reads ([`MAX_LINE_BYTES`]) that were skipped, each said in
    /// `logs/hook-errors.jsonl`.
    pub skipped_lines: u64,
}

/// Bytes of whole lines a hook reads of a transcript at most: what is past them is read by
/// the next hook.
pub const WINDOW_BYTES: u64 = 8 << 20;
/// The longest transcript line a hook reads: a longer one (or a file with no newline) is
/// skipped, never held in memory whole.
pub const MAX_LINE_BYTES: u64 = 16 << 20;
/// Bytes of an over-long line a hook scans for its end at most; the next hook goes on from
/// there, so a hook's time is bounded whatever the file holds.
const SKIP_BYTES: u64 = 256 << 20;

/// Where the hooks left off in one transcript.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Cursor {
    /// Bytes read, up to the end of a whole line (or into an over-long line being skipped).
    at: u64,
    /// The lines in those bytes: the next line's number is one more.
    lines: u64,
    /// `at` is inside a line longer than [`MAX_LINE_BYTES`], skipped up to its newline.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    skipping: bool,
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

/// What a hook reads of a transcript: see [`new_lines`].
struct NewLines {
    /// The transcript's first line, when the read starts past it.
    first: Option<Vec<u8>>,
    /// Whole lines.
    bytes: Vec<u8>,
    /// The lines before `bytes`.
    lines_before: u64,
    /// The cursor after them.
    to: Cursor,
    /// The over-long lines skipped: (line number, byte offset where it starts).
    skipped: Vec<(u64, u64)>,
}

/// What a hook reads of `transcript` after `from`: its first line (when `from` is past it),
/// the whole lines after `from` (from the start when the file shrank: it is a new one) up to
/// [`WINDOW_BYTES`] of them (or one line up to [`MAX_LINE_BYTES`]), and the cursor after
/// them. A longer line is skipped to its newline, scanning at most [`SKIP_BYTES`] per call:
/// what a hook holds in memory and the time it takes are bounded whatever the file is (a
/// sparse file of gigabytes with no newline costs one window).
fn new_lines(transcript: &Utf8Path, from: Cursor) -> Result<NewLines> {
    let err = |source| Error::Read {
        path: transcript.to_owned(),
        action: "cannot read the runtime's transcript",
        source,
    };
    let mut file = open_transcript(transcript, "cannot read the runtime's transcript")?;
    let len = file.metadata().map_err(err)?.len();
    let mut cursor = if len < from.at {
        Cursor::default()
    } else {
        from
    };
    let mut first = None;
    // Only when there is something new to key: a Stop with nothing new in a 3 MB transcript
    // read the whole file here on every hook. Read up to its newline, not a fixed 4 MiB.
    if cursor.at > 0 && cursor.at < len {
        let mut head = Vec::new();
        std::io::BufReader::new((&mut file).take(FIRST_LINE_BYTES))
            .read_until(b'\n', &mut head)
            .map_err(err)?;
        if head.last() == Some(&b'\n') {
            head.pop();
        }
        first = Some(head);
    }
    let mut skipped = Vec::new();
    let mut budget = SKIP_BYTES;
    let nothing = |first, cursor, skipped| NewLines {
        first,
        bytes: Vec::new(),
        lines_before: 0,
        to: cursor,
        skipped,
    };
    loop {
        if cursor.skipping {
            let (at, found) = skip_line(&mut file, cursor.at, len, &mut budget).map_err(err)?;
            cursor.at = at;
            if !found {
                return Ok(nothing(first, cursor, skipped));
            }
            cursor.lines += 1;
            cursor.skipping = false;
        }
        let available = len - cursor.at;
        file.seek(SeekFrom::Start(cursor.at)).map_err(err)?;
        let mut bytes = Vec::new();
        (&mut file)
            .take(available.min(WINDOW_BYTES))
            .read_to_end(&mut bytes)
            .map_err(err)?;
        let mut whole = memchr::memrchr(b'\n', &bytes).map_or(0, |i| i + 1);
        if whole == 0 && available > WINDOW_BYTES && bytes.len() as u64 == WINDOW_BYTES {
            // One line longer than the window: read on to its end, up to the limit.
            let more = available.min(MAX_LINE_BYTES) - WINDOW_BYTES;
            (&mut file)
                .take(more)
                .read_to_end(&mut bytes)
                .map_err(err)?;
            let window = usize::try_from(WINDOW_BYTES).unwrap_or(usize::MAX);
            whole = memchr::memchr(b'\n', bytes.get(window..).unwrap_or_default())
                .map_or(0, |i| window + i + 1);
            if whole == 0 && available >= MAX_LINE_BYTES {
                // Past the limit: skipped, never held whole.
                skipped.push((cursor.lines + 1, cursor.at));
                cursor.at += bytes.len() as u64;
                cursor.skipping = true;
                budget = budget.saturating_sub(bytes.len() as u64);
                continue;
            }
        }
        // A line still being written is read by the next hook.
        bytes.truncate(whole);
        let lines = memchr::memchr_iter(b'\n', &bytes).count() as u64;
        let to = Cursor {
            at: cursor.at + whole as u64,
            lines: cursor.lines + lines,
            skipping: false,
        };
        return Ok(NewLines {
            first,
            bytes,
            lines_before: cursor.lines,
            to,
            skipped,
        });
    }
}

/// Reads `file` from `at` for the end of a line, up to `len` and at most `budget` bytes
/// (less what it reads): where the scan stopped (past the newline when found) and whether it
/// found it.
fn skip_line(
    file: &mut std::fs::File,
    at: u64,
    len: u64,
    budget: &mut u64,
) -> std::io::Result<(u64, bool)> {
    const CHUNK: usize = 1 << 20;
    file.seek(SeekFrom::Start(at))?;
    let mut buf = vec![0u8; CHUNK];
    let mut at = at;
    while at < len && *budget > 0 {
        let want = usize::try_from((len - at).min(*budget)).map_or(CHUNK, |n| n.min(CHUNK));
        let n = file.read(&mut buf[..want])?;
        if n == 0 {
            break;
        }
        *budget = budget.saturating_sub(n as u64);
        if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
            return Ok((at + i as u64 + 1, true));
        }
        at += n as u64;
    }
    Ok((at, false))
}

/// Says in `logs/hook-errors.jsonl` that a line of `transcript` was skipped (the path
/// redacted, as every string Remaind writes); a note that cannot be written is dropped (a
/// hook never fails on it).
fn note_skipped(ledger: &Ledger, transcript: &Utf8Path, (line, offset): (u64, u64)) {
    let path = ledger.redactor().redact_str(transcript.as_str()).0;
    let note = serde_json::json!({
        "ts": jiff::Timestamp::now().to_string(),
        "hook": "transcript",
        "error": format!(
            "line {line} of {path} (from byte {offset}) is longer than {} MiB: skipped, not read",
            MAX_LINE_BYTES >> 20
        ),
    });
    let rel = Utf8Path::new(remaind_fs::layout::HOOK_ERRORS_PATH);
    // A note the folder cannot take is not worth failing the hook for.
    let _ = remaind_fs::append_line(
        ledger.context_dir(),
        rel,
        note.to_string().as_bytes(),
        false,
    );
}

/// The import keys of the transcript lines among the newest ledger events.
fn recorded_keys(ledger: &Ledger, runtime: Runtime) -> Result<HashSet<String>> {
    let head = ledger.head()?.0;
    let mut keys = HashSet::new();
    for ev in ledger.before(
        head + 1,
        RECORDED_LOOKBACK,
        &remaind_events::Filter::default(),
    )? {
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
    let NewLines {
        first,
        bytes,
        lines_before,
        to,
        skipped,
    } = new_lines(transcript, from)?;
    let mut followed = Followed {
        bytes: bytes.len() as u64,
        skipped_lines: skipped.len() as u64,
        ..Followed::default()
    };
    for line in skipped {
        note_skipped(ledger, transcript, line);
    }
    if to == from {
        return Ok(followed);
    }
    // Keyed as an import of the whole file keys them (line numbers, a Codex session), so an
    // interrupt recorded here and the same line imported later are one line.
    let lines_before = usize::try_from(lines_before).unwrap_or(usize::MAX);
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
