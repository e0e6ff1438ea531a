//! Reading the ledger's events for every front-end: a slice (from a seq forward, or the
//! events before one, or the last ones), then, if asked, every new event as it is appended,
//! each once and in order: from a folder, or (cargo feature `store`) straight from a shared
//! store on a machine that keeps no folder, across lost connections.

use std::time::Duration;

use camino::Utf8Path;
use remaind_events::Event;
use remaind_events::Filter;
use remaind_fs::ContextDir;
use remaind_index::Index;
use remaind_ledger::Ledger;

use crate::Result;

/// How long one wait for new events lasts before the follower looks again.
pub(crate) const FOLLOW_WAIT: Duration = Duration::from_secs(2);
/// How often a follower of a plain folder looks at the log.
const FOLLOW_POLL: Duration = Duration::from_millis(200);
/// The first wait before trying again after the store's connection was lost; doubled on
/// each failure up to [`RECONNECT_MAX`].
pub(crate) const RECONNECT_FIRST: Duration = Duration::from_millis(250);
/// The longest wait between two tries.
pub(crate) const RECONNECT_MAX: Duration = Duration::from_secs(5);
/// Events read per page while following.
pub(crate) const PAGE: usize = 1000;

/// Which events [`events`] reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slice {
    /// The events from this seq on; else those before `before`; else the last ones.
    pub from: Option<u64>,
    /// The events before this seq (the closest ones).
    pub before: Option<u64>,
    /// At most this many events.
    pub limit: usize,
    /// Only the events that pass (the follower's too).
    pub filter: Filter,
}

impl Default for Slice {
    fn default() -> Self {
        Slice {
            from: None,
            before: None,
            limit: 20,
            filter: Filter::default(),
        }
    }
}

/// A slice of the ledger, in order, and what following it goes on from.
pub struct Events {
    /// The events, oldest first.
    pub events: Vec<Event>,
    /// The ledger's head when the slice was read (0 when it is empty).
    pub head: u64,
    /// The last seq the slice covers: a follower goes on after it.
    read_to: u64,
    filter: Filter,
    from: Origin,
}

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Events")
            .field("events", &self.events.len())
            .field("head", &self.head)
            .field("read_to", &self.read_to)
            .finish_non_exhaustive()
    }
}

/// What the slice was read from, kept for following it.
enum Origin {
    Folder(Box<Ledger>),
    #[cfg(feature = "store")]
    Store(Box<crate::store::Follow>),
}

/// One step of a [`Follower`].
#[derive(Debug, Clone, PartialEq)]
pub enum Followed {
    /// New events that pass the filter, in order (never empty).
    Events(Vec<Event>),
    /// Something to tell the user while following: the store's connection was lost, is
    /// still unreachable, or is back.
    Note(String),
}

/// Every event appended after a slice, each exactly once and in order, until an error: the
/// position is the last seq read (passing the filter or not), so nothing is skipped or
/// repeated however a wait ends or a connection is lost. Never ends by itself.
pub struct Follower {
    after: u64,
    filter: Filter,
    from: Origin,
    /// A wait owed before the next look (after a note about a lost connection).
    pause: Option<Duration>,
    backoff: Duration,
    done: bool,
}

impl std::fmt::Debug for Follower {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Follower")
            .field("after", &self.after)
            .finish_non_exhaustive()
    }
}

impl Events {
    /// Follow the ledger from the end of this slice.
    pub fn follow(self) -> Follower {
        Follower {
            after: self.read_to,
            filter: self.filter,
            from: self.from,
            pause: None,
            backoff: RECONNECT_FIRST,
            done: false,
        }
    }
}

impl Iterator for Follower {
    type Item = Result<Followed>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if let Some(pause) = self.pause.take() {
            std::thread::sleep(pause);
        }
        let step = match &mut self.from {
            Origin::Folder(ledger) => follow_folder(
                ledger,
                &mut self.after,
                &mut self.backoff,
                &mut self.pause,
                &self.filter,
            ),
            #[cfg(feature = "store")]
            Origin::Store(store) => store.next(&mut self.after, &self.filter),
        };
        self.done = step.is_err();
        Some(step)
    }
}

