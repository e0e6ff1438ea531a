//! Integration tests of remaind-service: the integrity report, the hook runner, search and
//! events, called as a front-end calls them (one test binary: one link). The CLI's suite runs
//! the same jobs through the binary.

mod events;
mod hook;
mod install;
mod integrity;
mod log;
mod memory;
mod search;
