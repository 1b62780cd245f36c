//! FAST TCP (Jin, Wei, Low, INFOCOM 2004; CaltechCSTR:2003.010) and the ns-2 model `tcp/tcp-fast.cc`
//! v1.1.3 (Cui & Andrew, CUBIN, University of Melbourne, 2007), fact sheet §2.10: a module written for
//! ns-2.29, not part of ns-2.35, though it builds unchanged in it (`benchmarks/ns2/build_fast.sh`).
//!
//! Window update (paper eq. for window control; ns-2 `fast_calc_cwnd`), periodically:
//!   w <- min{ 2w, (1 - gamma) w + gamma (baseRTT / avgRTT * w_eq + alpha) }
//! baseRTT is the minimum RTT sample; avgRTT an EWMA of RTT samples with gain min(3 / w_fl, g_max), w_fl being
//! the packets outstanding (ns-2 `avg_cwnd_last_RTT_` = t_seqno_ - seqno); alpha the packets the flow keeps
//! queued at equilibrium. Updates happen only in every other "RTT epoch" (an epoch ends once more than one RTT
//! sample has passed since it began, as ns-2 `fast_cc` counts them); the other epoch is frozen so that the RTT
//! reflects the new window. Increases are spread over ACKs (ns-2 `fast_pace`): +1 packet every
//! floor(ACKs per update period / increments) ACKs, decreases apply at once. Loss: halve as Reno.
//!
//! Variants (every difference is a config field):
//! - `ns2` (default; the CUBIN module's `Agent/TCP/Fast`, defaults from the `ns-default.tcl` lines its
//!   install adds):
//!   alpha = beta = 100 packets, gamma 0.5, an update every 10 ms inside the update epochs
//!   (`cwnd_update_period_` 0.01 s), increases paced over the ACKs of 10 ms, not paced when baseRTT < 4 ms,
//!   multiplicative increase (+1 per ACK) while avgRTT - baseRTT < 0.75 ms (`mi_threshold_`), EWMA gain
//!   min(3 / w_fl, 1/256), w_eq = the packets outstanding when the acknowledged packet was sent
//!   (`cwnd_array_`), a hold band: no update while w_eq (avgRTT - baseRTT) / avgRTT lies in [alpha, beta)
//!   (empty with the defaults), loss window 2 after a timeout (`slowstart_`). The module recovers from
//!   loss as ns-2's Sack1 agent does, which is the flow's `recovery = "ns2-sack1"`, not the variant's: below
//!   alpha packets of buffer the recovery rule decides the goodput (docs/validation.md, FAST section).
//! - `paper`: one update per update epoch (every other RTT) with the increase spread over the next RTT of
//!   ACKs, no MI phase (the update itself doubles small windows), w_eq = w, EWMA gain min(3 / w_fl, 1/4)
//!   **[from memory of the ToN 2006 version; unverified]**, alpha = 200 packets **[the paper's own value is
//!   unverified (fact sheet §4.3); 200 is what the module's Caltech test `tcl/test/fast-test1.tcl` sets; its
//!   other tests set 1000, 800, 10000, 100, 100 and 10]**,
//!   loss window 1 after a timeout (RFC 5681, as the engine's other algorithms).
//!
//! Choices shared by both variants, where the sources say nothing or disagree:
//! - The 2w cap of the paper is applied in both; ns-2 has no explicit cap, but its pacing adds at most one
//!   packet per ACK, which also bounds growth to doubling per RTT.
//! - Estimation and control run on ACKs of new data outside fast recovery (the engine's `on_ack`), where
//!   ns-2 calls `fast_est` and `fast_cc`; an ACK without a valid RTT sample (Karn) uses avgRTT instead.
//! - Loss (ns-2 `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF)`; the paper keeps Reno's reaction):
//!   ssthresh = cwnd = max(floor(w) / 2, 2); paced increments not yet applied are dropped (ns-2 keeps them).
//!   No update during recovery and none within one update period after it (ns-2 holds `cwnd_update_time`).
//! - FAST does not use ssthresh for growth (ns-2 never calls `opencwnd`); it is kept for the traces.
//! - The window is an f64 (ns-2 `high_accuracy_cwnd_` = 2 keeps cwnd as a double); the sender sees
//!   floor(w). Only + - * / are used, so results are bit-identical everywhere.

