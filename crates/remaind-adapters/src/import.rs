//! `import`: transcript files into the ledger, appending only lines not imported before.

use std::collections::HashSet;

use camino::{Utf8Path, Utf8PathBuf};
use remaind_events::{Event, EventId, Kind};
use remaind_ledger::Ledger;
use remaind_redact::Redactor;

use crate::error::{Error, Result};
use crate::map::Mapper;
use crate::plan::PlanBook;
use crate::seen::HookFacts;
use crate::signal::{Framing, Record, Runtime, Signal, origin_key};
use crate::transcript::{LineCounts, open_transcript, stream_transcript};

/// Records mapped and appended per batch (one lock, one sync each; other writers wait
/// while a batch is written).
const BATCH_RECORDS: usize = 1024;
/// Records parsed ahead of the mapping.
const RECORD_QUEUE: usize = 1024;

/// A buffered reader that counts the bytes consumed (for progress).
struct CountingReader<R> {
    inner: R,
    bytes: u64,
}

impl<R: std::io::BufRead> std::io::Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
}

impl<R: std::io::BufRead> std::io::BufRead for CountingReader<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.bytes += amt as u64;
        self.inner.consume(amt);
    }
}

/// What the parsing thread hands the importing one.
#[expect(
    clippy::large_enum_variant,
    reason = "records are the traffic; the small variant passes once per file"
)]
enum Parsed {
    /// The next record.
    Record(Record),
    /// A file is read through (its records were sent before).
    FileDone {
        file: Utf8PathBuf,
        bytes: u64,
        counts: LineCounts,
    },
}

/// One session's files: its main transcript and the subagent files under its folder.
#[derive(Debug)]
struct Session {
    main: Utf8PathBuf,
    subagents: Vec<Utf8PathBuf>,
    /// The source time of the main transcript's first dated line.
    start: Option<String>,
}

/// Bytes of a transcript's head read for its first timestamp.
const HEAD_BYTES: usize = 256 * 1024;

/// The `timestamp` of the first line that has one (Codex's `session_meta` has it in its
/// payload), within the file's head.
fn first_timestamp(file: &Utf8Path) -> Option<String> {
    use std::io::BufRead;
    let handle = open_transcript(file, "cannot read the transcript").ok()?;
    let mut read = 0;
    for line in std::io::BufReader::new(handle).split(b'\n') {
        let line = line.ok()?;
        read += line.len() + 1;
        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&line) {
            let ts = v
                .get("timestamp")
                .or_else(|| v.pointer("/payload/timestamp"))
                .and_then(|t| t.as_str());
            if let Some(ts) = ts {
                return Some(ts.to_owned());
            }
        }
        if read > HEAD_BYTES {
            break;
        }
    }
    None
}

