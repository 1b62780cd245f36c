//! HighSpeed TCP (Floyd, RFC 3649, 2003; Linux `tcp_highspeed.c`). Fact sheet §2.3.
//!
//! Reno at or below Low_Window; above it, per ACK in congestion avoidance cwnd += a(w)/w, and on a loss
//! cwnd -= b(w) cwnd, with (RFC 3649 section 5, log-log interpolation of the response function):
//!   f(w) = (log w - log Low_Window) / (log High_Window - log Low_Window)
//!   b(w) = 0.5 + (High_Decrease - 0.5) f(w)
//!   p(w) = Low_P (High_P / Low_P)^f(w)                    (= 0.078 / w^1.2 for the defaults)
//!   a(w) = w^2 p(w) 2 b(w) / (2 - b(w))
//! with Low_Window 38, High_Window 83000, Low_P 1e-3, High_P 1e-7, High_Decrease 0.1.
//!
//! Two ways to evaluate them (`response`):
//! - `table`: Linux's 72 rows (RFC 3649 Appendix B, with b scaled by 256). Row i covers
//!   row[i-1] < cwnd <= row[i] and gives a = i + 1 and b = md[i]/256, i.e. a(w) at the row's upper bound,
//!   rounded up to the next integer (up to +1 packet/RTT), and the b of that bound. The row index is moved
//!   only on congestion-avoidance ACKs, so a loss straight out of slow start still uses row 0 (b = 0.5).
//! - `formula`: the equations above, evaluated for the current integer window (each window change in
//!   congestion avoidance, and at the loss) in fixed point with integer operations only: base-2 logarithm
//!   by repeated squaring, powers of two by a table of 2^(2^-k) built at compile time with the integer square
//!   root. a and b are then kept to 2^-16. Beyond High_Window both hold their High_Window values, as Linux
//!   holds its last row.
//!
//! Variants:
//! - `linux-2.6.22` (default; ns-2.35 TCP-Linux, the setting of the studies reproduced here): table,
//!   slow start +1 per ACK while cwnd <= ssthresh.
//! - `linux` (Linux >= 3.x / 4.x): table, slow start counts packets while cwnd < ssthresh. Congestion
//!   avoidance still counts ACKs (a + 1 added to the counter per call) in every kernel version.
//! - `rfc3649`: the formulas, per ACK in congestion avoidance as the RFC states, slow start counting packets.
//! - `ns2`: ns-2.35's own HighSpeed TCP, Agent/TCP `windowOption_ 8` (`tcp/tcp.cc`), which its SACK agent
//!   inherits (seed 003's HSTCP ran on that agent): the formulas with ns-2's Low_P = 1.5/Low_Window^2
//!   (a(38) = 1 exactly), slow start while cwnd < ssthresh, and ns-2's reductions (`reductions = "ns2"`,
//!   `cc/ns2_slowdown.rs`: the connection's first reduction, one in slow start and every timeout halve;
//!   the others keep floor((1 - b(w)) w)). ns-2's `decrease_param` leaves b(w) in `decrease_num_` at each
//!   reduction above Low_Window, and a later one at or below Low_Window keeps that part: cwnd = floor(b w)
//!   there (b is the part taken away above Low_Window, the part kept below it; Reno's 0.5 before any cut
//!   above). Growth once per ACK and the agent's recovery come from `recovery = "ns2-sack1"`. Not
//!   modelled: ns-2's window is a double (here whole packets with a counter: the same a(w) per round
//!   trip), and ns-2 does not hold a(w) and b(w) beyond High_Window (here held, as the other variants;
//!   83 000 packets is 10 Gbit/s at 100 ms).
//!
//! Limited slow start (RFC 3742; Linux 2.6 `tcp_max_ssthresh`) is the parameter `max_ssthresh`, 0 = off as
//! in Linux: above it each counted unit adds (max_ssthresh/2)/cwnd, at most max_ssthresh/2 packets per RTT.

use super::common::{reno_min_cwnd, Counting, Window, INFINITE_SSTHRESH};
use super::ns2_slowdown::{Ns2Slowdown, Reductions};
use super::registry::{Algorithm, AlgorithmInfo, ParamDoc};
use super::{AckSample, AnyCc, CongestionControl, CongestionEvent, StateField};
use crate::config::{err, ConfigError};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Linux `hstcp_aimd_vals` (RFC 3649 Appendix B): (upper cwnd bound of the row, b x 256). Row i has
/// a(w) = i + 1, 1 to 72. Copied as constants from tcp_highspeed.c (identical in 2.6.22 and today).
const AIMD_TABLE: [(u32, u32); 72] = [
    (38, 128), (118, 112), (221, 104), (347, 98), (495, 93), (663, 89), (851, 86), (1058, 83),
    (1284, 81), (1529, 78), (1793, 76), (2076, 74), (2378, 72), (2699, 71), (3039, 69), (3399, 68),
    (3778, 66), (4177, 65), (4596, 64), (5036, 62), (5497, 61), (5979, 60), (6483, 59), (7009, 58),
    (7558, 57), (8130, 56), (8726, 55), (9346, 54), (9991, 53), (10661, 52), (11358, 52), (12082, 51),
    (12834, 50), (13614, 49), (14424, 48), (15265, 48), (16137, 47), (17042, 46), (17981, 45), (18955, 45),
    (19965, 44), (21013, 43), (22101, 43), (23230, 42), (24402, 41), (25618, 41), (26881, 40), (28193, 39),
    (29557, 39), (30975, 38), (32450, 38), (33986, 37), (35586, 36), (37253, 36), (38992, 35), (40808, 35),
    (42707, 34), (44694, 33), (46776, 33), (48961, 32), (51258, 32), (53677, 31), (56230, 30), (58932, 30),
    (61799, 29), (64851, 28), (68113, 28), (71617, 27), (75401, 26), (79517, 26), (84035, 25), (89053, 24),
];

