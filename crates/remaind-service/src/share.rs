//! Moving a project between a folder and a shared store (`push`, `pull`), and making a
//! folder a store's replica (`join`, behind `remaind init --store`). Events and artifacts go
//! through the ledger (byte for byte, chains checked); the project's other files travel here.

use camino::{Utf8Path, Utf8PathBuf};
use remaind_events::GENESIS_PREV;
use remaind_fs::layout::{ACTIVE_DIR, KEY_PATH, MEMORY_DIR, SCHEMAS_DIR};
use remaind_fs::{Entry, inspect};
use remaind_ledger::{Ledger, Options, StoreSetting};
use remaind_pg::Store;

use remaind_fs::ContextDir;

use crate::error::{Error, Result};

/// The files that make every machine validate and redact the same way. Sent when a push
/// creates the project; a folder joining or pulling a project takes the store's.
const CONFIG: [&str; 2] = [KEY_PATH, SCHEMAS_DIR];
/// The derived files and their history, sent and taken when they differ.
const DERIVED: [&str; 2] = [ACTIVE_DIR, MEMORY_DIR];

/// What a push, pull or join did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ShareReport {
    /// The folder.
    pub root: Utf8PathBuf,
    /// The store's project.
    pub project: String,
    /// Whether this call created the project in the store.
    pub created_project: bool,
    /// Events copied (0 when both sides already had them all).
    pub events: u64,
    /// Other files copied (rules, key, derived history).
    pub files: usize,
    /// The folder's head seq afterwards.
    pub head: u64,
}

/// The folder's ledger as it is on disk: moving a project between a folder and a store reads
/// and writes the folder itself, never through the store its `store.json` may name.
fn open_plain(root: &Utf8Path) -> Result<Ledger> {
    let plain = Options {
        store: Some(None),
        ..Options::default()
    };
    Ok(Ledger::open_with(root, &plain)?)
}

fn store_error(project: &str, e: remaind_pg::Error) -> Error {
    Error::Ledger(remaind_ledger::Error::Store {
        action: "share the project",
        project: project.to_owned(),
        source: e,
    })
}

