//! Reading a transcript's JSON Lines into records, counting what was used, skipped or damaged.

use std::io::{self, BufRead};

use crate::signal::{Record, Runtime, Signal};
use crate::{claude_code, codex};

/// What became of one transcript line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineOutcome {
    /// A line type the adapter reads.
    Used,
    /// A valid line of a type the adapter does not use (progress, snapshots, unknown).
    Unused,
}

/// One runtime's transcript reader: it sees every line in order, keeps what pairs lines
/// (tool calls with their results, a turn's last text) and emits records.
pub(crate) trait Reader {
    /// Read line `n` (1-based), the bytes of one JSON Lines line; `None` when it is not a
    /// JSON object (torn, truncated, binary).
    fn line(&mut self, n: usize, line: &[u8], out: &mut Vec<Record>) -> Option<LineOutcome>;
    /// The end of the file: emit what is still held (the last turn's text).
    fn finish(&mut self, out: &mut Vec<Record>);
}

/// Counts of a transcript's lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineCounts {
    /// Non-blank lines read.
    pub lines: u64,
    /// Lines of a type the adapter uses.
    pub used: u64,
    /// Valid lines of a type it does not use.
    pub unused: u64,
    /// Lines that are not a JSON object (torn, truncated, binary).
    pub damaged: u64,
    /// Lines read after replacing characters a strict parser refuses (a lone surrogate
    /// escape, bytes that are not UTF-8) with U+FFFD; also counted as used or unused.
    pub repaired: u64,
}

impl LineCounts {
    /// Add `other` to these counts.
    pub fn add(&mut self, other: LineCounts) {
        self.lines += other.lines;
        self.used += other.used;
        self.unused += other.unused;
        self.damaged += other.damaged;
        self.repaired += other.repaired;
    }
}

/// Holds an interrupt until what follows it says whether it ended the turn: the user's next
/// prompt (or the end of what was read) leaves it an interrupt; anything of the turn going
/// on (a queued prompt, a task notification, a tool call, more text, a compaction) makes it
/// an [`Signal::InterruptWentOn`]. So an interrupt is placed by its source time, and a hook
/// reading it late decides as an import of the whole transcript does.
#[derive(Default)]
struct InterruptHold {
    held: Option<Record>,
}

impl InterruptHold {
    fn push(&mut self, rec: Record, emit: &mut impl FnMut(Record)) {
        match &rec.signal {
            Signal::Framing(_) => emit(rec),
            Signal::Interrupt => {
                if let Some(older) = self.held.replace(rec) {
                    emit(older);
                }
            }
            next => {
                if let Some(mut held) = self.held.take() {
                    if went_on(next) {
                        held.signal = Signal::InterruptWentOn;
                    }
                    emit(held);
                }
                emit(rec);
            }
        }
    }

    fn finish(&mut self, emit: &mut impl FnMut(Record)) {
        if let Some(held) = self.held.take() {
            emit(held);
        }
    }
}

/// Whether `next`, following an interrupt, shows the turn went on (rather than the user
/// starting the next one or acting beside it).
fn went_on(next: &Signal) -> bool {
    match next {
        Signal::Prompt { .. }
        | Signal::CompactInstructions { .. }
        | Signal::LocalCommand { .. }
        | Signal::Remember { .. }
        | Signal::Interrupt
        | Signal::InterruptWentOn
        | Signal::RuntimeTrace { .. }
        | Signal::Framing(_) => false,
        Signal::QueuedPrompt { .. }
        | Signal::Notification { .. }
        | Signal::ToolUse { .. }
        | Signal::AssistantText { .. }
        | Signal::TurnEnd { .. }
        | Signal::SubagentEnd { .. }
        | Signal::CompactSummary { .. } => true,
    }
}

fn new_reader(runtime: Runtime) -> Box<dyn Reader> {
    match runtime {
        Runtime::ClaudeCode => Box::new(claude_code::TranscriptReader::default()),
        Runtime::Codex => Box::new(codex::TranscriptReader::default()),
        Runtime::Cursor | Runtime::Gemini | Runtime::OpenCode => Box::new(Unread),
    }
}

