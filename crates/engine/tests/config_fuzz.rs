//! Fuzzing the engine config (proptest): any JSON document, biased toward docs/engine-interface.md (the
//! dumbbell and `topology` forms, queue `params` of every discipline, link `models`, flows with routes),
//! with junk of any JSON type put anywhere. `Simulation::from_json` must either refuse it with a
//! `field: message` error or build a simulation that runs a few ms of simulated time and reports; a panic
//! (overflow, index, unwrap, division by zero) fails the test and proptest shrinks it to a small config.
//!
//! In-suite size: 256 cases (a few seconds). A long run:
//!
//!     CCLAB_FUZZ_CASES=20000 cargo test --release -p cclab-engine --test config_fuzz
//!
//! Every panic it found has a regression test at the end of this file (docs/testing.md lists them).

use cclab_engine::time::SimTime;
use cclab_engine::Simulation;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use serde_json::{json, Map, Value};

/// Simulated time each accepted config runs.
const HORIZON_NS: u64 = 2_000_000;
/// At most this many time-series samples, so that a 1 ns sample interval stays a small case.
const MAX_SAMPLES: u64 = 2_000;

fn cases() -> u32 {
    std::env::var("CCLAB_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)
}

/// The suite's fixed seed; CCLAB_FUZZ_SEED=N picks another, and a long run (CCLAB_FUZZ_CASES) a random one.
fn seed() -> RngSeed {
    match std::env::var("CCLAB_FUZZ_SEED").ok().and_then(|v| v.parse().ok()) {
        Some(seed) => RngSeed::Fixed(seed),
        None if std::env::var_os("CCLAB_FUZZ_CASES").is_some() => RngSeed::Random,
        None => RngSeed::Fixed(18),
    }
}

/// A tiny Mahimahi trace: delivery opportunities at 1, 1, 2, 3, 5, 8 ms, looping.
fn trace_path() -> String {
    let path = std::env::temp_dir().join(format!("cclab-config-fuzz-{}.trace", std::process::id()));
    if !path.exists() {
        std::fs::write(&path, "1\n1\n2\n3\n5\n8\n").unwrap();
    }
    path.to_string_lossy().into_owned()
}

// --- values ------------------------------------------------------------------------------------------

/// Unsigned integers as the config has them. `edge`: now and then the edges of u32 and u64 as well.
fn uint(edge: bool) -> BoxedStrategy<Value> {
    let plain = prop_oneof![
        4 => (0u64..10).prop_map(Value::from),
        4 => (0u64..2_000_000).prop_map(Value::from),
        2 => (0u64..10_000_000_000).prop_map(Value::from),
    ];
    if !edge {
        return plain.boxed();
    }
    prop_oneof![
        8 => plain,
        1 => prop_oneof![Just(u64::MAX), Just(u64::MAX - 1), Just(1u64 << 32), Just(u32::MAX as u64),
                         Just(1u64 << 63), Just(u32::MAX as u64 + 1), Just(i64::MAX as u64)].prop_map(Value::from),
        1 => any::<u64>().prop_map(Value::from),
    ]
    .boxed()
}

/// Rates, bit/s: positive when clean.
fn rate(edge: bool) -> BoxedStrategy<Value> {
    if edge {
        return uint(true);
    }
    prop_oneof![(1u64..100_000_000_000).prop_map(Value::from), prop::sample::select(&[64_000u64, 1_000_000, 12_000_000, 10_000_000_000][..]).prop_map(Value::from)].boxed()
}

/// The config's u32 fields (windows, attempts, sizes): small, or with `edge` any unsigned integer.
fn u32ish(edge: bool) -> BoxedStrategy<Value> {
    if edge {
        return prop_oneof![3 => (0u64..100_000).prop_map(Value::from), 1 => uint(true)].boxed();
    }
    (0u64..100_000).prop_map(Value::from).boxed()
}

/// Floats as JSON can carry them (no NaN or infinity): probabilities, and with `edge` anything finite.
fn float(edge: bool) -> BoxedStrategy<Value> {
    if !edge {
        return prop_oneof![3 => (0.0..0.3f64).prop_map(Value::from), 1 => Just(Value::from(0.0))].boxed();
    }
    prop_oneof![
        4 => (0.0..0.3f64).prop_map(Value::from),
        1 => prop_oneof![Just(0.0), Just(1.0), Just(-0.0), Just(-1.0), Just(0.999_999_999), Just(1e-300),
                         Just(f64::MAX), Just(f64::MIN_POSITIVE), Just(1e300)].prop_map(Value::from),
        1 => any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
    ]
    .boxed()
}

/// Any JSON value.
fn junk() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        uint(true),
        float(true),
        "[a-z_]{0,8}".prop_map(Value::from),
        ".{0,6}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 12, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map("[a-z_]{0,8}", inner, 0..4).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// An object of the given fields, each present with probability `p`.
fn object(p: f64, fields: Vec<(&'static str, BoxedStrategy<Value>)>) -> BoxedStrategy<Value> {
    let keys: Vec<&'static str> = fields.iter().map(|f| f.0).collect();
    let values: Vec<BoxedStrategy<Option<Value>>> = fields.into_iter().map(|(_, s)| prop::option::weighted(p, s).boxed()).collect();
    values
        .prop_map(move |vals| {
            let mut m = Map::new();
            for (k, v) in keys.iter().zip(vals) {
                if let Some(v) = v {
                    m.insert(k.to_string(), v);
                }
            }
            Value::Object(m)
        })
        .boxed()
}

fn loss(edge: bool) -> BoxedStrategy<Value> {
    prop_oneof![
        float(edge).prop_map(|p| json!({"bernoulli": p})),
        (float(edge), float(edge), float(edge), float(edge)).prop_map(|(a, b, c, d)| json!({"gilbert_elliott": {
            "p_good_to_bad": a, "p_bad_to_good": b, "loss_good": c, "loss_bad": d}})),
    ]
    .boxed()
}

/// A schedule of `at_ns` and `key`: times from 0, increasing, as many as values; with `edge`, not always.
fn schedule(key: &'static str, value: BoxedStrategy<Value>, edge: bool) -> BoxedStrategy<Value> {
    let ordered = if edge { any::<bool>().boxed() } else { Just(true).boxed() };
    (prop::collection::vec(0u64..3_000_000, 0..4), prop::collection::vec(value, if edge { 0..5 } else { 1..5 }), ordered)
        .prop_map(move |(steps, mut values, sorted)| {
            if sorted {
                values.truncate(steps.len() + 1);
            }
            let mut at: Vec<u64> = if sorted {
                std::iter::once(0).chain(steps.iter().scan(0u64, |t, s| {
                    *t += s + 1;
                    Some(*t)
                })).collect()
            } else {
                steps
            };
            at.truncate(values.len().max(1));
            json!({"at_ns": at, key: values})
        })
        .boxed()
}

fn models(trace: String, edge: bool) -> BoxedStrategy<Value> {
    let rate_model = prop_oneof![
        schedule("rate_bps", uint(edge).boxed(), edge).prop_map(|s| json!({"schedule": s})),
        (prop::option::of(uint(edge)), u32ish(edge), if edge { prop_oneof![Just(trace), Just("/no/such/trace".to_string())].boxed() } else { Just(trace).boxed() })
            .prop_map(|(mean, bytes, path)| json!({"trace": {"path": path, "mean_bps": mean, "bytes_per_opportunity": bytes}})),
    ];
    object(if edge { 0.5 } else { 0.25 }, vec![
        ("rate_model", rate_model.boxed()),
        ("delay_schedule", schedule("delay_ns", uint(edge).boxed(), edge)),
        ("loss", loss(edge)),
        ("arq", (loss(edge), uint(edge), u32ish(edge)).prop_map(|(l, d, n)| json!({"loss": l, "retry_delay_ns": d, "max_attempts": n})).boxed()),
    ])
}

const DISCIPLINES: &[&str] = &["droptail", "red", "ared", "codel", "fq_codel", "pie", "sfq"];
/// Every discipline's parameter names (net/queue/*.rs), plus variants' and a few wrong ones.
const QUEUE_PARAMS: &[&str] = &[
    "variant", "min_th", "max_th", "max_p", "w_q", "target_delay_ns", "mean_packet_size_bytes", "queue_in_bytes",
    "byte_mode", "wait", "gentle", "adaptive", "alpha", "beta", "interval_ns", "top", "bottom", "ecn", "use_mark_p",
    "mark_p", "gentle_follows_max_p", "target_ns", "maxpacket_bytes", "flows", "quantum_bytes", "drop_batch",
    "alpha_hz", "beta_hz", "t_update_ns", "max_burst_ns", "ecn_threshold", "cap_drop_adjustment", "target",
];
const VARIANTS: &[&str] = &["ns2", "floyd2001", "rfc8289", "rfc8290", "linux", "rfc8033", "x"];

/// Each discipline with one of its variants: the clean queues.
const DISCIPLINE_VARIANTS: &[(&str, &str)] = &[
    ("droptail", "ns2"), ("red", "ns2"), ("ared", "ns2"), ("ared", "floyd2001"), ("codel", "rfc8289"),
    ("fq_codel", "rfc8290"), ("fq_codel", "linux"), ("pie", "rfc8033"),
];

fn queue(edge: bool) -> BoxedStrategy<Value> {
    if !edge {
        let bytes = prop::option::weighted(0.2, 1500u64..1_000_000);
        return (prop::sample::select(DISCIPLINE_VARIANTS), any::<bool>(), 1u64..2_000, bytes)
            .prop_map(|((d, v), with_variant, limit, bytes)| {
                let params = if with_variant { json!({"variant": v}) } else { json!({}) };
                json!({"discipline": d, "limit_packets": limit, "limit_bytes": bytes, "params": params})
            })
            .boxed();
    }
    let param_value = prop_oneof![uint(edge), float(edge), any::<bool>().prop_map(Value::from), prop::sample::select(VARIANTS).prop_map(Value::from)];
    (
        prop::sample::select(if edge { DISCIPLINES } else { &DISCIPLINES[..6] }),
        uint(edge),
        prop::option::of(uint(edge)),
        prop::collection::btree_map(prop::sample::select(QUEUE_PARAMS), param_value, 0..3),
    )
        .prop_map(|(d, limit, bytes, params)| {
            json!({"discipline": d, "limit_packets": limit, "limit_bytes": bytes,
                   "params": Value::Object(params.into_iter().map(|(k, v)| (k.to_string(), v)).collect())})
        })
        .boxed()
}

const ALGORITHMS: &[&str] = &[
    "newreno", "reno", "scalable", "highspeed", "htcp", "westwood", "bic", "cubic", "compound", "vegas", "fast", "aimd",
    "bbr", "nope",
];
const CC_PARAMS: &[&str] = &[
    "variant", "beta", "c", "a", "b", "alpha", "gamma", "k", "zeta", "max_increment", "initial_ssthresh", "low_window",
    "high_window", "high_p", "cwnd_gain", "high_gain", "pacing_gain_cycle", "min_rtt_window_ns", "probe_rtt_duration_ns",
    "s_max", "s_min", "delta_l_ms", "mss_bytes", "update_interval_us", "counting", "legacy_window",
];

fn cc(edge: bool) -> BoxedStrategy<Value> {
    let value = prop_oneof![uint(edge), float(edge), any::<bool>().prop_map(Value::from),
                            prop::sample::select(&["linux", "linux-2.6.22", "paper", "acks", "packets"][..]).prop_map(Value::from),
                            prop::collection::vec(float(edge), 0..9).prop_map(Value::from)];
    if !edge {
        let variant = prop::sample::select(&[None, None, None, None, Some("linux"), Some("linux-2.6.22"), Some("paper")][..]);
        return (prop::sample::select(&ALGORITHMS[..13]), variant)
            .prop_map(|(n, v)| match v {
                Some(v) => json!({"name": n, "variant": v}),
                None => json!({"name": n}),
            })
            .boxed();
    }
    prop_oneof![
        prop::sample::select(ALGORITHMS).prop_map(|n| json!({"name": n})),
        (prop::sample::select(ALGORITHMS), prop::collection::btree_map(prop::sample::select(CC_PARAMS), value, 0..3))
            .prop_map(|(n, p)| {
                let mut m: Map<String, Value> = p.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
                m.insert("name".into(), n.into());
                Value::Object(m)
            }),
    ]
    .boxed()
}

const NODES: &[&str] = &["a", "b", "r1", "r2", "r3"];

fn route(edge: bool) -> BoxedStrategy<Value> {
    if !edge {
        const CHAIN_ROUTES: &[&[&str]] = &[&["a", "r1", "r2", "b"], &["r1", "r2"], &["a", "r1"], &["r2", "b"]];
        return prop::sample::select(CHAIN_ROUTES).prop_map(|r| json!(r)).boxed();
    }
    prop_oneof![
        3 => Just(json!(["a", "r1", "r2", "b"])),
        1 => Just(json!(["r1", "r2"])),
        1 => prop::collection::vec(prop::sample::select(NODES), 0..5).prop_map(Value::from),
    ]
    .boxed()
}

fn flow(over_links: bool, edge: bool) -> BoxedStrategy<Value> {
    let recoveries: &'static [&'static str] = if edge { &["sack", "newreno", "linux-2.6", "prr", "prr-rfc6937", "ns2-sack1", "tahoe"] } else { &["sack", "newreno", "linux-2.6", "prr", "prr-rfc6937", "ns2-sack1"] };
    let recovery = prop::sample::select(recoveries).prop_map(Value::from);
    let mut fields: Vec<(&'static str, BoxedStrategy<Value>)> = vec![
        ("start_ns", prop_oneof![3 => (0u64..2_000_000).prop_map(Value::from), 1 => uint(edge)].boxed()),
        ("start_jitter_ns", if edge { uint(true) } else { (0u64..1_000_000).prop_map(Value::from).boxed() }),
        ("stop_ns", prop::option::of(if edge { uint(true) } else { (3_000_000u64..10_000_000_000).prop_map(Value::from).boxed() })
            .prop_map(|v| v.unwrap_or(Value::Null)).boxed()),
        ("recovery", recovery.boxed()),
        ("delayed_ack", any::<bool>().prop_map(Value::from).boxed()),
        ("initial_cwnd", u32ish(edge)),
        ("rto_min_ns", uint(edge).boxed()),
        ("rwnd_packets", uint(edge).boxed()),
        ("cwnd_clamp_packets", u32ish(edge)),
    ];
    if over_links {
        if edge {
            fields.push(("ack_route", route(edge)));
        }
    } else {
        fields.push(("src_access_delay_ns", uint(edge).boxed()));
        fields.push(("dst_access_delay_ns", uint(edge).boxed()));

        fields.push(("overhead_ns", uint(edge).boxed()));
    }
    (cc(edge), object(0.5, fields), route(edge), any::<bool>(), rate(edge))
        .prop_map(move |(cc, mut f, route, routed, access_rate)| {
            f["cc"] = cc;
            if over_links && (routed || !edge) {
                f["route"] = route;
            }
            if !over_links && (routed || !edge) {
                f["access_rate_bps"] = access_rate;
            }
            f
        })
        .boxed()
}

fn run(edge: bool) -> BoxedStrategy<Value> {
    let measure_from = if edge { prop_oneof![Just(0u64).prop_map(Value::from), uint(true)].boxed() } else { Just(Value::from(0u64)).boxed() };
    (if edge { uint(true) } else { (1u64..10_000_000_000).prop_map(Value::from).boxed() }, measure_from, uint(edge), uint(edge))
        .prop_map(|(d, m, seed, s)| json!({"duration_ns": d, "measure_from_ns": m, "seed": seed, "sample_interval_ns": s}))
        .boxed()
}

fn sizes(edge: bool) -> BoxedStrategy<(Value, Value, Value)> {
    if !edge {
        let size = prop::sample::select(&[576u64, 1500, 9000][..]).prop_map(Value::from);
        return (size.clone(), Just(Value::from(40)), size).boxed();
    }
    let size = prop_oneof![4 => prop::sample::select(&[40u64, 41, 576, 1500, 9000, 65535][..]).prop_map(Value::from), 1 => u32ish(edge)];
    (size.clone(), prop_oneof![3 => Just(Value::from(40)), 1 => u32ish(edge)], size).boxed()
}

fn dumbbell(trace: String, edge: bool) -> BoxedStrategy<Value> {
    let bottleneck = (rate(edge), uint(edge), queue(edge), prop::option::of(queue(edge)), float(edge), models(trace.clone(), edge),
                      prop::option::of(rate(edge)), prop::option::of(uint(edge)), models(trace, edge))
        .prop_map(move |(rate, delay, q, rq, loss, m, rrate, rdelay, rm)| {
            let loss = if !edge && m.get("loss").is_some() { Value::from(0.0) } else { loss };
            json!({"rate_bps": rate, "delay_ns": delay, "queue": q, "reverse_queue": rq, "loss_rate": loss,
                   "models": m, "reverse_rate_bps": rrate, "reverse_delay_ns": rdelay, "reverse_models": rm})
        });
    (sizes(edge), bottleneck, prop::collection::vec(flow(false, edge), if edge { 0..4 } else { 1..4 }), run(edge))
        .prop_map(|((p, h, a), b, flows, run)| {
            json!({"packet_size": p, "header_size": h, "ack_size": a, "bottleneck": b, "flows": flows, "run": run})
        })
        .boxed()
}

fn topology(trace: String, edge: bool) -> BoxedStrategy<Value> {
    let link = (prop::sample::select(NODES), prop::sample::select(NODES), rate(edge), uint(edge), prop::option::of(queue(edge)), float(edge),
                models(trace, edge))
        .prop_map(move |(from, to, rate, delay, q, loss, m)| {
            let loss = if !edge && m.get("loss").is_some() { Value::from(0.0) } else { loss };
            json!({"name": format!("{from}-{to}"), "from": from, "to": to, "rate_bps": rate, "delay_ns": delay,
                   "queue": q, "loss_rate": loss, "models": m})
        });
    let chain = [("a", "r1"), ("r1", "r2"), ("r2", "b"), ("b", "r2"), ("r2", "r1"), ("r1", "a")];
    let pinned = if edge { any::<bool>().boxed() } else { Just(true).boxed() };
    let extra = if edge { 6..9 } else { 6..7 };
    let links = (prop::collection::vec(link, extra), pinned).prop_map(move |(mut links, pin)| {
        // Mostly a duplex chain a-r1-r2-b (routes exist), then whatever was drawn.
        if pin {
            for (l, (from, to)) in links.iter_mut().zip(chain) {
                l["from"] = from.into();
                l["to"] = to.into();
                l["name"] = format!("{from}-{to}").into();
            }
        }
        links
    });
    let node = (uint(edge), uint(edge)).prop_map(|(d, j)| json!({"processing_delay_ns": d, "processing_jitter_ns": j}));
    let nodes = prop::collection::btree_map(prop::sample::select(if edge { NODES } else { &NODES[..4] }), node, 0..3)
        .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect()));
    let bottleneck = prop::option::of(prop::sample::select(if edge { &["r1-r2", "a-r1", "zz"][..] } else { &["r1-r2", "a-r1"][..] }).prop_map(Value::from));
    (sizes(edge), links, nodes, bottleneck, prop::collection::vec(flow(true, edge), if edge { 0..4 } else { 1..4 }), run(edge))
        .prop_map(|((p, h, a), links, nodes, b, flows, run)| {
            json!({"packet_size": p, "header_size": h, "ack_size": a,
                   "topology": {"links": links, "nodes": nodes, "bottleneck": b}, "flows": flows, "run": run})
        })
        .boxed()
}

