//! `remaind search` and `remaind reindex` through the real binary.

use std::process::{Command, Output};

use camino::Utf8PathBuf;
use remaind_events::{Kind, NewEvent};
use remaind_ledger::Ledger;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_remaind");

/// An initialized `.context/` with a few events.
fn project() -> (tempfile::TempDir, Utf8PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = Utf8PathBuf::from_path_buf(tmp.path().join(".context")).expect("utf-8 path");
    let out = remaind(&dir, &["init"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ledger = Ledger::open(&dir).expect("open ledger");
    let ev = |kind, text: &str| NewEvent {
        kind: Some(kind),
        text: Some(text.into()),
        ..NewEvent::default()
    };
    let ids = ledger
        .append(vec![
            ev(Kind::Note, "the lighthouse keeper logs the weather"),
            ev(Kind::Decision, "keep the lighthouse lamp on all night"),
            ev(Kind::Note, "night lamp lighthouse keep scattered words"),
        ])
        .expect("append");
    ledger
        .append(NewEvent {
            supersedes: vec![ids[1]],
            ..ev(Kind::Correction, "lighthouse lamp off after dawn")
        })
        .expect("append correction");
    (tmp, dir)
}

fn remaind(dir: &camino::Utf8Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .env_remove("REMAIND_DIR")
        .env("NO_COLOR", "1")
        .arg("--dir")
        .arg(dir.as_str())
        .args(crate::common::store_args(args))
        .output()
        .expect("run remaind")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn json_lines(out: &Output) -> Vec<Value> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// The hits of `search --json` (one document).
fn hits_of(out: &Output) -> Vec<Value> {
    let doc: Value = serde_json::from_str(&stdout(out)).expect("one JSON document");
    doc["hits"].as_array().expect("hits").clone()
}

#[test]
fn search_ranks_filters_and_prints_json() {
    let (_tmp, dir) = project();
    let out = remaind(
        &dir,
        &["search", "lighthouse", "lamp", "on", "all", "night"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    assert!(text.starts_with("e2 "), "{text}");
    assert!(
        text.contains("«lighthouse»") && text.contains("superseded by e4"),
        "{text}"
    );

    let out = remaind(&dir, &["search", "lighthouse lamp", "--json"]);
    let hits = hits_of(&out);
    assert_eq!(hits.len(), 4, "{hits:?}");
    // Two events hold the phrase; then the one with both words scattered; last the one
    // holding only one of them (any word may match).
    assert_eq!(hits[2]["id"], "e3");
    assert_eq!(hits[2]["exact_phrase"], false);
    assert_eq!(hits[3]["id"], "e1");
    let e2 = hits.iter().find(|h| h["id"] == "e2").expect("e2 is a hit");
    assert_eq!(e2["status"], "superseded");
    assert_eq!(e2["status_by"], "e4");
    assert_eq!(e2["exact_phrase"], true);
    for key in [
        "seq",
        "kind",
        "ts",
        "importance",
        "field",
        "snippet",
        "rank",
        "score",
    ] {
        assert!(hits[0].get(key).is_some(), "{key}");
    }

    let out = remaind(
        &dir,
        &[
            "search",
            "lighthouse",
            "--current",
            "--kind",
            "note,correction",
            "--json",
        ],
    );
    let ids: Vec<_> = hits_of(&out)
        .iter()
        .map(|h| h["id"].as_str().unwrap().to_owned())
        .collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(sorted, vec!["e1", "e3", "e4"]);
    let out = remaind(
        &dir,
        &[
            "search",
            "lighthouse",
            "--min-importance",
            "2",
            "--limit",
            "1",
            "--json",
        ],
    );
    assert_eq!(hits_of(&out).len(), 1);
    let out = remaind(&dir, &["search", "submarine"]);
    assert!(out.status.success() && out.stdout.is_empty());
}

#[test]
fn bad_input_exits_2_without_sqlite_messages() {
    let (_tmp, dir) = project();
    for args in [
        vec!["search", "lighthouse", "--kind", "nonsense"],
        vec!["search", "--fts", "lighthouse AND"],
        vec!["search", "--fts", "(lamp"],
        vec!["search", "** () :"],
        vec!["search", "lighthouse", "--min-importance", "9"],
        vec!["search"],
    ] {
        let out = remaind(&dir, &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            !err.contains("fts5") && !err.contains("SQLITE"),
            "{args:?}: {err}"
        );
    }
    // Plain input with FTS operators is searched literally.
    let out = remaind(&dir, &["search", "lighthouse AND (lamp"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = remaind(&dir, &["search", "--fts", "lighthouse NOT night", "--json"]);
    assert_eq!(hits_of(&out).len(), 2);
}

#[test]
fn reindex_is_quiet_when_piped_and_search_survives_a_corrupt_index() {
    let (_tmp, dir) = project();
    let out = remaind(&dir, &["reindex"]);
    assert!(out.status.success());
    assert!(
        stdout(&out).starts_with("reindexed 4 events"),
        "{}",
        stdout(&out)
    );
    assert!(
        out.stderr.is_empty(),
        "no progress bar when stderr is not a terminal"
    );
    let out = remaind(&dir, &["reindex", "--quiet"]);
    assert!(out.status.success() && out.stdout.is_empty() && out.stderr.is_empty());
    let out = remaind(&dir, &["reindex", "--json"]);
    assert_eq!(json_lines(&out)[0]["events"], 4);

    std::fs::write(
        dir.join("db/context.sqlite"),
        b"this is not a database at all",
    )
    .unwrap();
    let out = remaind(&dir, &["search", "dawn", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(hits_of(&out)[0]["id"], "e4");
}

#[test]
fn help_shows_examples() {
    for cmd in ["search", "reindex"] {
        let out = Command::new(BIN).args([cmd, "--help"]).output().unwrap();
        let text = stdout(&out);
        assert!(out.status.success() && text.contains("Examples:"), "{text}");
    }
}

/// `remaind events` with filters reads the index when it is present; the output must be the
/// ledger's, byte for byte, with the index deleted, present and fresh, present but behind the
/// ledger, and unreadable.
#[test]
fn filtered_events_are_the_same_with_and_without_the_index() {
    let (_tmp, dir) = project();
    let ledger = Ledger::open(&dir).expect("open ledger");
    let kinds = [
        Kind::Note,
        Kind::Decision,
        Kind::Trace,
        Kind::Blocker,
        Kind::Result,
    ];
    let batch: Vec<NewEvent> = (0..300)
        .map(|i| {
            let kind = kinds[(i * 7 + i / 5) % kinds.len()];
            NewEvent {
                kind: Some(kind),
                text: Some(format!("event {i} of kind {}", kind.as_str())),
                importance: (kind == Kind::Note && i % 3 == 0).then_some(3),
                ..NewEvent::default()
            }
        })
        .collect();
    ledger.append(batch).expect("append");
    let queries: Vec<Vec<&str>> = vec![
        vec!["events", "--kind", "blocker", "--json"],
        vec![
            "events",
            "--kind",
            "decision,result",
            "--limit",
            "7",
            "--json",
        ],
        vec!["events", "--kind", "constraint", "--json"],
        vec![
            "events",
            "--min-importance",
            "2",
            "--from",
            "40",
            "--limit",
            "15",
            "--json",
        ],
        vec![
            "events",
            "--min-importance",
            "3",
            "--before",
            "200",
            "--limit",
            "9",
            "--json",
        ],
        vec![
            "events",
            "--kind",
            "note",
            "--min-importance",
            "3",
            "--from",
            "1",
            "--json",
        ],
        vec!["events", "--kind", "trace", "--before", "2", "--json"],
        vec!["events", "--kind", "note", "--limit", "0", "--json"],
        vec!["events", "--kind", "decision", "--from", "100000", "--json"],
    ];
    let run_all = || -> Vec<String> {
        queries
            .iter()
            .map(|q| {
                let out = remaind(&dir, q);
                assert!(
                    out.status.success(),
                    "{q:?}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                stdout(&out)
            })
            .collect()
    };
    let db = dir.join("db/context.sqlite");
    let _ = std::fs::remove_file(&db);
    let without = run_all();
    assert!(!db.exists(), "a filtered `events` must not build the index");
    assert!(without[0].lines().count() > 0 && without[2].is_empty());
    // Present and fresh.
    assert!(remaind(&dir, &["reindex", "--quiet"]).status.success());
    assert_eq!(run_all(), without);
    // Behind the ledger: caught up incrementally, then the same answers as the ledger.
    ledger
        .append(NewEvent {
            kind: Some(Kind::Blocker),
            text: Some("appended behind the index's back".into()),
            ..NewEvent::default()
        })
        .expect("append");
    let without = {
        let saved = dir.join("db/saved.sqlite");
        std::fs::rename(&db, &saved).expect("move index away");
        let v = run_all();
        std::fs::rename(&saved, &db).expect("move index back");
        v
    };
    assert!(without[0].contains("appended behind"));
    assert_eq!(run_all(), without);
    // Unusable (garbage bytes): falls back to the ledger silently.
    std::fs::write(&db, b"not a database at all").expect("overwrite");
    assert_eq!(run_all(), without);
}

#[test]
fn status_reports_index_freshness_without_building_it() {
    let (_tmp, dir) = project();
    let index_line = |dir: &Utf8PathBuf| {
        let out = remaind(dir, &["status"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout(&out)
            .lines()
            .find(|l| l.starts_with("index:"))
            .expect("an index line")
            .to_owned()
    };
    assert!(index_line(&dir).contains("not built yet"));
    assert!(
        !dir.join("db/context.sqlite").exists(),
        "status writes nothing"
    );

    assert!(remaind(&dir, &["search", "lighthouse"]).status.success());
    assert!(index_line(&dir).contains("fresh (through e4)"));

    assert!(
        remaind(&dir, &["log", "--kind", "note", "--text", "new"])
            .status
            .success()
    );
    assert!(index_line(&dir).contains("stale (through e4 of e5"));

    let out = remaind(&dir, &["status", "--json"]);
    let v: Value = serde_json::from_str(stdout(&out).trim()).expect("json");
    assert_eq!(v["index"]["stale"], true);
    assert_eq!(v["index"]["indexed_seq"], 4);
}

/// `search --json` prints one document of the same shape whether or not anything matched.
#[test]
fn search_json_is_one_document_even_with_no_hit() {
    let (_tmp, dir) = project();
    let out = remaind(&dir, &["search", "zebra-that-is-nowhere", "--json"]);
    assert!(out.status.success());
    let doc: Value = serde_json::from_str(&stdout(&out)).expect("one JSON document");
    assert_eq!(doc["total"], 0);
    assert_eq!(doc["hits"], serde_json::json!([]));
    assert_eq!(doc["query"], "zebra-that-is-nowhere");
}

/// Golden ranked results on a real session (`fixtures/transcripts/claude-code-5c0375b4.jsonl`
/// and the synthetic one with a CI log and an answered question): for questions of each kind,
/// the top hits with their kind, the part that matched and its snippet.
#[test]
fn golden_ranked_results_on_imported_sessions() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = Utf8PathBuf::from_path_buf(tmp.path().join(".context")).expect("utf-8 path");
    assert!(remaind(&dir, &["init"]).status.success());
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/transcripts/");
    for file in [
        "claude-code-5c0375b4.jsonl",
        "synthetic-ask-user-question.jsonl",
    ] {
        let out = remaind(
            &dir,
            &["import", "claude-code", &format!("{fixtures}{file}")],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let mut report = String::new();
    for q in [
        "did we skip the pre-commit hook or fix the issues",
        "was main clean",
        "MultiEdit",
        "failing tests",
        "compact instructions",
        "assertion left right",
    ] {
        let out = remaind(&dir, &["search", q, "--limit", "3", "--json"]);
        assert!(out.status.success(), "{q}");
        report.push_str(&format!("# {q}\n"));
        for h in hits_of(&out) {
            report.push_str(&format!(
                "{} {} {} {}: {}\n",
                h["id"].as_str().unwrap_or("?"),
                h["kind"].as_str().unwrap_or("?"),
                h["status"].as_str().unwrap_or("?"),
                h["field"].as_str().unwrap_or("?"),
                h["snippet"].as_str().unwrap_or("?").replace('\n', " ")
            ));
        }
    }
    insta::assert_snapshot!(report);
}
