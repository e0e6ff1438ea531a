//! The pages. Each is one or a few library calls and the HTML around their answers; every
//! value from the folder goes through `esc` (or `cited_text`, which escapes too).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use remaind_events::{Event, EventId, Kind, Status};
use remaind_index::{Index, MATCH_END, MATCH_START};
use remaind_ledger::{Filter, Ledger};
use remaind_resume::Budget;
use remaind_service::Source;
use remaind_validate::State as DerivedState;

use crate::diff::{Change, diff as state_diff};
use crate::error::Error;
use crate::html::{
    cited_text, esc, ev_link, ev_links, event_body, event_row, page, seq_link, session_of, url_enc,
};
use crate::server::{App, Params, blocking, chain, error_page};

fn ok_page(title: &str, active: &str, body: &str) -> Result<Response, Error> {
    Ok(Html(page(title, active, body)).into_response())
}

/// The index of the folder when it exists and catches up without a rebuild; `None` otherwise
/// (the caller then reads the ledger, which gives the same events). Never builds one.
fn existing_index<'l>(app: &App, ledger: &'l Ledger) -> Option<Index<'l>> {
    let present = std::fs::symlink_metadata(app.ctx.root().join(remaind_index::DB_PATH))
        .is_ok_and(|m| m.is_file());
    if !present {
        return None;
    }
    let mut index = Index::open(app.ctx.root(), ledger).ok()?;
    index.catch_up_incremental().ok()?.then_some(index)
}

// ---------------------------------------------------------------------------------------------
// Timeline

const PAGE: usize = 50;
/// Events read per chunk when a filter the index cannot answer (actor, session) is applied.
const CHUNK: usize = 500;
/// Events a page with such a filter reads at most before it offers to go on.
const SCAN_CAP: u64 = 20_000;

/// The filters of a timeline URL.
#[derive(Debug, Default)]
struct Filters {
    kinds: Vec<Kind>,
    kind_text: String,
    min: Option<u8>,
    actor: Option<String>,
    session: Option<String>,
    since: Option<String>,
    until: Option<String>,
    limit: usize,
}

fn nonempty(q: &HashMap<String, String>, key: &str) -> Option<String> {
    q.get(key)
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

fn seq_param(q: &HashMap<String, String>, key: &str) -> Option<u64> {
    nonempty(q, key).and_then(|v| v.trim_start_matches('e').parse().ok())
}

impl Filters {
    fn parse(q: &HashMap<String, String>) -> Result<Filters, Error> {
        let kind_text = nonempty(q, "kind").unwrap_or_default();
        let kinds = kind_text
            .split(',')
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .map(str::parse::<Kind>)
            .collect::<Result<Vec<_>, _>>()
            .map_err(Error::Query)?;
        let min =
            match nonempty(q, "min") {
                None => None,
                Some(m) => Some(m.parse::<u8>().ok().filter(|m| *m <= 3).ok_or_else(|| {
                    Error::Query(format!("importance `{m}` is not 0, 1, 2 or 3"))
                })?),
            };
        Ok(Filters {
            kinds,
            kind_text,
            min,
            actor: nonempty(q, "actor"),
            session: nonempty(q, "session"),
            since: nonempty(q, "since"),
            until: nonempty(q, "until"),
            limit: nonempty(q, "limit")
                .and_then(|l| l.parse().ok())
                .unwrap_or(PAGE)
                .clamp(1, 500),
        })
    }

    fn is_empty(&self) -> bool {
        self.kinds.is_empty()
            && self.min.is_none()
            && self.actor.is_none()
            && self.session.is_none()
            && self.since.is_none()
            && self.until.is_none()
    }

    /// The filters as a query string (`&`-joined, without `?`).
    fn query(&self) -> String {
        let mut parts = Vec::new();
        if !self.kind_text.is_empty() {
            parts.push(format!("kind={}", url_enc(&self.kind_text)));
        }
        if let Some(m) = self.min {
            parts.push(format!("min={m}"));
        }
        for (k, v) in [
            ("actor", &self.actor),
            ("session", &self.session),
            ("since", &self.since),
            ("until", &self.until),
        ] {
            if let Some(v) = v {
                parts.push(format!("{k}={}", url_enc(v)));
            }
        }
        if self.limit != PAGE {
            parts.push(format!("limit={}", self.limit));
        }
        parts.join("&")
    }

    fn ledger_filter(&self) -> Filter {
        Filter {
            kinds: self.kinds.clone(),
            min_importance: self.min,
        }
    }

    /// The filters only a scan can apply.
    fn extra(&self, ev: &Event) -> bool {
        self.actor
            .as_deref()
            .is_none_or(|a| ev.actor.as_deref() == Some(a))
            && self
                .session
                .as_deref()
                .is_none_or(|s| session_of(ev) == Some(s))
    }

    fn has_extra(&self) -> bool {
        self.actor.is_some() || self.session.is_some()
    }
}

/// The first seq whose time is at or after `t` (`head + 1` when none): a binary search over
/// positional reads, since times only grow with seq.
fn first_at_or_after(ledger: &Ledger, head: u64, t: &str) -> Result<u64, Error> {
    let (mut lo, mut hi) = (1u64, head + 1);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let ts = ledger.get(mid)?.map(|e| e.ts).unwrap_or_default();
        if ts.as_str() < t {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    Ok(lo)
}

/// Where events are read from: the index for kind and importance filters when it is there,
/// else the ledger's positional reads.
struct Reader<'l> {
    ledger: &'l Ledger,
    index: Option<Index<'l>>,
}

impl Reader<'_> {
    fn range(&mut self, from: u64, n: usize, f: &Filter) -> Result<Vec<Event>, Error> {
        match &mut self.index {
            Some(i) => Ok(i.range(from, n, f)?),
            None => Ok(self.ledger.range(from, n, f)?),
        }
    }

    fn before(&mut self, seq: u64, n: usize, f: &Filter) -> Result<Vec<Event>, Error> {
        match &mut self.index {
            Some(i) => Ok(i.before(seq, n, f)?),
            None => Ok(self.ledger.before(seq, n, f)?),
        }
    }
}

