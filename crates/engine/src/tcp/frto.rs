//! F-RTO: detecting spurious retransmission timeouts (`flows.N.frto`, off by default).
//!
//! A delay spike longer than the RTO (a UMTS link-layer retransmission, a handover) fires the timer
//! although nothing was lost; conventional recovery then resends the whole window (go-back-N) from a
//! window of one, while the late originals' ACKs come back. F-RTO (RFC 5682, which made RFC 4138
//! standard) retransmits only the first segment, then sends two *new* segments on the first ACK that
//! advances the window: if the next ACK acknowledges data sent before the timeout and never
//! retransmitted, the originals were only delayed and the timeout was spurious; otherwise recovery
//! continues as after any timeout.
//!
//! This file follows Linux 2.6.2x (`net/ipv4/tcp_input.c` as of about 2.6.25-2.6.28: `tcp_enter_frto`,
//! `tcp_process_frto`, `tcp_enter_frto_loss`), which the seed-002 measurements (Linux senders of 2007)
//! may have run:
//! - `sysctl_tcp_frto` 1 = basic (RFC 5682 section 2), 2 = SACK-enhanced (section 3; RFC 4138 appendix
//!   B); 2 is the default in that code (from 2.6.24 on). Values `basic` and `sack` here.
//! - `sysctl_tcp_frto_response` 0 = rate halving (`tcp_enter_cwr`: cwnd walked down to the ssthresh set
//!   at the timeout), 1 = conservative (cwnd = min(cwnd, ssthresh), RFC 4138's response), 2 = undo
//!   (`tcp_undo_cwr`: ssthresh and cwnd as before the timeout); the default is 0. Both 0 and 1 end at the
//!   algorithm's reduced window (`Documentation/networking/ip-sysctl.txt`: 0 "results in halved cwnd and
//!   ssthresh after one RTT", 1 "halves cwnd and ssthresh immediately"); here `halve` stands for them and
//!   takes the algorithm's fast-recovery reduction at once, as the sender's ECN response does (Linux
//!   enters the same CWR state for both). `undo` is response 2, less its final cap of cwnd at in_flight
//!   + 3 (`tcp_moderate_cwnd`), which is not modelled.
//!
//! The rules, per ACK after the timeout (`Probe::on_ack`; Linux's where the RFC differs):
//! 1. The timeout retransmits the first unacknowledged segment only. The algorithm is not told yet
//!    (Linux sets ssthresh there and leaves cwnd; cclab defers the whole reduction to the verdict, so
//!    an undo has nothing to restore). F-RTO starts only from the Open state (RFC 5682 3.1 step 1: no
//!    earlier recovery underway; stricter than 2.1 step 1 for the basic variant, which only excludes RTO
//!    recovery) or on a repeated timeout before the first ACK (section 3.1 step 2: "go to step 1").
//! 2. An ACK that covers everything sent before the timeout (the highmark, RFC "recover"): conventional
//!    recovery, allowing in_flight + 2 segments on the first ACK, + 3 on the second (Linux; RFC 2.1 step
//!    2a and 3.1 step 2a for the first, where RFC step 3b would call the second spurious).
//! 3. Basic: a duplicate ACK means a loss: conventional recovery (allowing in_flight + 0 on the first,
//!    + 3 on the second; RFC 2.1 steps 2a, 3a). SACK-enhanced: duplicate ACKs before the first advance
//!    only update the scoreboard (3.1 step 2); on the second ACK, one that makes no progress, or SACKs
//!    only segments sent after the timeout, means a loss (step 3a, cwnd 3).
//! 4. The first ACK that advances the window: send up to two new segments, whatever cwnd says (step 2b;
//!    Linux sets cwnd = in_flight + 2). With no new data to send (window or application limited), fall
//!    back to conventional recovery with in_flight + 2 (the RFC's recommended action).
//! 5. The second ACK, if step 3 found no loss (it advances the window, or SACKs a segment sent before
//!    the timeout): spurious. The response is applied; no segment sent before the timeout is resent.
//!
//! Conventional recovery after a verdict is the sender's RTO recovery started then: the algorithm's
//! `on_timeout`, every segment not SACKed marked lost, Loss state, and cwnd = in_flight + the allowance
//! (Linux `tcp_enter_frto_loss`, which marks the new segments lost too). No window growth while F-RTO
//! reads ACKs (`tcp_process_frto` returns 1 and `tcp_ack` skips `tcp_cong_avoid`), and no fast
//! recovery (`tcp_time_to_recover` returns 0 while `frto_counter` is set).

use crate::net::packet::SeqRange;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Which F-RTO (`flows.N.frto` in the engine config; absent: off).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FrtoVariant {
    /// RFC 5682 section 2 (Linux `tcp_frto` = 1): duplicate ACKs end the detection.
    Basic,
    /// RFC 5682 section 3 (Linux `tcp_frto` = 2, the 2.6.24+ default): SACK blocks tell new segments
    /// from originals.
    Sack,
}

