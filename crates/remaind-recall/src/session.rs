//! What one agent session already holds: the events its packet cited when it started (or
//! resumed after a compaction), the ledger's head at that moment, and every event recalled
//! since. One JSON Lines file per session under `db/recall/`, named by the hash of the
//! session id; appends are single `write`s of one line, so two hooks of one session at once
//! lose nothing.

use std::collections::HashSet;

use camino::{Utf8Path, Utf8PathBuf};
use remaind_fs::layout;
use serde_json::{Value, json};

use crate::{Error, Result};

/// Sessions whose file was not touched for this long are forgotten when a session starts.
const FORGET_AFTER: std::time::Duration = std::time::Duration::from_secs(14 * 24 * 3600);

/// What a session holds, as its file says.
#[derive(Debug, Default)]
pub(crate) struct Held {
    /// The ledger's head when the session (last) started; `None` when no start was seen.
    pub(crate) start: Option<u64>,
    /// Events the session was given.
    pub(crate) seqs: HashSet<u64>,
}

fn file_name(session: &str) -> String {
    let hash = remaind_hash::sha256_hex(session.as_bytes());
    format!("{}.jsonl", &hash[..32])
}

fn dir(context_dir: &Utf8Path) -> Utf8PathBuf {
    context_dir.join(layout::RECALL_DIR)
}

fn session_error(path: Utf8PathBuf) -> impl FnOnce(remaind_fs::Error) -> Error {
    move |source| Error::Session { path, source }
}

/// Starts the session's record over: the head it starts at and the events `injected`
/// cites (`[eN]`). Forgets sessions untouched for two weeks.
pub(crate) fn start(
    context_dir: &Utf8Path,
    session: &str,
    head: u64,
    injected: &str,
) -> Result<()> {
    let dir = dir(context_dir);
    remaind_fs::ensure_dir(&context_dir.join(layout::DB_DIR), true)
        .and_then(|_| remaind_fs::ensure_dir(&dir, true))
        .map_err(session_error(dir.clone()))?;
    forget_old(&dir);
    let seqs = cited(injected);
    let mut line = json!({ "start": head, "held": seqs }).to_string();
    line.push('\n');
    let name = file_name(session);
    remaind_fs::replace_file(&dir, &name, line.as_bytes()).map_err(session_error(dir.join(&name)))
}

/// Adds `seqs` to what the session holds.
pub(crate) fn add(context_dir: &Utf8Path, session: &str, seqs: &[u64]) -> Result<()> {
    let dir = dir(context_dir);
    remaind_fs::ensure_dir(&context_dir.join(layout::DB_DIR), true)
        .and_then(|_| remaind_fs::ensure_dir(&dir, true))
        .map_err(session_error(dir.clone()))?;
    let rel = Utf8Path::new(layout::RECALL_DIR).join(file_name(session));
    let path = context_dir.join(&rel);
    let line = json!({ "held": seqs }).to_string();
    remaind_fs::append_line(context_dir, &rel, line.as_bytes(), false).map_err(session_error(path))
}

/// What the session holds (nothing when it has no file yet). A damaged line is skipped: the
/// worst it costs is an event shown twice.
pub(crate) fn held(context_dir: &Utf8Path, session: &str) -> Result<Held> {
    let path = dir(context_dir).join(file_name(session));
    let bytes = match remaind_fs::read_file(&path) {
        Ok(Some(b)) => b,
        Ok(None) => return Ok(Held::default()),
        Err(e) => return Err(session_error(path)(e)),
    };
    let mut held = Held::default();
    for line in bytes.split(|&b| b == b'\n') {
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        if let Some(start) = v.get("start").and_then(Value::as_u64) {
            held.start = Some(start);
        }
        if let Some(seqs) = v.get("held").and_then(Value::as_array) {
            held.seqs.extend(seqs.iter().filter_map(Value::as_u64));
        }
    }
    Ok(held)
}

/// The seqs `text` cites as `[eN]`, in order, each once.
pub(crate) fn cited(text: &str) -> Vec<u64> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for part in text.split("[e").skip(1) {
        let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
        if part[digits.len()..].starts_with(']')
            && let Ok(seq) = digits.parse::<u64>()
            && seen.insert(seq)
        {
            out.push(seq);
        }
    }
    out
}

/// Removes session files untouched for [`FORGET_AFTER`]; a failure only leaves them.
fn forget_old(dir: &Utf8Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let old = entry
            .metadata()
            .ok()
            .filter(std::fs::Metadata::is_file)
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > FORGET_AFTER);
        if old && let Some(name) = entry.file_name().to_str() {
            let _ = remaind_fs::remove_file(dir, name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::cited;

    #[test]
    fn citations_are_read_once_each_in_order() {
        assert_eq!(cited("[e3] a [e12][e3] [e] [ex] e4 [e7"), vec![3, 12]);
    }
}
