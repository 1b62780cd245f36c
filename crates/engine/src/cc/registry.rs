//! Builds algorithms by name from their config documents and describes them for `cclab algorithms`.
//!
//! A config is `{"name": ..., "variant": ..., parameter: value, ...}`: the variant's preset is taken, then
//! each given parameter replaces the preset's value, so historical variants are configurations, not copies.

use super::aimd::AimdConfig;
use super::bbr::BbrConfig;
use super::bic::BicConfig;
use super::compound::CompoundConfig;
use super::cubic::CubicConfig;
use super::fast::FastConfig;
use super::highspeed::HighSpeedConfig;
use super::htcp::HtcpConfig;
use super::newreno::NewRenoConfig;
use super::scalable::ScalableConfig;
use super::vegas::VegasConfig;
use super::westwood::WestwoodConfig;
use super::AnyCc;
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

/// What every algorithm module provides: its description, its variant presets (a config struct whose
/// fields are the parameters), range checks, and how to build it.
pub trait Algorithm: Serialize + DeserializeOwned + Clone + Send + Sync + Sized + 'static {
    const INFO: AlgorithmInfo;
    /// The preset of a named variant (one of `INFO.variants`).
    fn variant(name: &str) -> Option<Self>;
    /// Checks beyond the types (ranges); `field` is the config path for error messages.
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        let _ = field;
        Ok(())
    }
    fn build(self, initial_cwnd: u32) -> AnyCc;
}

/// Type-erased registry entry.
pub struct Entry {
    pub info: &'static AlgorithmInfo,
    prepare: fn(&str, &str, &Map<String, Value>, u32) -> Result<Recipe, ConfigError>,
    defaults: fn(&str) -> Value,
}

/// An algorithm's config document read and checked once, ready to build any number of fresh instances.
/// A traffic source opens a connection every few packets (8.4 data packets per connection in the web
/// benchmark), and reading the JSON document for each one (cloned twice into maps, the name looked up,
/// the preset serialised and merged) cost about 3000 instructions per connection, 12 % of the run
/// (docs/benchmarks.md, run 10). Each build starts from a copy of the same checked config struct, so an
/// instance is the one `build` would make from the document.
pub struct Recipe {
    make: Box<dyn Fn() -> AnyCc + Send + Sync>,
}

impl Recipe {
    /// A new instance, in the state `build` returns it (not yet attached to a flow).
    pub fn make(&self) -> AnyCc {
        (self.make)()
    }
}

fn entry<A: Algorithm>() -> Entry {
    Entry {
        info: &A::INFO,
        prepare: |field, variant, params, initial_cwnd| {
            let preset = A::variant(variant).ok_or_else(|| {
                let names: Vec<&str> = A::INFO.variants.iter().map(|v| v.0).collect();
                err(format!("{field}.variant"), format!("unknown variant '{variant}' of {}; accepted: {}", A::INFO.name, names.join(", ")))
            })?;
            let cfg: A = merged(field, A::INFO.name, "name, variant, ", preset, params)?;
            cfg.validate(field)?;
            Ok(Recipe { make: Box::new(move || cfg.clone().build(initial_cwnd)) })
        },
        defaults: |variant| serde_json::to_value(A::variant(variant)).unwrap_or(Value::Null),
    }
}

/// Every algorithm, in the order `cclab algorithms` lists them. Adding one is one line here and one variant
/// in `AnyCc` (`cc/any.rs`), which `build` returns.
pub fn entries() -> Vec<Entry> {
    vec![
        entry::<NewRenoConfig>(),
        entry::<ScalableConfig>(),
        entry::<HighSpeedConfig>(),
        entry::<HtcpConfig>(),
        entry::<WestwoodConfig>(),
        entry::<BicConfig>(),
        entry::<CubicConfig>(),
        entry::<CompoundConfig>(),
        entry::<VegasConfig>(),
        entry::<FastConfig>(),
        entry::<AimdConfig>(),
        entry::<BbrConfig>(),
    ]
}

/// The entry for a name or alias.
pub fn canonical(name: &str) -> Option<Entry> {
    entries().into_iter().find(|e| e.info.name == name || e.info.aliases.contains(&name))
}

