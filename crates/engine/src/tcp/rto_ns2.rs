//! The retransmission timer of ns-2.35 TCP-Linux, for the sender's `linux-2.6` mode.
//!
//! ns-2's TCP-Linux agent borrows Linux's congestion-control modules but keeps ns-2's own timer
//! (`tcp/tcp.cc` `rtt_update`, `rtt_timeout`, `rtt_backoff`; `tcp/tcp-linux.cc` `rtt_update`,
//! `time_processing`, `timeout`). It differs from Linux's, which the default sender follows (`rtt.rs`):
//! - samples are whole ticks: t_rtt = int(tao / tick + 0.5), at least 1, with tick = 1 ms (`select_ca`
//!   sets `tcp_tick_` = 1 / JIFFY_RATIO);
//! - every ACK gives a sample, duplicate ACKs and ACKs of retransmissions included: with timestamps on
//!   (as in the cross-check and in seed 000) tao is now minus the echoed send time of the packet that
//!   triggered the ACK, so Karn's rule is not needed;
//! - SRTT and RTTVAR are integers with 3 and 2 fraction bits. The update is Jacobson's, with TCP-Linux's
//!   twist that a sample *below* SRTT moves RTTVAR 8 times more slowly (Linux's `mdev` rule):
//!   d = t_rtt - srtt/8; srtt += d; if d < 0 { e = |d| - rttvar/4; if e > 0 { e /= 8 } } else
//!   { e = d - rttvar/4 }; rttvar += e. The first sample sets srtt = t_rtt, rttvar = t_rtt / 2;
//! - RTO = srtt + 4 rttvar (truncated to ticks), raised to `minrto_` (200 ms) *as a floor of the whole
//!   RTO* (RFC 2988 2.4, `rfc2988_` true), then times the back-off, at most `maxrto_`, at least 2 ticks.
//!   Linux instead adds its 200 ms floor to SRTT (RTO = srtt + max(4 mdev, 200 ms)), which on a 45 ms
//!   path fires 45 ms later;
//! - the back-off doubles per timeout up to 64; beyond 8 it forgets SRTT (folded into RTTVAR), so the
//!   next sample starts the estimate afresh. Any ACK with a time stamp resets it to 1 (`ts_resetRTO_`);
//! - before the first sample the RTO is `rtxcur_init_` = 3 s.
//! Where the timer is (re)armed is the sender's business (`sender.rs`): on every ACK, not only on ACKs of
//! new data, and not when the head is retransmitted.

use crate::time::SimDuration;

/// `tcp_tick_` under TCP-Linux: one jiffy at HZ = 1000.
pub const TICK: SimDuration = SimDuration::from_millis(1);
/// `rtxcur_init_`: the RTO before any sample.
pub const INITIAL_RTO: SimDuration = SimDuration::from_secs(3);
/// `maxrto_` of the ns-2.35 build we compare against (`Agent/TCP/Linux set maxrto_` reads 120).
pub const MAX_RTO: SimDuration = SimDuration::from_secs(120);
/// `rtt_backoff` stops doubling here.
const MAX_BACKOFF: u32 = 64;
const SRTT_BITS: u32 = 3;
const RTTVAR_BITS: u32 = 2;

#[derive(Clone, Debug)]
pub struct Ns2Rto {
    /// `t_srtt_`: ticks with 3 fraction bits; 0 = no estimate.
    srtt: i32,
    /// `t_rttvar_`: ticks with 2 fraction bits.
    rttvar: i32,
    /// `t_rtxcur_`: srtt + 4 rttvar, as of the last sample.
    rtxcur: SimDuration,
    /// `t_backoff_`: 1, 2, 4 ... 64.
    backoff: u32,
    /// `minrto_`.
    min_rto: SimDuration,
}

impl Ns2Rto {
    pub fn new(min_rto: SimDuration) -> Self {
        Ns2Rto { srtt: 0, rttvar: 0, rtxcur: INITIAL_RTO, backoff: 1, min_rto }
    }

    /// An ACK echoing a send time `tao` ago (`time_processing` then `rtt_update`).
    pub fn on_ack(&mut self, tao: SimDuration) {
        self.backoff = 1;
        let ticks = ((tao.0 + TICK.0 / 2) / TICK.0).max(1).min(i16::MAX as u64) as i32;
        if self.srtt != 0 {
            // ns-2 keeps delta in a `short`; samples under 32 s never overflow it.
            let delta = ticks - (self.srtt >> SRTT_BITS);
            self.srtt += delta;
            if self.srtt <= 0 {
                self.srtt = 1;
            }
            let step = if delta < 0 {
                let e = -delta - (self.rttvar >> RTTVAR_BITS);
                if e > 0 {
                    e >> SRTT_BITS
                } else {
                    e
                }
            } else {
                delta - (self.rttvar >> RTTVAR_BITS)
            };
            self.rttvar += step;
        } else {
            self.srtt = ticks << SRTT_BITS;
            self.rttvar = ticks << (RTTVAR_BITS - 1);
        }
        // (rttvar << (rttvar_exp_ + SRTT_BITS - RTTVAR_BITS)) + srtt, >> SRTT_BITS, with rttvar_exp_ = 2.
        let rto_ticks = ((self.rttvar << (2 + SRTT_BITS - RTTVAR_BITS)) + self.srtt) >> SRTT_BITS;
        self.rtxcur = SimDuration(TICK.0 * rto_ticks.max(0) as u64);
    }

