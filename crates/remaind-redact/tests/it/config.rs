//! Building redactors: keys, user rules, `redaction.json`.
