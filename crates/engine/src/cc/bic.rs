//! BIC, Binary Increase Congestion control (Xu, Harfoush, Rhee, INFOCOM 2004, section VI-A pseudo-code;
//! Linux `tcp_bic.c` 2.6.22 as bundled with ns-2.35 TCP-Linux). Fact sheet §2.6.
//!
//! Increase, per RTT, once cwnd is above low_window (Reno below it):
//! - binary search below W_max: step = (W_max - cwnd) / b toward the midpoint (b = 2 in the paper);
//!   additive increase when the step is clamped at S_max;
//! - max probing at and above W_max, the mirror image: step = (cwnd - W_max) / (b - 1), so the steps grow
//!   S_min, 2 S_min, 4 S_min, ... up to S_max (b - 1 = 1 in the paper, 3 in Linux).
//!
//! The step is applied as Linux applies it: +1 packet per `cnt` ACKs with cnt = cwnd / step, so that cwnd ACKs
//! (one RTT) add `step` packets and the window stays a whole number of packets.
//!
//! Decrease: W_max = cwnd, or cwnd (1 + beta) / 2 when cwnd < W_max (fast convergence, the paper's
//! W_max (2 - β) / 2 with β = 1 - beta); ssthresh = cwnd = beta cwnd, or cwnd / 2 in the low window.
//!
//! Variants (presets of `BicConfig`):
//! - `linux` (default): Linux 2.6.22: b = 4, S_max (`max_increment`) = 16, beta = 819/1024, integer
//!   distances, smooth_part = 20 replacing S_min near W_max, cnt <= 20 before the first loss, `cnt` kept for
//!   up to HZ/32 while cwnd is unchanged, ACK counting scaled by the delayed-ACK ratio estimator.
//! - `paper`: the INFOCOM 2004 pseudo-code: b = 2, S_max = 32, S_min = 0.01, beta = 1 - 0.125, real-valued
//!   steps, ns-2 TCP-SACK slow start and one step per ACK.
//! - `paper-real`: `paper` with the pseudo-code's real-valued window (`real_window`, below).
//!
//! The window, whole or real. The engine's windows are whole packets (`Window`, Linux `snd_cwnd`), and
//! both Linux and the `paper` variant turn a step of less than a packet per RTT into `cnt`, ACKs per +1
//! packet, with the step evaluated at the whole window. Near W_max that differs from the paper, whose
//! pseudo-code adds bic_inc / cwnd to a real-valued cwnd on every ACK (ns-2's `cwnd_` is a double; the
//! sender sends floor(cwnd)):
//! - at cwnd = W_max the paper's step is S_min = 0.01, but the real window is then W_max + 0.0001 after
//!   one ACK, and the step cwnd - W_max grows with it: about 100 ACKs to reach W_max + S_min, then the
//!   distance compounds by 1/cwnd per ACK, so W_max + 1 comes after about 5.6 RTTs (the paper's
//!   "W_max + S_min, + 2 S_min, + 4 S_min, ..." per RTT, compounded per ACK);
//! - with a whole window the step stays S_min until a whole packet is gained: cnt = cwnd / 0.01, one
//!   packet per 100 RTTs (14 s at 140 ms), the crawl that seed 003's Fig. 5 shows (docs/reproductions/seed003.md);
//! - Linux avoids the crawl differently: within b packets of W_max it uses smooth_part (b/20 = 0.2 packet
//!   per RTT), then (b - 1) / (cwnd - W_max) ACKs per packet, never a real-valued window.
//! `real_window` (paper rules only) keeps the window and W_max as fixed-point numbers (2^-32 packet, integer
//! arithmetic, so bit-identical everywhere) and applies the pseudo-code literally: +bic_inc/cwnd per ACK,
//! +1/cwnd below low_window, cwnd x beta and W_max x (1 + beta)/2 on a loss, cwnd x 0.5 below low_window.
//! The sender sees floor(window); ssthresh is floor of the reduced window, and the fraction survives fast
//! recovery (the window after it is the reduced real one, as in the pseudo-code). A timeout or a window
//! set by the sender's `linux-2.6` recovery drops the fraction.

