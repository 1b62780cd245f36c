//! Builds algorithms by name from their config documents and describes them for `cclab algorithms`.
//!
//! A config is `{"name": ..., "variant": ..., parameter: value, ...}`: the variant's preset is taken, then
//! each given parameter replaces the preset's value, so historical variants are configurations, not copies.

use super::cubic::{Cubic, CubicConfig};
use super::newreno::{NewReno, NewRenoConfig};
use super::CongestionControl;
use crate::config::{err, ConfigError};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};

pub struct ParamDoc {
    pub name: &'static str,
    pub doc: &'static str,
}

pub struct AlgorithmInfo {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub summary: &'static str,
    pub default_variant: &'static str,
    /// (variant, source it follows)
    pub variants: &'static [(&'static str, &'static str)],
    pub params: &'static [ParamDoc],
}

pub const ALGORITHMS: &[AlgorithmInfo] = &[
    AlgorithmInfo {
        name: "newreno",
        aliases: &["reno"],
        summary: "Reno/NewReno AIMD: slow start, +1 packet per RTT, halve on loss (RFC 5681, RFC 6582)",
        default_variant: "linux",
        variants: &[
            ("linux", "Linux >= 4.0 tcp_reno_cong_avoid: growth counts packets acknowledged (RFC 5681 with ABC)"),
            ("linux-2.6.22", "Linux 2.6.22 as in ns-2.35 TCP-Linux: growth counts ACKs, slow start while cwnd <= ssthresh"),
        ],
        params: &[ParamDoc { name: "counting", doc: "growth counts 'packets' acknowledged or 'acks'" }],
    },
    AlgorithmInfo {
        name: "cubic",
        aliases: &[],
        summary: "CUBIC: window a cubic function of time since the last loss (Ha, Rhee, Xu 2008; RFC 9438)",
        default_variant: "linux",
        variants: &[
            ("linux", "Linux >= 4.x tcp_cubic.c (RFC 9438 behaviour): beta 0.7, C 0.4, fast convergence, Reno-friendly region; HyStart not implemented"),
            ("rfc9438", "alias of 'linux'"),
            ("linux-2.6.22", "CUBIC v2.1 of Linux 2.6.22 (ns-2.35 TCP-Linux, the 2006-2008 studies): beta 0.8, max_increment 16, cnt 50 before the first loss, ACK counting"),
        ],
        params: &[
            ParamDoc { name: "beta", doc: "window kept after a loss, 0 < beta < 1 (0.7 modern, 0.8 in 2006-2008)" },
            ParamDoc { name: "c", doc: "cubic scaling constant C, packets/s^3, > 0 (0.4)" },
            ParamDoc { name: "fast_convergence", doc: "lower W_max when losses come before reaching it (true)" },
            ParamDoc { name: "tcp_friendliness", doc: "never grow slower than the Reno estimate (true)" },
            ParamDoc { name: "max_increment", doc: "cap on convex growth, packets per 100 ms of RTT; 0 = none (2.6.22: 16)" },
            ParamDoc { name: "counting", doc: "'packets' (modern) or 'acks' (2.6.22, with the delayed-ACK ratio estimator)" },
            ParamDoc { name: "initial_ssthresh", doc: "initial ssthresh in packets, 0 = unlimited" },
            ParamDoc { name: "pre_loss_cnt", doc: "units per +1 packet before the first loss (20 modern, 50 in 2.6.22)" },
            ParamDoc { name: "pre_loss_fixed", doc: "pre_loss_cnt imposed (2.6.22) rather than an upper bound (modern)" },
        ],
    },
];

/// Canonical name for a name or alias.
pub fn canonical(name: &str) -> Option<&'static AlgorithmInfo> {
    ALGORITHMS.iter().find(|a| a.name == name || a.aliases.contains(&name))
}

