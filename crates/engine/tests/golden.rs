//! Golden results: a handful of standard dumbbell runs whose exact summaries and cwnd-trace checksums are
//! stored in tests/golden/. Any change of behaviour shows up here as a diff to review. Regenerate on
//! purpose only: `CCLAB_UPDATE_GOLDEN=1 cargo test -p cclab-engine --test golden`.

use cclab_engine::Simulation;
use serde_json::{json, Value};
use std::path::PathBuf;

fn scenario(cc: Vec<Value>, rate_mbps: u64, delay_ms: u64, queue: u64, loss_rate: f64, flow_extra: Value) -> Value {
    let flows: Vec<Value> = cc
        .into_iter()
        .enumerate()
        .map(|(i, cc)| {
            let mut f = json!({
                "cc": cc,
                "src_access_delay_ns": 1_000_000 * (i as u64 + 1),
                "dst_access_delay_ns": 1_000_000 * (i as u64 + 1),
                "access_rate_bps": rate_mbps * 10_000_000,
                "start_ns": 100_000_000 * i as u64,
            });
            for (k, v) in flow_extra.as_object().unwrap() {
                f[k] = v.clone();
            }
            f
        })
        .collect();
    json!({
        "packet_size": 1500,
        "bottleneck": {"rate_bps": rate_mbps * 1_000_000, "delay_ns": delay_ms * 1_000_000,
                       "queue": {"discipline": "droptail", "limit_packets": queue}, "loss_rate": loss_rate},
        "flows": flows,
        "run": {"duration_ns": 30_000_000_000u64, "measure_from_ns": 10_000_000_000u64, "seed": 7,
                "sample_interval_ns": 10_000_000},
    })
}

fn cases() -> Vec<(&'static str, Value)> {
    vec![
        ("newreno-half-bdp", scenario(vec![json!("newreno")], 20, 20, 35, 0.0, json!({}))),
        ("cubic-2.6.22-one-bdp", scenario(vec![json!({"name": "cubic", "variant": "linux-2.6.22"})], 50, 40, 334, 0.0, json!({}))),
        ("newreno-vs-cubic-lossy", scenario(vec![json!("newreno"), json!("cubic")], 20, 30, 50, 1e-4, json!({}))),
        ("newreno-recovery-delack", scenario(vec![json!("newreno"), json!("newreno")], 10, 25, 20, 0.0,
            json!({"recovery": "newreno", "delayed_ack": true}))),
        ("reno-westwood-linux-2.6-recovery",
            scenario(vec![json!({"name": "newreno", "variant": "linux-2.6.22"}), json!("westwood")], 20, 20, 20, 0.0,
            json!({"recovery": "linux-2.6"}))),
    ]
}

/// FNV-1a over the cwnd trace: a compact fingerprint of the whole window history.
fn fingerprint(values: &[u32]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for v in values {
        for b in v.to_le_bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

#[test]
fn standard_runs_match_their_golden_results() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let update = std::env::var_os("CCLAB_UPDATE_GOLDEN").is_some();
    let mut mismatches = vec![];
    for (name, cfg) in cases() {
        let mut sim = Simulation::from_json(&cfg.to_string()).unwrap();
        sim.run().expect("the run finishes");
        let got = json!({
            "summary": sim.summary(),
            "cwnd_trace_fnv1a": fingerprint(&sim.flow_series().cwnd),
        });
        let path = dir.join(format!("{name}.json"));
        if update {
            std::fs::write(&path, serde_json::to_string_pretty(&got).unwrap() + "\n").unwrap();
            continue;
        }
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("{} missing: run with CCLAB_UPDATE_GOLDEN=1", path.display()));
        let want: Value = serde_json::from_str(&text).unwrap();
        // Compared as the file stores them: serde_json's parser is not correctly rounded in the last bit
        // of every 17-digit float (without its `float_roundtrip` feature), so a value read back from the
        // file may be one ulp off the value it was written from; both sides go through text alike.
        let got: Value = serde_json::from_str(&serde_json::to_string(&got).unwrap()).unwrap();
        if want != got {
            mismatches.push(format!("{name}:\n  want {want}\n  got  {got}"));
        }
    }
    assert!(mismatches.is_empty(), "behaviour changed (review, then regenerate with CCLAB_UPDATE_GOLDEN=1):\n{}", mismatches.join("\n"));
}
