//! The one error type of the service layer.

use camino::Utf8PathBuf;
use remaind_adapters::Runtime;
use remaind_events::EventId;

/// Why a job could not run: the error of the layer that failed, as it is (its Display and
/// its `source()` chain), so a front-end reports the same words whichever way it called; or
/// the service's own, whose Display names what failed and leaves the cause to `source()`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The ledger could not be opened or read.
    #[error(transparent)]
    Ledger(#[from] remaind_ledger::Error),
    /// The derived files could not be read.
    #[error(transparent)]
    Resume(#[from] remaind_resume::Error),
    /// A file under `.context/` could not be read or written.
    #[error(transparent)]
    Fs(#[from] remaind_fs::Error),
    /// A hook payload could not be mapped to events, or they could not be recorded.
    #[error(transparent)]
    Adapters(#[from] remaind_adapters::Error),
    /// A compaction could not run.
    #[error(transparent)]
    Compact(#[from] remaind_compact::Error),
    /// The hook payload could not be read on stdin.
    #[error("cannot read the hook payload on stdin")]
    Stdin {
        /// The read's error.
        #[source]
        source: std::io::Error,
    },
    /// The process's current directory could not be read (or is not UTF-8).
    #[error("cannot read the current directory")]
    CurrentDir {
        /// The front-end's error.
        #[source]
        source: std::io::Error,
    },
    /// `remaind hook RUNTIME EVENT` named no runtime Remaind knows.
    #[error(
        "{reason}; the form is `remaind hook RUNTIME EVENT`, e.g. `remaind hook cursor \
sessionStart`"
    )]
    HookForm {
        /// Why the first argument is no runtime.
        reason: String,
    },
    /// A hook event Remaind does not know (of `runtime`, when the call named one).
    #[error(
        "unknown {}hook event `{name}`; `remaind hook --help` lists the events Remaind knows",
        runtime.map(|r| format!("{r} ")).unwrap_or_default()
    )]
    UnknownHookEvent {
        /// The runtime the call named.
        runtime: Option<Runtime>,
        /// The event as given.
        name: String,
    },
    /// The hook payload is JSON but not an object.
    #[error("stdin: the hook payload must be a JSON object")]
    PayloadNotObject,
    /// The hook payload is not JSON.
    #[error("stdin: the hook payload is not JSON")]
    PayloadNotJson {
        /// The parser's error.
        #[source]
        source: serde_json::Error,
    },
    /// The shared store could not be reached, and the hook call could not wait in the
    /// outbox either.
    #[error("{why}; and the call could not wait in the outbox")]
    NotDeferred {
        /// Why the call was not appended.
        why: String,
        /// Why it could not wait.
        #[source]
        source: Box<Error>,
    },
    /// The outbox's lock could not be taken.
    #[error("cannot lock {path}")]
    Lock {
        /// The lock file.
        path: Utf8PathBuf,
        /// The lock's error.
        #[source]
        source: std::io::Error,
    },
    /// A hook call too large for the outbox.
    #[error("the hook call is {bytes} bytes, more than the outbox keeps ({max})")]
    TooLarge {
        /// The call's size as a line.
        bytes: usize,
        /// The outbox's limit.
        max: usize,
    },
    /// A line of the outbox that is not a hook call.
    #[error("an outbox line is not a hook call")]
    OutboxLine {
        /// The parser's error.
        #[source]
        source: serde_json::Error,
    },
    /// An outbox entry that can never be recorded.
    #[error("outbox entry {id}: {reason}")]
    OutboxEntry {
        /// The entry's id, or the start of the line.
        id: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A runtime's settings file cannot take our hooks as it is (what is wrong and how to
    /// fix it).
    #[error(transparent)]
    Settings(#[from] remaind_adapters::install::SettingsError),
    /// The user's settings were asked for, but `HOME` is no absolute path.
    #[error(
        "--user: HOME is not set to an absolute path; set HOME, or install into the project \
(--project)"
    )]
    NoHome,
    /// A runtime's settings file is a symlink, which Remaind does not write through.
    #[error(
        "{path} is a symlink; Remaind writes only regular files: add the hooks by hand to the \
file it points to (the recipe is under examples/), or replace the link with the file"
    )]
    SettingsSymlink {
        /// The settings file.
        path: Utf8PathBuf,
    },
    /// A runtime's settings file is not a regular file.
    #[error("{path} is not a regular file; move it away and run `remaind install` again")]
    SettingsNotAFile {
        /// The settings file.
        path: Utf8PathBuf,
    },
    /// A settings file's path has no folder or no file name.
    #[error("{path} has no {missing}")]
    SettingsPath {
        /// The path.
        path: Utf8PathBuf,
        /// What it lacks.
        missing: &'static str,
    },
    /// `remaind log` was given no kind.
    #[error("give --kind (or --json-event JSON, or --stdin); see `remaind log --help`")]
    NoKind,
    /// JSON input that does not parse.
    #[error("{what}: malformed JSON")]
    MalformedJson {
        /// Which input.
        what: &'static str,
        /// The parser's error.
        #[source]
        source: serde_json::Error,
    },
    /// JSON Lines input that holds no line.
    #[error("--stdin: no events on stdin (expected JSON Lines)")]
    NoEvents,
    /// The memory files could not be read or changed.
    #[error(transparent)]
    Memory(#[from] remaind_memory::Error),
    /// A memory proposal cites something that is no event id.
    #[error("--cites `{given}` is not an event id; give one like e12, as `remaind search` shows")]
    NotACitation {
        /// What was given.
        given: String,
    },
    /// The memory tree was asked to fit in no tokens at all.
    #[error("--budget 0 leaves room for nothing; give at least 1 token")]
    ZeroBudget,
    /// A transcript path that does not exist.
    #[error("PATH `{path}` does not exist; give a transcript file or a folder of them")]
    NoSuchPath {
        /// The path, under the current directory.
        path: Utf8PathBuf,
    },
    /// Every transcript found was written by another runtime than the one named.
    #[error(
        "PATH: every transcript found was written by another runtime ({files}); nothing was \
imported. Run `remaind import {runtime} …` for them"
    )]
    OtherRuntime {
        /// The files, each with its runtime.
        files: String,
        /// The first file's runtime.
        runtime: Runtime,
    },
    /// No line of the transcripts is the named runtime's.
    #[error(
        "PATH: none of the {lines} line(s) in {files} file(s) is a {runtime} transcript line; \
nothing was imported. If they are {other} transcripts, run `remaind import {other} …`"
    )]
    NotATranscript {
        /// The runtime named.
        runtime: Runtime,
        /// The runtime they most likely are.
        other: Runtime,
        /// How many lines were read.
        lines: u64,
        /// In how many files.
        files: usize,
    },
    /// The open loops were asked for none.
    #[error("--limit 0 lists nothing; give at least 1")]
    ZeroLimit,
    /// A loop was to be resolved with no text.
    #[error("--text is empty; say what resolved the loop")]
    NoResolution,
    /// The event to resolve is no open loop.
    #[error(
        "{id} is not an open loop (a current blocker or next_step); `remaind loops list` shows them"
    )]
    NotAnOpenLoop {
        /// The event named.
        id: EventId,
    },
    /// The artifact store could not be read.
    #[error(transparent)]
    Artifacts(#[from] remaind_artifacts::Error),
    /// What names no artifact at all.
    #[error(
        "`{given}` is not an artifact id; give the 64 hex digits of an event's artifact.sha256 \
or the short id of its `[artifact:…]` marker (at least 8 hex digits)"
    )]
    NotAnArtifactId {
        /// What was given.
        given: String,
    },
    /// A prefix no stored artifact has.
    #[error("no artifact id starts with `{prefix}`; `remaind artifact list` shows them")]
    NoSuchArtifact {
        /// The prefix.
        prefix: String,
    },
    /// A prefix several stored artifacts have.
    #[error("`{prefix}` names {} artifacts ({}); give more digits", matches.len(), matches.join(", "))]
    AmbiguousArtifact {
        /// The prefix.
        prefix: String,
        /// The artifacts it names.
        matches: Vec<String>,
    },
    /// `--compactor` was given an empty command.
    #[error("--compactor: the command is empty; give a command such as 'python3 summarize.py'")]
    EmptyCompactor,
    /// `--model` was given an empty name.
    #[error("--model: the model name is empty")]
    EmptyModel,
    /// An LLM compaction could not run (its settings, the model's rounds, the commit).
    #[error(transparent)]
    Llm(remaind_llm::Error),
    /// A model call failed with no cause below it. Its words are the failure's own (which
    /// has no `source()` to repeat), saying that nothing was written.
    #[error("{failure}; nothing was written")]
    ModelCall {
        /// The failure.
        failure: remaind_llm::Error,
    },
    /// The folder's index could not be searched or read (a bad query is invalid input).
    #[error(transparent)]
    Index(#[from] remaind_index::Error),
    /// No temporary folder for a temporary index could be made.
    #[error("cannot create a temporary folder")]
    TempDir(#[source] std::io::Error),
    /// A folder of the project could not be listed (to send its files to a shared store).
    #[cfg(feature = "store")]
    #[error("cannot list {path}")]
    List {
        /// The folder.
        path: Utf8PathBuf,
        /// The listing's error.
        #[source]
        source: std::io::Error,
    },
    /// The folder a pulled project goes into could not be created.
    #[cfg(feature = "store")]
    #[error("cannot create {path}")]
    CreateDir {
        /// The folder.
        path: Utf8PathBuf,
        /// The creation's error.
        #[source]
        source: std::io::Error,
    },
    /// The shared store's search cannot do what was asked (invalid input).
    #[cfg(feature = "store")]
    #[error("the shared store's search cannot {what}")]
    NotOnStore {
        /// What it cannot do.
        what: &'static str,
    },
    /// A line of the shared store does not parse as an event.
    #[cfg(feature = "store")]
    #[error("the shared store's line {seq} of project {project:?} is not an event")]
    NotAnEvent {
        /// The store's project.
        project: String,
        /// The line's seq.
        seq: u64,
        /// Why it does not parse.
        #[source]
        source: serde_json::Error,
    },
}

impl Error {
    /// True when the caller's input was refused and nothing was written.
    pub fn is_invalid_input(&self) -> bool {
        match self {
            Error::Ledger(e) => e.is_invalid_input(),
            Error::Resume(e) => e.is_invalid_input(),
            Error::Adapters(e) => e.is_invalid_input(),
            Error::Compact(e) => e.is_invalid_input(),
            Error::HookForm { .. }
            | Error::UnknownHookEvent { .. }
            | Error::PayloadNotObject
            | Error::PayloadNotJson { .. }
            | Error::OutboxLine { .. }
            | Error::OutboxEntry { .. } => true,
            Error::Fs(_)
            | Error::Stdin { .. }
            | Error::CurrentDir { .. }
            | Error::NotDeferred { .. }
            | Error::Lock { .. }
            | Error::TooLarge { .. } => false,
            Error::Settings(_)
            | Error::NoHome
            | Error::SettingsSymlink { .. }
            | Error::SettingsNotAFile { .. }
            | Error::SettingsPath { .. } => true,
            Error::NoKind | Error::MalformedJson { .. } | Error::NoEvents => true,
            Error::Memory(e) => e.is_invalid_input(),
            Error::NotACitation { .. } | Error::ZeroBudget => true,
            Error::NoSuchPath { .. }
            | Error::OtherRuntime { .. }
            | Error::NotATranscript { .. } => true,
            Error::ZeroLimit | Error::NoResolution | Error::NotAnOpenLoop { .. } => true,
            Error::Artifacts(e) => matches!(e, remaind_artifacts::Error::InvalidHash { .. }),
            Error::NotAnArtifactId { .. }
            | Error::NoSuchArtifact { .. }
            | Error::AmbiguousArtifact { .. } => true,
            Error::Index(e) => e.is_invalid_input(),
            Error::EmptyCompactor | Error::EmptyModel => true,
            Error::Llm(e) => e.is_invalid_input(),
            Error::ModelCall { .. } => false,
            #[cfg(feature = "store")]
            Error::NotOnStore { .. } => true,
            Error::TempDir(_) => false,
            #[cfg(feature = "store")]
            Error::NotAnEvent { .. } | Error::List { .. } | Error::CreateDir { .. } => false,
        }
    }
}

impl Error {
    /// An LLM compaction's failure: a runtime failure with no cause below it (a model call
    /// that failed) says that nothing was written.
    pub(crate) fn from_llm(failure: remaind_llm::Error) -> Error {
        if failure.is_invalid_input() || std::error::Error::source(&failure).is_some() {
            Error::Llm(failure)
        } else {
            Error::ModelCall { failure }
        }
    }
}

/// The service layer's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error and its causes, joined by `: `: the words a front-end prints for it.
pub(crate) fn chain_text(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut next = e.source();
    while let Some(inner) = next {
        out.push_str(": ");
        out.push_str(&inner.to_string());
        next = inner.source();
    }
    out
}
