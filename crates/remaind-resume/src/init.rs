//! `init`: create a `.context/` folder with its contract, schemas and configuration.

use std::fs::DirBuilder;
use std::os::unix::fs::DirBuilderExt;

use camino::Utf8PathBuf;
use remaind_fs::layout::{
    ACTIVE_DIR, ARTIFACTS_DIR, CONTRACT_PATH, DB_DIR, EVENT_SCHEMA_PATH, GITIGNORE_PATH,
    HISTORY_DIR, KEY_PATH, LLM_CONFIG_PATH, LLM_SCHEMA_PATH, LOG_PATH, LOGS_DIR, QUARANTINE_DIR,
    REDACTION_PATH, SCHEMAS_DIR, STATE_SCHEMA_PATH, THRESHOLDS_PATH, TOOLS_PATH,
};

use crate::Error;
use crate::layout::ContextDir;

/// The files `init` writes, relative to `.context/`, with their embedded contents.
pub(crate) const DEFAULT_FILES: [(&str, &str); 9] = [
    (CONTRACT_PATH, include_str!("../assets/CONTRACT.md")),
    (GITIGNORE_PATH, include_str!("../assets/gitignore")),
    (
        EVENT_SCHEMA_PATH,
        include_str!("../../../schemas/event.schema.json"),
    ),
    (
        STATE_SCHEMA_PATH,
        include_str!("../../../schemas/state.schema.json"),
    ),
    (
        THRESHOLDS_PATH,
        include_str!("../../../schemas/thresholds.json"),
    ),
    (
        REDACTION_PATH,
        include_str!("../../../schemas/redaction.json"),
    ),
    (TOOLS_PATH, include_str!("../../../schemas/tools.yaml")),
    // The LLM compactor presets (remaind-llm reads them; the same defaults when absent).
    (LLM_CONFIG_PATH, include_str!("../../../schemas/llm.json")),
    (
        LLM_SCHEMA_PATH,
        include_str!("../../../schemas/llm.schema.json"),
    ),
];

/// The folders `init` creates, relative to `.context/`.
const FOLDERS: [&str; 5] = [ACTIVE_DIR, HISTORY_DIR, SCHEMAS_DIR, DB_DIR, LOGS_DIR];

/// What `init` did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct InitReport {
    /// The `.context/` folder.
    pub root: Utf8PathBuf,
    /// True when the folder was already initialized before this call.
    pub existed: bool,
    /// Paths created by this call, relative to the root; empty when nothing changed.
    pub created: Vec<String>,
}

/// Creates the folder (0700) and every missing file (0600). On an initialized folder it changes
/// nothing unless `force` is set, in which case it restores missing files only: an existing
/// file is never overwritten.
pub fn init(ctx: &ContextDir, force: bool) -> Result<InitReport, Error> {
    let existed = ctx.is_initialized();
    let mut report = InitReport {
        root: ctx.root().to_owned(),
        existed,
        created: Vec::new(),
    };
    if existed && !force {
        return Ok(report);
    }
    refuse_symlink(ctx.root().as_std_path(), ctx.root())?;
    // Like `mkdir -p` for the folders above `.context/`; `.context/` itself is made 0700 below.
    if let Some(parent) = ctx.root().parent().filter(|p| !p.as_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| Error::io("cannot create", parent, e))?;
    }
    create_dir(ctx.root().to_owned(), &mut report, ".")?;
    for folder in FOLDERS {
        create_dir(ctx.root().join(folder), &mut report, folder)?;
    }
    for (rel, contents) in DEFAULT_FILES {
        let path = ctx.root().join(rel);
        if remaind_fs::create_new(&path, contents.as_bytes())? {
            report.created.push(rel.to_owned());
        }
    }
    let before = ledger_files(ctx);
    remaind_ledger::Ledger::create(ctx.root())?;
    for rel in ledger_files(ctx) {
        if !before.contains(&rel) {
            report.created.push(rel);
        }
    }
    remaind_fs::sync_dir(ctx.root())?;
    report.created.sort();
    Ok(report)
}

/// The ledger-owned paths that exist now, relative to the root.
fn ledger_files(ctx: &ContextDir) -> Vec<String> {
    [LOG_PATH, QUARANTINE_DIR, ARTIFACTS_DIR, KEY_PATH]
        .into_iter()
        .filter(|rel| ctx.root().join(rel).symlink_metadata().is_ok())
        .map(str::to_owned)
        .collect()
}

fn create_dir(path: Utf8PathBuf, report: &mut InitReport, rel: &str) -> Result<(), Error> {
    refuse_symlink(path.as_std_path(), &path)?;
    match DirBuilder::new().mode(0o700).create(&path) {
        Ok(()) => {
            if rel != "." {
                report.created.push(format!("{rel}/"));
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && path.is_dir() => Ok(()),
        Err(e) => Err(Error::io("cannot create", &path, e)),
    }
}

fn refuse_symlink(path: &std::path::Path, shown: &camino::Utf8Path) -> Result<(), Error> {
    match path.symlink_metadata() {
        Ok(meta) if meta.file_type().is_symlink() => Err(Error::InvalidInput {
            field: shown.to_string(),
            message: "is a symlink; Remaind never follows symlinks inside .context/".into(),
        }),
        _ => Ok(()),
    }
}
