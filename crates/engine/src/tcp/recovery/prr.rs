//! Proportional Rate Reduction (`recovery = "prr"`; RFC 6937, Linux 3.2 and later, `tcp_cwnd_reduction`),
//! on RFC 6675's loss marking. Where RFC 6675 sets cwnd to ssthresh at once and then sends nothing until
//! pipe has fallen below it (a silence of half a window after a halving), PRR spreads the reduction over
//! the recovery: on each ACK,
//!
//! - while pipe > ssthresh (the proportional part, RFC 6937 section 3):
//!   sndcnt = ceil(prr_delivered * ssthresh / RecoverFS) - prr_out, so that by the time RecoverFS
//!   segments have been delivered, ssthresh have been sent;
//! - once pipe <= ssthresh (slow-start reduction bound, PRR-SSRB, the RFC's recommended bound and the one
//!   Linux 3.2 implements): sndcnt = min(ssthresh - pipe, max(prr_delivered - prr_out, DeliveredData) + 1),
//!   which lets pipe grow back toward ssthresh no faster than slow start;
//! - on the ACK that starts recovery at least one segment (the fast retransmit), Linux's
//!   `max(sndcnt, prr_out ? 0 : 1)`;
//!
//! and the window for sending is pipe + sndcnt (Linux: `snd_cwnd = tcp_packets_in_flight + sndcnt`).
//! DeliveredData is the ACK's change in snd_una plus its change in SACKed segments (RFC 6937 section 3);
//! prr_out counts every segment sent in recovery, new or retransmitted. An ACK that delivers nothing
//! leaves the window as the previous ACK set it (Linux returns early).
//!
//! Choices, and where they come from:
//! - RecoverFS is the window at entry (Linux's `prior_cwnd`), not the RFC's FlightSize (snd.nxt -
//!   snd.una); the two are equal for a window-limited flow.
//! - At exit the algorithm's own `on_recovery_exit` sets cwnd (ssthresh for the loss-based algorithms:
//!   RFC 6937's "cwnd = ssthresh", Linux's `tcp_end_cwnd_reduction`). During recovery the algorithm's
//!   cwnd reads what its reduction set; the window PRR computes governs sending only.
//! - Linux 4.x and later apply the SSRB bound only when the ACK acknowledged retransmitted data and found
//!   no lost retransmission, and otherwise min(ssthresh - pipe, DeliveredData); that refinement is not
//!   modelled (Linux 3.2-4.5 use SSRB on every ACK).

use crate::cc::CongestionControl;
use crate::tcp::recovery::rfc6675::mark_lost_by_sack;
use crate::tcp::recovery::{AckEvent, LossRecovery};
use crate::tcp::scoreboard::Scoreboard;

#[derive(Clone, Debug, Default)]
pub struct Prr {
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
    /// DeliveredData of the latest ACK, until the first sending opportunity after it reads it.
    pending: Option<u32>,
    /// The window for sending set by the latest ACK: pipe + sndcnt.
    window: u32,
}

impl Prr {
    /// sndcnt for an ACK that delivered `delivered` segments, with `pipe` in flight (RFC 6937 section 3,
    /// PRR-SSRB), before the fast-retransmit floor.
    fn send_count(&self, delivered: u32, pipe: u32) -> u64 {
        let ssthresh = self.ssthresh as u64;
        let pipe = pipe as u64;
        if pipe > ssthresh {
            // ceil(prr_delivered * ssthresh / RecoverFS) - prr_out, never below 0.
            let fs = self.recover_fs.max(1) as u64;
            (self.prr_delivered * ssthresh).div_ceil(fs).saturating_sub(self.prr_out)
        } else {
            let bound = self.prr_delivered.saturating_sub(self.prr_out).max(delivered as u64) + 1;
            (ssthresh - pipe).min(bound)
        }
    }
}

impl LossRecovery for Prr {
    fn reads_sack(&self) -> bool {
        true
    }

    fn mark_losses(&mut self, sb: &mut Scoreboard, ack: &AckEvent) {
        mark_lost_by_sack(sb);
        sb.mark_lost_retransmissions();
        self.pending = Some(ack.delivered);
    }

    /// Linux `tcp_init_cwnd_reduction`: the counts start at zero and RecoverFS is the window before the
    /// algorithm's reduction. The ACK that started recovery is counted at the first sending opportunity.
    fn on_enter(&mut self, cc: &mut dyn CongestionControl, old_cwnd: u32) {
        self.active = true;
        self.ssthresh = cc.ssthresh();
        self.recover_fs = old_cwnd;
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.window = 0;
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

    fn window_for_sending(&mut self, cwnd: u32, pipe: u32) -> u32 {
        if !self.active {
            self.pending = None;
            return cwnd;
        }
        if let Some(delivered) = self.pending.take() {
            if delivered > 0 || self.prr_out == 0 {
                self.prr_delivered += delivered as u64;
                let floor = u64::from(self.prr_out == 0);
                let sndcnt = self.send_count(delivered, pipe).max(floor);
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

    fn entered(ssthresh: u32, recover_fs: u32) -> Prr {
        Prr { active: true, ssthresh, recover_fs, ..Prr::default() }
    }

    /// One ACK: DeliveredData `delivered`, pipe before sending `pipe`; sends what the window allows (pipe
    /// rises by one per segment) and returns how many went out.
    fn ack(rule: &mut Prr, delivered: u32, pipe: u32) -> u32 {
        rule.pending = Some(delivered);
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
        let mut rule = entered(10, 20);
        let sent: Vec<u32> = (0..8).map(|i| ack(&mut rule, 1, 19 - i)).collect();
        assert_eq!(sent, vec![1, 0, 1, 0, 1, 0, 1, 0]);
        assert_eq!((rule.prr_delivered, rule.prr_out), (8, 4));
    }

    #[test]
    fn below_ssthresh_the_bound_is_slow_start() {
        // A burst of losses left pipe 4 under ssthresh 10, prr_delivered 6 and prr_out 3 so far. An ACK
        // delivering 2: prr_delivered 8, bound max(8 - 3, 2) + 1 = 6, ssthresh - pipe = 6: six go out.
        let mut rule = entered(10, 20);
        rule.prr_delivered = 6;
        rule.prr_out = 3;
        assert_eq!(ack(&mut rule, 2, 4), 6);
        // Next ACK delivers 1 with pipe 9: bound max(9 - 9, 1) + 1 = 2, ssthresh - pipe = 1: one.
        assert_eq!(ack(&mut rule, 1, 9), 1);
    }

    #[test]
    fn the_entry_ack_always_lets_the_retransmission_out() {
        // Entry on an ACK that delivered nothing, pipe 500 far above ssthresh 10: the floor lets the fast
        // retransmit out (window 501). A second such ACK leaves the window at 501, so with pipe back at 500
        // one more may go. An ACK delivering one: ceil(1 * 10 / 1000) = 1 - prr_out 2 < 0, so nothing.
        let mut rule = entered(10, 1000);
        assert_eq!(ack(&mut rule, 0, 500), 1);
        assert_eq!(rule.window, 501);
        assert_eq!(ack(&mut rule, 0, 500), 1);
        assert_eq!(ack(&mut rule, 1, 501), 0);
    }

    #[test]
    fn outside_recovery_the_window_is_cwnd() {
        let mut rule = Prr::default();
        rule.pending = Some(3);
        assert_eq!(rule.window_for_sending(7, 2), 7);
        assert_eq!(rule.window_after_sending(7, 3), 7);
        assert_eq!(rule.prr_out, 0);
    }
}