/// One page of events in `[lo, hi)`: forward from `from`, or back from `before`. The second
/// value is where a capped scan stopped, when it did.
fn page_of(
    reader: &mut Reader<'_>,
    filters: &Filters,
    (lo, hi): (u64, u64),
    from: Option<u64>,
    before: u64,
) -> Result<(Vec<Event>, Option<u64>), Error> {
    let filter = filters.ledger_filter();
    let limit = filters.limit;
    let chunk = if filters.has_extra() { CHUNK } else { limit };
    let mut out = Vec::new();
    let mut scanned = 0u64;
    if let Some(from) = from {
        let mut at = from.max(lo);
        loop {
            let got = reader.range(at, chunk, &filter)?;
            let Some(last) = got.last().map(|e| e.seq) else {
                return Ok((out, None));
            };
            for ev in got {
                if ev.seq >= hi {
                    return Ok((out, None));
                }
                if filters.extra(&ev) {
                    out.push(ev);
                    if out.len() == limit {
                        return Ok((out, None));
                    }
                }
            }
            scanned += chunk as u64;
            at = last + 1;
            if scanned >= SCAN_CAP {
                return Ok((out, Some(at)));
            }
        }
    }
    let mut end = before.min(hi);
    loop {
        let got = reader.before(end, chunk, &filter)?;
        let Some(first) = got.first().map(|e| e.seq) else {
            break;
        };
        for ev in got.into_iter().rev() {
            if ev.seq < lo {
                out.reverse();
                return Ok((out, None));
            }
            if filters.extra(&ev) {
                out.push(ev);
                if out.len() == limit {
                    out.reverse();
                    return Ok((out, None));
                }
            }
        }
        scanned += chunk as u64;
        end = first;
        if scanned >= SCAN_CAP {
            out.reverse();
            return Ok((out, Some(end)));
        }
    }
    out.reverse();
    Ok((out, None))
}

pub(crate) async fn timeline(State(app): State<Arc<App>>, q: Params) -> Response {
    blocking(move || timeline_page(&app, &q)).await
}

fn timeline_page(app: &App, q: &HashMap<String, String>) -> Result<Response, Error> {
    // An unknown kind or importance is the URL's fault: a 400 page (see `blocking`).
    let filters = Filters::parse(q)?;
    let ledger = Ledger::open(app.ctx.root())?;
    let (head, _) = ledger.head()?;
    let lo = match &filters.since {
        Some(t) => first_at_or_after(&ledger, head, t)?,
        None => 1,
    };
    let hi = match &filters.until {
        Some(t) => first_at_or_after(&ledger, head, t)?,
        None => head + 1,
    };
    let from = seq_param(q, "from");
    let before = seq_param(q, "before");
    let index = if filters.kinds.is_empty() && filters.min.is_none() {
        None
    } else {
        existing_index(app, &ledger)
    };
    let mut reader = Reader {
        ledger: &ledger,
        index,
    };
    let (events, stopped) = page_of(&mut reader, &filters, (lo, hi), from, before.unwrap_or(hi))?;
    let latest = from.is_none() && before.is_none() && filters.is_empty();
    let fq = filters.query();
    let with = |extra: &str| {
        let mut parts = vec![extra.to_owned()];
        if !fq.is_empty() {
            parts.push(fq.clone());
        }
        let joined = parts
            .into_iter()
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join("&");
        if joined.is_empty() {
            "/timeline".to_owned()
        } else {
            format!("/timeline?{joined}")
        }
    };

    let mut body = filter_form(&filters);
    let pager = pager(&events, (lo, hi), head, latest, &with);
    body.push_str(&pager);
    if let Some(at) = stopped {
        let key = if from.is_some() { "from" } else { "before" };
        let _ = write!(
            body,
            "<p class=\"muted\">Read {SCAN_CAP} events without filling the page; \
<a href=\"{}\">go on from e{at}</a>.</p>",
            esc(&with(&format!("{key}={at}")))
        );
    }
    if latest {
        let _ = write!(
            body,
            "<p>Live tail: <span id=\"conn\" data-state=\"connecting\">connecting…</span></p>\
<ol class=\"events\" id=\"events\" hx-ext=\"sse\" sse-connect=\"/live?after={head}&amp;key={}\" \
sse-swap=\"event\" hx-swap=\"beforeend\">",
            esc(&app.key)
        );
    } else {
        body.push_str("<ol class=\"events\" id=\"events\">");
    }
    for ev in &events {
        body.push_str(&event_row(ev));
    }
    body.push_str("</ol>");
    if events.is_empty() {
        body.push_str("<p class=\"muted\" id=\"empty\">No events here.</p>");
    }
    body.push_str(&pager);
    ok_page("Timeline", "/timeline", &body)
}

/// The timeline's filter form, with the current filters filled in (escaped).
fn filter_form(filters: &Filters) -> String {
    let mut body = String::new();
    let sel = |m: u8| {
        if filters.min == Some(m) {
            " selected"
        } else {
            ""
        }
    };
    let _ = write!(
        body,
        "<form class=\"filters\" method=\"get\" action=\"/timeline\">\
<label>kind<input name=\"kind\" value=\"{}\" placeholder=\"decision,constraint\" list=\"kinds\"></label>\
<label>min importance<select name=\"min\"><option value=\"\">any</option>\
<option{}>0</option><option{}>1</option><option{}>2</option><option{}>3</option></select></label>\
<label>actor<input name=\"actor\" value=\"{}\"></label>\
<label>session<input name=\"session\" value=\"{}\"></label>\
<label>since (RFC 3339)<input name=\"since\" value=\"{}\" placeholder=\"2026-01-31T09:00\"></label>\
<label>until (RFC 3339)<input name=\"until\" value=\"{}\"></label>\
<button type=\"submit\">Filter</button> <a href=\"/timeline\">clear</a></form>",
        esc(&filters.kind_text),
        sel(0),
        sel(1),
        sel(2),
        sel(3),
        esc(filters.actor.as_deref().unwrap_or("")),
        esc(filters.session.as_deref().unwrap_or("")),
        esc(filters.since.as_deref().unwrap_or("")),
        esc(filters.until.as_deref().unwrap_or("")),
    );
    body.push_str("<datalist id=\"kinds\">");
    for k in remaind_events::Kind::ALL {
        let _ = write!(body, "<option value=\"{}\">", k.as_str());
    }
    body.push_str("</datalist>");
    body
}

