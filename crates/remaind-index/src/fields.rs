//! What of an event is searchable, taken from its ledger line (and the artifacts it names):
//! the text, the tool's name, its input (commands, paths, a `Write`'s content, an `Edit`'s old
//! and new text), its output (stdout, stderr, results, with an artifact's text for a large
//! one), and the identifier forms all of these hold.
//!
//! The same function serves indexing and snippets, so a snippet shows the text that matched.

use std::collections::HashSet;
use std::io::Read;

use remaind_ledger::Ledger;
use serde::Deserialize;
use serde_json::Value;

use crate::words;

/// Most bytes of a tool's input indexed per event.
pub(crate) const INPUT_BYTES: usize = 32 * 1024;
/// Most bytes of a tool's output (inline and from artifacts) indexed per event.
pub(crate) const OUTPUT_BYTES: usize = 64 * 1024;
/// Most bytes of an event's text indexed (an inline text is far smaller; this bounds a text
/// routed to an artifact).
pub(crate) const TEXT_BYTES: usize = 64 * 1024;

/// A searchable part of an event; the full-text columns, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// The event's text.
    Text,
    /// The tool's name.
    Tool,
    /// The tool's input: command, path, written content, replaced text.
    Input,
    /// The tool's output, stderr included, with the text of an artifact it was routed to.
    Output,
}

impl Field {
    /// Every field, in column order.
    pub const ALL: [Field; 4] = [Field::Text, Field::Tool, Field::Input, Field::Output];

    /// The column name, as raw FTS5 column filters spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Field::Text => "text",
            Field::Tool => "tool",
            Field::Input => "input",
            Field::Output => "output",
        }
    }
}

/// The searchable text of one event.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Fields {
    pub(crate) text: String,
    pub(crate) tool: String,
    pub(crate) input: String,
    pub(crate) output: String,
}

impl Fields {
    pub(crate) fn get(&self, field: Field) -> &str {
        match field {
            Field::Text => &self.text,
            Field::Tool => &self.tool,
            Field::Input => &self.input,
            Field::Output => &self.output,
        }
    }

    /// True when some field holds `word` (lowercase) as a token, in this form.
    pub(crate) fn holds_word(&self, word: &str) -> bool {
        Field::ALL.iter().any(|&f| {
            words::tokens(self.get(f))
                .any(|(_, t)| t.len() == word.len() && t.to_lowercase() == word)
        })
    }

    /// True when some field holds a word of stem `a` and one of stem `b` (as
    /// [`words::stem`] gives them) at most `within` tokens apart, in either order.
    pub(crate) fn near(&self, a: &str, b: &str, within: usize) -> bool {
        Field::ALL.iter().any(|&f| {
            let (mut last_a, mut last_b) = (None::<usize>, None::<usize>);
            for (i, (_, t)) in words::tokens(self.get(f)).enumerate() {
                let s = words::stem(&t.to_lowercase());
                if s == a {
                    last_a = Some(i);
                }
                if s == b {
                    last_b = Some(i);
                }
                if let (Some(x), Some(y)) = (last_a, last_b)
                    && x != y
                    && x.abs_diff(y) <= within
                {
                    return true;
                }
            }
            false
        })
    }

    /// The identifier forms of every field (CamelCase split, snake_case joined), one per line.
    pub(crate) fn identifier_forms(&self) -> String {
        let mut out = String::new();
        let mut seen = HashSet::new();
        for f in Field::ALL {
            words::identifier_forms(self.get(f), &mut out, &mut seen);
        }
        out
    }
}

/// The parts of a ledger line the index reads.
#[derive(Deserialize)]
struct Line {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    tool: Option<ToolPart>,
    #[serde(default)]
    artifact: Vec<ArtifactPart>,
}

/// A line's tool, as the index reads it.
#[derive(Deserialize)]
pub(crate) struct ToolPart {
    pub(crate) name: String,
    #[serde(default)]
    input: Value,
    #[serde(default)]
    output: Value,
}

/// A line's artifact record, as the index reads it.
#[derive(Deserialize)]
pub(crate) struct ArtifactPart {
    field: String,
    sha256: String,
    media_type: String,
    head: String,
    tail: String,
}

/// True for the marker that stands in a line for content routed to an artifact.
fn is_artifact_marker(s: &str) -> bool {
    s.len() == "[artifact:".len() + 12 + 1 && s.starts_with("[artifact:") && s.ends_with(']')
}

/// `s` cut to at most `max` bytes at a character boundary.
fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Append `s` to `out` on a line of its own, within `max` bytes in all.
fn push_bounded(out: &mut String, s: &str, max: usize) {
    let sep = usize::from(!out.is_empty());
    if s.is_empty() || is_artifact_marker(s) || out.len() + sep >= max {
        return;
    }
    if sep == 1 {
        out.push('\n');
    }
    let room = max - out.len();
    out.push_str(cut(s, room));
}

