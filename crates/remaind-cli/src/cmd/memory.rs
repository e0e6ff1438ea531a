//! `remaind memory`: long-term memory proposals, `MEMORY.md`, and the memory tree.

use std::io::Write;
use std::process::ExitCode;

use remaind_memory::{Proposal, Status};
use remaind_service::{MemoryAnswer, MemoryJob};

use crate::args::memory::{Args, Sub};
use crate::cli_error::CliError;
use crate::global::Global;

fn status_word(s: Status) -> &'static str {
    match s {
        Status::Proposed => "proposed",
        Status::Accepted => "accepted",
        Status::Rejected => "rejected",
    }
}

fn print_proposal(out: &mut impl Write, p: &Proposal, json: bool) -> std::io::Result<()> {
    if json {
        return writeln!(out, "{}", serde_json::to_string(p).unwrap_or_default());
    }
    let ids = |v: &[remaind_events::EventId]| -> String {
        v.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let current = match p.contradicted_by {
        Some(by) => format!(" (no longer current: {by} superseded or resolved what it cites)"),
        None => String::new(),
    };
    let cites = if p.cites.is_empty() {
        String::new()
    } else {
        format!("\n  cites: {}", ids(&p.cites))
    };
    writeln!(
        out,
        "{} [{}]{current} {}\n  {}\n  events: {}{cites}",
        p.id,
        status_word(p.status),
        p.title,
        p.text.replace('\n', "\n  "),
        ids(&p.events)
    )
}

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let ctx = global.context()?;
    let (job, json) = match args.command {
        Sub::List { json } => (MemoryJob::List, json),
        Sub::Show { id, json } => (MemoryJob::Show { id }, json),
        Sub::Propose {
            title,
            text,
            cites,
            json,
        } => (MemoryJob::Propose { title, text, cites }, json),
        Sub::Edit { id, text, json } => (MemoryJob::Edit { id, text }, json),
        Sub::Accept { id, json } => (MemoryJob::Accept { id }, json),
        Sub::Reject { id, json } => (MemoryJob::Reject { id }, json),
        Sub::Tree {
            budget,
            query,
            json,
        } => (MemoryJob::Tree { budget, query }, json),
        Sub::Get { id, json } => (MemoryJob::Get { id }, json),
    };
    let answer = remaind_service::memory(&ctx, job)?;
    let mut out = std::io::stdout().lock();
    let wrote = match answer {
        MemoryAnswer::Proposals(all) if !json && all.is_empty() => writeln!(
            out,
            "no memory proposals yet; `remaind memory propose --title T TEXT` adds one"
        ),
        MemoryAnswer::Proposals(all) => all
            .iter()
            .try_for_each(|p| print_proposal(&mut out, p, json)),
        MemoryAnswer::Proposal(p) => print_proposal(&mut out, &p, json),
        MemoryAnswer::Tree(tree) if json => {
            writeln!(out, "{}", serde_json::to_string(&tree).unwrap_or_default())
        }
        MemoryAnswer::Tree(tree) => out
            .write_all(remaind_memory::render_listing(&tree).as_bytes())
            .and_then(|()| {
                if tree.omitted > 0 {
                    writeln!(out, "({} more nodes left out for the budget)", tree.omitted)
                } else {
                    Ok(())
                }
            }),
        MemoryAnswer::Node(node) if json => {
            writeln!(out, "{}", serde_json::to_string(&node).unwrap_or_default())
        }
        MemoryAnswer::Node(node) => writeln!(out, "{}", node.text),
    };
    wrote.map_err(CliError::stdout)?;
    Ok(ExitCode::SUCCESS)
}
