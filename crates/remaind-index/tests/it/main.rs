//! Integration tests of the index.

mod bounds;
mod common;
mod limit;
mod recall;
mod robustness;
mod search;
mod secrets;
mod slices;
mod status;
