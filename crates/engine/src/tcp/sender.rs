//! A bulk-data TCP sender as a sans-IO state machine: it is handed ACKs and timer expiries with `now`,
//! and answers with the segments to send (appended to `out`; `packet` makes their packets) and its next
//! deadline (`timer_deadline`).
//!
//! The sender runs Linux's state machine: Open -> Recovery on fast retransmit, -> Loss on a
//! retransmission timeout, back to Open once the recovery point is acknowledged. The window belongs to
//! the congestion-control algorithm; the sender only reads it. What differs between loss-recovery rules
//! (which ACKs mark which segments lost, entry, partial ACKs, exit, sending beyond cwnd) is the rule's
//! own type behind `LossRecovery` (tcp/recovery/): RFC 6675 (SACK) by default, RFC 6582 (NewReno) when
//! SACK is off, or ns-2.35 TCP-Linux's stand-in for Linux 2.6 rate-halving (`linux-2.6`).
//!
//! The retransmission timer follows Linux (RFC 6298, `tcp/rtt.rs`), except in the two modes that take
//! ns-2's (`tcp/rto_ns2.rs`), where RTO = max(minrto_, srtt + 4 rttvar) and the retransmission of the
//! head does not restart it: `linux-2.6` (TCP-Linux: 1 ms ticks, a sample on every ACK, re-armed by every
//! ACK, duplicates included) and `ns2-sack1` (Agent/TCP: 10 ms ticks, one timed new packet per round trip,
//! re-armed by new ACKs and at the entry of fast recovery).
//!
//! Two services exist for algorithms that ask for them (BBR), and cost one branch otherwise:
//! - delivery-rate samples (`tcp/rate.rs`), handed over in `AckSample::rate`;
//! - pacing: when `pacing_rate_bps()` is Some, no segment leaves before `next_send_time`, and each one
//!   pushes it to send time + size * 8 / rate (integer ns, rounded up; Linux EDT
//!   `tcp_update_skb_after_send`). A sender held back by pacing asks for a wake-up through
//!   `timer_deadline`, which is then the earlier of that and the retransmission timer. The first
//!   retransmission of a fast retransmit still goes out at once (RFC 6675 4.3), outside the pacing budget.
//!
//! ns-2's `overhead_` (`tcp/delayed_send.rs`, off unless `with_delayed_send`) puts a timer in front of the
//! send decision: a call that finds room in the window arms it and sends nothing, and everything the
//! window allows at its expiry leaves then (`send_now`, the forced send).
//!
//! F-RTO (`tcp/frto.rs`, off unless `with_frto`) takes over a timeout taken in the Open state: it
//! resends the head only, reads the next ACKs, and either calls the timeout spurious or starts the
//! conventional RTO recovery below then. While it reads ACKs, `frto` is Some and the window neither grows
//! nor enters fast recovery.

use crate::cc::{AckSample, AnyCc, CongestionControl, CongestionEvent};
use crate::histogram::LogHistogram;
use crate::net::packet::{Direction, Ecn, Packet, Payload};
use crate::tcp::segment::Segment;
use crate::tcp::burst::BurstLimit;
use crate::tcp::delayed_send::DelayedSend;
use crate::tcp::frto::{FrtoConfig, FrtoVariant, Probe, ProbeAck, SpuriousResponse, Verdict};
use crate::tcp::rate::RateSampler;
pub use crate::tcp::recovery::Recovery;
use crate::tcp::recovery::{AckEvent, AnyRule, LossRecovery};
use crate::tcp::rto_ns2::{Ns2Agent, Ns2Rto};
use crate::tcp::rtt::RttEstimator;
use crate::tcp::scoreboard::{Scoreboard, DUP_THRESH};
use crate::time::{Rate, SimDuration, SimTime};

#[derive(Clone, Debug)]
pub struct SenderConfig {
    pub flow: u32,
    /// Bytes on the wire of a data packet.
    pub packet_size: u32,
    pub recovery: Recovery,
    pub rto_min: SimDuration,
    /// Receiver window in packets: a limit on the sequence span snd_nxt - snd_una (ns-2 `TcpAgent`'s
    /// window_, `window() = min(cwnd_, wnd_)` with `t_seqno_ <= highest_ack_ + win`).
    pub rwnd: u64,
    /// Linux `snd_cwnd_clamp`, packets: the congestion window does not grow past it. ns-2.35 TCP-Linux
    /// turns window_ into this and nothing else (`tcp/linux/tcp-linux.cc`: `load_to_linux` sets
    /// `snd_cwnd_clamp = wnd_`, `window()` returns `snd_cwnd` alone, and `send_much` sends while the pipe
    /// is below it), so unlike `rwnd` it never stops new data behind a hole during recovery. It bounds
    /// growth, not sending: each 2.6.22 module guards its increment with `snd_cwnd < snd_cwnd_clamp`.
    /// An algorithm that applies it itself says so (`CongestionControl::set_cwnd_clamp`; Compound clamps
    /// only its loss-based part, as its module does); for the others the sender withholds growth, marking
    /// ACKs not cwnd-limited once cwnd >= the clamp. None: no clamp.
    pub cwnd_clamp: Option<u32>,
    /// No new data is sent from this time on.
    pub stop: Option<SimTime>,
    /// Negotiate ECN: send new data ECN-capable and react to the receiver's echo (RFC 3168).
    pub ecn: bool,
    /// A finite transfer: segments 0..this are all the application writes (None: unlimited).
    pub segments: Option<u64>,
    /// Keep the start time of every loss event (`Sender::loss_event_times`): 8 bytes per event, so memory
    /// grows with simulated time; off unless a run asks for it (seed 003's synchronisation ratio).
    pub record_loss_events: bool,
    /// Count every RTT measurement in `Sender::rtt_histogram` (`run.rtt_histogram`); off: one branch per
    /// measurement.
    pub rtt_histogram: bool,
}