/// Links to the newest page, and to the older and newer ones when there are any.
fn pager(
    events: &[Event],
    (lo, hi): (u64, u64),
    head: u64,
    latest: bool,
    with: &dyn Fn(&str) -> String,
) -> String {
    let mut pager = String::from("<nav class=\"pager\">");
    let _ = write!(pager, "<a href=\"{}\">newest</a>", esc(&with("")));
    if let Some(first) = events.first()
        && first.seq > lo
    {
        let _ = write!(
            pager,
            "<a rel=\"prev\" href=\"{}\">← older</a>",
            esc(&with(&format!("before={}", first.seq)))
        );
    }
    if let Some(last) = events.last()
        && last.seq + 1 < hi
        && !latest
    {
        let _ = write!(
            pager,
            "<a rel=\"next\" href=\"{}\">newer →</a>",
            esc(&with(&format!("from={}", last.seq + 1)))
        );
    }
    let _ = write!(
        pager,
        "<span class=\"muted\">{} events in the ledger</span></nav>",
        head
    );
    pager
}

// ---------------------------------------------------------------------------------------------
// One event

pub(crate) async fn event(State(app): State<Arc<App>>, Path(seq): Path<String>) -> Response {
    let Some(seq) = seq
        .trim_start_matches('e')
        .parse::<u64>()
        .ok()
        .filter(|s| *s > 0)
    else {
        return error_page(StatusCode::NOT_FOUND, "not an event id");
    };
    blocking(move || event_page(&app, seq)).await
}

fn event_page(app: &App, seq: u64) -> Result<Response, Error> {
    let ledger = Ledger::open(app.ctx.root())?;
    let Some(ev) = ledger.get(seq)? else {
        return Ok(error_page(
            StatusCode::NOT_FOUND,
            &format!("there is no event e{seq} in this ledger"),
        ));
    };
    let status = match existing_index(app, &ledger) {
        Some(mut index) => index.status(ev.id)?,
        None => ledger.status(ev.id)?,
    };
    let status = match status {
        Some(Status::Superseded { by }) => format!("superseded by {}", ev_link(by)),
        Some(Status::Resolved { by }) => format!("resolved by {}", ev_link(by)),
        _ => "current".to_owned(),
    };
    let mut body = String::new();
    let _ = write!(
        body,
        "<dl class=\"kv\" id=\"event\" data-seq=\"{seq}\"><dt>kind</dt><dd class=\"kind\">{}</dd>\
<dt>time</dt><dd>{}</dd><dt>importance</dt><dd>{}</dd><dt>status</dt><dd class=\"status\">{status}</dd>",
        ev.kind.as_str(),
        esc(&ev.ts),
        ev.importance
    );
    if let Some(a) = &ev.actor {
        let _ = write!(body, "<dt>actor</dt><dd>{}</dd>", esc(a));
    }
    if let Some(t) = &ev.tool {
        let _ = write!(body, "<dt>tool</dt><dd>{}</dd>", esc(&t.name));
    }
    body.push_str("</dl>");
    body.push_str(&event_body(&ev));
    let _ = write!(
        body,
        "<nav class=\"pager\">{}<a href=\"/timeline?from={}#e{seq}\">show in the timeline</a><a href=\"/e/{}\">next →</a></nav>",
        if seq > 1 {
            format!("<a href=\"/e/{}\">← previous</a>", seq - 1)
        } else {
            String::new()
        },
        seq.saturating_sub(10).max(1),
        seq + 1
    );
    ok_page(&format!("Event e{seq}"), "/timeline", &body)
}

// ---------------------------------------------------------------------------------------------
// Search

pub(crate) async fn search(State(app): State<Arc<App>>, q: Params) -> Response {
    blocking(move || search_page(&app, &q)).await
}

/// A snippet with the index's match markers as `<mark>`, the rest escaped.
fn highlight(snippet: &str) -> String {
    let mut out = String::new();
    let mut rest = snippet;
    while let Some(start) = rest.find(MATCH_START) {
        out.push_str(&esc(&rest[..start]));
        let after = &rest[start + MATCH_START.len()..];
        match after.find(MATCH_END) {
            Some(end) => {
                let _ = write!(out, "<mark>{}</mark>", esc(&after[..end]));
                rest = &after[end + MATCH_END.len()..];
            }
            None => {
                rest = after;
            }
        }
    }
    out.push_str(&esc(rest));
    out
}

