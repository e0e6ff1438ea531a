//! `remaind install RUNTIME`: wire Remaind's hooks into a runtime's settings file.

use std::process::ExitCode;

use camino::{Utf8Path, Utf8PathBuf};
use remaind_adapters::Runtime;
use remaind_adapters::install::{self, Change, Plan};
use serde_json::json;

use crate::cli_error::CliError;
use crate::global::Global;

/// Wire Remaind's hooks into a runtime: merged into its settings file, keeping every hook
/// already there.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Files: claude-code .claude/settings.json, codex .codex/hooks.json, cursor \
.cursor/hooks.json, gemini .gemini/settings.json, opencode .opencode/plugins/remaind.js (with \
--user: the same under $HOME; OpenCode's under ~/.config/opencode/plugins/). Our hooks are the \
ones whose command runs `remaind hook`; installing twice leaves them once. Before an existing \
file is changed, it is copied to <file>.remaind-backup; --uninstall removes our hooks and gives \
back that file's bytes when nothing else changed. The recipes are the files under examples/.\n\n\
Examples:\n  remaind install claude-code\n  remaind install cursor --dry-run\n  \
remaind install gemini --user\n  remaind install opencode --uninstall"
)]
pub(crate) struct Args {
    /// The runtime to wire.
    #[arg(value_enum)]
    runtime: InstallRuntime,
    /// Into the user's settings under $HOME, for every project (default: into the project,
    /// the current folder; `--project` names a shared store's project, see docs/fleet.md).
    #[arg(long)]
    user: bool,
    /// Print what would change and write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Remove our hooks instead.
    #[arg(long)]
    uninstall: bool,
    /// Print the outcome as JSON.
    #[arg(long)]
    json: bool,
}

/// The runtimes `remaind install` wires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum InstallRuntime {
    /// Anthropic's Claude Code.
    ClaudeCode,
    /// OpenAI's Codex CLI.
    Codex,
    /// Cursor's agent.
    Cursor,
    /// Google's Gemini CLI.
    Gemini,
    /// OpenCode.
    Opencode,
}

impl From<InstallRuntime> for Runtime {
    fn from(r: InstallRuntime) -> Runtime {
        match r {
            InstallRuntime::ClaudeCode => Runtime::ClaudeCode,
            InstallRuntime::Codex => Runtime::Codex,
            InstallRuntime::Cursor => Runtime::Cursor,
            InstallRuntime::Gemini => Runtime::Gemini,
            InstallRuntime::Opencode => Runtime::OpenCode,
        }
    }
}

/// `$HOME` as an absolute UTF-8 path.
#[expect(clippy::disallowed_methods, reason = "the CLI reads the environment")]
pub(crate) fn home() -> Result<Utf8PathBuf, CliError> {
    match std::env::var("HOME") {
        Ok(h) if Utf8Path::new(&h).is_absolute() => Ok(Utf8PathBuf::from(h)),
        _ => Err(CliError::invalid(
            "--user: HOME is not set to an absolute path; set HOME, or install into the project \
             (--project)",
        )),
    }
}

/// The settings file of `runtime` for the project `project`, or the user's when `user`.
#[expect(clippy::disallowed_methods, reason = "the CLI reads the environment")]
pub(crate) fn settings_file(
    runtime: Runtime,
    project: &Utf8Path,
    user: bool,
) -> Result<Utf8PathBuf, CliError> {
    let rel = runtime.settings_path();
    if !user {
        return Ok(project.join(rel.project));
    }
    if runtime == Runtime::OpenCode
        && let Ok(xdg) = std::env::var("XDG_CONFIG_HOME")
        && Utf8Path::new(&xdg).is_absolute()
    {
        return Ok(Utf8PathBuf::from(xdg).join("opencode/plugins/remaind.js"));
    }
    Ok(home()?.join(rel.user))
}

/// The backup of `file`: `<file>.remaind-backup`.
pub(crate) fn backup_of(file: &Utf8Path) -> Utf8PathBuf {
    Utf8PathBuf::from(format!("{file}.remaind-backup"))
}

