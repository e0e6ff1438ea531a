//! The command line of `remaind hook`: its arguments and their help.

use remaind_adapters::Runtime;

/// Seconds the PreCompact hook gives an LLM preset: the recipe's 120 s hook timeout minus
/// room for the built-in fallback and the writes.
const DEFAULT_HOOK_LIMIT: u64 = 100;

/// Run as a runtime's hook (Claude Code, Codex, Cursor, Gemini CLI, OpenCode): read the hook's
/// JSON payload on stdin and act on it.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "The folder is --dir, else REMAIND_DIR, else the nearest .context/ from the \
payload's `cwd`. Without one the hook does nothing and exits 0, so a project opts in with \
`remaind init`. The runtime is Codex when the payload has a `turn_id` (or a transcript under \
.codex/), else Claude Code. Configuration: examples/claude-code/settings.json, \
examples/codex/hooks.json and docs/guide.md.\n\n\
Examples:\n  \
remaind hook session-start < examples/claude-code/samples/session-start.json\n  \
remaind hook post-tool-use < examples/claude-code/samples/post-tool-use.json\n  \
remaind hook --runtime codex stop < examples/codex/samples/stop.json\n  \
echo '{\"prompt\": \"Ship it\", \"cwd\": \".\"}' | remaind hook user-prompt-submit\n\n\
Events recorded: session-start (injects the packet), user-prompt-submit, post-tool-use, \
post-tool-use-failure, permission-request, notification, subagent-start, subagent-stop, stop, \
stop-failure, pre-compact (compacts), post-compact, session-end. Recall: user-prompt-submit \
adds the past decisions, rules, instructions and failures that bear on the prompt (Gemini \
CLI's BeforeAgent too), and pre-tool-use on Read, Edit, MultiEdit, Write or NotebookEdit adds \
the file's history (Gemini CLI's AfterTool on read_file, replace, write_file), each within a \
small budget and never twice in a session; the `recall` section of \
.context/schemas/thresholds.json turns them off. Accepted and ignored: setup, task-created, task-completed, teammate-idle, instructions-loaded, \
config-change, cwd-changed, file-changed, worktree-create, worktree-remove, elicitation, \
elicitation-result.\n\n\
Cursor, Gemini CLI and OpenCode: `remaind hook RUNTIME EVENT` with the runtime's own event \
name (examples/cursor/hooks.json, examples/gemini/settings.json, examples/opencode/remaind.js; \
`remaind install RUNTIME` wires them). Each maps onto the events above: Cursor \
beforeSubmitPrompt, Gemini BeforeAgent and OpenCode chat.message are the prompt; Cursor \
postToolUse, postToolUseFailure, afterShellExecution, afterFileEdit, afterMCPExecution, Gemini \
AfterTool and OpenCode tool.execute.after are tool results and failures; Cursor \
afterAgentResponse and stop, Gemini AfterAgent and OpenCode session.idle and session.error end \
the turn; Cursor preCompact, Gemini PreCompress and OpenCode experimental.session.compacting \
compact; Cursor sessionStart, Gemini SessionStart and OpenCode \
experimental.chat.system.transform inject the packet (Gemini's next BeforeAgent again after a \
PreCompress, OpenCode's compaction too). These hooks always exit 0.\n\n\
Examples (Cursor, Gemini CLI):\n  \
remaind hook cursor beforeSubmitPrompt < fixtures/hooks/cursor/beforeSubmitPrompt.json\n  \
remaind hook gemini AfterTool < fixtures/hooks/gemini/AfterTool.json"
)]
pub(crate) struct Args {
    /// The hook event, e.g. `session-start`, `post-tool-use-failure` (the runtime's name,
    /// `SessionStart`, works too). An event Remaind does not know does nothing and exits 0,
    /// said in .context/logs/hook-errors.jsonl.
    /// `remaind hook cursor sessionStart`: the runtime first (cursor, gemini, opencode,
    /// claude-code, codex), then its event in its own spelling.
    #[arg(value_name = "EVENT")]
    pub(crate) event: String,
    /// With a runtime as the first argument: the runtime's event, e.g. `beforeSubmitPrompt`
    /// (Cursor), `BeforeAgent` (Gemini CLI), `tool.execute.after` (OpenCode).
    #[arg(value_name = "RUNTIME_EVENT")]
    pub(crate) runtime_event: Option<String>,
    /// The runtime that sent the payload (default: read from the payload).
    #[arg(long, value_enum)]
    pub(crate) runtime: Option<Runtime>,
    /// pre-compact: ask this LLM preset (claude, codex, openai; settings in
    /// .context/schemas/llm.json) instead of the built-in compactor. Whatever goes wrong with
    /// the model, the built-in candidate is committed instead.
    #[arg(long, value_name = "PRESET", value_parser = ["claude", "codex", "openai"])]
    pub(crate) llm: Option<String>,
    /// pre-compact with --llm: seconds all model rounds may take. Keep it below the hook's
    /// `timeout` (the default fits the 120 s of examples/claude-code/settings.json).
    #[arg(long, value_name = "SECS", requires = "llm", default_value_t = DEFAULT_HOOK_LIMIT,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) time_limit: u64,
}
