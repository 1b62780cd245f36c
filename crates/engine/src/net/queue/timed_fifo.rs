//! A first-in-first-out store that remembers when each packet was enqueued, for the disciplines that
//! measure sojourn time (CoDel, FQ-CoDel's flow queues, PIE with timestamps). The times are kept in a
//! parallel deque rather than in `Packet`, which stays the same for every discipline.

use crate::net::packet::Packet;
use crate::time::SimTime;
use std::collections::VecDeque;

#[derive(Default)]
pub struct TimedFifo {
    packets: VecDeque<Packet>,
    /// `enqueued_at[i]` is when `packets[i]` entered the queue.
    enqueued_at: VecDeque<SimTime>,
    bytes: u64,
}

impl TimedFifo {
    pub fn new() -> Self {
        TimedFifo::default()
    }
    pub fn push(&mut self, now: SimTime, pkt: Packet) {
        self.bytes += pkt.size as u64;
        self.packets.push_back(pkt);
        self.enqueued_at.push_back(now);
    }
    /// The head packet and its enqueue time.
    pub fn pop(&mut self) -> Option<(Packet, SimTime)> {
        let pkt = self.packets.pop_front()?;
        let at = self.enqueued_at.pop_front().expect("one enqueue time per packet");
        self.bytes -= pkt.size as u64;
        Some((pkt, at))
    }
    pub fn len(&self) -> usize {
        self.packets.len()
    }
    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }
    /// Bytes waiting.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::test_packets::data_packet;

    #[test]
    fn keeps_each_packet_with_its_enqueue_time_in_order() {
        let mut q = TimedFifo::new();
        q.push(SimTime(5), data_packet(1, 1500));
        q.push(SimTime(9), data_packet(2, 40));
        assert_eq!((q.len(), q.bytes()), (2, 1540));
        assert_eq!(q.pop(), Some((data_packet(1, 1500), SimTime(5))));
        assert_eq!(q.pop(), Some((data_packet(2, 40), SimTime(9))));
        assert_eq!(q.pop(), None);
        assert_eq!(q.bytes(), 0);
    }
}
