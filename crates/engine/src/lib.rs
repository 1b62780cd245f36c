//! cclab-engine: a packet-level discrete-event simulator for TCP congestion control.
//!
//! The engine schedules events and moves packets; TCP endpoints are sans-IO state machines; congestion
//! control algorithms sit behind a narrow trait. No Python here: the bindings crate wraps `Simulation`.

pub mod cc;
pub mod config;
pub mod event;
mod hint;
pub mod histogram;
pub mod net;
pub mod receipts;
pub mod rng;
pub mod run_error;
pub mod sim;
pub mod spare;
pub mod stats;
pub mod tcp;
pub mod time;
pub mod traffic;

pub use config::{ConfigError, ScenarioConfig};
pub use run_error::RunError;
pub use sim::Simulation;
pub use stats::Summary;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// FNV-1a 64 of the engine's source files (build.rs): changes whenever the engine does.
pub const SOURCE_HASH: &str = env!("CCLAB_ENGINE_SOURCE_HASH");
