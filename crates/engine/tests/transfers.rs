//! Finite transfers (`size_bytes`) and window-limited flows (`rwnd_packets`, `cwnd_clamp_packets`) on an
//! idle link, against slow-start and window arithmetic worked out by hand.

use cclab_engine::Simulation;
use serde_json::{json, Value};

const MS: u64 = 1_000_000;
/// Payload of a 1500-byte packet with 40 bytes of headers.
const PAYLOAD: u64 = 1460;

/// Two nodes joined by a 10 Mbit/s link with 25 ms each way and no queue limit: nothing is ever dropped,
/// and the only delays are serialisation and propagation.
fn idle_link(flow: Value, duration_ns: u64, measure_from_ns: u64) -> Value {
    let link = |name: &str, from: &str, to: &str| {
        json!({"name": name, "from": from, "to": to, "rate_bps": 10_000_000u64, "delay_ns": 25 * MS})
    };
    json!({
        "packet_size": 1500,
        "topology": {"links": [link("a-b", "a", "b"), link("b-a", "b", "a")]},
        "flows": [flow],
        "run": {"duration_ns": duration_ns, "measure_from_ns": measure_from_ns, "seed": 1, "sample_interval_ns": 0},
    })
}

fn run(cfg: &Value) -> Value {
    let mut sim = Simulation::from_json(&cfg.to_string()).unwrap_or_else(|e| panic!("{e}"));
    sim.run();
    serde_json::to_value(sim.summary()).unwrap()["flows"][0].clone()
}

/// Slow start from an initial window of 2, no handshake, one ACK per packet, NewReno counting packets
/// (cwnd + 1 per packet acknowledged, so each ACK releases two packets):
///
/// - T = 1500 B * 8 / 10 Mbit/s = 1.2 ms to send a data packet;
///   R = 25 ms + 40 B * 8 / 10 Mbit/s (0.032 ms) + 25 ms = 50.032 ms from a data packet's last bit
///   leaving the sender to its ACK reaching the sender.
/// - Round r starts when the first ACK of round r - 1 arrives, at r (T + R), and its packets then leave
///   back to back (ACKs come every T, each releasing two packets, so the link never idles): rounds of
///   2, 4, 8 and 6 packets for 20 packets.
/// - The last packet is the 6th of round 3: it leaves at 3 (T + R) + 6 T and is acknowledged R later:
///   completion = 3 (T + R) + 6 T + R = 3 * 51.232 + 7.2 + 50.032 = 210.928 ms.
#[test]
fn completion_time_of_20_packets_is_the_slow_start_arithmetic() {
    let flow = json!({"cc": "newreno", "route": ["a", "b"], "size_bytes": 20 * PAYLOAD});
    let f = run(&idle_link(flow, 2000 * MS, 0));
    assert_eq!(f["completion_time_s"], json!(0.210928));
    assert_eq!(f["start_s"], json!(0.0));
    assert_eq!(f["end_s"], json!(0.210928));
    assert_eq!(f["size_bytes"], json!(20 * PAYLOAD));
    assert_eq!(f["bytes"], json!(20 * PAYLOAD));
    assert_eq!(f["packets_sent"], json!(20));
    assert_eq!(f["retransmissions"], json!(0));
}

#[test]
fn a_short_last_segment_is_sent_whole_and_counted_by_its_bytes() {
    // 20 * 1460 - 100 bytes still needs 20 segments: the same rounds, the same completion time; the record
    // counts the bytes written, not the 20 full payloads on the wire.
    let size = 20 * PAYLOAD - 100;
    let flow = json!({"cc": "newreno", "route": ["a", "b"], "size_bytes": size, "start_ns": 100 * MS});
    let f = run(&idle_link(flow, 2000 * MS, 0));
    assert_eq!(f["completion_time_s"], json!(0.210928));
    assert_eq!(f["start_s"], json!(0.1));
    assert_eq!(f["bytes"], json!(size));
    assert_eq!(f["packets_sent"], json!(20));
}

#[test]
fn one_packet_takes_one_round_trip() {
    // 1 byte: one segment, T + R = 1.2 + 50.032 = 51.232 ms.
    let flow = json!({"cc": "cubic", "route": ["a", "b"], "size_bytes": 1});
    let f = run(&idle_link(flow, 2000 * MS, 0));
    assert_eq!(f["completion_time_s"], json!(0.051232));
    assert_eq!(f["bytes"], json!(1));
}

#[test]
fn an_unfinished_transfer_has_no_end_yet() {
    // 10^6 segments cannot finish in 1 s at 10 Mbit/s (about 830 packets/s).
    let flow = json!({"cc": "newreno", "route": ["a", "b"], "size_bytes": 1_000_000 * PAYLOAD});
    let f = run(&idle_link(flow, 1000 * MS, 0));
    assert_eq!(f["completion_time_s"], Value::Null);
    assert_eq!(f["end_s"], Value::Null);
    assert!(f["bytes"].as_u64().unwrap() > 0);
}

#[test]
fn bulk_flows_report_no_record() {
    let flow = json!({"cc": "newreno", "route": ["a", "b"]});
    let f = run(&idle_link(flow, 500 * MS, 0));
    assert!(f.get("completion_time_s").is_none() && f.get("start_s").is_none(), "{f}");
}

