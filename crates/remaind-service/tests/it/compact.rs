//! A compaction as `remaind compact` runs it: the built-in compactor, a dry run, the
//! requests refused before any folder is opened, and an LLM preset that cannot be asked.

use std::time::Duration;

use remaind_events::Kind;
use remaind_fs::ContextDir;
use remaind_ledger::{AppendRequest, Ledger};
use remaind_service::{CompactRequest, Compacted, Compactor, Error, compact};

fn folder() -> (tempfile::TempDir, ContextDir) {
    let (tmp, ctx) = crate::common::folder("service-compact");
    let ledger = Ledger::open(ctx.root()).expect("open");
    for (kind, text) in [
        (Kind::Constraint, "keep the CSV importer streaming"),
        (Kind::Decision, "parse rows with the csv crate"),
        (Kind::NextStep, "write the row parser tests"),
    ] {
        ledger
            .append(AppendRequest::from(remaind_testkit::event(kind, text)))
            .expect("append");
    }
    (tmp, ctx)
}

fn kinds(ctx: &ContextDir) -> Vec<Kind> {
    let ledger = Ledger::open(ctx.root()).expect("open");
    ledger
        .range(1, 1000, &remaind_events::Filter::default())
        .expect("read")
        .iter()
        .map(|e| e.kind)
        .collect()
}

/// The built-in compactor's candidate is accepted through the head: both files are
/// written, a `compaction` event appended, and the JSON is the verdict.
#[test]
fn the_builtin_compactor_is_accepted_and_recorded() {
    let (_tmp, ctx) = folder();
    let request = CompactRequest::new(Compactor::Builtin, false).expect("request");
    let done = compact(&ctx, &request).expect("compact");
    let Compacted::Once(outcome) = &done else {
        panic!("the built-in compactor proposes once: {done:?}");
    };
    assert!(outcome.verdict.accepted, "{:?}", outcome.verdict);
    assert_eq!(outcome.through_seq, 3);
    assert!(outcome.written);
    assert!(outcome.event_id.is_some());
    assert!(ctx.join("active/state.json").is_file());
    assert!(ctx.join("active/handover.md").is_file());
    assert_eq!(kinds(&ctx).last(), Some(&Kind::Compaction));
    let json = serde_json::to_value(&done).expect("JSON");
    assert_eq!(json, serde_json::to_value(&outcome.verdict).expect("JSON"));
    assert_eq!(json["accepted"], true);
}

/// A dry run reaches the verdict but writes and appends nothing.
#[test]
fn a_dry_run_writes_nothing() {
    let (_tmp, ctx) = folder();
    let before = kinds(&ctx);
    let request = CompactRequest::new(Compactor::Builtin, true).expect("request");
    let done = compact(&ctx, &request).expect("compact");
    assert!(done.outcome().verdict.accepted);
    assert!(!done.outcome().written);
    assert_eq!(kinds(&ctx), before);
    assert!(!ctx.join("active/state.json").exists());
}

/// An empty command or model name is refused as the caller's mistake.
#[test]
fn an_empty_command_or_model_is_refused() {
    let command = Compactor::Command {
        cmd: "  ".to_owned(),
        timeout: Some(Duration::from_secs(5)),
    };
    let err = CompactRequest::new(command, false).expect_err("an empty command");
    assert!(matches!(err, Error::EmptyCompactor), "{err:?}");
    assert!(err.is_invalid_input());
    let llm = Compactor::Llm {
        preset: remaind_llm::Preset::Claude,
        model: Some(String::new()),
        time_limit: None,
    };
    let err = CompactRequest::new(llm, false).expect_err("an empty model");
    assert_eq!(err.to_string(), "--model: the model name is empty");
    assert!(err.is_invalid_input());
}

/// An external command proposes the candidate; one that prints no candidate is rejected:
/// the derived files stay as they were and a `validation` event records the failure.
#[test]
fn a_command_that_prints_no_candidate_is_rejected() {
    let (_tmp, ctx) = folder();
    let command = Compactor::Command {
        cmd: "echo not json".to_owned(),
        timeout: None,
    };
    let request = CompactRequest::new(command, false).expect("request");
    let done = compact(&ctx, &request).expect("compact");
    let verdict = &done.outcome().verdict;
    assert!(!verdict.accepted);
    assert_eq!(verdict.failures.len(), 1, "{verdict:?}");
    assert!(
        verdict.failures[0].reason.contains("echo not json"),
        "{verdict:?}"
    );
    assert!(!done.outcome().written);
    assert!(!ctx.join("active/state.json").exists());
    assert_eq!(kinds(&ctx).last(), Some(&Kind::Validation));
}

fn openai(ctx: &ContextDir, config: &serde_json::Value) -> Result<Compacted, Error> {
    std::fs::write(
        ctx.join("schemas/llm.json"),
        serde_json::to_vec(config).expect("JSON"),
    )
    .expect("write llm.json");
    let llm = Compactor::Llm {
        preset: remaind_llm::Preset::OpenAi,
        model: None,
        time_limit: None,
    };
    compact(ctx, &CompactRequest::new(llm, false).expect("request"))
}

/// A model that cannot be asked (its key is not set) is a runtime failure that says
/// nothing was written, and nothing was; a bad setting is the caller's mistake.
#[test]
fn an_llm_preset_that_cannot_be_asked_writes_nothing() {
    let (_tmp, ctx) = folder();
    let before = kinds(&ctx);
    let config = serde_json::json!({"openai": {
        "base_url": "http://127.0.0.1:9/v1",
        "model": "test-model",
        "api_key_env": "REMAIND_SERVICE_TEST_KEY_NEVER_SET",
    }});
    let err = openai(&ctx, &config).expect_err("no key");
    assert!(matches!(err, Error::ModelCall { .. }), "{err:?}");
    assert!(!err.is_invalid_input());
    let text = err.to_string();
    assert!(
        text.contains("REMAIND_SERVICE_TEST_KEY_NEVER_SET"),
        "{text}"
    );
    assert!(text.ends_with("; nothing was written"), "{text}");
    assert!(std::error::Error::source(&err).is_none());
    assert_eq!(kinds(&ctx), before);
    assert!(!ctx.join("active/state.json").exists());

    let config = serde_json::json!({"openai": {"base_url": "localhost:8080"}});
    let err = openai(&ctx, &config).expect_err("a bad base_url");
    assert!(matches!(err, Error::Llm(_)), "{err:?}");
    assert!(err.is_invalid_input());
    assert!(err.to_string().contains("openai.base_url"), "{err}");
}
