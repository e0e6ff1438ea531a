//! Integration tests of remaind-validate: golden fixtures, parser and schema units, and the
//! mutation property test.

mod canonical_bytes;
mod common;
mod golden_validate;
mod handover_parse;
mod incremental_reads;
mod memory_ledger;
mod prop_fuzz_validator;
mod prop_validator_mutations;
mod schema_agrees;
mod schema_fields;
