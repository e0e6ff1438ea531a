//! `remaind`: the command-line face of Remaind.
//!
//! A thin binary: clap types, argument checking, one library call per command, output
//! formatting and exit codes (docs/contract.md, "CLI and exit codes"). No domain logic lives
//! here; it is the only crate that prints.

#![expect(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command-line tool prints"
)]

mod args;
mod cli_error;
mod cmd;
mod demo;
mod demo_secrets;
mod global;
mod progress;
mod style;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::global::Global;

// Imports, batch appends and the MCP server allocate many small JSON values on several
// threads; glibc's malloc spent a fifth of an import in allocation and arena locks.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Durable, validated context for long-running LLM agents.
#[derive(Debug, Parser)]
#[command(
    name = "remaind",
    version = env!("REMAIND_VERSION"),
    about,
    long_about = "Remaind keeps one .context/ folder per project: an append-only, redacted event \
ledger as the source of truth, derived state and a handover that change only through validated \
compactions, a resume gate, and atomic writes with exact rollback.",
    after_help = "Examples:\n  remaind init\n  remaind log --kind decision --text \"Use SQLite for the index\"\n  remaind compact\n  remaind resume --budget 8000\n\nExit codes: 0 ok, 1 runtime failure, 2 invalid input, 3 compaction rejected, 4 resume gate interrupts."
)]
struct Cli {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Init(args::init::Args),
    Log(args::log::Args),
    Events(args::events::Args),
    Verify(args::verify::Args),
    Artifact(args::artifact::Args),
    Search(args::search::Args),
    Redact(args::redact::Args),
    Reindex(args::reindex::Args),
    Monitor(args::monitor::Args),
    Compact(args::compact::Args),
    Frame(args::frame::Args),
    Resume(args::resume::Args),
    Rollback(args::rollback::Args),
    Status(args::status::Args),
    Demo(args::demo::Args),
    Hook(args::hook::Args),
    Import(args::import::Args),
    Install(args::install::Args),
    Doctor(args::doctor::Args),
    Memory(args::memory::Args),
    Loops(args::loops::Args),
    Mcp(args::mcp::Args),
    Ui(args::ui::Args),
    Push(args::share::PushArgs),
    Pull(args::share::PullArgs),
    Completions(args::completions::Args),
    Man(args::man::Args),
}

fn main() -> ExitCode {
    // Test builds only: take failpoint actions from FAILPOINTS (docs: crates/remaind-cli/Cargo.toml).
    #[cfg(feature = "failpoints")]
    let _failpoints = fail::FailScenario::setup();
    quiet_on_a_closed_pipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Init(args) => cmd::init::run(&cli.global, args),
        Command::Log(args) => cmd::log::run(&cli.global, args),
        Command::Events(args) => cmd::events::run(&cli.global, args),
        Command::Verify(args) => cmd::verify::run(&cli.global, args),
        Command::Redact(args) => cmd::redact::run(&cli.global, args),
        Command::Artifact(args) => cmd::artifact::run(&cli.global, args),
        Command::Search(args) => cmd::search::run(&cli.global, args),
        Command::Reindex(args) => cmd::reindex::run(&cli.global, args),
        Command::Monitor(args) => cmd::monitor::run(&cli.global, args),
        Command::Compact(args) => cmd::compact::run(&cli.global, args),
        Command::Frame(args) => cmd::frame::run(&cli.global, args),
        Command::Resume(args) => cmd::resume::run(&cli.global, args),
        Command::Rollback(args) => cmd::rollback::run(&cli.global, args),
        Command::Status(args) => cmd::status::run(&cli.global, args),
        Command::Demo(args) => cmd::demo::run(&cli.global, args),
        Command::Hook(args) => cmd::hook::run(&cli.global, args),
        Command::Import(args) => cmd::import::run(&cli.global, args),
        Command::Install(args) => cmd::install::run(&cli.global, args),
        Command::Doctor(args) => cmd::doctor::run(&cli.global, args),
        Command::Memory(args) => cmd::memory::run(&cli.global, args),
        Command::Loops(args) => cmd::loops::run(&cli.global, args),
        Command::Mcp(args) => cmd::mcp::run(&cli.global, args),
        Command::Push(args) => cmd::share::push(&cli.global, args),
        Command::Pull(args) => cmd::share::pull(&cli.global, args),
        Command::Ui(args) => cmd::ui::run(&cli.global, args),
        Command::Completions(args) => cmd::completions::run(args),
        Command::Man(args) => cmd::man::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => err.report(),
    }
}

/// `remaind resume | head`: when the reader closes the pipe, printing fails with a broken
/// pipe (Rust ignores SIGPIPE) and `println!` panics. The command ends quietly instead, as a
/// command line tool does; every other panic keeps the default report.
fn quiet_on_a_closed_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.contains("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}
