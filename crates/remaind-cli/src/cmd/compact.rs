//! `remaind compact`.

use std::process::ExitCode;
use std::time::Duration;

use remaind_compact::Outcome;
use remaind_llm::{LlmOutcome, Preset};
use remaind_service::{CompactRequest, Compacted, Compactor};

use crate::args::compact::Args;
use crate::cli_error::{CliError, EXIT_REJECTED};
use crate::global::Global;

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let compactor = match (args.candidate, args.compactor, args.llm) {
        (_, _, Some(name)) => {
            let Some(preset) = Preset::from_name(&name) else {
                return Err(CliError::invalid(format!(
                    "--llm: unknown preset `{name}`; give claude, codex or openai"
                )));
            };
            Compactor::Llm {
                preset,
                model: args.model,
                time_limit: args.time_limit.map(Duration::from_secs),
            }
        }
        (Some(dir), _, None) => Compactor::Dir(dir),
        (None, Some(cmd), None) => Compactor::Command {
            cmd,
            timeout: args.timeout.map(Duration::from_secs),
        },
        (None, None, None) => Compactor::Builtin,
    };
    let request = CompactRequest::new(compactor, args.dry_run)?;
    let ctx = global.context()?;
    let compacted = remaind_service::compact(&ctx, &request)?;
    if args.json {
        let line =
            serde_json::to_string(&compacted).map_err(|e| CliError::runtime(e.to_string()))?;
        println!("{line}");
    } else {
        if let Compacted::Llm(done) = &compacted {
            print_rounds(done);
        }
        print_summary(compacted.outcome(), args.dry_run);
    }
    Ok(if compacted.outcome().verdict.accepted {
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
        if let Some(winner) = outcome.lost_to {
            println!(
                "not written: another compaction ({winner}) landed first on the same prior state; its state stands (run `remaind compact` again to compact what came after it)"
            );
            return;
        }
        if dry_run {
            println!("dry run: nothing written");
        } else if let Some(id) = outcome.event_id {
            println!("wrote active/state.json and active/handover.md; recorded as {id}");
        }
        for file in &outcome.quarantined {
            println!(
                "quarantined: active/{file} had been edited by hand; the edited version is kept in history (its sha256 recorded in the compaction event) and a rollback to it is refused"
            );
        }
        if !outcome.memory_proposed.is_empty() {
            println!(
                "continuity flush: {} constraint(s) held across compactions, proposed as memory: {} (review with `remaind memory list`)",
                outcome.memory_proposed.len(),
                outcome.memory_proposed.join(", ")
            );
        }
        return;
    }
    let failures = &outcome.verdict.failures;
    println!(
        "rejected: {} failed check(s) for a compaction through e{through}",
        failures.len()
    );
    print_failures(failures);
    if dry_run {
        println!("dry run: nothing written");
    } else {
        match outcome.event_id {
            Some(id) => println!("state.json and handover.md unchanged; recorded as {id}"),
            None => println!("state.json and handover.md unchanged"),
        }
    }
}

fn print_rounds(done: &LlmOutcome) {
    for r in &done.rounds {
        let verdict = if r.accepted { "accepted" } else { "rejected" };
        println!(
            "round {} ({}, {:.1}s, {} input + {} output tokens): {verdict}",
            r.round, done.label, r.seconds, r.tokens.input, r.tokens.output
        );
        print_failures(&r.failures);
        if !r.accepted
            && let Some(id) = r.event_id
        {
            println!("  recorded as {id}; the failures go back to the model");
        }
    }
    if done.fell_back && done.rounds.is_empty() {
        println!("too little of --time-limit left for a model round: using the built-in compactor");
    } else if done.fell_back {
        println!(
            "{} gave no accepted candidate in {} round(s): using the built-in compactor",
            done.label,
            done.rounds.len()
        );
    }
    println!(
        "llm: {} round(s), {:.1}s, {} input + {} output tokens",
        done.rounds.len(),
        done.seconds,
        done.tokens.input,
        done.tokens.output
    );
}

/// One indented line per failure: the check, the events it names, the reason.
fn print_failures(failures: &[remaind_validate::Failure]) {
    for f in failures {
        let ids: Vec<String> = f.events.iter().map(ToString::to_string).collect();
        if ids.is_empty() {
            println!("  {}: {}", f.check.as_str(), f.reason);
        } else {
            println!("  {} [{}]: {}", f.check.as_str(), ids.join(", "), f.reason);
        }
    }
}
