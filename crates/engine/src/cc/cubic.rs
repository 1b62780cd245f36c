//! CUBIC (Ha, Rhee, Xu, OSR 2008; RFC 9438), following the structure of Linux `tcp_cubic.c`.
//!
//! Window function (RFC 9438 eq. 1-2): W(t) = C (t - K)^3 + W_max, K = cbrt((W_max - cwnd_epoch) / C),
//! evaluated one minimum RTT ahead (t + delay_min). Growth is +1 packet per `cnt` counted units with
//! cnt = cwnd / (W(t) - cwnd). Loss: W_max = cwnd, or cwnd (1 + beta) / 2 under fast convergence when
//! cwnd < W_max; ssthresh = cwnd = max(beta cwnd, 2).
//!
//! Arithmetic is Linux's fixed point (time in 2^-10 s, C and beta in 1/1024) with an exact integer cube
//! root, so results are bit-identical on every machine.
//!
//! Variants (fact sheet §2.7):
//! - `linux` (default; alias `rfc9438`): Linux >= 4.x: beta 717/1024, C 0.4, fast convergence, Reno-friendly
//!   estimate with alpha = 3(1 - beta)/(1 + beta) ~ 0.53 packets/RTT (Linux never switches alpha to 1),
//!   packet counting, cnt >= 2 (target <= 1.5 cwnd as RFC 9438 clamps), cnt <= 20 before the first loss.
//!   HyStart off (as every stored study ran it); `hystart = true` turns it on.
//! - `linux-6`: `linux` with HyStart on, as Linux 6.x runs CUBIC by default (`hystart.rs`: ACK train and
//!   delay increase from cwnd 16, delay threshold delay_min/8 clamped to 4-16 ms, a 1 ms ACK-train
//!   cushion). With HyStart on, `initial_ssthresh` is ignored, as `cubictcp_init` ignores it.
//! - `linux-2.6.22` (CUBIC v2.1 as shipped in ns-2.35 TCP-Linux; the 2006-2008 studies): beta 819/1024
//!   (0.8), C 0.4, max_increment 16 packets per 100 ms of RTT in the convex region, cnt = 50 before the
//!   first loss, Reno estimate with beta_scale 23, ACK counting with the delayed-ACK ratio estimator.

use super::common::{icbrt, Counting, DelayedAckRatio, Window, INFINITE_SSTHRESH};
use super::hystart::{Detect, HyStart, HyStartParams, SlowStartView};
use super::registry::{Algorithm, AlgorithmInfo, ParamDoc};
use crate::config::{err, ConfigError};
use super::{AckSample, AnyCc, CongestionControl, CongestionEvent, FlowContext, StateField};
use crate::time::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};

/// Linux's time unit for the cubic curve: 2^-10 s (`BICTCP_HZ` = 10).
const CUBIC_HZ_SHIFT: u32 = 10;
/// RTT samples this soon after an epoch starts do not update delay_min.
const DELAY_MIN_SETTLE: SimDuration = SimDuration::from_secs(1);
/// Linux recomputes cnt at most every HZ/32 when cwnd is unchanged: 31 ms with 1 ms jiffies.
const RECOMPUTE_INTERVAL_MS: u64 = 1000 / 32;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CubicConfig {
    /// Window kept after a loss (cwnd -> beta * cwnd); stored by Linux as beta * 1024.
    pub beta: f64,
    /// Cubic scaling constant C in packets / s^3.
    pub c: f64,
    /// Release bandwidth faster when W_max shrinks: W_max = cwnd (1 + beta) / 2.
    pub fast_convergence: bool,
    /// Never grow slower than the Reno estimate (the "TCP-friendly region").
    pub tcp_friendliness: bool,
    /// Cap on growth in the convex region, packets per 100 ms of min RTT; 0 disables (2.6.22: 16).
    pub max_increment: u32,
    /// "packets" (modern Linux) or "acks" (2.6.22, with its delayed-ACK ratio estimator).
    pub counting: Counting,
    /// Initial ssthresh in packets; 0 means unlimited.
    pub initial_ssthresh: u32,
    /// Counted units per +1 packet before the first loss: an upper bound (modern, 20) or a fixed value
    /// (2.6.22, 50), see `pre_loss_fixed`.
    pub pre_loss_cnt: u32,
    /// Whether `pre_loss_cnt` is imposed (2.6.22) rather than an upper bound (modern).
    pub pre_loss_fixed: bool,
    /// HyStart (`hystart.rs`): leave slow start on an ACK train or a delay increase, before a loss.
    /// Off in `linux` and `linux-2.6.22`, on in `linux-6`.
    #[serde(default)]
    pub hystart: bool,
    /// HyStart's signals: "both", "ack-train" or "delay" (Linux `hystart_detect` 3, 1, 2).
    #[serde(default = "default_hystart_detect")]
    pub hystart_detect: Detect,
    /// HyStart acts only from this window on, packets (Linux `hystart_low_window` 16).
    #[serde(default = "default_hystart_low_window")]
    pub hystart_low_window: u32,
    /// Largest gap between two ACKs of one ACK train, µs (Linux `hystart_ack_delta_us` 2000).
    #[serde(default = "default_hystart_ack_delta_us")]
    pub hystart_ack_delta_us: u64,
    /// Cap of the ACK-train cushion for GSO batching, µs (Linux >= 5.7: 1000; 0 = none, earlier kernels).
    #[serde(default = "default_hystart_ack_delay_max_us")]
    pub hystart_ack_delay_max_us: u64,
}