use super::common::INFINITE_SSTHRESH;
use super::registry::{Algorithm, AlgorithmInfo, ParamDoc};
use super::{AckSample, AnyCc, CongestionControl, CongestionEvent, StateField};
use crate::config::{err, ConfigError};
use crate::time::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Which window multiplies baseRTT / avgRTT in the update.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EquilibriumWindow {
    /// The current window (paper).
    Cwnd,
    /// Packets outstanding when the packet now acknowledged was sent, i.e. about one RTT ago (ns-2
    /// `cwnd_array_`), so that the window and the RTT it produced belong together.
    InFlightAtSend,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FastConfig {
    /// Packets the flow keeps queued at equilibrium (alpha). ns-2 100 (`ns-default.tcl`); paper preset 200.
    pub alpha: f64,
    /// Upper edge of the ns-2 hold band, packets: no update while the queue estimate lies in [alpha, beta).
    /// ns-2 100 (= alpha: empty band); paper preset 200 (= alpha).
    pub beta: f64,
    /// Step toward the target, 0 < gamma <= 1. 0.5 in both.
    pub gamma: f64,
    /// Time between two updates inside an update epoch, microseconds; 0 = one update per update epoch
    /// (paper). ns-2 10000 (`cwnd_update_period_` 0.01 s).
    pub update_interval_us: u64,
    /// Update only in every other RTT epoch (true in both: ns-2 v1.1.3 `UPDATE_CWND_EVERY_OTHER_RTT`).
    pub every_other_rtt: bool,
    /// Multiplicative increase (+1 packet per ACK) while avgRTT - baseRTT is below this, microseconds;
    /// 0 = none. ns-2 750 (`mi_threshold_` 0.00075 s); paper 0.
    pub mi_threshold_us: u64,
    /// Increases are applied at once, not paced, when baseRTT is below this, microseconds. ns-2 4000; paper 0.
    pub pace_min_base_rtt_us: u64,
    /// avgRTT EWMA gain is 1 / max(this, w_fl / 3): ns-2 256, paper 4.
    pub rtt_ewma_min_divisor: u32,
    /// Window multiplied by baseRTT / avgRTT: "cwnd" (paper) or "in_flight_at_send" (ns-2).
    pub equilibrium_window: EquilibriumWindow,
    /// Window after a retransmission timeout, packets: ns-2 2 (`slowstart_`), paper preset 1 (RFC 5681).
    pub loss_window: u32,
}

impl Algorithm for FastConfig {
    const INFO: AlgorithmInfo = AlgorithmInfo {
        name: "fast",
        aliases: &[],
        summary: "FAST TCP: delay-based, keeps alpha packets queued; w <- (1-g) w + g (baseRTT/RTT w + alpha) every other RTT (Jin, Wei, Low 2004)",
        default_variant: "ns2",
        variants: &[
            ("ns2", "the ns-2 FAST module Agent/TCP/Fast v1.1.3 (Cui & Andrew, CUBIN) with its ns-default.tcl: alpha 100, 10 ms updates in every other RTT, MI below 0.75 ms of queueing; its loss recovery is ns-2's Sack1, flows.N.recovery = \"ns2-sack1\""),
            ("paper", "Jin, Wei, Low INFOCOM 2004: one update every other RTT spread over the next RTT, alpha 200 (unverified), no MI phase"),
        ],
        params: &[
            ParamDoc { name: "alpha", doc: "packets kept queued at equilibrium, > 0 (ns2 100, paper 200)" },
            ParamDoc { name: "beta", doc: "upper edge of the ns-2 hold band [alpha, beta), packets (= alpha: no band)" },
            ParamDoc { name: "gamma", doc: "step toward the target, 0 < gamma <= 1 (0.5)" },
            ParamDoc { name: "update_interval_us", doc: "update period inside update epochs, us; 0 = once per epoch (ns2 10000, paper 0)" },
            ParamDoc { name: "every_other_rtt", doc: "update in every other RTT epoch only (true)" },
            ParamDoc { name: "mi_threshold_us", doc: "+1 per ACK while queueing delay is below this, us; 0 = off (ns2 750, paper 0)" },
            ParamDoc { name: "pace_min_base_rtt_us", doc: "no pacing of increases when baseRTT is below this, us (ns2 4000, paper 0)" },
            ParamDoc { name: "rtt_ewma_min_divisor", doc: "avgRTT gain = 1 / max(this, packets outstanding / 3), >= 1 (ns2 256, paper 4)" },
            ParamDoc { name: "equilibrium_window", doc: "'cwnd' (paper) or 'in_flight_at_send' (ns2) multiplies baseRTT/avgRTT" },
            ParamDoc { name: "loss_window", doc: "window after a timeout, packets >= 1 (ns2 2, paper 1)" },
        ],
    };

    fn variant(name: &str) -> Option<Self> {
        match name {
            "ns2" => Some(FastConfig {
                alpha: 100.0,
                beta: 100.0,
                gamma: 0.5,
                update_interval_us: 10_000,
                every_other_rtt: true,
                mi_threshold_us: 750,
                pace_min_base_rtt_us: 4_000,
                rtt_ewma_min_divisor: 256,
                equilibrium_window: EquilibriumWindow::InFlightAtSend,
                loss_window: 2,
            }),
            "paper" => Some(FastConfig {
                alpha: 200.0,
                beta: 200.0,
                gamma: 0.5,
                update_interval_us: 0,
                every_other_rtt: true,
                mi_threshold_us: 0,
                pace_min_base_rtt_us: 0,
                rtt_ewma_min_divisor: 4,
                equilibrium_window: EquilibriumWindow::Cwnd,
                loss_window: 1,
            }),
            _ => None,
        }
    }

    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if !(self.alpha > 0.0 && self.alpha.is_finite()) {
            return Err(err(format!("{field}.alpha"), "must be above 0"));
        }
        if !(self.beta >= 0.0 && self.beta.is_finite()) {
            return Err(err(format!("{field}.beta"), "must be at least 0"));
        }
        if !(self.gamma > 0.0 && self.gamma <= 1.0) {
            return Err(err(format!("{field}.gamma"), "must be in (0, 1]"));
        }
        if self.rtt_ewma_min_divisor == 0 {
            return Err(err(format!("{field}.rtt_ewma_min_divisor"), "must be at least 1"));
        }
        if self.loss_window == 0 {
            return Err(err(format!("{field}.loss_window"), "must be at least 1"));
        }
        Ok(())
    }

    fn build(self, initial_cwnd: u32) -> AnyCc {
        Fast::new(self, initial_cwnd).into()
    }
}

