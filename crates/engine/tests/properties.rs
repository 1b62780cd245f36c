//! Invariants over random small dumbbells (proptest): packets are conserved, windows stay sane, time
//! never goes backwards, a seed fixes the result bit for bit, and different seeds differ where the
//! scenario has randomness.

use cclab_engine::time::SimTime;
use cclab_engine::Simulation;
use proptest::prelude::*;
use serde_json::json;

#[derive(Debug, Clone)]
struct Dumbbell {
    flows: usize,
    rate_mbps: u64,
    delay_ms: u64,
    queue: u64,
    loss_rate: f64,
    cc: Vec<serde_json::Value>,
    sack: bool,
    delayed_ack: bool,
    seed: u64,
}

fn cc_choices() -> impl Strategy<Value = serde_json::Value> {
    // Every algorithm (default variant) plus the historical variants the studies use.
    prop_oneof![
        Just(json!("newreno")),
        Just(json!({"name": "newreno", "variant": "linux-2.6.22"})),
        Just(json!("cubic")),
        Just(json!({"name": "cubic", "variant": "linux-2.6.22"})),
        Just(json!("scalable")),
        Just(json!({"name": "scalable", "variant": "paper"})),
        Just(json!("highspeed")),
        Just(json!({"name": "highspeed", "variant": "rfc3649"})),
        Just(json!("htcp")),
        Just(json!("westwood")),
        Just(json!({"name": "westwood", "variant": "paper"})),
        Just(json!("bic")),
        Just(json!({"name": "bic", "variant": "paper"})),
        Just(json!("compound")),
        Just(json!({"name": "compound", "variant": "linux-2.6.22"})),
        Just(json!("vegas")),
        Just(json!("fast")),
        Just(json!({"name": "fast", "variant": "paper"})),
        Just(json!("aimd")),
        Just(json!("bbr")),
    ]
}

fn dumbbell() -> impl Strategy<Value = Dumbbell> {
    (1usize..4, 1u64..40, 1u64..40, 2u64..120, prop_oneof![Just(0.0), 0.0..0.05f64], any::<bool>(), any::<bool>(), 0u64..1000)
        .prop_flat_map(|(flows, rate_mbps, delay_ms, queue, loss_rate, sack, delayed_ack, seed)| {
            proptest::collection::vec(cc_choices(), flows).prop_map(move |cc| Dumbbell {
                flows,
                rate_mbps,
                delay_ms,
                queue,
                loss_rate,
                cc,
                sack,
                delayed_ack,
                seed,
            })
        })
}

fn config(d: &Dumbbell, duration_s: u64) -> String {
    let flows: Vec<_> = (0..d.flows)
        .map(|i| {
            json!({
                "cc": d.cc[i],
                "src_access_delay_ns": 100_000 * (i as u64 + 1),
                "dst_access_delay_ns": 100_000 * (i as u64 + 1),
                "access_rate_bps": d.rate_mbps * 10_000_000,
                "start_ns": 50_000_000 * i as u64,
                "recovery": if d.sack { "sack" } else { "newreno" },
                "delayed_ack": d.delayed_ack,
            })
        })
        .collect();
    json!({
        "packet_size": 1500,
        "bottleneck": {
            "rate_bps": d.rate_mbps * 1_000_000,
            "delay_ns": d.delay_ms * 1_000_000,
            "queue": {"discipline": "droptail", "limit_packets": d.queue},
            "loss_rate": d.loss_rate,
        },
        "flows": flows,
        "run": {"duration_ns": duration_s * 1_000_000_000, "measure_from_ns": 0, "seed": d.seed, "sample_interval_ns": 50_000_000},
    })
    .to_string()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, .. ProptestConfig::default() })]

    #[test]
    fn packets_are_conserved_and_windows_stay_sane(d in dumbbell()) {
        let mut sim = Simulation::from_json(&config(&d, 6)).unwrap();
        let mut last = SimTime::ZERO;
        for step in 1..=12u64 {
            sim.run_until(SimTime(step * 500_000_000));
            prop_assert!(sim.now() >= last, "time went backwards");
            last = sim.now();
            let (sent, received, dropped, in_network) = sim.data_packet_census();
            prop_assert_eq!(sent, received + dropped + in_network, "sent = received + dropped + in flight");
            for cwnd in sim.cwnds() {
                prop_assert!((1..1_000_000_000).contains(&cwnd), "cwnd {}", cwnd);
            }
        }
        let s = sim.summary();
        for f in &s.flows {
            prop_assert!(f.goodput_bps.is_finite() && f.goodput_bps >= 0.0);
            prop_assert!(f.delivered_bps <= (d.rate_mbps * 1_000_000) as f64 * 1.0001);
        }
        prop_assert!(s.bottleneck.utilization <= 1.0 + 1e-9);
    }

    #[test]
    fn same_seed_gives_identical_results(d in dumbbell()) {
        let run = || {
            let mut sim = Simulation::from_json(&config(&d, 3)).unwrap();
            sim.run();
            (serde_json::to_string(&sim.summary()).unwrap(), serde_json::to_string(sim.flow_series()).unwrap())
        };
        prop_assert_eq!(run(), run());
    }
}