/// Replace the value at a random path (each step picks child `step % len`) by `with`.
fn graft(node: &mut Value, path: &[u32], with: Value) {
    let Some((&step, rest)) = path.split_first() else {
        *node = with;
        return;
    };
    match node {
        Value::Object(m) if !m.is_empty() => {
            let key = m.keys().nth(step as usize % m.len()).unwrap().clone();
            graft(m.get_mut(&key).unwrap(), rest, with);
        }
        Value::Array(v) if !v.is_empty() => {
            let i = step as usize % v.len();
            graft(&mut v[i], rest, with);
        }
        _ => *node = with,
    }
}

/// Integers and floats at the edges of the config's types.
const EDGE_INTEGERS: &[u64] = &[0, 1, 2, u32::MAX as u64, u32::MAX as u64 + 1, 1 << 53, i64::MAX as u64, u64::MAX - 1, u64::MAX];
const EDGE_FLOATS: &[f64] = &[0.0, 1.0, -1.0, 1e-300, 0.999_999_999_999, 1e300];

/// Set the number at the end of a random path to an edge value of its kind (integer or float), picked by
/// `pick`; nothing if the path ends elsewhere.
fn graft_number(node: &mut Value, path: &[u32], pick: usize) {
    let step = path.first().copied().unwrap_or(0) as usize;
    let rest = path.get(1..).unwrap_or(&[]);
    match node {
        Value::Object(m) if !m.is_empty() => {
            let key = m.keys().nth(step % m.len()).unwrap().clone();
            graft_number(m.get_mut(&key).unwrap(), rest, pick);
        }
        Value::Array(v) if !v.is_empty() => {
            let i = step % v.len();
            graft_number(&mut v[i], rest, pick);
        }
        Value::Number(n) if n.is_u64() => *node = EDGE_INTEGERS[pick % EDGE_INTEGERS.len()].into(),
        Value::Number(_) => *node = EDGE_FLOATS[pick % EDGE_FLOATS.len()].into(),
        _ => {}
    }
}

