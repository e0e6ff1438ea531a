//! Recording a hook call: the folder found once and the ledger opened once, the transcript
//! followed at a turn's edges, the payload's events appended, and what each event adds on
//! top (the packet, recall, a compaction).

use camino::Utf8Path;
use remaind_adapters::runtimes::Inject;
use remaind_adapters::{HookEvent, Runtime};
use remaind_fs::ContextDir;
use remaind_ledger::Ledger;
use serde_json::Value;

use super::outbox::store_unreachable;
use super::{Call, Hook, reinject};
use crate::Result;
use crate::error::chain_text;

impl Hook<'_> {
    /// Records `call` in the folder its payload leads to, and returns the exit code.
    pub(super) fn handle(&mut self, call: &Call<'_>) -> Result<u8> {
        let (runtime, event, payload) = (call.runtime, call.event, call.payload);
        if !event.records() {
            // Accepted: the runtime documents it, and it carries nothing to record. Claude
            // Code's PreToolUse may bring a file's history before the agent reads or edits it.
            if event == HookEvent::PreToolUse && runtime == Runtime::ClaudeCode {
                let workspace = self.start_dir(payload)?;
                if let Some(ctx) = self.find_context(&workspace)? {
                    self.recall_file(&ctx, None, call, &workspace);
                }
            }
            return Ok(0);
        }
        let workspace = self.start_dir(payload)?;
        let Some(ctx) = self.find_context(&workspace)? else {
            self.out.eprint(&format!(
                "remaind hook: no .context/ in {workspace} or any folder above it; the hook did \
nothing (run `remaind init` in the project to opt in, or pass --dir)"
            ));
            return Ok(0);
        };
        self.found = Some(ctx.clone());
        if event == HookEvent::SessionStart {
            // A ledger that does not open is the gate's to report, in the packet.
            let ledger = match Ledger::open(ctx.root()) {
                Ok(ledger) => {
                    self.drain_outbox(&ctx, &ledger);
                    self.observe(&ctx, &ledger, call, &workspace);
                    Some(ledger)
                }
                Err(e) if store_unreachable(&e) => self.local_copy_only(&ctx, "session-start", &e),
                Err(_) => None,
            };
            reinject::clear(&ctx);
            return self.session_start(&ctx, ledger.as_ref(), call, "SessionStart");
        }
        let ledger = match Ledger::open(ctx.root()) {
            Ok(ledger) => ledger,
            Err(e) if store_unreachable(&e) => return self.defer(&ctx, call, &chain_text(&e)),
            Err(e) => return Err(e.into()),
        };
        // What waited while the store was away goes in first, in order.
        if !self.drain_outbox(&ctx, &ledger) {
            let why = "the shared store went away while the outbox was appended";
            return self.defer(&ctx, call, why);
        }
        self.record_turn(&ctx, &ledger, call, &workspace)
    }

    /// Records an event of a turn, with the context it adds: a prompt's recall, the packet
    /// again after Gemini CLI compressed, a file's history, a compaction.
    fn record_turn(
        &mut self,
        ctx: &ContextDir,
        ledger: &Ledger,
        call: &Call<'_>,
        workspace: &Utf8Path,
    ) -> Result<u8> {
        let (runtime, event) = (call.runtime, call.event);
        let reinject = call.inject == Inject::AfterCompaction && reinject::take(ctx);
        // Recalled before the prompt is recorded, so its own words do not count as known.
        let recalled = (event == HookEvent::UserPromptSubmit && !call.interrupted && !reinject)
            .then(|| self.recall_prompt(ctx, ledger, call))
            .flatten();
        self.record_call(ctx, ledger, call, workspace, None)?;
        if reinject {
            // Gemini CLI compressed its history after PreCompress: the packet goes back in here.
            return self.session_start(ctx, Some(ledger), call, "BeforeAgent");
        }
        if let Some(text) = recalled {
            let hook_event = call.origin.unwrap_or(HookEvent::UserPromptSubmit.as_str());
            self.print_context(hook_event, &text);
        }
        if event == HookEvent::PostToolUse && runtime == Runtime::Gemini {
            // Gemini CLI adds context to a tool's result, not before it.
            self.recall_file(ctx, Some(ledger), call, workspace);
        }
        if event == HookEvent::PreCompact {
            return self.pre_compact(ctx, ledger, call);
        }
        Ok(0)
    }

    /// Records one hook call: what the transcript says happened before it, then its
    /// payload's events. `outbox` names a call replayed from the outbox (kept as
    /// `data.origin.line`).
    pub(super) fn record_call(
        &mut self,
        ctx: &ContextDir,
        ledger: &Ledger,
        call: &Call<'_>,
        workspace: &Utf8Path,
        outbox: Option<&str>,
    ) -> Result<()> {
        let mut records = call_records(call)?;
        self.observe(ctx, ledger, call, workspace);
        for rec in &mut records {
            if rec.source.line.is_none() {
                rec.source.line = outbox.map(str::to_owned);
            }
        }
        remaind_adapters::record(ledger, records)?;
        Ok(())
    }

    /// The hooks at a turn's edges read the runtime's transcript since the last hook did
    /// (what no payload carries: an interrupt, the model); every hook records the framing
    /// its payload states. Neither ever fails the hook: a problem is said on stderr.
    fn observe(
        &mut self,
        ctx: &ContextDir,
        ledger: &Ledger,
        call: &Call<'_>,
        workspace: &Utf8Path,
    ) {
        let (runtime, event, payload) = (call.runtime, call.event, call.payload);
        let mut framing = remaind_adapters::Framing::default();
        // Before a compaction too, so it sees the interrupts and queued prompts.
        let at_an_edge = matches!(
            event,
            HookEvent::SessionStart
                | HookEvent::UserPromptSubmit
                | HookEvent::Stop
                | HookEvent::StopFailure
                | HookEvent::PreCompact
                | HookEvent::SessionEnd
        );
        let transcript = payload
            .get("transcript_path")
            .and_then(Value::as_str)
            .map(camino::Utf8PathBuf::from)
            .filter(|p| {
                at_an_edge && runtime.reads_transcripts() && p.is_absolute() && p.is_file()
            });
        if let Some(path) = transcript {
            match remaind_adapters::follow_transcript(ledger, runtime, &path) {
                Ok(followed) => framing = followed.framing,
                Err(e) => self.out.eprint(&format!(
                    "remaind: the transcript was not followed: {}",
                    chain_text(&e)
                )),
            }
        }
        let mut stated = remaind_adapters::hook_framing(payload);
        if stated.workspace.is_some() {
            // A relative `cwd` (the samples say ".") names the folder it resolves to.
            stated.workspace = Some(workspace.to_string());
        }
        if let Some(label) = &call.label {
            stated.settings.insert("runtime".to_owned(), label.clone());
        }
        framing.merge(stated);
        self.record_framing(ctx, ledger, &framing);
    }

    /// Records the framing the runtime stated through the one framing channel, only when it
    /// changes `framing.json`. Never the hook's failure: said on stderr.
    fn record_framing(
        &mut self,
        ctx: &ContextDir,
        ledger: &Ledger,
        stated: &remaind_adapters::Framing,
    ) {
        if let Some(why) = crate::framing::observe(ctx, ledger, stated) {
            self.out.eprint(&format!(
                "remaind: the runtime framing was not recorded: {why}"
            ));
        }
    }
}

/// The events a call's payload maps to (an interrupt when the user stopped the turn).
pub(super) fn call_records(call: &Call<'_>) -> Result<Vec<remaind_adapters::Record>> {
    let mut records = if call.interrupted {
        let mut source = remaind_adapters::Source::new(call.runtime);
        source.session = call
            .payload
            .get("session_id")
            .and_then(Value::as_str)
            .map(str::to_owned);
        vec![remaind_adapters::Record {
            source,
            signal: remaind_adapters::Signal::Interrupt,
        }]
    } else {
        remaind_adapters::hook_records(call.runtime, call.event, call.payload)?
    };
    if let Some(origin) = call.origin {
        for rec in &mut records {
            rec.source.hook = Some(origin.to_owned());
        }
    }
    Ok(records)
}
