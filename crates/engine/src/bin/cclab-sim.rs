//! Run one engine config (JSON, as produced by the Python front) without Python: for profiling and for
//! benchmarks that want the engine alone. Prints the summary as JSON.

use cclab_engine::Simulation;
use std::time::Instant;

fn main() {
    let path = match std::env::args().nth(1) {
        Some(p) => p,
        None => {
            eprintln!("usage: cclab-sim ENGINE_CONFIG.json");
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
