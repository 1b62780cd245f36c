//! Invariants over random small networks (proptest): packets are conserved, windows stay sane, time
//! never goes backwards, queues stay within their limits, no flow gets more delivered than it sent, a seed
//! fixes the result bit for bit, and different seeds differ where the scenario has randomness. The random
//! networks cover every recovery mode (sack, newreno, linux-2.6), every queue discipline and every link
//! model (rate and delay schedules, Bernoulli and Gilbert-Elliott loss, ARQ, processing delay).
//!
//! In-suite sizes keep `cargo test` quick; a long run: `CCLAB_FUZZ_CASES=2000 cargo test --release -p
//! cclab-engine --test properties` (docs/testing.md).

use cclab_engine::time::SimTime;
use cclab_engine::Simulation;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::{json, Value};

/// Cases per property: `default` in the suite, CCLAB_FUZZ_CASES for a long run.
fn cases(default: u32) -> u32 {
    std::env::var("CCLAB_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[derive(Debug, Clone)]
struct Dumbbell {
    flows: usize,
    rate_mbps: u64,
    delay_ms: u64,
    queue: u64,
    loss_rate: f64,
    cc: Vec<serde_json::Value>,
    recovery: &'static str,
    delayed_ack: bool,
    seed: u64,
}

const RECOVERIES: &[&str] = &["sack", "newreno", "linux-2.6", "prr", "prr-rfc6937", "ns2-sack1"];

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
        Just(json!({"name": "highspeed", "variant": "ns2"})),
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
        Just(json!({"name": "aimd", "variant": "xu2004-ns2"})),
        Just(json!("bbr")),
    ]
}

