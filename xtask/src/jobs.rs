//! CI's suites run side by side. Most of them wait on the processes they start (the CLI's
//! suite spawns `remaind` hundreds of times, the store suites wait on PostgreSQL, the crash
//! harness on the children it kills), so `cargo test`, which runs one test binary after
//! another, left a core idle for minutes. Here the test binaries `cargo test --no-run`
//! built, the store suites, the crash harness and the client suites are jobs that run a few
//! at a time, longest first; each job's output is captured and printed whole when it ends,
//! so two never interleave. A command still running after 20 minutes is killed and what it
//! printed is shown: a hung suite names itself instead of holding the run to CI's limit.

use std::collections::VecDeque;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::run::{Tally, cargo};

/// One process to run.
pub(crate) struct Job {
    pub(crate) name: String,
    pub(crate) cmd: Command,
    /// Whether the job fails when it reports no passed test (a suite that ran nothing must
    /// not pass); a unit-test binary of a crate without unit tests reports none by design.
    pub(crate) must_test: bool,
    /// A folder of the job's own, removed when it ends.
    pub(crate) scratch: Option<PathBuf>,
    /// Commands run after `cmd` in the same slot, each once the one before it succeeded:
    /// cargo commands, which side by side would only wait on each other's lock.
    pub(crate) then: Vec<Command>,
    /// How long each command may run before it is killed.
    pub(crate) limit: Duration,
}

/// How long one command of a job may run by default before it is killed, its output so far
/// shown: far above the longest suite (about two minutes on a loaded two-core machine), far
/// below CI's own limit, so that a hung suite names itself and shows where it stopped
/// instead of the whole run ending silently.
const LIMIT: Duration = Duration::from_secs(20 * 60);

impl Job {
    pub(crate) fn new(name: impl Into<String>, cmd: Command) -> Job {
        Job {
            name: name.into(),
            cmd,
            must_test: false,
            scratch: None,
            then: Vec::new(),
            limit: LIMIT,
        }
    }
}

/// A test executable `cargo test --no-run` built.
pub(crate) struct TestBinary {
    /// The package's name (`remaind-cli`).
    pub(crate) package: String,
    /// The target's name: `it` for a crate's integration suite, the crate's for its unit
    /// tests, `tidy`.
    pub(crate) target: String,
    pub(crate) path: PathBuf,
    /// The package's folder, where `cargo test` runs its binaries.
    pub(crate) dir: PathBuf,
}

impl TestBinary {
    /// The binary as `cargo test` runs it: from its package's folder, with the manifest
    /// folder in the environment (snapshot tests find their files from it).
    pub(crate) fn command(&self) -> Command {
        let mut cmd = Command::new(&self.path);
        cmd.current_dir(&self.dir)
            .env("CARGO_MANIFEST_DIR", &self.dir)
            .env("CARGO_PKG_NAME", &self.package);
        cmd
    }

    /// A crate's integration suite or the tidy checks, not a crate's unit tests.
    pub(crate) fn is_suite(&self) -> bool {
        self.target == "it" || self.target == "tidy"
    }

    /// `remaind-cli it`, `remaind-ledger unit`.
    pub(crate) fn label(&self) -> String {
        let kind = if self.is_suite() {
            self.target.as_str()
        } else {
            "unit"
        };
        format!("{} {kind}", self.package)
    }
}

/// Builds the test binaries with `args` after `cargo test --no-run` and lists them, as
/// cargo's JSON messages name them.
pub(crate) fn build_tests(name: &str, args: &[&str]) -> Result<Vec<TestBinary>, String> {
    eprintln!("\n==> {name}");
    let started = Instant::now();
    let mut cmd = cargo();
    cmd.args([
        "test",
        "--no-run",
        "--message-format=json-render-diagnostics",
    ])
    .args(args)
    .stdout(Stdio::piped());
    let out = cmd
        .spawn()
        .and_then(|child| child.wait_with_output())
        .map_err(|e| format!("{name}: cannot start cargo: {e}"))?;
    eprintln!("    {name}: {:.1}s", started.elapsed().as_secs_f64());
    if !out.status.success() {
        return Err(format!("{name} failed ({})", out.status));
    }
    let binaries: Vec<TestBinary> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(test_binary)
        .collect();
    if binaries.is_empty() {
        return Err(format!("{name} built no test binary"));
    }
    Ok(binaries)
}

/// The test binary a `compiler-artifact` message names, if it names one.
fn test_binary(message: &str) -> Option<TestBinary> {
    if !message.starts_with("{\"reason\":\"compiler-artifact\"") {
        return None;
    }
    // `"test":true` in the profile: a test build (the target object has a `test` key too).
    let profile = &message[message.find("\"profile\":{")?..];
    if !profile[..profile.find('}')?].contains("\"test\":true") {
        return None;
    }
    let path = PathBuf::from(string_field(message, "executable")?);
    let manifest = PathBuf::from(string_field(message, "manifest_path")?);
    let target = string_field(&message[message.find("\"target\":{")?..], "name")?;
    Some(TestBinary {
        package: package_name(&string_field(message, "package_id")?, &manifest)?,
        target,
        path,
        dir: manifest.parent()?.to_path_buf(),
    })
}

