//! Traffic sources: connections arriving during the run, carrying the load they offer, finishing as the
//! slow-start arithmetic says on an idle link, giving their slots back, and following the seed.

use cclab_engine::time::SimTime;
use cclab_engine::Simulation;
use serde_json::{json, Value};

const MS: u64 = 1_000_000;
const PAYLOAD: u64 = 1460;

fn run(cfg: &Value) -> Simulation {
    let mut sim = Simulation::from_json(&cfg.to_string()).unwrap_or_else(|e| panic!("{e}"));
    sim.run().expect("the run finishes");
    sim
}

fn groups(sim: &Simulation) -> Value {
    serde_json::to_value(sim.summary()).unwrap()["groups"].clone()
}

/// Web-like load on a 100 Mbit/s dumbbell (20 ms each way, a 1-BDP queue): Poisson arrivals of transfers
/// with exponential sizes (mean 50 kB), offering `load` of the bottleneck in payload bits, plus one bulk
/// flow when asked.
fn loaded_dumbbell(load: f64, seed: u64, duration_s: u64) -> Value {
    json!({
        "packet_size": 1500,
        "bottleneck": {"rate_bps": 100_000_000u64, "delay_ns": 20 * MS,
                       "queue": {"discipline": "droptail", "limit_packets": 333}},
        "flows": [{"cc": "newreno", "access_rate_bps": 1_000_000_000u64, "src_access_delay_ns": MS,
                   "dst_access_delay_ns": MS, "stop_ns": MS, "group": "probe"}],
        "traffic": [{"group": "web", "offered_load": load, "size_bytes": {"exponential": 50_000.0},
                     "flow": {"cc": "newreno", "access_rate_bps": 1_000_000_000u64,
                              "src_access_delay_ns": MS, "dst_access_delay_ns": MS}}],
        "run": {"duration_ns": duration_s * 1000 * MS, "measure_from_ns": 10_000 * MS, "seed": seed,
                "sample_interval_ns": 0},
    })
}

#[test]
fn offered_load_is_carried() {
    // 30 % of 100 Mbit/s in 50 kB transfers: 30e6 / (8 * 50e3) = 75 arrivals/s, 6,750 in the 90 s window.
    // The bytes they bring are a compound Poisson sum: relative sd sqrt(E[S^2] / (lambda T E[S]^2)) =
    // sqrt(2 / 6,750) = 1.7 % for exponential sizes; 5 sd is 8.6 % of 0.30, i.e. +-0.026.
    let sim = run(&loaded_dumbbell(0.3, 1, 100));
    let g = groups(&sim);
    let web = &g[1];
    assert_eq!(web["group"], "web");
    let share = web["share_of_capacity"].as_f64().unwrap();
    assert!((share - 0.30).abs() < 0.026, "carried {share} of the capacity");
    let created = web["flows_created"].as_u64().unwrap();
    // 75/s over 100 s: 7,500, Poisson sd 87: within 5 sd.
    assert!((7_065..=7_935).contains(&created), "{created} connections");
    // Every connection is finished or alive, by the slots as well as by the counters.
    let alive = web["flows_alive"].as_u64().unwrap();
    assert_eq!(created, web["flows_completed"].as_u64().unwrap() + alive);
    assert_eq!(alive as usize, sim.connections_alive());
    // Slots follow the connections alive at once, not the thousands made.
    assert!(sim.flow_slots() < 200, "{} slots", sim.flow_slots());
    assert!(web["completion_time_p50_s"].as_f64().unwrap() <= web["completion_time_p99_s"].as_f64().unwrap());
}

#[test]
fn arrivals_follow_the_seed() {
    let a = serde_json::to_string(&run(&loaded_dumbbell(0.2, 4, 20)).summary()).unwrap();
    let b = serde_json::to_string(&run(&loaded_dumbbell(0.2, 4, 20)).summary()).unwrap();
    let c = serde_json::to_string(&run(&loaded_dumbbell(0.2, 5, 20)).summary()).unwrap();
    assert_eq!(a, b, "same seed, same run");
    assert_ne!(a, c, "another seed, other arrivals");
}

