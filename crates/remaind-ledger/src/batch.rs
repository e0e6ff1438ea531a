//! A JSON Lines batch on every core: parsing, typed checks, redaction, artifact routing,
//! schema validation and serialization are independent per line and run on worker threads;
//! only the seq, id, ts and prev assignment and the hash chain (in the ledger, under the
//! lock) are sequential, and they consume the prepared lines in order as they arrive.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use remaind_redact::Redactor;

use crate::config::Limits;
use crate::error::{Error, Result};
use crate::event::NewEvent;
use crate::input;
use crate::prepare::{self, Prepared};

/// Lines per unit of work handed to a thread.
const BLOCK_LINES: usize = 256;
/// At most this many threads work on a batch.
const MAX_THREADS: usize = 8;

/// One line to append: its 1-based line number and its preparation.
pub(crate) type Item = (Option<usize>, Result<Prepared>);

/// Parsed lines with their 1-based numbers.
type Parsed = Vec<(usize, NewEvent)>;

/// The non-blank lines of `input` with their 1-based numbers (a trailing `\r` dropped).
fn numbered_lines(input: &[u8]) -> Vec<(usize, &[u8])> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut n = 0;
    let ends = memchr::memchr_iter(b'\n', input).chain(std::iter::once(input.len()));
    for end in ends {
        n += 1;
        let line = &input[start..end];
        start = end + 1;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if !line.iter().all(u8::is_ascii_whitespace) {
            out.push((n, line));
        }
    }
    out
}

fn threads_for(blocks: usize) -> usize {
    std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(MAX_THREADS)
        .min(blocks)
}

/// Parse every line, in blocks on several threads. The first malformed line (lowest
/// number) is the error, as if the lines were parsed one by one.
fn parse_blocks(lines: &[(usize, &[u8])]) -> Result<Vec<Parsed>> {
    let parse = |chunk: &[(usize, &[u8])]| -> Result<Parsed> {
        chunk
            .iter()
            .map(|&(n, line)| {
                input::parse_line(line)
                    .map(|ev| (n, ev))
                    .map_err(|e| e.at_line(n))
            })
            .collect()
    };
    let blocks = lines.len().div_ceil(BLOCK_LINES);
    let threads = threads_for(blocks);
    if threads <= 1 {
        return lines.chunks(BLOCK_LINES).map(parse).collect();
    }
    let next = AtomicUsize::new(0);
    let done = Mutex::new(Vec::with_capacity(blocks));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut mine = Vec::new();
                loop {
                    let b = next.fetch_add(1, Ordering::Relaxed);
                    if b >= blocks {
                        break;
                    }
                    let end = lines.len().min((b + 1) * BLOCK_LINES);
                    mine.push((b, parse(&lines[b * BLOCK_LINES..end])));
                }
                done.lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                    .extend(mine);
            });
        }
    });
    let mut done = done
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if done.len() != blocks {
        return Err(Error::invalid(
            "line",
            "a batch worker stopped before parsing its lines",
        ));
    }
    done.sort_unstable_by_key(|(b, _)| *b);
    done.into_iter().map(|(_, r)| r).collect()
}