    /// A retransmission timeout (`rtt_backoff`).
    pub fn back_off(&mut self) {
        if self.backoff < MAX_BACKOFF {
            self.backoff <<= 1;
        }
        if self.backoff > 8 {
            self.rttvar += self.srtt >> SRTT_BITS;
            self.srtt = 0;
        }
    }

    /// The timer's duration (`rtt_timeout` with `rfc2988_`).
    pub fn timeout(&self) -> SimDuration {
        let base = self.rtxcur.max(self.min_rto);
        base.saturating_mul(self.backoff as u64).min(MAX_RTO).max(SimDuration(2 * TICK.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimDuration {
        SimDuration::from_millis(v)
    }
    fn us(v: u64) -> SimDuration {
        SimDuration::from_micros(v)
    }

    #[test]
    fn before_any_sample_the_rto_is_three_seconds() {
        assert_eq!(Ns2Rto::new(ms(200)).timeout(), ms(3000));
    }

    #[test]
    fn the_minimum_floors_the_whole_rto_unlike_linux() {
        // 45.2 ms rounds to 45 ticks: srtt = 45 << 3 = 360, rttvar = 45 << 1 = 90 (22.5 ticks);
        // RTO = (90 << 3 + 360) >> 3 = 135 ms, raised to the 200 ms minimum. (Linux: 45 + 200 = 245 ms.)
        let mut t = Ns2Rto::new(ms(200));
        t.on_ack(us(45_200));
        assert_eq!(t.timeout(), ms(200));
        // With a 300 ms path the estimate is above the floor: 300 + 4 * 150 = 900 ms.
        let mut t = Ns2Rto::new(ms(200));
        t.on_ack(ms(300));
        assert_eq!(t.timeout(), ms(900));
    }

    #[test]
    fn samples_round_to_whole_ticks_and_at_least_one() {
        // 0.4 ms -> 0 ticks -> 1 tick: srtt 8, rttvar 2, RTO (2 << 3 + 8) >> 3 = 3 ticks; floor 0 -> 3 ms.
        let mut t = Ns2Rto::new(SimDuration::ZERO);
        t.on_ack(us(400));
        assert_eq!(t.timeout(), ms(3));
        // 1.5 ms rounds up to 2 ticks.
        let mut t = Ns2Rto::new(SimDuration::ZERO);
        t.on_ack(us(1_500));
        assert_eq!(t.timeout(), ms(6));
    }

    #[test]
    fn a_sample_above_srtt_moves_rttvar_by_a_quarter_of_the_error() {
        // First 100 ms: srtt 800, rttvar 200 (50 ticks). Then 200 ms: delta = 200 - 100 = 100;
        // srtt = 900 (112.5 ticks); rttvar += 100 - 200/4 = 50 -> 250 (62.5). RTO = (250 * 8 + 900) >> 3
        // = 2900 >> 3 = 362 ticks.
        let mut t = Ns2Rto::new(ms(200));
        t.on_ack(ms(100));
        assert_eq!(t.timeout(), ms(300));
        t.on_ack(ms(200));
        assert_eq!(t.timeout(), ms(362));
    }

    #[test]
    fn a_sample_below_srtt_shrinks_rttvar_slowly_and_never_grows_it_much() {
        // First 100 ms: srtt 800, rttvar 200. Then 60 ms: delta = -40; srtt = 760 (95 ticks);
        // e = 40 - 200/4 = -10 (not > 0, kept): rttvar = 190. RTO = (190 * 8 + 760) >> 3 = 285 ms.
        let mut t = Ns2Rto::new(ms(200));
        t.on_ack(ms(100));
        t.on_ack(ms(60));
        assert_eq!(t.timeout(), ms(285));
        // Then 10 ms: delta = 10 - 95 = -85; srtt = 675 (84.375 ticks); e = 85 - 190/4 = 85 - 47 = 38 > 0,
        // divided by 8 -> 4: rttvar = 194. RTO = (194 * 8 + 675) >> 3 = 2227 >> 3 = 278 ms.
        t.on_ack(ms(10));
        assert_eq!(t.timeout(), ms(278));
    }

    #[test]
    fn back_off_doubles_the_floored_rto_and_an_ack_resets_it() {
        // 45 ms path: RTO 200 ms (the floor), then 400, 800 after two timeouts.
        let mut t = Ns2Rto::new(ms(200));
        t.on_ack(ms(45));
        t.back_off();
        assert_eq!(t.timeout(), ms(400));
        t.back_off();
        assert_eq!(t.timeout(), ms(800));
        // Any ACK (its echo says 45 ms) ends the back-off.
        t.on_ack(ms(45));
        assert_eq!(t.timeout(), ms(200));
    }

    #[test]
    fn deep_back_off_forgets_srtt_and_is_capped() {
        // 100 ms path, RTO 300 ms. Four timeouts: back-off 16 > 8, srtt forgotten, 16 * 300 ms = 4.8 s.
        let mut t = Ns2Rto::new(ms(200));
        t.on_ack(ms(100));
        for _ in 0..4 {
            t.back_off();
        }
        assert_eq!(t.timeout(), ms(4_800));
        // The back-off stops at 64: 64 * 300 ms = 19.2 s.
        for _ in 0..10 {
            t.back_off();
        }
        assert_eq!(t.timeout(), ms(19_200));
        // The next sample starts afresh (srtt was cleared): 20 ms -> srtt 20, rttvar 10: RTO 60 -> 200 ms.
        t.on_ack(ms(20));
        assert_eq!(t.timeout(), ms(200));
    }
}
