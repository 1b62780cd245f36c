//! Run one engine config (JSON, as produced by the Python front) without Python: for profiling and for
//! benchmarks that want the engine alone. Prints the summary as JSON.
//!
//!     cclab-sim ENGINE_CONFIG.json [--packet-by-packet]
//!
//! `--packet-by-packet` turns off every endpoint's taking of packets at the hand-off
//! (`Simulation::without_receiving_ahead`): the same results with more events, for comparing the two.

use cclab_engine::Simulation;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let packet_by_packet = args.iter().any(|a| a == "--packet-by-packet");
    let path = match args.iter().find(|a| !a.starts_with("--")) {
        Some(p) => p.clone(),
        None => {
            eprintln!("usage: cclab-sim ENGINE_CONFIG.json [--packet-by-packet]");
            std::process::exit(2);
        }
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("error: {path}: {e}");
        std::process::exit(2);
    });
    let mut sim = Simulation::from_json(&text).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2);
    });
    if packet_by_packet {
        sim.without_receiving_ahead();
    }
    let started = Instant::now();
    if let Err(e) = sim.run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
    let wall = started.elapsed().as_secs_f64();
    let summary = sim.summary();
    eprintln!("wall {wall:.3} s, {} events, {:.1} M events/s", summary.events, summary.events as f64 / wall / 1e6);
    eprintln!("flow slots {}", sim.flow_slots());
    eprintln!("stale packets {}", sim.stale_packets());
    println!("{}", serde_json::to_string_pretty(&summary).expect("summary serialises"));
}
