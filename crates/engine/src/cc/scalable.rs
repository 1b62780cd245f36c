//! Scalable TCP (Kelly, "Scalable TCP: Improving Performance in Highspeed Wide Area Networks", CCR 33(2),
//! 2003; Linux `tcp_scalable.c`). Fact sheet §2.2.
//!
//! MIMD above a legacy window lwnd: cwnd += a per unit counted (a = 1 / `ai_cnt`), and on a loss
//! cwnd -= b cwnd, so the time to recover from a loss does not depend on the rate. At or below lwnd the
//! growth is Reno's (+1 per cwnd units). In integers: +1 packet per `step` counted units, with
//! step = cwnd at or below lwnd, `ai_cnt` above it; ssthresh = max(cwnd - floor(b cwnd), 2).
//!
//! Variants:
//! - `paper`: a = 0.01 per packet ACKed (`ai_cnt` 100), b = 0.125, lwnd = 16 with Reno's halving at or
//!   below it, packet counting. Between 16 and 100 packets this grows more slowly than Reno (0.01 < 1/cwnd),
//!   as the paper's rule says.
//! - `linux` (Linux >= 5.7, "tcp: fix stretch ACK bugs in Scalable", 2020): +1 per min(cwnd, 100) packets
//!   ACKed, ssthresh = max(cwnd - cwnd/8, 2) at every window, slow start while cwnd < ssthresh.
//! - `linux-2.6.22` (default; the module ns-2.35 TCP-Linux bundles, and Linux up to 5.6): +1 per
//!   min(cwnd, 50) counted ACKs ("50 instead of 100 to account for delayed ack"); the 2.6.22 test
//!   `++cnt > min(cwnd, 50)` adds the packet on the 51st ACK. Slow start +1 per ACK while cwnd <= ssthresh.
//!   The default because the studies this project reproduces ran these modules under ns-2 (seed 000); with
//!   one ACK per packet it grows by 1/51 per packet, about 2 %/RTT, twice the paper's a.
//!
//! No state besides the window: an RTO only sets ssthresh by the same rule and cwnd = 1.

use super::common::{reno_min_cwnd, Counting, Window, INFINITE_SSTHRESH};
use super::registry::{Algorithm, AlgorithmInfo, ParamDoc};
use super::{AckSample, AnyCc, CongestionControl, CongestionEvent};
use crate::config::{err, ConfigError};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScalableConfig {
    /// Counted units per +1 packet above the legacy window, i.e. 1/a. Paper 100 (a = 0.01 per packet);
    /// Linux <= 5.6 and 2.6.22: 50 per ACK (`TCP_SCALABLE_AI_CNT`); Linux >= 5.7: 100 per packet.
    pub ai_cnt: u32,
    /// Legacy window lwnd in packets: at or below it growth is Reno's, +1 per cwnd units. Paper 16; Linux
    /// equals `ai_cnt` (its step is min(cwnd, ai_cnt), which is Reno's up to ai_cnt).
    pub legacy_window: u32,
    /// Decrease fraction b on a loss above the legacy window: ssthresh = cwnd - floor(b cwnd).
    /// 0.125 in the paper and in Linux (`cwnd >> 3`).
    pub b: f64,
    /// Whether a loss at or below the legacy window halves the window as Reno does (paper: true) or uses b
    /// too (Linux: false).
    pub legacy_halving: bool,
    /// "packets" (paper, Linux >= 5.7) or "acks" (Linux 2.6.22 to 5.6; one unit per ACK, 2.6 slow start).
    pub counting: Counting,
}

impl Algorithm for ScalableConfig {
    const INFO: AlgorithmInfo = AlgorithmInfo {
        name: "scalable",
        aliases: &["stcp"],
        summary: "Scalable TCP: MIMD, cwnd += 0.01 per packet, -12.5 % on loss (Kelly, CCR 2003)",
        default_variant: "linux-2.6.22",
        variants: &[
            ("paper", "Kelly 2003: a 0.01 per packet ACKed, b 0.125, Reno (growth and halving) at or below lwnd 16"),
            ("linux", "Linux >= 5.7 tcp_scalable.c: +1 per min(cwnd, 100) packets ACKed, ssthresh cwnd - cwnd/8"),
            ("linux-2.6.22", "Linux 2.6.22 as in ns-2.35 TCP-Linux (to 5.6): +1 per min(cwnd, 50) + 1 ACKs, ssthresh cwnd - cwnd/8"),
        ],
        params: &[
            ParamDoc { name: "ai_cnt", doc: "counted units per +1 packet above the legacy window, 1/a, >= 1 (paper 100, 2.6.22 50)" },
            ParamDoc { name: "legacy_window", doc: "packets; at or below, Reno growth (paper 16, Linux = ai_cnt)" },
            ParamDoc { name: "b", doc: "decrease fraction on loss, 0 < b < 1 (0.125)" },
            ParamDoc { name: "legacy_halving", doc: "halve on loss at or below the legacy window (paper true, Linux false)" },
            ParamDoc { name: "counting", doc: "growth counts 'packets' acknowledged or 'acks' (2.6.22)" },
        ],
    };

