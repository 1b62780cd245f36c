//! PIE, Proportional Integral controller Enhanced (Pan, Natarajan, Baker, White, RFC 8033, February 2017).
//!
//! PIE drops arrivals at random with a probability `drop_prob` that a PI controller updates every
//! `t_update` from the queueing delay (RFC 8033 section 4.2), in seconds:
//!
//!   p = alpha (qdelay - target) + beta (qdelay - qdelay_old),  alpha = 0.125 Hz, beta = 1.25 Hz
//!
//! scaled down while drop_prob is small ("auto-tuning", section 4.2): p / 2048 below 0.000001, / 512 below
//! 0.00001, / 128 below 0.0001, / 32 below 0.001, / 8 below 0.01, / 2 below 0.1, unscaled above. Then
//! drop_prob += p (at most +0.02 once drop_prob >= 0.1: the cap of section 5.5, `cap_drop_adjustment`);
//! drop_prob *= 0.98 when both delays are 0 (section 4.2's exponential decay); drop_prob is bounded to
//! [0, 1]; qdelay_old = qdelay.
//!
//! Arrivals (section 4.1): the hard `size` limit drops as DropTail does. Otherwise, while the burst
//! allowance lasts, every arrival is accepted (section 4.4). After it, an arrival is accepted without a
//! draw when qdelay_old < target/2 and drop_prob < 0.2, or when at most 2 mean packets wait (the
//! work-conserving safeguard, section 4.1); else it is dropped with probability drop_prob. With
//! `ecn = true`, an ECN-capable packet is marked CE instead while drop_prob < `ecn_threshold` (section
//! 5.1, mark_ecnth = 10%); above it, it is dropped like any packet.
//!
//! Burst allowance (section 4.4): starts at `max_burst`; each update takes `t_update` off it (floored at
//! 0) and resets it to `max_burst` when drop_prob is 0 and both the current and the previous delay are
//! below target/2. The reset is done at the update, as Linux does.
//!
//! Choices, stated:
//! - Queueing delay from timestamps, not from the departure rate (section 4.3 allows both; Linux's
//!   default, `dq_rate_estimator` off): qdelay is the sojourn time of the packet that left last, and 0
//!   once a departure leaves the queue empty (as Linux and ns-3 do).
//! - Updates happen at every multiple of `t_update` since the start of the run. They are run lazily: an
//!   enqueue or dequeue at `now` first runs the updates of every boundary <= now, each with the state as
//!   it was then (nothing changed between events). So the result does not depend on when the link calls
//!   in, and no event is needed. A stretch of identical updates (an idle queue once drop_prob is 0) is
//!   skipped in one step.
//! - alpha, beta and the delays are combined in f64 from integer nanoseconds; drop_prob is an f64.
//! - The uniform draws come from the discipline's own `SimRng` stream (`LinkInfo::rng_seed`), one draw per
//!   arrival that reaches the random decision with drop_prob > 0.
//! - Not implemented: the departure-rate estimator, de-randomization (section 5.4) and Linux's extra
//!   +2% for delays above 250 ms.

use super::registry::{Discipline, DisciplineInfo, QueueLimits};
use super::timed_fifo::TimedFifo;
use super::{mark_ce, LinkInfo, Queue, QueueCounters};
use crate::cc::registry::ParamDoc;
use crate::config::{err, ConfigError};
use crate::net::packet::Packet;
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieConfig {
    /// Target queueing delay QDELAY_REF, ns. RFC 8033 section 4.2: 15 ms.
    pub target_ns: u64,
    /// Period of the drop probability update T_UPDATE, ns. RFC 8033 section 4.2: 15 ms.
    pub t_update_ns: u64,
    /// Weight of the delay's distance from target, per second. RFC 8033 section 4.2: 0.125 Hz.
    pub alpha_hz: f64,
    /// Weight of the delay's change since the last update, per second. RFC 8033 section 4.2: 1.25 Hz.
    pub beta_hz: f64,
    /// Burst allowance MAX_BURST, ns. RFC 8033 section 4.4: 150 ms.
    pub max_burst_ns: u64,
    /// MEAN_PKTSIZE of the safeguard (no drop while at most 2 of them wait), bytes; null = the scenario's
    /// packet size. (Linux uses the device MTU.)
    pub mean_packet_bytes: Option<u32>,
    /// Limit each update's increase to 0.02 once drop_prob >= 0.1 (RFC 8033 section 5.5; Linux and ns-3: on).
    pub cap_drop_adjustment: bool,
    /// Mark ECN-capable packets CE instead of dropping them while drop_prob < ecn_threshold. Default false.
    pub ecn: bool,
    /// mark_ecnth: drop probability from which even ECN-capable packets are dropped. RFC 8033 section 5.1: 0.1.
    pub ecn_threshold: f64,
}

