//! Scripted BBR: rate samples are written by hand, one stretch ACK per round unless said otherwise.
//!
//! Conventions of the script: RTprop 100 ms; a round that delivers N packets over 100 ms gives
//! bw = N * 2^24 * 1000 / 1e8 ns = floor(N * 167.77216) in packets/µs << 24 (10 -> 1677, 20 -> 3355,
//! 40 -> 6710, 80 -> 13421, 90 -> 15099, 95 -> 15938, 99 -> 16609). With that bw,
//! bdp(gain) = ceil(bw * 1e8 * gain / 256 / (2^24 * 1000)), so bdp(1) = N. The `linux-4.9` preset with
//! `tso_autosize` off is used (no pacing margin, quantization budget 3 packets, rounded up to even)
//! unless a test is about the `linux` constants.

use super::*;
use crate::cc::common::INFINITE_SSTHRESH;

fn ms(v: u64) -> SimTime {
    SimTime(v * 1_000_000)
}
fn dur_ms(v: u64) -> SimDuration {
    SimDuration::from_millis(v)
}

fn config() -> BbrConfig {
    BbrConfig { tso_autosize: false, ..BbrConfig::variant("linux-4.9").unwrap() }
}
fn bbr(initial_cwnd: u32) -> Bbr {
    Bbr::new(config(), initial_cwnd, 1500, SimRng::new(1, 0))
}

/// One ACK of the script.
#[derive(Clone, Copy)]
struct Ack {
    now: SimTime,
    /// Packets this ACK delivers (acked_sacked) and the rate sample's delivered count over `interval`.
    acked: u32,
    interval: SimDuration,
    /// Delivered count when the sampled packet was sent, and the total after this ACK.
    prior_delivered: u64,
    total_delivered: u64,
    in_flight: u32,
    prior_in_flight: u32,
    rtt: SimDuration,
    losses: u32,
    in_recovery: bool,
}

impl Ack {
    /// The ACK of a whole round: `n` packets delivered over 100 ms, all sent after `prior_delivered`.
    fn round(now: SimTime, n: u32, prior_delivered: u64) -> Ack {
        Ack {
            now,
            acked: n,
            interval: dur_ms(100),
            prior_delivered,
            total_delivered: prior_delivered + n as u64,
            in_flight: 0,
            prior_in_flight: n,
            rtt: dur_ms(100),
            losses: 0,
            in_recovery: false,
        }
    }
    fn feed(self, bbr: &mut Bbr) {
        let rate = RateSample {
            acked_sacked: self.acked,
            losses: self.losses,
            delivered: self.acked as u64,
            interval: self.interval,
            prior_delivered: self.prior_delivered,
            is_app_limited: false,
            total_delivered: self.total_delivered,
            total_lost: 0,
            delivered_time: self.now,
        };
        bbr.on_ack_sample(&AckSample {
            now: self.now,
            acked: self.acked,
            rtt: Some(self.rtt),
            srtt: Some(self.rtt),
            min_rtt: Some(self.rtt),
            prior_in_flight: self.prior_in_flight,
            in_flight: self.in_flight,
            in_recovery: self.in_recovery,
            rate: Some(rate),
            ..Default::default()
        });
    }
}

/// A BBR in PROBE_BW at bw(80) = 13421 (BDP 80), cwnd 164 (= 2 BDP + 3, even), phase `cycle_index`
/// starting at `start`.
fn in_probe_bw(cycle_index: usize, start: SimTime) -> Bbr {
    let mut b = bbr(10);
    b.max_bw.reset(1, 13421);
    b.min_rtt = Some(dur_ms(100));
    b.min_rtt_stamp = start;
    b.full_bw_reached = true;
    b.mode = Mode::ProbeBw;
    b.cycle_index = cycle_index;
    b.cycle_stamp = start;
    b.delivered_time = start;
    b.round_count = 1;
    b.delivered = 1000;
    b.next_round_delivered = 1000;
    b.cwnd = 164;
    b.update_gains();
    b
}