/// A config document: the dumbbell or a topology, the run mostly kept to a few ms. Three flavours: clean
/// (every value in its type's usual range, so that most build and run), dirty (any u64 or finite float
/// anywhere, now and then a subtree replaced by junk) and edged (clean, then a few numbers set to the
/// edges of their types).
fn document() -> BoxedStrategy<Value> {
    let trace = trace_path();
    let short_run = (any::<bool>(), 1u64..5_000_000, prop::sample::select(&[0u64, 100_000, 1_000_000, 10][..]));
    let shorten = |doc: &mut Value, (short, duration, sample): (bool, u64, u64)| {
        if short {
            doc["run"] = json!({"duration_ns": duration, "measure_from_ns": 0, "seed": 1, "sample_interval_ns": sample});
        }
    };
    let clean = (prop_oneof![dumbbell(trace.clone(), false), topology(trace.clone(), false)], short_run.clone())
        .prop_map(move |(mut doc, run)| {
            shorten(&mut doc, run);
            doc
        });
    let grafts = prop::collection::vec((prop::collection::vec(any::<u32>(), 0..5), junk()), 0..3);
    let dirty = (prop_oneof![dumbbell(trace.clone(), true), topology(trace.clone(), true)], short_run.clone(), grafts)
        .prop_map(move |(mut doc, run, grafts)| {
            shorten(&mut doc, run);
            for (path, with) in grafts {
                graft(&mut doc, &path, with);
            }
            doc
        });
    // Clean documents with a few numbers set to the edges of their types: what gets past serde and the
    // range checks with the largest values is where arithmetic overflows.
    let numbers = prop::collection::vec((prop::collection::vec(any::<u32>(), 1..6), any::<usize>()), 1..4);
    let edged = (prop_oneof![dumbbell(trace.clone(), false), topology(trace.clone(), false)], short_run, numbers)
        .prop_map(move |(mut doc, run, numbers)| {
            shorten(&mut doc, run);
            for (path, pick) in &numbers {
                graft_number(&mut doc, path, *pick);
            }
            doc
        });
    prop_oneof![2 => clean, 1 => dirty, 2 => edged].boxed()
}

