//! Sender state-machine fixtures, one per TCP situation. The network is scripted by hand: each test says
//! which segments arrive and checks what the sender emits, with the arithmetic in the comments.
//! NewReno (packet counting) drives the window so the expected numbers are easy to follow.

use crate::cc::AnyCc;
use crate::cc::newreno::{NewReno, NewRenoConfig};
use crate::cc::common::Counting;
use crate::net::packet::{Direction, Ecn, Packet, Payload, SeqRange};
use crate::tcp::frto::{FrtoConfig, FrtoVariant, SpuriousResponse};
use crate::tcp::segment::Segment;
use crate::tcp::sender::{CaState, Recovery, Sender, SenderConfig};
use crate::time::{SimDuration, SimTime};

fn sender(recovery: Recovery, initial_cwnd: u32) -> Sender {
    sender_recording(recovery, initial_cwnd, false)
}

/// `sender`, keeping its loss-event times when `record_loss_events`.
fn sender_recording(recovery: Recovery, initial_cwnd: u32, record_loss_events: bool) -> Sender {
    sender_keeping(recovery, initial_cwnd, record_loss_events, false)
}

/// `sender`, keeping its loss-event times and counting its RTT measurements as asked.
fn sender_keeping(recovery: Recovery, initial_cwnd: u32, record_loss_events: bool, rtt_histogram: bool) -> Sender {
    let cfg = SenderConfig {
        flow: 0,
        packet_size: 1500,
        recovery,
        rto_min: SimDuration::from_millis(200),
        rwnd: 1 << 30,
        cwnd_clamp: None,
        stop: None,
        ecn: false,
        segments: None,
        record_loss_events,
        rtt_histogram,
    };
    Sender::new(cfg, NewReno::new(NewRenoConfig { counting: Counting::Packets, window: Default::default() }, initial_cwnd).into())
}

fn ms(v: u64) -> SimTime {
    SimTime(v * 1_000_000)
}

/// An ACK with cumulative ACK `cum` and SACK blocks `sack` (most recent first), echoing a packet sent at
/// time 0 as an original transmission unless `echo_retx`.
fn ack(cum: u64, sack: &[(u64, u64)], echo_retx: bool) -> Packet {
    let blocks: Vec<SeqRange> = sack.iter().map(|&(start, end)| SeqRange { start, end }).collect();
    Packet {
        flow: 0,
        dir: Direction::Reverse,
        hop: 0,
        size: 40,
        sent_at: SimTime(0),
        ecn: Ecn::NotEct,
        payload: Payload::ack(cum, &blocks, echo_retx, false),
    }
}

/// Feed one ACK at `now`; return the segments emitted as (seq, is_retransmission).
fn feed(s: &mut Sender, now: SimTime, a: Packet) -> Vec<(u64, bool)> {
    let mut out = vec![];
    s.on_ack(now, &a, &mut out);
    s.scoreboard().check_invariants();
    emitted(&out)
}

fn emitted(out: &[Segment]) -> Vec<(u64, bool)> {
    out.iter().map(|seg| (seg.seq, seg.retransmission())).collect()
}

fn start(s: &mut Sender) -> Vec<(u64, bool)> {
    let mut out = vec![];
    s.start(SimTime(0), &mut out);
    emitted(&out)
}

#[test]
fn slow_start_releases_two_segments_per_ack() {
    // IW 2: segments 0 and 1. Each ACK of one segment raises cwnd by one and frees one slot: two out.
    let mut s = sender(Recovery::Sack, 2);
    assert_eq!(start(&mut s), vec![(0, false), (1, false)]);
    assert_eq!(feed(&mut s, ms(100), ack(1, &[], false)), vec![(2, false), (3, false)]);
    assert_eq!(feed(&mut s, ms(100), ack(2, &[], false)), vec![(4, false), (5, false)]);
    assert_eq!(s.cc().cwnd(), 4);
    assert_eq!(s.in_flight(), 4);
}

#[test]
fn fast_recovery_with_one_loss() {
    // IW 10: segments 0..9 out; 0 is lost.
    let mut s = sender(Recovery::Sack, 10);
    assert_eq!(start(&mut s).len(), 10);
    // Duplicate ACKs SACK 1, then 1-2: each SACKed segment leaves the pipe, so one new segment goes
    // out per ACK (pipe 9 < cwnd 10): 10, then 11.
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(1, 2)], false)), vec![(10, false)]);
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(1, 3)], false)), vec![(11, false)]);
    // Third SACKed segment: IsLost(0) holds (3 SACKed above it). Recovery: ssthresh = cwnd = 10 / 2 = 5,
    // and 0 is retransmitted at once. pipe = 12 out - 3 SACKed - 1 lost + 1 retransmitted = 9.
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(1, 4)], false)), vec![(0, true)]);
    assert_eq!(s.state(), CaState::Recovery);
    assert_eq!((s.cc().cwnd(), s.cc().ssthresh(), s.in_flight()), (5, 5, 9));
    // SACKs of 4..7 take pipe from 9 to 5: nothing may be sent (pipe must drop below cwnd = 5).
    for end in 5..=8 {
        assert_eq!(feed(&mut s, ms(101), ack(0, &[(1, end)], false)), vec![]);
    }
    // From then on each SACKed segment lets one new segment out: 12, 13, 14, 15.
    for (end, new) in (9..=12).zip(12..=15) {
        assert_eq!(feed(&mut s, ms(101), ack(0, &[(1, end)], false)), vec![(new, false)]);
    }
    // The retransmission of 0 arrives: cumulative ACK 12 passes the recovery point (11). Recovery ends
    // with cwnd = ssthresh = 5; 4 segments (12..15) are out, so one more (16) is sent.
    assert_eq!(feed(&mut s, ms(200), ack(12, &[], true)), vec![(16, false)]);
    assert_eq!(s.state(), CaState::Open);
    assert_eq!(s.cc().cwnd(), 5);
    assert_eq!((s.counters().loss_events, s.counters().retransmissions, s.counters().timeouts), (1, 1, 0));
}

#[test]
fn fast_recovery_with_several_losses_in_one_window() {
    // IW 10: 0..9 out; 0, 3 and 5 are lost; the receiver gets 1, 2, 4, 6, 7, 8, 9, then 10, 11.
    let mut s = sender(Recovery::Sack, 10);
    start(&mut s);
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(1, 2)], false)), vec![(10, false)]);
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(1, 3)], false)), vec![(11, false)]);
    // 4 arrives: SACKed 1, 2, 4 -> IsLost(0). Recovery, cwnd 5, retransmit 0; pipe = 12 - 3 - 1 + 1 = 9.
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(4, 5), (1, 3)], false)), vec![(0, true)]);
    // 6 arrives: only 4 and 6 are SACKed above 3, so 3 is not lost yet; pipe 8.
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(6, 7), (4, 5), (1, 3)], false)), vec![]);
    // 7 arrives: 4, 6, 7 above 3 -> 3 lost; pipe = 12 - 5 - 2 + 1 = 6 >= 5: wait.
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(6, 8), (4, 5), (1, 3)], false)), vec![]);
    // 8 arrives: 6, 7, 8 above 5 -> 5 lost too; pipe = 12 - 6 - 3 + 1 = 4: retransmit 3 (the lowest).
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(6, 9), (4, 5), (1, 3)], false)), vec![(3, true)]);
    // 9 arrives: pipe 4 again: retransmit 5.
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(6, 10), (4, 5), (1, 3)], false)), vec![(5, true)]);
    // 10 and 11 arrive, reported by one ACK: pipe drops by 2 to 3 and every hole has a retransmission in
    // flight, so two new segments go out: 12 and 13.
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(6, 12), (4, 5), (1, 3)], false)), vec![(12, false), (13, false)]);
    // Retransmitted 0, 3, 5 arrive: cumulative ACKs 3, 5, then 12 which ends recovery.
    feed(&mut s, ms(200), ack(3, &[(6, 12), (4, 5)], true));
    assert_eq!(s.state(), CaState::Recovery);
    feed(&mut s, ms(200), ack(5, &[(6, 12)], true));
    feed(&mut s, ms(200), ack(12, &[], true));
    assert_eq!(s.state(), CaState::Open);
    // One loss event for the whole window, three retransmissions, no timeout.
    assert_eq!((s.counters().loss_events, s.counters().retransmissions, s.counters().timeouts), (1, 3, 0));
}

