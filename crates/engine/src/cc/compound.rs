//! Compound TCP (Tan, Song, Zhang, Sridharan, INFOCOM 2006; draft-sridharan-tcpm-ctcp), fact sheet §2.9.
//!
//! Two windows: cwnd, the loss-based Reno part, and dwnd, the delay-based part; the sender uses their sum
//! win = cwnd + dwnd (`cwnd()` returns win). The rules (paper eq. 4-6, seed 001 Table I):
//!
//!   each ACK in congestion avoidance:   cwnd += 1 / win
//!   end of a round, diff <  gamma:      dwnd += max(alpha · win^k - 1, 0)
//!   end of a round, diff >= gamma:      dwnd  = max(dwnd - zeta · diff, 0)
//!   loss (fast retransmit):             cwnd  = cwnd / 2,  dwnd = max(win (1 - beta) - cwnd / 2, 0)
//!
//! with the Vegas backlog estimate diff = (win/baseRTT - win/RTT) · baseRTT = win (RTT - baseRTT) / RTT
//! (eq. 1), baseRTT the smallest RTT of the connection and RTT the smallest RTT of the round just ended (as
//! Vegas and the Linux port filter delayed ACKs). A round ends when snd_una passes the snd_nxt recorded at
//! its start, as Linux Vegas counts rounds. On a loss win becomes win (1 - beta) when dwnd stays positive
//! (both parts halved), ssthresh = win (1 - beta); an RTO sets cwnd = 1, dwnd = 0.
//!
//! win^k is computed deterministically for k a multiple of 1/4 as the fourth root of win^(4k): f64
//! sqrt(sqrt(win^(4k))) in the paper variant (IEEE sqrt is correctly rounded, win^3 is exact below 2^17
//! packets), an exact integer floor root isqrt(isqrt(win^(4k))) in the port.
//!
//! Variants:
//! - `paper` (default): the constants alpha 1/8, beta 1/2, k 0.75, gamma 30 packets, zeta 1; real-valued
//!   dwnd; diff from win at the round's end; Reno slow start with dwnd = 0 (the paper lets the delay part
//!   act only in congestion avoidance [fact sheet §4: not re-read in the paper]); RFC 5681 packet counting.
//!   No low-window threshold: alpha · win^k - 1 > 0 only above win = 16 anyway.
//! - `linux-2.6.22`: the Castellani/Hemminger `tcp_compound.c` bundled with ns-2.35 TCP-Linux (never in
//!   mainline Linux; the module seed 001's Figure 1 was produced with): diff from old_wnd, the packets sent
//!   in the last round, with one fractional bit; integer dwnd steps floor(isqrt(isqrt(old_wnd^3)) / 8) - 1;
//!   at least 3 RTT samples per round; dwnd adjusted in slow start too; ACK counting with slow start while
//!   the Reno part <= ssthresh; and on loss the core's Reno rule ssthresh = win/2 on the total, after
//!   which the module re-splits: Reno part = win/2 - dwnd, or dwnd = 0 and Reno part = win/2 when either
//!   part alone exceeds win/2. dwnd is not halved.
//! L. Andrew's CTCP 1.3 (low window 38, paced dwnd, gamma tuning) and the Windows TUBE gamma tuning are
//! not implemented.

use super::common::{reno_min_cwnd, Counting, Window, INFINITE_SSTHRESH};
use super::registry::{Algorithm, AlgorithmInfo, ParamDoc};
use super::{AckSample, AnyCc, CongestionControl, CongestionEvent, StateField};
use crate::config::{err, ConfigError};
use crate::time::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};

/// How a loss splits the reduced window between the two parts.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LossSplit {
    /// Table I: cwnd = cwnd/2, dwnd = max(win (1 - beta) - cwnd/2, 0).
    Paper,
    /// The ns-2.35 module: total = ssthresh; Reno part = total - dwnd, or dwnd = 0 if a part exceeds it.
    LinuxPort,
}

