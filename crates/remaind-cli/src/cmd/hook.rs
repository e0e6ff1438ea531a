//! `remaind hook EVENT` and `remaind hook RUNTIME EVENT`: the arguments and stdin handed to
//! `remaind_service::run_hook` (which records the call and fails open), its output printed.

use std::io::Read;
use std::process::ExitCode;

use remaind_service::HookCall;

use crate::args::hook::Args;
use crate::cli_error::CliError;
use crate::global::Global;

/// Runs the hook, which fails open: an error is said and kept in logs/hook-errors.jsonl, and
/// the exit code is 0 (3: a rejected PreCompact compaction), as a runtime reads 2 as "block".
pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let mut input = Vec::new();
    let input_error = std::io::stdin().read_to_end(&mut input).err();
    let outcome = remaind_service::run_hook(HookCall {
        event: &args.event,
        runtime_event: args.runtime_event.as_deref(),
        runtime: args.runtime,
        input: &input,
        input_error,
        dir: global.dir.as_deref(),
        cwd: crate::global::current_dir(),
        llm: args.llm.as_deref(),
        time_limit: std::time::Duration::from_secs(args.time_limit),
    });
    print!("{}", outcome.stdout);
    eprint!("{}", outcome.stderr);
    Ok(ExitCode::from(outcome.code))
}
