//! Link-layer ARQ: a radio link that retransmits its own losses and delivers in order (UMTS RLC in
//! acknowledged mode, 3GPP TS 25.322), so that loss on the air becomes delay for TCP (seed 002, Section 1).
//!
//! Each transmission attempt of a packet is lost with a `LossModel` (independent, or Gilbert-Elliott for
//! fading). A lost attempt is retried one `retry_delay` later (the link-layer round trip: the status
//! report that asks for it, then the retransmission), up to `max_attempts` attempts in all; a packet whose
//! attempts all fail is discarded and counted as a failure. So a packet delivered after k retries left the
//! radio link k x `retry_delay` after its first transmission ended.
//!
//! Delivery is in order: a packet never overtakes an earlier one, release = max(own, previous release),
//! which is the head-of-line blocking of RLC's in-sequence delivery. A discarded packet holds the later
//! ones back until the sender has given up on it, `max_attempts` x `retry_delay` after its first attempt
//! ended (the loss of the last attempt is known one round trip after it; RLC then tells the receiver to
//! skip the packet, its "move receiving window" message).
//!
//! Model choice: retransmissions do NOT use the link's capacity. The packet occupies the transmitter once,
//! and its retries are modelled as delay only. Reasons: RLC retransmits the lost radio blocks (a few 336-bit
//! blocks), not the whole IP packet; capacity traces recorded on live networks (the Saturator traces) count
//! packets delivered, so they already net out the link layer's retransmissions, and charging them again
//! would count them twice; and keeping the transmitter's schedule independent of the losses keeps the
//! DropTail start-time fast path exact. The cost: on a constant-rate link with a high attempt loss rate,
//! throughput is not reduced by the retransmissions (divide the rate by the mean attempts per packet,
//! 1 / (1 - p) for independent losses, to model the air time they take).
//!
//! The loss chain steps once per attempt, in the order the attempts are drawn: all attempts of a packet
//! when it is handed over. With independent losses the order does not matter; with Gilbert-Elliott a
//! packet's retries see the state its first attempt left (retries correlated with the loss they repair,
//! the pessimistic reading of a retry one round trip later).

use super::loss::{LossModel, LossProcess};
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

/// What the ARQ did, cumulative since the start of the run.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ArqCounters {
    /// Packets handed to the ARQ.
    pub packets: u64,
    /// Transmission attempts, first ones included.
    pub attempts: u64,
    /// Attempts after the first.
    pub retransmissions: u64,
    /// Packets discarded after `max_attempts` lost attempts.
    pub failures: u64,
    /// Sum over delivered packets of (release - end of first transmission), ns: retries and head-of-line
    /// blocking.
    pub added_delay_ns: u128,
}

pub struct Arq {
    loss: LossProcess,
    retry_delay: SimDuration,
    max_attempts: u32,
    /// Release of the last packet (or the end of the wait behind the last discarded one).
    last_release: SimTime,
    counters: ArqCounters,
}

impl Arq {
    /// `max_attempts` counts the first transmission (RLC's MaxDAT counts transmissions the same way).
    pub fn new(loss: LossModel, rng: SimRng, retry_delay: SimDuration, max_attempts: u32) -> Result<Self, String> {
        loss.validate()?;
        if max_attempts == 0 {
            return Err("max_attempts must be at least 1 (the first transmission)".to_string());
        }
        Ok(Arq { loss: LossProcess::new(loss, rng), retry_delay, max_attempts, last_release: SimTime::ZERO, counters: ArqCounters::default() })
    }

    pub fn retry_delay(&self) -> SimDuration {
        self.retry_delay
    }
    pub fn max_attempts(&self) -> u32 {
        self.max_attempts
    }
    pub fn counters(&self) -> ArqCounters {
        self.counters
    }

