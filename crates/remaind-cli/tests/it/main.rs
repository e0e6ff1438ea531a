//! Integration tests of the `remaind` binary.

mod index_cli;
mod ledger_cli;
mod everyday;
mod lifecycle_cli;
