//! What a hook hands back to the runtime as context: the resume packet at a session's start
//! (or after a compaction), and recall, the past events that bear on a prompt or on the file
//! the agent is about to read or edit. Never the hook's failure when recall goes wrong: the
//! problem is kept in `hook-errors.jsonl`.

use camino::Utf8Path;
use remaind_adapters::{HookEvent, Runtime};
use remaind_fs::ContextDir;
use remaind_ledger::Ledger;
use serde_json::{Map, Value, json};

use super::{Call, Hook};
use crate::Result;
use crate::error::chain_text;

/// The tools that read or edit one file, and where their input names it: Claude Code's (at
/// PreToolUse) and Gemini CLI's (at AfterTool).
const FILE_TOOLS: &[(&str, &[&str])] = &[
    ("Read", &["file_path"]),
    ("Edit", &["file_path"]),
    ("MultiEdit", &["file_path"]),
    ("Write", &["file_path"]),
    ("NotebookEdit", &["notebook_path"]),
    ("read_file", &["absolute_path", "file_path", "path"]),
    ("replace", &["file_path", "absolute_path", "path"]),
    ("write_file", &["file_path", "absolute_path", "path"]),
];

impl Hook<'_> {
    /// Prints the packet in the output `runtime` reads for `hook_event` (Cursor's
    /// sessionStart: `additional_context`; the others: `hookSpecificOutput.additionalContext`).
    pub(super) fn session_start(
        &mut self,
        ctx: &ContextDir,
        ledger: Option<&Ledger>,
        call: &Call<'_>,
        hook_event: &str,
    ) -> Result<u8> {
        let runtime = call.runtime;
        // A fresh project: nothing to resume, nothing to inject, nothing written.
        if let Some(context) = remaind_resume::session_context(ctx, ledger, runtime)? {
            let out = match runtime {
                Runtime::Cursor => json!({ "additional_context": context }),
                _ => {
                    let mut out = remaind_adapters::session_start_output(&context);
                    out["hookSpecificOutput"]["hookEventName"] = json!(hook_event);
                    out
                }
            };
            self.out.print(&out.to_string());
            // What the packet cites is not recalled to this session again.
            let session = session_of(call.payload);
            if let Err(e) = remaind_recall::session_started(ctx.root(), &session, &context) {
                self.keep_recall_error(ctx, &e);
            }
        }
        Ok(0)
    }

    /// Prints `text` as context the runtime adds for `hook_event` (every runtime that recalls
    /// reads `hookSpecificOutput.additionalContext`).
    pub(super) fn print_context(&mut self, hook_event: &str, text: &str) {
        let mut out = remaind_adapters::session_start_output(text);
        out["hookSpecificOutput"]["hookEventName"] = json!(hook_event);
        self.out.print(&out.to_string());
    }

    /// Per-prompt recall (Claude Code's and Codex's UserPromptSubmit, Gemini CLI's
    /// BeforeAgent): the text of the past events that bear on the prompt, to add as context.
    /// Cursor's and OpenCode's prompt hooks take no context.
    pub(super) fn recall_prompt(
        &mut self,
        ctx: &ContextDir,
        ledger: &Ledger,
        call: &Call<'_>,
    ) -> Option<String> {
        if matches!(call.runtime, Runtime::Cursor | Runtime::OpenCode) {
            return None;
        }
        let prompt = call.payload.get("prompt").and_then(Value::as_str)?;
        let session = session_of(call.payload);
        match remaind_recall::for_prompt(ledger, &session, prompt) {
            Ok(recalled) => recalled.map(|r| r.text),
            Err(e) => {
                self.keep_recall_error(ctx, &e);
                None
            }
        }
    }

    /// File recall: when the agent reads or edits a file the ledger has history for, that
    /// history as context; silent otherwise. Never blocks or changes the tool call.
    /// `ledger` is opened here when the hook has none (Claude Code's PreToolUse records
    /// nothing, so it opened none).
    pub(super) fn recall_file(
        &mut self,
        ctx: &ContextDir,
        ledger: Option<&Ledger>,
        call: &Call<'_>,
        workspace: &Utf8Path,
    ) {
        let tool = call.payload.get("tool_name").and_then(Value::as_str);
        let Some((_, keys)) = FILE_TOOLS.iter().find(|(name, _)| Some(*name) == tool) else {
            return;
        };
        let input = call.payload.get("tool_input");
        let Some(path) = keys
            .iter()
            .find_map(|k| input.and_then(|i| i.get(*k)).and_then(Value::as_str))
        else {
            return;
        };
        let opened;
        let ledger = match ledger {
            Some(l) => l,
            None => match Ledger::open(ctx.root()) {
                Ok(l) => {
                    opened = l;
                    &opened
                }
                // The store is away or the ledger does not open: no history this time.
                Err(_) => return,
            },
        };
        let session = session_of(call.payload);
        match remaind_recall::for_file(ledger, &session, path, workspace) {
            Ok(Some(recalled)) => {
                let hook_event = call.origin.unwrap_or(HookEvent::PreToolUse.as_str());
                self.print_context(hook_event, &recalled.text);
            }
            Ok(None) => {}
            Err(e) => self.keep_recall_error(ctx, &e),
        }
    }

    fn keep_recall_error(&mut self, ctx: &ContextDir, e: &remaind_recall::Error) {
        let message = format!("recall was skipped: {}", chain_text(e));
        self.keep_error(ctx, "recall", &message, None);
    }
}

/// The session a payload belongs to (Cursor names it `conversation_id`); one shared record
/// for a runtime that names none.
fn session_of(payload: &Map<String, Value>) -> String {
    ["session_id", "conversation_id"]
        .iter()
        .find_map(|k| payload.get(*k).and_then(Value::as_str))
        .filter(|s| !s.is_empty())
        .unwrap_or("unnamed")
        .to_owned()
}
