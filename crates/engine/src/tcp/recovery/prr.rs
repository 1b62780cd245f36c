//! Proportional Rate Reduction (RFC 6937; Linux 3.2 and later, `tcp_cwnd_reduction`), on RFC 6675's loss
//! marking. Where RFC 6675 sets cwnd to ssthresh at once and then sends nothing until pipe has fallen
//! below it (a silence of half a window after a halving), PRR spreads the reduction over the recovery: on
//! each ACK,
//!
//! - while pipe > ssthresh (the proportional part, RFC 6937 section 3):
//!   sndcnt = ceil(prr_delivered * ssthresh / RecoverFS) - prr_out, so that by the time RecoverFS
//!   segments have been delivered, ssthresh have been sent;
//! - once pipe <= ssthresh, a reduction bound lets pipe grow back toward ssthresh:
//!   - slow-start bound (PRR-SSRB): sndcnt = min(ssthresh - pipe, max(prr_delivered - prr_out,
//!     DeliveredData) + 1), no faster than slow start;
//!   - conservative bound, as Linux writes it: sndcnt = min(ssthresh - pipe, DeliveredData), one out per
//!     one delivered (packet conservation);
//! - on the ACK that starts recovery at least one segment (the fast retransmit), Linux's
//!   `max(sndcnt, prr_out ? 0 : 1)`;
//!
//! and the window for sending is pipe + sndcnt (Linux: `snd_cwnd = tcp_packets_in_flight + sndcnt`).
//! DeliveredData is the ACK's change in snd_una plus its change in SACKed segments (RFC 6937 section 3);
//! prr_out counts every segment sent in recovery, new or retransmitted. An ACK that delivers nothing
//! leaves the window as the previous ACK set it (Linux returns early).
//!
//! Two variants (`flows.N.recovery`):
//! - `prr`: Linux 4.3 and later (commit 3759824, 2015, "PRR uses CRB mode by default and SS mode
//!   conditionally"): the slow-start bound only on an ACK that cumulatively acknowledges retransmitted
//!   data (`FLAG_RETRANS_DATA_ACKED`) and marks no retransmission lost (`FLAG_LOST_RETRANS`), the
//!   conservative bound otherwise. RFC 9937 (2025), which obsoletes RFC 6937, takes the same turn (its
//!   "safe ACK").
//! - `prr-rfc6937`: the slow-start bound on every ACK, as RFC 6937 recommends and Linux 3.2-4.2 run it.
//!
//! Choices, and where they come from:
//! - RecoverFS is the window at entry (Linux's `prior_cwnd`), not the RFCs' FlightSize or pipe; the
//!   three are equal for a window-limited flow.
//! - At exit the algorithm's own `on_recovery_exit` sets cwnd (ssthresh for the loss-based algorithms:
//!   RFC 6937's "cwnd = ssthresh", Linux's `tcp_end_cwnd_reduction`). During recovery the algorithm's
//!   cwnd reads what its reduction set; the window PRR computes governs sending only.

use crate::cc::CongestionControl;
use crate::tcp::recovery::rfc6675::mark_lost_by_sack;
use crate::tcp::recovery::{AckEvent, LossRecovery};
use crate::tcp::scoreboard::Scoreboard;

/// The reduction bound once pipe is at or below ssthresh.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Bound {
    /// Linux 4.3 and later: slow start on a "safe" ACK, packet conservation otherwise.
    #[default]
    Linux,
    /// RFC 6937 PRR-SSRB on every ACK (Linux 3.2-4.2).
    SlowStart,
}

/// What the latest ACK told the rule, kept until the first sending opportunity after it.
#[derive(Copy, Clone, Debug)]
struct Delivery {
    /// DeliveredData, segments.
    delivered: u32,
    /// The ACK cumulatively acknowledged retransmitted data and marked no retransmission lost.
    safe: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Prr {
    bound: Bound,
    /// In Recovery: from `on_enter` until `on_exit` or a timeout.
    active: bool,
    /// The algorithm's ssthresh, read at entry (packets).
    ssthresh: u32,
    /// RecoverFS: the window at entry (Linux `prior_cwnd`), packets.
    recover_fs: u32,
    /// Segments delivered (cumulatively or by SACK) since recovery began.
    prr_delivered: u64,
    /// Segments sent since recovery began.
    prr_out: u64,
    /// The latest ACK, until the first sending opportunity after it reads it.
    pending: Option<Delivery>,
    /// The window for sending set by the latest ACK: pipe + sndcnt.
    window: u32,
}

impl Prr {
    pub fn new(bound: Bound) -> Self {
        Prr { bound, ..Prr::default() }
    }

