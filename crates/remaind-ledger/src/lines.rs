//! Byte-level access to the log file: complete-line snapshots, forward and backward line
//! readers, cheap seq extraction and binary search by seq. All reads are positional
//! (`pread`), so several readers may share one file handle.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

use remaind_events::Event;

const CHUNK: usize = 64 * 1024;

/// The first read of a probe (binary-search step or single-line read): most lines fit, and
/// a random lookup then costs a few small reads instead of several 64 KiB ones.
const PROBE: usize = 2 * 1024;

/// Below this many bytes, [`Snapshot::find_seq`] reads the rest of its range at once.
const WINDOW: u64 = 4 * 1024;

/// Read `len` bytes at `off` (short only at end of file).
fn read_at(file: &File, off: u64, len: usize) -> io::Result<Vec<u8>> {
    let mut buf = vec![0; len];
    let mut done = 0;
    while done < len {
        match file.read_at(&mut buf[done..], off + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buf.truncate(done);
    Ok(buf)
}

/// The offset of the last `\n` in `[0, before)`, searching backward chunk by chunk.
pub(crate) fn rfind_newline(file: &File, before: u64) -> io::Result<Option<u64>> {
    let mut end = before;
    while end > 0 {
        let start = end.saturating_sub(CHUNK as u64);
        let buf = read_at(file, start, (end - start) as usize)?;
        if let Some(i) = memchr::memrchr(b'\n', &buf) {
            return Ok(Some(start + i as u64));
        }
        end = start;
    }
    Ok(None)
}

/// Length of the prefix of the file made of complete (newline-terminated) lines.
pub(crate) fn complete_len(file: &File) -> io::Result<u64> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(0);
    }
    let last = read_at(file, len - 1, 1)?;
    if last.first() == Some(&b'\n') {
        return Ok(len);
    }
    Ok(rfind_newline(file, len)?.map_or(0, |p| p + 1))
}

/// The seq of a stored line, read from its fixed prefix `{"v":1,"seq":N,` when possible.
pub(crate) fn seq_of_prefix(line: &[u8]) -> Option<u64> {
    let rest = line.strip_prefix(br#"{"v":1,"seq":"#)?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 19 || rest.get(digits) != Some(&b',') {
        return None;
    }
    std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()
}

/// The kind of a stored line, read from its fixed prefix
/// `{"v":1,"seq":N,"id":"eN","ts":"…","prev":"<64 hex>","kind":"…"` when possible (no text
/// comes before it, so no user string can imitate it).
pub(crate) fn kind_of_prefix(line: &[u8]) -> Option<&str> {
    const KEY: &[u8] = br#","kind":""#;
    // The prefix is at most ~170 bytes: seq and id digits, a timestamp, a 64-digit hash.
    let head = &line[..line.len().min(256)];
    let at = memchr::memmem::find(head, br#","prev":""#)?;
    let after_prev = at + br#","prev":""#.len() + 64 + 1;
    let rest = head.get(after_prev..)?.strip_prefix(KEY)?;
    let end = memchr::memchr(b'"', rest)?;
    std::str::from_utf8(&rest[..end]).ok()
}

/// The seq of a stored line: the fast prefix path, else a full parse.
pub(crate) fn seq_of_line(line: &[u8]) -> Option<u64> {
    seq_of_prefix(line).or_else(|| {
        let v: serde_json::Value = serde_json::from_slice(line).ok()?;
        v.get("seq")?.as_u64()
    })
}

/// A view of the complete lines of the log, `[0, end)`.
pub(crate) struct Snapshot<'a> {
    pub(crate) file: &'a File,
    pub(crate) end: u64,
}

impl<'a> Snapshot<'a> {
    pub(crate) fn new(file: &'a File) -> io::Result<Self> {
        Ok(Snapshot {
            file,
            end: complete_len(file)?,
        })
    }

    /// The bytes `[start, end)`.
    pub(crate) fn raw(&self, start: u64, end: u64) -> io::Result<Vec<u8>> {
        read_at(self.file, start, (end - start) as usize)
    }