// HyStart's defaults are Linux 6.x's module parameters, in every variant: they matter only with
// `hystart = true`, and a document that names no HyStart field still deserialises.
fn default_hystart_detect() -> Detect {
    Detect::Both
}
fn default_hystart_low_window() -> u32 {
    16
}
fn default_hystart_ack_delta_us() -> u64 {
    2000
}
fn default_hystart_ack_delay_max_us() -> u64 {
    1000
}

impl Algorithm for CubicConfig {
    const INFO: AlgorithmInfo = AlgorithmInfo {
        name: "cubic",
        aliases: &[],
        summary: "CUBIC: window a cubic function of time since the last loss (Ha, Rhee, Xu 2008; RFC 9438)",
        default_variant: "linux",
        variants: &[
            ("linux", "Linux >= 4.x tcp_cubic.c (RFC 9438 behaviour): beta 0.7, C 0.4, fast convergence, Reno-friendly region; HyStart off"),
            ("rfc9438", "alias of 'linux'"),
            ("linux-6", "Linux 6.x tcp_cubic.c as the kernel runs it by default: 'linux' with HyStart on (ACK train and delay increase from cwnd 16, delay threshold delay_min/8 in [4, 16] ms, 1 ms ACK-train cushion)"),
            ("linux-2.6.22", "CUBIC v2.1 of Linux 2.6.22 (ns-2.35 TCP-Linux, the 2006-2008 studies): beta 0.8, max_increment 16, cnt 50 before the first loss, ACK counting"),
        ],
        params: &[
            ParamDoc { name: "beta", doc: "window kept after a loss, 0 < beta < 1 (0.7 modern, 0.8 in 2006-2008)" },
            ParamDoc { name: "c", doc: "cubic scaling constant C, packets/s^3, > 0 (0.4)" },
            ParamDoc { name: "fast_convergence", doc: "lower W_max when losses come before reaching it (true)" },
            ParamDoc { name: "tcp_friendliness", doc: "never grow slower than the Reno estimate (true)" },
            ParamDoc { name: "max_increment", doc: "cap on convex growth, packets per 100 ms of RTT; 0 = none (2.6.22: 16)" },
            ParamDoc { name: "counting", doc: "'packets' (modern) or 'acks' (2.6.22, with the delayed-ACK ratio estimator)" },
            ParamDoc { name: "initial_ssthresh", doc: "initial ssthresh in packets, 0 = unlimited" },
            ParamDoc { name: "pre_loss_cnt", doc: "units per +1 packet before the first loss (20 modern, 50 in 2.6.22)" },
            ParamDoc { name: "pre_loss_fixed", doc: "pre_loss_cnt imposed (2.6.22) rather than an upper bound (modern)" },
            ParamDoc { name: "hystart", doc: "HyStart: leave slow start on an ACK train or a delay increase (false; linux-6 true); initial_ssthresh is then ignored" },
            ParamDoc { name: "hystart_detect", doc: "HyStart's signals: 'both', 'ack-train' or 'delay' (both)" },
            ParamDoc { name: "hystart_low_window", doc: "HyStart acts from this window on, packets, >= 1 (16)" },
            ParamDoc { name: "hystart_ack_delta_us", doc: "largest gap between ACKs of one train, µs, >= 1 (2000)" },
            ParamDoc { name: "hystart_ack_delay_max_us", doc: "cap of the ACK-train cushion, µs; 0 = none as before Linux 5.7 (1000)" },
        ],
    };

    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(err(format!("{field}.beta"), "must be in (0, 1)"));
        }
        if !(self.c > 0.0 && self.c.is_finite()) {
            return Err(err(format!("{field}.c"), "must be above 0"));
        }
        if self.pre_loss_cnt == 0 {
            return Err(err(format!("{field}.pre_loss_cnt"), "must be at least 1"));
        }
        if self.hystart_low_window == 0 {
            return Err(err(format!("{field}.hystart_low_window"), "must be at least 1"));
        }
        if self.hystart_ack_delta_us == 0 {
            return Err(err(format!("{field}.hystart_ack_delta_us"), "must be at least 1"));
        }
        Ok(())
    }

    fn build(self, initial_cwnd: u32) -> AnyCc {
        Cubic::new(self, initial_cwnd).into()
    }

    fn variant(name: &str) -> Option<Self> {
        match name {
            "linux" | "rfc9438" => Some(CubicConfig {
                beta: 717.0 / 1024.0,
                c: 0.4,
                fast_convergence: true,
                tcp_friendliness: true,
                max_increment: 0,
                counting: Counting::Packets,
                initial_ssthresh: 0,
                pre_loss_cnt: 20,
                pre_loss_fixed: false,
                hystart: false,
                hystart_detect: default_hystart_detect(),
                hystart_low_window: default_hystart_low_window(),
                hystart_ack_delta_us: default_hystart_ack_delta_us(),
                hystart_ack_delay_max_us: default_hystart_ack_delay_max_us(),
            }),
            "linux-6" => Some(CubicConfig { hystart: true, ..Self::variant("linux")? }),
            "linux-2.6.22" => Some(CubicConfig {
                beta: 819.0 / 1024.0,
                c: 0.4,
                fast_convergence: true,
                tcp_friendliness: true,
                max_increment: 16,
                counting: Counting::Acks,
                initial_ssthresh: 0,
                pre_loss_cnt: 50,
                pre_loss_fixed: true,
                hystart: false,
                hystart_detect: default_hystart_detect(),
                hystart_low_window: default_hystart_low_window(),
                hystart_ack_delta_us: default_hystart_ack_delta_us(),
                hystart_ack_delay_max_us: default_hystart_ack_delay_max_us(),
            }),
            _ => None,
        }
    }
}

