//! Compact one-line descriptions of tool calls, and the files a call changed.

use std::borrow::Cow;

use serde_json::Value;

/// Longest description, in characters.
const MAX_CHARS: usize = 200;
/// Longest quoted excerpt of an edit's old or new text.
const EXCERPT_CHARS: usize = 40;

/// Tools whose successful use changes the file named by `file_path` (or `notebook_path`).
const FILE_TOOLS: [&str; 4] = ["Write", "Edit", "MultiEdit", "NotebookEdit"];

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// The first non-blank line of `s`, whitespace collapsed, cut to `max` characters.
fn first_line(s: &str, max: usize) -> String {
    let line = s
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    cut(&line.split_whitespace().collect::<Vec<_>>().join(" "), max)
}

fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

fn lines_in(s: &str) -> usize {
    if s.is_empty() { 0 } else { s.lines().count() }
}

/// A tool input as an object: Codex gives function arguments as a JSON string. Borrowed
/// unless it had to be parsed (an Edit's or a Write's input is as large as the file).
pub(crate) fn input_object(input: &Value) -> Cow<'_, Value> {
    match input {
        Value::String(s) => serde_json::from_str::<Value>(s)
            .ok()
            .filter(Value::is_object)
            .map_or(Cow::Borrowed(input), Cow::Owned),
        _ => Cow::Borrowed(input),
    }
}

/// A one-line description of a tool call: an edit is `path: "old" → "new" (N lines)`, a
/// command is `$ command`, a read is `Read path`; never the payload itself.
pub fn describe_tool(name: &str, input: &Value, failed: bool) -> String {
    let input = input_object(input);
    let path = str_of(&input, "file_path")
        .or_else(|| str_of(&input, "notebook_path"))
        .or_else(|| str_of(&input, "path"));
    let text = match (name, path) {
        ("Edit", Some(p)) => {
            let old = str_of(&input, "old_string").unwrap_or("");
            let new = str_of(&input, "new_string").unwrap_or("");
            format!(
                "{p}: \"{}\" → \"{}\" ({} lines)",
                first_line(old, EXCERPT_CHARS),
                first_line(new, EXCERPT_CHARS),
                lines_in(new)
            )
        }
        ("MultiEdit", Some(p)) => {
            let edits = input.get("edits").and_then(Value::as_array);
            let n = edits.map_or(0, Vec::len);
            let lines: usize = edits
                .into_iter()
                .flatten()
                .map(|e| lines_in(str_of(e, "new_string").unwrap_or("")))
                .sum();
            format!("{p}: {n} edits ({lines} lines)")
        }
        ("Write", Some(p)) => format!(
            "{p}: written ({} lines)",
            lines_in(str_of(&input, "content").unwrap_or(""))
        ),
        ("NotebookEdit", Some(p)) => format!("{p}: notebook cell edited"),
        ("Read", Some(p)) => format!("Read {p}"),
        ("TodoWrite" | "update_plan", _) => plan_summary(&input),
        ("AskUserQuestion", _) => {
            let q = input
                .get("questions")
                .and_then(Value::as_array)
                .and_then(|qs| qs.first())
                .and_then(|q| str_of(q, "question"))
                .unwrap_or("");
            format!("Asked the user: {}", first_line(q, 160))
        }
        ("apply_patch", _) => {
            let files = patch_files(&input);
            if files.is_empty() {
                "apply_patch".to_owned()
            } else {
                format!("apply_patch: {}", files.join(", "))
            }
        }
        _ => {
            let command = match input.get("command").or_else(|| input.get("cmd")) {
                Some(Value::String(s)) => Some(s.clone()),
                // Codex's `shell` gives argv; `bash -lc "…"` is shown as its script.
                Some(Value::Array(argv)) => {
                    let parts: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
                    Some(match parts.as_slice() {
                        [_, flag, script] if flag.starts_with('-') && flag.ends_with('c') => {
                            (*script).to_owned()
                        }
                        _ => parts.join(" "),
                    })
                }
                _ => None,
            };
            match command {
                Some(c) => format!("$ {}", first_line(&c, MAX_CHARS)),
                None => {
                    let field = ["pattern", "url", "query", "description", "prompt"]
                        .into_iter()
                        .find_map(|k| str_of(&input, k))
                        .or(path);
                    match field {
                        Some(f) => format!("{name}: {}", first_line(f, MAX_CHARS)),
                        None => name.to_owned(),
                    }
                }
            }
        }
    };
    let text = if failed {
        format!("{text} (failed)")
    } else {
        text
    };
    cut(&text, MAX_CHARS)
}

/// `Plan: 2 done, 1 in progress, 3 pending`.
fn plan_summary(input: &Value) -> String {
    let items = input
        .get("todos")
        .or_else(|| input.get("plan"))
        .and_then(Value::as_array);
    let mut counts = [0usize; 3];
    for item in items.into_iter().flatten() {
        match str_of(item, "status") {
            Some("completed") => counts[0] += 1,
            Some("in_progress") => counts[1] += 1,
            _ => counts[2] += 1,
        }
    }
    format!(
        "Plan: {} done, {} in progress, {} pending",
        counts[0], counts[1], counts[2]
    )
}

/// The files a successful tool call changed.
pub(crate) fn changed_files(name: &str, input: &Value) -> Vec<String> {
    let input = input_object(input);
    if FILE_TOOLS.contains(&name) {
        return str_of(&input, "file_path")
            .or_else(|| str_of(&input, "notebook_path"))
            .map(|p| vec![p.to_owned()])
            .unwrap_or_default();
    }
    if name == "apply_patch" {
        return patch_files(&input);
    }
    Vec::new()
}

/// The paths named by an `apply_patch` envelope (`*** Update File: path` and its kin).
fn patch_files(input: &Value) -> Vec<String> {
    let patch = match input {
        Value::String(s) => s.as_str(),
        _ => str_of(input, "input")
            .or_else(|| str_of(input, "patch"))
            .unwrap_or(""),
    };
    let mut out: Vec<String> = Vec::new();
    for line in patch.lines() {
        for tag in [
            "*** Add File: ",
            "*** Update File: ",
            "*** Delete File: ",
            "*** Move to: ",
        ] {
            if let Some(p) = line.strip_prefix(tag) {
                let p = p.trim().to_owned();
                if !p.is_empty() && !out.contains(&p) {
                    out.push(p);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_edit_is_described_by_its_path_and_excerpts_not_its_payload() {
        let input = json!({"file_path": "src/a.rs", "old_string": "fn a() {}\n", "new_string": "fn a() {\n    b();\n}\n"});
        assert_eq!(
            describe_tool("Edit", &input, false),
            "src/a.rs: \"fn a() {}\" → \"fn a() {\" (3 lines)"
        );
        assert_eq!(changed_files("Edit", &input), ["src/a.rs"]);
    }

    #[test]
    fn codex_shell_argv_shows_the_script_and_patches_name_their_files() {
        let shell = json!({"command": ["bash", "-lc", "ls -la"]});
        assert_eq!(describe_tool("shell", &shell, true), "$ ls -la (failed)");
        let patch = json!(
            "*** Begin Patch\n*** Update File: a.md\n@@\n-x\n+y\n*** Add File: b.md\n+z\n*** End Patch"
        );
        assert_eq!(changed_files("apply_patch", &patch), ["a.md", "b.md"]);
        assert_eq!(
            describe_tool("apply_patch", &patch, false),
            "apply_patch: a.md, b.md"
        );
    }
}
