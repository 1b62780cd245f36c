//! ns-2.35's retransmission timer (`tcp/tcp.cc` `rtt_update`, `rtt_timeout`, `rtt_backoff`), as two of its
//! agents run it: TCP-Linux (`Agent/TCP/Linux`, the sender's `linux-2.6` mode; `tcp/tcp-linux.cc`
//! `rtt_update`, `time_processing`) and ns-2's own TCP agents (`Agent/TCP`, whose `Agent/TCP/Sack1` is the
//! sender's `ns2-sack1` mode). Both differ from Linux's timer, which the default sender follows (`rtt.rs`).
//!
//! What the two share:
//! - SRTT and RTTVAR are integers in ticks with 3 and 2 fraction bits; the first sample sets srtt = t_rtt,
//!   rttvar = t_rtt / 2;
//! - t_rtxcur = srtt + 4 rttvar, truncated to ticks (`rttvar_exp_` = 2), recomputed at each sample;
//! - RTO = max(t_rtxcur, `minrto_`) times the back-off, at most `maxrto_`, at least 2 ticks: the minimum
//!   floors the whole RTO (RFC 2988 2.4, `rfc2988_` true), where Linux adds its 200 ms to SRTT
//!   (srtt + max(4 mdev, 200 ms)), which on a 45 ms path fires 45 ms later;
//! - a timeout doubles the back-off while it is below 64 or the RTO below `maxrto_` (2.35's rule; ns-2
//!   before 2010 stopped at 64); from 16 on, SRTT is forgotten (folded into RTTVAR), so the next sample
//!   starts the estimate afresh;
//! - before the first sample the RTO is `rtxcur_init_` = 3 s.
//!
//! Where they differ (`Ns2Agent`):
//! - TCP-Linux: 1 ms ticks (`select_ca` sets `tcp_tick_` = 1 / JIFFY_RATIO); every ACK gives a sample,
//!   duplicate ACKs and ACKs of retransmissions included: with time stamps on (as in the cross-check and
//!   in seed 000) tao is now minus the echoed send time, rounded to the nearest tick, so Karn's rule is
//!   not needed, and any such ACK ends the back-off (`ts_resetRTO_`). A sample *below* SRTT moves RTTVAR
//!   8 times more slowly (Linux's `mdev` rule): d = t_rtt - srtt/8; srtt += d; if d < 0 { e = |d| -
//!   rttvar/4; if e > 0 { e /= 8 } } else { e = d - rttvar/4 }; rttvar += e. `maxrto_` is 120 s.
//! - Agent/TCP: 10 ms ticks (`tcpTick_`), no time stamps (`timestamps_` false). One packet at a time is
//!   timed, a new one (`output`: `rtt_active_`, `rtt_seq_`, `rtt_ts_`), and its sample comes from the
//!   cumulative ACK that covers it (`newack`): the tick boundaries of the agent's clock crossed between its
//!   send and that ACK, t_rtt = floor((now + phase) / tick) - floor((sent + phase) / tick), at least 1,
//!   where the phase (`boot_time_`) is a uniform draw per agent. Timing is cancelled by a timeout and at
//!   the entry of fast recovery (`reset_rtx_timer`), so a retransmission is never timed (Karn). Plain
//!   Jacobson: rttvar += |d| - rttvar/4, and neither may fall below 1. The sample ends the back-off; so
//!   does each partial ACK of Sack1's fast recovery (`end_back_off`). `maxrto_` is 60 s. With a steady
//!   RTT, rttvar settles at 3/4 tick (3 >> 2 = 0 stops its decay), so t_rtxcur = srtt + 3 ticks.
//!
//! Where the timer is (re)armed is the sender's business (`sender.rs`).

use crate::time::{SimDuration, SimTime};

/// `rtxcur_init_`: the RTO before any sample.
pub const INITIAL_RTO: SimDuration = SimDuration::from_secs(3);
/// `rtt_backoff` doubles past this only while the RTO is below `maxrto_`.
const BACKOFF_BEFORE_CAP: u32 = 64;
const SRTT_BITS: u32 = 3;
const RTTVAR_BITS: u32 = 2;