fn search_page(app: &App, q: &HashMap<String, String>) -> Result<Response, Error> {
    let query = nonempty(q, "q").unwrap_or_default();
    let mut body = format!(
        "<form class=\"filters\" method=\"get\" action=\"/search\" role=\"search\">\
<label>words<input type=\"search\" name=\"q\" value=\"{}\" autofocus \
hx-get=\"/search\" hx-trigger=\"input changed delay:300ms\" hx-target=\"#results\" \
hx-select=\"#results\" hx-swap=\"outerHTML\" hx-push-url=\"true\"></label>\
<button type=\"submit\">Search</button></form><div id=\"results\">",
        esc(&query)
    );
    if !query.is_empty() {
        let opts = remaind_service::SearchOptions {
            filter: remaind_index::SearchOptions {
                limit: 50,
                ..remaind_index::SearchOptions::default()
            },
            ..remaind_service::SearchOptions::default()
        };
        // A ledger that cannot be opened fails the page, as every page does.
        let found = match remaind_service::search(Source::Folder(&app.ctx), &query, &opts) {
            Err(e @ remaind_service::Error::Ledger(_)) => return Err(e.into()),
            found => found,
        };
        if let Some(note) = found.as_ref().ok().and_then(|f| f.index_note.as_ref()) {
            let _ = write!(body, "<p class=\"muted\">{}</p>", esc(note));
        }
        match found.map(|found| found.hits) {
            Ok(hits) if hits.is_empty() => body.push_str("<p class=\"muted\">No match.</p>"),
            Ok(hits) => {
                let _ = write!(
                    body,
                    "<p class=\"muted\">{} hits</p><ul class=\"hits\">",
                    hits.len()
                );
                for h in hits.into_iter().map(|m| m.hit) {
                    let status = match h.status {
                        Status::Current => String::new(),
                        Status::Superseded { by } => format!(" · superseded by {by}"),
                        Status::Resolved { by } => format!(" · resolved by {by}"),
                    };
                    let _ = write!(
                        body,
                        "<li class=\"hit\"><a class=\"ev-id\" href=\"/e/{seq}\">e{seq}</a> \
<span class=\"kind\">{}</span> <time>{}</time> <span class=\"muted\">{}{}</span>\
<div class=\"snippet\">{}</div></li>",
                        h.kind.as_str(),
                        esc(&h.ts),
                        h.field.as_str(),
                        esc(&status),
                        highlight(&h.snippet),
                        seq = h.seq,
                    );
                }
                body.push_str("</ul>");
            }
            Err(e) => {
                let _ = write!(body, "<p class=\"error\">{}</p>", esc(&chain(&e)));
            }
        }
    }
    body.push_str("</div>");
    ok_page("Search", "/search", &body)
}

// ---------------------------------------------------------------------------------------------
// Now: what a resumed agent gets

pub(crate) async fn now(State(app): State<Arc<App>>) -> Response {
    blocking(move || now_page(&app)).await
}

/// The accepted state and handover (`active/`), through compact's history store.
fn derived(app: &App) -> Result<(Option<DerivedState>, Option<String>), Error> {
    let store = remaind_compact::open_store(app.ctx.root())?;
    let state = remaind_compact::read_prior(&store)?;
    let handover = store
        .read(remaind_fs::layout::HANDOVER_FILE)?
        .map(|b| String::from_utf8_lossy(&b).into_owned());
    Ok((state, handover))
}

fn state_html(state: &DerivedState) -> String {
    let mut s = format!(
        "<p class=\"muted\">through {} · by {} · made {}</p>",
        seq_link(state.through_seq),
        esc(&state.compactor),
        esc(&state.generated_at)
    );
    if let Some(ins) = &state.latest_user_instruction {
        let _ = write!(
            s,
            "<h3>latest_user_instruction</h3><p>{} <q>{}</q></p>",
            ev_link(ins.event),
            esc(&ins.text)
        );
    }
    if !state.user_asked.is_empty() {
        s.push_str("<h3>user_asked</h3><ul class=\"items\">");
        for a in &state.user_asked {
            let rule = if a.rule { "<b>rule</b> " } else { "" };
            let _ = write!(s, "<li>{rule}{} {}</li>", esc(&a.text), ev_links(&a.events));
        }
        s.push_str("</ul>");
    }
    for name in remaind_validate::CURRENT_SECTIONS {
        let items = crate::diff::items(state, name);
        if items.is_empty() {
            continue;
        }
        let _ = write!(s, "<h3>{name}</h3><ul class=\"items\">");
        for (text, events) in items {
            let _ = write!(s, "<li>{} {}</li>", esc(&text), ev_links(&events));
        }
        s.push_str("</ul>");
    }
    for (label, links) in [
        ("superseded", &state.superseded),
        ("resolved", &state.resolved),
    ] {
        if links.is_empty() {
            continue;
        }
        let _ = write!(s, "<h3>{label}</h3><ul class=\"items\">");
        for l in links {
            let _ = write!(s, "<li>{} by {}</li>", ev_link(l.event), ev_link(l.by));
        }
        s.push_str("</ul>");
    }
    if !state.user_settled.is_empty() {
        s.push_str("<h3>user_settled</h3><ul class=\"items\">");
        for l in &state.user_settled {
            let how = l.how.as_str();
            let _ = write!(
                s,
                "<li>{} {how} by {}</li>",
                ev_link(l.event),
                ev_link(l.by)
            );
        }
        s.push_str("</ul>");
    }
    s
}

/// The open loops now, as `remaind loops list` gives them (the index's answer, or the same
/// from the ledger when there is no index), newest last: never the state's list, which an
/// event after the compaction may have closed.
fn open_loops(app: &App, ledger: &Ledger) -> Result<Vec<Event>, Error> {
    const SHOWN: usize = 50;
    if let Some(mut index) = existing_index(app, ledger) {
        return Ok(index.open_loops(SHOWN)?);
    }
    let (head, _) = ledger.head()?;
    let filter = remaind_ledger::Filter {
        kinds: remaind_index::LOOP_KINDS.to_vec(),
        min_importance: None,
    };
    // Without an index, look at the newest loop events only: each status is a read forward.
    let candidates = ledger.before(head + 1, 4 * SHOWN, &filter)?;
    let mut open = Vec::new();
    for ev in candidates {
        if ledger.status(ev.id)? == Some(Status::Current) {
            open.push(ev);
        }
    }
    let skip = open.len().saturating_sub(SHOWN);
    Ok(open.split_off(skip))
}

/// The open loops as a section: `<h2>Open loops (N)</h2>` and one item each.
fn open_loops_html(app: &App, ledger: &Ledger) -> Result<String, Error> {
    let loops = open_loops(app, ledger)?;
    let mut s = format!("<h2 id=\"open-loops\">Open loops ({})</h2>", loops.len());
    if loops.is_empty() {
        s.push_str(
            "<p class=\"muted\">none: every blocker and next step is resolved or superseded</p>",
        );
        return Ok(s);
    }
    s.push_str("<ul class=\"items loops\">");
    for ev in &loops {
        let _ = write!(
            s,
            "<li><b>{}</b> {} {}</li>",
            ev.kind.as_str(),
            esc(ev.text.as_deref().unwrap_or("")),
            ev_link(ev.id)
        );
    }
    s.push_str("</ul>");
    Ok(s)
}

