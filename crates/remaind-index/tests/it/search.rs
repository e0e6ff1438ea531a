//! Search finds planted phrases, ranks an exact phrase first, applies filters, and never
//! leaks an SQLite syntax error for plain input.

use proptest::prelude::*;
use remaind_events::{Kind, NewEvent, Tool};
use remaind_index::{Error, Index, SearchOptions, Syntax};

use crate::common::{self, event, filler, log};

fn opts() -> SearchOptions {
    SearchOptions::default()
}

#[test]
fn finds_a_planted_phrase_with_a_highlighted_snippet() {
    let (_tmp, dir, ledger) = common::ledger();
    filler(&ledger, 300);
    let id = log(
        &ledger,
        Kind::Decision,
        "We chose a write-ahead journal for the ledger appends",
    );
    filler(&ledger, 300);
    let mut index = Index::open(&dir, &ledger).unwrap();
    let hits = index.search("write-ahead journal", &opts()).unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    let hit = &hits[0];
    assert_eq!(hit.id, id);
    assert_eq!(hit.seq, id.seq());
    assert_eq!(hit.kind, Kind::Decision);
    assert_eq!(hit.importance, 2);
    assert!(hit.exact);
    assert!(
        hit.snippet.contains("«write»-«ahead» «journal»"),
        "{}",
        hit.snippet
    );
    assert_eq!(hit.ts, ledger.get(id.seq()).unwrap().unwrap().ts);
}

#[test]
fn an_exact_phrase_ranks_above_scattered_words() {
    let (_tmp, dir, ledger) = common::ledger();
    filler(&ledger, 50);
    // Short and repetitive, so BM25 alone would prefer it.
    let scattered = log(&ledger, Kind::Note, "fox brown quick fox brown quick");
    let exact = log(
        &ledger,
        Kind::Note,
        "In the long story that follows, the quick brown fox finally jumps over the lazy dog again",
    );
    let mut index = Index::open(&dir, &ledger).unwrap();
    let hits = index.search("quick brown fox", &opts()).unwrap();
    let ids: Vec<_> = hits.iter().map(|h| h.id).collect();
    assert_eq!(ids, vec![exact, scattered]);
    assert!(hits[0].exact && !hits[1].exact);
    // BM25 on its own (a raw FTS5 query has no phrase tier) ranks the scattered one better;
    // the phrase tier wins anyway.
    let bm25_only = SearchOptions {
        syntax: Syntax::Fts5,
        ..opts()
    };
    let hits = index.search("quick brown fox", &bm25_only).unwrap();
    assert_eq!(
        hits.iter().map(|h| h.id).collect::<Vec<_>>(),
        vec![scattered, exact]
    );
    assert!(hits[0].rank < hits[1].rank && !hits[0].exact, "{hits:?}");
    // A quoted phrase matches only the phrase.
    let hits = index.search("\"quick brown fox\"", &opts()).unwrap();
    assert_eq!(hits.iter().map(|h| h.id).collect::<Vec<_>>(), vec![exact]);
}

#[test]
fn searches_tool_names_and_artifact_excerpts() {
    let (_tmp, dir, ledger) = common::ledger();
    filler(&ledger, 20);
    let call = ledger
        .append(NewEvent {
            kind: Some(Kind::ToolCall),
            text: Some("running the suite".into()),
            tool: Some(Tool {
                name: "cargo_nextest".into(),
                input: serde_json::json!({"args": ["run"]}),
                output: serde_json::Value::Null,
            }),
            ..NewEvent::default()
        })
        .unwrap()[0];
    let big = format!("zebraheadline {} tailmarkerword", "x ".repeat(20_000));
    let result = ledger
        .append(NewEvent {
            kind: Some(Kind::ToolResult),
            text: Some("suite output".into()),
            tool: Some(Tool {
                name: "shell".into(),
                input: serde_json::Value::Null,
                output: serde_json::Value::String(big),
            }),
            ..NewEvent::default()
        })
        .unwrap()[0];
    assert!(
        !ledger
            .get(result.seq())
            .unwrap()
            .unwrap()
            .artifact
            .is_empty(),
        "the output was routed out"
    );
    let mut index = Index::open(&dir, &ledger).unwrap();
    let ids = |hits: Vec<remaind_index::Hit>| hits.into_iter().map(|h| h.id).collect::<Vec<_>>();
    assert_eq!(
        ids(index.search("cargo_nextest", &opts()).unwrap()),
        vec![call]
    );
    assert_eq!(
        ids(index.search("zebraheadline", &opts()).unwrap()),
        vec![result]
    );
    assert_eq!(
        ids(index.search("tailmarkerword", &opts()).unwrap()),
        vec![result]
    );
    assert_eq!(
        ids(index.search("zebrahead*", &opts()).unwrap()),
        vec![result]
    );
}

