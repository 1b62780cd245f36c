//! A receiver behind its own plain access link takes each data packet when the bottleneck hands it to
//! that link, as of its arrival (`Simulation::receive_at_hand_off`, docs/benchmarks.md run 24); the
//! bottleneck takes each packet as the sender emits it, and the reverse bottleneck each ACK as it leaves
//! the receiver, as of their arrivals there (`Simulation::inject_ahead`, `Simulation::take_ack`, run 26).
//! In runs of several flows the receivers take data and the senders ACKs at the hand-off (run 30,
//! `sim/several_ahead.rs`). Nothing may change but the event count: every summary, series, census and
//! progress reading, at every step of a run read in steps, equals what the packet-by-packet path gives.

mod ahead;

use serde_json::{json, Value};

const MS: u64 = 1_000_000;

/// One flow on a 20 Mbit/s dumbbell with a 30-packet DropTail queue (slow start overshoots, recovery
/// runs, the queue fills and drains), in a group (the summary's group bytes read the receiver too); 8 s,
/// measured from 1.5 s, sampled every `sample_ms`.
fn config(cc: &str, flow_extra: Value, sample_ms: u64) -> String {
    let mut flow = json!({
        "cc": {"name": cc},
        "src_access_delay_ns": 2 * MS,
        "dst_access_delay_ns": 7 * MS,
        "access_rate_bps": 100_000_000u64,
        "group": "bulk",
    });
    flow.as_object_mut().unwrap().extend(flow_extra.as_object().unwrap().clone());
    json!({
        "packet_size": 1500,
        "bottleneck": {"rate_bps": 20_000_000u64, "delay_ns": 10 * MS,
                       "queue": {"discipline": "droptail", "limit_packets": 30}},
        "flows": [flow],
        "run": {"duration_ns": 8_000 * MS, "measure_from_ns": 1_500 * MS, "seed": 3,
                "sample_interval_ns": sample_ms * MS},
    })
    .to_string()
}

/// Run `text` both ways in steps of `step_ms`, comparing every reading after each step; returns the
/// event counts (ahead, packet by packet).
fn compare_in_steps(text: &str, step_ms: u64) -> (u64, u64) {
    ahead::compare(text, &[step_ms * MS])
}

#[test]
fn a_lone_flow_reads_the_same_at_every_step_with_one_event_less_per_packet() {
    for cc in ["newreno", "cubic", "bbr"] {
        // Steps of 13 ms (shorter than the 7-ms access link's look-ahead plus queueing) and of 1 s; samples
        // every 100 ms and every 1 ms (a reading due between a packet's hand-off and its arrival).
        for (step_ms, sample_ms) in [(13, 100), (1000, 1), (1000, 100)] {
            let (ahead, by_packet) = compare_in_steps(&config(cc, json!({}), sample_ms), step_ms);
            let saved = by_packet - ahead;
            if sample_ms == 1 {
                // Samples closer than an ACK takes over the receiver's 7-ms link back keep the
                // packet-by-packet path (`samples_follow_acks`).
                assert_eq!(saved, 0, "{cc}: samples every {sample_ms} ms");
                continue;
            }
            // One of four line passes per packet (BBR adds pacing timers): over 1 in 7 events saved.
            assert!(saved * 7 > by_packet, "{cc}: {ahead} events against {by_packet}: the path is not taken");
        }
    }
}

#[test]
fn a_flow_that_stops_or_ends_reads_the_same() {
    let stop = json!({"stop_ns": 4_000 * MS});
    let transfer = json!({"size_bytes": 3_000_000u64});
    for extra in [stop, transfer] {
        compare_in_steps(&config("newreno", extra, 50), 250);
    }
}

#[test]
fn a_receiver_with_delayed_acks_takes_its_packets_on_arrival() {
    let text = config("newreno", json!({"delayed_ack": true}), 100);
    let (ahead, by_packet) = compare_in_steps(&text, 500);
    assert_eq!(ahead, by_packet, "same events: its timer could fire between hand-off and arrival");
}

