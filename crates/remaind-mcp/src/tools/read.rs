//! The three reading steps: `search` (compact hits with ids), `timeline` (the lead-up and
//! aftermath of one event) and `get_events` (full events by id or by position).

use remaind_events::Filter;
use remaind_events::{Event, Kind};
use remaind_index::{MAX_QUERY_CHARS, MAX_QUERY_TERMS, QueryBounds, SearchOptions};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{parse_id, status_parts};
use crate::error::ToolError;
use crate::registry::{Effect, ToolDef, def};
use crate::session::Session;

/// Most hits or events one call returns.
const MAX_LIMIT: usize = 200;
/// Longest text a timeline row quotes, in characters.
const ROW_TEXT: usize = 280;

fn default_limit() -> usize {
    10
}

fn parse_kinds(kinds: &[String]) -> Result<Vec<Kind>, ToolError> {
    kinds
        .iter()
        .map(|k| {
            k.trim()
                .parse::<Kind>()
                .map_err(|e| ToolError::invalid("kinds", e))
        })
        .collect()
}

fn check_limit(limit: usize) -> Result<usize, ToolError> {
    if limit == 0 || limit > MAX_LIMIT {
        return Err(ToolError::invalid(
            "limit",
            format!("{limit} is out of range; give 1 to {MAX_LIMIT}"),
        ));
    }
    Ok(limit)
}

/// An RFC 3339 time or a date (midnight UTC) in the ledger's own `ts` format, so that
/// comparing strings compares times.
fn parse_time(field: &str, s: &str) -> Result<String, ToolError> {
    let s = s.trim();
    let ts = match s.parse::<jiff::Timestamp>() {
        Ok(ts) => ts,
        Err(_) => s
            .parse::<jiff::civil::Date>()
            .ok()
            .and_then(|d| d.to_zoned(jiff::tz::TimeZone::UTC).ok())
            .map(|z| z.timestamp())
            .ok_or_else(|| {
                ToolError::invalid(
                    field,
                    format!(
                        "`{s}` is not a time; give RFC 3339 like 2025-06-01T12:00:00Z or a date like 2025-06-01"
                    ),
                )
            })?,
    };
    Ok(ts.strftime("%Y-%m-%dT%H:%M:%S%.6fZ").to_string())
}

/// What to search for.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchArgs {
    /// Words (any may match; more, the whole phrase and the exact forms rank higher; English
    /// word forms and identifier spellings match each other), `+word` and "quoted phrases"
    /// (must match), `prefix*`; other characters are searched literally.
    query: String,
    /// Only these kinds, e.g. ["decision", "constraint"] (all kinds when empty).
    #[serde(default)]
    kinds: Vec<String>,
    /// Only events neither superseded nor resolved.
    #[serde(default)]
    current_only: bool,
    /// Only events of at least this importance (0-3).
    #[serde(default)]
    #[schemars(range(max = 3))]
    min_importance: Option<u8>,
    /// Only events at or after this time (RFC 3339 or YYYY-MM-DD).
    #[serde(default)]
    since: Option<String>,
    /// Only events before this time (RFC 3339 or YYYY-MM-DD).
    #[serde(default)]
    until: Option<String>,
    /// At most this many hits (1-200, default 10).
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = 200))]
    limit: usize,
    /// Skip this many hits first (for the next page).
    #[serde(default)]
    offset: usize,
    /// Bring each hit's this many neighbouring events before and after it (0-20, default
    /// 0): an answer often sits in the turn next to the one that matched.
    #[serde(default)]
    #[schemars(range(max = 20))]
    context: usize,
}

/// Most neighbouring events `search` brings on each side of a hit.
const MAX_CONTEXT: usize = 20;

/// One search hit: enough to decide whether to open it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct SearchHit {
    /// The event's id; pass it to `get_events` or `timeline`.
    id: String,
    /// Its kind.
    kind: String,
    /// When it was logged.
    ts: String,
    /// Its importance 0-3.
    importance: u8,
    /// `current`, `superseded` or `resolved`.
    status: String,
    /// The event that superseded or resolved it.
    status_by: Option<String>,
    /// Which part of the event matched: `text`, `tool`, `input` or `output`.
    field: String,
    /// An excerpt of that part around the match, matched words between « and ».
    snippet: String,
    /// True when the event holds the whole query as one phrase.
    exact_phrase: bool,
    /// With `context`: the events around the hit, oldest first, each in brief.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    context: Vec<EventRow>,
}

