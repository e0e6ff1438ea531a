//! The derived index at `.context/db/context.sqlite`: events by seq, kind, importance, time and
//! status, an FTS5 table over event text, tool names and artifact excerpts, and the last
//! indexed seq with its chain hash.
//!
//! It is never an authority: every read first brings it up to the ledger head incrementally,
//! and a missing, corrupt, foreign-version or chain-mismatched index is rebuilt from the
//! ledger. It reads only redacted ledger lines and knows nothing about state, compaction,
//! resume or the CLI.
