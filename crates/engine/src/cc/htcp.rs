//! H-TCP (Leith & Shorten, "H-TCP: TCP for high-speed and long-distance networks", PFLDnet 2004), following
//! Linux 2.6.22.6 `tcp_htcp.c` as bundled with ns-2.35 TCP-Linux (fact sheet §2.4).
//!
//! Increase (paper): with Delta the time since the last congestion event and Delta_L = 1 s,
//!   alpha(Delta) = 1                                              for Delta <= Delta_L,
//!   alpha(Delta) = 1 + 10 (Delta - Delta_L) + ((Delta - Delta_L) / 2)^2   otherwise (Delta in s),
//! the increase actually used is alpha = 2 (1 - beta) alpha(Delta) (so that the mean rate matches Reno's
//! for beta != 0.5), multiplied by RTTmin / 100 ms under RTT scaling; cwnd += alpha / cwnd per packet.
//! Decrease: beta = RTTmin / RTTmax clamped to [0.5, 0.8], or 0.5 when the throughput moved by more than
//! 20 % since the previous congestion event (adaptive reset); ssthresh = cwnd = max(beta cwnd, 2).
//!
//! Linux encoding kept here (1 ms jiffies, alpha and beta << 7):
//! - `htcp_alpha_update`: factor = 1 + (10 d + (d/2)^2 / HZ) / HZ with d = Delta - HZ in jiffies (an
//!   integer); RTT scaling: scale = 8 HZ / (10 RTTmin) clamped to [4, 80], factor = 8 factor / scale (at
//!   least 1), i.e. x RTTmin / 100 ms limited to x0.1 .. x2; alpha = 2 factor (128 - beta). Recomputed
//!   after each +1 packet and at each loss.
//! - growth (`htcp_cong_avoid`): if cnt alpha / 128 >= cwnd then cwnd += 1, cnt = 0, else cnt += packets
//!   acknowledged by this ACK (1 outside the Open state); slow start per ACK while cwnd <= ssthresh.
//! - `htcp_beta_update`, once per loss: bandwidth switch (5 maxB outside [4 old_maxB, 6 old_maxB]: beta =
//!   0.5 and the mode switch off); else with the mode switch on, RTTmin > 10 ms and RTTmax known, beta =
//!   RTTmin / RTTmax clamped to [64, 102] / 128; else beta = 0.5 and the mode switch on. Then RTTmax fades:
//!   RTTmax = RTTmin + 0.95 (RTTmax - RTTmin).
//! - `measure_rtt` (congestion avoidance ACKs only): RTTmin = min of the smoothed RTT; RTTmax sampled only
//!   in the Open state, after the first loss (ssthresh < 0xFFFF), more than 3 RTTmin after the last
//!   congestion event, and only by a value at most 20 ms above the current RTTmax.
//! - `measure_achieved_throughput`: B = packets / time, one sample per >= RTTmin and >= cwnd - alpha
//!   packets, Bi = (3 Bi + B) / 4, maxB = max Bi; restarted within 3 RTTmin of a congestion event.
//! - `htcp_state`/`htcp_reset`: the congestion time `last_cong` is set when Recovery or Loss is entered
//!   (saving the undo copies) and again on every return to Open, so Delta runs from the end of recovery.
//!
//! Variants:
//! - `linux` (default; alias `linux-2.6.22`): Linux 2.6.22.6 as in ns-2.35 TCP-Linux, module defaults
//!   use_rtt_scaling = 1, use_bandwidth_switch = 1.
//! - `paper`: the paper's definitions where they differ from that code in ways that change the window:
//!   Delta runs from the congestion event (not from the end of recovery), alpha(Delta) is evaluated with
//!   1/128 resolution instead of Linux's integer factor, RTTmin and RTTmax come from per-ACK RTT samples
//!   rather than the smoothed RTT, and beta is clamped at 0.8 (102.4/128, the same after rounding). The paper
//!   does not specify how RTTmax and the throughput are sampled, nor the first loss: those keep Linux's
//!   rules. RTT scaling (with Linux's x0.1 .. x2 limits) and the bandwidth switch stay on.
//!
//! Undo: `undo_cwnd` is Linux's `htcp_cwnd_undo`, but the sender has no undo (no DSACK, Eifel or F-RTO;
//! ns-2 TCP-Linux has none either), so nothing calls it yet. The sender reports the end of fast recovery
//! but not the end of the Loss state, so the return to Open after a timeout is taken from the first ACK
//! that arrives outside it.

