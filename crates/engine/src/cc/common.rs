//! Pieces shared by the algorithms: the window with Linux's growth counter, slow start, additive
//! increase, the Linux 2.6 delayed-ACK ratio estimator of BIC and CUBIC, and an exact integer cube root.

use super::AckSample;
use crate::time::SimDuration;
use serde::{Deserialize, Serialize};

/// "Infinite" initial ssthresh (Linux `TCP_INFINITE_SSTHRESH`).
pub const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

/// How ACKs are counted for window growth (see the fact sheet, §1.6).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Counting {
    /// One increment step per ACK, whatever it covers (Linux <= 3.x without ABC; ns-2.35 TCP-Linux).
    Acks,
    /// Weighted by the number of packets the ACK covers (Linux >= 4.0, RFC 5681 with ABC).
    Packets,
}

impl Counting {
    /// Units credited to the growth counter by an ACK covering `acked` packets.
    pub fn units(self, acked: u32) -> u32 {
        match self {
            Counting::Acks => u32::from(acked > 0),
            Counting::Packets => acked,
        }
    }
}

/// Which RTT an algorithm's delay estimators (RTTmin, RTTmax) read (H-TCP, Westwood+).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RttSource {
    /// The smoothed RTT (`tp->srtt >> 3`), as Linux 2.6.22 H-TCP and Westwood+ read it.
    Srtt,
    /// The RTT measured by this ACK (later kernels' `pkts_acked` sample; the papers' RTT samples).
    Sample,
}

impl RttSource {
    /// The RTT this ACK offers, if any.
    pub fn of(self, sample: &AckSample) -> Option<SimDuration> {
        match self {
            RttSource::Srtt => sample.srtt,
            RttSource::Sample => sample.rtt,
        }
    }
}

/// Nanoseconds (a `SimTime` or `SimDuration`) in Linux jiffies of 1 ms, as ns-2.35 TCP-Linux counts
/// `tcp_time_stamp`: whole milliseconds, truncated.
pub fn jiffies(ns: u64) -> u64 {
    ns / 1_000_000
}

/// Linux 2.6.22 `tcp_reno_min_cwnd` (`tcp_cong.c`; ns-2.35 `tcp/linux/src/tcp_cong.c` line 375): the
/// window a 2.6-era module with this hook falls to at the start of a recovery, half of the new ssthresh.
/// Only the sender's `linux-2.6` mode reads `min_cwnd()`.
pub fn reno_min_cwnd(ssthresh: u32) -> u32 {
    ssthresh / 2
}

/// Congestion window in packets with Linux's fractional-growth counter (`snd_cwnd_cnt`).
#[derive(Clone, Debug)]
pub struct Window {
    pub cwnd: u32,
    /// Growth counter: cwnd grows by one each time it reaches the current step size.
    pub cwnd_cnt: u32,
    pub ssthresh: u32,
}

impl Window {
    pub fn new(initial_cwnd: u32, initial_ssthresh: u32) -> Self {
        Window { cwnd: initial_cwnd.max(1), cwnd_cnt: 0, ssthresh: initial_ssthresh.max(2) }
    }

    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Slow start (RFC 5681): +1 packet per counted unit, stopping at ssthresh. Returns the units left over
    /// for congestion avoidance in the same ACK (Linux >= 4.x behaviour; with per-ACK counting the
    /// leftover is 0 or 1 and the single unit is spent here).
    pub fn slow_start(&mut self, units: u32) -> u32 {
        let target = self.cwnd.saturating_add(units).min(self.ssthresh);
        let used = target.saturating_sub(self.cwnd);
        self.cwnd = target;
        units - used
    }

    /// Additive increase: +1 packet per `w` counted units (Linux `tcp_cong_avoid_ai`).
    pub fn additive_increase(&mut self, w: u32, units: u32) {
        let w = w.max(1);
        if self.cwnd_cnt >= w {
            // The step shrank since the counter was filled: credit one packet now (as Linux does).
            self.cwnd_cnt = 0;
            self.cwnd += 1;
        }
        self.cwnd_cnt += units;
        if self.cwnd_cnt >= w {
            let delta = self.cwnd_cnt / w;
            self.cwnd_cnt -= delta * w;
            self.cwnd += delta;
        }
    }

