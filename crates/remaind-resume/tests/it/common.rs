//! Shared helpers: a fresh initialized context and fixture loading.

use std::collections::BTreeMap;

use camino::Utf8PathBuf;
use remaind_atomic::HistoryStore;
use remaind_events::{Kind, NewEvent};
use remaind_fs::ContextDir;
use remaind_ledger::Ledger;
use remaind_resume::FrameRequest;
use remaind_validate::Binding;
use remaind_validate::State;
use serde::Deserialize;

/// A fresh, initialized `.context/` in a temp dir (kept alive by the returned guard).
pub(crate) fn fresh() -> (tempfile::TempDir, ContextDir) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = Utf8PathBuf::from_path_buf(tmp.path().join(".context")).expect("utf-8 temp dir");
    let ctx = ContextDir::new(root);
    remaind_resume::init(&ctx, false).expect("init");
    if remaind_testkit::on_store() {
        // The same suite on a shared store (REMAIND_TEST_ON_STORE): the folder is a replica.
        remaind_testkit::make_replica(ctx.root(), "resume");
    }
    (tmp, ctx)
}

/// Appends events given as JSON objects; Remaind's own kinds go through `AppendRequest::system`.
pub(crate) fn append(ctx: &ContextDir, events: &[serde_json::Value]) {
    let ledger = Ledger::open(ctx.root()).expect("open ledger");
    for ev in events {
        let new: NewEvent = serde_json::from_value(ev.clone()).expect("fixture event");
        let system = new.kind.is_some_and(Kind::is_bookkeeping);
        if system {
            ledger
                .append(remaind_ledger::AppendRequest::from(new).system())
                .expect("append system event");
        } else {
            ledger.append(new).expect("append event");
        }
    }
}

/// The framing a fixture records (every field fixed, so packets are reproducible).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FramingFixture {
    workspace_root: String,
    shell: String,
    os: String,
    date: String,
    time_zone: String,
    model: String,
    #[serde(default)]
    settings: BTreeMap<String, String>,
}

/// One gate fixture: a ledger, optionally a state and handover, framing, tools and a budget.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Fixture {
    pub(crate) description: String,
    pub(crate) events: Vec<serde_json::Value>,
    /// A state; `"log_digest": "auto"` is replaced by the ledger's chain hash at through_seq.
    #[serde(default)]
    pub(crate) state: Option<serde_json::Value>,
    /// Raw bytes for state.json instead of `state`.
    #[serde(default)]
    pub(crate) state_raw: Option<String>,
    /// The handover body; a binding line is prepended according to `handover_binding`.
    #[serde(default)]
    pub(crate) handover: Option<String>,
    /// `auto` (bound to the state), `stale` (bound to another state) or `none`.
    #[serde(default)]
    pub(crate) handover_binding: Option<String>,
    #[serde(default)]
    pub(crate) framing: Option<FramingFixture>,
    /// tools.yaml text (default: the shipped file).
    #[serde(default)]
    pub(crate) tools: Option<String>,
    #[serde(default)]
    pub(crate) budget: Option<u64>,
}

