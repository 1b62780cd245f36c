//! HyStart, hybrid slow start (Ha & Rhee, "Taming the Elephants: New TCP Slow Start", NCSU 2008;
//! Linux `tcp_cubic.c` since 2.6.29, on by default). Fact sheet §1.8.
//!
//! Slow start doubles the window every round trip until a loss; with a buffer of about one BDP that
//! overshoots to twice the pipe and loses a window's worth of packets. HyStart ends slow start (ssthresh =
//! cwnd) before that, on either of two signals seen within one round (one window of data, from the ACK
//! that passes `end_seq` = snd_nxt at the round's start):
//!
//! - **ACK train**: ACKs arriving at most `ack_delta` (2 ms) apart, counted from the round's first ACK,
//!   span more than half the minimum RTT. ACKs spaced by the bottleneck's service time say the pipe is
//!   full once the train is as long as the propagation delay it has to fill (half of delay_min under
//!   self-clocking: the round's data left in the first half).
//! - **Delay increase**: the smallest RTT of the round, taken once the round has given more than 8
//!   samples, exceeds delay_min + clamp(delay_min / 8, 4 ms, 16 ms): a queue is building.
//!
//! Both only while cwnd >= low_window (16 packets). Constants and rules are those of the `tcp_cubic.c`
//! of Linux 6.x (read from a 6.x tree; the live testbed runs 6.18, docs/live.md): a µs clock,
//! `hystart_ack_delta_us`, delay_min / 8, the round's minimum kept over all its samples, the round
//! restarted inside `hystart_update` before the low-window test. 5.10's file has the same constants,
//! threshold and cushion. The 3.x form differs and is not modelled: a 1 ms clock, delay_min / 16 for the
//! delay threshold, the minimum over the round's first 8 samples only, the round restarted in
//! `cong_avoid`, and no ACK-train cushion.
//!
//! The cushion: Linux >= 5.7 adds `hystart_ack_delay` to delay_min before halving it, the time four
//! 64 KB GSO packets take at the pacing rate (2 x cwnd / srtt in slow start), capped at 1 ms; the cap
//! applies whenever that rate is under 262 MB/s, i.e. almost always below 1 Gbit/s. The engine has no GSO,
//! so it computes the same figure from the flow's packet size, window and srtt. Linux halves the train
//! threshold only when the socket is not paced (`SK_PACING_NONE`), as CUBIC is without the fq qdisc.
//!
//! Time is the engine's nanoseconds where Linux uses µs; the comparisons are the same.

use super::AckSample;
use crate::time::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};

/// Samples a round gives before the delay test starts (`HYSTART_MIN_SAMPLES`).
const MIN_SAMPLES: u8 = 8;
/// Clamp of the delay-increase threshold delay_min / 8 (`HYSTART_DELAY_MIN`, `HYSTART_DELAY_MAX`).
const DELAY_THRESH_MIN: SimDuration = SimDuration::from_millis(4);
const DELAY_THRESH_MAX: SimDuration = SimDuration::from_millis(16);
/// Bytes of the GSO packets whose transmission time the ACK-train cushion allows for: 4 x 64 KB
/// (`sk_gso_max_size` * 4 in `hystart_ack_delay`).
const CUSHION_BYTES: u128 = 4 * 65_536;

/// Which signals end slow start (Linux `hystart_detect`: 1 ACK train, 2 delay, 3 both).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Detect {
    Both,
    AckTrain,
    Delay,
}

impl Detect {
    fn ack_train(self) -> bool {
        matches!(self, Detect::Both | Detect::AckTrain)
    }
    fn delay(self) -> bool {
        matches!(self, Detect::Both | Detect::Delay)
    }
}

/// HyStart's settings (Linux module parameters; the values there in brackets).
#[derive(Copy, Clone, Debug)]
pub struct HyStartParams {
    /// Signals used [both].
    pub detect: Detect,
    /// Smallest window at which either signal counts, packets [`hystart_low_window` 16].
    pub low_window: u32,
    /// Largest gap between two ACKs of one train [`hystart_ack_delta_us` 2000 µs].
    pub ack_delta: SimDuration,
    /// Cap of the ACK-train cushion [1 ms since Linux 5.7]; zero leaves the cushion out (earlier kernels).
    pub ack_delay_max: SimDuration,
}

/// What the algorithm knows when an RTT sample arrives, beside the sample itself.
pub struct SlowStartView {
    pub cwnd: u32,
    pub ssthresh: u32,
    /// The flow's minimum RTT, this sample included (CUBIC's delay_min).
    pub delay_min: SimDuration,
    /// Bytes of a data packet, for the cushion's pacing rate.
    pub packet_size: u32,
}

