//! The built-in compactor on hand-made ledgers.

use remaind_events::{Kind, NewEvent};
use remaind_validate::{Handover, Link};
use serde_json::json;

use crate::common::{accepted, cited, compact, content, ev, id, ledger, verdict};

fn sup(mut e: NewEvent, ids: &[u64]) -> NewEvent {
    e.supersedes = ids.iter().map(|n| id(*n)).collect();
    e
}

fn res(mut e: NewEvent, ids: &[u64]) -> NewEvent {
    e.resolves = ids.iter().map(|n| id(*n)).collect();
    e
}

fn importance(mut e: NewEvent, i: u8) -> NewEvent {
    e.importance = Some(i);
    e
}

#[test]
fn correction_replaces_the_decision_and_is_history_in_the_handover() {
    let l = ledger(vec![
        ev(Kind::UserMessage, "Build the importer"),
        ev(Kind::Decision, "Store rows in Postgres"),
        sup(
            ev(Kind::Correction, "Store rows in SQLite, not Postgres"),
            &[2],
        ),
        ev(Kind::NextStep, "Write the SQLite schema"),
    ]);
    let cand = accepted(&l);
    assert_eq!(cited(&cand.state.decisions), vec![id(3)]);
    assert_eq!(
        cand.state.superseded,
        vec![Link {
            event: id(2),
            by: id(3)
        }]
    );
    let h = Handover::parse(&cand.handover);
    assert!(h.problems.is_empty(), "{:?}", h.problems);
    assert!(h.current_citations().all(|(_, e)| e != id(2)));
    let history = h.section("Superseded").expect("Superseded section");
    assert!(history.citations.contains(&id(2)));
    assert!(
        history
            .body
            .contains("Store rows in Postgres [e2] (superseded by [e3])"),
        "{}",
        history.body
    );
}

#[test]
fn resolved_blocker_leaves_blockers_and_resolved_result_stays_completed() {
    let l = ledger(vec![
        ev(Kind::UserMessage, "Ship it"),
        ev(Kind::Blocker, "CI is red"),
        res(ev(Kind::Result, "Fixed the flaky test; CI green"), &[2]),
        ev(Kind::Result, "Tagged v1"),
        res(ev(Kind::Note, "v1 tag superseded by the v1.0.1 plan"), &[4]),
    ]);
    let cand = accepted(&l);
    assert!(cand.state.blockers.is_empty());
    assert_eq!(cited(&cand.state.completed_work), vec![id(3), id(4)]);
    assert_eq!(
        cand.state.resolved,
        vec![
            Link {
                event: id(2),
                by: id(3)
            },
            Link {
                event: id(4),
                by: id(5)
            }
        ]
    );
}

#[test]
fn latest_active_next_step_wins_and_others_are_open_loops() {
    let l = ledger(vec![
        ev(Kind::UserMessage, "Refactor the parser"),
        ev(Kind::NextStep, "Split the lexer out"),
        ev(Kind::NextStep, "Add error recovery"),
        ev(Kind::NextStep, "Benchmark the parser"),
        res(ev(Kind::Result, "Benchmarked: 2x faster"), &[4]),
    ]);
    let cand = accepted(&l);
    let step = cand.state.next_step.clone().expect("next step");
    assert_eq!(step.events, vec![id(3)]);
    assert_eq!(cited(&cand.state.open_loops), vec![id(2)]);

    // A newer step takes over; the displaced one becomes an open loop again.
    let mut events = vec![
        ev(Kind::UserMessage, "Refactor the parser"),
        ev(Kind::NextStep, "Split the lexer out"),
        ev(Kind::NextStep, "Add error recovery"),
    ];
    events.push(ev(Kind::NextStep, "Write docs"));
    let l2 = ledger(events);
    let c2 = accepted(&l2);
    assert_eq!(c2.state.next_step.expect("step").events, vec![id(4)]);
    assert_eq!(cited(&c2.state.open_loops), vec![id(2), id(3)]);
}

