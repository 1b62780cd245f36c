//! Random dumbbells of one flow and of several run both ways (`Simulation::without_receiving_ahead`),
//! compared after every step: summary (without `events`), progress, census, and every series. Round
//! rates and delays make packets meet samples, and several flows' packets each other, at the same
//! nanosecond, where the two paths could order them differently (tests/receiving_ahead.rs). In-suite:
//! 100 + 40 one-flow cases, 40 of several flows and 10 with traffic sources (few: with 30 of those, this
//! file took 2.6 min of the CI's debug build, against 50 s without them); a long run:
//!
//!     CCLAB_AHEAD_CASES=5000 CCLAB_AHEAD_ODD_CASES=2000 CCLAB_AHEAD_SEVERAL_CASES=2000 \
//!         CCLAB_AHEAD_TRAFFIC_CASES=2000 CCLAB_AHEAD_SEED=7 cargo test --release -p cclab-engine --test receiving_ahead_fuzz

mod ahead;

use cclab_engine::time::SimTime;
use serde_json::{json, Value};

const MS: u64 = 1_000_000;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// xorshift64: enough to spread the cases, and the same on every machine.
struct Draw(u64);
impl Draw {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[(self.next() % xs.len() as u64) as usize]
    }
    fn one_in(&mut self, n: u64) -> bool {
        self.next() % n == 0
    }
}

fn config(d: &mut Draw, case: u64) -> Value {
    let rate = d.pick(&[1_000_000u64, 2_000_000, 5_000_000, 10_000_000, 12_000_000, 20_000_000, 24_000_000, 50_000_000]);
    let mut flow = json!({
        "cc": d.pick(&["newreno", "cubic", "bbr", "vegas", "westwood", "highspeed", "htcp", "compound", "scalable", "bic"]),
        "src_access_delay_ns": d.pick(&[0u64, 1, 2, 5, 10, 30]) * MS + d.pick(&[0u64, 0, 250_000, 4_796_000]),
        "dst_access_delay_ns": d.pick(&[0u64, 1, 2, 5, 7]) * MS + d.pick(&[0u64, 0, 500_000]),
        "access_rate_bps": rate * d.pick(&[1u64, 2, 5, 10, 100]),
        "rto_min_ns": d.pick(&[200 * MS, 200 * MS, 10 * MS, MS]),
        "recovery": d.pick(&["sack", "newreno", "linux-2.6", "ns2-sack1"]),
    });
    if d.one_in(4) {
        flow["pacing"] = json!({"burst": 1 + d.next() % 4, "gap_ns": d.next() % (2 * MS), "jitter_ns": d.next() % 100_000});
    }
    if d.one_in(4) {
        flow["size_bytes"] = json!(10_000 + d.next() % 2_000_000);
    }
    if d.one_in(4) {
        flow["stop_ns"] = json!((100 + d.next() % 1400) * MS);
    }
    if d.one_in(4) {
        flow["start_jitter_ns"] = json!((1 + d.next() % 50) * MS);
    }
    if d.one_in(5) {
        flow["frto"] = json!("sack");
    }
    if d.one_in(5) {
        flow["direction"] = json!("reverse");
    }
    if d.one_in(4) {
        // ns-2's overhead_: a per-packet hold on the sender's access link, or the delayed-send timer in
        // front of the sender's decisions (a timer with work at nearly every ACK).
        flow["overhead_ns"] = json!(d.pick(&[1_000u64, 8_000, 100_000, MS]));
        flow["overhead_model"] = json!(d.pick(&["per-packet", "delayed-send"]));
    }
    json!({
        "packet_size": d.pick(&[1500u64, 1000, 576]),
        "ack_size": d.pick(&[40u64, 60, 64]),
        "bottleneck": {"rate_bps": rate, "delay_ns": d.pick(&[0u64, 1, 2, 5, 10, 20]) * MS + d.pick(&[0u64, 0, 500_000, 123_456]),
                       "queue": {"discipline": "droptail", "limit_packets": d.pick(&[2u64, 5, 10, 30, 100])},
                       "loss_rate": d.pick(&[0.0, 0.0, 1e-3, 1e-2])},
        "flows": [flow],
        "run": {"duration_ns": 1_500 * MS, "measure_from_ns": d.pick(&[0u64, 1, 300 * MS, 1_000 * MS]), "seed": case,
                "sample_interval_ns": d.pick(&[0u64, MS, 10 * MS, 26 * MS, 50 * MS, 100 * MS, 333 * MS]),
                "record_loss_events": true},
    })
}

/// Run `cases` scenarios from `make` both ways, each read at every step (one of `steps`, drawn per case);
/// returns how many took a path ahead (fewer events).
fn run_cases(d: &mut Draw, cases: u64, make: fn(&mut Draw, u64) -> Value, steps: &[u64], what: &str) -> u64 {
    let mut taken = 0;
    for case in 0..cases {
        let cfg = make(d, case);
        let step = d.pick(steps);
        let text = cfg.to_string();
        let (mut ahead, mut by_packet) = ahead::both_ways(&text);
        let mut t = 0;
        while !ahead.is_done() {
            t += step;
            ahead.run_until(SimTime(t)).unwrap();
            by_packet.run_until(SimTime(t)).unwrap();
            ahead::assert_same(&ahead, &by_packet, &format!("{what}case {case} at {t} ns: {text}"));
        }
        taken += (ahead.events_processed() < by_packet.events_processed()) as u64;
    }
    taken
}