/// Which window the backlog estimate diff is computed from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BacklogWindow {
    /// win = cwnd + dwnd at the end of the round (paper eq. 1).
    Window,
    /// Packets sent during the round that just ended (Linux Vegas `old_wnd`).
    Sent,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompoundConfig {
    /// alpha: scale of the binomial increase alpha · win^k per round. Default 1/8 (paper, draft, port).
    pub alpha: f64,
    /// beta: multiplicative decrease of win on a loss, win -> win (1 - beta). Default 1/2 (paper; the port
    /// applies Reno's 1/2 to the total).
    pub beta: f64,
    /// k: exponent of the binomial increase, a multiple of 1/4 in (0, 1]. Default 0.75 (paper, port).
    pub k: f64,
    /// gamma: backlog in packets at which dwnd stops growing and retreats. Default 30 (paper, port).
    pub gamma: f64,
    /// zeta: packets of dwnd removed per packet of backlog. Default 1 (paper; the port's "BETA" = 1).
    pub zeta: f64,
    /// Growth counts "packets" acknowledged (paper, RFC 5681) or "acks" (the 2.6.22 port).
    pub counting: Counting,
    /// Slow start is decided on the Reno part alone (port) rather than on win (paper).
    pub slow_start_on_reno_part: bool,
    /// The delay part is adjusted during slow start too (port: true; paper: false, dwnd stays as it is).
    pub dwnd_in_slow_start: bool,
    /// RTT samples a round needs for a dwnd decision (paper: 1; port: 3, Vegas's delayed-ACK guard).
    pub min_round_samples: u32,
    /// Window the backlog is computed from: "window" (paper) or "sent" (port's old_wnd).
    pub backlog_window: BacklogWindow,
    /// dwnd moves in whole packets with the port's integer arithmetic (diff to half a packet).
    pub integer_dwnd: bool,
    /// How a loss splits the window: "paper" or "linux-port".
    pub loss_split: LossSplit,
}

impl Algorithm for CompoundConfig {
    const INFO: AlgorithmInfo = AlgorithmInfo {
        name: "compound",
        aliases: &["ctcp"],
        summary: "Compound TCP: Reno window plus a delay-based dwnd with binomial growth (Tan et al. INFOCOM 2006)",
        default_variant: "paper",
        variants: &[
            ("paper", "INFOCOM 2006 / seed 001 Table I: alpha 1/8, beta 1/2, k 0.75, gamma 30, zeta 1; dwnd only in congestion avoidance; both parts halved on loss"),
            ("linux-2.6.22", "Castellani/Hemminger tcp_compound.c in ns-2.35 TCP-Linux: integer dwnd from old_wnd, 3 samples per round, dwnd also in slow start, Reno ssthresh on the total and a re-split that keeps dwnd"),
        ],
        params: &[
            ParamDoc { name: "alpha", doc: "binomial increase scale, > 0 (1/8)" },
            ParamDoc { name: "beta", doc: "loss decrease of win, in (0, 1) (1/2)" },
            ParamDoc { name: "k", doc: "binomial exponent, multiple of 0.25 in (0, 1] (0.75)" },
            ParamDoc { name: "gamma", doc: "backlog threshold, packets, >= 0 (30)" },
            ParamDoc { name: "zeta", doc: "dwnd decrease per packet of backlog, >= 0 (1)" },
            ParamDoc { name: "counting", doc: "'packets' (paper) or 'acks' (port)" },
            ParamDoc { name: "slow_start_on_reno_part", doc: "slow start decided on the Reno part (port) or on win (paper)" },
            ParamDoc { name: "dwnd_in_slow_start", doc: "adjust dwnd in slow start too (port true, paper false)" },
            ParamDoc { name: "min_round_samples", doc: "RTT samples needed in a round for a dwnd decision, >= 1 (paper 1, port 3)" },
            ParamDoc { name: "backlog_window", doc: "'window' (win, paper) or 'sent' (packets sent in the round, port)" },
            ParamDoc { name: "integer_dwnd", doc: "whole-packet dwnd steps as the port's integer code (port true)" },
            ParamDoc { name: "loss_split", doc: "'paper' or 'linux-port' split of the window after a loss" },
        ],
    };

    fn variant(name: &str) -> Option<Self> {
        let paper = CompoundConfig {
            alpha: 0.125,
            beta: 0.5,
            k: 0.75,
            gamma: 30.0,
            zeta: 1.0,
            counting: Counting::Packets,
            slow_start_on_reno_part: false,
            dwnd_in_slow_start: false,
            min_round_samples: 1,
            backlog_window: BacklogWindow::Window,
            integer_dwnd: false,
            loss_split: LossSplit::Paper,
        };
        match name {
            "paper" => Some(paper),
            "linux-2.6.22" => Some(CompoundConfig {
                counting: Counting::Acks,
                slow_start_on_reno_part: true,
                dwnd_in_slow_start: true,
                min_round_samples: 3,
                backlog_window: BacklogWindow::Sent,
                integer_dwnd: true,
                loss_split: LossSplit::LinuxPort,
                ..paper
            }),
            _ => None,
        }
    }

    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if !(self.alpha > 0.0 && self.alpha <= 1e3) {
            return Err(err(format!("{field}.alpha"), "must be in (0, 1000]"));
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(err(format!("{field}.beta"), "must be in (0, 1)"));
        }
        let quarters = self.k * 4.0;
        if !(quarters >= 1.0 && quarters <= 4.0 && quarters.fract() == 0.0) {
            return Err(err(format!("{field}.k"), "must be 0.25, 0.5, 0.75 or 1 (computed with square roots)"));
        }
        if !(self.gamma >= 0.0 && self.gamma <= 1e9) {
            return Err(err(format!("{field}.gamma"), "must be in [0, 1e9] packets"));
        }
        if !(self.zeta >= 0.0 && self.zeta <= 1e3) {
            return Err(err(format!("{field}.zeta"), "must be in [0, 1000]"));
        }
        if self.min_round_samples == 0 {
            return Err(err(format!("{field}.min_round_samples"), "must be at least 1"));
        }
        Ok(())
    }

    fn build(self, initial_cwnd: u32) -> AnyCc {
        Compound::new(self, initial_cwnd).into()
    }
}

