//! Current, superseded and resolved events.

use std::collections::HashMap;

use crate::{Event, EventId};

/// Whether an event is still current.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// Neither superseded nor resolved.
    Current,
    /// A later event lists it in `supersedes` (the earliest such event).
    Superseded {
        /// The superseding event.
        by: EventId,
    },
    /// A later event lists it in `resolves` (the earliest such event), and none supersedes it.
    Resolved {
        /// The resolving event.
        by: EventId,
    },
}

impl Status {
    /// True for [`Status::Current`].
    pub fn is_current(self) -> bool {
        self == Status::Current
    }
}

/// The status of every event, built from one pass over events in log order.
///
/// Superseding wins over resolving; the earliest superseding (or resolving) event is named.
#[derive(Debug, Clone, Default)]
pub struct Statuses {
    map: HashMap<EventId, Status>,
}

impl Statuses {
    /// An empty builder; feed it events in log order with [`Statuses::observe`].
    pub fn new() -> Self {
        Statuses::default()
    }

    /// Build from events in log order.
    pub fn from_events<'a>(events: impl IntoIterator<Item = &'a Event>) -> Self {
        let mut st = Statuses::default();
        for ev in events {
            st.observe(ev);
        }
        st
    }

    /// Take one event into account (events must come in log order).
    pub fn observe(&mut self, ev: &Event) {
        for &target in &ev.supersedes {
            let entry = self.map.entry(target).or_insert(Status::Current);
            if !matches!(entry, Status::Superseded { .. }) {
                *entry = Status::Superseded { by: ev.id };
            }
        }
        for &target in &ev.resolves {
            let entry = self.map.entry(target).or_insert(Status::Current);
            if *entry == Status::Current {
                *entry = Status::Resolved { by: ev.id };
            }
        }
    }

    /// The status of `id` (current unless a observed event superseded or resolved it).
    pub fn get(&self, id: EventId) -> Status {
        self.map.get(&id).copied().unwrap_or(Status::Current)
    }

    /// True when `id` is neither superseded nor resolved.
    pub fn is_current(&self, id: EventId) -> bool {
        self.get(id).is_current()
    }

    /// Every superseded event and the event that superseded it, in id order.
    pub fn superseded(&self) -> Vec<(EventId, EventId)> {
        let mut v: Vec<_> = self
            .map
            .iter()
            .filter_map(|(&id, s)| match s {
                Status::Superseded { by } => Some((id, *by)),
                _ => None,
            })
            .collect();
        v.sort();
        v
    }

    /// Every resolved (and not superseded) event and the event that resolved it, in id order.
    pub fn resolved(&self) -> Vec<(EventId, EventId)> {
        let mut v: Vec<_> = self
            .map
            .iter()
            .filter_map(|(&id, s)| match s {
                Status::Resolved { by } => Some((id, *by)),
                _ => None,
            })
            .collect();
        v.sort();
        v
    }
}