#[test]
fn next_step_with_a_tool_carries_it() {
    let mut step = ev(Kind::NextStep, "Deploy to staging");
    step.tool = Some(remaind_events::Tool {
        name: "deploy".to_owned(),
        input: serde_json::Value::Null,
        output: serde_json::Value::Null,
    });
    let l = ledger(vec![ev(Kind::UserMessage, "Deploy"), step]);
    let cand = accepted(&l);
    assert_eq!(
        cand.state.next_step.expect("step").tool.as_deref(),
        Some("deploy")
    );
}

#[test]
fn without_a_next_step_event_the_step_is_grounded_on_the_instruction() {
    let l = ledger(vec![
        ev(Kind::UserMessage, "Summarize the logs"),
        ev(Kind::Note, "looking"),
    ]);
    let cand = accepted(&l);
    assert_eq!(cand.state.next_step.expect("step").events, vec![id(1)]);
}

#[test]
fn goal_is_the_first_user_message_or_a_flagged_event() {
    let l = ledger(vec![
        ev(Kind::UserMessage, "Port the CLI to Rust"),
        ev(Kind::UserMessage, "Also add tests"),
    ]);
    let cand = accepted(&l);
    assert_eq!(cited(&cand.state.goal), vec![id(1)]);
    assert_eq!(
        cand.state
            .latest_user_instruction
            .expect("instruction")
            .event,
        id(2)
    );

    let mut flagged = ev(Kind::Note, "Goal: a drop-in Rust CLI with the same flags");
    flagged.data = json!({"goal": true}).as_object().cloned();
    let l = ledger(vec![ev(Kind::UserMessage, "Port the CLI to Rust"), flagged]);
    let cand = accepted(&l);
    assert_eq!(cited(&cand.state.goal), vec![id(2)]);
}

#[test]
fn importance_three_events_are_remembered_and_in_the_handover() {
    let l = ledger(vec![
        importance(ev(Kind::UserMessage, "Never push to main"), 3),
        ev(Kind::Remember, "The staging DB is shared with QA"),
        importance(ev(Kind::Decision, "Freeze the API"), 3),
        importance(ev(Kind::Note, "Prod credentials rotate on Fridays"), 3),
        ev(Kind::UserMessage, "Now fix the flaky test"),
    ]);
    let cand = accepted(&l);
    assert_eq!(
        cited(&cand.state.remember),
        vec![id(1), id(2), id(3), id(4)]
    );
    let h = Handover::parse(&cand.handover);
    let remember = h.section("Must remember").expect("section");
    for n in 1..=4 {
        assert!(
            remember.citations.contains(&id(n)),
            "e{n} missing:\n{}",
            cand.handover
        );
    }
}

#[test]
fn handover_carries_the_latest_instruction_verbatim_and_is_short() {
    let instruction = "Please fix the importer.\n# Not a heading\n  keep   spacing  [e1]\n\nthanks";
    let mut events = vec![ev(Kind::UserMessage, "Start")];
    for i in 0..200 {
        events.push(ev(Kind::Result, &format!("Finished step {i} of the migration with a fairly long description that goes on and on {}", "x".repeat(300))));
    }
    events.push(ev(Kind::UserMessage, instruction));
    events.push(ev(Kind::NextStep, "Rerun the importer"));
    let l = ledger(events);
    let cand = accepted(&l);
    assert_eq!(
        cand.state
            .latest_user_instruction
            .as_ref()
            .expect("ins")
            .text,
        instruction
    );
    assert!(cand.handover.contains(instruction));
    let lines: Vec<&str> = cand.handover.lines().collect();
    assert!(
        lines.len() < 80,
        "{} lines:\n{}",
        lines.len(),
        cand.handover
    );
    let instruction_lines: Vec<&str> = instruction.lines().collect();
    for line in lines.iter().filter(|l| !instruction_lines.contains(l)) {
        assert!(line.chars().count() <= 240, "long line: {line}");
    }
    // The order a reader wants: instruction, then next step first.
    let pos = |t: &str| cand.handover.find(t).expect(t);
    assert!(pos("## Latest user instruction") < pos("## Next step"));
    assert!(pos("## Next step") < pos("## Must remember"));
    assert!(pos("## Goal") < pos("## Superseded"));
    // All 200 results stay cited in the state: the newest word for word, the rest condensed.
    assert_eq!(cited(&cand.state.completed_work).len(), 200);
    assert_eq!(
        cand.state.completed_work.len(),
        remaind_compact::KEEP_VERBATIM + 1
    );
}

