//! Integration tests of remaind-llm: the prompt a model receives (golden) and the settings
//! file. The presets themselves run against stand-ins in the CLI's suite
//! (`crates/remaind-cli/tests/it/llm_cli.rs`), where PATH and a loopback server are per process.

mod config;
mod prompt;
