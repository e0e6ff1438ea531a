//! The search syntax of `remaind search`, read once for every place that searches: the
//! folder's SQLite index (`remaind-index`) and the shared store's server-side search
//! (`remaind-pg`). A query is bare words (any may match), `+word` (required), `"a quoted
//! phrase"` (required, in order) and `prefix*` (any word starting so); and every query is
//! bounded the same way, so what one costs does not grow with its length: at most
//! [`MAX_QUERY_TERMS`] distinct terms of [`MAX_QUERY_CHARS`] characters are searched, a
//! repeated term counts once, and the rest is reported in [`QueryBounds`].
//!
//! This layer knows the syntax only: not how a term is matched (tokenizers, stemming, FTS5 or
//! `tsquery`), nor events, files or stores.
//!
//! ```
//! use remaind_query::{Term, parse};
//!
//! let (terms, bounds) = parse(r#"retry +flaky "connection reset" time* retry"#);
//! assert_eq!(
//!     terms,
//!     [
//!         Term::Word("retry".into()),
//!         Term::Required("flaky".into()),
//!         Term::Phrase("connection reset".into()),
//!         Term::Prefix("time".into()),
//!     ]
//! );
//! assert_eq!((bounds.terms, bounds.repeated, bounds.cut()), (4, 1, false));
//! ```

use std::collections::HashSet;

/// The most characters of distinct terms a query is searched by: the terms past them are
/// dropped (a first term longer than this is cut).
pub const MAX_QUERY_CHARS: usize = 1000;
/// Most distinct terms a query is searched by: the rest are dropped. A repeated word is one
/// term (`lorem lorem lorem` is searched as `lorem`), so the work a query costs is bounded
/// whatever its length.
pub const MAX_QUERY_TERMS: usize = 32;
/// Characters of a query read at all (repeats included): the rest is cut unread.
const MAX_READ_CHARS: usize = 64 * MAX_QUERY_CHARS;

/// One searchable term of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Term {
    /// A bare word (may hold punctuation, which a tokenizer splits on); optional.
    Word(String),
    /// A `+word`: required.
    Required(String),
    /// A bare word ending in `*`: every word starting with it; optional.
    Prefix(String),
    /// A `"quoted phrase"`: its words next to each other, in order; required.
    Phrase(String),
}

impl Term {
    /// The term's text, without its marks (`+`, `*`, quotes).
    pub fn text(&self) -> &str {
        let (Term::Word(w) | Term::Required(w) | Term::Prefix(w) | Term::Phrase(w)) = self;
        w
    }
}

/// How a query was bounded before it was searched ([`MAX_QUERY_CHARS`],
/// [`MAX_QUERY_TERMS`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueryBounds {
    /// The terms searched.
    pub terms: usize,
    /// Repeated terms dropped (searching a word twice finds nothing more).
    pub repeated: usize,
    /// Distinct terms dropped past [`MAX_QUERY_TERMS`].
    pub dropped_terms: usize,
    /// Characters cut past [`MAX_QUERY_CHARS`] (and past what is read at all).
    pub cut_chars: usize,
}

impl QueryBounds {
    /// Whether part of the query was not searched: terms dropped or characters cut (a
    /// repeated word dropped changes nothing found).
    pub fn cut(&self) -> bool {
        self.dropped_terms > 0 || self.cut_chars > 0
    }
}

/// `query`'s terms, bounded ([`read`], [`split`], [`bound`] in turn). A term holding no
/// letter or digit is no term.
pub fn parse(query: &str) -> (Vec<Term>, QueryBounds) {
    let (kept, unread) = read(query);
    let mut terms = split(kept);
    let mut bounds = bound(&mut terms);
    bounds.cut_chars += unread;
    (terms, bounds)
}

/// The part of `query` read at all (64 times [`MAX_QUERY_CHARS`]), cut at the start of the
/// word the limit falls in when there is one before it; and how many characters were cut.
pub fn read(query: &str) -> (&str, usize) {
    let Some((end, _)) = query.char_indices().nth(MAX_READ_CHARS) else {
        return (query, 0);
    };
    let mut kept = &query[..end];
    if !query[end..].starts_with(char::is_whitespace)
        && let Some(space) = kept.rfind(char::is_whitespace)
    {
        kept = &kept[..space];
    }
    (kept, query[kept.len()..].chars().count())
}