/// HyStart's per-round state (Linux's `round_start`, `end_seq`, `last_ack`, `curr_rtt`, `sample_cnt`,
/// `found`).
#[derive(Clone, Debug)]
pub struct HyStart {
    params: HyStartParams,
    /// An exit point was found; HyStart stays idle until the next restart (a timeout).
    found: bool,
    /// First ACK of the current round.
    round_start: SimTime,
    /// Latest ACK of the current ACK train.
    last_ack: SimTime,
    /// The round ends when snd_una passes this (snd_nxt when it began); None: take the next ACK's
    /// snd_nxt (after a timeout, see `restart`).
    end_seq: Option<u64>,
    /// Smallest RTT of the round so far (`curr_rtt`; Linux starts it at ~0, here None).
    round_min_rtt: Option<SimDuration>,
    /// RTT samples the round has given, up to MIN_SAMPLES.
    samples: u8,
}

impl HyStart {
    /// At connection start (Linux `cubictcp_init`): a round that ends with the first ACK of data, which
    /// then starts the first real round at its own time.
    pub fn new(params: HyStartParams) -> Self {
        HyStart {
            params,
            found: false,
            round_start: SimTime::ZERO,
            last_ack: SimTime::ZERO,
            end_seq: Some(0),
            round_min_rtt: None,
            samples: 0,
        }
    }

    /// Whether HyStart has ended slow start since its last restart.
    pub fn found(&self) -> bool {
        self.found
    }

    /// Entering the Loss state (an RTO; Linux `cubictcp_state` -> `bictcp_hystart_reset`, with `found`
    /// cleared by `bictcp_reset`): a new round starts now and ends when snd_una passes snd_nxt as it
    /// stands. The engine's algorithm learns snd_nxt from the next ACK, which is the same value: after
    /// a timeout nothing new is sent until every lost segment has been resent, and the window of one
    /// packet lets only the first of them out before that ACK.
    pub fn restart(&mut self, now: SimTime) {
        self.found = false;
        self.start_round(now, None);
    }

