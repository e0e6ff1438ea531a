//! The head anchor, `logs/events.head`: kept apart from the log, it records where the log
//! ended after Remaind's last append (seq, byte length, hash of the last line) and how the
//! file looked then (inode, change time). Every open compares the log with it:
//!
//! - the file unchanged since (same inode, length and change time): only the last line is
//!   re-hashed, a cost that does not grow with the ledger;
//! - anything else (a crash between the append and the anchor, a copied folder, an edit):
//!   the whole chain is checked once, and must reach the anchored line with the anchored
//!   hash; on success the log is anchored again.
//!
//! A changed, deleted, reordered or forged line, a shortened log or a forged last line is
//! therefore caught by the next command, not only by `verify`. The anchor is written in place
//! (one fixed-size `pwrite`, no extra fsync): a torn or stale anchor only costs one full check.
//! The change time has the file system's clock granularity (a few ms on Linux): a same-size
//! edit within the same tick as Remaind's own last append is left to `verify`.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::{FileExt, MetadataExt};

use camino::Utf8Path;

use crate::lines::{self, Snapshot};
use remaind_events::{GENESIS_PREV, line_digest};

pub(crate) use remaind_fs::layout::HEAD_PATH;

/// The anchor is one record of this many bytes, padded with spaces.
const RECORD_LEN: usize = 256;

const MAGIC: &str = "remaind-head v1";

/// Where the log ended after the last append, and how the file looked then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Anchor {
    pub(crate) seq: u64,
    pub(crate) len: u64,
    pub(crate) sha256: String,
    ino: u64,
    ctime: (i64, i64),
}

/// Where the chain breaks: the 1-based line and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Break {
    pub(crate) line: u64,
    pub(crate) reason: String,
}

impl Anchor {
    /// The anchor for a log whose complete lines end at `len` with line `seq` hashing to
    /// `sha256`, as `file` is now.
    pub(crate) fn of(file: &File, seq: u64, len: u64, sha256: String) -> io::Result<Anchor> {
        let m = file.metadata()?;
        Ok(Anchor {
            seq,
            len,
            sha256,
            ino: m.ino(),
            ctime: (m.ctime(), m.ctime_nsec()),
        })
    }

    /// True when `file` is exactly as it was when anchored (no one wrote it since).
    fn untouched(&self, file: &File) -> io::Result<bool> {
        let m = file.metadata()?;
        Ok(m.ino() == self.ino && m.len() == self.len && (m.ctime(), m.ctime_nsec()) == self.ctime)
    }

    fn body(&self) -> String {
        format!(
            "{MAGIC} seq={} len={} sha256={} ino={} ctime={}.{}",
            self.seq, self.len, self.sha256, self.ino, self.ctime.0, self.ctime.1
        )
    }

    fn encode(&self) -> Vec<u8> {
        let body = self.body();
        let check = &line_digest(body.as_bytes())[..16];
        let mut out = format!("{body} check={check}").into_bytes();
        out.resize(RECORD_LEN - 1, b' ');
        out.push(b'\n');
        out
    }

    fn decode(bytes: &[u8]) -> Option<Anchor> {
        let text = std::str::from_utf8(bytes).ok()?.trim_end();
        let (body, check) = text.rsplit_once(" check=")?;
        if check != &line_digest(body.as_bytes())[..16] {
            return None;
        }
        let mut fields = body.strip_prefix(MAGIC)?.split_whitespace();
        let mut field = |name: &str| fields.next()?.strip_prefix(name)?.strip_prefix('=');
        let seq = field("seq")?.parse().ok()?;
        let len = field("len")?.parse().ok()?;
        let sha256 = field("sha256")?.to_owned();
        let ino = field("ino")?.parse().ok()?;
        let (sec, nsec) = field("ctime")?.split_once('.')?;
        let anchor = Anchor {
            seq,
            len,
            sha256,
            ino,
            ctime: (sec.parse().ok()?, nsec.parse().ok()?),
        };
        (anchor.body() == body).then_some(anchor)
    }
}

/// Opens the anchor for writing (creating it 0600), never following a symlink or blocking.
pub(crate) fn open_for_writing(path: &Utf8Path) -> io::Result<File> {
    Ok(remaind_fs::open_file(
        path,
        remaind_fs::Access::ReadWriteCreate,
    )?)
}

/// Writes `anchor` over the record (one positional write).
pub(crate) fn write(file: &File, anchor: &Anchor) -> io::Result<()> {
    file.write_all_at(&anchor.encode(), 0)
}

/// Reads the anchor; `None` when there is none or it is not readable as one (torn, foreign).
pub(crate) fn read(path: &Utf8Path) -> io::Result<Option<Anchor>> {
    let mut f = match remaind_fs::open_file(path, remaind_fs::Access::Read).map_err(io::Error::from)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut buf = Vec::with_capacity(RECORD_LEN);
    f.by_ref()
        .take(RECORD_LEN as u64 + 1)
        .read_to_end(&mut buf)?;
    Ok(Anchor::decode(&buf))
}

