//! Full-text search on the server (migration 3), for a follower that keeps no folder: the
//! query syntax of `remaind search`, answered by PostgreSQL's English text search.

use crate::store::{query_as, to_seq};
use crate::{Result, Store};

/// What a search is limited to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchFilter {
    /// Only events of these kinds (any kind when empty).
    pub kinds: Vec<String>,
    /// Only events of at least this importance.
    pub min_importance: u8,
    /// At most this many hits.
    pub limit: usize,
}

impl Default for SearchFilter {
    fn default() -> Self {
        SearchFilter {
            kinds: Vec::new(),
            min_importance: 0,
            limit: 20,
        }
    }
}

/// One event a search found, best first.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    /// The event's seq.
    pub seq: u64,
    /// Its stored line (the caller parses it).
    pub line: Vec<u8>,
    /// PostgreSQL's cover-density rank (`ts_rank_cd`); higher is better.
    pub rank: f32,
    /// A short excerpt with the matched words between `«` and `»`.
    pub snippet: String,
}

/// A plain query's terms, as `remaind search` reads them: bare words (any may match), and
/// `+word`, `"quoted phrases"` and `prefix*` (each must match).
#[derive(Debug, Default, PartialEq, Eq)]
struct Terms {
    any: Vec<String>,
    all: Vec<String>,
    phrases: Vec<String>,
    prefixes: Vec<String>,
}

fn terms(query: &str) -> Terms {
    let mut out = Terms::default();
    let mut rest = query.trim();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('"') {
            let (phrase, tail) = after.split_once('"').unwrap_or((after, ""));
            if !phrase.trim().is_empty() {
                out.phrases.push(phrase.trim().to_owned());
            }
            rest = tail.trim_start();
            continue;
        }
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let (word, tail) = rest.split_at(end);
        rest = tail.trim_start();
        if let Some(required) = word.strip_prefix('+').filter(|w| !w.is_empty()) {
            out.all.push(required.to_owned());
        } else if let Some(prefix) = word.strip_suffix('*').filter(|w| !w.is_empty()) {
            out.prefixes.push(prefix.to_owned());
        } else {
            out.any.push(word.to_owned());
        }
    }
    out
}

/// Most distinct terms a query is searched by: the rest are dropped (the folder's index has
/// the same bound, `remaind_index::MAX_QUERY_TERMS`). A repeated term counts once.
pub const MAX_QUERY_TERMS: usize = 32;
/// The most characters of distinct terms a query is searched by (as the folder's index,
/// `remaind_index::MAX_QUERY_CHARS`); a first term longer than this is cut.
pub const MAX_QUERY_CHARS: usize = 1000;
/// Characters of a query read at all (repeats included): the rest is cut unread.
const MAX_READ_CHARS: usize = 64 * MAX_QUERY_CHARS;
/// How long the search statement may run on the server before it is cancelled.
pub const SEARCH_TIMEOUT_SECS: u32 = 5;

/// How a query was bounded before it was searched.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SearchBounds {
    /// The terms searched.
    pub terms: usize,
    /// Distinct terms dropped past [`MAX_QUERY_TERMS`].
    pub dropped_terms: usize,
    /// Characters cut past [`MAX_QUERY_CHARS`] (and past what is read at all).
    pub cut_chars: usize,
}

impl SearchBounds {
    /// Whether part of the query was not searched.
    pub fn cut(&self) -> bool {
        self.dropped_terms > 0 || self.cut_chars > 0
    }
}

