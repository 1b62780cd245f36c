//! Seeded randomness owned by the simulation.
//!
//! Every random draw comes from a `SimRng` derived from the run seed and a stream label, so adding a new
//! random consumer never shifts the draws of the existing ones, and results are bit-identical across
//! machines: only integer operations and one exact int-to-float conversion are used.

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Cloned only by tests that need to look ahead in a stream without consuming it.
#[cfg_attr(test, derive(Clone))]
pub struct SimRng(Xoshiro256PlusPlus);

/// SplitMix64 step (Steele, Lea, Flood 2014): mixes the seed and stream label into a well-spread state.
fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

impl SimRng {
    /// A generator for one independent stream (`stream` names the consumer, e.g. a link index).
    pub fn new(seed: u64, stream: u64) -> Self {
        let s = splitmix64(seed ^ splitmix64(stream.wrapping_add(0x5EED)));
        SimRng(Xoshiro256PlusPlus::seed_from_u64(s))
    }
    /// Uniform in [0, 1) with 53 bits of precision.
    pub fn uniform(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    /// True with probability `p`.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
    /// A whole number in [0, max]: one draw modulo max + 1 (bias below max / 2^64), or the draw itself when
    /// max + 1 would not fit a u64 (a jitter of u64::MAX ns overflowed here: found by
    /// tests/config_fuzz.rs).
    pub fn up_to(&mut self, max: u64) -> u64 {
        match max.checked_add(1) {
            Some(n) => self.next_u64() % n,
            None => self.next_u64(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_same_draws() {
        let mut a = SimRng::new(7, 1);
        let mut b = SimRng::new(7, 1);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn streams_and_seeds_differ() {
        let a: Vec<u64> = (0..4).map({ let mut r = SimRng::new(7, 1); move |_| r.next_u64() }).collect();
        let b: Vec<u64> = (0..4).map({ let mut r = SimRng::new(7, 2); move |_| r.next_u64() }).collect();
        let c: Vec<u64> = (0..4).map({ let mut r = SimRng::new(8, 1); move |_| r.next_u64() }).collect();
        assert_ne!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn up_to_is_the_draw_modulo_max_plus_one_and_takes_the_whole_range() {
        // Same stream, same draw: up_to(9) is that draw mod 10; up_to(u64::MAX) is the draw itself.
        let draw = SimRng::new(3, 4).next_u64();
        assert_eq!(SimRng::new(3, 4).up_to(9), draw % 10);
        assert_eq!(SimRng::new(3, 4).up_to(u64::MAX), draw);
        assert_eq!(SimRng::new(3, 4).up_to(0), 0);
    }

    #[test]
    fn bernoulli_frequency_is_close_to_p() {
        let mut r = SimRng::new(1, 0);
        let hits = (0..100_000).filter(|_| r.bernoulli(0.1)).count();
        // Binomial sd = sqrt(1e5 * 0.09) ~ 95; 5 sd either side.
        assert!((9_525..=10_475).contains(&hits), "{hits}");
    }
}
