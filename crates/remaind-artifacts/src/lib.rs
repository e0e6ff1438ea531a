//! Content-addressed storage of large or binary payloads under `.context/artifacts/`.
//!
//! This layer owns the artifact folder: paths derived from the SHA-256 of the content only,
//! deduplicated writes, reads and hash verification. It knows nothing about redaction or
//! events; callers hand it bytes that are already redacted.
