//! `remaind events`.

use std::io::Write;
use std::process::ExitCode;

use remaind_events::Filter;
use remaind_events::{Event, Kind};
use remaind_service::{Followed, Slice};

use crate::args::events::Args;
use crate::cli_error::CliError;
use crate::global::Global;

fn readable(ev: &Event) -> String {
    let mut line = format!(
        "{:<6} {} {:<17} i{}",
        ev.id.to_string(),
        ev.ts,
        ev.kind.as_str(),
        ev.importance
    );
    if let Some(a) = &ev.actor {
        line.push_str(&format!(" @{a}"));
    }
    if let Some(t) = &ev.tool {
        line.push_str(&format!(" [{}]", t.name));
    }
    if let Some(t) = &ev.text {
        line.push_str("  ");
        line.push_str(&remaind_events::one_line(t, 120));
    }
    for (label, ids) in [
        ("refs", &ev.refs),
        ("supersedes", &ev.supersedes),
        ("resolves", &ev.resolves),
    ] {
        if !ids.is_empty() {
            let list: Vec<String> = ids.iter().map(ToString::to_string).collect();
            line.push_str(&format!("  {label}:{}", list.join(",")));
        }
    }
    if !ev.artifact.is_empty() {
        line.push_str(&format!("  artifacts:{}", ev.artifact.len()));
    }
    line
}

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let kinds = args.kind.iter().map(|k| {
        k.trim()
            .parse::<Kind>()
            .map_err(|e| CliError::invalid(e.to_string()))
    });
    let slice = Slice {
        from: args.from,
        before: args.before,
        limit: args.limit,
        filter: Filter {
            kinds: kinds.collect::<Result<Vec<_>, _>>()?,
            min_importance: args.min_importance,
        },
    };
    let read = match global.context_or_store()? {
        crate::global::Found::Folder(ctx) => remaind_service::events(&ctx, &slice)?,
        crate::global::Found::Store(setting) => remaind_service::store_events(&setting, &slice)?,
    };
    print(&read.events, args.json)?;
    if args.from.is_some() && read.events.is_empty() {
        say_past_head(&args, read.head);
    }
    if args.follow {
        for step in read.follow() {
            match step? {
                Followed::Events(events) => print(&events, args.json)?,
                Followed::Note(note) => eprintln!("remaind: {note}"),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// An empty answer past the head would read as "nothing happened": say where the ledger ends.
fn say_past_head(args: &Args, head: u64) {
    let Some(from) = args.from.filter(|from| *from > head) else {
        return;
    };
    let head = if head == 0 {
        "the ledger is empty".to_owned()
    } else {
        format!("the ledger's head is e{head}")
    };
    let after = if args.follow { "; following" } else { "" };
    eprintln!("remaind: no events from e{from}: {head}{after}");
}

fn print(events: &[Event], json: bool) -> Result<(), CliError> {
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let res = events.iter().try_for_each(|ev| {
        if json {
            let line = serde_json::to_string(ev).map_err(std::io::Error::other)?;
            writeln!(out, "{line}")
        } else {
            writeln!(out, "{}", readable(ev))
        }
    });
    res.and_then(|()| out.flush()).map_err(CliError::stdout)
}