/// `files` as sessions in the order of their source time (a session without a dated line
/// last, in name order): a subagent file joins the session whose folder holds it.
fn sessions(files: Vec<Utf8PathBuf>) -> Vec<Session> {
    let mut out: Vec<Session> = Vec::new();
    for file in files {
        let owner = out
            .iter_mut()
            .find(|s| file.starts_with(s.main.with_extension("")));
        match owner {
            Some(session) => session.subagents.push(file),
            None => out.push(Session {
                start: first_timestamp(&file),
                main: file,
                subagents: Vec::new(),
            }),
        }
    }
    // Stable: equal or missing times keep the name order.
    out.sort_by(|a, b| match (&a.start, &b.start) {
        (Some(x), Some(y)) => source_time(x).cmp(&source_time(y)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    out
}

/// A source time as an instant when it parses (offsets differ between runtimes), else its
/// text; instants sort before unparsable texts.
fn source_time(ts: &str) -> (Option<jiff::Timestamp>, &str) {
    (ts.parse().ok(), ts)
}

/// Reads `file` whole, sending each record (redacted) through `send`; the counts and bytes.
fn read_file(
    runtime: Runtime,
    file: &Utf8Path,
    redactor: &Redactor,
    mut send: impl FnMut(Record) -> bool,
) -> Result<(u64, LineCounts)> {
    let read_err = |source| Error::Read {
        path: file.to_owned(),
        action: "cannot read the transcript",
        source,
    };
    let handle = open_transcript(file, "cannot read the transcript")?;
    let mut input = CountingReader {
        inner: std::io::BufReader::with_capacity(1 << 20, handle),
        bytes: 0,
    };
    // A refused send means the importing side stopped on an error.
    let mut open = true;
    let counts = stream_transcript(runtime, &mut input, |mut rec| {
        rec.redact(redactor);
        open = open && send(rec);
    })
    .map_err(read_err)?;
    Ok((input.bytes, counts))
}

/// Reads one session: its subagent records interleaved with the main transcript's at their
/// source time (a subagent's tool calls happen while the main agent waits for it).
fn read_session(
    runtime: Runtime,
    session: &Session,
    redactor: &Redactor,
    tx: &std::sync::mpsc::SyncSender<Result<Parsed>>,
) -> Result<bool> {
    let mut pending: Vec<Record> = Vec::new();
    let mut done = Vec::new();
    for file in &session.subagents {
        let (bytes, counts) = read_file(runtime, file, redactor, |rec| {
            pending.push(rec);
            true
        })?;
        done.push(Parsed::FileDone {
            file: file.clone(),
            bytes,
            counts,
        });
    }
    // Stable: a subagent's own order holds among equal times.
    pending.sort_by(
        |a, b| match (a.source.ts.as_deref(), b.source.ts.as_deref()) {
            (Some(x), Some(y)) => source_time(x).cmp(&source_time(y)),
            _ => std::cmp::Ordering::Equal,
        },
    );
    let mut pending = pending.into_iter().peekable();
    let mut open = true;
    let (bytes, counts) = read_file(runtime, &session.main, redactor, |rec| {
        if let Some(at) = rec.source.ts.as_deref().map(source_time) {
            while let Some(sub) =
                pending.next_if(|p| p.source.ts.as_deref().is_some_and(|t| source_time(t) <= at))
            {
                open = open && tx.send(Ok(Parsed::Record(sub))).is_ok();
            }
        }
        open = open && tx.send(Ok(Parsed::Record(rec))).is_ok();
        open
    })?;
    for rec in pending {
        open = open && tx.send(Ok(Parsed::Record(rec))).is_ok();
    }
    let main_done = Parsed::FileDone {
        file: session.main.clone(),
        bytes,
        counts,
    };
    for d in std::iter::once(main_done).chain(done) {
        open = open && tx.send(Ok(d)).is_ok();
    }
    Ok(open)
}

/// What an import did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// Transcript files read.
    pub files: Vec<Utf8PathBuf>,
    /// Subagent and compaction-agent files skipped (their content is in the main file).
    pub skipped_files: Vec<Utf8PathBuf>,
    /// Files another runtime wrote (a Codex rollout in a Claude Code folder, or the
    /// reverse), skipped: import them as that runtime's.
    pub other_runtime_files: Vec<(Utf8PathBuf, Runtime)>,
    /// Their lines.
    pub counts: LineCounts,
    /// Records found in them.
    pub records: u64,
    /// Records skipped because their line was imported before.
    pub already_imported: u64,
    /// Records skipped because the hooks recorded the same fact live (a prompt, a turn's
    /// last message, a tool use of the same session).
    pub recorded_by_hooks: u64,
    /// Events appended.
    pub appended: u64,
    /// The ledger's head after the import.
    pub head: u64,
    /// The framing the transcripts stated, newest values winning (for the framing channel;
    /// not a ledger event).
    pub framing: Framing,
}

/// Progress of an import, reported after each file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Bytes of transcript read so far.
    pub bytes_done: u64,
    /// Bytes of transcript in all.
    pub bytes_total: u64,
}

/// The transcript files `paths` name: files as given; a folder's `*.jsonl` files, recursively
/// (a Claude Code project folder, a Codex sessions folder). A Claude Code session file
/// `X.jsonl` brings its subagent files (`X/subagents/agent-*.jsonl`, or `X/agent-*.jsonl`)
/// after it. Compaction-agent files (`agent-acompact-*`) are listed as skipped: the main
/// transcript holds their summary.
pub fn transcript_files(paths: &[Utf8PathBuf]) -> Result<(Vec<Utf8PathBuf>, Vec<Utf8PathBuf>)> {
    let mut files = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|source| Error::Read {
            path: p.clone(),
            action: "cannot read the transcript path",
            source,
        })?;
        if meta.is_dir() {
            walk(p, &mut files, 0)?;
        } else if !meta.is_file() {
            return Err(Error::NotAFile { path: p.clone() });
        } else {
            files.push(p.clone());
            let stem = p.with_extension("");
            for dir in [stem.join("subagents"), stem.clone()] {
                if dir.is_dir() {
                    let mut sub = Vec::new();
                    walk(&dir, &mut sub, 8)?;
                    files.extend(sub);
                }
            }
        }
    }
    let mut seen = HashSet::new();
    files.retain(|f| seen.insert(f.clone()));
    let (skipped, files) = files.into_iter().partition(|f| {
        f.file_name()
            .is_some_and(|n| n.starts_with("agent-acompact"))
    });
    Ok((files, skipped))
}