/// Builds the context a fixture describes.
pub(crate) fn build(ctx: &ContextDir, fx: &Fixture) {
    append(ctx, &fx.events);
    let store = HistoryStore::open(ctx.active_dir()).expect("store");
    let ledger = Ledger::open(ctx.root()).expect("ledger");
    let mut state_for_binding = None;
    if let Some(value) = &fx.state {
        let mut value = value.clone();
        if value["log_digest"] == "auto" {
            let through = value["through_seq"].as_u64().expect("through_seq");
            value["log_digest"] = ledger
                .digest_at(through)
                .expect("digest")
                .expect("through_seq within the ledger")
                .into();
        }
        let state: State = serde_json::from_value(value).expect("fixture state");
        store
            .write("state.json", &state.to_canonical_bytes())
            .expect("write state");
        state_for_binding = Some(state);
    }
    if let Some(raw) = &fx.state_raw {
        store
            .write("state.json", raw.as_bytes())
            .expect("write raw state");
    }
    if let Some(body) = &fx.handover {
        let binding = match (fx.handover_binding.as_deref(), &state_for_binding) {
            (Some("none"), _) | (_, None) => None,
            (Some("stale"), Some(s)) => {
                let mut other = s.clone();
                other.generated_at = "2000-01-01T00:00:00.000000Z".to_owned();
                Some(Binding::for_state(&other))
            }
            (_, Some(s)) => Some(Binding::for_state(s)),
        };
        let text = match binding {
            Some(b) => format!("{b}\n{body}"),
            None => body.clone(),
        };
        store
            .write("handover.md", text.as_bytes())
            .expect("write handover");
    }
    // The files above stand for an accepted compaction: record it as the commit path does, so
    // the gate's not_recorded check judges the fixture's files, not the fixture builder.
    let state_bytes = store.read("state.json").expect("read state");
    if let Some(state_bytes) = state_bytes {
        let through = serde_json::from_slice::<serde_json::Value>(&state_bytes)
            .ok()
            .and_then(|v| v["through_seq"].as_u64());
        if let Some(through) = through {
            let handover = store
                .read("handover.md")
                .expect("read handover")
                .unwrap_or_default();
            let mut data = serde_json::Map::new();
            data.insert("through_seq".into(), through.into());
            data.insert(
                "state_sha256".into(),
                remaind_hash::sha256_hex(&state_bytes).into(),
            );
            data.insert(
                "handover_sha256".into(),
                remaind_hash::sha256_hex(&handover).into(),
            );
            ledger
                .append(
                    remaind_ledger::AppendRequest::from(remaind_events::NewEvent {
                        kind: Some(remaind_events::Kind::Compaction),
                        text: Some("fixture compaction".to_owned()),
                        data: Some(data),
                        ..remaind_events::NewEvent::default()
                    })
                    .system(),
                )
                .expect("record the fixture's compaction");
        }
    }
    if let Some(f) = &fx.framing {
        remaind_resume::record_framing(
            ctx,
            &FrameRequest {
                workspace_root: Some(f.workspace_root.clone()),
                shell: Some(f.shell.clone()),
                os: Some(f.os.clone()),
                date: Some(f.date.clone()),
                time_zone: Some(f.time_zone.clone()),
                model: Some(f.model.clone()),
                settings: f.settings.clone().into_iter().collect(),
                recorded_at: Some("2026-11-21T20:30:00Z".parse().expect("time")),
            },
        )
        .expect("record framing");
    }
    if let Some(tools) = &fx.tools {
        std::fs::write(ctx.tools_path(), tools).expect("write tools.yaml");
    }
}

/// Compact with the built-in compactor; its candidate must be accepted.
pub(crate) fn compact_builtin(ctx: &ContextDir) {
    let ledger = Ledger::open(ctx.root()).expect("open ledger");
    let store = remaind_compact::open_store(ctx.root()).expect("history store");
    let outcome = remaind_compact::compact(
        &ledger,
        &store,
        remaind_compact::Source::Builtin,
        remaind_compact::Options::default(),
    )
    .expect("compact");
    assert!(
        outcome.verdict.accepted,
        "the built-in candidate is rejected: {:?}",
        outcome.verdict.failures
    );
}

/// Replaces run-dependent parts (times, hashes) with placeholders.
pub(crate) fn normalize(text: &str) -> String {
    let ts = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z").expect("regex");
    let hex = regex::Regex::new(r"\b[0-9a-f]{64}\b").expect("regex");
    // A recorded compaction's hashes tokenize differently from run to run.
    let tokens = regex::Regex::new(r"\d+ tokens after the state").expect("regex");
    let text = ts.replace_all(text, "[time]");
    let text = hex.replace_all(&text, "[sha256]");
    tokens
        .replace_all(&text, "[n] tokens after the state")
        .into_owned()
}

/// What a packet's budget left out, read from its JSON (`dropped`): the same fields, in the
/// same order, as the library writes them.
#[derive(Debug, Deserialize)]
#[expect(
    dead_code,
    reason = "some fields are only printed, by the gate's goldens"
)]
pub(crate) struct Dropped {
    pub(crate) handover: bool,
    pub(crate) state: bool,
    pub(crate) events: Vec<remaind_events::EventId>,
    pub(crate) remember_items: u64,
    pub(crate) next_step: bool,
    pub(crate) framing: bool,
    pub(crate) memory: bool,
    pub(crate) user_words: u64,
}

/// The `dropped` part of a packet.
pub(crate) fn dropped(r: &remaind_resume::Resume) -> Dropped {
    let json = serde_json::to_value(r).expect("a packet serializes");
    serde_json::from_value(json["dropped"].clone()).expect("a packet says what it dropped")
}
