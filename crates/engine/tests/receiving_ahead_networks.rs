//! Receiving ahead (`Simulation::receive_at_hand_off`) beyond the dumbbell's one forward flow: networks
//! written as links, a reverse flow, ACKs on another route, models on the links around the receiver,
//! ECN, and readings at awkward times. Every case is run both ways in steps and compared at each step;
//! each says whether the path must be taken (fewer events) or kept packet by packet (as many).

mod ahead;

use ahead::assert_same;
use cclab_engine::sim::Simulation;
use cclab_engine::time::SimTime;
use serde_json::{json, Value};

const MS: u64 = 1_000_000;

fn compare(cfg: &Value, steps: &[u64]) -> (u64, u64) {
    ahead::compare(&cfg.to_string(), steps)
}

fn taken((ahead, by_packet): (u64, u64), what: &str) {
    assert!(ahead * 10 < by_packet * 9, "{what}: {ahead} events against {by_packet}: the path is not taken");
}

fn kept((ahead, by_packet): (u64, u64), what: &str) {
    assert_eq!(ahead, by_packet, "{what}: the packet-by-packet path is kept");
}

fn flow(extra: Value) -> Value {
    let mut f = json!({"cc": "newreno", "src_access_delay_ns": 2 * MS, "dst_access_delay_ns": 3 * MS,
                       "access_rate_bps": 100_000_000u64});
    f.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    f
}

fn run(sample_ns: u64, extra: Value) -> Value {
    let mut r = json!({"duration_ns": 1_500 * MS, "measure_from_ns": 400 * MS, "seed": 7, "sample_interval_ns": sample_ns});
    r.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    r
}

/// One flow on a 10 Mbit/s, 10 ms dumbbell with a 20-packet queue (a hand-off to the receiver's
/// access link at most 24 ms before the ACK leaves it: samples every 50 ms keep the path).
fn dumbbell(flow_extra: Value, bottleneck_extra: Value, run_extra: Value, sample_ns: u64) -> Value {
    let mut b = json!({"rate_bps": 10_000_000u64, "delay_ns": 10 * MS, "queue": {"discipline": "droptail", "limit_packets": 20}});
    b.as_object_mut().unwrap().extend(bottleneck_extra.as_object().unwrap().clone());
    json!({"packet_size": 1500, "bottleneck": b, "flows": [flow(flow_extra)], "run": run(sample_ns, run_extra)})
}

fn link(name: &str, from: &str, to: &str, rate_bps: u64, delay_ns: u64, queue: Option<u64>, extra: Value) -> Value {
    let mut l = json!({"name": name, "from": from, "to": to, "rate_bps": rate_bps, "delay_ns": delay_ns,
                       "queue": queue.map(|n| json!({"discipline": "droptail", "limit_packets": n}))});
    l.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    l
}

const STEPS: [u64; 3] = [7 * MS, 130 * MS, 1]; // short, long, and a nanosecond (a step that ends mid-flight)

#[test]
fn a_reverse_flow_takes_its_packets_ahead_and_reads_the_same() {
    taken(compare(&dumbbell(json!({"direction": "reverse"}), json!({}), json!({}), 50 * MS), &STEPS), "reverse");
}

#[test]
fn transfers_stops_jitter_ecn_and_loss_read_the_same() {
    let red = json!({"queue": {"discipline": "red", "limit_packets": 20, "params": {"ecn": true}}});
    let cases = [
        ("transfer", dumbbell(json!({"size_bytes": 400_000u64, "group": "t"}), json!({}), json!({}), 50 * MS)),
        ("stop", dumbbell(json!({"stop_ns": 700 * MS, "group": "s"}), json!({}), json!({}), 50 * MS)),
        ("jitter", dumbbell(json!({"start_ns": 30 * MS, "start_jitter_ns": 20 * MS}), json!({}), json!({}), 50 * MS)),
        ("loss", dumbbell(json!({}), json!({"loss_rate": 0.01}), json!({"record_loss_events": true, "rtt_histogram": true}), 50 * MS)),
        // RED is a scheduled queue: the bottleneck hands off, not plainly; with samples off it qualifies.
        ("ecn", dumbbell(json!({"ecn": true}), red, json!({}), 0)),
    ];
    for (name, cfg) in cases {
        taken(compare(&cfg, &STEPS), name);
    }
}

