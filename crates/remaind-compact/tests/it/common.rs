//! Helpers: in-memory ledgers, compaction and validation on them.

use jiff::Timestamp;
use remaind_compact::{Candidate, compact_builtin};
use remaind_events::{EventId, NewEvent};
use remaind_validate::{LedgerView, MemoryLedger, Prior, State, Verdict, validate_typed};

pub(crate) const TS: &str = "2026-11-21T21:00:00.000000Z";

pub(crate) use remaind_testkit::event as ev;

pub(crate) fn id(n: u64) -> EventId {
    EventId(n)
}

pub(crate) fn ledger(events: Vec<NewEvent>) -> MemoryLedger {
    let mut l = MemoryLedger::new();
    for e in events {
        l.append(e, TS).expect("valid event");
    }
    l
}

/// Compact `ledger` through `through` on top of `prior` with the built-in compactor.
pub(crate) fn compact(ledger: &MemoryLedger, prior: Option<&State>, through: u64) -> Candidate {
    let after = prior.map_or(0, |p| p.through_seq);
    let tail: Vec<_> = ledger
        .events_in(after, through)
        .map(|e| e.expect("in memory"))
        .collect();
    let digest = ledger
        .digest_at(through)
        .expect("in memory")
        .expect("within the ledger");
    compact_builtin(
        prior,
        &tail,
        |id| ledger.event(id).ok().flatten(),
        through,
        &digest,
        Timestamp::UNIX_EPOCH,
    )
}

pub(crate) fn verdict(ledger: &MemoryLedger, prior: Option<&State>, cand: &Candidate) -> Verdict {
    validate_typed(
        ledger,
        prior.map(Prior::new).as_ref(),
        &cand.state,
        &cand.handover,
    )
    .expect("in-memory view never fails")
}

/// Compact everything from scratch and assert the validator accepts it.
pub(crate) fn accepted(ledger: &MemoryLedger) -> Candidate {
    let head = ledger.head().expect("in memory");
    let cand = compact(ledger, None, head);
    let v = verdict(ledger, None, &cand);
    assert!(
        v.accepted,
        "rejected: {:#?}\nstate: {:#?}\nhandover:\n{}",
        v.failures, cand.state, cand.handover
    );
    cand
}

/// All citations of a section of the state.
pub(crate) fn cited(items: &[remaind_validate::Item]) -> Vec<EventId> {
    items
        .iter()
        .flat_map(|i| i.events.iter().copied())
        .collect()
}

/// The state with `generated_at` blanked, for content comparisons.
pub(crate) fn content(state: &State) -> State {
    let mut s = state.clone();
    s.generated_at = String::new();
    s
}
