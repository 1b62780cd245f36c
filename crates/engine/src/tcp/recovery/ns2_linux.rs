//! ns-2.35 TCP-Linux's recovery (`recovery = "linux-2.6"`; `tcp/tcp-linux.cc`, Wei & Cao 2006; fact sheet
//! §1.7), which stands in for Linux 2.6's rate-halving on the same SACK scoreboard:
//! - loss marking (`mark_lost_by_fack`): a hole is lost once the highest SACK lies 4 or more sequence
//!   numbers above it (ns-2 `ScoreBoard1`), and recovery starts at the first such mark; lost
//!   retransmissions are found as in RFC 6675 mode;
//! - entry (from Open, or from Loss when an ACK marks a new loss): ssthresh from the algorithm, then cwnd
//!   = the algorithm's `min_cwnd()` at once (`tcp_fastretrans_alert`);
//! - sending: while pipe < max(cwnd, allowance). The allowance (`next_pkts_in_flight_`) starts at the old
//!   cwnd, is lowered to pipe + 1 before each sending opportunity and to max(pipe - 1, 1) after each
//!   transmission (`send_much`), so about one packet leaves per two ACKs until pipe has fallen to cwnd;
//! - exit (the recovery point acknowledged, from Recovery or Loss): if cwnd < ssthresh, cwnd = ssthresh
//!   capped at outstanding + 3 (`tcp_moderate_cwnd`, `tcp_max_burst` = 3); no COMPLETE_CWR, no undo;
//! - a timeout clears the allowance;
//! - with ns-2's `overhead_` (`tcp/delayed_send.rs`), the agent's copy of the window out and back in
//!   around each delayed send (`saved_before_delayed_send`) undoes what that send took off the allowance.
//!
//! The algorithm learns these windows through `CongestionControl::set_cwnd`. The mode's retransmission
//! timer (ns-2's, `tcp/rto_ns2.rs`) is chosen by the sender.

use crate::cc::CongestionControl;
use crate::tcp::recovery::{AckEvent, LossRecovery};
use crate::tcp::scoreboard::{Scoreboard, DUP_THRESH};

/// ns-2.35 TCP-Linux `tcp_max_burst` (`tcp/linux/ns-linux-param.c`): at recovery exit cwnd is capped at
/// the packets outstanding plus this.
const NS2_MAX_BURST: u32 = 3;

#[derive(Clone, Debug, Default)]
pub struct Ns2Linux {
    /// The rate-halving send allowance in packets (ns-2 `next_pkts_in_flight_`); 0 outside recovery.
    allowance: u32,
}

/// ns-2.35 `ScoreBoard1::UpdateScoreBoard` (`lost_seq_threshold = fack_ - (dupack_threshold + 1)`): a
/// segment is lost once the highest SACKed sequence number (fack) lies DupThresh + 1 or more above it,
/// whatever lies between. After a burst of losses each new SACK marks one more hole at once, where RFC
/// 6675 waits for three SACKed segments above the last hole. Returns how many were newly marked.
pub fn mark_lost_by_fack(sb: &mut Scoreboard) -> u32 {
    let Some(fack) = sb.highest_sacked(1) else { return 0 };
    if fack < sb.snd_una() + DUP_THRESH + 1 {
        return 0;
    }
    // Segments up to fack - (DupThresh + 1) are lost: the boundary (exclusive) is fack - DupThresh.
    sb.mark_lost_below(fack - DUP_THRESH)
}

impl LossRecovery for Ns2Linux {
    fn reads_sack(&self) -> bool {
        true
    }

    fn mark_losses(&mut self, sb: &mut Scoreboard, _ack: &AckEvent) {
        mark_lost_by_fack(sb);
        sb.mark_lost_retransmissions();
    }

    /// cwnd = min_cwnd() at once; the allowance from the old cwnd paces the retransmissions, the first of
    /// which it lets out on this ACK.
    fn on_enter(&mut self, cc: &mut dyn CongestionControl, _sb: &mut Scoreboard, old_cwnd: u32) {
        let floor = cc.min_cwnd();
        cc.set_cwnd(floor);
        self.allowance = old_cwnd;
    }

    fn retransmits_at_entry(&self) -> bool {
        false
    }

    /// The allowance ends, and a window below ssthresh is raised to ssthresh, then capped at the packets
    /// outstanding + `tcp_max_burst` (`tcp_moderate_cwnd`; ns-2 has just cleared its scoreboard, so its
    /// pipe is everything outstanding). `held_cwnd` is used because ns-2 does not call the algorithm's
    /// `on_recovery_exit`.
    fn on_exit(&mut self, cc: &mut dyn CongestionControl, sb: &mut Scoreboard, held_cwnd: u32) {
        self.allowance = 0;
        let ssthresh = cc.ssthresh();
        let cwnd = if held_cwnd < ssthresh { ssthresh.min(sb.packets_out() + NS2_MAX_BURST) } else { held_cwnd };
        cc.set_cwnd(cwnd);
    }

    fn on_timeout(&mut self, _sb: &mut Scoreboard) {
        self.allowance = 0;
    }

    /// ns-2 TCP-Linux lets an ACK that marks a new loss in the Loss state start a recovery
    /// (`tcp_fastretrans_alert`: "case TCP_CA_Loss: let it through").
    fn recovers_in_loss_state(&self) -> bool {
        true
    }

    fn sends_within_cwnd(&self) -> bool {
        false
    }

    fn window_for_sending(&mut self, cwnd: u32, pipe: u32) -> u32 {
        self.allowance = self.allowance.min(pipe + 1);
        cwnd.max(self.allowance)
    }

