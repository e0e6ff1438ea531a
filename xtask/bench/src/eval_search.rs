//! Search recall on real sessions: the public transcripts under `fixtures/transcripts/`
//! imported into one ledger, and the queries of `fixtures/search-eval/queries.jsonl` (six
//! kinds: identifiers, natural questions, paraphrases, paths, error messages, decisions), each
//! with a piece of text only the events that answer it hold. Reports recall@1/@5/@10 and MRR
//! per kind for `remaind search` against a plain BM25 with stemming over the same events (one
//! column of all their text, any query word matching), measured in the same run.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

use camino::Utf8PathBuf;
use remaind_index::{Index, SearchOptions};
use remaind_ledger::{Event, Ledger};
use rusqlite::Connection;
use serde::Deserialize;

use crate::bench::Measurement;
use crate::bench_index::binary;
use crate::workspace_root;

/// Hits looked at per query.
const TOP: usize = 10;

/// The transcripts imported, in order, with their runtime.
const SESSIONS: &[(&str, &str)] = &[
    ("claude-code", "claude-code-1af7fc5e.jsonl"),
    ("claude-code", "claude-code-5c0375b4.jsonl"),
    ("claude-code", "claude-code-fe5e1c67.jsonl"),
    ("claude-code", "claude-code-8463c716.jsonl"),
    ("claude-code", "synthetic-ask-user-question.jsonl"),
    ("codex", "codex-homelab.jsonl"),
];

/// One evaluation query.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Query {
    /// identifier, natural, paraphrase, path, error or decision.
    kind: String,
    query: String,
    /// Text that the answering events hold (in their line or an artifact) and others do not.
    answer: String,
}

/// Ranks (1-based) of the first answering hit per query, `None` when none is in the top ten;
/// and whether the search returned nothing at all.
#[derive(Default)]
struct Tally {
    ranks: Vec<Option<usize>>,
    empty: usize,
}

impl Tally {
    fn recall(&self, k: usize) -> f64 {
        let hit = self
            .ranks
            .iter()
            .filter(|r| r.is_some_and(|r| r <= k))
            .count();
        hit as f64 / self.ranks.len().max(1) as f64
    }

    fn mrr(&self) -> f64 {
        let sum: f64 = self.ranks.iter().flatten().map(|&r| 1.0 / r as f64).sum();
        sum / self.ranks.len().max(1) as f64
    }
}

/// All the text of an event, artifacts included: what the baseline indexes, and where an
/// answer is looked for.
fn whole_text(ledger: &Ledger, e: &Event) -> String {
    let mut s = serde_json::to_string(e).unwrap_or_default();
    for a in &e.artifact {
        if let Ok(bytes) = ledger.artifacts().get(&a.sha256) {
            s.push('\n');
            s.push_str(&String::from_utf8_lossy(&bytes));
        }
    }
    s
}

/// The text of every string in `v`, values only, for the baseline's one column.
fn strings(v: &serde_json::Value, out: &mut String) {
    match v {
        serde_json::Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        serde_json::Value::Object(m) => m.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// The baseline: one FTS5 column (porter over unicode61) holding the event's text, tool name,
/// input, output and artifact text; a query is any of its words, ordered by BM25.
struct Baseline {
    conn: Connection,
}

impl Baseline {
    fn build(ledger: &Ledger, events: &[Event]) -> Result<Baseline, String> {
        let conn = Connection::open_in_memory().map_err(|e| e.to_string())?;
        conn.execute_batch(
            "CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'porter unicode61 remove_diacritics 2');",
        )
        .map_err(|e| e.to_string())?;
        for e in events {
            let mut body = e.text.clone().unwrap_or_default();
            body.push('\n');
            if let Some(t) = &e.tool {
                body.push_str(&t.name);
                body.push('\n');
                strings(&t.input, &mut body);
                strings(&t.output, &mut body);
            }
            for a in &e.artifact {
                if let Ok(bytes) = ledger.artifacts().get(&a.sha256) {
                    body.push_str(&String::from_utf8_lossy(&bytes));
                }
            }
            conn.execute(
                "INSERT INTO t (rowid, body) VALUES (?1, ?2)",
                rusqlite::params![e.seq as i64, body],
            )
            .map_err(|e| e.to_string())?;
        }
        Ok(Baseline { conn })
    }

    fn search(&self, query: &str) -> Result<Vec<u64>, String> {
        let words: Vec<String> = query
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(|w| format!("\"{w}\""))
            .collect();
        if words.is_empty() {
            return Ok(Vec::new());
        }
        let mut stmt = self
            .conn
            .prepare("SELECT rowid FROM t WHERE t MATCH ?1 ORDER BY bm25(t) LIMIT ?2")
            .map_err(|e| e.to_string())?;
        let rows = stmt
            .query_map(rusqlite::params![words.join(" OR "), TOP as i64], |r| {
                r.get::<_, i64>(0)
            })
            .map_err(|e| e.to_string())?;
        rows.map(|r| r.map(|s| s as u64).map_err(|e| e.to_string()))
            .collect()
    }
}

/// A `.context/` holding every fixture session, imported with the release binary.
fn imported() -> Result<(tempfile::TempDir, Utf8PathBuf), String> {
    let tmp = tempfile::tempdir().map_err(|e| format!("tempdir: {e}"))?;
    let dir = Utf8PathBuf::from_path_buf(tmp.path().join(".context"))
        .map_err(|p| format!("{} is not UTF-8", p.display()))?;
    let run = |args: &[&str]| -> Result<(), String> {
        let st = Command::new(binary())
            .args(args)
            .args(["--dir", dir.as_str()])
            .env_remove("REMAIND_DIR")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(|e| format!("{}: cannot start: {e}", binary().display()))?;
        if st.success() {
            Ok(())
        } else {
            Err(format!("remaind {}: {st}", args.join(" ")))
        }
    };
    run(&["init"])?;
    let fixtures = workspace_root().join("fixtures").join("transcripts");
    for (runtime, file) in SESSIONS {
        let path = fixtures.join(file);
        let path = path.to_str().ok_or("fixture path is not UTF-8")?;
        run(&["import", runtime, path])?;
    }
    Ok((tmp, dir))
}

fn load_queries() -> Result<Vec<Query>, String> {
    let path = workspace_root()
        .join("fixtures")
        .join("search-eval")
        .join("queries.jsonl");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| format!("{}: line {}: {e}", path.display(), i + 1))
        })
        .collect()
}

