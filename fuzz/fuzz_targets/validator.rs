//! The validator: an arbitrary candidate (state JSON, then handover text, split at the
//! first NUL byte) against a small fixed ledger, with and without a prior state. Findings
//! are a verdict; nothing panics and no read error is invented.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use remaind_events::{Kind, NewEvent};
use remaind_validate::{MemoryLedger, Prior, State};

fn ledger() -> &'static MemoryLedger {
    static L: OnceLock<MemoryLedger> = OnceLock::new();
    L.get_or_init(|| {
        let mut l = MemoryLedger::new();
        let ts = "2026-11-21T21:00:00.000000Z";
        let mut add = |kind: Kind, text: &str, supersedes: Vec<&str>| {
            let ev = NewEvent {
                kind: Some(kind),
                text: Some(text.to_owned()),
                supersedes: supersedes.iter().map(|s| s.parse().expect("id")).collect(),
                ..NewEvent::default()
            };
            l.append(ev, ts).expect("append");
        };
        add(Kind::UserMessage, "Build the parser", vec![]);
        add(Kind::Decision, "Use serde", vec![]);
        add(Kind::Result, "Parser done", vec![]);
        add(Kind::Remember, "Never print from libraries", vec![]);
        add(Kind::NextStep, "Write the fuzz targets", vec![]);
        add(
            Kind::Correction,
            "Use serde_json, not serde alone",
            vec!["e2"],
        );
        l
    })
}

fuzz_target!(|data: &[u8]| {
    let (state, handover) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(state) else {
        return;
    };
    let handover = String::from_utf8_lossy(handover);
    let view = ledger();
    let verdict = remaind_validate::validate(view, None, &value, &handover)
        .expect("an in-memory ledger never fails to read");
    let _ = verdict.failed_checks();
    if let Ok(prior) = serde_json::from_value::<State>(value.clone()) {
        let _ = remaind_validate::validate(view, Some(&Prior::new(&prior)), &value, &handover)
            .expect("an in-memory ledger never fails to read");
    }
});
