//! Propose, accept, reject and hand-edit sequences, and the files they leave.

use remaind_memory::{Memory, Status, proposal_id};

use crate::common::Project;

/// The memory files with event timestamps blanked (they change per run).
fn files(p: &Project) -> String {
    p.memory_files()
        .into_iter()
        .filter(|(name, _)| name != "memory/rendered.sha256")
        .map(|(name, body)| {
            let body: String = body
                .lines()
                .map(|l| {
                    if l.starts_with("at: ") {
                        "at: [time]"
                    } else {
                        l
                    }
                })
                .collect::<Vec<_>>()
                .join("\n");
            format!("==> {name}\n{body}\n")
        })
        .collect()
}

#[test]
fn propose_accept_reject_and_propose_again_leave_these_files() {
    let p = Project::new();
    let ledger = p.ledger();
    let m = Memory::open(&p.ctx, &ledger).expect("open");
    let tests = m
        .propose("Test command", "Run `cargo xtask ci` before every push.")
        .expect("propose");
    let style = m
        .propose(
            "Commit style",
            "One change per commit; the message says why.",
        )
        .expect("propose");
    assert_eq!(tests.id, proposal_id("Test command"));
    assert!(tests.id.starts_with("test-command--"));
    m.accept(&tests.id).expect("accept");
    m.reject(&style.id).expect("reject");
    // Proposed again, reviewed again: the archive keeps both actions.
    m.propose("Commit style", "One change per commit.")
        .expect("propose");
    m.accept(&style.id).expect("accept");
    insta::assert_snapshot!(files(&p));
    let all = m.proposals().expect("list");
    assert!(all.iter().all(|x| x.status == Status::Accepted));
    // A decided proposal is not reviewed twice.
    let err = m.accept(&tests.id).expect_err("already accepted");
    assert!(err.is_invalid_input(), "{err}");
    // Every action is an event in the ledger.
    let memory_events = ledger
        .iter()
        .expect("iter")
        .filter(|e| {
            e.as_ref()
                .ok()
                .and_then(|e| e.data.as_ref())
                .is_some_and(|d| d.contains_key("memory"))
        })
        .count();
    assert_eq!(memory_events, 6);
}

#[test]
fn bad_input_is_refused_and_writes_nothing() {
    let p = Project::new();
    let ledger = p.ledger();
    let m = Memory::open(&p.ctx, &ledger).expect("open");
    let before = p.memory_files();
    for (title, text) in [("", "x"), ("a\nb", "x"), ("ok", "  ")] {
        let err = m.propose(title, text).expect_err("refused");
        assert!(err.is_invalid_input(), "{err}");
    }
    assert!(
        m.accept("no-such--id")
            .expect_err("missing")
            .is_invalid_input()
    );
    assert_eq!(p.memory_files(), before);
    assert_eq!(ledger.head().expect("head").0, 0);
}

#[test]
fn a_hand_edit_is_recorded_and_kept() {
    let p = Project::new();
    let ledger = p.ledger();
    let m = Memory::open(&p.ctx, &ledger).expect("open");
    let a = m
        .propose("Region", "Deploy to eu-west-1 only.")
        .expect("propose");
    m.accept(&a.id).expect("accept");
    let path = p.ctx.join("memory/MEMORY.md");
    let edited = format!(
        "{}\n## Added by hand\n\nThe staging database is reset every Monday.\n",
        std::fs::read_to_string(&path).expect("read")
    );
    std::fs::write(&path, &edited).expect("edit");
    // The next command records the edit before anything else, and keeps it.
    let m = Memory::open(&p.ctx, &ledger).expect("open");
    let b = m
        .propose("Owner", "The storage team owns the uploader.")
        .expect("propose");
    m.accept(&b.id).expect("accept");
    let now = std::fs::read_to_string(&path).expect("read");
    assert!(now.starts_with(&edited), "{now}");
    assert!(now.contains("The storage team owns the uploader."));
    let hand = ledger
        .iter()
        .expect("iter")
        .filter_map(Result::ok)
        .find(|e| e.data.as_ref().and_then(|d| d["memory"]["action"].as_str()) == Some("hand_edit"))
        .expect("a hand_edit event");
    assert_eq!(hand.text.as_deref(), Some(edited.as_str()));
}

#[test]
fn a_remember_event_proposes_itself_and_can_be_accepted() {
    let p = Project::new();
    let ledger = p.ledger();
    ledger
        .append(remaind_ledger::NewEvent {
            kind: Some(remaind_ledger::Kind::Remember),
            text: Some("Never push to main without a review.\nThe team agreed in March.".into()),
            ..Default::default()
        })
        .expect("remember");
    let m = Memory::open(&p.ctx, &ledger).expect("open");
    let listed = m.proposals().expect("list");
    assert_eq!(listed.len(), 1);
    let r = &listed[0];
    assert_eq!(r.title, "Never push to main without a review.");
    assert_eq!(r.id, proposal_id("Never push to main without a review."));
    assert_eq!(r.status, Status::Proposed);
    m.accept(&r.id).expect("accept");
    let md = std::fs::read_to_string(p.ctx.join("memory/MEMORY.md")).expect("MEMORY.md");
    assert!(
        md.contains("## Never push to main without a review.") && md.contains("agreed in March")
    );
}
