//! The setting that makes a folder the replica of a shared store (`remaind-pg`). The
//! replica itself is `ledger/replica.rs` (cargo feature `store`).

use camino::Utf8Path;
use remaind_fs::layout::STORE_PATH;
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

impl StoreSetting {
    /// The store of the folder at `dir`: its `store.json`, else none (a plain folder). A
    /// ledger opened without [`Options::store`](crate::Options::store) writes through it.
    pub fn load(dir: &Utf8Path) -> Result<Option<StoreSetting>> {
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
        #[cfg(feature = "store")]
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
    #[cfg(feature = "store")]
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
}
