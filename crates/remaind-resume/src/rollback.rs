//! Rollback of derived files (docs/contract.md, rollback): every file under `active/` that Remaind
//! derives (state.json, handover.md, framing.json, resume_packet.md) restored to its version
//! as of an instant, through the history store. The ledger is never touched.

use remaind_atomic::{HistoryPoint, Timestamp};
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::conv::open_store;
use crate::layout::{ContextDir, DERIVED_FILES};

/// One history point of a derived file, for `rollback --list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Point {
    /// The point's sequence number in the store.
    pub seq: u64,
    /// When the change happened (RFC 3339 UTC, microseconds): `rollback --to` this time keeps
    /// the change.
    pub time: String,
    /// The instant just before the change (1 µs earlier): `rollback --to` this time undoes it.
    pub before: String,
    /// The derived file, relative to `active/`.
    pub file: String,
    /// Whether the file existed before this change.
    pub prior_existed: bool,
}

impl From<&HistoryPoint> for Point {
    fn from(p: &HistoryPoint) -> Self {
        Point {
            seq: p.seq(),
            time: remaind_atomic::format_time(p.time()),
            before: remaind_atomic::format_time(
                p.time()
                    .checked_sub(jiff::SignedDuration::from_micros(1))
                    .unwrap_or(p.time()),
            ),
            file: p.file().to_string(),
            prior_existed: p.prior_existed(),
        }
    }
}

/// What a rollback did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rollback {
    /// The instant rolled back to.
    pub to: String,
    /// The derived files whose bytes changed.
    pub changed: Vec<String>,
    /// Roll back to this instant to undo this rollback (`None` if nothing changed).
    pub undo_to: Option<String>,
}

/// Parses an RFC 3339 instant as given to `--to`.
pub fn parse_time(s: &str) -> Result<Timestamp, Error> {
    s.parse::<Timestamp>().map_err(|e| Error::InvalidInput {
        field: "--to".to_owned(),
        message: format!(
            "`{s}` is not an RFC 3339 time ({e}); e.g. `2026-11-21T21:03:35.123456Z`, as `rollback --list` shows"
        ),
    })
}

/// The history points of the derived files, oldest first.
pub fn list(ctx: &ContextDir) -> Result<Vec<Point>, Error> {
    let store = open_store(ctx)?;
    let points = store.list().map_err(Error::Atomic)?;
    Ok(points
        .iter()
        .filter(|p| DERIVED_FILES.contains(&p.file().as_str()))
        .map(Point::from)
        .collect())
}

/// Restores every derived file to its version as of `to` (absent if it did not exist then).
/// The current versions are kept in history first, so the rollback can itself be rolled back
/// with [`Rollback::undo_to`]. `logs/events.jsonl` is never touched.
pub fn rollback_to(ctx: &ContextDir, to: Timestamp) -> Result<Rollback, Error> {
    let store = open_store(ctx)?;
    let summary = store.restore_to(DERIVED_FILES, to).map_err(Error::Atomic)?;
    let changed = summary.changed.iter().map(|p| p.to_string()).collect();
    Ok(Rollback {
        to: remaind_atomic::format_time(to),
        changed,
        undo_to: summary.undo_to().map(remaind_atomic::format_time),
    })
}
