//! The simulation: builds the network from the config (`net::topology`), runs the event loop, snapshots
//! counters at the start of the measurement window and samples time series.
//!
//! Each packet carries the index of the link it is on along its flow's route (a list of link ids per
//! direction), which says where it goes next. The dumbbell of seed 000 is one such network:
//!
//! ```text
//!  sender i --access(i)--> left ==bottleneck==> right --access(i)--> receiver i
//! ```
use crate::cc::{registry, FlowContext};
use crate::config::{err, ConfigError, RateModelConfig, ScenarioConfig};
use crate::net::arq::Arq;
use crate::net::capacity::{Capacity, MahimahiTrace, RateSchedule};
use crate::net::delay::{Delay, DelaySchedule};
use crate::event::{Event, EventQueue};
use crate::net::link::{Buffer, FifoBuffer, Link, LinkCounters};
use crate::net::packet::{Direction, Packet};
use crate::net::queue::registry::{self as queues, QueueLimits};
use crate::net::queue::LinkInfo;
use crate::net::topology::{LinkPlan, Topology};
use crate::rng::SimRng;
use crate::stats::{jain_index, BottleneckSummary, FlowSeries, FlowSummary, LinkSeries, LinkSummary, QueueSeries, Summary};
use crate::tcp::receiver::Receiver;
use crate::tcp::sender::{Sender, SenderConfig, SenderCounters};
use crate::time::{Rate, SimDuration, SimTime};

/// Random stream of link i's packet errors (or loss model) is this + i (the dumbbell's bottleneck is link
/// 0: stream 1).
const STREAM_FIRST_LINK_ERRORS: u64 = 1;
/// Link i's queue discipline seeds its own stream from this + i.
const STREAM_FIRST_QUEUE: u64 = 3 << 32;
/// Link i's ARQ attempt losses.
const STREAM_FIRST_ARQ: u64 = 4 << 32;
/// Link i's processing-delay jitter (the node it leaves).
const STREAM_FIRST_PROCESSING: u64 = 5 << 32;
/// Random stream of flow i's congestion control is this + i (BBR's PROBE_BW start phase).
const STREAM_FIRST_CC: u64 = 1 << 32;
/// Random stream of flow i's start-time jitter is this + i.
const STREAM_FIRST_START: u64 = 2 << 32;

struct Flow {
    sender: Sender,
    receiver: Receiver,
    /// Link ids, sender to receiver and back.
    paths: [Vec<u32>; 2],
    /// Time of the sender-timer event currently in the heap, if any.
    sender_timer: Option<SimTime>,
    receiver_timer: Option<SimTime>,
}

/// Counters at the start of the measurement window.
#[derive(Clone)]
struct Snapshot {
    delivered: Vec<u64>,
    senders: Vec<SenderCounters>,
    /// Per reported link (`Simulation::reported`).
    links: Vec<LinkCounters>,
}

pub struct Simulation {
    cfg: ScenarioConfig,
    now: SimTime,
    end: SimTime,
    measure_from: SimTime,
    events: EventQueue,
    links: Vec<Link>,
    plans: Vec<LinkPlan>,
    /// Links with a queue, which report their figures (summary `links`, series `links`), in link order.
    reported: Vec<usize>,
    /// The link the summary's `bottleneck` and the `queue` series describe.
    bottleneck: usize,
    flows: Vec<Flow>,
    /// Scratch buffer for packets an endpoint emits.
    out: Vec<Packet>,
    /// Scratch buffer for packets a hand-off link passes on.
    handed: Vec<(SimTime, Packet)>,
    snapshot: Option<Snapshot>,
    sample_interval: SimDuration,
    flow_series: FlowSeries,
    queue_series: QueueSeries,
    link_series: LinkSeries,
    cc_scratch: Vec<(&'static str, f64)>,
}

impl Simulation {
    pub fn from_json(text: &str) -> Result<Self, ConfigError> {
        Self::new(ScenarioConfig::from_json(text)?)
    }