impl Default for PieConfig {
    fn default() -> Self {
        PieConfig {
            target_ns: 15_000_000,
            t_update_ns: 15_000_000,
            alpha_hz: 0.125,
            beta_hz: 1.25,
            max_burst_ns: 150_000_000,
            mean_packet_bytes: None,
            cap_drop_adjustment: true,
            ecn: false,
            ecn_threshold: 0.1,
        }
    }
}

impl Discipline for PieConfig {
    const INFO: DisciplineInfo = DisciplineInfo {
        name: "pie",
        summary: "PIE: random drop at enqueue with a probability a PI controller updates from the queueing delay every t_update (RFC 8033)",
        default_variant: "rfc8033",
        variants: &[("rfc8033", "RFC 8033: target 15 ms, t_update 15 ms, alpha 0.125 Hz, beta 1.25 Hz, max burst 150 ms, timestamp delay, cap of section 5.5")],
        params: &[
            ParamDoc { name: "target_ns", doc: "target queueing delay QDELAY_REF, ns, > 0 (15 ms)" },
            ParamDoc { name: "t_update_ns", doc: "drop probability update period, ns, > 0 (15 ms)" },
            ParamDoc { name: "alpha_hz", doc: "weight of (qdelay - target), 1/s, >= 0 (0.125)" },
            ParamDoc { name: "beta_hz", doc: "weight of (qdelay - qdelay_old), 1/s, >= 0 (1.25)" },
            ParamDoc { name: "max_burst_ns", doc: "burst allowance, ns (150 ms)" },
            ParamDoc { name: "mean_packet_bytes", doc: "no drop while at most 2 of these wait, bytes; null = the scenario's packet size" },
            ParamDoc { name: "cap_drop_adjustment", doc: "at most +0.02 per update once drop_prob >= 0.1 (true)" },
            ParamDoc { name: "ecn", doc: "mark ECN-capable packets CE instead of dropping them while drop_prob < ecn_threshold (false)" },
            ParamDoc { name: "ecn_threshold", doc: "drop probability from which ECN-capable packets are dropped too, in [0, 1] (0.1)" },
        ],
    };
    fn variant(name: &str) -> Option<Self> {
        (name == "rfc8033").then(PieConfig::default)
    }
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if self.target_ns == 0 {
            return Err(err(format!("{field}.target_ns"), "must be above 0"));
        }
        if self.t_update_ns == 0 {
            return Err(err(format!("{field}.t_update_ns"), "must be above 0"));
        }
        if !(self.alpha_hz >= 0.0 && self.alpha_hz.is_finite()) {
            return Err(err(format!("{field}.alpha_hz"), "must be a finite number >= 0"));
        }
        if !(self.beta_hz >= 0.0 && self.beta_hz.is_finite()) {
            return Err(err(format!("{field}.beta_hz"), "must be a finite number >= 0"));
        }
        if self.mean_packet_bytes == Some(0) {
            return Err(err(format!("{field}.mean_packet_bytes"), "must be above 0, or null for the packet size"));
        }
        if !(0.0..=1.0).contains(&self.ecn_threshold) {
            return Err(err(format!("{field}.ecn_threshold"), "must be in [0, 1]"));
        }
        Ok(())
    }
    fn build(self, limits: QueueLimits, link: LinkInfo) -> Box<dyn Queue> {
        let rng = SimRng::new(link.rng_seed, 0);
        Box::new(Pie::new(&self, self.mean_packet_bytes.unwrap_or(link.packet_size), limits, rng))
    }
}

