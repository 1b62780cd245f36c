//! The transmitter's rate model: how long a packet takes to leave the link, given when it may start.
//!
//! - `Capacity::Constant`: a fixed rate, `start + size / rate` (what every link had before).
//! - `Capacity::Trace`: a Mahimahi packet-delivery trace (`mm-link`, Netravali et al., USENIX ATC 2015;
//!   semantics read from `src/frontend/link_queue.cc`): a list of instants at which the link may deliver
//!   a fixed number of bytes.
//! - `Capacity::Schedule`: a piecewise-constant rate (times and rates), rate 0 meaning an outage.
//! - `Capacity::Bearer`: a rate that follows the demand, switched as the link's buffer fills and empties
//!   (`net::bearer`; the link tells it about arrivals).
//!
//! The one question a link asks, `transmission_done(start, size)`, must be put in the order in which the
//! packets are transmitted (non-decreasing `start`). A DropTail link asks it when the packet arrives,
//! because DropTail only drops on arrival and so the packet's turn at the transmitter is already known:
//! the start-time fast path of `net::link` works unchanged with any of these models.

use crate::net::bearer::Bearer;
use crate::time::{Rate, SimDuration, SimTime};
use std::path::Path;
use std::sync::Arc;

const NS_PER_SEC: u128 = 1_000_000_000;
const NS_PER_MS: u64 = 1_000_000;

/// Bytes one line of a trace may deliver. Mahimahi's `PACKET_SIZE` is 1504; the traces we ship were
/// recorded as one 1500-byte packet per line (data/cellular-traces/README.md), which is what their mean
/// rates assume.
pub const DEFAULT_BYTES_PER_OPPORTUNITY: u32 = 1500;

/// How the link's transmitter serves bits over time.
#[derive(Clone, Debug)]
pub enum Capacity {
    Constant(Rate),
    Trace(MahimahiTrace),
    Schedule(RateSchedule),
    Bearer(Bearer),
}

impl Capacity {
    /// A packet of `size` bytes may start its transmission at `start` (it has reached the head of the
    /// queue and the transmitter is free): when has its last bit left? Calls must come in transmission
    /// order; a trace remembers which delivery opportunities are spent.
    pub fn transmission_done(&mut self, start: SimTime, size: u32) -> SimTime {
        match self {
            Capacity::Constant(rate) => start + rate.tx_time(size),
            Capacity::Trace(trace) => trace.transmission_done(start, size),
            Capacity::Schedule(schedule) => schedule.transmission_done(start, size),
            Capacity::Bearer(bearer) => bearer.transmission_done(start, size),
        }
    }

    /// Bits the transmitter could have sent over [t0, t1): the denominator of the link's utilisation. For
    /// a trace, the opportunities in the window times their size, used or not.
    pub fn bits_between(&self, t0: SimTime, t1: SimTime) -> u64 {
        match self {
            Capacity::Constant(rate) => constant_bits_between(*rate, t0, t1),
            Capacity::Trace(trace) => trace.bits_between(t0, t1),
            Capacity::Schedule(schedule) => schedule.bits_between(t0, t1),
            Capacity::Bearer(bearer) => bearer.bits_between(t0, t1),
        }
    }

    /// Mean rate in bit/s: the rate itself, a trace's mean over one loop, or a schedule's mean over the
    /// span it describes (see `RateSchedule::mean_rate_bps`), or a bearer's highest rate (its nominal
    /// one; what it offers depends on the load). For reports and for the queue's `LinkInfo`.
    pub fn mean_rate_bps(&self) -> u64 {
        match self {
            Capacity::Constant(rate) => rate.bits_per_sec,
            Capacity::Trace(trace) => trace.mean_rate_bps(),
            Capacity::Schedule(schedule) => schedule.mean_rate_bps(),
            Capacity::Bearer(bearer) => bearer.peak_rate_bps(),
        }
    }
}

