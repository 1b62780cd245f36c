//! A bulk-data TCP sender as a sans-IO state machine: it is handed ACKs and timer expiries with `now`,
//! and answers with the packets to send (appended to `out`) and its next deadline (`timer_deadline`).
//!
//! Loss recovery follows RFC 6675 (SACK) by default, or RFC 6582 (NewReno) when SACK is off, on Linux's
//! state machine: Open -> Recovery on fast retransmit, -> Loss on a retransmission timeout. The window
//! belongs to the congestion-control algorithm; the sender only reads it.
//!
//! A third mode, `linux-2.6`, copies ns-2.35 TCP-Linux (`tcp/tcp-linux.cc`, Wei & Cao 2006; fact sheet
//! §1.7), which stands in for Linux 2.6's rate-halving on the same SACK scoreboard:
//! - entry (from Open, or from Loss when an ACK marks a new loss): ssthresh from the algorithm, then cwnd
//!   = the algorithm's `min_cwnd()` at once (`tcp_fastretrans_alert`);
//! - sending: while pipe < max(cwnd, allowance). The allowance (`next_pkts_in_flight_`) starts at the old
//!   cwnd, is lowered to pipe + 1 before each sending opportunity and to max(pipe - 1, 1) after each
//!   transmission (`send_much`), so about one packet leaves per two ACKs until pipe has fallen to cwnd;
//! - loss marking (`Scoreboard::with_fack_marking`): a hole is lost once the highest SACK lies 4 or more
//!   sequence numbers above it (ns-2 `ScoreBoard1`), and recovery starts at the first such mark;
//! - exit (the recovery point acknowledged, from Recovery or Loss): if cwnd < ssthresh, cwnd = ssthresh
//!   capped at outstanding + 3 (`tcp_moderate_cwnd`, `tcp_max_burst` = 3); no COMPLETE_CWR, no undo;
//! - a timeout clears the allowance;
//! - the retransmission timer is ns-2's (`tcp/rto_ns2.rs`): RTO = max(200 ms, srtt + 4 rttvar) in 1 ms
//!   ticks from a sample on every ACK, re-armed by every ACK (duplicates included) and not by the
//!   retransmission of the head.
//! The algorithm learns these windows through `CongestionControl::set_cwnd`.
//!
//! Two services exist for algorithms that ask for them (BBR), and cost one branch otherwise:
//! - delivery-rate samples (`tcp/rate.rs`), handed over in `AckSample::rate`;
//! - pacing: when `pacing_rate_bps()` is Some, no segment leaves before `next_send_time`, and each one
//!   pushes it to send time + size * 8 / rate (integer ns, rounded up; Linux EDT
//!   `tcp_update_skb_after_send`). A sender held back by pacing asks for a wake-up through
//!   `timer_deadline`, which is then the earlier of that and the retransmission timer. The first
//!   retransmission of a fast retransmit still goes out at once (RFC 6675 4.3), outside the pacing budget.

use crate::cc::{AckSample, CongestionControl, CongestionEvent};
use crate::net::packet::{Direction, Ecn, Packet, Payload};
use crate::tcp::burst::BurstLimit;
use crate::tcp::rate::RateSampler;
use crate::tcp::rto_ns2::Ns2Rto;
use crate::tcp::rtt::RttEstimator;
use crate::tcp::scoreboard::{Scoreboard, DUP_THRESH};
use crate::time::{Rate, SimDuration, SimTime};
use serde::{Deserialize, Serialize};

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
}

impl Recovery {
    /// Whether the receiver's SACK blocks are read.
    fn uses_sack(self) -> bool {
        self != Recovery::Newreno
    }
}

/// ns-2.35 TCP-Linux `tcp_max_burst` (`tcp/linux/ns-linux-param.c`): at recovery exit cwnd is capped at
/// the packets outstanding plus this.
const NS2_MAX_BURST: u32 = 3;

#[derive(Clone, Debug)]
pub struct SenderConfig {
    pub flow: u32,
    /// Bytes on the wire of a data packet.
    pub packet_size: u32,
    pub recovery: Recovery,
    pub rto_min: SimDuration,
    /// Receiver window in packets.
    pub rwnd: u64,
    /// No new data is sent from this time on.
    pub stop: Option<SimTime>,
    /// A finite transfer: segments 0..this are all the application writes (None: unlimited).
    pub segments: Option<u64>,
}

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
}

