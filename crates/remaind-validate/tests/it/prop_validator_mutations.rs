//! Law: for generated ledgers, a correct candidate (from the small reference builder below,
//! independent of any compactor crate) is accepted, with or without a prior accepted state;
//! every single-fact mutation of it is rejected by exactly the matching check; and the
//! incremental walk (from a prior, with or without the prior's bound handover, whose
//! sections may leave out items that need not be shown) agrees with the full walk (no prior)
//! on which checks fail.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use remaind_events::{Event, EventId, Kind, NewEvent};
use remaind_validate::titles;
use remaind_validate::{
    Asked, Binding, Check, Instruction, Item, LedgerView, Link, MemoryLedger, NextStep, Prior,
    Settled, Settlement, State, Verdict, is_user_word, render_citations, render_instruction,
    validate_typed,
};

use crate::common::ts;

// ---------------------------------------------------------------- ledger generation

/// One generated step: an op code and two choice bytes (targets, importance).
type Op = (u8, u8, u8);

fn new(kind: Kind, text: String) -> NewEvent {
    NewEvent {
        kind: Some(kind),
        text: Some(text),
        ..NewEvent::default()
    }
}

fn pick<T: Copy>(items: &[T], choice: u8) -> Option<T> {
    (!items.is_empty()).then(|| items[usize::from(choice) % items.len()])
}

/// Build a realistic ledger from ops: every supersedes/resolves points at a suitable earlier
/// event; the first event is always a user message.
fn build_ledger(ops: &[Op]) -> MemoryLedger {
    let mut ledger = MemoryLedger::new();
    let add = |ledger: &mut MemoryLedger, ev: NewEvent| {
        let seq = ledger.events().len() as u64 + 1;
        ledger
            .append(ev, &ts(seq))
            .expect("generated event is valid");
    };
    add(
        &mut ledger,
        new(Kind::UserMessage, "Start the work.".into()),
    );
    for (n, &(op, a, b)) in ops.iter().enumerate() {
        let events = ledger.events().to_vec();
        let (superseded, resolved) = links(&events);
        let live = |kinds: &[Kind]| -> Vec<EventId> {
            events
                .iter()
                .filter(|e| kinds.contains(&e.kind))
                .filter(|e| !superseded.contains_key(&e.id) && !resolved.contains_key(&e.id))
                .map(|e| e.id)
                .collect()
        };
        let ev = match op % 16 {
            0 => {
                let mut ev = new(Kind::UserMessage, format!("Instruction {n}: do part {a}."));
                ev.importance = Some(if b % 4 == 0 { 3 } else { 1 });
                ev
            }
            1 => new(Kind::AssistantMessage, format!("Working on {n}.")),
            2 => {
                let mut ev = new(Kind::Note, format!("Note {n}."));
                ev.importance = Some(b % 4);
                ev
            }
            3 => new(Kind::Trace, format!("trace {n}")),
            4 => new(Kind::Decision, format!("Decision {n}.")),
            5 => new(Kind::Constraint, format!("Constraint {n}.")),
            6 => new(Kind::FileChange, format!("src/f{n}.rs changed.")),
            7 => {
                let mut ev = new(Kind::Result, format!("Result {n}."));
                if b % 2 == 0 {
                    ev.resolves.extend(pick(&live(&[Kind::NextStep]), a));
                }
                ev
            }
            8 => new(Kind::Blocker, format!("Blocker {n}.")),
            9 | 10 => {
                let targets = live(&[
                    Kind::Decision,
                    Kind::Constraint,
                    Kind::Note,
                    Kind::Result,
                    Kind::FileChange,
                    Kind::Remember,
                    Kind::Correction,
                ]);
                match pick(&targets, a) {
                    Some(t) => {
                        let mut ev = new(Kind::Correction, format!("Correction {n} of {t}."));
                        ev.supersedes.push(t);
                        ev
                    }
                    None => new(Kind::Decision, format!("Decision {n}.")),
                }
            }
            11 => new(Kind::Remember, format!("Remember {n}.")),
            12 | 13 => new(Kind::NextStep, format!("Step {n}.")),
            14 => {
                let mut ev = new(Kind::Note, format!("Closed something at {n}."));
                ev.resolves
                    .extend(pick(&live(&[Kind::NextStep, Kind::Blocker]), a));
                ev
            }
            _ => {
                let mut ev = new(Kind::Compaction, format!("compaction {n}"));
                ev.actor = Some("remaind".into());
                ev
            }
        };
        add(&mut ledger, ev);
    }
    ledger
}

