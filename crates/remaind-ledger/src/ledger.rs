//! The ledger handle: create, open (with torn-tail recovery), append, positional reads.

use std::fs::{self, File};
use std::io::{self, Write};
use std::os::unix::fs::DirBuilderExt;
use std::sync::{Mutex, MutexGuard};

use camino::{Utf8Path, Utf8PathBuf};
use remaind_artifacts::ArtifactStore;
use remaind_redact::Redactor;
use serde_json::Value;

use crate::batch;
use crate::config::Limits;
use crate::error::{Error, Result};
use crate::input::{self, AppendRequest, Source, Unless};
use crate::lines::{self, Snapshot};
use crate::prepare::{self, Prepared, check_citations};
use crate::reader;
use crate::stage::Stager;

use crate::verify::{self, VerifyReport};
use remaind_events::{Event, EventId, Filter, GENESIS_PREV, Kind, NewEvent, Status, line_digest};
use remaind_fs::layout::{
    ARTIFACTS_DIR, KEY_PATH, LOG_PATH, LOGS_DIR, QUARANTINE_DIR, REDACTION_PATH,
    REDACTION_TOML_PATH, SCHEMAS_DIR, THRESHOLDS_PATH,
};

use crate::anchor;
use crate::shared::StoreSetting;

// A replica's catch-up and appends through the shared store (cargo feature `store`); without
// it, `plain` has the same crate-private surface, in which no folder is ever a replica.
#[cfg(not(feature = "store"))]
mod plain;
#[cfg(feature = "store")]
mod replica;
#[cfg(not(feature = "store"))]
use plain::{Shared, Upload};
#[cfg(feature = "store")]
use replica::{Shared, Upload};

/// Whole lines are written in chunks of at most this many bytes (a longer line gets a
/// `write` of its own); a line is never split across two writes.
const WRITE_CHUNK: usize = 1 << 20;

/// How [`Ledger::open_with`] opens a folder. The default is [`Ledger::open`]'s.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// The shared store the folder is a replica of: `None` (the default) for the one its
    /// `store.json` names, if any ([`StoreSetting::load`]); `Some(None)` for none (the folder
    /// as it is on disk, whatever `store.json` says: a command that moves a project between a
    /// folder and a store, or a hook reading the folder's own copy while its store is away);
    /// `Some(Some(setting))` for that store. Nothing else chooses: no process-wide setting,
    /// no environment variable (the CLI reads `--store`/`REMAIND_STORE`).
    pub store: Option<Option<StoreSetting>>,
    /// For `verify`: a log that fails the anchor check still opens (and is left untouched:
    /// no recovery), and [`Ledger::verify`] reports the break.
    pub to_verify: bool,
}

/// The state of the end of the log, read under the lock.
enum Tail {
    /// Head seq and the hash of the last line (or 0 and genesis).
    Clean(u64, String),
    /// The bytes after `clean_len` are not a complete valid line.
    Torn {
        clean_len: u64,
        bytes: Vec<u8>,
        reason: String,
    },
}

/// An open ledger on one `.context/` folder.
///
/// A `Ledger` is `Sync`: threads may share one handle; appends are serialized by an
/// in-process mutex and, across processes, by an exclusive lock on the log file.
pub struct Ledger {
    dir: Utf8PathBuf,
    log_path: Utf8PathBuf,
    writer: Mutex<File>,
    /// False when the log could only be opened for reading: reads work, appends are refused.
    writable: bool,
    /// The head anchor, open for writing (`None` when read-only).
    anchor: Option<File>,
    /// Where the chain broke against the anchor at open (only kept by
    /// [`Options::to_verify`]; otherwise opening refuses instead).
    tampered: Option<anchor::Break>,
    reader: File,
    redactor: Redactor,
    /// The files the redactor was built from.
    rules: RuleFiles,
    artifacts: ArtifactStore,
    limits: Limits,
    /// The shared store this folder is a replica of, if any: appends go through it first.
    shared: Option<Shared>,
}

impl std::fmt::Debug for Ledger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ledger")
            .field("dir", &self.dir)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// The lines of an append, chained and ready to write.
struct Chained {
    /// The lines, each with its newline.
    out: Vec<u8>,
    /// The end offset of each line in `out`.
    ends: Vec<usize>,
    /// Their ids.
    ids: Vec<EventId>,
    /// The hash of the last line (or the previous head's when there is none).
    prev: String,
    /// The SHA-256s of the artifacts the lines cite.
    artifacts: Vec<String>,
}

/// Exclusive access to the log: the in-process mutex plus the file lock.
struct Locked<'a>(MutexGuard<'a, File>);

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        // Closing the handle would release it too; the handle lives on, so unlock explicitly.
        let _ = self.0.unlock();
    }
}

fn mkdir(path: &Utf8Path) -> Result<()> {
    match fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(path)
    {
        Ok(()) => Ok(()),
        Err(e) => Err(Error::io(path, "cannot create folder", e)),
    }
}

fn written_len(ends: &[usize]) -> u64 {
    ends.last().map_or(0, |&e| e as u64)
}

/// A folder under `.context/` that is a symlink is refused (never followed out).
pub(crate) fn refuse_symlink(path: &Utf8Path) -> Result<()> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(Error::corrupt(
            path,
            "is a symlink; Remaind never follows a symlink out of .context/",
        )),
        _ => Ok(()),
    }
}

/// The error for a folder without a log.
pub(crate) fn no_ledger_here(log_path: &Utf8Path, e: io::Error) -> Error {
    Error::Config {
        path: log_path.to_owned(),
        reason: "no ledger here; run `remaind init` first".to_owned(),
        source: Some(Box::new(e)),
    }
}

