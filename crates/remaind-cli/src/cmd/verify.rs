//! `remaind verify`.

use std::process::ExitCode;

use remaind_ledger::Ledger;

use crate::cli_error::CliError;
use crate::global::Global;

/// Check the ledger (every line valid, seq gapless, ids, the hash chain, the SHA-256 of every
/// referenced artifact) and the derived-file bindings (state.json bound to this exact log
/// prefix, handover.md bound to state.json, no citation of a missing event). Exits 1 naming the
/// first bad line or file.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
remaind verify\n  \
remaind verify --json | jq '.problems[0]'\n\n\
Exit codes: 0 intact, 1 a problem was found (the first bad line or file is named).")]
pub(crate) struct Args {
    /// Print the full report as JSON.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let ctx = global.context()?;
    let to_verify = remaind_ledger::Options {
        to_verify: true,
        ..remaind_ledger::Options::default()
    };
    let ledger = Ledger::open_with(ctx.root(), &to_verify)?;
    let report = ledger.verify()?;
    drop(ledger);
    // The derived files are checked against a ledger that holds; a broken one is reported first.
    let derived = if report.is_ok() {
        remaind_resume::derived_conflicts(&ctx)?
    } else {
        Vec::new()
    };
    // The memory files are derived too: a command stopped between recording an action and
    // rewriting them leaves them behind the ledger until the next memory command.
    let memory_lag = if report.is_ok() {
        match remaind_memory::lag(&ctx) {
            Ok(lag) => lag.map(|why| {
                format!(
                    "{why}; any memory command (`remaind memory list`) rewrites them from the ledger"
                )
            }),
            // Unreadable (a symlink, say): a finding like any other, named with its cause.
            Err(e) => Some(format!(
                "cannot be checked: {}",
                CliError::from(e).full_message()
            )),
        }
    } else {
        None
    };
    let exposed = exposure(ctx.root().as_std_path());
    if args.json {
        // The ledger report's fields at the top, with the derived-file findings beside them.
        let mut doc =
            serde_json::to_value(&report).map_err(|e| CliError::runtime(e.to_string()))?;
        doc["derived"] =
            serde_json::to_value(&derived).map_err(|e| CliError::runtime(e.to_string()))?;
        doc["permissions"] = serde_json::Value::from(exposed.clone());
        doc["memory_lag"] = serde_json::Value::from(memory_lag.clone());
        doc["ok"] = serde_json::Value::Bool(
            report.is_ok() && derived.is_empty() && exposed.is_empty() && memory_lag.is_none(),
        );
        println!("{doc}");
    } else if report.is_ok() {
        println!(
            "ledger ok: {} lines, hash chain intact (head {}), {} artifacts verified",
            report.lines, report.head_digest, report.artifacts_checked
        );
    } else {
        for p in &report.problems {
            println!("{p}");
        }
        if report.problem_count > report.problems.len() as u64 {
            println!(
                "… and {} more",
                report.problem_count - report.problems.len() as u64
            );
        }
    }
    if !args.json {
        for finding in &exposed {
            println!("permissions: {finding}");
        }
        for reason in &derived {
            println!("derived files: {}: {}", reason.code, reason.message);
        }
        if let Some(lag) = &memory_lag {
            println!("memory files: {lag}");
        }
    }
    match (report.problems.first(), derived.first()) {
        (Some(first), _) => Err(CliError::runtime(format!(
            "verify failed: {first} ({} problem(s) in all)",
            report.problem_count + derived.len() as u64
        ))),
        (None, Some(reason)) => Err(CliError::runtime(format!(
            "verify failed: derived files disagree with the ledger: {} ({} problem(s) in all)",
            reason.message,
            derived.len()
        ))),
        (None, None) => match (exposed.first(), memory_lag) {
            (Some(first), _) => Err(CliError::runtime(format!(
                "verify failed: {first} ({} problem(s) in all)",
                exposed.len()
            ))),
            (None, Some(lag)) => Err(CliError::runtime(format!(
                "verify failed: the memory files lag the ledger: {lag}"
            ))),
            (None, None) => Ok(ExitCode::SUCCESS),
        },
    }
}

/// Entries of `.context/` (itself included, symlinks not followed) that another user could
/// change: writable by group or others, or owned by someone other than the user running
/// verify. docs/contract.md#the-folder: files 0600, folders 0700.
fn exposure(root: &std::path::Path) -> Vec<String> {
    use std::os::unix::fs::MetadataExt;
    let me = std::fs::metadata("/proc/self").map(|m| m.uid()).ok();
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(path) = stack.pop() {
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let mode = meta.mode() & 0o7777;
        if meta.file_type().is_symlink() {
            // A symlink's own mode is always 0777 and says nothing; that it is there does.
            let target = std::fs::read_link(&path)
                .map(|t| t.display().to_string())
                .unwrap_or_else(|_| "?".to_owned());
            out.push(format!(
                "{} is a symlink (to {target}), which Remaind refuses to follow; replace it \
with the file itself",
                path.display()
            ));
        } else if mode & 0o022 != 0 {
            out.push(format!(
                "{} is writable by group or others (mode {mode:04o}); run `chmod go-w` on it",
                path.display()
            ));
        }
        if me.is_some_and(|uid| uid != meta.uid()) {
            out.push(format!(
                "{} is owned by user {}, not by the user running verify",
                path.display(),
                meta.uid()
            ));
        }
        if meta.is_dir()
            && let Ok(entries) = std::fs::read_dir(&path)
        {
            stack.extend(entries.flatten().map(|e| e.path()));
        }
    }
    out.sort();
    out
}
