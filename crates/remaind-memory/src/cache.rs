//! The compiled memory tree, kept next to the index (`db/memory_tree`) so a listing does not
//! tokenize every instruction file again. Derived like the index: one section per source
//! file keyed by the SHA-256 of its bytes; a source whose bytes changed (or a missing or
//! unreadable cache) is compiled again and the cache rewritten atomically.
//!
//! Format (text, one record per line, fields separated by tabs, `\\`, tab and newline
//! escaped in labels):
//! `remaind-memory-tree 2`, then per source `S file sha256 nodes`, followed by its nodes
//! `N id parent|- line lines type tokens label`. A node's text is not stored: it is lines
//! `line .. line + lines` of its source, which is read anyway to check its hash.

use std::collections::HashMap;

use crate::tree::{self, Node, NodeType, TokenizerName};

/// The first line, followed by a space and the vocabulary the counts were made with.
const MAGIC: &str = "remaind-memory-tree 2";

/// One source file's compiled nodes, as cached.
pub(crate) struct Section {
    pub(crate) file: String,
    pub(crate) sha256: String,
    pub(crate) nodes: Vec<Node>,
    /// How many source lines each node spans (its text may have been left out).
    lines: Vec<usize>,
}

/// The sections of a cache file; `None` when it is not one this version wrote (it is then
/// rebuilt, never trusted).
pub(crate) fn parse(
    bytes: &[u8],
    vocabulary: TokenizerName,
) -> Option<HashMap<String, CachedSection>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut lines = text.split('\n');
    // Counts made with another vocabulary are stale.
    if lines.next()? != format!("{MAGIC} {}", vocabulary.as_str()) {
        return None;
    }
    let mut out = HashMap::new();
    let mut current: Option<CachedSection> = None;
    for line in lines {
        if line.is_empty() {
            continue;
        }
        let mut f = line.split('\t');
        match f.next()? {
            "S" => {
                if let Some(done) = current.take() {
                    out.insert(done.file.clone(), done);
                }
                let file = unescape(f.next()?);
                let sha256 = f.next()?.to_owned();
                let n: usize = f.next()?.parse().ok()?;
                current = Some(CachedSection {
                    file,
                    sha256,
                    nodes: Vec::with_capacity(n),
                });
            }
            "N" => {
                let section = current.as_mut()?;
                let id = f.next()?.to_owned();
                let parent = match f.next()? {
                    "-" => None,
                    p => Some(p.to_owned()),
                };
                let line: usize = f.next()?.parse().ok()?;
                let lines: usize = f.next()?.parse().ok()?;
                let node_type = type_of(f.next()?)?;
                let tokens: u64 = f.next()?.parse().ok()?;
                let label = unescape(f.next()?);
                section.nodes.push(CachedNode {
                    id,
                    parent,
                    line,
                    lines,
                    node_type,
                    tokens,
                    label,
                });
            }
            _ => return None,
        }
    }
    if let Some(done) = current.take() {
        out.insert(done.file.clone(), done);
    }
    Some(out)
}

/// A section as read back: its nodes without their text.
pub(crate) struct CachedSection {
    pub(crate) file: String,
    pub(crate) sha256: String,
    nodes: Vec<CachedNode>,
}

struct CachedNode {
    id: String,
    parent: Option<String>,
    line: usize,
    lines: usize,
    node_type: NodeType,
    tokens: u64,
    label: String,
}

impl CachedSection {
    /// The nodes, their texts cut from `source` (the bytes whose hash matched). `None` when
    /// a node's lines fall outside it (then the source is compiled again).
    pub(crate) fn into_nodes(self, source: &str, texts: bool) -> Option<(Vec<Node>, Vec<usize>)> {
        // Without texts only the line count is needed to check the ranges.
        let lines: Vec<&str> = if texts {
            source.lines().collect()
        } else {
            Vec::new()
        };
        let count = if texts {
            lines.len()
        } else {
            source.lines().count()
        };
        let spans: Vec<usize> = self.nodes.iter().map(|n| n.lines).collect();
        let file = self.file;
        let nodes = self
            .nodes
            .into_iter()
            .map(|n| {
                let start = n.line.checked_sub(1)?;
                let end = start.checked_add(n.lines).filter(|&e| e <= count)?;
                let text = if texts {
                    lines[start..end].join("\n")
                } else {
                    String::new()
                };
                Some(Node {
                    id: n.id,
                    parent: n.parent,
                    file: file.clone(),
                    line: n.line,
                    node_type: n.node_type,
                    label: n.label,
                    text,
                    tokens: n.tokens,
                })
            })
            .collect::<Option<Vec<Node>>>()?;
        Some((nodes, spans))
    }
}