type LinkMap = BTreeMap<EventId, BTreeSet<EventId>>;

fn links(events: &[Event]) -> (LinkMap, LinkMap) {
    let mut sup = LinkMap::new();
    let mut res = LinkMap::new();
    for e in events {
        for t in &e.supersedes {
            sup.entry(*t).or_default().insert(e.id);
        }
        for t in &e.resolves {
            res.entry(*t).or_default().insert(e.id);
        }
    }
    (sup, res)
}

// ---------------------------------------------------------------- reference builder

fn item(e: &Event) -> Item {
    Item {
        text: e.text.clone().unwrap_or_else(|| e.kind.to_string()),
        events: vec![e.id],
    }
}

/// A correct candidate for the prefix `..=through`, built from scratch.
fn build_state(ledger: &MemoryLedger, through: u64) -> State {
    let events: Vec<Event> = ledger.events()[..through as usize].to_vec();
    let (sup, res) = links(&events);
    let current = |id: &EventId| !sup.contains_key(id) && !res.contains_key(id);
    let last_user = events
        .iter()
        .rfind(|e| e.kind == Kind::UserMessage)
        .map(|e| e.id);
    let latest_step = events
        .iter()
        .filter(|e| e.kind == Kind::NextStep && current(&e.id))
        .map(|e| e.id)
        .max();
    let mut state = State {
        v: 1,
        through_seq: through,
        log_digest: ledger
            .digest_at(through)
            .expect("memory")
            .expect("in range"),
        generated_at: "2026-11-21T22:00:00Z".into(),
        compactor: "reference".into(),
        goal: vec![],
        latest_user_instruction: None,
        completed_work: vec![],
        decisions: vec![],
        constraints: vec![],
        blockers: vec![],
        remember: vec![],
        files_changed: vec![],
        open_loops: vec![],
        next_step: None,
        superseded: vec![],
        resolved: vec![],
        user_asked: vec![],
        user_settled: vec![],
    };
    for e in &events {
        if e.kind.is_bookkeeping() {
            continue;
        }
        let cur = current(&e.id);
        if is_user_word(e) {
            let settled = |links: &LinkMap, how| {
                links
                    .get(&e.id)
                    .and_then(|bys| bys.first())
                    .map(|by| Settled {
                        event: e.id,
                        by: *by,
                        how,
                    })
            };
            match settled(&sup, Settlement::Superseded).or(settled(&res, Settlement::Fulfilled)) {
                Some(link) => state.user_settled.push(link),
                None => state.user_asked.push(Asked {
                    text: e.text.clone().unwrap_or_else(|| e.kind.to_string()),
                    events: vec![e.id],
                    rule: false,
                    refs: vec![],
                }),
            }
        }
        match e.kind {
            Kind::Result if !sup.contains_key(&e.id) => state.completed_work.push(item(e)),
            Kind::FileChange if !sup.contains_key(&e.id) => state.files_changed.push(item(e)),
            Kind::Decision | Kind::Correction if cur => state.decisions.push(item(e)),
            Kind::Constraint if cur => state.constraints.push(item(e)),
            Kind::Blocker if cur => state.blockers.push(item(e)),
            Kind::Remember if cur => state.remember.push(item(e)),
            Kind::NextStep if cur && Some(e.id) != latest_step => state.open_loops.push(item(e)),
            Kind::NextStep => {}
            Kind::UserMessage if Some(e.id) == last_user => {
                state.latest_user_instruction = Some(Instruction {
                    event: e.id,
                    text: e.text.clone().unwrap_or_default(),
                });
            }
            Kind::UserMessage if cur && e.importance >= 2 => state.goal.push(item(e)),
            _ if cur && e.importance >= 3 => state.remember.push(item(e)),
            _ if cur && e.importance == 2 => state.open_loops.push(item(e)),
            _ => {}
        }
    }
    let ground = latest_step
        .or(last_user)
        .expect("the ledger starts with a user message");
    state.next_step = Some(NextStep {
        text: "Continue.".into(),
        events: vec![ground],
        tool: None,
    });
    for (event, bys) in &sup {
        state.superseded.extend(bys.iter().map(|by| Link {
            event: *event,
            by: *by,
        }));
    }
    for (event, bys) in &res {
        state.resolved.extend(bys.iter().map(|by| Link {
            event: *event,
            by: *by,
        }));
    }
    state
}

