//! Integration tests of the lifecycle layer: the resume gate's golden fixtures, the monitor,
//! the packet budget, framing and rollback.

mod budget;
mod common;
mod gate;
mod lifecycle;
mod monitor;
mod user_words;
