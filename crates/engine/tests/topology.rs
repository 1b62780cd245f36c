//! The general network form: the dumbbell preset written out as links runs bit-identically, a parking
//! lot routes its flows over the right links, and bad routes are reported by field.

use cclab_engine::Simulation;
use serde_json::{json, Value};

const MS: u64 = 1_000_000;

fn flow(cc: &str, i: u64) -> Value {
    json!({"cc": cc, "src_access_delay_ns": (i + 1) * MS, "dst_access_delay_ns": (i + 1) * MS,
           "access_rate_bps": 200_000_000u64, "start_ns": i * 100 * MS})
}

fn run_config() -> Value {
    json!({"duration_ns": 20_000 * MS, "measure_from_ns": 5_000 * MS, "seed": 3, "sample_interval_ns": 50 * MS})
}

fn droptail(packets: u64) -> Value {
    json!({"discipline": "droptail", "limit_packets": packets})
}

fn link(name: &str, from: &str, to: &str, rate_bps: u64, delay_ns: u64, queue: Option<Value>, loss_rate: f64) -> Value {
    json!({"name": name, "from": from, "to": to, "rate_bps": rate_bps, "delay_ns": delay_ns,
           "queue": queue, "loss_rate": loss_rate})
}

fn summary(cfg: &Value) -> Value {
    let mut sim = Simulation::from_json(&cfg.to_string()).unwrap_or_else(|e| panic!("{e}"));
    sim.run().expect("the run finishes");
    json!({"summary": sim.summary(), "cwnd": sim.flow_series().cwnd, "queue": sim.queue_series().queue_packets})
}

#[test]
fn dumbbell_written_as_links_is_bit_identical_to_the_preset() {
    let flows = vec![flow("newreno", 0), flow("cubic", 1), flow("bic", 2)];
    let preset = json!({
        "packet_size": 1500,
        "bottleneck": {"rate_bps": 20_000_000u64, "delay_ns": 20 * MS, "queue": droptail(40), "loss_rate": 1e-4},
        "flows": flows,
        "run": run_config(),
    });
    // The preset's link order (net/topology.rs): bottleneck, its reverse, then per flow src->left,
    // right->dst, dst->right, left->src.
    let mut links = vec![
        link("bottleneck", "left", "right", 20_000_000, 20 * MS, Some(droptail(40)), 1e-4),
        link("bottleneck.reverse", "right", "left", 20_000_000, 20 * MS, Some(droptail(40)), 0.0),
    ];
    let mut routed = vec![];
    for (i, f) in flows.iter().enumerate() {
        let (src, dst) = (format!("src{i}"), format!("dst{i}"));
        let d = f["src_access_delay_ns"].as_u64().unwrap();
        links.push(link(&format!("{src}->left"), &src, "left", 200_000_000, d, None, 0.0));
        links.push(link(&format!("right->{dst}"), "right", &dst, 200_000_000, d, None, 0.0));
        links.push(link(&format!("{dst}->right"), &dst, "right", 200_000_000, d, None, 0.0));
        links.push(link(&format!("left->{src}"), "left", &src, 200_000_000, d, None, 0.0));
        let mut f = f.clone();
        f["route"] = json!([src, "left", "right", dst]);
        routed.push(f);
    }
    let general = json!({
        "packet_size": 1500,
        "topology": {"links": links},
        "flows": routed,
        "run": run_config(),
    });
    let (a, b) = (summary(&preset), summary(&general));
    assert!(a["summary"]["bottleneck"]["drops"].as_u64().unwrap() > 0, "the scenario should congest the bottleneck");
    assert_eq!(a, b);
}

