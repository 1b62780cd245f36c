//! BBR v1 (Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson, "BBR: Congestion-Based Congestion Control",
//! ACM Queue 14(5), 2016), following Linux `net/ipv4/tcp_bbr.c` of 4.9-5.x (fact sheet §2.13).
//!
//! Model (this file): BtlBw = windowed max of delivery-rate samples over `bw_window_rounds` rounds, a round
//! ending when a segment sent after the previous round's end is delivered (`bbr_update_bw`); RTprop =
//! windowed min RTT over `min_rtt_window_ns` (`probe_rtt.rs`). Control:
//!   pacing_rate = pacing_gain * BtlBw * (100 - margin)%                     (`bbr_bw_to_pacing_rate`)
//!   cwnd target = ceil(cwnd_gain * BtlBw * RTprop) + 3 * TSO goal, rounded up to even, +2 in the 1.25
//!                 phase of PROBE_BW                                          (`bbr_bdp`, `bbr_quantization_budget`)
//!   cwnd        = min(cwnd + acked, target) once the pipe is full; before, + acked while below target
//! Modes, one file each: `startup.rs` (gain 2/ln2 ~ 739/256, full-pipe detection), `drain.rs` (gain
//! 88/256 until inflight <= BDP), `probe_bw.rs` (8-phase gain cycle), `probe_rtt.rs` (cwnd 4 for 200 ms
//! every 10 s without a new min RTT); `long_term.rs` is the policer detector (`lt_bw`).
//! Loss (`bbr_set_cwnd_to_recover_or_restore`): cwnd -= newly lost packets; packet conservation
//! (cwnd >= inflight + acked) for the first round of Recovery; the cwnd saved at the loss
//! (`bbr_save_cwnd`) is restored when Recovery or Loss ends. An RTO leaves cwnd 1 (sender) and resets
//! full_bw (`bbr_set_state`).
//!
//! Fixed point as Linux: bandwidth in packets per microsecond << 24 (`BW_SCALE`), gains in 1/256
//! (`BBR_SCALE`); times in integer ns where Linux uses µs or jiffies.
//!
//! Mapping onto the sender's hooks: Linux runs everything in `cong_control` after the ACK's state
//! change; here `on_ack_sample` runs the model and cwnd before the sender's state change, and the hooks
//! apply the transitions: `on_congestion_event` = `ssthresh()` (save cwnd) + the first Recovery ACK
//! (conservation), `on_recovery_exit` = restore, `on_timeout` = `ssthresh()` + `set_state(Loss)`. The end
//! of the Loss state has no hook: it is seen on the next ACK (`AckSample::in_recovery` false).
//!
//! Variants: `linux` (default, Linux 5.x: 1 % pacing margin, +2 cwnd in the 1.25 phase) and `linux-4.9`
//! (neither). Not implemented: the ACK-aggregation cwnd allowance (`extra_acked`, Linux 5.1+: our ACKs
//! are not aggregated), idle restart (`CA_EVENT_TX_START`: a bulk sender never idles), EDT in-flight
//! estimate (`bbr_packets_in_net_at_edt`).

mod drain;
mod long_term;
mod probe_bw;
mod probe_rtt;
mod startup;
#[cfg(test)]
mod tests;

use super::registry::{Algorithm, AlgorithmInfo, ParamDoc};
use super::{AckSample, AnyCc, CongestionControl, CongestionEvent, FlowContext, RateSample, StateField};
use crate::config::{err, ConfigError};
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};
use long_term::LongTermBw;
use serde::{Deserialize, Serialize};