/// Build and run a few ms: Ok, or the refusal.
fn exercise(text: &str) -> Result<(), String> {
    let mut sim = match Simulation::from_json(text) {
        Ok(sim) => sim,
        Err(e) => {
            // A refusal names a field (a dotted path, or "config" for JSON that does not match the schema)
            // and says what is wrong.
            assert!(!e.field.is_empty() && !e.message.is_empty(), "unlabelled error {e:?}");
            return Err(e.to_string());
        }
    };
    let cfg: Value = serde_json::from_str(text).unwrap();
    let mut horizon = sim.end().0.min(HORIZON_NS);
    if let Some(interval) = cfg["run"]["sample_interval_ns"].as_u64().filter(|&i| i > 0) {
        horizon = horizon.min(interval.saturating_mul(MAX_SAMPLES));
    }
    sim.run_until(SimTime(horizon)).expect("the run finishes");
    assert_eq!(sim.now(), SimTime(horizon));
    let summary = serde_json::to_value(sim.summary()).expect("the summary serialises");
    assert!(summary["flows"].is_array());
    let _ = (sim.flow_series(), sim.queue_series(), sim.link_series(), sim.link_names(), sim.data_packet_census());
    Ok(())
}

proptest! {
    // In the suite the seed is fixed, so that CI runs the same cases every time and never flakes; a long run
    // (CCLAB_FUZZ_CASES set) draws new ones. Failures are kept as regression tests below, not in files.
    #![proptest_config(ProptestConfig {
        cases: cases(),
        max_shrink_iters: 4096,
        rng_seed: seed(),
        failure_persistence: None,
        .. ProptestConfig::default()
    })]

    #[test]
    fn any_config_builds_and_runs_or_is_refused_without_a_panic(doc in document()) {
        let outcome = exercise(&doc.to_string());
        if std::env::var_os("CCLAB_FUZZ_STATS").is_some() {
            // One line per case, to count outcomes: `... 2>&1 | grep '^outcome' | sort | uniq -c`.
            let what = match &outcome {
                Ok(()) => format!("ran {}", if doc.get("topology").is_some() { "topology" } else { "dumbbell" }),
                Err(e) => format!("refused {}", e.chars().take(90).collect::<String>()),
            };
            eprintln!("outcome {what}");
        }
    }

    #[test]
    fn any_json_text_is_refused_without_a_panic(text in prop_oneof![".{0,40}", junk().prop_map(|v| v.to_string())]) {
        // Nothing this short or this random is a whole config (it needs flows and a run).
        prop_assert!(Simulation::from_json(&text).is_err());
    }
}

