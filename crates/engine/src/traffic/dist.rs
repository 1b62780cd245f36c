//! Random quantities a scenario draws: start times, durations, transfer sizes, inter-arrival times.
//!
//! One `Distribution` draws whole units (ns or bytes, as the caller means them) from a `SimRng` stream
//! handed in. Draws that need a logarithm or an exponential use Rust's `f64::ln`/`exp`/`powf` (the
//! platform's libm): bit-identical run to run on a machine, and across machines whose libm rounds the
//! same (glibc's are within 1 ulp; RED's `exp` in `net/queue/red.rs` has the same caveat).

use crate::rng::SimRng;
use serde::Deserialize;

/// As written in the engine config, e.g. `{"exponential": 2e10}`, `{"pareto": {"shape": 1.2, "mean": 5e4}}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum Distribution {
    /// Always this value.
    Fixed(u64),
    /// Uniform over the whole units of `[low, high]`, both included.
    Uniform([u64; 2]),
    /// Exponential with this mean: `-mean ln(1 - u)`.
    Exponential(f64),
    /// Pareto (type I) with shape `a > 1` and this mean; its scale (the smallest value) is
    /// `mean (a - 1) / a`, and a draw is `scale / (1 - u)^(1/a)` (ns-2 `ParetoRandomVariable`).
    Pareto { shape: f64, mean: f64 },
    /// exp(N(mu, sigma^2)) with mu chosen so the mean is `mean`: mu = ln(mean) - sigma^2 / 2.
    Lognormal { mean: f64, sigma: f64 },
    /// A piecewise-linear CDF through the points (values[i], cdf[i]), cdf increasing to 1 (ns-2
    /// `EmpiricalRandomVariable` with interpolation); below cdf[0] the draw is values[0].
    Empirical { values: Vec<f64>, cdf: Vec<f64> },
}

impl Distribution {
    /// Whether the parameters make a distribution (checked once, at build).
    pub fn validate(&self) -> Result<(), String> {
        match self {
            Distribution::Fixed(_) => Ok(()),
            Distribution::Uniform([low, high]) if low > high => Err(format!("uniform: {low} is above {high}")),
            Distribution::Uniform(_) => Ok(()),
            Distribution::Exponential(mean) if !(mean.is_finite() && *mean > 0.0) => {
                Err("exponential: the mean must be above 0".into())
            }
            Distribution::Exponential(_) => Ok(()),
            Distribution::Pareto { shape, mean } => {
                if !(shape.is_finite() && *shape > 1.0) {
                    return Err("pareto: the shape must be above 1 (at or below 1 the mean is infinite)".into());
                }
                if !(mean.is_finite() && *mean > 0.0) {
                    return Err("pareto: the mean must be above 0".into());
                }
                Ok(())
            }
            Distribution::Lognormal { mean, sigma } => {
                if !(mean.is_finite() && *mean > 0.0 && sigma.is_finite() && *sigma >= 0.0) {
                    return Err("lognormal: the mean must be above 0 and sigma at least 0".into());
                }
                Ok(())
            }
            Distribution::Empirical { values, cdf } => {
                if values.is_empty() || values.len() != cdf.len() {
                    return Err("empirical: values and cdf must be lists of the same, non-zero length".into());
                }
                if values.windows(2).any(|w| w[1] < w[0]) || values.iter().any(|v| !v.is_finite() || *v < 0.0) {
                    return Err("empirical: values must be finite, at least 0 and non-decreasing".into());
                }
                if cdf.windows(2).any(|w| w[1] < w[0]) || cdf[0] < 0.0 || *cdf.last().expect("non-empty") != 1.0 {
                    return Err("empirical: cdf must be non-decreasing from at least 0 and end at 1".into());
                }
                Ok(())
            }
        }
    }

    /// The distribution's mean, in its units (for an offered load: arrivals/s = load / mean size).
    pub fn mean(&self) -> f64 {
        match self {
            Distribution::Fixed(v) => *v as f64,
            Distribution::Uniform([low, high]) => (*low as f64 + *high as f64) / 2.0,
            Distribution::Exponential(mean) | Distribution::Pareto { mean, .. } | Distribution::Lognormal { mean, .. } => *mean,
            Distribution::Empirical { values, cdf } => {
                // Mass cdf[0] at values[0], then uniform within each segment.
                let mut mean = values[0] * cdf[0];
                for i in 1..values.len() {
                    mean += (cdf[i] - cdf[i - 1]) * (values[i] + values[i - 1]) / 2.0;
                }
                mean
            }
        }
    }

