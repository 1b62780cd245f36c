//! A node's per-packet processing delay, in front of a link's buffer: each arriving packet is held for
//! `fixed + uniform[0, jitter]` before it joins the queue, in arrival order.
//!
//! Its use is ns-2's `overhead_` (seed 001, Section 3: 8 us on all nodes): a small random delay that
//! breaks the phase effects of a deterministic simulation (Floyd & Jacobson, "On traffic phase effects in
//! packet-switched gateways", 1992). ns-2 puts it in the TCP agent (`TcpAgent::send_much` reschedules its
//! next send `Random::uniform(overhead_)` later); here it is a stage a link can have, so that any node
//! can have it and the agents stay deterministic.
//!
//! The stage is FIFO: release = max(arrival + drawn delay, previous release), so a packet never overtakes
//! one that arrived before it (a router's input processing is serial). When packets are further apart
//! than `jitter` the hold is exactly the draw, of mean `fixed + jitter / 2`.

use crate::net::packet::Packet;
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

pub struct ProcessingDelay {
    fixed: SimDuration,
    jitter: SimDuration,
    rng: SimRng,
    /// Packets held, with their release times (non-decreasing).
    held: VecDeque<(SimTime, Packet)>,
    last_release: SimTime,
}

impl ProcessingDelay {
    pub fn new(fixed: SimDuration, jitter: SimDuration, rng: SimRng) -> Self {
        ProcessingDelay { fixed, jitter, rng, held: VecDeque::new(), last_release: SimTime::ZERO }
    }

    pub fn fixed(&self) -> SimDuration {
        self.fixed
    }
    pub fn jitter(&self) -> SimDuration {
        self.jitter
    }
    /// Packets held now.
    pub fn len(&self) -> usize {
        self.held.len()
    }
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    /// The hold of the next packet: fixed + a uniform integer in [0, jitter] ns. The modulo's bias is
    /// below jitter / 2^64, nothing for any jitter a run can use.
    fn draw(&mut self) -> SimDuration {
        let extra = match self.jitter.0 {
            0 => 0,
            j => self.rng.up_to(j),
        };
        self.fixed + SimDuration(extra)
    }

    /// A packet arrives at `now` (calls in time order). Returns its release time when it is the only one
    /// held, for the caller to schedule; later ones are scheduled by `release`.
    pub fn admit(&mut self, now: SimTime, pkt: Packet) -> Option<SimTime> {
        let release = (now + self.draw()).max(self.last_release);
        self.last_release = release;
        self.held.push_back((release, pkt));
        (self.held.len() == 1).then_some(release)
    }

    /// The head's release time has come: returns it and the next head's release time, if any.
    pub fn release(&mut self, now: SimTime) -> (Packet, Option<SimTime>) {
        let (at, pkt) = self.held.pop_front().expect("a release with no packet held");
        debug_assert!(at <= now);
        (pkt, self.held.front().map(|&(t, _)| t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::test_packets::{data_packet, seq_of};

    /// Release the held packets due up to `until` (ns), recording (time, seq).
    fn fire(stage: &mut ProcessingDelay, due: &mut Option<SimTime>, until: u64, out: &mut Vec<(u64, u64)>) {
        while let Some(t) = due.filter(|t| t.0 <= until) {
            let (p, next) = stage.release(t);
            out.push((t.0, seq_of(&p)));
            *due = next;
        }
    }

    /// Run the stage as the event loop would: admit at the given times, release in time order.
    fn run(stage: &mut ProcessingDelay, arrivals: &[u64]) -> Vec<(u64, u64)> {
        let mut due: Option<SimTime> = None;
        let mut out = vec![];
        for (i, &a) in arrivals.iter().enumerate() {
            fire(stage, &mut due, a.saturating_sub(1), &mut out);
            if let Some(r) = stage.admit(SimTime(a), data_packet(i as u64, 1500)) {
                assert!(due.is_none());
                due = Some(r);
            }
        }
        fire(stage, &mut due, u64::MAX, &mut out);
        out
    }

    #[test]
    fn fixed_delay_only_shifts_packets() {
        // 8 us, no jitter: arrivals at 0, 1, 100 us leave at 8, 9, 108 us.
        let mut stage = ProcessingDelay::new(SimDuration::from_micros(8), SimDuration::ZERO, SimRng::new(1, 1));
        assert_eq!(run(&mut stage, &[0, 1_000, 100_000]), vec![(8_000, 0), (9_000, 1), (108_000, 2)]);
        assert!(stage.is_empty());
    }

    #[test]
    fn packets_leave_in_arrival_order() {
        // Arrivals 1 us apart with a jitter of 50 us: draws overlap often, releases must not reorder.
        let mut stage = ProcessingDelay::new(SimDuration::from_micros(2), SimDuration::from_micros(50), SimRng::new(2, 3));
        let arrivals: Vec<u64> = (0..10_000).map(|i| i * 1_000).collect();
        let out = run(&mut stage, &arrivals);
        assert_eq!(out.len(), 10_000);
        for (i, w) in out.windows(2).enumerate() {
            assert!(w[0].0 <= w[1].0, "release times decrease at {i}");
            assert_eq!(w[1].1, w[0].1 + 1, "order broken at {i}");
        }
    }

    #[test]
    fn mean_hold_is_fixed_plus_half_the_jitter() {
        // Fixed 10 us, jitter 8 us, arrivals 1 ms apart (no FIFO wait): hold uniform on 10..=18 us, mean
        // 14 us exactly; the variance of a discrete uniform on 8001 values is (8001^2 - 1) / 12 ns^2,
        // sd 2310 ns; the mean of 1e5 holds has sd 7.3 ns. 5 sd: 37 ns.
        let mut stage = ProcessingDelay::new(SimDuration::from_micros(10), SimDuration::from_micros(8), SimRng::new(3, 5));
        let n = 100_000u64;
        let arrivals: Vec<u64> = (0..n).map(|i| i * 1_000_000).collect();
        let out = run(&mut stage, &arrivals);
        let mut total = 0u64;
        for (i, &(t, s)) in out.iter().enumerate() {
            assert_eq!(s, i as u64);
            let hold = t - arrivals[i];
            assert!((10_000..=18_000).contains(&hold), "{hold}");
            total += hold;
        }
        let mean = total as f64 / n as f64;
        assert!((mean - 14_000.0).abs() < 37.0, "mean hold {mean} ns");
    }
}
