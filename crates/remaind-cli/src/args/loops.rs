//! The command line of `remaind loops`: its arguments and their help.

/// List the open loops, or close one with a result.
///
/// An open loop is a `blocker` or `next_step` event that no later event resolved or
/// superseded. Resolving one appends a `result` event that `resolves` it: the ledger keeps
/// both. Each open loop is also a Markdown file under `.context/memory/loops/`, brought up
/// to date by these commands; a resolved one moves to `.context/memory/archive/`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
remaind loops list\n  \
remaind loops list --json --limit 10\n  \
remaind loops resolve e42 --text 'OPS-142 closed: the runner has S3 credentials'")]
pub(crate) struct Args {
    #[command(subcommand)]
    pub(crate) command: Sub,
}

#[derive(Debug, clap::Subcommand)]
pub(crate) enum Sub {
    /// The open loops, oldest first.
    List {
        /// At most this many, the newest kept.
        #[arg(long, value_name = "N", default_value_t = 50)]
        limit: usize,
        /// Print one JSON object per line.
        #[arg(long)]
        json: bool,
    },
    /// Close an open loop: append a `result` event that resolves it.
    Resolve {
        /// The loop's event id or seq, e.g. e42 or 42.
        id: String,
        /// What resolved it.
        #[arg(long, allow_hyphen_values = true)]
        text: String,
        /// Print the new event's id as JSON.
        #[arg(long)]
        json: bool,
    },
}