#[test]
fn startup_paces_at_high_gain_and_doubles_cwnd_each_round() {
    // IW 10. Round r delivers the whole previous window over 100 ms; cwnd < target, so cwnd += acked.
    // Targets: ceil(2.887 * N) + 3, even: N = 10 -> 29 + 3 = 32; 20 -> 62; 40 -> 120.
    // Pacing = bw * 12000 bit * 739 / 256 * 1e6 / 2^24 (margin 0):
    //   N = 10: 1677 * 12000 = 20124000; * 739 >> 8 = 58092328; * 1e6 >> 24 = 3462572 bit/s
    //   (2.887 x 1.2 Mbit/s, less the floor of bw). N = 20: 6927209. N = 40: 13854419.
    let mut b = bbr(10);
    let mut delivered = 0;
    for (round, (n, pacing)) in [(10, 3_462_572), (20, 6_927_209), (40, 13_854_419)].into_iter().enumerate() {
        Ack::round(ms(100 * (round as u64 + 1)), n, delivered).feed(&mut b);
        delivered += n as u64;
        assert_eq!(b.mode(), Mode::Startup);
        assert_eq!(b.round_count, round as u64 + 1, "one round per ACK");
        assert_eq!((b.pacing_gain, b.cwnd_gain), (739, 739));
        assert_eq!(b.pacing_rate_bps, pacing);
        assert_eq!(b.cwnd(), 2 * n, "cwnd += acked");
    }
}

#[test]
fn startup_ends_after_three_rounds_without_25_percent_growth_then_drain_then_probe_bw() {
    // Rounds deliver 10, 20, 40, 80 (each >= 1.25 x the last full_bw: growth), then 90, 95, 99: each below
    // 1.25 x 80 = 100, so full_bw_count 1, 2, 3 -> the pipe is full at the 7th round.
    // cwnd: 10 -> 20 -> 40 -> 80 -> 160 -> 250 (target 264) -> 345 (target 278).
    let mut b = bbr(10);
    let mut delivered = 0;
    for (round, n) in [10u32, 20, 40, 80, 90, 95].into_iter().enumerate() {
        Ack::round(ms(100 * (round as u64 + 1)), n, delivered).feed(&mut b);
        delivered += n as u64;
        assert_eq!(b.mode(), Mode::Startup);
    }
    assert_eq!((b.full_bw, b.full_bw_count), (13421, 2));
    assert_eq!(b.cwnd(), 345);
    // Round 7: 99 packets, 200 still in flight. Full pipe -> DRAIN; ssthresh = inflight(bw, 1) = 99 + 3 -> 102.
    // 200 > 102: stay in DRAIN, pacing gain 88, cwnd gain 739; cwnd = min(345 + 99, ceil(2.887 * 99) + 3
    // -> 290) = 290. Pacing may now fall: 16609 * 12000 * 88 >> 8 * 1e6 >> 24 = 4083640 bit/s.
    Ack { in_flight: 200, ..Ack::round(ms(700), 99, delivered) }.feed(&mut b);
    delivered += 99;
    assert_eq!(b.mode(), Mode::Drain);
    assert_eq!((b.pacing_gain, b.cwnd_gain, b.ssthresh(), b.cwnd()), (88, 739, 102, 290));
    assert_eq!(b.pacing_rate_bps, 4_083_640);
    // A later ACK in the same round: in flight 103 > 102 keeps DRAIN; 102 leaves it for PROBE_BW.
    let mid_round = Ack { acked: 1, in_flight: 103, total_delivered: delivered + 1, ..Ack::round(ms(710), 1, 400) };
    mid_round.feed(&mut b);
    assert_eq!(b.mode(), Mode::Drain);
    Ack { in_flight: 102, total_delivered: delivered + 2, ..mid_round }.feed(&mut b);
    assert_eq!(b.mode(), Mode::ProbeBw);
    assert_eq!(b.cwnd_gain, 512);
    assert_ne!(b.cycle_index, 1, "PROBE_BW never starts in the 0.75 phase");
}

#[test]
fn probe_bw_start_phase_is_random_but_never_the_drain_phase() {
    // cycle_idx = 7 - random(0..7), then advanced: 0, 2, 3, ..., 7 are possible, 1 (gain 0.75) is not.
    let mut seen = [0u32; 8];
    for seed in 0..300 {
        let mut b = Bbr::new(config(), 10, 1500, SimRng::new(seed, 7));
        b.enter_probe_bw();
        seen[b.cycle_index] += 1;
    }
    assert_eq!(seen[1], 0);
    assert!(seen.iter().enumerate().all(|(i, &n)| i == 1 || n > 0), "{seen:?}");
}

