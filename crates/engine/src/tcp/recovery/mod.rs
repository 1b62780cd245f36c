//! Loss-recovery rules. The sender owns the state machine (Open -> Recovery on loss, Loss after a
//! retransmission timeout, back to Open once the recovery point is acknowledged) and the scoreboard; the
//! congestion-control algorithm owns the reduction (its `ssthresh` on a congestion event). What differs
//! between the rules lives here, one small type per rule behind `LossRecovery` (the split of Linux, where
//! `tcp_fastretrans_alert` walks cwnd to the algorithm's target by PRR or rate-halving):
//! - which segments an ACK shows lost, and whether SACK blocks are read at all;
//! - what happens at entry, on a partial ACK, at exit and on a timeout;
//! - how much may be sent during recovery beyond cwnd.
//!
//! | `flows.N.recovery` | type | follows |
//! |---|---|---|
//! | `sack` (default) | `rfc6675::Rfc6675` | RFC 6675 SACK loss recovery |
//! | `newreno` | `rfc6582::Rfc6582` | RFC 6582 NewReno without SACK, duplicate ACKs counted as Linux does |
//! | `linux-2.6` | `ns2_linux::Ns2Linux` | ns-2.35 TCP-Linux's stand-in for Linux 2.6 rate-halving |
//! | `prr` | `prr::Prr` | Proportional Rate Reduction as Linux 4.3 and later (RFC 9937's bounds) |
//! | `prr-rfc6937` | `prr::Prr` | RFC 6937 PRR-SSRB, as Linux 3.2-4.2 |
//! | `ns2-sack1` | `ns2_sack1::Ns2Sack1` | ns-2.35's `Agent/TCP/Sack1`: its own count of packets in flight |

pub mod ns2_linux;
pub mod ns2_sack1;
pub mod prr;
pub mod rfc6582;
pub mod rfc6675;

use crate::cc::CongestionControl;
use crate::tcp::scoreboard::Scoreboard;
use crate::tcp::rto_ns2::Ns2Agent;
use serde::{Deserialize, Serialize};

/// The recovery rule a flow uses (`flows.N.recovery` in the engine config).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Recovery {
    /// SACK-based loss recovery (RFC 6675).
    Sack,
    /// NewReno partial-ACK recovery without SACK (RFC 6582).
    Newreno,
    /// ns-2.35 TCP-Linux / Linux 2.6 rate-halving on the SACK scoreboard: cwnd = min_cwnd() at entry,
    /// sending paced to about one packet per two ACKs, cwnd = ssthresh (capped) at exit.
    #[serde(rename = "linux-2.6")]
    Linux26,
    /// Proportional Rate Reduction on RFC 6675's loss marking, as Linux 4.3 and later send in recovery:
    /// about one segment per two delivered while pipe is above ssthresh, then packet conservation, or
    /// slow start on an ACK that acknowledges retransmitted data.
    Prr,
    /// RFC 6937 PRR-SSRB (Linux 3.2-4.2): slow start below ssthresh on every ACK.
    #[serde(rename = "prr-rfc6937")]
    PrrRfc6937,
    /// ns-2.35's SACK agent (`Agent/TCP/Sack1`, the TCP-SACK of seed 003's ns-2 and of the CUBIN FAST
    /// module): pipe counted by the agent, lost packets included, every hole below the highest SACK
    /// retransmitted once.
    #[serde(rename = "ns2-sack1")]
    Ns2Sack1,
}

impl Recovery {
    pub fn build(self) -> AnyRule {
        match self {
            Recovery::Sack => AnyRule::Sack(rfc6675::Rfc6675),
            Recovery::Newreno => AnyRule::Newreno(rfc6582::Rfc6582::default()),
            Recovery::Linux26 => AnyRule::Linux26(ns2_linux::Ns2Linux::default()),
            Recovery::Prr => AnyRule::Prr(prr::Prr::new(prr::Bound::Linux)),
            Recovery::PrrRfc6937 => AnyRule::Prr(prr::Prr::new(prr::Bound::SlowStart)),
            Recovery::Ns2Sack1 => AnyRule::Ns2Sack1(ns2_sack1::Ns2Sack1::default()),
        }
    }

    /// Which ns-2.35 agent's retransmission timer (`tcp/rto_ns2.rs`) the rule comes with in place of
    /// Linux's, if any: `linux-2.6` reproduces ns-2 TCP-Linux as a whole, and `ns2-sack1` ns-2's
    /// `Agent/TCP/Sack1`, each with its timer.
    pub fn ns2_timer(self) -> Option<Ns2Agent> {
        match self {
            Recovery::Linux26 => Some(Ns2Agent::Linux),
            Recovery::Ns2Sack1 => Some(Ns2Agent::Tcp),
            _ => None,
        }
    }
}

