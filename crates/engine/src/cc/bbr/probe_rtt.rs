//! RTprop filter and PROBE_RTT (Cardwell et al. 2016, "ProbeRTT"; Linux `bbr_update_min_rtt`).
//!
//! RTprop is the smallest RTT sample, replaced by any sample once it is older than `min_rtt_window_ns`
//! (10 s). When it expires, BBR saves its cwnd and enters PROBE_RTT: cwnd `cwnd_min_target` (4) so the
//! queue drains and a fresh minimum can be seen. Once in-flight is down to 4, it stays for
//! `probe_rtt_duration_ns` (200 ms) and at least one round, then restarts the RTprop window, restores the
//! saved cwnd and returns to PROBE_BW (or STARTUP if the pipe was never full). Meanwhile rate samples are
//! marked app-limited (`CongestionControl::marks_app_limited`).

use super::{Bbr, Mode};
use crate::time::{SimDuration, SimTime};

impl Bbr {
    /// Linux `bbr_update_min_rtt`, with `in_flight` after this ACK.
    pub(super) fn update_min_rtt(&mut self, now: SimTime, rtt: Option<SimDuration>, in_flight: u32) {
        let window = SimDuration(self.cfg.min_rtt_window_ns);
        let filter_expired = now > self.min_rtt_stamp + window;
        if let Some(rtt) = rtt {
            if self.min_rtt.map_or(true, |min| rtt < min) || filter_expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = now;
            }
        }
        if self.cfg.probe_rtt_duration_ns > 0 && filter_expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(self.cwnd);
            self.probe_rtt_done_stamp = None;
        }
        if self.mode == Mode::ProbeRtt {
            match self.probe_rtt_done_stamp {
                None if in_flight <= self.cfg.cwnd_min_target => {
                    self.probe_rtt_done_stamp = Some(now + SimDuration(self.cfg.probe_rtt_duration_ns));
                    self.probe_rtt_round_done = false;
                    self.next_round_delivered = self.delivered;
                }
                None => {}
                Some(_) => {
                    if self.round_start {
                        self.probe_rtt_round_done = true;
                    }
                    if self.probe_rtt_round_done {
                        self.check_probe_rtt_done(now);
                    }
                }
            }
        }
    }

    /// Linux `bbr_check_probe_rtt_done`.
    fn check_probe_rtt_done(&mut self, now: SimTime) {
        if !self.probe_rtt_done_stamp.is_some_and(|done| now > done) {
            return;
        }
        self.min_rtt_stamp = now;
        self.cwnd = self.cwnd.max(self.prior_cwnd);
        self.reset_mode();
    }
}