pub struct Compound {
    cfg: CompoundConfig,
    /// The Reno part (cwnd, its growth counter, ssthresh).
    reno: Window,
    /// The delay part in packets (whole packets in the port); win uses its integer part.
    dwnd: f64,
    /// Smallest RTT of the connection.
    base_rtt: Option<SimDuration>,
    /// Smallest RTT of the current round and how many samples it has seen.
    round_min_rtt: Option<SimDuration>,
    round_samples: u32,
    /// Edges of the round being measured (Linux Vegas `beg_snd_una`, `beg_snd_nxt`).
    beg_snd_una: u64,
    beg_snd_nxt: u64,
    /// The first ACK has started the first round.
    started: bool,
    /// A loss left the Open state: the next round starts when the sender is back in Open.
    awaiting_open: bool,
    /// snd_nxt of the latest ACK: where a round restarts when recovery ends on that ACK.
    last_snd_nxt: u64,
    /// Last backlog estimate, packets (for traces).
    last_diff: Option<f64>,
    /// A window written by the sender's `linux-2.6` recovery rules (the core's `snd_cwnd`), in force until
    /// the next cwnd-limited ACK: the port re-splits its parts against `snd_cwnd` at the start of
    /// `cong_avoid` and writes their sum back only at its end.
    core_cwnd: Option<u32>,
    /// Linux `snd_cwnd_clamp` (packets; u32::MAX: none). The module guards only the Reno part's increment
    /// with it, `if (inc && tp->snd_cwnd < tp->snd_cwnd_clamp) vegas->cwnd++` (ns-2.35
    /// `tcp/linux/src/tcp_compound.c`, `tcp_compound_cong_avoid`); dwnd is not clamped, so win may pass it.
    cwnd_clamp: u32,
}

impl Compound {
    pub fn new(cfg: CompoundConfig, initial_cwnd: u32) -> Self {
        Compound {
            cfg,
            reno: Window::new(initial_cwnd, INFINITE_SSTHRESH),
            dwnd: 0.0,
            base_rtt: None,
            round_min_rtt: None,
            round_samples: 0,
            beg_snd_una: 0,
            beg_snd_nxt: 0,
            started: false,
            awaiting_open: false,
            last_snd_nxt: 0,
            last_diff: None,
            core_cwnd: None,
            cwnd_clamp: u32::MAX,
        }
    }

    /// win = cwnd + dwnd in whole packets.
    fn win(&self) -> u32 {
        (u64::from(self.reno.cwnd) + self.dwnd as u64).min(u64::from(u32::MAX)) as u32
    }

    /// The window the sender uses: win, or the one its recovery rules wrote.
    fn total(&self) -> u32 {
        self.core_cwnd.unwrap_or_else(|| self.win())
    }

    fn in_slow_start(&self) -> bool {
        let w = if self.cfg.slow_start_on_reno_part { self.reno.cwnd } else { self.win() };
        match self.cfg.counting {
            Counting::Acks => w <= self.reno.ssthresh,
            Counting::Packets => w < self.reno.ssthresh,
        }
    }

    /// Linux Vegas `vegas_enable`: a round starts at snd_nxt; `beg_snd_una` is kept, as in the port.
    fn start_round(&mut self, snd_nxt: u64) {
        self.beg_snd_nxt = snd_nxt;
        self.round_samples = 0;
        self.round_min_rtt = None;
        self.awaiting_open = false;
    }