/// RFC 3649 section 5 defaults; the table is their tabulation.
const LOW_WINDOW: u32 = 38;
const HIGH_WINDOW: u32 = 83_000;
const LOW_P: f64 = 1e-3;
const HIGH_P: f64 = 1e-7;
const HIGH_DECREASE: f64 = 0.1;

/// a and b are held in units of 2^-16 (Linux's table values are exact in it: a integer, b in 1/256).
const PARAM_SHIFT: u32 = 16;
/// 0.5 in those units: Reno's b, ns-2's `decrease_num_` until a HighSpeed cut changes it.
const HALF: u64 = 1 << (PARAM_SHIFT - 1);

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Response {
    /// Linux's table of RFC 3649 Appendix B.
    Table,
    /// RFC 3649 section 5 equations, evaluated for each window.
    Formula,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HighSpeedConfig {
    /// How a(w) and b(w) are obtained: "table" (Linux, RFC 3649 Appendix B) or "formula" (section 5).
    pub response: Response,
    /// Low_Window in packets: Reno at or below it (38). "formula" only; the table is fixed.
    pub low_window: u32,
    /// High_Window in packets, where p = High_P and b = High_Decrease (83000). "formula" only.
    pub high_window: u32,
    /// Low_P, the loss rate of the response function at Low_Window (RFC 3649: 1e-3; ns-2's built-in
    /// HSTCP uses 1.5/Low_Window^2 = 1.04e-3, which makes a(38) exactly 1). "formula" only.
    pub low_p: f64,
    /// High_P, the loss rate at High_Window (1e-7). "formula" only.
    pub high_p: f64,
    /// High_Decrease, b at High_Window (0.1). "formula" only.
    pub high_decrease: f64,
    /// RFC 3742 limited slow start threshold in packets; 0 = off (Linux 2.6 `tcp_max_ssthresh` default).
    pub max_ssthresh: u32,
    /// Slow start counts "acks" (2.6.22: +1 per ACK while cwnd <= ssthresh) or "packets" (modern: while
    /// cwnd < ssthresh, capped at it). Congestion avoidance counts ACKs in every Linux version.
    pub slow_start_counting: Counting,
    /// How a loss cuts the window: "standard" (cwnd - b(w) cwnd at each loss event and the first timeout
    /// of an episode) or "ns2" (ns-2.35's `slowdown`, `cc/ns2_slowdown.rs`); "ns2" needs the formula.
    pub reductions: Reductions,
}

impl Algorithm for HighSpeedConfig {
    const INFO: AlgorithmInfo = AlgorithmInfo {
        name: "highspeed",
        aliases: &["hstcp"],
        summary: "HighSpeed TCP: a(w), b(w) from a response function w = 0.12/p^0.835 above 38 packets (RFC 3649)",
        default_variant: "linux-2.6.22",
        variants: &[
            ("linux-2.6.22", "Linux 2.6.22 as in ns-2.35 TCP-Linux: RFC 3649 Appendix B table, per-ACK slow start while cwnd <= ssthresh"),
            ("linux", "Linux >= 3.x tcp_highspeed.c: the same table, slow start counting packets"),
            ("rfc3649", "RFC 3649 section 5 equations evaluated per window (fixed point, integer math), Low_P 1e-3"),
            ("ns2", "ns-2.35 Agent/TCP windowOption_ 8: the equations with Low_P 1.5/38^2, ns-2's reductions (first, slow-start and timeout ones halve; a stale b below Low_Window)"),
        ],
        params: &[
            ParamDoc { name: "response", doc: "'table' (Linux, RFC 3649 Appendix B) or 'formula' (RFC 3649 section 5)" },
            ParamDoc { name: "low_window", doc: "Low_Window, packets (38); formula only" },
            ParamDoc { name: "high_window", doc: "High_Window, packets, > low_window (83000); formula only" },
            ParamDoc { name: "low_p", doc: "Low_P, loss rate at Low_Window (1e-3); formula only" },
            ParamDoc { name: "high_p", doc: "High_P, loss rate at High_Window, 0 < high_p < low_p (1e-7); formula only" },
            ParamDoc { name: "high_decrease", doc: "High_Decrease, b at High_Window, 0 < x < 1 (0.1); formula only" },
            ParamDoc { name: "max_ssthresh", doc: "RFC 3742 limited slow start threshold, packets; 0 = off (0)" },
            ParamDoc { name: "slow_start_counting", doc: "'acks' (2.6.22) or 'packets' (modern Linux)" },
            ParamDoc { name: "reductions", doc: "'standard' (cwnd - b(w) cwnd) or 'ns2' (ns-2.35's slowdown); 'ns2' needs response = 'formula'" },
        ],
    };

    fn variant(name: &str) -> Option<Self> {
        let preset = |response, slow_start_counting| HighSpeedConfig {
            reductions: Reductions::Standard,
            response,
            low_window: LOW_WINDOW,
            high_window: HIGH_WINDOW,
            low_p: LOW_P,
            high_p: HIGH_P,
            high_decrease: HIGH_DECREASE,
            max_ssthresh: 0,
            slow_start_counting,
        };
        match name {
            "linux-2.6.22" => Some(preset(Response::Table, Counting::Acks)),
            "linux" => Some(preset(Response::Table, Counting::Packets)),
            "rfc3649" => Some(preset(Response::Formula, Counting::Packets)),
            // ns-2's p(w) runs from 1.5/low_window_^2 (tcp.cc `hstcp_.low_p`), not RFC 3649's rounded 1e-3.
            "ns2" => Some(HighSpeedConfig {
                reductions: Reductions::Ns2,
                low_p: 1.5 / f64::from(LOW_WINDOW * LOW_WINDOW),
                ..preset(Response::Formula, Counting::Packets)
            }),
            _ => None,
        }
    }

    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if self.reductions == Reductions::Ns2 && self.response != Response::Formula {
            return Err(err(format!("{field}.reductions"), "'ns2' needs response = 'formula' (ns-2 evaluates b(w) from the equations)"));
        }
        if self.response == Response::Table {
            // The table is the tabulation of the default response function; it cannot follow other values.
            let defaults = (LOW_WINDOW, HIGH_WINDOW, LOW_P, HIGH_P, HIGH_DECREASE);
            if (self.low_window, self.high_window, self.low_p, self.high_p, self.high_decrease) != defaults {
                return Err(err(
                    format!("{field}.response"),
                    "the Linux table is fixed (38, 83000, 1e-3, 1e-7, 0.1); use response = 'formula' to change the response function",
                ));
            }
            return Ok(());
        }
        if self.low_window == 0 || self.high_window <= self.low_window {
            return Err(err(format!("{field}.high_window"), "need 0 < low_window < high_window"));
        }
        if !(self.low_p.is_normal() && self.low_p > 0.0 && self.low_p < 1.0) {
            return Err(err(format!("{field}.low_p"), "must be in (0, 1)"));
        }
        if !(self.high_p.is_normal() && self.high_p > 0.0 && self.high_p < self.low_p) {
            return Err(err(format!("{field}.high_p"), "must be in (0, low_p)"));
        }
        if !(self.high_decrease > 0.0 && self.high_decrease < 1.0) {
            return Err(err(format!("{field}.high_decrease"), "must be in (0, 1)"));
        }
        Ok(())
    }

    fn build(self, initial_cwnd: u32) -> AnyCc {
        HighSpeed::new(self, initial_cwnd).into()
    }
}

