//! Recall at the moment it matters: the few past events that bear on the prompt a user just
//! wrote ([`for_prompt`]), and the history of a file the agent is about to read or edit
//! ([`for_file`]), as short cited text a hook adds to the agent's context.
//!
//! Each recall stays within its token budget, says nothing when nothing bears on the moment
//! (a prompt with no distinctive word, a file with no history), and never gives a session an
//! event it already holds: the events its packet cited when it started ([`session_started`]),
//! the events of the session itself, and everything recalled since. Settings (on by default,
//! budgets, the relevance threshold) are the `recall` section of `schemas/thresholds.json`.
//!
//! This layer reads the ledger through the index and keeps one small file per session under
//! `db/recall/`; it knows nothing of hook payloads, runtimes or output formats (the CLI's
//! hooks carry the text to the runtime), and it never appends to the ledger.
//!
//! ```no_run
//! use camino::Utf8Path;
//! use remaind_ledger::Ledger;
//!
//! let dir = Utf8Path::new(".context");
//! let ledger = Ledger::open(dir)?;
//! if let Some(recalled) = remaind_recall::for_prompt(&ledger, "session-1", "why is the store slow?")? {
//!     println!("{}", recalled.text);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;
mod file;
mod prompt;
mod render;
mod session;
mod settings;

use camino::Utf8Path;
use remaind_ledger::LogReader;

pub use error::{Error, Result};
pub use file::for_file;
pub use prompt::for_prompt;
pub use settings::Settings;

/// What one recall gives the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Recalled {
    /// The text to add to the agent's context: a heading, then one cited line per event.
    pub text: String,
    /// The events it cites, in the order shown.
    pub events: Vec<u64>,
    /// Its size in bytes: never more than the budget, and a bound on its tokens in any
    /// vocabulary (a token is at least one byte).
    pub bytes: u64,
}

/// Records that a session started (or resumed after a compaction) holding `injected`, the
/// packet it was given: the events it cites (`[eN]`) are not recalled to this session, nor
/// are the events appended from now on by the session itself (it saw them happen). Call it
/// after a SessionStart hook printed the packet; it starts the session's record over (and
/// does nothing when both recalls are off).
pub fn session_started(context_dir: &Utf8Path, session: &str, injected: &str) -> Result<()> {
    let settings = Settings::load(context_dir)?;
    if !settings.prompt && !settings.files {
        // Nothing will be recalled: nothing to keep.
        return Ok(());
    }
    let head = LogReader::open(context_dir)?.head()?.0;
    session::start(context_dir, session, head, injected)
}
