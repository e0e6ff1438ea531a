//! `remaind loops`: the open loops (blockers and next steps nothing resolved yet).

use std::io::Write;
use std::process::ExitCode;

use remaind_events::EventId;
use serde_json::json;

use crate::args::loops::{Args, Sub};
use crate::cli_error::CliError;
use crate::global::Global;

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let ctx = global.context()?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let wrote = match args.command {
        Sub::List { limit, json } => {
            let loops = remaind_service::open_loops(&ctx, limit)?;
            if loops.is_empty() && !json {
                writeln!(out, "no open loops")
            } else {
                loops.iter().try_for_each(|e| {
                    let text = e.text.as_deref().unwrap_or("");
                    if json {
                        writeln!(
                            out,
                            "{}",
                            json!({"id": e.id.to_string(), "kind": e.kind.as_str(), "ts": e.ts, "text": text})
                        )
                    } else {
                        writeln!(out, "[{}] {} {}: {}", e.id, e.ts, e.kind, text.replace('\n', " "))
                    }
                })
            }
        }
        Sub::Resolve { id, text, json } => {
            let loop_id = crate::args::event_seq(&id)
                .map(EventId)
                .map_err(|e| CliError::invalid(format!("ID: {e}")))?;
            let new = remaind_service::resolve_loop(&ctx, loop_id, &text)?;
            if json {
                writeln!(
                    out,
                    "{}",
                    json!({"id": new.to_string(), "resolves": loop_id.to_string()})
                )
            } else {
                writeln!(out, "{new} resolves {loop_id}")
            }
        }
    };
    wrote.map_err(CliError::stdout)?;
    Ok(ExitCode::SUCCESS)
}