/// Search results, best first.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct SearchResult {
    /// The hits of this page.
    hits: Vec<SearchHit>,
    /// The offset of the next page, when there may be more hits.
    next_offset: Option<usize>,
    /// Set when part of the query was not searched: at most 32 distinct words of its first
    /// 1,000 characters are (a repeated word counts once). Says what was left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    query_cut: Option<String>,
    /// Set when the query's quoted phrases found nothing and their words were searched as
    /// ordinary ranked words instead. Says which phrases.
    #[serde(skip_serializing_if = "Option::is_none")]
    fallback: Option<String>,
}

/// What [`SearchResult::query_cut`] says of a query's bounds, when it was cut.
fn query_cut(bounds: QueryBounds) -> Option<String> {
    bounds.cut().then(|| {
        format!(
            "the query was cut: searched {} distinct words of at most {MAX_QUERY_TERMS} \
             within {MAX_QUERY_CHARS} characters; {} more words and {} characters were left out",
            bounds.terms, bounds.dropped_terms, bounds.cut_chars
        )
    })
}

fn search(session: &Session, args: SearchArgs) -> Result<SearchResult, ToolError> {
    if args.query.trim().is_empty() {
        return Err(ToolError::invalid(
            "query",
            "is empty; give words to search for",
        ));
    }
    let limit = check_limit(args.limit)?;
    if args.context > MAX_CONTEXT {
        return Err(ToolError::invalid(
            "context",
            format!("{} is out of range; give 0 to {MAX_CONTEXT}", args.context),
        ));
    }
    let kinds = parse_kinds(&args.kinds)?;
    let since = args
        .since
        .as_deref()
        .map(|s| parse_time("since", s))
        .transpose()?;
    let until = args
        .until
        .as_deref()
        .map(|s| parse_time("until", s))
        .transpose()?;
    if let (Some(a), Some(b)) = (&since, &until)
        && a >= b
    {
        return Err(ToolError::invalid("until", "must be later than `since`"));
    }
    let (ctx, ledger) = session.ledger()?;
    // One more than the page says whether there is a next one.
    let opts = remaind_service::SearchOptions {
        filter: SearchOptions {
            kinds,
            min_importance: args.min_importance,
            current_only: args.current_only,
            limit: limit.saturating_add(1),
            ..SearchOptions::default()
        },
        offset: args.offset,
        since,
        until,
        context: args.context,
    };
    let found = session.with_index(&ctx, &ledger, |index| {
        let source = remaind_service::Source::Index(index);
        Ok(remaind_service::search(source, &args.query, &opts)?)
    })?;
    let more = found.hits.len() > limit;
    let mut page = Vec::with_capacity(limit);
    for m in found.hits.into_iter().take(limit) {
        let h = m.hit;
        page.push({
            let (status, by) = status_parts(h.status);
            SearchHit {
                id: h.id.to_string(),
                kind: h.kind.as_str().to_owned(),
                ts: h.ts,
                importance: h.importance,
                status: status.to_owned(),
                status_by: by,
                field: h.field.as_str().to_owned(),
                snippet: h.snippet,
                exact_phrase: h.exact,
                context: m.around.iter().map(EventRow::of).collect(),
            }
        });
    }
    let phrases = found.phrases_as_words;
    let fallback = (!phrases.is_empty()).then(|| {
        let quoted: Vec<String> = phrases.iter().map(|p| format!("\"{p}\"")).collect();
        format!(
            "no event holds {} as an exact phrase; its words were searched as ranked words \
             instead",
            quoted.join(", ")
        )
    });
    Ok(SearchResult {
        hits: page,
        next_offset: more.then_some(args.offset + limit),
        query_cut: query_cut(found.bounds),
        fallback,
    })
}

pub(crate) fn search_tool() -> ToolDef {
    def(
        "search",
        "Search the ledger",
        "Ranked search over every recorded event (text, tool names, tool inputs such as \
commands, paths and edits, tool outputs and errors), best matches first, as compact hits \
with ids and the part that matched. Any query word may match; ask in plain words or give \
identifiers, paths or error text. Filter by kinds, current_only (neither \
superseded nor resolved), min_importance and a time range; page with limit/offset; `context` \
brings each hit's neighbouring events (an answer often sits in the reply). A quoted phrase \
that finds nothing is searched as ranked words, and `fallback` says so. Open a hit with \
`timeline` (what led to it) or `get_events` (the full event).",
        Effect::Reads,
        search,
    )
}

