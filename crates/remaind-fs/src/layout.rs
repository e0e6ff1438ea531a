//! Where everything lives inside a `.context/` folder: the one place these names are spelled.
//!
//! Relative paths are constants (for code that joins them onto a root it holds);
//! [`ContextDir`] joins them for code that holds the folder.

use camino::{Utf8Path, Utf8PathBuf};

/// The name of the folder discovery looks for in a project.
pub const CONTEXT_DIR_NAME: &str = ".context";
/// The environment variable naming the folder when `--dir` is not given.
pub const DIR_ENV: &str = "REMAIND_DIR";

/// `CONTRACT.md`: the contract, copied in by `init` for whoever opens the folder.
pub const CONTRACT_PATH: &str = "CONTRACT.md";
/// What git leaves out of `.context/`: the redaction key (never tracked), the rebuilt index,
/// payload artifacts, history points, quarantined bytes and hook errors.
pub const GITIGNORE_PATH: &str = ".gitignore";
/// `logs/`: the ledger's folder.
pub const LOGS_DIR: &str = "logs";
/// `logs/events.jsonl`: the ledger, the source of truth.
pub const LOG_PATH: &str = "logs/events.jsonl";
/// `logs/events.head`: the ledger's head anchor (seq, length and hash of the last line, and
/// how the file looked then), kept apart from the log so a changed line is seen on read.
pub const HEAD_PATH: &str = "logs/events.head";
/// `logs/quarantine/`: torn tails cut from the ledger, kept byte for byte.
pub const QUARANTINE_DIR: &str = "logs/quarantine";
/// What the hooks could not do (they fail open: the runtime must never be blocked), one JSON
/// line each, the payload redacted.
pub const HOOK_ERRORS_PATH: &str = "logs/hook-errors.jsonl";
/// Hook calls a replica could not append while its shared store was unreachable, one JSON
/// line each, the payload redacted: the next hook that reaches the store appends them first.
pub const OUTBOX_PATH: &str = "logs/outbox.jsonl";
/// Held (exclusively) while the outbox is written or drained.
pub const OUTBOX_LOCK_PATH: &str = "logs/outbox.lock";
/// `artifacts/`: content-addressed payloads routed out of events.
pub const ARTIFACTS_DIR: &str = "artifacts";
/// Where the artifact with this lowercase hex SHA-256 lives, relative to the folder:
/// `artifacts/<first two hex digits>/<all 64>`.
pub fn artifact_path(sha256: &str) -> String {
    format!(
        "{ARTIFACTS_DIR}/{}/{sha256}",
        sha256.get(..2).unwrap_or(sha256)
    )
}

/// `store.json`: the shared store this folder is a replica of (`{"url", "project"}`; no
/// password), so a project's hooks on every machine write through it (docs/fleet.md).
pub const STORE_PATH: &str = "store.json";
/// The environment variables that name a shared store and project instead of `store.json`.
pub const STORE_ENV: &str = "REMAIND_STORE";
/// See [`STORE_ENV`].
pub const PROJECT_ENV: &str = "REMAIND_PROJECT";

/// `redaction.key`: the per-project key of redaction placeholders (32 raw bytes).
pub const KEY_PATH: &str = "redaction.key";
/// `schemas/`: schemas and configuration.
pub const SCHEMAS_DIR: &str = "schemas";
/// `schemas/event.schema.json`: the JSON Schema of a ledger line.
pub const EVENT_SCHEMA_PATH: &str = "schemas/event.schema.json";
/// `schemas/state.schema.json`: the JSON Schema of `active/state.json`.
pub const STATE_SCHEMA_PATH: &str = "schemas/state.schema.json";
/// `schemas/thresholds.json`: size limits and token bands.
pub const THRESHOLDS_PATH: &str = "schemas/thresholds.json";
/// `schemas/redaction.json`: user redaction rules.
pub const REDACTION_PATH: &str = "schemas/redaction.json";
/// `schemas/redaction.toml`: optional user redaction rules in the gitleaks TOML format.
pub const REDACTION_TOML_PATH: &str = "schemas/redaction.toml";
/// `schemas/tools.yaml`: the tools the packet names.
pub const TOOLS_PATH: &str = "schemas/tools.yaml";
/// The LLM compactor presets (`remaind compact --llm`), relative to the folder.
pub const LLM_CONFIG_PATH: &str = "schemas/llm.json";
/// The JSON Schema of [`LLM_CONFIG_PATH`], relative to the folder.
pub const LLM_SCHEMA_PATH: &str = "schemas/llm.schema.json";
/// `db/`: the derived search index's folder.
pub const DB_DIR: &str = "db";
/// `db/context.sqlite`: the derived search index.
pub const DB_PATH: &str = "db/context.sqlite";
/// Where each hook left off in each runtime transcript (derived: losing it only means a
/// transcript is read again from its start).
pub const TRANSCRIPT_CURSORS_PATH: &str = "db/transcript_cursors.json";
/// Set by a compaction a runtime gives no later hook for (Gemini CLI's PreCompress): the next
/// prompt hook injects the packet again, then removes it.
pub const REINJECT_PATH: &str = "db/reinject";
/// What each agent session was given (the packet's events and everything recalled since), one
/// file per session, so recall never injects an event twice in a session.
pub const RECALL_DIR: &str = "db/recall";
/// `active/`: derived files, replaced only atomically with history.
pub const ACTIVE_DIR: &str = "active";
/// `active/history/`: every prior version of every derived file.
pub const HISTORY_DIR: &str = "active/history";

