//! `llm.json`: the shipped defaults match the schema and the code; bad settings name the field.

use remaind_llm::{CONFIG_SCHEMA, Config, DEFAULT_CONFIG, Preset};
use serde_json::{Value, json};

fn schema_accepts(doc: &Value) -> bool {
    let schema: Value = serde_json::from_str(CONFIG_SCHEMA).expect("schema is JSON");
    jsonschema::validator_for(&schema)
        .expect("a valid JSON Schema")
        .is_valid(doc)
}

#[test]
fn the_shipped_file_matches_its_schema_and_the_built_in_defaults() {
    let doc: Value = serde_json::from_str(DEFAULT_CONFIG).expect("llm.json is JSON");
    assert!(schema_accepts(&doc));
    assert_eq!(
        Config::parse(DEFAULT_CONFIG).expect("parses"),
        Config::default()
    );
    // An empty file is every default too.
    assert_eq!(Config::parse("{}").expect("parses"), Config::default());
}

#[test]
fn a_partial_preset_keeps_the_other_defaults() {
    let config = Config::parse(r#"{"claude": {"model": "sonnet"}, "codex": {"model": null}}"#)
        .expect("parses");
    assert_eq!(config.model(Preset::Claude), Some("sonnet"));
    assert_eq!(config.claude.program, "claude");
    assert_eq!(config.model(Preset::Codex), None);
    let config = Config::parse(
        r#"{"openai": {"base_url": "http://localhost:11434/v1", "api_key_env": null}}"#,
    )
    .expect("parses");
    assert_eq!(config.openai.api_key_env, None);
    assert_eq!(config.openai.model, "gpt-4.1-mini");
}

#[test]
fn bad_settings_name_the_field_and_the_schema_agrees() {
    for (doc, field) in [
        (json!({"max_rounds": 0}), "max_rounds"),
        (json!({"max_rounds": 11}), "max_rounds"),
        (json!({"claude": {"program": ""}}), "claude.program"),
        (json!({"codex": {"timeout_secs": 0}}), "codex.timeout_secs"),
        (
            json!({"openai": {"base_url": "api.openai.com"}}),
            "openai.base_url",
        ),
        (
            json!({"openai": {"api_key_env": "sk-live-123"}}),
            "openai.api_key_env",
        ),
        (json!({"openai": {"temperature": 3}}), "openai.temperature"),
        (json!({"openai": {"model": ""}}), "openai.model"),
    ] {
        let (got, reason) = Config::parse(&doc.to_string()).expect_err("refused");
        assert_eq!(got, field, "{doc}: {reason}");
        assert!(!schema_accepts(&doc), "the schema lets {doc} through");
    }
    let (field, reason) = Config::parse(r#"{"claude": {"modle": "opus"}}"#).expect_err("refused");
    assert_eq!(field, "");
    assert!(reason.contains("unknown field `modle`"), "{reason}");
    assert!(!schema_accepts(&json!({"claude": {"modle": "opus"}})));
}
