//! A bearer whose rate follows the demand: the rate switching of a UMTS R99 dedicated channel (DCH).
//!
//! In UMTS the radio network controller gives a user's data a channel of one of a few rates (for
//! example 64, 128 and 384 kbit/s) and changes it on the user's demand: the RLC buffer's occupancy is
//! reported (3GPP TS 25.331 traffic volume measurements: event 4a, the buffer above a threshold), and a
//! radio bearer reconfiguration gives the next higher rate after the report's time-to-trigger and the
//! RRC signalling (a few hundred ms to a couple of seconds); an inactivity timer releases the channel
//! when the buffer has been empty for a while, and the next data starts again on a low rate. Seed 002's
//! downlink points to this (docs/reproductions/seed002.md): one flow used 0.40 of the nominal 384 kbit/s,
//! four flows together 0.85, where a bearer of fixed rate gives the same capacity to any load.
//!
//! The model, each part a parameter:
//! - `rates`: the channel's rates, lowest first; a link starts on the lowest.
//! - Step up: when a packet joins the buffer and the bytes waiting for the transmitter (that packet
//!   included, the one on the wire not) exceed `up_queue_bytes`, the next rate comes into force
//!   `up_delay` later. One step at a time: the next request can only come once it is in force.
//! - Fall back: when the transmitter has been idle (nothing waiting, nothing on the wire) for `idle`, the
//!   bearer is back on the lowest rate from then on; a step up still pending then is cancelled.
//!
//! Decisions are taken when packets arrive, so the rate in force at any instant is known before any
//! packet is transmitted at it; the DropTail start-time fast path keeps working. One approximation comes
//! with it: a packet that was already waiting when a step up was decided keeps the transmission time it
//! was given at its arrival, at the old rate, even if it leaves after the new rate is in force; with
//! `up_delay` at least the buffer's drain time there are none.
//!
//! The realised rate history is a `RateSchedule` (one step per switch), which also answers
//! `bits_between` for utilisation: what the channel offered, at the rates it had.

use crate::net::capacity::RateSchedule;
use crate::time::{Rate, SimDuration, SimTime};

/// The bearer's parameters (`RateModelConfig::Bearer`).
#[derive(Clone, Debug)]
pub struct BearerParams {
    /// Rates of the channel, bit/s, strictly increasing, at least one.
    pub rates_bps: Vec<u64>,
    /// Bytes waiting above which a step up is asked for.
    pub up_queue_bytes: u64,
    /// From the request to the new rate.
    pub up_delay: SimDuration,
    /// Idle time after which the bearer falls back to its lowest rate.
    pub idle: SimDuration,
}

