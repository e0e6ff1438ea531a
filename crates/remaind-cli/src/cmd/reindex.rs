//! `remaind reindex`.

use std::process::ExitCode;
use std::time::Instant;

use crate::args::reindex::Args;
use crate::cli_error::CliError;
use crate::global::Global;

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let ctx = global.context()?;
    let bar = crate::progress::bar(
        "reindexing {bar:30} {percent:>3}% {pos}/{len} events",
        args.quiet || args.json,
    );
    let start = Instant::now();
    let result = remaind_service::reindex(&ctx, &mut |done, total| {
        bar.set_length(total.max(done));
        bar.set_position(done);
    });
    bar.finish_and_clear();
    let done = result?;
    let secs = start.elapsed().as_secs_f64();
    if args.json {
        let v = serde_json::json!({ "events": done.events, "seconds": secs, "path": done.path });
        println!("{v}");
    } else if !args.quiet {
        println!(
            "reindexed {} events in {secs:.2}s ({})",
            done.events, done.path
        );
    }
    Ok(ExitCode::SUCCESS)
}
