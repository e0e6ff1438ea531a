//! One search for every front-end (`remaind search`, the MCP `search` tool, the viewer's
//! Search page): the folder's index, or the shared store's full text on the server, with the
//! same hits either way, the query's bounds, the phrase fallback and each hit's neighbours.

use camino::Utf8Path;
use remaind_events::Filter;
use remaind_events::{Event, Status};
use remaind_fs::ContextDir;
use remaind_index::{Hit, Index, MAX_QUERY_CHARS, MAX_QUERY_TERMS, QueryBounds, Searched};
use remaind_ledger::Ledger;
use serde_json::json;

use crate::{Error, Result};

/// Where [`search`] looks.
#[non_exhaustive]
pub enum Source<'a, 'l> {
    /// The folder's index (`db/context.sqlite`), brought up to the ledger's head first and
    /// rebuilt if it is missing, stale or corrupt. When it cannot be used at all (a folder
    /// this user cannot write), a temporary index built from the ledger is searched instead
    /// and [`Found::index_note`] says so.
    Folder(&'a ContextDir),
    /// An index the caller keeps open between searches (a server session).
    Index(&'a mut Index<'l>),
    /// The shared store's full-text search on the server (PostgreSQL): for a machine that
    /// keeps no folder. English stems, no identifier splitting, no status
    /// ([`Found::status_known`] is false), no raw FTS5 syntax and no `current_only`.
    #[cfg(feature = "store")]
    Store(&'a remaind_ledger::StoreSetting),
}

/// Which hits [`search`] returns, and what comes with them: the index's own options, then
/// the page, the time range and the neighbours.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SearchOptions {
    /// The kinds, importance, current-only, limit and syntax, as the folder's index takes them.
    pub filter: remaind_index::SearchOptions,
    /// Skip this many hits first (the next page).
    pub offset: usize,
    /// Only events logged at or after this time, in the ledger's own `ts` format
    /// (`2025-06-01T12:00:00.000000Z`, so that comparing strings compares times).
    pub since: Option<String>,
    /// Only events logged before this time, in the same format as `since`.
    pub until: Option<String>,
    /// Bring each hit's this many neighbouring events on each side ([`Match::around`]).
    pub context: usize,
}

/// One hit and its neighbours.
#[derive(Debug, Clone, PartialEq)]
pub struct Match {
    /// The hit, as the folder's index gives it (a store's hit is mapped into it: the part
    /// that matched is `text` when the event has a text, else `input`; its rank is the
    /// store's, as `rank` and `score`; never an exact phrase).
    pub hit: Hit,
    /// With [`SearchOptions::context`]: the events around the hit, oldest first, the hit
    /// itself left out.
    pub around: Vec<Event>,
}

/// What [`search`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// The hits, best first.
    pub hits: Vec<Match>,
    /// False when the source cannot know whether an event is current (the shared store: it
    /// needs every later event); each hit's `status` then says current and means nothing.
    pub status_known: bool,
    /// How the query was bounded: [`QueryBounds::cut`] when part of it was not searched.
    pub bounds: QueryBounds,
    /// The query's quoted phrases when no event held them and their words were searched as
    /// ordinary ranked words instead (empty when the query was searched as typed).
    pub phrases_as_words: Vec<String>,
    /// Set when the folder's index could not be used and a temporary index built from the
    /// ledger was searched instead: a sentence saying why, to show before the hits.
    pub index_note: Option<String>,
}

impl Found {
    /// What to say when quoted phrases found nothing and their words were searched as
    /// ranked words instead.
    pub fn fallback_note(&self) -> Option<String> {
        if self.phrases_as_words.is_empty() {
            return None;
        }
        let quoted: Vec<String> = self
            .phrases_as_words
            .iter()
            .map(|p| format!("\"{p}\""))
            .collect();
        Some(format!(
            "no event holds {} as an exact phrase; searched its words as ranked words instead",
            quoted.join(", ")
        ))
    }

