//! A log-linear histogram of durations in integer nanoseconds, in memory bounded whatever the number of
//! values recorded: HdrHistogram's layout, a power of two split into `2^SUB_BITS` equal buckets, so a value
//! is known to within `2^-SUB_BITS` of itself. Two users: transfer completion times (`traffic/groups.rs`,
//! 7 bits) and every RTT measurement of a flow (`tcp/sender.rs`, 6 bits, `run.rtt_histogram`).

use crate::time::SimDuration;

/// Durations, ns, in buckets of width 2^(e - SUB_BITS) between 2^e and 2^(e + 1); values below 2^SUB_BITS ns
/// have a bucket each. (65 - SUB_BITS) * 2^SUB_BITS buckets cover all of u64; the vector holds the buckets
/// up to the largest value recorded (for SUB_BITS = 6 and values up to 1000 s = 2^39.9 ns: 2229 buckets,
/// 18 KB), however many values.
#[derive(Clone, Debug, Default)]
pub struct LogHistogram<const SUB_BITS: u32> {
    counts: Vec<u64>,
    total: u64,
    sum_ns: u128,
    /// The smallest and largest value recorded, ns (exact: they tighten the outer buckets' bounds).
    min_ns: u64,
    max_ns: u64,
}

/// One bucket with values: every value counted in it lies in [low_ns, high_ns] (both inclusive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bucket {
    pub low_ns: u64,
    pub high_ns: u64,
    pub count: u64,
}

impl<const SUB_BITS: u32> LogHistogram<SUB_BITS> {
    const SUB: u64 = 1 << SUB_BITS;

    fn bucket(ns: u64) -> usize {
        if ns < Self::SUB {
            return ns as usize;
        }
        let e = 63 - ns.leading_zeros(); // 2^e <= ns, e >= SUB_BITS
        let mantissa = (ns >> (e - SUB_BITS)) & (Self::SUB - 1);
        ((e - SUB_BITS + 1) as u64 * Self::SUB + mantissa) as usize
    }

    /// The smallest and largest value bucket `b` holds, ns, both inclusive.
    fn bounds(b: usize) -> (u64, u64) {
        let b = b as u64;
        if b < Self::SUB {
            return (b, b);
        }
        let e = (b / Self::SUB) as u32 + SUB_BITS - 1;
        let low = (Self::SUB + b % Self::SUB) << (e - SUB_BITS);
        (low, low + ((1u64 << (e - SUB_BITS)) - 1))
    }

    /// The middle of bucket `b`, ns.
    fn middle(b: usize) -> f64 {
        let (low, high) = Self::bounds(b);
        low as f64 + (high - low) as f64 / 2.0
    }

