//! How the validator reads the ledger: the [`LedgerView`] trait and an in-memory
//! implementation, [`MemoryLedger`], for tests, fixtures and callers checking their own
//! summarizer against a ledger they hold in memory.

use crate::Error;
use crate::chain::{build_event, line_digest};
use crate::event::{Event, EventId, GENESIS_PREV, Kind, NewEvent};

/// Which events a positional read returns (the on-disk ledger's, the index's, a shared
/// store's): the same two conditions everywhere.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Only these kinds (all kinds when empty).
    pub kinds: Vec<Kind>,
    /// Only events of at least this importance.
    pub min_importance: Option<u8>,
}

impl Filter {
    /// True when `ev` passes the filter.
    pub fn matches(&self, ev: &Event) -> bool {
        (self.kinds.is_empty() || self.kinds.contains(&ev.kind))
            && self.min_importance.is_none_or(|m| ev.importance >= m)
    }
}

/// A stream of events in sequence order, as returned by [`LedgerView::events_in`].
pub type EventIter<'a> = Box<dyn Iterator<Item = Result<Event, Error>> + 'a>;

/// Read access to a ledger, as much as the validator needs and no more.
///
/// The validator is incremental: it calls [`LedgerView::events_in`] only for the events after
/// the prior accepted state, and [`LedgerView::event`] / [`LedgerView::events`] only for
/// events that state cites whose obligations it cannot settle from the prior alone, so an
/// implementation should make `event` random access (an offset index) and `events_in` a
/// positional scan.
pub trait LedgerView {
    /// The sequence number of the last event (0 for an empty ledger).
    fn head(&self) -> Result<u64, Error>;

    /// The chain hash at `seq`: hex SHA-256 of line `seq`'s bytes without its newline, or
    /// [`GENESIS_PREV`] for 0. `None` when `seq` is past the head.
    fn digest_at(&self, seq: u64) -> Result<Option<String>, Error>;

    /// The event with this id, or `None` when there is none.
    fn event(&self, id: EventId) -> Result<Option<Event>, Error>;

    /// The events with these ids (ascending, no repeats), each `None` when there is none. The
    /// validator asks for several at once so that a view over a file can read them in one
    /// forward pass; the default asks [`LedgerView::event`] for each.
    fn events(&self, ids: &[EventId]) -> Result<Vec<Option<Event>>, Error> {
        ids.iter().map(|id| self.event(*id)).collect()
    }

    /// The events with `after_seq < seq <= through_seq`, in order. Positions past the head are
    /// simply absent.
    fn events_in(&self, after_seq: u64, through_seq: u64) -> EventIter<'_>;
}

impl<V: LedgerView + ?Sized> LedgerView for &V {
    fn head(&self) -> Result<u64, Error> {
        (**self).head()
    }
    fn digest_at(&self, seq: u64) -> Result<Option<String>, Error> {
        (**self).digest_at(seq)
    }
    fn event(&self, id: EventId) -> Result<Option<Event>, Error> {
        (**self).event(id)
    }
    fn events(&self, ids: &[EventId]) -> Result<Vec<Option<Event>>, Error> {
        (**self).events(ids)
    }
    fn events_in(&self, after_seq: u64, through_seq: u64) -> EventIter<'_> {
        (**self).events_in(after_seq, through_seq)
    }
}

/// A ledger held in memory: its events and the SHA-256 of each line's bytes.
///
/// Build one from a stored `events.jsonl` ([`MemoryLedger::from_jsonl`]), or append events the
/// way the on-disk ledger would ([`MemoryLedger::append`]: seq, id, `prev` assigned, importance
/// defaulted by kind, citations of missing events refused).
#[derive(Debug, Clone, Default)]
pub struct MemoryLedger {
    events: Vec<Event>,
    digests: Vec<String>,
}

impl MemoryLedger {
    /// An empty ledger.
    pub fn new() -> Self {
        Self::default()
    }

