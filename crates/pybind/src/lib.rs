//! Thin PyO3 bindings of cclab-engine, imported as `cclab._engine`.
//!
//! The engine config crosses in as JSON text, the summary out as JSON text and the time series as numpy
//! arrays, one per column. A Rust panic is caught here and raised as `RuntimeError`, never a crash of the interpreter.

use cclab_engine::{cc::registry, Simulation as EngineSimulation};
use numpy::PyArray1;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

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

/// Wall time one slice of `run_until` aims at: Python runs its signal handlers between slices, so Ctrl-C
/// stops a run within about this long, however many events a simulated second holds.
const SLICE_WALL: Duration = Duration::from_millis(50);
/// The first slice's simulated length, 1 ms; later slices grow or shrink to take about SLICE_WALL.
const FIRST_SLICE_NS: u64 = 1_000_000;

#[pyclass(module = "cclab._engine")]
struct Simulation {
    inner: EngineSimulation,
    /// Simulated nanoseconds the next slice of `run_until` covers (adapted to SLICE_WALL as the run goes).
    slice_ns: u64,
}

#[pymethods]
impl Simulation {
    #[new]
    fn new(config_json: &str) -> PyResult<Self> {
        let built = guard("building the simulation", || EngineSimulation::from_json(config_json))?;
        built
            .map(|inner| Simulation { inner, slice_ns: FIRST_SLICE_NS })
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Advance to min(t_ns, duration) without holding the GIL, in slices of simulated time of about
    /// SLICE_WALL of wall time each. Between slices the GIL is taken back to run Python's signal handlers:
    /// Ctrl-C raises KeyboardInterrupt within a slice, where one call used to run to its end (minutes, in
    /// a slow run). Running to t in slices fires the same events in the same order as one call (the engine
    /// fires every event due up to each slice's end, then the next slice continues from there). A run the
    /// engine refuses to go on with (`RunError`, e.g. more events than the queue can number) is a
    /// RuntimeError with the engine's message.
    fn run_until(&mut self, py: Python<'_>, t_ns: u64) -> PyResult<()> {
        let target = t_ns.min(self.inner.end().0);
        loop {
            let slice_end = self.inner.now().0.saturating_add(self.slice_ns).min(target);
            let inner = &mut self.inner;
            let started = Instant::now();
            py.allow_threads(|| guard("the simulation", || inner.run_until(cclab_engine::time::SimTime(slice_end))))?
                .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
            self.slice_ns = next_slice(self.slice_ns, started.elapsed());
            py.check_signals()?;
            if slice_end >= target {
                return Ok(());
            }
        }
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

    /// Queue samples of every link with a queue: {column: numpy array}, and `link`, the link's name.
    fn link_series<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let ls = self.inner.link_series();
        let names = self.inner.link_names();
        let out = PyDict::new_bound(py);
        out.set_item("time_s", float64(py, &ls.time_s))?;
        // Names repeat per sample: a list of the same few str objects, which pandas turns into a column.
        out.set_item("link", ls.link.iter().map(|&k| names[k as usize]).collect::<Vec<&str>>())?;
        out.set_item("queue_packets", int64(py, ls.queue_packets.iter().map(|&v| saturating_i64(v))))?;
        out.set_item("queue_bytes", int64(py, ls.queue_bytes.iter().map(|&v| saturating_i64(v))))?;
        out.set_item("drops", int64(py, ls.drops.iter().map(|&v| saturating_i64(v))))?;
        out.set_item("bytes_tx", int64(py, ls.bytes_tx.iter().map(|&v| saturating_i64(v))))?;
        Ok(out)
    }

    /// One row per recorded connection of the traffic sources with `records` (completed, then alive):
    /// {column: numpy array}, with `group` as the group's name.
    fn connection_records<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let r = self.inner.connection_records();
        let names = self.inner.group_names();
        let out = PyDict::new_bound(py);
        out.set_item("group", r.group.iter().map(|&g| names[g as usize]).collect::<Vec<&str>>())?;
        out.set_item("start_s", float64(py, &r.start_s))?;
        out.set_item("end_s", float64(py, &r.end_s))?;
        out.set_item("size_bytes", int64(py, r.size_bytes.iter().map(|&v| saturating_i64(v))))?;
        out.set_item("bytes", int64(py, r.bytes.iter().map(|&v| saturating_i64(v))))?;
        out.set_item("completion_time_s", float64(py, &r.completion_time_s))?;
        out.set_item("retransmissions", int64(py, r.retransmissions.iter().map(|&v| saturating_i64(v))))?;
        out.set_item("timeouts", int64(py, r.timeouts.iter().map(|&v| saturating_i64(v))))?;
        Ok(out)
    }

