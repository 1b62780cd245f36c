//! The event queue: a binary min-heap ordered by (time, insertion sequence).
//!
//! The sequence number makes events at the same instant fire first-in-first-out, so a run never depends
//! on the heap's internal tie-breaking (dslab's scheme).

use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What happens when an event fires. Small and `Copy`: payloads live in the components, not the heap.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The head of a link's propagation line reaches the far end.
    LinkArrival(u32),
    /// A link's transmitter finished a packet and should take the next one from its queue.
    LinkTxDone(u32),
    /// A flow's sender timer (RTO) is due.
    SenderTimer(u32),
    /// A flow's receiver timer (delayed ACK) is due.
    ReceiverTimer(u32),
    /// A flow starts sending.
    FlowStart(u32),
    /// Take a time-series sample.
    Sample,
    /// Snapshot the counters at the start of the measurement window.
    MeasureStart,
}

#[derive(Copy, Clone, Debug)]
struct Scheduled {
    time: SimTime,
    seq: u64,
    event: Event,
}

impl PartialEq for Scheduled {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl Eq for Scheduled {}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scheduled {
    // Reversed so that std's max-heap pops the earliest (time, seq) first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.time.cmp(&self.time).then_with(|| other.seq.cmp(&self.seq))
    }
}

#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Scheduled>,
    next_seq: u64,
    popped: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Scheduled { time, seq, event });
    }
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|s| s.time)
    }
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        let s = self.heap.pop()?;
        self.popped += 1;
        Some((s.time, s.event))
    }
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
    /// Events fired so far (for benchmarks).
    pub fn events_processed(&self) -> u64 {
        self.popped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_order() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(30), Event::Sample);
        q.schedule(SimTime(10), Event::LinkArrival(1));
        q.schedule(SimTime(20), Event::LinkTxDone(2));
        let times: Vec<u64> = std::iter::from_fn(|| q.pop()).map(|(t, _)| t.0).collect();
        assert_eq!(times, vec![10, 20, 30]);
    }

    #[test]
    fn ties_are_first_in_first_out() {
        let mut q = EventQueue::new();
        for i in 0..50 {
            q.schedule(SimTime(5), Event::LinkArrival(i));
        }
        for i in 0..50 {
            assert_eq!(q.pop(), Some((SimTime(5), Event::LinkArrival(i))));
        }
        assert!(q.is_empty());
    }
}