/// Which ns-2 agent's timer (see the module's notes).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ns2Agent {
    /// `Agent/TCP/Linux`: a rounded sample on every ACK.
    Linux,
    /// `Agent/TCP` and its subclasses (`Agent/TCP/Sack1`): one timed packet per round trip.
    Tcp,
}

impl Ns2Agent {
    /// `tcp_tick_`.
    pub const fn tick(self) -> SimDuration {
        match self {
            Ns2Agent::Linux => SimDuration::from_millis(1),
            Ns2Agent::Tcp => SimDuration::from_millis(10),
        }
    }
    /// `maxrto_` in ns-2.35 (`Agent/TCP/Linux set maxrto_ 120`; `Agent/TCP set maxrto_ 60`).
    pub const fn max_rto(self) -> SimDuration {
        match self {
            Ns2Agent::Linux => SimDuration::from_secs(120),
            Ns2Agent::Tcp => SimDuration::from_secs(60),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Ns2Rto {
    agent: Ns2Agent,
    /// `t_srtt_`: ticks with 3 fraction bits; 0 = no estimate.
    srtt: i32,
    /// `t_rttvar_`: ticks with 2 fraction bits.
    rttvar: i32,
    /// `t_rtxcur_`: srtt + 4 rttvar, as of the last sample.
    rtxcur: SimDuration,
    /// `t_backoff_`: 1, 2, 4 ...
    backoff: u32,
    /// `minrto_`.
    min_rto: SimDuration,
    /// Agent/TCP: `boot_time_`, the phase of the agent's tick clock, ns below one tick.
    phase: u64,
    /// Agent/TCP: the packet being timed and when it left (`rtt_active_`, `rtt_seq_`, `rtt_ts_`).
    timed: Option<(u64, SimTime)>,
}

impl Ns2Rto {
    /// TCP-Linux's timer.
    pub fn linux(min_rto: SimDuration) -> Self {
        Self::new(Ns2Agent::Linux, min_rto, 0)
    }

    /// Agent/TCP's timer, its tick clock at `phase` (taken modulo one tick).
    pub fn agent(min_rto: SimDuration, phase: SimDuration) -> Self {
        Self::new(Ns2Agent::Tcp, min_rto, phase.0 % Ns2Agent::Tcp.tick().0)
    }

    fn new(agent: Ns2Agent, min_rto: SimDuration, phase: u64) -> Self {
        Ns2Rto { agent, srtt: 0, rttvar: 0, rtxcur: INITIAL_RTO, backoff: 1, min_rto, phase, timed: None }
    }

    pub fn agent_kind(&self) -> Ns2Agent {
        self.agent
    }

    /// TCP-Linux: an ACK echoing a send time `tao` ago (`time_processing` then `rtt_update`).
    pub fn on_ack(&mut self, tao: SimDuration) {
        self.backoff = 1;
        let tick = self.agent.tick().0;
        self.update(((tao.0 + tick / 2) / tick) as i64);
    }

    /// Agent/TCP `output`: segment `seq`, never sent before, leaves now; it is timed unless one is.
    #[inline(always)]
    pub fn on_new_segment(&mut self, seq: u64, now: SimTime) {
        if self.agent == Ns2Agent::Tcp && self.timed.is_none() {
            self.timed = Some((seq, now));
        }
    }

    /// Agent/TCP `newack`: a new cumulative ACK, everything below `cum_ack` acknowledged. If it covers the
    /// timed segment, that is a sample, and the back-off ends.
    pub fn on_new_ack(&mut self, cum_ack: u64, now: SimTime) {
        let Some((seq, sent)) = self.timed else { return };
        if cum_ack > seq {
            self.timed = None;
            self.backoff = 1;
            let tick = self.agent.tick().0;
            let ticks = (now.0 + self.phase) / tick - (sent.0 + self.phase) / tick;
            self.update(ticks as i64);
        }
    }

    /// Agent/TCP `reset_rtx_timer`: the sample in progress is dropped (Karn's rule).
    pub fn cancel_timing(&mut self) {
        self.timed = None;
    }

    /// Sack1's partial ACK: `t_backoff_ = 1` (after the timer was re-armed with the old back-off).
    pub fn end_back_off(&mut self) {
        self.backoff = 1;
    }

    /// `rtt_update` with a sample of `ticks` whole ticks (at least 1; ns-2 keeps the error in a `short`,
    /// which samples under 32 767 ticks never overflow).
    fn update(&mut self, ticks: i64) {
        let ticks = ticks.clamp(1, i16::MAX as i64) as i32;
        if self.srtt != 0 {
            let delta = ticks - (self.srtt >> SRTT_BITS);
            self.srtt += delta;
            if self.srtt <= 0 {
                self.srtt = 1;
            }
            match self.agent {
                Ns2Agent::Linux => {
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
                }
                Ns2Agent::Tcp => {
                    self.rttvar += delta.abs() - (self.rttvar >> RTTVAR_BITS);
                    if self.rttvar <= 0 {
                        self.rttvar = 1;
                    }
                }
            }
        } else {
            self.srtt = ticks << SRTT_BITS;
            self.rttvar = ticks << (RTTVAR_BITS - 1);
        }
        // (rttvar << (rttvar_exp_ + SRTT_BITS - RTTVAR_BITS)) + srtt, >> SRTT_BITS, with rttvar_exp_ = 2.
        let rto_ticks = ((self.rttvar << (2 + SRTT_BITS - RTTVAR_BITS)) + self.srtt) >> SRTT_BITS;
        self.rtxcur = SimDuration(self.agent.tick().0 * rto_ticks.max(0) as u64);
    }

    /// A retransmission timeout (`rtt_backoff`).
    pub fn back_off(&mut self) {
        if self.backoff < BACKOFF_BEFORE_CAP || self.timeout() < self.agent.max_rto() {
            self.backoff = self.backoff.saturating_mul(2);
        }
        if self.backoff > 8 {
            self.rttvar += self.srtt >> SRTT_BITS;
            self.srtt = 0;
        }
    }

    /// The timer's duration (`rtt_timeout` with `rfc2988_`).
    pub fn timeout(&self) -> SimDuration {
        let base = self.rtxcur.max(self.min_rto);
        let tick = self.agent.tick().0;
        base.saturating_mul(self.backoff as u64).min(self.agent.max_rto()).max(SimDuration(2 * tick))
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
        assert_eq!(Ns2Rto::linux(ms(200)).timeout(), ms(3000));
    }

    #[test]
    fn the_minimum_floors_the_whole_rto_unlike_linux() {
        // 45.2 ms rounds to 45 ticks: srtt = 45 << 3 = 360, rttvar = 45 << 1 = 90 (22.5 ticks);
        // RTO = (90 << 3 + 360) >> 3 = 135 ms, raised to the 200 ms minimum. (Linux: 45 + 200 = 245 ms.)
        let mut t = Ns2Rto::linux(ms(200));
        t.on_ack(us(45_200));
        assert_eq!(t.timeout(), ms(200));
        // With a 300 ms path the estimate is above the floor: 300 + 4 * 150 = 900 ms.
        let mut t = Ns2Rto::linux(ms(200));
        t.on_ack(ms(300));
        assert_eq!(t.timeout(), ms(900));
    }

    #[test]
    fn samples_round_to_whole_ticks_and_at_least_one() {
        // 0.4 ms -> 0 ticks -> 1 tick: srtt 8, rttvar 2, RTO (2 << 3 + 8) >> 3 = 3 ticks; floor 0 -> 3 ms.
        let mut t = Ns2Rto::linux(SimDuration::ZERO);
        t.on_ack(us(400));
        assert_eq!(t.timeout(), ms(3));
        // 1.5 ms rounds up to 2 ticks.
        let mut t = Ns2Rto::linux(SimDuration::ZERO);
        t.on_ack(us(1_500));
        assert_eq!(t.timeout(), ms(6));
    }

    #[test]
    fn a_sample_above_srtt_moves_rttvar_by_a_quarter_of_the_error() {
        // First 100 ms: srtt 800, rttvar 200 (50 ticks). Then 200 ms: delta = 200 - 100 = 100;
        // srtt = 900 (112.5 ticks); rttvar += 100 - 200/4 = 50 -> 250 (62.5). RTO = (250 * 8 + 900) >> 3
        // = 2900 >> 3 = 362 ticks.
        let mut t = Ns2Rto::linux(ms(200));
        t.on_ack(ms(100));
        assert_eq!(t.timeout(), ms(300));
        t.on_ack(ms(200));
        assert_eq!(t.timeout(), ms(362));
    }

    #[test]
    fn a_sample_below_srtt_shrinks_rttvar_slowly_and_never_grows_it_much() {
        // First 100 ms: srtt 800, rttvar 200. Then 60 ms: delta = -40; srtt = 760 (95 ticks);
        // e = 40 - 200/4 = -10 (not > 0, kept): rttvar = 190. RTO = (190 * 8 + 760) >> 3 = 285 ms.
        let mut t = Ns2Rto::linux(ms(200));
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
        let mut t = Ns2Rto::linux(ms(200));
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
        let mut t = Ns2Rto::linux(ms(200));
        t.on_ack(ms(100));
        for _ in 0..4 {
            t.back_off();
        }
        assert_eq!(t.timeout(), ms(4_800));
        // Past 64 it doubles only while the RTO is below maxrto_ (120 s): 64 * 300 ms = 19.2 s, then
        // 38.4 s, 76.8 s, then 153.6 s, which the maximum cuts to 120 s; there it stops.
        for _ in 0..2 {
            t.back_off();
        }
        assert_eq!(t.timeout(), ms(19_200));
        for _ in 0..3 {
            t.back_off();
        }
        assert_eq!(t.timeout(), ms(120_000));
        for _ in 0..40 {
            t.back_off();
        }
        assert_eq!(t.timeout(), ms(120_000));
        // The next sample starts afresh (srtt was cleared): 20 ms -> srtt 20, rttvar 10: RTO 60 -> 200 ms.
        t.on_ack(ms(20));
        assert_eq!(t.timeout(), ms(200));
    }

    fn at(v: u64) -> SimTime {
        SimTime(v * 1_000_000)
    }

    #[test]
    fn an_agent_sample_counts_the_tick_boundaries_of_its_clock() {
        // Clock phase 3 ms: its ticks fall at 7, 17, 27 ... ms of simulated time. Segment 0 leaves at 5 ms,
        // its ACK comes at 50 ms: boundaries 7, 17, 27, 37, 47 -> 5 ticks (45 ms, truncated, not rounded).
        // srtt 40 (5 ticks), rttvar 10 (2.5): t_rtxcur = (10 * 8 + 40) / 8 = 15 ticks = 3 x the sample.
        let mut t = Ns2Rto::agent(SimDuration::ZERO, ms(3));
        assert_eq!(t.timeout(), ms(3000));
        t.on_new_segment(0, at(5));
        t.on_new_ack(1, at(50));
        assert_eq!(t.timeout(), ms(150));
        // 2 ms across one boundary is a tick; 8 ms across none is 0, raised to 1.
        let mut t = Ns2Rto::agent(SimDuration::ZERO, SimDuration::ZERO);
        t.on_new_segment(0, at(9));
        t.on_new_ack(1, at(11));
        assert_eq!(t.timeout(), ms(30));
        let mut t = Ns2Rto::agent(SimDuration::ZERO, SimDuration::ZERO);
        t.on_new_segment(0, at(1));
        t.on_new_ack(1, at(9));
        assert_eq!(t.timeout(), ms(30));
    }

    #[test]
    fn an_agent_times_one_new_segment_at_a_time() {
        let mut t = Ns2Rto::agent(SimDuration::ZERO, SimDuration::ZERO);
        // 0 is timed; 1 and 2 leave while it is, and are not.
        t.on_new_segment(0, at(0));
        t.on_new_segment(1, at(1));
        t.on_new_segment(2, at(2));
        // An ACK short of 0 (none here: cum_ack 0) is no sample; the ACK of 0 and 1 at 100 ms is.
        t.on_new_ack(0, at(100));
        assert_eq!(t.timeout(), ms(3000));
        t.on_new_ack(2, at(100));
        assert_eq!(t.timeout(), ms(300));
        // Nothing is timed now: the ACK of 2 gives nothing.
        t.on_new_ack(3, at(400));
        assert_eq!(t.timeout(), ms(300));
        // A timeout or a fast recovery drops the sample in progress; the next new segment is timed.
        t.on_new_segment(3, at(400));
        t.cancel_timing();
        t.on_new_ack(4, at(900));
        assert_eq!(t.timeout(), ms(300));
        t.on_new_segment(4, at(900));
        t.on_new_ack(5, at(1000));
        // 10 ticks again: srtt 80, rttvar 20 + 0 - 5 = 15: (15 * 8 + 80) / 8 = 25 ticks.
        assert_eq!(t.timeout(), ms(250));
    }

    #[test]
    fn with_a_steady_path_the_agents_rto_settles_three_ticks_above_srtt() {
        // rttvar (in quarter ticks) decays 20, 15, 12, 9, 7, 6, 5, 4, 3 and stays at 3 (3 >> 2 = 0).
        let mut t = Ns2Rto::agent(SimDuration::ZERO, SimDuration::ZERO);
        for (i, rttvar) in [20, 15, 12, 9, 7, 6, 5, 4, 3, 3, 3].into_iter().enumerate() {
            let sent = at(1000 * i as u64);
            t.on_new_segment(i as u64, sent);
            t.on_new_ack(i as u64 + 1, SimTime(sent.0 + 100_000_000));
            assert_eq!(t.timeout(), ms(10 * ((rttvar * 8 + 80) / 8)), "sample {i}");
        }
        assert_eq!(t.timeout(), ms(130));
        // minrto_ floors it, as for TCP-Linux: 200 ms.
        let mut t = Ns2Rto::agent(ms(200), SimDuration::ZERO);
        for i in 0..11 {
            t.on_new_segment(i, at(1000 * i));
            t.on_new_ack(i + 1, at(1000 * i + 100));
        }
        assert_eq!(t.timeout(), ms(200));
    }

    #[test]
    fn an_agents_back_off_ends_with_a_sample_or_a_partial_ack_and_stops_at_sixty_seconds() {
        let mut t = Ns2Rto::agent(ms(200), SimDuration::ZERO);
        t.on_new_segment(0, at(0));
        t.on_new_ack(1, at(100));
        assert_eq!(t.timeout(), ms(300));
        t.back_off();
        t.back_off();
        assert_eq!(t.timeout(), ms(1200));
        // Sack1's partial ACK.
        t.end_back_off();
        assert_eq!(t.timeout(), ms(300));
        // Back-off 16 forgets srtt (rttvar 20 + 10 = 30); the RTO goes on from t_rtxcur (300 ms) to 60 s.
        for _ in 0..4 {
            t.back_off();
        }
        assert_eq!(t.timeout(), ms(4800));
        for _ in 0..20 {
            t.back_off();
        }
        assert_eq!(t.timeout(), ms(60_000));
        // The next sample is a first one again: 50 ms -> 150 ms, floored to 200.
        t.on_new_segment(1, at(10_000));
        t.on_new_ack(2, at(10_050));
        assert_eq!(t.timeout(), ms(200));
    }

    #[test]
    fn linux_timing_ignores_the_agents_calls() {
        let mut t = Ns2Rto::linux(ms(200));
        t.on_new_segment(0, at(0));
        t.on_new_ack(1, at(100));
        assert_eq!(t.timeout(), ms(3000));
    }
}
