//! Reno/NewReno window control: RFC 5681 slow start and congestion avoidance, halving on loss.
//!
//! Variants (the recovery mechanics, SACK or NewReno partial ACKs, belong to the sender):
//! - `linux` (default): Linux >= 4.0 `tcp_reno_cong_avoid`: growth weighted by packets acknowledged, slow
//!   start while cwnd < ssthresh, capped at ssthresh with the leftover spent in congestion avoidance.
//! - `linux-2.6.22`: the kernel bundled with ns-2.35 TCP-Linux: one step per ACK, slow start while
//!   cwnd <= ssthresh.
//! - `ns2`: ns-2.35's own Agent/TCP (`windowOption_ 1`, `increase_num_` 1, `decrease_num_` 0.5), the window
//!   of its SACK agent (`recovery = "ns2-sack1"`, seed 003's TCP-SACK): a double (`cc/ns2_window.rs`),
//!   +1/cwnd per new ACK, slow start while cwnd < ssthresh, halvings that keep the fraction.
//! Loss (all): ssthresh = max(cwnd / 2, 2), cwnd = ssthresh (fact sheet §2.1); `ns2` keeps cwnd / 2 as a
//! double.

use super::common::{reno_min_cwnd, Counting, Window, INFINITE_SSTHRESH};
use super::ns2_window::{Arithmetic, Ns2Window};
use super::registry::{Algorithm, AlgorithmInfo, ParamDoc};
use super::{AckSample, AnyCc, CongestionControl, CongestionEvent};
use crate::config::{err, ConfigError};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewRenoConfig {
    /// How ACKs are counted for growth: "packets" (modern Linux, RFC 5681 with ABC) or "acks" (Linux 2.6).
    pub counting: Counting,
    /// "integer" (Linux's snd_cwnd and its growth counter) or "real" (ns-2.35 Agent/TCP's double cwnd_,
    /// `cc/ns2_window.rs`; counts ACKs).
    #[serde(default)]
    pub window: Arithmetic,
}

impl Algorithm for NewRenoConfig {
    const INFO: AlgorithmInfo = AlgorithmInfo {
        name: "newreno",
        aliases: &["reno"],
        summary: "Reno/NewReno AIMD: slow start, +1 packet per RTT, halve on loss (RFC 5681, RFC 6582)",
        default_variant: "linux",
        variants: &[
            ("linux", "Linux >= 4.0 tcp_reno_cong_avoid: growth counts packets acknowledged (RFC 5681 with ABC)"),
            ("linux-2.6.22", "Linux 2.6.22 as in ns-2.35 TCP-Linux: growth counts ACKs, slow start while cwnd <= ssthresh"),
            ("ns2", "ns-2.35 Agent/TCP (its Sack1 agent's window): a double cwnd_, +1/cwnd per ACK, slow start while cwnd < ssthresh, halvings keep the fraction"),
        ],
        params: &[
            ParamDoc { name: "counting", doc: "growth counts 'packets' acknowledged or 'acks'" },
            ParamDoc { name: "window", doc: "'integer' (Linux's snd_cwnd) or 'real' (ns-2's double cwnd_; needs counting = 'acks')" },
        ],
    };

    fn variant(name: &str) -> Option<Self> {
        match name {
            "linux" => Some(NewRenoConfig { counting: Counting::Packets, window: Arithmetic::Integer }),
            "linux-2.6.22" => Some(NewRenoConfig { counting: Counting::Acks, window: Arithmetic::Integer }),
            "ns2" => Some(NewRenoConfig { counting: Counting::Acks, window: Arithmetic::Real }),
            _ => None,
        }
    }

    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if self.window == Arithmetic::Real && self.counting != Counting::Acks {
            return Err(err(format!("{field}.window"), "'real' is ns-2's window, opened once per new ACK: it needs counting = 'acks'"));
        }
        Ok(())
    }

    fn build(self, initial_cwnd: u32) -> AnyCc {
        NewReno::new(self, initial_cwnd).into()
    }
}

pub struct NewReno {
    cfg: NewRenoConfig,
    win: Window,
    /// `window = "real"`: ns-2's double window, in place of `win`.
    ns2: Option<Ns2Window>,
}