    fn variant(name: &str) -> Option<Self> {
        let linux = |ai_cnt, counting| ScalableConfig { ai_cnt, legacy_window: ai_cnt, b: 0.125, legacy_halving: false, counting };
        match name {
            "paper" => Some(ScalableConfig {
                ai_cnt: 100,
                legacy_window: 16,
                b: 0.125,
                legacy_halving: true,
                counting: Counting::Packets,
            }),
            "linux" => Some(linux(100, Counting::Packets)),
            "linux-2.6.22" => Some(linux(50, Counting::Acks)),
            _ => None,
        }
    }

    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if self.ai_cnt == 0 {
            return Err(err(format!("{field}.ai_cnt"), "must be at least 1"));
        }
        if !(self.b > 0.0 && self.b < 1.0) {
            return Err(err(format!("{field}.b"), "must be in (0, 1)"));
        }
        Ok(())
    }

    fn build(self, initial_cwnd: u32) -> AnyCc {
        Scalable::new(self, initial_cwnd).into()
    }
}

pub struct Scalable {
    cfg: ScalableConfig,
    win: Window,
}

impl Scalable {
    pub fn new(cfg: ScalableConfig, initial_cwnd: u32) -> Self {
        Scalable { cfg, win: Window::new(initial_cwnd, INFINITE_SSTHRESH) }
    }

    /// Counted units per +1 packet: Reno's cwnd in the legacy region, 1/a above it.
    fn step(&self) -> u32 {
        if self.win.cwnd <= self.cfg.legacy_window {
            self.win.cwnd
        } else {
            self.cfg.ai_cnt
        }
    }

