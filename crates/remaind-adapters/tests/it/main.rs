//! Integration tests of the runtime adapters.

mod beside_writers;
mod follow_limits;
mod prop_import;
