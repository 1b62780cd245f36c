//! A one-way link: a buffer in front of a transmitter of fixed rate, then a propagation line of fixed delay.
//!
//! Events are kept to the minimum the physics needs. The propagation line is a FIFO whose arrival times
//! only grow, so only its head has an event in the heap at any time. How packets wait for the
//! transmitter depends on the buffer:
//! - `Buffer::Fifo` (DropTail): a FIFO that only ever drops on arrival. A packet's start of transmission
//!   is known the moment it arrives, start = max(arrival, busy_until), so it is scheduled onto the line
//!   at once: no stored packet and no `LinkTxDone` event. Only the start times of waiting packets are
//!   kept, to know how many wait when the next one arrives (ns-2 DropTail's test).
//! - `Buffer::Unbounded` (access links): the same without a limit. Exact even for arrivals given ahead
//!   of time, as long as they come in time order, which holds for a link fed by one FIFO.
//! - `Buffer::Scheduled`: a `Queue` asked for the next packet whenever the transmitter frees up, for
//!   disciplines that decide at dequeue time (CoDel). One `LinkTxDone` event while packets wait.
//!
//! A *hand-off* link (the bottleneck, whose every next hop is an unbounded link exclusive to one flow)
//! does not keep a line either: it hands each packet with its arrival time to the next hop at once,
//! which saves one event per packet and per direction.

use crate::event::{Event, EventQueue};
use crate::net::packet::Packet;
use crate::net::queue::Queue;
use crate::rng::SimRng;
use crate::time::{Rate, SimDuration, SimTime};
use std::collections::VecDeque;

/// Counters of one link, cumulative since the start of the run.
#[derive(Clone, Debug, Default)]
pub struct LinkCounters {
    /// Packets whose transmission has started.
    pub packets_tx: u64,
    pub bytes_tx: u64,
    /// Packets refused by the queue (overflow or AQM).
    pub drops: u64,
    /// Packets lost to the random packet error rate (counted when accepted by the buffer).
    pub error_drops: u64,
    /// Integral of the number of waiting packets over time, in packet-nanoseconds.
    pub queue_area: u128,
    pub max_queue_packets: usize,
}

/// DropTail as start times: `waiting` holds (start of transmission, size) of accepted packets not yet
/// started, in order.
pub struct FifoBuffer {
    /// Packets in the router, the one on the wire included (ns-2 `queue-limit`).
    limit_packets: usize,
    /// Bytes waiting, the one on the wire excluded.
    limit_bytes: Option<u64>,
    waiting: VecDeque<(SimTime, u32)>,
    waiting_bytes: u64,
}

impl FifoBuffer {
    pub fn new(limit_packets: usize, limit_bytes: Option<u64>) -> Self {
        FifoBuffer { limit_packets, limit_bytes, waiting: VecDeque::new(), waiting_bytes: 0 }
    }
    /// Forget packets whose transmission started before `now`. A packet whose transmission starts exactly
    /// at `now` still counts as waiting for an arrival at `now`: ns-2 handles an arrival before the
    /// transmitter's simultaneous hand-over to the next packet (its scheduler runs events of equal time
    /// in the order they were scheduled, and the arrival was scheduled a propagation delay earlier; a
    /// `queue.tr` of the cross-check shows `+ d -` at the same instant). Such ties are systematic in an
    /// ACK-clocked flow: the ACKs are spaced by exactly the bottleneck's serialisation time, so the
    /// packets they release reach the queue exactly when a transmission ends (validation.md, D8b).
    fn release(&mut self, now: SimTime) {
        while let Some(&(start, size)) = self.waiting.front() {
            if start >= now {
                break;
            }
            self.waiting.pop_front();
            self.waiting_bytes -= size as u64;
        }
    }
    /// Waiting at `now` (without releasing): (packets, bytes, sum of remaining waits in ns).
    fn waiting_at(&self, now: SimTime) -> (usize, u64, u128) {
        let mut packets = 0;
        let mut bytes = 0;
        let mut remaining = 0u128;
        for &(start, size) in self.waiting.iter().rev() {
            if start <= now {
                break;
            }
            packets += 1;
            bytes += size as u64;
            remaining += (start.0 - now.0) as u128;
        }
        (packets, bytes, remaining)
    }
}