#[test]
fn several_flows_read_the_same_with_both_endpoints_ahead_and_fewer_events() {
    // Two flows alike (their packets meet at the bottleneck at the same nanosecond again and again: tie
    // rule R orders them, and taken ahead they must be ordered alike), then three algorithms on access
    // links of different delays. Receivers take data and senders ACKs at the hand-off (sim/several_ahead.rs).
    let one = config("newreno", json!({}), 100);
    let mut two: Value = serde_json::from_str(&one).unwrap();
    let flow = two["flows"][0].clone();
    two["flows"].as_array_mut().unwrap().push(flow);
    let mut three = two.clone();
    three["flows"][1]["cc"] = json!({"name": "cubic"});
    three["flows"][1]["src_access_delay_ns"] = json!(5 * MS);
    let mut bbr = three["flows"][0].clone();
    bbr["cc"] = json!({"name": "bbr"});
    bbr["dst_access_delay_ns"] = json!(MS);
    three["flows"].as_array_mut().unwrap().push(bbr);
    for text in [two.to_string(), three.to_string()] {
        let (ahead, by_packet) = compare_in_steps(&text, 500);
        // Four events per data packet become two; drops, timers and samples keep theirs.
        assert!(ahead * 10 < by_packet * 7, "{ahead} events ahead against {by_packet} packet by packet");
    }
}

#[test]
fn an_ack_due_with_a_sample_and_scheduled_before_it_is_taken_first() {
    // Six flows sampled every millisecond (the several-flow fuzz's case 898, seed 13). At 445 ms an ACK
    // of flow 4 reaches its sender exactly as a sample is due; its arrival was scheduled at 443.6 ms, when
    // the ACK before it arrived, before the sample was (at 444 ms), so packet by packet it fires first and
    // the sample reads its RTT. Held back for the sample, the sender read 40.1 ms where 41.0 was due
    // (`several_ahead::ack_precedes_sample`).
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ahead/ack_due_with_a_sample.json")).unwrap();
    let (ahead, by_packet) = compare_in_steps(&text, 100);
    assert!(ahead < by_packet, "{ahead} events ahead against {by_packet}");
}

#[test]
fn a_timer_event_superseded_and_due_again_keeps_its_place_against_an_ack() {
    // Two `ns2-sack1` flows, the first with ns-2's delayed send (the several-flow fuzz's case 326, seed
    // 40). Flow 0's retransmission timer is due at 353.362320 ms, in 10-ms ticks from an ACK, and its
    // duplicate ACKs come every 0.5 ms on the same grid: one arrives at that very instant. The timer's
    // event was scheduled long before; delayed-send wake-ups then took the timer's place, and after the
    // last one the deadline came back to the same instant with a new event. Packet by packet the old
    // event pops first and the timeout precedes the ACK; judged against the new event, the sender took
    // the ACK first and measured one RTT more (`SenderAhead::superseded`).
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ahead/timer_superseded_then_due_again.json")).unwrap();
    compare_in_steps(&text, 1);
}

/// One NewReno flow on a dumbbell of round numbers, so that packets reach the receiver and ACKs the end
/// of the receiver's access link back exactly at sample times: 1500-byte packets take 1 ms on the
/// 12 Mbit/s bottleneck and 100 us on the 120 Mbit/s access links, 60-byte ACKs 4 us. `run_ms` long,
/// measured from its first quarter.
fn tie_config(src_access_ns: u64, dst_access_ns: u64, sample_ns: u64, run_ms: u64) -> String {
    json!({
        "packet_size": 1500,
        "ack_size": 60,
        "bottleneck": {"rate_bps": 12_000_000u64, "delay_ns": 10 * MS,
                       "queue": {"discipline": "droptail", "limit_packets": 30}},
        "flows": [{"cc": {"name": "newreno"}, "src_access_delay_ns": src_access_ns,
                   "dst_access_delay_ns": dst_access_ns, "access_rate_bps": 120_000_000u64}],
        "run": {"duration_ns": run_ms * MS, "measure_from_ns": run_ms * MS / 4, "seed": 3,
                "sample_interval_ns": sample_ns},
    })
    .to_string()
}

