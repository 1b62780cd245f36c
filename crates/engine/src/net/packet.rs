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

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Payload {
    /// A data segment.
    Data {
        seq: u64,
        /// True when this transmission is a retransmission (Karn's rule needs it echoed).
        retransmission: bool,
        /// TCP's CWR flag: the sender has reduced its window after an ECN echo (RFC 3168 section 6.1.2).
        cwr: bool,
    },
    /// A pure acknowledgement. Its `Packet::sent_at` echoes the send time of the data packet that
    /// triggered it, like a TCP timestamp echo.
    Ack {
        /// Cumulative ACK: the next segment the receiver expects.
        cum_ack: u64,
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
        Payload::Ack { cum_ack, sack, n_sack: n as u8, echo_retransmission, ece }
    }

    /// The SACK blocks of an ACK as absolute ranges (none for data).
    pub fn sack_blocks(&self) -> impl Iterator<Item = SeqRange> + '_ {
        let (cum, blocks): (u64, &[SackBlock]) = match self {
            Payload::Ack { cum_ack, sack, n_sack, .. } => (*cum_ack, &sack[..*n_sack as usize]),
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
            payload: Payload::Data { seq, retransmission: false, cwr: false },
        }
    }

    /// The segment number of a data packet (a test that meets an ACK here has gone wrong).
    pub fn seq_of(pkt: &Packet) -> u64 {
        match pkt.payload {
            Payload::Data { seq, .. } => seq,
            Payload::Ack { .. } => panic!("expected a data packet, got {pkt:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn packet_stays_small() {
        // Packets are moved by value through queues and propagation lines: keep them within 2 cache lines.
        assert!(std::mem::size_of::<super::Packet>() <= 64, "{}", std::mem::size_of::<super::Packet>());
    }
}
