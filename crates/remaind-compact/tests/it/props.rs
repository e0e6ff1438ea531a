//! Property tests: the built-in candidate is always accepted (from scratch and incrementally,
//! with the same content either way), and single-fact mutations of it are rejected by the
//! check they target.

use proptest::prelude::*;
use remaind_events::{EventId, Kind, NewEvent};
use remaind_validate::{Check, Instruction, Item, LedgerView, MemoryLedger};
use serde_json::json;

use crate::common::{compact, content, ledger, verdict};

/// The kinds a generated ledger draws from, weighted towards the ones the checks care about.
const KINDS: [Kind; 16] = [
    Kind::UserMessage,
    Kind::UserMessage,
    Kind::AssistantMessage,
    Kind::ToolCall,
    Kind::ToolResult,
    Kind::Note,
    Kind::Trace,
    Kind::Decision,
    Kind::Constraint,
    Kind::FileChange,
    Kind::Result,
    Kind::Blocker,
    Kind::Correction,
    Kind::Remember,
    Kind::NextStep,
    Kind::Compaction,
];

/// One generated event: kind, importance bump, a supersede target, a resolve target, a goal
/// flag. Targets are fractions of the events before it.
pub(crate) type Spec = (usize, u8, Option<u16>, Option<u16>, bool, u8);

fn spec() -> impl Strategy<Value = Spec> {
    (
        0..KINDS.len(),
        0u8..4,
        proptest::option::weighted(0.2, any::<u16>()),
        proptest::option::weighted(0.2, any::<u16>()),
        proptest::bool::weighted(0.05),
        0u8..3,
    )
}

pub(crate) fn to_events(specs: &[Spec]) -> Vec<NewEvent> {
    let mut out = Vec::new();
    for (i, (k, imp, sup, res, goal, text)) in specs.iter().enumerate() {
        let seq = i as u64 + 1;
        let kind = KINDS[*k];
        let earlier = |f: u16| EventId(1 + u64::from(f) % (seq - 1));
        let mut e = NewEvent {
            kind: Some(kind),
            text: Some(match text {
                0 => format!("{kind} number {seq}"),
                1 => format!("{kind} {seq}\nwith a second line and a [e1] citation-like text"),
                // The ledger refuses these kinds without text.
                _ if kind.needs_text() => format!("{kind} {seq}"),
                _ => String::new(),
            }),
            ..NewEvent::default()
        };
        if e.text.as_deref() == Some("") {
            // An event must hold something: an empty text comes with data.
            let mut data = serde_json::Map::new();
            data.insert("seq".to_owned(), serde_json::Value::from(seq));
            e.data = Some(data);
        }
        let min = kind.min_importance();
        let base = kind.default_importance();
        e.importance = Some(match imp {
            0 => base,
            n => (*n).max(min),
        });
        if seq > 1 {
            if let Some(f) = sup {
                e.supersedes.push(earlier(*f));
            }
            if let Some(f) = res {
                e.resolves.push(earlier(*f));
            }
            if kind == Kind::Correction && e.supersedes.is_empty() {
                e.supersedes.push(earlier(0));
            }
        }
        if kind == Kind::Correction && e.supersedes.is_empty() {
            // A correction needs something to supersede; the first event cannot be one.
            e.kind = Some(Kind::Note);
        }
        if *goal {
            e.data = json!({"goal": true}).as_object().cloned();
        }
        // Two in three assistant messages end the user's turn (a Stop or an interrupt).
        if kind == Kind::AssistantMessage && *text < 2 {
            let how = if *text == 0 { "stop" } else { "interrupted" };
            e.data
                .get_or_insert_with(Default::default)
                .insert("turn_end".into(), how.into());
        }
        out.push(e);
    }
    out
}

pub(crate) fn ledger_strategy() -> impl Strategy<Value = (Vec<Spec>, u16)> {
    (proptest::collection::vec(spec(), 1..60), any::<u16>())
}

proptest! {
    #[test]
    fn prop_builtin_always_accepted((specs, split) in ledger_strategy()) {
        let l = ledger(to_events(&specs));
        let n = l.head().expect("in memory");
        let scratch = compact(&l, None, n);
        let v = verdict(&l, None, &scratch);
        prop_assert!(v.accepted, "from scratch: {:#?}\n{}", v.failures, scratch.handover);

        // An empty prefix has no next step to ground, so the validator rejects it: split after e1.
        let k = 1 + u64::from(split) % n;
        let first = compact(&l, None, k);
        let v1 = verdict(&l, None, &first);
        prop_assert!(v1.accepted, "prefix {}: {:#?}", k, v1.failures);
        let second = compact(&l, Some(&first.state), n);
        let v2 = verdict(&l, Some(&first.state), &second);
        prop_assert!(v2.accepted, "split {}: {:#?}", k, v2.failures);
        prop_assert_eq!(content(&second.state), content(&scratch.state));
        prop_assert_eq!(&second.handover, &scratch.handover);

        // The turn policy: after an end no step is current; otherwise a step is there.
        let mut turn = remaind_validate::Turn::after_state(None);
        for ev in l.events_in(0, n) {
            turn.observe(&ev.expect("in memory"));
        }
        if turn.ended() {
            prop_assert!(scratch.state.next_step.is_none(), "{:?}", scratch.state.next_step);
        } else if turn.instruction().is_some() {
            let step = scratch.state.next_step.as_ref();
            prop_assert!(step.is_some(), "no step in an open turn");
        }
    }
}

