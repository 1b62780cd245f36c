//! Random loss of packets on a link: independent (Bernoulli) or bursty (Gilbert-Elliott).
//!
//! Gilbert-Elliott (E. N. Gilbert, "Capacity of a burst-noise channel", Bell Syst. Tech. J. 39, 1960;
//! E. O. Elliott, "Estimates of error rates for codes on burst-noise channels", ibid. 42, 1963): a
//! two-state Markov chain, Good and Bad, each with its own loss probability. Here the chain steps once
//! per packet, not per unit of time: each packet is lost with the probability of the current state, then
//! the state moves (Good -> Bad with `p_good_to_bad`, Bad -> Good with `p_bad_to_good`), as Linux netem's
//! `gemodel` does. The stationary share of Bad is pi_bad = p_gb / (p_gb + p_bg), the mean loss
//! pi_good x loss_good + pi_bad x loss_bad, and a Bad period lasts 1 / p_bg packets on average.
//! Per-packet steps make burst lengths a count of packets: at a lower packet rate the same chain gives
//! longer bad periods in seconds. A per-time chain (fades of a fixed duration, whatever the traffic)
//! would need the time since the last packet; it is not what the usual parameter sets assume. The chain
//! starts in Good.

use crate::rng::SimRng;

#[derive(Copy, Clone, Debug, PartialEq)]
pub enum LossModel {
    /// Each packet lost independently with this probability.
    Bernoulli(f64),
    GilbertElliott { p_good_to_bad: f64, p_bad_to_good: f64, loss_good: f64, loss_bad: f64 },
}

impl LossModel {
    /// Every probability in [0, 1].
    pub fn validate(&self) -> Result<(), String> {
        let check = |name: &str, p: f64| {
            if (0.0..=1.0).contains(&p) {
                Ok(())
            } else {
                Err(format!("{name} = {p} is not a probability in [0, 1]"))
            }
        };
        match *self {
            LossModel::Bernoulli(p) => check("loss probability", p),
            LossModel::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad } => {
                check("p_good_to_bad", p_good_to_bad)?;
                check("p_bad_to_good", p_bad_to_good)?;
                check("loss_good", loss_good)?;
                check("loss_bad", loss_bad)
            }
        }
    }

    /// Long-run fraction of packets lost. A chain that never leaves Good (both transitions 0) loses
    /// `loss_good`.
    pub fn mean_loss(&self) -> f64 {
        match *self {
            LossModel::Bernoulli(p) => p,
            LossModel::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad } => {
                let moves = p_good_to_bad + p_bad_to_good;
                if moves == 0.0 {
                    return loss_good;
                }
                let pi_bad = p_good_to_bad / moves;
                (1.0 - pi_bad) * loss_good + pi_bad * loss_bad
            }
        }
    }
}

/// A loss model with its state and its random stream.
pub struct LossProcess {
    model: LossModel,
    bad: bool,
    rng: SimRng,
}

