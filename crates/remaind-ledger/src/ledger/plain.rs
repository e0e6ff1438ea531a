//! A build without the shared store (cargo feature `store` off): the replica's crate-private
//! surface, in which no folder is ever a replica. A folder configured for a store is refused
//! when opened ([`Shared::connect`]): appending to it as a plain folder would fork it from
//! the store it is a replica of.

use std::convert::Infallible;
use std::marker::PhantomData;
use std::time::Duration;

use super::{Ledger, Locked};
use crate::StoreSetting;
use crate::error::{Error, Result};

/// A replica's connection: none can exist in this build.
pub(crate) enum Shared {}

impl Shared {
    /// Refuse a folder configured for a shared store.
    pub(crate) fn connect(setting: &StoreSetting) -> Result<Shared> {
        Err(Error::NoStoreSupport {
            project: setting.project.clone(),
        })
    }
}

/// An append in progress in a shared store: none can exist in this build.
pub(crate) struct Upload<'a>(Infallible, PhantomData<&'a ()>);

impl Ledger {
    /// The shared store's project this folder is a replica of: none in this build.
    pub fn store_project(&self) -> Option<&str> {
        None
    }

    /// The head seq (a plain folder: another process appends to the file itself).
    pub fn sync(&self, _wait: Duration) -> Result<u64> {
        Ok(self.head()?.0)
    }

    /// The bytes of a file in the shared store: none in this build.
    pub fn shared_file(&self, _path: &str) -> Result<Option<Vec<u8>>> {
        Ok(None)
    }

    pub(super) fn catch_up_from_store(
        &self,
        _locked: &Locked<'_>,
        _head: u64,
        _prev: String,
    ) -> Result<()> {
        Ok(())
    }

    pub(super) fn compare_with_store(&self, _report: &mut crate::VerifyReport) -> Result<()> {
        Ok(())
    }

    pub(super) fn under_store_lock<T>(
        &self,
        shared: &Shared,
        _locked: &Locked<'_>,
        _head: u64,
        _prev: String,
        _append: impl FnOnce(&Locked<'_>, u64, String, Option<Upload<'_>>) -> Result<T>,
    ) -> Result<T> {
        match *shared {}
    }

    pub(super) fn put_files(&self, up: &mut Upload<'_>, _files: &[(&str, &[u8])]) -> Result<()> {
        match up.0 {}
    }

    pub(super) fn publish_to_store(
        &self,
        up: Upload<'_>,
        _out: &[u8],
        _ends: &[usize],
        _artifacts: &[String],
    ) -> Result<()> {
        match up.0 {}
    }
}
