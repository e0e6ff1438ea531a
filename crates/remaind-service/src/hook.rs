//! The hook runner: one call of a runtime's hook (Claude Code, Codex, Cursor, Gemini CLI,
//! OpenCode), from the names on the command line and the payload's bytes to what the
//! front-end prints and its exit code.
//!
//! `session-start` resumes and hands the packet back as `additionalContext`; `pre-compact`
//! records the `/compact` instructions and compacts through the validator; every other
//! event is mapped to ledger events by `remaind-adapters` (Cursor's, Gemini CLI's and
//! OpenCode's hooks first translated into the same events by `remaind_adapters::runtimes`),
//! with recall added where it bears. A hook fails open: whatever goes wrong is said on
//! stderr and kept (redacted, with the payload) in `logs/hook-errors.jsonl` when a folder is
//! found, and the hook exits 0, because a runtime reads exit 2 as "block": it would erase
//! the user's prompt, keep the agent from stopping or block a tool. Exit 3 (a rejected
//! PreCompact compaction) is a non-blocking error Claude Code and Codex show.
//!
//! The `.context/` folder is found once per call and the ledger opened once; both are
//! passed down to every step. Nothing here reads the environment: the front-end passes the
//! folder it was given and the current directory.

mod compact;
mod inject;
mod log;
mod outbox;
mod record;
mod reinject;

use std::time::Duration;

use camino::{Utf8Path, Utf8PathBuf};
use remaind_adapters::runtimes::{self, Inject};
use remaind_adapters::{HookEvent, Runtime};
use remaind_fs::ContextDir;
use serde_json::{Map, Value};

use crate::{Error, Result};

/// One hook call as a front-end received it.
#[derive(Debug)]
pub struct HookCall<'a> {
    /// The first name on the command line: the event (`session-start`, or the runtime's
    /// `SessionStart`), or, with [`runtime_event`](Self::runtime_event), the runtime
    /// (`cursor`).
    pub event: &'a str,
    /// The second name: the runtime's own event (`beforeSubmitPrompt`, `BeforeAgent`).
    pub runtime_event: Option<&'a str>,
    /// The runtime that sent the payload (`None`: read from the payload).
    pub runtime: Option<Runtime>,
    /// The payload's bytes as read on stdin (those read before a failure).
    pub input: &'a [u8],
    /// Why reading the payload failed, if it did: the hook records nothing and says so.
    pub input_error: Option<std::io::Error>,
    /// The folder the user named (`--dir`), over any discovery.
    pub dir: Option<&'a Utf8Path>,
    /// The process's current directory: a payload's relative `cwd` is read from it, and
    /// without a `cwd` the search for `.context/` starts there.
    pub cwd: std::io::Result<Utf8PathBuf>,
    /// pre-compact: ask this LLM preset (`claude`, `codex`, `openai`) instead of the
    /// built-in compactor, which still commits whatever goes wrong with the model.
    pub llm: Option<&'a str>,
    /// pre-compact with [`llm`](Self::llm): how long all model rounds may take.
    pub time_limit: Duration,
}

/// What a hook call leaves for the front-end to print, and the code it exits with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookOutcome {
    /// For stdout: the context the runtime adds (its JSON), or a compaction's line for a
    /// runtime that shows plain text.
    pub stdout: String,
    /// For stderr: what the hook could not do, and why.
    pub stderr: String,
    /// 0, or 3 when a Claude Code or Codex PreCompact compaction was rejected (a
    /// non-blocking error those runtimes show).
    pub code: u8,
}

impl HookOutcome {
    fn print(&mut self, line: &str) {
        self.stdout.push_str(line);
        self.stdout.push('\n');
    }

    fn eprint(&mut self, line: &str) {
        self.stderr.push_str(line);
        self.stderr.push('\n');
    }
}

