//! Cost per packet against window size: one NewReno flow (SACK) on a dumbbell, from a 10^3-packet to a
//! 10^6-packet window, slow-start overshoot included. Measures wall time and data packets per wall second
//! of the engine alone (no Python), for issue 13's "work per ACK independent of the window".
//!
//! ```text
//! cargo run --release -p cclab-engine --example window_ladder                 # the ladder, 3 rounds
//! cargo run --release -p cclab-engine --example window_ladder -- --rounds 5 --only 10g
//! cargo run --release -p cclab-engine --example window_ladder -- --one 10g --seconds 30 --progress
//! ```
//!
//! Scales (bottleneck rate x one-way delay; buffer 1 BDP = rate x 2 x delay / 1500 B, as the Python
//! front's `size = "1bdp"`; access links 2.5 ms and 10x the bottleneck rate, as the front's defaults):
//!
//! | name  | rate      | delay  | 1 BDP (packets) | simulated |
//! |-------|-----------|--------|-----------------|-----------|
//! | 200m  | 200 Mbit/s| 50 ms  | 1667            | 200 s     |
//! | 1g    | 1 Gbit/s  | 300 ms | 50 000          | 30 s      |
//! | 10g   | 10 Gbit/s | 300 ms | 500 000         | 30 s      |
//!
//! The 1g and 10g runs include the slow-start overshoot (after about 18 RTTs of 0.6 s at 10 Gbit/s) and
//! the recovery of the 10^5 (1g) or 10^6 (10g) holes it leaves in one window; 10g is issue 13's run
//! that must finish in under 30 s of wall time. 200m runs long enough (3.3 M packets) to be timed. Each round runs every scale once, in turn,
//! and prints each one's packets per wall second and its cost per packet relative to 200m in the same
//! round: on a loaded machine the ratio within a round is steadier than either number.
//!
//! `--one NAME --progress` prints, each simulated second, the wall time and packets of that second, which
//! shows where a run spends its time. `--recovery sack|newreno|linux-2.6` and `--cc NAME` change the flow.

use cclab_engine::Simulation;
use serde_json::json;
use std::time::Instant;

struct Scale {
    name: &'static str,
    rate_bps: u64,
    delay_ms: u64,
    seconds: u64,
}

const SCALES: [Scale; 3] = [
    Scale { name: "200m", rate_bps: 200_000_000, delay_ms: 50, seconds: 200 },
    Scale { name: "1g", rate_bps: 1_000_000_000, delay_ms: 300, seconds: 30 },
    Scale { name: "10g", rate_bps: 10_000_000_000, delay_ms: 300, seconds: 30 },
];

const PACKET_SIZE: u64 = 1500;

struct Options {
    rounds: u32,
    only: Vec<String>,
    one: Option<String>,
    seconds: Option<u64>,
    progress: bool,
    recovery: String,
    cc: String,
    buffer_bdp: f64,
}

fn parse_options() -> Options {
    let mut o = Options {
        rounds: 3,
        only: vec![],
        one: None,
        seconds: None,
        progress: false,
        recovery: "sack".into(),
        cc: "newreno".into(),
        buffer_bdp: 1.0,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage(&format!("{a} needs a value")));
        match a.as_str() {
            "--rounds" => o.rounds = value().parse().unwrap_or_else(|_| usage("--rounds: a count")),
            "--only" => o.only.push(value()),
            "--one" => o.one = Some(value()),
            "--seconds" => o.seconds = Some(value().parse().unwrap_or_else(|_| usage("--seconds: whole seconds"))),
            "--progress" => o.progress = true,
            "--recovery" => o.recovery = value(),
            "--cc" => o.cc = value(),
            "--buffer-bdp" => o.buffer_bdp = value().parse().unwrap_or_else(|_| usage("--buffer-bdp: a number")),
            _ => usage(&format!("unknown argument {a}")),
        }
    }
    o
}

fn usage(msg: &str) -> ! {
    eprintln!("error: {msg}");
    eprintln!("usage: window_ladder [--rounds N] [--only 200m|1g|10g]... [--one NAME [--progress]] [--seconds S]");
    eprintln!("                     [--recovery sack|newreno|linux-2.6] [--cc NAME] [--buffer-bdp K]");
    std::process::exit(2);
}

