//! Integration tests of the lifecycle layer: the resume gate's golden fixtures, the monitor,
//! the packet budget, framing and rollback, the state items settled since a compaction.

#![expect(
    clippy::disallowed_methods,
    reason = "tests run the binary with the caller's PATH and honour PROPTEST_CASES"
)]

mod budget;
mod common;
mod file_changes;
mod gate;
mod lifecycle;
mod monitor;
mod settled;
mod user_words;
