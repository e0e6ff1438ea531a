//! Secret detection and deterministic placeholders.
//!
//! This layer owns the built-in secret rules, user rules from `redaction.json`, and the keyed
//! placeholder scheme. It knows nothing about files, events or the ledger: it turns text or
//! bytes into redacted text or bytes plus a list of what it replaced. No secret byte survives
//! in its output and no placeholder contains one.
