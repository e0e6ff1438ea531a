//! The memory tree: Markdown instruction and memory files compiled into typed, sized nodes
//! with content-addressed ids, and ordered by temperature within a token budget.

use std::collections::HashMap;

pub use remaind_tokens::TokenizerName;
use serde::{Deserialize, Serialize};

/// Longest label, in characters.
const LABEL_CHARS: usize = 80;

/// What kind of Markdown block a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeType {
    /// A `#` heading; the blocks under it are its children.
    Heading,
    /// A list (`-`, `*`, `+` or numbered items, with their continuation lines).
    List,
    /// `key: value` lines.
    Kv,
    /// A `|` table.
    Table,
    /// YAML front matter, or the text before a file's first heading.
    Preamble,
    /// A paragraph.
    Text,
    /// A fenced code block.
    Code,
    /// An embedded file or image (`@path/to/file`, `![alt](src)`).
    Embed,
}

impl NodeType {
    /// The wire name, e.g. `heading`.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeType::Heading => "heading",
            NodeType::List => "list",
            NodeType::Kv => "kv",
            NodeType::Table => "table",
            NodeType::Preamble => "preamble",
            NodeType::Text => "text",
            NodeType::Code => "code",
            NodeType::Embed => "embed",
        }
    }
}

/// One block of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    /// Content-addressed short id: 12 hex digits of the SHA-256 of the file name, the type
    /// and the text (and, for a block repeated in one file, which repeat it is). It changes
    /// only when one of those does.
    pub id: String,
    /// The enclosing heading's id; `None` at the top of a file.
    pub parent: Option<String>,
    /// The file, relative to the project (`CLAUDE.md`, `.context/memory/MEMORY.md`).
    pub file: String,
    /// The 1-based line the block starts on.
    pub line: usize,
    /// The block's kind.
    pub node_type: NodeType,
    /// Its first meaningful line, at most 80 characters.
    pub label: String,
    /// The block's text as written.
    pub text: String,
    /// Tokens of `text` (`o200k_base`, the default tokenizer of `remaind monitor`).
    pub tokens: u64,
}

fn is_fence(line: &str) -> Option<&str> {
    let t = line.trim_start();
    ["```", "~~~"].into_iter().find(|f| t.starts_with(f))
}

fn heading_level(line: &str) -> Option<usize> {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    ((1..=6).contains(&hashes) && line[hashes..].starts_with(' ')).then_some(hashes)
}

fn is_list_item(line: &str) -> bool {
    let t = line.trim_start();
    if t.starts_with("- ") || t.starts_with("* ") || t.starts_with("+ ") {
        return true;
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && (t[digits..].starts_with(". ") || t[digits..].starts_with(") "))
}

fn is_kv(line: &str) -> bool {
    let Some((key, value)) = line.split_once(": ") else {
        return false;
    };
    !key.is_empty()
        && key.len() <= 40
        && !value.trim().is_empty()
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ' ' | '.'))
        && !key.starts_with(' ')
}

fn is_embed(line: &str) -> bool {
    let t = line.trim();
    (t.starts_with('@') && t.len() > 1 && !t.contains(' '))
        || (t.starts_with("![") && t.ends_with(')') && t.contains("]("))
}

/// The label of a block: its first line with text, Markdown markers stripped.
fn label_of(node_type: NodeType, text: &str) -> String {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| {
            let bare_fence = node_type == NodeType::Code && is_fence(l).is_some() && l.len() <= 3;
            let front_matter_rule = node_type == NodeType::Preamble && *l == "---";
            !(l.is_empty() || bare_fence || front_matter_rule)
        })
        .unwrap_or("");
    let stripped = match node_type {
        NodeType::Heading => first.trim_start_matches('#').trim(),
        NodeType::List => first
            .trim_start_matches(|c: char| c.is_ascii_digit() || matches!(c, '-' | '*' | '+'))
            .trim_start_matches(['.', ')'])
            .trim(),
        NodeType::Table => first.trim_matches('|').trim(),
        _ => first,
    };
    let collapsed = stripped.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() <= LABEL_CHARS {
        return collapsed;
    }
    let mut cut: String = collapsed.chars().take(LABEL_CHARS - 1).collect();
    cut.push('…');
    cut
}

/// A block found by the scanner, before ids are given.
struct Block {
    line: usize,
    node_type: NodeType,
    level: usize,
    text: String,
}

