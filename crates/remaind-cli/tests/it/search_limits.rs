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
