//! Status and the `current_only` filter are right after supersessions and resolutions, on a
//! rebuild and on an incremental catch-up alike.

use remaind_events::{EventId, Kind, NewEvent, Status, Statuses};
use remaind_index::{CatchUp, Index, SearchOptions};

use crate::common::{self, event, filler, log};

fn hits(index: &mut Index<'_>, query: &str, current_only: bool) -> Vec<EventId> {
    let mut v: Vec<_> = index
        .search(
            query,
            &SearchOptions {
                current_only,
                ..SearchOptions::default()
            },
        )
        .unwrap()
        .into_iter()
        .map(|h| h.id)
        .collect();
    v.sort();
    v
}

#[test]
fn supersessions_and_resolutions_rebuild_and_incremental() {
    let (_tmp, dir, ledger) = common::ledger();
    filler(&ledger, 10);
    let old = log(&ledger, Kind::Decision, "storage engine is flatfile");
    let step = log(&ledger, Kind::NextStep, "storage engine benchmark pending");
    let fix = ledger
        .append(NewEvent {
            supersedes: vec![old],
            ..event(Kind::Correction, "storage engine is sqlite after all")
        })
        .unwrap()[0];
    let mut index = Index::open(&dir, &ledger).unwrap();
    assert!(matches!(index.catch_up().unwrap(), CatchUp::Rebuilt(_)));
    assert_eq!(
        index.status(old).unwrap(),
        Some(Status::Superseded { by: fix })
    );
    assert_eq!(index.status(step).unwrap(), Some(Status::Current));
    assert_eq!(
        hits(&mut index, "storage engine", false),
        vec![old, step, fix]
    );
    assert_eq!(hits(&mut index, "storage engine", true), vec![step, fix]);
    let found = index.search("flatfile", &SearchOptions::default()).unwrap();
    assert_eq!(found[0].status, Status::Superseded { by: fix });

    // Incremental: a resolution, then a supersession of the resolved step (superseding wins),
    // then a second resolution (the earliest is named).
    let done = ledger
        .append(NewEvent {
            resolves: vec![step],
            ..event(Kind::Result, "benchmark done")
        })
        .unwrap()[0];
    assert_eq!(index.catch_up().unwrap(), CatchUp::Indexed(1));
    assert_eq!(
        index.status(step).unwrap(),
        Some(Status::Resolved { by: done })
    );
    assert_eq!(hits(&mut index, "storage engine", true), vec![fix]);
    let again = ledger
        .append(NewEvent {
            resolves: vec![fix],
            ..event(Kind::Result, "closing")
        })
        .unwrap()[0];
    let again2 = ledger
        .append(NewEvent {
            resolves: vec![fix],
            ..event(Kind::Result, "closing twice")
        })
        .unwrap()[0];
    let replace = ledger
        .append(NewEvent {
            supersedes: vec![step, fix],
            ..event(Kind::Correction, "replaced plan")
        })
        .unwrap()[0];
    assert_eq!(
        index.status(step).unwrap(),
        Some(Status::Superseded { by: replace })
    );
    assert_eq!(
        index.status(fix).unwrap(),
        Some(Status::Superseded { by: replace })
    );
    assert_eq!(index.status(again).unwrap(), Some(Status::Current));
    assert_eq!(index.status(again2).unwrap(), Some(Status::Current));
    assert_eq!(index.status(EventId(10_000)).unwrap(), None);
    assert!(hits(&mut index, "storage engine", true).is_empty());

    // Every status equals the ledger's, and a rebuild gives the same answers.
    let check = |index: &mut Index<'_>| {
        let events: Vec<_> = ledger.iter().unwrap().map(Result::unwrap).collect();
        let expected = Statuses::from_events(&events);
        let (head, _) = ledger.head().unwrap();
        for seq in 1..=head {
            assert_eq!(
                index.status(EventId(seq)).unwrap(),
                Some(expected.get(EventId(seq))),
                "e{seq}"
            );
            assert_eq!(
                index.status(EventId(seq)).unwrap(),
                ledger.status(EventId(seq)).unwrap(),
                "e{seq}"
            );
        }
    };
    check(&mut index);
    index.rebuild(&mut |_, _| {}).unwrap();
    check(&mut index);
    assert_eq!(index.catch_up().unwrap(), CatchUp::Fresh);
}