use super::common::{jiffies, RttSource, Window, INFINITE_SSTHRESH};
use super::registry::{Algorithm, AlgorithmInfo, ParamDoc};
use super::{AckSample, AnyCc, CongestionControl, CongestionEvent, StateField};
use crate::config::{err, ConfigError};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Jiffies per second (ns-2.35 TCP-Linux: 1 ms jiffies).
const HZ: u64 = 1000;
/// alpha = 1.0 in Linux's << 7 fixed point (`ALPHA_BASE`).
const ALPHA_BASE: u32 = 1 << 7;
/// Linux samples RTTmax only once this many RTTmin have passed since the last congestion event, and
/// restarts the throughput estimate before that (`htcp_ccount(ca) > 3`).
const SETTLING_RTTS: u64 = 3;
/// An RTT more than this above RTTmax is taken for an outlier, not a new RTTmax (Linux: 20 ms).
const RTT_MAX_STEP_MS: u64 = 20;
/// Adaptive backoff needs RTTmin above this (Linux `msecs_to_jiffies(10)`).
const MIN_RTT_FOR_ADAPTIVE_BETA_MS: u64 = 10;
/// Linux measures RTTmax only after the first loss: while ssthresh is still at least this.
const SSTHRESH_UNSET: u32 = 0xFFFF;

/// Where Delta, the time since the last congestion event, starts.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeltaOrigin {
    /// When the loss is detected (paper).
    CongestionEvent,
    /// Also restarted when the sender returns to Open (Linux 2.6.22 `htcp_state`).
    RecoveryExit,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HtcpConfig {
    /// Multiply alpha by RTTmin / 100 ms, limited to x0.1 .. x2 (Linux module parameter
    /// `use_rtt_scaling`, default 1).
    pub use_rtt_scaling: bool,
    /// Reset beta to 0.5 when the throughput before a loss moved by more than 20 % since the previous one
    /// (Linux `use_bandwidth_switch`, default 1; the paper's adaptive reset).
    pub use_bandwidth_switch: bool,
    /// Delta_L, ms: Reno-like increase for this long after a congestion event (paper and Linux: 1000).
    pub delta_l_ms: u64,
    /// Smallest backoff factor beta (paper and Linux: 0.5; Linux stores 64/128).
    pub beta_min: f64,
    /// Largest backoff factor beta (paper: 0.8; Linux stores 102/128 = 0.797).
    pub beta_max: f64,
    /// RTT read by RTTmin/RTTmax: "srtt" (Linux 2.6.22) or "sample" (paper).
    pub rtt_source: RttSource,
    /// Delta runs from "congestion_event" (paper) or is restarted at "recovery_exit" (Linux 2.6.22).
    pub delta_origin: DeltaOrigin,
    /// alpha(Delta) as Linux's integer factor (true) or with 1/128 resolution (false, paper).
    pub integer_alpha: bool,
}

impl Algorithm for HtcpConfig {
    const INFO: AlgorithmInfo = AlgorithmInfo {
        name: "htcp",
        aliases: &["h-tcp"],
        summary: "H-TCP: increase grows with the time since the last loss, backoff beta = RTTmin/RTTmax (Leith & Shorten 2004)",
        default_variant: "linux",
        variants: &[
            ("linux", "Linux 2.6.22.6 tcp_htcp.c as in ns-2.35 TCP-Linux: use_rtt_scaling=1, use_bandwidth_switch=1, smoothed RTT, Delta restarts at recovery exit"),
            ("linux-2.6.22", "alias of 'linux'"),
            ("paper", "Leith & Shorten, PFLDnet 2004: Delta from the congestion event, exact alpha(Delta), RTT samples, beta <= 0.8; Linux's sampling rules otherwise"),
        ],
        params: &[
            ParamDoc { name: "use_rtt_scaling", doc: "scale alpha by RTTmin/100 ms, limited to x0.1..x2 (true)" },
            ParamDoc { name: "use_bandwidth_switch", doc: "beta = 0.5 when throughput moved > 20 % between losses (true)" },
            ParamDoc { name: "delta_l_ms", doc: "Delta_L, ms of Reno-like increase after a loss, >= 1 (1000)" },
            ParamDoc { name: "beta_min", doc: "smallest backoff factor, 0 < beta_min <= beta_max < 1 (0.5)" },
            ParamDoc { name: "beta_max", doc: "largest backoff factor (0.8; Linux 102/128)" },
            ParamDoc { name: "rtt_source", doc: "'srtt' (Linux 2.6.22) or 'sample' (paper) for RTTmin/RTTmax" },
            ParamDoc { name: "delta_origin", doc: "'recovery_exit' (Linux 2.6.22) or 'congestion_event' (paper)" },
            ParamDoc { name: "integer_alpha", doc: "Linux's integer alpha(Delta) factor (true) or 1/128 resolution (false)" },
        ],
    };

