//! NewReno without SACK, RFC 6582 (`recovery = "newreno"`).
//!
//! - SACK blocks are ignored. As in Linux (`tcp_add_reno_sack`, `tcp_remove_reno_sacks`), each duplicate
//!   ACK stands for one segment that left the network: it counts as SACKed in pipe, and a cumulative ACK
//!   of n segments takes n - 1 of these back (one of them was the hole itself).
//! - Recovery starts at the third duplicate ACK (the sender marks snd_una lost); the first lost segment is
//!   retransmitted at once (step 2).
//! - A partial ACK (step 5: new data acknowledged, the recovery point not yet) shows the next hole: the
//!   segment at the new snd_una is lost too.
//! - The emulated count is cleared when recovery ends and on a timeout.

use crate::cc::CongestionControl;
use crate::tcp::recovery::{AckEvent, LossRecovery};
use crate::tcp::scoreboard::Scoreboard;

#[derive(Clone, Debug, Default)]
pub struct Rfc6582 {
    /// Duplicate ACKs standing in for SACKed segments.
    emulated_sacked: u32,
}

impl Rfc6582 {
    fn clear(&mut self, sb: &mut Scoreboard) {
        self.emulated_sacked = 0;
        sb.set_emulated_sacked(0);
    }
}

impl LossRecovery for Rfc6582 {
    fn reads_sack(&self) -> bool {
        false
    }

    fn mark_losses(&mut self, sb: &mut Scoreboard, ack: &AckEvent) {
        if ack.duplicate {
            self.emulated_sacked += 1;
        } else if ack.acked > 0 {
            self.emulated_sacked -= (ack.acked - 1).min(self.emulated_sacked);
        }
        sb.set_emulated_sacked(self.emulated_sacked);
    }

    fn on_partial_ack(&mut self, sb: &mut Scoreboard) {
        let una = sb.snd_una();
        sb.mark_lost(una);
    }

    fn on_exit(&mut self, _cc: &mut dyn CongestionControl, sb: &mut Scoreboard, _held_cwnd: u32) {
        self.clear(sb);
    }

    fn on_timeout(&mut self, sb: &mut Scoreboard) {
        self.clear(sb);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    #[test]
    fn duplicate_acks_stand_for_segments_that_left_the_network() {
        // 10 out. Three duplicate ACKs: 3 "SACKed", pipe 10 - 3 = 7. A partial ACK of 4 segments (the
        // hole and the three that caused the duplicates) takes 3 back: none left, pipe = 6 out.
        let mut sb = Scoreboard::new();
        for _ in 0..10 {
            sb.push_new(SimTime(0));
        }
        let mut rule = Rfc6582::default();
        for _ in 0..3 {
            rule.mark_losses(&mut sb, &AckEvent { acked: 0, duplicate: true, prior_sacked: 0, retransmitted_acked: false });
        }
        assert_eq!((sb.sacked_out, sb.in_flight()), (3, 7));
        sb.advance(4);
        rule.mark_losses(&mut sb, &AckEvent { acked: 4, duplicate: false, prior_sacked: 0, retransmitted_acked: false });
        assert_eq!((sb.sacked_out, sb.in_flight()), (0, 6));
        // The partial ACK marks the new snd_una (4) lost: pipe 5, and it is the next to retransmit.
        rule.on_partial_ack(&mut sb);
        assert_eq!((sb.in_flight(), sb.next_retransmit()), (5, Some(4)));
    }
}