#[test]
fn retransmission_timeout_backs_off_exponentially() {
    // IW 2: 0 and 1 out, nothing comes back. No RTT sample yet, so RTO = 1 s (RFC 6298 2.1).
    let mut s = sender(Recovery::Sack, 2);
    start(&mut s);
    assert_eq!(s.timer_deadline(), Some(ms(1000)));
    let mut out = vec![];
    s.on_timer(ms(1000), &mut out);
    // Timeout 1: ssthresh = max(2 / 2, 2) = 2, cwnd 1, retransmit 0; RTO doubled: next at 1 + 2 = 3 s.
    assert_eq!(emitted(&out), vec![(0, true)]);
    assert_eq!((s.cc().cwnd(), s.cc().ssthresh()), (1, 2));
    assert_eq!(s.timer_deadline(), Some(ms(3000)));
    // Timeout 2 of the same episode: 0 again, RTO 4 s: next at 7 s; ssthresh untouched.
    out.clear();
    s.on_timer(ms(3000), &mut out);
    assert_eq!(emitted(&out), vec![(0, true)]);
    assert_eq!(s.timer_deadline(), Some(ms(7000)));
    assert_eq!(s.counters().timeouts, 2);
    // The retransmission is ACKed (no RTT sample: Karn). Slow start: cwnd 2. Segment 1 is still marked
    // lost, so it is retransmitted, then new segment 2 fills the window. The back-off is kept (no valid
    // sample): RTO 4 s from now.
    assert_eq!(feed(&mut s, ms(3100), ack(1, &[], true)), vec![(1, true), (2, false)]);
    assert_eq!(s.cc().cwnd(), 2);
    assert_eq!(s.timer_deadline(), Some(ms(7100)));
    assert_eq!(s.state(), CaState::Loss);
    // Everything up to the recovery point (1) acknowledged: back to Open.
    feed(&mut s, ms(3200), ack(2, &[], true));
    assert_eq!(s.state(), CaState::Open);
}

#[test]
fn newreno_partial_ack_retransmits_the_next_hole() {
    // No SACK. IW 10: 0..9 out; 0 and 5 lost. Duplicate ACKs for 1, 2, 3: the third starts recovery
    // (cwnd 5) with a retransmission of 0.
    let mut s = sender(Recovery::Newreno, 10);
    start(&mut s);
    assert_eq!(feed(&mut s, ms(100), ack(0, &[], false)), vec![(10, false)]);
    assert_eq!(feed(&mut s, ms(100), ack(0, &[], false)), vec![(11, false)]);
    assert_eq!(feed(&mut s, ms(100), ack(0, &[], false)), vec![(0, true)]);
    assert_eq!(s.state(), CaState::Recovery);
    // Duplicate ACKs for 4, 6, 7, 8, 9, 10, 11 (7 more).
    for _ in 0..7 {
        feed(&mut s, ms(100), ack(0, &[], false));
    }
    // The retransmission of 0 arrives: partial ACK up to 5. The hole at 5 is retransmitted at once.
    let sent = feed(&mut s, ms(200), ack(5, &[], true));
    assert_eq!(sent.first(), Some(&(5, true)));
    assert_eq!(s.state(), CaState::Recovery);
    assert_eq!(s.counters().loss_events, 1);
}

/// A test algorithm with a fixed window and optional pacing rate that records its rate samples.
struct Recorder {
    cwnd: u32,
    pacing_bps: Option<u64>,
    samples: std::sync::Arc<std::sync::Mutex<Vec<crate::cc::RateSample>>>,
}

impl crate::cc::CongestionControl for Recorder {
    fn name(&self) -> &'static str {
        "recorder"
    }
    fn on_ack_sample(&mut self, s: &crate::cc::AckSample) {
        self.samples.lock().unwrap().push(s.rate.expect("rate samples were asked for"));
    }
    fn on_ack(&mut self, _s: &crate::cc::AckSample) {}
    fn on_congestion_event(&mut self, _e: &crate::cc::CongestionEvent) {}
    fn on_recovery_exit(&mut self, _now: SimTime) {}
    fn on_timeout(&mut self, _now: SimTime, _first: bool) {}
    fn set_cwnd(&mut self, cwnd: u32) {
        self.cwnd = cwnd;
    }
    fn cwnd(&self) -> u32 {
        self.cwnd
    }
    fn ssthresh(&self) -> u32 {
        self.cwnd
    }
    fn pacing_rate_bps(&self) -> Option<u64> {
        self.pacing_bps
    }
    fn wants_rate_samples(&self) -> bool {
        true
    }
}

fn recording_sender(cwnd: u32, pacing_bps: Option<u64>) -> (Sender, std::sync::Arc<std::sync::Mutex<Vec<crate::cc::RateSample>>>) {
    let samples = std::sync::Arc::new(std::sync::Mutex::new(vec![]));
    let cfg = SenderConfig {
        flow: 0,
        packet_size: 1500,
        recovery: Recovery::Sack,
        rto_min: SimDuration::from_millis(200),
        rwnd: 1 << 30,
        cwnd_clamp: None,
        stop: None,
        ecn: false,
        segments: None,
        record_loss_events: false,
        rtt_histogram: false,
    };
    (Sender::new(cfg, AnyCc::custom(Recorder { cwnd, pacing_bps, samples: samples.clone() })), samples)
}

#[test]
fn pacing_spaces_segments_by_size_over_rate() {
    // 1 Mbit/s, 1500-byte packets: 12000 bit / 1e6 bit/s = 12 ms apart, although cwnd 10 allows a burst.
    let (mut s, _) = recording_sender(10, Some(1_000_000));
    assert_eq!(start(&mut s), vec![(0, false)]);
    // The wake-up for the next segment comes before the RTO (1 s).
    assert_eq!(s.timer_deadline(), Some(ms(12)));
    let mut out = vec![];
    s.on_timer(ms(11), &mut out); // early: nothing
    assert!(out.is_empty());
    for k in 1..=3u64 {
        s.on_timer(ms(12 * k), &mut out);
        assert_eq!(emitted(&out), vec![(k, false)], "segment {k} at {} ms", 12 * k);
        out.clear();
        assert_eq!(s.timer_deadline(), Some(ms(12 * (k + 1))));
    }
    // An ACK between two slots sends nothing early either: the next slot stays at 48 ms.
    assert_eq!(feed(&mut s, ms(40), ack(1, &[], false)), vec![]);
    assert_eq!(s.timer_deadline(), Some(ms(48)));
    // The RTO still fires at its own deadline (1 s after start; restarted at 40 ms by the ACK: 40 ms + RTO).
    assert!(s.timer_deadline().unwrap() < ms(1000));
}

#[test]
fn delivery_rate_sample_by_hand() {
    // cwnd 4, no pacing. t = 0: segments 0..3 sent (idle start: first_sent_time = delivered_time = 0;
    // app-limited, as Linux marks the first flight). ACKs echo time 0, so RTT = arrival time.
    let (mut s, samples) = recording_sender(4, None);
    start(&mut s);
    // 100 ms: ACK of 0. P = segment 0: delivered 1 - 0 = 1; send phase 0 - 0 = 0, ACK phase 100 - 0 =
    // 100 ms -> 1 packet / 100 ms, app-limited. Segment 4 goes out (stamp: delivered 1, delivered_time
    // 100 ms, first_sent_time 0 = P's send time, no longer app-limited).
    assert_eq!(feed(&mut s, ms(100), ack(1, &[], false)), vec![(4, false)]);
    // 110 ms: ACK of 1 and 2 (stretch). P = segment 2 (sent at 0, stamp delivered 0): delivered 3 - 0 = 3,
    // interval max(0, 110 - 0) = 110 ms. Segments 5 and 6 go out (stamp: delivered 3, 110 ms, first 0).
    assert_eq!(feed(&mut s, ms(110), ack(3, &[], false)), vec![(5, false), (6, false)]);
    // 230 ms: 3 is still missing, the receiver SACKs 4..6. Newly delivered: 4, 5 (sent 100 and 110 ms).
    // P = segment 5 (the most recently sent): delivered 5 - 3 = 2; send phase 110 - 0 = 110 ms, ACK phase
    // 230 - 110 = 120 ms -> 2 packets / 120 ms.
    feed(&mut s, ms(230), ack(3, &[(4, 6)], false));
    let got: Vec<(u32, u64, u64, u64, bool)> = samples
        .lock()
        .unwrap()
        .iter()
        .map(|r| (r.acked_sacked, r.delivered, r.interval.as_nanos() / 1_000_000, r.prior_delivered, r.is_app_limited))
        .collect();
    assert_eq!(got, vec![(1, 1, 100, 0, true), (2, 3, 110, 0, true), (2, 2, 120, 3, false)]);
    let last = samples.lock().unwrap()[2];
    assert_eq!((last.total_delivered, last.delivered_time), (5, ms(230)));
}

