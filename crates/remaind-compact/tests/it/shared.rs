//! Compaction on folders that are replicas of one shared store (a throwaway PostgreSQL
//! cluster): the pair commits with its event, other machines take it, and of two compactions
//! built on the same prior exactly one lands.

use camino::Utf8PathBuf;
use jiff::Timestamp;
use remaind_atomic::HistoryStore;
use remaind_compact::{
    CompactorInput, Options, Proposal, Source, compact, compact_builtin, compact_with, open_store,
    take_shared_pair,
};
use remaind_events::{GENESIS_PREV, Kind};
use remaind_hash::sha256_hex;
use remaind_ledger::{Ledger, StoreSetting};
use remaind_pg::Store;
use remaind_testkit::{event, postgres_url, scratch_context, unique_project};
use tempfile::TempDir;

/// One machine: its folder, ledger and history store over `active/`.
struct Machine {
    _tmp: TempDir,
    dir: Utf8PathBuf,
    ledger: Ledger,
    store: HistoryStore,
}

/// `n` folders that are replicas of one new project, opened.
fn machines(n: usize) -> (String, Vec<Machine>) {
    let project = unique_project("compact");
    Store::create(&postgres_url(), &project, GENESIS_PREV, &[]).expect("create the project");
    let out = (0..n)
        .map(|_| {
            let (tmp, dir) = scratch_context("compact-shared", [7; 32]);
            Ledger::create(&dir).expect("create");
            StoreSetting {
                url: postgres_url(),
                project: project.clone(),
            }
            .save(&dir)
            .expect("save the setting");
            Machine {
                ledger: Ledger::open(&dir).expect("open"),
                store: open_store(&dir).expect("store"),
                _tmp: tmp,
                dir,
            }
        })
        .collect();
    (project, out)
}

fn active(m: &Machine) -> [Vec<u8>; 2] {
    ["state.json", "handover.md"]
        .map(|f| std::fs::read(m.dir.join("active").join(f)).expect("an active file"))
}

#[test]
fn of_two_machines_compacting_the_same_prior_exactly_one_lands_and_the_other_builds_on_it() {
    let (project, ms) = machines(2);
    let (a, b) = (&ms[0], &ms[1]);
    a.ledger
        .append(event(Kind::UserMessage, "Ship the parser"))
        .expect("append");
    a.ledger
        .append(event(Kind::Note, "the lexer is done"))
        .expect("append");
    // b's compactor is slow (an LLM): a compacts the same prior meanwhile and lands first.
    let slow = |input: &CompactorInput| {
        let won = compact(&a.ledger, &a.store, Source::Builtin, Options::default()).expect("a");
        assert!(won.written && won.verdict.accepted);
        let lookup = |id: remaind_events::EventId| b.ledger.get(id.seq()).ok().flatten();
        Ok(compact_builtin(
            input.prior_state.as_ref(),
            &input.events,
            lookup,
            input.through_seq,
            &input.log_digest,
            Timestamp::now(),
        ))
    };
    let lost = compact_with(
        &b.ledger,
        &b.store,
        Proposal::new("slow"),
        slow,
        Options::default(),
    );
    // Losing the race is an outcome, not an error: the winner's event is named and nothing
    // of b's candidate was written.
    let lost = lost.expect("a lost race is not an error");
    assert!(lost.verdict.accepted && !lost.written, "{lost:?}");
    let winner = lost.lost_to.expect("the winning compaction is named");
    assert_eq!(
        a.ledger.get(winner.seq()).expect("read").map(|e| e.kind),
        Some(Kind::Compaction)
    );
    assert!(!b.dir.join("active/state.json").exists(), "b wrote nothing");

    // The store holds a's pair, committed with its event; b takes it, then compacts on it.
    let mut store = Store::connect(&postgres_url(), &project).expect("connect");
    let [state, handover] = active(a);
    assert_eq!(
        store.file("active/state.json").expect("read"),
        Some(state.clone())
    );
    assert_eq!(
        store.file("active/handover.md").expect("read"),
        Some(handover.clone())
    );
    assert!(take_shared_pair(&b.ledger, &b.store).expect("take"));
    assert_eq!(active(b), [state.clone(), handover]);
    assert!(!take_shared_pair(&b.ledger, &b.store).expect("take again"));

    b.ledger
        .append(event(Kind::Note, "the parser is done"))
        .expect("append");
    let next = compact(&b.ledger, &b.store, Source::Builtin, Options::default()).expect("b");
    assert!(next.written && next.verdict.accepted, "{:?}", next.verdict);
    let after: serde_json::Value = serde_json::from_slice(&active(b)[0]).expect("b's state parses");
    assert_eq!(
        after["through_seq"], 4,
        "b compacted on top of a's compaction"
    );
    // a, compacting next, first takes b's pair.
    let [b_state, _] = active(b);
    assert_eq!(
        sha256_hex(
            &store
                .file("active/state.json")
                .expect("read")
                .expect("a file")
        ),
        sha256_hex(&b_state)
    );
    a.ledger.sync(std::time::Duration::ZERO).expect("sync");
    assert!(take_shared_pair(&a.ledger, &a.store).expect("take"));
    assert_eq!(active(a)[0], b_state);
    assert!(a.ledger.verify().expect("verify").is_ok());
}

