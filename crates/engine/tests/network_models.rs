//! Queue disciplines and link models inside whole runs: each one changes what it should, and nothing else.
//! (The disciplines' and models' own arithmetic is tested beside them, in net/.)

use cclab_engine::Simulation;
use serde_json::{json, Value};

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

/// `n` NewReno flows on a 20 Mbit/s, 20 ms dumbbell with a 1 BDP (67-packet) buffer of `queue`.
fn dumbbell(n: usize, queue: Value, extra: Value) -> Value {
    let flows: Vec<Value> = (0..n)
        .map(|i| json!({"cc": "newreno", "src_access_delay_ns": (i as u64 + 1) * MS, "dst_access_delay_ns": MS,
                        "access_rate_bps": 200_000_000u64, "start_ns": i as u64 * 50 * MS}))
        .collect();
    let mut bottleneck = json!({"rate_bps": 20_000_000u64, "delay_ns": 20 * MS, "queue": queue});
    for (k, v) in extra.as_object().unwrap() {
        bottleneck[k] = v.clone();
    }
    json!({"packet_size": 1500, "bottleneck": bottleneck, "flows": flows,
           "run": {"duration_ns": 60 * S, "measure_from_ns": 20 * S, "seed": 5, "sample_interval_ns": 100 * MS}})
}

fn run(cfg: &Value) -> (Value, Simulation) {
    let mut sim = Simulation::from_json(&cfg.to_string()).unwrap_or_else(|e| panic!("{e}"));
    sim.run().expect("the run finishes");
    (serde_json::to_value(sim.summary()).unwrap(), sim)
}

fn queue(discipline: &str, params: Value) -> Value {
    json!({"discipline": discipline, "limit_packets": 67, "params": params})
}

#[test]
fn every_discipline_runs_and_the_aqms_keep_the_queue_shorter_than_droptail() {
    let (droptail, _) = run(&dumbbell(8, json!({"discipline": "droptail", "limit_packets": 67}), json!({})));
    let tail_queue = droptail["bottleneck"]["mean_queue_packets"].as_f64().unwrap();
    assert!(droptail["links"][0]["early_drops"] == 0 && droptail["links"][0]["overflow_drops"].as_u64().unwrap() > 0);
    for (name, params) in [
        ("red", json!({})),
        ("ared", json!({"bottom": 0.001})),
        ("codel", json!({})),
        ("fq_codel", json!({})),
        ("pie", json!({})),
    ] {
        let (s, _) = run(&dumbbell(8, queue(name, params), json!({})));
        let link = &s["links"][0];
        let mean_queue = link["mean_queue_packets"].as_f64().unwrap();
        assert!(link["early_drops"].as_u64().unwrap() > 0, "{name}: {link}");
        assert_eq!(link["drops"].as_u64(), Some(link["early_drops"].as_u64().unwrap() + link["overflow_drops"].as_u64().unwrap()));
        assert!(mean_queue < 0.8 * tail_queue, "{name}: mean queue {mean_queue} vs DropTail {tail_queue}");
        assert!(link["utilization"].as_f64().unwrap() > 0.85, "{name}: {link}");
    }
}