    /// The first line start at or after `off`.
    fn line_start_from(&self, off: u64) -> io::Result<Option<u64>> {
        if off == 0 {
            return Ok((self.end > 0).then_some(0));
        }
        let mut pos = off - 1;
        let mut want = PROBE;
        while pos < self.end {
            let n = want.min((self.end - pos) as usize);
            let buf = read_at(self.file, pos, n)?;
            if buf.is_empty() {
                break;
            }
            if let Some(i) = memchr::memchr(b'\n', &buf) {
                let start = pos + i as u64 + 1;
                return Ok((start < self.end).then_some(start));
            }
            pos += buf.len() as u64;
            want = (want * 2).min(CHUNK);
        }
        Ok(None)
    }

    /// The line starting at `start`, without its newline.
    pub(crate) fn line_at(&self, start: u64) -> io::Result<Vec<u8>> {
        let head = read_at(self.file, start, PROBE.min((self.end - start) as usize))?;
        if let Some(i) = memchr::memchr(b'\n', &head) {
            return Ok(head[..i].to_vec());
        }
        let mut lines = self.forward(start);
        Ok(lines
            .next_line()?
            .map(|(_, l)| l.to_vec())
            .unwrap_or_default())
    }

    /// The seq of the line starting at `start`, reading only its prefix when possible.
    fn seq_at(&self, start: u64) -> io::Result<Option<u64>> {
        let prefix = read_at(self.file, start, 40.min((self.end - start) as usize))?;
        if let Some(seq) = seq_of_prefix(&prefix) {
            return Ok(Some(seq));
        }
        Ok(seq_of_line(&self.line_at(start)?))
    }

    /// Start offset of the first line whose seq is `>= target`. `None` when every line is
    /// below `target`. A line whose seq cannot be read counts as "at or after", so the search
    /// stays well-defined on a corrupt log.
    ///
    /// Seqs are gapless and increasing, and one ledger's lines have similar lengths, so the
    /// search interpolates: it guesses where line `target` starts from the seqs known at both
    /// ends of the byte range still open, which usually lands within a line or two in two
    /// probes. A guess that does not halve the range is followed by a plain bisection step, so
    /// no log shape costs more than about twice a binary search. The last few KiB are read
    /// once and scanned.
    pub(crate) fn find_seq(&self, target: u64) -> io::Result<Option<u64>> {
        // Invariants: lines starting before `lo` have seq < target (the last of them has
        // `lo_seq`, 0 before the first line); the first line starting at or after `hi` has
        // seq >= target (`hi_seq` when known) or there is none.
        let (mut lo, mut hi) = (0u64, self.end);
        let mut lo_seq = 0u64;
        let mut hi_seq: Option<u64> = None;
        let mut bisect_next = false;
        while hi - lo > WINDOW {
            let width = hi - lo;
            let mid = match hi_seq.filter(|_| !bisect_next) {
                // Lines lo_seq+1 .. hi_seq-1 start in [lo, hi): aim half a line before the
                // estimated start of `target`.
                Some(hs) if hs > lo_seq + 1 && target > lo_seq => {
                    let lines = (hs - lo_seq - 1) as f64;
                    let line_len = width as f64 / lines;
                    let at = (target - lo_seq - 1) as f64 * line_len - line_len / 2.0;
                    lo + (at.max(0.0) as u64).min(width - 1)
                }
                _ => lo + width / 2,
            };
            match self.line_start_from(mid)? {
                None => hi = mid,
                Some(s) => match self.seq_at(s)? {
                    Some(seq) if seq < target => (lo, lo_seq) = (s + 1, seq),
                    seq => (hi, hi_seq) = (mid, seq.or(hi_seq)),
                },
            }
            bisect_next = !bisect_next && hi - lo > width / 2;
        }
        self.scan_window(lo, hi, target)
    }

