//! Integration tests of remaind-compact: the built-in compactor, external candidates and
//! the commit path.

mod builtin;
mod commit;
mod common;
mod external;
mod props;
mod shared;