#[test]
fn a_delay_that_doubles_at_30_s_doubles_the_round_trip_from_then_on() {
    // 20 ms one way -> 40 ms at 30 s: base RTT 2 x (20 + 1 + 1) = 44 ms, plus 0.7 ms of serialisation.
    // A 4-packet receiver window keeps the queue empty, so every sample is the base RTT.
    let schedule = json!({"delay_schedule": {"at_ns": [0, 30 * S], "delay_ns": [20 * MS, 40 * MS]}});
    let min_rtts = |extra: Value| {
        let mut cfg = dumbbell(1, json!({"discipline": "droptail", "limit_packets": 67}), extra);
        cfg["flows"][0]["rwnd_packets"] = json!(4);
        let (_, sim) = run(&cfg);
        let series = sim.flow_series();
        let min_rtt = |from: f64, to: f64| {
            series.time_s.iter().zip(&series.rtt_s).filter(|(t, r)| **t > from && **t < to && r.is_finite())
                .map(|(_, r)| *r).fold(f64::INFINITY, f64::min)
        };
        (min_rtt(5.0, 29.0), min_rtt(31.0, 60.0))
    };
    // The forward direction only: + 20 ms (64.7 ms).
    let (before, after) = min_rtts(json!({"models": schedule.clone()}));
    assert!((0.0447..0.0450).contains(&before), "{before}");
    assert!((0.0647..0.0650).contains(&after), "{after}");
    // Both directions (a re-routed path): + 40 ms (84.7 ms).
    let (before, after) = min_rtts(json!({"models": schedule.clone(), "reverse_models": schedule}));
    assert!((0.0447..0.0450).contains(&before), "{before}");
    assert!((0.0847..0.0850).contains(&after), "{after}");
}

