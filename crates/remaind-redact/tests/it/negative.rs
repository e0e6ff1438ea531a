//! negative