/// `rate * (t1 - t0)` in bits, rounded down.
pub fn constant_bits_between(rate: Rate, t0: SimTime, t1: SimTime) -> u64 {
    let bit_ns = rate.bits_per_sec as u128 * t1.since(t0).0 as u128;
    (bit_ns / NS_PER_SEC).min(u64::MAX as u128) as u64
}

/// A Mahimahi delivery trace and the transmitter's position in it.
///
/// Each line of the file is a time in milliseconds: one *delivery opportunity*, at which the link may
/// deliver `bytes_per_opportunity` bytes. A time repeated k times is k opportunities in that millisecond;
/// the single line "1" is one 1500-byte packet per millisecond, 12 Mbit/s. The trace loops with a period
/// equal to its last time stamp (Mahimahi's `base_timestamp_ += schedule_.back()` at wrap-around), so a
/// stamp 0 of the next loop falls on the same instant as the last stamp of the previous one.
///
/// Service follows Mahimahi's `LinkQueue::rationalize`:
/// - a packet uses only opportunities at or after the instant it may start (it reached the head of the
///   queue with the transmitter free);
/// - the bytes an opportunity has left after finishing a packet serve the next packet only if that one
///   was already waiting at that opportunity's instant; otherwise they are lost (no credit is saved);
/// - a packet larger than an opportunity takes several; it leaves at the instant of the last one;
/// - an opportunity nobody waits for is lost.
///
/// The instant "at or after" includes equality: a packet that may start exactly at an opportunity's
/// instant uses it. (Mahimahi works at millisecond resolution, where the order of an arrival and an
/// opportunity in the same millisecond depends on its event loop; our times are nanoseconds.)
///
/// Clones share the time stamps; give each link its own clone, taken before the run starts.
#[derive(Clone, Debug)]
pub struct MahimahiTrace {
    /// Opportunity instants within one loop, ns from the start of the loop, non-decreasing.
    stamps_ns: Arc<[u64]>,
    /// Loop period in ns: the last time stamp.
    period_ns: u64,
    /// Bits one opportunity may deliver (8 x `bytes_per_opportunity`, or the scaled value).
    bits_per_opportunity: u64,
    /// Index, counted over all loops, of the first opportunity neither used nor lost yet.
    next: u64,
    /// Bits left in the last opportunity used, and its instant.
    leftover_bits: u64,
    leftover_at: SimTime,
}