/// Three 10 Mbit/s bottlenecks in a row; one long flow crosses all three, one short flow each.
fn parking_lot() -> Value {
    let mut links = vec![];
    for (a, b) in [("r1", "r2"), ("r2", "r3"), ("r3", "r4")] {
        links.push(link(&format!("{a}-{b}"), a, b, 10_000_000, 10 * MS, Some(droptail(50)), 0.0));
        links.push(link(&format!("{b}-{a}"), b, a, 10_000_000, 10 * MS, Some(droptail(50)), 0.0));
    }
    let mut access = |host: &str, router: &str| {
        links.push(link(&format!("{host}-{router}"), host, router, 100_000_000, MS, None, 0.0));
        links.push(link(&format!("{router}-{host}"), router, host, 100_000_000, MS, None, 0.0));
    };
    access("long-src", "r1");
    access("long-dst", "r4");
    for (i, (a, b)) in [("r1", "r2"), ("r2", "r3"), ("r3", "r4")].iter().enumerate() {
        access(&format!("s{i}"), a);
        access(&format!("d{i}"), b);
    }
    let mut flows = vec![];
    let mut f = flow("newreno", 0);
    f["route"] = json!(["long-src", "r1", "r2", "r3", "r4", "long-dst"]);
    flows.push(f);
    for (i, (a, b)) in [("r1", "r2"), ("r2", "r3"), ("r3", "r4")].iter().enumerate() {
        let mut f = flow("newreno", i as u64 + 1);
        f["route"] = json!([format!("s{i}"), a, b, format!("d{i}")]);
        flows.push(f);
    }
    json!({"packet_size": 1500, "topology": {"links": links}, "flows": flows, "run": run_config()})
}

#[test]
fn parking_lot_long_flow_gets_less_than_each_short_flow_and_every_hop_is_busy() {
    let s = summary(&parking_lot())["summary"].clone();
    let goodput: Vec<f64> = s["flows"].as_array().unwrap().iter().map(|f| f["goodput_bps"].as_f64().unwrap()).collect();
    // The long flow meets three drop points and a three-times-longer RTT: it must get less than any
    // short flow (Floyd 1991's parking-lot result for Reno).
    for short in &goodput[1..] {
        assert!(goodput[0] < *short, "{goodput:?}");
    }
    let links = s["links"].as_array().unwrap();
    assert_eq!(links.len(), 6, "every router-to-router direction has a queue and is reported");
    for l in links.iter().filter(|l| ["r1-r2", "r2-r3", "r3-r4"].contains(&l["name"].as_str().unwrap())) {
        // Two flows share each forward hop; each must be nearly full.
        assert!(l["utilization"].as_f64().unwrap() > 0.9, "{l}");
        assert!(l["drops"].as_u64().unwrap() > 0, "{l}");
    }
    // The bottleneck figures default to the first link with a queue.
    assert_eq!(s["bottleneck"]["packets_forwarded"], links[0]["packets_forwarded"]);
}

#[test]
fn bad_routes_and_links_name_the_field() {
    let mut cfg = parking_lot();
    cfg["flows"][1]["route"] = json!(["s0", "r1", "r3", "d0"]);
    let e = Simulation::from_json(&cfg.to_string()).err().unwrap();
    assert_eq!(e.field, "flows.1.route");
    assert!(e.message.contains("no link from 'r1' to 'r3'"), "{}", e.message);

    let mut cfg = parking_lot();
    cfg["topology"]["links"][1]["name"] = json!("r1-r2");
    let e = Simulation::from_json(&cfg.to_string()).err().unwrap();
    assert_eq!(e.field, "network.links.1.name");

    let mut cfg = parking_lot();
    cfg["topology"]["links"][0]["queue"]["discipline"] = json!("blue");
    let e = Simulation::from_json(&cfg.to_string()).err().unwrap();
    assert_eq!(e.field, "network.links.0.queue.discipline");

    let mut cfg = parking_lot();
    // Without the reverse hop the ACKs have no way back.
    cfg["topology"]["links"].as_array_mut().unwrap().remove(1);
    let e = Simulation::from_json(&cfg.to_string()).err().unwrap();
    assert_eq!(e.field, "flows.0.ack_route");
    assert!(e.message.contains("no link from 'r2' to 'r1'"), "{}", e.message);
}
