//! The pages. Each is one or a few library calls and the HTML around their answers, written as
//! maud `html!` templates: every value from the folder is escaped by the template (or goes
//! through `cited_text` and `highlight`, templates too).

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use maud::{Markup, html};
use remaind_events::Filter;
use remaind_events::{Event, EventId, Kind, Status};
use remaind_index::{Index, MATCH_END, MATCH_START};
use remaind_ledger::Ledger;
use remaind_resume::Budget;
use remaind_service::Source;
use remaind_validate::State as DerivedState;

use crate::diff::{Change, diff as state_diff};
use crate::error::Error;
use crate::html::{
    cited_text, ev_link, ev_links, event_body, event_row, page, seq_link, session_of, url_enc,
};
use crate::server::{App, Params, blocking, chain, error_page};

fn ok_page(title: &str, active: &str, body: &Markup) -> Result<Response, Error> {
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
            .map_err(|e| Error::Query(e.to_string()))?;
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
    let pager = pager(&events, (lo, hi), head, latest, &with);
    let go_on = stopped.map(|at| {
        let key = if from.is_some() { "from" } else { "before" };
        (at, with(&format!("{key}={at}")))
    });
    let rows = html! {
        @for ev in &events { (event_row(ev)) }
    };
    let body = html! {
        (filter_form(&filters))
        (pager)
        @if let Some((at, url)) = go_on {
            p.muted {
                "Read " (SCAN_CAP) " events without filling the page; "
                a href=(url) { "go on from e" (at) } "."
            }
        }
        @if latest {
            p { "Live tail: " span #conn data-state="connecting" { "connecting…" } }
            ol.events #events hx-ext="sse" sse-connect={ "/live?after=" (head) "&key=" (app.key) }
                sse-swap="event" hx-swap="beforeend" { (rows) }
        } @else {
            ol.events #events { (rows) }
        }
        @if events.is_empty() {
            p.muted #empty { "No events here." }
        }
        (pager)
    };
    ok_page("Timeline", "/timeline", &body)
}

/// The timeline's filter form, with the current filters filled in.
fn filter_form(filters: &Filters) -> Markup {
    let value = |v: &Option<String>| v.clone().unwrap_or_default();
    html! {
        form.filters method="get" action="/timeline" {
            label {
                "kind"
                input name="kind" value=(filters.kind_text) placeholder="decision,constraint"
                    list="kinds";
            }
            label {
                "min importance"
                select name="min" {
                    option value="" { "any" }
                    @for m in 0..=3u8 {
                        option selected[filters.min == Some(m)] { (m) }
                    }
                }
            }
            label { "actor" input name="actor" value=(value(&filters.actor)); }
            label { "session" input name="session" value=(value(&filters.session)); }
            label {
                "since (RFC 3339)"
                input name="since" value=(value(&filters.since)) placeholder="2026-01-31T09:00";
            }
            label { "until (RFC 3339)" input name="until" value=(value(&filters.until)); }
            button type="submit" { "Filter" }
            " "
            a href="/timeline" { "clear" }
        }
        datalist #kinds {
            @for k in Kind::ALL {
                option value=(k.as_str()) {}
            }
        }
    }
}

/// Links to the newest page, and to the older and newer ones when there are any.
fn pager(
    events: &[Event],
    (lo, hi): (u64, u64),
    head: u64,
    latest: bool,
    with: &dyn Fn(&str) -> String,
) -> Markup {
    let older = events
        .first()
        .filter(|first| first.seq > lo)
        .map(|first| with(&format!("before={}", first.seq)));
    let newer = events
        .last()
        .filter(|last| last.seq + 1 < hi && !latest)
        .map(|last| with(&format!("from={}", last.seq + 1)));
    html! {
        nav.pager {
            a href=(with("")) { "newest" }
            @if let Some(url) = older {
                a rel="prev" href=(url) { "← older" }
            }
            @if let Some(url) = newer {
                a rel="next" href=(url) { "newer →" }
            }
            span.muted { (head) " events in the ledger" }
        }
    }
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
        Some(Status::Superseded { by }) => html! { "superseded by " (ev_link(by)) },
        Some(Status::Resolved { by }) => html! { "resolved by " (ev_link(by)) },
        _ => html! { "current" },
    };
    let body = html! {
        dl.kv #event data-seq=(seq) {
            dt { "kind" } dd.kind { (ev.kind.as_str()) }
            dt { "time" } dd { (ev.ts) }
            dt { "importance" } dd { (ev.importance) }
            dt { "status" } dd.status { (status) }
            @if let Some(a) = &ev.actor {
                dt { "actor" } dd { (a) }
            }
            @if let Some(t) = &ev.tool {
                dt { "tool" } dd { (t.name) }
            }
        }
        (event_body(&ev))
        nav.pager {
            @if seq > 1 {
                a href={ "/e/" (seq - 1) } { "← previous" }
            }
            a href={ "/timeline?from=" (seq.saturating_sub(10).max(1)) "#e" (seq) } {
                "show in the timeline"
            }
            a href={ "/e/" (seq + 1) } { "next →" }
        }
    };
    ok_page(&format!("Event e{seq}"), "/timeline", &body)
}