impl BearerParams {
    pub fn validate(&self) -> Result<(), String> {
        if self.rates_bps.is_empty() || self.rates_bps[0] == 0 {
            return Err("needs at least one rate, all above 0 bit/s".to_string());
        }
        if self.rates_bps.windows(2).any(|w| w[1] <= w[0]) {
            return Err("the rates must increase, lowest first".to_string());
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Bearer {
    params: BearerParams,
    /// Rates in force over time, as switched so far (the last holds until the next switch).
    schedule: RateSchedule,
    /// Index into `rates_bps` of the last rate switched to (pending step up included).
    level: usize,
    /// When a requested step up comes into force; None when none is pending.
    pending_until: Option<SimTime>,
    /// Switches so far: (step ups, fall backs), for reports and tests.
    switches: (u64, u64),
}

impl Bearer {
    pub fn new(params: BearerParams) -> Result<Self, String> {
        params.validate()?;
        let schedule = RateSchedule::new(vec![(SimTime::ZERO, Rate::from_bps(params.rates_bps[0]))])?;
        Ok(Bearer { params, schedule, level: 0, pending_until: None, switches: (0, 0) })
    }

    /// A packet is about to join the buffer at `now`; `idle_since` is when the transmitter last became
    /// free if it is idle now (nothing waiting, nothing on the wire), else None. Applies the fall back
    /// the idle time has earned, before the packet's transmission is computed.
    pub fn before_arrival(&mut self, now: SimTime, idle_since: Option<SimTime>) {
        let Some(since) = idle_since else { return };
        let fall_back_at = since + self.params.idle;
        if fall_back_at > now {
            return;
        }
        // A step up that would have come into force after the fall back never happens.
        let cancelled = self.pending_until.is_some_and(|t| t > fall_back_at);
        let was_lowest = self.level_at(fall_back_at) == 0;
        if was_lowest && !cancelled {
            return;
        }
        self.schedule.switch_at(fall_back_at, Rate::from_bps(self.params.rates_bps[0]));
        self.level = 0;
        self.pending_until = None;
        if !was_lowest {
            self.switches.1 += 1;
        }
    }

    /// The packet has joined (or gone straight to the transmitter) at `now`, leaving `waiting_bytes`
    /// waiting for the transmitter (the packet included if it waits). Asks for a step up if that is over
    /// the threshold and none is pending.
    pub fn after_arrival(&mut self, now: SimTime, waiting_bytes: u64) {
        if self.pending_until.is_some_and(|t| t <= now) {
            self.pending_until = None;
        }
        if waiting_bytes <= self.params.up_queue_bytes
            || self.pending_until.is_some()
            || self.level + 1 >= self.params.rates_bps.len()
        {
            return;
        }
        self.level += 1;
        let at = now + self.params.up_delay;
        self.schedule.switch_at(at, Rate::from_bps(self.params.rates_bps[self.level]));
        self.pending_until = Some(at);
        self.switches.0 += 1;
    }

    fn level_at(&self, t: SimTime) -> usize {
        let rate = self.schedule.rate_at(t).bits_per_sec;
        self.params.rates_bps.iter().position(|&r| r == rate).unwrap_or(0)
    }

    /// See `Capacity::transmission_done`: at the rates switched to so far.
    pub fn transmission_done(&self, start: SimTime, size: u32) -> SimTime {
        self.schedule.transmission_done(start, size)
    }

    /// Bits offered over [t0, t1) at the rates the channel had.
    pub fn bits_between(&self, t0: SimTime, t1: SimTime) -> u64 {
        self.schedule.bits_between(t0, t1)
    }

    /// The highest rate, the channel's nominal one (what reports and a 'bdp' size refer to).
    pub fn peak_rate_bps(&self) -> u64 {
        *self.params.rates_bps.last().expect("validated: not empty")
    }

    /// (step ups, fall backs) so far.
    pub fn switches(&self) -> (u64, u64) {
        self.switches
    }

    pub fn rate_at(&self, t: SimTime) -> Rate {
        self.schedule.rate_at(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn bearer() -> Bearer {
        // 64 / 128 / 384 kbit/s, step up when more than 3000 bytes wait, 500 ms later, back after 2 s idle.
        Bearer::new(BearerParams {
            rates_bps: vec![64_000, 128_000, 384_000],
            up_queue_bytes: 3000,
            up_delay: SimDuration::from_millis(500),
            idle: SimDuration::from_secs(2),
        })
        .unwrap()
    }

    #[test]
    fn steps_up_one_rate_at_a_time_after_the_delay() {
        // 3000 bytes waiting is not over the threshold; 4500 at 100 ms asks for 128 kbit/s from 600 ms.
        let mut b = bearer();
        b.after_arrival(SimTime(50 * MS), 3000);
        assert_eq!(b.rate_at(SimTime(10_000 * MS)).bits_per_sec, 64_000);
        b.after_arrival(SimTime(100 * MS), 4500);
        assert_eq!(b.rate_at(SimTime(599 * MS)).bits_per_sec, 64_000);
        assert_eq!(b.rate_at(SimTime(600 * MS)).bits_per_sec, 128_000);
        // While that is pending nothing more is asked; at 600 ms it is in force and 384 comes at 1100 ms.
        b.after_arrival(SimTime(300 * MS), 9000);
        assert_eq!(b.switches(), (1, 0));
        b.after_arrival(SimTime(600 * MS), 9000);
        assert_eq!(b.rate_at(SimTime(1100 * MS)).bits_per_sec, 384_000);
        // The top rate asks for nothing more.
        b.after_arrival(SimTime(1200 * MS), 9000);
        assert_eq!(b.switches(), (2, 0));
    }

    #[test]
    fn a_packet_spanning_a_switch_is_served_at_both_rates() {
        // 1500 bytes = 12,000 bit from 500 ms: 100 ms at 64 kbit/s gives 6,400 bit by the switch at
        // 600 ms; the other 5,600 bit at 128 kbit/s take 43.75 ms: done at 643.75 ms.
        let mut b = bearer();
        b.after_arrival(SimTime(100 * MS), 4500);
        assert_eq!(b.transmission_done(SimTime(500 * MS), 1500), SimTime(643_750_000));
        // Wholly before: 12,000 / 64,000 s = 187.5 ms.
        assert_eq!(b.transmission_done(SimTime(0), 1500), SimTime(187_500_000));
    }

    #[test]
    fn falls_back_to_the_lowest_rate_after_the_idle_time() {
        // On 128 kbit/s from 600 ms; idle from 1000 ms. An arrival at 2500 ms (1.5 s idle) keeps 128;
        // one at 3500 ms finds the fall back in force since 3000 ms.
        let mut b = bearer();
        b.after_arrival(SimTime(100 * MS), 4500);
        b.before_arrival(SimTime(2500 * MS), Some(SimTime(1000 * MS)));
        assert_eq!(b.rate_at(SimTime(2500 * MS)).bits_per_sec, 128_000);
        b.before_arrival(SimTime(3500 * MS), Some(SimTime(1000 * MS)));
        assert_eq!(b.rate_at(SimTime(2999 * MS)).bits_per_sec, 128_000);
        assert_eq!(b.rate_at(SimTime(3000 * MS)).bits_per_sec, 64_000);
        assert_eq!(b.switches(), (1, 1));
        // Utilisation's denominator: [0, 4 s) offered 0.6 s x 64k + 2.4 s x 128k + 1 s x 64k = 409,600 bit.
        assert_eq!(b.bits_between(SimTime(0), SimTime(4000 * MS)), 409_600);
    }

    #[test]
    fn a_fall_back_cancels_a_step_up_still_pending() {
        // With idle 200 ms < up_delay 500 ms: the step up asked at 100 ms (for 600 ms) is cancelled by the
        // fall back due at 150 + 200 = 350 ms, found by an arrival at 700 ms: 64 kbit/s throughout.
        let mut b = Bearer::new(BearerParams { idle: SimDuration::from_millis(200), ..bearer().params }).unwrap();
        b.after_arrival(SimTime(100 * MS), 4500);
        b.before_arrival(SimTime(700 * MS), Some(SimTime(150 * MS)));
        assert_eq!(b.rate_at(SimTime(650 * MS)).bits_per_sec, 64_000);
        // A new request can be made at once.
        b.after_arrival(SimTime(700 * MS), 4500);
        assert_eq!(b.rate_at(SimTime(1200 * MS)).bits_per_sec, 128_000);
    }

    #[test]
    fn parameters_are_checked() {
        let p = |rates: Vec<u64>| BearerParams { rates_bps: rates, ..bearer().params };
        assert!(Bearer::new(p(vec![])).is_err());
        assert!(Bearer::new(p(vec![0, 64_000])).is_err());
        assert!(Bearer::new(p(vec![128_000, 64_000])).is_err());
        assert!(Bearer::new(p(vec![384_000])).is_ok());
    }
}
