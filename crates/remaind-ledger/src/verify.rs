//! Full integrity check of a ledger: lines, chain, artifacts.

use std::collections::HashSet;
use std::fs::File;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::ledger::Ledger;
use crate::lines::{self, Snapshot};
use remaind_events::GENESIS_PREV;
use remaind_fs::layout::{ARTIFACTS_DIR, LOG_PATH};

/// At most this many problems are listed; `problem_count` counts them all.
const MAX_LISTED: usize = 100;

/// One thing wrong with the ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The file, relative to `.context/` (`logs/events.jsonl` or `artifacts/…`).
    pub file: String,
    /// The 1-based line of the log involved, if any.
    pub line: Option<u64>,
    /// What is wrong.
    pub reason: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(n) => write!(f, "{} line {n}: {}", self.file, self.reason),
            None => write!(f, "{}: {}", self.file, self.reason),
        }
    }
}

/// The outcome of [`Ledger::verify`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VerifyReport {
    /// Lines read.
    pub lines: u64,
    /// The hash of the last line ([`GENESIS_PREV`] for an empty log).
    pub head_digest: String,
    /// Distinct artifacts whose hash was checked.
    pub artifacts_checked: u64,
    /// Problems found, in file order (the first is the first bad line or file); at most 100.
    pub problems: Vec<Problem>,
    /// How many problems there were in all.
    pub problem_count: u64,
}

impl VerifyReport {
    /// True when nothing is wrong.
    pub fn is_ok(&self) -> bool {
        self.problem_count == 0
    }

    /// Adds the break the head-anchor check found at open (first, since it is about the
    /// ledger as a whole), unless the full check already named that line.
    pub(crate) fn anchor_break(&mut self, line: u64, reason: &str) {
        if self.problems.iter().any(|p| p.line == Some(line)) {
            return;
        }
        self.problem_count += 1;
        self.problems.insert(
            0,
            Problem {
                file: LOG_PATH.to_owned(),
                line: Some(line),
                reason: reason.to_owned(),
            },
        );
        self.problems.truncate(MAX_LISTED);
    }

    pub(crate) fn push(&mut self, file: &str, line: Option<u64>, reason: String) {
        self.problem_count += 1;
        if self.problems.len() < MAX_LISTED {
            self.problems.push(Problem {
                file: file.to_owned(),
                line,
                reason,
            });
        }
    }
}

pub(crate) fn run(ledger: &Ledger, file: &File) -> Result<VerifyReport> {
    let log = ledger.log_path();
    let io_err = |e| Error::io(log, "cannot read", e);
    let len = file.metadata().map_err(io_err)?.len();
    let snap = Snapshot { file, end: len };
    let mut report = VerifyReport {
        lines: 0,
        head_digest: GENESIS_PREV.to_owned(),
        artifacts_checked: 0,
        problems: Vec::new(),
        problem_count: 0,
    };
    let mut prev = GENESIS_PREV.to_owned();
    let mut checked = HashSet::new();
    let mut fwd = snap.forward(0);
    let mut consumed = 0u64;
    while let Some((off, line)) = fwd.next_line().map_err(io_err)? {
        report.lines += 1;
        let n = report.lines;
        consumed = off + line.len() as u64 + 1;
        let hash = remaind_events::line_digest(line);
        match lines::parse_line(line) {
            Err(reason) => report.push(LOG_PATH, Some(n), reason),
            Ok(ev) => {
                if ev.seq != n {
                    report.push(
                        LOG_PATH,
                        Some(n),
                        format!(
                            "seq is {}, expected {n} (a line is missing, added or out of order)",
                            ev.seq
                        ),
                    );
                }
                if ev.prev != prev {
                    report.push(LOG_PATH, Some(n), format!("prev is {}, but the previous line hashes to {prev} (the chain is broken: a line before it was changed, removed or moved)", ev.prev));
                }
                for a in &ev.artifact {
                    let expected = format!(
                        "{ARTIFACTS_DIR}/{}/{}",
                        a.sha256.get(..2).unwrap_or(""),
                        a.sha256
                    );
                    if a.path != expected {
                        report.push(
                            &a.path,
                            Some(n),
                            format!(
                                "artifact path does not match its sha256 (expected {expected})"
                            ),
                        );
                        continue;
                    }
                    if checked.insert(a.sha256.clone()) {
                        report.artifacts_checked += 1;
                        if let Err(e) = ledger.artifacts().verify(&a.sha256) {
                            report.push(&a.path, Some(n), format!("artifact check failed: {e}"));
                        }
                    }
                }
            }
        }
        prev = hash;
    }
    if consumed < len {
        report.push(
            LOG_PATH,
            Some(report.lines + 1),
            format!(
                "{} bytes at the end have no trailing newline (a torn tail)",
                len - consumed
            ),
        );
    }
    report.head_digest = prev;
    Ok(report)
}
