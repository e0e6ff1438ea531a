//! Translating a user's search query into FTS5 syntax that cannot fail to parse.
//!
//! A query is plain words, `word*` prefixes and `"quoted phrases"`. Every term becomes an FTS5
//! string literal (`"…"` with `"` doubled), so operators, parentheses, colons and stray
//! punctuation are only ever searched for, never interpreted.

/// One searchable term of a plain query.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Term {
    /// A bare word (may hold punctuation, which the tokenizer splits on).
    Word(String),
    /// A bare word ending in `*`: every token starting with it.
    Prefix(String),
    /// A `"quoted phrase"`: its tokens next to each other, in order.
    Phrase(String),
}

/// FTS5 expressions for a plain query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Matches events holding every term.
    pub(crate) all_terms: String,
    /// Matches events holding the whole query as one phrase, when that differs from
    /// `all_terms` (two or more terms and no prefix): such hits rank first.
    pub(crate) exact: Option<String>,
}

/// True when `s` holds at least one character the tokenizer keeps.
fn searchable(s: &str) -> bool {
    s.chars().any(char::is_alphanumeric)
}

/// `s` as an FTS5 string literal.
fn literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if c == '"' {
            out.push('"');
        }
        out.push(c);
    }
    out.push('"');
    out
}

fn split(query: &str) -> Vec<Term> {
    let mut terms = Vec::new();
    let mut word = String::new();
    let mut chars = query.chars();
    let flush = |word: &mut String, terms: &mut Vec<Term>| {
        let w = std::mem::take(word);
        if let Some(stem) = w.strip_suffix('*').map(|s| s.trim_end_matches('*')) {
            if searchable(stem) {
                terms.push(Term::Prefix(stem.to_owned()));
            }
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

/// Translate a plain query. Fails only when it holds nothing searchable.
pub(crate) fn plain(query: &str) -> Result<Plan, String> {
    let terms = split(query);
    if terms.is_empty() {
        return Err(if query.trim().is_empty() {
            "the query is empty; give words or a \"quoted phrase\"".to_owned()
        } else {
            format!("`{query}` holds no searchable words (letters or digits)")
        });
    }
    let all_terms = terms
        .iter()
        .map(|t| match t {
            Term::Word(w) | Term::Phrase(w) => literal(w),
            Term::Prefix(p) => format!("{}*", literal(p)),
        })
        .collect::<Vec<_>>()
        .join(" ");
    let exact =
        (terms.len() > 1 && !terms.iter().any(|t| matches!(t, Term::Prefix(_)))).then(|| {
            let words: Vec<&str> = terms
                .iter()
                .map(|t| match t {
                    Term::Word(w) | Term::Phrase(w) | Term::Prefix(w) => w.as_str(),
                })
                .collect();
            literal(&words.join(" "))
        });
    Ok(Plan { all_terms, exact })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_phrases_and_prefixes() {
        let p = plain(r#"rust "hash chain" sql*"#).unwrap();
        assert_eq!(p.all_terms, r#""rust" "hash chain" "sql"*"#);
        assert_eq!(p.exact, None);
        let p = plain("use sqlite index").unwrap();
        assert_eq!(p.all_terms, r#""use" "sqlite" "index""#);
        assert_eq!(p.exact.as_deref(), Some(r#""use sqlite index""#));
        assert_eq!(plain("one").unwrap().exact, None);
    }

    #[test]
    fn operators_and_quotes_are_literal() {
        let p = plain(r#"a OR b) NEAR( c:d ab"cd"#).unwrap();
        assert_eq!(p.all_terms, r#""a" "OR" "b)" "NEAR(" "c:d" "ab" "cd""#);
        let p = plain(r#""unterminated phrase"#).unwrap();
        assert_eq!(p.all_terms, r#""unterminated phrase""#);
    }

    #[test]
    fn nothing_searchable_is_an_error() {
        assert!(plain("").is_err());
        assert!(plain("   ").is_err());
        assert!(plain(r#"-- "" * ()"#).is_err());
    }
}
