//! The commit path on a real `.context/` folder: accepted compactions write, rejected ones
//! leave every derived file byte for byte, dry runs touch nothing.

use std::collections::BTreeMap;
use std::time::Duration;

use camino::{Utf8Path, Utf8PathBuf};
use proptest::prelude::*;
use remaind_atomic::HistoryStore;
use remaind_compact::{Error, Options, Source, compact, open_store};
use remaind_events::{Kind, NewEvent};
use remaind_ledger::Ledger;
use remaind_validate::{Check, MemoryLedger};

use crate::common::ev;
use crate::props::{MUTATIONS, ledger_strategy, mutate, to_events};

struct Ctx {
    _tmp: tempfile::TempDir,
    dir: Utf8PathBuf,
    ledger: Ledger,
    store: HistoryStore,
}

fn ctx(events: Vec<NewEvent>) -> Ctx {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = Utf8PathBuf::from_path_buf(tmp.path().join(".context")).expect("UTF-8");
    Ledger::create(&dir).expect("create");
    if remaind_testkit::on_store() {
        // The same suite on a shared store (REMAIND_TEST_ON_STORE): the folder is a replica.
        remaind_testkit::make_replica(&dir, "compact");
    }
    let ledger = Ledger::open(&dir).expect("open");
    if !events.is_empty() {
        ledger.append(events).expect("append");
    }
    let store = open_store(&dir).expect("store");
    Ctx {
        _tmp: tmp,
        dir,
        ledger,
        store,
    }
}