    /// sndcnt for an ACK, with `pipe` in flight (RFC 6937 section 3), before the fast-retransmit floor.
    fn send_count(&self, ack: Delivery, pipe: u32) -> u64 {
        let ssthresh = self.ssthresh as u64;
        let pipe = pipe as u64;
        let delivered = ack.delivered as u64;
        if pipe > ssthresh {
            // ceil(prr_delivered * ssthresh / RecoverFS) - prr_out, never below 0.
            let fs = self.recover_fs.max(1) as u64;
            (self.prr_delivered * ssthresh).div_ceil(fs).saturating_sub(self.prr_out)
        } else if self.bound == Bound::SlowStart || ack.safe {
            let bound = self.prr_delivered.saturating_sub(self.prr_out).max(delivered) + 1;
            (ssthresh - pipe).min(bound)
        } else {
            (ssthresh - pipe).min(delivered)
        }
    }
}

impl LossRecovery for Prr {
    fn reads_sack(&self) -> bool {
        true
    }

    fn mark_losses(&mut self, sb: &mut Scoreboard, ack: &AckEvent) {
        // RFC 6937 DeliveredData: segments SACKed before and now acknowledged cumulatively count once.
        let delivered = (ack.acked + sb.sacked_out).saturating_sub(ack.prior_sacked);
        mark_lost_by_sack(sb);
        let lost_retransmissions = sb.mark_lost_retransmissions();
        let safe = ack.retransmitted_acked && lost_retransmissions == 0;
        self.pending = Some(Delivery { delivered, safe });
    }

    /// Linux `tcp_init_cwnd_reduction`: the counts start at zero and RecoverFS is the window before the
    /// algorithm's reduction. The ACK that started recovery is counted at the first sending opportunity.
    ///
    /// That ACK may not have been read here: F-RTO reads an ACK instead of the loss marking, and the same
    /// ACK can end the Loss state with segments still marked lost and so start a recovery. It then counts
    /// as delivering nothing, and the entry floor still lets the fast retransmit out at once (without
    /// this, the window stayed 0 until the next ACK).
    fn on_enter(&mut self, cc: &mut dyn CongestionControl, _sb: &mut Scoreboard, old_cwnd: u32) {
        self.active = true;
        self.ssthresh = cc.ssthresh();
        self.recover_fs = old_cwnd;
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.window = 0;
        self.pending.get_or_insert(Delivery { delivered: 0, safe: false });
    }

    /// The fast retransmit goes through the window (sndcnt is at least 1 on the entry ACK).
    fn retransmits_at_entry(&self) -> bool {
        false
    }

    fn on_exit(&mut self, _cc: &mut dyn CongestionControl, _sb: &mut Scoreboard, _held_cwnd: u32) {
        self.active = false;
    }

    fn on_timeout(&mut self, _sb: &mut Scoreboard) {
        self.active = false;
    }

    fn sends_within_cwnd(&self) -> bool {
        false
    }

    fn window_for_sending(&mut self, cwnd: u32, pipe: u32) -> u32 {
        if !self.active {
            self.pending = None;
            return cwnd;
        }
        if let Some(ack) = self.pending.take() {
            if ack.delivered > 0 || self.prr_out == 0 {
                self.prr_delivered += ack.delivered as u64;
                let floor = u64::from(self.prr_out == 0);
                let sndcnt = self.send_count(ack, pipe).max(floor);
                self.window = pipe.saturating_add(sndcnt.min(u32::MAX as u64) as u32);
            }
        }
        self.window
    }

