//! The command line of `remaind verify`: its arguments and their help.

/// Check the ledger (every line valid, seq gapless, ids, the hash chain, the SHA-256 of every
/// referenced artifact) and the derived-file bindings (state.json bound to this exact log
/// prefix, handover.md bound to state.json, no citation of a missing event). Exits 1 naming the
/// first bad line or file.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
remaind verify\n  \
remaind verify --json | jq '.problems[0]'\n\n\
Exit codes: 0 intact, 1 a problem was found (the first bad line or file is named).")]
pub(crate) struct Args {
    /// Print the full report as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}
