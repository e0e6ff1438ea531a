//! Shared helpers: a deterministic in-memory ledger from compact fixture lines.

use remaind_events::NewEvent;
use remaind_validate::{LedgerView, MemoryLedger};
use serde_json::Value;

/// The placeholder a fixture state uses for "the right digest at its through_seq".
pub(crate) const DIGEST_PLACEHOLDER: &str = "$DIGEST";

/// A deterministic timestamp for event `seq`.
pub(crate) fn ts(seq: u64) -> String {
    format!(
        "2026-11-21T{:02}:{:02}:{:02}Z",
        10 + (seq / 3600) % 12,
        (seq / 60) % 60,
        seq % 60
    )
}

/// Append `NewEvent`-shaped JSON lines; the ledger assigns seq, id, prev, and `ts(seq)`.
pub(crate) fn ledger_from_new_events(text: &str) -> MemoryLedger {
    let mut ledger = MemoryLedger::new();
    for (n, line) in text.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        let new: NewEvent = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("fixture ledger line {}: {e}", n + 1));
        let seq = ledger.events().len() as u64 + 1;
        ledger
            .append(new, &ts(seq))
            .unwrap_or_else(|e| panic!("fixture ledger line {}: {e}", n + 1));
    }
    ledger
}

/// Replace a `$DIGEST` log_digest with the ledger's digest at the state's through_seq (64
/// zeros' neighbour `f…f` when through_seq is past the head, so the schema still passes).
pub(crate) fn fill_digest(state: &mut Value, ledger: &MemoryLedger) {
    if state.get("log_digest").and_then(Value::as_str) != Some(DIGEST_PLACEHOLDER) {
        return;
    }
    let through = state
        .get("through_seq")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let digest = ledger
        .digest_at(through)
        .expect("memory ledger never fails")
        .unwrap_or_else(|| "f".repeat(64));
    state["log_digest"] = Value::String(digest);
}