pub struct Cubic {
    cfg: CubicConfig,
    win: Window,
    /// beta * 1024, rounded.
    beta_1024: u64,
    /// C * 1024 (Linux `cube_rtt_scale` = bic_scale * 10 = 410 for C = 0.4).
    cube_rtt_scale: u64,
    /// 2^40 / cube_rtt_scale: turns (W_max - cwnd) into K^3 in (2^-10 s)^3.
    cube_factor: u64,
    /// 8 (1 + beta) / (3 (1 - beta)) in Linux's integer form: ACKs per Reno-estimate increment, x8/cwnd.
    beta_scale: u64,

    /// Counted units per +1 packet.
    cnt: u32,
    /// W_max (Linux `last_max_cwnd`).
    last_max_cwnd: u32,
    /// cwnd at the last loss (0 before the first one).
    loss_cwnd: u32,
    last_cwnd: u32,
    last_time_ms: u64,
    epoch_start: Option<SimTime>,
    origin_point: u32,
    /// K in 2^-10 s.
    k: u64,
    delay_min: Option<SimDuration>,
    /// Units counted since the epoch started, for the Reno estimate.
    ack_cnt: u32,
    /// Reno-estimate window.
    tcp_cwnd: u32,
    /// Packets per ACK (2.6.22 only).
    ack_ratio: DelayedAckRatio,
    /// HyStart's state when `cfg.hystart`.
    hystart: Option<HyStart>,
    /// Bytes of a data packet (HyStart's ACK-train cushion), from `attach`.
    packet_size: u32,
}