/// Runs one hook call. Never fails: an error is said in [`HookOutcome::stderr`] and kept in
/// `logs/hook-errors.jsonl`, and the code stays 0.
///
/// ```no_run
/// use remaind_service::{HookCall, run_hook};
///
/// let outcome = run_hook(HookCall {
///     event: "user-prompt-submit",
///     runtime_event: None,
///     runtime: None,
///     input: br#"{"session_id": "s1", "prompt": "Ship it", "cwd": "."}"#,
///     input_error: None,
///     dir: None,
///     cwd: Ok("/srv/app".into()),
///     llm: None,
///     time_limit: std::time::Duration::from_secs(100),
/// });
/// print!("{}", outcome.stdout);
/// eprint!("{}", outcome.stderr);
/// std::process::exit(outcome.code.into());
/// ```
pub fn run_hook(mut call: HookCall<'_>) -> HookOutcome {
    let input_error = call.input_error.take();
    let mut hook = Hook {
        call: &call,
        out: HookOutcome::default(),
        found: None,
    };
    match input_error {
        Some(source) => hook.fail_open(call.event, Error::Stdin { source }),
        None => hook.dispatch(),
    }
    hook.out
}

/// One hook call as the recording path reads it: the Claude Code event it maps to, in the
/// payload fields that event reads.
struct Call<'a> {
    runtime: Runtime,
    event: HookEvent,
    payload: &'a Map<String, Value>,
    /// The runtime's own event name, kept as `data.origin.hook` (Cursor, Gemini, OpenCode).
    origin: Option<&'a str>,
    inject: Inject,
    /// `runtime` framing stated by the hook (its name and version).
    label: Option<String>,
    /// The user stopped the turn: an interrupt is recorded instead of the payload's records.
    interrupted: bool,
}

/// A running hook: its call, what it prints, and the folder once found (a failure is kept
/// there instead of searching again).
struct Hook<'c> {
    call: &'c HookCall<'c>,
    out: HookOutcome,
    found: Option<ContextDir>,
}