pub struct HighSpeed {
    cfg: HighSpeedConfig,
    win: Window,
    /// The formula's constants, for `response = formula`.
    formula: Option<ResponseFunction>,
    /// Linux `ca->ai`: the table row, moved only on congestion-avoidance ACKs.
    row: usize,
    /// a(w) in 2^-16 packets per RTT, as last evaluated.
    a: u64,
    /// b(w) in 2^-16, as last evaluated.
    b: u64,
    /// The window a and b were last evaluated for by the formula (0: never).
    evaluated_for: u32,
    /// Growth counter in 2^-16 units (Linux `snd_cwnd_cnt` x 2^16): +a per ACK, +1 packet per cwnd.
    credit: u64,
    /// `reductions = "ns2"`: ns-2's `slowdown` state.
    ns2: Ns2Slowdown,
    /// ns-2's `decrease_num_` in 2^-16: Reno's 0.5 until a reduction above Low_Window leaves b(w) there.
    decrease_num: u64,
}

impl HighSpeed {
    pub fn new(cfg: HighSpeedConfig, initial_cwnd: u32) -> Self {
        let formula = (cfg.response == Response::Formula).then(|| ResponseFunction::new(&cfg));
        let (a, b) = table_params(0);
        let ns2 = Ns2Slowdown::new(initial_cwnd);
        let win = Window::new(initial_cwnd, INFINITE_SSTHRESH);
        HighSpeed { cfg, win, formula, row: 0, a, b, evaluated_for: 0, credit: 0, ns2, decrease_num: HALF }
    }

    /// Bring a and b up to the current window (Linux: at the start of each congestion-avoidance step).
    fn update_params(&mut self) {
        let cwnd = self.win.cwnd;
        match &self.formula {
            Some(f) => {
                if self.evaluated_for != cwnd {
                    (self.a, self.b) = f.params(cwnd);
                    self.evaluated_for = cwnd;
                }
            }
            None => {
                // Keep AIMD_TABLE[row - 1].0 < cwnd <= AIMD_TABLE[row].0 (the last row caps).
                while cwnd > AIMD_TABLE[self.row].0 && self.row < AIMD_TABLE.len() - 1 {
                    self.row += 1;
                }
                while self.row > 0 && cwnd <= AIMD_TABLE[self.row - 1].0 {
                    self.row -= 1;
                }
                (self.a, self.b) = table_params(self.row);
            }
        }
    }

