//! CoDel, Controlled Delay (Nichols, Jacobson, McGregor, Iyengar, RFC 8289, January 2018).
//!
//! CoDel looks at the sojourn time of each packet it dequeues (now minus its enqueue time, kept beside
//! the packet by `TimedFifo`). Once the sojourn time has stayed at or above `target` for a whole
//! `interval`, it enters the dropping state and drops (or ECN-marks) one packet at the head, then the
//! next ones at the times of the control law (RFC 8289 section 5, pseudocode):
//!
//!   drop_next = t + interval / sqrt(count)
//!
//! with `count` the drops of this dropping state, so the drop rate grows as sqrt(count) until the sojourn
//! time falls below `target` again. On entering the dropping state again soon after leaving it (within
//! 16 intervals of the last scheduled drop), `count` restarts at the drops of the last cycle,
//! count - lastcount, when that exceeds 1, else at 1 (RFC 8289 section 5, "the Linux version").
//!
//! A sojourn time above target does not count while at most `maxpacket` bytes remain waiting after the
//! packet leaves: a queue of one MTU-sized packet is not a standing queue on a link so slow that one
//! packet takes more than `target` to send (RFC 8289 section 5, `bytes() <= maxpacket`).
//!
//! Deviations and choices:
//! - The control law is computed in f64 from integers, interval_ns / sqrt(count), truncated to whole ns.
//!   IEEE 754 makes sqrt and division correctly rounded, so the result is the same on every machine.
//!   Linux instead keeps 1/sqrt(count) in 16-bit fixed point updated by one Newton step per drop, whose
//!   drop times differ from the exact ones by up to a few parts in 10^4 of the interval.
//! - `now - drop_next` in the re-entry rule saturates at 0 when drop_next is in the future, which is how
//!   Linux's signed comparison reads it (the RFC's unsigned subtraction would wrap).
//! - Entering the dropping state needs now >= first_above_time, as in the RFC (Linux: now > it).
//! - ECN (`ecn = true`): an ECN-capable packet is marked CE instead of dropped at each drop time, and
//!   the marked packet is delivered; count and drop_next advance as for a drop (Linux `codel_dequeue`).
//! - Overflow of the hard `size` limit drops the arrival, as DropTail does.
//!
//! The state machine (`CodelState`) takes packets from any `CodelSource`, so FQ-CoDel runs one per flow
//! queue over the same code.

use super::registry::{Discipline, DisciplineInfo, QueueLimits};
use super::timed_fifo::TimedFifo;
use super::{mark_ce, LinkInfo, Queue, QueueCounters};
use crate::cc::registry::ParamDoc;
use crate::config::{err, ConfigError};
use crate::net::packet::Packet;
use crate::time::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodelConfig {
    /// Acceptable standing sojourn time, ns. RFC 8289 section 4.3: 5 ms.
    pub target_ns: u64,
    /// Time the sojourn time must stay above target before the first drop, and the base of the control
    /// law, ns: about a worst-case RTT. RFC 8289 section 4.2: 100 ms.
    pub interval_ns: u64,
    /// The `maxpacket` rule: no drop while at most this many bytes wait after the dequeued packet.
    /// null: the scenario's packet size (the MTU on the wire). RFC 8289 section 5's constants say it
    /// SHOULD be the interface MTU; Linux uses the device MTU plus link header (1514 on Ethernet).
    pub maxpacket_bytes: Option<u32>,
    /// Mark ECN-capable packets CE instead of dropping them. Default false (Linux `codel`: off).
    pub ecn: bool,
}

impl Default for CodelConfig {
    fn default() -> Self {
        CodelConfig { target_ns: 5_000_000, interval_ns: 100_000_000, maxpacket_bytes: None, ecn: false }
    }
}

