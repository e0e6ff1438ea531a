//! Slices from the index are the ledger's slices, on generated ledgers, before and after
//! further appends (incremental catch-up).

use proptest::prelude::*;
use remaind_events::Filter;
use remaind_events::{EventId, Kind, NewEvent};
use remaind_index::Index;

use crate::common;

/// A generated event: kind index, importance bump, text word, and targets as fractions of
/// the events before it.
type Spec = (usize, u8, usize, Option<u8>, Option<u8>);

fn spec() -> impl Strategy<Value = Spec> {
    (
        0..14usize,
        0..2u8,
        0..6usize,
        proptest::option::of(any::<u8>()),
        proptest::option::of(any::<u8>()),
    )
}

/// A caller event from a spec, citing only events that exist (`head` of them).
fn new_event(s: &Spec, head: u64) -> NewEvent {
    let (k, bump, word, sup, res) = *s;
    let kind = Kind::ALL[k];
    let words = ["plover", "stint", "dunlin", "knot", "sanderling", "ruff"];
    let target = |f: Option<u8>| {
        f.filter(|_| head > 0)
            .map(|f| EventId(1 + u64::from(f) % head))
    };
    let mut supersedes: Vec<EventId> = target(sup).into_iter().collect();
    if kind == Kind::Correction && supersedes.is_empty() {
        if head == 0 {
            return NewEvent {
                kind: Some(Kind::Note),
                text: Some(words[word].into()),
                ..NewEvent::default()
            };
        }
        supersedes.push(EventId(head));
    }
    NewEvent {
        kind: Some(kind),
        text: Some(format!("{} event", words[word])),
        importance: Some((kind.min_importance() + bump).min(3)),
        supersedes,
        resolves: target(res).into_iter().collect(),
        ..NewEvent::default()
    }
}

fn append(ledger: &remaind_ledger::Ledger, specs: &[Spec]) {
    let (mut head, _) = ledger.head().unwrap();
    let batch: Vec<NewEvent> = specs
        .iter()
        .map(|s| {
            let e = new_event(s, head);
            head += 1;
            e
        })
        .collect();
    ledger.append(batch).unwrap();
}

/// A slice request: from/before seq, limit, kinds, min importance.
type Req = (u64, usize, Vec<usize>, Option<u8>);

fn req() -> impl Strategy<Value = Req> {
    (
        0..80u64,
        0..30usize,
        proptest::collection::vec(0..14usize, 0..3),
        proptest::option::of(0..4u8),
    )
}

fn check(
    index: &mut Index<'_>,
    ledger: &remaind_ledger::Ledger,
    reqs: &[Req],
) -> Result<(), TestCaseError> {
    for (seq, limit, kinds, min) in reqs {
        let filter = Filter {
            kinds: kinds.iter().map(|&k| Kind::ALL[k]).collect(),
            min_importance: *min,
        };
        prop_assert_eq!(
            index.range(*seq, *limit, &filter).unwrap(),
            ledger.range(*seq, *limit, &filter).unwrap(),
            "range({}, {}, {:?})",
            seq,
            limit,
            filter
        );
        prop_assert_eq!(
            index.before(*seq, *limit, &filter).unwrap(),
            ledger.before(*seq, *limit, &filter).unwrap(),
            "before({}, {}, {:?})",
            seq,
            limit,
            filter
        );
    }
    let (head, _) = ledger.head().unwrap();
    for seq in 0..=head + 1 {
        prop_assert_eq!(
            index.status(EventId(seq)).unwrap(),
            ledger.status(EventId(seq)).unwrap(),
            "status e{}",
            seq
        );
    }
    Ok(())
}

proptest! {
    #[test]
    fn prop_index_slices_match_ledger(
        first in proptest::collection::vec(spec(), 0..50),
        more in proptest::collection::vec(spec(), 0..20),
        reqs in proptest::collection::vec(req(), 1..8),
    ) {
        let (_tmp, dir, ledger) = common::ledger();
        if !first.is_empty() {
            append(&ledger, &first);
        }
        let mut index = Index::open(&dir, &ledger).unwrap();
        check(&mut index, &ledger, &reqs)?;
        if !more.is_empty() {
            append(&ledger, &more);
        }
        check(&mut index, &ledger, &reqs)?;
    }
}
