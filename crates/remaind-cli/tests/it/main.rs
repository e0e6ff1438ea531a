//! Integration tests of the `remaind` binary.

#![expect(
    clippy::disallowed_methods,
    reason = "tests run the binary with the caller's PATH and honour PROPTEST_CASES"
)]

mod capture_cli;
mod common;
mod docs_commands;
mod everyday;
mod fleet_chaos;
mod fleet_cli;
mod fleet_guide;
mod hook_limits;
mod index_cli;
mod init_cli;
mod ledger_cli;
mod lifecycle_cli;
mod llm_cli;
mod mcp_cli;
mod memory_cli;
mod prop_turns;
mod recall_cli;
mod redact_cli;
mod reliability;
mod rough_edges;
mod runtime_hooks;
mod runtimes_cli;
mod search_limits;
mod transcripts;

#[path = "../../src/demo_secrets.rs"]
mod demo_secrets;
