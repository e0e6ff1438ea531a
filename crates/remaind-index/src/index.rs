//! The index handle: open, catch up, rebuild, search and slices.

use std::borrow::Cow;
use std::fs::{self, File};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::time::Duration;

use camino::{Utf8Path, Utf8PathBuf};
use remaind_events::Filter;
use remaind_events::{Event, EventId, Kind, Status};
use remaind_hash::sha256_hex;
use remaind_ledger::Ledger;
use rusqlite::types::Value;
use rusqlite::{
    Connection, ErrorCode, OpenFlags, OptionalExtension, Transaction, TransactionBehavior, params,
};
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::fields::{self, ArtifactPart, Field, ToolPart};
use remaind_query::QueryBounds;

use crate::query::{self, Needle};
use crate::schema::{self, SCHEMA_VERSION};
use crate::snippet;

mod related;

pub use related::Related;

/// The kinds that open a loop until a later event resolves or supersedes them.
pub const LOOP_KINDS: [Kind; 2] = [Kind::Blocker, Kind::NextStep];
/// Folder of the index, relative to `.context/`.
pub use remaind_fs::layout::DB_DIR;
/// The index file, relative to `.context/`.
pub use remaind_fs::layout::DB_PATH;

/// Progress is reported every this many events during a rebuild.
const PROGRESS_EVERY: u64 = 8192;
/// How long to wait for another process holding the index's write lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);
/// The score of a match: BM25 with the event's text and tool name weighted 1, the tool's
/// input 0.6, its output 0.4 (long and noisy), identifier forms 0.5.
const BM25: &str = "bm25(fts, 1.0, 1.0, 0.6, 0.4, 0.5)";
/// Marks around matched words in a snippet.
pub const MATCH_START: &str = "«";
/// See [`MATCH_START`].
pub const MATCH_END: &str = "»";

/// How a search query is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Syntax {
    /// Words, `prefix*` and `"quoted phrases"`; everything else is searched for literally, so a
    /// plain query never fails to parse.
    #[default]
    Plain,
    /// Raw FTS5 query syntax (`AND`, `OR`, `NOT`, `NEAR`, column filters); a syntax error is
    /// an [`Error::InvalidQuery`].
    Fts5,
}

/// Which hits a search returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchOptions {
    /// Only these kinds (all kinds when empty).
    pub kinds: Vec<Kind>,
    /// Only events of at least this importance.
    pub min_importance: Option<u8>,
    /// Only events neither superseded nor resolved.
    pub current_only: bool,
    /// At most this many hits.
    pub limit: usize,
    /// How the query is read.
    pub syntax: Syntax,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            kinds: Vec::new(),
            min_importance: None,
            current_only: false,
            limit: 20,
            syntax: Syntax::Plain,
        }
    }
}

/// One search result.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// The event's id.
    pub id: EventId,
    /// The event's seq.
    pub seq: u64,
    /// The event's kind.
    pub kind: Kind,
    /// When it was logged (RFC 3339).
    pub ts: String,
    /// Its importance.
    pub importance: u8,
    /// Whether it is current, superseded or resolved.
    pub status: Status,
    /// Which part of the event matched best.
    pub field: Field,
    /// An excerpt of that part around the match, matched words between [`MATCH_START`] and
    /// [`MATCH_END`].
    pub snippet: String,
    /// The BM25 score as SQLite reports it for the query, lower is better.
    pub rank: f64,
    /// The score hits are ordered by, higher is better: BM25 weighted by kind, importance,
    /// exact forms and the whole-phrase bonus (for a raw FTS5 query, BM25 alone).
    pub score: f64,
    /// True when the event holds the whole query as one phrase; such hits rank higher.
    pub exact: bool,
}

/// What [`Index::search_bounded`] found, and how the query was bounded.
#[derive(Debug, Clone, PartialEq)]
pub struct Searched {
    /// The hits, best first.
    pub hits: Vec<Hit>,
    /// How the query was bounded: [`QueryBounds::cut`] when part of it was not searched.
    pub bounds: QueryBounds,
    /// The query's quoted phrases when no event held them and the query was searched again
    /// with their words as ordinary ranked words (empty when the query was searched as
    /// typed).
    pub phrases_as_words: Vec<String>,
}

/// How far the index is behind the ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Freshness {
    /// The last seq the index holds (0 when it is missing or unusable).
    pub indexed_seq: u64,
    /// The ledger's head seq.
    pub ledger_head: u64,
    /// True when the next read must index new events or rebuild.
    pub stale: bool,
}

/// What [`Index::catch_up`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatchUp {
    /// The index already held the ledger head.
    Fresh,
    /// This many new events were indexed.
    Indexed(u64),
    /// The index was missing, unusable or did not match the ledger, and was rebuilt with this
    /// many events.
    Rebuilt(u64),
}

/// The index's record of what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Meta {
    version: i64,
    last_seq: u64,
    last_hash: String,
    end_offset: u64,
}

/// What a catch-up must do.
enum Plan {
    Fresh,
    Append(Meta),
    Rebuild,
}

/// The fields of a ledger line the index stores in columns or searches; the rest is skipped.
#[derive(Deserialize)]
struct Row<'a> {
    seq: u64,
    kind: Kind,
    importance: u8,
    #[serde(borrow)]
    ts: Cow<'a, str>,
    #[serde(default, borrow)]
    actor: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    text: Option<Cow<'a, str>>,
    #[serde(default)]
    supersedes: Vec<EventId>,
    #[serde(default)]
    resolves: Vec<EventId>,
    #[serde(default)]
    tool: Option<ToolPart>,
    #[serde(default)]
    artifact: Vec<ArtifactPart>,
}

/// Where indexing stopped.
struct Indexed {
    count: u64,
    last_seq: u64,
    last_hash: String,
    end_offset: u64,
}

/// True for SQLite errors that mean the file is not a usable index (rebuild it).
fn is_corruption(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
    )
}

/// True for SQLite errors a rebuild cannot fix: another process, permissions, space.
fn is_environmental(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(
            ErrorCode::DatabaseBusy
                | ErrorCode::DatabaseLocked
                | ErrorCode::ReadOnly
                | ErrorCode::PermissionDenied
                | ErrorCode::DiskFull
                | ErrorCode::CannotOpen
                | ErrorCode::OutOfMemory
        )
    )
}

fn status_of(status: &str, by: Option<&str>) -> Status {
    let by = by.and_then(|s| s.parse::<EventId>().ok());
    match (status, by) {
        ("superseded", Some(by)) => Status::Superseded { by },
        ("resolved", Some(by)) => Status::Resolved { by },
        _ => Status::Current,
    }
}

/// A search candidate, before it is ranked and shown.
struct Candidate {
    seq: i64,
    kind: String,
    ts: String,
    importance: i64,
    status: String,
    status_by: Option<String>,
    line: String,
    rank: f64,
    exact: bool,
    score: f64,
}

impl Candidate {
    /// The columns `kind, ts, importance, status, status_by, line` of a row, from column
    /// `at` on, as a candidate of `seq` at BM25 `rank` (not exact, not scored yet).
    fn from_columns(
        r: &rusqlite::Row<'_>,
        seq: i64,
        at: usize,
        rank: f64,
    ) -> rusqlite::Result<Self> {
        Ok(Candidate {
            seq,
            kind: r.get(at)?,
            ts: r.get(at + 1)?,
            importance: r.get(at + 2)?,
            status: r.get(at + 3)?,
            status_by: r.get(at + 4)?,
            line: r.get(at + 5)?,
            rank,
            exact: false,
            score: 0.0,
        })
    }
}

/// How many of the best BM25 matches a plain search ranks again (enough that kind,
/// importance and exact forms can lift a hit to the top, few enough to read their lines): one
/// number whatever the limit, so that where a hit ranks never depends on how many hits are
/// asked for, and the first k hits of a longer list are the short list. Past them, the
/// matches follow in BM25 order.
const POOL: usize = 60;

/// How much a bookkeeping event weighs against what someone said: a session's date, a
/// notification, a compaction or validation record holds the query's words (dates, numbers)
/// without saying anything about them.
const BOOKKEEPING_WEIGHT: f64 = 0.5;