#[test]
fn readings_at_odd_times_read_the_same() {
    // Measured from 0; samples off; samples that do not divide the run; a sample at the end time.
    let cases = [
        ("measured from 0", dumbbell(json!({}), json!({}), json!({"measure_from_ns": 0}), 50 * MS)),
        ("no samples", dumbbell(json!({}), json!({}), json!({}), 0)),
        ("samples every 77 ms", dumbbell(json!({}), json!({}), json!({}), 77 * MS)),
        ("a sample at the end", dumbbell(json!({}), json!({}), json!({"duration_ns": 1_250 * MS}), 125 * MS)),
    ];
    for (name, cfg) in cases {
        taken(compare(&cfg, &STEPS), name);
    }
    // Steps past the end and steps back in time (run_until to a time before now does nothing).
    let cfg = dumbbell(json!({}), json!({}), json!({}), 50 * MS);
    let text = cfg.to_string();
    let mut ahead = Simulation::from_json(&text).unwrap();
    let mut by_packet = Simulation::from_json(&text).unwrap();
    by_packet.without_receiving_ahead();
    for t in [333 * MS, 100 * MS, 333 * MS + 1, 0, 900 * MS, 5_000 * MS, 10 * MS] {
        ahead.run_until(SimTime(t)).unwrap();
        by_packet.run_until(SimTime(t)).unwrap();
        assert_same(&ahead, &by_packet, &format!("after run_until({t})"));
    }
}

#[test]
fn a_route_over_several_links_and_acks_on_another_route_read_the_same() {
    // src -> a -> b -> c -> dst: a-b and b-c have queues (b-c hands off to c->dst); ACKs go back
    // dst -> c -> a -> src over their own links (c-a direct), or retrace the route.
    let mut links = vec![
        link("src-a", "src", "a", 100_000_000, 2 * MS, None, json!({})),
        link("a-b", "a", "b", 20_000_000, 5 * MS, Some(30), json!({})),
        link("b-c", "b", "c", 10_000_000, 5 * MS, Some(20), json!({})),
        link("c-dst", "c", "dst", 100_000_000, 3 * MS, None, json!({})),
        link("dst-c", "dst", "c", 100_000_000, 3 * MS, None, json!({})),
        link("c-b", "c", "b", 10_000_000, 5 * MS, Some(20), json!({})),
        link("b-a", "b", "a", 20_000_000, 5 * MS, Some(30), json!({})),
        link("a-src", "a", "src", 100_000_000, 2 * MS, None, json!({})),
        link("c-a", "c", "a", 10_000_000, 9 * MS, Some(20), json!({})),
    ];
    let route = json!(["src", "a", "b", "c", "dst"]);
    let retrace = json!({"packet_size": 1500, "topology": {"links": links.clone()},
                         "flows": [flow(json!({"route": route}))], "run": run(60 * MS, json!({}))});
    taken(compare(&retrace, &STEPS), "retraced route");
    let shortcut = json!({"packet_size": 1500, "topology": {"links": links.clone()},
                          "flows": [flow(json!({"route": route, "ack_route": ["dst", "c", "a", "src"]}))],
                          "run": run(60 * MS, json!({}))});
    taken(compare(&shortcut, &STEPS), "ACKs over c-a");
    // A first link back with a queue: its ACKs cannot enter it ahead of time.
    links[4] = link("dst-c", "dst", "c", 100_000_000, 3 * MS, Some(50), json!({}));
    let queued_back = json!({"packet_size": 1500, "topology": {"links": links},
                             "flows": [flow(json!({"route": route}))], "run": run(60 * MS, json!({}))});
    kept(compare(&queued_back, &STEPS), "a queue on the first link back");
}

#[test]
fn models_on_the_receivers_links_keep_the_packet_by_packet_path() {
    let route = json!(["src", "a", "b", "dst"]);
    let net = |last: Value, back: Value| {
        let links = vec![
            link("src-a", "src", "a", 100_000_000, 2 * MS, None, json!({})),
            link("a-b", "a", "b", 10_000_000, 10 * MS, Some(20), json!({})),
            link("b-dst", "b", "dst", 100_000_000, 3 * MS, None, last),
            link("dst-b", "dst", "b", 100_000_000, 3 * MS, None, back),
            link("b-a", "b", "a", 10_000_000, 10 * MS, Some(20), json!({})),
            link("a-src", "a", "src", 100_000_000, 2 * MS, None, json!({})),
        ];
        json!({"packet_size": 1500, "topology": {"links": links}, "flows": [flow(json!({"route": route}))],
               "run": run(50 * MS, json!({}))})
    };
    taken(compare(&net(json!({}), json!({})), &STEPS), "plain");
    for (name, model) in ahead::link_models(6 * MS, 5_000_000) {
        kept(compare(&net(model.clone(), json!({})), &STEPS), &format!("{name} on the last link"));
        kept(compare(&net(json!({}), model), &STEPS), &format!("{name} on the first link back"));
    }
}

