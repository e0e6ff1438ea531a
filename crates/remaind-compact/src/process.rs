//! Running a compactor program: input on stdin, output from stdout, a hard deadline.
//!
//! One owner for the subtle parts (a process group of its own so a timeout kills everything
//! the program started, readers on their own threads so a full pipe never deadlocks, a grace
//! period for grandchildren holding the pipes open), shared by `--compactor CMD` and the LLM
//! presets that drive a runtime's CLI.

use std::io::{Read, Write};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// Largest stdout accepted from a compactor program (64 MiB).
pub const MAX_OUTPUT: u64 = 64 << 20;
/// Most of stderr quoted in a message.
const STDERR_QUOTE: usize = 400;

/// How a program that ran to its end finished.
#[derive(Debug)]
pub struct Finished {
    /// Its exit status.
    pub status: ExitStatus,
    /// Everything it printed on stdout (at most [`MAX_OUTPUT`] bytes plus one).
    pub stdout: Vec<u8>,
    /// The first MiB of what it printed on stderr.
    pub stderr: Vec<u8>,
}

/// Why a program did not run to its end.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The program could not be started (not found, not executable).
    #[error("cannot start it")]
    Spawn(#[source] std::io::Error),
    /// Still running at the deadline: it and everything it started were killed.
    #[error("timed out after {:.1}s and was killed", .0.as_secs_f64())]
    TimedOut(Duration),
    /// Waiting for it or reading its output failed.
    #[error("cannot wait for it or read its output")]
    Io(#[source] std::io::Error),
    /// It printed more than [`MAX_OUTPUT`] on stdout.
    #[error("printed more than {} MiB", MAX_OUTPUT >> 20)]
    TooLarge,
}

/// Run `command` in a process group of its own with `stdin` written to it, and collect its
/// output; after `timeout` the whole group is killed and [`RunError::TimedOut`] returned.
pub fn run_piped(
    mut command: Command,
    stdin: Vec<u8>,
    timeout: Duration,
) -> Result<Finished, RunError> {
    let mut child = {
        use std::os::unix::process::CommandExt;
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(RunError::Spawn)?
    };
    let pid = child.id();
    let mut input = child.stdin.take();
    let writer = thread::spawn(move || {
        if let Some(mut s) = input.take() {
            // A program that exits without reading its input is judged by its output.
            let _ = s.write_all(&stdin);
        }
    });
    let stdout = child.stdout.take();
    let (out_tx, out_rx) = mpsc::channel();
    thread::spawn(move || {
        let mut out = Vec::new();
        let res = match stdout {
            Some(s) => s.take(MAX_OUTPUT + 1).read_to_end(&mut out).map(|_| out),
            None => Ok(out),
        };
        let _ = out_tx.send(res);
    });
    let stderr = child.stderr.take();
    let (err_tx, err_rx) = mpsc::channel();
    thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(s) = stderr {
            let _ = s.take(1 << 20).read_to_end(&mut out);
        }
        let _ = err_tx.send(out);
    });

    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() >= deadline => break None,
            Ok(None) => thread::sleep(Duration::from_millis(5)),
            Err(e) => {
                kill_group(pid);
                let _ = child.kill();
                let _ = child.wait();
                return Err(RunError::Io(e));
            }
        }
    };
    let Some(status) = status else {
        kill_group(pid);
        let _ = child.kill();
        let _ = child.wait();
        let _ = writer.join();
        return Err(RunError::TimedOut(timeout));
    };
    // The program exited. Something it left running may still hold the pipes open: give the
    // readers until the deadline (at least a moment), then kill the group and collect.
    let grace = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(200));
    let stdout = match out_rx.recv_timeout(grace) {
        Ok(res) => res,
        Err(_) => {
            kill_group(pid);
            out_rx.recv().unwrap_or_else(|_| Ok(Vec::new()))
        }
    };
    let stderr = err_rx
        .recv_timeout(Duration::from_millis(200))
        .unwrap_or_else(|_| {
            kill_group(pid);
            err_rx.recv().unwrap_or_default()
        });
    // A writer still blocked on a pipe nobody reads ends with EPIPE once the group is gone.
    drop(writer);
    let stdout = stdout.map_err(RunError::Io)?;
    if stdout.len() as u64 > MAX_OUTPUT {
        return Err(RunError::TooLarge);
    }
    Ok(Finished {
        status,
        stdout,
        stderr,
    })
}

/// `; stderr: <the last 400 characters, whitespace folded>`, or nothing when stderr is blank.
pub fn stderr_note(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let text = text.trim();
    if text.is_empty() {
        return String::new();
    }
    let start = text
        .char_indices()
        .rev()
        .nth(STDERR_QUOTE.saturating_sub(1))
        .map_or(0, |(i, _)| i);
    let tail: String = text[start..]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    format!("; stderr: {tail}")
}

/// `exited with status N` or `was killed by a signal`.
pub fn describe_exit(status: ExitStatus) -> String {
    match status.code() {
        Some(code) => format!("exited with status {code}"),
        None => "was killed by a signal".to_owned(),
    }
}

/// Kill the process group led by `pid` (the program and anything it started).
fn kill_group(pid: u32) {
    let pid = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw);
    if let Some(pid) = pid {
        // Already gone is fine: there is nothing left to stop.
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}
