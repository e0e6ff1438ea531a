//! Reading a transcript's JSON Lines into records, counting what was used, skipped or damaged.

use std::io::{self, BufRead};

use crate::signal::{Record, Runtime};
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

fn new_reader(runtime: Runtime) -> Box<dyn Reader> {
    match runtime {
        Runtime::ClaudeCode => Box::new(claude_code::TranscriptReader::default()),
        Runtime::Codex => Box::new(codex::TranscriptReader::default()),
    }
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
    out
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
    let mut read_line = |line: &[u8], n: usize| {
        read_one(reader.as_mut(), line, n, &mut counts, &mut out);
        out.drain(..).for_each(&mut emit);
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
    out.drain(..).for_each(&mut emit);
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