    fn window_after_sending(&mut self, cwnd: u32, pipe: u32) -> u32 {
        self.allowance = self.allowance.min(pipe.saturating_sub(1).max(1));
        cwnd.max(self.allowance)
    }

    /// `save_from_linux`: ns-2's `cwnd_` takes the allowance while it exceeds cwnd (rate-halving), else
    /// cwnd.
    fn saved_before_delayed_send(&self, cwnd: u32) -> Option<u32> {
        Some(self.allowance.max(cwnd))
    }

    /// `load_to_linux`: while the allowance, lowered by the send, still exceeds cwnd, it takes the saved
    /// value back; else cwnd takes it. So with ns-2's `overhead_` on, what the timer's sends take off the
    /// allowance is put back, and the send that brings it down to cwnd raises cwnd to the allowance it
    /// had: ns-2 TCP-Linux's rate-halving reduces the sending less than without `overhead_`
    /// (docs/validation.md, "overhead_ as ns-2's agents apply it").
    fn loaded_after_delayed_send(&mut self, cwnd: u32, saved: u32) -> Option<u32> {
        if self.allowance > cwnd {
            self.allowance = saved;
            None
        } else {
            (saved != cwnd).then_some(saved)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::SeqRange;
    use crate::tcp::recovery::rfc6675::mark_lost_by_sack;

    fn sack(sb: &mut Scoreboard, start: u64, end: u64) {
        sb.add_sack(SeqRange { start, end });
    }

    #[test]
    fn fack_marking_counts_distance_from_the_highest_sack() {
        // A burst: 0..5 lost, 5..12 arrive one by one (the starved NewReno of seed 000, Table II, STCP row).
        // RFC 6675: nothing until three segments are SACKed (5, 6, 7), then all five holes at once.
        // FACK (ns-2 ScoreBoard1): lost up to fack - 4. SACK of 5: fack 5, holes 0 and 1 (<= 1) lost.
        // SACK of 6: hole 2; of 7: hole 3; of 8: hole 4; each SACK marks one more hole.
        let mut rfc = Scoreboard::with_sent(12);
        let mut fack = Scoreboard::with_sent(12);
        let mut marked = (vec![], vec![]);
        for seq in 5..9 {
            sack(&mut rfc, seq, seq + 1);
            sack(&mut fack, seq, seq + 1);
            marked.0.push(mark_lost_by_sack(&mut rfc));
            marked.1.push(mark_lost_by_fack(&mut fack));
        }
        assert_eq!(marked.0, vec![0, 0, 5, 0]);
        assert_eq!(marked.1, vec![2, 1, 1, 1]);
        // Pipe after the first SACK: RFC 12 - 1 = 11; FACK 12 - 1 SACKed - 2 lost = 9.
        let mut first = Scoreboard::with_sent(12);
        sack(&mut first, 5, 6);
        mark_lost_by_fack(&mut first);
        assert_eq!(first.in_flight(), 9);
        // Nothing is lost while the highest SACK is less than 4 above snd_una (fack 3: 3 - 4 < 0).
        let mut near = Scoreboard::with_sent(12);
        sack(&mut near, 3, 4);
        assert_eq!(mark_lost_by_fack(&mut near), 0);
        fack.check_invariants();
        rfc.check_invariants();
    }

    #[test]
    fn the_allowance_lets_one_packet_out_per_two_acks() {
        // Entry from cwnd 10 with pipe 8 (cwnd now 2): the allowance 10 is lowered to pipe + 1 = 9, one
        // packet goes out (pipe 9) and the allowance drops to pipe - 1 = 8. Next ACK, pipe 8: window
        // max(2, min(8, 9)) = 8, nothing. Next, pipe 7: window 8, one packet out (pipe 8), allowance 7.
        let mut rule = Ns2Linux { allowance: 10 };
        assert_eq!(rule.window_for_sending(2, 8), 9);
        assert_eq!(rule.window_after_sending(2, 9), 8);
        assert_eq!(rule.window_for_sending(2, 8), 8);
        assert_eq!(rule.window_for_sending(2, 7), 8);
        assert_eq!(rule.window_after_sending(2, 8), 7);
        // Once pipe is down to cwnd, cwnd rules: pipe 1 -> allowance max(0, 1) = 1, window max(2, 1) = 2.
        assert_eq!(rule.window_after_sending(2, 1), 2);
        rule.on_timeout(&mut Scoreboard::new());
        assert_eq!(rule.window_for_sending(2, 5), 2);
    }

    #[test]
    fn a_delayed_send_gives_back_what_it_took_off_the_allowance() {
        // Recovery entered with cwnd 10: cwnd 5, allowance 10. A delayed send with pipe 8: save max(10, 5)
        // = 10; the send lowers the allowance to min(10, 9) = 9, sends, then min(9, max(9 - 1, 1)) = 8; the
        // load finds it above cwnd and puts 10 back.
        let mut rule = Ns2Linux::default();
        rule.allowance = 10;
        let saved = rule.saved_before_delayed_send(5).unwrap();
        assert_eq!(saved, 10);
        rule.window_for_sending(5, 8);
        rule.window_after_sending(5, 9);
        assert_eq!(rule.allowance, 8);
        assert_eq!(rule.loaded_after_delayed_send(5, saved), None);
        assert_eq!(rule.allowance, 10);
        // A send with pipe 4 brings the allowance to 5, cwnd's: the load raises cwnd to 10 instead.
        rule.window_for_sending(5, 4);
        assert_eq!(rule.loaded_after_delayed_send(5, saved), Some(10));
        // Outside recovery (allowance 0) the copy out and back changes nothing.
        let mut open = Ns2Linux::default();
        let saved = open.saved_before_delayed_send(7).unwrap();
        assert_eq!((saved, open.loaded_after_delayed_send(7, saved)), (7, None));
    }
}
