//! The simulation: builds the network from the config (`net::topology`), runs the event loop, snapshots
//! counters at the start of the measurement window and samples time series.
//!
//! Each packet carries the index of the link it is on along its flow's route (a list of link ids per
//! direction), which says where it goes next. The dumbbell of seed 000 is one such network:
//!
//! ```text
//!  sender i --access(i)--> left ==bottleneck==> right --access(i)--> receiver i
//! ```
use std::collections::VecDeque;

mod fifos;
mod sender_rows;
mod several_ahead;
use sender_rows::SenderRow;
use several_ahead::{SeveralAhead, Taker};

use crate::cc::{registry, CongestionControl, FlowContext};
use crate::config::{err, BurstPacingConfig, ConfigError, FlowConfig, OverheadModel, RateModelConfig, ScenarioConfig};
use crate::net::arq::Arq;
use crate::net::bearer::Bearer;
use crate::net::capacity::{Capacity, MahimahiTrace, RateSchedule};
use crate::net::delay::{Delay, DelaySchedule};
use crate::event::{Event, EventQueue};
use crate::net::line_pool::LinePool;
use crate::net::link::{Buffer, FifoBuffer, Link, LinkCounters};
use crate::net::outage::OutageProcess;
use crate::net::packet::{Direction, Packet};
use crate::net::queue::registry::{self as queues, QueueLimits};
use crate::net::queue::LinkInfo;
use crate::net::topology::{LinkPlan, Topology};
use crate::receipts::{EarlyReceipts, Reading};
use crate::rng::SimRng;
use crate::run_error::RunError;
use crate::stats::{jain_index, BottleneckSummary, ConnectionRecords, FlowLife, FlowSeries, FlowSummary, GroupSummary, LinkSeries, LinkSummary, QueueSeries, Summary};
use crate::tcp::burst::BurstLimit;
use crate::tcp::delayed_send::DelayedSend;
use crate::tcp::frto::FrtoConfig;
use crate::tcp::receiver::Receiver;
use crate::tcp::segment::Segment;
use crate::tcp::sender::{RttHistogram, Sender, SenderConfig, SenderCounters};
use crate::tcp::recovery::Recovery;
use crate::tcp::rto_ns2::Ns2Agent;
use crate::time::{Rate, SimDuration, SimTime};
use crate::traffic::dist::Distribution;
use crate::traffic::groups::GroupStats;

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
/// Random stream of flow i's start-time jitter (or drawn start) is this + i.
const STREAM_FIRST_START: u64 = 2 << 32;
/// Random stream of flow i's drawn duration is this + i.
const STREAM_FIRST_DURATION: u64 = 6 << 32;
/// Traffic source k's inter-arrival times, and its transfer sizes.
const STREAM_FIRST_ARRIVALS: u64 = 7 << 32;
const STREAM_FIRST_SIZES: u64 = 8 << 32;
/// The n-th connection a traffic source opens (counted over all sources) seeds its algorithm from this + n.
const STREAM_FIRST_CONNECTION_CC: u64 = 9 << 32;
/// Flow i's pacing jitter (`pacing`) draws from this + i; the n-th connection's from this + 2^31 + n.
const STREAM_FIRST_PACING: u64 = 10 << 32;
/// Link i's outage process (gaps and durations).
const STREAM_FIRST_OUTAGES: u64 = 11 << 32;
/// Link i's drawn rate (`rate_model.drawn`).
const STREAM_FIRST_DRAWN_RATE: u64 = 12 << 32;
/// Flow i's delayed-send timer (ns-2 `overhead_`, `tcp/delayed_send.rs`): stream 13 << 32 + i.
const STREAM_FIRST_DELAYED_SEND: u64 = 13 << 32;
/// The phase of flow i's ns-2 Agent/TCP tick clock (`ns2-sack1`'s timer, `boot_time_`): this + i; the
/// n-th connection's, this + 2^31 + n.
const STREAM_FIRST_NS2_CLOCK: u64 = 14 << 32;

/// A packet's `flow` is its flow's slot in the low bits and, for a slot a traffic source reuses, the
/// connection's generation above them, so a late packet of an earlier connection is recognised at the
/// endpoint and dropped. Slots are event ids (`event::MAX_EVENT_ID`); 11 bits of generation remain.
const SLOT_BITS: u32 = 21;
const SLOT_MASK: u32 = (1 << SLOT_BITS) - 1;

struct Flow {
    sender: Sender,
    receiver: Receiver,
    /// Time of the sender-timer event currently in the heap, if any.
    sender_timer: Option<SimTime>,
    receiver_timer: Option<SimTime>,
    life: Life,
    /// What its packets carry as `flow`: the slot, plus the generation for a reused slot.
    tag: u32,
    /// Index into `Simulation::groups`.
    group: Option<u32>,
    /// The traffic source whose connection this is (its slot goes back to that source when it ends).
    source: Option<u32>,
    /// The connection ended and its slot is free (its bytes are in its group's `retired_bytes`).
    retired: bool,
    /// Packets its receiver took ahead of their arrival that a reading could see early (`receipts`).
    early: EarlyReceipts,
}

impl Flow {
    /// The receiver's (delivered, received) packets as of a reading at `now`: without the packets it
    /// took ahead of their arrival (`Simulation::receive_at_hand_off`).
    fn receiver_counts(&self, now: SimTime, reading: Reading) -> (u64, u64) {
        self.early.as_of(now, reading, (self.receiver.delivered(), self.receiver.received()))
    }

    /// Whether the ACK its sender just took ended a finite transfer: the last segment is cumulatively
    /// acknowledged and the end not yet recorded (`Simulation::complete`).
    #[inline(always)]
    fn transfer_just_completed(&self) -> bool {
        self.life.segments.is_some_and(|n| self.life.completed_at.is_none() && self.sender.snd_una() >= n)
    }
}

/// Where a flow slot's route in one direction lies in `Routes::links`, and its first link: read at every
/// packet an endpoint emits (`Simulation::inject`), so that it is one load, not the span's and then the
/// link's (callgrind, run 18c: 6 instructions per data packet less).
#[derive(Copy, Clone, Debug)]
struct RouteSpan {
    start: u32,
    len: u32,
    first: u32,
}

/// Every flow slot's links, sender to receiver and back, in one flat array, apart from the flows'
/// (large) state: a packet's next hop is read at every link it leaves, and with 1000 flows a lookup
/// through each flow's own vectors missed the cache at nearly every hop, where these two small arrays
/// stay in it (1000 dumbbell flows: 24 + 24 KB).
#[derive(Default)]
struct Routes {
    links: Vec<u32>,
    /// Per flow slot: its forward (data) and reverse (ACK) route.
    spans: Vec<[RouteSpan; 2]>,
    /// Per link: where every packet leaving it goes, when all routes agree (`Routes::with_successors`).
    after: Vec<Successor>,
}

/// What follows a link on every route through it. In a dumbbell each access link has one successor (the
/// bottleneck, or the endpoint), so a packet leaving it needs no lookup in its slot's route; only the
/// bottleneck, followed by a different link per flow, is `ByRoute`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Successor {
    /// The next hop of every route through the link.
    Link(u32),
    /// The link ends every route through it: its packets reach their endpoint.
    Endpoint,
    /// Routes differ after it (or no route uses it): read the packet's own route.
    ByRoute,
}

impl Routes {
    /// No slot yet; each link's successor from every route the run can use (the scenario's flows and
    /// the traffic sources', whose connections' slots take their source's route).
    fn with_successors(links: usize, routes: &[[Vec<u32>; 2]]) -> Self {
        let mut after: Vec<Option<Successor>> = vec![None; links];
        for path in routes.iter().flat_map(|r| r.iter()) {
            for (i, &l) in path.iter().enumerate() {
                let next = path.get(i + 1).map_or(Successor::Endpoint, |&n| Successor::Link(n));
                let seen = &mut after[l as usize];
                *seen = match *seen {
                    None => Some(next),
                    Some(s) if s == next => Some(s),
                    Some(_) => Some(Successor::ByRoute),
                };
            }
        }
        let after = after.into_iter().map(|s| s.unwrap_or(Successor::ByRoute)).collect();
        Routes { after, ..Routes::default() }
    }
    /// Add the next slot's route.
    fn push(&mut self, route: &[Vec<u32>; 2]) {
        let spans = route.each_ref().map(|path| {
            let start = self.links.len() as u32;
            self.links.extend_from_slice(path);
            // An empty route has no first link: `u32::MAX` fails the link lookup if it is ever used.
            let first = path.first().copied().unwrap_or(u32::MAX);
            RouteSpan { start, len: path.len() as u32, first }
        });
        self.spans.push(spans);
    }
    /// Slot `f`'s links in direction `dir`.
    fn path(&self, f: u32, dir: Direction) -> &[u32] {
        let span = self.spans[f as usize][dir as usize];
        &self.links[span.start as usize..(span.start + span.len) as usize]
    }
    /// The first link of slot `f`'s route in direction `dir`.
    #[inline(always)]
    fn first_hop(&self, f: u32, dir: Direction) -> u32 {
        self.spans[f as usize][dir as usize].first
    }
    /// The link after `hop` on slot `f`'s route in direction `dir`, if `hop` is not the last.
    #[inline(always)]
    fn next_hop(&self, f: u32, dir: Direction, hop: u8) -> Option<u32> {
        let span = self.spans[f as usize][dir as usize];
        let next = hop as u32 + 1;
        (next < span.len).then(|| self.links[(span.start + next) as usize])
    }
    /// The link after `from` for `pkt` (which has just left `from`), if `from` is not the last hop: read
    /// from `from`'s successor when every route agrees on it, from the packet's route otherwise.
    #[inline(always)]
    fn next_after(&self, from: usize, pkt: &Packet) -> Option<u32> {
        let next = match self.after[from] {
            Successor::Link(l) => Some(l),
            Successor::Endpoint => None,
            Successor::ByRoute => self.next_hop(pkt.flow & SLOT_MASK, pkt.dir, pkt.hop),
        };
        debug_assert_eq!(next, self.next_hop(pkt.flow & SLOT_MASK, pkt.dir, pkt.hop));
        next
    }
}

