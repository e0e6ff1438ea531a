//! The command line: one module per subcommand with its clap arguments and their help (what
//! `--help` prints), apart from what the command does (`cmd/`), as a flag definition is kept
//! apart from the code that acts on it.

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

/// An event named on the command line as Remaind prints it (`e42`) or by its seq (`42`).
pub(crate) fn event_seq(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let digits = s.strip_prefix('e').unwrap_or(s);
    match digits.parse::<u64>() {
        Ok(n) if n > 0 && !digits.starts_with('+') => Ok(n),
        _ => Err(format!(
            "`{s}` is not an event; give its id or seq, e.g. e42 or 42"
        )),
    }
}
