//! `remaind import`: bring Claude Code or Codex transcripts into the ledger.

use std::io::Write;
use std::process::ExitCode;

use camino::Utf8PathBuf;
use remaind_adapters::{ImportReport, Runtime};
use remaind_service::ImportOptions;
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
    let runtime = Runtime::from(args.runtime);
    let opts = ImportOptions {
        runtime,
        paths: args.paths,
        cwd: global.cwd()?,
    };
    // Hidden unless stderr is a terminal.
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "importing {bar:30} {binary_bytes}/{binary_total_bytes} ({binary_bytes_per_sec})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let imported = remaind_service::import(&ctx, &opts, |p| {
        bar.set_length(p.bytes_total);
        bar.set_position(p.bytes_done);
    })?;
    bar.finish_and_clear();
    if let Some(why) = imported.framing_error {
        eprintln!("remaind: the runtime framing was not recorded: {why}");
    }
    print_report(runtime, &imported.report, args.json)
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