    /// The growth step shared by the Reno family: returns `None` when this ACK is spent on slow start (or
    /// growth is not allowed: not cwnd-limited, nothing acknowledged), else the units to credit to
    /// congestion avoidance. With `Counting::Acks` (Linux 2.6) slow start runs while cwnd <= ssthresh, +1
    /// per ACK, and an ACK counts 1 unit; with `Counting::Packets` (Linux >= 4) slow start stops at ssthresh
    /// and the leftover packets of the same ACK go to congestion avoidance.
    pub fn slow_start_or_units(&mut self, counting: Counting, sample: &AckSample) -> Option<u32> {
        if !sample.cwnd_limited || sample.acked == 0 {
            return None;
        }
        match counting {
            Counting::Acks if self.in_slow_start_2_6() => {
                self.slow_start_per_ack();
                None
            }
            Counting::Acks => Some(1),
            Counting::Packets => {
                let units = if self.in_slow_start() { self.slow_start(sample.acked) } else { sample.acked };
                (units > 0).then_some(units)
            }
        }
    }

    /// Linux 2.6 slow start without ABC: +1 packet per ACK while cwnd <= ssthresh (note the `<=`, and no
    /// cap at ssthresh: the window may end one above it).
    pub fn slow_start_per_ack(&mut self) {
        self.cwnd += 1;
    }
    pub fn in_slow_start_2_6(&self) -> bool {
        self.cwnd <= self.ssthresh
    }

    /// Linux 2.6 per-ACK increase used by BIC/CUBIC: +1 packet once `cnt` ACKs have been counted, i.e. one
    /// packet per `cnt + 1` ACKs (the 2.6.22 `snd_cwnd_cnt >= cnt` test happens before the increment).
    pub fn increase_every(&mut self, cnt: u32) {
        if self.cwnd_cnt >= cnt {
            self.cwnd += 1;
            self.cwnd_cnt = 0;
        } else {
            self.cwnd_cnt += 1;
        }
    }

    /// Multiplicative decrease on a loss: ssthresh = max(factor(cwnd), 2); the window then drops to it
    /// (RFC 6675 step 4.2 and ns-2 TCP-Linux both set cwnd = ssthresh at the start of recovery).
    pub fn reduce_to(&mut self, ssthresh: u32) {
        self.ssthresh = ssthresh.max(2);
        self.cwnd = self.ssthresh;
        self.cwnd_cnt = 0;
    }

    /// After a retransmission timeout: loss window of one packet (RFC 5681 section 3.1).
    pub fn timeout(&mut self, ssthresh: Option<u32>) {
        if let Some(s) = ssthresh {
            self.ssthresh = s.max(2);
        }
        self.cwnd = 1;
        self.cwnd_cnt = 0;
    }

    /// Recovery is over: deflate to ssthresh (RFC 6675 / 6582 "full ACK").
    pub fn exit_recovery(&mut self) {
        self.cwnd = self.ssthresh.max(1);
        self.cwnd_cnt = 0;
    }

    /// The sender's `linux-2.6` recovery rules set the window (`CongestionControl::set_cwnd`); the growth
    /// counter is left alone, as ns-2.35 TCP-Linux leaves `snd_cwnd_cnt` at recovery exit.
    pub fn set_cwnd(&mut self, cwnd: u32) {
        self.cwnd = cwnd.max(1);
    }
}

/// Linux 2.6.2x BIC and CUBIC estimate of packets per ACK (`delayed_ack`, kept << 4): an EWMA with gain
/// 1/16, updated by ACKs in the Open state (`bictcp_acked`), that turns a growth step counted in packets
/// into one counted in ACKs, since those kernels grow per ACK (fact sheet §1.6, §2.6).
///
/// It starts at 2 packets per ACK. With every packet acknowledged it settles at 31/16, not 16/16: the
/// update d += acked - d/16 stops once the integer d/16 equals acked, which from above is at 16 acked + 15.
#[derive(Clone, Debug)]
pub struct DelayedAckRatio {
    packets_per_ack_x16: u32,
}

impl Default for DelayedAckRatio {
    fn default() -> Self {
        DelayedAckRatio { packets_per_ack_x16: 2 << Self::SHIFT }
    }
}

