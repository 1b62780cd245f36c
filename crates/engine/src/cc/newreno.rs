//! Reno/NewReno window control: RFC 5681 slow start and congestion avoidance, halving on loss.
//!
//! Variants (the recovery mechanics, SACK or NewReno partial ACKs, belong to the sender):
//! - `linux` (default): Linux >= 4.0 `tcp_reno_cong_avoid`: growth weighted by packets acknowledged, slow
//!   start while cwnd < ssthresh, capped at ssthresh with the leftover spent in congestion avoidance.
//! - `linux-2.6.22`: the kernel bundled with ns-2.35 TCP-Linux: one step per ACK, slow start while
//!   cwnd <= ssthresh.
//! Loss (both): ssthresh = max(cwnd / 2, 2), cwnd = ssthresh (fact sheet §2.1).

use super::common::{reno_min_cwnd, Counting, Window, INFINITE_SSTHRESH};
use super::registry::{Algorithm, AlgorithmInfo, ParamDoc};
use super::{AckSample, AnyCc, CongestionControl, CongestionEvent};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewRenoConfig {
    /// How ACKs are counted for growth: "packets" (modern Linux, RFC 5681 with ABC) or "acks" (Linux 2.6).
    pub counting: Counting,
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
        ],
        params: &[ParamDoc { name: "counting", doc: "growth counts 'packets' acknowledged or 'acks'" }],
    };

    fn variant(name: &str) -> Option<Self> {
        match name {
            "linux" => Some(NewRenoConfig { counting: Counting::Packets }),
            "linux-2.6.22" => Some(NewRenoConfig { counting: Counting::Acks }),
            _ => None,
        }
    }

    fn build(self, initial_cwnd: u32) -> AnyCc {
        NewReno::new(self, initial_cwnd).into()
    }
}

pub struct NewReno {
    cfg: NewRenoConfig,
    win: Window,
}

impl NewReno {
    pub fn new(cfg: NewRenoConfig, initial_cwnd: u32) -> Self {
        NewReno { cfg, win: Window::new(initial_cwnd, INFINITE_SSTHRESH) }
    }
}

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }

    fn on_ack(&mut self, s: &AckSample) {
        if let Some(units) = self.win.slow_start_or_units(self.cfg.counting, s) {
            let w = self.win.cwnd;
            self.win.additive_increase(w, units);
        }
    }

    fn on_congestion_event(&mut self, _e: &CongestionEvent) {
        self.win.reduce_to(self.win.cwnd / 2);
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.win.exit_recovery();
    }

    fn on_timeout(&mut self, _now: SimTime, first_in_episode: bool) {
        let ssthresh = first_in_episode.then_some((self.win.cwnd / 2).max(2));
        self.win.timeout(ssthresh);
    }

    /// `tcp_reno_min_cwnd` for every variant (ns-2.35 `tcp/linux/src/tcp_cong.c`, `tcp_reno`'s `.min_cwnd`
    /// at line 388).
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
        let mut cc = NewReno::new(NewRenoConfig { counting: Counting::Packets }, 2);
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
        let mut cc = NewReno::new(NewRenoConfig { counting: Counting::Packets }, 2);
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
        let mut cc = NewReno::new(NewRenoConfig { counting: Counting::Packets }, 2);
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
        let mut modern = NewReno::new(NewRenoConfig { counting: Counting::Packets }, 10);
        let mut old = NewReno::new(NewRenoConfig { counting: Counting::Acks }, 10);
        modern.win.ssthresh = 5;
        old.win.ssthresh = 5;
        modern.on_ack(&ack(10));
        old.on_ack(&ack(10));
        assert_eq!(modern.cwnd(), 11);
        assert_eq!(old.cwnd(), 10);
    }

    #[test]
    fn no_growth_when_not_cwnd_limited() {
        let mut cc = NewReno::new(NewRenoConfig { counting: Counting::Packets }, 2);
        cc.on_ack(&AckSample { acked: 1, cwnd_limited: false, ..Default::default() });
        assert_eq!(cc.cwnd(), 2);
    }
}
