//! A one-way link: a queue in front of a transmitter of fixed rate, then a propagation line of fixed delay.
//!
//! Events are kept to the minimum the physics needs: a packet that finds the transmitter idle starts at
//! once (no event); a `LinkTxDone` event exists only while packets wait in the queue; the propagation line
//! is a FIFO whose arrival times only grow, so only its head has an event in the heap at any time.
//!
//! Two exact shortcuts remove events that carry no information:
//! - an *unbounded* link (access links: an exclusive FIFO with no buffer limit) computes each packet's
//!   departure analytically, start = max(arrival, busy_until), so it needs no queue and no `LinkTxDone`;
//!   this stays exact even when the arrival is in the future, as long as arrivals come in time order;
//! - a *hand-off* link (the bottleneck, whose every next hop is an unbounded link exclusive to one flow)
//!   does not keep a propagation line: it hands each packet with its arrival time to the next hop at once,
//!   which saves one event per packet and per direction.

use crate::event::{Event, EventQueue};
use crate::net::packet::Packet;
use crate::net::queue::Queue;
use crate::rng::SimRng;
use crate::time::{Rate, SimDuration, SimTime};
use std::collections::VecDeque;

/// Counters of one link, cumulative since the start of the run.
#[derive(Clone, Debug, Default)]
pub struct LinkCounters {
    pub packets_tx: u64,
    pub bytes_tx: u64,
    /// Packets refused by the queue (overflow or AQM).
    pub drops: u64,
    /// Packets lost to the random packet error rate.
    pub error_drops: u64,
    /// Integral of the number of waiting packets over time, in packet-nanoseconds.
    pub queue_area: u128,
    pub max_queue_packets: usize,
}

pub struct Link {
    id: u32,
    rate: Rate,
    delay: SimDuration,
    queue: Box<dyn Queue>,
    /// When the transmitter finishes its current packet (in the past when idle).
    busy_until: SimTime,
    tx_done_pending: bool,
    /// Packets propagating, with their arrival time at the far end (non-decreasing).
    line: VecDeque<(SimTime, Packet)>,
    /// Packet error rate and its generator (None when the link is lossless).
    errors: Option<(f64, SimRng)>,
    counters: LinkCounters,
    last_queue_change: SimTime,
    /// Serialisation time of the last packet size seen: a link carries one size almost always, and the
    /// division is a visible share of the per-packet cost.
    tx_time_cache: (u32, SimDuration),
    /// Exclusive FIFO without a buffer limit: departures computed at enqueue time.
    unbounded: bool,
    /// Packets handed to the next hop at transmission, with their arrival time there (None: keep a line).
    handed_off: Option<Vec<(SimTime, Packet)>>,
}

impl Link {
    pub fn new(id: u32, rate: Rate, delay: SimDuration, queue: Box<dyn Queue>) -> Self {
        Link {
            id,
            rate,
            delay,
            queue,
            busy_until: SimTime::ZERO,
            tx_done_pending: false,
            line: VecDeque::new(),
            errors: None,
            counters: LinkCounters::default(),
            last_queue_change: SimTime::ZERO,
            unbounded: false,
            handed_off: None,
            tx_time_cache: (0, SimDuration::ZERO),
        }
    }

    /// An exclusive link with no buffer limit (the queue given to `new` is not used).
    pub fn unbounded(mut self) -> Self {
        self.unbounded = true;
        self
    }

    /// Hand packets to the next hop at transmission time instead of propagating them here. Only valid
    /// when every next hop is an unbounded link fed by this link alone.
    pub fn handing_off(mut self) -> Self {
        self.handed_off = Some(Vec::new());
        self
    }

    /// Packets handed off since the last call, with their arrival time at the next hop.
    pub fn take_handed_off(&mut self, into: &mut Vec<(SimTime, Packet)>) {
        if let Some(h) = &mut self.handed_off {
            into.append(h);
        }
    }

    /// Drop each transmitted packet with probability `rate` (bit errors on the wire).
    pub fn with_packet_errors(mut self, rate: f64, rng: SimRng) -> Self {
        if rate > 0.0 {
            self.errors = Some((rate, rng));
        }
        self
    }

    pub fn rate(&self) -> Rate {
        self.rate
    }
    pub fn delay(&self) -> SimDuration {
        self.delay
    }
    pub fn queue_packets(&self) -> usize {
        self.queue.len_packets()
    }
    pub fn queue_bytes(&self) -> u64 {
        self.queue.len_bytes()
    }
    /// Packets on the wire or propagating (transmitted, not yet arrived; handed-off ones excluded).
    pub fn in_transit(&self) -> usize {
        self.line.len()
    }