pub struct Fast {
    cfg: FastConfig,
    /// Congestion window in packets, fractional (the sender uses floor).
    window: f64,
    ssthresh: u32,
    base_rtt: Option<SimDuration>,
    /// avgRTT in nanoseconds; 0 before the first sample.
    avg_rtt_ns: f64,
    /// Last target computed by an update, packets (0 before the first update).
    target_cwnd: f64,

    /// When the current RTT epoch began (ns-2 `fast_calc_cwnd_end`).
    epoch_start: SimTime,
    /// Whether the current epoch may update the window (ns-2 `on_first_rtt_`).
    update_epoch: bool,
    /// Whether an update already happened in this epoch (for one update per epoch).
    updated_in_epoch: bool,
    acks_this_epoch: u32,
    /// ACKs counted in the previous epoch: the ACKs per RTT the pacing spreads increments over.
    acks_last_epoch: u32,
    /// Time of the last update or MI step (ns-2 `cwnd_update_time`).
    last_update: SimTime,

    /// Paced increments still to apply, packets (ns-2 `cwnd_increments`).
    pending_increments: u32,
    /// ACKs between two paced increments (ns-2 `bc_spacing`).
    ack_spacing: u32,
    /// ACKs since the last paced increment (ns-2 `bc_ack`).
    acks_since_increment: u32,

    /// (first sequence, packets outstanding) runs: packets from that sequence on were sent while that many
    /// packets were outstanding. Only the runs not yet acknowledged are kept (about one window of entries).
    outstanding_at_send: VecDeque<(u64, u32)>,
}

impl Fast {
    pub fn new(cfg: FastConfig, initial_cwnd: u32) -> Self {
        Fast {
            cfg,
            window: f64::from(initial_cwnd.max(1)),
            ssthresh: INFINITE_SSTHRESH,
            base_rtt: None,
            avg_rtt_ns: 0.0,
            target_cwnd: 0.0,
            epoch_start: SimTime::ZERO,
            update_epoch: true,
            updated_in_epoch: false,
            acks_this_epoch: 0,
            acks_last_epoch: 0,
            last_update: SimTime::ZERO,
            pending_increments: 0,
            ack_spacing: 0,
            acks_since_increment: 0,
            outstanding_at_send: VecDeque::new(),
        }
    }

