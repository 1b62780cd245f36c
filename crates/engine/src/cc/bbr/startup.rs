//! STARTUP: pacing and cwnd gain `high_gain` (2/ln2 ~ 2.885, Linux 739/256), the smallest gain that lets
//! the sending rate double every round while the delivery rate keeps up (Cardwell et al. 2016, "Startup").
//! The pipe is full once BtlBw has grown less than 25 % (`full_bw_threshold`) over 3 consecutive
//! non-app-limited rounds (`full_bw_rounds`; Linux `bbr_check_full_bw_reached`).

use super::{Bbr, BBR_SCALE};
use crate::cc::RateSample;

impl Bbr {
    /// Linux `bbr_check_full_bw_reached`, once per round.
    pub(super) fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let threshold = (self.full_bw as u128 * self.cfg.full_bw_threshold as u128 >> BBR_SCALE) as u64;
        if self.max_bw() >= threshold {
            // Still growing: remember this bandwidth and start counting again.
            self.full_bw = self.max_bw();
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_reached = self.full_bw_count >= self.cfg.full_bw_rounds;
    }
}
