//! Where everything lives inside `.context/` (SPEC.md section 1), and how the folder is found.

use camino::{Utf8Path, Utf8PathBuf};

use crate::Error;

/// The name of the folder discovery looks for.
pub const CONTEXT_DIR_NAME: &str = ".context";

/// The environment variable naming the folder when `--dir` is not given.
pub const DIR_ENV: &str = "REMAIND_DIR";

/// Derived files under `active/`, as paths relative to it. Rollback covers all of them.
pub const DERIVED_FILES: [&str; 4] = [STATE_FILE, HANDOVER_FILE, FRAMING_FILE, PACKET_FILE];

/// `active/state.json`, relative to `active/`.
pub const STATE_FILE: &str = "state.json";
/// `active/handover.md`, relative to `active/`.
pub const HANDOVER_FILE: &str = "handover.md";
/// `active/framing.json`, relative to `active/`.
pub const FRAMING_FILE: &str = "framing.json";
/// `active/resume_packet.md`, relative to `active/`.
pub const PACKET_FILE: &str = "resume_packet.md";

/// A `.context/` folder and the paths of everything in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextDir {
    root: Utf8PathBuf,
}

impl ContextDir {
    /// Names a `.context/` folder; nothing is checked or created.
    pub fn new(root: impl Into<Utf8PathBuf>) -> Self {
        ContextDir { root: root.into() }
    }

    /// The `.context/` folder itself.
    pub fn root(&self) -> &Utf8Path {
        &self.root
    }

    /// `CONTRACT.md`.
    pub fn contract_path(&self) -> Utf8PathBuf {
        self.root.join("CONTRACT.md")
    }

    /// `active/`, the root of the atomic history store.
    pub fn active_dir(&self) -> Utf8PathBuf {
        self.root.join("active")
    }

    /// `active/history/`.
    pub fn history_dir(&self) -> Utf8PathBuf {
        self.active_dir().join("history")
    }

    /// `active/state.json`.
    pub fn state_path(&self) -> Utf8PathBuf {
        self.active_dir().join(STATE_FILE)
    }

    /// `active/handover.md`.
    pub fn handover_path(&self) -> Utf8PathBuf {
        self.active_dir().join(HANDOVER_FILE)
    }

    /// `active/framing.json`.
    pub fn framing_path(&self) -> Utf8PathBuf {
        self.active_dir().join(FRAMING_FILE)
    }

    /// `active/resume_packet.md`.
    pub fn resume_packet_path(&self) -> Utf8PathBuf {
        self.active_dir().join(PACKET_FILE)
    }

    /// `logs/`.
    pub fn logs_dir(&self) -> Utf8PathBuf {
        self.root.join("logs")
    }

    /// `logs/events.jsonl`.
    pub fn events_path(&self) -> Utf8PathBuf {
        self.logs_dir().join("events.jsonl")
    }

    /// `schemas/`.
    pub fn schemas_dir(&self) -> Utf8PathBuf {
        self.root.join("schemas")
    }

    /// `schemas/thresholds.json`.
    pub fn thresholds_path(&self) -> Utf8PathBuf {
        self.schemas_dir().join("thresholds.json")
    }

    /// `schemas/redaction.json`.
    pub fn redaction_path(&self) -> Utf8PathBuf {
        self.schemas_dir().join("redaction.json")
    }

    /// `schemas/tools.yaml`.
    pub fn tools_path(&self) -> Utf8PathBuf {
        self.schemas_dir().join("tools.yaml")
    }

    /// `artifacts/`.
    pub fn artifacts_dir(&self) -> Utf8PathBuf {
        self.root.join("artifacts")
    }

    /// `db/`.
    pub fn db_dir(&self) -> Utf8PathBuf {
        self.root.join("db")
    }

    /// True when the folder holds an initialized context (its ledger exists).
    pub fn is_initialized(&self) -> bool {
        damage(self).is_none()
    }
}

/// Finds the `.context/` folder the way git finds `.git`: an explicit path (from `--dir` or
/// `REMAIND_DIR`, resolved by the caller) wins; else the nearest `.context/` in `cwd` or its
/// parents.
pub fn discover(explicit: Option<&Utf8Path>, cwd: &Utf8Path) -> Result<ContextDir, Error> {
    if let Some(dir) = explicit {
        let dir = if dir.is_absolute() {
            dir.to_owned()
        } else {
            cwd.join(dir)
        };
        let ctx = ContextDir::new(dir);
        if !ctx.is_initialized() {
            return Err(Error::NotInitialized {
                path: ctx.root.clone(),
            });
        }
        return Ok(ctx);
    }
    let mut here = Some(cwd);
    while let Some(dir) = here {
        let ctx = ContextDir::new(dir.join(CONTEXT_DIR_NAME));
        // The nearest `.context` entry of any kind decides: a damaged one is reported, never
        // skipped for a parent project's ledger.
        if std::fs::symlink_metadata(ctx.root()).is_ok() {
            return match damage(&ctx) {
                None => Ok(ctx),
                Some(reason) => Err(Error::Damaged {
                    path: ctx.root.clone(),
                    reason,
                }),
            };
        }
        here = dir.parent();
    }
    Err(Error::NotFound {
        start: cwd.to_owned(),
    })
}

/// Why `ctx` is not a usable context (symlinks are not followed), or `None` when it is one.
fn damage(ctx: &ContextDir) -> Option<String> {
    let kind = |p: &Utf8Path| std::fs::symlink_metadata(p).map(|m| m.file_type());
    match kind(ctx.root()) {
        Err(_) => return Some("does not exist".to_owned()),
        Ok(t) if t.is_symlink() => {
            return Some("is a symlink; Remaind never follows a symlink to a context".to_owned());
        }
        Ok(t) if !t.is_dir() => return Some("is not a folder".to_owned()),
        Ok(_) => {}
    }
    match kind(&ctx.events_path()) {
        Err(_) => Some("has no logs/events.jsonl (a damaged or partly deleted context)".to_owned()),
        Ok(t) if t.is_file() => None,
        Ok(t) if t.is_symlink() => Some("logs/events.jsonl is a symlink".to_owned()),
        Ok(_) => {
            Some("logs/events.jsonl is not a regular file (a folder, FIFO or device)".to_owned())
        }
    }
}
