//! The `event_parser` fuzz target's inputs as a property test (no nightly needed): arbitrary
//! bytes and near-valid JSON Lines into the parser and into `AppendRequest::json_lines`.
//! Laws: never a panic; a batch is all or nothing (accepted ⇒ every id landed in order;
//! rejected ⇒ the log is byte for byte unchanged).

use proptest::prelude::*;
use remaind_fs::layout::LOG_PATH;
use remaind_ledger::Ledger;

use crate::common;

const KINDS: &[&str] = &[
    "note",
    "user_message",
    "decision",
    "result",
    "correction",
    "remember",
    "next_step",
    "trace",
    "compaction",
    "bogus",
    "",
];

/// One near-valid caller event line: the right shape with random kinds, fields, types and
/// citations (some of events that do not exist), sometimes cut short.
fn near_valid_line() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::sample::select(KINDS),
        ".{0,40}",
        prop::option::of(0u8..6),
        prop::collection::vec(0u64..8, 0..3),
        prop::option::of(any::<u16>()),
        any::<bool>(),
        0usize..4,
    )
        .prop_map(|(kind, text, importance, refs, cut, as_number, extra)| {
            let mut obj = serde_json::json!({ "kind": kind, "text": text });
            if let Some(i) = importance {
                obj["importance"] = serde_json::json!(i);
            }
            if !refs.is_empty() {
                let ids: Vec<String> = refs.iter().map(|r| format!("e{r}")).collect();
                obj[if extra == 1 { "supersedes" } else { "refs" }] = serde_json::json!(ids);
            }
            if as_number {
                obj["text"] = serde_json::json!(42);
            }
            if extra == 2 {
                obj["data"] = serde_json::json!({ "nested": [1, { "k": "v" }] });
            }
            if extra == 3 {
                obj["seq"] = serde_json::json!(7);
            }
            let mut line = obj.to_string().into_bytes();
            if let Some(cut) = cut
                && cut % 5 == 0
            {
                line.truncate(usize::from(cut) % (line.len() + 1));
            }
            line
        })
}

fn batch() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..400),
        prop::collection::vec(near_valid_line(), 0..6).prop_map(|lines| lines.join(&b'\n')),
    ]
}

proptest! {
    #[test]
    fn prop_fuzz_event_parser_never_panics(input in batch()) {
        for line in input.split(|&b| b == b'\n') {
            if let Ok(value) = remaind_ledger::parse_json_strict(line) {
                let _ = remaind_ledger::new_event_from_value(value);
            }
        }
        if let Ok(value) = remaind_ledger::parse_json_strict(&input) {
            let _ = remaind_ledger::new_event_from_value(value);
        }
    }

    #[test]
    fn prop_fuzz_append_json_lines_all_or_nothing(first in batch(), second in batch()) {
        let (_tmp, dir, ledger) = common::ledger();
        for input in [first, second] {
            let before = std::fs::read(dir.join(LOG_PATH)).expect("read log");
            let (head, _) = ledger.head().expect("head");
            match ledger.append(remaind_ledger::AppendRequest::json_lines(&input)) {
                Ok(ids) => {
                    let seqs: Vec<u64> = ids.iter().map(|id| id.seq()).collect();
                    let want: Vec<u64> = (head + 1..=head + ids.len() as u64).collect();
                    prop_assert_eq!(seqs, want);
                }
                Err(_) => {
                    let after = std::fs::read(dir.join(LOG_PATH)).expect("read log");
                    prop_assert!(after == before, "a rejected batch changed the log");
                }
            }
        }
        let report = ledger.verify().expect("verify");
        prop_assert!(report.is_ok(), "{:?}", report.problems.first());
        // The same bytes reopen cleanly.
        drop(ledger);
        let reopened = Ledger::open(&dir).expect("reopen");
        prop_assert!(reopened.verify().expect("verify").is_ok());
    }

    #[test]
    fn prop_fuzz_stored_log_open_never_panics(log in batch()) {
        let (_tmp, dir) = common::context();
        std::fs::write(dir.join(LOG_PATH), &log).expect("write log");
        if let Ok(ledger) = Ledger::open(&dir) {
            let _ = ledger.verify();
            let _ = ledger.iter().map(|events| events.count());
            let _ = ledger.range(1, 10, &remaind_events::Filter::default());
        }
    }
}
