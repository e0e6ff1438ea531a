//! Validation is incremental: with a prior accepted state it scans only the tail and reads by
//! id only what the prior cites, however long the ledger is.

use std::cell::Cell;

use remaind_events::{Event, EventId, Kind, NewEvent};
use remaind_validate::{
    Asked, Binding, Error, EventIter, Instruction, Item, LedgerView, Link, MemoryLedger, NextStep,
    Prior, State, render_citations, render_instruction, validate_typed,
};

use crate::common::ts;

/// A view that counts what the validator reads.
struct Counting<'a> {
    inner: &'a MemoryLedger,
    scanned: Cell<u64>,
    by_id: Cell<u64>,
    lowest_scanned: Cell<u64>,
}

impl LedgerView for Counting<'_> {
    fn head(&self) -> Result<u64, Error> {
        self.inner.head()
    }
    fn digest_at(&self, seq: u64) -> Result<Option<String>, Error> {
        self.inner.digest_at(seq)
    }
    fn event(&self, id: EventId) -> Result<Option<Event>, Error> {
        self.by_id.set(self.by_id.get() + 1);
        self.inner.event(id)
    }
    fn events_in(&self, after_seq: u64, through_seq: u64) -> EventIter<'_> {
        Box::new(self.inner.events_in(after_seq, through_seq).inspect(|e| {
            if let Ok(e) = e {
                self.scanned.set(self.scanned.get() + 1);
                self.lowest_scanned
                    .set(self.lowest_scanned.get().min(e.seq));
            }
        }))
    }
}

fn ev(kind: Kind, text: String) -> NewEvent {
    NewEvent {
        kind: Some(kind),
        text: Some(text),
        ..NewEvent::default()
    }
}

/// A ledger of `n` events: a user message, then tool chatter with a decision, a result and a
/// resolved step every so often.
fn ledger(n: u64) -> MemoryLedger {
    let mut l = MemoryLedger::new();
    l.append(ev(Kind::UserMessage, "Go.".into()), &ts(1))
        .unwrap();
    while l.head().unwrap() < n {
        let seq = l.head().unwrap() + 1;
        let e = match seq % 50 {
            0 => ev(Kind::Decision, format!("decision {seq}")),
            1 => ev(Kind::NextStep, format!("step {seq}")),
            2 => {
                let mut e = ev(Kind::Result, format!("result {seq}"));
                if seq > 2 {
                    e.resolves.push(EventId(seq - 1));
                }
                e
            }
            _ => ev(Kind::ToolResult, format!("output {seq}")),
        };
        l.append(e, &ts(seq)).unwrap();
    }
    l
}

fn state(l: &MemoryLedger, through: u64) -> State {
    let events = &l.events()[..through as usize];
    let items = |kind: Kind| -> Vec<Item> {
        events
            .iter()
            .filter(|e| e.kind == kind)
            .map(|e| Item {
                text: e.text.clone().unwrap(),
                events: vec![e.id],
            })
            .collect()
    };
    let resolved: Vec<Link> = events
        .iter()
        .flat_map(|e| {
            e.resolves.iter().map(|r| Link {
                event: *r,
                by: e.id,
            })
        })
        .collect();
    State {
        v: 1,
        through_seq: through,
        log_digest: l.digest_at(through).unwrap().unwrap(),
        generated_at: "2026-11-21T22:00:00Z".into(),
        compactor: "test".into(),
        goal: vec![],
        latest_user_instruction: Some(Instruction {
            event: EventId(1),
            text: "Go.".into(),
        }),
        completed_work: items(Kind::Result),
        decisions: items(Kind::Decision),
        constraints: vec![],
        blockers: vec![],
        remember: vec![],
        files_changed: vec![],
        open_loops: vec![],
        next_step: Some(NextStep {
            text: "Go on.".into(),
            events: vec![EventId(1)],
            tool: None,
        }),
        superseded: vec![],
        resolved,
        user_asked: vec![Asked {
            text: "Go.".into(),
            events: vec![EventId(1)],
            rule: false,
            refs: vec![],
        }],
        user_settled: vec![],
    }
}

