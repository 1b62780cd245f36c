//! Behaviour fingerprints of a fixed set of scenarios, for checking that a change meant to be invisible
//! (an optimisation, a refactoring) leaves every run bit for bit the same. For each scenario it prints one
//! line: the name, the full summary as JSON, and an FNV-1a 64 checksum of every time-series column
//! (flow and queue series, floats by their bit patterns), sampled every 10 ms.
//!
//! `scripts/equivalence.sh` builds this at two revisions and compares the outputs; by hand:
//!
//! ```text
//! cargo run --release -p cclab-engine --example fingerprints > after.txt
//! cargo run --release -p cclab-engine --example fingerprints -- --list          # scenario names only
//! cargo run --release -p cclab-engine --example fingerprints -- --only sack-    # names containing this
//! cargo run --release -p cclab-engine --example fingerprints -- --packet-by-packet  # no endpoint ahead
//! cargo run --release -p cclab-engine --example fingerprints -- --training  # scripts/pgo.sh's 270 only
//! ```
//!
//! The set covers the three main recovery modes (`sack`, `newreno`, `linux-2.6`) under several algorithms, on
//! a small and a 1-BDP buffer, lossy links (so that retransmissions are lost too), delayed ACKs, flows
//! that stop and several flows sharing the link, large windows whose slow-start overshoot leaves 10^3
//! to 10^4 holes in one window, and traffic sources whose short connections reuse slots. `prr` and
//! `ns2-sack1` run the lossy link, the shared lossy link and the lossy large window (56 scenarios more;
//! not `prr-rfc6937`, which differs from `prr` in one bound). It uses only the engine's public interface,
//! so the same file builds against older revisions.

use cclab_engine::Simulation;
use serde_json::{json, Value};

struct Scenario {
    name: String,
    config: Value,
}

struct Link {
    rate_mbps: u64,
    delay_ms: u64,
    queue: u64,
    loss_rate: f64,
}

fn dumbbell(link: &Link, flows: Vec<Value>, seconds: u64, seed: u64) -> Value {
    let flows: Vec<Value> = flows
        .into_iter()
        .enumerate()
        .map(|(i, extra)| {
            let mut f = json!({
                "cc": "newreno",
                "src_access_delay_ns": 1_000_000 * (i as u64 + 1),
                "dst_access_delay_ns": 500_000 * (i as u64 + 1),
                "access_rate_bps": link.rate_mbps * 10_000_000,
                "start_ns": 70_000_000 * i as u64,
            });
            for (k, v) in extra.as_object().expect("flow fields") {
                f[k] = v.clone();
            }
            f
        })
        .collect();
    json!({
        "packet_size": 1500,
        "bottleneck": {"rate_bps": link.rate_mbps * 1_000_000, "delay_ns": link.delay_ms * 1_000_000,
                       "queue": {"discipline": "droptail", "limit_packets": link.queue},
                       "loss_rate": link.loss_rate},
        "flows": flows,
        "run": {"duration_ns": seconds * 1_000_000_000, "measure_from_ns": seconds * 200_000_000, "seed": seed,
                "sample_interval_ns": 10_000_000},
    })
}