    /// What to say when part of the query was not searched.
    pub fn cut_note(&self) -> Option<String> {
        let b = Some(self.bounds).filter(QueryBounds::cut)?;
        Some(format!(
            "the query was cut to its first {} distinct terms within {MAX_QUERY_CHARS} characters \
             ({} terms and {} characters left out)",
            b.terms, b.dropped_terms, b.cut_chars
        ))
    }

    /// The document `remaind search --json` prints for `query`: `{"query", "total", "hits":
    /// [...]}`, each hit with its `status` (`unknown` where the source cannot know it) and
    /// its neighbours in brief (`context`: each one's place relative to the hit, its text or
    /// else the tool's name, cut to 280 characters); `query_bounds` when part of the query was
    /// not searched or a repeated term was dropped; `fallback` with [`Found::fallback_note`].
    pub fn to_json(&self, query: &str) -> serde_json::Value {
        let hits: Vec<_> = self.hits.iter().map(|m| self.hit_json(m)).collect();
        let mut doc = json!({"query": query, "total": hits.len(), "hits": hits});
        let b = self.bounds;
        if b.cut() || b.repeated > 0 {
            doc["query_bounds"] = json!({
                "cut": b.cut(),
                "terms": b.terms,
                "repeated_terms_dropped": b.repeated,
                "terms_dropped": b.dropped_terms,
                "chars_cut": b.cut_chars,
                "max_terms": MAX_QUERY_TERMS,
                "max_chars": MAX_QUERY_CHARS,
            });
        }
        if let Some(note) = self.fallback_note() {
            doc["fallback"] = json!({
                "name": "phrases_as_words",
                "phrases": self.phrases_as_words,
                "note": note,
            });
        }
        doc
    }

    fn hit_json(&self, m: &Match) -> serde_json::Value {
        let h = &m.hit;
        let (status, by) = match h.status {
            _ if !self.status_known => ("unknown", None),
            Status::Current => ("current", None),
            Status::Superseded { by } => ("superseded", Some(by.to_string())),
            Status::Resolved { by } => ("resolved", Some(by.to_string())),
        };
        let context: Vec<_> = m.around.iter().map(|e| neighbour(e, h.seq)).collect();
        json!({
            "id": h.id.to_string(),
            "seq": h.seq,
            "kind": h.kind.as_str(),
            "ts": h.ts,
            "importance": h.importance,
            "status": status,
            "status_by": by,
            "field": h.field.as_str(),
            "snippet": h.snippet,
            "rank": h.rank,
            "score": h.score,
            "exact_phrase": h.exact,
            "context": context,
        })
    }
}

/// Longest text a neighbour shows in brief, in characters.
const NEIGHBOUR_TEXT: usize = 280;

/// An event next to a hit, in brief: its place relative to the hit (-1 just before, 1 just
/// after), its text (the tool's name when it has none) cut to [`NEIGHBOUR_TEXT`] characters.
fn neighbour(e: &Event, hit: u64) -> serde_json::Value {
    let whole = match (&e.text, &e.tool) {
        (Some(t), _) if !t.trim().is_empty() => t.clone(),
        (_, Some(tool)) => format!("({})", tool.name),
        _ => String::new(),
    };
    let mut text: String = whole.chars().take(NEIGHBOUR_TEXT).collect();
    if text.len() < whole.len() {
        text.push('…');
    }
    json!({
        "id": e.id.to_string(),
        "seq": e.seq,
        "offset": i64::try_from(e.seq).unwrap_or(i64::MAX) - i64::try_from(hit).unwrap_or(0),
        "kind": e.kind.as_str(),
        "ts": e.ts,
        "actor": e.actor,
        "text": text,
    })
}

