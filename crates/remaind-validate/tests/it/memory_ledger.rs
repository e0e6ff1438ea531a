//! The in-memory ledger view: assignment, refusals, digests, stored-line round trip.

use remaind_events::{EventId, GENESIS_PREV, Kind, NewEvent};
use remaind_validate::{Error, LedgerView, MemoryLedger};

fn new(kind: Kind) -> NewEvent {
    NewEvent {
        kind: Some(kind),
        text: Some(format!("a {kind}")),
        ..NewEvent::default()
    }
}

#[test]
fn append_assigns_and_chains() {
    let mut ledger = MemoryLedger::new();
    assert_eq!(ledger.head().unwrap(), 0);
    assert_eq!(ledger.digest_at(0).unwrap().as_deref(), Some(GENESIS_PREV));
    assert_eq!(ledger.digest_at(1).unwrap(), None);
    let a = ledger
        .append(new(Kind::Decision), "2026-11-21T21:00:00Z")
        .unwrap();
    let b = ledger
        .append(new(Kind::Note), "2026-11-21T21:00:01Z")
        .unwrap();
    assert_eq!((a, b), (EventId(1), EventId(2)));
    let e2 = ledger.event(b).unwrap().unwrap();
    assert_eq!(e2.prev, ledger.digest_at(1).unwrap().unwrap());
    assert_eq!(e2.importance, 1);
    assert_eq!(ledger.event(EventId(1)).unwrap().unwrap().importance, 2);
    assert!(ledger.event(EventId(3)).unwrap().is_none());
    let ids: Vec<EventId> = ledger.events_in(0, 99).map(|e| e.unwrap().id).collect();
    assert_eq!(ids, [a, b]);
    assert_eq!(ledger.events_in(1, 1).count(), 0);
    assert_eq!(ledger.events_in(5, 2).count(), 0);
}

#[test]
fn append_refuses_invalid_events() {
    let mut ledger = MemoryLedger::new();
    let mut dangling = new(Kind::Note);
    dangling.refs.push(EventId(1));
    let mut low = new(Kind::Decision);
    low.importance = Some(1);
    for bad in [NewEvent::default(), dangling, low, new(Kind::Correction)] {
        let err = ledger.append(bad, "t").unwrap_err();
        assert!(matches!(err, Error::InvalidEvent { seq: 1, .. }), "{err}");
    }
    assert_eq!(ledger.head().unwrap(), 0);
}

#[test]
fn stored_lines_round_trip_and_tampering_is_caught() {
    let mut ledger = MemoryLedger::new();
    for kind in [Kind::UserMessage, Kind::Result, Kind::NextStep] {
        ledger.append(new(kind), "2026-11-21T21:00:00Z").unwrap();
    }
    let text = ledger.to_jsonl();
    let again = MemoryLedger::from_jsonl(&text).unwrap();
    for seq in 0..=3 {
        assert_eq!(
            again.digest_at(seq).unwrap(),
            ledger.digest_at(seq).unwrap()
        );
    }
    let tampered = text.replacen("a result", "a RESULT", 1);
    let err = MemoryLedger::from_jsonl(&tampered).unwrap_err();
    assert!(err.to_string().contains("`prev`"), "{err}");
    assert!(MemoryLedger::from_jsonl("{not json}\n").is_err());
}
