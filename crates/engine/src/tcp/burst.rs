//! A sender option that spreads its packets: at most `max` packets leave back to back (at one instant),
//! then the next waits `gap` plus a uniform draw from [0, jitter] ns. Seed 003 paces its senders so that
//! "no more than two packets are sent in burst", with "a random delay between packet transmissions" to
//! avoid phase effects. The sender applies the returned hold with its pacing mechanism (`next_send_time`
//! and a wake-up), the same one BBR's pacing rate uses.

use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

pub struct BurstLimit {
    max: u32,
    gap: SimDuration,
    jitter_ns: u64,
    rng: SimRng,
    /// The instant of the current burst and the packets sent in it.
    burst_at: SimTime,
    in_burst: u32,
}

impl BurstLimit {
    /// `max` >= 1 packets per burst; `rng` is the flow's own stream.
    pub fn new(max: u32, gap: SimDuration, jitter: SimDuration, rng: SimRng) -> Self {
        BurstLimit { max: max.max(1), gap, jitter_ns: jitter.0, rng, burst_at: SimTime::ZERO, in_burst: 0 }
    }

    /// A packet left at `now`: when the burst is full, the time before which the next may not leave.
    pub fn on_send(&mut self, now: SimTime) -> Option<SimTime> {
        if self.in_burst == 0 || now != self.burst_at {
            self.burst_at = now;
            self.in_burst = 0;
        }
        self.in_burst += 1;
        if self.in_burst < self.max {
            return None;
        }
        self.in_burst = 0;
        // Modulo bias below 2^-30 for jitters under a second: irrelevant, and exact everywhere.
        let jitter = if self.jitter_ns == 0 { 0 } else { self.rng.next_u64() % (self.jitter_ns + 1) };
        Some(now + self.gap + SimDuration(jitter))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_second_packet_at_one_instant_holds_the_next() {
        let mut b = BurstLimit::new(2, SimDuration(5), SimDuration::ZERO, SimRng::new(1, 0));
        assert_eq!(b.on_send(SimTime(0)), None);
        assert_eq!(b.on_send(SimTime(0)), Some(SimTime(5)));
        assert_eq!(b.on_send(SimTime(5)), None);
        assert_eq!(b.on_send(SimTime(5)), Some(SimTime(10)));
        // A packet alone at an instant starts a new burst.
        assert_eq!(b.on_send(SimTime(20)), None);
        assert_eq!(b.on_send(SimTime(30)), None);
        assert_eq!(b.on_send(SimTime(30)), Some(SimTime(35)));
    }

    #[test]
    fn the_jitter_stays_in_its_range() {
        let mut b = BurstLimit::new(1, SimDuration(100), SimDuration(10), SimRng::new(2, 0));
        let holds: Vec<u64> = (0..200).map(|i| b.on_send(SimTime(i * 1000)).unwrap().0 - i * 1000).collect();
        assert!(holds.iter().all(|h| (100..=110).contains(h)));
        assert!(holds.iter().any(|&h| h != holds[0]), "the draws vary");
    }
}
