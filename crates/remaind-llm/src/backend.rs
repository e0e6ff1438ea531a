//! Asking a model: the `claude` and `codex` CLIs with the prompt on stdin, or an
//! OpenAI-compatible endpoint (http.rs). Each returns the model's text and the tokens spent.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use remaind_compact::process::{self, RunError};
use serde_json::Value;

use crate::config::{CliPreset, Config, Preset};
use crate::http;

/// Tokens a call spent, as the runtime or server reported them (0 when it did not).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Tokens {
    /// Prompt tokens, cached ones included.
    pub input: u64,
    /// Answer tokens.
    pub output: u64,
}

impl std::ops::AddAssign for Tokens {
    fn add_assign(&mut self, other: Tokens) {
        self.input += other.input;
        self.output += other.output;
    }
}

/// What a model answered.
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    pub(crate) text: String,
    pub(crate) tokens: Tokens,
}

/// Why a call gave no answer.
#[derive(Debug)]
pub(crate) enum CallError {
    /// A setting points at something that is not there (a missing CLI, an unset key, an
    /// unreachable endpoint).
    Setting { setting: String, reason: String },
    /// The call ran and failed (timeout, non-zero exit, HTTP error, unreadable reply).
    Failed(String),
}

/// Check that `preset` can be used as configured (its CLI is on PATH, its key is set)
/// before anything is asked.
pub(crate) fn preflight(config: &Config, preset: Preset) -> Result<(), CallError> {
    match preset {
        Preset::Claude => locate(&config.claude, "claude", "Claude Code").map(drop),
        Preset::Codex => locate(&config.codex, "codex", "Codex").map(drop),
        Preset::OpenAi => http::api_key(&config.openai).map(drop),
    }
}

/// Ask `preset` with `prompt`, waiting at most `timeout`.
pub(crate) fn ask(
    config: &Config,
    preset: Preset,
    prompt: &str,
    timeout: Duration,
) -> Result<Answer, CallError> {
    match preset {
        Preset::Claude => claude(&config.claude, prompt, timeout),
        Preset::Codex => codex(&config.codex, prompt, timeout),
        Preset::OpenAi => http::chat(&config.openai, prompt, timeout),
    }
}

/// The executable of a CLI preset: PROGRAM itself when it holds a `/`, else the first match
/// on PATH.
#[expect(
    clippy::disallowed_methods,
    reason = "a CLI backend is found on PATH as a shell would find it"
)]
fn locate(cli: &CliPreset, name: &str, product: &str) -> Result<PathBuf, CallError> {
    let program = Path::new(&cli.program);
    let found = if cli.program.contains('/') {
        is_executable(program).then(|| program.to_owned())
    } else {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(program))
                .find(|p| is_executable(p))
        })
    };
    found.ok_or_else(|| CallError::Setting {
        setting: format!("{name}.program"),
        reason: format!(
            "`{}` is not an executable {}; install {product} and log in, or set \
             {name}.program in .context/schemas/llm.json to its full path",
            cli.program,
            if cli.program.contains('/') {
                "file"
            } else {
                "on PATH"
            }
        ),
    })
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Run a CLI preset with `prompt` on stdin; its stdout on success.
fn run_cli(
    cli: &CliPreset,
    name: &str,
    product: &str,
    args: Vec<String>,
    prompt: &str,
    timeout: Duration,
) -> Result<Vec<u8>, CallError> {
    let exe = locate(cli, name, product)?;
    let mut cmd = Command::new(exe);
    cmd.args(args);
    let done = process::run_piped(cmd, prompt.as_bytes().to_vec(), timeout).map_err(|e| {
        CallError::Failed(match e {
            RunError::TimedOut(d) => format!(
                "`{}` timed out after {:.1}s and was killed ({name}.timeout_secs, or the time \
                 limit)",
                cli.program,
                d.as_secs_f64()
            ),
            other => match chain(&other) {
                cause if cause.is_empty() => format!("`{}` {other}", cli.program),
                cause => format!("`{}` {other}: {cause}", cli.program),
            },
        })
    })?;
    if !done.status.success() {
        // Claude Code prints its error as the JSON result even when it exits non-zero.
        let said = serde_json::from_slice::<Value>(&done.stdout)
            .ok()
            .and_then(|v| v.get("result").and_then(Value::as_str).map(str::to_owned))
            .map(|r| format!("; it said: {}", excerpt(&r)))
            .unwrap_or_default();
        return Err(CallError::Failed(format!(
            "`{}` {}{said}{}",
            cli.program,
            process::describe_exit(done.status),
            process::stderr_note(&done.stderr)
        )));
    }
    Ok(done.stdout)
}