use super::common::{DelayedAckRatio, Window, INFINITE_SSTHRESH};
use super::registry::{Algorithm, AlgorithmInfo, ParamDoc};
use super::{AckSample, AnyCc, CongestionControl, CongestionEvent, StateField};
use crate::config::{err, ConfigError};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Whose window arithmetic to follow; the variants differ in more than constants.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rules {
    /// INFOCOM 2004 pseudo-code on ns-2 TCP-SACK: real-valued step clamped to [s_min, s_max]; BIC engages
    /// when cwnd >= low_window; slow start while cwnd < ssthresh; +1 packet per `cnt` ACKs.
    Paper,
    /// Linux 2.6.22 `bictcp_update`: integer distances, `smooth_part` near W_max; BIC engages when
    /// cwnd > low_window; slow start while cwnd <= ssthresh; +1 packet per `cnt + 1` ACKs.
    Linux,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BicConfig {
    /// Which source's arithmetic: "paper" or "linux" (see `Rules`).
    pub rules: Rules,
    /// Fraction of the window kept after a loss (cwnd -> beta cwnd), applied as beta * 1024 rounded.
    /// Linux: 819/1024 ~ 0.8. Paper: its β = 0.125 is the fraction removed, so 0.875.
    pub beta: f64,
    /// Binary search divisor: the step below W_max is (W_max - cwnd) / b and above it (cwnd - W_max) / (b - 1).
    /// Linux `BICTCP_B` = 4; the paper's midpoint is b = 2.
    pub b: u32,
    /// Largest step, packets per RTT (additive increase). Paper S_max = 32; Linux `max_increment` = 16.
    pub s_max: u32,
    /// Smallest step, packets per RTT; `paper` rules only. Paper S_min = 0.01.
    pub s_min: f64,
    /// `linux` rules only: RTTs spent per b packets near W_max (the step there is b / smooth_part = 0.2
    /// packets per RTT); Linux 20, "log(B/(B*Smin))/log(B/(B-1))+B".
    pub smooth_part: u32,
    /// Reno growth and halving at or below this window (`linux`: cwnd <= 14; `paper`: cwnd < 14), packets.
    pub low_window: u32,
    /// Lower W_max to cwnd (1 + beta) / 2 when a loss comes before cwnd regained W_max. Both sources: on.
    pub fast_convergence: bool,
    /// Initial ssthresh in packets; 0 means unlimited (Linux 2.6.22 and the paper: 0).
    pub initial_ssthresh: u32,
    /// Upper bound on `cnt` (before the ACK-ratio scaling) until the first loss, so the window grows at
    /// least 1/pre_loss_cnt per RTT; 0 = no bound. Linux 20 ("increase cwnd 5% per RTT"); paper 0.
    pub pre_loss_cnt: u32,
    /// Divide `cnt` by the measured packets per ACK (Linux 2.6.22 `delayed_ack` estimator): true in Linux,
    /// false in the paper.
    pub delayed_ack_ratio: bool,
    /// While cwnd is unchanged, reuse `cnt` for up to this many ms: Linux HZ/32 = 31 jiffies of 1 ms (ns-2
    /// TCP-Linux). null: recompute on every ACK (paper).
    pub cnt_reuse_ms: Option<u64>,
    /// `paper` rules only: keep a real-valued window (fixed point) and add bic_inc/cwnd per ACK, as the
    /// pseudo-code does, instead of whole packets counted by `cnt` (see the module comment). false in
    /// `paper` and `linux`, true in `paper-real`.
    #[serde(default)]
    pub real_window: bool,
}

impl Algorithm for BicConfig {
    const INFO: AlgorithmInfo = AlgorithmInfo {
        name: "bic",
        aliases: &[],
        summary: "BIC: binary search toward W_max, additive increase far from it, max probing above (Xu, Harfoush, Rhee 2004)",
        default_variant: "linux",
        variants: &[
            ("linux", "Linux 2.6.22 tcp_bic.c (ns-2.35 TCP-Linux): b 4, max_increment 16, beta 819/1024, smooth_part 20, cnt <= 20 before the first loss, ACK counting with the delayed-ACK ratio"),
            ("paper", "Xu, Harfoush, Rhee, INFOCOM 2004 pseudo-code: midpoint search (b 2), S_max 32, S_min 0.01, beta 0.875 (β = 0.125 removed), low_window 14; whole-packet window"),
            ("paper-real", "'paper' with the pseudo-code's real-valued window (bic_inc/cwnd per ACK), so max probing leaves W_max in about 6 RTTs rather than 100"),
        ],
        params: &[
            ParamDoc { name: "rules", doc: "'linux' (2.6.22 integer table) or 'paper' (real-valued step clamped to [s_min, s_max])" },
            ParamDoc { name: "beta", doc: "window kept after a loss, 0 < beta < 1 (linux 819/1024, paper 0.875)" },
            ParamDoc { name: "b", doc: "search divisor, >= 2: step (W_max - cwnd)/b below W_max, (cwnd - W_max)/(b - 1) above (linux 4, paper 2)" },
            ParamDoc { name: "s_max", doc: "largest step, packets per RTT, >= 1 (linux max_increment 16, paper 32)" },
            ParamDoc { name: "s_min", doc: "smallest step, packets per RTT, 0 < s_min <= s_max; paper rules only (0.01)" },
            ParamDoc { name: "smooth_part", doc: "RTTs per b packets near W_max, >= 1; linux rules only (20)" },
            ParamDoc { name: "low_window", doc: "Reno growth and halving up to this window, packets (14)" },
            ParamDoc { name: "fast_convergence", doc: "W_max = cwnd (1 + beta)/2 when a loss comes below W_max (true)" },
            ParamDoc { name: "initial_ssthresh", doc: "initial ssthresh in packets, 0 = unlimited" },
            ParamDoc { name: "pre_loss_cnt", doc: "cap on ACKs per +1 packet before the first loss, 0 = none (linux 20, paper 0)" },
            ParamDoc { name: "delayed_ack_ratio", doc: "scale cnt by the measured packets per ACK (linux true, paper false)" },
            ParamDoc { name: "cnt_reuse_ms", doc: "keep cnt this long while cwnd is unchanged, ms; null = every ACK (linux 31, paper null)" },
            ParamDoc { name: "real_window", doc: "paper rules only: real-valued window, +bic_inc/cwnd per ACK (paper false, paper-real true)" },
        ],
    };

    fn variant(name: &str) -> Option<Self> {
        match name {
            "linux" => Some(BicConfig {
                rules: Rules::Linux,
                beta: 819.0 / 1024.0,
                b: 4,
                s_max: 16,
                s_min: 0.01,
                smooth_part: 20,
                low_window: 14,
                fast_convergence: true,
                initial_ssthresh: 0,
                pre_loss_cnt: 20,
                delayed_ack_ratio: true,
                cnt_reuse_ms: Some(1000 / 32),
                real_window: false,
            }),
            "paper" => Some(BicConfig {
                rules: Rules::Paper,
                beta: 1.0 - 0.125,
                b: 2,
                s_max: 32,
                s_min: 0.01,
                smooth_part: 20,
                low_window: 14,
                fast_convergence: true,
                initial_ssthresh: 0,
                pre_loss_cnt: 0,
                delayed_ack_ratio: false,
                cnt_reuse_ms: None,
                real_window: false,
            }),
            "paper-real" => Some(BicConfig { real_window: true, ..Self::variant("paper")? }),
            _ => None,
        }
    }

    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(err(format!("{field}.beta"), "must be in (0, 1)"));
        }
        if self.b < 2 {
            return Err(err(format!("{field}.b"), "must be at least 2"));
        }
        if self.s_max == 0 {
            return Err(err(format!("{field}.s_max"), "must be at least 1"));
        }
        if !(self.s_min > 0.0 && self.s_min <= self.s_max as f64) {
            return Err(err(format!("{field}.s_min"), "must be in (0, s_max]"));
        }
        if self.smooth_part == 0 {
            return Err(err(format!("{field}.smooth_part"), "must be at least 1"));
        }
        if self.real_window && self.rules != Rules::Paper {
            return Err(err(format!("{field}.real_window"), "needs rules = \"paper\" (Linux keeps a whole-packet window)"));
        }
        Ok(())
    }

    fn build(self, initial_cwnd: u32) -> AnyCc {
        Bic::new(self, initial_cwnd).into()
    }
}