/// The reader of a runtime whose transcripts Remaind does not read (its hooks say what
/// matters): every line is valid and unused.
struct Unread;

impl Reader for Unread {
    fn line(&mut self, _n: usize, _line: &[u8], _out: &mut Vec<Record>) -> Option<LineOutcome> {
        Some(LineOutcome::Unused)
    }

    fn finish(&mut self, _out: &mut Vec<Record>) {}
}

/// Reads line `n` into `out`, counting it.
fn read_one(
    reader: &mut dyn Reader,
    line: &[u8],
    n: usize,
    counts: &mut LineCounts,
    out: &mut Vec<Record>,
) {
    if line.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    counts.lines += 1;
    // A reader decodes strings leniently (a field it cannot decode reads as absent), so
    // a line with a lone surrogate escape or a byte that is not UTF-8 is repaired first,
    // or its prompt would be lost while the line counts as used.
    let repaired = crate::repair::may_need_repair(line)
        .then(|| crate::repair::repair_json_text(line))
        .flatten();
    let outcome = match &repaired {
        Some((fixed, _)) => reader.line(n, fixed.as_bytes(), out),
        None => reader.line(n, line, out),
    };
    counts.repaired += u64::from(repaired.is_some() && outcome.is_some());
    match outcome {
        Some(LineOutcome::Used) => counts.used += 1,
        Some(LineOutcome::Unused) => counts.unused += 1,
        None => counts.damaged += 1,
    }
}

/// The records of the whole lines `bytes` holds, which follow the first `lines_before` lines
/// of a transcript whose line 1 is `first_line`: numbered and keyed as an import of the whole
/// file numbers and keys them (a hook reads only what is new, and its events must carry the
/// line identity an import of the same file checks). Line 1 is read first for what later
/// lines are keyed by (a Codex rollout's session), its own records dropped.
pub(crate) fn read_transcript_tail(
    runtime: Runtime,
    first_line: Option<&[u8]>,
    bytes: &[u8],
    lines_before: usize,
) -> Vec<Record> {
    let mut reader = new_reader(runtime);
    let mut out = Vec::new();
    let mut counts = LineCounts::default();
    if let Some(first) = first_line.filter(|_| lines_before > 0) {
        read_one(reader.as_mut(), first, 1, &mut counts, &mut out);
        out.clear();
    }
    let whole = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    if !bytes.is_empty() {
        for (i, line) in whole.split(|b| *b == b'\n').enumerate() {
            read_one(
                reader.as_mut(),
                line,
                lines_before + i + 1,
                &mut counts,
                &mut out,
            );
        }
    }
    reader.finish(&mut out);
    let mut held = InterruptHold::default();
    let mut records = Vec::with_capacity(out.len());
    let mut emit = |rec| records.push(rec);
    for rec in out {
        held.push(rec, &mut emit);
    }
    held.finish(&mut emit);
    records
}

/// The records of one transcript file's bytes, in order, and its line counts. Never fails:
/// a damaged line is counted and skipped.
pub fn read_transcript(runtime: Runtime, bytes: &[u8]) -> (Vec<Record>, LineCounts) {
    let mut out = Vec::new();
    // Reading a byte slice cannot fail.
    let counts = stream_transcript(runtime, bytes, |rec| out.push(rec)).unwrap_or_default();
    (out, counts)
}