/// `t` with repeated terms dropped and cut to [`MAX_QUERY_TERMS`] terms of
/// [`MAX_QUERY_CHARS`] characters in all, as the folder's index bounds a query.
fn bound(t: Terms, read_cut: usize) -> (Terms, SearchBounds) {
    let mut all: Vec<(u8, String)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (kind, list) in [(0u8, t.any), (1, t.all), (2, t.phrases), (3, t.prefixes)] {
        for w in list {
            if seen.insert((kind, w.to_lowercase())) {
                all.push((kind, w));
            }
        }
    }
    let mut out = Terms::default();
    let mut bounds = SearchBounds {
        cut_chars: read_cut,
        ..SearchBounds::default()
    };
    let mut chars = 0;
    for (kind, mut w) in all {
        let n = w.chars().count();
        if bounds.terms == 0 && n > MAX_QUERY_CHARS {
            let end = w
                .char_indices()
                .nth(MAX_QUERY_CHARS)
                .map_or(w.len(), |(i, _)| i);
            w.truncate(end);
            bounds.cut_chars += n - MAX_QUERY_CHARS;
            chars = MAX_QUERY_CHARS;
        } else if bounds.terms == MAX_QUERY_TERMS || chars + n > MAX_QUERY_CHARS {
            bounds.dropped_terms += 1;
            bounds.cut_chars += n;
            continue;
        } else {
            chars += n;
        }
        bounds.terms += 1;
        match kind {
            0 => out.any.push(w),
            1 => out.all.push(w),
            2 => out.phrases.push(w),
            _ => out.prefixes.push(w),
        }
    }
    (out, bounds)
}

/// Lines indexed per statement while catching the search index up.
const INDEX_BATCH: i64 = 20_000;

impl Store {
    /// Bring the server's search index up to the head (the events after the last indexed
    /// seq; concurrent searchers may both index, and the second's rows are dropped). Returns
    /// how many events were indexed. [`Store::search`] calls it first.
    pub fn index_for_search(&mut self) -> Result<u64> {
        let mut total = 0;
        loop {
            let n = self
                .client
                .query_one(
                    "SELECT remaind_index_search($1, $2)",
                    &[&self.project, &INDEX_BATCH],
                )
                .map_err(query_as(&self.role, "index events for search"))?
                .get::<_, i64>(0);
            let n = u64::try_from(n).unwrap_or(0);
            total += n;
            if i64::try_from(n).unwrap_or(i64::MAX) < INDEX_BATCH {
                return Ok(total);
            }
        }
    }