#[test]
fn random_lone_flows_read_the_same_both_ways() {
    let mut d = Draw(env("CCLAB_AHEAD_SEED", 20261125) | 1);
    let cases = env("CCLAB_AHEAD_CASES", 100);
    let taken = run_cases(&mut d, cases, config, &[999_999, 7 * MS, 100 * MS, 1_500 * MS], "");
    // Most cases qualify (one flow, plain access links); those sampled too often or lossy ones keep the path.
    assert!(taken * 2 > cases, "only {taken} of {cases} took the path");
}

/// Cases the first generator draws rarely or never: a reverse bottleneck of 1-3 packets (ACKs dropped
/// and queued behind each other), pacing gaps and samples at the access links' own times (ties), the
/// measurement starting as the first packet arrives, transfers and stops, and steps of odd sizes with
/// some that go back in time (`run_until` before now does nothing).
fn odd_config(d: &mut Draw, case: u64) -> Value {
    let mut cfg = config(d, case);
    let packet = cfg["packet_size"].as_u64().unwrap();
    let ack = cfg["ack_size"].as_u64().unwrap();
    let access_rate = cfg["flows"][0]["access_rate_bps"].as_u64().unwrap();
    let rate = cfg["bottleneck"]["rate_bps"].as_u64().unwrap();
    let tx = |bytes: u64, bps: u64| bytes * 8 * 1_000_000_000 / bps;
    let src = cfg["flows"][0]["src_access_delay_ns"].as_u64().unwrap();
    let dst = cfg["flows"][0]["dst_access_delay_ns"].as_u64().unwrap();
    let data_way = tx(packet, access_rate) + src;
    let ack_way = tx(ack, access_rate) + dst;
    if d.one_in(2) {
        cfg["bottleneck"]["reverse_queue"] = json!({"discipline": "droptail", "limit_packets": 1 + d.next() % 3});
        if d.one_in(2) {
            cfg["bottleneck"]["reverse_rate_bps"] = json!(rate / d.pick(&[5u64, 20, 100]));
        }
    }
    if d.one_in(3) {
        let gap = d.pick(&[data_way, ack_way, data_way + ack_way, tx(packet, rate), tx(ack, rate) + src]);
        cfg["flows"][0]["pacing"] = json!({"burst": 1 + d.next() % 3, "gap_ns": gap});
    }
    if d.one_in(3) {
        let near = d.pick(&[data_way, ack_way, data_way + tx(packet, rate), 2 * data_way]);
        let interval = (near + d.pick(&[0u64, 1, 2, 1_000])).max(1);
        cfg["run"]["sample_interval_ns"] = json!(interval);
    }
    if d.one_in(3) {
        cfg["run"]["measure_from_ns"] = json!(d.pick(&[0, 1, data_way, data_way + tx(packet, rate), src]));
    }
    if d.one_in(3) {
        cfg["flows"][0]["size_bytes"] = json!(1 + d.next() % 300_000);
    }
    if d.one_in(3) {
        // After the start and its jitter (at most 50 ms), as the config requires.
        cfg["flows"][0]["stop_ns"] = json!(51 * MS + d.next() % (550 * MS));
    }
    let duration = d.pick(&[300 * MS, 600 * MS, 600 * MS + 1]);
    cfg["run"]["duration_ns"] = json!(duration);
    let measure_from = cfg["run"]["measure_from_ns"].as_u64().unwrap();
    cfg["run"]["measure_from_ns"] = json!(if measure_from < duration { measure_from } else { duration / 2 });
    cfg
}

#[test]
fn odd_lone_flows_read_the_same_both_ways_at_odd_steps() {
    let mut d = Draw(env("CCLAB_AHEAD_SEED", 20261125).wrapping_mul(3) | 1);
    let cases = env("CCLAB_AHEAD_ODD_CASES", 40);
    for case in 0..cases {
        let cfg = odd_config(&mut d, case);
        // A few odd steps, then one long enough that the run ends in a few hundred steps.
        let mut steps: Vec<i64> = (0..d.next() % 4).map(|_| d.pick(&[1i64, 2, 999_999, 3_333_331, -1, -5_000_000])).collect();
        steps.push(d.pick(&[3_333_331i64, 7_000_000, 40_000_001, 100_000_000]));
        let text = cfg.to_string();
        let (mut ahead, mut by_packet) = ahead::both_ways(&text);
        // From the time reached, so that a step back asks for a time before now.
        let mut k = 0;
        while !ahead.is_done() {
            let step = steps[k % steps.len()];
            k += 1;
            let t = (ahead.now().0 as i64 + step).max(0) as u64;
            ahead.run_until(SimTime(t)).unwrap();
            by_packet.run_until(SimTime(t)).unwrap();
            ahead::assert_same(&ahead, &by_packet, &format!("odd case {case} to {t} ns (steps {steps:?}): {text}"));
        }
    }
}