/// `*.jsonl` under `dir`, sorted, main files before those in subfolders.
fn walk(dir: &Utf8Path, out: &mut Vec<Utf8PathBuf>, depth: usize) -> Result<()> {
    let err = |source| Error::Read {
        path: dir.to_owned(),
        action: "cannot list the transcript folder",
        source,
    };
    let mut here = Vec::new();
    let mut dirs = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(err)? {
        let entry = entry.map_err(err)?;
        let Ok(path) = Utf8PathBuf::from_path_buf(entry.path()) else {
            continue;
        };
        let ft = entry.file_type().map_err(err)?;
        if ft.is_dir() {
            dirs.push(path);
        } else if ft.is_file() && path.extension() == Some("jsonl") {
            here.push(path);
        }
    }
    here.sort();
    dirs.sort();
    out.extend(here);
    if depth < 8 {
        for d in dirs {
            walk(&d, out, depth + 1)?;
        }
    }
    Ok(())
}

/// Lines of a file's head read to tell which runtime wrote it.
const SNIFF_LINES: usize = 8;

/// The runtime whose format the first lines of `file` are in, when they say: a Codex
/// rollout's lines carry a `payload` under a rollout type; Claude Code's carry a
/// `sessionId` or one of its line types.
fn sniff_runtime(file: &Utf8Path) -> Option<Runtime> {
    use std::io::{BufRead, Read};
    let handle = open_transcript(file, "cannot read the transcript").ok()?;
    let reader = std::io::BufReader::new(handle.take(HEAD_BYTES as u64));
    for line in reader.split(b'\n').take(SNIFF_LINES) {
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(&line.ok()?) else {
            continue;
        };
        let kind = v.get("type").and_then(|t| t.as_str()).unwrap_or("");
        if v.get("payload").is_some()
            && matches!(
                kind,
                "session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted"
            )
        {
            return Some(Runtime::Codex);
        }
        if v.get("sessionId").is_some()
            || matches!(
                kind,
                "user" | "assistant" | "summary" | "file-history-snapshot" | "queue-operation"
            )
        {
            return Some(Runtime::ClaudeCode);
        }
    }
    None
}

/// What the ledger already holds from a runtime.
struct Imported {
    /// The keys of the lines imported before.
    keys: HashSet<String>,
    /// What the hooks recorded live.
    hooks: HookFacts,
    /// The plan as the newest plan-carrying event left it.
    book: PlanBook,
    /// The latest user instruction, whoever recorded it.
    instruction: Option<EventId>,
}

