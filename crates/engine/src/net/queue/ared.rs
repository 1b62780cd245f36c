//! Adaptive RED: RED (red.rs) whose max_p is steered so that the average queue stays in a target band
//! (Floyd, Gummadi & Shenker 2001, "Adaptive RED: An Algorithm for Increasing the Robustness of RED's
//! Active Queue Management"; ns-2.35 queue/red.cc `updateMaxP`, called from `estimator`).
//!
//! At an arrival, once more than `interval` has passed since max_p last changed (ns-2 `lastset`, which
//! only moves when max_p does), with the freshly updated average and
//! band = min_th + [0.4, 0.6] (max_th - min_th):
//! - avg below the band and max_p > bottom: max_p <- beta max_p (beta 0.9);
//! - avg above the band and max_p < top: max_p <- max_p + min(alpha, max_p / 4) (alpha 0.01).
//!
//! bottom and top are tested before the step, so max_p may end one step beyond them, as in ns-2 and the
//! paper's pseudo-code. The check rides on arrivals: no arrival, no change, exactly as ns-2.
//!
//! The `ared` discipline is RED with `adaptive` on. Variants:
//! - `ns2` (default): ns-2.35 `Queue/RED` with `adaptive_ 1`, every other default unchanged (mean packet
//!   size 500 bytes behind the automatic settings, w_q from the link delay, bytes, `use_mark_p_`, bottom
//!   min(0.01, 80000 / rate), the gentle slope fixed at the initial max_p).
//! - `floyd2001`: the paper's recipe: the automatic settings from the scenario's packet size,
//!   w_q = 1 - exp(-1/C) (a 1 s time constant; ns-2 `q_weight_ 0`, as ns-3's ARED mode), max_p kept
//!   within [0.01, 0.5], and ns-2 as of 2001 otherwise: queue and drops in packets (ns-2 changed
//!   `bytes_`/`queue_in_bytes_` to true in 2004), no `use_mark_p_` (added in 2005), the gentle slope from
//!   the current max_p.

use super::red::{RedConfig, PARAMS};
use super::registry::{Discipline, DisciplineInfo, QueueLimits};
use super::{LinkInfo, Queue};
use crate::config::ConfigError;
use crate::time::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};

/// The max_p controller of one RED queue.
pub struct MaxPAdapter {
    alpha: f64,
    beta: f64,
    interval: SimDuration,
    top: f64,
    bottom: f64,
    /// The target band of the average, in the queue's unit.
    band_low: f64,
    band_high: f64,
    /// When max_p last changed (ns-2 `lastset`, 0 at reset).
    last_set: SimTime,
}

impl MaxPAdapter {
    /// `min_th`, `max_th` in the queue's unit; `bottom` already resolved from its automatic value.
    pub fn new(cfg: &RedConfig, min_th: f64, max_th: f64, bottom: f64) -> Self {
        let part = 0.4 * (max_th - min_th);
        MaxPAdapter {
            alpha: cfg.alpha,
            beta: cfg.beta,
            interval: SimDuration(cfg.interval_ns),
            top: cfg.top,
            bottom,
            band_low: min_th + part,
            band_high: max_th - part,
            last_set: SimTime::ZERO,
        }
    }

    /// The new max_p after an arrival at `now` that brought the average to `avg`.
    pub fn update(&mut self, max_p: f64, avg: f64, now: SimTime) -> f64 {
        if now <= self.last_set + self.interval {
            return max_p;
        }
        if avg < self.band_low && max_p > self.bottom {
            self.last_set = now;
            max_p * self.beta
        } else if avg > self.band_high && max_p < self.top {
            self.last_set = now;
            max_p + self.alpha.min(0.25 * max_p)
        } else {
            max_p
        }
    }
}

/// `ared`: the RED parameters with other presets (see the module comment).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct AredConfig(pub RedConfig);

impl AredConfig {
    pub fn ns2() -> Self {
        AredConfig(RedConfig { adaptive: true, ..RedConfig::ns2() })
    }
    pub fn floyd2001() -> Self {
        AredConfig(RedConfig {
            mean_packet_size_bytes: 0,
            w_q: 0.0,
            queue_in_bytes: false,
            byte_mode: false,
            use_mark_p: false,
            bottom: 0.01,
            top: 0.5,
            gentle_follows_max_p: true,
            ..AredConfig::ns2().0
        })
    }
}

