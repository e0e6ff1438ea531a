//! The framing a runtime states (a hook payload, imported transcripts), recorded through
//! the one framing channel.

use remaind_fs::ContextDir;
use remaind_ledger::Ledger;

use crate::error::chain_text;

/// Records the framing a runtime stated, only when it changes `framing.json`. A failure is
/// returned as the words to report, never as the job's failure: framing must not keep a
/// hook or an import from doing its job.
pub(crate) fn observe(
    ctx: &ContextDir,
    ledger: &Ledger,
    stated: &remaind_adapters::Framing,
) -> Option<String> {
    if stated.is_empty() {
        return None;
    }
    let req = remaind_resume::FrameRequest::from(stated);
    remaind_resume::observe_framing(ctx, ledger, &req)
        .err()
        .map(|e| chain_text(&e))
}