/// Range checks shared with FQ-CoDel.
pub(crate) fn validate_codel(field: &str, target_ns: u64, interval_ns: u64, maxpacket_bytes: Option<u32>) -> Result<(), ConfigError> {
    if target_ns == 0 {
        return Err(err(format!("{field}.target_ns"), "must be above 0"));
    }
    if interval_ns < target_ns {
        return Err(err(format!("{field}.interval_ns"), format!("must be at least target_ns ({target_ns})")));
    }
    if maxpacket_bytes == Some(0) {
        return Err(err(format!("{field}.maxpacket_bytes"), "must be above 0, or null for the packet size"));
    }
    Ok(())
}

const CODEL_PARAMS: &[ParamDoc] = &[
    ParamDoc { name: "target_ns", doc: "acceptable standing sojourn time, ns, > 0 (RFC 8289: 5 ms)" },
    ParamDoc { name: "interval_ns", doc: "sojourn above target this long before the first drop; control law interval/sqrt(count), ns, >= target_ns (RFC 8289: 100 ms)" },
    ParamDoc { name: "maxpacket_bytes", doc: "no drop while at most this many bytes wait (RFC 8289 maxpacket = MTU); null = the scenario's packet size" },
    ParamDoc { name: "ecn", doc: "mark ECN-capable packets CE instead of dropping them (false)" },
];

impl Discipline for CodelConfig {
    const INFO: DisciplineInfo = DisciplineInfo {
        name: "codel",
        summary: "CoDel: drop at dequeue once the sojourn time stays above target for an interval, then at interval/sqrt(count) (RFC 8289)",
        default_variant: "rfc8289",
        variants: &[("rfc8289", "RFC 8289 section 5 pseudocode: target 5 ms, interval 100 ms, maxpacket = the packet size, exact sqrt")],
        params: CODEL_PARAMS,
    };
    fn variant(name: &str) -> Option<Self> {
        (name == "rfc8289").then(CodelConfig::default)
    }
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        validate_codel(field, self.target_ns, self.interval_ns, self.maxpacket_bytes)
    }
    fn build(self, limits: QueueLimits, link: LinkInfo) -> Box<dyn Queue> {
        let params = CodelParams::new(self.target_ns, self.interval_ns, self.maxpacket_bytes.unwrap_or(link.packet_size), self.ecn);
        Box::new(Codel::new(params, limits))
    }
}

/// CoDel's parameters as the state machine uses them.
#[derive(Copy, Clone, Debug)]
pub struct CodelParams {
    pub target: SimDuration,
    pub interval: SimDuration,
    pub maxpacket_bytes: u64,
    pub ecn: bool,
}

impl CodelParams {
    pub fn new(target_ns: u64, interval_ns: u64, maxpacket_bytes: u32, ecn: bool) -> Self {
        CodelParams { target: SimDuration(target_ns), interval: SimDuration(interval_ns), maxpacket_bytes: maxpacket_bytes as u64, ecn }
    }
}

/// Where the state machine takes its packets from: a FIFO that knows enqueue times.
pub trait CodelSource {
    /// Remove the head packet, with its enqueue time.
    fn pop(&mut self) -> Option<(Packet, SimTime)>;
    /// Bytes still waiting after the last pop, for the `maxpacket` rule (RFC 8289's `bytes()`).
    fn backlog_bytes(&self) -> u64;
}

impl CodelSource for TimedFifo {
    fn pop(&mut self) -> Option<(Packet, SimTime)> {
        TimedFifo::pop(self)
    }
    fn backlog_bytes(&self) -> u64 {
        self.bytes()
    }
}

/// The control law, RFC 8289 section 5: t + interval / sqrt(count), in whole ns (f64 sqrt and division,
/// correctly rounded under IEEE 754, then truncated).
fn control_law(t: SimTime, interval: SimDuration, count: u32) -> SimTime {
    t + SimDuration((interval.0 as f64 / (count.max(1) as f64).sqrt()) as u64)
}

