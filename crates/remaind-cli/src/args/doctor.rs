//! The command line of `remaind doctor`: its arguments and their help.

/// Check the wiring: the binary on PATH, which runtimes have our hooks (in the project and
/// for the user), when each runtime's hooks last recorded something, the last hook errors,
/// and what to do about each problem.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "The project is the current folder; the ledger is --dir, else REMAIND_DIR, else \
the nearest .context/. Always exits 0: the problems are in the report.\n\n\
Examples:\n  remaind doctor\n  remaind doctor --json"
)]
pub(crate) struct Args {
    /// Print the report as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}
