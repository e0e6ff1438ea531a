//! The shared store read straight from a machine that keeps no folder (cargo feature
//! `store`): its server-side search, mapped into the folder index's hits.

use remaind_events::Event;
use remaind_index::{Field, Hit, QueryBounds, Searched, Syntax};
use remaind_ledger::StoreSetting;
use remaind_pg::Store;

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
    if opts.current_only {
        return Err(Error::NotOnStore {
            what: "keep only current events (it does not know which are)",
        });
    }
    if opts.syntax != Syntax::Plain {
        return Err(Error::NotOnStore {
            what: "read raw FTS5 syntax (the folder's index does)",
        });
    }
    let mut store = connect(setting)?;
    let searched = paged(opts, |limit| {
        let filter = remaind_pg::SearchFilter {
            kinds: opts.kinds.iter().map(|k| k.as_str().to_owned()).collect(),
            min_importance: opts.min_importance.unwrap_or(0),
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