// --- regressions: every panic the fuzzers found, as the smallest config that showed it --------------------

const MS: u64 = 1_000_000;

/// One NewReno flow on a 10 Mbit/s, 1 ms dumbbell with a 50-packet DropTail, run for `duration_ns`.
fn small_dumbbell(duration_ns: u64) -> Value {
    json!({"packet_size": 1500,
           "bottleneck": {"rate_bps": 10_000_000u64, "delay_ns": MS, "queue": {"discipline": "droptail", "limit_packets": 50}},
           "flows": [{"cc": "newreno", "access_rate_bps": 100_000_000u64}],
           "run": {"duration_ns": duration_ns, "sample_interval_ns": 0}})
}

fn runs(cfg: &Value, until_ns: u64) -> Simulation {
    let mut sim = Simulation::from_json(&cfg.to_string()).unwrap_or_else(|e| panic!("{e}"));
    sim.run_until(SimTime(until_ns)).expect("the run finishes");
    sim
}

#[test]
fn regression_a_jitter_of_u64_max_draws_without_overflow() {
    // Found: `draw % (jitter + 1)` overflowed for a jitter of u64::MAX ns, in a node's processing delay and
    // in a flow's start jitter (whose start + jitter overflowed as well).
    let mut cfg = small_dumbbell(10 * MS);
    cfg["flows"][0]["overhead_ns"] = json!(u64::MAX);
    runs(&cfg, 10 * MS);
    let mut cfg = small_dumbbell(10 * MS);
    cfg["flows"][0]["start_ns"] = json!(u64::MAX - 5);
    cfg["flows"][0]["start_jitter_ns"] = json!(u64::MAX);
    let sim = runs(&cfg, 10 * MS);
    assert_eq!(sim.data_packet_census().0, 0, "a start past the end sends nothing");
}

