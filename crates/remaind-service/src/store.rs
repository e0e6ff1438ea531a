//! The shared store read straight from a machine that keeps no folder (cargo feature
//! `store`): its server-side search, mapped into the folder index's hits, and its events,
//! read and followed across lost connections.

use std::time::Duration;

use remaind_events::Event;
use remaind_events::Filter;
use remaind_index::{Field, Hit, QueryBounds, Searched, Syntax};
use remaind_ledger::StoreSetting;
use remaind_pg::Store;

use crate::events::{Events, FOLLOW_WAIT, Followed, PAGE, RECONNECT_FIRST, RECONNECT_MAX, Slice};
use crate::search::{Found, Match, SearchOptions, paged};
use crate::{Error, Result};

/// Maps a store's error for `setting` to this layer's: the ledger's `Store` error, which
/// names the action and the project (the URL's password masked).
pub(crate) fn failed(
    setting: &StoreSetting,
    action: &'static str,
) -> impl FnOnce(remaind_pg::Error) -> Error {
    let project = setting.project.clone();
    move |source| {
        Error::Ledger(remaind_ledger::Error::Store {
            action,
            project,
            source,
        })
    }
}

/// A connection to `setting`'s project.
pub(crate) fn connect(setting: &StoreSetting) -> Result<Store> {
    Store::connect(&setting.url, &setting.project).map_err(failed(setting, "connect"))
}

/// The store's lines as events.
pub(crate) fn parse(setting: &StoreSetting, lines: Vec<(u64, Vec<u8>)>) -> Result<Vec<Event>> {
    lines
        .into_iter()
        .map(|(seq, line)| parse_one(setting, seq, &line))
        .collect()
}

fn parse_one(setting: &StoreSetting, seq: u64, line: &[u8]) -> Result<Event> {
    serde_json::from_slice(line).map_err(|source| Error::NotAnEvent {
        project: setting.project.clone(),
        seq,
        source,
    })
}

/// [`crate::search`] of a store: its full-text index on the server. Status is not known
/// there (it needs every later event).
pub(crate) fn search(setting: &StoreSetting, query: &str, opts: &SearchOptions) -> Result<Found> {
    if opts.filter.current_only {
        return Err(Error::NotOnStore {
            what: "keep only current events (it does not know which are)",
        });
    }
    if opts.filter.syntax != Syntax::Plain {
        return Err(Error::NotOnStore {
            what: "read raw FTS5 syntax (the folder's index does)",
        });
    }
    let mut store = connect(setting)?;
    let searched = paged(opts, |limit| {
        let filter = remaind_pg::SearchFilter {
            kinds: opts
                .filter
                .kinds
                .iter()
                .map(|k| k.as_str().to_owned())
                .collect(),
            min_importance: opts.filter.min_importance.unwrap_or(0),
            limit,
        };
        let (hits, bounds) = store
            .search(query, &filter)
            .map_err(failed(setting, "search"))?;
        Ok(Searched {
            hits: hits
                .into_iter()
                .map(|h| hit(setting, h))
                .collect::<Result<_>>()?,
            // The store bounds a query by the folder index's rule (held equal by a test).
            bounds: QueryBounds {
                terms: bounds.terms,
                dropped_terms: bounds.dropped_terms,
                cut_chars: bounds.cut_chars,
                ..QueryBounds::default()
            },
            phrases_as_words: Vec::new(),
        })
    })?;
    let head = if opts.context > 0 && !searched.hits.is_empty() {
        store.head().map_err(failed(setting, "read the head"))?.seq
    } else {
        0
    };
    let mut hits = Vec::with_capacity(searched.hits.len());
    for hit in searched.hits {
        let mut around = Vec::new();
        if opts.context > 0 {
            let n = u64::try_from(opts.context).unwrap_or(u64::MAX);
            let after = hit.seq.saturating_sub(n.saturating_add(1));
            let upto = hit.seq.saturating_add(n).min(head);
            let lines = store
                .lines(
                    after,
                    upto,
                    opts.context.saturating_mul(2).saturating_add(1),
                )
                .map_err(failed(setting, "read events"))?;
            around = parse(setting, lines)?;
            around.retain(|e| e.seq != hit.seq);
        }
        hits.push(Match { hit, around });
    }
    Ok(Found {
        hits,
        status_known: false,
        bounds: searched.bounds,
        phrases_as_words: searched.phrases_as_words,
        index_note: None,
    })
}

/// A store's hit as the folder index's.
fn hit(setting: &StoreSetting, h: remaind_pg::SearchHit) -> Result<Hit> {
    let event = parse_one(setting, h.seq, &h.line)?;
    let from_text = event.text.as_deref().is_some_and(|t| !t.is_empty());
    Ok(Hit {
        id: event.id,
        seq: event.seq,
        kind: event.kind,
        ts: event.ts,
        importance: event.importance,
        status: remaind_events::Status::Current,
        field: if from_text { Field::Text } else { Field::Input },
        snippet: h.snippet,
        rank: f64::from(h.rank),
        score: f64::from(h.rank),
        exact: false,
    })
}