/// The controller's state after an update; equal before and after means every later update (until the
/// next event changes qdelay) is the same, so they can be skipped.
#[derive(Copy, Clone, PartialEq)]
struct Controller {
    drop_prob: f64,
    qdelay_old: SimDuration,
    burst_allowance: SimDuration,
}

pub struct Pie {
    fifo: TimedFifo,
    target: SimDuration,
    t_update: SimDuration,
    alpha_hz: f64,
    beta_hz: f64,
    max_burst: SimDuration,
    mean_packet_bytes: u64,
    cap_drop_adjustment: bool,
    ecn: bool,
    ecn_threshold: f64,
    ctl: Controller,
    /// Sojourn time of the packet that left last; 0 once the queue emptied.
    qdelay: SimDuration,
    /// The next update boundary (a multiple of t_update).
    next_update: SimTime,
    rng: SimRng,
    /// Packets in the router, the one on the wire included (ns-2 `queue-limit`, as DropTail).
    limit_packets: usize,
    /// Bytes waiting.
    limit_bytes: Option<u64>,
    counters: QueueCounters,
}

impl Pie {
    pub fn new(cfg: &PieConfig, mean_packet_bytes: u32, limits: QueueLimits, rng: SimRng) -> Self {
        Pie {
            fifo: TimedFifo::new(),
            target: SimDuration(cfg.target_ns),
            t_update: SimDuration(cfg.t_update_ns.max(1)),
            alpha_hz: cfg.alpha_hz,
            beta_hz: cfg.beta_hz,
            max_burst: SimDuration(cfg.max_burst_ns),
            mean_packet_bytes: mean_packet_bytes as u64,
            cap_drop_adjustment: cfg.cap_drop_adjustment,
            ecn: cfg.ecn,
            ecn_threshold: cfg.ecn_threshold,
            ctl: Controller { drop_prob: 0.0, qdelay_old: SimDuration::ZERO, burst_allowance: SimDuration(cfg.max_burst_ns) },
            qdelay: SimDuration::ZERO,
            next_update: SimTime(cfg.t_update_ns.max(1)),
            rng,
            limit_packets: limits.packets,
            limit_bytes: limits.bytes,
            counters: QueueCounters::default(),
        }
    }

    /// One drop probability update, RFC 8033 sections 4.2 and 4.4.
    fn update(&mut self) {
        let ctl = &mut self.ctl;
        let qdelay = self.qdelay.0 as f64;
        let old = ctl.qdelay_old.0 as f64;
        let target = self.target.0 as f64;
        let mut p = (self.alpha_hz * (qdelay - target) + self.beta_hz * (qdelay - old)) / 1e9;
        // Auto-tuning: smaller steps while the probability is small (section 4.2).
        p /= match ctl.drop_prob {
            d if d < 0.000001 => 2048.0,
            d if d < 0.00001 => 512.0,
            d if d < 0.0001 => 128.0,
            d if d < 0.001 => 32.0,
            d if d < 0.01 => 8.0,
            d if d < 0.1 => 2.0,
            _ => 1.0,
        };
        if self.cap_drop_adjustment && ctl.drop_prob >= 0.1 && p > 0.02 {
            p = 0.02;
        }
        ctl.drop_prob += p;
        if self.qdelay.0 == 0 && ctl.qdelay_old.0 == 0 {
            ctl.drop_prob *= 0.98;
        }
        ctl.drop_prob = ctl.drop_prob.clamp(0.0, 1.0);
        ctl.burst_allowance = ctl.burst_allowance - self.t_update;
        let half_target = self.target.0 / 2;
        if ctl.drop_prob == 0.0 && self.qdelay.0 < half_target && ctl.qdelay_old.0 < half_target {
            ctl.burst_allowance = self.max_burst;
        }
        ctl.qdelay_old = self.qdelay;
    }