/// Around which event.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TimelineArgs {
    /// The event to center on, e.g. "e42" (give this or `query`).
    #[serde(default)]
    #[schemars(regex(pattern = "^e[1-9][0-9]*$"))]
    anchor: Option<String>,
    /// Center on the best search hit for this query instead.
    #[serde(default)]
    query: Option<String>,
    /// How many events before the anchor (0-50, default 5).
    #[serde(default = "default_around")]
    #[schemars(range(max = 50))]
    before: usize,
    /// How many events after the anchor (0-50, default 5).
    #[serde(default = "default_around")]
    #[schemars(range(max = 50))]
    after: usize,
}

fn default_around() -> usize {
    5
}

/// One event in brief.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct EventRow {
    /// Its id.
    id: String,
    /// Its kind.
    kind: String,
    /// When it was logged.
    ts: String,
    /// Its importance 0-3.
    importance: u8,
    /// Who produced it.
    actor: Option<String>,
    /// The tool involved.
    tool: Option<String>,
    /// Its text, cut to 280 characters (`get_events` gives all of it).
    text: Option<String>,
    /// True when `text` was cut.
    truncated: bool,
    /// Ids it refers to, replaces or closes.
    links: Vec<String>,
}

impl EventRow {
    fn of(ev: &Event) -> Self {
        let (text, truncated) = match &ev.text {
            Some(t) if t.chars().count() > ROW_TEXT => {
                (Some(t.chars().take(ROW_TEXT).collect::<String>()), true)
            }
            other => (other.clone(), false),
        };
        let links = ev
            .refs
            .iter()
            .chain(&ev.supersedes)
            .chain(&ev.resolves)
            .map(ToString::to_string)
            .collect();
        EventRow {
            id: ev.id.to_string(),
            kind: ev.kind.as_str().to_owned(),
            ts: ev.ts.clone(),
            importance: ev.importance,
            actor: ev.actor.clone(),
            tool: ev.tool.as_ref().map(|t| t.name.clone()),
            text,
            truncated,
            links,
        }
    }
}

/// The anchor with what came before and after it, in ledger order.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct Timeline {
    /// The anchor's id.
    anchor: String,
    /// The events before the anchor, the anchor, and the events after it, oldest first.
    events: Vec<EventRow>,
}

fn timeline(session: &Session, args: TimelineArgs) -> Result<Timeline, ToolError> {
    for (field, n) in [("before", args.before), ("after", args.after)] {
        if n > 50 {
            return Err(ToolError::invalid(
                field,
                format!("{n} is out of range; give 0 to 50"),
            ));
        }
    }
    let (ctx, ledger) = session.ledger()?;
    let anchor = match (&args.anchor, &args.query) {
        (Some(a), None) => parse_id("anchor", a)?,
        (None, Some(q)) if !q.trim().is_empty() => {
            let opts = SearchOptions {
                limit: 1,
                ..SearchOptions::default()
            };
            let hit = session
                .with_index(&ctx, &ledger, |index| Ok(index.search(q, &opts)?))?
                .into_iter()
                .next();
            hit.ok_or_else(|| {
                ToolError::invalid("query", format!("no event matches `{q}`; try other words"))
            })?
            .id
        }
        (Some(_), Some(_)) => {
            return Err(ToolError::invalid(
                "anchor",
                "give either `anchor` or `query`, not both",
            ));
        }
        _ => {
            return Err(ToolError::invalid(
                "anchor",
                "is required: give an event id like \"e42\", or a `query`",
            ));
        }
    };
    let Some(center) = ledger.get(anchor.seq())? else {
        let (head, _) = ledger.head()?;
        return Err(ToolError::invalid(
            "anchor",
            format!("{anchor} does not exist; the ledger ends at e{head}"),
        ));
    };
    let mut events = ledger.before(center.seq, args.before, &remaind_events::Filter::default())?;
    events.push(center);
    events.extend(ledger.range(
        anchor.seq() + 1,
        args.after,
        &remaind_events::Filter::default(),
    )?);
    Ok(Timeline {
        anchor: anchor.to_string(),
        events: events.iter().map(EventRow::of).collect(),
    })
}

