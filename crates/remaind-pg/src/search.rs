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
                .execute(
                    "INSERT INTO remaind_search (project, seq, kind, importance, body, doc)
                     SELECT e.project, e.seq, r.kind, r.importance, r.body, r.doc
                       FROM remaind_events e, LATERAL remaind_search_row(e.line) r
                      WHERE e.project = $1
                        AND e.seq > (SELECT coalesce(max(seq), 0) FROM remaind_search
                                      WHERE project = $1)
                      ORDER BY e.seq LIMIT $2
                     ON CONFLICT DO NOTHING",
                    &[&self.project, &INDEX_BATCH],
                )
                .map_err(query_as(&self.role, "index events for search"))?;
            total += n;
            if i64::try_from(n).unwrap_or(i64::MAX) < INDEX_BATCH {
                return Ok(total);
            }
        }
    }

    /// The events matching `query` (the syntax of `remaind search`: bare words any, `+word`,
    /// `"phrase"` and `prefix*` required; English stemming and stop words), best first,
    /// newest first on a tie. The index is caught up first.
    pub fn search(&mut self, query_text: &str, filter: &SearchFilter) -> Result<Vec<SearchHit>> {
        self.index_for_search()?;
        let t = terms(query_text);
        let limit = i64::try_from(filter.limit).unwrap_or(i64::MAX);
        let min = i16::from(filter.min_importance);
        let rows = self
            .client
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
            .map_err(query_as(&self.role, "search"))?;
        Ok(rows
            .iter()
            .map(|r| SearchHit {
                seq: to_seq(r.get(0)),
                rank: r.get(1),
                snippet: r.get(2),
                line: r.get(3),
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
