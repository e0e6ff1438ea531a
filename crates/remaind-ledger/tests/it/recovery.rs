//! Torn-tail recovery: a log cut anywhere in its last line reopens with a clean prefix, the
//! cut bytes in quarantine and a `recovery` event.

use remaind_events::Kind;

use remaind_ledger::Ledger;

use crate::common::{self, event};

fn quarantine(dir: &camino::Utf8Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.join("logs/quarantine"))
        .expect("quarantine dir")
        .map(|e| {
            let e = e.expect("entry");
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).expect("read"),
            )
        })
        .collect();
    out.sort();
    out
}

fn clear_quarantine(dir: &camino::Utf8Path) {
    for e in std::fs::read_dir(dir.join("logs/quarantine")).expect("quarantine dir") {
        std::fs::remove_file(e.expect("entry").path()).expect("remove");
    }
}

#[test]
fn torn_tail_at_every_offset_is_quarantined() {
    let (_tmp, dir, ledger) = common::ledger();
    for i in 0..3 {
        ledger
            .append(event(Kind::Note, &format!("note {i}")))
            .expect("append");
    }
    // A torn tail is an append that was never acknowledged: the head anchor still names the
    // line before it.
    let anchor = std::fs::read(dir.join("logs/events.head")).expect("anchor");
    let mut last = event(
        Kind::Decision,
        "the last line, with \"escapes\" and ünïcode",
    );
    last.refs = vec!["e1".parse().expect("id")];
    ledger.append(last).expect("append");
    drop(ledger);
    let full = common::log_bytes(&dir);
    let start = full[..full.len() - 1]
        .iter()
        .rposition(|&b| b == b'\n')
        .expect("a newline")
        + 1;
    let log = dir.join("logs/events.jsonl");

    for cut in start..full.len() {
        clear_quarantine(&dir);
        std::fs::write(&log, &full[..cut]).expect("cut");
        std::fs::write(dir.join("logs/events.head"), &anchor).expect("anchor");
        let ledger = Ledger::open(&dir).unwrap_or_else(|e| panic!("open at cut {cut}: {e}"));
        let after = common::log_bytes(&dir);
        assert!(
            after.starts_with(&full[..start]),
            "clean prefix kept at cut {cut}"
        );
        let q = quarantine(&dir);
        if cut == start {
            assert!(q.is_empty(), "nothing to quarantine at a line boundary");
            assert_eq!(after, &full[..start]);
            assert_eq!(ledger.head().expect("head").0, 3);
            continue;
        }
        assert_eq!(q.len(), 1, "one quarantine file at cut {cut}");
        assert_eq!(
            q[0].1,
            &full[start..cut],
            "torn bytes kept byte for byte at cut {cut}"
        );
        assert!(q[0].0.ends_with("-4.torn"), "{}", q[0].0);
        let (head, _) = ledger.head().expect("head");
        assert_eq!(head, 4);
        let rec = ledger.get(4).expect("get").expect("recovery event");
        assert_eq!(rec.kind, Kind::Recovery);
        let data = rec.data.expect("data");
        assert_eq!(data["bytes"], serde_json::Value::from(cut - start));
        assert_eq!(data["offset"], serde_json::Value::from(start as u64));
        assert_eq!(
            data["quarantine"],
            serde_json::Value::from(format!("logs/quarantine/{}", q[0].0))
        );
        let report = ledger.verify().expect("verify");
        assert!(report.is_ok(), "cut {cut}: {:?}", report.problems);
        // Appends continue the chain.
        ledger
            .append(event(Kind::Note, "after recovery"))
            .expect("append");
        assert!(ledger.verify().expect("verify").is_ok());
    }
}

#[test]
fn complete_but_invalid_last_line_is_quarantined() {
    let (_tmp, dir, ledger) = common::ledger();
    ledger.append(event(Kind::Note, "kept")).expect("append");
    drop(ledger);
    let mut bytes = common::log_bytes(&dir);
    let kept = bytes.clone();
    bytes.extend_from_slice(b"{\"v\":1,\"seq\":2,\"garbage\n");
    std::fs::write(dir.join("logs/events.jsonl"), &bytes).expect("write");
    let ledger = Ledger::open(&dir).expect("open");
    let after = common::log_bytes(&dir);
    assert!(after.starts_with(&kept));
    let q = quarantine(&dir);
    assert_eq!(q.len(), 1);
    assert_eq!(q[0].1, b"{\"v\":1,\"seq\":2,\"garbage\n");
    assert_eq!(
        ledger.get(2).expect("get").expect("event").kind,
        Kind::Recovery
    );
    assert!(ledger.verify().expect("verify").is_ok());
    // Reopening a clean log changes nothing.
    let before = common::files(&dir);
    drop(ledger);
    Ledger::open(&dir).expect("reopen");
    assert_eq!(common::files(&dir), before);
}

#[test]
fn torn_first_line_recovers_to_genesis() {
    let (_tmp, dir) = common::context();
    std::fs::write(dir.join("logs/events.jsonl"), b"{\"v\":1,\"se").expect("write");
    let ledger = Ledger::open(&dir).expect("open");
    let ev = ledger.get(1).expect("get").expect("event");
    assert_eq!(ev.kind, Kind::Recovery);
    assert_eq!(ev.prev, remaind_events::GENESIS_PREV);
    assert_eq!(quarantine(&dir)[0].1, b"{\"v\":1,\"se");
}