/// A single-fact mutation of an accepted candidate and the check that must catch it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Mutation {
    DropCompleted,
    DropDecision,
    DropImportance3,
    OlderInstruction,
    CiteSupersededAsCurrent,
    CiteResolvedAsCurrent,
    NextStepOnMissingId,
}

pub(crate) const MUTATIONS: [Mutation; 7] = [
    Mutation::DropCompleted,
    Mutation::DropDecision,
    Mutation::DropImportance3,
    Mutation::OlderInstruction,
    Mutation::CiteSupersededAsCurrent,
    Mutation::CiteResolvedAsCurrent,
    Mutation::NextStepOnMissingId,
];

/// Remove every handover line citing `id` outside the instruction section.
fn drop_lines(handover: &str, id: EventId) -> String {
    let tag = format!("[{id}]");
    handover
        .split_inclusive('\n')
        .filter(|l| !(l.starts_with("- ") && l.contains(&tag)))
        .collect()
}

/// Apply `m` (choosing its target with `pick`); `None` when the ledger offers no target.
pub(crate) fn mutate(
    l: &MemoryLedger,
    cand: &remaind_compact::Candidate,
    m: Mutation,
    pick: usize,
) -> Option<(remaind_compact::Candidate, Check)> {
    let mut out = cand.clone();
    let event = |id: EventId| l.event(id).ok().flatten();
    let choose =
        |ids: Vec<EventId>| -> Option<EventId> { (!ids.is_empty()).then(|| ids[pick % ids.len()]) };
    match m {
        Mutation::DropCompleted => {
            let target = choose(
                cand.state
                    .completed_work
                    .iter()
                    .map(|i| i.events[0])
                    .collect(),
            )?;
            out.state
                .completed_work
                .retain(|i| !i.events.contains(&target));
            Some((out, Check::CompletedWorkPreserved))
        }
        Mutation::DropDecision => {
            let target = choose(cand.state.decisions.iter().map(|i| i.events[0]).collect())?;
            out.state.decisions.retain(|i| !i.events.contains(&target));
            Some((out, Check::DecisionsPreserved))
        }
        Mutation::DropImportance3 => {
            // Remember-only facts: a `remember` event, or an importance-3 note.
            let ids: Vec<EventId> = cand
                .state
                .remember
                .iter()
                .map(|i| i.events[0])
                .filter(|id| {
                    event(*id).is_some_and(|e| {
                        matches!(
                            e.kind,
                            Kind::Remember
                                | Kind::Note
                                | Kind::AssistantMessage
                                | Kind::ToolCall
                                | Kind::ToolResult
                                | Kind::Trace
                        )
                    })
                })
                .collect();
            let target = choose(ids)?;
            out.state.remember.retain(|i| !i.events.contains(&target));
            out.handover = drop_lines(&cand.handover, target);
            Some((out, Check::Importance3Preserved))
        }
        Mutation::OlderInstruction => {
            let latest = cand.state.latest_user_instruction.as_ref()?.event;
            let older: Vec<EventId> = l
                .events()
                .iter()
                .filter(|e| e.kind == Kind::UserMessage && e.id < latest)
                .map(|e| e.id)
                .collect();
            let target = choose(older)?;
            let text = event(target)?.text.unwrap_or_default();
            out.state.latest_user_instruction = Some(Instruction {
                event: target,
                text,
            });
            Some((out, Check::LatestUserInstructionPreserved))
        }
        Mutation::CiteSupersededAsCurrent => {
            // A bookkeeping target would also fail grounding (a second, separate fault).
            let target = choose(
                cand.state
                    .superseded
                    .iter()
                    .map(|l| l.event)
                    .filter(|id| event(*id).is_some_and(|e| !e.kind.is_bookkeeping()))
                    .collect(),
            )?;
            out.state.decisions.push(Item {
                text: "still current".to_owned(),
                events: vec![target],
            });
            Some((out, Check::NoSupersededAsCurrent))
        }
        Mutation::CiteResolvedAsCurrent => {
            let superseded: Vec<EventId> = cand.state.superseded.iter().map(|l| l.event).collect();
            let target = choose(
                cand.state
                    .resolved
                    .iter()
                    .map(|l| l.event)
                    .filter(|e| !superseded.contains(e))
                    .filter(|id| event(*id).is_some_and(|e| !e.kind.is_bookkeeping()))
                    .collect(),
            )?;
            out.state.open_loops.push(Item {
                text: "still open".to_owned(),
                events: vec![target],
            });
            Some((out, Check::NoSupersededAsCurrent))
        }
        Mutation::NextStepOnMissingId => {
            let missing = EventId(cand.state.through_seq + 1 + pick as u64 % 1000);
            // Added next to what it cites, so no other fact is lost with the old citations.
            out.state.next_step.as_mut()?.events.push(missing);
            Some((out, Check::NextStepGrounded))
        }
    }
}

