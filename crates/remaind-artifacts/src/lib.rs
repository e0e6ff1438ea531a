//! Content-addressed storage of large or binary payloads under `.context/artifacts/`.
//!
//! This layer owns the artifact folder: paths derived from the SHA-256 of the content only,
//! deduplicated writes, reads and hash verification. It knows nothing about redaction or
//! events; callers hand it bytes that are already redacted.
//!
//! Invariants: an artifact lives at `artifacts/<h[0..2]>/<h>` for `h` the lowercase hex SHA-256
//! of its bytes; a hash from a caller is validated (64 lowercase hex digits) before it becomes
//! part of a path; folders are 0700 and files 0600; writes are atomic (temp file, fsync, rename,
//! fsync the folder); no operation follows a symbolic link. It also sniffs media types and cuts
//! head and tail excerpts, the two things a caller needs to describe an artifact.

mod error;
mod sniff;
mod store;

pub use error::Error;
pub use sniff::{excerpts, sniff_media_type};
pub use store::{ArtifactStore, Content, Staged, StoredArtifact};