pub enum Buffer {
    Fifo(FifoBuffer),
    Unbounded,
    Scheduled(Box<dyn Queue>),
}

pub struct Link {
    id: u32,
    rate: Rate,
    delay: SimDuration,
    buffer: Buffer,
    /// When the transmitter finishes its current (or last scheduled) packet; in the past when idle.
    busy_until: SimTime,
    tx_done_pending: bool,
    /// Packets propagating, with their arrival time at the far end (non-decreasing).
    line: VecDeque<(SimTime, Packet)>,
    /// Packet error rate and its generator (None when the link is lossless).
    errors: Option<(f64, SimRng)>,
    counters: LinkCounters,
    /// Last change of a scheduled queue's length, for its time integral.
    last_queue_change: SimTime,
    /// Serialisation time of the last packet size seen: a link carries one size almost always, and the
    /// division is a visible share of the per-packet cost.
    tx_time_cache: (u32, SimDuration),
    /// Packets handed to the next hop at transmission, with their arrival time there (None: keep a line).
    handed_off: Option<Vec<(SimTime, Packet)>>,
}

impl Link {
    pub fn new(id: u32, rate: Rate, delay: SimDuration, buffer: Buffer) -> Self {
        Link {
            id,
            rate,
            delay,
            buffer,
            busy_until: SimTime::ZERO,
            tx_done_pending: false,
            line: VecDeque::new(),
            errors: None,
            counters: LinkCounters::default(),
            last_queue_change: SimTime::ZERO,
            tx_time_cache: (0, SimDuration::ZERO),
            handed_off: None,
        }
    }

