//! Flows in either direction on the dumbbell: `direction = "reverse"` sends right to left over
//! `bottleneck.reverse`, with its ACKs on `bottleneck`, and leaves the forward flows' links untouched.

use cclab_engine::net::topology::Topology;
use cclab_engine::{ScenarioConfig, Simulation};
use serde_json::{json, Value};

const MS: u64 = 1_000_000;

fn flow(cc: &str, i: u64, direction: &str) -> Value {
    json!({"cc": cc, "src_access_delay_ns": (i + 1) * MS, "dst_access_delay_ns": (i + 2) * MS,
           "access_rate_bps": 200_000_000u64, "start_ns": i * 100 * MS, "direction": direction})
}

fn dumbbell(flows: Vec<Value>) -> Value {
    json!({
        "packet_size": 1500,
        "bottleneck": {"rate_bps": 20_000_000u64, "delay_ns": 20 * MS,
                       "queue": {"discipline": "droptail", "limit_packets": 40}},
        "flows": flows,
        "run": {"duration_ns": 10_000 * MS, "measure_from_ns": 2_000 * MS, "seed": 3, "sample_interval_ns": 50 * MS},
    })
}

fn run(cfg: &Value) -> Simulation {
    let mut sim = Simulation::from_json(&cfg.to_string()).unwrap_or_else(|e| panic!("{e}"));
    sim.run().expect("the run finishes");
    sim
}

#[test]
fn a_reverse_flow_alone_behaves_as_its_mirror_image() {
    // The dumbbell is symmetric (same rate, delay and queue both ways, no random loss), so one flow sent
    // right to left sees exactly what the same flow sent left to right sees: same figures, same windows.
    let forward = run(&dumbbell(vec![flow("cubic", 0, "forward")]));
    let reverse = run(&dumbbell(vec![flow("cubic", 0, "reverse")]));
    let (f, r) = (forward.summary(), reverse.summary());
    assert_eq!(f.flows, r.flows);
    assert_eq!(forward.flow_series().cwnd, reverse.flow_series().cwnd);
    // The data now crosses link 1 (bottleneck.reverse) and the ACKs link 0.
    assert_eq!(f.links[0].packets_forwarded, r.links[1].packets_forwarded);
    assert_eq!(f.links[1].packets_forwarded, r.links[0].packets_forwarded);
    assert_eq!(f.links[0].utilization, r.links[1].utilization);
    assert!(r.links[1].utilization > 0.9, "the reverse flow fills bottleneck.reverse: {}", r.links[1].utilization);
}

#[test]
fn forward_flows_keep_their_links_and_routes_when_a_reverse_flow_joins() {
    let both = |second: &str| {
        let cfg: ScenarioConfig = serde_json::from_value(dumbbell(vec![flow("newreno", 0, "forward"), flow("newreno", 1, second)])).unwrap();
        Topology::from_config(&cfg).unwrap()
    };
    let (plain, mixed) = (both("forward"), both("reverse"));
    assert_eq!(plain.links.len(), mixed.links.len());
    // Flow 0's route and links are the same; flow 1 has the same four link ids, used the other way.
    assert_eq!(plain.routes[0], mixed.routes[0]);
    for l in 0..6 {
        assert_eq!((&plain.links[l].from, &plain.links[l].to), (&mixed.links[l].from, &mixed.links[l].to));
    }
    assert_eq!(plain.routes[1], [vec![6, 0, 7], vec![8, 1, 9]]);
    assert_eq!(mixed.routes[1], [vec![6, 1, 7], vec![8, 0, 9]]);
    assert_eq!((mixed.links[6].from.as_str(), mixed.links[6].to.as_str()), ("src1", "right"));
    assert_eq!((mixed.links[7].from.as_str(), mixed.links[7].to.as_str()), ("left", "dst1"));
}

#[test]
fn reverse_data_shares_a_link_with_forward_acks() {
    // One flow each way: each bottleneck direction carries one flow's data and the other's ACKs, and both
    // flows get most of their direction's capacity (a 40-byte ACK per 1500-byte packet takes 2.7 %).
    let sim = run(&dumbbell(vec![flow("newreno", 0, "forward"), flow("newreno", 0, "reverse")]));
    let s = sim.summary();
    for f in &s.flows {
        assert!(f.goodput_bps > 0.7 * 20e6, "flow {} goodput {}", f.flow, f.goodput_bps);
    }
    // Census: with both directions loaded, drops and queues hold ACKs as well, so only the bound holds.
    let (sent, received, dropped, in_network) = sim.data_packet_census();
    assert!(sent <= received + dropped + in_network);
}

#[test]
fn direction_is_refused_over_links() {
    let cfg = json!({
        "packet_size": 1500,
        "topology": {"links": [{"name": "a-b", "from": "a", "to": "b", "rate_bps": 1_000_000u64, "delay_ns": MS},
                               {"name": "b-a", "from": "b", "to": "a", "rate_bps": 1_000_000u64, "delay_ns": MS}]},
        "flows": [{"cc": "newreno", "route": ["a", "b"], "direction": "reverse"}],
        "run": {"duration_ns": 1000 * MS},
    });
    let e = Simulation::from_json(&cfg.to_string()).err().expect("refused");
    assert_eq!(e.field, "flows.0.direction");
}