fn render(state: &State) -> String {
    render_masked(state, None)
}

/// The handover for `state`, bound to it, leaving out of the long sections each item whose
/// bit is set in `mask` (bit = item index % 64) and that cites no importance-3 event: what a
/// compactor that caps its handover writes. With `hide_vital`, items citing importance-3
/// events are left out too (a handover check 5 rejects).
fn render_capped(state: &State, ledger: &MemoryLedger, mask: u64, hide_vital: bool) -> String {
    let body = render_masked(state, Some((ledger, mask, hide_vital)));
    format!("{}\n{body}", Binding::for_state(state))
}

fn render_masked(state: &State, cap: Option<(&MemoryLedger, u64, bool)>) -> String {
    let shown = |i: usize, it: &Item| match cap {
        None => true,
        Some((ledger, mask, hide_vital)) => {
            mask & (1 << (i % 64)) == 0
                || !hide_vital
                    && it.events.iter().any(|id| {
                        ledger
                            .event(*id)
                            .expect("memory")
                            .is_some_and(|e| e.importance >= 3)
                    })
        }
    };
    let mut out = String::from("# Handover\n\n");
    out.push_str(&format!("## {}\n", titles::LATEST_USER_INSTRUCTION));
    if let Some(ins) = &state.latest_user_instruction {
        out.push_str(&render_instruction(ins.event, &ins.text));
    }
    out.push('\n');
    if let Some(step) = &state.next_step {
        out.push_str(&format!(
            "## {}\n{} {}\n\n",
            titles::NEXT_STEP,
            step.text,
            render_citations(&step.events)
        ));
    }
    for (title, items) in [
        (titles::MUST_REMEMBER, &state.remember),
        (titles::DECISIONS, &state.decisions),
        (titles::COMPLETED_WORK, &state.completed_work),
        (titles::CONSTRAINTS, &state.constraints),
        (titles::BLOCKERS, &state.blockers),
        (titles::OPEN_LOOPS, &state.open_loops),
        (titles::FILES_CHANGED, &state.files_changed),
        (titles::GOAL, &state.goal),
    ] {
        out.push_str(&format!("## {title}\n"));
        for (i, it) in items.iter().enumerate() {
            if shown(i, it) {
                out.push_str(&format!("- {} {}\n", it.text, render_citations(&it.events)));
            }
        }
        out.push('\n');
    }
    out.push_str(&format!("## {}\n", titles::SUPERSEDED));
    for (word, links) in [
        ("superseded", &state.superseded),
        ("resolved", &state.resolved),
    ] {
        for l in links {
            out.push_str(&format!("- [{}] ({word} by [{}])\n", l.event, l.by));
        }
    }
    out
}

// ---------------------------------------------------------------- mutations

/// Every applicable single-fact mutation of an accepted state, with the check it must fail.
fn mutations(ledger: &MemoryLedger, state: &State) -> Vec<(&'static str, Check, State)> {
    let events = &ledger.events()[..state.through_seq as usize];
    let (sup, res) = links(events);
    let mut m = Mutations {
        state,
        out: Vec::new(),
    };
    dropped_items(&mut m);
    user_words(&mut m);
    swapped_instruction(&mut m, events);
    stale_links(&mut m, &sup, &res);
    step_mutations(&mut m, events, &sup, &res);
    m.out
}

/// Mutations of one state, each a copy with one fact changed.
struct Mutations<'s> {
    state: &'s State,
    out: Vec<(&'static str, Check, State)>,
}

impl Mutations<'_> {
    fn with(&mut self, name: &'static str, check: Check, f: &dyn Fn(&mut State)) {
        let mut s = self.state.clone();
        f(&mut s);
        self.out.push((name, check, s));
    }
}

