//! The index's tables. Bump [`SCHEMA_VERSION`] on any change: an index recorded under another
//! version is rebuilt, never migrated.

/// The version recorded in `meta`.
pub(crate) const SCHEMA_VERSION: i64 = 1;

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
    text       TEXT,
    tool       TEXT,
    excerpt    TEXT,
    status     TEXT NOT NULL DEFAULT 'current'
               CHECK (status IN ('current', 'superseded', 'resolved')),
    status_by  TEXT,
    line       TEXT NOT NULL
);
CREATE VIRTUAL TABLE fts USING fts5(
    text, tool, excerpt,
    content = 'events', content_rowid = 'seq',
    tokenize = 'unicode61 remove_diacritics 2'
);
";

/// Secondary indexes, created after the bulk load (cheaper than maintaining them row by row).
pub(crate) const INDEXES: &str = "
CREATE INDEX events_kind ON events (kind, seq);
CREATE INDEX events_importance ON events (importance, seq);
";

pub(crate) const INSERT_EVENT: &str = "INSERT INTO events \
    (seq, id, kind, importance, ts, actor, text, tool, excerpt, line) \
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";

pub(crate) const INSERT_FTS: &str =
    "INSERT INTO fts (rowid, text, tool, excerpt) VALUES (?1, ?2, ?3, ?4)";

/// Superseding wins over resolving; the earliest superseding event is named.
pub(crate) const SUPERSEDE: &str = "UPDATE events SET status = 'superseded', status_by = ?2 \
    WHERE seq = ?1 AND status <> 'superseded'";

/// Resolving changes only a current event; the earliest resolving event is named.
pub(crate) const RESOLVE: &str = "UPDATE events SET status = 'resolved', status_by = ?2 \
    WHERE seq = ?1 AND status = 'current'";

pub(crate) const PUT_META: &str = "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)";
