//! The engine config: the JSON document the Python front produces (docs/engine-interface.md).
//! Base units only: nanoseconds, bits per second, bytes, packets.

use crate::tcp::frto::{FrtoVariant, SpuriousResponse};
use crate::tcp::sender::Recovery;
use crate::traffic::dist::Distribution;
use serde::Deserialize;
use std::fmt;

/// A bad config: the field path and what is wrong with it.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    pub field: String,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}
impl std::error::Error for ConfigError {}

pub fn err(field: impl Into<String>, message: impl Into<String>) -> ConfigError {
    ConfigError { field: field.into(), message: message.into() }
}

fn default_header() -> u32 {
    40
}
fn default_ack() -> u32 {
    40
}
/// Largest initial window, packets (see `ScenarioConfig::validate`).
pub const MAX_INITIAL_CWND: u32 = 1_000_000;

fn default_initial_cwnd() -> u32 {
    2
}
fn default_rto_min() -> u64 {
    200_000_000
}
fn default_rwnd() -> u64 {
    1_000_000_000
}
fn default_recovery() -> Recovery {
    Recovery::Sack
}
fn default_sample_interval() -> u64 {
    100_000_000
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioConfig {
    pub packet_size: u32,
    #[serde(default = "default_header")]
    pub header_size: u32,
    #[serde(default = "default_ack")]
    pub ack_size: u32,
    /// The dumbbell preset (seed 000's network). Exactly one of `bottleneck` and `topology` is given.
    #[serde(default)]
    pub bottleneck: Option<BottleneckConfig>,
    /// The general form: named nodes joined by one-way links; each flow names its route.
    #[serde(default)]
    pub topology: Option<TopologyConfig>,
    pub flows: Vec<FlowConfig>,
    /// Arrival processes that open connections during the run (`traffic::source`).
    #[serde(default)]
    pub traffic: Vec<TrafficConfig>,
    pub run: RunConfig,
}

/// A source of connections: transfers of drawn sizes arriving at drawn intervals, from `start_ns` until
/// `stop_ns`, each a flow with the settings of `flow` that ends (and gives its slot back) when its last
/// byte is acknowledged.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficConfig {
    /// The summary's `groups` report its connections under this name.
    pub group: String,
    /// The connections' settings: cc, recovery, windows, and the access delays and direction (dumbbell)
    /// or route (links). Its start, stop, size and draws are not used.
    pub flow: FlowConfig,
    /// Transfer sizes, payload bytes.
    pub size_bytes: Distribution,
    /// Time between arrivals, ns. Exactly one of this and `offered_load`.
    #[serde(default)]
    pub inter_arrival_ns: Option<Distribution>,
    /// Poisson arrivals offering this fraction of the capacity of the slowest link on the connections'
    /// data route, in payload bits: mean gap = 8 * mean size / (load * capacity).
    #[serde(default)]
    pub offered_load: Option<f64>,
    #[serde(default)]
    pub start_ns: u64,
    /// No arrival from this time on (None: until the end of the run).
    #[serde(default)]
    pub stop_ns: Option<u64>,
    /// Keep a record of every connection (`Simulation::connection_records`): memory then grows with the
    /// connections made, so it is off by default.
    #[serde(default)]
    pub records: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BottleneckConfig {
    pub rate_bps: u64,
    pub delay_ns: u64,
    pub queue: QueueConfig,
    #[serde(default)]
    pub reverse_queue: Option<QueueConfig>,
    #[serde(default)]
    pub loss_rate: f64,
    /// Rate trace or schedule, delay schedule, loss model, ARQ of the forward bottleneck.
    #[serde(default)]
    pub models: LinkModelsConfig,
    /// The reverse bottleneck's rate and delay when they differ (a rate is needed when the forward rate
    /// follows a model).
    #[serde(default)]
    pub reverse_rate_bps: Option<u64>,
    #[serde(default)]
    pub reverse_delay_ns: Option<u64>,
    #[serde(default)]
    pub reverse_models: LinkModelsConfig,
}

/// How a link's transmission rate varies (absent: constant `rate_bps`). See `net/capacity.rs`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum RateModelConfig {
    /// A Mahimahi trace: one delivery opportunity per line (ms), looping.
    Trace {
        path: String,
        /// Scale the bytes per opportunity so the trace's mean is this rate.
        #[serde(default)]
        mean_bps: Option<u64>,
        #[serde(default = "default_bytes_per_opportunity")]
        bytes_per_opportunity: u32,
    },
    /// Piecewise constant: `rate_bps[i]` from `at_ns[i]` on (`at_ns[0]` = 0; 0 bit/s is an outage).
    Schedule { at_ns: Vec<u64>, rate_bps: Vec<u64> },
    /// Constant for the run, drawn once (bit/s, at least 1) from the link's own random stream: conditions
    /// that differ from run to run and stay put within one (seed 002's tests on different days and hours).
    Drawn { rate_bps: Distribution },
    /// A rate that follows the demand (`net/bearer.rs`, UMTS dedicated-channel rate switching): starts on
    /// `rates_bps[0]`, steps up one rate `up_delay_ns` after an arrival leaves more than `up_queue_bytes`
    /// waiting, falls back to the lowest after `idle_ns` with nothing to send; with `down_queue_bytes` and
    /// `down_delay_ns` (both or neither; absent: off), also steps down one rate once fewer than
    /// `down_queue_bytes` have waited for `down_delay_ns` (event 4b).
    Bearer {
        rates_bps: Vec<u64>,
        up_queue_bytes: u64,
        up_delay_ns: u64,
        idle_ns: u64,
        #[serde(default)]
        down_queue_bytes: Option<u64>,
        #[serde(default)]
        down_delay_ns: Option<u64>,
    },
}