/// Like [`read_transcript`] on a reader, handing each record to `emit` as soon as the line
/// that completes it is read (an import maps and appends while later lines are parsed, and
/// never holds a whole file). Fails only when `input` does.
pub(crate) fn stream_transcript(
    runtime: Runtime,
    mut input: impl BufRead,
    mut emit: impl FnMut(Record),
) -> io::Result<LineCounts> {
    let mut reader = new_reader(runtime);
    let mut out = Vec::new();
    let mut counts = LineCounts::default();
    let mut held = InterruptHold::default();
    let mut read_line = |line: &[u8], n: usize| {
        read_one(reader.as_mut(), line, n, &mut counts, &mut out);
        for rec in out.drain(..) {
            held.push(rec, &mut emit);
        }
    };
    // Lines wholly inside the reader's buffer are parsed in place; only a line that
    // straddles two fills is copied.
    let mut partial = Vec::new();
    let mut n = 0;
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        let len = buf.len();
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', buf) {
            n += 1;
            if partial.is_empty() {
                read_line(&buf[start..end], n);
            } else {
                partial.extend_from_slice(&buf[start..end]);
                read_line(&partial, n);
                partial.clear();
            }
            start = end + 1;
        }
        partial.extend_from_slice(&buf[start..]);
        input.consume(len);
    }
    if !partial.is_empty() {
        read_line(&partial, n + 1);
    }
    reader.finish(&mut out);
    for rec in out.drain(..) {
        held.push(rec, &mut emit);
    }
    held.finish(&mut emit);
    Ok(counts)
}

/// Opens the transcript `path` for reading, never blocking on a FIFO or device (a hook's
/// `transcript_path` and an import's argument are both the caller's).
pub(crate) fn open_transcript(
    path: &camino::Utf8Path,
    action: &'static str,
) -> crate::Result<std::fs::File> {
    remaind_fs::open_input(path).map_err(|e| match e {
        remaind_fs::Error::Io { source, .. } => crate::Error::Read {
            path: path.to_owned(),
            action,
            source,
        },
        _ => crate::Error::NotAFile {
            path: path.to_owned(),
        },
    })
}

/// Bytes of a transcript's end read for the assistant's last text.
const LAST_TEXT_BYTES: u64 = 1 << 20;

/// The assistant's last text in the transcript at `path` (within its last MiB), for a Stop
/// or SubagentStop payload that does not carry it: `None` when the transcript ends on a tool
/// call or the user's prompt (the turn ended without a final text, as an import reads it),
/// or the file cannot be read.
pub(crate) fn last_assistant_text(runtime: Runtime, path: &camino::Utf8Path) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    if !runtime.reads_transcripts() {
        return None;
    }
    let mut file = open_transcript(path, "cannot read the runtime's transcript").ok()?;
    let len = file.metadata().ok()?.len();
    let from = len.saturating_sub(LAST_TEXT_BYTES);
    file.seek(SeekFrom::Start(from)).ok()?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    let mut lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
    if from > 0 && !lines.is_empty() {
        // The first line read may be cut.
        lines.remove(0);
    }
    for line in lines.into_iter().rev() {
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(line) else {
            continue;
        };
        let found = match runtime {
            Runtime::ClaudeCode => claude_code::last_text_of(&v),
            Runtime::Codex => codex::last_text_of(&v),
            Runtime::Cursor | Runtime::Gemini | Runtime::OpenCode => LastText::Nothing,
        };
        match found {
            LastText::Text(t) => return Some(t),
            LastText::Boundary => return None,
            LastText::Nothing => {}
        }
    }
    None
}

/// What one transcript line says about the assistant's last text, read from the end.
pub(crate) enum LastText {
    /// The assistant wrote this.
    Text(String),
    /// The user's prompt or a tool call: no final text after it.
    Boundary,
    /// Neither.
    Nothing,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_straddling_buffer_fills_read_as_one_whole_slice_does() {
        let real: &[u8] =
            include_bytes!("../../../fixtures/transcripts/claude-code-5c0375b4.jsonl");
        // A torn last line without its newline, and blank lines, too.
        let bytes = [real, b"\n\n{\"type\":\"user\",\"mess"].concat();
        let whole = read_transcript(Runtime::ClaudeCode, &bytes);
        for capacity in [1, 7, 64, 4096] {
            let mut streamed = Vec::new();
            let counts = stream_transcript(
                Runtime::ClaudeCode,
                io::BufReader::with_capacity(capacity, &bytes[..]),
                |rec| streamed.push(rec),
            )
            .expect("reading a slice");
            assert_eq!((streamed, counts), whole, "buffer of {capacity} bytes");
        }
        assert_eq!(whole.1.damaged, 1);
        assert!(!whole.0.is_empty());
    }
}
