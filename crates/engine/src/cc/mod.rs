//! Congestion control: a narrow trait fed with sample structs (Linux `ack_sample`/`rate_sample` style).
//!
//! The algorithm owns its window; the sender only reads `cwnd()` and reports what happened. Windows are in
//! packets (Linux `snd_cwnd`), so the per-algorithm fact sheets and kernel constants apply unchanged.

pub mod aimd;
pub mod common;
pub mod cubic;
pub mod highspeed;
pub mod newreno;
pub mod registry;
pub mod scalable;

use crate::time::{SimDuration, SimTime};

/// What one ACK told the sender, handed to the algorithm after the scoreboard has been updated.
#[derive(Clone, Debug, Default)]
pub struct AckSample {
    pub now: SimTime,
    /// Packets newly acknowledged cumulatively by this ACK (0 for a pure SACK/duplicate ACK).
    pub acked: u32,
    /// Packets newly SACKed by this ACK.
    pub sacked: u32,
    /// RTT measured by this ACK, when Karn's rule allows one.
    pub rtt: Option<SimDuration>,
    /// Smoothed RTT after this ACK (RFC 6298 SRTT), if any sample exists yet.
    pub srtt: Option<SimDuration>,
    /// Smallest RTT seen on the connection.
    pub min_rtt: Option<SimDuration>,
    /// Packets in flight (RFC 6675 pipe) before this ACK was processed.
    pub prior_in_flight: u32,
    /// Packets in flight after it.
    pub in_flight: u32,
    /// Whether the sender was limited by cwnd (Linux `tcp_is_cwnd_limited`); growth is allowed only then.
    pub cwnd_limited: bool,
    /// Whether the sender is in fast recovery or loss recovery (not Linux's Open state).
    pub in_recovery: bool,
    /// Cumulative ACK after this ACK (first unacknowledged segment).
    pub snd_una: u64,
    /// Next new segment to send. A round (one RTT of data) ends when `snd_una` passes the `snd_nxt`
    /// recorded at its start, as Linux Vegas counts rounds (`beg_snd_nxt`).
    pub snd_nxt: u64,
    /// Packets delivered so far, cumulatively or by SACK (monotone; `snd_una + sacked`).
    pub delivered: u64,
}

/// A loss episode starts (fast retransmit): the algorithm sets ssthresh and reduces its window.
#[derive(Clone, Debug)]
pub struct CongestionEvent {
    pub now: SimTime,
    /// Packets in flight when the loss was detected (RFC 5681 FlightSize).
    pub in_flight: u32,
    /// Smallest RTT seen on the connection (Westwood+'s RTTmin, H-TCP's RTTmin).
    pub min_rtt: Option<SimDuration>,
    /// Smoothed RTT when the loss was detected.
    pub srtt: Option<SimDuration>,
}

/// One named value of the algorithm's internal state, for traces (e.g. `w_max`).
pub type StateField = (&'static str, f64);

pub trait CongestionControl: Send {
    /// Canonical name (`newreno`, `cubic`, ...).
    fn name(&self) -> &'static str;

    /// Every ACK that acknowledges new data, in any state (Linux `pkts_acked`). For delay and rate samplers.
    fn on_ack_sample(&mut self, _sample: &AckSample) {}

    /// Window growth (Linux `cong_avoid`): called for ACKs that acknowledge new data while the sender is not
    /// in fast recovery.
    fn on_ack(&mut self, sample: &AckSample);

    /// Fast retransmit: set ssthresh (Linux `ssthresh()`) and the window to use during recovery.
    fn on_congestion_event(&mut self, event: &CongestionEvent);

    /// Fast recovery is over (the recovery point is acknowledged).
    fn on_recovery_exit(&mut self, now: SimTime);

    /// Retransmission timeout. `first_in_episode` is false for repeated backoffs of the same loss, on which
    /// Linux leaves ssthresh alone.
    fn on_timeout(&mut self, now: SimTime, first_in_episode: bool);

    /// Congestion window in packets, at least 1.
    fn cwnd(&self) -> u32;
    /// Slow-start threshold in packets.
    fn ssthresh(&self) -> u32;

    /// Pacing rate in bit/s, for algorithms that pace (BBR). `None`: send as the window allows.
    fn pacing_rate_bps(&self) -> Option<u64> {
        None
    }

    /// Internal state for traces, as `(name, value)` pairs with stable names.
    fn state(&self, _out: &mut Vec<StateField>) {}
}