    pub fn record(&mut self, value: SimDuration) {
        let ns = value.0;
        let b = Self::bucket(ns);
        if self.counts.len() <= b {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
        if self.total == 0 {
            (self.min_ns, self.max_ns) = (ns, ns);
        } else {
            self.min_ns = self.min_ns.min(ns);
            self.max_ns = self.max_ns.max(ns);
        }
        self.total += 1;
        self.sum_ns += ns as u128;
    }

    /// Forget every value (a measurement window starts); the buckets' memory is kept.
    pub fn clear(&mut self) {
        self.counts.fill(0);
        self.total = 0;
        self.sum_ns = 0;
    }

    pub fn count(&self) -> u64 {
        self.total
    }

    pub fn mean_ns(&self) -> Option<f64> {
        (self.total > 0).then(|| self.sum_ns as f64 / self.total as f64)
    }

    /// The q-quantile (0 < q <= 1), ns: the smallest recorded value with at least ceil(q * n) at or below
    /// it, to the middle of its bucket.
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

    /// The buckets with values, smallest first; the first one's low bound is the smallest value recorded
    /// and the last one's high bound the largest (exact), the others are the buckets' own bounds.
    pub fn buckets(&self) -> Vec<Bucket> {
        let mut out: Vec<Bucket> = self
            .counts
            .iter()
            .enumerate()
            .filter(|&(_, &count)| count > 0)
            .map(|(b, &count)| {
                let (low_ns, high_ns) = Self::bounds(b);
                Bucket { low_ns, high_ns, count }
            })
            .collect();
        if let Some(first) = out.first_mut() {
            first.low_ns = self.min_ns;
        }
        if let Some(last) = out.last_mut() {
            last.high_ns = self.max_ns;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Completion = LogHistogram<7>;
    type Rtt = LogHistogram<6>;

    #[test]
    fn seven_bits_are_exact_below_128_ns_and_within_1_in_128_above() {
        let mut h = Completion::default();
        h.record(SimDuration(100));
        assert_eq!(h.quantile_ns(1.0), Some(100.0));
        // 210.928 ms = 210,928,000 ns lies in [2^27, 2^28): buckets 2^20 ns = 1.048576 ms wide. Its bucket
        // starts at floor(210,928,000 / 2^20) * 2^20 = 201 * 1,048,576 = 210,763,776 ns; middle
        // 210,763,776 + (1,048,576 - 1) / 2 = 211,288,063.5 ns.
        let mut h = Completion::default();
        h.record(SimDuration(210_928_000));
        assert_eq!(h.quantile_ns(0.5), Some(211_288_063.5));
        assert_eq!(h.mean_ns(), Some(210_928_000.0));
    }

    #[test]
    fn six_bits_put_1_ms_and_300_ms_in_the_buckets_worked_out_by_hand() {
        // 1 ms = 1,000,000 ns: 2^19 = 524,288 <= it < 2^20, so e = 19 and buckets are 2^(19-6) = 8192 ns
        // wide. floor(1,000,000 / 8192) = 122 = 64 + 58: bucket (19 - 6 + 1) * 64 + 58 = 954, holding
        // 122 * 8192 = 999,424 to 999,424 + 8191 = 1,007,615 ns.
        assert_eq!(Rtt::bucket(1_000_000), 954);
        assert_eq!(Rtt::bounds(954), (999_424, 1_007_615));
        // 300 ms: 2^28 = 268,435,456 <= it < 2^29, width 2^22 = 4,194,304 ns; floor(3e8 / 4,194,304) = 71
        // = 64 + 7: bucket 23 * 64 + 7 = 1479, from 71 * 4,194,304 = 297,795,584 to 301,989,887 ns. The
        // width is 1.4 % of the value (at most 1/64 = 1.56 % just above a power of two).
        assert_eq!(Rtt::bucket(300_000_000), 1479);
        assert_eq!(Rtt::bounds(1479), (297_795_584, 301_989_887));
        // Exact below 64 ns, and 64 ns opens bucket 64 (e = 6, width 1): no gap, no overlap.
        assert_eq!((Rtt::bucket(63), Rtt::bounds(63)), (63, (63, 63)));
        assert_eq!((Rtt::bucket(64), Rtt::bounds(64)), (64, (64, 64)));
        // 1000 s = 10^12 ns: 2^39 <= it < 2^40, floor(10^12 / 2^33) = 116 = 64 + 52: bucket 34 * 64 + 52.
        assert_eq!(Rtt::bucket(1_000_000_000_000), 34 * 64 + 52);
        // The largest u64 is in the last bucket, (65 - 6) * 64 - 1 = 3775, which ends at u64::MAX.
        assert_eq!(Rtt::bucket(u64::MAX), 3775);
        assert_eq!(Rtt::bounds(3775).1, u64::MAX);
    }

    #[test]
    fn buckets_are_reported_with_the_exact_extremes() {
        // 1.000 ms and 1.002 ms share bucket 954 [999,424, 1,007,615]; 300 ms is alone in bucket 1479.
        let mut h = Rtt::default();
        for ns in [1_002_000, 300_000_000, 1_000_000] {
            h.record(SimDuration(ns));
        }
        assert_eq!(
            h.buckets(),
            vec![
                Bucket { low_ns: 1_000_000, high_ns: 1_007_615, count: 2 },
                Bucket { low_ns: 297_795_584, high_ns: 300_000_000, count: 1 },
            ]
        );
        assert_eq!(h.count(), 3);
        h.clear();
        assert_eq!((h.count(), h.buckets(), h.mean_ns()), (0, vec![], None));
        // After a clear the extremes are those of the new values only.
        h.record(SimDuration(5));
        assert_eq!(h.buckets(), vec![Bucket { low_ns: 5, high_ns: 5, count: 1 }]);
    }

    #[test]
    fn quantiles_take_the_ceiling_rank() {
        // 1..=100 ns: exact buckets with 7 bits (the median is the 50th value, the 99th percentile the 99th).
        let mut h = Completion::default();
        for ns in 1..=100 {
            h.record(SimDuration(ns));
        }
        assert_eq!(h.quantile_ns(0.5), Some(50.0));
        assert_eq!(h.quantile_ns(0.99), Some(99.0));
        assert_eq!(h.quantile_ns(1.0), Some(100.0));
        assert_eq!(h.count(), 100);
        // With 6 bits, 64..=100 ns are still exact (width 2^(6-6) = 1): the same answers.
        let mut h = Rtt::default();
        for ns in 1..=100 {
            h.record(SimDuration(ns));
        }
        assert_eq!((h.quantile_ns(0.5), h.quantile_ns(0.99)), (Some(50.0), Some(99.0)));
    }

    #[test]
    fn the_largest_time_has_a_bucket() {
        let mut h = Completion::default();
        h.record(SimDuration(u64::MAX));
        assert!(h.quantile_ns(1.0).unwrap() > 1.8e19);
    }
}