    /// A packet's first transmission ended at `done` (calls in transmission order). Returns when it
    /// leaves the ARQ, in order, to propagate; None if it was discarded.
    pub fn deliver(&mut self, done: SimTime) -> Option<SimTime> {
        self.counters.packets += 1;
        let mut attempts = 0u32;
        let delivered = loop {
            attempts += 1;
            if !self.loss.lose() {
                break true;
            }
            if attempts == self.max_attempts {
                break false;
            }
        };
        self.counters.attempts += attempts as u64;
        self.counters.retransmissions += attempts as u64 - 1;
        if !delivered {
            self.counters.failures += 1;
            let given_up = done + self.retry_delay.saturating_mul(self.max_attempts as u64);
            self.last_release = self.last_release.max(given_up);
            return None;
        }
        let release = (done + self.retry_delay.saturating_mul(attempts as u64 - 1)).max(self.last_release);
        self.last_release = release;
        self.counters.added_delay_ns += release.since(done).0 as u128;
        Some(release)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn retries_follow_the_geometric_law_up_to_max_attempts() {
        // p = 0.2, 4 attempts: k retries then success with probability 0.8 x 0.2^k, k = 0..3, discard
        // with 0.2^4. Over n = 1e5 packets spaced 1 s apart (more than 4 retries of 100 ms, so no
        // head-of-line wait) the expected counts and binomial sd sqrt(n q (1 - q)) are
        //   k = 0: 80000 (sd 126.5), 1: 16000 (115.9), 2: 3200 (55.7), 3: 640 (25.2), discard: 160 (12.6).
        // Each count must lie within 5 sd.
        let retry = SimDuration::from_millis(100);
        let mut arq = Arq::new(LossModel::Bernoulli(0.2), SimRng::new(9, 1), retry, 4).unwrap();
        let n = 100_000u64;
        let mut counts = [0u64; 5];
        for i in 0..n {
            let done = SimTime(i * 1_000 * MS);
            match arq.deliver(done) {
                Some(release) => {
                    let added = release.since(done).0;
                    assert_eq!(added % retry.0, 0, "added delay is a whole number of retries");
                    counts[(added / retry.0) as usize] += 1;
                }
                None => counts[4] += 1,
            }
        }
        let expected = [80_000.0, 16_000.0, 3_200.0, 640.0, 160.0];
        for (k, (&got, &want)) in counts.iter().zip(&expected).enumerate() {
            let q = want / n as f64;
            let sd = (n as f64 * q * (1.0 - q)).sqrt();
            assert!((got as f64 - want).abs() < 5.0 * sd, "k = {k}: {got} vs {want} (sd {sd:.1})");
        }
        let c = arq.counters();
        assert_eq!(c.packets, n);
        assert_eq!(c.failures, counts[4]);
        // Attempts: 1 + k for each delivered packet, 4 for each discarded one.
        let attempts: u64 = (0..4).map(|k| counts[k] * (k as u64 + 1)).sum::<u64>() + 4 * counts[4];
        assert_eq!(c.attempts, attempts);
        assert_eq!(c.retransmissions, attempts - n);
        let delay: u128 = (0..4).map(|k| counts[k] as u128 * k as u128 * retry.0 as u128).sum();
        assert_eq!(c.added_delay_ns, delay);
    }

    #[test]
    fn a_packet_never_overtakes_an_earlier_one() {
        // Packets every 1 ms, retries of 50 ms: a packet retried holds back the next 50 or so. Releases
        // never decrease, and none comes before the packet's own first transmission.
        let mut arq = Arq::new(LossModel::Bernoulli(0.3), SimRng::new(4, 4), SimDuration::from_millis(50), 3).unwrap();
        let mut last = SimTime::ZERO;
        let mut held = 0;
        for i in 0..20_000 {
            let done = SimTime(i * MS);
            if let Some(release) = arq.deliver(done) {
                assert!(release >= last && release >= done);
                held += (release > done) as u32;
                last = release;
            }
        }
        assert!(held > 10_000, "most packets should wait behind a retried one ({held})");
    }

    /// A loss chain that loses the first attempt it sees and none after: Gilbert-Elliott starting in Good
    /// with loss_good = 1, moving to Bad for ever (p_gb = 1, p_bg = 0) where loss_bad = 0.
    fn lose_first_attempt_only() -> LossModel {
        LossModel::GilbertElliott { p_good_to_bad: 1.0, p_bad_to_good: 0.0, loss_good: 1.0, loss_bad: 0.0 }
    }

    #[test]
    fn a_retried_packet_holds_back_the_next_one() {
        // Retry 100 ms. A ends at 0, its first attempt lost: released at 100 ms. B ends at 1 ms, delivered
        // at once, but held behind A to 100 ms. C at 200 ms is not held. Added delay: 100 + 99 + 0 ms.
        let mut arq = Arq::new(lose_first_attempt_only(), SimRng::new(1, 1), SimDuration::from_millis(100), 4).unwrap();
        assert_eq!(arq.deliver(SimTime(0)), Some(SimTime(100 * MS)));
        assert_eq!(arq.deliver(SimTime(MS)), Some(SimTime(100 * MS)));
        assert_eq!(arq.deliver(SimTime(200 * MS)), Some(SimTime(200 * MS)));
        let c = arq.counters();
        assert_eq!((c.attempts, c.retransmissions, c.failures), (4, 1, 0));
        assert_eq!(c.added_delay_ns, 199 * MS as u128);
    }

    #[test]
    fn a_discarded_packet_holds_back_the_next_until_the_sender_gives_up() {
        // One attempt allowed, retry 100 ms. A (ends at 0) is lost and discarded; the sender knows it one
        // round trip later, at 100 ms, so B (ends at 1 ms, delivered) is released at 100 ms.
        let mut arq = Arq::new(lose_first_attempt_only(), SimRng::new(1, 1), SimDuration::from_millis(100), 1).unwrap();
        assert_eq!(arq.deliver(SimTime(0)), None);
        assert_eq!(arq.deliver(SimTime(MS)), Some(SimTime(100 * MS)));
        assert_eq!(arq.counters().failures, 1);
    }

    #[test]
    fn zero_attempts_is_refused() {
        assert!(Arq::new(LossModel::Bernoulli(0.1), SimRng::new(1, 1), SimDuration::ZERO, 0).is_err());
    }
}