/// Every regular file under the folder's `roots` (files or folders), with its path relative
/// to the folder. Temp files (names starting with `.`) are left out; a symlink or special file
/// is refused.
fn local_files(root: &Utf8Path, roots: &[&str]) -> Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    let mut stack: Vec<String> = roots.iter().map(|r| (*r).to_owned()).collect();
    while let Some(rel) = stack.pop() {
        let path = root.join(&rel);
        match inspect(&path)? {
            Entry::Missing => {}
            Entry::File => {
                if let Some(bytes) = remaind_fs::read_file(&path)? {
                    out.push((rel, bytes));
                }
            }
            Entry::Dir => {
                let entries = path.read_dir_utf8().map_err(|source| Error::List {
                    path: path.clone(),
                    source,
                })?;
                for entry in entries {
                    let entry = entry.map_err(|source| Error::List {
                        path: path.clone(),
                        source,
                    })?;
                    if !entry.file_name().starts_with('.') {
                        stack.push(format!("{rel}/{}", entry.file_name()));
                    }
                }
            }
            Entry::Special => {
                return Err(Error::Fs(remaind_fs::Error::NotAFile { path }));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Send the folder's files under `roots` that the store lacks or holds otherwise.
fn push_files(store: &mut Store, root: &Utf8Path, roots: &[&str]) -> Result<usize> {
    let project = store.project().to_owned();
    let stored = store.files("").map_err(|e| store_error(&project, e))?;
    let mut sent = 0;
    for (rel, bytes) in local_files(root, roots)? {
        let sha = remaind_hash::sha256_hex(&bytes);
        if !stored.iter().any(|(p, s)| *p == rel && *s == sha) {
            store
                .put_file(&rel, &bytes)
                .map_err(|e| store_error(&project, e))?;
            sent += 1;
        }
    }
    Ok(sent)
}

/// Write the store's files under `roots` that the folder lacks or holds otherwise
/// (atomically, each in its folder).
fn pull_files(store: &mut Store, root: &Utf8Path, roots: &[&str]) -> Result<usize> {
    let project = store.project().to_owned();
    let mut taken = 0;
    for (rel, sha) in store.files("").map_err(|e| store_error(&project, e))? {
        let wanted = roots
            .iter()
            .any(|r| rel == *r || rel.starts_with(&format!("{r}/")));
        if !wanted || rel.split('/').any(|part| part.is_empty() || part == "..") {
            continue;
        }
        let path = root.join(&rel);
        let same =
            remaind_fs::read_file(&path)?.is_some_and(|b| remaind_hash::sha256_hex(&b) == sha);
        if same {
            continue;
        }
        let Some(bytes) = store.file(&rel).map_err(|e| store_error(&project, e))? else {
            continue;
        };
        let (dir, name) = match rel.rsplit_once('/') {
            Some((dir, name)) => (root.join(dir), name),
            None => (root.to_owned(), rel.as_str()),
        };
        let mut made = root.to_owned();
        for part in dir.strip_prefix(root).unwrap_or(Utf8Path::new("")).iter() {
            made.push(part);
            remaind_fs::ensure_dir(&made, true)?;
        }
        remaind_fs::replace_file(&dir, name, &bytes)?;
        taken += 1;
    }
    Ok(taken)
}

/// Copy the folder's project to project `project` of the store at `url` (created when
/// missing, with the folder's key and rules): the events and artifacts the store lacks, byte
/// for byte, and the derived files that differ. Re-running copies only what is new; chains
/// that differ are refused naming the first differing seq. The folder is read as it is on
/// disk, whatever store its `store.json` names.
pub fn push(ctx: &ContextDir, url: &str, project: &str) -> Result<ShareReport> {
    let root = ctx.root();
    let ledger = open_plain(root)?;
    let config = local_files(root, &CONFIG)?;
    let (mut store, created) =
        Store::create(url, project, GENESIS_PREV, &config).map_err(|e| store_error(project, e))?;
    let events = ledger.push_to(&mut store)?;
    let files = push_files(&mut store, root, &DERIVED)? + if created { config.len() } else { 0 };
    Ok(ShareReport {
        root: root.to_owned(),
        project: project.to_owned(),
        created_project: created,
        events,
        files,
        head: ledger.head()?.0,
    })
}

/// Copy project `project` of the store at `url` into the folder (created when missing, with
/// the project's key and rules): the events and artifacts it lacks, byte for byte, and every
/// file that differs. Re-running copies only what is new; chains that differ are refused
/// naming the first differing seq.
pub fn pull(ctx: &ContextDir, url: &str, project: &str) -> Result<ShareReport> {
    let root = ctx.root();
    let mut store = Store::connect(url, project).map_err(|e| store_error(project, e))?;
    let mut files = 0;
    if !ctx.is_initialized() {
        // The project's key and rules first: init then keeps them and adds only what is
        // missing.
        if let Some(parent) = root.parent().filter(|p| !p.as_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| Error::CreateDir {
                path: parent.to_owned(),
                source,
            })?;
        }
        remaind_fs::ensure_dir(root, true)?;
        files += pull_files(&mut store, root, &CONFIG)?;
    }
    remaind_resume::init(ctx, true)?;
    let ledger = open_plain(root)?;
    let events = ledger.pull_from(&mut store)?;
    files += pull_files(&mut store, root, &CONFIG)?;
    files += pull_files(&mut store, root, &DERIVED)?;
    Ok(ShareReport {
        root: root.to_owned(),
        project: project.to_owned(),
        created_project: false,
        events,
        files,
        head: ledger.head()?.0,
    })
}

/// Make the folder (created when missing) a replica of project `project` of the store at
/// `url`: a new project is created from the folder (push); an existing one is joined (the
/// folder's events must be a prefix of the store's, which it then takes with the project's
/// key, rules and derived files). Then `store.json` names the store, so every command and
/// hook on this folder appends through it. The URL may not hold a password (`PGPASSWORD`).
pub fn join(ctx: &ContextDir, url: &str, project: &str) -> Result<ShareReport> {
    let setting = StoreSetting {
        url: url.to_owned(),
        project: project.to_owned(),
    };
    if remaind_pg::has_password(url) {
        // Refused before anything is written.
        setting.save(ctx.root())?;
    }
    // An unreachable store, a missing password or a role without privileges is refused
    // before the folder exists: a failed join leaves nothing behind.
    Store::check(url).map_err(|e| store_error(project, e))?;
    remaind_resume::init(ctx, false)?;
    let pushed = push(ctx, url, project)?;
    let mut report = if pushed.created_project {
        pushed
    } else {
        let pulled = pull(ctx, url, project)?;
        ShareReport {
            events: pushed.events + pulled.events,
            files: pushed.files + pulled.files,
            ..pulled
        }
    };
    setting.save(ctx.root())?;
    report.head = open_plain(ctx.root())?.head()?.0;
    Ok(report)
}