#[test]
fn filters_kind_importance_and_limit() {
    let (_tmp, dir, ledger) = common::ledger();
    let n = log(&ledger, Kind::Note, "pelican report one");
    let d = log(&ledger, Kind::Decision, "pelican report two");
    let c = ledger
        .append(NewEvent {
            importance: Some(3),
            ..event(Kind::Constraint, "pelican report three")
        })
        .unwrap()[0];
    let t = log(&ledger, Kind::Trace, "pelican report four");
    let mut index = Index::open(&dir, &ledger).unwrap();
    let ids = |o: &SearchOptions, index: &mut Index<'_>| {
        let mut v: Vec<_> = index
            .search("pelican", o)
            .unwrap()
            .into_iter()
            .map(|h| h.id)
            .collect();
        v.sort();
        v
    };
    assert_eq!(ids(&opts(), &mut index), vec![n, d, c, t]);
    assert_eq!(
        ids(
            &SearchOptions {
                kinds: vec![Kind::Decision, Kind::Trace],
                ..opts()
            },
            &mut index
        ),
        vec![d, t]
    );
    assert_eq!(
        ids(
            &SearchOptions {
                min_importance: Some(2),
                ..opts()
            },
            &mut index
        ),
        vec![d, c]
    );
    assert_eq!(
        ids(
            &SearchOptions {
                min_importance: Some(3),
                ..opts()
            },
            &mut index
        ),
        vec![c]
    );
    assert_eq!(
        index
            .search("pelican", &SearchOptions { limit: 2, ..opts() })
            .unwrap()
            .len(),
        2
    );
    assert!(
        index
            .search("pelican", &SearchOptions { limit: 0, ..opts() })
            .unwrap()
            .is_empty()
    );
    assert!(index.search("walrus", &opts()).unwrap().is_empty());
}

#[test]
fn raw_fts_syntax_errors_are_invalid_queries() {
    let (_tmp, dir, ledger) = common::ledger();
    log(&ledger, Kind::Note, "heron and egret");
    let mut index = Index::open(&dir, &ledger).unwrap();
    let fts = SearchOptions {
        syntax: Syntax::Fts5,
        ..opts()
    };
    assert_eq!(index.search("heron AND egret", &fts).unwrap().len(), 1);
    assert_eq!(index.search("heron NOT egret", &fts).unwrap().len(), 0);
    for bad in [
        "heron AND",
        "(heron",
        "\"heron",
        "nosuchcolumn:heron",
        "NEAR(",
        "   ",
    ] {
        for limit in [0, 10] {
            let err = index
                .search(
                    bad,
                    &SearchOptions {
                        limit,
                        ..fts.clone()
                    },
                )
                .unwrap_err();
            assert!(err.is_invalid_input(), "{bad}: {err}");
            assert!(matches!(err, Error::InvalidQuery { .. }), "{bad}: {err:?}");
            assert!(!err.to_string().contains("fts5:"), "{err}");
        }
    }
    // The same text as a plain query is searched literally.
    for (text, expected) in [
        ("heron AND", 1),
        ("(heron", 1),
        ("\"heron", 1),
        ("nosuchcolumn:heron", 0),
        // Words are alternatives: `heron` alone finds the event.
        ("NEAR( heron", 1),
    ] {
        assert_eq!(
            index.search(text, &opts()).unwrap().len(),
            expected,
            "{text}"
        );
    }
    let err = index.search("  -- ** ", &opts()).unwrap_err();
    assert!(err.is_invalid_input(), "{err}");
}

