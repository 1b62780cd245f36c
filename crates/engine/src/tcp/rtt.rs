//! Round-trip time estimation and the retransmission timeout (RFC 6298).
//!
//! SRTT/RTTVAR use the RFC's gains (1/8, 1/4) on integer nanoseconds. The minimum is Linux's: RTO =
//! SRTT + max(4 RTTVAR, rto_min) (Linux `tcp_set_rto` floors the variance term at `rto_min` = 200 ms, so
//! the minimum is added to SRTT rather than used as a floor of the whole RTO as RFC 6298 (2.4) does).
//! With a full 1-BDP queue the RFC form gives RTO ~ SRTT and fires spuriously in every fast recovery,
//! since the retransmission waits behind the whole queue. At most 60 s. A timeout doubles the RTO
//! (exponential back-off) and the doubling is kept until a valid sample arrives (Karn's algorithm: the
//! sender never offers samples from retransmitted segments).

use crate::time::SimDuration;

pub const MAX_RTO: SimDuration = SimDuration::from_secs(60);
/// RFC 6298 (2.1): RTO before the first sample.
pub const INITIAL_RTO: SimDuration = SimDuration::from_secs(1);

/// SRTT, the minimum and the latest sample are valid from the first sample on (`sampled`). They are plain
/// values beside one flag, not three `Option`s: an `Option<SimDuration>` is written as two 8-byte halves
/// and read back as one 16-byte load, which waits for those writes to reach the cache. The sender reads
/// SRTT right after each sample (its `AckSample`): perf put 3.5 % of a lone flow's samples on that read,
/// and plain fields took 1-2 % off its CPU time (docs/benchmarks.md, run 41).
#[derive(Clone, Debug)]
pub struct RttEstimator {
    sampled: bool,
    srtt: SimDuration,
    rttvar: SimDuration,
    min_rtt: SimDuration,
    latest: SimDuration,
    rto_min: SimDuration,
    /// Number of back-offs since the last valid sample.
    backoff: u32,
}

impl RttEstimator {
    pub fn new(rto_min: SimDuration) -> Self {
        let zero = SimDuration::ZERO;
        RttEstimator { sampled: false, srtt: zero, rttvar: zero, min_rtt: zero, latest: zero, rto_min, backoff: 0 }
    }

    pub fn on_sample(&mut self, r: SimDuration) {
        if self.sampled {
            // (2.3) RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R|, then SRTT <- 7/8 SRTT + 1/8 R.
            let err = self.srtt.0.abs_diff(r.0);
            self.rttvar = SimDuration((3 * self.rttvar.0 + err) / 4);
            self.srtt = SimDuration((7 * self.srtt.0 + r.0) / 8);
            self.min_rtt = self.min_rtt.min(r);
        } else {
            // (2.2) first measurement.
            self.srtt = r;
            self.rttvar = SimDuration(r.0 / 2);
            self.min_rtt = r;
            self.sampled = true;
        }
        self.latest = r;
        self.backoff = 0;
    }

    /// (5.5) back off after a timeout.
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(16);
    }

    /// Current RTO including back-off.
    pub fn rto(&self) -> SimDuration {
        let base = if self.sampled { self.srtt + self.rttvar.saturating_mul(4).max(self.rto_min) } else { INITIAL_RTO };
        base.saturating_mul(1u64 << self.backoff).min(MAX_RTO)
    }

    pub fn srtt(&self) -> Option<SimDuration> {
        self.sampled.then_some(self.srtt)
    }
    pub fn min_rtt(&self) -> Option<SimDuration> {
        self.sampled.then_some(self.min_rtt)
    }
    pub fn latest(&self) -> Option<SimDuration> {
        self.sampled.then_some(self.latest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimDuration {
        SimDuration::from_millis(v)
    }

    #[test]
    fn first_sample_then_smoothing_per_rfc_6298() {
        let mut e = RttEstimator::new(ms(200));
        assert_eq!(e.rto(), INITIAL_RTO);
        // R = 100 ms: SRTT 100, RTTVAR 50, RTO = 100 + 200 = 300 ms.
        e.on_sample(ms(100));
        assert_eq!(e.rto(), ms(300));
        // R = 200 ms: RTTVAR = 3/4 50 + 1/4 100 = 62.5; SRTT = 7/8 100 + 1/8 200 = 112.5; RTO = 362.5 ms.
        e.on_sample(ms(200));
        assert_eq!(e.rto(), SimDuration(362_500_000));
    }

    #[test]
    fn the_minimum_is_added_to_srtt_as_in_linux() {
        // R = 10 ms: variance term 4 * 5 = 20 ms, raised to 200 ms: RTO = 10 + 200 = 210 ms.
        let mut e = RttEstimator::new(ms(200));
        e.on_sample(ms(10));
        assert_eq!(e.rto(), ms(210));
    }

    #[test]
    fn back_off_doubles_until_a_new_sample_and_is_capped() {
        let mut e = RttEstimator::new(ms(200));
        e.on_sample(ms(100));
        e.back_off();
        assert_eq!(e.rto(), ms(600));
        e.back_off();
        assert_eq!(e.rto(), ms(1200));
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), MAX_RTO);
        e.on_sample(ms(100));
        assert!(e.rto() < ms(400));
    }
}