fn now_page(app: &App) -> Result<Response, Error> {
    let status = remaind_resume::status(&app.ctx)?;
    let built = remaind_resume::build_packet(&app.ctx, Budget::Configured)?;
    let gate = &built.gate;
    let mut body = String::new();
    let _ = write!(
        body,
        "<section id=\"gate\"><h2>Gate</h2><p class=\"verdict {}\">{}</p>\
<dl class=\"kv\"><dt>confidence</dt><dd>{:.2}{}</dd><dt>band</dt><dd id=\"band\">{} ({} of {} tokens, {})</dd>\
<dt>packet</dt><dd id=\"tokens\">{} tokens{} · {} · head e{} · state through {} · {} tail events</dd></dl>",
        if gate.proceed { "ok" } else { "bad" },
        if gate.proceed {
            "continue: the agent may go on"
        } else {
            "interrupt: the agent must ask first"
        },
        gate.confidence.score,
        if gate.confidence.low { " (low)" } else { "" },
        status.band,
        status.tokens,
        status.window,
        esc(&status.action.to_string()),
        built.tokens,
        built
            .budget
            .map(|b| format!(
                " of a {b}-token budget{}",
                if built.over_budget { " (over)" } else { "" }
            ))
            .unwrap_or_default(),
        esc(&built.tokenizer),
        built.head_seq,
        built
            .through_seq
            .map_or_else(|| "none".to_owned(), |s| format!("e{s}")),
        built.tail_events,
    );
    if gate.reasons.is_empty() {
        body.push_str("<p class=\"muted\">No reason to interrupt.</p>");
    } else {
        body.push_str("<ul class=\"reasons\">");
        for r in &gate.reasons {
            let _ = write!(
                body,
                "<li><code>{}</code> {} {}</li>",
                r.code,
                esc(&r.message),
                ev_links(&r.events)
            );
        }
        body.push_str("</ul>");
    }
    if !gate.confidence.penalties.is_empty() {
        body.push_str("<ul class=\"penalties muted\">");
        for p in &gate.confidence.penalties {
            let _ = write!(
                body,
                "<li>{} −{:.2}: {}</li>",
                esc(&p.factor),
                p.penalty,
                esc(&p.detail)
            );
        }
        body.push_str("</ul>");
    }
    body.push_str("</section>");
    body.push_str("<section id=\"instruction\"><h2>Latest instruction</h2>");
    match &built.latest_instruction {
        Some(i) => {
            let _ = write!(body, "<p>{} <q>{}</q></p>", ev_link(i.event), esc(&i.text));
        }
        None => body.push_str("<p class=\"muted\">none yet</p>"),
    }
    if let Some(step) = &built.next_step {
        let _ = write!(
            body,
            "<p>Next step: {} {}</p>",
            esc(&step.text),
            ev_links(&step.events)
        );
    }
    body.push_str("</section>");
    let ledger = Ledger::open(app.ctx.root())?;
    let _ = write!(
        body,
        "<section id=\"loops\">{}</section>",
        open_loops_html(app, &ledger)?
    );
    if let Some(framing) = remaind_resume::load_framing(&app.ctx)? {
        let _ = write!(
            body,
            "<section id=\"framing\"><h2>Framing</h2><pre>{}</pre></section>",
            esc(&framing.to_string())
        );
    }
    let _ = write!(
        body,
        "<section id=\"packet\"><h2>Resume packet</h2><p class=\"muted\">As the agent gets it; \
every [eN] opens its event.</p><pre class=\"packet\">{}</pre></section>",
        cited_text(&built.packet)
    );
    let (state, handover) = derived(app)?;
    body.push_str("<section id=\"state\"><h2>State</h2>");
    match &state {
        Some(s) => body.push_str(&state_html(s)),
        None => body.push_str("<p class=\"muted\">No accepted compaction yet.</p>"),
    }
    body.push_str("</section><section id=\"handover\"><h2>Handover</h2>");
    match &handover {
        Some(h) => {
            let _ = write!(body, "<pre class=\"handover\">{}</pre>", cited_text(h));
        }
        None => body.push_str("<p class=\"muted\">No handover yet.</p>"),
    }
    body.push_str("</section>");
    ok_page("Now", "/now", &body)
}

// ---------------------------------------------------------------------------------------------
// Compactions

pub(crate) async fn compactions(State(app): State<Arc<App>>, q: Params) -> Response {
    blocking(move || compactions_page(&app, &q)).await
}

/// One version of `state.json` in its history: when it was written and how far it covers.
struct StatePoint {
    time: String,
    /// `None` when that version is absent or does not parse.
    through: Option<u64>,
}

/// The history of `state.json`, oldest first, each version with its `through_seq`.
fn state_points(app: &App) -> Result<Vec<StatePoint>, Error> {
    let points = remaind_resume::rollback_points(&app.ctx)?;
    let store = remaind_compact::open_store(app.ctx.root())?;
    let mut out = Vec::new();
    for p in points
        .into_iter()
        .filter(|p| p.file == remaind_fs::layout::STATE_FILE)
    {
        let through = version(&store, remaind_fs::layout::STATE_FILE, &p.time)?
            .and_then(|b| serde_json::from_slice::<DerivedState>(&b).ok())
            .map(|s| s.through_seq);
        out.push(StatePoint {
            time: p.time,
            through,
        });
    }
    Ok(out)
}

