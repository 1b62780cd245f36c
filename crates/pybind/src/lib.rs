//! Thin PyO3 bindings of cclab-engine, imported as `cclab._engine`.
//!
//! Everything crosses as JSON text or plain lists: the engine config in, the summary and the columnar time
//! series out. A Rust panic is caught here and raised as `RuntimeError`, never a crash of the interpreter.

use cclab_engine::{cc::registry, Simulation as EngineSimulation};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::panic::{catch_unwind, AssertUnwindSafe};

fn guard<T>(what: &str, f: impl FnOnce() -> T) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        let msg = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic".into());
        PyRuntimeError::new_err(format!("internal error in {what}: {msg} (please report this with the scenario)"))
    })
}

#[pyclass(module = "cclab._engine")]
struct Simulation {
    inner: EngineSimulation,
}

#[pymethods]
impl Simulation {
    #[new]
    fn new(config_json: &str) -> PyResult<Self> {
        let built = guard("building the simulation", || EngineSimulation::from_json(config_json))?;
        built.map(|inner| Simulation { inner }).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Advance to min(t_ns, duration) without holding the GIL.
    fn run_until(&mut self, py: Python<'_>, t_ns: u64) -> PyResult<()> {
        let inner = &mut self.inner;
        py.allow_threads(|| guard("the simulation", || inner.run_until(cclab_engine::time::SimTime(t_ns))))
    }

    #[getter]
    fn now_ns(&self) -> u64 {
        self.inner.now().0
    }
    #[getter]
    fn duration_ns(&self) -> u64 {
        self.inner.end().0
    }
    #[getter]
    fn events(&self) -> u64 {
        self.inner.events_processed()
    }

    /// Summary as a JSON string (see docs/engine-interface.md).
    fn summary_json(&self) -> PyResult<String> {
        guard("the summary", || serde_json::to_string(&self.inner.summary()).expect("summary serialises"))
    }

    /// Queue samples of every link with a queue: {column: list}, with `link` as the link's name.
    fn link_series<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let ls = self.inner.link_series();
        let names = self.inner.link_names();
        let out = PyDict::new_bound(py);
        out.set_item("time_s", ls.time_s.clone())?;
        out.set_item("link", ls.link.iter().map(|&k| names[k as usize]).collect::<Vec<&str>>())?;
        out.set_item("queue_packets", ls.queue_packets.clone())?;
        out.set_item("queue_bytes", ls.queue_bytes.clone())?;
        out.set_item("drops", ls.drops.clone())?;
        Ok(out)
    }

    /// Time series: {"flows": {column: list}, "queue": {column: list}}.
    fn timeseries<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let fs = self.inner.flow_series();
        let qs = self.inner.queue_series();
        let flows = PyDict::new_bound(py);
        flows.set_item("time_s", fs.time_s.clone())?;
        flows.set_item("flow", fs.flow.clone())?;
        flows.set_item("cwnd", fs.cwnd.clone())?;
        flows.set_item("ssthresh", fs.ssthresh.clone())?;
        flows.set_item("srtt_s", fs.srtt_s.clone())?;
        flows.set_item("rtt_s", fs.rtt_s.clone())?;
        flows.set_item("in_flight", fs.in_flight.clone())?;
        flows.set_item("delivered", fs.delivered.clone())?;
        for (name, col) in &fs.cc {
            flows.set_item(name, col.clone())?;
        }
        let queue = PyDict::new_bound(py);
        queue.set_item("time_s", qs.time_s.clone())?;
        queue.set_item("queue_packets", qs.queue_packets.clone())?;
        queue.set_item("queue_bytes", qs.queue_bytes.clone())?;
        queue.set_item("drops", qs.drops.clone())?;
        let out = PyDict::new_bound(py);
        out.set_item("flows", flows)?;
        out.set_item("queue", queue)?;
        Ok(out)
    }
}

/// Every queue discipline with variants, parameters and sources, as a JSON string.
#[pyfunction]
fn queues_json() -> String {
    cclab_engine::net::queue::registry::describe_all().to_string()
}

/// Every algorithm with variants, parameters and sources, as a JSON string.
#[pyfunction]
fn algorithms_json() -> String {
    registry::describe_all().to_string()
}

#[pyfunction]
fn version() -> &'static str {
    cclab_engine::VERSION
}

/// Fingerprint of the engine's source, so stored results are filed per engine build.
#[pyfunction]
fn source_hash() -> &'static str {
    cclab_engine::SOURCE_HASH
}

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulation>()?;
    m.add_function(wrap_pyfunction!(algorithms_json, m)?)?;
    m.add_function(wrap_pyfunction!(queues_json, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(source_hash, m)?)?;
    Ok(())
}
