//! The cargo invocations behind each xtask command.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::jobs::{Job, TestBinary};

/// The workspace root (xtask lives one folder below it).
pub(crate) fn workspace_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(PathBuf::from).unwrap_or(manifest)
}

/// Where cargo puts its builds: `$CARGO_TARGET_DIR`, else target/.
pub(crate) fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"))
}

pub(crate) fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(workspace_root());
    // A clean CI run compiles each crate once: incremental state would only cost disk and time.
    if std::env::var_os("CI").is_some() {
        cmd.env("CARGO_INCREMENTAL", "0");
    }
    cmd
}

/// Whether the binary a suite drives is built by the suite's own step, or was already built by
/// `cargo xtask ci`'s test step (one build of the workspace: `cargo build -p remaind-cli` alone
/// unifies features differently and compiles the product a second time).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Binary {
    Build,
    Built,
}

/// The debug `remaind` the interop and browser suites drive, built first when asked.
pub(crate) fn remaind_binary(binary: Binary, purpose: &str) -> Result<PathBuf, String> {
    if binary == Binary::Build {
        let mut build = cargo();
        build.args(["build", "--locked", "-p", "remaind-cli"]);
        step(&format!("build remaind for {purpose}"), build)?;
    }
    let path = target_dir().join("debug/remaind");
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!("{} is missing after the build", path.display()))
    }
}

/// `remaind-bench` with its arguments to come: the test step's build when `Built` (the bench's
/// command-line tests make `cargo test --workspace` build the binary with the workspace's
/// features), else `cargo run`, which builds it with its own feature set first.
pub(crate) fn bench_command(binary: Binary) -> Command {
    let built = target_dir().join("debug/remaind-bench");
    if binary == Binary::Built && built.is_file() {
        let mut cmd = Command::new(built);
        cmd.current_dir(workspace_root());
        return cmd;
    }
    let mut cmd = cargo();
    cmd.args(["run", "--quiet", "--locked", "-p", "remaind-bench", "--"]);
    cmd
}

pub(crate) fn step(name: &str, mut cmd: Command) -> Result<(), String> {
    eprintln!("\n==> {name}");
    let started = Instant::now();
    let status = cmd
        .status()
        .map_err(|e| format!("{name}: cannot start: {e}"))?;
    eprintln!("    {name}: {:.1}s", started.elapsed().as_secs_f64());
    if status.success() {
        Ok(())
    } else {
        Err(format!("{name} failed ({status})"))
    }
}

/// How a setup step runs: [`step`] in the foreground (its output streamed), or captured into
/// a log while the builds run ([`Captured`]).
pub(crate) type Runner<'a> = &'a mut dyn FnMut(&str, Command) -> Result<(), String>;

/// The output of setup steps run in the background, kept to be printed in one piece when they
/// are joined, so that it does not interleave with the build's.
#[derive(Default)]
pub(crate) struct Captured {
    pub(crate) log: String,
}

impl Captured {
    /// Runs `cmd` with its output captured, as [`step`] would run it.
    pub(crate) fn step(&mut self, name: &str, mut cmd: Command) -> Result<(), String> {
        let started = Instant::now();
        let out = cmd
            .output()
            .map_err(|e| format!("{name}: cannot start: {e}"))?;
        self.log
            .push_str(&format!("\n==> {name} (beside the builds)\n"));
        self.log.push_str(&String::from_utf8_lossy(&out.stdout));
        self.log.push_str(&String::from_utf8_lossy(&out.stderr));
        self.log.push_str(&format!(
            "    {name}: {:.1}s\n",
            started.elapsed().as_secs_f64()
        ));
        if out.status.success() {
            Ok(())
        } else {
            Err(format!("{name} failed ({})", out.status))
        }
    }
}

/// Totals of the `test result:` lines cargo test prints, one per test binary.
#[derive(Default)]
pub(crate) struct Tally {
    pub(crate) passed: u64,
    pub(crate) failed: u64,
    ignored: u64,
}

