//! One module per subcommand: a `run` that turns the parsed arguments (`crate::args`) into
//! one library call and prints the result.

pub(crate) mod artifact;
pub(crate) mod compact;
pub(crate) mod completions;
pub(crate) mod demo;
pub(crate) mod doctor;
pub(crate) mod events;
pub(crate) mod frame;
pub(crate) mod hook;
pub(crate) mod import;
pub(crate) mod init;
pub(crate) mod install;
pub(crate) mod log;
pub(crate) mod loops;
pub(crate) mod man;
pub(crate) mod mcp;
pub(crate) mod memory;
pub(crate) mod monitor;
pub(crate) mod redact;
pub(crate) mod reindex;
pub(crate) mod resume;
pub(crate) mod rollback;
pub(crate) mod search;
pub(crate) mod share;
pub(crate) mod status;
pub(crate) mod ui;
pub(crate) mod verify;
