//! The ledger's one error type.

use camino::Utf8PathBuf;

/// Everything that can go wrong in the ledger.
///
/// [`Error::InvalidInput`] means the caller's input was rejected and nothing was written (the
/// CLI maps it to exit 2); every other variant is a runtime failure naming the file involved
/// (exit 1).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input was rejected before anything touched disk.
    #[error("{}", invalid_message(*.line, .field, .reason))]
    InvalidInput {
        /// 1-based line number in a batch, if the input came as a batch.
        line: Option<usize>,
        /// The offending field (`kind`, `importance`, `tool.name`, …), or `line` when the
        /// whole line is at fault (malformed JSON, oversize).
        field: String,
        /// Why, and how to fix it.
        reason: String,
    },
    /// An I/O operation on a file under `.context/` failed.
    #[error("{action} {path}")]
    Io {
        /// The file or folder.
        path: Utf8PathBuf,
        /// What was being done, e.g. `cannot open`.
        action: &'static str,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A file under `.context/` does not hold what it must (a corrupt log line, a bad key).
    #[error("{path}: {reason}")]
    Corrupt {
        /// The file.
        path: Utf8PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The log was changed outside Remaind: it no longer matches its hash chain or its head
    /// anchor (`logs/events.head`). Nothing was read as trusted and nothing was written.
    #[error(
        "{path} line {line}: {reason}; the log was changed outside Remaind — run `remaind verify` to see every problem, and restore the log from a backup"
    )]
    Tampered {
        /// The log.
        path: Utf8PathBuf,
        /// The 1-based line where the chain breaks.
        line: u64,
        /// What does not match.
        reason: String,
    },
    /// A configuration file (`thresholds.json`, `redaction.json`, the key) is unusable.
    #[error("{path}: {reason}")]
    Config {
        /// The file.
        path: Utf8PathBuf,
        /// What is wrong with it and how to fix it.
        reason: String,
        /// The underlying error, if any.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// The artifact store failed.
    #[error("{reason}")]
    Artifact {
        /// What was being done, e.g. `cannot store artifacts`.
        reason: String,
        /// The store's error.
        #[source]
        source: remaind_artifacts::Error,
    },
    /// A file primitive failed (a symlink or special file in the way, an I/O error).
    #[error(transparent)]
    Fs(#[from] remaind_fs::Error),
    /// The folder is the replica of a shared store and this build has no shared-store
    /// support (remaind-ledger's cargo feature `store`).
    #[error(
        "the folder is the replica of shared store project {project:?}, and this build has no \
         shared-store support: build with remaind-ledger's cargo feature `store` (the \
         `remaind` CLI has it)"
    )]
    NoStoreSupport {
        /// The store's project.
        project: String,
    },
    /// The shared store this folder is a replica of failed (see `docs/fleet.md`).
    #[cfg(feature = "store")]
    #[error("cannot {action} through the shared store of project {project:?}")]
    Store {
        /// What was being done, e.g. "append".
        action: &'static str,
        /// The store's project.
        project: String,
        /// The store's error (its URL's password masked).
        #[source]
        source: remaind_pg::Error,
    },
    /// This folder's chain and its shared store's differ: the folder holds lines the store
    /// does not (appended while it was not a replica, or copied from elsewhere).
    #[error(
        "{path} and the shared store of project {project:?} differ from seq {seq}; keep the \
         store's history in a new folder: `{}`",
        pull_command(url, project, path)
    )]
    Diverged {
        /// The log.
        path: Utf8PathBuf,
        /// The store's project.
        project: String,
        /// The store's URL (its password masked).
        url: String,
        /// The first seq whose line differs (or that only one side has).
        seq: u64,
    },
    /// The shared store disagrees with itself: a row past the project's recorded head, a
    /// line missing below it, a broken chain, a line that is not a valid event, or one the
    /// project's redactor would change. Nothing was copied into the folder.
    #[error(
        "the shared store of project {project:?} is refused at seq {seq}: {reason}; nothing \
         was copied into {path}"
    )]
    StoreRefused {
        /// The log the lines would have gone to.
        path: Utf8PathBuf,
        /// The store's project.
        project: String,
        /// The seq at fault.
        seq: u64,
        /// What is wrong, and what to do about it.
        reason: String,
    },
    /// A guarded append ([`crate::AppendRequest::unless`]) found a rival event
    /// appended after the one its caller built on (another process or machine got there
    /// first); nothing was written.
    #[error(
        "{path}: another {kind} event (seq {seq}) was appended after seq {since}, which this \
         one built on; nothing was written, re-read and try again"
    )]
    Raced {
        /// The log.
        path: Utf8PathBuf,
        /// The rival event's kind.
        kind: String,
        /// The rival event's seq.
        seq: u64,
        /// The seq of the event the caller built on (0 for none).
        since: u64,
    },
}