/// What the sender learnt from one ACK before the rule marks losses.
#[derive(Copy, Clone, Debug)]
pub struct AckEvent {
    /// Segments newly acknowledged cumulatively.
    pub acked: u32,
    /// A duplicate ACK: nothing new acknowledged while data was outstanding (RFC 5681 section 2).
    pub duplicate: bool,
    /// SACKed segments on the scoreboard before this ACK was read: with `acked` and the scoreboard's count
    /// now, the ACK's RFC 6937 DeliveredData, for the rules that need it (PRR), computed there and not on
    /// every ACK of every rule.
    pub prior_sacked: u32,
    /// The cumulative ACK covered a segment that was retransmitted (Linux `FLAG_RETRANS_DATA_ACKED`).
    pub retransmitted_acked: bool,
}

/// One loss-recovery rule. Hooks a rule does not need keep their default (nothing happens).
pub trait LossRecovery: Send {
    /// Whether the receiver's SACK blocks are read into the scoreboard.
    fn reads_sack(&self) -> bool;

    /// After the ACK's cumulative ACK and SACK blocks are on the scoreboard: mark what it shows lost.
    fn mark_losses(&mut self, sb: &mut Scoreboard, ack: &AckEvent);

    /// Recovery starts: the algorithm has just taken its reduction from a window of `old_cwnd`.
    fn on_enter(&mut self, _cc: &mut dyn CongestionControl, _sb: &mut Scoreboard, _old_cwnd: u32) {}

    /// Whether the first lost segment is retransmitted as recovery starts, whatever cwnd allows (RFC 6675
    /// section 4.3, RFC 6582 step 2); otherwise it waits for the send allowance.
    fn retransmits_at_entry(&self) -> bool {
        true
    }

    /// In Recovery, an ACK acknowledged new data short of the recovery point (a partial ACK).
    fn on_partial_ack(&mut self, _sb: &mut Scoreboard) {}

    /// Recovery or Loss ends. `held_cwnd` is the window before the algorithm's `on_recovery_exit`.
    fn on_exit(&mut self, _cc: &mut dyn CongestionControl, _sb: &mut Scoreboard, _held_cwnd: u32) {}

    /// A retransmission timeout (before the scoreboard marks everything lost).
    fn on_timeout(&mut self, _sb: &mut Scoreboard) {}

    /// Whether an ACK in the Loss state that marks a new loss starts a recovery.
    fn recovers_in_loss_state(&self) -> bool {
        false
    }

    /// Whether every timeout is a reduction of its own for the algorithm, a repeated one in the Loss state
    /// included (ns-2's agents call `slowdown` at each), rather than only the first of an episode (Linux
    /// keeps ssthresh on a repeated timeout).
    fn reduces_at_every_timeout(&self) -> bool {
        false
    }

    /// Whether the algorithm's growth is credited once per ACK that acknowledges new data, whatever it
    /// covers (ns-2's agents call `opencwnd` once per new ACK), rather than with the packets it covers.
    /// The algorithm's estimators still see the packets; only `on_ack` sees one. Read once.
    fn grows_once_per_ack(&self) -> bool {
        false
    }

    /// Whether a duplicate ACK below the threshold, in the Open state, sends exactly the one new packet that
    /// limited transmit allows, at once and past ns-2's delayed send, and nothing else: ns-2's agents call
    /// `send_one` there and skip `send_much` while a duplicate ACK is counted. Otherwise the ACK is a
    /// sending opportunity like any other (RFC 3042's limited transmit then follows from pipe < cwnd).
    /// Read once.
    fn sends_one_per_early_dupack(&self) -> bool {
        false
    }

    /// Whether the window for sending is always cwnd (`window_for_sending` and `window_after_sending`
    /// keep their defaults): the sender then asks neither, two calls per packet sent. Read once.
    fn sends_within_cwnd(&self) -> bool {
        true
    }

    /// A sending opportunity with `pipe` packets in flight: segments go out while pipe is below the
    /// returned window (cwnd itself unless the rule lets more out).
    fn window_for_sending(&mut self, cwnd: u32, _pipe: u32) -> u32 {
        cwnd
    }

    /// One segment was sent, leaving `pipe` in flight: the window for the next one.
    fn window_after_sending(&mut self, cwnd: u32, _pipe: u32) -> u32 {
        cwnd
    }

    /// ns-2 TCP-Linux's delayed send (`tcp/delayed_send.rs`): the timer's send runs between
    /// `save_from_linux` and `load_to_linux` (`LinuxTcpAgent::timeout`), which copy the window out to
    /// ns-2's `cwnd_` and back in. What the rule saves before that send, given cwnd (None: nothing, the
    /// send leaves the window alone).
    fn saved_before_delayed_send(&self, _cwnd: u32) -> Option<u32> {
        None
    }

    /// After that send, what loading `saved` back does: the window to set, if it changes.
    fn loaded_after_delayed_send(&mut self, _cwnd: u32, _saved: u32) -> Option<u32> {
        None
    }
}