#[test]
fn item_texts_never_cite_by_accident() {
    let l = ledger(vec![
        ev(Kind::UserMessage, "go"),
        ev(Kind::Decision, "Use A"),
        sup(ev(Kind::Correction, "Use B"), &[2]),
        ev(Kind::Result, "Done, see [e2] for the old plan"),
    ]);
    let cand = accepted(&l);
    assert!(
        cand.handover.contains("Done, see e2 for the old plan [e4]"),
        "{}",
        cand.handover
    );
}

#[test]
fn superseded_goal_passes_to_the_correction() {
    let l = ledger(vec![
        ev(Kind::UserMessage, "Build a web app"),
        sup(
            ev(Kind::Correction, "Build a CLI instead of a web app"),
            &[1],
        ),
    ]);
    let cand = accepted(&l);
    assert_eq!(cited(&cand.state.goal), vec![id(2)]);
    // The superseded instruction is still the latest user message (authority order 1).
    assert_eq!(
        cand.state.latest_user_instruction.expect("ins").event,
        id(1)
    );
}

#[test]
fn incremental_equals_from_scratch_at_every_split() {
    let events = vec![
        ev(Kind::UserMessage, "Build the importer"),
        ev(Kind::NextStep, "Read the spec"),
        ev(Kind::Decision, "Use Postgres"),
        res(ev(Kind::Result, "Read the spec"), &[2]),
        ev(Kind::NextStep, "Write the schema"),
        ev(Kind::NextStep, "Write the loader"),
        sup(ev(Kind::Correction, "Use SQLite"), &[3]),
        ev(Kind::Blocker, "No sample data"),
        importance(ev(Kind::Note, "Ask Ana for data"), 2),
        res(ev(Kind::Note, "Got the data"), &[8, 9]),
        ev(Kind::FileChange, "src/schema.sql"),
        res(ev(Kind::Result, "Loader written"), &[6]),
        ev(Kind::Remember, "Data is PII"),
        ev(Kind::UserMessage, "Now add tests"),
        ev(Kind::Compaction, "bookkeeping"),
        res(ev(Kind::Result, "Schema written"), &[5]),
    ];
    let l = ledger(events);
    let n = l.events().len() as u64;
    let scratch = accepted(&l);
    for k in 1..n {
        let first = compact(&l, None, k);
        assert!(verdict(&l, None, &first).accepted, "prefix {k} rejected");
        let second = compact(&l, Some(&first.state), n);
        let v = verdict(&l, Some(&first.state), &second);
        assert!(v.accepted, "split {k}: {:#?}", v.failures);
        assert_eq!(content(&second.state), content(&scratch.state), "split {k}");
        assert_eq!(second.handover, scratch.handover, "split {k}");
    }
}

#[test]
fn compacting_again_with_no_new_events_is_stable() {
    let l = ledger(vec![
        ev(Kind::UserMessage, "go"),
        ev(Kind::NextStep, "do it"),
    ]);
    let first = accepted(&l);
    let again = compact(&l, Some(&first.state), 2);
    assert!(verdict(&l, Some(&first.state), &again).accepted);
    assert_eq!(again, first);
}

