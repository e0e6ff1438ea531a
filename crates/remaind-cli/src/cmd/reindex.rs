//! `remaind reindex`.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use crate::cli_error::CliError;
use crate::global::Global;

/// Rebuild the search index (.context/db/context.sqlite) from the ledger, from scratch.
///
/// The index is derived and never an authority: every command that reads it brings it up to
/// date by itself. Use this after restoring a backup, or to compact the index file.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "A progress bar is drawn on stderr when it is a terminal.\n\n\
Examples:\n  remaind reindex\n  remaind reindex --quiet\n  remaind reindex --json"
)]
pub(crate) struct Args {
    /// No progress bar and no summary (errors are still reported).
    #[arg(long, short)]
    quiet: bool,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

/// A one-line progress bar on stderr, redrawn at most every 100 ms.
struct Bar {
    last: Option<Instant>,
    drawn: bool,
}

impl Bar {
    fn draw(&mut self, done: u64, total: u64) {
        if self
            .last
            .is_some_and(|t| t.elapsed() < Duration::from_millis(100))
            && done < total
        {
            return;
        }
        self.last = Some(Instant::now());
        let total = total.max(done).max(1);
        let width = 30;
        let filled = usize::try_from(done.saturating_mul(width) / total).unwrap_or(0);
        let pct = done.saturating_mul(100) / total;
        eprint!(
            "\r[{}{}] {pct:>3}% {done}/{total} events",
            "=".repeat(filled),
            " ".repeat(usize::try_from(width).unwrap_or(30).saturating_sub(filled))
        );
        self.drawn = true;
    }

    fn clear(&self) {
        if self.drawn {
            eprint!("\r\x1b[2K");
        }
    }
}

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let ctx = global.context()?;
    let show = !args.quiet && !args.json && std::io::stderr().is_terminal();
    let mut bar = Bar {
        last: None,
        drawn: false,
    };
    let start = Instant::now();
    let result = remaind_service::reindex(&ctx, &mut |done, total| {
        if show {
            bar.draw(done, total);
        }
    });
    bar.clear();
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