// ---------------------------------------------------------------------------------------------
// Search

pub(crate) async fn search(State(app): State<Arc<App>>, q: Params) -> Response {
    blocking(move || search_page(&app, &q)).await
}

/// A snippet with the index's match markers as `<mark>`, the rest escaped.
fn highlight(snippet: &str) -> Markup {
    // (marked, text), in order.
    let mut pieces = Vec::new();
    let mut rest = snippet;
    while let Some(start) = rest.find(MATCH_START) {
        pieces.push((false, &rest[..start]));
        let after = &rest[start + MATCH_START.len()..];
        match after.find(MATCH_END) {
            Some(end) => {
                pieces.push((true, &after[..end]));
                rest = &after[end + MATCH_END.len()..];
            }
            None => rest = after,
        }
    }
    pieces.push((false, rest));
    html! {
        @for (marked, text) in pieces {
            @if marked { mark { (text) } } @else { (text) }
        }
    }
}

fn search_page(app: &App, q: &HashMap<String, String>) -> Result<Response, Error> {
    let query = nonempty(q, "q").unwrap_or_default();
    let results = if query.is_empty() {
        html! {}
    } else {
        search_results(app, &query)?
    };
    let body = html! {
        form.filters method="get" action="/search" role="search" {
            label {
                "words"
                input type="search" name="q" value=(query) autofocus hx-get="/search"
                    hx-trigger="input changed delay:300ms" hx-target="#results"
                    hx-select="#results" hx-swap="outerHTML" hx-push-url="true";
            }
            button type="submit" { "Search" }
        }
        div #results { (results) }
    };
    ok_page("Search", "/search", &body)
}

