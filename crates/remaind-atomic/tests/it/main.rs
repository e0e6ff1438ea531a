//! Integration tests for remaind-atomic.

#![expect(
    clippy::disallowed_methods,
    reason = "tests run the binary with the caller's PATH and honour PROPTEST_CASES"
)]

mod basic;
mod common;
mod crash;
mod ordering;
mod prop;
mod safety;
mod snapshots;
