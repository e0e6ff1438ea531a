//! One integrity report for `remaind verify` and the viewer's Integrity page.

use remaind_fs::ContextDir;
use remaind_ledger::{Ledger, Options, VerifyReport};
use remaind_resume::Reason;
use serde::Serialize;

use crate::Result;

/// What [`integrity`] found. The derived files and the memory files are checked only
/// against a ledger that holds (a broken ledger is the first thing to fix).
#[derive(Debug, Clone, Serialize)]
pub struct Integrity {
    /// The ledger's own check: every line, the hash chain, the head anchor, the artifacts.
    #[serde(flatten)]
    pub ledger: VerifyReport,
    /// Derived files that disagree with the compaction events that wrote them.
    pub derived: Vec<Reason>,
    /// Why the memory files lag the ledger (or could not be checked), if they do.
    pub memory_lag: Option<String>,
    /// Entries of `.context/` another user could change, or that are symlinks, each with
    /// its fix.
    pub permissions: Vec<String>,
}

impl Integrity {
    /// True when nothing at all was found.
    pub fn is_ok(&self) -> bool {
        self.first_problem().is_none()
    }

    /// The finding to name first, with how many there are in all: the ledger's, then the
    /// derived files', then the permissions', then the memory files' lag.
    pub fn first_problem(&self) -> Option<String> {
        let derived = self.derived.len() as u64;
        if let Some(first) = self.ledger.problems.first() {
            return Some(format!(
                "{first} ({} problem(s) in all)",
                self.ledger.problem_count + derived
            ));
        }
        if let Some(reason) = self.derived.first() {
            return Some(format!(
                "derived files disagree with the ledger: {} ({derived} problem(s) in all)",
                reason.message
            ));
        }
        if let Some(first) = self.permissions.first() {
            return Some(format!(
                "{first} ({} problem(s) in all)",
                self.permissions.len()
            ));
        }
        self.memory_lag
            .as_ref()
            .map(|lag| format!("the memory files lag the ledger: {lag}"))
    }
}

/// Checks the folder: the ledger (opened as `verify` opens it: a log whose head anchor
/// disagrees is reported, not refused), then, if it holds, the derived files and the memory
/// files against it; and the folder's permissions whatever the ledger says.
pub fn integrity(ctx: &ContextDir) -> Result<Integrity> {
    let to_verify = Options {
        to_verify: true,
        ..Options::default()
    };
    let ledger = Ledger::open_with(ctx.root(), &to_verify)?.verify()?;
    let (derived, memory_lag) = if ledger.is_ok() {
        (remaind_resume::derived_conflicts(ctx)?, memory_lag(ctx))
    } else {
        (Vec::new(), None)
    };
    Ok(Integrity {
        ledger,
        derived,
        memory_lag,
        permissions: remaind_fs::exposed(ctx.root()),
    })
}

/// The memory files are derived too: a command stopped between recording an action and
/// rewriting them leaves them behind the ledger until the next memory command. Unreadable (a
/// symlink, say) is a finding like any other, named with its cause.
fn memory_lag(ctx: &ContextDir) -> Option<String> {
    match remaind_memory::lag(ctx) {
        Ok(lag) => lag.map(|why| {
            format!(
                "{why}; any memory command (`remaind memory list`) rewrites them from the ledger"
            )
        }),
        Err(e) => Some(format!("cannot be checked: {}", chain(&e))),
    }
}

/// An error with its causes, `: `-joined.
pub(crate) fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}
