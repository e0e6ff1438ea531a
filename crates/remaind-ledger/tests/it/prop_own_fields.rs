//! No user rule, however broad, changes a value Remaind writes into its own events: the
//! SHA-256 fields of a bookkeeping event and the field names of its data, a memory note's
//! action, id, cited events, rebase list and marker lines, and the event ids and seqs of
//! every line. A rule may redact the user text around them (it should), never them.

use proptest::prelude::*;
use remaind_events::{Kind, NewEvent};
use remaind_ledger::Ledger;
use serde_json::{Map, Value, json};

use crate::common;

/// Broad patterns a user might write: API-key shapes that also match digests and UUIDs, event
/// ids, numbers, words, anything.
const BROAD: &[&str] = &[
    r"\b[0-9a-f]{64}\b",
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    r"[a-z0-9-]{8,}",
    r"[0-9a-f]{12,}",
    r"e[0-9]+",
    r"[0-9]+",
    r"\w+",
    r"<!--.*-->",
    r".+",
];

fn hex64() -> impl Strategy<Value = String> {
    proptest::collection::vec(0u8..16, 64)
        .prop_map(|v| v.iter().map(|d| format!("{d:x}")).collect())
}

fn uuid() -> impl Strategy<Value = String> {
    hex64().prop_map(|h| {
        format!(
            "{}-{}-{}-{}-{}",
            &h[..8],
            &h[8..12],
            &h[12..16],
            &h[16..20],
            &h[20..32]
        )
    })
}

fn data(pairs: Value) -> Option<Map<String, Value>> {
    pairs.as_object().cloned()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn prop_own_fields_survive_every_user_rule(
        rules in proptest::sample::subsequence(BROAD, 1..=3),
        state in hex64(),
        handover in hex64(),
        uuid in uuid(),
        slug in "[a-z][a-z0-9]{0,10}(-[a-z0-9]{1,6}){0,2}",
        cited in 1u64..3,
    ) {
        let (_tmp, dir) = common::context();
        std::fs::create_dir_all(dir.join("schemas")).expect("mkdir schemas");
        let rules: Vec<Value> = rules
            .iter()
            .enumerate()
            .map(|(i, p)| json!({"name": format!("broad_{i}"), "pattern": p}))
            .collect();
        std::fs::write(
            dir.join("schemas/redaction.json"),
            json!({"rules": rules}).to_string(),
        )
        .expect("rules");
        let ledger = Ledger::open(&dir).expect("open");
        let first = ledger.append(common::event(Kind::UserMessage, "Ship it")).expect("append")[0];
        let second = ledger.append(common::event(Kind::Decision, "Use the fail crate")).expect("append")[0];
        let compaction = data(json!({
            "through_seq": 2,
            "state_sha256": state,
            "handover_sha256": handover,
            "compactor": "builtin",
        }));
        let c = ledger
            .append(remaind_ledger::AppendRequest::from(NewEvent {
                kind: Some(Kind::Compaction),
                text: Some("accepted".into()),
                data: compaction,
                ..NewEvent::default()
            }).system())
            .expect("compaction")[0];
        let id = format!("{slug}--{uuid}");
        let cites = format!("e{cited}");
        let marker = format!("<!-- {id} e{} cites {cites} -->", c.seq() + 1);
        let memory = data(json!({"memory": {
            "action": "hand_edit",
            "id": id,
            "title": "MEMORY.md",
            "cites": [cites],
            "rebase": [format!("e{}", c.seq())],
            "markers": [marker],
            "marker_lines": [4],
        }}));
        let m = ledger
            .append(remaind_ledger::AppendRequest::from(NewEvent {
                kind: Some(Kind::Note),
                text: Some(format!("# Memory\n\n## Port\n\n{marker}\n")),
                actor: Some("remaind".into()),
                data: memory,
                ..NewEvent::default()
            }).system())
            .expect("memory note")[0];
        prop_assert_eq!((first.seq(), second.seq(), c.seq(), m.seq()), (1, 2, 3, 4));
        let stored = ledger.get(c.seq()).expect("read").expect("event");
        prop_assert_eq!(stored.id, c);
        let d = stored.data.expect("data");
        prop_assert_eq!(d["state_sha256"].as_str(), Some(state.as_str()));
        prop_assert_eq!(d["handover_sha256"].as_str(), Some(handover.as_str()));
        prop_assert_eq!(d["through_seq"].as_u64(), Some(2));
        let stored = ledger.get(m.seq()).expect("read").expect("event");
        prop_assert_eq!(stored.id, m);
        let mm = &stored.data.expect("data")["memory"];
        prop_assert_eq!(mm["action"].as_str(), Some("hand_edit"));
        prop_assert_eq!(mm["id"].as_str(), Some(id.as_str()));
        prop_assert_eq!(mm["cites"][0].as_str(), Some(cites.as_str()));
        let rebase = format!("e{}", c.seq());
        prop_assert_eq!(mm["rebase"][0].as_str(), Some(rebase.as_str()));
        prop_assert_eq!(mm["markers"][0].as_str(), Some(marker.as_str()));
        prop_assert_eq!(mm["marker_lines"][0].as_u64(), Some(4));
        prop_assert!(ledger.verify().expect("verify").is_ok());
    }
}

/// The same fields in an event an agent writes are user text: a rule applies to them, so no
/// one can smuggle a secret past redaction by naming its field `state_sha256` or `memory.id`.
#[test]
fn own_field_names_in_an_agent_event_are_redacted_like_any_text() {
    let (_tmp, dir) = common::context();
    std::fs::create_dir_all(dir.join("schemas")).expect("mkdir schemas");
    std::fs::write(
        dir.join("schemas/redaction.json"),
        r#"{"rules": [{"name": "hex_key", "pattern": "\\b[0-9a-f]{64}\\b"}, {"name": "uuid_key", "pattern": "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"}]}"#,
    )
    .expect("rules");
    let ledger = Ledger::open(&dir).expect("open");
    let hex = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    let id = "port--3f2b8c1e-9a4d-4e7f-8b6a-1c2d3e4f5a6b";
    let e = ledger
        .append(NewEvent {
            kind: Some(Kind::Note),
            text: Some("hi".into()),
            data: data(json!({"state_sha256": hex, "memory": {"id": id}})),
            ..NewEvent::default()
        })
        .expect("append")[0];
    let line = std::fs::read_to_string(dir.join("logs/events.jsonl")).expect("log");
    assert!(!line.contains(hex), "{line}");
    assert!(!line.contains("3f2b8c1e-9a4d"), "{line}");
    assert!(ledger.get(e.seq()).expect("read").is_some());
}