    /// The end of [`Snapshot::find_seq`]: the first line starting in `[lo, hi)` whose seq is
    /// `>= target`, else the first line starting at or after `hi`, from one read of the window.
    fn scan_window(&self, lo: u64, hi: u64, target: u64) -> io::Result<Option<u64>> {
        let from = lo.saturating_sub(1);
        let to = (hi + PROBE as u64).min(self.end);
        let buf = read_at(self.file, from, (to - from) as usize)?;
        // Line starts in the buffer: after each newline (and at 0 for the first line).
        let mut starts = Vec::new();
        if lo == 0 && !buf.is_empty() {
            starts.push(0usize);
        }
        starts.extend(memchr::memchr_iter(b'\n', &buf).map(|i| i + 1));
        for rel in starts {
            let start = from + rel as u64;
            if start < lo {
                continue;
            }
            if start >= self.end {
                return Ok(None);
            }
            if start >= hi {
                return Ok(Some(start));
            }
            let seq = match seq_of_prefix(&buf[rel..]) {
                Some(seq) => Some(seq),
                None => self.seq_at(start)?,
            };
            if seq.is_none_or(|seq| seq >= target) {
                return Ok(Some(start));
            }
        }
        // The window holds no line start at or after `hi` (a line longer than the read).
        self.line_start_from(hi)
    }

    /// Lines from `start` to the end of the snapshot.
    pub(crate) fn forward(&self, start: u64) -> ForwardLines<'a> {
        ForwardLines {
            file: self.file,
            buf: Vec::new(),
            buf_pos: start,
            pos: start,
            end: self.end,
        }
    }

    /// Lines before `end` (a line start or the snapshot end), last first.
    pub(crate) fn backward(&self, end: u64) -> BackwardLines<'a> {
        BackwardLines {
            file: self.file,
            buf: Vec::new(),
            buf_pos: end,
            end,
        }
    }
}

/// Forward line reader over `[pos, end)`.
pub(crate) struct ForwardLines<'a> {
    file: &'a File,
    buf: Vec<u8>,
    buf_pos: u64,
    pos: u64,
    end: u64,
}

impl ForwardLines<'_> {
    /// The next line and its start offset, without its newline.
    pub(crate) fn next_line(&mut self) -> io::Result<Option<(u64, &[u8])>> {
        loop {
            let rel = (self.pos - self.buf_pos) as usize;
            if let Some(i) = memchr::memchr(b'\n', &self.buf[rel..]) {
                let start = self.pos;
                self.pos += i as u64 + 1;
                return Ok(Some((start, &self.buf[rel..rel + i])));
            }
            let file_pos = self.buf_pos + self.buf.len() as u64;
            if file_pos >= self.end {
                return Ok(None);
            }
            self.buf.drain(..rel);
            self.buf_pos = self.pos;
            let want = CHUNK
                .max(self.buf.len())
                .min((self.end - file_pos) as usize);
            let more = read_at(self.file, file_pos, want)?;
            if more.is_empty() {
                return Ok(None);
            }
            self.buf.extend_from_slice(&more);
        }
    }
}

/// Backward line reader: each call returns the line ending just before the current position.
pub(crate) struct BackwardLines<'a> {
    file: &'a File,
    /// Bytes `[buf_pos, buf_pos + buf.len())`; always ends at `end`.
    buf: Vec<u8>,
    buf_pos: u64,
    end: u64,
}

impl BackwardLines<'_> {
    /// The previous line and its start offset, without its newline.
    pub(crate) fn prev_line(&mut self) -> io::Result<Option<(u64, &[u8])>> {
        if self.end == 0 {
            return Ok(None);
        }
        let line_end = self.end - 1; // the '\n'
        loop {
            if self.buf_pos <= line_end {
                let rel_end = (line_end - self.buf_pos) as usize;
                if let Some(i) = memchr::memrchr(b'\n', &self.buf[..rel_end]) {
                    let start = self.buf_pos + i as u64 + 1;
                    self.end = start;
                    let s = i + 1;
                    return Ok(Some((start, &self.buf[s..rel_end])));
                }
                if self.buf_pos == 0 {
                    self.end = 0;
                    return Ok(Some((0, &self.buf[..rel_end])));
                }
            }
            // Drop what was already returned, then prepend the chunk before `buf_pos`.
            let keep = (self.end - self.buf_pos) as usize;
            self.buf.truncate(keep);
            let start = self.buf_pos.saturating_sub(CHUNK.max(keep) as u64);
            let mut chunk = read_at(self.file, start, (self.buf_pos - start) as usize)?;
            chunk.extend_from_slice(&self.buf);
            self.buf = chunk;
            self.buf_pos = start;
        }
    }
}