/// Words of dates and times: a note made mostly of these and numbers is a date note.
const CALENDAR_WORDS: &[&str] = &[
    "am",
    "apr",
    "april",
    "aug",
    "august",
    "date",
    "day",
    "dec",
    "december",
    "feb",
    "february",
    "friday",
    "jan",
    "january",
    "jul",
    "july",
    "jun",
    "june",
    "mar",
    "march",
    "may",
    "mon",
    "monday",
    "nov",
    "november",
    "oct",
    "october",
    "pm",
    "saturday",
    "sep",
    "sept",
    "september",
    "sunday",
    "thursday",
    "time",
    "tuesday",
    "utc",
    "wednesday",
];

/// The parts of a ledger line that say whether it is bookkeeping.
#[derive(Deserialize, Default)]
struct Marks {
    #[serde(default)]
    data: Option<serde_json::Map<String, serde_json::Value>>,
}

/// True for an event that keeps the books rather than saying something: the records Remaind
/// writes (compaction, validation, recovery, monitor), and notes that only log the session (a
/// runtime's notification, an interruption, a compaction summary, or a date note made mostly
/// of numbers and calendar words).
fn is_bookkeeping(kind: &str, line: &str, text: &str) -> bool {
    match kind {
        "compaction" | "validation" | "recovery" | "monitor" => true,
        "note" | "trace" => {
            let marks: Marks = serde_json::from_str(line).unwrap_or_default();
            let marked = marks.data.is_some_and(|d| {
                d.get("via").and_then(|v| v.as_str()) == Some("notification")
                    || d.contains_key("compact_summary")
                    || d.contains_key("turn_end")
                    || d.contains_key("interrupted")
            });
            marked || is_date_note(text)
        }
        _ => false,
    }
}

/// True for a short text made mostly (two fifths or more of its words) of numbers and calendar
/// words: `Session 3 date: 1:56 pm on 8 May, 2023`.
fn is_date_note(text: &str) -> bool {
    let mut words = 0usize;
    let mut dates = 0usize;
    for (_, t) in crate::words::tokens(text) {
        words += 1;
        if words > 60 {
            return false;
        }
        let lower = t.to_lowercase();
        if t.chars().all(|c| c.is_ascii_digit())
            || CALENDAR_WORDS.binary_search(&lower.as_str()).is_ok()
        {
            dates += 1;
        }
    }
    words > 0 && dates * 5 >= words * 2
}

/// For a question, how much of an asking turn's score its reply takes: an event that asks
/// the same question (it ends with `?`) restates it, the next one answers it ("Did they sign
/// it?" is answered by "They signed it to show our friendship").
const REPLY_SHARE: f64 = 0.9;
/// How much an asking turn keeps of its score for a question: a little below its reply.
const ASKING_WEIGHT: f64 = 0.8;
/// How many of the best asking turns bring their reply into the ranking.
const ASKING_TURNS: usize = 10;

/// True for a text that asks: its last sentence ends with `?`.
fn asks(text: &str) -> bool {
    text.trim_end().ends_with('?')
}

/// How much an event's kind says it is worth recalling: what was decided or must hold over
/// what was traced.
fn kind_weight(kind: &str) -> f64 {
    match kind {
        "decision" | "constraint" | "remember" | "correction" => 1.3,
        "user_message" | "blocker" | "next_step" | "result" => 1.15,
        "trace" | "monitor" | "validation" | "recovery" => 0.8,
        _ => 1.0,
    }
}

/// For a question, how much more an event someone wrote weighs than a tool's call, result or
/// file change: a question is mostly answered in words (an explanation, a decision, what the
/// user said), while the tool's output holds the symptom.
const WRITTEN_WEIGHT: f64 = 1.3;

/// True for the kinds whose text someone wrote, rather than a tool or Remaind.
fn is_written(kind: &str) -> bool {
    !matches!(
        kind,
        "tool_call"
            | "tool_result"
            | "file_change"
            | "trace"
            | "monitor"
            | "validation"
            | "recovery"
    )
}

/// How many tokens apart a query's words may be to count as said in one place: a sentence or
/// two.
const WINDOW_TOKENS: usize = 30;

/// The final score of a plain-query candidate, higher is better: BM25 weighted by kind and
/// importance, by how it holds the words ([`word_bonus`]) and how much of the query it holds
/// in one place ([`held_together`], `weights` from [`unit_weights`]), the whole query as one
/// phrase a lot higher, for a question an event someone wrote higher; a bookkeeping event
/// ([`is_bookkeeping`]) and a superseded one lower.
fn score(c: &Candidate, plan: &query::Plan, weights: &[f64]) -> f64 {
    let mut s = -c.rank * kind_weight(&c.kind) * (1.0 + 0.05 * c.importance as f64);
    if let Ok(f) = fields::extract(&c.line, None) {
        // The square root: holding half the query's weight together halves nothing, it
        // weighs 0.7 against holding all of it.
        s *= word_bonus(&f, plan) * held_together(&f, &plan.units, weights).sqrt();
        if is_bookkeeping(&c.kind, &c.line, &f.text) {
            s *= BOOKKEEPING_WEIGHT;
        }
    }
    if plan.question && is_written(&c.kind) {
        s *= WRITTEN_WEIGHT;
    }
    if c.exact {
        s *= 3.0;
    }
    if c.status == "superseded" {
        s *= 0.9;
    }
    s
}

/// Up to 1.3 for the share of the query's words an event holds as written (the exact form
/// over another form of the stem), times up to 1.2 for the share of neighbouring query words
/// it holds close together.
fn word_bonus(f: &fields::Fields, plan: &query::Plan) -> f64 {
    let share = |held: usize, of: usize| {
        if of == 0 {
            0.0
        } else {
            held as f64 / of as f64
        }
    };
    let exact = plan.exact_words.iter().filter(|w| f.holds_word(w)).count();
    let close = plan
        .pairs
        .iter()
        .filter(|(a, b)| f.near(a, b, query::NEAR_TOKENS))
        .count();
    (1.0 + 0.3 * share(exact, plan.exact_words.len()))
        * (1.0 + 0.2 * share(close, plan.pairs.len()))
}

/// Most events counted per word for its weight; past that the count is estimated.
const COUNT_CAP: i64 = 2000;

/// The weight of each of `units`: its inverse document frequency as BM25 has it,
/// `ln(1 + (N - n + 0.5) / (n + 0.5))` for `n` of `N` events holding it, so that a rare word
/// counts for more of the query than a common one. Empty for fewer than two units (one word
/// is held together or not at all).
fn unit_weights(conn: &Connection, units: &[query::Unit]) -> rusqlite::Result<Vec<f64>> {
    if units.len() < 2 {
        return Ok(Vec::new());
    }
    Ok(unit_counts(conn, units)?
        .into_iter()
        .map(|(_, w)| w)
        .collect())
}

/// For each of `units`, how many events hold it (estimated past [`COUNT_CAP`]) and its
/// weight ([`unit_weights`]).
fn unit_counts(conn: &Connection, units: &[query::Unit]) -> rusqlite::Result<Vec<(f64, f64)>> {
    // Seqs are gapless: the last one is the number of events, without counting rows.
    let total: i64 =
        conn.query_row("SELECT coalesce(max(seq), 0) FROM events", [], |r| r.get(0))?;
    // Counting every event that holds a common word cost a third of a five-word search at
    // 1,000,000 events: past COUNT_CAP matches (in seq order) the count is scaled up from the
    // seq where the cap was reached, as if the word were spread evenly.
    let mut count = conn.prepare_cached(
        "SELECT count(*), max(rowid) FROM \
         (SELECT rowid FROM fts WHERE fts MATCH ?1 ORDER BY rowid LIMIT ?2)",
    )?;
    units
        .iter()
        .map(|u| {
            let (n, last): (i64, Option<i64>) =
                count.query_row(params![u.fts, COUNT_CAP], |r| Ok((r.get(0)?, r.get(1)?)))?;
            let (total, mut n) = (total as f64, n as f64);
            if let Some(last) = last.filter(|_| n >= COUNT_CAP as f64) {
                n = (n * total / last.max(1) as f64).min(total);
            }
            Ok((n, (1.0 + (total - n + 0.5) / (n + 0.5)).ln()))
        })
        .collect()
}