#[test]
fn different_seeds_differ_when_the_link_is_lossy() {
    let d = Dumbbell {
        flows: 2,
        rate_mbps: 10,
        delay_ms: 10,
        queue: 50,
        loss_rate: 0.01,
        cc: vec![json!("newreno"), json!("cubic")],
        sack: true,
        delayed_ack: false,
        seed: 1,
    };
    let summary = |seed| {
        let mut sim = Simulation::from_json(&config(&Dumbbell { seed, ..d.clone() }, 5)).unwrap();
        sim.run();
        serde_json::to_string(&sim.summary()).unwrap()
    };
    assert_eq!(summary(1), summary(1));
    assert_ne!(summary(1), summary(2));
}

#[test]
fn without_randomness_the_seed_does_not_matter() {
    // A lossless dumbbell has no random draws: every seed gives the same run.
    let d = Dumbbell {
        flows: 2,
        rate_mbps: 10,
        delay_ms: 10,
        queue: 20,
        loss_rate: 0.0,
        cc: vec![json!("newreno"), json!("cubic")],
        sack: true,
        delayed_ack: false,
        seed: 1,
    };
    let summary = |seed| {
        let mut sim = Simulation::from_json(&config(&Dumbbell { seed, ..d.clone() }, 5)).unwrap();
        sim.run();
        let mut s = sim.summary();
        s.events = 0;
        serde_json::to_string(&s).unwrap()
    };
    assert_eq!(summary(1), summary(7));
}

#[test]
fn simulator_state_does_not_grow_with_simulated_time() {
    // Pending events and packets in the network are bounded by the topology and the windows, not by how
    // long the run lasts: sample them over 60 s of a lossy 2-flow dumbbell (time series off).
    let d = Dumbbell {
        flows: 2,
        rate_mbps: 20,
        delay_ms: 20,
        queue: 60,
        loss_rate: 0.001,
        cc: vec![json!("newreno"), json!("cubic")],
        sack: true,
        delayed_ack: true,
        seed: 3,
    };
    let mut cfg: serde_json::Value = serde_json::from_str(&config(&d, 60)).unwrap();
    cfg["run"]["sample_interval_ns"] = json!(0);
    let mut sim = Simulation::from_json(&cfg.to_string()).unwrap();
    let mut worst_events = 0;
    let mut worst_in_network = 0;
    for step in 1..=120u64 {
        sim.run_until(SimTime(step * 500_000_000));
        worst_events = worst_events.max(sim.pending_events());
        worst_in_network = worst_in_network.max(sim.data_packet_census().3);
    }
    // Per flow at most: one arrival per link (6), one timer per endpoint (2), the start; plus the
    // bottleneck's transmitter and the measurement/sampling events.
    assert!(worst_events <= 2 * 9 + 4, "{worst_events} pending events");
    // The network holds at most the queue plus what the links carry: a few hundred packets here.
    assert!(worst_in_network < 1_000, "{worst_in_network} packets in the network");
    assert!(sim.flow_series().time_s.is_empty());
}
