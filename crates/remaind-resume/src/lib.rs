//! The lifecycle around the ledger: `init` and discovery of a `.context/` folder, the token
//! monitor, runtime framing, the resume packet and its gate, rollback of derived files, and
//! status.
//!
//! This layer composes the lower ones (the layout is `remaind-fs`'s, compaction is
//! `remaind-compact`'s); it does no printing and knows nothing about argument parsing or
//! terminals. Its entry points, one per job: [`init`], [`monitor`],
//! [`record_framing`], [`resume`] (packet + gate), [`rollback_to`], [`status`].
//!
//! Invariants: the latest user instruction in a packet always comes from the ledger, never
//! from derived state; the gate interrupts only on a mechanical reason it names; rollback
//! touches only derived files, through the history store, and can itself be undone.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let tmp = tempfile::tempdir()?;
//! # let root = camino::Utf8Path::from_path(tmp.path()).ok_or("non-UTF-8 temp dir")?;
//! use remaind_events::{Kind, NewEvent};
//! use remaind_ledger::Ledger;
//! use remaind_fs::ContextDir;
//! use remaind_resume::{Budget, init, resume};
//!
//! let ctx = ContextDir::new(root.join(".context"));
//! init(&ctx, false)?;
//! let ledger = Ledger::open(ctx.root())?;
//! ledger.append(NewEvent {
//!     kind: Some(Kind::UserMessage),
//!     text: Some("Add retries to the uploader".into()),
//!     ..NewEvent::default()
//! })?;
//! let packet = resume(&ctx, Budget::Configured)?;
//! assert!(packet.packet.contains("Add retries to the uploader"));
//! # Ok(())
//! # }
//! ```

mod conv;
mod counts;
mod error;
mod framing;
mod gate;
mod inert;
mod init;
mod inject;
mod inputs;
mod layout;
mod monitor;
mod packet;
mod rollback;
mod status;
mod thresholds;
mod tools;

pub use error::Error;
pub use framing::{FrameRequest, Framing, load_framing, observe_framing, record_framing};
pub use gate::{Confidence, Gate, NextTool, Penalty, Reason, ReasonCode};
pub use init::{InitReport, init};
pub use inject::session_context;
pub use inputs::derived_conflicts;
pub use monitor::{Action, Band, Reading, TokenSource, monitor};
pub use packet::{
    Budget, EndedTurn, InstructionSource, LatestInstruction, PlannedStep, Resume, Shown,
    build_packet, resume, show,
};
pub use rollback::{Point, Rollback, parse_time, rollback_points, rollback_to};
pub use status::{LastCompaction, Status, status};