    pub fn new(cfg: ScenarioConfig) -> Result<Self, ConfigError> {
        cfg.validate()?;
        let topology = Topology::from_config(&cfg)?;
        let hand_off = topology.hand_off_links();
        let mut links = Vec::with_capacity(topology.links.len());
        for (i, plan) in topology.links.iter().enumerate() {
            links.push(build_link(i, plan, hand_off[i], &cfg)?);
        }
        let reported: Vec<usize> = (0..links.len()).filter(|&i| topology.links[i].queue.is_some()).collect();
        let mut events = EventQueue::new();
        let mut flows = Vec::with_capacity(cfg.flows.len());
        let mut routes = topology.routes.into_iter();
        for (i, f) in cfg.flows.iter().enumerate() {
            let mut cc = registry::build(&format!("flows.{i}.cc"), &f.cc, f.initial_cwnd)?;
            cc.attach(FlowContext {
                packet_size: cfg.packet_size,
                rng: SimRng::new(cfg.run.seed, STREAM_FIRST_CC + i as u64),
            });
            let sender = Sender::new(
                SenderConfig {
                    flow: i as u32,
                    packet_size: cfg.packet_size,
                    recovery: f.recovery,
                    rto_min: SimDuration(f.rto_min_ns),
                    rwnd: f.rwnd_packets,
                    stop: f.stop_ns.map(SimTime),
                },
                cc,
            );
            flows.push(Flow {
                sender,
                receiver: Receiver::new(i as u32, cfg.ack_size, f.delayed_ack),
                paths: routes.next().expect("one route per flow"),
                sender_timer: None,
                receiver_timer: None,
            });
            let jitter = match f.start_jitter_ns {
                0 => 0,
                // Modulo bias is below 2^-30 for any jitter under a second: irrelevant, and exact everywhere.
                j => SimRng::new(cfg.run.seed, STREAM_FIRST_START + i as u64).up_to(j),
            };
            // Saturating: a start + jitter past u64::MAX ns is a start never reached (tests/config_fuzz.rs).
            events.schedule(SimTime(f.start_ns) + SimDuration(jitter), Event::FlowStart(i as u32));
        }
        let end = SimTime(cfg.run.duration_ns);
        let measure_from = SimTime(cfg.run.measure_from_ns);
        if measure_from > SimTime::ZERO {
            events.schedule(measure_from, Event::MeasureStart);
        }
        let sample_interval = SimDuration(cfg.run.sample_interval_ns);
        if sample_interval > SimDuration::ZERO {
            events.schedule(SimTime::ZERO, Event::Sample);
        }
        let mut sim = Simulation {
            cfg,
            now: SimTime::ZERO,
            end,
            measure_from,
            events,
            links,
            plans: topology.links,
            reported,
            bottleneck: topology.bottleneck,
            flows,
            out: Vec::with_capacity(64),
            handed: Vec::with_capacity(64),
            snapshot: None,
            sample_interval,
            flow_series: FlowSeries::default(),
            queue_series: QueueSeries::default(),
            link_series: LinkSeries::default(),
            cc_scratch: Vec::new(),
        };
        if measure_from == SimTime::ZERO {
            sim.snapshot = Some(sim.take_snapshot());
        }
        Ok(sim)
    }

    pub fn now(&self) -> SimTime {
        self.now
    }
    pub fn end(&self) -> SimTime {
        self.end
    }
    pub fn is_done(&self) -> bool {
        self.now >= self.end
    }
    pub fn events_processed(&self) -> u64 {
        self.events.events_processed()
    }
    /// Events waiting in the heap (bounded by the topology, not by simulated time).
    pub fn pending_events(&self) -> usize {
        self.events.len()
    }

    /// Run to the end of the scenario.
    pub fn run(&mut self) {
        self.run_until(self.end);
    }

    /// Advance simulated time to `min(t, end)`, firing every event due up to it.
    pub fn run_until(&mut self, t: SimTime) {
        let t = t.min(self.end);
        while let Some(time) = self.events.peek_time() {
            if time > t {
                break;
            }
            let (time, event) = self.events.pop().expect("peeked");
            debug_assert!(time >= self.now, "time went backwards");
            self.now = time;
            self.dispatch(event);
        }
        self.now = self.now.max(t);
    }