/// `memory/`: long-term memory, projected from the ledger's memory events.
pub const MEMORY_DIR: &str = "memory";
/// `memory/MEMORY.md`: the accepted memories, a file people read and edit by hand.
pub const MEMORY_FILE_PATH: &str = "memory/MEMORY.md";
/// `memory/proposals/`: one Markdown file per memory proposal awaiting review.
pub const MEMORY_PROPOSALS_DIR: &str = "memory/proposals";
/// `memory/loops/`: one Markdown file per open loop (a current blocker or next step).
pub const MEMORY_LOOPS_DIR: &str = "memory/loops";
/// `memory/archive/`: one file per accept or reject, every repeated action kept.
pub const MEMORY_ARCHIVE_DIR: &str = "memory/archive";
/// `memory/uses.json`: when each memory-tree node was opened (its temperature).
pub const MEMORY_USES_PATH: &str = "memory/uses.json";
/// `schemas/memory.json`: optional; `tree_paths` adds project files to the memory tree.
pub const MEMORY_CONFIG_PATH: &str = "schemas/memory.json";
/// `db/memory_tree`: the compiled memory tree, a cache rebuilt when missing or stale.
pub const MEMORY_TREE_PATH: &str = "db/memory_tree";
/// `db/token_counts`: token counts of packet chunks, by tokenizer and SHA-256 of the chunk; a
/// cache (a missing or damaged one is rebuilt as texts are counted).
pub const TOKEN_COUNTS_PATH: &str = "db/token_counts";
/// `memory/rendered.sha256`: the hash of `MEMORY.md` as last written, to tell a hand edit.
pub const MEMORY_RENDERED_PATH: &str = "memory/rendered.sha256";
/// `memory/pending`: present from just before a memory action is recorded until the memory
/// files are rewritten after it; found by the next command, it means they lag the ledger.
pub const MEMORY_PENDING_PATH: &str = "memory/pending";

/// `active/state.json`, relative to `active/`.
pub const STATE_FILE: &str = "state.json";
/// `active/handover.md`, relative to `active/`.
pub const HANDOVER_FILE: &str = "handover.md";
/// `active/framing.json`, relative to `active/`.
pub const FRAMING_FILE: &str = "framing.json";
/// `active/resume_packet.md`, relative to `active/`.
pub const PACKET_FILE: &str = "resume_packet.md";
/// Derived files under `active/`, relative to it. Rollback covers all of them.
pub const DERIVED_FILES: [&str; 4] = [STATE_FILE, HANDOVER_FILE, FRAMING_FILE, PACKET_FILE];

