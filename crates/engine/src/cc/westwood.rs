//! Westwood+ (Grieco & Mascolo, "Performance evaluation and comparison of Westwood+, New Reno, and Vegas
//! TCP congestion control", CCR 34(2), 2004), following Linux 2.6.22.6 `tcp_westwood.c` as bundled with
//! ns-2.35 TCP-Linux (fact sheet §2.5).
//!
//! Bandwidth estimate: the data delivered during one RTT-long window, d_k, gives the sample b_k = d_k / T_k
//! once per RTT (not per ACK: that is Westwood+'s fix over the original Westwood), with T_k >
//! max(RTT, 50 ms). Linux (`westwood_filter`, `westwood_do_filter`) smooths the samples by two cascaded
//! EWMAs of gain 7/8, seeded with the first sample:
//!   bw_ns = (7 bw_ns + b_k) / 8,   BWE = (7 BWE + bw_ns) / 8      (bytes per jiffy, integer).
//! Delivered data (`westwood_fast_bw`, `westwood_acked_count`): in the Open state, an ACK with no new SACK
//! credits the bytes it acknowledges; any other ACK goes through `westwood_acked_count`, which credits one
//! MSS per duplicate ACK (data that reached the receiver out of order) and deducts those credits when the
//! cumulative ACK later covers them.
//! Window after a loss: BWE * RTTmin / MSS packets, at least 2 (`tcp_westwood_bw_rttmin`). Growth: Reno.
//!
//! Variants:
//! - `linux` (default; alias `linux-2.6.22`): Linux 2.6.22.6 under ns-2.35 TCP-Linux. RTTmin is the
//!   smallest smoothed RTT (`srtt`); the window estimator is the module's `min_cwnd` hook, so fast
//!   retransmit sets ssthresh = max(cwnd / 2, 2) (the Reno hook) and the estimate max(BWE * RTTmin / MSS,
//!   2) is the floor of the recovery reduction. With the sender's `linux-2.6` recovery (ns-2's rules) cwnd
//!   drops to that floor at entry and is raised to ssthresh (capped) at exit only when below it. With the
//!   RFC 6675 sender, which sets the recovery window at once, cwnd = max(estimate, ssthresh) at entry and
//!   exit: where rate-halving would leave it (an estimate below ssthresh as an RFC 6675 window would
//!   stall recovery, docs/validation.md D7). A timeout sets ssthresh = max(cwnd / 2, 2) and cwnd = 1
//!   (2.6.22 listens to CA_EVENT_FRTO, which ns-2 never raises, not to CA_EVENT_LOSS). Reno growth per
//!   ACK (2.6.22 `tcp_reno_cong_avoid`).
//! - `paper`: fast retransmit sets ssthresh = max(BWE * RTTmin / MSS, 2) and cwnd = min(cwnd, ssthresh); a
//!   timeout sets the same ssthresh and cwnd = 1. RTTmin is the smallest RTT sample, and the filter is
//!   the paper's single EWMA BWE = 0.9 BWE + 0.1 b_k. The paper leaves the delivered-data accounting and
//!   the 50 ms floor to the implementation: Linux's are kept.
//! Modern Linux (>= 2.6.23: RTTmin from RTT samples; cwnd = ssthresh = BWE * RTTmin only when recovery
//! completes; RTO ssthresh from BWE with RTTmin reset) is not a variant here.

use super::common::{jiffies, Counting, RttSource, Window, INFINITE_SSTHRESH};
use super::registry::{Algorithm, AlgorithmInfo, ParamDoc};
use super::{AckSample, AnyCc, CongestionControl, CongestionEvent, StateField};
use crate::config::{err, ConfigError};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Shortest estimation window, jiffies (`TCP_WESTWOOD_RTT_MIN` = HZ/20 = 50 ms).
const WINDOW_MIN_MS: u64 = 50;
/// RTT assumed before the first sample, jiffies (`TCP_WESTWOOD_INIT_RTT` = 20 HZ).
const INITIAL_RTT_MS: u64 = 20_000;