    /// Run the updates of every boundary up to and including `now`.
    fn catch_up(&mut self, now: SimTime) {
        while self.next_update <= now {
            let before = self.ctl;
            self.update();
            self.next_update += self.t_update;
            if self.ctl == before && self.next_update <= now {
                let skipped = (now.0 - self.next_update.0) / self.t_update.0 + 1;
                self.next_update += SimDuration(skipped * self.t_update.0);
            }
        }
    }

    /// RFC 8033 section 4.1's random drop decision (after the burst allowance is spent).
    fn drop_early(&mut self) -> bool {
        let calm = self.ctl.qdelay_old.0 < self.target.0 / 2 && self.ctl.drop_prob < 0.2;
        if calm || self.fifo.bytes() <= 2 * self.mean_packet_bytes {
            return false;
        }
        self.rng.bernoulli(self.ctl.drop_prob)
    }
}

impl Queue for Pie {
    fn enqueue(&mut self, now: SimTime, mut pkt: Packet) -> Result<(), Packet> {
        self.catch_up(now);
        let over_bytes = self.limit_bytes.is_some_and(|b| self.fifo.bytes() + pkt.size as u64 > b);
        if self.fifo.len() + 1 >= self.limit_packets || over_bytes {
            self.counters.overflow_drops += 1;
            return Err(pkt);
        }
        if self.ctl.burst_allowance == SimDuration::ZERO && self.drop_early() {
            if self.ecn && self.ctl.drop_prob < self.ecn_threshold && mark_ce(&mut pkt) {
                self.counters.ecn_marks += 1;
            } else {
                self.counters.early_drops += 1;
                return Err(pkt);
            }
        }
        self.fifo.push(now, pkt);
        Ok(())
    }
    fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        self.catch_up(now);
        let (pkt, enqueued_at) = self.fifo.pop()?;
        self.qdelay = if self.fifo.is_empty() { SimDuration::ZERO } else { now.since(enqueued_at) };
        Some(pkt)
    }
    fn len_packets(&self) -> usize {
        self.fifo.len()
    }
    fn len_bytes(&self) -> u64 {
        self.fifo.bytes()
    }
    fn counters(&self) -> QueueCounters {
        self.counters
    }
    /// As of the last enqueue or dequeue.
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("drop_prob", self.ctl.drop_prob));
        out.push(("qdelay_ns", self.qdelay.0 as f64));
        out.push(("qdelay_old_ns", self.ctl.qdelay_old.0 as f64));
        out.push(("burst_allowance_ns", self.ctl.burst_allowance.0 as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::test_packets::data_packet;
    use crate::net::packet::Ecn;

    const MS: u64 = 1_000_000;

    fn pkt(seq: u64, ecn: Ecn) -> Packet {
        Packet { ecn, ..data_packet(seq, 1500) }
    }

    fn pie(cfg: PieConfig) -> Pie {
        Pie::new(&cfg, 1500, QueueLimits { packets: 100_000, bytes: None }, SimRng::new(1, 0))
    }

    /// One 1500-byte arrival every ms from t = 0 and one dequeue every ms from `first_dequeue_ms`
    /// (arrival first at equal times), up to `until_ms`: every departing packet has waited
    /// `first_dequeue_ms`. Calls `each(t_ms, queue)` after each ms.
    fn standing(q: &mut Pie, first_dequeue_ms: u64, until_ms: u64, mut each: impl FnMut(u64, &Pie)) {
        for t in 0..=until_ms {
            let _ = q.enqueue(SimTime(t * MS), pkt(t, Ecn::NotEct));
            if t >= first_dequeue_ms {
                q.dequeue(SimTime(t * MS)).unwrap();
            }
            each(t, q);
        }
    }

    /// Relative error bound for values worked in decimal and computed in f64 (a few roundings of 2^-53).
    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs()
    }

    #[test]
    fn drop_probability_after_a_few_updates_for_a_30_ms_delay() {
        // Every departure from 30 ms on has waited 30 ms. Updates at 15 and 30 ms (the one at 30 ms runs
        // before that instant's dequeue) see qdelay 0: p = 0.125 (0 - 0.015) / 2048 < 0, bounded to 0.
        //   45 ms: p = 0.125 (0.030 - 0.015) + 1.25 (0.030 - 0) = 0.039375; drop_prob 0 < 1e-6: / 2048
        //          -> drop_prob = 1.922607421875e-5.
        //   60 ms: p = 0.125 x 0.015 + 1.25 x 0 = 0.001875; drop_prob in [1e-5, 1e-4): / 128 = 1.46484375e-5
        //          -> 3.387451171875e-5.
        //   75 ... 135 ms: + 1.46484375e-5 each -> 4.852294921875e-5, 6.317138671875e-5, 7.781982421875e-5,
        //          9.246826171875e-5, 1.0711669921875e-4.
        //   150 ms: drop_prob in [1e-4, 1e-3): 0.001875 / 32 = 5.859375e-5 -> 1.6571044921875e-4.
        // Burst allowance: reset to 150 ms by the calm updates at 15 and 30 ms, then 135, 120, ..., 30 ms
        // after the update at 150 ms; so no packet is dropped.
        let mut q = pie(PieConfig::default());
        let mut seen = vec![];
        standing(&mut q, 30, 150, |t, q| {
            if t % 15 == 0 {
                seen.push((t, q.ctl.drop_prob));
            }
        });
        let expected = [
            (0, 0.0),
            (15, 0.0),
            (30, 0.0),
            (45, 1.922607421875e-5),
            (60, 3.387451171875e-5),
            (75, 4.852294921875e-5),
            (90, 6.317138671875e-5),
            (105, 7.781982421875e-5),
            (120, 9.246826171875e-5),
            (135, 1.0711669921875e-4),
            (150, 1.6571044921875e-4),
        ];
        for ((t, p), (te, pe)) in seen.iter().zip(expected) {
            assert_eq!(*t, te);
            assert!(close(*p, pe), "{t} ms: drop_prob {p}, expected {pe}");
        }
        assert_eq!(q.ctl.burst_allowance, SimDuration(30 * MS));
        assert_eq!(q.ctl.qdelay_old, SimDuration(30 * MS));
        assert_eq!(q.counters(), QueueCounters::default());
    }

    #[test]
    fn auto_tuning_scales_the_step_by_the_probability_range() {
        // Departures wait 16 ms from 16 ms on. The update at 15 ms sees 0. Then:
        //   30 ms: p = 0.125 x 0.001 + 1.25 x 0.016 = 0.020125, drop_prob 0: / 2048 -> 9.82666015625e-6.
        //   45 ms: p = 0.125 x 0.001 = 0.000125, drop_prob in [1e-6, 1e-5): / 512 = 2.44140625e-7
        //          -> 1.007080078125e-5.
        //   60 ms: drop_prob in [1e-5, 1e-4): / 128 = 9.765625e-7 -> 1.104736328125e-5.
        let mut q = pie(PieConfig::default());
        let mut seen = vec![];
        standing(&mut q, 16, 60, |t, q| {
            if t >= 30 && t % 15 == 0 {
                seen.push(q.ctl.drop_prob);
            }
        });
        for (p, e) in seen.iter().zip([9.82666015625e-6, 1.007080078125e-5, 1.104736328125e-5]) {
            assert!(close(*p, e), "{p} vs {e}");
        }
        assert_eq!(seen.len(), 3);
    }

    #[test]
    fn auto_tuning_in_the_upper_ranges_and_the_cap() {
        // A steady 30 ms delay (qdelay = qdelay_old = 30 ms) gives p = 0.125 x 0.015 = 0.001875 before
        // scaling: / 32 from 0.0005, / 8 from 0.005, / 2 from 0.05, unscaled from 0.5.
        for (from, step) in [(0.0005, 0.001875 / 32.0), (0.005, 0.001875 / 8.0), (0.05, 0.001875 / 2.0), (0.5, 0.001875)] {
            let mut q = pie(PieConfig::default());
            q.ctl.drop_prob = from;
            q.qdelay = SimDuration(30 * MS);
            q.ctl.qdelay_old = SimDuration(30 * MS);
            q.update();
            assert!(close(q.ctl.drop_prob, from + step), "from {from}: {}", q.ctl.drop_prob);
        }
        // A jump from 30 to 200 ms at drop_prob 0.5: p = 0.125 x 0.185 + 1.25 x 0.170 = 0.235625, capped
        // at 0.02 (drop_prob >= 0.1) -> 0.52; without the cap 0.735625.
        for (cap, expected) in [(true, 0.52), (false, 0.735625)] {
            let mut q = pie(PieConfig { cap_drop_adjustment: cap, ..PieConfig::default() });
            q.ctl.drop_prob = 0.5;
            q.qdelay = SimDuration(200 * MS);
            q.ctl.qdelay_old = SimDuration(30 * MS);
            q.update();
            assert!(close(q.ctl.drop_prob, expected), "cap {cap}: {}", q.ctl.drop_prob);
        }
    }

    #[test]
    fn decay_when_both_delays_are_zero() {
        // drop_prob 0.5, both delays 0: p = 0.125 x (0 - 0.015) = -0.001875 (unscaled at 0.5)
        // -> 0.498125, then x 0.98 = 0.4881625.
        let mut q = pie(PieConfig::default());
        q.ctl.drop_prob = 0.5;
        q.update();
        assert!(close(q.ctl.drop_prob, 0.4881625), "{}", q.ctl.drop_prob);
    }

    #[test]
    fn burst_allowance_holds_off_drops_for_150_ms_however_high_the_probability() {
        // alpha 20480 Hz, beta 0, so that one update makes drop_prob large: departures wait 100 ms from
        // 100 ms on. The updates up to 90 ms are calm and keep the allowance at 150 ms.
        //   105 ms: p = 20480 x (0.100 - 0.015) / 2048 = 0.85; allowance 135 ms.
        //   120 ... 225 ms: +0.02 each (the cap): 0.87, ..., 1.01 -> bounded to 1 at 225 ms.
        //   allowance 120, 105, ..., 15 ms at 225 ms, 0 at 240 ms.
        // So arrivals up to 239 ms are all accepted although drop_prob >= 0.85, and from 240 ms on, with
        // drop_prob = 1 and 100 packets waiting, every arrival is dropped.
        let mut q = pie(PieConfig { alpha_hz: 20480.0, beta_hz: 0.0, ..PieConfig::default() });
        let mut first_drop = None;
        let mut p_at_105 = 0.0;
        standing(&mut q, 100, 260, |t, q| {
            if t == 105 {
                p_at_105 = q.ctl.drop_prob;
            }
            if first_drop.is_none() && q.counters().early_drops > 0 {
                first_drop = Some(t);
            }
        });
        assert!(close(p_at_105, 0.85), "{p_at_105}");
        assert_eq!(first_drop, Some(240));
        assert_eq!(q.counters().early_drops, 21, "every arrival from 240 to 260 ms");
    }

    #[test]
    fn safeguard_accepts_while_calm_or_at_most_two_packets_wait() {
        // Past the burst allowance. qdelay_old 5 ms < 7.5 ms and drop_prob 0.15 < 0.2: no drop at all.
        let mut q = pie(PieConfig::default());
        q.ctl = Controller { drop_prob: 0.15, qdelay_old: SimDuration(5 * MS), burst_allowance: SimDuration::ZERO };
        for s in 0..200 {
            q.enqueue(SimTime(0), pkt(s, Ecn::NotEct)).unwrap();
        }
        // qdelay_old 30 ms and drop_prob 1: the first three arrivals find 0, 1500 and 3000 bytes <= 2 x 1500
        // waiting and are accepted; the fourth finds 4500 bytes and is dropped.
        let mut q = pie(PieConfig::default());
        q.ctl = Controller { drop_prob: 1.0, qdelay_old: SimDuration(30 * MS), burst_allowance: SimDuration::ZERO };
        let accepted: Vec<bool> = (0..4).map(|s| q.enqueue(SimTime(0), pkt(s, Ecn::NotEct)).is_ok()).collect();
        assert_eq!(accepted, vec![true, true, true, false]);
        assert_eq!(q.counters().early_drops, 1);
    }

    #[test]
    fn ecn_marks_below_the_threshold_and_drops_above_it() {
        // drop_prob 0.05 < 0.1: ECN-capable arrivals are marked, never dropped; about 5% of 2000.
        let mut q = pie(PieConfig { ecn: true, ..PieConfig::default() });
        q.ctl = Controller { drop_prob: 0.05, qdelay_old: SimDuration(30 * MS), burst_allowance: SimDuration::ZERO };
        for s in 0..2000 {
            q.enqueue(SimTime(0), pkt(s, Ecn::Ect)).unwrap();
        }
        let marks = q.counters().ecn_marks;
        // Binomial(1997, 0.05): mean 100, sd 9.7; 5 sd either side.
        assert!((50..=150).contains(&marks), "{marks}");
        let ce = std::iter::from_fn(|| q.dequeue(SimTime(0))).filter(|p| p.ecn == Ecn::Ce).count() as u64;
        assert_eq!(ce, marks);
        // drop_prob 1 >= 0.1: dropped even though ECN-capable.
        let mut q = pie(PieConfig { ecn: true, ..PieConfig::default() });
        q.ctl = Controller { drop_prob: 1.0, qdelay_old: SimDuration(30 * MS), burst_allowance: SimDuration::ZERO };
        let results: Vec<bool> = (0..4).map(|s| q.enqueue(SimTime(0), pkt(s, Ecn::Ect)).is_ok()).collect();
        assert_eq!(results, vec![true, true, true, false]);
        assert_eq!(q.counters(), QueueCounters { overflow_drops: 0, early_drops: 1, ecn_marks: 0 });
    }

    #[test]
    fn updates_do_not_depend_on_when_the_link_calls() {
        // The 30 ms standing queue up to 150 ms, then the queue drains at 151 ms and stays empty until an
        // arrival at 2 s. Once with nothing in between, once with a dequeue poll of the empty queue every
        // ms: the controller must end in the same state (the decay and the burst allowance resets of the
        // idle updates happen either way).
        let run = |poll: bool| {
            let mut q = pie(PieConfig::default());
            standing(&mut q, 30, 150, |_, _| {});
            while q.dequeue(SimTime(151 * MS)).is_some() {}
            if poll {
                for t in 152..2000 {
                    assert!(q.dequeue(SimTime(t * MS)).is_none());
                }
            }
            q.enqueue(SimTime(2000 * MS), pkt(0, Ecn::NotEct)).unwrap();
            let mut state = vec![];
            q.state(&mut state);
            state
        };
        let quiet = run(false);
        assert_eq!(quiet, run(true));
        // After 1.85 s idle the probability has decayed to 0 and the allowance is back to 150 ms.
        assert_eq!(quiet, vec![("drop_prob", 0.0), ("qdelay_ns", 0.0), ("qdelay_old_ns", 0.0), ("burst_allowance_ns", 150e6)]);
    }

    #[test]
    fn overflow_drops_the_arrival_like_droptail() {
        let mut q = Pie::new(&PieConfig::default(), 1500, QueueLimits { packets: 3, bytes: None }, SimRng::new(1, 0));
        assert!(q.enqueue(SimTime(0), pkt(1, Ecn::NotEct)).is_ok());
        assert!(q.enqueue(SimTime(0), pkt(2, Ecn::NotEct)).is_ok());
        assert!(q.enqueue(SimTime(0), pkt(3, Ecn::NotEct)).is_err());
        assert_eq!(q.counters(), QueueCounters { overflow_drops: 1, early_drops: 0, ecn_marks: 0 });
    }
}