/// The three links of a lone flow's ACK route whose ACKs reach the second ahead of time
/// (`Simulation::acks_ahead`).
#[derive(Copy, Clone, Debug)]
struct AcksAhead {
    first: usize,
    second: usize,
    end: usize,
}

/// An arrival process (`config::TrafficConfig`).
struct Source {
    group: u32,
    route: [Vec<u32>; 2],
    inter_arrival: Distribution,
    sizes: Distribution,
    arrival_rng: SimRng,
    size_rng: SimRng,
    stop: SimTime,
    /// Slots of this source's ended connections, ready for the next ones (same routes).
    free: Vec<u32>,
    /// Whether its connections are recorded one by one (`records`).
    records: bool,
    /// Its connections' algorithm, its config read once (`traffic.k.flow.cc`).
    cc: registry::Recipe,
}

/// What a flow's record reports beyond the window's counters (`stats::FlowLife`).
#[derive(Clone, Debug, Default)]
struct Life {
    /// A finite transfer: its size in payload bytes and in segments.
    size_bytes: Option<u64>,
    segments: Option<u64>,
    /// The application stops writing then (`stop_ns`).
    stop: Option<SimTime>,
    started_at: Option<SimTime>,
    /// The last segment was cumulatively acknowledged.
    completed_at: Option<SimTime>,
    /// Whether the summary reports the record (anything but a plain bulk flow).
    reported: bool,
}

