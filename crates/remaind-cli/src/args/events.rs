//! The command line of `remaind events`: its arguments and their help.

/// Print a slice of the ledger: from a seq forward, or the events before a seq (default: the
/// last N). Positional: reading a slice never parses the whole log. A filtered slice
/// (--kind, --min-importance) is read from the index when it is present and matches the
/// ledger, so a rare kind does not scan the whole log; the events are the same either way.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
remaind events                          # the last 20 events\n  \
remaind events --from 120 --limit 50\n  \
remaind events --before 300 --limit 10 --kind decision,constraint\n  \
remaind events --min-importance 2 --json | jq .text\n  \
remaind events --follow --json                # then every new event, once, in order")]
pub(crate) struct Args {
    /// First event to show, by id or seq (`e120` or `120`: events with seq >= 120).
    #[arg(long, value_name = "EVENT", conflicts_with = "before", value_parser = crate::args::event_seq)]
    pub(crate) from: Option<u64>,
    /// Show the events before this one (the closest ones), by id or seq.
    #[arg(long, value_name = "EVENT", value_parser = crate::args::event_seq)]
    pub(crate) before: Option<u64>,
    /// How many events to show.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub(crate) limit: usize,
    /// Only these kinds (comma-separated or repeated).
    #[arg(long, value_name = "KIND", value_delimiter = ',')]
    pub(crate) kind: Vec<String>,
    /// Only events of at least this importance (0..=3).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=3))]
    pub(crate) min_importance: Option<u8>,
    /// Print JSON Lines (one stored event per line).
    #[arg(long)]
    pub(crate) json: bool,
    /// After the slice, keep printing new events as they are appended, each exactly once and
    /// in order (on a replica of a shared store, the events every machine appends), until
    /// interrupted.
    #[arg(long, conflicts_with = "before")]
    pub(crate) follow: bool,
}