/// CoDel's state variables (RFC 8289 section 5) and its dequeue.
#[derive(Clone, Debug, Default)]
pub struct CodelState {
    /// When the sojourn time will have been above target for an interval (None: it is below target;
    /// the RFC's 0).
    first_above_time: Option<SimTime>,
    /// Time of the next drop while dropping.
    drop_next: SimTime,
    /// Drops (and marks) since entering the dropping state, as restarted by the re-entry rule.
    count: u32,
    /// `count` when the dropping state was last entered.
    lastcount: u32,
    dropping: bool,
    /// Sojourn time of the last packet examined, for tracing.
    last_sojourn: SimDuration,
}

impl CodelState {
    /// RFC 8289 `dodequeue`: take the head packet and say whether the sojourn time has been above target
    /// for at least an interval.
    fn take(&mut self, now: SimTime, params: &CodelParams, source: &mut impl CodelSource) -> (Option<Packet>, bool) {
        let Some((pkt, enqueued_at)) = source.pop() else {
            self.first_above_time = None;
            return (None, false);
        };
        self.last_sojourn = now.since(enqueued_at);
        if self.last_sojourn < params.target || source.backlog_bytes() <= params.maxpacket_bytes {
            self.first_above_time = None;
            return (Some(pkt), false);
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + params.interval);
                (Some(pkt), false)
            }
            Some(t) => (Some(pkt), now >= t),
        }
    }

    /// RFC 8289 `dequeue`: the next packet to send, after the drops due at `now`. Dropped packets are
    /// discarded here and counted in `counters.early_drops`, marks in `counters.ecn_marks`.
    pub fn dequeue(&mut self, now: SimTime, params: &CodelParams, source: &mut impl CodelSource, counters: &mut QueueCounters) -> Option<Packet> {
        let (mut pkt, ok_to_drop) = self.take(now, params, source);
        if self.dropping {
            if !ok_to_drop {
                self.dropping = false;
            }
            // A large backlog may call for several drops at once: the loop.
            while self.dropping && now >= self.drop_next {
                let mut head = pkt.take().expect("ok_to_drop implies a packet");
                self.count += 1;
                if params.ecn && mark_ce(&mut head) {
                    counters.ecn_marks += 1;
                    self.drop_next = control_law(self.drop_next, params.interval, self.count);
                    return Some(head);
                }
                counters.early_drops += 1;
                let (next, ok) = self.take(now, params, source);
                pkt = next;
                if ok {
                    self.drop_next = control_law(self.drop_next, params.interval, self.count);
                } else {
                    self.dropping = false;
                }
            }
        } else if ok_to_drop {
            let mut head = pkt.take().expect("ok_to_drop implies a packet");
            if params.ecn && mark_ce(&mut head) {
                counters.ecn_marks += 1;
                pkt = Some(head);
            } else {
                counters.early_drops += 1;
                pkt = self.take(now, params, source).0;
            }
            self.dropping = true;
            // Re-entering soon after the last cycle: resume near the drop rate that controlled it.
            let delta = self.count.saturating_sub(self.lastcount);
            let recent = now.since(self.drop_next) < params.interval.saturating_mul(16);
            self.count = if delta > 1 && recent { delta } else { 1 };
            self.drop_next = control_law(now, params.interval, self.count);
            self.lastcount = self.count;
        }
        pkt
    }

    pub fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("sojourn_ns", self.last_sojourn.0 as f64));
        out.push(("dropping", if self.dropping { 1.0 } else { 0.0 }));
        out.push(("count", self.count as f64));
        out.push(("drop_next_ns", self.drop_next.0 as f64));
    }
}

/// A single CoDel queue in front of the link.
pub struct Codel {
    fifo: TimedFifo,
    state: CodelState,
    params: CodelParams,
    /// Packets in the router, the one on the wire included (ns-2 `queue-limit`, as DropTail).
    limit_packets: usize,
    /// Bytes waiting.
    limit_bytes: Option<u64>,
    counters: QueueCounters,
}

impl Codel {
    pub fn new(params: CodelParams, limits: QueueLimits) -> Self {
        Codel { fifo: TimedFifo::new(), state: CodelState::default(), params, limit_packets: limits.packets, limit_bytes: limits.bytes, counters: QueueCounters::default() }
    }
}

