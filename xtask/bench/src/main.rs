//! The benchmarks and the crash-consistency harness, kept out of `xtask` so that `cargo xtask
//! fmt`/`ci` start without compiling the remaind crates (and the bundled SQLite) first.
//! Run through `cargo xtask bench` (a release build) and `cargo xtask chaos`; usable directly
//! as `cargo run --release -p remaind-bench -- bench --quick --only atomic`.

#![expect(
    clippy::disallowed_methods,
    reason = "tooling, not a library: it reads its own environment (CARGO, PATH, the bench's settings)"
)]
#![expect(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "the benchmarks print their tables"
)]

mod bench;
mod bench_adapters;
mod bench_atomic;
mod bench_compact;
mod bench_fleet;
mod bench_index;
mod bench_integrity;
mod bench_ledger;
mod bench_mcp;
mod bench_memory;
mod bench_process;
mod bench_redact;
mod bench_redact_suites;
mod bench_resume;
mod bench_search;
mod bench_ui;
mod chaos;
mod eval_locomo;
mod eval_search;
mod rng;
mod ui_browser;
mod webdriver;

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "\
usage: remaind-bench <command>   (normally run as `cargo xtask bench` / `cargo xtask chaos`)

commands:
  bench [--quick] [--only LAYER]
                     the benchmarks, each against a baseline measured in the same run;
                     table on stdout, JSON under target/bench/; --only runs one of
                     index, search-eval, locomo, atomic, redact, redact-suites, ledger, resume, compact, adapters, memory, mcp, integrity,
                     process, ui, fleet. Expects a release build of
                     remaind in target/release (cargo xtask bench builds it first).
                     REMAIND_SECRET_SUITE=FILE.jsonl adds that file's cases to the
                     redact (and redact-suites) report, scanned by detect-secrets too
  chaos [--kills N] [--seed S] [--remaind PATH]
                     crash-consistency harness: N kills (default 300) of a failpoint build
                     of remaind; fails on a lost event or a torn derived file. Builds one
                     into target/chaos unless --remaind names one (built with the
                     failpoints feature, as `cargo xtask ci`'s test step builds it)
  ui-browser [--remaind PATH]
                     headless Chromium (Debian's chromium + chromedriver) drives `remaind ui`
                     on the demo session and an imported transcript; screenshots under
                     target/ui-screens/ (default binary: target/debug/remaind)
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("chaos") => match (
            number_arg(&args, "--kills"),
            number_arg(&args, "--seed"),
            string_arg(&args, "--remaind"),
        ) {
            (Ok(kills), Ok(seed), Ok(bin)) => chaos::run(kills.unwrap_or(300), seed, bin),
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => Err(e),
        },
        Some("bench") => match string_arg(&args, "--only") {
            Ok(only) => bench::run_all(args.iter().any(|a| a == "--quick"), only.as_deref()),
            Err(e) => Err(e),
        },
        Some("ui-browser") => match string_arg(&args, "--remaind") {
            Ok(bin) => ui_browser::run(bin.as_deref()),
            Err(e) => Err(e),
        },
        Some("-h" | "--help" | "help") | None => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Some(other) => Err(format!("unknown command `{other}`\n\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("remaind-bench: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root (this package lives in xtask/bench, two folders below it).
fn workspace_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .nth(2)
        .map_or_else(|| manifest.clone(), PathBuf::from)
}

/// `--name N` as a whole number, if given.
fn number_arg(args: &[String], name: &str) -> Result<Option<u64>, String> {
    match args.iter().position(|a| a == name) {
        None => Ok(None),
        Some(i) => args
            .get(i + 1)
            .and_then(|n| n.parse().ok())
            .map(Some)
            .ok_or_else(|| format!("{name} takes a whole number, e.g. {name} 300")),
    }
}

/// The value after `--name`, if given.
fn string_arg(args: &[String], name: &str) -> Result<Option<String>, String> {
    match args.iter().position(|a| a == name) {
        None => Ok(None),
        Some(i) => args
            .get(i + 1)
            .filter(|v| !v.starts_with("--"))
            .cloned()
            .map(Some)
            .ok_or_else(|| format!("{name} takes a value, e.g. {name} compact")),
    }
}
