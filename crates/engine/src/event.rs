//! The event queue: a binary min-heap of packed keys, ordered by time, then by tie rule R.
//!
//! **Tie rule R.** Events due at the same nanosecond fire in the order of the simulated time at which
//! each was scheduled (earlier first), then by kind (`encode`), then by component id scrambled with the
//! time (`tie_scramble`). Every part of the key is a simulated quantity, none is a count of work done, so
//! an endpoint may take a packet ahead of its arrival (`sim/several_ahead.rs`, `receive_at_hand_off`) and
//! number that packet's events "as of" the time a packet-by-packet run would have scheduled them
//! (`work_as_of`): both runs fire the same events in the same order, bit for bit. Under the rule of
//! insertion order (first in, first out) work taken ahead numbered its events early, and so runs of several
//! flows had to keep one event per packet and hop (docs/benchmarks.md, runs 24 and 29).
//!
//! The id is XORed with a hash of the time so that no component wins every full tie: between two flows
//! whose packets meet the same nanosecond again and again, plain id order gave the lower flow every tie
//! and moved a two-flow Westwood+ split from 102/98 to 123/77 (run 29). Keys are unique but for two
//! events of the same kind, id, time and scheduling time, which are the same event: any correct heap
//! pops the same sequence of events.
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
/// `time (64 bits) | MAX_AHEAD - ahead (39 bits) | kind (4 bits) | id ^ scramble (21 bits)`, where `ahead`
/// is how long before its time the event was scheduled, in ns. Ordering the packed value orders by time,
/// then by scheduling time (earlier first), then by kind and scrambled id: tie rule R.
const ID_BITS: u32 = 21;
const KIND_BITS: u32 = 4;
const CODE_BITS: u32 = ID_BITS + KIND_BITS;
/// The longest lead the key tells apart: 2^39 - 1 ns, about 550 s. Events scheduled longer before their
/// time (a flow start or a measurement start far into a run) count as scheduled 550 s before it: between
/// two such events due at the same nanosecond, kind and id decide. Still deterministic, and the same on
/// every path, since no work is ever taken ahead by that much.
pub const MAX_AHEAD: u64 = (1 << (128 - 64 - CODE_BITS)) - 1;
/// Largest component id (link or flow index) an event can carry.
pub const MAX_EVENT_ID: u32 = (1 << ID_BITS) - 1;

/// Full ties (same time, scheduling time and kind) go by id XOR this: a multiplicative (Fibonacci) hash of
/// the time, so that which component goes first changes from one instant to the next.
#[inline(always)]
fn tie_scramble(time: SimTime) -> u64 {
    (time.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - ID_BITS)) & MAX_EVENT_ID as u64
}

fn encode(event: Event) -> u64 {
    let (kind, id) = match event {
        // Kinds, for events due and scheduled at the same times (tie rule R): the measurement's start
        // first, so that its snapshot counts nothing that fires at that instant; sample readings after
        // the packets and timers of their instant.
        Event::MeasureStart => (0, 0),
        Event::LinkArrival(id) => (1, id),
        Event::LinkTxDone(id) => (2, id),
        Event::SenderTimer(id) => (3, id),
        Event::ReceiverTimer(id) => (4, id),
        Event::FlowStart(id) => (5, id),
        Event::Sample => (6, 0),
        Event::LinkIngress(id) => (7, id),
        Event::TrafficArrival(id) => (8, id),
    };
    debug_assert!(id <= MAX_EVENT_ID);
    (kind << ID_BITS) | id as u64
}