/// The hits for `query` (a search error other than the ledger's is shown in their place).
fn search_results(app: &App, query: &str) -> Result<Markup, Error> {
    let opts = remaind_service::SearchOptions {
        filter: remaind_index::SearchOptions {
            limit: 50,
            ..remaind_index::SearchOptions::default()
        },
        ..remaind_service::SearchOptions::default()
    };
    // A ledger that cannot be opened fails the page, as every page does.
    let found = match remaind_service::search(Source::Folder(&app.ctx), query, &opts) {
        Err(e @ remaind_service::Error::Ledger(_)) => return Err(e.into()),
        found => found,
    };
    let note = found.as_ref().ok().and_then(|f| f.index_note.clone());
    let hits = match found.map(|found| found.hits) {
        Ok(hits) if hits.is_empty() => html! { p.muted { "No match." } },
        Ok(hits) => html! {
            p.muted { (hits.len()) " hits" }
            ul.hits {
                @for h in hits.into_iter().map(|m| m.hit) {
                    @let status = match h.status {
                        Status::Current => String::new(),
                        Status::Superseded { by } => format!(" · superseded by {by}"),
                        Status::Resolved { by } => format!(" · resolved by {by}"),
                    };
                    li.hit {
                        a.ev-id href={ "/e/" (h.seq) } { "e" (h.seq) }
                        " " span.kind { (h.kind.as_str()) }
                        " " time { (h.ts) }
                        " " span.muted { (h.field.as_str()) (status) }
                        div.snippet { (highlight(&h.snippet)) }
                    }
                }
            }
        },
        Err(e) => html! { p.error { (chain(&e)) } },
    };
    Ok(html! {
        @if let Some(note) = note {
            p.muted { (note) }
        }
        (hits)
    })
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

fn state_html(state: &DerivedState) -> Markup {
    let links = [
        ("superseded", &state.superseded),
        ("resolved", &state.resolved),
    ];
    html! {
        p.muted {
            "through " (seq_link(state.through_seq)) " · by " (state.compactor) " · made "
            (state.generated_at)
        }
        @if let Some(ins) = &state.latest_user_instruction {
            h3 { "latest_user_instruction" }
            p { (ev_link(ins.event)) " " q { (ins.text) } }
        }
        @if !state.user_asked.is_empty() {
            h3 { "user_asked" }
            ul.items {
                @for a in &state.user_asked {
                    li {
                        @if a.rule { b { "rule" } " " }
                        (a.text) " " (ev_links(&a.events))
                    }
                }
            }
        }
        @for name in remaind_validate::CURRENT_SECTIONS {
            @let items = crate::diff::items(state, name);
            @if !items.is_empty() {
                h3 { (name) }
                ul.items {
                    @for (text, events) in &items {
                        li { (text) " " (ev_links(events)) }
                    }
                }
            }
        }
        @for (label, links) in links {
            @if !links.is_empty() {
                h3 { (label) }
                ul.items {
                    @for l in links {
                        li { (ev_link(l.event)) " by " (ev_link(l.by)) }
                    }
                }
            }
        }
        @if !state.user_settled.is_empty() {
            h3 { "user_settled" }
            ul.items {
                @for l in &state.user_settled {
                    li { (ev_link(l.event)) " " (l.how.as_str()) " by " (ev_link(l.by)) }
                }
            }
        }
    }
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
    let filter = remaind_events::Filter {
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
fn open_loops_html(app: &App, ledger: &Ledger) -> Result<Markup, Error> {
    let loops = open_loops(app, ledger)?;
    Ok(html! {
        h2 #open-loops { "Open loops (" (loops.len()) ")" }
        @if loops.is_empty() {
            p.muted { "none: every blocker and next step is resolved or superseded" }
        } @else {
            ul.items.loops {
                @for ev in &loops {
                    li {
                        b { (ev.kind.as_str()) } " " (ev.text.as_deref().unwrap_or("")) " "
                        (ev_link(ev.id))
                    }
                }
            }
        }
    })
}

/// The gate's verdict, the packet's size and band, and the reasons and penalties behind them.
fn gate_html(status: &remaind_resume::Status, built: &remaind_resume::Resume) -> Markup {
    let gate = &built.gate;
    let budget = built
        .budget
        .map(|b| {
            format!(
                " of a {b}-token budget{}",
                if built.over_budget { " (over)" } else { "" }
            )
        })
        .unwrap_or_default();
    let through = built
        .through_seq
        .map_or_else(|| "none".to_owned(), |s| format!("e{s}"));
    html! {
        h2 { "Gate" }
        @if gate.proceed {
            p.verdict.ok { "continue: the agent may go on" }
        } @else {
            p.verdict.bad { "interrupt: the agent must ask first" }
        }
        dl.kv {
            dt { "confidence" }
            dd { (format!("{:.2}", gate.confidence.score)) @if gate.confidence.low { " (low)" } }
            dt { "band" }
            dd #band {
                (status.band.to_string()) " (" (status.tokens) " of " (status.window) " tokens, "
                (status.action.to_string()) ")"
            }
            dt { "packet" }
            dd #tokens {
                (built.tokens) " tokens" (budget) " · " (built.tokenizer) " · head e"
                (built.head_seq) " · state through " (through) " · " (built.tail_events)
                " tail events"
            }
        }
        @if gate.reasons.is_empty() {
            p.muted { "No reason to interrupt." }
        } @else {
            ul.reasons {
                @for r in &gate.reasons {
                    li { code { (r.code.to_string()) } " " (r.message) " " (ev_links(&r.events)) }
                }
            }
        }
        @if !gate.confidence.penalties.is_empty() {
            ul.penalties.muted {
                @for p in &gate.confidence.penalties {
                    li { (p.factor) " −" (format!("{:.2}", p.penalty)) ": " (p.detail) }
                }
            }
        }
    }
}

fn now_page(app: &App) -> Result<Response, Error> {
    let status = remaind_resume::status(&app.ctx)?;
    let built = remaind_resume::build_packet(&app.ctx, Budget::Configured)?;
    let ledger = Ledger::open(app.ctx.root())?;
    let loops = open_loops_html(app, &ledger)?;
    let framing = remaind_resume::load_framing(&app.ctx)?;
    let (state, handover) = derived(app)?;
    let body = html! {
        section #gate { (gate_html(&status, &built)) }
        section #instruction {
            h2 { "Latest instruction" }
            @match &built.latest_instruction {
                Some(i) => { p { (ev_link(i.event)) " " q { (i.text) } } }
                None => { p.muted { "none yet" } }
            }
            @if let Some(step) = &built.next_step {
                p { "Next step: " (step.text) " " (ev_links(&step.events)) }
            }
        }
        section #loops { (loops) }
        @if let Some(framing) = framing {
            section #framing { h2 { "Framing" } pre { (framing.to_string()) } }
        }
        section #packet {
            h2 { "Resume packet" }
            p.muted { "As the agent gets it; every [eN] opens its event." }
            pre.packet { (cited_text(&built.packet)) }
        }
        section #state {
            h2 { "State" }
            @match &state {
                Some(s) => { (state_html(s)) }
                None => { p.muted { "No accepted compaction yet." } }
            }
        }
        section #handover {
            h2 { "Handover" }
            @match &handover {
                Some(h) => { pre.handover { (cited_text(h)) } }
                None => { p.muted { "No handover yet." } }
            }
        }
    };
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
    let points = state_points(app)?;
    let older = events.last().filter(|_| events.len() == 50);
    let body = html! {
        @if points.len() >= 2 {
            (compare_form(&points))
        }
        @if events.is_empty() {
            p.muted { "No compaction yet." }
        }
        @for ev in &events {
            (compaction_card(ev))
        }
        @if let Some(first) = older {
            nav.pager { a href={ "/compactions?before=" (first.seq) } { "older →" } }
        }
    };
    ok_page("Compactions", "/compactions", &body)
}