/// The sender's rule, one of the five types above. A `match` rather than a vtable, so that the calls the
/// sender makes on every ACK and every packet sent (`mark_losses`, `window_for_sending`, ...) can be
/// inlined into it (docs/benchmarks.md, run 42; `cc::AnyCc` is the same for the algorithm). The rules are
/// small, so the sender holds the one it uses in place.
#[derive(Clone, Debug)]
pub enum AnyRule {
    Sack(rfc6675::Rfc6675),
    Newreno(rfc6582::Rfc6582),
    Linux26(ns2_linux::Ns2Linux),
    Prr(prr::Prr),
    Ns2Sack1(ns2_sack1::Ns2Sack1),
}

/// `rule.$call` on whichever rule `self` holds.
macro_rules! delegate {
    ($self:ident, $rule:ident => $call:expr) => {
        match $self {
            AnyRule::Sack($rule) => $call,
            AnyRule::Newreno($rule) => $call,
            AnyRule::Linux26($rule) => $call,
            AnyRule::Prr($rule) => $call,
            AnyRule::Ns2Sack1($rule) => $call,
        }
    };
}

impl LossRecovery for AnyRule {
    #[inline]
    fn reads_sack(&self) -> bool {
        delegate!(self, rule => rule.reads_sack())
    }
    #[inline]
    fn mark_losses(&mut self, sb: &mut Scoreboard, ack: &AckEvent) {
        delegate!(self, rule => rule.mark_losses(sb, ack))
    }
    fn on_enter(&mut self, cc: &mut dyn CongestionControl, sb: &mut Scoreboard, old_cwnd: u32) {
        delegate!(self, rule => rule.on_enter(cc, sb, old_cwnd))
    }
    fn retransmits_at_entry(&self) -> bool {
        delegate!(self, rule => rule.retransmits_at_entry())
    }
    fn on_partial_ack(&mut self, sb: &mut Scoreboard) {
        delegate!(self, rule => rule.on_partial_ack(sb))
    }
    fn on_exit(&mut self, cc: &mut dyn CongestionControl, sb: &mut Scoreboard, held_cwnd: u32) {
        delegate!(self, rule => rule.on_exit(cc, sb, held_cwnd))
    }
    fn on_timeout(&mut self, sb: &mut Scoreboard) {
        delegate!(self, rule => rule.on_timeout(sb))
    }
    #[inline]
    fn recovers_in_loss_state(&self) -> bool {
        delegate!(self, rule => rule.recovers_in_loss_state())
    }
    fn reduces_at_every_timeout(&self) -> bool {
        delegate!(self, rule => rule.reduces_at_every_timeout())
    }
    fn grows_once_per_ack(&self) -> bool {
        delegate!(self, rule => rule.grows_once_per_ack())
    }
    fn sends_one_per_early_dupack(&self) -> bool {
        delegate!(self, rule => rule.sends_one_per_early_dupack())
    }
    fn sends_within_cwnd(&self) -> bool {
        delegate!(self, rule => rule.sends_within_cwnd())
    }
    #[inline]
    fn window_for_sending(&mut self, cwnd: u32, pipe: u32) -> u32 {
        delegate!(self, rule => rule.window_for_sending(cwnd, pipe))
    }
    #[inline]
    fn window_after_sending(&mut self, cwnd: u32, pipe: u32) -> u32 {
        delegate!(self, rule => rule.window_after_sending(cwnd, pipe))
    }
    fn saved_before_delayed_send(&self, cwnd: u32) -> Option<u32> {
        delegate!(self, rule => rule.saved_before_delayed_send(cwnd))
    }
    fn loaded_after_delayed_send(&mut self, cwnd: u32, saved: u32) -> Option<u32> {
        delegate!(self, rule => rule.loaded_after_delayed_send(cwnd, saved))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_that_sends_within_cwnd_answers_cwnd_for_any_pipe() {
        // The sender skips both window calls for such a rule (`sends_within_cwnd`), so their answer must
        // be cwnd whatever pipe is: 10 with pipe 0, 9, 10 or 25, before and after a packet is sent.
        // Rate-halving (`linux-2.6`), PRR and ns-2's Sack1 count let more or fewer out during recovery: they
        // say false.
        for recovery in
            [Recovery::Sack, Recovery::Newreno, Recovery::Linux26, Recovery::Prr, Recovery::PrrRfc6937, Recovery::Ns2Sack1]
        {
            let mut rule = recovery.build();
            let within = matches!(recovery, Recovery::Sack | Recovery::Newreno);
            assert_eq!(rule.sends_within_cwnd(), within, "{recovery:?}");
            if within {
                for pipe in [0, 9, 10, 25] {
                    assert_eq!(rule.window_for_sending(10, pipe), 10, "{recovery:?} pipe {pipe}");
                    assert_eq!(rule.window_after_sending(10, pipe), 10, "{recovery:?} pipe {pipe}");
                }
            }
        }
    }
}