    /// Reno part, per ACK: slow start, then cwnd += 1/win per counted unit.
    fn grow_reno_part(&mut self, acked: u32) {
        let mut units = self.cfg.counting.units(acked);
        if self.in_slow_start() {
            match self.cfg.counting {
                Counting::Acks => {
                    self.reno.cwnd += 1;
                    units = 0;
                }
                Counting::Packets => {
                    // Stop at ssthresh (measured on win); the rest goes to congestion avoidance.
                    let room = self.reno.ssthresh.saturating_sub(self.win());
                    let used = units.min(room);
                    self.reno.cwnd += used;
                    units -= used;
                }
            }
        }
        if units > 0 {
            let w = self.win();
            self.reno.additive_increase(w, units);
        }
    }

    /// win^k for k a multiple of 1/4: the fourth root of win^(4k).
    fn win_pow_k(&self, w: u64) -> f64 {
        let n = (self.cfg.k * 4.0) as u32;
        if self.cfg.integer_dwnd {
            (w as u128).pow(n).isqrt().isqrt() as f64
        } else {
            (0..n).fold(1.0, |p: f64, _| p * w as f64).sqrt().sqrt()
        }
    }

    fn end_of_round(&mut self, s: &AckSample) {
        let sent = self.beg_snd_nxt.saturating_sub(self.beg_snd_una);
        self.beg_snd_una = self.beg_snd_nxt;
        self.beg_snd_nxt = s.snd_nxt;
        let enough = self.round_samples >= self.cfg.min_round_samples;
        let allowed = self.cfg.dwnd_in_slow_start || !self.in_slow_start();
        if let (Some(base), Some(rtt), true, true) = (self.base_rtt, self.round_min_rtt, enough, allowed) {
            let w = match self.cfg.backlog_window {
                BacklogWindow::Window => u64::from(self.win()),
                BacklogWindow::Sent => sent,
            };
            self.update_dwnd(w, base.0, rtt.0.max(1));
        }
        self.round_samples = 0;
        self.round_min_rtt = None;
    }

    /// The once-per-round dwnd rule (paper eq. 6 / Table I rows 2-3).
    fn update_dwnd(&mut self, w: u64, base_ns: u64, rtt_ns: u64) {
        let (diff, below_gamma) = if self.cfg.integer_dwnd {
            // Port: target = 2 w baseRTT / RTT and diff = 2 w - target, in half packets.
            let target_half = (2 * u128::from(w) * u128::from(base_ns) / u128::from(rtt_ns)) as f64;
            let diff_half = (2 * w) as f64 - target_half;
            (diff_half / 2.0, diff_half < 2.0 * self.cfg.gamma)
        } else {
            let diff = w as f64 * (rtt_ns - base_ns.min(rtt_ns)) as f64 / rtt_ns as f64;
            (diff, diff < self.cfg.gamma)
        };
        self.last_diff = Some(diff);
        if below_gamma {
            let mut step = self.cfg.alpha * self.win_pow_k(w);
            if self.cfg.integer_dwnd {
                step = step.floor();
            }
            self.dwnd += (step - 1.0).max(0.0);
        } else {
            let mut reduced = self.dwnd - self.cfg.zeta * diff;
            if self.cfg.integer_dwnd {
                reduced = reduced.floor();
            }
            self.dwnd = reduced.max(0.0);
        }
    }

    /// ssthresh after a loss: win (1 - beta), at least 2.
    fn reduced_total(&self) -> u32 {
        ((f64::from(self.total()) * (1.0 - self.cfg.beta)) as u32).max(2)
    }

    /// The port's re-split when the core has set the total window to `total` (start of its cong_avoid).
    fn resplit(&mut self, total: u32) {
        let dwnd = self.dwnd as u32;
        if self.reno.cwnd + dwnd > total {
            if self.reno.cwnd > total || dwnd > total {
                self.reno.cwnd = total;
                self.dwnd = 0.0;
            } else {
                self.reno.cwnd = total - dwnd;
            }
        }
    }
}

