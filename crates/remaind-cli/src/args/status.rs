//! The command line of `remaind status`: its arguments and their help.

/// Show the band, the last compaction, the ledger head, the next step, the resume gate's
/// verdict and the search index's freshness. Writes nothing.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  remaind status\n  remaind status --json")]
pub(crate) struct Args {
    /// Print the status as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}
