//! The live tail: server-sent events, one per new ledger event, each carrying its seq as the
//! SSE id so a reconnecting browser resumes after the last row it got (`Last-Event-ID`).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::Extension;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use futures_util::Stream;
use remaind_ledger::Ledger;

use crate::html::event_row;
use crate::server::{App, Params};

/// Set when the server is shutting down: every tail ends.
#[derive(Debug, Clone)]
pub(crate) struct Stop(pub(crate) tokio::sync::watch::Receiver<bool>);

/// How often the head is read.
const POLL: Duration = Duration::from_millis(300);
/// Events sent per poll at most (a burst is sent over several polls).
const BATCH: usize = 200;
/// How often a quiet tail writes a keep-alive comment: well within [`crate::IDLE_TIMEOUT`], so
/// an open tail is never closed as idle.
const KEEP_ALIVE: Duration = Duration::from_secs(15);
const _: () = assert!(KEEP_ALIVE.as_secs() * 2 < crate::IDLE_TIMEOUT.as_secs());

/// `GET /live?after=N`: the events after seq N (or after `Last-Event-ID`), as they come.
///
/// A seq past the ledger's head, or one that is no seq at all (`18446744073709551616`,
/// `abc`), resumes at the head: the tail never starts over from the first event because
/// of what a client sent.
pub(crate) async fn tail(
    State(app): State<Arc<App>>,
    Extension(Stop(stop)): Extension<Stop>,
    headers: HeaderMap,
    params: Params,
) -> Sse<impl Stream<Item = Result<SseEvent, Infallible>>> {
    let resumed = headers
        .get("last-event-id")
        .map(|v| v.to_str().ok().and_then(|v| v.trim().parse::<u64>().ok()));
    let after = match resumed {
        Some(id) => id,
        None => params.get("after").map_or(Some(0), |v| v.parse().ok()),
    }
    // Read as "at the head", which the first read clamps to.
    .unwrap_or(u64::MAX);
    let stream = futures_util::stream::unfold(
        (
            app,
            (after, true),
            Vec::<SseEvent>::new(),
            stop,
            None::<Arc<Ledger>>,
        ),
        |(app, (mut after, mut clamp), mut pending, mut stop, mut ledger)| async move {
            loop {
                if let Some(ev) = pending.pop() {
                    return Some((Ok(ev), (app, (after, clamp), pending, stop, ledger)));
                }
                if *stop.borrow() {
                    return None;
                }
                let ctx_app = Arc::clone(&app);
                let open = ledger.clone();
                let read = tokio::task::spawn_blocking(move || {
                    let ledger = match open {
                        Some(l) => l,
                        None => Arc::new(Ledger::open(ctx_app.ctx.root()).ok()?),
                    };
                    // The first read resumes at the head at most.
                    let from = if clamp {
                        after.min(ledger.head().ok()?.0)
                    } else {
                        after
                    };
                    let events = match from.checked_add(1) {
                        Some(next) => ledger
                            .range(next, BATCH, &remaind_events::Filter::default())
                            .ok()?,
                        None => Vec::new(),
                    };
                    Some((ledger, from, events))
                })
                .await;
                if let Ok(Some((open, from, events))) = read {
                    ledger = Some(open);
                    (after, clamp) = (from, false);
                    for ev in events.iter().rev() {
                        pending.push(
                            SseEvent::default()
                                .event("event")
                                .id(ev.seq.to_string())
                                .data(event_row(ev).into_string()),
                        );
                    }
                    if let Some(last) = events.last() {
                        after = last.seq;
                        continue;
                    }
                } else {
                    // The folder moved or was re-created: open it afresh next time.
                    ledger = None;
                }
                tokio::select! {
                    () = tokio::time::sleep(POLL) => {}
                    _ = stop.changed() => {}
                }
            }
        },
    );
    Sse::new(stream).keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
}