impl Discipline for AredConfig {
    const INFO: DisciplineInfo = DisciplineInfo {
        name: "ared",
        summary: "adaptive RED: RED whose max_p is adapted every 0.5 s to keep the average queue in a target band",
        default_variant: "ns2",
        variants: &[
            (
                "ns2",
                "ns-2.35 Queue/RED with adaptive_ 1 (queue/red.cc updateMaxP): other defaults as red/ns2, \
                 automatic settings from mean_pktsize_ 500",
            ),
            (
                "floyd2001",
                "Floyd, Gummadi & Shenker 2001: automatic settings from the real packet size, w_q = 1 - exp(-1/C), \
                 max_p in [0.01, 0.5], in packets, gentle slope from the adapted max_p",
            ),
        ],
        params: PARAMS,
    };
    fn variant(name: &str) -> Option<Self> {
        match name {
            "ns2" => Some(AredConfig::ns2()),
            "floyd2001" => Some(AredConfig::floyd2001()),
            _ => None,
        }
    }
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        self.0.check(field)
    }
    fn build(self, limits: QueueLimits, link: LinkInfo) -> Box<dyn Queue> {
        self.0.build(limits, link)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    /// min_th 5, max_th 15: band (9, 11); interval 0.5 s, alpha 0.01, beta 0.9, top 0.5.
    fn adapter(bottom: f64) -> MaxPAdapter {
        MaxPAdapter::new(&AredConfig::ns2().0, 5.0, 15.0, bottom)
    }

    /// max_p after an arrival every 0.1 s for `seconds`, starting from `max_p`, the average held at `avg`.
    fn held(a: &mut MaxPAdapter, mut max_p: f64, avg: f64, from_s: f64, seconds: u64) -> f64 {
        let start = (from_s * S as f64) as u64;
        for k in 1..=seconds * 10 {
            max_p = a.update(max_p, avg, SimTime(start + k * S / 10));
        }
        max_p
    }

    #[test]
    fn max_p_decreases_below_the_band_and_increases_above_it() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        // Average 6 (< 9) from 0.1 s to 2 s: steps at 0.6, 1.2, 1.8 s (each the first arrival more than
        // 0.5 s after the last step): 0.1 x 0.9^3 = 0.0729.
        let mut a = adapter(0.001);
        let p = held(&mut a, 0.1, 6.0, 0.0, 2);
        assert!(close(p, 0.0729), "{p}");
        // Then average 12 (> 11) for 2 s, arrivals at 2.1 ... 4.0 s: steps at 2.4 (more than 0.5 s after
        // 1.8), 3.0, 3.6 s, each + min(0.01, max_p/4) = 0.01: 0.1029.
        let p = held(&mut a, p, 12.0, 2.0, 2);
        assert!(close(p, 0.1029), "{p}");
        // In the band (10) from 4.1 to 5 s: unchanged, and the last step stays at 3.6 s, so leaving the
        // band at 5.05 s moves max_p at once.
        let p = held(&mut a, p, 10.0, 4.0, 1);
        assert!(close(p, 0.1029));
        assert!(close(a.update(p, 12.0, SimTime(5 * S + S / 20)), 0.1129));
    }

    #[test]
    fn alpha_is_capped_at_a_quarter_of_max_p() {
        // max_p 0.02: + min(0.01, 0.005) = 0.025, then + 0.00625 = 0.03125.
        let mut a = adapter(0.001);
        let p = a.update(0.02, 12.0, SimTime(S));
        assert!((p - 0.025).abs() < 1e-15);
        let p = a.update(p, 12.0, SimTime(2 * S));
        assert!((p - 0.03125).abs() < 1e-15);
    }

    #[test]
    fn bottom_and_top_stop_the_steps_one_step_past_them() {
        // Seed 003's bottom 0.001: from 0.00105, one step to 0.000945 (0.00105 > bottom), then none.
        let mut a = adapter(0.001);
        let p = held(&mut a, 0.00105, 6.0, 0.0, 5);
        assert!((p - 0.000945).abs() < 1e-15, "{p}");
        // top 0.5: from 0.495, one step to 0.505, then none.
        let mut a = adapter(0.001);
        let p = held(&mut a, 0.495, 12.0, 0.0, 5);
        assert!((p - 0.505).abs() < 1e-15, "{p}");
    }
}
