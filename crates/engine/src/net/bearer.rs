//! A bearer whose rate follows the demand: the rate switching of a UMTS R99 dedicated channel (DCH).
//!
//! In UMTS the radio network controller gives a user's data a channel of one of a few rates (for
//! example 64, 128 and 384 kbit/s) and changes it on the user's demand: the RLC buffer's occupancy is
//! reported (3GPP TS 25.331 section 14.4.2, traffic volume measurements: event 4a, the buffer above a
//! threshold; event 4b, below one), and a radio bearer reconfiguration gives the next higher (or lower)
//! rate after the report's time-to-trigger and the RRC signalling (a few hundred ms to a couple of
//! seconds); an inactivity timer releases the channel when the buffer has been empty for a while, and
//! the next data starts again on a low rate. Seed 002's downlink points to this
//! (docs/reproductions/seed002.md): one flow used 0.40 of the nominal 384 kbit/s, four flows together
//! 0.85, where a bearer of fixed rate gives the same capacity to any load.
//!
//! The model, each part a parameter:
//! - `rates`: the channel's rates, lowest first; a link starts on the lowest.
//! - Step up: when a packet joins the buffer and the bytes waiting for the transmitter (that packet
//!   included, the one on the wire not) exceed `up_queue_bytes`, the next rate comes into force
//!   `up_delay` later. One step at a time: the next request can only come once it is in force.
//! - Step down (optional, off unless `down` is given; event 4b): when the bytes waiting have stayed
//!   below `down_queue_bytes` for `down_delay` (the time-to-trigger, with the reconfiguration's
//!   signalling counted in it) and no step up is pending, the next lower rate is in force from then on.
//!   The time is counted from the later of the buffer's fall below the threshold and the last switch, so
//!   a longer low spell steps down again every `down_delay`. An arrival that leaves `down_queue_bytes`
//!   or more waiting restarts it.
//! - Fall back: when the transmitter has been idle (nothing waiting, nothing on the wire) for `idle`, the
//!   bearer is back on the lowest rate from then on; a step up still pending then is cancelled.
//!
//! When a switch applies to which packet. A radio bearer reconfiguration takes effect at its activation
//! time, a connection frame number (TS 25.331 section 10.2.27, IE "Activation time", 10.3.3.1): the new
//! transport formats are used from the start of that 10 ms radio frame on, whatever IP packet the RLC
//! PDUs of that frame carry. So the link (`net::link`) times each packet when its transmission starts
//! (when the one before it ends; a bearer link keeps its DropTail as a scheduled queue for this), with
//! the rates switched to by then: a packet on the wire when a known switch comes is served at both
//! rates, its bits before the switch at the old rate and the rest at the new one
//! (`RateSchedule::transmission_done`), as the frames after the activation time would carry them. A step
//! up is known `up_delay` ahead, so this is exact for every packet that starts after the request. What
//! is not re-timed is a packet already on the wire when a switch is *decided*; it ends at the rates known
//! when it started. That happens for a step up only when `up_delay` is shorter than the packet's
//! remaining transmission (below one packet time at the old rate: 187.5 ms for 1500 bytes at 64
//! kbit/s), and for a step down always, since it is decided once due: the packet under way then ends
//! at the higher rate (a fall back finds nothing on the wire). Steps down and fall backs are found when
//! the bearer is next consulted (an arrival or a transmission start), which is early enough: no packet
//! starts in between.
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
    /// Steps down on low demand (event 4b); None: only the idle fall back lowers the rate.
    pub down: Option<StepDown>,
}

/// Low demand that steps the bearer down one rate (3GPP TS 25.331 event 4b).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepDown {
    /// Bytes waiting below which demand is low; at least 1 and at most `up_queue_bytes`.
    pub queue_bytes: u64,
    /// How long demand must stay low for one step down (time-to-trigger and signalling).
    pub delay: SimDuration,
}