pub struct Sender {
    cfg: SenderConfig,
    cc: Box<dyn CongestionControl>,
    sb: Scoreboard,
    rtt: RttEstimator,
    /// `linux-2.6` mode: ns-2's retransmission timer, which then replaces `rtt`'s RTO (RTT samples for the
    /// algorithm still come from `rtt`).
    ns2_rto: Option<Ns2Rto>,
    state: CaState,
    /// Recovery point: recovery ends when everything up to here is cumulatively acknowledged.
    recover: u64,
    dupacks: u32,
    /// NewReno mode: duplicate ACKs standing in for SACKed segments.
    emulated_sacked: u32,
    started: bool,
    rto_deadline: Option<SimTime>,
    counters: SenderCounters,
    /// Delivery-rate estimator, only when the algorithm wants rate samples.
    rate: Option<RateSampler>,
    /// Pacing: no segment is sent before this time.
    next_send_time: SimTime,
    /// Pacing held back a segment the window allowed: wake up then.
    pacing_wakeup: Option<SimTime>,
    /// `linux-2.6` mode: the rate-halving send allowance in packets (ns-2 `next_pkts_in_flight_`); 0 outside
    /// recovery.
    rate_halving_allowance: u32,
    /// At most k packets back to back (`tcp/burst.rs`), held with the pacing mechanism.
    burst: Option<BurstLimit>,
}

impl Sender {
    pub fn new(cfg: SenderConfig, cc: Box<dyn CongestionControl>) -> Self {
        let wants_rate = cc.wants_rate_samples();
        let mut sb = if wants_rate { Scoreboard::with_rate_stamps() } else { Scoreboard::new() };
        if cfg.recovery == Recovery::Linux26 {
            sb = sb.with_fack_marking();
        }
        Sender {
            rtt: RttEstimator::new(cfg.rto_min),
            ns2_rto: (cfg.recovery == Recovery::Linux26).then(|| Ns2Rto::new(cfg.rto_min)),
            cfg,
            cc,
            sb,
            state: CaState::Open,
            recover: 0,
            dupacks: 0,
            emulated_sacked: 0,
            started: false,
            rto_deadline: None,
            counters: SenderCounters::default(),
            rate: wants_rate.then(RateSampler::new),
            next_send_time: SimTime::ZERO,
            pacing_wakeup: None,
            rate_halving_allowance: 0,
            burst: None,
        }
    }

    /// Send at most `limit`'s burst back to back (for algorithms without a pacing rate).
    pub fn with_burst_limit(mut self, limit: BurstLimit) -> Self {
        self.burst = Some(limit);
        self
    }

    pub fn cc(&self) -> &dyn CongestionControl {
        self.cc.as_ref()
    }
    pub fn state(&self) -> CaState {
        self.state
    }
    pub fn counters(&self) -> &SenderCounters {
        &self.counters
    }
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
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
    /// When the sender next needs `on_timer`: the retransmission timer or a pacing wake-up.
    pub fn timer_deadline(&self) -> Option<SimTime> {
        match (self.rto_deadline, self.pacing_wakeup) {
            (Some(rto), Some(pacing)) => Some(rto.min(pacing)),
            (rto, pacing) => rto.or(pacing),
        }
    }
    #[cfg(test)]
    pub fn scoreboard(&self) -> &Scoreboard {
        &self.sb
    }

    /// The application starts writing: send the initial window.
    pub fn start(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        self.started = true;
        self.send_what_is_allowed(now, out);
    }

