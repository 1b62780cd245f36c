//! Builds queue disciplines by name from their config documents and describes them for `cclab queues`,
//! as `cc::registry` does for algorithms: a discipline's variant is a preset of its parameters, and each
//! given parameter replaces the preset's value.

use super::ared::AredConfig;
use super::codel::CodelConfig;
use super::droptail::DropTailConfig;
use super::fq_codel::FqCodelConfig;
use super::pie::PieConfig;
use super::red::RedConfig;
use super::{LinkInfo, Queue};
use crate::cc::registry::{merged, ParamDoc};
use crate::config::{err, ConfigError};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};

pub struct DisciplineInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub default_variant: &'static str,
    /// (variant, source it follows)
    pub variants: &'static [(&'static str, &'static str)],
    pub params: &'static [ParamDoc],
}

/// The hard limit of a buffer, from the scenario's `size`: packets (the one on the wire included, as
/// ns-2's `queue-limit`), and optionally bytes waiting.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct QueueLimits {
    pub packets: usize,
    pub bytes: Option<u64>,
}

/// What every discipline module provides: its description, variant presets (a config struct whose fields
/// are the parameters, with serde defaults), range checks and how to build it.
pub trait Discipline: Serialize + DeserializeOwned + Sized + 'static {
    const INFO: DisciplineInfo;
    fn variant(name: &str) -> Option<Self>;
    /// Checks beyond the types (ranges, order of thresholds); `field` is the config path for errors.
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        let _ = field;
        Ok(())
    }
    fn build(self, limits: QueueLimits, link: LinkInfo) -> Box<dyn Queue>;
}

type BuildFn = fn(&str, &str, &Map<String, Value>, QueueLimits, LinkInfo) -> Result<Box<dyn Queue>, ConfigError>;
type CheckFn = fn(&str, &str, &Map<String, Value>) -> Result<(), ConfigError>;

pub struct Entry {
    pub info: &'static DisciplineInfo,
    build: BuildFn,
    check: CheckFn,
    defaults: fn(&str) -> Value,
}

fn configured<D: Discipline>(field: &str, variant: &str, params: &Map<String, Value>) -> Result<D, ConfigError> {
    let preset = D::variant(variant).ok_or_else(|| {
        let names: Vec<&str> = D::INFO.variants.iter().map(|v| v.0).collect();
        err(format!("{field}.variant"), format!("unknown variant '{variant}' of {}; accepted: {}", D::INFO.name, names.join(", ")))
    })?;
    let cfg: D = merged(field, D::INFO.name, "discipline, size, variant, ", preset, params)?;
    cfg.validate(field)?;
    Ok(cfg)
}

fn entry<D: Discipline>() -> Entry {
    Entry {
        info: &D::INFO,
        build: |field, variant, params, limits, link| Ok(configured::<D>(field, variant, params)?.build(limits, link)),
        check: |field, variant, params| configured::<D>(field, variant, params).map(|_| ()),
        defaults: |variant| serde_json::to_value(D::variant(variant)).unwrap_or(Value::Null),
    }
}

/// Every discipline, in the order `cclab queues` lists them. Adding one is one line here.
pub fn entries() -> Vec<Entry> {
    vec![
        entry::<DropTailConfig>(),
        entry::<RedConfig>(),
        entry::<AredConfig>(),
        entry::<CodelConfig>(),
        entry::<FqCodelConfig>(),
        entry::<PieConfig>(),
    ]
}

fn find(field: &str, name: &str) -> Result<Entry, ConfigError> {
    let all = entries();
    let names: Vec<&str> = all.iter().map(|e| e.info.name).collect();
    let accepted = names.join(", ");
    all.into_iter()
        .find(|e| e.info.name == name)
        .ok_or_else(|| err(format!("{field}.discipline"), format!("unknown discipline '{name}'; accepted: {accepted}")))
}

fn variant_of<'a>(field: &str, entry: &Entry, params: &'a Map<String, Value>) -> Result<(String, Map<String, Value>), ConfigError> {
    let variant = match params.get("variant") {
        None => entry.info.default_variant.to_string(),
        Some(Value::String(v)) => v.clone(),
        Some(_) => return Err(err(format!("{field}.variant"), "must be a string")),
    };
    let mut rest = params.clone();
    rest.remove("variant");
    Ok((variant, rest))
}