/// Every string and number in `v` (object keys left out: they name, they do not say), in
/// order, within `max` bytes.
fn flatten(v: &Value, out: &mut String, max: usize) {
    match v {
        Value::String(s) => push_bounded(out, s, max),
        Value::Number(n) => push_bounded(out, &n.to_string(), max),
        Value::Array(items) => items.iter().for_each(|i| flatten(i, out, max)),
        Value::Object(map) => map.values().for_each(|i| flatten(i, out, max)),
        Value::Null | Value::Bool(_) => {}
    }
}

/// Up to `max` bytes of the text artifact `sha256`; `None` when it is missing, unreadable or
/// not text (the line's head and tail stand in then).
fn artifact_text(ledger: &Ledger, sha256: &str, max: usize) -> Option<String> {
    let path = ledger.artifacts().path_of(sha256).ok()?;
    let file = remaind_fs::open_file(&path, remaind_fs::Access::Read).ok()?;
    let mut bytes = Vec::with_capacity(max.min(64 * 1024));
    file.take(u64::try_from(max).unwrap_or(u64::MAX))
        .read_to_end(&mut bytes)
        .ok()?;
    if bytes.contains(&0) {
        return None;
    }
    Some(match String::from_utf8(bytes) {
        Ok(s) => s,
        // Cut inside a character: keep the valid prefix.
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let mut bytes = e.into_bytes();
            bytes.truncate(valid);
            String::from_utf8(bytes).ok()?
        }
    })
}

/// The searchable fields of the ledger line `line`; with `ledger`, the text of the artifacts
/// it names is read (bounded), otherwise their head and tail stand in.
pub(crate) fn extract(line: &str, ledger: Option<&Ledger>) -> serde_json::Result<Fields> {
    let parsed: Line = serde_json::from_str(line)?;
    Ok(from_parts(
        parsed.text.as_deref(),
        parsed.tool.as_ref(),
        &parsed.artifact,
        ledger,
    ))
}

/// The searchable fields of a line already parsed; see [`extract`].
pub(crate) fn from_parts(
    text: Option<&str>,
    tool: Option<&ToolPart>,
    artifacts: &[ArtifactPart],
    ledger: Option<&Ledger>,
) -> Fields {
    let mut f = Fields::default();
    if let Some(text) = text {
        push_bounded(&mut f.text, text, TEXT_BYTES);
    }
    if let Some(tool) = tool {
        f.tool.push_str(&tool.name);
        flatten(&tool.input, &mut f.input, INPUT_BYTES);
        flatten(&tool.output, &mut f.output, OUTPUT_BYTES);
    }
    for a in artifacts {
        let (out, max) = match a.field.as_str() {
            "text" => (&mut f.text, TEXT_BYTES),
            f_name if f_name.starts_with("tool.input") => (&mut f.input, INPUT_BYTES),
            _ => (&mut f.output, OUTPUT_BYTES),
        };
        let room = max.saturating_sub(out.len());
        let whole = ledger
            .filter(|_| a.media_type.starts_with("text/") || a.media_type.contains("json"))
            .and_then(|l| artifact_text(l, &a.sha256, room));
        match whole {
            Some(text) => push_bounded(out, &text, max),
            None => {
                push_bounded(out, &a.head, max);
                push_bounded(out, &a.tail, max);
            }
        }
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_input_and_output_are_searchable_without_keys() {
        let line = r#"{"seq":1,"text":"Edit a file","tool":{"name":"Edit","input":{"file_path":"src/x.rs","old_string":"Sandbox::new()","new_string":"Sandbox::strict()"},"output":{"stdout":"ok","stderr":"warning: unused","code":3}}}"#;
        let f = extract(line, None).unwrap();
        assert_eq!(f.text, "Edit a file");
        assert_eq!(f.tool, "Edit");
        assert!(f.input.contains("src/x.rs") && f.input.contains("Sandbox::strict()"));
        assert!(!f.input.contains("old_string"));
        assert!(f.output.contains("warning: unused") && f.output.contains('3'));
    }

    #[test]
    fn markers_are_skipped_and_excerpts_stand_in_without_a_store() {
        let line = r#"{"seq":1,"tool":{"name":"Bash","output":"[artifact:0123456789ab]"},"artifact":[{"field":"tool.output","path":"artifacts/01/x","sha256":"0123","bytes":9,"media_type":"text/plain","head":"first words","tail":"last words"}]}"#;
        let f = extract(line, None).unwrap();
        assert_eq!(f.output, "first words\nlast words");
    }

    #[test]
    fn bounds_cut_at_a_character_boundary() {
        let mut out = String::new();
        push_bounded(&mut out, "ééé", 3);
        assert_eq!(out, "é");
        push_bounded(&mut out, "more", 3);
        assert_eq!(out, "é");
    }
}