/// Bandwidth fixed point: packets per microsecond << 24 (Linux `BW_SCALE`).
const BW_SCALE: u32 = 24;
const BW_UNIT: u128 = 1 << BW_SCALE;
/// Gains are stored in 1/256 (Linux `BBR_SCALE`).
const BBR_SCALE: u32 = 8;
const BBR_UNIT: u32 = 1 << BBR_SCALE;
/// Linux `TCP_INIT_CWND`: BDP assumed before any RTT sample, and delivered count below which STARTUP
/// grows the window whatever the target.
const TCP_INIT_CWND: u32 = 10;
const NS_PER_US: u128 = 1_000;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BbrConfig {
    /// STARTUP pacing and cwnd gain (and DRAIN cwnd gain), in 1/256: 739 = 2885/1000 * 256 + 1 ~ 2/ln 2
    /// (Linux `bbr_high_gain`; the paper's 2/ln2).
    pub high_gain: u32,
    /// DRAIN pacing gain in 1/256: 88 = 256 * 1000 / 2885 (Linux `bbr_drain_gain`, paper ln2/2).
    pub drain_gain: u32,
    /// PROBE_BW cwnd gain in 1/256: 512 = 2 (Linux `bbr_cwnd_gain`).
    pub cwnd_gain: u32,
    /// PROBE_BW pacing gains in 1/256, one phase per RTprop: [320, 192, 256 x 6] = [1.25, 0.75, 1 x 6]
    /// (Linux `bbr_pacing_gain`).
    pub pacing_gain_cycle: [u32; 8],
    /// Rounds over which BtlBw is the max delivery rate: 10 (Linux `bbr_bw_rtts` = CYCLE_LEN + 2).
    pub bw_window_rounds: u32,
    /// RTprop filter window, ns: 10 s (Linux `bbr_min_rtt_win_sec`).
    pub min_rtt_window_ns: u64,
    /// Time at cwnd `cwnd_min_target` in PROBE_RTT, ns: 200 ms (Linux `bbr_probe_rtt_mode_ms`).
    pub probe_rtt_duration_ns: u64,
    /// Smallest cwnd outside recovery, and the PROBE_RTT cwnd, packets: 4 (Linux `bbr_cwnd_min_target`).
    pub cwnd_min_target: u32,
    /// BtlBw growth (1/256) that counts as "still growing" in STARTUP: 320 = 1.25 (`bbr_full_bw_thresh`).
    pub full_bw_threshold: u32,
    /// Rounds without such growth that mean the pipe is full: 3 (Linux `bbr_full_bw_cnt`).
    pub full_bw_rounds: u32,
    /// Pacing rate kept below the model, percent: 1 in Linux >= 5.0 (`bbr_pacing_margin_percent`), 0 in 4.9.
    pub pacing_margin_percent: u32,
    /// Packets added to the cwnd target in the 1.25 phase of PROBE_BW: 2 in Linux >= 5.0
    /// (`bbr_quantization_budget`), 0 in 4.9.
    pub probe_cwnd_extra: u32,
    /// Quantization budget of 3 TSO bursts sized as Linux does (`bbr_tso_segs_goal`: ~1 ms of data at the
    /// pacing rate, 1-2 to 127 segments, at most 64 KB): true (Linux). False: 3 single-packet bursts (a
    /// sender without segmentation offload, as this simulator's).
    pub tso_autosize: bool,
    /// Long-term bandwidth sampling, Linux's token-bucket policer detection (`bbr_lt_bw_sampling`): true.
    pub long_term_bw: bool,
}

