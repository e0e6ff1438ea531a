//! Reading a transcript's JSON Lines into records, counting what was used, skipped or damaged.

use serde_json::Value;

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
    /// Read line `n` (1-based).
    fn line(&mut self, n: usize, line: &Value, out: &mut Vec<Record>) -> LineOutcome;
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
}

impl LineCounts {
    /// Add `other` to these counts.
    pub fn add(&mut self, other: LineCounts) {
        self.lines += other.lines;
        self.used += other.used;
        self.unused += other.unused;
        self.damaged += other.damaged;
    }
}

/// The records of one transcript file's bytes, in order, and its line counts. Never fails:
/// a damaged line is counted and skipped.
pub fn read_transcript(runtime: Runtime, bytes: &[u8]) -> (Vec<Record>, LineCounts) {
    let mut reader: Box<dyn Reader> = match runtime {
        Runtime::ClaudeCode => Box::new(claude_code::TranscriptReader::default()),
        Runtime::Codex => Box::new(codex::TranscriptReader::default()),
    };
    let mut out = Vec::new();
    let mut counts = LineCounts::default();
    for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        counts.lines += 1;
        match serde_json::from_slice::<Value>(line) {
            Ok(v) if v.is_object() => match reader.line(i + 1, &v, &mut out) {
                LineOutcome::Used => counts.used += 1,
                LineOutcome::Unused => counts.unused += 1,
            },
            _ => counts.damaged += 1,
        }
    }
    reader.finish(&mut out);
    (out, counts)
}
