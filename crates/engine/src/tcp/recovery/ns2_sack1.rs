//! ns-2.35's SACK agent, `Agent/TCP/Sack1` (`recovery = "ns2-sack1"`; `tcp/tcp-sack1.cc`, Fall & Floyd
//! 1996, with ns-2.35's defaults), the recovery that seed 003's TCP-SACK flows and the CUBIN FAST module
//! (`tcp/tcp-fast.cc`, a copy of it) ran. It counts the packets in flight itself instead of reading them
//! off the scoreboard:
//! - entry at the third duplicate ACK: `pipe_` = packets outstanding - 3 (`dupack_action`, `oldCode_`
//!   false, `LimTransmitFix_` false). Lost packets stay counted: after a burst of L drops, about L more
//!   ACKs must arrive than under RFC 6675 before the next packet leaves. The first hole goes out at once
//!   and nothing else on that ACK (`send_much` is not called while a duplicate ACK is counted);
//! - in recovery every ACK takes one off `pipe_`, a partial ACK one more ("so that we never do worse than
//!   slow-start", `partial_ack_` false), each packet sent adds one, and packets leave while `pipe_` <
//!   cwnd (`send_much`);
//! - before recovery, the first and second duplicate ACKs each send one new packet if fewer than cwnd +
//!   dupacks are outstanding, at once, past the delayed send (`send_one`, `singledup_` 1), and nothing
//!   else: `send_much` runs only while no duplicate ACK is counted (`sends_one_per_early_dupack`);
//! - what leaves first: any hole below the highest SACKed packet that was not retransmitted yet
//!   (`ScoreBoard::GetNextRetran`, no duplicate-ACK threshold), then new data;
//! - a retransmission is never found lost again: a lost one waits for the retransmission timeout;
//! - exit once everything outstanding at entry is acknowledged; cwnd stays where the algorithm's
//!   reduction put it;
//! - a timeout clears the scoreboard (`ClearScoreBoard`) and starts over from the first unacknowledged
//!   packet, go-back-N: SACK blocks are not read again until the Loss state ends, so packets the receiver
//!   holds are sent again unless a cumulative ACK passes them first (ns-2 ignores duplicate ACKs until the
//!   first new ACK after a timeout, then clears the scoreboard at each new ACK, and outside recovery sends
//!   in sequence whatever it holds). Each timeout, a repeated one included, is a reduction of its own
//!   (`slowdown` at each);
//! - the window opens once per new ACK (`opencwnd` from `recv_newack_helper`), whatever the ACK covers
//!   (`grows_once_per_ack`): the algorithm's growth sees one packet per ACK.
//!
//! The agent's timer (10-ms ticks, one timed packet per round trip, `minrto_` as a floor of the whole
//! RTO) comes with the rule: `tcp/rto_ns2.rs`, chosen by `Recovery::ns2_timer`.
//!
//! Not modelled, and documented in docs/validation.md ("cclab's recovery rules against ns-2.35's Sack1
//! agent"): the scoreboard cleared at every new ACK outside recovery (ns-2's window there counts SACKed
//! packets as outstanding), the one new packet that the first counted duplicate ACK after a new ACK
//! sends during go-back-N (`send_one` in the Loss state), and the timer that stays armed when
//! everything is acknowledged (an idle sender then times out every RTO). A duplicate ACK counts here whether or not its SACK blocks add anything; ns-2 counts it only when they
//! do (`CheckUpdate`), which with one ACK per packet is nearly always.

use crate::cc::CongestionControl;
use crate::tcp::recovery::{AckEvent, LossRecovery};
use crate::tcp::scoreboard::{Scoreboard, DUP_THRESH};

#[derive(Clone, Debug, Default)]
pub struct Ns2Sack1 {
    /// In fast recovery (ns-2 `fastrecov_`).
    active: bool,
    /// ns-2 `pipe_`: packets the agent counts in flight. Signed, as ns-2's int: partial ACKs can take it
    /// below zero.
    pipe: i64,
    /// The ACK that started recovery sends nothing beyond the first hole's retransmission.
    entry_ack: bool,
    /// After a timeout, until the Loss state ends: SACK blocks are not read (go-back-N).
    go_back_n: bool,
}