#[test]
fn regression_a_trace_opportunity_of_zero_bytes_is_refused() {
    // Found: bytes_per_opportunity = 0 reached MahimahiTrace's assertion, a panic.
    let mut cfg = small_dumbbell(10 * MS);
    cfg["bottleneck"]["models"] = json!({"rate_model": {"trace": {"path": trace_path(), "bytes_per_opportunity": 0}}});
    cfg["bottleneck"]["reverse_rate_bps"] = json!(1_000_000);
    let e = Simulation::from_json(&cfg.to_string()).err().expect("refused");
    assert_eq!(e.field, "network.bottleneck.rate.bytes_per_opportunity");
}

#[test]
fn regression_an_ack_of_4_gb_is_refused() {
    // Found: ack_size = u32::MAX overflowed Rate::tx_time's bytes x 8e9 in a u64.
    let mut cfg = small_dumbbell(10 * MS);
    cfg["ack_size"] = json!(u32::MAX);
    assert_eq!(Simulation::from_json(&cfg.to_string()).err().expect("refused").field, "network.ack_size");
}

#[test]
fn regression_red_in_bytes_with_a_limit_of_u64_max_packets() {
    // Found: RED's byte limit, packets x mean packet size, overflowed for a limit near 2^64 packets.
    let mut cfg = small_dumbbell(10 * MS);
    cfg["bottleneck"]["queue"] = json!({"discipline": "red", "limit_packets": u64::MAX});
    runs(&cfg, 10 * MS);
}

