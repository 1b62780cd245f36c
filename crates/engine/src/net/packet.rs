//! Packets on the wire. Sequence numbers count segments (all data segments of a flow have the same size),
//! so the scoreboard can index by `seq - snd_una` without byte arithmetic.

use crate::time::SimTime;

/// Most SACK blocks an ACK carries (RFC 2018 allows 3 with timestamps, 4 without; ns-2's Sack1 sink uses 3).
pub const MAX_SACK_BLOCKS: usize = 3;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Sender to receiver (data).
    Forward = 0,
    /// Receiver to sender (ACKs).
    Reverse = 1,
}

/// A half-open range of segment numbers `[start, end)`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SeqRange {
    pub start: u64,
    pub end: u64,
}

/// A SACK block as an offset from the ACK's cumulative acknowledgement: keeps ACKs small, and a block
/// is always within 2^32 segments of the cumulative ACK (the window is far smaller).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    offset: u32,
    len: u32,
}

/// A segment number as a packet carries it: a `u64` stored at 4-byte alignment, so that `Payload` needs
/// no 8-byte alignment and packs into 36 bytes (an ACK's 35 bytes of fields, the variant in one of its
/// flags' spare values) instead of 40. With it a `Packet` is 56 bytes instead of 64, and a propagation
/// line's entry, arrival time and packet, 64 bytes instead of 72. A line is written at one hop and read
/// back milliseconds later, after thousands of other flows' packets, so with 1000 flows nearly every
/// entry is a cache miss, and fewer bytes per entry are fewer misses (docs/benchmarks.md, runs 10 and
/// 11). x86-64 reads and writes it unaligned at the speed of an aligned `u64`.
#[derive(Copy, Clone, PartialEq, Eq)]
#[repr(C, packed(4))]
pub struct SeqNo(u64);

impl SeqNo {
    #[inline]
    pub fn get(self) -> u64 {
        self.0
    }
}

impl From<u64> for SeqNo {
    #[inline]
    fn from(seq: u64) -> SeqNo {
        SeqNo(seq)
    }
}

impl std::fmt::Debug for SeqNo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Payload {
    /// A data segment.
    Data {
        seq: SeqNo,
        /// True when this transmission is a retransmission (Karn's rule needs it echoed).
        retransmission: bool,
        /// TCP's CWR flag: the sender has reduced its window after an ECN echo (RFC 3168 section 6.1.2).
        cwr: bool,
    },
    /// A pure acknowledgement. Its `Packet::sent_at` echoes the send time of the data packet that
    /// triggered it, like a TCP timestamp echo.
    Ack {
        /// Cumulative ACK: the next segment the receiver expects.
        cum_ack: SeqNo,
        /// SACK blocks, most recent first; `n_sack` of them are valid.
        sack: [SackBlock; MAX_SACK_BLOCKS],
        n_sack: u8,
        /// Whether the echoed data packet was a retransmission (then no RTT sample is taken: Karn).
        echo_retransmission: bool,
        /// TCP's ECE flag: the receiver saw a CE mark and has not yet seen CWR (RFC 3168 section 6.1.3).
        ece: bool,
    },
}

impl Payload {
    /// An ACK with SACK blocks given as absolute ranges, all above `cum_ack`.
    pub fn ack(cum_ack: u64, blocks: &[SeqRange], echo_retransmission: bool, ece: bool) -> Payload {
        let mut sack = [SackBlock::default(); MAX_SACK_BLOCKS];
        let n = blocks.len().min(MAX_SACK_BLOCKS);
        for (slot, r) in sack.iter_mut().zip(blocks) {
            debug_assert!(r.start > cum_ack && r.end > r.start);
            *slot = SackBlock { offset: (r.start - cum_ack) as u32, len: (r.end - r.start) as u32 };
        }
        Payload::Ack { cum_ack: cum_ack.into(), sack, n_sack: n as u8, echo_retransmission, ece }
    }

    /// The SACK blocks of an ACK as absolute ranges (none for data).
    pub fn sack_blocks(&self) -> impl Iterator<Item = SeqRange> + '_ {
        let (cum, blocks): (u64, &[SackBlock]) = match self {
            Payload::Ack { cum_ack, sack, n_sack, .. } => (cum_ack.get(), &sack[..*n_sack as usize]),
            Payload::Data { .. } => (0, &[]),
        };
        blocks.iter().map(move |b| {
            let start = cum + b.offset as u64;
            SeqRange { start, end: start + b.len as u64 }
        })
    }
}

/// The IP header's ECN field (RFC 3168 section 5). Senders that do not negotiate ECN send `NotEct`; an
/// AQM may set `Ce` on an `Ect` packet instead of dropping it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Ecn {
    #[default]
    NotEct,
    Ect,
    Ce,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    pub flow: u32,
    pub dir: Direction,
    /// Index of the link on this packet's path it is on (or has just left).
    pub hop: u8,
    /// Bytes on the wire.
    pub size: u32,
    /// When the endpoint handed it to the network.
    pub sent_at: SimTime,
    pub ecn: Ecn,
    pub payload: Payload,
}

impl Packet {
    /// A packet that stands for none: what a ring's slots hold before their first write (`net::line`).
    pub const PLACEHOLDER: Packet = Packet {
        flow: 0,
        dir: Direction::Forward,
        hop: 0,
        size: 0,
        sent_at: SimTime(0),
        ecn: Ecn::NotEct,
        payload: Payload::Data { seq: SeqNo(0), retransmission: false, cwr: false },
    };
}

impl SeqRange {
    pub fn len(&self) -> u64 {
        self.end - self.start
    }
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }
}

/// The packets the link, queue and processing tests feed, built in one place so that a new `Packet` field
/// is added here only.
#[cfg(test)]
pub mod test_packets {
    use super::{Direction, Ecn, Packet, Payload};
    use crate::time::SimTime;

    /// First transmission of data segment `seq` of flow 0, forward, `size` bytes on the wire, sent at 0, not
    /// ECN-capable. Vary the rest with struct update: `Packet { ecn: Ecn::Ect, ..data_packet(1, 1500) }`.
    pub fn data_packet(seq: u64, size: u32) -> Packet {
        Packet {
            flow: 0,
            dir: Direction::Forward,
            hop: 0,
            size,
            sent_at: SimTime(0),
            ecn: Ecn::NotEct,
            payload: Payload::Data { seq: seq.into(), retransmission: false, cwr: false },
        }
    }

    /// The segment number of a data packet (a test that meets an ACK here has gone wrong).
    pub fn seq_of(pkt: &Packet) -> u64 {
        match pkt.payload {
            Payload::Data { seq, .. } => seq.get(),
            Payload::Ack { .. } => panic!("expected a data packet, got {pkt:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Packet, Payload};
    use crate::time::SimTime;
    use std::mem::size_of;

    #[test]
    fn packet_stays_small() {
        // Packets are moved by value through queues and propagation lines, whose entries are an arrival
        // time and a packet: 8 + 56 bytes, the size of a cache line (`SeqNo`). The payload is an ACK's
        // 8 + 3 x 8 + 3 bytes of fields = 35, rounded up to its 4-byte alignment; the packet adds 8
        // (sent_at) + 4 (flow) + 4 (size) + 3 (dir, hop, ecn) = 55, rounded up to its 8-byte alignment.
        assert_eq!(size_of::<Payload>(), 36);
        assert_eq!(size_of::<Packet>(), 56);
        assert_eq!(size_of::<(SimTime, Packet)>(), 64);
    }
}
