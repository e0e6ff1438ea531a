//! The `.context/` layout and the file primitives every Remaind layer shares.
//!
//! This bottom layer owns two things, so that nobody else spells them: where everything lives
//! inside a `.context/` folder ([`layout`], [`ContextDir`]), and the few file operations the
//! invariants rest on: atomic replacement ([`replace_file`]: temp file, fsync, rename, fsync
//! the folder), folder sync ([`sync_dir`]), opens that never follow a symlink and never block
//! on a FIFO or device ([`open_file`], [`open_beneath`], [`read_file`]). The content hash is
//! `remaind-hash`'s. It knows nothing about events, state, redaction or the CLI.
//!
//! Invariants: every file created here is 0600 and every folder 0700; no operation follows a
//! symlink (one in the way is [`Error::Symlink`]); a special file where a regular one is
//! expected is [`Error::NotAFile`], reported without blocking; a replaced file is always
//! either its old or its new version; errors name the path, and the operating system's
//! reason is their [`source`](std::error::Error::source).
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let tmp = tempfile::tempdir()?;
//! # let root = camino::Utf8Path::from_path(tmp.path()).ok_or("non-UTF-8 temp dir")?;
//! use remaind_fs::{ContextDir, ensure_dir, read_file, replace_file};
//!
//! let ctx = ContextDir::new(root.join(".context"));
//! ensure_dir(ctx.root(), true)?;
//! ensure_dir(&ctx.active_dir(), true)?;
//! replace_file(&ctx.active_dir(), remaind_fs::layout::STATE_FILE, b"{}")?;
//! let bytes = read_file(&ctx.state_path())?.ok_or("state.json is missing")?;
//! assert_eq!(bytes, b"{}");
//!
//! std::os::unix::fs::symlink(ctx.state_path(), ctx.active_dir().join("link.json"))?;
//! assert!(matches!(
//!     read_file(&ctx.active_dir().join("link.json")),
//!     Err(remaind_fs::Error::Symlink { .. })
//! ));
//! # Ok(())
//! # }
//! ```

mod error;
pub mod failpoints;
mod file;
pub mod layout;

pub use error::{Error, Result};
#[cfg(feature = "failpoints")]
pub use file::injected;
pub use file::{
    Access, DIR_MODE, Entry, FILE_MODE, TEMP_PREFIX, append_line, clean_temps, create_new,
    create_temp, ensure_dir, exposed, inspect, open_beneath, open_dir, open_file, open_input,
    open_lock_file, place_if_unchanged, read_file, remove_file, rename_into_place, replace_file,
    sync_dir,
};
pub use layout::ContextDir;