/// The form that picks two versions of the state to compare (at least two in `points`).
fn compare_form(points: &[StatePoint]) -> Markup {
    let newest = points.len() - 1;
    let options = |selected: usize| {
        html! {
            @for (i, p) in points.iter().enumerate().rev() {
                option value=(p.time) selected[i == selected] {
                    @match p.through {
                        Some(t) => { "through e" (t) }
                        None => { "no state" }
                    }
                    @if i == newest { " (current)" }
                    " · " (p.time)
                }
            }
        }
    };
    let (older, newer) = default_pair(points);
    html! {
        form.filters method="get" action="/compactions/diff" {
            label { "from state" select name="a" { (options(older)) } }
            label { "to state" select name="b" { (options(newer)) } }
            button type="submit" { "Compare side by side" }
        }
    }
}

/// What an accepted compaction's card shows of its event's data, in this order.
const DATA_KEYS: [&str; 5] = [
    "through_seq",
    "compactor",
    "tail_events",
    "counts",
    "state_sha256",
];

/// One compaction (accepted) or validation (rejected) event: its failed checks, or what the
/// accepted state holds.
fn compaction_card(ev: &Event) -> Markup {
    let data = ev.data.clone().unwrap_or_default();
    let verdict = if ev.kind == Kind::Validation {
        "rejected"
    } else {
        "accepted"
    };
    let text = |v: Option<&serde_json::Value>| match v {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    html! {
        article.card.(verdict) id={ "e" (ev.seq) } {
            h2 { (ev_link(ev.id)) " " (verdict) " " time { (ev.ts) } }
            p { (ev.text.as_deref().unwrap_or("")) }
            @if let Some(failures) = data.get("failures").and_then(|f| f.as_array()) {
                table.failures {
                    tr { th { "failed check" } th { "why" } th { "events" } }
                    @for f in failures {
                        tr {
                            td { code { (f.get("check").and_then(|c| c.as_str()).unwrap_or("")) } }
                            td { (f.get("reason").and_then(|c| c.as_str()).unwrap_or("")) }
                            td { (ev_links(&failure_events(f))) }
                        }
                    }
                }
            } @else {
                dl.kv {
                    @for key in DATA_KEYS {
                        @if let Some(v) = data.get(key) {
                            dt { (key) } dd { (text(Some(v))) }
                        }
                    }
                }
            }
        }
    }
}

/// The events a failed check names (`events`, as event ids).
fn failure_events(failure: &serde_json::Value) -> Vec<EventId> {
    failure
        .get("events")
        .and_then(|e| e.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str())
                .filter_map(|s| s.parse::<EventId>().ok())
                .collect()
        })
        .unwrap_or_default()
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
    for s in &sections {
        for (_, _, change) in s.old.iter().chain(&s.new) {
            if *change != Change::Kept {
                *counts.entry(change.as_str()).or_default() += 1;
            }
        }
    }
    let handovers = (
        version(&store, remaind_fs::layout::HANDOVER_FILE, &a)?,
        version(&store, remaind_fs::layout::HANDOVER_FILE, &b)?,
    );
    let body = html! {
        p {
            "From: " (a) " (through " (seq_link(old.through_seq)) ") · to: " (b) " (through "
            (seq_link(new.through_seq)) ")"
        }
        p #summary {
            @for c in ["added", "superseded", "resolved", "dropped"] {
                span.tag { (c) } (counts.get(c).copied().unwrap_or(0)) " "
            }
        }
        @if new.through_seq < old.through_seq {
            p.note #rolled-back {
                "The second state covers fewer events than the first (through e" (new.through_seq)
                " against e" (old.through_seq) "), as after a rollback: what shows as dropped was \
    rolled back, not lost; every event is still in the ledger."
            }
        }
        @for s in &sections {
            @if !s.old.is_empty() || !s.new.is_empty() {
                h2 { (s.name) }
                div.diff { div { (diff_side(&s.old)) } div { (diff_side(&s.new)) } }
            }
        }
        @if let (Some(x), Some(y)) = &handovers {
            h2 { "Handovers" }
            div.diff {
                pre { (cited_text(&String::from_utf8_lossy(x))) }
                pre { (cited_text(&String::from_utf8_lossy(y))) }
            }
        }
    };
    ok_page("Compare two states", "/compactions", &body)
}