    /// One draw, rounded to whole units (half up).
    pub fn draw(&self, rng: &mut SimRng) -> u64 {
        match self {
            Distribution::Fixed(v) => *v,
            // Modulo bias below 2^-30 for spans under 2^34: irrelevant, and exact everywhere.
            Distribution::Uniform([low, high]) => match high - low {
                u64::MAX => rng.next_u64(),
                span => low + rng.next_u64() % (span + 1),
            },
            Distribution::Exponential(mean) => round(-mean * (1.0 - rng.uniform()).ln()),
            Distribution::Pareto { shape, mean } => {
                let scale = mean * (shape - 1.0) / shape;
                round(scale / (1.0 - rng.uniform()).powf(1.0 / shape))
            }
            Distribution::Lognormal { mean, sigma } => {
                // Box-Muller: one standard normal from two uniforms (the second of the pair is dropped,
                // so each draw takes exactly two numbers from the stream).
                let (u1, u2) = (1.0 - rng.uniform(), rng.uniform());
                let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                round((mean.ln() - sigma * sigma / 2.0 + sigma * z).exp())
            }
            Distribution::Empirical { values, cdf } => {
                let u = rng.uniform();
                let i = cdf.partition_point(|&c| c <= u);
                if i == 0 {
                    return round(values[0]);
                }
                let i = i.min(values.len() - 1);
                let (c0, c1) = (cdf[i - 1], cdf[i]);
                let t = if c1 > c0 { (u - c0) / (c1 - c0) } else { 0.0 };
                round(values[i - 1] + t * (values[i] - values[i - 1]))
            }
        }
    }
}

fn round(x: f64) -> u64 {
    // `as` saturates: an enormous draw becomes u64::MAX, never wraps.
    (x + 0.5) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_mean(d: &Distribution, n: usize) -> f64 {
        let mut rng = SimRng::new(11, 0);
        (0..n).map(|_| d.draw(&mut rng) as f64).sum::<f64>() / n as f64
    }

    #[test]
    fn fixed_and_uniform_stay_in_range() {
        let mut rng = SimRng::new(1, 0);
        assert_eq!(Distribution::Fixed(7).draw(&mut rng), 7);
        let u = Distribution::Uniform([10, 12]);
        let draws: Vec<u64> = (0..300).map(|_| u.draw(&mut rng)).collect();
        assert!(draws.iter().all(|d| (10..=12).contains(d)));
        for v in 10..=12 {
            assert!(draws.contains(&v), "{v} never drawn");
        }
    }

    #[test]
    fn sample_means_match_the_means() {
        // 200,000 draws: the standard error of the mean is sd / 447. Exponential: sd = mean, so 5 standard
        // errors are 1.1 % of the mean. Lognormal sigma 1: sd = mean sqrt(e - 1) = 1.31 mean: 1.5 %.
        // Pareto shape 2.5: sd = mean / sqrt(a (a - 2)) = 0.89 mean: 1 %.
        let n = 200_000;
        for (d, tol) in [
            (Distribution::Exponential(1e6), 0.011),
            (Distribution::Lognormal { mean: 1e6, sigma: 1.0 }, 0.015),
            (Distribution::Pareto { shape: 2.5, mean: 1e6 }, 0.01),
        ] {
            let m = sample_mean(&d, n);
            assert!((m / d.mean() - 1.0).abs() < tol, "{d:?}: sample mean {m}");
        }
    }

    #[test]
    fn pareto_never_draws_below_its_scale() {
        // Shape 1.2, mean 12,000: scale = 12,000 * 0.2 / 1.2 = 2,000.
        let d = Distribution::Pareto { shape: 1.2, mean: 12_000.0 };
        let mut rng = SimRng::new(3, 0);
        assert!((0..10_000).all(|_| d.draw(&mut rng) >= 2_000));
    }

    #[test]
    fn empirical_interpolates_its_cdf() {
        // Half the mass at 100, the other half uniform over [100, 300]: mean = 0.5 * 100 + 0.5 * 200 = 150.
        let d = Distribution::Empirical { values: vec![100.0, 300.0], cdf: vec![0.5, 1.0] };
        assert_eq!(d.mean(), 150.0);
        let mut rng = SimRng::new(5, 0);
        let draws: Vec<u64> = (0..20_000).map(|_| d.draw(&mut rng)).collect();
        let at_100 = draws.iter().filter(|&&v| v == 100).count() as f64 / draws.len() as f64;
        // Binomial sd at p = 0.5, n = 20,000: 0.0035; 5 sd = 0.018.
        assert!((at_100 - 0.5).abs() < 0.018, "{at_100}");
        assert!(draws.iter().all(|v| (100..=300).contains(v)));
    }

    #[test]
    fn bad_parameters_are_refused() {
        assert!(Distribution::Pareto { shape: 1.0, mean: 5.0 }.validate().is_err());
        assert!(Distribution::Exponential(0.0).validate().is_err());
        assert!(Distribution::Uniform([5, 4]).validate().is_err());
        assert!(Distribution::Empirical { values: vec![1.0, 2.0], cdf: vec![0.2, 0.9] }.validate().is_err());
    }
}