/// A `.context/` folder and the paths of everything in it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
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

    /// `root/rel`, for one of this module's relative paths.
    pub fn join(&self, rel: &str) -> Utf8PathBuf {
        self.root.join(rel)
    }

    /// `CONTRACT.md`.
    pub fn contract_path(&self) -> Utf8PathBuf {
        self.join(CONTRACT_PATH)
    }

    /// `active/`, the root of the atomic history store.
    pub fn active_dir(&self) -> Utf8PathBuf {
        self.join(ACTIVE_DIR)
    }

    /// `active/history/`.
    pub fn history_dir(&self) -> Utf8PathBuf {
        self.join(HISTORY_DIR)
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
        self.join(LOGS_DIR)
    }

    /// `logs/events.jsonl`.
    pub fn events_path(&self) -> Utf8PathBuf {
        self.join(LOG_PATH)
    }

    /// `logs/quarantine/`.
    pub fn quarantine_dir(&self) -> Utf8PathBuf {
        self.join(QUARANTINE_DIR)
    }

    /// `schemas/`.
    pub fn schemas_dir(&self) -> Utf8PathBuf {
        self.join(SCHEMAS_DIR)
    }

    /// `schemas/thresholds.json`.
    pub fn thresholds_path(&self) -> Utf8PathBuf {
        self.join(THRESHOLDS_PATH)
    }

    /// `schemas/redaction.json`.
    pub fn redaction_path(&self) -> Utf8PathBuf {
        self.join(REDACTION_PATH)
    }

    /// `schemas/tools.yaml`.
    pub fn tools_path(&self) -> Utf8PathBuf {
        self.join(TOOLS_PATH)
    }

    /// `redaction.key`.
    pub fn key_path(&self) -> Utf8PathBuf {
        self.join(KEY_PATH)
    }

    /// `artifacts/`.
    pub fn artifacts_dir(&self) -> Utf8PathBuf {
        self.join(ARTIFACTS_DIR)
    }

    /// `db/`.
    pub fn db_dir(&self) -> Utf8PathBuf {
        self.join(DB_DIR)
    }

    /// `db/context.sqlite`.
    pub fn db_path(&self) -> Utf8PathBuf {
        self.join(DB_PATH)
    }

    /// True when the folder holds an initialized context: its ledger exists as a regular
    /// file (no symlink followed).
    pub fn is_initialized(&self) -> bool {
        std::fs::symlink_metadata(self.events_path()).is_ok_and(|m| m.is_file())
    }

    /// Finds the `.context/` folder the way git finds `.git`: an explicit path (from `--dir`
    /// or `REMAIND_DIR`, resolved by the caller) wins and must be initialized
    /// ([`NotInitialized`](crate::Error::NotInitialized)); else the nearest `.context` in
    /// `cwd` or its parents ([`NoContext`](crate::Error::NoContext) when there is none). The
    /// nearest one decides: a damaged one (a symlink, a file, no log) is
    /// [`Damaged`](crate::Error::Damaged), never skipped for a parent project's.
    pub fn discover(explicit: Option<&Utf8Path>, cwd: &Utf8Path) -> crate::Result<ContextDir> {
        if let Some(dir) = explicit {
            let ctx = ContextDir::new(if dir.is_absolute() {
                dir.to_owned()
            } else {
                cwd.join(dir)
            });
            if !ctx.is_initialized() {
                return Err(crate::Error::NotInitialized {
                    path: ctx.root().to_owned(),
                });
            }
            return Ok(ctx);
        }
        let mut here = Some(cwd);
        while let Some(dir) = here {
            let ctx = ContextDir::new(dir.join(CONTEXT_DIR_NAME));
            if std::fs::symlink_metadata(ctx.root()).is_ok() {
                return match ctx.damage() {
                    None => Ok(ctx),
                    Some(reason) => Err(crate::Error::Damaged {
                        path: ctx.root().to_owned(),
                        reason,
                    }),
                };
            }
            here = dir.parent();
        }
        Err(crate::Error::NoContext {
            path: cwd.to_owned(),
        })
    }

    /// Why this is not a usable context (symlinks are not followed), or `None` when it is.
    fn damage(&self) -> Option<String> {
        let kind = |p: &Utf8Path| std::fs::symlink_metadata(p).map(|m| m.file_type());
        match kind(self.root()) {
            Err(_) => return Some("does not exist".to_owned()),
            Ok(t) if t.is_symlink() => {
                return Some(
                    "is a symlink; Remaind never follows a symlink to a context".to_owned(),
                );
            }
            Ok(t) if !t.is_dir() => return Some("is not a folder".to_owned()),
            Ok(_) => {}
        }
        match kind(&self.events_path()) {
            Err(_) => Some(format!(
                "has no {LOG_PATH} (a damaged or partly deleted context)"
            )),
            Ok(t) if t.is_file() => None,
            Ok(t) if t.is_symlink() => Some(format!("{LOG_PATH} is a symlink")),
            Ok(_) => Some(format!(
                "{LOG_PATH} is not a regular file (a folder, FIFO or device)"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nearest `.context` decides: found from a subfolder, named explicitly, and a damaged
    /// one (no log) stops the walk instead of handing over the parent project's.
    #[test]
    fn discover_walks_up_and_stops_at_a_damaged_folder() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = Utf8PathBuf::from_path_buf(tmp.path().to_owned()).expect("utf-8");
        let project = ContextDir::new(root.join(CONTEXT_DIR_NAME));
        std::fs::create_dir_all(project.join(LOGS_DIR)).expect("mkdir");
        std::fs::write(project.events_path(), b"").expect("log");
        let deep = root.join("src/module");
        std::fs::create_dir_all(&deep).expect("mkdir");
        assert_eq!(ContextDir::discover(None, &deep).expect("found"), project);
        let named = ContextDir::discover(Some(Utf8Path::new(".context")), &root).expect("named");
        assert_eq!(named, project);
        assert!(matches!(
            ContextDir::discover(Some(Utf8Path::new("elsewhere")), &root),
            Err(crate::Error::NotInitialized { .. })
        ));
        std::fs::create_dir_all(root.join("src").join(CONTEXT_DIR_NAME)).expect("mkdir");
        assert!(matches!(
            ContextDir::discover(None, &deep),
            Err(crate::Error::Damaged { .. })
        ));
        assert!(matches!(
            ContextDir::discover(None, Utf8Path::new("/")),
            Err(crate::Error::NoContext { .. })
        ));
    }
}
