//! Errors a run can only meet while running: they come back from `run_until` as a `RunError`, never as a
//! panic or a silently wrong result.

use cclab_engine::event::MAX_EVENTS_SCHEDULED;
use cclab_engine::time::SimTime;
use cclab_engine::{RunError, Simulation};
use serde_json::json;

const MS: u64 = 1_000_000;

/// One NewReno flow over a 10 Mbit/s, 10 ms bottleneck for 1 s.
fn one_flow() -> Simulation {
    let config = json!({
        "packet_size": 1500,
        "bottleneck": {"rate_bps": 10_000_000u64, "delay_ns": 10 * MS,
                       "queue": {"discipline": "droptail", "limit_packets": 100}},
        "flows": [{"cc": {"name": "newreno"}, "src_access_delay_ns": MS, "dst_access_delay_ns": MS,
                   "access_rate_bps": 100_000_000u64}],
        "run": {"duration_ns": 1000 * MS, "measure_from_ns": 0, "seed": 1, "sample_interval_ns": 100 * MS},
    });
    Simulation::from_json(&config.to_string()).unwrap()
}

#[test]
fn running_out_of_event_numbers_is_an_error_that_stays() {
    // Start 10 numbers short of the limit: the first 100 ms hold about five round trips of 24 ms and some
    // 70 packets, each with at least one event (its ACK's arrival), so the first step fails.
    let mut sim = one_flow();
    sim.skip_event_sequence_to(MAX_EVENTS_SCHEDULED - 10);
    let first = sim.run_until(SimTime(100 * MS)).unwrap_err();
    let RunError::EventSequenceExhausted { scheduled, at } = first.clone();
    assert!(scheduled > MAX_EVENTS_SCHEDULED, "{scheduled}");
    assert_eq!(at, SimTime(100 * MS));
    let message = first.to_string();
    assert!(message.starts_with("the run scheduled 549755813"), "{message}");
    assert!(message.contains("more than the 549755813888 (2^39) the event queue can keep in order"), "{message}");
    // A later call refuses at once, without firing anything.
    let events = sim.events_processed();
    assert_eq!(sim.run(), Err(first));
    assert_eq!(sim.events_processed(), events);
    assert_eq!(sim.now(), SimTime(100 * MS));
}

#[test]
fn a_run_that_stays_under_the_limit_is_fine() {
    // The same run numbered from 0 schedules hundreds of events (about 800 packets, one event each on
    // the lone flow's path ahead, docs/benchmarks.md run 26): no error.
    let mut sim = one_flow();
    assert_eq!(sim.run(), Ok(()));
    assert!(sim.events_processed() > 500, "{}", sim.events_processed());
}