    /// ssthresh = max(cwnd - floor(cwnd b), 2). The table uses the row of the last congestion-avoidance
    /// step (Linux); the formula uses b of the current window (RFC 3649, as ns-2's HSTCP).
    fn loss_ssthresh(&self) -> u32 {
        let cwnd = self.win.cwnd;
        let b = self.formula.as_ref().map_or(self.b, |f| f.params(cwnd).1);
        let decrease = (u64::from(cwnd) * b) >> PARAM_SHIFT;
        (cwnd - decrease as u32).max(2)
    }

    /// ns-2.35 `TcpAgent::slowdown` with `windowOption_ 8`, for a fast retransmit or a timeout: the
    /// window HighSpeed keeps (`decreasewin`) and `decrease_num_`, then the agent's rule.
    fn ns2_reduce(&mut self, timeout: bool) {
        let w = u64::from(self.win.cwnd);
        let f = self.formula.as_ref().expect("reductions = ns2 needs the formula (validated)");
        let decreased = if self.win.cwnd > f.low_window {
            // `decrease_param`: b(w) is the part taken away, and stays in decrease_num_.
            let b = f.params(self.win.cwnd).1;
            self.decrease_num = b;
            (w * ((1 << PARAM_SHIFT) - b)) >> PARAM_SHIFT
        } else {
            // `decrease_num_ * windowd()`: the part kept, Reno's 0.5 or a b(w) left by an earlier cut.
            (w * self.decrease_num) >> PARAM_SHIFT
        };
        self.ns2.reduce(&mut self.win, decreased, self.decrease_num == HALF, timeout);
    }

    /// RFC 3742 as Linux 2.6 `tcp_slow_start`: above max_ssthresh each unit adds max_ssthresh/2 to the
    /// counter, and a full window of counter is one packet.
    fn limited_slow_start(&mut self, units: u32) {
        self.credit += (u64::from(units) * u64::from(self.cfg.max_ssthresh / 2)) << PARAM_SHIFT;
        while self.credit >= u64::from(self.win.cwnd) << PARAM_SHIFT {
            self.credit -= u64::from(self.win.cwnd) << PARAM_SHIFT;
            self.win.cwnd += 1;
        }
    }

    fn slow_start(&mut self, units: u32) {
        let limited = self.cfg.max_ssthresh > 0 && self.win.cwnd > self.cfg.max_ssthresh;
        match (self.cfg.slow_start_counting, limited) {
            (Counting::Acks, false) => self.win.slow_start_per_ack(),
            (Counting::Acks, true) => self.limited_slow_start(1),
            (Counting::Packets, false) => {
                // Modern Linux drops what is left over at ssthresh (`tcp_slow_start`'s return is ignored).
                self.win.slow_start(units);
            }
            (Counting::Packets, true) => {
                self.limited_slow_start(units);
                self.win.cwnd = self.win.cwnd.min(self.win.ssthresh);
            }
        }
    }

    fn reset_credit(&mut self) {
        self.credit = 0;
    }
}

/// Table row i: a = i + 1 packets per RTT, b = md / 256.
fn table_params(row: usize) -> (u64, u64) {
    ((row as u64 + 1) << PARAM_SHIFT, u64::from(AIMD_TABLE[row].1) << (PARAM_SHIFT - 8))
}

impl CongestionControl for HighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }

    fn on_ack(&mut self, s: &AckSample) {
        if !s.cwnd_limited || s.acked == 0 {
            return;
        }
        let in_slow_start = match self.cfg.slow_start_counting {
            Counting::Acks => self.win.in_slow_start_2_6(),
            Counting::Packets => self.win.in_slow_start(),
        };
        if in_slow_start {
            self.slow_start(s.acked);
            return;
        }
        // Congestion avoidance, once per ACK whatever it covers: cwnd += a(w)/w.
        self.update_params();
        self.credit += self.a;
        let window = u64::from(self.win.cwnd) << PARAM_SHIFT;
        if self.credit >= window {
            self.credit -= window;
            self.win.cwnd += 1;
        }
    }

    fn on_congestion_event(&mut self, _e: &CongestionEvent) {
        match self.cfg.reductions {
            Reductions::Standard => {
                let ssthresh = self.loss_ssthresh();
                self.win.reduce_to(ssthresh);
            }
            Reductions::Ns2 => self.ns2_reduce(false),
        }
        self.reset_credit();
    }

    fn on_recovery_exit(&mut self, _now: SimTime) {
        match self.cfg.reductions {
            Reductions::Standard => self.win.exit_recovery(),
            Reductions::Ns2 => self.ns2.exit_recovery(&mut self.win),
        }
        self.reset_credit();
    }

    fn on_timeout(&mut self, _now: SimTime, first_in_episode: bool) {
        match (first_in_episode, self.cfg.reductions) {
            (false, _) => self.win.timeout(None),
            (true, Reductions::Standard) => self.win.timeout(Some(self.loss_ssthresh())),
            (true, Reductions::Ns2) => self.ns2_reduce(true),
        }
        self.reset_credit();
    }

    /// `tcp_reno_min_cwnd` (ns-2.35 `tcp/linux/src/tcp_highspeed.c`: `.min_cwnd = tcp_reno_min_cwnd`).
    fn min_cwnd(&self) -> u32 {
        reno_min_cwnd(self.win.ssthresh)
    }

    fn set_cwnd(&mut self, cwnd: u32) {
        self.win.set_cwnd(cwnd);
    }

    fn cwnd(&self) -> u32 {
        self.win.cwnd
    }
    fn ssthresh(&self) -> u32 {
        self.win.ssthresh
    }

    fn state(&self, out: &mut Vec<StateField>) {
        let scale = f64::from(1u32 << PARAM_SHIFT);
        out.push(("a", self.a as f64 / scale));
        out.push(("b", self.b as f64 / scale));
    }
}

