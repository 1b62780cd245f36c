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
//!
//! Models of links that change over time compose with any buffer, each in its own file:
//! - `capacity`: the transmitter's rate (constant, a Mahimahi trace, a rate schedule, or a bearer whose
//!   rate follows the demand, `bearer`, told of every arrival and every transmission start with the bytes
//!   waiting);
//! - `delay`: the propagation delay (constant or a schedule; the wire stays FIFO);
//! - `loss`: random loss after transmission (Bernoulli, Gilbert-Elliott);
//! - `arq`: link-layer retransmission with in-order delivery (UMTS RLC acknowledged mode);
//! - `outage`: stalls of the transmitter drawn on the clock, independent of the load (delay spikes);
//! - `processing`: a node's per-packet processing delay in front of the buffer (`LinkIngress` events).
//!
//! All of them answer at transmission time, so the DropTail start-time fast path keeps working, except a
//! bearer: its rate can change after a packet joined the buffer, so its DropTail is kept as a scheduled
//! queue and each packet is timed when it starts (`with_capacity`). A link
//! that uses none of them (seed 000's) pays one never-taken branch per packet for their existence: they
//! live behind one `Option<Box<Models>>`, tested once on arrival; the buffer code is compiled twice,
//! with and without them, so that the plain copy has no further test.

use crate::event::{Event, EventQueue};
use crate::net::arq::Arq;
use crate::net::bearer::Bearer;
use crate::net::capacity::{constant_bits_between, Capacity};
use crate::net::delay::{Delay, Propagation};
use crate::net::line::Line;
use crate::net::line_pool::LinePool;
use crate::net::loss::{LossModel, LossProcess};
use crate::net::outage::OutageProcess;
use crate::net::packet::Packet;
use crate::net::processing::ProcessingDelay;
use crate::net::queue::{DropTail, Queue};
use crate::rng::SimRng;
use crate::spare::give_back_spare;
use crate::time::{Rate, SimDuration, SimTime};
use std::collections::VecDeque;

/// A line with room for at most this many entries (64 KB) gives spare room back at once
/// (`Link::review_line`).
const LINE_FREE_SHRINK: usize = 1024;
/// How often a larger line's (or a FIFO's) capacity is reviewed, at most (`Link::review_line`). Ten
/// seconds rather than one: each review of a one-flow line of 10^5 entries that carries trains shrank
/// it and the next train grew it back, megabytes copied into freshly mapped pages (one NewReno flow at
/// 10 Gbit/s x 300 ms, 0.1 BDP: 11 % slower than before with one second, 3-6 % with ten).
const LINE_REVIEW_INTERVAL: SimDuration = SimDuration::from_secs(10);
/// Entries (16 bytes each) a DropTail FIFO's start times keep room for however short the queue gets.
const WAITING_FLOOR: usize = 64;

/// Counters of one link, cumulative since the start of the run.
#[derive(Clone, Debug, Default)]
pub struct LinkCounters {
    /// Packets whose transmission has started.
    pub packets_tx: u64,
    pub bytes_tx: u64,
    /// Packets dropped by the buffer: `overflow_drops + early_drops`.
    pub drops: u64,
    /// Arrivals refused because the buffer was full.
    pub overflow_drops: u64,
    /// Packets dropped by the queue's AQM before the buffer was full (at enqueue or dequeue time).
    pub early_drops: u64,
    /// Packets the AQM marked CE instead of dropping them.
    pub ecn_marks: u64,
    /// Packets lost after their transmission started: the packet error rate (counted when the buffer
    /// accepts the packet), the loss model, and packets the ARQ gave up on (also in `arq_failures`).
    pub error_drops: u64,
    /// ARQ transmission attempts, first ones included (see `net::arq::ArqCounters`).
    pub arq_attempts: u64,
    pub arq_retransmissions: u64,
    pub arq_failures: u64,
    /// Delay the ARQ added to the packets it delivered (retries and head-of-line waits), ns.
    pub arq_added_delay_ns: u128,
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
    /// Bytes of the packets in `waiting`.
    waiting_bytes: u64,
    /// Sum of the start times in `waiting`, ns: with the count and bytes, it answers `waiting_at` without
    /// walking a queue that may hold 10^6 packets.
    waiting_starts: u128,
    /// The first arrival at or after this reviews the capacity of `waiting` (`review`).
    review: SimTime,
}

impl FifoBuffer {
    pub fn new(limit_packets: usize, limit_bytes: Option<u64>) -> Self {
        FifoBuffer { limit_packets, limit_bytes, waiting: VecDeque::new(), waiting_bytes: 0, waiting_starts: 0, review: SimTime::ZERO }
    }
    fn push(&mut self, start: SimTime, size: u32) {
        self.waiting.push_back((start, size));
        self.waiting_bytes += size as u64;
        self.waiting_starts += start.0 as u128;
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
            self.waiting_starts -= start.0 as u128;
        }
        if now >= self.review {
            self.review(now);
        }
    }
    /// Give back the start times' spare room (`spare`), at most once per `LINE_REVIEW_INTERVAL`: a
    /// queue that drains and refills every few milliseconds would otherwise reallocate every time.
    #[cold]
    #[inline(never)]
    fn review(&mut self, now: SimTime) {
        give_back_spare(&mut self.waiting, WAITING_FLOOR);
        self.review = now + LINE_REVIEW_INTERVAL;
    }
    /// Waiting at `now` (without releasing): (packets, bytes, sum of remaining waits in ns). The packets
    /// that still wait are those starting after `now`, the tail of `waiting`; the totals less the head of
    /// those that started since the last arrival (few: only what the transmitter took since then) give
    /// them exactly: sum over the tail of (start - now) = (sum of starts) - packets x now.
    fn waiting_at(&self, now: SimTime) -> (usize, u64, u128) {
        let mut started = 0;
        let mut started_bytes = 0;
        let mut started_starts = 0u128;
        for &(start, size) in self.waiting.iter() {
            if start > now {
                break;
            }
            started += 1;
            started_bytes += size as u64;
            started_starts += start.0 as u128;
        }
        let packets = self.waiting.len() - started;
        let remaining = self.waiting_starts - started_starts - packets as u128 * now.0 as u128;
        (packets, self.waiting_bytes - started_bytes, remaining)
    }
}

pub enum Buffer {
    Fifo(FifoBuffer),
    Unbounded,
    Scheduled(Box<dyn Queue>),
}

/// The link's bearer, if its capacity is one (`net::bearer`): told of every arrival.
#[inline(always)]
fn bearer_of(models: &mut Option<Box<Models>>) -> Option<&mut Bearer> {
    match models.as_deref_mut() {
        Some(Models { capacity: Capacity::Bearer(bearer), .. }) => Some(bearer),
        _ => None,
    }
}

/// The models a link has beyond a constant rate and delay, boxed so that a plain link stays small and
/// tests a single pointer for all of them.
struct Models {
    capacity: Capacity,
    propagation: Propagation,
    /// Loss after transmission (besides `Link::errors`, kept apart so that its draws never move).
    loss: Option<LossProcess>,
    arq: Option<Arq>,
    /// Outages of the transmitter, independent of the load.
    outages: Option<OutageProcess>,
    /// Processing stage in front of the buffer.
    ingress: Option<ProcessingDelay>,
}