impl Cubic {
    pub fn new(cfg: CubicConfig, initial_cwnd: u32) -> Self {
        let beta_1024 = (cfg.beta * 1024.0).round() as u64;
        let cube_rtt_scale = ((cfg.c * 1024.0).round() as u64).max(1);
        // Linux `cubictcp_init` applies initial_ssthresh only without HyStart.
        let ssthresh = if cfg.initial_ssthresh == 0 || cfg.hystart { INFINITE_SSTHRESH } else { cfg.initial_ssthresh };
        let hystart = cfg.hystart.then(|| {
            HyStart::new(HyStartParams {
                detect: cfg.hystart_detect,
                low_window: cfg.hystart_low_window,
                ack_delta: SimDuration::from_micros(cfg.hystart_ack_delta_us),
                ack_delay_max: SimDuration::from_micros(cfg.hystart_ack_delay_max_us),
            })
        });
        let mut cubic = Cubic {
            win: Window::new(initial_cwnd, ssthresh),
            beta_1024,
            cube_rtt_scale,
            cube_factor: (1u64 << (10 + 3 * CUBIC_HZ_SHIFT)) / cube_rtt_scale,
            beta_scale: 8 * (1024 + beta_1024) / 3 / (1024 - beta_1024).max(1),
            cfg,
            cnt: 0,
            last_max_cwnd: 0,
            loss_cwnd: 0,
            last_cwnd: 0,
            last_time_ms: 0,
            epoch_start: None,
            origin_point: 0,
            k: 0,
            delay_min: None,
            ack_cnt: 0,
            tcp_cwnd: 0,
            ack_ratio: DelayedAckRatio::default(),
            hystart,
            packet_size: 1500,
        };
        cubic.reset();
        cubic
    }

