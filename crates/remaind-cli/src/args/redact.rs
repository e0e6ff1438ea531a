//! The command line of `remaind redact`: its arguments and their help.

use camino::Utf8PathBuf;

/// Print text as the ledger would store it: the project's redaction rules applied (built-ins,
/// schemas/redaction.json, schemas/redaction.toml and the gitleaks files it lists). Writes
/// nothing. Use it to try a rule file, or to see what a tool's output would keep.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
printenv | remaind redact\n  \
remaind redact .env --json | jq '.redactions'\n  \
remaind redact build.log > build.redacted.log\n\n\
A bad rule file is an error naming the file and the rule (exit 1), as it is for every command \
that opens the ledger. The rules: docs/redaction.md.")]
pub(crate) struct Args {
    /// The file to read (default: stdin).
    #[arg(value_name = "FILE")]
    pub(crate) file: Option<Utf8PathBuf>,
    /// Print `{"text": …, "redactions": [{"rule", "placeholder"}, …]}` instead of the text.
    #[arg(long)]
    pub(crate) json: bool,
}
