//! The packet as a runtime's SessionStart hook injects it: first how to take it (the turn
//! ended normally, or the gate interrupts with its reasons), then the packet fitted to what the
//! runtime takes. The full packet is always written to `active/resume_packet.md`; a shortened
//! one ends with a pointer to it.

use remaind_adapters::{InjectionLimit, Runtime};
use remaind_ledger::{Ledger, LogReader};

use crate::Error;
use crate::conv::open_ledger;
use crate::gate::ReasonCode;
use crate::layout::ContextDir;
use crate::packet::{Budget, Counting, build_counting, show_from};

/// The gate's interruption as an agent reads it: stop, tell the user these reasons, ask.
/// Each reason is `(code, message)`.
fn interrupt_text<'r>(reasons: impl IntoIterator<Item = (&'r str, &'r str)>) -> String {
    let mut text = String::from(
        "REMAIND RESUME GATE: INTERRUPT. Do not continue the planned work; tell the user these \
reasons and ask how to proceed:\n",
    );
    for (code, message) in reasons {
        text.push_str(&format!("- {code}: {message}\n"));
    }
    text
}

/// What a SessionStart hook of `runtime` injects: `None` for a ledger with no events (nothing
/// to resume, nothing written). A log changed outside Remaind is an interruption for the
/// agent, not a failure of the hook.
///
/// `ledger` is the folder's ledger as the caller opened it: through its shared store, or
/// the folder's own copy (`Options { store: Some(None), .. }`) while the store is away; `None`
/// when it did not open, and this opens it (a log changed outside Remaind is then told).
///
/// ```no_run
/// # fn main() -> Result<(), remaind_resume::Error> {
/// use remaind_adapters::Runtime;
/// let ctx = remaind_fs::ContextDir::new(".context");
/// if let Some(context) = remaind_resume::session_context(&ctx, None, Runtime::Codex)? {
///     println!("{}", remaind_adapters::session_start_output(&context));
/// }
/// # Ok(())
/// # }
/// ```
pub fn session_context(
    ctx: &ContextDir,
    ledger: Option<&Ledger>,
    runtime: Runtime,
) -> Result<Option<String>, Error> {
    match LogReader::open(ctx.root()).and_then(|log| log.head()) {
        Ok((0, _)) => return Ok(None),
        Ok(_) => {}
        Err(e @ remaind_ledger::Error::Tampered { .. }) => {
            let reason = e.to_string();
            return Ok(Some(interrupt_text([("ledger_tampered", reason.as_str())])));
        }
        Err(e) => return Err(e.into()),
    }
    let opened;
    let ledger = match ledger {
        Some(ledger) => ledger,
        None => {
            opened = open_ledger(ctx)?;
            &opened
        }
    };
    let full = show_from(ctx, ledger, Budget::Configured)?;
    let mut context = String::new();
    let only_turn_ended = full.turn_ended.is_some()
        && full
            .reasons
            .iter()
            .all(|r| r.code == ReasonCode::NoNextStep);
    if only_turn_ended {
        // The normal end of a session: calm words, not an alarm.
        context.push_str(
            "REMAIND: the last turn ended and the agent handed control back to the user. \
Nothing is pending as current: wait for the user's next instruction and do not redo finished \
work.\n\n",
        );
    } else if !full.proceed {
        let reasons = full
            .reasons
            .iter()
            .map(|r| (r.code.as_str(), r.message.as_str()));
        context.push_str(&interrupt_text(reasons));
        context.push('\n');
    }
    let room = runtime
        .injection_limit()
        .max_chars
        .saturating_sub(context.len());
    context.push_str(&fitted_packet(ctx, ledger, runtime, full.packet, room)?);
    Ok(Some(context))
}

/// `packet` if it fits in `room` characters and the runtime's tokens; else a packet rebuilt
/// within a smaller budget until it fits, with a pointer to the full one.
fn fitted_packet(
    ctx: &ContextDir,
    ledger: &Ledger,
    runtime: Runtime,
    packet: String,
    room: usize,
) -> Result<String, Error> {
    let InjectionLimit { max_tokens, .. } = runtime.injection_limit();
    // At most one token per byte: a packet that fits in characters and whose bytes are
    // within the token limit fits without a count; otherwise it is counted.
    let mut tokens = None;
    let fits = packet.len() <= room
        && (packet.len() as u64 <= max_tokens || {
            let exact = build_counting(ctx, ledger, Budget::Configured, Counting::Exact)?.tokens;
            tokens = Some(exact);
            exact <= max_tokens
        });
    if fits {
        return Ok(packet);
    }
    let pointer = format!(
        "\n(Shortened to fit {runtime}'s hook limit. The full packet is {}; read it, or run \
`remaind resume`.)\n",
        ctx.resume_packet_path()
    );
    let room = room.saturating_sub(pointer.len());
    let tokens = match tokens {
        Some(t) => t,
        None => build_counting(ctx, ledger, Budget::Configured, Counting::Exact)?.tokens,
    };
    let mut budget = tokens.min(max_tokens);
    let mut fitted = build_counting(ctx, ledger, Budget::Tokens(budget), Counting::Exact)?;
    // Tokens per character vary with the text: shrink until the characters fit too.
    for _ in 0..8 {
        if fitted.packet.len() <= room || fitted.over_budget {
            break;
        }
        budget = budget * room as u64 * 9 / (fitted.packet.len() as u64 * 10);
        fitted = build_counting(ctx, ledger, Budget::Tokens(budget.max(1)), Counting::Exact)?;
    }
    Ok(fitted.packet + &pointer)
}
