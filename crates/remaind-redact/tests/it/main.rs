//! Integration tests for `remaind-redact`.

mod config;
mod contexts;
mod determinism;
mod negative;
mod props;
mod rules;
mod support;
mod prop_fuzz_redactor;