/// The scenarios; `training` leaves out the block of the other recovery rules, so that scripts/pgo.sh trains
/// the profile on the paths most runs take.
fn scenarios(training: bool) -> Vec<Scenario> {
    let mut all = vec![];
    let mut add = |name: String, config: Value| all.push(Scenario { name, config });
    let algorithms = [
        json!("newreno"),
        json!({"name": "newreno", "variant": "linux-2.6.22"}),
        json!("cubic"),
        json!({"name": "cubic", "variant": "linux-2.6.22"}),
        json!("highspeed"),
        json!("scalable"),
        json!("htcp"),
        json!("westwood"),
        json!("bic"),
        json!("compound"),
        json!("vegas"),
        json!("fast"),
        json!("bbr"),
    ];
    let cc_name = |cc: &Value| match cc {
        Value::String(s) => s.clone(),
        _ => format!("{}@{}", cc["name"].as_str().unwrap_or("?"), cc["variant"].as_str().unwrap_or("?")),
    };
    // BDP of 20 Mbit/s x 2 x 20 ms / 1500 B = 67 packets.
    let links = [
        ("small-buffer", Link { rate_mbps: 20, delay_ms: 20, queue: 7, loss_rate: 0.0 }),
        ("one-bdp", Link { rate_mbps: 20, delay_ms: 20, queue: 67, loss_rate: 0.0 }),
        ("lossy-2pc", Link { rate_mbps: 20, delay_ms: 20, queue: 30, loss_rate: 0.02 }),
    ];
    for recovery in ["sack", "newreno", "linux-2.6"] {
        for cc in &algorithms {
            for (link_name, link) in &links {
                for delayed_ack in [false, true] {
                    let ack = if delayed_ack { "-delack" } else { "" };
                    add(
                        format!("{recovery}-{}-{link_name}{ack}", cc_name(cc)),
                        dumbbell(link, vec![json!({"cc": cc, "recovery": recovery, "delayed_ack": delayed_ack})], 20, 5),
                    );
                }
            }
        }
        // Several flows sharing a small buffer, with heavy random loss: timeouts, lost retransmissions.
        let shared = Link { rate_mbps: 10, delay_ms: 30, queue: 12, loss_rate: 0.05 };
        let flows = ["newreno", "cubic", "bbr", "westwood"]
            .iter()
            .map(|cc| json!({"cc": cc, "recovery": recovery}))
            .collect();
        add(format!("{recovery}-four-flows-lossy-5pc"), dumbbell(&shared, flows, 30, 11));
        // Flows that stop: the application-limited tail and the final recovery.
        let stopping = (0..3)
            .map(|i| json!({"cc": if i == 1 { "bbr" } else { "cubic" }, "recovery": recovery, "stop_ns": 4_000_000_000u64 + i * 1_500_000_000}))
            .collect();
        add(format!("{recovery}-stopping"), dumbbell(&Link { rate_mbps: 50, delay_ms: 10, queue: 40, loss_rate: 0.001 }, stopping, 10, 2));
        // Large windows: 1 Gbit/s x 2 x 50 ms = 8333 packets; the slow-start overshoot into a 1-BDP buffer
        // loses thousands of packets in one window, a 0.1-BDP one many holes per window afterwards.
        for (buffer_name, queue) in [("1bdp", 8333), ("0.1bdp", 833)] {
            for cc in ["newreno", "cubic", "bbr"] {
                add(
                    format!("{recovery}-{cc}-1g-{buffer_name}"),
                    dumbbell(&Link { rate_mbps: 1000, delay_ms: 50, queue, loss_rate: 0.0 }, vec![json!({"cc": cc, "recovery": recovery})], 8, 1),
                );
            }
        }
        add(
            format!("{recovery}-newreno-1g-lossy"),
            dumbbell(&Link { rate_mbps: 1000, delay_ms: 50, queue: 8333, loss_rate: 0.001 }, vec![json!({"recovery": recovery, "delayed_ack": true})], 8, 4),
        );
        // Traffic sources: many short connections opened and closed in recycled slots, beside a bulk flow
        // (web-like Pareto sizes, mean 10 segments; Poisson arrivals at half the 20 Mbit/s link, about 85
        // connections per second), and a second source with fixed gaps, sizes and records kept.
        let link = Link { rate_mbps: 20, delay_ms: 20, queue: 30, loss_rate: 0.005 };
        for (cc, delayed_ack) in [("newreno", false), ("cubic", true), ("bbr", false)] {
            let mut config = dumbbell(&link, vec![json!({"cc": "cubic", "recovery": recovery})], 20, 7);
            let connection = |access_ms: u64| {
                json!({"cc": cc, "recovery": recovery, "delayed_ack": delayed_ack,
                       "src_access_delay_ns": access_ms * 1_000_000, "dst_access_delay_ns": 500_000,
                       "access_rate_bps": 200_000_000u64})
            };
            config["traffic"] = json!([
                {"group": "web", "flow": connection(2), "size_bytes": {"pareto": {"shape": 1.2, "mean": 14600.0}},
                 "offered_load": 0.5},
                {"group": "fixed", "flow": connection(5), "size_bytes": {"fixed": 30_000},
                 "inter_arrival_ns": {"fixed": 150_000_000u64}, "start_ns": 1_000_000_000u64, "records": true},
            ]);
            add(format!("{recovery}-traffic-{cc}{}", if delayed_ack { "-delack" } else { "" }), config);
        }
    }
    if training {
        return all;
    }
    // The other rules, PRR and ns-2's Sack1 agent (with its timer, go-back-N and growth once per ACK), on
    // the lossy link with and without delayed ACKs (stretch ACKs), and with several flows and a large window.
    let lossy = Link { rate_mbps: 20, delay_ms: 20, queue: 30, loss_rate: 0.02 };
    for recovery in ["prr", "ns2-sack1"] {
        for cc in &algorithms {
            for delayed_ack in [false, true] {
                let ack = if delayed_ack { "-delack" } else { "" };
                add(
                    format!("{recovery}-{}-lossy-2pc{ack}", cc_name(cc)),
                    dumbbell(&lossy, vec![json!({"cc": cc, "recovery": recovery, "delayed_ack": delayed_ack})], 20, 5),
                );
            }
        }
        let shared = Link { rate_mbps: 10, delay_ms: 30, queue: 12, loss_rate: 0.05 };
        let flows = ["newreno", "cubic", "bbr", "westwood"].iter().map(|cc| json!({"cc": cc, "recovery": recovery})).collect();
        add(format!("{recovery}-four-flows-lossy-5pc"), dumbbell(&shared, flows, 30, 11));
        add(
            format!("{recovery}-newreno-1g-lossy"),
            dumbbell(&Link { rate_mbps: 1000, delay_ms: 50, queue: 8333, loss_rate: 0.001 }, vec![json!({"recovery": recovery, "delayed_ack": true})], 8, 4),
        );
    }
    all
}

