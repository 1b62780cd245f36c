//! DRAIN: once the pipe is full, pace at `drain_gain` (1/2.885, Linux 88/256) to empty the queue STARTUP
//! built, keeping cwnd gain `high_gain`, until the packets in flight fit the estimated BDP (plus the
//! quantization budget); then PROBE_BW (Cardwell et al. 2016, "Drain"; Linux `bbr_check_drain`).

use super::{Bbr, Mode, BBR_UNIT};

impl Bbr {
    /// Linux `bbr_check_drain`, with `in_flight` after this ACK.
    pub(super) fn check_drain(&mut self, in_flight: u32) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            // Linux reports the BDP as ssthresh from here on (tcp_info); nothing reads it.
            self.ssthresh = self.inflight(self.max_bw(), BBR_UNIT);
        }
        if self.mode == Mode::Drain && in_flight <= self.inflight(self.max_bw(), BBR_UNIT) {
            self.enter_probe_bw();
        }
    }
}