    /// Parse stored lines (one JSON event per line, as in `logs/events.jsonl`), keeping each
    /// line's exact bytes for the digests. Checks that `seq` is gapless from 1, that `id` is
    /// `e<seq>` and that every `prev` is the digest of the line before.
    pub fn from_jsonl(text: &str) -> Result<Self, Error> {
        let mut ledger = Self::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let seq = ledger.events.len() as u64 + 1;
            let event: Event = serde_json::from_str(line).map_err(|e| Error::InvalidEvent {
                seq,
                reason: format!("not a stored event line: {e}"),
            })?;
            ledger.check_position(&event)?;
            ledger.digests.push(line_digest(line.as_bytes()));
            ledger.events.push(event);
        }
        Ok(ledger)
    }

    /// Append a complete event whose `seq`, `id` and `prev` must already be right; its line is
    /// its compact JSON serialization.
    pub fn push(&mut self, event: Event) -> Result<EventId, Error> {
        self.check_position(&event)?;
        let line = serde_json::to_string(&event).map_err(|e| Error::InvalidEvent {
            seq: event.seq,
            reason: format!("cannot serialize: {e}"),
        })?;
        let id = event.id;
        self.digests.push(line_digest(line.as_bytes()));
        self.events.push(event);
        Ok(id)
    }

    /// Append what a caller gives, assigning `v`, `seq`, `id`, `prev` and the given `ts`, with
    /// importance defaulted by kind. Refuses a missing kind, an importance outside
    /// `min_importance..=3`, a correction that supersedes nothing, and citations (`refs`,
    /// `supersedes`, `resolves`) of events that do not exist yet.
    pub fn append(&mut self, new: NewEvent, ts: &str) -> Result<EventId, Error> {
        let seq = self.events.len() as u64 + 1;
        let event = build_event(new, seq, self.last_digest(), ts)?;
        self.push(event)
    }

    /// The events, in order.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The ledger as stored lines, each followed by a newline.
    pub fn to_jsonl(&self) -> String {
        let mut out = String::new();
        for event in &self.events {
            if let Ok(line) = serde_json::to_string(event) {
                out.push_str(&line);
                out.push('\n');
            }
        }
        out
    }

    fn last_digest(&self) -> &str {
        self.digests.last().map_or(GENESIS_PREV, String::as_str)
    }

    fn check_position(&self, event: &Event) -> Result<(), Error> {
        let seq = self.events.len() as u64 + 1;
        let invalid = |reason: String| Error::InvalidEvent { seq, reason };
        if event.seq != seq {
            return Err(invalid(format!("`seq` is {}, expected {seq}", event.seq)));
        }
        if event.id != EventId(seq) {
            return Err(invalid(format!("`id` is {}, expected e{seq}", event.id)));
        }
        if event.prev != self.last_digest() {
            return Err(invalid(format!(
                "`prev` is {}, expected the digest of the line before, {}",
                event.prev,
                self.last_digest()
            )));
        }
        Ok(())
    }
}

impl LedgerView for MemoryLedger {
    fn head(&self) -> Result<u64, Error> {
        Ok(self.events.len() as u64)
    }

    fn digest_at(&self, seq: u64) -> Result<Option<String>, Error> {
        if seq == 0 {
            return Ok(Some(GENESIS_PREV.to_owned()));
        }
        Ok(usize::try_from(seq - 1)
            .ok()
            .and_then(|i| self.digests.get(i))
            .cloned())
    }

    fn event(&self, id: EventId) -> Result<Option<Event>, Error> {
        Ok(id
            .seq()
            .checked_sub(1)
            .and_then(|i| usize::try_from(i).ok())
            .and_then(|i| self.events.get(i))
            .cloned())
    }

    fn events_in(&self, after_seq: u64, through_seq: u64) -> EventIter<'_> {
        let len = self.events.len();
        let start = usize::try_from(after_seq).unwrap_or(usize::MAX).min(len);
        let end = usize::try_from(through_seq)
            .unwrap_or(usize::MAX)
            .min(len)
            .max(start);
        Box::new(self.events[start..end].iter().cloned().map(Ok))
    }
}