/// How the bandwidth samples are smoothed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BandwidthFilter {
    /// Two cascaded EWMAs of gain 7/8 (Linux `westwood_do_filter` applied twice).
    TwoStage78,
    /// One EWMA, BWE = 0.9 BWE + 0.1 b_k (Grieco & Mascolo 2004).
    Single09,
}

/// What fast retransmit and timeouts do with the estimate.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossResponse {
    /// Linux 2.6.22 under ns-2.35: Reno ssthresh, BWE * RTTmin as the recovery floor (`min_cwnd`).
    MinCwnd,
    /// Paper: ssthresh = BWE * RTTmin on fast retransmit and timeout.
    Ssthresh,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WestwoodConfig {
    /// Smoothing of the per-RTT bandwidth samples: "two_stage78" (Linux) or "single09" (paper).
    pub filter: BandwidthFilter,
    /// Use of BWE * RTTmin at a loss: "min_cwnd" (Linux 2.6.22 under ns-2.35) or "ssthresh" (paper).
    pub loss_response: LossResponse,
    /// RTT behind RTTmin and the estimation window: "srtt" (Linux 2.6.22) or "sample" (paper).
    pub rtt_source: RttSource,
    /// Reno growth counts "acks" (Linux 2.6.22, ns-2) or "packets" (Linux >= 4.0).
    pub counting: Counting,
    /// Bytes per segment in Linux's byte counters (`mss_cache`; ns-2 TCP-Linux uses packetSize_, 1460 by
    /// default). It only sets the integer rounding of BWE and the unit of the `bwe_bps` trace (payload bits).
    pub mss_bytes: u32,
}

impl Algorithm for WestwoodConfig {
    const INFO: AlgorithmInfo = AlgorithmInfo {
        name: "westwood",
        aliases: &["westwood+", "westwoodplus"],
        summary: "Westwood+: Reno probing, window after a loss set from a per-RTT bandwidth estimate times RTTmin (Grieco & Mascolo 2004)",
        default_variant: "linux",
        variants: &[
            ("linux", "Linux 2.6.22.6 tcp_westwood.c under ns-2.35 TCP-Linux: 7/8 filter twice, RTTmin of srtt, BWE*RTTmin as recovery window, Reno ssthresh"),
            ("linux-2.6.22", "alias of 'linux'"),
            ("paper", "Grieco & Mascolo 2004: ssthresh = BWE*RTTmin on fast retransmit and timeout, one 0.9 EWMA, RTTmin of RTT samples"),
        ],
        params: &[
            ParamDoc { name: "filter", doc: "'two_stage78' (Linux) or 'single09' (paper)" },
            ParamDoc { name: "loss_response", doc: "'min_cwnd' (Linux 2.6.22/ns-2.35) or 'ssthresh' (paper)" },
            ParamDoc { name: "rtt_source", doc: "'srtt' (Linux 2.6.22) or 'sample' (paper) for RTTmin" },
            ParamDoc { name: "counting", doc: "Reno growth counts 'acks' (2.6.22) or 'packets' (modern)" },
            ParamDoc { name: "mss_bytes", doc: "bytes per segment in the byte counters, >= 1 (1460)" },
        ],
    };

    fn variant(name: &str) -> Option<Self> {
        match name {
            "linux" | "linux-2.6.22" => Some(WestwoodConfig {
                filter: BandwidthFilter::TwoStage78,
                loss_response: LossResponse::MinCwnd,
                rtt_source: RttSource::Srtt,
                counting: Counting::Acks,
                mss_bytes: 1460,
            }),
            "paper" => Some(WestwoodConfig {
                filter: BandwidthFilter::Single09,
                loss_response: LossResponse::Ssthresh,
                rtt_source: RttSource::Sample,
                counting: Counting::Acks,
                mss_bytes: 1460,
            }),
            _ => None,
        }
    }

    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if self.mss_bytes == 0 {
            return Err(err(format!("{field}.mss_bytes"), "must be at least 1"));
        }
        Ok(())
    }

    fn build(self, initial_cwnd: u32) -> AnyCc {
        Westwood::new(self, initial_cwnd).into()
    }
}

