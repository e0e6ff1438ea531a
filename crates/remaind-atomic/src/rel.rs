//! Validated file names relative to the root, and their encoding inside history entry names.

use camino::{Utf8Path, Utf8PathBuf};

use crate::error::{Error, Result};
use crate::fsio::TEMP_PREFIX;

/// Name of the history folder under the root.
pub(crate) const HISTORY_DIR: &str = "history";

/// Longest encoded relative path accepted, so that a history entry name
/// (`<20-digit seq>_<27-char time>_<marker>_<encoded path>`) stays within the usual
/// 255-byte limit on file names.
const MAX_ENCODED_LEN: usize = 200;

/// A file name relative to the root: one or more `/`-separated plain components, none of them
/// empty, `.` or `..`, not reaching into the history folder, not looking like a temp file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct RelPath(Utf8PathBuf);

impl RelPath {
    /// Checks a caller-supplied name.
    pub(crate) fn new(rel: &Utf8Path) -> Result<Self> {
        let bad = |reason| Error::InvalidPath {
            path: rel.to_owned(),
            reason,
        };
        let s = rel.as_str();
        if s.is_empty() {
            return Err(bad("empty"));
        }
        if s.starts_with('/') {
            return Err(bad("absolute paths are not allowed"));
        }
        if s.contains('\0') {
            return Err(bad("contains a NUL byte"));
        }
        for (i, part) in s.split('/').enumerate() {
            match part {
                "" => return Err(bad("empty path component (doubled or trailing '/')")),
                "." | ".." => return Err(bad("'.' and '..' components are not allowed")),
                HISTORY_DIR if i == 0 => {
                    return Err(bad("the history folder is managed by the store"));
                }
                p if p.starts_with(TEMP_PREFIX) => {
                    return Err(bad("names starting with '.remaind-tmp-' are reserved"));
                }
                p if p.len() > 255 => return Err(bad("path component longer than 255 bytes")),
                _ => {}
            }
        }
        if encode(s).len() > MAX_ENCODED_LEN {
            return Err(bad("too long to be recorded in history"));
        }
        Ok(RelPath(rel.to_owned()))
    }

    pub(crate) fn as_path(&self) -> &Utf8Path {
        &self.0
    }

    /// The components leading to the file (all but the last).
    pub(crate) fn parents(&self) -> impl Iterator<Item = &str> {
        let s = self.0.as_str();
        let dir = s.rsplit_once('/').map_or("", |(d, _)| d);
        dir.split('/').filter(|p| !p.is_empty())
    }

    /// The last component.
    pub(crate) fn file_name(&self) -> &str {
        let s = self.0.as_str();
        s.rsplit_once('/').map_or(s, |(_, f)| f)
    }

    /// The name as it appears inside a history entry name: `%` becomes `%25`, `/` becomes `%2F`.
    pub(crate) fn encoded(&self) -> String {
        encode(self.0.as_str())
    }

    /// Reverses [`RelPath::encoded`] and re-validates; `None` if the text is not such an encoding.
    pub(crate) fn decode(text: &str) -> Option<Self> {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(i) = rest.find('%') {
            out.push_str(&rest[..i]);
            let esc = rest.get(i..i + 3)?;
            match esc {
                "%25" => out.push('%'),
                "%2F" => out.push('/'),
                _ => return None,
            }
            rest = &rest[i + 3..];
        }
        out.push_str(rest);
        let rel = RelPath::new(Utf8Path::new(&out)).ok()?;
        (rel.encoded() == text).then_some(rel)
    }
}

fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '%' => out.push_str("%25"),
            '/' => out.push_str("%2F"),
            c => out.push(c),
        }
    }
    out
}