impl CongestionControl for Compound {
    fn name(&self) -> &'static str {
        "compound"
    }

    fn on_ack_sample(&mut self, s: &AckSample) {
        if !self.started {
            self.started = true;
            self.start_round(s.snd_nxt);
        } else if self.awaiting_open && !s.in_recovery {
            // Back in Open after an RTO (the sender reports no Loss exit): Linux restarts the round there.
            self.start_round(s.snd_nxt);
        }
        self.last_snd_nxt = s.snd_nxt;
        if let (Some(rtt), true) = (s.rtt, s.acked > 0) {
            self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
            self.round_min_rtt = Some(self.round_min_rtt.map_or(rtt, |m| m.min(rtt)));
            self.round_samples += 1;
        }
    }

    fn on_ack(&mut self, s: &AckSample) {
        if s.acked == 0 {
            return;
        }
        if let Some(total) = self.core_cwnd {
            self.resplit(total);
        }
        // The port returns before its round logic when not cwnd-limited; the paper variant does the same.
        if !s.cwnd_limited {
            return;
        }
        // The clamp is compared with snd_cwnd as the module finds it, before this ACK's growth; the growth
        // counter still runs and only the increment is dropped, as in the module.
        let snd_cwnd = self.total();
        self.core_cwnd = None;
        let reno_before = self.reno.cwnd;
        self.grow_reno_part(s.acked);
        if snd_cwnd >= self.cwnd_clamp {
            self.reno.cwnd = self.reno.cwnd.min(reno_before);
        }
        if s.snd_una > self.beg_snd_nxt {
            self.end_of_round(s);
        }
    }

    fn on_congestion_event(&mut self, _e: &CongestionEvent) {
        let total = self.reduced_total();
        self.reno.ssthresh = total;
        self.reno.cwnd_cnt = 0;
        match self.cfg.loss_split {
            LossSplit::Paper => {
                let win = f64::from(self.total());
                self.reno.cwnd = (self.reno.cwnd / 2).max(2);
                self.dwnd = (win * (1.0 - self.cfg.beta) - f64::from(self.reno.cwnd)).max(0.0);
            }
            LossSplit::LinuxPort => self.resplit(total),
        }
        self.core_cwnd = None;
        self.awaiting_open = true;
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        // Both parts were set at the loss; only the measurement restarts (Linux `set_state(Open)`).
        self.start_round(self.last_snd_nxt);
    }

    fn on_timeout(&mut self, _now: SimTime, first_in_episode: bool) {
        if first_in_episode {
            self.reno.ssthresh = self.reduced_total();
        }
        self.reno.cwnd = 1;
        self.reno.cwnd_cnt = 0;
        self.dwnd = 0.0;
        self.core_cwnd = None;
        self.awaiting_open = true;
    }

    /// `tcp_reno_min_cwnd` on the total (ns-2.35 `tcp/linux/src/tcp_compound.c`, line 447:
    /// `.min_cwnd = tcp_reno_min_cwnd`).
    fn min_cwnd(&self) -> u32 {
        reno_min_cwnd(self.reno.ssthresh)
    }

    /// Both variants follow the port: the parts are re-split against this window at the next ACK.
    fn set_cwnd(&mut self, cwnd: u32) {
        self.core_cwnd = Some(cwnd.max(1));
    }

    /// Applied here, to the Reno part only (see the `cwnd_clamp` field).
    fn set_cwnd_clamp(&mut self, clamp: u32) -> bool {
        self.cwnd_clamp = clamp;
        true
    }

    fn cwnd(&self) -> u32 {
        self.total().max(1)
    }
    fn ssthresh(&self) -> u32 {
        self.reno.ssthresh
    }

    fn state(&self, out: &mut Vec<StateField>) {
        out.push(("cwnd_reno", f64::from(self.reno.cwnd)));
        out.push(("dwnd", self.dwnd));
        out.push(("base_rtt_s", self.base_rtt.map_or(f64::NAN, SimDuration::as_secs_f64)));
        out.push(("diff", self.last_diff.unwrap_or(f64::NAN)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connection in its stride: baseRTT 100 ms known, the round being measured covers packets 0..100
    /// (100 sent), Reno part `reno`, delay part `dwnd`.
    fn ctcp(variant: &str, reno: u32, dwnd: f64, ssthresh: u32) -> Compound {
        let mut c = Compound::new(<CompoundConfig as Algorithm>::variant(variant).unwrap(), 2);
        c.started = true;
        c.reno.cwnd = reno;
        c.reno.ssthresh = ssthresh;
        c.dwnd = dwnd;
        c.base_rtt = Some(SimDuration::from_millis(100));
        c.beg_snd_nxt = 100;
        c
    }

    fn ack(snd_una: u64, rtt_ms: Option<u64>) -> AckSample {
        AckSample {
            acked: 1,
            rtt: rtt_ms.map(SimDuration::from_millis),
            cwnd_limited: true,
            snd_una,
            snd_nxt: snd_una + 100,
            ..Default::default()
        }
    }

    /// Three ACKs whose last passes beg_snd_nxt, each with an RTT sample of `rtt_ms`.
    fn finish_round(c: &mut Compound, rtt_ms: u64) {
        let first = c.beg_snd_nxt - 1;
        for una in first..first + 3 {
            let s = ack(una, Some(rtt_ms));
            c.on_ack_sample(&s);
            c.on_ack(&s);
        }
    }

    fn loss(c: &mut Compound) {
        c.on_congestion_event(&CongestionEvent { now: SimTime(0), in_flight: c.cwnd(), min_rtt: None, srtt: None });
    }

    #[test]
    fn dwnd_grows_binomially_without_queueing() {
        // RTT = baseRTT: diff 0 < gamma. Round 1 at win 100: dwnd += 100^0.75 / 8 - 1 = 31.6228 / 8 - 1
        // = 2.95285, so win = 100 + 2 = 102 (the three ACKs only move the Reno counter to 3 of 100).
        let mut c = ctcp("paper", 100, 0.0, 50);
        finish_round(&mut c, 100);
        assert!((c.dwnd - 2.952847).abs() < 1e-6, "{}", c.dwnd);
        assert_eq!((c.cwnd(), c.reno.cwnd, c.last_diff), (102, 100, Some(0.0)));
        // Round 2 (packets 100..200, ends on the ACK passing 200) at win 102: + 102^0.75 / 8 - 1
        // = 32.0959 / 8 - 1 = 3.01199, dwnd 5.96484, win 105.
        finish_round(&mut c, 100);
        assert!((c.dwnd - 5.964840).abs() < 1e-6, "{}", c.dwnd);
        assert_eq!(c.cwnd(), 105);
    }

    #[test]
    fn no_delay_growth_at_or_below_sixteen_packets() {
        // alpha win^k - 1 = 16^0.75 / 8 - 1 = 8 / 8 - 1 = 0 at win 16; at 17: 8.372 / 8 - 1 = 0.0465.
        let mut c = ctcp("paper", 16, 0.0, 8);
        finish_round(&mut c, 100);
        assert_eq!(c.dwnd, 0.0);
        let mut c = ctcp("paper", 17, 0.0, 8);
        finish_round(&mut c, 100);
        assert!((c.dwnd - 0.046518).abs() < 1e-6, "{}", c.dwnd);
    }

    #[test]
    fn dwnd_retreats_by_the_backlog_once_it_reaches_gamma() {
        // win 200 (100 + 100), minRTT 125 ms: diff = 200 (125 - 100) / 125 = 40 >= 30: dwnd = 100 - 40 = 60.
        let mut c = ctcp("paper", 100, 100.0, 50);
        finish_round(&mut c, 125);
        assert_eq!((c.dwnd, c.last_diff, c.cwnd()), (60.0, Some(40.0), 160));
        // Next round at 200 ms: diff = 160 (200 - 100) / 200 = 80 > dwnd: floored at 0, win = Reno part.
        finish_round(&mut c, 200);
        assert_eq!((c.dwnd, c.last_diff, c.cwnd()), (0.0, Some(80.0), 100));
        // diff exactly gamma is a retreat: win 150 (120 + 30) at 125 ms: diff = 150 · 25 / 125 = 30,
        // dwnd = 30 - 30 = 0.
        let mut c = ctcp("paper", 120, 30.0, 50);
        finish_round(&mut c, 125);
        assert_eq!((c.dwnd, c.last_diff), (0.0, Some(30.0)));
    }

    #[test]
    fn paper_loss_halves_the_reno_part_and_leaves_win_times_one_minus_beta() {
        // Reno 60 + dwnd 140 = 200: cwnd 30, dwnd = 200 (1 - 1/2) - 30 = 70, win 100 = ssthresh.
        let mut c = ctcp("paper", 60, 140.0, 50);
        loss(&mut c);
        assert_eq!((c.reno.cwnd, c.dwnd, c.cwnd(), c.ssthresh()), (30, 70.0, 100, 100));
        // Recovery ends: both parts stay; win 100 = ssthresh is congestion avoidance (packet counting, <).
        c.on_recovery_exit(SimTime(0));
        assert!(!c.in_slow_start());
        assert_eq!(c.cwnd(), 100);
        // Reno 120 + dwnd 10 = 130: cwnd 60, dwnd = 65 - 60 = 5, win 65.
        let mut c = ctcp("paper", 120, 10.0, 50);
        loss(&mut c);
        assert_eq!((c.reno.cwnd, c.dwnd, c.cwnd(), c.ssthresh()), (60, 5.0, 65, 65));
        // No delay part: plain Reno halving, 100 -> 50, dwnd stays 0.
        let mut c = ctcp("paper", 100, 0.0, 50);
        loss(&mut c);
        assert_eq!((c.reno.cwnd, c.dwnd, c.cwnd()), (50, 0.0, 50));
    }

    #[test]
    fn port_resplits_against_a_window_set_by_the_linux_2_6_recovery_mode() {
        // 20 + 20 = 40; loss: ssthresh 20, parts re-split to (0, 20). The sender sets cwnd = min_cwnd =
        // 20 / 2 = 10 for recovery, and 13 at exit; the parts are left alone until the next ACK.
        let mut c = ctcp("linux-2.6.22", 20, 20.0, 10);
        loss(&mut c);
        assert_eq!((c.reno.cwnd, c.dwnd, c.min_cwnd()), (0, 20.0, 10));
        c.set_cwnd(10);
        assert_eq!(c.cwnd(), 10);
        c.set_cwnd(13);
        // An ACK that is not cwnd-limited: the port re-splits against 13 (dwnd 20 > 13: (13, 0)) and
        // returns before writing the sum back, so the window stays 13.
        c.on_ack(&AckSample { cwnd_limited: false, ..ack(50, None) });
        assert_eq!((c.reno.cwnd, c.dwnd, c.cwnd()), (13, 0.0, 13));
        // A cwnd-limited ACK: Reno part 13 <= ssthresh 20, slow start: 14; the window is the sum again.
        c.on_ack(&ack(51, None));
        assert_eq!(c.cwnd(), 14);
        // A raise the parts cannot take is lost at the next ACK, as in the port (which only shrinks its
        // parts and then writes snd_cwnd = cwnd + dwnd): window 20 set, next ACK 14 + 1 = 15.
        c.set_cwnd(20);
        assert_eq!(c.cwnd(), 20);
        c.on_ack(&ack(52, None));
        assert_eq!(c.cwnd(), 15);
    }

    #[test]
    fn port_loss_sets_the_total_to_half_and_resplits_without_halving_dwnd() {
        // ssthresh = win / 2 = S. A part above S: Reno part = S, dwnd = 0.
        // 20 + 30 = 50: S = 25, dwnd 30 > 25 -> (25, 0).
        let mut c = ctcp("linux-2.6.22", 20, 30.0, 10);
        loss(&mut c);
        assert_eq!((c.reno.cwnd, c.dwnd, c.ssthresh()), (25, 0.0, 25));
        // 40 + 20 = 60: S = 30, Reno 40 > 30 -> (30, 0).
        let mut c = ctcp("linux-2.6.22", 40, 20.0, 10);
        loss(&mut c);
        assert_eq!((c.reno.cwnd, c.dwnd, c.ssthresh()), (30, 0.0, 30));
        // 20 + 20 = 40: S = 20, neither part above it -> Reno part = 20 - 20 = 0, dwnd kept at 20.
        let mut c = ctcp("linux-2.6.22", 20, 20.0, 10);
        loss(&mut c);
        assert_eq!((c.reno.cwnd, c.dwnd, c.cwnd(), c.ssthresh()), (0, 20.0, 20, 20));
        // The Reno part (0 <= ssthresh 20) is then in slow start: +1 per ACK.
        c.on_recovery_exit(SimTime(0));
        let s = ack(150, None);
        c.on_ack_sample(&s);
        c.on_ack(&s);
        assert_eq!((c.reno.cwnd, c.cwnd()), (1, 21));
    }

    #[test]
    fn port_steps_dwnd_in_whole_packets_from_the_packets_sent() {
        // old_wnd = 100 packets sent in the round, RTT = baseRTT: isqrt(isqrt(100^3)) = isqrt(1000) = 31,
        // floor(31 / 8) = 3, dwnd += 3 - 1 = 2 (the paper variant adds 2.95).
        let mut c = ctcp("linux-2.6.22", 100, 0.0, 50);
        finish_round(&mut c, 100);
        assert_eq!((c.dwnd, c.cwnd()), (2.0, 102));
        // Retreat with half-packet diff: RTT 150 ms, target = floor(2 · 100 · 100 / 150) = 133 half
        // packets, diff = (200 - 133) / 2 = 33.5 >= 30: dwnd = floor(70 - 33.5) = 36 (Linux:
        // (140 - 67) >> 1 = 36).
        let mut c = ctcp("linux-2.6.22", 100, 70.0, 50);
        finish_round(&mut c, 150);
        assert_eq!((c.dwnd, c.last_diff), (36.0, Some(33.5)));
    }

    #[test]
    fn port_needs_three_rtt_samples_per_round() {
        // Two samples only (the third ACK has none): no dwnd decision in this round.
        let mut c = ctcp("linux-2.6.22", 100, 0.0, 50);
        for (una, rtt) in [(99, Some(100)), (100, Some(100)), (101, None)] {
            let s = ack(una, rtt);
            c.on_ack_sample(&s);
            c.on_ack(&s);
        }
        assert_eq!((c.dwnd, c.last_diff), (0.0, None));
        // The paper variant decides on any sample: the same ACKs grow dwnd by 2.95.
        let mut p = ctcp("paper", 100, 0.0, 50);
        for (una, rtt) in [(99, Some(100)), (100, Some(100)), (101, None)] {
            let s = ack(una, rtt);
            p.on_ack_sample(&s);
            p.on_ack(&s);
        }
        assert!(p.dwnd > 2.9);
    }

    #[test]
    fn timeout_empties_dwnd_and_slow_start_leaves_it_alone_in_the_paper_only() {
        // RTO at 60 + 40 = 100: cwnd 1, dwnd 0, ssthresh = 100 / 2 = 50; a repeated backoff keeps 50.
        let mut c = ctcp("paper", 60, 40.0, 30);
        c.on_timeout(SimTime(0), true);
        c.on_timeout(SimTime(0), false);
        assert_eq!((c.cwnd(), c.dwnd, c.ssthresh()), (1, 0.0, 50));
        // Slow start in the Loss state, 1 -> 4 in three ACKs; the round that ends meanwhile sees no queueing
        // but, in slow start, the paper leaves dwnd at 0.
        let in_loss_state = |c: &mut Compound| {
            for una in 99..=101 {
                let s = AckSample { in_recovery: true, ..ack(una, Some(100)) };
                c.on_ack_sample(&s);
                c.on_ack(&s);
            }
        };
        in_loss_state(&mut c);
        assert_eq!((c.reno.cwnd, c.dwnd, c.last_diff), (4, 0.0, None));
        // The port adjusts dwnd in slow start: old_wnd 100 at RTT = baseRTT gives +2, win 4 + 2 = 6.
        let mut p = ctcp("linux-2.6.22", 60, 40.0, 30);
        p.on_timeout(SimTime(0), true);
        in_loss_state(&mut p);
        assert_eq!((p.reno.cwnd, p.dwnd, p.cwnd()), (4, 2.0, 6));
        // Back in Open (first ACK not in recovery, snd_nxt 210): a new round starts there.
        p.on_ack_sample(&ack(110, Some(100)));
        assert_eq!((p.beg_snd_nxt, p.awaiting_open), (210, false));
    }

    #[test]
    fn reno_part_grows_one_packet_per_win_acknowledged() {
        // Congestion avoidance at 100 + 100: cwnd += 1/win per packet, so 200 ACKs (one packet each) add one
        // packet to the Reno part, whatever dwnd is (no round ends: beg_snd_nxt far ahead).
        let mut c = ctcp("paper", 100, 100.0, 50);
        c.beg_snd_nxt = 10_000;
        for una in 1..=199 {
            c.on_ack(&ack(una, None));
        }
        assert_eq!(c.reno.cwnd, 100);
        c.on_ack(&ack(200, None));
        assert_eq!((c.reno.cwnd, c.cwnd()), (101, 201));
    }

    #[test]
    fn a_cwnd_clamp_holds_the_reno_part_and_leaves_dwnd_free() {
        // Port, congestion avoidance at 150 + 50 = 200 (ssthresh 50), no round ending (beg_snd_nxt far).
        // ACK counting: the counter reaches win = 200 on the 200th ACK, which adds one packet: 151.
        let mut free = ctcp("linux-2.6.22", 150, 50.0, 50);
        free.beg_snd_nxt = 10_000;
        let mut clamped = ctcp("linux-2.6.22", 150, 50.0, 50);
        clamped.beg_snd_nxt = 10_000;
        assert!(clamped.set_cwnd_clamp(200));
        for una in 1..=200 {
            free.on_ack(&ack(una, None));
            clamped.on_ack(&ack(una, None));
        }
        assert_eq!((free.reno.cwnd, free.cwnd()), (151, 201));
        // snd_cwnd 200 is not below the clamp 200: the increment is dropped, the counter restarts.
        assert_eq!((clamped.reno.cwnd, clamped.reno.cwnd_cnt, clamped.cwnd()), (150, 0, 200));
        // A round of 100 packets at RTT = baseRTT: dwnd += floor(isqrt(isqrt(100^3)) / 8) - 1
        // = floor(31 / 8) - 1 = 2, unclamped: win 150 + 52 = 202, past the clamp, as in the module.
        clamped.beg_snd_una = 0;
        clamped.beg_snd_nxt = 100;
        finish_round(&mut clamped, 100);
        assert_eq!((clamped.reno.cwnd, clamped.dwnd, clamped.cwnd()), (150, 52.0, 202));
    }

    #[test]
    fn k_must_be_a_multiple_of_a_quarter() {
        let mut cfg = <CompoundConfig as Algorithm>::variant("paper").unwrap();
        cfg.k = 0.8;
        assert_eq!(cfg.validate("cc").err().unwrap().field, "cc.k");
        cfg.k = 0.5;
        assert!(cfg.validate("cc").is_ok());
    }
}