pub struct Westwood {
    cfg: WestwoodConfig,
    win: Window,
    /// First filter stage (Linux `bw_ns_est`; the last raw sample under the paper's single EWMA) and the
    /// estimate BWE, bytes per jiffy.
    bw_ns_est: u64,
    bw_est: u64,
    /// Jiffy at which the current estimation window opened (None before the first ACK).
    window_start: Option<u64>,
    /// Bytes delivered in the current window.
    bk: u64,
    /// snd_una seen by the previous ACK, packets.
    snd_una: u64,
    /// Bytes credited for duplicate ACKs, not yet covered by a cumulative ACK.
    accounted: u64,
    /// Latest RTT and RTTmin, jiffies.
    rtt: u64,
    rtt_min: u64,
    /// Take the next RTT as RTTmin (set at start).
    reset_rtt_min: bool,
}

impl Westwood {
    pub fn new(cfg: WestwoodConfig, initial_cwnd: u32) -> Self {
        Westwood {
            cfg,
            win: Window::new(initial_cwnd, INFINITE_SSTHRESH),
            bw_ns_est: 0,
            bw_est: 0,
            window_start: None,
            bk: 0,
            snd_una: 0,
            accounted: 0,
            rtt: INITIAL_RTT_MS,
            rtt_min: INITIAL_RTT_MS,
            reset_rtt_min: true,
        }
    }

    /// Linux `westwood_update_window`: close the estimation window once it is longer than
    /// max(RTT, 50 ms), turning its bytes into one bandwidth sample.
    fn update_window(&mut self, now: u64) {
        let start = *self.window_start.get_or_insert(now);
        let delta = now.saturating_sub(start);
        if self.rtt > 0 && delta > self.rtt.max(WINDOW_MIN_MS) {
            self.filter(self.bk / delta);
            self.bk = 0;
            self.window_start = Some(now);
        }
    }

    /// Linux `westwood_filter` (or the paper's EWMA); an empty filter takes the first sample as it is.
    fn filter(&mut self, sample: u64) {
        if self.bw_ns_est == 0 && self.bw_est == 0 {
            self.bw_ns_est = sample;
            self.bw_est = sample;
            return;
        }
        match self.cfg.filter {
            BandwidthFilter::TwoStage78 => {
                self.bw_ns_est = (7 * self.bw_ns_est + sample) >> 3;
                self.bw_est = (7 * self.bw_est + self.bw_ns_est) >> 3;
            }
            BandwidthFilter::Single09 => {
                self.bw_ns_est = sample;
                self.bw_est = (9 * self.bw_est + sample) / 10;
            }
        }
    }

    /// Linux `westwood_acked_count`: bytes this ACK delivered, crediting one MSS per duplicate ACK and
    /// deducting the credits when a cumulative ACK covers them.
    fn acked_count(&mut self, snd_una: u64) -> u64 {
        let mss = self.cfg.mss_bytes as u64;
        let mut cumul_ack = (snd_una - self.snd_una) * mss;
        if cumul_ack == 0 {
            // Duplicate ACK: a segment reached the receiver out of order.
            self.accounted += mss;
            cumul_ack = mss;
        }
        if cumul_ack > mss {
            // Partial or delayed ACK: what the duplicate ACKs already credited is not counted twice.
            if self.accounted >= cumul_ack {
                self.accounted -= cumul_ack;
                cumul_ack = mss;
            } else {
                cumul_ack -= self.accounted;
                self.accounted = 0;
            }
        }
        self.snd_una = snd_una;
        cumul_ack
    }

    fn update_rtt_min(&mut self) {
        if self.reset_rtt_min {
            self.rtt_min = self.rtt;
            self.reset_rtt_min = false;
        } else {
            self.rtt_min = self.rtt_min.min(self.rtt);
        }
    }

    /// Linux `tcp_westwood_bw_rttmin`: BWE * RTTmin in packets, at least 2.
    fn bw_rttmin(&self) -> u32 {
        let packets = self.bw_est * self.rtt_min / self.cfg.mss_bytes as u64;
        packets.clamp(2, u32::MAX as u64) as u32
    }

