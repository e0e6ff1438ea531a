//! The prior accepted compaction, and what the incremental walk settles from it without
//! reading the ledger.
//!
//! Why reads can be skipped: the prior pair (state and the handover bound to it) passed every
//! check at its `through_seq`. A tail can only take obligations away from older events (an
//! event superseded or resolved since needs less, never more), so an older event the
//! candidate keeps in every state section the prior cited it in, and in its handover when
//! the prior's handover cited it as current, meets all of its obligations whatever its kind
//! and importance. Only the prior citations the candidate drops or moves are read. Check 3 is
//! the exception, because it asks for a maximum: when the tail holds no active `next_step`,
//! the latest active one is the prior's own (its `next_step` cites it) unless the tail closed
//! it, and only then is the prior's next older citation searched, newest first.

use std::collections::HashMap;

use remaind_events::{EventId, Kind};

use crate::handover::{Handover, parse_binding};
use crate::state::{CURRENT_SECTIONS, State, USER_ASKED};
use remaind_events::{Error, LedgerView};

/// The prior accepted compaction as the validator trusts it: its state and, when known to be
/// the one accepted with it, its handover.
#[derive(Debug, Clone)]
pub struct Prior<'a> {
    state: &'a State,
    /// The current citations of the handover bound to `state`.
    handover_current: Option<IdSet>,
}

impl<'a> Prior<'a> {
    /// The prior accepted state alone. Every older event the candidate does not also cite in
    /// a current handover section is then read from the ledger.
    pub fn new(state: &'a State) -> Self {
        Prior {
            state,
            handover_current: None,
        }
    }

    /// The prior accepted state with the handover accepted with it. `state_bytes` are the
    /// bytes `state` was read from; the handover is used only when its binding line names
    /// their SHA-256 and the state's `through_seq` (otherwise this is [`Prior::new`]).
    pub fn with_handover(state: &'a State, state_bytes: &[u8], handover: &str) -> Self {
        let bound = parse_binding(handover).is_some_and(|b| {
            b.through_seq == state.through_seq
                && b.state_sha256 == remaind_hash::sha256_hex(state_bytes)
        });
        let handover_current = bound.then(|| {
            Handover::parse(handover)
                .current_citations()
                .map(|(_, id)| id)
                .collect()
        });
        Prior {
            state,
            handover_current,
        }
    }

    /// The prior accepted state.
    pub fn state(&self) -> &'a State {
        self.state
    }

    /// Whether the bound handover is known (and so fewer events need reading).
    pub fn has_handover(&self) -> bool {
        self.handover_current.is_some()
    }
}

impl<'a> From<&'a State> for Prior<'a> {
    fn from(state: &'a State) -> Self {
        Prior::new(state)
    }
}

/// What the checks need to know about an event that may be required.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Info {
    pub(crate) id: EventId,
    pub(crate) kind: Kind,
    pub(crate) importance: u8,
}

/// Kinds whose events check 1 or check 2 place in a specific list.
pub(crate) fn has_own_list(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Result
            | Kind::FileChange
            | Kind::Decision
            | Kind::Correction
            | Kind::Constraint
            | Kind::Blocker
    )
}

/// Whether an event may ever be required by a check (bookkeeping never is).
pub(crate) fn may_be_required(kind: Kind, importance: u8) -> bool {
    !kind.is_bookkeeping() && (has_own_list(kind) || kind == Kind::NextStep || importance >= 2)
}

/// A set of event ids (foldhash: ids are small integers, hashed by the million).
pub(crate) type IdSet = foldhash::HashSet<EventId>;

/// The places a state cites an event, one bit per section name of
/// [`State::current_citations`].
pub(crate) type Places = u16;

/// The bit of a section name of [`State::current_citations`]: the current sections (next step
/// included) in their order, then the latest user instruction.
pub(crate) fn place_bit(section: &str) -> Places {
    match CURRENT_SECTIONS.iter().position(|n| *n == section) {
        Some(i) => 1 << i,
        None if section == "latest_user_instruction" => 1 << CURRENT_SECTIONS.len(),
        None if section == USER_ASKED => 1 << (CURRENT_SECTIONS.len() + 1),
        None => 1 << 15,
    }
}

/// Every event a state cites, with the places it cites it (ids up to `through` only).
pub(crate) fn places_of(state: &State, through: u64) -> foldhash::HashMap<EventId, Places> {
    let mut out: foldhash::HashMap<EventId, Places> = foldhash::HashMap::default();
    let mut add = |bit: Places, ids: &[EventId]| {
        for id in ids.iter().filter(|id| id.seq() <= through) {
            *out.entry(*id).or_default() |= bit;
        }
    };
    for name in CURRENT_SECTIONS {
        if let Some(items) = state.section(name) {
            let bit = place_bit(name);
            for item in items {
                add(bit, &item.events);
            }
        }
    }
    if let Some(step) = &state.next_step {
        add(place_bit("next_step"), &step.events);
    }
    if let Some(ins) = &state.latest_user_instruction {
        add(place_bit("latest_user_instruction"), &[ins.event]);
    }
    let bit = place_bit(USER_ASKED);
    for asked in &state.user_asked {
        add(bit, &asked.events);
    }
    out
}