/// Every RTT measurement of a flow, ns, to within 1/64 of itself (6 bits of sub-buckets, 1.56 % at most):
/// finer than the spread of any RTT distribution a study draws, in at most 3776 buckets.
pub type RttHistogram = LogHistogram<6>;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CaState {
    Open,
    Recovery,
    Loss,
}

/// Cumulative counters of one sender.
#[derive(Clone, Debug, Default)]
pub struct SenderCounters {
    /// Data packets handed to the network, retransmissions included.
    pub packets_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    /// Fast-recovery episodes entered.
    pub loss_events: u64,
    pub rtt_samples: u64,
    pub rtt_sum_ns: u128,
    /// Window reductions in answer to ECN echoes (RFC 3168), outside loss recovery.
    pub ecn_reductions: u64,
    /// Timeouts F-RTO found spurious (each is also one of `timeouts`).
    pub spurious_timeouts: u64,
}

pub struct Sender {
    cfg: SenderConfig,
    cc: AnyCc,
    /// The loss-recovery rule (`cfg.recovery`).
    recovery: AnyRule,
    /// The rule's window for sending is cwnd (`LossRecovery::sends_within_cwnd`).
    window_is_cwnd: bool,
    /// The rule credits growth once per ACK (`LossRecovery::grows_once_per_ack`).
    grows_once_per_ack: bool,
    /// A duplicate ACK below the threshold sends one new packet, at once (`LossRecovery::sends_one_per_early_dupack`).
    sends_one_per_early_dupack: bool,
    sb: Scoreboard,
    rtt: RttEstimator,
    /// `linux-2.6` and `ns2-sack1` modes: ns-2's retransmission timer, which then replaces `rtt`'s RTO (RTT
    /// samples for the algorithm still come from `rtt`).
    ns2_rto: Option<Ns2Rto>,
    state: CaState,
    /// Recovery point: recovery ends when everything up to here is cumulatively acknowledged.
    recover: u64,
    dupacks: u32,
    started: bool,
    rto_deadline: Option<SimTime>,
    counters: SenderCounters,
    /// Delivery-rate estimator, only when the algorithm wants rate samples.
    rate: Option<RateSampler>,
    /// Pacing: no segment is sent before this time.
    next_send_time: SimTime,
    /// Pacing held back a segment the window allowed: wake up then.
    pacing_wakeup: Option<SimTime>,
    /// The last pacing rate (bit/s) and the gap it gives between packets: the rate changes a few times
    /// per round trip, a packet leaves every gap.
    pacing_gap: (u64, SimDuration),
    /// ECN: the last segment sent when the window was last reduced for an echo; no new reduction until
    /// it is acknowledged (once per window, RFC 3168 section 6.1.2).
    ecn_recover: Option<u64>,
    /// ECN: set CWR on the next new data packet.
    cwr_pending: bool,
    /// At most k packets back to back (`tcp/burst.rs`), held with the pacing mechanism.
    burst: Option<BurstLimit>,
    /// ns-2's delayed-send timer (`overhead_`, `tcp/delayed_send.rs`).
    delayed: Option<Box<DelayedSend>>,
    /// Start time (ns) of each loss event, when `cfg.record_loss_events`: entry into fast recovery, or a
    /// retransmission timeout taken outside recovery (a timeout inside an episode continues that episode).
    /// Seed 003's synchronisation ratio (Section III) needs the times, not only the count.
    loss_event_times_ns: Option<Vec<u64>>,
    /// Every RTT measurement (the samples that feed srtt and `counters.rtt_sum_ns`), when
    /// `cfg.rtt_histogram`.
    rtt_histogram: Option<RttHistogram>,
    /// `cfg.cwnd_clamp` where the sender enforces it (the algorithm does not apply it itself).
    growth_clamp: Option<u32>,
    /// F-RTO, when the flow uses it (`with_frto`).
    frto_cfg: Option<FrtoConfig>,
    /// The F-RTO detection in progress, if any.
    frto: Option<Probe>,
}

