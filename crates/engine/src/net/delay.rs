//! The propagation delay model of a link: a constant, or a schedule of delays over time (a route change,
//! a satellite hand-over, a cellular bearer switch).
//!
//! A packet keeps the delay in force when its transmission ends: packets already on the wire keep the
//! delay they left with. A decrease of the delay must still never let a packet overtake one sent earlier
//! on the same link (the wire is FIFO: a newer packet cannot pass an older one on the same medium), so
//! arrival = max(done + delay(done), last arrival on this link). After a drop from 100 ms to 10 ms the
//! packets sent just after the change bunch up behind the last ones sent before it, and arrive with them.

use super::capacity::validate_steps;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Delay {
    Constant(SimDuration),
    Schedule(DelaySchedule),
}

impl Delay {
    /// The delay a packet whose transmission ends at `t` propagates with.
    pub fn at(&self, t: SimTime) -> SimDuration {
        match self {
            Delay::Constant(d) => *d,
            Delay::Schedule(s) => s.at(t),
        }
    }
}

/// Piecewise-constant delay: `steps[i] = (from, delay)` holds from `from` until the next step's time; the
/// last delay holds for ever. The first step is at time 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DelaySchedule {
    steps: Vec<(SimTime, SimDuration)>,
}

impl DelaySchedule {
    /// Steps in increasing time order, the first at time 0.
    pub fn new(steps: Vec<(SimTime, SimDuration)>) -> Result<Self, String> {
        validate_steps(&steps)?;
        Ok(DelaySchedule { steps })
    }
    pub fn steps(&self) -> &[(SimTime, SimDuration)] {
        &self.steps
    }
    pub fn at(&self, t: SimTime) -> SimDuration {
        self.steps[self.steps.partition_point(|&(from, _)| from <= t) - 1].1
    }
}

/// The wire of one link: its delay model and the last arrival, which keeps it FIFO.
#[derive(Clone, Debug)]
pub struct Propagation {
    delay: Delay,
    last_arrival: SimTime,
}

impl Propagation {
    pub fn new(delay: Delay) -> Self {
        Propagation { delay, last_arrival: SimTime::ZERO }
    }
    pub fn delay(&self) -> &Delay {
        &self.delay
    }
    /// Arrival at the far end of a packet that left the transmitter at `sent` (calls in sending order).
    pub fn arrival(&mut self, sent: SimTime) -> SimTime {
        let arrival = (sent + self.delay.at(sent)).max(self.last_arrival);
        self.last_arrival = arrival;
        arrival
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn a_delay_decrease_never_reorders_the_wire() {
        // 100 ms until 50 ms, then 10 ms. Packets leave every 10 ms from 0 to 140 ms.
        //   sent 0, 10, 20, 30, 40 ms: delay 100 ms -> arrive 100, 110, 120, 130, 140 ms;
        //   sent 50, 60, ..., 120 ms: + 10 ms = 60 ... 130 ms would overtake: held to 140 ms;
        //   sent 130 ms: 140 ms (a tie, not an overtaking); sent 140 ms: 150 ms.
        let mut wire = Propagation::new(Delay::Schedule(
            DelaySchedule::new(vec![(SimTime::ZERO, SimDuration::from_millis(100)), (SimTime(50 * MS), SimDuration::from_millis(10))])
                .unwrap(),
        ));
        let arrivals: Vec<u64> = (0..=14).map(|i| wire.arrival(SimTime(i * 10 * MS)).0 / MS).collect();
        assert_eq!(arrivals, vec![100, 110, 120, 130, 140, 140, 140, 140, 140, 140, 140, 140, 140, 140, 150]);
    }

    #[test]
    fn packets_on_the_wire_keep_the_delay_they_left_with() {
        // 10 ms until 50 ms, then 100 ms: a packet sent at 49 ms arrives at 59 ms, before the change has
        // any effect on it; one sent at 50 ms exactly takes the new delay: 150 ms.
        let mut wire = Propagation::new(Delay::Schedule(
            DelaySchedule::new(vec![(SimTime::ZERO, SimDuration::from_millis(10)), (SimTime(50 * MS), SimDuration::from_millis(100))])
                .unwrap(),
        ));
        assert_eq!(wire.arrival(SimTime(49 * MS)), SimTime(59 * MS));
        assert_eq!(wire.arrival(SimTime(50 * MS)), SimTime(150 * MS));
    }

    #[test]
    fn constant_delay_adds_the_delay() {
        let mut wire = Propagation::new(Delay::Constant(SimDuration::from_millis(7)));
        assert_eq!(wire.arrival(SimTime(3)), SimTime(7 * MS + 3));
    }

    #[test]
    fn schedule_is_validated() {
        assert!(DelaySchedule::new(vec![]).is_err());
        assert!(DelaySchedule::new(vec![(SimTime(5), SimDuration::ZERO)]).is_err());
    }
}
