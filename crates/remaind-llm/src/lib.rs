//! LLM compactors: Claude Code, Codex or any OpenAI-compatible endpoint proposes a
//! compaction, the validator judges it, and a rejection goes back to the model as a repair.
//!
//! This layer owns the presets (`claude -p`, `codex exec`, `POST …/chat/completions`) and
//! their settings (`.context/schemas/llm.json`, schema `schemas/llm.schema.json`), the
//! prompt built from the compactor protocol, and the repair loop: the validator's failures
//! (check, events, reason) and the rejected candidate go back to the model for up to
//! `max_rounds` calls, then the built-in compactor's candidate is committed instead, so a
//! compaction never ends with less than the deterministic state. Every round is a
//! `validation` event (or the `compaction` event) with its time and tokens. Prompts and
//! answers are redacted with the ledger's rules before they leave or land.
//!
//! It decides nothing (the verdict comes from `remaind-validate`, the writes from
//! `remaind-compact`'s commit path), never prints, and knows nothing of the CLI, hooks or the
//! resume packet.
//!
//! ```
//! use remaind_compact::CompactorInput;
//! use remaind_llm::{Config, Preset, prompt};
//!
//! // The shipped defaults: two rounds, Claude Code with a small model.
//! let config = Config::default();
//! assert_eq!(config.max_rounds, 2);
//! assert_eq!(config.model(Preset::Claude), Some("haiku"));
//!
//! // The prompt a model receives for an empty first compaction.
//! let input = CompactorInput::new(None, &[], 0, &"0".repeat(64));
//! let text = prompt::build(&input);
//! assert!(text.contains("latest_user_instruction"));
//! assert!(text.ends_with("}\n"));
//! ```

mod backend;
mod config;
mod error;
mod http;
pub mod prompt;
mod repair;

pub use backend::Tokens;
pub use config::{
    CONFIG_PATH, CONFIG_SCHEMA, CliPreset, Config, DEFAULT_CONFIG, HttpPreset, Preset,
};
pub use error::{Error, Result};
pub use repair::{LlmOptions, LlmOutcome, Round, compact_llm};