impl Tally {
    /// Counts `line` when it is a `test result:` line.
    pub(crate) fn add_line(&mut self, line: &str) {
        if let Some(rest) = line.strip_prefix("test result: ") {
            self.passed += count(rest, " passed");
            self.failed += count(rest, " failed");
            self.ignored += count(rest, " ignored");
        }
    }

    pub(crate) fn add(&mut self, other: &Tally) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.ignored += other.ignored;
    }
}

/// Runs cargo test, streaming its output and adding up its per-binary results.
pub(crate) fn test_step(name: &str, mut cmd: Command, tally: &mut Tally) -> Result<(), String> {
    eprintln!("\n==> {name}");
    let started = Instant::now();
    cmd.stdout(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("{name}: cannot start: {e}"))?;
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            println!("{line}");
            tally.add_line(&line);
        }
    }
    let status = child.wait().map_err(|e| format!("{name}: {e}"))?;
    eprintln!("    {name}: {:.1}s", started.elapsed().as_secs_f64());
    if status.success() {
        Ok(())
    } else {
        Err(format!("{name} failed ({status})"))
    }
}

/// `"ok. 12 passed; 0 failed; ..."` → the number before `label`.
fn count(summary: &str, label: &str) -> u64 {
    summary
        .split(';')
        .find(|part| part.trim_end().ends_with(label.trim()))
        .and_then(|part| part.split_whitespace().rev().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// `cargo xtask ci`.
pub(crate) fn ci() -> Result<(), String> {
    // What the MCP interop and browser steps need from the network (a venv with the pinned
    // SDK from PyPI; Chromium from Debian when missing) is fetched beside the builds, which
    // need the CPU, and joined before those steps.
    let tools = std::thread::spawn(|| {
        let mut captured = Captured::default();
        let outcome = crate::interop::install_sdk(&mut |name, cmd| captured.step(name, cmd))
            .and_then(|()| {
                crate::ui_browser::ensure_browser(&mut |name, cmd| captured.step(name, cmd))
            });
        (captured.log, outcome)
    });
    let mut fmt = cargo();
    fmt.args(["fmt", "--all", "--check"]);
    step("fmt", fmt)?;

    let mut clippy = cargo();
    clippy.args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--locked",
        "--",
        "-D",
        "warnings",
    ]);
    step("clippy", clippy)?;

    let mut doc = cargo();
    doc.args(["doc", "--workspace", "--no-deps", "--locked"])
        .env("RUSTDOCFLAGS", "-D warnings");
    step("doc", doc)?;

    // One build serves every suite below: the failpoints are compiled in (inactive unless a
    // test sets FAILPOINTS for the process it starts), so the fault-injection tests, the
    // crash harness and the MCP and browser suites all drive this build of `remaind`.
    let binaries = crate::jobs::build_tests(
        "build the tests (unit, integration, golden, property, tidy)",
        &["--workspace", "--locked", "--features", FAILPOINTS],
    )?;
    let (log, setup) = tools
        .join()
        .unwrap_or_else(|_| (String::new(), Err("the tool setup panicked".to_owned())));
    eprint!("{log}");
    setup?;

    let mut tally = Tally::default();
    let outcome = suites(&binaries).and_then(|jobs| {
        let slots = std::env::var("REMAIND_CI_JOBS")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(SLOTS);
        crate::jobs::run("the suites", jobs, slots, &mut tally)
    });
    // The plain closing line CI reads, last, whatever happened above.
    println!(
        "ci: {} passed, {} failed, {} skipped",
        tally.passed, tally.failed, tally.ignored
    );
    outcome
}

/// How many suites run at once: two cores, and suites that spend much of their time waiting
/// on the processes they start.
const SLOTS: usize = 3;