/// A receiver window of 4 packets, far below the path's 42-packet BDP: once slow start has reached the
/// window, every ACK releases one packet onto an idle link, so 4 packets leave per T + R = 51.232 ms:
/// 4 * 1460 * 8 bit / 51.232 ms = 912,008 bit/s of goodput. The 10 s window from 1 s to 11 s holds
/// 10 / 0.051232 = 195.19 such rounds; the 4 packets of a round arrive 1.2 ms apart, so the window's
/// edges take between 4 * 195 = 780 and 4 * 196 = 784 of them.
#[test]
fn a_receiver_window_caps_the_flow() {
    let flow = json!({"cc": "newreno", "route": ["a", "b"], "rwnd_packets": 4});
    let f = run(&idle_link(flow, 11_000 * MS, 1000 * MS));
    let packets = (f["goodput_bps"].as_f64().unwrap() * 10.0 / (PAYLOAD * 8) as f64).round() as u64;
    assert!((780..=784).contains(&packets), "{packets} packets delivered in 10 s");
    let sent = f["packets_sent"].as_u64().unwrap();
    assert!((780..=784).contains(&sent), "{sent} packets sent in 10 s");
}

/// A cwnd clamp of 4 on the same idle link: slow start stops at cwnd 4 and nothing is ever lost, so the
/// window is 4 packets for the whole run and the flow is the receiver-window flow above, to the packet:
/// 780 to 784 packets in the 10 s window.
#[test]
fn a_cwnd_clamp_caps_a_lossless_flow_as_a_receiver_window_does() {
    let flow = json!({"cc": "newreno", "route": ["a", "b"], "cwnd_clamp_packets": 4});
    let f = run(&idle_link(flow, 11_000 * MS, 1000 * MS));
    let packets = (f["goodput_bps"].as_f64().unwrap() * 10.0 / (PAYLOAD * 8) as f64).round() as u64;
    assert!((780..=784).contains(&packets), "{packets} packets delivered in 10 s");
}

#[test]
fn a_cwnd_clamp_of_zero_is_refused_by_name() {
    let flow = json!({"cc": "newreno", "route": ["a", "b"], "cwnd_clamp_packets": 0});
    let e = Simulation::from_json(&idle_link(flow, 1000 * MS, 0).to_string()).err().expect("refused");
    assert_eq!(e.field, "flows.0.cwnd_clamp");
}

/// 25 window-limited flows (64 packets) whose starts are drawn uniformly from [0, 100 s] and whose lives
/// are exponential with a 20 s mean, as seed 003's small TCP flows.
fn drawn_group(seed: u64) -> Value {
    let flow = json!({"cc": "newreno", "src_access_delay_ns": MS, "dst_access_delay_ns": MS,
                      "access_rate_bps": 1_000_000_000u64, "rwnd_packets": 64, "group": "small",
                      "start_draw_ns": {"uniform": [0, 100_000 * MS]}, "duration_draw_ns": {"exponential": 2e10}});
    json!({
        "packet_size": 1500,
        "bottleneck": {"rate_bps": 100_000_000u64, "delay_ns": 20 * MS,
                       "queue": {"discipline": "droptail", "limit_packets": 500}},
        "flows": vec![flow; 25],
        "run": {"duration_ns": 150_000 * MS, "seed": seed, "sample_interval_ns": 0},
    })
}

fn lives(seed: u64) -> Vec<(f64, f64)> {
    let mut sim = Simulation::from_json(&drawn_group(seed).to_string()).unwrap();
    sim.run();
    let s = serde_json::to_value(sim.summary()).unwrap();
    s["flows"].as_array().unwrap().iter().map(|f| (f["start_s"].as_f64().unwrap(), f["end_s"].as_f64().unwrap())).collect()
}

#[test]
fn drawn_starts_and_lives_follow_the_seed() {
    let a = lives(1);
    assert_eq!(a, lives(1), "same seed, same lives");
    assert_ne!(a, lives(2), "another seed, other lives");
    for (start, end) in &a {
        assert!((0.0..=100.0).contains(start), "start {start}");
        assert!(end > start, "end {end} after start {start}");
    }
    // 25 flows of their own streams: no two draw the same start.
    let mut starts: Vec<f64> = a.iter().map(|l| l.0).collect();
    starts.sort_by(f64::total_cmp);
    starts.dedup();
    assert_eq!(starts.len(), 25);
}

/// Ten packets in the initial window (initial_cwnd 10) on the idle link. Unpaced they leave back to back:
/// the last leaves at 10 T = 12 ms and is acknowledged at 12 + 50.032 = 62.032 ms. With at most 2 back
/// to back and a 5 ms gap, pairs leave at 0, 5, 10, 15 and 20 ms (each pair is on the wire for 2.4 ms,
/// less than the gap, so no queue forms): the last leaves at 20 + 2 T = 22.4 ms and is acknowledged at
/// 22.4 + 50.032 = 72.432 ms, before which no ACK could release anything (the first returns at 51.232 ms).
#[test]
fn at_most_two_packets_leave_back_to_back() {
    let flow = |pacing: Value| {
        let mut f = json!({"cc": "newreno", "route": ["a", "b"], "size_bytes": 10 * PAYLOAD, "initial_cwnd": 10});
        if !pacing.is_null() {
            f["pacing"] = pacing;
        }
        run(&idle_link(f, 1000 * MS, 0))["completion_time_s"].as_f64().unwrap()
    };
    assert_eq!(flow(Value::Null), 0.062032);
    assert_eq!(flow(json!({"burst": 2, "gap_ns": 5 * MS})), 0.072432);
    // A jitter of up to 1 ms on each of the 4 gaps: done between 72.432 and 76.432 ms, later than without.
    let jittered = flow(json!({"burst": 2, "gap_ns": 5 * MS, "jitter_ns": MS}));
    assert!(jittered > 0.072432 && jittered <= 0.076432, "{jittered}");
}