#[test]
fn linux_2_6_recovery_starts_at_min_cwnd_and_halves_the_sending_rate() {
    // ns-2.35 TCP-Linux mode, NewReno (min_cwnd = ssthresh / 2). IW 10: segments 0..9 out; 0 is lost.
    let mut s = sender(Recovery::Linux26, 10);
    start(&mut s);
    // Open: each SACKed segment leaves the pipe and one new segment goes out (pipe 9 < cwnd 10).
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(1, 2)], false)), vec![(10, false)]);
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(1, 3)], false)), vec![(11, false)]);
    // Third SACKed segment: 0 is lost. ssthresh = 10 / 2 = 5 and cwnd = min_cwnd = 5 / 2 = 2 at once.
    // pipe = 12 out - 3 SACKed - 1 lost = 8. The allowance starts at the old cwnd, 10, and is lowered to
    // pipe + 1 = 9: 8 < max(2, 9), so 0 is retransmitted (pipe 9); the allowance drops to pipe - 1 = 8.
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(1, 4)], false)), vec![(0, true)]);
    assert_eq!(s.state(), CaState::Recovery);
    assert_eq!((s.cc().cwnd(), s.cc().ssthresh(), s.in_flight()), (2, 5, 9));
    // From then on, each pair of SACKs: the first takes pipe to the allowance (nothing sent), the second
    // one below it, which lets one new segment out, after which the allowance is pipe - 1 again.
    //   SACK of 4: pipe 8, allowance 8: nothing.   SACK of 5: pipe 7 < 8: send 12; pipe 8, allowance 7.
    //   SACK of 6: pipe 7: nothing.  7: pipe 6: send 13.  8: nothing.  9: send 14.  10: nothing.  11: send 15.
    //   SACK of 12: pipe 4, allowance 4: nothing.  13: pipe 3: send 16; pipe 4, allowance 3.
    let mut sent = vec![];
    for end in 5..=14 {
        sent.push(feed(&mut s, ms(101), ack(0, &[(1, end)], false)));
    }
    let one_in_two: Vec<Vec<(u64, bool)>> =
        (12..=16).flat_map(|seq| [vec![], vec![(seq, false)]]).collect();
    assert_eq!(sent, one_in_two);
    assert_eq!((s.cc().cwnd(), s.in_flight()), (2, 4));
    // The retransmission of 0 arrives: cumulative ACK 14 passes the recovery point (11). cwnd 2 < ssthresh
    // 5: cwnd = min(ssthresh 5, outstanding 3 (14, 15, 16) + 3) = 5; two new segments fill it.
    assert_eq!(feed(&mut s, ms(200), ack(14, &[], true)), vec![(17, false), (18, false)]);
    assert_eq!(s.state(), CaState::Open);
    assert_eq!((s.cc().cwnd(), s.cc().ssthresh()), (5, 5));
    assert_eq!((s.counters().loss_events, s.counters().retransmissions), (1, 1));
}

#[test]
fn linux_2_6_recovery_exit_caps_cwnd_at_outstanding_plus_three() {
    // IW 10: segments 0..9 out; 0..4 are lost (a burst), 5..9 arrive. ns-2's FACK-style marking: a hole
    // is lost once the highest SACK lies 4 or more above it, and recovery starts at the first mark.
    let mut s = sender(Recovery::Linux26, 10);
    start(&mut s);
    // 5 arrives: fack 5, so 0 and 1 are lost at the first duplicate ACK. ssthresh 10 / 2 = 5, cwnd = 5 / 2
    // = 2. pipe = 10 out - 1 SACKed - 2 lost = 7; allowance min(10, 7 + 1) = 8: retransmit 0 (pipe 8,
    // allowance 7).
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(5, 6)], false)), vec![(0, true)]);
    assert_eq!(s.state(), CaState::Recovery);
    assert_eq!((s.cc().cwnd(), s.cc().ssthresh(), s.in_flight()), (2, 5, 8));
    // Each further SACK marks one more hole and takes one packet out of the pipe: pipe falls by two, so
    // one retransmission leaves per ACK. 6: 2 lost, pipe 10 - 2 - 3 + 1 = 6 < 7: retransmit 1
    // (allowance 6). 7: 3 lost, pipe 5: retransmit 2 (allowance 5). 8: 4 lost, pipe 4: retransmit 3
    // (allowance 4). 9: no new hole, pipe 4 = allowance: nothing.
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(5, 7)], false)), vec![(1, true)]);
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(5, 8)], false)), vec![(2, true)]);
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(5, 9)], false)), vec![(3, true)]);
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(5, 10)], false)), vec![]);
    // The retransmissions come back one by one (partial ACKs; recovery point 9):
    //   0: ACK 1, pipe 9 - 5 - 4 + 3 = 3 < 4: retransmit 4 (allowance 3).   1: ACK 2, pipe 3: nothing.
    //   2: ACK 3, pipe 2 < 3: new segment 10 (allowance 2).   3: ACK 4, pipe 2: nothing.
    assert_eq!(feed(&mut s, ms(200), ack(1, &[(5, 10)], true)), vec![(4, true)]);
    assert_eq!(feed(&mut s, ms(200), ack(2, &[(5, 10)], true)), vec![]);
    assert_eq!(feed(&mut s, ms(200), ack(3, &[(5, 10)], true)), vec![(10, false)]);
    assert_eq!(feed(&mut s, ms(200), ack(4, &[(5, 10)], true)), vec![]);
    assert_eq!(s.state(), CaState::Recovery);
    // 4 arrives: cumulative ACK 10 ends recovery with one segment (10) outstanding. cwnd 2 < ssthresh 5:
    // cwnd = min(5, 1 + 3) = 4, below ssthresh, so the flow slow-starts back; 11, 12, 13 go out.
    assert_eq!(feed(&mut s, ms(300), ack(10, &[], true)), vec![(11, false), (12, false), (13, false)]);
    assert_eq!(s.state(), CaState::Open);
    assert_eq!((s.cc().cwnd(), s.cc().ssthresh()), (4, 5));
    assert_eq!((s.counters().loss_events, s.counters().retransmissions), (1, 5));
}

