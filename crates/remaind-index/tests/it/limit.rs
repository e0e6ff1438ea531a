//! A ranking that does not depend on `limit`: for any query, the first k hits of a search for
//! n are the hits of a search for k. A caller can trust a short list.

use proptest::prelude::*;
use remaind_events::{Kind, NewEvent};
use remaind_index::{Index, SearchOptions};

use crate::common::{self, event};

/// Words the generated events and queries are made of: a small vocabulary, so that a common
/// word is held by many more events than a search ranks closely; inflected forms, stop words
/// and question words among them.
const VOCAB: &[&str] = &[
    "reject",
    "rejected",
    "rejection",
    "build",
    "builds",
    "building",
    "sandbox",
    "ledger",
    "index",
    "search",
    "searches",
    "loan",
    "bank",
    "credit",
    "union",
    "approved",
    "approval",
    "the",
    "a",
    "did",
    "why",
    "friendship",
    "pact",
    "signed",
    "2023",
    "january",
    "session",
    "date",
];

/// Kinds the generated events take (notes, traces and tool output among them).
const KINDS: &[Kind] = &[
    Kind::UserMessage,
    Kind::AssistantMessage,
    Kind::Note,
    Kind::Decision,
    Kind::ToolResult,
    Kind::Trace,
];

fn text_of(words: &[usize]) -> String {
    words
        .iter()
        .map(|&i| VOCAB[i % VOCAB.len()])
        .collect::<Vec<_>>()
        .join(" ")
}

/// A word of [`VOCAB`], one of its first eight twice as often as the rest: many events hold
/// the same few words, often next to each other (the whole query as a phrase ranks higher).
fn word() -> impl Strategy<Value = usize> {
    (0..2 * VOCAB.len()).prop_map(|i| if i < VOCAB.len() { i } else { i % 8 })
}

/// One generated event: its kind, its words and whether it ends as a question.
fn events() -> impl Strategy<Value = Vec<(usize, Vec<usize>, bool)>> {
    prop::collection::vec(
        (
            0..KINDS.len(),
            prop::collection::vec(word(), 1..10),
            any::<bool>(),
        ),
        150..400,
    )
}

/// A query: its words, asked as a question or not, with two of them quoted or not, with a
/// word required or not.
fn queries() -> impl Strategy<Value = Vec<(Vec<usize>, bool, bool, bool)>> {
    prop::collection::vec(
        (
            prop::collection::vec(word(), 1..5),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
        ),
        1..5,
    )
}

fn query_of(words: &[usize], question: bool, quoted: bool, required: bool) -> String {
    let mut parts: Vec<String> = words
        .iter()
        .map(|&i| VOCAB[i % VOCAB.len()].to_owned())
        .collect();
    if quoted && parts.len() >= 2 {
        let b = parts.remove(1);
        parts[0] = format!("\"{} {b}\"", parts[0]);
    }
    if required && let Some(last) = parts.last_mut() {
        *last = format!("+{last}");
    }
    let mut q = parts.join(" ");
    if question {
        q = format!("why did {q}?");
    }
    q
}

fn ids(index: &mut Index<'_>, q: &str, limit: usize) -> Vec<u64> {
    let opts = SearchOptions {
        limit,
        ..SearchOptions::default()
    };
    index
        .search(q, &opts)
        .expect("a plain query never fails")
        .into_iter()
        .map(|h| h.seq)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn the_first_k_of_a_longer_list_are_the_short_list(
        evs in events(),
        qs in queries(),
        k in 1usize..12,
        more in 1usize..300,
    ) {
        let (_tmp, dir, ledger) = common::ledger();
        let batch: Vec<NewEvent> = evs
            .iter()
            .map(|(kind, words, asks)| {
                let mut text = text_of(words);
                if *asks {
                    text.push('?');
                }
                event(KINDS[*kind], &text)
            })
            .collect();
        ledger.append(batch).expect("append");
        let mut index = Index::open(&dir, &ledger).expect("open");
        for (words, question, quoted, required) in &qs {
            let q = query_of(words, *question, *quoted, *required);
            let short = ids(&mut index, &q, k);
            let long = ids(&mut index, &q, k + more);
            prop_assert!(short.len() <= k);
            prop_assert_eq!(
                &long[..short.len().min(long.len())],
                &short[..],
                "query {:?}: limit {} against limit {}", q, k, k + more
            );
            // A list shorter than its limit holds every match: the longer one holds no more.
            if short.len() < k {
                prop_assert_eq!(long.len(), short.len(), "query {:?}", q);
            }
        }
    }
}
