//! Integration tests of remaind-service: the integrity report and the hook runner, called as
//! a front-end calls them. The CLI's suite runs the same jobs through the binary.

mod hook;
mod integrity;