/// Every file under `active/` (history included) with its bytes.
fn snapshot(dir: &Utf8Path) -> BTreeMap<Utf8PathBuf, Vec<u8>> {
    fn walk(p: &Utf8Path, out: &mut BTreeMap<Utf8PathBuf, Vec<u8>>) {
        let Ok(entries) = p.read_dir_utf8() else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path().to_owned();
            if path.is_dir() {
                walk(&path, out);
            } else if let Ok(bytes) = std::fs::read(&path) {
                out.insert(path, bytes);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&dir.join("active"), &mut out);
    out
}

fn memory(dir: &Utf8Path) -> MemoryLedger {
    let text = std::fs::read_to_string(dir.join("logs/events.jsonl")).expect("log");
    MemoryLedger::from_jsonl(&text).expect("valid log")
}

fn write_candidate(dir: &Utf8Path, cand: &remaind_compact::Candidate) -> Utf8PathBuf {
    let out = dir.join("../cand");
    std::fs::create_dir_all(&out).expect("mkdir");
    std::fs::write(out.join("state.json"), cand.state.to_canonical_bytes()).expect("write");
    std::fs::write(out.join("handover.md"), &cand.handover).expect("write");
    out
}

fn sample_events() -> Vec<NewEvent> {
    vec![
        ev(Kind::UserMessage, "Build the importer"),
        ev(Kind::Decision, "Use Postgres"),
        ev(Kind::NextStep, "Write the schema"),
        ev(Kind::Result, "Schema written"),
    ]
}

#[test]
fn accepted_compaction_writes_both_files_and_a_compaction_event() {
    let c = ctx(sample_events());
    let out = compact(&c.ledger, &c.store, Source::Builtin, Options::default()).expect("compact");
    assert!(out.verdict.accepted, "{:#?}", out.verdict);
    assert!(out.written);
    let cand = out.candidate.expect("candidate");
    assert_eq!(
        c.store.read("state.json").expect("read"),
        Some(cand.state.to_canonical_bytes())
    );
    assert_eq!(
        c.store.read("handover.md").expect("read").as_deref(),
        Some(cand.handover.as_bytes())
    );
    let id = out.event_id.expect("event");
    let event = c.ledger.get(id.seq()).expect("read").expect("exists");
    assert_eq!(event.kind, Kind::Compaction);
    let data = event.data.expect("data");
    assert_eq!(data["through_seq"], 4);
    assert_eq!(data["compactor"], "builtin");
    assert_eq!(data["counts"]["decisions"], 1);

    // Incremental: only the new events are folded in; the compaction event is bookkeeping.
    c.ledger
        .append(ev(Kind::UserMessage, "Now load the data"))
        .expect("append");
    let out = compact(&c.ledger, &c.store, Source::Builtin, Options::default()).expect("compact");
    assert!(out.verdict.accepted, "{:#?}", out.verdict);
    assert_eq!(out.tail_events, 2);
    let state = out.candidate.expect("candidate").state;
    assert_eq!(
        state.latest_user_instruction.expect("ins").text,
        "Now load the data"
    );
}

#[test]
fn dry_run_writes_and_appends_nothing() {
    let c = ctx(sample_events());
    let before = snapshot(&c.dir);
    let head = c.ledger.head().expect("head");
    let opts = Options {
        dry_run: true,
        ..Options::default()
    };
    let out = compact(&c.ledger, &c.store, Source::Builtin, opts).expect("compact");
    assert!(out.verdict.accepted);
    assert!(!out.written && out.event_id.is_none());
    assert_eq!(snapshot(&c.dir), before);
    assert_eq!(c.ledger.head().expect("head"), head);
}

#[test]
fn rejected_candidate_leaves_files_and_records_a_validation_event() {
    let c = ctx(sample_events());
    compact(&c.ledger, &c.store, Source::Builtin, Options::default()).expect("first");
    c.ledger
        .append(ev(Kind::Decision, "Add an index on orders.id"))
        .expect("append");
    let dry = Options {
        dry_run: true,
        ..Options::default()
    };
    let mut cand = compact(&c.ledger, &c.store, Source::Builtin, dry)
        .expect("dry")
        .candidate
        .expect("c");
    cand.state.decisions.clear();
    let cand_dir = write_candidate(&c.dir, &cand);
    let before = snapshot(&c.dir);
    let out = compact(
        &c.ledger,
        &c.store,
        Source::Dir(cand_dir),
        Options::default(),
    )
    .expect("compact");
    assert!(!out.verdict.accepted);
    assert_eq!(out.verdict.failed_checks(), vec![Check::DecisionsPreserved]);
    assert!(!out.written);
    assert_eq!(snapshot(&c.dir), before);
    let event = c
        .ledger
        .get(out.event_id.expect("event").seq())
        .expect("read")
        .expect("exists");
    assert_eq!(event.kind, Kind::Validation);
    let data = event.data.expect("data");
    assert_eq!(data["failed_checks"][0], "decisions_preserved");
    assert!(
        data["failures"][0]["events"]
            .as_array()
            .is_some_and(|a| !a.is_empty())
    );
    assert!(
        data["compactor"]
            .as_str()
            .is_some_and(|s| s.starts_with("candidate:"))
    );
}

#[test]
fn a_garbage_command_is_a_schema_rejection() {
    let c = ctx(sample_events());
    let before = snapshot(&c.dir);
    let source = Source::Command {
        cmd: "echo not json".to_owned(),
        timeout: Duration::from_secs(30),
    };
    let out = compact(&c.ledger, &c.store, source, Options::default()).expect("compact");
    assert!(!out.verdict.accepted);
    assert_eq!(out.verdict.failed_checks(), vec![Check::Schema]);
    assert!(out.verdict.failures[0].reason.contains("output is not"));
    assert!(out.candidate.is_none());
    assert_eq!(snapshot(&c.dir), before);
    assert!(out.event_id.is_some());
}

#[test]
fn an_external_command_candidate_is_accepted_and_labelled() {
    let c = ctx(sample_events());
    // An "external" compactor that answers with the built-in candidate.
    let dry = Options {
        dry_run: true,
        ..Options::default()
    };
    let cand = compact(&c.ledger, &c.store, Source::Builtin, dry)
        .expect("dry")
        .candidate
        .expect("c");
    let file = c.dir.join("../answer.json");
    let answer = serde_json::json!({"state": cand.state, "handover": "# Handover\n(stale binding dropped)\n"});
    std::fs::write(&file, serde_json::to_vec(&answer).expect("json")).expect("write");
    let mut good = answer.clone();
    good["handover"] = serde_json::Value::String(cand.handover.clone());
    std::fs::write(&file, serde_json::to_vec(&good).expect("json")).expect("write");
    let source = Source::Command {
        cmd: format!("cat >/dev/null; cat '{file}'"),
        timeout: Duration::from_secs(30),
    };
    let out = compact(&c.ledger, &c.store, source, Options::default()).expect("compact");
    assert!(out.verdict.accepted, "{:#?}", out.verdict);
    let state = out.candidate.expect("candidate").state;
    assert!(
        state.compactor.starts_with("command:cat"),
        "{}",
        state.compactor
    );
    let handover = String::from_utf8(c.store.read("handover.md").expect("read").expect("exists"))
        .expect("UTF-8");
    assert_eq!(handover, remaind_compact::bind(&state, &handover));
}

#[test]
fn through_seq_out_of_range_is_invalid_input() {
    let c = ctx(sample_events());
    let opts = Options {
        through_seq: Some(99),
        ..Options::default()
    };
    let err = compact(&c.ledger, &c.store, Source::Builtin, opts).expect_err("past head");
    assert!(
        matches!(
            err,
            Error::InvalidInput {
                field: "through_seq",
                ..
            }
        ),
        "{err}"
    );
    compact(&c.ledger, &c.store, Source::Builtin, Options::default()).expect("compact");
    let opts = Options {
        through_seq: Some(2),
        ..Options::default()
    };
    let err = compact(&c.ledger, &c.store, Source::Builtin, opts).expect_err("behind prior");
    assert!(err.is_invalid_input());
}

#[test]
fn a_crash_between_the_two_writes_is_repaired_by_compacting_again() {
    let c = ctx(sample_events());
    compact(&c.ledger, &c.store, Source::Builtin, Options::default()).expect("first");
    c.ledger
        .append(ev(Kind::Result, "Data loaded"))
        .expect("append");
    let dry = Options {
        dry_run: true,
        ..Options::default()
    };
    let cand = compact(&c.ledger, &c.store, Source::Builtin, dry)
        .expect("dry")
        .candidate
        .expect("c");
    // Simulate the crash: the new state is written, the handover is not.
    c.store
        .write("state.json", &cand.state.to_canonical_bytes())
        .expect("write");
    let stale = String::from_utf8(c.store.read("handover.md").expect("read").expect("exists"))
        .expect("UTF-8");
    assert_ne!(
        remaind_validate::parse_binding(&stale),
        Some(remaind_validate::Binding::for_state(&cand.state))
    );
    let out = compact(&c.ledger, &c.store, Source::Builtin, Options::default()).expect("repair");
    assert!(out.verdict.accepted, "{:#?}", out.verdict);
    let state: remaind_validate::State =
        serde_json::from_slice(&c.store.read("state.json").expect("read").expect("exists"))
            .expect("state");
    let handover = String::from_utf8(c.store.read("handover.md").expect("read").expect("exists"))
        .expect("UTF-8");
    assert_eq!(
        remaind_validate::parse_binding(&handover),
        Some(remaind_validate::Binding::for_state(&state))
    );
}

proptest! {
    #![proptest_config(ProptestConfig { max_shrink_iters: 64, ..ProptestConfig::default() })]
    #[test]
    fn prop_rejected_compaction_leaves_files_unchanged(
        (specs, split) in ledger_strategy(),
        which in 0..MUTATIONS.len(),
        pick in any::<usize>(),
    ) {
        // Callers cannot log bookkeeping kinds; the commit path appends its own.
        let events: Vec<NewEvent> = to_events(&specs)
            .into_iter()
            .map(|mut e| {
                if e.kind.is_some_and(Kind::is_bookkeeping) {
                    e.kind = Some(Kind::Note);
                }
                e
            })
            .collect();
        let k = 1 + usize::from(split) % events.len();
        let c = ctx(events[..k].to_vec());
        let first = compact(&c.ledger, &c.store, Source::Builtin, Options::default()).expect("first");
        prop_assert!(first.verdict.accepted, "{:#?}", first.verdict);
        let rest: Vec<NewEvent> = events[k..].to_vec();
        if !rest.is_empty() {
            // The ids in `rest` were generated for a ledger without the compaction event;
            // they cite only earlier events, so they stay valid one position later.
            c.ledger.append(rest).expect("append");
        }
        let dry = Options { dry_run: true, ..Options::default() };
        let cand = compact(&c.ledger, &c.store, Source::Builtin, dry).expect("dry").candidate.expect("c");
        let mem = memory(&c.dir);
        let prior = remaind_compact::read_prior(&c.store).expect("prior");
        let Some((bad, check)) = mutate(&mem, &cand, MUTATIONS[which], pick) else {
            return Ok(());
        };
        let cand_dir = write_candidate(&c.dir, &bad);
        let before = snapshot(&c.dir);
        let head = c.ledger.head().expect("head").0;
        let out = compact(&c.ledger, &c.store, Source::Dir(cand_dir), Options::default()).expect("compact");
        prop_assert!(!out.verdict.accepted, "{:?} accepted", MUTATIONS[which]);
        prop_assert!(out.verdict.failed_checks().contains(&check), "{:#?}", out.verdict);
        prop_assert!(!out.written);
        prop_assert_eq!(snapshot(&c.dir), before);
        prop_assert_eq!(c.ledger.head().expect("head").0, head + 1);
        prop_assert_eq!(remaind_compact::read_prior(&c.store).expect("prior"), prior);
    }
}

#[test]
fn a_constraint_that_held_across_a_compaction_is_flushed_to_memory_once() {
    let c = ctx(vec![
        ev(Kind::UserMessage, "Build the importer"),
        ev(Kind::Constraint, "Only eu-west-1 may hold customer data."),
        ev(Kind::NextStep, "Write the schema"),
    ]);
    let first = compact(&c.ledger, &c.store, Source::Builtin, Options::default()).expect("compact");
    assert!(first.verdict.accepted, "{:#?}", first.verdict);
    // Nothing held across a compaction yet: nothing flushed.
    assert!(first.memory_proposed.is_empty());
    c.ledger
        .append(ev(Kind::UserMessage, "Now load the data"))
        .expect("append");
    let second =
        compact(&c.ledger, &c.store, Source::Builtin, Options::default()).expect("compact");
    assert!(second.verdict.accepted, "{:#?}", second.verdict);
    assert_eq!(
        second.memory_proposed.len(),
        1,
        "{:?}",
        second.memory_proposed
    );
    let ctx_dir = remaind_fs::ContextDir::new(c.dir.clone());
    let memory = remaind_memory::Memory::open(&ctx_dir, &c.ledger).expect("memory");
    let p = memory
        .proposal(&second.memory_proposed[0])
        .expect("proposal");
    assert_eq!(p.title, "Only eu-west-1 may hold customer data.");
    assert_eq!(p.status, remaind_memory::Status::Proposed);
    assert_eq!(p.cites, vec![remaind_events::EventId(2)]);
    assert!(
        c.dir
            .join(format!("memory/proposals/{}.md", p.id))
            .is_file()
    );
    // The flush comes before the compaction event; the next compaction proposes nothing new.
    let compaction = second.event_id.expect("event");
    assert!(p.events.iter().all(|e| *e < compaction));
    c.ledger
        .append(ev(Kind::UserMessage, "And index it"))
        .expect("append");
    let third = compact(&c.ledger, &c.store, Source::Builtin, Options::default()).expect("compact");
    assert!(third.verdict.accepted);
    assert!(third.memory_proposed.is_empty());
}