#[test]
fn probe_bw_cycles_through_the_gains() {
    // BDP 80 at 100 ms. Phase 0 (gain 320 = 1.25): needs > 100 ms in the phase AND prior in-flight >=
    // inflight(bw, 1.25) = ceil(1.25 * 80) + 3 = 103 -> 104 (4.9: no +2).
    let mut b = in_probe_bw(0, ms(0));
    assert_eq!(b.pacing_gain, 320);
    let ack = |t: u64, prior_in_flight: u32| Ack {
        acked: 1,
        prior_in_flight,
        in_flight: prior_in_flight - 1,
        prior_delivered: 900,
        total_delivered: 1001,
        ..Ack::round(ms(t), 1, 900)
    };
    ack(50, 120).feed(&mut b); // too early
    assert_eq!(b.cycle_index, 0);
    ack(101, 100).feed(&mut b); // long enough, but in flight 100 < 104
    assert_eq!(b.cycle_index, 0);
    ack(102, 104).feed(&mut b); // 104 >= 104: on to 0.75
    assert_eq!((b.cycle_index, b.pacing_gain), (1, 192));
    // Phase 1 (0.75) ends as soon as prior in-flight <= inflight(bw, 1) = 80 + 3 -> 84, even early.
    ack(110, 90).feed(&mut b);
    assert_eq!(b.cycle_index, 1);
    ack(120, 84).feed(&mut b);
    assert_eq!((b.cycle_index, b.pacing_gain), (2, 256));
    // Phases 2..7 (gain 1) each last just over 100 ms of delivery time; then back to 1.25.
    for (i, t) in (3..8).chain(0..1).zip([221u64, 322, 423, 524, 625, 726]) {
        ack(t - 2, 84).feed(&mut b);
        assert_eq!(b.cycle_index, if i == 0 { 7 } else { i - 1 });
        ack(t, 84).feed(&mut b);
        assert_eq!(b.cycle_index, i);
    }
    assert_eq!(b.pacing_gain, 320);
}

#[test]
fn cwnd_in_probe_bw_is_two_bdp_plus_budget_and_linux_5_adds_two_in_the_probe_phase() {
    // 4.9, phase 2: target = 2 * 80 + 3 = 163 -> 164. cwnd 160 + 10 acked -> capped at 164.
    let mut b = in_probe_bw(2, ms(0));
    b.cwnd = 160;
    Ack { acked: 10, total_delivered: 1010, ..Ack::round(ms(10), 10, 900) }.feed(&mut b);
    assert_eq!(b.cwnd(), 164);
    // linux (5.x), phase 0: 164 + 2 = 166; pacing 1.25 * bw with the 1 % margin:
    // 13421 * 12000 * 320 >> 8 = 201315000; * 990000 = 199301850000000, >> 24 = 11879315 bit/s.
    let mut b = in_probe_bw(0, ms(0));
    b.cfg = BbrConfig { tso_autosize: false, ..BbrConfig::variant("linux").unwrap() };
    b.cwnd = 160;
    Ack { acked: 10, prior_in_flight: 50, total_delivered: 1010, ..Ack::round(ms(10), 10, 900) }.feed(&mut b);
    assert_eq!(b.cwnd(), 166);
    assert_eq!(b.pacing_rate_bps, 11_879_315);
}

#[test]
fn delivery_rate_is_the_same_quotient_in_u64_and_u128() {
    // 10 packets in 100 ms: 10 * 2^24 * 1000 / 1e8 = 1677.72 -> 1677 (the script's convention).
    assert_eq!(delivery_rate(10, dur_ms(100)), 1677);
    // 2^41 packets in 1 s needs u128: 2^41 * 2^24 * 1000 / 1e9 = 2^65 / 1e6 = 36893488147419.1.
    assert_eq!(delivery_rate(1 << 41, dur_ms(1000)), 36_893_488_147_419);
}

