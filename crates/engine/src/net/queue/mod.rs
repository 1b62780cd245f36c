//! Queue disciplines, one file each behind the `Queue` trait.
//!
//! A `Queue` only stores, selects and drops (or ECN-marks) packets; the link owns the transmitter. The
//! link offers every arriving packet to `enqueue` (also when the transmitter is idle and the queue empty,
//! so that an AQM sees every arrival, as ns-2's `Queue::recv` does) and calls `dequeue` whenever the
//! transmitter is free. RED-like disciplines decide at enqueue time, CoDel-like ones at dequeue time;
//! packets a discipline drops at dequeue time are discarded inside it and counted in `counters()`.
//!
//! Lengths never include the packet on the wire: it has left the queue.

pub mod ared;
pub mod codel;
pub mod droptail;
pub mod fq_codel;
pub mod pie;
pub mod red;
pub mod registry;
pub mod timed_fifo;

pub use codel::Codel;
pub use droptail::DropTail;
pub use fq_codel::FqCodel;
pub use pie::Pie;
pub use red::Red;

use crate::net::packet::{Ecn, Packet};
use crate::rng::SimRng;
use crate::time::SimTime;

/// What a discipline did to the packets offered to it, cumulative since the start of the run.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct QueueCounters {
    /// Arrivals refused because the buffer was full (the hard `size` limit).
    pub overflow_drops: u64,
    /// Packets dropped by the active queue management before the buffer was full (RED's early drops,
    /// CoDel's and PIE's drops), at enqueue or at dequeue time.
    pub early_drops: u64,
    /// Packets marked CE instead of being dropped early (ECN, RFC 3168).
    pub ecn_marks: u64,
}

/// What a discipline needs to know about the link it feeds, given when it is built. Automatic settings
/// (adaptive RED's thresholds, the packet time used for RED's idle correction) derive from these.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LinkInfo {
    /// Transmission rate of the link in bit/s (the nominal or mean rate for a link whose rate varies).
    pub rate_bps: u64,
    /// Bytes on the wire of the scenario's data packets.
    pub packet_size: u32,
    /// One-way propagation delay of the link in ns (ns-2's RED derives its automatic EWMA weight from it).
    pub delay_ns: u64,
    /// Seed of the discipline's own random stream (RED's drop draws), taken through `rng()`. The builder
    /// derives it from the run seed and the link id, so that two links never share draws and a run is
    /// reproducible; disciplines without randomness ignore it.
    pub rng_seed: u64,
}

impl LinkInfo {
    /// The discipline's random stream.
    pub fn rng(&self) -> SimRng {
        SimRng::new(self.rng_seed, 0)
    }
}

/// Mark an ECN-capable packet CE instead of dropping it (RFC 3168 section 5). Returns false for a
/// packet that is not ECN-capable, which must then be dropped. A packet already marked CE is ECN-capable
/// and stays CE; it counts as marked, as in Linux's `INET_ECN_set_ce`.
pub fn mark_ce(pkt: &mut Packet) -> bool {
    match pkt.ecn {
        Ecn::NotEct => false,
        Ecn::Ect | Ecn::Ce => {
            pkt.ecn = Ecn::Ce;
            true
        }
    }
}

pub trait Queue: Send {
    /// Offer a packet that arrives at `now`. Returns it back if it is dropped (overflow or early drop;
    /// the discipline counts which). An ECN-capable packet may be accepted with its mark set to CE.
    fn enqueue(&mut self, now: SimTime, pkt: Packet) -> Result<(), Packet>;
    /// Take the next packet to transmit at `now`, or None if none is left (after any dequeue-time drops).
    fn dequeue(&mut self, now: SimTime) -> Option<Packet>;
    /// Packets waiting.
    fn len_packets(&self) -> usize;
    /// Bytes waiting.
    fn len_bytes(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len_packets() == 0
    }
    fn counters(&self) -> QueueCounters;
    /// The discipline's internal state for tracing, as (name, value) pairs (RED: `avg`, `max_p`). The
    /// names are stable; units are in the name or packets.
    fn state(&self, _out: &mut Vec<(&'static str, f64)>) {}
}