impl Life {
    fn new(size_bytes: Option<u64>, stop: Option<SimTime>, payload: u32) -> Self {
        Life {
            size_bytes,
            stop,
            segments: size_bytes.map(|b| b.div_ceil(payload as u64)),
            reported: size_bytes.is_some(),
            ..Life::default()
        }
    }
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
    /// Ring buffers the links' propagation lines gave up, for the next line that grows or shrinks to
    /// their size (`net::line_pool`).
    lines: LinePool,
    plans: Vec<LinkPlan>,
    /// Links with a queue, which report their figures (summary `links`, series `links`), in link order.
    reported: Vec<usize>,
    /// The link the summary's `bottleneck` and the `queue` series describe.
    bottleneck: usize,
    /// The scenario's flows (`0..static_flows`), then slots of traffic sources' connections.
    flows: Vec<Flow>,
    /// Each flow slot's route (a reused slot keeps its source's route).
    routes: Routes,
    static_flows: usize,
    sources: Vec<Source>,
    groups: Vec<GroupStats>,
    /// Connections the traffic sources have opened.
    connections: u64,
    /// Completed connections of sources that keep records.
    records: ConnectionRecords,
    /// Packets of an earlier connection that reached an endpoint after their slot was reused.
    stale_packets: u64,
    /// Scratch buffer for the ACKs a receiver emits.
    out: Vec<Packet>,
    /// Scratch buffer for the segments a sender emits (`tcp/segment.rs`).
    sent: Vec<Segment>,
    /// Scratch buffer for packets a hand-off link passes on.
    handed: Vec<(SimTime, Packet)>,
    snapshot: Option<Snapshot>,
    sample_interval: SimDuration,
    flow_series: FlowSeries,
    queue_series: QueueSeries,
    link_series: LinkSeries,
    cc_scratch: Vec<(&'static str, f64)>,
    /// The link whose data packets, handed off to it, its receiver takes at once (`receive_at_hand_off`).
    received_at_hand_off: Option<usize>,
    /// Per link, who takes the packets a hand-off link passes to it: the link, or (ahead of their
    /// arrival) the receiver or sender at its end (`sim/several_ahead.rs`, `receive_at_hand_off`).
    takers: Vec<Taker>,
    /// The several-flow path's queues (`sim/several_ahead.rs`).
    several: SeveralAhead,
    /// The flow's ACK route (first, second, last link) when its ACKs may reach the second link ahead of
    /// time too (`acks_ahead`).
    acks_ahead: Option<AcksAhead>,
    /// ACKs that crossed the first link back but reach the second at or after `read_horizon`, or behind an
    /// ACK still on the first link's line, in order: they go on after that reading, or once that line is
    /// empty (`release_waiting_acks`).
    waiting_acks: VecDeque<(SimTime, Packet)>,
    /// The flow's data route's first and second link when its data packets reach the second (the
    /// bottleneck) ahead of time too (`data_ahead`).
    data_ahead: Option<(usize, usize)>,
    /// Data packets that crossed the first link but reach the second at or after `read_horizon`, in
    /// order: they go on after that reading (`release_waiting_data`).
    waiting_data: VecDeque<(SimTime, Packet)>,
    /// No reading of the receivers' counts happens before this time (the next sample, the measurement
    /// start, the end of the current step): a packet taken ahead that arrives earlier needs no receipt.
    read_horizon: SimTime,
    /// The end of the current `run_until` step.
    step_end: SimTime,
    /// The time of the next `Sample` event, if any.
    next_sample: Option<SimTime>,
    /// Receipts say where each arrival falls against a sample due with it (`link_received_at_hand_off`).
    marks_arrivals: bool,
    /// The arrival of the last packet the receiver took at the hand-off, when arrivals are marked
    /// (`arrival_before_sample`).
    last_received: Option<SimTime>,
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
        let mut groups: Vec<GroupStats> = Vec::new();
        let mut flow_routes = Routes::with_successors(links.len(), &topology.routes);
        let mut routes = topology.routes.into_iter();
        // Senders among several flows prefetch their records (`Scoreboard::prefetch_records`), and their
        // lines the slot of their next push (`LinePool::hinting_pushes`).
        let several_flows = cfg.flows.len() > 1 || !cfg.traffic.is_empty();
        for (i, f) in cfg.flows.iter().enumerate() {
            let mut cc = registry::build(&format!("flows.{i}.cc"), &f.cc, f.initial_cwnd)?;
            cc.attach(FlowContext {
                packet_size: cfg.packet_size,
                rng: SimRng::new(cfg.run.seed, STREAM_FIRST_CC + i as u64),
            });
            let mut start_rng = SimRng::new(cfg.run.seed, STREAM_FIRST_START + i as u64);
            let start = match (&f.start_draw_ns, f.start_jitter_ns) {
                (Some(d), _) => f.start_ns.saturating_add(d.draw(&mut start_rng)),
                (None, 0) => f.start_ns,
                // Modulo bias is below 2^-30 for any jitter under a second: irrelevant, and exact everywhere.
                // Saturating: a start + jitter past u64::MAX ns is a start never reached (tests/config_fuzz.rs).
                (None, j) => f.start_ns.saturating_add(start_rng.up_to(j)),
            };
            let stop = match &f.duration_draw_ns {
                Some(d) => {
                    let mut rng = SimRng::new(cfg.run.seed, STREAM_FIRST_DURATION + i as u64);
                    Some(SimTime(start.saturating_add(d.draw(&mut rng).max(1))))
                }
                None => f.stop_ns.map(SimTime),
            };
            let sender = Sender::new(
                SenderConfig {
                    flow: i as u32,
                    packet_size: cfg.packet_size,
                    recovery: f.recovery,
                    rto_min: SimDuration(f.rto_min_ns),
                    rwnd: f.rwnd_packets,
                    cwnd_clamp: f.cwnd_clamp_packets,
                    stop,
                    segments: f.size_bytes.map(|b| b.div_ceil(cfg.payload_size() as u64)),
                    ecn: f.ecn,
                    record_loss_events: cfg.run.record_loss_events,
                    rtt_histogram: cfg.run.rtt_histogram,
                },
                cc,
            );
            let sender = sender.with_frto(frto_config(f)).with_records_prefetched(several_flows);
            let sender = with_ns2_clock(sender, f.recovery, SimRng::new(cfg.run.seed, STREAM_FIRST_NS2_CLOCK + i as u64));
            let sender = with_pacing(sender, f.pacing.as_ref(), SimRng::new(cfg.run.seed, STREAM_FIRST_PACING + i as u64));
            let sender = match (f.overhead_model, f.overhead_ns) {
                (OverheadModel::DelayedSend, max) if max > 0 => sender.with_delayed_send(DelayedSend::new(
                    SimDuration(max),
                    SimRng::new(cfg.run.seed, STREAM_FIRST_DELAYED_SEND + i as u64),
                )),
                _ => sender,
            };
            flows.push(Flow {
                sender,
                receiver: Receiver::new(i as u32, cfg.ack_size, f.delayed_ack).with_quick_acks(f.quick_acks),
                sender_timer: None,
                receiver_timer: None,
                life: Life::new(f.size_bytes, stop, cfg.payload_size()),
                tag: i as u32,
                group: None,
                source: None,
                retired: false,
                early: EarlyReceipts::default(),
            });
            flow_routes.push(&routes.next().expect("one route per flow"));
            let flow = flows.last_mut().expect("pushed");
            flow.life.reported |= f.start_draw_ns.is_some() || f.duration_draw_ns.is_some() || f.group.is_some();
            if let Some(name) = &f.group {
                let g = group_index(&mut groups, name, path_capacity(&links, flow_routes.path(i as u32, Direction::Forward)));
                groups[g as usize].created += 1;
                flow.group = Some(g);
            }
            events.schedule(SimTime(start), Event::FlowStart(i as u32));
        }
        let static_flows = flows.len();
        let mut sources = Vec::with_capacity(cfg.traffic.len());
        for (k, t) in cfg.traffic.iter().enumerate() {
            // Read once here, so that a bad algorithm is reported now, not at the first arrival, and the
            // connections do not each read the config document again.
            let cc = registry::recipe(&format!("traffic.{k}.flow.cc"), &t.flow.cc, t.flow.initial_cwnd)?;
            let route = routes.next().expect("one route per source");
            let capacity = path_capacity(&links, &route[0]);
            let inter_arrival = match (&t.inter_arrival_ns, t.offered_load) {
                (Some(d), _) => d.clone(),
                // Poisson: mean gap (ns) = 8 * mean size (B) * 1e9 / (load * capacity (bit/s)).
                (None, Some(load)) => Distribution::Exponential(8.0 * t.size_bytes.mean() * 1e9 / (load * capacity as f64)),
                (None, None) => unreachable!("validated"),
            };
            sources.push(Source {
                group: group_index(&mut groups, &t.group, capacity),
                route,
                inter_arrival,
                sizes: t.size_bytes.clone(),
                arrival_rng: SimRng::new(cfg.run.seed, STREAM_FIRST_ARRIVALS + k as u64),
                size_rng: SimRng::new(cfg.run.seed, STREAM_FIRST_SIZES + k as u64),
                stop: SimTime(t.stop_ns.unwrap_or(cfg.run.duration_ns)),
                free: Vec::new(),
                records: t.records,
                cc,
            });
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
        // After every other first event, so a run without traffic schedules exactly what it always did.
        for (k, t) in cfg.traffic.iter().enumerate() {
            if t.start_ns < sources[k].stop.0 && t.start_ns < end.0 {
                events.schedule(SimTime(t.start_ns), Event::TrafficArrival(k as u32));
            }
        }
        let mut sim = Simulation {
            cfg,
            now: SimTime::ZERO,
            end,
            measure_from,
            events,
            links,
            lines: LinePool::hinting_pushes(several_flows),
            plans: topology.links,
            reported,
            bottleneck: topology.bottleneck,
            flows,
            routes: flow_routes,
            static_flows,
            sources,
            groups,
            connections: 0,
            records: ConnectionRecords::default(),
            stale_packets: 0,
            out: Vec::with_capacity(64),
            handed: Vec::with_capacity(64),
            snapshot: None,
            sample_interval,
            flow_series: FlowSeries::default(),
            queue_series: QueueSeries::default(),
            link_series: LinkSeries::default(),
            cc_scratch: Vec::new(),
            received_at_hand_off: None,
            takers: Vec::new(),
            several: SeveralAhead::default(),
            acks_ahead: None,
            waiting_acks: VecDeque::new(),
            data_ahead: None,
            waiting_data: VecDeque::new(),
            sent: Vec::with_capacity(64),
            read_horizon: SimTime::ZERO,
            step_end: SimTime::ZERO,
            next_sample: (sample_interval > SimDuration::ZERO).then_some(SimTime::ZERO),
            marks_arrivals: false,
            last_received: None,
        };
        (sim.received_at_hand_off, sim.marks_arrivals) = match sim.link_received_at_hand_off() {
            Some((link, marks)) => (Some(link), marks),
            None => (None, false),
        };
        sim.takers = vec![Taker::Link; sim.links.len()];
        match sim.received_at_hand_off {
            Some(l) => sim.takers[l] = Taker::Receiver,
            None => sim.take_several_ahead(),
        }
        sim.acks_ahead = sim.acks_ahead();
        sim.data_ahead = sim.data_ahead();
        if measure_from == SimTime::ZERO {
            sim.snapshot = Some(sim.take_snapshot());
        }
        Ok(sim)
    }

    /// Links whose data packets the receiver takes when the link before hands them off: the last link
    /// of the flow's data route, if it is plain and unbounded (the packet's arrival is known at the
    /// hand-off), used by that flow alone, and fed by a hand-off link; and if the first link of the
    /// flow's ACK route is plain, unbounded and the flow's alone as well (its ACKs enter it at their
    /// future time, in order). Not for a flow with delayed ACKs (its receiver timer would have to fire
    /// between the hand-off and the arrival), nor with samples that would read differently: they must
    /// be scheduled before any hand-off whose arrivals fall on their time (`samples_precede_hand_offs`),
    /// or else miss the ACKs, while each packet's receipt says where its arrival falls against a sample
    /// due with it (`samples_follow_acks`).
    ///
    /// This is the path of a run of one flow and no traffic sources, which also takes the flow's ACKs
    /// and data over both bottlenecks (`acks_ahead`, `data_ahead`); runs of several flows take theirs
    /// (`sim/several_ahead.rs`). Either numbers the events of what it takes as of the arrival it stands
    /// for (tie rule R, `event.rs`), so the order of events due at the same nanosecond is the
    /// packet-by-packet path's (docs/benchmarks.md, run 30).
    ///
    /// With it, whether each packet's receipt must say where its arrival falls against a sample due
    /// with it (`samples_follow_acks` admits the flow, `samples_precede_hand_offs` does not). The
    /// conditions on the links are `receiver_links_ahead`'s, shared with runs of several flows.
    fn link_received_at_hand_off(&self) -> Option<(usize, bool)> {
        if !self.sources.is_empty() || self.flows.len() != 1 {
            return None;
        }
        let users = self.link_users();
        let (before, last, ack_first) = self.receiver_links_ahead(0, &users)?;
        if self.samples_precede_hand_offs(before, last, ack_first, users[before as usize] == 1) {
            Some((last as usize, false))
        } else {
            self.samples_follow_acks(0, before, last, ack_first).then_some((last as usize, true))
        }
    }

    /// The ACK route of the flow whose receiver takes packets at the hand-off, if it is three links whose
    /// second hands off plainly (no models, a FIFO or unbounded buffer: the dumbbell's reverse
    /// bottleneck) and carries that flow alone. An ACK entering the first link back reaches the second at
    /// a time known at once; the second link takes it then, as of that time (`take_ack`): one event and one
    /// line pass fewer per ACK (docs/benchmarks.md, run 26). That link's state at a time depends only on
    /// the ACKs that reached it before, which all came this way, in order, or by the first link's line
    /// and its events (then later ACKs follow them there).
    fn acks_ahead(&self) -> Option<AcksAhead> {
        self.ack_route_ahead(self.receiving_ahead_flow()?)
    }

    /// `acks_ahead` for flow `f`, were its receiver to take packets at the hand-off.
    fn ack_route_ahead(&self, f: u32) -> Option<AcksAhead> {
        let &[first, second, end] = self.routes.path(f, Direction::Reverse) else { return None };
        // One flow and no traffic sources (`link_received_at_hand_off`): the link is that flow's alone
        // unless its own route passes it twice.
        let passes = self.passes(f, second);
        let [first, second, end] = [first as usize, second as usize, end as usize];
        (passes == 1 && self.links[second].hands_off_plainly() && !self.links[end].hands_off())
            .then_some(AcksAhead { first, second, end })
    }

    /// The first two links of the data route of the flow whose receiver takes packets at the hand-off,
    /// if the route is three links, the first plain, unbounded and the flow's own, the second (the
    /// bottleneck, which hands off to the receiver's link) handing off plainly and carrying that flow's
    /// data alone. A packet the sender emits reaches the second link at a time known at once; that link
    /// takes it then, as of that time, when no reading comes first (else it waits in `waiting_data`):
    /// one event and one line pass fewer per data packet (docs/benchmarks.md, run 26). The second link
    /// and what follows depend only on the packets that reached it before, all of which came this way.
    ///
    /// Samples must be further apart than the first link's transmission and delay: packet by packet, a
    /// packet reaching the second link at a sample's time has its event numbered when it is sent or
    /// when the packet before it arrives, no earlier than that before, and so after the sample was
    /// scheduled (one interval before): the sample reads the second link without it, as it does when the
    /// packet waits for the sample here.
    fn data_ahead(&self) -> Option<(usize, usize)> {
        let f = self.receiving_ahead_flow()?;
        let &[first, second, _] = self.routes.path(f, Direction::Forward) else { return None };
        let (a, b) = (&self.links[first as usize], &self.links[second as usize]);
        let way = a.rate().tx_time(self.cfg.packet_size).0 as u128 + a.delay().0 as u128;
        let sampled_apart = self.sample_interval == SimDuration::ZERO || self.sample_interval.0 as u128 > way;
        (self.passes(f, first) == 1 && self.passes(f, second) == 1 && a.is_plain_unbounded() && !a.hands_off() && b.hands_off_plainly() && sampled_apart)
            .then_some((first as usize, second as usize))
    }

    /// The flow whose receiver takes packets at the hand-off (`received_at_hand_off`), if any: the one
    /// whose data route ends at that link.
    fn receiving_ahead_flow(&self) -> Option<u32> {
        let last = self.received_at_hand_off? as u32;
        (0..self.flows.len() as u32).find(|&f| self.routes.path(f, Direction::Forward).last() == Some(&last))
    }

    /// How many times flow `f`'s two routes pass `link`.
    fn passes(&self, f: u32, link: u32) -> usize {
        [Direction::Forward, Direction::Reverse].iter().map(|&d| self.routes.path(f, d).iter().filter(|&&l| l == link).count()).sum()
    }

    /// Whether each sample is scheduled (one interval before it is due) before the hand-off of any
    /// packet that reaches the receiver, or whose ACK reaches the end of the first link back, at the
    /// sample's time, unless the packet-by-packet path numbered that arrival's event before the sample
    /// too. Then the sample fires first on both paths (`Reading::BeforeArrivals`). A sample scheduled
    /// after the hand-off is ordered against events the packet-by-packet path numbers later (the
    /// packet's arrival, its ACK's arrival at the end of that link) and this path numbers at the
    /// hand-off or not at all: the sample read the receiver's count, or the next link's counters, one
    /// packet off (tests/receiving_ahead.rs, a_sample_due_as_...).
    ///
    /// The packet-by-packet path numbers a packet's arrival at the hand-off, or when the packet before
    /// arrives, if that is later (only a line's head has an event); its ACK's likewise, from the data's
    /// arrival. So only a packet that leaves `before` without waiting behind the one before it counts,
    /// and its hand-off is at most its transmission and each link's transmission and delay before
    /// those arrivals, when neither link after `before` queues (no slower than it: data come at least
    /// one transmission at `before` apart, each sending one ACK). A packet can also wait behind packets
    /// that never arrive, lost to `before`'s packet errors, or behind ACKs if `before` carries them:
    /// then a full queue is added.
    fn samples_precede_hand_offs(&self, before: u32, last: u32, ack_first: u32, before_data_only: bool) -> bool {
        if self.sample_interval == SimDuration::ZERO {
            return true;
        }
        let Some((limit, spacing)) = self.nothing_queues_after(before, last, ack_first) else { return false };
        let (b, l, k) = (&self.links[before as usize], &self.links[last as usize], &self.links[ack_first as usize]);
        let (data, ack) = (self.cfg.packet_size, self.cfg.ack_size);
        let ns = |d: SimDuration| d.0 as u128;
        let queue = match before_data_only && !b.has_packet_errors() {
            true => 0,
            false => ns(b.rate().tx_time(data.max(ack))) * limit as u128,
        };
        let links = ns(spacing) + ns(b.delay()) + ns(l.rate().tx_time(data)) + ns(l.delay()) + ns(k.rate().tx_time(ack)) + ns(k.delay());
        ns(self.sample_interval) > queue + links
    }

    /// Whether samples, however close, read the same on both paths when each packet's receipt says where
    /// its arrival falls against a sample due with it (`arrival_before_sample`), as the ACKs' readings
    /// need no such mark. That is so when:
    /// - the link `before` is a plain FIFO that hands off, so that it takes a packet as the packet
    ///   arrives there, the moment `arrival_before_sample` compares;
    /// - neither link after it queues (`nothing_queues_after`), so an ACK reaches the next link back its
    ///   transmission and the first link's delay after its packet reached the receiver;
    /// - samples are further apart than that: an ACK that reaches the next link at a sample's time left
    ///   the receiver after that sample was scheduled, so packet by packet its event there is numbered
    ///   after the sample's and fires after it, as here, where it waits for the sample (`waiting_acks`);
    /// - the flow's ACKs go ahead (`ack_route_ahead`): otherwise an ACK goes on the first link's line
    ///   when its packet is taken, long before its arrival, with its event numbered then, ahead of a
    ///   sample that packet by packet it follows.
    ///
    /// Then samples may come between a packet's hand-off and its arrival, as they do on a bottleneck
    /// whose delay is longer than the sample interval (the front's default is 100 ms; docs/benchmarks.md,
    /// run 28).
    fn samples_follow_acks(&self, f: u32, before: u32, last: u32, ack_first: u32) -> bool {
        if self.nothing_queues_after(before, last, ack_first).is_none() || self.ack_route_ahead(f).is_none() {
            return false;
        }
        let k = &self.links[ack_first as usize];
        self.sample_interval.0 as u128 > k.rate().tx_time(self.cfg.ack_size).0 as u128 + k.delay().0 as u128
    }

    /// The limit and data spacing of `before`, if it is a plain FIFO that hands off (it takes each packet
    /// as the packet arrives) and neither the receiver's link `last` nor the first link back `ack_first`
    /// queues: data leave `before` at least one transmission apart and each sends one ACK, so both links
    /// must pass a packet, and an ACK, within that time.
    fn nothing_queues_after(&self, before: u32, last: u32, ack_first: u32) -> Option<(usize, SimDuration)> {
        let (b, l, k) = (&self.links[before as usize], &self.links[last as usize], &self.links[ack_first as usize]);
        let limit = b.fifo_limit_packets().filter(|_| b.hands_off_plainly())?;
        let spacing = b.rate().tx_time(self.cfg.packet_size);
        (l.rate().tx_time(self.cfg.packet_size) <= spacing && k.rate().tx_time(self.cfg.ack_size) <= spacing).then_some((limit, spacing))
    }

    /// Whether, packet by packet, a data packet that reaches the receiver at `at` arrives before a sample
    /// due at `at` fires (asked of every packet logged while receipts are marked; it matters when `at` is
    /// a sample's time). The link `before` took the packet at `entered` (`samples_follow_acks`).
    ///
    /// That sample was scheduled when the one before it fired, at `s = at - interval`. Packet by packet
    /// the arrival's event is scheduled when the packet is taken, if the receiver's link is empty then,
    /// else when the packet before it arrives: at the later of the two. Under tie rule R it fires before
    /// the sample if that scheduling time is no later than `s` (scheduled at the same time, a line
    /// arrival's kind comes before a sample's): both the taking (`entered <= s`) and the packet before's
    /// arrival.
    ///
    /// `previous`: the arrival of the packet before it (`last_received` as it was before this one, which
    /// follows every packet taken, logged or not).
    #[inline(never)]
    fn arrival_before_sample(&self, entered: SimTime, at: SimTime, previous: Option<SimTime>) -> bool {
        let interval = self.sample_interval.0;
        interval > 0 && at.0 >= interval && {
            let s = SimTime(at.0 - interval);
            let taken_first = entered <= s;
            let before_first = previous.map_or(true, |p| p <= s);
            taken_first && before_first
        }
    }

    /// Every data packet reaches its receiver through its last link's events, as before run 24: for
    /// tests that compare the two ways. Call before running.
    #[doc(hidden)]
    pub fn without_receiving_ahead(&mut self) {
        self.received_at_hand_off = None;
        self.without_several_ahead();
        self.marks_arrivals = false;
        self.acks_ahead = None;
        self.data_ahead = None;
    }

    /// The earliest time anything may read the receivers' counts from now on (`read_horizon`).
    fn update_read_horizon(&mut self) {
        self.read_horizon = self.hard_horizon().min(self.next_sample.unwrap_or(SimTime::MAX));
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
    pub fn run(&mut self) -> Result<(), RunError> {
        self.run_until(self.end)
    }

    /// Advance simulated time to `min(t, end)`, firing every event due up to it. An error means the run
    /// cannot be trusted from some point on; every later call gives the same error.
    pub fn run_until(&mut self, t: SimTime) -> Result<(), RunError> {
        let t = t.min(self.end);
        self.step_end = t;
        self.update_read_horizon();
        self.release_waiting(None);
        loop {
            while let Some((time, event)) = self.events.pop_due(t) {
                debug_assert!(time >= self.now, "time went backwards");
                self.now = time;
                self.dispatch(event);
            }
            // Packets that waited for the step's end but reach the next link by it: the reading after the
            // step sees them there (an ACK put on the first link's line has its event due now: fire it).
            let due = |waiting: &VecDeque<(SimTime, Packet)>| waiting.front().is_some_and(|&(reaches, _)| reaches <= t);
            if !due(&self.waiting_acks) && !due(&self.waiting_data) && !self.senders_due_by(t) {
                break;
            }
            self.now = self.now.max(t);
            self.release_waiting(Some(t));
        }
        self.now = self.now.max(t);
        Ok(())
    }

    fn dispatch(&mut self, event: Event) {
        let now = self.now;
        match event {
            Event::LinkArrival(l) => {
                let (pkt, next) = self.links[l as usize].take_arrival(now, &mut self.lines);
                if let Some(next) = next {
                    self.schedule_line_head(l as usize, next);
                }
                self.forward(l as usize, pkt);
                // The ACKs that waited behind the ones on this line go on once it is empty (`take_ack`).
                if !self.waiting_acks.is_empty() && self.links[l as usize].line_is_empty() {
                    self.release_waiting_acks(None);
                }
            }
            Event::LinkTxDone(l) => {
                self.links[l as usize].on_tx_done(now, &mut self.events, &mut self.lines);
                self.pass_on_handed_off(l as usize);
            }
            Event::LinkIngress(l) => {
                self.links[l as usize].on_ingress(now, &mut self.events, &mut self.lines);
                self.pass_on_handed_off(l as usize);
            }
            Event::SenderTimer(f) => {
                self.timer_event_popped(f, now);
                let flow = &mut self.flows[f as usize];
                if flow.sender_timer != Some(now) {
                    return; // superseded by an earlier deadline
                }
                flow.sender_timer = None;
                // `on_timer` itself does nothing unless a deadline is due (nearly every event here is a
                // pacing wake-up that is), so the deadline is not computed for a test first.
                flow.sender.on_timer(now, &mut self.sent);
                self.inject_sent(f);
                // ACKs that waited for this event go now (`drain_sender`), with the timer it armed.
                if self.sender_has_waiting(f) {
                    self.arm_sender_timer(f);
                    self.drain_sender(f, None);
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
                self.inject_acks(f);
                self.arm_receiver_timer(f);
            }
            Event::FlowStart(f) => {
                self.flows[f as usize].life.started_at = Some(now);
                self.flows[f as usize].sender.start(now, &mut self.sent);
                self.inject_sent(f);
                self.arm_sender_timer(f);
            }
            Event::Sample => {
                self.sample();
                let next = now + self.sample_interval;
                self.next_sample = (next <= self.end).then_some(next);
                if let Some(next) = self.next_sample {
                    self.events.schedule(next, Event::Sample);
                }
                self.update_read_horizon();
                self.release_waiting(None);
            }
            Event::MeasureStart => {
                self.snapshot = Some(self.take_snapshot());
                self.update_read_horizon();
                self.release_waiting(None);
            }
            Event::TrafficArrival(k) => {
                self.open_connection(k as usize);
                let source = &mut self.sources[k as usize];
                // At least 1 ns apart, so a zero draw cannot stall simulated time.
                let next = now + SimDuration(source.inter_arrival.draw(&mut source.arrival_rng).max(1));
                if next < source.stop && next < self.end {
                    self.events.schedule(next, Event::TrafficArrival(k));
                }
            }
        }
    }

    /// A packet left link `from`: hand it to the next link of its path or to its endpoint.
    fn forward(&mut self, from: usize, mut pkt: Packet) {
        let f = pkt.flow & SLOT_MASK;
        if let Some(link) = self.routes.next_after(from, &pkt) {
            pkt.hop += 1;
            let link = link as usize;
            if self.links[link].hands_off_plainly() {
                self.hand_off_plainly(link, pkt);
                return;
            }
            self.links[link].enqueue(self.now, pkt, &mut self.events, &mut self.lines);
            self.pass_on_handed_off(link);
            return;
        }
        let flow = &mut self.flows[f as usize];
        if pkt.flow != flow.tag {
            self.stale_packets += 1;
            return; // a late packet of an earlier connection in this slot
        }
        match pkt.dir {
            Direction::Forward => {
                flow.receiver.on_data(self.now, &pkt, &mut self.out);
                self.inject_acks(f);
                self.arm_receiver_timer(f);
            }
            Direction::Reverse => {
                flow.sender.on_ack(self.now, &pkt, &mut self.sent);
                if flow.transfer_just_completed() {
                    self.complete(f);
                    if self.flows[f as usize].retired {
                        return;
                    }
                }
                self.inject_sent(f);
                self.arm_sender_timer(f);
            }
        }
    }

    /// `pkt` reaches a plain hand-off link (`Link::hands_off_plainly`) now, and goes on to the next hop at
    /// once if the link takes it: what `enqueue` and `pass_on_handed_off` do, in the same order (the
    /// hand-off link schedules nothing), without the hand-off vector.
    #[inline(always)]
    fn hand_off_plainly(&mut self, link: usize, pkt: Packet) {
        self.hand_off_plainly_at(link, self.now, pkt);
    }

    /// `hand_off_plainly` for a packet reaching the link at `at` (now, or later for an ACK taken ahead).
    #[inline(always)]
    fn hand_off_plainly_at(&mut self, link: usize, at: SimTime, pkt: Packet) {
        if let Some((arrival, pkt)) = self.links[link].hand_off_plainly(at, pkt) {
            let next_link = self.enqueue_at_next_hop(link, arrival, at, pkt);
            self.pass_on_handed_off(next_link);
        }
    }

    /// An ACK of the flow in `acks_ahead` reaches the second link back at `reaches`, and nothing reads
    /// that link or what follows before then. The link takes it now, as of that time, if its events
    /// are then numbered as the packet-by-packet path numbers them: that path puts the ACK on the last
    /// link's line at `reaches`, and schedules its arrival there unless an ACK before it is still on
    /// that line then (its arrival schedules the next). Taken now, the ACK's arrival is scheduled in the
    /// same event, and so ordered alike against events due at the same nanosecond (a sender's timer), only
    /// if that line's last ACK arrives after `reaches`. Otherwise the ACK goes on the first link's line,
    /// as on the packet-by-packet path, and the ACKs after it wait until it has left that line.
    #[inline(always)]
    fn take_ack(&mut self, reaches: SimTime, mut ack: Packet) {
        let AcksAhead { first, second, end } = self.acks_ahead.expect("ACKs taken ahead");
        if self.links[first].line_is_empty() && self.links[end].line_tail_arrival().is_some_and(|t| t > reaches) {
            ack.hop += 1;
            self.hand_off_plainly_at(second, reaches, ack);
        } else {
            self.links[first].put_on_line(reaches, ack, &mut self.events, &mut self.lines);
        }
    }

    /// ACKs that waited (`waiting_acks`) go on, in order, while the first link's line is empty and they
    /// reach the second link before the next reading (or by `until`, the end of a step, whose reading
    /// follows every arrival due by it). Called after a reading and when that line empties.
    fn release_waiting_acks(&mut self, until: Option<SimTime>) {
        let Some(AcksAhead { first, .. }) = self.acks_ahead else { return };
        while let Some(&(reaches, _)) = self.waiting_acks.front() {
            if !self.links[first].line_is_empty() || !(reaches < self.read_horizon || until.is_some_and(|t| reaches <= t)) {
                break;
            }
            let (reaches, ack) = self.waiting_acks.pop_front().expect("an ACK waiting");
            self.take_ack(reaches, ack);
        }
    }

    /// `pkt`, just transmitted by hand-off link `from`, which took it at `entered`, enters its next hop,
    /// which it reaches at `arrival`; returns that link, whose own hand-offs the caller passes on (at
    /// once, or after its other packets).
    #[inline(always)]
    fn enqueue_at_next_hop(&mut self, from: usize, arrival: SimTime, entered: SimTime, mut pkt: Packet) -> usize {
        let next_link = self.routes.next_after(from, &pkt);
        let next_link = next_link.expect("a hand-off link is never the last hop") as usize;
        pkt.hop += 1;
        match self.takers[next_link] {
            Taker::Link => {
                self.links[next_link].enqueue(arrival, pkt, &mut self.events, &mut self.lines);
            }
            Taker::Receiver => self.receive_at_hand_off(next_link, arrival, entered, pkt),
            Taker::Sender => self.send_at_hand_off(next_link, arrival, pkt),
        }
        next_link
    }

    /// `pkt` enters the receiver's access link `link` at `arrival` (in the future). The link is plain and
    /// unbounded, so the packet's arrival at the receiver is known now: the receiver takes it at once, as
    /// of that arrival, and its ACK enters the first link back at that time. One event and one line pass
    /// fewer per data packet than putting it on the access link's line (docs/benchmarks.md, run 24).
    ///
    /// Its events are numbered as of that arrival (`EventQueue::work_as_of`), as the packet-by-packet path
    /// numbers them when the arrival fires (tie rule R). A lone flow's ACKs may go ahead over the reverse
    /// bottleneck too (`acks_ahead`); several flows' ACKs go on their line, marked where packet by packet
    /// their event would be scheduled later (`put_on_line_as_of`).
    #[inline(never)]
    fn receive_at_hand_off(&mut self, link: usize, arrival: SimTime, entered: SimTime, pkt: Packet) {
        let at = self.links[link].traverse_plainly(arrival, pkt.size);
        let previous = self.last_received;
        if self.marks_arrivals {
            self.last_received = Some(at);
        }
        let f = pkt.flow & SLOT_MASK;
        if at >= self.read_horizon && self.may_be_read_first(f, at) {
            let before_sample = self.marks_arrivals && self.arrival_before_sample(entered, at, previous);
            let next_due = self.first_sample_from(at);
            let flow = &mut self.flows[f as usize];
            flow.early.record(self.now, at, next_due, before_sample, flow.receiver.delivered(), flow.receiver.received());
        }
        let flow = &mut self.flows[f as usize];
        self.events.work_as_of(at);
        let acked = flow.receiver.take_data(at, &pkt);
        debug_assert!(flow.receiver.timer_deadline().is_none(), "a receiver with delayed ACKs is never ahead");
        let first = self.routes.first_hop(f, Direction::Reverse) as usize;
        // The ACK goes from the receiver to its next ring in registers (every call on its way is inlined:
        // `take_ack`, `put_on_line_as_of`), not through `out`: read back from there at once, in wider
        // pieces than the receiver wrote it, it waited for those writes to reach the cache, which was
        // 7-10 % of the time per packet (docs/benchmarks.md, runs 36 and 37).
        if acked {
            let ack = flow.receiver.ack();
            let reaches = self.links[first].traverse_plainly(at, ack.size);
            match self.acks_ahead {
                Some(_) if self.waiting_acks.is_empty() && self.links[first].line_is_empty() && reaches < self.read_horizon => {
                    self.take_ack(reaches, ack)
                }
                // Due after the next reading, or behind an ACK on the line (it reaches the next link by
                // its event, before this one) or waiting: in turn (`release_waiting_acks`).
                Some(_) => self.waiting_acks.push_back((reaches, ack)),
                None if self.several.is_off() => self.links[first].put_on_line(reaches, ack, &mut self.events, &mut self.lines),
                None => self.put_on_line_as_of(first, at, reaches, ack),
            }
        }
        self.events.work_now();
        self.pass_on_handed_off(first);
    }

    /// Whether a reading may find flow `f`'s packet arriving at `at` (at or after `read_horizon`) the
    /// first one not yet arrived, so that its receipt is needed (`receipts.rs`): the end of the step and
    /// the measurement's start may come at any time, samples only on their grid.
    #[inline(always)]
    fn may_be_read_first(&self, f: u32, at: SimTime) -> bool {
        at >= self.hard_horizon() || self.flows[f as usize].early.sample_due(at, self.next_sample.unwrap_or(SimTime::MAX))
    }

    /// The first sample time at or after `at` (`SimTime::MAX` if none is due): samples come every interval
    /// from `next_sample` on (`Event::Sample`).
    fn first_sample_from(&self, at: SimTime) -> SimTime {
        match self.next_sample {
            None => SimTime::MAX,
            Some(next) if at <= next => next,
            Some(next) => {
                let interval = self.sample_interval.0;
                let steps = (at.0 - next.0).div_ceil(interval);
                SimTime(next.0.saturating_add(steps.saturating_mul(interval)))
            }
        }
    }

    /// Packets a hand-off link just transmitted go to their next (unbounded, exclusive) hop now, with
    /// their future arrival time there. A next hop that hands off in turn (unbounded links in a row, as
    /// hosts' access lines over links can be) passes them on at once as well: left in its vector, they
    /// waited for an event that never came, and were lost, or passed on late into the past ("time went
    /// backwards"; found by tests/config_fuzz.rs).
    ///
    /// Called after every enqueue; most links keep a line and hand nothing off, so the test stays
    /// inline at the call site and only a hand-off link pays for the call (a call with this function's
    /// register saves was 2 % of the instructions per packet of seed 000's example).
    #[inline(always)]
    fn pass_on_handed_off(&mut self, link: usize) {
        if self.links[link].hands_off() {
            self.pass_on_handed_off_by(link);
        }
    }

    #[inline(never)]
    fn pass_on_handed_off_by(&mut self, link: usize) {
        // Nearly always one packet: the enqueue (or transmitter event) that just ran transmits at most
        // one. It goes on without the scratch vector's swap and drain, in the order the loop below
        // would give it.
        if let Some((arrival, pkt)) = self.links[link].take_single_handed_off() {
            let next_link = self.enqueue_at_next_hop(link, arrival, self.now, pkt);
            self.pass_on_handed_off(next_link);
            return;
        }
        self.links[link].take_handed_off(&mut self.handed);
        if self.handed.is_empty() {
            return;
        }
        let mut handed = std::mem::take(&mut self.handed);
        let mut onward: Option<usize> = None;
        for (arrival, pkt) in handed.drain(..) {
            let next_link = self.enqueue_at_next_hop(link, arrival, self.now, pkt);
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

    /// Put the ACKs a receiver just emitted on the first link back. Often there are none (delayed ACKs),
    /// so that test stays inline at the call site and only a non-empty batch pays for the call.
    #[inline(always)]
    fn inject_acks(&mut self, f: u32) {
        if !self.out.is_empty() {
            self.inject_emitted_acks(f);
        }
    }

    #[inline(never)]
    fn inject_emitted_acks(&mut self, f: u32) {
        let first = self.routes.first_hop(f, Direction::Reverse) as usize;
        let link = &mut self.links[first];
        // Copied out and cleared after, rather than drained: a drain's set-up and drop cost more than the
        // one or two packets an endpoint usually emits.
        for &pkt in &self.out {
            link.enqueue(self.now, pkt, &mut self.events, &mut self.lines);
        }
        self.out.clear();
        // A first hop may hand off (an unbounded access line before another): pass its packets on now.
        self.pass_on_handed_off(first);
    }

    /// Put the segments a sender just emitted on the first link of their path. Often there are none (a
    /// paced sender's ACKs mostly send nothing: its timer does), so that test stays inline at the call
    /// site and only a non-empty batch pays for the call.
    #[inline(always)]
    fn inject_sent(&mut self, f: u32) {
        if !self.sent.is_empty() {
            self.inject_emitted_segments(f);
        }
    }

    #[inline(never)]
    fn inject_emitted_segments(&mut self, f: u32) {
        let first = self.routes.first_hop(f, Direction::Forward) as usize;
        if let Some((ahead_from, second)) = self.data_ahead {
            if first == ahead_from {
                self.inject_ahead(f, first, second);
                return;
            }
        }
        let (sender, link) = (&self.flows[f as usize].sender, &mut self.links[first]);
        for &seg in &self.sent {
            link.enqueue(self.now, sender.packet(seg), &mut self.events, &mut self.lines);
        }
        self.sent.clear();
        self.pass_on_handed_off(first);
    }

    /// Flow `f`'s segments cross its plain access link `first` now, and the bottleneck `second` takes
    /// each packet as of its arrival there, or it waits for the reading due before that (`data_ahead`).
    /// Each packet is made here, in registers, and every call on its way to its receiver is inlined
    /// (`tcp/segment.rs`).
    ///
    /// Nothing on that way writes to `sent`: the lone flow's receiver sends its ACK in registers, and its
    /// sender takes ACKs only by the events of its access link (no `Taker::Sender` with one flow and no
    /// sources, `take_several_ahead`). So `sent` is read in place.
    fn inject_ahead(&mut self, f: u32, first: usize, second: usize) {
        let emitted = self.sent.len();
        for i in 0..emitted {
            debug_assert_eq!(self.sent.len(), emitted, "a sender ran while its segments were taken ahead");
            let mut pkt = self.flows[f as usize].sender.packet(self.sent[i]);
            let reaches = self.links[first].traverse_plainly(self.now, pkt.size);
            if self.waiting_data.is_empty() && reaches < self.read_horizon {
                pkt.hop += 1;
                self.hand_off_plainly_at(second, reaches, pkt);
            } else {
                self.waiting_data.push_back((reaches, pkt));
            }
        }
        self.sent.clear();
    }

    /// Data packets that waited for a reading (`waiting_data`) go on, in order: those that reach the
    /// bottleneck before the next reading (or by `until`, the end of a step).
    fn release_waiting_data(&mut self, until: Option<SimTime>) {
        let Some((_, second)) = self.data_ahead else { return };
        while let Some(&(reaches, _)) = self.waiting_data.front() {
            if !(reaches < self.read_horizon || until.is_some_and(|t| reaches <= t)) {
                break;
            }
            let (reaches, mut pkt) = self.waiting_data.pop_front().expect("a packet waiting");
            pkt.hop += 1;
            self.hand_off_plainly_at(second, reaches, pkt);
        }
    }

    /// After a reading, or at the end of a step (`until`): the ACKs, then the data packets that waited, then
    /// the several-flow senders' ACKs.
    fn release_waiting(&mut self, until: Option<SimTime>) {
        self.release_waiting_acks(until);
        self.release_waiting_data(until);
        self.drain_senders(until);
    }

    /// Lazy timers: one heap event per endpoint; a later deadline is picked up when the event fires. Most
    /// calls (after every ACK) find the event in the heap early enough, so that test stays inline at the
    /// call site and only a new event pays for the call.
    #[inline(always)]
    fn arm_sender_timer(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        if let Some(d) = flow.sender.timer_deadline() {
            if flow.sender_timer.map_or(true, |s| d < s) {
                // The event at the later deadline stays in the heap, superseded.
                if let Some(s) = flow.sender_timer.replace(d) {
                    self.note_superseded(f, s);
                }
                self.schedule_sender_timer(f, d);
            }
        }
    }

    #[inline(never)]
    fn schedule_sender_timer(&mut self, f: u32, d: SimTime) {
        let as_of = self.events.as_of().unwrap_or(self.now);
        if let Some(sender) = self.several.senders.get_mut(f as usize) {
            sender.timer_scheduled = sender.timer_scheduled_for(d, as_of);
        }
        self.events.schedule(d, Event::SenderTimer(f));
    }

    /// As `arm_sender_timer` (a receiver without delayed ACKs never has a deadline).
    #[inline(always)]
    fn arm_receiver_timer(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        if let Some(d) = flow.receiver.timer_deadline() {
            if flow.receiver_timer.map_or(true, |s| d < s) {
                flow.receiver_timer = Some(d);
                self.schedule_receiver_timer(f, d);
            }
        }
    }

    #[inline(never)]
    fn schedule_receiver_timer(&mut self, f: u32, d: SimTime) {
        self.events.schedule(d, Event::ReceiverTimer(f));
    }

    /// A transfer's last segment was acknowledged: record it in its group, and give a traffic source's
    /// connection slot back (its state stays until the slot is reused; nothing it sends is asked for).
    fn complete(&mut self, f: u32) {
        self.complete_at(f, self.now);
    }

    /// `complete` as of `now`: the ACK that ends the transfer taken ahead of its arrival (`sim/several_ahead.rs`).
    pub(super) fn complete_at(&mut self, f: u32, now: SimTime) {
        let payload = self.cfg.payload_size();
        let flow = &mut self.flows[f as usize];
        flow.life.completed_at = Some(now);
        let Some(g) = flow.group else { return };
        let stats = &mut self.groups[g as usize];
        stats.completed += 1;
        if now >= self.measure_from {
            stats.completion.record(now.since(flow.life.started_at.expect("a completed flow started")));
        }
        if let Some(k) = flow.source {
            stats.retired_bytes += delivered_bytes(flow, payload, now, Reading::AfterArrivals);
            flow.retired = true;
            self.sources[k as usize].free.push(f);
            if self.sources[k as usize].records {
                push_record(&mut self.records, flow, g, payload, now);
            }
        }
    }

    /// Records of the connections of sources with `records`: the completed ones, then those alive now.
    pub fn connection_records(&self) -> ConnectionRecords {
        let payload = self.cfg.payload_size();
        let mut records = self.records.clone();
        for flow in self.flows[self.static_flows..].iter().filter(|f| !f.retired) {
            if let (Some(k), Some(g)) = (flow.source, flow.group) {
                if self.sources[k as usize].records {
                    push_record(&mut records, flow, g, payload, self.now);
                }
            }
        }
        records
    }

    /// A traffic source's connection arrives: a flow of a drawn size, in a free slot of the source's (or a
    /// new one), sending its initial window now.
    fn open_connection(&mut self, k: usize) {
        let now = self.now;
        let t = &self.cfg.traffic[k];
        let source = &mut self.sources[k];
        let size = source.sizes.draw(&mut source.size_rng).max(1);
        let group = source.group;
        let slot = match source.free.pop() {
            Some(slot) => slot,
            None if self.flows.len() <= SLOT_MASK as usize => self.flows.len() as u32,
            None => {
                self.groups[group as usize].refused += 1;
                return;
            }
        };
        let mut cc = source.cc.make();
        let n = self.connections;
        self.connections += 1;
        cc.attach(FlowContext {
            packet_size: self.cfg.packet_size,
            rng: SimRng::new(self.cfg.run.seed, STREAM_FIRST_CONNECTION_CC + n),
        });
        let payload = self.cfg.payload_size();
        let tag = match self.flows.get(slot as usize) {
            // The next generation of the slot, in the bits above it (wrapping after 2^11).
            Some(old) => (old.tag.wrapping_add(1 << SLOT_BITS) & !SLOT_MASK) | slot,
            None => slot,
        };
        let segments = size.div_ceil(payload as u64);
        let sender = Sender::new(
            SenderConfig {
                flow: tag,
                packet_size: self.cfg.packet_size,
                recovery: t.flow.recovery,
                rto_min: SimDuration(t.flow.rto_min_ns),
                rwnd: t.flow.rwnd_packets,
                cwnd_clamp: t.flow.cwnd_clamp_packets,
                stop: None,
                segments: Some(segments),
                ecn: t.flow.ecn,
                // The times and RTTs are kept for the scenario's flows only (`loss_event_times`,
                // `rtt_histograms`).
                record_loss_events: false,
                rtt_histogram: false,
            },
            cc,
        );
        let pacing_rng = SimRng::new(self.cfg.run.seed, STREAM_FIRST_PACING + (1 << 31) + n);
        let sender = sender.with_frto(frto_config(&t.flow)).with_records_prefetched(true);
        let clock_rng = SimRng::new(self.cfg.run.seed, STREAM_FIRST_NS2_CLOCK + (1 << 31) + n);
        let sender = with_ns2_clock(sender, t.flow.recovery, clock_rng);
        let sender = with_pacing(sender, t.flow.pacing.as_ref(), pacing_rng);
        let mut life = Life::new(Some(size), None, payload);
        life.started_at = Some(now);
        let receiver = Receiver::new(tag, self.cfg.ack_size, t.flow.delayed_ack);
        let flow = Flow {
            sender,
            receiver,
            sender_timer: None,
            receiver_timer: None,
            life,
            tag,
            group: Some(group),
            source: Some(k as u32),
            retired: false,
            early: EarlyReceipts::default(),
        };
        match self.flows.get_mut(slot as usize) {
            // The slot was this source's before (its free list), so its route is already this one.
            Some(old) => *old = flow,
            None => {
                self.routes.push(&self.sources[k].route);
                self.flows.push(flow);
            }
        }
        self.groups[group as usize].created += 1;
        self.flows[slot as usize].sender.start(now, &mut self.sent);
        self.inject_sent(slot);
        self.arm_sender_timer(slot);
    }

    /// Payload bytes a group has had delivered: its ended connections' and its live flows'.
    fn group_bytes(&self, reading: Reading) -> Vec<u64> {
        let payload = self.cfg.payload_size();
        let mut bytes: Vec<u64> = self.groups.iter().map(|g| g.retired_bytes).collect();
        for flow in self.flows.iter().filter(|f| !f.retired) {
            if let Some(g) = flow.group {
                bytes[g as usize] += delivered_bytes(flow, payload, self.now, reading);
            }
        }
        bytes
    }

    fn take_snapshot(&mut self) -> Snapshot {
        for (g, bytes) in self.group_bytes(Reading::BeforeArrivals).into_iter().enumerate() {
            self.groups[g].bytes_at_measure = bytes;
            self.groups[g].completed_at_measure = self.groups[g].completed;
        }
        // The RTT histograms count the measurement window only, as the summary's mean_rtt_s does.
        for flow in &mut self.flows[..self.static_flows] {
            flow.sender.clear_rtt_histogram();
        }
        let flows = &self.flows[..self.static_flows];
        Snapshot {
            delivered: flows.iter().map(|f| f.receiver_counts(self.now, Reading::BeforeArrivals).0).collect(),
            senders: flows.iter().map(|f| f.sender.counters().clone()).collect(),
            links: self.reported.iter().map(|&l| self.links[l].counters(self.now)).collect(),
        }
    }

    fn sample(&mut self) {
        let t = self.now.as_secs_f64();
        for (i, flow) in self.flows[..self.static_flows].iter().enumerate() {
            let s = &mut self.flow_series;
            s.time_s.push(t);
            s.flow.push(i as u32);
            // A sender that took ACKs past this sample left its row as of the sample (`sender_rows.rs`).
            let kept = self.several.senders.get_mut(i).and_then(|sender| sender.rows.for_sample(self.now));
            let live = kept.is_none().then(|| SenderRow::read(&flow.sender, std::mem::take(&mut self.cc_scratch)));
            let row = kept.or(live.as_ref()).expect("a kept or a live row");
            row.push_fixed(s);
            s.delivered.push(flow.receiver_counts(self.now, Reading::Sample).0);
            row.push_cc(s);
            s.finish_row();
            if let Some(live) = live {
                self.cc_scratch = live.into_cc();
            }
        }
        let b = &self.links[self.bottleneck];
        self.queue_series.time_s.push(t);
        self.queue_series.queue_packets.push(b.queue_packets(self.now) as u64);
        self.queue_series.queue_bytes.push(b.queue_bytes(self.now));
        let counters = b.counters(self.now);
        self.queue_series.drops.push(counters.drops);
        self.queue_series.bytes_tx.push(counters.bytes_tx);
        for (k, &l) in self.reported.iter().enumerate() {
            let link = &self.links[l];
            let s = &mut self.link_series;
            s.time_s.push(t);
            s.link.push(k as u32);
            s.queue_packets.push(link.queue_packets(self.now) as u64);
            s.queue_bytes.push(link.queue_bytes(self.now));
            let counters = link.counters(self.now);
            s.drops.push(counters.drops);
            s.bytes_tx.push(counters.bytes_tx);
        }
    }

    /// Summary over the measurement window up to now.
    pub fn summary(&self) -> Summary {
        let zero = Snapshot {
            delivered: vec![0; self.static_flows],
            senders: vec![SenderCounters::default(); self.static_flows],
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
        let flows: Vec<FlowSummary> = self.flows[..self.static_flows]
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let c = f.sender.counters();
                let c0 = &snap.senders[i];
                let delivered = f.receiver_counts(self.now, Reading::AfterArrivals).0 - snap.delivered[i];
                let samples = c.rtt_samples - c0.rtt_samples;
                FlowSummary {
                    flow: i as u32,
                    cc: f.sender.cc().name().to_string(),
                    goodput_bps: per_sec(delivered, payload_bits),
                    delivered_bps: per_sec(delivered, wire_bits),
                    loss_events: c.loss_events - c0.loss_events,
                    timeouts: c.timeouts - c0.timeouts,
                    retransmissions: c.retransmissions - c0.retransmissions,
                    ecn_reductions: c.ecn_reductions - c0.ecn_reductions,
                    packets_sent: c.packets_sent - c0.packets_sent,
                    mean_rtt_s: (samples > 0).then(|| (c.rtt_sum_ns - c0.rtt_sum_ns) as f64 / samples as f64 * 1e-9),
                    final_cwnd: f.sender.cc().cwnd(),
                    life: f.life.reported.then(|| self.flow_life(f)),
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
        let group_bytes = self.group_bytes(Reading::AfterArrivals);
        let mut stopped = vec![0u64; self.groups.len()];
        for f in &self.flows[..self.static_flows] {
            let done = f.life.segments.is_none() && f.life.stop.is_some_and(|s| s <= self.now) && f.sender.packets_out() == 0;
            if let (Some(g), true) = (f.group, done) {
                stopped[g as usize] += 1;
            }
        }
        let groups = self
            .groups
            .iter()
            .zip(group_bytes)
            .zip(stopped)
            .map(|((g, bytes), stopped)| {
                let (bytes_before, completed_before) = match &self.snapshot {
                    Some(_) => (g.bytes_at_measure, g.completed_at_measure),
                    None => (0, 0),
                };
                let bytes = bytes - bytes_before;
                let goodput_bps = per_sec(bytes, 8);
                let seconds = |ns: Option<f64>| ns.map(|ns| ns * 1e-9);
                GroupSummary {
                    group: g.name.clone(),
                    flows_created: g.created,
                    flows_completed: g.completed,
                    flows_stopped: stopped,
                    flows_alive: g.created - g.completed - stopped,
                    flows_refused: g.refused,
                    bytes,
                    goodput_bps,
                    share_of_capacity: goodput_bps / g.capacity_bps.max(1) as f64,
                    completed_in_window: g.completed - completed_before,
                    completion_time_mean_s: seconds(g.completion.mean_ns()),
                    completion_time_p50_s: seconds(g.completion.quantile_ns(0.5)),
                    completion_time_p90_s: seconds(g.completion.quantile_ns(0.9)),
                    completion_time_p99_s: seconds(g.completion.quantile_ns(0.99)),
                }
            })
            .collect();
        Summary {
            measure_from_s: from.as_secs_f64(),
            duration_s: self.end.as_secs_f64(),
            now_s: self.now.as_secs_f64(),
            events: self.events.events_processed(),
            jain_index: jain_index(&goodputs),
            flows,
            bottleneck,
            links,
            groups,
        }
    }

    fn flow_life(&self, f: &Flow) -> FlowLife {
        let payload = self.cfg.payload_size() as u64;
        let delivered_bytes = f.receiver_counts(self.now, Reading::AfterArrivals).0 * payload;
        let started = f.life.started_at;
        // A flow that stops writing ends at its stop time; a transfer when its last byte is acknowledged.
        let stopped = f.life.stop.filter(|&stop| stop <= self.now && f.life.segments.is_none());
        FlowLife {
            group: f.group.map(|g| self.groups[g as usize].name.clone()),
            start_s: started.map_or(f64::NAN, |t| t.as_secs_f64()),
            end_s: f.life.completed_at.or(stopped).map(|t| t.as_secs_f64()),
            size_bytes: f.life.size_bytes,
            bytes: f.life.size_bytes.map_or(delivered_bytes, |size| delivered_bytes.min(size)),
            completion_time_s: f.life.completed_at.zip(started).map(|(end, start)| end.since(start).as_secs_f64()),
        }
    }

    pub fn flow_series(&self) -> &FlowSeries {
        &self.flow_series
    }
    /// Start times (ns) of every loss event of each scenario flow, whole run (not only the measurement
    /// window), in flow order; see `Sender::loss_event_times`. None unless `run.record_loss_events`.
    pub fn loss_event_times(&self) -> Option<Vec<&[u64]>> {
        if !self.cfg.run.record_loss_events {
            return None;
        }
        let flows = &self.flows[..self.static_flows];
        Some(flows.iter().map(|f| f.sender.loss_event_times().expect("scenario flows record with run.record_loss_events")).collect())
    }
    /// Every RTT measurement of each scenario flow over the measurement window, in flow order (the
    /// ACK-weighted distribution; see `Sender::rtt_histogram`). None unless `run.rtt_histogram`.
    pub fn rtt_histograms(&self) -> Option<Vec<&RttHistogram>> {
        if !self.cfg.run.rtt_histogram {
            return None;
        }
        let flows = &self.flows[..self.static_flows];
        Some(flows.iter().map(|f| f.sender.rtt_histogram().expect("scenario flows count with run.rtt_histogram")).collect())
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
    /// a receiver, data packets dropped, data packets still in the network). Exact only when every flow
    /// goes the same way (see below); `sent <= received + dropped + in_network` always holds.
    pub fn data_packet_census(&self) -> (u64, u64, u64, u64) {
        let sent = self.flows.iter().map(|f| f.sender.counters().packets_sent).sum();
        let received = self.flows.iter().map(|f| f.receiver_counts(self.now, Reading::AfterArrivals).1).sum();
        // Links on data routes; exact as long as no link carries both data and ACKs (true of the
        // dumbbell and of any network whose flows all go one way over duplex links). With flows in both
        // directions (`direction = reverse`, or routes that cross) a shared link's drops and queue count
        // ACKs too, so `dropped + in_network` is an upper bound and the equality is not checked.
        let slots = 0..self.flows.len() as u32;
        let mut forward_links: Vec<u32> = slots.flat_map(|f| self.routes.path(f, Direction::Forward).to_vec()).collect();
        forward_links.sort_unstable();
        forward_links.dedup();
        let (mut dropped, mut in_network) = (0, 0);
        for l in forward_links {
            let link = &self.links[l as usize];
            let c = link.counters(self.now);
            dropped += c.drops + c.error_drops;
            in_network += link.packets_held() as u64;
        }
        // Packets their receiver took ahead of time (`receive_at_hand_off`) are on no line until they arrive.
        in_network += self.flows.iter().map(|f| f.early.not_yet_arrived(self.now)).sum::<u64>();
        // Packets waiting to reach the bottleneck ahead of time (`inject_ahead`) are on no line either.
        in_network += self.waiting_data.len() as u64;
        (sent, received, dropped, in_network)
    }

    /// Congestion windows of all flows (for invariant checks).
    pub fn cwnds(&self) -> Vec<u32> {
        self.flows[..self.static_flows].iter().map(|f| f.sender.cc().cwnd()).collect()
    }

    /// Flow slots in memory: the scenario's flows plus the most traffic connections alive at once.
    pub fn flow_slots(&self) -> usize {
        self.flows.len()
    }

    /// Packets of an earlier connection dropped at an endpoint because their slot had been reused.
    pub fn stale_packets(&self) -> u64 {
        self.stale_packets
    }

    /// Names of the groups, in the order of the summary's `groups` (`ConnectionRecords::group` indexes it).
    pub fn group_names(&self) -> Vec<&str> {
        self.groups.iter().map(|g| g.name.as_str()).collect()
    }

    /// Traffic sources' connections alive now, counted by their slots (not by the groups' counters).
    pub fn connections_alive(&self) -> usize {
        self.flows[self.static_flows..].iter().filter(|f| !f.retired).count()
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
            .map(|f| {
                let (delivered, received) = f.receiver_counts(self.now, Reading::AfterArrivals);
                FlowProgress { packets_sent: f.sender.counters().packets_sent, new_packets_sent: f.sender.snd_nxt(), delivered, received }
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

fn push_record(records: &mut ConnectionRecords, flow: &Flow, group: u32, payload: u32, now: SimTime) {
    let secs = |t: Option<SimTime>| t.map_or(f64::NAN, |t| t.as_secs_f64());
    let life = &flow.life;
    records.group.push(group);
    records.start_s.push(secs(life.started_at));
    records.end_s.push(secs(life.completed_at));
    records.size_bytes.push(life.size_bytes.unwrap_or(0));
    records.bytes.push(delivered_bytes(flow, payload, now, Reading::AfterArrivals));
    records.completion_time_s.push(match (life.started_at, life.completed_at) {
        (Some(start), Some(end)) => end.since(start).as_secs_f64(),
        _ => f64::NAN,
    });
    records.retransmissions.push(flow.sender.counters().retransmissions);
    records.timeouts.push(flow.sender.counters().timeouts);
}

/// The flow's F-RTO, if it asks for one.
fn frto_config(f: &FlowConfig) -> Option<FrtoConfig> {
    f.frto.map(|variant| FrtoConfig { variant, response: f.frto_response })
}

/// ns-2 Agent/TCP draws its tick clock's phase once per agent (`boot_time_ = Random::uniform(tcp_tick_)`):
/// a sender with that timer (`ns2-sack1`) draws it here; the others draw nothing.
fn with_ns2_clock(sender: Sender, recovery: Recovery, mut rng: SimRng) -> Sender {
    match recovery.ns2_timer() {
        Some(agent @ Ns2Agent::Tcp) => sender.with_ns2_clock_phase(SimDuration(rng.up_to(agent.tick().0 - 1))),
        _ => sender,
    }
}

/// The sender with the flow's burst limit, if it has one.
fn with_pacing(sender: Sender, pacing: Option<&BurstPacingConfig>, rng: SimRng) -> Sender {
    match pacing {
        Some(p) => sender.with_burst_limit(BurstLimit::new(p.burst, SimDuration(p.gap_ns), SimDuration(p.jitter_ns), rng)),
        None => sender,
    }
}

/// Payload bytes delivered in order to a flow's receiver as of a reading at `now` (a transfer's last
/// segment counts its bytes only).
fn delivered_bytes(flow: &Flow, payload: u32, now: SimTime, reading: Reading) -> u64 {
    let bytes = flow.receiver_counts(now, reading).0 * payload as u64;
    flow.life.size_bytes.map_or(bytes, |size| bytes.min(size))
}

/// The index of group `name`, added with `capacity_bps` when first named.
fn group_index(groups: &mut Vec<GroupStats>, name: &str, capacity_bps: u64) -> u32 {
    match groups.iter().position(|g| g.name == name) {
        Some(g) => g as u32,
        None => {
            groups.push(GroupStats { name: name.to_string(), capacity_bps, ..GroupStats::default() });
            groups.len() as u32 - 1
        }
    }
}

/// The rate of the slowest link on a path (a varying link's mean), bit/s.
fn path_capacity(links: &[Link], path: &[u32]) -> u64 {
    path.iter().map(|&l| links[l as usize].mean_rate_bps()).min().unwrap_or(0)
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
        // A one-step schedule rather than `Capacity::Constant`, so the link keeps its models and reports
        // the drawn rate as its rate.
        Some(RateModelConfig::Drawn { rate_bps }) => {
            let drawn = rate_bps.draw(&mut stream(STREAM_FIRST_DRAWN_RATE)).max(1);
            Some(Capacity::Schedule(RateSchedule::new(vec![(SimTime::ZERO, Rate::from_bps(drawn))]).expect("one step at 0")))
        }
        Some(bearer @ RateModelConfig::Bearer { .. }) => {
            let params = bearer.bearer_params().and_then(Bearer::new);
            Some(Capacity::Bearer(params.map_err(|m| err(link_field(cfg, id, "rate.bearer"), m))?))
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
    if let Some(o) = &models.outages {
        let outages = OutageProcess::new(o.gap_ns.clone(), o.duration_ns.clone(), stream(STREAM_FIRST_OUTAGES))
            .map_err(|m| err(link_field(cfg, id, "outages"), m))?;
        link = link.with_outages(outages);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_has_a_successor_when_every_route_through_it_agrees() {
        // Two flows over one bottleneck each way (links 0 forward, 1 reverse), each with its own access
        // links: flow 0 2 -> 0 -> 3 and back 4 -> 1 -> 5, flow 1 6 -> 0 -> 7 and back 8 -> 1 -> 9. Link
        // 10 is on no route.
        let routes = [[vec![2, 0, 3], vec![4, 1, 5]], [vec![6, 0, 7], vec![8, 1, 9]]];
        let r = Routes::with_successors(11, &routes);
        use Successor::*;
        // The senders' access links lead to the bottleneck; the bottleneck to each flow's own link.
        assert_eq!(r.after[2], Link(0));
        assert_eq!(r.after[6], Link(0));
        assert_eq!(r.after[8], Link(1));
        assert_eq!(r.after[0], ByRoute);
        assert_eq!(r.after[1], ByRoute);
        // Last hops reach the endpoints; an unused link reads the route (never asked).
        for l in [3, 5, 7, 9] {
            assert_eq!(r.after[l], Endpoint);
        }
        assert_eq!(r.after[10], ByRoute);
    }

    #[test]
    fn a_link_last_on_one_route_and_not_on_another_reads_the_route() {
        // Link 1 ends flow 0's route but leads to link 2 on flow 1's.
        let routes = [[vec![0, 1], vec![3]], [vec![1, 2], vec![3]]];
        let r = Routes::with_successors(4, &routes);
        assert_eq!(r.after[1], Successor::ByRoute);
        assert_eq!(r.after[0], Successor::Link(1));
        assert_eq!(r.after[3], Successor::Endpoint);
    }
}