impl Algorithm for BbrConfig {
    const INFO: AlgorithmInfo = AlgorithmInfo {
        name: "bbr",
        aliases: &["bbr1"],
        summary: "BBR v1: paces at the measured bottleneck bandwidth, cwnd 2 BDP, gain cycling (Cardwell et al. 2016)",
        default_variant: "linux",
        variants: &[
            ("linux", "Linux 5.x tcp_bbr.c: 1 % pacing margin, +2 cwnd in the 1.25 phase; no ACK-aggregation allowance"),
            ("linux-4.9", "Linux 4.9 tcp_bbr.c (first release): no pacing margin, no +2 in the 1.25 phase"),
        ],
        params: &[
            ParamDoc { name: "high_gain", doc: "STARTUP gain in 1/256 (739 ~ 2/ln2)" },
            ParamDoc { name: "drain_gain", doc: "DRAIN pacing gain in 1/256 (88 ~ ln2/2)" },
            ParamDoc { name: "cwnd_gain", doc: "PROBE_BW cwnd gain in 1/256 (512 = 2)" },
            ParamDoc { name: "pacing_gain_cycle", doc: "8 PROBE_BW pacing gains in 1/256 ([320, 192, 256 x 6])" },
            ParamDoc { name: "bw_window_rounds", doc: "BtlBw max-filter window, rounds (10)" },
            ParamDoc { name: "min_rtt_window_ns", doc: "RTprop min-filter window, ns (10 s)" },
            ParamDoc { name: "probe_rtt_duration_ns", doc: "PROBE_RTT duration, ns (200 ms)" },
            ParamDoc { name: "cwnd_min_target", doc: "minimum / PROBE_RTT cwnd, packets (4)" },
            ParamDoc { name: "full_bw_threshold", doc: "STARTUP growth that counts, 1/256 (320 = 25 %)" },
            ParamDoc { name: "full_bw_rounds", doc: "rounds without that growth before leaving STARTUP (3)" },
            ParamDoc { name: "pacing_margin_percent", doc: "pace this many percent below the model (1; 4.9: 0)" },
            ParamDoc { name: "probe_cwnd_extra", doc: "cwnd packets added in the 1.25 phase (2; 4.9: 0)" },
            ParamDoc { name: "tso_autosize", doc: "quantization budget 3 x Linux TSO goal (true) or 3 packets (false)" },
            ParamDoc { name: "long_term_bw", doc: "policer detection by long-term bandwidth sampling (true)" },
        ],
    };

    fn variant(name: &str) -> Option<Self> {
        let linux = BbrConfig {
            high_gain: 739,
            drain_gain: 88,
            cwnd_gain: 512,
            pacing_gain_cycle: [320, 192, 256, 256, 256, 256, 256, 256],
            bw_window_rounds: 10,
            min_rtt_window_ns: 10_000_000_000,
            probe_rtt_duration_ns: 200_000_000,
            cwnd_min_target: 4,
            full_bw_threshold: 320,
            full_bw_rounds: 3,
            pacing_margin_percent: 1,
            probe_cwnd_extra: 2,
            tso_autosize: true,
            long_term_bw: true,
        };
        match name {
            "linux" => Some(linux),
            "linux-4.9" => Some(BbrConfig { pacing_margin_percent: 0, probe_cwnd_extra: 0, ..linux }),
            _ => None,
        }
    }

    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if self.high_gain == 0 || self.drain_gain == 0 || self.cwnd_gain == 0 || self.pacing_gain_cycle.contains(&0) {
            return Err(err(field, "gains must be at least 1 (in 1/256)"));
        }
        if self.pacing_margin_percent >= 100 {
            return Err(err(format!("{field}.pacing_margin_percent"), "must be below 100"));
        }
        if self.bw_window_rounds == 0 || self.full_bw_rounds == 0 {
            return Err(err(field, "bw_window_rounds and full_bw_rounds must be at least 1"));
        }
        if self.cwnd_min_target == 0 {
            return Err(err(format!("{field}.cwnd_min_target"), "must be at least 1 packet"));
        }
        Ok(())
    }

    /// Packet size and random stream are placeholders until the simulation calls `attach`.
    fn build(self, initial_cwnd: u32) -> AnyCc {
        Bbr::new(self, initial_cwnd, 1500, SimRng::new(0, 0)).into()
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// The sender's loss state as BBR tracks it (Linux `prev_ca_state`, reduced to what BBR tests).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum LossState {
    Open,
    Recovery,
    Loss,
}

/// Windowed max over rounds keeping the best, second- and third-best samples of sub-windows (Linux
/// `lib/minmax.c`, Kathleen Nichols' algorithm).
#[derive(Clone, Copy, Debug, Default)]
struct WindowedMax {
    /// (round, value), best first.
    s: [(u64, u64); 3],
}

