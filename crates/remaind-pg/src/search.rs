//! Full-text search on the server (migration 3), for a follower that keeps no folder: the
//! query syntax of `remaind search`, answered by PostgreSQL's English text search.

use remaind_query::{QueryBounds, Term};

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

/// How long the search statement may run on the server before it is cancelled.
pub const SEARCH_TIMEOUT_SECS: u32 = 5;

/// A query's terms by how they match: bare words (any may match), and `+word`,
/// `"quoted phrases"` and `prefix*` (each must match).
#[derive(Debug, Default, PartialEq, Eq)]
struct Terms {
    any: Vec<String>,
    all: Vec<String>,
    phrases: Vec<String>,
    prefixes: Vec<String>,
}

impl Terms {
    fn of(terms: Vec<Term>) -> Terms {
        let mut out = Terms::default();
        for t in terms {
            match t {
                Term::Word(w) => out.any.push(w),
                Term::Required(w) => out.all.push(w),
                Term::Phrase(w) => out.phrases.push(w),
                Term::Prefix(w) => out.prefixes.push(w),
            }
        }
        out
    }
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
    /// The query is parsed and bounded as the folder's index does it (`remaind-query`: at most
    /// `MAX_QUERY_TERMS` distinct terms of `MAX_QUERY_CHARS` characters; the bounds applied
    /// are returned), the search
    /// statement may run [`SEARCH_TIMEOUT_SECS`] seconds on the server
    /// ([`Error::SearchTimeout`](crate::Error::SearchTimeout) past them), and the server
    /// checks every second that the client is still there (PostgreSQL 14 and later), so a
    /// client that exits leaves no backend searching.
    pub fn search(
        &mut self,
        query_text: &str,
        filter: &SearchFilter,
    ) -> Result<(Vec<SearchHit>, QueryBounds)> {
        self.index_for_search()?;
        let (terms, bounds) = remaind_query::parse(query_text);
        let t = Terms::of(terms);
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
    fn a_plain_query_splits_into_the_terms_of_its_syntax() {
        let (terms, _) = remaind_query::parse(r#"  sandbox +ledger "hash chain" deploy* what  "#);
        assert_eq!(
            Terms::of(terms),
            Terms {
                any: vec!["sandbox".into(), "what".into()],
                all: vec!["ledger".into()],
                phrases: vec!["hash chain".into()],
                prefixes: vec!["deploy".into()],
            }
        );
    }
}