/// Every suite CI runs after the build, longest first (the two runs of the CLI's suite take
/// longest, the test binaries of crates without unit tests next to nothing): the unit,
/// integration, golden, property and tidy tests, the doc tests, the suites again on a
/// shared PostgreSQL store, the crash harness, a clippy of the ledger and resume without the
/// store, the MCP interop test and the browser suite.
fn suites(binaries: &[TestBinary]) -> Result<Vec<Job>, String> {
    let is_cli_suite = |b: &&TestBinary| b.package == "remaind-cli" && b.target == "it";
    let suites = |b: &&TestBinary| b.target == "it" && !is_cli_suite(b);
    let mut jobs = Vec::new();
    for cli in binaries.iter().filter(is_cli_suite) {
        jobs.push(suite(cli));
        jobs.push(on_store(cli));
    }
    jobs.push(reliability()?);
    jobs.push(doc_tests_then_without_store());
    jobs.push(crate::ui_browser::job(Binary::Built)?);
    // A crate's suite on the store waits on PostgreSQL: longer than its run on a folder.
    jobs.extend(binaries.iter().filter(suites).map(on_store));
    jobs.extend(binaries.iter().filter(suites).map(suite));
    jobs.push(crate::interop::job(Binary::Built)?);
    jobs.extend(binaries.iter().filter(|b| b.target != "it").map(suite));
    Ok(jobs)
}

/// A test binary run as `cargo test` runs it.
fn suite(binary: &TestBinary) -> Job {
    let mut cmd = binary.command();
    cmd.env("INSTA_UPDATE", "no").env("CI", "true");
    let mut job = Job::new(format!("test: {}", binary.label()), cmd);
    // Every crate's integration suite has tests; a crate may have no unit test.
    job.must_test = binary.is_suite();
    job
}

/// The doc tests (`cargo test --no-run` builds none), then the ledger and resume built as a
/// team that wants only them would, without the shared store (the workspace build has every
/// feature the CLI turns on): two cargo commands in one slot, since beside each other one
/// would wait on the other's lock, and the clippy alone at the end of the run left two slots
/// idle for its half minute.
fn doc_tests_then_without_store() -> Job {
    let mut docs = cargo();
    docs.args([
        "test",
        "--doc",
        "--workspace",
        "--locked",
        "--features",
        FAILPOINTS,
    ])
    .env("CI", "true");
    let mut plain = cargo();
    plain.args([
        "clippy",
        "-p",
        "remaind-ledger",
        "-p",
        "remaind-resume",
        "--lib",
        "--locked",
        "--",
        "-D",
        "warnings",
    ]);
    let mut job = Job::new(
        "doc tests, then clippy of the ledger and resume without the shared store",
        docs,
    );
    job.must_test = true;
    job.then.push(plain);
    job
}

/// A crate's integration suite again with every folder it creates a replica of a shared
/// PostgreSQL store (a throwaway cluster each suite starts), from the same tests: the CLI's
/// (compaction, resume, rollback, memory, index, hooks, import and MCP through the commands
/// a user runs) and the libraries' own (ledger, index, memory, compaction, resume, import).
/// Left to the folder run: property and fault suites of the CLI, the fleet tests (on the
/// store already), and the tests of what differs by design on a replica (a torn tail is
/// quarantined without a `recovery` event; a log rewritten by hand is caught up again from
/// the store).
fn on_store(binary: &TestBinary) -> Job {
    let mut cmd = binary.command();
    cmd.args(ON_STORE)
        .env("REMAIND_TEST_ON_STORE", "1")
        .env("INSTA_UPDATE", "no")
        .env("CI", "true");
    let mut job = Job::new(
        format!("on a shared PostgreSQL store: {}", binary.label()),
        cmd,
    );
    job.must_test = binary.package == "remaind-cli";
    job
}

/// The modules of each crate's integration suite that run on the store too.
const ON_STORE: &[&str] = &[
    // remaind-cli
    "_cli::",
    "transcripts::",
    "runtime_hooks::",
    "everyday::",
    "rough_edges::",
    // remaind-ledger
    "concurrency::",
    "input::",
    "integrity::",
    "reads::",
    "prop_own_fields::",
    "shared::",
    "golden::",
    "secrets::",
    // remaind-memory
    "sequences::",
    "props::",
    // remaind-resume
    "budget::",
    "gate::",
    "lifecycle::",
    "monitor::",
    // remaind-index
    "search::",
    "slices::",
    "status::",
    "recall::",
    "robustness::",
    // remaind-compact
    "commit::",
    "external::",
    // remaind-adapters
    "prop_import::",
    "beside_writers::",
    "--skip",
    "fleet_",
    "--skip",
    "a_rewritten_ledger_is_rebuilt",
];

