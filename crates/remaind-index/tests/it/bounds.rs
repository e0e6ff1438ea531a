//! What a search costs is bounded whatever the query: a repeated word is searched once, and
//! at most `MAX_QUERY_TERMS` distinct terms of the first `MAX_QUERY_CHARS` characters are
//! searched, the result saying what was cut. (Work is counted in terms, not timed.)

use remaind_events::{Kind, NewEvent};
use remaind_index::{Error, Index, MAX_QUERY_CHARS, MAX_QUERY_TERMS, SearchOptions, Syntax};

use crate::common::{self, event, filler};

fn fts() -> SearchOptions {
    SearchOptions {
        syntax: Syntax::Fts5,
        ..SearchOptions::default()
    }
}

/// A ledger where `lorem` and a few hundred other words are everywhere.
fn lorem_ledger() -> (
    tempfile::TempDir,
    camino::Utf8PathBuf,
    remaind_ledger::Ledger,
) {
    let (tmp, dir, ledger) = common::ledger();
    filler(&ledger, 200);
    let batch: Vec<NewEvent> = (0..400)
        .map(|i| {
            event(
                Kind::Note,
                &format!(
                    "lorem ipsum dolor sit amet w{} w{} number {i}",
                    i % 300,
                    (i * 7) % 300
                ),
            )
        })
        .collect();
    ledger.append(batch).unwrap();
    (tmp, dir, ledger)
}

#[test]
fn a_word_repeated_300_times_is_searched_once() {
    let (_tmp, dir, ledger) = lorem_ledger();
    let mut index = Index::open(&dir, &ledger).unwrap();
    let once = index
        .search_bounded("lorem", &SearchOptions::default())
        .unwrap();
    let query = vec!["lorem"; 300].join(" ");
    let searched = index
        .search_bounded(&query, &SearchOptions::default())
        .unwrap();
    assert_eq!(searched.bounds.terms, 1, "{:?}", searched.bounds);
    assert_eq!(searched.bounds.repeated, 299);
    // Nothing searchable was left out, so nothing was cut.
    assert!(!searched.bounds.cut());
    let ids = |s: &remaind_index::Searched| s.hits.iter().map(|h| h.id).collect::<Vec<_>>();
    assert_eq!(ids(&searched), ids(&once));
    // In any case.
    let mixed = ["Lorem", "LOREM", "lorem"].repeat(100).join(" ");
    let searched = index
        .search_bounded(&mixed, &SearchOptions::default())
        .unwrap();
    assert_eq!((searched.bounds.terms, searched.bounds.repeated), (1, 299));
    // Past what is read at all (64,000 characters), the rest is cut unread.
    let huge = "lorem ".repeat(20_000);
    let searched = index
        .search_bounded(&huge, &SearchOptions::default())
        .unwrap();
    assert_eq!(searched.bounds.terms, 1);
    assert!(searched.bounds.cut() && searched.bounds.cut_chars > 50_000);
}

#[test]
fn distinct_terms_and_characters_are_capped_and_the_cut_is_said() {
    let (_tmp, dir, ledger) = lorem_ledger();
    let mut index = Index::open(&dir, &ledger).unwrap();
    // 200 distinct words.
    let query: Vec<String> = (0..200).map(|i| format!("w{i}")).collect();
    let searched = index
        .search_bounded(&query.join(" "), &SearchOptions::default())
        .unwrap();
    assert_eq!(searched.bounds.terms, MAX_QUERY_TERMS);
    assert_eq!(searched.bounds.dropped_terms, 200 - MAX_QUERY_TERMS);
    assert!(searched.bounds.cut());
    assert!(!searched.hits.is_empty());
    // Long distinct words: as many as fit in the characters searched.
    let long: Vec<String> = (0..100)
        .map(|i| format!("{}{i:02}", "x".repeat(60)))
        .collect();
    let searched = index
        .search_bounded(&long.join(" "), &SearchOptions::default())
        .unwrap();
    assert_eq!(searched.bounds.terms, MAX_QUERY_CHARS / 62);
    assert_eq!(searched.bounds.dropped_terms, 100 - MAX_QUERY_CHARS / 62);
    assert!(searched.bounds.cut());
    // One word longer than the limit is still searched, cut.
    let one = "x".repeat(5 * MAX_QUERY_CHARS);
    let searched = index
        .search_bounded(&one, &SearchOptions::default())
        .unwrap();
    assert!(searched.bounds.cut());
}

#[test]
fn raw_fts_or_lists_are_capped_the_same_way() {
    let (_tmp, dir, ledger) = lorem_ledger();
    let mut index = Index::open(&dir, &ledger).unwrap();
    let distinct: Vec<String> = (0..100).map(|i| format!("w{i}")).collect();
    let searched = index
        .search_bounded(&distinct.join(" OR "), &fts())
        .unwrap();
    assert_eq!(searched.bounds.terms, MAX_QUERY_TERMS);
    assert_eq!(searched.bounds.dropped_terms, 100 - MAX_QUERY_TERMS);
    assert!(searched.bounds.cut() && !searched.hits.is_empty());
    let repeated = vec!["lorem"; 100].join(" OR ");
    let searched = index.search_bounded(&repeated, &fts()).unwrap();
    assert_eq!((searched.bounds.terms, searched.bounds.repeated), (1, 99));
    assert!(!searched.bounds.cut());
    // Implicit AND lists too.
    let searched = index
        .search_bounded(&vec!["lorem"; 100].join(" "), &fts())
        .unwrap();
    assert_eq!(searched.bounds.terms, 1);
    // A query that is no plain list is refused past the limits, never cut.
    let nested = format!("lorem AND ({})", distinct.join(" OR "));
    match index.search_bounded(&nested, &fts()) {
        Err(Error::InvalidQuery { .. }) => {}
        other => panic!("{other:?}"),
    }
    // Within them it runs as written.
    let searched = index
        .search_bounded("lorem AND (w1 OR w2) NOT w3", &fts())
        .unwrap();
    assert!(!searched.bounds.cut() && searched.bounds.terms == 4);
}
