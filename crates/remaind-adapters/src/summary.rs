//! The parts of a runtime's compaction summary worth proposing: its numbered sections
//! "Pending Tasks", "Current Work" and "(Optional) Next Step" (for the plan), and "Key
//! Technical Concepts" and "Errors and fixes" (what should outlive the task: long-term
//! memory proposals).

/// Longest proposal taken from a section, in characters.
const MAX_PART_CHARS: usize = 600;
/// Longest memory proposal taken from a durable section, in characters.
const MAX_DURABLE_CHARS: usize = 2000;

/// What a compaction summary says is pending, current and next.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Parts {
    pub(crate) pending: Vec<String>,
    pub(crate) current: Option<String>,
    pub(crate) next: Option<String>,
    /// Durable sections (name, body as written, its lines kept), in the summary's order.
    pub(crate) durable: Vec<(&'static str, String)>,
}

/// The durable sections: what a summary says that outlives the task.
const DURABLE: [&str; 2] = ["Key technical concepts", "Errors and fixes"];

impl Parts {
    pub(crate) fn is_empty(&self) -> bool {
        self.pending.is_empty() && self.current.is_none() && self.next.is_none()
    }
}

/// The section a heading line opens, if it is one of ours: `7. Pending Tasks:`,
/// `## Next Step`, `**Current Work**:`.
fn heading(line: &str) -> Option<usize> {
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let t = line
        .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '#' || c == ' ')
        .trim_start_matches('*')
        .to_ascii_lowercase();
    if t.starts_with("pending tasks") {
        Some(0)
    } else if t.starts_with("current work") {
        Some(1)
    } else if t.starts_with("optional next step") || t.starts_with("next step") {
        Some(2)
    } else if t.starts_with("key technical concepts") {
        Some(3)
    } else if t.starts_with("errors and fixes") {
        Some(4)
    } else {
        None
    }
}

fn collapse(s: &str) -> String {
    let joined = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().count() <= MAX_PART_CHARS {
        return joined;
    }
    let mut out: String = joined.chars().take(MAX_PART_CHARS - 1).collect();
    out.push('…');
    out
}

/// The sections of `summary`: a section runs from its heading to the next line that starts
/// at the margin.
pub(crate) fn parse(summary: &str) -> Parts {
    let mut bodies: [Option<Vec<&str>>; 5] = [None, None, None, None, None];
    let mut open: Option<usize> = None;
    for line in summary.lines() {
        if let Some(which) = heading(line) {
            open = Some(which);
            let rest = line.split_once(':').map_or("", |(_, r)| r.trim());
            bodies[which] = Some(if rest.is_empty() {
                Vec::new()
            } else {
                vec![rest]
            });
            continue;
        }
        if !line.trim().is_empty() && !line.starts_with(char::is_whitespace) {
            open = None;
        }
        if let Some(which) = open
            && let Some(body) = bodies[which].as_mut()
        {
            body.push(line);
        }
    }
    let mut parts = Parts::default();
    if let Some(body) = &bodies[0] {
        let bullets: Vec<String> = body
            .iter()
            .filter_map(|l| l.trim_start().strip_prefix("- "))
            .map(collapse)
            .filter(|b| !b.is_empty() && !b.eq_ignore_ascii_case("none"))
            .collect();
        parts.pending = if bullets.is_empty() {
            Some(collapse(&body.join("\n")))
                .filter(|b| !b.is_empty() && !b.to_ascii_lowercase().starts_with("none"))
                .into_iter()
                .collect()
        } else {
            bullets
        };
    }
    let paragraph = |body: &Vec<&str>| {
        let text: Vec<&str> = body
            .iter()
            .skip_while(|l| l.trim().is_empty())
            .take_while(|l| !l.trim().is_empty())
            .copied()
            .collect();
        Some(collapse(&text.join("\n"))).filter(|t| !t.is_empty())
    };
    parts.current = bodies[1]
        .as_ref()
        .and_then(|b| Some(collapse(&b.join("\n"))).filter(|t| !t.is_empty()));
    parts.next = bodies[2].as_ref().and_then(paragraph);
    for (name, body) in DURABLE.into_iter().zip(&bodies[3..]) {
        if let Some(text) = body
            .as_ref()
            .map(|b| durable_text(b))
            .filter(|t| !t.is_empty() && !t.to_ascii_lowercase().starts_with("none"))
        {
            parts.durable.push((name, text));
        }
    }
    parts
}

/// A durable section's body: its lines dedented by the first one's indent, blank runs
/// collapsed, cut to [`MAX_DURABLE_CHARS`] at a line end.
fn durable_text(body: &[&str]) -> String {
    let indent = body.iter().find(|l| !l.trim().is_empty()).map_or(0, |l| {
        l.chars().take_while(|c| *c == ' ' || *c == '\t').count()
    });
    let mut out = String::new();
    for line in body {
        let mut line = *line;
        for _ in 0..indent {
            match line.strip_prefix([' ', '\t']) {
                Some(rest) => line = rest,
                None => break,
            }
        }
        let line = line.trim_end();
        if line.is_empty() && (out.is_empty() || out.ends_with("\n\n")) {
            continue;
        }
        if out.chars().count() + line.chars().count() + 1 > MAX_DURABLE_CHARS {
            out.push_str("…\n");
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_sections_are_found_and_indented_bodies_kept() {
        let s = "Summary:\n1. Primary Request:\n   do x\n\n7. Pending Tasks:\n   - **a** (IN PROGRESS): first\n   - b\n\n8. Current Work:\n   Working on a.\n   - edited f\n\n9. Optional Next Step:\n   Run the tests.\n   \n   The user said: go.\n\nIf you need details, read the transcript.";
        let p = parse(s);
        assert_eq!(p.pending, ["**a** (IN PROGRESS): first", "b"]);
        assert_eq!(p.current.as_deref(), Some("Working on a. - edited f"));
        assert_eq!(p.next.as_deref(), Some("Run the tests."));
        assert!(parse("no sections here").is_empty());
    }

    #[test]
    fn durable_sections_keep_their_lines_and_skip_none() {
        let s = "Summary:\n2. Key Technical Concepts:\n   - Ash Framework\n   - esbuild\n\n3. Files and Code Sections:\n   - lib/x.ex\n4. Errors and fixes:\n   None.\n7. Pending Tasks:\n   - a";
        let p = parse(s);
        assert_eq!(
            p.durable,
            vec![(
                "Key technical concepts",
                "- Ash Framework\n- esbuild".to_owned()
            )]
        );
        assert_eq!(p.pending, vec!["a".to_owned()]);
    }
}