    /// Counters brought up to `now` (the queue integral is accumulated lazily).
    pub fn counters(&self, now: SimTime) -> LinkCounters {
        let mut c = self.counters.clone();
        c.queue_area += self.queue.len_packets() as u128 * now.since(self.last_queue_change).0 as u128;
        c
    }

    fn note_queue_change(&mut self, now: SimTime) {
        let dt = now.since(self.last_queue_change).0 as u128;
        self.counters.queue_area += self.queue.len_packets() as u128 * dt;
        self.last_queue_change = now;
    }

    /// A packet arrives at the link's input. Returns the packet if the queue dropped it.
    pub fn enqueue(&mut self, now: SimTime, pkt: Packet, events: &mut EventQueue) -> Option<Packet> {
        if self.unbounded {
            let start = self.busy_until.max(now);
            self.transmit(start, pkt, events);
            return None;
        }
        if self.busy_until <= now && self.queue.is_empty() {
            self.transmit(now, pkt, events);
            return None;
        }
        self.note_queue_change(now);
        match self.queue.enqueue(now, pkt) {
            Ok(()) => {
                self.counters.max_queue_packets = self.counters.max_queue_packets.max(self.queue.len_packets());
                if !self.tx_done_pending {
                    events.schedule(self.busy_until, Event::LinkTxDone(self.id));
                    self.tx_done_pending = true;
                }
                None
            }
            Err(dropped) => {
                self.counters.drops += 1;
                Some(dropped)
            }
        }
    }

    /// The transmitter is free: take the next packet from the queue.
    pub fn on_tx_done(&mut self, now: SimTime, events: &mut EventQueue) {
        self.tx_done_pending = false;
        self.note_queue_change(now);
        if let Some(pkt) = self.queue.dequeue(now) {
            self.transmit(now, pkt, events);
            if !self.queue.is_empty() {
                events.schedule(self.busy_until, Event::LinkTxDone(self.id));
                self.tx_done_pending = true;
            }
        }
    }

    fn transmit(&mut self, now: SimTime, pkt: Packet, events: &mut EventQueue) {
        if self.tx_time_cache.0 != pkt.size {
            self.tx_time_cache = (pkt.size, self.rate.tx_time(pkt.size));
        }
        let done = now + self.tx_time_cache.1;
        self.busy_until = done;
        self.counters.packets_tx += 1;
        self.counters.bytes_tx += pkt.size as u64;
        if let Some((p, rng)) = &mut self.errors {
            if rng.bernoulli(*p) {
                self.counters.error_drops += 1;
                return;
            }
        }
        let arrival = done + self.delay;
        if let Some(h) = &mut self.handed_off {
            h.push((arrival, pkt));
            return;
        }
        if self.line.is_empty() {
            events.schedule(arrival, Event::LinkArrival(self.id));
        }
        self.line.push_back((arrival, pkt));
    }

    /// The head of the propagation line arrives; schedules the next head.
    pub fn on_arrival(&mut self, now: SimTime, events: &mut EventQueue) -> Packet {
        let (t, pkt) = self.line.pop_front().expect("LinkArrival with an empty line");
        debug_assert!(t <= now);
        if let Some(&(next, _)) = self.line.front() {
            events.schedule(next, Event::LinkArrival(self.id));
        }
        pkt
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Direction, Payload};
    use crate::net::queue::DropTail;

    fn pkt(seq: u64) -> Packet {
        Packet {
            flow: 0,
            dir: Direction::Forward,
            hop: 0,
            size: 1500,
            sent_at: SimTime(0),
            payload: Payload::Data { seq, retransmission: false },
        }
    }

    fn drain(link: &mut Link, events: &mut EventQueue) -> Vec<(u64, u64)> {
        let mut arrivals = vec![];
        while let Some((t, ev)) = events.pop() {
            match ev {
                Event::LinkTxDone(_) => link.on_tx_done(t, events),
                Event::LinkArrival(_) => {
                    let p = link.on_arrival(t, events);
                    if let Payload::Data { seq, .. } = p.payload {
                        arrivals.push((t.0, seq));
                    }
                }
                _ => unreachable!(),
            }
        }
        arrivals
    }

