//! Integration tests of the lifecycle layer: the resume gate's golden fixtures, the monitor,
//! the packet budget, framing and rollback, the state items settled since a compaction.

mod budget;
mod common;
mod file_changes;
mod gate;
mod lifecycle;
mod monitor;
mod settled;
mod user_words;
