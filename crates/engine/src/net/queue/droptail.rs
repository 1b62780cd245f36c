//! DropTail: first in, first out, arrivals dropped when full (ns-2 `Queue/DropTail`).

use super::registry::{Discipline, DisciplineInfo, QueueLimits};
use super::{LinkInfo, Queue, QueueCounters};
use crate::net::packet::Packet;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// DropTail has no parameters beyond its `size`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DropTailConfig {}

impl Discipline for DropTailConfig {
    const INFO: DisciplineInfo = DisciplineInfo {
        name: "droptail",
        summary: "first in, first out; an arrival is dropped when the buffer is full",
        default_variant: "ns2",
        variants: &[("ns2", "ns-2.35 Queue/DropTail (queue/drop-tail.cc): drop when length + 1 >= limit")],
        params: &[],
    };
    fn variant(name: &str) -> Option<Self> {
        (name == "ns2").then(DropTailConfig::default)
    }
    fn build(self, limits: QueueLimits, _link: LinkInfo) -> Box<dyn Queue> {
        Box::new(DropTail::new(limits.packets, limits.bytes))
    }
}

/// First-in-first-out queue that drops arrivals when full (ns-2 `DropTail`).
///
/// The packet limit counts every packet in the router, the one being transmitted included: ns-2's
/// DropTail drops when `length + 1 >= limit`, where `length` counts waiting packets only. The link only
/// offers a packet to the queue while its transmitter is busy, so at most `limit - 1` packets wait. This
/// is what seed 000 means by a buffer that "can accommodate up to B packets". The byte limit counts
/// waiting bytes.
pub struct DropTail {
    packets: VecDeque<Packet>,
    limit_packets: usize,
    limit_bytes: Option<u64>,
    bytes: u64,
    counters: QueueCounters,
}

impl DropTail {
    pub fn new(limit_packets: usize, limit_bytes: Option<u64>) -> Self {
        DropTail { packets: VecDeque::with_capacity(limit_packets.min(1 << 16)), limit_packets, limit_bytes, bytes: 0, counters: QueueCounters::default() }
    }
}

impl Queue for DropTail {
    fn enqueue(&mut self, _now: SimTime, pkt: Packet) -> Result<(), Packet> {
        let over_bytes = self.limit_bytes.is_some_and(|b| self.bytes + pkt.size as u64 > b);
        if self.packets.len() + 1 >= self.limit_packets || over_bytes {
            self.counters.overflow_drops += 1;
            return Err(pkt);
        }
        self.bytes += pkt.size as u64;
        self.packets.push_back(pkt);
        Ok(())
    }
    fn dequeue(&mut self, _now: SimTime) -> Option<Packet> {
        let p = self.packets.pop_front()?;
        self.bytes -= p.size as u64;
        Some(p)
    }
    fn len_packets(&self) -> usize {
        self.packets.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn counters(&self) -> QueueCounters {
        self.counters
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::test_packets::data_packet;

    #[test]
    fn drops_when_full_in_packets_and_keeps_fifo_order() {
        // Limit 3 with a packet on the wire: two may wait.
        let mut q = DropTail::new(3, None);
        assert!(q.enqueue(SimTime(0), data_packet(1, 1500)).is_ok());
        assert!(q.enqueue(SimTime(0), data_packet(2, 1500)).is_ok());
        assert_eq!(q.enqueue(SimTime(0), data_packet(3, 1500)), Err(data_packet(3, 1500)));
        assert_eq!(q.len_bytes(), 3000);
        assert_eq!(q.dequeue(SimTime(0)), Some(data_packet(1, 1500)));
        assert_eq!(q.dequeue(SimTime(0)), Some(data_packet(2, 1500)));
        assert_eq!(q.dequeue(SimTime(0)), None);
        assert_eq!(q.len_bytes(), 0);
    }

    #[test]
    fn byte_limit_applies_too() {
        let mut q = DropTail::new(100, Some(3000));
        assert!(q.enqueue(SimTime(0), data_packet(1, 1500)).is_ok());
        assert!(q.enqueue(SimTime(0), data_packet(2, 1500)).is_ok());
        assert!(q.enqueue(SimTime(0), data_packet(3, 40)).is_err());
    }
}
