//! The lifecycle around the ledger: the `.context/` layout and `init`, compaction (the
//! built-in compactor and external candidates, committed only on the validator's verdict),
//! the token monitor, runtime framing, the resume packet and its gate, and rollback of
//! derived files.
//!
//! This layer composes the lower ones; it does no printing and knows nothing about argument
//! parsing or terminals.

mod error;
pub mod init;
pub mod layout;

pub use error::Error;
pub use layout::{ContextDir, discover};

mod conv;
pub mod demo;
pub mod framing;
pub mod gate;
mod inert;
pub mod inputs;
pub mod monitor;
pub mod packet;
pub mod rollback;
pub mod status;
pub mod thresholds;
pub mod tokens;
pub mod tools;
