//! The on-disk ledger as a [`LedgerView`], so the validator (and anyone else reading through
//! the trait) can read it without loading the log into memory.

use remaind_events::{Error as ViewError, Event, EventId, EventIter, LedgerView};

use crate::Ledger;
use crate::error::Error;

fn view_err(ledger: &Ledger, e: Error) -> ViewError {
    ViewError::read(ledger.log_path().to_string(), e)
}

/// Random access by offset for [`LedgerView::event`]; positional scans for
/// [`LedgerView::events_in`].
impl LedgerView for Ledger {
    fn head(&self) -> Result<u64, ViewError> {
        Ledger::head(self)
            .map(|(seq, _)| seq)
            .map_err(|e| view_err(self, e))
    }

    fn digest_at(&self, seq: u64) -> Result<Option<String>, ViewError> {
        Ledger::digest_at(self, seq).map_err(|e| view_err(self, e))
    }

    fn event(&self, id: EventId) -> Result<Option<Event>, ViewError> {
        self.get(id.seq()).map_err(|e| view_err(self, e))
    }

    fn events_in(&self, after_seq: u64, through_seq: u64) -> EventIter<'_> {
        let limit = usize::try_from(through_seq.saturating_sub(after_seq)).unwrap_or(usize::MAX);
        match self.range(after_seq + 1, limit, &remaind_events::Filter::default()) {
            Ok(events) => Box::new(
                events
                    .into_iter()
                    .filter(move |e| e.seq <= through_seq)
                    .map(Ok),
            ),
            Err(e) => Box::new(std::iter::once(Err(view_err(self, e)))),
        }
    }
}
