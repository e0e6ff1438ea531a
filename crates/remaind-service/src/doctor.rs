//! The wiring check behind `remaind doctor`: the binary on `PATH`, which runtimes have our
//! hooks (in the project and for the user), when each runtime's hooks last recorded
//! something, the last hook errors, and what to do about each problem.
//!
//! Findings are data: [`doctor`] never fails, it reports.

use std::collections::BTreeMap;

use camino::{Utf8Path, Utf8PathBuf};
use remaind_adapters::Runtime;
use remaind_adapters::install::Change;
use remaind_fs::ContextDir;
use remaind_ledger::Ledger;
use serde::Serialize;
use serde_json::Value;

use crate::UserEnv;
use crate::error::chain_text;

/// How many ledger events are read back for the hooks' last runs.
const LOOKBACK: usize = 20_000;
/// How many `hook-errors.jsonl` lines are shown.
const ERROR_LINES: usize = 5;

/// What [`doctor`] looks at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DoctorOptions {
    /// The project folder (the front-end's current directory).
    pub project: Utf8PathBuf,
    /// The `.context/` folder the front-end found, if any.
    pub context: Option<ContextDir>,
    /// The environment the user's settings and the binary are found by.
    pub env: UserEnv,
}

/// What [`doctor`] found (its JSON form is `remaind doctor --json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Doctor {
    /// The `remaind` the runtimes will run, if one is on `PATH`.
    pub binary: Option<Utf8PathBuf>,
    /// The `.context/` folder checked, if any.
    pub context: Option<Utf8PathBuf>,
    /// Every runtime, in the order the docs list them.
    pub runtimes: Vec<RuntimeWiring>,
    /// The last lines of `logs/hook-errors.jsonl`.
    pub hook_errors: Vec<String>,
    /// Each problem with its fix.
    pub problems: Vec<Problem>,
}

/// One runtime's wiring.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuntimeWiring {
    /// The runtime's name (`claude-code`).
    pub runtime: &'static str,
    /// Whether a settings file holds our hooks (as the recipe has them or not).
    pub wired: bool,
    /// Its settings files by scope (`project`, `user`; the user's is missing when `HOME`
    /// is not set).
    pub files: BTreeMap<&'static str, Wiring>,
    /// The last event its hooks recorded in the ledger.
    pub last_hook: Option<LastHook>,
}

/// A runtime's settings file and what it holds of ours.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Wiring {
    /// The settings file.
    pub file: Utf8PathBuf,
    /// What it holds of ours.
    pub state: WiringState,
    /// What is wrong with it, if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// What to do about it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

/// What a settings file holds of ours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum WiringState {
    /// There is no such file.
    Absent,
    /// The file cannot be read.
    Unreadable,
    /// The file cannot be merged into.
    Unparsable,
    /// The file holds none of our hooks.
    #[serde(rename = "not wired")]
    NotWired,
    /// Our hooks are there, as this version's recipe has them.
    Wired,
    /// Our hooks are there, but not as this version's recipe has them.
    Outdated,
}

impl WiringState {
    /// The word `remaind doctor` prints for it.
    pub fn as_str(self) -> &'static str {
        match self {
            WiringState::Absent => "absent",
            WiringState::Unreadable => "unreadable",
            WiringState::Unparsable => "unparsable",
            WiringState::NotWired => "not wired",
            WiringState::Wired => "wired",
            WiringState::Outdated => "outdated",
        }
    }
}

/// The last event a runtime's hooks recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LastHook {
    /// Its time.
    pub ts: String,
    /// The hook that recorded it.
    pub hook: String,
}

/// A problem and its fix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The runtime it is about, if one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime: Option<&'static str>,
    /// What is wrong.
    pub problem: String,
    /// What to do about it.
    pub fix: String,
}

impl Problem {
    fn new(runtime: Option<Runtime>, problem: String, fix: impl Into<String>) -> Problem {
        Problem {
            runtime: runtime.map(Runtime::as_str),
            problem,
            fix: fix.into(),
        }
    }
}