#[test]
fn ns2_sack1_counts_lost_packets_in_pipe_until_acks_take_them_out() {
    // ns-2.35 Sack1 mode. IW 10: segments 0..9 out; 0..4 are lost (a burst), 5..9 arrive one by one.
    let mut s = sender(Recovery::Ns2Sack1, 10);
    start(&mut s);
    // Duplicate ACKs 1 and 2 (SACKs of 5, then 5-6): pipe 9 < cwnd 10, one new segment each (ns-2's
    // limited transmit, `send_one`, does the same).
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(5, 6)], false)), vec![(10, false)]);
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(5, 7)], false)), vec![(11, false)]);
    // The third: recovery. cwnd = ssthresh = 5; pipe_ = 12 outstanding - 3 = 9, the 5 lost counted in it.
    // Every hole below the highest SACK (0..4) is due, and 0 goes out at once; nothing else on this ACK.
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(5, 8)], false)), vec![(0, true)]);
    assert_eq!(s.state(), CaState::Recovery);
    assert_eq!((s.cc().cwnd(), s.scoreboard().lost_out), (5, 5));
    // SACKs of 8, 9, 10, 11 take pipe_ to 8, 7, 6, 5: never below cwnd, so nothing leaves, where RFC 6675
    // (pipe 12 - 5 lost - 3 SACKed + 1 = 5 < 5 is false, then 4, 3, 2) would retransmit one per ACK.
    for end in 9..=12 {
        assert_eq!(feed(&mut s, ms(101), ack(0, &[(5, end)], false)), vec![], "SACK up to {end}");
    }
    // The retransmission of 0 comes back: a partial ACK takes two off (pipe_ 3), so two holes leave.
    assert_eq!(feed(&mut s, ms(200), ack(1, &[(5, 12)], true)), vec![(1, true), (2, true)]);
    assert_eq!(feed(&mut s, ms(201), ack(2, &[(5, 12)], true)), vec![(3, true), (4, true)]);
    // 2 comes back (pipe_ 5 - 2 = 3): no hole is left, two new segments.
    assert_eq!(feed(&mut s, ms(202), ack(3, &[(5, 12)], true)), vec![(12, false), (13, false)]);
    assert_eq!((s.counters().loss_events, s.counters().retransmissions), (1, 5));
    // The same ACKs under RFC 6675: the SACK of 8 already lets hole 1 out.
    let mut rfc = sender(Recovery::Sack, 10);
    start(&mut rfc);
    for end in 6..=8 {
        feed(&mut rfc, ms(100), ack(0, &[(5, end)], false));
    }
    assert_eq!(feed(&mut rfc, ms(101), ack(0, &[(5, 9)], false)), vec![(1, true)]);
}

#[test]
fn ns2_sack1_mode_times_one_new_segment_per_round_trip_in_ten_ms_ticks() {
    // ns-2 Agent/TCP's timer (tcp/rto_ns2.rs), clock phase 0 here: one new segment timed at a time, its
    // sample from the cumulative ACK that covers it, in whole 10 ms ticks; RTO = max(200 ms, srtt + 4
    // rttvar). Before any sample: rtxcur_init_, 3 s.
    let mut s = sender(Recovery::Ns2Sack1, 4);
    start(&mut s);
    assert_eq!(s.timer_deadline(), Some(ms(3000)));
    // ACK of 0 at 305 ms: 30 ticks; srtt 30, rttvar 15: 30 + 60 = 90 ticks, due at 305 + 900 ms. Two new
    // segments leave (cwnd 5), the first of them timed.
    assert_eq!(feed(&mut s, ms(305), ack(1, &[], false)), vec![(4, false), (5, false)]);
    assert_eq!(s.timer_deadline(), Some(ms(1205)));
    // ACK of 1 at 310 ms: it does not cover 4, so no sample; new data acknowledged restarts the timer.
    feed(&mut s, ms(310), ack(2, &[], false));
    assert_eq!(s.timer_deadline(), Some(ms(1210)));
    // A duplicate ACK neither samples nor restarts (TCP-Linux's timer does both).
    feed(&mut s, ms(320), ack(2, &[(3, 4)], false));
    assert_eq!(s.timer_deadline(), Some(ms(1210)));
    // ACK of 4 at 615 ms: 4 left at 305 ms, 61 - 30 = 31 ticks. delta 1: srtt 240 + 1 = 241 (eighths),
    // rttvar 60 + 1 - 15 = 46 (quarters); (46 * 8 + 241) / 8 = 76 ticks: due at 615 + 760 ms.
    feed(&mut s, ms(615), ack(5, &[], false));
    assert_eq!(s.timer_deadline(), Some(ms(1375)));
}

#[test]
fn ns2_sack1_goes_back_n_after_a_timeout() {
    // IW 4: 0..3 out. 0 and 1 are lost; one duplicate ACK SACKs 2-3. Sack1's limited transmit sends one
    // new packet (`send_one`: fewer than cwnd + dupacks = 5 outstanding); RFC 6675 sends two (pipe 2).
    let mut s = sender(Recovery::Ns2Sack1, 4);
    let mut rfc = sender(Recovery::Sack, 4);
    start(&mut s);
    start(&mut rfc);
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(2, 4)], false)), vec![(4, false)]);
    assert_eq!(feed(&mut rfc, ms(100), ack(0, &[(2, 4)], false)), vec![(4, false), (5, false)]);
    // No sample yet: the timeout comes at 3 s. Sack1 clears its scoreboard: 0..4 are all due again, in
    // order, and cwnd 1 sends 0. (The default sender's RFC 6298 timer fires at 1 s; it keeps the SACKs.)
    let mut out = vec![];
    s.on_timer(ms(3000), &mut out);
    assert_eq!(emitted(&out), vec![(0, true)]);
    out.clear();
    rfc.on_timer(ms(1000), &mut out);
    assert_eq!(emitted(&out), vec![(0, true)]);
    // 0 arrives: cwnd 2. Sack1 sends 1, then 2, which the receiver holds (its SACK of 2-4 is not read);
    // RFC 6675 sends 1 and new data.
    assert_eq!(feed(&mut s, ms(3100), ack(1, &[(2, 5)], false)), vec![(1, true), (2, true)]);
    assert_eq!(feed(&mut rfc, ms(1100), ack(1, &[(2, 6)], false)), vec![(1, true), (6, false)]);
    // A duplicate ACK sends nothing under go-back-N.
    assert_eq!(feed(&mut s, ms(3101), ack(1, &[(2, 5)], false)), vec![]);
    // 1 arrives: the cumulative ACK passes everything, the Loss state ends, and SACK blocks are read again.
    feed(&mut s, ms(3200), ack(5, &[], false));
    assert_eq!(s.state(), CaState::Open);
    assert_eq!(s.counters().timeouts, 1);
}

#[test]
fn ns2_sack1_grows_once_per_ack_whatever_the_ack_covers() {
    // IW 4, slow start, NewReno counting packets. One ACK of all four: ns-2's agent opens cwnd once (5);
    // the RFC 6675 sender credits the four packets (8). An ACK of one packet reads the same under both.
    let mut s = sender(Recovery::Ns2Sack1, 4);
    let mut rfc = sender(Recovery::Sack, 4);
    for x in [&mut s, &mut rfc] {
        start(x);
        feed(x, ms(100), ack(4, &[], false));
    }
    assert_eq!((s.cc().cwnd(), rfc.cc().cwnd()), (5, 8));
    feed(&mut s, ms(200), ack(5, &[], false));
    feed(&mut rfc, ms(200), ack(5, &[], false));
    assert_eq!((s.cc().cwnd(), rfc.cc().cwnd()), (6, 9));
}

#[test]
fn ns2_sack1_limited_transmit_sends_one_packet_for_a_duplicate_ack_however_much_it_sacks() {
    // IW 10: 0..9 out, 0 lost. The first duplicate ACK SACKs 1-2 (a delayed ACK, say): the pipe falls to
    // 8, and an RFC 6675 sender sends two; ns-2's `send_one` sends one (fewer than cwnd 10 + dupacks 1
    // outstanding), and `send_much` does not run while a duplicate ACK is counted.
    let mut s = sender(Recovery::Ns2Sack1, 10);
    let mut rfc = sender(Recovery::Sack, 10);
    start(&mut s);
    start(&mut rfc);
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(1, 3)], false)), vec![(10, false)]);
    assert_eq!(feed(&mut rfc, ms(100), ack(0, &[(1, 3)], false)), vec![(10, false), (11, false)]);
    // The second: 11 outstanding < 10 + 2, one more. The third starts recovery.
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(1, 5)], false)), vec![(11, false)]);
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(1, 6)], false)), vec![(0, true)]);
    assert_eq!(s.state(), CaState::Recovery);
}

