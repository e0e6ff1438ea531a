//! Integration tests of the memory layer: the tree of a fixture project, proposal sequences
//! and the files they leave, hand edits, and the properties of ids and projections.

mod common;
mod golden;
mod props;
mod sequences;