impl MahimahiTrace {
    /// Parse a trace: one non-negative integer (milliseconds) per line, never decreasing, the last one
    /// above 0 (it is the loop period). Surrounding spaces are ignored, and so are blank lines at the end
    /// of the text; a blank line before the last stamp is an error (as in Mahimahi).
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut stamps_ns = Vec::new();
        let mut previous_ms = 0u64;
        for (i, line) in text.trim_end().lines().enumerate() {
            let line_no = i + 1;
            let field = line.trim();
            let ms: u64 = field.parse().map_err(|_| {
                if field.is_empty() {
                    format!("line {line_no}: empty line (each line must hold one time stamp in ms)")
                } else {
                    format!("line {line_no}: {field:?} is not a whole number of milliseconds")
                }
            })?;
            if ms < previous_ms {
                return Err(format!(
                    "line {line_no}: time stamp {ms} ms is earlier than the one before it ({previous_ms} ms); \
                     time stamps must never decrease"
                ));
            }
            let ns = ms.checked_mul(NS_PER_MS).ok_or_else(|| format!("line {line_no}: time stamp {ms} ms is too large"))?;
            stamps_ns.push(ns);
            previous_ms = ms;
        }
        if stamps_ns.is_empty() {
            return Err("empty trace: no time stamps".to_string());
        }
        if previous_ms == 0 {
            return Err("the trace lasts 0 ms: its last time stamp is the loop period and must be above 0".to_string());
        }
        Ok(MahimahiTrace {
            period_ns: previous_ms * NS_PER_MS,
            stamps_ns: stamps_ns.into(),
            bits_per_opportunity: DEFAULT_BYTES_PER_OPPORTUNITY as u64 * 8,
            next: 0,
            leftover_bits: 0,
            leftover_at: SimTime::ZERO,
        })
    }

    /// Read and parse a trace file; errors name the file.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, String> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read the trace: {e}", path.display()))?;
        Self::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Bytes each opportunity may deliver (default 1500). Mahimahi's own value is 1504.
    pub fn with_bytes_per_opportunity(mut self, bytes: u32) -> Self {
        assert!(bytes > 0, "an opportunity must carry at least one byte");
        self.bits_per_opportunity = bytes as u64 * 8;
        self
    }

    /// The same trace delivering `mean_bps` on average: the bytes of each opportunity are scaled, the
    /// instants are kept. Keeping the instants keeps what makes a cellular trace what it is (when the
    /// link delivers, how long its outages last, how bursty it is, in seconds) and the loop period;
    /// thinning or stretching the time stamps instead would change outage durations and the trace's
    /// length. The price: below the trace's own rate a full-size packet needs several opportunities,
    /// which is what a slower link with the same scheduling pattern does. The size is kept in whole bits,
    /// so the mean is exact to within half a bit per opportunity (`mean_rate_bps` gives the result).
    pub fn scaled_to_mean(mut self, mean_bps: u64) -> Result<Self, String> {
        if mean_bps == 0 {
            return Err("a trace cannot be scaled to a mean rate of 0 bit/s".to_string());
        }
        // bits per opportunity = mean x period / opportunities per loop, rounded to the nearest bit.
        let numerator = mean_bps as u128 * self.period_ns as u128;
        let denominator = self.stamps_ns.len() as u128 * NS_PER_SEC;
        let bits = (numerator + denominator / 2) / denominator;
        if bits == 0 {
            return Err(format!("{mean_bps} bit/s is less than one bit per delivery opportunity of this trace"));
        }
        self.bits_per_opportunity = bits.min(u64::MAX as u128) as u64;
        Ok(self)
    }

    /// Mean rate over one loop, bit/s: opportunities x bits / period.
    pub fn mean_rate_bps(&self) -> u64 {
        let bits_per_loop = self.stamps_ns.len() as u128 * self.bits_per_opportunity as u128;
        ((bits_per_loop * NS_PER_SEC + self.period_ns as u128 / 2) / self.period_ns as u128).min(u64::MAX as u128) as u64
    }

    pub fn opportunities_per_loop(&self) -> usize {
        self.stamps_ns.len()
    }
    pub fn period(&self) -> SimDuration {
        SimDuration(self.period_ns)
    }
    pub fn bits_per_opportunity(&self) -> u64 {
        self.bits_per_opportunity
    }

    /// Instant of opportunity `n`, counted over all loops.
    fn opportunity_time(&self, n: u64) -> SimTime {
        let len = self.stamps_ns.len() as u64;
        SimTime((n / len).saturating_mul(self.period_ns).saturating_add(self.stamps_ns[(n % len) as usize]))
    }

    /// Index of the first opportunity at or after `t`. Instants never decrease with the index (the last
    /// stamp of a loop is the period, and the next loop's stamps are at least the period).
    fn first_at_or_after(&self, t: SimTime) -> u64 {
        let len = self.stamps_ns.len() as u64;
        let (loops, into_loop) = (t.0 / self.period_ns, t.0 % self.period_ns);
        if into_loop == 0 && loops > 0 {
            // The previous loop's stamps equal to the period fall exactly on t.
            return (loops - 1) * len + self.stamps_ns.partition_point(|&s| s < self.period_ns) as u64;
        }
        loops * len + self.stamps_ns.partition_point(|&s| s < into_loop) as u64
    }

    /// Opportunities with instants in [t0, t1).
    pub fn opportunities_between(&self, t0: SimTime, t1: SimTime) -> u64 {
        if t1 <= t0 {
            return 0;
        }
        self.first_at_or_after(t1) - self.first_at_or_after(t0)
    }

    /// Bits offered over [t0, t1): opportunities x bits per opportunity.
    pub fn bits_between(&self, t0: SimTime, t1: SimTime) -> u64 {
        self.opportunities_between(t0, t1).saturating_mul(self.bits_per_opportunity)
    }

    /// See `Capacity::transmission_done`.
    pub fn transmission_done(&mut self, start: SimTime, size: u32) -> SimTime {
        let mut need = size as u64 * 8;
        if self.leftover_bits > 0 {
            // What the last opportunity used has left serves this packet only if it was waiting then.
            if start <= self.leftover_at {
                let used = need.min(self.leftover_bits);
                need -= used;
                self.leftover_bits -= used;
                if need == 0 {
                    return self.leftover_at;
                }
            }
            self.leftover_bits = 0;
        }
        if need == 0 {
            return start;
        }
        // Opportunities before `start` went by unused.
        let first = if self.opportunity_time(self.next) >= start { self.next } else { self.first_at_or_after(start) };
        let opportunities = need.div_ceil(self.bits_per_opportunity);
        let last = first + opportunities - 1;
        self.next = last + 1;
        self.leftover_bits = opportunities * self.bits_per_opportunity - need;
        self.leftover_at = self.opportunity_time(last);
        self.leftover_at
    }
}

