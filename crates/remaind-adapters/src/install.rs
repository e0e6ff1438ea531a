//! `remaind install`: Remaind's hooks merged into a runtime's settings file (and taken out
//! again), keeping every hook the user has. Pure: bytes in, bytes out; the caller reads,
//! backs up and writes.
//!
//! Ours are the hooks whose command runs `remaind hook` (any path to the binary); the recipes
//! are the files under `examples/`, so what `install` writes is what the docs show.

use serde_json::{Map, Value};

use crate::signal::Runtime;

/// Where a runtime keeps its hooks, relative to a project folder or to `$HOME`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SettingsPath {
    /// Under the project folder.
    pub project: &'static str,
    /// Under `$HOME` (OpenCode's under `$XDG_CONFIG_HOME` when set: `opencode/plugins/...`).
    pub user: &'static str,
}

impl Runtime {
    /// The file `remaind install` writes for this runtime.
    pub fn settings_path(self) -> SettingsPath {
        match self {
            Runtime::ClaudeCode => SettingsPath {
                project: ".claude/settings.json",
                user: ".claude/settings.json",
            },
            Runtime::Codex => SettingsPath {
                project: ".codex/hooks.json",
                user: ".codex/hooks.json",
            },
            Runtime::Cursor => SettingsPath {
                project: ".cursor/hooks.json",
                user: ".cursor/hooks.json",
            },
            Runtime::Gemini => SettingsPath {
                project: ".gemini/settings.json",
                user: ".gemini/settings.json",
            },
            Runtime::OpenCode => SettingsPath {
                project: ".opencode/plugins/remaind.js",
                user: ".config/opencode/plugins/remaind.js",
            },
        }
    }

    /// The recipe `remaind install` merges (the file under `examples/`).
    pub fn recipe(self) -> &'static str {
        match self {
            Runtime::ClaudeCode => include_str!("../../../examples/claude-code/settings.json"),
            Runtime::Codex => include_str!("../../../examples/codex/hooks.json"),
            Runtime::Cursor => include_str!("../../../examples/cursor/hooks.json"),
            Runtime::Gemini => include_str!("../../../examples/gemini/settings.json"),
            Runtime::OpenCode => include_str!("../../../examples/opencode/remaind.js"),
        }
    }
}

/// The first line of the OpenCode plugin: a file that starts with it is Remaind's.
pub(crate) const PLUGIN_MARK: &str = "// Remaind for OpenCode";

/// Whether `command` runs `remaind hook` (`remaind`, `/usr/local/bin/remaind`, ...).
pub(crate) fn is_ours(command: &str) -> bool {
    let mut words = command.split_whitespace();
    let bin = words.next().unwrap_or("");
    let name = bin.rsplit(['/', '\\']).next().unwrap_or(bin);
    matches!(name, "remaind" | "remaind.exe") && words.next() == Some("hook")
}

/// The settings file as installing or removing our hooks leaves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Nothing to change: the file already is what it should be.
    Unchanged,
    /// Write these bytes.
    Write(Vec<u8>),
    /// Remove the file (it held only our hooks, and did not exist before).
    Remove,
}

/// What an install or an uninstall does.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Plan {
    /// The change to make.
    pub change: Change,
    /// Our hooks added (`Event: command`).
    pub added: Vec<String>,
    /// Our hooks removed (`Event: command`).
    pub removed: Vec<String>,
    /// The user's hooks, kept as they were.
    pub kept: usize,
    /// Whether the file held any hook of ours before (then it is not backed up: the backup
    /// keeps the file as it was without us).
    pub had_ours: bool,
}

impl Plan {
    /// Nothing to do (no file to take our hooks out of).
    pub fn unchanged() -> Self {
        Plan {
            change: Change::Unchanged,
            added: Vec::new(),
            removed: Vec::new(),
            kept: 0,
            had_ours: false,
        }
    }
}

/// Why a settings file cannot be changed: what is wrong and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SettingsError(pub String);

/// One hook entry: the event it is under and its command.
struct Entry {
    event: String,
    command: String,
}