/// The package's name in a package id: `path+file:///w/crates/a#b@0.1.0` names `b`, and
/// `path+file:///w/crates/a#0.1.0` names `a` (cargo leaves out a name its folder gives).
fn package_name(id: &str, manifest: &Path) -> Option<String> {
    let (_, spec) = id.rsplit_once('#')?;
    match spec.split_once('@') {
        Some((name, _)) => Some(name.to_owned()),
        None => Some(manifest.parent()?.file_name()?.to_str()?.to_owned()),
    }
}

/// The first string value of `key` in a JSON text (cargo's messages are one object a line,
/// and xtask stays free of dependencies).
fn string_field(json: &str, key: &str) -> Option<String> {
    let pattern = format!("\"{key}\":\"");
    let start = json.find(&pattern)? + pattern.len();
    let mut value = String::new();
    let mut chars = json[start..].chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(value),
            '\\' => match chars.next()? {
                'n' => value.push('\n'),
                't' => value.push('\t'),
                'u' => {
                    let hex: String = chars.by_ref().take(4).collect();
                    value.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                }
                other => value.push(other),
            },
            c => value.push(c),
        }
    }
    None
}

/// What one job did.
struct Ended {
    name: String,
    output: std::io::Result<Output>,
    took: Duration,
    must_test: bool,
}