impl Sender {
    pub fn new(cfg: SenderConfig, mut cc: AnyCc) -> Self {
        let wants_rate = cc.wants_rate_samples();
        let loss_event_times_ns = cfg.record_loss_events.then(Vec::new);
        let rtt_histogram = cfg.rtt_histogram.then(RttHistogram::default);
        let growth_clamp = cfg.cwnd_clamp.filter(|&clamp| !cc.set_cwnd_clamp(clamp));
        let sb = if wants_rate { Scoreboard::with_rate_stamps() } else { Scoreboard::new() };
        let recovery = cfg.recovery.build();
        Sender {
            rtt: RttEstimator::new(cfg.rto_min),
            ns2_rto: cfg.recovery.ns2_timer().map(|agent| match agent {
                Ns2Agent::Linux => Ns2Rto::linux(cfg.rto_min),
                Ns2Agent::Tcp => Ns2Rto::agent(cfg.rto_min, SimDuration::ZERO),
            }),
            window_is_cwnd: recovery.sends_within_cwnd(),
            grows_once_per_ack: recovery.grows_once_per_ack(),
            sends_one_per_early_dupack: recovery.sends_one_per_early_dupack(),
            recovery,
            // A rate of 0 paces as 1 bit/s (`bps.max(1)` in `send_what_is_allowed`).
            pacing_gap: (0, Rate::from_bps(1).tx_time(cfg.packet_size)),
            cfg,
            cc,
            sb,
            state: CaState::Open,
            recover: 0,
            dupacks: 0,
            started: false,
            rto_deadline: None,
            counters: SenderCounters::default(),
            rate: wants_rate.then(RateSampler::new),
            next_send_time: SimTime::ZERO,
            pacing_wakeup: None,
            ecn_recover: None,
            cwr_pending: false,
            burst: None,
            delayed: None,
            loss_event_times_ns,
            rtt_histogram,
            growth_clamp,
            frto_cfg: None,
            frto: None,
        }
    }

    /// Prefetch the scoreboard's records ahead (`Scoreboard::prefetch_records`): for a sender among
    /// several flows.
    pub fn with_records_prefetched(mut self, prefetch: bool) -> Self {
        if prefetch {
            self.sb.prefetch_records();
        }
        self
    }

    /// Detect spurious timeouts with F-RTO (`tcp/frto.rs`); None: conventional timeouts only. Without
    /// SACK (`recovery = "newreno"`) the SACK-enhanced variant is the basic one, as in Linux
    /// (`tcp_is_sackfrto` needs SACK).
    pub fn with_frto(mut self, frto: Option<FrtoConfig>) -> Self {
        let sack = self.recovery.reads_sack();
        self.frto_cfg = frto.map(|f| if sack { f } else { FrtoConfig { variant: FrtoVariant::Basic, ..f } });
        self
    }

    /// The phase of ns-2 Agent/TCP's tick clock (`boot_time_`, a uniform draw in [0, 10 ms) per agent), for
    /// the `ns2-sack1` timer's samples; other timers have none.
    pub fn with_ns2_clock_phase(mut self, phase: SimDuration) -> Self {
        if let Some(timer) = &mut self.ns2_rto {
            if timer.agent_kind() == Ns2Agent::Tcp {
                *timer = Ns2Rto::agent(self.cfg.rto_min, phase);
            }
        }
        self
    }

    /// Send at most `limit`'s burst back to back (for algorithms without a pacing rate).
    pub fn with_burst_limit(mut self, limit: BurstLimit) -> Self {
        self.burst = Some(limit);
        self
    }

    /// Send through ns-2's delayed-send timer, each wait a uniform draw from [0, `delay.max`]
    /// (`tcp/delayed_send.rs`).
    pub fn with_delayed_send(mut self, delay: DelayedSend) -> Self {
        self.delayed = Some(Box::new(delay));
        self
    }

    pub fn cc(&self) -> &dyn CongestionControl {
        &self.cc
    }
    pub fn state(&self) -> CaState {
        self.state
    }
    pub fn counters(&self) -> &SenderCounters {
        &self.counters
    }
    /// Start times (ns) of the loss events so far, or None when the config did not ask to record them.
    pub fn loss_event_times(&self) -> Option<&[u64]> {
        self.loss_event_times_ns.as_deref()
    }
    /// Every RTT measurement since the last `clear_rtt_histogram`, or None when the config did not ask.
    pub fn rtt_histogram(&self) -> Option<&RttHistogram> {
        self.rtt_histogram.as_ref()
    }
    /// Forget the RTT measurements so far (the measurement window starts).
    pub fn clear_rtt_histogram(&mut self) {
        if let Some(histogram) = &mut self.rtt_histogram {
            histogram.clear();
        }
    }
    fn record_loss_event(&mut self, now: SimTime) {
        if let Some(times) = &mut self.loss_event_times_ns {
            times.push(now.0);
        }
    }
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    /// The retransmission timeout in force, backoff included (Linux's, or ns-2's in `linux-2.6` and
    /// `ns2-sack1` modes):
    /// the T0 of seed 002's Section 5 estimate E[t_out] = E[N_tout] E[T0].
    pub fn current_rto(&self) -> SimDuration {
        self.rto()
    }
    pub fn in_flight(&self) -> u32 {
        self.sb.in_flight()
    }
    pub fn packets_out(&self) -> u32 {
        self.sb.packets_out()
    }
    pub fn snd_una(&self) -> u64 {
        self.sb.snd_una()
    }
    pub fn snd_nxt(&self) -> u64 {
        self.sb.snd_nxt()
    }
    /// When the sender next needs `on_timer`: the retransmission timer, a pacing wake-up or the
    /// delayed-send timer.
    pub fn timer_deadline(&self) -> Option<SimTime> {
        let deadline = match (self.rto_deadline, self.pacing_wakeup) {
            (Some(rto), Some(pacing)) => Some(rto.min(pacing)),
            (rto, pacing) => rto.or(pacing),
        };
        match self.delayed.as_ref().and_then(|d| d.due()) {
            Some(due) => Some(deadline.map_or(due, |d| d.min(due))),
            None => deadline,
        }
    }
    #[cfg(test)]
    pub fn scoreboard(&self) -> &Scoreboard {
        &self.sb
    }

