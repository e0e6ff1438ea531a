//! Integration tests for `remaind-redact`.

mod config;
mod contexts;
mod corpus;
mod determinism;
mod gitleaks;
mod negative;
mod promise;
mod prop_fuzz_redactor;
mod props;
mod rules;
mod support;
