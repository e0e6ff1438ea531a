//! The index's tables. Bump [`SCHEMA_VERSION`] on any change: an index recorded under another
//! version is rebuilt, never migrated.

/// The version recorded in `meta`.
///
/// 2: the full-text table indexes tool inputs and outputs (artifact text too) and identifier
/// forms, with English stemming; it keeps no copy of the text (snippets come from the line).
pub(crate) const SCHEMA_VERSION: i64 = 2;

/// Tables created before the bulk load.
pub(crate) const TABLES: &str = "
CREATE TABLE meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE events (
    seq        INTEGER PRIMARY KEY,
    id         TEXT NOT NULL,
    kind       TEXT NOT NULL,
    importance INTEGER NOT NULL,
    ts         TEXT NOT NULL,
    actor      TEXT,
    status     TEXT NOT NULL DEFAULT 'current'
               CHECK (status IN ('current', 'superseded', 'resolved')),
    status_by  TEXT,
    line       TEXT NOT NULL
);
-- Contentless: the searchable text is derived from `events.line` (and artifacts) again for
-- the few hits a search returns, so it is not stored twice. Porter stemming over unicode61:
-- `retries` finds `retry`; the exact form ranks higher in `search`.
CREATE VIRTUAL TABLE fts USING fts5(
    text, tool, input, output, parts,
    content = '',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
";

/// Secondary indexes, created after the bulk load (cheaper than maintaining them row by row).
pub(crate) const INDEXES: &str = "
CREATE INDEX events_kind ON events (kind, seq);
CREATE INDEX events_importance ON events (importance, seq);
";

pub(crate) const INSERT_EVENT: &str = "INSERT INTO events \
    (seq, id, kind, importance, ts, actor, line) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";

pub(crate) const INSERT_FTS: &str =
    "INSERT INTO fts (rowid, text, tool, input, output, parts) VALUES (?1, ?2, ?3, ?4, ?5, ?6)";

/// Superseding wins over resolving; the earliest superseding event is named.
pub(crate) const SUPERSEDE: &str = "UPDATE events SET status = 'superseded', status_by = ?2 \
    WHERE seq = ?1 AND status <> 'superseded'";

/// Resolving changes only a current event; the earliest resolving event is named.
pub(crate) const RESOLVE: &str = "UPDATE events SET status = 'resolved', status_by = ?2 \
    WHERE seq = ?1 AND status = 'current'";

pub(crate) const PUT_META: &str = "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)";