    fn dispatch(&mut self, event: Event) {
        let now = self.now;
        match event {
            Event::LinkArrival(l) => {
                let pkt = self.links[l as usize].on_arrival(now, &mut self.events);
                self.forward(pkt);
            }
            Event::LinkTxDone(l) => {
                self.links[l as usize].on_tx_done(now, &mut self.events);
                self.pass_on_handed_off(l as usize);
            }
            Event::LinkIngress(l) => {
                self.links[l as usize].on_ingress(now, &mut self.events);
                self.pass_on_handed_off(l as usize);
            }
            Event::SenderTimer(f) => {
                let flow = &mut self.flows[f as usize];
                if flow.sender_timer != Some(now) {
                    return; // superseded by an earlier deadline
                }
                flow.sender_timer = None;
                if flow.sender.timer_deadline().is_some_and(|d| d <= now) {
                    flow.sender.on_timer(now, &mut self.out);
                    self.inject(f, Direction::Forward);
                }
                self.arm_sender_timer(f);
            }
            Event::ReceiverTimer(f) => {
                let flow = &mut self.flows[f as usize];
                if flow.receiver_timer != Some(now) {
                    return;
                }
                flow.receiver_timer = None;
                flow.receiver.on_timer(now, &mut self.out);
                self.inject(f, Direction::Reverse);
                self.arm_receiver_timer(f);
            }
            Event::FlowStart(f) => {
                self.flows[f as usize].sender.start(now, &mut self.out);
                self.inject(f, Direction::Forward);
                self.arm_sender_timer(f);
            }
            Event::Sample => {
                self.sample();
                let next = now + self.sample_interval;
                if next <= self.end {
                    self.events.schedule(next, Event::Sample);
                }
            }
            Event::MeasureStart => self.snapshot = Some(self.take_snapshot()),
        }
    }

    /// A packet left a link: hand it to the next link of its path or to its endpoint.
    fn forward(&mut self, mut pkt: Packet) {
        let f = pkt.flow;
        let flow = &mut self.flows[f as usize];
        let path = &flow.paths[pkt.dir as usize];
        let next = pkt.hop as usize + 1;
        if next < path.len() {
            pkt.hop = next as u8;
            let link = path[next] as usize;
            self.links[link].enqueue(self.now, pkt, &mut self.events);
            self.pass_on_handed_off(link);
            return;
        }
        match pkt.dir {
            Direction::Forward => {
                flow.receiver.on_data(self.now, &pkt, &mut self.out);
                self.inject(f, Direction::Reverse);
                self.arm_receiver_timer(f);
            }
            Direction::Reverse => {
                flow.sender.on_ack(self.now, &pkt, &mut self.out);
                self.inject(f, Direction::Forward);
                self.arm_sender_timer(f);
            }
        }
    }

    /// Packets a hand-off link just transmitted go to their next (unbounded, exclusive) hop now, with
    /// their future arrival time there. A next hop that hands off in turn (unbounded links in a row, as
    /// hosts' access lines over links can be) passes them on at once as well: left in its vector, they
    /// waited for an event that never came, and were lost, or passed on late into the past ("time went
    /// backwards"; found by tests/config_fuzz.rs).
    fn pass_on_handed_off(&mut self, link: usize) {
        self.links[link].take_handed_off(&mut self.handed);
        if self.handed.is_empty() {
            return;
        }
        let mut handed = std::mem::take(&mut self.handed);
        let mut onward: Option<usize> = None;
        for (arrival, mut pkt) in handed.drain(..) {
            let path = &self.flows[pkt.flow as usize].paths[pkt.dir as usize];
            let next = pkt.hop as usize + 1;
            debug_assert!(next < path.len(), "a hand-off link is never the last hop");
            pkt.hop = next as u8;
            let next_link = path[next] as usize;
            self.links[next_link].enqueue(arrival, pkt, &mut self.events);
            if self.links[next_link].hands_off() {
                // Drained before the next follower takes packets, so each link's hand-offs stay in order.
                if onward.is_some_and(|o| o != next_link) {
                    self.pass_on_handed_off(onward.unwrap());
                }
                onward = Some(next_link);
            }
        }
        self.handed = handed;
        if let Some(next_link) = onward {
            self.pass_on_handed_off(next_link);
        }
    }

