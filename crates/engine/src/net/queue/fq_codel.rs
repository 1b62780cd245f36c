//! FQ-CoDel, Flow Queue CoDel (Hoeiland-Joergensen, McKenney, Taht, Gettys, Dumazet, RFC 8290,
//! January 2018).
//!
//! Packets are classified into `flows` queues, each with its own CoDel state (the state machine of
//! `codel.rs`, one `CodelState` per queue). A deficit round robin scheduler serves the queues (RFC 8290
//! section 4, enqueue and dequeue):
//! - a queue that becomes active joins the tail of the *new* list with a deficit of one `quantum`;
//! - dequeue serves the head of the new list, else of the old list. A queue whose deficit is spent
//!   (<= 0) gets another quantum and moves to the tail of the old list; a served packet's size is taken
//!   from its queue's deficit. So a sparse flow, which empties its queue within one quantum, is served
//!   ahead of the backlogged ones;
//! - a queue that CoDel leaves empty moves from the new list to the tail of the old list (if the old
//!   list has queues; this forces a pass through the old list, against starvation) or leaves the lists.
//!
//! Overflow (section 4, enqueue): the arrival is added first; while the hard `size` limit is exceeded,
//! packets are dropped from the head of the queue with the largest byte backlog (lowest index on ties).
//! `drop_batch` sets how many at once: 1 drops a single packet (the default, RFC 8290's rule in its
//! plain form); Linux drops up to 64 (`drop_batch_size`), stopping once half of that queue's bytes are
//! gone. These drops count as overflow drops. The arrival itself is refused only when it is what the
//! rule drops (its queue is the fattest and holds only it).
//!
//! Choices, stated:
//! - Classification. No hash: queue = (flow + dir * floor(flows / 2)) mod flows, dir = 0 for data
//!   (forward) and 1 for ACKs (reverse). Flow ids are dense from 0, so on a link that carries one
//!   direction no two flows share a queue until there are more flows than queues (then modulo), and on
//!   a link carrying both directions none do while there are fewer than flows/2 of each.
//! - Quantum: `quantum_bytes`, null = the scenario's packet size on the wire: one MTU. Linux uses the
//!   interface MTU plus link header, 1514 bytes on Ethernet (the `linux` preset).
//! - The `maxpacket` rule of each queue's CoDel compares the whole FQ-CoDel backlog with one MTU, as
//!   Linux does (`codel_dequeue` is given the qdisc's backlog), not the flow queue's own backlog.
//! - ECN: with `ecn = true`, CoDel marks ECN-capable packets CE instead of dropping them. Overflow
//!   always drops.

use super::codel::{validate_codel, CodelParams, CodelSource, CodelState};
use super::registry::{Discipline, DisciplineInfo, QueueLimits};
use super::timed_fifo::TimedFifo;
use super::{LinkInfo, Queue, QueueCounters};
use crate::cc::registry::ParamDoc;
use crate::config::{err, ConfigError};
use crate::net::packet::{Direction, Packet};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FqCodelConfig {
    /// CoDel target of each flow queue, ns. RFC 8290 and Linux: 5 ms.
    pub target_ns: u64,
    /// CoDel interval of each flow queue, ns. RFC 8290 and Linux: 100 ms.
    pub interval_ns: u64,
    /// CoDel's `maxpacket`, compared with the total backlog; null = the scenario's packet size.
    pub maxpacket_bytes: Option<u32>,
    /// Mark ECN-capable packets CE instead of dropping them (CoDel drops only; overflow always drops).
    /// Default false here; Linux `fq_codel` turns it on by default.
    pub ecn: bool,
    /// Number of flow queues. RFC 8290 and Linux (tc-fq_codel(8)): 1024.
    pub flows: u32,
    /// Bytes a queue may send per round; null = the scenario's packet size. Linux: 1514.
    pub quantum_bytes: Option<u32>,
    /// Most packets dropped from the fattest queue per overflow (stopping early once half its bytes are
    /// gone). 1 = the RFC's single drop; Linux `drop_batch_size` 64.
    pub drop_batch: u32,
}

