//! Outages of a radio link that do not depend on its load: the transmitter delivers nothing for a while,
//! then resumes where it stopped. On a UMTS bearer such stalls come from RLC resets, cell reselection,
//! bearer reconfiguration and scheduling starvation; TCP sees them as delay spikes of up to several
//! seconds, a known cause of spurious timeouts (RFC 3481 §2.4; Ludwig et al., SIGMETRICS 1999, seed 002's
//! reference 10; the hypothesis of seed 002's Section 5).
//!
//! The process is an alternating renewal process on the simulation's clock, drawn from its own `SimRng`
//! stream: a gap (the time from the end of one outage to the start of the next), an outage, a gap, ...
//! With exponential gaps of mean 1/rate the outage onsets are (nearly) a Poisson process of that rate;
//! the durations follow any `Distribution`. The sequence is drawn in time order whatever the packets
//! do, so two runs with the same seed see the same outages whatever their traffic: independent of load.
//!
//! Effect on the transmitter (used by `net::link`, whatever the capacity model):
//! - a packet that may start during an outage starts when it ends;
//! - a transmission under way when an outage begins is suspended and finishes after it, later by the
//!   outage's duration (the bits not yet sent wait), once per outage that begins before it finishes.
//! Packets behind it wait in the buffer, which may overflow: an outage costs capacity and queue, as a
//! stalled bearer does. For a constant rate this is exact; for a trace the packet is served from the
//! opportunities at or after its (shifted) start and the suspension is then added, an approximation
//! (a trace has its own outages; combining both is rarely wanted).

use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};
use crate::traffic::dist::Distribution;

/// What the outages did, cumulative over the instants the link asked about.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct OutageCounters {
    /// Outages drawn so far (including the one in progress or next, once drawn).
    pub outages: u64,
    /// Sum of their durations, ns.
    pub outage_ns: u128,
}

pub struct OutageProcess {
    /// Time from the end of one outage to the start of the next, ns.
    gap: Distribution,
    /// Length of one outage, ns.
    duration: Distribution,
    rng: SimRng,
    /// The first outage that has not ended before the last instant asked about: [start, end).
    start: SimTime,
    end: SimTime,
    counters: OutageCounters,
}

impl OutageProcess {
    /// `gap` and `duration` draw whole nanoseconds. The first outage starts one gap after time 0.
    pub fn new(gap: Distribution, duration: Distribution, rng: SimRng) -> Result<Self, String> {
        gap.validate().map_err(|m| format!("gap: {m}"))?;
        duration.validate().map_err(|m| format!("duration: {m}"))?;
        if gap.mean() <= 0.0 {
            return Err("gap: the mean time between outages must be above 0".to_string());
        }
        let mut process =
            OutageProcess { gap, duration, rng, start: SimTime::ZERO, end: SimTime::ZERO, counters: OutageCounters::default() };
        process.draw_next();
        Ok(process)
    }

    pub fn counters(&self) -> OutageCounters {
        self.counters
    }

    /// Draw the outage after the current one: a gap from the current end, then a duration.
    fn draw_next(&mut self) {
        let gap = self.gap.draw(&mut self.rng);
        let duration = self.duration.draw(&mut self.rng);
        self.start = self.end + SimDuration(gap);
        self.end = self.start + SimDuration(duration);
        self.counters.outages += 1;
        self.counters.outage_ns += duration as u128;
    }

    /// Skip the outages that ended at or before `t`.
    fn advance_to(&mut self, t: SimTime) {
        while self.end <= t {
            self.draw_next();
        }
    }

    /// The earliest instant at or after `t` outside an outage. Calls with non-decreasing `t`.
    pub fn clear_at(&mut self, t: SimTime) -> SimTime {
        self.advance_to(t);
        if self.start <= t {
            self.end
        } else {
            t
        }
    }