impl Ns2Sack1 {
    /// Every hole below the highest SACKed packet is due for retransmission (`GetNextRetran`); holes
    /// already marked, and so retransmissions, are not marked again.
    fn mark_holes(sb: &mut Scoreboard) {
        if let Some(highest) = sb.highest_sacked(1) {
            sb.mark_lost_below(highest);
        }
    }

    /// The window that lets packets leave while `pipe_` < cwnd, given the sender's own count `pipe`:
    /// both rise by one per packet sent.
    fn window(&self, cwnd: u32, pipe: u32) -> u32 {
        (cwnd as i64 - self.pipe + pipe as i64).clamp(0, u32::MAX as i64) as u32
    }
}

impl LossRecovery for Ns2Sack1 {
    fn reads_sack(&self) -> bool {
        !self.go_back_n
    }

    /// `--pipe_` on every ACK in fast recovery (`Sack1TcpAgent::recv`), then the holes below the highest
    /// SACK. Outside recovery nothing is marked: recovery starts at the third duplicate ACK.
    fn mark_losses(&mut self, sb: &mut Scoreboard, _ack: &AckEvent) {
        if self.active {
            self.entry_ack = false;
            self.pipe -= 1;
            Self::mark_holes(sb);
        }
    }

    fn on_enter(&mut self, _cc: &mut dyn CongestionControl, sb: &mut Scoreboard, _old_cwnd: u32) {
        self.active = true;
        self.entry_ack = true;
        self.pipe = sb.packets_out() as i64 - DUP_THRESH as i64;
        Self::mark_holes(sb);
    }

    fn on_partial_ack(&mut self, _sb: &mut Scoreboard) {
        self.pipe -= 1;
    }

    fn on_exit(&mut self, _cc: &mut dyn CongestionControl, _sb: &mut Scoreboard, _held_cwnd: u32) {
        self.active = false;
        self.entry_ack = false;
        self.go_back_n = false;
    }

    /// `Sack1TcpAgent::timeout`: fast recovery ends and the scoreboard is cleared, so everything
    /// outstanding is sent again in order (`t_seqno_ = highest_ack_ + 1`).
    fn on_timeout(&mut self, sb: &mut Scoreboard) {
        self.active = false;
        self.entry_ack = false;
        self.go_back_n = true;
        sb.forget_sacks();
    }

    fn reduces_at_every_timeout(&self) -> bool {
        true
    }

    /// `recv_newack_helper` calls `opencwnd` once per new ACK. Counting packets instead would let the
    /// cumulative ACK that a go-back-N retransmission brings (up to a window of packets the receiver held)
    /// grow cwnd by that window's worth at once (docs/validation.md, "Growth per ACK under ns2-sack1").
    fn grows_once_per_ack(&self) -> bool {
        true
    }

    /// `Sack1TcpAgent::recv`: the first and second counted duplicate ACKs call `send_one` (`singledup_` 1),
    /// and `send_much` only runs while `dupacks_` is 0.
    fn sends_one_per_early_dupack(&self) -> bool {
        true
    }

    fn sends_within_cwnd(&self) -> bool {
        false
    }

    fn window_for_sending(&mut self, cwnd: u32, pipe: u32) -> u32 {
        match (self.active, self.entry_ack) {
            (false, _) => cwnd,
            (true, true) => 0,
            (true, false) => self.window(cwnd, pipe),
        }
    }

