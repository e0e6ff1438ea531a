//! Search recall on real sessions: the public transcripts under `fixtures/transcripts/`
//! imported into one ledger, and two query sets under `fixtures/search-eval/`
//! (`queries.jsonl`, and `heldout.jsonl` written before the ranking was last changed), six
//! kinds each (identifiers, natural questions, paraphrases, paths, error messages, decisions),
//! every query with a piece of text only the events that answer it hold. Reports
//! recall@1/@5/@10, MRR and zero-hit queries per kind and set for `remaind search` against a
//! plain BM25 with stemming over the same events (one column of all their text, any query word
//! matching), measured in the same run.
//!
//! A third set, `shapes.jsonl`, asks about a two-person conversation of its own
//! (`shapes-session.jsonl`, every turn an event, a date note per session) in the shapes a
//! long-conversation benchmark showed search failing: a quoted title spelled differently
//! (`quoted`), an inflected form of the answer's word (`inflection`), an answer in the reply to
//! the turn the question matches (`reply`), and questions naming dates that the session notes
//! hold too (`dates`).

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

use camino::Utf8PathBuf;
use remaind_events::Event;
use remaind_index::{Index, SearchOptions};
use remaind_ledger::Ledger;
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
    /// Text that the answering events hold (in their line or an artifact) and others do not;
    /// a list when the events answering it say it in different words (any of them answers).
    answer: Answer,
}

/// A query's answer: one text, or several.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Answer {
    One(String),
    Any(Vec<String>),
}

impl Answer {
    fn texts(&self) -> &[String] {
        match self {
            Answer::One(s) => std::slice::from_ref(s),
            Answer::Any(v) => v,
        }
    }
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
pub(crate) struct Baseline {
    conn: Connection,
}

impl Baseline {
    pub(crate) fn build(ledger: &Ledger, events: &[Event]) -> Result<Baseline, String> {
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

    pub(crate) fn search(&self, query: &str) -> Result<Vec<u64>, String> {
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

/// A `.context/` holding `shapes-session.jsonl`, each line one event (`kind`, `actor`,
/// `text`).
fn conversation() -> Result<(tempfile::TempDir, Utf8PathBuf), String> {
    let tmp = tempfile::tempdir().map_err(|e| format!("tempdir: {e}"))?;
    let dir = Utf8PathBuf::from_path_buf(tmp.path().join(".context"))
        .map_err(|p| format!("{} is not UTF-8", p.display()))?;
    Ledger::create(&dir).map_err(|e| e.to_string())?;
    let ledger = Ledger::open(&dir).map_err(|e| e.to_string())?;
    let path = workspace_root()
        .join("fixtures")
        .join("search-eval")
        .join("shapes-session.jsonl");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    ledger
        .append(remaind_ledger::AppendRequest::json_lines(text.as_bytes()))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((tmp, dir))
}

/// The query sets, each reported on its own and then together: the first, and a held-out one
/// written before the ranking was last changed (tuning on the first shows as a gap between
/// the two).
const SETS: &[(&str, &str)] = &[("queries", "queries.jsonl"), ("held-out", "heldout.jsonl")];

fn load_queries(file: &str) -> Result<Vec<Query>, String> {
    let path = workspace_root()
        .join("fixtures")
        .join("search-eval")
        .join(file);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| format!("{}: line {}: {e}", path.display(), i + 1))
        })
        .collect()
}

/// What one set's evaluation found: tallies per kind (and `all`) for ours and the baseline,
/// and one line per query for the ranks report.
#[derive(Default)]
struct SetResult {
    ours: BTreeMap<String, Tally>,
    base: BTreeMap<String, Tally>,
    report: Vec<String>,
}

/// The events (and their whole text) the evaluation searches.
struct Corpus {
    ledger: Ledger,
    events: Vec<Event>,
    texts: Vec<String>,
}

impl Corpus {
    /// Seqs of the events that hold `text`.
    fn holding(&self, text: &str) -> Vec<u64> {
        self.events
            .iter()
            .zip(&self.texts)
            .filter(|(_, t)| t.contains(text))
            .map(|(e, _)| e.seq)
            .collect()
    }