pub struct Bic {
    cfg: BicConfig,
    win: Window,
    /// beta * 1024, rounded (Linux `beta` over `BICTCP_BETA_SCALE`).
    beta_1024: u64,
    /// ACKs per +1 packet, as last computed.
    cnt: u32,
    /// W_max, packets (Linux `last_max_cwnd`); 0 until the first loss and after a timeout.
    w_max: u32,
    /// The paper's W_min: the window set by the last reduction, where the epoch's search started (afterwards
    /// the search's lower end is cwnd itself). Traced only; 0 until the first loss and after a timeout.
    w_min: u32,
    /// cwnd at the last loss; 0 before the first one (Linux `loss_cwnd`).
    loss_cwnd: u32,
    /// cwnd and time (ms, Linux jiffies) when `cnt` was last computed.
    last_cwnd: u32,
    last_time_ms: u64,
    ack_ratio: DelayedAckRatio,
    /// `real_window` only: the window's fraction of a packet beyond `win.cwnd`, in 2^-32 packet.
    frac: u64,
    /// `real_window` only: W_max in 2^-32 packet (`w_max` then holds its whole part).
    w_max_fx: u64,
    /// `real_window` only: the fraction of the window a reduction left, restored at recovery exit.
    reduced_frac: u64,
}

/// Fixed-point unit of the real-valued window: 2^32 per packet.
const FX_SHIFT: u32 = 32;
const FX_ONE: u64 = 1 << FX_SHIFT;

/// A fraction (beta, S_min) in 2^-32 units, rounded to nearest: exact for 0.875 and 0.5.
fn to_fx(x: f64) -> u64 {
    (x * FX_ONE as f64).round() as u64
}

impl Bic {
    pub fn new(cfg: BicConfig, initial_cwnd: u32) -> Self {
        let ssthresh = if cfg.initial_ssthresh == 0 { INFINITE_SSTHRESH } else { cfg.initial_ssthresh };
        Bic {
            win: Window::new(initial_cwnd, ssthresh),
            beta_1024: (cfg.beta * 1024.0).round() as u64,
            cfg,
            cnt: 0,
            w_max: 0,
            w_min: 0,
            loss_cwnd: 0,
            last_cwnd: 0,
            last_time_ms: 0,
            ack_ratio: DelayedAckRatio::default(),
            frac: 0,
            w_max_fx: 0,
            reduced_frac: 0,
        }
    }

    /// Linux `bictcp_reset`, on entering the Loss state: forget W_max, the first-loss mark and the ratio.
    /// (Linux's `epoch_start` is only ever written in BIC, so it is not kept.)
    fn reset(&mut self) {
        self.cnt = 0;
        self.w_max = 0;
        self.w_min = 0;
        self.loss_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time_ms = 0;
        self.ack_ratio = DelayedAckRatio::default();
        self.w_max_fx = 0;
    }

    /// The real-valued window in 2^-32 packet (`real_window`).
    fn window_fx(&self) -> u64 {
        ((self.win.cwnd as u64) << FX_SHIFT) + self.frac
    }

    fn set_window_fx(&mut self, window: u64) {
        self.win.cwnd = (window >> FX_SHIFT).max(1) as u32;
        self.frac = window & (FX_ONE - 1);
    }

    /// The pseudo-code's "acknowledgment for a new packet" on a real-valued window:
    /// cwnd += 1/cwnd below low_window, else cwnd += bic_inc/cwnd with bic_inc = (W_max - cwnd)/b below
    /// W_max, (cwnd - W_max)/(b - 1) at or above it, clamped to [S_min, S_max].
    fn real_increase(&mut self) {
        let window = self.window_fx();
        let step = if self.in_low_window(self.win.cwnd) {
            FX_ONE
        } else {
            let (w_max, b) = (self.w_max_fx, self.cfg.b as u64);
            let step = if window < w_max { (w_max - window) / b } else { (window - w_max) / (b - 1) };
            step.clamp(to_fx(self.cfg.s_min), (self.cfg.s_max as u64) << FX_SHIFT)
        };
        // step / cwnd in 2^-32 units: (step << 32) / window.
        let increase = ((step as u128) << FX_SHIFT) / window.max(1) as u128;
        self.set_window_fx(window.saturating_add(increase as u64));
    }

    /// The pseudo-code's "entering fast recovery" on a real-valued window: returns the reduced real window;
    /// W_max as `recalc_ssthresh` sets it, but real-valued.
    fn real_reduction(&mut self) -> u64 {
        let window = self.window_fx();
        let scaled = |x: u64, factor: u64| ((x as u128 * factor as u128) >> FX_SHIFT) as u64;
        if self.in_low_window(self.win.cwnd) {
            self.loss_cwnd = self.win.cwnd;
            return window / 2;
        }
        let beta = to_fx(self.cfg.beta);
        self.w_max_fx = if self.cfg.fast_convergence && window < self.w_max_fx {
            // (2 - β)/2 with β = 1 - beta: (1 + beta)/2.
            scaled(window, (FX_ONE + beta) / 2)
        } else {
            window
        };
        self.w_max = (self.w_max_fx >> FX_SHIFT) as u32;
        self.loss_cwnd = self.win.cwnd;
        scaled(window, beta)
    }

    /// Reno region: the paper's `cwnd < low_window`, Linux's `cwnd <= low_window`.
    fn in_low_window(&self, cwnd: u32) -> bool {
        match self.cfg.rules {
            Rules::Paper => cwnd < self.cfg.low_window,
            Rules::Linux => cwnd <= self.cfg.low_window,
        }
    }

