//! Project automation, the single entry point for what CI runs: `cargo xtask ci`, `golden`,
//! `prop`, `bench`, `chaos`. Standard library only, so `fmt` runs before any remaind crate
//! (or the bundled SQLite) compiles: it shells out to cargo, and `bench`/`chaos` run the
//! `remaind-bench` package (xtask/bench).

#![expect(
    clippy::disallowed_methods,
    reason = "tooling, not a library: it reads its own environment (CARGO, PATH, the bench's settings)"
)]
#![expect(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a build tool prints its steps"
)]

mod interop;
mod jobs;
mod run;
mod ui_browser;

use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  ci                 everything CI runs: fmt check, clippy -D warnings, doc -D warnings,
                     the whole test suite (unit, integration, golden, property, tidy),
                     the reliability suite, the MCP interop test and the browser suite;
                     after the build the suites run three at a time (REMAIND_CI_JOBS=N: N)
  mcp-interop        the official MCP Python SDK (pinned, installed into target/mcp-venv from
                     PyPI) drives `remaind mcp` over stdio: every tool, resource and prompt
  ui-browser         headless Chromium (Debian's chromium + chromium-driver, apt-get installed
                     when missing) drives `remaind ui` on the demo session and an imported
                     transcript; screenshots of every view under target/ui-screens/
  golden [--accept]  the golden (insta snapshot) suites; --accept writes new snapshots
  prop [--cases N]   the property suites with N cases each (default 1000)
  chaos [--kills N] [--seed S]
                     crash-consistency harness: N kills (default 300) of a failpoint build
                     of remaind; fails on a lost event or a torn derived file
  bench [--quick] [--only LAYER]
                     the benchmarks, each against a baseline measured in the same run;
                     table on stdout, JSON under target/bench/; --only runs one of
                     index, search-eval, locomo, atomic, redact, redact-suites, ledger, resume, compact, adapters, memory, mcp, integrity,
                     process, ui (redact-suites: the detect-secrets part of redact alone;
                     REMAIND_SECRET_SUITE=FILE.jsonl adds that file's cases to it)
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("ci") => run::ci(),
        Some("mcp-interop") => run::mcp_interop(),
        Some("ui-browser") => run::ui_browser(),
        Some("golden") => run::golden(args.iter().any(|a| a == "--accept")),
        Some("prop") => match cases_arg(&args) {
            Ok(cases) => run::prop(cases),
            Err(e) => Err(e),
        },
        // remaind-bench checks the options of these two.
        Some("chaos") => run::chaos(&args[1..]),
        Some("bench") => run::bench(&args[1..]),
        Some("-h" | "--help" | "help") | None => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Some(other) => Err(format!("unknown command `{other}`\n\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

fn cases_arg(args: &[String]) -> Result<u32, String> {
    match args.iter().position(|a| a == "--cases") {
        None => Ok(1000),
        Some(i) => args
            .get(i + 1)
            .and_then(|n| n.parse().ok())
            .filter(|n| *n > 0)
            .ok_or_else(|| "--cases takes a positive whole number, e.g. --cases 5000".to_owned()),
    }
}