/// Reads `path`, refusing what cannot be written back safely (a symlink, a folder).
fn read(path: &Utf8Path) -> Result<Option<Vec<u8>>, CliError> {
    match remaind_fs::read_file(path) {
        Ok(bytes) => Ok(bytes),
        Err(remaind_fs::Error::Symlink { .. }) => Err(CliError::invalid(format!(
            "{path} is a symlink; Remaind writes only regular files: add the hooks by hand to \
             the file it points to (the recipe is under examples/), or replace the link with \
             the file"
        ))),
        Err(remaind_fs::Error::NotAFile { .. } | remaind_fs::Error::NotADirectory { .. }) => {
            Err(CliError::invalid(format!(
                "{path} is not a regular file; move it away and run `remaind install` again"
            )))
        }
        Err(e) => Err(CliError::from(e)),
    }
}

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let runtime = Runtime::from(args.runtime);
    let project = global.cwd()?;
    let file = settings_file(runtime, &project, args.user)?;
    let backup = backup_of(&file);
    let existing = read(&file)?;
    let label = file.as_str();
    let plan = if args.uninstall {
        match &existing {
            Some(bytes) => {
                let saved = read(&backup)?;
                install::uninstall(runtime, label, bytes, saved.as_deref())
            }
            None => Ok(Plan::unchanged()),
        }
    } else {
        install::install(runtime, label, existing.as_deref())
    }
    .map_err(|e| CliError::invalid(e.0))?;
    // Back up a file we change that holds none of our hooks yet: the file as the user had it.
    let back_up = !args.uninstall
        && existing.is_some()
        && !plan.had_ours
        && matches!(plan.change, Change::Write(_));
    // The backup is used up when its bytes come back.
    let restored = args.uninstall
        && matches!(&plan.change, Change::Write(b) if read(&backup).ok().flatten().as_ref() == Some(b));
    if !args.dry_run {
        apply(
            &file,
            &backup,
            &plan,
            existing.as_deref(),
            back_up,
            restored,
        )?;
    }
    let action = match (&plan.change, args.uninstall) {
        (Change::Unchanged, false) => "unchanged (already installed)",
        (Change::Unchanged, true) => "unchanged (nothing of ours to remove)",
        (Change::Write(_), false) if existing.is_none() => "created",
        (Change::Write(_), false) => "updated",
        (Change::Write(_), true) if restored => "restored from the backup",
        (Change::Write(_), true) => "updated",
        (Change::Remove, _) => "removed",
    };
    let notes = notes(runtime, &project, args.user, args.uninstall);
    if args.json {
        let out = json!({
            "runtime": runtime.as_str(),
            "scope": if args.user { "user" } else { "project" },
            "file": file.as_str(),
            "dry_run": args.dry_run,
            "action": action,
            "added": plan.added,
            "removed": plan.removed,
            "kept": plan.kept,
            "backup": back_up.then(|| backup.as_str()),
            "notes": notes,
        });
        println!("{out}");
        return Ok(ExitCode::SUCCESS);
    }
    let verb = if args.dry_run { "would be" } else { "" };
    println!(
        "remaind install {runtime}{}: {file} {verb}{}{action}",
        if args.uninstall { " --uninstall" } else { "" },
        if args.dry_run { " " } else { "" },
    );
    for line in &plan.removed {
        println!("  - {line}");
    }
    for line in &plan.added {
        println!("  + {line}");
    }
    if plan.kept > 0 {
        println!("  = {} hook(s) of yours kept as they were", plan.kept);
    }
    if back_up {
        let verb = if args.dry_run {
            "would be saved"
        } else {
            "saved"
        };
        println!("  backup: the file as it was {verb} to {backup}");
    }
    for note in notes {
        println!("  note: {note}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes what `plan` says: the backup first, then the file (atomically), or its removal.
fn apply(
    file: &Utf8Path,
    backup: &Utf8Path,
    plan: &Plan,
    existing: Option<&[u8]>,
    back_up: bool,
    restored: bool,
) -> Result<(), CliError> {
    let dir = file
        .parent()
        .ok_or_else(|| CliError::invalid(format!("{file} has no folder")))?;
    let name = file
        .file_name()
        .ok_or_else(|| CliError::invalid(format!("{file} has no file name")))?;
    let backup_name = backup.file_name().unwrap_or("settings.remaind-backup");
    match &plan.change {
        Change::Unchanged => {}
        Change::Write(bytes) => {
            create_dirs(dir)?;
            if back_up && let Some(old) = existing {
                remaind_fs::replace_file(dir, backup_name, old)?;
            }
            remaind_fs::replace_file(dir, name, bytes)?;
            if restored {
                remaind_fs::remove_file(dir, backup_name)?;
            }
        }
        Change::Remove => {
            remaind_fs::remove_file(dir, name)?;
        }
    }
    Ok(())
}

/// Creates `dir` and the folders above it that are missing.
fn create_dirs(dir: &Utf8Path) -> Result<(), CliError> {
    let missing: Vec<&Utf8Path> = dir
        .ancestors()
        .take_while(|d| !d.as_str().is_empty() && !d.is_dir())
        .collect();
    for d in missing.into_iter().rev() {
        remaind_fs::ensure_dir(d, true)?;
    }
    Ok(())
}

/// What else the runtime needs for the hooks to run.
fn notes(runtime: Runtime, project: &Utf8Path, user: bool, uninstall: bool) -> Vec<String> {
    let mut out = Vec::new();
    if uninstall {
        return out;
    }
    if runtime == Runtime::Codex {
        out.push(
            "Codex runs hooks only with `[features] codex_hooks = true` in ~/.codex/config.toml"
                .to_owned(),
        );
    }
    if !user && remaind_resume::discover(None, project).is_err() {
        out.push(format!(
            "no .context/ in {project} or above: run `remaind init` there, or every hook does \
             nothing"
        ));
    }
    if which_remaind().is_none() {
        out.push(
            "`remaind` is not on PATH: the runtime runs `remaind hook ...`, so put the binary \
             on PATH"
                .to_owned(),
        );
    }
    out
}

/// The `remaind` the runtimes will run: the first on PATH.
#[expect(clippy::disallowed_methods, reason = "the CLI reads the environment")]
pub(crate) fn which_remaind() -> Option<Utf8PathBuf> {
    let path = std::env::var("PATH").ok()?;
    path.split(':')
        .filter(|d| !d.is_empty())
        .map(|d| Utf8PathBuf::from(d).join("remaind"))
        .find(|p| p.is_file())
}