    /// ssthresh after a loss: cwnd - floor(b cwnd) (Linux `cwnd - (cwnd >> 3)`), or Reno's cwnd/2 in the
    /// paper's legacy region.
    fn loss_ssthresh(&self) -> u32 {
        let cwnd = self.win.cwnd;
        let ssthresh = if self.cfg.legacy_halving && cwnd <= self.cfg.legacy_window {
            cwnd / 2
        } else {
            cwnd - (self.cfg.b * f64::from(cwnd)).floor() as u32
        };
        ssthresh.max(2)
    }
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }

    fn on_ack(&mut self, s: &AckSample) {
        let Some(units) = self.win.slow_start_or_units(self.cfg.counting, s) else { return };
        let step = self.step();
        match self.cfg.counting {
            // 2.6.22: `if (++cnt > step) { cwnd++; cnt = 0; }`, one packet per step + 1 ACKs.
            Counting::Acks => self.win.increase_every(step),
            Counting::Packets => self.win.additive_increase(step, units),
        }
    }

    fn on_congestion_event(&mut self, _e: &CongestionEvent) {
        let ssthresh = self.loss_ssthresh();
        self.win.reduce_to(ssthresh);
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.win.exit_recovery();
    }

    fn on_timeout(&mut self, _now: SimTime, first_in_episode: bool) {
        let ssthresh = first_in_episode.then(|| self.loss_ssthresh());
        self.win.timeout(ssthresh);
    }

    /// `tcp_reno_min_cwnd` (ns-2.35 `tcp/linux/src/tcp_scalable.c`: `.min_cwnd = tcp_reno_min_cwnd`; Linux
    /// 2.6.24's file has the same line). So recovery starts at 0.875 / 2 of the old cwnd.
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

    fn scalable(variant: &str, cwnd: u32) -> Scalable {
        let mut s = Scalable::new(<ScalableConfig as Algorithm>::variant(variant).unwrap(), cwnd);
        s.win.ssthresh = 2; // start in congestion avoidance
        s
    }
    fn ack(acked: u32) -> AckSample {
        AckSample { acked, cwnd_limited: true, ..Default::default() }
    }
    fn loss() -> CongestionEvent {
        CongestionEvent { now: SimTime(0), in_flight: 0, min_rtt: None, srtt: None }
    }
    /// One round trip: an ACK per packet of the current window.
    fn round(s: &mut Scalable) {
        for _ in 0..s.cwnd() {
            s.on_ack(&ack(1));
        }
    }

    #[test]
    fn paper_grows_one_percent_per_rtt_above_lwnd_and_cuts_an_eighth() {
        // cwnd 200 > lwnd 16: +1 per 100 packets. Round 1: 200 ACKs -> 202. Round 2: 202 ACKs -> 204
        // (counter 2 left from round 2's 202 = 2 x 100 + 2).
        let mut s = scalable("paper", 200);
        round(&mut s);
        assert_eq!(s.cwnd(), 202);
        round(&mut s);
        assert_eq!(s.cwnd(), 204);
        // Loss at 204: 204 - floor(0.125 x 204 = 25.5) = 179.
        s.on_congestion_event(&loss());
        assert_eq!((s.cwnd(), s.ssthresh()), (179, 179));
        // 2.6 min_cwnd (tcp_reno_min_cwnd): 179 / 2 = 89, the linux-2.6 recovery mode's entry window.
        assert_eq!(s.min_cwnd(), 89);
    }

    #[test]
    fn paper_is_reno_at_or_below_the_legacy_window() {
        // cwnd 10 <= 16: +1 per 10 packets (Reno), and a loss halves: 11 -> 5.
        let mut s = scalable("paper", 10);
        round(&mut s);
        assert_eq!(s.cwnd(), 11);
        s.on_congestion_event(&loss());
        assert_eq!(s.cwnd(), 5);
        // Between lwnd and 100 the paper's a = 0.01 is slower than Reno: at 20, one round of 20 ACKs
        // leaves cwnd at 20 (20 of the 100 units needed).
        let mut s = scalable("paper", 20);
        round(&mut s);
        assert_eq!((s.cwnd(), s.win.cwnd_cnt), (20, 20));
    }

    #[test]
    fn linux_2_6_22_adds_one_packet_per_51_acks_above_50() {
        // cwnd 100: step min(100, 50) = 50; the 2.6.22 `++cnt > 50` test fires on the 51st ACK.
        let mut s = scalable("linux-2.6.22", 100);
        for _ in 0..50 {
            s.on_ack(&ack(1));
        }
        assert_eq!(s.cwnd(), 100);
        s.on_ack(&ack(1));
        assert_eq!(s.cwnd(), 101);
        // A stretch ACK for 10 packets is one ACK: one unit.
        s.on_ack(&ack(10));
        assert_eq!((s.cwnd(), s.win.cwnd_cnt), (101, 1));
        // Below 50 it is Reno 2.6.22: cwnd 20 needs 21 ACKs.
        let mut small = scalable("linux-2.6.22", 20);
        for _ in 0..20 {
            small.on_ack(&ack(1));
        }
        assert_eq!(small.cwnd(), 20);
        small.on_ack(&ack(1));
        assert_eq!(small.cwnd(), 21);
    }

    #[test]
    fn linux_counts_packets_with_step_100() {
        // Linux >= 5.7 at cwnd 300: +1 per 100 packets; one stretch ACK for 250 packets gives +2, 50 kept.
        let mut s = scalable("linux", 300);
        s.on_ack(&ack(250));
        assert_eq!((s.cwnd(), s.win.cwnd_cnt), (302, 50));
        // At 60 (< 100) growth is Reno's: 60 packets -> 61.
        let mut small = scalable("linux", 60);
        round(&mut small);
        assert_eq!(small.cwnd(), 61);
    }

    #[test]
    fn linux_cuts_an_eighth_even_at_small_windows() {
        // 2.6.22 and modern: ssthresh = cwnd - (cwnd >> 3). 1000 -> 875; 10 -> 9 (no legacy halving);
        // 2 -> 2 (floor of 2).
        for variant in ["linux", "linux-2.6.22"] {
            for (cwnd, expected) in [(1000, 875), (10, 9), (2, 2)] {
                let mut s = scalable(variant, cwnd);
                s.on_congestion_event(&loss());
                assert_eq!((s.cwnd(), s.ssthresh()), (expected, expected), "{variant} at {cwnd}");
            }
        }
    }

    #[test]
    fn recovery_exit_and_timeout() {
        // Loss at 400 (2.6.22): ssthresh 350; recovery exit deflates to 350. RTO at 350: ssthresh
        // 350 - 43 = 307, cwnd 1; a repeated backoff keeps 307.
        let mut s = scalable("linux-2.6.22", 400);
        s.on_congestion_event(&loss());
        s.on_recovery_exit(SimTime(0));
        assert_eq!((s.cwnd(), s.ssthresh()), (350, 350));
        s.on_timeout(SimTime(0), true);
        assert_eq!((s.cwnd(), s.ssthresh()), (1, 307));
        s.on_timeout(SimTime(0), false);
        assert_eq!((s.cwnd(), s.ssthresh()), (1, 307));
        // 2.6 slow start from 1: +1 per ACK, 3 ACKs -> 4.
        for _ in 0..3 {
            s.on_ack(&ack(1));
        }
        assert_eq!(s.cwnd(), 4);
    }

    #[test]
    fn no_growth_when_not_cwnd_limited() {
        let mut s = scalable("linux", 300);
        s.on_ack(&AckSample { acked: 300, cwnd_limited: false, ..Default::default() });
        assert_eq!(s.cwnd(), 300);
    }
}
