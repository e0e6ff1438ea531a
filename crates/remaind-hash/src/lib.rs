//! The one content hash: lowercase hex SHA-256.
//!
//! This bottom layer owns how Remaind names content: the ledger's hash chain, artifact names,
//! the binding of a handover to its state and of a state to a log prefix all use
//! [`sha256_hex`]. It has one dependency (`sha2`) and knows nothing of files, events or state,
//! so the event model and the validator get it without the file primitives.
//!
//! ```
//! use remaind_hash::{is_sha256_hex, sha256_hex};
//!
//! let digest = sha256_hex(b"{}");
//! assert_eq!(
//!     digest,
//!     "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
//! );
//! assert!(is_sha256_hex(&digest));
//! assert!(!is_sha256_hex("44136FA3"));
//! ```

use sha2::{Digest, Sha256};

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 15)]));
    }
    out
}

/// Whether `s` is 64 lowercase hex digits, the shape of [`sha256_hex`]'s output.
pub fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}
