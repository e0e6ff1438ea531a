//! Token counts kept per chunk ([`remaind_tokens::chunks`]: a count is the sum of its chunks')
//! in `db/token_counts`, so a packet whose lines were all counted before is counted exactly
//! without loading the vocabulary (tens of milliseconds and ~70 MB for `o200k_base`). A
//! cache: derived, keyed by content, never an authority; a missing, damaged or foreign file is
//! ignored and rewritten, and a folder that cannot be written only costs a recount.

use std::collections::HashMap;

use remaind_fs::ContextDir;
use remaind_fs::layout::TOKEN_COUNTS_PATH;
use remaind_tokens::{TokenizerName, chunks};

/// The first line: the format and the vocabulary the counts were made with.
const MAGIC: &str = "remaind-token-counts 1";
/// Most chunks kept: the newest (about 10 MB of file at most).
const KEPT: usize = 200_000;
/// Hex digits of a chunk's SHA-256 kept as its key.
const KEY_HEX: usize = 32;

/// Counts with `name`, each chunk looked up before it is counted.
pub(crate) struct Counts {
    name: TokenizerName,
    /// Key → count, and the keys in the order they were learnt (the oldest go first).
    known: HashMap<String, u64>,
    order: Vec<String>,
    /// Whether a chunk was counted that the file does not hold.
    learnt: bool,
}

impl Counts {
    /// The counts `ctx` keeps for `name` (none when the file is missing or not one of ours).
    pub(crate) fn load(ctx: &ContextDir, name: TokenizerName) -> Counts {
        let mut counts = Counts {
            name,
            known: HashMap::new(),
            order: Vec::new(),
            learnt: false,
        };
        let path = ctx.join(TOKEN_COUNTS_PATH);
        let Ok(Some(bytes)) = remaind_fs::read_file(&path) else {
            return counts;
        };
        let text = String::from_utf8_lossy(&bytes);
        let mut lines = text.lines();
        if lines.next() != Some(&format!("{MAGIC} {}", name.as_str())) {
            return counts;
        }
        for line in lines {
            let Some((key, n)) = line.split_once(' ') else {
                continue;
            };
            if let (true, Ok(n)) = (key.len() == KEY_HEX, n.parse::<u64>())
                && counts.known.insert(key.to_owned(), n).is_none()
            {
                counts.order.push(key.to_owned());
            }
        }
        counts
    }

    /// The tokens of `text`: the sum of its chunks' counts, each from the file when known.
    pub(crate) fn count(&mut self, text: &str) -> u64 {
        let mut total = 0;
        for chunk in chunks(text) {
            let mut key = remaind_hash::sha256_hex(chunk.as_bytes());
            key.truncate(KEY_HEX);
            total += match self.known.get(&key) {
                Some(n) => *n,
                None => {
                    let n = self.name.count(chunk);
                    self.known.insert(key.clone(), n);
                    self.order.push(key);
                    self.learnt = true;
                    n
                }
            };
        }
        total
    }

    /// Writes what was learnt (best effort: a cache that cannot be written is recounted).
    pub(crate) fn save(&self, ctx: &ContextDir) {
        if !self.learnt {
            return;
        }
        let keep = &self.order[self.order.len().saturating_sub(KEPT)..];
        let mut out = format!("{MAGIC} {}\n", self.name.as_str());
        for key in keep {
            if let Some(n) = self.known.get(key) {
                out.push_str(key);
                out.push(' ');
                out.push_str(&n.to_string());
                out.push('\n');
            }
        }
        let path = ctx.join(TOKEN_COUNTS_PATH);
        if let (Some(dir), Some(name)) = (path.parent(), path.file_name())
            && remaind_fs::ensure_dir(dir, true).is_ok()
        {
            let _ = remaind_fs::replace_file(dir, name, out.as_bytes());
        }
    }
}