/// A piecewise-constant rate: `steps[i] = (from, rate)` holds from `from` until the next step's time; the
/// last rate holds for ever. The first step is at time 0. A rate of 0 is an outage: packets wait.
///
/// A rate change while a packet is being sent applies to the bits it has left: the bits sent before the
/// change went at the old rate, the rest go at the new one (a real modem's rate is per symbol; a packet
/// does not keep the rate it started with). Done times are exact in integer arithmetic and rounded up to
/// the nanosecond, like `Rate::tx_time`; with a single step they equal `start + rate.tx_time(size)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RateSchedule {
    steps: Vec<(SimTime, Rate)>,
}

impl RateSchedule {
    /// Steps in increasing time order, the first at time 0.
    pub fn new(steps: Vec<(SimTime, Rate)>) -> Result<Self, String> {
        validate_steps(&steps)?;
        Ok(RateSchedule { steps })
    }

    pub fn steps(&self) -> &[(SimTime, Rate)] {
        &self.steps
    }

    /// Index of the step in force at `t`.
    fn step_at(&self, t: SimTime) -> usize {
        self.steps.partition_point(|&(from, _)| from <= t) - 1
    }

    pub fn rate_at(&self, t: SimTime) -> Rate {
        self.steps[self.step_at(t)].1
    }

    /// See `Capacity::transmission_done`. Never done (`SimTime::MAX`) if the schedule ends in an outage.
    pub fn transmission_done(&self, start: SimTime, size: u32) -> SimTime {
        // Work left in bit x ns / s, so that a rate (bit/s) times a span (ns) subtracts exactly.
        let mut need = size as u128 * 8 * NS_PER_SEC;
        let mut t = start;
        for i in self.step_at(start).. {
            let rate = self.steps[i].1.bits_per_sec as u128;
            let end = self.steps.get(i + 1).map(|&(from, _)| from);
            if rate > 0 {
                let ns_left = need.div_ceil(rate);
                let done = SimTime(t.0.saturating_add(ns_left.min(u64::MAX as u128) as u64));
                if end.is_none_or(|end| done <= end) {
                    return done;
                }
            }
            let Some(end) = end else { return SimTime::MAX };
            need -= rate * end.since(t).0 as u128;
            t = end;
        }
        unreachable!("the last step holds for ever")
    }