    pub fn on_ack(&mut self, now: SimTime, ack: &Packet, out: &mut Vec<Packet>) {
        let Payload::Ack { cum_ack, echo_retransmission, .. } = ack.payload else {
            return;
        };
        let echo = ack.sent_at;
        let prior_in_flight = self.sb.in_flight();
        let prior_lost = self.sb.lost_total;
        let prior_state = self.state;
        let packets_out_before = self.sb.packets_out();
        // ns-2 TCP-Linux takes a timer sample from every ACK it does not discard as old (`recv`, then
        // `time_processing`); the echoed time stamp makes retransmissions safe to measure.
        let ns2_timed = cum_ack >= self.sb.snd_una();
        if let (Some(timer), true) = (&mut self.ns2_rto, ns2_timed) {
            timer.on_ack(now.since(echo));
        }

        let (acked, _) = if cum_ack > self.sb.snd_una() { self.sb.advance(cum_ack) } else { (0, false) };
        let mut newly_sacked = 0;
        if self.cfg.recovery.uses_sack() {
            for block in ack.payload.sack_blocks() {
                newly_sacked += self.sb.add_sack(block);
            }
        }

        // Duplicate ACK: acknowledges nothing new while data is outstanding (RFC 5681 section 2).
        if acked == 0 && packets_out_before > 0 && cum_ack == self.sb.snd_una() {
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
            rtt_sample = Some(r);
        }

        if self.cfg.recovery == Recovery::Newreno {
            if acked == 0 && packets_out_before > 0 && cum_ack == self.sb.snd_una() {
                self.emulated_sacked += 1;
            } else if acked > 0 {
                self.emulated_sacked -= (acked - 1).min(self.emulated_sacked);
            }
            self.sb.set_emulated_sacked(self.emulated_sacked);
        } else {
            self.sb.mark_lost_by_sack();
            self.sb.mark_lost_retransmissions();
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
            if acked > 0 && prior_state != CaState::Recovery {
                self.cc.on_ack(&sample);
            }
        }

        // State transitions.
        if self.state != CaState::Open && self.sb.snd_una() > self.recover {
            let held_cwnd = self.cc.cwnd();
            if self.state == CaState::Recovery {
                self.cc.on_recovery_exit(now);
            }
            if self.cfg.recovery == Recovery::Linux26 {
                self.exit_recovery_ns2(held_cwnd);
            }
            self.state = CaState::Open;
            self.dupacks = 0;
            self.clear_emulated_sacks();
        }
        match self.state {
            CaState::Open => {
                if self.sb.packets_out() > 0 && (self.sb.lost_out > 0 || self.dupacks as u64 >= DUP_THRESH) {
                    self.enter_recovery(now, prior_in_flight, out);
                }
            }
            // ns-2 TCP-Linux lets an ACK that marks a new loss in the Loss state start a recovery
            // (`tcp_fastretrans_alert`: "case TCP_CA_Loss: let it through").
            CaState::Loss if self.cfg.recovery == Recovery::Linux26 && self.sb.lost_total > prior_lost => {
                self.enter_recovery(now, prior_in_flight, out);
            }
            CaState::Recovery => {
                if acked > 0 && self.cfg.recovery == Recovery::Newreno && self.sb.packets_out() > 0 {
                    // Partial ACK (RFC 6582 step 5): the next hole is lost too.
                    let una = self.sb.snd_una();
                    self.sb.mark_lost(una);
                }
            }
            CaState::Loss => {}
        }

        // RFC 6298 (5.2, 5.3): stop the timer when all is acknowledged, restart it on new data acknowledged.
        // ns-2 TCP-Linux restarts it on every ACK it times (`renew_timer`).
        if self.sb.packets_out() == 0 {
            self.rto_deadline = None;
        } else if acked > 0 || (self.ns2_rto.is_some() && ns2_timed) {
            self.rto_deadline = Some(now + self.rto());
        }

        self.send_what_is_allowed(now, out);
    }

    /// NewReno mode: duplicate ACKs no longer stand for SACKed segments (SACK mode keeps real SACK state).
    fn clear_emulated_sacks(&mut self) {
        if self.cfg.recovery == Recovery::Newreno {
            self.emulated_sacked = 0;
            self.sb.set_emulated_sacked(0);
        }
    }

    /// Linux 2.6 `tcp_is_cwnd_limited`: the window was (nearly) full, so growing it is meaningful.
    fn is_cwnd_limited(&self, in_flight: u32) -> bool {
        let cwnd = self.cc.cwnd();
        in_flight >= cwnd || cwnd - in_flight <= 3
    }

    fn enter_recovery(&mut self, now: SimTime, prior_in_flight: u32, out: &mut Vec<Packet>) {
        let una = self.sb.snd_una();
        if !self.sb.is_lost(una) && self.dupacks as u64 >= DUP_THRESH {
            self.sb.mark_lost(una);
        }
        self.state = CaState::Recovery;
        self.recover = self.sb.snd_nxt() - 1;
        self.counters.loss_events += 1;
        let old_cwnd = self.cc.cwnd();
        self.cc.on_congestion_event(&CongestionEvent {
            now,
            in_flight: prior_in_flight,
            min_rtt: self.rtt.min_rtt(),
            srtt: self.rtt.srtt(),
        });
        if self.cfg.recovery == Recovery::Linux26 {
            // ns-2 TCP-Linux: cwnd = min_cwnd() at once; the allowance from the old cwnd paces the
            // retransmissions, the first of which it lets out on this ACK.
            let floor = self.cc.min_cwnd();
            self.cc.set_cwnd(floor);
            self.rate_halving_allowance = old_cwnd;
            return;
        }
        // RFC 6675 (4.3) / RFC 6582: the first lost segment is retransmitted at once, whatever cwnd says.
        if let Some(seq) = self.sb.next_retransmit() {
            self.retransmit(seq, now, out);
        }
    }