impl Hook<'_> {
    /// Reads the names and the payload, then records the call; a failure fails open.
    fn dispatch(&mut self) {
        let call = self.call;
        let (runtime, name) = match call.runtime_event {
            Some(name) => match call.event.parse::<Runtime>() {
                Ok(runtime) => (Some(runtime), name),
                Err(unknown) => {
                    let e = Error::HookForm {
                        reason: unknown.to_string(),
                    };
                    return self.fail_open(&format!("{} {name}", call.event), e);
                }
            },
            None => (call.runtime, call.event),
        };
        if let Some(runtime) = runtime.filter(|r| !r.reads_transcripts()) {
            return self.translated(runtime, name);
        }
        let Ok(event) = name.parse::<HookEvent>() else {
            let e = Error::UnknownHookEvent {
                runtime: None,
                name: name.to_owned(),
            };
            return self.fail_open(name, e);
        };
        let result = read_payload(call.input, &mut self.out).and_then(|payload| {
            let runtime = runtime.unwrap_or_else(|| remaind_adapters::detect_runtime(&payload));
            let call = Call {
                runtime,
                event,
                payload: &payload,
                origin: None,
                inject: Inject::SessionStart,
                label: None,
                interrupted: false,
            };
            self.handle(&call)
        });
        match result {
            Ok(code) => self.out.code = code,
            Err(e) => self.fail_open(event.cli_name(), e),
        }
    }

    /// A hook of Cursor, Gemini CLI or OpenCode: translated into the event and fields the
    /// recording path reads (`remaind_adapters::runtimes`), then recorded as Claude Code's
    /// are. Always exit 0: these runtimes read any other code as an error or a block.
    fn translated(&mut self, runtime: Runtime, name: &str) {
        let label = format!("{runtime} {name}");
        let payload = match read_payload(self.call.input, &mut self.out) {
            Ok(p) => p,
            Err(e) => return self.fail_open(&label, e),
        };
        let Some(t) = runtimes::translate(runtime, name, &payload) else {
            let e = Error::UnknownHookEvent {
                runtime: Some(runtime),
                name: name.to_owned(),
            };
            return self.fail_open(&label, e);
        };
        let Some(event) = t.hook else {
            // Documented, and carries nothing to record.
            return;
        };
        let call = Call {
            runtime,
            event,
            payload: &t.payload,
            origin: Some(t.event),
            inject: t.inject,
            label: Some(t.runtime_label.clone()),
            interrupted: t.interrupted,
        };
        if let Err(e) = self.handle(&call) {
            self.fail_open(&label, e);
        }
    }

    /// Says why the hook did nothing, on stderr and in `logs/hook-errors.jsonl` (in the
    /// folder the hook found, else the one the payload's `cwd` or the current directory
    /// leads to; the payload redacted with the project's rules, left out when they cannot
    /// be read).
    fn fail_open(&mut self, event: &str, e: Error) {
        let message = crate::error::chain_text(&e);
        self.out.eprint(&format!(
            "remaind hook {event}: {message}; the hook did nothing and exits 0 so the agent \
goes on"
        ));
        let ctx = self.found.take().or_else(|| {
            let payload = serde_json::from_slice::<Value>(self.call.input).ok();
            payload
                .as_ref()
                .and_then(Value::as_object)
                .and_then(|p| self.find_from(p))
                .or_else(|| self.find_from(&Map::new()))
        });
        if let Some(ctx) = ctx {
            self.keep_error(&ctx, event, &message, Some(self.call.input));
        }
    }

    /// The folder for `payload`, for a failure's record: none when it cannot be found.
    fn find_from(&self, payload: &Map<String, Value>) -> Option<ContextDir> {
        let start = self.start_dir(payload).ok()?;
        self.find_context(&start).ok().flatten()
    }

    /// The current directory, as the front-end read it.
    fn cwd(&self) -> Result<&Utf8Path> {
        match &self.call.cwd {
            Ok(cwd) => Ok(cwd),
            Err(e) => Err(Error::CurrentDir {
                source: std::io::Error::new(e.kind(), e.to_string()),
            }),
        }
    }

    /// Where the search for `.context/` starts, and the workspace the hook names: the
    /// payload's `cwd` (a relative one from the current directory), else the current
    /// directory.
    fn start_dir(&self, payload: &Map<String, Value>) -> Result<Utf8PathBuf> {
        Ok(match payload.get("cwd").and_then(Value::as_str) {
            Some(cwd) if !cwd.is_empty() => {
                let cwd = Utf8PathBuf::from(cwd);
                let cwd = if cwd.is_absolute() {
                    cwd
                } else {
                    self.cwd()?.join(cwd)
                };
                // Rebuilt from its components: `.` ones are dropped (a sample's `"cwd": "."`
                // names the folder, not `/srv/app/.`).
                cwd.components().collect()
            }
            _ => self.cwd()?.to_owned(),
        })
    }

    /// `dir`, else the nearest `.context/` from `start`. `None` when there is none: the
    /// project has not opted in.
    fn find_context(&self, start: &Utf8Path) -> Result<Option<ContextDir>> {
        if let Some(dir) = self.call.dir {
            return Ok(Some(remaind_fs::ContextDir::discover(
                Some(dir),
                self.cwd()?,
            )?));
        }
        match remaind_fs::ContextDir::discover(None, start) {
            Ok(ctx) => Ok(Some(ctx)),
            Err(remaind_fs::Error::NoContext { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }
}

/// The payload object (an empty one for an empty stdin).
fn read_payload(input: &[u8], out: &mut HookOutcome) -> Result<Map<String, Value>> {
    let payload: Value = if input.iter().all(u8::is_ascii_whitespace) {
        Value::Object(Map::new())
    } else {
        parse_payload(input, out)?
    };
    match payload {
        Value::Object(m) => Ok(m),
        _ => Err(Error::PayloadNotObject),
    }
}

/// The payload as JSON. A lone surrogate escape (an emoji cut in half) or a byte that is
/// not UTF-8 costs a character, not the prompt: it is replaced with U+FFFD, and said.
fn parse_payload(input: &[u8], out: &mut HookOutcome) -> Result<Value> {
    let source = match remaind_ledger::parse_json_strict(input) {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    let Some((fixed, n)) = remaind_adapters::repair_json_text(input) else {
        return Err(Error::PayloadNotJson { source });
    };
    let Ok(v) = remaind_ledger::parse_json_strict(fixed.as_bytes()) else {
        return Err(Error::PayloadNotJson { source });
    };
    out.eprint(&format!(
        "remaind hook: {n} character(s) of the payload could not be decoded and were replaced \
with U+FFFD"
    ));
    Ok(v)
}
