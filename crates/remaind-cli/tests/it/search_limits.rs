//! `search --json` says when a query was bounded: a repeated word is searched once, and at
//! most 32 distinct terms within 1,000 characters are searched.

use serde_json::Value;

use crate::common::{log, ok, remaind, tmp};

#[test]
fn search_json_says_the_query_was_cut() {
    let t = tmp();
    let ctx = t.0.join(".context");
    ok(&remaind(&ctx, &["init"], None));
    log(&ctx, "decision", "Feed the otter at noon");
    let search = |query: &str, extra: &[&str]| -> Value {
        let mut args = vec!["search", "--json"];
        args.extend_from_slice(extra);
        args.push(query);
        serde_json::from_str(&ok(&remaind(&ctx, &args, None))).expect("json")
    };
    let doc = search(&vec!["otter"; 300].join(" "), &[]);
    assert_eq!(doc["total"], 1, "{doc}");
    assert_eq!(doc["query_bounds"]["cut"], false, "{doc}");
    assert_eq!(doc["query_bounds"]["repeated_terms_dropped"], 299, "{doc}");
    let mut words: Vec<String> = (0..200).map(|i| format!("w{i}")).collect();
    words[0] = "otter".to_owned();
    let doc = search(&words.join(" "), &[]);
    assert_eq!(doc["total"], 1, "{doc}");
    assert_eq!(doc["query_bounds"]["cut"], true, "{doc}");
    assert_eq!(doc["query_bounds"]["terms"], 32, "{doc}");
    assert_eq!(doc["query_bounds"]["terms_dropped"], 168, "{doc}");
    // `--fts` OR lists too.
    let doc = search(&words.join(" OR "), &["--fts"]);
    assert_eq!(doc["total"], 1, "{doc}");
    assert_eq!(doc["query_bounds"]["terms"], 32, "{doc}");
    // A plain query within the limits says nothing.
    let doc = search("otter noon", &[]);
    assert!(doc.get("query_bounds").is_none(), "{doc}");
}

#[test]
fn search_says_when_quoted_words_were_searched_ranked_instead() {
    let t = tmp();
    let ctx = t.0.join(".context");
    ok(&remaind(&ctx, &["init"], None));
    log(&ctx, "note", "I'm reading Charlottes Web to my niece");
    let q = r#"what did she read to her niece, "Charlotte's Web"?"#;
    let doc: Value =
        serde_json::from_str(&ok(&remaind(&ctx, &["search", "--json", q], None))).expect("json");
    assert_eq!(doc["total"], 1, "{doc}");
    assert_eq!(doc["fallback"]["name"], "phrases_as_words", "{doc}");
    assert_eq!(doc["fallback"]["phrases"][0], "Charlotte's Web", "{doc}");
    // The human output says so on stderr.
    let out = remaind(&ctx, &["search", q], None);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("searched its words as ranked words instead"),
        "{stderr}"
    );
    // A phrase that is there: no fallback.
    let doc: Value = serde_json::from_str(&ok(&remaind(
        &ctx,
        &["search", "--json", r#""Charlottes Web""#],
        None,
    )))
    .expect("json");
    assert!(doc.get("fallback").is_none(), "{doc}");
}

#[test]
fn search_context_brings_each_hits_neighbours() {
    let t = tmp();
    let ctx = t.0.join(".context");
    ok(&remaind(&ctx, &["init"], None));
    log(&ctx, "note", "We wrote a pact at camp");
    log(
        &ctx,
        "user_message",
        "Should we sign the friendship pact again?",
    );
    log(
        &ctx,
        "assistant_message",
        "Yes, after dinner, with Priya taking the photo.",
    );
    log(&ctx, "note", "The soup ran out by seven");
    let search = |extra: &[&str]| -> Value {
        let mut args = vec!["search", "--json", "--limit", "1"];
        args.extend_from_slice(extra);
        args.push("friendship");
        serde_json::from_str(&ok(&remaind(&ctx, &args, None))).expect("json")
    };
    let doc = search(&["--context", "1"]);
    let hit = &doc["hits"][0];
    assert_eq!(hit["id"], "e2", "{doc}");
    let around: Vec<(&str, i64)> = hit["context"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|c| (c["id"].as_str().unwrap(), c["offset"].as_i64().unwrap()))
        .collect();
    assert_eq!(around, [("e1", -1), ("e3", 1)], "{doc}");
    assert_eq!(
        hit["context"][1]["text"],
        "Yes, after dinner, with Priya taking the photo."
    );
    // Without --context the list is empty.
    assert_eq!(search(&[])["hits"][0]["context"], serde_json::json!([]));
    // The human output shows them indented under the hit.
    let out = ok(&remaind(
        &ctx,
        &["search", "friendship", "--context", "2"],
        None,
    ));
    assert!(
        out.contains("\n           +1 e3 assistant_message: Yes, after dinner"),
        "{out}"
    );
    assert!(
        out.contains("\n           -1 e1 note: We wrote a pact at camp"),
        "{out}"
    );
    // Out of range: a clear error, exit 2.
    let out = remaind(&ctx, &["search", "friendship", "--context", "21"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--context"));
}
