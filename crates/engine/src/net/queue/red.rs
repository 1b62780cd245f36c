//! RED, Random Early Detection (Floyd & Jacobson 1993), as ns-2.35's `Queue/RED` implements it
//! (queue/red.cc rev 1.90; defaults from tcl/lib/ns-default.tcl), since the studies we reproduce ran ns-2.
//! Adaptive RED's max_p controller lives in `ared.rs`; this file is the RED core.
//!
//! On each arrival (red.cc `enque`, `estimator`, `drop_early`, `calculate_p_new`, `modify_p`):
//! 1. Average: avg <- (1 - w_q)^(m+1) avg + w_q q, with q the queue the arrival finds (the packet on the
//!    wire excluded), in packets, or in bytes with `queue_in_bytes`. m = floor(ptc x idle time) stands for
//!    the packets the link could have sent while it sat idle, ptc = rate / (8 mean_packet_size) being the
//!    link's capacity in mean-sized packets per second, so the average decays through idle periods.
//! 2. Adaptive RED moves max_p (ared.rs).
//! 3. No early drop while avg < min_th or while at most 1 packet waits (red.cc tests `qlen > 1`, which in
//!    `queue_in_bytes` mode is 1 byte). The first arrival that finds avg above min_th only restarts the
//!    count. Otherwise, with `count` the arrivals since the last drop or mark:
//!    p_b = max_p (avg - min_th) / (max_th - min_th) below max_th; above it p_b rises linearly from max_p
//!    to 1 at 2 max_th (`gentle`), or is 1;
//!    p_a = 0 while count p_b < 1, p_b / (2 - count p_b) up to count p_b = 2, then 1 (`wait`: drops fall
//!    uniformly between 1/p_b and 2/p_b arrivals apart), or p_b / (1 - count p_b) (Floyd & Jacobson's
//!    rule, without `wait`). In `byte_mode` count is in mean packets (bytes / mean size, integer
//!    division) and p_a < 1 is scaled by size / mean size.
//!    The arrival is dropped with probability p_a; it is marked CE instead when `ecn` is on, it is
//!    ECN-capable, and (with `use_mark_p`) p_b <= mark_p.
//!    Without `use_mark_p`, avg beyond max_th (2 max_th when gentle) drops every arrival outright.
//! 4. Hard limit: the arrival is dropped when what waits already reaches the limit, q >= qlim: qlim
//!    packets may wait besides the one on the wire, one more than DropTail allows for the same `size`
//!    (drop-tail.cc refuses at length + 1 >= qlim). In `queue_in_bytes` mode qlim is `size` x
//!    mean_packet_size bytes (ns-2 `qlim_ * mean_pktsize_`: with ns-2's 500 and 1500-byte packets, a third
//!    as many packets as `size`), or the scenario's byte size when given.
//!
//! Automatic settings (red.cc `initialize_params`, when the queue learns its link): min_th 0 means
//! max(5, target_delay ptc / 2) mean packets, max_th 0 means 3 min_th; w_q -1 means
//! 1 - exp(-1 / (10 RTT ptc)) with RTT = max(100 ms, 3 (link delay + 1/ptc)), 0 means 1 - exp(-1/ptc),
//! -2 means 1 - exp(-10/ptc). Thresholds are in mean packets, scaled to bytes in `queue_in_bytes` mode.
//! All of these use mean_packet_size, whose ns-2 default is 500 bytes: with 1500-byte packets ptc is three
//! times the real packet rate, so w_q is three times smaller per packet and thresholds in packets three
//! times larger than the Floyd-Gummadi-Shenker recipe intends (in bytes they are the same). The `ns2`
//! variants keep it, for fidelity with the studies; `ared`'s `floyd2001` uses the scenario's packet size.
//!
//! Not implemented: `drop_front_`/`drop_rand_` (the refused packet is always the arrival, ns-2's default
//! `drop_tail_`), `cautious_`, `feng_adaptive_`, `doubleq_`, `idle_pktsize_` (only used by cautious 3).

use super::ared::MaxPAdapter;
use super::registry::{Discipline, DisciplineInfo, QueueLimits};
use super::{LinkInfo, Queue, QueueCounters};
use crate::cc::registry::ParamDoc;
use crate::config::{err, ConfigError};
use crate::net::packet::{Ecn, Packet};
use crate::rng::SimRng;
use crate::time::{Rate, SimTime};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// RED's parameters. Names follow ns-2's `Queue/RED` where they can (ns-2 name in each comment);
/// durations are in ns. Presets: `ns2` here, `ns2` and `floyd2001` in `ared.rs`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedConfig {
    /// Minimum threshold of the average, in mean packets (x mean_packet_size bytes in `queue_in_bytes`
    /// mode); 0: automatic (`thresh_`).
    pub min_th: f64,
    /// Maximum threshold, same unit; 0: 3 x min_th (`maxthresh_`).
    pub max_th: f64,
    /// Drop probability at max_th, in (0, 1] (1 / `linterm_`); adaptive RED's starting value.
    pub max_p: f64,
    /// EWMA weight in (0, 1], or automatic: -1, 0, -2 (`q_weight_`; see the module comment).
    pub w_q: f64,
    /// Queueing delay the automatic min_th aims at, ns (`targetdelay_`).
    pub target_delay_ns: u64,
    /// Mean packet size in bytes behind ptc, byte thresholds and byte mode; 0: the scenario's packet size
    /// (`mean_pktsize_`).
    pub mean_packet_size_bytes: u32,
    /// Average, thresholds and hard limit in bytes rather than packets (`queue_in_bytes_`).
    pub queue_in_bytes: bool,
    /// Drop probability proportional to packet size, count in mean packets (`bytes_`).
    pub byte_mode: bool,
    /// Uniform spacing of drops between 1/p_b and 2/p_b arrivals (`wait_`).
    pub wait: bool,
    /// Probability from max_p to 1 between max_th and 2 max_th, rather than 1 beyond max_th (`gentle_`).
    pub gentle: bool,
    /// Mark ECN-capable packets CE instead of dropping them early (`setbit_`).
    pub ecn: bool,
    /// Mark only while p_b <= mark_p (drop above), and no outright drop beyond max_th (`use_mark_p_`).
    pub use_mark_p: bool,
    /// See use_mark_p (`mark_p_`).
    pub mark_p: f64,
    /// Adapt max_p toward a target band of the average (`adaptive_`; ared.rs).
    pub adaptive: bool,
    /// Adaptive: additive increase of max_p, capped at max_p / 4 (`alpha_`).
    pub alpha: f64,
    /// Adaptive: multiplicative decrease of max_p (`beta_`).
    pub beta: f64,
    /// Adaptive: least time between two changes of max_p, ns (`interval_`).
    pub interval_ns: u64,
    /// Adaptive: max_p is not raised once at or above this (`top_`).
    pub top: f64,
    /// Adaptive: max_p is not lowered once at or below this; 0: min(0.01, 80000 / rate in bit/s)
    /// (`bottom_`).
    pub bottom: f64,
    /// The gentle slope starts at the current (adapted) max_p; false: at the initial max_p, as ns-2.35
    /// computes its coefficients once at reset.
    pub gentle_follows_max_p: bool,
}