/// The hooks object of a JSON settings file, with the fields checked.
fn hooks_of(
    runtime: Runtime,
    root: &mut Map<String, Value>,
) -> Result<&mut Map<String, Value>, SettingsError> {
    let hooks = root
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else {
        return Err(SettingsError(
            "`hooks` must be an object of event names (fix or remove it)".to_owned(),
        ));
    };
    for (event, list) in hooks.iter() {
        let Value::Array(list) = list else {
            return Err(SettingsError(format!(
                "`hooks.{event}` must be an array (fix it by hand)"
            )));
        };
        for (i, item) in list.iter().enumerate() {
            if !item.is_object() {
                return Err(SettingsError(format!(
                    "`hooks.{event}[{i}]` must be an object (fix it by hand)"
                )));
            }
            if runtime != Runtime::Cursor && item.get("hooks").is_some_and(|h| !h.is_array()) {
                return Err(SettingsError(format!(
                    "`hooks.{event}[{i}].hooks` must be an array (fix it by hand)"
                )));
            }
        }
    }
    Ok(hooks)
}

fn command_of(v: &Value) -> Option<&str> {
    v.get("command").and_then(Value::as_str)
}

/// The entries of a hooks object (a group's inner hooks for the nested formats).
fn entries(runtime: Runtime, hooks: &Map<String, Value>) -> (Vec<Entry>, usize) {
    let mut ours = Vec::new();
    let mut theirs = 0;
    for (event, list) in hooks {
        for item in list.as_array().into_iter().flatten() {
            let commands: Vec<Option<&str>> = if runtime == Runtime::Cursor {
                vec![command_of(item)]
            } else {
                item.get("hooks")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(command_of)
                    .collect()
            };
            for c in commands {
                match c {
                    Some(c) if is_ours(c) => ours.push(Entry {
                        event: event.clone(),
                        command: c.to_owned(),
                    }),
                    _ => theirs += 1,
                }
            }
        }
    }
    (ours, theirs)
}

/// `hooks` without ours: our entries (and the groups and events left empty by them) removed.
fn strip(runtime: Runtime, hooks: &mut Map<String, Value>) {
    let events: Vec<String> = hooks.keys().cloned().collect();
    for event in events {
        let Some(Value::Array(list)) = hooks.get_mut(&event) else {
            continue;
        };
        let before = list.len();
        let mut touched = false;
        if runtime == Runtime::Cursor {
            list.retain(|item| !command_of(item).is_some_and(is_ours));
            touched = list.len() != before;
        } else {
            for item in list.iter_mut() {
                if let Some(Value::Array(inner)) = item.get_mut("hooks") {
                    let n = inner.len();
                    inner.retain(|h| !command_of(h).is_some_and(is_ours));
                    if inner.len() != n {
                        touched = true;
                    }
                }
            }
            if touched {
                list.retain(|item| {
                    item.get("hooks")
                        .and_then(Value::as_array)
                        .is_none_or(|inner| !inner.is_empty())
                });
            }
        }
        if touched && list.is_empty() {
            hooks.shift_remove(&event);
        }
    }
}

fn parse(file: &str, bytes: &[u8]) -> Result<Map<String, Value>, SettingsError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(SettingsError(format!(
            "{file} is not a JSON object; fix it (or move it away) and run `remaind install` again"
        ))),
        Err(e) => Err(SettingsError(format!(
            "{file} is not valid JSON ({e}); fix it (or move it away) and run `remaind install` \
             again; nothing was written"
        ))),
    }
}

fn render(root: &Map<String, Value>) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(root).unwrap_or_default();
    out.push(b'\n');
    out
}

fn recipe_hooks(runtime: Runtime) -> Map<String, Value> {
    serde_json::from_str::<Value>(runtime.recipe())
        .ok()
        .and_then(|v| v.get("hooks").and_then(Value::as_object).cloned())
        .unwrap_or_default()
}

/// The events and commands our recipe for `runtime` wires (for OpenCode, the events its
/// plugin runs `remaind hook opencode` for).
pub fn recipe_commands(runtime: Runtime) -> Vec<(String, String)> {
    if runtime == Runtime::OpenCode {
        let text = runtime.recipe();
        return text
            .match_indices("run(\"")
            .filter_map(|(i, m)| {
                let rest = &text[i + m.len()..];
                let event = &rest[..rest.find('"')?];
                Some((event.to_owned(), format!("remaind hook opencode {event}")))
            })
            .collect();
    }
    let (ours, _) = entries(runtime, &recipe_hooks(runtime));
    ours.into_iter().map(|e| (e.event, e.command)).collect()
}