/// The largest share of the query's weight that one stretch of [`WINDOW_TOKENS`] tokens of
/// one field holds, each of `units` counted once with its weight from `weights`: near 1 for
/// an event that says what was asked in one place, low for a long one with the words
/// scattered. At least the share of the lightest unit (every candidate matched a word, if in
/// a form the stemmer does not merge); 1 with nothing to weigh.
fn held_together(f: &fields::Fields, units: &[query::Unit], weights: &[f64]) -> f64 {
    let total: f64 = weights.iter().sum();
    if weights.len() != units.len() || total <= 0.0 {
        return 1.0;
    }
    let mut best = 0.0f64;
    let mut found = Vec::new();
    let mut counts = vec![0usize; units.len()];
    let mut window = std::collections::VecDeque::new();
    for field in Field::ALL {
        unit_positions(f.get(field), units, &mut found);
        counts.fill(0);
        window.clear();
        let mut held = 0.0;
        for &(pos, unit) in &found {
            while let Some(&(first, u)) = window.front()
                && pos - first >= WINDOW_TOKENS
            {
                window.pop_front();
                counts[u] -= 1;
                if counts[u] == 0 {
                    held -= weights[u];
                }
            }
            if counts[unit] == 0 {
                held += weights[unit];
            }
            counts[unit] += 1;
            window.push_back((pos, unit));
            best = best.max(held);
        }
    }
    let lightest = weights.iter().copied().fold(f64::INFINITY, f64::min);
    best.max(lightest) / total
}

/// The (token position, unit) of every token of `text` that is one of `units`, into `out`; a
/// CamelCase token counts as its parts, as the units do.
fn unit_positions(text: &str, units: &[query::Unit], out: &mut Vec<(usize, usize)>) {
    out.clear();
    let mut pos = 0;
    for (_, token) in crate::words::tokens(text) {
        let mixed = token.chars().any(char::is_uppercase) && token.chars().any(char::is_lowercase);
        if mixed {
            for part in crate::words::camel_parts(token) {
                if let Some(u) = unit_of(&part, units) {
                    out.push((pos, u));
                }
                pos += 1;
            }
        } else {
            if let Some(u) = unit_of(token, units) {
                out.push((pos, u));
            }
            pos += 1;
        }
    }
}

/// Which of `units` `token` is, by its stem.
fn unit_of(token: &str, units: &[query::Unit]) -> Option<usize> {
    // A stem starts as its word does: most tokens are ruled out before stemming.
    let starts = |u: &query::Unit| {
        token
            .chars()
            .flat_map(char::to_lowercase)
            .zip(u.stem.chars())
            .take(2)
            .all(|(a, b)| a == b)
    };
    if !units.iter().any(starts) {
        return None;
    }
    let stem = crate::words::stem(&token.to_lowercase());
    units.iter().position(|u| u.stem == stem)
}

fn sql_limit(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
}

/// ` AND …` clauses for the event filters, pushing their parameters.
fn filter_sql(
    kinds: &[Kind],
    min_importance: Option<u8>,
    current_only: bool,
    params: &mut Vec<Value>,
) -> String {
    let mut sql = String::new();
    if !kinds.is_empty() {
        sql.push_str(" AND e.kind IN (");
        for (i, k) in kinds.iter().enumerate() {
            sql.push_str(if i == 0 { "?" } else { ", ?" });
            params.push(Value::Text(k.as_str().to_owned()));
        }
        sql.push(')');
    }
    if let Some(m) = min_importance {
        sql.push_str(" AND e.importance >= ?");
        params.push(Value::Integer(i64::from(m)));
    }
    if current_only {
        sql.push_str(" AND e.status = 'current'");
    }
    sql
}

/// The event filters of a search as SQL: ` AND …` clauses and their parameters.
struct Filters {
    sql: String,
    params: Vec<Value>,
}

impl Filters {
    fn new(kinds: &[Kind], min_importance: Option<u8>, current_only: bool) -> Filters {
        let mut params = Vec::new();
        let sql = filter_sql(kinds, min_importance, current_only, &mut params);
        Filters { sql, params }
    }
}

/// The best `n` matches of the FTS5 expression `expr` that pass `filters`, by BM25: only
/// rowids and ranks. SQLite's bounded sorter picks them (`ORDER BY rank` makes FTS5 sort
/// every match itself, which measured ~30% slower on common words).
fn ranked(
    conn: &Connection,
    expr: &str,
    filters: &Filters,
    n: usize,
) -> rusqlite::Result<Vec<(i64, f64)>> {
    let join = if filters.sql.is_empty() {
        ""
    } else {
        " JOIN events e ON e.seq = fts.rowid"
    };
    let sql = format!(
        "SELECT fts.rowid, {BM25} AS r FROM fts{join} WHERE fts MATCH ?{} \
         ORDER BY r, fts.rowid DESC LIMIT ?",
        filters.sql
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut p = Vec::with_capacity(filters.params.len() + 2);
    p.push(Value::Text(expr.to_owned()));
    p.extend(filters.params.iter().cloned());
    p.push(Value::Integer(sql_limit(n)));
    stmt.query_map(rusqlite::params_from_iter(p.iter()), |r| {
        Ok((r.get(0)?, r.get(1)?))
    })?
    .collect()
}

/// The rows of `found`, in order, with whether each holds `phrase` (an FTS5 phrase).
fn candidates_of(
    conn: &Connection,
    found: Vec<(i64, f64)>,
    phrase: Option<&str>,
) -> rusqlite::Result<Vec<Candidate>> {
    let mut detail = conn.prepare_cached(
        "SELECT kind, ts, importance, status, status_by, line FROM events WHERE seq = ?1",
    )?;
    let mut holds = conn.prepare_cached("SELECT 1 FROM fts WHERE fts MATCH ?1 AND rowid = ?2")?;
    let mut rows = Vec::with_capacity(found.len());
    for (seq, rank) in found {
        let exact = match phrase {
            Some(p) => holds.exists(params![p, seq])?,
            None => false,
        };
        rows.push(detail.query_row(params![seq], |r| {
            Ok(Candidate {
                exact,
                ..Candidate::from_columns(r, seq, 0, rank)?
            })
        })?);
    }
    Ok(rows)
}

/// Up to `want` more matches of `expr` that pass `filters`, in BM25 order, that are not in
/// `seen` (added to it), pushed onto `out`; true when `expr` has no more matches than were
/// read.
fn further(
    conn: &Connection,
    expr: &str,
    filters: &Filters,
    seen: &mut std::collections::HashSet<i64>,
    want: usize,
    out: &mut Vec<(i64, f64)>,
) -> rusqlite::Result<bool> {
    let n = seen.len().saturating_add(want);
    let rows = ranked(conn, expr, filters, n)?;
    let exhausted = rows.len() < n;
    let start = out.len();
    for row in rows {
        if out.len() - start == want {
            break;
        }
        if seen.insert(row.0) {
            out.push(row);
        }
    }
    Ok(exhausted)
}

/// For a question: each of the best [`ASKING_TURNS`] candidates that itself asks (its text
/// ends with `?`) weighs [`ASKING_WEIGHT`] of its score, and the event right after it, when
/// someone wrote it and it passes `filters`, at least [`REPLY_SHARE`] of the asking turn's
/// score: the answer sits in the reply. Returns the replies that were not candidates yet.
fn replies(
    conn: &Connection,
    rows: &mut [Candidate],
    filters: &Filters,
) -> rusqlite::Result<Vec<Candidate>> {
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&a, &b| {
        rows[b]
            .score
            .total_cmp(&rows[a].score)
            .then(rows[b].seq.cmp(&rows[a].seq))
    });
    let asking: Vec<(i64, f64, f64)> = order
        .into_iter()
        .take(ASKING_TURNS)
        .filter(|&i| {
            is_written(&rows[i].kind)
                && fields::extract(&rows[i].line, None).is_ok_and(|f| asks(&f.text))
        })
        .map(|i| (rows[i].seq, rows[i].score, rows[i].rank))
        .collect();
    let mut sql = "SELECT seq, kind, ts, importance, status, status_by, line FROM events e \
                   WHERE e.seq = ?"
        .to_owned();
    sql.push_str(&filters.sql);
    let mut next = conn.prepare_cached(&sql)?;
    let mut added: Vec<Candidate> = Vec::new();
    for (seq, score, rank) in asking {
        if let Some(c) = rows.iter_mut().find(|c| c.seq == seq) {
            c.score *= ASKING_WEIGHT;
        }
        let share = score * REPLY_SHARE;
        if let Some(c) = rows
            .iter_mut()
            .chain(added.iter_mut())
            .find(|c| c.seq == seq + 1)
        {
            if is_written(&c.kind) && !c.line.is_empty() {
                c.score = c.score.max(share);
            }
            continue;
        }
        let mut p = vec![Value::Integer(seq + 1)];
        p.extend(filters.params.iter().cloned());
        let reply = next
            .query_row(rusqlite::params_from_iter(p.iter()), |r| {
                Ok(Candidate {
                    score: share,
                    ..Candidate::from_columns(r, r.get(0)?, 1, rank)?
                })
            })
            .optional()?;
        if let Some(reply) = reply.filter(|c| {
            is_written(&c.kind)
                && !fields::extract(&c.line, None)
                    .is_ok_and(|f| asks(&f.text) || is_bookkeeping(&c.kind, &c.line, &f.text))
        }) {
            added.push(reply);
        }
    }
    Ok(added)
}