fn accepted_names() -> String {
    ALGORITHMS
        .iter()
        .flat_map(|a| std::iter::once(a.name).chain(a.aliases.iter().copied()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Preset merged with the user's parameters, deserialised into the algorithm's config struct.
fn merged<C: Serialize + DeserializeOwned>(
    field: &str,
    algorithm: &str,
    preset: C,
    params: &Map<String, Value>,
) -> Result<C, ConfigError> {
    let Value::Object(mut base) = serde_json::to_value(&preset).expect("config serialises") else {
        unreachable!("configs are structs")
    };
    for (key, value) in params {
        if !base.contains_key(key) {
            let accepted: Vec<&str> = base.keys().map(|k| k.as_str()).collect();
            return Err(err(
                format!("{field}.{key}"),
                format!("unknown parameter for {algorithm}; accepted: name, variant, {}", accepted.join(", ")),
            ));
        }
        base.insert(key.clone(), value.clone());
    }
    serde_json::from_value(Value::Object(base)).map_err(|e| err(field, format!("{algorithm}: {e}")))
}

/// Build an algorithm from its config document. `field` names it in errors (e.g. `flows.0.cc`).
pub fn build(field: &str, spec: &Value, initial_cwnd: u32) -> Result<Box<dyn CongestionControl>, ConfigError> {
    let obj = match spec {
        Value::String(name) => {
            let mut m = Map::new();
            m.insert("name".into(), Value::String(name.clone()));
            m
        }
        Value::Object(m) => m.clone(),
        _ => return Err(err(field, "must be an algorithm name or a table with 'name'")),
    };
    let name = obj.get("name").and_then(Value::as_str).ok_or_else(|| err(format!("{field}.name"), "missing"))?;
    let info = canonical(name).ok_or_else(|| {
        err(format!("{field}.name"), format!("unknown algorithm '{name}'; accepted: {}", accepted_names()))
    })?;
    let variant = match obj.get("variant") {
        None => info.default_variant,
        Some(Value::String(v)) => v.as_str(),
        Some(_) => return Err(err(format!("{field}.variant"), "must be a string")),
    };
    let bad_variant = || {
        let names: Vec<&str> = info.variants.iter().map(|v| v.0).collect();
        err(format!("{field}.variant"), format!("unknown variant '{variant}' of {}; accepted: {}", info.name, names.join(", ")))
    };
    let mut params = obj.clone();
    params.remove("name");
    params.remove("variant");
    match info.name {
        "newreno" => {
            let preset = NewRenoConfig::variant(variant).ok_or_else(bad_variant)?;
            let cfg = merged(field, "newreno", preset, &params)?;
            Ok(Box::new(NewReno::new(cfg, initial_cwnd)))
        }
        "cubic" => {
            let preset = CubicConfig::variant(variant).ok_or_else(bad_variant)?;
            let cfg: CubicConfig = merged(field, "cubic", preset, &params)?;
            if !(cfg.beta > 0.0 && cfg.beta < 1.0) {
                return Err(err(format!("{field}.beta"), "must be in (0, 1)"));
            }
            if !(cfg.c > 0.0 && cfg.c.is_finite()) {
                return Err(err(format!("{field}.c"), "must be above 0"));
            }
            if cfg.pre_loss_cnt == 0 {
                return Err(err(format!("{field}.pre_loss_cnt"), "must be at least 1"));
            }
            Ok(Box::new(Cubic::new(cfg, initial_cwnd)))
        }
        _ => unreachable!("every listed algorithm is built above"),
    }
}

fn variant_defaults(name: &str, variant: &str) -> Value {
    match name {
        "newreno" => serde_json::to_value(NewRenoConfig::variant(variant)).unwrap_or(Value::Null),
        "cubic" => serde_json::to_value(CubicConfig::variant(variant)).unwrap_or(Value::Null),
        _ => Value::Null,
    }
}

/// Every algorithm with its variants (and their parameter values), parameter docs and sources.
pub fn describe_all() -> Value {
    Value::Array(
        ALGORITHMS
            .iter()
            .map(|a| {
                json!({
                    "name": a.name,
                    "aliases": a.aliases,
                    "summary": a.summary,
                    "default_variant": a.default_variant,
                    "variants": a.variants.iter().map(|(v, source)| json!({
                        "name": v, "source": source, "parameters": variant_defaults(a.name, v)
                    })).collect::<Vec<_>>(),
                    "parameters": a.params.iter().map(|p| json!({"name": p.name, "doc": p.doc})).collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_by_name_alias_and_table_with_overrides() {
        assert_eq!(build("cc", &json!("reno"), 2).unwrap().name(), "newreno");
        let c = build("cc", &json!({"name": "cubic", "variant": "linux-2.6.22", "beta": 0.5}), 2).unwrap();
        assert_eq!(c.name(), "cubic");
    }

    #[test]
    fn errors_name_the_field_and_the_accepted_values() {
        let e = build("flows.0.cc", &json!("vegass"), 2).err().unwrap();
        assert_eq!(e.field, "flows.0.cc.name");
        assert!(e.message.contains("accepted: newreno, reno, cubic"), "{}", e.message);
        let e = build("flows.0.cc", &json!({"name": "cubic", "betta": 0.5}), 2).err().unwrap();
        assert_eq!(e.field, "flows.0.cc.betta");
        assert!(e.message.contains("beta"));
        let e = build("flows.0.cc", &json!({"name": "cubic", "variant": "2.6.13"}), 2).err().unwrap();
        assert!(e.message.contains("linux-2.6.22"));
        let e = build("flows.0.cc", &json!({"name": "cubic", "beta": 1.5}), 2).err().unwrap();
        assert_eq!(e.field, "flows.0.cc.beta");
    }

    #[test]
    fn description_lists_variant_parameters() {
        let d = describe_all();
        let cubic = d.as_array().unwrap().iter().find(|a| a["name"] == "cubic").unwrap();
        let old = cubic["variants"].as_array().unwrap().iter().find(|v| v["name"] == "linux-2.6.22").unwrap();
        assert_eq!(old["parameters"]["max_increment"], 16);
    }
}
