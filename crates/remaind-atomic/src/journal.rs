//! The group journal: the one small file that turns the replacement of several files into one
//! unit. Its presence means "these staged temp files are the new versions": a writer rolls it
//! forward, a reader reads through it, so no one ever sees part of a group.

use crate::rel::RelPath;

/// Name of the journal inside the history folder (a dotfile, so it is never taken for a point).
pub(crate) const JOURNAL: &str = ".group";

/// First line of every journal.
const MAGIC: &str = "remaind-group v1";

/// One file of a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The file.
    pub(crate) rel: RelPath,
    /// Name of the staged temp file (in the file's own folder) holding the new version, or
    /// `None` when the group removes the file.
    pub(crate) temp: Option<String>,
}

/// The journal's bytes: the magic line, then `<encoded file>\t<temp name or ->` per file.
pub(crate) fn encode(entries: &[Entry]) -> Vec<u8> {
    let mut out = format!("{MAGIC}\n");
    for e in entries {
        out.push_str(&e.rel.encoded());
        out.push('\t');
        out.push_str(e.temp.as_deref().unwrap_or("-"));
        out.push('\n');
    }
    out.into_bytes()
}

/// Parses a journal; `None` when it is not one this crate wrote.
pub(crate) fn decode(bytes: &[u8]) -> Option<Vec<Entry>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut lines = text.strip_suffix('\n')?.split('\n');
    if lines.next()? != MAGIC {
        return None;
    }
    lines
        .map(|line| {
            let (rel, temp) = line.split_once('\t')?;
            let temp = match temp {
                "-" => None,
                t if t.starts_with(crate::fsio::TEMP_PREFIX) && !t.contains('/') => {
                    Some(t.to_owned())
                }
                _ => return None,
            };
            Some(Entry {
                rel: RelPath::decode(rel)?,
                temp,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_round_trips_and_rejects_foreign_bytes() {
        let entries = vec![
            Entry {
                rel: RelPath::new("state.json".into()).expect("name"),
                temp: Some(".remaind-tmp-1-2-3".to_owned()),
            },
            Entry {
                rel: RelPath::new("notes/today.md".into()).expect("name"),
                temp: None,
            },
        ];
        assert_eq!(decode(&encode(&entries)), Some(entries));
        assert_eq!(
            decode(b"remaind-group v1\nstate.json\t../../etc/passwd\n"),
            None
        );
        assert_eq!(decode(b"something else\n"), None);
        assert_eq!(decode(b"remaind-group v1\nstate.json\t-"), None);
    }
}