fn dumbbell() -> impl Strategy<Value = Dumbbell> {
    (1usize..4, 1u64..40, 1u64..40, 2u64..120, prop_oneof![Just(0.0), 0.0..0.05f64], prop::sample::select(RECOVERIES), any::<bool>(), 0u64..1000)
        .prop_flat_map(|(flows, rate_mbps, delay_ms, queue, loss_rate, recovery, delayed_ack, seed)| {
            proptest::collection::vec(cc_choices(), flows).prop_map(move |cc| Dumbbell {
                flows,
                rate_mbps,
                delay_ms,
                queue,
                loss_rate,
                cc,
                recovery,
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
                "recovery": d.recovery,
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

/// Every invariant at this instant. `now` is where the caller advanced the simulation to.
fn check_invariants(sim: &Simulation, now: SimTime) -> Result<(), TestCaseError> {
    // Time: the simulation is where it was asked to be, nothing waits in its past, and no event was ever
    // scheduled before one that had already fired.
    prop_assert_eq!(sim.now(), now);
    prop_assert!(sim.next_event_time().is_none_or(|t| t > now), "an event at {:?} is due by {:?}", sim.next_event_time(), now);
    prop_assert_eq!(sim.events_scheduled_in_the_past(), 0, "time went backwards");
    // Conservation: every data packet sent was received, dropped (overflow, early AQM drops at enqueue or
    // dequeue, errors, losses, ARQ failures) or is still somewhere (processing stage, buffer, wire).
    let (sent, received, dropped, in_network) = sim.data_packet_census();
    prop_assert_eq!(sent, received + dropped + in_network, "sent = received + dropped + in the network");
    // Windows: at least one packet and far below the u32 range (a wrap or a NaN cast would show up here).
    for cwnd in sim.cwnds() {
        prop_assert!((1..1 << 30).contains(&cwnd), "cwnd {}", cwnd);
    }
    // Per flow: nothing is delivered that was not sent, nothing received more often than it was sent.
    for (i, f) in sim.flow_progress().iter().enumerate() {
        prop_assert!(f.delivered <= f.new_packets_sent, "flow {}: {:?}", i, f);
        prop_assert!(f.new_packets_sent <= f.packets_sent && f.received <= f.packets_sent, "flow {}: {:?}", i, f);
    }
    // Queues: what waits (the packet on the wire excluded) never passes the limit, which counts the one on
    // the wire. RED and adaptive RED count bytes by default (ns-2 queue_in_bytes_): their limit is then
    // limit_packets x the mean packet size (the scenario's packet size here), checked before an arrival
    // joins, so one packet may go over it.
    for (q, name) in sim.queue_levels().iter().zip(sim.link_names()) {
        let in_bytes = matches!(q.discipline.as_str(), "red" | "ared");
        if in_bytes {
            let limit = q.limit_bytes.unwrap_or(q.limit_packets * PACKET_SIZE);
            prop_assert!(q.bytes < limit + PACKET_SIZE, "{}: {:?}", name, q);
        } else {
            // DropTail, CoDel and PIE refuse an arrival that would make waiting + wire exceed the limit;
            // FQ-CoDel accepts it and then drops from the fattest flow queue, so it may hold the limit itself.
            let most = if q.discipline == "fq_codel" { q.limit_packets } else { q.limit_packets - 1 };
            prop_assert!(q.max_packets as u64 <= most && q.packets as u64 <= most, "{}: {:?}", name, q);
            if let Some(limit) = q.limit_bytes {
                prop_assert!(q.bytes <= limit + PACKET_SIZE, "{}: {:?}", name, q);
            }
        }
    }
    // Algorithm state: finite where present (NaN marks a column another flow's algorithm has).
    for (column, values) in &sim.flow_series().cc {
        prop_assert!(values.iter().all(|v| !v.is_infinite()), "{} is infinite", column);
    }
    Ok(())
}

const PACKET_SIZE: u64 = 1500;

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(96), .. ProptestConfig::default() })]

    #[test]
    fn packets_are_conserved_and_windows_stay_sane(d in dumbbell()) {
        let mut sim = Simulation::from_json(&config(&d, 6)).unwrap();
        for step in 1..=12u64 {
            let now = SimTime(step * 500_000_000);
            sim.run_until(now).expect("the run finishes");
            check_invariants(&sim, now)?;
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
            sim.run().expect("the run finishes");
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
        recovery: "sack",
        delayed_ack: false,
        seed: 1,
    };
    let summary = |seed| {
        let mut sim = Simulation::from_json(&config(&Dumbbell { seed, ..d.clone() }, 5)).unwrap();
        sim.run().expect("the run finishes");
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
        recovery: "sack",
        delayed_ack: false,
        seed: 1,
    };
    let summary = |seed| {
        let mut sim = Simulation::from_json(&config(&Dumbbell { seed, ..d.clone() }, 5)).unwrap();
        sim.run().expect("the run finishes");
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
        recovery: "sack",
        delayed_ack: true,
        seed: 3,
    };
    let mut cfg: serde_json::Value = serde_json::from_str(&config(&d, 60)).unwrap();
    cfg["run"]["sample_interval_ns"] = json!(0);
    let mut sim = Simulation::from_json(&cfg.to_string()).unwrap();
    let mut worst_events = 0;
    let mut worst_in_network = 0;
    for step in 1..=120u64 {
        sim.run_until(SimTime(step * 500_000_000)).expect("the run finishes");
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

// --- every recovery mode, discipline and link model -----------------------------------------------------

const MS: u64 = 1_000_000;

/// A queue of each discipline, with its default variant or another one.
fn queue_choice() -> impl Strategy<Value = Value> {
    let discipline = prop::sample::select(vec![
        ("droptail", None), ("red", None), ("red", Some(json!({"queue_in_bytes": false}))), ("ared", None),
        ("ared", Some(json!({"variant": "floyd2001"}))), ("codel", None), ("fq_codel", None),
        ("fq_codel", Some(json!({"variant": "linux"}))), ("pie", None),
    ]);
    (discipline, 2u64..150, prop::option::weighted(0.2, 20_000u64..200_000)).prop_map(|((name, params), limit, bytes)| {
        let mut q = json!({"discipline": name, "limit_packets": limit, "limit_bytes": bytes});
        if let Some(p) = params {
            q["params"] = p;
        }
        q
    })
}

/// What a bottleneck may have besides a constant rate and delay (net/capacity.rs, delay.rs, loss.rs, arq.rs).
fn link_models(rate_bps: u64) -> impl Strategy<Value = Value> {
    let rate = prop_oneof![
        3 => Just(None),
        // Steps around the rate, an outage among them now and then.
        1 => prop::collection::vec(prop_oneof![3 => (1u64..4).prop_map(move |k| rate_bps * k / 2), 1 => Just(0u64)], 1..4)
            .prop_map(|steps| {
                let at: Vec<u64> = (0..steps.len() as u64).map(|i| i * 700 * MS).collect();
                Some(json!({"schedule": {"at_ns": at, "rate_bps": steps}}))
            }),
    ];
    let delay = prop_oneof![
        3 => Just(None),
        1 => prop::collection::vec(0u64..40, 1..4).prop_map(|d| {
            let at: Vec<u64> = (0..d.len() as u64).map(|i| i * 900 * MS).collect();
            let delays: Vec<u64> = d.iter().map(|ms| ms * MS).collect();
            Some(json!({"at_ns": at, "delay_ns": delays}))
        }),
    ];
    let loss = prop_oneof![
        3 => Just(None),
        1 => (0.0..0.03f64).prop_map(|p| Some(json!({"bernoulli": p}))),
        1 => (0.0..0.05f64, 0.1..0.5f64, 0.2..1.0f64).prop_map(|(g, b, l)| Some(json!({"gilbert_elliott":
                 {"p_good_to_bad": g, "p_bad_to_good": b, "loss_good": 0.0, "loss_bad": l}}))),
    ];
    let arq = prop_oneof![
        3 => Just(None),
        1 => (0.0..0.3f64, 1u64..30, 1u32..5).prop_map(|(p, ms, n)| Some(json!({"loss": {"bernoulli": p},
                 "retry_delay_ns": ms * MS, "max_attempts": n}))),
    ];
    (rate, delay, loss, arq).prop_map(|(rate, delay, loss, arq)| {
        let mut m = json!({});
        for (key, value) in [("rate_model", rate), ("delay_schedule", delay), ("loss", loss), ("arq", arq)] {
            if let Some(v) = value {
                m[key] = v;
            }
        }
        m
    })
}

#[derive(Debug, Clone)]
struct Network {
    /// The dumbbell preset, or a parking lot of three bottlenecks written as links.
    parking_lot: bool,
    rate_mbps: u64,
    delay_ms: u64,
    queue: Value,
    models: Value,
    /// Per flow: algorithm, recovery mode, delayed ACKs.
    flows: Vec<(Value, &'static str, bool)>,
    /// Processing delay and jitter, ns: every node's over links, each sender's `overhead` on the dumbbell.
    processing: (u64, u64),
    seed: u64,
}

fn network() -> impl Strategy<Value = Network> {
    let flow = (cc_choices(), prop::sample::select(RECOVERIES), any::<bool>());
    (any::<bool>(), 2u64..30, 1u64..25, queue_choice(), prop::collection::vec(flow, 1..4),
     prop_oneof![2 => Just((0u64, 0u64)), 1 => (0u64..20_000, 0u64..50_000)], 0u64..1000)
        .prop_flat_map(|(parking_lot, rate_mbps, delay_ms, queue, flows, processing, seed)| {
            link_models(rate_mbps * 1_000_000).prop_map(move |models| Network {
                parking_lot, rate_mbps, delay_ms, queue: queue.clone(), models, flows: flows.clone(), processing, seed,
            })
        })
}

fn network_config(n: &Network, duration_ns: u64) -> String {
    let rate = n.rate_mbps * 1_000_000;
    let delay = n.delay_ms * MS;
    let run = json!({"duration_ns": duration_ns, "measure_from_ns": 0, "seed": n.seed, "sample_interval_ns": 100 * MS});
    let needs_reverse_rate = n.models.get("rate_model").is_some();
    if !n.parking_lot {
        let flows: Vec<Value> = n.flows.iter().enumerate().map(|(i, (cc, recovery, delack))| json!({
            "cc": cc, "recovery": recovery, "delayed_ack": delack, "start_ns": i as u64 * 30 * MS,
            "src_access_delay_ns": (i as u64 + 1) * MS / 2, "dst_access_delay_ns": MS, "access_rate_bps": 10 * rate,
            "overhead_ns": n.processing.1,
        })).collect();
        let mut bottleneck = json!({"rate_bps": rate, "delay_ns": delay, "queue": n.queue, "models": n.models});
        if needs_reverse_rate {
            bottleneck["reverse_rate_bps"] = json!(rate);
        }
        return json!({"packet_size": PACKET_SIZE, "bottleneck": bottleneck, "flows": flows, "run": run}).to_string();
    }
    // r1 =(bottleneck, models)= r2 == r3 == r4, duplex; hosts on unbounded access lines. Flow 0 crosses all
    // three bottlenecks, flow i > 0 the (i-1)-th. Every flow goes left to right, so no link carries both data
    // and ACKs (the census counts the links on data routes).
    let mut links = vec![];
    let mut duplex = |from: &str, to: &str, rate: u64, delay: u64, queue: Option<&Value>, models: Option<&Value>| {
        for (a, b) in [(from, to), (to, from)] {
            let mut l = json!({"name": format!("{a}-{b}"), "from": a, "to": b, "rate_bps": rate, "delay_ns": delay, "queue": queue});
            if let Some(m) = models {
                l["models"] = m.clone();
                if m.get("rate_model").is_some() {
                    l["rate_bps"] = json!(0);
                }
            }
            links.push(l);
        }
    };
    duplex("r1", "r2", rate, delay, Some(&n.queue), Some(&n.models));
    duplex("r2", "r3", 2 * rate, delay, Some(&n.queue), None);
    duplex("r3", "r4", 2 * rate, delay, Some(&n.queue), None);
    duplex("src0", "r1", 10 * rate, MS, None, None);
    duplex("r4", "dst0", 10 * rate, MS, None, None);
    let mut flows = vec![];
    for (i, (cc, recovery, delack)) in n.flows.iter().enumerate() {
        let route = if i == 0 {
            json!(["src0", "r1", "r2", "r3", "r4", "dst0"])
        } else {
            let (a, b) = (format!("r{i}"), format!("r{}", i + 1));
            duplex(&format!("src{i}"), &a, 10 * rate, MS, None, None);
            duplex(&b, &format!("dst{i}"), 10 * rate, MS, None, None);
            json!([format!("src{i}"), a, b, format!("dst{i}")])
        };
        flows.push(json!({"cc": cc, "recovery": recovery, "delayed_ack": delack, "start_ns": i as u64 * 30 * MS, "route": route}));
    }
    let (fixed, jitter) = n.processing;
    let nodes = json!({"r1": {"processing_delay_ns": fixed, "processing_jitter_ns": jitter},
                       "r2": {"processing_delay_ns": fixed, "processing_jitter_ns": jitter}});
    json!({"packet_size": PACKET_SIZE, "topology": {"links": links, "nodes": nodes, "bottleneck": "r1-r2"},
           "flows": flows, "run": run}).to_string()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(64), .. ProptestConfig::default() })]

    #[test]
    fn invariants_hold_for_every_recovery_mode_discipline_and_link_model(n in network()) {
        let duration = 3_000 * MS;
        let mut sim = Simulation::from_json(&network_config(&n, duration)).unwrap_or_else(|e| panic!("{e}"));
        // Checkpoints every 100 ms; in between, from 1.0 s, event by event for 2000 events, so that an event
        // fired in the past of another would be seen.
        for step in 1..=30u64 {
            let now = SimTime(step * 100 * MS);
            if step == 10 {
                for _ in 0..2_000 {
                    let Some(next) = sim.next_event_time().filter(|&t| t <= now) else { break };
                    prop_assert!(next >= sim.now(), "the next event at {:?} is before now {:?}", next, sim.now());
                    sim.run_until(next).expect("the run finishes");
                    check_invariants(&sim, next)?;
                }
            }
            sim.run_until(now).expect("the run finishes");
            check_invariants(&sim, now)?;
        }
    }
}

#[test]
fn regression_bbr_in_linux_2_6_recovery_keeps_its_window() {
    // Found by the invariants above, the first time they ran the linux-2.6 mode: at recovery entry the mode
    // sets cwnd = min_cwnd(), by default ssthresh, which BBR leaves at 2^31 - 1. One BBR flow, 2 Mbit/s,
    // 20 ms, an 8-packet buffer: the first loss comes at about 0.34 s; the window must stay near the BDP
    // (2e6 x 0.04 / 12000 = 7 packets) plus the buffer, far below 1000.
    let cfg = json!({"packet_size": PACKET_SIZE,
        "bottleneck": {"rate_bps": 2_000_000u64, "delay_ns": 20 * MS, "queue": {"discipline": "droptail", "limit_packets": 8}},
        "flows": [{"cc": "bbr", "recovery": "linux-2.6", "delayed_ack": true, "access_rate_bps": 20_000_000u64,
                   "src_access_delay_ns": 100_000, "dst_access_delay_ns": 100_000}],
        "run": {"duration_ns": 6_000 * MS, "seed": 790, "sample_interval_ns": 50 * MS}});
    let mut sim = Simulation::from_json(&cfg.to_string()).unwrap();
    for ms in (10..=6_000).step_by(10) {
        sim.run_until(SimTime(ms * MS)).expect("the run finishes");
        assert!(sim.cwnds()[0] < 1_000, "cwnd {} at {ms} ms", sim.cwnds()[0]);
        check_invariants(&sim, SimTime(ms * MS)).unwrap();
    }
    assert!(sim.summary().flows[0].loss_events > 0, "the case needs a recovery");
}
