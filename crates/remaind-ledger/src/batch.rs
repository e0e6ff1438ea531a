//! A JSON Lines batch on every core: parsing, typed checks, redaction, artifact routing,
//! schema validation and serialization are independent per line and run on worker threads;
//! only the seq, id, ts and prev assignment and the hash chain (in the ledger, under the
//! lock) are sequential, and they consume the prepared lines in order as they arrive.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Mutex, PoisonError};

use remaind_redact::Redactor;

use crate::config::Limits;
use crate::error::{Error, Result};
use crate::input;
use crate::prepare::{self, Prepared};

/// Lines per unit of work handed to a thread.
const BLOCK_LINES: usize = 256;
/// Typed requests per unit of work handed to a free thread.
const SHARE_LINES: usize = 32;
/// At most this many threads work on a batch.
const MAX_THREADS: usize = 8;

/// One line to append: its 1-based line number and its preparation.
pub(crate) type Item = (Option<usize>, Result<Prepared>);

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

/// Prepare typed requests (checks, redaction, artifact routing, serialization) on every core,
/// keeping their order; item `i` is numbered `i + 1`.
///
/// The calling thread works too (it would only wait, and its allocator's pages are warm
/// where a new thread's are fresh). Requests are handed out [`SHARE_LINES`] at a time to
/// whichever thread is free, so every thread finishes at about the same moment even when
/// some requests (a large tool output) cost far more than others.
pub(crate) fn prepare_all(
    reqs: Vec<crate::input::Entry>,
    system: bool,
    redactor: &Redactor,
    limits: &Limits,
) -> Vec<Item> {
    let prep = |base: usize, chunk: Vec<crate::input::Entry>| -> Vec<Item> {
        chunk
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                (
                    Some(base + i + 1),
                    prepare::prepare(r, system, false, redactor, limits),
                )
            })
            .collect()
    };
    let threads = threads_for(reqs.len().div_ceil(BLOCK_LINES));
    if threads <= 1 {
        return prep(0, reqs);
    }
    let mut blocks = Vec::with_capacity(reqs.len().div_ceil(SHARE_LINES));
    let mut rest = reqs.into_iter();
    loop {
        let block: Vec<_> = rest.by_ref().take(SHARE_LINES).collect();
        if block.is_empty() {
            break;
        }
        blocks.push(Mutex::new(block));
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            let Some(block) = blocks.get(k) else {
                return done;
            };
            let reqs = std::mem::take(&mut *block.lock().unwrap_or_else(PoisonError::into_inner));
            done.push((k, prep(k * SHARE_LINES, reqs)));
        }
    };
    std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mut done = work();
        for h in helpers {
            // A helper that panicked leaves its blocks out; the caller counts the items.
            done.extend(h.join().unwrap_or_default());
        }
        done.sort_unstable_by_key(|(k, _)| *k);
        done.into_iter().flat_map(|(_, items)| items).collect()
    })
}

fn threads_for(blocks: usize) -> usize {
    std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(MAX_THREADS)
        .min(blocks)
        .max(1)
}

/// What a worker made of one block of lines.
struct Block {
    /// The prepared lines, in order, up to the first that failed its checks, the first
    /// malformed one, or the first one nobody needs prepared any more.
    items: Vec<Item>,
    /// The block's first malformed line (a parse error, with its line number).
    malformed: Option<Error>,
}

