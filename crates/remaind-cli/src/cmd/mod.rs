//! One module per subcommand: its clap arguments and a `run` that makes one library call and
//! formats the result.

pub(crate) mod init;