/// Runs the evaluation: one row per kind and one overall for recall@10 (recall@1, @5 and MRR
/// in the note), ours against the baseline.
pub(crate) fn run() -> Result<Vec<Measurement>, String> {
    let (_tmp, dir) = imported()?;
    let ledger = Ledger::open(&dir).map_err(|e| e.to_string())?;
    let events: Vec<Event> = ledger
        .iter()
        .map_err(|e| e.to_string())?
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let texts: Vec<String> = events.iter().map(|e| whole_text(&ledger, e)).collect();
    let baseline = Baseline::build(&ledger, &events)?;
    let mut index = Index::open(&dir, &ledger).map_err(|e| e.to_string())?;
    let opts = SearchOptions {
        limit: TOP,
        ..SearchOptions::default()
    };
    let mut ours: BTreeMap<String, Tally> = BTreeMap::new();
    let mut base: BTreeMap<String, Tally> = BTreeMap::new();
    let mut missing = Vec::new();
    for q in load_queries()? {
        let answers: Vec<u64> = events
            .iter()
            .zip(&texts)
            .filter(|(_, t)| t.contains(&q.answer))
            .map(|(e, _)| e.seq)
            .collect();
        if answers.is_empty() {
            return Err(format!("no event holds the answer of {:?}", q.query));
        }
        let found: Vec<u64> = index
            .search(&q.query, &opts)
            .map_err(|e| format!("{:?}: {e}", q.query))?
            .into_iter()
            .map(|h| h.seq)
            .collect();
        let rank = |hits: &[u64]| hits.iter().position(|s| answers.contains(s)).map(|i| i + 1);
        let theirs = baseline.search(&q.query)?;
        if rank(&found).is_none() {
            missing.push(format!("{}: {}", q.kind, q.query));
        }
        for (tallies, hits) in [(&mut ours, &found), (&mut base, &theirs)] {
            for key in [q.kind.clone(), "all".to_owned()] {
                let t = tallies.entry(key).or_default();
                t.ranks.push(rank(hits));
                t.empty += usize::from(hits.is_empty());
            }
        }
    }
    let mut out = Vec::new();
    for (kind, t) in &ours {
        let b = &base[kind];
        out.push(Measurement {
            name: format!("search recall@10: {kind} ({} queries)", t.ranks.len()),
            figure: t.recall(10),
            baseline_name: "BM25 with stemming, any word".to_owned(),
            baseline: b.recall(10),
            unit: "recall".to_owned(),
            note: format!(
                "target >= {}; @1 {:.2} (base {:.2}), @5 {:.2} (base {:.2}), MRR {:.2} (base {:.2}); zero-hit queries {} (base {}){}",
                if kind == "all" { "0.9" } else { "0.8" },
                t.recall(1),
                b.recall(1),
                t.recall(5),
                b.recall(5),
                t.mrr(),
                b.mrr(),
                t.empty,
                b.empty,
                if kind == "all" && !missing.is_empty() {
                    format!("; missed: {}", missing.join(" | "))
                } else {
                    String::new()
                }
            ),
        });
    }
    Ok(out)
}