    /// From `at` on the rate is `rate`: steps at or after `at` are dropped (they had not come into force
    /// for anything yet), and a step is added unless the rate in force already is `rate`. For models that
    /// decide their rate as the run goes (`net::bearer`).
    pub(crate) fn switch_at(&mut self, at: SimTime, rate: Rate) {
        let keep = self.steps.partition_point(|&(from, _)| from < at);
        self.steps.truncate(keep);
        if self.steps.last().is_none_or(|&(_, r)| r != rate) {
            self.steps.push((at, rate));
        }
    }

    /// Bits offered over [t0, t1), rounded down.
    pub fn bits_between(&self, t0: SimTime, t1: SimTime) -> u64 {
        if t1 <= t0 {
            return 0;
        }
        let mut bit_ns = 0u128;
        for i in self.step_at(t0)..self.steps.len() {
            let from = self.steps[i].0.max(t0);
            if from >= t1 {
                break;
            }
            let to = self.steps.get(i + 1).map_or(t1, |&(next, _)| next.min(t1));
            bit_ns += self.steps[i].1.bits_per_sec as u128 * to.since(from).0 as u128;
        }
        (bit_ns / NS_PER_SEC).min(u64::MAX as u128) as u64
    }

    /// Time-weighted mean rate over the span the schedule describes, [0, time of the last step); with a
    /// single step, its rate. The last rate holds for ever, so over a run much longer than that span it
    /// dominates: reports should divide `bits_between` over their window instead.
    pub fn mean_rate_bps(&self) -> u64 {
        let span = self.steps.last().expect("validated: not empty").0;
        if span == SimTime::ZERO {
            return self.steps[0].1.bits_per_sec;
        }
        let bits = self.bits_between(SimTime::ZERO, span) as u128;
        ((bits * NS_PER_SEC + span.0 as u128 / 2) / span.0 as u128) as u64
    }
}

