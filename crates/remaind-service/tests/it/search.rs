//! The one search `remaind search`, the MCP `search` tool and the viewer's Search page call.

use remaind_events::{Kind, Status};
use remaind_fs::ContextDir;
use remaind_index::{Field, Index, Syntax};
use remaind_service::{Found, SearchOptions, Source, search};

const TEXTS: [&str; 6] = [
    "we open the project",
    "the sandbox keeps the network closed",
    "we decide to keep the sandbox for every build",
    "the build passes now",
    "a note about lunch",
    "the sandbox decision is final",
];

/// A folder whose ledger holds [`TEXTS`] as notes, e1 to e6.
fn folder() -> (tempfile::TempDir, ContextDir) {
    let (tmp, ctx) = crate::common::folder("service-search");
    let ledger = remaind_ledger::Ledger::open(ctx.root()).expect("open");
    for text in TEXTS {
        let ev = remaind_testkit::event(Kind::Note, text);
        ledger
            .append(remaind_ledger::AppendRequest::from(ev))
            .expect("append");
    }
    (tmp, ctx)
}

fn seqs(found: &Found) -> Vec<u64> {
    found.hits.iter().map(|m| m.hit.seq).collect()
}

fn opts() -> SearchOptions {
    SearchOptions::default()
}

/// The folder's index answers with the index's own hits, each with its neighbours when asked.
#[test]
fn a_folder_is_searched_through_its_index_with_neighbours() {
    let (_tmp, ctx) = folder();
    let found = search(Source::Folder(&ctx), "sandbox", &opts()).expect("search");
    let mut got = seqs(&found);
    got.sort_unstable();
    assert_eq!(got, vec![2, 3, 6], "{found:?}");
    assert!(found.status_known);
    assert!(found.index_note.is_none());
    assert!(found.hits.iter().all(|m| m.around.is_empty()));
    let first = &found.hits[0].hit;
    assert_eq!(first.status, Status::Current);
    assert_eq!(first.field, Field::Text);
    assert!(first.snippet.contains("«sandbox»"), "{}", first.snippet);

    let around = SearchOptions {
        context: 1,
        ..opts()
    };
    let found = search(Source::Folder(&ctx), "lunch", &around).expect("search");
    assert_eq!(seqs(&found), vec![5]);
    let near: Vec<u64> = found.hits[0].around.iter().map(|e| e.seq).collect();
    assert_eq!(near, vec![4, 6], "the hit itself is left out");
    // At the start of the ledger there is nothing before.
    let found = search(Source::Folder(&ctx), "open project", &around).expect("search");
    assert_eq!(seqs(&found), vec![1]);
    let near: Vec<u64> = found.hits[0].around.iter().map(|e| e.seq).collect();
    assert_eq!(near, vec![2]);
}

/// An index the caller keeps open gives the same answer as the folder.
#[test]
fn an_open_index_gives_the_folders_answer() {
    let (_tmp, ctx) = folder();
    let ledger = remaind_ledger::Ledger::open(ctx.root()).expect("open");
    let mut index = Index::open(ctx.root(), &ledger).expect("index");
    let o = SearchOptions {
        context: 2,
        ..opts()
    };
    let kept = search(Source::Index(&mut index), "sandbox build", &o).expect("search");
    let fresh = search(Source::Folder(&ctx), "sandbox build", &o).expect("search");
    assert_eq!(kept, fresh);
}

/// Pages: the hits from `offset`, at most `limit`; a time range filters after ranking.
#[test]
fn offset_limit_and_a_time_range_page_the_ranked_hits() {
    let (_tmp, ctx) = folder();
    let all = search(Source::Folder(&ctx), "sandbox", &opts()).expect("search");
    let page = SearchOptions {
        offset: 1,
        filter: remaind_index::SearchOptions {
            limit: 1,
            ..Default::default()
        },
        ..opts()
    };
    let second = search(Source::Folder(&ctx), "sandbox", &page).expect("search");
    assert_eq!(seqs(&second), seqs(&all)[1..2].to_vec());

    let future = SearchOptions {
        since: Some("2999-01-01T00:00:00.000000Z".into()),
        ..opts()
    };
    let none = search(Source::Folder(&ctx), "sandbox", &future).expect("search");
    assert!(none.hits.is_empty(), "{none:?}");
    let past = SearchOptions {
        until: Some("2999-01-01T00:00:00.000000Z".into()),
        filter: remaind_index::SearchOptions {
            limit: 2,
            ..Default::default()
        },
        ..opts()
    };
    let some = search(Source::Folder(&ctx), "sandbox", &past).expect("search");
    assert_eq!(seqs(&some), seqs(&all)[..2].to_vec());
}

