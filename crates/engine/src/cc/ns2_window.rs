//! ns-2.35's Agent/TCP window: `cwnd_` is a double and `ssthresh_` an int (`tcp/tcp.cc`). The agent sends
//! `int(cwnd_)` packets (`window()`), and its cuts keep the fraction (`precisionReduce_` true, ns-2's
//! default since 2006): after a halving from 32.7 the window is 16.35, not 16, and the next whole packet
//! comes 0.65 of a round trip later, where an integer window with a growth counter starting at zero waits
//! a whole one. With windows of 15-30 packets (4 flows on a 17-packet buffer) that half packet per cut
//! moved goodput by 8-9 % (docs/validation.md, "Window laws against ns-2.35's own").
//!
//! The operations, as `opencwnd` (`windowOption_ 1`) and `slowdown` run them:
//! - per new ACK: slow start `cwnd_ += 1` while `cwnd_ < ssthresh_` (strictly: Linux 2.6 grows while
//!   cwnd <= ssthresh), else `cwnd_ += increase(cwnd_)`, e.g. `increase_num_ / cwnd_`;
//! - a fast retransmit with `decrease_num_` 0.5 (`CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF`): `halfwin =
//!   cwnd_ / 2`, `ssthresh_ = (int) halfwin`, `cwnd_ = halfwin`; with another `decrease_num_` (AIMD's
//!   0.875) `decreasewin = decrease_num_ * cwnd_` takes their place, but for the connection's first
//!   reduction and one in slow start, which halve (`cut`, and `cc/ns2_slowdown.rs` for the rule);
//! - a timeout (`CLOSE_SSTHRESH_HALF | CLOSE_CWND_RESTART`): `ssthresh_ = (int) (cwnd_ / 2)`, `cwnd_ = 1`;
//! - `ssthresh_` at least 2 after either; recovery's end leaves `cwnd_` alone.
//!
//! IEEE double arithmetic (one division or halving per step, no library functions), so the same on
//! every machine. Used by `newreno` variant `ns2` and `aimd` variant `xu2004-ns2` (`window = "real"`).

use crate::cc::common::Window;
use serde::{Deserialize, Serialize};

/// How an algorithm keeps its window: Linux's whole packets with a growth counter, or ns-2's double.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arithmetic {
    /// `snd_cwnd` and `snd_cwnd_cnt` (Linux); every algorithm's default.
    #[default]
    Integer,
    /// ns-2.35 Agent/TCP's `cwnd_` ([`Ns2Window`]).
    Real,
}

/// `cwnd_` (a double) and `ssthresh_` (an int) of an ns-2 Agent/TCP.
#[derive(Clone, Debug)]
pub struct Ns2Window {
    cwnd: f64,
    ssthresh: u32,
}

impl Ns2Window {
    pub fn new(initial_cwnd: u32, initial_ssthresh: u32) -> Self {
        Ns2Window { cwnd: f64::from(initial_cwnd.max(1)), ssthresh: initial_ssthresh.max(2) }
    }

    /// `window()`: the whole packets the agent may have out, at least one (ns-2's `cwnd_` stays at or above
    /// 1 in every case these rules reach: a fast retransmit needs three duplicate ACKs, so `cwnd_` >= 2
    /// there).
    #[inline(always)]
    pub fn whole(&self) -> u32 {
        (self.cwnd as u32).max(1)
    }

    pub fn ssthresh(&self) -> u32 {
        self.ssthresh
    }

    /// Copy the window into the whole-packet `Window` an algorithm answers from, so that its `cwnd()` and
    /// `ssthresh()` read one field whichever arithmetic it keeps.
    #[inline(always)]
    pub fn mirror(&self, win: &mut Window) {
        win.cwnd = self.whole();
        win.ssthresh = self.ssthresh;
    }

    /// The double itself, for tests and readings.
    pub fn real(&self) -> f64 {
        self.cwnd
    }

    /// `opencwnd`, once per new ACK: +1 in slow start, else `increase(cwnd_)`.
    #[inline(always)]
    pub fn open(&mut self, increase: impl FnOnce(f64) -> f64) {
        if self.cwnd < f64::from(self.ssthresh) {
            self.cwnd += 1.0;
        } else {
            self.cwnd += increase(self.cwnd);
        }
    }

