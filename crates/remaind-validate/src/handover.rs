//! The shape of `active/handover.md`: its binding line, its sections and their `[eN]`
//! citations (documented in `docs/handover-format.md`).
//!
//! The parser is lenient: it always returns a [`Handover`], and lists what is structurally
//! wrong in [`Handover::problems`] (the validator reports those under `schema`).

use std::fmt;

use remaind_events::EventId;

use crate::state::State;

/// Section titles, render-agnostic: a renderer writes `## ` + title, the parser matches the
/// text after `## ` exactly.
pub mod titles {
    /// The document title, written as `# Handover`.
    pub const HANDOVER: &str = "Handover";
    /// A line `[eN]`, then the instruction text verbatim.
    pub const LATEST_USER_INSTRUCTION: &str = "Latest user instruction";
    /// What the user said that is in force, each line citing its message.
    pub const USER_ASKED: &str = "What the user asked";
    /// The next step, cited.
    pub const NEXT_STEP: &str = "Next step";
    /// Remember-instructions and other importance-3 items.
    pub const MUST_REMEMBER: &str = "Must remember";
    /// Decisions and corrections.
    pub const DECISIONS: &str = "Decisions";
    /// Completed work.
    pub const COMPLETED_WORK: &str = "Completed work";
    /// Constraints.
    pub const CONSTRAINTS: &str = "Constraints";
    /// Unresolved blockers.
    pub const BLOCKERS: &str = "Blockers";
    /// Open loops.
    pub const OPEN_LOOPS: &str = "Open loops";
    /// Files changed.
    pub const FILES_CHANGED: &str = "Files changed";
    /// What the work is for.
    pub const GOAL: &str = "Goal";
    /// History, never current: superseded and resolved items. Always last.
    pub const SUPERSEDED: &str = "Superseded";
}

/// The known section titles, in the order they must appear. Unknown sections may appear
/// anywhere and count as current.
pub const SECTION_TITLES: [&str; 12] = [
    titles::LATEST_USER_INSTRUCTION,
    titles::USER_ASKED,
    titles::NEXT_STEP,
    titles::MUST_REMEMBER,
    titles::DECISIONS,
    titles::COMPLETED_WORK,
    titles::CONSTRAINTS,
    titles::BLOCKERS,
    titles::OPEN_LOOPS,
    titles::FILES_CHANGED,
    titles::GOAL,
    titles::SUPERSEDED,
];

const BINDING_PREFIX: &str = "<!-- remaind:handover ";
const BINDING_SUFFIX: &str = " -->";

/// The first-line comment binding a handover to the state it was written with.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Binding {
    /// Hex SHA-256 of the state's canonical bytes ([`State::to_canonical_bytes`]).
    pub state_sha256: String,
    /// The state's `through_seq`.
    pub through_seq: u64,
}

impl Binding {
    /// The binding for a state: the SHA-256 of its canonical bytes and its `through_seq`.
    pub fn for_state(state: &State) -> Self {
        Binding {
            state_sha256: remaind_hash::sha256_hex(&state.to_canonical_bytes()),
            through_seq: state.through_seq,
        }
    }
}

impl fmt::Display for Binding {
    /// The comment line, without a newline:
    /// `<!-- remaind:handover state_sha256=<64 hex> through_seq=<N> -->`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{BINDING_PREFIX}state_sha256={} through_seq={}{BINDING_SUFFIX}",
            self.state_sha256, self.through_seq
        )
    }
}

/// The binding comment on the handover's first line, if there is a well-formed one.
pub fn parse_binding(handover: &str) -> Option<Binding> {
    let first = handover.lines().next()?.trim_end();
    let inner = first
        .strip_prefix(BINDING_PREFIX)?
        .strip_suffix(BINDING_SUFFIX)?;
    let mut fields = inner.split(' ').filter(|f| !f.is_empty());
    let sha = fields.next()?.strip_prefix("state_sha256=")?;
    let seq = fields.next()?.strip_prefix("through_seq=")?;
    if fields.next().is_some()
        || sha.len() != 64
        || !sha.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        || seq.is_empty()
        || !seq.bytes().all(|b| b.is_ascii_digit())
        || (seq.len() > 1 && seq.starts_with('0'))
    {
        return None;
    }
    Some(Binding {
        state_sha256: sha.to_owned(),
        through_seq: seq.parse().ok()?,
    })
}