/// The derived index of one `.context/` folder, bound to its open ledger.
///
/// Every read ([`Index::search`], [`Index::range`], [`Index::before`], [`Index::status`])
/// first calls [`Index::catch_up`], so answers always reflect the ledger as of the call.
pub struct Index<'l> {
    ledger: &'l Ledger,
    db_dir: Utf8PathBuf,
    path: Utf8PathBuf,
    /// `None` when the file is missing or unusable: the next catch-up rebuilds it.
    conn: Option<Connection>,
    /// The (device, inode) of the file `conn` reads, to tell when another process renamed a
    /// rebuilt index over it.
    file_id: Option<(u64, u64)>,
}

/// An open index file set aside without its ledger: what a long-lived reader (a server
/// session) keeps between calls, so a call skips opening and checking the file and keeps
/// SQLite's page cache warm. [`IndexHandle::attach`] binds it to a ledger again.
pub struct IndexHandle {
    context_dir: Utf8PathBuf,
    db_dir: Utf8PathBuf,
    path: Utf8PathBuf,
    conn: Option<Connection>,
    file_id: Option<(u64, u64)>,
}

impl std::fmt::Debug for IndexHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IndexHandle")
            .field("path", &self.path)
            .field("usable", &self.conn.is_some())
            .finish_non_exhaustive()
    }
}

impl IndexHandle {
    /// The index of `context_dir` for `ledger`: this handle's connection when it still reads
    /// the file at `.context/db/context.sqlite` of that folder (a rebuilt index renamed over
    /// it by another process, or another folder, opens afresh as [`Index::open`] does). The
    /// first read catches up with the ledger as always.
    pub fn attach<'l>(self, context_dir: &Utf8Path, ledger: &'l Ledger) -> Result<Index<'l>> {
        let same_file = self.conn.is_some()
            && self.context_dir == context_dir
            && self.file_id.is_some()
            && file_id(&self.path) == self.file_id;
        if !same_file {
            return Index::open(context_dir, ledger);
        }
        Ok(Index {
            ledger,
            db_dir: self.db_dir,
            path: self.path,
            conn: self.conn,
            file_id: self.file_id,
        })
    }
}

/// The (device, inode) of `path`, not following a symlink; `None` when it is not a regular
/// file.
fn file_id(path: &Utf8Path) -> Option<(u64, u64)> {
    fs::symlink_metadata(path)
        .ok()
        .filter(fs::Metadata::is_file)
        .map(|m| (m.dev(), m.ino()))
}

impl std::fmt::Debug for Index<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index")
            .field("path", &self.path)
            .field("usable", &self.conn.is_some())
            .finish_non_exhaustive()
    }
}