#[test]
fn models_on_the_bottleneck_before_the_receivers_link_read_the_same() {
    // The bottleneck hands off whatever its models (not plainly): with samples off the path is taken;
    // with samples its hand-off to arrival time has no bound, and the packet-by-packet path is kept.
    let outages = json!({"models": {"outages": {"gap_ns": {"fixed": 300 * MS}, "duration_ns": {"fixed": 50 * MS}}}});
    let rates = json!({"models": {"rate_model": {"schedule": {"at_ns": [0, 600 * MS], "rate_bps": [10_000_000u64, 3_000_000u64]}}}});
    let arq = json!({"models": {"arq": {"loss": {"bernoulli": 0.1}, "retry_delay_ns": 5 * MS, "max_attempts": 4}}});
    let delays = json!({"models": {"delay_schedule": {"at_ns": [0, 700 * MS], "delay_ns": [10 * MS, 4 * MS]}}});
    let gilbert = json!({"models": {"loss": {"gilbert_elliott": {"p_good_to_bad": 0.01, "p_bad_to_good": 0.3, "loss_good": 0.0, "loss_bad": 0.5}}}});
    for (name, models) in [("outages", outages), ("rates", rates), ("arq", arq), ("delays", delays), ("gilbert", gilbert)] {
        taken(compare(&dumbbell(json!({}), models.clone(), json!({}), 0), &STEPS), name);
        kept(compare(&dumbbell(json!({}), models, json!({}), 50 * MS), &STEPS), name);
    }
}

#[test]
fn a_queue_series_of_the_receivers_link_back_reads_the_same() {
    // `topology.bottleneck` may name any link: here the receiver's own link back, whose bytes the
    // queue series samples; its ACKs must not be counted before they enter it.
    let links = vec![
        link("src-a", "src", "a", 100_000_000, 2 * MS, None, json!({})),
        link("a-b", "a", "b", 10_000_000, 10 * MS, Some(20), json!({})),
        link("b-dst", "b", "dst", 100_000_000, 3 * MS, None, json!({})),
        link("dst-b", "dst", "b", 100_000_000, 3 * MS, None, json!({})),
        link("b-a", "b", "a", 10_000_000, 10 * MS, Some(20), json!({})),
        link("a-src", "a", "src", 100_000_000, 2 * MS, None, json!({})),
    ];
    for named in ["b-dst", "dst-b"] {
        let cfg = json!({"packet_size": 1500, "topology": {"links": links, "bottleneck": named},
                         "flows": [flow(json!({"route": ["src", "a", "b", "dst"]}))], "run": run(50 * MS, json!({}))});
        let counts = compare(&cfg, &STEPS);
        match named {
            "dst-b" => kept(counts, "the link back sampled"),
            _ => taken(counts, "the receiver's link sampled (its packets enter it at the hand-off either way)"),
        }
    }
}

#[test]
fn models_on_the_senders_links_read_the_same() {
    // The ACK route's last link (the sender's access link back) is fed by the reverse bottleneck's
    // hand-off, which may pass ACKs to a link with models; the data route's first link may have models.
    let route = json!(["src", "a", "b", "dst"]);
    let net = |first: Value, end: Value| {
        let links = vec![
            link("src-a", "src", "a", 100_000_000, 2 * MS, None, first),
            link("a-b", "a", "b", 10_000_000, 10 * MS, Some(20), json!({})),
            link("b-dst", "b", "dst", 100_000_000, 3 * MS, None, json!({})),
            link("dst-b", "dst", "b", 100_000_000, 3 * MS, None, json!({})),
            link("b-a", "b", "a", 10_000_000, 10 * MS, Some(20), json!({})),
            link("a-src", "a", "src", 100_000_000, 2 * MS, None, end),
        ];
        json!({"packet_size": 1500, "topology": {"links": links}, "flows": [flow(json!({"route": route}))],
               "run": run(50 * MS, json!({"record_loss_events": true}))})
    };
    for (_, model) in ahead::link_models(MS, 500_000) {
        for steps in [&STEPS[..], &[1_000 * MS]] {
            compare(&net(model.clone(), json!({})), steps);
            compare(&net(json!({}), model.clone()), steps);
        }
    }
}