/// The terms of `query` as written, in order, unbounded.
pub fn split(query: &str) -> Vec<Term> {
    let mut terms = Vec::new();
    let mut word = String::new();
    let mut chars = query.chars();
    let flush = |word: &mut String, terms: &mut Vec<Term>| {
        let w = std::mem::take(word);
        if let Some(stem) = w.strip_suffix('*').map(|s| s.trim_end_matches('*')) {
            if searchable(stem) {
                terms.push(Term::Prefix(stem.to_owned()));
            }
        } else if let Some(req) = w.strip_prefix('+').filter(|r| searchable(r)) {
            terms.push(Term::Required(req.to_owned()));
        } else if searchable(&w) {
            terms.push(Term::Word(w));
        }
    };
    while let Some(c) = chars.next() {
        if c == '"' {
            flush(&mut word, &mut terms);
            let phrase: String = chars.by_ref().take_while(|&c| c != '"').collect();
            if searchable(&phrase) {
                terms.push(Term::Phrase(phrase));
            }
        } else if c.is_whitespace() {
            flush(&mut word, &mut terms);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut terms);
    terms
}

/// `terms` with repeats dropped (the same kind of term, the same text in any case) and cut
/// to [`MAX_QUERY_TERMS`] terms of [`MAX_QUERY_CHARS`] characters in all (a first term
/// longer than that is cut); the bounds applied.
pub fn bound(terms: &mut Vec<Term>) -> QueryBounds {
    let before = terms.len();
    let mut seen = HashSet::new();
    terms.retain(|t| {
        let kind = match t {
            Term::Word(_) => 0,
            Term::Required(_) => 1,
            Term::Prefix(_) => 2,
            Term::Phrase(_) => 3,
        };
        seen.insert((kind, t.text().to_lowercase()))
    });
    let repeated = before - terms.len();
    let (mut chars, mut keep, mut cut) = (0, 0, 0);
    for t in terms.iter_mut() {
        let (Term::Word(w) | Term::Required(w) | Term::Prefix(w) | Term::Phrase(w)) = t;
        let n = w.chars().count();
        if keep == 0 && n > MAX_QUERY_CHARS {
            let end = w
                .char_indices()
                .nth(MAX_QUERY_CHARS)
                .map_or(w.len(), |(i, _)| i);
            w.truncate(end);
            cut += n - MAX_QUERY_CHARS;
            chars = MAX_QUERY_CHARS;
            keep = 1;
            continue;
        }
        if keep == MAX_QUERY_TERMS || chars + n > MAX_QUERY_CHARS {
            cut += n;
            continue;
        }
        chars += n;
        keep += 1;
    }
    let dropped_terms = terms.len() - keep;
    terms.truncate(keep);
    QueryBounds {
        terms: keep,
        repeated,
        dropped_terms,
        cut_chars: cut,
    }
}

/// True when `s` holds at least one letter or digit, which every tokenizer keeps.
fn searchable(s: &str) -> bool {
    s.chars().any(char::is_alphanumeric)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A query of any length costs at most the bounded terms; what was left is counted.
    #[test]
    fn long_queries_are_bounded_and_say_so() {
        let (terms, b) = parse(&"lorem ".repeat(10_000));
        assert_eq!((terms.len(), b.repeated, b.cut()), (1, 9_999, false));
        let many: String = (0..100).map(|i| format!("w{i} ")).collect();
        let (terms, b) = parse(&many);
        assert_eq!(terms.len(), MAX_QUERY_TERMS);
        assert_eq!(b.dropped_terms, 100 - MAX_QUERY_TERMS);
        assert!(b.cut());
        let (terms, b) = parse(&"x".repeat(MAX_QUERY_CHARS + 5));
        assert_eq!(terms[0].text().len(), MAX_QUERY_CHARS);
        assert_eq!(b.cut_chars, 5);
        let (_, b) = parse(&"y".repeat(MAX_READ_CHARS + 7));
        assert_eq!(b.cut_chars, 7 + MAX_READ_CHARS - MAX_QUERY_CHARS);
    }

    /// Marks make the kind; a term with nothing searchable is dropped, an unclosed quote
    /// runs to the end.
    #[test]
    fn marks_make_the_kind() {
        assert_eq!(
            split("+ *** \"\" a* +b \"c d"),
            [
                Term::Prefix("a".into()),
                Term::Required("b".into()),
                Term::Phrase("c d".into())
            ]
        );
    }
}