/// Install our hooks for `runtime` into `existing` (the file's bytes; `None`: no file).
/// `file` names the file in errors.
pub fn install(
    runtime: Runtime,
    file: &str,
    existing: Option<&[u8]>,
) -> Result<Plan, SettingsError> {
    if runtime == Runtime::OpenCode {
        return install_plugin(file, existing);
    }
    let mut root = match existing {
        Some(bytes) => parse(file, bytes)?,
        None => Map::new(),
    };
    let original = root.clone();
    if runtime == Runtime::Cursor {
        match root.get("version") {
            None => {
                root.insert("version".into(), Value::from(1));
            }
            Some(v) if v.as_u64() == Some(1) => {}
            Some(v) => {
                return Err(SettingsError(format!(
                    "{file}: `version` is {v}; Remaind writes version 1 hooks (fix the file or \
                     install by hand from examples/cursor/hooks.json)"
                )));
            }
        }
    }
    let hooks = hooks_of(runtime, &mut root).map_err(|e| SettingsError(format!("{file}: {e}")))?;
    let (before, kept) = entries(runtime, hooks);
    strip(runtime, hooks);
    for (event, list) in recipe_hooks(runtime) {
        let slot = hooks
            .entry(event)
            .or_insert_with(|| Value::Array(Vec::new()));
        if let (Value::Array(slot), Value::Array(list)) = (slot, list) {
            slot.extend(list);
        }
    }
    let (after, _) = entries(runtime, hooks);
    let had_ours = !before.is_empty();
    let change = if existing.is_some() && root == original {
        Change::Unchanged
    } else {
        Change::Write(render(&root))
    };
    let lines = |v: &[Entry]| {
        v.iter()
            .map(|e| format!("{}: {}", e.event, e.command))
            .collect::<Vec<_>>()
    };
    let (before, after) = (lines(&before), lines(&after));
    Ok(Plan {
        added: after
            .iter()
            .filter(|e| !before.contains(e))
            .cloned()
            .collect(),
        removed: before
            .iter()
            .filter(|e| !after.contains(e))
            .cloned()
            .collect(),
        change,
        kept,
        had_ours,
    })
}

/// Take our hooks for `runtime` out of `existing`. `backup` is the file as it was before the
/// first install (`<file>.remaind-backup`): when what is left is what it held, its bytes come
/// back exactly; when there was no file before and only an empty shell is left, the file goes.
pub fn uninstall(
    runtime: Runtime,
    file: &str,
    existing: &[u8],
    backup: Option<&[u8]>,
) -> Result<Plan, SettingsError> {
    if runtime == Runtime::OpenCode {
        return uninstall_plugin(file, existing);
    }
    let mut root = parse(file, existing)?;
    let original = root.clone();
    let had_hooks_key = root.contains_key("hooks");
    let hooks = hooks_of(runtime, &mut root).map_err(|e| SettingsError(format!("{file}: {e}")))?;
    let (before, kept) = entries(runtime, hooks);
    strip(runtime, hooks);
    if !had_hooks_key {
        root.shift_remove("hooks");
    }
    let removed: Vec<String> = before
        .iter()
        .map(|e| format!("{}: {}", e.event, e.command))
        .collect();
    let plan = |change| Plan {
        change,
        added: Vec::new(),
        removed: removed.clone(),
        kept,
        had_ours: !before.is_empty(),
    };
    if before.is_empty() {
        return Ok(plan(if root == original {
            Change::Unchanged
        } else {
            Change::Write(render(&root))
        }));
    }
    if let Some(backup) = backup
        && parse(file, backup).ok().as_ref() == Some(&root)
    {
        return Ok(plan(Change::Write(backup.to_vec())));
    }
    let empty_hooks = root
        .get("hooks")
        .and_then(Value::as_object)
        .is_some_and(Map::is_empty);
    let only_shell = root.keys().all(|k| match k.as_str() {
        "hooks" => empty_hooks,
        "version" => runtime == Runtime::Cursor,
        _ => false,
    });
    if backup.is_none() && only_shell {
        return Ok(plan(Change::Remove));
    }
    Ok(plan(Change::Write(render(&root))))
}

