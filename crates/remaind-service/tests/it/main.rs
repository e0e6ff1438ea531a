//! Integration tests of remaind-service: the integrity report, the hook runner, search,
//! events, install and doctor, log, memory and import, called as a front-end calls them (one
//! test binary: one link). The CLI's suite runs the same jobs through the binary.

mod events;
mod hook;
mod import;
mod install;
mod integrity;
mod log;
mod memory;
mod search;