#[test]
fn ns2_sack1_limited_transmit_passes_the_delayed_send() {
    // ns-2's `send_one` calls `output` itself: with `overhead_` the packet leaves at the duplicate ACK,
    // not at the delayed-send timer, and no timer is armed for the ACK. IW 10: 0..9 out at the timer.
    let mut s = delayed_sender(Recovery::Ns2Sack1, 10, 8_000);
    start(&mut s);
    fire_timer(&mut s);
    let rto = s.timer_deadline().expect("the retransmission timer");
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(1, 2)], false)), vec![(10, false)]);
    assert_eq!(s.timer_deadline(), Some(rto), "no delayed send armed");
    assert_eq!(feed(&mut s, ms(100) + SimDuration(100), ack(0, &[(1, 3)], false)), vec![(11, false)]);
    // A new ACK is a sending opportunity again, through the delayed send: nothing leaves at once. At the
    // timer, cwnd 11 (once per ACK) with 3..11 outstanding: two more.
    assert_eq!(feed(&mut s, ms(101), ack(3, &[], false)), vec![]);
    let (_, sent) = fire_timer(&mut s);
    assert_eq!(sent, vec![(12, false), (13, false)]);
}

#[test]
fn linux_2_6_mode_times_out_like_ns2() {
    // ns-2 TCP-Linux's timer (tcp/rto_ns2.rs): RTO = max(200 ms, srtt + 4 rttvar) in 1 ms ticks, a sample
    // and a restart on every ACK. The default sender follows Linux: srtt + max(4 rttvar, 200 ms), restarted
    // only by ACKs of new data. The scripted ACKs all echo a packet sent at time 0.
    let mut s = sender(Recovery::Linux26, 4);
    let mut l = sender(Recovery::Sack, 4);
    start(&mut s);
    start(&mut l);
    // No sample yet: ns-2's rtxcur_init_ is 3 s, RFC 6298's initial RTO 1 s.
    assert_eq!(s.timer_deadline(), Some(ms(3000)));
    assert_eq!(l.timer_deadline(), Some(ms(1000)));
    // ACK of 0 at 45 ms: srtt 45, rttvar 22.5. ns-2: max(200, 45 + 90) = 200 -> 245 ms.
    // Linux: 45 + max(90, 200) = 245 -> 290 ms.
    feed(&mut s, ms(45), ack(1, &[], false));
    feed(&mut l, ms(45), ack(1, &[], false));
    assert_eq!(s.timer_deadline(), Some(ms(245)));
    assert_eq!(l.timer_deadline(), Some(ms(290)));
    // A duplicate ACK at 100 ms (2 SACKed, 1 missing). ns-2 samples 100 ms: srtt 45 + 55/8 = 51.875
    // (415/8), rttvar 22.5 + (55 - 22.5)/4 (123/4); RTO 51 + 123 = 174, floored: restart at 300 ms.
    // Linux leaves its timer alone.
    feed(&mut s, ms(100), ack(1, &[(2, 3)], false));
    feed(&mut l, ms(100), ack(1, &[(2, 3)], false));
    assert_eq!(s.timer_deadline(), Some(ms(300)));
    assert_eq!(l.timer_deadline(), Some(ms(290)));
    // The timeout at 300 ms doubles the floored RTO: 400 ms, next at 700 ms.
    let mut out = vec![];
    s.on_timer(ms(300), &mut out);
    assert_eq!(emitted(&out), vec![(1, true)]);
    assert_eq!(s.timer_deadline(), Some(ms(700)));
    // The retransmission's ACK at 350 ms (1 and 2 now acknowledged, 3-5 outstanding) is a valid sample
    // under time stamps and ends the back-off: t_rtt 350, delta 350 - 51 = 299, srtt 415 + 299 = 714,
    // rttvar 123 + 299 - 30 = 392; RTO (392 * 8 + 714) / 8 = 481 ms, so the timer is due at 831 ms.
    feed(&mut s, ms(350), ack(3, &[], true));
    assert_eq!(s.timer_deadline(), Some(ms(831)));
}

#[test]
fn an_ecn_echo_halves_the_window_once_per_window_and_the_next_new_segment_carries_cwr() {
    let mut s = Sender::new(
        SenderConfig {
            flow: 0,
            packet_size: 1500,
            recovery: Recovery::Sack,
            rto_min: SimDuration::from_millis(200),
            rwnd: 1 << 30,
            cwnd_clamp: None,
            stop: None,
            segments: None,
            ecn: true,
            record_loss_events: false,
            rtt_histogram: false,
        },
        NewReno::new(NewRenoConfig { counting: Counting::Packets, window: Default::default() }, 10).into(),
    );
    let mut out = vec![];
    s.start(SimTime(0), &mut out);
    // IW 10: segments 0-9, all ECN-capable, none with CWR.
    assert_eq!(out.len(), 10);
    assert!(out.iter().all(|seg| seg.ecn() == Ecn::Ect && !seg.cwr()));
    let echo = |cum: u64| {
        let mut a = ack(cum, &[], false);
        a.payload = Payload::ack(cum, &[], false, true);
        a
    };
    // The ACK of segment 0 echoes CE. Slow start first makes cwnd 11 (Linux raises cwnd before it reads
    // ECE), then the reduction: ssthresh = 11 / 2 = 5, cwnd = 5. With 9 in flight nothing may leave.
    let mut out = vec![];
    s.on_ack(ms(100), &echo(1), &mut out);
    assert!(out.is_empty());
    assert_eq!((s.cc().cwnd(), s.cc().ssthresh()), (5, 5));
    assert_eq!(s.counters().ecn_reductions, 1);
    assert_eq!(s.state(), CaState::Open, "no retransmission, no recovery state");
    // More echoes for the same window (segments up to 9, the last sent at the reduction) change nothing.
    // ACKs 2..5 bring in_flight from 9 down to 5 = cwnd: nothing leaves. The ACK of segment 5 is the
    // fifth in congestion avoidance at cwnd 5, so cwnd becomes 6 with 4 in flight: segments 10 and 11
    // leave, and only the first carries CWR.
    for cum in 2..=5 {
        let mut out = vec![];
        s.on_ack(ms(110), &echo(cum), &mut out);
        assert!(out.is_empty(), "{cum}");
    }
    let mut out = vec![];
    s.on_ack(ms(110), &echo(6), &mut out);
    assert_eq!(emitted(&out), vec![(10, false), (11, false)]);
    assert!(out[0].cwr() && !out[1].cwr());
    // The packets carry what the segments say.
    let packets: Vec<Packet> = out.iter().map(|&seg| s.packet(seg)).collect();
    assert!(matches!(packets[0].payload, Payload::Data { cwr: true, retransmission: false, .. }));
    assert!(matches!(packets[1].payload, Payload::Data { cwr: false, retransmission: false, .. }));
    assert!(packets.iter().all(|p| p.ecn == Ecn::Ect && p.sent_at == ms(110) && p.size == 1500 && p.dir == Direction::Forward));
    assert_eq!(s.counters().ecn_reductions, 1);
    // Once segment 9 (the last of the reduced window) is acknowledged, a new echo reduces again.
    let mut out = vec![];
    s.on_ack(ms(120), &echo(10), &mut out);
    assert_eq!(s.counters().ecn_reductions, 2);
}

#[test]
fn a_receiver_echoes_ce_until_it_sees_cwr() {
    use crate::tcp::receiver::Receiver;
    let data = |seq: u64, ecn: Ecn, cwr: bool| Packet {
        flow: 0,
        dir: Direction::Forward,
        hop: 0,
        size: 1500,
        sent_at: SimTime(0),
        ecn,
        payload: Payload::Data { seq: seq.into(), retransmission: false, cwr },
    };
    let ece = |out: &[Packet]| match out.last().unwrap().payload {
        Payload::Ack { ece, .. } => ece,
        _ => panic!("not an ACK"),
    };
    // Delayed ACKs on: a CE-marked packet is still acknowledged at once.
    let mut r = Receiver::new(0, 40, true);
    let mut out = vec![];
    r.on_data(ms(0), &data(0, Ecn::Ect, false), &mut out);
    r.on_data(ms(1), &data(1, Ecn::Ect, false), &mut out);
    assert_eq!(out.len(), 1);
    assert!(!ece(&out));
    r.on_data(ms(2), &data(2, Ecn::Ce, false), &mut out);
    assert_eq!(out.len(), 2, "the CE packet is acknowledged at once");
    assert!(ece(&out));
    r.on_data(ms(3), &data(3, Ecn::Ect, false), &mut out);
    r.on_data(ms(4), &data(4, Ecn::Ect, false), &mut out);
    assert!(ece(&out), "ECE stays on until CWR");
    r.on_data(ms(5), &data(5, Ecn::Ect, true), &mut out);
    r.on_data(ms(6), &data(6, Ecn::Ect, false), &mut out);
    assert!(!ece(&out), "CWR ends the echo");
}