#[test]
fn a_sample_due_as_a_packet_reaches_the_receiver_reads_what_the_packet_by_packet_path_reads() {
    // The first packet reaches the receiver at 2 + 0.1 + 1 + 10 + 0.1 + 6.8 = 20 ms, a sample time. The
    // packet-by-packet path scheduled that arrival when the bottleneck took the packet (2.1 ms), before
    // the sample (scheduled at 19.9 ms): the sample sees the packet delivered.
    compare_in_steps(&tie_config(2 * MS, 6_800_000, 100_000, 60), 20);
}

#[test]
fn a_sample_due_as_an_ack_leaves_the_receivers_access_link_reads_what_the_packet_by_packet_path_reads() {
    // The first ACK reaches the end of the 7-ms link back at 4.796 + 0.1 + 1 + 10 + 0.1 + 7 + 0.004 + 7
    // = 30 ms, a sample time, and enters bottleneck.reverse then. Packet by packet it entered that link
    // when the data reached the receiver (22.996 ms), after the sample was scheduled (20 ms): the sample
    // reads bottleneck.reverse before the ACK. Taken ahead, the ACK entered at the hand-off (4.896 ms).
    compare_in_steps(&tie_config(4_796_000, 7 * MS, 10 * MS, 60), 20);
}

#[test]
fn samples_further_apart_than_a_hand_off_from_its_arrivals_keep_the_path_and_read_the_same_at_ties() {
    // From the hand-off of a packet that waited behind no other to its ACK's arrival at the end of the
    // link back: 1 + 10 ms, 0.1 + 7 ms, 0.004 + 7 ms: 25.104 ms. Samples every 26 ms are scheduled
    // before any hand-off whose arrivals the packet-by-packet path numbers after them; the first ACK
    // leaves the receiver's link exactly at the 52-ms sample (26.796 + 25.204 ms), and the queue fills.
    let (ahead, by_packet) = compare_in_steps(&tie_config(26_796_000, 7 * MS, 26 * MS, 600), 20);
    assert!(ahead < by_packet, "{ahead} events against {by_packet}: the path is not taken");
}

#[test]
fn samples_closer_than_the_way_from_the_bottleneck_keep_the_path_and_read_the_same_at_ties() {
    // A packet reaches the receiver at least 1 + 10 + 0.1 ms + dst after the bottleneck took it, longer
    // than these sample intervals: samples fall between hand-offs and arrivals, and each receipt says
    // whether its arrival fires before a sample due with it (`arrival_before_sample`). The first packet
    // arrives at src + dst + 11.2 ms and those of a burst 1 ms apart: at 15 ms (a sample time; its
    // arrival was numbered at the 3.1-ms hand-off, before the sample: read as delivered), then at 16 ms
    // with 2-ms samples (numbered when the packet before it arrived, at 15 ms, after the 16-ms sample was
    // scheduled at 14 ms: read as not yet delivered). With dst = 0.898 ms the first ACK reaches the
    // reverse bottleneck exactly at 16 ms; with src = 2.9 ms and 250-us samples the bottleneck's own
    // path stays packet by packet (samples closer than the sender's access link, `data_ahead`).
    for (src_ns, dst_ns, sample_ns) in [
        (3 * MS, 800_000, MS),
        (3 * MS, 800_000, 2 * MS),
        (2 * MS, 898_000, MS),
        (3 * MS, 898_000, 1_500_000),
        (2_900_000, 0, 250_000),
    ] {
        let (ahead, by_packet) = compare_in_steps(&tie_config(src_ns, dst_ns, sample_ns, 600), 20);
        assert!(ahead < by_packet, "{ahead} events against {by_packet}: the path is not taken ({src_ns}, {dst_ns}, {sample_ns})");
    }
}