    /// The application starts writing: send the initial window.
    pub fn start(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.started = true;
        self.send_what_is_allowed(now, out);
    }

    pub fn on_ack(&mut self, now: SimTime, ack: &Packet, out: &mut Vec<Segment>) {
        let Payload::Ack { cum_ack, echo_retransmission, ece, n_sack, .. } = ack.payload else {
            return;
        };
        let cum_ack = cum_ack.get();
        let echo = ack.sent_at;
        let prior_in_flight = self.sb.in_flight();
        let prior_lost = self.sb.lost_total;
        let prior_state = self.state;
        let packets_out_before = self.sb.packets_out();
        let prior_sacked = self.sb.sacked_out;
        // F-RTO reads this ACK (its detection was in progress when it arrived).
        let frto_reads = self.frto.is_some();
        // ns-2 TCP-Linux takes a timer sample from every ACK it does not discard as old (`recv`, then
        // `time_processing`); the echoed time stamp makes retransmissions safe to measure.
        let linux_timed = cum_ack >= self.sb.snd_una()
            && self.ns2_rto.as_ref().is_some_and(|timer| timer.agent_kind() == Ns2Agent::Linux);
        if let (Some(timer), true) = (&mut self.ns2_rto, linux_timed) {
            timer.on_ack(now.since(echo));
        }

        let (acked, retransmitted_acked) =
            if cum_ack > self.sb.snd_una() { self.sb.advance(cum_ack) } else { (0, false) };
        let mut newly_sacked = 0;
        // F-RTO: segments sent before the timeout among those newly SACKed, merged first to count them.
        let mut originals_sacked = 0;
        // Most ACKs carry no SACK block: then the rule is not asked (a call per ACK) whether it reads them.
        if n_sack > 0 && self.recovery.reads_sack() {
            for block in ack.payload.sack_blocks() {
                if let Some(probe) = &self.frto {
                    let originals = self.sb.add_sack(probe.originals_of(block));
                    originals_sacked += originals;
                    newly_sacked += originals;
                }
                newly_sacked += self.sb.add_sack(block);
            }
        }

        // Duplicate ACK: acknowledges nothing new while data is outstanding (RFC 5681 section 2).
        let duplicate = acked == 0 && packets_out_before > 0 && cum_ack == self.sb.snd_una();
        if duplicate {
            self.dupacks += 1;
        } else if acked > 0 {
            self.dupacks = 0;
        }

        // RTT sample, Karn's rule: never from a retransmitted segment.
        let mut rtt_sample = None;
        if (acked > 0 || newly_sacked > 0) && !echo_retransmission {
            let r = now.since(echo);
            self.rtt.on_sample(r);
            self.counters.rtt_samples += 1;
            self.counters.rtt_sum_ns += r.0 as u128;
            if let Some(histogram) = &mut self.rtt_histogram {
                histogram.record(r);
            }
            rtt_sample = Some(r);
        }

        if !frto_reads {
            self.recovery.mark_losses(&mut self.sb, &AckEvent { acked, duplicate, prior_sacked, retransmitted_acked });
        }

        if acked > 0 || newly_sacked > 0 {
            let min_rtt = self.rtt.min_rtt();
            let rate = self.rate.as_mut().map(|rate| {
                let (delivered, newest) = self.sb.take_delivered();
                let losses = (self.sb.lost_total - prior_lost) as u32;
                rate.on_ack(now, delivered, newest, losses, self.sb.lost_total, min_rtt)
            });
            let sample = AckSample {
                now,
                acked,
                sacked: newly_sacked,
                rtt: rtt_sample,
                srtt: self.rtt.srtt(),
                min_rtt,
                prior_in_flight,
                in_flight: self.sb.in_flight(),
                cwnd_limited: self.is_cwnd_limited(prior_in_flight),
                in_recovery: prior_state != CaState::Open,
                snd_una: self.sb.snd_una(),
                snd_nxt: self.sb.snd_nxt(),
                delivered: self.sb.snd_una() + self.sb.sacked_out as u64,
                rate,
            };
            self.cc.on_ack_sample(&sample);
            if let Some(rate) = &mut self.rate {
                if self.cc.marks_app_limited() {
                    rate.mark_app_limited(self.sb.in_flight());
                }
            }
            // Linux raises cwnd only outside Recovery (slow start continues in Loss after an RTO).
            if acked > 0 && prior_state != CaState::Recovery && !frto_reads {
                if self.grows_once_per_ack {
                    self.cc.on_ack(&AckSample { acked: 1, ..sample });
                } else {
                    self.cc.on_ack(&sample);
                }
            }
        }

        if ece && self.cfg.ecn && !frto_reads {
            self.on_ecn_echo(now, prior_in_flight);
        }
        if frto_reads {
            let read = ProbeAck {
                acked,
                duplicate,
                newly_sacked,
                originals_sacked,
                snd_una: self.sb.snd_una(),
                can_send_new: self.may_send_new(now),
            };
            self.frto_on_ack(now, &read);
        }

        // ns-2 Agent/TCP's `newack` (a new cumulative ACK, not a partial one inside fast recovery) ends the
        // sample of the timed segment if it covers it.
        let mut partial_ack = false;
        let agent_newack = acked > 0 && (prior_state != CaState::Recovery || self.sb.snd_una() > self.recover);
        if let (Some(timer), true) = (&mut self.ns2_rto, agent_newack) {
            timer.on_new_ack(cum_ack, now);
        }

        // State transitions.
        if self.state != CaState::Open && self.sb.snd_una() > self.recover {
            let held_cwnd = self.cc.cwnd();
            if self.state == CaState::Recovery {
                self.cc.on_recovery_exit(now);
            }
            self.recovery.on_exit(&mut self.cc, &mut self.sb, held_cwnd);
            self.state = CaState::Open;
            self.dupacks = 0;
        }
        match self.state {
            CaState::Open => {
                if self.sb.packets_out() > 0 && (self.sb.lost_out > 0 || self.dupacks as u64 >= DUP_THRESH) {
                    self.enter_recovery(now, prior_in_flight, out);
                }
            }
            // A new loss in the Loss state starts a recovery where the rule says so (ns-2 TCP-Linux);
            // not when F-RTO has just started the Loss state, whose marks are the timeout's.
            CaState::Loss
                if self.recovery.recovers_in_loss_state() && self.sb.lost_total > prior_lost && !frto_reads =>
            {
                self.enter_recovery(now, prior_in_flight, out);
            }
            CaState::Recovery => {
                // A partial ACK: new data acknowledged short of the recovery point.
                if acked > 0 && self.sb.packets_out() > 0 {
                    partial_ack = true;
                    self.recovery.on_partial_ack(&mut self.sb);
                }
            }
            CaState::Loss => {}
        }

        // RFC 6298 (5.2, 5.3): stop the timer when all is acknowledged, restart it on new data acknowledged.
        // ns-2 TCP-Linux restarts it on every ACK it times (`renew_timer`).
        if self.sb.packets_out() == 0 {
            self.rto_deadline = None;
        } else if acked > 0 || linux_timed {
            self.rto_deadline = Some(now + self.rto());
        }
        // Sack1 ends the back-off at a partial ACK after re-arming the timer with it (TCP-Linux's ended at
        // the ACK's sample).
        if partial_ack {
            if let Some(timer) = self.ns2_rto.as_mut().filter(|timer| timer.agent_kind() == Ns2Agent::Tcp) {
                timer.end_back_off();
            }
        }

        // Still Open after a duplicate ACK: it was the first or second.
        if duplicate && self.state == CaState::Open && self.sends_one_per_early_dupack {
            self.send_one(now, out);
            return;
        }
        self.send_what_is_allowed(now, out);
    }