#[test]
fn loss_event_times_record_each_episode_start_once() {
    // Recovery entered at 100 ms (third SACKed duplicate ACK) is one event; the ACKs after it are not.
    let mut s = sender_recording(Recovery::Sack, 10, true);
    start(&mut s);
    feed(&mut s, ms(100), ack(0, &[(1, 2)], false));
    feed(&mut s, ms(100), ack(0, &[(1, 3)], false));
    feed(&mut s, ms(100), ack(0, &[(1, 4)], false));
    feed(&mut s, ms(101), ack(0, &[(1, 5)], false));
    assert_eq!(s.loss_event_times(), Some(&[100_000_000][..]));

    // IW 2, no answer: the timeout at 1 s (RTO 1 s, no RTT sample) starts an episode from Open; the
    // backed-off timeout at 3 s continues it, so it adds no event.
    let mut s = sender_recording(Recovery::Sack, 2, true);
    start(&mut s);
    let mut out = vec![];
    s.on_timer(ms(1000), &mut out);
    s.on_timer(ms(3000), &mut out);
    assert_eq!(s.counters().timeouts, 2);
    assert_eq!(s.loss_event_times(), Some(&[1_000_000_000][..]));
}

#[test]
fn loss_event_times_are_kept_only_when_asked() {
    // The same recovery episode as above without `record_loss_events`: counted, but no time kept (memory
    // must not grow with simulated time unless a run asks for it).
    let mut s = sender(Recovery::Sack, 10);
    start(&mut s);
    feed(&mut s, ms(100), ack(0, &[(1, 2)], false));
    feed(&mut s, ms(100), ack(0, &[(1, 3)], false));
    feed(&mut s, ms(100), ack(0, &[(1, 4)], false));
    assert_eq!(s.counters().loss_events, 1);
    assert_eq!(s.loss_event_times(), None);
}

#[test]
fn the_rtt_histogram_counts_every_measurement_and_none_from_a_retransmission() {
    // IW 10, every segment sent at 0 (the scripted ACKs echo time 0), so a measurement is the ACK's time.
    let mut s = sender_keeping(Recovery::Sack, 10, false, true);
    start(&mut s);
    feed(&mut s, ms(100), ack(1, &[], false)); // 100 ms
    feed(&mut s, ms(250), ack(2, &[], false)); // 250 ms
    feed(&mut s, ms(300), ack(2, &[], false)); // duplicate, nothing new: no measurement
    feed(&mut s, ms(400), ack(3, &[], true)); // echoes a retransmission (Karn): no measurement
    feed(&mut s, ms(500), ack(3, &[(4, 5)], false)); // newly SACKed: 500 ms
    assert_eq!(s.counters().rtt_samples, 3);
    // 6 bits of sub-buckets (`histogram.rs`): 100 ms in [2^26, 2^27), width 2^20 ns, bucket from
    // floor(1e8 / 2^20) = 95 -> 95 * 2^20 = 99,614,720 to 100,663,295, its low end tightened to the smallest
    // measurement; 250 ms in [2^27, 2^28), width 2^21, 119 * 2^21 = 249,561,088 to 251,658,239; 500 ms in
    // [2^28, 2^29), width 2^22, from 119 * 2^22 = 499,122,176, its high end tightened to the largest.
    let h = s.rtt_histogram().expect("asked for");
    let rows: Vec<(u64, u64, u64)> = h.buckets().iter().map(|b| (b.low_ns, b.high_ns, b.count)).collect();
    assert_eq!(
        rows,
        vec![(100_000_000, 100_663_295, 1), (249_561_088, 251_658_239, 1), (499_122_176, 500_000_000, 1)]
    );
    s.clear_rtt_histogram();
    assert_eq!(s.rtt_histogram().map(|h| h.count()), Some(0));
}

#[test]
fn the_rtt_histogram_is_kept_only_when_asked() {
    let mut s = sender(Recovery::Sack, 10);
    start(&mut s);
    feed(&mut s, ms(100), ack(1, &[], false));
    assert_eq!(s.counters().rtt_samples, 1);
    assert!(s.rtt_histogram().is_none());
}

/// A SACK sender with NewReno (packet counting) and a receiver window `rwnd` or a cwnd clamp.
fn windowed_sender(initial_cwnd: u32, rwnd: u64, cwnd_clamp: Option<u32>) -> Sender {
    let cfg = SenderConfig {
        flow: 0,
        packet_size: 1500,
        recovery: Recovery::Sack,
        rto_min: SimDuration::from_millis(200),
        rwnd,
        cwnd_clamp,
        stop: None,
        ecn: false,
        segments: None,
        record_loss_events: false,
        rtt_histogram: false,
    };
    Sender::new(cfg, NewReno::new(NewRenoConfig { counting: Counting::Packets, window: Default::default() }, initial_cwnd).into())
}

#[test]
fn a_cwnd_clamp_stops_growth_at_the_clamp() {
    // IW 4, clamp 6: 0..3 out. ACK 1: slow start 4 -> 5, pipe 3: 4 and 5 out. ACK 2: 5 -> 6, pipe 4: 6
    // and 7 out. ACK 3: cwnd 6 >= clamp 6, so the ACK is not cwnd-limited and cwnd stays 6; pipe 5: only
    // 8 goes out. Without the clamp that ACK raises cwnd to 7 and releases 8 and 9.
    let mut s = windowed_sender(4, 1 << 30, Some(6));
    assert_eq!(start(&mut s).len(), 4);
    assert_eq!(feed(&mut s, ms(100), ack(1, &[], false)), vec![(4, false), (5, false)]);
    assert_eq!(feed(&mut s, ms(100), ack(2, &[], false)), vec![(6, false), (7, false)]);
    assert_eq!(feed(&mut s, ms(100), ack(3, &[], false)), vec![(8, false)]);
    assert_eq!((s.cc().cwnd(), s.in_flight()), (6, 6));
    let mut free = windowed_sender(4, 1 << 30, None);
    start(&mut free);
    feed(&mut free, ms(100), ack(1, &[], false));
    feed(&mut free, ms(100), ack(2, &[], false));
    assert_eq!(feed(&mut free, ms(100), ack(3, &[], false)), vec![(8, false), (9, false)]);
    assert_eq!(free.cc().cwnd(), 7);
}

#[test]
fn a_cwnd_clamp_unlike_a_receiver_window_sends_past_a_hole() {
    // cwnd 6: 0..5 out, 0 lost. The first duplicate ACK SACKs 1: pipe = 5 (0, 2, 3, 4, 5) < cwnd 6.
    // With a clamp of 6 new data 6 goes out (ns-2.35 TCP-Linux: window_ is only snd_cwnd_clamp, and
    // send_much counts the pipe). With rwnd 6 nothing does: snd_nxt - snd_una = 6 - 0 is the whole window.
    let mut clamped = windowed_sender(6, 1 << 30, Some(6));
    assert_eq!(start(&mut clamped).len(), 6);
    assert_eq!(feed(&mut clamped, ms(100), ack(0, &[(1, 2)], false)), vec![(6, false)]);
    let mut rwnd = windowed_sender(6, 6, None);
    assert_eq!(start(&mut rwnd).len(), 6);
    assert_eq!(feed(&mut rwnd, ms(100), ack(0, &[(1, 2)], false)), vec![]);
}

/// `sender` with F-RTO (`tcp/frto.rs`).
fn sender_frto(recovery: Recovery, initial_cwnd: u32, variant: FrtoVariant, response: SpuriousResponse) -> Sender {
    sender(recovery, initial_cwnd).with_frto(Some(FrtoConfig { variant, response }))
}