/// Long sections keep their newest items word for word and condense the rest into one first
/// item that cites every older event, across several incremental compactions; a correction
/// of a condensed decision takes it out of the rollup, and every step is accepted.
#[test]
fn long_sections_condense_old_items_and_stay_accepted() {
    use remaind_compact::KEEP_VERBATIM;

    let mut events = vec![ev(Kind::UserMessage, "Import every part")];
    for n in 0..(KEEP_VERBATIM as u64 + 60) {
        events.push(ev(Kind::Decision, &format!("Decision {n}: stream rows")));
        events.push(ev(Kind::Result, &format!("Part {n} imported")));
        events.push(ev(Kind::FileChange, &format!("src/part_{n}.rs")));
        events.push(ev(Kind::ToolCall, &format!("cargo test part_{n}")));
    }
    // Seq 2 is the first decision: it will sit in the rollup, then be corrected.
    let l = ledger(events.clone());
    let first = accepted(&l);
    for section in [
        &first.state.decisions,
        &first.state.completed_work,
        &first.state.files_changed,
    ] {
        assert_eq!(section.len(), KEEP_VERBATIM + 1, "one rollup + the newest");
        assert!(
            section[0].text.contains("condensed: 60 earlier"),
            "{}",
            section[0].text
        );
        assert_eq!(section[0].events.len(), 60);
        assert!(section[1..].iter().all(|i| i.events.len() == 1));
    }
    assert!(first.state.decisions[0].events.contains(&id(2)));

    // Incrementally: more work, and a correction of the oldest (condensed) decision.
    let mut more = events;
    more.push(sup(
        ev(Kind::Correction, "Batch rows by 1,000 instead"),
        &[2],
    ));
    for n in 0..40u64 {
        more.push(ev(Kind::Result, &format!("Late part {n} imported")));
    }
    let l2 = ledger(more);
    let head = remaind_validate::LedgerView::head(&l2).expect("memory");
    let next = compact(&l2, Some(&first.state), head);
    let v = verdict(&l2, Some(&first.state), &next);
    assert!(v.accepted, "{:#?}", v.failures);
    let rollup = &next.state.decisions[0];
    assert!(
        !rollup.events.contains(&id(2)),
        "the corrected decision left the rollup"
    );
    assert!(
        rollup.text.contains("condensed: 60 earlier"),
        "{}",
        rollup.text
    );
    let done = &next.state.completed_work;
    assert_eq!(done.len(), KEEP_VERBATIM + 1);
    assert_eq!(
        done[0].events.len(),
        100,
        "60 condensed before + 40 pushed out now"
    );
    // Every result is still cited in completed_work, each exactly once.
    let mut all = cited(done);
    all.sort();
    all.dedup();
    assert_eq!(all.len(), KEEP_VERBATIM + 60 + 40);
    // The handover shows the newest items, not the rollup, and parses cleanly.
    let h = Handover::parse(&next.handover);
    assert!(h.problems.is_empty(), "{:?}", h.problems);
    assert!(!next.handover.contains("condensed:"));
}

/// Steps replaced before they were done pile up as open loops and the oldest are condensed;
/// when every newer step is closed, the newest open step comes out of the condensed item as
/// the next step, with its own text, and the compaction is accepted.
#[test]
fn the_next_step_can_come_out_of_condensed_open_loops() {
    use remaind_compact::KEEP_VERBATIM;

    let steps = KEEP_VERBATIM as u64 + 60;
    let mut events = vec![ev(Kind::UserMessage, "Plan the migration")];
    for n in 0..steps {
        events.push(ev(Kind::NextStep, &format!("Step {n}")));
    }
    let l = ledger(events.clone());
    let first = accepted(&l);
    let loops = &first.state.open_loops;
    assert_eq!(loops.len(), KEEP_VERBATIM + 1);
    assert!(
        loops[0].text.starts_with("Earlier open loops, condensed:"),
        "{}",
        loops[0].text
    );
    assert_eq!(
        loops[0].events.len() as u64,
        steps - 1 - KEEP_VERBATIM as u64
    );

    // Close every step that is not condensed (the verbatim loops and the current step).
    let newest_condensed = *loops[0].events.last().expect("condensed ids");
    let closed: Vec<u64> = (newest_condensed.seq() + 1..=steps + 1).collect();
    events.push(res(ev(Kind::Note, "Those steps are done"), &closed));
    let l2 = ledger(events);
    let head = remaind_validate::LedgerView::head(&l2).expect("memory");
    let next = compact(&l2, Some(&first.state), head);
    let v = verdict(&l2, Some(&first.state), &next);
    assert!(v.accepted, "{:#?}", v.failures);
    let step = next.state.next_step.as_ref().expect("a next step");
    assert_eq!(step.events, vec![newest_condensed]);
    assert_eq!(step.text, format!("Step {}", newest_condensed.seq() - 2));
    let rollup = &next.state.open_loops[0];
    assert!(!rollup.events.contains(&newest_condensed));
    // From scratch, the same step is chosen.
    let scratch = accepted(&l2);
    assert_eq!(scratch.state.next_step, next.state.next_step);
}
