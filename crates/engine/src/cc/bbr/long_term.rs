//! Long-term bandwidth sampling: token-bucket policer detection (Linux 4.9-5.x `bbr_lt_bw_sampling`;
//! fact sheet §2.13). Not in the 2016 paper.
//!
//! After a loss, BBR measures the delivery rate over intervals of 4 to 16 rounds. An interval counts when
//! it ends on a loss and its loss rate is at least 50/256 (~20 %). Two consecutive such intervals whose
//! rates differ by at most 1/8 (or 4 kbit/s) mean a policer: BBR then uses their mean as its bandwidth,
//! with pacing gain 1, for 48 rounds, then starts PROBE_BW over.

use super::{Bbr, Mode, BBR_SCALE, BBR_UNIT, BW_UNIT};
use crate::cc::RateSample;

/// Rounds an interval needs at least (`bbr_lt_intvl_min_rtts`); intervals past 4 times this are dropped.
const INTERVAL_MIN_ROUNDS: u32 = 4;
/// Loss rate that makes an interval a policing sample, in 1/256 (`bbr_lt_loss_thresh`).
const LOSS_THRESHOLD: u64 = 50;
/// Two rates are "the same" within 1/8 of the earlier (`bbr_lt_bw_ratio`)...
const RATIO: u64 = BBR_UNIT as u64 / 8;
/// ... or within 4 kbit/s (`bbr_lt_bw_diff` = 4000 / 8 bytes/s).
const DIFF_BPS: u64 = 4_000;
/// Rounds the policed rate is used before probing again (`bbr_lt_bw_max_rtts`).
const MAX_ROUNDS: u32 = 48;

#[derive(Clone, Debug, Default)]
pub(super) struct LongTermBw {
    /// Measuring an interval (started at a loss).
    pub(super) is_sampling: bool,
    /// Rounds in the current interval, or since the policed rate was adopted.
    round_count: u32,
    /// Delivered, lost and delivery time (ms, as Linux) at the start of the interval.
    last_delivered: u64,
    last_lost: u64,
    last_stamp_ms: u64,
    /// Rate of the last interval, or the policed rate in use, packets/µs << 24.
    pub(super) bw: u64,
    /// The policed rate is in use.
    pub(super) use_bw: bool,
}

impl Bbr {
    fn reset_long_term_interval(&mut self) {
        let lt = &mut self.long_term;
        lt.last_stamp_ms = self.delivered_time.0 / 1_000_000;
        lt.last_delivered = self.delivered;
        lt.last_lost = self.lost;
        lt.round_count = 0;
    }

    fn reset_long_term(&mut self) {
        self.long_term.bw = 0;
        self.long_term.use_bw = false;
        self.long_term.is_sampling = false;
        self.reset_long_term_interval();
    }

    /// Linux `bbr_lt_bw_interval_done`.
    fn long_term_interval_done(&mut self, bw: u64) {
        let lt_bw = self.long_term.bw;
        if lt_bw > 0 {
            let diff = bw.abs_diff(lt_bw);
            if diff * BBR_UNIT as u64 <= RATIO * lt_bw || self.rate_bps(diff, BBR_UNIT) <= DIFF_BPS {
                self.long_term.bw = (bw + lt_bw) >> 1;
                self.long_term.use_bw = true;
                self.pacing_gain = BBR_UNIT;
                self.long_term.round_count = 0;
                return;
            }
        }
        self.long_term.bw = bw;
        self.reset_long_term_interval();
    }

    /// Linux `bbr_lt_bw_sampling`, per ACK after round counting (and once on an RTO with one loss).
    pub(super) fn long_term_bw_sampling(&mut self, rs: &RateSample) {
        if !self.cfg.long_term_bw {
            return;
        }
        if self.long_term.use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.long_term.round_count += 1;
                if self.long_term.round_count >= MAX_ROUNDS {
                    self.reset_long_term();
                    self.enter_probe_bw();
                }
            }
            return;
        }
        // Wait for the first loss before sampling: a policer shows itself by dropping.
        if !self.long_term.is_sampling {
            if rs.losses == 0 {
                return;
            }
            self.reset_long_term_interval();
            self.long_term.is_sampling = true;
        }
        if rs.is_app_limited {
            self.reset_long_term();
            return;
        }
        if self.round_start {
            self.long_term.round_count += 1;
        }
        if self.long_term.round_count < INTERVAL_MIN_ROUNDS {
            return;
        }
        if self.long_term.round_count > 4 * INTERVAL_MIN_ROUNDS {
            self.reset_long_term();
            return;
        }
        // End the interval only at a loss, when the policer's tokens have run out.
        if rs.losses == 0 {
            return;
        }
        let lost = self.lost - self.long_term.last_lost;
        let delivered = self.delivered - self.long_term.last_delivered;
        if delivered == 0 || (lost << BBR_SCALE) < LOSS_THRESHOLD * delivered {
            return;
        }
        let now_ms = self.delivered_time.0 / 1_000_000;
        if now_ms <= self.long_term.last_stamp_ms {
            return;
        }
        let interval_us = (now_ms - self.long_term.last_stamp_ms) as u128 * 1_000;
        let bw = (delivered as u128 * BW_UNIT / interval_us) as u64;
        self.long_term_interval_done(bw);
    }
}