fn install_plugin(file: &str, existing: Option<&[u8]>) -> Result<Plan, SettingsError> {
    let ours = Runtime::OpenCode.recipe().as_bytes();
    let added = vec![format!("plugin: {file}")];
    match existing {
        None => Ok(Plan {
            change: Change::Write(ours.to_vec()),
            added,
            removed: Vec::new(),
            kept: 0,
            had_ours: false,
        }),
        Some(bytes) if bytes == ours => Ok(Plan {
            change: Change::Unchanged,
            added: Vec::new(),
            removed: Vec::new(),
            kept: 0,
            had_ours: true,
        }),
        Some(bytes) if bytes.starts_with(PLUGIN_MARK.as_bytes()) => Ok(Plan {
            change: Change::Write(ours.to_vec()),
            added,
            removed: Vec::new(),
            kept: 0,
            had_ours: true,
        }),
        Some(_) => Err(SettingsError(format!(
            "{file} exists and was not written by Remaind (it does not start with \
             `{PLUGIN_MARK}`); rename it or remove it, then run `remaind install opencode` again"
        ))),
    }
}

fn uninstall_plugin(file: &str, existing: &[u8]) -> Result<Plan, SettingsError> {
    if !existing.starts_with(PLUGIN_MARK.as_bytes()) {
        return Err(SettingsError(format!(
            "{file} was not written by Remaind (it does not start with `{PLUGIN_MARK}`); \
             nothing removed"
        )));
    }
    Ok(Plan {
        change: Change::Remove,
        added: Vec::new(),
        removed: vec![format!("plugin: {file}")],
        kept: 0,
        had_ours: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ours_is_remaind_hook_under_any_path() {
        assert!(is_ours("remaind hook stop"));
        assert!(is_ours("/usr/local/bin/remaind hook cursor stop"));
        assert!(!is_ours("remaind-other hook stop"));
        assert!(!is_ours("echo remaind hook"));
        assert!(!is_ours("remaind resume"));
    }

    #[test]
    fn install_twice_is_once_and_uninstall_gives_the_bytes_back() {
        for runtime in [
            Runtime::ClaudeCode,
            Runtime::Codex,
            Runtime::Cursor,
            Runtime::Gemini,
        ] {
            let user: &[u8] = if runtime == Runtime::Cursor {
                b"{\"version\": 1, \"hooks\": {\"stop\": [{\"command\": \"./audit.sh\"}]}}\n"
            } else {
                b"{\"model\": \"x\", \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"./audit.sh\"}]}]}}\n"
            };
            let first = install(runtime, "f", Some(user)).unwrap_or_else(|e| panic!("{e}"));
            let Change::Write(once) = first.change else {
                panic!("{runtime}: the first install writes")
            };
            assert_eq!(first.kept, 1);
            let second = install(runtime, "f", Some(&once)).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(second.change, Change::Unchanged, "{runtime}");
            let back = uninstall(runtime, "f", &once, Some(user)).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(back.change, Change::Write(user.to_vec()), "{runtime}");
            let fresh = install(runtime, "f", None).unwrap_or_else(|e| panic!("{e}"));
            let Change::Write(fresh) = fresh.change else {
                panic!("{runtime}: a new file is written")
            };
            let gone = uninstall(runtime, "f", &fresh, None).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(gone.change, Change::Remove, "{runtime}");
        }
    }

    #[test]
    fn a_file_that_is_not_json_is_refused() {
        let e = install(
            Runtime::Gemini,
            ".gemini/settings.json",
            Some(b"{\"hooks\": "),
        )
        .err();
        assert!(e.is_some_and(|e| e.0.contains(".gemini/settings.json")));
        let e = install(Runtime::ClaudeCode, "f", Some(b"{\"hooks\": []}")).err();
        assert!(e.is_some_and(|e| e.0.contains("`hooks`")));
    }

    #[test]
    fn every_recipe_names_its_events() {
        for runtime in Runtime::all() {
            assert!(!recipe_commands(runtime).is_empty(), "{runtime}");
        }
    }
}