/// Any plain query either runs or, when it holds nothing searchable, is an invalid query;
/// it never reaches SQLite as broken syntax.
#[test]
fn prop_plain_queries_never_fail() {
    let (_tmp, dir, ledger) = common::ledger();
    log(
        &ledger,
        Kind::Note,
        "kestrel \"quoted\" (paren) col:on x*y AND OR NOT",
    );
    let index = std::cell::RefCell::new(Index::open(&dir, &ledger).unwrap());
    let mut runner = proptest::test_runner::TestRunner::default();
    runner
        .run(&"(\\PC|[\"*():^+-]|AND|OR|NOT|NEAR){0,40}", |query| {
            match index.borrow_mut().search(&query, &SearchOptions::default()) {
                Ok(_) => {}
                Err(e) => {
                    prop_assert!(matches!(e, Error::InvalidQuery { .. }), "{query:?}: {e:?}");
                    prop_assert!(!query.chars().any(char::is_alphanumeric), "{query:?}: {e}");
                }
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn a_quoted_title_spelled_differently_falls_back_to_ranked_words() {
    let (_tmp, dir, ledger) = common::ledger();
    filler(&ledger, 30);
    let said = log(
        &ledger,
        Kind::UserMessage,
        "I'm reading Charlottes Web to my niece before bed",
    );
    let mut index = Index::open(&dir, &ledger).unwrap();
    let q = r#"What did Mara read to her niece, "Charlotte's Web"?"#;
    let searched = index.search_bounded(q, &opts()).unwrap();
    assert_eq!(searched.phrases_as_words, ["Charlotte's Web"]);
    assert_eq!(searched.hits.first().map(|h| h.id), Some(said));
    // A phrase that is there is searched as typed: no fallback.
    let searched = index
        .search_bounded(r#""Charlottes Web""#, &opts())
        .unwrap();
    assert!(searched.phrases_as_words.is_empty());
    assert_eq!(searched.hits.len(), 1);
    // Words no event holds find nothing either way, and say the fallback was tried.
    let searched = index.search_bounded(r#""zyxxy quorble""#, &opts()).unwrap();
    assert!(searched.hits.is_empty());
    assert_eq!(searched.phrases_as_words, ["zyxxy quorble"]);
}

#[test]
fn an_inflected_form_counts_as_the_word_in_the_ranking() {
    let (_tmp, dir, ledger) = common::ledger();
    filler(&ledger, 30);
    // Holds the query's words as typed, but scattered over a long note.
    log(
        &ledger,
        Kind::Note,
        &format!(
            "loan {} application {} rejected",
            "word ".repeat(40),
            "word ".repeat(40)
        ),
    );
    let answer = log(
        &ledger,
        Kind::UserMessage,
        "The bank sent a rejection letter for the student loan application",
    );
    let mut index = Index::open(&dir, &ledger).unwrap();
    let hits = index
        .search("why was the loan application rejected", &opts())
        .unwrap();
    assert_eq!(hits.first().map(|h| h.id), Some(answer), "{hits:#?}");
}

#[test]
fn a_date_note_weighs_less_than_what_people_said() {
    let (_tmp, dir, ledger) = common::ledger();
    filler(&ledger, 30);
    let said = log(
        &ledger,
        Kind::AssistantMessage,
        "I adopted two rescue puppies from the shelter in January, Biscuit and Pepper",
    );
    for i in 1..6 {
        log(
            &ledger,
            Kind::Note,
            &format!("Session {i} date: 9:1{i} am on {i} January 2023, 1{i} turns"),
        );
    }
    let mut index = Index::open(&dir, &ledger).unwrap();
    let hits = index
        .search("how many puppies did Jon adopt in January 2023", &opts())
        .unwrap();
    assert_eq!(hits.first().map(|h| h.id), Some(said), "{hits:#?}");
}

#[test]
fn the_reply_to_a_turn_asking_the_question_ranks_first() {
    let (_tmp, dir, ledger) = common::ledger();
    filler(&ledger, 30);
    log(
        &ledger,
        Kind::UserMessage,
        "Should we sign the friendship pact we wrote at camp?",
    );
    let reply = log(
        &ledger,
        Kind::AssistantMessage,
        "Yes, after dinner, with Priya taking the photo.",
    );
    filler(&ledger, 10);
    let mut index = Index::open(&dir, &ledger).unwrap();
    let hits = index
        .search("did they sign the friendship pact?", &opts())
        .unwrap();
    assert_eq!(hits.first().map(|h| h.id), Some(reply), "{hits:#?}");
    // Not a question: the turn that holds the words ranks first.
    let hits = index.search("friendship pact", &opts()).unwrap();
    assert_ne!(hits.first().map(|h| h.id), Some(reply));
}
