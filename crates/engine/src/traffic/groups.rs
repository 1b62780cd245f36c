//! Figures of a group of flows (a name given in the scenario: "background", "long-lived"), kept in
//! memory that does not grow with the number of flows: counts, bytes, and completion times in a
//! log-linear histogram.

use crate::histogram::LogHistogram;

/// Completion times, ns, to within 1/128 of themselves (7 bits of sub-buckets); a percentile, reported at
/// its bucket's middle, to within 1/256 (0.4 %).
pub type CompletionHistogram = LogHistogram<7>;

/// A group's running figures.
#[derive(Clone, Debug, Default)]
pub struct GroupStats {
    pub name: String,
    /// The capacity its share is measured against: the slowest link on its data route, bit/s.
    pub capacity_bps: u64,
    /// Flows opened (a group's static flows count from the start of the run).
    pub created: u64,
    /// Transfers whose last byte was acknowledged.
    pub completed: u64,
    /// Completion times of transfers completed in the measurement window.
    pub completion: CompletionHistogram,
    /// Payload bytes delivered by connections whose slot was given back.
    pub retired_bytes: u64,
    /// Payload bytes delivered by the group at the start of the measurement window.
    pub bytes_at_measure: u64,
    /// Transfers completed before the measurement window.
    pub completed_at_measure: u64,
    /// Connections a source could not open because every flow slot was taken.
    pub refused: u64,
}