fn accepted_names() -> String {
    entries()
        .iter()
        .flat_map(|e| std::iter::once(e.info.name).chain(e.info.aliases.iter().copied()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Preset merged with the user's parameters, deserialised into the algorithm's config struct. Also used
/// by the queue-discipline registry (`net::queue::registry`).
pub(crate) fn merged<C: Serialize + DeserializeOwned>(
    field: &str,
    algorithm: &str,
    fixed_keys: &str,
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
                format!("unknown parameter for {algorithm}; accepted: {fixed_keys}{}", accepted.join(", ")),
            ));
        }
        base.insert(key.clone(), value.clone());
    }
    serde_json::from_value(Value::Object(base)).map_err(|e| err(field, format!("{algorithm}: {e}")))
}

/// Build an algorithm from its config document. `field` names it in errors (e.g. `flows.0.cc`).
pub fn build(field: &str, spec: &Value, initial_cwnd: u32) -> Result<AnyCc, ConfigError> {
    Ok(recipe(field, spec, initial_cwnd)?.make())
}

/// Read and check an algorithm's config document once, for many instances (`Recipe`); the same errors
/// as `build`.
pub fn recipe(field: &str, spec: &Value, initial_cwnd: u32) -> Result<Recipe, ConfigError> {
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
    let entry = canonical(name).ok_or_else(|| {
        err(format!("{field}.name"), format!("unknown algorithm '{name}'; accepted: {}", accepted_names()))
    })?;
    let variant = match obj.get("variant") {
        None => entry.info.default_variant,
        Some(Value::String(v)) => v.as_str(),
        Some(_) => return Err(err(format!("{field}.variant"), "must be a string")),
    };
    let mut params = obj.clone();
    params.remove("name");
    params.remove("variant");
    (entry.prepare)(field, variant, &params, initial_cwnd)
}

/// Every algorithm with its variants (and their parameter values), parameter docs and sources.
pub fn describe_all() -> Value {
    Value::Array(
        entries()
            .iter()
            .map(|e| {
                let a = e.info;
                json!({
                    "name": a.name,
                    "aliases": a.aliases,
                    "summary": a.summary,
                    "default_variant": a.default_variant,
                    "variants": a.variants.iter().map(|(v, source)| json!({
                        "name": v, "source": source, "parameters": (e.defaults)(v)
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
    use crate::cc::CongestionControl;

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
        // Every algorithm and alias is offered, starting with NewReno and its alias.
        assert!(e.message.contains("accepted: newreno, reno, "), "{}", e.message);
        for entry in entries() {
            assert!(e.message.contains(entry.info.name), "{} missing from: {}", entry.info.name, e.message);
        }
        let e = build("flows.0.cc", &json!({"name": "cubic", "betta": 0.5}), 2).err().unwrap();
        assert_eq!(e.field, "flows.0.cc.betta");
        assert!(e.message.contains("beta"));
        let e = build("flows.0.cc", &json!({"name": "cubic", "variant": "2.6.13"}), 2).err().unwrap();
        assert!(e.message.contains("linux-2.6.22"));
        let e = build("flows.0.cc", &json!({"name": "cubic", "beta": 1.5}), 2).err().unwrap();
        assert_eq!(e.field, "flows.0.cc.beta");
    }

    #[test]
    fn a_recipe_builds_fresh_independent_instances() {
        let cubic = recipe("cc", &json!({"name": "cubic", "variant": "linux-2.6.22"}), 3).unwrap();
        let mut first = cubic.make();
        first.set_cwnd(40);
        // The second starts at the initial window it was read with (3 packets), not where the first is.
        let second = cubic.make();
        assert_eq!((first.cwnd(), second.cwnd()), (40, 3));
        assert_eq!(second.name(), "cubic");
        // Reading the document reports what `build` reports.
        assert_eq!(recipe("flows.0.cc", &json!("vegass"), 2).err().unwrap().field, "flows.0.cc.name");
        assert_eq!(recipe("flows.0.cc", &json!({"name": "cubic", "beta": 1.5}), 2).err().unwrap().field, "flows.0.cc.beta");
    }

    #[test]
    fn description_lists_variant_parameters() {
        let d = describe_all();
        let cubic = d.as_array().unwrap().iter().find(|a| a["name"] == "cubic").unwrap();
        let old = cubic["variants"].as_array().unwrap().iter().find(|v| v["name"] == "linux-2.6.22").unwrap();
        assert_eq!(old["parameters"]["max_increment"], 16);
    }
}
