//! Which part of an event matched a query, and a short excerpt of it with the matched words
//! marked.

use crate::fields::{Field, Fields};
use crate::index::{MATCH_END, MATCH_START};
use crate::query::Needle;
use crate::words;

/// Tokens a snippet shows.
const SNIPPET_TOKENS: usize = 16;
/// Tokens shown before the first match, for context.
const LEAD_TOKENS: usize = 3;

/// A token of a field: its byte offset, its text, and the needle it matches.
type Marked<'t> = (usize, &'t str, Option<usize>);

/// A needle with its stem worked out once.
struct Prepared<'a> {
    needle: &'a Needle,
    stem: String,
}

fn prepare(needles: &[Needle]) -> Vec<Prepared<'_>> {
    needles
        .iter()
        .map(|n| Prepared {
            needle: n,
            stem: words::stem(&n.word),
        })
        .collect()
}

/// Which needle `token` matches, if any: the same word, another form of it, a prefix, or one
/// of its CamelCase parts.
fn matching(token: &str, needles: &[Prepared<'_>]) -> Option<usize> {
    let lower = token.to_lowercase();
    let stem = words::stem(&lower);
    let hit = |w: &str, s: &str, p: &Prepared<'_>| {
        if p.needle.prefix {
            w.starts_with(&p.needle.word)
        } else {
            w == p.needle.word || s == p.stem
        }
    };
    if let Some(i) = needles.iter().position(|p| hit(&lower, &stem, p)) {
        return Some(i);
    }
    if token.chars().any(char::is_uppercase) && token.chars().any(char::is_lowercase) {
        for part in words::camel_parts(token) {
            let s = words::stem(&part);
            if let Some(i) = needles.iter().position(|p| hit(&part, &s, p)) {
                return Some(i);
            }
        }
    }
    None
}

/// The tokens of `text` with the needle each matches.
fn marked<'t>(text: &'t str, needles: &[Prepared<'_>]) -> Vec<Marked<'t>> {
    words::tokens(text)
        .map(|(at, t)| (at, t, matching(t, needles)))
        .collect()
}

fn distinct(window: &[Marked<'_>]) -> usize {
    let mut seen: Vec<usize> = window.iter().filter_map(|t| t.2).collect();
    seen.sort_unstable();
    seen.dedup();
    seen.len()
}

/// The field that best matches `needles` (most distinct needles; text first on a tie) and a
/// snippet of it. An event none of whose fields shows a match (a form the stemmer does not
/// merge as the index's tokenizer did) gets the head of its first non-empty field.
pub(crate) fn best(fields: &Fields, needles: &[Needle]) -> (Field, String) {
    let prepared = prepare(needles);
    let order = [Field::Text, Field::Input, Field::Output, Field::Tool];
    let mut best: Option<(usize, Field, Vec<Marked<'_>>)> = None;
    for f in order {
        let toks = marked(fields.get(f), &prepared);
        let n = distinct(&toks);
        if n > 0 && best.as_ref().is_none_or(|b| n > b.0) {
            best = Some((n, f, toks));
        }
    }
    match best {
        Some((_, f, toks)) => (f, render(fields.get(f), &toks)),
        None => {
            let f = order
                .into_iter()
                .find(|&f| !fields.get(f).is_empty())
                .unwrap_or(Field::Text);
            let toks = marked(fields.get(f), &[]);
            (f, render(fields.get(f), &toks))
        }
    }
}

/// The window of [`SNIPPET_TOKENS`] tokens with the most distinct matches, matches marked.
fn render(text: &str, toks: &[Marked<'_>]) -> String {
    if toks.is_empty() {
        return String::new();
    }
    let width = SNIPPET_TOKENS.min(toks.len());
    let mut start = 0;
    let mut most = 0;
    for s in 0..toks.len() {
        // Only windows opening on a match can hold more than the one before.
        if toks[s].2.is_none() {
            continue;
        }
        let n = distinct(&toks[s..(s + width).min(toks.len())]);
        if n > most {
            most = n;
            start = s;
        }
    }
    if most > 0 {
        start = start.saturating_sub(LEAD_TOKENS);
    }
    // A match near the end still gets a full window: more lead then.
    let end = (start + width).min(toks.len());
    let start = end.saturating_sub(width);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    let mut at = toks[start].0;
    for &(pos, tok, m) in &toks[start..end] {
        out.push_str(&text[at..pos]);
        if m.is_some() {
            out.push_str(MATCH_START);
            out.push_str(tok);
            out.push_str(MATCH_END);
        } else {
            out.push_str(tok);
        }
        at = pos + tok.len();
    }
    if end < toks.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn needles(words: &[&str]) -> Vec<Needle> {
        words
            .iter()
            .map(|w| Needle {
                word: (*w).to_owned(),
                prefix: false,
            })
            .collect()
    }

    #[test]
    fn marks_forms_and_parts_in_the_best_field() {
        let fields = Fields {
            text: "Edit the registry".into(),
            tool: "Edit".into(),
            input: "pub struct ActiveSessionRegistry; it retries the uploader".into(),
            output: String::new(),
        };
        let (f, s) = best(&fields, &needles(&["retry", "uploader", "session"]));
        assert_eq!(f, Field::Input);
        assert_eq!(
            s,
            "pub struct «ActiveSessionRegistry»; it «retries» the «uploader»"
        );
    }

    #[test]
    fn long_text_shows_the_densest_window() {
        let text = format!("{}needle one two haystack", "filler ".repeat(40));
        let fields = Fields {
            text,
            ..Fields::default()
        };
        let (f, s) = best(&fields, &needles(&["needle", "haystack"]));
        assert_eq!(f, Field::Text);
        assert!(
            s.starts_with('…') && s.ends_with("filler «needle» one two «haystack»"),
            "{s}"
        );
        let text = format!("start «here» needle {}", "filler ".repeat(40));
        let (_, s) = best(
            &Fields {
                text,
                ..Fields::default()
            },
            &needles(&["needle"]),
        );
        assert!(
            s.starts_with("start «here» «needle» filler") && s.ends_with('…'),
            "{s}"
        );
    }

    #[test]
    fn no_visible_match_falls_back_to_the_head() {
        let fields = Fields {
            output: "plain words here".into(),
            ..Fields::default()
        };
        assert_eq!(
            best(&fields, &needles(&["zzz"])),
            (Field::Output, "plain words here".to_owned())
        );
    }
}