/// Fixed-point base-2 logarithms and powers: values in units of 2^-32.
const FRAC_BITS: u32 = 32;
const ONE: i64 = 1 << FRAC_BITS;

/// 2^(2^-k) for k = 1..=32 in units of 2^-62, each the integer square root of the one before: computed at
/// compile time, exactly, so `exp2` needs no libm.
const ROOTS_OF_TWO: [u128; 32] = {
    let mut roots = [0u128; 32];
    let mut r: u128 = 2 << 62;
    let mut k = 0;
    while k < 32 {
        r = (r << 62).isqrt();
        roots[k] = r;
        k += 1;
    }
    roots
};

/// log2(x) for 1 <= x < 2^62, truncated to 2^-32: the integer part from the leading bit, then one fraction
/// bit per squaring of the normalised mantissa.
fn log2_fixed(x: u64) -> i64 {
    let int_part = 63 - x.leading_zeros();
    let mut y = u128::from(x) << (62 - int_part); // x / 2^int_part in [1, 2), units of 2^-62
    let mut result = i64::from(int_part) << FRAC_BITS;
    for bit in (0..FRAC_BITS).rev() {
        y = (y * y) >> 62;
        if y >= 2 << 62 {
            y >>= 1;
            result += 1 << bit;
        }
    }
    result
}

/// log2 of a positive normal f64, exactly decomposed as mantissa x 2^exponent.
fn log2_fixed_f64(v: f64) -> i64 {
    let bits = v.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i64 - 1075;
    let mantissa = (bits & ((1 << 52) - 1)) | (1 << 52);
    log2_fixed(mantissa) + (exponent << FRAC_BITS)
}

/// 2^e for e in units of 2^-32, result in units of 2^-32 (0 when it underflows).
fn exp2_fixed(e: i64) -> u128 {
    let int_part = e >> FRAC_BITS; // floor
    let frac = (e & (ONE - 1)) as u64;
    let mut y: u128 = 1 << 62;
    for (k, root) in ROOTS_OF_TWO.iter().enumerate() {
        if frac & (1 << (FRAC_BITS - 1 - k as u32)) != 0 {
            y = (y * root) >> 62;
        }
    }
    // y is in [1, 2) in units of 2^-62; scale by 2^int_part into units of 2^-32.
    let shift = 62 - i64::from(FRAC_BITS) - int_part;
    if shift >= 0 {
        y.checked_shr(shift as u32).unwrap_or(0)
    } else {
        y << (-shift)
    }
}

/// RFC 3649 section 5 with its constants as base-2 logarithms.
struct ResponseFunction {
    low_window: u32,
    high_window: u32,
    log2_low_window: i64,
    /// log2 High_Window - log2 Low_Window.
    log2_window_span: i64,
    log2_low_p: i64,
    log2_high_p: i64,
    high_decrease: i64,
}

impl ResponseFunction {
    fn new(cfg: &HighSpeedConfig) -> Self {
        let log2_low_window = log2_fixed(u64::from(cfg.low_window));
        ResponseFunction {
            low_window: cfg.low_window,
            high_window: cfg.high_window,
            log2_low_window,
            log2_window_span: log2_fixed(u64::from(cfg.high_window)) - log2_low_window,
            log2_low_p: log2_fixed_f64(cfg.low_p),
            log2_high_p: log2_fixed_f64(cfg.high_p),
            high_decrease: (cfg.high_decrease * ONE as f64).round() as i64,
        }
    }

