//! What the wider index promises: a word from any indexed field of an event finds that event
//! (its text, the tool's name, a command or path in its input, a `Write`'s content, an
//! `Edit`'s new text, stdout, stderr, an output routed to an artifact, an identifier's parts),
//! and an index caught up event by event answers exactly as one rebuilt from scratch.

use proptest::prelude::*;
use remaind_events::{EventId, Kind, NewEvent, Status, Tool};
use remaind_index::{Field, Index, SearchOptions};
use serde_json::json;

use crate::common::{self, event, filler};

fn all(limit: usize) -> SearchOptions {
    SearchOptions {
        limit,
        ..SearchOptions::default()
    }
}

fn ids(index: &mut Index<'_>, q: &str) -> Vec<EventId> {
    index
        .search(q, &all(1000))
        .unwrap()
        .into_iter()
        .map(|h| h.id)
        .collect()
}

fn tool_event(
    text: &str,
    name: &str,
    input: serde_json::Value,
    output: serde_json::Value,
) -> NewEvent {
    NewEvent {
        tool: Some(Tool {
            name: name.into(),
            input,
            output,
        }),
        ..event(Kind::ToolResult, text)
    }
}

#[test]
fn every_part_of_a_tool_event_is_searchable_and_named() {
    let (_tmp, dir, ledger) = common::ledger();
    filler(&ledger, 40);
    let edit = ledger
        .append(tool_event(
            "Edit src/session.rs",
            "Edit",
            json!({"file_path": "src/active_session_registry.rs", "old_string": "fn old()", "new_string": "struct Sandbox { strict: bool }"}),
            json!({"ok": true}),
        ))
        .unwrap()[0];
    let push = ledger
        .append(tool_event(
            "$ git push",
            "Bash",
            json!({"command": "git push origin main"}),
            json!({"stdout": "", "stderr": "error: failed to push some refs; hint: Updates were rejected"}),
        ))
        .unwrap()[0];
    let big = format!(
        "{} deepinsidemarker {}",
        "x ".repeat(20_000),
        "y ".repeat(20_000)
    );
    let long = ledger
        .append(tool_event(
            "$ cargo test",
            "Bash",
            json!({"command": "cargo test"}),
            json!(big),
        ))
        .unwrap()[0];
    let mut index = Index::open(&dir, &ledger).unwrap();
    let first = |index: &mut Index<'_>, q: &str| index.search(q, &all(5)).unwrap().remove(0);
    let h = first(&mut index, "Sandbox");
    assert_eq!((h.id, h.field), (edit, Field::Input));
    assert!(h.snippet.contains("«Sandbox»"), "{}", h.snippet);
    // The CamelCase form of a snake_case path, and a partial one.
    assert_eq!(first(&mut index, "ActiveSessionRegistry").id, edit);
    assert_eq!(first(&mut index, "ActiveSessionReg").id, edit);
    let h = first(&mut index, "updates rejected");
    assert_eq!((h.id, h.field), (push, Field::Output));
    // A stemmed form finds the stderr's `failed`.
    assert_eq!(first(&mut index, "failing push").id, push);
    // Past the artifact's head and tail.
    let h = first(&mut index, "deepinsidemarker");
    assert_eq!((h.id, h.field), (long, Field::Output));
}

#[test]
fn ranking_prefers_decisions_exact_forms_and_newer_events() {
    let (_tmp, dir, ledger) = common::ledger();
    filler(&ledger, 30);
    let trace = ledger
        .append(event(Kind::Trace, "retry the uploader on timeout"))
        .unwrap()[0];
    let decision = ledger
        .append(event(Kind::Decision, "retry the uploader on timeout"))
        .unwrap()[0];
    let mut index = Index::open(&dir, &ledger).unwrap();
    assert_eq!(ids(&mut index, "retry uploader"), vec![decision, trace]);
    let stemmed = ledger
        .append(event(Kind::Note, "the uploader retries"))
        .unwrap()[0];
    let exact = ledger
        .append(event(Kind::Note, "the uploader retry"))
        .unwrap()[0];
    let found = ids(&mut index, "uploader retry");
    let pos = |id| found.iter().position(|&x| x == id).unwrap();
    assert!(pos(exact) < pos(stemmed), "{found:?}");
    // Equal events: the newer first.
    let older = ledger.append(event(Kind::Note, "zephyr gust")).unwrap()[0];
    let newer = ledger.append(event(Kind::Note, "zephyr gust")).unwrap()[0];
    assert_eq!(ids(&mut index, "zephyr"), vec![newer, older]);
}

/// A word from a random field of a random event.
fn field_and_word() -> impl Strategy<Value = (usize, String)> {
    (0usize..6, "[a-z]{6,10}")
}

