//! A propagation line: the packets on a link's wire, with their arrival times at the far end, first in
//! first out (`net::link`). A ring of power-of-two capacity, so that an index wraps with a mask instead
//! of std's `VecDeque` compare-and-subtract, and a pop hands back the next head's time with the packet:
//! every data packet and its ACK pass four such lines, and the pop and push are most of a line's cost.
//!
//! The ring gives room back when it holds far less than it has room for (`spare`, called by the link,
//! which decides how often to ask), so that memory follows the packets on the wire; a small ring may
//! keep it instead, within a bound on all kept rings (`keep_or_give_back_spare`). When it grows or
//! gives room back it swaps its buffer for one of the new size from the simulation's `LinePool`, and
//! leaves the old one there, rather than allocating, filling and freeing (`net::line_pool`).

use crate::hint::prefetch;
use crate::net::line_pool::LinePool;
use crate::net::packet::Packet;
use crate::spare::{kept_capacity, spare_room};
use crate::time::SimTime;

/// Entries (64 bytes each) a line keeps room for however short it gets (`spare`): 1 KB, so that an
/// access line holding a few packets of its flow never reallocates.
pub const FLOOR: usize = 16;

/// A packet on a propagation line, with its arrival time at the far end: 64 bytes (`packet_stays_small`),
/// aligned to a cache line so that each entry is one line of memory. With the allocator's 16-byte
/// alignment three entries in four straddled two lines. An entry is written at one hop and read back
/// a propagation delay later; with 1000 flows, thousands of other flows' packets pass in between, so
/// the read nearly always misses the cache, and a straddling entry missed twice (cachegrind at 1000
/// flows, 10 Gbit/s: half of all first-level data misses were these reads; docs/benchmarks.md, run 18b).
#[derive(Copy, Clone, Debug)]
#[repr(align(64))]
pub struct OnLine {
    pub(crate) arrival: SimTime,
    pub(crate) pkt: Packet,
}

#[derive(Default)]
pub struct Line {
    /// The ring: entries `head .. head + len` (wrapping) are on the wire; the others are stale copies.
    slots: Vec<OnLine>,
    head: usize,
    len: usize,
    /// Below this length the ring has spare room to give back (`spare::spare_room` for its capacity and
    /// `FLOOR`, 0 if none), set when the ring is reallocated: the test after every pop is one compare.
    /// Also 0 while the ring keeps its room (`keeps`).
    spare_below: usize,
    /// The ring kept its spare room, counted in the pool's kept room (`keep_or_give_back_spare`), until it
    /// next reallocates.
    keeps: bool,
}

impl Line {
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The ring's buffer, for tests of the pool.
    #[cfg(test)]
    pub fn into_slots(self) -> Vec<OnLine> {
        self.slots
    }
    /// Slots in the ring: entries it can hold before it grows.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// A packet enters the wire; it reaches the far end at `arrival`, after every packet already on it.
    /// A full ring grows, with a buffer from `lines` if it has one of the size.
    #[inline(always)]
    pub fn push(&mut self, arrival: SimTime, pkt: Packet, lines: &mut LinePool) {
        if self.len == self.slots.len() {
            self.grow(lines);
        }
        let mask = self.slots.len() - 1;
        self.slots[(self.head + self.len) & mask] = OnLine { arrival, pkt };
        self.len += 1;
        // The slot the next push writes (`hint`), where many lines share the cache (`LinePool::hints_pushes`).
        if lines.hints_pushes() {
            prefetch(&self.slots[(self.head + self.len) & mask]);
        }
    }

    /// When the last packet pushed reaches the far end.
    #[inline(always)]
    pub fn tail_arrival(&self) -> Option<SimTime> {
        (self.len > 0).then(|| self.slots[(self.head + self.len - 1) & (self.slots.len() - 1)].arrival)
    }

