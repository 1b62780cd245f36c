//! ns-2.35's reductions, as `TcpAgent::slowdown` (`tcp/tcp.cc`) makes them for the window laws built into
//! ns-2's Agent/TCP (`windowOption_` 1 with `increase_num_`/`decrease_num_`, 8 HighSpeed), which its SACK
//! agent inherits: seed 003's flows ran there. An algorithm's `reductions = "ns2"` (`Reductions::Ns2`)
//! cuts the window this way instead of by its own b at every loss.
//!
//! With ns-2.35's defaults (`precisionReduce_` true, `first_decrease_` 1), for a fast retransmit
//! (`CLOSE_SSTHRESH_HALF | CLOSE_CWND_HALF`) and a timeout (`CLOSE_SSTHRESH_HALF | CLOSE_CWND_RESTART`):
//! - `halfwin` = w/2 and `decreasewin` = the law's reduced window (`decrease_num_` w; HighSpeed's
//!   (1 - b(w)) w above Low_Window), w the window (a double in ns-2, whole packets here);
//! - ssthresh = halfwin for the connection's first reduction (`first_decrease_`), one in slow start
//!   (cwnd < ssthresh) and every timeout (the agent sets `last_cwnd_action_` to TIMEOUT before it calls
//!   `slowdown`); decreasewin otherwise; at least 2;
//! - after a fast retransmit cwnd = halfwin for the first reduction, one in slow start, or while
//!   `decrease_num_` is 0.5; decreasewin otherwise. After a timeout cwnd = 1 (`wnd_restart_`);
//! - the window stays as set until the next reduction: ns-2 has no deflation at the end of recovery.
//!
//! Whole parts are taken where ns-2 keeps doubles (`cwnd_`, halfwin and decreasewin with
//! `precisionReduce_`), as ssthresh is; the two differ by under one packet.

use super::common::Window;
use serde::{Deserialize, Serialize};

/// How an algorithm cuts its window on a loss.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reductions {
    /// The algorithm's own rule at each loss event and the first timeout of an episode (RFCs, Linux).
    Standard,
    /// ns-2.35 Agent/TCP `slowdown` (this module).
    Ns2,
}

/// What `slowdown` keeps between reductions.
#[derive(Copy, Clone, Debug)]
pub struct Ns2Slowdown {
    /// `first_decrease_`: no reduction yet, so the next one halves.
    first: bool,
    /// The window the last reduction set, which recovery ends with.
    cwnd: u32,
}

impl Ns2Slowdown {
    pub fn new(initial_cwnd: u32) -> Self {
        Ns2Slowdown { first: true, cwnd: initial_cwnd }
    }

    /// A reduction of `win` whose law would keep `decreased` packets (`decreasewin`); `decrease_half`
    /// says whether `decrease_num_` is 0.5 after the law's own update. Sets ssthresh and cwnd.
    pub fn reduce(&mut self, win: &mut Window, decreased: u64, decrease_half: bool, timeout: bool) {
        let half = u64::from(win.cwnd) / 2;
        let halves = self.first || win.cwnd < win.ssthresh;
        self.first = false;
        // Both are at most cwnd, a u32: the law keeps part of the window.
        debug_assert!(decreased <= u64::from(win.cwnd));
        let ssthresh = if halves || timeout { half } else { decreased } as u32;
        if timeout {
            win.timeout(Some(ssthresh));
        } else {
            let cwnd = if halves || decrease_half { half } else { decreased } as u32;
            win.reduce_to(ssthresh);
            win.cwnd = cwnd.max(1);
        }
        self.cwnd = win.cwnd;
    }

    /// Whether this is the connection's first reduction (`first_decrease_`), which every reduction ends:
    /// for a window kept as ns-2's double (`cc/ns2_window.rs`), which does the rest of `slowdown` itself.
    pub fn take_first(&mut self) -> bool {
        std::mem::replace(&mut self.first, false)
    }

    /// Recovery is over: the window the reduction set (under `ns2-sack1` the algorithm's window has not
    /// moved since; under rules that move it during recovery, this deflates to it).
    pub fn exit_recovery(&self, win: &mut Window) {
        win.set_cwnd(self.cwnd);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(cwnd: u32, ssthresh: u32) -> Window {
        Window::new(cwnd, ssthresh)
    }

    #[test]
    fn the_first_reduction_halves_then_the_law_cuts() {
        let mut s = Ns2Slowdown::new(2);
        let mut w = window(1000, 2);
        s.reduce(&mut w, 875, false, false);
        assert_eq!((w.cwnd, w.ssthresh), (500, 500));
        w.cwnd = 1000;
        s.reduce(&mut w, 875, false, false);
        assert_eq!((w.cwnd, w.ssthresh), (875, 875));
    }

    #[test]
    fn slow_start_and_timeouts_halve_and_a_timeout_restarts_at_one() {
        let mut s = Ns2Slowdown::new(2);
        let mut w = window(1000, 2);
        s.reduce(&mut w, 875, false, false); // the first, out of the way
        w.cwnd = 400;
        w.ssthresh = 500; // slow start
        s.reduce(&mut w, 350, false, false);
        assert_eq!((w.cwnd, w.ssthresh), (200, 200));
        w.cwnd = 1000;
        s.reduce(&mut w, 875, false, true);
        assert_eq!((w.cwnd, w.ssthresh), (1, 500));
        // A timeout at cwnd 1: ssthresh at its floor of 2.
        s.reduce(&mut w, 0, false, true);
        assert_eq!((w.cwnd, w.ssthresh), (1, 2));
    }

    #[test]
    fn with_decrease_num_one_half_cwnd_is_halfwin_and_recovery_ends_where_the_cut_left_it() {
        let mut s = Ns2Slowdown::new(2);
        let mut w = window(15, 2);
        s.reduce(&mut w, 0, false, false);
        // decrease_num_ 0.5: decreasewin = 0.5 x 15 = 7.5 and halfwin = 7.5, both 7 here.
        w.cwnd = 15;
        s.reduce(&mut w, 7, true, false);
        assert_eq!((w.cwnd, w.ssthresh), (7, 7));
        // Recovery under a rule that moved the window ends at the cut's window.
        w.cwnd = 30;
        s.exit_recovery(&mut w);
        assert_eq!(w.cwnd, 7);
    }
}