/// Parse and schema-check one stored line.
pub(crate) fn parse_line(line: &[u8]) -> Result<Event, String> {
    let value: serde_json::Value =
        serde_json::from_slice(line).map_err(|e| format!("not valid JSON: {e}"))?;
    if let Err((field, reason)) = crate::schema::check(&value) {
        return Err(format!("field `{field}`: {reason}"));
    }
    let ev: Event = serde_json::from_value(value).map_err(|e| format!("not a valid event: {e}"))?;
    if ev.id.seq() != ev.seq {
        return Err(format!("id {} does not match seq {}", ev.id, ev.seq));
    }
    Ok(ev)
}

/// Parse a stored line for reading: trusts lines written by the ledger (no schema pass).
pub(crate) fn parse_line_fast(line: &[u8]) -> Result<Event, String> {
    serde_json::from_slice(line).map_err(|e| format!("not a valid event: {e}"))
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use proptest::prelude::*;

    use super::*;

    /// A log of lines `{"v":1,"seq":N,"pad":"…"}` with the given pad lengths, and the start
    /// offset of each line.
    fn log(pads: &[usize]) -> (tempfile::NamedTempFile, Vec<u64>) {
        let mut file = tempfile::NamedTempFile::new().expect("temp file");
        let mut starts = Vec::new();
        let mut off = 0u64;
        for (i, pad) in pads.iter().enumerate() {
            let line = format!(
                "{{\"v\":1,\"seq\":{},\"pad\":\"{}\"}}\n",
                i + 1,
                "x".repeat(*pad)
            );
            file.write_all(line.as_bytes()).expect("write");
            starts.push(off);
            off += line.len() as u64;
        }
        file.flush().expect("flush");
        (file, starts)
    }

    /// Mostly similar lines with, now and then, one far longer than the read window.
    fn pads() -> impl Strategy<Value = Vec<usize>> {
        let pad = prop_oneof![
            20 => 0usize..300,
            2 => 300usize..5_000,
            1 => 20_000usize..80_000,
        ];
        proptest::collection::vec(pad, 0..400)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// For every target, the search finds the first line with seq >= target, like a scan.
        #[test]
        fn prop_find_seq_finds_each_line(pads in pads()) {
            let (file, starts) = log(&pads);
            let handle = File::open(file.path()).expect("open");
            let snap = Snapshot::new(&handle).expect("snapshot");
            let n = starts.len() as u64;
            for target in 0..=n + 1 {
                let want = match target {
                    0 => starts.first().copied(),
                    t => starts.get((t - 1) as usize).copied(),
                };
                prop_assert_eq!(snap.find_seq(target).expect("read"), want, "target {}", target);
            }
        }
    }

    #[test]
    fn find_seq_survives_unreadable_lines() {
        let mut file = tempfile::NamedTempFile::new().expect("temp file");
        for seq in 1..=2_000u64 {
            let line = if seq % 97 == 0 {
                "garbage without a seq\n".to_owned()
            } else {
                format!("{{\"v\":1,\"seq\":{seq},\"pad\":\"{}\"}}\n", "y".repeat(40))
            };
            file.write_all(line.as_bytes()).expect("write");
        }
        file.flush().expect("flush");
        let handle = File::open(file.path()).expect("open");
        let snap = Snapshot::new(&handle).expect("snapshot");
        for target in [1, 96, 97, 98, 500, 1_999, 2_000, 2_001] {
            // Some line start or none, never a panic; readable targets are found exactly.
            let found = snap.find_seq(target).expect("read");
            if target % 97 != 0 && target <= 2_000 {
                let start = found.expect("a line");
                let line = snap.line_at(start).expect("line");
                let seq = seq_of_prefix(&line);
                assert!(seq == Some(target) || seq.is_none(), "target {target}");
            }
        }
    }
}