impl Discipline for FqCodelConfig {
    const INFO: DisciplineInfo = DisciplineInfo {
        name: "fq_codel",
        summary: "FQ-CoDel: per-flow queues served by deficit round robin with new-flow priority, CoDel in each queue (RFC 8290)",
        default_variant: "rfc8290",
        variants: &[
            ("rfc8290", "RFC 8290: 1024 queues, CoDel 5 ms / 100 ms, quantum and maxpacket = the packet size, one packet dropped from the fattest queue on overflow"),
            ("linux", "Linux sch_fq_codel defaults: quantum and maxpacket 1514 bytes, drop_batch_size 64 (at most half the fattest queue's bytes); ecn left off"),
        ],
        params: FQ_CODEL_PARAMS,
    };
    fn variant(name: &str) -> Option<Self> {
        let rfc = FqCodelConfig { target_ns: 5_000_000, interval_ns: 100_000_000, maxpacket_bytes: None, ecn: false, flows: 1024, quantum_bytes: None, drop_batch: 1 };
        match name {
            "rfc8290" => Some(rfc),
            "linux" => Some(FqCodelConfig { maxpacket_bytes: Some(1514), quantum_bytes: Some(1514), drop_batch: 64, ..rfc }),
            _ => None,
        }
    }
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        validate_codel(field, self.target_ns, self.interval_ns, self.maxpacket_bytes)?;
        if self.flows == 0 || self.flows > 65_536 {
            return Err(err(format!("{field}.flows"), "must be in [1, 65536]"));
        }
        if self.quantum_bytes == Some(0) {
            return Err(err(format!("{field}.quantum_bytes"), "must be above 0, or null for the packet size"));
        }
        if self.drop_batch == 0 {
            return Err(err(format!("{field}.drop_batch"), "must be at least 1"));
        }
        Ok(())
    }
    fn build(self, limits: QueueLimits, link: LinkInfo) -> Box<dyn Queue> {
        let codel = CodelParams::new(self.target_ns, self.interval_ns, self.maxpacket_bytes.unwrap_or(link.packet_size), self.ecn);
        Box::new(FqCodel::new(codel, self.flows, self.quantum_bytes.unwrap_or(link.packet_size), self.drop_batch, limits))
    }
}

const FQ_CODEL_PARAMS: &[ParamDoc] = &[
    ParamDoc { name: "target_ns", doc: "CoDel target of each flow queue, ns, > 0 (RFC 8290: 5 ms)" },
    ParamDoc { name: "interval_ns", doc: "CoDel interval of each flow queue, ns, >= target_ns (RFC 8290: 100 ms)" },
    ParamDoc { name: "maxpacket_bytes", doc: "no CoDel drop while at most this many bytes wait in all queues together (Linux); null = the scenario's packet size" },
    ParamDoc { name: "ecn", doc: "CoDel marks ECN-capable packets CE instead of dropping them (false; Linux true)" },
    ParamDoc { name: "flows", doc: "number of flow queues, 1..65536 (1024); queue = (flow + dir * flows/2) mod flows" },
    ParamDoc { name: "quantum_bytes", doc: "deficit added per round, bytes; null = the scenario's packet size (linux 1514)" },
    ParamDoc { name: "drop_batch", doc: "most packets dropped from the fattest queue per overflow, stopping at half its bytes, >= 1 (rfc8290 1, linux 64)" },
];

/// Which scheduling list a flow queue is on (RFC 8290 section 4).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum List {
    None,
    New,
    Old,
}

struct FlowQueue {
    fifo: TimedFifo,
    codel: CodelState,
    /// Bytes this queue may still send in this round; may go negative by less than one packet.
    deficit: i64,
    list: List,
}

/// One flow queue seen by its CoDel state machine, keeping the totals of the whole FQ-CoDel in step; the
/// `maxpacket` rule sees the total backlog.
struct FlowSource<'a> {
    fifo: &'a mut TimedFifo,
    total_packets: &'a mut usize,
    total_bytes: &'a mut u64,
}