impl LossProcess {
    pub fn new(model: LossModel, rng: SimRng) -> Self {
        LossProcess { model, bad: false, rng }
    }
    pub fn model(&self) -> LossModel {
        self.model
    }
    pub fn in_bad_state(&self) -> bool {
        self.bad
    }
    /// Is the next packet lost? Bernoulli draws exactly as `SimRng::bernoulli(p)`, so a link's
    /// `with_loss(Bernoulli(p), rng)` drops the same packets as `with_packet_errors(p, rng)`.
    pub fn lose(&mut self) -> bool {
        match self.model {
            LossModel::Bernoulli(p) => self.rng.bernoulli(p),
            LossModel::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad } => {
                let lost = self.rng.bernoulli(if self.bad { loss_bad } else { loss_good });
                let leave = if self.bad { p_bad_to_good } else { p_good_to_bad };
                if self.rng.bernoulli(leave) {
                    self.bad = !self.bad;
                }
                lost
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bernoulli_draws_like_the_packet_error_rate() {
        let mut a = LossProcess::new(LossModel::Bernoulli(0.3), SimRng::new(5, 9));
        let mut b = SimRng::new(5, 9);
        for _ in 0..1_000 {
            assert_eq!(a.lose(), b.bernoulli(0.3));
        }
    }

    #[test]
    fn gilbert_elliott_mean_loss_is_the_stationary_mix() {
        // p_gb = 0.01, p_bg = 0.1: pi_bad = 0.01 / 0.11 = 1/11. loss_good = 0.001, loss_bad = 0.5:
        // mean = 10/11 x 0.001 + 1/11 x 0.5 = 0.01/11 + 0.5/11 = 0.51/11 = 0.046364.
        let model = LossModel::GilbertElliott { p_good_to_bad: 0.01, p_bad_to_good: 0.1, loss_good: 0.001, loss_bad: 0.5 };
        assert!((model.mean_loss() - 0.51 / 11.0).abs() < 1e-12);
        let mut process = LossProcess::new(model, SimRng::new(1, 2));
        let n = 1_000_000;
        let (mut lost, mut bad) = (0u64, 0u64);
        for _ in 0..n {
            bad += process.in_bad_state() as u64;
            lost += process.lose() as u64;
        }
        // Tolerance: the states are correlated, so the binomial sd understates the spread. For a two-state
        // chain the share of Bad over n steps has variance pi_bad pi_good (1 + l) / (1 - l) / n, with
        // l = 1 - p_gb - p_bg = 0.89: (1/11)(10/11)(1.89 / 0.11) / 1e6 = 1.42e-6, sd 0.00119. The loss
        // count adds the draws' own variance, E[p(1 - p)] = 10/11 x 0.000999 + 1/11 x 0.25 = 0.0236 per
        // packet: var(loss rate) = 0.499^2 x 1.42e-6 + 0.0236 / 1e6 = 3.78e-7, sd 0.000615. Five sd: 0.0031
        // on the mean loss 0.0464 and 0.006 on pi_bad = 0.0909. (Starting in Good biases by ~1/(0.11 n).)
        let mean = lost as f64 / n as f64;
        let share_bad = bad as f64 / n as f64;
        assert!((mean - model.mean_loss()).abs() < 0.0031, "mean loss {mean}");
        assert!((share_bad - 1.0 / 11.0).abs() < 0.006, "share of Bad {share_bad}");
    }

    #[test]
    fn gilbert_elliott_losses_come_in_bursts() {
        // Lossless Good, lossy Bad (loss_bad = 1), p_bg = 0.25: a Bad run lasts 1/0.25 = 4 packets on
        // average, so consecutive losses are 4 on average (geometric); an independent model with the
        // same mean loss would give runs of about 1.
        let model = LossModel::GilbertElliott { p_good_to_bad: 0.05, p_bad_to_good: 0.25, loss_good: 0.0, loss_bad: 1.0 };
        let mut process = LossProcess::new(model, SimRng::new(3, 4));
        let (mut runs, mut lost, mut previous) = (0u64, 0u64, false);
        for _ in 0..200_000 {
            let l = process.lose();
            lost += l as u64;
            runs += (l && !previous) as u64;
            previous = l;
        }
        // pi_bad = 0.05 / 0.3 = 1/6: about 200000 / 6 / 4 = 8333 runs. A run's length is geometric, sd
        // sqrt(1 - 0.25) / 0.25 = 3.46; the mean of 8333 has sd 3.46 / 91.3 = 0.038: 4 +- 0.2 is 5 sd.
        let mean_run = lost as f64 / runs as f64;
        assert!((mean_run - 4.0).abs() < 0.2, "mean burst {mean_run}");
    }

    #[test]
    fn validation_rejects_non_probabilities() {
        assert!(LossModel::Bernoulli(1.5).validate().is_err());
        let ge = LossModel::GilbertElliott { p_good_to_bad: 0.1, p_bad_to_good: -0.1, loss_good: 0.0, loss_bad: 1.0 };
        assert!(ge.validate().unwrap_err().starts_with("p_bad_to_good"));
        assert!(LossModel::Bernoulli(0.0).validate().is_ok());
    }
}