#[test]
fn packets_and_acks_reach_both_bottlenecks_ahead_of_time_and_three_events_in_four_are_saved() {
    // Packet by packet a data packet takes four line passes with an event each (the sender's access
    // link, the receiver's, and the two links back before the sender's); ahead, one: its ACK's arrival
    // at the sender. Samples every 100 ms fall inside the 24-ms way from a hand-off to the ACK's arrival
    // at the reverse bottleneck: the packets and ACKs due after one wait for it.
    for (step_ms, sample_ms) in [(13, 100), (1000, 100), (1000, 0)] {
        let (ahead, by_packet) = compare_in_steps(&config("newreno", json!({}), sample_ms), step_ms);
        assert!(ahead * 3 < by_packet, "{ahead} events against {by_packet}: the path is not taken");
    }
}

#[test]
fn an_ack_whose_arrival_the_packet_by_packet_path_numbers_later_keeps_its_line() {
    // A paced BBR flow at 10 Mbit/s whose ACKs come further apart than the links back take: the
    // sender's access link back is often empty when an ACK reaches the reverse bottleneck, and the
    // packet-by-packet path numbers the ACK's arrival at the sender only then. Taken ahead, it was
    // numbered before a pacing timer due at the same nanosecond, and the sender sent one packet more by
    // 1.5 s (found by the fuzz, case 49 of CCLAB_AHEAD_SEED=7). Such ACKs keep the line (`take_ack`).
    let text = json!({
        "packet_size": 1500, "ack_size": 64,
        "bottleneck": {"rate_bps": 10_000_000u64, "delay_ns": MS, "loss_rate": 0.0,
                       "queue": {"discipline": "droptail", "limit_packets": 100}},
        "flows": [{"cc": "bbr", "recovery": "sack", "access_rate_bps": 20_000_000u64, "rto_min_ns": 200 * MS,
                   "src_access_delay_ns": 1_250_000u64, "dst_access_delay_ns": 7_500_000u64}],
        "run": {"duration_ns": 1_500 * MS, "measure_from_ns": 1, "record_loss_events": true,
                "sample_interval_ns": 333 * MS, "seed": 49},
    })
    .to_string();
    let (ahead, by_packet) = ahead::compare(&text, &[1_500 * MS]);
    assert!(ahead < by_packet, "{ahead} events against {by_packet}: the path is not taken");
}

#[test]
fn an_ack_reaching_the_reverse_bottleneck_as_a_step_ends_is_read_there_at_that_step() {
    // Series off and steps of 30 ms: the first ACK reaches the end of the 7-ms link back exactly at the
    // end of the first step (see the test above). Packet by packet its arrival fires within that step;
    // ahead it waited (due at the step's end, the next reading), and goes on before the step returns.
    let (ahead, by_packet) = ahead::compare(&tie_config(4_796_000, 7 * MS, 0, 300), &[30 * MS]);
    assert!(ahead < by_packet, "{ahead} events against {by_packet}: the path is not taken");
}

#[test]
fn a_sample_due_as_a_packet_reaches_the_bottleneck_over_a_long_access_link_reads_it_there() {
    // The first packet leaves the sender at 0 and reaches the bottleneck at 0.1 + 51.9 = 52 ms, the
    // second sample time (every 26 ms). Packet by packet its arrival was numbered when it was sent,
    // before that sample was scheduled (26 ms): the sample reads it at the bottleneck (bytes sent).
    // Taken ahead, it would have waited for that sample and been read after it: samples closer than
    // the sender's access link keep the bottleneck's packet-by-packet path (`data_ahead`), while the
    // receiver and its ACKs still take theirs.
    let (ahead, by_packet) = compare_in_steps(&tie_config(51_900_000, 500_000, 26 * MS, 600), 20);
    assert!(ahead < by_packet, "{ahead} events against {by_packet}: the path is not taken");
}

