//! Translating a user's search query into FTS5 syntax that cannot fail to parse.
//!
//! A plain query is ranked and forgiving: its words are alternatives (an event needs one of
//! them), English stop words are dropped, each word also matches as identifier parts
//! (`ActiveSessionRegistry` finds `active_session_registry` and the reverse), and the whole
//! query as a phrase and each pair of neighbouring words close together add to the score. A
//! question about what the user said ("what did the user ask about …") asks for the user's
//! messages: the user word and the verb are not searched for, and those events rank first.
//! `"quoted phrases"` and `+words` are required; `word*` is a prefix. Every term becomes an
//! FTS5 string literal (`"…"` with `"` doubled), so operators, parentheses, colons and stray
//! punctuation are only ever searched for, never interpreted.

use remaind_query::{MAX_QUERY_CHARS, MAX_QUERY_TERMS, QueryBounds, Term};

use crate::words;

/// How many tokens apart two neighbouring query words may be for the proximity bonus.
pub(crate) const NEAR_TOKENS: usize = 6;
/// Most neighbour pairs given a proximity bonus (long questions would cost more than they
/// rank).
const MAX_PAIRS: usize = 6;

/// A content word of a plain query as the ranking weighs it: how much of the query an event
/// holds close together is counted in these.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unit {
    /// Its stem ([`words::stem`]), compared with the stems of an event's tokens.
    pub(crate) stem: String,
    /// The word as an FTS5 string literal, to count the events holding it (its weight).
    pub(crate) fts: String,
}

/// A word to highlight in a snippet, lowercase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Needle {
    pub(crate) word: String,
    /// Any token starting with `word` matches.
    pub(crate) prefix: bool,
}

/// FTS5 expressions for a plain query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    /// The ranked query: required terms all, optional terms any, plus the bonus phrases.
    pub(crate) expr: String,
    /// Every word required, when the query has two or more optional words: when enough events
    /// hold them all, the candidates are those (BM25 ranks an event holding every word above
    /// one holding some in nearly every case, and scoring only them is much cheaper than
    /// scoring every event holding a common word).
    pub(crate) every: Option<String>,
    /// The same with every word of three or more characters also a prefix: tried when
    /// `expr` finds nothing.
    pub(crate) loose: Option<String>,
    /// The whole query as one phrase, when it has two or more words: an event holding it is
    /// an [`exact`](crate::Hit::exact) hit and ranks higher.
    pub(crate) phrase: Option<String>,
    /// Words to highlight.
    pub(crate) needles: Vec<Needle>,
    /// The query's words as typed (lowercase, stop words dropped): an event holding a word in
    /// this form ranks above one holding only another form of it.
    pub(crate) exact_words: Vec<String>,
    /// Neighbouring content words of the query, stemmed as [`words::stem`] does: an event
    /// holding a pair close together ranks higher.
    pub(crate) pairs: Vec<(String, String)>,
    /// The content words of the optional and `+required` terms (stop words dropped, a
    /// CamelCase word as its parts), one per stem.
    pub(crate) units: Vec<Unit>,
    /// The query is a question: it starts with a question word (`why`, `which`, `did`, …) or
    /// ends with `?`.
    pub(crate) question: bool,
    /// The kind of event the query asks for by naming who spoke ("what did the user ask
    /// about …"): such events rank first.
    pub(crate) speaker: Option<&'static str>,
    /// How the query was bounded.
    pub(crate) bounds: QueryBounds,
    /// The query's `"quoted phrases"`, as typed: when no event holds them, the query is
    /// searched again with their words as ordinary ranked words ([`unquoted`]).
    pub(crate) phrases: Vec<String>,
}

/// Words that open a question.
const QUESTION_WORDS: &[&str] = &[
    "are", "can", "could", "did", "do", "does", "has", "have", "how", "is", "should", "was",
    "were", "what", "when", "where", "which", "who", "why", "will", "would",
];

/// Words that name the person in the session as the speaker.
const USER_WORDS: &[&str] = &["user", "users"];
/// Verbs of speaking: with a [`USER_WORDS`] word they ask for what the user said.
const SPEECH_VERBS: &[&str] = &[
    "ask",
    "asked",
    "asks",
    "mention",
    "mentioned",
    "request",
    "requested",
    "say",
    "said",
    "says",
    "tell",
    "told",
    "want",
    "wanted",
    "wants",
    "write",
    "wrote",
];

/// The lowercase words of a plain word term, `None` for other terms.
fn lower_words(t: &Term) -> Option<Vec<String>> {
    match t {
        Term::Word(w) => Some(words::tokens(w).map(|(_, t)| t.to_lowercase()).collect()),
        _ => None,
    }
}