/// Every `[eN]` citation in `text` (`\[e([1-9][0-9]*)\]`), in order of first appearance,
/// without repeats. An id too large for `u64` is read as `e18446744073709551615`, which no
/// ledger holds, so it is reported as a missing event rather than silently ignored.
pub fn citations(text: &str) -> Vec<EventId> {
    let bytes = text.as_bytes();
    let mut out: Vec<EventId> = Vec::new();
    // A section may cite hundreds of events (older open loops on one line): dedup by set.
    let mut seen = crate::prior::IdSet::default();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'[' && bytes.get(i + 1) == Some(&b'e') {
            let start = i + 2;
            let mut end = start;
            while end < bytes.len() && bytes[end].is_ascii_digit() {
                end += 1;
            }
            if end > start && bytes[start] != b'0' && bytes.get(end) == Some(&b']') {
                let n = text[start..end].parse::<u64>().unwrap_or(u64::MAX);
                let id = EventId(n);
                if seen.insert(id) {
                    out.push(id);
                }
                i = end + 1;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// Citations rendered the way the parser reads them: `[e4] [e7]`.
pub fn render_citations(ids: &[EventId]) -> String {
    let parts: Vec<String> = ids.iter().map(|id| format!("[{id}]")).collect();
    parts.join(" ")
}

/// The body of the `Latest user instruction` section: a line `[eN]`, then the text verbatim.
/// When a line of the text could be read as a heading or a fence, the text is wrapped in a
/// backtick fence longer than any backtick run in it, so the parser keeps it in one piece.
/// Ends with a newline.
pub fn render_instruction(event: EventId, text: &str) -> String {
    let needs_fence = text.lines().any(|line| {
        let t = line.trim_start_matches(' ');
        t.starts_with('#') || t.starts_with("```") || t.starts_with("~~~")
    });
    let mut out = format!("[{event}]\n");
    if needs_fence {
        let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
        let fence = "`".repeat(longest.max(2) + 1);
        out.push_str(&fence);
        out.push('\n');
        out.push_str(text);
        out.push('\n');
        out.push_str(&fence);
    } else {
        out.push_str(text);
    }
    out.push('\n');
    out
}

/// One `## ` section of a handover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The heading text after `## `, trimmed.
    pub title: String,
    /// The exact text between the heading line and the next heading (or the end).
    pub body: String,
    /// The `[eN]` citations of the section. In `Latest user instruction` only the first
    /// non-blank line (the `[eN]` line) is read, so the verbatim text cannot add citations.
    pub citations: Vec<EventId>,
}

impl Section {
    /// True for the history section, `Superseded`.
    pub fn is_history(&self) -> bool {
        self.title == titles::SUPERSEDED
    }
}

/// A parsed handover.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Handover {
    /// The binding comment, when the first line is a well-formed one.
    pub binding: Option<Binding>,
    /// The `## ` sections, in document order.
    pub sections: Vec<Section>,
    /// What is structurally wrong, one line each (empty when well-formed).
    pub problems: Vec<String>,
}

impl Handover {
    /// Parse a handover. Never fails: structural problems are listed in `problems`.
    pub fn parse(text: &str) -> Handover {
        let mut out = Handover {
            binding: parse_binding(text),
            ..Handover::default()
        };
        let mut lines = text.split_inclusive('\n').peekable();
        if let Some(first) = lines.peek()
            && first.starts_with("<!--")
            && first.contains("remaind:handover")
        {
            if out.binding.is_none() {
                out.problems.push(format!(
                    "the binding comment is malformed; write `{BINDING_PREFIX}state_sha256=<64 hex> \
                     through_seq=<N>{BINDING_SUFFIX}` or leave it out"
                ));
            }
            lines.next();
        }
        let mut seen_title = false;
        let mut fence: Option<(u8, usize)> = None;
        let mut current: Option<(String, String)> = None;
        let mut finished: Vec<(String, String)> = Vec::new();
        for line in lines {
            let bare = line.trim_end_matches(['\n', '\r']);
            if let Some((ch, n)) = fence {
                if is_fence_close(bare, ch, n) {
                    fence = None;
                }
            } else if let Some(open) = fence_open(bare) {
                fence = Some(open);
            } else if let Some(title) = bare.strip_prefix("## ") {
                if let Some(done) = current.take() {
                    finished.push(done);
                }
                current = Some((title.trim().to_owned(), String::new()));
                continue;
            } else if current.is_none()
                && !seen_title
                && let Some(title) = bare.strip_prefix("# ")
            {
                seen_title = true;
                if title.trim() != titles::HANDOVER {
                    out.problems.push(format!(
                        "the document title is `# {}`; it must be `# {}`",
                        title.trim(),
                        titles::HANDOVER
                    ));
                }
                continue;
            }
            if let Some((_, body)) = current.as_mut() {
                body.push_str(line);
            }
        }
        if let Some(done) = current.take() {
            finished.push(done);
        }
        if !seen_title {
            out.problems.push(format!(
                "the handover has no `# {}` title line before its sections",
                titles::HANDOVER
            ));
        }
        let known: Vec<usize> = finished
            .iter()
            .filter_map(|(title, _)| SECTION_TITLES.iter().position(|t| t == title))
            .collect();
        let mut seen = [false; SECTION_TITLES.len()];
        for &pos in &known {
            if std::mem::replace(&mut seen[pos], true) {
                out.problems.push(format!(
                    "section `{}` appears more than once; merge them",
                    SECTION_TITLES[pos]
                ));
            }
        }
        if known.windows(2).any(|w| w[0] > w[1]) {
            let found: Vec<&str> = known.iter().map(|&i| SECTION_TITLES[i]).collect();
            out.problems.push(format!(
                "sections are out of order ({}); write them in the order: {}",
                found.join(", "),
                SECTION_TITLES.join(", ")
            ));
        }
        for (title, body) in finished {
            let citations = if title == titles::LATEST_USER_INSTRUCTION {
                body.lines()
                    .find(|l| !l.trim().is_empty())
                    .map(citations)
                    .unwrap_or_default()
            } else {
                citations(&body)
            };
            out.sections.push(Section {
                title,
                body,
                citations,
            });
        }
        out
    }

    /// The first section with this title.
    pub fn section(&self, title: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.title == title)
    }

    /// Every citation outside the `Superseded` section, with the section it is in.
    pub fn current_citations(&self) -> impl Iterator<Item = (&str, EventId)> {
        self.sections
            .iter()
            .filter(|s| !s.is_history())
            .flat_map(|s| s.citations.iter().map(move |id| (s.title.as_str(), *id)))
    }
}

fn fence_open(line: &str) -> Option<(u8, usize)> {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return None;
    }
    let ch = *t.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let n = t.bytes().take_while(|b| *b == ch).count();
    (n >= 3).then_some((ch, n))
}

fn is_fence_close(line: &str, ch: u8, n: usize) -> bool {
    let t = line.trim();
    t.len() >= n && t.bytes().all(|b| b == ch)
}