    fn window_after_sending(&mut self, cwnd: u32, pipe: u32) -> u32 {
        if !self.active {
            return cwnd;
        }
        self.pipe += 1;
        self.window(cwnd, pipe)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::common::Counting;
    use crate::cc::newreno::{NewReno, NewRenoConfig};
    use crate::net::packet::SeqRange;
    use crate::time::SimTime;

    fn reno() -> NewReno {
        NewReno::new(NewRenoConfig { counting: Counting::Packets, window: Default::default() }, 10)
    }
    fn ack(acked: u32) -> AckEvent {
        AckEvent { acked, duplicate: acked == 0, prior_sacked: 0, retransmitted_acked: false }
    }

    #[test]
    fn lost_packets_stay_in_pipe_until_acks_take_them_out() {
        // 20 out, 0-4 dropped, 5-7 SACKed: the third duplicate ACK starts recovery with pipe_ = 20 - 3 = 17,
        // where RFC 6675's pipe is 20 - 3 SACKed - 5 lost = 12. Holes 0-4 lie below the highest SACK (7):
        // all are due at once, no threshold.
        let mut sb = Scoreboard::with_sent(20);
        sb.add_sack(SeqRange { start: 5, end: 8 });
        let mut rule = Ns2Sack1::default();
        rule.on_enter(&mut reno(), &mut sb, 20);
        assert_eq!((rule.pipe, sb.lost_out, sb.in_flight()), (17, 5, 12));
        assert_eq!(sb.next_retransmit(), Some(0));
        // The entry ACK sends nothing more (the sender's retransmission of 0 is not counted in pipe_).
        sb.on_retransmit(0, SimTime(1));
        assert_eq!(rule.window_for_sending(10, sb.in_flight()), 0);
        // With cwnd 10, packets leave once pipe_ < 10: seven more ACKs (SACKs of 8-14) bring it to 10,
        // the eighth to 9, and one packet leaves (the next hole, 1), after which pipe_ is 10 again.
        for seq in 8..15 {
            sb.add_sack(SeqRange { start: seq, end: seq + 1 });
            rule.mark_losses(&mut sb, &ack(0));
            assert!(sb.in_flight() >= rule.window_for_sending(10, sb.in_flight()), "seq {seq}");
        }
        assert_eq!(rule.pipe, 10);
        sb.add_sack(SeqRange { start: 15, end: 16 });
        rule.mark_losses(&mut sb, &ack(0));
        let window = rule.window_for_sending(10, sb.in_flight());
        assert_eq!(window, sb.in_flight() + 1);
        assert_eq!(sb.next_retransmit(), Some(1));
        sb.on_retransmit(1, SimTime(2));
        assert_eq!(rule.window_after_sending(10, sb.in_flight()), sb.in_flight());
        assert_eq!(rule.pipe, 10);
        sb.check_invariants();
    }

    #[test]
    fn a_partial_ack_takes_two_off_and_a_retransmission_is_never_lost_again() {
        let mut sb = Scoreboard::with_sent(10);
        sb.add_sack(SeqRange { start: 2, end: 5 });
        let mut rule = Ns2Sack1::default();
        rule.on_enter(&mut reno(), &mut sb, 10);
        assert_eq!(rule.pipe, 7);
        sb.on_retransmit(0, SimTime(1));
        sb.on_retransmit(1, SimTime(1));
        // A partial ACK of 0: one off for the ACK, one for being partial.
        sb.advance(1);
        rule.mark_losses(&mut sb, &ack(1));
        rule.on_partial_ack(&mut sb);
        assert_eq!(rule.pipe, 5);
        // SACKs far above the retransmitted 1 never mark it lost again (RFC 6675 mode would).
        sb.add_sack(SeqRange { start: 5, end: 10 });
        rule.mark_losses(&mut sb, &ack(0));
        assert_eq!(sb.next_retransmit(), None);
        assert_eq!(rule.pipe, 4);
        // Exit and timeout end the count; outside recovery the window is cwnd.
        rule.on_exit(&mut reno(), &mut sb, 5);
        assert_eq!(rule.window_for_sending(5, 3), 5);
        assert_eq!(rule.window_after_sending(5, 4), 5);
        sb.check_invariants();
    }

    #[test]
    fn nothing_is_marked_outside_recovery() {
        // Two duplicate ACKs with SACKs above a hole: RFC 6675 waits for three, ns-2 for the third
        // duplicate ACK. Neither marks the hole here.
        let mut sb = Scoreboard::with_sent(6);
        sb.add_sack(SeqRange { start: 1, end: 3 });
        let mut rule = Ns2Sack1::default();
        rule.mark_losses(&mut sb, &ack(0));
        rule.mark_losses(&mut sb, &ack(0));
        assert_eq!((sb.lost_out, rule.pipe), (0, 0));
    }
}
