//! TCP receiver: cumulative ACKs with SACK blocks (RFC 2018), delayed ACKs as an option.
//!
//! Without delayed ACKs (the default, like ns-2's `TCPSink/Sack1`) every data packet is acknowledged at
//! once. With them, every second in-order packet is acknowledged, or after 100 ms (ns-2 `DelAck`
//! interval); out-of-order data and data filling a hole are acknowledged at once (RFC 5681 section 4.2).
//!
//! Quick ACKs (an option, `with_quick_acks`): Linux's receiver acknowledges the first segments of a
//! connection at once even with delayed ACKs (`tcp_event_data_recv` on the first data segment:
//! `tcp_incr_quickack`, quick = min(rcv_wnd / (2 rcv_mss), TCP_MAX_QUICKACKS = 16), decremented per
//! segment acknowledged). Only that start is modelled, not the re-arming on out-of-order data. It matters
//! for delay-based estimators: the first RTT sample then holds no wait for a second segment (CUBIC's
//! delay_min and HyStart, `cc/hystart.rs`).
//!
//! ECN (RFC 3168 section 6.1.3): once a data packet arrives marked CE, every ACK carries ECE until a data
//! packet with CWR arrives; a CE-marked packet is acknowledged at once, not delayed.

use crate::net::packet::{Direction, Ecn, Packet, Payload, SeqRange, MAX_SACK_BLOCKS};
use crate::tcp::reassembly::{Arrival, Reassembly};
use crate::time::{SimDuration, SimTime};

pub const DELAYED_ACK_TIMEOUT: SimDuration = SimDuration::from_millis(100);

pub struct Receiver {
    flow: u32,
    ack_size: u32,
    delayed_ack: bool,
    /// rcv_nxt and the segments received above it.
    window: Reassembly,
    /// The blocks holding the most recently received out-of-order segments, newest first (RFC 2018
    /// section 4: the first block holds the latest segment, the others repeat the latest reported). Kept
    /// up to date as blocks join, so that an ACK needs no search.
    recent: [Option<SeqRange>; MAX_SACK_BLOCKS],
    /// In-order packets not yet acknowledged (delayed ACKs).
    unacked: u32,
    /// Send time echoed in the next ACK and whether that packet was a retransmission.
    echo: (SimTime, bool),
    delack_deadline: Option<SimTime>,
    /// Packets delivered in order to the application.
    delivered: u64,
    /// Data packets received that were already received (spurious retransmissions).
    duplicates: u64,
    /// Every data packet that reached the receiver.
    received: u64,
    /// ECN echo: set ECE on ACKs (a CE mark seen, CWR not yet).
    ece: bool,
    /// In-order segments still to be acknowledged at once despite delayed ACKs (quick ACKs).
    quick_acks_left: u32,
}

impl Receiver {
    pub fn new(flow: u32, ack_size: u32, delayed_ack: bool) -> Self {
        Receiver {
            flow,
            ack_size,
            delayed_ack,
            window: Reassembly::new(),
            recent: [None; MAX_SACK_BLOCKS],
            unacked: 0,
            echo: (SimTime::ZERO, false),
            delack_deadline: None,
            delivered: 0,
            duplicates: 0,
            received: 0,
            ece: false,
            quick_acks_left: 0,
        }
    }

    /// Acknowledge the first `segments` in-order data segments at once, as Linux's quick-ACK mode does
    /// at a connection's start; only meaningful with delayed ACKs.
    pub fn with_quick_acks(mut self, segments: u32) -> Self {
        self.quick_acks_left = segments;
        self
    }

    pub fn delivered(&self) -> u64 {
        self.delivered
    }
    pub fn duplicates(&self) -> u64 {
        self.duplicates
    }
    pub fn received(&self) -> u64 {
        self.received
    }
    pub fn timer_deadline(&self) -> Option<SimTime> {
        self.delack_deadline
    }

    pub fn on_data(&mut self, now: SimTime, pkt: &Packet, out: &mut Vec<Packet>) {
        if self.take_data(now, pkt) {
            out.push(self.ack());
        }
    }