    /// A transmission starting at `start` (outside an outage, from `clear_at`) would end at `done`
    /// without outages: when it ends with them. Each outage that begins before the transmission ends
    /// pushes the end back by its duration.
    pub fn stretch(&mut self, start: SimTime, mut done: SimTime) -> SimTime {
        self.advance_to(start);
        debug_assert!(self.start > start || self.end <= start, "stretch called at an instant inside an outage");
        while self.start < done {
            done = done + self.end.since(self.start);
            self.draw_next();
        }
        done
    }

    /// The outages from the current one to the last starting before `t1`, as (start, end), without
    /// changing the process: draws from a copy of the stream.
    #[cfg(test)]
    fn peek_intervals(&self, t1: SimTime) -> Vec<(SimTime, SimTime)> {
        let mut copy = OutageProcess {
            gap: self.gap.clone(),
            duration: self.duration.clone(),
            rng: self.rng.clone(),
            start: self.start,
            end: self.end,
            counters: self.counters,
        };
        let mut out = Vec::new();
        while copy.start < t1 {
            out.push((copy.start, copy.end));
            copy.draw_next();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;
    const S: u64 = 1_000_000_000;

    fn fixed(gap_ms: u64, duration_ms: u64) -> OutageProcess {
        OutageProcess::new(Distribution::Fixed(gap_ms * MS), Distribution::Fixed(duration_ms * MS), SimRng::new(1, 1)).unwrap()
    }

    #[test]
    fn fixed_gaps_and_durations_alternate() {
        // Gap 100 ms, outage 50 ms: outages [100, 150), [250, 300), [400, 450) ms.
        let p = fixed(100, 50);
        let got: Vec<(u64, u64)> = p.peek_intervals(SimTime(450 * MS)).iter().map(|&(a, b)| (a.0 / MS, b.0 / MS)).collect();
        assert_eq!(got, vec![(100, 150), (250, 300), (400, 450)]);
    }

    #[test]
    fn a_start_inside_an_outage_waits_for_its_end() {
        // Outages [100, 150), [250, 300) ms. 99 ms is clear; 100 and 149 ms wait to 150; 150 is clear
        // (the outage is half-open); 260 ms waits to 300.
        let mut p = fixed(100, 50);
        let at = |p: &mut OutageProcess, ms: u64| p.clear_at(SimTime(ms * MS)).0 / MS;
        assert_eq!(at(&mut p, 99), 99);
        assert_eq!(at(&mut p, 100), 150);
        assert_eq!(at(&mut p, 149), 150);
        assert_eq!(at(&mut p, 150), 150);
        assert_eq!(at(&mut p, 260), 300);
    }

    #[test]
    fn a_transmission_under_way_is_suspended_for_each_outage_it_meets() {
        // Outages [100, 150), [250, 300), [400, 450) ms.
        //   start 90, 20 ms long: would end at 110, suspended 50 ms -> 160.
        //   start 160, 100 ms long: would end at 260; [250, 300) begins before: 310; nothing in (260, 310)
        //     other than that one, next outage at 400 -> 310.
        //   start 300, 120 ms long: would end at 420; [400, 450) pushes it to 470.
        //   start 150, 0 ms long (ends at its start, 150 <= 250): 150.
        let mut p = fixed(100, 50);
        let mut run = |start: u64, len: u64| p.stretch(SimTime(start * MS), SimTime((start + len) * MS)).0 / MS;
        assert_eq!(run(90, 20), 160);
        assert_eq!(run(160, 100), 310);
        assert_eq!(run(300, 120), 470);
        let mut q = fixed(100, 50);
        assert_eq!(q.stretch(SimTime(150 * MS), SimTime(150 * MS)), SimTime(150 * MS));
        // A long transmission meets two outages: start 0, 300 ms -> [100,150) +50 -> 350, [250,300) +50
        // -> 400, [400,450) begins at 400, not before the end: 400.
        let mut r = fixed(100, 50);
        assert_eq!(r.stretch(SimTime::ZERO, SimTime(300 * MS)), SimTime(400 * MS));
    }

    #[test]
    fn rate_and_duration_statistics_follow_the_configuration() {
        // Exponential gaps of mean 20 s, exponential durations of mean 2 s: the cycle averages 22 s, so
        // over 10^6 s of simulated time n ~ 45455 outages, sd of the count sqrt(n) x (cv of the cycle)
        // <= sqrt(45455) ~ 213 (renewal CLT: var(N) ~ t var(cycle) / E[cycle]^3 = 10^6 x 404 / 22^3 =
        // 37940, sd 195). The mean duration is 2 s with sd 2 / sqrt(45455) = 9.4 ms; the fraction of
        // time in outage is 2 / 22 = 9.09 %. Bounds: 5 sd on the count and on the mean duration; the
        // fraction within 0.3 points (the count's 5 sd, 4.3 %, plus the duration's, 2.4 %, relative).
        let mut p = OutageProcess::new(Distribution::Exponential(20.0 * S as f64), Distribution::Exponential(2.0 * S as f64), SimRng::new(7, 3))
            .unwrap();
        let horizon = SimTime(1_000_000 * S);
        let intervals = p.peek_intervals(horizon);
        let n = intervals.len() as f64;
        assert!((n - 45_455.0).abs() < 5.0 * 195.0, "{n} outages");
        let total: f64 = intervals.iter().map(|&(a, b)| b.since(a).0 as f64).sum();
        let mean_duration = total / n / S as f64;
        assert!((mean_duration - 2.0).abs() < 5.0 * 0.0094, "mean duration {mean_duration} s");
        let fraction = total / horizon.0 as f64;
        assert!((fraction - 2.0 / 22.0).abs() < 0.003, "fraction in outage {fraction}");
        // Memoryless durations: P(D > 4 s) = e^-2 = 0.1353, binomial sd sqrt(0.1353 x 0.8647 / n) = 0.0016.
        let long = intervals.iter().filter(|&&(a, b)| b.since(a).0 > 4 * S).count() as f64 / n;
        assert!((long - 0.1353).abs() < 5.0 * 0.0016, "P(D > 4 s) = {long}");
        // The process the link uses sees exactly these outages: a start in each one waits to its end.
        for &(a, b) in intervals.iter().take(1000) {
            if b > a {
                assert_eq!(p.clear_at(a), b);
            }
        }
    }

    #[test]
    fn the_same_seed_draws_the_same_outages_whatever_is_asked() {
        // Independent of load: asking at many instants or at few does not change the sequence.
        let make = || OutageProcess::new(Distribution::Exponential(1e9), Distribution::Lognormal { mean: 3e8, sigma: 1.0 }, SimRng::new(5, 9)).unwrap();
        let reference = make().peek_intervals(SimTime(100 * S));
        let mut busy = make();
        for i in 0..10_000u64 {
            busy.clear_at(SimTime(i * 10 * MS));
        }
        let mut after = make();
        after.clear_at(SimTime(50 * S));
        // The outage each is at next is the reference's first one not yet over at its last question.
        assert_eq!(busy.peek_intervals(SimTime(100 * S)).first(), reference.iter().find(|&&(_, b)| b > SimTime(100 * S - 10 * MS)));
        assert_eq!(after.peek_intervals(SimTime(100 * S)).first(), reference.iter().find(|&&(_, b)| b > SimTime(50 * S)));
    }

    #[test]
    fn bad_distributions_are_refused() {
        assert!(OutageProcess::new(Distribution::Fixed(0), Distribution::Fixed(1), SimRng::new(1, 1)).is_err());
        assert!(OutageProcess::new(Distribution::Exponential(-1.0), Distribution::Fixed(1), SimRng::new(1, 1)).is_err());
        assert!(OutageProcess::new(Distribution::Fixed(1), Distribution::Uniform([5, 1]), SimRng::new(1, 1)).is_err());
    }
}
