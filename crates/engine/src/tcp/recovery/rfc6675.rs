//! SACK-based loss recovery, RFC 6675 (the default, `recovery = "sack"`).
//!
//! - IsLost (section 4, "DupThresh discontiguous SACKed sequences have arrived above"): a segment is lost
//!   once DupThresh (3) segments above it are SACKed; every such segment is marked on each ACK.
//! - Recovery starts at the first segment so marked (or the third duplicate ACK), and the first lost
//!   segment is retransmitted at once (section 4.3); then NextSeg sends lost segments first, new data
//!   after, while pipe < cwnd.
//! - A retransmission is lost once segments sent more than DupThresh after it are SACKed (Linux 2.6
//!   `tcp_mark_lost_retrans`): it is sent again without waiting for the RTO.

use crate::tcp::recovery::{AckEvent, LossRecovery};
use crate::tcp::scoreboard::{Scoreboard, DUP_THRESH};

#[derive(Clone, Debug, Default)]
pub struct Rfc6675;

/// RFC 6675 IsLost over the scoreboard: segments below the DupThresh-th highest SACKed one have
/// DupThresh SACKed above them. Returns how many were newly marked.
pub fn mark_lost_by_sack(sb: &mut Scoreboard) -> u32 {
    match sb.highest_sacked(DUP_THRESH) {
        Some(boundary) => sb.mark_lost_below(boundary),
        None => 0,
    }
}

impl LossRecovery for Rfc6675 {
    fn reads_sack(&self) -> bool {
        true
    }

    fn mark_losses(&mut self, sb: &mut Scoreboard, _ack: &AckEvent) {
        mark_lost_by_sack(sb);
        sb.mark_lost_retransmissions();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::SeqRange;
    use crate::time::SimTime;

    #[test]
    fn is_lost_needs_three_sacked_segments_above() {
        // Segments 0..10 out; 0 is lost; 1 and 2 SACKed: not enough. 3 SACKed: 0 is lost.
        let mut sb = Scoreboard::new();
        for _ in 0..10 {
            sb.push_new(SimTime(0));
        }
        sb.add_sack(SeqRange { start: 1, end: 3 });
        assert_eq!(mark_lost_by_sack(&mut sb), 0);
        sb.add_sack(SeqRange { start: 3, end: 4 });
        assert_eq!(mark_lost_by_sack(&mut sb), 1);
        assert!(sb.is_lost(0));
        // pipe: 10 out - 3 SACKed - 1 lost = 6.
        assert_eq!(sb.in_flight(), 6);
        assert_eq!(sb.next_retransmit(), Some(0));
        sb.on_retransmit(0, SimTime(1));
        assert_eq!(sb.in_flight(), 7);
        assert_eq!(sb.next_retransmit(), None);
        sb.check_invariants();
    }
}