    /// `on_data` without the output: takes the data packet and says whether an ACK is due now, which
    /// `ack` then gives. The simulation's hand-off path keeps that ACK in registers on its way to the
    /// next link's ring, rather than reading it back from `out` at once (docs/benchmarks.md, run 37).
    #[inline(always)]
    pub fn take_data(&mut self, now: SimTime, pkt: &Packet) -> bool {
        let Payload::Data { seq, retransmission, cwr } = pkt.payload else { return false };
        let seq = seq.get();
        self.received += 1;
        // CWR first: a packet that carries CWR and is itself marked CE starts a new echo.
        if cwr {
            self.ece = false;
        }
        let congestion_experienced = pkt.ecn == Ecn::Ce;
        if congestion_experienced {
            self.ece = true;
        }
        let was_in_order = seq == self.window.rcv_nxt() && !self.window.has_out_of_order();
        match self.window.receive(seq) {
            Arrival::Duplicate => {
                self.duplicates += 1;
                self.echo = (pkt.sent_at, retransmission);
                return true;
            }
            // A filled hole releases the contiguous out-of-order data behind it (inside `receive`).
            Arrival::InOrder => {}
            Arrival::OutOfOrder { block, joined_below, joined_above } => {
                for recent in self.recent.iter_mut().flatten() {
                    if Some(*recent) == joined_below || Some(*recent) == joined_above {
                        *recent = block;
                    }
                }
                self.recent.rotate_right(1);
                self.recent[0] = Some(block);
            }
        }
        self.delivered = self.window.rcv_nxt();

        if self.delayed_ack && was_in_order && !congestion_experienced && self.quick_acks_left > 0 {
            self.quick_acks_left -= 1;
            self.echo = (pkt.sent_at, retransmission);
            true
        } else if self.delayed_ack && was_in_order && !congestion_experienced {
            // RFC 7323 echoes the oldest unacknowledged packet's time stamp when ACKs are delayed.
            if self.unacked == 0 {
                self.echo = (pkt.sent_at, retransmission);
            }
            self.unacked += 1;
            if self.unacked >= 2 {
                true
            } else {
                if self.delack_deadline.is_none() {
                    self.delack_deadline = Some(now + DELAYED_ACK_TIMEOUT);
                }
                false
            }
        } else {
            self.echo = (pkt.sent_at, retransmission);
            true
        }
    }

    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if self.delack_deadline.is_some_and(|d| d <= now) && self.unacked > 0 {
            out.push(self.ack());
        }
        if self.delack_deadline.is_some_and(|d| d <= now) {
            self.delack_deadline = None;
        }
    }

    /// The ACK due now (`take_data`), which acknowledges everything received so far.
    #[inline(always)]
    pub fn ack(&mut self) -> Packet {
        let mut blocks = [SeqRange::default(); MAX_SACK_BLOCKS];
        let mut n = 0;
        // With nothing held above rcv_nxt every block reported earlier has been delivered in order
        // since, so none is reported: the test below would refuse each, and most ACKs are of this kind.
        if self.window.has_out_of_order() {
            for &block in self.recent.iter().flatten() {
                // Blocks delivered in order since are no longer reported.
                if self.window.is_above(block) && !blocks[..n].contains(&block) {
                    blocks[n] = block;
                    n += 1;
                }
            }
        }
        self.unacked = 0;
        self.delack_deadline = None;
        Packet {
            flow: self.flow,
            dir: Direction::Reverse,
            hop: 0,
            size: self.ack_size,
            sent_at: self.echo.0,
            ecn: Ecn::NotEct,
            payload: Payload::ack(self.window.rcv_nxt(), &blocks[..n], self.echo.1, self.ece),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(seq: u64) -> Packet {
        Packet {
            flow: 0,
            dir: Direction::Forward,
            hop: 0,
            size: 1500,
            sent_at: SimTime(seq),
            ecn: Ecn::NotEct,
            payload: Payload::Data { seq: seq.into(), retransmission: false, cwr: false },
        }
    }
    fn ack_of(p: &Packet) -> (u64, Vec<(u64, u64)>) {
        match p.payload {
            Payload::Ack { cum_ack, .. } => (cum_ack.get(), p.payload.sack_blocks().map(|r| (r.start, r.end)).collect()),
            _ => panic!("not an ACK"),
        }
    }

    #[test]
    fn in_order_data_is_acked_cumulatively_without_sack() {
        let mut r = Receiver::new(0, 40, false);
        let mut out = vec![];
        for s in 0..3 {
            r.on_data(SimTime(0), &data(s), &mut out);
        }
        assert_eq!(out.iter().map(ack_of).collect::<Vec<_>>(), vec![(1, vec![]), (2, vec![]), (3, vec![])]);
        assert_eq!(r.delivered(), 3);
    }

    #[test]
    fn holes_produce_sack_blocks_most_recent_first() {
        // 0 arrives, 1 is lost, 2-3 arrive, 4 is lost, 5 arrives: SACK (5,6) then (2,4).
        let mut r = Receiver::new(0, 40, false);
        let mut out = vec![];
        for s in [0, 2, 3, 5] {
            r.on_data(SimTime(0), &data(s), &mut out);
        }
        assert_eq!(ack_of(&out[3]), (1, vec![(5, 6), (2, 4)]));
        // The retransmission of 1 fills the first hole: cumulative ACK 4, SACK (5,6) still reported.
        r.on_data(SimTime(0), &data(1), &mut out);
        assert_eq!(ack_of(&out[4]), (4, vec![(5, 6)]));
        r.on_data(SimTime(0), &data(4), &mut out);
        assert_eq!(ack_of(&out[5]), (6, vec![]));
        assert_eq!(r.delivered(), 6);
    }

    #[test]
    fn a_segment_joining_reported_blocks_reports_the_joined_block_once() {
        // 0 arrives; 1 and 3 lost; 2 and 4 arrive: SACK (4,5), (2,3). 3 arrives and joins both into
        // (2,5): reported once, not once per earlier block. 6 arrives: (6,7) first, then (2,5).
        let mut r = Receiver::new(0, 40, false);
        let mut out = vec![];
        for s in [0, 2, 4] {
            r.on_data(SimTime(0), &data(s), &mut out);
        }
        assert_eq!(ack_of(&out[2]), (1, vec![(4, 5), (2, 3)]));
        r.on_data(SimTime(0), &data(3), &mut out);
        assert_eq!(ack_of(&out[3]), (1, vec![(2, 5)]));
        r.on_data(SimTime(0), &data(6), &mut out);
        assert_eq!(ack_of(&out[4]), (1, vec![(6, 7), (2, 5)]));
        // 1 fills the first hole: cumulative ACK 5, and (2,5) is no longer reported.
        r.on_data(SimTime(0), &data(1), &mut out);
        assert_eq!(ack_of(&out[5]), (5, vec![(6, 7)]));
    }

    #[test]
    fn delayed_acks_ack_every_second_packet_or_after_the_timer() {
        let mut r = Receiver::new(0, 40, true);
        let mut out = vec![];
        r.on_data(SimTime(0), &data(0), &mut out);
        assert!(out.is_empty());
        assert_eq!(r.timer_deadline(), Some(SimTime(0) + DELAYED_ACK_TIMEOUT));
        r.on_data(SimTime(1), &data(1), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(ack_of(&out[0]).0, 2);
        r.on_data(SimTime(2), &data(2), &mut out);
        r.on_timer(SimTime(2) + DELAYED_ACK_TIMEOUT, &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(ack_of(&out[1]).0, 3);
        // Out-of-order data is acknowledged at once.
        r.on_data(SimTime(3), &data(5), &mut out);
        assert_eq!(out.len(), 3);
    }

    #[test]
    fn quick_acks_acknowledge_the_first_segments_at_once() {
        // Two quick ACKs: segments 0 and 1 are acknowledged one by one (cum 1, 2) with their own send
        // times echoed; segment 2 then waits for segment 3, and their ACK (cum 4) echoes segment 2's time.
        let mut r = Receiver::new(0, 40, true).with_quick_acks(2);
        let mut out = vec![];
        r.on_data(SimTime(0), &data(0), &mut out);
        r.on_data(SimTime(1), &data(1), &mut out);
        assert_eq!(out.iter().map(|p| (ack_of(p).0, p.sent_at.0)).collect::<Vec<_>>(), [(1, 0), (2, 1)]);
        r.on_data(SimTime(2), &data(2), &mut out);
        assert_eq!(out.len(), 2);
        r.on_data(SimTime(3), &data(3), &mut out);
        assert_eq!((ack_of(&out[2]).0, out[2].sent_at.0), (4, 2));
        // Without delayed ACKs the option changes nothing: every segment is acknowledged anyway.
        let mut plain = Receiver::new(0, 40, false).with_quick_acks(2);
        let mut out = vec![];
        for seq in 0..4 {
            plain.on_data(SimTime(seq), &data(seq), &mut out);
        }
        assert_eq!(out.len(), 4);
    }

    #[test]
    fn duplicates_are_counted_and_acked() {
        let mut r = Receiver::new(0, 40, false);
        let mut out = vec![];
        r.on_data(SimTime(0), &data(0), &mut out);
        r.on_data(SimTime(0), &data(0), &mut out);
        assert_eq!(r.duplicates(), 1);
        assert_eq!(out.len(), 2);
    }
}
