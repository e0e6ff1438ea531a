//! The command line of `remaind log`: its arguments and their help.

use camino::Utf8PathBuf;

/// Append events to the ledger: from flags, one JSON event, or JSON Lines on stdin (one batch,
/// one fsync). Every event is validated and redacted before it touches disk; on invalid input
/// nothing is written (exit 2). Prints the assigned id(s).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
remaind log --kind decision --text \"Use SQLite for the index\" --refs e12,e14\n  \
remaind log --kind correction --text \"The port is 8443\" --supersedes e31\n  \
remaind log --kind tool_result --tool pytest --output-file out.txt --refs e40\n  \
remaind log --json-event '{\"kind\":\"next_step\",\"text\":\"Run the migration\"}'\n  \
jq -c '.[]' events.json | remaind log --stdin\n\n\
Kinds: user_message, assistant_message, tool_call, tool_result, note, trace, decision, \
constraint, file_change, result, blocker, correction, remember, next_step.")]
pub(crate) struct Args {
    /// The event's kind, e.g. `decision` (required unless --json-event or --stdin).
    #[arg(long, value_name = "KIND")]
    pub(crate) kind: Option<String>,
    /// The event's text (may start with a hyphen: `--text "-5 degrees"`; `--message` is
    /// the same flag, as in `git commit`).
    #[arg(
        long,
        value_name = "TEXT",
        allow_hyphen_values = true,
        alias = "message"
    )]
    pub(crate) text: Option<String>,
    /// Importance 0..=3 (default by kind).
    #[arg(long, value_name = "N")]
    pub(crate) importance: Option<u8>,
    /// Who produced it: user, assistant, a tool or agent name.
    #[arg(long, value_name = "NAME")]
    pub(crate) actor: Option<String>,
    /// Ids this event replaces (comma-separated or repeated).
    #[arg(long, value_name = "IDS", value_delimiter = ',')]
    pub(crate) supersedes: Vec<String>,
    /// Ids this event closes (comma-separated or repeated).
    #[arg(long, value_name = "IDS", value_delimiter = ',')]
    pub(crate) resolves: Vec<String>,
    /// Ids this event refers to (comma-separated or repeated).
    #[arg(long, value_name = "IDS", value_delimiter = ',')]
    pub(crate) refs: Vec<String>,
    /// The tool involved (its name, as in tools.yaml).
    #[arg(long, value_name = "NAME")]
    pub(crate) tool: Option<String>,
    /// Any JSON object to attach as `data`.
    #[arg(long, value_name = "JSON")]
    pub(crate) data: Option<String>,
    /// A file holding the tool's output (text or binary; large or binary output goes to
    /// artifacts/). Needs --tool, or a `tool` in --json-event.
    #[arg(long, value_name = "FILE")]
    pub(crate) output_file: Option<Utf8PathBuf>,
    /// The whole event as one JSON object.
    #[arg(
        long,
        value_name = "JSON",
        conflicts_with_all = ["kind", "text", "importance", "actor", "supersedes", "resolves", "refs", "tool", "data", "stdin"]
    )]
    pub(crate) json_event: Option<String>,
    /// Read JSON Lines from stdin, one event per line, appended as one batch (all or nothing).
    #[arg(
        long,
        conflicts_with_all = ["kind", "text", "importance", "actor", "supersedes", "resolves", "refs", "tool", "data", "output_file"]
    )]
    pub(crate) stdin: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}
