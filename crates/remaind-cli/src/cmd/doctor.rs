//! `remaind doctor`: is Remaind wired into the runtimes, and are the hooks running?

use std::collections::BTreeMap;
use std::process::ExitCode;

use camino::Utf8Path;
use remaind_adapters::Runtime;
use remaind_ledger::Ledger;
use serde_json::{Value, json};

use crate::cli_error::CliError;
use crate::cmd::install::{settings_file, which_remaind};
use crate::global::Global;

/// Check the wiring: the binary on PATH, which runtimes have our hooks (in the project and
/// for the user), when each runtime's hooks last recorded something, the last hook errors,
/// and what to do about each problem.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "The project is the current folder; the ledger is --dir, else REMAIND_DIR, else \
the nearest .context/. Always exits 0: the problems are in the report.\n\n\
Examples:\n  remaind doctor\n  remaind doctor --json"
)]
pub(crate) struct Args {
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// How many ledger events are read back for the hooks' last runs.
const LOOKBACK: usize = 20_000;
/// How many `hook-errors.jsonl` lines are shown.
const ERROR_LINES: usize = 5;

/// A runtime's settings file and what it holds of ours.
fn wiring(runtime: Runtime, file: &Utf8Path) -> Value {
    let label = file.as_str();
    let bytes = match remaind_fs::read_file(file) {
        Ok(Some(b)) => b,
        Ok(None) => return json!({"file": label, "state": "absent"}),
        Err(e) => {
            return json!({"file": label, "state": "unreadable",
                "problem": CliError::from(e).full_message(),
                "fix": format!("make {label} a regular file you can read")});
        }
    };
    match remaind_adapters::install::install(runtime, label, Some(&bytes)) {
        Err(e) => json!({"file": label, "state": "unparsable", "problem": e.0,
            "fix": format!("fix {label}, then run `remaind install {runtime}`")}),
        Ok(plan) if !plan.had_ours => json!({"file": label, "state": "not wired",
            "fix": format!("`remaind install {runtime}` adds our hooks")}),
        Ok(plan) if plan.change == remaind_adapters::install::Change::Unchanged => {
            json!({"file": label, "state": "wired"})
        }
        Ok(plan) => json!({"file": label, "state": "outdated",
            "problem": format!("the hooks differ from this version's recipe ({} to add, {} to remove)",
                plan.added.len(), plan.removed.len()),
            "fix": format!("`remaind install {runtime}` brings them up to date")}),
    }
}

/// The time of the last event each runtime's hooks recorded, from the newest events.
fn last_runs(ledger: &Ledger) -> BTreeMap<String, (String, String)> {
    let mut out = BTreeMap::new();
    let Ok((head, _)) = ledger.head() else {
        return out;
    };
    let mut before = head + 1;
    let mut read = 0;
    while before > 1 && read < LOOKBACK {
        let Ok(chunk) = ledger.before(before, 1000, &remaind_ledger::Filter::default()) else {
            break;
        };
        let Some(first) = chunk.first() else { break };
        before = first.seq;
        read += chunk.len();
        for ev in chunk.iter().rev() {
            let origin = ev.data.as_ref().and_then(|d| d.get("origin"));
            let runtime = origin
                .and_then(|o| o.get("runtime"))
                .and_then(Value::as_str);
            let hook = origin.and_then(|o| o.get("hook")).and_then(Value::as_str);
            if let (Some(runtime), Some(hook)) = (runtime, hook) {
                out.entry(runtime.to_owned())
                    .or_insert_with(|| (ev.ts.clone(), hook.to_owned()));
            }
        }
    }
    out
}

/// The last lines of the folder's hook error log (none when it is missing or unreadable).
fn recent_hook_errors(root: &Utf8Path) -> Vec<String> {
    remaind_fs::read_file(&root.join(remaind_fs::layout::HOOK_ERRORS_PATH))
        .ok()
        .flatten()
        .map(|b| {
            let text = String::from_utf8_lossy(&b).into_owned();
            let lines: Vec<String> = text.lines().map(str::to_owned).collect();
            lines[lines.len().saturating_sub(ERROR_LINES)..].to_vec()
        })
        .unwrap_or_default()
}

pub(crate) fn run(global: &Global, args: Args) -> Result<ExitCode, CliError> {
    let project = global.cwd()?;
    let mut problems: Vec<Value> = Vec::new();
    let binary = which_remaind();
    if binary.is_none() {
        problems.push(json!({"problem": "`remaind` is not on PATH: the runtimes run `remaind hook …` and find nothing",
            "fix": "put the binary on PATH (cargo install --locked --path crates/remaind-cli)"}));
    }
    let context = match global.dir {
        Some(_) => global.context().ok(),
        None => remaind_resume::discover(None, &project).ok(),
    };
    if context.is_none() {
        problems.push(json!({"problem": format!("no .context/ in {project} or above: every hook does nothing here"),
            "fix": "run `remaind init` in the project"}));
    }
    let ledger = context.as_ref().and_then(|c| Ledger::open(c.root()).ok());
    let runs = ledger.as_ref().map(last_runs).unwrap_or_default();
    let mut runtimes = Vec::new();
    for runtime in Runtime::all() {
        let mut scopes = serde_json::Map::new();
        let mut wired = false;
        for (scope, user) in [("project", false), ("user", true)] {
            let Ok(file) = settings_file(runtime, &project, user) else {
                continue;
            };
            let w = wiring(runtime, &file);
            wired |= matches!(w["state"].as_str(), Some("wired" | "outdated"));
            if w.get("problem").is_some() {
                problems.push(json!({"runtime": runtime.as_str(), "problem": format!("{}: {}", w["file"].as_str().unwrap_or(""), w["problem"].as_str().unwrap_or("")), "fix": w["fix"]}));
            }
            scopes.insert(scope.to_owned(), w);
        }
        let last = runs.get(runtime.as_str());
        if wired && last.is_none() && ledger.is_some() {
            problems.push(json!({"runtime": runtime.as_str(),
                "problem": format!("{runtime} is wired but none of its hooks has recorded anything in this ledger yet"),
                "fix": format!("start a {runtime} session in this project; if nothing comes, check the runtime runs hooks and see the hook errors below")}));
        }
        runtimes.push(json!({
            "runtime": runtime.as_str(),
            "wired": wired,
            "files": scopes,
            "last_hook": last.map(|(ts, hook)| json!({"ts": ts, "hook": hook})),
        }));
    }
    let errors = context
        .as_ref()
        .map(|c| recent_hook_errors(c.root()))
        .unwrap_or_default();
    if !errors.is_empty() {
        problems.push(json!({"problem": format!("{} recent line(s) in .context/{}", errors.len(), remaind_fs::layout::HOOK_ERRORS_PATH),
            "fix": "read each line's `error` (it says the fix); an unknown event means a hook the recipe does not know: `remaind install <runtime>` rewires the recipe"}));
    }
    if args.json {
        let out = json!({
            "binary": binary.as_ref().map(|b| b.as_str()),
            "context": context.as_ref().map(|c| c.root().as_str()),
            "runtimes": runtimes,
            "hook_errors": errors,
            "problems": problems,
        });
        println!("{out}");
        return Ok(ExitCode::SUCCESS);
    }
    match &binary {
        Some(b) => println!("binary: {b}"),
        None => println!("binary: not on PATH"),
    }
    match &context {
        Some(c) => println!("ledger: {}", c.root()),
        None => println!("ledger: none (no .context/ found)"),
    }
    for r in &runtimes {
        let name = r["runtime"].as_str().unwrap_or("");
        let files: Vec<String> = r["files"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(scope, w)| {
                format!(
                    "{scope} {} ({})",
                    w["file"].as_str().unwrap_or(""),
                    w["state"].as_str().unwrap_or("")
                )
            })
            .collect();
        let last = match &r["last_hook"] {
            Value::Null => "never".to_owned(),
            v => format!(
                "{} ({})",
                v["ts"].as_str().unwrap_or(""),
                v["hook"].as_str().unwrap_or("")
            ),
        };
        println!("{name}: {}; last hook: {last}", files.join(", "));
    }
    if !errors.is_empty() {
        println!("recent hook errors:");
        for line in &errors {
            println!("  {line}");
        }
    }
    if problems.is_empty() {
        println!("no problems found");
    }
    for p in &problems {
        println!(
            "problem: {}\n  fix: {}",
            p["problem"].as_str().unwrap_or(""),
            p["fix"].as_str().unwrap_or("")
        );
    }
    Ok(ExitCode::SUCCESS)
}