/// Two to six flows on one dumbbell, each drawn as the one-flow cases draw theirs (access delays often
/// equal, so packets of different flows meet at the bottleneck at the same nanosecond), some starting
/// late, stopping or sending a finite transfer, with delayed ACKs now and then; samples from none to
/// every millisecond, and a reverse queue of a few packets in some.
fn several_config(d: &mut Draw, case: u64) -> Value {
    let mut cfg = config(d, case);
    let n = 2 + d.next() % 5;
    let access = d.pick(&[1u64, 2, 5, 10]) * cfg["bottleneck"]["rate_bps"].as_u64().unwrap();
    let mut flows = vec![];
    for i in 0..n {
        let mut flow = config(d, case)["flows"][0].clone();
        flow["access_rate_bps"] = json!(access);
        flow.as_object_mut().unwrap().remove("direction");
        flow.as_object_mut().unwrap().remove("pacing");
        if d.one_in(2) {
            flow["src_access_delay_ns"] = json!(MS);
            flow["dst_access_delay_ns"] = json!(2 * MS);
        }
        if d.one_in(3) {
            flow["start_ns"] = json!(d.pick(&[0u64, 10, 70, 500]) * MS);
            flow.as_object_mut().unwrap().remove("start_jitter_ns");
            flow.as_object_mut().unwrap().remove("stop_ns"); // it may come before the new start
        }
        if d.one_in(6) {
            flow["delayed_ack"] = json!(true);
        }
        if i == 0 && d.one_in(4) {
            flow["direction"] = json!("reverse");
        }
        flows.push(flow);
    }
    cfg["flows"] = json!(flows);
    if d.one_in(3) {
        cfg["bottleneck"]["reverse_queue"] = json!({"discipline": "droptail", "limit_packets": 1 + d.next() % 10});
    }
    cfg["bottleneck"]["queue"]["limit_packets"] = json!(d.pick(&[5u64, 20, 100, 300]));
    let duration = d.pick(&[1_000 * MS, 2_000 * MS]);
    cfg["run"]["duration_ns"] = json!(duration);
    let measure_from = cfg["run"]["measure_from_ns"].as_u64().unwrap();
    cfg["run"]["measure_from_ns"] = json!(measure_from.min(duration / 2));
    cfg
}

/// A family of cases with several flows (or sources): its own stream of draws (the seed times `spread`),
/// `default` cases unless `cases_var` says otherwise, and at least a third of them taking a path ahead.
fn several_family(spread: u64, cases_var: &str, default: u64, make: fn(&mut Draw, u64) -> Value, what: &str) {
    let mut d = Draw(env("CCLAB_AHEAD_SEED", 20261125).wrapping_mul(spread) | 1);
    let cases = env(cases_var, default);
    let taken = run_cases(&mut d, cases, make, &[999_999, 7 * MS, 100 * MS, 2_000 * MS], what);
    assert!(taken * 3 > cases, "only {taken} of {cases} took a path ahead");
}

#[test]
fn random_runs_of_several_flows_read_the_same_both_ways() {
    several_family(5, "CCLAB_AHEAD_SEVERAL_CASES", 40, several_config, "several, ");
}

/// `several_config` (or a lone flow) with traffic sources beside the flows: connections that come and go
/// over their source's own access links, sharing both bottlenecks with the flows, which take their
/// packets ahead while the connections' packets go packet by packet.
fn traffic_config(d: &mut Draw, case: u64) -> Value {
    let mut cfg = if d.one_in(4) { config(d, case) } else { several_config(d, case) };
    let mut sources = vec![];
    for i in 0..1 + d.next() % 2 {
        let mut flow = config(d, case)["flows"][0].clone();
        for key in ["size_bytes", "stop_ns", "start_jitter_ns", "pacing"] {
            flow.as_object_mut().unwrap().remove(key);
        }
        if i == 1 && d.one_in(2) {
            flow["direction"] = json!("reverse");
        }
        let size = d.pick(&[3_000.0f64, 20_000.0, 100_000.0]);
        let mut source = json!({"group": format!("web{i}"), "flow": flow,
                                "size_bytes": {"exponential": size}});
        if d.one_in(2) {
            source["offered_load"] = json!(d.pick(&[0.1f64, 0.3, 0.6]));
        } else {
            // Arrivals on a round grid, to meet the flows' packets and the samples at the same nanosecond.
            source["inter_arrival_ns"] = json!({"fixed": d.pick(&[MS, 10 * MS, 50 * MS])});
        }
        if d.one_in(3) {
            source["start_ns"] = json!(d.pick(&[0u64, 10, 300]) * MS);
            source["stop_ns"] = json!(d.pick(&[500u64, 900]) * MS);
        }
        sources.push(source);
    }
    cfg["traffic"] = json!(sources);
    cfg
}

#[test]
fn random_runs_with_traffic_sources_read_the_same_both_ways() {
    several_family(11, "CCLAB_AHEAD_TRAFFIC_CASES", 10, traffic_config, "traffic, ");
}