impl<'l> Index<'l> {
    /// Open the index at `.context/db/context.sqlite` for `ledger`, creating `db/` (0700) when
    /// it is missing. Refuses a symlinked `db/` or index file. Nothing is indexed yet: a
    /// missing, corrupt or foreign file is noted and rebuilt by the first catch-up.
    pub fn open(context_dir: &Utf8Path, ledger: &'l Ledger) -> Result<Index<'l>> {
        let db_dir = context_dir.join(DB_DIR);
        let path = context_dir.join(DB_PATH);
        match fs::symlink_metadata(&db_dir) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(Error::Unsafe {
                    path: db_dir,
                    reason: "is a symlink; Remaind never follows a symlink out of .context/"
                        .to_owned(),
                });
            }
            Ok(m) if !m.is_dir() => {
                return Err(Error::Unsafe {
                    path: db_dir,
                    reason: "is not a folder".to_owned(),
                });
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                fs::DirBuilder::new()
                    .mode(0o700)
                    .create(&db_dir)
                    .map_err(|e| Error::io(&db_dir, "cannot create folder", e))?;
                remaind_fs::sync_dir(context_dir)?;
            }
            Err(e) => return Err(Error::io(&db_dir, "cannot inspect", e)),
        }
        let conn = match fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(Error::Unsafe {
                    path,
                    reason: "is a symlink; Remaind never follows a symlink out of .context/"
                        .to_owned(),
                });
            }
            Ok(m) if !m.is_file() => {
                return Err(Error::Unsafe {
                    path,
                    reason: "is not a regular file".to_owned(),
                });
            }
            Ok(m) => open_existing(&path, m.len())?.map(|c| (c, (m.dev(), m.ino()))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(Error::io(&path, "cannot inspect", e)),
        };
        let (conn, file_id) = conn.map_or((None, None), |(c, id)| (Some(c), Some(id)));
        Ok(Index {
            ledger,
            db_dir,
            path,
            conn,
            file_id,
        })
    }

    /// An index of `ledger` kept in `dir` (a private temporary folder the caller owns)
    /// instead of `.context/db/`: how a `.context/` the user cannot write is still searched.
    /// Built from the whole ledger on the first read.
    pub fn scratch(dir: &Utf8Path, ledger: &'l Ledger) -> Index<'l> {
        Index {
            ledger,
            db_dir: dir.to_owned(),
            path: dir.join("context.sqlite"),
            conn: None,
            file_id: None,
        }
    }

    /// Set the open index aside without its ledger, for [`IndexHandle::attach`] later.
    pub fn detach(self) -> IndexHandle {
        let context_dir = self
            .db_dir
            .parent()
            .map_or_else(|| self.db_dir.clone(), Utf8Path::to_owned);
        IndexHandle {
            context_dir,
            db_dir: self.db_dir,
            path: self.path,
            conn: self.conn,
            file_id: self.file_id,
        }
    }

    /// The index file.
    pub fn path(&self) -> &Utf8Path {
        &self.path
    }

    /// How far the index is behind the ledger, without changing anything.
    pub fn freshness(&self) -> Result<Freshness> {
        let (head, head_hash) = self.ledger.head()?;
        let meta = self
            .conn
            .as_ref()
            .and_then(|c| read_meta(c).ok().flatten())
            .filter(|m| m.version == SCHEMA_VERSION);
        Ok(match meta {
            None => Freshness {
                indexed_seq: 0,
                ledger_head: head,
                stale: true,
            },
            Some(m) => {
                let stale = m.last_seq != head || m.last_hash != head_hash;
                Freshness {
                    indexed_seq: m.last_seq,
                    ledger_head: head,
                    stale,
                }
            }
        })
    }

    /// Bring the index up to the ledger head: index only the new events (one transaction)
    /// when the index matches the ledger; rebuild from scratch when it is missing, corrupt,
    /// from another schema version, or its recorded chain hash differs from the ledger's.
    pub fn catch_up(&mut self) -> Result<CatchUp> {
        for _ in 0..3 {
            match self.plan()? {
                Plan::Fresh => return Ok(CatchUp::Fresh),
                Plan::Rebuild => return self.rebuild(&mut |_, _| {}).map(CatchUp::Rebuilt),
                Plan::Append(meta) => match self.append(&meta) {
                    Ok(Some(n)) => return Ok(CatchUp::Indexed(n)),
                    // Another process moved the index meanwhile: look again.
                    Ok(None) => {}
                    Err(Retry::Rebuild) => {
                        return self.rebuild(&mut |_, _| {}).map(CatchUp::Rebuilt);
                    }
                    Err(Retry::Fail(e)) => return Err(e),
                },
            }
        }
        // The index keeps moving under us (busy writers); a rebuild settles it.
        self.rebuild(&mut |_, _| {}).map(CatchUp::Rebuilt)
    }

    /// Like [`Index::catch_up`], but never rebuilds: index only new events, and return
    /// `Ok(false)` when only a rebuild would make the index match the ledger (missing,
    /// corrupt, another schema version, another chain). For readers that can answer from the
    /// ledger instead and should not pay for a full rebuild.
    pub fn catch_up_incremental(&mut self) -> Result<bool> {
        for _ in 0..3 {
            match self.plan()? {
                Plan::Fresh => return Ok(true),
                Plan::Rebuild => return Ok(false),
                Plan::Append(meta) => match self.append(&meta) {
                    Ok(Some(_)) => return Ok(true),
                    Ok(None) => {}
                    Err(Retry::Rebuild) => return Ok(false),
                    Err(Retry::Fail(e)) => return Err(e),
                },
            }
        }
        Ok(false)
    }

    fn plan(&self) -> Result<Plan> {
        let Some(conn) = &self.conn else {
            return Ok(Plan::Rebuild);
        };
        let meta = match read_meta(conn) {
            Ok(Some(m)) if m.version == SCHEMA_VERSION => m,
            Ok(_) => return Ok(Plan::Rebuild),
            Err(e) if is_environmental(&e) => return Err(Error::db(&self.path, "cannot read", e)),
            Err(_) => return Ok(Plan::Rebuild),
        };
        let (head, head_hash) = self.ledger.head()?;
        if meta.last_seq > head {
            return Ok(Plan::Rebuild);
        }
        if meta.last_seq == head {
            return Ok(if meta.last_hash == head_hash {
                Plan::Fresh
            } else {
                Plan::Rebuild
            });
        }
        match self.ledger.digest_at(meta.last_seq)? {
            Some(d) if d == meta.last_hash => Ok(Plan::Append(meta)),
            _ => Ok(Plan::Rebuild),
        }
    }

    /// Index the events after `meta.last_seq` in one transaction. `Ok(None)` when another
    /// process changed the index since `meta` was read.
    fn append(&mut self, meta: &Meta) -> Result<Option<u64>, Retry> {
        let path = self.path.clone();
        let Some(conn) = self.conn.as_mut() else {
            return Err(Retry::Rebuild);
        };
        let sql_err = |action: &'static str| {
            let path = path.clone();
            move |e: rusqlite::Error| {
                if is_environmental(&e) {
                    Retry::Fail(Error::db(path, action, e))
                } else {
                    Retry::Rebuild
                }
            }
        };
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql_err("cannot lock"))?;
        match read_meta(&tx).map_err(sql_err("cannot read"))? {
            Some(now) if now == *meta => {}
            _ => return Ok(None),
        }
        // Not at a line start: the ledger is not what the index recorded.
        let Some(mut lines) = self
            .ledger
            .raw_lines(meta.end_offset)
            .map_err(|e| Retry::Fail(e.into()))?
        else {
            return Err(Retry::Rebuild);
        };
        let done = match index_lines(
            &tx,
            &mut lines,
            meta.end_offset,
            self.ledger,
            meta.last_seq + 1,
            &mut |_| {},
        ) {
            Ok(Some(done)) => done,
            // The line at the recorded offset is not the next event: the ledger is not what
            // the index recorded.
            Ok(None) => return Err(Retry::Rebuild),
            Err(IndexError::Sql(e)) => return Err(sql_err("cannot write")(e)),
            Err(IndexError::Other(e)) => return Err(Retry::Fail(e)),
        };
        if done.count > 0 {
            write_meta(&tx, &done).map_err(sql_err("cannot write"))?;
        }
        tx.commit().map_err(sql_err("cannot commit"))?;
        Ok(Some(done.count))
    }

    /// Rebuild the index from scratch, reporting `(events done, events total)`. Returns the
    /// number of events indexed.
    ///
    /// The new index is built in a temporary file beside the old one (one transaction,
    /// prepared statements, no journal, no syncs), synced
    /// once, and renamed over the old file, so a crash leaves either index intact.
    pub fn rebuild(&mut self, progress: &mut dyn FnMut(u64, u64)) -> Result<u64> {
        self.conn = None;
        self.file_id = None;
        let (head, _) = self.ledger.head()?;
        // Removed on drop unless persisted: a failed build leaves nothing behind.
        let tmp = remaind_fs::create_temp(&self.db_dir)?.into_temp_path();
        let tmp_path = Utf8Path::from_path(&tmp).ok_or_else(|| Error::Unsafe {
            path: self.db_dir.clone(),
            reason: "the temporary index path is not UTF-8".to_owned(),
        })?;
        let count = self.build(tmp_path, head, progress)?;
        for suffix in ["-journal", "-wal", "-shm"] {
            let stale = Utf8PathBuf::from(format!("{}{suffix}", self.path));
            match fs::remove_file(&stale) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(&stale, "cannot remove", e)),
            }
        }
        tmp.persist(&self.path)
            .map_err(|e| Error::io(&self.path, "cannot replace", e.error))?;
        remaind_fs::sync_dir(&self.db_dir)?;
        let meta =
            fs::metadata(&self.path).map_err(|e| Error::io(&self.path, "cannot inspect", e))?;
        self.conn = open_existing(&self.path, meta.len())?;
        self.file_id = Some((meta.dev(), meta.ino()));
        if self.conn.is_none() {
            return Err(Error::Unsafe {
                path: self.path.clone(),
                reason: "the rebuilt index cannot be read back".to_owned(),
            });
        }
        Ok(count)
    }

    fn build(&self, tmp: &Utf8Path, head: u64, progress: &mut dyn FnMut(u64, u64)) -> Result<u64> {
        let db = |action| {
            let tmp = tmp.to_owned();
            move |e| Error::db(tmp, action, e)
        };
        let mut conn = Connection::open_with_flags(tmp, open_flags()).map_err(db("cannot open"))?;
        conn.execute_batch(
            "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -65536; \
             PRAGMA temp_store = MEMORY; PRAGMA locking_mode = EXCLUSIVE;",
        )
        .map_err(db("cannot configure"))?;
        conn.execute_batch(schema::TABLES)
            .map_err(db("cannot create tables"))?;
        let log_path = self.ledger.log_path().to_owned();
        let tx = conn.transaction().map_err(db("cannot begin"))?;
        let mut lines = self
            .ledger
            .raw_lines(0)?
            .ok_or_else(|| Error::CorruptLedger {
                path: log_path.clone(),
                offset: 0,
                reason: "the log cannot be read from its start".to_owned(),
            })?;
        progress(0, head);
        let done = match index_lines(&tx, &mut lines, 0, self.ledger, 1, &mut |n| {
            progress(n, head.max(n))
        }) {
            Ok(Some(done)) => done,
            Ok(None) => {
                return Err(Error::CorruptLedger {
                    path: log_path,
                    offset: 0,
                    reason: "the first line is not event 1".to_owned(),
                });
            }
            Err(IndexError::Sql(e)) => return Err(db("cannot write")(e)),
            Err(IndexError::Other(e)) => return Err(e),
        };
        tx.execute_batch(schema::INDEXES)
            .map_err(db("cannot create indexes"))?;
        write_meta(&tx, &done).map_err(db("cannot write"))?;
        tx.commit().map_err(db("cannot commit"))?;
        conn.close().map_err(|(_, e)| db("cannot close")(e))?;
        File::open(tmp)
            .and_then(|f| f.sync_all())
            .map_err(|e| Error::io(tmp, "cannot sync", e))?;
        progress(done.count, head.max(done.count));
        Ok(done.count)
    }

    /// Run a read, rebuilding once if the file turns out to be corrupt.
    fn read<T>(&mut self, f: impl Fn(&Connection) -> rusqlite::Result<T>) -> Result<T> {
        self.catch_up()?;
        let first = match &self.conn {
            Some(conn) => f(conn),
            None => {
                return Err(Error::Unsafe {
                    path: self.path.clone(),
                    reason: "the index is not open".to_owned(),
                });
            }
        };
        match first {
            Ok(v) => Ok(v),
            Err(e) if is_corruption(&e) => {
                self.rebuild(&mut |_, _| {})?;
                let conn = self.conn.as_ref().ok_or_else(|| Error::Unsafe {
                    path: self.path.clone(),
                    reason: "the index is not open".to_owned(),
                })?;
                f(conn).map_err(|e| Error::db(&self.path, "cannot read", e))
            }
            Err(e) => Err(Error::db(&self.path, "cannot read", e)),
        }
    }

    /// Ranked full-text search over what each event holds: its text, the tool's name, input
    /// and output (with the text of large outputs routed to artifacts), and the identifier
    /// forms of all of them.
    ///
    /// A plain query is a ranked OR: BM25 over the query's words (stemmed, stop words
    /// dropped, identifiers in every spelling), plus the whole query as a phrase; when enough
    /// events hold every word, the candidates are those alone (far cheaper than scoring every
    /// event that holds a common word, and BM25 puts them first anyway). The best candidates
    /// are then ordered by that score weighted by the event's kind and importance,
    /// by the share of the query's words it holds as written, by neighbouring query words
    /// close together, by the share of the query (each word weighted by its rarity) that one
    /// stretch of 30 tokens holds, by holding the whole query as one phrase, and, for a
    /// question, by being an event someone wrote rather than a tool's call, result or file
    /// change; ties go to the newer event. A question about what the user said ("what did the user ask about …") puts the
    /// user's messages first. A query that finds nothing is tried once more with its words as
    /// prefixes. A raw FTS5 query is ordered by BM25 alone.
    ///
    /// A plain query never fails to parse; one with nothing searchable, or a raw FTS5 query
    /// with a syntax error, is an [`Error::InvalidQuery`].
    ///
    /// A query is bounded first (see [`Index::search_bounded`]).
    pub fn search(&mut self, query: &str, opts: &SearchOptions) -> Result<Vec<Hit>> {
        Ok(self.search_bounded(query, opts)?.hits)
    }

    /// [`Index::search`], saying how the query was bounded: a word repeated is searched
    /// once, and at most [`MAX_QUERY_TERMS`](crate::MAX_QUERY_TERMS) distinct terms of the first
    /// [`MAX_QUERY_CHARS`](crate::MAX_QUERY_CHARS) characters are searched (a raw FTS5 query that is a list of terms
    /// joined by one operator is cut the same way; any other raw query past the limits is an
    /// [`Error::InvalidQuery`]), so what a search costs is bounded whatever the query.
    pub fn search_bounded(&mut self, query: &str, opts: &SearchOptions) -> Result<Searched> {
        let (plan, raw) = match opts.syntax {
            Syntax::Plain => (Some(query::plain(query).map_err(Error::query)?), None),
            Syntax::Fts5 => {
                if query.trim().is_empty() {
                    return Err(Error::query("the query is empty"));
                }
                (None, Some(query::bound_raw(query).map_err(Error::query)?))
            }
        };
        let bounds = match (&plan, &raw) {
            (Some(plan), _) => plan.bounds,
            (_, Some((_, bounds))) => *bounds,
            (None, None) => QueryBounds::default(),
        };
        if opts.limit == 0 {
            // Still reject a bad raw query, so `--limit 0` can check syntax.
            if let Some((raw, _)) = &raw {
                self.check_fts(raw)?;
            }
            return Ok(Searched {
                hits: Vec::new(),
                bounds,
                phrases_as_words: Vec::new(),
            });
        }
        let mut phrases_as_words = Vec::new();
        let hits = match (plan, raw) {
            (Some(plan), _) => {
                let hits = self.search_plain(&plan, opts)?;
                // Quotes in a question ("the game \"Xenoblade Chronicles\"") name a title the
                // events may spell a little differently: when the exact phrase finds nothing,
                // its words are searched ranked like the rest, and the caller is told.
                if hits.is_empty() && !plan.phrases.is_empty() {
                    let words = query::plain(&query::unquoted(query)).map_err(Error::query)?;
                    phrases_as_words = plan.phrases.clone();
                    self.search_plain(&words, opts)?
                } else {
                    hits
                }
            }
            (None, Some((raw, _))) => self.search_raw(&raw, opts)?,
            (None, None) => Vec::new(),
        };
        Ok(Searched {
            hits,
            bounds,
            phrases_as_words,
        })
    }

    /// A plain query: the best [`POOL`] candidates by BM25, ranked again by [`score`] (for a
    /// question, an asking turn's reply ranked with it), then any further matches in BM25
    /// order up to the limit.
    fn search_plain(&mut self, plan: &query::Plan, opts: &SearchOptions) -> Result<Vec<Hit>> {
        let filters = Filters::new(&opts.kinds, opts.min_importance, opts.current_only);
        // The speaker's events are looked for on their own too, so that a few of them are
        // candidates however many other events hold the words.
        let speaker = plan
            .speaker
            .filter(|k| opts.kinds.is_empty() || opts.kinds.iter().any(|x| x.as_str() == *k));
        let by_speaker = speaker.map(|k| {
            let kind = k.parse::<Kind>().map_or_else(|_| Vec::new(), |k| vec![k]);
            Filters::new(&kind, opts.min_importance, opts.current_only)
        });
        let limit = opts.limit;
        let (mut rows, mut rest) = self.read(|conn| {
            // Which expression the candidates come from is decided on POOL alone, never on
            // the limit.
            let mut source = plan.every.as_deref();
            let mut found = match source {
                Some(every) => ranked(conn, every, &filters, POOL)?,
                None => Vec::new(),
            };
            if found.len() < POOL {
                source = Some(plan.expr.as_str());
                found = ranked(conn, &plan.expr, &filters, POOL)?;
            }
            if found.is_empty()
                && let Some(loose) = &plan.loose
            {
                source = Some(loose.as_str());
                found = ranked(conn, loose, &filters, POOL)?;
            }
            let full = found.len() == POOL;
            if let Some(f) = &by_speaker {
                let more = ranked(conn, &plan.expr, f, POOL)?;
                for (seq, rank) in more {
                    if !found.iter().any(|(s, _)| *s == seq) {
                        found.push((seq, rank));
                    }
                }
            }
            // Past the pool, the matches in BM25 order: those of the expression the pool came
            // from, then (when that was every word and it ran out) those of any word.
            let mut rest = Vec::new();
            if full && limit > found.len() {
                let mut seen: std::collections::HashSet<i64> =
                    found.iter().map(|(s, _)| *s).collect();
                let want = limit - found.len();
                let source = source.unwrap_or(&plan.expr);
                let exhausted = further(conn, source, &filters, &mut seen, want, &mut rest)?;
                if rest.len() < want && exhausted && source != plan.expr {
                    let want = want - rest.len();
                    further(conn, &plan.expr, &filters, &mut seen, want, &mut rest)?;
                }
            }
            let mut rows = candidates_of(conn, found, plan.phrase.as_deref())?;
            let mut rest = candidates_of(conn, rest, plan.phrase.as_deref())?;
            let weights = unit_weights(conn, &plan.units)?;
            for c in rows.iter_mut().chain(rest.iter_mut()) {
                c.score = score(c, plan, &weights);
            }
            if plan.question {
                let more = replies(conn, &mut rows, &filters)?;
                rows.extend(more);
            }
            Ok((rows, rest))
        })?;
        // The speaker's events first, then the best score, the newer event on a tie.
        let first = |c: &Candidate| speaker.is_some_and(|k| c.kind == k);
        rows.sort_by(|a, b| {
            first(b)
                .cmp(&first(a))
                .then(b.score.total_cmp(&a.score))
                .then(b.seq.cmp(&a.seq))
        });
        rows.truncate(limit);
        let room = limit - rows.len();
        rest.truncate(room);
        rows.extend(rest);
        rows.into_iter()
            .map(|c| self.hit(c, &plan.needles))
            .collect()
    }

    /// A raw FTS5 query, ordered by BM25 alone.
    fn search_raw(&mut self, query: &str, opts: &SearchOptions) -> Result<Vec<Hit>> {
        let filters = Filters::new(&opts.kinds, opts.min_importance, opts.current_only);
        let result = self.read(|conn| {
            let found = ranked(conn, query, &filters, opts.limit)?;
            candidates_of(conn, found, None)
        });
        let mut rows = match result {
            Ok(rows) => rows,
            Err(Error::Database { source, .. }) if is_syntax_error(source.as_ref()) => {
                return Err(fts_syntax_error());
            }
            Err(e) => return Err(e),
        };
        for c in &mut rows {
            c.score = -c.rank;
        }
        let needles = query::raw_needles(query);
        rows.into_iter().map(|c| self.hit(c, &needles)).collect()
    }

    /// A hit from a candidate: its status, and the field and snippet that matched (artifacts
    /// read again, bounded as when indexed).
    fn hit(&self, c: Candidate, needles: &[Needle]) -> Result<Hit> {
        let seq = u64::try_from(c.seq).unwrap_or(0);
        let kind: Kind = c
            .kind
            .parse()
            .map_err(|e: remaind_events::Error| Error::Unsafe {
                path: self.path.clone(),
                reason: e.to_string(),
            })?;
        let fields =
            fields::extract(&c.line, Some(self.ledger)).map_err(|e| Error::CorruptLedger {
                path: self.ledger.log_path().to_owned(),
                offset: 0,
                reason: format!("event {seq} is not a valid event: {e}"),
            })?;
        let (field, snippet) = snippet::best(&fields, needles);
        Ok(Hit {
            id: EventId(seq),
            seq,
            kind,
            ts: c.ts,
            importance: u8::try_from(c.importance).unwrap_or(0),
            status: status_of(&c.status, c.status_by.as_deref()),
            field,
            snippet,
            rank: c.rank,
            score: c.score,
            exact: c.exact,
        })
    }

    fn check_fts(&mut self, expr: &str) -> Result<()> {
        let expr = expr.to_owned();
        match self.read(|conn| {
            conn.query_row(
                "SELECT count(*) FROM (SELECT 1 FROM fts WHERE fts MATCH ?1 LIMIT 1)",
                [&expr],
                |r| r.get::<_, i64>(0),
            )
        }) {
            Ok(_) => Ok(()),
            Err(Error::Database { source, .. }) if is_syntax_error(source.as_ref()) => {
                Err(fts_syntax_error())
            }
            Err(e) => Err(e),
        }
    }

    /// Up to `limit` events with seq `>= from` that pass `filter`, in order; the same events
    /// as [`Ledger::range`].
    pub fn range(&mut self, from: u64, limit: usize, filter: &Filter) -> Result<Vec<Event>> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let mut params = vec![Value::Integer(
            i64::try_from(from.max(1)).unwrap_or(i64::MAX),
        )];
        let filters = filter_sql(&filter.kinds, filter.min_importance, false, &mut params);
        params.push(Value::Integer(sql_limit(limit)));
        let sql = format!(
            "SELECT e.seq, e.line FROM events e WHERE e.seq >= ?{filters} ORDER BY e.seq LIMIT ?"
        );
        let lines = self.read(|conn| lines_query(conn, &sql, &params))?;
        self.parse_lines(lines)
    }

    /// Up to `limit` events with seq `< seq` that pass `filter`, the closest ones, in
    /// ascending order; the same events as [`Ledger::before`].
    pub fn before(&mut self, seq: u64, limit: usize, filter: &Filter) -> Result<Vec<Event>> {
        if limit == 0 || seq <= 1 {
            return Ok(Vec::new());
        }
        let mut params = vec![Value::Integer(i64::try_from(seq).unwrap_or(i64::MAX))];
        let filters = filter_sql(&filter.kinds, filter.min_importance, false, &mut params);
        params.push(Value::Integer(sql_limit(limit)));
        let sql = format!(
            "SELECT e.seq, e.line FROM events e WHERE e.seq < ?{filters} ORDER BY e.seq DESC LIMIT ?"
        );
        let mut lines = self.read(|conn| lines_query(conn, &sql, &params))?;
        lines.reverse();
        self.parse_lines(lines)
    }

    /// The open loops: the newest `limit` events of [`LOOP_KINDS`] that no later event
    /// superseded or resolved, oldest first. The one answer `remaind loops list`, MCP
    /// `open_loops` and the viewer give.
    pub fn open_loops(&mut self, limit: usize) -> Result<Vec<Event>> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let mut params = Vec::new();
        let filters = filter_sql(&LOOP_KINDS, None, true, &mut params);
        params.push(Value::Integer(sql_limit(limit)));
        let sql = format!(
            "SELECT e.seq, e.line FROM events e WHERE 1 = 1{filters} ORDER BY e.seq DESC LIMIT ?"
        );
        let mut lines = self.read(|conn| lines_query(conn, &sql, &params))?;
        lines.reverse();
        self.parse_lines(lines)
    }

    /// Whether `id` is current, superseded or resolved; `None` if it does not exist. The same
    /// answer as [`Ledger::status`].
    pub fn status(&mut self, id: EventId) -> Result<Option<Status>> {
        let seq = i64::try_from(id.seq()).unwrap_or(i64::MAX);
        let row = self.read(|conn| {
            conn.query_row(
                "SELECT status, status_by FROM events WHERE seq = ?1",
                [seq],
                |r| Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?)),
            )
            .optional()
        })?;
        Ok(row.map(|(s, by)| status_of(&s, by.as_deref())))
    }

    fn parse_lines(&self, lines: Vec<(i64, String)>) -> Result<Vec<Event>> {
        lines
            .into_iter()
            .map(|(seq, line)| {
                serde_json::from_str::<Event>(&line).map_err(|e| Error::CorruptLedger {
                    path: self.ledger.log_path().to_owned(),
                    offset: 0,
                    reason: format!("event {seq} is not a valid event: {e}"),
                })
            })
            .collect()
    }
}

