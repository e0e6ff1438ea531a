//! Rollback of derived files (docs/contract.md, rollback): every file under `active/` that Remaind
//! derives (state.json, handover.md, framing.json, resume_packet.md) and every memory file
//! under `memory/` restored to its version as of an instant, through the history stores. The
//! ledger is never touched.

use remaind_atomic::{HistoryPoint, Timestamp};
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::conv::open_store;
use crate::inputs::accepted_pair;
use crate::layout::{ContextDir, DERIVED_FILES, HANDOVER_FILE, STATE_FILE};
use remaind_fs::layout::MEMORY_DIR;

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
    /// The derived files whose bytes changed (restored or removed).
    pub changed: Vec<String>,
    /// Those of `changed` that did not exist as of `to`, so the rollback removed them.
    #[serde(default)]
    pub removed: Vec<String>,
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

/// The history points of the derived files (`active/` and `memory/`), oldest first.
pub fn rollback_points(ctx: &ContextDir) -> Result<Vec<Point>, Error> {
    let store = open_store(ctx)?;
    let points = store.list().map_err(Error::Atomic)?;
    let mut all: Vec<Point> = points
        .iter()
        .filter(|p| DERIVED_FILES.contains(&p.file().as_str()))
        .map(Point::from)
        .collect();
    for p in remaind_memory::history(ctx).map_err(Error::Memory)? {
        let mut point = Point::from(&p);
        point.file = format!("{MEMORY_DIR}/{}", point.file);
        all.push(point);
    }
    // Two stores: their times interleave, and each time is unique within its store.
    all.sort_by(|a, b| a.time.cmp(&b.time).then_with(|| a.file.cmp(&b.file)));
    Ok(all)
}

/// Restores every derived file to its version as of `to` (absent if it did not exist then):
/// the files under `active/` as one unit, then those under `memory/` as one unit. The current
/// versions are kept in history first, so the rollback can itself be rolled back with
/// [`Rollback::undo_to`]. `logs/events.jsonl` is never touched.
pub fn rollback_to(ctx: &ContextDir, to: Timestamp) -> Result<Rollback, Error> {
    let store = open_store(ctx)?;
    check_recorded(ctx, &store, to)?;
    let summary = store.restore_to(DERIVED_FILES, to).map_err(Error::Atomic)?;
    let mut changed: Vec<String> = summary.changed.iter().map(|p| p.to_string()).collect();
    let mut undo = summary.undo_to();
    if let Some(memory) = remaind_memory::restore_to(ctx, to).map_err(Error::Memory)? {
        changed.extend(memory.changed.iter().map(|p| format!("{MEMORY_DIR}/{p}")));
        // Undoing both means going back to just before the earlier of the two restores.
        undo = match (undo, memory.undo_to()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
    // A file with no version as of `to` is deleted by the restore: say so, not "restored".
    let removed = changed
        .iter()
        .filter(|p| {
            std::fs::symlink_metadata(ctx.root().join(p.as_str()))
                .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
        })
        .cloned()
        .collect();
    Ok(Rollback {
        to: remaind_atomic::format_time(to),
        changed,
        removed,
        undo_to: undo.map(remaind_atomic::format_time),
    })
}

/// Refuses a rollback that would bring back a state.json or handover.md no compaction event
/// recorded (an edited history snapshot): the pair as of `to` must be one the ledger accepted.
fn check_recorded(
    ctx: &ContextDir,
    store: &remaind_atomic::HistoryStore,
    to: Timestamp,
) -> Result<(), Error> {
    let state = store.version_at(STATE_FILE, to).map_err(Error::Atomic)?;
    let handover = store.version_at(HANDOVER_FILE, to).map_err(Error::Atomic)?;
    let Some(state) = state else {
        return Ok(());
    };
    let sha = remaind_hash::sha256_hex;
    let state_sha = sha(&state);
    let handover_sha = handover.as_deref().map(sha);
    let through = serde_json::from_slice::<serde_json::Value>(&state)
        .ok()
        .and_then(|v| v.get("through_seq")?.as_u64())
        .unwrap_or(0);
    let ledger = crate::conv::open_ledger(ctx)?;
    let filter = remaind_events::Filter {
        kinds: vec![remaind_events::Kind::Compaction],
        min_importance: None,
    };
    let events = ledger
        .range(through + 1, usize::MAX, &filter)
        .map_err(Error::Ledger)?;
    let recorded = events.iter().filter_map(accepted_pair).any(|(t, s, h)| {
        t == through && s == state_sha && handover_sha.as_deref() == Some(h.as_str())
    });
    if recorded {
        Ok(())
    } else {
        Err(Error::Forged {
            path: ctx.history_dir(),
            reason: format!(
                "the state.json and handover.md kept for {} (state sha256 {state_sha}) are not a pair any compaction event recorded; a history snapshot was edited, so the rollback is refused (run `remaind verify`)",
                remaind_atomic::format_time(to)
            ),
        })
    }
}
