//! Per-flow RTT histograms (`run.rtt_histogram`, seed 002's Figs. 4-5 weighted by ACK): kept only when a
//! run asks, over the measurement window, and keeping them changes nothing else in the run.

use cclab_engine::sim::Simulation;
use serde_json::json;

const MS: u64 = 1_000_000;

/// Two NewReno flows on a 10 Mbit/s dumbbell, 20 ms base RTT (2 x (2 + 5 + 3) ms), a 20-packet DropTail
/// queue, 10 s measured from 2 s: the queue fills and drains, so the RTTs spread over 20-45 ms.
fn config(histogram: Option<bool>) -> String {
    let flow = json!({
        "cc": {"name": "newreno"},
        "src_access_delay_ns": 2 * MS,
        "dst_access_delay_ns": 3 * MS,
        "access_rate_bps": 100_000_000u64,
    });
    let mut run = json!({"duration_ns": 10_000 * MS, "measure_from_ns": 2_000 * MS, "seed": 1,
                         "sample_interval_ns": 100 * MS});
    if let Some(histogram) = histogram {
        run["rtt_histogram"] = json!(histogram);
    }
    json!({
        "packet_size": 1500,
        "bottleneck": {"rate_bps": 10_000_000u64, "delay_ns": 5 * MS,
                       "queue": {"discipline": "droptail", "limit_packets": 20}},
        "flows": [flow.clone(), flow],
        "run": run,
    })
    .to_string()
}

fn run(histogram: Option<bool>) -> Simulation {
    let mut sim = Simulation::from_json(&config(histogram)).unwrap();
    sim.run().expect("the run finishes");
    sim
}

#[test]
fn rtt_histograms_are_absent_unless_the_run_asks() {
    assert!(run(None).rtt_histograms().is_none(), "off by default");
    assert!(run(Some(false)).rtt_histograms().is_none());
}

#[test]
fn the_histograms_hold_the_window_s_measurements_and_change_nothing_else() {
    let off = run(None);
    let on = run(Some(true));
    assert_eq!(on.events_processed(), off.events_processed());
    let summary = |sim: &Simulation| serde_json::to_string(&sim.summary()).unwrap();
    assert_eq!(summary(&on), summary(&off));

    let histograms = on.rtt_histograms().expect("kept");
    let flows = on.summary().flows;
    assert_eq!(histograms.len(), 2);
    for (flow, h) in flows.iter().zip(&histograms) {
        // The summary's mean_rtt_s is the mean of the same measurements over the same window (from 2 s):
        // the histogram keeps their exact sum, so the two means agree to float rounding.
        let mean_s = h.mean_ns().expect("measured") * 1e-9;
        let summary_mean_s = flow.mean_rtt_s.expect("measured");
        assert!((mean_s - summary_mean_s).abs() < 1e-12, "flow {}: {mean_s} vs {summary_mean_s}", flow.flow);
        let buckets = h.buckets();
        assert_eq!(buckets.iter().map(|b| b.count).sum::<u64>(), h.count());
        // No measurement below the 20 ms base RTT (plus two 1500-byte serialisations at 10 Mbit/s, 1.2 ms
        // each, and the access links'); none above 20 ms + 20 queued packets x 1.2 ms + slack = 60 ms.
        assert!(buckets[0].low_ns >= 20 * MS && buckets.last().unwrap().high_ns <= 60 * MS);
        assert!(buckets.windows(2).all(|w| w[0].high_ns < w[1].low_ns), "disjoint, in order");
    }
}