enum Retry {
    Rebuild,
    Fail(Error),
}

enum IndexError {
    Sql(rusqlite::Error),
    Other(Error),
}

impl From<rusqlite::Error> for IndexError {
    fn from(e: rusqlite::Error) -> Self {
        IndexError::Sql(e)
    }
}

fn is_syntax_error(e: &(dyn std::error::Error + Send + Sync + 'static)) -> bool {
    e.downcast_ref::<rusqlite::Error>()
        .is_some_and(|e| e.sqlite_error_code() == Some(ErrorCode::Unknown))
}

fn fts_syntax_error() -> Error {
    Error::query(
        "not valid FTS5 syntax: check quotes, parentheses, column names (text, tool, input, \
         output, parts) \
         and operators (AND, OR, NOT, NEAR); the plain syntax searches words literally",
    )
}

fn lines_query(
    conn: &Connection,
    sql: &str,
    params: &[Value],
) -> rusqlite::Result<Vec<(i64, String)>> {
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt.query_map(rusqlite::params_from_iter(params.iter()), |r| {
        Ok((r.get(0)?, r.get(1)?))
    })?;
    rows.collect()
}

fn open_flags() -> OpenFlags {
    OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_NOFOLLOW
}

/// Open an existing index file; `None` when it is not a usable index of this version.
fn open_existing(path: &Utf8Path, len: u64) -> Result<Option<Connection>> {
    let conn = match Connection::open_with_flags(path, open_flags()) {
        Ok(c) => c,
        Err(e) if is_environmental(&e) => return Err(Error::db(path, "cannot open", e)),
        Err(_) => return Ok(None),
    };
    conn.busy_timeout(BUSY_TIMEOUT)
        .map_err(|e| Error::db(path, "cannot configure", e))?;
    let check = || -> rusqlite::Result<bool> {
        let page_size: i64 = conn.query_row("PRAGMA page_size", [], |r| r.get(0))?;
        let pages: i64 = conn.query_row("PRAGMA page_count", [], |r| r.get(0))?;
        // A truncated file: SQLite would read the missing pages as zeros.
        if u64::try_from(page_size.saturating_mul(pages)).unwrap_or(u64::MAX) > len {
            return Ok(false);
        }
        let meta = read_meta(&conn)?;
        let Some(meta) = meta.filter(|m| m.version == SCHEMA_VERSION) else {
            return Ok(false);
        };
        // The last indexed row must be there.
        let max: Option<i64> = conn.query_row("SELECT max(seq) FROM events", [], |r| r.get(0))?;
        Ok(u64::try_from(max.unwrap_or(0)).ok() == Some(meta.last_seq))
    };
    match check() {
        Ok(true) => {
            // Reads map the file instead of copying pages; a query touches few enough pages
            // that a modest page cache holds them.
            conn.execute_batch(
                "PRAGMA synchronous = NORMAL; PRAGMA mmap_size = 1073741824; \
                 PRAGMA cache_size = -16384; PRAGMA temp_store = MEMORY;",
            )
            .map_err(|e| Error::db(path, "cannot configure", e))?;
            Ok(Some(conn))
        }
        Ok(false) => Ok(None),
        Err(e) if is_environmental(&e) => Err(Error::db(path, "cannot read", e)),
        Err(_) => Ok(None),
    }
}

fn read_meta(conn: &Connection) -> rusqlite::Result<Option<Meta>> {
    let mut stmt = conn.prepare_cached("SELECT key, value FROM meta")?;
    let mut rows = stmt.query([])?;
    let (mut version, mut last_seq, mut last_hash, mut end_offset) = (None, None, None, None);
    while let Some(r) = rows.next()? {
        let key: String = r.get(0)?;
        match key.as_str() {
            "schema_version" => version = r.get::<_, i64>(1).ok(),
            "last_seq" => last_seq = r.get::<_, i64>(1).ok().and_then(|v| u64::try_from(v).ok()),
            "last_hash" => last_hash = r.get::<_, String>(1).ok(),
            "end_offset" => {
                end_offset = r.get::<_, i64>(1).ok().and_then(|v| u64::try_from(v).ok())
            }
            _ => {}
        }
    }
    Ok(match (version, last_seq, last_hash, end_offset) {
        (Some(version), Some(last_seq), Some(last_hash), Some(end_offset)) => Some(Meta {
            version,
            last_seq,
            last_hash,
            end_offset,
        }),
        _ => None,
    })
}

fn write_meta(tx: &Transaction<'_>, done: &Indexed) -> rusqlite::Result<()> {
    let mut put = tx.prepare_cached(schema::PUT_META)?;
    put.execute(params!["schema_version", SCHEMA_VERSION])?;
    put.execute(params![
        "last_seq",
        i64::try_from(done.last_seq).unwrap_or(i64::MAX)
    ])?;
    put.execute(params!["last_hash", done.last_hash])?;
    put.execute(params![
        "end_offset",
        i64::try_from(done.end_offset).unwrap_or(i64::MAX)
    ])?;
    Ok(())
}

/// Index every complete line from `lines` (which start at byte `start`), expecting seqs from
/// `first_seq` on, reading the text of the artifacts they name from `ledger`'s store.
/// `Ok(None)` when the first line is not `first_seq`.
fn index_lines(
    tx: &Transaction<'_>,
    lines: impl Iterator<Item = remaind_ledger::Result<Vec<u8>>>,
    start: u64,
    ledger: &Ledger,
    first_seq: u64,
    progress: &mut dyn FnMut(u64),
) -> Result<Option<Indexed>, IndexError> {
    let log_path = ledger.log_path();
    let mut insert = tx.prepare_cached(schema::INSERT_EVENT)?;
    let mut insert_fts = tx.prepare_cached(schema::INSERT_FTS)?;
    let mut supersede = tx.prepare_cached(schema::SUPERSEDE)?;
    let mut resolve = tx.prepare_cached(schema::RESOLVE)?;
    let mut expected = first_seq;
    let mut last = Vec::new();
    let mut end_offset = start;
    for read in lines {
        let line = read.map_err(|e| IndexError::Other(e.into()))?;
        let offset = end_offset;
        let corrupt = |reason: String| {
            IndexError::Other(Error::CorruptLedger {
                path: log_path.to_owned(),
                offset,
                reason,
            })
        };
        let text = std::str::from_utf8(&line).map_err(|e| corrupt(format!("not UTF-8: {e}")))?;
        let row: Row<'_> = serde_json::from_str(text)
            .map_err(|e| corrupt(format!("not a readable event: {e}")))?;
        if row.seq != expected {
            if expected == first_seq {
                return Ok(None);
            }
            return Err(corrupt(format!(
                "expected seq {expected}, found {}",
                row.seq
            )));
        }
        let seq = i64::try_from(row.seq).map_err(|_| corrupt("seq out of range".to_owned()))?;
        let id = EventId(row.seq).to_string();
        insert.execute(params![
            seq,
            id,
            row.kind.as_str(),
            row.importance,
            row.ts.as_ref(),
            row.actor.as_deref(),
            text,
        ])?;
        let f = fields::from_parts(
            row.text.as_deref(),
            row.tool.as_ref(),
            &row.artifact,
            Some(ledger),
        );
        let none_if_empty = |s: &str| (!s.is_empty()).then(|| s.to_owned());
        insert_fts.execute(params![
            seq,
            none_if_empty(&f.text),
            none_if_empty(&f.tool),
            none_if_empty(&f.input),
            none_if_empty(&f.output),
            none_if_empty(&f.identifier_forms()),
        ])?;
        for target in &row.supersedes {
            supersede.execute(params![i64::try_from(target.seq()).unwrap_or(i64::MAX), id])?;
        }
        for target in &row.resolves {
            resolve.execute(params![i64::try_from(target.seq()).unwrap_or(i64::MAX), id])?;
        }
        end_offset = offset + line.len() as u64 + 1;
        last = line;
        expected += 1;
        let done = expected - first_seq;
        if done.is_multiple_of(PROGRESS_EVERY) {
            progress(done);
        }
    }
    let count = expected - first_seq;
    Ok(Some(Indexed {
        count,
        last_seq: expected - 1,
        last_hash: match count {
            0 if first_seq == 1 => remaind_events::GENESIS_PREV.to_owned(),
            0 => String::new(),
            _ => sha256_hex(&last),
        },
        end_offset,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> fields::Fields {
        fields::Fields {
            text: s.to_owned(),
            ..fields::Fields::default()
        }
    }

    #[test]
    fn held_together_weighs_the_query_words_one_stretch_holds() {
        let units = query::plain("esbuild stylesheet").unwrap().units;
        // esbuild rare (weight 3), stylesheet common (weight 1).
        let weights = [3.0, 1.0];
        let close = text("The stylesheets are not built by esbuild at all");
        assert_eq!(held_together(&close, &units, &weights), 1.0);
        let far = format!("stylesheet {} esbuild", "word ".repeat(WINDOW_TOKENS));
        assert_eq!(held_together(&text(&far), &units, &weights), 0.75);
        // CamelCase tokens count as their parts; a word in no form known still weighs the
        // lightest unit.
        let units = query::plain("session registry").unwrap().units;
        let camel = text("ActiveSessionRegistry");
        assert_eq!(held_together(&camel, &units, &[1.0, 1.0]), 1.0);
        assert_eq!(held_together(&text("nothing"), &units, &[1.0, 3.0]), 0.25);
        // Nothing to weigh: no change.
        assert_eq!(held_together(&close, &units, &[]), 1.0);
    }

    #[test]
    fn date_notes_and_runtime_records_are_bookkeeping() {
        assert!(CALENDAR_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(is_date_note("Session 3 date: 1:56 pm on 8 May, 2023"));
        assert!(!is_date_note(
            "Classes start on the 4th of September, three evenings a week"
        ));
        assert!(!is_date_note(""));
        let line = r#"{"kind":"note","data":{"via":"notification"}}"#;
        assert!(is_bookkeeping("note", line, "Claude needs your permission"));
        assert!(is_bookkeeping("compaction", "{}", "state"));
        assert!(!is_bookkeeping("note", "{}", "We keep the sandbox strict"));
        // What people said is never bookkeeping, dates or not.
        assert!(!is_bookkeeping(
            "user_message",
            "{}",
            "9:12 am on 3 January 2023"
        ));
    }

    #[test]
    fn questions_weigh_written_events_over_tool_output() {
        assert!(is_written("assistant_message") && is_written("decision"));
        assert!(!is_written("tool_result") && !is_written("file_change"));
    }
}