    /// Linux `bictcp_reset`: forget the epoch, W_max and the delay estimate.
    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.loss_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time_ms = 0;
        self.epoch_start = None;
        self.origin_point = 0;
        self.k = 0;
        self.delay_min = None;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
        self.ack_ratio = DelayedAckRatio::default();
    }

    /// Linux `bictcp_update`: recompute `cnt` for the current window. Most ACKs find cnt still fresh (the
    /// same cwnd, within 1/32 s of the last computation: over 99 % of calls in a Table I cell), so that
    /// test is inlined into `on_ack` and only the recomputation is a call.
    #[inline(always)]
    fn update(&mut self, now: SimTime, units: u32) {
        self.ack_cnt += units;
        let now_ms = now.0 / 1_000_000;
        if self.last_cwnd == self.win.cwnd && now_ms.saturating_sub(self.last_time_ms) <= RECOMPUTE_INTERVAL_MS {
            return;
        }
        self.recompute(now, now_ms, units);
    }

    /// `bictcp_update` past its early return: `cnt` from the cubic curve and the Reno estimate.
    #[inline(never)]
    fn recompute(&mut self, now: SimTime, now_ms: u64, units: u32) {
        let cwnd = self.win.cwnd;
        self.last_cwnd = cwnd;
        self.last_time_ms = now_ms;

        let epoch_start = match self.epoch_start {
            Some(t) => t,
            None => {
                self.epoch_start = Some(now);
                self.ack_cnt = units;
                self.tcp_cwnd = cwnd;
                if self.last_max_cwnd <= cwnd {
                    self.k = 0;
                    self.origin_point = cwnd;
                } else {
                    // K = cbrt((W_max - cwnd) / C), in 2^-10 s.
                    self.k = icbrt(self.cube_factor as u128 * (self.last_max_cwnd - cwnd) as u128);
                    self.origin_point = self.last_max_cwnd;
                }
                now
            }
        };

        // t = now - epoch_start + delay_min, in 2^-10 s: the target is where the curve will be one RTT on.
        let delay_min = self.delay_min.map_or(0, |d| d.0);
        let t_ns = now.since(epoch_start).0 + delay_min;
        let t = ((t_ns as u128) << CUBIC_HZ_SHIFT) / 1_000_000_000;
        let t = t as u64;
        let offs = t.abs_diff(self.k) as u128;
        // delta = C * (t - K)^3 in packets (C = cube_rtt_scale / 2^10, time unit 2^-10 s).
        let delta = (self.cube_rtt_scale as u128 * offs * offs * offs) >> (10 + 3 * CUBIC_HZ_SHIFT);
        let delta = delta.min(u32::MAX as u128) as u32;
        let target = if t < self.k {
            self.origin_point.saturating_sub(delta)
        } else {
            self.origin_point.saturating_add(delta)
        };

        let mut cnt = if target > cwnd { cwnd / (target - cwnd) } else { 100 * cwnd };

        if self.cfg.max_increment > 0 && delay_min > 0 && t >= self.k {
            // At most max_increment packets per 100 ms of RTT: cnt >= cwnd * 100 ms / (max_inc * RTT).
            let min_cnt = (cwnd as u64 * 100_000_000) / (self.cfg.max_increment as u64 * delay_min);
            cnt = cnt.max(min_cnt as u32);
        }

        if self.cfg.pre_loss_fixed {
            if self.loss_cwnd == 0 {
                cnt = self.cfg.pre_loss_cnt;
            }
        } else if self.last_max_cwnd == 0 {
            cnt = cnt.min(self.cfg.pre_loss_cnt);
        }

        if self.cfg.tcp_friendliness {
            // Reno estimate: +1 packet every cwnd * beta_scale / 8 units (~0.53 packets/RTT at beta 0.7).
            let per_increment = ((cwnd as u64 * self.beta_scale) >> 3).max(1) as u32;
            while self.ack_cnt > per_increment {
                self.ack_cnt -= per_increment;
                self.tcp_cwnd += 1;
            }
            if self.tcp_cwnd > cwnd {
                let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
                cnt = cnt.min(max_cnt);
            }
        }

        cnt = match self.cfg.counting {
            // 2.6.22 counts ACKs, so it scales cnt by the measured packets per ACK.
            Counting::Acks => self.ack_ratio.acks_for(cnt),
            // Modern Linux: at most +50 % per RTT.
            Counting::Packets => cnt.max(2),
        };
        self.cnt = cnt;
    }

    /// Linux `bictcp_recalc_ssthresh`: remember W_max and return the reduced window.
    fn recalc_ssthresh(&mut self) -> u32 {
        let cwnd = self.win.cwnd;
        self.epoch_start = None;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && self.cfg.fast_convergence {
            ((cwnd as u64 * (1024 + self.beta_1024)) / 2048) as u32
        } else {
            cwnd
        };
        self.loss_cwnd = cwnd;
        (((cwnd as u64 * self.beta_1024) >> 10) as u32).max(2)
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn on_ack_sample(&mut self, s: &AckSample) {
        // Linux `bictcp_acked`: samples within 1 s of the epoch start are ignored (they still carry the
        // queue built before the reduction).
        let settling = self.epoch_start.is_some_and(|e| s.now.since(e) < DELAY_MIN_SETTLE);
        if let (Some(rtt), false) = (s.rtt, settling) {
            let delay_min = self.delay_min.map_or(rtt, |d| d.min(rtt));
            self.delay_min = Some(delay_min);
            // Linux `cubictcp_acked`: HyStart sees the sample after delay_min has taken it in.
            let in_slow_start = match self.cfg.counting {
                Counting::Acks => self.win.in_slow_start_2_6(),
                Counting::Packets => self.win.in_slow_start(),
            };
            if let (Some(hystart), true) = (&mut self.hystart, in_slow_start) {
                let view = SlowStartView {
                    cwnd: self.win.cwnd,
                    ssthresh: self.win.ssthresh,
                    delay_min,
                    packet_size: self.packet_size,
                };
                if !hystart.found() && hystart.on_rtt_sample(s, rtt, &view) {
                    self.win.ssthresh = self.win.cwnd;
                }
            }
        }
        if self.cfg.counting == Counting::Acks && !s.in_recovery && s.acked > 0 {
            self.ack_ratio.sample(s.acked);
        }
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
                    self.update(s.now, 1);
                    self.win.increase_every(self.cnt);
                }
            }
            Counting::Packets => {
                let mut acked = s.acked;
                if self.win.in_slow_start() {
                    acked = self.win.slow_start(acked);
                    if acked == 0 {
                        return;
                    }
                }
                self.update(s.now, acked);
                self.win.additive_increase(self.cnt, acked);
            }
        }
    }

    fn on_congestion_event(&mut self, _e: &CongestionEvent) {
        let ssthresh = self.recalc_ssthresh();
        self.win.reduce_to(ssthresh);
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.win.exit_recovery();
    }

    fn on_timeout(&mut self, now: SimTime, first_in_episode: bool) {
        // Linux computes ssthresh first, then entering the Loss state resets all CUBIC state and HyStart.
        let ssthresh = first_in_episode.then(|| self.recalc_ssthresh());
        self.reset();
        if let Some(hystart) = &mut self.hystart {
            hystart.restart(now);
        }
        self.win.timeout(ssthresh);
    }

    fn attach(&mut self, ctx: FlowContext) {
        self.packet_size = ctx.packet_size;
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
        out.push(("w_max", self.last_max_cwnd as f64));
        out.push(("k_s", self.k as f64 / 1024.0));
        out.push(("origin", self.origin_point as f64));
        out.push(("reno_cwnd", self.tcp_cwnd as f64));
        out.push(("cnt", self.cnt as f64));
        if let Some(hystart) = &self.hystart {
            out.push(("hystart_found", f64::from(u8::from(hystart.found()))));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cubic(variant: &str, cwnd: u32) -> Cubic {
        let mut c = Cubic::new(<CubicConfig as Algorithm>::variant(variant).unwrap(), cwnd);
        c.win.ssthresh = 2; // start in congestion avoidance
        c
    }
    fn ack_at(ms: u64, acked: u32) -> AckSample {
        AckSample { now: SimTime(ms * 1_000_000), acked, cwnd_limited: true, ..Default::default() }
    }
    fn loss() -> CongestionEvent {
        CongestionEvent { now: SimTime(0), in_flight: 0, min_rtt: None, srtt: None }
    }

    #[test]
    fn loss_reduces_by_beta_and_fast_convergence_lowers_w_max() {
        // Modern: 100 * 717 / 1024 = 70.02 -> 70; W_max = 100.
        let mut c = cubic("linux", 100);
        c.on_congestion_event(&loss());
        assert_eq!((c.cwnd(), c.ssthresh(), c.last_max_cwnd), (70, 70, 100));
        // Second loss at 90 < W_max: W_max = 90 * 1741 / 2048 = 76.5 -> 76; ssthresh = 90 * 717 / 1024 = 63.
        c.win.cwnd = 90;
        c.on_congestion_event(&loss());
        assert_eq!((c.cwnd(), c.last_max_cwnd), (63, 76));
        // 2.6.22: 100 * 819 / 1024 = 79.98 -> 79.
        let mut old = cubic("linux-2.6.22", 100);
        old.on_congestion_event(&loss());
        assert_eq!(old.cwnd(), 79);
    }

    #[test]
    fn k_is_the_time_to_climb_back_to_w_max() {
        // After a loss at 100 (beta 0.7): cwnd 70, W_max 100. K = cbrt(30 / 0.4) s = 4.217 s.
        // In Linux fixed point: cube_factor = 2^40 / 410 = 2681735677; cbrt(2681735677 * 30) = 4316 (2^-10 s).
        let mut c = cubic("linux", 100);
        c.on_congestion_event(&loss());
        c.on_recovery_exit(SimTime(0));
        c.on_ack(&ack_at(1, 1));
        assert_eq!(c.k, 4316);
        assert_eq!(c.origin_point, 100);
    }

    #[test]
    fn window_returns_to_w_max_after_k_and_stays_near_it() {
        // One ACK per packet, a 100 ms RTT (delay_min), cwnd ACKs per RTT. Starting at 70 after a loss at
        // 100, the concave curve reaches W_max = 100 at K = 4.2 s. The curve is evaluated one RTT ahead,
        // so at 4.2 s cwnd is within 2 packets of 100, and one second later the plateau keeps it within
        // 100..=103 (C (1 s)^3 = 0.4 packets above W_max).
        let mut c = cubic("linux", 100);
        c.on_congestion_event(&loss());
        c.on_recovery_exit(SimTime(0));
        let rtt = SimDuration::from_millis(100);
        let mut now_ns: u64 = 0;
        let mut at = |c: &mut Cubic, until_ms: u64| {
            while now_ns < until_ms * 1_000_000 {
                let cwnd = c.cwnd() as u64;
                let s = AckSample { now: SimTime(now_ns), acked: 1, rtt: Some(rtt), cwnd_limited: true, ..Default::default() };
                c.on_ack_sample(&s);
                c.on_ack(&s);
                now_ns += rtt.0 / cwnd;
            }
        };
        at(&mut c, 4217);
        assert!((98..=102).contains(&c.cwnd()), "cwnd at K: {}", c.cwnd());
        at(&mut c, 5217);
        assert!((100..=103).contains(&c.cwnd()), "cwnd at K + 1 s: {}", c.cwnd());
    }

    #[test]
    fn modern_variant_grows_at_least_5_percent_per_rtt_before_the_first_loss() {
        // No loss yet (W_max = 0): K = 0, target ~ cwnd, so cnt = 100 cwnd, capped to 20: +1 per 20 packets.
        let mut c = cubic("linux", 100);
        for _ in 0..19 {
            c.on_ack(&ack_at(0, 1));
        }
        assert_eq!(c.cwnd(), 100);
        c.on_ack(&ack_at(0, 1));
        assert_eq!(c.cwnd(), 101);
    }

    #[test]
    fn old_variant_uses_cnt_50_before_the_first_loss_scaled_by_the_ack_ratio() {
        // 2.6.22: cnt = 50 before any loss, then cnt * 16 / delayed_ack with delayed_ack at its initial
        // 2 << 4 = 32 (no ACK samples fed): cnt = 25, and the 2.6 counter adds 1 per cnt + 1 = 26 ACKs.
        let mut c = cubic("linux-2.6.22", 100);
        for _ in 0..25 {
            c.on_ack(&ack_at(0, 1));
        }
        assert_eq!(c.cwnd(), 100);
        c.on_ack(&ack_at(0, 1));
        assert_eq!(c.cwnd(), 101);
    }

    #[test]
    fn timeout_resets_everything_and_restarts_slow_start() {
        // RTO at cwnd 100 (modern): ssthresh 70, cwnd 1, W_max forgotten.
        let mut c = cubic("linux", 100);
        c.on_timeout(SimTime(0), true);
        assert_eq!((c.cwnd(), c.ssthresh(), c.last_max_cwnd), (1, 70, 0));
        // Slow start: 1 -> 2 -> 4 with 3 ACKs of one packet each.
        for _ in 0..3 {
            c.on_ack(&ack_at(0, 1));
        }
        assert_eq!(c.cwnd(), 4);
    }

    #[test]
    fn delay_min_ignores_samples_in_the_first_second_of_an_epoch() {
        // Epoch starts at 1 ms; a 50 ms sample at 0.5 s is ignored, a 70 ms one at 1.5 s counts.
        let mut c = cubic("linux", 100);
        c.on_ack(&ack_at(1, 1));
        let sample = |ms_now: u64, rtt_ms: u64| AckSample {
            now: SimTime(ms_now * 1_000_000),
            rtt: Some(SimDuration::from_millis(rtt_ms)),
            ..Default::default()
        };
        c.on_ack_sample(&sample(500, 50));
        assert_eq!(c.delay_min, None);
        c.on_ack_sample(&sample(1500, 70));
        assert_eq!(c.delay_min, Some(SimDuration::from_millis(70)));
    }

    #[test]
    fn linux_6_leaves_slow_start_when_hystart_sees_the_delay_rise() {
        // Slow start from cwnd 10, one packet per ACK, ACKs 3 ms apart (too sparse for an ACK train).
        // Round 1 starts with the first ACK (snd_una 1 > 0) and ends at seq 40; its twenty 40 ms samples
        // give delay_min 40 ms and grow cwnd to 30. The ACK for seq 41 starts round 2; its samples are
        // 50 ms, above 40 + clamp(40/8, 4, 16) = 45 ms. The first 8 (cwnd 30..37 before each) only count;
        // the 9th, at cwnd 38, ends slow start: ssthresh = 38, and that ACK goes to congestion
        // avoidance (cnt >= 2), so cwnd stays 38. Without HyStart ('linux') the same ACKs make 39.
        let run = |variant: &str| {
            let mut c = Cubic::new(<CubicConfig as Algorithm>::variant(variant).unwrap(), 10);
            let feed = |c: &mut Cubic, una: u64, ms: u64, rtt_ms: u64| {
                let s = AckSample {
                    now: SimTime(ms * 1_000_000),
                    acked: 1,
                    rtt: Some(SimDuration::from_millis(rtt_ms)),
                    srtt: Some(SimDuration::from_millis(rtt_ms)),
                    cwnd_limited: true,
                    snd_una: una,
                    snd_nxt: if una <= 40 { 40 } else { 100 },
                    ..Default::default()
                };
                c.on_ack_sample(&s);
                c.on_ack(&s);
            };
            for una in 1..=20 {
                feed(&mut c, una, 100 + 3 * una, 40);
            }
            assert_eq!(c.cwnd(), 30);
            for (i, una) in (41..=49).enumerate() {
                feed(&mut c, una, 200 + 3 * i as u64, 50);
            }
            c
        };
        let with = run("linux-6");
        assert_eq!((with.cwnd(), with.ssthresh()), (38, 38));
        let mut out = Vec::new();
        with.state(&mut out);
        assert!(out.contains(&("hystart_found", 1.0)));
        let without = run("linux");
        assert_eq!((without.cwnd(), without.ssthresh()), (39, INFINITE_SSTHRESH));
        // A timeout restarts HyStart: ssthresh 38 * 717 / 1024 = 26.6 -> 26, cwnd 1, found cleared.
        let mut with = with;
        with.on_timeout(SimTime(5_000_000_000), true);
        let mut out = Vec::new();
        with.state(&mut out);
        assert_eq!((with.cwnd(), with.ssthresh()), (1, 26));
        assert!(out.contains(&("hystart_found", 0.0)));
    }

    #[test]
    fn hystart_ignores_initial_ssthresh_and_is_off_in_the_stored_variants() {
        // Linux `cubictcp_init` sets initial_ssthresh only when HyStart is off.
        let build = |variant: &str, hystart: Option<bool>| {
            let mut cfg = <CubicConfig as Algorithm>::variant(variant).unwrap();
            cfg.initial_ssthresh = 50;
            if let Some(h) = hystart {
                cfg.hystart = h;
            }
            Cubic::new(cfg, 10)
        };
        assert_eq!(build("linux-6", None).ssthresh(), INFINITE_SSTHRESH);
        assert_eq!(build("linux", Some(true)).ssthresh(), INFINITE_SSTHRESH);
        assert_eq!(build("linux", None).ssthresh(), 50);
        assert_eq!(build("linux-2.6.22", None).ssthresh(), 50);
        // No HyStart field is traced without it, so the series of existing runs keep their columns.
        let mut out = Vec::new();
        build("linux", None).state(&mut out);
        assert!(out.iter().all(|f| f.0 != "hystart_found"));
    }

    #[test]
    fn hystart_parameters_are_checked_and_documents_without_them_still_build() {
        use crate::cc::registry;
        use serde_json::json;
        let e = registry::build("cc", &json!({"name": "cubic", "hystart_low_window": 0}), 10).err().unwrap();
        assert_eq!(e.field, "cc.hystart_low_window");
        let e = registry::build("cc", &json!({"name": "cubic", "hystart_detect": "rtt"}), 10).err().unwrap();
        assert_eq!(e.field, "cc");
        let c = registry::build("cc", &json!({"name": "cubic", "hystart": true, "hystart_detect": "ack-train"}), 10);
        assert_eq!(c.unwrap().name(), "cubic");
        // A config document written before HyStart existed (no hystart_* keys) deserialises to it off.
        let old: CubicConfig = serde_json::from_value(json!({
            "beta": 0.7, "c": 0.4, "fast_convergence": true, "tcp_friendliness": true, "max_increment": 0,
            "counting": "packets", "initial_ssthresh": 0, "pre_loss_cnt": 20, "pre_loss_fixed": false
        }))
        .unwrap();
        assert!(!old.hystart);
        assert_eq!((old.hystart_low_window, old.hystart_ack_delta_us), (16, 2000));
    }

    #[test]
    fn beta_scale_matches_linux_constants() {
        // 8 (1024 + 717) / 3 / (1024 - 717) = 15 and with 819: 23 (fact sheet §2.7).
        assert_eq!(cubic("linux", 10).beta_scale, 15);
        assert_eq!(cubic("linux-2.6.22", 10).beta_scale, 23);
    }
}