/// When the query asks what the user said ("what did the user ask about the MD files"), the
/// kind it asks for and the words that only say so (the user word and the verb): they name
/// who spoke, not what was said, so they are not searched for.
fn speaker(terms: &[&Term]) -> Option<(&'static str, Vec<usize>)> {
    let is = |i: usize, list: &[&str]| {
        lower_words(terms[i]).is_some_and(|w| w.len() == 1 && list.contains(&w[0].as_str()))
    };
    let user = (0..terms.len()).find(|&i| is(i, USER_WORDS))?;
    let verb = (0..terms.len()).find(|&i| is(i, SPEECH_VERBS))?;
    Some(("user_message", vec![user, verb]))
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

/// The lowercase tokens of `w`, each CamelCase token split into its parts.
fn parts(w: &str) -> Vec<String> {
    words::tokens(w)
        .flat_map(|(_, t)| words::camel_parts(t))
        .collect()
}

/// The alternatives one word matches as: as written, as identifier parts, joined; with
/// `prefix`, its last token (or part) also as a prefix.
fn word_expr(w: &str, prefix: bool) -> String {
    let plain: Vec<String> = words::tokens(w).map(|(_, t)| t.to_lowercase()).collect();
    let split = parts(w);
    let star = if prefix { "*" } else { "" };
    let mut alts = vec![format!("{}{star}", literal(w))];
    let identifier = split.len() > plain.len();
    if identifier {
        alts.push(format!("{}{star}", literal(&split.join(" "))));
    }
    let compound = w.trim_matches(|c: char| !c.is_alphanumeric());
    if compound
        .chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
        && let Some(j) = words::joined(compound)
    {
        alts.push(format!("{}{star}", literal(&j)));
    }
    // A partial identifier (`SessionReg`) finds the whole one.
    if identifier && !prefix {
        alts.push(format!("{}*", literal(&split.join(" "))));
    }
    if alts.len() == 1 {
        alts.remove(0)
    } else {
        format!("({})", alts.join(" OR "))
    }
}

/// Translate a plain query. Fails only when it holds nothing searchable.
pub(crate) fn plain(query: &str) -> Result<Plan, String> {
    let (kept, unread) = remaind_query::read(query);
    let mut all = remaind_query::split(kept);
    // The whole query as typed is a phrase only when it is short enough to be one.
    let typed_terms = all.len();
    let short = typed_terms <= MAX_QUERY_TERMS && kept.chars().count() <= MAX_QUERY_CHARS;
    let typed = short.then(|| {
        words_of(&all)
            .into_iter()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    });
    let mut bounds = remaind_query::bound(&mut all);
    bounds.cut_chars += unread;
    if all.is_empty() {
        return Err(if query.trim().is_empty() {
            "the query is empty; give words or a \"quoted phrase\"".to_owned()
        } else {
            format!("`{query}` holds no searchable words (letters or digits)")
        });
    }
    let stop = |t: &Term| matches!(t, Term::Word(w) if w.split(|c: char| !c.is_alphanumeric()).all(|p| p.is_empty() || words::is_stop_word(p)));
    let mut terms: Vec<&Term> = if all.iter().all(stop) {
        all.iter().collect()
    } else {
        all.iter().filter(|t| !stop(t)).collect()
    };
    let speaker = match speaker(&terms) {
        // Only when something is left to search for.
        Some((kind, skip)) if terms.len() > skip.len() => {
            let mut i = 0;
            terms.retain(|_| {
                i += 1;
                !skip.contains(&(i - 1))
            });
            Some(kind)
        }
        _ => None,
    };
    let build = |loose: bool| {
        let mut required = Vec::new();
        let mut optional = Vec::new();
        for t in &terms {
            match t {
                Term::Word(w) => optional.push(word_expr(w, loose && w.chars().count() >= 3)),
                Term::Prefix(p) => optional.push(word_expr(p, true)),
                Term::Required(w) => required.push(word_expr(w, false)),
                Term::Phrase(p) => required.push(literal(p)),
            }
        }
        (required, optional)
    };
    // The words in the order typed, stop words kept: the phrase they make.
    let phrase = typed
        .filter(|typed| typed.len() > 1 && typed.len() == typed_terms)
        .map(|typed| literal(&typed.join(" ")));
    // Scored on the candidates rather than OR'ed in as NEAR groups: those counted the
    // same words again, so events holding them twice (a command and its echo) led.
    let content = words_of(terms.iter().copied());
    let pairs = stem_pairs(&content);
    let bonus: Vec<String> = phrase.iter().cloned().collect();
    let combine = |(required, optional): (Vec<String>, Vec<String>)| {
        let mut any = optional;
        if any.is_empty() {
            return required.join(" AND ");
        }
        any.extend(bonus.iter().cloned());
        if required.is_empty() {
            return any.join(" OR ");
        }
        // The first required term is in every match, so the optional group never excludes
        // one; it only adds to the score.
        any.push(required[0].clone());
        format!("{} AND ({})", required.join(" AND "), any.join(" OR "))
    };
    let expr = combine(build(false));
    let loose = Some(combine(build(true))).filter(|l| *l != expr);
    let every = {
        let (required, optional) = build(false);
        (optional.len() > 1).then(|| {
            let mut all = required;
            all.extend(optional);
            all.join(" AND ")
        })
    };
    let (needles, exact_words) = needles_of(&terms);
    let question = match (all.first(), all.last()) {
        (Some(Term::Word(first)), _) if QUESTION_WORDS.contains(&first.to_lowercase().as_str()) => {
            true
        }
        (_, Some(Term::Word(last))) => last.ends_with('?'),
        _ => false,
    };
    Ok(Plan {
        bounds,
        units: units(&terms),
        question,
        expr,
        loose,
        phrase,
        needles,
        exact_words,
        pairs,
        speaker,
        every,
        phrases: all
            .iter()
            .filter_map(|t| match t {
                Term::Phrase(p) => Some(p.clone()),
                _ => None,
            })
            .collect(),
    })
}

/// What the re-ranker looks for in a hit (each word, its parts, the joined form; prefix
/// terms as prefixes), and the query's own words lower-cased, stop words only in a phrase.
fn needles_of(terms: &[&Term]) -> (Vec<Needle>, Vec<String>) {
    let mut needles = Vec::new();
    let mut exact_words = Vec::new();
    for t in terms {
        let (text, prefix) = match t {
            Term::Word(w) | Term::Required(w) | Term::Phrase(w) => (w, false),
            Term::Prefix(p) => (p, true),
        };
        for (_, tok) in words::tokens(text) {
            let lower = tok.to_lowercase();
            if !words::is_stop_word(&lower) || matches!(t, Term::Phrase(_)) {
                exact_words.push(lower.clone());
            }
            needles.push(Needle {
                word: lower,
                prefix,
            });
        }
        for part in parts(text) {
            needles.push(Needle { word: part, prefix });
        }
        if let Some(j) = words::joined(text.trim_matches(|c: char| !c.is_alphanumeric())) {
            needles.push(Needle { word: j, prefix });
        }
    }
    needles.dedup();
    exact_words.dedup();
    (needles, exact_words)
}

/// Neighbouring content words, stemmed, that the ranking rewards for standing together.
fn stem_pairs(content: &[&str]) -> Vec<(String, String)> {
    content
        .windows(2)
        .take(MAX_PAIRS)
        .map(|p| {
            (
                words::stem(&p[0].to_lowercase()),
                words::stem(&p[1].to_lowercase()),
            )
        })
        .filter(|(a, b)| a != b)
        .collect()
}

/// `query` with its quotes taken out: its quoted phrases become ordinary words, ranked like
/// the rest (`the game "Xenoblade Chronicles"` becomes `the game Xenoblade Chronicles`).
pub(crate) fn unquoted(query: &str) -> String {
    query.replace('"', " ")
}

/// The [`Unit`]s of `terms`: the tokens of its plain and `+required` words, a CamelCase token
/// as its parts, less stop words, one per stem. Prefixes and phrases are left out (a prefix
/// is no one word; a phrase is in every candidate).
fn units(terms: &[&Term]) -> Vec<Unit> {
    let mut out: Vec<Unit> = Vec::new();
    for t in terms {
        let (Term::Word(w) | Term::Required(w)) = t else {
            continue;
        };
        for word in parts(w) {
            if words::is_stop_word(&word) {
                continue;
            }
            let stem = words::stem(&word);
            if !out.iter().any(|u| u.stem == stem) {
                out.push(Unit {
                    stem,
                    fts: literal(&word),
                });
            }
        }
    }
    out
}

/// One token of a raw FTS5 query, as far as bounding it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
enum RawToken<'a> {
    /// A bareword or a `"string"` (with any `*`, `^`, column filter).
    Term(&'a str),
    /// `OR`.
    Or,
    /// `AND`.
    And,
    /// Anything else: `NOT`, `NEAR`, parentheses.
    Other,
}

/// The tokens of a raw FTS5 query.
fn raw_tokens(query: &str) -> Vec<RawToken<'_>> {
    let mut out = Vec::new();
    let b = query.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'(' || c == b')' {
            out.push(RawToken::Other);
            i += 1;
        } else {
            let start = i;
            let mut quoted = false;
            while i < b.len() {
                match b[i] {
                    b'"' => {
                        // `""` inside a string is a quote.
                        if quoted && b.get(i + 1) == Some(&b'"') {
                            i += 1;
                        } else {
                            quoted = !quoted;
                        }
                    }
                    c if !quoted && (c.is_ascii_whitespace() || c == b'(' || c == b')') => {
                        break;
                    }
                    _ => {}
                }
                i += 1;
            }
            // `i` stops at an ASCII byte or the end: a char boundary.
            out.push(match &query[start..i] {
                "OR" => RawToken::Or,
                "AND" => RawToken::And,
                "NOT" => RawToken::Other,
                w if w.starts_with("NEAR") => RawToken::Other,
                w => RawToken::Term(w),
            });
        }
    }
    out
}

