//! PreCompact: the runtime is about to compact its context, so Remaind compacts too, through
//! the validator, on the ledger the hook already opened. An LLM preset proposes first when
//! one is named; whatever goes wrong with the model, the built-in compactor's candidate is
//! committed instead.

use remaind_adapters::Runtime;
use remaind_adapters::runtimes::Inject;
use remaind_fs::ContextDir;
use remaind_ledger::Ledger;

use super::{Call, Hook, reinject};
use crate::compact::compact_on;
use crate::error::chain_text;
use crate::{CompactRequest, Compacted, Compactor, Error, Result};

/// The exit code of a rejected compaction (docs/contract.md): a non-blocking error for the
/// runtimes that show it.
const REJECTED: u8 = 3;

impl Hook<'_> {
    /// Compacts after the PreCompact call was recorded, then hands the packet to OpenCode's
    /// compaction or leaves Gemini CLI's next prompt the flag to inject it again.
    pub(super) fn pre_compact(
        &mut self,
        ctx: &ContextDir,
        ledger: &Ledger,
        call: &Call<'_>,
    ) -> Result<u8> {
        if ledger.head()?.0 == 0 {
            // Nothing to compact: record nothing (a `validation` event would make every later
            // SessionStart interrupt).
            return Ok(0);
        }
        // Claude Code and Codex show a plain line on stdout and read exit 3 as a
        // non-blocking error; the others read stdout as JSON and want exit 0.
        let plain = call.runtime.reads_transcripts();
        let code = match self.call.llm {
            Some(preset) => self.compact_llm(ctx, ledger, preset, plain)?,
            None => self.compact_builtin(ctx, ledger, plain)?,
        };
        match call.inject {
            Inject::IntoCompaction => {
                self.session_start(ctx, Some(ledger), call, "PreCompact")?;
            }
            _ if call.runtime == Runtime::Gemini => reinject::set(ctx, &mut self.out),
            _ => {}
        }
        Ok(if plain { code } else { 0 })
    }

    fn compact_llm(
        &mut self,
        ctx: &ContextDir,
        ledger: &Ledger,
        name: &str,
        plain: bool,
    ) -> Result<u8> {
        let preset = remaind_llm::Preset::from_name(name).unwrap_or(remaind_llm::Preset::Claude);
        let llm = Compactor::Llm {
            preset,
            model: None,
            time_limit: Some(self.call.time_limit),
        };
        let attempt = CompactRequest::new(llm, false).and_then(|r| compact_on(ctx, ledger, &r));
        match attempt {
            Ok(done) if done.outcome().verdict.accepted => {
                self.say(plain, &accepted(&done));
                Ok(0)
            }
            Ok(_) => self.compact_builtin(ctx, ledger, plain),
            Err(e) => {
                self.out.eprint(&format!(
                    "remaind: {}; using the built-in compactor",
                    llm_failure(e)
                ));
                self.compact_builtin(ctx, ledger, plain)
            }
        }
    }

    fn compact_builtin(&mut self, ctx: &ContextDir, ledger: &Ledger, plain: bool) -> Result<u8> {
        let builtin = CompactRequest::new(Compactor::Builtin, false)?;
        let compacted = compact_on(ctx, ledger, &builtin)?;
        let outcome = compacted.outcome();
        if outcome.verdict.accepted {
            self.say(plain, &accepted(&compacted));
            Ok(0)
        } else {
            let failed: Vec<&str> = outcome
                .verdict
                .failed_checks()
                .into_iter()
                .map(|c| c.as_str())
                .collect();
            self.out.eprint(&format!(
                "remaind: compaction rejected through e{}: failed {}",
                outcome.through_seq,
                failed.join(", ")
            ));
            Ok(REJECTED)
        }
    }

    /// A compaction's outcome line: on stdout for a runtime that shows it, else on stderr
    /// (the runtime reads stdout as JSON).
    fn say(&mut self, plain: bool, line: &str) {
        if plain {
            self.out.print(line);
        } else {
            self.out.eprint(line);
        }
    }
}

/// The line that says a compaction was accepted: with an LLM preset, by whom, in how many
/// rounds, seconds and tokens.
fn accepted(compacted: &Compacted) -> String {
    match compacted {
        Compacted::Once(outcome) => format!(
            "remaind: compaction accepted through e{}",
            outcome.through_seq
        ),
        Compacted::Llm(done) => {
            let by = if done.fell_back {
                "the built-in compactor (fallback)"
            } else {
                done.label.as_str()
            };
            format!(
                "remaind: compaction accepted through e{} by {by} ({} round(s), {:.1}s, {} \
tokens)",
                done.outcome.through_seq,
                done.rounds.len(),
                done.seconds,
                done.tokens.input + done.tokens.output
            )
        }
    }
}

/// A failed model call's words, as `remaind compact --llm` says them (a failure with no
/// cause below it says that nothing was written); the history store that could not be
/// opened, as the model's commit path words it.
fn llm_failure(e: Error) -> String {
    match e {
        Error::Compact(e) => chain_text(&remaind_llm::Error::from(e)),
        e => chain_text(&e),
    }
}