    fn reno_ssthresh(&self) -> u32 {
        (self.win.cwnd / 2).max(2)
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }

    fn on_ack_sample(&mut self, s: &AckSample) {
        let now = jiffies(s.now.0);
        if self.window_start.is_none() {
            // Linux `tcp_westwood_init` (run by ns-2 on the first ACK) takes snd_una as it stands.
            self.snd_una = s.snd_una;
        }
        // Linux `tcp_westwood_pkts_acked`: the RTT of ACKs that advance snd_una.
        if s.acked > 0 {
            if let Some(rtt) = self.cfg.rtt_source.of(s) {
                self.rtt = jiffies(rtt.0);
            }
        }
        self.update_window(now);
        // CA_EVENT_FAST_ACK: Open state, data acknowledged, nothing newly SACKed; otherwise SLOW_ACK.
        if !s.in_recovery && s.acked > 0 && s.sacked == 0 {
            self.bk += (s.snd_una - self.snd_una) * self.cfg.mss_bytes as u64;
            self.snd_una = s.snd_una;
        } else {
            let delivered = self.acked_count(s.snd_una);
            self.bk += delivered;
        }
        self.update_rtt_min();
    }

    fn on_ack(&mut self, s: &AckSample) {
        if !s.cwnd_limited || s.acked == 0 {
            return;
        }
        match self.cfg.counting {
            Counting::Acks => {
                if self.win.in_slow_start_2_6() {
                    self.win.slow_start_per_ack();
                } else {
                    // 2.6.22 tcp_reno_cong_avoid: +1 once the counter has reached cwnd, checked first.
                    let cwnd = self.win.cwnd;
                    self.win.increase_every(cwnd);
                }
            }
            Counting::Packets => {
                let mut units = s.acked;
                if self.win.in_slow_start() {
                    units = self.win.slow_start(units);
                }
                if units > 0 {
                    let cwnd = self.win.cwnd;
                    self.win.additive_increase(cwnd, units);
                }
            }
        }
    }

    fn on_congestion_event(&mut self, _e: &CongestionEvent) {
        let estimate = self.bw_rttmin();
        match self.cfg.loss_response {
            LossResponse::MinCwnd => {
                // RFC 6675 sets the recovery window at once; rate-halving toward the min_cwnd floor would
                // stop at ssthresh or at the floor, whichever is higher. (The linux-2.6 recovery mode then
                // sets cwnd = min_cwnd() itself.)
                self.win.ssthresh = self.reno_ssthresh();
                self.win.cwnd = estimate.max(self.win.ssthresh);
            }
            LossResponse::Ssthresh => {
                self.win.ssthresh = estimate;
                self.win.cwnd = self.win.cwnd.min(estimate);
            }
        }
        self.win.cwnd_cnt = 0;
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        // ns-2 TCP-Linux: cwnd = ssthresh only if below it (a window estimate above ssthresh is kept).
        self.win.cwnd = self.win.cwnd.max(self.win.ssthresh);
        self.win.cwnd_cnt = 0;
    }

    fn on_timeout(&mut self, _now: SimTime, first_in_episode: bool) {
        let ssthresh = first_in_episode.then(|| match self.cfg.loss_response {
            LossResponse::MinCwnd => self.reno_ssthresh(),
            LossResponse::Ssthresh => self.bw_rttmin(),
        });
        self.win.timeout(ssthresh);
    }

    /// Linux 2.6.16-2.6.22 `tcp_westwood_bw_rttmin`: max(BWE * RTTmin / MSS, 2) (ns-2.35
    /// `tcp/linux/src/tcp_westwood.c`, lines 218 and 284). The paper variant has no such floor: ssthresh.
    fn min_cwnd(&self) -> u32 {
        match self.cfg.loss_response {
            LossResponse::MinCwnd => self.bw_rttmin(),
            LossResponse::Ssthresh => self.win.ssthresh,
        }
    }

    fn set_cwnd(&mut self, cwnd: u32) {
        self.win.set_cwnd(cwnd);
    }