    /// Put the packets an endpoint just emitted on the first link of their path.
    fn inject(&mut self, f: u32, dir: Direction) {
        if self.out.is_empty() {
            return;
        }
        let first = self.flows[f as usize].paths[dir as usize][0] as usize;
        let link = &mut self.links[first];
        for pkt in self.out.drain(..) {
            link.enqueue(self.now, pkt, &mut self.events);
        }
        // A first hop may hand off (an unbounded access line before another): pass its packets on now.
        self.pass_on_handed_off(first);
    }

    /// Lazy timers: one heap event per endpoint; a later deadline is picked up when the event fires.
    fn arm_sender_timer(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        if let Some(d) = flow.sender.timer_deadline() {
            if flow.sender_timer.map_or(true, |s| d < s) {
                self.events.schedule(d, Event::SenderTimer(f));
                flow.sender_timer = Some(d);
            }
        }
    }

    fn arm_receiver_timer(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        if let Some(d) = flow.receiver.timer_deadline() {
            if flow.receiver_timer.map_or(true, |s| d < s) {
                self.events.schedule(d, Event::ReceiverTimer(f));
                flow.receiver_timer = Some(d);
            }
        }
    }

    fn take_snapshot(&self) -> Snapshot {
        Snapshot {
            delivered: self.flows.iter().map(|f| f.receiver.delivered()).collect(),
            senders: self.flows.iter().map(|f| f.sender.counters().clone()).collect(),
            links: self.reported.iter().map(|&l| self.links[l].counters(self.now)).collect(),
        }
    }

    fn sample(&mut self) {
        let t = self.now.as_secs_f64();
        let secs = |d: Option<SimDuration>| d.map_or(f64::NAN, |d| d.as_secs_f64());
        for (i, flow) in self.flows.iter().enumerate() {
            let s = &mut self.flow_series;
            let cc = flow.sender.cc();
            s.time_s.push(t);
            s.flow.push(i as u32);
            s.cwnd.push(cc.cwnd());
            s.ssthresh.push(cc.ssthresh());
            s.srtt_s.push(secs(flow.sender.rtt().srtt()));
            s.rtt_s.push(secs(flow.sender.rtt().latest()));
            s.in_flight.push(flow.sender.in_flight());
            s.delivered.push(flow.receiver.delivered());
            self.cc_scratch.clear();
            cc.state(&mut self.cc_scratch);
            for (name, value) in &self.cc_scratch {
                s.push_cc(name, *value);
            }
            s.finish_row();
        }
        let b = &self.links[self.bottleneck];
        self.queue_series.time_s.push(t);
        self.queue_series.queue_packets.push(b.queue_packets(self.now) as u64);
        self.queue_series.queue_bytes.push(b.queue_bytes(self.now));
        self.queue_series.drops.push(b.counters(self.now).drops);
        for (k, &l) in self.reported.iter().enumerate() {
            let link = &self.links[l];
            let s = &mut self.link_series;
            s.time_s.push(t);
            s.link.push(k as u32);
            s.queue_packets.push(link.queue_packets(self.now) as u64);
            s.queue_bytes.push(link.queue_bytes(self.now));
            s.drops.push(link.counters(self.now).drops);
        }
    }