/// The notes a front-end shows: the phrase fallback, and a query cut to its bounds.
#[test]
fn the_phrase_fallback_and_the_query_bounds_are_said() {
    let (_tmp, ctx) = folder();
    let found = search(Source::Folder(&ctx), "\"sandbox lunch\"", &opts()).expect("search");
    assert_eq!(found.phrases_as_words, vec!["sandbox lunch".to_owned()]);
    let note = found.fallback_note().expect("a fallback note");
    assert!(note.contains("\"sandbox lunch\""), "{note}");
    assert!(!found.hits.is_empty());
    assert!(found.cut_note().is_none());

    let long: Vec<String> = (0..40).map(|i| format!("word{i}")).collect();
    let found = search(Source::Folder(&ctx), &long.join(" "), &opts()).expect("search");
    assert!(found.bounds.cut());
    let note = found.cut_note().expect("a cut note");
    assert!(note.contains("8 terms"), "{note}");
    let doc = found.to_json("q");
    assert_eq!(doc["query_bounds"]["terms_dropped"], 8, "{doc}");
}

/// The `--json` document: the same shape with or without hits, the keys in their order.
#[test]
fn the_json_document_keeps_its_shape() {
    let (_tmp, ctx) = folder();
    let o = SearchOptions {
        context: 1,
        ..opts()
    };
    let none = search(Source::Folder(&ctx), "zebraquagga", &o).expect("search");
    assert_eq!(
        none.to_json("zebraquagga"),
        serde_json::json!({"query": "zebraquagga", "total": 0, "hits": []})
    );
    let found = search(Source::Folder(&ctx), "lunch", &o).expect("search");
    let doc = found.to_json("lunch");
    let hit = &doc["hits"][0];
    let keys: Vec<&str> = hit
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "id",
            "seq",
            "kind",
            "ts",
            "importance",
            "status",
            "status_by",
            "field",
            "snippet",
            "rank",
            "score",
            "exact_phrase",
            "context"
        ]
    );
    assert_eq!(hit["status"], "current");
    assert_eq!(hit["context"][0]["offset"], -1);
    assert_eq!(hit["context"][1]["offset"], 1);
    assert_eq!(hit["context"][1]["text"], TEXTS[5]);
}

/// A raw FTS5 query that does not parse is the caller's fault.
#[test]
fn a_bad_raw_query_is_invalid_input() {
    let (_tmp, ctx) = folder();
    let raw = SearchOptions {
        filter: remaind_index::SearchOptions {
            syntax: Syntax::Fts5,
            ..Default::default()
        },
        ..opts()
    };
    let err = search(Source::Folder(&ctx), "AND (", &raw).expect_err("a syntax error");
    assert!(err.is_invalid_input(), "{err}");
}

/// The shared store's search on the server: the same hit type, status unknown, neighbours
/// read from the store; no folder is needed.
#[test]
fn a_store_is_searched_on_the_server() {
    let (_tmp, ctx) = folder();
    let url = remaind_testkit::postgres_url();
    let project = remaind_testkit::unique_project("service-search");
    remaind_service::push(&ctx, &url, &project).expect("push");
    let setting = remaind_ledger::StoreSetting { url, project };
    let o = SearchOptions {
        context: 1,
        ..opts()
    };
    let found = search(Source::Store(&setting), "lunch", &o).expect("search");
    assert!(!found.status_known);
    assert_eq!(seqs(&found), vec![5]);
    let hit = &found.hits[0];
    assert_eq!(hit.hit.kind, Kind::Note);
    assert_eq!(hit.hit.field, Field::Text);
    assert!(hit.hit.snippet.contains("«lunch»"), "{}", hit.hit.snippet);
    let near: Vec<u64> = hit.around.iter().map(|e| e.seq).collect();
    assert_eq!(near, vec![4, 6]);
    assert_eq!(found.to_json("lunch")["hits"][0]["status"], "unknown");

    let mut got = seqs(&search(Source::Store(&setting), "sandbox", &opts()).expect("search"));
    got.sort_unstable();
    assert_eq!(got, vec![2, 3, 6]);
    let decisions = SearchOptions {
        filter: remaind_index::SearchOptions {
            kinds: vec![Kind::Decision],
            ..Default::default()
        },
        ..opts()
    };
    let none = search(Source::Store(&setting), "sandbox", &decisions).expect("search");
    assert!(none.hits.is_empty());
    // What only the folder's index can do is refused as the caller's fault.
    for refused in [
        SearchOptions {
            filter: remaind_index::SearchOptions {
                current_only: true,
                ..Default::default()
            },
            ..opts()
        },
        SearchOptions {
            filter: remaind_index::SearchOptions {
                syntax: Syntax::Fts5,
                ..Default::default()
            },
            ..opts()
        },
    ] {
        let err = search(Source::Store(&setting), "sandbox", &refused).expect_err("refused");
        assert!(err.is_invalid_input(), "{err}");
    }
}
