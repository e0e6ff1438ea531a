//! The hooks' error log, `logs/hook-errors.jsonl`: what a hook could not do, kept for the
//! user since the hook itself exits 0 and the runtime may show nothing of its stderr.

use camino::Utf8Path;
use remaind_fs::ContextDir;
use remaind_ledger::Ledger;
use serde_json::json;

use super::Hook;

/// Bytes of a failed hook's payload kept in `logs/hook-errors.jsonl`.
const KEPT_PAYLOAD_BYTES: usize = 64 * 1024;

impl Hook<'_> {
    /// Keeps a hook's error in `logs/hook-errors.jsonl`, with its payload when given, each
    /// string redacted with the project's rules (the payload left out when they cannot be
    /// read). A record that cannot be written is said on stderr.
    pub(super) fn keep_error(
        &mut self,
        ctx: &ContextDir,
        event: &str,
        message: &str,
        input: Option<&[u8]>,
    ) {
        let input = input.unwrap_or_default();
        let text = String::from_utf8_lossy(&input[..input.len().min(KEPT_PAYLOAD_BYTES)]);
        let redactor = Ledger::project_redactor(ctx.root()).ok();
        // The event name is the caller's text too (an unknown one is kept as given).
        let clean = |s: &str| {
            redactor
                .as_ref()
                .map_or_else(|| s.to_owned(), |r| r.redact_str(s).0.into_owned())
        };
        let kept = redactor
            .as_ref()
            .filter(|_| !input.is_empty())
            .map(|r| r.redact_str(&text).0.into_owned());
        let line = json!({
            "ts": jiff::Timestamp::now().to_string(),
            "hook": clean(event),
            "error": clean(message),
            "payload_bytes": input.len(),
            "payload": kept,
        });
        // Never through a symlink; the file is created 0600.
        let rel = Utf8Path::new(remaind_fs::layout::HOOK_ERRORS_PATH);
        if let Err(err) =
            remaind_fs::append_line(ctx.root(), rel, line.to_string().as_bytes(), false)
        {
            self.out.eprint(&format!(
                "remaind hook {event}: the error was not kept either: {err}"
            ));
        }
    }
}
