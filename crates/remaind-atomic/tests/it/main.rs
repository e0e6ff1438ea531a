//! Integration tests for remaind-atomic.

mod basic;
mod common;
mod crash;
mod ordering;
mod prop;
mod safety;
mod snapshots;
