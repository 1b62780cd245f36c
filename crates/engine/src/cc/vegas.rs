//! TCP Vegas (Brakmo & Peterson, JSAC 13(8) 1995), as Linux 2.6.22 `tcp_vegas.c` (the module bundled with
//! ns-2.35 TCP-Linux) implements it; fact sheet §2.8.
//!
//! Estimators: baseRTT = the smallest RTT sample of the connection (µs + 1, never reset by a loss);
//! minRTT = the smallest sample in the current round. A round ends when snd_una passes the snd_nxt recorded
//! at its start (`beg_snd_nxt`). At the end of a round that carried at least 3 RTT samples:
//!
//!   old_wnd = packets sent in the round that just ended (beg_snd_nxt - beg_snd_una)
//!   target  = old_wnd · baseRTT / minRTT                 (the "actual" rate times baseRTT)
//!   diff    = old_wnd - target = old_wnd (minRTT - baseRTT) / minRTT    (Expected - Actual) · baseRTT
//!
//! both kept with one fractional bit (V_PARAM_SHIFT = 1, so alpha/beta/gamma have half-packet resolution).
//! - Slow start (cwnd <= ssthresh): if diff > gamma, ssthresh = 2 and cwnd = min(cwnd, target + 1); then
//!   the usual +1. Between round ends slow start adds +1 per ACK.
//! - Congestion avoidance, once per round only: the goal is the previous round's cwnd + 1 if diff < alpha,
//!   - 1 if diff > beta, unchanged otherwise; cwnd moves one packet toward it. cwnd >= 2.
//! - A round with <= 2 RTT samples falls back to one Reno step (Linux), and outside the Open state (fast
//!   recovery, or Loss after an RTO) Vegas is off and growth is Reno's. Loss: Reno, ssthresh = max(cwnd/2, 2).
//!
//! Linux quirks kept on purpose: re-enabling after recovery does not reset `beg_snd_una` nor `beg_snd_cwnd`,
//! so the first round after a recovery uses the window recorded before it (one round only).
//! Deviation: cwnd is increased only when the sender is cwnd-limited (Linux's Vegas path does not check;
//! decreases are always applied). Arithmetic is 64-bit where 2.6.22 used 32 bits (it would overflow for
//! old_wnd · baseRTT above 2^31 µs·packets).
//!
//! Variant: `linux` (the only one). The paper's and ns-2 `Agent/TCP/Vegas`'s alpha = 1, beta = 3 can be set
//! as parameters, but their other mechanics are not modelled: average (not minimum) RTT of the round,
//! growth every other RTT in slow start with a cwnd/8 cut on leaving it, +1/cwnd per ACK in avoidance,
//! fine-grained retransmission checks and the 3/4 window cut on loss (a sender change).

use super::common::{reno_min_cwnd, Window, INFINITE_SSTHRESH};
use super::registry::{Algorithm, AlgorithmInfo, ParamDoc};
use super::{AckSample, AnyCc, CongestionControl, CongestionEvent, StateField};
use crate::config::{err, ConfigError};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Fractional bits of diff and of the thresholds (Linux `V_PARAM_SHIFT`).
const V_PARAM_SHIFT: u32 = 1;
/// A round needs more than this many RTT samples for a Vegas decision (fewer: likely delayed ACKs only).
const MIN_SAMPLES_EXCLUSIVE: u32 = 2;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VegasConfig {
    /// Lower bound of the backlog diff in packets, half-packet resolution: below it cwnd grows by 1 per
    /// round. Default 2 (Linux); the paper and ns-2 `Agent/TCP/Vegas` use 1.
    pub alpha: f64,
    /// Upper bound of the backlog diff in packets: above it cwnd shrinks by 1 per round. Default 4 (Linux);
    /// paper and ns-2: 3.
    pub beta: f64,
    /// Slow-start exit threshold of diff in packets. Default 1 (Linux, paper and ns-2).
    pub gamma: f64,
}

impl Algorithm for VegasConfig {
    const INFO: AlgorithmInfo = AlgorithmInfo {
        name: "vegas",
        aliases: &[],
        summary: "TCP Vegas: once per RTT, +1/-1/hold from the backlog estimate (Brakmo & Peterson 1995; Linux tcp_vegas.c)",
        default_variant: "linux",
        variants: &[(
            "linux",
            "Linux 2.6.22 tcp_vegas.c as in ns-2.35 TCP-Linux: alpha 2, beta 4, gamma 1, diff from the packets sent in the last round, Reno below 3 samples per round and outside Open",
        )],
        params: &[
            ParamDoc { name: "alpha", doc: "diff below which cwnd grows 1 per RTT, packets, multiple of 0.5 (2; paper/ns-2: 1)" },
            ParamDoc { name: "beta", doc: "diff above which cwnd shrinks 1 per RTT, packets, multiple of 0.5, >= alpha (4; paper/ns-2: 3)" },
            ParamDoc { name: "gamma", doc: "diff above which slow start ends, packets, multiple of 0.5 (1)" },
        ],
    };

