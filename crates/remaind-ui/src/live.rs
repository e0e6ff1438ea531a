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

/// `GET /live?after=N`: the events after seq N (or after `Last-Event-ID`), as they come.
pub(crate) async fn tail(
    State(app): State<Arc<App>>,
    Extension(Stop(stop)): Extension<Stop>,
    headers: HeaderMap,
    params: Params,
) -> Sse<impl Stream<Item = Result<SseEvent, Infallible>>> {
    let resumed = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let after = resumed
        .or_else(|| params.get("after").and_then(|v| v.parse().ok()))
        .unwrap_or(0);
    let stream = futures_util::stream::unfold(
        (
            app,
            after,
            Vec::<SseEvent>::new(),
            stop,
            None::<Arc<Ledger>>,
        ),
        |(app, mut after, mut pending, mut stop, mut ledger)| async move {
            loop {
                if let Some(ev) = pending.pop() {
                    return Some((Ok(ev), (app, after, pending, stop, ledger)));
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
                    let events = ledger.range(after + 1, BATCH).ok()?;
                    Some((ledger, events))
                })
                .await;
                if let Ok(Some((open, events))) = read {
                    ledger = Some(open);
                    for ev in events.iter().rev() {
                        pending.push(
                            SseEvent::default()
                                .event("event")
                                .id(ev.seq.to_string())
                                .data(event_row(ev)),
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
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}