/// True when `e` refuses a write: no permission or a read-only file system.
fn is_permission(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::PermissionDenied
        || e.raw_os_error()
            .is_some_and(|n| n == libc::EROFS || n == libc::EACCES)
}

/// Opens the log (for appending, or read-only) without following a symlink or blocking on a
/// special file, and checks that it is a regular file.
pub(crate) fn open_log(path: &Utf8Path, append: bool) -> io::Result<File> {
    let access = if append {
        remaind_fs::Access::Append
    } else {
        remaind_fs::Access::Read
    };
    Ok(remaind_fs::open_file(path, access)?)
}

/// Reads a regular file under `.context/` (a key or a configuration file) as
/// [`remaind_fs::read_file`] does: never through a symlink, never blocking on a FIFO or device,
/// nothing but a regular file. `Ok(None)` when it does not exist.
pub(crate) fn read_regular(path: &Utf8Path) -> io::Result<Option<Vec<u8>>> {
    remaind_fs::read_file(path).map_err(|e| match e {
        remaind_fs::Error::Io { source, .. } => source,
        other => io::Error::other(other.to_string()),
    })
}

/// What a failpoint configured with `return(ARG)` does (feature `failpoints` only): `abort`
/// kills the process on the spot (a crash exactly there); `enospc` or anything else injects
/// an I/O error (ENOSPC or EIO) from the step, as the real call would have returned it.
#[cfg(feature = "failpoints")]
fn injected<T>(arg: Option<String>, path: &Utf8Path) -> Result<T> {
    let errno = match arg.as_deref() {
        Some("abort") => std::process::abort(),
        Some("enospc") => 28, // ENOSPC on Linux
        _ => 5,               // EIO
    };
    Err(Error::io(
        path,
        "cannot append",
        io::Error::from_raw_os_error(errno),
    ))
}

/// The text of `path`, or `None` when there is no such file.
/// A config file's text, read without following a symlink or blocking on a FIFO.
fn read_optional(path: &Utf8Path) -> Result<Option<String>> {
    match read_regular(path).map_err(|e| Error::io(path, "cannot read", e))? {
        None => Ok(None),
        Some(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| Error::Config {
                path: path.to_owned(),
                reason: "is not UTF-8 text".to_owned(),
                source: None,
            }),
    }
}

/// The project's redaction key (`redaction.key`, 32 bytes), read without following a symlink.
fn read_key(dir: &Utf8Path) -> Result<Vec<u8>> {
    let key_path = dir.join(KEY_PATH);
    let key = read_regular(&key_path)
        .map_err(|e| Error::io(&key_path, "cannot read redaction key", e))?
        .ok_or_else(|| {
            Error::io(
                &key_path,
                "cannot read redaction key",
                io::Error::from(io::ErrorKind::NotFound),
            )
        })?;
    if key.len() != 32 {
        return Err(Error::corrupt(
            &key_path,
            format!("the redaction key must be 32 bytes, found {}", key.len()),
        ));
    }
    Ok(key)
}

/// The largest gitleaks rule file read (gitleaks' own default config is about 100 KiB).
const MAX_RULE_FILE_BYTES: u64 = 16 << 20;

/// The project's redactor: built-in rules, `redaction.json` rules, `redaction.toml` and the
/// gitleaks files `redaction.json` lists (relative paths are from the project folder, the one
/// holding `.context/`), and the files it was built from, each stamped before it was read.
fn load_redactor(dir: &Utf8Path, key: &[u8]) -> Result<(Redactor, RuleFiles)> {
    let json_path = dir.join(REDACTION_PATH);
    let toml_path = dir.join(REDACTION_TOML_PATH);
    let mut rules = RuleFiles::default();
    rules.stamp(&json_path);
    rules.stamp(&toml_path);
    let json = read_optional(&json_path)?;
    let unusable = |path: &Utf8Path, e: remaind_redact::Error| Error::Config {
        path: path.to_owned(),
        reason: "unusable redaction rules".to_owned(),
        source: Some(Box::new(e)),
    };
    let mut files: Vec<(Utf8PathBuf, String)> = Vec::new();
    if let Some(text) = read_optional(&toml_path)? {
        files.push((toml_path, text));
    }
    if let Some(json) = &json {
        let root = dir.parent().unwrap_or(dir);
        for listed in remaind_redact::gitleaks_files(json).map_err(|e| unusable(&json_path, e))? {
            let path = root.join(&listed);
            rules.stamp(&path);
            // Read as the key is: a regular file only, never through a symlink, never blocking
            // on a FIFO (every command, hooks included, opens the rules), and of a rule file's
            // size, not a device's.
            let unreadable = |e: io::Error| Error::Config {
                path: json_path.clone(),
                reason: format!("the gitleaks rule file `{listed}` ({path}) cannot be read"),
                source: Some(Box::new(e)),
            };
            let too_big = fs::symlink_metadata(&path).is_ok_and(|m| m.len() > MAX_RULE_FILE_BYTES);
            if too_big {
                return Err(unreadable(io::Error::other(format!(
                    "is larger than {} MiB; a rule file is text",
                    MAX_RULE_FILE_BYTES >> 20
                ))));
            }
            let bytes = read_regular(&path)
                .map_err(unreadable)?
                .ok_or_else(|| unreadable(io::Error::from(io::ErrorKind::NotFound)))?;
            let text = String::from_utf8(bytes)
                .map_err(|e| unreadable(io::Error::new(io::ErrorKind::InvalidData, e)))?;
            files.push((path, text));
        }
    }
    let sources: Vec<(&str, &str)> = files
        .iter()
        .map(|(path, text)| (path.as_str(), text.as_str()))
        .collect();
    let redactor = Redactor::from_sources(key, json.as_deref(), &sources).map_err(|e| match e {
        // The rule file's own error already says what is wrong and how to fix it: named once
        // after the file, not again under "unusable redaction rules".
        remaind_redact::Error::RuleFile {
            file,
            rule,
            message,
        } => Error::Config {
            path: Utf8PathBuf::from(file),
            reason: format!("rule `{rule}`: {message}"),
            source: None,
        },
        e => unusable(&json_path, e),
    })?;
    Ok((redactor, rules))
}

