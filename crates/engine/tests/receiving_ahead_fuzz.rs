//! Random one-flow dumbbells run both ways (`Simulation::without_receiving_ahead`), compared after every
//! step: summary (without `events`), progress, census, and at the end every series. Round rates and
//! delays make packets meet samples at the same nanosecond, where the two paths could order them
//! differently (tests/receiving_ahead.rs). In-suite: 100 cases; a long run:
//!
//!     CCLAB_AHEAD_CASES=5000 CCLAB_AHEAD_SEED=7 cargo test --release -p cclab-engine --test receiving_ahead_fuzz

mod ahead;

use cclab_engine::sim::Simulation;
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
        "recovery": d.pick(&["sack", "newreno", "linux-2.6"]),
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

#[test]
fn random_lone_flows_read_the_same_both_ways() {
    let mut d = Draw(env("CCLAB_AHEAD_SEED", 20261125) | 1);
    let cases = env("CCLAB_AHEAD_CASES", 100);
    let mut taken = 0;
    for case in 0..cases {
        let cfg = config(&mut d, case);
        let step = d.pick(&[999_999u64, 7 * MS, 100 * MS, 1_500 * MS]);
        let text = cfg.to_string();
        let mut ahead = Simulation::from_json(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        let mut by_packet = Simulation::from_json(&text).unwrap();
        by_packet.without_receiving_ahead();
        let mut t = 0;
        while !ahead.is_done() {
            t += step;
            ahead.run_until(SimTime(t)).unwrap();
            by_packet.run_until(SimTime(t)).unwrap();
            ahead::assert_same(&ahead, &by_packet, &format!("case {case} at {t} ns: {text}"));
        }
        taken += (ahead.events_processed() < by_packet.events_processed()) as u64;
    }
    // Most cases qualify (one flow, plain access links); those sampled too often or lossy ones keep the path.
    assert!(taken * 2 > cases, "only {taken} of {cases} took the path");
}
