//! A folder that is the replica of a shared store (`remaind-pg`): the setting that names the
//! store, and the source a replica catches up from.

use std::sync::{Mutex, OnceLock};

use camino::Utf8Path;
use remaind_fs::layout::{PROJECT_ENV, STORE_ENV, STORE_PATH};
use remaind_pg::{Append, Head, Store};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The shared store a folder's ledger writes through: a `postgres://` URL (its password, if
/// any, comes from `PGPASSWORD`, never from a file) and the project's name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreSetting {
    /// `postgres://user@host:port/database[?sslmode=…]`.
    pub url: String,
    /// The project's name in the store.
    pub project: String,
}

/// What [`StoreSetting::select`] chose for this process, if it was called.
static SELECTED: OnceLock<Option<StoreSetting>> = OnceLock::new();

impl StoreSetting {
    /// Choose the store of every ledger this process opens, over the environment and the
    /// folder's `store.json`: `Some` for a command given `--store`, `None` for one that
    /// handles the store itself (`init --store`, `push`, `pull`) and opens folders plainly.
    /// The first call wins; later ones are ignored.
    pub fn select(setting: Option<StoreSetting>) {
        let _ = SELECTED.set(setting);
    }

    /// The store of the folder at `dir`: the one [`StoreSetting::select`] chose, else
    /// `REMAIND_STORE` with `REMAIND_PROJECT` when set, else the folder's `store.json`, else
    /// none (a plain folder).
    pub fn load(dir: &Utf8Path) -> Result<Option<StoreSetting>> {
        if let Some(selected) = SELECTED.get() {
            return Ok(selected.clone());
        }
        if let Ok(url) = std::env::var(STORE_ENV)
            && !url.is_empty()
        {
            let project = std::env::var(PROJECT_ENV).unwrap_or_default();
            if project.is_empty() {
                return Err(Error::invalid(
                    PROJECT_ENV,
                    format!("must name the project when {STORE_ENV} names a store"),
                ));
            }
            return Ok(Some(StoreSetting { url, project }));
        }
        let path = dir.join(STORE_PATH);
        let Some(bytes) =
            crate::ledger::read_regular(&path).map_err(|e| Error::io(&path, "cannot read", e))?
        else {
            return Ok(None);
        };
        let setting: StoreSetting = serde_json::from_slice(&bytes).map_err(|e| Error::Config {
            path: path.clone(),
            reason: "is not {\"url\": \"postgres://…\", \"project\": \"…\"}".into(),
            source: Some(Box::new(e)),
        })?;
        if remaind_pg::has_password(&setting.url) {
            return Err(Error::Config {
                path,
                reason: "holds a password; remove it and set PGPASSWORD instead".into(),
                source: None,
            });
        }
        Ok(Some(setting))
    }

    /// Write the setting to the folder's `store.json` (atomically). A URL with a password is
    /// refused: a password never goes to disk.
    pub fn save(&self, dir: &Utf8Path) -> Result<()> {
        if remaind_pg::has_password(&self.url) {
            return Err(Error::invalid(
                "store",
                format!(
                    "{} holds a password, which would be written to {STORE_PATH}; leave it \
                     out of the URL and set PGPASSWORD",
                    remaind_pg::mask_password(&self.url)
                ),
            ));
        }
        let mut text = serde_json::to_vec_pretty(self)
            .map_err(|e| Error::invalid("store", format!("cannot be serialized: {e}")))?;
        text.push(b'\n');
        remaind_fs::replace_file(dir, STORE_PATH, &text)?;
        Ok(())
    }

    /// Create this setting's project in its store when missing (an empty chain and no files;
    /// `remaind init --store` also shares the folder's key and rules), then save the setting
    /// in `dir`, whose ledger, empty or a prefix of the project's, becomes its replica.
    /// Returns whether the project was created.
    pub fn create_and_save(&self, dir: &Utf8Path) -> Result<bool> {
        let (_, created) =
            Store::create(&self.url, &self.project, remaind_events::GENESIS_PREV, &[])
                .map_err(|e| store_error("create the project", &self.project, e))?;
        self.save(dir)?;
        Ok(created)
    }
}

/// The open connection of a replica.
pub(crate) struct Shared {
    pub(crate) store: Mutex<Store>,
    pub(crate) project: String,
    /// The store's URL, its password masked (named in messages).
    pub(crate) url: String,
    /// The setting it was opened with (to connect again after a lost connection).
    pub(crate) setting: StoreSetting,
}

impl Shared {
    pub(crate) fn connect(setting: &StoreSetting) -> Result<Shared> {
        let store = Store::connect(&setting.url, &setting.project)
            .map_err(|e| store_error("connect", &setting.project, e))?;
        Ok(Shared {
            store: Mutex::new(store),
            project: setting.project.clone(),
            url: remaind_pg::mask_password(&setting.url),
            setting: setting.clone(),
        })
    }

    /// Replace a connection that was lost with a new one.
    pub(crate) fn reconnect(&self, store: &mut Store) -> Result<()> {
        *store = Store::connect(&self.setting.url, &self.setting.project)
            .map_err(|e| store_error("reconnect", &self.project, e))?;
        Ok(())
    }
}

pub(crate) fn store_error(action: &'static str, project: &str, source: remaind_pg::Error) -> Error {
    Error::Store {
        action,
        project: project.to_owned(),
        source,
    }
}

/// Where a replica reads the lines and artifacts it lacks: the store, or an append in
/// progress (under the project's lock).
pub(crate) trait Upstream {
    fn head_and_stray(&mut self) -> remaind_pg::Result<(Head, Option<u64>)>;
    fn lines(
        &mut self,
        after: u64,
        upto: u64,
        limit: usize,
    ) -> remaind_pg::Result<Vec<(u64, Vec<u8>)>>;
    fn artifact(&mut self, sha256: &str) -> remaind_pg::Result<Option<Vec<u8>>>;
}

impl Upstream for Store {
    fn head_and_stray(&mut self) -> remaind_pg::Result<(Head, Option<u64>)> {
        Store::head_and_stray(self)
    }
    fn lines(
        &mut self,
        after: u64,
        upto: u64,
        limit: usize,
    ) -> remaind_pg::Result<Vec<(u64, Vec<u8>)>> {
        Store::lines(self, after, upto, limit)
    }
    fn artifact(&mut self, sha256: &str) -> remaind_pg::Result<Option<Vec<u8>>> {
        Store::artifact(self, sha256)
    }
}

impl Upstream for Append<'_> {
    fn head_and_stray(&mut self) -> remaind_pg::Result<(Head, Option<u64>)> {
        Append::head_and_stray(self)
    }
    fn lines(
        &mut self,
        after: u64,
        upto: u64,
        limit: usize,
    ) -> remaind_pg::Result<Vec<(u64, Vec<u8>)>> {
        Append::lines(self, after, upto, limit)
    }
    fn artifact(&mut self, sha256: &str) -> remaind_pg::Result<Option<Vec<u8>>> {
        Append::artifact(self, sha256)
    }
}
