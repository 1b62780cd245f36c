//! Generic AIMD(a, b): RFC 5681 slow start, then cwnd += a per RTT (a/cwnd per counted unit), and on a
//! loss cwnd -> (1 - b) cwnd.
//!
//! Convention: **b is the decrease fraction**, the share of the window given up on a loss, as in seed 000
//! (eq. 2, cwnd <- cwnd - b cwnd, Reno b = 0.5; STCP b = 0.125) and seed 003 (AIMD a = 32, b = 0.125,
//! i.e. cwnd -> 0.875 cwnd). ns-2's `decrease_num_` is the other convention, the fraction kept (1 - b).
//! Response function (seed 003, after Floyd, Handley, Padhye 2000): R = (1/RTT) sqrt((a/2) (2 - b)/b / p).
//!
//! Integers as Linux: a is held in 2^-16 packets, the counter gains a per unit, and a packet costs cwnd;
//! ssthresh = max(floor((1 - b) cwnd), 2). With a = 1, b = 0.5 this is exactly Reno (`newreno`), the check
//! that the defaults reproduce it.
//!
//! Variants: `reno` (default, a 1, b 0.5) and `xu2004` (a 32, b 0.125, the AIMD of Xu, Harfoush, Rhee,
//! INFOCOM 2004, seed 003); `xu2004-ns2`, the same law as ns-2.35's Agent/TCP runs it (`windowOption_ 1`
//! with `increase_num_` 32 and `decrease_num_` 0.875, a/cwnd per ACK), with ns-2's reductions
//! (`reductions = "ns2"`, `cc/ns2_slowdown.rs`: the connection's first reduction, one in slow start and
//! every timeout halve) and ns-2's window, a double (`window = "real"`, `cc/ns2_window.rs`: cwnd_ += 32/cwnd_
//! per new ACK, cuts that keep the fraction). ns-2's growth once per ACK comes with `recovery = "ns2-sack1"`.

use super::common::{Counting, Window, INFINITE_SSTHRESH};
use super::ns2_slowdown::{Ns2Slowdown, Reductions};
use super::ns2_window::{Arithmetic, Ns2Window};
use super::registry::{Algorithm, AlgorithmInfo, ParamDoc};
use super::{AckSample, AnyCc, CongestionControl, CongestionEvent};
use crate::config::{err, ConfigError};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// a is held in units of 2^-16 packets per RTT.
const A_SHIFT: u32 = 16;
/// Largest a accepted, packets per RTT (keeps the counter far from overflow).
const MAX_A: f64 = 1e6;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AimdConfig {
    /// Additive increase a, packets per RTT, > 0 (Reno 1; seed 003's AIMD 32). Rounded to 2^-16.
    pub a: f64,
    /// Multiplicative decrease b, the fraction of the window given up on a loss, 0 < b < 1 (Reno 0.5;
    /// seed 003's AIMD 0.125).
    pub b: f64,
    /// Growth counts "packets" acknowledged (RFC 5681 with ABC, modern Linux) or "acks" (Linux 2.6:
    /// a/cwnd per ACK, 2.6 slow start).
    pub counting: Counting,
    /// How a loss cuts the window: "standard" (to (1 - b) cwnd at each loss event and the first timeout of
    /// an episode) or "ns2" (ns-2.35's `slowdown`, `cc/ns2_slowdown.rs`).
    pub reductions: Reductions,
    /// "integer" (whole packets with a counter) or "real" (ns-2.35 Agent/TCP's double cwnd_, opened once per
    /// new ACK whatever `counting` says; needs reductions = "ns2").
    #[serde(default)]
    pub window: Arithmetic,
}