/// A raw FTS5 query bounded as a plain one is: a list of terms joined by one operator
/// (`a OR b OR …`, `a AND b …`, `a b …`) loses its repeated terms and is cut to
/// [`MAX_QUERY_TERMS`]; any other query must be within the limits as it is.
pub(crate) fn bound_raw(query: &str) -> Result<(String, QueryBounds), String> {
    let tokens = raw_tokens(query);
    let terms: Vec<&str> = tokens
        .iter()
        .filter_map(|t| match t {
            RawToken::Term(w) => Some(*w),
            _ => None,
        })
        .collect();
    let chars = query.chars().count();
    let mut bounds = QueryBounds {
        terms: terms.len(),
        ..QueryBounds::default()
    };
    let ops: Vec<&RawToken<'_>> = tokens
        .iter()
        .filter(|t| !matches!(t, RawToken::Term(_)))
        .collect();
    let alternating = tokens
        .iter()
        .enumerate()
        .all(|(i, t)| matches!(t, RawToken::Term(_)) == (i % 2 == 0))
        && tokens.len() % 2 == 1;
    let flat = match ops.first() {
        None => Some(" "),
        Some(RawToken::Or) if alternating && ops.iter().all(|t| **t == RawToken::Or) => {
            Some(" OR ")
        }
        Some(RawToken::And) if alternating && ops.iter().all(|t| **t == RawToken::And) => {
            Some(" AND ")
        }
        _ => None,
    };
    let Some(join) = flat else {
        if terms.len() > MAX_QUERY_TERMS || chars > MAX_QUERY_CHARS {
            return Err(format!(
                "a raw FTS5 query holds at most {MAX_QUERY_TERMS} terms and \
                 {MAX_QUERY_CHARS} characters (a list of terms joined by one operator is \
                 cut to fit); this one holds {} terms and {chars} characters",
                terms.len()
            ));
        }
        return Ok((query.to_owned(), bounds));
    };
    let mut seen = std::collections::HashSet::new();
    let mut kept: Vec<&str> = Vec::new();
    let mut length = 0;
    for term in &terms {
        if !seen.insert(term.to_lowercase()) {
            bounds.repeated += 1;
            continue;
        }
        let more = term.chars().count() + if kept.is_empty() { 0 } else { join.len() };
        if kept.len() == MAX_QUERY_TERMS || length + more > MAX_QUERY_CHARS {
            bounds.dropped_terms += 1;
            bounds.cut_chars += more;
            continue;
        }
        length += more;
        kept.push(term);
    }
    if kept.is_empty() {
        return Err(format!(
            "a raw FTS5 query's first term holds more than {MAX_QUERY_CHARS} characters"
        ));
    }
    bounds.terms = kept.len();
    if bounds.repeated == 0 && !bounds.cut() {
        return Ok((query.to_owned(), bounds));
    }
    Ok((kept.join(join), bounds))
}

