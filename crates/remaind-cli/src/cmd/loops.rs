//! `remaind loops`: the open loops (blockers and next steps nothing resolved yet).

use std::io::Write;
use std::process::ExitCode;

use remaind_events::EventId;
use serde_json::json;

use crate::cli_error::CliError;
use crate::global::Global;

/// List the open loops, or close one with a result.
///
/// An open loop is a `blocker` or `next_step` event that no later event resolved or
/// superseded. Resolving one appends a `result` event that `resolves` it: the ledger keeps
/// both. Each open loop is also a Markdown file under `.context/memory/loops/`, brought up
/// to date by these commands; a resolved one moves to `.context/memory/archive/`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
remaind loops list\n  \
remaind loops list --json --limit 10\n  \
remaind loops resolve e42 --text 'OPS-142 closed: the runner has S3 credentials'")]
pub(crate) struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    /// The open loops, oldest first.
    List {
        /// At most this many, the newest kept.
        #[arg(long, value_name = "N", default_value_t = 50)]
        limit: usize,
        /// Print one JSON object per line.
        #[arg(long)]
        json: bool,
    },
    /// Close an open loop: append a `result` event that resolves it.
    Resolve {
        /// The loop's event id or seq, e.g. e42 or 42.
        id: String,
        /// What resolved it.
        #[arg(long, allow_hyphen_values = true)]
        text: String,
        /// Print the new event's id as JSON.
        #[arg(long)]
        json: bool,
    },
}

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
            let loop_id = crate::cmd::event_seq(&id)
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
