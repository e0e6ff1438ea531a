/// What went wrong with the shared store. Display says what failed; the cause is in
/// `source()`. No message ever holds the store URL's password.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The store URL does not parse or asks for something this build cannot do.
    #[error("the store URL {url} is not usable: {reason}")]
    Url {
        /// The URL with its password masked.
        url: String,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// The server could not be reached or refused the login.
    #[error("cannot connect to the store {url}{}", login_hint(role, source))]
    Connect {
        /// The URL with its password masked.
        url: String,
        /// The role the URL logs in as.
        role: String,
        /// The client's error.
        #[source]
        source: postgres::Error,
    },
    /// The role lacks a privilege a statement needs (SQLSTATE 42501).
    #[error(
        "cannot {action} in the store: the role {} lacks a privilege; {}",
        crate::grants::ident(role),
        crate::grants::privilege_hint(role, action, source)
    )]
    Privilege {
        /// What was being done, e.g. "migrate the schema".
        action: &'static str,
        /// The role the store logs in as.
        role: String,
        /// The server's error.
        #[source]
        source: postgres::Error,
    },
    /// A statement failed.
    #[error("cannot {action} in the store")]
    Query {
        /// What was being done, e.g. "read events".
        action: &'static str,
        /// The client's error.
        #[source]
        source: postgres::Error,
    },
    /// The project's name cannot name a project (see [`crate::project_name_problem`]).
    #[error("the project name {reason}")]
    ProjectName {
        /// The name as given.
        name: String,
        /// What is wrong with it and the fix.
        reason: String,
    },
    /// No project of this name exists in the store.
    #[error(
        "the store has no project {name:?}; create it with `remaind init --store URL --project {name}`"
    )]
    NoProject {
        /// The project's name.
        name: String,
    },
    /// Another writer appended first: the store's head is not the one the lines chain onto.
    #[error("the store's head moved to seq {head} (the lines chain onto seq {expected})")]
    HeadMoved {
        /// The store's head now.
        head: u64,
        /// The head the lines were built on.
        expected: u64,
    },
    /// The store refused lines that do not continue its chain (a client bug or a forged line).
    #[error("the store refused lines that do not continue its chain after seq {after}")]
    Chain {
        /// The head the lines were offered after.
        after: u64,
        /// The server's error.
        #[source]
        source: postgres::Error,
    },
    /// The search statement ran past its time on the server and was cancelled there.
    #[error(
        "the search ran longer than {seconds} s on the server and was cancelled there; \
         search for fewer or rarer words, or narrow it with --kind or --min-importance"
    )]
    SearchTimeout {
        /// The statement timeout, in seconds.
        seconds: u32,
    },
    /// Stored data is not what the store wrote (a chunk missing, a digest that does not match).
    #[error("the store's {what} is damaged: {reason}")]
    Corrupt {
        /// What is damaged, e.g. "artifact 3f…".
        what: String,
        /// How.
        reason: String,
    },
}

/// What to do when the login itself failed for want of a password (the cause, from
/// `source()`, says which).
fn login_hint(role: &str, source: &postgres::Error) -> String {
    let text = source.to_string();
    if text.contains("password missing") || text.contains("password authentication failed") {
        " (give the password in PGPASSWORD or ~/.pgpass, never in the URL)".to_owned()
    } else if source.code() == Some(&postgres::error::SqlState::INSUFFICIENT_PRIVILEGE) {
        format!(
            " (the role {} lacks a privilege; {})",
            crate::grants::ident(role),
            crate::grants::privilege_hint(role, "connect", source)
        )
    } else {
        String::new()
    }
}

impl Error {
    /// Whether the connection to the server was lost (the server restarted or went away, the
    /// network failed): a new connection may succeed where this one cannot.
    pub fn is_connection_lost(&self) -> bool {
        let source = match self {
            Error::Query { source, .. } | Error::Connect { source, .. } => source,
            _ => return false,
        };
        if source.is_closed() {
            return true;
        }
        match source.code() {
            // Connection exceptions (08…) and operator interventions (57P01 shutdown,
            // 57P02 crash shutdown, 57P03 cannot connect now).
            Some(code) => {
                let code = code.code();
                code.starts_with("08") || code.starts_with("57P")
            }
            // No server error at all: the socket failed.
            None => source.as_db_error().is_none(),
        }
    }

    /// This error with the role the store logs in as named in its hint.
    pub(crate) fn for_role(self, name: &str) -> Error {
        match self {
            Error::Privilege {
                action,
                role,
                source,
            } if role.is_empty() => Error::Privilege {
                action,
                role: name.to_owned(),
                source,
            },
            other => other,
        }
    }
}

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
