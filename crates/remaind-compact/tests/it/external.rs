//! External candidates: folders and commands.