impl NewRenoConfig {
    #[cfg(test)]
    fn build_newreno(self, initial_cwnd: u32) -> NewReno {
        NewReno::new(self, initial_cwnd)
    }
}

impl NewReno {
    pub fn new(cfg: NewRenoConfig, initial_cwnd: u32) -> Self {
        let ns2 = (cfg.window == Arithmetic::Real).then(|| Ns2Window::new(initial_cwnd, INFINITE_SSTHRESH));
        NewReno { cfg, win: Window::new(initial_cwnd, INFINITE_SSTHRESH), ns2 }
    }
}

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }

    fn on_ack(&mut self, s: &AckSample) {
        if let Some(real) = &mut self.ns2 {
            // `opencwnd` on every new ACK (`increase_num_` / cwnd_); ns-2 does not ask whether the window
            // was used.
            if s.acked > 0 {
                real.open(|cwnd| 1.0 / cwnd);
                real.mirror(&mut self.win);
            }
            return;
        }
        if let Some(units) = self.win.slow_start_or_units(self.cfg.counting, s) {
            let w = self.win.cwnd;
            self.win.additive_increase(w, units);
        }
    }

    fn on_congestion_event(&mut self, _e: &CongestionEvent) {
        if let Some(real) = &mut self.ns2 {
            real.halve();
            real.mirror(&mut self.win);
            return;
        }
        self.win.reduce_to(self.win.cwnd / 2);
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        // ns-2's agent leaves cwnd_ where the halving put it.
        if self.ns2.is_none() {
            self.win.exit_recovery();
        }
    }

    fn on_timeout(&mut self, _now: SimTime, first_in_episode: bool) {
        if let Some(real) = &mut self.ns2 {
            if first_in_episode {
                real.restart();
            } else {
                real.restart_keeping_ssthresh();
            }
            real.mirror(&mut self.win);
            return;
        }
        let ssthresh = first_in_episode.then_some((self.win.cwnd / 2).max(2));
        self.win.timeout(ssthresh);
    }

    /// `tcp_reno_min_cwnd` for every variant (ns-2.35 `tcp/linux/src/tcp_cong.c`, `tcp_reno`'s `.min_cwnd`
    /// at line 388).
    fn min_cwnd(&self) -> u32 {
        reno_min_cwnd(self.win.ssthresh)
    }

    fn set_cwnd(&mut self, cwnd: u32) {
        if let Some(real) = &mut self.ns2 {
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
    use crate::cc::common::Counting;

    fn ack(acked: u32) -> AckSample {
        AckSample { acked, cwnd_limited: true, ..Default::default() }
    }
    fn loss() -> CongestionEvent {
        CongestionEvent { now: SimTime(0), in_flight: 0, min_rtt: None, srtt: None }
    }

    #[test]
    fn slow_start_doubles_each_round_trip() {
        // IW 2. Round 1: 2 ACKs -> 4. Round 2: 4 ACKs -> 8. Round 3: 8 ACKs -> 16.
        let mut cc = NewReno::new(NewRenoConfig { counting: Counting::Packets, window: Default::default() }, 2);
        let mut expected = 2;
        for _round in 0..3 {
            let acks = cc.cwnd();
            for _ in 0..acks {
                cc.on_ack(&ack(1));
            }
            expected *= 2;
            assert_eq!(cc.cwnd(), expected);
        }
    }

    #[test]
    fn loss_halves_then_grows_one_packet_per_round_trip() {
        // Grow to 20 in slow start (2 -> 4 -> 8 -> 16 needs 14 ACKs, 4 more reach 20), then a loss:
        // ssthresh = 10, cwnd = 10 after recovery. Congestion avoidance: 10 ACKs -> 11, 11 ACKs -> 12.
        let mut cc = NewReno::new(NewRenoConfig { counting: Counting::Packets, window: Default::default() }, 2);
        for _ in 0..18 {
            cc.on_ack(&ack(1));
        }
        assert_eq!(cc.cwnd(), 20);
        cc.on_congestion_event(&loss());
        assert_eq!((cc.cwnd(), cc.ssthresh()), (10, 10));
        cc.on_recovery_exit(SimTime(0));
        for _ in 0..10 {
            cc.on_ack(&ack(1));
        }
        assert_eq!(cc.cwnd(), 11);
        for _ in 0..11 {
            cc.on_ack(&ack(1));
        }
        assert_eq!(cc.cwnd(), 12);
    }

    #[test]
    fn timeout_sets_loss_window_and_keeps_ssthresh_on_repeated_backoff() {
        // cwnd 20 -> RTO: ssthresh 10, cwnd 1. A second backoff of the same episode keeps ssthresh 10.
        let mut cc = NewReno::new(NewRenoConfig { counting: Counting::Packets, window: Default::default() }, 2);
        for _ in 0..18 {
            cc.on_ack(&ack(1));
        }
        cc.on_timeout(SimTime(0), true);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (1, 10));
        cc.on_timeout(SimTime(0), false);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (1, 10));
        // Slow start again from 1: 1 -> 2 -> 4 -> 8 -> 10 (capped at ssthresh), then +1 per RTT.
        for _ in 0..9 {
            cc.on_ack(&ack(1));
        }
        assert_eq!(cc.cwnd(), 10);
    }

    #[test]
    fn stretch_acks_count_packets_in_the_modern_variant_and_acks_in_2_6_22() {
        // In congestion avoidance at cwnd 10, one ACK covering 10 packets: +1 (packets) vs +0.1 (acks).
        let mut modern = NewReno::new(NewRenoConfig { counting: Counting::Packets, window: Default::default() }, 10);
        let mut old = NewReno::new(NewRenoConfig { counting: Counting::Acks, window: Default::default() }, 10);
        modern.win.ssthresh = 5;
        old.win.ssthresh = 5;
        modern.on_ack(&ack(10));
        old.on_ack(&ack(10));
        assert_eq!(modern.cwnd(), 11);
        assert_eq!(old.cwnd(), 10);
    }

    #[test]
    fn no_growth_when_not_cwnd_limited() {
        let mut cc = NewReno::new(NewRenoConfig { counting: Counting::Packets, window: Default::default() }, 2);
        cc.on_ack(&AckSample { acked: 1, cwnd_limited: false, ..Default::default() });
        assert_eq!(cc.cwnd(), 2);
    }

    #[test]
    fn ns2_variant_keeps_the_fraction_through_a_halving_and_recovery() {
        let mut cc = NewRenoConfig::variant("ns2").unwrap().build_newreno(2);
        // Slow start to 33 (31 ACKs), a loss: ns-2 sets cwnd_ = 16.5 and ssthresh_ = 16; the window
        // sends 16 packets, and the end of recovery leaves it there.
        for _ in 0..31 {
            cc.on_ack(&ack(1));
        }
        assert_eq!(cc.cwnd(), 33);
        cc.on_congestion_event(&loss());
        assert_eq!((cc.cwnd(), cc.ssthresh()), (16, 16));
        cc.on_recovery_exit(SimTime(0));
        assert_eq!(cc.ns2.as_ref().map(Ns2Window::real), Some(16.5));
        // 16.5 is not below 16: congestion avoidance, 1/cwnd_ per ACK, and 17 comes with the 9th ACK
        // (0.5 / (1 / 16.7)), where the integer window would wait for 16.
        for _ in 0..8 {
            cc.on_ack(&ack(1));
        }
        assert_eq!(cc.cwnd(), 16);
        cc.on_ack(&ack(1));
        assert_eq!(cc.cwnd(), 17);
        // A timeout halves ssthresh from the double and restarts at one; so does a repeated one in ns-2.
        cc.on_timeout(SimTime(0), true);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (1, 8));
        cc.on_timeout(SimTime(0), true);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (1, 2));
    }

    #[test]
    fn ns2_variant_grows_whether_or_not_the_window_was_used_and_needs_ack_counting() {
        let mut cc = NewRenoConfig::variant("ns2").unwrap().build_newreno(2);
        cc.on_ack(&AckSample { acked: 1, cwnd_limited: false, ..Default::default() });
        assert_eq!(cc.cwnd(), 3);
        let bad = NewRenoConfig { counting: Counting::Packets, window: Arithmetic::Real };
        assert!(bad.validate("flows.0.cc").unwrap_err().to_string().contains("flows.0.cc.window"));
    }
}