impl RateModelConfig {
    /// A bearer's parameters (`net::bearer`), not yet validated; an error when only one of the step
    /// down's two fields is given. Panics on any other rate model.
    pub fn bearer_params(&self) -> Result<crate::net::bearer::BearerParams, String> {
        let RateModelConfig::Bearer { rates_bps, up_queue_bytes, up_delay_ns, idle_ns, down_queue_bytes, down_delay_ns } = self
        else {
            panic!("bearer_params of a rate model that is no bearer")
        };
        let down = match (down_queue_bytes, down_delay_ns) {
            (None, None) => None,
            (Some(bytes), Some(delay)) => {
                Some(crate::net::bearer::StepDown { queue_bytes: *bytes, delay: crate::time::SimDuration(*delay) })
            }
            _ => return Err("give both down_queue_bytes and down_delay_ns for a step down, or neither".to_string()),
        };
        Ok(crate::net::bearer::BearerParams {
            rates_bps: rates_bps.clone(),
            up_queue_bytes: *up_queue_bytes,
            up_delay: crate::time::SimDuration(*up_delay_ns),
            idle: crate::time::SimDuration(*idle_ns),
            down,
        })
    }
}

fn default_bytes_per_opportunity() -> u32 {
    crate::net::capacity::DEFAULT_BYTES_PER_OPPORTUNITY
}

/// A propagation delay that changes at given times (re-routing); packets keep the delay they left with.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DelayScheduleConfig {
    pub at_ns: Vec<u64>,
    pub delay_ns: Vec<u64>,
}

/// Random loss of packets (`net/loss.rs`).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum LossConfig {
    Bernoulli(f64),
    GilbertElliott { p_good_to_bad: f64, p_bad_to_good: f64, loss_good: f64, loss_bad: f64 },
}

impl LossConfig {
    pub fn model(&self) -> crate::net::loss::LossModel {
        use crate::net::loss::LossModel;
        match *self {
            LossConfig::Bernoulli(p) => LossModel::Bernoulli(p),
            LossConfig::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad } => {
                LossModel::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad }
            }
        }
    }
}

/// Link-layer retransmission (`net/arq.rs`): each attempt lost by `loss`, retried `retry_delay_ns` later,
/// at most `max_attempts` attempts, delivered in order.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArqConfig {
    pub loss: LossConfig,
    pub retry_delay_ns: u64,
    pub max_attempts: u32,
}

/// Outages of a link's transmitter, independent of its load (`net/outage.rs`): a gap, an outage, a gap...
/// Exponential gaps of mean 1/rate make the onsets a Poisson process of that rate.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutageConfig {
    /// Time from the end of one outage to the start of the next, ns (its mean must be above 0).
    pub gap_ns: Distribution,
    /// Length of one outage, ns.
    pub duration_ns: Distribution,
}