/// The cache file for `sections`, in their order.
pub(crate) fn render(sections: &[Section], vocabulary: TokenizerName) -> String {
    let mut out = format!("{MAGIC} {}\n", vocabulary.as_str());
    for s in sections {
        out.push_str(&format!(
            "S\t{}\t{}\t{}\n",
            escape(&s.file),
            s.sha256,
            s.nodes.len()
        ));
        for (n, lines) in s.nodes.iter().zip(&s.lines) {
            out.push_str(&format!(
                "N\t{}\t{}\t{}\t{lines}\t{}\t{}\t{}\n",
                n.id,
                n.parent.as_deref().unwrap_or("-"),
                n.line,
                n.node_type.as_str(),
                n.tokens,
                escape(&n.label)
            ));
        }
    }
    out
}

fn type_of(s: &str) -> Option<NodeType> {
    [
        NodeType::Heading,
        NodeType::List,
        NodeType::Kv,
        NodeType::Table,
        NodeType::Preamble,
        NodeType::Text,
        NodeType::Code,
        NodeType::Embed,
    ]
    .into_iter()
    .find(|t| t.as_str() == s)
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('\t', "\\t")
        .replace('\n', "\\n")
        .replace('\r', "\\r")
}

fn unescape(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// Compiles `source` (named `file`) unless `cached` holds it under the same hash (then,
/// with `texts` false, the nodes' texts are left empty).
pub(crate) fn section_for(
    file: &str,
    source: &str,
    cached: Option<CachedSection>,
    texts: bool,
    vocabulary: TokenizerName,
) -> (Section, bool) {
    let sha256 = remaind_hash::sha256_hex(source.as_bytes());
    if let Some(c) = cached.filter(|c| c.sha256 == sha256)
        && let Some((nodes, lines)) = c.into_nodes(source, texts)
    {
        let section = Section {
            file: file.to_owned(),
            sha256,
            lines,
            nodes,
        };
        return (section, false);
    }
    let nodes = tree::compile_with(file, source, vocabulary);
    // A node's text is its lines joined by `\n`: one more line than separators.
    let lines = nodes.iter().map(|n| n.text.split('\n').count()).collect();
    let section = Section {
        file: file.to_owned(),
        sha256,
        nodes,
        lines,
    };
    (section, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    const V: TokenizerName = TokenizerName::O200kBase;

    #[test]
    fn a_cache_reads_back_the_nodes_it_was_written_from() {
        let md = "# Build\r\n\r\nRun\tit.\r\n\r\n- one\n- two\n  more\n\n```sh\ncargo test\n```\n";
        let (section, compiled) = section_for("CLAUDE.md", md, None, true, V);
        assert!(compiled);
        let bytes = render(std::slice::from_ref(&section), V);
        let mut parsed = parse(bytes.as_bytes(), V).expect("parses");
        // Counts of another vocabulary are not read back.
        assert!(parse(bytes.as_bytes(), TokenizerName::Cl100kBase).is_none());
        let (again, compiled) = section_for(
            "CLAUDE.md",
            md,
            parse(bytes.as_bytes(), V).and_then(|mut p| p.remove("CLAUDE.md")),
            true,
            V,
        );
        assert!(!compiled, "the same bytes are not compiled again");
        assert_eq!(again.nodes, section.nodes);
        // Changed bytes are compiled again.
        let (_, compiled) = section_for(
            "CLAUDE.md",
            "# Other\n",
            parsed.remove("CLAUDE.md"),
            true,
            V,
        );
        assert!(compiled);
        assert!(parse(b"something else\n", V).is_none());
    }
}
