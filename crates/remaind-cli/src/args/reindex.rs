//! The command line of `remaind reindex`: its arguments and their help.

/// Rebuild the search index (.context/db/context.sqlite) from the ledger, from scratch.
///
/// The index is derived and never an authority: every command that reads it brings it up to
/// date by itself. Use this after restoring a backup, or to compact the index file.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "A progress bar is drawn on stderr when it is a terminal.\n\n\
Examples:\n  remaind reindex\n  remaind reindex --quiet\n  remaind reindex --json"
)]
pub(crate) struct Args {
    /// No progress bar and no summary (errors are still reported).
    #[arg(long, short)]
    pub(crate) quiet: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}