/// Transfers of 20 packets arriving once a second on an idle 10 Mbit/s link (25 ms each way): each
/// finishes long before the next arrives, in 3 (T + R) + 6 T + R = 210.928 ms (tests/transfers.rs), and
/// reuses the one slot.
#[test]
fn each_transfer_on_an_idle_link_takes_the_slow_start_time() {
    let link = |name: &str, from: &str, to: &str| {
        json!({"name": name, "from": from, "to": to, "rate_bps": 10_000_000u64, "delay_ns": 25 * MS})
    };
    let cfg = json!({
        "packet_size": 1500,
        "topology": {"links": [link("a-b", "a", "b"), link("b-a", "b", "a")]},
        "flows": [{"cc": "newreno", "route": ["a", "b"], "stop_ns": MS}],
        "traffic": [{"group": "fixed", "inter_arrival_ns": {"fixed": 1000 * MS}, "size_bytes": {"fixed": 20 * PAYLOAD},
                     "flow": {"cc": "newreno", "route": ["a", "b"]}, "start_ns": 500 * MS}],
        "run": {"duration_ns": 10_000 * MS, "seed": 1, "sample_interval_ns": 0},
    });
    let sim = run(&cfg);
    assert_eq!(sim.connection_records().start_s.len(), 0, "no records unless asked");
    let g = &groups(&sim)[0];
    // Arrivals at 0.5, 1.5, ..., 9.5 s: 10, all completed.
    assert_eq!(g["flows_created"], 10);
    assert_eq!(g["flows_completed"], 10);
    assert_eq!(g["flows_alive"], 0);
    assert_eq!(g["completion_time_mean_s"].as_f64().unwrap(), 210_928_000.0 * 1e-9);
    // Every time falls in the histogram bucket [210,763,776, 211,812,352) ns, reported at its middle.
    assert_eq!(g["completion_time_p50_s"].as_f64().unwrap(), 211_288_063.5 * 1e-9);
    assert_eq!(g["completion_time_p99_s"].as_f64().unwrap(), 211_288_063.5 * 1e-9);
    assert_eq!(g["bytes"], 10 * 20 * PAYLOAD);
    assert_eq!(sim.flow_slots(), 2, "the bulk flow's slot and one reused slot");

    // With records, each connection's own figures: exact times, no rounding to a histogram bucket.
    let mut cfg = cfg;
    cfg["traffic"][0]["records"] = json!(true);
    let r = run(&cfg).connection_records();
    assert_eq!(r.start_s, (0..10).map(|k| 0.5 + k as f64).collect::<Vec<_>>());
    assert!(r.completion_time_s.iter().all(|&t| t == 0.210928), "{:?}", r.completion_time_s);
    let ends: Vec<f64> = (0..10u64).map(|k| SimTime(500 * MS + k * 1000 * MS + 210_928_000).as_secs_f64()).collect();
    assert_eq!(r.end_s, ends);
    assert_eq!(r.bytes, vec![20 * PAYLOAD; 10]);
    assert_eq!(r.retransmissions, vec![0; 10]);
}

#[test]
fn a_source_needs_one_way_of_arriving() {
    let mut cfg = loaded_dumbbell(0.3, 1, 20);
    cfg["traffic"][0]["inter_arrival_ns"] = json!({"exponential": 1e6});
    let e = Simulation::from_json(&cfg.to_string()).err().expect("refused");
    assert_eq!(e.field, "traffic.0.arrivals");
}

/// Transfers of 30 packets every 45 ms through a 4-packet queue on 10 Mbit/s (78 % offered), with
/// NewReno recovery (no SACK): after a timeout the sender resends everything outstanding, segments the
/// receiver already holds included, so copies and their ACKs are still on the way when the connection
/// ends and its slot goes to the next arrival. Each such late packet must be recognised by its generation
/// and dropped, never counted by the new connection: every transfer then delivers exactly its size, and
/// the connections add up.
#[test]
fn late_packets_of_an_ended_connection_never_reach_the_next_one() {
    let cfg = json!({
        "packet_size": 1500,
        "bottleneck": {"rate_bps": 10_000_000u64, "delay_ns": 25 * MS,
                       "queue": {"discipline": "droptail", "limit_packets": 4}},
        "flows": [],
        "traffic": [{"group": "t", "inter_arrival_ns": {"fixed": 45 * MS}, "size_bytes": {"fixed": 30 * PAYLOAD},
                     "records": true, "stop_ns": 20_000 * MS,
                     "flow": {"cc": {"name": "newreno"}, "recovery": "newreno", "access_rate_bps": 100_000_000u64,
                              "src_access_delay_ns": MS, "dst_access_delay_ns": MS}}],
        "run": {"duration_ns": 60_000 * MS, "seed": 1, "sample_interval_ns": 0},
    });
    let sim = run(&cfg);
    assert!(sim.stale_packets() > 0, "the scenario should leave late packets behind");
    let r = sim.connection_records();
    // Arrivals at 0, 45, ..., 19,980 ms: 445 of them, all done in the 40 s that follow.
    assert_eq!(r.start_s.len(), 445);
    for i in 0..r.start_s.len() {
        assert!(r.completion_time_s[i] > 0.0, "connection {i} unfinished");
        assert_eq!(r.bytes[i], 30 * PAYLOAD, "connection {i}");
    }
    let g = &groups(&sim)[0];
    assert_eq!(g["flows_created"], 445);
    assert_eq!(g["flows_completed"], 445);
}