#[test]
fn cwnd_target_is_recomputed_when_the_pacing_rate_moves_the_tso_budget() {
    // bw 13421 (80 packets per 100 ms), RTprop 100 ms, cwnd gain 2: bdp = ceil(159.99) = 160. At 200
    // Mbit/s the TSO goal is 16 segments: 160 + 48 = 208; at 2 Mbit/s it is 2: 160 + 6 = 166; back at 200
    // Mbit/s, 208 again.
    let mut b = Bbr::new(BbrConfig::variant("linux").unwrap(), 10, 1500, SimRng::new(1, 0));
    b.min_rtt = Some(dur_ms(100));
    b.cwnd_gain = 512;
    for (rate, target) in [(200_000_000, 208), (200_000_000, 208), (2_000_000, 166), (200_000_000, 208)] {
        b.pacing_rate_bps = rate;
        assert_eq!(b.cwnd_target(13421), target);
    }
    // A new RTprop is a new target too: 50 ms halves the BDP, 80 + 48 = 128.
    b.min_rtt = Some(dur_ms(50));
    assert_eq!(b.cwnd_target(13421), 128);
}

#[test]
fn tso_budget_follows_the_pacing_rate_as_linux() {
    // Pacing 200 Mbit/s = 25e6 B/s; >> 10 = 24414 B per ~1 ms; / 1500 = 16 segments -> budget 48.
    // Below 1.2 Mbit/s the floor is 1 segment, above it 2.
    let mut b = Bbr::new(BbrConfig::variant("linux").unwrap(), 10, 1500, SimRng::new(1, 0));
    b.pacing_rate_bps = 200_000_000;
    assert_eq!(b.tso_segs_goal(), 16);
    b.pacing_rate_bps = 1_000_000;
    assert_eq!(b.tso_segs_goal(), 1);
    b.pacing_rate_bps = 2_000_000;
    assert_eq!(b.tso_segs_goal(), 2);
}

#[test]
fn probe_rtt_after_ten_seconds_without_a_new_minimum() {
    // min RTT 100 ms stamped at 0. Samples of 120 ms do not replace it within 10 s.
    let mut b = in_probe_bw(2, ms(0));
    let ack = |t: u64, in_flight: u32, prior_delivered: u64, total: u64| Ack {
        acked: 1,
        rtt: dur_ms(120),
        in_flight,
        prior_in_flight: in_flight + 1,
        total_delivered: total,
        ..Ack::round(ms(t), 1, prior_delivered)
    };
    ack(10_000, 160, 900, 1001).feed(&mut b);
    assert_eq!((b.mode(), b.min_rtt), (Mode::ProbeBw, Some(dur_ms(100))));
    // 10.001 s: expired. The 120 ms sample becomes RTprop, PROBE_RTT starts: cwnd 164 saved, cwnd 4,
    // gains 1, rate samples app-limited.
    ack(10_001, 160, 900, 1002).feed(&mut b);
    assert_eq!((b.mode(), b.min_rtt, b.prior_cwnd), (Mode::ProbeRtt, Some(dur_ms(120)), 164));
    assert_eq!((b.cwnd(), b.pacing_gain, b.cwnd_gain), (4, 256, 256));
    assert!(b.marks_app_limited());
    // In flight drops to 4 at 10.2 s: done no earlier than 10.4 s and one round later (the round ends
    // when a packet sent after delivered = 1003 is delivered).
    ack(10_200, 4, 950, 1003).feed(&mut b);
    assert_eq!(b.probe_rtt_done_stamp, Some(ms(10_400)));
    ack(10_300, 4, 1003, 1004).feed(&mut b); // the round ends, 200 ms not yet over
    assert_eq!(b.mode(), Mode::ProbeRtt);
    ack(10_400, 4, 1004, 1005).feed(&mut b); // not after 10.4 s yet
    assert_eq!(b.mode(), Mode::ProbeRtt);
    // 10.401 s: back to PROBE_BW with the saved cwnd 164 (then grown by the ACK to the target 2*BDP,
    // now with RTprop 120 ms: ceil(2 * 80 * 1.2) + 3 = 195 -> 196, so 164 + 1 = 165), new RTprop stamp.
    ack(10_401, 4, 1005, 1006).feed(&mut b);
    assert_eq!(b.mode(), Mode::ProbeBw);
    assert_eq!((b.cwnd(), b.min_rtt_stamp), (165, ms(10_401)));
    assert!(!b.marks_app_limited());
}

