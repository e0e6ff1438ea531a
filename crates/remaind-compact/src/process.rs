//! Running a compactor program: input on stdin, output from stdout, a hard deadline.
//!
//! One owner for the subtle parts (a process group of its own so a timeout kills everything
//! the program started, readers on their own threads so a full pipe never deadlocks, output taken
//! once it falls quiet after the program exits even when a grandchild in a session of its
//! own holds the pipes open), shared by `--compactor CMD` and the LLM
//! presets that drive a runtime's CLI.

use std::io::{Read, Write};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
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
    #[error("cannot start the program")]
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
    let stdout = drain(child.stdout.take(), MAX_OUTPUT + 1);
    let stderr = drain(child.stderr.take(), 1 << 20);

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
    // A writer still blocked on a pipe nobody reads (a grandchild holding stdin) is left to
    // end with EPIPE: joining it could wait for that grandchild.
    drop(writer);
    let Some(status) = status else {
        kill_group(pid);
        let _ = child.kill();
        let _ = child.wait();
        return Err(RunError::TimedOut(timeout));
    };
    // The program exited. Something it left running may hold the pipes open, even from a
    // session of its own that no group kill reaches: wait for the end of its output only
    // while the output still grows (and never past the deadline), then take what was read.
    let mut seen = stdout.len() + stderr.len();
    let mut quiet_since = Instant::now();
    while !(stdout.is_done() && stderr.is_done()) {
        let now = Instant::now();
        if now >= deadline || now.duration_since(quiet_since) >= QUIET_AFTER_EXIT {
            break;
        }
        thread::sleep(Duration::from_millis(5));
        let len = stdout.len() + stderr.len();
        if len != seen {
            seen = len;
            quiet_since = Instant::now();
        }
    }
    kill_group(pid);
    let stderr = stderr.take().unwrap_or_default();
    let stdout = stdout.take().map_err(RunError::Io)?;
    if stdout.len() as u64 > MAX_OUTPUT {
        return Err(RunError::TooLarge);
    }
    Ok(Finished {
        status,
        stdout,
        stderr,
    })
}

/// How long the output of a program that exited may stay silent before it is taken as
/// complete, when something it left running still holds the pipe open.
const QUIET_AFTER_EXIT: Duration = Duration::from_millis(500);

/// A pipe read to its end (or `limit` bytes) on a thread of its own, into a buffer the
/// caller may take at any time: the caller never waits for a writer that never closes.
struct Drain {
    buf: Arc<Mutex<Vec<u8>>>,
    /// Set (to the read's outcome) when the pipe reached its end or the limit.
    done: Arc<Mutex<Option<std::io::Result<()>>>>,
}

fn drain(pipe: Option<impl Read + Send + 'static>, limit: u64) -> Drain {
    let buf = Arc::new(Mutex::new(Vec::new()));
    let done = Arc::new(Mutex::new(None));
    let (b, d) = (Arc::clone(&buf), Arc::clone(&done));
    thread::spawn(move || {
        let res = match pipe {
            Some(p) => copy_into(p.take(limit), &b),
            None => Ok(()),
        };
        *d.lock().unwrap_or_else(|p| p.into_inner()) = Some(res);
    });
    Drain { buf, done }
}

fn copy_into(mut from: impl Read, into: &Mutex<Vec<u8>>) -> std::io::Result<()> {
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        match from.read(&mut chunk) {
            Ok(0) => return Ok(()),
            Ok(n) => into
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

impl Drain {
    fn len(&self) -> usize {
        self.buf.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    fn is_done(&self) -> bool {
        self.done
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
    }

    /// What was read so far, or the read's error when it failed.
    fn take(self) -> std::io::Result<Vec<u8>> {
        if let Some(Err(e)) = self.done.lock().unwrap_or_else(|p| p.into_inner()).take() {
            return Err(e);
        }
        Ok(std::mem::take(
            &mut *self.buf.lock().unwrap_or_else(|p| p.into_inner()),
        ))
    }
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