impl WindowedMax {
    fn get(&self) -> u64 {
        self.s[0].1
    }
    fn reset(&mut self, t: u64, v: u64) -> u64 {
        self.s = [(t, v); 3];
        v
    }
    /// `minmax_running_max`.
    fn update(&mut self, win: u64, t: u64, v: u64) -> u64 {
        if v >= self.s[0].1 || t - self.s[0].0 > win {
            return self.reset(t, v);
        }
        if v >= self.s[1].1 {
            self.s[2] = (t, v);
            self.s[1] = (t, v);
        } else if v >= self.s[2].1 {
            self.s[2] = (t, v);
        }
        // `minmax_subwin_update`: age out the best sample, refresh the others after 1/4 and 1/2 window.
        let dt = t - self.s[0].0;
        if dt > win {
            self.s = [self.s[1], self.s[2], (t, v)];
            if t - self.s[0].0 > win {
                self.s = [self.s[1], self.s[2], (t, v)];
            }
        } else if self.s[1].0 == self.s[0].0 && dt > win / 4 {
            self.s[1] = (t, v);
            self.s[2] = (t, v);
        } else if self.s[2].0 == self.s[1].0 && dt > win / 2 {
            self.s[2] = (t, v);
        }
        self.s[0].1
    }
}

/// `bbr_update_bw`'s sample: packets delivered per interval, in packets per microsecond << 24. In u64
/// when the product fits (below 2^40 / 1000, about 1.1e9 packets delivered), else in u128: the same
/// quotient either way.
fn delivery_rate(delivered: u64, interval: SimDuration) -> u64 {
    match (delivered << BW_SCALE).checked_mul(NS_PER_US as u64) {
        Some(scaled) if delivered >> (64 - BW_SCALE) == 0 => scaled / interval.as_nanos(),
        _ => (delivered as u128 * BW_UNIT * NS_PER_US / interval.as_nanos() as u128) as u64,
    }
}

/// The last result of a pure computation and its inputs.
#[derive(Clone, Copy, Debug)]
struct Memo<K, V> {
    last: Option<(K, V)>,
}

impl<K, V> Default for Memo<K, V> {
    fn default() -> Self {
        Memo { last: None }
    }
}

impl<K: PartialEq + Copy, V: Copy> Memo<K, V> {
    #[inline]
    fn get(&self, inputs: K) -> Option<V> {
        self.last.filter(|(k, _)| *k == inputs).map(|(_, v)| v)
    }
    fn set(&mut self, inputs: K, value: V) -> V {
        self.last = Some((inputs, value));
        value
    }
}

/// What the cwnd target depends on besides the configuration and packet size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct CwndTargetInputs {
    bw: u64,
    min_rtt: Option<SimDuration>,
    gain: u32,
    /// TSO burst size (`tso_segs_goal`).
    pacing_rate_bps: u64,
    /// PROBE_BW's 1.25 phase (`probe_cwnd_extra`).
    probing: bool,
}

pub struct Bbr {
    cfg: BbrConfig,
    /// Wire bytes of a data packet (turns packets/µs into bit/s).
    packet_size: u32,
    /// Draws the PROBE_BW start phase.
    rng: SimRng,
    cwnd: u32,
    /// Only set on entering DRAIN, to the BDP (Linux does it for tcp_info); reported, never used.
    ssthresh: u32,
    mode: Mode,

    /// BtlBw filter over rounds, packets/µs << 24.
    max_bw: WindowedMax,
    /// Rounds since the start (Linux `rtt_cnt`).
    round_count: u64,
    /// The round ends when a segment sent after this many deliveries is delivered.
    next_round_delivered: u64,
    /// This ACK started a new round.
    round_start: bool,
    /// RTprop and when it was last set.
    min_rtt: Option<SimDuration>,
    min_rtt_stamp: SimTime,