    /// ns-2 `fast_est`: baseRTT = min, avgRTT += (sample - avgRTT) / max(min_divisor, w_fl / 3).
    fn estimate(&mut self, rtt: Option<SimDuration>, outstanding: u32) {
        let Some(rtt) = rtt else { return };
        self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
        let sample_ns = rtt.0 as f64;
        if self.avg_rtt_ns == 0.0 {
            self.avg_rtt_ns = sample_ns;
        } else {
            let divisor = f64::from(self.cfg.rtt_ewma_min_divisor).max(f64::from(outstanding) / 3.0);
            self.avg_rtt_ns += (sample_ns - self.avg_rtt_ns) / divisor;
        }
    }

    /// Packets outstanding when packet `seq` was sent; 0 for packets sent before the first ACK (the ns-2
    /// Tcl default of `avg_cwnd_last_RTT_`).
    fn outstanding_when_sent(&mut self, seq: u64) -> u32 {
        while self.outstanding_at_send.len() > 1 && self.outstanding_at_send[1].0 <= seq {
            self.outstanding_at_send.pop_front();
        }
        match self.outstanding_at_send.front() {
            Some(&(first, outstanding)) if first <= seq => outstanding,
            _ => 0,
        }
    }

    /// Packets from `snd_nxt` on will be sent while `outstanding` packets are outstanding (until the next ACK).
    fn record_outstanding(&mut self, snd_nxt: u64, outstanding: u32) {
        match self.outstanding_at_send.back_mut() {
            // Nothing was sent since the previous ACK: the newer value is the one the next packet gets.
            Some(run) if run.0 >= snd_nxt => run.1 = outstanding,
            Some(run) if run.1 == outstanding => {}
            _ => self.outstanding_at_send.push_back((snd_nxt, outstanding)),
        }
    }

    /// ns-2 `fast_calc_cwnd` with the paper's 2w cap: the new window, or the current one inside the hold band.
    fn target(&self, equilibrium_window: f64) -> f64 {
        let Some(base) = self.base_rtt else { return self.window };
        let avg = self.avg_rtt_ns;
        let base = base.0 as f64;
        // Queue estimate w_eq (avgRTT - baseRTT) / avgRTT compared with alpha and beta, multiplied out.
        let queued_times_avg = equilibrium_window * (avg - base);
        if queued_times_avg >= self.cfg.alpha * avg && queued_times_avg < self.cfg.beta * avg {
            return self.window;
        }
        let g = self.cfg.gamma;
        let target = (1.0 - g) * self.window + g * (equilibrium_window * (base / avg) + self.cfg.alpha);
        target.max(2.0).min(2.0 * self.window)
    }

    fn update_is_due(&self, now: SimTime) -> bool {
        if !self.update_epoch {
            return false;
        }
        if self.cfg.update_interval_us == 0 {
            return !self.updated_in_epoch;
        }
        now >= self.last_update + SimDuration::from_micros(self.cfg.update_interval_us)
    }

    /// Whether increases are spread over ACKs (ns-2: only when baseRTT >= 4 ms).
    fn paces(&self) -> bool {
        self.base_rtt.is_some_and(|b| b >= SimDuration::from_micros(self.cfg.pace_min_base_rtt_us))
    }

    /// ns-2 `fast_pace`: `new_increments` (from an update, else 0) are spread over the ACKs of one update
    /// period, at most +1 per ACK; windows of 4 or less take them at once, at most doubling.
    fn pace(&mut self, new_increments: u32, cwnd_limited: bool) {
        if self.avg_rtt_ns == 0.0 {
            return;
        }
        if new_increments >= 1 {
            self.pending_increments += new_increments;
            let acks_per_period = if self.cfg.update_interval_us == 0 {
                f64::from(self.acks_last_epoch)
            } else {
                f64::from(self.acks_last_epoch) * (self.cfg.update_interval_us as f64 * 1e3) / self.avg_rtt_ns
            };
            self.ack_spacing = (acks_per_period / f64::from(self.pending_increments)) as u32;
            self.acks_since_increment = 1;
        } else {
            self.acks_since_increment += 1;
        }
        if self.pending_increments == 0 || !cwnd_limited {
            return;
        }
        if self.window <= 4.0 {
            if self.window < f64::from(self.pending_increments) {
                self.pending_increments -= self.window as u32;
                self.window += self.window;
            } else {
                self.window += f64::from(self.pending_increments);
                self.pending_increments = 0;
                self.ack_spacing = 0;
            }
            self.acks_since_increment = 0;
        } else if self.acks_since_increment >= self.ack_spacing {
            self.window += 1.0;
            self.pending_increments -= 1;
            self.acks_since_increment = 0;
        }
    }