/// One side of a section's diff: each item with its change.
fn diff_side(items: &[(String, Vec<EventId>, Change)]) -> Markup {
    html! {
        ul {
            @for (text, events, change) in items {
                li class=(change.as_str()) {
                    span.tag { (change.as_str()) } (text) " " (ev_links(events))
                }
            }
        }
    }
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
    let loops = open_loops_html(app, &ledger)?;
    let tree = memory.tree(None)?;
    let body = html! {
        @for (status, title) in [
            (remaind_memory::Status::Proposed, "Proposals"),
            (remaind_memory::Status::Accepted, "Accepted"),
            (remaind_memory::Status::Rejected, "Rejected"),
        ] {
            @let list: Vec<_> = proposals.iter().filter(|p| p.status == status).collect();
            h2 { (title) " (" (list.len()) ")" }
            @if list.is_empty() {
                p.muted { "none" }
            } @else {
                ul.items {
                    @for p in list {
                        li {
                            strong { (p.title) } " " code.muted { (p.id) } br;
                            (p.text) " " span.muted { (ev_links(&p.events)) }
                        }
                    }
                }
            }
        }
        (loops)
        h2 { "Tree" }
        p.muted {
            (tree.nodes.len()) " nodes, " (tree.tokens) " tokens listed"
            @if tree.omitted > 0 { ", " (tree.omitted) " left out" }
        }
        table.tree {
            tr { th { "id" } th { "file" } th { "type" } th { "label" } th { "tokens" } }
            @for n in &tree.nodes {
                tr {
                    td { code { (n.id) } }
                    td { (n.file) }
                    td { (n.node_type.as_str()) }
                    td { (n.label) }
                    td { (n.tokens) }
                }
            }
        }
    };
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
    let body = html! {
        @if report.is_ok() {
            p.verdict.ok #chain { "ledger ok: hash chain intact" }
        } @else {
            p.verdict.bad #chain { "ledger broken" }
        }
        dl.kv {
            dt { "lines" } dd { (report.lines) }
            dt { "head digest (anchored)" } dd { code { (report.head_digest) } }
            dt { "artifacts verified" } dd { (report.artifacts_checked) }
        }
        @if !report.problems.is_empty() {
            h2 { "Problems (" (report.problem_count) ")" }
            ul.problems {
                @for p in &report.problems { li { (p.to_string()) } }
            }
        }
        @if report.is_ok() {
            h2 { "Derived files against their recorded hashes" }
            @if integrity.derived.is_empty() {
                p.verdict.ok #derived { "state, handover and history match the compaction events" }
            } @else {
                ul.problems #derived {
                    @for r in &integrity.derived {
                        li {
                            code { (r.code.to_string()) } " " (r.message) " "
                            (ev_links(&r.events))
                        }
                    }
                }
            }
            h2 { "Memory files" }
            p { (integrity.memory_lag.as_deref().unwrap_or("in step with the ledger")) }
        }
        h2 { "Permissions" }
        @if integrity.permissions.is_empty() {
            p #permissions { "no entry another user could change" }
        } @else {
            ul.problems #permissions {
                @for finding in &integrity.permissions { li { (finding) } }
            }
        }
    };
    ok_page("Integrity", "/integrity", &body)
}