    /// Drop each transmitted packet with probability `rate` (bit errors on the wire).
    pub fn with_packet_errors(mut self, rate: f64, rng: SimRng) -> Self {
        if rate > 0.0 {
            self.errors = Some((rate, rng));
        }
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

    pub fn rate(&self) -> Rate {
        self.rate
    }
    pub fn delay(&self) -> SimDuration {
        self.delay
    }

    /// Packets waiting for the transmitter at `now` (the one on the wire excluded).
    pub fn queue_packets(&self, now: SimTime) -> usize {
        match &self.buffer {
            Buffer::Fifo(f) => f.waiting_at(now).0,
            Buffer::Unbounded => 0,
            Buffer::Scheduled(q) => q.len_packets(),
        }
    }
    pub fn queue_bytes(&self, now: SimTime) -> u64 {
        match &self.buffer {
            Buffer::Fifo(f) => f.waiting_at(now).1,
            Buffer::Unbounded => 0,
            Buffer::Scheduled(q) => q.len_bytes(),
        }
    }

    /// Packets this link holds in its own structures: the line, and a scheduled queue's contents.
    /// (A FIFO's waiting packets are already on the line or handed off, with their future times.)
    pub fn packets_held(&self) -> usize {
        self.line.len() + if let Buffer::Scheduled(q) = &self.buffer { q.len_packets() } else { 0 }
    }

    /// Counters as of `now`. A FIFO accounts for accepted packets when they arrive; what lies in the
    /// future of `now` (waiting packets not yet on the wire, their remaining wait) is taken back out.
    pub fn counters(&self, now: SimTime) -> LinkCounters {
        let mut c = self.counters.clone();
        match &self.buffer {
            Buffer::Fifo(f) => {
                let (packets, bytes, remaining) = f.waiting_at(now);
                c.packets_tx -= packets as u64;
                c.bytes_tx -= bytes;
                c.queue_area -= remaining;
            }
            Buffer::Scheduled(q) => {
                c.queue_area += q.len_packets() as u128 * now.since(self.last_queue_change).0 as u128;
            }
            Buffer::Unbounded => {}
        }
        c
    }

    /// A packet arrives at the link's input at `now`. Returns the packet if the buffer dropped it.
    pub fn enqueue(&mut self, now: SimTime, pkt: Packet, events: &mut EventQueue) -> Option<Packet> {
        let start = match &mut self.buffer {
            Buffer::Unbounded => self.busy_until.max(now),
            Buffer::Fifo(f) => {
                f.release(now);
                if self.busy_until > now {
                    let over_bytes = f.limit_bytes.is_some_and(|b| f.waiting_bytes + pkt.size as u64 > b);
                    if f.waiting.len() + 1 >= f.limit_packets || over_bytes {
                        self.counters.drops += 1;
                        return Some(pkt);
                    }
                    f.waiting.push_back((self.busy_until, pkt.size));
                    f.waiting_bytes += pkt.size as u64;
                    self.counters.queue_area += (self.busy_until.0 - now.0) as u128;
                    self.counters.max_queue_packets = self.counters.max_queue_packets.max(f.waiting.len());
                }
                self.busy_until.max(now)
            }
            Buffer::Scheduled(_) => return self.enqueue_scheduled(now, pkt, events),
        };
        self.transmit(start, pkt, events);
        None
    }

    fn enqueue_scheduled(&mut self, now: SimTime, pkt: Packet, events: &mut EventQueue) -> Option<Packet> {
        let Buffer::Scheduled(queue) = &mut self.buffer else { unreachable!() };
        if self.busy_until <= now && queue.is_empty() {
            self.transmit(now, pkt, events);
            return None;
        }
        let dt = now.since(self.last_queue_change).0 as u128;
        self.counters.queue_area += queue.len_packets() as u128 * dt;
        self.last_queue_change = now;
        match queue.enqueue(now, pkt) {
            Ok(()) => {
                self.counters.max_queue_packets = self.counters.max_queue_packets.max(queue.len_packets());
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

    /// The transmitter is free: take the next packet from a scheduled queue.
    pub fn on_tx_done(&mut self, now: SimTime, events: &mut EventQueue) {
        self.tx_done_pending = false;
        let Buffer::Scheduled(queue) = &mut self.buffer else { return };
        let dt = now.since(self.last_queue_change).0 as u128;
        self.counters.queue_area += queue.len_packets() as u128 * dt;
        self.last_queue_change = now;
        if let Some(pkt) = queue.dequeue(now) {
            let more = !queue.is_empty();
            self.transmit(now, pkt, events);
            if more {
                events.schedule(self.busy_until, Event::LinkTxDone(self.id));
                self.tx_done_pending = true;
            }
        }
    }

    /// Start transmitting `pkt` at `start` (now, or a known future instant for FIFO buffers).
    fn transmit(&mut self, start: SimTime, pkt: Packet, events: &mut EventQueue) {
        if self.tx_time_cache.0 != pkt.size {
            self.tx_time_cache = (pkt.size, self.rate.tx_time(pkt.size));
        }
        let done = start + self.tx_time_cache.1;
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
    use crate::net::packet::{Direction, Ecn, Payload};
    use crate::net::queue::DropTail;

    fn pkt(seq: u64) -> Packet {
        Packet {
            flow: 0,
            dir: Direction::Forward,
            hop: 0,
            size: 1500,
            sent_at: SimTime(0),
            ecn: Ecn::NotEct,
            payload: Payload::Data { seq, retransmission: false },
        }
    }

    /// DropTail both ways: as start times (`Fifo`) and as a scheduled queue.
    fn droptails(limit: usize) -> [Buffer; 2] {
        [Buffer::Fifo(FifoBuffer::new(limit, None)), Buffer::Scheduled(Box::new(DropTail::new(limit, None)))]
    }

    const MS: u64 = 1_000_000;
    /// 12 Mbit/s: a 1500-byte packet takes exactly 1 ms.
    fn link(buffer: Buffer, delay_ms: u64) -> Link {
        Link::new(0, Rate::from_bps(12_000_000), SimDuration::from_millis(delay_ms), buffer)
    }

    fn drain(link: &mut Link, events: &mut EventQueue) -> Vec<(u64, u64)> {
        advance(link, events, u64::MAX)
    }

    /// Fire the events due up to `until` (ns); returns the arrivals as (time, seq).
    fn advance(link: &mut Link, events: &mut EventQueue, until: u64) -> Vec<(u64, u64)> {
        let mut arrivals = vec![];
        while events.peek_time().is_some_and(|t| t.0 <= until) {
            let (t, ev) = events.pop().unwrap();
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
        // Three packets offered at t=0, 1 ms each, 10 ms delay: arrivals at 11, 12, 13 ms.
        for buffer in droptails(10) {
            let mut events = EventQueue::new();
            let mut l = link(buffer, 10);
            for s in 0..3 {
                assert!(l.enqueue(SimTime(0), pkt(s), &mut events).is_none());
            }
            assert_eq!(drain(&mut l, &mut events), vec![(11 * MS, 0), (12 * MS, 1), (13 * MS, 2)]);
        }
    }

    #[test]
    fn queue_limit_includes_the_packet_on_the_wire() {
        // Limit 2: one packet on the wire + one waiting; the third is dropped (ns-2 DropTail semantics).
        for buffer in droptails(2) {
            let mut events = EventQueue::new();
            let mut l = link(buffer, 0);
            assert!(l.enqueue(SimTime(0), pkt(0), &mut events).is_none());
            assert!(l.enqueue(SimTime(0), pkt(1), &mut events).is_none());
            assert!(l.enqueue(SimTime(0), pkt(2), &mut events).is_some());
            // At exactly 1 ms the first leaves and the second starts, but ns-2 handles an arrival at that
            // instant first: the second still waits, 1 + 1 >= 2, dropped. (The scheduled queue gets the
            // same order: its transmitter event at 1 ms fires after the arrival.)
            let mut arrived = advance(&mut l, &mut events, MS - 1);
            assert!(l.enqueue(SimTime(MS), pkt(3), &mut events).is_some());
            // 1 ns later the second is on the wire (1-2 ms): room for one more, sent 2-3 ms.
            arrived.extend(advance(&mut l, &mut events, MS));
            assert!(l.enqueue(SimTime(MS + 1), pkt(4), &mut events).is_none());
            arrived.extend(drain(&mut l, &mut events));
            assert_eq!(arrived, vec![(MS, 0), (2 * MS, 1), (3 * MS, 4)]);
            assert_eq!(l.counters(SimTime(10 * MS)).drops, 2);
        }
    }

    #[test]
    fn queue_area_integrates_waiting_packets_over_time() {
        // The second packet waits exactly 1 ms (the first one's serialisation): 1e6 packet-ns. Halfway,
        // at 0.5 ms, half of it has accrued and one packet waits.
        for buffer in droptails(5) {
            let mut events = EventQueue::new();
            let mut l = link(buffer, 0);
            l.enqueue(SimTime(0), pkt(0), &mut events);
            l.enqueue(SimTime(0), pkt(1), &mut events);
            assert_eq!(l.counters(SimTime(MS / 2)).queue_area, 500_000);
            assert_eq!(l.queue_packets(SimTime(MS / 2)), 1);
            drain(&mut l, &mut events);
            assert_eq!(l.counters(SimTime(10 * MS)).queue_area, 1_000_000);
            assert_eq!(l.counters(SimTime(10 * MS)).drops, 0);
        }
    }

    #[test]
    fn fifo_and_scheduled_droptail_agree_on_random_arrivals() {
        // Bursty arrivals (0-3 packets every 0-2 ms) into a 4-packet DropTail: the same packets are
        // delivered at the same instants, and the same ones are dropped.
        let mut rng = SimRng::new(11, 0);
        let mut arrivals = vec![];
        let mut t = 0;
        for seq in 0..2_000 {
            if rng.uniform() < 0.4 {
                t += (rng.uniform() * 2.0 * MS as f64) as u64;
            }
            arrivals.push((t, seq));
        }
        let run = |buffer: Buffer| {
            let mut events = EventQueue::new();
            let mut l = link(buffer, 3);
            let mut delivered = vec![];
            let mut dropped = vec![];
            for &(at, seq) in &arrivals {
                // Fire everything due before this arrival, as the simulation would.
                while events.peek_time().is_some_and(|e| e.0 < at) {
                    let (et, ev) = events.pop().unwrap();
                    match ev {
                        Event::LinkTxDone(_) => l.on_tx_done(et, &mut events),
                        Event::LinkArrival(_) => delivered.push((et.0, l.on_arrival(et, &mut events).payload)),
                        _ => unreachable!(),
                    }
                }
                if l.enqueue(SimTime(at), pkt(seq), &mut events).is_some() {
                    dropped.push(seq);
                }
            }
            let rest: Vec<(u64, u64)> = drain(&mut l, &mut events);
            (delivered.len() + rest.len(), dropped, l.counters(SimTime(u64::MAX / 2)).queue_area)
        };
        let [fifo, scheduled] = droptails(4);
        let a = run(fifo);
        let b = run(scheduled);
        assert!(!a.1.is_empty(), "the scenario should overflow the queue");
        assert_eq!(a, b);
    }

    #[test]
    fn unbounded_link_computes_departures_even_for_future_arrivals() {
        // Arrivals at 0, 0 and 5 ms (the last offered early, as a hand-off does) on a 1 ms/packet link:
        // transmissions 0-1, 1-2, 5-6 ms; with 10 ms delay, arrivals 11, 12, 16 ms.
        let mut events = EventQueue::new();
        let mut l = link(Buffer::Unbounded, 10);
        l.enqueue(SimTime(0), pkt(0), &mut events);
        l.enqueue(SimTime(0), pkt(1), &mut events);
        l.enqueue(SimTime(5 * MS), pkt(2), &mut events);
        assert_eq!(drain(&mut l, &mut events), vec![(11 * MS, 0), (12 * MS, 1), (16 * MS, 2)]);
    }

    #[test]
    fn hand_off_link_gives_packets_with_their_arrival_time() {
        let mut events = EventQueue::new();
        let mut l = link(Buffer::Fifo(FifoBuffer::new(5, None)), 10).handing_off();
        l.enqueue(SimTime(0), pkt(0), &mut events);
        l.enqueue(SimTime(0), pkt(1), &mut events);
        let mut out = vec![];
        l.take_handed_off(&mut out);
        assert_eq!(out.iter().map(|(t, _)| t.0).collect::<Vec<_>>(), vec![11 * MS, 12 * MS]);
        assert!(events.is_empty());
    }

    #[test]
    fn packet_errors_drop_about_the_configured_fraction() {
        let mut events = EventQueue::new();
        let mut l = Link::new(0, Rate::from_bps(1_000_000_000_000), SimDuration::ZERO, Buffer::Fifo(FifoBuffer::new(10, None)))
            .with_packet_errors(0.2, SimRng::new(3, 0));
        let mut t = 0;
        for s in 0..10_000 {
            t += 1_000;
            l.enqueue(SimTime(t), pkt(s), &mut events);
        }
        let arrived = drain(&mut l, &mut events).len();
        // 8000 expected, binomial sd = 40.
        assert!((7_800..=8_200).contains(&arrived), "{arrived}");
        assert_eq!(l.counters(SimTime(t)).error_drops as usize + arrived, 10_000);
    }
}