    /// A short label for event `seq` in the report: kind and the start of its text.
    fn label(&self, seq: u64) -> String {
        let Some(e) = self.events.iter().find(|e| e.seq == seq) else {
            return format!("e{seq}");
        };
        let text: String = e
            .text
            .as_deref()
            .unwrap_or("")
            .chars()
            .take(60)
            .map(|c| if c == '\n' { ' ' } else { c })
            .collect();
        format!("e{seq} {} {text:?}", e.kind)
    }
}

fn evaluate(
    corpus: &Corpus,
    index: &mut Index<'_>,
    baseline: &Baseline,
    queries: &[Query],
) -> Result<SetResult, String> {
    let opts = SearchOptions {
        limit: TOP,
        ..SearchOptions::default()
    };
    let mut out = SetResult::default();
    for q in queries {
        let mut answers = Vec::new();
        for text in q.answer.texts() {
            let held = corpus.holding(text);
            if held.is_empty() {
                return Err(format!(
                    "no event holds the answer {text:?} of {:?}",
                    q.query
                ));
            }
            answers.extend(held);
        }
        answers.sort_unstable();
        answers.dedup();
        let found: Vec<u64> = index
            .search(&q.query, &opts)
            .map_err(|e| format!("{:?}: {e}", q.query))?
            .into_iter()
            .map(|h| h.seq)
            .collect();
        let rank = |hits: &[u64]| hits.iter().position(|s| answers.contains(s)).map(|i| i + 1);
        let theirs = baseline.search(&q.query)?;
        let show = |r: Option<usize>| r.map_or_else(|| "-".to_owned(), |r| r.to_string());
        out.report.push(format!(
            "{:<10} ours {:>2} base {:>2}  {}\n    answer {:?} in {}\n    top: {}",
            q.kind,
            show(rank(&found)),
            show(rank(&theirs)),
            q.query,
            q.answer.texts(),
            answers.len(),
            found
                .iter()
                .take(3)
                .map(|&s| corpus.label(s))
                .collect::<Vec<_>>()
                .join(" | ")
        ));
        for (tallies, hits) in [(&mut out.ours, &found), (&mut out.base, &theirs)] {
            for key in [q.kind.clone(), "all".to_owned()] {
                let t = tallies.entry(key).or_default();
                t.ranks.push(rank(hits));
                t.empty += usize::from(hits.is_empty());
            }
        }
    }
    Ok(out)
}

/// One row per kind and one overall for recall@10 (recall@1, @5, MRR and zero-hit queries in
/// the note), ours against the baseline.
fn rows(set: &str, r: &SetResult) -> Vec<Measurement> {
    let mut out = Vec::new();
    for (kind, t) in &r.ours {
        let b = &r.base[kind];
        out.push(Measurement {
            name: format!("search recall@10 {set}: {kind} ({})", t.ranks.len()),
            figure: t.recall(10),
            baseline_name: "BM25 with stemming, any word".to_owned(),
            baseline: b.recall(10),
            unit: "recall".to_owned(),
            note: format!(
                "target >= {}; @1 {:.2} (base {:.2}), @5 {:.2} (base {:.2}), MRR {:.2} (base {:.2}); zero-hit queries {} (base {})",
                if kind == "all" { "0.9" } else { "0.8" },
                t.recall(1),
                b.recall(1),
                t.recall(5),
                b.recall(5),
                t.mrr(),
                b.mrr(),
                t.empty,
                b.empty,
            ),
        });
    }
    out
}

/// The `search-eval` layer: the evaluation alone, without the 1,000,000-event timings of the
/// `index` layer that also runs it (for a quick check of a ranking change).
pub(crate) fn run_layer(_quick: bool) -> Vec<Measurement> {
    run().unwrap_or_else(|e| vec![Measurement::failed("search-eval", &e)])
}

/// The events of the ledger in `dir`, with their whole text.
fn corpus_of(dir: &Utf8PathBuf) -> Result<Corpus, String> {
    let ledger = Ledger::open(dir).map_err(|e| e.to_string())?;
    let events: Vec<Event> = ledger
        .iter()
        .map_err(|e| e.to_string())?
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let texts: Vec<String> = events.iter().map(|e| whole_text(&ledger, e)).collect();
    Ok(Corpus {
        ledger,
        events,
        texts,
    })
}

/// Runs the evaluation of every set; the rank of the answer per query (ours and the
/// baseline's) and our top three hits go to `target/bench/search-eval.txt`.
pub(crate) fn run() -> Result<Vec<Measurement>, String> {
    let (_tmp, dir) = imported()?;
    let corpus = corpus_of(&dir)?;
    let baseline = Baseline::build(&corpus.ledger, &corpus.events)?;
    let mut index = Index::open(&dir, &corpus.ledger).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    let mut report = String::new();
    let mut every = Vec::new();
    for (set, file) in SETS {
        let queries = load_queries(file)?;
        let r = evaluate(&corpus, &mut index, &baseline, &queries)?;
        report.push_str(&format!("# {set} ({file})\n"));
        for line in &r.report {
            report.push_str(line);
            report.push('\n');
        }
        out.extend(rows(set, &r));
        every.extend(queries);
    }
    // The whole evaluation set: both files, each query counted once.
    let r = evaluate(&corpus, &mut index, &baseline, &every)?;
    out.extend(rows("both sets", &r));
    drop(index);
    // The failure shapes, on a conversation of their own.
    let (_talk_tmp, talk_dir) = conversation()?;
    let talk = corpus_of(&talk_dir)?;
    let talk_baseline = Baseline::build(&talk.ledger, &talk.events)?;
    let mut talk_index = Index::open(&talk_dir, &talk.ledger).map_err(|e| e.to_string())?;
    let queries = load_queries("shapes.jsonl")?;
    let r = evaluate(&talk, &mut talk_index, &talk_baseline, &queries)?;
    report.push_str("# shapes (shapes.jsonl over shapes-session.jsonl)\n");
    for line in &r.report {
        report.push_str(line);
        report.push('\n');
    }
    out.extend(rows("shapes", &r));
    out.extend(crate::bench_search::wide_vs_narrow(
        dir.as_std_path(),
        "the imported fixture sessions",
        0,
        &crate::bench_index::Vocab::new(),
    ));
    let path = workspace_root()
        .join("target")
        .join("bench")
        .join("search-eval.txt");
    std::fs::create_dir_all(path.parent().unwrap_or(&path))
        .and_then(|()| std::fs::write(&path, report))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(out)
}