// ---------------------------------------------------------------------------------------------
// Rollback

pub(crate) async fn rollback(State(app): State<Arc<App>>) -> Response {
    blocking(move || rollback_page(&app)).await
}

/// Where a rollback's form goes first: its confirmation page.
const CONFIRM: &str = "/rollback/confirm";

fn write_form(app: &App, action: &str, to: &str, label: &str, confirm: bool) -> Markup {
    html! {
        form method="post" action=(action) class="inline" {
            input type="hidden" name="csrf" value=(app.csrf);
            input type="hidden" name="to" value=(to);
            @if confirm {
                input type="hidden" name="confirm" value="yes";
            }
            button type="submit" class="danger" { (label) }
        }
    }
}

fn rollback_page(app: &App) -> Result<Response, Error> {
    let points = remaind_resume::rollback_points(&app.ctx)?;
    let body = html! {
        @if app.allow_writes {
            p {
                "Writes are allowed (" code { "--allow-writes" } "): each rollback asks for \
    confirmation, and can itself be undone. The ledger is never touched."
            }
        } @else {
            p.muted #read-only {
                "Read-only: start " code { "remaind ui --allow-writes" } " to roll back from here."
            }
        }
        @if points.is_empty() {
            p.muted { "No history yet." }
        } @else {
            table.points {
                tr {
                    th { "changed at" } th { "what" } th { "file" }
                    @if app.allow_writes { th { "keep it" } th { "undo it" } }
                }
                @for p in points.iter().rev() {
                    tr {
                        td { code { (p.time) } }
                        td { (if p.prior_existed { "replaced" } else { "created" }) }
                        td { (p.file) }
                        @if app.allow_writes {
                            td { (write_form(app, CONFIRM, &p.time, "roll back to here", false)) }
                            td {
                                (write_form(app, CONFIRM, &p.before, "roll back to before", false))
                            }
                        }
                    }
                }
            }
        }
    };
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
    let body = html! {
        p #confirm {
            "Restore every derived file (" code { "active/" } " and " code { "memory/" }
            ") to its version as of " code { (to) } "?"
        }
        @if undone.is_empty() {
            p.muted { "No change was recorded after that time: nothing would change." }
        } @else {
            p {
                "These later changes are set aside (kept in history; the rollback can be undone):"
            }
            ul {
                @for p in &undone { li { code { (p.time) } " " (p.file) } }
            }
        }
        (write_form(app, "/rollback", to, "Yes, roll back", true))
        " "
        a href="/rollback" { "Cancel" }
    };
    ok_page("Confirm rollback", "/rollback", &body)
}

pub(crate) fn rollback_done_page(app: &App, to: &str) -> Result<Response, Error> {
    let ts = match remaind_resume::parse_time(to) {
        Ok(ts) => ts,
        Err(e) => return Ok(error_page(StatusCode::BAD_REQUEST, &chain(&e))),
    };
    let done = remaind_resume::rollback_to(&app.ctx, ts)?;
    let body = html! {
        p #done { "Rolled back to " code { (done.to) } "." }
        @if done.changed.is_empty() {
            p { "Nothing changed." }
        } @else {
            p { "Changed:" }
            ul #changed {
                @for f in &done.changed { li { (f) } }
            }
        }
        @if let Some(undo) = &done.undo_to {
            p { "Undo it: restore the files as of " code #undo-to { (undo) } "." }
            (write_form(app, CONFIRM, undo, "Undo this rollback", false))
        }
        p { a href="/rollback" { "Back to the history" } }
    };
    ok_page("Rolled back", "/rollback", &body)
}