    /// Loss-event start times of the scenario's flows, one row per event: {"flow": int64, "time_ns": int64},
    /// ordered by flow then time (seed 003's synchronisation ratio). ValueError unless the config's
    /// `run.record_loss_events` asked the engine to keep them.
    fn loss_events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let per_flow = self.inner.loss_event_times().ok_or_else(|| {
            PyValueError::new_err("run.record_loss_events: the run did not record its loss-event times (set it to true)")
        })?;
        let out = PyDict::new_bound(py);
        let flows = per_flow.iter().enumerate().flat_map(|(i, times)| std::iter::repeat(i as i64).take(times.len()));
        out.set_item("flow", int64(py, flows))?;
        out.set_item("time_ns", int64(py, per_flow.iter().flat_map(|t| t.iter().map(|&v| saturating_i64(v)))))?;
        Ok(out)
    }

    /// Every RTT measurement of the scenario's flows over the measurement window, as a histogram: one row
    /// per bucket with measurements, {"flow", "low_ns", "high_ns", "count"}: int64 arrays, ordered by flow
    /// then value; every measurement counted in a row lies in [low_ns, high_ns], the first row of a flow
    /// starts at its smallest measurement and the last ends at its largest. ValueError unless the config's
    /// `run.rtt_histogram` asked the engine to count them.
    fn rtt_histogram<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let per_flow = self.inner.rtt_histograms().ok_or_else(|| {
            PyValueError::new_err("run.rtt_histogram: the run did not count its RTT measurements (set it to true)")
        })?;
        let rows: Vec<(i64, cclab_engine::histogram::Bucket)> = per_flow
            .iter()
            .enumerate()
            .flat_map(|(flow, histogram)| histogram.buckets().into_iter().map(move |b| (flow as i64, b)))
            .collect();
        let out = PyDict::new_bound(py);
        out.set_item("flow", int64(py, rows.iter().map(|(flow, _)| *flow)))?;
        out.set_item("low_ns", int64(py, rows.iter().map(|(_, b)| saturating_i64(b.low_ns))))?;
        out.set_item("high_ns", int64(py, rows.iter().map(|(_, b)| saturating_i64(b.high_ns))))?;
        out.set_item("count", int64(py, rows.iter().map(|(_, b)| saturating_i64(b.count))))?;
        Ok(out)
    }

    /// Time series: {"flows": {column: numpy array}, "queue": {column: numpy array}}.
    ///
    /// Numbers cross as float64 arrays (one memcpy each) and integers as int64 arrays (one widening pass in
    /// Rust), so a run of 10^6 samples costs milliseconds here, where a Python list cost an object per
    /// sample. Integers are widened from the engine's u32/u64 so that pandas arithmetic on them (a
    /// difference of two cwnd samples) is signed, as it was with Python ints.
    fn timeseries<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let fs = self.inner.flow_series();
        let qs = self.inner.queue_series();
        let flows = PyDict::new_bound(py);
        flows.set_item("time_s", float64(py, &fs.time_s))?;
        flows.set_item("flow", int64(py, fs.flow.iter().map(|&v| i64::from(v))))?;
        flows.set_item("cwnd", int64(py, fs.cwnd.iter().map(|&v| i64::from(v))))?;
        flows.set_item("ssthresh", int64(py, fs.ssthresh.iter().map(|&v| i64::from(v))))?;
        flows.set_item("srtt_s", float64(py, &fs.srtt_s))?;
        flows.set_item("rtt_s", float64(py, &fs.rtt_s))?;
        flows.set_item("rto_s", float64(py, &fs.rto_s))?;
        flows.set_item("in_flight", int64(py, fs.in_flight.iter().map(|&v| i64::from(v))))?;
        flows.set_item("delivered", int64(py, fs.delivered.iter().map(|&v| saturating_i64(v))))?;
        for (name, col) in &fs.cc {
            flows.set_item(name, float64(py, col))?;
        }
        let queue = PyDict::new_bound(py);
        queue.set_item("time_s", float64(py, &qs.time_s))?;
        queue.set_item("queue_packets", int64(py, qs.queue_packets.iter().map(|&v| saturating_i64(v))))?;
        queue.set_item("queue_bytes", int64(py, qs.queue_bytes.iter().map(|&v| saturating_i64(v))))?;
        queue.set_item("drops", int64(py, qs.drops.iter().map(|&v| saturating_i64(v))))?;
        queue.set_item("bytes_tx", int64(py, qs.bytes_tx.iter().map(|&v| saturating_i64(v))))?;
        let out = PyDict::new_bound(py);
        out.set_item("flows", flows)?;
        out.set_item("queue", queue)?;
        Ok(out)
    }
}