    fn variant(name: &str) -> Option<Self> {
        match name {
            "linux" | "linux-2.6.22" => Some(HtcpConfig {
                use_rtt_scaling: true,
                use_bandwidth_switch: true,
                delta_l_ms: 1000,
                beta_min: 64.0 / 128.0,
                beta_max: 102.0 / 128.0,
                rtt_source: RttSource::Srtt,
                delta_origin: DeltaOrigin::RecoveryExit,
                integer_alpha: true,
            }),
            "paper" => Some(HtcpConfig {
                use_rtt_scaling: true,
                use_bandwidth_switch: true,
                delta_l_ms: 1000,
                beta_min: 0.5,
                beta_max: 0.8,
                rtt_source: RttSource::Sample,
                delta_origin: DeltaOrigin::CongestionEvent,
                integer_alpha: false,
            }),
            _ => None,
        }
    }

    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if !(self.beta_min > 0.0 && self.beta_min < 1.0) {
            return Err(err(format!("{field}.beta_min"), "must be in (0, 1)"));
        }
        if !(self.beta_max >= self.beta_min && self.beta_max < 1.0) {
            return Err(err(format!("{field}.beta_max"), "must be in [beta_min, 1)"));
        }
        if self.delta_l_ms == 0 {
            return Err(err(format!("{field}.delta_l_ms"), "must be at least 1"));
        }
        Ok(())
    }

    fn build(self, initial_cwnd: u32) -> AnyCc {
        Htcp::new(self, initial_cwnd).into()
    }
}

pub struct Htcp {
    cfg: HtcpConfig,
    win: Window,
    /// beta_min and beta_max << 7.
    beta_min: u32,
    beta_max: u32,
    /// Increase per RTT, << 7.
    alpha: u32,
    /// Backoff factor, << 7.
    beta: u32,
    /// Adaptive backoff is allowed (Linux `modeswitch`: off until one loss has passed without a switch).
    modeswitch: bool,
    /// Packets acknowledged by the current ACK in the Open state; what one growth step counts.
    pkts_acked: u32,
    /// Packets acknowledged since the last throughput sample.
    packetcount: u32,
    /// RTTmin and RTTmax, jiffies (0 = none yet).
    min_rtt: u64,
    max_rtt: u64,
    /// Jiffy of the last congestion event (Delta = now - last_cong).
    last_cong: u64,
    /// Throughput samples, packets per second: EWMA Bi, its max since the last loss, the max before it.
    bi: u32,
    min_b: u32,
    max_b: u32,
    old_max_b: u32,
    /// Jiffy of the last throughput sample.
    lasttime: u64,
    /// Copies kept by `htcp_reset` for Linux's undo.
    undo_last_cong: u64,
    undo_max_rtt: u64,
    undo_old_max_b: u32,
    /// A timeout happened and the sender has not been seen back in Open yet (the trait reports the end of
    /// fast recovery, not of the Loss state).
    in_loss: bool,
}

impl Htcp {
    pub fn new(cfg: HtcpConfig, initial_cwnd: u32) -> Self {
        Htcp {
            win: Window::new(initial_cwnd, INFINITE_SSTHRESH),
            beta_min: (cfg.beta_min * 128.0).round() as u32,
            beta_max: (cfg.beta_max * 128.0).round() as u32,
            alpha: ALPHA_BASE,
            beta: (cfg.beta_min * 128.0).round() as u32,
            modeswitch: false,
            pkts_acked: 1,
            packetcount: 0,
            min_rtt: 0,
            max_rtt: 0,
            last_cong: 0,
            bi: 0,
            min_b: 0,
            max_b: 0,
            old_max_b: 0,
            lasttime: 0,
            undo_last_cong: 0,
            undo_max_rtt: 0,
            undo_old_max_b: 0,
            in_loss: false,
            cfg,
        }
    }

    /// Linux `htcp_ccount`: RTTmin periods since the last congestion event.
    fn ccount(&self, now: u64) -> u64 {
        now.saturating_sub(self.last_cong) / self.min_rtt.max(1)
    }

    /// Linux `htcp_reset`, on entering Recovery or Loss: keep the undo copies, restart Delta.
    fn reset(&mut self, now: u64) {
        self.undo_last_cong = self.last_cong;
        self.undo_max_rtt = self.max_rtt;
        self.undo_old_max_b = self.old_max_b;
        self.last_cong = now;
    }

    /// Linux `htcp_state(TCP_CA_Open)`.
    fn enter_open(&mut self, now: u64) {
        if self.cfg.delta_origin == DeltaOrigin::RecoveryExit {
            self.last_cong = now;
        }
    }

    /// Linux `measure_rtt`, on congestion-avoidance ACKs.
    fn measure_rtt(&mut self, now: u64, rtt: u64, open: bool) {
        if self.min_rtt > rtt || self.min_rtt == 0 {
            self.min_rtt = rtt;
        }
        if open && self.win.ssthresh < SSTHRESH_UNSET && self.ccount(now) > SETTLING_RTTS {
            if self.max_rtt < self.min_rtt {
                self.max_rtt = self.min_rtt;
            }
            if self.max_rtt < rtt && rtt <= self.max_rtt + RTT_MAX_STEP_MS {
                self.max_rtt = rtt;
            }
        }
    }

