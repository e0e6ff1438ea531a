//! The runtime adapters: arbitrary bytes as a Claude Code transcript, a Codex rollout and a
//! hook payload of every event, mapped to events. Nothing may panic, and every mapped event
//! must be one the ledger accepts.
#![no_main]

use libfuzzer_sys::fuzz_target;
use remaind_adapters::{HookEvent, Mapper, PlanBook, Runtime, hook_records, read_transcript};

fuzz_target!(|data: &[u8]| {
    for runtime in [Runtime::ClaudeCode, Runtime::Codex] {
        let (records, counts) = read_transcript(runtime, data);
        assert!(counts.used + counts.unused + counts.damaged == counts.lines);
        let mut mapper = Mapper::new(0, PlanBook::default());
        for rec in &records {
            mapper.map(rec);
        }
        for ev in mapper.take() {
            // Typed checks only (no disk): the kind and its importance rule.
            let kind = ev.kind.expect("every mapped event has a kind");
            assert!(ev.importance.is_none_or(|i| i >= kind.min_importance() && i <= 3));
        }
        if let Ok(serde_json::Value::Object(payload)) = serde_json::from_slice(data) {
            for hook in HookEvent::ALL {
                let _ = hook_records(runtime, hook, &payload);
            }
        }
    }
});
