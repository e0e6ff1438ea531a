//! Search on a public long-conversation benchmark: LoCoMo's ten multi-session conversations
//! (snap-research/locomo, `data/locomo10.zip`), read from `../shared/benchmarks/locomo/` beside
//! the workspace when it is there (the data is not committed: no licence is stated upstream;
//! evaluation use only). Every turn is one event (`Speaker: text`, a shared photo's caption
//! after it), each session opens with a date note, and each question of categories 1–4 (5 is
//! adversarial: no evidence) is passed verbatim to search, as a new user would. Reported: the
//! share of each question's evidence turns in the top 10 (evidence recall@10), per category
//! and overall, against a plain BM25 with stemming over the same events in the same run.

use std::collections::{BTreeMap, HashMap};
use std::process::Command;

use remaind_events::Event;
use remaind_index::{Index, SearchOptions};
use remaind_ledger::Ledger;
use serde_json::{Value, json};

use crate::bench::Measurement;
use crate::eval_search::Baseline;
use crate::workspace_root;

/// LoCoMo's question categories, as its paper names them.
const CATEGORIES: [(u64, &str); 4] = [
    (1, "multi-hop"),
    (2, "temporal"),
    (3, "open-domain"),
    (4, "single-hop"),
];

/// Evidence recall@10 tallies: (questions, summed share of evidence found).
type Tally = BTreeMap<&'static str, (usize, f64)>;

pub(crate) fn run(_quick: bool) -> Vec<Measurement> {
    evaluate().unwrap_or_else(|e| vec![Measurement::failed("locomo", &e)])
}

fn evaluate() -> Result<Vec<Measurement>, String> {
    let zip = workspace_root().join("../shared/benchmarks/locomo/locomo10.zip");
    if !zip.is_file() {
        return Err(format!(
            "{} is not there (the public data is read beside the workspace, never committed)",
            zip.display()
        ));
    }
    let (mut ours, mut base) = (Tally::new(), Tally::new());
    for name in conversations(&zip)? {
        let text = unzip(&zip, &name)?;
        let doc: Value = serde_json::from_str(&text).map_err(|e| format!("{name}: {e}"))?;
        one_conversation(&doc, &mut ours, &mut base).map_err(|e| format!("{name}: {e}"))?;
    }
    let mut out = Vec::new();
    let rows = CATEGORIES
        .iter()
        .map(|(_, c)| *c)
        .chain(std::iter::once("all"));
    for category in rows {
        let (n, found) = ours.get(category).copied().unwrap_or_default();
        let (_, theirs) = base.get(category).copied().unwrap_or_default();
        out.push(Measurement {
            name: format!("LoCoMo evidence recall@10: {category} ({n} questions)"),
            figure: found / n.max(1) as f64,
            baseline_name: "BM25 with stemming, any word".to_owned(),
            baseline: theirs / n.max(1) as f64,
            unit: "recall".to_owned(),
            note: "questions verbatim, every turn an event".to_owned(),
        });
    }
    Ok(out)
}

/// The conversation files in the archive.
fn conversations(zip: &std::path::Path) -> Result<Vec<String>, String> {
    let out = Command::new("unzip")
        .arg("-Z1")
        .arg(zip)
        .output()
        .map_err(|e| format!("unzip: cannot start ({e}); install Debian's unzip"))?;
    if !out.status.success() {
        return Err(format!("unzip -Z1 {}: {}", zip.display(), out.status));
    }
    let mut names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("locomo10_v2/") && l.ends_with(".json"))
        .map(str::to_owned)
        .collect();
    names.sort();
    if names.is_empty() {
        return Err(format!("{} holds no locomo10_v2/*.json", zip.display()));
    }
    Ok(names)
}

fn unzip(zip: &std::path::Path, name: &str) -> Result<String, String> {
    let out = Command::new("unzip")
        .arg("-p")
        .arg(zip)
        .arg(name)
        .output()
        .map_err(|e| format!("unzip: {e}"))?;
    String::from_utf8(out.stdout).map_err(|e| format!("{name}: {e}"))
}

/// One conversation: its ledger, then every question searched by both.
fn one_conversation(doc: &Value, ours: &mut Tally, base: &mut Tally) -> Result<(), String> {
    let talk = doc.get("conversation").unwrap_or(doc);
    let mut lines = String::new();
    let mut seq_of: HashMap<String, u64> = HashMap::new();
    let mut seq = 0u64;
    for session in 1.. {
        let Some(turns) = talk
            .get(format!("session_{session}"))
            .and_then(Value::as_array)
        else {
            break;
        };
        let date = talk
            .get(format!("session_{session}_date_time"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let note = format!("Session {session} took place on {date}.");
        lines.push_str(&json!({"kind": "note", "text": note}).to_string());
        lines.push('\n');
        seq += 1;
        for turn in turns {
            let field = |k: &str| turn.get(k).and_then(Value::as_str).unwrap_or("");
            let mut text = format!("{}: {}", field("speaker"), field("text"));
            if !field("blip_caption").is_empty() {
                text.push_str(&format!(" [shares a photo: {}]", field("blip_caption")));
            }
            lines.push_str(
                &json!({"kind": "user_message", "actor": "user", "text": text}).to_string(),
            );
            lines.push('\n');
            seq += 1;
            seq_of.insert(field("dia_id").to_owned(), seq);
        }
    }
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let dir = camino::Utf8PathBuf::from_path_buf(tmp.path().join(".context"))
        .map_err(|p| format!("{} is not UTF-8", p.display()))?;
    Ledger::create(&dir).map_err(|e| e.to_string())?;
    let ledger = Ledger::open(&dir).map_err(|e| e.to_string())?;
    ledger
        .append(remaind_ledger::AppendRequest::json_lines(lines.as_bytes()))
        .map_err(|e| e.to_string())?;
    let events: Vec<Event> = ledger
        .iter()
        .map_err(|e| e.to_string())?
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let baseline = Baseline::build(&ledger, &events)?;
    let mut index = Index::open(&dir, &ledger).map_err(|e| e.to_string())?;
    let opts = SearchOptions {
        limit: 10,
        ..SearchOptions::default()
    };
    for qa in doc
        .get("qa")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let category = qa.get("category").and_then(Value::as_u64).unwrap_or(0);
        let Some((_, label)) = CATEGORIES.iter().find(|(c, _)| *c == category) else {
            continue;
        };
        let evidence: Vec<u64> = qa
            .get("evidence")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|e| seq_of.get(e.as_str()?).copied())
            .collect();
        let question = qa.get("question").and_then(Value::as_str).unwrap_or("");
        if evidence.is_empty() || question.trim().is_empty() {
            continue;
        }
        let found: Vec<u64> = index
            .search(question, &opts)
            .map(|hits| hits.into_iter().map(|h| h.seq).collect())
            .unwrap_or_default();
        let theirs = baseline.search(question)?;
        let share = |hits: &[u64]| {
            evidence.iter().filter(|e| hits.contains(e)).count() as f64 / evidence.len() as f64
        };
        for key in [*label, "all"] {
            let o = ours.entry(key).or_default();
            o.0 += 1;
            o.1 += share(&found);
            let b = base.entry(key).or_default();
            b.0 += 1;
            b.1 += share(&theirs);
        }
    }
    Ok(())
}
