//! The one error type of this layer, and the tool-level failure a call reports to the model.

/// What can stop the server itself (not a single tool call: those become tool errors).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The async runtime could not start.
    #[error("cannot start the MCP server's runtime")]
    Runtime(#[source] std::io::Error),
    /// The MCP session failed to start or broke off (stdin/stdout closed mid-message).
    #[error("the MCP session on stdio failed: {reason}")]
    Session {
        /// What rmcp reported.
        reason: String,
    },
}

/// Why one tool call failed: shown to the model as a tool error (`isError: true`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolError {
    /// One line naming the field and the fix, or the runtime failure.
    pub(crate) message: String,
    /// True when the caller's input was at fault (nothing was written).
    pub(crate) invalid_input: bool,
}

impl ToolError {
    /// The caller's input was at fault: `field` names it.
    pub(crate) fn invalid(field: &str, reason: impl std::fmt::Display) -> Self {
        ToolError {
            message: format!("invalid input: field `{field}`: {reason}"),
            invalid_input: true,
        }
    }

    /// A failure of a library call, classified by `invalid` and shown with its causes.
    pub(crate) fn from_lib(err: &(dyn std::error::Error + 'static), invalid: bool) -> Self {
        let message = chain(err);
        ToolError {
            message: if invalid {
                format!("invalid input: {message}")
            } else {
                message
            },
            invalid_input: invalid,
        }
    }
}

/// An error and its causes on one line; a cause already quoted by its parent is not repeated
/// (some layers still print their source in Display).
pub(crate) fn chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut out = err.to_string();
    let mut cur = err.source();
    while let Some(e) = cur {
        let msg = e.to_string();
        if !out.contains(&msg) {
            out.push_str(": ");
            out.push_str(&msg);
        }
        cur = e.source();
    }
    out
}

macro_rules! lib_error {
    ($($ty:ty),*) => {$(
        impl From<$ty> for ToolError {
            fn from(err: $ty) -> Self {
                let invalid = err.is_invalid_input();
                ToolError::from_lib(&err, invalid)
            }
        }
    )*};
}

lib_error!(
    remaind_ledger::Error,
    remaind_index::Error,
    remaind_compact::Error,
    remaind_resume::Error
);
lib_error!(remaind_service::Error);

/// Finding the folder: no error of `remaind-fs` is the caller's input.
impl From<remaind_fs::Error> for ToolError {
    fn from(err: remaind_fs::Error) -> Self {
        ToolError::from_lib(&err, false)
    }
}