    /// Linux `measure_achieved_throughput` (the `pkts_acked` hook, ACKs that advance snd_una).
    fn measure_achieved_throughput(&mut self, s: &AckSample) {
        let now = jiffies(s.now.0);
        if !s.in_recovery {
            self.pkts_acked = s.acked;
        }
        if !self.cfg.use_bandwidth_switch {
            return;
        }
        if s.in_recovery {
            self.packetcount = 0;
            self.lasttime = now;
            return;
        }
        self.packetcount += s.acked;
        // A sample covers about one window (cwnd - alpha packets) and at least RTTmin.
        let step = (self.alpha >> 7).max(1);
        let window_done = self.win.cwnd.checked_sub(step).is_some_and(|need| self.packetcount >= need);
        let elapsed = now.saturating_sub(self.lasttime);
        if window_done && elapsed >= self.min_rtt && self.min_rtt > 0 {
            let cur_bi = (self.packetcount as u64 * HZ / elapsed) as u32;
            if self.ccount(now) <= SETTLING_RTTS {
                // Just after a backoff: start afresh.
                self.min_b = cur_bi;
                self.max_b = cur_bi;
                self.bi = cur_bi;
            } else {
                self.bi = ((3 * self.bi as u64 + cur_bi as u64) / 4) as u32;
                self.max_b = self.max_b.max(self.bi);
                self.min_b = self.min_b.min(self.max_b);
            }
            self.packetcount = 0;
            self.lasttime = now;
        }
    }

    /// Linux `htcp_beta_update`.
    fn beta_update(&mut self) {
        if self.cfg.use_bandwidth_switch {
            let max_b = self.max_b;
            let old_max_b = self.old_max_b;
            self.old_max_b = max_b;
            // Linux `between(5 maxB, 4 old_maxB, 6 old_maxB)` in wrapping u32 arithmetic: |maxB/old - 1| <= 0.2.
            let low = old_max_b.wrapping_mul(4);
            let steady = old_max_b.wrapping_mul(6).wrapping_sub(low) >= max_b.wrapping_mul(5).wrapping_sub(low);
            if !steady {
                self.beta = self.beta_min;
                self.modeswitch = false;
                return;
            }
        }
        if self.modeswitch && self.min_rtt > MIN_RTT_FOR_ADAPTIVE_BETA_MS && self.max_rtt > 0 {
            let beta = ((self.min_rtt << 7) / self.max_rtt) as u32;
            self.beta = beta.clamp(self.beta_min, self.beta_max);
        } else {
            self.beta = self.beta_min;
            self.modeswitch = true;
        }
    }

    /// Linux `htcp_alpha_update`: alpha = 2 (1 - beta) alpha(Delta), RTT-scaled, << 7.
    fn alpha_update(&mut self, now: u64) {
        let diff = now.saturating_sub(self.last_cong);
        let d = diff.saturating_sub(self.cfg.delta_l_ms);
        let scaling = self.cfg.use_rtt_scaling && self.min_rtt > 0;
        // 100 ms / RTTmin in eighths, limited to [0.5, 10] (so alpha scales by x0.1 .. x2).
        let scale = (((HZ << 3) / (10 * self.min_rtt.max(1))).clamp(1 << 2, 10 << 3)) as u64;
        // factor_128 = alpha(Delta) * 128.
        let factor_128 = if self.cfg.integer_alpha {
            let mut factor: u64 = 1;
            // Linux computes (d/2)^2 in u32, which wraps once Delta - Delta_L exceeds 131 s; not here.
            if diff > self.cfg.delta_l_ms {
                factor = 1 + (10 * d + (d / 2) * (d / 2) / HZ) / HZ;
            }
            if scaling {
                factor = ((factor << 3) / scale).max(1);
            }
            factor << 7
        } else {
            // 128 (1 + 10 d + (d/2)^2) with d in s = 128 + 1280 d_ms / 1000 + 32 d_ms^2 / 10^6.
            let d = d as u128;
            let mut factor_128 = ((128_000_000 + 1_280_000 * d + 32 * d * d) / 1_000_000) as u64;
            if scaling {
                factor_128 = ((factor_128 << 3) / scale).max(1);
            }
            factor_128
        };
        let alpha = (2 * factor_128 * (128 - self.beta as u64)) >> 7;
        self.alpha = if alpha == 0 { ALPHA_BASE } else { alpha.min(u32::MAX as u64) as u32 };
    }