    /// STARTUP: the pipe is full (set once; Linux never clears it).
    full_bw_reached: bool,
    /// BtlBw at the last round that grew by `full_bw_threshold`, and rounds since.
    full_bw: u64,
    full_bw_count: u32,

    /// PROBE_BW: current phase of `pacing_gain_cycle` and when it began (a delivery time).
    cycle_index: usize,
    cycle_stamp: SimTime,

    /// PROBE_RTT: when it may end (set once inflight is down to `cwnd_min_target`), and whether a round
    /// has passed since.
    probe_rtt_done_stamp: Option<SimTime>,
    probe_rtt_round_done: bool,

    loss_state: LossState,
    /// cwnd saved at a loss or on entering PROBE_RTT, restored after (Linux `prior_cwnd`).
    prior_cwnd: u32,
    /// First round of Recovery: cwnd >= inflight + acked.
    packet_conservation: bool,
    /// Values of the last ACK, for the hooks the sender calls after it on the same ACK.
    cwnd_before_ack: u32,
    last_in_flight: u32,
    last_acked_sacked: u32,

    pacing_gain: u32,
    cwnd_gain: u32,
    pacing_rate_bps: u64,
    /// The last `rate_bps` of `set_pacing_rate` and the cwnd target of `set_cwnd`, with their inputs:
    /// both are computed on every ACK from inputs that change a few times per round. (The configuration
    /// and packet size, also inputs, are fixed once `attach` has run; it empties both.)
    pacing_rate_memo: Memo<(u64, u32), u64>,
    cwnd_target_memo: Memo<CwndTargetInputs, u32>,
    /// The pacing rate has been set from a smoothed RTT (Linux `has_seen_rtt`).
    has_seen_rtt: bool,
    long_term: LongTermBw,
    /// Connection totals from the last rate sample (Linux `tp->delivered`, `tp->lost`, `delivered_mstamp`).
    delivered: u64,
    lost: u64,
    delivered_time: SimTime,
}

