//! File recall: what the ledger holds about a file the agent is about to read or edit.

use camino::{Utf8Path, Utf8PathBuf};
use remaind_events::Filter;
use remaind_events::{Event, Kind};
use remaind_index::Index;
use remaind_ledger::Ledger;
use serde_json::Value;

use crate::prompt::is_own;
use crate::session;
use crate::{Recalled, Result, Settings, render};

/// Events read for one file, newest first.
const CANDIDATES: usize = 400;

/// Most edits, rulings and failures shown for one file.
const MOST_EDITS: usize = 3;
const MOST_RULINGS: usize = 3;
const MOST_FAILURES: usize = 2;

/// Names too common to stand for one file: a ruling must name the path.
const COMMON_NAMES: &[&str] = &[
    "Cargo.toml",
    "Makefile",
    "README.md",
    "__init__.py",
    "index.js",
    "index.ts",
    "lib.rs",
    "main.rs",
    "mod.rs",
    "package.json",
];

/// A short timeline of `path` (as the tool names it; relative to `workspace` when not
/// absolute) that `session` does not hold yet: its last edits with the turn each was made
/// in, the decisions, constraints and instructions that name it, and the failed tool calls
/// that touched it, oldest first, within the file budget. `None` when file recall is off or
/// the ledger holds nothing new about the file. What it returns counts as held by the
/// session from then on.
pub fn for_file(
    ledger: &Ledger,
    session: &str,
    path: &str,
    workspace: &Utf8Path,
) -> Result<Option<Recalled>> {
    let dir = ledger.context_dir();
    let settings = Settings::load(dir)?;
    let Some(target) = Target::new(path, workspace) else {
        return Ok(None);
    };
    if !settings.files {
        return Ok(None);
    }
    let held = session::held(dir, session)?;
    let mut index = Index::open(dir, ledger)?;
    let (mut edits, mut rulings, mut failures) = (Vec::new(), Vec::new(), Vec::new());
    for ev in index.mentioning(&target.name, CANDIDATES)? {
        if held.seqs.contains(&ev.seq) || is_own(&ev, session, &held) {
            continue;
        }
        match ev.kind {
            Kind::FileChange if edits.len() < MOST_EDITS && target.is_path(data_path(&ev)) => {
                edits.push(ev);
            }
            Kind::Decision
            | Kind::Constraint
            | Kind::Remember
            | Kind::Blocker
            | Kind::Correction
            | Kind::UserMessage
                if rulings.len() < MOST_RULINGS
                    && target.is_named_in(ev.text.as_deref().unwrap_or("")) =>
            {
                rulings.push(ev);
            }
            Kind::ToolResult
                if failures.len() < MOST_FAILURES
                    && render::failure(&ev).is_some()
                    && target.is_touched_by(&ev) =>
            {
                failures.push(ev);
            }
            _ => {}
        }
    }
    let mut items = Vec::new();
    edits.reverse();
    let mut last_turn = String::new();
    for ev in edits {
        // Each turn is named once, at its first edit shown.
        let turn = turn_of(&mut index, &ev)?;
        let note = if turn == last_turn {
            String::new()
        } else {
            turn.clone()
        };
        last_turn = turn;
        items.push((ev, note));
    }
    items.extend(rulings.into_iter().map(|ev| (ev, String::new())));
    items.extend(failures.into_iter().map(|ev| (ev, String::new())));
    items.sort_by_key(|(ev, _)| ev.seq);
    let heading = format!(
        "REMAIND history of {} (`remaind events --from eN --limit 1` shows one in full):",
        target.shown
    );
    let Some(recalled) = render::fit(&heading, &items, settings.file_budget_tokens) else {
        return Ok(None);
    };
    session::add(dir, session, &recalled.events)?;
    Ok(Some(recalled))
}

/// `in the turn of [eM] "…"`: the user's message the edit's turn answered, if any.
fn turn_of(index: &mut Index<'_>, ev: &Event) -> Result<String> {
    let filter = Filter {
        kinds: vec![Kind::UserMessage],
        min_importance: None,
    };
    Ok(match index.before(ev.seq, 1, &filter)?.pop() {
        Some(asked) => format!(
            "in the turn of [e{}] \"{}\"",
            asked.seq,
            render::one_line(asked.text.as_deref().unwrap_or(""), 80)
        ),
        None => String::new(),
    })
}