/// The two versions the compare form selects first, as (from, to): the newest version and
/// the nearest one before it that covers a different prefix, the one covering fewer events
/// first. After a rollback the newest covers fewer events than the one before it; putting it
/// second would show what the rollback took back as dropped, which reads as lost data.
fn default_pair(points: &[StatePoint]) -> (usize, usize) {
    let newest = points.len() - 1;
    let other = points[..newest]
        .iter()
        .rposition(|p| p.through != points[newest].through)
        .unwrap_or(newest - 1);
    if points[other].through <= points[newest].through {
        (other, newest)
    } else {
        (newest, other)
    }
}

fn compactions_page(app: &App, q: &HashMap<String, String>) -> Result<Response, Error> {
    let ledger = Ledger::open(app.ctx.root())?;
    let (head, _) = ledger.head()?;
    let before = seq_param(q, "before").unwrap_or(head + 1);
    let filter = Filter {
        kinds: vec![Kind::Compaction, Kind::Validation],
        min_importance: None,
    };
    let mut reader = Reader {
        ledger: &ledger,
        index: existing_index(app, &ledger),
    };
    let mut events = reader.before(before, 50, &filter)?;
    events.reverse();
    let mut body = String::new();
    let points = state_points(app)?;
    if points.len() >= 2 {
        let newest = points.len() - 1;
        let options = |selected: usize| {
            points
                .iter()
                .enumerate()
                .rev()
                .map(|(i, p)| {
                    let through = p
                        .through
                        .map_or_else(|| "no state".to_owned(), |t| format!("through e{t}"));
                    let current = if i == newest { " (current)" } else { "" };
                    format!(
                        "<option value=\"{}\"{}>{through}{current} · {}</option>",
                        esc(&p.time),
                        if i == selected { " selected" } else { "" },
                        esc(&p.time)
                    )
                })
                .collect::<String>()
        };
        let (older, newer) = default_pair(&points);
        let _ = write!(
            body,
            "<form class=\"filters\" method=\"get\" action=\"/compactions/diff\">\
<label>from state<select name=\"a\">{}</select></label>\
<label>to state<select name=\"b\">{}</select></label>\
<button type=\"submit\">Compare side by side</button></form>",
            options(older),
            options(newer)
        );
    }
    if events.is_empty() {
        body.push_str("<p class=\"muted\">No compaction yet.</p>");
    }
    for ev in &events {
        let data = ev.data.clone().unwrap_or_default();
        let rejected = ev.kind == Kind::Validation;
        let _ = write!(
            body,
            "<article class=\"card {}\" id=\"e{}\"><h2>{} {} <time>{}</time></h2><p>{}</p>",
            if rejected { "rejected" } else { "accepted" },
            ev.seq,
            ev_link(ev.id),
            if rejected { "rejected" } else { "accepted" },
            esc(&ev.ts),
            esc(ev.text.as_deref().unwrap_or(""))
        );
        if let Some(failures) = data.get("failures").and_then(|f| f.as_array()) {
            body.push_str("<table class=\"failures\"><tr><th>failed check</th><th>why</th><th>events</th></tr>");
            for f in failures {
                let events: Vec<EventId> = f
                    .get("events")
                    .and_then(|e| e.as_array())
                    .map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_str())
                            .filter_map(|s| s.parse::<EventId>().ok())
                            .collect()
                    })
                    .unwrap_or_default();
                let _ = write!(
                    body,
                    "<tr><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
                    esc(f.get("check").and_then(|c| c.as_str()).unwrap_or("")),
                    esc(f.get("reason").and_then(|c| c.as_str()).unwrap_or("")),
                    ev_links(&events)
                );
            }
            body.push_str("</table>");
        } else {
            body.push_str("<dl class=\"kv\">");
            for key in [
                "through_seq",
                "compactor",
                "tail_events",
                "counts",
                "state_sha256",
            ] {
                if let Some(v) = data.get(key) {
                    let text = match v {
                        serde_json::Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    let _ = write!(body, "<dt>{key}</dt><dd>{}</dd>", esc(&text));
                }
            }
            body.push_str("</dl>");
        }
        body.push_str("</article>");
    }
    if let Some(first) = events.last()
        && events.len() == 50
    {
        let _ = write!(
            body,
            "<nav class=\"pager\"><a href=\"/compactions?before={}\">older →</a></nav>",
            first.seq
        );
    }
    ok_page("Compactions", "/compactions", &body)
}

pub(crate) async fn diff(State(app): State<Arc<App>>, q: Params) -> Response {
    blocking(move || diff_page(&app, &q)).await
}

fn version(
    store: &remaind_atomic::HistoryStore,
    file: &str,
    at: &str,
) -> Result<Option<Vec<u8>>, Error> {
    let ts = remaind_resume::parse_time(at)?;
    Ok(store.version_at(file, ts)?)
}