    /// ns-2 TCP-Linux leaving Recovery or Loss (`tcp_fastretrans_alert`): the allowance ends, and a window
    /// below ssthresh is raised to ssthresh, then capped at the packets outstanding + `tcp_max_burst`
    /// (`tcp_moderate_cwnd`; ns-2 has just cleared its scoreboard, so its pipe is everything outstanding).
    /// `held_cwnd` is the window before the algorithm's `on_recovery_exit`, which ns-2 does not call.
    fn exit_recovery_ns2(&mut self, held_cwnd: u32) {
        self.rate_halving_allowance = 0;
        let ssthresh = self.cc.ssthresh();
        let cwnd =
            if held_cwnd < ssthresh { ssthresh.min(self.sb.packets_out() + NS2_MAX_BURST) } else { held_cwnd };
        self.cc.set_cwnd(cwnd);
    }

    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        let rto_due = self.rto_deadline.is_some_and(|deadline| now >= deadline);
        if rto_due && self.sb.packets_out() == 0 {
            self.rto_deadline = None;
        }
        if !rto_due || self.sb.packets_out() == 0 {
            // Not a retransmission timeout: a pacing wake-up, if one is due.
            if self.pacing_wakeup.is_some_and(|wakeup| now >= wakeup) {
                self.send_what_is_allowed(now, out);
            }
            return;
        }
        self.counters.timeouts += 1;
        let first_in_episode = self.state != CaState::Loss;
        self.cc.on_timeout(now, first_in_episode);
        self.state = CaState::Loss;
        self.recover = self.sb.snd_nxt() - 1;
        self.rate_halving_allowance = 0;
        self.dupacks = 0;
        self.clear_emulated_sacks();
        self.sb.mark_all_lost();
        self.rtt.back_off();
        if let Some(timer) = &mut self.ns2_rto {
            timer.back_off();
        }
        self.rto_deadline = Some(now + self.rto());
        self.send_what_is_allowed(now, out);
    }

    /// RFC 6675 NextSeg, in order: lost segments, then new data, while pipe < cwnd (in `linux-2.6` mode
    /// while pipe < max(cwnd, rate-halving allowance)).
    fn send_what_is_allowed(&mut self, now: SimTime, out: &mut Vec<Packet>) {
        if !self.started {
            return;
        }
        let cwnd = self.cc.cwnd();
        let pacing_rate = self.cc.pacing_rate_bps();
        self.pacing_wakeup = None;
        self.rate_halving_allowance = self.rate_halving_allowance.min(self.sb.in_flight() + 1);
        while self.sb.in_flight() < cwnd.max(self.rate_halving_allowance) {
            if (pacing_rate.is_some() || self.burst.is_some()) && now < self.next_send_time {
                self.pacing_wakeup = Some(self.next_send_time);
                break;
            }
            if let Some(seq) = self.sb.next_retransmit() {
                self.retransmit(seq, now, out);
            } else if self.may_send_new(now) {
                let seq = self.sb.push_new(now);
                self.emit(seq, false, now, out);
            } else {
                self.check_app_limited(now);
                break;
            }
            if let Some(bps) = pacing_rate {
                self.next_send_time = now + Rate::from_bps(bps.max(1)).tx_time(self.cfg.packet_size);
            } else if let Some(hold) = self.burst.as_mut().and_then(|b| b.on_send(now)) {
                self.next_send_time = hold;
            }
            self.rate_halving_allowance = self.rate_halving_allowance.min(self.sb.in_flight().saturating_sub(1).max(1));
        }
        if self.rto_deadline.is_none() && self.sb.packets_out() > 0 {
            self.rto_deadline = Some(now + self.rto());
        }
    }

    /// The retransmission timeout in force: Linux's, or ns-2's in `linux-2.6` mode.
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

    fn retransmit(&mut self, seq: u64, now: SimTime, out: &mut Vec<Packet>) {
        self.sb.on_retransmit(seq, now);
        self.counters.retransmissions += 1;
        if seq == self.sb.snd_una() && self.ns2_rto.is_none() {
            // Linux restarts the timer when it retransmits the head (tcp_retransmit_timer / xmit_retransmit_queue),
            // so the retransmission gets a full RTO to come back. (ns-2's `output` leaves a pending timer.)
            self.rto_deadline = Some(now + self.rto());
        }
        self.emit(seq, true, now, out);
    }

    fn emit(&mut self, seq: u64, retransmission: bool, now: SimTime, out: &mut Vec<Packet>) {
        if let Some(rate) = &mut self.rate {
            // A new segment was just pushed: it is alone in flight when nothing else was outstanding.
            let idle = !retransmission && self.sb.packets_out() == 1;
            let stamp = rate.on_send(now, idle);
            self.sb.set_tx_stamp(seq, stamp);
        }
        self.counters.packets_sent += 1;
        out.push(Packet {
            flow: self.cfg.flow,
            dir: Direction::Forward,
            hop: 0,
            size: self.cfg.packet_size,
            sent_at: now,
            ecn: Ecn::NotEct,
            payload: Payload::Data { seq, retransmission },
        });
    }
}
