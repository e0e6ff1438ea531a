//! Item-by-item difference between two accepted states.

use remaind_events::EventId;
use remaind_validate::{CURRENT_SECTIONS, State};

/// What happened to an item between the older and the newer state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    /// In both.
    Kept,
    /// Only in the newer state.
    Added,
    /// Gone from the newer state, and one of its events is in the newer `superseded`.
    Superseded,
    /// Gone, and one of its events is in the newer `resolved`.
    Resolved,
    /// Gone, for no recorded reason (the compactor left it out).
    Dropped,
}

impl Change {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Change::Kept => "kept",
            Change::Added => "added",
            Change::Superseded => "superseded",
            Change::Resolved => "resolved",
            Change::Dropped => "dropped",
        }
    }
}

/// One section side by side: the older items and the newer items, each with its change.
#[derive(Debug)]
pub(crate) struct SectionDiff {
    pub(crate) name: &'static str,
    pub(crate) old: Vec<(String, Vec<EventId>, Change)>,
    pub(crate) new: Vec<(String, Vec<EventId>, Change)>,
}

/// The items of one current section of `state` (`next_step` included), with their citations.
pub(crate) fn items(state: &State, name: &str) -> Vec<(String, Vec<EventId>)> {
    if name == "next_step" {
        return state
            .next_step
            .iter()
            .map(|s| (s.text.clone(), s.events.clone()))
            .collect();
    }
    state
        .section(name)
        .unwrap_or_default()
        .iter()
        .map(|i| (i.text.clone(), i.events.clone()))
        .collect()
}

/// Every current section of `old` against `new`; an item is the same when its text is.
pub(crate) fn diff(old: &State, new: &State) -> Vec<SectionDiff> {
    let superseded: Vec<EventId> = new.superseded.iter().map(|l| l.event).collect();
    let resolved: Vec<EventId> = new.resolved.iter().map(|l| l.event).collect();
    CURRENT_SECTIONS
        .iter()
        .map(|name| {
            let a = items(old, name);
            let b = items(new, name);
            let old_side = a
                .iter()
                .map(|(text, events)| {
                    let change = if b.iter().any(|(t, _)| t == text) {
                        Change::Kept
                    } else if events.iter().any(|e| superseded.contains(e)) {
                        Change::Superseded
                    } else if events.iter().any(|e| resolved.contains(e)) {
                        Change::Resolved
                    } else {
                        Change::Dropped
                    };
                    (text.clone(), events.clone(), change)
                })
                .collect();
            let new_side = b
                .iter()
                .map(|(text, events)| {
                    let change = if a.iter().any(|(t, _)| t == text) {
                        Change::Kept
                    } else {
                        Change::Added
                    };
                    (text.clone(), events.clone(), change)
                })
                .collect();
            SectionDiff {
                name,
                old: old_side,
                new: new_side,
            }
        })
        .collect()
}