    /// The head leaves the wire: its arrival time and packet, and the next head's arrival time.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(SimTime, Packet, Option<SimTime>)> {
        if self.len == 0 {
            return None;
        }
        let mask = self.slots.len() - 1;
        let OnLine { arrival, pkt } = self.slots[self.head];
        self.head = (self.head + 1) & mask;
        self.len -= 1;
        // The entry the pop after next reads; the next head's is read below (`hint`).
        prefetch(&self.slots[(self.head + 1) & mask]);
        let next = (self.len > 0).then(|| self.slots[self.head].arrival);
        Some((arrival, pkt, next))
    }

    /// Double the ring (at least 4 entries, as std's `VecDeque` grows, so that a line takes the memory it
    /// took as one); a new buffer's slots hold a placeholder until written. Not the packet being pushed,
    /// as they did: passing it here kept that packet in memory at every push (docs/benchmarks.md, run 37).
    #[inline(never)]
    fn grow(&mut self, lines: &mut LinePool) {
        let capacity = (self.slots.len() * 2).max(4);
        self.reallocate(capacity, lines);
    }

    /// Whether the ring has room to give back (`spare`: it holds under an eighth of its room, and more
    /// than `FLOOR` entries' room).
    #[inline(always)]
    pub fn has_spare(&self) -> bool {
        debug_assert_eq!(self.len < self.spare_below, !self.keeps && spare_room(self.len, self.slots.len(), FLOOR));
        self.len < self.spare_below
    }

    /// Move to a smaller ring if `has_spare` (twice the length rounded up to a power of two, never below
    /// `FLOOR`); the old buffer goes to `lines`.
    #[cold]
    #[inline(never)]
    pub fn give_back_spare(&mut self, lines: &mut LinePool) {
        if self.has_spare() {
            self.reallocate(kept_capacity(self.len, FLOOR), lines);
        }
    }

    /// As `give_back_spare`, but keep the room instead while the pool's bound on kept room allows
    /// (`LinePool::keep`): the ring then stops asking (`has_spare` is false) until it next grows. A line
    /// that carries its flow's window as trains empties and refills every round trip; giving room back
    /// as each train drained and growing again at the next was 6.9 % of the example's instructions
    /// (docs/benchmarks.md, run 22b). The bound keeps the rings compact where that matters, with many
    /// lines (`line_pool`), and memory bounded by what is in flight plus the bound.
    #[cold]
    #[inline(never)]
    pub fn keep_or_give_back_spare(&mut self, lines: &mut LinePool) {
        if self.has_spare() {
            if lines.keep(self.slots.len()) {
                self.keeps = true;
                self.spare_below = 0;
            } else {
                self.reallocate(kept_capacity(self.len, FLOOR), lines);
            }
        }
    }

    /// Move the entries on the wire to a ring of `capacity` slots (a power of two, at least the length),
    /// unwrapped to its start, taken from `lines` if it holds one of the size (its other slots hold stale
    /// entries, never read), else new with a placeholder there; the old buffer goes to `lines`.
    fn reallocate(&mut self, capacity: usize, lines: &mut LinePool) {
        debug_assert!(capacity.is_power_of_two() && capacity >= self.len);
        // The entries in order: from the head to the end of the old buffer, then the wrapped rest; two
        // block copies (memcpy's vector moves), where a copy entry by entry through the index mask cost
        // 119 more instructions per packet at 1000 flows and a fifth more CPU time (run 20a).
        let before_wrap = (self.slots.len() - self.head).min(self.len);
        let (wrapped, from_head) = self.slots.split_at(self.head);
        let (first, second) = (&from_head[..before_wrap], &wrapped[..self.len - before_wrap]);
        let slots = match lines.take(capacity) {
            Some(mut slots) => {
                slots[..before_wrap].copy_from_slice(first);
                slots[before_wrap..self.len].copy_from_slice(second);
                slots
            }
            None => {
                let mut slots = Vec::with_capacity(capacity);
                slots.extend_from_slice(first);
                slots.extend_from_slice(second);
                slots.resize(capacity, OnLine { arrival: SimTime(0), pkt: Packet::PLACEHOLDER });
                slots
            }
        };
        if self.keeps {
            lines.release(self.slots.len());
            self.keeps = false;
        }
        lines.give(std::mem::replace(&mut self.slots, slots));
        self.head = 0;
        self.spare_below = if capacity > FLOOR { capacity / 8 } else { 0 };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::test_packets::{data_packet, seq_of};

    #[test]
    fn a_line_entry_is_one_cache_line() {
        // 8 bytes of arrival time + a 56-byte packet = 64, at 64-byte alignment: every entry of a
        // line's buffer starts a cache line and ends at the next.
        assert_eq!(std::mem::size_of::<OnLine>(), 64);
        assert_eq!(std::mem::align_of::<OnLine>(), 64);
    }

    #[test]
    fn giving_back_room_keeps_the_packets_in_order_across_a_wrap() {
        // 64 pushed (room 64), 60 popped: head at slot 60; 3 more pushed wrap to slots 0-2, so 7 are on
        // the wire, 4 of them before the wrap. 7 < 64 / 8 = 8: room shrinks to 2 x 7 = 14, rounded up to
        // 16, unwrapped; they leave in order 60..66, and the ring still grows and wraps correctly. The
        // 16- and 32-entry rings are the ones the growth left in the pool, stale entries and all.
        let mut line = Line::default();
        let mut lines = LinePool::default();
        for seq in 0..64 {
            line.push(SimTime(seq), data_packet(seq, 1500), &mut lines);
        }
        for _ in 0..60 {
            line.pop();
        }
        for seq in 64..67 {
            line.push(SimTime(seq), data_packet(seq, 1500), &mut lines);
        }
        assert_eq!((line.len(), line.capacity()), (7, 64));
        line.give_back_spare(&mut lines);
        assert_eq!(line.capacity(), 16);
        for seq in 67..80 {
            line.push(SimTime(seq), data_packet(seq, 1500), &mut lines);
        }
        let mut got = vec![];
        while let Some((t, p, _)) = line.pop() {
            assert_eq!(t.0, seq_of(&p));
            got.push(seq_of(&p));
        }
        assert_eq!(got, (60..80).collect::<Vec<u64>>());
    }

    #[test]
    fn packets_leave_in_the_order_they_entered_across_wraps_and_growth() {
        // Push 5 (the ring grows from 4 to 8 slots at the 5th), pop 3, push 10 more: the ring wraps (head
        // at slot 3 of 8) and grows to 16 when a 9th is on the wire, 12 in the end. Then everything leaves
        // in order 0..15, each with the next head's time (segment number + 100) but the last; the same
        // whether pushes hint the next slot (several flows) or not.
        for hint in [false, true] {
            let mut lines = LinePool::hinting_pushes(hint);
            leave_in_order(&mut lines);
        }
    }

    fn leave_in_order(lines: &mut LinePool) {
        let mut line = Line::default();
        let mut out = vec![];
        for seq in 0..5 {
            line.push(SimTime(seq + 100), data_packet(seq, 1500), lines);
        }
        for _ in 0..3 {
            out.push(line.pop().unwrap());
        }
        for seq in 5..15 {
            line.push(SimTime(seq + 100), data_packet(seq, 1500), lines);
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