proptest! {
    #[test]
    fn prop_mutation_rejected_by_matching_check(
        (specs, _) in ledger_strategy(),
        which in 0..MUTATIONS.len(),
        pick in any::<usize>(),
    ) {
        let l = ledger(to_events(&specs));
        let n = l.head().expect("in memory");
        let cand = compact(&l, None, n);
        prop_assert!(verdict(&l, None, &cand).accepted);
        let m = MUTATIONS[which];
        if let Some((bad, check)) = mutate(&l, &cand, m, pick) {
            let v = verdict(&l, None, &bad);
            prop_assert!(!v.accepted, "{:?} was accepted", m);
            prop_assert_eq!(v.failed_checks(), vec![check], "{:?}: {:#?}", m, v.failures);
        }
    }
}

/// Long ledgers, weighted so completed work, decisions, file changes and open loops outgrow
/// the handover's caps and state.json's word-for-word limit: what is cited where no longer
/// depends on the split, though older items may be grouped differently.
fn long_ledger_strategy() -> impl Strategy<Value = (Vec<Spec>, Vec<u16>)> {
    // Indexes into KINDS: Result 10, Decision 7, FileChange 9, NextStep 14, Correction 12,
    // UserMessage 0, ToolResult 4, Remember 13.
    let kind = prop_oneof![
        6 => Just(10usize),
        5 => Just(7usize),
        4 => Just(9usize),
        3 => Just(14usize),
        1 => Just(12usize),
        1 => Just(0usize),
        2 => Just(4usize),
        1 => Just(13usize),
    ];
    let spec = (
        kind,
        0u8..4,
        proptest::option::weighted(0.05, any::<u16>()),
        proptest::option::weighted(0.1, any::<u16>()),
        Just(false),
        0u8..2,
    );
    (
        proptest::collection::vec(spec, 480..600),
        proptest::collection::vec(any::<u16>(), 1..4),
    )
}

/// Every (section, id) the state cites.
fn citations(
    state: &remaind_validate::State,
) -> std::collections::BTreeSet<(&'static str, EventId)> {
    state.current_citations().into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn prop_builtin_long_ledgers_accepted((specs, splits) in long_ledger_strategy()) {
        let l = ledger(to_events(&specs));
        let n = l.head().expect("in memory");
        let scratch = compact(&l, None, n);
        let v = verdict(&l, None, &scratch);
        prop_assert!(v.accepted, "from scratch: {:#?}", v.failures);
        for section in [&scratch.state.completed_work, &scratch.state.decisions] {
            prop_assert!(section.len() <= remaind_compact::KEEP_VERBATIM + 1);
        }
        // Completed work past the word-for-word limit (the weights make it usual) is condensed
        // into the first item.
        let results = scratch.state.completed_work.iter().map(|i| i.events.len()).sum::<usize>();
        prop_assert_eq!(
            scratch.state.completed_work[0].text.starts_with("Earlier completed work"),
            results > remaind_compact::KEEP_VERBATIM,
            "{} results", results
        );

        // Compact in several steps, each validated against the prior it builds on.
        let mut cuts: Vec<u64> = splits.iter().map(|s| 1 + u64::from(*s) % n).collect();
        cuts.sort_unstable();
        cuts.push(n);
        let mut prior: Option<remaind_compact::Candidate> = None;
        for cut in cuts {
            let from = prior.as_ref().map_or(0, |p| p.state.through_seq);
            if cut < from {
                continue;
            }
            let next = compact(&l, prior.as_ref().map(|p| &p.state), cut);
            let v = verdict(&l, prior.as_ref().map(|p| &p.state), &next);
            prop_assert!(v.accepted, "step to {}: {:#?}", cut, v.failures);
            prior = Some(next);
        }
        let last = prior.expect("at least the last step");
        prop_assert_eq!(citations(&last.state), citations(&scratch.state));
        prop_assert_eq!(&last.state.superseded, &scratch.state.superseded);
    }
}