/// What the ledger already holds from a runtime. One pass over the ledger.
fn imported_state(ledger: &Ledger, runtime: Runtime) -> Result<Imported> {
    let mut keys = HashSet::new();
    let mut hooks = HookFacts::default();
    let mut book = PlanBook::default();
    let mut instruction = None;
    for ev in ledger.iter()? {
        let ev: Event = ev?;
        if ev.kind == Kind::UserMessage {
            instruction = Some(ev.id);
        }
        let Some(data) = &ev.data else { continue };
        if let Some(b) = PlanBook::from_data(data) {
            book = b;
        }
        keys.extend(origin_key(&ev, runtime));
        hooks.observe(&ev, runtime);
    }
    Ok(Imported {
        keys,
        hooks,
        book,
        instruction,
    })
}

/// Import transcript files of `runtime` into `ledger`. Lines imported before (same
/// runtime, session and line id) are skipped, so importing a file again appends only its new
/// lines, and so are the facts the hooks already recorded live (see `seen.rs`); damaged and unknown lines are counted and skipped. `progress` is called after each
/// file.
pub fn import(
    ledger: &Ledger,
    runtime: Runtime,
    paths: &[Utf8PathBuf],
    mut progress: impl FnMut(Progress),
) -> Result<ImportReport> {
    let (files, skipped_files) = transcript_files(paths)?;
    let (files, other_runtime_files): (Vec<_>, Vec<_>) = files
        .into_iter()
        .map(|f| {
            let written_by = sniff_runtime(&f).filter(|r| *r != runtime);
            (f, written_by)
        })
        .partition(|(_, other)| other.is_none());
    let files: Vec<Utf8PathBuf> = files.into_iter().map(|(f, _)| f).collect();
    let other_runtime_files = other_runtime_files
        .into_iter()
        .filter_map(|(f, r)| Some((f, r?)))
        .collect();
    let bytes_total = files
        .iter()
        .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
        .sum();
    let Imported {
        keys: imported,
        mut hooks,
        book,
        instruction,
    } = imported_state(ledger, runtime)?;
    let mut report = ImportReport {
        skipped_files,
        other_runtime_files,
        ..ImportReport::default()
    };
    let mapper = Mapper::new(ledger.head()?.0, book).after_instruction(instruction);
    let mut batch = Batch::new(mapper, ledger.redactor()).importing(runtime, imported);
    let mut bytes_done = 0;
    let sessions = sessions(files);
    // One thread reads, parses and redacts the files while this one maps and appends (the
    // append's own preparation runs on every core): an import takes about as long as its
    // slower half.
    std::thread::scope(|scope| -> Result<()> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Result<Parsed>>(RECORD_QUEUE);
        let sessions = &sessions;
        let redactor = ledger.redactor();
        scope.spawn(move || {
            for session in sessions {
                match read_session(runtime, session, redactor, &tx) {
                    Ok(true) => {}
                    // The importing side stopped on an error.
                    Ok(false) => return,
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            }
        });
        for parsed in rx {
            match parsed? {
                Parsed::Record(Record {
                    signal: Signal::Framing(framing),
                    ..
                }) => report.framing.merge(framing),
                Parsed::Record(rec) => {
                    report.records += 1;
                    if batch.already_imported(&rec) {
                        report.already_imported += 1;
                        continue;
                    }
                    if hooks.take(&rec) {
                        report.recorded_by_hooks += 1;
                        continue;
                    }
                    batch.map_redacted(rec);
                    if batch.pending() >= BATCH_RECORDS {
                        report.appended += batch.flush(ledger)?;
                    }
                }
                Parsed::FileDone {
                    file,
                    bytes,
                    counts,
                } => {
                    bytes_done += bytes;
                    report.counts.add(counts);
                    report.files.push(file);
                    progress(Progress {
                        bytes_done,
                        bytes_total,
                    });
                }
            }
        }
        Ok(())
    })?;
    report.appended += batch.flush(ledger)?;
    report.already_imported += batch.raced;
    report.head = ledger.head()?.0;
    Ok(report)
}

