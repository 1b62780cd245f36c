//! The bottleneck's cumulative bytes on the wire in the queue and link series (`bytes_tx`): what a
//! measurement window's utilisation is computed from (python/cclab/measures.py), so it must never show
//! more than the link can carry, and must agree with the summary's utilisation over the same window.

use cclab_engine::Simulation;
use serde_json::json;

const MS: u64 = 1_000_000;

/// One NewReno flow on a 10 Mbit/s, 20 ms dumbbell with a 1 BDP buffer, sampled every 100 ms for 20 s,
/// measured from 5 s.
fn run() -> Simulation {
    let config = json!({
        "packet_size": 1500,
        "bottleneck": {"rate_bps": 10_000_000u64, "delay_ns": 20 * MS,
                       "queue": {"discipline": "droptail", "limit_packets": 40}, "loss_rate": 0.0},
        "flows": [{"cc": "newreno", "src_access_delay_ns": MS, "dst_access_delay_ns": MS,
                   "access_rate_bps": 100_000_000u64}],
        "run": {"duration_ns": 20_000 * MS, "measure_from_ns": 5_000 * MS, "seed": 1, "sample_interval_ns": 100 * MS},
    });
    let mut sim = Simulation::from_json(&config.to_string()).unwrap();
    sim.run().expect("the run completes");
    sim
}

#[test]
fn bytes_on_the_wire_never_exceed_the_capacity_of_a_sampling_interval_by_more_than_one_packet() {
    let sim = run();
    let q = sim.queue_series();
    assert_eq!(q.bytes_tx.len(), q.time_s.len());
    // 10 Mbit/s x 0.1 s = 1,000,000 bits = 125,000 bytes; a packet counts when its transmission starts,
    // so an interval can hold the start of at most one packet (1500 B) more than it can carry.
    for pair in q.bytes_tx.windows(2) {
        assert!(pair[1] >= pair[0], "bytes on the wire went down: {pair:?}");
        assert!(pair[1] - pair[0] <= 125_000 + 1500, "{} bytes in 100 ms on 10 Mbit/s", pair[1] - pair[0]);
    }
    // The flow fills the link in the end: over the last second (10 intervals), at least 1,250,000 bytes
    // less the one packet the window's start may have counted early.
    let n = q.bytes_tx.len();
    assert!(q.bytes_tx[n - 1] - q.bytes_tx[n - 11] >= 1_250_000 - 1500);
}

#[test]
fn bytes_on_the_wire_agree_with_the_summary_utilisation_and_the_link_series() {
    let sim = run();
    let q = sim.queue_series();
    // Samples at 0, 0.1, ..., 20 s: 5 s is sample 50 and 20 s the last.
    let at = |t_s: f64| q.time_s.iter().position(|&t| (t - t_s).abs() < 1e-9).expect("a sample at t");
    let window_bytes = q.bytes_tx[at(20.0)] - q.bytes_tx[at(5.0)];
    // Capacity over [5, 20] s: 10 Mbit/s x 15 s = 150,000,000 bits.
    let utilisation = (window_bytes * 8) as f64 / 150_000_000.0;
    assert_eq!(utilisation, sim.summary().bottleneck.utilization);
    // The link series' bottleneck (link 0) holds the same counter.
    let ls = sim.link_series();
    let bottleneck: Vec<u64> = ls.link.iter().zip(&ls.bytes_tx).filter(|(&l, _)| l == 0).map(|(_, &b)| b).collect();
    assert_eq!(bottleneck, q.bytes_tx);
}