    fn clear_pacing(&mut self) {
        self.pending_increments = 0;
        self.ack_spacing = 0;
        self.acks_since_increment = 0;
    }
}

impl CongestionControl for Fast {
    fn name(&self) -> &'static str {
        "fast"
    }

    fn on_ack(&mut self, s: &AckSample) {
        if s.acked == 0 {
            return;
        }
        // ns-2 `avg_cwnd_last_RTT_` = t_seqno_ - seqno: outstanding packets plus the one just acknowledged.
        let outstanding = s.in_flight + 1;
        let acked_seq = s.snd_una - 1;
        let sent_with = self.outstanding_when_sent(acked_seq);
        self.estimate(s.rtt, outstanding);
        self.record_outstanding(s.snd_nxt, outstanding);
        if self.avg_rtt_ns == 0.0 {
            return;
        }

        // RTT epochs (ns-2 `fast_cc`): a new one starts once more than one RTT has passed since the last.
        let rtt_ns = s.rtt.map_or(self.avg_rtt_ns, |r| r.0 as f64);
        if s.now.since(self.epoch_start).0 as f64 > rtt_ns {
            self.epoch_start = s.now;
            self.acks_last_epoch = self.acks_this_epoch;
            self.acks_this_epoch = 0;
            self.update_epoch = !self.cfg.every_other_rtt || !self.update_epoch;
            self.updated_in_epoch = false;
        }
        self.acks_this_epoch += 1;

        let queueing_ns = self.base_rtt.map_or(0.0, |b| self.avg_rtt_ns - b.0 as f64);
        if queueing_ns < (self.cfg.mi_threshold_us * 1_000) as f64 {
            // MI phase (ns-2): +1 per ACK, i.e. doubling per RTT, while the path is nearly empty.
            if s.cwnd_limited {
                self.window += 1.0;
            }
            self.last_update = s.now;
            return;
        }

        if self.update_is_due(s.now) {
            let equilibrium_window = match self.cfg.equilibrium_window {
                EquilibriumWindow::Cwnd => self.window,
                EquilibriumWindow::InFlightAtSend => f64::from(sent_with),
            };
            let target = self.target(equilibrium_window);
            self.target_cwnd = target;
            self.pending_increments = 0;
            if target >= self.window && self.paces() {
                self.pace((target - self.window) as u32, s.cwnd_limited);
            } else if target < self.window || s.cwnd_limited {
                self.window = target;
            }
            self.last_update = s.now;
            self.updated_in_epoch = true;
        } else if self.paces() {
            self.pace(0, s.cwnd_limited);
        }
    }

    fn on_congestion_event(&mut self, e: &CongestionEvent) {
        self.ssthresh = (self.window as u32 / 2).max(2);
        self.window = f64::from(self.ssthresh);
        self.clear_pacing();
        self.last_update = e.now;
    }

    fn on_recovery_exit(&mut self, now: SimTime) {
        self.window = f64::from(self.ssthresh);
        self.last_update = now;
    }

    fn on_timeout(&mut self, now: SimTime, first_in_episode: bool) {
        if first_in_episode {
            self.ssthresh = (self.window as u32 / 2).max(2);
        }
        self.window = f64::from(self.cfg.loss_window);
        self.clear_pacing();
        self.last_update = now;
    }

    fn set_cwnd(&mut self, cwnd: u32) {
        self.window = f64::from(cwnd.max(1));
    }

    fn cwnd(&self) -> u32 {
        (self.window as u32).max(1)
    }
    fn ssthresh(&self) -> u32 {
        self.ssthresh
    }

    fn state(&self, out: &mut Vec<StateField>) {
        out.push(("base_rtt_s", self.base_rtt.map_or(0.0, |b| b.as_secs_f64())));
        out.push(("avg_rtt_s", self.avg_rtt_ns / 1e9));
        out.push(("target_cwnd", self.target_cwnd));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fast(variant: &str, cwnd: u32) -> Fast {
        Fast::new(<FastConfig as Algorithm>::variant(variant).unwrap(), cwnd)
    }
    fn ms(v: u64) -> SimDuration {
        SimDuration::from_millis(v)
    }

    /// A self-clocked scripted sender: a round of ACKs starts every 100 ms, one ACK per packet sent in the
    /// previous round, spread over the round's first 50 ms. Every ACK carries the same RTT sample, between
    /// 50 and 100 ms, so each round opens exactly one RTT epoch, at its first ACK. After each ACK the sender
    /// fills the window again.
    struct Script {
        snd_una: u64,
        snd_nxt: u64,
        cwnd_limited: bool,
    }

    impl Script {
        fn new(cc: &Fast) -> Self {
            Script { snd_una: 0, snd_nxt: u64::from(cc.cwnd()), cwnd_limited: true }
        }

        fn round(&mut self, cc: &mut Fast, start_ms: u64, rtt_ms: u64) {
            let n = self.snd_nxt - self.snd_una;
            let spacing_ns = 50_000_000 / n;
            for k in 0..n {
                self.snd_una += 1;
                let s = AckSample {
                    now: SimTime(start_ms * 1_000_000 + k * spacing_ns),
                    acked: 1,
                    rtt: Some(ms(rtt_ms)),
                    in_flight: (self.snd_nxt - self.snd_una) as u32,
                    cwnd_limited: self.cwnd_limited,
                    snd_una: self.snd_una,
                    snd_nxt: self.snd_nxt,
                    ..Default::default()
                };
                cc.on_ack_sample(&s);
                cc.on_ack(&s);
                self.snd_nxt = self.snd_nxt.max(self.snd_una + u64::from(cc.cwnd()));
            }
        }
    }

    fn loss(now: SimTime) -> CongestionEvent {
        CongestionEvent { now, in_flight: 0, min_rtt: None, srtt: None }
    }

    #[test]
    fn paper_grows_by_gamma_alpha_per_update_while_rtt_equals_base_rtt() {
        // Paper preset (alpha 200, gamma 0.5), w = 100, every RTT sample 60 ms, so avgRTT = baseRTT.
        // Round 0 opens a frozen epoch (the first epoch toggles to "frozen"); round 1 updates:
        //   target = min(2*100, 0.5*100 + 0.5*(100*1 + 200)) = min(200, 200) = 200,
        // 100 increments over the 100 ACKs of the last epoch: spacing 100/100 = 1, +1 per ACK -> 200.
        // Round 2 frozen (200 ACKs). Round 3: target = min(400, 100 + 0.5*(200 + 200)) = 300, spacing
        // 200/100 = 2: +1 every other ACK over 200 ACKs -> 300. Round 5: min(600, 150 + 0.5*500) = 400,
        // spacing 3, +1 on ACKs 3, 6, ..., 300 -> 400. So +gamma*alpha = 100 packets every other RTT.
        let mut cc = fast("paper", 100);
        let mut sender = Script::new(&cc);
        let mut expected = [100, 200, 200, 300, 300, 400].into_iter();
        for round in 0..6 {
            sender.round(&mut cc, 100 * (round + 1), 60);
            assert_eq!(cc.cwnd(), expected.next().unwrap(), "after round {round}");
        }
        assert_eq!(cc.target_cwnd, 400.0);
        assert_eq!((cc.base_rtt, cc.avg_rtt_ns), (Some(ms(60)), 60e6));
    }

    #[test]
    fn paper_window_holds_with_alpha_packets_queued() {
        // w = 800, baseRTT 60 ms, avgRTT 80 ms: queue = 800 * 20 / 80 = 200 = alpha.
        // target = 0.5*800 + 0.5*(800 * 60/80 + 200) = 400 + 0.5*800 = 800: no change, round after round.
        let mut cc = fast("paper", 800);
        cc.base_rtt = Some(ms(60));
        cc.avg_rtt_ns = 80e6;
        let mut sender = Script::new(&cc);
        for round in 0..4 {
            sender.round(&mut cc, 100 * (round + 1), 80);
            assert_eq!(cc.cwnd(), 800);
        }
        assert_eq!(cc.target_cwnd, 800.0);
    }

    #[test]
    fn ns2_multiplicative_increase_while_queueing_delay_is_below_0_75_ms() {
        // avgRTT = baseRTT = 60 ms: queueing 0 < 0.75 ms, so +1 per ACK: 100 -> 200 -> 400.
        let mut cc = fast("ns2", 100);
        let mut sender = Script::new(&cc);
        sender.round(&mut cc, 100, 60);
        assert_eq!(cc.cwnd(), 200);
        sender.round(&mut cc, 200, 60);
        assert_eq!(cc.cwnd(), 400);
        // Not cwnd-limited: no growth.
        sender.cwnd_limited = false;
        sender.round(&mut cc, 300, 60);
        assert_eq!(cc.cwnd(), 400);
    }

    #[test]
    fn ns2_updates_every_10_ms_in_the_update_rtt_toward_the_window_one_rtt_ago_plus_alpha() {
        // ns2 preset (alpha 100), w = 100, baseRTT 60 ms, avgRTT = samples = 64 ms (queueing 4 ms >= 0.75:
        // no MI; base/avg = 15/16). Round 0 is frozen. Round 1 (ACKs every 0.5 ms from 200 ms) updates at
        // 200, 210, 220, 230, 240 ms; w_eq = 100 (outstanding when round 0 sent them), so
        //   target = 0.5 w + 0.5 (100 * 0.9375 + 100) = 0.5 w + 96.875.
        // Increments are paced over 100 ACKs * 10 ms / 64 ms = 15.625 ACKs: spacing 15.625 / n = 0, i.e.
        // +1 per ACK until the update's increments run out, and each update discards what is left:
        //   200 ms: w 100 -> target 146.875, 46 increments; 20 ACKs later w = 120;
        //   210 ms: target 156.875 (36); w = 140.  220 ms: 166.875 (26); w = 160.
        //   230 ms: 176.875 (16); w = 176 after 16 ACKs.  240 ms: 184.875 (8); w = 184 after 8 ACKs.
        let mut cc = fast("ns2", 100);
        cc.base_rtt = Some(ms(60));
        cc.avg_rtt_ns = 64e6;
        let mut sender = Script::new(&cc);
        sender.round(&mut cc, 100, 64);
        assert_eq!(cc.cwnd(), 100);
        sender.round(&mut cc, 200, 64);
        assert_eq!(cc.cwnd(), 184);
        assert_eq!(cc.target_cwnd, 184.875);
        // Round 2 is frozen: 184 ACKs, no update.
        sender.round(&mut cc, 300, 64);
        assert_eq!(cc.cwnd(), 184);
    }

    #[test]
    fn ns2_window_holds_with_alpha_packets_queued_and_drops_at_once_above() {
        // w = 400, baseRTT 60 ms, avgRTT 80 ms: queue = 400 * 20 / 80 = 100 = alpha.
        // target = 0.5*400 + 0.5*(400 * 0.75 + 100) = 200 + 200 = 400 at every 10 ms update.
        let mut cc = fast("ns2", 400);
        cc.base_rtt = Some(ms(60));
        cc.avg_rtt_ns = 80e6;
        let mut sender = Script::new(&cc);
        for round in 0..4 {
            sender.round(&mut cc, 100 * (round + 1), 80);
            assert_eq!(cc.cwnd(), 400);
        }
        assert_eq!(cc.target_cwnd, 400.0);
        // w = 500 under the same delays: queue 125 > alpha. First update of the update round:
        // target = 250 + 0.5*(500 * 0.75 + 100) = 487.5, applied at once (decreases are not paced).
        let mut cc = fast("ns2", 500);
        cc.base_rtt = Some(ms(60));
        cc.avg_rtt_ns = 80e6;
        let mut sender = Script::new(&cc);
        sender.round(&mut cc, 100, 80);
        assert_eq!(cc.cwnd(), 500);
        let s = AckSample {
            now: SimTime(200_000_000),
            acked: 1,
            rtt: Some(ms(80)),
            in_flight: 499,
            cwnd_limited: true,
            snd_una: 501,
            snd_nxt: 1000,
            ..Default::default()
        };
        cc.on_ack(&s);
        assert_eq!((cc.window, cc.cwnd()), (487.5, 487));
    }

    #[test]
    fn ns2_applies_increases_at_once_when_base_rtt_is_below_4_ms() {
        // baseRTT 2 ms, avgRTT 4 ms (queueing 2 ms: no MI). ACK at 10 ms opens a frozen epoch; the ACK at
        // 15 ms (> one RTT later) opens an update epoch, 15 ms >= 0 + 10 ms so the update is due.
        // w_eq = 100 (outstanding recorded by the first ACK): target = 50 + 0.5*(100 * 0.5 + 100) = 125,
        // not paced because baseRTT < 4 ms.
        let mut cc = fast("ns2", 100);
        cc.base_rtt = Some(ms(2));
        cc.avg_rtt_ns = 4e6;
        let ack = |now_ms: u64, snd_una: u64| AckSample {
            now: SimTime(now_ms * 1_000_000),
            acked: 1,
            rtt: Some(ms(4)),
            in_flight: 99,
            cwnd_limited: true,
            snd_una,
            snd_nxt: 100,
            ..Default::default()
        };
        cc.on_ack(&ack(10, 1));
        assert_eq!(cc.cwnd(), 100);
        cc.on_ack(&ack(15, 101));
        assert_eq!(cc.cwnd(), 125);
    }

    #[test]
    fn rtt_average_gain_is_three_over_the_window_capped_per_variant() {
        // First sample sets avgRTT = 60 ms. Second sample 316 ms with 3 packets outstanding:
        // ns2 gain 1/max(256, 1) -> 60 + 256/256 = 61 ms; paper gain 1/max(4, 1) -> 60 + 256/4 = 124 ms.
        // With 1536 outstanding both use 1/512: 60 + 256/512 = 60.5 ms. baseRTT stays 60 ms.
        for (variant, small_window_ms) in [("ns2", 61.0), ("paper", 124.0)] {
            let mut cc = fast(variant, 10);
            cc.estimate(Some(ms(60)), 3);
            cc.estimate(Some(ms(316)), 3);
            assert_eq!(cc.avg_rtt_ns, small_window_ms * 1e6, "{variant}");
            let mut cc = fast(variant, 10);
            cc.estimate(Some(ms(60)), 1536);
            cc.estimate(Some(ms(316)), 1536);
            assert_eq!(cc.avg_rtt_ns, 60.5e6, "{variant}");
            assert_eq!(cc.base_rtt, Some(ms(60)));
        }
    }

    #[test]
    fn loss_halves_like_reno_and_drops_paced_increments() {
        // w = 401.5 -> ssthresh = cwnd = floor(401.5) / 2 = 200; recovery exit keeps 200.
        let mut cc = fast("ns2", 400);
        cc.window = 401.5;
        cc.pending_increments = 30;
        cc.on_congestion_event(&loss(SimTime(0)));
        assert_eq!((cc.cwnd(), cc.ssthresh(), cc.pending_increments), (200, 200, 0));
        cc.on_recovery_exit(SimTime(0));
        assert_eq!(cc.cwnd(), 200);
    }

    #[test]
    fn timeout_sets_the_variant_loss_window_and_keeps_the_estimators() {
        // ns2: cwnd 2 (slowstart_), ssthresh 401 / 2 = 200; a repeated backoff keeps ssthresh.
        // paper: cwnd 1 (RFC 5681). baseRTT and avgRTT survive (ns-2 does not reset them).
        for (variant, loss_window) in [("ns2", 2), ("paper", 1)] {
            let mut cc = fast(variant, 401);
            cc.estimate(Some(ms(60)), 400);
            cc.on_timeout(SimTime(0), true);
            assert_eq!((cc.cwnd(), cc.ssthresh()), (loss_window, 200), "{variant}");
            cc.on_timeout(SimTime(0), false);
            assert_eq!((cc.cwnd(), cc.ssthresh()), (loss_window, 200), "{variant}");
            assert_eq!((cc.base_rtt, cc.avg_rtt_ns), (Some(ms(60)), 60e6));
        }
    }

    #[test]
    fn presets_carry_the_documented_constants_and_parameters_override_them() {
        let ns2 = <FastConfig as Algorithm>::variant("ns2").unwrap();
        assert_eq!((ns2.alpha, ns2.beta, ns2.gamma), (100.0, 100.0, 0.5));
        assert_eq!((ns2.update_interval_us, ns2.mi_threshold_us, ns2.pace_min_base_rtt_us), (10_000, 750, 4_000));
        assert_eq!((ns2.rtt_ewma_min_divisor, ns2.loss_window), (256, 2));
        let paper = <FastConfig as Algorithm>::variant("paper").unwrap();
        assert_eq!((paper.alpha, paper.update_interval_us, paper.mi_threshold_us), (200.0, 0, 0));
        assert_eq!(paper.equilibrium_window, EquilibriumWindow::Cwnd);
        let spec = serde_json::json!({"name": "fast", "variant": "paper", "alpha": 50});
        assert_eq!(crate::cc::registry::build("cc", &spec, 2).unwrap().name(), "fast");
        let bad = serde_json::json!({"name": "fast", "gamma": 0});
        assert_eq!(crate::cc::registry::build("cc", &bad, 2).err().unwrap().field, "cc.gamma");
    }
}