    fn variant(name: &str) -> Option<Self> {
        match name {
            "linux" => Some(VegasConfig { alpha: 2.0, beta: 4.0, gamma: 1.0 }),
            _ => None,
        }
    }

    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        for (name, value) in [("alpha", self.alpha), ("beta", self.beta), ("gamma", self.gamma)] {
            if !(value >= 0.0 && value <= 1e6 && (value * 2.0).fract() == 0.0) {
                return Err(err(format!("{field}.{name}"), "must be a multiple of 0.5 packets in [0, 1e6]"));
            }
        }
        if self.beta < self.alpha {
            return Err(err(format!("{field}.beta"), "must be at least alpha"));
        }
        Ok(())
    }

    fn build(self, initial_cwnd: u32) -> AnyCc {
        Vegas::new(self, initial_cwnd).into()
    }
}

pub struct Vegas {
    win: Window,
    /// Thresholds in half packets (<< V_PARAM_SHIFT).
    alpha_half: u64,
    beta_half: u64,
    gamma_half: u64,
    /// Smallest RTT of the connection, µs + 1 (Linux `baseRTT`); None before the first sample.
    base_rtt_us: Option<u64>,
    /// Smallest RTT of the current round, µs + 1 (Linux `minRTT`).
    round_min_rtt_us: Option<u64>,
    /// RTT samples in the current round (Linux `cntRTT`).
    round_samples: u32,
    /// Left and right edges of the round being measured, and cwnd when it started.
    beg_snd_una: u64,
    beg_snd_nxt: u64,
    beg_snd_cwnd: u32,
    /// Vegas is active only in the Open state (Linux `doing_vegas_now`).
    doing_vegas_now: bool,
    /// Whether the first ACK has initialised the round (ns-2 TCP-Linux calls `init` on the first ACK).
    started: bool,
    /// snd_nxt reported by the latest ACK: where a round restarts when recovery ends on that ACK.
    last_snd_nxt: u64,
    /// Last diff computed, packets (for traces).
    last_diff: Option<f64>,
}

impl Vegas {
    pub fn new(cfg: VegasConfig, initial_cwnd: u32) -> Self {
        let half = |packets: f64| (packets * f64::from(1u32 << V_PARAM_SHIFT)) as u64;
        Vegas {
            win: Window::new(initial_cwnd, INFINITE_SSTHRESH),
            alpha_half: half(cfg.alpha),
            beta_half: half(cfg.beta),
            gamma_half: half(cfg.gamma),
            base_rtt_us: None,
            round_min_rtt_us: None,
            round_samples: 0,
            beg_snd_una: 0,
            beg_snd_nxt: 0,
            beg_snd_cwnd: 0,
            doing_vegas_now: false,
            started: false,
            last_snd_nxt: 0,
            last_diff: None,
        }
    }

    /// Linux `vegas_enable`: a new round starts at snd_nxt. `beg_snd_una` and `beg_snd_cwnd` are left as
    /// they were, as in Linux.
    fn enable(&mut self, snd_nxt: u64) {
        self.doing_vegas_now = true;
        self.beg_snd_nxt = snd_nxt;
        self.round_samples = 0;
        self.round_min_rtt_us = None;
    }

    /// Linux 2.6.22 `tcp_reno_cong_avoid` with ACK counting (no ABC).
    fn reno_step(&mut self, cwnd_limited: bool) {
        if !cwnd_limited {
            return;
        }
        if self.win.in_slow_start_2_6() {
            self.win.slow_start_per_ack();
        } else {
            let w = self.win.cwnd;
            self.win.additive_increase(w, 1);
        }
    }