#[test]
fn a_plain_folder_takes_nothing_and_refuses_a_compaction_built_on_a_superseded_one() {
    let (_tmp, dir) = scratch_context("compact-plain", [7; 32]);
    Ledger::create(&dir).expect("create");
    let ledger = Ledger::open(&dir).expect("open");
    let store = open_store(&dir).expect("store");
    ledger
        .append(event(Kind::UserMessage, "Ship the parser"))
        .expect("append");
    assert!(!take_shared_pair(&ledger, &store).expect("take"));
    compact(&ledger, &store, Source::Builtin, Options::default()).expect("compact");
    // A writer that built on the state before that compaction (seq 0: none) loses.
    let refused = ledger.append(
        remaind_ledger::AppendRequest::from(event(Kind::Note, "built on nothing"))
            .system()
            .unless(&[Kind::Compaction], 0, &[]),
    );
    assert!(
        matches!(
            refused,
            Err(remaind_ledger::Error::Raced {
                seq: 2,
                since: 0,
                ..
            })
        ),
        "{refused:?}"
    );
    assert_eq!(ledger.head().expect("head").0, 2, "nothing was written");
}

#[test]
fn a_rollback_on_a_replica_stands_until_another_compaction_lands() {
    let (_project, ms) = machines(2);
    let (a, b) = (&ms[0], &ms[1]);
    a.ledger
        .append(event(Kind::UserMessage, "Ship the parser"))
        .expect("append");
    compact(&a.ledger, &a.store, Source::Builtin, Options::default()).expect("first");
    let first = active(a);
    let before_second = Timestamp::now();
    a.ledger
        .append(event(Kind::Note, "the lexer is done"))
        .expect("append");
    compact(&a.ledger, &a.store, Source::Builtin, Options::default()).expect("second");
    assert_ne!(active(a), first);
    // What `remaind rollback --to` does: the pair as of before the second compaction.
    a.store
        .restore_to(["state.json", "handover.md"], before_second)
        .expect("roll back");
    assert_eq!(active(a), first);
    assert!(
        !take_shared_pair(&a.ledger, &a.store).expect("take"),
        "the rollback stands"
    );
    assert_eq!(active(a), first);

    // Another machine's compaction supersedes it.
    b.ledger.sync(std::time::Duration::ZERO).expect("sync");
    assert!(take_shared_pair(&b.ledger, &b.store).expect("b takes the second pair"));
    b.ledger
        .append(event(Kind::Note, "the parser is done"))
        .expect("append");
    compact(&b.ledger, &b.store, Source::Builtin, Options::default()).expect("third");
    a.ledger.sync(std::time::Duration::ZERO).expect("sync");
    assert!(take_shared_pair(&a.ledger, &a.store).expect("take the third"));
    assert_eq!(active(a), active(b));
}