/// What identifies one version of a file: device, inode, size, modification and change
/// times (`None` when the file is absent).
type Stamp = Option<(u64, u64, u64, i64, i64, i64, i64)>;

fn stamp(path: &Utf8Path) -> Stamp {
    use std::os::unix::fs::MetadataExt;
    fs::symlink_metadata(path).ok().map(|m| {
        (
            m.dev(),
            m.ino(),
            m.len(),
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec(),
        )
    })
}

/// The rule files a redactor was built from (`redaction.json`, `redaction.toml`, every
/// gitleaks file listed), each with its stamp taken before it was read: an edit made after
/// the read always shows as a changed stamp.
#[derive(Debug, Default)]
struct RuleFiles(Vec<(Utf8PathBuf, Stamp)>);

impl RuleFiles {
    fn stamp(&mut self, path: &Utf8Path) {
        self.0.push((path.to_owned(), stamp(path)));
    }

    fn changed(&self) -> bool {
        self.0.iter().any(|(path, was)| stamp(path) != *was)
    }
}

fn now_rfc3339() -> String {
    jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%S%.6fZ")
        .to_string()
}

impl Ledger {
    /// Create the ledger's part of a `.context/` folder: `logs/`, `logs/quarantine/`,
    /// `artifacts/` (0700), an empty `logs/events.jsonl` and the redaction key (0600).
    /// Never overwrites an existing file; safe to call on an existing folder.
    pub fn create(context_dir: &Utf8Path) -> Result<()> {
        for sub in ["", LOGS_DIR, QUARANTINE_DIR, ARTIFACTS_DIR] {
            mkdir(&context_dir.join(sub))?;
        }
        remaind_fs::create_new(&context_dir.join(LOG_PATH), b"")?;
        let key = remaind_redact::generate_key();
        remaind_fs::create_new(&context_dir.join(KEY_PATH), &key)?;
        for sub in ["", LOGS_DIR, QUARANTINE_DIR, ARTIFACTS_DIR] {
            remaind_fs::sync_dir(&context_dir.join(sub))?;
        }
        Ok(())
    }

    /// Open the ledger of a `.context/` folder, recovering a torn tail if there is one.
    ///
    /// The log is checked against its head anchor (`logs/events.head`) first, at a cost that
    /// does not grow with the ledger when the file is as Remaind left it: a changed, removed,
    /// reordered, truncated or forged line is [`Error::Tampered`] naming the line, and nothing
    /// is written. Without write access the ledger opens read-only: reads work, appends fail.
    ///
    /// The folder's `store.json`, if any, makes it the replica of a shared store; see
    /// [`Ledger::open_with`] to choose otherwise.
    pub fn open(context_dir: &Utf8Path) -> Result<Ledger> {
        Ledger::open_with(context_dir, &Options::default())
    }

    /// [`Ledger::open`] with `options`: the shared store chosen by the caller rather than
    /// the folder's `store.json` (a command given `--store`, or one that handles the store
    /// itself and opens the folder plainly), and, for `verify`, a log that fails the anchor
    /// check opened anyway.
    pub fn open_with(context_dir: &Utf8Path, options: &Options) -> Result<Ledger> {
        let ledger = Ledger::open_inner(context_dir, options.store.as_ref())?;
        match &ledger.tampered {
            Some(b) if !options.to_verify => Err(Error::Tampered {
                path: ledger.log_path.clone(),
                line: b.line,
                reason: b.reason.clone(),
            }),
            _ => Ok(ledger),
        }
    }

    /// The redactor the ledger of `context_dir` applies (its key, the built-in rules and the
    /// project's rule files), read without opening the log: nothing is written, and a bad rule
    /// file is the same error [`Ledger::open`] gives.
    ///
    /// ```no_run
    /// # fn main() -> remaind_ledger::Result<()> {
    /// let redactor = remaind_ledger::Ledger::project_redactor(camino::Utf8Path::new(".context"))?;
    /// let (text, applied) = redactor.redact_str("DB_PASSWORD=S3cr3t!x");
    /// assert!(!text.contains("S3cr3t") && applied.len() == 1);
    /// # Ok(())
    /// # }
    /// ```
    pub fn project_redactor(context_dir: &Utf8Path) -> Result<Redactor> {
        refuse_symlink(&context_dir.join(SCHEMAS_DIR))?;
        load_redactor(context_dir, &read_key(context_dir)?).map(|(redactor, _)| redactor)
    }