fn handover(s: &State) -> String {
    let ins = s.latest_user_instruction.as_ref().unwrap();
    format!(
        "# Handover\n\n## Latest user instruction\n{}\n## Next step\nGo on. {}\n",
        render_instruction(ins.event, &ins.text),
        render_citations(&s.next_step.as_ref().unwrap().events)
    )
}

#[test]
fn reads_only_the_tail_and_the_prior_citations() {
    let l = ledger(20_000);
    let prior = state(&l, 19_000);
    let candidate = state(&l, 20_000);
    let view = Counting {
        inner: &l,
        scanned: Cell::new(0),
        by_id: Cell::new(0),
        lowest_scanned: Cell::new(u64::MAX),
    };
    let verdict = validate_typed(
        &view,
        Some(&Prior::new(&prior)),
        &candidate,
        &handover(&candidate),
    )
    .unwrap();
    assert!(verdict.accepted, "{verdict:#?}");
    assert_eq!(view.scanned.get(), 1_000, "only the tail is scanned");
    assert_eq!(view.lowest_scanned.get(), 19_001);
    let prior_citations = prior.current_citations().len() as u64;
    assert!(
        view.by_id.get() <= prior_citations + 1,
        "{} reads by id for {prior_citations} prior citations",
        view.by_id.get()
    );

    // Without a prior, the whole ledger is the tail, and the verdict is the same.
    let full = Counting {
        inner: &l,
        scanned: Cell::new(0),
        by_id: Cell::new(0),
        lowest_scanned: Cell::new(u64::MAX),
    };
    let again = validate_typed(&full, None, &candidate, &handover(&candidate)).unwrap();
    assert_eq!(again, verdict);
    assert_eq!(full.scanned.get(), 20_000);
}

fn counting(l: &MemoryLedger) -> Counting<'_> {
    Counting {
        inner: l,
        scanned: Cell::new(0),
        by_id: Cell::new(0),
        lowest_scanned: Cell::new(u64::MAX),
    }
}

/// The handover bound to `s`, as the commit path stores it.
fn bound(s: &State) -> String {
    format!("{}\n{}", Binding::for_state(s), handover(s))
}

#[test]
fn with_the_prior_handover_kept_citations_are_not_read() {
    let l = ledger(20_000);
    let prior = state(&l, 19_000);
    let prior_bytes = prior.to_canonical_bytes();
    let with = Prior::with_handover(&prior, &prior_bytes, &bound(&prior));
    assert!(with.has_handover());
    let candidate = state(&l, 20_000);

    let view = counting(&l);
    let verdict = validate_typed(&view, Some(&with), &candidate, &bound(&candidate)).unwrap();
    assert!(verdict.accepted, "{verdict:#?}");
    assert_eq!(view.scanned.get(), 1_000, "only the tail is scanned");
    // The candidate keeps every prior citation in place: no decision or result is read. The
    // tail logs no user message and leaves no step active, so the prior's instruction and
    // next step are read (check 4 needs the text, check 3 the kind): two reads.
    assert_eq!(view.by_id.get(), 2, "reads by id");

    // Dropping one prior decision costs a read of that one event, and is caught.
    let mut dropped = candidate.clone();
    let gone = dropped.decisions.remove(3).events[0];
    let view = counting(&l);
    let verdict = validate_typed(&view, Some(&with), &dropped, &bound(&dropped)).unwrap();
    assert!(!verdict.accepted);
    assert!(
        verdict.failures.iter().any(|f| f.events.contains(&gone)),
        "{verdict:#?}"
    );
    assert_eq!(view.by_id.get(), 3, "reads by id");
}

#[test]
fn a_handover_bound_to_another_state_is_not_trusted() {
    let l = ledger(2_000);
    let prior = state(&l, 1_000);
    let other = state(&l, 900);
    let prior_bytes = prior.to_canonical_bytes();
    assert!(!Prior::with_handover(&prior, &prior_bytes, &bound(&other)).has_handover());
    assert!(!Prior::with_handover(&prior, b"tampered", &bound(&prior)).has_handover());
    assert!(!Prior::with_handover(&prior, &prior_bytes, &handover(&prior)).has_handover());
}
