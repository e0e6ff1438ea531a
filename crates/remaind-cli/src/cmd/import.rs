//! `remaind import`: bring Claude Code or Codex transcripts into the ledger.

use std::io::Write;
use std::process::ExitCode;

use remaind_adapters::{ImportReport, Runtime};
use remaind_service::ImportOptions;
use serde_json::json;

use crate::args::import::{Args, RuntimeArg};
use crate::cli_error::CliError;
use crate::global::Global;

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
    let bar = crate::progress::bar(
        "importing {bar:30} {binary_bytes}/{binary_total_bytes} ({binary_bytes_per_sec})",
        false,
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
