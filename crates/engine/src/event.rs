//! The event queue: a binary min-heap ordered by (time, insertion sequence).
//!
//! The sequence number makes events at the same instant fire first-in-first-out, so a run never depends
//! on the heap's internal tie-breaking (dslab's scheme): keys are unique, so any correct heap pops them
//! in the same order.
//!
//! Most events schedule another one as they fire (a line's next head, the packet's next link). The
//! event popped therefore stays at the root until the next call: if that call schedules, the new event
//! takes the root's place and sinks as far as it must (`KeyHeap::replace_min`: std's `PeekMut`, a
//! sift-down that stops as soon as the order holds), instead of a removal that sinks the last element to
//! the bottom and back and an insertion that rises; only when the event scheduled nothing is the root
//! removed. (A replacement that sinks to a leaf and rises from there, as std's `pop` does, cost more: the
//! new event is often among the earliest, the next packet of a busy line.)

use crate::time::SimTime;
use std::cmp::Reverse;
use std::collections::binary_heap::BinaryHeap;

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
    /// A link's processing stage releases its head packet into the buffer (`net::processing`).
    LinkIngress(u32),
    /// A traffic source's next connection arrives (`traffic::source`).
    TrafficArrival(u32),
}

/// Events are packed into one `u128` so the heap compares a single integer:
/// `time (64 bits) | seq (39 bits) | kind (4 bits) | id (21 bits)`. Ordering the packed value orders by
/// time, then by insertion sequence, exactly as a (time, seq) pair would (seq is unique, so kind and id
/// never decide an order). 2^39 events is about 15 hours of wall time at 10^7 events/s.
const ID_BITS: u32 = 21;
const KIND_BITS: u32 = 4;
const CODE_BITS: u32 = ID_BITS + KIND_BITS;
/// How many events one queue can number: 2^39 = 549 755 813 888. Past it the sequence would lose its top
/// bits and events at one instant would no longer fire first-in-first-out, so the simulation refuses the
/// run instead (`Simulation::run_until` checks `sequence_exhausted` once per call, not per event).
pub const MAX_EVENTS_SCHEDULED: u64 = 1 << (64 - CODE_BITS);
/// Largest component id (link or flow index) an event can carry.
pub const MAX_EVENT_ID: u32 = (1 << ID_BITS) - 1;

fn encode(event: Event) -> u64 {
    let (kind, id) = match event {
        Event::LinkArrival(id) => (0, id),
        Event::LinkTxDone(id) => (1, id),
        Event::SenderTimer(id) => (2, id),
        Event::ReceiverTimer(id) => (3, id),
        Event::FlowStart(id) => (4, id),
        Event::Sample => (5, 0),
        Event::MeasureStart => (6, 0),
        Event::LinkIngress(id) => (7, id),
        Event::TrafficArrival(id) => (8, id),
    };
    debug_assert!(id <= MAX_EVENT_ID);
    (kind << ID_BITS) | id as u64
}

fn decode(code: u64) -> Event {
    let id = (code & MAX_EVENT_ID as u64) as u32;
    match code >> ID_BITS {
        0 => Event::LinkArrival(id),
        1 => Event::LinkTxDone(id),
        2 => Event::SenderTimer(id),
        3 => Event::ReceiverTimer(id),
        4 => Event::FlowStart(id),
        5 => Event::Sample,
        6 => Event::MeasureStart,
        7 => Event::LinkIngress(id),
        _ => Event::TrafficArrival(id),
    }
}

/// A min-heap of packed keys over std's binary heap, with the replacement of the root.
#[derive(Default)]
struct KeyHeap {
    keys: BinaryHeap<Reverse<u128>>,
}

impl KeyHeap {
    fn len(&self) -> usize {
        self.keys.len()
    }
    fn min(&self) -> Option<u128> {
        self.keys.peek().map(|r| r.0)
    }
    /// The smallest key after the root: one of the root's children (slice order is the heap's layout).
    fn second(&self) -> Option<u128> {
        let keys = self.keys.as_slice();
        match (keys.get(1), keys.get(2)) {
            (Some(a), Some(b)) => Some(a.0.min(b.0)),
            (a, _) => a.map(|r| r.0),
        }
    }
    fn push(&mut self, key: u128) {
        self.keys.push(Reverse(key));
    }
    fn remove_min(&mut self) {
        self.keys.pop();
    }
    /// Put `key` in the root's place (the root is dropped); it sinks as far as it must.
    fn replace_min(&mut self, key: u128) {
        if let Some(mut root) = self.keys.peek_mut() {
            *root = Reverse(key);
        }
    }
}

