//! Data packets a receiver took ahead of their arrival, so that it can be read as of now.
//!
//! When the bottleneck hands a data packet to the receiver's own access link, and that link is plain
//! and unbounded, the packet's arrival at the receiver is already known: the receiver takes it then, as
//! of that arrival (`Simulation::receive_at_hand_off`), which saves an event and a line pass per packet
//! (docs/benchmarks.md, runs 22c and 24). The receiver then runs ahead of `now` by up to the access
//! link's delay. Whatever reads its counts (a sample, the measurement start, a summary) must not see
//! packets still on their way: this log keeps, for each packet taken ahead that could be seen early,
//! when it arrives and the receiver's counts before it.
//!
//! A reading at `r` needs the counts before the first packet that has not arrived by `r`, so only a
//! packet that can be that first one is logged: one arriving at or after the next time anything may
//! read the receiver (the caller's `read_horizon`: the next sample, the measurement start, the end of
//! the runner's step), and, before the end of the step and the measurement start, only if a sample is
//! due between the arrival of the packet before it and its own (`sample_due`). Those two are the only
//! readings that can come at any time; samples come on their grid. So a receiver that runs half a sample
//! interval ahead logs one packet per sample, not half its packets (docs/benchmarks.md, run 39). A
//! reading finds the first logged packet not arrived by then, which is the first such packet of all.

use crate::time::SimTime;

/// The receiver's counts before one packet taken ahead of its arrival.
#[derive(Copy, Clone)]
struct Receipt {
    at: SimTime,
    /// Packet by packet, its arrival fires before a sample due at `at` (`Reading::Sample`).
    before_sample: bool,
    delivered_before: u64,
    received_before: u64,
}

/// Where a reading at `now` stands among the packets that arrive at `now` too.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Reading {
    /// An event at `now` that fires before the arrivals due then (the measurement start: scheduled
    /// when the run is built, before any arrival's event is).
    BeforeArrivals,
    /// A sample at `now`: it fires after the arrivals due then whose events the packet-by-packet path
    /// numbered before the sample was scheduled (one interval earlier), and before the others; each
    /// receipt says which it is (`Simulation::arrival_before_sample`).
    Sample,
    /// The end of a step up to `now`: every event due by `now` has fired.
    AfterArrivals,
}

/// A ring of power-of-two capacity (as `net::line`'s): the index wraps with a mask, which cost less
/// than std's `VecDeque` here (callgrind, run 22c). It keeps its room: it holds at most the packets of
/// one access link in flight.
#[derive(Default)]
pub struct EarlyReceipts {
    slots: Vec<Receipt>,
    head: usize,
    len: usize,
    /// The first sample time at or after the last logged packet's arrival: a later packet arriving before
    /// it follows no sample that the logged one precedes, so no sample can find it first (`sample_due`).
    next_due: SimTime,
}

impl EarlyReceipts {
    /// A packet arriving at `at` is taken at `now` by a receiver whose counts are these before it;
    /// `before_sample`: its arrival fires before a sample due at `at`, packet by packet. Receipts due
    /// before `now` are forgotten first; one due at `now` is kept, for a reading at `now` still to come
    /// that fires before the arrivals (a sample).
    /// `next_due`: the first sample time at or after `at` (`sample_due`).
    pub fn record(&mut self, now: SimTime, at: SimTime, next_due: SimTime, before_sample: bool, delivered_before: u64, received_before: u64) {
        self.next_due = next_due;
        self.forget_due(now);
        if self.len == self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        self.slots[(self.head + self.len) & mask] = Receipt { at, before_sample, delivered_before, received_before };
        self.len += 1;
    }

    /// Whether a sample may find a packet arriving at `at` the first one not yet arrived: one is due at or
    /// after the last logged packet's arrival and by `at`. Samples due before the next one (`next_sample`)
    /// are past, and a packet taken but not logged arrived before the sample time after the last logged
    /// one (it would have been logged otherwise), so that sample is still the first after it. Counting
    /// the sample due at a logged packet's own arrival, and at `at`, keeps every tie (`before_sample`).
    #[inline(always)]
    pub fn sample_due(&self, at: SimTime, next_sample: SimTime) -> bool {
        at >= self.next_due.max(next_sample)
    }

    fn forget_due(&mut self, now: SimTime) {
        let mask = self.slots.len().wrapping_sub(1);
        while self.len > 0 && self.slots[self.head].at < now {
            self.head = (self.head + 1) & mask;
            self.len -= 1;
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let capacity = (self.slots.len() * 2).max(16);
        let mut slots = Vec::with_capacity(capacity);
        slots.extend(self.pending());
        slots.resize(capacity, Receipt { at: SimTime::ZERO, before_sample: false, delivered_before: 0, received_before: 0 });
        self.slots = slots;
        self.head = 0;
    }

    /// The receipts in arrival order.
    fn pending(&self) -> impl Iterator<Item = Receipt> + '_ {
        let mask = self.slots.len().wrapping_sub(1);
        (0..self.len).map(move |i| self.slots[(self.head + i) & mask])
    }

    /// (delivered, received) as of `now`, given the receiver's counts `current` (which include every
    /// packet taken ahead): the counts before the first packet that has not arrived by the reading.
    pub fn as_of(&self, now: SimTime, reading: Reading, current: (u64, u64)) -> (u64, u64) {
        let arrived = |r: &Receipt| {
            r.at < now
                || (r.at == now
                    && match reading {
                        Reading::BeforeArrivals => false,
                        Reading::Sample => r.before_sample,
                        Reading::AfterArrivals => true,
                    })
        };
        match self.get(self.arrived_count(arrived)) {
            Some(r) => (r.delivered_before, r.received_before),
            None => current,
        }
    }