    /// The once-per-round Vegas decision (Linux `tcp_vegas_cong_avoid`, the `after(ack, beg_snd_nxt)` branch).
    fn end_of_round(&mut self, s: &AckSample) {
        let old_wnd = self.beg_snd_nxt.saturating_sub(self.beg_snd_una);
        let old_snd_cwnd = self.beg_snd_cwnd;
        self.beg_snd_una = self.beg_snd_nxt;
        self.beg_snd_nxt = s.snd_nxt;
        self.beg_snd_cwnd = self.win.cwnd;

        match (self.base_rtt_us, self.round_min_rtt_us) {
            (Some(base), Some(rtt)) if self.round_samples > MIN_SAMPLES_EXCLUSIVE => {
                // target = old_wnd · baseRTT / minRTT and diff = old_wnd - target, in half packets.
                let target_half = ((old_wnd * base) << V_PARAM_SHIFT) / rtt;
                let diff_half = (old_wnd << V_PARAM_SHIFT).saturating_sub(target_half);
                self.last_diff = Some(diff_half as f64 / f64::from(1u32 << V_PARAM_SHIFT));
                if self.win.in_slow_start_2_6() {
                    if diff_half > self.gamma_half {
                        // Too fast: leave slow start at the rate actually achieved (+1 for truncation).
                        self.win.ssthresh = 2;
                        let achieved = (target_half >> V_PARAM_SHIFT) + 1;
                        self.win.cwnd = self.win.cwnd.min(achieved.min(u32::MAX as u64) as u32);
                    }
                    if s.cwnd_limited {
                        self.win.slow_start_per_ack();
                    }
                } else {
                    let goal = if diff_half > self.beta_half {
                        i64::from(old_snd_cwnd) - 1
                    } else if diff_half < self.alpha_half {
                        i64::from(old_snd_cwnd) + 1
                    } else {
                        i64::from(old_snd_cwnd)
                    };
                    let cwnd = i64::from(self.win.cwnd);
                    if goal > cwnd && s.cwnd_limited {
                        self.win.cwnd += 1;
                    } else if goal < cwnd {
                        self.win.cwnd -= 1;
                    }
                }
                self.win.cwnd = self.win.cwnd.max(2);
            }
            _ => self.reno_step(s.cwnd_limited),
        }
        self.round_samples = 0;
        self.round_min_rtt_us = None;
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn on_ack_sample(&mut self, s: &AckSample) {
        if !self.started {
            self.started = true;
            self.enable(s.snd_nxt);
        } else if !self.doing_vegas_now && !s.in_recovery {
            // Back in Open after an RTO (the sender reports no Loss exit): Linux re-enables on entering Open.
            self.enable(s.snd_nxt);
        }
        self.last_snd_nxt = s.snd_nxt;
        // Linux `tcp_vegas_pkts_acked`: samples from ACKs of new data, in µs + 1 (never zero).
        if let (Some(rtt), true) = (s.rtt, s.acked > 0) {
            let vrtt = rtt.0 / 1_000 + 1;
            self.base_rtt_us = Some(self.base_rtt_us.map_or(vrtt, |b| b.min(vrtt)));
            self.round_min_rtt_us = Some(self.round_min_rtt_us.map_or(vrtt, |m| m.min(vrtt)));
            self.round_samples += 1;
        }
    }

    fn on_ack(&mut self, s: &AckSample) {
        if s.acked == 0 {
            return;
        }
        if !self.doing_vegas_now {
            self.reno_step(s.cwnd_limited);
        } else if s.snd_una > self.beg_snd_nxt {
            self.end_of_round(s);
        } else if self.win.in_slow_start_2_6() && s.cwnd_limited {
            self.win.slow_start_per_ack();
        }
    }

    fn on_congestion_event(&mut self, _e: &CongestionEvent) {
        self.doing_vegas_now = false;
        self.win.reduce_to(self.win.cwnd / 2);
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.win.exit_recovery();
        self.enable(self.last_snd_nxt);
    }

    fn on_timeout(&mut self, _now: SimTime, first_in_episode: bool) {
        self.doing_vegas_now = false;
        let ssthresh = first_in_episode.then_some((self.win.cwnd / 2).max(2));
        self.win.timeout(ssthresh);
    }

    /// `tcp_reno_min_cwnd` (ns-2.35 `tcp/linux/src/tcp_vegas.c`: `.min_cwnd = tcp_reno_min_cwnd`).
    fn min_cwnd(&self) -> u32 {
        reno_min_cwnd(self.win.ssthresh)
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
        out.push(("base_rtt_s", self.base_rtt_us.map_or(f64::NAN, |us| us as f64 / 1e6)));
        out.push(("diff", self.last_diff.unwrap_or(f64::NAN)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

    const BASE_RTT_US: u64 = 100_001; // a 100 ms sample, + 1 µs as Linux stores it

    fn vegas() -> Vegas {
        Vegas::new(<VegasConfig as Algorithm>::variant("linux").unwrap(), 2)
    }

    /// A Vegas instance in the middle of a connection: baseRTT 100 ms known, the round being measured
    /// spans packets 80..100 (old_wnd = 20) and started with cwnd `beg_cwnd`.
    fn mid_connection(cwnd: u32, ssthresh: u32, beg_cwnd: u32) -> Vegas {
        let mut v = vegas();
        v.started = true;
        v.doing_vegas_now = true;
        v.win.cwnd = cwnd;
        v.win.ssthresh = ssthresh;
        v.base_rtt_us = Some(BASE_RTT_US);
        v.beg_snd_una = 80;
        v.beg_snd_nxt = 100;
        v.beg_snd_cwnd = beg_cwnd;
        v
    }

    fn ack(snd_una: u64, rtt_ms: Option<u64>) -> AckSample {
        AckSample {
            acked: 1,
            rtt: rtt_ms.map(SimDuration::from_millis),
            cwnd_limited: true,
            snd_una,
            snd_nxt: snd_una + 20,
            ..Default::default()
        }
    }

    /// ACKs for packets 98, 99 and 100 (snd_una 99, 100, 101): the third passes beg_snd_nxt = 100 and ends
    /// the round with 3 RTT samples.
    fn finish_round(v: &mut Vegas, rtt_ms: u64) {
        for una in 99..=101 {
            let s = ack(una, Some(rtt_ms));
            v.on_ack_sample(&s);
            v.on_ack(&s);
        }
    }

    #[test]
    fn avoidance_adds_one_below_alpha_holds_between_and_removes_one_above_beta() {
        // old_wnd = 20, baseRTT 100001 µs. In half packets: target = 2·20·100001 / minRTT, diff = 40 - target;
        // alpha = 4, beta = 8 half packets.
        // minRTT 100001: target 40, diff 0 < 4 -> goal 20 + 1, cwnd 21.
        let mut v = mid_connection(20, 10, 20);
        finish_round(&mut v, 100);
        assert_eq!((v.cwnd(), v.last_diff), (21, Some(0.0)));
        // minRTT 125001: target = 4000040 / 125001 = 32, diff 8 (4 packets): not > beta, not < alpha: hold.
        let mut v = mid_connection(20, 10, 20);
        finish_round(&mut v, 125);
        assert_eq!((v.cwnd(), v.last_diff), (20, Some(4.0)));
        // minRTT 150001: target = 4000040 / 150001 = 26, diff 14 (7 packets) > 8: goal 19, cwnd 19.
        let mut v = mid_connection(20, 10, 20);
        finish_round(&mut v, 150);
        assert_eq!((v.cwnd(), v.last_diff), (19, Some(7.0)));
        // The next round starts where this one ended: edges 100..121 (snd_nxt of the ACK), and Linux records
        // its cwnd before this decision: 20.
        assert_eq!((v.beg_snd_una, v.beg_snd_nxt, v.beg_snd_cwnd), (100, 121, 20));
    }

    #[test]
    fn no_change_between_round_ends_in_avoidance() {
        // Two ACKs inside the round (snd_una 99, 100 do not pass 100): cwnd stays 20, no Reno growth.
        let mut v = mid_connection(20, 10, 20);
        for una in 99..=100 {
            let s = ack(una, Some(100));
            v.on_ack_sample(&s);
            v.on_ack(&s);
        }
        assert_eq!((v.cwnd(), v.round_samples), (20, 2));
    }

    #[test]
    fn slow_start_ends_at_the_achieved_rate_when_diff_exceeds_gamma() {
        // cwnd 38 in slow start: the two ACKs inside the round add 1 each (40). The round ends with minRTT
        // 150001: target = 26 half packets (13 packets), diff 14 > gamma 2 -> ssthresh 2,
        // cwnd = min(40, 13 + 1) = 14, then the slow-start step of this ACK: 15.
        let mut v = mid_connection(38, INFINITE_SSTHRESH, 38);
        finish_round(&mut v, 150);
        assert_eq!((v.cwnd(), v.ssthresh()), (15, 2));
        // Same round at minRTT 100001: diff 0 <= gamma, slow start goes on: 38 + 3 = 41.
        let mut v = mid_connection(38, INFINITE_SSTHRESH, 38);
        finish_round(&mut v, 100);
        assert_eq!((v.cwnd(), v.ssthresh()), (41, INFINITE_SSTHRESH));
    }

    #[test]
    fn round_with_fewer_than_three_samples_takes_one_reno_step() {
        // Only two ACKs carry an RTT (150 ms, which would mean -1 under Vegas). The round end falls back to
        // Reno: the growth counter is at 19 of 20, so this step completes it: cwnd 20 -> 21.
        let mut v = mid_connection(20, 10, 20);
        v.win.cwnd_cnt = 19;
        for (una, rtt) in [(99, Some(150)), (100, Some(150)), (101, None)] {
            let s = ack(una, rtt);
            v.on_ack_sample(&s);
            v.on_ack(&s);
        }
        assert_eq!((v.cwnd(), v.last_diff), (21, None));
    }

    #[test]
    fn loss_is_reno_and_the_first_round_after_recovery_aims_at_the_pre_loss_window() {
        // Loss at cwnd 40: ssthresh = cwnd = 20, Vegas off. During recovery nothing grows.
        let mut v = mid_connection(40, 30, 40);
        v.on_congestion_event(&CongestionEvent { now: SimTime(0), in_flight: 40, min_rtt: None, srtt: None });
        assert_eq!((v.cwnd(), v.ssthresh(), v.doing_vegas_now), (20, 20, false));
        // Recovery ends on an ACK whose snd_nxt is 150: the new round ends when snd_una passes 150.
        v.on_ack_sample(&AckSample { snd_una: 130, snd_nxt: 150, in_recovery: true, acked: 1, ..Default::default() });
        v.on_recovery_exit(SimTime(0));
        assert_eq!((v.cwnd(), v.beg_snd_nxt, v.doing_vegas_now), (20, 150, true));
        // ACK 149: cwnd = ssthresh is still slow start under Linux 2.6's `<=`, so +1: 21. ACK 150: inside the
        // round, avoidance: nothing. ACK 151 ends the round. Linux kept beg_snd_una = 80 and
        // beg_snd_cwnd = 40 from before the loss, so the round measures old_wnd = 150 - 80 = 70 and aims at
        // 40 -/+ 1: target = 2·70·100001 / 150001 = 93, diff = 140 - 93 = 47 half packets (23.5 > beta),
        // goal 39 > 21, so cwnd still grows: 22.
        for una in 149..=151 {
            let s = AckSample { snd_nxt: una + 21, ..ack(una, Some(150)) };
            v.on_ack_sample(&s);
            v.on_ack(&s);
        }
        assert_eq!((v.cwnd(), v.last_diff), (22, Some(23.5)));
    }

    #[test]
    fn timeout_restarts_reno_slow_start_and_vegas_resumes_in_open() {
        // RTO at cwnd 20: ssthresh 10, cwnd 1; a repeated backoff keeps ssthresh.
        let mut v = mid_connection(20, 30, 20);
        v.on_timeout(SimTime(0), true);
        v.on_timeout(SimTime(0), false);
        assert_eq!((v.cwnd(), v.ssthresh(), v.doing_vegas_now), (1, 10, false));
        // ACKs in the Loss state: Reno slow start, +1 each (1 -> 3), whatever the round edges say.
        for una in 101..=102 {
            let s = AckSample { in_recovery: true, ..ack(una, Some(100)) };
            v.on_ack_sample(&s);
            v.on_ack(&s);
        }
        assert_eq!(v.cwnd(), 3);
        // First ACK back in Open (snd_nxt 125): Vegas restarts a round there, baseRTT is kept.
        let s = AckSample { snd_nxt: 125, ..ack(105, Some(100)) };
        v.on_ack_sample(&s);
        assert_eq!((v.doing_vegas_now, v.beg_snd_nxt, v.base_rtt_us), (true, 125, Some(BASE_RTT_US)));
    }

    #[test]
    fn base_rtt_is_the_minimum_in_microseconds_plus_one() {
        // Samples 120 ms, 100.0005 ms, 130 ms: baseRTT = 100000 µs (truncated) + 1.
        let mut v = vegas();
        for (una, ns) in [(1, 120_000_000), (2, 100_000_500), (3, 130_000_000)] {
            v.on_ack_sample(&AckSample { acked: 1, snd_una: una, snd_nxt: 4, rtt: Some(SimDuration(ns)), ..Default::default() });
        }
        assert_eq!((v.base_rtt_us, v.round_min_rtt_us, v.round_samples), (Some(100_001), Some(100_001), 3));
    }

    #[test]
    fn thresholds_must_be_half_packet_multiples() {
        let bad = VegasConfig { alpha: 1.3, beta: 3.0, gamma: 1.0 };
        assert_eq!(bad.validate("cc").err().unwrap().field, "cc.alpha");
        let inverted = VegasConfig { alpha: 4.0, beta: 2.0, gamma: 1.0 };
        assert_eq!(inverted.validate("cc").err().unwrap().field, "cc.beta");
    }
}
