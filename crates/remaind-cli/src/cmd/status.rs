//! `remaind status`.

use std::process::ExitCode;

use crate::args::status::Args;
use crate::cli_error::CliError;
use crate::global::Global;

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let ctx = global.context()?;
    let status = remaind_service::status(&ctx)?;
    if args.json {
        let doc = serde_json::to_string(&status).map_err(|e| CliError::runtime(e.to_string()))?;
        println!("{doc}");
        return Ok(ExitCode::SUCCESS);
    }
    let (s, index) = (&status.context, status.index);
    println!("ledger head:     e{}", s.head_seq);
    match s.through_seq {
        Some(t) => println!("state through:   e{t} ({} events since)", s.tail_events),
        None => println!("state:           none yet ({} events)", s.tail_events),
    }
    match &s.last_compaction {
        Some(c) => println!("last compaction: {} at {}", c.event, c.ts),
        None => println!("last compaction: none after the state"),
    }
    println!(
        "band:            {} ({} of {} tokens; action: {})",
        s.band, s.tokens, s.window, s.action
    );
    match &s.next_step {
        Some(n) => println!(
            "next step:       {}{}",
            n.text,
            n.tool
                .as_ref()
                .map(|t| format!(" (tool: {t})"))
                .unwrap_or_default()
        ),
        None => println!("next step:       none"),
    }
    if s.gate.proceed {
        println!(
            "gate:            go on (confidence {:.3})",
            s.gate.confidence.score
        );
    } else {
        println!(
            "gate:            interrupts (confidence {:.3})",
            s.gate.confidence.score
        );
        for r in &s.gate.reasons {
            println!("  - {}: {}", r.code, r.message);
        }
    }
    match index {
        Some(f) if !f.stale => println!("index:           fresh (through e{})", f.indexed_seq),
        Some(f) if f.indexed_seq == 0 => {
            println!(
                "index:           not built yet (the next search or `remaind reindex` builds it)"
            )
        }
        Some(f) => println!(
            "index:           stale (through e{} of e{}; the next search catches up)",
            f.indexed_seq, f.ledger_head
        ),
        None => println!("index:           unavailable (search falls back to a rebuild)"),
    }
    Ok(ExitCode::SUCCESS)
}