/// The next step of following a folder's ledger: a replica waits on its store (saying so
/// when the store is unreachable, then trying again, waiting longer each time), a plain
/// folder polls its log.
fn follow_folder(
    ledger: &Ledger,
    after: &mut u64,
    backoff: &mut Duration,
    pause: &mut Option<Duration>,
    filter: &Filter,
) -> Result<Followed> {
    let shared = ledger.store_project().is_some();
    loop {
        let head = match ledger.sync(FOLLOW_WAIT) {
            Ok(head) => {
                *backoff = RECONNECT_FIRST;
                head
            }
            Err(e) if e.is_connection_lost() => {
                let note = format!(
                    "{e}: the store is unreachable; reconnecting in {} ms",
                    backoff.as_millis()
                );
                *pause = Some(*backoff);
                *backoff = (*backoff * 2).min(RECONNECT_MAX);
                return Ok(Followed::Note(note));
            }
            Err(e) => return Err(e.into()),
        };
        if head <= *after {
            if !shared {
                std::thread::sleep(FOLLOW_POLL);
            }
            continue;
        }
        let page = ledger.range(*after + 1, PAGE, &Filter::default())?;
        let Some(last) = page.last() else { continue };
        *after = last.seq;
        let shown: Vec<Event> = page.into_iter().filter(|e| filter.matches(e)).collect();
        if !shown.is_empty() {
            return Ok(Followed::Events(shown));
        }
    }
}

/// A slice of the folder's ledger. Positional: reading it never parses the whole log. A
/// filtered slice is read from the index when it is present and matches the ledger, so a
/// rare kind does not scan the whole log; the events are the same either way.
///
/// ```no_run
/// use remaind_fs::ContextDir;
/// use remaind_service::{Followed, Slice};
///
/// let read = remaind_service::events(&ContextDir::new(".context"), &Slice::default())?;
/// for ev in &read.events {
///     println!("{} {}", ev.id, ev.kind.as_str());
/// }
/// for step in read.follow() {
///     match step? {
///         Followed::Events(new) => new.iter().for_each(|ev| println!("{}", ev.id)),
///         Followed::Note(note) => eprintln!("{note}"),
///     }
/// }
/// # Ok::<(), remaind_service::Error>(())
/// ```
pub fn events(ctx: &ContextDir, slice: &Slice) -> Result<Events> {
    let ledger = Ledger::open(ctx.root())?;
    let filtered = !slice.filter.kinds.is_empty() || slice.filter.min_importance.is_some();
    let indexed = if filtered {
        indexed_slice(ctx.root(), &ledger, slice)
    } else {
        None
    };
    let events = match indexed {
        Some(events) => events,
        None => match (slice.from, slice.before) {
            (Some(from), _) => ledger.range(from, slice.limit, &slice.filter)?,
            (None, Some(before)) => ledger.before(before, slice.limit, &slice.filter)?,
            (None, None) => {
                let (head, _) = ledger.head()?;
                ledger.before(head + 1, slice.limit, &slice.filter)?
            }
        },
    };
    let head = ledger.head()?.0;
    let read_to = match (slice.from, events.last()) {
        (_, Some(last)) => last.seq,
        (Some(from), None) => from.saturating_sub(1),
        (None, None) => head,
    };
    Ok(Events {
        events,
        head,
        read_to,
        filter: slice.filter.clone(),
        from: Origin::Folder(Box::new(ledger)),
    })
}

/// The filtered slice from the index, or `None` when the index is absent, cannot be opened
/// (permissions, corruption) or would need a full rebuild: the caller then reads the ledger,
/// which gives the same events. Never creates or rebuilds the index.
fn indexed_slice(root: &Utf8Path, ledger: &Ledger, slice: &Slice) -> Option<Vec<Event>> {
    let present =
        std::fs::symlink_metadata(root.join(remaind_index::DB_PATH)).is_ok_and(|m| m.is_file());
    if !present {
        return None;
    }
    let mut index = Index::open(root, ledger).ok()?;
    if !index.catch_up_incremental().ok()? {
        return None;
    }
    let filter = &slice.filter;
    match (slice.from, slice.before) {
        (Some(from), _) => index.range(from, slice.limit, filter).ok(),
        (None, Some(before)) => index.before(before, slice.limit, filter).ok(),
        (None, None) => {
            let (head, _) = ledger.head().ok()?;
            index.before(head + 1, slice.limit, filter).ok()
        }
    }
}

/// A slice read straight from the shared store (cargo feature `store`), on a machine that
/// keeps no folder: the same slices, filters and events as a folder's; following it waits
/// on the store and connects again when the connection is lost. Nothing is written
/// anywhere.
#[cfg(feature = "store")]
pub fn store_events(setting: &remaind_ledger::StoreSetting, slice: &Slice) -> Result<Events> {
    crate::store::events(setting, slice)
}

/// An [`Events`] read from a store, for `store.rs`.
#[cfg(feature = "store")]
pub(crate) fn from_store(
    events: Vec<Event>,
    head: u64,
    read_to: u64,
    filter: &Filter,
    follow: crate::store::Follow,
) -> Events {
    Events {
        events,
        head,
        read_to,
        filter: filter.clone(),
        from: Origin::Store(Box::new(follow)),
    }
}
