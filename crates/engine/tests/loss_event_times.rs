//! Loss-event times (`run.record_loss_events`, seed 003's synchronisation ratio): kept only when a run
//! asks for them, since they grow by 8 bytes per event, and keeping them changes nothing else in the run.

use cclab_engine::sim::Simulation;
use serde_json::json;

const MS: u64 = 1_000_000;

/// Three NewReno flows on a 10 Mbit/s, 20 ms RTT dumbbell with a 20-packet DropTail queue, 20 s: the
/// window overflows the 17-packet BDP + 20-packet queue every few seconds, so each flow loses repeatedly.
fn config(record: Option<bool>) -> String {
    let flow = json!({
        "cc": {"name": "newreno"},
        "src_access_delay_ns": 2 * MS,
        "dst_access_delay_ns": 3 * MS,
        "access_rate_bps": 100_000_000u64,
    });
    let mut run = json!({"duration_ns": 20_000 * MS, "measure_from_ns": 0, "seed": 1, "sample_interval_ns": 100 * MS});
    if let Some(record) = record {
        run["record_loss_events"] = json!(record);
    }
    json!({
        "packet_size": 1500,
        "bottleneck": {"rate_bps": 10_000_000u64, "delay_ns": 5 * MS,
                       "queue": {"discipline": "droptail", "limit_packets": 20}},
        "flows": [flow.clone(), flow.clone(), flow],
        "run": run,
    })
    .to_string()
}

fn run(record: Option<bool>) -> Simulation {
    let mut sim = Simulation::from_json(&config(record)).unwrap();
    sim.run().expect("the run finishes");
    sim
}

#[test]
fn loss_event_times_are_absent_unless_the_run_asks() {
    assert!(run(None).loss_event_times().is_none(), "off by default");
    assert!(run(Some(false)).loss_event_times().is_none());
}

#[test]
fn recorded_times_match_the_counts_and_change_nothing_else() {
    let off = run(None);
    let on = run(Some(true));
    // The same run event for event: recording only appends to a list.
    assert_eq!(on.events_processed(), off.events_processed());
    let summary = |sim: &Simulation| serde_json::to_string(&sim.summary()).unwrap();
    assert_eq!(summary(&on), summary(&off));

    let times = on.loss_event_times().expect("recorded");
    let flows = on.summary().flows;
    assert_eq!(times.len(), 3);
    for (flow, t) in flows.iter().zip(&times) {
        // Measured from 0, the summary counts every fast-recovery entry; a timeout taken from Open is an
        // event too, so the times number between the recoveries and the recoveries plus the timeouts.
        assert!(flow.loss_events >= 3, "flow {} lost only {} times: the scenario must lose", flow.flow, flow.loss_events);
        assert!(t.len() as u64 >= flow.loss_events && t.len() as u64 <= flow.loss_events + flow.timeouts);
        assert!(t.windows(2).all(|w| w[0] <= w[1]), "in time order");
        assert!(t.iter().all(|&ns| ns <= 20_000 * MS), "inside the run");
    }
}
