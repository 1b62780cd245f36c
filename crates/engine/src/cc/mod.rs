//! Congestion control: a narrow trait fed with sample structs (Linux `ack_sample`/`rate_sample` style).
//!
//! The algorithm owns its window; the sender only reads `cwnd()` and reports what happened. Windows are in
//! packets (Linux `snd_cwnd`), so the per-algorithm fact sheets and kernel constants apply unchanged.

pub mod aimd;
pub mod any;
pub mod bbr;
pub mod bic;
pub mod common;
pub mod compound;
pub mod cubic;
pub mod fast;
pub mod highspeed;
pub mod htcp;
pub mod hystart;
pub mod newreno;
pub mod ns2_slowdown;
pub mod ns2_window;
pub mod registry;
pub mod scalable;
pub mod vegas;
pub mod westwood;

pub use any::AnyCc;

use crate::rng::SimRng;
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
    /// Delivery-rate sample of this ACK (`tcp/rate.rs`), only for algorithms whose
    /// `wants_rate_samples()` is true; None otherwise.
    pub rate: Option<RateSample>,
}

/// One ACK's delivery-rate sample (Linux `struct rate_sample`; draft-cheng-iccrg-delivery-rate-estimation).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RateSample {
    /// Packets newly delivered (cumulatively ACKed or SACKed) by this ACK (`rs->acked_sacked`).
    pub acked_sacked: u32,
    /// Packets newly marked lost while this ACK was processed (`rs->losses`).
    pub losses: u32,
    /// Packets delivered over the sampling interval (`rs->delivered`); meaningful when `interval` > 0.
    pub delivered: u64,
    /// Sampling interval, max(send phase, ACK phase) (`rs->interval_us`); ZERO: no valid rate sample.
    pub interval: SimDuration,
    /// Connection's delivered count when the sampled segment was sent (`rs->prior_delivered`): rounds
    /// are counted by it.
    pub prior_delivered: u64,
    /// The sampled segment was sent while the sender was application-limited.
    pub is_app_limited: bool,
    /// Packets delivered and marked lost since the connection started (`tp->delivered`, `tp->lost`).
    pub total_delivered: u64,
    pub total_lost: u64,
    /// Time of the latest delivery (`tp->delivered_mstamp`).
    pub delivered_time: SimTime,
}

impl RateSample {
    /// Whether this ACK gave a delivery-rate sample.
    pub fn is_valid(&self) -> bool {
        self.interval > SimDuration::ZERO
    }
}

/// What the simulation tells an algorithm about its flow once, before the flow starts.
pub struct FlowContext {
    /// Bytes on the wire of a data packet (turns packet rates into bit/s for pacing).
    pub packet_size: u32,
    /// The flow's own random stream, derived from the run seed and the flow index.
    pub rng: SimRng,
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

    /// Linux 2.6 `min_cwnd()`: the floor of the recovery reduction, read right after
    /// `on_congestion_event` (so from the new ssthresh). The `linux-2.6` recovery mode sets cwnd to it at
    /// once, as ns-2.35 TCP-Linux does (`tcp-linux.cc`, `tcp_fastretrans_alert`). Default: ssthresh, what
    /// that code uses for a module without the hook (BIC, CUBIC, H-TCP in 2.6.22).
    fn min_cwnd(&self) -> u32 {
        self.ssthresh()
    }

    /// The sender's recovery rules write the window, as Linux 2.6's core code (and ns-2.35 TCP-Linux)
    /// writes `snd_cwnd`: only the `linux-2.6` recovery mode calls this, with min_cwnd() at recovery entry
    /// and the capped window at exit. The algorithm keeps its own bookkeeping consistent (Compound re-splits
    /// its two parts as its module does).
    fn set_cwnd(&mut self, cwnd: u32);

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

    /// Whether the sender should keep per-segment delivery-rate state and fill `AckSample::rate`. Read
    /// once when the sender is built; false keeps the per-packet path free of that bookkeeping.
    fn wants_rate_samples(&self) -> bool {
        false
    }

    /// The algorithm is holding its rate below what the network allows (BBR's PROBE_RTT), so rate
    /// samples must be marked application-limited (Linux BBR sets `tp->app_limited` there).
    fn marks_app_limited(&self) -> bool {
        false
    }

    /// Linux `snd_cwnd_clamp` (packets), given once before the flow starts when the flow has one. Return
    /// true if the algorithm applies it itself, as its Linux module does; the default returns false and
    /// the sender then withholds growth at the clamp (`SenderConfig::cwnd_clamp`).
    fn set_cwnd_clamp(&mut self, _clamp: u32) -> bool {
        false
    }

    /// Called once with the flow's packet size and random stream, before the flow starts.
    fn attach(&mut self, _ctx: FlowContext) {}

    /// Internal state for traces, as `(name, value)` pairs with stable names.
    fn state(&self, _out: &mut Vec<StateField>) {}
}
