//! Why a run cannot give a trustworthy result. A config the engine rejects is a `ConfigError` before the
//! run starts; this is what could only be found while running. No such error remains: the one there was,
//! a run scheduling more than 2^39 events, went with the insertion sequence in the event key (tie rule R,
//! `event.rs`). The type stays as the way such an error reaches the caller (`run_until`, and the
//! bindings' `SimulationError`), should one come back.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {}

impl fmt::Display for RunError {
    fn fmt(&self, _: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {}
    }
}

impl std::error::Error for RunError {}
