//! A receiver behind its own plain access link takes each data packet when the bottleneck hands it to
//! that link, as of its arrival (`Simulation::receive_at_hand_off`, docs/benchmarks.md run 24). For a
//! flow alone on the network nothing may change but the event count: every summary, series, census and
//! progress reading, at every step of a run read in steps, equals what the packet-by-packet path gives.

use cclab_engine::sim::Simulation;
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

/// The summary as JSON without its event count, which is what the change saves.
fn summary_without_events(sim: &Simulation) -> Value {
    let mut s = serde_json::to_value(sim.summary()).unwrap();
    s.as_object_mut().unwrap().remove("events");
    s
}

/// Run `text` both ways in steps of `step_ms`, comparing every reading after each step; returns the
/// event counts (ahead, packet by packet).
fn compare_in_steps(text: &str, step_ms: u64) -> (u64, u64) {
    let mut ahead = Simulation::from_json(text).unwrap();
    let mut by_packet = Simulation::from_json(text).unwrap();
    by_packet.without_receiving_ahead();
    let mut t = 0;
    while !ahead.is_done() {
        t += step_ms * MS;
        ahead.run_until(cclab_engine::time::SimTime(t)).unwrap();
        by_packet.run_until(cclab_engine::time::SimTime(t)).unwrap();
        assert_eq!(ahead.flow_progress(), by_packet.flow_progress(), "progress at {t} ns");
        assert_eq!(ahead.data_packet_census(), by_packet.data_packet_census(), "census at {t} ns");
        assert_eq!(summary_without_events(&ahead), summary_without_events(&by_packet), "summary at {t} ns");
    }
    let series = |sim: &Simulation| serde_json::to_string(&(sim.flow_series(), sim.queue_series(), sim.link_series())).unwrap();
    assert_eq!(series(&ahead), series(&by_packet), "series");
    (ahead.events_processed(), by_packet.events_processed())
}

#[test]
fn a_lone_flow_reads_the_same_at_every_step_with_one_event_less_per_packet() {
    for cc in ["newreno", "cubic", "bbr"] {
        // Steps of 13 ms (shorter than the 7-ms access link's look-ahead plus queueing) and of 1 s; samples
        // every 100 ms and every 1 ms (a reading due between a packet's hand-off and its arrival).
        for (step_ms, sample_ms) in [(13, 100), (1000, 1), (1000, 100)] {
            let (ahead, by_packet) = compare_in_steps(&config(cc, json!({}), sample_ms), step_ms);
            let saved = by_packet - ahead;
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
fn runs_of_several_flows_keep_the_packet_by_packet_order() {
    // Two flows: an ACK numbered ahead of time could reorder a tie between the flows (run 22c).
    let one = config("newreno", json!({}), 100);
    let mut two: Value = serde_json::from_str(&one).unwrap();
    let flow = two["flows"][0].clone();
    two["flows"].as_array_mut().unwrap().push(flow);
    let (ahead, by_packet) = compare_in_steps(&two.to_string(), 500);
    assert_eq!(ahead, by_packet);
}