    /// (a(w), b(w)) in 2^-16; Reno's (1, 0.5) at or below Low_Window.
    fn params(&self, cwnd: u32) -> (u64, u64) {
        if cwnd <= self.low_window {
            return (1 << PARAM_SHIFT, 1 << (PARAM_SHIFT - 1));
        }
        let log2_w = log2_fixed(u64::from(cwnd.min(self.high_window)));
        let mul = |x: i64, y: i64| ((i128::from(x) * i128::from(y)) >> FRAC_BITS) as i64;
        // f(w) in [0, 1].
        let f = ((i128::from(log2_w - self.log2_low_window) << FRAC_BITS) / i128::from(self.log2_window_span)) as i64;
        let half = ONE / 2;
        let b = half + mul(self.high_decrease - half, f);
        let log2_p = self.log2_low_p + mul(self.log2_high_p - self.log2_low_p, f);
        // w^2 p(w), then a = w^2 p 2b / (2 - b); b is in (0, 1), so 2 - b > 0.
        let w2p = exp2_fixed(2 * log2_w + log2_p);
        let ratio = ((2 * b as u128) << FRAC_BITS) / (2 * ONE - b) as u128;
        let a = w2p.saturating_mul(ratio) >> FRAC_BITS;
        let to_param = |x: u128| ((x + (1 << (FRAC_BITS - PARAM_SHIFT - 1))) >> (FRAC_BITS - PARAM_SHIFT)) as u64;
        (to_param(a), to_param(b as u128))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hstcp(variant: &str, cwnd: u32) -> HighSpeed {
        let mut h = HighSpeed::new(<HighSpeedConfig as Algorithm>::variant(variant).unwrap(), cwnd);
        h.win.ssthresh = 2; // start in congestion avoidance
        h
    }
    fn ack(acked: u32) -> AckSample {
        AckSample { acked, cwnd_limited: true, ..Default::default() }
    }
    fn loss() -> CongestionEvent {
        CongestionEvent { now: SimTime(0), in_flight: 0, min_rtt: None, srtt: None }
    }
    const UNIT: f64 = (1u32 << PARAM_SHIFT) as f64;

    #[test]
    fn table_rows_give_a_and_b_of_rfc3649_appendix_b() {
        // cwnd 1000 lies in (851, 1058]: row 7, a = 8, b = 83/256 = 0.324.
        let mut h = hstcp("linux-2.6.22", 1000);
        h.on_ack(&ack(1));
        assert_eq!(h.row, 7);
        assert_eq!((h.a, h.b), (8 << 16, 83 << 8));
        // A row's upper bound belongs to it: 1058 is still row 7, 1059 is row 8 (a = 9, md 81).
        h.win.cwnd = 1058;
        h.update_params();
        assert_eq!(h.row, 7);
        h.win.cwnd = 1059;
        h.update_params();
        assert_eq!((h.row, h.a, h.b), (8, 9 << 16, 81 << 8));
        // The window shrinks: the row follows down. Above the last bound the last row caps (a = 72, md 24).
        h.win.cwnd = 39;
        h.update_params();
        assert_eq!((h.row, h.a), (1, 2 << 16));
        h.win.cwnd = 1_000_000;
        h.update_params();
        assert_eq!((h.row, h.a, h.b), (71, 72 << 16, 24 << 8));
    }

    #[test]
    fn table_growth_is_a_per_rtt_counting_acks() {
        // cwnd 1000 is in row 7, a = 8: the counter gains 8 per ACK and a packet costs cwnd. The first
        // packet comes with ACK 125 (125 x 8 = 1000). Over 1000 ACKs (8000 units) n packets cost
        // 1000 + 1001 + ... + (999 + n) = 1000 n + n (n - 1) / 2: 7021 for n = 7, 8028 for n = 8, so +7.
        let mut h = hstcp("linux", 1000);
        for _ in 0..124 {
            h.on_ack(&ack(1));
        }
        assert_eq!(h.cwnd(), 1000);
        h.on_ack(&ack(1));
        assert_eq!(h.cwnd(), 1001);
        for _ in 125..1000 {
            h.on_ack(&ack(1));
        }
        assert_eq!(h.cwnd(), 1007);
        // A stretch ACK of 50 packets is still one step of a (ACK counting in congestion avoidance).
        let mut s = hstcp("linux", 1000);
        s.on_ack(&ack(50));
        assert_eq!(s.credit, 8 << 16);
    }

    #[test]
    fn table_loss_uses_md_of_the_current_row() {
        // cwnd 1000 (row 7, md 83): ssthresh = 1000 - (1000 x 83 >> 8 = 324) = 676.
        let mut h = hstcp("linux-2.6.22", 1000);
        h.on_ack(&ack(1));
        h.on_congestion_event(&loss());
        assert_eq!((h.cwnd(), h.ssthresh()), (676, 676));
        // At or below 38 it is Reno: 30 -> 30 - (30 x 128 >> 8) = 15.
        let mut small = hstcp("linux-2.6.22", 30);
        small.on_ack(&ack(1));
        small.on_congestion_event(&loss());
        assert_eq!(small.cwnd(), 15);
    }

    #[test]
    fn table_row_is_stale_after_slow_start_as_in_linux() {
        // Slow start (2.6.22: +1 per ACK while cwnd <= ssthresh) from 2 to 2000 never runs the
        // congestion-avoidance update, so the row is still 0 and the first loss halves: 2000 -> 1000.
        let mut h = HighSpeed::new(<HighSpeedConfig as Algorithm>::variant("linux-2.6.22").unwrap(), 2);
        for _ in 0..1998 {
            h.on_ack(&ack(1));
        }
        assert_eq!((h.cwnd(), h.row), (2000, 0));
        h.on_congestion_event(&loss());
        assert_eq!(h.cwnd(), 1000);
    }

    #[test]
    fn formula_matches_the_equations_and_appendix_b() {
        // The section 5 equations (Low_P 1e-3) evaluated in double precision outside this code:
        // a(118) = 2.0276, a(1058) = 8.1361, a(1793) = 11.1955, a(10661) = 30.6258, a(79517) = 71.7113;
        // b(118) = 0.44105, b(1058) = 0.32695, b(1793) = 0.29950, b(10661) = 0.20676, b(79517) = 0.10223.
        // Appendix B (Linux's table) has a = 2, 8, 11, 30, 70 at those bounds: it was tabulated from the
        // rounded p(w) = 0.078/w^1.2, so the equations lie 1.4-2.4 % above it; held to 3 % here.
        let h = hstcp("rfc3649", 100);
        let f = h.formula.as_ref().unwrap();
        let cases = [
            (118, 2.0276, 0.44105, 2.0),
            (1058, 8.1361, 0.32695, 8.0),
            (1793, 11.1955, 0.29950, 11.0),
            (10661, 30.6258, 0.20676, 30.0),
            (79517, 71.7113, 0.10223, 70.0),
        ];
        for (w, a, b, appendix_a) in cases {
            let (got_a, got_b) = f.params(w);
            let (got_a, got_b) = (got_a as f64 / UNIT, got_b as f64 / UNIT);
            assert!((got_a - a).abs() < 1e-3, "a({w}) = {got_a}, expected {a}");
            assert!((got_b - b).abs() < 1e-4, "b({w}) = {got_b}, expected {b}");
            assert!((got_a / appendix_a - 1.0).abs() < 0.03, "a({w}) = {got_a} vs Appendix B {appendix_a}");
        }
        // At High_Window b = High_Decrease and a(83000) = 72.5158; Reno at or below Low_Window; held at the
        // High_Window values above it.
        let (a_high, b_high) = f.params(83_000);
        assert!((a_high as f64 / UNIT - 72.5158).abs() < 1e-3 && (b_high as f64 / UNIT - 0.1).abs() < 1e-4);
        assert_eq!(f.params(38), (1 << 16, 1 << 15));
        assert_eq!(f.params(200_000), f.params(83_000));
    }

    #[test]
    fn formula_decrease_uses_the_window_at_the_loss() {
        // cwnd 1058, b(1058) = 0.32695: 1058 x b = 345.91, so ssthresh = 1058 - 345 = 713 (b to 2^-16 moves
        // the product by at most 1058 / 2^17 = 0.008, far from the next integer).
        let mut h = hstcp("rfc3649", 1058);
        h.on_congestion_event(&loss());
        assert_eq!((h.cwnd(), h.ssthresh()), (713, 713));
        // Slow start never evaluated anything, unlike the table's stale row: b is that of the window.
        let mut from_ss = HighSpeed::new(<HighSpeedConfig as Algorithm>::variant("rfc3649").unwrap(), 1058);
        from_ss.on_congestion_event(&loss());
        assert_eq!(from_ss.cwnd(), 713);
    }

    #[test]
    fn fixed_point_logs_and_powers_are_exact_on_powers_of_two() {
        assert_eq!(log2_fixed(1), 0);
        assert_eq!(log2_fixed(1024), 10 << 32);
        assert_eq!(log2_fixed_f64(0.125), -3 << 32);
        assert_eq!(exp2_fixed(5 << 32), 32 << 32);
        assert_eq!(exp2_fixed(-(1 << 32)), 1 << 31);
        // sqrt(2) = 1.41421356...: exp2(0.5) within 2^-30.
        let sqrt2 = exp2_fixed(1 << 31) as f64 / (1u64 << 32) as f64;
        assert!((sqrt2 - std::f64::consts::SQRT_2).abs() < 1e-9);
    }

    #[test]
    fn limited_slow_start_adds_at_most_half_max_ssthresh_per_rtt() {
        // max_ssthresh 100: at cwnd 200 each ACK adds 100/2 = 50 to the counter, a packet costs cwnd.
        // One round of 200 ACKs gives 10000; n packets cost 200 n + n (n - 1) / 2: 9990 for n = 45,
        // 10235 for n = 46, so cwnd 245 (RFC 3742: at most max_ssthresh/2 = 50 per RTT).
        let mut cfg = <HighSpeedConfig as Algorithm>::variant("linux-2.6.22").unwrap();
        cfg.max_ssthresh = 100;
        let mut h = HighSpeed::new(cfg, 200);
        for _ in 0..200 {
            h.on_ack(&ack(1));
        }
        assert_eq!(h.cwnd(), 245);
        // Below max_ssthresh it is ordinary slow start: +1 per ACK.
        let mut cfg = <HighSpeedConfig as Algorithm>::variant("linux-2.6.22").unwrap();
        cfg.max_ssthresh = 100;
        let mut low = HighSpeed::new(cfg, 50);
        for _ in 0..10 {
            low.on_ack(&ack(1));
        }
        assert_eq!(low.cwnd(), 60);
    }

    #[test]
    fn modern_slow_start_counts_packets_and_stops_at_ssthresh() {
        // linux: cwnd 10, ssthresh 15: an ACK for 3 packets -> 13, the next for 4 stops at 15.
        let mut h = HighSpeed::new(<HighSpeedConfig as Algorithm>::variant("linux").unwrap(), 10);
        h.win.ssthresh = 15;
        h.on_ack(&ack(3));
        assert_eq!(h.cwnd(), 13);
        h.on_ack(&ack(4));
        assert_eq!(h.cwnd(), 15);
    }

    #[test]
    fn timeout_sets_ssthresh_once_and_restarts_slow_start() {
        // RTO at 1000 (row 7 after one CA ACK): ssthresh 676, cwnd 1; a repeated backoff keeps 676.
        let mut h = hstcp("linux-2.6.22", 1000);
        h.on_ack(&ack(1));
        h.on_timeout(SimTime(0), true);
        assert_eq!((h.cwnd(), h.ssthresh()), (1, 676));
        h.on_timeout(SimTime(0), false);
        assert_eq!(h.ssthresh(), 676);
        for _ in 0..3 {
            h.on_ack(&ack(1));
        }
        assert_eq!(h.cwnd(), 4);
    }

    #[test]
    fn ns2_variant_halves_first_then_cuts_by_b_rounding_down() {
        // ns-2's first_decrease_: the connection's first reduction halves, even in congestion avoidance.
        let mut h = hstcp("ns2", 1058);
        h.on_congestion_event(&loss());
        assert_eq!((h.cwnd(), h.ssthresh()), (529, 529));
        // The next one at 1058: (1 - b(1058)) 1058 = 0.67305 x 1058 = 712.09, kept as ns-2's (int): 712
        // (`rfc3649` takes away floor(b w) = 345 and keeps 713).
        h.on_recovery_exit(SimTime(0));
        h.win.cwnd = 1058;
        h.on_congestion_event(&loss());
        assert_eq!((h.cwnd(), h.ssthresh()), (712, 712));
        // Recovery ends with the window the reduction set.
        h.on_recovery_exit(SimTime(0));
        assert_eq!(h.cwnd(), 712);
    }

    #[test]
    fn ns2_variant_halves_in_slow_start_and_at_every_timeout() {
        let mut h = hstcp("ns2", 1058);
        h.on_congestion_event(&loss()); // the first one, out of the way
        // A timeout at 1058 in congestion avoidance: ssthresh 529 (b(w) would keep 712), cwnd 1.
        h.win.cwnd = 1058;
        h.win.ssthresh = 600;
        h.on_timeout(SimTime(0), true);
        assert_eq!((h.cwnd(), h.ssthresh()), (1, 529));
        // A loss in slow start (cwnd 400 < ssthresh 529) halves too.
        h.win.cwnd = 400;
        h.on_congestion_event(&loss());
        assert_eq!((h.cwnd(), h.ssthresh()), (200, 200));
        // A repeated timeout (cwnd 1) takes ssthresh to its floor of 2, as ns-2's slowdown does.
        h.on_timeout(SimTime(0), true);
        h.on_timeout(SimTime(0), true);
        assert_eq!((h.cwnd(), h.ssthresh()), (1, 2));
    }

    #[test]
    fn ns2_variant_keeps_a_stale_b_below_low_window() {
        // A cut at 1058 leaves decrease_num_ = b(1058) = 0.32695; a later loss at 30 packets (at or below
        // Low_Window) keeps that part, floor(0.32695 x 30) = 9, where Reno's rule would keep 15.
        let mut h = hstcp("ns2", 1058);
        h.on_congestion_event(&loss());
        h.win.cwnd = 1058;
        h.win.ssthresh = 2;
        h.on_congestion_event(&loss());
        h.win.cwnd = 30;
        h.win.ssthresh = 2;
        h.on_congestion_event(&loss());
        assert_eq!((h.cwnd(), h.ssthresh()), (9, 9));
        // Before any cut above Low_Window it is Reno's half: 30 -> 15.
        let mut fresh = hstcp("ns2", 30);
        fresh.on_congestion_event(&loss()); // first: halves
        fresh.win.cwnd = 30;
        fresh.win.ssthresh = 2;
        fresh.on_congestion_event(&loss());
        assert_eq!(fresh.cwnd(), 15);
    }

    #[test]
    fn ns2_variant_increase_starts_at_one_packet_above_low_window() {
        // Low_P = 1.5/38^2 makes a(38) = 38^2 p / (1/0.5 - 0.5) = 1 exactly, so a(39) is just above 1;
        // with RFC 3649's Low_P 1e-3 it is 0.96.
        let ns2 = hstcp("ns2", 39);
        let (a, _) = ns2.formula.as_ref().unwrap().params(39);
        assert!((a as f64 / UNIT - 1.0).abs() < 0.03, "a(39) = {}", a as f64 / UNIT);
        let rfc = hstcp("rfc3649", 39);
        let (a_rfc, _) = rfc.formula.as_ref().unwrap().params(39);
        assert!(a_rfc < a);
    }

    #[test]
    fn ns2_reductions_need_the_formula() {
        let mut cfg = <HighSpeedConfig as Algorithm>::variant("linux").unwrap();
        cfg.reductions = Reductions::Ns2;
        assert_eq!(cfg.validate("cc").unwrap_err().field, "cc.reductions");
        assert!(<HighSpeedConfig as Algorithm>::variant("ns2").unwrap().validate("cc").is_ok());
    }

    #[test]
    fn table_rejects_changed_response_parameters() {
        let mut cfg = <HighSpeedConfig as Algorithm>::variant("linux").unwrap();
        cfg.high_decrease = 0.2;
        assert_eq!(cfg.validate("cc").unwrap_err().field, "cc.response");
        cfg.response = Response::Formula;
        assert!(cfg.validate("cc").is_ok());
    }
}