/// A paced lone flow whose ACKs are spaced exactly as long as an ACK takes from the reverse bottleneck
/// to the sender (12 ms: 40 us + 10 ms + 4 us + 1.956 ms), so each reaches `right -> left` as the one
/// before reaches the sender; round trips of whole pacing gaps put the sender's pacing timer on the
/// same nanoseconds as the ACKs' arrivals.
#[test]
fn acks_spaced_as_their_way_back_read_the_same() {
    for gap_ms in [12u64, 6, 24] {
        for dst_us in [5_420u64, 5_421, 2_420, 8_420, 11_420, 0, 1, 4] {
            for cc in ["newreno", "cubic"] {
                let text = json!({
                    "packet_size": 1500,
                    "ack_size": 60,
                    "bottleneck": {"rate_bps": 12_000_000u64, "delay_ns": 10 * MS,
                                   "queue": {"discipline": "droptail", "limit_packets": 30}},
                    "flows": [{"cc": {"name": cc}, "src_access_delay_ns": 1_956_000u64,
                               "dst_access_delay_ns": dst_us * 1000, "access_rate_bps": 120_000_000u64,
                               "pacing": {"burst": 1, "gap_ns": gap_ms * MS}}],
                    "run": {"duration_ns": 3_000 * MS, "measure_from_ns": 500 * MS, "seed": 3,
                            "sample_interval_ns": 100 * MS, "record_loss_events": true},
                })
                .to_string();
                for step in [1_000, 13] {
                    compare_in_steps(&text, step);
                }
            }
        }
    }
}

/// A dumbbell on a grid of 4 us: 1500-byte packets take 1 ms on its 12 Mbit/s bottleneck (`delay_ms` one
/// way, 8 packets of DropTail, `back` adds reverse-path fields), 60-byte ACKs 40 us there; `flows` ride
/// 120 Mbit/s access links (100 us per packet, 4 us per ACK). `run_ms` long, measured from 50 ms,
/// sampled every `sample_us`.
fn grid_config(delay_ms: u64, back: &Value, flows: Value, run_ms: u64, sample_us: u64) -> String {
    let mut bottleneck = json!({"rate_bps": 12_000_000u64, "delay_ns": delay_ms * MS,
                                "queue": {"discipline": "droptail", "limit_packets": 8}});
    bottleneck.as_object_mut().unwrap().extend(back.as_object().unwrap().clone());
    json!({
        "packet_size": 1500,
        "ack_size": 60,
        "bottleneck": bottleneck,
        "flows": flows,
        "run": {"duration_ns": run_ms * MS, "measure_from_ns": 50 * MS, "seed": 3,
                "sample_interval_ns": sample_us * 1000},
    })
    .to_string()
}