impl RedConfig {
    /// ns-2.35 `Queue/RED` defaults (tcl/lib/ns-default.tcl), checked with Debian's ns 2.35.
    pub fn ns2() -> Self {
        RedConfig {
            min_th: 0.0,
            max_th: 0.0,
            max_p: 0.1,
            w_q: -1.0,
            target_delay_ns: 5_000_000,
            mean_packet_size_bytes: 500,
            queue_in_bytes: true,
            byte_mode: true,
            wait: true,
            gentle: true,
            ecn: false,
            use_mark_p: true,
            mark_p: 0.1,
            adaptive: false,
            alpha: 0.01,
            beta: 0.9,
            interval_ns: 500_000_000,
            top: 0.5,
            bottom: 0.0,
            gentle_follows_max_p: false,
        }
    }

    pub(super) fn check(&self, field: &str) -> Result<(), ConfigError> {
        let bad = |name: &str, msg: &str| Err(err(format!("{field}.{name}"), msg));
        if !(self.min_th >= 0.0 && self.min_th.is_finite()) {
            return bad("min_th", "must be >= 0 (0: automatic from target_delay_ns)");
        }
        if !(self.max_th >= 0.0 && self.max_th.is_finite()) {
            return bad("max_th", "must be >= 0 (0: 3 x min_th)");
        }
        if self.max_th > 0.0 && self.min_th == 0.0 {
            return bad("max_th", "needs min_th too: an automatic min_th could exceed it");
        }
        if self.max_th > 0.0 && self.min_th >= self.max_th {
            return bad("max_th", "must be above min_th");
        }
        if !(self.max_p > 0.0 && self.max_p <= 1.0) {
            return bad("max_p", "must be in (0, 1]");
        }
        if !((self.w_q > 0.0 && self.w_q <= 1.0) || [0.0, -1.0, -2.0].contains(&self.w_q)) {
            return bad("w_q", "must be in (0, 1], or -1, 0, -2 for an automatic weight");
        }
        if self.min_th == 0.0 && self.target_delay_ns == 0 {
            return bad("target_delay_ns", "must be above 0 when min_th is automatic");
        }
        if !(0.0..=1.0).contains(&self.mark_p) {
            return bad("mark_p", "must be in [0, 1]");
        }
        if !(self.alpha > 0.0 && self.alpha <= 1.0) {
            return bad("alpha", "must be in (0, 1]");
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return bad("beta", "must be in (0, 1)");
        }
        if self.interval_ns == 0 {
            return bad("interval_ns", "must be above 0");
        }
        if !(self.top > 0.0 && self.top <= 1.0) {
            return bad("top", "must be in (0, 1]");
        }
        if !(self.bottom >= 0.0 && self.bottom < self.top) {
            return bad("bottom", "must be in [0, top) (0: automatic)");
        }
        Ok(())
    }
}

/// Parameter docs shared by `red` and `ared`.
pub(super) const PARAMS: &[ParamDoc] = &[
    ParamDoc { name: "min_th", doc: "minimum threshold of the average queue, mean packets (x mean_packet_size_bytes in queue_in_bytes mode); 0: max(5, target_delay x ptc / 2) (ns-2 thresh_, default 0)" },
    ParamDoc { name: "max_th", doc: "maximum threshold, same unit; 0: 3 x min_th (maxthresh_, default 0)" },
    ParamDoc { name: "max_p", doc: "drop probability at max_th, (0, 1]; adaptive RED's starting value (1/linterm_, default 0.1)" },
    ParamDoc { name: "w_q", doc: "EWMA weight in (0, 1]; -1: 1 - exp(-1/(10 RTT ptc)), RTT = max(0.1 s, 3 (link delay + 1/ptc)) (ns-2 default); 0: 1 - exp(-1/ptc) (Floyd et al. 2001); -2: 1 - exp(-10/ptc) (q_weight_)" },
    ParamDoc { name: "target_delay_ns", doc: "queueing delay the automatic min_th aims at, ns (targetdelay_, default 5 ms)" },
    ParamDoc { name: "mean_packet_size_bytes", doc: "mean packet size behind ptc = rate / (8 x size), byte thresholds, byte limit and byte mode; 0: the scenario's packet size (mean_pktsize_, ns-2 default 500)" },
    ParamDoc { name: "queue_in_bytes", doc: "average, thresholds and hard limit in bytes; the limit is then size x mean_packet_size_bytes (queue_in_bytes_, default true)" },
    ParamDoc { name: "byte_mode", doc: "drop probability scaled by packet size / mean size, count in mean packets (bytes_, default true)" },
    ParamDoc { name: "wait", doc: "drops spaced uniformly between 1/p_b and 2/p_b arrivals: p_a = p_b / (2 - count p_b) (wait_, default true)" },
    ParamDoc { name: "gentle", doc: "probability from max_p to 1 between max_th and 2 max_th instead of 1 beyond max_th (gentle_, default true)" },
    ParamDoc { name: "ecn", doc: "mark ECN-capable packets CE instead of dropping them early (setbit_, default false)" },
    ParamDoc { name: "use_mark_p", doc: "mark only while p_b <= mark_p, drop above; no outright drop beyond max_th (use_mark_p_, default true)" },
    ParamDoc { name: "mark_p", doc: "see use_mark_p (mark_p_, default 0.1)" },
    ParamDoc { name: "adaptive", doc: "adapt max_p every interval toward the band min_th + [0.4, 0.6] (max_th - min_th) (adaptive_; red false, ared true)" },
    ParamDoc { name: "alpha", doc: "adaptive: max_p += min(alpha, max_p / 4) when the average is above the band (alpha_, default 0.01)" },
    ParamDoc { name: "beta", doc: "adaptive: max_p *= beta when the average is below the band (beta_, default 0.9)" },
    ParamDoc { name: "interval_ns", doc: "adaptive: least time between two changes of max_p, ns; checked at arrivals (interval_, default 0.5 s)" },
    ParamDoc { name: "top", doc: "adaptive: max_p is raised only while below top (top_, default 0.5)" },
    ParamDoc { name: "bottom", doc: "adaptive: max_p is lowered only while above bottom; 0: min(0.01, 80000 / rate in bit/s) (bottom_, ns-2 default 0; seed 003 uses 0.001)" },
    ParamDoc { name: "gentle_follows_max_p", doc: "the gentle slope starts at the adapted max_p; false: at the initial max_p, as ns-2.35 (default false)" },
];