pub(crate) fn timeline_tool() -> ToolDef {
    def(
        "timeline",
        "Events around one event",
        "The lead-up and aftermath of one event: `before` events, the anchor, and `after` \
events, in ledger order, each in brief. Give the anchor's id (from `search`), or a `query` \
to center on its best hit.",
        Effect::Reads,
        timeline,
    )
}

/// Which events to open.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct GetEventsArgs {
    /// These events by id, e.g. ["e12", "e40"] (at most 200).
    #[serde(default)]
    #[schemars(inner(regex(pattern = "^e[1-9][0-9]*$")))]
    ids: Vec<String>,
    /// Instead of ids: events from this seq on.
    #[serde(default)]
    from: Option<u64>,
    /// Instead of ids: the events just before this seq.
    #[serde(default)]
    before: Option<u64>,
    /// How many events for a slice (1-200, default 10; the last ones when neither `from`
    /// nor `before` is given).
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = 200))]
    limit: usize,
    /// For a slice: only these kinds.
    #[serde(default)]
    kinds: Vec<String>,
    /// For a slice: only events of at least this importance.
    #[serde(default)]
    #[schemars(range(max = 3))]
    min_importance: Option<u8>,
}

/// Full events as stored in the ledger (redacted; see schemas/event.schema.json).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct GetEvents {
    /// The events, in the order asked for (ledger order for a slice).
    events: Vec<Value>,
    /// Requested ids that do not exist.
    missing: Vec<String>,
}

fn get_events(session: &Session, args: GetEventsArgs) -> Result<GetEvents, ToolError> {
    let sliced = args.from.is_some() || args.before.is_some();
    if !args.ids.is_empty() && (sliced || !args.kinds.is_empty() || args.min_importance.is_some()) {
        return Err(ToolError::invalid(
            "ids",
            "give either `ids` or a slice (`from`/`before`/`kinds`/`min_importance`), not both",
        ));
    }
    if args.from.is_some() && args.before.is_some() {
        return Err(ToolError::invalid(
            "before",
            "give `from` or `before`, not both",
        ));
    }
    if args.ids.len() > MAX_LIMIT {
        return Err(ToolError::invalid(
            "ids",
            format!(
                "{} ids; ask for at most {MAX_LIMIT} at once",
                args.ids.len()
            ),
        ));
    }
    let limit = check_limit(args.limit)?;
    let ids = args
        .ids
        .iter()
        .map(|s| parse_id("ids", s))
        .collect::<Result<Vec<_>, _>>()?;
    let filter = Filter {
        kinds: parse_kinds(&args.kinds)?,
        min_importance: args.min_importance,
    };
    let (ctx, ledger) = session.ledger()?;
    let mut events = Vec::new();
    let mut missing = Vec::new();
    if !ids.is_empty() {
        for id in ids {
            match ledger.get(id.seq())? {
                Some(ev) => events.push(ev),
                None => missing.push(id.to_string()),
            }
        }
    } else {
        let filtered = !filter.kinds.is_empty() || filter.min_importance.is_some();
        let before = match (args.from, args.before) {
            (Some(_), _) => None,
            (None, Some(b)) => Some(b),
            (None, None) => Some(ledger.head()?.0 + 1),
        };
        events = if filtered {
            // A kind or importance filter may skip most of the ledger: the index answers it
            // without reading every line.
            session.with_index(&ctx, &ledger, |index| {
                Ok(match (args.from, before) {
                    (Some(from), _) => index.range(from, limit, &filter)?,
                    (None, Some(b)) => index.before(b, limit, &filter)?,
                    (None, None) => Vec::new(),
                })
            })?
        } else {
            match (args.from, before) {
                (Some(from), _) => ledger.range(from, limit, &remaind_events::Filter::default())?,
                (None, Some(b)) => ledger.before(b, limit, &remaind_events::Filter::default())?,
                (None, None) => Vec::new(),
            }
        };
    }
    let events = events
        .iter()
        .map(serde_json::to_value)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ToolError {
            message: format!("cannot serialize an event: {e}"),
            invalid_input: false,
        })?;
    Ok(GetEvents { events, missing })
}

pub(crate) fn get_events_tool() -> ToolDef {
    def(
        "get_events",
        "Open full events",
        "Full events as stored in the ledger (text, data, tool input/output, links, \
redactions): by `ids` (from `search` or `timeline`), or a positional slice `from`/`before` + \
`limit`, optionally filtered by kinds and min_importance (the last `limit` events when no \
position is given).",
        Effect::Reads,
        get_events,
    )
}