#[test]
fn regression_unbounded_links_in_a_row_deliver_every_packet() {
    // Found ("time went backwards"): a chain a -> r1 -> r2 -> b of links without a queue hands each packet
    // on at transmission (net/link.rs), but a hand-off link after a hand-off link, or as a first hop, kept
    // its packets until an event that never came: none was delivered, and a late pass-on went into the
    // past. 10 Mbit/s everywhere, 1 ms a link: after 2 s every packet sent is delivered or on the way.
    let link = |from: &str, to: &str| json!({"name": format!("{from}-{to}"), "from": from, "to": to,
                                             "rate_bps": 10_000_000u64, "delay_ns": MS});
    let links: Vec<Value> = [("a", "r1"), ("r1", "r2"), ("r2", "b"), ("b", "r2"), ("r2", "r1"), ("r1", "a")]
        .iter().map(|(f, t)| link(f, t)).collect();
    let cfg = json!({"packet_size": 1500, "topology": {"links": links},
                     "flows": [{"cc": "newreno", "route": ["a", "r1", "r2", "b"]}],
                     "run": {"duration_ns": 2_000 * MS, "sample_interval_ns": 0}});
    let mut sim = runs(&cfg, 2_000 * MS);
    sim.run().expect("the run finishes");
    let (sent, received, dropped, in_network) = sim.data_packet_census();
    assert_eq!(sent, received + dropped + in_network);
    // The first link is the bottleneck: 2 s at 10 Mbit/s is 1667 packets of 1500 bytes; less the first
    // round trip (6 ms + serialisation), at least 1600 arrive.
    assert!(received > 1_600, "{received} of {sent} delivered");
}

#[test]
fn regression_a_huge_initial_window_is_refused() {
    // Found: the config fuzzer ran out of memory (24 GB) with an initial window near u32::MAX: the whole
    // window leaves at once into the first hop, an unbounded access line (5e7 packets: a 4.8 GB vector).
    let mut cfg = small_dumbbell(2 * MS);
    cfg["flows"][0]["initial_cwnd"] = json!(50_000_000u64);
    assert_eq!(Simulation::from_json(&cfg.to_string()).err().expect("refused").field, "flows.0.initial_cwnd");
    cfg["flows"][0]["initial_cwnd"] = json!(cclab_engine::config::MAX_INITIAL_CWND);
    runs(&cfg, 2 * MS);
}
