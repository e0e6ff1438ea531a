//! The command line of `remaind frame`: its arguments and their help.

/// Record the runtime framing of the next run (workspace root, shell, OS, date and time zone,
/// model, settings) into active/framing.json. Anything not given is detected from the
/// environment; the model and settings carry over from the previous framing.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  remaind frame                                   # detect everything\n  remaind frame --model gpt-5 --set thinking=high --set sandbox=workspace-write\n  remaind frame --set thinking=                   # remove a setting\n  remaind frame --time-zone Europe/Paris --json"
)]
pub(crate) struct Args {
    /// The workspace root (default: the folder holding .context/).
    #[arg(long, value_name = "PATH")]
    pub(crate) workspace_root: Option<String>,
    /// The shell family (default: the basename of $SHELL).
    #[arg(long)]
    pub(crate) shell: Option<String>,
    /// The operating system (default: this machine's OS and architecture).
    #[arg(long)]
    pub(crate) os: Option<String>,
    /// The date the run believes it is, YYYY-MM-DD (default: today in the time zone).
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub(crate) date: Option<String>,
    /// The IANA time zone (default: the system's).
    #[arg(long, value_name = "TZ")]
    pub(crate) time_zone: Option<String>,
    /// The model in force (default: $REMAIND_MODEL, else the previous framing's).
    #[arg(long)]
    pub(crate) model: Option<String>,
    /// A setting `key=value` (repeatable); an empty value removes the key.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub(crate) settings: Vec<String>,
    /// Print the recorded framing as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}