fn diff_page(app: &App, q: &HashMap<String, String>) -> Result<Response, Error> {
    let (Some(a), Some(b)) = (nonempty(q, "a"), nonempty(q, "b")) else {
        return Ok(error_page(
            StatusCode::BAD_REQUEST,
            "choose two states on the Compactions page",
        ));
    };
    let store = remaind_compact::open_store(app.ctx.root())?;
    let read_state = |at: &str| -> Result<Option<DerivedState>, Error> {
        match version(&store, remaind_fs::layout::STATE_FILE, at)? {
            None => Ok(None),
            Some(bytes) => {
                serde_json::from_slice(&bytes)
                    .map(Some)
                    .map_err(|source| Error::StateParse {
                        at: at.to_owned(),
                        source,
                    })
            }
        }
    };
    let (Some(old), Some(new)) = (read_state(&a)?, read_state(&b)?) else {
        return Ok(error_page(
            StatusCode::NOT_FOUND,
            "there was no state at one of these times",
        ));
    };
    let sections = state_diff(&old, &new);
    let mut counts: HashMap<&str, usize> = HashMap::new();
    let mut table = String::new();
    for s in &sections {
        if s.old.is_empty() && s.new.is_empty() {
            continue;
        }
        let side = |items: &[(String, Vec<EventId>, Change)], counts: &mut HashMap<&str, usize>| {
            let mut out = String::from("<ul>");
            for (text, events, change) in items {
                if *change != Change::Kept {
                    *counts.entry(change.as_str()).or_default() += 1;
                }
                let _ = write!(
                    out,
                    "<li class=\"{c}\"><span class=\"tag\">{c}</span>{} {}</li>",
                    esc(text),
                    ev_links(events),
                    c = change.as_str()
                );
            }
            out.push_str("</ul>");
            out
        };
        let left = side(&s.old, &mut counts);
        let right = side(&s.new, &mut counts);
        let _ = write!(
            table,
            "<h2>{}</h2><div class=\"diff\"><div>{left}</div><div>{right}</div></div>",
            s.name
        );
    }
    let mut body = format!(
        "<p>From: {} (through {}) · to: {} (through {})</p><p id=\"summary\">",
        esc(&a),
        seq_link(old.through_seq),
        esc(&b),
        seq_link(new.through_seq),
    );
    for c in ["added", "superseded", "resolved", "dropped"] {
        let _ = write!(
            body,
            "<span class=\"tag\">{c}</span>{} ",
            counts.get(c).copied().unwrap_or(0)
        );
    }
    body.push_str("</p>");
    if new.through_seq < old.through_seq {
        let _ = write!(
            body,
            "<p class=\"note\" id=\"rolled-back\">The second state covers fewer events than the \
first (through e{} against e{}), as after a rollback: what shows as dropped was rolled back, not \
lost; every event is still in the ledger.</p>",
            new.through_seq, old.through_seq
        );
    }
    body.push_str(&table);
    let handovers = (
        version(&store, remaind_fs::layout::HANDOVER_FILE, &a)?,
        version(&store, remaind_fs::layout::HANDOVER_FILE, &b)?,
    );
    if let (Some(x), Some(y)) = handovers {
        let _ = write!(
            body,
            "<h2>Handovers</h2><div class=\"diff\"><pre>{}</pre><pre>{}</pre></div>",
            cited_text(&String::from_utf8_lossy(&x)),
            cited_text(&String::from_utf8_lossy(&y))
        );
    }
    ok_page("Compare two states", "/compactions", &body)
}

// ---------------------------------------------------------------------------------------------
// Memory

pub(crate) async fn memory(State(app): State<Arc<App>>) -> Response {
    blocking(move || memory_page(&app)).await
}

fn memory_page(app: &App) -> Result<Response, Error> {
    let ledger = Ledger::open(app.ctx.root())?;
    // Looking never writes: a hand edit not yet recorded, or files behind the ledger, are the
    // next memory command's to record and repair.
    let memory = remaind_memory::Memory::open_read_only(&app.ctx, &ledger)?;
    let proposals = memory.proposals()?;
    let mut body = String::new();
    for (status, title) in [
        (remaind_memory::Status::Proposed, "Proposals"),
        (remaind_memory::Status::Accepted, "Accepted"),
        (remaind_memory::Status::Rejected, "Rejected"),
    ] {
        let list: Vec<_> = proposals.iter().filter(|p| p.status == status).collect();
        let _ = write!(body, "<h2>{title} ({})</h2>", list.len());
        if list.is_empty() {
            body.push_str("<p class=\"muted\">none</p>");
            continue;
        }
        body.push_str("<ul class=\"items\">");
        for p in list {
            let _ = write!(
                body,
                "<li><strong>{}</strong> <code class=\"muted\">{}</code><br>{} <span class=\"muted\">{}</span></li>",
                esc(&p.title),
                esc(&p.id),
                esc(&p.text),
                ev_links(&p.events)
            );
        }
        body.push_str("</ul>");
    }
    body.push_str(&open_loops_html(app, &ledger)?);
    let tree = memory.tree(None)?;
    let _ = write!(
        body,
        "<h2>Tree</h2><p class=\"muted\">{} nodes, {} tokens listed{}</p>\
<table class=\"tree\"><tr><th>id</th><th>file</th><th>type</th><th>label</th><th>tokens</th></tr>",
        tree.nodes.len(),
        tree.tokens,
        if tree.omitted > 0 {
            format!(", {} left out", tree.omitted)
        } else {
            String::new()
        }
    );
    for n in &tree.nodes {
        let _ = write!(
            body,
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&n.id),
            esc(&n.file),
            n.node_type.as_str(),
            esc(&n.label),
            n.tokens
        );
    }
    body.push_str("</table>");
    ok_page("Memory", "/memory", &body)
}

// ---------------------------------------------------------------------------------------------
// Integrity

pub(crate) async fn integrity(State(app): State<Arc<App>>) -> Response {
    blocking(move || integrity_page(&app)).await
}

fn integrity_page(app: &App) -> Result<Response, Error> {
    let integrity = remaind_service::integrity(&app.ctx)?;
    let report = &integrity.ledger;
    let mut body = String::new();
    let _ = write!(
        body,
        "<p class=\"verdict {}\" id=\"chain\">{}</p><dl class=\"kv\"><dt>lines</dt><dd>{}</dd>\
<dt>head digest (anchored)</dt><dd><code>{}</code></dd><dt>artifacts verified</dt><dd>{}</dd></dl>",
        if report.is_ok() { "ok" } else { "bad" },
        if report.is_ok() {
            "ledger ok: hash chain intact"
        } else {
            "ledger broken"
        },
        report.lines,
        esc(&report.head_digest),
        report.artifacts_checked
    );
    if !report.problems.is_empty() {
        let _ = write!(
            body,
            "<h2>Problems ({})</h2><ul class=\"problems\">",
            report.problem_count
        );
        for p in &report.problems {
            let _ = write!(body, "<li>{}</li>", esc(&p.to_string()));
        }
        body.push_str("</ul>");
    }
    if report.is_ok() {
        body.push_str("<h2>Derived files against their recorded hashes</h2>");
        if integrity.derived.is_empty() {
            body.push_str(
                "<p class=\"verdict ok\" id=\"derived\">state, handover and history match the compaction events</p>",
            );
        } else {
            body.push_str("<ul class=\"problems\" id=\"derived\">");
            for r in &integrity.derived {
                let _ = write!(
                    body,
                    "<li><code>{}</code> {} {}</li>",
                    r.code,
                    esc(&r.message),
                    ev_links(&r.events)
                );
            }
            body.push_str("</ul>");
        }
        let _ = write!(
            body,
            "<h2>Memory files</h2><p>{}</p>",
            esc(integrity
                .memory_lag
                .as_deref()
                .unwrap_or("in step with the ledger"))
        );
    }
    body.push_str("<h2>Permissions</h2>");
    if integrity.permissions.is_empty() {
        body.push_str("<p id=\"permissions\">no entry another user could change</p>");
    } else {
        body.push_str("<ul class=\"problems\" id=\"permissions\">");
        for finding in &integrity.permissions {
            let _ = write!(body, "<li>{}</li>", esc(finding));
        }
        body.push_str("</ul>");
    }
    ok_page("Integrity", "/integrity", &body)
}

