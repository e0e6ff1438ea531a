//! The command line of `remaind monitor`: its arguments and their help.

/// Classify the context's token use into a band (normal, warning, hard, emergency) and record a
/// band change as a `monitor` event.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  remaind monitor --used 142000          # the agent reports its count\n  remaind monitor --used 90000 --window 128000 --json\n  remaind monitor                        # count the tokens a resume would load now"
)]
pub(crate) struct Args {
    /// Tokens the agent has used; without it, Remaind counts the tokens of the packet a resume
    /// would load now with the configured tokenizer.
    #[arg(long, value_name = "N")]
    pub(crate) used: Option<u64>,
    /// Context window in tokens (default: `context_window` in thresholds.json).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) window: Option<u64>,
    /// Print the result as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}