    fn start_round(&mut self, now: SimTime, end_seq: Option<u64>) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = end_seq;
        self.round_min_rtt = None;
        self.samples = 0;
    }

    /// One RTT sample `rtt` while in slow start and not yet found (Linux `hystart_update`). Returns true
    /// when slow start should end now (the caller sets ssthresh = cwnd).
    pub fn on_rtt_sample(&mut self, s: &AckSample, rtt: SimDuration, view: &SlowStartView) -> bool {
        let end_seq = *self.end_seq.get_or_insert(s.snd_nxt);
        if s.snd_una > end_seq {
            self.start_round(s.now, Some(s.snd_nxt));
        }
        if view.cwnd < self.params.low_window {
            return false;
        }
        if self.params.detect.ack_train() && s.now.since(self.last_ack) <= self.params.ack_delta {
            self.last_ack = s.now;
            // Half of (delay_min + cushion): the unpaced rule.
            let threshold = (view.delay_min + self.cushion(s, view)).0 / 2;
            if s.now.since(self.round_start).0 > threshold {
                self.found = true;
            }
        }
        if self.params.detect.delay() {
            self.round_min_rtt = Some(self.round_min_rtt.map_or(rtt, |m| m.min(rtt)));
            if self.samples < MIN_SAMPLES {
                self.samples += 1;
            } else {
                let eighth = SimDuration(view.delay_min.0 / 8);
                let margin = eighth.max(DELAY_THRESH_MIN).min(DELAY_THRESH_MAX);
                if self.round_min_rtt.is_some_and(|m| m > view.delay_min + margin) {
                    self.found = true;
                }
            }
        }
        self.found
    }

    /// Linux >= 5.7 `hystart_ack_delay`: min(cap, 4 x 64 KB at the pacing rate). Linux's pacing rate is
    /// packet size x max(cwnd, packets out) x ratio / srtt, ratio 200 % while cwnd < ssthresh / 2 and
    /// 120 % above; no srtt yet leaves it unbounded (cushion 0).
    fn cushion(&self, s: &AckSample, view: &SlowStartView) -> SimDuration {
        let cap = self.params.ack_delay_max;
        let Some(srtt) = s.srtt else { return SimDuration::ZERO };
        if cap.0 == 0 {
            return SimDuration::ZERO;
        }
        let ratio_pct: u128 = if view.cwnd < view.ssthresh / 2 { 200 } else { 120 };
        let window = view.cwnd.max(s.prior_in_flight).max(1) as u128;
        // bytes / (bytes per ns): 4 x 64 KB x srtt x 100 / (packet size x window x ratio).
        let ns = CUSHION_BYTES * srtt.0 as u128 * 100 / (view.packet_size.max(1) as u128 * window * ratio_pct);
        SimDuration(ns.min(cap.0 as u128) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn params() -> HyStartParams {
        HyStartParams {
            detect: Detect::Both,
            low_window: 16,
            ack_delta: SimDuration::from_micros(2000),
            ack_delay_max: SimDuration::ZERO,
        }
    }
    /// An ACK at `at_us` µs advancing snd_una to `una`, with snd_nxt `nxt` and srtt 40 ms.
    fn ack(at_us: u64, una: u64, nxt: u64) -> AckSample {
        AckSample {
            now: SimTime(at_us * 1000),
            snd_una: una,
            snd_nxt: nxt,
            srtt: Some(SimDuration::from_millis(40)),
            acked: 1,
            cwnd_limited: true,
            ..Default::default()
        }
    }
    fn view(cwnd: u32, delay_min_ms: u64) -> SlowStartView {
        SlowStartView {
            cwnd,
            ssthresh: super::super::common::INFINITE_SSTHRESH,
            delay_min: SimDuration::from_millis(delay_min_ms),
            packet_size: 1500,
        }
    }
    /// Starts the first round with an ACK at `t0_us` (snd_una 1 > end_seq 0), round ending at seq 100.
    fn first_round(h: &mut HyStart, t0_us: u64) {
        assert!(!h.on_rtt_sample(&ack(t0_us, 1, 100), SimDuration::from_millis(40), &view(32, 40)));
        assert_eq!((h.round_start, h.end_seq), (SimTime(t0_us * 1000), Some(100)));
    }

    #[test]
    fn ack_train_ends_slow_start_past_half_of_delay_min() {
        // delay_min 40 ms, no cushion: threshold 20 ms. ACKs 1 ms apart from the round's first ACK at
        // 1000 ms: the one at +20 ms is not past it (strict >), the one at +21 ms is.
        let mut h = HyStart::new(HyStartParams { detect: Detect::AckTrain, ..params() });
        first_round(&mut h, 1_000_000);
        let rtt = SimDuration::from_millis(40);
        for i in 1..=20u64 {
            assert!(!h.on_rtt_sample(&ack(1_000_000 + i * 1000, 1 + i, 100), rtt, &view(32, 40)), "ACK {i}");
        }
        assert!(h.on_rtt_sample(&ack(1_021_000, 22, 100), rtt, &view(32, 40)));
        assert!(h.found());
    }

    #[test]
    fn ack_train_cushion_adds_up_to_1_ms_before_halving() {
        // Cap 1 ms. srtt 40 ms, cwnd 32, 1500-byte packets, ratio 200 % (ssthresh unset): the pacing rate
        // is 1500 x 32 x 2 / 0.04 s = 2.4 MB/s, and 4 x 64 KB take 262144 / 2.4e6 = 109 ms: capped to
        // 1 ms. Threshold (40 + 1) / 2 = 20.5 ms: an ACK at +20.5 ms is not past it, one at +21 ms is.
        let mut h = HyStart::new(HyStartParams {
            detect: Detect::AckTrain,
            ack_delay_max: SimDuration::from_millis(1),
            ..params()
        });
        first_round(&mut h, 1_000_000);
        let rtt = SimDuration::from_millis(40);
        for i in 1..=41u64 {
            assert!(!h.on_rtt_sample(&ack(1_000_000 + i * 500, 1 + i, 100), rtt, &view(32, 40)), "ACK {i}");
        }
        assert!(h.on_rtt_sample(&ack(1_021_000, 43, 100), rtt, &view(32, 40)));
        // Uncapped, at a pacing rate of 1500 x 20000 x 2 / 0.04 s = 1.5 GB/s the cushion is
        // 262144 / 1.5e9 s = 174762 ns (integer ns: 262144 x 40e6 x 100 / (1500 x 20000 x 200)).
        let big = SlowStartView { cwnd: 20_000, ..view(0, 40) };
        assert_eq!(h.cushion(&ack(0, 0, 0), &big), SimDuration(174_762));
        // At cwnd >= ssthresh / 2 the ratio is 120 %: 262144 x 40e6 x 100 / (1500 x 20000 x 120) = 291271.
        let late = SlowStartView { ssthresh: 30_000, ..big };
        assert_eq!(h.cushion(&ack(0, 0, 0), &late), SimDuration(291_271));
    }

    #[test]
    fn a_gap_over_2_ms_breaks_the_train() {
        // ACKs 2.5 ms apart (e.g. delayed ACKs at 10 Mbit/s: 2 x 1.2 ms) never extend the train, however
        // long the round: last_ack stays at the round's start.
        let mut h = HyStart::new(HyStartParams { detect: Detect::AckTrain, ..params() });
        first_round(&mut h, 1_000_000);
        let rtt = SimDuration::from_millis(40);
        for i in 1..=30u64 {
            assert!(!h.on_rtt_sample(&ack(1_000_000 + i * 2500, 1 + i, 100), rtt, &view(32, 40)));
        }
        assert_eq!(h.last_ack, SimTime(1_000_000_000));
    }

    #[test]
    fn delay_increase_uses_the_rounds_minimum_after_8_samples() {
        // delay_min 40 ms: margin clamp(40 / 8 = 5 ms, 4, 16) = 5 ms, so the round's minimum must exceed
        // 45 ms. The first round (from the ACK at 0: 40 ms, then twenty of 45 ms) never passes it. The next round, begun by the ACK that passes seq 100, sees 46, 47, ...:
        // its first 8 samples (46..53) only count, the 9th (54) tests min 46 > 45 and ends slow start.
        let mut h = HyStart::new(HyStartParams { detect: Detect::Delay, ..params() });
        first_round(&mut h, 0);
        let d = |ms: u64| SimDuration::from_millis(ms);
        for i in 0..20u64 {
            assert!(!h.on_rtt_sample(&ack(i * 3000, 2 + i, 100), d(45), &view(32, 40)));
        }
        for (i, rtt) in (46..54u64).enumerate() {
            assert!(!h.on_rtt_sample(&ack(100_000 + i as u64, 101 + i as u64, 200), d(rtt), &view(32, 40)));
        }
        assert_eq!((h.end_seq, h.samples, h.round_min_rtt), (Some(200), 8, Some(d(46))));
        assert!(h.on_rtt_sample(&ack(200_000, 120, 200), d(54), &view(32, 40)));
    }

    #[test]
    fn delay_margin_is_clamped_to_4_and_16_ms() {
        // delay_min 10 ms: 10 / 8 = 1.25 ms, raised to 4 ms: a round of 14 ms samples never ends slow
        // start, one of 14.001 ms does on its 9th sample. delay_min 200 ms: 25 ms, lowered to 16 ms:
        // 216 ms never, 216.001 ms on the 9th. (A restarted round, so no earlier sample lowers its minimum.)
        for (delay_min, at, past) in [(10u64, 14_000u64, 14_001u64), (200, 216_000, 216_001)] {
            let v = view(32, delay_min);
            let round_of = |rtt_us: u64| {
                let mut h = HyStart::new(HyStartParams { detect: Detect::Delay, ..params() });
                h.restart(SimTime::ZERO);
                (0..9u64).map(|i| h.on_rtt_sample(&ack(i, 0, 100), SimDuration::from_micros(rtt_us), &v)).collect::<Vec<_>>()
            };
            assert_eq!(round_of(at), [false; 9], "delay_min {delay_min}");
            assert_eq!(round_of(past), [false, false, false, false, false, false, false, false, true], "delay_min {delay_min}");
        }
    }

    #[test]
    fn nothing_below_the_low_window_but_rounds_still_turn() {
        // cwnd 15 < 16: a 100 ms sample against delay_min 40 ms ends nothing, yet the ACK passing
        // end_seq 100 starts a new round (round_start moves to its time, end_seq to its snd_nxt).
        let mut h = HyStart::new(params());
        first_round(&mut h, 0);
        for i in 0..20u64 {
            assert!(!h.on_rtt_sample(&ack(i * 1000, 2 + i, 100), SimDuration::from_millis(100), &view(15, 40)));
        }
        assert!(!h.on_rtt_sample(&ack(50_000, 101, 180), SimDuration::from_millis(100), &view(15, 40)));
        assert_eq!((h.round_start, h.end_seq), (SimTime(50 * MS), Some(180)));
    }

    #[test]
    fn restart_takes_the_round_end_from_the_next_ack() {
        // After a timeout at 5 s the round starts at 5 s; the next ACK (snd_una 50, snd_nxt 300) sets
        // end_seq 300 without ending the round, and found is cleared.
        let mut h = HyStart::new(HyStartParams { detect: Detect::AckTrain, ..params() });
        h.found = true;
        h.restart(SimTime(5_000 * MS));
        assert!(!h.found());
        assert!(!h.on_rtt_sample(&ack(5_200_000, 50, 300), SimDuration::from_millis(40), &view(1, 40)));
        assert_eq!((h.round_start, h.end_seq), (SimTime(5_000 * MS), Some(300)));
    }
}