fn claude(cli: &CliPreset, prompt: &str, timeout: Duration) -> Result<Answer, CallError> {
    let mut args: Vec<String> = ["-p", "--output-format", "json"].map(String::from).into();
    if let Some(model) = &cli.model {
        args.extend(["--model".to_owned(), model.clone()]);
    }
    args.extend(cli.args.iter().cloned());
    let stdout = run_cli(cli, "claude", "Claude Code", args, prompt, timeout)?;
    let reply: Value = serde_json::from_slice(&stdout).map_err(|e| {
        CallError::Failed(format!(
            "`{} -p --output-format json` printed something that is not its JSON result ({e}): {}",
            cli.program,
            excerpt(&String::from_utf8_lossy(&stdout))
        ))
    })?;
    let text = reply.get("result").and_then(Value::as_str);
    if reply.get("is_error").and_then(Value::as_bool) == Some(true) || text.is_none() {
        let subtype = reply.get("subtype").and_then(Value::as_str).unwrap_or("");
        return Err(CallError::Failed(format!(
            "claude reported an error ({subtype}): {}",
            excerpt(text.unwrap_or(""))
        )));
    }
    let usage = reply.get("usage");
    let n = |k: &str| {
        usage
            .and_then(|u| u.get(k))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    Ok(Answer {
        text: text.unwrap_or_default().to_owned(),
        tokens: Tokens {
            input: n("input_tokens")
                + n("cache_creation_input_tokens")
                + n("cache_read_input_tokens"),
            output: n("output_tokens"),
        },
    })
}

fn codex(cli: &CliPreset, prompt: &str, timeout: Duration) -> Result<Answer, CallError> {
    let mut args: Vec<String> = [
        "exec",
        "--json",
        "--skip-git-repo-check",
        "--sandbox",
        "read-only",
    ]
    .map(String::from)
    .into();
    if let Some(model) = &cli.model {
        args.extend(["--model".to_owned(), model.clone()]);
    }
    args.extend(cli.args.iter().cloned());
    args.push("-".to_owned()); // the prompt comes on stdin
    let stdout = run_cli(cli, "codex", "Codex", args, prompt, timeout)?;
    // JSONL: the last agent_message is the answer; turn.completed carries the usage.
    let mut text = None;
    let mut tokens = Tokens::default();
    let mut errors = Vec::new();
    for line in String::from_utf8_lossy(&stdout).lines() {
        let Ok(event) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let str_at = |ptr: &str| event.pointer(ptr).and_then(Value::as_str);
        match str_at("/type") {
            Some("item.completed") if str_at("/item/type") == Some("agent_message") => {
                text = str_at("/item/text").map(str::to_owned);
            }
            Some("turn.completed") => {
                let n = |k: &str| {
                    event
                        .pointer(&format!("/usage/{k}"))
                        .and_then(Value::as_u64)
                        .unwrap_or(0)
                };
                tokens += Tokens {
                    input: n("input_tokens"),
                    output: n("output_tokens"),
                };
            }
            Some("turn.failed") => errors.extend(str_at("/error/message").map(str::to_owned)),
            Some("error") => errors.extend(str_at("/message").map(str::to_owned)),
            _ => {}
        }
    }
    match text {
        Some(text) if errors.is_empty() => Ok(Answer { text, tokens }),
        _ if !errors.is_empty() => Err(CallError::Failed(format!(
            "codex reported: {}",
            excerpt(&errors.join("; "))
        ))),
        _ => Err(CallError::Failed(format!(
            "`{} exec --json` printed no agent message: {}",
            cli.program,
            excerpt(&String::from_utf8_lossy(&stdout))
        ))),
    }
}

/// The causes of an error, joined.
fn chain(err: &dyn std::error::Error) -> String {
    let mut parts = Vec::new();
    let mut source = err.source();
    while let Some(e) = source {
        parts.push(e.to_string());
        source = e.source();
    }
    parts.join(": ")
}

/// At most 300 characters of `text`, on one line.
pub(crate) fn excerpt(text: &str) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 300 {
        let cut: String = one_line.chars().take(299).collect();
        format!("{cut}…")
    } else if one_line.is_empty() {
        "(nothing)".to_owned()
    } else {
        one_line
    }
}