/// What the check found: the head of the chain (seq, hash of the last complete line, end of
/// the last line that chains), and whether the log must be anchored again.
pub(crate) struct Checked {
    pub(crate) seq: u64,
    pub(crate) sha256: String,
    pub(crate) len: u64,
    pub(crate) reanchor: bool,
}

/// Checks the log against `anchor` (see the module doc). Lines after the anchored end must
/// chain on from it; a last line there that does not is left to torn-tail recovery.
pub(crate) fn check(file: &File, anchor: Option<&Anchor>) -> io::Result<Result<Checked, Break>> {
    let snap = Snapshot::new(file)?;
    if let Some(a) = anchor
        && a.untouched(file)?
        && snap.end == a.len
    {
        // Only the last line: re-hash it.
        let mut back = snap.backward(snap.end);
        let last = back.prev_line()?;
        let ok = match last {
            None => a.seq == 0 && a.sha256 == GENESIS_PREV,
            Some((_, line)) => {
                lines::seq_of_prefix(line) == Some(a.seq) && line_digest(line) == a.sha256
            }
        };
        if ok {
            return Ok(Ok(Checked {
                seq: a.seq,
                sha256: a.sha256.clone(),
                len: a.len,
                reanchor: false,
            }));
        }
        return Ok(Err(Break {
            line: a.seq.max(1),
            reason: format!(
                "the last line does not match the head anchor ({HEAD_PATH}: seq {}, sha256 {}); it was changed or forged",
                a.seq, a.sha256
            ),
        }));
    }
    full(&snap, anchor)
}

fn full(snap: &Snapshot<'_>, anchor: Option<&Anchor>) -> io::Result<Result<Checked, Break>> {
    let anchored_len = anchor.map_or(0, |a| a.len);
    let mut prev = GENESIS_PREV.to_owned();
    let mut n = 0u64;
    let mut end = 0u64;
    let mut fwd = snap.forward(0);
    while let Some((off, line)) = fwd.next_line()? {
        let next = off + line.len() as u64 + 1;
        let problem = if off < anchored_len && next > anchored_len {
            Some(format!(
                "crosses the end of the anchored log (byte {anchored_len} in {HEAD_PATH}): the line was changed"
            ))
        } else if lines::seq_of_prefix(line) != Some(n + 1) {
            Some(format!(
                "seq is not {} (a line is missing, added, reordered or changed)",
                n + 1
            ))
        } else if prev_of(line) != Some(prev.as_bytes()) {
            Some(format!(
                "prev does not match the hash of the line before ({prev}): this line or one before it was changed, removed or moved"
            ))
        } else {
            None
        };
        if let Some(reason) = problem {
            if off >= anchored_len && next == snap.end && lines::parse_line(line).is_err() {
                // Past the anchor, a last line that is not an event: a torn write, which
                // recovery quarantines.
                break;
            }
            return Ok(Err(Break {
                line: n + 1,
                reason,
            }));
        }
        prev = line_digest(line);
        n += 1;
        end = next;
        if let Some(a) = anchor
            && next == a.len
            && (n != a.seq || prev != a.sha256)
        {
            return Ok(Err(Break {
                line: n,
                reason: format!(
                    "does not match the head anchor ({HEAD_PATH}: seq {}, sha256 {}); the last anchored line was changed or forged",
                    a.seq, a.sha256
                ),
            }));
        }
    }
    if let Some(a) = anchor
        && end < a.len
    {
        return Ok(Err(Break {
            line: n + 1,
            reason: format!(
                "the log ends at byte {end} (seq {n}) but the head anchor ({HEAD_PATH}) records seq {} ending at byte {}: lines were removed or cut",
                a.seq, a.len
            ),
        }));
    }
    Ok(Ok(Checked {
        seq: n,
        sha256: prev,
        len: end,
        reanchor: true,
    }))
}

/// The `prev` hash of a stored line, from its fixed header.
fn prev_of(line: &[u8]) -> Option<&[u8]> {
    const KEY: &[u8] = br#","prev":""#;
    let head = &line[..line.len().min(160)];
    let at = memchr::memmem::find(head, KEY)? + KEY.len();
    let hash = line.get(at..at + 64)?;
    (line.get(at + 64) == Some(&b'"')).then_some(hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_anchor_round_trips_and_a_changed_byte_is_not_read_as_one() {
        let a = Anchor {
            seq: 42,
            len: 12_345,
            sha256: "ab".repeat(32),
            ino: 7,
            ctime: (1_700_000_000, 123),
        };
        let bytes = a.encode();
        assert_eq!(bytes.len(), RECORD_LEN);
        assert_eq!(Anchor::decode(&bytes), Some(a));
        let mut forged = bytes.clone();
        forged[20] = b'9';
        assert_eq!(Anchor::decode(&forged), None);
    }
}
