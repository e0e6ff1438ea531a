//! Reading the log: the one place its bytes are read, by [`Ledger`](crate::Ledger) and by
//! [`LogReader`], a read-only view for callers that only look (the monitor's baseline, the
//! index's offset reads) and must not pay for the redactor, the artifacts and the lock an
//! appending ledger opens. Every view is checked against the head anchor when it opens.

use std::fs::File;

use camino::{Utf8Path, Utf8PathBuf};
use remaind_events::{Event, GENESIS_PREV, Kind, line_digest};
use remaind_fs::layout::{HEAD_PATH, LOG_PATH, LOGS_DIR};

use crate::anchor;
use crate::error::{Error, Result};
use crate::ledger::{no_ledger_here, open_log, refuse_symlink};
use crate::lines::{self, ForwardLines, Snapshot};

/// A read-only view of a `.context/` folder's log, checked against its head anchor on open.
///
/// It reads what [`Ledger::open`](crate::Ledger::open) would accept and nothing else: a log
/// changed outside Remaind is [`Error::Tampered`]. Unlike a ledger it never writes (no torn-tail
/// recovery, no re-anchoring), takes no lock and loads no redaction rules, so a hook that only
/// needs the last few lines opens it in well under a millisecond.
///
/// ```no_run
/// # fn main() -> remaind_ledger::Result<()> {
/// use remaind_events::Kind;
/// use remaind_ledger::LogReader;
/// let log = LogReader::open(camino::Utf8Path::new(".context"))?;
/// let (seq, _hash) = log.head()?;
/// let last = log.last_matching(&[Kind::Compaction], 1_000, |_| true)?;
/// println!("head e{seq}, last compaction {:?}", last.map(|e| e.id));
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct LogReader {
    path: Utf8PathBuf,
    file: File,
}

impl LogReader {
    /// Opens the log of `context_dir` for reading and checks it against the head anchor.
    pub fn open(context_dir: &Utf8Path) -> Result<LogReader> {
        refuse_symlink(&context_dir.join(LOGS_DIR))?;
        let path = context_dir.join(LOG_PATH);
        let file = open_log(&path, false).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => no_ledger_here(&path, e),
            _ => Error::io(&path, "cannot open", e),
        })?;
        let head_path = context_dir.join(HEAD_PATH);
        let recorded = anchor::read(&head_path)
            .map_err(|e| Error::io(&head_path, "cannot read the head anchor", e))?;
        match anchor::check(&file, recorded.as_ref())
            .map_err(|e| Error::io(&path, "cannot read", e))?
        {
            Err(b) => Err(Error::Tampered {
                path,
                line: b.line,
                reason: b.reason,
            }),
            Ok(_) => Ok(LogReader { path, file }),
        }
    }

    /// The head: the last seq (0 when empty) and the hash of the last line.
    pub fn head(&self) -> Result<(u64, String)> {
        head(&self.file, &self.path)
    }

    /// The newest event of one of `kinds` that `accept` takes, among the last `within` events.
    pub fn last_matching(
        &self,
        kinds: &[Kind],
        within: u64,
        accept: impl FnMut(&Event) -> bool,
    ) -> Result<Option<Event>> {
        last_matching(&self.file, &self.path, kinds, within, accept)
    }
}

/// The complete lines of the log from a byte offset on, as stored: for readers that keep
/// their own copy of the events (the search index) and resume where they stopped. Each item is
/// a line without its newline (so the next starts its length plus one further on); the
/// iteration ends with the lines that were complete when the reader was made.
pub(crate) struct RawLines<'a> {
    path: &'a Utf8Path,
    lines: ForwardLines<'a>,
}

impl Iterator for RawLines<'_> {
    type Item = Result<Vec<u8>>;

    fn next(&mut self) -> Option<Self::Item> {
        let path = self.path;
        self.lines
            .next_line()
            .map_err(|e| Error::io(path, "cannot read", e))
            .map(|line| line.map(|(_, bytes)| bytes.to_vec()))
            .transpose()
    }
}

/// The lines from `offset` on; `None` when `offset` is not where a complete line starts (or
/// the end of the last one), so a reader whose offset no longer fits the log starts over.
pub(crate) fn raw_lines<'a>(
    file: &'a File,
    path: &'a Utf8Path,
    offset: u64,
) -> Result<Option<RawLines<'a>>> {
    let snap = Snapshot::new(file).map_err(|e| Error::io(path, "cannot read", e))?;
    if offset > snap.end {
        return Ok(None);
    }
    if offset > 0 {
        let before = snap
            .raw(offset - 1, offset)
            .map_err(|e| Error::io(path, "cannot read", e))?;
        if before != b"\n" {
            return Ok(None);
        }
    }
    Ok(Some(RawLines {
        path,
        lines: snap.forward(offset),
    }))
}

pub(crate) fn parse_at(path: &Utf8Path, offset: u64, line: &[u8]) -> Result<Event> {
    lines::parse_line_fast(line)
        .map_err(|reason| Error::corrupt(path, format!("line at byte {offset}: {reason}")))
}

pub(crate) fn head(file: &File, path: &Utf8Path) -> Result<(u64, String)> {
    let read_err = |e| Error::io(path, "cannot read", e);
    let snap = Snapshot::new(file).map_err(read_err)?;
    let mut back = snap.backward(snap.end);
    match back.prev_line().map_err(read_err)? {
        None => Ok((0, GENESIS_PREV.to_owned())),
        Some((off, line)) => {
            let seq = lines::seq_of_line(line).ok_or_else(|| {
                Error::corrupt(
                    path,
                    format!("the last line (at byte {off}) has no readable seq"),
                )
            })?;
            Ok((seq, line_digest(line)))
        }
    }
}

/// Only the event found is parsed: every other line's kind is read from its first bytes, so
/// looking back over thousands of events costs little more than reading them.
pub(crate) fn last_matching(
    file: &File,
    path: &Utf8Path,
    kinds: &[Kind],
    within: u64,
    mut accept: impl FnMut(&Event) -> bool,
) -> Result<Option<Event>> {
    let read_err = |e| Error::io(path, "cannot read", e);
    let snap = Snapshot::new(file).map_err(read_err)?;
    let mut back = snap.backward(snap.end);
    let mut seen = 0;
    while seen < within {
        let Some((off, line)) = back.prev_line().map_err(read_err)? else {
            break;
        };
        seen += 1;
        let wanted = match lines::kind_of_prefix(line) {
            Some(kind) => kinds.iter().any(|k| k.as_str() == kind),
            // Not in the canonical form: parsed to be sure.
            None => true,
        };
        if wanted {
            let ev = parse_at(path, off, line)?;
            if kinds.contains(&ev.kind) && accept(&ev) {
                return Ok(Some(ev));
            }
        }
    }
    Ok(None)
}
