//! Integration tests of the ledger.

mod common;
mod concurrency;
mod golden;
mod input;
mod integrity;
mod prop_fuzz_event_parser;
mod prop_own_fields;
mod reads;
mod recovery;
mod secrets;
mod shared;
