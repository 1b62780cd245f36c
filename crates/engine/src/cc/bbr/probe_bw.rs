//! PROBE_BW: cycle the pacing gain through `pacing_gain_cycle` = [5/4, 3/4, 1, 1, 1, 1, 1, 1], about one
//! RTprop per phase, with cwnd gain 2 (Cardwell et al. 2016, "ProbeBW"; Linux `bbr_update_cycle_phase`).
//! - The 5/4 phase probes for more bandwidth: it lasts at least RTprop, and until the in-flight data
//!   reaches 5/4 BDP or a loss occurs.
//! - The 3/4 phase drains the queue the probe made: it ends after RTprop or as soon as in-flight <= BDP.
//! - Unity phases last RTprop.
//! The cycle starts at a random phase other than 3/4 (Linux `bbr_reset_probe_bw_mode`:
//! cycle_idx = CYCLE_LEN - 1 - random(bbr_cycle_rand = 7), then advanced once), so flows do not probe in
//! step. The draw comes from the flow's seeded stream.

use super::{Bbr, Mode, BBR_UNIT};
use crate::cc::RateSample;

const CYCLE_LEN: usize = 8;
/// Linux `bbr_cycle_rand`: the start phase is drawn among this many.
const CYCLE_RAND: u64 = 7;

impl Bbr {
    /// Linux `bbr_reset_probe_bw_mode`.
    pub(super) fn enter_probe_bw(&mut self) {
        self.mode = Mode::ProbeBw;
        // prandom_u32_max(7): the top 32 bits of a draw scaled to [0, 7).
        let r = ((self.rng.next_u64() >> 32) * CYCLE_RAND) >> 32;
        self.cycle_index = CYCLE_LEN - 1 - r as usize;
        self.advance_cycle_phase();
    }

    fn advance_cycle_phase(&mut self) {
        self.cycle_index = (self.cycle_index + 1) % CYCLE_LEN;
        self.cycle_stamp = self.delivered_time;
    }

    /// Linux `bbr_update_cycle_phase` / `bbr_is_next_cycle_phase`; `prior_in_flight` is the in-flight
    /// count before this ACK (`rs->prior_in_flight` in 4.9).
    pub(super) fn update_cycle_phase(&mut self, prior_in_flight: u32, rs: &RateSample) {
        if self.mode != Mode::ProbeBw {
            return;
        }
        let min_rtt = self.min_rtt.map_or(0, |r| r.as_nanos());
        let is_full_length = self.delivered_time.since(self.cycle_stamp).as_nanos() > min_rtt;
        let gain = self.pacing_gain;
        let next = if gain == BBR_UNIT {
            is_full_length
        } else if gain > BBR_UNIT {
            is_full_length && (rs.losses > 0 || prior_in_flight >= self.inflight(self.max_bw(), gain))
        } else {
            is_full_length || prior_in_flight <= self.inflight(self.max_bw(), BBR_UNIT)
        };
        if next {
            self.advance_cycle_phase();
        }
    }
}