    /// ns-2's `send_one` (`tcp/tcp.cc`), limited transmit as its agents do it: one new packet if fewer than
    /// cwnd + dupacks are outstanding, sent at once, past the delayed send (`output` directly). Nothing
    /// else leaves on that ACK, and no delayed send is armed: `send_much` runs only while no duplicate
    /// ACK is counted. A paced sender (ns-2 has none) takes the ordinary send path instead.
    #[inline(never)]
    fn send_one(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if !self.started {
            return;
        }
        let paced = self.cc.pacing_rate_bps().is_some() || self.burst.is_some();
        if paced {
            self.send_what_is_allowed(now, out);
            return;
        }
        let allowed = self.cc.cwnd().saturating_add(self.dupacks);
        if self.sb.packets_out() < allowed && self.may_send_new(now) {
            self.send_new(now, out);
        }
        if self.rto_deadline.is_none() && self.sb.packets_out() > 0 {
            self.rto_deadline = Some(now + self.rto());
        }
    }

    /// The receiver echoed a CE mark (RFC 3168 section 6.1.2): outside loss recovery, and at most once per
    /// window, the algorithm takes the reduction it takes for a loss (its `ssthresh`), applied at once
    /// (Linux walks cwnd down by PRR in its CWR state; no segment is retransmitted either way), and the
    /// next new segment carries CWR. Inside Recovery or Loss the loss's reduction already stands.
    fn on_ecn_echo(&mut self, now: SimTime, prior_in_flight: u32) {
        if self.state != CaState::Open || self.ecn_recover.is_some_and(|r| self.sb.snd_una() <= r) {
            return;
        }
        self.counters.ecn_reductions += 1;
        self.cc.on_congestion_event(&CongestionEvent {
            now,
            in_flight: prior_in_flight,
            min_rtt: self.rtt.min_rtt(),
            srtt: self.rtt.srtt(),
        });
        self.cc.on_recovery_exit(now);
        self.ecn_recover = Some(self.sb.snd_nxt().saturating_sub(1));
        self.cwr_pending = true;
    }

    /// Linux 2.6 `tcp_is_cwnd_limited`: the window was (nearly) full, so growing it is meaningful. At or
    /// above a clamp the sender enforces, growth is withheld the same way (see `SenderConfig::cwnd_clamp`).
    fn is_cwnd_limited(&self, in_flight: u32) -> bool {
        let cwnd = self.cc.cwnd();
        if self.growth_clamp.is_some_and(|clamp| cwnd >= clamp) {
            return false;
        }
        in_flight >= cwnd || cwnd - in_flight <= 3
    }