/// Parse and prepare the lines of a JSON Lines batch and hand them, in order, to `commit`.
///
/// Errors are those of parsing every line first and then preparing them one by one: the first
/// malformed line anywhere in the batch is the error, even after an earlier line failed its
/// checks; otherwise the first line to fail its checks (or to be refused by `commit`) is.
/// Each line is parsed and prepared in one go on a worker thread, block by block, while
/// `commit` receives the prepared lines in order; it writes nothing unless all of them passed
/// (and, when one is malformed, it receives that line's error and writes nothing).
pub(crate) fn append_json_lines<T>(
    input: &[u8],
    system: bool,
    redactor: &Redactor,
    limits: &Limits,
    commit: impl FnOnce(&mut dyn Iterator<Item = Item>) -> Result<T>,
) -> Result<T> {
    let lines = numbered_lines(input);
    let count = lines.len().div_ceil(BLOCK_LINES);
    let threads = threads_for(count);
    let next = AtomicUsize::new(0);
    // Blocks at or after this one need no preparing: an earlier line failed, or `commit`
    // stopped. Their lines are still parsed, since a malformed line anywhere wins.
    let parse_only_from = AtomicUsize::new(usize::MAX);
    let work = |b: usize| -> Block {
        let end = lines.len().min((b + 1) * BLOCK_LINES);
        let mut items = Vec::with_capacity(end - b * BLOCK_LINES);
        let mut prepare_lines = b < parse_only_from.load(Ordering::Relaxed);
        for &(n, line) in &lines[b * BLOCK_LINES..end] {
            let ev = match input::parse_line(line) {
                Ok(ev) => ev,
                Err(e) => {
                    return Block {
                        items,
                        malformed: Some(e.at_line(n)),
                    };
                }
            };
            if prepare_lines {
                // One pass over the line tells whether any of its strings needs redacting.
                let clean = redactor.json_text_is_clean(line);
                let item = (
                    Some(n),
                    prepare::prepare(ev.into(), system, clean, redactor, limits),
                );
                if item.1.is_err() {
                    prepare_lines = false;
                    parse_only_from.fetch_min(b + 1, Ordering::Relaxed);
                }
                items.push(item);
            }
        }
        Block {
            items,
            malformed: None,
        }
    };
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, Block)>();
        for _ in 0..threads {
            let tx = tx.clone();
            let (work, next) = (&work, &next);
            scope.spawn(move || {
                loop {
                    let b = next.fetch_add(1, Ordering::Relaxed);
                    if b >= count {
                        break;
                    }
                    // The receiver is gone only if the caller panicked.
                    if tx.send((b, work(b))).is_err() {
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
            malformed: None,
        };
        let result = commit(&mut items);
        if result.is_ok() {
            // Every block was handed over whole, so none had a malformed line.
            return result;
        }
        // Prepare nothing more, but parse every line: the first malformed one is the error.
        parse_only_from.store(0, Ordering::Relaxed);
        items.drain();
        match items.malformed {
            Some((_, e)) => Err(e),
            None => result,
        }
    })
}

/// The prepared blocks, in block order, flattened; a block's malformed line comes after the
/// lines before it as an error item.
struct InOrder {
    rx: mpsc::Receiver<(usize, Block)>,
    waiting: BTreeMap<usize, Block>,
    next: usize,
    count: usize,
    current: std::vec::IntoIter<Item>,
    /// The error of the first malformed line in the blocks received so far, with its block.
    malformed: Option<(usize, Error)>,
}

impl InOrder {
    fn note(&mut self, b: usize, block: &mut Block) {
        if let Some(e) = block.malformed.take()
            && self.malformed.as_ref().is_none_or(|(at, _)| b < *at)
        {
            self.malformed = Some((b, e));
        }
    }

    /// Receive every remaining block (noting malformed lines) until the workers are done.
    fn drain(&mut self) {
        let mut waiting = std::mem::take(&mut self.waiting);
        for (b, block) in &mut waiting {
            self.note(*b, block);
        }
        while let Ok((b, mut block)) = self.rx.recv() {
            self.note(b, &mut block);
        }
    }
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
            let (b, mut block) = match self.waiting.remove(&self.next) {
                Some(block) => (self.next, block),
                None => match self.rx.recv() {
                    Ok((b, block)) if b == self.next => (b, block),
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
            let malformed = block.malformed.as_ref().map(Error::line);
            self.note(b, &mut block);
            let mut items = block.items;
            if let Some(n) = malformed {
                // A stand-in for the malformed line: `commit` stops here, and the error of
                // the first malformed line of the batch is reported instead.
                self.next = self.count;
                items.push((n, Err(Error::invalid("line", "is malformed"))));
            }
            self.current = items.into_iter();
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
        let ids = ledger
            .append(crate::AppendRequest::json_lines(&lines(3000, &[])))
            .expect("batch");
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
            .append(crate::AppendRequest::json_lines(&lines(
                3000,
                &[(1700, correction), (2900, correction)],
            )))
            .expect_err("rejected");
        assert_eq!(line_of(&err), Some(1700), "{err}");
        // A malformed line anywhere is reported before any line fails its checks.
        let err = ledger
            .append(crate::AppendRequest::json_lines(&lines(
                3000,
                &[(700, correction), (2500, "{oops")],
            )))
            .expect_err("rejected");
        assert_eq!(line_of(&err), Some(2500), "{err}");
        assert_eq!(ledger.head().expect("head").0, 0);
    }

    /// Files (not folders) under `dir`, recursively.
    fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(dir).expect("lists") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                out.extend(files_under(&p));
            } else {
                out.push(p);
            }
        }
        out
    }

    #[test]
    fn a_failed_batch_leaves_no_artifact_and_a_good_one_stores_every_artifact() {
        let (_tmp, ledger) = ledger();
        let big = |i: usize| {
            format!(
                r#"{{"kind":"tool_result","tool":{{"name":"bash","output":"{i} {}"}}}}"#,
                "output line\\n".repeat(4000)
            )
        };
        let mut input = Vec::new();
        for i in 1..=2000 {
            let line = match i {
                _ if i % 150 == 3 => big(i),
                1900 => r#"{"kind":"correction","text":"no target"}"#.to_owned(),
                _ => format!(r#"{{"kind":"note","text":"line {i}"}}"#),
            };
            input.extend_from_slice(line.as_bytes());
            input.push(b'\n');
        }
        let artifacts = ledger.context_dir().join(remaind_fs::layout::ARTIFACTS_DIR);
        let err = ledger
            .append(crate::AppendRequest::json_lines(&input))
            .expect_err("rejected");
        assert_eq!(line_of(&err), Some(1900), "{err}");
        assert_eq!(
            files_under(artifacts.as_std_path()),
            Vec::<std::path::PathBuf>::new()
        );
        assert_eq!(ledger.head().expect("head").0, 0);

        let good = String::from_utf8(input).expect("utf-8").replace(
            r#"{"kind":"correction","text":"no target"}"#,
            r#"{"kind":"note","text":"fixed"}"#,
        );
        let ids = ledger
            .append(crate::AppendRequest::json_lines(good.as_bytes()))
            .expect("batch");
        assert_eq!(ids.len(), 2000);
        let stored = files_under(artifacts.as_std_path());
        assert_eq!(stored.len(), 2000usize.div_ceil(150), "{stored:?}");
        let report = ledger.verify().expect("verify");
        assert!(report.problems.is_empty(), "{:?}", report.problems);
        assert_eq!(report.artifacts_checked, stored.len() as u64);
    }
}
