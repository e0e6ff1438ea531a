//! Nothing secret reaches the index: it is built from redacted ledger lines only.

use remaind_events::{Kind, NewEvent, Tool};
use remaind_index::{Index, SearchOptions};

use crate::common::{self, filler};

#[test]
fn a_planted_secret_never_reaches_the_index_files() {
    let (_tmp, dir, ledger) = common::ledger();
    let random = "Qx7vLm2RtY9pWz4NbK8sHd3FgJ6cVa1E";
    let key = format!("sk-proj-{random}");
    filler(&ledger, 20);
    ledger
        .append(NewEvent {
            kind: Some(Kind::ToolCall),
            text: Some(format!("deploying with OPENAI_API_KEY={key} now")),
            tool: Some(Tool {
                name: "deploy".into(),
                input: serde_json::json!({ "env": { "OPENAI_API_KEY": key } }),
                output: serde_json::Value::String(format!("{}{key}", "y ".repeat(10_000))),
            }),
            ..NewEvent::default()
        })
        .unwrap();
    let mut index = Index::open(&dir, &ledger).unwrap();
    let hits = index
        .search("deploying", &SearchOptions::default())
        .unwrap();
    assert_eq!(hits.len(), 1);
    assert!(!hits[0].snippet.contains(random));
    // Incremental path too.
    ledger
        .append(NewEvent {
            kind: Some(Kind::Note),
            text: Some(format!("again {key}")),
            ..NewEvent::default()
        })
        .unwrap();
    index.catch_up().unwrap();
    drop(index);
    let mut seen = 0;
    for entry in dir.join("db").read_dir_utf8().unwrap() {
        let entry = entry.unwrap();
        let bytes = std::fs::read(entry.path()).unwrap();
        seen += bytes.len();
        for w in random.as_bytes().windows(8) {
            assert!(
                !bytes.windows(8).any(|b| b == w),
                "{} holds {:?}",
                entry.path(),
                String::from_utf8_lossy(w)
            );
        }
    }
    assert!(seen > 0);
}
