//! Project keys for placeholders.

use crate::error::Error;

/// A fresh 32-byte placeholder key from the operating system's random number generator.
///
/// # Errors
///
/// [`Error::Random`] when the operating system cannot provide randomness.
pub fn try_generate_key() -> Result<[u8; 32], Error> {
    let mut key = [0u8; 32];
    getrandom::fill(&mut key).map_err(Error::Random)?;
    Ok(key)
}

/// A fresh 32-byte placeholder key from the operating system's random number generator.
///
/// # Panics
///
/// When the operating system cannot provide randomness; a key must never come from anything
/// weaker. Use [`try_generate_key`] to handle that case instead.
pub fn generate_key() -> [u8; 32] {
    match try_generate_key() {
        Ok(key) => key,
        Err(e) => panic!("cannot generate a redaction key: {e}"),
    }
}
