//! The command line of `remaind compact`: its arguments and their help.

use camino::Utf8PathBuf;

/// Fold the events since the last accepted compaction into a new state.json and handover.md.
///
/// A compactor only proposes a candidate: the built-in deterministic one (default), a
/// candidate folder, an external command (docs/compactor-protocol.md), or an LLM preset
/// (`--llm claude|codex|openai`, settings in .context/schemas/llm.json) whose rejected
/// candidates go back to the model with the validator's failures, up to `max_rounds` calls,
/// before the built-in candidate is used instead. The validator decides. Accepted: both files are written atomically with history and a `compaction`
/// event is appended (exit 0). Rejected: the files stay byte for byte, a `validation` event
/// records every failed check with its event ids, and the verdict is printed (exit 3).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
remaind compact\n  \
remaind compact --dry-run --json\n  \
remaind compact --candidate ./candidate\n  \
remaind compact --compactor 'python3 summarize.py' --timeout 300\n  \
remaind compact --llm claude\n  \
remaind compact --llm openai --model gpt-4.1-mini --json\n  \
remaind compact --llm codex --time-limit 100\n\n\
Exit codes: 0 accepted (with --llm: the model's candidate or the built-in fallback), 1 runtime \
failure (with --llm: a missing CLI or key, an unreachable endpoint, a timeout, an HTTP error, \
an answer that is not JSON; nothing written), 2 invalid input, 3 rejected by the validator.")]
pub(crate) struct Args {
    /// Use the candidate in DIR (state.json and handover.md) instead of the built-in compactor.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["compactor", "llm"])]
    pub(crate) candidate: Option<Utf8PathBuf>,
    /// Run `sh -c CMD` as the compactor: the prior state and the new events as JSON on stdin,
    /// a candidate `{"state": …, "handover": "…"}` on stdout.
    #[arg(long, value_name = "CMD", conflicts_with = "llm")]
    pub(crate) compactor: Option<String>,
    /// Ask an LLM preset for the candidate: `claude` (Claude Code, `claude -p`), `codex`
    /// (`codex exec`) or `openai` (any OpenAI-compatible endpoint); settings in
    /// .context/schemas/llm.json.
    #[arg(long, value_name = "PRESET", value_parser = ["claude", "codex", "openai"])]
    pub(crate) llm: Option<String>,
    /// With --llm: the model to ask instead of the configured one.
    #[arg(long, value_name = "MODEL", requires = "llm")]
    pub(crate) model: Option<String>,
    /// With --llm: seconds all rounds together may take; when too little is left for another
    /// round, the built-in candidate is used.
    #[arg(long, value_name = "SECS", requires = "llm", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) time_limit: Option<u64>,
    /// Seconds before the compactor command (and everything it started) is killed [default: 120].
    #[arg(long, value_name = "SECS", requires = "compactor", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) timeout: Option<u64>,
    /// Validate and print the verdict, but write nothing and append nothing.
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Print the verdict as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}