/// Runs `jobs`, `slots` at a time in the order given, printing each one's output whole as
/// it ends and adding its `test result:` lines to `tally`. Every job runs even when one
/// fails; the error names each failure.
pub(crate) fn run(
    phase: &str,
    jobs: Vec<Job>,
    slots: usize,
    tally: &mut Tally,
) -> Result<(), String> {
    eprintln!("\n==> {phase}: {} jobs, {slots} at a time", jobs.len());
    let started = Instant::now();
    let queue = Mutex::new(VecDeque::from(jobs));
    let (ended_tx, ended) = mpsc::channel::<Ended>();
    let mut failures = Vec::new();
    std::thread::scope(|scope| {
        for _ in 0..slots.max(1) {
            let ended_tx = ended_tx.clone();
            let queue = &queue;
            scope.spawn(move || {
                while let Some(job) = queue.lock().ok().and_then(|mut q| q.pop_front()) {
                    if ended_tx.send(run_one(job)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(ended_tx);
        for job in ended {
            if let Some(failure) = report(job, started, tally) {
                failures.push(failure);
            }
        }
    });
    eprintln!("    {phase}: {:.1}s", started.elapsed().as_secs_f64());
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("; "))
    }
}

fn run_one(mut job: Job) -> Ended {
    eprintln!("    started: {}", job.name);
    let started = Instant::now();
    let mut output = output_within(&mut job.cmd, job.limit);
    for mut next in job.then {
        let Ok(out) = &mut output else { break };
        if !out.status.success() {
            break;
        }
        match output_within(&mut next, job.limit) {
            Ok(more) => {
                out.stdout.extend(more.stdout);
                out.stderr.extend(more.stderr);
                out.status = more.status;
            }
            Err(e) => {
                output = Err(e);
                break;
            }
        }
    }
    if let Some(scratch) = &job.scratch {
        let _ = std::fs::remove_dir_all(scratch);
    }
    Ended {
        name: job.name,
        output,
        took: started.elapsed(),
        must_test: job.must_test,
    }
}

/// `cmd.output()`, but a command still running after `limit` is killed and what it printed
/// until then is kept, with a line on stderr saying so.
fn output_within(cmd: &mut Command, limit: Duration) -> std::io::Result<Output> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let (stdout, stdout_reader) = drain(child.stdout.take());
    let (stderr, stderr_reader) = drain(child.stderr.take());
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            // Read to the end, as `output()` does.
            for reader in [stdout_reader, stderr_reader].into_iter().flatten() {
                let _ = reader.join();
            }
            return Ok(Output {
                status,
                stdout: taken(&stdout),
                stderr: taken(&stderr),
            });
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let status = child.wait()?;
            // Not joined: a process the command started may hold its pipes open.
            let mut stderr = taken(&stderr);
            stderr.extend_from_slice(
                format!(
                    "\nkilled after {:.1} s, its limit; the output above is what it printed\n",
                    limit.as_secs_f64()
                )
                .as_bytes(),
            );
            return Ok(Output {
                status,
                stdout: taken(&stdout),
                stderr,
            });
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

type Sink = Arc<Mutex<Vec<u8>>>;

/// What `pipe` gives, read into a buffer by a thread of its own.
fn drain(pipe: Option<impl Read + Send + 'static>) -> (Sink, Option<JoinHandle<()>>) {
    let sink = Sink::default();
    let reader = pipe.map(|mut pipe| {
        let sink = Arc::clone(&sink);
        std::thread::spawn(move || {
            let mut chunk = [0u8; 8192];
            while let Ok(n) = pipe.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                if let Ok(mut buf) = sink.lock() {
                    buf.extend_from_slice(&chunk[..n]);
                }
            }
        })
    });
    (sink, reader)
}

fn taken(sink: &Sink) -> Vec<u8> {
    sink.lock()
        .map(|mut buf| std::mem::take(&mut *buf))
        .unwrap_or_default()
}

/// Prints what a job printed and adds up its results; the failure, if it failed. The time
/// since the phase began says which job the phase waited on last.
fn report(job: Ended, phase: Instant, tally: &mut Tally) -> Option<String> {
    eprintln!("\n==> {}", job.name);
    let out = match job.output {
        Ok(out) => out,
        Err(e) => return Some(format!("{}: cannot start: {e}", job.name)),
    };
    let mut own = Tally::default();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        println!("{line}");
        own.add_line(line);
    }
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    eprintln!(
        "    {}: {:.1}s (ended {:.0} s into the phase)",
        job.name,
        job.took.as_secs_f64(),
        phase.elapsed().as_secs_f64()
    );
    tally.add(&own);
    if !out.status.success() {
        Some(format!("{} failed ({})", job.name, out.status))
    } else if job.must_test && own.passed == 0 {
        Some(format!("{} ran no test", job.name))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARTIFACT: &str = r#"{"reason":"compiler-artifact","package_id":"path+file:///w/crates/remaind-cli#0.1.0","manifest_path":"/w/crates/remaind-cli/Cargo.toml","target":{"kind":["test"],"crate_types":["bin"],"name":"it","src_path":"/w/crates/remaind-cli/tests/it/main.rs","edition":"2024","doc":false,"doctest":false,"test":true},"profile":{"opt_level":"0","debuginfo":1,"debug_assertions":true,"overflow_checks":true,"test":true},"features":[],"filenames":["/w/target/debug/deps/it-03e2"],"executable":"/w/target/debug/deps/it-03e2","fresh":true}"#;

    #[test]
    fn a_test_artifact_names_its_binary_package_and_folder() {
        let bin = test_binary(ARTIFACT).expect("a test binary");
        assert_eq!(bin.package, "remaind-cli");
        assert_eq!(bin.target, "it");
        assert_eq!(bin.path, Path::new("/w/target/debug/deps/it-03e2"));
        assert_eq!(bin.dir, Path::new("/w/crates/remaind-cli"));
        assert_eq!(bin.label(), "remaind-cli it");
    }

    #[test]
    fn a_binary_built_for_the_tests_to_run_is_not_a_test_binary() {
        let bin = ARTIFACT
            .replace(
                "\"overflow_checks\":true,\"test\":true",
                "\"overflow_checks\":true,\"test\":false",
            )
            .replace("\"kind\":[\"test\"]", "\"kind\":[\"bin\"]");
        assert!(test_binary(&bin).is_none());
        let no_exe = ARTIFACT.replace(
            "\"executable\":\"/w/target/debug/deps/it-03e2\"",
            "\"executable\":null",
        );
        assert!(test_binary(&no_exe).is_none());
        assert!(test_binary(r#"{"reason":"build-finished","success":true}"#).is_none());
    }

    #[test]
    fn a_package_id_names_its_package_with_or_without_the_name() {
        let manifest = Path::new("/w/xtask/bench/Cargo.toml");
        assert_eq!(
            package_name("path+file:///w/xtask/bench#remaind-bench@0.1.0", manifest).as_deref(),
            Some("remaind-bench")
        );
        assert_eq!(
            package_name("path+file:///w/xtask/bench#0.1.0", manifest).as_deref(),
            Some("bench")
        );
    }

    #[test]
    fn a_job_goes_on_to_its_next_command_only_after_a_success() {
        let sh = |script: &str| {
            let mut cmd = Command::new("sh");
            cmd.args(["-c", script]);
            cmd
        };
        let mut job = Job::new("three commands", sh("echo first"));
        job.then.push(sh("echo second; exit 3"));
        job.then.push(sh("echo third"));
        let out = run_one(job).output.expect("sh runs");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "first\nsecond\n");
        assert_eq!(out.status.code(), Some(3));
    }

    #[test]
    fn a_command_past_its_limit_is_killed_and_what_it_printed_is_kept() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo before; exec sleep 30"]);
        let mut job = Job::new("hangs", cmd);
        job.limit = Duration::from_millis(300);
        let started = Instant::now();
        let out = run_one(job).output.expect("sh runs");
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(String::from_utf8_lossy(&out.stdout), "before\n");
        assert!(!out.status.success());
        assert!(String::from_utf8_lossy(&out.stderr).contains("killed after 0.3 s"));
    }

    #[test]
    fn string_fields_are_unescaped() {
        assert_eq!(
            string_field(r#"{"a":"x\"y\\z\u00e9"}"#, "a").as_deref(),
            Some("x\"y\\zé")
        );
        assert_eq!(string_field(r#"{"a":1}"#, "a"), None);
    }
}