/// A runnable `remaind pull` that keeps the store's history in a new folder beside the one
/// at `log` (`…/logs/events.jsonl`).
fn pull_command(url: &str, project: &str, log: &camino::Utf8Path) -> String {
    let context = log.parent().and_then(camino::Utf8Path::parent);
    let root = context.and_then(camino::Utf8Path::parent);
    let base = root
        .and_then(camino::Utf8Path::file_name)
        .filter(|n| !n.is_empty())
        .unwrap_or("project");
    let dir = match root.and_then(camino::Utf8Path::parent) {
        Some(parent) if !parent.as_str().is_empty() => {
            parent.join(format!("{base}-from-store")).join(".context")
        }
        _ => camino::Utf8PathBuf::from(format!("../{base}-from-store/.context")),
    };
    let url = if url.is_empty() { "URL" } else { url };
    format!(
        "remaind pull --from {} --project {} --dir {}",
        shell_word(url),
        shell_word(project),
        shell_word(dir.as_str())
    )
}

/// `s` as one shell word: bare when it holds only safe characters, else single-quoted.
fn shell_word(s: &str) -> String {
    let safe = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"@%+=:,./_-".contains(&b));
    if safe {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

fn invalid_message(line: Option<usize>, field: &str, reason: &str) -> String {
    let what = if field == "line" {
        reason.to_owned()
    } else {
        format!("field `{field}`: {reason}")
    };
    match line {
        Some(n) => format!("line {n}: {what}"),
        None => what,
    }
}

impl Error {
    /// True when the caller's input was rejected (usage error, exit 2); false for runtime
    /// failures (I/O, corrupt store, exit 1).
    pub fn is_invalid_input(&self) -> bool {
        match self {
            Error::InvalidInput { .. } => true,
            #[cfg(feature = "store")]
            Error::Store { source, .. } => matches!(
                source,
                remaind_pg::Error::Url { .. }
                    | remaind_pg::Error::NoProject { .. }
                    | remaind_pg::Error::ProjectName { .. }
            ),
            _ => false,
        }
    }

    /// Whether the shared store's connection was lost (the server restarted or went away):
    /// trying again later may succeed.
    pub fn is_connection_lost(&self) -> bool {
        match self {
            #[cfg(feature = "store")]
            Error::Store { source, .. } => source.is_connection_lost(),
            _ => false,
        }
    }

    /// The 1-based batch line number an invalid-input error refers to, if any.
    pub(crate) fn line(&self) -> Option<usize> {
        match self {
            Error::InvalidInput { line, .. } => *line,
            _ => None,
        }
    }

    pub(crate) fn invalid(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::InvalidInput {
            line: None,
            field: field.into(),
            reason: reason.into(),
        }
    }

    pub(crate) fn io(
        path: impl Into<Utf8PathBuf>,
        action: &'static str,
        source: std::io::Error,
    ) -> Self {
        Error::Io {
            path: path.into(),
            action,
            source,
        }
    }

    pub(crate) fn corrupt(path: impl Into<Utf8PathBuf>, reason: impl Into<String>) -> Self {
        Error::Corrupt {
            path: path.into(),
            reason: reason.into(),
        }
    }

    pub(crate) fn artifact(reason: impl Into<String>, source: remaind_artifacts::Error) -> Self {
        Error::Artifact {
            reason: reason.into(),
            source,
        }
    }

    /// Attach a 1-based batch line number to an invalid-input error.
    pub(crate) fn at_line(self, n: usize) -> Self {
        match self {
            Error::InvalidInput { field, reason, .. } => Error::InvalidInput {
                line: Some(n),
                field,
                reason,
            },
            other => other,
        }
    }
}

/// Result with the ledger's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