    fn enter_recovery(&mut self, now: SimTime, prior_in_flight: u32, out: &mut Vec<Segment>) {
        let una = self.sb.snd_una();
        if !self.sb.is_lost(una) && self.dupacks as u64 >= DUP_THRESH {
            self.sb.mark_lost(una);
        }
        self.state = CaState::Recovery;
        self.recover = self.sb.snd_nxt() - 1;
        self.counters.loss_events += 1;
        self.record_loss_event(now);
        let old_cwnd = self.cc.cwnd();
        self.cc.on_congestion_event(&CongestionEvent {
            now,
            in_flight: prior_in_flight,
            min_rtt: self.rtt.min_rtt(),
            srtt: self.rtt.srtt(),
        });
        self.recovery.on_enter(&mut self.cc, &mut self.sb, old_cwnd);
        // ns-2 Agent/TCP (`dupack_action`, `reset_rtx_timer(1, 0)`): the timer restarts without a back-off,
        // and the sample in progress is dropped.
        if let Some(timer) = self.ns2_rto.as_mut().filter(|timer| timer.agent_kind() == Ns2Agent::Tcp) {
            timer.cancel_timing();
            self.rto_deadline = Some(now + timer.timeout());
        }
        if self.recovery.retransmits_at_entry() {
            if let Some(seq) = self.sb.next_retransmit() {
                self.retransmit(seq, now, out);
            }
        }
    }

    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        // The delayed-send timer's expiry forces the send that follows (ns-2 `timeout_nonrtx`). With a
        // timeout due at the same instant, the timeout is taken first, then the forced send, as ns-2 does
        // when the timeout's event comes first (the other order sends before the timeout's marks).
        let forced = self.delayed.as_mut().is_some_and(|d| d.expire(now));
        let rto_due = self.rto_deadline.is_some_and(|deadline| now >= deadline);
        if rto_due && self.sb.packets_out() == 0 {
            self.rto_deadline = None;
        }
        if !rto_due || self.sb.packets_out() == 0 {
            // Not a retransmission timeout: the delayed send or a pacing wake-up, if one is due.
            if forced {
                self.send_at_delayed_timer(now, out);
            } else if self.pacing_wakeup.is_some_and(|wakeup| now >= wakeup) {
                self.send_what_is_allowed(now, out);
            }
            return;
        }
        if self.frto_cfg.is_some() {
            let may_start = match &self.frto {
                Some(probe) => probe.may_restart(),
                None => self.state == CaState::Open,
            };
            if may_start {
                self.start_frto(now, out);
                if forced {
                    self.send_at_delayed_timer(now, out);
                }
                return;
            }
        }
        self.counters.timeouts += 1;
        // A timeout after F-RTO's probe (its second stage) is the same loss event, not a new one; the
        // reduction F-RTO deferred is taken now (`first_in_episode`, since the state is still Open).
        let probing = self.frto.take().is_some();
        if self.state == CaState::Open && !probing {
            self.record_loss_event(now);
        }
        let first_in_episode = self.state != CaState::Loss || self.recovery.reduces_at_every_timeout();
        self.enter_rto_recovery(now, first_in_episode);
        self.back_off_timers();
        self.rto_deadline = Some(now + self.rto());
        if forced {
            self.send_at_delayed_timer(now, out);
        } else {
            self.send_what_is_allowed(now, out);
        }
    }

    /// RTO recovery (RFC 5681 section 3.1, eq. 4 and the Loss state of Linux `tcp_enter_loss`): the
    /// algorithm takes its timeout reduction (`first` is false for a repeated timeout in one episode),
    /// everything outstanding is presumed lost and recovery ends once `recover` (the highest segment sent
    /// so far) is acknowledged. Shared by a plain timeout and F-RTO's fall-back.
    fn enter_rto_recovery(&mut self, now: SimTime, first: bool) {
        self.cc.on_timeout(now, first);
        self.state = CaState::Loss;
        self.recover = self.sb.snd_nxt() - 1;
        self.dupacks = 0;
        self.recovery.on_timeout(&mut self.sb);
        self.sb.mark_all_lost();
    }

    /// Exponential back-off after a timeout (RFC 6298 section 5.5): the RTT estimator's RTO doubles, and
    /// so does ns-2's own timer (`tcp/rto_ns2.rs`, ns-2 `tcp/tcp.cc` `rtt_backoff`), which also drops
    /// the sample in progress (`reset_rtx_timer`).
    fn back_off_timers(&mut self) {
        self.rtt.back_off();
        if let Some(timer) = &mut self.ns2_rto {
            timer.back_off();
            timer.cancel_timing();
        }
    }

    /// F-RTO step 1 (`tcp/frto.rs`): a timeout in the Open state, or a repeated one before any ACK
    /// advanced the window, resends the head only and leaves the algorithm alone until the verdict.
    fn start_frto(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.counters.timeouts += 1;
        let una = self.sb.snd_una();
        match &mut self.frto {
            Some(probe) => {
                // The head's earlier resend is presumed lost, as a conventional timeout presumes.
                self.sb.clear_retransmission(una);
                probe.restart(now);
            }
            None => {
                self.record_loss_event(now);
                self.frto = Some(Probe::new(now, una, self.sb.snd_nxt(), self.sb.in_flight()));
            }
        }
        self.dupacks = 0;
        self.back_off_timers();
        self.retransmit(una, now, out);
        self.rto_deadline = Some(now + self.rto());
    }

    /// F-RTO reads an ACK (after the scoreboard, the RTT estimator and the algorithm's sample have it).
    fn frto_on_ack(&mut self, now: SimTime, read: &ProbeAck) {
        let (Some(frto), Some(probe)) = (self.frto_cfg, self.frto.as_mut()) else { return };
        // Duplicate ACKs are F-RTO's to read: they do not count toward a fast retransmit meanwhile.
        self.dupacks = 0;
        match probe.on_ack(frto.variant, read) {
            Verdict::Wait | Verdict::SendNew => {}
            Verdict::Conventional { allowance } => self.frto_fall_back(now, allowance),
            Verdict::Spurious => {
                let probe = self.frto.take().expect("detection in progress");
                self.counters.spurious_timeouts += 1;
                if frto.response == SpuriousResponse::Halve {
                    self.cc.on_congestion_event(&CongestionEvent {
                        now,
                        in_flight: probe.in_flight_at_timeout,
                        min_rtt: self.rtt.min_rtt(),
                        srtt: self.rtt.srtt(),
                    });
                    self.cc.on_recovery_exit(now);
                }
            }
        }
    }

    /// The timeout was real (or could not be probed): the RTO recovery of `on_timer`, started now, with
    /// cwnd = in_flight + `allowance` (Linux `tcp_enter_frto_loss`).
    fn frto_fall_back(&mut self, now: SimTime, allowance: u32) {
        let probe = self.frto.take().expect("detection in progress");
        self.enter_rto_recovery(now, true);
        let una = self.sb.snd_una();
        if una == probe.head && self.sb.packets_out() > 0 {
            // The head's resend from the timeout is not acknowledged yet: it is still in flight.
            self.sb.on_retransmit(una, probe.head_sent_at);
        }
        self.cc.set_cwnd(self.sb.in_flight() + allowance);
    }

    /// During F-RTO detection, only the new segments of step 2b go out, whatever cwnd allows.
    fn send_frto_probes(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        while self.frto.as_ref().is_some_and(|probe| probe.new_allowed > 0) && self.may_send_new(now) {
            if let Some(probe) = &mut self.frto {
                probe.new_allowed -= 1;
            }
            self.send_new(now, out);
        }
        if self.rto_deadline.is_none() && self.sb.packets_out() > 0 {
            self.rto_deadline = Some(now + self.rto());
        }
    }

    /// Send what the window allows now, or, with ns-2's delayed send, at the timer's expiry.
    #[inline(always)]
    fn send_what_is_allowed(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if !self.started {
            return;
        }
        if self.delayed.is_some() {
            self.arm_delayed_send(now);
            return;
        }
        self.send_now(now, out);
    }

    /// The delayed-send timer's expiry: ns-2's forced `send_much`, between the agent's copy of its window
    /// out and back in (`LossRecovery::saved_before_delayed_send`; only `linux-2.6` keeps one).
    #[inline(never)]
    fn send_at_delayed_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let saved = self.recovery.saved_before_delayed_send(self.cc.cwnd());
        self.send_now(now, out);
        if let Some(saved) = saved {
            if let Some(cwnd) = self.recovery.loaded_after_delayed_send(self.cc.cwnd(), saved) {
                self.cc.set_cwnd(cwnd);
            }
        }
    }

    /// ns-2's `send_much` not forced, with `overhead_` (`tcp/delayed_send.rs`): nothing is sent now. If the
    /// timer is not pending and the window has room, it is armed (after the rate-halving allowance's
    /// update, which ns-2 makes before its send loop).
    #[inline(never)]
    fn arm_delayed_send(&mut self, now: SimTime) {
        let Some(delayed) = self.delayed.as_mut() else { return };
        // A pacing wake-up that is due is spent here: what it would send goes at the timer's expiry,
        // which paces again (left set, it kept the sender's deadline in the past, for ever).
        self.pacing_wakeup = self.pacing_wakeup.filter(|&wakeup| now < wakeup);
        if delayed.due().is_some() {
            return;
        }
        let in_flight = self.sb.in_flight();
        let room = self.frto.is_some()
            || in_flight < if self.window_is_cwnd { self.cc.cwnd() } else { self.recovery.window_for_sending(self.cc.cwnd(), in_flight) };
        if room {
            delayed.arm(now);
        }
    }

    /// RFC 6675 NextSeg, in order: lost segments, then new data, while pipe < cwnd, or the larger window
    /// the recovery rule allows (`linux-2.6` mode's rate-halving allowance).
    #[inline(always)]
    fn send_now(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if !self.started {
            return;
        }
        // Each pass takes the pacing wake-up that was pending and leaves only the one it decides on: a
        // due one is spent whichever branch runs (left set, it kept the timer due, and a paced sender
        // in F-RTO woke at the same instant for ever: BBR with `frto`, 30 % random loss).
        let pending_wakeup = self.pacing_wakeup.take();
        if self.frto.is_some() {
            // F-RTO's probes go out whatever pacing says; a wake-up not yet due stays armed.
            self.pacing_wakeup = pending_wakeup.filter(|&wakeup| now < wakeup);
            self.send_frto_probes(now, out);
            return;
        }
        let cwnd = self.cc.cwnd();
        let pacing_rate = self.cc.pacing_rate_bps();
        let mut window = if self.window_is_cwnd { cwnd } else { self.recovery.window_for_sending(cwnd, self.sb.in_flight()) };
        while self.sb.in_flight() < window {
            if (pacing_rate.is_some() || self.burst.is_some()) && now < self.next_send_time {
                self.pacing_wakeup = Some(self.next_send_time);
                break;
            }
            if let Some(seq) = self.sb.next_retransmit() {
                self.retransmit(seq, now, out);
            } else if self.may_send_new(now) {
                self.send_new(now, out);
            } else {
                self.check_app_limited(now);
                break;
            }
            if let Some(bps) = pacing_rate {
                if bps != self.pacing_gap.0 {
                    self.pacing_gap = (bps, Rate::from_bps(bps.max(1)).tx_time(self.cfg.packet_size));
                }
                self.next_send_time = now + self.pacing_gap.1;
            } else if let Some(hold) = self.burst.as_mut().and_then(|b| b.on_send(now)) {
                self.next_send_time = hold;
            }
            if !self.window_is_cwnd {
                window = self.recovery.window_after_sending(cwnd, self.sb.in_flight());
            }
        }
        if self.rto_deadline.is_none() && self.sb.packets_out() > 0 {
            self.rto_deadline = Some(now + self.rto());
        }
    }

    /// The retransmission timeout in force: Linux's, or ns-2's in `linux-2.6` and `ns2-sack1` modes.
    fn rto(&self) -> SimDuration {
        match &self.ns2_rto {
            Some(timer) => timer.timeout(),
            None => self.rtt.rto(),
        }
    }

    /// Linux `tcp_rate_check_app_limited`: the window has room and nothing is waiting for retransmission,
    /// but the application has no more data (past `stop`; a full receiver window is not app-limited).
    fn check_app_limited(&mut self, now: SimTime) {
        if let Some(rate) = &mut self.rate {
            let written = self.cfg.segments.is_some_and(|n| self.sb.snd_nxt() >= n);
            if written || self.cfg.stop.is_some_and(|stop| now >= stop) {
                rate.mark_app_limited(self.sb.in_flight());
            }
        }
    }

    fn may_send_new(&self, now: SimTime) -> bool {
        let window_open = self.sb.snd_nxt() - self.sb.snd_una() < self.cfg.rwnd;
        let data_left = self.cfg.segments.map_or(true, |n| self.sb.snd_nxt() < n);
        window_open && data_left && self.cfg.stop.map_or(true, |stop| now < stop)
    }

    /// The next new segment leaves now.
    #[inline(always)]
    fn send_new(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let seq = match &mut self.rate {
            // It starts a sampling flight when nothing else is outstanding (`tcp_rate_skb_sent`).
            Some(rate) => {
                let stamp = rate.on_send(now, self.sb.packets_out() == 0);
                self.sb.push_new_stamped(now, stamp)
            }
            None => self.sb.push_new(now),
        };
        if let Some(timer) = &mut self.ns2_rto {
            timer.on_new_segment(seq, now);
        }
        self.emit(seq, false, now, out);
    }

    fn retransmit(&mut self, seq: u64, now: SimTime, out: &mut Vec<Segment>) {
        if let Some(rate) = &mut self.rate {
            // Something is outstanding (this segment): never the start of a sampling flight.
            let stamp = rate.on_send(now, false);
            self.sb.set_tx_stamp(seq, stamp);
        }
        self.sb.on_retransmit(seq, now);
        self.counters.retransmissions += 1;
        if seq == self.sb.snd_una() && self.ns2_rto.is_none() {
            // Linux restarts the timer when it retransmits the head (tcp_retransmit_timer / xmit_retransmit_queue),
            // so the retransmission gets a full RTO to come back. (ns-2's `output` leaves a pending timer.)
            self.rto_deadline = Some(now + self.rto());
        }
        self.emit(seq, true, now, out);
    }

    /// Hand segment `seq` to the network (its delivery-rate stamp, if any, is already set).
    #[inline(always)]
    fn emit(&mut self, seq: u64, retransmission: bool, now: SimTime, out: &mut Vec<Segment>) {
        self.counters.packets_sent += 1;
        // RFC 3168 section 6.1.5: retransmissions are not ECN-capable; CWR rides on new data.
        let ecn = if self.cfg.ecn && !retransmission { Ecn::Ect } else { Ecn::NotEct };
        let cwr = self.cwr_pending && !retransmission;
        self.cwr_pending &= !cwr;
        out.push(Segment::new(seq, now, retransmission, cwr, ecn));
    }

    /// The packet that carries `seg` (one this sender emitted), assembled where it goes on its way
    /// (`tcp/segment.rs` says why not here).
    #[inline(always)]
    pub fn packet(&self, seg: Segment) -> Packet {
        Packet {
            flow: self.cfg.flow,
            dir: Direction::Forward,
            hop: 0,
            size: self.cfg.packet_size,
            sent_at: seg.sent_at,
            ecn: seg.ecn(),
            payload: Payload::Data { seq: seg.seq.into(), retransmission: seg.retransmission(), cwr: seg.cwr() },
        }
    }
}