/// What a spurious timeout costs the window (`flows.N.frto_response`; default `halve`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SpuriousResponse {
    /// The algorithm's fast-recovery reduction (its ssthresh), at once, no retransmission: Linux's
    /// responses 0 (rate halving, the default) and 1 (conservative; RFC 4138 section 4).
    #[default]
    Halve,
    /// Nothing: the window and ssthresh stay as before the timeout (Linux response 2, `tcp_undo_cwr`).
    Undo,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FrtoConfig {
    pub variant: FrtoVariant,
    pub response: SpuriousResponse,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The head was retransmitted; waiting for an ACK that advances the window (Linux `frto_counter` 1).
    FirstAck,
    /// Two new segments were sent; the next ACK decides (`frto_counter` 2).
    SecondAck,
}

/// What one ACK read during detection says.
#[derive(Copy, Clone, Debug, Default)]
pub struct ProbeAck {
    /// Segments newly acknowledged cumulatively.
    pub acked: u32,
    /// Acknowledges nothing new while data is outstanding (RFC 5681 section 2).
    pub duplicate: bool,
    /// Segments newly SACKed, and how many of them were sent before the timeout (none of those was
    /// retransmitted: F-RTO starts outside recovery, and only the head is resent).
    pub newly_sacked: u32,
    pub originals_sacked: u32,
    /// Cumulative ACK after this ACK.
    pub snd_una: u64,
    /// New data may be sent (receiver window, application).
    pub can_send_new: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Keep waiting (SACK-enhanced duplicate ACKs before the first advance, or an old ACK).
    Wait,
    /// Step 2b: send up to two new segments; the next ACK decides.
    SendNew,
    /// A real loss, or nothing to probe with: conventional RTO recovery with cwnd = in_flight + this.
    Conventional { allowance: u32 },
    /// The timeout was spurious.
    Spurious,
}

/// One detection in progress.
#[derive(Clone, Debug)]
pub struct Probe {
    pub stage: Stage,
    /// snd_nxt at the timeout: segments below it were sent before (RFC "recover", Linux `frto_highmark`).
    pub highmark: u64,
    /// Packets in flight when the timer fired (the FlightSize of the deferred reduction).
    pub in_flight_at_timeout: u32,
    /// The segment retransmitted at the timeout, and when.
    pub head: u64,
    pub head_sent_at: SimTime,
    /// New segments step 2b still lets out.
    pub new_allowed: u32,
}

impl Probe {
    pub fn new(now: SimTime, snd_una: u64, snd_nxt: u64, in_flight: u32) -> Self {
        Probe {
            stage: Stage::FirstAck,
            highmark: snd_nxt,
            in_flight_at_timeout: in_flight,
            head: snd_una,
            head_sent_at: now,
            new_allowed: 0,
        }
    }

    /// The timer fired again before any ACK advanced the window: the head is retransmitted again.
    pub fn restart(&mut self, now: SimTime) {
        self.head_sent_at = now;
    }

    /// Whether another timeout may run F-RTO again (before the first advance only; after step 2b the
    /// timeout is a conventional one).
    pub fn may_restart(&self) -> bool {
        self.stage == Stage::FirstAck
    }

    /// The part of a SACK block sent before the timeout.
    pub fn originals_of(&self, block: SeqRange) -> SeqRange {
        SeqRange { start: block.start, end: block.end.min(self.highmark) }
    }

