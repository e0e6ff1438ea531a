//! Integration tests for `remaind-artifacts`.

mod sniff;
mod store;