// ---------------------------------------------------------------------------------------------
// events

/// [`crate::store_events`]: a slice read straight from the store, then followed.
pub(crate) fn events(setting: &StoreSetting, slice: &Slice) -> Result<Events> {
    let mut store = connect(setting)?;
    let head = store.head().map_err(failed(setting, "read the head"))?.seq;
    let events = slice_of(&mut store, setting, slice, head)?;
    let read_to = match (slice.from, events.last()) {
        (_, Some(last)) => last.seq,
        (Some(from), None) => from.saturating_sub(1).min(head),
        (None, None) => head,
    };
    let follow = Follow {
        setting: setting.clone(),
        store: Some(store),
        wait: RECONNECT_FIRST,
    };
    Ok(crate::events::from_store(
        events,
        head,
        read_to,
        &slice.filter,
        follow,
    ))
}

/// The slice's events, read in pages up to the head read (a row past it was not written by
/// an append): forward from `from`, else backwards from `before` (or the head) until
/// `limit` events pass the filter.
fn slice_of(
    store: &mut Store,
    setting: &StoreSetting,
    slice: &Slice,
    head: u64,
) -> Result<Vec<Event>> {
    let mut read = |after: u64, upto: u64, limit: usize| {
        let lines = store
            .lines(after, upto, limit)
            .map_err(failed(setting, "read events"))?;
        parse(setting, lines)
    };
    if let Some(from) = slice.from {
        let mut out = Vec::new();
        let mut after = from.saturating_sub(1);
        while out.len() < slice.limit && after < head {
            let page = read(after, head, PAGE)?;
            let Some(last) = page.last() else { break };
            after = last.seq;
            out.extend(page.into_iter().filter(|e| slice.filter.matches(e)));
        }
        out.truncate(slice.limit);
        return Ok(out);
    }
    let mut end = slice
        .before
        .unwrap_or(head + 1)
        .min(head + 1)
        .saturating_sub(1);
    let mut out: Vec<Event> = Vec::new();
    while out.len() < slice.limit && end > 0 {
        let start = end.saturating_sub(PAGE as u64);
        let page = read(start, end, usize::try_from(end - start).unwrap_or(PAGE))?;
        let mut matched: Vec<Event> = page
            .into_iter()
            .filter(|e| slice.filter.matches(e))
            .collect();
        matched.append(&mut out);
        out = matched;
        end = start;
    }
    let cut = out.len().saturating_sub(slice.limit);
    Ok(out.split_off(cut))
}

/// Following a store: its connection, or none while reconnecting.
pub(crate) struct Follow {
    setting: StoreSetting,
    store: Option<Store>,
    /// The wait before the next try to connect again.
    wait: Duration,
}

impl Follow {
    /// The next step after seq `after`: new events, or a note while the connection is lost
    /// (a server restarting refuses connections for a while: each failed try waits longer).
    /// Gives up only on an error no new connection can fix (a privilege, a missing project).
    pub(crate) fn next(&mut self, after: &mut u64, filter: &Filter) -> Result<Followed> {
        loop {
            let Some(store) = self.store.as_mut() else {
                return self.reconnect();
            };
            let now = match store.wait(*after, FOLLOW_WAIT) {
                Ok(now) => now,
                Err(e) if e.is_connection_lost() => return Ok(self.lost(&e)),
                Err(e) => return Err(failed(&self.setting, "wait for appends")(e)),
            };
            if now.seq <= *after {
                continue;
            }
            let page = match store.lines(*after, now.seq, PAGE) {
                Ok(page) => page,
                Err(e) if e.is_connection_lost() => return Ok(self.lost(&e)),
                Err(e) => return Err(failed(&self.setting, "read events")(e)),
            };
            let page = parse(&self.setting, page)?;
            let Some(last) = page.last() else { continue };
            *after = last.seq;
            let shown: Vec<Event> = page.into_iter().filter(|e| filter.matches(e)).collect();
            if !shown.is_empty() {
                return Ok(Followed::Events(shown));
            }
        }
    }

    fn lost(&mut self, lost: &remaind_pg::Error) -> Followed {
        self.store = None;
        self.wait = RECONNECT_FIRST;
        Followed::Note(format!(
            "lost the connection to the store of project {:?} ({}); reconnecting",
            self.setting.project,
            std::error::Error::source(lost).map_or_else(|| lost.to_string(), ToString::to_string)
        ))
    }

    fn reconnect(&mut self) -> Result<Followed> {
        std::thread::sleep(self.wait);
        match Store::connect(&self.setting.url, &self.setting.project) {
            Ok(store) => {
                self.store = Some(store);
                Ok(Followed::Note(format!(
                    "reconnected to the store of project {:?}; following on",
                    self.setting.project
                )))
            }
            Err(e) if e.is_connection_lost() => {
                self.wait = (self.wait * 2).min(RECONNECT_MAX);
                Ok(Followed::Note(format!(
                    "the store is still unreachable; trying again in {} ms",
                    self.wait.as_millis()
                )))
            }
            Err(e) => Err(failed(&self.setting, "reconnect")(e)),
        }
    }
}