    /// Read one ACK (after the scoreboard has taken it).
    pub fn on_ack(&mut self, variant: FrtoVariant, ack: &ProbeAck) -> Verdict {
        let progress = ack.acked > 0 || ack.newly_sacked > 0;
        if !progress && !ack.duplicate {
            return Verdict::Wait; // an old ACK: Linux never hands it to tcp_process_frto
        }
        let first = self.stage == Stage::FirstAck;
        if ack.snd_una >= self.highmark {
            return Verdict::Conventional { allowance: if first { 2 } else { 3 } };
        }
        match variant {
            FrtoVariant::Basic if ack.acked == 0 => {
                return Verdict::Conventional { allowance: if first { 0 } else { 3 } };
            }
            FrtoVariant::Basic => {}
            FrtoVariant::Sack if first && ack.acked == 0 => return Verdict::Wait,
            FrtoVariant::Sack => {
                let only_new_sacked = ack.newly_sacked > 0 && ack.originals_sacked == 0;
                if !first && (!progress || only_new_sacked) {
                    return Verdict::Conventional { allowance: 3 };
                }
            }
        }
        if !first {
            return Verdict::Spurious;
        }
        if !ack.can_send_new {
            return Verdict::Conventional { allowance: 2 };
        }
        self.stage = Stage::SecondAck;
        self.new_allowed = 2;
        Verdict::SendNew
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // A timeout with segments 10..20 outstanding (highmark 20); 10 was retransmitted.
    fn probe() -> Probe {
        Probe::new(SimTime(0), 10, 20, 10)
    }
    fn advance(acked: u32, snd_una: u64) -> ProbeAck {
        ProbeAck { acked, snd_una, can_send_new: true, ..ProbeAck::default() }
    }
    fn dup(newly_sacked: u32, originals_sacked: u32, snd_una: u64) -> ProbeAck {
        ProbeAck { duplicate: true, newly_sacked, originals_sacked, snd_una, can_send_new: true, acked: 0 }
    }

    #[test]
    fn two_advancing_acks_make_the_timeout_spurious() {
        // ACK 12 (10 and 11 delivered: the originals were only late): two new segments, 20 and 21.
        // ACK 13 acknowledges 12, sent before the timeout and never resent: spurious, in both variants.
        for variant in [FrtoVariant::Basic, FrtoVariant::Sack] {
            let mut p = probe();
            assert_eq!(p.on_ack(variant, &advance(2, 12)), Verdict::SendNew);
            assert_eq!((p.stage, p.new_allowed), (Stage::SecondAck, 2));
            assert_eq!(p.on_ack(variant, &advance(1, 13)), Verdict::Spurious);
        }
    }

    #[test]
    fn a_duplicate_ack_ends_basic_detection_but_not_sack_detection_before_the_first_advance() {
        // Basic: a duplicate ACK first -> conventional, with cwnd = in_flight (the head's resend) + 0.
        let mut basic = probe();
        assert_eq!(basic.on_ack(FrtoVariant::Basic, &dup(0, 0, 10)), Verdict::Conventional { allowance: 0 });
        // SACK-enhanced: duplicates SACKing 15 and 16 only update the scoreboard; the advance that follows
        // still probes.
        let mut sack = probe();
        assert_eq!(sack.on_ack(FrtoVariant::Sack, &dup(1, 1, 10)), Verdict::Wait);
        assert_eq!(sack.on_ack(FrtoVariant::Sack, &dup(1, 1, 10)), Verdict::Wait);
        assert_eq!(sack.on_ack(FrtoVariant::Sack, &advance(1, 11)), Verdict::SendNew);
    }

    #[test]
    fn the_second_ack_shows_a_real_loss() {
        // After the probe (ACK 11, new segments 20, 21), 11 was really lost: the next ACK is a duplicate
        // of 11. Basic: it is a duplicate -> conventional with cwnd 3. SACK: it SACKs 20, a new segment
        // only -> conventional with cwnd 3.
        let mut basic = probe();
        basic.on_ack(FrtoVariant::Basic, &advance(1, 11));
        assert_eq!(basic.on_ack(FrtoVariant::Basic, &dup(0, 0, 11)), Verdict::Conventional { allowance: 3 });
        let mut sack = probe();
        sack.on_ack(FrtoVariant::Sack, &advance(1, 11));
        assert_eq!(sack.on_ack(FrtoVariant::Sack, &dup(1, 0, 11)), Verdict::Conventional { allowance: 3 });
        // A duplicate that SACKs 14, an original, shows 14 was only delayed: spurious (step 3b).
        let mut late = probe();
        late.on_ack(FrtoVariant::Sack, &advance(1, 11));
        assert_eq!(late.on_ack(FrtoVariant::Sack, &dup(1, 1, 11)), Verdict::Spurious);
        // A duplicate with no new SACK information: no progress -> conventional.
        let mut still = probe();
        still.on_ack(FrtoVariant::Sack, &advance(1, 11));
        assert_eq!(still.on_ack(FrtoVariant::Sack, &dup(0, 0, 11)), Verdict::Conventional { allowance: 3 });
    }

    #[test]
    fn an_ack_of_everything_sent_before_the_timeout_is_conventional() {
        // ACK 20 on the first ACK: cwnd in_flight + 2; on the second: + 3 (Linux).
        let mut p = probe();
        assert_eq!(p.on_ack(FrtoVariant::Sack, &advance(10, 20)), Verdict::Conventional { allowance: 2 });
        let mut q = probe();
        q.on_ack(FrtoVariant::Sack, &advance(1, 11));
        assert_eq!(q.on_ack(FrtoVariant::Sack, &advance(9, 20)), Verdict::Conventional { allowance: 3 });
    }

    #[test]
    fn nothing_new_to_send_ends_the_detection() {
        let mut p = probe();
        let ack = ProbeAck { can_send_new: false, ..advance(1, 11) };
        assert_eq!(p.on_ack(FrtoVariant::Sack, &ack), Verdict::Conventional { allowance: 2 });
    }

    #[test]
    fn an_old_ack_is_ignored_and_sack_blocks_split_at_the_highmark() {
        let mut p = probe();
        assert_eq!(p.on_ack(FrtoVariant::Basic, &advance(0, 10)), Verdict::Wait);
        assert_eq!(p.stage, Stage::FirstAck);
        // Block 18..23: 18, 19 were sent before the timeout (highmark 20).
        assert_eq!(p.originals_of(SeqRange { start: 18, end: 23 }), SeqRange { start: 18, end: 20 });
    }
}