/// What may vary on a link beyond its constant rate, delay and packet error rate. Shared by the
/// dumbbell's bottleneck (its forward direction) and by every link of a topology.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkModelsConfig {
    #[serde(default)]
    pub rate_model: Option<RateModelConfig>,
    #[serde(default)]
    pub delay_schedule: Option<DelayScheduleConfig>,
    #[serde(default)]
    pub loss: Option<LossConfig>,
    #[serde(default)]
    pub arq: Option<ArqConfig>,
    #[serde(default)]
    pub outages: Option<OutageConfig>,
}

impl LinkModelsConfig {
    pub fn is_empty(&self) -> bool {
        self.rate_model.is_none() && self.delay_schedule.is_none() && self.loss.is_none() && self.arq.is_none() && self.outages.is_none()
    }

    fn validate(&self, field: &str, loss_rate: f64) -> Result<(), ConfigError> {
        let sorted_from_zero = |at: &[u64], n: usize, what: &str| -> Result<(), ConfigError> {
            if at.is_empty() || at.len() != n {
                return Err(err(format!("{field}.{what}"), "times and values must be lists of the same, non-zero length"));
            }
            if at[0] != 0 || at.windows(2).any(|w| w[1] <= w[0]) {
                return Err(err(format!("{field}.{what}"), "times must start at 0 and increase"));
            }
            Ok(())
        };
        if let Some(RateModelConfig::Schedule { at_ns, rate_bps }) = &self.rate_model {
            sorted_from_zero(at_ns, rate_bps.len(), "rate")?;
        }
        if let Some(RateModelConfig::Drawn { rate_bps }) = &self.rate_model {
            rate_bps.validate().map_err(|m| err(format!("{field}.rate"), m))?;
        }
        if let Some(bearer @ RateModelConfig::Bearer { .. }) = &self.rate_model {
            bearer.bearer_params().and_then(|p| p.validate()).map_err(|m| err(format!("{field}.rate.bearer"), m))?;
        }
        // Zero reached MahimahiTrace's assertion, a panic (found by tests/config_fuzz.rs).
        if let Some(RateModelConfig::Trace { bytes_per_opportunity: 0, .. }) = &self.rate_model {
            return Err(err(format!("{field}.rate.bytes_per_opportunity"), "must be at least 1 byte"));
        }
        if let Some(d) = &self.delay_schedule {
            sorted_from_zero(&d.at_ns, d.delay_ns.len(), "delay")?;
        }
        if let Some(l) = &self.loss {
            l.model().validate().map_err(|m| err(format!("{field}.loss"), m))?;
            if loss_rate > 0.0 {
                return Err(err(format!("{field}.loss"), "give either loss_rate or a loss model, not both"));
            }
        }
        if let Some(a) = &self.arq {
            a.loss.model().validate().map_err(|m| err(format!("{field}.arq.loss"), m))?;
            if a.max_attempts == 0 {
                return Err(err(format!("{field}.arq.max_attempts"), "must be at least 1 (the first transmission)"));
            }
        }
        if let Some(o) = &self.outages {
            o.gap_ns.validate().map_err(|m| err(format!("{field}.outages.gap"), m))?;
            o.duration_ns.validate().map_err(|m| err(format!("{field}.outages.duration"), m))?;
            if o.gap_ns.mean() <= 0.0 {
                return Err(err(format!("{field}.outages.gap"), "the mean time between outages must be above 0"));
            }
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueConfig {
    pub discipline: String,
    pub limit_packets: u64,
    #[serde(default)]
    pub limit_bytes: Option<u64>,
    /// `variant` and the discipline's own parameters (net/queue/registry.rs; `cclab queues` lists them).
    #[serde(default)]
    pub params: serde_json::Map<String, serde_json::Value>,
}

/// The general network: nodes are named by the links that join them.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopologyConfig {
    pub links: Vec<LinkConfig>,
    /// Per-node settings, by node name (nodes without an entry have none).
    #[serde(default)]
    pub nodes: std::collections::BTreeMap<String, NodeConfig>,
    /// The link the summary's `bottleneck` figures describe; default: the first link with a queue.
    #[serde(default)]
    pub bottleneck: Option<String>,
}

/// A one-way link from node `from` to node `to`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// Unique; reports and errors use it.
    pub name: String,
    pub from: String,
    pub to: String,
    /// Constant rate; with a `models.rate_model` it is unused (leave it 0).
    #[serde(default)]
    pub rate_bps: u64,
    pub delay_ns: u64,
    /// None: an unbounded FIFO (a host's access link that never limits).
    #[serde(default)]
    pub queue: Option<QueueConfig>,
    /// Packet error rate, 0 <= p < 1.
    #[serde(default)]
    pub loss_rate: f64,
    #[serde(default)]
    pub models: LinkModelsConfig,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeConfig {
    /// Each packet leaving this node waits processing_delay_ns + uniform[0, processing_jitter_ns] before
    /// entering its next link (ns-2 `overhead_`, seed 001), in order.
    #[serde(default)]
    pub processing_delay_ns: u64,
    #[serde(default)]
    pub processing_jitter_ns: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    /// `{"name": "...", "variant": "...", parameters...}`; validated by the congestion-control registry.
    pub cc: serde_json::Value,
    /// Dumbbell only: the flow's own access links (sender to its router, the far router to the receiver;
    /// for a forward flow the left and right routers).
    #[serde(default)]
    pub src_access_delay_ns: u64,
    #[serde(default)]
    pub dst_access_delay_ns: u64,
    #[serde(default)]
    pub access_rate_bps: u64,
    #[serde(default)]
    pub start_ns: u64,
    /// The flow starts at `start_ns` plus a uniform draw from [0, start_jitter_ns] (whole ns) made by the
    /// run's seeded generator: phase diversity for replications of the same scenario.
    #[serde(default)]
    pub start_jitter_ns: u64,
    #[serde(default)]
    pub stop_ns: Option<u64>,
    #[serde(default = "default_recovery")]
    pub recovery: Recovery,
    #[serde(default)]
    pub delayed_ack: bool,
    /// With delayed ACKs, acknowledge this many first in-order segments at once (Linux's quick-ACK mode
    /// at a connection's start, up to 16; `tcp/receiver.rs`). 0: none (ns-2's DelAck, the default).
    #[serde(default)]
    pub quick_acks: u32,
    /// F-RTO spurious-timeout detection (`tcp/frto.rs`): `basic` or `sack`; absent: off.
    #[serde(default)]
    pub frto: Option<FrtoVariant>,
    /// What a spurious timeout costs with F-RTO: `halve` (default) or `undo`.
    #[serde(default)]
    pub frto_response: SpuriousResponse,
    #[serde(default = "default_initial_cwnd")]
    pub initial_cwnd: u32,
    #[serde(default = "default_rto_min")]
    pub rto_min_ns: u64,
    #[serde(default = "default_rwnd")]
    pub rwnd_packets: u64,
    /// Linux `snd_cwnd_clamp` in packets: the congestion window stops growing there (ns-2.35 TCP-Linux's
    /// window_, which seed 001 sets to 10000; `tcp::sender::SenderConfig::cwnd_clamp`). None: no clamp.
    #[serde(default)]
    pub cwnd_clamp_packets: Option<u32>,
    /// Send new data ECN-capable and answer the receiver's echoes (RFC 3168); marks come from a queue
    /// discipline with `ecn` on.
    #[serde(default)]
    pub ecn: bool,
    /// ns-2's `Agent/TCP overhead_` (seed 001 sets it to 8 us to break phase effects): waits drawn from
    /// uniform[0, overhead_ns], applied as `overhead_model` says.
    #[serde(default)]
    pub overhead_ns: u64,
    #[serde(default)]
    pub overhead_model: OverheadModel,
    /// With `topology`: the nodes from the sender to the receiver. ACKs take `ack_route`, by default the
    /// same nodes backwards. Not used with the dumbbell preset.
    #[serde(default)]
    pub route: Option<Vec<String>>,
    #[serde(default)]
    pub ack_route: Option<Vec<String>>,
    /// Dumbbell only: which way the data goes (`reverse`: right to left, over `bottleneck.reverse`, with
    /// the ACKs on `bottleneck`). Over links the route says it.
    #[serde(default)]
    pub direction: FlowDirection,
    /// A finite transfer of this many payload bytes, sent as ceil(size / payload) full segments; the flow
    /// ends when the last one is cumulatively acknowledged. None: a bulk flow (until `stop_ns` or the end).
    #[serde(default)]
    pub size_bytes: Option<u64>,
    /// A random start: `start_ns` plus a draw from this (ns), from the run's seed (flow i's own stream).
    #[serde(default)]
    pub start_draw_ns: Option<Distribution>,
    /// A random life: the flow stops writing at its start plus a draw from this (ns).
    #[serde(default)]
    pub duration_draw_ns: Option<Distribution>,
    /// The group the summary's `groups` count this flow in.
    #[serde(default)]
    pub group: Option<String>,
    /// At most `burst` packets back to back, then a hold of gap + uniform[0, jitter] (`tcp/burst.rs`).
    #[serde(default)]
    pub pacing: Option<BurstPacingConfig>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BurstPacingConfig {
    pub burst: u32,
    #[serde(default)]
    pub gap_ns: u64,
    #[serde(default)]
    pub jitter_ns: u64,
}

/// How a flow's `overhead_ns` delays its packets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OverheadModel {
    /// Each data packet waits its own draw after the send decision, in order, in a processing stage on
    /// the sender's access link (`net/processing.rs`). Dumbbell only.
    #[default]
    PerPacket,
    /// ns-2's agents: a send decision that finds room in the window arms a timer of one draw, and what
    /// the window allows at its expiry leaves then (`tcp/delayed_send.rs`).
    DelayedSend,
}

/// Which way a dumbbell flow sends its data.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FlowDirection {
    /// Left to right, over the bottleneck (seed 000's flows).
    #[default]
    Forward,
    /// Right to left, over the bottleneck's reverse link.
    Reverse,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    pub duration_ns: u64,
    #[serde(default)]
    pub measure_from_ns: u64,
    #[serde(default)]
    pub seed: u64,
    #[serde(default = "default_sample_interval")]
    pub sample_interval_ns: u64,
    /// Keep the start time of every loss event of the scenario's flows (`Simulation::loss_event_times`,
    /// seed 003's synchronisation ratio): 8 bytes per event, so memory then grows with simulated time;
    /// off by default.
    #[serde(default)]
    pub record_loss_events: bool,
    /// Count every RTT measurement of the scenario's flows over the measurement window in a log-linear
    /// histogram per flow (`Simulation::rtt_histograms`: the ACK-weighted distribution, where the time
    /// series' `rtt_s` samples weigh time): memory bounded (at most 30 KB a flow), off by default.
    #[serde(default)]
    pub rtt_histogram: bool,
}

impl ScenarioConfig {
    /// Payload bytes of a data segment.
    pub fn payload_size(&self) -> u32 {
        self.packet_size - self.header_size
    }