#[test]
fn recovery_conserves_packets_for_one_round_then_restores_the_prior_cwnd() {
    let mut b = in_probe_bw(2, ms(0));
    // The ACK that reveals the loss: 1 SACKed, 1 lost, 150 in flight after it. cwnd = min(164 - 1 lost
    // + 1 acked, target 164) = 164. Then fast retransmit: prior_cwnd = 164 (cwnd before this ACK),
    // conservation: cwnd = in flight 150 + 1 delivered = 151.
    let ack = |t: u64, acked: u32, losses: u32, in_flight: u32, prior_delivered: u64, total: u64| Ack {
        acked,
        losses,
        in_flight,
        prior_in_flight: in_flight + acked,
        total_delivered: total,
        in_recovery: true,
        ..Ack::round(ms(t), acked, prior_delivered)
    };
    Ack { in_recovery: false, ..ack(10, 1, 1, 150, 900, 1001) }.feed(&mut b);
    assert_eq!(b.cwnd(), 164);
    b.on_congestion_event(&CongestionEvent { now: ms(10), in_flight: 151, min_rtt: None, srtt: None });
    assert_eq!((b.cwnd(), b.prior_cwnd), (151, 164));
    // First round of recovery: cwnd = max(cwnd - losses, in flight + acked).
    ack(20, 1, 0, 149, 950, 1002).feed(&mut b); // max(151, 150) = 151
    assert_eq!(b.cwnd(), 151);
    ack(30, 2, 3, 160, 950, 1004).feed(&mut b); // max(151 - 3, 160 + 2) = 162
    assert_eq!(b.cwnd(), 162);
    ack(40, 1, 4, 100, 960, 1005).feed(&mut b); // max(162 - 4, 101) = 158
    assert_eq!(b.cwnd(), 158);
    // A packet sent after the loss (prior_delivered 1001 >= 1001) is delivered: the round is over,
    // conservation ends; growth is min(cwnd + acked, 2 BDP target 164): 158 + 2 = 160.
    ack(50, 2, 0, 100, 1001, 1007).feed(&mut b);
    assert!(!b.packet_conservation);
    assert_eq!(b.cwnd(), 160);
    // Recovery ends: cwnd = max(160, prior 164) = 164.
    b.on_recovery_exit(ms(60));
    assert_eq!(b.cwnd(), 164);
}

#[test]
fn timeout_leaves_one_packet_regrows_by_acked_and_restores_after_loss() {
    // cwnd 164 -> RTO: prior_cwnd 164, cwnd 1, full_bw forgotten, the RTO ends a round.
    let mut b = in_probe_bw(2, ms(0));
    b.full_bw = 13421;
    b.on_timeout(ms(1000), true);
    assert_eq!((b.cwnd(), b.prior_cwnd, b.full_bw, b.round_start), (1, 164, 0, true));
    // A repeated backoff keeps prior_cwnd (max of 164 and 1).
    b.on_timeout(ms(3000), false);
    assert_eq!(b.prior_cwnd, 164);
    // In Loss, ACKs grow cwnd by acked (pipe full: min(cwnd + acked, 164)), but never below 4: 1 + 1 -> 4,
    // then 4 + 2 = 6.
    let ack = |t: u64, acked: u32, in_recovery: bool| Ack {
        acked,
        in_flight: 1,
        prior_in_flight: 1 + acked,
        total_delivered: 1001,
        in_recovery,
        ..Ack::round(ms(t), acked, 900)
    };
    ack(3100, 1, true).feed(&mut b);
    assert_eq!(b.cwnd(), 4);
    ack(3200, 2, true).feed(&mut b);
    assert_eq!(b.cwnd(), 6);
    // The sender is Open again (seen on the next ACK): cwnd = max(6, 164), then + 1 capped at 164.
    ack(3300, 1, false).feed(&mut b);
    assert_eq!(b.cwnd(), 164);
}

