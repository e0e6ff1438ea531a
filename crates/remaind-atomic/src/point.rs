//! History points and the names of the entries that store them.

use std::fmt;

use camino::Utf8Path;
use jiff::Timestamp;

use crate::rel::RelPath;

/// Marker in an entry name: the file existed before the change and the entry holds its bytes.
const PRESENT: &str = "P";
/// Marker in an entry name: the file did not exist before the change; the entry is empty.
const ABSENT: &str = "A";

/// One recorded change of one file: the version the file had *before* the change made at
/// [`time`](HistoryPoint::time).
///
/// Points are totally ordered: [`seq`](HistoryPoint::seq) grows by one per point and
/// [`time`](HistoryPoint::time) strictly increases with it (microsecond resolution), so
/// "the state as of instant T" is unambiguous.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryPoint {
    seq: u64,
    time: Timestamp,
    file: RelPath,
    prior_existed: bool,
}

impl HistoryPoint {
    pub(crate) fn new(seq: u64, time: Timestamp, file: RelPath, prior_existed: bool) -> Self {
        HistoryPoint {
            seq,
            time,
            file,
            prior_existed,
        }
    }

    /// Sequence number, from 1, one per point, in the order the changes were made.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// When the change was made (UTC, whole microseconds, strictly increasing with `seq`).
    pub fn time(&self) -> Timestamp {
        self.time
    }

    /// The changed file, relative to the store's root.
    pub fn file(&self) -> &Utf8Path {
        self.file.as_path()
    }

    /// Whether the file existed before the change (and so whether the point holds its bytes).
    pub fn prior_existed(&self) -> bool {
        self.prior_existed
    }

    pub(crate) fn rel(&self) -> &RelPath {
        &self.file
    }

    /// The entry name in the history folder:
    /// `<seq, 20 digits>_<RFC 3339 time with microseconds>_<P|A>_<file, % and / percent-encoded>`.
    pub(crate) fn entry_name(&self) -> String {
        format!(
            "{:020}_{}_{}_{}",
            self.seq,
            format_time(self.time),
            if self.prior_existed { PRESENT } else { ABSENT },
            self.file.encoded()
        )
    }

    /// Parses an entry name; `None` if it is not exactly one this crate writes.
    pub(crate) fn parse_entry_name(name: &str) -> Option<Self> {
        let mut parts = name.splitn(4, '_');
        let seq_text = parts.next()?;
        let time_text = parts.next()?;
        let marker = parts.next()?;
        let file_text = parts.next()?;
        if seq_text.len() != 20 || !seq_text.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let seq: u64 = seq_text.parse().ok()?;
        let time: Timestamp = time_text.parse().ok()?;
        if format_time(time) != time_text {
            return None;
        }
        let prior_existed = match marker {
            PRESENT => true,
            ABSENT => false,
            _ => return None,
        };
        let file = RelPath::decode(file_text)?;
        Some(HistoryPoint::new(seq, time, file, prior_existed))
    }
}

impl fmt::Display for HistoryPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "#{} {} {} ({})",
            self.seq,
            format_time(self.time),
            self.file.as_path(),
            if self.prior_existed {
                "prior version kept"
            } else {
                "did not exist before"
            }
        )
    }
}

/// Formats an instant the way history does: RFC 3339, UTC, exactly six fractional digits
/// (`2026-11-21T21:03:35.123456Z`). Sub-microsecond digits are dropped.
pub fn format_time(t: Timestamp) -> String {
    format!("{t:.6}")
}