    fn window_after_sending(&mut self, cwnd: u32, _pipe: u32) -> u32 {
        if !self.active {
            return cwnd;
        }
        self.prr_out += 1;
        self.window
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::common::Counting;
    use crate::cc::newreno::{NewReno, NewRenoConfig};

    fn entered(bound: Bound, ssthresh: u32, recover_fs: u32) -> Prr {
        Prr { bound, active: true, ssthresh, recover_fs, ..Prr::default() }
    }

    /// One ACK: DeliveredData `delivered`, pipe before sending `pipe`; sends what the window allows (pipe
    /// rises by one per segment) and returns how many went out.
    fn ack(rule: &mut Prr, delivered: u32, pipe: u32) -> u32 {
        acked(rule, delivered, false, pipe)
    }

    /// `ack`, saying whether the ACK is "safe" (retransmitted data acknowledged, no retransmission lost).
    fn acked(rule: &mut Prr, delivered: u32, safe: bool, pipe: u32) -> u32 {
        rule.pending = Some(Delivery { delivered, safe });
        let mut pipe = pipe;
        let mut window = rule.window_for_sending(5, pipe);
        let mut sent = 0;
        while pipe < window {
            pipe += 1;
            sent += 1;
            window = rule.window_after_sending(5, pipe);
        }
        sent
    }

    #[test]
    fn a_halving_sends_one_segment_per_two_delivered() {
        // RFC 6937's example shape: cwnd 20 at entry, ssthresh 10, one segment lost. Each ACK delivers one
        // segment (a SACK), and pipe falls by one per ACK (19 after the loss is marked, ...).
        // ACK 1 (entry): prr_delivered 1, ceil(1 * 10 / 20) = 1 - 0 = 1: the fast retransmit.
        // ACK 2: ceil(2 * 10 / 20) = 1 - 1 = 0. ACK 3: ceil(30 / 20) = 2 - 1 = 1. ACK 4: 2 - 2 = 0.
        let mut rule = entered(Bound::Linux, 10, 20);
        let sent: Vec<u32> = (0..8).map(|i| ack(&mut rule, 1, 19 - i)).collect();
        assert_eq!(sent, vec![1, 0, 1, 0, 1, 0, 1, 0]);
        assert_eq!((rule.prr_delivered, rule.prr_out), (8, 4));
    }

    #[test]
    fn below_ssthresh_rfc6937_bounds_by_slow_start() {
        // A burst of losses left pipe 4 under ssthresh 10, prr_delivered 6 and prr_out 3 so far. An ACK
        // delivering 2: prr_delivered 8, bound max(8 - 3, 2) + 1 = 6, ssthresh - pipe = 6: six go out.
        let mut rule = entered(Bound::SlowStart, 10, 20);
        rule.prr_delivered = 6;
        rule.prr_out = 3;
        assert_eq!(ack(&mut rule, 2, 4), 6);
        // Next ACK delivers 1 with pipe 9: bound max(9 - 9, 1) + 1 = 2, ssthresh - pipe = 1: one.
        assert_eq!(ack(&mut rule, 1, 9), 1);
    }

    #[test]
    fn below_ssthresh_linux_conserves_packets_until_a_safe_ack() {
        // The same state under Linux 4.3's rule: the ACK delivering 2 is not safe, so min(10 - 4, 2) = 2
        // go out (prr_out 5). A safe ACK delivering 1 at pipe 6: prr_delivered 9, slow-start bound
        // max(9 - 5, 1) + 1 = 5, ssthresh - pipe = 4: four.
        let mut rule = entered(Bound::Linux, 10, 20);
        rule.prr_delivered = 6;
        rule.prr_out = 3;
        assert_eq!(ack(&mut rule, 2, 4), 2);
        assert_eq!(acked(&mut rule, 1, true, 6), 4);
        // Above ssthresh the bound plays no part: pipe 12, prr_delivered 10, ceil(10 * 10 / 20) = 5 -
        // prr_out 9 < 0: nothing, safe or not.
        assert_eq!(acked(&mut rule, 1, true, 12), 0);
    }

    #[test]
    fn the_entry_ack_always_lets_the_retransmission_out() {
        // Entry on an ACK that delivered nothing, pipe 500 far above ssthresh 10: the floor lets the fast
        // retransmit out (window 501). A second such ACK leaves the window at 501, so with pipe back at 500
        // one more may go. An ACK delivering one: ceil(1 * 10 / 1000) = 1 - prr_out 2 < 0, so nothing.
        let mut rule = entered(Bound::Linux, 10, 1000);
        assert_eq!(ack(&mut rule, 0, 500), 1);
        assert_eq!(rule.window, 501);
        assert_eq!(ack(&mut rule, 0, 500), 1);
        assert_eq!(ack(&mut rule, 1, 501), 0);
    }

    #[test]
    fn an_entry_ack_the_rule_did_not_read_still_lets_the_retransmission_out() {
        // F-RTO read the entry ACK, so `mark_losses` never ran: no pending delivery. The entry counts as
        // delivering nothing, and the floor of 1 opens the window to pipe + 1 = 41 at once.
        let mut rule = Prr::new(Bound::Linux);
        let mut cc = NewReno::new(NewRenoConfig { counting: Counting::Packets, window: Default::default() }, 10);
        rule.on_enter(&mut cc, &mut Scoreboard::new(), 80);
        assert_eq!(rule.window_for_sending(40, 40), 41);
        assert_eq!((rule.prr_delivered, rule.prr_out), (0, 0));
    }

    #[test]
    fn delivered_data_counts_segments_sacked_before_once() {
        // 3 segments were SACKed before the ACK; it acknowledges 5 cumulatively, those 3 among them, and
        // SACKs nothing new, so none is SACKed after. DeliveredData = 5 + 0 - 3 = 2 (RFC 6937 section 3):
        // the 3 counted when they were SACKed are not counted again.
        let mut rule = Prr::new(Bound::Linux);
        let mut sb = Scoreboard::new();
        let ack = AckEvent { acked: 5, duplicate: false, prior_sacked: 3, retransmitted_acked: false };
        rule.mark_losses(&mut sb, &ack);
        assert_eq!(rule.pending.map(|d| d.delivered), Some(2));
    }

    #[test]
    fn outside_recovery_the_window_is_cwnd() {
        let mut rule = Prr::default();
        rule.pending = Some(Delivery { delivered: 3, safe: true });
        assert_eq!(rule.window_for_sending(7, 2), 7);
        assert_eq!(rule.window_after_sending(7, 3), 7);
        assert_eq!(rule.prr_out, 0);
    }
}