impl Algorithm for AimdConfig {
    const INFO: AlgorithmInfo = AlgorithmInfo {
        name: "aimd",
        aliases: &[],
        summary: "Generic AIMD(a, b): +a packets per RTT, cwnd -> (1 - b) cwnd on loss",
        default_variant: "reno",
        variants: &[
            ("reno", "a = 1, b = 0.5: Reno's AIMD (identical to newreno 'linux')"),
            ("xu2004", "a = 32, b = 0.125: the AIMD compared with BIC by Xu, Harfoush, Rhee (INFOCOM 2004)"),
            ("xu2004-ns2", "xu2004 as ns-2.35's Agent/TCP runs it (increase_num_ 32, decrease_num_ 0.875): ns-2's reductions (first, slow-start and timeout ones halve) and its double window"),
        ],
        params: &[
            ParamDoc { name: "a", doc: "additive increase, packets per RTT, > 0 (1)" },
            ParamDoc { name: "b", doc: "decrease fraction: cwnd -> (1 - b) cwnd on loss, 0 < b < 1 (0.5)" },
            ParamDoc { name: "counting", doc: "growth counts 'packets' acknowledged or 'acks'" },
            ParamDoc { name: "reductions", doc: "'standard' ((1 - b) cwnd at each loss) or 'ns2' (ns-2.35's slowdown)" },
            ParamDoc { name: "window", doc: "'integer' or 'real' (ns-2's double cwnd_, once per ACK; needs reductions = 'ns2')" },
        ],
    };

    fn variant(name: &str) -> Option<Self> {
        match name {
            "reno" => Some(AimdConfig { a: 1.0, b: 0.5, counting: Counting::Packets, reductions: Reductions::Standard, window: Arithmetic::Integer }),
            "xu2004" => Some(AimdConfig { a: 32.0, b: 0.125, counting: Counting::Packets, reductions: Reductions::Standard, window: Arithmetic::Integer }),
            "xu2004-ns2" => Some(AimdConfig { reductions: Reductions::Ns2, window: Arithmetic::Real, ..Self::variant("xu2004")? }),
            _ => None,
        }
    }

    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if !(self.a > 0.0 && self.a <= MAX_A) || (self.a * f64::from(1u32 << A_SHIFT)).round() < 1.0 {
            return Err(err(format!("{field}.a"), format!("must be in [2^-16, {MAX_A}] packets per RTT")));
        }
        if !(self.b > 0.0 && self.b < 1.0) {
            return Err(err(format!("{field}.b"), "must be in (0, 1)"));
        }
        if self.window == Arithmetic::Real && self.reductions != Reductions::Ns2 {
            return Err(err(format!("{field}.window"), "'real' is ns-2's window, cut by ns-2's slowdown: it needs reductions = 'ns2'"));
        }
        Ok(())
    }

    fn build(self, initial_cwnd: u32) -> AnyCc {
        Aimd::new(self, initial_cwnd).into()
    }
}

pub struct Aimd {
    cfg: AimdConfig,
    win: Window,
    /// a in 2^-16 packets.
    a: u64,
    /// Growth counter in 2^-16 units: +a per counted unit, one packet per cwnd.
    credit: u64,
    /// `reductions = "ns2"`: ns-2's `slowdown` state.
    ns2: Ns2Slowdown,
    /// `window = "real"`: ns-2's double window, which `win` mirrors in whole packets.
    real: Option<Ns2Window>,
}

impl Aimd {
    pub fn new(cfg: AimdConfig, initial_cwnd: u32) -> Self {
        let a = (cfg.a * f64::from(1u32 << A_SHIFT)).round() as u64;
        let real = (cfg.window == Arithmetic::Real).then(|| Ns2Window::new(initial_cwnd, INFINITE_SSTHRESH));
        Aimd { cfg, win: Window::new(initial_cwnd, INFINITE_SSTHRESH), a, credit: 0, ns2: Ns2Slowdown::new(initial_cwnd), real }
    }

    /// ns-2's `slowdown` for a fast retransmit on the double window: a cut to `decrease_num_` (1 - b) of
    /// it, or a halving (the connection's first reduction, one in slow start).
    fn real_cut(&mut self) {
        let Some(real) = self.real.as_mut() else { return };
        let halves = self.ns2.take_first() || real.in_slow_start();
        real.cut(1.0 - self.cfg.b, halves);
        real.mirror(&mut self.win);
    }