    /// Packets taken ahead that have not arrived by `now` (the end of a step): still in the network.
    pub fn not_yet_arrived(&self, now: SimTime) -> u64 {
        (self.len - self.arrived_count(|r| r.at <= now)) as u64
    }

    fn get(&self, i: usize) -> Option<Receipt> {
        (i < self.len).then(|| self.slots[(self.head + i) & (self.slots.len() - 1)])
    }

    /// How many receipts from the oldest on satisfy `arrived`, which holds for the older of any two when
    /// it holds for the newer (receipts are in arrival order, and of two due at one nanosecond the newer
    /// arrives after a sample due then, `Simulation::arrival_before_sample`): a binary search. The log is
    /// forgotten only as packets are taken, so a sender sending in trains leaves a reading up to a round
    /// trip of arrived receipts to pass over (a linear scan was 5 % of a 10-Gbit/s x 300-ms run,
    /// docs/benchmarks.md run 28).
    fn arrived_count(&self, arrived: impl Fn(&Receipt) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.len);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if arrived(&self.get(mid).expect("within the log")) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_as_of_a_reading_leave_out_packets_not_yet_arrived() {
        let mut log = EarlyReceipts::default();
        // Receiver counts (delivered, received) before each packet: 10/10, 11/11, 11/12 (a hole).
        log.record(SimTime(100), SimTime(200), SimTime::ZERO, false, 10, 10);
        log.record(SimTime(110), SimTime(210), SimTime::ZERO, false, 11, 11);
        log.record(SimTime(120), SimTime(220), SimTime::ZERO, false, 11, 12);
        let current = (13, 13);
        assert_eq!(log.as_of(SimTime(150), Reading::AfterArrivals, current), (10, 10));
        assert_eq!(log.as_of(SimTime(200), Reading::AfterArrivals, current), (11, 11));
        assert_eq!(log.as_of(SimTime(200), Reading::BeforeArrivals, current), (10, 10));
        assert_eq!(log.as_of(SimTime(220), Reading::AfterArrivals, current), current);
        assert_eq!(log.not_yet_arrived(SimTime(205)), 2);
    }

    #[test]
    fn due_receipts_are_forgotten_and_the_ring_grows_in_order() {
        let mut log = EarlyReceipts::default();
        // Each packet arrives 250 ns after it is taken: 25 are on their way at once, past the first 16 slots.
        for k in 0..40u64 {
            log.record(SimTime(k * 10), SimTime(k * 10 + 250), SimTime::ZERO, false, k, k);
        }
        // The last record, at 390, forgot the packets due before then (k <= 13).
        assert_eq!(log.len, 26);
        assert_eq!(log.as_of(SimTime(390), Reading::AfterArrivals, (40, 40)), (15, 15));
        assert_eq!(log.as_of(SimTime(500), Reading::AfterArrivals, (40, 40)), (26, 26));
        assert_eq!(log.not_yet_arrived(SimTime(390)), 25);
    }

    #[test]
    fn a_packet_due_now_stays_unarrived_for_a_reading_before_the_arrivals_after_a_record_now() {
        let mut log = EarlyReceipts::default();
        log.record(SimTime(100), SimTime(200), SimTime::ZERO, false, 10, 10);
        // Another packet is taken ahead at 200, by an event that fires before a sample due at 200.
        log.record(SimTime(200), SimTime(300), SimTime::ZERO, false, 11, 11);
        assert_eq!(log.as_of(SimTime(200), Reading::BeforeArrivals, (12, 12)), (10, 10));
        assert_eq!(log.as_of(SimTime(200), Reading::AfterArrivals, (12, 12)), (11, 11));
    }

    #[test]
    fn after_a_logged_packet_only_one_past_the_next_sample_time_is_needed() {
        // Samples every 100 ns from 100 on. A packet arriving at 130 is logged, with the first sample
        // time at or after it, 200: packets arriving at 150 and 199 follow no sample the logged one
        // precedes; one at 200 may be the first a sample at 200 finds not arrived, one at 260 too.
        let mut log = EarlyReceipts::default();
        assert!(log.sample_due(SimTime(130), SimTime(100)));
        log.record(SimTime(50), SimTime(130), SimTime(200), false, 5, 5);
        assert!(!log.sample_due(SimTime(150), SimTime(100)));
        assert!(!log.sample_due(SimTime(199), SimTime(100)));
        assert!(log.sample_due(SimTime(200), SimTime(100)));
        assert!(log.sample_due(SimTime(260), SimTime(100)));
        // Once the sample at 200 has been taken (the next is at 300), a packet at 260 is not needed.
        assert!(!log.sample_due(SimTime(260), SimTime(300)));
        assert!(log.sample_due(SimTime(300), SimTime(300)));
    }

    #[test]
    fn a_sample_counts_the_arrivals_due_with_it_that_fire_before_it() {
        let mut log = EarlyReceipts::default();
        // Packets due at 200 and 300; packet by packet the first fires before a sample due at 200 (its
        // event was numbered before that sample was scheduled), the second after a sample due at 300.
        log.record(SimTime(100), SimTime(200), SimTime::ZERO, true, 10, 10);
        log.record(SimTime(150), SimTime(300), SimTime::ZERO, false, 11, 11);
        let current = (12, 12);
        assert_eq!(log.as_of(SimTime(200), Reading::Sample, current), (11, 11));
        assert_eq!(log.as_of(SimTime(200), Reading::BeforeArrivals, current), (10, 10));
        assert_eq!(log.as_of(SimTime(300), Reading::Sample, current), (11, 11));
        assert_eq!(log.as_of(SimTime(300), Reading::AfterArrivals, current), current);
    }
}
