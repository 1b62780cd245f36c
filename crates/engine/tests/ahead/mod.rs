//! Shared by the receiving-ahead tests (`receiving_ahead*.rs`): a scenario run both ways, the receiver
//! taking packets ahead and packet by packet (`Simulation::without_receiving_ahead`), and every reading
//! compared.
#![allow(dead_code)] // each test file uses its own part

use cclab_engine::sim::Simulation;
use cclab_engine::time::SimTime;
use serde_json::{json, Value};

/// The summary as JSON without its event count, which is what receiving ahead saves.
pub fn summary_without_events(sim: &Simulation) -> Value {
    let mut s = serde_json::to_value(sim.summary()).unwrap();
    s.as_object_mut().unwrap().remove("events");
    s
}

/// Every reading of the two runs, after a step to `t`.
pub fn assert_same(ahead: &Simulation, by_packet: &Simulation, what: &str) {
    assert_eq!(ahead.now(), by_packet.now(), "{what}");
    assert_eq!(ahead.flow_progress(), by_packet.flow_progress(), "progress {what}");
    assert_eq!(ahead.data_packet_census(), by_packet.data_packet_census(), "census {what}");
    assert_eq!(ahead.cwnds(), by_packet.cwnds(), "cwnds {what}");
    assert_eq!(summary_without_events(ahead), summary_without_events(by_packet), "summary {what}");
    let levels = |sim: &Simulation| format!("{:?}", sim.queue_levels());
    assert_eq!(levels(ahead), levels(by_packet), "queue levels {what}");
    let rest = |sim: &Simulation| {
        let loss = sim.loss_event_times().map(|v| v.iter().map(|t| t.to_vec()).collect::<Vec<_>>());
        let hist = format!("{:?}", sim.rtt_histograms().map(|h| h.iter().map(|h| h.buckets()).collect::<Vec<_>>()));
        serde_json::to_string(&(sim.flow_series(), sim.queue_series(), sim.link_series(), loss, hist)).unwrap()
    };
    assert!(rest(ahead) == rest(by_packet), "series, loss events or RTT histograms {what}");
}

/// The scenario built twice: taking packets ahead, and packet by packet.
pub fn both_ways(text: &str) -> (Simulation, Simulation) {
    let ahead = Simulation::from_json(text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let mut by_packet = Simulation::from_json(text).unwrap();
    by_packet.without_receiving_ahead();
    (ahead, by_packet)
}

/// The six link models, each as the fields a link takes (`models` or `loss_rate`), with a delay that
/// changes to `later_delay_ns` at 700 ms and a rate that falls to `later_rate_bps` at 600 ms.
pub fn link_models(later_delay_ns: u64, later_rate_bps: u64) -> Vec<(&'static str, Value)> {
    const MS: u64 = 1_000_000;
    vec![
        ("delay schedule", json!({"models": {"delay_schedule": {"at_ns": [0, 700 * MS], "delay_ns": [3 * MS, later_delay_ns]}}})),
        ("loss", json!({"models": {"loss": {"bernoulli": 0.01}}})),
        ("errors", json!({"loss_rate": 0.01})),
        ("outages", json!({"models": {"outages": {"gap_ns": {"fixed": 300 * MS}, "duration_ns": {"fixed": 50 * MS}}}})),
        ("rates", json!({"models": {"rate_model": {"schedule": {"at_ns": [0, 600 * MS], "rate_bps": [100_000_000u64, later_rate_bps]}}}})),
        ("arq", json!({"models": {"arq": {"loss": {"bernoulli": 0.1}, "retry_delay_ns": 5 * MS, "max_attempts": 4}}})),
    ]
}

/// Runs `text` both ways to each time of `steps` (ns, in the order given, repeated until the end),
/// comparing after each; returns the event counts (ahead, packet by packet).
pub fn compare(text: &str, steps: &[u64]) -> (u64, u64) {
    let (mut ahead, mut by_packet) = both_ways(text);
    assert_same(&ahead, &by_packet, "before running");
    let mut t = 0u64;
    let mut k = 0;
    while !ahead.is_done() {
        t = t.saturating_add(steps[k % steps.len()]);
        k += 1;
        ahead.run_until(SimTime(t)).unwrap();
        by_packet.run_until(SimTime(t)).unwrap();
        assert_same(&ahead, &by_packet, &format!("at {t} ns"));
    }
    (ahead.events_processed(), by_packet.events_processed())
}