    fn cwnd(&self) -> u32 {
        self.win.cwnd
    }
    fn ssthresh(&self) -> u32 {
        self.win.ssthresh
    }

    fn state(&self, out: &mut Vec<StateField>) {
        // Bytes per 1 ms jiffy -> bit/s.
        out.push(("bwe_bps", (self.bw_est * 8000) as f64));
        out.push(("bw_ns_bps", (self.bw_ns_est * 8000) as f64));
        out.push(("rtt_min_s", self.rtt_min as f64 / 1000.0));
        out.push(("bwe_window", self.bw_rttmin() as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

    /// Westwood+ with 1000-byte segments (round numbers), starting in the given window.
    fn westwood(variant: &str, cwnd: u32) -> Westwood {
        let mut cfg = <WestwoodConfig as Algorithm>::variant(variant).unwrap();
        cfg.mss_bytes = 1000;
        Westwood::new(cfg, cwnd)
    }
    /// An ACK at `ms` moving snd_una to `snd_una` (`acked` new packets), smoothed RTT and sample 100 ms.
    fn ack(ms: u64, snd_una: u64, acked: u32) -> AckSample {
        let rtt = Some(SimDuration::from_millis(100));
        AckSample { now: SimTime(ms * 1_000_000), acked, snd_una, rtt, srtt: rtt, cwnd_limited: true, ..Default::default() }
    }
    fn dupack(ms: u64, snd_una: u64, in_recovery: bool) -> AckSample {
        AckSample { sacked: 1, in_recovery, ..ack(ms, snd_una, 0) }
    }
    fn loss() -> CongestionEvent {
        CongestionEvent { now: SimTime(0), in_flight: 0, min_rtt: None, srtt: None }
    }
    /// One packet per ms for t = 1..=201 ms, then two per ms for t = 202..=303 ms (first ACK at t = 0).
    fn one_then_two_packets_per_ms(c: &mut Westwood) -> Vec<(u64, u64, u64)> {
        let mut snd_una = 1;
        let mut seen = Vec::new();
        c.on_ack_sample(&ack(0, snd_una, 1));
        for ms in 1..=303 {
            let acked = if ms <= 201 { 1 } else { 2 };
            snd_una += acked as u64;
            c.on_ack_sample(&ack(ms, snd_una, acked));
            if [101, 202, 303].contains(&ms) {
                seen.push((ms, c.bw_ns_est, c.bw_est));
            }
        }
        seen
    }

    #[test]
    fn bandwidth_is_sampled_once_per_rtt_and_filtered_twice_by_seven_eighths() {
        // RTT 100 ms: a window closes on the first ACK more than 100 ms after it opened.
        // - t = 101: ACKs of t = 1..100 delivered 100 000 B in 101 ms: sample 990 B/ms, which seeds both
        //   stages (the first ACK's data at t = 0 is not counted: Linux takes snd_una there as its origin).
        // - t = 202: ACKs of t = 101..201, 101 000 B / 101 ms = 1000: bw_ns = (7 * 990 + 1000) / 8 = 991,
        //   BWE = (7 * 990 + 991) / 8 = 990.
        // - t = 303: ACKs of t = 202..302 at 2 packets: 202 000 / 101 = 2000: bw_ns = (6937 + 2000) / 8 =
        //   1117, BWE = (6930 + 1117) / 8 = 1005: the double filter moves slowly.
        let mut c = westwood("linux", 150);
        let seen = one_then_two_packets_per_ms(&mut c);
        assert_eq!(seen, vec![(101, 990, 990), (202, 991, 990), (303, 1117, 1005)]);
        // BWE * RTTmin / MSS = 1005 * 100 / 1000 = 100 packets; the trace reports 1005 B/ms = 8.04 Mbit/s.
        assert_eq!(c.bw_rttmin(), 100);
        let mut state = Vec::new();
        c.state(&mut state);
        assert!(state.contains(&("bwe_bps", 8_040_000.0)) && state.contains(&("rtt_min_s", 0.1)));
    }

    #[test]
    fn paper_filter_is_one_ewma_with_gain_0_9() {
        // Same samples 990, 1000, 2000: BWE = 990, (9 * 990 + 1000) / 10 = 991, (9 * 991 + 2000) / 10 = 1091.
        let mut c = westwood("paper", 150);
        let seen: Vec<u64> = one_then_two_packets_per_ms(&mut c).iter().map(|s| s.2).collect();
        assert_eq!(seen, vec![990, 991, 1091]);
    }

    #[test]
    fn duplicate_acks_credit_one_segment_and_are_deducted_from_the_cumulative_ack() {
        // All within one estimation window (t < 50 ms). First ACK at snd_una 10 sets the origin.
        let mut c = westwood("linux", 20);
        c.on_ack_sample(&ack(0, 10, 1));
        // Three duplicate ACKs in Open, two more in recovery: 5 * 1000 B credited (5 packets SACKed).
        for ms in 1..=3 {
            c.on_ack_sample(&dupack(ms, 10, false));
        }
        for ms in 4..=5 {
            c.on_ack_sample(&dupack(ms, 10, true));
        }
        assert_eq!((c.bk, c.accounted), (5000, 5000));
        // The retransmission arrives: the ACK covers 6 packets (10 -> 16), 5 of them already credited,
        // so it counts 6000 - 5000 = 1000 B. Total 6000 B for 6 packets delivered.
        let mut full = ack(6, 16, 6);
        full.in_recovery = true;
        c.on_ack_sample(&full);
        assert_eq!((c.bk, c.accounted), (6000, 0));
        // Four more duplicate ACKs, then a partial ACK of 2 packets: fully covered by the credits, it
        // counts one segment (Linux) and leaves 2000 B credited.
        for ms in 7..=10 {
            c.on_ack_sample(&dupack(ms, 16, true));
        }
        let mut partial = ack(11, 18, 2);
        partial.in_recovery = true;
        c.on_ack_sample(&partial);
        assert_eq!((c.bk, c.accounted), (6000 + 4000 + 1000, 2000));
        // Back in Open, a plain cumulative ACK (the fast path) counts all it covers, credits or not.
        c.on_ack_sample(&ack(12, 21, 3));
        assert_eq!((c.bk, c.accounted), (11_000 + 3000, 2000));
    }

    #[test]
    fn linux_sets_the_recovery_window_from_the_estimate_and_ssthresh_as_reno() {
        // BWE 1005 B/ms, RTTmin 100 ms: estimate 100 packets. cwnd 150 at the loss:
        // ssthresh = 150 / 2 = 75, cwnd = max(100, 75) = 100 during recovery, and 100 after it.
        let mut c = westwood("linux", 150);
        one_then_two_packets_per_ms(&mut c);
        c.on_congestion_event(&loss());
        assert_eq!((c.cwnd(), c.ssthresh()), (100, 75));
        // The 2.6 min_cwnd hook is the same estimate (what the linux-2.6 recovery mode sets cwnd to).
        assert_eq!(c.min_cwnd(), 100);
        c.on_recovery_exit(SimTime(0));
        assert_eq!(c.cwnd(), 100);
        // Timeout at cwnd 100: ssthresh = 50 (Reno: 2.6.22 ignores CA_EVENT_LOSS), cwnd 1; repeated: kept.
        c.on_timeout(SimTime(0), true);
        assert_eq!((c.cwnd(), c.ssthresh()), (1, 50));
        c.on_timeout(SimTime(0), false);
        assert_eq!(c.ssthresh(), 50);
        // An estimate below ssthresh: cwnd 300 at the loss, ssthresh 150 > estimate 100. The RFC 6675 window
        // is ssthresh, 150; the floor min_cwnd() stays the estimate, 100.
        c.win.cwnd = 300;
        c.on_congestion_event(&loss());
        assert_eq!((c.cwnd(), c.ssthresh(), c.min_cwnd()), (150, 150, 100));
    }

    #[test]
    fn paper_sets_ssthresh_from_the_estimate_on_loss_and_timeout() {
        // BWE 1091 B/ms, RTTmin 100 ms: ssthresh = 109; cwnd = min(150, 109) = 109, and 109 after recovery.
        let mut c = westwood("paper", 150);
        one_then_two_packets_per_ms(&mut c);
        c.on_congestion_event(&loss());
        assert_eq!((c.cwnd(), c.ssthresh()), (109, 109));
        // No min_cwnd hook in the paper: the default, ssthresh.
        assert_eq!(c.min_cwnd(), 109);
        c.on_recovery_exit(SimTime(0));
        assert_eq!(c.cwnd(), 109);
        // A window already below the estimate is not raised: cwnd 50 -> 50, ssthresh 109.
        c.win.cwnd = 50;
        c.on_congestion_event(&loss());
        assert_eq!((c.cwnd(), c.ssthresh()), (50, 109));
        // Timeout: ssthresh = 109 again, cwnd 1.
        c.on_timeout(SimTime(0), true);
        assert_eq!((c.cwnd(), c.ssthresh()), (1, 109));
    }

    #[test]
    fn estimate_is_at_least_two_packets_before_any_sample() {
        // No bandwidth sample yet: BWE = 0, so the estimate is 2: the Linux floor min_cwnd() is 2 (cwnd =
        // max(2, ssthresh 5) = 5 for RFC 6675), the paper's ssthresh is 2.
        let mut linux = westwood("linux", 10);
        linux.on_congestion_event(&loss());
        assert_eq!((linux.cwnd(), linux.ssthresh(), linux.min_cwnd()), (5, 5, 2));
        let mut paper = westwood("paper", 10);
        paper.on_congestion_event(&loss());
        assert_eq!((paper.cwnd(), paper.ssthresh()), (2, 2));
    }

    #[test]
    fn rtt_min_is_the_smallest_srtt_in_linux_and_the_smallest_sample_in_the_paper() {
        // Before any ACK RTTmin is Linux's 20 s placeholder; the first ACK replaces it.
        let (mut linux, mut paper) = (westwood("linux", 10), westwood("paper", 10));
        assert_eq!(linux.rtt_min, 20_000);
        let mut s = ack(0, 1, 1);
        s.rtt = Some(SimDuration::from_millis(90));
        linux.on_ack_sample(&s);
        paper.on_ack_sample(&s);
        assert_eq!((linux.rtt_min, paper.rtt_min), (100, 90));
        // A later larger RTT does not raise it.
        let later = AckSample { rtt: Some(SimDuration::from_millis(150)), srtt: Some(SimDuration::from_millis(120)), ..ack(1, 2, 1) };
        linux.on_ack_sample(&later);
        paper.on_ack_sample(&later);
        assert_eq!((linux.rtt_min, paper.rtt_min), (100, 90));
    }

    #[test]
    fn grows_as_reno_of_linux_2_6_22() {
        // Slow start while cwnd <= ssthresh: 9 -> 10 -> 11 at ssthresh 10. Then +1 once the counter has
        // reached cwnd, checked before counting: 11 ACKs counted, the 12th adds (11 -> 12).
        let mut c = westwood("linux", 9);
        c.win.ssthresh = 10;
        c.on_ack(&ack(0, 0, 1));
        c.on_ack(&ack(0, 0, 1));
        assert_eq!(c.cwnd(), 11);
        for _ in 0..11 {
            c.on_ack(&ack(0, 0, 1));
        }
        assert_eq!(c.cwnd(), 11);
        c.on_ack(&ack(0, 0, 1));
        assert_eq!(c.cwnd(), 12);
        // Not cwnd-limited: no growth.
        c.on_ack(&AckSample { cwnd_limited: false, ..ack(0, 0, 1) });
        assert_eq!((c.cwnd(), c.win.cwnd_cnt), (12, 0));
    }

    #[test]
    fn builds_from_a_scenario_with_alias_variant_and_override() {
        let spec = serde_json::json!({"name": "westwood+", "variant": "linux-2.6.22", "mss_bytes": 1500});
        assert_eq!(crate::cc::registry::build("cc", &spec, 2).unwrap().name(), "westwood");
    }
}