/// Steps of a schedule: not empty, the first at time 0, times strictly increasing.
pub(crate) fn validate_steps<T>(steps: &[(SimTime, T)]) -> Result<(), String> {
    match steps.first() {
        None => return Err("a schedule needs at least one step".to_string()),
        Some((t, _)) if *t != SimTime::ZERO => {
            return Err(format!("a schedule's first step must be at time 0, not {t}"));
        }
        _ => {}
    }
    for (i, pair) in steps.windows(2).enumerate() {
        if pair[1].0 <= pair[0].0 {
            return Err(format!(
                "step {}: time {} is not after the previous step's time {}; times must increase",
                i + 1,
                pair[1].0,
                pair[0].0
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn trace(text: &str) -> MahimahiTrace {
        MahimahiTrace::parse(text).unwrap()
    }

    /// Serve packets of `size` bytes, each ready at the given instant (ns) or when the one before is done,
    /// as a FIFO transmitter does; returns the done times in ms (fractional ns would show as a mismatch).
    fn serve(trace: &mut MahimahiTrace, arrivals_ns: &[u64], size: u32) -> Vec<u64> {
        let mut busy_until = SimTime::ZERO;
        arrivals_ns
            .iter()
            .map(|&a| {
                let done = trace.transmission_done(SimTime(a).max(busy_until), size);
                busy_until = done;
                assert_eq!(done.0 % MS, 0, "a trace delivers on whole milliseconds");
                done.0 / MS
            })
            .collect()
    }

    #[test]
    fn a_saturating_stream_gets_exactly_the_opportunities_of_two_loops() {
        // Trace 2, 2, 5 (ms): period 5 ms, opportunities at 2, 2, 5 | 7, 7, 10 | 12, 12, 15 ... Twenty
        // 1500-byte packets all waiting at 0 take one opportunity each: the first six leave at 2, 2, 5, 7,
        // 7, 10 ms, the two loops' six opportunities; the next ones continue in the third loop.
        let mut t = trace("2\n2\n5\n");
        let done = serve(&mut t, &[0; 20], 1500);
        assert_eq!(&done[..6], &[2, 2, 5, 7, 7, 10]);
        assert_eq!(&done[6..9], &[12, 12, 15]);
        // Over [0, 10 ms] (t1 = 10 ms + 1 ns to include the opportunity at 10 ms) the link offered 6 x
        // 12000 bits, and 6 packets of 12000 bits left in it: utilisation exactly 1.
        let window_end = SimTime(10 * MS + 1);
        assert_eq!(t.bits_between(SimTime::ZERO, window_end), 6 * 12_000);
        assert_eq!(done.iter().filter(|&&d| d <= 10).count(), 6);
    }

    #[test]
    fn a_stamp_zero_shares_its_instant_with_the_previous_loops_last_stamp() {
        // Trace 0, 3: period 3 ms; opportunities at 0, 3 | 3, 6 | 6, 9 ...: two at 3 ms, two at 6 ms.
        let mut t = trace("0\n3");
        assert_eq!(serve(&mut t, &[0; 5], 1500), vec![0, 3, 3, 6, 6]);
        assert_eq!(t.opportunities_between(SimTime(3 * MS), SimTime(3 * MS + 1)), 2);
        assert_eq!(t.opportunities_between(SimTime::ZERO, SimTime(6 * MS)), 3);
    }

    #[test]
    fn opportunities_while_idle_are_lost_and_a_packet_between_them_waits_for_the_next() {
        // Trace "1": one opportunity per ms (12 Mbit/s). A packet at 0.5 ms waits for the one at 1 ms; the
        // link then idles: the opportunities at 2..=9 ms go by unused, and a packet arriving at 9.3 ms
        // leaves at 10 ms, not at 3 ms. One arriving exactly at 11 ms uses the opportunity at 11 ms.
        let mut t = trace("1");
        assert_eq!(serve(&mut t, &[MS / 2], 1500), vec![1]);
        assert_eq!(serve(&mut t, &[9 * MS + 3 * MS / 10], 1500), vec![10]);
        assert_eq!(serve(&mut t, &[11 * MS], 1500), vec![11]);
        assert_eq!(t.mean_rate_bps(), 12_000_000);
    }

    #[test]
    fn small_packets_share_an_opportunity_only_while_they_wait() {
        // Trace "1", 40-byte ACKs (320 bits) all waiting at 0.5 ms. One opportunity of 12000 bits carries
        // 37 of them (11840 bits) and 160 bits of the 38th, which takes the rest from the next
        // opportunity: 37 leave at 1 ms, the 38th at 2 ms.
        let mut t = trace("1");
        let done = serve(&mut t, &[MS / 2; 38], 40);
        assert!(done[..37].iter().all(|&d| d == 1));
        assert_eq!(done[37], 2);
        // The 2 ms opportunity has 12000 - 160 = 11840 bits left. An ACK arriving at 2 ms exactly was
        // waiting at that instant and uses them; one arriving 1 ns later does not: it waits for 3 ms.
        assert_eq!(serve(&mut t, &[2 * MS], 40), vec![2]);
        assert_eq!(serve(&mut t, &[2 * MS + 1], 40), vec![3]);
    }

    #[test]
    fn a_large_packet_takes_several_opportunities() {
        // 500 bytes per opportunity (4000 bits), trace "1": a 1500-byte packet (12000 bits) needs 3
        // opportunities and leaves at 3 ms, having used the 3 ms one up; the next, waiting since 0, takes
        // 4, 5, 6 ms and the third 7, 8, 9 ms. A 1000-byte packet (8000 bits) then takes 10 and 11 ms.
        let mut t = trace("1").with_bytes_per_opportunity(500);
        assert_eq!(serve(&mut t, &[0, 0, 0], 1500), vec![3, 6, 9]);
        assert_eq!(serve(&mut t, &[0], 1000), vec![11]);
        assert_eq!(t.mean_rate_bps(), 4_000_000);
    }

    #[test]
    fn scaling_keeps_the_instants_and_sets_the_mean() {
        // Trace 1, 1, 4: 3 opportunities per 4 ms of 12000 bits = 9 Mbit/s. Scaled to 3 Mbit/s: 4000 bits
        // per opportunity (3 x 4000 / 4 ms), so a 1500-byte packet takes 3 opportunities: the first
        // leaves at 4 ms (1, 1, 4), the second at 8 ms (5, 5, 8), the instants of the unscaled trace.
        let t = trace("1\n1\n4");
        assert_eq!(t.mean_rate_bps(), 9_000_000);
        let mut scaled = t.scaled_to_mean(3_000_000).unwrap();
        assert_eq!(scaled.bits_per_opportunity(), 4_000);
        assert_eq!(scaled.mean_rate_bps(), 3_000_000);
        assert_eq!(serve(&mut scaled, &[0, 0], 1500), vec![4, 8]);
        // 1 bit/s over 3 opportunities per 4 ms is 1/750 bit per opportunity: refused.
        assert!(trace("1\n1\n4").scaled_to_mean(1).is_err());
    }

    #[test]
    fn parser_errors_say_what_and_where() {
        assert_eq!(MahimahiTrace::parse("").unwrap_err(), "empty trace: no time stamps");
        assert_eq!(MahimahiTrace::parse(" \n\n").unwrap_err(), "empty trace: no time stamps");
        let e = MahimahiTrace::parse("1\n2\nabc\n4").unwrap_err();
        assert!(e.starts_with("line 3: \"abc\" is not a whole number"), "{e}");
        let e = MahimahiTrace::parse("1\n2.5").unwrap_err();
        assert!(e.starts_with("line 2: \"2.5\""), "{e}");
        let e = MahimahiTrace::parse("1\n-3").unwrap_err();
        assert!(e.starts_with("line 2:"), "{e}");
        let e = MahimahiTrace::parse("1\n\n2").unwrap_err();
        assert!(e.starts_with("line 2: empty line"), "{e}");
        let e = MahimahiTrace::parse("1\n5\n5\n4\n9").unwrap_err();
        assert!(e.starts_with("line 4: time stamp 4 ms is earlier than the one before it (5 ms)"), "{e}");
        let e = MahimahiTrace::parse("0\n0").unwrap_err();
        assert!(e.contains("lasts 0 ms"), "{e}");
        // Trailing blank lines, spaces and CRLF line ends are accepted.
        let t = MahimahiTrace::parse(" 1\r\n 3 \r\n\r\n").unwrap();
        assert_eq!((t.opportunities_per_loop(), t.period()), (2, SimDuration::from_millis(3)));
    }

    #[test]
    fn missing_file_is_named() {
        let e = MahimahiTrace::from_file("/nonexistent/cclab/trace.down").unwrap_err();
        assert!(e.starts_with("/nonexistent/cclab/trace.down: cannot read the trace"), "{e}");
    }

    #[test]
    fn file_parse_errors_name_the_file() {
        let path = std::env::temp_dir().join(format!("cclab-capacity-test-{}.trace", std::process::id()));
        std::fs::write(&path, "3\n1\n").unwrap();
        let e = MahimahiTrace::from_file(&path).unwrap_err();
        std::fs::remove_file(&path).unwrap();
        assert!(e.starts_with(&format!("{}: line 2: time stamp 1 ms", path.display())), "{e}");
    }

    #[test]
    fn schedule_departures_across_a_rate_change() {
        // 12 Mbit/s (1500 B = 1 ms) until 2.5 ms, then 6 Mbit/s (1500 B = 2 ms).
        let s = RateSchedule::new(vec![(SimTime::ZERO, Rate::from_bps(12_000_000)), (SimTime(2_500_000), Rate::from_bps(6_000_000))])
            .unwrap();
        let mut c = Capacity::Schedule(s);
        // Back to back from 0: 0-1, 1-2 ms at the old rate. The third starts at 2 ms: 0.5 ms at 12 Mbit/s
        // sends 6000 bits, the other 6000 bits take 1 ms at 6 Mbit/s: done at 3.5 ms. The fourth is all at
        // the new rate: 3.5 + 2 = 5.5 ms.
        let mut t = SimTime::ZERO;
        let mut done = vec![];
        for _ in 0..4 {
            t = c.transmission_done(t, 1500);
            done.push(t.0);
        }
        assert_eq!(done, vec![1_000_000, 2_000_000, 3_500_000, 5_500_000]);
        // Capacity over [2 ms, 4 ms): 0.5 ms x 12 Mbit/s + 1.5 ms x 6 Mbit/s = 6000 + 9000 bits.
        assert_eq!(c.bits_between(SimTime(2_000_000), SimTime(4_000_000)), 15_000);
        // Mean over the described span [0, 2.5 ms): 12 Mbit/s.
        assert_eq!(c.mean_rate_bps(), 12_000_000);
    }

    #[test]
    fn an_outage_holds_packets_until_the_rate_returns() {
        // 12 Mbit/s, outage from 1.5 ms to 10 ms, then 12 Mbit/s. A packet starting at 1 ms sends half its
        // bits before the outage and the other half from 10 ms: done at 10.5 ms. One starting inside the
        // outage leaves 1 ms after it ends.
        let s = RateSchedule::new(vec![
            (SimTime::ZERO, Rate::from_bps(12_000_000)),
            (SimTime(1_500_000), Rate::from_bps(0)),
            (SimTime(10_000_000), Rate::from_bps(12_000_000)),
        ])
        .unwrap();
        assert_eq!(s.transmission_done(SimTime(1_000_000), 1500), SimTime(10_500_000));
        assert_eq!(s.transmission_done(SimTime(5_000_000), 1500), SimTime(11_000_000));
        // Ending in an outage: never done.
        let down = RateSchedule::new(vec![(SimTime::ZERO, Rate::from_bps(12_000_000)), (SimTime(MS), Rate::from_bps(0))]).unwrap();
        assert_eq!(down.transmission_done(SimTime(MS / 2), 1500), SimTime::MAX);
        // Mean over [0, 10 ms): 1.5 ms at 12 Mbit/s = 18000 bits / 10 ms = 1.8 Mbit/s.
        assert_eq!(s.mean_rate_bps(), 1_800_000);
    }

    #[test]
    fn a_single_step_schedule_is_the_constant_rate() {
        // 200 Mbit/s: 60 us per 1500 B (time.rs); a 3-bit/s rate exercises the rounding up.
        for bps in [200_000_000, 3, 12_345_678] {
            let s = RateSchedule::new(vec![(SimTime::ZERO, Rate::from_bps(bps))]).unwrap();
            for size in [40, 1500] {
                let start = SimTime(1_234_567);
                assert_eq!(s.transmission_done(start, size), start + Rate::from_bps(bps).tx_time(size));
            }
        }
    }

    #[test]
    fn schedule_steps_are_validated() {
        let r = Rate::from_bps(1);
        assert!(RateSchedule::new(vec![]).is_err());
        assert!(RateSchedule::new(vec![(SimTime(1), r)]).unwrap_err().contains("time 0"));
        assert!(RateSchedule::new(vec![(SimTime(0), r), (SimTime(5), r), (SimTime(5), r)]).unwrap_err().starts_with("step 2"));
    }

    #[test]
    fn constant_capacity_offers_rate_times_time() {
        // 12 Mbit/s over 2.5 ms = 30000 bits.
        let c = Capacity::Constant(Rate::from_bps(12_000_000));
        assert_eq!(c.bits_between(SimTime(MS), SimTime(3 * MS + MS / 2)), 30_000);
    }
}