// ---------------------------------------------------------------------------------------------
// Rollback

pub(crate) async fn rollback(State(app): State<Arc<App>>) -> Response {
    blocking(move || rollback_page(&app)).await
}

fn write_form(app: &App, action: &str, to: &str, label: &str, confirm: bool) -> String {
    format!(
        "<form method=\"post\" action=\"{action}\" class=\"inline\">\
<input type=\"hidden\" name=\"csrf\" value=\"{}\"><input type=\"hidden\" name=\"to\" value=\"{}\">{}\
<button type=\"submit\" class=\"danger\">{}</button></form>",
        esc(&app.csrf),
        esc(to),
        if confirm {
            "<input type=\"hidden\" name=\"confirm\" value=\"yes\">"
        } else {
            ""
        },
        esc(label)
    )
}

fn rollback_page(app: &App) -> Result<Response, Error> {
    let points = remaind_resume::rollback_points(&app.ctx)?;
    let mut body = String::new();
    if app.allow_writes {
        body.push_str("<p>Writes are allowed (<code>--allow-writes</code>): each rollback asks for confirmation, and can itself be undone. The ledger is never touched.</p>");
    } else {
        body.push_str("<p class=\"muted\" id=\"read-only\">Read-only: start <code>remaind ui --allow-writes</code> to roll back from here.</p>");
    }
    if points.is_empty() {
        body.push_str("<p class=\"muted\">No history yet.</p>");
    } else {
        body.push_str("<table class=\"points\"><tr><th>changed at</th><th>what</th><th>file</th>");
        if app.allow_writes {
            body.push_str("<th>keep it</th><th>undo it</th>");
        }
        body.push_str("</tr>");
        for p in points.iter().rev() {
            let _ = write!(
                body,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td>",
                esc(&p.time),
                if p.prior_existed {
                    "replaced"
                } else {
                    "created"
                },
                esc(&p.file)
            );
            if app.allow_writes {
                let _ = write!(
                    body,
                    "<td>{}</td><td>{}</td>",
                    write_form(
                        app,
                        "/rollback/confirm",
                        &p.time,
                        "roll back to here",
                        false
                    ),
                    write_form(
                        app,
                        "/rollback/confirm",
                        &p.before,
                        "roll back to before",
                        false
                    )
                );
            }
            body.push_str("</tr>");
        }
        body.push_str("</table>");
    }
    ok_page("Rollback", "/rollback", &body)
}

pub(crate) fn rollback_confirm_page(app: &App, to: &str) -> Result<Response, Error> {
    let ts = match remaind_resume::parse_time(to) {
        Ok(ts) => ts,
        Err(e) => return Ok(error_page(StatusCode::BAD_REQUEST, &chain(&e))),
    };
    let points = remaind_resume::rollback_points(&app.ctx)?;
    let undone: Vec<_> = points
        .iter()
        .filter(|p| remaind_resume::parse_time(&p.time).is_ok_and(|t| t > ts))
        .collect();
    let mut body = format!(
        "<p id=\"confirm\">Restore every derived file (<code>active/</code> and <code>memory/</code>) to its version as of <code>{}</code>?</p>",
        esc(to)
    );
    if undone.is_empty() {
        body.push_str(
            "<p class=\"muted\">No change was recorded after that time: nothing would change.</p>",
        );
    } else {
        body.push_str("<p>These later changes are set aside (kept in history; the rollback can be undone):</p><ul>");
        for p in undone {
            let _ = write!(
                body,
                "<li><code>{}</code> {}</li>",
                esc(&p.time),
                esc(&p.file)
            );
        }
        body.push_str("</ul>");
    }
    body.push_str(&write_form(app, "/rollback", to, "Yes, roll back", true));
    body.push_str(" <a href=\"/rollback\">Cancel</a>");
    ok_page("Confirm rollback", "/rollback", &body)
}

pub(crate) fn rollback_done_page(app: &App, to: &str) -> Result<Response, Error> {
    let ts = match remaind_resume::parse_time(to) {
        Ok(ts) => ts,
        Err(e) => return Ok(error_page(StatusCode::BAD_REQUEST, &chain(&e))),
    };
    let done = remaind_resume::rollback_to(&app.ctx, ts)?;
    let mut body = format!(
        "<p id=\"done\">Rolled back to <code>{}</code>.</p>",
        esc(&done.to)
    );
    if done.changed.is_empty() {
        body.push_str("<p>Nothing changed.</p>");
    } else {
        body.push_str("<p>Changed:</p><ul id=\"changed\">");
        for f in &done.changed {
            let _ = write!(body, "<li>{}</li>", esc(f));
        }
        body.push_str("</ul>");
    }
    if let Some(undo) = &done.undo_to {
        let _ = write!(
            body,
            "<p>Undo it: restore the files as of <code id=\"undo-to\">{}</code>.</p>{}",
            esc(undo),
            write_form(app, "/rollback/confirm", undo, "Undo this rollback", false)
        );
    }
    body.push_str("<p><a href=\"/rollback\">Back to the history</a></p>");
    ok_page("Rolled back", "/rollback", &body)
}