    /// The events matching `query` (the syntax of `remaind search`: bare words any, `+word`,
    /// `"phrase"` and `prefix*` required; English stemming and stop words), best first,
    /// newest first on a tie. The index is caught up first.
    ///
    /// The query is bounded as the folder's index bounds one ([`MAX_QUERY_TERMS`] distinct
    /// terms of [`MAX_QUERY_CHARS`] characters; the bounds applied are returned), the search
    /// statement may run [`SEARCH_TIMEOUT_SECS`] seconds on the server
    /// ([`Error::SearchTimeout`](crate::Error::SearchTimeout) past them), and the server
    /// checks every second that the client is still there (PostgreSQL 14 and later), so a
    /// client that exits leaves no backend searching.
    pub fn search(
        &mut self,
        query_text: &str,
        filter: &SearchFilter,
    ) -> Result<(Vec<SearchHit>, SearchBounds)> {
        self.index_for_search()?;
        let (read, read_cut) = match query_text.char_indices().nth(MAX_READ_CHARS) {
            Some((end, _)) => (&query_text[..end], query_text[end..].chars().count()),
            None => (query_text, 0),
        };
        let (t, bounds) = bound(terms(read), read_cut);
        let limit = i64::try_from(filter.limit).unwrap_or(i64::MAX);
        let min = i16::from(filter.min_importance);
        let role = self.role.clone();
        let mut tx = self
            .client
            .transaction()
            .map_err(query_as(&role, "search"))?;
        tx.execute(
            "SELECT set_config('statement_timeout', $1, true),
                    CASE WHEN current_setting('server_version_num')::int >= 140000
                         THEN set_config('client_connection_check_interval', '1000', true) END",
            &[&format!("{}s", SEARCH_TIMEOUT_SECS)],
        )
        .map_err(query_as(&role, "search"))?;
        let rows = tx
            .query(
                "WITH parts AS (
                     SELECT
                       (SELECT string_agg(t, ' | ') FROM (
                          SELECT nullif(plainto_tsquery('english', w)::text, '') AS t
                            FROM unnest($2::text[]) AS w) x WHERE t IS NOT NULL) AS any_q,
                       (SELECT string_agg('(' || t || ')', ' & ') FROM (
                          SELECT nullif(plainto_tsquery('english', w)::text, '') AS t
                            FROM unnest($3::text[]) AS w
                          UNION ALL
                          SELECT nullif(phraseto_tsquery('english', p)::text, '')
                            FROM unnest($4::text[]) AS p
                          UNION ALL
                          SELECT nullif(to_tsquery('english', quote_literal(x) || ':*')::text, '')
                            FROM unnest($5::text[]) AS x) y WHERE t IS NOT NULL) AS all_q
                 ), q AS (
                     SELECT (CASE WHEN all_q IS NULL THEN any_q
                                  WHEN any_q IS NULL THEN all_q
                                  ELSE '(' || any_q || ') & (' || all_q || ')' END)::tsquery AS q
                       FROM parts
                 ), best AS (
                     SELECT s.seq, s.body, ts_rank_cd(s.doc, q.q)::real AS rank, q.q
                       FROM q, remaind_search s
                      WHERE q.q IS NOT NULL AND s.project = $1 AND s.doc @@ q.q
                        AND (cardinality($6::text[]) = 0 OR s.kind = ANY($6::text[]))
                        AND s.importance >= $7
                      ORDER BY rank DESC, s.seq DESC
                      LIMIT $8
                 )
                 SELECT b.seq, b.rank,
                        ts_headline('english', b.body, b.q,
                                    'StartSel=«, StopSel=», MaxWords=24, MinWords=8'),
                        e.line
                   FROM best b JOIN remaind_events e ON e.project = $1 AND e.seq = b.seq
                  ORDER BY b.rank DESC, b.seq DESC",
                &[
                    &self.project,
                    &t.any,
                    &t.all,
                    &t.phrases,
                    &t.prefixes,
                    &filter.kinds,
                    &min,
                    &limit,
                ],
            )
            .map_err(|e| {
                if e.code() == Some(&postgres::error::SqlState::QUERY_CANCELED) {
                    crate::Error::SearchTimeout {
                        seconds: SEARCH_TIMEOUT_SECS,
                    }
                } else {
                    query_as(&role, "search")(e)
                }
            })?;
        tx.commit().map_err(query_as(&role, "search"))?;
        let hits = rows
            .iter()
            .map(|r| SearchHit {
                seq: to_seq(r.get(0)),
                rank: r.get(1),
                snippet: r.get(2),
                line: r.get(3),
            })
            .collect();
        Ok((hits, bounds))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_is_bounded_as_the_folder_index_bounds_one() {
        let long = "lorem ".repeat(20_000);
        let (t, b) = bound(terms(&long), 0);
        assert_eq!(t.any, ["lorem"], "a repeated word is one term");
        assert!(!b.cut());
        let many: String = (0..100).map(|i| format!("w{i} ")).collect();
        let (t, b) = bound(terms(&many), 0);
        assert_eq!(t.any.len(), MAX_QUERY_TERMS);
        assert_eq!(b.dropped_terms, 100 - MAX_QUERY_TERMS);
        let (t, b) = bound(terms(&"x".repeat(5000)), 0);
        assert_eq!(t.any[0].len(), MAX_QUERY_CHARS);
        assert_eq!(b.cut_chars, 5000 - MAX_QUERY_CHARS);
    }

    #[test]
    fn a_plain_query_splits_into_the_terms_of_its_syntax() {
        assert_eq!(
            terms(r#"  sandbox +ledger "hash chain" deploy* what  "#),
            Terms {
                any: vec!["sandbox".into(), "what".into()],
                all: vec!["ledger".into()],
                phrases: vec!["hash chain".into()],
                prefixes: vec!["deploy".into()],
            }
        );
        assert_eq!(terms(r#""unclosed phrase"#).phrases, ["unclosed phrase"]);
        assert_eq!(
            terms("+ *"),
            Terms {
                any: vec!["+".into(), "*".into()],
                ..Terms::default()
            }
        );
    }
}
