//! What a hook learns from the runtime's own transcript that no hook payload carries: an
//! interrupted turn (Claude Code fires no Stop then) and the framing (model, runtime version,
//! branch, permission mode). A hook reads only the lines appended since the last hook read
//! that transcript (a cursor per file under `db/`), so each costs what is new; an interrupt
//! keeps its transcript line id, so a later `import` of the same transcript skips it.

use std::collections::{BTreeMap, HashSet};
use std::io::{Read, Seek, SeekFrom};

use camino::Utf8Path;
use remaind_fs::layout::TRANSCRIPT_CURSORS_PATH;
use remaind_ledger::Ledger;

use crate::error::{Error, Result};
use crate::hooks::record;
use crate::signal::{Framing, Record, Runtime, Signal, origin_key};
use crate::transcript::{open_transcript, read_transcript};

/// How many of the newest ledger events are searched for an interrupt recorded before.
const RECORDED_LOOKBACK: usize = 4096;

/// What following a transcript gave.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Followed {
    /// Interrupts recorded (events appended).
    pub interrupts: usize,
    /// The framing the new lines stated.
    pub framing: Framing,
    /// Bytes of transcript read.
    pub bytes: u64,
}

/// The cursor map: transcript key → bytes read up to the end of a whole line.
type Cursors = BTreeMap<String, u64>;

fn cursor_key(transcript: &Utf8Path) -> String {
    remaind_fs::sha256_hex(transcript.as_str().as_bytes())[..24].to_owned()
}

fn load_cursors(ctx: &Utf8Path) -> Result<Cursors> {
    let path = ctx.join(TRANSCRIPT_CURSORS_PATH);
    let bytes = remaind_fs::read_file(&path).map_err(|source| Error::Cursors {
        path: path.clone(),
        source,
    })?;
    // A damaged cursor file is a cache: start the transcripts over (interrupts dedupe).
    Ok(bytes
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default())
}

fn save_cursors(ctx: &Utf8Path, cursors: &Cursors) -> Result<()> {
    let path = ctx.join(TRANSCRIPT_CURSORS_PATH);
    let err = |source| Error::Cursors {
        path: path.clone(),
        source,
    };
    let dir = path.parent().unwrap_or(ctx);
    let name = path.file_name().unwrap_or(TRANSCRIPT_CURSORS_PATH);
    remaind_fs::ensure_dir(dir, true).map_err(err)?;
    let bytes = serde_json::to_vec(cursors).unwrap_or_default();
    remaind_fs::replace_file(dir, name, &bytes).map_err(err)
}

/// The whole lines of `transcript` after byte `from` (from 0 when the file shrank: it is a
/// new one), and where they end.
fn new_lines(transcript: &Utf8Path, from: u64) -> Result<(Vec<u8>, u64)> {
    let err = |source| Error::Read {
        path: transcript.to_owned(),
        action: "cannot read the runtime's transcript",
        source,
    };
    let mut file = open_transcript(transcript, "cannot read the runtime's transcript")?;
    let len = file.metadata().map_err(err)?.len();
    let from = if len < from { 0 } else { from };
    file.seek(SeekFrom::Start(from)).map_err(err)?;
    let mut bytes = Vec::with_capacity(usize::try_from(len - from).unwrap_or(0));
    file.take(len - from).read_to_end(&mut bytes).map_err(err)?;
    // A line still being written is read by the next hook.
    let whole = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    bytes.truncate(whole);
    Ok((bytes, from + whole as u64))
}

/// The import keys of the interrupts among the newest ledger events.
fn recorded_keys(ledger: &Ledger, runtime: Runtime) -> Result<HashSet<String>> {
    let head = ledger.head()?.0;
    let mut keys = HashSet::new();
    for ev in ledger.before(head + 1, RECORDED_LOOKBACK)? {
        keys.extend(origin_key(&ev, runtime));
    }
    Ok(keys)
}

/// Read the lines of `transcript` appended since the last hook did (the cursor lives in the
/// context folder the ledger is in), record the interrupts among them that the ledger does
/// not hold yet, and return the framing they state. The cursor moves only once the events
/// are appended.
pub fn follow_transcript(
    ledger: &Ledger,
    runtime: Runtime,
    transcript: &Utf8Path,
) -> Result<Followed> {
    let ctx = ledger.context_dir();
    let mut cursors = load_cursors(ctx)?;
    let key = cursor_key(transcript);
    let from = cursors.get(&key).copied().unwrap_or(0);
    let (bytes, to) = new_lines(transcript, from)?;
    let mut followed = Followed {
        bytes: bytes.len() as u64,
        ..Followed::default()
    };
    if to == from {
        return Ok(followed);
    }
    let (records, _) = read_transcript(runtime, &bytes);
    let mut interrupts: Vec<Record> = Vec::new();
    for rec in records {
        match rec.signal {
            Signal::Framing(f) => followed.framing.merge(f),
            Signal::Interrupt => interrupts.push(rec),
            _ => {}
        }
    }
    if !interrupts.is_empty() {
        let known = recorded_keys(ledger, runtime)?;
        interrupts.retain(|r| r.source.line_key().is_none_or(|k| !known.contains(&k)));
        followed.interrupts = interrupts.len();
        record(ledger, interrupts)?;
    }
    cursors.insert(key, to);
    save_cursors(ctx, &cursors)?;
    Ok(followed)
}