    #[test]
    fn back_to_back_packets_are_spaced_by_serialisation_and_delayed_by_propagation() {
        // 12 Mbit/s: 1500 B take 1 ms; delay 10 ms. Three packets offered at t=0 arrive at 11, 12, 13 ms.
        let mut events = EventQueue::new();
        let mut link = Link::new(0, Rate::from_bps(12_000_000), SimDuration::from_millis(10), Box::new(DropTail::new(10, None)));
        for s in 0..3 {
            assert!(link.enqueue(SimTime(0), pkt(s), &mut events).is_none());
        }
        let ms = 1_000_000;
        assert_eq!(drain(&mut link, &mut events), vec![(11 * ms, 0), (12 * ms, 1), (13 * ms, 2)]);
    }

    #[test]
    fn queue_limit_includes_the_packet_on_the_wire() {
        // Limit 2: one packet on the wire + one waiting; the third is dropped (ns-2 DropTail semantics).
        let mut events = EventQueue::new();
        let mut link = Link::new(0, Rate::from_bps(12_000_000), SimDuration::ZERO, Box::new(DropTail::new(2, None)));
        assert!(link.enqueue(SimTime(0), pkt(0), &mut events).is_none());
        assert!(link.enqueue(SimTime(0), pkt(1), &mut events).is_none());
        assert!(link.enqueue(SimTime(0), pkt(2), &mut events).is_some());
        assert_eq!(drain(&mut link, &mut events).len(), 2);
        assert_eq!(link.counters(SimTime(0)).drops, 1);
    }

    #[test]
    fn queue_area_integrates_waiting_packets_over_time() {
        // One waiting packet for exactly 1 ms (the first one's serialisation) = 1e6 packet-ns.
        let mut events = EventQueue::new();
        let mut link = Link::new(0, Rate::from_bps(12_000_000), SimDuration::ZERO, Box::new(DropTail::new(5, None)));
        link.enqueue(SimTime(0), pkt(0), &mut events);
        link.enqueue(SimTime(0), pkt(1), &mut events);
        drain(&mut link, &mut events);
        assert_eq!(link.counters(SimTime(0)).drops, 0);
        assert_eq!(link.counters(SimTime(10_000_000)).queue_area, 1_000_000);
    }

    #[test]
    fn unbounded_link_computes_departures_even_for_future_arrivals() {
        // Arrivals at 0, 0 and 5 ms (the last offered early, as a hand-off does) on a 1 ms/packet link:
        // transmissions 0-1, 1-2, 5-6 ms; with 10 ms delay, arrivals 11, 12, 16 ms.
        let mut events = EventQueue::new();
        let mut link = Link::new(0, Rate::from_bps(12_000_000), SimDuration::from_millis(10), Box::new(DropTail::new(1, None))).unbounded();
        let ms = 1_000_000;
        link.enqueue(SimTime(0), pkt(0), &mut events);
        link.enqueue(SimTime(0), pkt(1), &mut events);
        link.enqueue(SimTime(5 * ms), pkt(2), &mut events);
        assert_eq!(drain(&mut link, &mut events), vec![(11 * ms, 0), (12 * ms, 1), (16 * ms, 2)]);
    }

    #[test]
    fn hand_off_link_gives_packets_with_their_arrival_time() {
        let mut events = EventQueue::new();
        let mut link = Link::new(0, Rate::from_bps(12_000_000), SimDuration::from_millis(10), Box::new(DropTail::new(5, None))).handing_off();
        link.enqueue(SimTime(0), pkt(0), &mut events);
        let mut out = vec![];
        link.take_handed_off(&mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].0, SimTime(11_000_000));
        assert!(events.is_empty());
    }

    #[test]
    fn packet_errors_drop_about_the_configured_fraction() {
        let mut events = EventQueue::new();
        let mut link = Link::new(0, Rate::from_bps(1_000_000_000_000), SimDuration::ZERO, Box::new(DropTail::new(10, None)))
            .with_packet_errors(0.2, SimRng::new(3, 0));
        let mut t = 0;
        for s in 0..10_000 {
            t += 1_000;
            link.enqueue(SimTime(t), pkt(s), &mut events);
        }
        let arrived = drain(&mut link, &mut events).len();
        // 8000 expected, binomial sd = 40.
        assert!((7_800..=8_200).contains(&arrived), "{arrived}");
        assert_eq!(link.counters(SimTime(t)).error_drops as usize + arrived, 10_000);
    }
}
