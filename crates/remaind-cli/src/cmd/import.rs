//! `remaind import`: bring Claude Code or Codex transcripts into the ledger.

use std::io::Write;
use std::process::ExitCode;

use camino::Utf8PathBuf;
use remaind_adapters::{ImportReport, Runtime};
use remaind_ledger::Ledger;
use serde_json::json;

use crate::cli_error::CliError;
use crate::global::Global;

/// Import agent transcripts: each line becomes events as the hooks would have logged them,
/// with the line's own id and time kept in `data.origin`.
///
/// Importing the same file again appends only the lines not imported before (a session that
/// went on since is brought up to date), and a session the hooks recorded live adds only what
/// they did not see (its prompts, turn ends and tool uses are matched by content). Damaged and
/// unknown lines are counted and skipped.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "PATH is a transcript file or a folder of them: a Claude Code project \
folder (~/.claude/projects/<project>/, subagent files included) or a Codex sessions folder \
(~/.codex/sessions/). A Claude Code session file brings its subagents/agent-*.jsonl along.\n\n\
Examples:\n  remaind import claude-code ~/.claude/projects/-home-me-app/\n  \
remaind import claude-code session.jsonl --json\n  \
remaind import codex ~/.codex/sessions/2025/12/28/rollout-2025-12-28T12-18-30.jsonl"
)]
pub(crate) struct Args {
    /// The runtime that wrote the transcripts.
    #[arg(value_enum)]
    runtime: RuntimeArg,
    /// Transcript files or folders.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<Utf8PathBuf>,
    /// Print the summary as one JSON object.
    #[arg(long)]
    json: bool,
}

/// The runtimes whose transcripts `remaind import` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum RuntimeArg {
    /// Anthropic's Claude Code.
    ClaudeCode,
    /// OpenAI's Codex CLI.
    Codex,
}

impl From<RuntimeArg> for Runtime {
    fn from(r: RuntimeArg) -> Runtime {
        match r {
            RuntimeArg::ClaudeCode => Runtime::ClaudeCode,
            RuntimeArg::Codex => Runtime::Codex,
        }
    }
}

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let ctx = global.context()?;
    let ledger = Ledger::open(ctx.root())?;
    let cwd = global.cwd()?;
    let paths: Vec<Utf8PathBuf> = args
        .paths
        .iter()
        .map(|p| {
            if p.is_absolute() {
                p.clone()
            } else {
                cwd.join(p)
            }
        })
        .collect();
    for p in &paths {
        if !p.exists() {
            return Err(CliError::invalid(format!(
                "PATH `{p}` does not exist; give a transcript file or a folder of them"
            )));
        }
    }
    let runtime = Runtime::from(args.runtime);
    // Hidden unless stderr is a terminal.
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "importing {bar:30} {binary_bytes}/{binary_total_bytes} ({binary_bytes_per_sec})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let report = remaind_adapters::import(&ledger, runtime, &paths, |p| {
        bar.set_length(p.bytes_total);
        bar.set_position(p.bytes_done);
    })
    .map_err(CliError::from)?;
    bar.finish_and_clear();
    if report.files.is_empty() && !report.other_runtime_files.is_empty() {
        return Err(CliError::invalid(format!(
            "PATH: every transcript found was written by another runtime ({}); nothing was \
imported. Run `remaind import {} …` for them",
            other_runtime_list(&report),
            report.other_runtime_files[0].1
        )));
    }
    if report.counts.used == 0 && report.counts.unused > 0 {
        // Nothing of the named runtime: most likely the other runtime's transcript.
        let other = match runtime {
            Runtime::ClaudeCode => "codex",
            _ => "claude-code",
        };
        return Err(CliError::invalid(format!(
            "PATH: none of the {} line(s) in {} file(s) is a {runtime} transcript line; nothing \
was imported. If they are {other} transcripts, run `remaind import {other} …`",
            report.counts.lines,
            report.files.len()
        )));
    }
    crate::cmd::frame::record_runtime(&ctx, &ledger, &report.framing);
    print_report(runtime, &report, args.json)
}

/// The files another runtime wrote, each with its runtime.
fn other_runtime_list(r: &ImportReport) -> String {
    r.other_runtime_files
        .iter()
        .map(|(f, rt)| format!("{f}: {rt}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn print_report(runtime: Runtime, r: &ImportReport, json: bool) -> Result<ExitCode, CliError> {
    let mut out = std::io::stdout().lock();
    let res = if json {
        let v = json!({
            "runtime": runtime.as_str(),
            "files": r.files,
            "skipped_files": r.skipped_files,
            "skipped_other_runtime": r.other_runtime_files.iter().map(|(f, rt)| json!({
                "file": f,
                "runtime": rt.as_str(),
                "reason": format!("a {rt} transcript; import it with `remaind import {rt} {f}`"),
            })).collect::<Vec<_>>(),
            "lines": r.counts.lines,
            "used_lines": r.counts.used,
            "unused_lines": r.counts.unused,
            "damaged_lines": r.counts.damaged,
            "repaired_lines": r.counts.repaired,
            "records": r.records,
            "already_imported": r.already_imported,
            "recorded_by_hooks": r.recorded_by_hooks,
            "appended": r.appended,
            "head": r.head,
        });
        writeln!(out, "{v}")
    } else {
        writeln!(
            out,
            "imported {} {} file(s): {} lines ({} used, {} of unused types, {} damaged and \
skipped, {} kept with undecodable characters replaced); {} records, {} already imported, \
{} already recorded by the hooks; appended {} events (head e{})",
            r.files.len(),
            runtime,
            r.counts.lines,
            r.counts.used,
            r.counts.unused,
            r.counts.damaged,
            r.counts.repaired,
            r.records,
            r.already_imported,
            r.recorded_by_hooks,
            r.appended,
            r.head
        )
        .and_then(|()| {
            if r.skipped_files.is_empty() {
                Ok(())
            } else {
                writeln!(
                    out,
                    "skipped {} compaction-agent file(s): their summary is in the main transcript",
                    r.skipped_files.len()
                )
            }
        })
        .and_then(|()| {
            r.other_runtime_files.iter().try_for_each(|(f, rt)| {
                writeln!(
                    out,
                    "skipped {f}: a {rt} transcript, not {runtime}; import it with \
`remaind import {rt} {f}`"
                )
            })
        })
    };
    res.map_err(CliError::stdout)?;
    Ok(ExitCode::SUCCESS)
}
