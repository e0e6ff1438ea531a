//! `remaind compact`.

use std::process::ExitCode;
use std::time::Duration;

use camino::Utf8PathBuf;
use remaind_compact::{DEFAULT_TIMEOUT, Options, Outcome, Source};
use remaind_ledger::Ledger;

use crate::cli_error::{CliError, EXIT_REJECTED};
use crate::global::Global;

/// Fold the events since the last accepted compaction into a new state.json and handover.md.
///
/// A compactor only proposes a candidate: the built-in deterministic one (default), a
/// candidate folder, or an external command (docs/compactor-protocol.md). The validator
/// decides. Accepted: both files are written atomically with history and a `compaction`
/// event is appended (exit 0). Rejected: the files stay byte for byte, a `validation` event
/// records every failed check with its event ids, and the verdict is printed (exit 3).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
remaind compact\n  \
remaind compact --dry-run --json\n  \
remaind compact --candidate ./candidate\n  \
remaind compact --compactor 'python3 summarize.py' --timeout 300\n\n\
Exit codes: 0 accepted, 1 runtime failure, 2 invalid input, 3 rejected by the validator.")]
pub(crate) struct Args {
    /// Use the candidate in DIR (state.json and handover.md) instead of the built-in compactor.
    #[arg(long, value_name = "DIR", conflicts_with = "compactor")]
    candidate: Option<Utf8PathBuf>,
    /// Run `sh -c CMD` as the compactor: the prior state and the new events as JSON on stdin,
    /// a candidate `{"state": …, "handover": "…"}` on stdout.
    #[arg(long, value_name = "CMD")]
    compactor: Option<String>,
    /// Seconds before the compactor command (and everything it started) is killed [default: 120].
    #[arg(long, value_name = "SECS", requires = "compactor", value_parser = clap::value_parser!(u64).range(1..))]
    timeout: Option<u64>,
    /// Validate and print the verdict, but write nothing and append nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print the verdict as JSON.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    if args
        .compactor
        .as_deref()
        .is_some_and(|c| c.trim().is_empty())
    {
        return Err(CliError::invalid(
            "--compactor: the command is empty; give a command such as 'python3 summarize.py'",
        ));
    }
    let source = match (args.candidate, args.compactor) {
        (Some(dir), _) => Source::Dir(dir),
        (None, Some(cmd)) => Source::Command {
            cmd,
            timeout: args.timeout.map_or(DEFAULT_TIMEOUT, Duration::from_secs),
        },
        (None, None) => Source::Builtin,
    };
    let ctx = global.context()?;
    let ledger = Ledger::open(ctx.root())?;
    let store = remaind_compact::open_store(ctx.root())?;
    let opts = Options {
        dry_run: args.dry_run,
        through_seq: None,
    };
    let outcome = remaind_compact::compact(&ledger, &store, source, opts)?;
    if args.json {
        let line = serde_json::to_string(&outcome.verdict)
            .map_err(|e| CliError::runtime(e.to_string()))?;
        println!("{line}");
    } else {
        print_summary(&outcome, args.dry_run);
    }
    Ok(if outcome.verdict.accepted {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_REJECTED)
    })
}

fn print_summary(outcome: &Outcome, dry_run: bool) {
    let through = outcome.through_seq;
    let compactor = outcome
        .candidate
        .as_ref()
        .map_or("the candidate", |c| c.state.compactor.as_str());
    if outcome.verdict.accepted {
        println!(
            "accepted: compaction through e{through} by {compactor} ({} new events)",
            outcome.tail_events
        );
        if dry_run {
            println!("dry run: nothing written");
        } else if let Some(id) = outcome.event_id {
            println!("wrote active/state.json and active/handover.md; recorded as {id}");
        }
        return;
    }
    let failures = &outcome.verdict.failures;
    println!(
        "rejected: {} failed check(s) for a compaction through e{through}",
        failures.len()
    );
    for f in failures {
        let ids: Vec<String> = f.events.iter().map(ToString::to_string).collect();
        if ids.is_empty() {
            println!("  {}: {}", f.check.as_str(), f.reason);
        } else {
            println!("  {} [{}]: {}", f.check.as_str(), ids.join(", "), f.reason);
        }
    }
    if dry_run {
        println!("dry run: nothing written");
    } else {
        match outcome.event_id {
            Some(id) => println!("state.json and handover.md unchanged; recorded as {id}"),
            None => println!("state.json and handover.md unchanged"),
        }
    }
}