impl DelayedAckRatio {
    /// Fixed-point shift (`ACK_RATIO_SHIFT`).
    const SHIFT: u32 = 4;

    /// One ACK that acknowledged `acked` packets in the Open state.
    pub fn sample(&mut self, acked: u32) {
        self.packets_per_ack_x16 = self.packets_per_ack_x16 - (self.packets_per_ack_x16 >> Self::SHIFT) + acked;
    }

    /// `packets` received packets expressed as ACKs at the measured ratio, at least 1.
    pub fn acks_for(&self, packets: u32) -> u32 {
        ((packets << Self::SHIFT) / self.packets_per_ack_x16.max(1)).max(1)
    }
}

/// Largest integer `r` with r^3 <= x. Exact and platform independent (libm `cbrt` is not correctly
/// rounded everywhere, which would break bit-identical results across machines).
pub fn icbrt(x: u128) -> u64 {
    if x == 0 {
        return 0;
    }
    // Start from a power of two above the root, then Newton's iteration from above converges downward.
    let bits = 128 - x.leading_zeros();
    let mut r: u128 = 1u128 << bits.div_ceil(3);
    loop {
        let next = (2 * r + x / (r * r)) / 3;
        if next >= r {
            break;
        }
        r = next;
    }
    while r * r * r > x {
        r -= 1;
    }
    while (r + 1) * (r + 1) * (r + 1) <= x {
        r += 1;
    }
    r as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_doubles_per_round_and_stops_at_ssthresh() {
        // cwnd 2, ssthresh 5: an ACK for 2 packets reaches 4, the next for 4 packets stops at 5 with 3 left.
        let mut w = Window::new(2, 5);
        assert_eq!(w.slow_start(2), 0);
        assert_eq!(w.cwnd, 4);
        assert_eq!(w.slow_start(4), 3);
        assert_eq!(w.cwnd, 5);
    }

    #[test]
    fn additive_increase_adds_one_per_window_of_units() {
        // w = 10: nine units leave cwnd at 10, the tenth makes it 11 and resets the counter.
        let mut w = Window::new(10, 5);
        for _ in 0..9 {
            w.additive_increase(10, 1);
        }
        assert_eq!((w.cwnd, w.cwnd_cnt), (10, 9));
        w.additive_increase(10, 1);
        assert_eq!((w.cwnd, w.cwnd_cnt), (11, 0));
        // A stretch ACK of 25 units at w = 11: +2 packets, 3 units kept.
        w.additive_increase(11, 25);
        assert_eq!((w.cwnd, w.cwnd_cnt), (13, 3));
    }

    #[test]
    fn delayed_ack_ratio_starts_at_two_and_settles_above_the_true_ratio() {
        // Initial 2 << 4 = 32: 20 packets are 20 * 16 / 32 = 10 ACKs.
        let mut one = DelayedAckRatio::default();
        assert_eq!(one.acks_for(20), 10);
        // One packet per ACK: 32 - 32/16 + 1 = 31, then 31 - 31/16 + 1 = 31 for ever: 20 * 16 / 31 = 10.3 -> 10.
        for _ in 0..100 {
            one.sample(1);
        }
        assert_eq!(one.packets_per_ack_x16, 31);
        // Three packets per ACK: 32 -> 33 -> ... -> 48, where 48 - 3 + 3 = 48: 30 * 16 / 48 = 10.
        let mut three = DelayedAckRatio::default();
        for _ in 0..100 {
            three.sample(3);
        }
        assert_eq!(three.packets_per_ack_x16, 48);
        assert_eq!(three.acks_for(30), 10);
        // Never below one ACK.
        assert_eq!(three.acks_for(2), 1);
    }

    #[test]
    fn integer_cube_root_is_exact() {
        for x in [0u128, 1, 7, 8, 9, 26, 27, 28, 1_000_000, 999_999, (1u128 << 90) + 12345] {
            let r = icbrt(x) as u128;
            assert!(r * r * r <= x && (r + 1) * (r + 1) * (r + 1) > x, "x={x} r={r}");
        }
        assert_eq!(icbrt(1u128 << 120), 1u64 << 40);
    }
}