    fn open_inner(context_dir: &Utf8Path, store: Option<&Option<StoreSetting>>) -> Result<Ledger> {
        let dir = context_dir.to_owned();
        let log_path = dir.join(LOG_PATH);
        for sub in [LOGS_DIR, QUARANTINE_DIR, SCHEMAS_DIR, ARTIFACTS_DIR] {
            refuse_symlink(&dir.join(sub))?;
        }
        match fs::symlink_metadata(&log_path) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(Error::corrupt(
                    &log_path,
                    "is a symlink; Remaind never follows a symlink out of .context/",
                ));
            }
            Ok(m) if !m.is_file() => {
                return Err(Error::corrupt(&log_path, "is not a regular file"));
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(no_ledger_here(&log_path, e));
            }
            Err(e) => return Err(Error::io(&log_path, "cannot inspect", e)),
        }
        let (redactor, rules) = load_redactor(&dir, &read_key(&dir)?)?;
        let limits = Limits::load(&dir.join(THRESHOLDS_PATH))?;
        let artifacts =
            ArtifactStore::open(&dir).map_err(|e| Error::artifact("cannot open artifacts/", e))?;
        let (writer, writable) = match open_log(&log_path, true) {
            Ok(f) => (f, true),
            Err(e) if is_permission(&e) => (
                open_log(&log_path, false).map_err(|e| Error::io(&log_path, "cannot open", e))?,
                false,
            ),
            Err(e) => return Err(Error::io(&log_path, "cannot open for appending", e)),
        };
        let reader =
            open_log(&log_path, false).map_err(|e| Error::io(&log_path, "cannot open", e))?;
        let setting = match store {
            Some(chosen) => chosen.clone(),
            None => StoreSetting::load(&dir)?,
        };
        let shared = setting
            .map(|setting| Shared::connect(&setting))
            .transpose()?;
        let head_path = dir.join(anchor::HEAD_PATH);
        let anchor = if writable {
            Some(
                anchor::open_for_writing(&head_path)
                    .map_err(|e| Error::io(&head_path, "cannot open the head anchor", e))?,
            )
        } else {
            None
        };
        let mut ledger = Ledger {
            dir,
            log_path,
            writer: Mutex::new(writer),
            writable,
            anchor,
            tampered: None,
            reader,
            redactor,
            rules,
            artifacts,
            limits,
            shared,
        };
        let tampered = {
            let locked = ledger.lock()?;
            match ledger.check_locked(&locked)? {
                Err(b) => Some(b),
                Ok(checked) => {
                    if ledger.writable {
                        let before = ledger.file_len(&locked)?;
                        let (head, prev) = ledger.recover_locked(&locked, Some(&checked))?;
                        if checked.reanchor && ledger.file_len(&locked)? == before {
                            ledger.write_anchor(&locked, checked.seq, checked.len, checked.sha256);
                        }
                        ledger.catch_up_from_store(&locked, head, prev)?;
                    }
                    None
                }
            }
        };
        ledger.tampered = tampered;
        Ok(ledger)
    }

    /// Check the log against the head anchor (under the lock).
    fn check_locked(
        &self,
        locked: &Locked<'_>,
    ) -> Result<std::result::Result<anchor::Checked, anchor::Break>> {
        let head_path = self.dir.join(anchor::HEAD_PATH);
        let recorded = anchor::read(&head_path)
            .map_err(|e| Error::io(&head_path, "cannot read the head anchor", e))?;
        anchor::check(&locked.0, recorded.as_ref())
            .map_err(|e| Error::io(&self.log_path, "cannot read", e))
    }

    fn file_len(&self, locked: &Locked<'_>) -> Result<u64> {
        Ok(locked
            .0
            .metadata()
            .map_err(|e| Error::io(&self.log_path, "cannot inspect", e))?
            .len())
    }

    /// Record the head after a synced append (under the lock). Best effort: a failed or torn
    /// anchor write only costs the next open one full check.
    fn write_anchor(&self, locked: &Locked<'_>, seq: u64, len: u64, sha256: String) {
        if let Some(file) = &self.anchor
            && let Ok(a) = anchor::Anchor::of(&locked.0, seq, len, sha256)
        {
            let _ = anchor::write(file, &a);
        }
    }

    /// The `.context/` folder.
    pub fn context_dir(&self) -> &Utf8Path {
        &self.dir
    }

    /// The log file, `.context/logs/events.jsonl`.
    pub fn log_path(&self) -> &Utf8Path {
        &self.log_path
    }

    /// The project's redactor (built-in and user rules, the project key).
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// True when a file the redactor was built from changed on disk since this ledger was
    /// opened: `redaction.json`, `redaction.toml` or a gitleaks file `redaction.json` lists
    /// (edited, replaced, created or removed). A long-lived process reopens the ledger then,
    /// or it would keep appending under rules the project no longer has.
    pub fn rules_changed(&self) -> bool {
        self.rules.changed()
    }

    /// The artifact store.
    pub fn artifacts(&self) -> &ArtifactStore {
        &self.artifacts
    }

    fn lock(&self) -> Result<Locked<'_>> {
        let guard = self
            .writer
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        guard
            .lock()
            .map_err(|e| Error::io(&self.log_path, "cannot lock", e))?;
        Ok(Locked(guard))
    }

    // ----- appending -------------------------------------------------------------------

    /// Append one event or a batch (see [`AppendRequest`]), all or nothing: every event is
    /// checked before anything is written, the lines are written under one lock and synced
    /// once. Returns the ids of the events, in order (one for a single event).
    ///
    /// A single event's errors carry no line number; a batch's name the 1-based position in
    /// the batch (or, for JSON Lines, the physical line) as `line`. Caller events may not be
    /// of the bookkeeping kinds unless the request is [`AppendRequest::system`].
    pub fn append<'a>(&self, request: impl Into<AppendRequest<'a>>) -> Result<Vec<EventId>> {
        let AppendRequest {
            source,
            system,
            unless,
        } = request.into();
        let unless = unless.as_ref();
        match source {
            Source::One(entry) => {
                // Prepared before the lock is taken: other writers do not wait for it.
                let item = (
                    None,
                    prepare::prepare(*entry, system, false, &self.redactor, &self.limits),
                );
                let ids = self.commit(std::iter::once(item), 0, unless)?;
                if ids.is_empty() {
                    return Err(Error::corrupt(&self.log_path, "an append wrote no line"));
                }
                Ok(ids)
            }
            Source::Many(entries) => {
                let items = entries.into_iter().enumerate().map(|(i, entry)| {
                    (
                        Some(i + 1),
                        prepare::prepare(entry, system, false, &self.redactor, &self.limits),
                    )
                });
                self.commit(items, 0, unless)
            }
            // Parsed, then prepared on every core while the lines are chained in order.
            // The lines take about as many bytes as the input: reserve them once.
            Source::JsonLines(input) => {
                batch::append_json_lines(input, system, &self.redactor, &self.limits, |items| {
                    self.commit(items, input.len(), unless)
                })
            }
            Source::Built(build) => self.under_lock(|locked, head, prev, up| {
                let reqs: Vec<input::Entry> = build(head).into_iter().map(Into::into).collect();
                let n = reqs.len();
                let items = batch::prepare_all(reqs, system, &self.redactor, &self.limits);
                if items.len() != n {
                    return Err(Error::invalid(
                        "line",
                        "a worker preparing the batch stopped; nothing was written",
                    ));
                }
                let up = self.check_unless(unless, head, up)?;
                Ok(self.write_locked(locked, head, prev, items, 0, up)?.0)
            }),
        }
    }

    /// Under the lock: refuse the append with [`Error::Raced`] when an event of the
    /// condition's kinds came after its `since`; on a replica, add its files to the upload.
    fn check_unless<'u>(
        &self,
        unless: Option<&Unless<'_>>,
        head: u64,
        mut up: Option<Upload<'u>>,
    ) -> Result<Option<Upload<'u>>> {
        let Some(unless) = unless else {
            return Ok(up);
        };
        let since = unless.since;
        // Only the events after `since` can be rivals.
        let after = head.saturating_sub(since);
        if let Some(rival) = self
            .last_matching(unless.kinds, after, |_| true)?
            .filter(|e| e.seq > since)
        {
            return Err(Error::Raced {
                path: self.log_path.clone(),
                kind: rival.kind.as_str().to_owned(),
                seq: rival.seq,
                since,
            });
        }
        if let Some(up) = up.as_mut() {
            self.put_files(up, unless.files)?;
        }
        Ok(up)
    }

    /// Lock, recover a torn tail, then check, assign and write the items. `bytes` is the
    /// expected size of the lines, if known (0 otherwise).
    /// `unless`, if any, is checked first, under the lock.
    fn commit<I>(&self, items: I, bytes: usize, unless: Option<&Unless<'_>>) -> Result<Vec<EventId>>
    where
        I: IntoIterator<Item = (Option<usize>, Result<Prepared>)>,
    {
        self.under_lock(|locked, head, prev, up| {
            let up = self.check_unless(unless, head, up)?;
            Ok(self.write_locked(locked, head, prev, items, bytes, up)?.0)
        })
    }

    /// Run `append` with the log locked and its head, after recovery; on a replica also with
    /// the shared store's project locked, the folder caught up to the store's head, and the
    /// store's append in progress, which `append` commits before writing the folder.
    fn under_lock<T>(
        &self,
        append: impl FnOnce(&Locked<'_>, u64, String, Option<Upload<'_>>) -> Result<T>,
    ) -> Result<T> {
        let (locked, head, prev) = self.lock_for_append()?;
        match &self.shared {
            None => append(&locked, head, prev, None),
            Some(shared) => self.under_store_lock(shared, &locked, head, prev, append),
        }
    }

    /// The log locked for an append: a read-only handle and a log another process changed
    /// under this one are refused, a torn tail is recovered. Also the head and its hash.
    fn lock_for_append(&self) -> Result<(Locked<'_>, u64, String)> {
        if !self.writable {
            return Err(Error::io(
                &self.log_path,
                "cannot append (the ledger is open read-only: no write access)",
                io::Error::from(io::ErrorKind::PermissionDenied),
            ));
        }
        let locked = self.lock()?;
        // Another process may have changed the log since this handle opened it.
        let checked = match self.check_locked(&locked)? {
            Ok(checked) => checked,
            Err(b) => {
                return Err(Error::Tampered {
                    path: self.log_path.clone(),
                    line: b.line,
                    reason: b.reason,
                });
            }
        };
        let (head, prev) = self.recover_locked(&locked, Some(&checked))?;
        Ok((locked, head, prev))
    }

    /// Check, assign and serialize every line (preparing each as it comes, so a large batch
    /// is never held as parsed values), staging artifacts meanwhile, then publish the
    /// artifacts, write and sync once. Nothing is written unless every line passed. On a
    /// replica, the artifacts and lines are committed to the shared store (`up`) first: a
    /// store that refuses them leaves the folder as it was.
    fn write_locked<I>(
        &self,
        locked: &Locked<'_>,
        head: u64,
        prev: String,
        items: I,
        bytes: usize,
        up: Option<Upload<'_>>,
    ) -> Result<(Vec<EventId>, String)>
    where
        I: IntoIterator<Item = (Option<usize>, Result<Prepared>)>,
    {
        std::thread::scope(|scope| {
            let mut stager = Stager::new(scope, &self.artifacts);
            let Chained {
                out,
                ends,
                ids,
                prev,
                artifacts,
            } = self.chain(head, prev, items, bytes, &mut stager)?;
            let staged = stager.finish()?;
            // Every artifact is in place and synced before a line citing it is written.
            self.artifacts
                .publish(staged)
                .map_err(|e| Error::artifact("cannot store artifacts", e))?;
            if let Some(up) = up {
                self.publish_to_store(up, &out, &ends, &artifacts)?;
            }
            if let Some(last) = ids.last() {
                let len = self.write_synced(locked, &out, &ends)?;
                self.write_anchor(locked, last.seq(), len, prev.clone());
            }
            Ok((ids, prev))
        })
    }

    /// Check each item as it arrives (items may still be being prepared on other threads),
    /// give it its header and chain it, in order; hand its artifacts to `stager`.
    fn chain<I>(
        &self,
        head: u64,
        mut prev: String,
        items: I,
        bytes: usize,
        stager: &mut Stager<'_, '_>,
    ) -> Result<Chained>
    where
        I: IntoIterator<Item = (Option<usize>, Result<Prepared>)>,
    {
        // One time for the whole append: a batch is appended at one moment.
        let ts_json = serde_json::to_string(&now_rfc3339())
            .map_err(|e| Error::invalid("ts", format!("cannot be serialized: {e}")))?;
        let mut out = Vec::with_capacity(bytes);
        let mut ends = Vec::new();
        let mut ids = Vec::new();
        let mut artifacts = Vec::new();
        for (i, (n, p)) in items.into_iter().enumerate() {
            let at = |e: Error| match n {
                Some(n) => e.at_line(n),
                None => e,
            };
            let p = p.map_err(at)?;
            let seq = head + i as u64 + 1;
            check_citations(&p, seq).map_err(at)?;
            let start = out.len();
            prepare::write_header(&mut out, seq, &ts_json, &prev);
            out.extend_from_slice(&p.body);
            let len = (out.len() - start) as u64;
            if len > self.limits.max_line_bytes {
                return Err(at(Error::invalid(
                    "line",
                    format!(
                        "is {len} bytes after redaction and artifact routing; the limit is {} \
                         (max_line_bytes in schemas/thresholds.json); shorten the refs lists or split the event",
                        self.limits.max_line_bytes
                    ),
                )));
            }
            prev = line_digest(&out[start..]);
            out.push(b'\n');
            ends.push(out.len());
            ids.push(EventId(seq));
            for a in p.artifacts {
                artifacts.push(a.content.sha256().to_owned());
                stager.stage(a);
            }
        }
        Ok(Chained {
            out,
            ends,
            ids,
            prev,
            artifacts,
        })
    }

    /// Append whole lines (`ends` are their end offsets in `out`) and sync; on failure cut
    /// the log back to where it was.
    /// Returns the new length of the log.
    fn write_synced(&self, locked: &Locked<'_>, out: &[u8], ends: &[usize]) -> Result<u64> {
        let mut file: &File = &locked.0;
        let base = file
            .metadata()
            .map_err(|e| Error::io(&self.log_path, "cannot inspect", e))?
            .len();
        let appended = (|| -> Result<()> {
            let mut written = 0;
            let mut chunk_start = 0;
            for &end in ends {
                if end - chunk_start > WRITE_CHUNK && written > chunk_start {
                    file.write_all(&out[chunk_start..written])
                        .map_err(|e| Error::io(&self.log_path, "cannot append", e))?;
                    chunk_start = written;
                }
                written = end;
            }
            file.write_all(&out[chunk_start..written])
                .map_err(|e| Error::io(&self.log_path, "cannot append", e))?;
            fail::fail_point!(crate::failpoints::AFTER_WRITE, |a| injected(
                a,
                &self.log_path
            ));
            file.sync_data()
                .map_err(|e| Error::io(&self.log_path, "cannot sync", e))?;
            fail::fail_point!(crate::failpoints::AFTER_FSYNC, |a| injected(
                a,
                &self.log_path
            ));
            Ok(())
        })();
        if let Err(e) = appended {
            // Nothing unacknowledged stays: cut the log back to where this append began and
            // sync that. A failed sync is never retried over possibly lost pages.
            let _ = file.set_len(base).and_then(|()| file.sync_all());
            return Err(e);
        }
        Ok(base + written_len(ends))
    }

    /// Read the end of the log (under the lock).
    fn tail_locked(&self, file: &File) -> Result<Tail> {
        let io_err = |e| Error::io(&self.log_path, "cannot read", e);
        let len = file.metadata().map_err(io_err)?.len();
        if len == 0 {
            return Ok(Tail::Clean(0, GENESIS_PREV.to_owned()));
        }
        let complete = lines::complete_len(file).map_err(io_err)?;
        if complete < len {
            let bytes = Snapshot { file, end: len }
                .raw(complete, len)
                .map_err(io_err)?;
            return Ok(Tail::Torn {
                clean_len: complete,
                bytes,
                reason: "no trailing newline".to_owned(),
            });
        }
        let start = lines::rfind_newline(file, len - 1)
            .map_err(io_err)?
            .map_or(0, |p| p + 1);
        let line = Snapshot { file, end: len }
            .raw(start, len - 1)
            .map_err(io_err)?;
        match lines::parse_line(&line) {
            Ok(ev) => Ok(Tail::Clean(ev.seq, line_digest(&line))),
            Err(reason) => {
                let mut bytes = line;
                bytes.push(b'\n');
                Ok(Tail::Torn {
                    clean_len: start,
                    bytes,
                    reason,
                })
            }
        }
    }

    /// Quarantine a torn tail if there is one (under the lock); returns head seq and hash.
    /// `anchored` is what the head anchor check found: when the log is exactly as Remaind's
    /// last append left it (untouched, not one byte longer), its last line is the one that
    /// append wrote and checked, and is not parsed again.
    fn recover_locked(
        &self,
        locked: &Locked<'_>,
        anchored: Option<&anchor::Checked>,
    ) -> Result<(u64, String)> {
        let file: &File = &locked.0;
        if let Some(c) = anchored
            && !c.reanchor
            && c.len == self.file_len(locked)?
        {
            return Ok((c.seq, c.sha256.clone()));
        }
        let (clean_len, bytes, reason) = match self.tail_locked(file)? {
            Tail::Clean(seq, hash) => return Ok((seq, hash)),
            Tail::Torn {
                clean_len,
                bytes,
                reason,
            } => (clean_len, bytes, reason),
        };
        let io_err = |e| Error::io(&self.log_path, "cannot read", e);
        let (head, prev) = if clean_len == 0 {
            (0, GENESIS_PREV.to_owned())
        } else {
            let snap = Snapshot {
                file,
                end: clean_len,
            };
            let start = lines::rfind_newline(file, clean_len - 1)
                .map_err(io_err)?
                .map_or(0, |p| p + 1);
            let line = snap.raw(start, clean_len - 1).map_err(io_err)?;
            let seq = lines::seq_of_line(&line).ok_or_else(|| {
                Error::corrupt(
                    &self.log_path,
                    format!("the line before a torn tail at byte {start} has no readable seq"),
                )
            })?;
            (seq, line_digest(&line))
        };
        // 1. Keep the torn bytes, byte for byte.
        let qdir = self.dir.join(QUARANTINE_DIR);
        mkdir(&qdir)?;
        if fs::symlink_metadata(&qdir).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(Error::corrupt(
                &qdir,
                "is a symlink; Remaind never follows a symlink out of .context/",
            ));
        }
        let stamp = jiff::Timestamp::now()
            .strftime("%Y%m%dT%H%M%S%.6fZ")
            .to_string();
        let mut name = format!("{stamp}-{}.torn", head + 1);
        let mut n = 1;
        while !remaind_fs::create_new(&qdir.join(&name), &bytes)? {
            n += 1;
            name = format!("{stamp}-{}.{n}.torn", head + 1);
        }
        remaind_fs::sync_dir(&qdir)?;
        fail::fail_point!(crate::failpoints::RECOVERY_AFTER_QUARANTINE, |a| injected(
            a,
            &self.log_path
        ));
        // 2. Cut the log back to its clean prefix.
        file.set_len(clean_len)
            .and_then(|()| file.sync_all())
            .map_err(|e| Error::io(&self.log_path, "cannot truncate a torn tail", e))?;
        // 3. Record it, unless the folder is a replica: the torn line is the shared store's,
        // which the folder catches up from next, and an event only this folder holds would
        // fork it from the store. The quarantined bytes stay as the record.
        if self.shared.is_some() {
            return Ok((head, prev));
        }
        let rel = format!("{QUARANTINE_DIR}/{name}");
        let sha = line_digest(&bytes);
        let event = NewEvent {
            kind: Some(Kind::Recovery),
            actor: Some("remaind".to_owned()),
            text: Some(format!(
                "Quarantined a torn tail of {} bytes at byte {clean_len} of {LOG_PATH} to {rel} ({reason}).",
                bytes.len()
            )),
            data: Some(input::object([
                ("quarantine", Value::from(rel)),
                ("bytes", Value::from(bytes.len() as u64)),
                ("sha256", Value::from(sha)),
                ("offset", Value::from(clean_len)),
                ("reason", Value::from(reason)),
            ])),
            ..NewEvent::default()
        };
        let prepared = prepare::prepare(event.into(), true, false, &self.redactor, &self.limits)?;
        let (ids, hash) = self.write_locked(locked, head, prev, [(None, Ok(prepared))], 0, None)?;
        Ok((ids[0].seq(), hash))
    }

    // ----- reading ---------------------------------------------------------------------

    fn snapshot(&self) -> Result<Snapshot<'_>> {
        Snapshot::new(&self.reader).map_err(|e| Error::io(&self.log_path, "cannot read", e))
    }

    fn read_err(&self, e: io::Error) -> Error {
        Error::io(&self.log_path, "cannot read", e)
    }

    fn parse(&self, offset: u64, line: &[u8]) -> Result<Event> {
        reader::parse_at(&self.log_path, offset, line)
    }

    /// The head: the last seq (0 when empty) and the hash of the last line
    /// ([`GENESIS_PREV`] when empty).
    pub fn head(&self) -> Result<(u64, String)> {
        reader::head(&self.reader, &self.log_path)
    }

    /// The newest event of one of `kinds` that `accept` takes, among the last `within`
    /// events, read backwards from the head: [`crate::LogReader::last_matching`] on the log
    /// this ledger holds open (no second open, no second anchor check). Only candidates of
    /// those kinds are parsed: every other line's kind is read from its first bytes, so
    /// looking back over thousands of events costs little more than reading them.
    pub fn last_matching(
        &self,
        kinds: &[Kind],
        within: u64,
        accept: impl FnMut(&Event) -> bool,
    ) -> Result<Option<Event>> {
        reader::last_matching(&self.reader, &self.log_path, kinds, within, accept)
    }

    /// The complete lines from byte `offset` on, as stored (without their newlines, so each
    /// starts its predecessor's length plus one further on), for a reader that keeps its own
    /// copy of the events and resumes where it stopped (the search index). `None` when
    /// `offset` is not where a line starts: the log is not what that reader recorded.
    pub fn raw_lines(
        &self,
        offset: u64,
    ) -> Result<Option<impl Iterator<Item = Result<Vec<u8>>> + '_>> {
        reader::raw_lines(&self.reader, &self.log_path, offset)
    }

    /// The raw bytes of line `seq` (without its newline), found by binary search.
    fn raw_line(&self, snap: &Snapshot<'_>, seq: u64) -> Result<Option<(u64, Vec<u8>)>> {
        if seq == 0 {
            return Ok(None);
        }
        let Some(start) = snap.find_seq(seq).map_err(|e| self.read_err(e))? else {
            return Ok(None);
        };
        let line = snap.line_at(start).map_err(|e| self.read_err(e))?;
        Ok((lines::seq_of_line(&line) == Some(seq)).then_some((start, line)))
    }

    /// The event with this seq, if it exists.
    pub fn get(&self, seq: u64) -> Result<Option<Event>> {
        let snap = self.snapshot()?;
        match self.raw_line(&snap, seq)? {
            None => Ok(None),
            Some((off, line)) => self.parse(off, &line).map(Some),
        }
    }

    /// SHA-256 of line `seq` (the chain hash at `seq`); [`GENESIS_PREV`] for 0; `None` past
    /// the head.
    pub fn digest_at(&self, seq: u64) -> Result<Option<String>> {
        if seq == 0 {
            return Ok(Some(GENESIS_PREV.to_owned()));
        }
        let snap = self.snapshot()?;
        Ok(self
            .raw_line(&snap, seq)?
            .map(|(_, line)| line_digest(&line)))
    }

    /// Up to `limit` events with seq `>= from` that pass `filter` (every event passes
    /// [`Filter::default`]), in order.
    pub fn range(&self, from: u64, limit: usize, filter: &Filter) -> Result<Vec<Event>> {
        let snap = self.snapshot()?;
        let mut out = Vec::new();
        if limit == 0 {
            return Ok(out);
        }
        let Some(start) = snap.find_seq(from.max(1)).map_err(|e| self.read_err(e))? else {
            return Ok(out);
        };
        let mut fwd = snap.forward(start);
        while let Some((off, line)) = fwd.next_line().map_err(|e| self.read_err(e))? {
            let ev = self.parse(off, line)?;
            if filter.matches(&ev) {
                out.push(ev);
                if out.len() == limit {
                    break;
                }
            }
        }
        Ok(out)
    }

    /// Up to `limit` events with seq `< seq` that pass `filter` (every event passes
    /// [`Filter::default`]), the closest ones, in ascending order.
    pub fn before(&self, seq: u64, limit: usize, filter: &Filter) -> Result<Vec<Event>> {
        let snap = self.snapshot()?;
        let mut out = Vec::new();
        if limit == 0 || seq <= 1 {
            return Ok(out);
        }
        let end = snap
            .find_seq(seq)
            .map_err(|e| self.read_err(e))?
            .unwrap_or(snap.end);
        let mut back = snap.backward(end);
        while let Some((off, line)) = back.prev_line().map_err(|e| self.read_err(e))? {
            let ev = self.parse(off, line)?;
            if filter.matches(&ev) {
                out.push(ev);
                if out.len() == limit {
                    break;
                }
            }
        }
        out.reverse();
        Ok(out)
    }

    /// Whether the event `id` is current, superseded or resolved; `None` if it does not exist.
    /// Scans the lines after it; a later event that supersedes it wins over one that resolves
    /// it, and the earliest such event is named.
    pub fn status(&self, id: EventId) -> Result<Option<Status>> {
        let snap = self.snapshot()?;
        if self.raw_line(&snap, id.seq())?.is_none() {
            return Ok(None);
        }
        let Some(start) = snap.find_seq(id.seq() + 1).map_err(|e| self.read_err(e))? else {
            return Ok(Some(Status::Current));
        };
        let needle = format!("\"{id}\"");
        let finder = memchr::memmem::Finder::new(needle.as_bytes());
        let mut resolved = None;
        let mut fwd = snap.forward(start);
        while let Some((off, line)) = fwd.next_line().map_err(|e| self.read_err(e))? {
            if finder.find(line).is_none() {
                continue;
            }
            let ev = self.parse(off, line)?;
            if ev.supersedes.contains(&id) {
                return Ok(Some(Status::Superseded { by: ev.id }));
            }
            if resolved.is_none() && ev.resolves.contains(&id) {
                resolved = Some(ev.id);
            }
        }
        Ok(Some(
            resolved.map_or(Status::Current, |by| Status::Resolved { by }),
        ))
    }

    /// Every event, in order, for full scans.
    pub fn iter(&self) -> Result<impl Iterator<Item = Result<Event>> + '_> {
        let snap = self.snapshot()?;
        Ok(Events {
            ledger: self,
            lines: snap.forward(0),
        })
    }

    /// Check the whole ledger: every line valid, seq gapless, ids, the hash chain, and the
    /// hash of every referenced artifact. Findings are data in the report.
    pub fn verify(&self) -> Result<VerifyReport> {
        let mut report = verify::run(self, &self.reader)?;
        if let Some(b) = &self.tampered {
            report.anchor_break(b.line, &b.reason);
        }
        self.compare_with_store(&mut report)?;
        Ok(report)
    }
}

/// Iterator over every event of the log (see [`Ledger::iter`]).
struct Events<'a> {
    ledger: &'a Ledger,
    lines: lines::ForwardLines<'a>,
}

impl Iterator for Events<'_> {
    type Item = Result<Event>;
    fn next(&mut self) -> Option<Self::Item> {
        match self.lines.next_line() {
            Err(e) => Some(Err(self.ledger.read_err(e))),
            Ok(None) => None,
            Ok(Some((off, line))) => Some(self.ledger.parse(off, line)),
        }
    }
}

impl std::fmt::Debug for Events<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Events").finish_non_exhaustive()
    }
}