#[derive(Default)]
pub struct EventQueue {
    heap: KeyHeap,
    /// The root of `heap` has been popped (fired) but not yet removed (see the module comment).
    root_fired: bool,
    next_seq: u64,
    popped: u64,
    /// Time of the last event popped.
    last_popped: SimTime,
    scheduled_in_the_past: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }
    #[inline(always)]
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        // An event before the last one fired would fire out of time order: counted, for the invariant
        // checks (tests/properties.rs), rather than asserted, so that a release build can report it too.
        if time < self.last_popped {
            self.scheduled_in_the_past += 1;
        }
        // No check here, on the per-event path: a sequence past `MAX_EVENTS_SCHEDULED` only loses its top
        // bits (the shift drops them), and `sequence_exhausted` reports it to the run loop.
        let seq = self.next_seq;
        self.next_seq += 1;
        let low = (seq << CODE_BITS) | encode(event);
        let key = ((time.0 as u128) << 64) | low as u128;
        if self.root_fired {
            self.root_fired = false;
            self.heap.replace_min(key);
        } else {
            self.heap.push(key);
        }
    }
    /// The smallest key not yet fired.
    fn next_key(&self) -> Option<u128> {
        if self.root_fired {
            self.heap.second()
        } else {
            self.heap.min()
        }
    }
    pub fn peek_time(&self) -> Option<SimTime> {
        self.next_key().map(|k| SimTime((k >> 64) as u64))
    }
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.pop_due(SimTime(u64::MAX))
    }
    /// The next event if it is due at or before `until` (`pop` after `peek_time`, in one look at the
    /// root: the run loop's way). A fired root that scheduled nothing is removed first, so the heap then
    /// differs in layout from `peek_time`'s, not in what it pops: keys are unique (module comment).
    #[inline(always)]
    pub fn pop_due(&mut self, until: SimTime) -> Option<(SimTime, Event)> {
        if self.root_fired {
            self.root_fired = false;
            self.heap.remove_min();
        }
        let k = self.heap.min()?;
        let time = SimTime((k >> 64) as u64);
        if time > until {
            return None;
        }
        self.root_fired = true;
        self.popped += 1;
        let code = (k as u64) & ((1 << CODE_BITS) - 1);
        self.last_popped = time;
        Some((time, decode(code)))
    }
    /// Events waiting (not yet fired).
    pub fn len(&self) -> usize {
        self.heap.len() - self.root_fired as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Events fired so far (for benchmarks).
    pub fn events_processed(&self) -> u64 {
        self.popped
    }
    /// Events scheduled so far.
    pub fn events_scheduled(&self) -> u64 {
        self.next_seq
    }
    /// True once more events were scheduled than the key's sequence field can number: from then on ties
    /// may fire out of order, so no result of this queue can be trusted.
    pub fn sequence_exhausted(&self) -> bool {
        self.next_seq > MAX_EVENTS_SCHEDULED
    }
    /// Start numbering at `seq`, as if `seq` events had been scheduled: lets tests reach the limit without
    /// scheduling 2^39 events.
    #[doc(hidden)]
    pub fn skip_sequence_to(&mut self, seq: u64) {
        self.next_seq = seq;
    }
    /// Events scheduled at a time before the last event fired: 0 in a correct simulation, where time
    /// never goes backwards.
    pub fn scheduled_in_the_past(&self) -> u64 {
        self.scheduled_in_the_past
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
    fn every_event_kind_round_trips_through_the_packed_key() {
        let all = [
            Event::LinkArrival(MAX_EVENT_ID),
            Event::LinkTxDone(7),
            Event::SenderTimer(0),
            Event::ReceiverTimer(3),
            Event::FlowStart(12),
            Event::Sample,
            Event::MeasureStart,
            Event::LinkIngress(MAX_EVENT_ID),
            Event::TrafficArrival(MAX_EVENT_ID),
        ];
        let mut q = EventQueue::new();
        for e in all {
            q.schedule(SimTime(u64::MAX - 1), e);
        }
        for e in all {
            assert_eq!(q.pop(), Some((SimTime(u64::MAX - 1), e)));
        }
    }

    #[test]
    fn an_event_scheduled_before_the_last_one_fired_is_counted() {
        // Fire the event at 10; one at 10 again is on time, one at 9 is in the past.
        let mut q = EventQueue::new();
        q.schedule(SimTime(10), Event::Sample);
        q.pop();
        q.schedule(SimTime(10), Event::Sample);
        assert_eq!(q.scheduled_in_the_past(), 0);
        q.schedule(SimTime(9), Event::Sample);
        assert_eq!(q.scheduled_in_the_past(), 1);
    }

    proptest::proptest! {
        /// Any interleaving of schedules and pops pops what a sorted list of the waiting keys would:
        /// the earliest time, first scheduled among equals; `len` and `peek_time` agree with it too
        /// (also while a fired root still sits in the heap).
        #[test]
        fn pops_as_a_sorted_list_would(ops in proptest::collection::vec((0u64..20, proptest::bool::ANY), 1..300)) {
            let mut q = EventQueue::new();
            let mut waiting: Vec<(u64, u32)> = vec![]; // (time, id), in scheduling order
            let mut now = 0;
            for (i, (dt, pop)) in ops.into_iter().enumerate() {
                if pop {
                    // The earliest time; the first scheduled among equal times (`min_by_key` keeps the first).
                    let expected = waiting.iter().enumerate().min_by_key(|(_, &(t, _))| t).map(|(j, _)| j);
                    let got = q.pop();
                    proptest::prop_assert_eq!(got, expected.map(|j| {
                        let (t, id) = waiting.remove(j);
                        (SimTime(t), Event::LinkArrival(id))
                    }));
                    if let Some((t, _)) = got {
                        now = t.0;
                    }
                } else {
                    q.schedule(SimTime(now + dt), Event::LinkArrival(i as u32));
                    waiting.push((now + dt, i as u32));
                }
                proptest::prop_assert_eq!(q.len(), waiting.len());
                proptest::prop_assert_eq!(q.peek_time(), waiting.iter().map(|&(t, _)| SimTime(t)).min());
            }
        }
    }

    #[test]
    fn the_sequence_is_exhausted_after_two_to_the_39_events() {
        // Sequence numbers 0 ..= 2^39 - 1 fit in the key's 39 bits; the event numbered 2^39 does not.
        let mut q = EventQueue::new();
        q.skip_sequence_to(MAX_EVENTS_SCHEDULED - 1);
        q.schedule(SimTime(1), Event::Sample); // numbered 2^39 - 1: the last that fits
        assert!(!q.sequence_exhausted());
        q.schedule(SimTime(1), Event::MeasureStart); // numbered 2^39: one too many
        assert!(q.sequence_exhausted());
        assert_eq!(q.events_scheduled(), 549_755_813_889);
    }

    #[test]
    fn pop_due_leaves_later_events_waiting() {
        // Events at 10, 20 and 30: due by 20 are the first two; the one at 30 waits, then pops by 30.
        let mut q = EventQueue::new();
        q.schedule(SimTime(30), Event::Sample);
        q.schedule(SimTime(10), Event::LinkArrival(1));
        q.schedule(SimTime(20), Event::LinkTxDone(2));
        assert_eq!(q.pop_due(SimTime(20)), Some((SimTime(10), Event::LinkArrival(1))));
        assert_eq!(q.pop_due(SimTime(20)), Some((SimTime(20), Event::LinkTxDone(2))));
        assert_eq!(q.pop_due(SimTime(20)), None);
        assert_eq!(q.len(), 1);
        // A fired root that scheduled nothing was removed by the refused call; a new event at 25 pops first.
        q.schedule(SimTime(25), Event::MeasureStart);
        assert_eq!(q.pop_due(SimTime(30)), Some((SimTime(25), Event::MeasureStart)));
        assert_eq!(q.pop_due(SimTime(30)), Some((SimTime(30), Event::Sample)));
        assert!(q.is_empty());
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
