//! Why a run cannot give a trustworthy result. A config the engine rejects is a `ConfigError` before the
//! run starts; this is what can only be found while running.

use crate::event::MAX_EVENTS_SCHEDULED;
use crate::time::SimTime;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// More events were scheduled than the event queue can number (`event::MAX_EVENTS_SCHEDULED`, 2^39);
    /// past that, events due at the same instant may fire out of order, so the run is refused.
    /// `scheduled` is the count when the run noticed, `at` the simulated time it had reached.
    EventSequenceExhausted { scheduled: u64, at: SimTime },
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::EventSequenceExhausted { scheduled, at } => write!(
                f,
                "the run scheduled {scheduled} events by simulated time {at}, more than the {MAX_EVENTS_SCHEDULED} (2^39) the \
                 event queue can keep in order; split it into shorter runs (run.duration) or fewer flows"
            ),
        }
    }
}

impl std::error::Error for RunError {}