    /// Linux `htcp_param_update` + `htcp_recalc_ssthresh`, at a loss: new beta and alpha, fade RTTmax.
    fn recalc_ssthresh(&mut self, now: u64) -> u32 {
        let (min_rtt, max_rtt) = (self.min_rtt, self.max_rtt);
        self.beta_update();
        self.alpha_update(now);
        if min_rtt > 0 && max_rtt > min_rtt {
            self.max_rtt = min_rtt + (max_rtt - min_rtt) * 95 / 100;
        }
        (((self.win.cwnd as u64 * self.beta as u64) >> 7) as u32).max(2)
    }

    /// Linux `htcp_cwnd_undo`: forget the last reduction's effect on Delta, RTTmax and the throughput
    /// history, and return the window to restore, max(cwnd, ssthresh / beta). The sender has no undo
    /// (no DSACK, Eifel or F-RTO), so nothing calls this yet.
    pub fn undo_cwnd(&mut self) -> u32 {
        self.last_cong = self.undo_last_cong;
        self.max_rtt = self.undo_max_rtt;
        self.old_max_b = self.undo_old_max_b;
        self.win.cwnd.max(((self.win.ssthresh as u64) << 7).checked_div(self.beta as u64).unwrap_or(0) as u32)
    }
}

impl CongestionControl for Htcp {
    fn name(&self) -> &'static str {
        "htcp"
    }

    fn on_ack_sample(&mut self, s: &AckSample) {
        if self.in_loss && !s.in_recovery {
            // The previous ACK ended the Loss state: Linux calls htcp_state(TCP_CA_Open) there.
            self.in_loss = false;
            self.enter_open(jiffies(s.now.0));
        }
        if s.acked > 0 {
            self.measure_achieved_throughput(s);
        }
    }

    fn on_ack(&mut self, s: &AckSample) {
        if !s.cwnd_limited || s.acked == 0 {
            return;
        }
        if self.win.in_slow_start_2_6() {
            self.win.slow_start_per_ack();
            return;
        }
        let now = jiffies(s.now.0);
        if let Some(rtt) = self.cfg.rtt_source.of(s) {
            self.measure_rtt(now, jiffies(rtt.0), !s.in_recovery);
        }
        // cwnd += alpha / cwnd per packet: +1 once cnt * alpha / 128 reaches cwnd (checked before counting).
        if (self.win.cwnd_cnt as u64 * self.alpha as u64) >> 7 >= self.win.cwnd as u64 {
            self.win.cwnd += 1;
            self.win.cwnd_cnt = 0;
            self.alpha_update(now);
        } else {
            self.win.cwnd_cnt += self.pkts_acked;
        }
        self.pkts_acked = 1;
    }

    fn on_congestion_event(&mut self, e: &CongestionEvent) {
        let now = jiffies(e.now.0);
        if self.in_loss {
            // Fast retransmit right after the ACK that ended the Loss state: Open was entered first.
            self.in_loss = false;
            self.enter_open(now);
        }
        let ssthresh = self.recalc_ssthresh(now);
        self.reset(now);
        self.win.reduce_to(ssthresh);
    }

    fn on_recovery_exit(&mut self, now: SimTime) {
        self.enter_open(jiffies(now.0));
        self.win.exit_recovery();
    }

    fn on_timeout(&mut self, now: SimTime, first_in_episode: bool) {
        let now = jiffies(now.0);
        let ssthresh = first_in_episode.then(|| self.recalc_ssthresh(now));
        // Linux enters the Loss state on every timeout, so htcp_reset runs each time.
        self.reset(now);
        self.in_loss = true;
        self.win.timeout(ssthresh);
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
        out.push(("alpha", self.alpha as f64 / 128.0));
        out.push(("beta", self.beta as f64 / 128.0));
        out.push(("rtt_min_s", self.min_rtt as f64 / HZ as f64));
        out.push(("rtt_max_s", self.max_rtt as f64 / HZ as f64));
        out.push(("last_cong_s", self.last_cong as f64 / HZ as f64));
        out.push(("max_b_pps", self.max_b as f64));
        out.push(("modeswitch", f64::from(u8::from(self.modeswitch))));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

    fn htcp(variant: &str, cwnd: u32, ssthresh: u32) -> Htcp {
        let mut c = Htcp::new(<HtcpConfig as Algorithm>::variant(variant).unwrap(), cwnd);
        c.win.ssthresh = ssthresh;
        c
    }
    /// One ACK of `acked` packets at `ms`, smoothed RTT and sample both `rtt_ms`, in the Open state.
    fn ack(ms: u64, acked: u32, rtt_ms: u64) -> AckSample {
        let rtt = Some(SimDuration::from_millis(rtt_ms));
        AckSample { now: SimTime(ms * 1_000_000), acked, rtt, srtt: rtt, cwnd_limited: true, ..Default::default() }
    }
    fn feed(c: &mut Htcp, s: &AckSample) {
        c.on_ack_sample(s);
        c.on_ack(s);
    }
    fn loss(ms: u64) -> CongestionEvent {
        CongestionEvent { now: SimTime(ms * 1_000_000), in_flight: 0, min_rtt: None, srtt: None }
    }

    #[test]
    fn alpha_follows_the_paper_formula_with_linux_rtt_scaling_limits() {
        // Delta = 3 s, Delta_L = 1 s: alpha(Delta) = 1 + 10 * 2 + (2/2)^2 = 22 (Linux: 1 + (20000 + 1000^2/1000)
        // / 1000 = 22). beta 0.5: alpha = 2 * 0.5 * 22 = 22, stored << 7 as 2 * 22 * 64 = 2816.
        let mut c = htcp("linux", 100, 50);
        let cases = [
            (100, 2816), // scale 8000 / 1000 = 8 -> factor 22 * 8 / 8 = 22
            (50, 1408),  // scale 16 -> factor 11: x RTTmin / 100 ms
            (300, 5632), // scale 800/300 = 2, clamped to 4 -> factor 44: at most x2
            (5, 256),    // scale 160, clamped to 80 -> factor 22 * 8 / 80 = 2 (x0.1 = 2.2, truncated)
        ];
        for (min_rtt, alpha) in cases {
            c.min_rtt = min_rtt;
            c.alpha_update(3000);
            assert_eq!(c.alpha, alpha, "min_rtt {min_rtt}");
        }
        // Without RTT scaling the 50 ms flow keeps the full 22.
        c.cfg.use_rtt_scaling = false;
        c.min_rtt = 50;
        c.alpha_update(3000);
        assert_eq!(c.alpha, 2816);
        // beta 102/128: alpha = 2 * 22 * (128 - 102) = 1144, i.e. 2 (1 - 0.797) 22 = 8.94 packets per RTT.
        c.beta = 102;
        c.alpha_update(3000);
        assert_eq!(c.alpha, 1144);
        // Within Delta_L: alpha(Delta) = 1, alpha = 2 * 1 * 26 = 52.
        c.alpha_update(1000);
        assert_eq!(c.alpha, 52);
    }

    #[test]
    fn paper_variant_evaluates_alpha_exactly_where_linux_truncates() {
        // Delta = 1.5 s: alpha(Delta) = 1 + 10 * 0.5 + 0.25^2 = 6.0625 = 776/128. Linux: factor =
        // 1 + (5000 + 250^2/1000) / 1000 = 1 + 5062/1000 = 6. RTTmin 100 ms (scale 1), beta 0.5:
        // alpha = 2 * 0.5 * alpha(Delta): 776 (paper) vs 6 * 128 = 768 (Linux).
        let mut paper = htcp("paper", 100, 50);
        let mut linux = htcp("linux", 100, 50);
        for c in [&mut paper, &mut linux] {
            c.min_rtt = 100;
            c.alpha_update(1500);
        }
        assert_eq!((paper.alpha, linux.alpha), (776, 768));
    }

    #[test]
    fn grows_one_packet_per_cwnd_acks_early_and_alpha_per_rtt_after_delta_l() {
        // Congestion avoidance at cwnd 100, all ACKs (one packet each) at t = 3 s, srtt 100 ms.
        // alpha starts at 1 (128): the 2.6.22 test comes before the count, so ACK 101 finds cnt = 100 and
        // adds the packet. Then alpha is recomputed for Delta = 3 s: 22 (2816), and a packet needs
        // cnt * 22 >= 101, i.e. cnt = 5: 5 ACKs to count, the 6th adds (cwnd 102), and again (103).
        let mut c = htcp("linux", 100, 50);
        for _ in 0..100 {
            feed(&mut c, &ack(3000, 1, 100));
        }
        assert_eq!(c.cwnd(), 100);
        feed(&mut c, &ack(3000, 1, 100));
        assert_eq!((c.cwnd(), c.alpha), (101, 2816));
        for _ in 0..5 {
            feed(&mut c, &ack(3000, 1, 100));
        }
        assert_eq!(c.cwnd(), 101);
        feed(&mut c, &ack(3000, 1, 100));
        assert_eq!(c.cwnd(), 102);
        for _ in 0..6 {
            feed(&mut c, &ack(3000, 1, 100));
        }
        assert_eq!(c.cwnd(), 103);
    }

    #[test]
    fn slow_start_adds_one_per_ack_while_cwnd_is_at_most_ssthresh() {
        // 2.6.22: cwnd <= ssthresh is slow start, so 10 -> 11 at ssthresh 10, then congestion avoidance.
        let mut c = htcp("linux", 9, 10);
        feed(&mut c, &ack(0, 1, 100));
        feed(&mut c, &ack(0, 1, 100));
        assert_eq!(c.cwnd(), 11);
        feed(&mut c, &ack(0, 1, 100));
        assert_eq!(c.cwnd(), 11);
    }

    #[test]
    fn backoff_is_half_at_the_first_loss_then_rtt_min_over_rtt_max() {
        // Bandwidth switch off to isolate the RTT rule. cwnd 100, ssthresh 50 (so RTTmax may be sampled).
        let mut c = htcp("linux", 100, 50);
        c.cfg.use_bandwidth_switch = false;
        // t = 1 s, 10 RTTmin after the start: RTTmin = 100, RTTmax follows srtt in steps of at most 20 ms:
        // 110, 130, (160 > 130 + 20: ignored), 150, 160, (200 > 180: ignored).
        for (ms, srtt) in [(1000, 100), (1010, 110), (1020, 130), (1030, 160), (1040, 150), (1050, 160), (1060, 200)] {
            feed(&mut c, &ack(ms, 1, srtt));
        }
        assert_eq!((c.min_rtt, c.max_rtt, c.cwnd()), (100, 160, 100));
        // First loss: the mode switch is off, so beta = 0.5: ssthresh = cwnd = 50. RTTmax fades:
        // 100 + 60 * 95 / 100 = 157.
        c.on_congestion_event(&loss(2000));
        assert_eq!((c.beta, c.cwnd(), c.ssthresh(), c.max_rtt), (64, 50, 50, 157));
        c.on_recovery_exit(SimTime(2_100_000_000));
        // Delta restarts at 2.1 s. At 2.4 s only 3 RTTmin have passed: srtt 170 is not sampled; at 2.5 s
        // (4 RTTmin) it is (157 < 170 <= 177).
        feed(&mut c, &ack(2400, 1, 170));
        assert_eq!(c.max_rtt, 157);
        feed(&mut c, &ack(2500, 1, 170));
        assert_eq!(c.max_rtt, 170);
        // Second loss: beta = 100 * 128 / 170 = 75 (0.586); cwnd 50 (2 ACKs counted, alpha 11 from the
        // loss at Delta = 2 s needs 5) -> ssthresh = 50 * 75 / 128 = 29. RTTmax fades to 100 + 70 * 0.95 = 166.
        c.on_congestion_event(&loss(3000));
        assert_eq!((c.beta, c.cwnd(), c.max_rtt), (75, 29, 166));
        // A small RTT spread is clamped at beta_max: 12800 / 110 = 116 -> 102.
        c.max_rtt = 110;
        c.win.cwnd = 100;
        c.on_congestion_event(&loss(4000));
        assert_eq!((c.beta, c.cwnd()), (102, 79));
    }

    #[test]
    fn bandwidth_switch_resets_beta_when_throughput_moves_more_than_20_percent() {
        let mut c = htcp("linux", 100, 50);
        c.min_rtt = 100;
        c.max_rtt = 150;
        c.modeswitch = true;
        // maxB 1250 vs 1000 before: 5 * 1250 = 6250 is outside [4000, 6000]: beta 0.5, mode switch off.
        c.old_max_b = 1000;
        c.max_b = 1250;
        c.on_congestion_event(&loss(5000));
        assert_eq!((c.beta, c.modeswitch, c.old_max_b, c.cwnd()), (64, false, 1250, 50));
        // maxB 1300 vs 1250: 6500 in [5000, 7500], steady, but the mode switch is off: 0.5 again, switch on.
        c.max_b = 1300;
        c.on_congestion_event(&loss(6000));
        assert_eq!((c.beta, c.modeswitch, c.cwnd()), (64, true, 25));
        // Steady again: adaptive. RTTmax faded twice: 150 -> 147 -> 144; beta = 12800 / 144 = 88;
        // ssthresh = 25 * 88 / 128 = 17.
        c.on_congestion_event(&loss(7000));
        assert_eq!((c.beta, c.cwnd()), (88, 17));
        // The first loss of a connection that has measured some throughput (old maxB 0) always switches.
        let mut first = htcp("linux", 100, 50);
        first.max_b = 500;
        first.on_congestion_event(&loss(1000));
        assert_eq!((first.beta, first.modeswitch), (64, false));
    }

    #[test]
    fn throughput_is_sampled_once_per_rtt_and_restarted_after_a_backoff() {
        // cwnd 10 (a sample needs >= cwnd - 1 = 9 packets and >= RTTmin = 100 ms). Only the ACK hook is fed,
        // so cwnd stays 10. One packet every 10 ms: samples at 100, 200, 300 ms of 10 packets / 100 ms =
        // 100 packets/s; within 3 RTTmin of the last congestion event (t = 0) they restart the estimate.
        let mut c = htcp("linux", 10, 5);
        c.min_rtt = 100;
        for ms in (10..=400).step_by(10) {
            c.on_ack_sample(&ack(ms, 1, 100));
        }
        // At 400 ms (4 RTTmin): Bi = (3 * 100 + 100) / 4 = 100.
        assert_eq!((c.bi, c.max_b), (100, 100));
        // Two packets per ACK from 410 ms: 20 packets by 500 ms (200/s): Bi = (300 + 200) / 4 = 125,
        // then at 600 ms Bi = (375 + 200) / 4 = 143.
        for ms in (410..=600).step_by(10) {
            c.on_ack_sample(&ack(ms, 2, 100));
        }
        assert_eq!((c.bi, c.max_b), (143, 143));
        // ACKs during recovery restart the count.
        let mut s = ack(610, 2, 100);
        s.in_recovery = true;
        c.on_ack_sample(&s);
        assert_eq!((c.packetcount, c.lasttime), (0, 610));
    }

    #[test]
    fn delta_restarts_at_recovery_exit_in_linux_and_at_the_loss_in_the_paper() {
        let mut linux = htcp("linux", 100, 50);
        let mut paper = htcp("paper", 100, 50);
        for c in [&mut linux, &mut paper] {
            c.on_congestion_event(&loss(5000));
            c.on_recovery_exit(SimTime(5_500_000_000));
        }
        assert_eq!((linux.last_cong, paper.last_cong), (5500, 5000));
    }

    #[test]
    fn timeout_backs_off_once_resets_delta_each_time_and_reopens_after_loss() {
        // RTO at 4 s, cwnd 100: first loss, beta 0.5 -> ssthresh 50, cwnd 1, Delta restarts (htcp_reset).
        let mut c = htcp("linux", 100, 50);
        c.on_timeout(SimTime(4_000_000_000), true);
        assert_eq!((c.cwnd(), c.ssthresh(), c.last_cong, c.undo_last_cong), (1, 50, 4000, 0));
        // A second back-off keeps ssthresh, but Linux enters Loss again and htcp_reset runs again.
        c.on_timeout(SimTime(5_000_000_000), false);
        assert_eq!((c.ssthresh(), c.last_cong, c.undo_last_cong), (50, 5000, 4000));
        // ACKs in the Loss state slow-start (1 -> 2) and do not touch Delta.
        let mut in_loss = ack(5200, 1, 100);
        in_loss.in_recovery = true;
        feed(&mut c, &in_loss);
        assert_eq!((c.cwnd(), c.last_cong), (2, 5000));
        // The first ACK seen back in Open: Linux's htcp_state(Open) restarts Delta (2.6.22).
        feed(&mut c, &ack(5300, 1, 100));
        assert_eq!((c.cwnd(), c.last_cong), (3, 5300));
    }

    #[test]
    fn undo_restores_delta_and_the_window_before_the_backoff() {
        // Loss at 3 s with cwnd 100 (beta 0.5): ssthresh 50. Undo: last_cong back to 0, and the window
        // max(cwnd, ssthresh / beta) = max(50, 50 * 128 / 64) = 100.
        let mut c = htcp("linux", 100, 50);
        c.on_congestion_event(&loss(3000));
        assert_eq!((c.cwnd(), c.last_cong), (50, 3000));
        assert_eq!(c.undo_cwnd(), 100);
        assert_eq!(c.last_cong, 0);
    }

    #[test]
    fn variants_carry_their_constants() {
        let linux = htcp("linux", 10, 5);
        let paper = htcp("paper", 10, 5);
        // 0.8 * 128 = 102.4 and 102/128 both store 102; 0.5 stores 64.
        assert_eq!((linux.beta_min, linux.beta_max, paper.beta_min, paper.beta_max), (64, 102, 64, 102));
        assert_eq!((linux.cfg.rtt_source, paper.cfg.rtt_source), (RttSource::Srtt, RttSource::Sample));
        assert!(linux.cfg.use_rtt_scaling && linux.cfg.use_bandwidth_switch && linux.cfg.integer_alpha);
        assert!(!paper.cfg.integer_alpha);
        assert_eq!(paper.cfg.delta_origin, DeltaOrigin::CongestionEvent);
        // The paper variant reads RTT samples, Linux the smoothed RTT.
        let mut s = ack(1000, 1, 100);
        s.rtt = Some(SimDuration::from_millis(90));
        let (mut linux, mut paper) = (htcp("linux", 10, 5), htcp("paper", 10, 5));
        feed(&mut linux, &s);
        feed(&mut paper, &s);
        assert_eq!((linux.min_rtt, paper.min_rtt), (100, 90));
    }

    #[test]
    fn builds_from_a_scenario_with_alias_variant_and_override() {
        let spec = serde_json::json!({"name": "h-tcp", "variant": "paper", "use_rtt_scaling": false});
        assert_eq!(crate::cc::registry::build("cc", &spec, 2).unwrap().name(), "htcp");
    }
}