/// A completed item, a decision or an importance-3 item dropped.
fn dropped_items(m: &mut Mutations<'_>) {
    if !m.state.completed_work.is_empty() {
        m.with("drop completed", Check::CompletedWorkPreserved, &|s| {
            s.completed_work.pop();
        });
    }
    if !m.state.decisions.is_empty() {
        m.with("drop decision", Check::DecisionsPreserved, &|s| {
            s.decisions.remove(0);
        });
    }
    if !m.state.remember.is_empty() {
        m.with("drop importance-3", Check::Importance3Preserved, &|s| {
            s.remember.pop();
        });
    }
}

/// A user message's citation removed, or an in-force one settled by an earlier event.
fn user_words(m: &mut Mutations<'_>) {
    let Some(last) = m.state.user_asked.last().map(|a| a.events[0]) else {
        return;
    };
    m.with("drop user message", Check::UserWordsPreserved, &|s| {
        s.user_asked.pop();
    });
    m.with(
        "user message settled by an earlier one",
        Check::UserWordsPreserved,
        &|s| {
            s.user_asked.pop();
            s.user_settled.push(Settled {
                event: last,
                by: EventId(1),
                how: Settlement::Superseded,
            });
        },
    );
}

/// The latest instruction replaced by an older one.
fn swapped_instruction(m: &mut Mutations<'_>, events: &[Event]) {
    let users: Vec<&Event> = events
        .iter()
        .filter(|e| e.kind == Kind::UserMessage)
        .collect();
    if let [.., older, latest] = users.as_slice() {
        let (older, latest) = ((*older).clone(), (*latest).clone());
        m.with(
            "swap instruction",
            Check::LatestUserInstructionPreserved,
            &|s| {
                s.latest_user_instruction = Some(Instruction {
                    event: older.id,
                    text: older.text.clone().unwrap_or_default(),
                });
                if latest.importance >= 2 {
                    s.goal.push(item(&latest)); // keep it cited: one fact changes
                }
            },
        );
    }
}

/// A superseded or resolved event presented as current, or its link dropped.
fn stale_links(m: &mut Mutations<'_>, sup: &LinkMap, res: &LinkMap) {
    if let Some((&old, _)) = sup.iter().next() {
        m.with(
            "superseded as decision",
            Check::NoSupersededAsCurrent,
            &|s| {
                s.decisions.push(Item {
                    text: "stale".into(),
                    events: vec![old],
                });
            },
        );
        m.with("superseded as next step", Check::NextStepGrounded, &|s| {
            if let Some(step) = s.next_step.as_mut() {
                step.events.push(old);
            }
        });
        m.with(
            "superseded link dropped",
            Check::NoSupersededAsCurrent,
            &|s| {
                s.superseded.retain(|l| l.event != old);
            },
        );
    }
    if let Some(done) = res.keys().copied().find(|id| !sup.contains_key(id)) {
        m.with(
            "resolved as open loop",
            Check::NoSupersededAsCurrent,
            &|s| {
                s.open_loops.push(Item {
                    text: "done already".into(),
                    events: vec![done],
                });
            },
        );
        m.with("resolved as next step", Check::NextStepGrounded, &|s| {
            if let Some(step) = s.next_step.as_mut() {
                step.events.push(done);
            }
        });
    }
}

/// The next step grounded on a missing id or elsewhere, or gone.
fn step_mutations(m: &mut Mutations<'_>, events: &[Event], sup: &LinkMap, res: &LinkMap) {
    let missing = EventId(m.state.through_seq + 1);
    m.with("next step on a missing id", Check::NextStepGrounded, &|s| {
        if let Some(step) = s.next_step.as_mut() {
            step.events.push(missing);
        }
    });
    let has_active_step = events
        .iter()
        .any(|e| e.kind == Kind::NextStep && !sup.contains_key(&e.id) && !res.contains_key(&e.id));
    if has_active_step {
        m.with(
            "next step grounded elsewhere",
            Check::NextStepGrounded,
            &|s| {
                let ground = s.latest_user_instruction.as_ref().map(|i| i.event);
                if let (Some(step), Some(ground)) = (s.next_step.as_mut(), ground) {
                    let moved = std::mem::replace(&mut step.events, vec![ground]);
                    s.open_loops.push(Item {
                        text: "kept".into(),
                        events: moved,
                    });
                }
            },
        );
    }
    m.with("no next step", Check::NextStepGrounded, &|s| {
        let keep: Vec<Item> = s
            .next_step
            .take()
            .map(|step| {
                step.events
                    .iter()
                    .map(|id| Item {
                        text: "kept".into(),
                        events: vec![*id],
                    })
                    .collect()
            })
            .unwrap_or_default();
        s.open_loops.extend(keep); // still cited: only the next step is gone
    });
}