    /// Summary over the measurement window up to now.
    pub fn summary(&self) -> Summary {
        let zero = Snapshot {
            delivered: vec![0; self.flows.len()],
            senders: vec![SenderCounters::default(); self.flows.len()],
            links: vec![LinkCounters::default(); self.reported.len()],
        };
        let (snap, from) = match &self.snapshot {
            Some(s) => (s, self.measure_from),
            None => (&zero, SimTime::ZERO),
        };
        let window = self.now.since(from).as_secs_f64();
        let per_sec = |count: u64, bits_each: u64| if window > 0.0 { (count * bits_each) as f64 / window } else { 0.0 };
        let payload_bits = (self.cfg.packet_size - self.cfg.header_size) as u64 * 8;
        let wire_bits = self.cfg.packet_size as u64 * 8;
        let flows: Vec<FlowSummary> = self
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let c = f.sender.counters();
                let c0 = &snap.senders[i];
                let delivered = f.receiver.delivered() - snap.delivered[i];
                let samples = c.rtt_samples - c0.rtt_samples;
                FlowSummary {
                    flow: i as u32,
                    cc: f.sender.cc().name().to_string(),
                    goodput_bps: per_sec(delivered, payload_bits),
                    delivered_bps: per_sec(delivered, wire_bits),
                    loss_events: c.loss_events - c0.loss_events,
                    timeouts: c.timeouts - c0.timeouts,
                    retransmissions: c.retransmissions - c0.retransmissions,
                    packets_sent: c.packets_sent - c0.packets_sent,
                    mean_rtt_s: (samples > 0).then(|| (c.rtt_sum_ns - c0.rtt_sum_ns) as f64 / samples as f64 * 1e-9),
                    final_cwnd: f.sender.cc().cwnd(),
                }
            })
            .collect();
        let window_ns = self.now.since(from).0;
        let links: Vec<LinkSummary> = self
            .reported
            .iter()
            .zip(&snap.links)
            .map(|(&l, before)| {
                let link = &self.links[l];
                let plan = &self.plans[l];
                let c = link.counters(self.now);
                // A link whose rate varies is measured against the capacity it offered in the window.
                let capacity_bits = match link.capacity() {
                    Some(_) => link.capacity_bits_between(from, self.now) as f64,
                    None => link.rate().bits_per_sec as f64 * window,
                };
                LinkSummary {
                    name: plan.name.clone(),
                    from: plan.from.clone(),
                    to: plan.to.clone(),
                    rate_bps: link.rate().bits_per_sec,
                    utilization: if capacity_bits > 0.0 { ((c.bytes_tx - before.bytes_tx) * 8) as f64 / capacity_bits } else { 0.0 },
                    packets_forwarded: c.packets_tx - before.packets_tx,
                    drops: c.drops - before.drops,
                    overflow_drops: c.overflow_drops - before.overflow_drops,
                    early_drops: c.early_drops - before.early_drops,
                    ecn_marks: c.ecn_marks - before.ecn_marks,
                    error_drops: c.error_drops - before.error_drops,
                    arq_retransmissions: c.arq_retransmissions - before.arq_retransmissions,
                    arq_failures: c.arq_failures - before.arq_failures,
                    arq_mean_added_delay_s: {
                        let delivered = (c.arq_attempts - c.arq_retransmissions) - (before.arq_attempts - before.arq_retransmissions);
                        let delivered = delivered.saturating_sub(c.arq_failures - before.arq_failures);
                        (delivered > 0).then(|| (c.arq_added_delay_ns - before.arq_added_delay_ns) as f64 / delivered as f64 * 1e-9)
                    },
                    mean_queue_packets: if window_ns > 0 { (c.queue_area - before.queue_area) as f64 / window_ns as f64 } else { 0.0 },
                    max_queue_packets: c.max_queue_packets as u64,
                }
            })
            .collect();
        let b = self.reported.iter().position(|&l| l == self.bottleneck).map(|k| &links[k]);
        let bottleneck = BottleneckSummary {
            utilization: b.map_or(0.0, |b| b.utilization),
            drops: b.map_or(0, |b| b.drops),
            error_drops: b.map_or(0, |b| b.error_drops),
            mean_queue_packets: b.map_or(0.0, |b| b.mean_queue_packets),
            max_queue_packets: b.map_or(0, |b| b.max_queue_packets),
            packets_forwarded: b.map_or(0, |b| b.packets_forwarded),
        };
        let goodputs: Vec<f64> = flows.iter().map(|f| f.goodput_bps).collect();
        Summary {
            measure_from_s: from.as_secs_f64(),
            duration_s: self.end.as_secs_f64(),
            now_s: self.now.as_secs_f64(),
            events: self.events.events_processed(),
            jain_index: jain_index(&goodputs),
            flows,
            bottleneck,
            links,
        }
    }

    pub fn flow_series(&self) -> &FlowSeries {
        &self.flow_series
    }
    pub fn queue_series(&self) -> &QueueSeries {
        &self.queue_series
    }
    /// Queue series of every reported link; `link` indexes `link_names()`.
    pub fn link_series(&self) -> &LinkSeries {
        &self.link_series
    }
    /// Names of the reported links (those with a queue), in the order of the summary's `links`.
    pub fn link_names(&self) -> Vec<&str> {
        self.reported.iter().map(|&l| self.plans[l].name.as_str()).collect()
    }

    /// Packet accounting for invariant checks: (data packets sent by all senders, data packets that reached
    /// a receiver, data packets dropped, data packets still in the network).
    pub fn data_packet_census(&self) -> (u64, u64, u64, u64) {
        let sent = self.flows.iter().map(|f| f.sender.counters().packets_sent).sum();
        let received = self.flows.iter().map(|f| f.receiver.received()).sum();
        // Links on data routes; exact as long as no link carries both data and ACKs (true of the
        // dumbbell and of any network whose flows all go one way over duplex links).
        let mut forward_links: Vec<u32> = self.flows.iter().flat_map(|f| f.paths[0].iter().copied()).collect();
        forward_links.sort_unstable();
        forward_links.dedup();
        let (mut dropped, mut in_network) = (0, 0);
        for l in forward_links {
            let link = &self.links[l as usize];
            let c = link.counters(self.now);
            dropped += c.drops + c.error_drops;
            in_network += link.packets_held() as u64;
        }
        (sent, received, dropped, in_network)
    }

    /// Congestion windows of all flows (for invariant checks).
    pub fn cwnds(&self) -> Vec<u32> {
        self.flows.iter().map(|f| f.sender.cc().cwnd()).collect()
    }

    // --- read-only views for the invariant checks (tests/properties.rs) ---------------------------------

    /// Time of the next event waiting, if any: never before `now()`.
    pub fn next_event_time(&self) -> Option<SimTime> {
        self.events.peek_time()
    }
    /// Events scheduled at a time before the last one fired: 0 unless time went backwards.
    pub fn events_scheduled_in_the_past(&self) -> u64 {
        self.events.scheduled_in_the_past()
    }
    /// Per flow: data packets sent (retransmissions included), new ones (`snd_nxt`), packets delivered in
    /// order and packets received (duplicates included).
    pub fn flow_progress(&self) -> Vec<FlowProgress> {
        self.flows
            .iter()
            .map(|f| FlowProgress {
                packets_sent: f.sender.counters().packets_sent,
                new_packets_sent: f.sender.snd_nxt(),
                delivered: f.receiver.delivered(),
                received: f.receiver.received(),
            })
            .collect()
    }
    /// Per reported link (the order of `link_names()`): what waits now, the most that ever waited, and the
    /// configured queue.
    pub fn queue_levels(&self) -> Vec<QueueLevel> {
        self.reported
            .iter()
            .map(|&l| {
                let (link, queue) = (&self.links[l], self.plans[l].queue.as_ref().expect("a reported link has a queue"));
                QueueLevel {
                    discipline: queue.discipline.clone(),
                    packets: link.queue_packets(self.now),
                    bytes: link.queue_bytes(self.now),
                    max_packets: link.counters(self.now).max_queue_packets,
                    limit_packets: queue.limit_packets,
                    limit_bytes: queue.limit_bytes,
                }
            })
            .collect()
    }
}