/// The event that holds `word` in field `which`, and how to name it.
fn planted(which: usize, word: &str) -> NewEvent {
    let filler = "common words around";
    match which {
        0 => event(Kind::Note, &format!("{filler} {word} here")),
        1 => tool_event(filler, &format!("tool_{word}"), json!(null), json!(null)),
        2 => tool_event(
            filler,
            "Bash",
            json!({"command": format!("run --{word}=1")}),
            json!(null),
        ),
        3 => tool_event(
            filler,
            "Write",
            json!({"file_path": "a.txt", "content": format!("line one\n{word} two")}),
            json!(null),
        ),
        4 => tool_event(
            filler,
            "Bash",
            json!(null),
            json!({"stderr": format!("fatal: {word}")}),
        ),
        _ => tool_event(
            filler,
            "Read",
            json!(null),
            json!(format!(
                "{} {word} {}",
                "pad ".repeat(5000),
                "pad ".repeat(5000)
            )),
        ),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn prop_a_word_from_any_field_finds_its_event(picks in proptest::collection::vec(field_and_word(), 1..6)) {
        let (_tmp, dir, ledger) = common::ledger();
        filler(&ledger, 10);
        let mut planted_ids = Vec::new();
        for (which, word) in &picks {
            planted_ids.push(ledger.append(planted(*which, word)).unwrap()[0]);
        }
        let mut index = Index::open(&dir, &ledger).unwrap();
        for ((_, word), id) in picks.iter().zip(&planted_ids) {
            let found = ids(&mut index, word);
            prop_assert!(found.contains(id), "{word}: {found:?}");
        }
    }

    #[test]
    fn prop_caught_up_equals_rebuilt(batches in proptest::collection::vec(proptest::collection::vec(field_and_word(), 1..4), 1..4)) {
        let (_tmp, dir, ledger) = common::ledger();
        let mut index = Index::open(&dir, &ledger).unwrap();
        let mut words = vec!["common".to_owned(), "words around".to_owned(), "pad".to_owned()];
        for batch in &batches {
            for (which, word) in batch {
                ledger.append(planted(*which, word)).unwrap();
                words.push(word.clone());
            }
            // Caught up after each batch.
            index.catch_up().unwrap();
        }
        let query_all = |index: &mut Index<'_>| {
            words
                .iter()
                .map(|w| {
                    index
                        .search(w, &all(50))
                        .unwrap()
                        .into_iter()
                        .map(|h| (h.id, h.field, h.snippet, h.rank.to_bits(), h.exact))
                        .collect::<Vec<_>>()
                })
                .collect::<Vec<_>>()
        };
        let incremental = query_all(&mut index);
        let scratch = tempfile::tempdir().unwrap();
        let scratch_dir = camino::Utf8Path::from_path(scratch.path()).unwrap();
        let mut rebuilt = Index::scratch(scratch_dir, &ledger);
        prop_assert_eq!(incremental, query_all(&mut rebuilt));
    }
}

/// The fixture session `fixtures/search-eval/golden-session.jsonl`, indexed.
fn golden_session() -> (
    tempfile::TempDir,
    camino::Utf8PathBuf,
    remaind_ledger::Ledger,
) {
    let (tmp, dir, ledger) = common::ledger();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/search-eval/golden-session.jsonl"
    );
    let lines = std::fs::read(path).unwrap();
    ledger
        .append(remaind_ledger::AppendRequest::json_lines(&lines))
        .unwrap();
    (tmp, dir, ledger)
}

/// Golden ranked results on a fixture session: for queries of each kind (identifier, natural
/// question, paraphrase, path, error message, decision; a question about what the user said;
/// a superseded decision), the top three hits with kind, status, the part that matched, its
/// snippet and whether it held the whole query.
#[test]
fn golden_ranked_results_on_a_fixture_session() {
    let (_tmp, dir, ledger) = golden_session();
    let mut index = Index::open(&dir, &ledger).unwrap();
    let mut report = String::new();
    for q in [
        "RetryPolicy",
        "AttemptCounter",
        "why did the retry test fail",
        "what did the user ask about the sandbox",
        "xterm scrollback broken",
        "src/upload/attempts.rs",
        "no upstream branch",
        "attempt budget exhausted early",
        "what did we decide about the circuit breaker",
        "\"exponential backoff\"",
    ] {
        report.push_str(&format!("# {q}\n"));
        for h in index.search(q, &all(3)).unwrap() {
            report.push_str(&format!(
                "{} {} {} {}{}: {}\n",
                h.id,
                h.kind,
                match h.status {
                    Status::Current => "current".to_owned(),
                    Status::Superseded { by } => format!("superseded-by-{by}"),
                    Status::Resolved { by } => format!("resolved-by-{by}"),
                },
                h.field.as_str(),
                if h.exact { " exact" } else { "" },
                h.snippet.replace('\n', " ")
            ));
        }
    }
    insta::assert_snapshot!(report);
}

/// A question about what the user said puts the user's messages first, even when other
/// events hold more of its words.
#[test]
fn a_question_about_what_the_user_said_finds_user_messages_first() {
    let (_tmp, dir, ledger) = common::ledger();
    filler(&ledger, 20);
    for _ in 0..40 {
        ledger
            .append(event(Kind::ToolResult, "sandbox storage sandbox report"))
            .unwrap();
    }
    let asked = ledger
        .append(event(Kind::UserMessage, "is the sandbox safe?"))
        .unwrap()[0];
    let mut index = Index::open(&dir, &ledger).unwrap();
    let found = ids(
        &mut index,
        "what did the user ask about the sandbox storage",
    );
    assert_eq!(found.first(), Some(&asked), "{found:?}");
    // Without the question, the user's message is one hit among the others.
    let found = ids(&mut index, "sandbox storage");
    assert_ne!(found.first(), Some(&asked), "{found:?}");
}
