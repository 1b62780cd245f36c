//! The soak run's engine side (benchmarks/soak.py): one engine config, run in checkpoints, each printed as
//! a JSON line with the invariants' figures, so that the Python side can check that no counter wraps (every
//! count only grows), that packets are conserved exactly at every checkpoint and at the end, and sample the
//! process's memory while it runs. Beside the totals, each line carries every flow's counters and every
//! reported link's, so the checks can be made per flow and per link too. Not a test: a long run is an hour.
//!
//!     cargo run --release --example soak -- CONFIG.json CHECKPOINTS

use cclab_engine::time::SimTime;
use cclab_engine::{Simulation, SOURCE_HASH};
use serde_json::json;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: soak ENGINE_CONFIG.json CHECKPOINTS");
        std::process::exit(2);
    }
    let text = std::fs::read_to_string(&args[1]).unwrap_or_else(|e| {
        eprintln!("error: {}: {e}", args[1]);
        std::process::exit(2);
    });
    let checkpoints: u64 = args[2].parse().expect("CHECKPOINTS is a whole number");
    let mut sim = Simulation::from_json(&text).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2);
    });
    let end = sim.end().0;
    let started = Instant::now();
    for k in 1..=checkpoints {
        let now = SimTime(end / checkpoints * k + if k == checkpoints { end % checkpoints } else { 0 });
        sim.run_until(now).expect("the run finishes");
        let (sent, received, dropped, in_network) = sim.data_packet_census();
        let cwnds = sim.cwnds();
        let queues = sim.queue_levels();
        let progress = sim.flow_progress();
        let summary = sim.summary();
        let links: Vec<_> = summary
            .links
            .iter()
            .zip(&queues)
            .map(|(l, q)| json!({"name": l.name, "forwarded": l.packets_forwarded, "drops": l.drops,
                                "error_drops": l.error_drops, "waiting": q.packets, "max_waiting": q.max_packets,
                                "limit_packets": q.limit_packets}))
            .collect();
        let flows: Vec<_> = progress
            .iter()
            .zip(&summary.flows)
            .map(|(p, f)| json!({"sent": p.packets_sent, "new_sent": p.new_packets_sent, "received": p.received,
                                "delivered": p.delivered, "goodput_bps": f.goodput_bps,
                                "delivered_bps": f.delivered_bps, "mean_rtt_s": f.mean_rtt_s,
                                "loss_events": f.loss_events, "retransmissions": f.retransmissions,
                                "timeouts": f.timeouts, "cwnd": f.final_cwnd}))
            .collect();
        let line = json!({
            "engine": SOURCE_HASH,
            "now_ns": sim.now().0,
            "wall_s": started.elapsed().as_secs_f64(),
            "events": sim.events_processed(),
            "events_in_the_past": sim.events_scheduled_in_the_past(),
            "pending_events": sim.pending_events(),
            "events_scheduled": sim.events_processed() + sim.pending_events() as u64,
            "sent": sent, "received": received, "dropped": dropped, "in_network": in_network,
            "delivered": progress.iter().map(|f| f.delivered).sum::<u64>(),
            "new_sent": progress.iter().map(|f| f.new_packets_sent).sum::<u64>(),
            "cwnd_min": cwnds.iter().min(), "cwnd_max": cwnds.iter().max(),
            "queue_max_packets": queues.iter().map(|q| q.max_packets).max(),
            "queue_limit_packets": queues.iter().map(|q| q.limit_packets).min(),
            "bottleneck_forwarded": summary.bottleneck.packets_forwarded,
            "bottleneck_drops": summary.bottleneck.drops,
            "flows": flows,
            "links": links,
        });
        println!("{line}");
    }
}