/// The next slice's simulated length: scaled by how far the last one's wall time was from SLICE_WALL, by a
/// factor between 1/4 and 4 so that one odd slice (a burst of events, a pause of the machine) does not
/// swing it, and never below 1 µs of simulated time.
fn next_slice(slice_ns: u64, took: Duration) -> u64 {
    let factor = SLICE_WALL.as_secs_f64() / took.as_secs_f64().max(1e-9);
    ((slice_ns as f64 * factor.clamp(0.25, 4.0)) as u64).max(1_000)
}

/// The live testbed's delay line (crate cclab-delayline) on an open TUN device: every packet read from the
/// device is written back into it `delay_ns` later, by two threads of its own that never take the GIL.
/// Not part of the simulation interface: `cclab.live.delayline` runs it in the testbed's middle namespace.
#[pyclass(module = "cclab._engine")]
struct DelayLine {
    inner: Option<cclab_delayline::DelayLine>,
}

#[pymethods]
impl DelayLine {
    #[new]
    fn new(fd: i32, delay_ns: u64, capacity_packets: usize) -> PyResult<Self> {
        let line = cclab_delayline::DelayLine::start(fd, std::time::Duration::from_nanos(delay_ns), capacity_packets)
            .map_err(|e| PyRuntimeError::new_err(format!("the delay line's threads did not start: {e}")))?;
        Ok(DelayLine { inner: Some(line) })
    }

    /// Counters since the start: packets in and out, bytes out, drops (line full), read and write errors,
    /// lateness of the writes against their release instants (total and largest, ns), most packets held,
    /// threads at real-time priority.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        use std::sync::atomic::Ordering::Relaxed;
        let out = PyDict::new_bound(py);
        if let Some(line) = &self.inner {
            let c = line.counters();
            out.set_item("packets_in", c.packets_in.load(Relaxed))?;
            out.set_item("packets_out", c.packets_out.load(Relaxed))?;
            out.set_item("bytes_out", c.bytes_out.load(Relaxed))?;
            out.set_item("drops_full", c.drops_full.load(Relaxed))?;
            out.set_item("read_errors", c.read_errors.load(Relaxed))?;
            out.set_item("write_errors", c.write_errors.load(Relaxed))?;
            out.set_item("late_ns_total", c.late_ns_total.load(Relaxed))?;
            out.set_item("late_ns_max", c.late_ns_max.load(Relaxed))?;
            out.set_item("held_max", c.held_max.load(Relaxed))?;
            out.set_item("held", line.held())?;
            out.set_item("realtime_threads", c.realtime_threads.load(Relaxed))?;
        }
        Ok(out)
    }

    /// Stop the threads (within 100 ms); packets still held are dropped. Stopping twice is harmless.
    fn stop(&mut self, py: Python<'_>) {
        if let Some(mut line) = self.inner.take() {
            py.allow_threads(|| line.stop());
        }
    }
}

fn float64<'py>(py: Python<'py>, values: &[f64]) -> Bound<'py, PyArray1<f64>> {
    PyArray1::from_slice_bound(py, values)
}

/// The Vec becomes the array's buffer: no copy after the widening pass.
fn int64<'py>(py: Python<'py>, values: impl Iterator<Item = i64>) -> Bound<'py, PyArray1<i64>> {
    PyArray1::from_vec_bound(py, values.collect())
}

/// Counts of packets and bytes; 2^63 of either is centuries of simulated 100 Gbit/s, so saturating is only
/// a guard against a panic, never a value a run produces.
fn saturating_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
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

/// Panics inside `guard` on purpose, so that the tests can check that a panic in the engine reaches Python as
/// a RuntimeError naming what failed, never an abort of the interpreter (tests/test_engine_interface.py).
/// Not part of the interface.
#[pyfunction]
fn _panic_for_tests(message: &str) -> PyResult<()> {
    guard("a deliberate test panic", || panic!("{message}"))
}

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulation>()?;
    m.add_class::<DelayLine>()?;
    m.add_function(wrap_pyfunction!(algorithms_json, m)?)?;
    m.add_function(wrap_pyfunction!(queues_json, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(source_hash, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slice_grows_at_most_fourfold_and_shrinks_at_most_to_a_quarter() {
        // 1 ms of simulated time that took 5 ms of wall time: 10x faster than SLICE_WALL (50 ms), capped at 4x.
        assert_eq!(next_slice(1_000_000, Duration::from_millis(5)), 4_000_000);
        // That took 100 ms: twice SLICE_WALL, so half as long next time.
        assert_eq!(next_slice(1_000_000, Duration::from_millis(100)), 500_000);
        // That took 10 s: capped at a quarter.
        assert_eq!(next_slice(1_000_000, Duration::from_secs(10)), 250_000);
        // A slice that took no measurable time still only grows 4x; the floor is 1 µs.
        assert_eq!(next_slice(1_000_000, Duration::ZERO), 4_000_000);
        assert_eq!(next_slice(1_000, Duration::from_secs(10)), 1_000);
    }
}
