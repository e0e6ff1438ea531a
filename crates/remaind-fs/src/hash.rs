//! The one content hash: lowercase hex SHA-256.

use sha2::{Digest, Sha256};

/// Lowercase hex SHA-256 of `bytes`: artifact names, the ledger's chain, derived-file
/// bindings.
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
