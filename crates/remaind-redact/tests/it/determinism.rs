//! determinism