fn data_path(ev: &Event) -> &str {
    ev.data
        .as_ref()
        .and_then(|d| d.get("path"))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// The file asked about, in the forms events name it.
struct Target {
    absolute: Utf8PathBuf,
    /// Relative to the workspace, when inside it.
    relative: Option<String>,
    /// The file's name.
    name: String,
    /// How the heading names it.
    shown: String,
}

impl Target {
    fn new(path: &str, workspace: &Utf8Path) -> Option<Target> {
        let path = Utf8Path::new(path.trim());
        let joined = if path.is_absolute() {
            path.to_owned()
        } else {
            workspace.join(path)
        };
        // `.` parts dropped, so `./src/a.rs` is `src/a.rs`.
        let absolute: Utf8PathBuf = joined.components().collect();
        let name = absolute.file_name()?.to_owned();
        let relative = absolute
            .strip_prefix(workspace)
            .ok()
            .map(|r| r.as_str().to_owned())
            .filter(|r| !r.is_empty());
        let shown = relative.clone().unwrap_or_else(|| absolute.to_string());
        Some(Target {
            absolute,
            relative,
            name,
            shown,
        })
    }

    /// Whether `path` (a file change's) is this file: the same absolute path, the same
    /// relative one, or the relative one under another checkout of the project.
    fn is_path(&self, path: &str) -> bool {
        path == self.absolute.as_str()
            || self.relative.as_deref().is_some_and(|rel| {
                path == rel || (rel.contains('/') && path.ends_with(&format!("/{rel}")))
            })
    }

    /// Whether `text` names this file: by its path, or by its name when the name is not a
    /// common one.
    fn is_named_in(&self, text: &str) -> bool {
        let by_path = text.contains(self.absolute.as_str())
            || self
                .relative
                .as_deref()
                .is_some_and(|rel| rel.contains('/') && holds_word(text, rel));
        by_path || (!COMMON_NAMES.contains(&self.name.as_str()) && holds_word(text, &self.name))
    }

    /// Whether a failed tool call touched this file: its text or input names it.
    fn is_touched_by(&self, ev: &Event) -> bool {
        let input = ev
            .tool
            .as_ref()
            .map(|t| t.input.to_string())
            .unwrap_or_default();
        self.is_named_in(ev.text.as_deref().unwrap_or("")) || self.is_named_in(&input)
    }
}

/// Whether `text` holds `word` not glued to a longer name (`store.rs` in `src/store.rs`,
/// not in `mystore.rs` or `store.rsx`).
fn holds_word(text: &str, word: &str) -> bool {
    let glued = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(&glued) && !after.is_some_and(&glued)
    })
}

#[cfg(test)]
mod tests {
    use super::{Target, holds_word};
    use camino::Utf8Path;

    #[test]
    fn a_name_counts_only_where_it_is_not_part_of_a_longer_one() {
        assert!(holds_word("see src/store.rs for it", "store.rs"));
        assert!(holds_word("store.rs", "store.rs"));
        assert!(!holds_word("mystore.rs", "store.rs"));
        assert!(!holds_word("store.rsx", "store.rs"));
    }

    #[test]
    fn a_file_is_known_by_its_absolute_and_relative_paths() {
        let t = Target::new("./src/net/retry.rs", Utf8Path::new("/w/app")).unwrap();
        assert_eq!(t.shown, "src/net/retry.rs");
        assert!(t.is_path("/w/app/src/net/retry.rs"));
        assert!(t.is_path("src/net/retry.rs"));
        assert!(t.is_path("/other/checkout/src/net/retry.rs"));
        assert!(!t.is_path("/w/app/src/net/retry.rs.bak"));
        assert!(t.is_named_in("Decided: retry.rs backs off exponentially"));
        let lib = Target::new("/w/app/src/lib.rs", Utf8Path::new("/w/app")).unwrap();
        assert!(!lib.is_named_in("keep lib.rs small"));
        assert!(lib.is_named_in("keep src/lib.rs small"));
    }
}
