//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-02; Linux 4.9-5.x `tcp_rate.c`).
//!
//! Every (re)transmitted segment P is stamped with the connection's state C at that moment:
//! P.delivered = C.delivered, P.delivered_time = C.delivered_time (time of the last delivery),
//! P.first_sent_time = C.first_sent_time (send time of the segment that started the current sampling
//! flight) and P.app_limited. An ACK that delivers segments (cumulatively or by SACK) gives one sample
//! from the most recently sent of them:
//!
//! ```text
//!   delivered     = C.delivered - P.delivered
//!   send_elapsed  = P.sent_time - P.first_sent_time
//!   ack_elapsed   = C.delivered_time - P.delivered_time
//!   interval      = max(send_elapsed, ack_elapsed)          (draft section 3.3; tcp_rate_gen)
//!   delivery_rate = delivered / interval
//! ```
//! and C.first_sent_time becomes P's send time. Samples whose interval is below the minimum RTT are
//! discarded, as Linux does (they come from ACK compression). The state is kept only for algorithms that
//! ask for rate samples (`CongestionControl::wants_rate_samples`): other senders pay one branch.

use crate::cc::RateSample;
use crate::time::{SimDuration, SimTime};

/// What a segment remembers of the connection when it is (re)transmitted (Linux `tcp_skb_cb.tx`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TxStamp {
    /// Packets delivered on the connection when the segment was sent.
    pub delivered: u64,
    /// Time of the last delivery before the segment was sent.
    pub delivered_time: SimTime,
    /// Send time of the first segment of the sampling flight the segment belongs to.
    pub first_sent_time: SimTime,
    /// The sender was application-limited when the segment was sent.
    pub app_limited: bool,
}

/// The most recently sent segment among those an ACK newly delivered.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DeliveredSegment {
    pub stamp: TxStamp,
    /// Time of its latest (re)transmission.
    pub sent_at: SimTime,
}

/// Connection-level state of the estimator (Linux `tp->delivered`, `delivered_mstamp`,
/// `first_tx_mstamp`, `app_limited`).
#[derive(Clone, Debug)]
pub struct RateSampler {
    delivered: u64,
    delivered_time: SimTime,
    first_sent_time: SimTime,
    /// Samples are application-limited until more than this many packets are delivered. Linux starts
    /// with `app_limited = ~0U`, so the first flight is marked app-limited and the first ACK clears it.
    app_limited_until: Option<u64>,
}

impl Default for RateSampler {
    fn default() -> Self {
        RateSampler { delivered: 0, delivered_time: SimTime::ZERO, first_sent_time: SimTime::ZERO, app_limited_until: Some(0) }
    }
}

impl RateSampler {
    pub fn new() -> Self {
        Self::default()
    }

    /// Stamp for a segment sent at `now` (`tcp_rate_skb_sent`). `idle`: nothing was outstanding, so a new
    /// sampling flight starts here.
    pub fn on_send(&mut self, now: SimTime, idle: bool) -> TxStamp {
        if idle {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        TxStamp {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            app_limited: self.app_limited_until.is_some(),
        }
    }

    /// The sender has nothing to send although the window allows it (`tcp_rate_check_app_limited`), or
    /// the algorithm holds the rate down on purpose (BBR's PROBE_RTT): samples are app-limited until the
    /// packets now in flight are delivered.
    pub fn mark_app_limited(&mut self, in_flight: u32) {
        self.app_limited_until = Some((self.delivered + in_flight as u64).max(1));
    }

    /// One ACK (`tcp_rate_gen`): `newly_delivered` segments were cumulatively ACKed or SACKed, `newest` is
    /// the most recently sent of them, `losses` were newly marked lost and `total_lost` is the running
    /// count. `min_rtt` is the connection's minimum RTT (None: no valid sample yet, so none here either).
    pub fn on_ack(
        &mut self,
        now: SimTime,
        newly_delivered: u32,
        newest: Option<DeliveredSegment>,
        losses: u32,
        total_lost: u64,
        min_rtt: Option<SimDuration>,
    ) -> RateSample {
        self.delivered += newly_delivered as u64;
        if self.app_limited_until.is_some_and(|mark| self.delivered > mark) {
            self.app_limited_until = None;
        }
        if newly_delivered > 0 {
            self.delivered_time = now;
        }
        let mut sample = RateSample {
            acked_sacked: newly_delivered,
            losses,
            total_delivered: self.delivered,
            total_lost,
            delivered_time: self.delivered_time,
            ..RateSample::default()
        };
        let Some(p) = newest else { return sample };
        // The next sampling flight is measured from the newest delivered segment's send time.
        self.first_sent_time = p.sent_at;
        sample.prior_delivered = p.stamp.delivered;
        sample.is_app_limited = p.stamp.app_limited;
        let send_elapsed = p.sent_at.since(p.stamp.first_sent_time);
        let ack_elapsed = now.since(p.stamp.delivered_time);
        let interval = send_elapsed.max(ack_elapsed);
        if min_rtt.is_some_and(|min_rtt| interval >= min_rtt) {
            sample.delivered = self.delivered - p.stamp.delivered;
            sample.interval = interval;
        }
        sample
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime(v * 1_000_000)
    }

    #[test]
    fn first_flight_is_app_limited_and_the_first_ack_clears_it() {
        let mut r = RateSampler::new();
        assert!(r.on_send(ms(0), true).app_limited);
        let s = r.on_ack(ms(100), 1, None, 0, 0, Some(SimDuration::from_millis(100)));
        assert_eq!((s.acked_sacked, s.total_delivered, s.interval), (1, 1, SimDuration::ZERO));
        assert!(!r.on_send(ms(100), false).app_limited);
        r.mark_app_limited(3);
        // Limited until delivered > 1 + 3.
        assert!(r.on_send(ms(101), false).app_limited);
        r.on_ack(ms(150), 3, None, 0, 0, None);
        assert!(r.on_send(ms(151), false).app_limited);
        r.on_ack(ms(160), 1, None, 0, 0, None);
        assert!(!r.on_send(ms(161), false).app_limited);
    }

    #[test]
    fn interval_is_the_longer_of_send_and_ack_phases() {
        // Flight: segment sent at 0 (idle start), ACKed at 100 ms. Then a segment P sent at 110 ms
        // (stamp: delivered 1, delivered_time 100, first_sent_time 0) is ACKed at 230 ms with 4 others:
        // send phase 110 - 0 = 110 ms, ACK phase 230 - 100 = 130 ms -> interval 130 ms, delivered 6 - 1 = 5.
        let mut r = RateSampler::new();
        r.on_send(ms(0), true);
        r.on_ack(ms(100), 1, None, 0, 0, Some(SimDuration::from_millis(100)));
        let p = r.on_send(ms(110), false);
        assert_eq!(p, TxStamp { delivered: 1, delivered_time: ms(100), first_sent_time: ms(0), app_limited: false });
        let s = r.on_ack(ms(230), 5, Some(DeliveredSegment { stamp: p, sent_at: ms(110) }), 0, 0, Some(SimDuration::from_millis(100)));
        assert_eq!((s.delivered, s.interval, s.prior_delivered), (5, SimDuration::from_millis(130), 1));
        // An interval below min RTT (here 200 ms) is no sample.
        let mut r2 = RateSampler::new();
        r2.on_send(ms(0), true);
        let s = r2.on_ack(ms(100), 1, Some(DeliveredSegment { stamp: p, sent_at: ms(110) }), 0, 0, Some(SimDuration::from_millis(200)));
        assert_eq!(s.interval, SimDuration::ZERO);
    }
}