/// Splits `markdown` into blocks.
fn blocks(markdown: &str) -> Vec<Block> {
    let lines: Vec<&str> = markdown.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut seen_heading = false;
    // YAML front matter.
    if lines.first().is_some_and(|l| l.trim_end() == "---")
        && let Some(end) = lines.iter().skip(1).position(|l| l.trim_end() == "---")
    {
        out.push(Block {
            line: 1,
            node_type: NodeType::Preamble,
            level: 0,
            text: lines[..end + 2].join("\n"),
        });
        i = end + 2;
    }
    while i < lines.len() {
        let line = lines[i];
        if line.trim().is_empty() {
            i += 1;
            continue;
        }
        // An HTML comment is not shown by any Markdown reader (MEMORY.md's `<!-- id eN -->`
        // markers are bookkeeping): it is not a node.
        if let Some(after) = comment_end(&lines, i) {
            i = after;
            continue;
        }
        let start = i;
        let (node_type, level, end) = if let Some(level) = heading_level(line) {
            seen_heading = true;
            (NodeType::Heading, level, i + 1)
        } else if let Some(fence) = is_fence(line) {
            let close = lines[i + 1..]
                .iter()
                .position(|l| l.trim_start().starts_with(fence))
                .map_or(lines.len(), |p| i + 1 + p + 1);
            (NodeType::Code, 0, close)
        } else if line.trim_start().starts_with('|') {
            let n = lines[i..]
                .iter()
                .take_while(|l| l.trim_start().starts_with('|'))
                .count();
            (NodeType::Table, 0, i + n)
        } else if is_list_item(line) {
            // Items and their indented continuation lines, blank lines between items too.
            let mut end = i + 1;
            while end < lines.len() {
                let l = lines[end];
                let continues = is_list_item(l) || (l.starts_with("  ") && !l.trim().is_empty());
                let blank_between_items =
                    l.trim().is_empty() && lines.get(end + 1).is_some_and(|n| is_list_item(n));
                if !(continues || blank_between_items) {
                    break;
                }
                end += 1;
            }
            (NodeType::List, 0, end)
        } else if is_embed(line) {
            (NodeType::Embed, 0, i + 1)
        } else if is_kv(line) {
            let n = lines[i..].iter().take_while(|l| is_kv(l)).count();
            (NodeType::Kv, 0, i + n)
        } else {
            let n = lines[i..]
                .iter()
                .take_while(|l| {
                    !l.trim().is_empty()
                        && heading_level(l).is_none()
                        && is_fence(l).is_none()
                        && !l.trim_start().starts_with('|')
                        && !is_list_item(l)
                })
                .count()
                .max(1);
            let kind = if seen_heading {
                NodeType::Text
            } else {
                NodeType::Preamble
            };
            (kind, 0, i + n)
        };
        out.push(Block {
            line: start + 1,
            node_type,
            level,
            text: lines[start..end].join("\n"),
        });
        i = end;
    }
    out
}

/// Compiles one Markdown file into nodes, in document order, counting tokens with
/// `o200k_base`. `file` names it in ids and listings. The same `file` and text always give
/// the same nodes, byte for byte.
pub fn compile(file: &str, markdown: &str) -> Vec<Node> {
    compile_with(file, markdown, TokenizerName::default())
}

/// [`compile`], counting tokens with `vocabulary`.
pub(crate) fn compile_with(file: &str, markdown: &str, vocabulary: TokenizerName) -> Vec<Node> {
    let mut nodes = Vec::new();
    // Open headings: (level, id).
    let mut open: Vec<(usize, String)> = Vec::new();
    let mut repeats: HashMap<(NodeType, &str), usize> = HashMap::new();
    let blocks = blocks(markdown);
    for block in &blocks {
        if block.node_type == NodeType::Heading {
            while open.last().is_some_and(|(l, _)| *l >= block.level) {
                open.pop();
            }
        }
        let parent = open.last().map(|(_, id)| id.clone());
        let repeat = repeats
            .entry((block.node_type, block.text.as_str()))
            .or_insert(0);
        let id = node_id(file, block.node_type, &block.text, *repeat);
        *repeat += 1;
        if block.node_type == NodeType::Heading {
            open.push((block.level, id.clone()));
        }
        nodes.push(Node {
            id,
            parent,
            file: file.to_owned(),
            line: block.line,
            node_type: block.node_type,
            label: label_of(block.node_type, &block.text),
            tokens: vocabulary.count(&block.text),
            text: block.text.clone(),
        });
    }
    nodes
}

/// The line after the HTML comment that starts at line `i` and ends a line (`<!-- … -->`,
/// on one line or several); `None` when line `i` starts no such comment.
fn comment_end(lines: &[&str], i: usize) -> Option<usize> {
    if !lines[i].trim_start().starts_with("<!--") {
        return None;
    }
    let close = lines[i..].iter().position(|l| l.contains("-->"))?;
    lines[i + close]
        .trim_end()
        .ends_with("-->")
        .then_some(i + close + 1)
}

fn node_id(file: &str, node_type: NodeType, text: &str, repeat: usize) -> String {
    let key = format!("{file}\0{}\0{repeat}\0{text}", node_type.as_str());
    remaind_hash::sha256_hex(key.as_bytes())[..12].to_owned()
}

/// How warm a node is `now`, given when it was used: each use counts 1 when it happens and
/// halves every 72 hours (`HALF_LIFE_HOURS`) after (`Σ 0.5^(age_hours / 72)`). Opening a node
/// (`memory get`), a node matching a query (`memory tree --query`) and a citation (its id
/// in the text of one of the newest ledger events) are uses.
pub fn temperature(uses: &[jiff::Timestamp], now: jiff::Timestamp) -> f64 {
    uses.iter()
        .map(|t| {
            let hours = now.duration_since(*t).as_secs_f64().max(0.0) / 3600.0;
            0.5f64.powf(hours / HALF_LIFE_HOURS)
        })
        .sum()
}