    /// `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF)` with `decrease_num_` 0.5.
    pub fn halve(&mut self) {
        self.cut(0.5, true);
    }

    /// `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF)` with the law's `decrease_num_`, the part kept:
    /// `halves` (the connection's first reduction, `first_decrease_`, or one in slow start) sets ssthresh
    /// and cwnd to `halfwin`; otherwise both come from `decreasewin` = `decrease_num_` x cwnd_, except that
    /// `decrease_num_` 0.5 always gives cwnd `halfwin` (the same number).
    pub fn cut(&mut self, decrease_num: f64, halves: bool) {
        let halfwin = self.cwnd / 2.0;
        let decreasewin = decrease_num * self.cwnd;
        self.ssthresh = ((if halves { halfwin } else { decreasewin }) as u32).max(2);
        self.cwnd = if halves || decrease_num == 0.5 { halfwin } else { decreasewin };
    }

    /// `cwnd_ < ssthresh_`: slow start, as `slowdown` tests it.
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < f64::from(self.ssthresh)
    }

    /// `slowdown(CLOSE_SSTHRESH_HALF | CLOSE_CWND_RESTART)`: a timeout, `wnd_restart_` 1.
    pub fn restart(&mut self) {
        self.ssthresh = ((self.cwnd / 2.0) as u32).max(2);
        self.cwnd = 1.0;
    }

    /// A repeated timeout where the sender's rule keeps ssthresh (not ns-2's, which halves at each).
    pub fn restart_keeping_ssthresh(&mut self) {
        self.cwnd = 1.0;
    }

    /// A window set from outside (the sender's `linux-2.6` rule), as a whole number.
    pub fn set(&mut self, cwnd: u32) {
        self.cwnd = f64::from(cwnd.max(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reno(w: f64) -> f64 {
        1.0 / w
    }

    #[test]
    fn a_halving_keeps_the_fraction_and_ssthresh_takes_the_whole_part() {
        let mut w = Ns2Window::new(2, 1_000);
        w.cwnd = 32.7;
        w.halve();
        assert_eq!((w.real(), w.whole(), w.ssthresh()), (16.35, 16, 16));
        // Congestion avoidance at once (16.35 is not below 16): 1/cwnd per ACK, so 17 comes with the 11th
        // ACK (0.65 / (1 / 16.5)), where a counter starting at 0 would need 16.
        let acks = (1..).find(|_| {
            w.open(reno);
            w.whole() == 17
        });
        assert_eq!(acks, Some(11));
    }

    #[test]
    fn slow_start_is_strict_and_adds_one_to_the_double() {
        let mut w = Ns2Window::new(2, 4);
        w.open(reno);
        w.open(reno);
        assert_eq!(w.real(), 4.0);
        // At ssthresh the window grows by 1/cwnd, not by one (Linux 2.6's `<=` would give 5).
        w.open(reno);
        assert_eq!(w.real(), 4.25);
        assert_eq!(w.whole(), 4);
    }

    #[test]
    fn aimds_cut_keeps_seven_eighths_of_the_double_unless_it_halves() {
        let mut w = Ns2Window::new(2, 1_000);
        w.cwnd = 62.74;
        w.cut(0.875, false);
        assert_eq!((w.whole(), w.ssthresh()), (54, 54));
        assert!((w.real() - 54.8975).abs() < 1e-9);
        w.cut(0.875, true);
        assert!((w.real() - 27.44875).abs() < 1e-9);
        assert_eq!(w.ssthresh(), 27);
    }

    #[test]
    fn a_timeout_restarts_at_one_with_half_the_window_as_ssthresh_at_least_two() {
        let mut w = Ns2Window::new(2, 1_000);
        w.cwnd = 9.9;
        w.restart();
        assert_eq!((w.real(), w.ssthresh()), (1.0, 4));
        w.restart();
        assert_eq!((w.real(), w.ssthresh()), (1.0, 2));
        w.cwnd = 7.5;
        w.restart_keeping_ssthresh();
        assert_eq!((w.real(), w.ssthresh()), (1.0, 2));
    }
}