/// The feature that compiles in the named failpoints of the CLI, the ledger and the atomic
/// store (the fault-injection tests of `remaind-cli`'s reliability suite need it).
const FAILPOINTS: &str = "remaind-cli/failpoints";

/// The crash-consistency run, on the test build (it has the failpoints).
fn reliability() -> Result<Job, String> {
    let binary = remaind_binary(Binary::Built, "the crash harness")?;
    let mut inner = bench_command(Binary::Built);
    inner.arg("chaos").arg("--remaind").arg(binary);
    Ok(Job::new("chaos", inner))
}

/// `cargo xtask mcp-interop`.
pub(crate) fn mcp_interop() -> Result<(), String> {
    alone("mcp-interop", crate::interop::job(Binary::Build))
}

/// `cargo xtask ui-browser`.
pub(crate) fn ui_browser() -> Result<(), String> {
    alone("ui-browser", crate::ui_browser::job(Binary::Build))
}

/// One suite run as its own xtask command, with the closing line `command: N passed, N failed`.
fn alone(command: &str, job: Result<Job, String>) -> Result<(), String> {
    let mut tally = Tally::default();
    let outcome = job.and_then(|job| crate::jobs::run(command, vec![job], 1, &mut tally));
    println!(
        "{command}: {} passed, {} failed",
        tally.passed, tally.failed
    );
    outcome
}

/// `cargo xtask golden [--accept]`.
pub(crate) fn golden(accept: bool) -> Result<(), String> {
    let mut tally = Tally::default();
    let mut test = cargo();
    test.args(["test", "--workspace", "golden_"])
        .env("INSTA_UPDATE", if accept { "always" } else { "no" });
    let outcome = test_step("golden suites", test, &mut tally);
    println!("golden: {} passed, {} failed", tally.passed, tally.failed);
    outcome
}

/// `cargo xtask prop [--cases N]`.
pub(crate) fn prop(cases: u32) -> Result<(), String> {
    let mut tally = Tally::default();
    let mut test = cargo();
    test.args(["test", "--workspace", "--release", "prop_"])
        .env("PROPTEST_CASES", cases.to_string());
    let outcome = test_step(
        &format!("property suites ({cases} cases each)"),
        test,
        &mut tally,
    );
    println!("prop: {} passed, {} failed", tally.passed, tally.failed);
    outcome
}

/// `cargo xtask bench [--quick] [--only LAYER]`: builds the release binary, then runs the
/// benchmarks in a release build of remaind-bench so library code is measured optimized.
pub(crate) fn bench(args: &[String]) -> Result<(), String> {
    // Only these layers run the `remaind` binary (compact for the packet of its session); the
    // others measure library calls in process.
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1));
    if only.is_none_or(|layer| {
        [
            "index",
            "search-eval",
            "ledger",
            "resume",
            "compact",
            "adapters",
            "memory",
            "mcp",
            "integrity",
            "process",
            "ui",
        ]
        .contains(&layer.as_str())
    }) {
        let mut build = cargo();
        build.args(["build", "--release", "-p", "remaind-cli"]);
        step("build release remaind", build)?;
    }
    let mut inner = cargo();
    inner.args([
        "run",
        "--quiet",
        "--release",
        "-p",
        "remaind-bench",
        "--",
        "bench",
    ]);
    // Options pass through unchanged; remaind-bench checks them.
    inner.args(args);
    step("benchmarks", inner)
}

/// `cargo xtask chaos [--kills N] [--seed S]`. A dev build: the harness only spawns and
/// checks child processes, and the dev build shares the test suite's compiled crates.
pub(crate) fn chaos(args: &[String]) -> Result<(), String> {
    let mut inner = bench_command(Binary::Build);
    inner.arg("chaos").args(args);
    step("chaos", inner)
}