/// One flow's progress (`Simulation::flow_progress`), in packets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowProgress {
    pub packets_sent: u64,
    pub new_packets_sent: u64,
    pub delivered: u64,
    pub received: u64,
}

/// One link's queue (`Simulation::queue_levels`): packets and bytes waiting (the one on the wire excluded),
/// the most packets that ever waited, and the limits of the config (packets counting the one on the wire).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueLevel {
    pub discipline: String,
    pub packets: usize,
    pub bytes: u64,
    pub max_packets: usize,
    pub limit_packets: u64,
    pub limit_bytes: Option<u64>,
}

/// Build link `id` from its plan. DropTail runs as start times (see `net::link`); other disciplines are
/// scheduled queues built by the registry. Models (rate trace or schedule, delay schedule, loss model,
/// ARQ, the sending node's processing delay) wrap the link only when given.
fn build_link(id: usize, plan: &LinkPlan, hand_off: bool, cfg: &ScenarioConfig) -> Result<Link, ConfigError> {
    let seed = cfg.run.seed;
    let stream = |first: u64| SimRng::new(seed, first + id as u64);
    let models = &plan.models;
    let capacity = match &models.rate_model {
        None => None,
        Some(RateModelConfig::Trace { path, mean_bps, bytes_per_opportunity }) => {
            let field = link_field(cfg, id, "rate");
            let mut trace = MahimahiTrace::from_file(path).map_err(|m| err(&field, m))?;
            trace = trace.with_bytes_per_opportunity(*bytes_per_opportunity);
            if let Some(mean) = mean_bps {
                trace = trace.scaled_to_mean(*mean).map_err(|m| err(&field, m))?;
            }
            Some(Capacity::Trace(trace))
        }
        Some(RateModelConfig::Schedule { at_ns, rate_bps }) => {
            let steps = at_ns.iter().zip(rate_bps).map(|(&t, &r)| (SimTime(t), Rate::from_bps(r))).collect();
            Some(Capacity::Schedule(RateSchedule::new(steps).map_err(|m| err(link_field(cfg, id, "rate"), m))?))
        }
    };
    let rate_bps = capacity.as_ref().map_or(plan.rate_bps, |c| c.mean_rate_bps());
    let buffer = match &plan.queue {
        None => Buffer::Unbounded,
        Some(q) if q.discipline == "droptail" && q.params.is_empty() => {
            Buffer::Fifo(FifoBuffer::new(q.limit_packets.min(usize::MAX as u64) as usize, q.limit_bytes))
        }
        Some(q) => {
            let limits = QueueLimits { packets: q.limit_packets.min(usize::MAX as u64) as usize, bytes: q.limit_bytes };
            let info = LinkInfo {
                rate_bps,
                packet_size: cfg.packet_size,
                delay_ns: plan.delay_ns,
                rng_seed: stream(STREAM_FIRST_QUEUE).next_u64(),
            };
            Buffer::Scheduled(queues::build(&link_field(cfg, id, "queue"), &q.discipline, &q.params, limits, info)?)
        }
    };
    let mut link = Link::new(id as u32, Rate::from_bps(plan.rate_bps.max(1)), SimDuration(plan.delay_ns), buffer)
        .with_packet_errors(plan.loss_rate, stream(STREAM_FIRST_LINK_ERRORS));
    if let Some(capacity) = capacity {
        link = link.with_capacity(capacity);
    }
    if let Some(d) = &models.delay_schedule {
        let steps = d.at_ns.iter().zip(&d.delay_ns).map(|(&t, &v)| (SimTime(t), SimDuration(v))).collect();
        let schedule = DelaySchedule::new(steps).map_err(|m| err(link_field(cfg, id, "delay"), m))?;
        link = link.with_delay_model(Delay::Schedule(schedule));
    }
    if let Some(loss) = &models.loss {
        link = link.with_loss(loss.model(), stream(STREAM_FIRST_LINK_ERRORS));
    }
    if let Some(a) = &models.arq {
        let arq = Arq::new(a.loss.model(), stream(STREAM_FIRST_ARQ), SimDuration(a.retry_delay_ns), a.max_attempts)
            .map_err(|m| err(link_field(cfg, id, "arq"), m))?;
        link = link.with_arq(arq);
    }
    if let Some((fixed, jitter)) = plan.processing {
        link = link.with_processing_delay(SimDuration(fixed), SimDuration(jitter), stream(STREAM_FIRST_PROCESSING));
    }
    if hand_off {
        link = link.handing_off();
    }
    Ok(link)
}

/// The config path of link `id`'s field, for error messages.
fn link_field(cfg: &ScenarioConfig, id: usize, field: &str) -> String {
    match (&cfg.topology, id) {
        (Some(_), _) => format!("network.links.{id}.{field}"),
        (None, 0) => format!("network.bottleneck.{field}"),
        (None, _) => format!("network.bottleneck.reverse_{field}"),
    }
}
