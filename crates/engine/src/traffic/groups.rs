//! Figures of a group of flows (a name given in the scenario: "background", "long-lived"), kept in
//! memory that does not grow with the number of flows: counts, bytes, and completion times in a
//! log-linear histogram.

use crate::time::SimDuration;

/// Sub-buckets per power of two: a recorded time is known to within 1/128 of itself, and a percentile,
/// reported at its bucket's middle, to within 1/256 (0.4 %).
const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS;

/// Completion times, ns, in buckets of width 2^(e - 7) between 2^e and 2^(e + 1) (HdrHistogram's layout
/// with 7 bits of precision); times below 128 ns are exact. 58 * 128 buckets cover all of u64.
#[derive(Clone, Debug, Default)]
pub struct CompletionHistogram {
    counts: Vec<u64>,
    total: u64,
    sum_ns: u128,
}

impl CompletionHistogram {
    fn bucket(ns: u64) -> usize {
        if ns < SUB {
            return ns as usize;
        }
        let e = 63 - ns.leading_zeros(); // 2^e <= ns, e >= 7
        let mantissa = (ns >> (e - SUB_BITS)) & (SUB - 1);
        ((e - SUB_BITS + 1) as u64 * SUB + mantissa) as usize
    }

    /// The middle of bucket `b`, ns.
    fn middle(b: usize) -> f64 {
        let b = b as u64;
        if b < SUB {
            return b as f64;
        }
        let e = (b / SUB) as u32 + SUB_BITS - 1;
        let width = 1u64 << (e - SUB_BITS);
        let low = (SUB + b % SUB) << (e - SUB_BITS);
        low as f64 + (width - 1) as f64 / 2.0
    }

    pub fn record(&mut self, time: SimDuration) {
        let b = Self::bucket(time.0);
        if self.counts.len() <= b {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
        self.total += 1;
        self.sum_ns += time.0 as u128;
    }

    pub fn count(&self) -> u64 {
        self.total
    }

    pub fn mean_ns(&self) -> Option<f64> {
        (self.total > 0).then(|| self.sum_ns as f64 / self.total as f64)
    }

    /// The q-quantile (0 < q <= 1), ns: the smallest recorded time with at least ceil(q * n) at or below it,
    /// to the middle of its bucket.
    pub fn quantile_ns(&self, q: f64) -> Option<f64> {
        if self.total == 0 {
            return None;
        }
        let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some(Self::middle(b));
            }
        }
        unreachable!("rank <= total")
    }
}

/// A group's running figures.
#[derive(Clone, Debug, Default)]
pub struct GroupStats {
    pub name: String,
    /// The capacity its share is measured against: the slowest link on its data route, bit/s.
    pub capacity_bps: u64,
    /// Flows opened (a group's static flows count from the start of the run).
    pub created: u64,
    /// Transfers whose last byte was acknowledged.
    pub completed: u64,
    /// Completion times of transfers completed in the measurement window.
    pub completion: CompletionHistogram,
    /// Payload bytes delivered by connections whose slot was given back.
    pub retired_bytes: u64,
    /// Payload bytes delivered by the group at the start of the measurement window.
    pub bytes_at_measure: u64,
    /// Transfers completed before the measurement window.
    pub completed_at_measure: u64,
    /// Connections a source could not open because every flow slot was taken.
    pub refused: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_exact_below_128_ns_and_within_1_in_128_above() {
        let mut h = CompletionHistogram::default();
        h.record(SimDuration(100));
        assert_eq!(h.quantile_ns(1.0), Some(100.0));
        // 210.928 ms = 210,928,000 ns lies in [2^27, 2^28): buckets 2^20 ns = 1.048576 ms wide. Its bucket
        // starts at floor(210,928,000 / 2^20) * 2^20 = 201 * 1,048,576 = 210,763,776 ns; middle
        // 210,763,776 + (1,048,576 - 1) / 2 = 211,288,063.5 ns.
        let mut h = CompletionHistogram::default();
        h.record(SimDuration(210_928_000));
        assert_eq!(h.quantile_ns(0.5), Some(211_288_063.5));
        assert_eq!(h.mean_ns(), Some(210_928_000.0));
    }

    #[test]
    fn quantiles_take_the_ceiling_rank() {
        // 1..=100 ns, exact buckets: the median is the 50th value, the 99th percentile the 99th.
        let mut h = CompletionHistogram::default();
        for ns in 1..=100 {
            h.record(SimDuration(ns));
        }
        assert_eq!(h.quantile_ns(0.5), Some(50.0));
        assert_eq!(h.quantile_ns(0.99), Some(99.0));
        assert_eq!(h.quantile_ns(1.0), Some(100.0));
        assert_eq!(h.count(), 100);
    }

    #[test]
    fn the_largest_time_has_a_bucket() {
        let mut h = CompletionHistogram::default();
        h.record(SimDuration(u64::MAX));
        assert!(h.quantile_ns(1.0).unwrap() > 1.8e19);
    }
}