/// Samples closer than a packet's way from the bottleneck to the receiver, on a grid of 4 us (every
/// transmission and delay a multiple of it), so that packets reach the receiver at sample times often:
/// hand-offs exactly one interval before their arrival (no bottleneck delay, 1.1-ms samples), packets
/// whose predecessor arrived one interval before (1-ms samples, 1-ms transmissions), after it (2 ms),
/// or long before (8 us); the bottleneck taking packets ahead and by its own events (a 2-ms access link,
/// `data_ahead`); ACKs reaching the reverse bottleneck at sample times (dst = 0 or 1 ms), queueing there
/// (a reverse rate of 240 kbit/s, 2 ms per ACK), or keeping their lines (a lossy reverse bottleneck,
/// which does not hand off plainly: `samples_follow_acks` then refuses the path).
#[test]
fn samples_on_the_grid_of_every_arrival_read_the_same() {
    // The first packet reaches the bottleneck at src + 0.1 ms and the receiver 1.1 ms + delay + dst
    // later, the next ones 1 ms apart: (0, 800, 0) puts them on whole milliseconds, each one interval of
    // 1 ms after the one before; (0, 1000, 0) the first hand-off one interval of 1.1 ms before its arrival.
    let links = [(0u64, 0u64, 0u64), (0, 800, 0), (0, 1_000, 0), (0, 2_000, 0), (1, 0, 8), (10, 500, 0), (0, 1_000, 1_000)];
    let reverse = [json!({}), json!({"reverse_rate_bps": 240_000u64}), json!({"reverse_models": {"loss": {"bernoulli": 0.02}}})];
    for (k, (delay_ms, src_us, dst_us)) in links.into_iter().enumerate() {
        // On the 1-ms link back an ACK takes 1.004 ms: 4-us samples meet every ACK there, and the path
        // stays packet by packet (its ACKs are not marked, `samples_follow_acks`).
        let samples: &[u64] = if dst_us == 1_000 { &[4, 1_000, 2_000] } else { &[8, 1_000, 1_100, 1_200, 2_000] };
        for &sample_us in samples {
            let cc = ["newreno", "cubic"][k % 2];
            for back in &reverse {
                let flow = json!({"cc": {"name": cc}, "src_access_delay_ns": src_us * 1000,
                                  "dst_access_delay_ns": dst_us * 1000, "access_rate_bps": 120_000_000u64});
                let text = grid_config(delay_ms, back, json!([flow]), 200, sample_us);
                ahead::compare(&text, &[7 * MS, 100 * MS]);
            }
        }
    }
}

/// Several flows' senders take ACKs past samples that are still to come, keeping their rows for them
/// (`sim/sender_rows.rs`). On a grid of 4 us (1-ms packets on the 12 Mbit/s bottleneck, 100-us packets
/// and 4-us ACKs on the 120 Mbit/s access links, 40-us ACKs back) ACKs reach their senders exactly at
/// sample times, handed on more than an interval before (a 5-ms bottleneck delay: the ACK fires first
/// and the sample reads the sender after it) or less (no delay: the sample was scheduled first and reads
/// the kept row). With access delays adding up to 376 us (1376 and 3376 for the other flows), every ACK
/// reaches its sender 248 us of transmissions, each access delay twice and whole milliseconds after
/// time 0 (248 + 2 x 376 = 1000 us): on the grid of 1-ms samples. Each of
/// the two tie orders got wrong (always the ACK, always the sample) fails this test. With a 2-ms reverse
/// rate ACKs queue at the reverse bottleneck and are handed on long before they arrive.
#[test]
fn senders_taking_acks_past_samples_on_the_grid_of_every_arrival_read_the_same() {
    let mut taken = 0;
    for (k, (src_us, dst_us)) in [(0u64, 0u64), (0, 1_000), (1_000, 0), (0, 376)].into_iter().enumerate() {
        for delay_ms in [0u64, 5] {
            for sample_us in [1_000u64, 1_100, 2_000] {
                for back in [json!({}), json!({"reverse_rate_bps": 240_000u64})] {
                    let flow = |cc: &str, extra_ms: u64| {
                        json!({"cc": {"name": cc}, "src_access_delay_ns": src_us * 1000 + extra_ms * MS,
                               "dst_access_delay_ns": dst_us * 1000, "access_rate_bps": 120_000_000u64})
                    };
                    let flows = json!([flow("newreno", 0), flow(["cubic", "htcp"][k % 2], 1), flow("newreno", 3)]);
                    let text = grid_config(delay_ms, &back, flows, 400, sample_us);
                    let (ahead, by_packet) = ahead::compare(&text, &[7 * MS, 100 * MS]);
                    taken += (ahead < by_packet) as u32;
                }
            }
        }
    }
    // Flows whose senders' access links are slower than the samples keep the packet-by-packet path.
    assert!(taken >= 40, "the path was taken in {taken} of 48 runs");
}