#[test]
fn frto_finds_a_timeout_spurious_when_the_originals_were_only_delayed() {
    // IW 10: 0..9 out at 0; a delay spike holds them past the RTO (1 s: no RTT sample yet).
    let mut s = sender_frto(Recovery::Sack, 10, FrtoVariant::Sack, SpuriousResponse::Halve);
    start(&mut s);
    let mut out = vec![];
    s.on_timer(ms(1000), &mut out);
    // Step 1: the head only, and the window left alone until the verdict. RTO doubled: 1 + 2 = 3 s.
    assert_eq!(emitted(&out), vec![(0, true)]);
    assert_eq!((s.cc().cwnd(), s.state(), s.timer_deadline()), (10, CaState::Open, Some(ms(3000))));
    // The original 0 arrives late: ACK 1 advances the window -> two new segments, 10 and 11, whatever
    // cwnd says (step 2b); no growth on this ACK.
    assert_eq!(feed(&mut s, ms(1100), ack(1, &[], false)), vec![(10, false), (11, false)]);
    assert_eq!(s.cc().cwnd(), 10);
    // The original 1 arrives: ACK 2 acknowledges a segment sent before the timeout and never resent:
    // spurious (step 3b). Response `halve`: NewReno's reduction, ssthresh = cwnd = 10 / 2 = 5, at once.
    // pipe = 2..11 = 10 >= 5: nothing is sent, and nothing was resent but the head.
    assert_eq!(feed(&mut s, ms(1100), ack(2, &[], false)), vec![]);
    assert_eq!((s.cc().cwnd(), s.cc().ssthresh(), s.in_flight()), (5, 5, 10));
    assert_eq!((s.counters().spurious_timeouts, s.counters().timeouts, s.counters().retransmissions), (1, 1, 1));
    // The rest of the late window arrives: ACKs 3..10 only acknowledge; in congestion avoidance (cwnd 5,
    // packet counting) cwnd grows by one after 5 ACKed packets. No retransmission follows.
    for cum in 3..=10 {
        feed(&mut s, ms(1100), ack(cum, &[], false));
    }
    assert_eq!((s.state(), s.counters().retransmissions, s.cc().cwnd()), (CaState::Open, 1, 6));

    // Without F-RTO the same late ACK 1 comes to a sender in the Loss state with 1..9 marked lost and
    // cwnd 1 -> 2 in slow start: it resends 1 and 2 (go-back-N), and the whole window after them.
    let mut plain = sender(Recovery::Sack, 10);
    start(&mut plain);
    plain.on_timer(ms(1000), &mut vec![]);
    assert_eq!(feed(&mut plain, ms(1100), ack(1, &[], false)), vec![(1, true), (2, true)]);
}

#[test]
fn a_pacing_wake_up_due_during_frto_is_spent_not_left_due() {
    // Pacing at 10 kbit/s: 12000 bit per packet = 1.2 s apart, so after segment 0 at t = 0 the wake-up
    // for segment 1 (1.2 s) comes after the RTO (1 s, no RTT sample). The RTO starts F-RTO: the head is
    // resent and the RTO doubles to 2 s (deadline 3 s). At 1.2 s the wake-up is due while F-RTO waits
    // for an ACK: it sends nothing (F-RTO allows no new segment before an ACK), and the next deadline is
    // the RTO's, 3 s, not 1.2 s again (which woke the sender at 1.2 s for ever).
    let (s, _) = recording_sender(10, Some(10_000));
    let mut s = s.with_frto(Some(FrtoConfig { variant: FrtoVariant::Sack, response: SpuriousResponse::Halve }));
    assert_eq!(start(&mut s), vec![(0, false)]);
    assert_eq!(s.timer_deadline(), Some(ms(1000)));
    let mut out = vec![];
    s.on_timer(ms(1000), &mut out);
    assert_eq!(emitted(&out), vec![(0, true)]);
    assert_eq!(s.timer_deadline(), Some(ms(1200)));
    out.clear();
    s.on_timer(ms(1200), &mut out);
    assert!(out.is_empty());
    assert_eq!(s.timer_deadline(), Some(ms(3000)));
}

#[test]
fn frto_undo_response_keeps_the_window() {
    // As above with response `undo`: after ACK 2 declares the timeout spurious, cwnd is still 10 and
    // ssthresh untouched (NewReno's initial, "infinite"), so ACK 3 grows cwnd in slow start to 11:
    // pipe 11..2 -> 3..11 = 9, two new segments (12, 13).
    let mut s = sender_frto(Recovery::Sack, 10, FrtoVariant::Sack, SpuriousResponse::Undo);
    start(&mut s);
    let ssthresh = s.cc().ssthresh();
    s.on_timer(ms(1000), &mut vec![]);
    feed(&mut s, ms(1100), ack(1, &[], false));
    assert_eq!(feed(&mut s, ms(1100), ack(2, &[], false)), vec![]);
    assert_eq!((s.cc().cwnd(), s.cc().ssthresh()), (10, ssthresh));
    assert_eq!(feed(&mut s, ms(1100), ack(3, &[], false)), vec![(12, false), (13, false)]);
    assert_eq!(s.counters().spurious_timeouts, 1);
}

#[test]
fn frto_falls_back_to_conventional_recovery_after_a_real_loss() {
    // IW 10: 0..9 out and all lost (an outage). RTO at 1 s: the head only.
    let mut s = sender_frto(Recovery::Sack, 10, FrtoVariant::Sack, SpuriousResponse::Halve);
    start(&mut s);
    let mut out = vec![];
    s.on_timer(ms(1000), &mut out);
    assert_eq!(emitted(&out), vec![(0, true)]);
    // The resent 0 arrives: ACK 1 advances the window -> new segments 10 and 11.
    assert_eq!(feed(&mut s, ms(1300), ack(1, &[], true)), vec![(10, false), (11, false)]);
    // 10 arrives, 1 does not: a duplicate ACK of 1 that SACKs 10, a segment sent after the timeout only
    // -> a real loss (step 3a). The deferred reduction is taken now: ssthresh = 10 / 2 = 5; every segment
    // not SACKed (1..9, 11) is lost, pipe 0, cwnd = 0 + 3 (Linux `tcp_enter_frto_loss`): 1, 2, 3 resent.
    assert_eq!(feed(&mut s, ms(1600), ack(1, &[(10, 11)], false)), vec![(1, true), (2, true), (3, true)]);
    assert_eq!((s.state(), s.cc().cwnd(), s.cc().ssthresh()), (CaState::Loss, 3, 5));
    assert_eq!((s.counters().spurious_timeouts, s.counters().timeouts, s.counters().retransmissions), (0, 1, 4));
    // From here it is the conventional RTO recovery: the resent 1 is ACKed (slow start: cwnd 4, pipe
    // 2 -> 4 and 5 resent).
    assert_eq!(feed(&mut s, ms(1900), ack(2, &[(10, 11)], true)), vec![(4, true), (5, true)]);
}

#[test]
fn basic_frto_falls_back_on_a_duplicate_ack_and_repeats_on_a_repeated_timeout() {
    // No SACK (NewReno recovery), basic F-RTO. IW 4: 0..3 out, nothing comes back: RTO at 1 s resends 0,
    // again at 1 + 2 = 3 s (F-RTO once more: the first ACK has not come), RTO 4 s: next at 7 s.
    let mut s = sender_frto(Recovery::Newreno, 4, FrtoVariant::Basic, SpuriousResponse::Halve);
    start(&mut s);
    let mut out = vec![];
    s.on_timer(ms(1000), &mut out);
    s.on_timer(ms(3000), &mut out);
    assert_eq!(emitted(&out), vec![(0, true), (0, true)]);
    assert_eq!((s.cc().cwnd(), s.counters().timeouts, s.timer_deadline()), (4, 2, Some(ms(7000))));
    // 1 arrives but 0 did not: a duplicate ACK of 0 -> a loss (RFC 5682 2.1 step 2a). ssthresh =
    // max(4 / 2, 2) = 2, 0..3 lost, the resend of 0 still in flight: cwnd = pipe 1 + 0 = 1, nothing sent.
    assert_eq!(feed(&mut s, ms(3100), ack(0, &[], false)), vec![]);
    assert_eq!((s.state(), s.cc().cwnd(), s.cc().ssthresh(), s.in_flight()), (CaState::Loss, 1, 2, 1));
    // The resend of 0 is ACKed with 1: cumulative ACK 2; slow start cwnd 2, pipe 0: 2 and 3 resent.
    assert_eq!(feed(&mut s, ms(3200), ack(2, &[], true)), vec![(2, true), (3, true)]);
}

