//! Randomised start times (`start_jitter_ns`): drawn from the run's seed, inside [start, start + jitter],
//! the same for the same seed and different across seeds.

use cclab_engine::sim::Simulation;
use serde_json::json;

const MS: u64 = 1_000_000;

/// Two NewReno flows on an idle 10 Mbit/s link, both asked to start at 100 ms with a 500 ms jitter.
fn config(seed: u64, jitter_ns: u64) -> String {
    let flow = json!({
        "cc": {"name": "newreno"},
        "src_access_delay_ns": MS,
        "dst_access_delay_ns": MS,
        "access_rate_bps": 100_000_000u64,
        "start_ns": 100 * MS,
        "start_jitter_ns": jitter_ns,
    });
    json!({
        "packet_size": 1500,
        "bottleneck": {"rate_bps": 10_000_000u64, "delay_ns": 10 * MS,
                       "queue": {"discipline": "droptail", "limit_packets": 100}},
        "flows": [flow.clone(), flow],
        "run": {"duration_ns": 1000 * MS, "measure_from_ns": 0, "seed": seed, "sample_interval_ns": MS},
    })
    .to_string()
}

/// Per flow, the first sample time (ms) at which it has data in flight: its start, to the 1 ms sample.
fn starts_ms(seed: u64, jitter_ns: u64) -> Vec<u64> {
    let mut sim = Simulation::from_json(&config(seed, jitter_ns)).unwrap();
    sim.run().expect("the run finishes");
    let s = sim.flow_series();
    (0..2u32)
        .map(|flow| {
            let row = (0..s.time_s.len()).find(|&r| s.flow[r] == flow && s.in_flight[r] > 0).unwrap();
            (s.time_s[row] * 1000.0).round() as u64
        })
        .collect()
}

#[test]
fn without_jitter_both_flows_start_on_time() {
    // The flow-start event at 100 ms runs before the sample taken at the same instant.
    assert_eq!(starts_ms(1, 0), vec![100, 100]);
}

#[test]
fn jittered_starts_lie_in_the_window_and_follow_the_seed() {
    let a = starts_ms(1, 500 * MS);
    assert_eq!(a, starts_ms(1, 500 * MS), "same seed, same starts");
    for start in &a {
        assert!((100..=600).contains(start), "start {start} ms outside [100, 600] ms");
    }
    assert_ne!(a[0], a[1], "the two flows draw from their own streams");
    let seeds: Vec<Vec<u64>> = (2..6).map(|seed| starts_ms(seed, 500 * MS)).collect();
    assert!(seeds.iter().any(|s| *s != a), "other seeds give other starts");
}