    /// Linux `bictcp_update`: recompute `cnt`, unless cwnd is unchanged and it is recent enough. As in
    /// CUBIC, that test is inlined into `on_ack` (most ACKs stop there) and only the recomputation is a call.
    #[inline(always)]
    fn update(&mut self, now: SimTime) {
        let now_ms = now.0 / 1_000_000;
        if let Some(reuse_ms) = self.cfg.cnt_reuse_ms {
            if self.last_cwnd == self.win.cwnd && now_ms.saturating_sub(self.last_time_ms) <= reuse_ms {
                return;
            }
        }
        self.recompute(now_ms);
    }

    /// `bictcp_update` past its early return.
    #[inline(never)]
    fn recompute(&mut self, now_ms: u64) {
        let cwnd = self.win.cwnd;
        self.last_cwnd = cwnd;
        self.last_time_ms = now_ms;

        if self.in_low_window(cwnd) {
            // Reno: one packet per window of ACKs (Linux returns before the caps and the ratio).
            self.cnt = cwnd;
            return;
        }
        let mut cnt = match self.cfg.rules {
            Rules::Paper => self.paper_cnt(cwnd),
            Rules::Linux => self.linux_cnt(cwnd),
        };
        if self.loss_cwnd == 0 && self.cfg.pre_loss_cnt > 0 {
            // No loss yet ("slow start or link utilization is very low"): grow at least 1/pre_loss_cnt per RTT.
            cnt = cnt.min(self.cfg.pre_loss_cnt);
        }
        if self.cfg.delayed_ack_ratio {
            cnt = self.ack_ratio.acks_for(cnt);
        }
        self.cnt = cnt.max(1);
    }

    /// The paper's step in packets per RTT, as ACKs per +1 packet. Its pseudo-code adds step/cwnd per ACK,
    /// a fraction of a packet (S_min = 0.01 is 1/100 of a packet per RTT); one packet therefore needs
    /// cwnd/step ACKs, and counting those ACKs (Linux's `cnt`) keeps the window whole: cnt = floor(cwnd/step).
    /// The step is evaluated at the whole-packet cwnd, so at cwnd = W_max it is S_min alone (100 RTTs for the
    /// next packet), where the paper's real-valued window would have crept past W_max by S_min, 2 S_min, ...
    /// A step above cwnd would need more than one packet per ACK; cnt >= 1 limits it to doubling per RTT.
    fn paper_cnt(&self, cwnd: u32) -> u32 {
        let (window, w_max, b) = (cwnd as f64, self.w_max as f64, self.cfg.b as f64);
        let step = if cwnd < self.w_max {
            // Binary search: halfway (b = 2) to W_max.
            (w_max - window) / b
        } else {
            // Max probing: the distance above W_max, doubling every RTT while below S_max.
            (window - w_max) / (b - 1.0)
        };
        let step = step.clamp(self.cfg.s_min, self.cfg.s_max as f64);
        // f64 division and truncation are exact IEEE operations: bit-identical everywhere.
        (window / step) as u32
    }

    /// Linux 2.6.22 `bictcp_update` table, in integer packets (fact sheet §2.6).
    fn linux_cnt(&self, cwnd: u32) -> u32 {
        let (b, s_max, w_max) = (self.cfg.b, self.cfg.s_max, self.w_max);
        // Near W_max the step is b/smooth_part packets per RTT (0.2 with the defaults). Linux multiplies in
        // u32; saturating only differs for parameters far outside its range.
        let smooth = cwnd.saturating_mul(self.cfg.smooth_part) / b;
        if cwnd < w_max {
            let dist = (w_max - cwnd) / b;
            if dist > s_max {
                cwnd / s_max // additive increase
            } else if dist <= 1 {
                smooth
            } else {
                cwnd / dist // binary search
            }
        } else if cwnd < w_max.saturating_add(b) {
            smooth
        } else if cwnd < w_max.saturating_add(s_max.saturating_mul(b - 1)) {
            cwnd.saturating_mul(b - 1) / (cwnd - w_max) // max probing ("slow start")
        } else {
            cwnd / s_max // additive increase
        }
    }

    /// Linux `bictcp_recalc_ssthresh` / the paper's "entering fast recovery": W_max, then the new ssthresh.
    fn recalc_ssthresh(&mut self) -> u32 {
        let cwnd = self.win.cwnd;
        let low = self.in_low_window(cwnd);
        // The paper returns before touching W_max in the low window; Linux always updates it.
        if !(low && self.cfg.rules == Rules::Paper) {
            self.w_max = if self.cfg.fast_convergence && cwnd < self.w_max {
                ((cwnd as u64 * (1024 + self.beta_1024)) / 2048) as u32
            } else {
                cwnd
            };
        }
        self.loss_cwnd = cwnd;
        let ssthresh = if low { cwnd / 2 } else { ((cwnd as u64 * self.beta_1024) >> 10) as u32 };
        ssthresh.max(2)
    }
}