/// Hours in which a use's weight halves.
pub(crate) const HALF_LIFE_HOURS: f64 = 72.0;

/// One line of a tree listing.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TreeEntry {
    /// The node's id (`remaind memory get ID` opens it).
    pub id: String,
    /// The enclosing heading's id.
    pub parent: Option<String>,
    /// The file.
    pub file: String,
    /// The block's kind.
    pub node_type: NodeType,
    /// Its label.
    pub label: String,
    /// Tokens of the whole node.
    pub tokens: u64,
    /// Its temperature (see [`temperature`]), rounded to 3 decimals.
    pub temperature: f64,
}

/// The tree as handed to an agent: hottest nodes first, within a token budget.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tree {
    /// The nodes listed, hottest first (document order among equals).
    pub nodes: Vec<TreeEntry>,
    /// Nodes left out for the budget.
    pub omitted: usize,
    /// Tokens of the listing (what [`render_listing`] prints for `nodes`).
    pub tokens: u64,
}

/// One listing line.
pub(crate) fn listing_line(e: &TreeEntry) -> String {
    format!(
        "{} {} {}t {}: {}\n",
        e.id,
        e.node_type.as_str(),
        e.tokens,
        e.file,
        e.label
    )
}

/// The listing of `tree` as text, one node per line.
pub fn render_listing(tree: &Tree) -> String {
    tree.nodes.iter().map(listing_line).collect()
}

/// Orders `nodes` by temperature (`uses` per id, at `now`) and keeps what fits `budget`
/// tokens of listing (counted with `o200k_base`); `None` keeps all.
pub fn select(
    nodes: &[Node],
    uses: &HashMap<String, Vec<jiff::Timestamp>>,
    now: jiff::Timestamp,
    budget: Option<u64>,
) -> Tree {
    select_with(nodes, uses, now, budget, TokenizerName::default())
}

/// [`select`], counting the listing's tokens with `vocabulary`.
pub(crate) fn select_with(
    nodes: &[Node],
    uses: &HashMap<String, Vec<jiff::Timestamp>>,
    now: jiff::Timestamp,
    budget: Option<u64>,
    vocabulary: TokenizerName,
) -> Tree {
    // Temperatures first; entries are built only for the nodes listed.
    let mut order: Vec<(usize, f64)> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let t = uses.get(&n.id).map_or(0.0, |u| temperature(u, now));
            (i, (t * 1000.0).round() / 1000.0)
        })
        .collect();
    order.sort_by(|(ia, a), (ib, b)| b.total_cmp(a).then_with(|| ia.cmp(ib)));
    let mut tree = Tree {
        nodes: Vec::new(),
        omitted: 0,
        tokens: 0,
    };
    let total = order.len();
    for (i, temperature) in order {
        let n = &nodes[i];
        let e = TreeEntry {
            id: n.id.clone(),
            parent: n.parent.clone(),
            file: n.file.clone(),
            node_type: n.node_type,
            label: n.label.clone(),
            tokens: n.tokens,
            temperature,
        };
        let cost = vocabulary.count(&listing_line(&e));
        if budget.is_some_and(|b| tree.tokens + cost > b) {
            // Hottest first: the first node that does not fit ends the listing (a colder,
            // shorter one slipping in after it would misorder the tree).
            tree.omitted = total - tree.nodes.len();
            break;
        }
        tree.tokens += cost;
        tree.nodes.push(e);
    }
    tree
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_get_their_types_and_parents() {
        let md = "---\nname: x\n---\nIntro line.\n\n# Build\n\nRun it.\n\n- one\n- two\n  more\n\n\
                  ## Keys\n\nowner: ops\nregion: eu\n\n| a | b |\n|---|---|\n\n```sh\ncargo test\n```\n\n\
                  @docs/style.md\n";
        let nodes = compile("CLAUDE.md", md);
        let types: Vec<_> = nodes.iter().map(|n| n.node_type.as_str()).collect();
        assert_eq!(
            types,
            [
                "preamble", "preamble", "heading", "text", "list", "heading", "kv", "table",
                "code", "embed"
            ]
        );
        let build = &nodes[2].id;
        let keys = &nodes[5].id;
        assert_eq!(nodes[3].parent.as_ref(), Some(build));
        assert_eq!(nodes[5].parent.as_ref(), Some(build));
        assert_eq!(nodes[6].parent.as_ref(), Some(keys));
        assert_eq!(nodes[4].label, "one");
        assert_eq!(nodes[8].label, "```sh");
    }

    #[test]
    fn warmth_halves_every_half_life() {
        let now = jiff::Timestamp::from_second(1_000_000).unwrap_or_default();
        let then = jiff::Timestamp::from_second(1_000_000 - 72 * 3600).unwrap_or_default();
        assert!((temperature(&[now, then], now) - 1.5).abs() < 1e-9);
    }
}