/// Ranked search of `source` for `query`: the hits `opts` asks for, best first (the first k
/// hits of a longer list are the hits of `limit` k), each with its neighbours.
///
/// ```no_run
/// use remaind_fs::ContextDir;
/// use remaind_service::{SearchOptions, Source};
///
/// let ctx = ContextDir::new(".context");
/// let opts = SearchOptions {
///     filter: remaind_index::SearchOptions { limit: 5, ..Default::default() },
///     context: 1,
///     ..SearchOptions::default()
/// };
/// let found = remaind_service::search(Source::Folder(&ctx), "sandbox decision", &opts)?;
/// for m in &found.hits {
///     println!("{} {}: {}", m.hit.id, m.hit.field.as_str(), m.hit.snippet);
/// }
/// # Ok::<(), remaind_service::Error>(())
/// ```
pub fn search(source: Source<'_, '_>, query: &str, opts: &SearchOptions) -> Result<Found> {
    match source {
        Source::Folder(ctx) => in_folder(ctx, query, opts),
        Source::Index(index) => in_index(index, query, opts),
        #[cfg(feature = "store")]
        Source::Store(setting) => crate::store::search(setting, query, opts),
    }
}

/// The folder's own index, else a temporary one built from its ledger.
fn in_folder(ctx: &ContextDir, query: &str, opts: &SearchOptions) -> Result<Found> {
    let ledger = Ledger::open(ctx.root())?;
    let found = Index::open(ctx.root(), &ledger)
        .map_err(Error::from)
        .and_then(|mut index| in_index(&mut index, query, opts));
    match found {
        Ok(found) => Ok(found),
        Err(e) if e.is_invalid_input() => Err(e),
        // A `.context/` this user cannot write (a read-only mount, another user's project):
        // the index is built from the ledger in a private temporary folder instead.
        Err(e) => {
            let note = format!(
                "the index in {} cannot be used ({}); searching a temporary index built from \
                 the ledger (slower)",
                ctx.join(remaind_fs::layout::DB_DIR),
                crate::error::chain_text(&e)
            );
            let dir = tempfile::tempdir().map_err(Error::TempDir)?;
            let path = Utf8Path::from_path(dir.path())
                .ok_or_else(|| Error::TempDir(std::io::Error::other("its path is not UTF-8")))?;
            let mut found = in_index(&mut Index::scratch(path, &ledger), query, opts)?;
            found.index_note = Some(note);
            Ok(found)
        }
    }
}

fn in_index(index: &mut Index<'_>, query: &str, opts: &SearchOptions) -> Result<Found> {
    let searched = paged(opts, |limit| {
        let index_opts = remaind_index::SearchOptions {
            limit,
            ..opts.filter.clone()
        };
        Ok(index.search_bounded(query, &index_opts)?)
    })?;
    let mut hits = Vec::with_capacity(searched.hits.len());
    for hit in searched.hits {
        let mut around = Vec::new();
        if opts.context > 0 {
            around = index.before(hit.seq, opts.context, &Filter::default())?;
            around.extend(index.range(hit.seq + 1, opts.context, &Filter::default())?);
        }
        hits.push(Match { hit, around });
    }
    Ok(Found {
        hits,
        status_known: true,
        bounds: searched.bounds,
        phrases_as_words: searched.phrases_as_words,
        index_note: None,
    })
}

/// The page `opts` asks for (`offset`, `limit`, the time range) of what `run` finds when
/// asked for at most n hits. A time range filters after ranking, so `run` is asked for
/// more until the page fills or the matches run out.
pub(crate) fn paged(
    opts: &SearchOptions,
    mut run: impl FnMut(usize) -> Result<Searched>,
) -> Result<Searched> {
    let wanted = opts.offset.saturating_add(opts.filter.limit);
    let timed = opts.since.is_some() || opts.until.is_some();
    let in_range = |ts: &str| {
        opts.since.as_deref().is_none_or(|s| ts >= s)
            && opts.until.as_deref().is_none_or(|u| ts < u)
    };
    let mut ask = if timed {
        wanted.saturating_mul(4)
    } else {
        wanted
    };
    loop {
        let mut searched = run(ask)?;
        let exhausted = searched.hits.len() < ask;
        searched.hits.retain(|h| in_range(&h.ts));
        if !timed || exhausted || searched.hits.len() >= wanted {
            searched.hits = searched
                .hits
                .into_iter()
                .skip(opts.offset)
                .take(opts.filter.limit)
                .collect();
            return Ok(searched);
        }
        ask = ask.saturating_mul(4);
    }
}
