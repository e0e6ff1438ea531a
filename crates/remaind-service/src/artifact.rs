//! Reading artifacts (`remaind artifact`): an artifact named by its hash, a unique prefix
//! of it, or the `[artifact:…]` marker an event carries, checked against its hash before
//! its bytes are handed back.

use remaind_artifacts::ArtifactStore;
use remaind_fs::ContextDir;

use crate::{Error, Result};

/// The bytes of the artifact `given` names (64 hex digits, a unique prefix of at least 8,
/// or an `[artifact:…]` marker), after checking they hash to its name.
pub fn artifact(ctx: &ContextDir, given: &str) -> Result<Vec<u8>> {
    let store = ArtifactStore::open(ctx.root())?;
    let hash = resolve(&store, given)?;
    store.verify(&hash)?;
    Ok(store.get(&hash)?)
}

/// The hashes of every stored artifact, sorted.
pub fn artifacts(ctx: &ContextDir) -> Result<Vec<String>> {
    Ok(ArtifactStore::open(ctx.root())?.list()?)
}

/// The full hash `given` names.
fn resolve(store: &ArtifactStore, given: &str) -> Result<String> {
    let hash = given.trim().to_ascii_lowercase();
    let hash = hash
        .strip_prefix("[artifact:")
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(&hash)
        .to_owned();
    if hash.len() < 8 || hash.len() > 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Error::NotAnArtifactId {
            given: given.to_owned(),
        });
    }
    if hash.len() == 64 {
        return Ok(hash);
    }
    let found: Vec<String> = store
        .list()?
        .into_iter()
        .filter(|h| h.starts_with(&hash))
        .collect();
    match found.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(Error::NoSuchArtifact { prefix: hash }),
        many => Err(Error::AmbiguousArtifact {
            prefix: hash,
            matches: many.to_vec(),
        }),
    }
}