    pub fn from_json(text: &str) -> Result<Self, ConfigError> {
        let cfg: ScenarioConfig = serde_json::from_str(text).map_err(|e| err("config", e.to_string()))?;
        cfg.validate()?;
        Ok(cfg)
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.packet_size <= self.header_size || self.packet_size > 65_535 {
            return Err(err("network.packet_size", format!("must be above the header size ({}) and at most 65535 bytes", self.header_size)));
        }
        // Capped like packet_size: Rate::tx_time multiplies bytes by 8e9 in a u64 (a 4 GB ACK overflowed it:
        // tests/config_fuzz.rs).
        if self.ack_size == 0 || self.ack_size > 65_535 {
            return Err(err("network.ack_size", "must be at least 1 byte and at most 65535 bytes"));
        }
        match (&self.bottleneck, &self.topology) {
            (Some(b), None) => {
                if b.rate_bps == 0 && b.models.rate_model.is_none() {
                    return Err(err("network.bottleneck.rate", "must be above 0 bit/s"));
                }
                b.models.validate("network.bottleneck", b.loss_rate)?;
                b.reverse_models.validate("network.bottleneck.reverse", 0.0)?;
                let reverse_rate = b.reverse_rate_bps.unwrap_or(b.rate_bps);
                if reverse_rate == 0 && b.reverse_models.rate_model.is_none() {
                    return Err(err("network.bottleneck.reverse.rate", "a bottleneck whose rate follows a trace or schedule needs the rate of its reverse direction (above 0 bit/s)"));
                }
                if !(0.0..1.0).contains(&b.loss_rate) {
                    return Err(err("network.bottleneck.loss_rate", "must be in [0, 1)"));
                }
                validate_queue("network.bottleneck.queue", &b.queue)?;
                if let Some(q) = &b.reverse_queue {
                    validate_queue("network.bottleneck.reverse_queue", q)?;
                }
                // Each flow has 4 access links; event ids are 21 bits (crate::event::MAX_EVENT_ID).
                if 4 * self.flows.len() + 2 > crate::event::MAX_EVENT_ID as usize {
                    return Err(err("flows", format!("at most {} flows", (crate::event::MAX_EVENT_ID as usize - 2) / 4)));
                }
            }
            (None, Some(t)) => t.validate()?,
            (Some(_), Some(_)) => return Err(err("network", "give either a bottleneck (the dumbbell) or links, not both")),
            (None, None) => return Err(err("network", "a network needs a bottleneck (the dumbbell) or links")),
        }
        if self.flows.is_empty() && self.traffic.is_empty() {
            return Err(err("flows", "at least one flow or traffic source is needed"));
        }
        for (i, f) in self.flows.iter().enumerate() {
            if self.bottleneck.is_some() && f.access_rate_bps == 0 {
                return Err(err(format!("flows.{i}.access_rate"), "must be above 0 bit/s"));
            }
            // The whole initial window leaves at once and waits in the first hop, an unbounded access line:
            // 5e7 packets asked for 4.8 GB there (tests/config_fuzz.rs). A million is 1.5 GB of data in flight.
            if f.initial_cwnd == 0 || f.initial_cwnd > MAX_INITIAL_CWND {
                return Err(err(format!("flows.{i}.initial_cwnd"), format!("must be 1 to {MAX_INITIAL_CWND} packets")));
            }
            if f.pacing.as_ref().is_some_and(|p| p.burst == 0) {
                return Err(err(format!("flows.{i}.pacing.burst"), "at least 1 packet"));
            }
            if f.size_bytes == Some(0) {
                return Err(err(format!("flows.{i}.size"), "a transfer carries at least 1 byte"));
            }
            if f.rwnd_packets == 0 {
                return Err(err(format!("flows.{i}.rwnd"), "must be at least 1 packet"));
            }
            if f.cwnd_clamp_packets == Some(0) {
                return Err(err(format!("flows.{i}.cwnd_clamp"), "must be at least 1 packet"));
            }
            if let Some(d) = &f.start_draw_ns {
                d.validate().map_err(|m| err(format!("flows.{i}.start"), m))?;
                if f.start_jitter_ns > 0 {
                    return Err(err(format!("flows.{i}.start_jitter"), "a drawn start takes no jitter as well"));
                }
            }
            if let Some(d) = &f.duration_draw_ns {
                d.validate().map_err(|m| err(format!("flows.{i}.duration"), m))?;
                if f.stop_ns.is_some() {
                    return Err(err(format!("flows.{i}.duration"), "give either a stop or a duration, not both"));
                }
            }
            if f.stop_ns.is_some_and(|s| s <= f.start_ns.saturating_add(f.start_jitter_ns)) {
                return Err(err(format!("flows.{i}.stop"), "must be after start + start_jitter"));
            }
            let needs_route = self.topology.is_some();
            if needs_route && f.route.is_none() {
                return Err(err(format!("flows.{i}.route"), "a flow over links needs a route: the nodes from sender to receiver"));
            }
            if needs_route && f.overhead_ns > 0 && f.overhead_model == OverheadModel::PerPacket {
                return Err(err(format!("flows.{i}.overhead"), "over links, give the sending node a processing_jitter instead, or take overhead_model \"delayed-send\""));
            }
            if needs_route && f.direction == FlowDirection::Reverse {
                return Err(err(format!("flows.{i}.direction"), "over links the route gives the direction: list its nodes from the sender to the receiver"));
            }
            if !needs_route && (f.route.is_some() || f.ack_route.is_some()) {
                return Err(err(format!("flows.{i}.route"), "routes are given over links; the dumbbell (network.bottleneck) routes its flows itself"));
            }
        }
        for (k, t) in self.traffic.iter().enumerate() {
            let field = format!("traffic.{k}");
            if t.group.is_empty() {
                return Err(err(format!("{field}.group"), "must not be empty"));
            }
            t.size_bytes.validate().map_err(|m| err(format!("{field}.size"), m))?;
            match (&t.inter_arrival_ns, t.offered_load) {
                (Some(d), None) => d.validate().map_err(|m| err(format!("{field}.inter_arrival"), m))?,
                (None, Some(load)) if load.is_finite() && load > 0.0 => {}
                (None, Some(_)) => return Err(err(format!("{field}.offered_load"), "must be above 0")),
                _ => return Err(err(format!("{field}.arrivals"), "give either inter_arrival or offered_load")),
            }
            let f = &t.flow;
            if self.bottleneck.is_some() && f.access_rate_bps == 0 {
                return Err(err(format!("{field}.access_rate"), "must be above 0 bit/s"));
            }
            if self.topology.is_some() && f.route.is_none() {
                return Err(err(format!("{field}.route"), "connections over links need a route: the nodes from sender to receiver"));
            }
            if self.topology.is_some() && f.direction == FlowDirection::Reverse {
                return Err(err(format!("{field}.direction"), "over links the route gives the direction"));
            }
            if f.initial_cwnd == 0 || f.rwnd_packets == 0 || f.cwnd_clamp_packets == Some(0) {
                return Err(err(format!("{field}.initial_cwnd"), "windows must be at least 1 packet"));
            }
        }
        if self.bottleneck.is_some() && 4 * (self.flows.len() + self.traffic.len()) + 2 > crate::event::MAX_EVENT_ID as usize {
            return Err(err("traffic", "too many flows and sources for the dumbbell's access links"));
        }
        let r = &self.run;
        if r.duration_ns == 0 {
            return Err(err("run.duration", "must be above 0"));
        }
        if r.measure_from_ns >= r.duration_ns {
            return Err(err("run.measure_from", "must be before the end of the run (run.duration)"));
        }
        Ok(())
    }
}

impl TopologyConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        if self.links.is_empty() {
            return Err(err("network.links", "at least one link is needed"));
        }
        if self.links.len() > crate::event::MAX_EVENT_ID as usize {
            return Err(err("network.links", format!("at most {} links", crate::event::MAX_EVENT_ID)));
        }
        let mut names = std::collections::BTreeSet::new();
        let mut ends = std::collections::BTreeSet::new();
        for (i, l) in self.links.iter().enumerate() {
            let field = format!("network.links.{i}");
            if l.name.is_empty() {
                return Err(err(format!("{field}.name"), "must not be empty"));
            }
            if !names.insert(l.name.as_str()) {
                return Err(err(format!("{field}.name"), format!("'{}' names two links; link names must be unique", l.name)));
            }
            if l.from == l.to {
                return Err(err(format!("{field}.to"), format!("a link joins two different nodes ('{}' to itself)", l.from)));
            }
            if !ends.insert((l.from.as_str(), l.to.as_str())) {
                return Err(err(format!("{field}.to"), format!("a second link from '{}' to '{}'; one link per direction and pair of nodes", l.from, l.to)));
            }
            if l.rate_bps == 0 && l.models.rate_model.is_none() {
                return Err(err(format!("{field}.rate"), "must be above 0 bit/s"));
            }
            l.models.validate(&field, l.loss_rate)?;
            if !(0.0..1.0).contains(&l.loss_rate) {
                return Err(err(format!("{field}.loss_rate"), "must be in [0, 1)"));
            }
            if let Some(q) = &l.queue {
                validate_queue(&format!("{field}.queue"), q)?;
            }
        }
        if let Some(b) = &self.bottleneck {
            if !names.contains(b.as_str()) {
                return Err(err("network.bottleneck_link", format!("no link is named '{b}'")));
            }
        }
        for name in self.nodes.keys() {
            if !self.links.iter().any(|l| &l.from == name || &l.to == name) {
                return Err(err(format!("network.nodes.{name}"), "no link touches this node"));
            }
        }
        Ok(())
    }
}

fn validate_queue(field: &str, q: &QueueConfig) -> Result<(), ConfigError> {
    crate::net::queue::registry::check(field, &q.discipline, &q.params)?;
    if q.limit_packets == 0 {
        return Err(err(format!("{field}.size"), "a queue must hold at least 1 packet"));
    }
    if q.limit_bytes == Some(0) {
        return Err(err(format!("{field}.size"), "a queue must hold at least 1 byte"));
    }
    Ok(())
}