impl Discipline for RedConfig {
    const INFO: DisciplineInfo = DisciplineInfo {
        name: "red",
        summary: "Random Early Detection: drops (or ECN-marks) arrivals with a probability growing with the average queue",
        default_variant: "ns2",
        variants: &[(
            "ns2",
            "ns-2.35 Queue/RED defaults (queue/red.cc, ns-default.tcl): automatic thresholds for a 5 ms target \
             delay and w_q from the link, mean_pktsize_ 500, queue and drops in bytes, gentle, wait",
        )],
        params: PARAMS,
    };
    fn variant(name: &str) -> Option<Self> {
        (name == "ns2").then(RedConfig::ns2)
    }
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        self.check(field)
    }
    fn build(self, limits: QueueLimits, link: LinkInfo) -> Box<dyn Queue> {
        Box::new(Red::new(&self, limits, link))
    }
}

/// p_b, the probability before the count correction (red.cc `calculate_p_new`). `gentle_max_p` is the
/// max_p the gentle slope starts from, None when not gentle.
fn base_probability(avg: f64, min_th: f64, max_th: f64, max_p: f64, gentle_max_p: Option<f64>) -> f64 {
    let p = if avg < max_th {
        max_p * (avg - min_th) / (max_th - min_th)
    } else if let Some(from) = gentle_max_p {
        from + (1.0 - from) * (avg - max_th) / max_th
    } else {
        1.0
    };
    p.min(1.0)
}

/// p_a from p_b and the arrivals since the last drop (red.cc `modify_p`, before byte scaling).
fn spaced_probability(p_b: f64, count: f64, wait: bool) -> f64 {
    let spent = count * p_b;
    let p = if wait {
        if spent < 1.0 {
            0.0
        } else if spent < 2.0 {
            p_b / (2.0 - spent)
        } else {
            1.0
        }
    } else if spent < 1.0 {
        p_b / (1.0 - spent)
    } else {
        1.0
    };
    p.min(1.0)
}

/// base^n by squaring: the EWMA's decay over n arrivals, in O(log n) for long idle periods, with plain
/// IEEE multiplications (bit-identical everywhere, unlike `powi`).
fn power(mut base: f64, mut n: u64) -> f64 {
    let mut acc = 1.0;
    while n > 0 {
        if n & 1 == 1 {
            acc *= base;
        }
        base *= base;
        n >>= 1;
    }
    acc
}

enum Verdict {
    Accept,
    Mark,
    Drop,
}

/// A RED queue (see the module comment). Lengths exclude the packet on the wire.
pub struct Red {
    packets: VecDeque<Packet>,
    bytes: u64,
    /// Hard limits on what waits: packets (packet mode) and bytes; an arrival finding either reached is
    /// refused.
    limit_packets: Option<usize>,
    limit_bytes: Option<u64>,
    queue_in_bytes: bool,
    byte_mode: bool,
    wait: bool,
    gentle: bool,
    ecn: bool,
    use_mark_p: bool,
    mark_p: f64,
    mean_packet_size: u32,
    /// Thresholds in the queue's unit (packets, or bytes in queue_in_bytes mode).
    min_th: f64,
    max_th: f64,
    w_q: f64,
    /// Link capacity in mean-sized packets per second (ns-2 `ptc`).
    ptc: f64,
    /// The link's rate, to know when the last packet handed out leaves the wire.
    rate: Rate,
    initial_max_p: f64,
    gentle_follows_max_p: bool,
    adapter: Option<MaxPAdapter>,
    /// Average queue, in the queue's unit.
    avg: f64,
    max_p: f64,
    /// Arrivals (and their bytes) since the last drop or mark (ns-2 `count`, `count_bytes`).
    count: u64,
    count_bytes: u64,
    /// The average was at or above min_th with packets waiting at the previous arrival (ns-2 `old`).
    above_min: bool,
    /// Last p_b and p_a computed, for tracing (ns-2 `prob1_`, `v_prob`).
    p_b: f64,
    p_a: f64,
    /// When the transmitter went (or will go) idle with nothing queued; None while packets wait. ns-2
    /// learns it when `deque` finds the queue empty at the end of a transmission; the link may not ask
    /// an empty queue, so the end of the last packet's transmission is computed from the link rate.
    idle_since: Option<SimTime>,
    rng: SimRng,
    counters: QueueCounters,
}

impl Red {
    pub fn new(cfg: &RedConfig, limits: QueueLimits, link: LinkInfo) -> Self {
        let mean = if cfg.mean_packet_size_bytes == 0 { link.packet_size } else { cfg.mean_packet_size_bytes }.max(1);
        let rate_bps = link.rate_bps.max(1);
        let ptc = rate_bps as f64 / (8.0 * mean as f64);
        // red.cc initialize_params.
        let w_q = if cfg.w_q == 0.0 {
            1.0 - (-1.0 / ptc).exp()
        } else if cfg.w_q == -1.0 {
            let rtt_s = (3.0 * (link.delay_ns as f64 / 1e9 + 1.0 / ptc)).max(0.1);
            1.0 - (-1.0 / (10.0 * rtt_s * ptc)).exp()
        } else if cfg.w_q == -2.0 {
            1.0 - (-10.0 / ptc).exp()
        } else {
            cfg.w_q
        };
        let min_th_packets =
            if cfg.min_th == 0.0 { (cfg.target_delay_ns as f64 / 1e9 * ptc / 2.0).max(5.0) } else { cfg.min_th };
        let max_th_packets = if cfg.max_th == 0.0 { 3.0 * min_th_packets } else { cfg.max_th };
        let unit = if cfg.queue_in_bytes { mean as f64 } else { 1.0 };
        let (min_th, max_th) = (min_th_packets * unit, max_th_packets * unit);
        let bottom = if cfg.bottom == 0.0 { (80_000.0 / rate_bps as f64).min(0.01) } else { cfg.bottom };
        let (limit_packets, limit_bytes) = if cfg.queue_in_bytes {
            // Saturating: a limit of ~2^64 packets overflowed the product (tests/config_fuzz.rs).
            (None, Some(limits.bytes.unwrap_or((limits.packets as u64).saturating_mul(mean as u64))))
        } else {
            (Some(limits.packets), limits.bytes)
        };
        Red {
            packets: VecDeque::new(),
            bytes: 0,
            limit_packets,
            limit_bytes,
            queue_in_bytes: cfg.queue_in_bytes,
            byte_mode: cfg.byte_mode,
            wait: cfg.wait,
            gentle: cfg.gentle,
            ecn: cfg.ecn,
            use_mark_p: cfg.use_mark_p,
            mark_p: cfg.mark_p,
            mean_packet_size: mean,
            min_th,
            max_th,
            w_q,
            ptc,
            rate: Rate::from_bps(rate_bps),
            initial_max_p: cfg.max_p,
            gentle_follows_max_p: cfg.gentle_follows_max_p,
            adapter: cfg.adaptive.then(|| MaxPAdapter::new(cfg, min_th, max_th, bottom)),
            avg: 0.0,
            max_p: cfg.max_p,
            count: 0,
            count_bytes: 0,
            above_min: false,
            p_b: 0.0,
            p_a: 0.0,
            // ns-2 resets the queue at time 0 as idle.
            idle_since: Some(SimTime::ZERO),
            rng: link.rng(),
            counters: QueueCounters::default(),
        }
    }