/// What the candidate cites, as the carry-over needs it.
pub(crate) struct Cites<'c> {
    /// Each cited id and the state sections citing it.
    pub(crate) state: &'c foldhash::HashMap<EventId, Places>,
    /// Ids cited in current handover sections.
    pub(crate) handover: &'c IdSet,
}

/// What the walk carries over from events at or before the prior's `through_seq`.
pub(crate) struct Carried {
    /// Prior citations that had to be read (the candidate dropped or moved them) and may be
    /// required.
    pub(crate) infos: Vec<Info>,
    /// The latest `next_step` event at or before the prior's `through_seq` that is still
    /// active; only looked for when `need_step` was set.
    pub(crate) latest_step: Option<EventId>,
}

/// Settle the older events' obligations: read only the prior citations the candidate does
/// not keep in place and, when `need_step` (the tail holds no active `next_step`), find the
/// latest active older step.
pub(crate) fn carry(
    view: &dyn LedgerView,
    prior: &Prior<'_>,
    is_current: &dyn Fn(&EventId) -> bool,
    cites: &Cites<'_>,
    need_step: bool,
) -> Result<Carried, Error> {
    let after = prior.state.through_seq;
    let places = places_of(prior.state, after);
    // Cheapest question first: most older events were not in the prior's (capped) handover.
    let in_handover_if_needed = |id: &EventId| {
        prior
            .handover_current
            .as_ref()
            .is_some_and(|h| !h.contains(id))
            || cites.handover.contains(id)
            || !is_current(id)
    };
    let kept = |id: &EventId, prior_places: Places| {
        let now = cites.state.get(id).copied().unwrap_or(0);
        prior_places & !now == 0 && in_handover_if_needed(id)
    };
    let mut read: Vec<EventId> = places
        .iter()
        .filter(|(id, prior_places)| !kept(id, **prior_places))
        .map(|(id, _)| *id)
        .collect();
    let prior_steps: Vec<EventId> = prior
        .state
        .next_step
        .iter()
        .flat_map(|s| s.events.iter().copied())
        .filter(|id| id.seq() <= after)
        .collect();
    if need_step {
        read.extend(&prior_steps);
    }
    read.sort_unstable();
    read.dedup();
    let mut kinds: HashMap<EventId, Kind> = HashMap::new();
    let mut infos = Vec::new();
    for (id, event) in read.iter().zip(view.events(&read)?) {
        let Some(event) = event else { continue };
        kinds.insert(*id, event.kind);
        if places.contains_key(id) && may_be_required(event.kind, event.importance) {
            infos.push(Info {
                id: *id,
                kind: event.kind,
                importance: event.importance,
            });
        }
    }

    let mut latest_step = None;
    if need_step {
        // The prior's next_step cites its latest active step (check 3 held for it).
        let prior_latest = prior_steps
            .iter()
            .copied()
            .filter(|id| kinds.get(id) == Some(&Kind::NextStep))
            .max();
        latest_step = match prior_latest {
            None => None,
            Some(step) if is_current(&step) => Some(step),
            Some(step) => {
                let mut older: Vec<EventId> = places
                    .keys()
                    .copied()
                    .filter(|id| *id < step && is_current(id))
                    .collect();
                older.sort_unstable_by(|a, b| b.cmp(a));
                newest_step(view, &older, &mut kinds)?
            }
        };
    }
    Ok(Carried { infos, latest_step })
}

/// The first `next_step` event of `newest_first`, reading kinds in growing batches so a step
/// near the top costs a few reads.
fn newest_step(
    view: &dyn LedgerView,
    newest_first: &[EventId],
    kinds: &mut HashMap<EventId, Kind>,
) -> Result<Option<EventId>, Error> {
    let (mut start, mut size) = (0, 16);
    while start < newest_first.len() {
        let end = (start + size).min(newest_first.len());
        let chunk = &newest_first[start..end];
        (start, size) = (end, (size * 4).min(4096));
        let mut unknown: Vec<EventId> = chunk
            .iter()
            .copied()
            .filter(|id| !kinds.contains_key(id))
            .collect();
        unknown.sort_unstable();
        for (id, event) in unknown.iter().zip(view.events(&unknown)?) {
            if let Some(event) = event {
                kinds.insert(*id, event.kind);
            }
        }
        if let Some(step) = chunk
            .iter()
            .find(|id| kinds.get(id) == Some(&Kind::NextStep))
        {
            return Ok(Some(*step));
        }
    }
    Ok(None)
}