/// Checks the wiring of every runtime into the project and the user's settings, and the
/// hooks' traces in the folder's ledger. Never fails: what cannot be read is a problem.
pub fn doctor(opts: &DoctorOptions) -> Doctor {
    let project = &opts.project;
    let mut problems = Vec::new();
    let binary = opts.env.which_remaind();
    if binary.is_none() {
        problems.push(Problem::new(
            None,
            "`remaind` is not on PATH: the runtimes run `remaind hook …` and find nothing"
                .to_owned(),
            "put the binary on PATH (cargo install --locked --path crates/remaind-cli)",
        ));
    }
    let context = opts.context.as_ref();
    if context.is_none() {
        problems.push(Problem::new(
            None,
            format!("no .context/ in {project} or above: every hook does nothing here"),
            "run `remaind init` in the project",
        ));
    }
    let ledger = context.and_then(|c| Ledger::open(c.root()).ok());
    let runs = ledger.as_ref().map(last_runs).unwrap_or_default();
    let mut runtimes = Vec::new();
    for runtime in Runtime::all() {
        let mut files = BTreeMap::new();
        for (scope, user) in [("project", false), ("user", true)] {
            let Ok(file) = opts.env.settings_file(runtime, project, user) else {
                continue;
            };
            let w = wiring(runtime, file);
            if let (Some(problem), Some(fix)) = (&w.problem, &w.fix) {
                problems.push(Problem::new(
                    Some(runtime),
                    format!("{}: {problem}", w.file),
                    fix,
                ));
            }
            files.insert(scope, w);
        }
        let wired = files
            .values()
            .any(|w| matches!(w.state, WiringState::Wired | WiringState::Outdated));
        let last_hook = runs.get(runtime.as_str()).cloned();
        if wired && last_hook.is_none() && ledger.is_some() {
            problems.push(Problem::new(
                Some(runtime),
                format!(
                    "{runtime} is wired but none of its hooks has recorded anything in this \
                     ledger yet"
                ),
                format!(
                    "start a {runtime} session in this project; if nothing comes, check the \
                     runtime runs hooks and see the hook errors below"
                ),
            ));
        }
        runtimes.push(RuntimeWiring {
            runtime: runtime.as_str(),
            wired,
            files,
            last_hook,
        });
    }
    let hook_errors = context
        .map(|c| recent_hook_errors(c.root()))
        .unwrap_or_default();
    if !hook_errors.is_empty() {
        problems.push(Problem::new(
            None,
            format!(
                "{} recent line(s) in .context/{}",
                hook_errors.len(),
                remaind_fs::layout::HOOK_ERRORS_PATH
            ),
            "read each line's `error` (it says the fix); an unknown event means a hook the \
             recipe does not know: `remaind install <runtime>` rewires the recipe",
        ));
    }
    Doctor {
        binary,
        context: context.map(|c| c.root().to_owned()),
        runtimes,
        hook_errors,
        problems,
    }
}

/// A runtime's settings file and what it holds of ours.
fn wiring(runtime: Runtime, file: Utf8PathBuf) -> Wiring {
    let label = file.as_str();
    let (state, problem, fix) = match remaind_fs::read_file(&file) {
        Ok(None) => (WiringState::Absent, None, None),
        Err(e) => (
            WiringState::Unreadable,
            Some(chain_text(&e)),
            Some(format!("make {label} a regular file you can read")),
        ),
        Ok(Some(bytes)) => match remaind_adapters::install::install(runtime, label, Some(&bytes)) {
            Err(e) => (
                WiringState::Unparsable,
                Some(e.0),
                Some(format!("fix {label}, then run `remaind install {runtime}`")),
            ),
            Ok(plan) if !plan.had_ours => (
                WiringState::NotWired,
                None,
                Some(format!("`remaind install {runtime}` adds our hooks")),
            ),
            Ok(plan) if plan.change == Change::Unchanged => (WiringState::Wired, None, None),
            Ok(plan) => (
                WiringState::Outdated,
                Some(format!(
                    "the hooks differ from this version's recipe ({} to add, {} to remove)",
                    plan.added.len(),
                    plan.removed.len()
                )),
                Some(format!(
                    "`remaind install {runtime}` brings them up to date"
                )),
            ),
        },
    };
    Wiring {
        file,
        state,
        problem,
        fix,
    }
}

/// The last event each runtime's hooks recorded, from the newest events.
fn last_runs(ledger: &Ledger) -> BTreeMap<String, LastHook> {
    let mut out = BTreeMap::new();
    let Ok((head, _)) = ledger.head() else {
        return out;
    };
    let mut before = head + 1;
    let mut read = 0;
    while before > 1 && read < LOOKBACK {
        let Ok(chunk) = ledger.before(before, 1000, &remaind_events::Filter::default()) else {
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
                out.entry(runtime.to_owned()).or_insert_with(|| LastHook {
                    ts: ev.ts.clone(),
                    hook: hook.to_owned(),
                });
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