#[test]
fn a_trace_driven_bottleneck_carries_at_most_what_the_trace_offers() {
    // A 10-opportunity trace over 10 ms: 10 x 1500 B per 10 ms = 12 Mbit/s, looping.
    let dir = std::env::temp_dir().join(format!("cclab-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("flat.trace");
    std::fs::write(&path, (1..=10).map(|ms| format!("{ms}\n")).collect::<String>()).unwrap();
    let cfg = dumbbell(2, json!({"discipline": "droptail", "limit_packets": 67}),
                       json!({"rate_bps": 0, "reverse_rate_bps": 12_000_000,
                              "models": {"rate_model": {"trace": {"path": path.to_str().unwrap()}}}}));
    let (s, _) = run(&cfg);
    let link = &s["links"][0];
    assert_eq!(link["rate_bps"], 12_000_000);
    let utilization = link["utilization"].as_f64().unwrap();
    assert!(utilization <= 1.0 + 1e-9 && utilization > 0.9, "{link}");
    let delivered: f64 = s["flows"].as_array().unwrap().iter().map(|f| f["delivered_bps"].as_f64().unwrap()).sum();
    assert!(delivered < 12.2e6 && delivered > 10.5e6, "{delivered}");
    // Scaled to a 6 Mbit/s mean, the same trace carries half as much.
    let mut half = cfg.clone();
    half["bottleneck"]["models"]["rate_model"]["trace"]["mean_bps"] = json!(6_000_000);
    let (s, _) = run(&half);
    assert_eq!(s["links"][0]["rate_bps"], 6_000_000);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn link_layer_arq_turns_loss_into_delay() {
    // 10 % of attempts lost, retried 30 ms later, up to 8 attempts: TCP sees almost no loss (10^-8 of
    // packets fail), the ARQ retransmits about 1/9 of packets, and every delivered packet is in order.
    let arq = json!({"models": {"arq": {"loss": {"bernoulli": 0.1}, "retry_delay_ns": 30 * MS, "max_attempts": 8}}});
    let (s, _) = run(&dumbbell(1, json!({"discipline": "droptail", "limit_packets": 67}), arq));
    let link = &s["links"][0];
    let forwarded = link["packets_forwarded"].as_u64().unwrap() as f64;
    let retries = link["arq_retransmissions"].as_u64().unwrap() as f64;
    assert!((retries / forwarded - 1.0 / 9.0).abs() < 0.01, "{link}");
    assert_eq!(link["arq_failures"], 0);
    // Mean added delay: about 1/9 of packets wait one or more 30 ms retries, and later packets wait
    // behind them (in order): well above 3 ms.
    assert!(link["arq_mean_added_delay_s"].as_f64().unwrap() > 0.003, "{link}");
    // Every TCP loss was a queue overflow: the ARQ repaired all of the link's losses.
    let flow = &s["flows"][0];
    assert!(flow["retransmissions"].as_u64().unwrap() <= link["drops"].as_u64().unwrap() + 3, "{flow} {link}");
    // The same 10 % as plain packet errors cripples the flow; with the ARQ it keeps the link far busier.
    let (lossy, _) = run(&dumbbell(1, json!({"discipline": "droptail", "limit_packets": 67}), json!({"loss_rate": 0.1})));
    let plain = lossy["links"][0]["utilization"].as_f64().unwrap();
    assert!(link["utilization"].as_f64().unwrap() > 3.0 * plain, "ARQ {link} vs plain {plain}");
}

#[test]
fn processing_delay_and_bursty_loss_are_deterministic_and_seeded() {
    let mut links = vec![];
    for (a, b, rate, queue) in [("src", "r", 1_000_000_000u64, None), ("r", "dst", 10_000_000u64, Some(67))] {
        for (from, to) in [(a, b), (b, a)] {
            links.push(json!({"name": format!("{from}-{to}"), "from": from, "to": to, "rate_bps": rate,
                              "delay_ns": 10 * MS,
                              "queue": queue.map(|q| json!({"discipline": "droptail", "limit_packets": q})),
                              "models": if from == "r" && to == "dst" {
                                  json!({"loss": {"gilbert_elliott": {"p_good_to_bad": 0.001, "p_bad_to_good": 0.2,
                                                                       "loss_good": 0.0, "loss_bad": 0.5}}})
                              } else { json!({}) }}));
        }
    }
    let cfg = |seed: u64| json!({
        "packet_size": 1500,
        "topology": {"links": links, "nodes": {"src": {"processing_jitter_ns": 8_000}, "r": {"processing_delay_ns": 2_000}}},
        "flows": [{"cc": "cubic", "route": ["src", "r", "dst"]}],
        "run": {"duration_ns": 20 * S, "measure_from_ns": 5 * S, "seed": seed, "sample_interval_ns": 100 * MS},
    });
    let (a, _) = run(&cfg(1));
    let (b, _) = run(&cfg(1));
    let (c, _) = run(&cfg(2));
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert!(a["links"][0]["error_drops"].as_u64().unwrap() > 0, "{}", a["links"][0]);
}

#[test]
fn with_ecn_the_aqm_marks_instead_of_dropping_and_senders_reduce_without_retransmitting() {
    for discipline in ["red", "codel", "pie"] {
        let mut cfg = dumbbell(8, queue(discipline, json!({"ecn": true})), json!({}));
        for f in cfg["flows"].as_array_mut().unwrap() {
            f["ecn"] = json!(true);
        }
        let (s, _) = run(&cfg);
        let link = &s["links"][0];
        assert!(link["ecn_marks"].as_u64().unwrap() > 0, "{discipline}: {link}");
        let reductions: u64 = s["flows"].as_array().unwrap().iter().map(|f| f["ecn_reductions"].as_u64().unwrap()).sum();
        assert!(reductions > 0, "{discipline}");
        // Marks replace early drops: the few drops left are overflows or marks refused above RED's mark_p.
        let retransmissions: u64 = s["flows"].as_array().unwrap().iter().map(|f| f["retransmissions"].as_u64().unwrap()).sum();
        assert!(retransmissions <= link["drops"].as_u64().unwrap() + 8, "{discipline}: {retransmissions} {link}");
        assert!(link["early_drops"].as_u64().unwrap() < link["ecn_marks"].as_u64().unwrap() / 4, "{discipline}: {link}");
        assert!(link["utilization"].as_f64().unwrap() > 0.85, "{discipline}: {link}");
    }
}

#[test]
fn outages_independent_of_load_cause_timeouts_a_steady_link_does_not() {
    // A 384 kbit/s bottleneck with 150 ms each way and a 60-packet buffer; one NewReno flow limited by a
    // 64 KB receiver window (44 packets of 1500 B), which the buffer holds, so the queue never overflows.
    // Without outages: no timeout. With a fixed 5 s outage every 20 s of gap (onsets at 20, 45, 70 s
    // within 90 s), each stall holds the window longer than the retransmission timeout
    // (srtt + 4 rttvar, about 1.5-2.5 s here): at least one timeout per outage, so at least 3 in all.
    let base = |models: Value| {
        let mut cfg = dumbbell(1, json!({"discipline": "droptail", "limit_packets": 60}),
                               json!({"rate_bps": 384_000, "delay_ns": 150 * MS, "models": models}));
        cfg["flows"][0]["rwnd_packets"] = json!(44);
        cfg["run"]["duration_ns"] = json!(90 * S);
        cfg["run"]["measure_from_ns"] = json!(0);
        cfg
    };
    let (steady, steady_sim) = run(&base(json!({})));
    assert_eq!(steady["flows"][0]["timeouts"], 0, "{}", steady["flows"][0]);
    let outages = json!({"outages": {"gap_ns": {"fixed": 20 * S}, "duration_ns": {"fixed": 5 * S}}});
    let (stalled, stalled_sim) = run(&base(outages.clone()));
    // The sampled RTO (`rto_s`, backoff included) never goes below the 200 ms floor, and backs off
    // during the stalls: the 5 s outage outlasts a first timeout, so the timer doubles at least once
    // above anything the steady flow uses.
    let max_rto = |sim: &Simulation| sim.flow_series().rto_s.iter().cloned().fold(0.0, f64::max);
    assert!(steady_sim.flow_series().rto_s.iter().all(|&r| r >= 0.2));
    assert!(max_rto(&stalled_sim) > 1.5 * max_rto(&steady_sim), "{} vs {}", max_rto(&stalled_sim), max_rto(&steady_sim));
    let timeouts = stalled["flows"][0]["timeouts"].as_u64().unwrap();
    assert!(timeouts >= 3, "{}", stalled["flows"][0]);
    // 15 of 90 s without service: the flow carries at most 75/90 of what the steady one does.
    let goodput = |s: &Value| s["flows"][0]["goodput_bps"].as_f64().unwrap();
    assert!(goodput(&stalled) < goodput(&steady) * 75.0 / 90.0, "{} vs {}", goodput(&stalled), goodput(&steady));
    // The same seed gives the same run.
    let (again, _) = run(&base(outages));
    assert_eq!(again, stalled);
}

#[test]
fn a_drawn_rate_is_constant_within_a_run_and_varies_between_seeds() {
    // Uniform over [1, 3] Mbit/s, one flow with a large window: the link reports the drawn rate, stays
    // full (utilisation near 1 of that rate), and 8 seeds give 8 different rates inside the range.
    let models = json!({"rate_model": {"drawn": {"rate_bps": {"uniform": [1_000_000u64, 3_000_000u64]}}}});
    let mut rates = vec![];
    for seed in 1..=8u64 {
        let mut cfg = dumbbell(1, json!({"discipline": "droptail", "limit_packets": 67}),
                               json!({"rate_bps": 0, "reverse_rate_bps": 20_000_000u64, "models": models.clone()}));
        cfg["run"]["seed"] = json!(seed);
        let (s, _) = run(&cfg);
        let rate = s["links"][0]["rate_bps"].as_u64().unwrap();
        assert!((1_000_000..=3_000_000).contains(&rate), "{rate}");
        // The forwarded packets counted over the 40-s window may include the one under way at its start:
        // at most one 1500-byte packet over the capacity, 12000 / (rate x 40 s).
        let utilization = s["links"][0]["utilization"].as_f64().unwrap();
        let one_packet = 12_000.0 / (rate as f64 * 40.0);
        assert!(utilization > 0.9 && utilization <= 1.0 + one_packet, "seed {seed}: {utilization}");
        rates.push(rate);
    }
    rates.sort();
    rates.dedup();
    assert_eq!(rates.len(), 8, "{rates:?}");
}

#[test]
fn a_bearer_gives_more_capacity_to_more_demand() {
    // A bearer of 1, 2 and 4 Mbit/s that steps up 500 ms after more than 6000 bytes (4 packets) wait and
    // falls back after 1 s idle. Flows limited to 4 packets each by the receiver's window, base RTT
    // 2 x (20 + 1 + 1) = 44 ms (plus serialisation).
    // - One flow: at most 4 packets in the router, one on the wire and 3 (4500 bytes) waiting, never over
    //   the threshold, so the bearer stays at 1 Mbit/s and the flow gets at most that.
    // - Four flows: 16 packets, 15 waiting at 1 Mbit/s: the bearer steps up to 2, then 4 Mbit/s (16 x
    //   12 kbit / 44 ms = 4.4 Mbit/s of demand keeps more than 4 waiting), and the four flows together
    //   get more than the 2 Mbit/s of the middle rate.
    let models = json!({"rate_model": {"bearer": {"rates_bps": [1_000_000u64, 2_000_000u64, 4_000_000u64],
                        "up_queue_bytes": 6000, "up_delay_ns": 500 * MS, "idle_ns": S}}});
    let goodput = |n: usize| {
        let mut cfg = dumbbell(n, json!({"discipline": "droptail", "limit_packets": 67}),
                               json!({"rate_bps": 0, "reverse_rate_bps": 20_000_000u64, "models": models.clone()}));
        for f in cfg["flows"].as_array_mut().unwrap() {
            f["rwnd_packets"] = json!(4);
        }
        let (s, _) = run(&cfg);
        assert_eq!(s["links"][0]["rate_bps"].as_u64(), Some(4_000_000), "the link reports its top rate");
        s["flows"].as_array().unwrap().iter().map(|f| f["goodput_bps"].as_f64().unwrap()).sum::<f64>()
    };
    let one = goodput(1);
    let four = goodput(4);
    assert!(one <= 1_000_000.0, "one flow: {one}");
    assert!(four > 2_000_000.0, "four flows: {four}");
}

#[test]
fn a_bearer_steps_down_on_low_demand_only_when_asked() {
    // A bearer of 1 and 4 Mbit/s that steps up 500 ms after more than 6000 bytes wait; one flow limited
    // to 12 packets by the receiver's window, base RTT 44 ms. At 1 Mbit/s the pipe holds 1 Mbit/s x 44
    // ms = 3.7 packets, so about 8 (12,000 bytes) wait: up to 4 Mbit/s. There the pipe holds 14.7
    // packets, more than the window: nothing waits.
    // - Without a step down the bearer stays on 4 Mbit/s (it is never idle): 12 packets of 11,680
    //   payload bits per 44 + 3 ms (one packet's serialisation) = 2.98 Mbit/s; within 1 % (the access
    //   links and the ACKs add about 0.15 ms to the round trip).
    // - With one (fewer than 3000 bytes for 500 ms) it goes back to 1 Mbit/s 0.5 s after each step up,
    //   fills within a round trip and steps up 0.5 s later: half the time on each rate, (0.973 + 2.98)
    //   / 2 = 1.98 Mbit/s; within 5 % (each cycle of about 1 s has a round trip of transition).
    // The config without the step down's fields is the bearer of before (they are optional).
    let bearer = |down: bool| {
        let mut b = json!({"rates_bps": [1_000_000u64, 4_000_000u64], "up_queue_bytes": 6000,
                           "up_delay_ns": 500 * MS, "idle_ns": S});
        if down {
            b["down_queue_bytes"] = json!(3000);
            b["down_delay_ns"] = json!(500 * MS);
        }
        json!({"rate_model": {"bearer": b}})
    };
    let goodput = |down: bool| {
        let mut cfg = dumbbell(1, json!({"discipline": "droptail", "limit_packets": 67}),
                               json!({"rate_bps": 0, "reverse_rate_bps": 20_000_000u64, "models": bearer(down)}));
        cfg["flows"][0]["rwnd_packets"] = json!(12);
        let (s, _) = run(&cfg);
        s["flows"][0]["goodput_bps"].as_f64().unwrap()
    };
    let (stays, steps_down) = (goodput(false), goodput(true));
    assert!((stays - 2_980_000.0).abs() < 0.01 * 2_980_000.0, "without the step down: {stays}");
    assert!((steps_down - 1_980_000.0).abs() < 0.05 * 1_980_000.0, "with the step down: {steps_down}");
    // The config is checked: one of the two fields alone is refused, naming the bearer.
    let mut cfg = dumbbell(1, json!({"discipline": "droptail", "limit_packets": 67}),
                           json!({"rate_bps": 0, "reverse_rate_bps": 20_000_000u64, "models": bearer(false)}));
    cfg["bottleneck"]["models"]["rate_model"]["bearer"]["down_queue_bytes"] = json!(3000);
    let message = Simulation::from_json(&cfg.to_string()).err().expect("refused").to_string();
    assert!(message.contains("rate.bearer") && message.contains("down_delay_ns"), "{message}");
}

#[test]
fn frto_turns_the_go_back_n_after_a_delay_spike_into_one_resent_segment() {
    // The link of the outage test above, with a 3 s stall every 20 s of gap (onsets at 20, 43, 66 s
    // within 90 s). Nothing is ever lost: the 60-packet buffer holds the 44-packet window and the link
    // has no errors, so every timeout is spurious. Without F-RTO each one resends the window (go-back-N:
    // the late originals' ACKs find everything marked lost); with F-RTO each costs its one resent head,
    // so retransmissions = timeouts, in every recovery mode and with either variant.
    let base = |recovery: &str, frto: Option<&str>| {
        let models = json!({"outages": {"gap_ns": {"fixed": 20 * S}, "duration_ns": {"fixed": 3 * S}}});
        let mut cfg = dumbbell(1, json!({"discipline": "droptail", "limit_packets": 60}),
                               json!({"rate_bps": 384_000, "delay_ns": 150 * MS, "models": models}));
        cfg["flows"][0]["rwnd_packets"] = json!(44);
        cfg["flows"][0]["recovery"] = json!(recovery);
        cfg["flows"][0]["delayed_ack"] = json!(true);
        if let Some(variant) = frto {
            cfg["flows"][0]["frto"] = json!(variant);
        }
        cfg["run"]["duration_ns"] = json!(90 * S);
        cfg["run"]["measure_from_ns"] = json!(0);
        cfg
    };
    let count = |s: &Value, key: &str| s["flows"][0][key].as_u64().unwrap();
    let goodput = |s: &Value| s["flows"][0]["goodput_bps"].as_f64().unwrap();
    for recovery in ["sack", "newreno", "linux-2.6", "prr"] {
        let (plain, _) = run(&base(recovery, None));
        assert!(count(&plain, "timeouts") >= 3, "{recovery}: {}", plain["flows"][0]);
        for variant in ["basic", "sack"] {
            let (frto, _) = run(&base(recovery, Some(variant)));
            let what = format!("{recovery}, {variant}: {} against {}", frto["flows"][0], plain["flows"][0]);
            assert!(count(&frto, "timeouts") >= 3, "{what}");
            assert_eq!(count(&frto, "retransmissions"), count(&frto, "timeouts"), "{what}");
            // Without F-RTO at least a window's worth more: each go-back-N resends ~10 or more.
            assert!(count(&plain, "retransmissions") > 10 * count(&frto, "retransmissions"), "{what}");
            // The resent windows cost goodput: F-RTO carries more.
            assert!(goodput(&frto) > goodput(&plain), "{what}");
        }
    }
}
