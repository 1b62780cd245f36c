//! Simulated time: integer nanoseconds, never floating point inside the engine.
//!
//! `SimTime` is an instant since the start of the run, `SimDuration` a span. Keeping them distinct types
//! catches "instant + instant" at compile time; conversions to seconds exist only for reporting.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant of simulated time, in nanoseconds since the start of the run.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

/// A span of simulated time, in nanoseconds.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimDuration(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    /// Time elapsed since `earlier`, zero if `earlier` is later (saturating, never wraps).
    pub fn since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }
}

impl SimDuration {
    pub const ZERO: SimDuration = SimDuration(0);

    pub const fn from_nanos(ns: u64) -> Self {
        SimDuration(ns)
    }
    pub const fn from_micros(us: u64) -> Self {
        SimDuration(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimDuration(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimDuration(s * 1_000_000_000)
    }
    pub fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    pub fn saturating_mul(self, k: u64) -> Self {
        SimDuration(self.0.saturating_mul(k))
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}
impl AddAssign<SimDuration> for SimTime {
    fn add_assign(&mut self, d: SimDuration) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Add for SimDuration {
    type Output = SimDuration;
    fn add(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(d.0))
    }
}
impl Sub for SimDuration {
    type Output = SimDuration;
    fn sub(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_sub(d.0))
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}

/// A link rate in bits per second.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rate {
    pub bits_per_sec: u64,
}

impl Rate {
    pub fn from_bps(bits_per_sec: u64) -> Self {
        Rate { bits_per_sec }
    }
    /// Serialisation time of `bytes` at this rate, rounded up to the next nanosecond so that a busy link
    /// never transmits faster than its rate.
    pub fn tx_time(self, bytes: u32) -> SimDuration {
        // bytes <= 2^32 so bytes * 8e9 < 2^66 would overflow only past 2.3 GB packets; sizes are u32 but
        // the config caps packets at 65535 bytes, so u64 is exact here (u128 division is 5% of a run).
        let bits = bytes as u64 * 8 * 1_000_000_000;
        SimDuration(bits.div_ceil(self.bits_per_sec))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_of_a_1500_byte_packet_at_200_mbps_is_60_us() {
        // 1500 B * 8 = 12000 bit; 12000 / 200e6 = 60 us exactly.
        assert_eq!(Rate::from_bps(200_000_000).tx_time(1500), SimDuration::from_micros(60));
    }

    #[test]
    fn tx_time_rounds_up() {
        // 40 B = 320 bit at 3 bit/s = 106.67 s -> rounded up to the next ns.
        assert_eq!(Rate::from_bps(3).tx_time(40).as_nanos(), 106_666_666_667);
    }

    #[test]
    fn since_saturates() {
        assert_eq!(SimTime(5).since(SimTime(9)), SimDuration::ZERO);
        assert_eq!(SimTime(9).since(SimTime(5)), SimDuration(4));
    }
}