#[test]
fn prr_spreads_the_halving_over_the_recovery() {
    // RFC 6937 PRR-SSRB, NewReno (ssthresh = cwnd / 2). IW 10: segments 0..9 out; 0 is lost.
    let mut s = sender(Recovery::Prr, 10);
    start(&mut s);
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(1, 2)], false)), vec![(10, false)]);
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(1, 3)], false)), vec![(11, false)]);
    // Third SACKed segment: 0 is lost (RFC 6675 IsLost). ssthresh 5, RecoverFS = the old cwnd, 10.
    // DeliveredData 1; pipe = 12 out - 3 SACKed - 1 lost = 8 > 5: sndcnt = ceil(1 * 5 / 10) - 0 = 1, the
    // fast retransmit of 0 (pipe 9).
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(1, 4)], false)), vec![(0, true)]);
    assert_eq!(s.state(), CaState::Recovery);
    assert_eq!((s.cc().ssthresh(), s.in_flight()), (5, 9));
    // Each later ACK SACKs one more segment (DeliveredData 1; pipe falls by one before sending):
    //   SACK 4: prr_delivered 2, pipe 8: ceil(10 / 10) - 1 = 0.   SACK 5: 3, pipe 7: ceil(15 / 10) - 1 = 1,
    //   send 12.   SACK 6: 4, pipe 7: 2 - 2 = 0.   SACK 7: 5, pipe 6: 3 - 2 = 1, send 13.   SACK 8: 6,
    //   pipe 6: 3 - 3 = 0.   SACK 9: pipe 5 = ssthresh, so the slow-start bound: min(5 - 5, ...) = 0.
    //   SACK 10: pipe 4: min(5 - 4, max(8 - 3, 1) + 1) = 1, send 14; and so on, one for one (pipe 4 -> 5).
    let mut sent = vec![];
    for end in 5..=14 {
        sent.push(feed(&mut s, ms(101), ack(0, &[(1, end)], false)));
    }
    let one = |seq: u64| vec![(seq, false)];
    assert_eq!(sent, vec![vec![], one(12), vec![], one(13), vec![], vec![], one(14), one(15), one(16), one(17)]);
    assert_eq!(s.in_flight(), 5);
    // The retransmission of 0 arrives: cumulative ACK 14 passes the recovery point (11). NewReno's exit
    // sets cwnd = ssthresh = 5; outstanding 14..17 is 4, so one new segment goes.
    assert_eq!(feed(&mut s, ms(200), ack(14, &[], true)), vec![(18, false)]);
    assert_eq!(s.state(), CaState::Open);
    assert_eq!((s.cc().cwnd(), s.cc().ssthresh()), (5, 5));
    assert_eq!((s.counters().loss_events, s.counters().retransmissions), (1, 1));
}

/// A sender with ns-2's delayed-send timer of at most `max` ns (`tcp/delayed_send.rs`).
fn delayed_sender(recovery: Recovery, initial_cwnd: u32, max: u64) -> Sender {
    use crate::rng::SimRng;
    use crate::tcp::delayed_send::DelayedSend;
    sender(recovery, initial_cwnd).with_delayed_send(DelayedSend::new(SimDuration(max), SimRng::new(1, 0)))
}

/// Fire the sender's timer at its deadline; return the time and what it sent.
fn fire_timer(s: &mut Sender) -> (SimTime, Vec<(u64, bool)>) {
    let at = s.timer_deadline().expect("a deadline");
    let mut out = vec![];
    s.on_timer(at, &mut out);
    (at, emitted(&out))
}

#[test]
fn delayed_send_holds_the_initial_window_until_its_timer() {
    // ns-2 send_much with overhead_: the start finds room, arms the timer and sends nothing; the expiry
    // sends the whole initial window at once.
    let mut s = delayed_sender(Recovery::Sack, 3, 8_000);
    assert_eq!(start(&mut s), vec![]);
    let (at, sent) = fire_timer(&mut s);
    assert!(at <= SimTime(8_000));
    assert_eq!(sent, vec![(0, false), (1, false), (2, false)]);
    // Nothing more is due but the retransmission timer.
    assert!(s.timer_deadline().is_some_and(|d| d >= at + SimDuration::from_millis(200)));
}

#[test]
fn delayed_send_acks_while_its_timer_is_pending_only_open_the_window() {
    // IW 2, slow start. ACK 1 at 100 ms arms the timer (room: cwnd 3, pipe 1); ACK 2 one microsecond later
    // finds it pending and sends nothing. The expiry sends what both allow: cwnd 4, pipe 0, so 2..5.
    let mut s = delayed_sender(Recovery::Sack, 2, 8_000);
    start(&mut s);
    fire_timer(&mut s);
    assert_eq!(feed(&mut s, ms(100), ack(1, &[], false)), vec![]);
    let pending = s.timer_deadline().expect("armed");
    assert!(pending >= ms(100) && pending <= ms(100) + SimDuration(8_000));
    assert_eq!(feed(&mut s, ms(100) + SimDuration(1_000), ack(2, &[], false)), vec![]);
    assert_eq!(s.timer_deadline(), Some(pending), "the pending timer is not moved");
    let (_, sent) = fire_timer(&mut s);
    assert_eq!(sent, vec![(2, false), (3, false), (4, false), (5, false)]);
}

#[test]
fn delayed_send_leaves_the_first_retransmission_of_rfc6675_immediate() {
    // ns-2's classic agents send the fast retransmit with `output`, not through the delayed send. IW 10,
    // segments 0..9 out; SACKs of 1, 1-2, 1-3 make three duplicates: the third retransmits 0 at once.
    let mut s = delayed_sender(Recovery::Sack, 10, 8_000);
    start(&mut s);
    fire_timer(&mut s);
    assert_eq!(feed(&mut s, ms(100), ack(0, &[(1, 2)], false)), vec![]);
    let t = ms(100) + SimDuration(100);
    assert_eq!(feed(&mut s, t, ack(0, &[(1, 3)], false)), vec![]);
    assert_eq!(feed(&mut s, t + SimDuration(100), ack(0, &[(1, 4)], false)), vec![(0, true)]);
    assert_eq!(s.state(), CaState::Recovery);
}

#[test]
fn a_delayed_send_due_with_the_timeout_sends_after_the_timeout() {
    // IW 2; nothing comes back. The RTO (200 ms) marks both lost; the delayed send armed by the start has
    // long expired, so the timeout's own send call arms a new one, whose expiry retransmits the head.
    let mut s = delayed_sender(Recovery::Sack, 2, 8_000);
    start(&mut s);
    fire_timer(&mut s);
    let (at, sent) = fire_timer(&mut s);
    assert!(at >= ms(200));
    assert_eq!(sent, vec![], "the timeout arms the delayed send");
    assert_eq!(s.counters().timeouts, 1);
    let (_, sent) = fire_timer(&mut s);
    assert_eq!(sent, vec![(0, true)]);
}

#[test]
fn delayed_send_spends_a_due_pacing_wake_up() {
    // Burst pacing holds the second packet 1 ms; its wake-up passes through the delayed send, whose expiry
    // sends it. The sender's deadline never stays in the past (a due wake-up left set fired for ever).
    use crate::rng::SimRng;
    use crate::tcp::burst::BurstLimit;
    let mut s = delayed_sender(Recovery::Sack, 2, 8_000)
        .with_burst_limit(BurstLimit::new(1, SimDuration::from_millis(1), SimDuration::ZERO, SimRng::new(3, 0)));
    start(&mut s);
    let (at, sent) = fire_timer(&mut s);
    assert_eq!(sent, vec![(0, false)]);
    let (wake, sent) = fire_timer(&mut s);
    assert_eq!(wake, at + SimDuration::from_millis(1));
    assert_eq!(sent, vec![], "the wake-up arms the delayed send");
    assert!(s.timer_deadline().is_some_and(|d| d >= wake));
    let (_, sent) = fire_timer(&mut s);
    assert_eq!(sent, vec![(1, false)]);
}
