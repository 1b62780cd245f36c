//! A propagation line: the packets on a link's wire, with their arrival times at the far end, first in
//! first out (`net::link`). A ring of power-of-two capacity, so that an index wraps with a mask instead
//! of std's `VecDeque` compare-and-subtract, and a pop hands back the next head's time with the packet:
//! every data packet and its ACK pass four such lines, and the pop and push are most of a line's cost.

use crate::net::packet::Packet;
use crate::time::SimTime;

#[derive(Default)]
pub struct Line {
    /// The ring: entries `head .. head + len` (wrapping) are on the wire; the others are stale copies.
    slots: Vec<(SimTime, Packet)>,
    head: usize,
    len: usize,
}

impl Line {
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A packet enters the wire; it reaches the far end at `arrival`, after every packet already on it.
    #[inline(always)]
    pub fn push(&mut self, arrival: SimTime, pkt: Packet) {
        if self.len == self.slots.len() {
            self.grow(arrival, pkt);
        }
        let mask = self.slots.len() - 1;
        self.slots[(self.head + self.len) & mask] = (arrival, pkt);
        self.len += 1;
    }

    /// The head leaves the wire: its arrival time and packet, and the next head's arrival time.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(SimTime, Packet, Option<SimTime>)> {
        if self.len == 0 {
            return None;
        }
        let mask = self.slots.len() - 1;
        let (arrival, pkt) = self.slots[self.head];
        self.head = (self.head + 1) & mask;
        self.len -= 1;
        let next = (self.len > 0).then(|| self.slots[self.head].0);
        Some((arrival, pkt, next))
    }

    /// Double the ring (at least 4 entries, as std's `VecDeque` grows, so that a line takes the memory it
    /// took as one), unwrapping the entries on the wire to its start; the new slots hold copies of
    /// `filler` until written.
    #[inline(never)]
    fn grow(&mut self, arrival: SimTime, filler: Packet) {
        let capacity = (self.slots.len() * 2).max(4);
        let mut slots = Vec::with_capacity(capacity);
        let mask = self.slots.len().wrapping_sub(1);
        slots.extend((0..self.len).map(|i| self.slots[(self.head + i) & mask]));
        slots.resize(capacity, (arrival, filler));
        self.slots = slots;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::test_packets::{data_packet, seq_of};

    #[test]
    fn packets_leave_in_the_order_they_entered_across_wraps_and_growth() {
        // Push 5 (the ring grows from 4 to 8 slots at the 5th), pop 3, push 10 more: the ring wraps (head
        // at slot 3 of 8) and grows to 16 when a 9th is on the wire, 12 in the end. Then everything leaves in order 0..15, each with the next head's
        // time (segment number + 100) but the last.
        let mut line = Line::default();
        let mut out = vec![];
        for seq in 0..5 {
            line.push(SimTime(seq + 100), data_packet(seq, 1500));
        }
        for _ in 0..3 {
            out.push(line.pop().unwrap());
        }
        for seq in 5..15 {
            line.push(SimTime(seq + 100), data_packet(seq, 1500));
        }
        assert_eq!(line.len(), 12);
        while let Some(entry) = line.pop() {
            out.push(entry);
        }
        let got: Vec<(u64, u64, Option<u64>)> = out.iter().map(|(t, p, n)| (t.0, seq_of(p), n.map(|n| n.0))).collect();
        let want: Vec<(u64, u64, Option<u64>)> = (0..15).map(|s| (s + 100, s, (s < 14).then_some(s + 101))).collect();
        assert_eq!(got, want);
        assert!(line.is_empty());
        assert!(line.pop().is_none());
    }
}
