//! Words as search sees them: tokens, identifier parts, stop words, and the English stemmer
//! the ranking and the snippets use.
//!
//! Matching itself is SQLite's (`porter unicode61`): these helpers only expand what is indexed
//! and what is asked (identifier parts, joined compounds), and stem as the Porter tokenizer
//! does, so that the ranking counts the forms the match found and the snippet points at the
//! words that made it.

use std::collections::HashSet;

/// English words too common to say what a query is about; a plain query drops them unless it
/// holds nothing else. Negations (`not`, `no`) stay: "not found" means something.
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
    "been", "being", "but", "by", "can", "could", "did", "do", "does", "doing", "done", "for",
    "from", "had", "has", "have", "having", "he", "her", "here", "him", "his", "how", "i", "if",
    "in", "into", "is", "it", "its", "just", "many", "me", "much", "my", "of", "on", "or", "our",
    "ours", "she", "should", "so", "some", "than", "that", "the", "their", "them", "then", "there",
    "these", "they", "this", "those", "to", "us", "was", "we", "were", "what", "when", "where",
    "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your",
];

/// True for a word a plain query drops (compared lowercase).
pub(crate) fn is_stop_word(word: &str) -> bool {
    let lower = word.to_lowercase();
    STOP_WORDS.binary_search(&lower.as_str()).is_ok()
}

/// The tokens of `s` as the index's tokenizer splits them (runs of letters and digits), with
/// their byte offsets.
pub(crate) fn tokens(s: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut rest = s.char_indices().peekable();
    std::iter::from_fn(move || {
        while rest.next_if(|(_, c)| !c.is_alphanumeric()).is_some() {}
        let (start, _) = *rest.peek()?;
        let mut end = start;
        while let Some((i, c)) = rest.next_if(|(_, c)| c.is_alphanumeric()) {
            end = i + c.len_utf8();
        }
        Some((start, &s[start..end]))
    })
}

/// The parts of one token split at case changes, lowercase: `ActiveSessionRegistry` gives
/// `active session registry`, `HTTPServer` gives `http server`, `parseJSON2` gives
/// `parse json2`. One part when there is no case change.
pub(crate) fn camel_parts(token: &str) -> Vec<String> {
    let chars: Vec<char> = token.chars().collect();
    let mut parts = Vec::new();
    let mut part = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        let boundary = c.is_uppercase()
            && prev.is_some_and(|p| {
                p.is_lowercase()
                    || p.is_numeric()
                    || (p.is_uppercase() && next.is_some_and(char::is_lowercase))
            });
        if boundary && !part.is_empty() {
            parts.push(std::mem::take(&mut part));
        }
        part.extend(c.to_lowercase());
    }
    if !part.is_empty() {
        parts.push(part);
    }
    parts
}

/// Runs of letters, digits, `_` and `-` in `s`: the spans an identifier can be written in.
fn compounds(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .map(|w| w.trim_matches(|c| c == '_' || c == '-'))
        .filter(|w| !w.is_empty())
}

/// The lowercase concatenation of a snake_case or kebab-case compound (`pre-commit` gives
/// `precommit`), when it has two or more segments.
pub(crate) fn joined(compound: &str) -> Option<String> {
    let segments: Vec<&str> = compound
        .split(['_', '-'])
        .filter(|s| !s.is_empty())
        .collect();
    (segments.len() > 1).then(|| segments.concat().to_lowercase())
}

/// The identifier forms `s` holds that its plain tokens do not: each CamelCase token split
/// into its parts, each snake_case or kebab-case compound joined into one word. Appended to
/// `out` one per line, each form once per `seen`.
pub(crate) fn identifier_forms(s: &str, out: &mut String, seen: &mut HashSet<String>) {
    let mut push = |form: String, out: &mut String| {
        if !seen.contains(&form) {
            out.push_str(&form);
            out.push('\n');
            seen.insert(form);
        }
    };
    for compound in compounds(s) {
        if let Some(j) = joined(compound) {
            push(j, out);
        }
        for (_, token) in tokens(compound) {
            // Only mixed case can hold a boundary; most tokens skip the split.
            if token.chars().any(char::is_uppercase) && token.chars().any(char::is_lowercase) {
                let parts = camel_parts(token);
                if parts.len() > 1 {
                    push(parts.join(" "), out);
                }
            }
        }
    }
}