fn decode(code: u64) -> Event {
    let id = (code & MAX_EVENT_ID as u64) as u32;
    match code >> ID_BITS {
        0 => Event::MeasureStart,
        1 => Event::LinkArrival(id),
        2 => Event::LinkTxDone(id),
        3 => Event::SenderTimer(id),
        4 => Event::ReceiverTimer(id),
        5 => Event::FlowStart(id),
        6 => Event::Sample,
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
    scheduled: u64,
    popped: u64,
    /// Time of the last event popped: the scheduling time of what is scheduled now, unless `as_of`.
    last_popped: SimTime,
    /// The scheduling time of work taken ahead (`work_as_of`).
    as_of: Option<SimTime>,
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
        self.scheduled += 1;
        // Tie rule R (module comment): the lead over the scheduling time, saturated at `MAX_AHEAD`.
        let scheduled_at = self.as_of.unwrap_or(self.last_popped);
        let ahead = time.0.saturating_sub(scheduled_at.0).min(MAX_AHEAD);
        let low = ((MAX_AHEAD - ahead) << CODE_BITS) | (encode(event) ^ tie_scramble(time));
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
    /// differs in layout from `peek_time`'s, not in what it pops: equal keys are the same event (module
    /// comment).
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
        Some((time, decode(code ^ tie_scramble(time))))
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
        self.scheduled
    }
    /// Number what is scheduled from now on as if scheduled at `at` (a time no earlier than the last event
    /// fired): an endpoint takes a packet ahead of its arrival at `at`, and schedules what a
    /// packet-by-packet run would schedule when the packet's arrival fires (tie rule R, module comment).
    #[inline(always)]
    pub fn work_as_of(&mut self, at: SimTime) {
        debug_assert!(at >= self.last_popped);
        self.as_of = Some(at);
    }
    /// The time given to `work_as_of`, while work is taken ahead.
    #[inline(always)]
    pub fn as_of(&self) -> Option<SimTime> {
        self.as_of
    }
    /// Back to numbering as of the last event fired (after `work_as_of`).
    #[inline(always)]
    pub fn work_now(&mut self) {
        self.as_of = None;
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
        // Due and scheduled at the same times, they pop in the order of their kinds.
        let all = [
            Event::MeasureStart,
            Event::LinkArrival(MAX_EVENT_ID),
            Event::LinkTxDone(7),
            Event::SenderTimer(0),
            Event::ReceiverTimer(3),
            Event::FlowStart(12),
            Event::Sample,
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
        /// Any interleaving of schedules and pops pops what a sorted list of the waiting events would:
        /// the earliest time, then the earliest scheduling time, then the scrambled id (tie rule R); `len`
        /// and `peek_time` agree with it too (also while a fired root still sits in the heap).
        #[test]
        fn pops_as_a_sorted_list_would(ops in proptest::collection::vec((0u64..20, proptest::bool::ANY), 1..300)) {
            let mut q = EventQueue::new();
            let mut waiting: Vec<(u64, u64, u32)> = vec![]; // (time, scheduled at, id)
            let mut now = 0;
            for (i, (dt, pop)) in ops.into_iter().enumerate() {
                if pop {
                    let rank = |&(t, at, id): &(u64, u64, u32)| (t, at, id as u64 ^ tie_scramble(SimTime(t)));
                    let expected = waiting.iter().enumerate().min_by_key(|(_, e)| rank(e)).map(|(j, _)| j);
                    let got = q.pop();
                    proptest::prop_assert_eq!(got, expected.map(|j| {
                        let (t, _, id) = waiting.remove(j);
                        (SimTime(t), Event::LinkArrival(id))
                    }));
                    if let Some((t, _)) = got {
                        now = t.0;
                    }
                } else {
                    q.schedule(SimTime(now + dt), Event::LinkArrival(i as u32));
                    waiting.push((now + dt, now, i as u32));
                }
                proptest::prop_assert_eq!(q.len(), waiting.len());
                proptest::prop_assert_eq!(q.peek_time(), waiting.iter().map(|&(t, _, _)| SimTime(t)).min());
            }
        }
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
    fn ties_go_by_scheduling_time_then_kind_whatever_the_order_of_scheduling() {
        // At time 100: a sample scheduled at 0, then (after the event at 40 fired) a line arrival scheduled
        // at 40, and a timer numbered as of 60 (work taken ahead) but scheduled before both.
        let mut q = EventQueue::new();
        q.schedule(SimTime(40), Event::FlowStart(0));
        q.schedule(SimTime(100), Event::Sample);
        assert_eq!(q.pop(), Some((SimTime(40), Event::FlowStart(0))));
        q.work_as_of(SimTime(60));
        q.schedule(SimTime(100), Event::SenderTimer(3));
        q.work_now();
        q.schedule(SimTime(100), Event::LinkArrival(9));
        q.schedule(SimTime(100), Event::ReceiverTimer(2));
        let order: Vec<Event> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        // Scheduled at 0; then at 40 by kind (a line arrival before a receiver timer); then at 60.
        assert_eq!(order, vec![Event::Sample, Event::LinkArrival(9), Event::ReceiverTimer(2), Event::SenderTimer(3)]);
    }

    #[test]
    fn full_ties_favour_no_component_for_good() {
        // Two links' arrivals due at the same nanosecond, scheduled at the same time: which goes first
        // depends on the time (scrambled id), not on which was scheduled first or on the lower id alone.
        let mut first_zero = 0;
        for t in 1..=200u64 {
            let mut q = EventQueue::new();
            q.schedule(SimTime(t), Event::LinkArrival(1));
            q.schedule(SimTime(t), Event::LinkArrival(0));
            let first = q.pop().unwrap().1;
            let mut r = EventQueue::new();
            r.schedule(SimTime(t), Event::LinkArrival(0));
            r.schedule(SimTime(t), Event::LinkArrival(1));
            assert_eq!(r.pop().unwrap().1, first, "the order of scheduling decides nothing");
            first_zero += (first == Event::LinkArrival(0)) as u32;
        }
        assert!((60..=140).contains(&first_zero), "link 0 first at {first_zero} of 200 instants");
    }

    #[test]
    fn a_lead_beyond_550_s_counts_as_550_s() {
        // Both scheduled at 0 for t = 600 s and 700 s ahead of nothing: saturated alike, so kind decides.
        let t = SimTime(600_000_000_000);
        let mut q = EventQueue::new();
        q.schedule(t, Event::Sample);
        q.schedule(t, Event::MeasureStart);
        assert_eq!(q.pop(), Some((t, Event::MeasureStart)));
        assert_eq!(q.pop(), Some((t, Event::Sample)));
    }
}