/// FNV-1a 64 over a column's bytes.
fn fnv1a(bytes: impl Iterator<Item = u8>) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

fn column_u32(v: &[u32]) -> String {
    fnv1a(v.iter().flat_map(|x| x.to_le_bytes()))
}
fn column_u64(v: &[u64]) -> String {
    fnv1a(v.iter().flat_map(|x| x.to_le_bytes()))
}
fn column_f64(v: &[f64]) -> String {
    fnv1a(v.iter().flat_map(|x| x.to_bits().to_le_bytes()))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let only = args.iter().position(|a| a == "--only").and_then(|i| args.get(i + 1)).cloned();
    let list = args.iter().any(|a| a == "--list");
    let packet_by_packet = args.iter().any(|a| a == "--packet-by-packet");
    let training = args.iter().any(|a| a == "--training");
    // Another sampling interval than the fingerprints' 10 ms (0: no series), for the training runs of
    // scripts/pgo.sh: a lone flow sampled further apart than its path takes a path of its own (the receiver
    // taking packets at the bottleneck's hand-off, `Simulation::receive_at_hand_off`).
    let interval: Option<u64> = args
        .iter()
        .position(|a| a == "--sample-interval-ns")
        .map(|i| args.get(i + 1).and_then(|v| v.parse().ok()).expect("--sample-interval-ns takes nanoseconds"));
    for s in scenarios(training) {
        if only.as_ref().is_some_and(|o| !s.name.contains(o.as_str())) {
            continue;
        }
        if list {
            println!("{}", s.name);
            continue;
        }
        let mut config = s.config;
        if let Some(ns) = interval {
            config["run"]["sample_interval_ns"] = json!(ns);
        }
        let mut sim = Simulation::from_json(&config.to_string()).unwrap_or_else(|e| panic!("{}: {e:?}", s.name));
        if packet_by_packet {
            sim.without_receiving_ahead();
        }
        sim.run().expect("the run finishes");
        let f = sim.flow_series();
        let q = sim.queue_series();
        let mut series = json!({
            "cwnd": column_u32(&f.cwnd),
            "ssthresh": column_u32(&f.ssthresh),
            "in_flight": column_u32(&f.in_flight),
            "delivered": column_u64(&f.delivered),
            "srtt_s": column_f64(&f.srtt_s),
            "rtt_s": column_f64(&f.rtt_s),
            "queue_packets": column_u64(&q.queue_packets),
            "queue_bytes": column_u64(&q.queue_bytes),
            "queue_drops": column_u64(&q.drops),
        });
        for (name, col) in &f.cc {
            series[name] = json!(column_f64(col));
        }
        // The traffic sources' connection records, one checksum over all of them (NaN written as null).
        let records = serde_json::to_string(&sim.connection_records()).expect("records serialise");
        series["connection_records"] = json!(fnv1a(records.bytes()));
        let line = json!({"scenario": s.name, "summary": sim.summary(), "series": series});
        println!("{line}");
    }
}