#[test]
fn app_limited_samples_only_raise_the_max() {
    // BtlBw bw(80) = 13421. An app-limited sample of 40 packets is ignored; one of 90 raises the max.
    let mut b = in_probe_bw(2, ms(0));
    let sample = |n: u32| RateSample {
        acked_sacked: 1,
        delivered: n as u64,
        interval: dur_ms(100),
        prior_delivered: 950,
        is_app_limited: true,
        total_delivered: 1001,
        ..Default::default()
    };
    b.update_bw(&sample(40));
    assert_eq!(b.max_bw(), 13421);
    b.update_bw(&sample(90));
    assert_eq!(b.max_bw(), 15099);
}

#[test]
fn bandwidth_filter_forgets_the_max_after_ten_rounds() {
    // Max 100 at round 1, then 50 each round: still 100 at round 11 (10 rounds later), 50 at round 12.
    let mut f = WindowedMax::default();
    f.update(10, 1, 100);
    for round in 2..=11 {
        assert_eq!(f.update(10, round, 50), 100, "round {round}");
    }
    assert_eq!(f.update(10, 12, 50), 50);
}

#[test]
fn long_term_sampling_detects_a_policer_after_two_lossy_intervals_of_equal_rate() {
    // Each interval: 5 rounds of 100 ms delivering 20 packets each, the last one with 30 losses, which
    // ends the interval (>= 4 rounds, 30/100 >= 50/256 ~ 20 % lost). Interval rate: 100 packets / 500 ms = 0.2 packets/ms -> 100 * 2^24 / 500000 us =
    // 3355. Second interval the same rate: the policed rate 3355 is used with pacing gain 1.
    let mut b = in_probe_bw(2, ms(0));
    b.cfg.long_term_bw = true;
    let mut delivered = 1000u64;
    let mut lost = 0u64;
    let mut t = 0;
    let mut step = |b: &mut Bbr, n: u64, losses: u64| {
        t += 100;
        delivered += n;
        lost += losses;
        b.delivered = delivered;
        b.lost = lost;
        b.delivered_time = ms(t);
        b.round_start = true;
        b.long_term_bw_sampling(&RateSample { losses: losses as u32, ..Default::default() });
    };
    step(&mut b, 0, 1); // the first loss starts sampling (and counts a round)
    assert!(b.long_term.is_sampling);
    for interval in 0..2 {
        for _ in 0..4 {
            step(&mut b, 20, 0);
        }
        step(&mut b, 20, 30);
        if interval == 0 {
            assert_eq!((b.long_term.bw, b.long_term.use_bw), (3355, false));
        }
    }
    assert_eq!((b.long_term.bw, b.long_term.use_bw), (3355, true));
    assert_eq!(b.bw(), 3355);
    b.update_gains();
    assert_eq!(b.pacing_gain, BBR_UNIT);
}

#[test]
fn initial_state_and_presets() {
    // Before any RTT: pacing = 739/256 * IW 10 per 1 ms = 10 packets/ms -> bw 10 * 2^24 / 1000 = 167772;
    // 167772 * 12000 * 739 >> 8 = 5811726937, * 990000 >> 24 = 342941860 bit/s with the linux margin.
    let b = Bbr::new(BbrConfig::variant("linux").unwrap(), 10, 1500, SimRng::new(1, 0));
    assert_eq!((b.cwnd(), b.ssthresh(), b.mode()), (10, INFINITE_SSTHRESH, Mode::Startup));
    assert_eq!(b.pacing_rate_bps(), Some(342_941_860));
    let linux = BbrConfig::variant("linux").unwrap();
    let old = BbrConfig::variant("linux-4.9").unwrap();
    assert_eq!((linux.high_gain, linux.drain_gain, linux.cwnd_gain), (739, 88, 512));
    assert_eq!(linux.pacing_gain_cycle, [320, 192, 256, 256, 256, 256, 256, 256]);
    assert_eq!((linux.pacing_margin_percent, linux.probe_cwnd_extra), (1, 2));
    assert_eq!((old.pacing_margin_percent, old.probe_cwnd_extra), (0, 0));
    let mut out = vec![];
    b.state(&mut out);
    let names: Vec<&str> = out.iter().map(|f| f.0).collect();
    assert_eq!(names, ["mode", "btl_bw_bps", "min_rtt_s", "pacing_gain", "cwnd_gain", "pacing_rate_bps"]);
}
