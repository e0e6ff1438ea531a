//! The command line of `remaind artifact`: its arguments and their help.

/// Read artifacts: large or binary payloads routed out of events, stored by SHA-256.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
remaind artifact show 3f2a…(64 hex digits) > output.bin\n  \
remaind artifact show 41641196f98c   # the short id of an `[artifact:41641196f98c]` marker\n  \
remaind events --json | jq -r '.artifact[]?.sha256' | xargs -n1 remaind artifact show\n  \
remaind artifact list")]
pub(crate) struct Args {
    #[command(subcommand)]
    pub(crate) command: Sub,
}

#[derive(Debug, clap::Subcommand)]
pub(crate) enum Sub {
    /// Print one artifact's raw bytes to stdout (its hash is checked first).
    Show {
        /// The artifact's SHA-256 (64 hex digits, as in an event's `artifact` record), or a
        /// unique prefix of at least 8 (the short id of an `[artifact:…]` marker).
        hash: String,
    },
    /// List the hashes of all stored artifacts.
    List {
        /// Print a JSON array.
        #[arg(long)]
        json: bool,
    },
}