impl CongestionControl for Bic {
    fn name(&self) -> &'static str {
        "bic"
    }

    fn on_ack_sample(&mut self, s: &AckSample) {
        // Linux `bictcp_acked`: only ACKs in the Open state feed the ratio.
        if !s.in_recovery && s.acked > 0 {
            self.ack_ratio.sample(s.acked);
        }
    }

    fn on_ack(&mut self, s: &AckSample) {
        if !s.cwnd_limited || s.acked == 0 {
            return;
        }
        // Both sources count ACKs, not packets: ns-2 TCP-SACK and Linux 2.6 without ABC.
        match self.cfg.rules {
            Rules::Paper => {
                if self.win.in_slow_start() {
                    self.win.slow_start(1);
                } else if self.cfg.real_window {
                    self.real_increase();
                } else {
                    self.update(s.now);
                    self.win.additive_increase(self.cnt, 1);
                }
            }
            Rules::Linux => {
                if self.win.in_slow_start_2_6() {
                    self.win.slow_start_per_ack();
                } else {
                    self.update(s.now);
                    self.win.increase_every(self.cnt);
                }
            }
        }
    }

    fn on_congestion_event(&mut self, _e: &CongestionEvent) {
        // Linux 2.6 also returns ssthresh from `min_cwnd` as the rate-halving floor; the RFC 6675 sender
        // sets cwnd = ssthresh at once, which is where that floor would leave it.
        if self.cfg.real_window {
            // The reduced real window: ssthresh is its whole part (at least 2), its fraction is kept for
            // the end of recovery.
            let reduced = self.real_reduction();
            let whole = (reduced >> FX_SHIFT) as u32;
            self.win.reduce_to(whole);
            self.reduced_frac = if whole >= 2 { reduced & (FX_ONE - 1) } else { 0 };
            self.frac = self.reduced_frac;
            self.w_min = self.win.cwnd;
            return;
        }
        let ssthresh = self.recalc_ssthresh();
        self.win.reduce_to(ssthresh);
        self.w_min = self.win.cwnd;
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.win.exit_recovery();
        if self.cfg.real_window {
            self.frac = self.reduced_frac;
        }
    }

    fn on_timeout(&mut self, _now: SimTime, first_in_episode: bool) {
        // Linux computes ssthresh first, then entering the Loss state resets BIC. The paper does not say what
        // a timeout does; both variants follow Linux.
        let ssthresh = first_in_episode.then(|| {
            if self.cfg.real_window {
                ((self.real_reduction() >> FX_SHIFT) as u32).max(2)
            } else {
                self.recalc_ssthresh()
            }
        });
        self.reset();
        self.win.timeout(ssthresh);
        self.frac = 0;
        self.reduced_frac = 0;
    }

    fn set_cwnd(&mut self, cwnd: u32) {
        self.win.set_cwnd(cwnd);
        self.frac = 0;
    }

    fn cwnd(&self) -> u32 {
        self.win.cwnd
    }
    fn ssthresh(&self) -> u32 {
        self.win.ssthresh
    }

    fn state(&self, out: &mut Vec<StateField>) {
        let real = |fx: u64| fx as f64 / FX_ONE as f64;
        if self.cfg.real_window {
            out.push(("w_max", real(self.w_max_fx)));
            out.push(("w_min", self.w_min as f64));
            out.push(("window", real(self.window_fx())));
            return;
        }
        out.push(("w_max", self.w_max as f64));
        if self.cfg.rules == Rules::Paper {
            out.push(("w_min", self.w_min as f64));
        }
        out.push(("cnt", self.cnt as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::registry;
    use serde_json::json;

    /// A BIC sender in congestion avoidance (ssthresh 2) at `cwnd`.
    fn bic(variant: &str, cwnd: u32) -> Bic {
        let mut c = Bic::new(<BicConfig as Algorithm>::variant(variant).unwrap(), cwnd);
        c.win.ssthresh = 2;
        c
    }
    fn ack_at(ms: u64) -> AckSample {
        AckSample { now: SimTime(ms * 1_000_000), acked: 1, cwnd_limited: true, ..Default::default() }
    }
    fn loss() -> CongestionEvent {
        CongestionEvent { now: SimTime(0), in_flight: 0, min_rtt: None, srtt: None }
    }
    /// Fast recovery for a loss at `cwnd`, then back in congestion avoidance at cwnd = ssthresh.
    fn lose_at(c: &mut Bic, cwnd: u32) {
        c.win.cwnd = cwnd;
        c.on_congestion_event(&loss());
        c.on_recovery_exit(SimTime(0));
    }
    /// Puts the window at `cwnd` in congestion avoidance (ssthresh 2) with an empty growth counter, as if it
    /// had grown there.
    fn grown_to(c: &mut Bic, cwnd: u32) {
        c.win.cwnd = cwnd;
        c.win.cwnd_cnt = 0;
        c.win.ssthresh = 2;
    }
    /// Feeds one-packet ACKs until cwnd grows by one; returns how many it took.
    fn acks_to_grow(c: &mut Bic) -> u32 {
        let start = c.cwnd();
        let mut acks = 0;
        while c.cwnd() == start {
            c.on_ack(&ack_at(0));
            acks += 1;
        }
        assert_eq!(c.cwnd(), start + 1);
        acks
    }

    #[test]
    fn paper_binary_search_halves_the_distance_to_w_max_each_rtt() {
        // Loss at 100: W_max = 100, cwnd = 100 * 0.875 = 87.5 -> 87 (= W_min).
        // Step (100 - cwnd)/2 per RTT, cnt = floor(cwnd / step) ACKs per packet:
        //  87: 6.5 -> 13.4 -> 13    88: 6 -> 14.7 -> 14    89: 5.5 -> 16.2 -> 16    90: 5 -> 18
        //  91: 4.5 -> 20.2 -> 20    92: 4 -> 23            93: 3.5 -> 26.6 -> 26    94: 3 -> 31.3 -> 31
        //  95: 2.5 -> 38            96: 2 -> 48            97: 1.5 -> 64.7 -> 64    98: 1 -> 98
        //  99: 0.5 -> 198
        // The paper adds step/cwnd per ACK, so exactly cnt ACKs make the next packet.
        let mut c = bic("paper", 100);
        lose_at(&mut c, 100);
        assert_eq!((c.cwnd(), c.ssthresh(), c.w_max, c.w_min), (87, 87, 100, 87));
        let steps: Vec<u32> = (87..100).map(|_| acks_to_grow(&mut c)).collect();
        assert_eq!(steps, [13, 14, 16, 18, 20, 23, 26, 31, 38, 48, 64, 98, 198]);
        // At W_max the distance is 0 and the step is S_min = 0.01: cnt = 100 / 0.01 = 10000 (100 RTTs).
        c.on_ack(&ack_at(0));
        assert_eq!((c.cwnd(), c.cnt), (100, 10_000));
    }

    #[test]
    fn linux_binary_search_moves_a_quarter_of_the_way_then_smooths() {
        // Loss at 100: W_max = 100, ssthresh = cwnd = 100 * 819 / 1024 = 79.98 -> 79.
        // Linux 2.6 slow start runs while cwnd <= ssthresh, so the first ACK makes 80.
        // Then dist = (100 - cwnd) / 4, cnt = cwnd / dist, scaled by the ACK ratio at its initial 2 << 4 = 32
        // (no ACK samples fed): cnt * 16 / 32; the 2.6 counter adds a packet per cnt + 1 ACKs.
        //  80: dist 5, 80/5 = 16 -> 8 -> 9 ACKs
        //  81..84: dist 4, 20 or 21 -> 10 -> 11     85..88: dist 3, 28..29 -> 14 -> 15
        //  89: dist 2, 44 -> 22 -> 23               90..92: dist 2, 45..46 -> 22 or 23 -> 23 or 24
        //  93: dist 1: smooth, 93 * 20 / 4 = 465 -> 232 -> 233 ACKs
        let mut c = bic("linux", 100);
        lose_at(&mut c, 100);
        assert_eq!((c.cwnd(), c.ssthresh(), c.w_max), (79, 79, 100));
        let steps: Vec<u32> = (79..94).map(|_| acks_to_grow(&mut c)).collect();
        assert_eq!(steps, [1, 9, 11, 11, 11, 11, 15, 15, 15, 15, 23, 23, 23, 24, 233]);
    }

    #[test]
    fn far_below_w_max_the_step_is_clamped_to_s_max() {
        // Paper, loss at 1000: cwnd 875, step (1000 - 875)/2 = 62.5 clamped to S_max = 32: cnt = 875/32 = 27.3
        // -> 27 ACKs (32 packets per RTT of 875 ACKs).
        let mut paper = bic("paper", 1000);
        lose_at(&mut paper, 1000);
        assert_eq!(paper.cwnd(), 875);
        assert_eq!(acks_to_grow(&mut paper), 27);
        // Linux, loss at 1000: cwnd 1000 * 819 / 1024 = 799.8 -> 799, one slow-start ACK to 800, then
        // dist 200/4 = 50 > 16: cnt = 800/16 = 50, scaled 50 * 16 / 32 = 25 -> 26 ACKs.
        let mut linux = bic("linux", 1000);
        lose_at(&mut linux, 1000);
        assert_eq!(linux.cwnd(), 799);
        assert_eq!(acks_to_grow(&mut linux), 1);
        assert_eq!(acks_to_grow(&mut linux), 26);
    }

    #[test]
    fn paper_max_probing_doubles_the_step_above_w_max() {
        // W_max = 100. Above it the step is cwnd - 100 (b - 1 = 1), clamped to [0.01, 32]; cnt = cwnd / step:
        // 101: 1 -> 101   102: 2 -> 51   104: 4 -> 26   108: 8 -> 13.5 -> 13   116: 16 -> 7.25 -> 7
        // 132: 32 -> 4.1 -> 4   200: 100 clamped to 32 -> 6.25 -> 6 (additive increase).
        let mut c = bic("paper", 100);
        lose_at(&mut c, 100);
        for (cwnd, acks) in [(101, 101), (102, 51), (104, 26), (108, 13), (116, 7), (132, 4), (200, 6)] {
            grown_to(&mut c, cwnd);
            assert_eq!(acks_to_grow(&mut c), acks, "cwnd {cwnd}");
        }
    }

    #[test]
    fn linux_max_probing_starts_smooth_then_speeds_up_to_max_increment() {
        // W_max = 100, ACK ratio 32 (halves cnt), +1 per cnt + 1 ACKs:
        // 100..103 (< W_max + b): smooth 100 * 20 / 4 = 500 -> 250 -> 251 ACKs
        // 104 (< W_max + 16 * 3): 104 * 3 / 4 = 78 -> 39 -> 40     110: 110 * 3 / 10 = 33 -> 16 -> 17
        // 148 (>= W_max + 48): 148 / 16 = 9 -> 4 -> 5 ACKs.
        let mut c = bic("linux", 100);
        lose_at(&mut c, 100);
        for (cwnd, acks) in [(100, 251), (104, 40), (110, 17), (148, 5)] {
            grown_to(&mut c, cwnd);
            assert_eq!(acks_to_grow(&mut c), acks, "cwnd {cwnd}");
        }
    }

    #[test]
    fn low_window_is_reno_below_14() {
        // Paper: BIC engages at cwnd >= 14. At 13, cnt = 13 (Reno) and a loss halves: 13 / 2 = 6, W_max kept
        // from the earlier loss at 100 (the pseudo-code returns before touching it).
        let mut paper = bic("paper", 100);
        lose_at(&mut paper, 100);
        grown_to(&mut paper, 13);
        assert_eq!(acks_to_grow(&mut paper), 13);
        lose_at(&mut paper, 14 - 1);
        assert_eq!((paper.cwnd(), paper.w_max), (6, 100));
        // At 14 BIC: 14 * 0.875 = 12.25 -> 12.
        lose_at(&mut paper, 14);
        assert_eq!(paper.cwnd(), 12);

        // Linux: Reno up to and including 14: cnt = 14, not scaled by the ACK ratio, +1 per 15 ACKs. A loss
        // at 14 halves to 7 and still sets W_max (fast convergence: 14 * 1843 / 2048 = 12.6 -> 12).
        let mut linux = bic("linux", 100);
        lose_at(&mut linux, 100);
        grown_to(&mut linux, 14);
        assert_eq!(acks_to_grow(&mut linux), 15);
        lose_at(&mut linux, 14);
        assert_eq!((linux.cwnd(), linux.w_max), (7, 12));
        // At 15 BIC: 15 * 819 / 1024 = 11.99 -> 11.
        lose_at(&mut linux, 15);
        assert_eq!(linux.cwnd(), 11);
    }

    #[test]
    fn fast_convergence_lowers_w_max_after_a_loss_below_it() {
        // Paper: loss at 100, then at 90 < W_max: W_max = 90 (2 - 0.125)/2 = 84.375 -> 84; cwnd 90 * 0.875
        // = 78.75 -> 78.
        let mut paper = bic("paper", 100);
        lose_at(&mut paper, 100);
        lose_at(&mut paper, 90);
        assert_eq!((paper.w_max, paper.cwnd(), paper.w_min), (84, 78, 78));
        // Linux: W_max = 90 * (1024 + 819) / 2048 = 80.99 -> 80; cwnd 90 * 819 / 1024 = 71.98 -> 71.
        let mut linux = bic("linux", 100);
        lose_at(&mut linux, 100);
        lose_at(&mut linux, 90);
        assert_eq!((linux.w_max, linux.cwnd()), (80, 71));
        // Without fast convergence W_max is simply 90.
        let mut cfg = <BicConfig as Algorithm>::variant("linux").unwrap();
        cfg.fast_convergence = false;
        let mut plain = Bic::new(cfg, 100);
        lose_at(&mut plain, 100);
        lose_at(&mut plain, 90);
        assert_eq!(plain.w_max, 90);
    }

    #[test]
    fn linux_caps_cnt_at_20_before_the_first_loss() {
        // No loss: W_max = 0, so cwnd is far above it: cnt = cwnd / 16.
        // At 400: 25, capped to 20 ("cnt <= 20", at least 5 % per RTT), scaled 20 * 16 / 32 = 10 -> 11 ACKs.
        let mut big = bic("linux", 400);
        assert_eq!(acks_to_grow(&mut big), 11);
        // At 100: 6 is below the cap and stays (a fixed 20 would give 10): 6 * 16 / 32 = 3 -> 4 ACKs.
        let mut small = bic("linux", 100);
        assert_eq!(acks_to_grow(&mut small), 4);
        // After a loss the cap is gone: W_max = 400 = cwnd (grown back a second later), smooth
        // 400 * 20 / 4 = 2000 -> 1000.
        lose_at(&mut big, 400);
        grown_to(&mut big, 400);
        big.on_ack(&ack_at(1000));
        assert_eq!(big.cnt, 1000);
        // The paper has no such cap: 400 / 32 = 12.5 -> 12 ACKs.
        let mut paper = bic("paper", 400);
        assert_eq!(acks_to_grow(&mut paper), 12);
    }

    #[test]
    fn linux_scales_cnt_by_the_measured_ack_ratio_and_keeps_it_31_ms() {
        // Loss at 100, cwnd 79, one slow-start ACK to 80. Table cnt 80 / 5 = 16; with the initial ratio 32: 8.
        let mut c = bic("linux", 100);
        lose_at(&mut c, 100);
        c.on_ack(&ack_at(0));
        c.on_ack(&ack_at(0));
        assert_eq!((c.cwnd(), c.cnt), (80, 8));
        // Ten Open-state ACKs of 4 packets each: the ratio goes 32 -> 34 -> ... -> 48 (+4 - 2 per ACK), then
        // 49, 50 (+4 - 3): 16 * 16 / 50 = 5.1 -> 5. Samples alone do not recompute cnt.
        for _ in 0..10 {
            c.on_ack_sample(&AckSample { acked: 4, ..Default::default() });
        }
        // cwnd is still 80: at 31 ms (= HZ/32) the old cnt is kept, at 32 ms it is recomputed.
        c.on_ack(&ack_at(31));
        assert_eq!((c.cwnd(), c.cnt), (80, 8));
        c.on_ack(&ack_at(32));
        assert_eq!((c.cwnd(), c.cnt), (80, 5));
        // The paper variant ignores the ratio and recomputes on every ACK: 875/32 -> 27 after a loss at 1000.
        let mut paper = bic("paper", 1000);
        lose_at(&mut paper, 1000);
        for _ in 0..10 {
            paper.on_ack_sample(&AckSample { acked: 4, ..Default::default() });
        }
        paper.on_ack(&ack_at(0));
        assert_eq!(paper.cnt, 27);
    }

    #[test]
    fn timeout_resets_w_max_and_restarts_slow_start() {
        // Linux: loss at 100 (W_max 100, cwnd 79), then an RTO: ssthresh = 79 * 819 / 1024 = 63.2 -> 63,
        // cwnd 1, W_max and the first-loss mark forgotten. A repeated backoff keeps ssthresh 63.
        let mut linux = bic("linux", 100);
        lose_at(&mut linux, 100);
        linux.on_timeout(SimTime(0), true);
        assert_eq!((linux.cwnd(), linux.ssthresh(), linux.w_max, linux.loss_cwnd), (1, 63, 0, 0));
        linux.on_timeout(SimTime(0), false);
        assert_eq!((linux.cwnd(), linux.ssthresh()), (1, 63));
        // Slow start: +1 per ACK: 1 -> 4 after 3 ACKs.
        for _ in 0..3 {
            linux.on_ack(&ack_at(0));
        }
        assert_eq!(linux.cwnd(), 4);
        // Linux 2.6 slow start runs while cwnd <= ssthresh: from 63 one more ACK makes 64, then BIC with
        // W_max = 0 again: 64 / 16 = 4 -> 4 * 16 / 32 = 2, +1 per 3 ACKs.
        linux.win.cwnd = 63;
        linux.on_ack(&ack_at(0));
        assert_eq!(linux.cwnd(), 64);
        assert_eq!(acks_to_grow(&mut linux), 3);

        // Paper: loss at 100 (cwnd 87), RTO: ssthresh 87 * 0.875 = 76.1 -> 76, W_max and W_min reset.
        // Slow start while cwnd < ssthresh stops at 76: from 75 one ACK makes 76, the next is BIC.
        let mut paper = bic("paper", 100);
        lose_at(&mut paper, 100);
        paper.on_timeout(SimTime(0), true);
        assert_eq!((paper.cwnd(), paper.ssthresh(), paper.w_max, paper.w_min), (1, 76, 0, 0));
        paper.win.cwnd = 75;
        paper.on_ack(&ack_at(0));
        assert_eq!(paper.cwnd(), 76);
        // Max probing from W_max = 0: step 76 clamped to 32, cnt = 76 / 32 = 2.4 -> 2.
        assert_eq!(acks_to_grow(&mut paper), 2);
    }

    /// The real window (`paper-real`) as traced, in packets.
    fn window(c: &Bic) -> f64 {
        c.window_fx() as f64 / FX_ONE as f64
    }

    #[test]
    fn real_window_reduces_to_real_values_and_keeps_the_fraction_through_recovery() {
        // Loss at 100.0: W_max = 100, window 100 x 0.875 = 87.5: ssthresh and cwnd 87, the 0.5 kept and
        // back after recovery. The first ACK adds bic_inc / cwnd = ((100 - 87.5) / 2) / 87.5 = 6.25 / 87.5
        // = 0.0714285714: 87.5714285714 (fixed point 2^-32 = 2.3e-10 packet).
        let mut c = bic("paper-real", 100);
        lose_at(&mut c, 100);
        assert_eq!((c.cwnd(), c.ssthresh(), c.w_max, window(&c)), (87, 87, 100, 87.5));
        c.on_ack(&ack_at(0));
        assert!((window(&c) - 87.571_428_571_4).abs() < 1e-9, "{}", window(&c));
        // Fast convergence at 90.0 < W_max: W_max = 90 (1 + 0.875) / 2 = 84.375, window 90 x 0.875 = 78.75.
        c.frac = 0;
        lose_at(&mut c, 90);
        assert_eq!((c.cwnd(), c.ssthresh(), c.w_max_fx as f64 / FX_ONE as f64, window(&c)), (78, 78, 84.375, 78.75));
        // Below low_window (13.5 < 14) a loss halves the real window, 6.75, and leaves W_max alone.
        c.win.cwnd = 13;
        c.frac = FX_ONE / 2;
        c.on_congestion_event(&loss());
        c.on_recovery_exit(SimTime(0));
        assert_eq!((c.cwnd(), window(&c), c.w_max_fx as f64 / FX_ONE as f64), (6, 6.75, 84.375));
    }

    #[test]
    fn real_window_grows_by_one_over_cwnd_below_low_window() {
        // From 13.0: +1/13 = 0.0769, then +1/13.0769, ...; the sum passes 1 on the 14th ACK (13 ACKs
        // give 13 + 0.9647 = 13.9647, 14 give 14.0384), where the whole-packet paper variant takes 13.
        let mut c = bic("paper-real", 100);
        grown_to(&mut c, 13);
        assert_eq!(acks_to_grow(&mut c), 14);
        assert!((window(&c) - 14.038_413_7).abs() < 1e-6, "{}", window(&c));
        let mut whole = bic("paper", 100);
        grown_to(&mut whole, 13);
        assert_eq!(acks_to_grow(&mut whole), 13);
    }

    #[test]
    fn real_window_leaves_w_max_in_about_six_rtts_where_whole_packets_take_a_hundred() {
        // W_max = 100 and the window exactly 100.0. Max probing, bic_inc = max(cwnd - W_max, S_min) per
        // RTT, added as bic_inc/cwnd per ACK:
        // - while cwnd - W_max < S_min = 0.01, each ACK adds 0.01/100 = 0.0001: 100 ACKs to W_max + S_min;
        // - then the distance d grows by d/cwnd per ACK, x(1 + 1/100.5) on average: from 0.01 to 1 takes
        //   ln(100) / ln(1 + 1/100.5) = 4.605 / 0.00990 = 465 ACKs.
        // About 564 ACKs in all (5.6 RTTs of 100 ACKs), which the loop in double precision also gives
        // (564, at 101.0019). The whole-packet `paper` variant: cnt = 100 / 0.01 = 10000 ACKs (100 RTTs).
        let mut real = bic("paper-real", 100);
        lose_at(&mut real, 100);
        grown_to(&mut real, 100);
        real.frac = 0;
        real.on_ack(&ack_at(0));
        assert!((window(&real) - 100.0001).abs() < 1e-9, "{}", window(&real));
        let acks = 1 + acks_to_grow(&mut real);
        assert_eq!(acks, 564);
        let mut out = Vec::new();
        real.state(&mut out);
        assert_eq!(out.iter().map(|f| f.0).collect::<Vec<_>>(), ["w_max", "w_min", "window"]);
        let mut whole = bic("paper", 100);
        lose_at(&mut whole, 100);
        grown_to(&mut whole, 100);
        assert_eq!(acks_to_grow(&mut whole), 10_000);
    }

    #[test]
    fn real_window_timeout_and_sender_writes_drop_the_fraction() {
        // Window 87.5 after a loss at 100; an RTO: ssthresh = floor(87.5 x 0.875 = 76.5625) = 76, cwnd 1.0.
        let mut c = bic("paper-real", 100);
        lose_at(&mut c, 100);
        c.on_timeout(SimTime(0), true);
        assert_eq!((c.cwnd(), c.ssthresh(), window(&c), c.w_max_fx), (1, 76, 1.0, 0));
        // The sender's linux-2.6 recovery writes a whole window.
        let mut d = bic("paper-real", 100);
        lose_at(&mut d, 100);
        d.set_cwnd(50);
        assert_eq!(window(&d), 50.0);
    }

    #[test]
    fn builds_from_the_registry_with_overrides_and_checks_ranges() {
        let e = registry::build("cc", &json!({"name": "bic", "real_window": true}), 2).err().unwrap();
        assert_eq!(e.field, "cc.real_window");
        assert_eq!(registry::build("cc", &json!({"name": "bic", "variant": "paper-real"}), 2).unwrap().name(), "bic");
        let c = registry::build("cc", &json!({"name": "bic", "variant": "paper", "s_max": 16}), 2).unwrap();
        assert_eq!(c.name(), "bic");
        assert_eq!(registry::build("cc", &json!("bic"), 2).unwrap().name(), "bic");
        let e = registry::build("cc", &json!({"name": "bic", "variant": "paper", "s_min": 40.0}), 2).err().unwrap();
        assert_eq!(e.field, "cc.s_min");
        let e = registry::build("cc", &json!({"name": "bic", "b": 1}), 2).err().unwrap();
        assert_eq!(e.field, "cc.b");
    }

    #[test]
    fn traces_w_max_cnt_and_the_papers_w_min() {
        let mut paper = bic("paper", 100);
        lose_at(&mut paper, 100);
        paper.on_ack(&ack_at(0));
        let mut out = Vec::new();
        paper.state(&mut out);
        assert_eq!(out, [("w_max", 100.0), ("w_min", 87.0), ("cnt", 13.0)]);
        let mut out = Vec::new();
        bic("linux", 100).state(&mut out);
        let names: Vec<&str> = out.iter().map(|f| f.0).collect();
        assert_eq!(names, ["w_max", "cnt"]);
    }
}