impl Bbr {
    pub fn new(cfg: BbrConfig, initial_cwnd: u32, packet_size: u32, rng: SimRng) -> Self {
        let mut bbr = Bbr {
            packet_size,
            rng,
            cwnd: initial_cwnd.max(1),
            ssthresh: super::common::INFINITE_SSTHRESH,
            mode: Mode::Startup,
            max_bw: WindowedMax::default(),
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            min_rtt: None,
            min_rtt_stamp: SimTime::ZERO,
            full_bw_reached: false,
            full_bw: 0,
            full_bw_count: 0,
            cycle_index: 0,
            cycle_stamp: SimTime::ZERO,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            loss_state: LossState::Open,
            prior_cwnd: 0,
            packet_conservation: false,
            cwnd_before_ack: initial_cwnd.max(1),
            last_in_flight: 0,
            last_acked_sacked: 0,
            pacing_gain: cfg.high_gain,
            cwnd_gain: cfg.high_gain,
            pacing_rate_bps: 0,
            pacing_rate_memo: Memo::default(),
            cwnd_target_memo: Memo::default(),
            has_seen_rtt: false,
            long_term: LongTermBw::default(),
            delivered: 0,
            lost: 0,
            delivered_time: SimTime::ZERO,
            cfg,
        };
        bbr.init_pacing_rate_from_rtt(None);
        bbr
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// BtlBw estimate, packets/µs << 24 (Linux `bbr_max_bw`).
    fn max_bw(&self) -> u64 {
        self.max_bw.get()
    }
    /// Bandwidth the controls use: the policed rate once detected, else BtlBw (Linux `bbr_bw`).
    fn bw(&self) -> u64 {
        if self.long_term.use_bw {
            self.long_term.bw
        } else {
            self.max_bw()
        }
    }

    /// `bbr_rate_bytes_per_sec` in bit/s: bw * packet bits * gain * (100 - margin)%, per second.
    fn rate_bps(&self, bw: u64, gain: u32) -> u64 {
        let mut rate = bw as u128 * self.packet_size as u128 * 8;
        rate = (rate * gain as u128) >> BBR_SCALE;
        rate *= 1_000_000 / 100 * (100 - self.cfg.pacing_margin_percent as u128);
        (rate >> BW_SCALE) as u64
    }

    /// `bbr_init_pacing_rate_from_rtt`: high gain times cwnd per smoothed RTT (1 ms before any sample).
    fn init_pacing_rate_from_rtt(&mut self, srtt: Option<SimDuration>) {
        let rtt_ns = match srtt {
            Some(srtt) => {
                self.has_seen_rtt = true;
                srtt.as_nanos().max(1)
            }
            None => 1_000_000,
        };
        let bw = (self.cwnd as u128 * BW_UNIT * NS_PER_US / rtt_ns as u128) as u64;
        self.pacing_rate_bps = self.rate_bps(bw, self.cfg.high_gain);
    }

    /// `bbr_set_pacing_rate`: never lower the rate before the pipe is full.
    fn set_pacing_rate(&mut self, bw: u64, gain: u32, srtt: Option<SimDuration>) {
        let rate = match self.pacing_rate_memo.get((bw, gain)) {
            Some(rate) => rate,
            None => self.pacing_rate_memo.set((bw, gain), self.rate_bps(bw, gain)),
        };
        if !self.has_seen_rtt && srtt.is_some() {
            self.init_pacing_rate_from_rtt(srtt);
        }
        if self.full_bw_reached || rate > self.pacing_rate_bps {
            self.pacing_rate_bps = rate;
        }
    }

    /// `bbr_bdp`: ceil(gain * bw * RTprop) packets; TCP_INIT_CWND before any RTT sample.
    fn bdp(&self, bw: u64, gain: u32) -> u32 {
        let Some(min_rtt) = self.min_rtt else { return TCP_INIT_CWND };
        let w = bw as u128 * min_rtt.as_nanos() as u128;
        let scaled = (w * gain as u128) >> BBR_SCALE;
        scaled.div_ceil(BW_UNIT * NS_PER_US).min(u32::MAX as u128) as u32
    }

    /// `bbr_tso_segs_goal` (5.x): segments per send burst, ~1 ms of data at the pacing rate
    /// (`sk_pacing_shift` 10), at least 1 below 1.2 Mbit/s and 2 above, at most 64 KB and 127 segments.
    fn tso_segs_goal(&self) -> u32 {
        if !self.cfg.tso_autosize {
            return 1;
        }
        let min_segs = if self.pacing_rate_bps < 1_200_000 { 1 } else { 2 };
        let bytes = (self.pacing_rate_bps / 8 >> 10).min(65_535);
        ((bytes / self.packet_size as u64) as u32).max(min_segs).min(127)
    }

    /// `bbr_quantization_budget`: room for 3 send bursts, rounded up to even, +extra in the 1.25 phase.
    fn quantization_budget(&self, cwnd: u32) -> u32 {
        let mut cwnd = cwnd.saturating_add(3 * self.tso_segs_goal());
        cwnd = (cwnd.saturating_add(1)) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_index == 0 {
            cwnd = cwnd.saturating_add(self.cfg.probe_cwnd_extra);
        }
        cwnd
    }

    /// `bbr_inflight`: the in-flight target for a gain.
    fn inflight(&self, bw: u64, gain: u32) -> u32 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// `bbr_inflight(bw, cwnd_gain)` plus the 1.25 phase's extra (`bbr_set_cwnd`'s target), from the
    /// memo when its inputs are those of the last call.
    fn cwnd_target(&mut self, bw: u64) -> u32 {
        let inputs = CwndTargetInputs {
            bw,
            min_rtt: self.min_rtt,
            gain: self.cwnd_gain,
            pacing_rate_bps: self.pacing_rate_bps,
            probing: self.mode == Mode::ProbeBw && self.cycle_index == 0,
        };
        match self.cwnd_target_memo.get(inputs) {
            Some(target) => target,
            None => self.cwnd_target_memo.set(inputs, self.quantization_budget(self.bdp(bw, self.cwnd_gain))),
        }
    }

    /// `bbr_save_cwnd`: remember the cwnd to restore, keeping the larger one if already reduced.
    fn save_cwnd(&mut self, cwnd: u32) {
        if self.loss_state == LossState::Open && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    /// `bbr_reset_mode`: STARTUP until the pipe is full, PROBE_BW after.
    fn reset_mode(&mut self) {
        if self.full_bw_reached {
            self.enter_probe_bw();
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// `bbr_update_bw`: round counting by delivered packets, then the BtlBw filter. App-limited samples
    /// count only when they raise the max.
    fn update_bw(&mut self, rs: &RateSample) {
        self.round_start = false;
        if !rs.is_valid() {
            return;
        }
        if rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = rs.total_delivered;
            self.round_count += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.long_term_bw_sampling(rs);
        let bw = delivery_rate(rs.delivered, rs.interval);
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.max_bw.update(self.cfg.bw_window_rounds as u64, self.round_count, bw);
        }
    }

    /// `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (self.cfg.high_gain, self.cfg.high_gain),
            Mode::Drain => (self.cfg.drain_gain, self.cfg.high_gain),
            Mode::ProbeBw => {
                let pacing = if self.long_term.use_bw { BBR_UNIT } else { self.cfg.pacing_gain_cycle[self.cycle_index] };
                (pacing, self.cfg.cwnd_gain)
            }
            Mode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
    }

    /// `bbr_set_cwnd` with `bbr_set_cwnd_to_recover_or_restore` (the transitions themselves are the hooks).
    fn set_cwnd(&mut self, rs: &RateSample, in_flight: u32, bw: u64) {
        let acked = rs.acked_sacked;
        if acked > 0 {
            let mut cwnd = self.cwnd;
            if rs.losses > 0 {
                cwnd = cwnd.saturating_sub(rs.losses).max(1);
            }
            if self.packet_conservation {
                cwnd = cwnd.max(in_flight + acked);
            } else {
                let target = self.cwnd_target(bw);
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || self.delivered < TCP_INIT_CWND as u64 {
                    cwnd += acked;
                }
                cwnd = cwnd.max(self.cfg.cwnd_min_target);
            }
            self.cwnd = cwnd;
        }
        self.clamp_in_probe_rtt();
    }

    fn clamp_in_probe_rtt(&mut self) {
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(self.cfg.cwnd_min_target);
        }
    }

    /// End of Recovery or Loss: back to at least the cwnd before the loss.
    fn restore_after_loss(&mut self) {
        self.cwnd = self.cwnd.max(self.prior_cwnd);
        self.packet_conservation = false;
        self.loss_state = LossState::Open;
        self.clamp_in_probe_rtt();
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    fn wants_rate_samples(&self) -> bool {
        true
    }

    fn attach(&mut self, ctx: FlowContext) {
        self.packet_size = ctx.packet_size;
        self.rng = ctx.rng;
        self.pacing_rate_memo = Memo::default();
        self.cwnd_target_memo = Memo::default();
        self.init_pacing_rate_from_rtt(None);
    }

    /// Linux `bbr_main`, on every ACK that delivers data.
    fn on_ack_sample(&mut self, s: &AckSample) {
        let Some(rs) = &s.rate else { return };
        self.cwnd_before_ack = self.cwnd;
        self.last_in_flight = s.in_flight;
        self.last_acked_sacked = rs.acked_sacked;
        self.delivered = rs.total_delivered;
        self.lost = rs.total_lost;
        self.delivered_time = rs.delivered_time;
        if self.loss_state == LossState::Loss && !s.in_recovery {
            self.restore_after_loss();
        }
        // bbr_update_model
        self.update_bw(rs);
        self.update_cycle_phase(s.prior_in_flight, rs);
        self.check_full_bw_reached(rs);
        self.check_drain(s.in_flight);
        self.update_min_rtt(s.now, s.rtt, s.in_flight);
        self.update_gains();

        let bw = self.bw();
        self.set_pacing_rate(bw, self.pacing_gain, s.srtt);
        self.set_cwnd(rs, s.in_flight, bw);
    }

    /// Growth happens in `on_ack_sample` (Linux `cong_control` replaces `cong_avoid`).
    fn on_ack(&mut self, _sample: &AckSample) {}

    /// Linux `bbr_ssthresh` (save cwnd as it was before this ACK) and the first ACK of Recovery: packet
    /// conservation, cwnd = inflight + acked, for one round.
    fn on_congestion_event(&mut self, _e: &CongestionEvent) {
        self.save_cwnd(self.cwnd_before_ack);
        self.loss_state = LossState::Recovery;
        self.packet_conservation = true;
        self.next_round_delivered = self.delivered;
        self.cwnd = (self.last_in_flight + self.last_acked_sacked).max(1);
        self.clamp_in_probe_rtt();
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.restore_after_loss();
    }

    /// Linux `bbr_ssthresh` on the first timeout, then `bbr_set_state(TCP_CA_Loss)`: the RTO ends a round,
    /// forgets full_bw and counts as a loss for the policer detector. The sender's loss window is 1.
    fn on_timeout(&mut self, _now: SimTime, first_in_episode: bool) {
        if first_in_episode {
            self.save_cwnd(self.cwnd);
        }
        self.loss_state = LossState::Loss;
        self.full_bw = 0;
        self.round_start = true;
        self.long_term_bw_sampling(&RateSample { losses: 1, ..RateSample::default() });
        self.cwnd = 1;
    }

    /// BBR recomputes its window from the model on every ACK, so a window set by the `linux-2.6` recovery
    /// mode (a 2.6-era rule BBR never ran under) lasts until the next ACK.
    fn set_cwnd(&mut self, cwnd: u32) {
        self.cwnd = cwnd.max(1);
    }

    fn cwnd(&self) -> u32 {
        self.cwnd
    }
    fn ssthresh(&self) -> u32 {
        self.ssthresh
    }
    /// The `linux-2.6` recovery mode sets cwnd = min_cwnd() at entry, by default ssthresh; BBR keeps none
    /// (Linux's TCP_INFINITE_SSTHRESH, 2^31 - 1), so the window became 2^31 - 1 (found by
    /// tests/properties.rs). BBR's own window of the congestion event (packet conservation,
    /// `on_congestion_event`) is the floor instead.
    fn min_cwnd(&self) -> u32 {
        self.cwnd
    }
    fn pacing_rate_bps(&self) -> Option<u64> {
        Some(self.pacing_rate_bps)
    }
    fn marks_app_limited(&self) -> bool {
        self.mode == Mode::ProbeRtt
    }

    fn state(&self, out: &mut Vec<StateField>) {
        let mode = match self.mode {
            Mode::Startup => 0.0,
            Mode::Drain => 1.0,
            Mode::ProbeBw => 2.0,
            Mode::ProbeRtt => 3.0,
        };
        out.push(("mode", mode));
        out.push(("btl_bw_bps", self.rate_bps_unmargined(self.max_bw()) as f64));
        out.push(("min_rtt_s", self.min_rtt.map_or(f64::NAN, |r| r.as_secs_f64())));
        out.push(("pacing_gain", self.pacing_gain as f64 / BBR_UNIT as f64));
        out.push(("cwnd_gain", self.cwnd_gain as f64 / BBR_UNIT as f64));
        out.push(("pacing_rate_bps", self.pacing_rate_bps as f64));
    }
}

impl Bbr {
    /// A bandwidth in bit/s without gain or margin (for traces).
    fn rate_bps_unmargined(&self, bw: u64) -> u64 {
        ((bw as u128 * self.packet_size as u128 * 8 * 1_000_000) >> BW_SCALE) as u64
    }
}