fn check(ledger: &MemoryLedger, prior: Option<&State>, state: &State) -> Verdict {
    validate_typed(
        ledger,
        prior.map(Prior::new).as_ref(),
        state,
        &render(state),
    )
    .expect("memory ledger never fails")
}

/// The incremental walk with the prior's bound (capped) handover, on a candidate whose
/// handover is capped with the same mask (and `hide_vital`).
fn check_with_handover(
    ledger: &MemoryLedger,
    prior: &State,
    state: &State,
    mask: u64,
    hide_vital: bool,
) -> Verdict {
    let prior_bytes = prior.to_canonical_bytes();
    let prior_handover = render_capped(prior, ledger, mask, false);
    let with = Prior::with_handover(prior, &prior_bytes, &prior_handover);
    assert!(
        with.has_handover(),
        "the prior handover is bound to the prior state"
    );
    let handover = render_capped(state, ledger, mask, hide_vital);
    validate_typed(ledger, Some(&with), state, &handover).expect("memory ledger never fails")
}

proptest! {
    #[test]
    fn prop_validator_mutations(
        ops in proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 1..60),
        cut in any::<u16>(),
        mask in any::<u64>(),
        hide_vital in any::<bool>(),
    ) {
        let ledger = build_ledger(&ops);
        let head = ledger.head().expect("memory");
        let prior_through = u64::from(cut) % (head + 1);
        let prior = (prior_through > 0).then(|| build_state(&ledger, prior_through));
        if let Some(p) = &prior {
            let v = check(&ledger, None, p);
            prop_assert!(v.accepted, "prior through {prior_through} rejected: {v:#?}");
        }
        let state = build_state(&ledger, head);
        for p in [None, prior.as_ref()] {
            let v = check(&ledger, p, &state);
            prop_assert!(v.accepted, "candidate rejected (prior: {}): {v:#?}", p.is_some());
        }
        for (name, expected, mutated) in mutations(&ledger, &state) {
            let full = check(&ledger, None, &mutated);
            prop_assert_eq!(
                full.failed_checks(), vec![expected],
                "mutation `{}` without prior: {:#?}", name, full
            );
            let incremental = check(&ledger, prior.as_ref(), &mutated);
            prop_assert_eq!(
                incremental.failed_checks(), vec![expected],
                "mutation `{}` with prior through {}: {:#?}", name, prior_through, incremental
            );
            if let Some(p) = &prior {
                let capped_full = validate_typed(
                    &ledger, None, &mutated, &render_capped(&mutated, &ledger, mask, hide_vital),
                ).expect("memory ledger never fails");
                let capped = check_with_handover(&ledger, p, &mutated, mask, hide_vital);
                prop_assert_eq!(
                    capped.failed_checks(), capped_full.failed_checks(),
                    "mutation `{}` with prior through {} and capped handovers (mask {:x}): {:#?}",
                    name, prior_through, mask, capped
                );
            }
        }
        if let Some(p) = &prior {
            let v = check_with_handover(&ledger, p, &state, mask, false);
            prop_assert!(v.accepted, "capped candidate rejected with the prior's handover: {v:#?}");
            let full = validate_typed(
                &ledger, None, &state, &render_capped(&state, &ledger, mask, hide_vital),
            ).expect("memory ledger never fails");
            let v = check_with_handover(&ledger, p, &state, mask, hide_vital);
            prop_assert_eq!(v.failed_checks(), full.failed_checks(), "capped candidate: {:#?}", v);
        }
    }
}