    /// The queue in RED's unit: packets, or bytes in queue_in_bytes mode.
    fn queued(&self) -> u64 {
        if self.queue_in_bytes {
            self.bytes
        } else {
            self.packets.len() as u64
        }
    }

    fn over_limit(&self) -> bool {
        self.limit_packets.is_some_and(|l| self.packets.len() >= l) || self.limit_bytes.is_some_and(|l| self.bytes >= l)
    }

    /// red.cc drop_early: draw against p_a; on success restart the count and say whether to mark or drop.
    fn early_verdict(&mut self, pkt: &Packet) -> Verdict {
        let gentle_max_p = self.gentle.then_some(if self.gentle_follows_max_p { self.max_p } else { self.initial_max_p });
        self.p_b = base_probability(self.avg, self.min_th, self.max_th, self.max_p, gentle_max_p);
        let mean = self.mean_packet_size as u64;
        let count = if self.byte_mode { (self.count_bytes / mean) as f64 } else { self.count as f64 };
        let mut p_a = spaced_probability(self.p_b, count, self.wait);
        if self.byte_mode && p_a < 1.0 {
            p_a = (p_a * pkt.size as f64 / mean as f64).min(1.0);
        }
        self.p_a = p_a;
        // ns-2 drops when u <= p_a; u < p_a gives exactly probability p_a for u uniform in [0, 1), and
        // never drops at p_a = 0.
        if self.rng.uniform() >= p_a {
            return Verdict::Accept;
        }
        self.count = 0;
        self.count_bytes = 0;
        let capable = matches!(pkt.ecn, Ecn::Ect | Ecn::Ce);
        if self.ecn && capable && (!self.use_mark_p || self.p_b <= self.mark_p) {
            Verdict::Mark
        } else {
            Verdict::Drop
        }
    }

    /// A refused arrival: restart the count (red.cc after a forced drop, or drop_early before). If it
    /// found the link idle, ns-2's `deque` right after finds the queue empty and restarts the idle
    /// period now.
    fn refuse(&mut self, now: SimTime, found_idle: bool) {
        self.count = 0;
        self.count_bytes = 0;
        if found_idle {
            self.idle_since = Some(now);
        }
    }
}

impl Queue for Red {
    fn enqueue(&mut self, now: SimTime, mut pkt: Packet) -> Result<(), Packet> {
        let queued = self.queued();
        let idle_from = self.idle_since.filter(|&t| t <= now && self.packets.is_empty());
        // Packets the link could have sent while idle (truncated, as ns-2's int()).
        let idle_packets = idle_from.map_or(0, |t| (self.ptc * now.since(t).as_secs_f64()) as u64);
        self.avg = self.avg * power(1.0 - self.w_q, idle_packets + 1) + self.w_q * queued as f64;
        if let Some(adapter) = &mut self.adapter {
            self.max_p = adapter.update(self.max_p, self.avg, now);
        }
        self.count += 1;
        self.count_bytes += pkt.size as u64;

        let mut verdict = Verdict::Accept;
        if self.avg >= self.min_th && queued > 1 {
            let outright_from = if self.gentle { 2.0 * self.max_th } else { self.max_th };
            if !self.use_mark_p && self.avg >= outright_from {
                verdict = Verdict::Drop;
            } else if !self.above_min {
                self.count = 1;
                self.count_bytes = pkt.size as u64;
                self.above_min = true;
            } else {
                verdict = self.early_verdict(&pkt);
            }
        } else {
            self.p_a = 0.0;
            self.above_min = false;
        }

        if self.over_limit() {
            self.counters.overflow_drops += 1;
            self.refuse(now, idle_from.is_some());
            return Err(pkt);
        }
        match verdict {
            Verdict::Drop => {
                self.counters.early_drops += 1;
                self.refuse(now, idle_from.is_some());
                return Err(pkt);
            }
            Verdict::Mark => {
                pkt.ecn = Ecn::Ce;
                self.counters.ecn_marks += 1;
            }
            Verdict::Accept => {}
        }
        self.bytes += pkt.size as u64;
        self.packets.push_back(pkt);
        self.idle_since = None;
        Ok(())
    }

    fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        let Some(p) = self.packets.pop_front() else {
            // A free transmitter and nothing to send: idle from now at the latest (ns-2 `deque`).
            self.idle_since = Some(self.idle_since.map_or(now, |t| t.min(now)));
            return None;
        };
        self.bytes -= p.size as u64;
        if self.packets.is_empty() {
            self.idle_since = Some(now + self.rate.tx_time(p.size));
        }
        Some(p)
    }

    fn len_packets(&self) -> usize {
        self.packets.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn counters(&self) -> QueueCounters {
        self.counters
    }
    /// `avg` in the queue's unit (packets, or bytes in queue_in_bytes mode), the current `max_p`, and the
    /// last early-drop probabilities `p_b` (before the count correction) and `p_a` (after).
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.extend([("avg", self.avg), ("max_p", self.max_p), ("p_b", self.p_b), ("p_a", self.p_a)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::test_packets::data_packet;

    const MS: u64 = 1_000_000;

    fn pkt(seq: u64, size: u32, ecn: Ecn) -> Packet {
        Packet { ecn, ..data_packet(seq, size) }
    }

    fn link(rate_bps: u64, delay_ns: u64) -> LinkInfo {
        LinkInfo { rate_bps, packet_size: 1500, delay_ns, rng_seed: 7 }
    }

    fn limits(packets: usize) -> QueueLimits {
        QueueLimits { packets, bytes: None }
    }

    /// RED in packets with explicit settings, for hand-worked numbers.
    fn in_packets(min_th: f64, max_th: f64, w_q: f64) -> RedConfig {
        RedConfig {
            min_th,
            max_th,
            w_q,
            mean_packet_size_bytes: 1500,
            queue_in_bytes: false,
            byte_mode: false,
            ..RedConfig::ns2()
        }
    }

    fn value(q: &Red, name: &str) -> f64 {
        let mut out = vec![];
        q.state(&mut out);
        out.into_iter().find(|(n, _)| *n == name).unwrap().1
    }

    /// Feeds a queue as net::link does: every arrival is offered to `enqueue`, and the transmitter takes
    /// the next packet with `dequeue` whenever it is free, an arrival at the instant a transmission ends
    /// being handled first. `poll_empty`: the link also asks an empty queue when a transmission ends.
    struct Wire {
        q: Red,
        rate: Rate,
        busy_until: Option<SimTime>,
        poll_empty: bool,
    }

    impl Wire {
        fn new(q: Red, rate_bps: u64, poll_empty: bool) -> Self {
            Wire { q, rate: Rate::from_bps(rate_bps), busy_until: None, poll_empty }
        }
        fn start(&mut self, now: SimTime) {
            if let Some(p) = self.q.dequeue(now) {
                self.busy_until = Some(now + self.rate.tx_time(p.size));
            }
        }
        /// End the transmissions finishing before `t` (or at `t` too when `inclusive`).
        fn run_until(&mut self, t: SimTime, inclusive: bool) {
            while let Some(done) = self.busy_until.filter(|&d| d < t || (inclusive && d <= t)) {
                self.busy_until = None;
                if self.poll_empty || !self.q.is_empty() {
                    self.start(done);
                }
            }
        }
        fn arrive(&mut self, now: SimTime, p: Packet) -> bool {
            self.run_until(now, false);
            let accepted = self.q.enqueue(now, p).is_ok();
            self.run_until(now, true);
            if self.busy_until.is_none() {
                self.start(now);
            }
            accepted
        }
    }

    #[test]
    fn average_follows_arrivals_and_decays_over_an_idle_period_as_ns2_traces_it() {
        // 12 Mbit/s: a 1500-byte packet takes 1 ms, ptc = 12e6 / (8 x 1500) = 1000 packets/s. w_q = 1/4,
        // min_th 1, max_th 3, max_p 0.1. Arrivals at 0, 0.1, ..., 0.5 ms: the first goes on the wire, the
        // others find 0, 1, 2, 3, 4 waiting:
        //   avg = 0, 0, 1/4, 3/4 x 1/4 + 2/4 = 0.6875, 3/4 x 0.6875 + 3/4 = 1.265625,
        //         3/4 x 1.265625 + 1 = 1.94921875.
        // At 0.4 ms avg first exceeds min_th with 3 waiting: the count restarts, no probability yet. At
        // 0.5 ms p_b = 0.1 (1.94921875 - 1) / (3 - 1) = 0.0474609375, count 2: 2 p_b < 1, p_a = 0.
        // The six leave the wire at 1, ..., 6 ms; idle from 6 ms. An arrival at 16.5 ms: m = floor(1000 x
        // 0.0105) = 10, avg = 1.94921875 x 0.75^11 = 88396353 / 2^30 = 0.08232551906257868 (exact in f64),
        // below min_th: p_a back to 0.
        // ns-2.35 (Debian's ns, this script with Queue/RED q_weight_ 0.25 thresh_ 1 maxthresh_ 3
        // mean_pktsize_ 1500, in packets) traces a 0.25, 0.6875, 1.26562, 1.94922, p 0.0474609, a 0.0823255.
        for poll_empty in [false, true] {
            let q = Red::new(&in_packets(1.0, 3.0, 0.25), limits(100), link(12_000_000, 0));
            let mut wire = Wire::new(q, 12_000_000, poll_empty);
            let expected = [0.0, 0.0, 0.25, 0.6875, 1.265625, 1.94921875];
            for (i, avg) in expected.into_iter().enumerate() {
                assert!(wire.arrive(SimTime(i as u64 * MS / 10), pkt(i as u64, 1500, Ecn::NotEct)));
                assert_eq!(value(&wire.q, "avg"), avg, "arrival {i}");
            }
            assert!((value(&wire.q, "p_b") - 0.0474609375).abs() < 1e-15);
            assert_eq!(value(&wire.q, "p_a"), 0.0);
            assert!(wire.arrive(SimTime(16_500_000), pkt(6, 1500, Ecn::NotEct)));
            assert_eq!(value(&wire.q, "avg"), 88_396_353.0 / (1u64 << 30) as f64);
            assert_eq!(wire.q.counters(), QueueCounters::default());
        }
    }

    #[test]
    fn idle_time_counts_only_once_the_last_packet_has_left_the_wire() {
        // 12 Mbit/s (1 ms per packet, ptc 1000/s), w_q = 1/2, thresholds out of reach. A burst of 4 at 0:
        // the first goes on the wire (0-1 ms) and leaves the queue empty, but the link is busy, so the
        // second finds no idle time: avg = 0, 0, then 0.5, 1.25 as 1 and 2 wait. They go 1-2, 2-3, 3-4 ms;
        // the queue is empty from 3 ms, the link idle from 4 ms. At 3.5 ms: busy, m = 0, avg = 0.625; this
        // one goes 4-5 ms. At 6.2 ms: idle since 5 ms, m = floor(1000 x 0.0012) = 1,
        // avg = 0.625 x 0.5^2 = 0.15625.
        for poll_empty in [false, true] {
            let q = Red::new(&in_packets(100.0, 200.0, 0.5), limits(100), link(12_000_000, 0));
            let mut wire = Wire::new(q, 12_000_000, poll_empty);
            let mut avgs = vec![];
            for (i, t) in [0, 0, 0, 0, 3_500_000, 6_200_000].into_iter().enumerate() {
                assert!(wire.arrive(SimTime(t), pkt(i as u64, 1500, Ecn::NotEct)));
                avgs.push(value(&wire.q, "avg"));
            }
            assert_eq!(avgs, [0.0, 0.0, 0.5, 1.25, 0.625, 0.15625]);
        }
    }

    #[test]
    fn automatic_settings_for_100_mbps_follow_ns2() {
        // ns-2 defaults, 100 Mbit/s: ptc = 1e8 / (8 x 500) = 25000 mean packets/s. min_th = max(5, 0.005 x
        // 25000 / 2) = 62.5, max_th = 187.5 mean packets, in bytes (queue_in_bytes): 31250 and 93750.
        // w_q (-1): link delay 10 ms: RTT = 3 (0.01 + 1/25000) = 0.03012 s, raised to 0.1 s:
        // 1 - exp(-1 / (10 x 0.1 x 25000)) = 3.9999200010631952e-05; 50 ms: RTT = 0.15012 s,
        // 1 - exp(-1/37530) = 2.6644995402169691e-05. bottom = min(0.01, 80000 / 1e8) = 8e-4. The values
        // ns-2.35 prints for `$ns simplex-link ... 100Mb 10ms RED` (thresh_, maxthresh_, q_weight_,
        // bottom_) are the same.
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs();
        let q = Red::new(&RedConfig::ns2(), limits(100), link(100_000_000, 10 * MS));
        assert!(close(q.min_th, 31_250.0) && close(q.max_th, 93_750.0), "{} {}", q.min_th, q.max_th);
        assert!(close(q.w_q, 3.999_920_001_063_195e-5), "{}", q.w_q);
        let q = Red::new(&RedConfig::ns2(), limits(100), link(100_000_000, 50 * MS));
        assert!(close(q.w_q, 2.664_499_540_216_969e-5), "{}", q.w_q);
        // Hard limit in bytes: 100 x 500 = 50000 bytes, 33 packets of 1500 bytes.
        assert_eq!((q.limit_packets, q.limit_bytes), (None, Some(50_000)));
        // With the real packet size (1500): ptc = 8333.33, min_th = 41.67 / 2 = 20.83 packets, max_th 62.5;
        // w_q = 0: 1 - exp(-1/8333.33) = 1.1999280028796022e-04 (ns-2 with mean_pktsize_ 1500,
        // q_weight_ 0 prints 20.833333333333336, 62.500000000000007, 0.00011999280028796022).
        let cfg = RedConfig { mean_packet_size_bytes: 0, queue_in_bytes: false, w_q: 0.0, ..RedConfig::ns2() };
        let q = Red::new(&cfg, limits(100), link(100_000_000, 50 * MS));
        assert!(close(q.min_th, 20.833333333333336) && close(q.max_th, 62.5), "{} {}", q.min_th, q.max_th);
        assert!(close(q.w_q, 1.1999280028796022e-04), "{}", q.w_q);
        assert_eq!((q.limit_packets, q.limit_bytes), (Some(100), None));
    }

    #[test]
    fn base_probability_below_max_th_in_the_gentle_region_and_beyond() {
        // min_th 5, max_th 15, max_p 0.1.
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        // Linear: avg 10 -> 0.1 x 5/10 = 0.05.
        assert!(close(base_probability(10.0, 5.0, 15.0, 0.1, Some(0.1)), 0.05));
        // Gentle: 15 -> 0.1; 22.5 -> 0.1 + 0.9 x 7.5/15 = 0.55; 30 (2 max_th) -> 1; beyond, 1.
        assert!(close(base_probability(15.0, 5.0, 15.0, 0.1, Some(0.1)), 0.1));
        assert!(close(base_probability(22.5, 5.0, 15.0, 0.1, Some(0.1)), 0.55));
        assert!(close(base_probability(30.0, 5.0, 15.0, 0.1, Some(0.1)), 1.0));
        assert_eq!(base_probability(45.0, 5.0, 15.0, 0.1, Some(0.1)), 1.0);
        // Adapted max_p 0.13 with ns-2's slope from the initial 0.1: linear part uses 0.13 (avg 10 ->
        // 0.065), the gentle part still 0.55 at 22.5; following max_p it would be 0.13 + 0.87/2 = 0.565.
        assert!(close(base_probability(10.0, 5.0, 15.0, 0.13, Some(0.1)), 0.065));
        assert!(close(base_probability(22.5, 5.0, 15.0, 0.13, Some(0.1)), 0.55));
        assert!(close(base_probability(22.5, 5.0, 15.0, 0.13, Some(0.13)), 0.565));
        // Not gentle: 1 from max_th.
        assert_eq!(base_probability(15.0, 5.0, 15.0, 0.1, None), 1.0);
    }

    #[test]
    fn count_correction_with_and_without_wait() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        // p_b = 0.05. wait: 0 until count 20 (count p_b = 1), then p_b / (2 - count p_b): count 20 ->
        // 0.05, 30 -> 0.05 / 0.5 = 0.1, from 40 on 1.
        assert_eq!(spaced_probability(0.05, 19.0, true), 0.0);
        assert!(close(spaced_probability(0.05, 20.0, true), 0.05));
        assert!(close(spaced_probability(0.05, 30.0, true), 0.1));
        assert_eq!(spaced_probability(0.05, 40.0, true), 1.0);
        // Without wait: p_b / (1 - count p_b): count 1 -> 0.05/0.95, 10 -> 0.1, from 20 on 1.
        assert!(close(spaced_probability(0.05, 1.0, false), 0.05 / 0.95));
        assert!(close(spaced_probability(0.05, 10.0, false), 0.1));
        assert_eq!(spaced_probability(0.05, 20.0, false), 1.0);
    }

    /// Put `n` packets in the queue without running RED on them (the tests below start from a given
    /// level rather than from RED's history).
    fn fill(q: &mut Red, n: u64, ecn: Ecn) {
        for i in 0..n {
            q.packets.push_back(pkt(1_000_000 + i, 1500, ecn));
            q.bytes += 1500;
        }
        q.idle_since = None;
    }

    /// Hold the queue at `level` packets with w_q = 1 (avg = the queue each arrival finds): each arrival
    /// finds `level`, and if accepted one packet leaves. Returns the indices of the refused arrivals.
    fn held_at(cfg: &RedConfig, level: u64, arrivals: u64, ecn: Ecn) -> (Vec<u64>, Red) {
        let mut q = Red::new(cfg, limits(1000), link(12_000_000, 0));
        fill(&mut q, level, ecn);
        let mut drops = vec![];
        for i in 0..arrivals {
            match q.enqueue(SimTime(0), pkt(i, 1500, ecn)) {
                Ok(()) => assert!(q.dequeue(SimTime(0)).is_some()),
                Err(_) => drops.push(i),
            }
        }
        (drops, q)
    }

    #[test]
    fn wait_spaces_early_drops_between_1_and_2_over_p_b() {
        // min_th 5, max_th 15, max_p 0.1, queue held at 10: p_b = 0.05. The first arrival above min_th only
        // restarts the count. After a drop the n-th arrival has count n: p_a = 0 for n < 20, p_b / (2 - n p_b) up to n = 39, 1 at 40. The
        // survival telescopes to (2 - n p_b), so each gap 20..39 has probability 0.05: uniform, mean 29.5,
        // sd 5.77. 30000 arrivals give ~1000 gaps: the mean is within 29.5 +- 0.18 (1 sd); we allow 1.0.
        let cfg = in_packets(5.0, 15.0, 1.0);
        let (drops, q) = held_at(&cfg, 10, 30_000, Ecn::NotEct);
        let gaps: Vec<u64> = drops.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps.len() > 900, "{}", gaps.len());
        assert!(gaps.iter().all(|g| (20..=39).contains(g)), "{:?} {:?}", gaps.iter().min(), gaps.iter().max());
        let mean = gaps.iter().sum::<u64>() as f64 / gaps.len() as f64;
        assert!((mean - 29.5).abs() < 1.0, "{mean}");
        assert_eq!(q.counters().early_drops, drops.len() as u64);
        assert_eq!(q.counters().overflow_drops, 0);
        // Without wait the gaps are geometric-like from 1 on (p_a = 0.05/0.95 at count 1): short gaps occur.
        let (drops, _) = held_at(&RedConfig { wait: false, ..cfg }, 10, 30_000, Ecn::NotEct);
        assert!(drops.windows(2).any(|w| w[1] - w[0] < 20));
    }

    #[test]
    fn byte_mode_counts_mean_packets_and_scales_by_size() {
        // queue in packets, byte_mode, mean 500, 1500-byte packets held at 10 (p_b = 0.05): count in
        // mean packets grows by 3 per arrival, and p_a is multiplied by 1500/500 = 3. After a drop, the
        // n-th arrival has count 3n: p_a = 0 while 3n x 0.05 < 1 (n <= 6); n = 7: 3 x 0.05/(2 - 1.05) =
        // 0.158; n = 13: 0.05 / (2 - 1.95) = 1. So gaps lie in 7..=13.
        let cfg = RedConfig { byte_mode: true, mean_packet_size_bytes: 500, ..in_packets(5.0, 15.0, 1.0) };
        let (drops, _) = held_at(&cfg, 10, 10_000, Ecn::NotEct);
        let gaps: Vec<u64> = drops.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps.len() > 500);
        assert!(gaps.iter().all(|g| (7..=13).contains(g)), "{:?} {:?}", gaps.iter().min(), gaps.iter().max());
        assert!(gaps.contains(&7) && gaps.contains(&13));
    }

    #[test]
    fn no_early_drop_while_fewer_than_two_packets_wait() {
        // w_q = 1, min_th 0.5, max_th 1.5, not gentle, use_mark_p off: any arrival with avg >= 1.5 and at
        // least 2 waiting is dropped outright. Arrivals find 0, 1 (avg 1 is above min_th but only 1 waits):
        // accepted; then 2 waiting, avg 2: dropped, and again.
        let cfg = RedConfig { gentle: false, use_mark_p: false, ..in_packets(0.5, 1.5, 1.0) };
        let mut q = Red::new(&cfg, limits(100), link(12_000_000, 0));
        let accepted: Vec<bool> = (0..4).map(|i| q.enqueue(SimTime(0), pkt(i, 1500, Ecn::NotEct)).is_ok()).collect();
        assert_eq!(accepted, [true, true, false, false]);
        assert_eq!(q.counters().early_drops, 2);
    }

    #[test]
    fn hard_limit_counts_waiting_packets_one_more_than_droptail() {
        // Limit 3, thresholds out of reach. 12 Mbit/s, arrivals every 10 us: the first goes on the wire,
        // three wait, the 5th and 6th find 3 waiting (3 >= 3) and are refused. ns-2.35 (RED, queue-limit 3,
        // queue_in_bytes_ false) drops the same two; DropTail would keep only two waiting.
        let q = Red::new(&in_packets(100.0, 200.0, 0.002), limits(3), link(12_000_000, 0));
        let mut wire = Wire::new(q, 12_000_000, false);
        let accepted: Vec<bool> = (0..6).map(|i| wire.arrive(SimTime(i * 10_000), pkt(i, 1500, Ecn::NotEct))).collect();
        assert_eq!(accepted, [true, true, true, true, false, false]);
        assert_eq!(wire.q.counters().overflow_drops, 2);
        // In bytes with ns-2's mean 500: the limit is 3 x 500 = 1500 bytes, so one 1500-byte packet waits
        // and the 3rd to 6th are refused (ns-2.35 with queue_in_bytes_ true: drops at 20, 30, 40, 50 us).
        let cfg = RedConfig { queue_in_bytes: true, mean_packet_size_bytes: 500, ..in_packets(100.0, 200.0, 0.002) };
        let mut wire = Wire::new(Red::new(&cfg, limits(3), link(12_000_000, 0)), 12_000_000, false);
        let accepted: Vec<bool> = (0..6).map(|i| wire.arrive(SimTime(i * 10_000), pkt(i, 1500, Ecn::NotEct))).collect();
        assert_eq!(accepted, [true, true, false, false, false, false]);
        // A byte size given by the scenario is the byte limit: 4000 bytes, two 1500-byte packets wait
        // (1500, 3000 < 4000), the third finds 3000 and is accepted, the 4th finds 4500 >= 4000.
        let mut q = Red::new(&cfg, QueueLimits { packets: 100, bytes: Some(4000) }, link(12_000_000, 0));
        let accepted: Vec<bool> = (0..4).map(|i| q.enqueue(SimTime(0), pkt(i, 1500, Ecn::NotEct)).is_ok()).collect();
        assert_eq!(accepted, [true, true, true, false]);
    }

    #[test]
    fn ecn_capable_packets_are_marked_instead_of_dropped_while_p_b_is_at_most_mark_p() {
        // Queue held at 10: p_b = 0.05 <= mark_p 0.1. Early decisions come at most 39 arrivals apart, so
        // 400 arrivals give at least 9; each marks the ECT packet CE and keeps it.
        let cfg = RedConfig { ecn: true, ..in_packets(5.0, 15.0, 1.0) };
        let (drops, q) = held_at(&cfg, 10, 400, Ecn::Ect);
        assert!(drops.is_empty());
        let c = q.counters();
        assert!(c.ecn_marks >= 9, "{c:?}");
        assert_eq!((c.early_drops, c.overflow_drops), (0, 0));
        assert!(q.packets.iter().any(|p| p.ecn == Ecn::Ce));
        // Not ECN-capable: dropped.
        let (drops, q) = held_at(&cfg, 10, 400, Ecn::NotEct);
        assert!(drops.len() >= 9 && q.counters().ecn_marks == 0);
        // Held at 22 (gentle region): p_b = 0.1 + 0.9 x 7/15 = 0.52 > mark_p: ECT packets are dropped.
        let (drops, q) = held_at(&cfg, 22, 400, Ecn::Ect);
        assert!(!drops.is_empty());
        assert_eq!(q.counters().ecn_marks, 0);
        // Without use_mark_p they are marked there too.
        let (drops, q) = held_at(&RedConfig { use_mark_p: false, ..cfg }, 22, 400, Ecn::Ect);
        assert!(drops.is_empty() && q.counters().ecn_marks > 0);
    }

    #[test]
    fn adaptive_red_raises_max_p_while_the_average_sits_above_the_band() {
        // w_q = 1, min_th 5, max_th 15: band (5 + 4, 15 - 4) = (9, 11). Queue held at 12 with arrivals
        // every 100 ms. max_p moves at the first arrival more than 0.5 s after the last move: 0.6 s ->
        // 0.1 + min(0.01, 0.025) = 0.11; 1.2 s (1.1 s is not later than 0.6 + 0.5) -> 0.12; 1.8 s -> 0.13.
        let cfg = RedConfig { adaptive: true, ..in_packets(5.0, 15.0, 1.0) };
        let mut q = Red::new(&cfg, limits(1000), link(12_000_000, 0));
        fill(&mut q, 12, Ecn::NotEct);
        let mut max_p = vec![];
        for k in 1..=20u64 {
            if q.enqueue(SimTime(k * 100 * MS), pkt(100 + k, 1500, Ecn::NotEct)).is_ok() {
                q.dequeue(SimTime(k * 100 * MS));
            }
            max_p.push(value(&q, "max_p"));
        }
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(close(max_p[4], 0.1) && close(max_p[5], 0.11), "{max_p:?}");
        assert!(close(max_p[10], 0.11) && close(max_p[11], 0.12), "{max_p:?}");
        assert!(close(max_p[16], 0.12) && close(max_p[17], 0.13) && close(max_p[19], 0.13), "{max_p:?}");
    }

    /// 600 arrivals for the ns-2 cross-check: gaps uniform in [0, 1.4 ms] (the link sends a 1500-byte
    /// packet in 1.2 ms, so the queue comes and goes), 3% of them lengthened by 5-50 ms of silence; sizes
    /// 1500 (half), 40, 576 or 1000 bytes. Times in ns.
    fn cross_check_schedule() -> Vec<(u64, u32)> {
        let mut rng = SimRng::new(2024, 0);
        let mut t = 0;
        (0..600)
            .map(|_| {
                t += (rng.uniform() * 1.4e6) as u64;
                if rng.uniform() < 0.03 {
                    t += 5_000_000 + (rng.uniform() * 45e6) as u64;
                }
                t += 1;
                (t, [1500, 1500, 1500, 40, 576, 1000][(rng.next_u64() % 6) as usize])
            })
            .collect()
    }

    /// Writes the ns-2 script of the cross-check to the temporary directory: `cargo test -p cclab-engine
    /// red_cross_check_script -- --ignored`; `ns red_cross_check.tcl` then prints the average after every
    /// 50th arrival and writes ave.tr (the average at each change) and queue.tr (the drops: `grep ^d
    /// queue.tr`, the sequence number is field 11).
    #[test]
    #[ignore]
    fn red_cross_check_script() {
        let mut tcl = String::from(
            "Queue/RED set thresh_ 1000\nQueue/RED set maxthresh_ 2000\nset ns [new Simulator]\n\
             set n0 [$ns node]\nset n1 [$ns node]\nset n2 [$ns node]\n\
             $ns simplex-link $n0 $n1 1000000Gb 0ms DropTail\n$ns simplex-link $n1 $n2 10Mb 20ms RED\n\
             $ns queue-limit $n1 $n2 20\n$ns queue-limit $n0 $n1 100000\nset q [[$ns link $n1 $n2] queue]\n\
             set f [open ave.tr w]\n$q trace ave_\n$q attach $f\nset g [open queue.tr w]\n$ns trace-queue $n1 $n2 $g\n\
             set udp [new Agent/UDP]\n$udp set packetSize_ 1500\n$ns attach-agent $n0 $udp\n\
             set null [new Agent/Null]\n$ns attach-agent $n2 $null\n$ns connect $udp $null\n",
        );
        for (i, (t, size)) in cross_check_schedule().into_iter().enumerate() {
            let (s, ns) = (t / 1_000_000_000, t % 1_000_000_000);
            tcl += &format!("$ns at {s}.{ns:09} \"$udp send {size}\"\n");
            if i % 50 == 49 {
                // Half a nanosecond later, after the arrival (1.2e-11 s through the access link).
                tcl += &format!("$ns at {s}.{ns:09}5 {{puts \"avg {i} [$q set ave_]\"}}\n");
            }
        }
        tcl += "$ns at 2.0 \"close $f; close $g; exit 0\"\n$ns run\n";
        std::fs::write(std::env::temp_dir().join("red_cross_check.tcl"), tcl).unwrap();
    }

    #[test]
    fn ns2_defaults_match_ns2_on_a_600_packet_schedule() {
        // ns-2.35 defaults (bytes, mean 500, w_q from a 10 Mbit/s 20 ms link: ptc 2500, RTT raised to
        // 0.1 s, w_q = 1 - exp(-1/2500)) with thresholds out of reach (1000 and 2000 mean packets) and
        // queue-limit 20, i.e. 10000 bytes waiting. The schedule mixes sizes and idle periods, so this
        // checks the byte-mode average, the idle decay with ptc of 500-byte packets, and the byte limit.
        // Expected: Debian's ns 2.35 running the script of `red_cross_check_script` (the average after
        // every 50th arrival, which ns-2 prints to 6 digits; the packets dropped, from queue.tr).
        const NS2_AVG: [(usize, f64); 12] = [
            (49, 82.9862),
            (99, 170.547),
            (149, 200.237),
            (199, 230.801),
            (249, 410.76),
            (299, 544.831),
            (349, 553.186),
            (399, 562.566),
            (449, 633.646),
            (499, 801.22),
            (549, 893.682),
            (599, 949.653),
        ];
        const NS2_DROPS: [u64; 57] = [
            38, 39, 40, 44, 46, 67, 68, 70, 71, 72, 201, 203, 208, 209, 212, 214, 216, 220, 226, 228, 244,
            246, 247, 253, 255, 259, 260, 266, 267, 271, 282, 283, 360, 366, 456, 457, 462, 465, 466, 467,
            473, 482, 490, 494, 496, 497, 508, 509, 511, 544, 545, 549, 566, 567, 568, 571, 572,
        ];
        let cfg = RedConfig { min_th: 1000.0, max_th: 2000.0, ..RedConfig::ns2() };
        let q = Red::new(&cfg, limits(20), link(10_000_000, 20 * MS));
        let mut wire = Wire::new(q, 10_000_000, false);
        let mut avgs = vec![];
        let mut drops = vec![];
        for (i, (t, size)) in cross_check_schedule().into_iter().enumerate() {
            if !wire.arrive(SimTime(t), pkt(i as u64, size, Ecn::NotEct)) {
                drops.push(i as u64);
            }
            avgs.push(value(&wire.q, "avg"));
        }
        for (i, expected) in NS2_AVG {
            assert!((avgs[i] - expected).abs() <= 5e-6 * expected, "arrival {i}: {} vs ns-2 {expected}", avgs[i]);
        }
        assert_eq!(drops, NS2_DROPS);
        assert_eq!(wire.q.counters().overflow_drops, NS2_DROPS.len() as u64);
    }
}