    /// cwnd += a units / cwnd, with Linux `tcp_cong_avoid_ai`'s carry of the remainder.
    fn additive_increase(&mut self, units: u32) {
        self.credit += self.a * u64::from(units);
        let window = u64::from(self.win.cwnd) << A_SHIFT;
        if self.credit >= window {
            let packets = self.credit / window;
            self.credit -= packets * window;
            self.win.cwnd += packets as u32;
        }
    }

    /// ssthresh = max(floor((1 - b) cwnd), 2): cwnd/2 for Reno's b = 0.5.
    fn loss_ssthresh(&self) -> u32 {
        self.kept().max(2)
    }

    /// floor((1 - b) cwnd): ns-2's `decreasewin`, `decrease_num_` = 1 - b times the window.
    fn kept(&self) -> u32 {
        ((1.0 - self.cfg.b) * f64::from(self.win.cwnd)).floor() as u32
    }

    /// ns-2's reduction for a fast retransmit or a timeout (`cc/ns2_slowdown.rs`).
    fn ns2_reduce(&mut self, timeout: bool) {
        let kept = u64::from(self.kept());
        self.ns2.reduce(&mut self.win, kept, self.cfg.b == 0.5, timeout);
    }
}

impl CongestionControl for Aimd {
    fn name(&self) -> &'static str {
        "aimd"
    }

    fn on_ack(&mut self, s: &AckSample) {
        if let Some(real) = &mut self.real {
            // `opencwnd` on every new ACK: `increase_num_` / cwnd_.
            if s.acked > 0 {
                let a = self.cfg.a;
                real.open(|cwnd| a / cwnd);
                real.mirror(&mut self.win);
            }
            return;
        }
        if let Some(units) = self.win.slow_start_or_units(self.cfg.counting, s) {
            self.additive_increase(units);
        }
    }

    fn on_congestion_event(&mut self, _e: &CongestionEvent) {
        if self.real.is_some() {
            return self.real_cut();
        }
        match self.cfg.reductions {
            Reductions::Standard => {
                let ssthresh = self.loss_ssthresh();
                self.win.reduce_to(ssthresh);
            }
            Reductions::Ns2 => self.ns2_reduce(false),
        }
        self.credit = 0;
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        // ns-2's agent leaves cwnd_ where the cut put it.
        if self.real.is_some() {
            return;
        }
        match self.cfg.reductions {
            Reductions::Standard => self.win.exit_recovery(),
            Reductions::Ns2 => self.ns2.exit_recovery(&mut self.win),
        }
        self.credit = 0;
    }

    fn on_timeout(&mut self, _now: SimTime, first_in_episode: bool) {
        // ns-2's `slowdown` at a timeout halves ssthresh and restarts at one (and ends the first
        // reduction); a repeated timeout under a rule that keeps ssthresh only restarts.
        if let Some(real) = &mut self.real {
            if first_in_episode {
                self.ns2.take_first();
                real.restart();
            } else {
                real.restart_keeping_ssthresh();
            }
            real.mirror(&mut self.win);
            return;
        }
        match (first_in_episode, self.cfg.reductions) {
            (false, _) => self.win.timeout(None),
            (true, Reductions::Standard) => self.win.timeout(Some(self.loss_ssthresh())),
            (true, Reductions::Ns2) => self.ns2_reduce(true),
        }
        self.credit = 0;
    }

    fn set_cwnd(&mut self, cwnd: u32) {
        if let Some(real) = &mut self.real {
            real.set(cwnd);
        }
        self.win.set_cwnd(cwnd);
    }

    fn cwnd(&self) -> u32 {
        self.win.cwnd
    }
    fn ssthresh(&self) -> u32 {
        self.win.ssthresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::newreno::{NewReno, NewRenoConfig};

    fn aimd(a: f64, b: f64, cwnd: u32) -> Aimd {
        let mut x = Aimd::new(AimdConfig { a, b, counting: Counting::Packets, reductions: Reductions::Standard, window: Default::default() }, cwnd);
        x.win.ssthresh = 2; // start in congestion avoidance
        x
    }
    fn ack(acked: u32) -> AckSample {
        AckSample { acked, cwnd_limited: true, ..Default::default() }
    }
    fn loss() -> CongestionEvent {
        CongestionEvent { now: SimTime(0), in_flight: 0, min_rtt: None, srtt: None }
    }
    fn round(x: &mut Aimd) {
        for _ in 0..x.cwnd() {
            x.on_ack(&ack(1));
        }
    }

    #[test]
    fn grows_a_packets_per_rtt() {
        // a = 32 at cwnd 320: the counter gains 32 per ACK and a packet costs cwnd. One round of 320 ACKs
        // gives 10240; n packets cost 320 + 321 + ... = 320 n + n (n - 1) / 2: 10035 for n = 30, 10385 for
        // n = 31. So 350: a little under +32, because the price rises with the window within the round.
        let mut x = aimd(32.0, 0.125, 320);
        round(&mut x);
        assert_eq!(x.cwnd(), 350);
        // a = 0.5 at cwnd 10: one packet per 20 ACKs.
        let mut half = aimd(0.5, 0.5, 10);
        for _ in 0..19 {
            half.on_ack(&ack(1));
        }
        assert_eq!(half.cwnd(), 10);
        half.on_ack(&ack(1));
        assert_eq!(half.cwnd(), 11);
    }

    #[test]
    fn b_is_the_fraction_given_up() {
        // b = 0.125 at 1000: floor(0.875 x 1000) = 875. b = 0.5 at 21: floor(10.5) = 10 (Reno's 21/2).
        let mut x = aimd(32.0, 0.125, 1000);
        x.on_congestion_event(&loss());
        assert_eq!((x.cwnd(), x.ssthresh()), (875, 875));
        let mut reno = aimd(1.0, 0.5, 21);
        reno.on_congestion_event(&loss());
        assert_eq!(reno.cwnd(), 10);
        // Never below 2: b = 0.9 at 10 -> floor(1.0) = 1 -> 2.
        let mut deep = aimd(1.0, 0.9, 10);
        deep.on_congestion_event(&loss());
        assert_eq!(deep.cwnd(), 2);
    }

    #[test]
    fn defaults_follow_newreno_step_for_step() {
        // A scripted run: slow start from 2, stretch ACKs, a loss, recovery exit, congestion avoidance, an
        // RTO and slow start again. The default AIMD(1, 0.5) and newreno 'linux' must agree after every step.
        let defaults = <AimdConfig as Algorithm>::variant("reno").unwrap();
        let mut x = Aimd::new(defaults, 2);
        let mut reno = NewReno::new(<NewRenoConfig as Algorithm>::variant("linux").unwrap(), 2);
        fn check(x: &mut Aimd, reno: &mut NewReno, step: &dyn Fn(&mut dyn CongestionControl)) {
            step(x);
            step(reno);
            assert_eq!((x.cwnd(), x.ssthresh()), (reno.cwnd(), reno.ssthresh()));
        }
        for acked in [1, 1, 2, 3, 1, 5, 8, 13, 2, 1, 1, 1, 40, 7, 1, 1, 1, 1, 1, 1] {
            check(&mut x, &mut reno, &|c| c.on_ack(&ack(acked)));
        }
        check(&mut x, &mut reno, &|c| c.on_congestion_event(&loss()));
        check(&mut x, &mut reno, &|c| c.on_recovery_exit(SimTime(0)));
        for _ in 0..200 {
            check(&mut x, &mut reno, &|c| c.on_ack(&ack(1)));
        }
        check(&mut x, &mut reno, &|c| c.on_ack(&ack(30)));
        check(&mut x, &mut reno, &|c| c.on_timeout(SimTime(0), true));
        check(&mut x, &mut reno, &|c| c.on_timeout(SimTime(0), false));
        for _ in 0..50 {
            check(&mut x, &mut reno, &|c| c.on_ack(&ack(1)));
        }
        assert!(x.cwnd() > 20);
    }

    #[test]
    fn ack_counting_adds_a_per_ack() {
        // counting = acks at cwnd 100, a = 4: a stretch ACK of 10 packets counts once (+0.04), so 25 ACKs
        // make one packet whatever they cover.
        let mut x = Aimd::new(AimdConfig { a: 4.0, b: 0.5, counting: Counting::Acks, reductions: Reductions::Standard, window: Default::default() }, 100);
        x.win.ssthresh = 2;
        for _ in 0..24 {
            x.on_ack(&ack(10));
        }
        assert_eq!(x.cwnd(), 100);
        x.on_ack(&ack(10));
        assert_eq!(x.cwnd(), 101);
    }

    #[test]
    fn timeout_sets_ssthresh_once() {
        // RTO at 1000 with b = 0.125: ssthresh 875, cwnd 1; a repeated backoff keeps 875.
        let mut x = aimd(32.0, 0.125, 1000);
        x.on_timeout(SimTime(0), true);
        assert_eq!((x.cwnd(), x.ssthresh()), (1, 875));
        x.on_timeout(SimTime(0), false);
        assert_eq!(x.ssthresh(), 875);
    }

    #[test]
    fn xu2004_ns2_halves_where_ns2_halves_and_keeps_seven_eighths_elsewhere() {
        // ns-2's double window: the windows below are set through `set_cwnd`, as whole packets.
        let mut x = Aimd::new(<AimdConfig as Algorithm>::variant("xu2004-ns2").unwrap(), 1000);
        // The connection's first reduction halves (first_decrease_), the next keeps 0.875 w.
        x.on_congestion_event(&loss());
        assert_eq!((x.cwnd(), x.ssthresh()), (500, 500));
        x.on_recovery_exit(SimTime(0));
        x.set_cwnd(1000);
        x.on_congestion_event(&loss());
        assert_eq!((x.cwnd(), x.ssthresh()), (875, 875));
        // A timeout halves ssthresh (xu2004: 875).
        x.set_cwnd(1000);
        x.on_timeout(SimTime(0), true);
        assert_eq!((x.cwnd(), x.ssthresh()), (1, 500));
        // So does a loss in slow start (cwnd 300 < ssthresh 500).
        x.set_cwnd(300);
        x.on_congestion_event(&loss());
        assert_eq!((x.cwnd(), x.ssthresh()), (150, 150));
    }

    #[test]
    fn xu2004_ns2_keeps_the_fraction_of_its_cut_and_adds_32_over_the_double_per_ack() {
        let mut x = Aimd::new(<AimdConfig as Algorithm>::variant("xu2004-ns2").unwrap(), 1000);
        x.on_congestion_event(&loss()); // the first reduction, out of the way
        x.set_cwnd(1001);
        x.on_congestion_event(&loss());
        // 0.875 x 1001 = 875.875: 875 packets, and the fourth ACK (+32/875.9 each) reaches 876.
        assert_eq!((x.cwnd(), x.ssthresh()), (875, 875));
        x.on_recovery_exit(SimTime(0));
        for _ in 0..3 {
            x.on_ack(&ack(1));
        }
        assert_eq!(x.cwnd(), 875);
        x.on_ack(&ack(1));
        assert_eq!(x.cwnd(), 876);
        // 'real' needs ns-2's reductions.
        let bad = AimdConfig { window: Arithmetic::Real, ..<AimdConfig as Algorithm>::variant("xu2004").unwrap() };
        assert!(bad.validate("cc").unwrap_err().to_string().contains("cc.window"));
    }

    #[test]
    fn parameters_are_range_checked() {
        let bad_a = AimdConfig { a: 0.0, b: 0.5, counting: Counting::Packets, reductions: Reductions::Standard, window: Default::default() };
        assert_eq!(bad_a.validate("cc").unwrap_err().field, "cc.a");
        let bad_b = AimdConfig { a: 1.0, b: 1.0, counting: Counting::Packets, reductions: Reductions::Standard, window: Default::default() };
        assert_eq!(bad_b.validate("cc").unwrap_err().field, "cc.b");
    }
}