impl BearerParams {
    pub fn validate(&self) -> Result<(), String> {
        if self.rates_bps.is_empty() || self.rates_bps[0] == 0 {
            return Err("needs at least one rate, all above 0 bit/s".to_string());
        }
        if self.rates_bps.windows(2).any(|w| w[1] <= w[0]) {
            return Err("the rates must increase, lowest first".to_string());
        }
        if let Some(down) = self.down {
            // Above up_queue_bytes the same buffer would ask for a step up and a step down at once.
            if down.queue_bytes == 0 || down.queue_bytes > self.up_queue_bytes {
                return Err(format!(
                    "down_queue_bytes must be between 1 and up_queue_bytes ({} B), not {} B",
                    self.up_queue_bytes, down.queue_bytes
                ));
            }
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
    /// Since when fewer than `down.queue_bytes` have been waiting; None while more wait (or no `down`).
    low_since: Option<SimTime>,
    /// Switches so far: (step ups, fall backs and steps down), for reports and tests.
    switches: (u64, u64),
}

impl Bearer {
    pub fn new(params: BearerParams) -> Result<Self, String> {
        params.validate()?;
        let schedule = RateSchedule::new(vec![(SimTime::ZERO, Rate::from_bps(params.rates_bps[0]))])?;
        let low_since = params.down.map(|_| SimTime::ZERO);
        Ok(Bearer { params, schedule, level: 0, pending_until: None, low_since, switches: (0, 0) })
    }

    /// A packet is about to join the buffer at `now`; `idle_since` is when the transmitter last became
    /// free if it is idle now (nothing waiting, nothing on the wire), else None. Applies the steps down
    /// and the fall back that low demand and idle time have earned, before anything more is timed.
    pub fn before_arrival(&mut self, now: SimTime, idle_since: Option<SimTime>) {
        let Some(since) = idle_since else {
            self.step_down_until(now);
            return;
        };
        let fall_back_at = since + self.params.idle;
        self.step_down_until(now.min(fall_back_at));
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
        if let Some(down) = self.params.down {
            if waiting_bytes >= down.queue_bytes {
                self.low_since = None;
            }
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

    /// A packet's transmission starts at `now`, leaving `waiting_bytes` waiting: applies the steps down
    /// due by now (before the packet is timed) and notes when the buffer falls below the step-down
    /// threshold (it only falls when a packet leaves it for the transmitter).
    pub fn at_transmission_start(&mut self, now: SimTime, waiting_bytes: u64) {
        let Some(down) = self.params.down else { return };
        self.step_down_until(now);
        if waiting_bytes < down.queue_bytes && self.low_since.is_none() {
            self.low_since = Some(now);
        }
    }

    /// Applies, at their own instants, the steps down that are due at or before `t`: demand low for
    /// `down.delay` since the later of its fall and the last switch, no step up pending.
    fn step_down_until(&mut self, t: SimTime) {
        let (Some(down), Some(low_since)) = (self.params.down, self.low_since) else { return };
        while self.level > 0 && self.pending_until.is_none_or(|p| p <= t) {
            let last_switch = self.schedule.steps().last().expect("never empty").0;
            let due = low_since.max(last_switch) + down.delay;
            if due > t {
                return;
            }
            self.pending_until = None;
            self.level -= 1;
            self.schedule.switch_at(due, Rate::from_bps(self.params.rates_bps[self.level]));
            self.switches.1 += 1;
        }
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

    /// (step ups, fall backs and steps down) so far.
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
            down: None,
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

    /// `bearer()` with a step down once fewer than 1500 bytes have waited for 300 ms.
    fn stepping_down() -> Bearer {
        let down = Some(StepDown { queue_bytes: 1500, delay: SimDuration::from_millis(300) });
        Bearer::new(BearerParams { down, ..bearer().params }).unwrap()
    }

    #[test]
    fn steps_down_once_little_has_waited_for_the_delay() {
        // 128 kbit/s from 600 ms (asked for at 100 ms). A transmission starting at 700 ms leaves 1000
        // bytes waiting: low from 700 ms, one step down due at 1000 ms, found by an arrival at 1100 ms.
        let mut b = stepping_down();
        b.after_arrival(SimTime(100 * MS), 4500);
        b.at_transmission_start(SimTime(700 * MS), 1000);
        b.at_transmission_start(SimTime(900 * MS), 0);
        assert_eq!(b.rate_at(SimTime(10_000 * MS)).bits_per_sec, 128_000);
        b.before_arrival(SimTime(1100 * MS), None);
        assert_eq!(b.rate_at(SimTime(999 * MS)).bits_per_sec, 128_000);
        assert_eq!(b.rate_at(SimTime(1000 * MS)).bits_per_sec, 64_000);
        assert_eq!(b.switches(), (1, 1));
    }

    #[test]
    fn an_arrival_that_fills_the_buffer_restarts_the_step_down() {
        // Low from 700 ms; an arrival at 900 ms leaves 1500 bytes (not fewer): nothing at 1000 ms. Low
        // again from 1300 ms: the step down comes at 1600 ms.
        let mut b = stepping_down();
        b.after_arrival(SimTime(100 * MS), 4500);
        b.at_transmission_start(SimTime(700 * MS), 1000);
        b.after_arrival(SimTime(900 * MS), 1500);
        b.before_arrival(SimTime(1200 * MS), None);
        assert_eq!(b.rate_at(SimTime(1200 * MS)).bits_per_sec, 128_000);
        b.at_transmission_start(SimTime(1300 * MS), 0);
        b.before_arrival(SimTime(1700 * MS), None);
        assert_eq!(b.rate_at(SimTime(1599 * MS)).bits_per_sec, 128_000);
        assert_eq!(b.rate_at(SimTime(1600 * MS)).bits_per_sec, 64_000);
    }

    #[test]
    fn a_long_low_spell_steps_down_one_rate_per_delay_counted_from_the_last_switch() {
        // 128 kbit/s from 600 ms, 384 from 1100 ms (asked for at 600 ms). Low from 1200 ms: 128 at
        // max(1200, 1100) + 300 = 1500 ms, 64 at 1500 + 300 = 1800 ms, found together at 2000 ms.
        let mut b = stepping_down();
        b.after_arrival(SimTime(100 * MS), 4500);
        b.after_arrival(SimTime(600 * MS), 4500);
        b.at_transmission_start(SimTime(1200 * MS), 0);
        b.before_arrival(SimTime(2000 * MS), None);
        assert_eq!(b.rate_at(SimTime(1499 * MS)).bits_per_sec, 384_000);
        assert_eq!(b.rate_at(SimTime(1500 * MS)).bits_per_sec, 128_000);
        assert_eq!(b.rate_at(SimTime(1800 * MS)).bits_per_sec, 64_000);
        assert_eq!(b.switches(), (2, 2));
    }

    #[test]
    fn no_step_down_while_a_step_up_is_pending() {
        // Low from 200 ms while 128 kbit/s is pending for 600 ms: the time counts from that switch, the
        // step down is due at 600 + 300 = 900 ms (not at 500): still 128 at 700 ms, 64 from 900 ms.
        let mut b = stepping_down();
        b.after_arrival(SimTime(100 * MS), 4500);
        b.at_transmission_start(SimTime(200 * MS), 0);
        b.before_arrival(SimTime(700 * MS), None);
        assert_eq!(b.rate_at(SimTime(700 * MS)).bits_per_sec, 128_000);
        b.before_arrival(SimTime(1000 * MS), None);
        assert_eq!(b.rate_at(SimTime(899 * MS)).bits_per_sec, 128_000);
        assert_eq!(b.rate_at(SimTime(900 * MS)).bits_per_sec, 64_000);
    }

    #[test]
    fn parameters_are_checked() {
        let p = |rates: Vec<u64>| BearerParams { rates_bps: rates, ..bearer().params };
        assert!(Bearer::new(p(vec![])).is_err());
        assert!(Bearer::new(p(vec![0, 64_000])).is_err());
        assert!(Bearer::new(p(vec![128_000, 64_000])).is_err());
        assert!(Bearer::new(p(vec![384_000])).is_ok());
        // The step down's threshold: 1 byte to up_queue_bytes (3000).
        let down = |queue_bytes| BearerParams { down: Some(StepDown { queue_bytes, delay: SimDuration::ZERO }), ..bearer().params };
        assert!(Bearer::new(down(0)).is_err());
        assert!(Bearer::new(down(3001)).is_err());
        assert!(Bearer::new(down(3000)).is_ok());
    }
}
