//! `remaind compact`.

use std::process::ExitCode;
use std::time::Duration;

use camino::Utf8PathBuf;
use remaind_compact::Outcome;
use remaind_llm::{LlmOutcome, Preset};
use remaind_service::{CompactRequest, Compacted, Compactor};

use crate::cli_error::{CliError, EXIT_REJECTED};
use crate::global::Global;

/// Fold the events since the last accepted compaction into a new state.json and handover.md.
///
/// A compactor only proposes a candidate: the built-in deterministic one (default), a
/// candidate folder, an external command (docs/compactor-protocol.md), or an LLM preset
/// (`--llm claude|codex|openai`, settings in .context/schemas/llm.json) whose rejected
/// candidates go back to the model with the validator's failures, up to `max_rounds` calls,
/// before the built-in candidate is used instead. The validator decides. Accepted: both files are written atomically with history and a `compaction`
/// event is appended (exit 0). Rejected: the files stay byte for byte, a `validation` event
/// records every failed check with its event ids, and the verdict is printed (exit 3).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
remaind compact\n  \
remaind compact --dry-run --json\n  \
remaind compact --candidate ./candidate\n  \
remaind compact --compactor 'python3 summarize.py' --timeout 300\n  \
remaind compact --llm claude\n  \
remaind compact --llm openai --model gpt-4.1-mini --json\n  \
remaind compact --llm codex --time-limit 100\n\n\
Exit codes: 0 accepted (with --llm: the model's candidate or the built-in fallback), 1 runtime \
failure (with --llm: a missing CLI or key, an unreachable endpoint, a timeout, an HTTP error, \
an answer that is not JSON; nothing written), 2 invalid input, 3 rejected by the validator.")]
pub(crate) struct Args {
    /// Use the candidate in DIR (state.json and handover.md) instead of the built-in compactor.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["compactor", "llm"])]
    candidate: Option<Utf8PathBuf>,
    /// Run `sh -c CMD` as the compactor: the prior state and the new events as JSON on stdin,
    /// a candidate `{"state": …, "handover": "…"}` on stdout.
    #[arg(long, value_name = "CMD", conflicts_with = "llm")]
    compactor: Option<String>,
    /// Ask an LLM preset for the candidate: `claude` (Claude Code, `claude -p`), `codex`
    /// (`codex exec`) or `openai` (any OpenAI-compatible endpoint); settings in
    /// .context/schemas/llm.json.
    #[arg(long, value_name = "PRESET", value_parser = ["claude", "codex", "openai"])]
    llm: Option<String>,
    /// With --llm: the model to ask instead of the configured one.
    #[arg(long, value_name = "MODEL", requires = "llm")]
    model: Option<String>,
    /// With --llm: seconds all rounds together may take; when too little is left for another
    /// round, the built-in candidate is used.
    #[arg(long, value_name = "SECS", requires = "llm", value_parser = clap::value_parser!(u64).range(1..))]
    time_limit: Option<u64>,
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
