//! The command line of `remaind rollback`: its arguments and their help.

/// Restore every derived file (state.json, handover.md, framing.json, resume_packet.md) to its
/// version as of a time, keeping the current versions in history so the rollback can itself
/// be rolled back. logs/events.jsonl is never touched.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  remaind rollback --list\n  remaind rollback --to 2026-11-21T21:03:35.123456Z\n  remaind rollback --to 2026-11-21T21:03:35.123456Z --json   # prints undo_to"
)]
pub(crate) struct Args {
    /// Restore the derived files as of this RFC 3339 time.
    #[arg(
        long,
        value_name = "TIME",
        required_unless_present = "list",
        conflicts_with = "list"
    )]
    pub(crate) to: Option<String>,
    /// List the history points of the derived files.
    #[arg(long)]
    pub(crate) list: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}