/// Records waiting to be mapped and appended as one batch, and the mapper.
pub(crate) struct Batch<'r> {
    redactor: &'r Redactor,
    pub(crate) mapper: Mapper,
    records: Vec<Record>,
    /// An import's runtime and the keys of the lines the ledger holds: what another writer
    /// appended meanwhile is checked under the lock, so two imports of one transcript never
    /// both append a line.
    imported: Option<(Runtime, HashSet<String>)>,
    /// Records dropped under the lock because another writer had imported their line.
    pub(crate) raced: u64,
}

impl<'r> Batch<'r> {
    /// Records are redacted with `redactor` (the ledger's) before they are mapped: the
    /// mapping cuts texts (a tool description, a long prompt's excerpt), and a secret cut in
    /// half is no longer a secret the ledger's own pass recognizes.
    pub(crate) fn new(mapper: Mapper, redactor: &'r Redactor) -> Batch<'r> {
        Batch {
            redactor,
            mapper,
            records: Vec::new(),
            imported: None,
            raced: 0,
        }
    }

    /// An import's batch: `keys` are the lines of `runtime` the ledger holds.
    pub(crate) fn importing(mut self, runtime: Runtime, keys: HashSet<String>) -> Batch<'r> {
        self.imported = Some((runtime, keys));
        self
    }

    /// Whether the line `rec` came from was imported already (read before the import or
    /// appended by another writer since).
    pub(crate) fn already_imported(&self, rec: &Record) -> bool {
        let Some((_, keys)) = &self.imported else {
            return false;
        };
        rec.source.line_key().is_some_and(|k| keys.contains(&k))
    }

    pub(crate) fn map(&mut self, mut rec: Record) {
        rec.redact(self.redactor);
        self.map_redacted(rec);
    }

    /// [`Batch::map`] for a record already redacted with the ledger's redactor.
    pub(crate) fn map_redacted(&mut self, rec: Record) {
        self.records.push(rec);
    }

    /// How many records wait for [`Batch::flush`].
    pub(crate) fn pending(&self) -> usize {
        self.records.len()
    }

    /// Map the records at the ledger's head and append their events as one batch, under
    /// the ledger's lock: no other writer appends in between, so each record is mapped once
    /// and its payloads move into the events. Returns how many events were appended.
    pub(crate) fn flush(&mut self, ledger: &Ledger) -> Result<u64> {
        if self.records.is_empty() {
            return Ok(0);
        }
        let mut records = std::mem::take(&mut self.records);
        let mapper = &mut self.mapper;
        let imported = &mut self.imported;
        let raced = &mut self.raced;
        let ids = ledger.append(remaind_ledger::AppendRequest::built(|head| {
            if head != mapper.head() {
                // Another writer appended since the last batch (under the lock now, so what
                // it wrote is all there): an import of the same transcript may have written
                // these very lines.
                if let Some((runtime, keys)) = imported.as_mut() {
                    let since = mapper.head() + 1;
                    let newer = usize::try_from(head - mapper.head()).unwrap_or(usize::MAX);
                    for ev in ledger
                        .range(since, newer, &remaind_events::Filter::default())
                        .unwrap_or_default()
                    {
                        keys.extend(origin_key(&ev, *runtime));
                    }
                    let before = records.len();
                    records.retain(|r| r.source.line_key().is_none_or(|k| !keys.contains(&k)));
                    *raced += (before - records.len()) as u64;
                }
                mapper.rebase(head);
            }
            for rec in records {
                mapper.map(rec);
            }
            mapper.take()
        }))?;
        Ok(ids.len() as u64)
    }
}
