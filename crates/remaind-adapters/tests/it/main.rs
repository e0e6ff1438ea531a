//! Integration tests of the runtime adapters.

mod beside_writers;
mod prop_import;