impl Queue for Codel {
    fn enqueue(&mut self, now: SimTime, pkt: Packet) -> Result<(), Packet> {
        let over_bytes = self.limit_bytes.is_some_and(|b| self.fifo.bytes() + pkt.size as u64 > b);
        if self.fifo.len() + 1 >= self.limit_packets || over_bytes {
            self.counters.overflow_drops += 1;
            return Err(pkt);
        }
        self.fifo.push(now, pkt);
        Ok(())
    }
    fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        self.state.dequeue(now, &self.params, &mut self.fifo, &mut self.counters)
    }
    fn len_packets(&self) -> usize {
        self.fifo.len()
    }
    fn len_bytes(&self) -> u64 {
        self.fifo.bytes()
    }
    fn counters(&self) -> QueueCounters {
        self.counters
    }
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        self.state.state(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::test_packets::{data_packet, seq_of};
    use crate::net::packet::Ecn;

    const MS: u64 = 1_000_000;

    fn pkt(seq: u64, size: u32, ecn: Ecn) -> Packet {
        Packet { ecn, ..data_packet(seq, size) }
    }


    fn codel(ecn: bool) -> Codel {
        Codel::new(CodelParams::new(5 * MS, 100 * MS, 1500, ecn), QueueLimits { packets: 10_000, bytes: None })
    }

    fn state_of(q: &Codel, name: &str) -> f64 {
        let mut out = vec![];
        q.state(&mut out);
        out.iter().find(|(n, _)| *n == name).unwrap().1
    }

    /// One 1500-byte packet arrives every ms from t = 0 (seq = arrival ms), and one dequeue happens every
    /// ms from `first_dequeue_ms` on, the arrival of the same instant first. Returns, for each dequeue
    /// that dropped or marked, (time ms, drop_next ns after it, count after it).
    fn standing_queue(q: &mut Codel, first_dequeue_ms: u64, until_ms: u64, ecn: Ecn) -> Vec<(u64, u64, u32)> {
        let mut events = vec![];
        for t in 0..=until_ms {
            q.enqueue(SimTime(t * MS), pkt(t, 1500, ecn)).unwrap();
            if t >= first_dequeue_ms {
                let before = q.counters();
                q.dequeue(SimTime(t * MS)).unwrap();
                if q.counters() != before {
                    events.push((t, state_of(q, "drop_next_ns") as u64, state_of(q, "count") as u32));
                }
            }
        }
        events
    }

    #[test]
    fn standing_queue_is_dropped_at_interval_over_sqrt_count() {
        // 21 packets wait when dequeuing starts at 20 ms, so each packet's sojourn is 20 ms (> 5 ms target)
        // and 30000 bytes stay behind (> 1500 maxpacket). Each drop removes one packet, so the sojourn
        // falls by 1 ms per drop: 20, 19, 18, 17, 16 ms, always above target.
        //   20 ms: first dequeue above target: first_above_time = 20 + 100 = 120 ms.
        //   120 ms: now >= first_above_time: drop 1 (seq 100), count = 1, drop_next = 120 + 100/1 = 220 ms.
        //   220 ms: drop 2, count 2, drop_next = 220 + 100/sqrt 2 = 220 + 70.710678 = 290.710678 ms.
        //   291 ms (first dequeue at or after 290.71): drop 3, count 3,
        //           drop_next = 290.710678 + 100/sqrt 3 = 290.710678 + 57.735026 = 348.445704 ms.
        //   349 ms: drop 4, count 4, drop_next = 348.445704 + 100/2 = 398.445704 ms.
        // (The law advances drop_next from its previous value, not from the dequeue time.)
        let mut q = codel(false);
        let drops = standing_queue(&mut q, 20, 360, Ecn::NotEct);
        assert_eq!(drops, vec![(120, 220_000_000, 1), (220, 290_710_678, 2), (291, 348_445_704, 3), (349, 398_445_704, 4)]);
        assert_eq!(q.counters().early_drops, 4);
        assert_eq!(state_of(&q, "dropping"), 1.0);
    }

    #[test]
    fn the_dropped_packet_is_the_head_and_the_next_one_is_sent() {
        // At 120 ms the head is seq 100 (sojourn 20 ms): it is dropped and seq 101 is sent instead.
        let mut q = codel(false);
        standing_queue(&mut q, 20, 119, Ecn::NotEct);
        q.enqueue(SimTime(120 * MS), pkt(120, 1500, Ecn::NotEct)).unwrap();
        assert_eq!(q.dequeue(SimTime(120 * MS)).map(|p| seq_of(&p)), Some(101));
        assert_eq!(q.counters().early_drops, 1);
    }

    #[test]
    fn ecn_capable_packets_are_marked_on_the_same_schedule() {
        // Same standing queue with ECT packets: marks instead of drops. A marked packet is sent, so the
        // queue does not shrink and the sojourn stays 20 ms; the schedule is the same (120, 220, 291, 349).
        let mut q = codel(true);
        let marks = standing_queue(&mut q, 20, 360, Ecn::Ect);
        assert_eq!(marks, vec![(120, 220_000_000, 1), (220, 290_710_678, 2), (291, 348_445_704, 3), (349, 398_445_704, 4)]);
        assert_eq!(q.counters(), QueueCounters { overflow_drops: 0, early_drops: 0, ecn_marks: 4 });
        // With ecn on, a packet that is not ECN-capable is still dropped.
        let mut q = codel(true);
        assert_eq!(standing_queue(&mut q, 20, 130, Ecn::NotEct).len(), 1);
        assert_eq!(q.counters().early_drops, 1);
    }

    #[test]
    fn no_drop_while_sojourn_is_below_target() {
        // Dequeuing from 4 ms on: every sojourn is 4 ms < 5 ms, for 2 s (20 intervals).
        let mut q = codel(false);
        assert!(standing_queue(&mut q, 4, 2000, Ecn::NotEct).is_empty());
        assert_eq!(q.counters().early_drops, 0);
    }

    #[test]
    fn no_drop_while_one_mtu_or_less_waits() {
        // Every 50 ms a packet arrives and one leaves, one packet staying behind: each sojourn is 50 ms
        // (10 x target), but 1500 bytes <= maxpacket remain after each dequeue. No drop in 2 s.
        let mut q = codel(false);
        q.enqueue(SimTime(0), pkt(0, 1500, Ecn::NotEct)).unwrap();
        for k in 1..=40 {
            let t = SimTime(k * 50 * MS);
            q.enqueue(t, pkt(k, 1500, Ecn::NotEct)).unwrap();
            assert_eq!(q.dequeue(t).map(|p| seq_of(&p)), Some(k - 1));
        }
        assert_eq!(q.counters().early_drops, 0);
        // One byte more behind the head (a 1-byte packet added) and the rule no longer holds: the next
        // dequeue at 2050 ms sets first_above_time = 2150 ms, and the one at 2150 ms drops.
        q.enqueue(SimTime(2000 * MS), pkt(99, 1, Ecn::NotEct)).unwrap();
        for k in 41..=43 {
            let t = SimTime(k * 50 * MS);
            q.enqueue(t, pkt(k, 1500, Ecn::NotEct)).unwrap();
            q.dequeue(t);
        }
        assert_eq!(q.counters().early_drops, 1);
    }

    #[test]
    fn reentering_soon_resumes_at_the_last_cycles_drop_count() {
        // The standing queue of the first test up to 349 ms: 4 drops, count = 4, lastcount = 1,
        // drop_next = 398.445704 ms. At 350 ms the queue is drained at once; the head's sojourn falls
        // below 5 ms before it empties, which ends the dropping state.
        let mut q = codel(false);
        standing_queue(&mut q, 20, 349, Ecn::NotEct);
        while state_of(&q, "dropping") == 1.0 {
            q.dequeue(SimTime(350 * MS)).unwrap();
        }
        while q.dequeue(SimTime(350 * MS)).is_some() {}
        // 30 packets arrive at 370 ms; from 400 ms on, one arrives and one leaves every ms, so every
        // sojourn is 30 ms: first_above_time = 400 + 100 = 500 ms, and the drop at 500 ms re-enters.
        // delta = count - lastcount = 4 - 1 = 3 > 1, and 500 - 398.4 ms < 16 intervals, so count = 3 and
        // drop_next = 500 ms + 100/sqrt 3 = 500 + 57.735026 ms.
        for k in 0..30 {
            q.enqueue(SimTime(370 * MS), pkt(1000 + k, 1500, Ecn::NotEct)).unwrap();
        }
        let drops_before = q.counters().early_drops;
        for t in 400..=500 {
            q.enqueue(SimTime(t * MS), pkt(t, 1500, Ecn::NotEct)).unwrap();
            q.dequeue(SimTime(t * MS)).unwrap();
            if t < 500 {
                assert_eq!(q.counters().early_drops, drops_before, "no drop before 500 ms (t = {t})");
            }
        }
        assert_eq!(q.counters().early_drops, drops_before + 1);
        assert_eq!(state_of(&q, "count"), 3.0);
        assert_eq!(state_of(&q, "drop_next_ns"), (500 * MS + 57_735_026) as f64);
    }

    #[test]
    fn reentering_after_sixteen_intervals_restarts_at_one() {
        // As above, but the second episode starts 2 s later: 2100 - 398.4 ms > 1.6 s, so count = 1 and
        // drop_next = entry + 100 ms.
        let mut q = codel(false);
        standing_queue(&mut q, 20, 349, Ecn::NotEct);
        while q.dequeue(SimTime(350 * MS)).is_some() {}
        for k in 0..30 {
            q.enqueue(SimTime(1970 * MS), pkt(1000 + k, 1500, Ecn::NotEct)).unwrap();
        }
        for t in 2000..=2100 {
            q.enqueue(SimTime(t * MS), pkt(t, 1500, Ecn::NotEct)).unwrap();
            q.dequeue(SimTime(t * MS)).unwrap();
        }
        assert_eq!(q.counters().early_drops, 5);
        assert_eq!(state_of(&q, "count"), 1.0);
        assert_eq!(state_of(&q, "drop_next_ns"), (2200 * MS) as f64);
    }

    #[test]
    fn overflow_drops_the_arrival_like_droptail() {
        // Limit 3 with a packet on the wire: two may wait.
        let mut q = Codel::new(CodelParams::new(5 * MS, 100 * MS, 1500, false), QueueLimits { packets: 3, bytes: None });
        assert!(q.enqueue(SimTime(0), pkt(1, 1500, Ecn::NotEct)).is_ok());
        assert!(q.enqueue(SimTime(0), pkt(2, 1500, Ecn::NotEct)).is_ok());
        assert!(q.enqueue(SimTime(0), pkt(3, 1500, Ecn::NotEct)).is_err());
        assert_eq!(q.counters(), QueueCounters { overflow_drops: 1, early_drops: 0, ecn_marks: 0 });
        assert_eq!((q.len_packets(), q.len_bytes()), (2, 3000));
    }

    #[test]
    fn control_law_values() {
        // 100 ms / sqrt(n): n = 1: 100 ms; 2: 70.7106781 ms; 4: 50 ms; 100: 10 ms.
        let i = SimDuration(100 * MS);
        assert_eq!(control_law(SimTime(0), i, 1), SimTime(100_000_000));
        assert_eq!(control_law(SimTime(0), i, 2), SimTime(70_710_678));
        assert_eq!(control_law(SimTime(7), i, 4), SimTime(50_000_007));
        assert_eq!(control_law(SimTime(0), i, 100), SimTime(10_000_000));
    }
}
