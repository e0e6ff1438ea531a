//! What the index knows that bears on a text someone just wrote (a prompt), and what it holds
//! about one file: the reads behind per-prompt and file recall.

use remaind_events::{Event, Kind};

use super::{
    Candidate, Filters, Hit, Index, POOL, candidates_of, lines_query, ranked, sql_limit,
    unit_positions,
};
use crate::{Result, fields, query, words};

/// One event [`Index::related`] found, with how much of the text it bears on.
#[derive(Debug, Clone, PartialEq)]
pub struct Related {
    /// The event, as a search hit.
    pub hit: Hit,
    /// The share of the text's weight the event holds, 0 to 1: each word of the text that
    /// some event holds weighs its rarity (BM25's inverse document frequency), so a rare word
    /// counts for more than a common one.
    pub share: f64,
}

/// A word is distinctive when at most this share of the events hold it (or
/// [`RARE_EVENTS`], whichever is more): a text with no distinctive word bears on nothing in
/// particular.
const RARE_SHARE: f64 = 0.01;

/// See [`RARE_SHARE`].
const RARE_EVENTS: f64 = 10.0;

impl Index<'_> {
    /// The events of `kinds` (every kind when empty) that bear on `text`, most bearing first,
    /// at most `limit`: candidates are the events holding one of the text's distinctive words
    /// (held by at most 1% of the events, or by 10), each given the share of the text's
    /// weight it holds ([`Related::share`]). Empty when the text has no distinctive word, so
    /// an unrelated text costs one count per word. The caller decides which share is enough.
    pub fn related(&mut self, text: &str, kinds: &[Kind], limit: usize) -> Result<Vec<Related>> {
        let Ok(plan) = query::plain(text) else {
            // Nothing searchable (only stop words or punctuation).
            return Ok(Vec::new());
        };
        if plan.units.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let filters = Filters::new(kinds, None, false);
        let rows = self.read(|conn| {
            let total: i64 =
                conn.query_row("SELECT coalesce(max(seq), 0) FROM events", [], |r| r.get(0))?;
            let counts = super::unit_counts(conn, &plan.units)?;
            let rare = (total as f64 * RARE_SHARE).max(RARE_EVENTS);
            let distinctive: Vec<&str> = plan
                .units
                .iter()
                .zip(&counts)
                .filter(|(_, (n, _))| *n >= 1.0 && *n <= rare)
                .map(|(u, _)| u.fts.as_str())
                .collect();
            if distinctive.is_empty() {
                return Ok(Vec::new());
            }
            let found = ranked(conn, &distinctive.join(" OR "), &filters, POOL)?;
            let rows = candidates_of(conn, found, None)?;
            // The same words said before (a prompt asked again) are the text itself, not
            // something that bears on it: they are no candidate, and the words they hold
            // count as held by that many fewer events.
            let (repeats, mut rows): (Vec<Candidate>, Vec<Candidate>) =
                rows.into_iter().partition(|c| says_the_same(c, text));
            let counts: Vec<(f64, f64)> = counts
                .iter()
                .enumerate()
                .map(|(u, &(n, w))| {
                    let held_by_repeats = repeats
                        .iter()
                        .filter(|c| holds_unit(c, &plan.units, u))
                        .count() as f64;
                    let n = n - held_by_repeats;
                    if held_by_repeats > 0.0 {
                        (n, (1.0 + (total as f64 - n + 0.5) / (n + 0.5)).ln())
                    } else {
                        (n, w)
                    }
                })
                .collect();
            // Words no event holds cannot be matched: they weigh nothing.
            let weights: Vec<f64> = counts
                .iter()
                .map(|&(n, w)| if n >= 1.0 { w } else { 0.0 })
                .collect();
            for c in &mut rows {
                c.score = share_held(c, &plan.units, &weights);
            }
            Ok(rows)
        })?;
        let mut rows: Vec<Candidate> = rows;
        rows.sort_by(|a, b| b.score.total_cmp(&a.score).then(b.seq.cmp(&a.seq)));
        rows.truncate(limit);
        rows.into_iter()
            .map(|c| {
                let share = c.score;
                Ok(Related {
                    hit: self.hit(c, &plan.needles)?,
                    share,
                })
            })
            .collect()
    }

    /// The newest events (at most `limit`, newest first) whose searchable text holds
    /// `phrase`'s words in order (a path as `src/net/retry.rs` holds `src net retry rs`):
    /// the candidates for what the ledger says about one file. Empty for a phrase with no
    /// word.
    pub fn mentioning(&mut self, phrase: &str, limit: usize) -> Result<Vec<Event>> {
        let tokens: Vec<&str> = words::tokens(phrase).map(|(_, t)| t).collect();
        if tokens.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        // One FTS5 phrase; the tokens are runs of letters and digits, nothing to escape.
        let expr = format!("\"{}\"", tokens.join(" "));
        let params = [
            rusqlite::types::Value::Text(expr),
            rusqlite::types::Value::Integer(sql_limit(limit)),
        ];
        let lines = self.read(|conn| {
            lines_query(
                conn,
                "SELECT e.seq, e.line FROM fts JOIN events e ON e.seq = fts.rowid \
                 WHERE fts MATCH ?1 ORDER BY fts.rowid DESC LIMIT ?2",
                &params,
            )
        })?;
        self.parse_lines(lines)
    }
}

/// Whether the candidate's text is `text`'s words, whatever the case and spacing.
fn says_the_same(c: &Candidate, text: &str) -> bool {
    let words = |s: &str| {
        s.split_whitespace()
            .map(str::to_lowercase)
            .collect::<Vec<_>>()
    };
    fields::extract(&c.line, None).is_ok_and(|f| words(f.get(crate::Field::Text)) == words(text))
}

/// Whether the candidate holds unit `u` of `units` in any field.
fn holds_unit(c: &Candidate, units: &[query::Unit], u: usize) -> bool {
    let Ok(f) = fields::extract(&c.line, None) else {
        return false;
    };
    let mut found = Vec::new();
    crate::Field::ALL.iter().any(|&field| {
        found.clear();
        unit_positions(f.get(field), units, &mut found);
        found.iter().any(|&(_, x)| x == u)
    })
}

/// The share of the total of `weights` that the words of `units` a candidate holds (in any
/// field, each counted once) weigh.
fn share_held(c: &Candidate, units: &[query::Unit], weights: &[f64]) -> f64 {
    let total: f64 = weights.iter().sum();
    if total <= 0.0 {
        return 0.0;
    }
    let Ok(f) = fields::extract(&c.line, None) else {
        return 0.0;
    };
    let mut held = vec![false; units.len()];
    let mut found = Vec::new();
    for field in crate::Field::ALL {
        found.clear();
        unit_positions(f.get(field), units, &mut found);
        for &(_, u) in &found {
            held[u] = true;
        }
    }
    let sum: f64 = held
        .iter()
        .zip(weights)
        .filter(|(h, _)| **h)
        .map(|(_, w)| w)
        .sum();
    sum / total
}
