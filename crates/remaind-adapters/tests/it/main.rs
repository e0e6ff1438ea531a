//! Integration tests of the runtime adapters.

mod prop_import;