/// Check a discipline's name and parameters without building it (config validation).
pub fn check(field: &str, discipline: &str, params: &Map<String, Value>) -> Result<(), ConfigError> {
    let entry = find(field, discipline)?;
    let (variant, rest) = variant_of(field, &entry, params)?;
    (entry.check)(field, &variant, &rest)
}

/// Build a discipline. `field` names the queue in errors (e.g. `network.bottleneck.queue`); `params` holds
/// `variant` and the discipline's parameters.
pub fn build(
    field: &str,
    discipline: &str,
    params: &Map<String, Value>,
    limits: QueueLimits,
    link: LinkInfo,
) -> Result<Box<dyn Queue>, ConfigError> {
    let entry = find(field, discipline)?;
    let (variant, rest) = variant_of(field, &entry, params)?;
    (entry.build)(field, &variant, &rest, limits, link)
}

/// Every discipline with its variants (and their parameter values), parameter docs and sources.
pub fn describe_all() -> Value {
    Value::Array(
        entries()
            .iter()
            .map(|e| {
                let d = e.info;
                json!({
                    "name": d.name,
                    "summary": d.summary,
                    "default_variant": d.default_variant,
                    "variants": d.variants.iter().map(|(v, source)| json!({
                        "name": v, "source": source, "parameters": (e.defaults)(v)
                    })).collect::<Vec<_>>(),
                    "parameters": d.params.iter().map(|p| json!({"name": p.name, "doc": p.doc})).collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINK: LinkInfo = LinkInfo { rate_bps: 100_000_000, packet_size: 1500, delay_ns: 50_000_000, rng_seed: 1 };
    const LIMITS: QueueLimits = QueueLimits { packets: 100, bytes: None };

    #[test]
    fn builds_droptail_and_names_the_field_of_a_bad_discipline() {
        let q = build("network.bottleneck.queue", "droptail", &Map::new(), LIMITS, LINK).unwrap();
        assert!(q.is_empty());
        let e = build("network.bottleneck.queue", "dropfront", &Map::new(), LIMITS, LINK).err().unwrap();
        assert_eq!(e.field, "network.bottleneck.queue.discipline");
        assert!(e.message.contains("accepted: droptail, red, ared, codel, fq_codel, pie"), "{}", e.message);
    }

    fn params(pairs: &[(&str, Value)]) -> Map<String, Value> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
    }

    #[test]
    fn aqm_disciplines_build_by_name_and_variant() {
        for (name, variant) in [("codel", "rfc8289"), ("fq_codel", "rfc8290"), ("fq_codel", "linux"), ("pie", "rfc8033")] {
            let q = build("q", name, &params(&[("variant", json!(variant))]), LIMITS, LINK).unwrap();
            assert!(q.is_empty(), "{name}");
            assert_eq!(q.counters(), super::super::QueueCounters::default());
        }
        let p = params(&[("target_ns", json!(2_000_000)), ("interval_ns", json!(50_000_000)), ("ecn", json!(true)), ("maxpacket_bytes", json!(9000))]);
        assert!(build("q", "codel", &p, LIMITS, LINK).is_ok());
        let p = params(&[("flows", json!(16)), ("quantum_bytes", json!(300)), ("drop_batch", json!(8))]);
        assert!(build("q", "fq_codel", &p, LIMITS, LINK).is_ok());
        let p = params(&[("alpha_hz", json!(0.0625)), ("beta_hz", json!(0.625)), ("t_update_ns", json!(7_500_000)), ("max_burst_ns", json!(0))]);
        assert!(build("q", "pie", &p, LIMITS, LINK).is_ok());
    }

    #[test]
    fn bad_aqm_parameters_name_their_field() {
        let cases = [
            ("codel", "target_ns", json!(0), "q.target_ns"),
            ("codel", "interval_ns", json!(1_000_000), "q.interval_ns"),
            ("codel", "maxpacket_bytes", json!(0), "q.maxpacket_bytes"),
            ("codel", "target", json!(5), "q.target"),
            ("fq_codel", "target_ns", json!(0), "q.target_ns"),
            ("fq_codel", "interval_ns", json!(4_000_000), "q.interval_ns"),
            ("fq_codel", "flows", json!(0), "q.flows"),
            ("fq_codel", "quantum_bytes", json!(0), "q.quantum_bytes"),
            ("fq_codel", "drop_batch", json!(0), "q.drop_batch"),
            ("pie", "target_ns", json!(0), "q.target_ns"),
            ("pie", "t_update_ns", json!(0), "q.t_update_ns"),
            ("pie", "alpha_hz", json!(-0.125), "q.alpha_hz"),
            ("pie", "beta_hz", json!(-1.0), "q.beta_hz"),
            ("pie", "ecn_threshold", json!(1.5), "q.ecn_threshold"),
            ("pie", "mean_packet_bytes", json!(0), "q.mean_packet_bytes"),
        ];
        for (name, key, value, field) in cases {
            let e = check("q", name, &params(&[(key, value.clone())])).err().unwrap_or_else(|| panic!("{name} {key} = {value} accepted"));
            assert_eq!(e.field, field, "{name} {key}: {}", e.message);
        }
        // interval_ns below the default target (5 ms) and below a given one.
        let e = check("q", "codel", &params(&[("target_ns", json!(20_000_000)), ("interval_ns", json!(10_000_000))])).err().unwrap();
        assert_eq!(e.field, "q.interval_ns");
        assert!(e.message.contains("20000000"), "{}", e.message);
    }

    #[test]
    fn unknown_parameters_and_variants_are_named() {
        let mut params = Map::new();
        params.insert("min_th".into(), json!(5));
        let e = check("links.0.queue", "droptail", &params).err().unwrap();
        assert_eq!(e.field, "links.0.queue.min_th");
        let mut params = Map::new();
        params.insert("variant".into(), json!("linux"));
        let e = check("links.0.queue", "droptail", &params).err().unwrap();
        assert_eq!(e.field, "links.0.queue.variant");
        assert!(e.message.contains("ns2"), "{}", e.message);
    }

    #[test]
    fn red_and_ared_build_by_name_and_bad_settings_name_their_field() {
        const FIELD: &str = "network.bottleneck.queue";
        for (name, variant) in [("red", "ns2"), ("ared", "ns2"), ("ared", "floyd2001")] {
            let mut params = Map::new();
            params.insert("variant".into(), json!(variant));
            let q = build(FIELD, name, &params, LIMITS, LINK).unwrap();
            let mut state = vec![];
            q.state(&mut state);
            assert_eq!(state.iter().find(|(n, _)| *n == "max_p").map(|s| s.1), Some(0.1), "{name}/{variant}");
        }
        let field_of_error = |name: &str, params: Value| {
            check(FIELD, name, params.as_object().unwrap()).err().map(|e| e.field).unwrap_or_default()
        };
        for (name, params, field) in [
            ("red", json!({"min_th": 20, "max_th": 10}), "max_th"),
            ("red", json!({"min_th": 10, "max_th": 10}), "max_th"),
            ("ared", json!({"max_th": 10}), "max_th"),
            ("red", json!({"max_p": 0}), "max_p"),
            ("ared", json!({"max_p": 1.5}), "max_p"),
            ("red", json!({"w_q": 1.5}), "w_q"),
            ("red", json!({"w_q": -0.5}), "w_q"),
            ("ared", json!({"bottom": 0.6}), "bottom"),
            ("red", json!({"interval": 0.5}), "interval"),
        ] {
            assert_eq!(field_of_error(name, params.clone()), format!("{FIELD}.{field}"), "{name} {params}");
        }
        // ns-2's automatic weights and explicit thresholds are accepted.
        for w_q in [-2.0, -1.0, 0.0, 1.0] {
            assert!(check(FIELD, "red", json!({"w_q": w_q, "min_th": 5, "max_th": 15}).as_object().unwrap()).is_ok());
        }
    }

    #[test]
    fn every_discipline_describes_its_default_variant() {
        for d in describe_all().as_array().unwrap() {
            let default = d["default_variant"].as_str().unwrap();
            assert!(d["variants"].as_array().unwrap().iter().any(|v| v["name"] == default), "{d}");
        }
    }
}