pub struct Link {
    id: u32,
    /// The constant rate, or the mean rate of a capacity model (for `LinkInfo` and reports).
    rate: Rate,
    /// The constant delay, or a delay schedule's delay at time 0.
    delay: SimDuration,
    buffer: Buffer,
    /// When the transmitter finishes its current (or last scheduled) packet; in the past when idle.
    busy_until: SimTime,
    tx_done_pending: bool,
    /// Packets propagating, with their arrival time at the far end (non-decreasing).
    line: Line,
    /// The first arrival at or after this reviews the line's capacity (`review_line`).
    line_review: SimTime,
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
    /// Capacity, delay, loss, ARQ and processing models; None for a plain link.
    models: Option<Box<Models>>,
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
            line: Line::default(),
            line_review: SimTime::ZERO,
            errors: None,
            counters: LinkCounters::default(),
            last_queue_change: SimTime::ZERO,
            tx_time_cache: (0, SimDuration::ZERO),
            handed_off: None,
            models: None,
        }
    }

    /// The models, created on first use with the link's constant rate and delay.
    fn models_mut(&mut self) -> &mut Models {
        let (rate, delay) = (self.rate, self.delay);
        self.models.get_or_insert_with(|| {
            Box::new(Models {
                capacity: Capacity::Constant(rate),
                propagation: Propagation::new(Delay::Constant(delay)),
                loss: None,
                arq: None,
                outages: None,
                ingress: None,
            })
        })
    }

    /// The transmitter's rate model. A constant rate keeps the link plain (unless another model is set).
    ///
    /// A bearer's rate can change after a packet joined the buffer (a step up that a later arrival asks
    /// for), so a DropTail or unbounded FIFO in front of one is kept as a scheduled DropTail with the same
    /// limits: each packet is then timed when its transmission starts, at the rates switched to by then
    /// (`net::bearer`). The two forms of DropTail drop and deliver the same packets at a constant rate
    /// (`fifo_and_scheduled_droptail_agree_on_random_arrivals`); links without a bearer keep the
    /// start-time fast path.
    pub fn with_capacity(mut self, capacity: Capacity) -> Self {
        self.rate = Rate::from_bps(capacity.mean_rate_bps());
        if matches!(capacity, Capacity::Bearer(_)) {
            let limits = match &self.buffer {
                Buffer::Fifo(f) => Some((f.limit_packets, f.limit_bytes)),
                Buffer::Unbounded => Some((usize::MAX, None)),
                Buffer::Scheduled(_) => None,
            };
            if let Some((limit_packets, limit_bytes)) = limits {
                self.buffer = Buffer::Scheduled(Box::new(DropTail::new(limit_packets, limit_bytes)));
            }
        }
        match (capacity, &mut self.models) {
            (Capacity::Constant(rate), None) => self.rate = rate,
            (capacity, _) => self.models_mut().capacity = capacity,
        }
        self
    }

    /// The propagation delay model. A constant delay keeps the link plain (unless another model is set).
    pub fn with_delay_model(mut self, delay: Delay) -> Self {
        self.delay = delay.at(SimTime::ZERO);
        if matches!(delay, Delay::Constant(_)) && self.models.is_none() {
            return self;
        }
        self.models_mut().propagation = Propagation::new(delay);
        self
    }

    /// Random loss of transmitted packets, drawn from `rng` (after the packet error rate, if both are
    /// set). A Bernoulli model with p = 0 is no model.
    pub fn with_loss(mut self, model: LossModel, rng: SimRng) -> Self {
        if !matches!(model, LossModel::Bernoulli(p) if p <= 0.0) {
            self.models_mut().loss = Some(LossProcess::new(model, rng));
        }
        self
    }

    /// Link-layer retransmission of the packets the ARQ's own loss model takes (after the packet error
    /// rate and the loss model, which it does not repair).
    pub fn with_arq(mut self, arq: Arq) -> Self {
        self.models_mut().arq = Some(arq);
        self
    }

    /// Outages of the transmitter (`net::outage`): nothing starts during one, and a transmission under
    /// way is suspended until it ends.
    pub fn with_outages(mut self, outages: OutageProcess) -> Self {
        self.models_mut().outages = Some(outages);
        self
    }

    /// Hold each arriving packet `fixed + uniform[0, jitter]` (drawn from `rng`) before it enters the
    /// buffer, in arrival order (`net::processing`). Zero and zero is no stage.
    pub fn with_processing_delay(mut self, fixed: SimDuration, jitter: SimDuration, rng: SimRng) -> Self {
        if fixed > SimDuration::ZERO || jitter > SimDuration::ZERO {
            self.models_mut().ingress = Some(ProcessingDelay::new(fixed, jitter, rng));
        }
        self
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

    /// Whether this link hands its packets to the next hop at transmission (`handing_off`).
    pub fn hands_off(&self) -> bool {
        self.handed_off.is_some()
    }

    /// Whether this link hands off with a FIFO or unbounded buffer and no models (the dumbbell's
    /// bottleneck): then `hand_off_plainly` takes its packets.
    #[inline(always)]
    pub fn hands_off_plainly(&self) -> bool {
        self.handed_off.is_some() && self.models.is_none() && !matches!(self.buffer, Buffer::Scheduled(_))
    }

    /// `pkt` arrives at a plain hand-off link (`hands_off_plainly`) at `now`: the packet with its arrival
    /// time at the next hop, or None when the buffer or a packet error dropped it. What `enqueue` then
    /// `take_single_handed_off` give, with the same counters, without the hand-off vector's push and pop
    /// (two copies of the packet per hand-off).
    #[inline(always)]
    pub fn hand_off_plainly(&mut self, now: SimTime, pkt: Packet) -> Option<(SimTime, Packet)> {
        debug_assert!(self.hands_off_plainly());
        let start = self.fifo_start(now, pkt.size)?;
        let arrival = self.plain_arrival(start, pkt.size)?;
        Some((arrival, pkt))
    }

    /// A link without models or packet errors whose buffer is unbounded: a packet's arrival at its far
    /// end is known when it enters (`traverse_plainly`), and entering ahead of time changes nothing.
    pub fn is_plain_unbounded(&self) -> bool {
        self.models.is_none() && self.errors.is_none() && matches!(self.buffer, Buffer::Unbounded)
    }

    /// A packet of `size` bytes enters this plain unbounded link (`is_plain_unbounded`) at `now` and is
    /// transmitted as `enqueue` would, with the same counters, but not put on the line: its arrival at the
    /// far end is returned instead (`Simulation::receive_at_hand_off`).
    #[inline(always)]
    pub fn traverse_plainly(&mut self, now: SimTime, size: u32) -> SimTime {
        debug_assert!(self.is_plain_unbounded());
        let start = self.fifo_start(now, size).expect("an unbounded buffer never drops");
        self.plain_arrival(start, size).expect("no packet errors")
    }

    /// Whether packets are lost to random errors after their transmission (`with_packet_errors`).
    pub fn has_packet_errors(&self) -> bool {
        self.errors.is_some()
    }

    /// A DropTail FIFO's limit in packets, the one on the wire included (None for other buffers).
    pub fn fifo_limit_packets(&self) -> Option<usize> {
        match &self.buffer {
            Buffer::Fifo(f) => Some(f.limit_packets),
            _ => None,
        }
    }

    /// The packet handed off since the last call, with its arrival time at the next hop, when exactly one
    /// was (the usual case: one enqueue transmits at most one packet); None, leaving them, otherwise.
    #[inline(always)]
    pub fn take_single_handed_off(&mut self) -> Option<(SimTime, Packet)> {
        match &mut self.handed_off {
            Some(h) if h.len() == 1 => h.pop(),
            _ => None,
        }
    }

    /// Packets handed off since the last call, with their arrival time at the next hop.
    pub fn take_handed_off(&mut self, into: &mut Vec<(SimTime, Packet)>) {
        if let Some(h) = &mut self.handed_off {
            // The caller drains `into` every time: swapping the buffers saves a copy of every packet.
            if into.is_empty() {
                std::mem::swap(into, h);
            } else {
                into.append(h);
            }
        }
    }

    /// The constant rate, or the mean rate of the capacity model.
    pub fn rate(&self) -> Rate {
        self.rate
    }
    /// The constant delay, or the delay schedule's delay at time 0.
    pub fn delay(&self) -> SimDuration {
        self.delay
    }
    /// Mean rate in bit/s (`Capacity::mean_rate_bps`): for the queue's `LinkInfo` and reports.
    pub fn mean_rate_bps(&self) -> u64 {
        self.rate.bits_per_sec
    }
    /// Bits the transmitter could have sent over [t0, t1): the denominator of utilisation. For a trace,
    /// the opportunities in the window times their size.
    pub fn capacity_bits_between(&self, t0: SimTime, t1: SimTime) -> u64 {
        match &self.models {
            Some(m) => m.capacity.bits_between(t0, t1),
            None => constant_bits_between(self.rate, t0, t1),
        }
    }
    pub fn capacity(&self) -> Option<&Capacity> {
        self.models.as_ref().map(|m| &m.capacity)
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
        let staged = self.models.as_ref().and_then(|m| m.ingress.as_ref()).map_or(0, |s| s.len());
        self.line.len() + staged + if let Buffer::Scheduled(q) = &self.buffer { q.len_packets() } else { 0 }
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
                // The discipline counts its own drops, dequeue-time ones included.
                let qc = q.counters();
                c.overflow_drops = qc.overflow_drops;
                c.early_drops = qc.early_drops;
                c.ecn_marks = qc.ecn_marks;
                c.drops = qc.overflow_drops + qc.early_drops;
            }
            Buffer::Unbounded => {}
        }
        if let Some(arq) = self.models.as_ref().and_then(|m| m.arq.as_ref()) {
            let a = arq.counters();
            c.arq_attempts = a.attempts;
            c.arq_retransmissions = a.retransmissions;
            c.arq_failures = a.failures;
            c.arq_added_delay_ns = a.added_delay_ns;
        }
        c
    }

    /// A packet arrives at the link's input at `now`. Returns the packet if the buffer dropped it.
    #[inline(always)]
    pub fn enqueue(&mut self, now: SimTime, pkt: Packet, events: &mut EventQueue, lines: &mut LinePool) -> Option<Packet> {
        if self.models.is_some() {
            return self.enqueue_modelled(now, pkt, events, lines);
        }
        self.join_buffer::<false>(now, pkt, events, lines)
    }

    fn enqueue_modelled(&mut self, now: SimTime, pkt: Packet, events: &mut EventQueue, lines: &mut LinePool) -> Option<Packet> {
        let id = self.id;
        if let Some(stage) = self.models.as_deref_mut().and_then(|m| m.ingress.as_mut()) {
            if let Some(release) = stage.admit(now, pkt) {
                events.schedule(release, Event::LinkIngress(id));
            }
            return None;
        }
        self.join_buffer::<true>(now, pkt, events, lines)
    }

    /// The processing stage releases its head packet into the buffer. Returns the packet if the buffer
    /// dropped it.
    pub fn on_ingress(&mut self, now: SimTime, events: &mut EventQueue, lines: &mut LinePool) -> Option<Packet> {
        let id = self.id;
        let stage = self.models.as_deref_mut().and_then(|m| m.ingress.as_mut()).expect("LinkIngress without a processing stage");
        let (pkt, next) = stage.release(now);
        if let Some(t) = next {
            events.schedule(t, Event::LinkIngress(id));
        }
        self.join_buffer::<true>(now, pkt, events, lines)
    }

    /// The packet joins the buffer at `now`. `MODELLED` says whether the link has models, so that the
    /// plain copy of this code never tests for them again.
    #[inline(always)]
    fn join_buffer<const MODELLED: bool>(&mut self, now: SimTime, pkt: Packet, events: &mut EventQueue, lines: &mut LinePool) -> Option<Packet> {
        // A bearer's buffer is always scheduled (`with_capacity`): the start-time paths below never see one.
        if matches!(self.buffer, Buffer::Scheduled(_)) {
            return self.enqueue_scheduled(now, pkt, events, lines);
        }
        let Some(start) = self.fifo_start(now, pkt.size) else { return Some(pkt) };
        if MODELLED {
            self.transmit_modelled(start, pkt, events, lines);
        } else {
            self.transmit_plain(start, pkt, events, lines);
        }
        None
    }

    /// When a packet of `size` bytes arriving at `now` starts its transmission through a FIFO or
    /// unbounded buffer; None when the FIFO is full and drops it (counted here).
    #[inline(always)]
    fn fifo_start(&mut self, now: SimTime, size: u32) -> Option<SimTime> {
        match &mut self.buffer {
            Buffer::Unbounded => {}
            Buffer::Fifo(f) => {
                f.release(now);
                if self.busy_until > now {
                    let over_bytes = f.limit_bytes.is_some_and(|b| f.waiting_bytes + size as u64 > b);
                    if f.waiting.len() + 1 >= f.limit_packets || over_bytes {
                        self.counters.drops += 1;
                        self.counters.overflow_drops += 1;
                        return None;
                    }
                    f.push(self.busy_until, size);
                    self.counters.queue_area += (self.busy_until.0 - now.0) as u128;
                    self.counters.max_queue_packets = self.counters.max_queue_packets.max(f.waiting.len());
                }
            }
            Buffer::Scheduled(_) => unreachable!("a scheduled queue times its packets at dequeue"),
        }
        Some(self.busy_until.max(now))
    }

    /// Every arrival is offered to the discipline, also when the transmitter is idle and the queue empty,
    /// so that an AQM sees every arrival (ns-2's `Queue::recv` enqueues, then dequeues if not blocked);
    /// the discipline counts its drops and marks.
    fn enqueue_scheduled(&mut self, now: SimTime, pkt: Packet, events: &mut EventQueue, lines: &mut LinePool) -> Option<Packet> {
        let Buffer::Scheduled(queue) = &mut self.buffer else { unreachable!() };
        let dt = now.since(self.last_queue_change).0 as u128;
        self.counters.queue_area += queue.len_packets() as u128 * dt;
        self.last_queue_change = now;
        if let Some(bearer) = bearer_of(&mut self.models) {
            let idle = self.busy_until <= now && !self.tx_done_pending && queue.is_empty();
            bearer.before_arrival(now, idle.then_some(self.busy_until));
        }
        if let Err(dropped) = queue.enqueue(now, pkt) {
            if let Some(bearer) = bearer_of(&mut self.models) {
                bearer.after_arrival(now, queue.len_bytes() + dropped.size as u64);
            }
            return Some(dropped);
        }
        if self.busy_until <= now && !self.tx_done_pending {
            // The transmitter is idle: the packet (or whichever the discipline picks) goes at once.
            if let Some(next) = queue.dequeue(now) {
                let waiting_bytes = queue.len_bytes();
                if let Some(bearer) = bearer_of(&mut self.models) {
                    bearer.at_transmission_start(now, waiting_bytes);
                }
                self.transmit(now, next, events, lines);
            }
        }
        let Buffer::Scheduled(queue) = &mut self.buffer else { unreachable!() };
        if let Some(bearer) = bearer_of(&mut self.models) {
            bearer.after_arrival(now, queue.len_bytes());
        }
        self.counters.max_queue_packets = self.counters.max_queue_packets.max(queue.len_packets());
        if !queue.is_empty() && !self.tx_done_pending {
            events.schedule(self.busy_until.max(now), Event::LinkTxDone(self.id));
            self.tx_done_pending = true;
        }
        None
    }

    /// The transmitter is free: take the next packet from a scheduled queue.
    pub fn on_tx_done(&mut self, now: SimTime, events: &mut EventQueue, lines: &mut LinePool) {
        self.tx_done_pending = false;
        let Buffer::Scheduled(queue) = &mut self.buffer else { return };
        let dt = now.since(self.last_queue_change).0 as u128;
        self.counters.queue_area += queue.len_packets() as u128 * dt;
        self.last_queue_change = now;
        if let Some(pkt) = queue.dequeue(now) {
            let more = !queue.is_empty();
            let waiting_bytes = queue.len_bytes();
            if let Some(bearer) = bearer_of(&mut self.models) {
                bearer.at_transmission_start(now, waiting_bytes);
            }
            self.transmit(now, pkt, events, lines);
            if more {
                events.schedule(self.busy_until, Event::LinkTxDone(self.id));
                self.tx_done_pending = true;
            }
        }
    }

    /// Start transmitting `pkt` at `start`, with the link's models if it has any.
    fn transmit(&mut self, start: SimTime, pkt: Packet, events: &mut EventQueue, lines: &mut LinePool) {
        if self.models.is_some() {
            self.transmit_modelled(start, pkt, events, lines);
        } else {
            self.transmit_plain(start, pkt, events, lines);
        }
    }

    /// Serialisation time at the constant rate, cached for the last packet size seen.
    #[inline(always)]
    fn constant_tx_time(&mut self, size: u32) -> SimDuration {
        if self.tx_time_cache.0 != size {
            self.tx_time_cache = (size, self.rate.tx_time(size));
        }
        self.tx_time_cache.1
    }

    /// Start transmitting `pkt` at `start` (now, or a known future instant for FIFO buffers): constant
    /// rate and delay, packet errors.
    #[inline(always)]
    fn transmit_plain(&mut self, start: SimTime, pkt: Packet, events: &mut EventQueue, lines: &mut LinePool) {
        if let Some(arrival) = self.plain_arrival(start, pkt.size) {
            self.emit(arrival, pkt, events, lines);
        }
    }

    /// A packet of `size` bytes starts its transmission at `start`: its arrival at the far end, or None
    /// when a packet error takes it (counted here).
    #[inline(always)]
    fn plain_arrival(&mut self, start: SimTime, size: u32) -> Option<SimTime> {
        let done = start + self.constant_tx_time(size);
        self.busy_until = done;
        self.counters.packets_tx += 1;
        self.counters.bytes_tx += size as u64;
        if let Some((p, rng)) = &mut self.errors {
            if rng.bernoulli(*p) {
                self.counters.error_drops += 1;
                return None;
            }
        }
        Some(done + self.delay)
    }

    /// `transmit_plain` with the models: outages and capacity, then packet errors, loss, ARQ, and
    /// propagation.
    fn transmit_modelled(&mut self, start: SimTime, pkt: Packet, events: &mut EventQueue, lines: &mut LinePool) {
        let start = match &mut self.models.as_deref_mut().expect("a modelled link").outages {
            Some(outages) => outages.clear_at(start),
            None => start,
        };
        let done = match &mut self.models.as_deref_mut().expect("a modelled link").capacity {
            Capacity::Constant(_) => start + self.constant_tx_time(pkt.size),
            capacity => capacity.transmission_done(start, pkt.size),
        };
        // With outages, the transmitter is free for the next packet only once any outage that begins
        // as this one ends is over: the next start is then known exactly, and so are the start times a
        // DropTail buffer records for the packets waiting (its occupancy and drops stay exact).
        let (done, free_at) = match &mut self.models.as_deref_mut().expect("a modelled link").outages {
            Some(outages) => {
                let done = outages.stretch(start, done);
                (done, outages.clear_at(done))
            }
            None => (done, done),
        };
        self.busy_until = free_at;
        self.counters.packets_tx += 1;
        self.counters.bytes_tx += pkt.size as u64;
        if let Some((p, rng)) = &mut self.errors {
            if rng.bernoulli(*p) {
                self.counters.error_drops += 1;
                return;
            }
        }
        let m = self.models.as_deref_mut().expect("a modelled link");
        if m.loss.as_mut().is_some_and(|loss| loss.lose()) {
            self.counters.error_drops += 1;
            return;
        }
        let sent = match &mut m.arq {
            None => done,
            Some(arq) => match arq.deliver(done) {
                Some(released) => released,
                None => {
                    self.counters.error_drops += 1;
                    return;
                }
            },
        };
        let arrival = m.propagation.arrival(sent);
        self.emit(arrival, pkt, events, lines);
    }

    /// Put a packet that `traverse_plainly` took through this link on its line (or hand it off), as
    /// `enqueue` would have after the same transmission.
    #[inline(always)]
    pub fn put_on_line(&mut self, arrival: SimTime, pkt: Packet, events: &mut EventQueue, lines: &mut LinePool) {
        self.emit(arrival, pkt, events, lines);
    }

    /// No packet is on the way to the far end.
    #[inline(always)]
    pub fn line_is_empty(&self) -> bool {
        self.line.is_empty()
    }

    /// When the last packet on the line reaches the far end, if any is on it.
    #[inline(always)]
    pub fn line_tail_arrival(&self) -> Option<SimTime> {
        self.line.tail_arrival()
    }

    /// The packet will reach the far end at `arrival`: hand it off, or put it on the line.
    #[inline(always)]
    fn emit(&mut self, arrival: SimTime, pkt: Packet, events: &mut EventQueue, lines: &mut LinePool) {
        if let Some(h) = &mut self.handed_off {
            h.push((arrival, pkt));
            return;
        }
        if self.line.is_empty() {
            events.schedule(arrival, Event::LinkArrival(self.id));
        }
        self.line.push(arrival, pkt, lines);
    }

    /// Give back the line's spare room (`spare`). A small line (at most `LINE_FREE_SHRINK` entries of
    /// room) gives it back at once, so that its ring stays compact: the slot a packet is written to was
    /// then freed by a recent arrival and is still in the cache, where in a ring many times longer than
    /// its contents every write went to memory untouched for a whole turn of the ring (with 1000 flows
    /// at 10 Gbit/s, run 18b measured 1.4x the speed from this and the aligned entries). That matters
    /// only when the rings together outgrow the cache, so a small line keeps its room instead while the
    /// rings kept so far fit the pool's bound (`Line::keep_or_give_back_spare`, run 22b). A large line
    /// gives room back at most once per `LINE_REVIEW_INTERVAL` of simulated time: a line that carries
    /// its flow's window as a train (sent back to back, shorter than the round trip) empties between
    /// trains, and shrinking as each train drained and growing back at the next reallocated (and
    /// mapped fresh pages for) buffers of megabytes every round trip, which cost one NewReno flow at
    /// 10 Gbit/s a fifth of its speed.
    #[cold]
    #[inline(never)]
    fn review_line(&mut self, now: SimTime, lines: &mut LinePool) {
        if self.line.capacity() <= LINE_FREE_SHRINK {
            self.line.keep_or_give_back_spare(lines);
        } else if now >= self.line_review {
            self.line.give_back_spare(lines);
            self.line_review = now + LINE_REVIEW_INTERVAL;
        }
    }

    /// The head of the propagation line arrives; schedules the next head (this module's tests; the
    /// simulation takes the arrival and schedules the head itself, `Simulation::schedule_line_head`).
    #[cfg(test)]
    pub fn on_arrival(&mut self, now: SimTime, events: &mut EventQueue, lines: &mut LinePool) -> Packet {
        let (pkt, next) = self.take_arrival(now, lines);
        if let Some(next) = next {
            self.schedule_head(next, events);
        }
        pkt
    }

    /// The head of the propagation line arrives: it and the next head's arrival, whose event the caller
    /// schedules (`schedule_head`; `Simulation::schedule_line_head` numbers some as of another time).
    #[inline(always)]
    pub fn take_arrival(&mut self, now: SimTime, lines: &mut LinePool) -> (Packet, Option<SimTime>) {
        let (t, pkt, next) = self.line.pop().expect("LinkArrival with an empty line");
        debug_assert!(t <= now);
        if self.line.has_spare() {
            self.review_line(now, lines);
        }
        (pkt, next)
    }

    /// The line's head arrives at `next`: its event.
    #[inline(always)]
    pub fn schedule_head(&self, next: SimTime, events: &mut EventQueue) {
        events.schedule(next, Event::LinkArrival(self.id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::bearer::{Bearer, BearerParams, StepDown};
    use crate::net::packet::test_packets::{data_packet, seq_of};
    use crate::net::packet::Payload;
    use crate::traffic::dist::Distribution;

    #[test]
    fn a_line_gives_back_room_once_its_flow_slows_down() {
        // 12 Mbit/s (1 ms a packet), 0 delay on an unbounded buffer: 200 packets offered at once go
        // out 1 ms apart (packet k arrives at k + 1 ms), the line grows to 256 entries of room. Other
        // lines already keep all the room the pool allows (`LinePool::kept_in_full`), so the arrival
        // that leaves 31 (31 < 256 / 8 = 32, at 169 ms) shrinks the room to 2 x 31 = 62, rounded up
        // to 64; at 23 left (177 ms; 23 >= 64 / 8) it stays 64, and arrivals go on in order.
        let mut l = link(Buffer::Unbounded, 0);
        let mut events = EventQueue::new();
        let mut lines = LinePool::kept_in_full();
        for seq in 0..200 {
            l.enqueue(SimTime(0), data_packet(seq, 1500), &mut events, &mut lines);
        }
        assert_eq!(l.line.capacity(), 256);
        let arrivals = advance(&mut l, &mut events, &mut lines, 177 * MS);
        assert_eq!(arrivals.len(), 177);
        assert_eq!(arrivals.last(), Some(&(177 * MS, 176)));
        assert_eq!(l.line.len(), 23);
        assert_eq!(l.line.capacity(), 64);
        assert_eq!(drain(&mut l, &mut events, &mut lines).first(), Some(&(178 * MS, 177)));
    }

    #[test]
    fn a_line_keeps_its_room_between_trains_while_the_pool_allows() {
        // As above, but with nothing kept yet: at 31 left (169 ms) the line keeps its 256 entries
        // (16 KB, within the pool's 256 KB) and stops asking; drained, it still has them, and a second
        // train of 200 needs no growth. Then it grows past them (300 at once: 512 entries), which
        // hands the kept room back to the pool's count.
        let mut l = link(Buffer::Unbounded, 0);
        let mut events = EventQueue::new();
        let mut lines = LinePool::default();
        for seq in 0..200 {
            l.enqueue(SimTime(0), data_packet(seq, 1500), &mut events, &mut lines);
        }
        assert_eq!(drain(&mut l, &mut events, &mut lines).len(), 200);
        assert_eq!((l.line.len(), l.line.capacity()), (0, 256));
        assert_eq!(lines.kept_bytes(), 256 * 64);
        for seq in 200..400 {
            l.enqueue(SimTime(300 * MS), data_packet(seq, 1500), &mut events, &mut lines);
        }
        assert_eq!(l.line.capacity(), 256);
        let arrivals = drain(&mut l, &mut events, &mut lines);
        assert_eq!((arrivals.first(), arrivals.len()), (Some(&(301 * MS, 200)), 200));
        for seq in 400..700 {
            l.enqueue(SimTime(600 * MS), data_packet(seq, 1500), &mut events, &mut lines);
        }
        assert_eq!(l.line.capacity(), 512);
        assert_eq!(lines.kept_bytes(), 0);
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

    fn drain(link: &mut Link, events: &mut EventQueue, lines: &mut LinePool) -> Vec<(u64, u64)> {
        advance(link, events, lines, u64::MAX)
    }

    /// Fire the events due up to `until` (ns); returns the arrivals as (time, seq).
    fn advance(link: &mut Link, events: &mut EventQueue, lines: &mut LinePool, until: u64) -> Vec<(u64, u64)> {
        let mut arrivals = vec![];
        while events.peek_time().is_some_and(|t| t.0 <= until) {
            let (t, ev) = events.pop().unwrap();
            match ev {
                Event::LinkTxDone(_) => link.on_tx_done(t, events, lines),
                Event::LinkIngress(_) => assert!(link.on_ingress(t, events, lines).is_none(), "no drop expected here"),
                Event::LinkArrival(_) => {
                    let p = link.on_arrival(t, events, lines);
                    if let Payload::Data { seq, .. } = p.payload {
                        arrivals.push((t.0, seq.get()));
                    }
                }
                _ => unreachable!(),
            }
        }
        arrivals
    }

    /// Offer packets at the given instants (ns, non-decreasing), firing what is due before each as the
    /// simulation would; then run to the end. Returns the arrivals as (time, seq) and the dropped seqs.
    fn feed(link: &mut Link, offered: &[(u64, Packet)]) -> (Vec<(u64, u64)>, Vec<u64>) {
        let mut events = EventQueue::new();
        let mut lines = LinePool::default();
        let mut arrived = vec![];
        let mut dropped = vec![];
        for (at, p) in offered {
            arrived.extend(advance(link, &mut events, &mut lines, at.saturating_sub(1)));
            if let Some(d) = link.enqueue(SimTime(*at), *p, &mut events, &mut lines) {
                let Payload::Data { seq, .. } = d.payload else { unreachable!() };
                dropped.push(seq.get());
            }
        }
        arrived.extend(drain(link, &mut events, &mut lines));
        (arrived, dropped)
    }

    #[test]
    fn back_to_back_packets_are_spaced_by_serialisation_and_delayed_by_propagation() {
        // Three packets offered at t=0, 1 ms each, 10 ms delay: arrivals at 11, 12, 13 ms.
        for buffer in droptails(10) {
            let mut events = EventQueue::new();
            let mut lines = LinePool::default();
            let mut l = link(buffer, 10);
            for s in 0..3 {
                assert!(l.enqueue(SimTime(0), data_packet(s, 1500), &mut events, &mut lines).is_none());
            }
            assert_eq!(drain(&mut l, &mut events, &mut lines), vec![(11 * MS, 0), (12 * MS, 1), (13 * MS, 2)]);
        }
    }

    #[test]
    fn a_plain_hand_off_gives_what_enqueue_hands_off() {
        // Limit 2 (one on the wire, one waiting), 1 ms per packet, 10 ms delay. At t = 0 three packets:
        // the first arrives at 0 + 1 + 10 = 11 ms, the second waits and arrives at 12 ms, the third is
        // dropped. At 1.5 ms the second is on the wire and nothing waits: the fourth waits 0.5 ms, starts at
        // 2 ms and arrives at 13 ms. Queue area: 1 ms (the second) + 0.5 ms (the fourth), in packet-ns.
        // Given plainly and through the hand-off vector: the same packets, times and counters.
        let offered = [(0, 0), (0, 1), (0, 2), (3 * MS / 2, 3)];
        let expected = [Some(11 * MS), Some(12 * MS), None, Some(13 * MS)];
        let mut plain = link(Buffer::Fifo(FifoBuffer::new(2, None)), 10).handing_off();
        let mut vector = link(Buffer::Fifo(FifoBuffer::new(2, None)), 10).handing_off();
        assert!(plain.hands_off_plainly());
        let mut events = EventQueue::new();
        let mut lines = LinePool::default();
        for ((at, seq), want) in offered.into_iter().zip(expected) {
            let got = plain.hand_off_plainly(SimTime(at), data_packet(seq, 1500));
            assert_eq!(got.map(|(t, p)| (t.0, seq_of(&p))), want.map(|t| (t, seq)));
            vector.enqueue(SimTime(at), data_packet(seq, 1500), &mut events, &mut lines);
            assert_eq!(vector.take_single_handed_off().map(|(t, p)| (t.0, seq_of(&p))), want.map(|t| (t, seq)));
        }
        assert!(events.is_empty(), "a hand-off link schedules nothing");
        let (a, b) = (plain.counters(SimTime(20 * MS)), vector.counters(SimTime(20 * MS)));
        assert_eq!((a.packets_tx, a.drops, a.queue_area), (3, 1, 3 * MS as u128 / 2));
        assert_eq!((b.packets_tx, b.drops, b.queue_area), (3, 1, 3 * MS as u128 / 2));
    }

    #[test]
    fn queue_limit_includes_the_packet_on_the_wire() {
        // Limit 2: one packet on the wire + one waiting; the third is dropped (ns-2 DropTail semantics).
        for buffer in droptails(2) {
            let mut events = EventQueue::new();
            let mut lines = LinePool::default();
            let mut l = link(buffer, 0);
            assert!(l.enqueue(SimTime(0), data_packet(0, 1500), &mut events, &mut lines).is_none());
            assert!(l.enqueue(SimTime(0), data_packet(1, 1500), &mut events, &mut lines).is_none());
            assert!(l.enqueue(SimTime(0), data_packet(2, 1500), &mut events, &mut lines).is_some());
            // At exactly 1 ms the first leaves and the second starts, but ns-2 handles an arrival at that
            // instant first: the second still waits, 1 + 1 >= 2, dropped. (The scheduled queue gets the
            // same order: its transmitter event at 1 ms fires after the arrival.)
            let mut arrived = advance(&mut l, &mut events, &mut lines, MS - 1);
            assert!(l.enqueue(SimTime(MS), data_packet(3, 1500), &mut events, &mut lines).is_some());
            // 1 ns later the second is on the wire (1-2 ms): room for one more, sent 2-3 ms.
            arrived.extend(advance(&mut l, &mut events, &mut lines, MS));
            assert!(l.enqueue(SimTime(MS + 1), data_packet(4, 1500), &mut events, &mut lines).is_none());
            arrived.extend(drain(&mut l, &mut events, &mut lines));
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
            let mut lines = LinePool::default();
            let mut l = link(buffer, 0);
            l.enqueue(SimTime(0), data_packet(0, 1500), &mut events, &mut lines);
            l.enqueue(SimTime(0), data_packet(1, 1500), &mut events, &mut lines);
            assert_eq!(l.counters(SimTime(MS / 2)).queue_area, 500_000);
            assert_eq!(l.queue_packets(SimTime(MS / 2)), 1);
            drain(&mut l, &mut events, &mut lines);
            assert_eq!(l.counters(SimTime(10 * MS)).queue_area, 1_000_000);
            assert_eq!(l.counters(SimTime(10 * MS)).drops, 0);
        }
    }

    #[test]
    fn a_fifo_reads_its_queue_at_any_instant_from_running_totals() {
        // Four 1500-byte packets at t = 0 on a 1 ms-per-packet link: the first goes on the wire at once,
        // the others wait to start at 1, 2 and 3 ms. With no further arrival (nothing released):
        // - at 0.5 ms three wait, 4500 bytes; remaining waits 0.5 + 1.5 + 2.5 = 4.5 ms, so of the
        //   1 + 2 + 3 = 6 ms of packet-time accounted on arrival, 1.5 ms has accrued;
        // - at 1.5 ms two wait (2 and 3 ms), 3000 bytes, 0.5 + 1.5 ms remaining: 4 ms accrued;
        // - at 2 ms the packet starting then no longer waits (a tie counts as started): one waits, 1 ms
        //   remaining, 5 ms accrued; and from 3 ms on none waits and all 6 ms have accrued.
        let mut events = EventQueue::new();
        let mut lines = LinePool::default();
        let mut l = link(Buffer::Fifo(FifoBuffer::new(10, None)), 0);
        for seq in 0..4 {
            l.enqueue(SimTime(0), data_packet(seq, 1500), &mut events, &mut lines);
        }
        let at = |l: &Link, t: u64| (l.queue_packets(SimTime(t)), l.queue_bytes(SimTime(t)), l.counters(SimTime(t)).queue_area);
        assert_eq!(at(&l, MS / 2), (3, 4500, 1_500_000));
        assert_eq!(at(&l, 3 * MS / 2), (2, 3000, 4_000_000));
        assert_eq!(at(&l, 2 * MS), (1, 1500, 5_000_000));
        assert_eq!(at(&l, 3 * MS), (0, 0, 6_000_000));
        assert_eq!(at(&l, 7 * MS), (0, 0, 6_000_000));
        // Packets sent count only those on the wire by then: at 1.5 ms the first two.
        assert_eq!(l.counters(SimTime(3 * MS / 2)).packets_tx, 2);
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
            let mut lines = LinePool::default();
            let mut l = link(buffer, 3);
            let mut delivered = vec![];
            let mut dropped = vec![];
            for &(at, seq) in &arrivals {
                // Fire everything due before this arrival, as the simulation would.
                while events.peek_time().is_some_and(|e| e.0 < at) {
                    let (et, ev) = events.pop().unwrap();
                    match ev {
                        Event::LinkTxDone(_) => l.on_tx_done(et, &mut events, &mut lines),
                        Event::LinkArrival(_) => delivered.push((et.0, l.on_arrival(et, &mut events, &mut lines).payload)),
                        _ => unreachable!(),
                    }
                }
                if l.enqueue(SimTime(at), data_packet(seq, 1500), &mut events, &mut lines).is_some() {
                    dropped.push(seq);
                }
            }
            let rest: Vec<(u64, u64)> = drain(&mut l, &mut events, &mut lines);
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
        let mut lines = LinePool::default();
        let mut l = link(Buffer::Unbounded, 10);
        l.enqueue(SimTime(0), data_packet(0, 1500), &mut events, &mut lines);
        l.enqueue(SimTime(0), data_packet(1, 1500), &mut events, &mut lines);
        l.enqueue(SimTime(5 * MS), data_packet(2, 1500), &mut events, &mut lines);
        assert_eq!(drain(&mut l, &mut events, &mut lines), vec![(11 * MS, 0), (12 * MS, 1), (16 * MS, 2)]);
    }

    #[test]
    fn hand_off_link_gives_packets_with_their_arrival_time() {
        let mut events = EventQueue::new();
        let mut lines = LinePool::default();
        let mut l = link(Buffer::Fifo(FifoBuffer::new(5, None)), 10).handing_off();
        l.enqueue(SimTime(0), data_packet(0, 1500), &mut events, &mut lines);
        l.enqueue(SimTime(0), data_packet(1, 1500), &mut events, &mut lines);
        let mut out = vec![];
        l.take_handed_off(&mut out);
        assert_eq!(out.iter().map(|(t, _)| t.0).collect::<Vec<_>>(), vec![11 * MS, 12 * MS]);
        assert!(events.is_empty());
    }

    #[test]
    fn a_single_handed_off_packet_is_taken_alone_and_two_are_left_for_the_vector() {
        // 12 Mbit/s, 10 ms: one packet at 0 arrives at 11 ms and is taken alone; two more at 20 ms (the
        // first on the wire 20-21 ms, the second 21-22 ms) are both left for `take_handed_off`, in order.
        let mut events = EventQueue::new();
        let mut lines = LinePool::default();
        let mut l = link(Buffer::Fifo(FifoBuffer::new(5, None)), 10).handing_off();
        l.enqueue(SimTime(0), data_packet(0, 1500), &mut events, &mut lines);
        assert_eq!(l.take_single_handed_off().map(|(t, _)| t.0), Some(11 * MS));
        assert!(l.take_single_handed_off().is_none());
        l.enqueue(SimTime(20 * MS), data_packet(1, 1500), &mut events, &mut lines);
        l.enqueue(SimTime(20 * MS), data_packet(2, 1500), &mut events, &mut lines);
        assert!(l.take_single_handed_off().is_none());
        let mut out = vec![];
        l.take_handed_off(&mut out);
        assert_eq!(out.iter().map(|(t, _)| t.0).collect::<Vec<_>>(), vec![31 * MS, 32 * MS]);
    }

    #[test]
    fn packet_errors_drop_about_the_configured_fraction() {
        let mut events = EventQueue::new();
        let mut lines = LinePool::default();
        let mut l = Link::new(0, Rate::from_bps(1_000_000_000_000), SimDuration::ZERO, Buffer::Fifo(FifoBuffer::new(10, None)))
            .with_packet_errors(0.2, SimRng::new(3, 0));
        let mut t = 0;
        for s in 0..10_000 {
            t += 1_000;
            l.enqueue(SimTime(t), data_packet(s, 1500), &mut events, &mut lines);
        }
        let arrived = drain(&mut l, &mut events, &mut lines).len();
        // 8000 expected, binomial sd = 40.
        assert!((7_800..=8_200).contains(&arrived), "{arrived}");
        assert_eq!(l.counters(SimTime(t)).error_drops as usize + arrived, 10_000);
    }

    fn trace(text: &str) -> Capacity {
        Capacity::Trace(crate::net::capacity::MahimahiTrace::parse(text).unwrap())
    }

    #[test]
    fn a_trace_driven_link_delivers_exactly_the_traces_opportunities() {
        // Trace 2, 2, 5 (ms), period 5 ms: opportunities at 2, 2, 5 | 7, 7, 10 | 12, 12, 15 ms. Ten
        // 1500-byte packets offered at 0 to a 10-packet buffer, 10 ms delay: each takes one opportunity,
        // so they arrive at 12, 12, 15, 17, 17, 20 ms (two loops: six packets) and 22, 22, 25, 27 ms.
        for buffer in droptails(100) {
            let mut l = link(buffer, 10).with_capacity(trace("2\n2\n5"));
            let offered: Vec<(u64, Packet)> = (0..10).map(|s| (0, data_packet(s, 1500))).collect();
            let (arrived, dropped) = feed(&mut l, &offered);
            assert!(dropped.is_empty());
            let times: Vec<u64> = arrived.iter().map(|&(t, _)| t / MS).collect();
            assert_eq!(times, vec![12, 12, 15, 17, 17, 20, 22, 22, 25, 27]);
            assert!(arrived.windows(2).all(|w| w[0].1 + 1 == w[1].1), "in order");
            // Two loops offered 6 x 12000 bits; the mean rate is 3 x 12000 bits / 5 ms = 7.2 Mbit/s.
            assert_eq!(l.capacity_bits_between(SimTime::ZERO, SimTime(10 * MS + 1)), 72_000);
            assert_eq!(l.mean_rate_bps(), 7_200_000);
        }
    }

    #[test]
    fn a_trace_driven_link_loses_opportunities_while_idle() {
        // Trace "1" (one opportunity per ms), no delay. A packet at 0.5 ms waits for the 1 ms
        // opportunity; the link then idles through 2..=9 ms, and a packet at 9.3 ms leaves at 10 ms;
        // one at 12 ms exactly leaves at 12 ms.
        for buffer in droptails(100) {
            let mut l = link(buffer, 0).with_capacity(trace("1"));
            let offered = [(MS / 2, data_packet(0, 1500)), (9 * MS + 3 * MS / 10, data_packet(1, 1500)), (12 * MS, data_packet(2, 1500))];
            let (arrived, _) = feed(&mut l, &offered);
            assert_eq!(arrived, vec![(MS, 0), (10 * MS, 1), (12 * MS, 2)]);
        }
    }

    #[test]
    fn forty_byte_acks_share_one_opportunity() {
        // Trace "1": 38 ACKs of 40 bytes (320 bits) offered at 0.5 ms. The 1 ms opportunity (12000 bits)
        // carries 37 of them (11840 bits); the 38th takes the last 160 bits and 160 more at 2 ms.
        for buffer in droptails(100) {
            let mut l = link(buffer, 0).with_capacity(trace("1"));
            let offered: Vec<(u64, Packet)> = (0..38).map(|s| (MS / 2, data_packet(s, 40))).collect();
            let (arrived, _) = feed(&mut l, &offered);
            assert_eq!(arrived.iter().filter(|&&(t, _)| t == MS).count(), 37);
            assert_eq!(arrived[37], (2 * MS, 37));
        }
    }

    #[test]
    fn a_rate_schedule_paces_the_link() {
        // 12 Mbit/s, then 6 Mbit/s from 2.5 ms: back-to-back packets leave at 1, 2, 3.5, 5.5 ms
        // (capacity.rs works the third one out). Utilisation's denominator over [0, 4 ms): 2.5 ms x 12
        // Mbit/s + 1.5 ms x 6 Mbit/s = 30000 + 9000 bits.
        use crate::net::capacity::RateSchedule;
        let schedule = RateSchedule::new(vec![(SimTime::ZERO, Rate::from_bps(12_000_000)), (SimTime(2_500_000), Rate::from_bps(6_000_000))])
            .unwrap();
        for buffer in droptails(100) {
            let mut l = link(buffer, 0).with_capacity(Capacity::Schedule(schedule.clone()));
            let offered: Vec<(u64, Packet)> = (0..4).map(|s| (0, data_packet(s, 1500))).collect();
            let (arrived, _) = feed(&mut l, &offered);
            assert_eq!(arrived, vec![(1_000_000, 0), (2_000_000, 1), (3_500_000, 2), (5_500_000, 3)]);
            assert_eq!(l.capacity_bits_between(SimTime::ZERO, SimTime(4 * MS)), 39_000);
        }
    }

    fn bearer(rates_bps: Vec<u64>, up_queue_bytes: u64, up_delay: SimDuration, down: Option<StepDown>) -> Capacity {
        let idle = SimDuration::from_millis(10);
        Capacity::Bearer(Bearer::new(BearerParams { rates_bps, up_queue_bytes, up_delay, idle, down }).unwrap())
    }

    fn bearer_12_24() -> Capacity {
        // 12 Mbit/s (1 ms per 1500 bytes), then 24 (0.5 ms); up 2 ms after more than 3000 bytes wait,
        // back after 10 ms idle.
        bearer(vec![12_000_000, 24_000_000], 3000, SimDuration::from_millis(2), None)
    }

    /// Arrival times at the far end (µs) of `offered`, through both DropTails in front of `capacity`.
    fn bearer_arrivals_us(capacity: &Capacity, offered: &[(u64, Packet)]) -> Vec<Vec<u64>> {
        droptails(100)
            .into_iter()
            .map(|buffer| {
                let mut l = link(buffer, 0).with_capacity(capacity.clone());
                let (arrived, dropped) = feed(&mut l, offered);
                assert!(dropped.is_empty());
                arrived.iter().map(|&(t, _)| t / 1000).collect()
            })
            .collect()
    }

    #[test]
    fn a_bearer_steps_up_when_its_buffer_fills() {
        // Six 1500-byte packets at 0, no delay. The first goes at once (done 1 ms); the next three wait
        // 1500, 3000, 4500 bytes: the fourth asks for 24 Mbit/s from 2 ms. Each packet is timed when it
        // starts, with either DropTail: 1, 2, then 0.5 ms each: 2.5, 3, 3.5, 4 ms. (Timed on arrival, as
        // the start-time FIFO would, the packet starting at 2 ms had been given 1 ms before the request.)
        let offered: Vec<(u64, Packet)> = (0..6).map(|s| (0, data_packet(s, 1500))).collect();
        for times in bearer_arrivals_us(&bearer_12_24(), &offered) {
            assert_eq!(times, [1_000, 2_000, 2_500, 3_000, 3_500, 4_000]);
        }
        // The link reports the bearer's top rate as its rate.
        let l = link(Buffer::Fifo(FifoBuffer::new(100, None)), 0).with_capacity(bearer_12_24());
        assert_eq!(l.mean_rate_bps(), 24_000_000);
    }

    #[test]
    fn packets_waiting_when_a_step_up_is_decided_leave_at_the_new_rate() {
        // 64 kbit/s (1500 bytes = 12,000 bit in 187.5 ms), then 384 kbit/s (31.25 ms); a step up 250 ms
        // after more than 4000 bytes wait. Packets 0-2 at 0: packet 0 on the wire 0-187.5 ms, 1 and 2
        // wait (3000 bytes). Packet 3 at 12.5 ms leaves 4500 waiting: 384 kbit/s from 262.5 ms, with
        // three packets waiting at the old rate.
        // - packet 1 starts at 187.5 ms: 75 ms at 64 kbit/s carry 4,800 bit until the switch, the other
        //   7,200 bit take 18.75 ms at 384 kbit/s: 281.25 ms;
        // - packets 2 and 3 at 384 kbit/s: 312.5 and 343.75 ms.
        // (Before session 8 they kept the times given at arrival, 375 and 562.5 ms, and 593.75 ms.)
        let capacity = bearer(vec![64_000, 384_000], 4000, SimDuration::from_millis(250), None);
        let mut offered: Vec<(u64, Packet)> = (0..3).map(|s| (0, data_packet(s, 1500))).collect();
        offered.push((12_500_000, data_packet(3, 1500)));
        for times in bearer_arrivals_us(&capacity, &offered) {
            assert_eq!(times, [187_500, 281_250, 312_500, 343_750]);
        }
    }

    #[test]
    fn a_packet_on_the_wire_when_a_step_up_is_decided_keeps_its_time() {
        // The same rates, a step up 100 ms after more than 1000 bytes wait. Packet 0 starts at 0 (187.5
        // ms at 64 kbit/s); packet 1 at 12.5 ms asks for 384 kbit/s from 112.5 ms. Packet 0 was timed
        // when it started, before the request: it ends at 187.5 ms (served at both rates it would end at
        // 125 ms). Packet 1 starts then, at 384 kbit/s: 218.75 ms.
        let capacity = bearer(vec![64_000, 384_000], 1000, SimDuration::from_millis(100), None);
        let offered = [(0, data_packet(0, 1500)), (12_500_000, data_packet(1, 1500))];
        for times in bearer_arrivals_us(&capacity, &offered) {
            assert_eq!(times, [187_500, 218_750]);
        }
    }

    #[test]
    fn a_bearer_falls_back_after_its_idle_time() {
        // As above, then idle from 4 ms. With idle 10 ms a packet at 12 ms is still sent at 24 Mbit/s
        // (done 12.5 ms); one at 30 ms finds the fall back (due at 12.5 + 10 ms) and takes 1 ms at 12
        // Mbit/s: 31 ms.
        let mut offered: Vec<(u64, Packet)> = (0..6).map(|s| (0, data_packet(s, 1500))).collect();
        offered.push((12 * MS, data_packet(6, 1500)));
        offered.push((30 * MS, data_packet(7, 1500)));
        for times in bearer_arrivals_us(&bearer_12_24(), &offered) {
            assert_eq!(&times[6..], &[12_500, 31_000]);
        }
    }

    #[test]
    fn a_bearer_steps_down_when_little_waits() {
        // bearer_12_24 with a step down once fewer than 3000 bytes have waited for 0.5 ms. Six packets at
        // 0 as above (24 Mbit/s from 2 ms); the bytes waiting when each starts: 6000 at 1 ms, 4500 at 2,
        // 3000 at 2.5 (not fewer), 1500 at 3 ms: low from 3 ms, a step down due at 3 + 0.5 = 3.5 ms,
        // when packet 5 starts: it takes 1 ms at 12 Mbit/s, 4.5 ms (4 ms without the step down).
        let down = StepDown { queue_bytes: 3000, delay: SimDuration::from_micros(500) };
        let capacity = bearer(vec![12_000_000, 24_000_000], 3000, SimDuration::from_millis(2), Some(down));
        let offered: Vec<(u64, Packet)> = (0..6).map(|s| (0, data_packet(s, 1500))).collect();
        for times in bearer_arrivals_us(&capacity, &offered) {
            assert_eq!(times, [1_000, 2_000, 2_500, 3_000, 3_500, 4_500]);
        }
    }

    #[test]
    fn a_bearer_link_is_never_fed_ahead_of_time() {
        // Any buffer in front of a bearer becomes a scheduled DropTail with the same limits (2 packets:
        // one on the wire, one waiting, the third dropped), an unbounded one without a limit.
        let mut events = EventQueue::new();
        let mut lines = LinePool::default();
        let mut l = link(Buffer::Fifo(FifoBuffer::new(2, None)), 0).with_capacity(bearer_12_24());
        assert!(matches!(l.buffer, Buffer::Scheduled(_)));
        assert!(l.enqueue(SimTime(0), data_packet(0, 1500), &mut events, &mut lines).is_none());
        assert!(l.enqueue(SimTime(0), data_packet(1, 1500), &mut events, &mut lines).is_none());
        assert!(l.enqueue(SimTime(0), data_packet(2, 1500), &mut events, &mut lines).is_some());
        let l = link(Buffer::Unbounded, 0).with_capacity(bearer_12_24());
        assert!(matches!(l.buffer, Buffer::Scheduled(_)));
    }

    #[test]
    fn a_delay_decrease_never_reorders_the_link() {
        // 1 ms per packet, delay 100 ms until 5 ms, then 10 ms. Ten packets at 0 finish at 1..=10 ms.
        // Those done at 1-4 ms arrive at 101-104 ms; the one done at 5 ms takes the new delay, 15 ms,
        // and so would the rest (16-20 ms): all held behind the 104 ms arrival.
        use crate::net::delay::DelaySchedule;
        let schedule = DelaySchedule::new(vec![(SimTime::ZERO, SimDuration::from_millis(100)), (SimTime(5 * MS), SimDuration::from_millis(10))])
            .unwrap();
        for buffer in droptails(100) {
            let mut l = link(buffer, 0).with_delay_model(Delay::Schedule(schedule.clone()));
            let offered: Vec<(u64, Packet)> = (0..10).map(|s| (0, data_packet(s, 1500))).collect();
            let (arrived, _) = feed(&mut l, &offered);
            let expected: Vec<(u64, u64)> = (0..10).map(|s| ((101 + s.min(3)) * MS, s)).collect();
            assert_eq!(arrived, expected);
            assert_eq!(l.delay(), SimDuration::from_millis(100));
        }
    }

    #[test]
    fn constant_models_keep_the_link_plain() {
        let l = link(Buffer::Unbounded, 10)
            .with_capacity(Capacity::Constant(Rate::from_bps(6_000_000)))
            .with_delay_model(Delay::Constant(SimDuration::from_millis(3)))
            .with_loss(LossModel::Bernoulli(0.0), SimRng::new(1, 1))
            .with_processing_delay(SimDuration::ZERO, SimDuration::ZERO, SimRng::new(1, 2));
        assert!(l.models.is_none());
        assert_eq!((l.rate(), l.delay()), (Rate::from_bps(6_000_000), SimDuration::from_millis(3)));
        // 6 Mbit/s over 2 ms: 12000 bits.
        assert_eq!(l.capacity_bits_between(SimTime(MS), SimTime(3 * MS)), 12_000);
    }

    #[test]
    fn a_bernoulli_loss_model_drops_what_packet_errors_drop() {
        // Same probability and random stream: the same packets are lost, one draw per transmitted packet.
        let offered: Vec<(u64, Packet)> = (0..2_000).map(|s| (s * MS, data_packet(s, 1500))).collect();
        let mut errors = link(Buffer::Fifo(FifoBuffer::new(10, None)), 1).with_packet_errors(0.2, SimRng::new(3, 0));
        let mut model = link(Buffer::Fifo(FifoBuffer::new(10, None)), 1).with_loss(LossModel::Bernoulli(0.2), SimRng::new(3, 0));
        let a = feed(&mut errors, &offered);
        let b = feed(&mut model, &offered);
        assert_eq!(a, b);
        let lost = 2_000 - a.0.len() as u64;
        assert!(lost > 300, "{lost}");
        assert_eq!(errors.counters(SimTime::MAX).error_drops, lost);
        assert_eq!(model.counters(SimTime::MAX).error_drops, lost);
    }

    #[test]
    fn an_arq_link_delivers_in_order_and_counts_its_work() {
        // 1 ms per packet, 5 ms delay, attempts lost with p = 0.3, retried after 40 ms, at most 3
        // attempts. Whatever the draws, arrivals never decrease, sequence numbers only grow, and
        // delivered + failures = packets sent.
        for buffer in droptails(1_000) {
            let arq = Arq::new(LossModel::Bernoulli(0.3), SimRng::new(8, 1), SimDuration::from_millis(40), 3).unwrap();
            let mut l = link(buffer, 5).with_arq(arq);
            let offered: Vec<(u64, Packet)> = (0..5_000).map(|s| (s * MS, data_packet(s, 1500))).collect();
            let (arrived, dropped) = feed(&mut l, &offered);
            assert!(dropped.is_empty());
            assert!(arrived.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 < w[1].1));
            let c = l.counters(SimTime::MAX);
            assert_eq!(arrived.len() as u64 + c.arq_failures, 5_000);
            assert_eq!(c.error_drops, c.arq_failures);
            assert_eq!(c.arq_attempts, 5_000 + c.arq_retransmissions);
            // P(fail) = 0.3^3 = 0.027: 135 expected, binomial sd sqrt(5000 x 0.027 x 0.973) = 11.5; 5 sd.
            assert!((135 - 58..=135 + 58).contains(&c.arq_failures), "{}", c.arq_failures);
            // Nothing arrives before its own 1 ms transmission and 5 ms delay.
            assert!(arrived.iter().all(|&(t, s)| t >= (s + 1) * MS + 5 * MS));
        }
    }

    #[test]
    fn an_outage_stalls_the_transmitter_and_the_buffer_fills_behind_it() {
        // 1 ms per packet, 5 ms delay, a 5-packet DropTail. Outages: gap 10 ms, duration 20 ms, so
        // [10, 30), [40, 60), [70, 90) ms. One packet arrives per ms from 0 to 14 ms, one at 39.5 ms.
        //   pkts 0-9 (0-9 ms): sent at once, arrive 6-15 ms. Pkt 9 ends at 10 ms, when the outage begins.
        //   pkts 10-13 (10-13 ms): wait; the transmitter resumes at 30 ms: sent 30, 31, 32, 33 ms,
        //     arrive 36, 37, 38, 39 ms. Pkt 14 (14 ms) finds 4 waiting + 1 counted on the wire: dropped.
        //   pkt 15 (39.5 ms): starts at once, would end at 40.5 ms, but [40, 60) suspends it 20 ms:
        //     ends 60.5 ms, arrives 65.5 ms.
        let outages = || OutageProcess::new(Distribution::Fixed(10 * MS), Distribution::Fixed(20 * MS), SimRng::new(1, 1)).unwrap();
        let mut offered: Vec<(u64, Packet)> = (0..15).map(|s| (s * MS, data_packet(s, 1500))).collect();
        offered.push((39_500_000, data_packet(15, 1500)));
        let mut l = link(Buffer::Fifo(FifoBuffer::new(5, None)), 5).with_outages(outages());
        let (arrived, dropped) = feed(&mut l, &offered);
        let mut expected: Vec<(u64, u64)> = (0..10).map(|s| ((s + 6) * MS, s)).collect();
        expected.extend((10..14).map(|s| ((s + 26) * MS, s)));
        expected.push((65_500_000, 15));
        assert_eq!(arrived, expected);
        assert_eq!(dropped, vec![14]);
        // A scheduled DropTail sends the same packets at the same times (its limit counts the waiting
        // packets only, so it keeps pkt 14: sent at 34 ms, arriving 40 ms).
        let mut s = link(Buffer::Scheduled(Box::new(DropTail::new(5, None))), 5).with_outages(outages());
        let (arrived, _) = feed(&mut s, &offered);
        assert_eq!(&arrived[..14], &expected[..14]);
    }

    #[test]
    fn a_processing_stage_delays_arrivals_into_the_buffer() {
        // 8 us of processing, no jitter: two packets at 0 join the buffer at 8 us, are sent 8 us-1.008 ms
        // and 1.008-2.008 ms, and arrive 10 ms later.
        for buffer in droptails(100) {
            let mut l = link(buffer, 10).with_processing_delay(SimDuration::from_micros(8), SimDuration::ZERO, SimRng::new(1, 1));
            let offered = [(0, data_packet(0, 1500)), (0, data_packet(1, 1500))];
            let (arrived, _) = feed(&mut l, &offered);
            assert_eq!(arrived, vec![(11_008_000, 0), (12_008_000, 1)]);
        }
    }

    #[test]
    fn a_processing_stage_with_jitter_keeps_order_and_hands_off() {
        // Packets every 10 us into a hand-off link with 5 us + uniform[0, 100 us] processing: the packets
        // overtake nothing, and the link hands each off when it is transmitted (at its LinkIngress).
        let mut events = EventQueue::new();
        let mut lines = LinePool::default();
        let mut l = Link::new(0, Rate::from_bps(1_000_000_000), SimDuration::from_millis(1), Buffer::Fifo(FifoBuffer::new(1_000, None)))
            .with_processing_delay(SimDuration::from_micros(5), SimDuration::from_micros(100), SimRng::new(2, 2))
            .handing_off();
        let mut handed = vec![];
        for s in 0..1_000u64 {
            let at = s * 10_000;
            while events.peek_time().is_some_and(|t| t.0 < at) {
                let (t, ev) = events.pop().unwrap();
                assert_eq!(ev, Event::LinkIngress(0));
                assert!(l.on_ingress(t, &mut events, &mut lines).is_none());
                l.take_handed_off(&mut handed);
            }
            l.enqueue(SimTime(at), data_packet(s, 1500), &mut events, &mut lines);
        }
        while let Some((t, _)) = events.pop() {
            l.on_ingress(t, &mut events, &mut lines);
            l.take_handed_off(&mut handed);
        }
        assert_eq!(handed.len(), 1_000);
        assert_eq!(l.packets_held(), 0);
        for (i, w) in handed.windows(2).enumerate() {
            assert!(w[0].0 <= w[1].0, "arrival times decrease at {i}");
            assert_eq!(w[1].1.payload, data_packet(i as u64 + 1, 1500).payload);
        }
    }

    /// A discipline that drops every third arrival early and counts what it is offered.
    struct EveryThirdEarly {
        inner: DropTail,
        offered: u64,
        early: u64,
    }
    impl Queue for EveryThirdEarly {
        fn enqueue(&mut self, now: SimTime, pkt: Packet) -> Result<(), Packet> {
            self.offered += 1;
            if self.offered.is_multiple_of(3) {
                self.early += 1;
                return Err(pkt);
            }
            self.inner.enqueue(now, pkt)
        }
        fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
            self.inner.dequeue(now)
        }
        fn len_packets(&self) -> usize {
            self.inner.len_packets()
        }
        fn len_bytes(&self) -> u64 {
            self.inner.len_bytes()
        }
        fn counters(&self) -> QueueCounters {
            QueueCounters { early_drops: self.early, ..self.inner.counters() }
        }
    }
    use crate::net::queue::QueueCounters;

    #[test]
    fn a_scheduled_queue_sees_every_arrival_and_counts_drops_by_cause() {
        // Packets 2 ms apart on a 1 ms/packet link find the transmitter idle every time; the discipline
        // is offered all 9 anyway and drops the 3rd, 6th and 9th early. Then 4 packets at once into a
        // limit of 2 (one on the wire + 1 waiting): the 10th goes, the 11th waits, the 12th is a third
        // (early), the 13th overflows. In all 4 early drops + 1 overflow = 5 drops.
        let queue = EveryThirdEarly { inner: DropTail::new(2, None), offered: 0, early: 0 };
        let mut l = link(Buffer::Scheduled(Box::new(queue)), 0);
        let mut offered: Vec<(u64, Packet)> = (0..9).map(|s| (2 * s * MS, data_packet(s, 1500))).collect();
        offered.extend((9..13).map(|s| (100 * MS, data_packet(s, 1500))));
        let (arrived, dropped) = feed(&mut l, &offered);
        assert_eq!(dropped, vec![2, 5, 8, 11, 12]);
        assert_eq!(arrived.len(), 8);
        let c = l.counters(SimTime::MAX);
        assert_eq!((c.early_drops, c.overflow_drops, c.drops), (4, 1, 5));
    }

    #[test]
    fn fifo_counts_its_drops_as_overflow() {
        for buffer in droptails(2) {
            let mut l = link(buffer, 0);
            let offered: Vec<(u64, Packet)> = (0..5).map(|s| (0, data_packet(s, 1500))).collect();
            let (_, dropped) = feed(&mut l, &offered);
            assert_eq!(dropped, vec![2, 3, 4]);
            let c = l.counters(SimTime::MAX);
            assert_eq!((c.overflow_drops, c.early_drops, c.drops), (3, 0, 3));
        }
    }
}
