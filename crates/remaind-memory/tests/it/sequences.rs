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
        .append(remaind_events::NewEvent {
            kind: Some(remaind_events::Kind::Remember),
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

#[test]
fn an_edit_changes_the_memory_in_place_and_keeps_the_hand_edits_around_it() {
    let p = Project::new();
    let ledger = p.ledger();
    let m = Memory::open(&p.ctx, &ledger).expect("open");
    let a = m
        .propose("Region", "Deploy to eu-west-1 only.")
        .expect("propose");
    m.accept(&a.id).expect("accept");
    let path = p.ctx.join("memory/MEMORY.md");
    let by_hand = "\nThe staging database is reset every Monday.\n";
    let edited = format!("{}{by_hand}", std::fs::read_to_string(&path).expect("read"));
    std::fs::write(&path, &edited).expect("hand edit");
    let m = Memory::open(&p.ctx, &ledger).expect("open");
    let e = m
        .edit("region", "Deploy to eu-west-1 and eu-central-1.")
        .expect("edit");
    assert_eq!(e.status, Status::Accepted);
    let now = std::fs::read_to_string(&path).expect("read");
    assert!(
        now.contains("## Region\n\nDeploy to eu-west-1 and eu-central-1.\n"),
        "{now}"
    );
    assert!(!now.contains("eu-west-1 only"), "{now}");
    assert!(now.ends_with(by_hand), "{now}");
    assert_eq!(now.matches("## Region").count(), 1, "{now}");
    // The edit is archived beside the accept; a rejected memory is not edited.
    let files = p.memory_files();
    assert!(files.iter().any(|(n, _)| n.ends_with("-edit.md")));
    let r = m.propose("Old idea", "Use tabs.").expect("propose");
    m.reject(&r.id).expect("reject");
    let before = p.memory_files();
    assert!(
        m.edit(&r.id, "Use spaces.")
            .expect_err("rejected")
            .is_invalid_input()
    );
    assert!(m.edit(&a.id, "  ").expect_err("empty").is_invalid_input());
    assert_eq!(p.memory_files(), before);
}

#[test]
fn a_memory_whose_cited_fact_is_superseded_is_shown_as_no_longer_current() {
    let p = Project::new();
    let ledger = p.ledger();
    let port = ledger
        .append(remaind_events::NewEvent {
            kind: Some(remaind_events::Kind::Constraint),
            text: Some("The API listens on 8080.".into()),
            ..Default::default()
        })
        .expect("constraint")[0];
    let m = Memory::open(&p.ctx, &ledger).expect("open");
    let x = m
        .propose_citing("API port", "The API listens on 8080.", &[port])
        .expect("propose");
    m.accept(&x.id).expect("accept");
    let unknown: remaind_events::EventId = "e99".parse().expect("id");
    assert!(
        m.propose_citing("Bad", "x", &[unknown])
            .expect_err("no such event")
            .is_invalid_input()
    );
    let mut status = |id| ledger.status(id).ok().flatten();
    let shown = remaind_memory::memory_for_packet(&p.ctx, &ledger, &mut status)
        .expect("packet")
        .expect("some");
    assert!(shown.contains("## API port\n"), "{shown}");
    let correction = ledger
        .append(remaind_events::NewEvent {
            kind: Some(remaind_events::Kind::Correction),
            text: Some("The API moved to 9090.".into()),
            supersedes: vec![port],
            ..Default::default()
        })
        .expect("correction")[0];
    // The packet marks it at once, before any memory command rewrites the file.
    let mut status = |id| ledger.status(id).ok().flatten();
    let shown = remaind_memory::memory_for_packet(&p.ctx, &ledger, &mut status)
        .expect("packet")
        .expect("some");
    assert!(
        shown.contains(&format!(
            "## API port (no longer current)\n\n> Not current: {correction} superseded {port}"
        )),
        "{shown}"
    );
    // The next sync writes the same mark into MEMORY.md, and the proposal says so.
    m.sync().expect("sync");
    let md = std::fs::read_to_string(p.ctx.join("memory/MEMORY.md")).expect("read");
    assert_eq!(md, shown);
    assert_eq!(
        m.proposal(&x.id).expect("p").contradicted_by,
        Some(correction)
    );
}

#[test]
fn the_continuity_flush_proposes_each_title_once() {
    let p = Project::new();
    let ledger = p.ledger();
    let m = Memory::open(&p.ctx, &ledger).expect("open");
    let item = |text: &str| remaind_memory::FlushItem::from_text(text, Vec::new()).expect("item");
    let first = m
        .flush(&[
            item("Only eu-west-1.\nCompliance says so."),
            item("Tabs, not spaces."),
        ])
        .expect("flush");
    assert_eq!(first.len(), 2);
    assert_eq!(first[0].title, "Only eu-west-1.");
    // The flush writes the proposal files a full sync from the ledger would.
    let proposals = |p: &Project| -> Vec<(String, String)> {
        p.memory_files()
            .into_iter()
            .filter(|(n, _)| n.starts_with("memory/proposals/"))
            .collect()
    };
    let flushed = proposals(&p);
    assert_eq!(flushed.len(), 2);
    m.sync().expect("sync");
    assert_eq!(proposals(&p), flushed);
    m.reject(&first[1].id).expect("reject");
    let head = ledger.head().expect("head").0;
    // Flushed again: nothing new (a rejected one stays rejected), nothing appended.
    let again = m
        .flush(&[
            item("Only eu-west-1.\nCompliance says so."),
            item("Tabs, not spaces."),
        ])
        .expect("flush");
    assert!(again.is_empty());
    assert_eq!(ledger.head().expect("head").0, head);
}

#[test]
fn a_suggestion_proposes_or_refreshes_but_never_reopens_a_decided_memory() {
    let p = Project::new();
    let ledger = p.ledger();
    let suggest = |text: &str| {
        let mut data = serde_json::Map::new();
        data.insert(
            "memory".into(),
            serde_json::json!({"action": "suggest", "title": "Key technical concepts (session abc)"}),
        );
        ledger
            .append(remaind_events::NewEvent {
                kind: Some(remaind_events::Kind::Note),
                text: Some(text.into()),
                data: Some(data),
                ..Default::default()
            })
            .expect("suggest")[0]
    };
    suggest("- Phoenix LiveView");
    let m = Memory::open(&p.ctx, &ledger).expect("open");
    let id = proposal_id("Key technical concepts (session abc)");
    assert_eq!(m.proposal(&id).expect("p").text, "- Phoenix LiveView");
    suggest("- Phoenix LiveView\n- Ecto");
    assert_eq!(
        m.proposal(&id).expect("p").text,
        "- Phoenix LiveView\n- Ecto"
    );
    m.accept(&id).expect("accept");
    suggest("- something else entirely");
    let after = m.proposal(&id).expect("p");
    assert_eq!(after.status, Status::Accepted);
    assert_eq!(after.text, "- Phoenix LiveView\n- Ecto");
}

#[test]
fn open_loops_are_files_and_resolving_one_archives_it() {
    let p = Project::new();
    let ledger = p.ledger();
    let append = |kind, text: &str, resolves: Vec<remaind_events::EventId>, supersedes| {
        ledger
            .append(remaind_events::NewEvent {
                kind: Some(kind),
                text: Some(text.into()),
                resolves,
                supersedes,
                ..Default::default()
            })
            .expect("append")[0]
    };
    use remaind_events::Kind;
    let blocker = append(
        Kind::Blocker,
        "Waiting for OPS-142: staging credentials",
        vec![],
        vec![],
    );
    let step = append(Kind::NextStep, "Write the migration", vec![], vec![]);
    let old = append(Kind::NextStep, "Ask about the schema", vec![], vec![]);
    append(
        Kind::Correction,
        "No need to ask: the schema is in docs/",
        vec![],
        vec![old],
    );
    let m = Memory::open(&p.ctx, &ledger).expect("open");
    m.propose("Test command", "Run `cargo xtask ci` before every push.")
        .expect("propose");
    append(Kind::Result, "Credentials arrived", vec![blocker], vec![]);
    m.sync().expect("sync");
    insta::assert_snapshot!(files(&p));
    let loops: Vec<String> = p
        .memory_files()
        .into_iter()
        .map(|(n, _)| n)
        .filter(|n| n.starts_with("memory/loops/"))
        .collect();
    // Only the step is still open; the superseded question left no archive entry.
    assert_eq!(
        loops,
        [format!(
            "memory/loops/{}.md",
            remaind_memory::loop_id("Write the migration")
        )]
    );
    assert!(step.to_string().starts_with('e'));
}