/// Parse and prepare the lines of a JSON Lines batch and hand them, in order, to `commit`.
///
/// Errors are those of parsing every line first and then preparing them one by one: a
/// malformed line (the first one) fails the batch before `commit` is called; otherwise
/// `commit` receives each line's preparation in order while later lines are still being
/// prepared on other threads (it may stop early at a failed line).
pub(crate) fn append_json_lines<T>(
    input: &[u8],
    redactor: &Redactor,
    limits: &Limits,
    commit: impl FnOnce(&mut dyn Iterator<Item = Item>) -> Result<T>,
) -> Result<T> {
    let lines = numbered_lines(input);
    let blocks = parse_blocks(&lines)?;
    drop(lines);
    let prepare = |(n, ev): (usize, NewEvent)| -> Item {
        (
            Some(n),
            prepare::prepare(ev.into(), false, redactor, limits),
        )
    };
    let threads = threads_for(blocks.len());
    if threads <= 1 {
        let mut items = blocks.into_iter().flatten().map(prepare);
        return commit(&mut items);
    }
    let count = blocks.len();
    let work: Vec<Mutex<Option<Parsed>>> =
        blocks.into_iter().map(|b| Mutex::new(Some(b))).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, Vec<Item>)>();
        for _ in 0..threads {
            let tx = tx.clone();
            let (work, next) = (&work, &next);
            scope.spawn(move || {
                loop {
                    let b = next.fetch_add(1, Ordering::Relaxed);
                    let Some(slot) = work.get(b) else { break };
                    let block = slot
                        .lock()
                        .unwrap_or_else(|poisoned| poisoned.into_inner())
                        .take()
                        .unwrap_or_default();
                    let mut out = Vec::with_capacity(block.len());
                    for item in block {
                        let item = prepare(item);
                        let failed = item.1.is_err();
                        out.push(item);
                        if failed {
                            break;
                        }
                    }
                    // The consumer has stopped (it failed early): nothing more to do.
                    if tx.send((b, out)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut items = InOrder {
            rx,
            waiting: BTreeMap::new(),
            next: 0,
            count,
            current: Vec::new().into_iter(),
        };
        let result = commit(&mut items);
        // Stop the workers: further blocks are not needed.
        next.store(count, Ordering::Relaxed);
        drop(items);
        result
    })
}

/// The prepared blocks, in block order, flattened.
struct InOrder {
    rx: mpsc::Receiver<(usize, Vec<Item>)>,
    waiting: BTreeMap<usize, Vec<Item>>,
    next: usize,
    count: usize,
    current: std::vec::IntoIter<Item>,
}

impl Iterator for InOrder {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        loop {
            if let Some(item) = self.current.next() {
                return Some(item);
            }
            if self.next >= self.count {
                return None;
            }
            let block = match self.waiting.remove(&self.next) {
                Some(block) => block,
                None => match self.rx.recv() {
                    Ok((b, block)) if b == self.next => block,
                    Ok((b, block)) => {
                        self.waiting.insert(b, block);
                        continue;
                    }
                    Err(_) => {
                        // Every worker is gone while blocks are missing: fail the batch
                        // rather than commit part of it.
                        self.next = self.count;
                        return Some((
                            None,
                            Err(Error::invalid(
                                "line",
                                "a batch worker stopped before preparing its lines",
                            )),
                        ));
                    }
                },
            };
            self.next += 1;
            self.current = block.into_iter();
        }
    }
}

#[cfg(test)]
mod tests {
    use camino::Utf8PathBuf;

    use crate::{Error, Ledger};

    fn ledger() -> (tempfile::TempDir, Ledger) {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = Utf8PathBuf::from_path_buf(tmp.path().join(".context")).expect("utf-8");
        Ledger::create(&dir).expect("create");
        let ledger = Ledger::open(&dir).expect("open");
        (tmp, ledger)
    }

    fn lines(n: usize, bad: &[(usize, &str)]) -> Vec<u8> {
        let mut out = Vec::new();
        for i in 1..=n {
            match bad.iter().find(|(at, _)| *at == i) {
                Some((_, line)) => out.extend_from_slice(line.as_bytes()),
                None => out.extend_from_slice(
                    format!(r#"{{"kind":"note","text":"line {i} sk-proj-{i:0>30}"}}"#).as_bytes(),
                ),
            }
            out.push(b'\n');
        }
        out
    }

    fn line_of(e: &Error) -> Option<usize> {
        e.line()
    }

    #[test]
    fn a_large_batch_is_chained_in_order_and_verifies() {
        let (_tmp, ledger) = ledger();
        let ids = ledger.append_json_lines(&lines(3000, &[])).expect("batch");
        assert_eq!(ids.len(), 3000);
        assert!(
            ids.iter()
                .enumerate()
                .all(|(i, id)| id.seq() == i as u64 + 1)
        );
        let last = ledger.get(3000).expect("read").expect("exists");
        assert!(
            last.text
                .as_deref()
                .is_some_and(|t| t.starts_with("line 3000 [REDACTED:"))
        );
        assert!(ledger.verify().expect("verify").problems.is_empty());
    }

    #[test]
    fn a_large_batch_fails_at_its_first_bad_line_and_writes_nothing() {
        let (_tmp, ledger) = ledger();
        let correction = r#"{"kind":"correction","text":"no target"}"#;
        let err = ledger
            .append_json_lines(&lines(3000, &[(1700, correction), (2900, correction)]))
            .expect_err("rejected");
        assert_eq!(line_of(&err), Some(1700), "{err}");
        // A malformed line anywhere is reported before any line fails its checks.
        let err = ledger
            .append_json_lines(&lines(3000, &[(700, correction), (2500, "{oops")]))
            .expect_err("rejected");
        assert_eq!(line_of(&err), Some(2500), "{err}");
        assert_eq!(ledger.head().expect("head").0, 0);
    }
}
