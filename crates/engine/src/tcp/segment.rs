//! What a sender hands to the network: a segment, as the few fields that change from one of its packets
//! to the next. The simulation makes the packet (`Sender::packet`) only where it puts it on its way.
//!
//! Why not the packet itself: a sender writes a packet field by field, and the simulation read it back at
//! once, in wider pieces, to copy it on. A load that spans several recent stores cannot take its bytes
//! from the store buffer and waits for them to reach the cache (a store-forwarding stall, 15-40 cycles).
//! A segment is written and read back in the same pieces, two 8-byte words and one 4-byte one, and the
//! packet is assembled from them in registers (docs/benchmarks.md, run 38; the receiver's ACK, run 37).

use crate::net::packet::Ecn;
use crate::time::SimTime;

/// One transmission of segment `seq` at `sent_at`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    pub sent_at: SimTime,
    /// `RETRANSMISSION`, `CWR` and `ECT` in one word, written and read whole.
    flags: u32,
}

const RETRANSMISSION: u32 = 1;
const CWR: u32 = 2;
const ECT: u32 = 4;

impl Segment {
    #[inline(always)]
    pub fn new(seq: u64, sent_at: SimTime, retransmission: bool, cwr: bool, ecn: Ecn) -> Segment {
        debug_assert!(ecn != Ecn::Ce, "a sender never marks congestion");
        let flags = (retransmission as u32 * RETRANSMISSION)
            | (cwr as u32 * CWR)
            | ((ecn == Ecn::Ect) as u32 * ECT);
        Segment { seq, sent_at, flags }
    }

    /// A retransmission (Karn's rule needs it echoed).
    #[inline(always)]
    pub fn retransmission(self) -> bool {
        self.flags & RETRANSMISSION != 0
    }

    /// TCP's CWR flag (RFC 3168 section 6.1.2).
    #[inline(always)]
    pub fn cwr(self) -> bool {
        self.flags & CWR != 0
    }

    /// ECN-capable (ECT) or not: a sender sends nothing else.
    #[inline(always)]
    pub fn ecn(self) -> Ecn {
        if self.flags & ECT != 0 {
            Ecn::Ect
        } else {
            Ecn::NotEct
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flags_come_back_as_they_went_in() {
        for retransmission in [false, true] {
            for cwr in [false, true] {
                for ecn in [Ecn::NotEct, Ecn::Ect] {
                    let s = Segment::new(u64::MAX - 3, SimTime(17), retransmission, cwr, ecn);
                    assert_eq!((s.seq, s.sent_at), (u64::MAX - 3, SimTime(17)));
                    assert_eq!((s.retransmission(), s.cwr(), s.ecn()), (retransmission, cwr, ecn));
                }
            }
        }
    }
}