/// Words to highlight for a raw FTS5 query: its barewords and quoted words, less operators
/// and column names.
pub(crate) fn raw_needles(query: &str) -> Vec<Needle> {
    let mut out = Vec::new();
    for piece in query.split_whitespace() {
        let prefix = piece.ends_with('*');
        let piece = piece.rsplit(':').next().unwrap_or(piece);
        for (_, tok) in words::tokens(piece) {
            if matches!(tok, "AND" | "OR" | "NOT" | "NEAR") {
                continue;
            }
            out.push(Needle {
                word: tok.to_lowercase(),
                prefix,
            });
        }
    }
    out
}

/// The words of `terms` (plain or required), in order.
fn words_of<'a>(terms: impl IntoIterator<Item = &'a Term>) -> Vec<&'a str> {
    terms
        .into_iter()
        .filter_map(|t| match t {
            Term::Word(w) | Term::Required(w) => Some(w.as_str()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_alternatives_with_phrase_and_proximity_bonuses() {
        let p = plain("retry the uploader").unwrap();
        assert_eq!(p.expr, r#""retry" OR "uploader" OR "retry the uploader""#);
        assert_eq!(p.phrase.as_deref(), Some(r#""retry the uploader""#));
        assert_eq!(p.exact_words, ["retry", "uploader"]);
        assert_eq!(p.pairs, [("retri".to_owned(), "upload".to_owned())]);
        assert_eq!(p.every.as_deref(), Some(r#""retry" AND "uploader""#));
        assert_eq!(plain("uploader").unwrap().every, None);
        assert_eq!(
            p.loose.as_deref(),
            Some(r#""retry"* OR "uploader"* OR "retry the uploader""#)
        );
        assert_eq!(p.speaker, None);
    }

    #[test]
    fn a_question_about_what_the_user_said_asks_for_user_messages() {
        let p = plain("what did the user ask about the MD files").unwrap();
        assert_eq!(p.speaker, Some("user_message"));
        assert_eq!(p.exact_words, ["md", "files"]);
        // Naming the user without a verb of speaking is a plain word.
        let p = plain("user settings page").unwrap();
        assert_eq!(p.speaker, None);
        assert_eq!(p.exact_words, ["user", "settings", "page"]);
        // Nothing else to search for: the words stay.
        let p = plain("user asked").unwrap();
        assert_eq!((p.speaker, p.exact_words.len()), (None, 2));
    }

    #[test]
    fn units_are_the_content_words_and_questions_are_told_apart() {
        let stems = |q: &str| -> Vec<String> {
            plain(q)
                .unwrap()
                .units
                .into_iter()
                .map(|u| u.stem)
                .collect()
        };
        assert_eq!(stems("why did the JS build fail"), ["js", "build", "fail"]);
        assert_eq!(
            stems("TranscriptHighlighter hook +retries"),
            ["transcript", "highlight", "hook", "retri"]
        );
        // Prefixes and phrases are not units; one stem is one unit.
        assert_eq!(stems(r#"fix fixes sql* "hash chain""#), ["fix"]);
        assert_eq!(
            plain("why did the JS build fail").unwrap().units[0].fts,
            r#""js""#
        );
        assert!(plain("why did the JS build fail").unwrap().question);
        assert!(plain("main clean before the CI run?").unwrap().question);
        assert!(
            !plain("decided to use shared sandbox mode")
                .unwrap()
                .question
        );
    }

    #[test]
    fn phrases_and_plus_words_are_required() {
        let p = plain(r#"rust "hash chain" +ledger sql*"#).unwrap();
        assert_eq!(
            p.expr,
            r#""hash chain" AND "ledger" AND ("rust" OR "sql"* OR "hash chain")"#
        );
        assert_eq!(p.phrase, None);
        assert_eq!(plain(r#""hash chain""#).unwrap().expr, r#""hash chain""#);
    }

    #[test]
    fn identifiers_match_in_every_spelling() {
        let p = plain("ActiveSessionRegistry").unwrap();
        assert_eq!(
            p.expr,
            r#"("ActiveSessionRegistry" OR "active session registry" OR "active session registry"*)"#
        );
        let p = plain("active_session_registry").unwrap();
        assert_eq!(
            p.expr,
            r#"("active_session_registry" OR "activesessionregistry")"#
        );
        assert!(p.needles.iter().any(|n| n.word == "activesessionregistry"));
    }

    #[test]
    fn stop_words_drop_unless_nothing_else_is_left() {
        let p = plain("what did we decide").unwrap();
        assert_eq!(p.expr, r#""decide" OR "what did we decide""#);
        assert_eq!(p.phrase.as_deref(), Some(r#""what did we decide""#));
        let p = plain("to be").unwrap();
        assert!(p.expr.starts_with(r#""to" OR "be""#), "{}", p.expr);
    }

    #[test]
    fn operators_and_quotes_are_literal() {
        let p = plain(r#"a OR b) NEAR( c:d"#).unwrap();
        assert!(
            p.expr.starts_with(r#""b)" OR "NEAR(" OR "c:d""#),
            "{}",
            p.expr
        );
        let p = plain(r#""unterminated phrase"#).unwrap();
        assert_eq!(p.expr, r#""unterminated phrase""#);
    }

    #[test]
    fn nothing_searchable_is_an_error() {
        assert!(plain("").is_err());
        assert!(plain("   ").is_err());
        assert!(plain(r#"-- "" * () +"#).is_err());
    }
}