/// The English stem of a lowercase word, the one stemmer matching, ranking and highlighting
/// share: Snowball's English (Porter's revised algorithm), which merges the forms the index's
/// Porter tokenizer merges (`rejected`, `rejection` and `rejects` give `reject`; `realize`
/// and `realization` give `realiz`; `retries` and `retry` give `retri`). Words of one or two
/// characters are kept as they are, as the tokenizer keeps them.
pub(crate) fn stem(word: &str) -> String {
    static STEMMER: std::sync::LazyLock<rust_stemmers::Stemmer> = std::sync::LazyLock::new(|| {
        rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English)
    });
    if word.chars().nth(2).is_none() {
        return word.to_owned();
    }
    STEMMER.stem(word).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(is_stop_word("The") && !is_stop_word("not") && !is_stop_word("sandbox"));
    }

    #[test]
    fn tokens_split_like_unicode61() {
        let t: Vec<_> = tokens("fix src/active_session.rs: «Ünïcode» 42x").collect();
        assert_eq!(
            t.iter().map(|(_, w)| *w).collect::<Vec<_>>(),
            ["fix", "src", "active", "session", "rs", "Ünïcode", "42x"]
        );
        assert_eq!(t[1].0, 4);
    }

    #[test]
    fn camel_case_splits_at_case_changes() {
        assert_eq!(
            camel_parts("ActiveSessionRegistry"),
            ["active", "session", "registry"]
        );
        assert_eq!(camel_parts("HTTPServer"), ["http", "server"]);
        assert_eq!(camel_parts("parseJSON2"), ["parse", "json2"]);
        assert_eq!(camel_parts("v2Api"), ["v2", "api"]);
        assert_eq!(camel_parts("plain"), ["plain"]);
    }

    #[test]
    fn identifier_forms_split_camel_and_join_snake() {
        let mut out = String::new();
        let mut seen = HashSet::new();
        identifier_forms(
            "see active_session_registry.rs and ActiveSessionRegistry, pre-commit; \
             ActiveSessionRegistry again",
            &mut out,
            &mut seen,
        );
        assert_eq!(
            out,
            "activesessionregistry\nactive session registry\nprecommit\n"
        );
    }

    #[test]
    fn stems_agree_on_common_inflections() {
        for (a, b) in [
            ("retries", "retry"),
            ("uploader", "upload"),
            ("fixes", "fix"),
            ("fixed", "fixing"),
            ("issues", "issue"),
            ("decided", "decide"),
            ("rejected", "rejection"),
            ("realize", "realization"),
            ("vaccinated", "vaccination"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} {b}");
        }
        assert_ne!(stem("sandbox"), stem("sand"));
    }

    /// Pairs of English words and whether the index's tokenizer (SQLite's `porter unicode61`)
    /// matches one with the other: the ranking's stemmer must say the same.
    const FORMS: &[&str] = &[
        "reject rejected rejection rejects rejecting",
        "realize realized realization realizes",
        "approve approved approval approves approving",
        "adopt adopted adoption adopting",
        "vaccinate vaccinated vaccination",
        "decide decided decides deciding",
        "connect connected connection connecting connections",
        "configure configured configuration configuring",
        "generate generated generation generates",
        "create created creation creates creating",
        "install installed installing installs",
        "compile compiled compiling compiles",
        "retry retries retried",
        "fail failed failing fails",
        "sign signed signing signs",
        "memorize memorized memorization",
        "migrate migrated migration migrating",
        "validate validated validation validating",
        "upload uploaded uploading uploads uploader",
        "test tests tested testing",
        "build builds building",
        "index indexed indexing",
        "search searched searches searching",
        "depend depends dependency",
        "sand sandbox",
        "friend friendship",
        "paint painting painted",
    ];

    #[test]
    fn the_ranking_stems_as_the_index_matches() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE VIRTUAL TABLE t USING fts5(w, tokenize = 'porter unicode61')")
            .unwrap();
        let words: Vec<&str> = FORMS.iter().flat_map(|l| l.split(' ')).collect();
        for (i, w) in words.iter().enumerate() {
            conn.execute(
                "INSERT INTO t (rowid, w) VALUES (?1, ?2)",
                rusqlite::params![i as i64, w],
            )
            .unwrap();
        }
        let mut disagree = Vec::new();
        for (i, a) in words.iter().enumerate() {
            let mut stmt = conn
                .prepare("SELECT rowid FROM t WHERE t MATCH ?1")
                .unwrap();
            let matched: Vec<i64> = stmt
                .query_map([format!("\"{a}\"")], |r| r.get(0))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            for (j, b) in words.iter().enumerate() {
                let index_says = matched.contains(&(j as i64));
                if index_says != (stem(a) == stem(b)) && i != j {
                    disagree.push(format!("{a}/{b}: index {index_says}"));
                }
            }
        }
        assert!(disagree.is_empty(), "{disagree:?}");
    }
}