impl CodelSource for FlowSource<'_> {
    fn pop(&mut self) -> Option<(Packet, SimTime)> {
        let (pkt, at) = self.fifo.pop()?;
        *self.total_packets -= 1;
        *self.total_bytes -= pkt.size as u64;
        Some((pkt, at))
    }
    fn backlog_bytes(&self) -> u64 {
        *self.total_bytes
    }
}

pub struct FqCodel {
    queues: Vec<FlowQueue>,
    new_flows: VecDeque<usize>,
    old_flows: VecDeque<usize>,
    codel: CodelParams,
    quantum: i64,
    drop_batch: u32,
    /// Packets in the router, the one on the wire included (ns-2 `queue-limit`, as DropTail).
    limit_packets: usize,
    /// Bytes waiting.
    limit_bytes: Option<u64>,
    total_packets: usize,
    total_bytes: u64,
    counters: QueueCounters,
}

impl FqCodel {
    pub fn new(codel: CodelParams, flows: u32, quantum_bytes: u32, drop_batch: u32, limits: QueueLimits) -> Self {
        let queues = (0..flows.max(1)).map(|_| FlowQueue { fifo: TimedFifo::new(), codel: CodelState::default(), deficit: 0, list: List::None }).collect();
        FqCodel {
            queues,
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            codel,
            quantum: quantum_bytes as i64,
            drop_batch: drop_batch.max(1),
            limit_packets: limits.packets,
            limit_bytes: limits.bytes,
            total_packets: 0,
            total_bytes: 0,
            counters: QueueCounters::default(),
        }
    }

    /// The queue of a packet: (flow + dir * floor(n / 2)) mod n (see the module comment).
    fn queue_of(&self, pkt: &Packet) -> usize {
        let n = self.queues.len() as u64;
        let dir = match pkt.dir {
            Direction::Forward => 0,
            Direction::Reverse => 1,
        };
        ((pkt.flow as u64 + dir * (n / 2)) % n) as usize
    }

    fn over_limit(&self) -> bool {
        self.total_packets >= self.limit_packets || self.limit_bytes.is_some_and(|b| self.total_bytes > b)
    }

    /// Drop from the head of the queue with the most bytes (RFC 8290 section 4), up to `drop_batch`
    /// packets or until half of its bytes are gone. Returns the arrival if it was the packet dropped.
    fn drop_from_fattest(&mut self, arrival_queue: usize) -> Option<Packet> {
        // Most bytes, lowest index on ties; packet count second, so that an empty queue is never chosen.
        let backlog = |q: &FlowQueue| (q.fifo.bytes(), q.fifo.len());
        let mut fattest = 0;
        for (i, q) in self.queues.iter().enumerate() {
            if backlog(q) > backlog(&self.queues[fattest]) {
                fattest = i;
            }
        }
        let half = self.queues[fattest].fifo.bytes() / 2;
        let mut dropped_bytes = 0;
        for _ in 0..self.drop_batch {
            let Some((pkt, _)) = self.queues[fattest].fifo.pop() else { break };
            self.total_packets -= 1;
            self.total_bytes -= pkt.size as u64;
            self.counters.overflow_drops += 1;
            // The arrival is its queue's tail: the pop that empties that queue took it.
            if fattest == arrival_queue && self.queues[fattest].fifo.is_empty() {
                return Some(pkt);
            }
            dropped_bytes += pkt.size as u64;
            if dropped_bytes >= half {
                break;
            }
        }
        None
    }
}

impl Queue for FqCodel {
    fn enqueue(&mut self, now: SimTime, pkt: Packet) -> Result<(), Packet> {
        let index = self.queue_of(&pkt);
        self.total_packets += 1;
        self.total_bytes += pkt.size as u64;
        let q = &mut self.queues[index];
        q.fifo.push(now, pkt);
        if q.list == List::None {
            q.list = List::New;
            q.deficit = self.quantum;
            self.new_flows.push_back(index);
        }
        while self.over_limit() {
            if let Some(arrival) = self.drop_from_fattest(index) {
                return Err(arrival);
            }
        }
        Ok(())
    }

    fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        let FqCodel { queues, new_flows, old_flows, codel, quantum, total_packets, total_bytes, counters, .. } = self;
        loop {
            let (index, from_new) = match (new_flows.front(), old_flows.front()) {
                (Some(&i), _) => (i, true),
                (None, Some(&i)) => (i, false),
                (None, None) => return None,
            };
            let q = &mut queues[index];
            if q.deficit <= 0 {
                q.deficit += *quantum;
                if from_new { new_flows.pop_front() } else { old_flows.pop_front() };
                old_flows.push_back(index);
                q.list = List::Old;
                continue;
            }
            let mut source = FlowSource { fifo: &mut q.fifo, total_packets, total_bytes };
            match q.codel.dequeue(now, codel, &mut source, counters) {
                Some(pkt) => {
                    q.deficit -= pkt.size as i64;
                    return Some(pkt);
                }
                None => {
                    if from_new { new_flows.pop_front() } else { old_flows.pop_front() };
                    if from_new && !old_flows.is_empty() {
                        old_flows.push_back(index);
                        q.list = List::Old;
                    } else {
                        q.list = List::None;
                    }
                }
            }
        }
    }

    fn len_packets(&self) -> usize {
        self.total_packets
    }
    fn len_bytes(&self) -> u64 {
        self.total_bytes
    }
    fn counters(&self) -> QueueCounters {
        self.counters
    }
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("new_flows", self.new_flows.len() as f64));
        out.push(("old_flows", self.old_flows.len() as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::test_packets::{data_packet, seq_of};

    const MS: u64 = 1_000_000;

    fn pkt(flow: u32, seq: u64, size: u32) -> Packet {
        Packet { flow, ..data_packet(seq, size) }
    }

    fn id(p: &Packet) -> (u32, u64) {
        (p.flow, seq_of(p))
    }

    /// CoDel at 5 ms / 100 ms, maxpacket and quantum 1500 bytes, 1024 queues, single drops.
    fn fq(limit_packets: usize) -> FqCodel {
        FqCodel::new(CodelParams::new(5 * MS, 100 * MS, 1500, false), 1024, 1500, 1, QueueLimits { packets: limit_packets, bytes: None })
    }

    #[test]
    fn a_sparse_flows_packet_goes_before_a_backlogged_flows() {
        // Flow 1 has 10 packets; one is sent (deficit 1500 - 1500 = 0). Flow 2's single packet arrives
        // and joins the new list behind flow 1. Next dequeue: flow 1's deficit is spent, so it gets
        // +1500 and moves to the old list; flow 2, at the head of the new list, is served.
        let mut q = fq(1000);
        for s in 0..10 {
            q.enqueue(SimTime(0), pkt(1, s, 1500)).unwrap();
        }
        assert_eq!(q.dequeue(SimTime(0)).map(|p| id(&p)), Some((1, 0)));
        q.enqueue(SimTime(0), pkt(2, 0, 1500)).unwrap();
        assert_eq!(q.dequeue(SimTime(0)).map(|p| id(&p)), Some((2, 0)));
        // Flow 2's deficit is spent: +1500 and to the old list's tail, behind flow 1, which is served.
        assert_eq!(q.dequeue(SimTime(0)).map(|p| id(&p)), Some((1, 1)));
        let mut state = vec![];
        q.state(&mut state);
        assert_eq!(state, vec![("new_flows", 0.0), ("old_flows", 2.0)]);
        // Flow 2 is found empty on its turn and leaves the lists; the rest of flow 1 follows in order.
        let rest: Vec<_> = std::iter::from_fn(|| q.dequeue(SimTime(0))).map(|p| id(&p)).collect();
        assert_eq!(rest, (2..10).map(|s| (1, s)).collect::<Vec<_>>());
        state.clear();
        q.state(&mut state);
        assert_eq!(state, vec![("new_flows", 0.0), ("old_flows", 0.0)]);
    }

    #[test]
    fn deficit_round_robin_serves_equal_bytes_with_different_packet_sizes() {
        // Flow 1 sends 1500-byte packets; flow 2 alternates 400 and 700 bytes. Quantum 1500. Both queue
        // at t = 0 (sojourn 0: CoDel stays out of it), flow 1 first.
        //   d1: new [1, 2]: flow 1 (deficit 1500) sends 1500 -> 0.
        //   d2: flow 1 spent: +1500, to old. Flow 2 (1500) sends 400 -> 1100.  d3: 700 -> 400.  d4: 400 -> 0.
        //   d5: flow 2 spent: +1500, to old [1, 2]; flow 1 sends 1500 -> 0.
        //   d6: flow 1 spent: +1500, old [2, 1]; flow 2 sends 700 -> 800.  d7: 400 -> 400.  d8: 700 -> -300.
        //   d9: flow 2: +1500 = 1200, old [1, 2]; flow 1 sends 1500.
        // Bytes after 8 dequeues: flow 1 3000, flow 2 400+700+400+700+400+700 = 3300.
        let mut q = fq(100_000);
        for s in 0..3000 {
            q.enqueue(SimTime(0), pkt(1, s, 1500)).unwrap();
        }
        for s in 0..6000 {
            q.enqueue(SimTime(0), pkt(2, s, if s % 2 == 0 { 400 } else { 700 })).unwrap();
        }
        let order: Vec<u32> = (0..9).map(|_| q.dequeue(SimTime(0)).unwrap().flow).collect();
        assert_eq!(order, vec![1, 2, 2, 2, 1, 2, 2, 2, 1]);
        // From d9 on, each round serves flow 1 then flow 2, a quantum each. After round j flow 1 has sent
        // j x 1500 bytes and flow 2 between j x 1500 and j x 1500 + 700 (its deficit overdraws by less than
        // a packet), so the byte counts never differ by more than one quantum, 1500.
        let mut bytes = [0u64; 3];
        bytes[1] = 3000 + 1500;
        bytes[2] = 3300;
        for _ in 0..4000 {
            let p = q.dequeue(SimTime(0)).unwrap();
            bytes[p.flow as usize] += p.size as u64;
            assert!(bytes[1].abs_diff(bytes[2]) <= 1500, "{bytes:?}");
        }
        assert!(bytes[1] > 1_000_000 && bytes[2] > 1_000_000, "{bytes:?}");
        assert_eq!(q.counters(), QueueCounters::default());
    }

    #[test]
    fn overflow_drops_the_head_of_the_queue_with_most_bytes() {
        // Limit 7: six packets may wait. Flow 1 holds 4 x 100 B = 400 B, flow 2 holds 2 x 1500 B = 3000 B.
        // Flow 3's arrival makes seven: the fattest queue by bytes is flow 2's (fewer packets, more
        // bytes), so its head (2, 0) is dropped and the arrival stays.
        let mut q = fq(7);
        for s in 0..4 {
            q.enqueue(SimTime(0), pkt(1, s, 100)).unwrap();
        }
        for s in 0..2 {
            q.enqueue(SimTime(0), pkt(2, s, 1500)).unwrap();
        }
        assert!(q.enqueue(SimTime(0), pkt(3, 0, 40)).is_ok());
        assert_eq!(q.counters().overflow_drops, 1);
        assert_eq!((q.len_packets(), q.len_bytes()), (6, 400 + 1500 + 40));
        let mut left: Vec<_> = std::iter::from_fn(|| q.dequeue(SimTime(0))).map(|p| id(&p)).collect();
        left.sort();
        assert_eq!(left, vec![(1, 0), (1, 1), (1, 2), (1, 3), (2, 1), (3, 0)]);
    }

    #[test]
    fn the_arrival_is_refused_when_its_queue_is_the_fattest_and_holds_only_it() {
        // Limit 3: two may wait. Flows 1 and 2 hold 100 B each; flow 3's 1500 B arrival is the fattest
        // queue on its own, so it is what the rule drops.
        let mut q = fq(3);
        q.enqueue(SimTime(0), pkt(1, 0, 100)).unwrap();
        q.enqueue(SimTime(0), pkt(2, 0, 100)).unwrap();
        assert_eq!(q.enqueue(SimTime(0), pkt(3, 0, 1500)), Err(pkt(3, 0, 1500)));
        assert_eq!(q.counters().overflow_drops, 1);
        assert_eq!(q.len_packets(), 2);
    }

    #[test]
    fn a_batch_drop_stops_at_half_the_fattest_queues_bytes() {
        // drop_batch 64, limit 11: ten may wait. Flow 1 holds 10 x 1000 B; flow 2's arrival is the
        // eleventh. Half of flow 1's 10000 B is 5000 B: five packets go, (1, 0) to (1, 4).
        let mut q = FqCodel::new(CodelParams::new(5 * MS, 100 * MS, 1500, false), 1024, 1500, 64, QueueLimits { packets: 11, bytes: None });
        for s in 0..10 {
            q.enqueue(SimTime(0), pkt(1, s, 1000)).unwrap();
        }
        q.enqueue(SimTime(0), pkt(2, 0, 1000)).unwrap();
        assert_eq!(q.counters().overflow_drops, 5);
        assert_eq!(q.len_packets(), 6);
        assert_eq!(q.dequeue(SimTime(0)).map(|p| id(&p)), Some((1, 5)));
    }

    #[test]
    fn flows_map_to_distinct_queues_until_there_are_more_flows_than_queues() {
        let q = fq(10);
        let mut ack = pkt(0, 0, 40);
        ack.dir = Direction::Reverse;
        // 1024 queues: forward flow f -> f, reverse flow f -> (f + 512) mod 1024.
        assert_eq!(q.queue_of(&pkt(0, 0, 1500)), 0);
        assert_eq!(q.queue_of(&pkt(1023, 0, 1500)), 1023);
        assert_eq!(q.queue_of(&pkt(1024, 0, 1500)), 0);
        assert_eq!(q.queue_of(&ack), 512);
        ack.flow = 600;
        assert_eq!(q.queue_of(&ack), 88);
        let distinct: std::collections::HashSet<usize> = (0..1024).map(|f| q.queue_of(&pkt(f, 0, 1500))).collect();
        assert_eq!(distinct.len(), 1024);
    }

    #[test]
    fn codel_acts_per_flow_queue() {
        // Flow 1 keeps a standing queue of 20 ms (one 1500 B arrival and one dequeue per ms, from 20 ms);
        // flow 2 sends one packet every 10 ms from 25 ms, with an extra dequeue at those instants. Flow
        // 2's queue is idle when its packet comes (it is found empty and leaves the lists in between), so
        // the packet joins the new list and goes first, with sojourn 0: CoDel never drops it. Flow 1's
        // CoDel sees 20 ms sojourns from 20 ms on and drops 100 ms later, at 120 ms (codel.rs's worked
        // schedule).
        let mut q = fq(10_000);
        let mut first_drop = None;
        for t in 0..=200u64 {
            q.enqueue(SimTime(t * MS), pkt(1, t, 1500)).unwrap();
            let sparse = t >= 25 && t % 10 == 5;
            if sparse {
                q.enqueue(SimTime(t * MS), pkt(2, t, 1500)).unwrap();
            }
            if t >= 20 {
                let first = q.dequeue(SimTime(t * MS)).unwrap();
                if sparse {
                    assert_eq!(id(&first), (2, t), "flow 2 served first at {t} ms");
                    assert_eq!(q.dequeue(SimTime(t * MS)).unwrap().flow, 1);
                }
            }
            if first_drop.is_none() && q.counters().early_drops > 0 {
                first_drop = Some(t);
            }
        }
        assert_eq!(first_drop, Some(120));
    }
}