fn config(scale: &Scale, o: &Options, seconds: u64) -> String {
    let bdp = scale.rate_bps as f64 * 2.0 * scale.delay_ms as f64 * 1e-3 / (PACKET_SIZE * 8) as f64;
    let limit = (bdp * o.buffer_bdp).round().max(1.0) as u64;
    json!({
        "packet_size": PACKET_SIZE,
        "bottleneck": {"rate_bps": scale.rate_bps, "delay_ns": scale.delay_ms * 1_000_000,
                       "queue": {"discipline": "droptail", "limit_packets": limit}},
        "flows": [{"cc": {"name": o.cc}, "src_access_delay_ns": 2_500_000, "dst_access_delay_ns": 2_500_000,
                   "access_rate_bps": 10 * scale.rate_bps, "recovery": o.recovery}],
        "run": {"duration_ns": seconds * 1_000_000_000, "seed": 1, "sample_interval_ns": 100_000_000},
    })
    .to_string()
}

/// Data packets sent so far (retransmissions included), from the summary measured since time 0.
fn packets(sim: &Simulation) -> u64 {
    sim.summary().flows.iter().map(|f| f.packets_sent).sum()
}

struct Measured {
    wall_s: f64,
    packets: u64,
    drops: u64,
}

fn run(scale: &Scale, o: &Options, progress: bool) -> Measured {
    let seconds = o.seconds.unwrap_or(scale.seconds);
    let mut sim = Simulation::from_json(&config(scale, o, seconds)).expect("valid config");
    let started = Instant::now();
    if progress {
        let (mut last_wall, mut last_packets) = (0.0, 0);
        for s in 1..=seconds {
            sim.run_until(cclab_engine::time::SimTime(s * 1_000_000_000)).expect("the run finishes");
            let wall = started.elapsed().as_secs_f64();
            let p = packets(&sim);
            let drops = sim.summary().bottleneck.drops;
            println!(
                "  t = {s:>3} s  wall {wall:8.2} s (+{:6.2})  packets {p:>10} (+{:>8})  {:>6.2} M packets/s  drops {drops}",
                wall - last_wall,
                p - last_packets,
                (p - last_packets) as f64 / (wall - last_wall).max(1e-9) / 1e6
            );
            (last_wall, last_packets) = (wall, p);
        }
    } else {
        sim.run().expect("the run finishes");
    }
    let wall_s = started.elapsed().as_secs_f64();
    Measured { wall_s, packets: packets(&sim), drops: sim.summary().bottleneck.drops }
}

fn main() {
    let o = parse_options();
    if let Some(name) = &o.one {
        let scale = SCALES.iter().find(|s| s.name == name).unwrap_or_else(|| usage("--one: 200m, 1g or 10g"));
        let m = run(scale, &o, o.progress);
        println!(
            "{}: {:.2} s wall, {} packets, {:.3} M packets/s, {} drops",
            scale.name,
            m.wall_s,
            m.packets,
            m.packets as f64 / m.wall_s / 1e6,
            m.drops
        );
        return;
    }
    let scales: Vec<&Scale> = SCALES.iter().filter(|s| s.name == "200m" || o.only.is_empty() || o.only.iter().any(|n| n == s.name)).collect();
    println!("recovery {}, cc {}, buffer {} BDP", o.recovery, o.cc, o.buffer_bdp);
    for round in 1..=o.rounds {
        let mut base_ns_per_packet = None;
        for scale in &scales {
            let m = run(scale, &o, false);
            let ns_per_packet = m.wall_s * 1e9 / m.packets as f64;
            let base = *base_ns_per_packet.get_or_insert(ns_per_packet);
            println!(
                "round {round} {:>5}: {:8.2} s wall {:>10} packets {:>7.3} M packets/s {:>7.1} ns/packet  x{:.2} of 200m  drops {}",
                scale.name,
                m.wall_s,
                m.packets,
                m.packets as f64 / m.wall_s / 1e6,
                ns_per_packet,
                ns_per_packet / base,
                m.drops
            );
        }
    }
}
